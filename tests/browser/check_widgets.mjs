// The book's live widgets in a real browser: copies the generated html/ into a fresh temporary
// folder, serves it on 127.0.0.1 and, in Debian's Chromium through playwright-core, at 1280 px and at
// 400 px, drives every interaction of every widget as a reader would (clicks, typing, the keyboard
// on sliders; hovering at 1280 px and tapping on a touch screen at 400 px where a widget reads the
// pointer). After each one it compares the numbers the widget shows with what the chapter program
// prints for the same settings (the program is run here, e.g. ch01_mixing --scale 5 --sentence
// "the river bank" --no-plots; chapter 09's head view against ch09_real_heads --load on the model in
// the build folder, BIN/ch09_model, the one the book exported).
//
// Usage: node check_widgets.mjs --html DIR --bin DIR [--chromium PATH] [--screenshots DIR]
//   --bin: the build folder holding chapters/NN_topic/chNN_topic.
//
// Fails on: a widget that did not start, a shown number that differs from the program's, a console
// error or uncaught exception, a failed request, text drawn under 11 CSS px, a widget wider than
// its column. Reports (without failing: the machine is shared) each interaction's time, measured in
// the page from the input event to the end of drawing. Exit code 0 when every check passed.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import { serveBook } from "./serve_book.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const source = option("--html");
const bin = option("--bin") && path.resolve(option("--bin"));
const executablePath = option("--chromium", "/usr/bin/chromium");
const screenshots = option("--screenshots");
if (!source || !fs.existsSync(path.join(source, "index.html")) || !bin) {
  console.error("check_widgets: error: --html must name a folder with index.html and --bin the build folder");
  process.exit(2);
}

