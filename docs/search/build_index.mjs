// Builds the book's full-text search at docs time: reads the book's pages in html/ (the main page,
// the chapters, the claims ledger, the bad-input page), cuts each into its sections at the headings
// Doxygen anchors, and indexes each section's title and prose (formulas by their TeX words, so
// "sqrt" finds \sqrt{d_k}; code and printed output left out) and each claims row with MiniSearch
// (pinned by docs/search/package-lock.json, installed by npm ci). Writes html/booksearch/: the
// library's browser build and the index as a script (window.bookSearchIndex), so the search works
// served over HTTP or opened from the folder.
//
// Usage: node build_index.mjs --html DIR
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import MiniSearch from "minisearch";

const args = process.argv.slice(2);
const html = args[args.indexOf("--html") + 1];
if (!html || !fs.existsSync(path.join(html, "index.html"))) {
  console.error(`build_index: error: --html must name the book's html/ folder (got ${html})`);
  process.exit(2);
}

// The options the page uses too (book.js reads them from the index script).
const options = {
  fields: ["title", "text"],
  storeFields: ["page", "pageTitle", "title", "text"],
};

const entities = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " ", mdash: "—", ndash: "–", times: "×",
                   hellip: "…", rsquo: "’", lsquo: "‘", rdquo: "”", ldquo: "“", minus: "−" };
const decode = (s) => s.replace(/&(#x?[0-9a-fA-F]+|[a-z]+);/g, (m, e) => {
  if (e[0] !== "#") return entities[e] ?? m;
  return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
});
// Markup to words: tags out, entities decoded, TeX commands as words (\sqrt -> sqrt), spaces folded.
const words = (s) => decode(s.replace(/<[^>]*>/g, " "))
  .replace(/\\(operatorname|text|mathrm|mathbf|boldsymbol)\{([^}]*)\}/g, " $2 ")
  .replace(/\\([a-zA-Z]+)/g, " $1 ")
  .replace(/[\\{}^_]/g, " ")
  .replace(/\s+/g, " ").trim();

const bookPage = (name) => /^(index|claims|bad_input|ch\d\d_[a-z0-9_]+)\.html$/.test(name);
const documents = [];
for (const name of fs.readdirSync(html).filter(bookPage).sort()) {
  const page = fs.readFileSync(path.join(html, name), "utf8");
  const pageTitle = words(/<div class="title">([\s\S]*?)<\/div>/.exec(page)?.[1] ?? name);
  const start = page.indexOf("<div class=\"contents\">");
  const end = page.indexOf("<!-- start footer part -->");
  let body = page.slice(start < 0 ? 0 : start, end < 0 ? page.length : end)
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<pre class="fragment"[\s\S]*?<\/pre>/g, " ")                 // printed output
    .replace(/<div class="fragment">[\s\S]*?<\/div><!-- fragment -->/g, " ")  // code
    .replace(/<div class="toc">[\s\S]*?<\/ul>\s*<\/div>/g, " ")
    .replace(/<div class="book-nav">[\s\S]*?<\/div>/g, " ")
    .replace(/<div class="codefile">[\s\S]*?<\/div>/g, " ");
  if (name === "claims.html") {
    // One entry per row: its ID, what the article says and where it is checked.
    body = body.replace(/<tr[^>]*>\s*<td[^>]*><a class="anchor" id="(claim_[a-z]+_\d+)"><\/a>([\s\S]*?)<\/tr>/g,
      (row, id, cells) => {
        const cellTexts = [...cells.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => words(m[1]));
        documents.push({ id: `claims.html#${id}`, page: `claims.html#${id}`, pageTitle,
                         title: `Claim ${decode(cells.split("</td>")[0].replace(/<[^>]*>/g, "")).trim()}`,
                         text: cellTexts.join(" · ") });
        return " ";
      });
  }
  // Sections: each heading with a Doxygen anchor starts one; the text before the first is the page's.
  const heading = /<h([1-3])[^>]*>\s*<a class="anchor" id="([^"]+)"><\/a>([\s\S]*?)<\/h\1>/g;
  let at = 0, anchor = "", title = pageTitle;
  const flush = (to) => {
    const text = words(body.slice(at, to));
    if (text.length > 0) documents.push({ id: `${name}#${anchor}`, page: anchor ? `${name}#${anchor}` : name, pageTitle, title, text });
  };
  for (const m of body.matchAll(heading)) {
    flush(m.index);
    at = m.index + m[0].length;
    anchor = m[2];
    title = words(m[3]);
  }
  flush(body.length);
}

const index = new MiniSearch(options);
index.addAll(documents);
const out = path.join(html, "booksearch");  // beside Doxygen's own search/, for the API
fs.mkdirSync(out, { recursive: true });
// The browser build (the package's exports name only its modules): beside this script, as npm ci left it.
const here = path.dirname(fileURLToPath(import.meta.url));
fs.copyFileSync(path.join(here, "node_modules/minisearch/dist/umd/index.js"), path.join(out, "minisearch.js"));
const script = `window.bookSearchIndex = ${JSON.stringify({ options, index: index.toJSON() })};\n`;
fs.writeFileSync(path.join(out, "index.js.tmp"), script);
fs.renameSync(path.join(out, "index.js.tmp"), path.join(out, "index.js"));
console.log(`build_index: ${documents.length} sections and claims indexed (${(script.length / 1024).toFixed(0)} KiB)`);
