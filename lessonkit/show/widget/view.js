// lessonkit message-list view (anywidget ES module): every frame lives in the model, the
// browser draws and steps them, so Slider and Play need no kernel and stored state renders.
// Model: kinds [[name, colour, shown name]], blocks [[msg, kind, tokens, label, first]], frames
// [[runs [[start, count]], messages, label, [event texts], [[position, "changed"|"gone"]]]],
// labels {key: template}: every word shown, in the language the view was made in.
const SPEEDS = [0.5, 1, 2, 4];
const ROW = 16, OVERSCAN = 12, MAX_ROWS_PX = 420;  // px a row; rows drawn beyond sight; the list's height
// English templates, only for a model saved before it had labels (lessonkit.show.viewtext.labels()
// sends them in the student's language; a test keeps these equal to its English).
const ENGLISH = {
  "totals": "{messages} · {blocks} · {tokens} tokens",
  "messages": ["{n} message", "{n} messages"],
  "blocks": ["{n} block", "{n} blocks"],
  "of_window": "{percent}% of the {window}-token window",
  "threshold": "threshold {n}",
  "window": "window {n}",
  "threshold_tokens": "threshold {n} tokens",
  "window_tokens": "window {n} tokens",
  "row": "message {message} · {kind} · {tokens} tokens · {text}",
  "strip": "tokens sent per request (click a column)",
  "column": "request {request}: {tokens} tokens",
  "column_compacted": "request {request}: {tokens} tokens (after a compaction)",
  "play": "Play",
  "pause": "Pause",
  "speed": "Play speed",
  "frame": "frame",
  "no_frames": "no frames"
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}
const fmt = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");  // 12345 -> "12,345"
const pct = (part, whole) => (whole ? Math.min(100, (100 * part) / whole) : 0) + "%";
const short = (v) => (v >= 1000 ? +(v / 1000).toFixed(1) + "k" : String(v));

// say("totals", {messages: "3 messages", ...}): the model's template for a key, its {fields} filled
// in; a count's key holds [one, other]: say("messages", {n: "1"}, 1) -> "1 message".
function speaker(model) {
  const labels = { ...ENGLISH, ...(model.get("labels") || {}) };
  return (key, fields = {}, count = null) => {
    const template = Array.isArray(labels[key]) ? labels[key][count === 1 ? 0 : 1] : labels[key];
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in fields ? fields[k] : m));
  };
}

// A round top for an axis with ticks at 0, top/2, top, at least 8% above `value`.
function niceTop(value) {
  const half = Math.max(1, value * 1.08) / 2, p = 10 ** Math.floor(Math.log10(half));
  const m = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((s) => s * p >= half);
  return 2 * m * p;
}

