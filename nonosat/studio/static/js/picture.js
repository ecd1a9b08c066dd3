// "Import picture" and "Make unique (fewest changes)" in the editor.
// Import: the picture file is sent to /api/picture with the sliders' values on every change
// (newer requests supersede older ones); the editor's picture is replaced by the grid.
// Make unique: /api/make-unique proposes changed cells, shown on the board (class "proposed")
// until Apply or Discard; Apply keeps the picture before, for Undo.

import { postForm, post, say, shown } from "./api.js";

const $ = (id) => document.getElementById(id);
const CLIENT = "picture-" + Math.random().toString(36).slice(2, 10);
const DEBOUNCE_MS = 120;

export class PictureTools {
  constructor(app) {
    this.app = app;
    this.file = null;
    this.seq = 0;
    this.timer = null;
    this.proposal = null; // {picture: [rows], changed: [[r, c]], version}
    this.undo = null; // the editor's picture before the last applied changes
    this.wire();
  }

  get editor() { return this.app.editor; }

  wire() {
    $("import-file").onchange = (e) => {
      this.file = e.target.files && e.target.files[0];
      this.fresh = true; // the first picture of a file is one undoable step; the sliders' redo it
      if (this.file) this.send();
    };
    const live = () => { this.labels(); if (this.file) this.schedule(); };
    $("import-width").oninput = live;
    $("import-threshold").oninput = live;
    $("import-invert").onchange = live;
    $("import-colours").oninput = live;
    $("make-unique").onclick = () => this.propose();
    $("make-unique-apply").onclick = () => this.apply();
    $("make-unique-discard").onclick = () => this.discard();
    $("make-unique-undo").onclick = () => this.restore();
    this.labels();
  }

  labels() {
    $("import-width-label").textContent = $("import-width").value;
    const t = +$("import-threshold").value;
    $("import-threshold-label").textContent = t >= 256 ? "auto" : String(t);
    const k = +$("import-colours").value;
    $("import-colours-label").textContent = k <= 1 ? "black and white" : `${k} colours`;
    // the threshold and Invert are for black and white only
    $("import-threshold").disabled = k > 1;
    $("import-invert").disabled = k > 1;
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.send(), DEBOUNCE_MS);
  }

  async send() {
    const form = new FormData();
    form.append("file", this.file);
    form.append("width", $("import-width").value);
    const t = +$("import-threshold").value;
    if (t < 256) form.append("threshold", String(t));
    form.append("invert", $("import-invert").checked ? "1" : "0");
    form.append("colours", $("import-colours").value);
    form.append("client", CLIENT);
    form.append("seq", String(++this.seq));
    const seq = this.seq;
    $("import-info").textContent = "reading the picture…";
    try {
      const out = await postForm("picture", form);
      if (!out || seq !== this.seq) return;
      this.discard(true);
      this.undo = null;
      $("make-unique-undo").hidden = true;
      this.app.open(out.puzzle, this.fresh);
      this.fresh = false;
      const th = out.threshold === null || out.threshold === undefined ? ""
        : `, threshold ${Math.round(out.threshold)}`;
      const cols = out.puzzle.palette ? `, ${out.puzzle.palette.length - 1} colours` : "";
      $("import-info").textContent = `${out.width}x${out.height} cells from `
        + `${out.source_size[0]}x${out.source_size[1]} pixels (${out.kind}, ${out.filter} filter${th}${cols})`;
      $("import-picture").dataset.ready = String(seq);
    } catch (err) {
      $("import-info").textContent = shown(err) ? err.message : String(err);
    }
  }

  async propose() {
    if (this.editor.kind !== "picture") { say("make unique works on a picture", true); return; }
    const version = this.editor.version;
    $("make-unique").disabled = true;
    $("make-unique-info").textContent = "searching…";
    try {
      const grade = $("make-unique-grade").value;
      const body = { puzzle: this.editor.puzzle() };
      if (grade) body.grade = +grade;
      const out = await post("make-unique", body, "make-unique");
      if (!out) return;
      if (version !== this.editor.version) { $("make-unique-info").textContent = ""; return; }
      const n = out.cells_changed;
      if (!n) {
        $("make-unique-info").textContent = out.reached
          ? "already unique: nothing to change" : `no change found (${out.reason})`;
        return;
      }
      this.proposal = { picture: out.picture, changed: out.changed, version };
      this.app.grid.mark("proposed", out.changed);
      $("make-unique-proposal").hidden = false;
      $("make-unique-apply").textContent = `Apply ${n} change${n === 1 ? "" : "s"}`;
      const grade_ = out.grade ? `, grade ${out.grade} (${out.grade_name})` : "";
      $("make-unique-info").textContent = `${n} cell${n === 1 ? "" : "s"} to change `
        + `(${(100 * out.share_changed).toFixed(1)}%): ${out.status}${grade_}`
        + (out.reached ? "" : `; target not reached: ${out.reason}`)
        + ` [${out.time_s.toFixed(2)} s]`;
    } catch (err) {
      $("make-unique-info").textContent = shown(err) ? err.message : String(err);
    } finally {
      $("make-unique").disabled = false;
    }
  }

  apply() {
    const p = this.proposal;
    if (!p || p.version !== this.editor.version) { this.discard(); return; }
    this.undo = this.editor.picture.map((row) => row.slice());
    this.editor.record();
    this.editor.picture = p.picture.map((row) => Array.from(row));
    this.discard(true);
    $("make-unique-undo").hidden = false;
    $("make-unique-info").textContent = `applied ${p.changed.length} change`
      + `${p.changed.length === 1 ? "" : "s"}`;
    this.editor.changed();
  }

  discard(quiet = false) {
    this.proposal = null;
    $("make-unique-proposal").hidden = true;
    this.app.grid.unmark("proposed");
    if (!quiet) $("make-unique-info").textContent = "";
  }

  restore() {
    if (!this.undo) return;
    this.editor.record();
    this.editor.picture = this.undo;
    this.undo = null;
    $("make-unique-undo").hidden = true;
    $("make-unique-info").textContent = "changes undone";
    this.editor.changed();
  }
}
