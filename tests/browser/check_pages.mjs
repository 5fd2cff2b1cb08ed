// The book in a real browser: copies the generated html/ into a fresh temporary folder, serves it
// over HTTP on 127.0.0.1 (a free port), and loads every page in Debian's Chromium through
// playwright-core, as a reader would: the book's pages at 1280 px and at 400 px, the API reference
// pages the book links to at 1280 px (every API page with --all-api; at 400 px too with --api-phone).
//
// Usage: node check_pages.mjs --html DIR [--chromium PATH] [--screenshots DIR] [--pages a.html,b.html]
//                             [--api-phone] [--all-api] [--every-page]
//
// Every page, at both widths, fails on: a console error or uncaught exception, a request that
// failed or returned an HTTP error, a reference to file: or to an absolute path, an image that did
// not load or has no alt text, raw markup in the text (ilinebr, escaped or literal table tags,
// Doxygen or TeX commands), a MathJax error or a formula left untypeset, and a page wider than the
// window. The book pages (the main page, the chapters, claims, bad input) also fail on: a missing
// previous/next link at the top or bottom, a plot without a caption, a printed-output block wider
// than its column at 1280 px, a content column under 360 px at 400 px, a code or output box that
// neither fits nor scrolls, a claim link without its row, and an article section of the main page's
// map that does not lead to a section of its chapter with its own printed output; a figure whose
// smallest text renders under 11 CSS px at that width (measured from the SVG actually shown: its
// smallest font size times the scale it is drawn at), a figure that is not a link opening it full
// size (one per page is clicked and must open), a formula or box wider than its column without a
// visible scroll cue, a code box without its file label, and a claims row whose chapter link does
// not lead to the line printing the claim. It prints the smallest figure text at each width.
// With --screenshots, also saves a full-page screenshot of each book page at both widths.
// Exit code 0 when every check passed, 1 otherwise (each failure is printed on its own line).
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { serveBook } from "./serve_book.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const source = option("--html");
const executablePath = option("--chromium", "/usr/bin/chromium");
const screenshots = option("--screenshots");
const only = option("--pages");
if (!source || !fs.existsSync(path.join(source, "index.html"))) {
  console.error(`check_pages: error: --html must name a folder with index.html (got ${source})`);
  process.exit(2);
}
if (!fs.existsSync(executablePath)) {
  console.error(`check_pages: error: no Chromium at ${executablePath} (scripts/install-deps.sh installs chromium)`);
  process.exit(2);
}

// A copy in another folder, so no page can lean on where the build left it (serve_book.mjs).
const served = await serveBook(source, "attn-book-");
const { root, base } = served;
const sourceAbsolute = path.resolve(source);

// The book's reading order is its previous/next chain; every other page is the API reference.
const bookPage = (name) => /^(index|claims|bad_input|ch\d\d_[a-z0-9_]+)\.html$/.test(name);
const allPages = fs.readdirSync(root).filter((f) => f.endsWith(".html")).sort();
// Doxygen's generated listings (alphabetical member indexes, member lists, source listings, folder
// pages) repeat what the reference pages say; --every-page includes them too.
const listing = (name) => /-members\.html$|_source\.html$|^(functions|globals|namespacemembers)|^dir_/.test(name);
const pages = only ? allPages.filter((p) => only.split(",").includes(p))
                   : allPages.filter((p) => args.includes("--every-page") || !listing(p));

const failures = [];
let checks = 0;
const check = (ok, where, what) => {
  ++checks;
  if (!ok) failures.push(`${where}: ${what}`);
};

const browser = await chromium.launch({
  executablePath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});

