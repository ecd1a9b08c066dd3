// The board: column clues above, row clues on the left, DOM cells in a CSS grid.
// Cells carry data-r, data-c and data-state="filled|empty|unknown"; marks are classes
// (ambiguous, given, hint, line, wrong, guess, cursor).

const STATE = { "#": "filled", ".": "empty", "?": "unknown" };
export const CHAR = { filled: "#", empty: ".", unknown: "?" };

/** Block lengths of a line (an array of booleans or of "#"/"." characters). */
export function blocks(line) {
  const out = [];
  let run = 0;
  for (const v of line) {
    if (v === true || v === "#") run += 1;
    else if (run) { out.push(run); run = 0; }
  }
  if (run) out.push(run);
  return out;
}

/** Clues of a picture given as row strings (or arrays) over "#" and ".". */
export function cluesOf(picture) {
  const h = picture.length;
  const w = h ? picture[0].length : 0;
  const rows = picture.map((row) => blocks(row));
  const cols = [];
  for (let c = 0; c < w; c++) cols.push(blocks(picture.map((row) => row[c])));
  return { rows, cols };
}

/** Do the filled cells of `grid` (rows over "#", ".", "?") satisfy every known clue? */
export function satisfies(puzzle, grid) {
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const { rows, cols } = cluesOf(grid);
  const norm = (clue) => clue.filter((n) => n > 0);
  return puzzle.rows.every((clue, r) => clue === null || same(norm(clue), rows[r]))
    && puzzle.cols.every((clue, c) => clue === null || same(norm(clue), cols[c]));
}

/** A new h x w grid (array of arrays of characters) filled with `ch`. */
export function makeGrid(h, w, ch) {
  return Array.from({ length: h }, () => Array(w).fill(ch));
}

/** Row strings of a grid of characters. */
export function gridRows(grid) {
  return grid.map((row) => row.join(""));
}

function clueText(clue) {
  if (clue === null || clue === undefined) return ["?"];
  const nums = clue.filter((n) => n > 0);
  return nums.length ? nums.map(String) : ["0"];
}

export class GridView {
  /** `onPaint({r, c, phase: "start"|"move"|"end", button})` is called while painting. */
  constructor(element, onPaint) {
    this.el = element;
    this.onPaint = onPaint;
    this.h = 0;
    this.w = 0;
    this.cells = [];
    this.marked = new Map(); // class -> Set of elements
    this.dragging = false;
    this.last = null;
    this.el.addEventListener("pointerdown", (e) => this.down(e));
    this.el.addEventListener("contextmenu", (e) => e.preventDefault());
    window.addEventListener("pointermove", (e) => this.move(e));
    window.addEventListener("pointerup", () => this.up());
    window.addEventListener("pointercancel", () => this.up());
    window.addEventListener("resize", () => this.fit());
  }

  cellAt(target) {
    const cell = target && target.closest ? target.closest(".cell") : null;
    return cell && this.el.contains(cell) ? cell : null;
  }

  down(e) {
    const cell = this.cellAt(e.target);
    if (!cell) return;
    e.preventDefault();
    this.el.focus({ preventScroll: true }); // the keys go to the board
    this.dragging = true;
    this.last = cell;
    this.button = e.button;
    this.onPaint({ r: +cell.dataset.r, c: +cell.dataset.c, phase: "start", button: e.button });
  }

  move(e) {
    if (!this.dragging) return;
    const cell = this.cellAt(document.elementFromPoint(e.clientX, e.clientY));
    if (!cell || cell === this.last) return;
    this.last = cell;
    this.onPaint({ r: +cell.dataset.r, c: +cell.dataset.c, phase: "move", button: this.button });
  }

  up() {
    if (!this.dragging) return;
    this.dragging = false;
    this.last = null;
    this.onPaint({ phase: "end" });
  }

  /** (Re)build an h x w board (nothing happens when the size is unchanged). */
  build(h, w, longest = { rows: 3, cols: 3 }) {
    this.fit(longest, h, w);
    if (h === this.h && w === this.w && this.cells.length) return;
    this.h = h;
    this.w = w;
    this.marked.clear();
    const parts = [];
    for (let r = 0; r < h; r++) {
      for (let c = 0; c < w; c++) {
        const cls = ["cell"];
        if ((c + 1) % 5 === 0 && c < w - 1) cls.push("c5");
        if ((r + 1) % 5 === 0 && r < h - 1) cls.push("r5");
        parts.push(`<div class="${cls.join(" ")}" data-r="${r}" data-c="${c}" data-state="unknown"></div>`);
      }
    }
    const track = `repeat(${w}, var(--cs))`;
    this.el.innerHTML = `<div class="corner"></div>`
      + `<div class="col-clues" style="grid-template-columns:${track}"></div>`
      + `<div class="row-clues" style="grid-template-rows:repeat(${h}, var(--cs))"></div>`
      + `<div class="cells" style="grid-template-columns:${track}">${parts.join("")}</div>`;
    const all = this.el.querySelectorAll(".cell");
    this.cells = [];
    for (let r = 0; r < h; r++) this.cells.push(Array.from(all).slice(r * w, (r + 1) * w));
  }

