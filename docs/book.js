// The book's page behaviour, on top of Doxygen's HTML (no library):
// - a wide formula, code or output box that scrolls sideways gets the class "scrolls-x" and a
//   visible cue above it ("scrolls sideways"), rechecked when the window changes size;
// - the table of contents stays at hand: in the right margin of a wide window (book.css), and on a
//   narrow one as a "Contents" button fixed at the bottom right once the page's own table of
//   contents has scrolled away;
// - a link to a line inside a folded block of output (a claim's printed line) opens the block.
(function () {
  "use strict";
  const boxes = "div.MathJax_Display, div.fragment, pre.fragment, table.markdownTable, a.figure-open.diagram";

  function markScrolling() {
    for (const box of document.querySelectorAll(boxes)) {
      const overflows = box.scrollWidth > box.clientWidth + 1;
      box.classList.toggle("scrolls-x", overflows);
      // The cue goes above the box, and above its file label when it has one.
      let above = box.previousElementSibling;
      if (above !== null && above.classList.contains("codefile")) above = above.previousElementSibling;
      const cue = above;
      const hasCue = cue !== null && cue.classList.contains("scroll-cue");
      if (overflows && !hasCue) {
        const c = document.createElement("div");
        c.className = "scroll-cue";
        c.textContent = "\u21c6 scrolls sideways";
        const label = box.previousElementSibling;
        const at = label !== null && label.classList.contains("codefile") ? label : box;
        at.parentNode.insertBefore(c, at);
      } else if (!overflows && hasCue) {
        cue.remove();
      }
    }
  }

  function contentsAtHand() {
    const toc = document.querySelector("div.toc");
    if (!toc) return;
    const nav = document.createElement("nav");
    nav.className = "toc-at-hand";
    nav.setAttribute("aria-label", "Contents");
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = "Contents";
    details.appendChild(summary);
    const list = toc.querySelector("ul");
    if (list) details.appendChild(list.cloneNode(true));
    details.addEventListener("click", (e) => { if (e.target.closest("a")) details.open = false; });
    nav.appendChild(details);
    document.body.appendChild(nav);
    const update = () => nav.classList.toggle("shown", toc.getBoundingClientRect().bottom < 0);
    window.addEventListener("scroll", update, { passive: true });
    update();
  }

  // The folded blocks around the element a link points at (#printed_train_04) open, so the line shows.
  function openTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    let opened = false;
    for (let d = target.closest("details"); d; d = d.parentElement.closest("details")) {
      if (!d.open) d.open = opened = true;
    }
    if (opened) target.scrollIntoView();
  }

  window.bookMarkScrolling = markScrolling;  // for the browser test, after it has waited for MathJax

  function start() {
    contentsAtHand();
    openTarget();
    window.addEventListener("hashchange", openTarget);
    // An output block opened by the reader is measured again: it may need its scroll cue.
    document.addEventListener("toggle", (e) => { if (e.target.matches("details.output-stage")) markScrolling(); }, true);
    markScrolling();
    // MathJax (loaded asynchronously) typesets after load: check again once its queue is empty,
    // and on every resize.
    let tries = 0;
    const afterMath = () => {
      if (window.MathJax && window.MathJax.Hub && window.MathJax.Hub.Queue) window.MathJax.Hub.Queue(markScrolling);
      else if (++tries < 50) setTimeout(afterMath, 200);
    };
    if (document.querySelector("script[src$='MathJax.js']")) afterMath();
    let pending = 0;
    window.addEventListener("resize", () => {
      clearTimeout(pending);
      pending = setTimeout(markScrolling, 100);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
