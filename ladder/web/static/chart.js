/* The rating history chart, drawn as SVG: μ, the band μ ± σ, and the conservative rating μ − 3σ, one point per rating update (a duplicate set rated as one). */
"use strict";

const RatingChart = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  /* About ``count`` round values covering lo..hi. */
  function ticks(lo, hi, count) {
    const span = hi - lo || 1;
    const raw = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Number(v.toFixed(6)));
    return out;
  }

  function path(points) {
    return points.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join("");
  }

  function draw(container, history, options) {
    container.replaceChildren();
    /* As wide as its panel (720 at most): the SVG is scaled to fit, and a 720-wide drawing on a phone's 330 pixels
       shrank its 11-pixel labels to 5. */
    const fits = Math.round(Math.min(720, Math.max(300, container.clientWidth || 720)));
    const opts = Object.assign({ width: fits, height: 300 }, options || {});
    if (!history.length) {
      const p = document.createElement("p");
      p.className = "muted";
      p.textContent = "No rated match in this game yet.";
      container.append(p);
      return null;
    }
    const W = opts.width;
    const H = opts.height;
    const m = { l: 46, r: 14, t: 30, b: 34 };
    const n = history.length;
    /* Where each point sits: its update number (a long history comes thinned, ``?points=``). */
    const at = (h, i) => (h.update === undefined ? i + 1 : h.update);
    const first = at(history[0], 0);
    const last = at(history[n - 1], n - 1);
    const lows = history.map((h) => Math.min(h.conservative, h.mu - h.sigma));
    const highs = history.map((h) => h.mu + h.sigma);
    let lo = Math.min(...lows);
    let hi = Math.max(...highs);
    const pad = (hi - lo) * 0.06 || 1;
    lo -= pad;
    hi += pad;
    const x = (u) => (last === first ? (m.l + W - m.r) / 2 : m.l + ((u - first) * (W - m.l - m.r)) / (last - first));
    const y = (v) => m.t + ((hi - v) * (H - m.t - m.b)) / (hi - lo);
    // a group, not an img: an img's children are presentational, and its dots are links to their matches
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "group", "aria-label": "rating history" });
    root.append(svg("title", {}, "Rating history: μ, μ ± σ and μ − 3σ after each rating update (one per duplicate set)"));

    const axis = svg("g", { class: "axis" });
    for (const v of ticks(lo, hi, 5)) {
      axis.append(svg("line", { x1: m.l, x2: W - m.r, y1: y(v), y2: y(v), class: "grid" }));
      axis.append(svg("text", { x: m.l - 6, y: y(v) + 4, "text-anchor": "end" }, v));
    }
    const xt = last === first ? [first] : ticks(first, last, Math.min(8, last - first)).filter((v) => Number.isInteger(v));
    for (const u of xt) axis.append(svg("text", { x: x(u), y: H - m.b + 16, "text-anchor": "middle" }, u));
    const drawn = last - first + 1 > n ? `, ${n} of ${last - first + 1} drawn` : "";
    axis.append(svg("text", { x: (m.l + W - m.r) / 2, y: H - 4, "text-anchor": "middle", class: "axis-title" }, `rating updates (one per duplicate set${drawn})`));
    axis.append(svg("line", { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, class: "base" }));
    root.append(axis);

    // Where a new version starts.
    const versions = svg("g", { class: "versions" });
    history.forEach((h, i) => {
      if (i > 0 && h.seq !== history[i - 1].seq) {
        const vx = (x(at(history[i - 1], i - 1)) + x(at(h, i))) / 2;
        versions.append(svg("line", { x1: vx, x2: vx, y1: m.t, y2: H - m.b, class: "version-line" }));
        versions.append(svg("text", { x: vx + 3, y: m.t + 10 }, `version #${h.seq}`));
      }
    });
    root.append(versions);

    const upper = history.map((h, i) => [x(at(h, i)), y(h.mu + h.sigma)]);
    const lower = history.map((h, i) => [x(at(h, i)), y(h.mu - h.sigma)]).reverse();
    if (n > 1) root.append(svg("path", { d: path(upper) + path(lower).replace(/^M/, "L") + "Z", class: "band" }));
    if (n > 1) root.append(svg("path", { d: path(history.map((h, i) => [x(at(h, i)), y(h.conservative)])), class: "line conservative" }));
    if (n > 1) root.append(svg("path", { d: path(history.map((h, i) => [x(at(h, i)), y(h.mu)])), class: "line mu" }));

    const dots = svg("g", { class: "dots" });
    const r = n > 120 ? 2 : 3.5;
    history.forEach((h, i) => {
      const label = `match #${h.match} · μ ${h.mu.toFixed(2)} · σ ${h.sigma.toFixed(2)} · rating ${h.conservative.toFixed(2)}`;
      const link = svg("a", { href: `/matches/${h.match}` }, svg("circle", { cx: x(at(h, i)), cy: y(h.mu), r, class: "dot mu" }, svg("title", {}, label)));
      dots.append(link, svg("circle", { cx: x(at(h, i)), cy: y(h.conservative), r: r * 0.7, class: "dot conservative" }, svg("title", {}, label)));
    });
    root.append(dots);

    const legend = svg("g", { class: "legend", transform: `translate(${m.l + 4}, 14)` });
    const items = [
      ["mu", "μ"],
      ["band", "μ ± σ"],
      ["conservative", "rating μ − 3σ"],
    ];
    let gx = 0;
    items.forEach(([cls, text], i) => {
      if (i) gx += W >= 500 ? 120 : 24 + 7 * items[i - 1][1].length + 16; // narrow: each after the one before
      legend.append(cls === "band" ? svg("rect", { x: gx, y: -7, width: 18, height: 10, class: "band" }) : svg("line", { x1: gx, x2: gx + 18, y1: -2, y2: -2, class: `line ${cls}` }));
      legend.append(svg("text", { x: gx + 24, y: 2 }, text));
    });
    root.append(legend);
    container.append(root);
    return root;
  }

  return { draw, ticks };
})();