// One frame's body: events, gauge, totals, legend and a row per block. Returns draw(frame).
function pane(model, host) {
  const kinds = model.get("kinds"), blocks = model.get("blocks"), say = speaker(model);
  const shown = (kind) => kinds[kind][2] || kinds[kind][0];
  const win = model.get("window"), threshold = model.get("threshold");
  // a full gauge is 6% above the largest of total, window, threshold: no mark on its border
  const scale = model.get("scale") || 1, full = 1.06 * (model.get("full") || 1);
  const events = el("div", "lk-events"), gauge = el("div", "lk-gauge"), total = el("div", "lk-total");
  const legend = el("div", "lk-legend"), rows = el("div", "lk-rows");
  host.append(events, gauge, total, legend, rows);
  const limits = [[threshold, "threshold", say("threshold_tokens", { n: fmt(threshold) })],
    [win, "window", say("window_tokens", { n: fmt(win) })]].filter((l) => l[0]).sort((a, b) => a[0] - b[0]);
  const lines = {};
  for (const [, name, text] of limits) lines[name] = el("div", "lk-line lk-line-" + name, text);
  const cache = new Map();
  function row(i, mark, key) {
    let r = cache.get(key);
    if (r) return r;
    const [msg, kind, tok, label, first] = blocks[i];
    r = el("div", "lk-row" + (first ? " lk-first" : "") + (mark ? " lk-" + mark : ""));
    const track = el("span", "lk-track"), bar = el("span", "lk-bar");
    bar.dataset.kind = kinds[kind][0];
    bar.dataset.tokens = tok;
    bar.style.width = pct(tok, scale);
    bar.style.background = kinds[kind][1];
    track.append(bar);
    const text = el("span", "lk-t", `${fmt(tok)} · ${label}`);
    text.title = say("row", { message: msg, kind: shown(kind), tokens: fmt(tok), text: label });
    r.append(el("span", "lk-i", first ? String(msg) : ""), track, text);
    cache.set(key, r);
    return r;
  }
  // Only the rows in sight are in the DOM (a 2,000-message frame draws about 50): `items` is
  // the frame's rows and limit lines in order, each ROW px high, painted on scroll.
  const space = el("div", "lk-space");
  rows.append(space);
  let items = [], queued = false;
  function paint() {
    queued = false;
    // the list may grow up to its max height with this paint: draw for the max height
    const top = rows.scrollTop, height = Math.max(rows.clientHeight, MAX_ROWS_PX);
    const from = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const to = Math.min(items.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const nodes = [];
    for (let k = from; k < to; k++) {
      const item = items[k];
      const node = typeof item === "string" ? lines[item] : row(item[0], item[1], item[2]);
      node.style.top = k * ROW + "px";
      nodes.push(node);
    }
    space.style.height = items.length * ROW + "px";
    space.replaceChildren(...nodes);
  }
  rows.addEventListener("scroll", () => {
    if (!queued) { queued = true; requestAnimationFrame(paint); }
  });
  return function draw(frame) {
    const [runs, messages, , evs, marks] = frame;
    const markAt = new Map(marks || []), used = new Set(), perKind = kinds.map(() => 0);
    const want = [], todo = limits.slice();
    let running = 0, pos = 0;
    for (const [start, count] of runs) {
      for (let i = start; i < start + count; i++, pos++) {
        const tok = blocks[i][2], mark = markAt.get(pos) || "";
        running += tok;
        perKind[blocks[i][1]] += tok;
        while (todo.length && running > todo[0][0]) want.push(todo.shift()[1]);
        let key = mark ? i + ":" + mark : i;
        while (used.has(key)) key += "'";  // the same block twice in a frame: a row each
        used.add(key);
        want.push([i, mark, key]);  // its row is made when it scrolls into sight
      }
    }
    items = want;
    rows.dataset.blocks = pos;
    paint();
    events.replaceChildren(...(evs || []).map((e) => el("div", "lk-event", e)));
    gauge.replaceChildren();
    kinds.forEach(([name, colour], j) => {
      if (!perKind[j]) return;
      const seg = el("span", "lk-seg");
      seg.dataset.kind = name;
      seg.style.width = pct(perKind[j], full);
      seg.style.background = colour;
      gauge.append(seg);
    });
    for (const [v, name, text] of limits) {
      const m = el("span", "lk-mark lk-mark-" + name);
      m.style.left = pct(v, full);
      m.title = text;
      gauge.append(m);
    }
    const parts = [say("totals", { messages: say("messages", { n: fmt(messages) }, messages),
      blocks: say("blocks", { n: fmt(pos) }, pos), tokens: fmt(running) })];
    if (win) parts.push(say("of_window", { percent: ((100 * running) / win).toFixed(1), window: fmt(win) }));
    if (threshold) parts.push(say("threshold", { n: fmt(threshold) }));
    total.textContent = total.title = parts.join(" · ");
    Object.assign(total.dataset, { messages, blocks: pos });  // the numbers, whatever the language
    const keys = [];
    kinds.forEach(([name, colour], j) => {
      if (!perKind[j]) return;
      const item = el("span", "lk-key"), sw = el("span", "lk-sw");
      sw.style.background = colour;
      item.append(sw, `${shown(j)} ${fmt(perKind[j])}`);
      keys.push(item);
    });
    legend.replaceChildren(...keys);
  };
}

// The saw-tooth strip: a column per frame on a token axis, window and threshold labelled.
function strip(model, host, pick) {
  const totals = model.get("totals"), compacted = new Set(model.get("compacted"));
  const win = model.get("window"), threshold = model.get("threshold"), say = speaker(model);
  const top = niceTop(Math.max(...totals, win, threshold));
  const box = el("div", "lk-strip"), axis = el("div", "lk-axis"), plot = el("div", "lk-plot");
  box.append(el("div", "lk-strip-title", say("strip")), axis, plot);
  for (const v of [0, top / 2, top]) {
    const tick = el("span", "lk-tick", short(v));
    tick.style.bottom = pct(v, top);
    axis.append(tick);
  }
  const cols = totals.map((v, i) => {
    const c = el("span", "lk-col" + (compacted.has(i) ? " lk-compacted" : ""));
    c.style.height = pct(v, top);
    const fields = { request: i + 1, tokens: fmt(v) };
    c.title = compacted.has(i) ? say("column_compacted", fields) : say("column", fields);
    c.addEventListener("click", () => pick(i + 1));
    plot.append(c);
    return c;
  });
  for (const [v, name, text] of [[win, "window", say("window", { n: fmt(win) })],
    [threshold, "threshold", say("threshold", { n: fmt(threshold) })]]) {
    if (!v) continue;
    const line = el("div", "lk-limit lk-limit-" + name);
    line.style.bottom = pct(v, top);
    line.append(el("span", "lk-limit-label", text));
    plot.append(line);
  }
  host.append(box);
  let current = null;
  return (i) => {
    if (current) current.classList.remove("lk-current");
    current = cols[i] || null;
    if (current) current.classList.add("lk-current");
  };
}

function compare(model, view) {
  view.classList.add("lk-compare");
  view.append(el("div", "lk-compare-delta", model.get("caption")));
  const panes = el("div", "lk-panes"), titles = model.get("titles");
  view.append(panes);
  model.get("frames").forEach((frame, k) => {
    const side = el("div", "lk-pane"), title = el("div", "lk-title", titles[k] || "");
    title.title = titles[k] || "";
    side.append(title);
    panes.append(side);
    pane(model, side)(frame);
  });
}

function render({ model, el: root }) {
  const view = el("div", "lk-view");
  root.append(view);
  if (model.get("mode") === "compare") return compare(model, view);
  view.classList.add("lk-msgview");
  const frames = model.get("frames"), n = frames.length, step = model.get("step") || 1, say = speaker(model);
  const controls = el("div", "lk-controls"), play = el("button", "lk-frame-play", "▶");
  const slider = el("input", "lk-frame-slider"), speed = el("select", "lk-speed");
  play.type = "button";
  play.title = say("play");
  play.setAttribute("aria-pressed", "false");  // "true" while playing (the tests read this, not the words)
  Object.assign(slider, { type: "range", min: n ? 1 : 0, max: n, step: 1 });
  slider.setAttribute("aria-label", say("frame"));
  for (const s of SPEEDS) {
    const o = el("option", null, s + "×");
    o.value = String(s);
    speed.append(o);
  }
  speed.value = "1";
  speed.title = say("speed");
  controls.append(play, slider, speed);
  // Arrows, Home and End move the slider, not the notebook's cursor (Lab's keybindings and its
  // notebook's own keydown handler both see keys from outputs otherwise).
  controls.dataset.lmSuppressShortcuts = "true";
  controls.addEventListener("keydown", (e) => e.stopPropagation());
  const label = el("div", "lk-frame-label");
  view.append(controls, label);
  const select = model.get("totals").length > 1 ? strip(model, view, (i) => show(i, true)) : null;
  const body = el("div", "lk-body");
  view.append(body);
  const draw = pane(model, body);
  let current = -1, timer = null;
  function show(i, sync) {
    i = Math.max(n ? 1 : 0, Math.min(n, Math.round(i) || 0));
    if (i === current) return;
    current = i;
    slider.value = String(i);
    const frame = frames[i - 1] || [[], 0, say("no_frames"), [], []];
    label.textContent = frame[2];
    label.title = frame[2];
    draw(frame);
    if (select) select(i - 1);
    if (sync && model.get("frame") !== i) {
      model.set("frame", i);
      try { model.save_changes(); } catch (e) { /* no kernel (a static page): the view still moves */ }
    }
  }
  function stop() {
    clearInterval(timer);
    timer = null;
    play.textContent = "▶";
    play.title = say("play");
    play.setAttribute("aria-pressed", "false");
  }
  function start() {
    if (current >= n) show(1, true);
    timer = setInterval(() => {
      show(Math.min(n, current + step), true);
      if (current >= n) stop();
    }, model.get("interval") / Number(speed.value));
    play.textContent = "⏸";
    play.title = say("pause");
    play.setAttribute("aria-pressed", "true");
  }
  slider.addEventListener("input", () => show(Number(slider.value), true));
  play.addEventListener("click", () => (timer ? stop() : start()));
  speed.addEventListener("change", () => { if (timer) { stop(); start(); } });
  const follow = () => show(model.get("frame"), false);
  model.on("change:frame", follow);
  show(model.get("frame") || n, false);
  return () => { clearInterval(timer); model.off("change:frame", follow); };
}

export default { render };
