// Sharing: the URL carries the mode and the puzzle as a davidje13 short code
// (/?mode=play&p=<rules code>; in the editor with a picture also &i=<image code>), or as JSON
// (&j=...) when a clue is unknown (the short format cannot hold those). Kept up to date with
// history.replaceState as you edit, and read back at start-up. Givens travel as &g=<code>
// (givensCode: the grid read row by row, run-length coded: f filled, x empty, u unknown, each
// letter after its count when that is over 1, e.g. "5uf94u" = the 6th cell filled).

import { ApiError, post } from "./api.js";

const DEBOUNCE_MS = 300;
const cache = new Map(); // puzzle JSON -> {code, image_code} | null
let timer = null;

async function quietPost(path, body) {
  try {
    return await fetch(`/api/${path}`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
  } catch {
    return null;
  }
}

/** The short codes of `puzzle` ({code, image_code}), or null when it has an unknown clue. */
export async function codes(puzzle) {
  const colour = puzzle.palette ? { palette: puzzle.palette, row_colours: puzzle.row_colours,
    col_colours: puzzle.col_colours } : {};
  const key = JSON.stringify([puzzle.rows, puzzle.cols, puzzle.goal || null, colour]);
  if (cache.has(key)) return cache.get(key);
  let out = null;
  // colour puzzles: the studio's own code (C1..., docs/studio.md), which holds unknown clues too
  if (puzzle.palette || (!puzzle.rows.includes(null) && !puzzle.cols.includes(null))) {
    // not through api.js: a failure here is not the user's business (the JSON form is used)
    const response = await quietPost("shortcode", { puzzle: { rows: puzzle.rows, cols: puzzle.cols, goal: puzzle.goal, ...colour } });
    if (response && response.ok) out = await response.json();
  }
  cache.set(key, out);
  return out;
}

const GIVEN_LETTER = { "#": "f", ".": "x", "?": "u" };
const LETTER_GIVEN = { f: "#", x: ".", u: "?" };

/** The compact code of a givens grid (row strings over #, ., ?); "" for none. */
export function givensCode(rows) {
  if (!rows || !rows.length) return "";
  const flat = rows.join("");
  let out = "";
  for (let i = 0; i < flat.length;) {
    let j = i;
    while (j < flat.length && flat[j] === flat[i]) j += 1;
    // a colour puzzle's colour k: "_" and its letter (colour givens)
    out += (j - i > 1 ? String(j - i) : "") + (GIVEN_LETTER[flat[i]] || `_${flat[i]}`);
    i = j;
  }
  return out;
}

/** The givens grid (row strings) of a code for an h x w puzzle; throws on a damaged code. */
export function givensFromCode(code, h, w) {
  let flat = "";
  for (const [, n, letter] of code.matchAll(/(\d*)([fxu]|_[a-zA-D])/g)) {
    flat += (LETTER_GIVEN[letter] || letter.slice(1)).repeat(n ? Number(n) : 1);
    if (flat.length > h * w) break;
  }
  if (flat.length !== h * w || code.replace(/\d*(?:[fxu]|_[a-zA-D])/g, "") !== "") {
    throw new ApiError(400, "the address holds damaged givens (g=...)");
  }
  return Array.from({ length: h }, (_, r) => flat.slice(r * w, (r + 1) * w));
}

/**
 * The localStorage key of a game: the puzzle's short code (its clues as JSON without one),
 * and its givens' code when it has givens (other givens: another game).
 */
export async function storageKey(puzzle) {
  const c = await codes({ rows: puzzle.rows, cols: puzzle.cols, palette: puzzle.palette,
    row_colours: puzzle.row_colours, col_colours: puzzle.col_colours });
  const key = c ? c.code : "j:" + JSON.stringify([puzzle.rows, puzzle.cols]);
  return puzzle.givens ? `${key}|g:${givensCode(puzzle.givens)}` : key;
}

/** The page's address for `puzzle` in `mode`. */
export async function urlFor(mode, puzzle) {
  const c = await codes(puzzle);
  const parts = [`mode=${encodeURIComponent(mode)}`];
  if (c) {
    parts.push(`p=${encodeURIComponent(c.code)}`);
    if (mode === "edit" && c.image_code) parts.push(`i=${encodeURIComponent(c.image_code)}`);
  } else {
    parts.push(`j=${encodeURIComponent(JSON.stringify({ rows: puzzle.rows, cols: puzzle.cols }))}`);
  }
  if (puzzle.givens) parts.push(`g=${givensCode(puzzle.givens)}`);
  if (puzzle.name) parts.push(`t=${encodeURIComponent(puzzle.name)}`);
  return `${location.pathname}?${parts.join("&")}`;
}

/** Update the address bar soon (debounced). `current()` gives {mode, puzzle}. */
export function scheduleUrl(current) {
  clearTimeout(timer);
  document.body.dataset.shared = "pending"; // "true" once the address matches the page

  timer = setTimeout(async () => {
    const { mode, puzzle } = current();
    const url = await urlFor(mode, puzzle);
    const now = current();
    if (now.mode === mode && JSON.stringify(now.puzzle) === JSON.stringify(puzzle)) {
      history.replaceState(null, "", url);
      document.body.dataset.shared = "true";
    }
  }, DEBOUNCE_MS);
}

/**
 * The puzzle and mode of the page's address: {puzzle, mode, open} (open = a gallery id);
 * puzzle is null when the address holds none. Throws ApiError for a bad code.
 */
export async function fromUrl() {
  const params = new URLSearchParams(location.search);
  const mode = ["edit", "play", "steps"].includes(params.get("mode")) ? params.get("mode") : null;
  let puzzle = null;
  const image = params.get("i");
  const rules = params.get("p");
  if (image || rules) {
    const out = await post("parse", { text: image || rules, format: "short" }, "parse-url");
    puzzle = out && out.puzzle;
  } else if (params.get("j")) {
    try {
      const data = JSON.parse(params.get("j"));
      puzzle = { rows: data.rows, cols: data.cols };
    } catch {
      throw new ApiError(400, "the address holds a damaged puzzle (j=...)");
    }
  }
  if (puzzle && params.get("t")) puzzle.name = params.get("t");
  if (puzzle && params.get("g")) {
    puzzle.givens = givensFromCode(params.get("g"), puzzle.rows.length, puzzle.cols.length);
  }
  return { puzzle, mode, open: params.get("open") };
}
