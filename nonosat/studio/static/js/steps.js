// Step-through solver: the steps of POST /api/steps played on the board one at a time
// (forward, back, play / pause at a chosen speed), with each step's line and cells highlighted.

import { post, shown } from "./api.js";
import { longestClue, makeGrid } from "./grid.js";
import { stepKind } from "./words.js";

const $ = (id) => document.getElementById(id);
const VERDICT = { unique: "unique solution", multiple: "several solutions",
  none: "no solution", unknown: "undecided (time limit)" };

export class Stepper {
  constructor(app) {
    this.app = app;
    this.run = null; // the /api/steps answer
    this.before = []; // before[i]: the values step i overwrote, to step back
    this.index = 0; // steps applied
    this.playing = null;
    this.loading = null;
    $("step-first").onclick = () => { this.pause(); this.goto(0); };
    $("step-back").onclick = () => { this.pause(); this.goto(this.index - 1); };
    $("step-forward").onclick = () => { this.pause(); this.goto(this.index + 1); };
    $("step-last").onclick = () => { this.pause(); this.goto(this.total()); };
    $("step-play").onclick = () => (this.playing ? this.pause() : this.play());
    $("step-speed").oninput = () => {
      $("step-speed-label").textContent = `${$("step-speed").value}/s`;
      if (this.playing) { this.pause(); this.play(); }
    };
  }

  total() {
    return this.run ? this.run.steps.length : 0;
  }

  /** Entering steps mode: fetch the steps when needed, then draw. */
  async show(puzzle) {
    const grid = this.app.grid;
    grid.build(puzzle.rows.length, puzzle.cols.length, longestClue(puzzle));
    grid.clearMarks();
    grid.setPalette(puzzle.palette);
    grid.setClues(puzzle.rows, puzzle.cols, puzzle.row_colours, puzzle.col_colours);
    const key = JSON.stringify([puzzle.rows, puzzle.cols, puzzle.givens || null, puzzle.row_colours, puzzle.col_colours, puzzle.palette]);
    this.givens = puzzle.givens || null; // the steps start from them (and never set them)
    if (this.run && this.puzzle === key) { this.draw(); return; }
    this.puzzle = key;
    this.run = null;
    grid.setAll(this.startGrid(puzzle));
    $("step-counter").textContent = "asking the solver…";
    $("step-counter").dataset.total = ""; // no steps until the answer
    $("step-counter").dataset.index = "";
    $("step-text").textContent = "";
    $("step-verdict").textContent = "";
    $("step-verdict").dataset.status = "";
    let run;
    try {
      run = await post("steps", { puzzle, max_solutions: 2 }, "steps");
    } catch (err) {
      if (!shown(err)) throw err;
      $("step-counter").textContent = "—";
      return;
    }
    if (!run || this.puzzle !== key) return;
    this.run = run;
    this.prepare(puzzle);
    this.index = 0;
    if (this.app.mode === "steps") this.draw();
  }

  /** The grid before the first step: the givens, else all unknown. */
  startGrid(puzzle) {
    return this.givens ? this.givens.map((row) => Array.from(row))
      : makeGrid(puzzle.rows.length, puzzle.cols.length, "?");
  }

  /** Replay once to know what each step overwrote (so going back is cheap). */
  prepare(puzzle) {
    const grid = this.startGrid(puzzle);
    this.before = this.run.steps.map((step) => step.cells.map(([r, c, v]) => {
      const old = grid[r][c];
      grid[r][c] = v;
      return [r, c, old];
    }));
    this.grid = this.startGrid(puzzle);
  }

  /** Move to `n` steps applied (0 = start). */
  goto(n) {
    if (!this.run) return;
    n = Math.max(0, Math.min(this.total(), n));
    while (this.index < n) {
      for (const [r, c, v] of this.run.steps[this.index].cells) this.grid[r][c] = v;
      this.index += 1;
    }
    while (this.index > n) {
      this.index -= 1;
      for (const [r, c, old] of this.before[this.index]) this.grid[r][c] = old;
    }
    this.draw();
  }

  draw() {
    const grid = this.app.grid;
    grid.setAll(this.grid);
    grid.mark("given", givenCells(this.givens));
    const step = this.index > 0 ? this.run.steps[this.index - 1] : null;
    grid.highlightLine(step ? step.line : null);
    const cells = step ? step.cells : [];
    grid.mark("hint", step && step.kind !== "rewind" && step.kind !== "guess" ? cells : []);
    grid.mark("guess", step && step.kind === "guess" ? cells : []);
    const n = this.total();
    $("step-counter").textContent = `step ${this.index} / ${n}`
      + (step ? ` · ${stepKind(step.kind)}${step.depth ? ` (${step.depth} guess${step.depth === 1 ? "" : "es"} deep)` : ""}` : "");
    $("step-counter").dataset.index = String(this.index);
    $("step-counter").dataset.total = String(n);
    $("step-counter").dataset.kind = step ? step.kind : "";
    $("step-text").textContent = step ? step.text : "The empty grid: press Play or ▶.";
    const end = this.index === n;
    const verdict = $("step-verdict");
    verdict.dataset.status = end ? this.run.status : "";
    const count = this.run.solutions ? this.run.solutions.length : 0;
    verdict.textContent = end ? `Verdict: ${VERDICT[this.run.status] || this.run.status}`
      + (this.run.status === "multiple" ? ` (${count} shown)` : "")
      + (this.run.complete === false ? " · steps cut short" : "") : "";
    $("step-back").disabled = this.index === 0;
    $("step-first").disabled = this.index === 0;
    $("step-forward").disabled = end;
    $("step-last").disabled = end;
    if (end) this.pause();
  }

  play() {
    if (!this.run) return;
    if (this.index === this.total()) this.goto(0);
    const delay = 1000 / Number($("step-speed").value);
    this.playing = setInterval(() => this.goto(this.index + 1), delay);
    $("step-play").textContent = "Pause";
  }

  pause() {
    clearInterval(this.playing);
    this.playing = null;
    $("step-play").textContent = "Play";
  }

  /** Keyboard in steps mode; true when the key was used. */
  key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const actions = { ArrowRight: "step-forward", ArrowLeft: "step-back", Home: "step-first",
      End: "step-last", " ": "step-play" };
    if (!actions[e.key]) return false;
    $(actions[e.key]).click();
    return true;
  }
}

/** [[r, c], ...] of the known cells of a givens grid (row strings), [] without givens. */
export function givenCells(givens) {
  const out = [];
  (givens || []).forEach((row, r) => Array.from(row).forEach((v, c) => {
    if (v !== "?") out.push([r, c]);
  }));
  return out;
}
