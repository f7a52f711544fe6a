// The workbench: pick a dataset and pipelines, run, watch progress, then the side-by-side table,
// bar charts overall and per category, latency per stage, and the map of chunk embeddings.
import { getBlob, getJson, postJson, waitJob } from "./api.js";
import { currentLang, onLangChange, t } from "./i18n.js";
import { barChart, legend, scatter } from "./charts.js";
import { el, errorBox, progressBox } from "./ui.js";

const METRICS = ["mrr", "ndcg", "precision", "recall", "keyword_coverage"];
const DEFAULT_ON = new Set(["bm25", "dense", "hybrid", "hybrid_cc"]);

export async function mountWorkbench(root, state) {
  const [datasets, pipelines] = await Promise.all([getJson("/api/datasets"), getJson("/api/pipelines")]);
  // a set that cannot be read is listed, greyed out, with why (its file's problem)
  const dataset = el("select", { id: "wb-dataset" }, ...datasets.map((d) => d.problem
    ? el("option", { value: d.name, disabled: true, title: d.problem }, `${d.name} (${t("wb.unreadable")})`)
    : el("option", { value: d.name }, `${d.name} (${d.format}, ${d.questions})`)));
  // a pipeline that needs an LLM runs its labelled fallback when none is connected: said beside it
  const llmOn = state?.health && state.health.llm_provider !== "none";
  const boxes = pipelines.map((p) => el("label", { title: p.description },
    el("input", { type: "checkbox", value: p.name, checked: DEFAULT_ON.has(p.name) }), ` ${p.name}`,
    p.needs_llm ? el("span", { class: "meta", i18n: llmOn ? "wb.llm" : "wb.llm_fallback" }) : null));
  // what each pipeline does, in words a phone shows too (a box's title shows only on hover)
  const about = el("dl", { id: "wb-about", class: "about" });
  const describe = (list) => about.replaceChildren(...list.flatMap((p) => [el("dt", {}, p.name), el("dd", {}, p.description)]));
  describe(pipelines);
  const k = el("input", { type: "number", id: "wb-k", value: "10", min: "1", max: "50" });
  const limit = el("input", { type: "number", id: "wb-limit", value: "", min: "1" });
  const go = el("button", { type: "button", class: "primary", id: "wb-go", i18n: "wb.go" });
  const prog = progressBox();
  const out = el("div", { id: "wb-result" });
  let last = null; // the results on screen, drawn again when the language changes
  onLangChange(async () => {
    // the results' notes and the pipelines' descriptions come from the server in the reader's
    // language: read them again; what a later toggle or run asked for wins
    const asked = currentLang();
    const id = last?.id;
    const [fresh, pipes] = await Promise.all([
      id ? getJson(`/api/jobs/${encodeURIComponent(id)}`).catch(() => null) : null,
      getJson("/api/pipelines").catch(() => null),
    ]);
    if (currentLang() !== asked) return;
    if (pipes) {
      const described = new Map(pipes.map((p) => [p.name, p.description]));
      boxes.forEach((b) => { b.title = described.get(b.querySelector("input").value) || ""; });
      describe(pipes);
    }
    if (id && last?.id === id) {
      if (fresh?.result) last = fresh;
      renderResults(out, last);
    }
  });

  go.addEventListener("click", async () => {
    const chosen = boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value);
    if (!chosen.length) return;
    go.disabled = true;
    out.replaceChildren();
    last = null; // the previous run's results are gone from the screen: a toggle does not draw them back
    try {
      const body = { dataset: dataset.value, pipelines: chosen, k: Number(k.value) || 10 };
      if (limit.value.trim()) body.limit = Number(limit.value);
      const job = await postJson("/api/evals", body);
      const done = await waitJob(job.id, (j) => prog.show(j));
      last = done;
      await renderResults(out, done);
    } catch (err) {
      out.append(errorBox(err));
    } finally {
      go.disabled = false;
    }
  });

  root.append(el("div", { class: "card" },
    el("p", { class: "meta", i18n: "wb.intro" }),
    el("label", { class: "field" }, el("span", { i18n: "wb.dataset" }), dataset),
    el("h2", { i18n: "wb.pipelines" }), el("div", { class: "pipelines" }, ...boxes),
    el("details", { class: "about-box" }, el("summary", { i18n: "wb.about_pipelines" }), about),
    el("label", { class: "field" }, el("span", { i18n: "wb.k" }), k),
    el("label", { class: "field" }, el("span", { i18n: "wb.limit" }), limit),
    go, prog.node), out);
}

// what the LLM work cost when it was done: cache hits at the time they took ("untimed": cached before times were kept)
function recordedCost(llm) {
  if (!llm || llm.ms_per_q_as_recorded === undefined) return "—";
  const untimed = llm.cached_untimed ? ` (${llm.cached_untimed} ${t("wb.untimed")})` : "";
  return `${fmt(llm.ms_per_q_as_recorded, 0)}${untimed}`;
}

// a metric's short name and what it means, in the reader's language (every metric here: higher is better)
function metricName(m, k) { return t(`wb.metric.${m}`, { k }); }
function metricHelp(m, k) { return `${t(`wb.help.${m}`, { k })} · ${t("wb.higher_better")}`; }