// What a page looks like once loaded and typeset; runs inside the page.
function inspect(isBook) {
  const out = {};
  const contents = document.querySelector("div.contents");
  // Whether a closed <details> hides `e` (Chromium may still lay its contents out).
  const folded = (e) => {
    for (let d = e.closest("details"); d; d = d.parentElement?.closest("details") ?? null)
      if (!d.open && !d.querySelector(":scope > summary")?.contains(e)) return true;
    return false;
  };
  out.contentWidth = contents ? contents.clientWidth : 0;
  out.pageWidth = document.documentElement.scrollWidth;
  out.windowWidth = window.innerWidth;
  // The element reaching furthest right, to name in a failure.
  let widest = null, right = 0;
  for (const e of document.body.querySelectorAll("*")) {
    if (e.parentElement?.closest(".fragment, .MathJax_Display, table.markdownTable, div.memproto, table.memberdecls")) continue;
    const r = e.getBoundingClientRect().right;
    if (r > right + 0.5) { right = r; widest = e; }
  }
  out.widest = widest ? `${widest.tagName.toLowerCase()}.${widest.className} "${widest.textContent.trim().slice(0, 40)}"` : "";
  // Text a reader sees outside code and output, where no markup or TeX may show.
  // Copies in an inert document, where a copied image fetches nothing.
  const inert = document.implementation.createHTMLDocument("");
  const clone = inert.importNode(document.body, true);
  for (const n of clone.querySelectorAll("pre, code, div.fragment, script, style, .MathJax, .MathJax_Display, .MathJax_Preview"))
    n.remove();
  out.prose = clone.textContent;
  const all = inert.importNode(document.body, true);
  for (const n of all.querySelectorAll("script, style")) n.remove();
  out.text = all.textContent;
  out.html = document.documentElement.outerHTML;
  // Doxygen's search-box icons are decorative and rightly carry alt="".
  out.images = [...document.querySelectorAll("img:not(#MSearchBox img)")].map((img) => ({
    src: img.getAttribute("src"), loaded: img.complete && img.naturalWidth > 0, alt: img.getAttribute("alt") ?? "",
    plot: /^ch\d\d_/.test(img.getAttribute("src") ?? ""),
    caption: img.closest("div.image")?.querySelector("div.caption")?.textContent.trim() ?? "",
    width: img.getBoundingClientRect().width,
  }));
  // The figures shown (one folded in an aside is measured when it is opened).
  out.figures = [...document.querySelectorAll("img.figure")].filter((img) => !folded(img)).map((img) => {
    const link = img.closest("a.figure-open");
    return { src: img.currentSrc.split("/").pop(), width: img.getBoundingClientRect().width,
             link: link ? link.getAttribute("href") : null };
  });
  // Formulas and boxes wider than their column: each must carry the scroll cue.
  if (window.bookMarkScrolling) window.bookMarkScrolling();
  out.overflowing = [...document.querySelectorAll("div.MathJax_Display, div.fragment, pre.fragment, a.figure-open")]
    .filter((b) => !folded(b) && b.scrollWidth > b.clientWidth + 1)
    .map((b) => {
      let cue = b.previousElementSibling;
      if (cue && cue.matches("div.codefile")) cue = cue.previousElementSibling;
      const shown = cue && cue.classList.contains("scroll-cue") && cue.getBoundingClientRect().height > 0;
      return { formula: b.matches("div.MathJax_Display"), cue: !!shown, marked: b.classList.contains("scrolls-x"),
               shown: Math.round(100 * b.clientWidth / b.scrollWidth), text: b.textContent.trim().slice(0, 50) };
    });
  out.codeBoxes = [...document.querySelectorAll("div.fragment")].map((b) => {
    const label = b.previousElementSibling;
    return { labelled: !!label && label.matches("div.codefile") && label.textContent.trim().length > 0,
             text: b.textContent.trim().slice(0, 50) };
  });
  out.chapterClaimLinks = [...document.querySelectorAll("div.claims tr")].map((tr) => ({
    id: tr.querySelector("a.anchor")?.id ?? "",
    href: [...tr.querySelectorAll("a.el")].map((a) => a.getAttribute("href")).find((h) => /^ch\d\d_/.test(h)) ?? null,
  })).filter((r) => r.id.startsWith("claim_"));
  out.mathErrors = document.querySelectorAll(".merror, .MathJax_Error, [class*='MathJax_Error']").length;
  out.mathScripts = document.querySelectorAll("script[type^='math/tex']").length;
  out.mathRendered = document.querySelectorAll("span.MathJax, div.MathJax_Display").length;
  if (!isBook) return out;
  const navs = [...document.querySelectorAll("div.book-nav")];
  out.navs = navs.map((n) => ({
    prev: [...n.querySelectorAll("a")].find((a) => /^Previous/.test(a.textContent.trim()))?.getAttribute("href") ?? null,
    next: [...n.querySelectorAll("a")].find((a) => /^Next/.test(a.textContent.trim()))?.getAttribute("href") ?? null,
    top: n.getBoundingClientRect().top + window.scrollY,
  }));
  out.pageHeight = document.documentElement.scrollHeight;
  // Every code or output box either fits its column or scrolls sideways.
  out.boxes = [...document.querySelectorAll("div.fragment, pre.fragment")].filter((b) => !folded(b)).map((b) => {
    const style = getComputedStyle(b);
    return { output: b.tagName === "PRE", scrollWidth: b.scrollWidth, clientWidth: b.clientWidth,
             scrolls: ["auto", "scroll"].includes(style.overflowX),
             right: b.getBoundingClientRect().right, columnRight: contents.getBoundingClientRect().right,
             text: b.textContent.slice(0, 60) };
  });
  out.claimLinks = [...document.querySelectorAll("a[href^='claims.html#']")].map((a) => a.getAttribute("href").split("#")[1]);
  out.pageLinks = [...new Set([...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href").split("#")[0])
                                   .filter((h) => /^[^/:]+\.html$/.test(h)))];
  out.anchors = [...document.querySelectorAll("[id]")].map((e) => e.id);
  // For each section heading: its title and whether it holds printed output before the next heading.
  out.sections = {};
  for (const h of document.querySelectorAll("div.contents h1, div.contents h2")) {
    const anchor = h.querySelector("a.anchor");
    if (!anchor) continue;
    let output = 0, plots = 0;
    for (let e = h.nextElementSibling; e && !/^H[12]$/.test(e.tagName); e = e.nextElementSibling) {
      if (e.matches("pre.fragment")) ++output;
      plots += e.querySelectorAll ? e.querySelectorAll("img").length : 0;
    }
    out.sections[anchor.id] = { title: h.textContent.trim(), output, plots };
  }
  // Prose first: each printed-output block as shown (lines not folded, inside no closed details),
  // and the height of output and code against the page's.
  const shownBox = (b) => !folded(b) && b.getClientRects().length > 0 && getComputedStyle(b).visibility !== "hidden";
  out.outputs = [...document.querySelectorAll("div.contents pre.fragment")].map((pre) => {
    const lines = [...pre.querySelectorAll(":scope > span.ol")];
    const visible = lines.length ? lines.filter((l) => l.getClientRects().length > 0).length
                                 : pre.textContent.replace(/\n$/, "").split("\n").length;
    return { shown: shownBox(pre), visible, total: Number(pre.dataset.lines ?? visible), scrollWidth: pre.scrollWidth,
             clientWidth: pre.clientWidth, folded: pre.classList.contains("folding"),
             toggle: pre.querySelector("button.fold-gap") !== null,
             text: pre.textContent, start: pre.textContent.slice(0, 50) };
  });
  out.codeHeight = [...document.querySelectorAll("div.contents pre.fragment, div.contents div.fragment")]
    .filter(shownBox).reduce((sum, b) => sum + b.getBoundingClientRect().height, 0);
  // The reading column: characters per line of the prose paragraphs of three lines or more.
  out.lineLengths = [];
  for (const p of document.querySelectorAll("div.contents div.textblock > p")) {
    const text = p.textContent.replace(/\s+/g, " ").trim();
    const lineHeight = parseFloat(getComputedStyle(p).lineHeight);
    const lines = Math.round(p.getBoundingClientRect().height / lineHeight);
    if (lines >= 3 && !p.querySelector(".MathJax, img")) out.lineLengths.push(text.length / (lines - 0.5));
  }
  // Doxygen's frame (menus, footer) on a book page, and the book's own bar.
  out.frame = [...document.querySelectorAll("#main-nav, address.footer, #MSearchBox")].filter(shownBox).map((e) => e.id || e.className);
  out.apiLink = [...document.querySelectorAll("nav.book-bar a")].find((a) => /API reference/.test(a.textContent))?.getAttribute("href") ?? null;
  out.firstLink = (() => {
    const a = document.querySelector("div.contents a[href]");
    return a ? { href: a.getAttribute("href"), text: a.textContent.trim() } : null;
  })();
  // Tap targets: the book's navigation, buttons, folds and boxes (not links inside a sentence).
  out.targets = [...document.querySelectorAll("nav.book-bar a, nav.book-bar input, div.book-nav a, div.toc a, div.contents button, div.contents summary")]
    .filter(shownBox).map((e) => {
      const r = e.getBoundingClientRect();
      return { what: `${e.tagName.toLowerCase()} "${e.textContent.trim().slice(0, 30)}"`, width: r.width, height: r.height };
    });
  // Anything fixed or sticky (the table of contents in a wide window) and the text it would cover.
  out.fixedOverText = [];
  const fixed = [...document.querySelectorAll("body *")].filter((e) => ["fixed", "sticky"].includes(getComputedStyle(e).position) &&
    shownBox(e) && !e.closest("dialog:not([open])"));
  const texts = [...document.querySelectorAll("div.contents p, div.contents li, div.contents pre, div.contents td, div.contents h1, div.contents h2, div.contents div.caption, div.contents img")]
    .filter((t) => !fixed.some((f) => f.contains(t)));
  for (const y of [0, 0.5, 1]) {
    window.scrollTo(0, y * (document.documentElement.scrollHeight - window.innerHeight));
    for (const f of fixed) {
      const a = f.getBoundingClientRect();
      for (const t of texts) {
        const b = t.getBoundingClientRect();
        if (b.width > 0 && a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
          out.fixedOverText.push(`${f.tagName.toLowerCase()}.${f.className} over "${t.textContent.trim().slice(0, 30)}"`);
          break;
        }
      }
    }
  }
  window.scrollTo(0, 0);
  // The claims ledger's test names: each line a name breaks into must end at an underscore.
  out.badBreaks = [];
  for (const code of document.querySelectorAll("div.claims table.markdownTable td:last-child code")) {
    const lines = [];
    let top = null;
    for (const node of [...code.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE)) {
      for (let k = 0; k < node.length; ++k) {
        const range = document.createRange();
        range.setStart(node, k);
        range.setEnd(node, k + 1);
        const t = Math.round(range.getBoundingClientRect().top);
        if (top === null || Math.abs(t - top) > 3) { lines.push(""); top = t; }
        lines[lines.length - 1] += node.data[k];
      }
    }
    if (lines.slice(0, -1).some((l) => !l.endsWith("_"))) out.badBreaks.push(lines.join(" | "));
  }
  for (const t of document.querySelectorAll("div.claims table.markdownTable"))
    if (t.scrollWidth > t.clientWidth + 1) out.badBreaks.push(`the ledger is ${t.scrollWidth} px wide in ${t.clientWidth}`);
  // The main page's map: article section -> chapter section.
  out.map = [...document.querySelectorAll("div.section-map td a.el")]
    .filter((a) => a.getAttribute("href").includes("#"))
    .map((a) => ({ text: a.textContent.trim(), href: a.getAttribute("href") }));
  return out;
}

// For each figure drawing shown in the page: its smallest font size (SVG units) over text that is
// not empty, and the width of its view box, keyed by file name. Runs inside the page.
async function smallestFigureText() {
  const out = {};
  for (const img of document.querySelectorAll("img.figure")) {
    const src = img.currentSrc;
    const key = src.split("/").pop();
    if (out[key] || img.closest("details:not([open])")) continue;
    const svg = new DOMParser().parseFromString(await (await fetch(src)).text(), "image/svg+xml").documentElement;
    const box = (svg.getAttribute("viewBox") ?? "").trim().split(/[\s,]+/).map(Number);
    const viewWidth = box.length === 4 ? box[2] : parseFloat(svg.getAttribute("width"));
    let font = Infinity;
    for (const t of svg.querySelectorAll("text")) {
      if (t.textContent.trim() === "") continue;
      let size = NaN, scale = 1;
      for (let e = t; e && e !== svg; e = e.parentElement) {
        const m = /scale\(([\d.]+)/.exec(e.getAttribute("transform") ?? "");
        if (m) scale *= Number(m[1]);
        if (Number.isNaN(size)) {
          const style = /font-size:\s*([\d.]+)/.exec(e.getAttribute("style") ?? "");
          const attribute = e.getAttribute("font-size");
          if (style) size = Number(style[1]);
          else if (attribute) size = parseFloat(attribute);
        }
      }
      if (!Number.isNaN(size)) font = Math.min(font, size * scale);
    }
    if (font < Infinity) out[key] = { font, viewWidth };
  }
  return out;
}

// Every text of every figure drawing shown, measured where it is drawn: the drawing is put inline
// (hidden, at the size the page shows it) and each text's box (turned with the text: a slanted
// label is a slanted box) must lie inside the drawing, and no two texts' boxes may overlap once
// each is shrunk about its centre to its ink (a fifth off its width, a third off its height: a
// line's box holds its leading), so touching letters are no collision. Runs inside the page.
async function figureTextBounds() {
  const problems = [];
  const seen = new Set();
  // The four corners of a text's box on the screen, shrunk by `shrink` about its centre.
  const corners = (t, shrink) => {
    const b = t.getBBox(), m = t.getScreenCTM();
    const cx = b.x + b.width / 2, cy = b.y + b.height / 2, w = (b.width / 2) * (1 - shrink), h = (b.height / 2) * (1 - 1.8 * shrink);
    return [[cx - w, cy - h], [cx + w, cy - h], [cx + w, cy + h], [cx - w, cy + h]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  // Two convex quadrilaterals overlap unless an edge's normal separates them.
  const overlap = (p, q) => {
    for (const poly of [p, q]) {
      for (let i = 0; i < 4; ++i) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
        const nx = y2 - y1, ny = x1 - x2;
        const project = (r) => r.map(([x, y]) => x * nx + y * ny);
        const a = project(p), b = project(q);
        if (Math.max(...a) <= Math.min(...b) || Math.max(...b) <= Math.min(...a)) return false;
      }
    }
    return true;
  };
  for (const img of document.querySelectorAll("img.figure")) {
    const src = img.currentSrc;
    const shown = img.getBoundingClientRect();
    if (seen.has(src) || img.closest("details:not([open])")) continue;
    seen.add(src);
    const holder = document.createElement("div");
    holder.style.cssText = `position:absolute;left:0;top:0;width:${shown.width}px;visibility:hidden;pointer-events:none`;
    const svg = new DOMParser().parseFromString(await (await fetch(src)).text(), "image/svg+xml").documentElement;
    svg.setAttribute("width", String(shown.width));
    svg.setAttribute("height", String(shown.height));
    holder.appendChild(document.importNode(svg, true));
    document.body.appendChild(holder);
    const frame = holder.firstChild.getBoundingClientRect();
    const texts = [...holder.querySelectorAll("text")].filter((t) => t.textContent.trim() !== "" && t.getBBox().width > 0)
      .map((t) => ({ text: t.textContent.trim(), whole: corners(t, 0), core: corners(t, 0.2) }));
    const name = src.split("/").pop();
    for (const t of texts) {
      const xs = t.whole.map((c) => c[0]), ys = t.whole.map((c) => c[1]);
      if (Math.min(...xs) < frame.left - 1 || Math.max(...xs) > frame.right + 1 || Math.min(...ys) < frame.top - 1 || Math.max(...ys) > frame.bottom + 1)
        problems.push(`${name}: text "${t.text.slice(0, 30)}" is cut at the drawing's edge`);
    }
    for (let i = 0; i < texts.length; ++i) {
      for (let j = i + 1; j < texts.length; ++j) {
        if (overlap(texts[i].core, texts[j].core))
          problems.push(`${name}: texts "${texts[i].text.slice(0, 20)}" and "${texts[j].text.slice(0, 20)}" overlap`);
      }
    }
    holder.remove();
  }
  return problems;
}

// Every output block has the text the page was built with (the raw page's <pre>); one that folds,
// opened by a button in a folded run, shows every printed line, and folds again by the button at
// its end. Runs inside the page.
async function unfoldEverything() {
  const raw = new DOMParser().parseFromString(await (await fetch(location.href)).text(), "text/html");
  const built = [...raw.querySelectorAll("div.contents pre.fragment")].map((p) => p.textContent);
  const live = [...document.querySelectorAll("div.contents pre.fragment")];
  const problems = [];
  if (built.length !== live.length) problems.push(`${live.length} output blocks shown, ${built.length} built`);
  live.forEach((pre, k) => {
    if (pre.textContent !== built[k]) problems.push(`output block ${k + 1} ("${pre.textContent.slice(0, 30)}") differs from the printed text`);
    if (!pre.classList.contains("folding")) return;
    const gap = pre.querySelector("button.fold-gap");
    if (!gap) { problems.push(`folded block ${k + 1} has no button to show it whole`); return; }
    const details = pre.closest("details");
    const wasOpen = details ? details.open : true;
    if (details) details.open = true;
    gap.click();
    const hidden = [...pre.querySelectorAll(":scope > span.ol")].filter((l) => l.getClientRects().length === 0).length;
    if (hidden > 0) problems.push(`output block ${k + 1}: ${hidden} lines still hidden after "${gap.getAttribute("aria-label")}"`);
    const back = pre.querySelector("button.fold-back");
    if (!back || back.getClientRects().length === 0) problems.push(`output block ${k + 1}: no button to fold it again`);
    else back.click();
    if (details) details.open = wasOpen;
  });
  return problems;
}

const readingColumns = [];  // characters a line of each book page's reading column at 1280 px
const figureText = [];  // every figure drawing measured: width, page, file, smallest text in px
const overflowCounts = [];  // per page and width: formulas and boxes that scroll (each with its cue)
const tapped = new Set();  // the widths at which a figure was opened by a click
const book = {};  // page -> what it looked like at 1280 px, for the cross-page checks
const start = Date.now();
// One tab per worker and width, reused from page to page as a reader follows links: a new tab
// costs a new renderer process, most of a visit's CPU time. A problem is filed under the page the
// tab showed when it happened (events arrive in order, before the next page's navigation), so a
// late one from the previous page is not blamed on the next.
const tabs = [];  // every tab, for the problems that came after their page was checked
async function openTab(context) {
  const page = await context.newPage();
  const tab = { page, problems: {} };
  tabs.push(tab);
  const file = (where, text) => {
    const key = where.replace(base, "").split("#")[0];
    (tab.problems[key] ??= []).push(text);
  };
  page.on("console", (m) => { if (m.type() === "error") file(page.url(), `console error: ${m.text()}`); });
  page.on("pageerror", (e) => file(page.url(), `uncaught exception: ${e.message}`));
  // A request the tab cancels by going on to the next page (a lazy phone-width figure still
  // loading) is aborted, not broken; a missing file still fails, as HTTP 404 below.
  page.on("requestfailed", (r) => {
    if (r.failure()?.errorText === "net::ERR_ABORTED") return;
    file(r.frame().url(), `request failed: ${r.url()} (${r.failure()?.errorText})`);
  });
  page.on("response", (r) => { if (r.status() >= 400) file(r.frame().url(), `HTTP ${r.status()}: ${r.url()}`); });
  return tab;
}

async function visit(tab, name, width) {
  const where = `${name} @${width}px`;
  const page = tab.page;
  const problems = (tab.problems[name] = []);
  try {
    await page.goto(base + name, { waitUntil: "load", timeout: 30000 });
    // MathJax typesets after load; wait for its queue to drain when the page uses it.
    await page.evaluate(() => new Promise((resolve) => {
      if (!window.MathJax || !window.MathJax.Hub) { resolve(); return; }
      window.MathJax.Hub.Queue(() => resolve());
    }));
    const isBook = bookPage(name);
    const r = await page.evaluate(inspect, isBook);
    check(problems.length === 0, where, problems.join("; "));
    problems.reported = problems.length;
    check(!/(src|href)=["']file:/.test(r.html), where, "refers to a file: URL");
    check(!r.html.includes(sourceAbsolute) && !/(src|href)=["']\//.test(r.html), where, "refers to an absolute path");
    for (const img of r.images) {
      check(img.loaded, where, `image did not load: ${img.src}`);
      check(img.alt.trim().length > 0, where, `image without alt text: ${img.src}`);
      if (isBook && img.plot) check(img.caption.length > 0, where, `plot without a caption: ${img.src}`);
    }
    const markup = r.text.match(/\\?ilinebr|&lt;\/?t[dhr]|<\/?t[dhr][ >]|class="markdownTable/);
    check(!markup, where, `raw table markup in the page: "${markup?.[0]}"`);
    const raw = r.prose.match(/\\(ref|f\$|f\[|f\]|snippet|image|section|subsection|verbinclude|operatorname|lVert|frac|text)\b|\\_|\\\(|\\\[/);
    check(!raw, where, `raw markup or untypeset TeX in the text: "${raw?.[0]}"`);
    check(r.mathErrors === 0, where, `${r.mathErrors} MathJax error box(es)`);
    check(r.mathRendered >= r.mathScripts, where, `${r.mathScripts - r.mathRendered} formula(s) not typeset`);
    check(r.pageWidth <= r.windowWidth, where, `page is ${r.pageWidth} px wide in a ${r.windowWidth} px window (widest: ${r.widest})`);
    if (isBook) {
      if (width === 400) check(r.contentWidth >= 360, where, `content column ${r.contentWidth} px (under 360)`);
      check(r.navs.length >= 2, where, `${r.navs.length} previous/next bar(s), want one at the top and one at the bottom`);
      if (r.navs.length >= 2) {
        const [top, bottom] = [r.navs[0], r.navs[r.navs.length - 1]];
        check(top.top < 700, where, "the first previous/next bar is not at the top");
        check(bottom.top > r.pageHeight - 1200, where, "the last previous/next bar is not at the bottom");
        for (const n of [top, bottom]) {
          // The main page starts the book: it leads on only.
          if (name !== "index.html")
            check(n.prev !== null && allPages.includes(n.prev.split("#")[0]), where, `previous link missing or broken: ${n.prev}`);
          check(n.next !== null && allPages.includes(n.next.split("#")[0]), where, `next link missing or broken: ${n.next}`);
        }
      }
      for (const b of r.boxes) {
        const fits = b.scrollWidth <= b.clientWidth + 1 && b.right <= b.columnRight + 1;
        check(fits || b.scrolls, where, `a box neither fits nor scrolls: "${b.text}"`);
        if (width === 1280 && b.output)
          check(b.scrollWidth <= b.clientWidth + 1, where, `printed output wider than its column: "${b.text}"`);
      }
      if (width === 1280) book[name] = r;
      // Prose first: no output block shows more than 25 lines; one folded has its button; at 400 px
      // none scrolls sideways (its long lines wrap).
      for (const o of r.outputs.filter((o) => o.shown)) {
        check(o.visible <= 25, where, `an output block shows ${o.visible} lines (over 25): "${o.start}"`);
        check(!o.folded || o.toggle, where, `a folded output block has no button to show it whole: "${o.start}"`);
        if (width === 400)
          check(o.scrollWidth <= o.clientWidth + 1, where, `an output block scrolls sideways (${o.scrollWidth} px in ${o.clientWidth}): "${o.start}"`);
      }
      for (const p of await page.evaluate(unfoldEverything)) check(false, where, p);
      if (width === 1280 && /^ch\d\d_/.test(name)) {
        check(r.codeHeight <= 0.3 * r.pageHeight, where,
              `output and code take ${(100 * r.codeHeight / r.pageHeight).toFixed(0)}% of the page's ${r.pageHeight} px (over 30%)`);
        if (name.startsWith("ch09_")) check(r.pageHeight <= 16000, where, `the page is ${r.pageHeight} px high (over 16,000)`);
      }
      if (width === 1280 && r.lineLengths.length >= 3) {
        const sorted = [...r.lineLengths].sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)];
        check(median >= 60 && median <= 80, where, `the reading column holds ${median.toFixed(0)} characters a line (not 60-80)`);
        readingColumns.push(median);
      }
      check(r.frame.length === 0, where, `Doxygen's frame shows on a book page: ${r.frame.join(", ")}`);
      check(r.apiLink !== null && allPages.includes(r.apiLink), where, `no link to the API reference in the book's bar (${r.apiLink})`);
      if (name === "index.html")
        check(r.firstLink !== null && r.firstLink.href.startsWith("ch01_") && /^Next/.test(r.firstLink.text), where,
              `the main page's first link is "${r.firstLink?.text}" (${r.firstLink?.href}), not the way on to chapter 01`);
      if (width === 400) {
        for (const t of r.targets) check(t.height >= 32 - 0.5, where, `tap target ${t.what} is ${t.width.toFixed(0)}x${t.height.toFixed(0)} px (under 32)`);
        for (const b of r.badBreaks) check(false, where, `a test name breaks inside a word: ${b}`);
      }
      for (const f of r.fixedOverText) check(false, where, `something fixed covers the text: ${f}`);
      for (const p of await page.evaluate(figureTextBounds)) check(false, where, p);
      // Chapter 08: the previous-token figure quotes the score the program prints (the table's
      // largest previous-token score, to its three decimals), and its caption states no other number.
      if (name === "ch08_induction.html" && width === 1280) {
        const quoted = await page.evaluate(async () => {
          const printed = [...document.querySelectorAll("pre.fragment")].map((p) => p.textContent).join("\n");
          const table = printed.slice(printed.indexOf("previous-token score  induction score"));
          const scores = [];
          for (const line of table.split("\n").slice(2)) {  // the header and its rule, then the rows
            const m = /^\s+L\d+\.H\d+\s+(\d+\.\d+)\s+\d+\.\d+\s+\d+\.\d+\s*$/.exec(line);
            if (!m) break;
            scores.push(m[1]);
          }
          const best = scores.reduce((a, b) => (Number(b) > Number(a) ? b : a), "0");
          const img = document.querySelector("img.figure[src='ch08_previous_token_pattern.svg']");
          const svg = img ? await (await fetch(img.getAttribute("src"))).text() : "";
          const title = /(?:best score|previous-token score) (\d+\.\d+)/.exec(svg)?.[1] ?? null;
          const caption = img?.closest("div.image")?.querySelector("div.caption")?.textContent ?? "";
          return { best, title, captionNumbers: caption.match(/\d+\.\d+/g) ?? [], count: scores.length };
        });
        check(quoted.count > 0 && quoted.title === quoted.best, where,
              `the previous-token figure says ${quoted.title}, the printed table's best score is ${quoted.best}`);
        check(quoted.captionNumbers.every((x) => x === quoted.best), where,
              `the previous-token caption states ${quoted.captionNumbers.join(", ")}; the program prints ${quoted.best}`);
      }
      // Figures: the smallest text of the drawing shown at this width, in CSS px.
      const sizes = await page.evaluate(smallestFigureText);
      for (const f of r.figures) {
        check(f.link !== null && f.link.endsWith(".svg"), where, `figure ${f.src} is not a link that opens it full size`);
        const size = sizes[f.src];
        check(size !== undefined, where, `figure ${f.src}: no text found to measure`);
        if (size === undefined) continue;
        const px = size.font * f.width / size.viewWidth;
        figureText.push({ width, page: name, src: f.src, px });
        check(px >= 11 - 0.05, where, `figure ${f.src}: smallest text ${px.toFixed(1)} px (under 11)`);
      }
      for (const b of r.overflowing)
        check(b.cue && b.marked, where, `${b.formula ? "formula" : "box"} shows ${b.shown}% of its width with no scroll cue: "${b.text}"`);
      for (const b of r.codeBoxes) check(b.labelled, where, `code box without its file label: "${b.text}"`);
      overflowCounts.push({ width, page: name, formulas: r.overflowing.filter((b) => b.formula).length,
                            boxes: r.overflowing.filter((b) => !b.formula).length });
      // A tap on a figure opens it full size (once per width, on the first page with figures).
      if (r.figures.length > 0 && !tapped.has(width)) {
        tapped.add(width);
        const other = await page.context().newPage();  // this tab stays on the page for its screenshot
        await other.goto(base + name, { waitUntil: "load", timeout: 30000 });
        const before = other.url();
        await other.click("a.figure-open");
        await other.waitForSelector("dialog.figure-view[open] img", { timeout: 10000 }).catch(() => null);
        await other.waitForFunction(() => document.querySelector("dialog.figure-view[open] img")?.complete, null, { timeout: 10000 }).catch(() => null);
        const opened = await other.evaluate(() => {
          const img = document.querySelector("dialog.figure-view[open] img");
          const shown = document.querySelector("a.figure-open img").getBoundingClientRect().width;
          return img ? { loaded: img.complete && img.naturalWidth > 0, width: img.getBoundingClientRect().width, shown } : null;
        });
        check(other.url() === before, where, `a tap on the first figure left the page for ${other.url()}`);
        check(opened !== null && opened.loaded && opened.width > opened.shown * 1.2, where,
              `a tap on the first figure did not open it enlarged in place (${JSON.stringify(opened)})`);
        await other.keyboard.press("Escape");
        check(await other.evaluate(() => !document.querySelector("dialog.figure-view[open]")), where, "Escape did not close the enlarged figure");
        await other.close();
      }
    }
  } catch (e) {
    check(false, where, `did not load: ${e.message}`);
  }
  if (screenshots && bookPage(name)) {
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: path.join(screenshots, `${name.replace(/\.html$/, "")}-${width}.png`), fullPage: true });
  }
}

// Three pages at a time (the machine has two cores; a page spends part of its time waiting), each
// worker with one browser context and tab per width, so its cache keeps MathJax after the first page.
// Book pages first, at both widths; then the API reference (Doxygen's own layout) at 1280 px, and at
// 400 px too with --api-phone: the reference pages the book links to (its code labels, its
// references), or every one with --all-api, to keep the suite's run short.
const apiPhone = args.includes("--api-phone");
const visitAll = async (queue) => Promise.all([0, 1, 2].map(async () => {
  const contexts = {}, mine = {};
  for (const width of [1280, 400]) {
    contexts[width] = await browser.newContext({ viewport: { width, height: 900 } });
    mine[width] = await openTab(contexts[width]);
  }
  for (let job = queue.shift(); job; job = queue.shift()) await visit(mine[job[1]], ...job);
  for (const c of Object.values(contexts)) await c.close();
}));
await visitAll(pages.filter(bookPage).flatMap((p) => [[p, 1280], [p, 400]]));
const linked = new Set(Object.values(book).flatMap((r) => r.pageLinks));
const apiPages = pages.filter((p) => !bookPage(p) && (only || args.includes("--all-api") || linked.has(p)));
await visitAll(apiPages.flatMap((p) => (apiPhone ? [[p, 1280], [p, 400]] : [[p, 1280]])));

// The search box (book.js, the index built at docs time): each query finds the chapter sections
// about it among its first results, at both widths; a malformed URL hash throws nothing.
const searches = [["causal mask", ["ch06_masking.html#ch06_causal"], 3],
                  ["sqrt", ["ch04_scaling.html#ch04_sqrt"], 5],
                  ["softmax", ["ch04_scaling.html#ch04_sharp", "ch07_linear_memory.html#ch07_linear"], 6]];
if (!only || only.split(",").includes("ch01_mixing.html")) {
  for (const width of [1280, 400]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const tab = await openTab(context);
    const where = `search @${width}px`;
    try {
      await tab.page.goto(base + "ch01_mixing.html", { waitUntil: "load", timeout: 30000 });
      const box = tab.page.locator("nav.book-bar input[type=search]");
      for (const [query, expected, within] of searches) {
        await box.fill(query);
        await tab.page.waitForFunction((q) => document.querySelector("p.search-count")?.textContent.includes(q), query, { timeout: 15000 });
        const hits = await tab.page.locator("a.search-hit").evaluateAll((all) => all.map((a) => a.getAttribute("href")));
        for (const e of expected)
          check(hits.slice(0, within).includes(e), where, `"${query}" does not find ${e} among its first ${within} results (${hits.slice(0, within).join(", ")})`);
        const shown = await tab.page.locator("div.search-results").evaluate((d) => {
          const r = d.getBoundingClientRect();
          return r.left >= 0 && r.right <= window.innerWidth + 1;
        });
        check(shown, where, `the results of "${query}" reach outside the window`);
      }
      // Following a result lands on its section.
      await tab.page.locator("a.search-hit").first().click();
      await tab.page.waitForLoadState("load");
      check(/#ch\d\d_/.test(tab.page.url()), where, `following the first result of "softmax" led to ${tab.page.url()}`);
      const problems = (tab.problems["ch01_mixing.html"] ??= []);
      const broken = "ch01_mixing.html#%E0%A4%A";
      await tab.page.goto("about:blank");  // a fresh load: the hash is read as the page starts
      await tab.page.goto(base + broken, { waitUntil: "load", timeout: 30000 });
      await tab.page.waitForTimeout(200);
      check(problems.length === 0, `${broken} @${width}px`, problems.join("; "));
      problems.reported = problems.length;
    } catch (e) {
      check(false, where, `failed: ${e.message.split("\n")[0]}`);
    }
    await context.close();
  }
}

// A problem that arrived after its page was checked still fails the run.
for (const tab of tabs) {
  for (const [name, problems] of Object.entries(tab.problems)) {
    const seen = problems.slice(0, problems.reported ?? 0);
    const late = problems.slice(seen.length).filter((p) => !seen.includes(p));
    check(late.length === 0, name, `after it was checked: ${late.join("; ")}`);
  }
}

// Across pages: the map, the claim links, the reading order.
const index = book["index.html"];
if (index) {
  check(index.map.length > 0, "index.html", "no section map (div.section-map) with links to chapter sections");
  for (const { text, href } of index.map) {
    const [file, anchor] = href.split("#");
    const section = book[file]?.sections[anchor];
    check(section !== undefined, "index.html", `map entry "${text}" leads to a missing section ${href}`);
    if (!section) continue;
    check(section.title === text, "index.html", `map entry "${text}" leads to a section titled "${section.title}"`);
    check(section.output > 0, file, `section "${section.title}" (#${anchor}) has no printed output of its own`);
  }
}
const claims = book["claims.html"];
for (const [name, r] of Object.entries(claims ? book : {})) {
  for (const id of new Set(r.claimLinks))
    check(claims !== undefined && claims.anchors.includes(id), name, `claim link #${id} has no row on the claims page`);
}
// Each claims row leads to the chapter line printing its claim, where a chapter prints it.
if (claims) {
  let toLines = 0;
  for (const { id, href } of claims.chapterClaimLinks) {
    if (href === null) continue;
    const [file, anchor] = href.split("#");
    if (anchor === undefined) continue;
    ++toLines;
    check(book[file]?.anchors.includes(anchor), "claims.html", `${id} links to ${href}, which is not on that page`);
  }
  check(toLines >= claims.chapterClaimLinks.length * 0.8, "claims.html",
        `only ${toLines} of ${claims.chapterClaimLinks.length} claims rows link to the line printing the claim`);
}
for (const width of [1280, 400]) {
  const measured = figureText.filter((f) => f.width === width);
  if (measured.length === 0) continue;
  const least = measured.reduce((a, b) => (b.px < a.px ? b : a));
  const counts = overflowCounts.filter((c) => c.width === width);
  if (width === 1280 && readingColumns.length > 0)
    console.log(`reading column @1280px: ${Math.min(...readingColumns).toFixed(0)} to ${Math.max(...readingColumns).toFixed(0)} characters a line`);
  console.log(`figures @${width}px: ${measured.length} drawings, smallest text ${least.px.toFixed(1)} px (${least.src} on ${least.page}); ` +
              `scrolling with a cue: ${counts.reduce((n, c) => n + c.formulas, 0)} formulas, ${counts.reduce((n, c) => n + c.boxes, 0)} boxes`);
}
const order = [];
for (let at = "index.html"; at && !order.includes(at) && book[at]; at = book[at].navs[0]?.next?.split("#")[0]) order.push(at);
const unreached = Object.keys(book).filter((p) => !order.includes(p));
if (!only) check(unreached.length === 0, "reading order", `not reached by following Next from the main page: ${unreached.join(", ")}`);

await browser.close();
served.close();
const seconds = ((Date.now() - start) / 1000).toFixed(1);
for (const f of failures) console.log(`FAIL ${f}`);
console.log(`check_pages: ${Object.keys(book).length} book pages at 1280 and 400 px, ` +
            `${apiPages.length} of ${pages.length - Object.keys(book).length} API pages at 1280${apiPhone ? " and 400" : ""} px` +
            `${args.includes("--all-api") || only ? "" : " (those the book links to; --all-api for every one)"}, ` +
            `${checks} checks, ${failures.length} failed, ${seconds} s` + (screenshots ? `; screenshots in ${screenshots}` : ""));
process.exit(failures.length === 0 ? 0 : 1);
