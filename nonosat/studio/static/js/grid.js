// The board: column clues above, row clues on the left, DOM cells in a CSS grid.
// Cells carry data-r, data-c and data-state="filled|empty|unknown"; marks are classes
// (ambiguous, given, hint, line, wrong, guess, cursor).
//
// Colour puzzles: a palette (setPalette) of {name, rgb} with colour 0 the background; cells are
// then written "." (background), "?" (unknown) and "a", "b", ... for colours 1, 2, ... (INDEX);
// a coloured cell has data-state="filled", data-colour="<index>" and its colour in --fill. Clue
// numbers are drawn on their colours.
//
// Size: the cells fit the window (at most MAX_CS px) and never shrink below MIN_CS, so clue
// text is at least MIN_FONT px; bigger boards scroll (the clues stay in view: sticky), zoom
// with Ctrl+wheel, the + / − / Fit buttons or the + - 0 keys on the board, and pan by
// scrolling or dragging with the middle button. Hovering a cell shows its row and column in the
// corner and highlights both clues.
//
// Speed: only what changed is touched: clues are replaced line by line when their text changes,
// cells when their value changes, marks by the difference of the cell sets.

const STATE = { "#": "filled", ".": "empty", "?": "unknown" };
export const CHAR = { filled: "#", empty: ".", unknown: "?" };
/** The cell character of each colour index of a colour puzzle ("." = background). */
export const INDEX = ".abcdefghijklmnopqrstuvwxyzABCD";
const MIN_FONT = 11;
const MIN_CS = 16; // a column clue of two digits at MIN_FONT px fits
const MAX_CS = 48;
const HEX = /^#[0-9a-fA-F]{6}$/;

/** A safe CSS colour of a palette entry ("#rrggbb" or a grey). */
export function safeColour(rgb) {
  return typeof rgb === "string" && HEX.test(rgb) ? rgb.toLowerCase() : "#888888";
}

/** Black or white, whichever reads better on `rgb`. */
export function inkOn(rgb) {
  const hex = safeColour(rgb);
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return lum > 0.55 ? "#111" : "#fff";
}

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

/** Colour blocks of a line of INDEX characters: {lengths, colours} (colour indices). */
export function colourBlocks(line) {
  const lengths = [];
  const colours = [];
  let prev = ".";
  for (const v of line) {
    if (v !== "." && v !== "?" && v === prev) lengths[lengths.length - 1] += 1;
    else if (v !== "." && v !== "?") { lengths.push(1); colours.push(INDEX.indexOf(v)); }
    prev = v;
  }
  return { lengths, colours };
}

/**
 * Clues of a picture given as row strings (or arrays) over "#" and "."; with `colour`, over
 * INDEX characters, and then also {row_colours, col_colours}.
 */
export function cluesOf(picture, colour = false) {
  const h = picture.length;
  const w = h ? picture[0].length : 0;
  const column = (c) => picture.map((row) => row[c]);
  if (colour) {
    const rb = picture.map((row) => colourBlocks(row));
    const cb = [];
    for (let c = 0; c < w; c++) cb.push(colourBlocks(column(c)));
    return { rows: rb.map((b) => b.lengths), cols: cb.map((b) => b.lengths),
      row_colours: rb.map((b) => b.colours), col_colours: cb.map((b) => b.colours) };
  }
  const rows = picture.map((row) => blocks(row));
  const cols = [];
  for (let c = 0; c < w; c++) cols.push(blocks(column(c)));
  return { rows, cols };
}

