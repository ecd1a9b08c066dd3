// Editor: paint a picture (clues derived live) or type clues; as you edit, the verdict, the
// whole ambiguity map (checkered), the difficulty and make-unique suggestions.
// Givens (from a `give` suggestion, or read with the puzzle) are part of the puzzle: sent as its
// `givens` grid, so the verdict, map and grade are those of the puzzle with its givens.
// Every operation is undoable (history.js): Ctrl-Z, Ctrl-Y / Ctrl-Shift-Z and the buttons.

import { ApiError, jsonLines, post, postRaw, say, shown } from "./api.js";
import { blocks, cluesOf, colourBlocks, gridRows, INDEX, longestClue, makeGrid } from "./grid.js";
import { History } from "./history.js";
import { colourClueLine, copyPalette, PaletteEditor, parseColourClues, remapPicture } from "./palette.js";
import { engine, techniqueList } from "./words.js";

const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 150;
const VERDICT = { unique: "unique solution", multiple: "several solutions",
  none: "no solution", unknown: "undecided (time limit)" };

/**
 * Clues of a text box, one line each. Blank lines are empty clues, trailing ones too (a last
 * empty row stays a row); only blank lines beyond `size` at the end (a stray Enter) are dropped.
 */
export function parseClues(text, size = 0) {
  const lines = text.replace(/\r/g, "").split("\n");
  while (lines.length > Math.max(size, 1) && lines[lines.length - 1].trim() === "") lines.pop();
  return lines.map((line, i) => {
    const t = line.trim();
    if (t === "?") return null;
    if (t === "" || t === "0" || t === "-") return [];
    const nums = t.split(/[\s,]+/).map(Number);
    if (nums.some((n) => !Number.isInteger(n) || n < 0)) throw new Error(`line ${i + 1}: "${t}" is not a clue`);
    return nums.filter((n) => n > 0);
  });
}

const clueLine = (clue) => (clue === null ? "?" : clue.length ? clue.join(" ") : "0");

export class Editor {
  constructor(app) {
    this.app = app;
    this.kind = "picture";
    this.picture = makeGrid(10, 10, ".");
    this.clues = cluesOf(this.picture);
    this.givens = new Map(); // "r,c" -> "#" | "." (colour: "." | "a" | "b" ...)
    this.palette = null; // colour puzzles: [{name, rgb}], colour 0 the background
    this.name = null;
    this.version = 0;
    this.last = null; // the last analysis shown
    this.timer = null;
    this.history = new History(() => this.showHistory());
    this.stroke = null; // the snapshot a paint stroke started from
    this.wire();
    this.showHistory();
    const kindRow = $("kind-picture").closest(".row");
    const holder = document.createElement("div");
    kindRow.after(holder);
    this.palettePanel = new PaletteEditor(holder, {
      onChange: (palette, remap) => this.setPalette(palette, remap),
      onToggle: (on) => this.toggleColour(on),
    });
  }

  /** The palette changed (names, colours; `remap` when colours were removed). */
  setPalette(palette, remap) {
    this.record();
    this.palette = palette;
    if (remap) {
      remapPicture(this.picture, remap);
      for (const [key, v] of this.givens) {
        const k = INDEX.indexOf(v);
        if (k > 0) this.givens.set(key, INDEX[remap[k]]);
      }
      if (this.kind === "clues") {
        const fix = (cols) => cols.map((cc) => (cc === null ? null : cc.map((k) => remap[k])));
        const keep = (clues, cols) => clues.map((clue, i) => (clue === null ? null : clue.filter((_, j) => cols[i][j] !== 0)));
        const rc = fix(this.clues.row_colours);
        const cc = fix(this.clues.col_colours);
        this.clues = { rows: keep(this.clues.rows, rc), cols: keep(this.clues.cols, cc),
          row_colours: rc.map((x) => (x === null ? null : x.filter((k) => k !== 0))),
          col_colours: cc.map((x) => (x === null ? null : x.filter((k) => k !== 0))) };
        this.setKindQuiet("clues");
      }
    }
    this.changed();
  }

