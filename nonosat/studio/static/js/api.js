// Fetch wrapper for the studio's JSON API: one client id per tab and kind of request, an
// increasing seq, 409 (superseded) answers ignored, errors shown in the status line.

const TAB = "tab-" + Math.random().toString(36).slice(2, 10);
let seq = 0;

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
  const payload = { ...body, client: `${TAB}-${kind}`, seq: ++seq };
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
  return check(response);
}

async function check(response) {
  if (response.status === 409) return null;
  if (!response.ok) {
    const detail = await detailOf(response);
    say(detail, true);
    throw new ApiError(response.status, detail);
  }
  return response;
}

/** POST and parse the JSON answer (null when superseded). */
export async function post(path, body, kind = path) {
  const response = await postRaw(path, body, kind);
  return response ? response.json() : null;
}

/** POST a multipart form (file uploads). */
export async function postForm(path, form) {
  let response;
  try {
    response = await fetch(`/api/${path}`, { method: "POST", body: form });
  } catch (err) {
    say(`cannot reach the studio server (${err.message})`, true);
    throw new ApiError(0, err.message);
  }
  response = await check(response);
  return response ? response.json() : null;
}

/** GET `/api/<path>` as JSON. */
export async function get(path) {
  let response;
  try {
    response = await fetch(`/api/${path}`);
  } catch (err) {
    say(`cannot reach the studio server (${err.message})`, true);
    throw new ApiError(0, err.message);
  }
  response = await check(response);
  return response ? response.json() : null;
}

/** Is `err` an error already shown to the user (so callers may just stop)? */
export function shown(err) {
  return err instanceof ApiError;
}
