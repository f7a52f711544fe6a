// The appeal page: register a policy (upload → ingest job), upload a denial notice (→ appeal job),
// then the analysis with every clause one click away.
import { getBlob, getJson, postForm, postJson, waitJob } from "./api.js";
import { t } from "./i18n.js";
import { el, errorBox, openClause, progressBox } from "./ui.js";

export function mountAppeal(root, state) {
  const select = el("select", { id: "policy-select" });
  const file = el("input", { type: "file", id: "policy-file", accept: ".pdf,.txt,.md,.docx,.html" });
  const name = el("input", { type: "text", id: "policy-name", placeholder: "kb-driver" });
  const policyProgress = progressBox();
  const policyMsg = el("div");
  const policyBtn = el("button", { class: "primary", id: "policy-go", i18n: "policy.go" });
  const noticeFile = el("input", { type: "file", id: "notice-file", accept: ".pdf,.txt,.md,.png,.jpg,.jpeg" });
  const analysis = el("select", { id: "analysis-mode" }, ...["auto", "rules", "llm"].map((a) => el("option", { value: a, i18n: `analysis.${a}` })));
  const noticeBtn = el("button", { class: "primary", id: "notice-go", i18n: "notice.go" });
  const noticeProgress = progressBox();
  const result = el("div", { id: "appeal-result" });

  async function refresh(selected) {
    const cols = await getJson("/api/collections");
    state.collections = cols;
    select.replaceChildren(...(cols.length ? cols.map((c) => el("option", { value: c.name }, `${c.title} (${c.name}, ${c.documents})`)) : [el("option", { value: "", i18n: "policy.none" })]));
    if (selected) select.value = selected;
    state.onCollections?.();
  }

  policyBtn.addEventListener("click", async () => {
    policyMsg.replaceChildren();
    const f = file.files[0];
    if (!f) return;
    const collection = (name.value.trim() || `policy-${Date.now().toString(36)}`).toLowerCase();
    policyBtn.disabled = true;
    try {
      if (!state.collections.some((c) => c.name === collection)) await postJson("/api/collections", { name: collection, title: f.name });
      const form = new FormData();
      form.append("file", f);
      const job = await postForm(`/api/collections/${collection}/documents`, form);
      const done = await waitJob(job.id, (j) => policyProgress.show(j));
      policyMsg.append(el("p", { class: "meta" }, `${done.result.name}: ${done.result.pages} p, ${done.result.chunks} chunks, ${done.result.seconds} s`));
      await refresh(collection);
    } catch (err) {
      policyMsg.append(errorBox(err));
    } finally {
      policyBtn.disabled = false;
    }
  });

  noticeBtn.addEventListener("click", async () => {
    result.replaceChildren();
    const f = noticeFile.files[0];
    if (!f || !select.value) return;
    noticeBtn.disabled = true;
    try {
      const form = new FormData();
      form.append("notice", f);
      form.append("analysis", analysis.value);
      const job = await postForm(`/api/collections/${select.value}/appeals`, form);
      const done = await waitJob(job.id, (j) => noticeProgress.show(j));
      renderAnalysis(result, done.result, done.id);
    } catch (err) {
      result.append(errorBox(err));
    } finally {
      noticeBtn.disabled = false;
    }
  });

  root.append(
    el("div", { class: "card" }, el("h2", { i18n: "policy.title" }),
      el("label", { class: "field" }, el("span", { i18n: "policy.existing" }), select),
      el("label", { class: "field" }, el("span", { i18n: "policy.upload" }), file),
      el("label", { class: "field" }, el("span", { i18n: "policy.name" }), name),
      policyBtn, policyProgress.node, policyMsg),
    el("div", { class: "card" }, el("h2", { i18n: "notice.title" }),
      el("label", { class: "field" }, el("span", { i18n: "notice.file" }), noticeFile),
      el("label", { class: "field" }, el("span", { i18n: "notice.analysis" }), analysis),
      noticeBtn, noticeProgress.node),
    result,
  );
  return refresh();
}

// as the rationale writes it: a decimal only where whole percents would round onto a band's threshold
function percent(p) {
  const near = [0.25, 0.6].some((th) => Math.abs(p - th) < 0.005 && (p < th) !== (Math.round(p * 100) / 100 < th));
  return `${(p * 100).toFixed(near ? 2 : 0)}%`;
}

function citeButton(collection, prov) {
  const label = `${prov.yakgwan} ${prov.article}${prov.page ? ` · p.${prov.page}` : ""}`;
  return el("button", { class: "cite", "data-chunk": prov.chunk_id, onclick: () => openClause(collection, prov.chunk_id, prov.quote) }, label);
}

function byMark(item) {
  return item.by === "llm" ? el("span", { class: "meta" }, ` ${t("result.by_llm")}`) : null;
}

