// The appeal page: register a policy (upload → ingest job), upload a denial notice (→ appeal job),
// then the analysis with every clause one click away. A notice whose reason is not recognised is
// shown sentence by sentence: the reader marks the reason (or types it) and the analysis runs.
import { deleteJson, getBlob, getJson, postForm, postJson, waitJob } from "./api.js";
import { currentLang, has, onLangChange, t } from "./i18n.js";
import { el, errorBox, fileInput, openClause, progressBox, setHint } from "./ui.js";
import { outlineView } from "./outline.js";

export function mountAppeal(root, state) {
  const select = el("select", { id: "policy-select" });
  const policyPick = fileInput("policy-file", ".pdf,.txt,.md,.docx,.html");
  const file = policyPick.input;
  const name = el("input", { type: "text", id: "policy-name", i18nPlaceholder: "policy.name_placeholder", maxlength: "200" });
  const policyProgress = progressBox();
  const policyMsg = el("div", { id: "policy-msg" });
  const policyBtn = el("button", { type: "button", class: "primary", id: "policy-go", i18n: "policy.go", "aria-describedby": "policy-hint" });
  const policyHint = el("p", { class: "hint", id: "policy-hint" });
  const noticePick = fileInput("notice-file", ".pdf,.txt,.md,.png,.jpg,.jpeg");
  const noticeFile = noticePick.input;
  const llmOn = state.health && state.health.llm_provider !== "none";
  const modes = llmOn ? ["auto", "rules", "llm"] : ["rules"];
  const analysis = el("select", { id: "analysis-mode" }, ...modes.map((a) => el("option", { value: a, i18n: `analysis.${a}` })));
  const analysisNote = el("p", { class: "meta", id: "analysis-note", i18n: llmOn ? "analysis.llm_on" : "analysis.llm_off" });
  const noticeBtn = el("button", { type: "button", class: "primary", id: "notice-go", i18n: "notice.go", "aria-describedby": "notice-hint" });
  const noticeHint = el("p", { class: "hint", id: "notice-hint" });
  const noticeProgress = progressBox();
  const result = el("div", { id: "appeal-result" });
  const outline = outlineView(() => select.value); // what the index read of the chosen policy
  let shown = null; // the analysis on screen, drawn again when the language changes
  const busy = { policy: false, notice: false }; // a job of that card is running: its button waits

  function drawSelect(selected) {
    const cols = state.collections;
    const keep = selected ?? select.value;
    select.replaceChildren(...(cols.length
      ? cols.map((c) => el("option", { value: c.name }, `${c.title} · ${c.busy && !c.documents ? t("policy.indexing") : t(c.documents === 1 ? "policy.docs_one" : "policy.docs", { n: c.documents })}`))
      : [el("option", { value: "", i18n: "policy.none" })]));
    if (keep && cols.some((c) => c.name === keep)) select.value = keep;
  }

  async function refresh(selected) {
    state.collections = await getJson("/api/collections");
    drawSelect(selected);
    state.onCollections?.();
    updateButtons();
  }

  // an ingest job followed to its end: its progress (and cancel), then what it did, in words
  async function followIngest(jobId) {
    const done = await waitJob(jobId, (j) => policyProgress.show(j));
    const r = done.result;
    // the same file again: nothing was indexed, and the message says so (not "0 pieces indexed")
    const said = r.unchanged && !r.added && !r.replaced ? t("policy.unchanged", { name: r.name })
      : r.pages ? t("policy.ingested", { name: r.name, pages: r.pages, chunks: r.chunks, seconds: r.seconds })
      : t("policy.ingested_text", { name: r.name, chunks: r.chunks, seconds: r.seconds });
    policyMsg.append(el("p", { class: "meta", role: "status" }, said));
    (r.warnings || []).forEach((w) => policyMsg.append(el("p", { class: "meta warn" }, w)));
  }

  // a page opened (or refreshed) while an ingest runs: its progress and cancel come back, and the
  // collection it fills is chosen (not shown as an empty one to upload into again)
  async function resumeIngest() {
    const jobs = await getJson("/api/jobs").catch(() => []);
    const live = jobs.find((j) => j.kind === "ingest" && (j.status === "queued" || j.status === "running"));
    if (!live || busy.policy) return;
    busy.policy = true;
    drawSelect(live.collection);
    updateButtons();
    policyMsg.replaceChildren(el("p", { class: "meta", id: "policy-resumed" }, t("policy.resumed")));
    try {
      await followIngest(live.id);
    } catch (err) {
      policyMsg.append(errorBox(err));
    } finally {
      busy.policy = false;
      await refresh(live.collection).catch((err) => policyMsg.append(errorBox(err)));
      outline.refresh();
    }
  }

  function updateButtons() {
    const picked = state.collections.find((c) => c.name === select.value);
    policyBtn.disabled = busy.policy || !file.files[0];
    outline.button.disabled = !picked || !picked.documents;
    setHint(policyHint, file.files[0] || busy.policy ? null : "policy.need_file");
    const missing = !picked || !picked.documents ? "notice.need_policy" : !noticeFile.files[0] ? "notice.need_file" : null;
    noticeBtn.disabled = busy.notice || missing !== null;
    setHint(noticeHint, busy.notice ? null : missing);
  }
  [file, noticeFile, select].forEach((n) => n.addEventListener("change", updateButtons));

  policyBtn.addEventListener("click", async () => {
    policyMsg.replaceChildren();
    const f = file.files[0];
    if (!f || busy.policy) return;
    busy.policy = true;
    updateButtons();
    let made = null; // a collection made for this upload: removed again if the upload fails
    let collection = null;
    try {
      // a title given: a new collection; none: the chosen one, or a new one named after the file
      const title = name.value.trim();
      collection = title ? null : select.value || null;
      if (!collection) collection = made = (await postJson("/api/collections", { title: title || f.name })).name;
      const form = new FormData();
      form.append("file", f);
      const job = await postForm(`/api/collections/${encodeURIComponent(collection)}/documents`, form);
      await followIngest(job.id);
      name.value = "";
      made = null;
    } catch (err) {
      policyMsg.append(errorBox(err));
      // the collection made for this upload goes again when nothing landed in it; kept (and
      // chosen) when it could not be removed or a document did land
      if (made && await deleteJson(`/api/collections/${encodeURIComponent(made)}`).then(() => true, () => false)) collection = null;
    } finally {
      busy.policy = false;
      await refresh(collection).catch((err) => policyMsg.append(errorBox(err)));
      outline.refresh();
      updateButtons();
    }
  });

  async function runAppeal(reasons = []) {
    result.replaceChildren();
    shown = null;
    const f = noticeFile.files[0];
    if (!f || !select.value || busy.notice) return;
    busy.notice = true;
    updateButtons();
    try {
      const form = new FormData();
      form.append("notice", f);
      form.append("analysis", analysis.value);
      reasons.forEach((r) => form.append("reasons", r));
      const job = await postForm(`/api/collections/${encodeURIComponent(select.value)}/appeals`, form);
      const done = await waitJob(job.id, (j) => noticeProgress.show(j));
      shown = { r: done.result, id: done.id };
      renderAnalysis(result, done.result, done.id);
    } catch (err) {
      if (err.job?.error_kind === "no-reason" && err.job.details?.sentences) renderReasonPicker(result, err, err.job.details.sentences, runAppeal);
      else result.append(errorBox(err));
    } finally {
      busy.notice = false;
      updateButtons();
    }
  }
  noticeBtn.addEventListener("click", () => runAppeal());

  onLangChange(async () => {
    drawSelect();
    if (!shown) return;
    // the analysis's notes come from the server in the reader's language: read the job again
    const id = shown.id;
    const asked = currentLang();
    const fresh = await getJson(`/api/jobs/${encodeURIComponent(id)}`).catch(() => null);
    if (shown?.id !== id || currentLang() !== asked) return; // another analysis, or another toggle, came meanwhile
    if (fresh?.result) shown = { r: fresh.result, id };
    renderAnalysis(result, shown.r, id);
  });

  root.append(
    el("div", { class: "card" }, el("h2", { i18n: "policy.title" }),
      el("p", { class: "meta", i18n: "policy.intro" }),
      el("label", { class: "field" }, el("span", { i18n: "policy.existing" }), select),
      el("p", {}, outline.button),
      el("label", { class: "field" }, el("span", { i18n: "policy.upload" }), policyPick.node),
      el("label", { class: "field" }, el("span", { i18n: "policy.name" }), name),
      el("div", { class: "actions" }, policyBtn, policyHint), policyProgress.node, policyMsg),
    outline.node,
    el("div", { class: "card" }, el("h2", { i18n: "notice.title" }),
      el("label", { class: "field" }, el("span", { i18n: "notice.file" }), noticePick.node),
      el("label", { class: "field" }, el("span", { i18n: "notice.analysis" }), analysis),
      analysisNote,
      el("div", { class: "actions" }, noticeBtn, noticeHint), noticeProgress.node),
    result,
  );
  return refresh().then(() => { resumeIngest(); });
}

