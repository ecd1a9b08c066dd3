// Fetch wrapper for the studio's JSON API: one client id per tab and kind of request, an
// increasing seq, 409 (superseded) answers ignored, errors shown in the status line until a
// request sent after them succeeds.

const TAB = "tab-" + Math.random().toString(36).slice(2, 10);
let seq = 0;
let errorSeq = null; // the request count when the error on show appeared (null: none shown)

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

/** Show `message` in the status line (`error` = red). */
export function say(message, error = false) {
  const line = document.getElementById("status");
  line.textContent = message || "";
  line.classList.toggle("error", !!error && !!message);
  line.setAttribute("role", error ? "alert" : "status");
  errorSeq = error && message ? seq : null;
}

/** A request numbered `n` succeeded: an error shown before it was sent is over. */
function succeeded(n) {
  if (errorSeq !== null && n > errorSeq) say("");
}

async function detailOf(response) {
  try {
    const body = await response.json();
    if (typeof body.detail === "string") return body.detail;
    return JSON.stringify(body.detail);
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

/**
 * POST `body` (JSON) to `/api/<path>` as request kind `kind` (requests of the same kind
 * supersede each other). Returns the Response, or null when the answer was 409 (superseded).
 * Throws ApiError (after showing its detail) on any other error.
 */
export async function postRaw(path, body, kind = path) {
  const n = ++seq;
  const payload = { ...body, client: `${TAB}-${kind}`, seq: n };
  let response;
  try {
    response = await fetch(`/api/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload),
    });
  } catch (err) {
    say(`cannot reach the studio server (${err.message})`, true);
    throw new ApiError(0, err.message);
  }
  return check(response, n);
}

async function check(response, n) {
  if (response.status === 409) return null;
  if (!response.ok) {
    const detail = await detailOf(response);
    say(detail, true);
    throw new ApiError(response.status, detail);
  }
  succeeded(n);
  return response;
}

/** POST and parse the JSON answer (null when superseded). */
export async function post(path, body, kind = path) {
  const response = await postRaw(path, body, kind);
  return response ? response.json() : null;
}

/**
 * The JSON objects of a streamed (NDJSON) answer, one a line, as they arrive. `stop()` (when
 * given) is asked before each: once it answers true the reading is cancelled.
 */
export async function* jsonLines(response, stop = () => false) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      if (stop()) return;
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let nl;
      while ((nl = text.indexOf("\n")) >= 0) {
        const line = text.slice(0, nl).trim();
        text = text.slice(nl + 1);
        if (line) yield JSON.parse(line);
        if (stop()) return;
      }
    }
    text += decoder.decode();
    if (text.trim()) yield JSON.parse(text);
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** POST a multipart form (file uploads). */
export async function postForm(path, form) {
  let response;
  const n = ++seq;
  try {
    response = await fetch(`/api/${path}`, { method: "POST", body: form });
  } catch (err) {
    say(`cannot reach the studio server (${err.message})`, true);
    throw new ApiError(0, err.message);
  }
  response = await check(response, n);
  return response ? response.json() : null;
}

/** GET `/api/<path>` as JSON. */
export async function get(path) {
  let response;
  const n = ++seq;
  try {
    response = await fetch(`/api/${path}`);
  } catch (err) {
    say(`cannot reach the studio server (${err.message})`, true);
    throw new ApiError(0, err.message);
  }
  response = await check(response, n);
  return response ? response.json() : null;
}

/** Is `err` an error already shown to the user (so callers may just stop)? */
export function shown(err) {
  return err instanceof ApiError;
}
