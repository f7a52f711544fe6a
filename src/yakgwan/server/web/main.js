// Tabs, language, API key, settings, and the three pages.
import { getJson } from "./api.js";
import { applyLang, loadMessages, onLangChange, t, toggleLang } from "./i18n.js";
import { mountAppeal } from "./appeal.js";
import { mountAsk } from "./ask.js";
import { mountWorkbench } from "./workbench.js";
import { closeClause, el, errorBox } from "./ui.js";

const state = { collections: [], health: null };
const mounted = {};

function show(page) {
  document.querySelectorAll(".page").forEach((p) => { p.hidden = p.id !== `page-${page}`; });
  document.querySelectorAll(".tab").forEach((b) => {
    b.classList.toggle("active", b.dataset.page === page);
    if (b.dataset.page === page) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
  });
  if (!mounted[page]) {
    const root = document.getElementById(`page-${page}`);
    const work = page === "workbench" ? mountWorkbench(root, state) : Promise.resolve();
    mounted[page] = work.then(() => { applyLang(root); root.dataset.ready = "1"; }).catch((err) => root.append(errorBox(err)));
  }
  if (location.hash !== `#${page}`) history.replaceState(null, "", `#${page}`);
}

// What this server runs with, and how to connect a served model: set on the server, never here
// (a key is not sent to the browser, nor kept in it).
function renderSettings() {
  const h = state.health;
  const body = document.getElementById("settings-body");
  if (!h) return;
  const llm = h.llm_provider === "none" ? t("settings.llm_none") : h.llm;
  body.replaceChildren(
    el("dl", { class: "facts" },
      el("dt", { i18n: "settings.embedder" }), el("dd", {}, h.embedder),
      el("dt", { i18n: "settings.llm" }), el("dd", { id: "settings-llm" }, llm),
      el("dt", { i18n: "settings.version" }), el("dd", {}, h.version)),
    el("h3", { i18n: "settings.connect" }),
    el("p", { i18n: "settings.connect_how" }),
    el("pre", { class: "code" }, "YAKGWAN_LLM=openai\nYAKGWAN_LLM_BASE_URL=https://…/v1\nYAKGWAN_LLM_MODEL=…\nYAKGWAN_LLM_API_KEY=…\nbash scripts/serve.sh"),
    el("p", { i18n: "settings.local_how" }),
    el("pre", { class: "code" }, "YAKGWAN_LLM=local bash scripts/serve.sh"),
    el("p", { class: "meta", i18n: "settings.keys" }),
    el("p", { class: "meta" }, el("a", { href: "/api/docs" }, "API"), " · docs/configuration.md"),
  );
}

function openSettings() {
  renderSettings();
  const box = document.getElementById("settings");
  box.hidden = false;
  document.getElementById("settings-close").focus();
}

function closeSettings() {
  const box = document.getElementById("settings");
  if (box.hidden) return;
  box.hidden = true;
  document.getElementById("settings-open").focus();
}

// Tab and Shift+Tab go round the open dialog's controls, never behind it
function keepFocusInDialog(e) {
  if (e.key !== "Tab") return;
  const open = [...document.querySelectorAll(".drawer")].find((d) => !d.hidden);
  if (!open) return;
  const items = [...open.querySelectorAll("button, a[href], input, select, textarea, [tabindex]:not([tabindex='-1'])")].filter((n) => !n.disabled && n.offsetParent !== null);
  if (!items.length) return;
  const first = items[0], last = items[items.length - 1];
  if (!open.contains(document.activeElement)) { first.focus(); e.preventDefault(); }
  else if (e.shiftKey && document.activeElement === first) { last.focus(); e.preventDefault(); }
  else if (!e.shiftKey && document.activeElement === last) { first.focus(); e.preventDefault(); }
}

async function start() {
  await loadMessages();
  applyLang();
  document.getElementById("lang").addEventListener("click", toggleLang);
  document.getElementById("clause-close").addEventListener("click", closeClause);
  document.getElementById("clause").addEventListener("click", (e) => { if (e.target.id === "clause") closeClause(); });
  document.getElementById("settings-open").addEventListener("click", openSettings);
  document.getElementById("settings-close").addEventListener("click", closeSettings);
  document.getElementById("settings").addEventListener("click", (e) => { if (e.target.id === "settings") closeSettings(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") { closeClause(); closeSettings(); } });
  document.addEventListener("keydown", keepFocusInDialog);
  onLangChange(renderSettings);
  state.health = await getJson("/api/health");
  if (state.health.auth) {
    const box = document.getElementById("key-box");
    const input = document.getElementById("api-key");
    box.hidden = false;
    input.value = sessionStorage.getItem("yakgwan.key") || "";
    input.addEventListener("change", () => { sessionStorage.setItem("yakgwan.key", input.value); location.reload(); });
  }
  document.querySelectorAll(".tab").forEach((b) => b.addEventListener("click", () => show(b.dataset.page)));
  const ask = document.getElementById("page-ask");
  const appeal = document.getElementById("page-appeal");
  mountAsk(ask, state);
  mounted.ask = Promise.resolve().then(() => { ask.dataset.ready = "1"; });
  mounted.appeal = mountAppeal(appeal, state).then(() => { appeal.dataset.ready = "1"; }).catch((err) => appeal.append(errorBox(err)));
  applyLang();
  const first = (location.hash || "#appeal").slice(1);
  show(["appeal", "ask", "workbench"].includes(first) ? first : "appeal");
}

start().catch((err) => document.querySelector("main").prepend(errorBox(err)));