// The notice's sentences, to mark the reason among them, and a box to type it.
function renderReasonPicker(root, err, sentences, rerun) {
  const boxes = sentences.map((s, i) => el("li", {}, el("label", {}, el("input", { type: "checkbox", value: s, id: `reason-${i}` }), ` ${s}`)));
  const typed = el("textarea", { id: "reason-typed", i18nPlaceholder: "reason.typed_placeholder", rows: "3" });
  const go = el("button", { type: "button", class: "primary", id: "reason-go", i18n: "reason.go", "aria-describedby": "reason-hint" });
  const hint = el("p", { class: "hint", id: "reason-hint" });
  const chosen = () => [...boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value), typed.value.trim()].filter(Boolean);
  const update = () => { const none = !chosen().length; go.disabled = none; setHint(hint, none ? "reason.need" : null); };
  boxes.forEach((b) => b.querySelector("input").addEventListener("change", update));
  typed.addEventListener("input", update);
  go.addEventListener("click", () => rerun(chosen()));
  root.replaceChildren(el("div", { class: "card", id: "reason-picker" },
    el("h2", { i18n: "reason.title" }),
    el("p", { class: "error", role: "alert" }, err.message),
    el("p", { i18n: "reason.how" }),
    el("ul", { class: "sentences" }, ...boxes),
    el("label", { class: "field stack" }, el("span", { i18n: "reason.typed" }), typed),
    el("div", { class: "actions" }, go, hint)));
  update();
}

