// Tabs, language, API key, and the three pages.
import { getJson } from "./api.js";
import { applyLang, toggleLang } from "./i18n.js";
import { mountAppeal } from "./appeal.js";
import { mountAsk } from "./ask.js";
import { mountWorkbench } from "./workbench.js";
import { closeClause, errorBox } from "./ui.js";

const state = { collections: [] };
const mounted = {};

function show(page) {
  document.querySelectorAll(".page").forEach((p) => { p.hidden = p.id !== `page-${page}`; });
  document.querySelectorAll(".tab").forEach((b) => b.classList.toggle("active", b.dataset.page === page));
  if (!mounted[page]) {
    const root = document.getElementById(`page-${page}`);
    const work = page === "workbench" ? mountWorkbench(root) : Promise.resolve();
    mounted[page] = work.then(() => { applyLang(root); root.dataset.ready = "1"; }).catch((err) => root.append(errorBox(err)));
  }
  if (location.hash !== `#${page}`) history.replaceState(null, "", `#${page}`);
}

async function start() {
  document.getElementById("lang").addEventListener("click", toggleLang);
  document.getElementById("clause-close").addEventListener("click", closeClause);
  document.getElementById("clause").addEventListener("click", (e) => { if (e.target.id === "clause") closeClause(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeClause(); });
  const health = await getJson("/api/health");
  if (health.auth) {
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
