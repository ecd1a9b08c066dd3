// Player: fill / cross / clear by mouse and keyboard, undo and redo, check, hints, a timer,
// completion, and the game kept in localStorage (keyed by the puzzle's short code and givens).
// The puzzle's givens are pre-filled and locked. Finished clues are greyed, clues of lines that
// can no longer fit are marked (an option), a click on a clue crosses the rest of its line;
// hint cells to fill and to cross have their own colours.

import { post, shown } from "./api.js";
import { blocks, colourBlocks, gridRows, longestClue, makeGrid, satisfies } from "./grid.js";
import { ColourPicker } from "./palette.js";
import { givenCells } from "./steps.js";

const $ = (id) => document.getElementById(id);
const STORE = "nonosat-play:";
const OPTIONS = "nonosat-play-options";

/**
 * Can `clue` (block lengths) still be placed on `line` (an array over "#", ".", "?")? A
 * dynamic programme over (cell, block): O(length x blocks).
 */
export function lineFits(clue, line) {
  const n = line.length;
  const k = clue.length;
  const dots = new Int32Array(n + 1); // dots before each cell: a block may not cover one
  for (let i = 0; i < n; i++) dots[i + 1] = dots[i] + (line[i] === "." ? 1 : 0);
  // f[i][j]: blocks j.. can be placed in cells i.. (the cells before i being settled)
  const f = Array.from({ length: n + 1 }, () => new Uint8Array(k + 1));
  f[n][k] = 1;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = k; j >= 0; j--) {
      let ok = line[i] !== "#" && f[i + 1][j] === 1; // cell i empty
      if (!ok && j < k) { // block j starts at cell i
        const e = i + clue[j];
        ok = e <= n && dots[e] === dots[i] && (e === n || line[e] !== "#")
          && f[Math.min(e + 1, n)][j + 1] === 1;
      }
      f[i][j] = ok ? 1 : 0;
    }
  }
  return f[0][0] === 1;
}