  /** Switch between black-and-white ("#") and colour (colour 1 = the old black). */
  toggleColour(on) {
    if (on === !!this.palette) return;
    this.record();
    if (on) {
      this.palette = [{ name: "white", rgb: "#ffffff" }, { name: "black", rgb: "#111111" }];
      this.picture = this.picture.map((row) => row.map((v) => (v === "#" ? "a" : ".")));
      if (this.kind === "clues") {
        const cols = (clues) => clues.map((clue) => (clue === null ? null : clue.map(() => 1)));
        this.clues = { ...this.clues, row_colours: cols(this.clues.rows), col_colours: cols(this.clues.cols) };
      }
    } else {
      this.palette = null;
      this.picture = this.picture.map((row) => row.map((v) => (v === "." || v === "?" ? "." : "#")));
      if (this.kind === "clues") { // adjacent blocks of different colours merge in black-and-white
        this.clues = cluesOf(this.picture);
        this.setKindQuiet("picture");
      }
    }
    for (const [key, v] of this.givens) this.givens.set(key, v === "." ? "." : on ? "a" : "#");
    this.palettePanel.set(this.palette);
    if (this.kind === "clues") this.setKindQuiet("clues");
    this.changed();
  }

  wire() {
    $("edit-resize").onclick = () => this.resize(+$("edit-height").value, +$("edit-width").value);
    $("edit-clear").onclick = () => this.transform((g) => g.map((row) => row.map(() => ".")));
    $("edit-invert").onclick = () => this.transform((g) => g.map((row) => row.map((v) => (v === "#" ? "." : "#"))));
    const shift = (dr, dc) => this.transform((g) => g.map((row, r) => row.map((_, c) => {
      const sr = r - dr; const sc = c - dc;
      return sr >= 0 && sr < g.length && sc >= 0 && sc < row.length ? g[sr][sc] : ".";
    })));
    $("shift-left").onclick = () => shift(0, -1);
    $("shift-right").onclick = () => shift(0, 1);
    $("shift-up").onclick = () => shift(-1, 0);
    $("shift-down").onclick = () => shift(1, 0);
    $("kind-picture").onchange = () => this.setKind("picture");
    $("kind-clues").onchange = () => this.setKind("clues");
    $("clue-apply").onclick = () => this.applyClues();
    $("to-picture").onclick = () => this.solutionToPicture();
    $("givens-clear").onclick = () => { this.record(); this.givens.clear(); this.changed(); };
    $("edit-undo").onclick = () => this.undo();
    $("edit-redo").onclick = () => this.redo();
  }

  // -- history -------------------------------------------------------------------------------
  /** The editor's whole state, to go back to. */
  snapshot() {
    return { kind: this.kind, picture: gridRows(this.picture),
      clues: JSON.parse(JSON.stringify(this.clues)), givens: Array.from(this.givens),
      name: this.name, palette: copyPalette(this.palette) };
  }

  restore(s) {
    this.picture = s.picture.map((row) => Array.from(row));
    this.clues = s.clues;
    this.givens = new Map(s.givens);
    this.name = s.name;
    this.palette = copyPalette(s.palette);
    this.palettePanel.set(this.palette);
    this.setKindQuiet(s.kind);
    this.changed();
  }

  /** Record the state before an operation (call before changing anything). */
  record() {
    this.history.record(this.snapshot());
  }

  undo() {
    const s = this.history.undo(this.snapshot());
    if (s) { this.restore(s); say("undone"); }
  }

  redo() {
    const s = this.history.redo(this.snapshot());
    if (s) { this.restore(s); say("redone"); }
  }

  showHistory() {
    $("edit-undo").disabled = !this.history.canUndo;
    $("edit-redo").disabled = !this.history.canRedo;
  }