function citeButton(collection, prov) {
  const label = `${prov.yakgwan} ${prov.article}${prov.page ? ` · ${t("clause.page_short", { page: prov.page })}` : ""}`;
  return el("button", { type: "button", class: "cite", "data-chunk": prov.chunk_id, onclick: () => openClause(collection, prov.chunk_id, prov.quote) }, label);
}

function byMark(item) {
  return item.by === "llm" ? el("span", { class: "meta" }, ` ${t("result.by_llm")}`) : null;
}

// a key of a family, or the raw value where the catalogue has no words for it yet
function named(prefix, value) {
  return has(`${prefix}${value}`) ? t(`${prefix}${value}`) : value;
}

// 이의신청_근거자료_<특약>_<사고일>.pdf: named from the case, characters a file name cannot hold left out
// a download's name, as the server names the case (이의신청서_<특약>_<사고일>); a result without it: the job id
export function fileName(r, kind, fmt, jobId) {
  return `${(r.file_names || {})[kind] || `${kind}-${jobId}`}.${fmt}`;
}

function citedLine(c) {
  if (c.yakgwan) return `${c.yakgwan} ${c.article || ""} (${c.found ? t("result.found") : t("result.notfound")})`;
  return `${c.as_written} (${c.found ? t("result.found") : t("result.notfound_policy")})`;
}

