// The book's page behaviour, on top of Doxygen's HTML (no library but the search's MiniSearch):
// - prose first: each printed-output block shows the lines its prose discusses and folds the rest
//   (foldOutputs below); the full output, byte for byte, is one click away;
// - a wide formula or code box that scrolls sideways gets the class "scrolls-x" and a visible cue
//   above it ("scrolls sideways"), rechecked when the window changes size; printed output never
//   scrolls on a phone: its lines wrap under a hanging indent (book.css);
// - a figure opens enlarged in place (a dialog over the page), not as the raw drawing;
// - the search box in the book's bar searches the prose, section titles and claims (booksearch/, built
//   at docs time by docs/search/build_index.mjs);
// - a link to a line inside a folded block of output (a claim's printed line) opens the block.
(function () {
  "use strict";
  const boxes = "div.MathJax_Display, div.fragment, pre.fragment, table.markdownTable, a.figure-open.diagram";

  // ---- prose first: printed output folded to the lines the prose discusses ------------------------
  // A block shows: its printed headings (the first line, each "N. title" line and its underline),
  // the lines a preceding <div class="shows" data-show="REGEX"> names (the lines the prose around
  // it discusses), or, with no such marker, the lines carrying a claim tag ([mix_01]), the numbers
  // the prose states, or else its first `lead` lines; with each shown line, the lines that frame it
  // (the nearest line above it at each smaller indent: the sentence or table it belongs to). A
  // block of at most `whole` lines shows whole. At most `most` lines show; each run of the others
  // folds behind a button in its place ("⋯ 9 lines folded"), which shows every line (a button at
  // the end folds them again). Lines are wrapped in spans whose text is the printed text, so the
  // block's text is unchanged, folded or not.
  const whole = 12, lead = 6, most = 25;
  const indent = (t) => t.search(/\S/);
  function foldOutputs() {
    for (const pre of document.querySelectorAll("div.contents pre.fragment")) {
      if (pre.dataset.lines) continue;
      const marker = pre.previousElementSibling?.matches("div.shows") ? pre.previousElementSibling : null;
      // Lines of the block as markup (a claim link never spans two lines).
      const markup = pre.innerHTML.replace(/\n$/, "").split("\n");
      const texts = markup.map((m) => { const t = document.createElement("span"); t.innerHTML = m; return t.textContent; });
      const n = markup.length;
      const show = new Array(n).fill(false);
      const spec = marker?.dataset.show ?? "";
      if (spec === "all" || (!spec && n <= whole)) show.fill(true);
      else {
        let pattern = /\[[a-z]+_\d+\]/;
        try { if (spec) pattern = new RegExp(spec); } catch (e) { /* the claim tags */ }
        const picked = [];
        texts.forEach((t, k) => { if (pattern.test(t)) picked.push(k); });
        if (picked.length === 0) for (let k = 0; k < Math.min(lead, n); ++k) picked.push(k);
        for (const k of picked) {
          show[k] = true;
          // The lines that frame it: the nearest above at each smaller indent, up to a heading.
          // A line continuing a sentence (a claim wraps onto two or three) shows with it.
          let depth = indent(texts[k]);
          for (let j = k - 1; j >= 0 && depth > 0; --j) {
            const d = indent(texts[j]);
            if (d >= 0 && d < depth && !/^\s*[=-]{3,}\s*$/.test(texts[j])) {
              if (depth === indent(texts[k]) && k - j <= 3) for (let m = j; m < k; ++m) show[m] = true;
              show[j] = true;
              depth = d;
            }
          }
        }
        // Headings first, so the cap below keeps them.
        texts.forEach((t, k) => {
          if (k === 0 || /^\d+\. /.test(t)) {
            show[k] = true;
            if (k + 1 < n && /^\s*[=-]{3,}\s*$/.test(texts[k + 1])) show[k + 1] = true;
          }
        });
      }
      // A single folded line costs as much room as its marker: it shows.
      for (let k = 1; k + 1 < n; ++k) if (!show[k] && show[k - 1] && show[k + 1]) show[k] = true;
      for (let k = 0, shown = 0; k < n; ++k) if (show[k] && ++shown > most) show[k] = false;
      pre.dataset.lines = String(n);
      pre.classList.add("lines");
      const hidden = show.filter((x) => !x).length;
      let html = "";
      for (let k = 0; k < n; ++k) {
        if (!show[k] && (k === 0 || show[k - 1])) {
          let run = 0;
          while (k + run < n && !show[k + run]) ++run;
          html += foldButton("fold-gap", run, `Show all ${n} printed lines (${hidden} folded)`);
        }
        const rule = /^\s*[=-]{3,}\s*$/.test(texts[k]) ? " rule" : "";  // an underline: cut, never wrapped
        html += `<span class="ol${rule}${show[k] ? "" : " folded"}">${markup[k]}\n</span>`;
      }
      if (hidden > 0) html += foldButton("fold-back", 0, `Fold to the ${n - hidden} lines discussed`);
      pre.innerHTML = html;
      if (hidden > 0) pre.classList.add("folding");
    }
  }
  // A button inside a folded block: its words are drawn by CSS from data-label (and read from its
  // aria-label), so the block's text stays the printed text.
  const foldButton = (kind, run, label) => {
    const words = kind === "fold-gap" ? `\u22ef ${run} line${run === 1 ? "" : "s"} folded \u2014 show all` : label;
    return `<button type="button" class="${kind}" data-n="${run}" data-label="${words}" aria-label="${label}"></button>`;
  };
  const toggleFold = (box) => { box.classList.toggle("unfolded"); markScrolling(); };
  document.addEventListener("click", (e) => {
    const b = e.target.closest("button.fold-gap, button.fold-back");
    if (!b) return;
    const box = b.closest(".folding");
    const wasOpen = box.classList.contains("unfolded");
    toggleFold(box);
    // Folding again keeps the block's top in view.
    if (wasOpen && box.getBoundingClientRect().top < 0) box.scrollIntoView();
  });

  // Code (a \snippet) longer than `codeWhole` lines shows its first `codeLead` (the signature and
  // the first step); the rest folds the same way, one click away.
  const codeWhole = 8, codeLead = 4;
  function foldCode() {
    for (const box of document.querySelectorAll("div.contents div.fragment")) {
      if (box.dataset.lines) continue;
      const lines = [...box.querySelectorAll(":scope > div.line")];
      box.dataset.lines = String(lines.length);
      if (lines.length <= codeWhole) continue;
      lines.slice(codeLead).forEach((l) => l.classList.add("folded"));
      const gap = document.createElement("div");
      gap.innerHTML = foldButton("fold-gap", lines.length - codeLead, `Show all ${lines.length} lines of code`) +
                      foldButton("fold-back", 0, `Fold to the first ${codeLead} lines`);
      lines[codeLead].before(gap.firstChild);
      box.appendChild(gap.firstChild);
      box.classList.add("folding");
    }
  }
  const unfold = (box) => {
    if (box.classList.contains("folding") && !box.classList.contains("unfolded")) toggleFold(box);
  };

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

  // ---- figures open enlarged in place -----------------------------------------------------------
  // A click or tap on a figure opens a dialog over the page with the desktop drawing at its full
  // size (larger than the column on a phone, where it pans); Escape, the Close button or a click
  // outside the drawing closes it. Without JavaScript the link opens the drawing itself.
  let viewer = null;
  function figureViewer() {
    if (viewer) return viewer;
    viewer = document.createElement("dialog");
    viewer.className = "figure-view";
    viewer.setAttribute("aria-label", "Figure, enlarged");
    const close = document.createElement("button");
    close.type = "button";
    close.className = "figure-close";
    close.textContent = "Close";
    close.addEventListener("click", () => viewer.close());
    const frame = document.createElement("div");
    frame.className = "figure-frame";
    const img = document.createElement("img");
    frame.appendChild(img);
    const caption = document.createElement("p");
    caption.className = "figure-view-caption";
    viewer.append(close, frame, caption);
    viewer.addEventListener("click", (e) => { if (e.target === viewer) viewer.close(); });
    viewer.addEventListener("close", () => { img.removeAttribute("src"); });
    document.body.appendChild(viewer);
    return viewer;
  }
  function openFigure(link) {
    const v = figureViewer();
    const img = v.querySelector("img");
    const shown = link.querySelector("img");
    img.src = link.getAttribute("href");
    img.alt = shown?.getAttribute("alt") ?? "";
    // The drawing at twice the width it has in the column, within the window's width on a desktop.
    const width = Math.round(shown ? shown.getBoundingClientRect().width : 600);
    const natural = shown?.getAttribute("width");
    const target = natural ? Number(natural) * 1.5 : Math.max(width * 1.5, 960);
    img.style.width = `${Math.round(window.innerWidth >= 900 ? Math.min(target, window.innerWidth - 48) : Math.max(target, 2 * width))}px`;
    v.querySelector(".figure-view-caption").textContent = img.alt;
    if (typeof v.showModal === "function") v.showModal();
    else v.setAttribute("open", "");
  }
  function figuresOpenInPlace() {
    document.addEventListener("click", (e) => {
      const link = e.target.closest("a.figure-open");
      if (!link || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      openFigure(link);
    });
  }

  // ---- search -----------------------------------------------------------------------------------
  // The index (booksearch/index.js) and MiniSearch (booksearch/minisearch.js) load when the box is
  // first used; results list the chapter sections and claims, best first, each with a line of text.
  let searchReady = null;
  const loadScript = (src) => new Promise((resolve) => {
    const tag = document.createElement("script");
    tag.src = src;
    tag.onload = () => resolve(true);
    tag.onerror = () => resolve(false);
    document.head.appendChild(tag);
  });
  function loadSearch() {
    searchReady ??= (async () => {
      if (!(await loadScript("booksearch/minisearch.js")) || !(await loadScript("booksearch/index.js"))) return null;
      const data = window.bookSearchIndex;
      if (!window.MiniSearch || !data) return null;
      return window.MiniSearch.loadJS(data.index, data.options);
    })();
    return searchReady;
  }
  function excerpt(text, terms) {
    const lower = text.toLowerCase();
    let at = -1;
    for (const t of terms) {
      const i = lower.indexOf(t.toLowerCase());
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    const from = Math.max(0, at - 60);
    return (from > 0 ? "\u2026" : "") + text.slice(from, from + 180) + (from + 180 < text.length ? "\u2026" : "");
  }
  function search(index, query) {
    const options = { prefix: (t) => t.length > 2, fuzzy: (t) => (t.length > 5 ? 0.15 : 0), boost: { title: 3 } };
    let found = index.search(query, { ...options, combineWith: "AND" });
    if (found.length === 0) found = index.search(query, options);
    return found.slice(0, 12);
  }
  function searchBox(bar) {
    const form = document.createElement("form");
    form.className = "book-search";
    form.setAttribute("role", "search");
    const input = document.createElement("input");
    input.type = "search";
    input.placeholder = "Search the book";
    input.setAttribute("aria-label", "Search the book's prose, sections and claims");
    const results = document.createElement("div");
    results.className = "search-results";
    results.setAttribute("aria-live", "polite");
    results.hidden = true;
    form.append(input, results);
    bar.appendChild(form);
    let pending = 0;
    const run = async () => {
      const query = input.value.trim();
      if (query.length < 2) { results.hidden = true; results.replaceChildren(); return; }
      const index = await loadSearch();
      results.replaceChildren();
      results.hidden = false;
      if (!index) {
        const p = document.createElement("p");
        p.textContent = "This build of the book has no search index (node and npm build it).";
        results.appendChild(p);
        return;
      }
      const found = search(index, query);
      const head = document.createElement("p");
      head.className = "search-count";
      head.textContent = found.length === 0 ? `Nothing found for \u201c${query}\u201d.` : `${found.length} section${found.length > 1 ? "s" : ""} and claims for \u201c${query}\u201d:`;
      results.appendChild(head);
      const list = document.createElement("ol");
      for (const r of found) {
        const li = document.createElement("li");
        const a = document.createElement("a");
        a.href = r.page;
        a.className = "search-hit";
        const title = document.createElement("strong");
        title.textContent = r.title;
        const where = document.createElement("span");
        where.className = "search-page";
        where.textContent = r.title === r.pageTitle ? "" : ` \u2014 ${r.pageTitle}`;
        const text = document.createElement("span");
        text.className = "search-text";
        text.textContent = excerpt(r.text, r.terms);
        a.append(title, where, text);
        li.appendChild(a);
        list.appendChild(li);
      }
      results.appendChild(list);
    };
    input.addEventListener("focus", () => { loadSearch(); });
    input.addEventListener("input", () => { clearTimeout(pending); pending = setTimeout(run, 120); });
    form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
    input.addEventListener("keydown", (e) => { if (e.key === "Escape") { input.value = ""; run(); } });
    document.addEventListener("click", (e) => { if (!form.contains(e.target)) results.hidden = true; });
    results.addEventListener("click", (e) => { if (e.target.closest("a")) results.hidden = true; });
  }

  // ---- links into folded blocks ---------------------------------------------------------------
  // The folded blocks around the element a link points at (#printed_train_04) open, so the line shows.
  // A malformed hash (#%E0%A4%A) is no element: nothing to open.
  function hashTarget() {
    const raw = window.location.hash.slice(1);
    let id = raw;
    try { id = decodeURIComponent(raw); } catch (e) { id = raw; }
    return id ? document.getElementById(id) : null;
  }
  function openTarget() {
    const target = hashTarget();
    if (!target) return;
    let opened = false;
    for (let d = target.closest("details"); d; d = d.parentElement.closest("details")) {
      if (!d.open) d.open = opened = true;
    }
    const pre = target.closest("pre.folding");
    if (pre && target.closest("span.ol.folded")) { unfold(pre); opened = true; }
    if (opened) target.scrollIntoView();
  }

  window.bookMarkScrolling = markScrolling;  // for the browser test, after it has waited for MathJax

  // The claims ledger's test names (claim_mix_01_bank_weights) break only after an underscore.
  function breakTestNames() {
    for (const code of document.querySelectorAll("div.claims table.markdownTable td:last-child code")) {
      if (code.querySelector("wbr") || !code.textContent.includes("_")) continue;
      const parts = code.textContent.split(/(?<=_)/);
      code.replaceChildren();
      parts.forEach((part, k) => { if (k > 0) code.appendChild(document.createElement("wbr")); code.append(part); });
    }
  }

  // The page's previous/next bar comes first, then its table of contents (Doxygen puts the table
  // at the top of the text).
  function navFirst() {
    const toc = document.querySelector("div.contents div.toc");
    const nav = document.querySelector("div.contents div.book-nav");
    if (toc && nav && toc.compareDocumentPosition(nav) & Node.DOCUMENT_POSITION_FOLLOWING) nav.after(toc);
  }

  function start() {
    navFirst();
    foldOutputs();
    foldCode();
    breakTestNames();
    const bar = document.querySelector("nav.book-bar");
    if (bar) searchBox(bar);
    figuresOpenInPlace();
    openTarget();
    window.addEventListener("hashchange", openTarget);
    // An output block opened by the reader is measured again: it may need its scroll cue.
    document.addEventListener("toggle", (e) => { if (e.target.matches("details.output-stage")) markScrolling(); }, true);
    markScrolling();
    // MathJax (loaded asynchronously) typesets after load: check again once its queue is empty,
    // and on every resize.
    let tries = 0;
    const afterMath = () => {
      if (window.MathJax && window.MathJax.Hub && window.MathJax.Hub.Queue) {
      window.MathJax.Hub.Queue(markScrolling);
      // Typesetting moved the text: back to the URL's target (MathJax's own is off, mathjax-config.js).
      window.MathJax.Hub.Queue(() => { const t = hashTarget(); if (t) t.scrollIntoView(); });
    }
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
