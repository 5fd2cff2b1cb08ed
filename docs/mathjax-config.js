MathJax.Hub.Config({
  // Only the TeX web fonts copied into html/mathjax: no probing for local or image fonts.
  // A display formula wider than its column breaks at its operators where it can (a phone's
  // column); one that still does not fit scrolls inside its box with a cue (book.css, book.js).
  "HTML-CSS": { availableFonts: [], preferredFont: null, webFont: "TeX", imageFont: null,
                linebreaks: { automatic: true, width: "container" } },
  showMathMenu: false, messageStyle: "none",
  // MathJax's own return to the URL's target after typesetting decodes the hash unguarded (a
  // malformed one, #%E0%A4%A, would throw): book.js returns to the target instead.
  positionToHash: false
});
