// The document outline of a policy (GET /api/collections/{name}/outline, docs/outline.md): per
// document its insurer, product, type and version, each 약관 with its pages and 조, the
// appendices, the pages read by OCR and the ingest's warnings, so a reader sees whether the
// policy was understood.
import { getJson } from "./api.js";
import { currentLang, onLangChange, t } from "./i18n.js";
import { el, errorBox } from "./ui.js";

const KEYS = { insurer: "outline.key.insurer", product: "outline.key.product", product_type: "outline.key.product_type", doc_type: "outline.key.doc_type", version: "outline.key.version" };
const KINDS = { table: "outline.kind.table", law: "outline.kind.law", glossary: "outline.kind.glossary", toc: "outline.kind.toc", section: "outline.kind.section" };
const SOURCES = { meta: "outline.from_meta", printed: "outline.from_printed" };

function pagesOf(first, last) {
  if (first === null || first === undefined) return "";
  return first === last ? `p.${first}` : `p.${first}–${last}`;
}

// 1, 2, 3, 5 → "1–3, 5"
export function pageSpans(pages) {
  const runs = [];
  [...pages].sort((a, b) => a - b).forEach((p) => {
    const last = runs[runs.length - 1];
    if (last && p === last[1] + 1) last[1] = p; else if (!last || p !== last[1]) runs.push([p, p]);
  });
  return runs.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ");
}

function identity(doc) {
  return el("dl", { class: "facts outline-identity" }, ...Object.keys(KEYS).flatMap((k) => {
    const v = doc.identity[k];
    const from = v ? ` (${[t(SOURCES[v.source]), v.where].filter(Boolean).join(", ")})` : "";
    return [el("dt", {}, t(KEYS[k])), el("dd", { "data-key": k }, v ? v.value : t("outline.not_found"), v ? el("span", { class: "meta" }, from) : null)];
  }));
}

function yakgwanList(doc) {
  return el("ul", { class: "outline-list outline-yakgwan" }, ...doc.yakgwan.map((y) => el("li", {},
    el("details", {},
      el("summary", {}, el("strong", {}, y.name || t("outline.unnamed")), ` · ${[pagesOf(y.first_page, y.last_page), t("outline.articles", { n: y.articles.length })].filter(Boolean).join(" · ")}`),
      el("p", { class: "meta" }, y.articles.map((a) => [a.article, a.title].filter(Boolean).join(" ")).join(" · "))))));
}

function appendixList(doc) {
  if (!doc.appendices.length) return el("p", { class: "meta" }, t("outline.no_appendices"));
  return el("ul", { class: "outline-list outline-appendices" }, ...doc.appendices.map((a) => el("li", {},
    el("span", { class: "kind" }, t(KINDS[a.kind])), " ",
    [a.title, a.yakgwan, pagesOf(a.first_page, a.last_page), a.items.join(", ")].filter(Boolean).join(" · "))));
}

function reading(doc) {
  const p = doc.pages;
  const lines = p.total ? [t("outline.pages", { total: p.total })] : []; // a text file has no pages
  if (p.ocr.length) {
    const how = p.ocr_confidence !== null ? ` (${t("outline.ocr_how", { engine: p.ocr_engine || "?", confidence: p.ocr_confidence.toFixed(1) })})` : "";
    lines.push(t("outline.ocr", { pages: pageSpans(p.ocr) }) + how);
  } else lines.push(t("outline.all_text"));
  if (p.unread.length) lines.push(t("outline.unread", { pages: pageSpans(p.unread) }));
  if (p.textless.length) lines.push(t("outline.textless", { pages: pageSpans(p.textless) }));
  if (p.uncovered.length) lines.push(t("outline.uncovered", { pages: pageSpans(p.uncovered) }));
  return el("ul", { class: "outline-list outline-reading" }, ...lines.map((line) => el("li", {}, line)));
}

function documentPart(doc) {
  const warnings = doc.warnings.length
    ? [el("p", { class: "warn" }, t("outline.warnings", { n: doc.warnings.length })), el("ul", { class: "outline-list outline-warnings" }, ...doc.warnings.map((w) => el("li", { class: "warn" }, w)))]
    : [el("p", { class: "meta" }, t("outline.no_warnings"))];
  return el("section", { class: "outline-doc", "data-doc": doc.doc },
    el("h3", {}, doc.name), el("p", { class: "meta" }, t("outline.doc", { name: doc.title, kind: doc.kind, pages: doc.pages.total, chunks: doc.chunks })),
    el("h4", { i18n: "outline.identity" }), identity(doc),
    el("h4", {}, t("outline.yakgwan", { n: doc.yakgwan.length })), yakgwanList(doc),
    el("h4", {}, t("outline.appendices", { n: doc.appendices.length })), appendixList(doc),
    el("h4", { i18n: "outline.reading" }), reading(doc), ...warnings);
}

// The "document outline" button (it reads the collection pickCollection() names) and the card it
// opens; drawn again in the reader's language on the toggle (the warnings come from the server).
export function outlineView(pickCollection) {
  const card = el("div", { class: "card", id: "outline", hidden: true });
  let shown = null; // the collection on screen
  const close = () => { card.hidden = true; card.replaceChildren(); shown = null; button.focus(); };
  async function open(collection) {
    if (!collection) return;
    shown = collection;
    const asked = currentLang();
    try {
      const o = await getJson(`/api/collections/${encodeURIComponent(collection)}/outline`);
      if (shown !== collection || currentLang() !== asked) return; // another policy or language came meanwhile
      card.replaceChildren(
        el("div", { class: "outline-head" }, el("h2", { i18n: "outline.title" }),
          el("button", { type: "button", class: "close", id: "outline-close", i18nLabel: "drawer.close", onclick: close }, "×")),
        el("p", { class: "meta", i18n: "outline.intro" }),
        ...(o.documents.length ? o.documents.map(documentPart) : [el("p", { class: "meta", i18n: "outline.empty" })]));
    } catch (err) {
      card.replaceChildren(errorBox(err));
    }
    card.hidden = false;
    card.dataset.ready = "1";
  }
  const button = el("button", { type: "button", class: "link", id: "outline-open", i18n: "outline.open", onclick: () => open(pickCollection()) });
  onLangChange(() => { if (shown) open(shown); });
  return { button, node: card, refresh: () => { if (shown) open(shown); } };
}