export function renderAnalysis(root, r, jobId) {
  const d = r.denial, sp = r.success_probability;
  const collection = r.collection;
  const issues = r.issue_tree.map((issue, i) => {
    const laws = d.reasons?.[i]?.laws || [];
    return el("li", {},
      el("strong", {}, issue.reason),
      el("div", { class: "meta" }, `${t("result.cited")}: `, (r.retrieval[i]?.cited || []).map(citedLine).join(" · ") || "—"),
      laws.length ? el("div", { class: "meta" }, `${t("result.laws")}: ${laws.join(" · ")}`) : null,
      el("ul", {}, ...issue.sub_issues.map((s) => el("li", {}, el("span", { class: "kind" }, named("issue.kind.", s.kind)), " ", s.question, byMark(s)))),
    );
  });
  const gaps = el("div", { class: "scroll" }, el("table", {}, el("thead", {}, el("tr", {}, el("th", { i18n: "result.requirement" }), el("th", { i18n: "result.shown" }), el("th", { i18n: "result.to_close" }))),
    el("tbody", {}, ...r.gap_analysis.map((g) => el("tr", {}, el("td", {}, g.requirement), el("td", {}, g.shown), el("td", {}, g.to_close, byMark(g)))))));
  const evidence = el("ol", {}, ...r.evidence_pack.map((e) => el("li", {}, e.claim, " ", citeButton(collection, e.provenance), byMark(e))));
  const findings = (r.findings || []).filter((f) => f.notice || f.policy).map((f) => el("li", { class: "finding" },
    el("details", {},
      el("summary", {}, el("span", { class: "kind" }, named("finding.", f.kind)),
        ` ${t(`pack.effect.${f.effect}`)} · `, f.text, byMark(f)),
      el("div", { class: "both" },
        f.notice ? el("blockquote", {}, el("strong", {}, `${t("result.notice_says")}: `), f.notice) : null,
        f.policy ? el("blockquote", {}, el("strong", {}, `${t("result.policy_says")}: `), f.policy.quote, " ", citeButton(collection, f.policy)) : null,
        f.diff ? el("p", { class: "diff" }, `${t("result.diff")}: `, ...f.diff.map((x) => x.op === "same" ? x.text : el(x.op === "policy_only" ? "del" : "ins", {}, x.text))) : null,
      ))));
  const checks = (r.checks || []).map((c) => el("li", { class: `check ${c.status}` },
    el("span", { class: "kind" }, t(`check.${c.check}`)), " ", el("strong", {}, t(`check.status.${c.status}`)), ` — ${c.note}`,
    c.notice ? el("blockquote", {}, el("strong", {}, `${t("result.notice_says")}: `), c.notice) : null,
    c.policy ? el("blockquote", {}, el("strong", {}, `${t("result.policy_says")}: `), c.policy.quote, " ", citeButton(collection, c.policy)) : null));
  const downloads = ["pdf", "html", "md"].map((fmt) => el("button", { type: "button", class: "link", "data-fmt": fmt, onclick: () => download(jobId, r, "pack", fmt) }, t(`result.format.${fmt}`)));
  const letters = ["pdf", "docx", "md"].map((fmt) => el("button", { type: "button", class: "link", "data-letter": fmt, onclick: () => download(jobId, r, "letter", fmt) }, t(`result.format.${fmt}`)));
  const facts = [d.insurer, d.product, d.claim_items.join(", ")].filter(Boolean).join(" · ");
  root.replaceChildren(
    el("div", { class: "card", id: "analysis" },
      el("h2", { i18n: "result.title" }),
      el("p", { class: "meta" }, `${t("result.denial")}: ${r.notice_name}${facts ? ` · ${facts}` : ""}`),
      el("h3", { i18n: "result.band" }),
      // the band in the reader's words, its code (LOW/MEDIUM/HIGH) small beside them for a Korean reader
      el("p", {}, el("span", { class: `band ${sp.band}`, id: "band" }, el("span", { id: "band-words" }, t(`band.${sp.band}`)),
        currentLang() === "en" ? null : el("small", { class: "band-code", lang: "en" }, sp.band))),
      el("p", { class: "rationale" }, sp.rationale),
      findings.length ? [el("h3", { i18n: "result.findings" }), el("ul", { class: "findings" }, ...findings)] : null,
      checks.length ? [el("h3", { i18n: "result.checks" }), el("ul", { class: "checks", id: "checks" }, ...checks)] : null,
      el("h3", { i18n: "result.issues" }), el("ol", { class: "tree" }, ...issues),
      el("h3", { i18n: "result.gaps" }), gaps,
      el("h3", { i18n: "result.actions" }), el("ul", {}, ...r.recommended_actions.map((a) => el("li", {}, typeof a === "string" ? a : a.action || JSON.stringify(a)))),
      el("h3", { i18n: "result.documents" }), el("ul", { class: "checklist" }, ...r.documents_to_collect.map((doc) => el("li", {}, el("label", {}, el("input", { type: "checkbox" }), ` ${doc}`)))),
      el("h3", { i18n: "result.evidence" }), evidence,
      el("h3", { i18n: "result.letter" }),
      el("p", { class: "meta", i18n: "result.letter_how" }),
      el("p", { id: "letters" }, el("span", { i18n: "result.letter_download" }), ": ", ...letters.flatMap((b) => [b, " "])),
      el("p", {}, el("span", { i18n: "result.download" }), ": ", ...downloads.flatMap((b) => [b, " "])),
      r.notes.length ? el("p", { class: "meta" }, `${t("result.notes")}: ${r.notes.join(" · ")}`) : null,
      el("p", { class: "meta", id: "analysis-by" }, t(r.analysis_by === "rules" ? "result.by_rules" : "result.by_model", { model: r.analysis_by })),
    ),
  );
}

async function download(jobId, r, kind, fmt) {
  const blob = await getBlob(`/api/appeals/${jobId}/${kind}.${fmt}`);
  const a = el("a", { href: URL.createObjectURL(blob), download: fileName(r, kind, fmt, jobId) });
  document.body.append(a);
  a.click();
  a.remove();
}