  /**
   * Size the cells (CSS --cs) so that the board, clues included, fits the window beside the
   * sidebar; `longest` = the longest row and column clues in numbers (longestClue). Called on
   * build, when the clues grow or shrink (the editor, after a stroke) and when the window is
   * resized.
   */
  fit(longest = this.longest, h = this.h, w = this.w) {
    this.longest = longest || { rows: 3, cols: 3 };
    if (!h || !w) return;
    const sidebar = window.innerWidth > 900 ? 380 : 40;
    // a column clue's number is .55 cs high at line-height 1.15; a row clue's about .8 cs wide
    const fitH = (window.innerHeight - 150) / (h + 0.66 * this.longest.cols + 0.3);
    const fitW = (window.innerWidth - sidebar - 60) / (w + 0.8 * this.longest.rows);
    const cs = Math.max(8, Math.min(30, Math.floor(Math.min(fitH, fitW))));
    this.el.style.setProperty("--cs", `${cs}px`);
  }

  /** Show the clues (a clue is a list of numbers, [] empty, null unknown). */
  setClues(rows, cols) {
    const colHtml = cols.map((clue, c) => `<div class="col-clue clue${clue === null ? " unknown" : ""}" `
      + `data-c="${c}" data-clue="${clue === null ? "?" : clue.join(" ")}">`
      + clueText(clue).map((n) => `<span>${n}</span>`).join("") + "</div>").join("");
    const rowHtml = rows.map((clue, r) => `<div class="row-clue clue${clue === null ? " unknown" : ""}" `
      + `data-r="${r}" data-clue="${clue === null ? "?" : clue.join(" ")}">`
      + clueText(clue).map((n) => `<span>${n}</span>`).join("") + "</div>").join("");
    this.el.querySelector(".col-clues").innerHTML = colHtml;
    this.el.querySelector(".row-clues").innerHTML = rowHtml;
    this.lineClue = null;
  }

  cell(r, c) {
    return this.cells[r] ? this.cells[r][c] : undefined;
  }

  /** Set one cell to "#", "." or "?". */
  set(r, c, ch) {
    const cell = this.cell(r, c);
    if (cell) cell.dataset.state = STATE[ch];
  }

  /** Show a whole grid (rows of characters or strings). */
  setAll(grid) {
    for (let r = 0; r < this.h; r++) {
      for (let c = 0; c < this.w; c++) this.cells[r][c].dataset.state = STATE[grid[r][c]];
    }
  }

  /** Put class `cls` on exactly the cells `list` ([[r, c, ...], ...]). */
  mark(cls, list) {
    this.unmark(cls);
    const set = new Set();
    for (const [r, c] of list) {
      const cell = this.cell(r, c);
      if (!cell) continue;
      cell.classList.add(cls);
      set.add(cell);
    }
    this.marked.set(cls, set);
  }

  unmark(cls) {
    for (const cell of this.marked.get(cls) || []) cell.classList.remove(cls);
    this.marked.delete(cls);
  }

  /** Highlight one line ({axis: "row"|"col", index}) and its clue; null clears. */
  highlightLine(line) {
    if (this.lineClue) this.lineClue.classList.remove("line");
    this.lineClue = null;
    if (!line) { this.unmark("line"); return; }
    const list = [];
    if (line.axis === "row") for (let c = 0; c < this.w; c++) list.push([line.index, c]);
    else for (let r = 0; r < this.h; r++) list.push([r, line.index]);
    this.mark("line", list);
    const sel = line.axis === "row" ? `.row-clue[data-r="${line.index}"]` : `.col-clue[data-c="${line.index}"]`;
    this.lineClue = this.el.querySelector(sel);
    if (this.lineClue) this.lineClue.classList.add("line");
  }

  /** Remove every mark. */
  clearMarks() {
    for (const cls of Array.from(this.marked.keys())) this.unmark(cls);
    this.highlightLine(null);
  }
}

/** The longest row and column clues (in numbers) of a puzzle, to size the board. */
export function longestClue(puzzle) {
  const len = (clue) => clueText(clue).length;
  return { rows: Math.max(1, ...puzzle.rows.map(len)), cols: Math.max(1, ...puzzle.cols.map(len)) };
}
