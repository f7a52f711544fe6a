// Inline SVG charts: grouped bars and a scatter map. Labels are text nodes (no HTML parsing).
const NS = "http://www.w3.org/2000/svg";
export const PALETTE = ["#1f5eff", "#e8590c", "#2b8a3e", "#ae3ec9", "#c2255c", "#1098ad", "#f08c00", "#5c940d", "#495057", "#7048e8"];

function s(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function axisLabel(v, top) {
  return top >= 100 ? v.toFixed(0) : top >= 10 ? v.toFixed(1) : v.toFixed(2);
}

// groups: [{label, values: [number|null per series]}]; series: [name]
export function barChart(groups, series, { max = null, digits = 3, height = 240, label = "" } = {}) {
  const width = Math.max(360, groups.length * (series.length * 16 + 28) + 60);
  const top = max ?? Math.max(1e-9, ...groups.flatMap((g) => g.values.filter((v) => v !== null)));
  const svg = s("svg", { viewBox: `0 0 ${width} ${height + 40}`, role: "img", class: "bars", "aria-label": label });
  const x0 = 44, plotH = height - 10;
  for (let i = 0; i <= 4; i++) {
    const y = 10 + plotH - (plotH * i) / 4;
    svg.append(s("line", { x1: x0, x2: width - 6, y1: y, y2: y, stroke: "#e6e9f0" }));
    svg.append(s("text", { x: x0 - 4, y: y + 4, "text-anchor": "end", "font-size": 11, fill: "#5b6478" }, axisLabel((top * i) / 4, top)));
  }
  const groupW = (width - x0 - 10) / Math.max(groups.length, 1);
  const barW = Math.min(22, (groupW - 12) / Math.max(series.length, 1));
  groups.forEach((g, gi) => {
    const gx = x0 + gi * groupW + (groupW - barW * series.length) / 2;
    g.values.forEach((v, si) => {
      if (v === null || v === undefined) return;
      const h = (plotH * v) / top;
      const rect = s("rect", { x: gx + si * barW, y: 10 + plotH - h, width: barW - 2, height: Math.max(h, 0.5), fill: PALETTE[si % PALETTE.length] });
      rect.append(s("title", {}, `${series[si]} · ${g.label}: ${Number(v).toFixed(digits)}`));
      svg.append(rect);
    });
    svg.append(s("text", { x: x0 + gi * groupW + groupW / 2, y: height + 22, "text-anchor": "middle", "font-size": 12, fill: "#1d2433" }, g.label));
  });
  return svg;
}

export function legend(names, colours = PALETTE) {
  const div = document.createElement("div");
  div.className = "legend";
  names.forEach((n, i) => {
    const span = document.createElement("span");
    const sw = document.createElement("i");
    sw.style.background = colours[i % colours.length];
    span.append(sw, document.createTextNode(n));
    div.append(span);
  });
  return div;
}

// points: [{x, y, doc_type, label}] coloured by doc_type, hover text from label.
export function scatter(points, size = 520, label = "") {
  const types = [...new Set(points.map((p) => p.doc_type))].sort();
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const sx = (v) => 12 + ((v - minX) / Math.max(maxX - minX, 1e-9)) * (size - 24);
  const sy = (v) => 12 + ((v - minY) / Math.max(maxY - minY, 1e-9)) * (size - 24);
  const svg = s("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", class: "map", "aria-label": label });
  svg.append(s("rect", { x: 0, y: 0, width: size, height: size, fill: "#fbfcfe", stroke: "#e6e9f0" }));
  for (const p of points) {
    const dot = s("circle", { cx: sx(p.x), cy: sy(p.y), r: 4, fill: PALETTE[types.indexOf(p.doc_type) % PALETTE.length], "fill-opacity": 0.8, "data-type": p.doc_type });
    dot.append(s("title", {}, `[${p.doc_type}] ${p.label}`));
    svg.append(dot);
  }
  return { svg, types };
}