function fmt(v, digits = 4) { return v === null || v === undefined ? "—" : Number(v).toFixed(digits); }

async function renderResults(root, job) {
  const results = job.result.results;
  const names = results.map((r) => r.pipeline);
  const metrics = METRICS.filter((m) => results.some((r) => r.metrics[m] !== undefined));
  const k = results[0].k;
  const table = el("table", { id: "wb-table" },
    el("thead", {}, el("tr", {}, el("th", { i18n: "wb.pipeline" }), ...metrics.map((m) => el("th", { class: "num", title: metricHelp(m, k), "data-metric": m }, metricName(m, k), el("small", { class: "higher" }, ` ↑`))),
      el("th", { class: "num" }, "p50 ms"), el("th", { class: "num" }, "p95 ms"), el("th", { class: "num", i18n: "wb.calls" }),
      el("th", { class: "num", i18n: "wb.recorded" }))),
    el("tbody", {}, ...results.map((r) => el("tr", {}, el("td", {}, r.pipeline, r.note ? el("div", { class: "meta" }, r.note) : null),
      ...metrics.map((m) => el("td", { class: "num" }, fmt(r.metrics[m]))),
      el("td", { class: "num" }, fmt(r.latency_ms.p50, 1)), el("td", { class: "num" }, fmt(r.latency_ms.p95, 1)),
      el("td", { class: "num" }, r.llm ? t("wb.calls_cached", { calls: r.llm.calls, cached: r.llm.cache_hits }) : "0"),
      el("td", { class: "num" }, recordedCost(r.llm))))));
  const overall = barChart(metrics.map((m) => ({ label: t(`wb.short.${m}`, { k }), values: results.map((r) => r.metrics[m] ?? null) })), names, { max: 1, label: t("wb.overall") });
  const metricPick = el("select", { id: "wb-metric", i18nLabel: "wb.bycat_metric" }, ...metrics.map((m) => el("option", { value: m }, metricName(m, k))));
  // what each figure means, shown under the table (a header's title shows only on hover)
  const explained = el("details", { class: "about-box", id: "wb-metrics" }, el("summary", { i18n: "wb.metrics_about" }),
    el("dl", { class: "about" }, ...metrics.flatMap((m) => [el("dt", {}, metricName(m, k)), el("dd", {}, metricHelp(m, k))])));
  const catBox = el("div", { class: "chart", id: "wb-bycat" });
  const drawCats = () => {
    const cats = [...new Set(results.flatMap((r) => Object.keys(r.by_category || {})))].sort();
    catBox.replaceChildren(cats.length ? barChart(cats.map((c) => ({ label: c, values: results.map((r) => r.by_category?.[c]?.[metricPick.value] ?? null) })), names, { max: 1, label: `${t("wb.bycat")} · ${metricName(metricPick.value, k)}` }) : el("p", { class: "meta" }, "—"));
  };
  metricPick.addEventListener("change", drawCats);
  drawCats();
  const stages = [...new Set(results.flatMap((r) => Object.keys(r.stage_ms || {}).filter((s) => s !== "total")))];
  const latency = barChart(stages.map((s) => ({ label: s, values: results.map((r) => r.stage_ms?.[s] ?? null) })), names, { digits: 1, label: t("wb.latency") });
  const mapBox = el("div", { class: "chart", id: "wb-map" });
  // where the figures come from, in words (the request itself is in the full report)
  const when = results[0].measured_at ? new Date(results[0].measured_at).toLocaleDateString(currentLang() === "en" ? "en-GB" : "ko-KR") : "—";
  const source = t("wb.source_line", { dataset: results[0].dataset, when, machine: results[0].machine || "—" });
  root.replaceChildren(el("div", { class: "card" },
    el("h2", { i18n: "wb.results" }), el("div", { class: "scroll", tabindex: "0", role: "region", i18nLabel: "wb.results" }, table), explained, el("p", { class: "meta", id: "wb-source" }, source),
    el("p", {}, el("button", { class: "link", id: "wb-report", i18n: "wb.report", onclick: () => openReport(job.id) })),
    el("div", { class: "charts" },
      el("div", { class: "chart", id: "wb-overall" }, el("h3", { i18n: "wb.overall" }), overall, legend(names)),
      el("div", {}, el("h3", {}, el("span", { i18n: "wb.bycat" }), " · ", metricPick), catBox, legend(names)),
      el("div", { class: "chart", id: "wb-latency" }, el("h3", { i18n: "wb.latency" }), latency, legend(names)),
      el("div", {}, el("h3", { i18n: "wb.map" }), mapBox))));
  try {
    const m = await getJson(`/api/datasets/${encodeURIComponent(job.result.dataset)}/map`);
    const { svg, types } = scatter(m.points, 520, t("wb.map"));
    mapBox.replaceChildren(svg, legend(types), el("p", { class: "meta" }, `${m.method} · ${m.source}`));
  } catch (err) {
    mapBox.replaceChildren(errorBox(err));
  }
}

// fetched with the API key (a plain link could not send it), then shown in a new tab
async function openReport(jobId) {
  const blob = await getBlob(`/api/evals/${jobId}/report.html`);
  window.open(URL.createObjectURL(new Blob([blob], { type: "text/html" })), "_blank");
}