  /** Keyboard in edit mode: Ctrl-Z undo, Ctrl-Y / Ctrl-Shift-Z redo; true when used. */
  key(e) {
    if (!(e.ctrlKey || e.metaKey) || e.altKey) return false;
    const k = e.key.toLowerCase();
    if (k === "z") { if (e.shiftKey) this.redo(); else this.undo(); return true; }
    if (k === "y") { this.redo(); return true; }
    return false;
  }

  /** The puzzle as the API takes it. */
  puzzle() {
    const colour = !!this.palette;
    const out = this.kind === "picture"
      ? { ...cluesOf(this.picture, colour), goal: gridRows(this.picture) }
      : { rows: this.clues.rows, cols: this.clues.cols };
    if (colour) {
      out.palette = copyPalette(this.palette);
      if (this.kind !== "picture") {
        out.row_colours = this.clues.row_colours;
        out.col_colours = this.clues.col_colours;
      }
    }
    if (this.name) out.name = this.name;
    if (this.givens.size) out.givens = this.givenState();
    return out;
  }

  get height() { return this.kind === "picture" ? this.picture.length : this.clues.rows.length; }

  get width() { return this.kind === "picture" ? this.picture[0].length : this.clues.cols.length; }

  /**
   * Open a puzzle (from a file, the gallery or a URL): its picture when it has one, and its
   * givens. `record` = undoable (false at start-up).
   */
  load(puzzle, record = true) {
    if (record) this.record();
    this.name = puzzle.name || null;
    this.givens.clear();
    this.palette = copyPalette(puzzle.palette);
    this.palettePanel.set(this.palette);
    (puzzle.givens || []).forEach((row, r) => Array.from(row).forEach((v, c) => {
      if (v !== "?") this.givens.set(`${r},${c}`, v);
    }));
    if (puzzle.goal && puzzle.goal.length) {
      this.picture = puzzle.goal.map((row) => Array.from(row));
      this.setKindQuiet("picture");
    } else {
      this.clues = { rows: puzzle.rows, cols: puzzle.cols };
      if (this.palette) {
        this.clues.row_colours = puzzle.row_colours;
        this.clues.col_colours = puzzle.col_colours;
      }
      this.setKindQuiet("clues");
    }
    this.last = null;
    this.version += 1;
  }

  setKindQuiet(kind) {
    this.kind = kind;
    $(kind === "picture" ? "kind-picture" : "kind-clues").checked = true;
    $("clue-editor").hidden = kind !== "clues";
    for (const id of ["edit-clear", "edit-invert", "shift-left", "shift-right", "shift-up", "shift-down"]) {
      $(id).disabled = kind !== "picture";
    }
    $("edit-invert").disabled = kind !== "picture" || !!this.palette;
    if (kind === "clues" && this.palette) {
      $("clue-rows").value = this.clues.rows.map((clue, i) => colourClueLine(clue, this.clues.row_colours[i])).join("\n");
      $("clue-cols").value = this.clues.cols.map((clue, i) => colourClueLine(clue, this.clues.col_colours[i])).join("\n");
    } else if (kind === "clues") {
      $("clue-rows").value = this.clues.rows.map(clueLine).join("\n");
      $("clue-cols").value = this.clues.cols.map(clueLine).join("\n");
    }
  }

  setKind(kind) {
    if (kind === this.kind) return;
    this.record();
    if (kind === "clues") {
      this.clues = cluesOf(this.picture, !!this.palette);
    } else {
      const sol = this.last && this.last.solutions && this.last.solutions[0];
      this.picture = sol ? sol.map((row) => Array.from(row)) : makeGrid(this.clues.rows.length, this.clues.cols.length, ".");
      if (!sol) say("no solution known: the picture starts empty");
    }
    this.setKindQuiet(kind);
    this.changed();
  }

  solutionToPicture() {
    const sol = this.last && this.last.status === "unique" && this.last.solutions[0];
    if (!sol) return;
    this.record();
    this.picture = sol.map((row) => Array.from(row));
    this.setKindQuiet("picture");
    this.changed();
  }

