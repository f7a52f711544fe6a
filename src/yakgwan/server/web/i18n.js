// Korean by default, English on the toggle; the choice is remembered in this browser. Every text
// comes from the server's message catalogue (/api/messages): nothing here is written in a language.
let messages = { ko: {}, en: {} };
let lang = localStorage.getItem("yakgwan.lang") === "en" ? "en" : "ko";
const listeners = [];

export async function loadMessages() {
  const res = await fetch("/api/messages");
  if (!res.ok) throw new Error(`/api/messages: ${res.status}`);
  messages = (await res.json()).messages;
}

// the text of `key` in the current language, each {name} filled from params
export function t(key, params = {}) {
  const text = messages[lang]?.[key] ?? messages.ko?.[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export function has(key) { return key in (messages[lang] || {}); }

export function currentLang() { return lang; }

export function applyLang(root = document) {
  document.documentElement.lang = lang;
  document.title = t("app.title");
  root.querySelectorAll("[data-i18n]").forEach((node) => { node.textContent = t(node.dataset.i18n); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((node) => { node.placeholder = t(node.dataset.i18nPlaceholder); });
  root.querySelectorAll("[data-i18n-label]").forEach((node) => { node.setAttribute("aria-label", t(node.dataset.i18nLabel)); });
  root.querySelectorAll("[data-i18n-title]").forEach((node) => { node.title = t(node.dataset.i18nTitle); });
  const btn = document.getElementById("lang");
  if (btn) { btn.textContent = t("lang.switch"); btn.lang = lang === "ko" ? "en" : "ko"; }
}

// fn() runs after each switch: what was drawn from data (an analysis, a table) is drawn again
export function onLangChange(fn) { listeners.push(fn); }

export function toggleLang() {
  lang = lang === "ko" ? "en" : "ko";
  localStorage.setItem("yakgwan.lang", lang);
  applyLang();
  listeners.forEach((fn) => fn());
}
