// Calls to the yakgwan API: JSON, uploads, job polling and the answer stream. Every request says
// the reader's language, so errors, job stages and states come back in it.
import { currentLang } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

function headers(extra = {}) {
  const key = sessionStorage.getItem("yakgwan.key");
  const withLang = { ...extra, "Accept-Language": currentLang() };
  return key ? { ...withLang, "X-API-Key": key } : withLang;
}

async function check(res) {
  if (res.ok) return res;
  let detail = `${res.status} ${res.statusText}`;
  try { const body = await res.json(); detail = body.detail || detail; } catch (_) { /* not JSON */ }
  throw new ApiError(res.status, detail);
}

export async function deleteJson(url) {
  const res = await check(await fetch(url, { method: "DELETE", headers: headers() }));
  return res.status === 204 ? null : res.json();
}

export async function getJson(url) {
  return (await check(await fetch(url, { headers: headers() }))).json();
}

export async function postJson(url, body) {
  const res = await fetch(url, { method: "POST", headers: headers({ "Content-Type": "application/json" }), body: JSON.stringify(body) });
  return (await check(res)).json();
}

export async function postForm(url, form) {
  return (await check(await fetch(url, { method: "POST", headers: headers(), body: form }))).json();
}

export async function getBlob(url) {
  return (await check(await fetch(url, { headers: headers() }))).blob();
}

// Poll a job until it has finished; onProgress(job) after each poll.
export async function waitJob(id, onProgress, intervalMs = 400) {
  for (;;) {
    const job = await getJson(`/api/jobs/${id}`);
    onProgress(job);
    if (job.status === "succeeded") return job;
    if (job.status === "failed" || job.status === "cancelled") {
      const err = new ApiError(422, job.error || job.status_text);
      err.job = job; // what the reader may finish the job with (a failed appeal's sentences)
      throw err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// POST and read a server-sent-events stream; onEvent(kind, data) per event.
export async function stream(url, body, onEvent) {
  const res = await check(await fetch(url, { method: "POST", headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }), body: JSON.stringify(body) }));
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const kind = (block.match(/^event: (.*)$/m) || [])[1];
      const data = (block.match(/^data: (.*)$/m) || [])[1];
      if (kind && data) onEvent(kind, JSON.parse(data));
    }
  }
}