function clock(ms) {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60));
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${mm.padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

export class Player {
  constructor(app) {
    this.app = app;
    this.puzzle = null;
    this.storeKey = null;
    this.state = [];
    this.undoStack = [];
    this.redoStack = [];
    this.elapsed = 0;
    this.since = null; // performance.now() when the clock last started
    this.done = false;
    this.cursor = null;
    this.hint = null;
    this.hints = 0;
    setInterval(() => this.tick(), 500);
    window.addEventListener("pagehide", () => this.save());
    $("undo").onclick = () => this.undo();
    $("redo").onclick = () => this.redo();
    $("check").onclick = () => this.check();
    $("restart").onclick = () => this.restart();
    $("hint").onclick = () => this.askHint();
    $("apply-hint").onclick = () => this.applyHint();
    const holder = document.createElement("div");
    $("tool-fill").closest(".row").after(holder);
    this.picker = new ColourPicker(holder); // colour puzzles: the colour a fill writes
    this.givens = new Map(); // "r,c" -> "#" | ".": locked
    let options = {};
    try { options = JSON.parse(localStorage.getItem(OPTIONS) || "{}"); } catch { /* defaults */ }
    $("mark-broken").checked = options.markBroken !== false;
    $("mark-broken").onchange = () => {
      try { localStorage.setItem(OPTIONS, JSON.stringify({ markBroken: $("mark-broken").checked })); }
      catch { /* storage disabled */ }
      this.showClues();
    };
    // a click on a clue crosses the unknown cells of its line (one undoable move)
    app.grid.el.addEventListener("click", (e) => {
      if (this.app.mode !== "play" || !e.target.closest) return;
      const clue = e.target.closest(".row-clue, .col-clue");
      if (clue && clue.dataset.r !== undefined) this.crossRest("row", +clue.dataset.r);
      else if (clue && clue.dataset.c !== undefined) this.crossRest("col", +clue.dataset.c);
    });
  }

  /**
   * Solved: every clue is satisfied (unknown cells count as empty) by something the player
   * did: a cell of their own filled, or, when the picture leaves them none to fill (an
   * all-empty puzzle, or every filled cell a given), every cell crossed. So an all-empty
   * puzzle is not "Solved" the moment it opens: the player confirms it by crossing (a click
   * on a clue crosses its line).
   */
  won() {
    if (!this.puzzle || !satisfies(this.puzzle, this.state)) return false;
    let unknown = false;
    for (let r = 0; r < this.state.length; r++) {
      for (let c = 0; c < this.state[r].length; c++) {
        const v = this.state[r][c];
        if (v === "?") unknown = true;
        else if (v !== "." && !this.locked(r, c)) return true;
      }
    }
    return !unknown;
  }

  /** Is the cell a given (locked)? */
  locked(r, c) {
    return this.givens.has(`${r},${c}`);
  }

  /** Cross every unknown cell of a line. */
  crossRest(axis, index) {
    const changes = [];
    if (axis === "row") this.state[index].forEach((v, c) => { if (v === "?") changes.push([index, c, "."]); });
    else this.state.forEach((row, r) => { if (row[index] === "?") changes.push([r, index, "."]); });
    this.write(changes);
  }

  /** Grey the finished clues; mark the clues of lines that can no longer fit (an option). */
  showClues() {
    if (this.app.mode !== "play" || !this.puzzle) return;
    const el = this.app.grid.el;
    const mark = $("mark-broken").checked;
    const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
    const one = (clue, line, node) => {
      if (!node) return;
      const known = clue === null ? null : clue.filter((n) => n > 0);
      if (colour) { // finished when the line's colour blocks are the clue's (no fit check)
        const got = colourBlocks(line);
        node.classList.toggle("finished", known !== null && same(got.lengths, known)
          && same(got.colours, colours[i] || []));
        return;
      }
      node.classList.toggle("finished", known !== null && same(blocks(line), known));
      node.classList.toggle("broken", known !== null && mark && !lineFits(known, line));
    };
    const colour = !!this.puzzle.palette;
    let colours = [];
    let i = 0;
    const rowNodes = el.querySelectorAll(".row-clue");
    const colNodes = el.querySelectorAll(".col-clue");
    colours = this.puzzle.row_colours || [];
    this.puzzle.rows.forEach((clue, r) => { i = r; one(clue, this.state[r], rowNodes[r]); });
    colours = this.puzzle.col_colours || [];
    this.puzzle.cols.forEach((clue, c) => { i = c; one(clue, this.state.map((row) => row[c]), colNodes[c]); });
  }

  /** Start (or resume from localStorage) the game of `puzzle`, stored under `key`. */
  load(puzzle, key) {
    this.stopClock();
    if (this.puzzle) this.save();
    this.puzzle = puzzle;
    this.storeKey = key;
    const h = puzzle.rows.length;
    const w = puzzle.cols.length;
    this.state = makeGrid(h, w, "?");
    this.givens = new Map();
    (puzzle.givens || []).forEach((row, r) => Array.from(row).forEach((v, c) => {
      if (v !== "?") this.givens.set(`${r},${c}`, v);
    }));
    this.elapsed = 0;
    this.hints = 0;
    this.undoStack = [];
    this.redoStack = [];
    this.cursor = null;
    this.hint = null;
    try {
      const saved = JSON.parse(localStorage.getItem(STORE + key) || "null");
      if (saved && saved.state.length === h && saved.state.every((row) => row.length === w)) {
        this.state = saved.state.map((row) => Array.from(row));
        this.elapsed = saved.elapsed || 0;
        this.hints = saved.hints || 0;
      }
    } catch { /* a damaged entry: start afresh */ }
    for (const [key, v] of this.givens) {
      const [r, c] = key.split(",").map(Number);
      if (this.state[r]) this.state[r][c] = v;
    }
    this.done = this.won();
  }

  save() {
    if (!this.storeKey) return;
    try {
      localStorage.setItem(STORE + this.storeKey, JSON.stringify({
        state: gridRows(this.state), elapsed: this.time(), done: this.done, hints: this.hints,
        saved: Date.now() }));
    } catch { /* storage full or disabled: the game goes on */ }
  }

  time() {
    return this.elapsed + (this.since === null ? 0 : performance.now() - this.since);
  }

  startClock() {
    if (this.since === null && !this.done) this.since = performance.now();
  }

  stopClock() {
    if (this.since !== null) this.elapsed += performance.now() - this.since;
    this.since = null;
  }

  tick() {
    if (this.app.mode === "play") $("timer").textContent = clock(this.time());
  }

  /** Entering play mode. */
  show() {
    const grid = this.app.grid;
    grid.build(this.state.length, this.state[0].length, longestClue(this.puzzle));
    grid.clearMarks();
    grid.setPalette(this.puzzle.palette);
    this.picker.set(this.puzzle.palette);
    grid.setClues(this.puzzle.rows, this.puzzle.cols, this.puzzle.row_colours, this.puzzle.col_colours);
    grid.setAll(this.state);
    grid.mark("given", givenCells(this.puzzle.givens));
    this.showClues();
    $("hint-text").textContent = "";
    $("apply-hint").disabled = true;
    this.hint = null;
    this.moveCursor(0, 0, false);
    this.showDone();
    this.startClock();
    this.tick();
  }

  /** Leaving play mode. */
  hide() {
    $("win").hidden = true;
    this.app.grid.el.classList.remove("done");
    this.stopClock();
    this.save();
  }

  /** Write `changes` ([[r, c, value]]) as one undoable move. */
  write(changes, record = true) {
    const move = [];
    for (const [r, c, v] of changes) {
      if (this.locked(r, c)) continue;
      const old = this.state[r][c];
      if (old === v) continue;
      this.state[r][c] = v;
      this.app.grid.set(r, c, v);
      move.push([r, c, old, v]);
    }
    if (!move.length) return;
    if (record) {
      this.undoStack.push(move);
      this.redoStack = [];
    }
    this.afterChange();
  }

  afterChange() {
    this.app.grid.unmark("wrong");
    this.clearHint();
    this.done = this.won();
    if (this.done) this.stopClock(); else this.startClock();
    this.showDone();
    this.showClues();
    this.save();
  }

  showDone() {
    const status = $("play-status");
    status.classList.toggle("done", this.done);
    status.dataset.complete = String(this.done);
    // nothing of the player's to fill, clues already met: say how to finish
    const confirm = !this.done && this.puzzle && satisfies(this.puzzle, this.state);
    status.dataset.confirm = String(!!confirm);
    status.textContent = this.done ? `Solved in ${clock(this.time())}!`
      : confirm ? "Every clue is met: cross the cells left to finish (a click on a clue crosses its line)" : "";
    this.app.grid.el.classList.toggle("done", this.done);
    const win = $("win");
    win.hidden = !(this.done && this.app.mode === "play");
    if (this.done) {
      const hints = this.hints ? ` with ${this.hints} hint${this.hints === 1 ? "" : "s"}` : " without a hint";
      win.textContent = `Solved! ${clock(this.time())}${hints}. Every clue is satisfied.`;
    }
    this.tick();
  }

  undo() {
    const move = this.undoStack.pop();
    if (!move) return;
    for (const [r, c, old] of move) { this.state[r][c] = old; this.app.grid.set(r, c, old); }
    this.redoStack.push(move);
    this.afterChange();
  }

  redo() {
    const move = this.redoStack.pop();
    if (!move) return;
    for (const [r, c, , v] of move) { this.state[r][c] = v; this.app.grid.set(r, c, v); }
    this.undoStack.push(move);
    this.afterChange();
  }

  restart() {
    const changes = [];
    this.state.forEach((row, r) => row.forEach((v, c) => {
      if (v !== "?" && !this.locked(r, c)) changes.push([r, c, "?"]);
    }));
    this.write(changes);
    this.elapsed = 0;
    if (this.since !== null) this.since = performance.now();
    this.tick();
  }

  tool() {
    return $("tool-cross").checked ? "." : this.picker.pen();
  }

  /** Painting (GridView callback): one stroke is one undoable move. */
  paint({ r, c, phase, button }) {
    if (phase === "end") {
      if (this.stroke && this.stroke.length) this.write(this.stroke);
      this.stroke = null;
      return;
    }
    if (phase === "start") {
      const tool = button === 2 ? "." : this.tool();
      this.value = this.state[r][c] === tool ? "?" : tool;
      this.stroke = [];
      this.moveCursor(r, c, false);
    }
    if (!this.stroke || this.locked(r, c)) return;
    this.stroke.push([r, c, this.value]);
    this.app.grid.set(r, c, this.value); // shown now, written (and recorded) at the end
  }

  moveCursor(r, c, visible = true) {
    const h = this.state.length;
    const w = this.state[0].length;
    this.cursor = [Math.max(0, Math.min(h - 1, r)), Math.max(0, Math.min(w - 1, c))];
    this.app.grid.mark("cursor", visible ? [this.cursor] : []);
  }

  /** Keyboard (called by main.js in play mode); true when the key was used. */
  key(e) {
    const k = e.key;
    if ((e.ctrlKey || e.metaKey) && (k === "z" || k === "Z")) {
      if (e.shiftKey) this.redo(); else this.undo();
      return true;
    }
    if ((e.ctrlKey || e.metaKey) && (k === "y" || k === "Y")) { this.redo(); return true; }
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const [r, c] = this.cursor || [0, 0];
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[k]) { this.moveCursor(r + moves[k][0], c + moves[k][1]); return true; }
    const toggle = (v) => {
      this.moveCursor(r, c);
      this.write([[r, c, this.state[r][c] === v ? "?" : v]]);
    };
    if (k === " " || k === "f" || k === "F") { toggle(this.picker.pen()); return true; }
    if (/^[1-9]$/.test(k) && this.picker.choose(+k)) { $("tool-fill").checked = true; return true; }
    if (k === "x" || k === "X") { toggle("."); return true; }
    if (k === "Backspace" || k === "Delete") { this.moveCursor(r, c); this.write([[r, c, "?"]]); return true; }
    if (k === "h" || k === "H") { this.askHint(); return true; }
    if (k === "a" || k === "A") { this.applyHint(); return true; }
    return false;
  }

  async check() {
    try {
      const out = await post("check", { puzzle: this.puzzle, state: gridRows(this.state) }, "check");
      if (!out) return;
      this.app.grid.mark("wrong", out.mistakes);
      const n = out.mistakes.length;
      $("play-status").textContent = out.solvable === null ? "the solver could not check in time"
        : !out.solvable ? "this puzzle has no solution"
        : n ? `${n} mistake${n === 1 ? "" : "s"} (marked in red)`
          : out.complete ? "complete, no mistakes" : "no mistakes so far";
    } catch (err) {
      if (!shown(err)) throw err;
    }
  }

  clearHint() {
    this.hint = null;
    for (const cls of ["hint", "hint-fill", "hint-cross"]) this.app.grid.unmark(cls);
    this.app.grid.highlightLine(null);
    $("apply-hint").disabled = true;
  }

  async askHint() {
    let out;
    try {
      out = await post("hint", { puzzle: this.puzzle, state: gridRows(this.state) }, "hint");
    } catch (err) {
      if (!shown(err)) throw err;
      return;
    }
    if (!out) return;
    this.clearHint();
    this.hint = out;
    this.hints += 1;
    const text = $("hint-text");
    text.textContent = out.text;
    text.dataset.kind = out.kind;
    text.dataset.n = String(this.hints);
    this.app.grid.highlightLine(out.line);
    this.app.grid.mark("hint", out.cells);
    if (out.kind !== "mistake") {
      this.app.grid.mark("hint-fill", out.cells.filter((cell) => cell[2] !== "." && cell[2] !== "?"));
      this.app.grid.mark("hint-cross", out.cells.filter((cell) => cell[2] === "."));
    }
    if (out.kind === "mistake") this.app.grid.mark("wrong", out.cells);
    $("apply-hint").disabled = !out.cells.length;
  }

  applyHint() {
    if (!this.hint || !this.hint.cells.length) return;
    this.write(this.hint.cells.map(([r, c, v]) => [r, c, v]));
  }
}