  applyClues() {
    try {
      let rows;
      let cols;
      let colours = {};
      if (this.palette) {
        const n = this.palette.length;
        const r = parseColourClues($("clue-rows").value, n, this.clues.rows.length);
        const c = parseColourClues($("clue-cols").value, n, this.clues.cols.length);
        [rows, cols] = [r.clues, c.clues];
        colours = { row_colours: r.colours, col_colours: c.colours };
      } else {
        rows = parseClues($("clue-rows").value, this.clues.rows.length);
        cols = parseClues($("clue-cols").value, this.clues.cols.length);
      }
      if (!rows.length || !cols.length || rows.length > 100 || cols.length > 100) {
        throw new Error("give 1 to 100 rows and columns");
      }
      this.record();
      const sameSize = rows.length === this.clues.rows.length && cols.length === this.clues.cols.length;
      this.clues = { rows, cols, ...colours };
      if (!sameSize) this.givens.clear();
      say("");
      this.changed();
    } catch (err) {
      say(`clues: ${err.message}`, true);
    }
  }

  resize(h, w) {
    if (!(h >= 1 && h <= 100 && w >= 1 && w <= 100)) { say("the size must be 1 to 100", true); return; }
    if (h === this.height && w === this.width) return;
    this.record();
    if (this.kind === "picture") {
      this.picture = Array.from({ length: h }, (_, r) => Array.from({ length: w }, (_, c) => (this.picture[r] && this.picture[r][c]) || "."));
    } else {
      const fit = (list, n) => Array.from({ length: n }, (_, i) => (i < list.length ? list[i] : []));
      this.clues = { rows: fit(this.clues.rows, h), cols: fit(this.clues.cols, w) };
      if (this.palette) Object.assign(this.clues, { row_colours: fit(this.clues.row_colours || [], h), col_colours: fit(this.clues.col_colours || [], w) });
      this.setKindQuiet("clues");
    }
    for (const key of Array.from(this.givens.keys())) {
      const [r, c] = key.split(",").map(Number);
      if (r >= h || c >= w) this.givens.delete(key);
    }
    this.changed();
  }

  transform(fn) {
    this.record();
    this.picture = fn(this.picture);
    this.givens.clear();
    this.changed();
  }

  /** Draw everything on the board (entering the mode, or after a change of size). */
  show() {
    const grid = this.app.grid;
    const puzzle = this.puzzle();
    $("edit-height").value = this.height;
    $("edit-width").value = this.width;
    grid.build(this.height, this.width, longestClue(puzzle));
    grid.clearMarks();
    grid.setPalette(this.palette);
    grid.setClues(puzzle.rows, puzzle.cols, puzzle.row_colours, puzzle.col_colours);
    this.showCells();
    if (this.last) this.showAnalysis(this.last);
    else this.schedule();
  }

  showCells() {
    const grid = this.app.grid;
    if (this.kind === "picture") grid.setAll(this.picture);
    else {
      const sol = this.last && this.last.solutions && this.last.solutions[0];
      grid.setAll(sol || makeGrid(this.height, this.width, "?"));
    }
    grid.mark("given", Array.from(this.givens.keys(), (k) => k.split(",").map(Number)));
    const proposal = this.app.pictures && this.app.pictures.proposal;
    if (proposal && proposal.version === this.version) grid.mark("proposed", proposal.changed);
  }

