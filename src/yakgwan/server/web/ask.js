// The ask page: a question over a collection, the answer streamed, citations that open the
// clause, and an explicit "the documents do not say" state.
import { stream } from "./api.js";
import { has, t } from "./i18n.js";
import { el, errorBox, openClause, setHint } from "./ui.js";

export function mountAsk(root, state) {
  const select = el("select", { id: "ask-collection" });
  const question = el("textarea", { id: "question", i18nPlaceholder: "ask.placeholder", rows: "3" });
  const go = el("button", { type: "button", class: "primary", id: "ask-go", i18n: "ask.go", "aria-describedby": "ask-hint" });
  let asking = false; // an answer is streaming: the button waits for it
  const hint = el("p", { class: "hint", id: "ask-hint" });
  const out = el("div", { id: "ask-result" });

  // what is missing before a question can be asked, said under the button
  const update = () => {
    const cols = (state.collections || []).filter((c) => c.documents > 0);
    const missing = !cols.length ? "ask.nocollection" : !question.value.trim() ? "ask.need_question" : null;
    go.disabled = asking || missing !== null;
    setHint(hint, missing);
  };
  state.onCollections = () => {
    const cols = (state.collections || []).filter((c) => c.documents > 0);
    const keep = select.value;
    select.replaceChildren(...(cols.length ? cols.map((c) => el("option", { value: c.name }, c.title)) : [el("option", { value: "", i18n: "policy.none" })]));
    if (cols.some((c) => c.name === keep)) select.value = keep;
    update();
  };
  question.addEventListener("input", update);

  go.addEventListener("click", async () => {
    const q = question.value.trim();
    if (!q || !select.value || asking) return;
    asking = true;
    update();
    // the newest exchange on top, earlier ones kept below it (ids stay with the newest)
    out.querySelectorAll("[id]").forEach((node) => node.removeAttribute("id"));
    const answer = el("div", { class: "answer", id: "answer" });
    const status = el("p", { class: "meta", id: "ask-status" }, t("ask.working"));
    const cites = el("ol", { id: "citations" });
    // the evidence (the quotes after the conclusion, and the citations) in one box: open on a wide
    // screen, collapsed on a phone so that a typical answer's card fits one screen
    const quotes = el("div", { class: "answer quotes", id: "answer-quotes" });
    const evidenceCount = el("span", {}, "");
    const evidence = el("details", { class: "evidence", id: "ask-evidence" },
      el("summary", {}, el("span", { i18n: "ask.evidence" }), " ", evidenceCount), quotes, cites);
    evidence.open = !window.matchMedia(NARROW).matches;
    const asked = el("p", { class: "question" }, el("span", { class: "meta" }, `${t("ask.question")}: `), q);
    const card = el("div", { class: "card", id: "ask-latest" }, asked, status, answer, evidence);
    out.prepend(card);
    const collection = select.value;
    try {
      await stream(`/api/collections/${collection}/ask/stream`, { question: q }, (kind, data) => {
        if (kind === "status") status.textContent = stageText(data);
        else if (kind === "answer") answer.append(data.delta);
        else if (kind === "citations") {
          // a quote the answer already shows word for word is not printed again: the citation
          // names its place and opens the clause (a model's answer quotes nothing, so its
          // citations show their quotes)
          const shown = answer.textContent.split(/\s+/).join("");
          cites.replaceChildren(...data.citations.map((c) => {
            const quoted = shown.includes(c.quote.split(/\s+/).join(""));
            return el("li", { "data-quoted": quoted ? "answer" : "here" },
              el("button", { class: "cite", "data-chunk": c.chunk_id, onclick: () => openClause(collection, c.chunk_id, c.quote) },
                `[${c.n}] ${c.insurer ? `${c.insurer} · ` : ""}${c.doc_name}${c.page ? ` · ${t("clause.page_short", { page: c.page })}` : ""}${c.heading ? ` · ${c.heading}` : ""}`),
              ...(quoted ? [] : [el("div", { class: "meta" }, `“${c.quote.split(/\s+/).join(" ")}”`)]));
          }));
        } else if (kind === "done") {
          // an answer that leads with its conclusion shows it first; its quotes go with the evidence
          const text = answer.textContent;
          if (data.conclusion && text.startsWith(data.conclusion) && text.length > data.conclusion.length) {
            answer.textContent = data.conclusion;
            answer.classList.add("conclusion");
            quotes.textContent = text.slice(data.conclusion.length).trim();
          }
          evidenceCount.textContent = `(${cites.children.length})`;
          evidence.hidden = !cites.children.length && !quotes.textContent;
          status.textContent = t("ask.done", { by: byText(data.by), ms: Math.round(data.latency_ms), pipeline: has(`ask.pipeline.${data.pipeline}`) ? t(`ask.pipeline.${data.pipeline}`) : data.pipeline });
          card.dataset.outcome = data.outcome;
          // the banner says why (the answer's reason, in the language of the request)
          const why = data.reason_text ? ` (${data.reason_text})` : "";
          card.dataset.reason = data.reason || "";
          if (data.outcome === "refused") asked.after(el("div", { class: "refused", id: "refusal" }, t("ask.refused") + why));
          if (data.outcome === "partial") asked.after(el("div", { class: "partial" }, t("ask.partial") + why));
          // sentences of the passages that address the reader or a model: named, never part of the answer
          if (data.instructions && data.instructions.length) {
            card.append(el("div", { class: "refused", id: "instructions-warning", role: "note" },
              t("ask.instructions", { n: data.instructions.length }),
              el("ul", {}, ...data.instructions.map((i) => el("li", { class: "meta" }, `${i.doc_name || i.doc}${i.page ? ` · ${t("clause.page_short", { page: i.page })}` : ""}: “${i.text}”`)))));
          }
        } else if (kind === "error") {
          card.append(errorBox(new Error(data.detail)));
        }
      });
    } catch (err) {
      card.append(errorBox(err));
    } finally {
      asking = false;
      update();
    }
  });

  root.append(el("div", { class: "card" },
    el("label", { class: "field" }, el("span", { i18n: "ask.collection" }), select),
    el("label", { class: "field stack" }, el("span", { i18n: "ask.question" }), question),
    el("div", { class: "actions" }, go, hint)), out);
  state.onCollections();
}

const NARROW = "(max-width: 640px)"; // the phone layout of app.css

// who answered, in words: the rules' own names are internal ("units", "structure"); a model keeps its name
const BY = { rules: "ask.by_rules", units: "ask.by.units", structure: "ask.by.structure", scope: "ask.by.scope" };

function byText(by) {
  if (BY[by]) return t(BY[by]);
  if (/^units \(/.test(by || "")) return t("ask.by.which_rider"); // the list of riders the question's case falls under
  const quoted = /^(.*), (?:units )?quoted by rule$/.exec(by || "");
  return quoted ? t("ask.by.quoted", { model: quoted[1] }) : by;
}

function stageText(d) {
  const tpl = t(d.stage === "answering" && d.by === "rules" ? "ask.stage.quoting" : `ask.stage.${d.stage}`);
  return tpl.replace("{passages}", d.passages ?? "").replace("{by}", d.by ?? "").replace("{citations}", d.citations ?? "");
}