// ---- the chapter programs, for the expected numbers ------------------------------------------------
const execFileAsync = promisify(execFile);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "attn-widgets-run-"));
// Runs a chapter program (asynchronously, so both widths' tabs can wait on their programs at once).
async function runProgram(chapter, flags) {
  const exe = path.join(bin, "chapters", chapter, "ch" + chapter);
  try {
    const { stdout } = await execFileAsync(exe, [...flags, "--no-plots"], { cwd: work, encoding: "utf8" });
    return { out: stdout, err: "", code: 0 };
  } catch (e) {
    return { out: e.stdout ?? "", err: e.stderr ?? "", code: e.code ?? 1 };
  }
}
// The same run asked for twice (by the two widths) is run once: {out, err, code}.
const runs = new Map();
function program(chapter, flags) {
  const key = JSON.stringify([chapter, flags]);
  if (!runs.has(key)) runs.set(key, runProgram(chapter, flags));
  return runs.get(key);
}
// The vector printed after "label:" inside the block that starts with `heading` ("[0.07, 0.16]").
function printedVector(text, heading, label) {
  const block = text.slice(text.indexOf(heading));
  const m = block.match(new RegExp("^\\s*" + label.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") + ":\\s+(\\[[^\\]]*\\])", "m"));
  return m ? m[1] : null;
}
// The rows of a printed matrix after the line containing `after`: word -> "[..]".
function printedRows(text, after, words) {
  const lines = text.slice(text.indexOf(after)).split("\n").slice(1, 1 + words.length);
  return lines.map((l) => l.trim().replace(/^\S+\s+/, ""));
}

// ---- the server -------------------------------------------------------------------------------------
const served = await serveBook(source, "attn-widgets-");
const { base } = served;

const failures = [];
let checks = 0;
const check = (ok, where, what) => {
  ++checks;
  if (!ok) failures.push(`${where}: ${what}`);
};
const timings = [];  // {width, widget, interaction, ms}

const browser = await chromium.launch({
  executablePath,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});

// One tab per width (a touch screen at 400 px), kept from page to page as a reader follows the
// links: a new tab costs a new renderer process. tab.problems holds what the page shown reported.
async function openTab(width) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, hasTouch: width === 400 });
  const page = await context.newPage();
  const tab = { page, context, problems: [] };
  page.on("console", (m) => { if (m.type() === "error") tab.problems.push(`console error: ${m.text()}`); });
  page.on("pageerror", (e) => tab.problems.push(`uncaught exception: ${e.message}`));
  // A request the tab cancels by going on to the next page is aborted, not broken.
  page.on("requestfailed", (r) => {
    if (r.failure()?.errorText !== "net::ERR_ABORTED") tab.problems.push(`request failed: ${r.url()}`);
  });
  page.on("response", (r) => { if (r.status() >= 400) tab.problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  return tab;
}
// Shows `pageName` in the tab.
async function open(tab, pageName) {
  tab.problems = [];
  await tab.page.goto(base + pageName, { waitUntil: "load" });
}
// A widget starts when it comes near the window, as a reader scrolls to it: scrolls there and waits.
async function reach(page, widget) {
  const root = page.locator(`.live-widget[data-widget="${widget}"]`);
  await root.scrollIntoViewIfNeeded();
  await page.waitForFunction((name) => ["ready", "left-out"].includes(
    document.querySelector(`.live-widget[data-widget="${name}"]`).dataset.state), widget, { timeout: 30000 });
}

// The layout of one widget: its smallest text and whether it fits its column.
async function layout(page, widget) {
  return page.evaluate((name) => {
    const root = document.querySelector(`.live-widget[data-widget="${name}"]`);
    let smallest = Infinity, where = "";
    for (const e of root.querySelectorAll("*")) {
      const hasText = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
      if (!hasText) continue;
      const size = parseFloat(getComputedStyle(e).fontSize);
      const svg = e.closest("svg");
      // SVG text scales with its drawing: its rendered size is its font size times that scale.
      const scale = svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width
        ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
      if (size * scale < smallest) { smallest = size * scale; where = e.textContent.trim().slice(0, 30); }
    }
    const column = root.parentElement.getBoundingClientRect();
    const box = root.getBoundingClientRect();
    // A table fits the widget, or sits in a box that scrolls with its cue shown.
    const cutTables = [...root.querySelectorAll("table")].filter((t) => t.getClientRects().length > 0).filter((t) => {
      const scroller = t.closest(".live-scroll");
      const over = t.getBoundingClientRect().right > root.getBoundingClientRect().right + 1 ||
                   (scroller && scroller.scrollWidth > scroller.clientWidth + 1);
      const cue = scroller && scroller.previousElementSibling?.matches(".live-scroll-cue");
      return over && !cue;
    }).map((t) => `"${t.textContent.trim().slice(0, 40)}"`);
    const smallTargets = [...root.querySelectorAll("button, summary, input, select")].filter((e) => e.getClientRects().length > 0)
      .map((e) => ({ e, r: e.getBoundingClientRect() }))
      .filter(({ e, r }) => r.height < 32 - 0.5 || (e.matches("button") && r.width < 32 - 0.5))
      .map(({ e, r }) => `${e.tagName.toLowerCase()} "${(e.textContent || e.getAttribute("aria-label") || "").trim().slice(0, 20)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    return { state: root.dataset.state, smallest, where, cutTables, smallTargets, fits: box.right <= column.right + 1 && box.left >= column.left - 1,
             pageFits: document.documentElement.scrollWidth <= window.innerWidth + 1 };
  }, widget);
}

async function lastTiming(page, width, widget, interaction) {
  const t = await page.evaluate(() => window.attnLive.timings[window.attnLive.timings.length - 1]);
  if (t) timings.push({ width, widget, interaction, ms: t.ms });
}

// ---- chapter 01: the score scale ------------------------------------------------------------------
const ch01Multipliers = [-5, -1, -0.5, 0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
async function checkCh01(page, width) {
  const where = `ch01_mixing.html ch01-scale @${width}`;
  const root = page.locator('.live-widget[data-widget="ch01-scale"]');
  const fields = [["dots", "dot products"], ["scaled", "/ sqrt(4)"], ["scores", null], ["weights", "weights"],
                  ["mixture", "mixture"], ["residual", "residual"]];
  async function compare(sentence, m, interaction) {
    const factor = String(m);
    const run = await program("01_mixing", ["--sentence", sentence, "--scale", factor]);
    const heading = `Your experiment: "${sentence}"`;
    for (const [field, label] of fields) {
      const expected = printedVector(run.out, heading, label ?? "x " + factor);
      const shown = await root.locator(`[data-field="${field}"]`).textContent();
      check(expected !== null && shown === expected, where,
            `${interaction}: ${field} shows ${shown}, ch01_mixing --sentence "${sentence}" --scale ${factor} prints ${expected}`);
    }
  }
  const slider = root.locator('input[type="range"]');
  await compare("the river bank", 1, "load");
  // The slider by the keyboard, from its low end to its high end, checking the article's rows.
  await slider.focus();
  await page.keyboard.press("Home");
  await lastTiming(page, width, "ch01-scale", "slider");
  for (let k = 1; k < ch01Multipliers.length; ++k) {
    await page.keyboard.press("ArrowRight");
    await lastTiming(page, width, "ch01-scale", "slider");
    const m = ch01Multipliers[k];
    if ([-1, 0, 0.1, 1, 2.5, 5, 10].includes(m)) await compare("the river bank", m, `slider x${m}`);
  }
  // The slider's low end is a negative factor, as the program takes.
  await page.keyboard.press("Home");
  await compare("the river bank", ch01Multipliers[0], `slider x${ch01Multipliers[0]}`);
  // The number box: any factor from -1000 to 1000, compared with the program; beyond, both refuse.
  const box = root.locator('input[type="number"]');
  for (const typed of ["-3.7", "2.5", "1000", "-1000", "0.01"]) {
    await box.fill(typed);
    await box.dispatchEvent("change");
    await lastTiming(page, width, "ch01-scale", "number");
    await compare("the river bank", Number(typed), `number box ${typed}`);
  }
  await box.fill("2.5");
  await box.dispatchEvent("change");
  check((await slider.inputValue()) === String(ch01Multipliers.indexOf(2.5)), where,
        "typing 2.5 does not move the slider to its 2.5 stop");
  await box.fill("2000");
  await box.dispatchEvent("change");
  const beyond = await program("01_mixing", ["--scale", "2000"]);
  const beyondShown = (await root.locator(".live-error").textContent()) ?? "";
  check(beyond.code === 2 && beyond.err.includes("between -1000 and 1000") && beyondShown.includes("between -1000 and 1000"),
        where, `number box 2000: shows "${beyondShown}", the program says "${beyond.err.trim()}"`);
  await box.fill("1");
  await box.dispatchEvent("change");
  await slider.focus();
  // The article's x5 row, as the chapter prints it.
  await page.keyboard.press("Home");
  for (let k = 0; k < ch01Multipliers.indexOf(5); ++k) await page.keyboard.press("ArrowRight");
  check((await root.locator('[data-field="weights"]').textContent()) === "[0.07, 0.16, 0.78]", where,
        "x5 does not show the chapter's weights [0.07, 0.16, 0.78]");
  // Each preset sentence, then a typed one, at x5.
  for (const b of await root.locator("button[data-sentence]").all()) {
    const sentence = await b.getAttribute("data-sentence");
    await b.click();
    await lastTiming(page, width, "ch01-scale", "sentence");
    await compare(sentence, 5, `sentence "${sentence}"`);
  }
  const input = root.locator('input[type="text"]');
  await input.fill("money the bank river");
  await input.press("Enter");
  await input.dispatchEvent("change");
  await lastTiming(page, width, "ch01-scale", "typed sentence");
  await compare("money the bank river", 5, "typed sentence");
  // An unknown word: the lesson's own refusal, as the program says it.
  await input.fill("the cat bank");
  await input.dispatchEvent("change");
  const refusal = await program("01_mixing", ["--sentence", "the cat bank"]);
  const shownError = (await root.locator(".live-error").textContent()) ?? "";
  check(refusal.code !== 0 && shownError.length > 0 && refusal.err.includes(shownError), where,
        `unknown word: shows "${shownError}", the program says "${refusal.err.trim()}"`);
  // A word outside the vocabulary with a non-ASCII letter: named as the reader typed it, not as
  // escaped bytes (the program, writing to a terminal, escapes them: r\xc3\xafver).
  await input.fill("the r\u00efver bank");
  await input.dispatchEvent("change");
  const accented = (await root.locator(".live-error").textContent()) ?? "";
  check(accented.includes("r\u00efver") && !accented.includes("\\x"), where, `a non-ASCII word: shows "${accented}"`);
  await input.fill("the river bank");
  await input.dispatchEvent("change");
}

// ---- chapter 06: the causal toggle ------------------------------------------------------------------
async function checkCh06(page, width) {
  const where = `ch06_masking.html ch06-causal @${width}`;
  const root = page.locator('.live-widget[data-widget="ch06-causal"]');
  const run = await program("06_masking", []);
  const words = ["the", "tired", "cat", "finally", "slept"];
  const expected = { bidirectional: printedRows(run.out, "Bidirectional (every row sums to 1", words),
                     causal: printedRows(run.out, "Causal: keep keys j <= i", words) };
  for (const view of ["causal", "bidirectional", "causal"]) {
    await root.locator(`button[data-view="${view}"]`).click();
    await lastTiming(page, width, "ch06-causal", view);
    for (let i = 0; i < words.length; ++i) {
      const cells = await root.locator(`tr[data-row="${i}"] td`).allTextContents();
      const shown = "[" + cells.join(", ") + "]";
      check(shown === expected[view][i], where, `${view}, row ${words[i]}: shows ${shown}, ch06_masking prints ${expected[view][i]}`);
    }
    // The grid's axis titles: rows are queries (the token attending), columns keys (the token attended to).
    const rowsTitle = (await root.locator('[data-field="rows-title"]').textContent()) ?? "";
    const columnsTitle = (await root.locator('[data-field="columns-title"]').textContent()) ?? "";
    check(rowsTitle.startsWith("query") && columnsTitle.startsWith("key"), where,
          `${view}: axis titles "${rowsTitle}" / "${columnsTitle}" do not name the query rows and the key columns`);
    const titleBox = await root.locator('[data-field="columns-title"]').boundingBox();
    const firstKey = await root.locator("tr").nth(1).locator("th").nth(1).boundingBox();
    check(titleBox && firstKey && titleBox.y + titleBox.height <= firstKey.y + 1, where,
          `${view}: the key title is not above the key words`);
  }
}

// ---- chapter 03: raw query, swap query, swap values ---------------------------------------------
async function checkCh03(page, width) {
  const where = `ch03_values.html ch03-roles @${width}`;
  const root = page.locator('.live-widget[data-widget="ch03-roles"]');
  const state = { query: "raw", values: "raw" };
  async function compare(interaction) {
    const run = await program("03_values", ["--query", state.query, "--values", state.values]);
    // Section 2's table row for this combination: "  swap      raw      [weights]   [mixture]".
    const row = run.out.split("\n").find((l) => new RegExp(`^\\s+${state.query}\\s+${state.values}\\s+\\[`).test(l));
    const [weights, mixture] = row ? row.match(/\[[^\]]*\]/g) : [null, null];
    const yours = run.out.slice(run.out.indexOf("Your combination"));
    const values = ["the", "Eiffel", "tower"].map((w) => (yours.match(new RegExp(`^\\s+${w}\\s+weight [^,]+, value (\\[[^\\]]*\\])`, "m")) ?? [])[1]);
    const label = `${interaction} (--query ${state.query} --values ${state.values})`;
    const shownWeights = await root.locator('[data-field="weights"]').textContent();
    const shownMixture = await root.locator('[data-field="mixture"]').textContent();
    check(shownWeights === weights, where, `${label}: weights ${shownWeights}, ch03_values prints ${weights}`);
    check(shownMixture === mixture, where, `${label}: mixture ${shownMixture}, ch03_values prints ${mixture}`);
    const shownValues = await root.locator('[data-field="value"]').allTextContents();
    check(JSON.stringify(shownValues) === JSON.stringify(values), where,
          `${label}: values ${shownValues.join(" ")}, ch03_values prints ${values.join(" ")}`);
  }
  await compare("load");
  for (const [button, change] of [["swap-query", { query: "swap" }], ["swap-values", { values: "swap" }],
                                  ["swap-values", { values: "raw" }], ["raw-query", { query: "raw" }],
                                  ["swap-values", { values: "swap" }]]) {
    await root.locator(`button[data-choice="${button}"]`).click();
    await lastTiming(page, width, "ch03-roles", button);
    Object.assign(state, change);
    await compare(button);
  }
}

// ---- chapter 04: the angle explorer and softmax sharpness ---------------------------------------
// A printed line without its claim tag, trimmed: "dot product  projection x |b|    = 9.40".
const untagged = (line) => (line ?? "").replace(/(\s+\[[a-z_0-9]+\])+\s*$/, "").trim();
async function checkCh04Explorer(page, width) {
  const where = `ch04_scaling.html ch04-explorer @${width}`;
  const root = page.locator('.live-widget[data-widget="ch04-explorer"]');
  async function compare(interaction) {
    const angle = await root.locator('[data-control="angle"]').inputValue();
    const length = await root.locator('[data-control="a-length"]').inputValue();
    const bLength = await root.locator('[data-control="b-length"]').inputValue();
    const run = await program("04_scaling", ["--angle", angle, "--length", length, "--b-length", bLength, "--samples", "100"]);
    const section = run.out.slice(run.out.indexOf("1. Rotate a"), run.out.indexOf("2. A dot product"));
    const line = (start) => untagged(section.split("\n").find((l) => l.trim().startsWith(start)));
    const label = `${interaction} (--angle ${angle} --length ${length} --b-length ${bLength})`;
    for (const [field, start] of [["projection", "signed projection"], ["dot", "dot product  "]]) {
      const shown = await root.locator(`[data-field="${field}"]`).textContent();
      check(shown === line(start), where, `${label}: shows "${shown}", ch04_scaling prints "${line(start)}"`);
    }
    const printedA = (section.match(/a = (\[[^\]]*\])/) ?? [])[1];
    const printedShadow = line("projection vector").replace(/^.*= /, "");
    const printedCosine = line("cosine similarity").replace(/^.*= /, "");
    for (const [field, expected] of [["a", printedA], ["shadow", printedShadow], ["cosine", printedCosine]]) {
      const shown = await root.locator(`[data-field="${field}"]`).textContent();
      check(shown === expected, where, `${label}: ${field} shows "${shown}", ch04_scaling prints "${expected}"`);
    }
    const side = await root.locator('[data-field="side"]').textContent();
    check(section.includes(side.replace(/\.$/, "")), where, `${label}: "${side}" is not what ch04_scaling says`);
  }
  await compare("load");
  const key = async (control, keys, name) => {
    await root.locator(`[data-control="${control}"]`).focus();
    for (const k of keys) {
      await page.keyboard.press(k);
      await lastTiming(page, width, "ch04-explorer", name);
    }
    await compare(name);
  };
  await key("angle", ["End"], "angle");
  await key("angle", Array(60).fill("ArrowLeft"), "angle");
  await key("angle", Array(30).fill("ArrowLeft"), "angle");
  await key("a-length", ["Home"], "|a|");
  await key("a-length", ["End"], "|a|");
  await key("b-length", ["ArrowRight", "ArrowRight"], "|b|");
  // One fixed scale: a drawn at |a| = 2 is a fifth as long as at |a| = 10; b is drawn below a's line.
  const drawnLength = async (field) => root.locator(`[data-field="${field}"]`).evaluate((l) =>
    Math.hypot(l.x2.baseVal.value - l.x1.baseVal.value, l.y2.baseVal.value - l.y1.baseVal.value));
  await key("a-length", ["End"], "|a|");
  const long = await drawnLength("a-line");
  await key("a-length", Array(16).fill("ArrowLeft"), "|a|");
  check((await root.locator('[data-control="a-length"]').inputValue()) === "2", where, "|a| did not step down to 2");
  const short = await drawnLength("a-line");
  check(long > 0 && Math.abs(short / long - 0.2) < 0.01, where,
        `|a| 10 -> 2 drew a ${long.toFixed(1)} px -> ${short.toFixed(1)} px (expected a fifth as long)`);
  const [aY, bY] = await Promise.all(["a-line", "b-line"].map((f) => root.locator(`[data-field="${f}"]`).evaluate((l) => l.y1.baseVal.value)));
  check(bY > aY + 5, where, `b is drawn at y ${bY}, on a's line (y ${aY}), not below it`);
  await key("a-length", ["End"], "|a|");
  // Dragging a round: press in the drawing up and to the left of its centre, move, release.
  await root.locator(".live-drag svg").scrollIntoViewIfNeeded();
  const box = await root.locator(".live-drag svg").boundingBox();
  const before = await root.locator('[data-control="angle"]').inputValue();
  await page.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.15, box.y + box.height * 0.45, { steps: 4 });
  await page.mouse.up();
  await lastTiming(page, width, "ch04-explorer", "drag");
  const after = await root.locator('[data-control="angle"]').inputValue();
  check(after !== before && Math.abs(Number(after)) > 90, where, `dragging did not rotate a (angle ${before} -> ${after})`);
  await compare("drag");
}

async function checkCh04Sharpness(page, width) {
  const where = `ch04_scaling.html ch04-sharpness @${width}`;
  const root = page.locator('.live-widget[data-widget="ch04-sharpness"]');
  const state = { scores: "4,2,0", dk: "4" };
  async function compare(interaction) {
    const run = await program("04_scaling", [`--scores=${state.scores}`, "--d-k", state.dk, "--samples", "100"]);
    const section = run.out.slice(run.out.indexOf("5. Scaling changes"), run.out.indexOf("6. Near one-hot"));
    const lines = section.split("\n");
    const label = `${interaction} (--scores ${state.scores} --d-k ${state.dk})`;
    for (const [field, start] of [["raw", "raw "], ["scaled", "scaled "]]) {
      const expected = untagged(lines.find((l) => l.trim().startsWith(start)));
      const shown = await root.locator(`[data-field="${field}"]`).textContent();
      check(shown === expected, where, `${label}: shows "${shown}", ch04_scaling prints "${expected}"`);
    }
    const winner = await root.locator('[data-field="winner"]').textContent();
    check(lines.some((l) => l.trim() === winner), where, `${label}: "${winner}" is not a line ch04_scaling prints`);
  }
  await compare("load");
  const input = root.locator('input[type="text"]');
  for (const [typed, scores] of [["3, 1, 1, 0", "3,1,1,0"], ["-2, 0.5, 7", "-2,0.5,7"]]) {
    await input.fill(typed);
    await input.dispatchEvent("change");
    await lastTiming(page, width, "ch04-sharpness", "scores");
    state.scores = scores;
    await compare("scores");
  }
  for (const dk of ["16", "1", "256"]) {
    await root.locator("select").selectOption(dk);
    await lastTiming(page, width, "ch04-sharpness", "d_k");
    state.dk = dk;
    await compare("d_k");
  }
}

// ---- chapter 02: three matching directions ----------------------------------------------------
async function checkCh02(page, width) {
  const where = `ch02_swap_query.html ch02-matching @${width}`;
  const root = page.locator('.live-widget[data-widget="ch02-matching"]');
  const state = { flags: ["--preset", "water"], sentence: "the river bank" };
  async function compare(interaction) {
    const run = await program("02_swap_query", [...state.flags, "--sentence", state.sentence, "--width", "64", "--dk", "8"]);
    const block = run.out.slice(run.out.indexOf(`"${state.sentence}", receiving token`));
    const rows = block.split("\n").slice(4).filter((l) => /^\s+\S+\s+\[/.test(l)).slice(0, 3)
      .map((l) => l.match(/^\s+(\S+)\s+(\[[^\]]*\])\s+(\[[^\]]*\])\s+(\S+)\s+(\S+%)$/)?.slice(1) ?? []);
    const label = `${interaction} (${state.flags.join(" ")} --sentence "${state.sentence}")`;
    for (let j = 0; j < 3; ++j) {
      const shown = [await root.locator(`tr[data-row="${j}"] th`).textContent(),
                     ...(await root.locator(`tr[data-row="${j}"] td`).allTextContents())];
      check(JSON.stringify(shown) === JSON.stringify(rows[j]), where,
            `${label}: row ${j} shows ${shown.join(" ")}, ch02_swap_query prints ${(rows[j] ?? []).join(" ")}`);
    }
    // bank's input line and its query's derivation, as printed between the heading line and the table.
    const lines = block.split("\n").slice(1);
    const derivation = lines.slice(1, lines.findIndex((l) => /^\s+token\s/.test(l))).map((l) => l.trim()).join("\n");
    const shownInput = await root.locator('[data-field="input"]').textContent();
    const shownDerivation = await root.locator('[data-field="derivation"]').textContent();
    check(shownInput === lines[0].trim(), where, `${label}: input line "${shownInput}", ch02_swap_query prints "${lines[0].trim()}"`);
    check(shownDerivation === derivation, where, `${label}: derivation "${shownDerivation}", ch02_swap_query prints "${derivation}"`);
    // Keys of words absent from the sentence are drawn faded; those present are not.
    for (const word of ["the", "river", "money", "bank"]) {
      const present = state.sentence.split(" ").includes(word);
      const dot = root.locator(`.live-drag svg circle[data-key="${word}"]`);
      const drawnPresent = (await dot.getAttribute("data-present")) === "true";
      const opacity = Number(await dot.getAttribute("fill-opacity"));
      check(drawnPresent === present && (present ? opacity > 0.5 : opacity < 0.5), where,
            `${label}: key of ${word} drawn ${drawnPresent ? "present" : "absent"} (opacity ${opacity}), ${present ? "in" : "not in"} the sentence`);
    }
    await noOverlappingLabels(label);
  }
  // No two labels of the 3-d view cover each other (e.g. "k river" and "q bank").
  async function noOverlappingLabels(label) {
    const boxes = await root.locator(".live-drag svg text").evaluateAll((ts) => ts.map((t) => {
      const b = t.getBBox();
      return { text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height };
    }));
    for (let i = 0; i < boxes.length; ++i) {
      for (let j = i + 1; j < boxes.length; ++j) {
        const a = boxes[i], b = boxes[j];
        const cover = a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1;
        check(!cover, where, `${label}: labels "${a.text}" and "${b.text}" overlap`);
      }
    }
  }
  // Wq is shown from the start (its coefficients open), as the article's widget shows it.
  check(await root.locator("details").evaluate((d) => d.open), where, "the Wq coefficients are hidden at first");
  check(await root.locator('input[data-r="2"][data-c="1"]').isVisible(), where, "Wq's structure row is not visible at first");
  await compare("load");
  for (const p of ["finance", "structure", "water"]) {
    await root.locator(`button[data-preset="${p}"]`).click();
    await lastTiming(page, width, "ch02-matching", "preset");
    state.flags = ["--preset", p];
    await compare(`preset ${p}`);
  }
  await root.locator('button[data-sentence="the money bank"]').click();
  await lastTiming(page, width, "ch02-matching", "sentence");
  state.sentence = "the money bank";
  await compare("sentence");
  // Every coefficient is an input; change two, as a reader would, then compare with --wq.
  for (const [r, c, v] of [[2, 2, "1.5"], [3, 0, "-2"]]) {
    const cell = root.locator(`input[data-r="${r}"][data-c="${c}"]`);
    await cell.fill(v);
    await cell.press("Tab");
    await lastTiming(page, width, "ch02-matching", "coefficient");
  }
  const wq = [];
  for (let r = 0; r < 4; ++r) {
    const row = [];
    for (let c = 0; c < 3; ++c) row.push(await root.locator(`input[data-r="${r}"][data-c="${c}"]`).inputValue());
    wq.push(row.join(" "));
  }
  state.flags = [`--wq=${wq.join("; ")}`];
  await compare("coefficients");
  // An emptied coefficient is refused by name, never read as 0; the old table does not stay.
  const emptied = root.locator('input[data-r="1"][data-c="0"]');
  const kept = await emptied.inputValue();
  await emptied.fill("");
  await emptied.press("Tab");
  const refusal = (await root.locator(".live-error").textContent().catch(() => "")) ?? "";
  check(/water -> finance/.test(refusal) && /not a number/.test(refusal), where, `an empty Wq cell: the widget says "${refusal}"`);
  check(await root.locator("tr[data-row]").count() === 0 && await root.locator(".live-drag svg").count() === 0, where,
        "an empty Wq cell leaves the previous results shown under the error");
  await emptied.fill(kept);
  await emptied.press("Tab");
  await compare("coefficient restored");
  // The 3-d view turns when dragged.
  const svg = root.locator(".live-drag svg");
  await svg.scrollIntoViewIfNeeded();
  const box = await svg.boundingBox();
  const az = await svg.getAttribute("data-az");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 + 20, { steps: 5 });
  await page.mouse.up();
  await lastTiming(page, width, "ch02-matching", "rotate view");
  check((await svg.getAttribute("data-az")) !== az, where, "dragging the 3-d view did not rotate it");
  // Rotate view by its buttons and by the arrow keys: 15 degrees of azimuth, 10 of elevation a step;
  // the view shown is one the program draws (--view AZ,EL), and turning changes no number.
  const view = async () => [Number(await root.locator(".live-drag svg").getAttribute("data-az")),
                            Number(await root.locator(".live-drag svg").getAttribute("data-el"))];
  for (const [how, dir, daz, del] of [["button", "right", 15, 0], ["button", "down", 0, -10], ["key", "ArrowLeft", -15, 0],
                                       ["key", "ArrowUp", 0, 10], ["key", "ArrowUp", 0, 10]]) {
    const [az0, el0] = await view();
    if (how === "button") await root.locator(`button[data-rotate="${dir}"]`).click();
    else { await root.locator(".live-drag").focus(); await page.keyboard.press(dir); }
    await lastTiming(page, width, "ch02-matching", "rotate " + how);
    const [az1, el1] = await view();
    const expectedEl = Math.max(-90, Math.min(90, el0 + del));
    check(az1 === (az0 + daz + 360) % 360 && el1 === expectedEl, where,
          `rotate by ${how} ${dir}: view ${az0},${el0} -> ${az1},${el1}`);
    const shownView = await root.locator('[data-field="view"]').textContent();
    check(shownView === `--view ${az1},${el1}`, where, `rotate by ${how} ${dir}: shows "${shownView}"`);
    const accepted = await program("02_swap_query", ["--view", `${az1},${el1}`, "--width", "64", "--dk", "8"]);
    check(accepted.code === 0, where, `ch02_swap_query --view ${az1},${el1} refuses the widget's view: ${accepted.err.trim()}`);
    await compare(`rotate by ${how} ${dir}`);
  }
}

// ---- chapter 05: the training step-through --------------------------------------------------------
async function checkCh05(page, width) {
  const where = `ch05_training.html ch05-steps @${width}`;
  const root = page.locator('.live-widget[data-widget="ch05-steps"]');
  const sentences = ["the river bank", "the money bank"];
  const state = { first: 0, done: 0, stage: 1 };
  async function compare(interaction) {
    const run = await program("05_training", ["--walkthrough", "--sentence", sentences[state.first], "--updates", String(state.done),
                                        "--follow", String(state.done + 1)]);
    // The program's own closing line about its plots is not part of the step-through.
    const parts = run.out.replace(/\n+plots: [^\n]*\n*$/, "").replace(/\n+$/, "").split(/\n(?=Stage \d of 8\. )/);
    const flags = `--sentence "${sentences[state.first]}" --updates ${state.done} --follow ${state.done + 1}`;
    const intro = await root.locator('[data-field="intro"]').textContent();
    check(intro === parts[0], where, `${interaction}: the run so far differs from ch05_training --walkthrough ${flags}`);
    const shown = await root.locator('[data-field="stage"]').allTextContents();
    check(shown.length === state.stage, where, `${interaction}: ${shown.length} stages shown, expected ${state.stage}`);
    shown.forEach((text, k) => check(text === parts[k + 1], where,
      `${interaction}: stage ${k + 1} differs from ch05_training --walkthrough ${flags}:\n${text}\n--- printed ---\n${parts[k + 1]}`));
    // The status names the stage reached and counts the completed updates as the program does: its
    // header before the update is applied, its stage 8 ("Completed updates: N.") once it is.
    const status = (await root.locator('[data-field="status"]').textContent()) ?? "";
    const counted = (text) => (text.match(/Completed updates: (\d+)\./) ?? [])[1];
    const expected = counted(state.stage === 8 ? parts[8] : parts[0]);
    const stageName = (parts[state.stage] ?? "").split("\n")[0].replace(/^Stage \d of 8\. /, "").split(/[:(]/)[0].trim();
    check(expected !== undefined && counted(status) === expected, where,
          `${interaction}: status "${status}" counts ${counted(status)} completed updates, ch05_training --walkthrough ${flags} ${expected}`);
    check(status.includes(`stage ${state.stage} of 8, ${stageName}`), where, `${interaction}: status "${status}" does not name stage ${state.stage} (${stageName})`);
  }
  const press = async (action, name) => {
    await root.locator(`button[data-action="${action}"]`).click();
    await lastTiming(page, width, "ch05-steps", name);
  };
  await compare("load");
  for (let k = 2; k <= 8; ++k) {
    await press("next-stage", "next stage");
    state.stage = k;
    await compare(`next stage to ${k}`);
  }
  check(await root.locator('button[data-action="next-stage"]').isDisabled(), where, "Next stage is not disabled at stage 8");
  await press("reset", "reset");
  Object.assign(state, { done: 0, stage: 1 });
  await compare("reset");
  for (let k = 2; k <= 7; ++k) await press("next-stage", "next stage");
  state.stage = 7;
  await compare("gradients of update 1");
  await press("apply", "apply update");
  state.stage = 8;
  await compare("apply update");
  await press("next-sentence", "next sentence");
  Object.assign(state, { done: 1, stage: 1 });
  await compare("next sentence");
  for (let k = 2; k <= 7; ++k) await press("next-stage", "next stage");
  state.stage = 7;
  await compare("gradients of update 2");
  await press("train", "train 20 steps");
  Object.assign(state, { done: 21, stage: 1 });
  await compare("train 20 steps");
  await press("apply", "apply update");
  state.stage = 8;
  await compare("apply update 22");
  await root.locator('button[data-sentence="the money bank"]').click();
  await lastTiming(page, width, "ch05-steps", "sentence");
  Object.assign(state, { first: 1, done: 0, stage: 1 });
  await compare("sentence");
  // Jump to a stage, forwards and back, as a reader who wants one stage does.
  for (const k of [5, 8, 3, 7]) {
    await root.locator(`button[data-jump="${k}"]`).click();
    await lastTiming(page, width, "ch05-steps", "jump to a stage");
    state.stage = k;
    await compare(`jump to stage ${k}`);
  }
}

// ---- chapter 09: the head view --------------------------------------------------------------------
// The model the book exported is the one the build folder holds (ch09_model, the ch09_train fixture's);
// ch09_real_heads --load reads it and prints, for the sentence, each head's three largest weights at
// the last character (section 2), the starkest case where a weight and a contribution disagree,
// with both numbers to 3 decimals (section 3), and each head's write size at the last character.
// Both runs start at once, before the pages are visited, and both widths share them.
const ch09Sentences = { load: "the cat sat. the cat sat.", typed: "the money bank" };
const ch09Runs = Object.fromEntries(Object.entries(ch09Sentences).map(([k, sentence]) =>
  [k, program("09_real_heads", ["--load", path.join(bin, "ch09_model"), "--sentence", sentence])]));
function ch09Printed(out) {
  const section2 = out.slice(out.indexOf("2. The head view"), out.indexOf("3. What each head contributes"));
  const entry = /'(.+?)'@(\d+) \(([\d.]+)\)/g;
  const top = {};
  for (const line of section2.split("\n")) {
    const m = line.match(/^\s+(L\d+\.H\d+)\s+'/);
    if (m) top[m[1]] = [...line.matchAll(entry)].map((e) => ({ label: e[1], at: Number(e[2]), weight: Number(e[3]) }));
  }
  const stark = out.match(/the starkest, (L\d+\.H\d+) reading at position (\d+)/);
  const starkRows = stark ? [...out.slice(stark.index).matchAll(/^\s+'.+?'@(\d+)\s+([\d.]+)\s+([\d.]+)$/gm)].slice(0, 2)
    .map((m) => ({ at: Number(m[1]), weight: Number(m[2]), contribution: Number(m[3]) })) : [];
  const decoded = out.slice(out.indexOf("What each head writes, decoded"));
  const write = {};
  for (const m of decoded.matchAll(/^\s+(L\d+\.H\d+)\s+'.+?'@\d+ \([\d.]+\)\s+([\d.]+)\s/gm)) write[m[1]] = Number(m[2]);
  return { top, write, stark: stark ? { head: stark[1], at: Number(stark[2]), rows: starkRows } : null };
}
async function checkCh09(page, width) {
  const where = `ch09_real_heads.html ch09-heads @${width}`;
  const root = page.locator('.live-widget[data-widget="ch09-heads"]');
  // Reading the model (once, when the widget first comes into view) is reported beside the interactions.
  for (const t of await page.evaluate(() => window.attnLive.timings.filter((t) => t.interaction === "load model")))
    timings.push({ width, widget: t.widget, interaction: t.interaction, ms: t.ms });
  const shownAt = async () => Number(await root.locator('.live-chars button[aria-pressed="true"]').getAttribute("data-pos"));
  // Each head's weights and contribution sizes at the shown character, read from its cells.
  const cells = async (head) => root.locator(`.live-head[data-head="${head}"] .live-cell`).evaluateAll((all) =>
    all.map((c) => ({ w: Number(c.dataset.w), c: Number(c.dataset.c) })));
  // A printed number to `places` decimals against the full one the widget holds.
  const near = (shown, printed, places) => Math.abs(shown - printed) <= 0.5 * 10 ** -places + 1e-6;
  // Chooses character i as a reader would: hovering it with a mouse, tapping it on a phone.
  const choose = async (i) => {
    const button = root.locator(`.live-chars button[data-pos="${i}"]`);
    if (width === 400) await button.tap();
    else await button.hover();
    await lastTiming(page, width, "ch09-heads", width === 400 ? "tap" : "hover");
  };
  async function compare(sentence, printed, interaction) {
    const label = `${interaction} (--sentence "${sentence}")`;
    const n = await root.locator(".live-chars button").count();
    check(n === sentence.length, where, `${label}: ${n} characters shown for a sentence of ${sentence.length}`);
    check(await shownAt() === n - 1, where, `${label}: the last character is not the one shown`);
    const heads = await root.locator(".live-head").evaluateAll((all) => all.map((e) => e.dataset.head));
    check(heads.length === 8 && Object.keys(printed.top).every((k) => heads.includes(k)), where,
          `${label}: heads shown ${heads.join(" ")}, the program prints ${Object.keys(printed.top).join(" ")}`);
    for (const [head, top] of Object.entries(printed.top)) {
      const row = await cells(head);
      for (const [rank, e] of top.entries()) {
        check(row[e.at] !== undefined && near(row[e.at].w, e.weight, 2), where,
              `${label}: ${head}'s weight on '${e.label}'@${e.at} is ${row[e.at]?.w}, ch09_real_heads prints ${e.weight.toFixed(2)}`);
        // The shown ranking names the same sources, wherever the printed weights tell them apart.
        const text = (await root.locator(`.live-head[data-head="${head}"] [data-field="top"]`).textContent()) ?? "";
        const ranked = [...text.matchAll(/'(.+?)'@(\d+) \(([\d.]+)\)/g)];
        const tied = top.some((o, k) => k !== rank && o.weight === e.weight);
        check(tied || Number(ranked[rank]?.[2]) === e.at, where,
              `${label}: ${head} ranks "${text}", ch09_real_heads ranks ${top.map((o) => `'${o.label}'@${o.at}`).join(" ")}`);
      }
      const write = Number(await root.locator(`.live-head[data-head="${head}"] [data-field="write"]`).getAttribute("data-value"));
      check(printed.write[head] !== undefined && near(write, printed.write[head], 2), where,
            `${label}: ${head}'s write size ${write}, ch09_real_heads prints ${printed.write[head]}`);
    }
    // The starkest disagreement, at its own position: weights and contributions to 3 decimals.
    check(printed.stark !== null && printed.stark.rows.length === 2, where, `${label}: no weight/contribution case printed`);
    if (!printed.stark) return;
    await choose(printed.stark.at);
    check(await shownAt() === printed.stark.at, where, `${label}: choosing character ${printed.stark.at} shows ${await shownAt()}`);
    const row = await cells(printed.stark.head);
    for (const e of printed.stark.rows) {
      check(near(row[e.at].w, e.weight, 3) && near(row[e.at].c, e.contribution, 3), where,
            `${label}: ${printed.stark.head} at ${printed.stark.at} shows weight ${row[e.at].w}, contribution ${row[e.at].c} ` +
            `on ${e.at}; ch09_real_heads prints ${e.weight}, ${e.contribution}`);
    }
  }
  // The head view opens at the reading position (the last character): its button and every
  // head's cell there are inside the visible part of their strips, on a phone too; each character
  // is a tap target of 32 px at least.
  const opening = await root.evaluate((r) => {
    const at = r.querySelector('.live-chars button[aria-pressed="true"]');
    const inView = (cell, strip) => {
      const a = cell.getBoundingClientRect(), b = strip.getBoundingClientRect();
      return a.left >= b.left - 1 && a.right <= b.right + 1;
    };
    const i = Number(at.dataset.pos);
    const heads = [...r.querySelectorAll(".live-head")];
    return { button: inView(at, r.querySelector(".live-chars")), size: [at.getBoundingClientRect().width, at.getBoundingClientRect().height],
             cells: heads.every((h) => inView(h.querySelectorAll(".live-strip:first-child .live-cell")[i], h.querySelector(".live-strips"))) };
  });
  check(opening.button && opening.cells, where, `the head view does not open at the reading position (${JSON.stringify(opening)})`);
  check(opening.size[0] >= 32 - 0.5 && opening.size[1] >= 32 - 0.5, where, `a character button is ${opening.size.map(Math.round).join("x")} px (under 32)`);
  const loaded = await ch09Runs.load, typed = await ch09Runs.typed;
  check(loaded.code === 0 && typed.code === 0, where, `ch09_real_heads --load failed: ${loaded.err}${typed.err}`);
  await compare(ch09Sentences.load, ch09Printed(loaded.out), "load");
  if (width === 1280) {
    // Leaving the characters shows the one chosen last (hovering chooses nothing for good).
    await root.locator(".live-title").hover();
    await lastTiming(page, width, "ch09-heads", "hover away");
    check(await shownAt() === ch09Sentences.load.length - 1, where, `moving away shows character ${await shownAt()}, not the last`);
  }
  // The keyboard walks the characters.
  await root.locator('.live-chars button[data-pos="3"]').click();
  await page.keyboard.press("ArrowRight");
  await lastTiming(page, width, "ch09-heads", "arrow key");
  check(await shownAt() === 4, where, `ArrowRight from character 3 shows ${await shownAt()}`);
  // A row of a heat map chooses its character: the middle of L2.H3's map is row floor(n / 2).
  const map = root.locator('.live-map[data-head="L2.H3"]');
  await map.scrollIntoViewIfNeeded();
  const box = await map.boundingBox();
  const n = ch09Sentences.load.length, middle = Math.floor(n / 2);
  if (width === 400) await map.tap({ position: { x: box.width / 2, y: box.height * (middle + 0.5) / n } });
  else await map.click({ position: { x: box.width / 2, y: box.height * (middle + 0.5) / n } });
  await lastTiming(page, width, "ch09-heads", "heat map row");
  check(await shownAt() === middle, where, `a tap on row ${middle} of a heat map shows character ${await shownAt()}`);
  // A typed sentence, then a preset.
  const input = root.locator('input[type="text"]');
  await input.fill(ch09Sentences.typed);
  await input.dispatchEvent("change");
  await lastTiming(page, width, "ch09-heads", "typed sentence");
  await compare(ch09Sentences.typed, ch09Printed(typed.out), "typed sentence");
  await root.locator('button[data-sentence="the river bank"]').click();
  await lastTiming(page, width, "ch09-heads", "sentence");
  const shown = (await root.locator(".live-chars button").allTextContents()).join("");
  check(shown === "the_river_bank", where, `the preset "the river bank" shows the characters ${shown}`);
  // A sentence the model cannot read: refused in the page, as the program refuses it.
  await input.fill("caf\u00e9 au lait");
  await input.dispatchEvent("change");
  const refusal = await program("09_real_heads", ["--sentence", "caf\u00e9 au lait"]);
  const error = (await root.locator(".live-error").textContent()) ?? "";
  check(refusal.code === 2 && /printable ASCII/.test(error) && /printable ASCII/.test(refusal.err), where,
        `an accented sentence: the page says "${error}", the program (exit ${refusal.code}) "${refusal.err.trim()}"`);
  // Nothing of the previous sentence stays under the error.
  const left = await root.evaluate((r) => r.querySelectorAll(".live-chars button, .live-head, .live-map").length +
    (r.querySelector('[data-field="position"]').textContent.trim() ? 1 : 0));
  check(left === 0, where, `an accented sentence leaves ${left} parts of the previous sentence's results under the error`);
  await root.locator('button[data-sentence="the river bank"]').click();
  check(await root.locator(".live-chars button").count() === "the river bank".length, where, "a preset after an error shows no characters");
}

// Each page once, its widgets in order.
const pages = [["ch01_mixing.html", [["ch01-scale", checkCh01]]], ["ch02_swap_query.html", [["ch02-matching", checkCh02]]],
               ["ch03_values.html", [["ch03-roles", checkCh03]]],
               ["ch04_scaling.html", [["ch04-explorer", checkCh04Explorer], ["ch04-sharpness", checkCh04Sharpness]]],
               ["ch05_training.html", [["ch05-steps", checkCh05]]], ["ch06_masking.html", [["ch06-causal", checkCh06]]],
               ["ch09_real_heads.html", [["ch09-heads", checkCh09]]]];
const started = Date.now();
// The two widths run side by side, each in its own tab, page after page.
async function visitAll(width) {
  const tab = await openTab(width);
  for (const [pageName, widgets] of pages) {
    try {
      await open(tab, pageName);
    } catch (e) {
      check(false, `${pageName} @${width}`, `did not load: ${e.message.split("\n")[0]}`);
      continue;
    }
    for (const [widget, drive] of widgets) {
      const where = `${pageName} ${widget} @${width}`;
      try {
        await reach(tab.page, widget);
        const before = await layout(tab.page, widget);
        check(before.state === "ready", where, `widget state ${before.state} (not started)`);
        if (before.state === "ready") await drive(tab.page, width);
        const after = await layout(tab.page, widget);
        check(after.smallest >= 11, where, `text drawn at ${after.smallest.toFixed(1)} px ("${after.where}"), under 11 px`);
        check(after.fits, where, "the widget is wider than its column");
        for (const t of after.cutTables) check(false, where, `a table is cut with no cue: ${t}`);
        if (width === 400) for (const t of after.smallTargets) check(false, where, `tap target ${t} (under 32 px)`);
        check(after.pageFits, where, "the page is wider than the window");
        if (screenshots) {
          fs.mkdirSync(screenshots, { recursive: true });
          await tab.page.locator(`.live-widget[data-widget="${widget}"]`).screenshot(
            { path: path.join(screenshots, `${widget}-${width}.png`) });
        }
      } catch (e) {
        check(false, where, `error: ${e.message.split("\n")[0]}`);
      }
    }
    for (const p of tab.problems) check(false, `${pageName} @${width}`, p);
  }
  await tab.context.close();
}
await Promise.all([visitAll(1280), visitAll(400)]);
await browser.close();
served.close();
fs.rmSync(work, { recursive: true, force: true });

// Each interaction's time in the page (reported, not a gate).
const groups = {};
for (const t of timings) (groups[`${t.widget} ${t.interaction} @${t.width}`] ??= []).push(t.ms);
console.log("check_widgets: time per interaction in the page (module call and drawing), median / largest:");
for (const [k, v] of Object.entries(groups)) {
  v.sort((a, b) => a - b);
  const note = v[v.length - 1] > 50 ? "  (over 50 ms)" : "";
  console.log(`  ${k}: ${v[Math.floor(v.length / 2)].toFixed(1)} / ${v[v.length - 1].toFixed(1)} ms over ${v.length}${note}`);
}
for (const f of failures) console.log(`FAIL ${f}`);
console.log(`check_widgets: ${checks} checks, ${failures.length} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failures.length ? 1 : 0);