  /**
   * Painting (GridView callback). A painted cell is drawn at once; its clues, the verdict's
   * schedule and the address follow once a frame (requestAnimationFrame), not once a cell: on
   * 100x100, recomputing 200 clues and re-measuring the board for every pointer event made
   * tasks over 50 ms.
   */
  paint({ r, c, phase, button }) {
    if (this.kind !== "picture") return;
    if (phase === "end") { // the clues may have grown: the board must still fit
      this.flushPaint();
      this.app.grid.fit(longestClue(this.live || cluesOf(this.picture, !!this.palette)));
      this.live = null;
      if (this.stroke && this.stroke.changed) this.history.record(this.stroke.before);
      this.stroke = null;
      return;
    }
    if (phase === "start") {
      const pen = this.palettePanel.pen();
      this.value = button === 2 || this.picture[r][c] === pen ? "." : pen;
      this.stroke = { before: this.snapshot(), changed: false }; // one stroke = one step
      // the clues during the stroke, kept up to date line by line (incremental: the painted
      // cells' rows and columns only)
      this.live = cluesOf(this.picture, !!this.palette);
      this.dirty = { rows: new Set(), cols: new Set() };
    }
    if (this.picture[r][c] === this.value) return;
    if (this.stroke) this.stroke.changed = true;
    this.picture[r][c] = this.value;
    if (this.givens.has(`${r},${c}`)) this.givens.set(`${r},${c}`, this.value);
    this.app.grid.set(r, c, this.value);
    if (this.dirty) { this.dirty.rows.add(r); this.dirty.cols.add(c); }
    this.version += 1; // a verdict on its way is of an older picture from now on
    // and the verdict shown is stale at once, not only from the next frame's schedule (a test
    // that read the verdict between a paint and that frame got the previous picture's)
    $("verdict").dataset.busy = "true";
    $("verdict").dataset.verdictBusy = "true";
    if (!this.paintFrame) this.paintFrame = requestAnimationFrame(() => this.flushPaint());
  }

  /** The clues and the rest of a change for the cells painted since the last frame. */
  flushPaint() {
    if (!this.paintFrame) return;
    cancelAnimationFrame(this.paintFrame);
    this.paintFrame = 0;
    const colour = !!this.palette;
    const live = this.live;
    if (live && this.dirty) {
      for (const r of this.dirty.rows) {
        if (colour) {
          const b = colourBlocks(this.picture[r]);
          live.rows[r] = b.lengths;
          live.row_colours[r] = b.colours;
        } else live.rows[r] = blocks(this.picture[r]);
      }
      for (const c of this.dirty.cols) {
        const line = this.picture.map((row) => row[c]);
        if (colour) {
          const b = colourBlocks(line);
          live.cols[c] = b.lengths;
          live.col_colours[c] = b.colours;
        } else live.cols[c] = blocks(line);
      }
      this.dirty = { rows: new Set(), cols: new Set() };
    }
    const clues = live || cluesOf(this.picture, colour);
    this.app.grid.setClues(clues.rows, clues.cols, clues.row_colours, clues.col_colours);
    this.changed(true);
  }

  /** Something changed: redraw (unless `drawn` already), re-analyse soon. */
  changed(drawn = false) {
    this.version += 1;
    if (this.app.keep) this.app.keep.changed();
    if (this.app.pictures && this.app.pictures.proposal) this.app.pictures.discard(true);
    this.last = null;
    $("verdict").dataset.busy = "true";
    $("verdict").dataset.verdictBusy = "true";
    if (this.app.mode === "edit") {
      if (!drawn) this.show();
      else this.schedule();
    }
    this.app.puzzleChanged();
  }

