// Small DOM helpers; text is always set as text, never parsed as HTML.
import { deleteJson, getJson } from "./api.js";
import { t } from "./i18n.js";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "i18n") { node.dataset.i18n = v; node.textContent = t(v); }
    else if (k === "i18nLabel") { node.dataset.i18nLabel = v; node.setAttribute("aria-label", t(v)); }
    else if (k === "i18nPlaceholder") { node.dataset.i18nPlaceholder = v; node.placeholder = t(v); }
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// A job's progress: the bar, the stage in the reader's language (the server writes it), and a
// cancel button while the job is queued or running.
export function progressBox() {
  const fill = el("div");
  const label = el("div", { class: "label", role: "status", "aria-live": "polite" });
  let jobId = null;
  const cancel = el("button", { class: "link cancel", type: "button", i18n: "progress.cancel", hidden: true,
    onclick: async () => { if (jobId) { cancel.disabled = true; try { await deleteJson(`/api/jobs/${jobId}`); } catch (_) { /* finished meanwhile */ } } } });
  const box = el("div", { class: "progress", hidden: true },
    el("div", { class: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", i18nLabel: "progress.label" }, fill), el("div", { class: "progress-row" }, label, cancel));
  return {
    node: box,
    show(job) {
      box.hidden = false;
      jobId = job.id;
      const pct = job.total ? Math.round((100 * job.done) / job.total) : (job.status === "succeeded" ? 100 : 5);
      fill.style.width = `${pct}%`;
      box.querySelector(".bar").setAttribute("aria-valuenow", String(pct));
      const stage = job.status === "running" ? job.stage : job.status_text;
      label.textContent = job.total && job.status === "running" ? `${stage} · ${job.done}/${job.total}` : stage;
      const live = job.status === "queued" || job.status === "running";
      cancel.hidden = !live;
      cancel.disabled = !live;
    },
    hide() { box.hidden = true; cancel.hidden = true; },
  };
}

// A file input whose button and "nothing chosen" read in the page's language (the browser's own
// are in the browser's): the input stays (focusable, labelled by the field) and shows through.
export function fileInput(id, accept) {
  const input = el("input", { type: "file", id, accept, class: "file-native" });
  const name = el("span", { class: "file-name", i18n: "file.none" });
  input.addEventListener("change", () => {
    const f = input.files[0];
    if (f) { delete name.dataset.i18n; name.textContent = f.name; } else { name.dataset.i18n = "file.none"; name.textContent = t("file.none"); }
  });
  return { input, node: el("span", { class: "file" }, input, el("span", { class: "file-button", "aria-hidden": "true", i18n: "file.choose" }), name) };
}

// a hint beside a button: what is missing before it can run (kept in the reader's language)
export function setHint(node, key) {
  if (key) { node.dataset.i18n = key; node.textContent = t(key); node.hidden = false; } else { delete node.dataset.i18n; node.textContent = ""; node.hidden = true; }
}

export function errorBox(err) {
  return el("div", { class: "error", role: "alert" }, `${t("ui.error")}: ${err.message || err}`);
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
  const pages = c.pages.length ? t("clause.pages", { pages: c.pages.join(", ") }) : "";
  document.getElementById("clause-meta").textContent = [`${t("clause.doc")}: ${c.doc_name}`, pages].filter(Boolean).join(" · ");
  const pre = document.getElementById("clause-text");
  pre.replaceChildren();
  const m = quote ? quotePattern(quote)?.exec(c.text) : null;
  if (m) {
    const mark = el("mark", {}, m[0]);
    pre.append(c.text.slice(0, m.index), mark, c.text.slice(m.index + m[0].length));
    openDrawer(drawer);
    mark.scrollIntoView({ block: "center" });
  } else {
    pre.textContent = c.text;
    openDrawer(drawer);
  }
}

// the drawer takes the focus (its close button) and gives it back where it came from
let returnFocus = null;
function openDrawer(drawer) {
  if (drawer.hidden) returnFocus = document.activeElement;
  drawer.hidden = false;
  document.getElementById("clause-close").focus();
}

export function closeClause() {
  const drawer = document.getElementById("clause");
  if (drawer.hidden) return;
  drawer.hidden = true;
  if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
  returnFocus = null;
}
