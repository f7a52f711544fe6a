// Small DOM helpers; text is always set as text, never parsed as HTML.
import { getJson } from "./api.js";
import { t } from "./i18n.js";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "i18n") { node.dataset.i18n = v; node.textContent = t(v); }
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function progressBox() {
  const fill = el("div");
  const label = el("div", { class: "label" });
  const box = el("div", { class: "progress", hidden: true }, el("div", { class: "bar" }, fill), label);
  return {
    node: box,
    show(job) {
      box.hidden = false;
      const pct = job.total ? Math.round((100 * job.done) / job.total) : (job.status === "succeeded" ? 100 : 5);
      fill.style.width = `${pct}%`;
      const stage = job.status === "queued" ? t("progress.queued") : job.status === "succeeded" ? t("progress.done") : job.stage;
      label.textContent = job.total ? `${stage} · ${job.done}/${job.total}` : stage;
    },
    hide() { box.hidden = true; },
  };
}

export function errorBox(err) {
  return el("div", { class: "error", role: "alert" }, `${t("error")}: ${err.message || err}`);
}

// The quote's words with any whitespace between them, as the clause text has it.
export function quotePattern(quote) {
  const words = quote.split(/\s+/).filter(Boolean).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return words.length ? new RegExp(words.join("\\s+")) : null;
}

export async function openClause(collection, chunkId, quote) {
  const c = await getJson(`/api/collections/${encodeURIComponent(collection)}/chunks/${encodeURIComponent(chunkId)}`);
  const drawer = document.getElementById("clause");
  document.getElementById("clause-title").textContent = [c.yakgwan, c.article, c.article_title].filter(Boolean).join(" ") || c.title;
  const pages = c.pages.length ? `${c.pages.join(", ")} ${t("clause.page")}` : "";
  document.getElementById("clause-meta").textContent = [`${t("clause.doc")}: ${c.doc_name}`, pages].filter(Boolean).join(" · ");
  const pre = document.getElementById("clause-text");
  pre.replaceChildren();
  const m = quote ? quotePattern(quote)?.exec(c.text) : null;
  if (m) {
    const mark = el("mark", {}, m[0]);
    pre.append(c.text.slice(0, m.index), mark, c.text.slice(m.index + m[0].length));
    drawer.hidden = false;
    mark.scrollIntoView({ block: "center" });
  } else {
    pre.textContent = c.text;
    drawer.hidden = false;
  }
}

export function closeClause() { document.getElementById("clause").hidden = true; }
