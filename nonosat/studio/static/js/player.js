// Player: fill / cross / clear by mouse and keyboard, undo and redo, check, hints, a timer,
// completion, and the game kept in localStorage (keyed by the puzzle's short code).

import { post, shown } from "./api.js";
import { gridRows, longestClue, makeGrid, satisfies } from "./grid.js";
import { ColourPicker } from "./palette.js";

const $ = (id) => document.getElementById(id);
const STORE = "nonosat-play:";

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
    this.elapsed = 0;
    this.undoStack = [];
    this.redoStack = [];
    this.cursor = null;
    this.hint = null;
    try {
      const saved = JSON.parse(localStorage.getItem(STORE + key) || "null");
      if (saved && saved.state.length === h && saved.state.every((row) => row.length === w)) {
        this.state = saved.state.map((row) => Array.from(row));
        this.elapsed = saved.elapsed || 0;
      }
    } catch { /* a damaged entry: start afresh */ }
    this.done = satisfies(puzzle, this.state);
  }

  save() {
    if (!this.storeKey) return;
    try {
      localStorage.setItem(STORE + this.storeKey, JSON.stringify({
        state: gridRows(this.state), elapsed: this.time(), done: this.done, saved: Date.now() }));
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
    this.stopClock();
    this.save();
  }

  /** Write `changes` ([[r, c, value]]) as one undoable move. */
  write(changes, record = true) {
    const move = [];
    for (const [r, c, v] of changes) {
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
    this.done = satisfies(this.puzzle, this.state);
    if (this.done) this.stopClock(); else this.startClock();
    this.showDone();
    this.save();
  }

  showDone() {
    const status = $("play-status");
    status.classList.toggle("done", this.done);
    status.dataset.complete = String(this.done);
    status.textContent = this.done ? `Solved in ${clock(this.time())}!` : "";
    this.app.grid.el.classList.toggle("done", this.done);
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
    this.state.forEach((row, r) => row.forEach((v, c) => { if (v !== "?") changes.push([r, c, "?"]); }));
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
    if (!this.stroke) return;
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
    this.app.grid.unmark("hint");
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
    if (out.kind === "mistake") this.app.grid.mark("wrong", out.cells);
    $("apply-hint").disabled = !out.cells.length;
  }

  applyHint() {
    if (!this.hint || !this.hint.cells.length) return;
    this.write(this.hint.cells.map(([r, c, v]) => [r, c, v]));
  }
}