/** Do the filled cells of `grid` (rows over "#", ".", "?"; colour: INDEX) satisfy every known clue? */
export function satisfies(puzzle, grid) {
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (puzzle.palette) {
    const got = cluesOf(grid, true);
    const ok = (clues, colours, gl, gc) => clues.every((clue, i) => clue === null
      || (same(clue, gl[i]) && same(colours[i] || [], gc[i])));
    return ok(puzzle.rows, puzzle.row_colours, got.rows, got.row_colours)
      && ok(puzzle.cols, puzzle.col_colours, got.cols, got.col_colours);
  }
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

/** The cells of the straight line from (r0, c0) to (r1, c1), without the first (Bresenham). */
export function lineCells(r0, c0, r1, c1) {
  const out = [];
  const dr = Math.abs(r1 - r0);
  const dc = Math.abs(c1 - c0);
  const sr = r0 < r1 ? 1 : -1;
  const sc = c0 < c1 ? 1 : -1;
  let err = dc - dr;
  let [r, c] = [r0, c0];
  while (r !== r1 || c !== c1) {
    const e2 = 2 * err;
    if (e2 > -dr) { err -= dr; c += sc; }
    if (e2 < dc) { err += dc; r += sr; }
    out.push([r, c]);
  }
  return out;
}

export class GridView {
  /** `onPaint({r, c, phase: "start"|"move"|"end", button})` is called while painting. */
  constructor(element, onPaint) {
    this.el = element;
    this.onPaint = onPaint;
    this.h = 0;
    this.w = 0;
    this.cells = [];
    this.values = [];
    this.palette = null;
    this.marked = new Map(); // class -> Set of elements
    this.dragging = false;
    this.last = null;
    this.zoom = 1;
    this.panning = null;
    this.hovered = null;
    this.clueKeys = { rows: [], cols: [] };
    this.el.addEventListener("pointerdown", (e) => this.down(e));
    this.el.addEventListener("contextmenu", (e) => e.preventDefault());
    this.el.addEventListener("pointerover", (e) => this.hover(e.target));
    this.el.addEventListener("pointerleave", () => this.hover(null));
    this.el.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    this.el.addEventListener("keydown", (e) => this.zoomKey(e));
    window.addEventListener("pointermove", (e) => this.move(e));
    window.addEventListener("pointerup", () => this.up());
    window.addEventListener("pointercancel", () => this.up());
    window.addEventListener("resize", () => this.fit());
    window.addEventListener("scroll", () => { this.box = null; }, true); // any scroller
    if (!document.getElementById("board-css")) {
      const link = document.createElement("link");
      link.id = "board-css";
      link.rel = "stylesheet";
      link.href = "/static/board.css";
      document.head.append(link);
    }
    this.toolbar();
  }

  /** The zoom buttons and the hover read-out, above the board. */
  toolbar() {
    const bar = document.createElement("div");
    bar.className = "board-tools chrome";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", "Zoom");
    const button = (id, text, title, fn) => {
      const b = document.createElement("button");
      b.type = "button";
      b.id = id;
      b.textContent = text;
      b.title = title;
      b.onclick = fn;
      bar.append(b);
    };
    button("zoom-out", "−", "Zoom out (−, Ctrl+wheel)", () => this.setZoom(this.zoom / 1.25));
    button("zoom-fit", "Fit", "Fit the window (0)", () => this.setZoom(1));
    button("zoom-in", "+", "Zoom in (+, Ctrl+wheel)", () => this.setZoom(this.zoom * 1.25));
    const where = document.createElement("span");
    where.id = "board-where";
    where.className = "note";
    where.setAttribute("aria-live", "off");
    bar.append(where);
    this.where = where;
    this.el.before(bar);
  }

  setZoom(z) {
    this.zoom = Math.max(0.25, Math.min(8, z));
    this.fit();
  }

  wheel(e) {
    if (!e.ctrlKey) return; // plain wheel scrolls (pans)
    e.preventDefault();
    this.setZoom(this.zoom * (e.deltaY < 0 ? 1.15 : 1 / 1.15));
  }

  zoomKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const z = { "+": 1.25, "=": 1.25, "-": 0.8, "0": 0 }[e.key];
    if (z === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    this.setZoom(z === 0 ? 1 : this.zoom * z);
  }

  /** The cell under a point, by arithmetic on the cells' box (no hit test: cheap on big boards;
   * the box is measured again after a scroll, a zoom or a change of the clues). */
  cellFromPoint(x, y) {
    if (!this.box) this.box = this.cellsEl.getBoundingClientRect();
    const r = Math.floor((y - this.box.top) / this.cs);
    const c = Math.floor((x - this.box.left) / this.cs);
    return r >= 0 && r < this.h && c >= 0 && c < this.w ? this.cells[r][c] : null;
  }

  cellAt(target) {
    const cell = target && target.closest ? target.closest(".cell") : null;
    return cell && this.el.contains(cell) ? cell : null;
  }

  /** Row and column of the hovered cell: shown beside the zoom buttons, clues highlighted. */
  hover(target) {
    const cell = this.cellAt(target);
    if (cell === this.hovered) return;
    this.hovered = cell;
    for (const e of this.el.querySelectorAll(".clue.hover")) e.classList.remove("hover");
    if (!cell) { this.where.textContent = ""; delete this.where.dataset.r; return; }
    const r = +cell.dataset.r;
    const c = +cell.dataset.c;
    this.where.textContent = `row ${r + 1} · column ${c + 1}`;
    this.where.dataset.r = String(r + 1);
    this.where.dataset.c = String(c + 1);
    const rc = this.rowClues && this.rowClues.children[r];
    const cc = this.colClues && this.colClues.children[c];
    if (rc) rc.classList.add("hover");
    if (cc) cc.classList.add("hover");
  }

  down(e) {
    if (e.button === 1) { // middle button: pan
      e.preventDefault();
      const wrap = this.scroller();
      this.panning = { x: e.clientX, y: e.clientY, left: wrap.scrollLeft, top: wrap.scrollTop };
      return;
    }
    const cell = this.cellAt(e.target);
    if (!cell) return;
    e.preventDefault();
    this.el.focus({ preventScroll: true }); // the keys go to the board
    this.dragging = true;
    this.box = null;
    this.last = cell;
    this.button = e.button;
    this.onPaint({ r: +cell.dataset.r, c: +cell.dataset.c, phase: "start", button: e.button });
  }

  scroller() {
    return this.el.closest(".board-wrap") || this.el.parentElement;
  }

  move(e) {
    if (this.panning) {
      const wrap = this.scroller();
      wrap.scrollLeft = this.panning.left - (e.clientX - this.panning.x);
      wrap.scrollTop = this.panning.top - (e.clientY - this.panning.y);
      return;
    }
    if (!this.dragging) return;
    const cell = this.cellFromPoint(e.clientX, e.clientY);
    if (!cell || cell === this.last) return;
    // a fast pointer skips cells between two events: paint the straight line between them
    const [r0, c0] = [+this.last.dataset.r, +this.last.dataset.c];
    const [r1, c1] = [+cell.dataset.r, +cell.dataset.c];
    this.last = cell;
    for (const [r, c] of lineCells(r0, c0, r1, c1)) {
      this.onPaint({ r, c, phase: "move", button: this.button });
    }
  }

  up() {
    this.panning = null;
    if (!this.dragging) return;
    this.dragging = false;
    this.last = null;
    this.onPaint({ phase: "end" });
  }

  /** The palette of a colour puzzle ([{name, rgb}], colour 0 the background), or null. */
  setPalette(palette) {
    const next = palette && palette.length ? palette.map((p) => ({ name: String(p.name), rgb: safeColour(p.rgb) })) : null;
    const same = JSON.stringify(next) === JSON.stringify(this.palette);
    this.palette = next;
    this.el.classList.toggle("colour", !!next);
    if (next) this.el.style.setProperty("--background", next[0].rgb);
    else this.el.style.removeProperty("--background");
    if (!same) { // redraw the cells and clues in the new colours
      this.clueKeys = { rows: [], cols: [] };
      for (const row of this.values) row.fill(null);
    }
  }

  /** (Re)build an h x w board (nothing happens when the size is unchanged). */
  build(h, w, longest = { rows: 3, cols: 3 }) {
    this.fit(longest, h, w);
    if (h === this.h && w === this.w && this.cells.length) return;
    this.h = h;
    this.w = w;
    this.marked.clear();
    this.hovered = null;
    const parts = [];
    for (let r = 0; r < h; r++) {
      parts.push('<div class="cell-row">'); // one paint layer a row: a change repaints its row
      for (let c = 0; c < w; c++) {
        const cls = ["cell"];
        if ((c + 1) % 5 === 0 && c < w - 1) cls.push("c5");
        if ((r + 1) % 5 === 0 && r < h - 1) cls.push("r5");
        parts.push(`<div class="${cls.join(" ")}" data-r="${r}" data-c="${c}" data-state="unknown"></div>`);
      }
      parts.push("</div>");
    }
    const track = `repeat(${w}, var(--cs))`;
    this.el.innerHTML = `<div class="corner"></div>`
      + `<div class="col-clues" style="grid-template-columns:${track}"></div>`
      + `<div class="row-clues" style="grid-template-rows:repeat(${h}, var(--cs))"></div>`
      + `<div class="cells" style="grid-template-columns:${track}">${parts.join("")}</div>`;
    const all = this.el.querySelectorAll(".cell");
    this.cells = [];
    for (let r = 0; r < h; r++) this.cells.push(Array.from(all).slice(r * w, (r + 1) * w));
    this.values = makeGrid(h, w, "?");
    this.colClues = this.el.querySelector(".col-clues");
    this.cellsEl = this.el.querySelector(".cells");
    this.el.style.setProperty("--rows", String(h));
    this.el.style.setProperty("--cols", String(w));
    this.box = null;
    this.rowClues = this.el.querySelector(".row-clues");
    this.clueKeys = { rows: [], cols: [] };
    // the cells move only when a clue area changes size: measure them again then (not after
    // every clue update, which forced a layout of the board on the next pointer move)
    if (this.clueSizes) this.clueSizes.disconnect();
    this.clueSizes = new ResizeObserver(() => { this.box = null; });
    this.clueSizes.observe(this.colClues);
    this.clueSizes.observe(this.rowClues);
  }

  /**
   * Size the cells (CSS --cs) so that the board, clues included, fits the window beside the
   * sidebar, times the zoom; `longest` = the longest row and column clues in numbers
   * (longestClue). Cells stay between MIN_CS and MAX_CS px at zoom 1 (so the clue text is at
   * least MIN_FONT px); a board that does not fit scrolls. Called on build, when the clues grow
   * or shrink (the editor, after a stroke) and when the window is resized.
   */
  fit(longest = this.longest, h = this.h, w = this.w) {
    this.longest = longest || { rows: 3, cols: 3 };
    if (!h || !w) return;
    const sidebar = window.innerWidth > 900 ? 380 : 40;
    const font = (cs) => Math.max(MIN_FONT, cs * 0.55);
    // a column clue's number is one font line high (line-height 1.15); a row clue's number and
    // its gap about 1.5 font sizes wide
    const fits = (cs) => (h * cs + this.longest.cols * font(cs) * 1.2 + 20 <= window.innerHeight - 170)
      && (w * cs + this.longest.rows * font(cs) * 1.5 + 20 <= window.innerWidth - sidebar - 60);
    let cs = MAX_CS;
    while (cs > MIN_CS && !fits(cs)) cs -= 1;
    cs = Math.round(cs * this.zoom);
    cs = Math.max(MIN_CS, Math.min(cs, 120));
    this.cs = cs;
    this.box = null;
    this.el.style.setProperty("--cs", `${cs}px`);
    this.el.style.setProperty("--clue-font", `${font(cs).toFixed(1)}px`);
  }

  /** One clue element (row or column): numbers, on their colours for a colour puzzle. */
  clueElement(kind, i, clue, colours) {
    const div = document.createElement("div");
    div.className = `${kind}-clue clue${clue === null ? " unknown" : ""}`;
    div.dataset[kind === "row" ? "r" : "c"] = String(i);
    div.dataset.clue = clue === null ? "?" : clue.join(" ");
    const nums = clueText(clue);
    const withColour = this.palette && clue !== null && colours;
    if (withColour) div.dataset.colours = colours.join(" ");
    let k = 0;
    for (const n of nums) {
      const span = document.createElement("span");
      span.textContent = n;
      if (withColour && n !== "0") {
        const colour = this.palette[colours[k]];
        k += 1;
        if (colour) {
          span.className = "chip";
          span.style.backgroundColor = colour.rgb;
          span.style.color = inkOn(colour.rgb);
          span.title = colour.name;
        }
      }
      div.append(span);
    }
    return div;
  }

  /** Show the clues (a clue is a list of numbers, [] empty, null unknown; colour puzzles: the
   * colour index of each block in rowColours / colColours). Only changed lines are redrawn. */
  setClues(rows, cols, rowColours = null, colColours = null) {
    const update = (kind, box, clues, colours, keys) => {
      while (box.children.length > clues.length) box.lastChild.remove();
      clues.forEach((clue, i) => {
        const cc = colours ? colours[i] : null;
        const key = JSON.stringify([clue, this.palette ? cc : null]);
        if (keys[i] === key && box.children[i]) return;
        keys[i] = key;
        const div = this.clueElement(kind, i, clue, cc);
        if (box.children[i]) {
          if (box.children[i].classList.contains("line")) div.classList.add("line");
          box.children[i].replaceWith(div);
        } else box.append(div);
      });
      keys.length = clues.length;
    };
    if (!this.colClues) return;
    update("col", this.colClues, cols, colColours, this.clueKeys.cols);
    update("row", this.rowClues, rows, rowColours, this.clueKeys.rows);
    this.lineClue = this.el.querySelector(".clue.line");
    if (this.hovered) { const h = this.hovered; this.hovered = null; this.hover(h); }
  }

  cell(r, c) {
    return this.cells[r] ? this.cells[r][c] : undefined;
  }

  /** Set one cell to "#", "." or "?" (colour puzzles: "." background, "?", INDEX letters). */
  set(r, c, ch) {
    const cell = this.cell(r, c);
    if (!cell || this.values[r][c] === ch) return;
    this.values[r][c] = ch;
    const k = this.palette && ch !== "." && ch !== "?" ? INDEX.indexOf(ch) : -1;
    if (k > 0 && this.palette[k]) {
      cell.dataset.state = "filled";
      cell.dataset.colour = String(k);
      cell.style.setProperty("--fill", this.palette[k].rgb);
    } else {
      cell.dataset.state = STATE[ch] || "unknown";
      if (cell.dataset.colour) {
        delete cell.dataset.colour;
        cell.style.removeProperty("--fill");
      }
    }
  }

  /** Show a whole grid (rows of characters or strings); unchanged cells are not touched. */
  setAll(grid) {
    for (let r = 0; r < this.h; r++) {
      for (let c = 0; c < this.w; c++) this.set(r, c, grid[r][c]);
    }
  }

  /** Put class `cls` on exactly the cells `list` ([[r, c, ...], ...]). */
  mark(cls, list) {
    const old = this.marked.get(cls) || new Set();
    const set = new Set();
    for (const [r, c] of list) {
      const cell = this.cell(r, c);
      if (cell) set.add(cell);
    }
    for (const cell of old) if (!set.has(cell)) cell.classList.remove(cls);
    for (const cell of set) if (!old.has(cell)) cell.classList.add(cls);
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
