MathJax.Hub.Config({
  // Only the TeX web fonts copied into html/mathjax: no probing for local or image fonts.
  "HTML-CSS": { availableFonts: [], preferredFont: null, webFont: "TeX", imageFont: null,
                linebreaks: { automatic: false } },
  // Wide formulas scroll inside their box (book.css) rather than shrinking the page.
  showMathMenu: false, messageStyle: "none"
});
