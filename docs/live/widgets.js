// The book's live widgets. Every number comes from the chapters' C++ lesson code compiled to
// WebAssembly (attn_live.js, built from docs/live/live_chNN.cpp); this file only lays out the
// controls, draws what the module returns and passes the reader's input back to it.
//
// A page holds <div class="live-widget" data-widget="NAME"></div> after the static output it brings
// to life, and loads this file; each widget starts when it comes near the window (start() below). Each interaction's time (module call plus drawing) is kept in
// window.attnLive.timings and on the widget as data-last-ms; the browser test reads both.
(function () {
  "use strict";
  if (window.attnLive) return;
  const script = document.currentScript;
  const base = script ? script.src.replace(/[^/]*$/, "") : "live/";
  const css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = base + "widgets.css";
  document.head.appendChild(css);

  const builders = {};
  const live = { builders, timings: [], ready: null };
  window.attnLive = live;

  // ---- small DOM helpers --------------------------------------------------------------------
  const SVG = "http://www.w3.org/2000/svg";
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c != null) node.append(c);
    return node;
  }
  function s(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c != null) node.append(c);
    return node;
  }
  const palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
  const colour = (k) => palette[k % palette.length];
  // The width a drawing can take inside the widget, so its text is drawn at its CSS size.
  const drawWidth = (node, most) => Math.max(260, Math.min(most, node.clientWidth || most));

  // A box of a widget that scrolls sideways (.live-scroll, a wide table) says so above it.
  function markScrolling(root) {
    for (const box of root.querySelectorAll(".live-scroll")) {
      const over = box.scrollWidth > box.clientWidth + 1;
      const cue = box.previousElementSibling?.matches(".live-scroll-cue") ? box.previousElementSibling : null;
      if (over && !cue) box.before(h("div", { class: "live-scroll-cue", text: "\u21c6 scrolls sideways" }));
      else if (!over && cue) cue.remove();
    }
  }
  // Runs one interaction, timing the module call and the drawing together.
  function timed(root, interaction, fn) {
    const t0 = performance.now();
    fn();
    markScrolling(root);
    const ms = performance.now() - t0;
    live.timings.push({ widget: root.dataset.widget, interaction, ms });
    root.dataset.lastMs = ms.toFixed(2);
    root.dataset.updates = String(Number(root.dataset.updates || 0) + 1);
  }

  // A labelled line of the chapter's printed text: "weights:  [0.07, 0.16, 0.78]".
  function textRow(label, field, text) {
    return h("div", { class: "live-line" }, h("span", { class: "live-label", text: label }),
      h("code", { "data-field": field, text }));
  }
  // The lesson's error names the reader's input as the chapter program does on a terminal, each
  // byte outside printable ASCII escaped (\xc3\xaf) and a backslash doubled; on the page, where it
  // is text, a run of escaped bytes that is valid UTF-8 reads as its characters again ("rïver")
  // and a doubled backslash as one.
  function readable(message) {
    const utf8 = new TextDecoder("utf-8", { fatal: true });
    return message.replace(/(?:\\x[89a-f][0-9a-f])+|\\\\/g, (run) => {
      if (run === "\\\\") return "\\";
      const bytes = Uint8Array.from(run.match(/[0-9a-f]{2}/g), (b) => parseInt(b, 16));
      try { return utf8.decode(bytes); } catch (e) { return run; }
    });
  }
  function errorLine(message) {
    return h("p", { class: "live-error", role: "alert", text: readable(message) });
  }

  // Horizontal bars for a distribution over words: values in [0, 1] (or signed, then centred).
  function bars(words, values, opts) {
    const o = opts || {};
    const box = h("div", { class: "live-bars" });
    const lo = Math.min(0, ...values), hi = Math.max(o.max ?? 1, ...values);
    words.forEach((w, k) => {
      const v = values[k];
      const left = ((Math.min(0, v) - lo) / (hi - lo)) * 100, width = (Math.abs(v) / (hi - lo)) * 100;
      box.append(h("div", { class: "live-bar-row" },
        h("span", { class: "live-bar-word", text: w }),
        h("span", { class: "live-bar-track" },
          h("span", { class: "live-bar", style: `left:${left}%;width:${width}%;background:${o.colours ? o.colours[k] : colour(k)}` })),
        h("span", { class: "live-bar-value", text: (o.texts ? o.texts[k] : v.toFixed(2)) })));
    });
    return box;
  }

  // ---- chapter 01: the score scale ---------------------------------------------------------
  // The last word of the reader's sentence traced by ch01::experiment at the chosen multiplier,
  // with the chapter's 121-point sweep (0.05 .. 10, log axis) and the chosen multiplier marked.
  // The slider steps through common factors, negative ones and 0 included; the number box beside
  // it takes any factor the program takes (--scale: -1000 to 1000).
  const ch01Multipliers = [-5, -1, -0.5, 0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
  const ch01Limit = 1000;
  builders["ch01-scale"] = function (root, M) {
    const sentences = ["the river bank", "the money bank", "the money river bank", "bank the river"];
    const input = h("input", { type: "text", value: sentences[0], "aria-label": "sentence", spellcheck: "false" });
    const slider = h("input", { type: "range", min: "0", max: String(ch01Multipliers.length - 1), step: "1",
      value: String(ch01Multipliers.indexOf(1)), "aria-label": "score multiplier" });
    const box = h("input", { type: "number", min: String(-ch01Limit), max: String(ch01Limit), step: "any", value: "1",
      class: "live-number", "aria-label": "score multiplier, any number from -1000 to 1000" });
    let factor = 1;
    const factorOut = h("output", { class: "live-factor" });
    const presets = h("div", { class: "live-buttons" },
      ...sentences.map((t) => h("button", { type: "button", "data-sentence": t, text: t,
        on: { click: () => { input.value = t; update("sentence"); } } })));
    const result = h("div", { class: "live-result", "aria-live": "polite" });
    root.append(
      h("p", { class: "live-title", text: "Live: the score scale (chapter 01's code, in your browser)" }),
      h("label", { class: "live-control" }, h("span", { text: "Sentence (the, river, money, bank)" }), input),
      presets,
      h("div", { class: "live-control" }, h("span", {}, "Scores multiplied by ", factorOut),
        h("span", { class: "live-slider-box" }, slider, box)),
      result);

    function update(interaction) {
      timed(root, interaction, () => {
        const m = factor;
        result.replaceChildren();
        if (!Number.isFinite(m) || Math.abs(m) > ch01Limit) {
          factorOut.textContent = "x ?";
          result.append(errorLine(`the factor must be between -${ch01Limit} and ${ch01Limit} (got ${box.value || "nothing"})`));
          return;
        }
        const r = M.ch01_score_scale(input.value, m);
        factorOut.textContent = "x " + (r.factor ?? m);
        if (r.error) { result.append(errorLine(r.error)); return; }
        const last = r.words[r.words.length - 1];
        result.append(
          h("p", { class: "live-note", text: `receiving token: ${last} (the last word), input ${r.input.text}` }),
          textRow("dot products", "dots", r.dots.text),
          textRow(`/ sqrt(${r.d})`, "scaled", r.scaled.text),
          textRow("x " + r.factor, "scores", r.scores.text),
          textRow("weights", "weights", r.weights.text),
          textRow("mixture", "mixture", r.mixture.text),
          textRow("residual", "residual", r.residual.text),
          bars(r.words, r.weights.values),
          sweepChart(result, r, m));
      });
    }
    slider.addEventListener("input", () => {
      factor = ch01Multipliers[Number(slider.value)];
      box.value = String(factor);
      update("slider");
    });
    box.addEventListener("change", () => {
      factor = box.value.trim() === "" ? NaN : Number(box.value);
      const k = ch01Multipliers.indexOf(factor);  // the slider follows when the factor is one of its stops
      if (k >= 0) slider.value = String(k);
      update("number");
    });
    input.addEventListener("change", () => update("sentence"));
    update("load");
  };

  function sweepChart(container, r, m) {
    const W = drawWidth(container, 640), H = 220, L = 44, R = 12, T = 12, B = 40;
    const lx = (x) => L + ((Math.log10(x) - Math.log10(r.sweep[0])) /
      (Math.log10(r.sweep[r.sweep.length - 1]) - Math.log10(r.sweep[0]))) * (W - L - R);
    const ly = (y) => T + (1 - y) * (H - T - B);
    const svg = s("svg", { width: W, height: H, class: "live-chart", role: "img",
      "aria-label": "the last word's weights as the multiplier sweeps 0.05 to 10" });
    for (const y of [0, 0.5, 1]) {
      svg.append(s("line", { x1: L, x2: W - R, y1: ly(y), y2: ly(y), class: "live-grid" }),
        s("text", { x: L - 6, y: ly(y) + 4, "text-anchor": "end", text: y.toFixed(1) }));
    }
    for (const x of [0.1, 1, 10]) {
      svg.append(s("line", { x1: lx(x), x2: lx(x), y1: T, y2: H - B, class: "live-grid" }),
        s("text", { x: lx(x), y: H - B + 16, "text-anchor": "middle", text: "x" + x }));
    }
    svg.append(s("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", text: "score multiplier (log axis)" }));
    r.words.forEach((w, k) => {
      const pts = r.sweep.map((x, i) => `${lx(x).toFixed(1)},${ly(r.sweep_weights[i][k]).toFixed(1)}`).join(" ");
      svg.append(s("polyline", { points: pts, fill: "none", stroke: colour(k), "stroke-width": 2,
        "stroke-dasharray": ["", "6 3", "2 3", "8 2 2 2"][k % 4] }));
    });
    // The chosen factor is marked where the log axis has it (0.05 to 10); 0 and negative ones are off it.
    if (m >= r.sweep[0] && m <= r.sweep[r.sweep.length - 1])
      svg.append(s("line", { x1: lx(m), x2: lx(m), y1: T, y2: H - B, class: "live-marker" }));
    const legend = h("div", { class: "live-legend" }, ...r.words.map((w, k) =>
      h("span", { style: `color:${colour(k)}`, text: "\u25a0 " + w })));
    return h("figure", { class: "live-figure" }, svg, legend);
  }

  // ---- chapter 06: the causal toggle ------------------------------------------------------
  // The article's illustrative weights for "the tired cat finally slept", bidirectional or through
  // the causal mask (ch06::tired_cat_section): a grid, receiving words down, source words across.
  function weightGrid(words, texts, rows, opts) {
    const o = opts || {};
    const table = h("table", { class: "live-table live-grid-table" });
    if (o.columnsTitle) {  // the axis titles: over the columns, and at the head of the row labels
      table.append(h("tr", {}, h("th", { class: "live-axis", "data-field": "rows-title", text: o.rowsTitle || "" }),
        h("th", { class: "live-axis", colspan: String(words.length), "data-field": "columns-title", text: o.columnsTitle })));
    }
    table.append(h("tr", {}, h("th", { text: o.corner || "" }), ...words.map((w) => h("th", { scope: "col", text: w }))));
    rows.forEach((row, i) => {
      const cells = texts[i].replace(/^\[|\]$/g, "").split(", ");
      table.append(h("tr", { "data-row": String(i) }, h("th", { scope: "row", text: words[i] }),
        ...row.map((v, j) => h("td", { "data-col": String(j),
          style: `background:rgba(31,119,180,${Math.max(0, Math.min(1, v)).toFixed(3)});color:${v > 0.55 ? "#fff" : "#111"}`,
          text: cells[j] }))));
    });
    return table;
  }
  builders["ch06-causal"] = function (root, M) {
    const views = [["bidirectional", "Bidirectional (every word sees every word)", false],
                   ["causal", "Causal (each word sees itself and the words before it)", true]];
    let causal = false;
    const buttons = views.map(([key, label, c]) => h("button", { type: "button", "data-view": key, text: label,
      on: { click: () => { causal = c; update(key); } } }));
    const result = h("div", { class: "live-result", "aria-live": "polite" });
    root.append(h("p", { class: "live-title", text: "Live: the causal toggle (chapter 06's code, in your browser)" }),
      h("div", { class: "live-buttons" }, ...buttons), result);
    function update(interaction) {
      timed(root, interaction, () => {
        const r = M.ch06_tired_cat(causal);
        buttons.forEach((b, k) => b.setAttribute("aria-pressed", String(views[k][2] === causal)));
        result.replaceChildren();
        if (r.error) { result.append(errorLine(r.error)); return; }
        result.append(weightGrid(r.words, r.texts, r.rows, { corner: "query \u2193 key \u2192",
          rowsTitle: "query: the token attending \u2193", columnsTitle: "key: the token attended to \u2192" }),
          textRow("row sums", "row_sums", r.row_sums),
          h("p", { class: "live-note", text: causal
            ? "Above the diagonal every weight is 0: a word cannot read a later one. Each row keeps its allowed weights, divided by their total."
            : "Rows are receiving words, columns the words they read; every word reads the whole sentence." }));
      });
    }
    update("load");
  };

  // ---- chapter 03: change the match, then the content ----------------------------------------
  // tower's head on "the Eiffel tower" (ch03::tower_head): the query raw or swapped decides which
  // key tower matches; swapping the values changes what the weights carry, not the weights.
  function plane(container, r) {
    const W = Math.min(drawWidth(container, 340), 340), H = W, pad = 40;
    const px = (x) => pad + ((x + 0.25) / 1.5) * (W - pad - 12);
    const py = (y) => H - pad - ((y + 0.25) / 1.5) * (H - pad - 12);
    const svg = s("svg", { width: W, height: H, class: "live-chart", role: "img",
      "aria-label": "the teaching plane: keys, tower's query and the mixture" });
    svg.append(s("defs", {}, s("marker", { id: "live-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, s("path", { d: "M0,0 L10,5 L0,10 z", fill: "#d62728" }))));
    svg.append(s("line", { x1: px(0), x2: px(1.2), y1: py(0), y2: py(0), class: "live-grid" }),
      s("line", { x1: px(0), x2: px(0), y1: py(0), y2: py(1.2), class: "live-grid" }),
      s("text", { x: px(1.2), y: py(0) + 30, "text-anchor": "end", text: r.axes[0] + " \u2192" }),
      s("text", { x: px(0) - 6, y: py(1.2), "text-anchor": "end", transform: `rotate(-90 ${px(0) - 18} ${py(1.2)})`, text: r.axes[1] + " \u2192" }));
    const seen = {};
    r.words.forEach((w, j) => {
      const [x, y] = r.K.rows[j];
      const key = `${x},${y}`;
      const dy = (seen[key] = (seen[key] ?? -1) + 1) * 14;
      svg.append(s("circle", { cx: px(x), cy: py(y), r: 5, fill: colour(j) }),
        s("text", { x: px(x) + 8, y: py(y) - 6 - dy, text: `k ${w}` }));
    });
    const [qx, qy] = r.Q.rows[2];
    svg.append(s("line", { x1: px(0), y1: py(0), x2: px(qx), y2: py(qy), stroke: "#d62728", "stroke-width": 3, "marker-end": "url(#live-arrow)" }),
      s("text", { x: px(qx) - 10, y: py(qy) - 10, "text-anchor": "end", fill: "#d62728", text: "q tower" }));
    const [mx, my] = r.mixture.rows[0];
    svg.append(s("rect", { x: px(mx) - 5, y: py(my) - 5, width: 10, height: 10, fill: "#111" }),
      s("text", { x: px(mx) + 8, y: py(my) + 16, text: "h tower" }));
    return svg;
  }
  builders["ch03-roles"] = function (root, M) {
    let swapQuery = false, swapValues = false;
    const raw = h("button", { type: "button", "data-choice": "raw-query", text: "Raw query",
      on: { click: () => { swapQuery = false; update("raw query"); } } });
    const swap = h("button", { type: "button", "data-choice": "swap-query", text: "Swap query",
      on: { click: () => { swapQuery = true; update("swap query"); } } });
    const values = h("button", { type: "button", "data-choice": "swap-values", text: "Swap values",
      on: { click: () => { swapValues = !swapValues; update("swap values"); } } });
    const result = h("div", { class: "live-result", "aria-live": "polite" });
    root.append(h("p", { class: "live-title", text: "Live: three roles (chapter 03's code, in your browser)" }),
      h("div", { class: "live-buttons" }, raw, swap, values), result);
    function update(interaction) {
      timed(root, interaction, () => {
        const r = M.ch03_tower(swapQuery, swapValues);
        raw.setAttribute("aria-pressed", String(!swapQuery));
        swap.setAttribute("aria-pressed", String(swapQuery));
        values.setAttribute("aria-pressed", String(swapValues));
        result.replaceChildren();
        if (r.error) { result.append(errorLine(r.error)); return; }
        const table = h("table", { class: "live-table" },
          h("tr", {}, ...["word", "x", "key k", "value v", "score s(tower, j)", "weight a"].map((t) => h("th", { text: t }))));
        const scores = r.scores.texts[0].replace(/^\[|\]$/g, "").split(", ");
        const weights = r.weights.texts[0].replace(/^\[|\]$/g, "").split(", ");
        r.words.forEach((w, j) => table.append(h("tr", { "data-row": String(j) }, h("th", { text: w }),
          h("td", { text: r.X.texts[j] }), h("td", { text: r.K.texts[j] }), h("td", { "data-field": "value", text: r.V.texts[j] }),
          h("td", { text: scores[j] }), h("td", { text: weights[j] }))));
        result.append(
          textRow("Wq", "Wq", r.Wq.texts.join(" ")),
          textRow("Wv", "Wv", r.Wv.texts.join(" ")),
          textRow("tower's query", "query", r.Q.texts[2]),
          h("div", { class: "live-scroll" }, table),
          textRow("weights", "weights", r.weights.texts[0]),
          textRow("mixture h = A V", "mixture", r.mixture.texts[0]),
          bars(r.words, r.weights.rows[0]),
          plane(result, r));
      });
    }
    update("load");
  };

  // ---- chapter 04: the angle explorer and softmax sharpness -----------------------------------
  // a at an angle from b = (|b|, 0) (ch04::explorer): its shadow on b's line, the signed projection
  // and the dot product. Drag in the drawing or use the sliders; angles are whole degrees.
  function range(label, attrs, out) {
    const input = h("input", Object.assign({ type: "range", "aria-label": label }, attrs));
    return [input, h("label", { class: "live-control" }, h("span", {}, label + " ", out), input)];
  }
  builders["ch04-explorer"] = function (root, M) {
    const angleOut = h("output", { class: "live-factor" }), aOut = h("output", { class: "live-factor" }),
      bOut = h("output", { class: "live-factor" });
    const [angle, angleRow] = range("angle of a", { min: "-180", max: "180", step: "1", value: "20", "data-control": "angle" }, angleOut);
    const [alen, alenRow] = range("|a|", { min: "0", max: "10", step: "0.5", value: "10", "data-control": "a-length" }, aOut);
    const [blen, blenRow] = range("|b|", { min: "0.5", max: "5", step: "0.5", value: "1", "data-control": "b-length" }, bOut);
    const result = h("div", { class: "live-result", "aria-live": "polite" });
    const drawing = h("div", { class: "live-drag", title: "drag to rotate a" });
    root.append(h("p", { class: "live-title", text: "Live: rotate a, watch its shadow (chapter 04's code, in your browser)" }),
      angleRow, alenRow, blenRow, drawing, result);
    let dragging = false;
    function fromPointer(ev, svg) {
      const box = svg.getBoundingClientRect(), c = svg._centre;
      const deg = Math.round(Math.atan2(c.y - (ev.clientY - box.top), ev.clientX - box.left - c.x) * 180 / Math.PI);
      if (String(deg) !== angle.value) { angle.value = String(deg); update("drag"); }
    }
    function draw(r) {
      const W = Math.min(drawWidth(drawing, 480), 480), H = Math.round(W * 0.7);
      // One fixed scale, the sliders' largest length, with its ticks: a shorter a is drawn shorter.
      const reach = Math.max(Number(alen.max), Number(blen.max));
      const c = { x: W / 2, y: H / 2 }, k = (Math.min(W, H) / 2 - 24) / reach;
      const X = (x) => c.x + x * k, Y = (y) => c.y - y * k;
      const below = 12;  // b is drawn this many px under the line, so a's shadow and a never hide it
      const svg = s("svg", { width: W, height: H, class: "live-chart", role: "img", "data-scale": k.toFixed(4),
        "aria-label": "a, b and a's shadow on b's line, on a fixed scale" });
      svg._centre = c;
      svg.append(s("line", { x1: 0, x2: W, y1: c.y, y2: c.y, class: "live-grid" }),
        s("line", { x1: c.x, x2: c.x, y1: 0, y2: H, class: "live-grid" }));
      for (const t of [-reach, -reach / 2, reach / 2, reach]) {
        svg.append(s("line", { x1: X(t), x2: X(t), y1: c.y - 4, y2: c.y + 4, stroke: "#999" }),
          s("text", { x: X(t), y: c.y - 8, "text-anchor": "middle", fill: "#666", text: String(t) }));
      }
      svg.append(
        s("line", { x1: X(r.a[0]), y1: Y(r.a[1]), x2: X(r.shadow[0]), y2: Y(0), stroke: "#777", "stroke-dasharray": "4 3" }),
        s("line", { x1: X(0), y1: Y(0), x2: X(r.shadow[0]), y2: Y(0), stroke: r.projection < 0 ? "#ff7f0e" : "#2ca02c", "stroke-width": 7, "stroke-opacity": 0.6 }),
        s("line", { x1: X(0), y1: Y(0) + below, x2: X(r.b[0]), y2: Y(0) + below, stroke: "#1f77b4", "stroke-width": 3, "data-field": "b-line" }),
        s("line", { x1: X(0), y1: Y(0), x2: X(r.a[0]), y2: Y(r.a[1]), stroke: "#d62728", "stroke-width": 3, "data-field": "a-line" }),
        s("circle", { cx: X(r.a[0]), cy: Y(r.a[1]), r: 7, fill: "#d62728", class: "live-handle" }),
        s("text", { x: X(r.a[0]) + 10, y: Y(r.a[1]) - 8, fill: "#d62728", text: "a" }),
        s("text", { x: X(r.b[0]) + 4, y: Y(0) + below + 4, fill: "#1f77b4", text: "b" }),
        s("text", { x: X(r.shadow[0]), y: Y(0) + below + 20, "text-anchor": "middle", text: "shadow" }));
      svg.addEventListener("pointerdown", (ev) => { dragging = true; svg.setPointerCapture(ev.pointerId); fromPointer(ev, svg); });
      svg.addEventListener("pointermove", (ev) => { if (dragging) fromPointer(ev, svg); });
      svg.addEventListener("pointerup", () => { dragging = false; });
      return svg;
    }
    function update(interaction) {
      timed(root, interaction, () => {
        angleOut.textContent = angle.value + "\u00b0";
        aOut.textContent = alen.value;
        bOut.textContent = blen.value;
        const r = M.ch04_shadow(Number(angle.value), Number(alen.value), Number(blen.value));
        result.replaceChildren();
        if (r.error) { result.append(errorLine(r.error)); return; }
        const svg = draw(r);
        const old = drawing.querySelector("svg");
        if (old && dragging) {  // keep the captured element during a drag: redraw its children only
          old.replaceChildren(...svg.childNodes);
          old._centre = svg._centre;
        } else drawing.replaceChildren(svg);
        result.append(textRow("a", "a", r.a_text),
          h("pre", { class: "live-lines" }, h("span", { "data-field": "projection", text: r.projection_line.trim() }), "\n",
            h("span", { "data-field": "dot", text: r.dot_line.trim() })),
          textRow("projection vector", "shadow", r.shadow_text),
          textRow("cosine similarity", "cosine", r.cosine_text),
          h("p", { class: "live-note", "data-field": "side", text: `The projection is ${r.side}.` }),
          h("p", { class: "live-note", text: `Drawn to one fixed scale (ticks at \u00b1${reach / 2} and \u00b1${reach}); b is drawn just below the line.` }));
      });
    }
    const reach = Math.max(Number(alen.max), Number(blen.max));
    angle.addEventListener("input", () => update("angle"));
    alen.addEventListener("input", () => update("|a|"));
    blen.addEventListener("input", () => update("|b|"));
    update("load");
  };

  // The reader's scores through softmax, raw and divided by sqrt(d_k) (ch04::softmax_scaling).
  builders["ch04-sharpness"] = function (root, M) {
    const input = h("input", { type: "text", value: "4, 2, 0", "aria-label": "scores", spellcheck: "false" });
    const dk = h("select", { "aria-label": "d_k" }, ...[1, 4, 16, 64, 256].map((n) =>
      h("option", Object.assign({ value: String(n), text: String(n) }, n === 4 ? { selected: "" } : {}))));
    const result = h("div", { class: "live-result", "aria-live": "polite" });
    root.append(h("p", { class: "live-title", text: "Live: softmax sharpness of your own scores (chapter 04's code)" }),
      h("label", { class: "live-control" }, h("span", { text: "Scores (1 to 10 numbers, commas between)" }), input),
      h("label", { class: "live-control" }, h("span", { text: "d_k (the scores are divided by its square root)" }), dk),
      result);
    function update(interaction) {
      timed(root, interaction, () => {
        result.replaceChildren();
        const parts = input.value.split(",").map((t) => t.trim());
        const scores = parts.map(Number);
        if (parts.length < 1 || parts.length > 10 || parts.some((t) => t === "") || scores.some((x) => !Number.isFinite(x))) {
          result.append(errorLine("Give 1 to 10 finite numbers separated by commas, e.g. 3, 1, 1, 0."));
          return;
        }
        const r = M.ch04_sharpness(scores, Number(dk.value));
        if (r.error) { result.append(errorLine(r.error)); return; }
        const keys = scores.map((_, k) => "key " + (k + 1));
        result.append(h("pre", { class: "live-lines" }, h("span", { "data-field": "raw", text: r.raw_line.trim() }), "\n",
            h("span", { "data-field": "scaled", text: r.scaled_line.trim() })),
          h("p", { class: "live-note", "data-field": "winner", text: r.winner.trim() }),
          h("p", { class: "live-note", text: "raw" }), bars(keys, r.a_raw),
          h("p", { class: "live-note", text: `scaled (divided by ${r.divisor})` }), bars(keys, r.a_scaled));
      });
    }
    input.addEventListener("change", () => update("scores"));
    dk.addEventListener("change", () => update("d_k"));
    update("load");
  };

  // ---- chapter 02: three matching directions ---------------------------------------------------
  // bank's (the last word's) query under a preset or the reader's Wq (4 x 3), matched against the
  // fixed keys (ch02::match_last); a 3-d view of the matching space, rotated by dragging.
  const ch02Inputs = ["finance", "water", "structure", "generic"], ch02Axes = ["finance", "water", "structure"];
  // Text boxes drawn so far in a figure (estimated: 7 px a character, 14 px tall), so a label can
  // be placed where it covers no other.
  const textBox = (x, y, text, anchor) => {
    const w = 7.5 * text.length, left = anchor === "end" ? x - w : anchor === "middle" ? x - w / 2 : x;
    return { left: left - 2, right: left + w + 2, top: y - 14, bottom: y + 5 };
  };
  const overlapArea = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
    Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  function matchingSpace(holder, r, view) {
    const W = Math.min(drawWidth(holder, 480), 480), H = Math.round(W * 0.75);
    // The query is drawn as a direction (length 0.75, as the chapter's figure), so the keys keep the room.
    const q = r.Q[r.receiver], qlen = Math.hypot(...q);
    const qdir = qlen > 0 ? q.map((x) => 0.75 * x / qlen) : [0, 0, 0];
    const keys = r.vocabulary_keys;
    const reach = Math.max(1, ...keys.map((p) => Math.hypot(...p.key)));
    const k = Math.min(W * 0.38, H * 0.55) / (1.2 * reach), az = view.az * Math.PI / 180, el = view.el * Math.PI / 180;
    // finance and water on the floor, structure up; az turns about structure, el tilts the floor.
    const P = ([f, w, st]) => {
      const x = f * Math.cos(az) - w * Math.sin(az), depth = f * Math.sin(az) + w * Math.cos(az);
      const y = st * Math.cos(el) + depth * Math.sin(el);
      return [W / 2 + x * k, H * 0.68 - y * k];
    };
    const svg = s("svg", { width: W, height: H, class: "live-chart", role: "img", "data-az": String(view.az),
      "data-el": String(view.el), "aria-label": "the matching space: every key and bank's query; drag, the Rotate buttons or the arrow keys turn it" });
    const o = P([0, 0, 0]);
    const placed = [];  // label boxes already drawn
    // A label at the first of its candidate spots that covers no label drawn before it.
    function label(candidates, text, attrs) {
      // The first spot that covers nothing, else the one that covers least.
      let at = candidates[0], least = Infinity;
      for (const c of candidates) {
        const box = textBox(c[0], c[1], text, c[2]);
        const covered = placed.reduce((sum, p) => sum + overlapArea(p, box), 0);
        if (covered < least) { least = covered; at = c; }
        if (covered === 0) break;
      }
      placed.push(textBox(at[0], at[1], text, at[2]));
      return s("text", Object.assign({ x: at[0], y: at[1], "text-anchor": at[2] || "start", text }, attrs));
    }
    // Spots around a point (x, y) for its label, nearest first: right, left, above, below, then the
    // diagonals, at growing distances.
    const ring = (x, y) => [10, 24, 40].flatMap((d) => [[x + d, y + 5], [x - d, y + 5, "end"], [x, y - d + 4, "middle"],
      [x, y + d + 8, "middle"], [x + d, y - d + 4], [x - d, y - d + 4, "end"], [x + d, y + d + 8], [x - d, y + d + 8, "end"]]);
    const axisEnds = ch02Axes.map((name, a) => {
      const e = [0, 0, 0];
      e[a] = 1.2 * reach;
      const [x, y] = P(e);
      svg.append(s("line", { x1: o[0], y1: o[1], x2: x, y2: y, stroke: "#999", "stroke-width": 1 }));
      return [name, x, y];
    });
    // The query first, so its label keeps the spot nearest its tip; then every vocabulary word's
    // key, those of words absent from the sentence faded.
    const [qx, qy] = P(qdir);
    const qText = "q " + r.words[r.receiver] + " (direction)";
    svg.append(s("line", { x1: o[0], y1: o[1], x2: qx, y2: qy, stroke: "#d62728", "stroke-width": 3 }),
      s("circle", { cx: qx, cy: qy, r: 4, fill: "#d62728" }),
      label([[qx + 6, qy - 6], [qx - 6, qy - 6, "end"], [qx + 6, qy + 16], [qx - 6, qy + 16, "end"], ...ring(qx, qy)], qText,
        { fill: "#d62728", "data-field": "query-label" }));
    keys.forEach((entry) => {
      const [x, y] = P(entry.key);
      const j = r.words.indexOf(entry.word);
      const present = entry.present && j >= 0;
      svg.append(s("circle", { cx: x, cy: y, r: present ? 4 + 10 * r.weights[j] : 4, fill: present ? colour(j) : "#bbb",
        "fill-opacity": present ? 0.8 : 0.35, "data-key": entry.word, "data-present": String(present) }));
      const text = "k " + entry.word + (present ? "" : " (absent)");
      svg.append(label([[x + 8, y + 14], [x - 8, y + 14, "end"], ...ring(x, y)],
        text, present ? { "data-label": entry.word } : { "data-label": entry.word, fill: "#999" }));
    });
    // The axis names last, each near its axis's end where no other label is.
    for (const [name, x, y] of axisEnds) svg.append(label([[x, y - 4, "middle"], ...ring(x, y)], name, { fill: "#555" }));
    return svg;
  }
  builders["ch02-matching"] = function (root, M) {
    const sentences = ["the river bank", "the money bank"];
    let sentence = sentences[0];
    const view = { az: 35, el: 28 };
    const question = h("p", { class: "live-note", "data-field": "question" });
    const cells = [];
    const grid = h("table", { class: "live-table live-wq" },
      h("tr", {}, h("th", { text: "Wq" }), ...ch02Axes.map((a) => h("th", { text: a }))),
      ...ch02Inputs.map((name, r) => h("tr", {}, h("th", { text: name }), ...ch02Axes.map((a, c) => {
        const input = h("input", { type: "number", step: "0.25", value: "0", "data-r": String(r), "data-c": String(c),
          "aria-label": `Wq ${name} to ${a}` });
        input.addEventListener("change", () => { markPreset(null); update("coefficient"); });
        cells.push(input);
        return h("td", {}, input);
      }))));
    const presetButtons = ["water", "finance", "structure"].map((p) => h("button", { type: "button", "data-preset": p,
      text: `Find ${p} evidence`, on: { click: () => { setPreset(p); update("preset " + p); } } }));
    const sentenceButtons = sentences.map((t) => h("button", { type: "button", "data-sentence": t, text: t,
      on: { click: () => { sentence = t; update("sentence"); } } }));
    const holder = h("div", { class: "live-drag", title: "drag, or focus and use the arrow keys, to rotate the view",
      tabindex: "0", "aria-label": "the matching space; arrow keys rotate it" });
    const derivation = h("pre", { class: "live-lines" });
    // Rotate view: buttons and the arrow keys turn by 15 degrees of azimuth or 10 of elevation.
    const viewOut = h("code", { "data-field": "view" });
    const turns = { left: [-15, 0], right: [15, 0], up: [0, 10], down: [0, -10] };
    const rotateButtons = [["left", "Rotate \u2190"], ["right", "Rotate \u2192"], ["up", "Tilt \u2191"], ["down", "Tilt \u2193"]]
      .map(([dir, text]) => h("button", { type: "button", "data-rotate": dir, text, on: { click: () => turn(dir) } }));
    const result = h("div", { class: "live-result", "aria-live": "polite" });
    root.append(h("p", { class: "live-title", text: "Live: three matching directions (chapter 02's code, in your browser)" }),
      h("div", { class: "live-buttons" }, ...presetButtons), question,
      h("details", { class: "live-details", open: "" }, h("summary", { text: "Adjust Wq coefficients" }), h("div", { class: "live-scroll" }, grid)),
      derivation,
      h("div", { class: "live-buttons" }, ...sentenceButtons), holder,
      h("div", { class: "live-buttons" }, ...rotateButtons, h("span", { class: "live-note" }, "view ", viewOut)), result);
    function showView() { viewOut.textContent = `--view ${view.az},${view.el}`; }
    function turn(dir) {
      if (!last) return;
      timed(root, "rotate " + dir, () => {
        view.az = (view.az + turns[dir][0] + 360) % 360;
        view.el = Math.max(-90, Math.min(90, view.el + turns[dir][1]));
        draw();
        showView();
      });
    }
    holder.addEventListener("keydown", (ev) => {
      const dir = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" }[ev.key];
      if (!dir) return;
      ev.preventDefault();
      turn(dir);
    });
    function markPreset(name) {
      presetButtons.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.preset === name)));
      if (!name) question.textContent = "Your own Wq.";
    }
    function setPreset(name) {
      const p = M.ch02_preset(name);
      p.Wq.forEach((row, r) => row.forEach((v, c) => { cells[r * 3 + c].value = String(v); }));
      question.textContent = p.question;
      markPreset(name);
    }
    const wq = () => ch02Inputs.map((_, r) => ch02Axes.map((_, c) => Number(cells[r * 3 + c].value)));
    // A cell left empty or holding no number (a number box reports either as "") is refused by
    // name, never read as 0.
    const badCell = () => cells.find((cell) => cell.value.trim() === "" || !Number.isFinite(Number(cell.value)));
    let last = null;
    function draw() {
      const svg = matchingSpace(holder, last, view);
      const old = holder.querySelector("svg");
      if (old && dragging) old.replaceChildren(...svg.childNodes), ["data-az", "data-el"].forEach((a) => old.setAttribute(a, svg.getAttribute(a)));
      else holder.replaceChildren(svg);
    }
    function update(interaction) {
      timed(root, interaction, () => {
        sentenceButtons.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.sentence === sentence)));
        result.replaceChildren();
        cells.forEach((cell) => cell.removeAttribute("aria-invalid"));
        const bad = badCell();
        if (bad) {
          bad.setAttribute("aria-invalid", "true");
          const [row, column] = [ch02Inputs[Number(bad.dataset.r)], ch02Axes[Number(bad.dataset.c)]];
          result.append(errorLine(`Wq's ${row} -> ${column} coefficient is ${bad.value.trim() === "" ? "empty or not a number" : `"${bad.value}", not a number`}: ` +
            "every coefficient must be a number (0 for none)."));
          holder.replaceChildren();
          derivation.replaceChildren();
          last = null;
          return;
        }
        const values = wq();
        const r = M.ch02_match(sentence, values);
        if (r.error) {
          result.append(errorLine(r.error));
          holder.replaceChildren();
          derivation.replaceChildren();
          last = null;
          return;
        }
        last = r;
        draw();
        showView();
        derivation.replaceChildren(h("span", { "data-field": "input", text: r.input.replace(/\n$/, "").trim() }), "\n",
          h("span", { "data-field": "derivation", text: r.derivation.replace(/\n$/, "").split("\n").map((l) => l.trim()).join("\n") }));
        const table = h("table", { class: "live-table" },
          h("tr", {}, ...["token", "its query x Wq", "its key x Wk", `q_${r.words[r.receiver]} . key / sqrt(3)`, "weight"].map((t) => h("th", { text: t }))));
        r.table.forEach((row, j) => table.append(h("tr", { "data-row": String(j) }, h("th", { text: row.token }),
          h("td", { "data-field": "query", text: row.query }), h("td", { "data-field": "key", text: row.key }),
          h("td", { "data-field": "score", text: row.score }), h("td", { "data-field": "weight", text: row.weight }))));
        result.append(h("div", { class: "live-scroll" }, table), bars(r.words, r.weights));
      });
    }
    let dragging = false, from = null;
    holder.addEventListener("pointerdown", (ev) => { dragging = true; from = [ev.clientX, ev.clientY]; holder.setPointerCapture(ev.pointerId); });
    holder.addEventListener("pointermove", (ev) => {
      if (!dragging || !last) return;
      timed(root, "rotate view", () => {
        view.az = Math.round((view.az + (ev.clientX - from[0]) * 0.6 + 360) % 360);
        view.el = Math.round(Math.max(-90, Math.min(90, view.el + (ev.clientY - from[1]) * 0.6)));
        from = [ev.clientX, ev.clientY];
        draw();
        showView();
      });
    });
    holder.addEventListener("pointerup", () => { dragging = false; });
    setPreset("water");
    update("load");
  };

  // ---- chapter 05: the training step-through ----------------------------------------------------
  // The two-coordinate model trained by SGD one sentence at a time (ch05::run_walk): each update in
  // the chapter's eight stages, exactly as `ch05_training --walkthrough` prints them, with the
  // attention row, the probabilities and the loss drawn beside them.
  builders["ch05-steps"] = function (root, M) {
    const sentences = ["the river bank", "the money bank"];
    const state = { first: 0, done: 0, stage: 1 };
    const buttons = {};
    const button = (key, label, fn) => (buttons[key] = h("button", { type: "button", "data-action": key, text: label, on: { click: fn } }));
    const choose = h("div", { class: "live-buttons" }, h("span", { text: "First sentence:" }), ...sentences.map((t, k) =>
      h("button", { type: "button", "data-sentence": t, text: t, on: { click: () => { Object.assign(state, { first: k, done: 0, stage: 1 }); update("sentence"); } } })));
    const controls = h("div", { class: "live-buttons" },
      button("next-stage", "Next stage", () => { state.stage = Math.min(8, state.stage + 1); update("next stage"); }),
      button("apply", "Apply update", () => { state.stage = 8; update("apply update"); }),
      button("next-sentence", "Next sentence", () => { state.done += 1; state.stage = 1; update("next sentence"); }),
      button("train", "Train 20 steps", () => { state.done += 20; state.stage = 1; update("train 20 steps"); }),
      button("reset", "Reset", () => { Object.assign(state, { done: 0, stage: 1 }); update("reset"); }));
    const status = h("p", { class: "live-note", "data-field": "status" });
    // Jump to a stage: one button per stage, named by the chapter's stage headings once drawn.
    const jumps = Array.from({ length: 8 }, (_, k) => h("button", { type: "button", "data-jump": String(k + 1),
      text: String(k + 1), on: { click: () => { state.stage = k + 1; update("jump to stage " + (k + 1)); } } }));
    const stageNav = h("div", { class: "live-buttons", role: "group", "aria-label": "jump to a stage" },
      h("span", { text: "Stage:" }), ...jumps);
    const result = h("div", { class: "live-result", "aria-live": "polite" });
    root.append(h("p", { class: "live-title", text: "Live: follow one sentence through training (chapter 05's code, in your browser)" }),
      choose, controls, stageNav, status, result);
    function update(interaction) {
      timed(root, interaction, () => {
        root.querySelectorAll("button[data-sentence]").forEach((b, k) => b.setAttribute("aria-pressed", String(k === state.first)));
        result.replaceChildren();
        const r = M.ch05_step(state.first, state.done, 0, 0.3);
        if (r.error) { result.append(errorLine(r.error)); return; }
        const parts = r.text.replace(/\n+$/, "").split(/\n(?=Stage \d of 8\. )/);
        const intro = parts[0], stages = parts.slice(1);
        // Stage 8 is the update itself: reaching it (Next stage, Apply update or a jump) applies it.
        const names = stages.map((t) => t.split("\n")[0].replace(/^Stage \d of 8\. /, "").split(/[:(]/)[0].trim());
        const completed = state.done + (state.stage === 8 ? 1 : 0);
        status.textContent = `Update ${r.number} ("${r.words.join(" ")}"): stage ${state.stage} of 8, ${names[state.stage - 1]}` +
          (state.stage === 8 ? ", applied" : "") + `. Completed updates: ${completed}.`;
        jumps.forEach((b, k) => {
          b.textContent = `${k + 1}. ${names[k]}`;
          b.setAttribute("aria-pressed", String(k + 1 === state.stage));
        });
        buttons["next-stage"].disabled = state.stage >= 8;
        buttons["apply"].disabled = state.stage >= 8;
        const pre = (text, attrs) => h("pre", Object.assign({ class: "live-output" }, attrs), text);
        result.append(h("details", { class: "live-details", "data-part": "intro" }, h("summary", { text: "The run so far" }), pre(intro, { "data-field": "intro" })));
        stages.slice(0, state.stage).forEach((text, k) => {
          const box = h("details", { class: "live-details live-stage", "data-stage": String(k + 1) },
            h("summary", { text: text.split("\n")[0] }), pre(text, { "data-field": "stage" }));
          if (k + 1 === state.stage) box.open = true;
          result.append(box);
        });
        // Drawn beside the text: the last word's attention row and, once predicted, the probabilities.
        const last = r.A[r.A.length - 1];
        if (state.stage >= 4) result.append(h("p", { class: "live-note", text: `${r.words[r.words.length - 1]}'s attention weights` }), bars(r.words, last));
        if (state.stage >= 5) result.append(h("p", { class: "live-note", text: `probabilities (loss ${r.loss.toFixed(4)} nats)` }), bars(["water", "finance"], r.probabilities));
      });
    }
    update("load");
  };

  // ---- chapter 09: the head view ------------------------------------------------------------------
  // The model ch09_real_heads trained and saved (exported into html/live/ch09_model.js as float32
  // parameters), handed to the WebAssembly and run by the readable forward pass on the reader's sentence (ch09_heads):
  // every head of every layer as a small heat map, and for the character under the pointer (or the
  // one tapped) each head's weights over the characters it can read, the size of what each of them
  // contributes, ||a_ij v_j W_O||, and the size of the head's whole write there.
  function loadScript(src) {
    return new Promise((resolve) => {
      const tag = document.createElement("script");
      tag.src = src;
      tag.onload = () => resolve(true);
      tag.onerror = () => resolve(false);
      document.head.appendChild(tag);
    });
  }
  const ch09Sentences = ["the cat sat. the cat sat.", "the river bank", "qxv jrpb kwz. qxv jrpb kwz.", "she paid her money into the bank"];
  // A head's n x n block of a flat array from ch09_heads (k = l heads + h), row i.
  const ch09Row = (values, n, k, i) => values.subarray(k * n * n + i * n, k * n * n + i * n + n);
  function ch09Map(r, k, pick) {
    const n = r.n, canvas = h("canvas", { class: "live-map-cells", width: String(n), height: String(n) });
    // One pixel per weight (the CSS scales it up, unsmoothed): white to blue, grey where masked.
    const g = canvas.getContext("2d"), image = g.createImageData(n, n), px = image.data;
    for (let i = 0; i < n; ++i) {
      const row = ch09Row(r.weights, n, k, i);
      for (let j = 0; j < n; ++j) {
        const a = Math.min(1, row[j]), o = 4 * (i * n + j);
        px.set(j > i ? [228, 228, 228, 255] : [255 - a * 224, 255 - a * 136, 255 - a * 75, 255], o);
      }
    }
    g.putImageData(image, 0, 0);
    const mark = h("div", { class: "live-map-row" });
    const box = h("div", { class: "live-map", "data-head": r.names[k] }, canvas, mark);
    const at = (ev) => Math.max(0, Math.min(n - 1, Math.floor(((ev.clientY - box.getBoundingClientRect().top) / box.clientHeight) * n)));
    box.addEventListener("pointermove", (ev) => { if (ev.pointerType === "mouse") pick(at(ev), false); });
    box.addEventListener("click", (ev) => pick(at(ev), true));
    return { node: h("figure", { class: "live-map-figure" }, h("figcaption", { text: r.names[k] }), box), mark };
  }
  builders["ch09-heads"] = async function (root, M) {
    if (!(await loadScript(base + "ch09_model.js")) || !window.attnLiveData || !window.attnLiveData.ch09)
      throw new Error("the chapter 09 model (live/ch09_model.js) did not load");
    const data = window.attnLiveData.ch09;
    let info = null;
    timed(root, "load model", () => {  // float32 parameters in base64 (docs/live/export_ch09.cpp)
      const text = atob(data.parameters), bytes = new Uint8Array(text.length);
      for (let k = 0; k < text.length; ++k) bytes[k] = text.charCodeAt(k);
      info = M.ch09_load(data.shape, new Float32Array(bytes.buffer), data.characters);
    });
    if (info.error) throw new Error(info.error);
    const input = h("input", { type: "text", value: ch09Sentences[0], maxlength: String(info.context), "aria-label": "sentence", spellcheck: "false" });
    const presets = h("div", { class: "live-buttons" }, ...ch09Sentences.map((t) => h("button", { type: "button", "data-sentence": t, text: t,
      on: { click: () => { input.value = t; update("sentence"); } } })));
    const chars = h("div", { class: "live-chars", role: "group", "aria-label": "the sentence's characters: hover or tap one" });
    const status = h("p", { class: "live-note", "data-field": "position" });
    const maps = h("div", { class: "live-maps" });
    const detail = h("div", { class: "live-heads", "aria-live": "polite" });
    const result = h("div", { class: "live-result" });
    root.append(h("p", { class: "live-title", text: "Live: every head of the model trained here, on your sentence (chapter 09's saved model, in your browser)" }),
      h("p", { class: "live-note", text: `${info.layers} layers of ${info.heads} heads (d_k = ${info.d_k}), width ${info.width}, ` +
        `${info.parameters} parameters: the model this page's output came from, run by the library's readable forward pass.` }),
      h("label", { class: "live-control" }, h("span", { text: `Sentence (1 to ${info.context} characters)` }), input), presets,
      result, h("p", { class: "live-note", text: "Hover over a character, or tap it, to see where every head reads from it:" }),
      chars, status, detail,
      h("p", { class: "live-note", text: "All positions at once: each head's weights, rows reading, columns read (grey: masked). Hover or tap a row." }),
      maps);
    let r = null, pinned = 0, shown = -1, marks = [];
    // One character per cell, as wide as the column allows for the sentence (11 to 18 px; a long
    // sentence scrolls sideways).
    const cellWidth = (n) => Math.max(32, Math.min(36, Math.floor((chars.clientWidth || 600) / Math.max(n, 1))));
    // The strips scroll to the reading position i (its cell at the right edge when the strip is
    // wider than the column), so a phone opens on the weighted cells.
    const reveal = (i) => {
      const cw = cellWidth(r.n);
      for (const strip of [chars, ...detail.querySelectorAll(".live-strips")]) {
        const left = i * cw, right = left + cw;
        if (right > strip.scrollLeft + strip.clientWidth) strip.scrollLeft = right - strip.clientWidth;
        else if (left < strip.scrollLeft) strip.scrollLeft = left;
      }
    };
    function pick(i, pin) {
      if (pin) pinned = i;
      if (i !== shown) timed(root, pin ? "tap" : "hover", () => show(i));
    }
    function show(i) {
      shown = i;
      const n = r.n;
      chars.querySelectorAll("button").forEach((b, j) => b.setAttribute("aria-pressed", String(j === i)));
      marks.forEach((m) => { m.style.top = `${(100 * i) / n}%`; m.style.height = `${100 / n}%`; });
      status.textContent = `Reading at '${r.labels[i]}'@${i} (position ${i} of ${n - 1}): blue is each head's weight on a character, ` +
        "orange the size of what that character contributes through the head, on one scale for all heads.";
      const cw = cellWidth(n);
      let most = 0;  // the largest contribution at this position, over every head: one scale for all
      for (let k = 0; k < r.names.length; ++k) most = Math.max(most, ...ch09Row(r.contributions, n, k, i));
      const rows = r.names.map((name, k) => {
        const w = ch09Row(r.weights, n, k, i), c = ch09Row(r.contributions, n, k, i);
        const weightCells = [], sizeCells = [];
        for (let j = 0; j < n; ++j) {
          const masked = j > i;
          const tip = masked ? `${r.labels[j]}@${j}: masked (later than ${i})`
            : `${r.labels[j]}@${j}: weight ${w[j].toFixed(3)}, contribution ${c[j].toFixed(3)}`;
          weightCells.push(h("span", { class: "live-cell" + (masked ? " masked" : ""), title: tip, "data-w": String(w[j]), "data-c": String(c[j]),
            style: `width:${cw}px;` + (masked ? "" : `background:rgba(31,119,180,${w[j].toFixed(3)});color:${w[j] > 0.55 ? "#fff" : "#111"}`),
            text: r.labels[j] }));
          sizeCells.push(h("span", { class: "live-size", title: tip,
            style: `width:${cw}px;` + (masked ? "" : `background:rgba(230,85,13,${(most > 0 ? c[j] / most : 0).toFixed(3)})`) }));
        }
        const order = Array.from(w.subarray(0, i + 1), (v, j) => [v, j]).sort((a, b) => b[0] - a[0]);
        const top = order.slice(0, 3).map(([v, j]) => `'${r.labels[j]}'@${j} (${v.toFixed(2)})`).join("  ");
        const big = Array.from(c.subarray(0, i + 1), (v, j) => [v, j]).sort((a, b) => b[0] - a[0])[0];
        const write = r.writes[k * n + i];
        return h("div", { class: "live-head", "data-head": name },
          h("div", { class: "live-head-text" }, h("strong", { text: name }),
            h("span", { "data-field": "top", text: top }),
            h("span", { "data-field": "top-contribution", text: `largest contribution '${r.labels[big[1]]}'@${big[1]} (${big[0].toFixed(2)})` }),
            h("span", { "data-field": "write", "data-value": String(write), text: `write size ${write.toFixed(2)}` })),
          h("div", { class: "live-strips" }, h("div", { class: "live-strip" }, ...weightCells), h("div", { class: "live-strip" }, ...sizeCells)));
      });
      detail.replaceChildren(...rows);
      reveal(i);
    }
    let current = null;  // the sentence drawn (a change event on leaving the box, same text: nothing to do)
    function update(interaction) {
      if (input.value === current) return;
      current = input.value;
      timed(root, interaction, () => {
        presets.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.sentence === input.value)));
        const next = M.ch09_heads(input.value);
        result.replaceChildren();
        if (next.error) {
          // Nothing of the previous sentence stays under the error.
          r = null;
          shown = -1;
          marks = [];
          chars.replaceChildren();
          status.textContent = "";
          detail.replaceChildren();
          maps.replaceChildren();
          result.append(errorLine(next.error));
          return;
        }
        r = next;
        pinned = r.n - 1;
        const cw = cellWidth(r.n);
        chars.replaceChildren(...r.labels.map((label, j) => h("button", { type: "button", "data-pos": String(j), text: label, style: `width:${cw}px`,
          on: { pointerover: (ev) => { if (ev.pointerType === "mouse") pick(j, false); }, click: () => pick(j, true) } })));
        const drawn = r.names.map((_, k) => ch09Map(r, k, pick));
        marks = drawn.map((d) => d.mark);
        maps.replaceChildren(...drawn.map((d) => d.node));
        show(pinned);
      });
    }
    chars.addEventListener("pointerleave", (ev) => { if (ev.pointerType === "mouse" && r && shown !== pinned) pick(pinned, false); });
    maps.addEventListener("pointerleave", (ev) => { if (ev.pointerType === "mouse" && r && shown !== pinned) pick(pinned, false); });
    chars.addEventListener("keydown", (ev) => {
      if (!r || !["ArrowLeft", "ArrowRight", "Home", "End"].includes(ev.key)) return;
      ev.preventDefault();
      const i = ev.key === "Home" ? 0 : ev.key === "End" ? r.n - 1 : Math.max(0, Math.min(r.n - 1, shown + (ev.key === "ArrowLeft" ? -1 : 1)));
      pick(i, true);
      chars.querySelectorAll("button")[i].focus();
    });
    input.addEventListener("change", () => update("sentence"));
    update("load");
  };

  // ---- start -----------------------------------------------------------------------------------
  function loadModule() {
    return new Promise((resolve) => {
      const tag = document.createElement("script");
      tag.src = base + "attn_live.js";
      tag.onload = () => {
        if (typeof window.AttnLive !== "function") resolve(null);
        else window.AttnLive().then(resolve, () => resolve(null));
      };
      tag.onerror = () => resolve(null);
      document.head.appendChild(tag);
    });
  }
  // Builds one widget; a widget that cannot start says so in its place, above which the printed
  // output stays.
  async function begin(root, M) {
    const build = builders[root.dataset.widget];
    let why = "This build of the book has no live version of this widget; the printed output above is the chapter's.";
    if (M && build) {
      root.dataset.state = "starting";  // the widget's frame first, so a drawing measures its room
      try {
        await build(root, M);  // a widget with data of its own (chapter 09's model) loads it first
        root.addEventListener("toggle", () => markScrolling(root), true);
        window.addEventListener("resize", () => markScrolling(root));
        root.dataset.state = "ready";
        return;
      } catch (e) {
        console.error(`live widget ${root.dataset.widget}: ${e.message}`);
        why = `This widget could not start (${e.message}); the printed output above is the chapter's.`;
      }
    }
    root.replaceChildren(h("p", { class: "live-note", text: why }));
    root.dataset.state = "left-out";
  }
  // Each widget starts when it comes near the window (the WebAssembly, 0.75 MB, is loaded for the
  // first), so a page opens as fast as one without widgets. Once every widget of the page has
  // started, the page says so (data-live-ready="1" on <html>; live.ready resolves).
  function start() {
    const roots = [...document.querySelectorAll(".live-widget[data-widget]")];
    if (roots.length === 0) return;
    let module = null;
    let done = null;
    const all = new Promise((resolve) => { done = resolve; });
    let left = roots.length;
    const started = new Set();
    const go = (root) => {
      if (started.has(root)) return;
      started.add(root);
      if (near) near.unobserve(root);
      module = module || loadModule();
      module.then((M) => begin(root, M)).then(() => {
        if (--left > 0) return;
        document.documentElement.dataset.liveReady = "1";
        done();
      });
    };
    live.ready = all;
    live.startAll = () => roots.forEach(go);  // every widget now, wherever it is (for screenshots)
    const near = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting) go(e.target);
    }, { rootMargin: "800px 0px" }) : null;
    if (near) roots.forEach((root) => near.observe(root));
    else roots.forEach(go);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