  schedule() {
    $("verdict").dataset.busy = "true";
    $("verdict").dataset.verdictBusy = "true";
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.analyse(), DEBOUNCE_MS);
  }

  givenState() {
    const grid = makeGrid(this.height, this.width, "?");
    for (const [key, v] of this.givens) {
      const [r, c] = key.split(",").map(Number);
      if (grid[r]) grid[r][c] = v;
    }
    return gridRows(grid);
  }

  /**
   * Ask for the analysis of the drawing as it is now, streamed: the verdict's line comes as soon
   * as the verdict is known and is shown at once (`#verdict[data-verdict-busy]` false); the map,
   * grade and suggestions follow with the whole analysis (`#verdict[data-busy]` false). An
   * edit in between makes the answer stale: the next request supersedes it on the server, which
   * stops its work, and what still arrives is dropped.
   */
  async analyse() {
    const version = this.version;
    const puzzle = this.puzzle();
    const current = () => version === this.version;
    $("verdict").dataset.busy = "true";
    $("verdict").dataset.verdictBusy = "true";
    try {
      const response = await postRaw("analyse", { puzzle, suggest: false, stream: true }, "analyse");
      if (!response || !current()) return;
      for await (const line of jsonLines(response, () => !current())) {
        if (line.stage === "verdict") {
          this.showVerdict(line);
          continue;
        }
        if (line.stage === "superseded") return;
        if (line.stage === "error") { say(line.detail, true); throw new ApiError(500, line.detail); }
        this.last = line;
        this.showAnalysis(line);
        $("verdict").dataset.busy = "false";
        $("verdict").dataset.verdictBusy = "false";
        if (line.status === "multiple") this.suggest(puzzle, version);
      }
    } catch (err) {
      if (!current()) return;
      this.showError(shown(err) ? err.message : String(err));
    }
  }

  /** The verdict alone (the first line of a streamed analysis): the map and grade follow. */
  showVerdict(out) {
    const verdict = $("verdict");
    verdict.dataset.status = out.status;
    verdict.textContent = VERDICT[out.status] || out.status;
    const ms = (s) => (s < 0.1 ? `${(s * 1000).toFixed(1)} ms` : `${s.toFixed(2)} s`);
    $("verdict-detail").textContent = `${out.classification} · `
      + (out.status === "unknown" ? `${engine(out.engine)} gave up after ${ms(out.solve_time_s)}`
        : `decided by ${engine(out.engine)} in ${ms(out.solve_time_s)}`)
      + " · map and grade on their way…";
    $("grade").textContent = "…";
    verdict.dataset.verdictBusy = "false";
  }

  /** An analysis found by Keep trying (for the current puzzle) replaces the live one. */
  takeAnalysis(out) {
    this.last = out;
    $("verdict").dataset.busy = "false";
    $("verdict").dataset.verdictBusy = "false";
    this.showAnalysis(out);
    if (out.status === "multiple" && !(out.suggestions && out.suggestions.length)) {
      this.suggest(this.puzzle(), this.version);
    }
  }

  /**
   * Keep trying has the verdict (`status`) but not yet (or never) the whole analysis: show it,
   * with `detail` saying how it was found; the map and grade stay open.
   */
  takeVerdict(status, detail) {
    const base = this.last || {};
    if (base.status === status && base.detail === detail) return;
    this.last = { ...base, status, detail, classification: { unique: "unique solution",
      multiple: "several solutions", none: "no solution" }[status] || status,
    backbone_complete: status === "multiple" ? false : base.backbone_complete,
    grade: status === "unique" ? { level: null, name: "not graded yet", reason: "the grade is still being computed" }
      : { level: null, name: "not graded", reason: status === "none" ? "no solution" : "several solutions" },
    techniques: {}, suggestions: [], noSuggest: true };
    $("verdict").dataset.busy = "false";
    $("verdict").dataset.verdictBusy = "false";
    this.showAnalysis(this.last);
  }

  /** The verdict could not be had: no verdict, no difficulty, no suggestions shown. */
  showError(message) {
    $("verdict").dataset.busy = "false";
    $("verdict").dataset.verdictBusy = "false";
    $("verdict").dataset.status = "error";
    $("verdict").textContent = "—";
    $("verdict-detail").textContent = message;
    $("grade").textContent = "—";
    $("techniques").textContent = "";
    this.showSuggestions([], "");
    this.app.grid.unmark("ambiguous");
  }

  showAnalysis(out) {
    const verdict = $("verdict");
    verdict.dataset.status = out.status;
    verdict.textContent = VERDICT[out.status] || out.status;
    const ms = (s) => (s < 0.1 ? `${(s * 1000).toFixed(1)} ms` : `${s.toFixed(2)} s`);
    const took = ms(out.solve_time_s ?? out.time_s);
    $("verdict-detail").textContent = out.detail ? `${out.classification} · ${out.detail}`
      : `${out.classification} · ${out.status === "unknown" ? `${engine(out.engine)} gave up after ${took}`
        : `decided by ${engine(out.engine)} in ${took}`} (analysis ${ms(out.time_s)})`
      + (out.backbone_complete === false ? " · ambiguity map incomplete (time limit)" : "");
    $("givens-line").hidden = this.givens.size === 0;
    $("givens-count").textContent = `${this.givens.size} given cell${this.givens.size === 1 ? "" : "s"}`;
    const g = out.grade;
    $("grade").textContent = !g ? "—" : g.level == null ? `${g.name}: ${g.reason}`
      : `${g.level} · ${g.name} (score ${g.score})${g.exact === false ? " ≈" : ""}`;
    const tech = techniqueList(out.techniques);
    $("techniques").textContent = (g && g.reason ? g.reason + ". " : "")
      + (tech ? `Steps: ${tech}. ` : "") + `Guesses: ${out.guesses ?? 0}.`;
    $("to-picture").hidden = !(this.kind === "clues" && out.status === "unique");
    if (this.app.mode === "edit") {
      if (this.kind === "clues") this.showCells();
      this.app.grid.mark("ambiguous", out.ambiguous || []);
    }
    if (out.status !== "multiple") {
      this.showSuggestions([], { unique: "nothing to do: the solution is unique",
        none: "no solution: change the picture or the clues" }[out.status] || "");
    }
    else if (out.suggestions && out.suggestions.length) this.showSuggestions(out.suggestions, "");
    else this.showSuggestions([], out.noSuggest ? "" : "looking for suggestions…");
  }

  async suggest(puzzle, version) {
    try {
      const out = await post("suggest", { puzzle }, "suggest");
      if (!out || version !== this.version) return;
      if (this.last) this.last.suggestions = out.suggestions;
      this.showSuggestions(out.suggestions, out.suggestions.length ? "" : "no suggestion found in time");
    } catch {
      if (version === this.version) this.showSuggestions([], "");
    }
  }

  showSuggestions(list, note) {
    this.app.grid.unmark("preview");
    const ul = $("suggestions");
    ul.textContent = "";
    if (note) {
      const li = document.createElement("li");
      li.className = "note";
      li.textContent = note;
      ul.append(li);
    }
    for (const s of list) {
      const li = document.createElement("li");
      li.className = "suggestion";
      li.dataset.kind = s.kind;
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = s.kind === "give" ? "Give" : "Edit";
      button.title = s.kind === "give" ? "Fix these cells as givens" : "Change this cell of the picture";
      button.onclick = () => this.apply(s);
      const text = document.createElement("span");
      text.textContent = s.text;
      li.append(button, text);
      // hovering (or focusing) a suggestion outlines its cells on the board
      const cells = s.kind === "give" ? s.cells : [s.cell];
      const show = () => this.app.grid.mark("preview", cells);
      const hide = () => this.app.grid.unmark("preview");
      li.addEventListener("mouseenter", show);
      li.addEventListener("mouseleave", hide);
      button.addEventListener("focus", show);
      button.addEventListener("blur", hide);
      ul.append(li);
    }
  }

  /** Apply a make-unique suggestion. */
  apply(s) {
    if (s.kind === "edit") {
      const [r, c] = s.cell;
      if (this.kind !== "picture") return;
      this.record();
      this.picture[r][c] = s.value;
      if (this.givens.has(`${r},${c}`)) this.givens.set(`${r},${c}`, s.value);
    } else {
      this.record();
      for (const [r, c, v] of s.cells) this.givens.set(`${r},${c}`, v);
    }
    this.changed();
  }
}
