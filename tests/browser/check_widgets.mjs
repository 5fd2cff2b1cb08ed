// The book's live widgets in a real browser: copies the generated html/ into a fresh temporary
// folder, serves it on 127.0.0.1 and, in Debian's Chromium through playwright-core, at 1280 px and at
// 400 px, drives every interaction of every widget as a reader would (clicks, typing, the keyboard
// on sliders). After each one it compares the numbers the widget shows with what the chapter
// program prints for the same settings (the program is run here, e.g. ch01_mixing --scale 5
// --sentence "the river bank" --no-plots).
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
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright-core";

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
async function program(chapter, flags) {
  const exe = path.join(bin, "chapters", chapter, "ch" + chapter);
  try {
    const { stdout } = await execFileAsync(exe, [...flags, "--no-plots"], { cwd: work, encoding: "utf8" });
    return { out: stdout, err: "", code: 0 };
  } catch (e) {
    return { out: e.stdout ?? "", err: e.stderr ?? "", code: e.code ?? 1 };
  }
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
const root = fs.mkdtempSync(path.join(os.tmpdir(), "attn-widgets-"));
fs.cpSync(source, root, { recursive: true });
const types = { ".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript",
                ".png": "image/png", ".svg": "image/svg+xml" };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const file = path.join(root, decodeURIComponent(url.pathname));
  if (url.pathname === "/favicon.ico" || !file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(url.pathname === "/favicon.ico" ? 204 : 404);
    res.end();
    return;
  }
  const body = fs.readFileSync(file);
  res.writeHead(200, { "Content-Type": types[path.extname(file)] ?? "application/octet-stream",
                       "Content-Length": body.length });
  res.end(body);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

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

// Opens `page` at `width`, waits for its widgets, and returns the tab with its problem list.
async function open(pageName, width) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console error: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`uncaught exception: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(base + pageName, { waitUntil: "load" });
  await page.waitForFunction(() => document.documentElement.dataset.liveReady === "1", null, { timeout: 30000 });
  return { page, context, problems };
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
    return { state: root.dataset.state, smallest, where, fits: box.right <= column.right + 1 && box.left >= column.left - 1,
             pageFits: document.documentElement.scrollWidth <= window.innerWidth + 1 };
  }, widget);
}

async function lastTiming(page, width, widget, interaction) {
  const t = await page.evaluate(() => window.attnLive.timings[window.attnLive.timings.length - 1]);
  if (t) timings.push({ width, widget, interaction, ms: t.ms });
}

// ---- chapter 01: the score scale ------------------------------------------------------------------
const ch01Multipliers = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 4, 5, 6, 8, 10];
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
    if ([0.1, 1, 5, 10].includes(m)) await compare("the river bank", m, `slider x${m}`);
  }
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
  }
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
  await root.locator("summary").click();
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
}

const pages = [["ch01_mixing.html", "ch01-scale", checkCh01], ["ch02_swap_query.html", "ch02-matching", checkCh02],
               ["ch03_values.html", "ch03-roles", checkCh03],
               ["ch04_scaling.html", "ch04-explorer", checkCh04Explorer],
               ["ch04_scaling.html", "ch04-sharpness", checkCh04Sharpness], ["ch05_training.html", "ch05-steps", checkCh05],
               ["ch06_masking.html", "ch06-causal", checkCh06]];
const started = Date.now();
// The two widths run side by side, each in its own browser context, page after page.
async function visitAll(width) {
  for (const [pageName, widget, drive] of pages) {
    const where = `${pageName} ${widget} @${width}`;
    let tab;
    try {
      tab = await open(pageName, width);
      const before = await layout(tab.page, widget);
      check(before.state === "ready", where, `widget state ${before.state} (not started)`);
      if (before.state === "ready") await drive(tab.page, width);
      const after = await layout(tab.page, widget);
      check(after.smallest >= 11, where, `text drawn at ${after.smallest.toFixed(1)} px ("${after.where}"), under 11 px`);
      check(after.fits, where, "the widget is wider than its column");
      check(after.pageFits, where, "the page is wider than the window");
      if (screenshots) {
        fs.mkdirSync(screenshots, { recursive: true });
        await tab.page.locator(`.live-widget[data-widget="${widget}"]`).screenshot(
          { path: path.join(screenshots, `${widget}-${width}.png`) });
      }
      for (const p of tab.problems) check(false, where, p);
    } catch (e) {
      check(false, where, `error: ${e.message.split("\n")[0]}`);
    } finally {
      if (tab) await tab.context.close();
    }
  }
}
await Promise.all([visitAll(1280), visitAll(400)]);
await browser.close();
server.close();
fs.rmSync(root, { recursive: true, force: true });
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