export function renderAnalysis(root, r, jobId) {
  const d = r.denial, sp = r.success_probability;
  const collection = r.collection;
  const issues = r.issue_tree.map((issue, i) => el("li", {},
    el("strong", {}, issue.reason),
    el("div", { class: "meta" }, `${t("result.cited")}: `, ...(r.retrieval[i]?.cited || []).map((c) => `${c.yakgwan || c.as_written} ${c.article || ""} (${c.found ? t("result.found") : t("result.notfound")}) `)),
    el("ul", {}, ...issue.sub_issues.map((s) => el("li", {}, el("span", { class: "kind" }, s.kind), s.question, byMark(s)))),
  ));
  const gaps = el("table", {}, el("thead", {}, el("tr", {}, el("th", { i18n: "result.requirement" }), el("th", { i18n: "result.shown" }), el("th", { i18n: "result.to_close" }))),
    el("tbody", {}, ...r.gap_analysis.map((g) => el("tr", {}, el("td", {}, g.requirement), el("td", {}, g.shown), el("td", {}, g.to_close, byMark(g))))));
  const evidence = el("ol", {}, ...r.evidence_pack.map((e) => el("li", {}, e.claim, " ", citeButton(collection, e.provenance), byMark(e))));
  const findings = (r.findings || []).filter((f) => f.notice || f.policy).map((f) => el("li", { class: "finding" },
    el("details", {},
      el("summary", {}, el("span", { class: "kind" }, t(`finding.${f.kind}`) === `finding.${f.kind}` ? f.kind : t(`finding.${f.kind}`)),
        ` ${f.weight ? `${t("result.moved")} ${f.weight > 0 ? "+" : ""}${f.weight.toFixed(1)}` : t("result.stated")} · `, f.text, byMark(f)),
      el("div", { class: "both" },
        f.notice ? el("blockquote", {}, el("strong", {}, `${t("result.notice_says")}: `), f.notice) : null,
        f.policy ? el("blockquote", {}, el("strong", {}, `${t("result.policy_says")}: `), f.policy.quote, " ", citeButton(collection, f.policy)) : null,
        f.diff ? el("p", { class: "diff" }, `${t("result.diff")}: `, ...f.diff.map((d) => d.op === "same" ? d.text : el(d.op === "policy_only" ? "del" : "ins", {}, d.text))) : null,
      ))));
  const checks = (r.checks || []).map((c) => el("li", { class: `check ${c.status}` },
    el("span", { class: "kind" }, t(`check.${c.check}`)), " ", el("strong", {}, t(`check.status.${c.status}`)),
    c.by ? el("span", { class: "meta" }, ` ${c.by}`) : null, ` — ${c.note}`,
    c.notice ? el("blockquote", {}, el("strong", {}, `${t("result.notice_says")}: `), c.notice) : null,
    c.policy ? el("blockquote", {}, el("strong", {}, `${t("result.policy_says")}: `), c.policy.quote, " ", citeButton(collection, c.policy)) : null));
  const downloads = ["pdf", "html", "md"].map((fmt) => el("button", { class: "link", "data-fmt": fmt, onclick: () => download(jobId, fmt) }, fmt.toUpperCase()));
  root.replaceChildren(
    el("div", { class: "card", id: "analysis" },
      el("h2", { i18n: "result.title" }),
      el("p", { class: "meta" }, `${t("result.denial")}: ${r.notice_name} · ${d.insurer || "?"} · ${d.product || "?"} · ${d.claim_items.join(", ")}`),
      el("h3", { i18n: "result.band" }), el("p", {}, el("span", { class: `band ${sp.band}`, id: "band" }, sp.band), ` ${percent(sp.probability)}`),
      el("p", {}, sp.rationale),
      findings.length ? [el("h3", { i18n: "result.findings" }), el("ul", { class: "findings" }, ...findings)] : null,
      checks.length ? [el("h3", { i18n: "result.checks" }), el("ul", { class: "checks", id: "checks" }, ...checks)] : null,
      el("h3", { i18n: "result.issues" }), el("ol", { class: "tree" }, ...issues),
      el("h3", { i18n: "result.gaps" }), gaps,
      el("h3", { i18n: "result.actions" }), el("ul", {}, ...r.recommended_actions.map((a) => el("li", {}, typeof a === "string" ? a : a.action || JSON.stringify(a)))),
      el("h3", { i18n: "result.documents" }), el("ul", { class: "checklist" }, ...r.documents_to_collect.map((doc) => el("li", {}, el("label", {}, el("input", { type: "checkbox" }), ` ${doc}`)))),
      el("h3", { i18n: "result.evidence" }), evidence,
      el("p", {}, el("span", { i18n: "result.download" }), ": ", ...downloads.flatMap((b) => [b, " "])),
      r.notes.length ? el("p", { class: "meta" }, `${t("result.notes")}: ${r.notes.join(" · ")}`) : null,
      el("p", { class: "meta" }, `analysis: ${r.analysis_by} · metrics: ${Object.entries(r.metrics).map(([k, v]) => `${k}=${v.toFixed(2)}`).join(" ")}`),
    ),
  );
}

async function download(jobId, fmt) {
  const blob = await getBlob(`/api/appeals/${jobId}/pack.${fmt}`);
  const a = el("a", { href: URL.createObjectURL(blob), download: `evidence-pack.${fmt}` });
  document.body.append(a);
  a.click();
  a.remove();
}
