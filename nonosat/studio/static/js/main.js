// The studio page: mode switching (edit / play / steps), keyboard, start-up from the address.

import { say, shown } from "./api.js";
import { Editor } from "./editor.js";
import { Files } from "./files.js";
import { KeepTrying } from "./keep.js";
import { GridView } from "./grid.js";
import { PictureTools } from "./picture.js";
import { Player } from "./player.js";
import { fromUrl, scheduleUrl, storageKey } from "./share.js";
import { Stepper } from "./steps.js";

const $ = (id) => document.getElementById(id);
const MODES = ["edit", "play", "steps"];

const app = {
  mode: "edit",
  grid: null,
  editor: null,
  player: null,
  stepper: null,
  playing: null, // the clues (JSON) the player holds

  /** The editor's puzzle changed. */
  puzzleChanged() {
    $("puzzle-title").textContent = this.editor.name || "";
    scheduleUrl(() => ({ mode: this.mode, puzzle: this.editor.puzzle() }));
  },

  /** Open a puzzle (file, gallery, address) in the current mode. */
  open(puzzle, record = true) {
    this.editor.load(puzzle, record);
    this.setMode(this.mode, true);
  },

  async setMode(mode, force = false) {
    if (mode === this.mode && !force) return;
    // data-mode-shown is the mode once its board is drawn (play waits for its storage key)
    const call = (this.modeCalls = (this.modeCalls || 0) + 1);
    delete document.body.dataset.modeShown;
    const previous = this.mode;
    if (previous === "play") this.player.hide();
    if (previous === "steps") this.stepper.pause();
    this.mode = mode;
    document.body.dataset.mode = mode;
    for (const m of MODES) {
      $(`mode-${m}`).setAttribute("aria-pressed", String(m === mode));
      $(`panel-${m}`).hidden = m !== mode;
    }
    this.grid.clearMarks();
    this.puzzleChanged();
    const puzzle = this.editor.puzzle();
    if (mode === "edit") this.editor.show();
    else if (mode === "steps") await this.stepper.show(puzzle);
    else {
      const clues = JSON.stringify([puzzle.rows, puzzle.cols, puzzle.givens || null, puzzle.row_colours, puzzle.col_colours, puzzle.palette]);
      if (this.playing !== clues) {
        const key = await storageKey(puzzle);
        if (this.mode !== "play") return;
        this.player.load(puzzle, key);
        this.playing = clues;
      }
      this.player.show();
    }
    if (call === this.modeCalls) document.body.dataset.modeShown = mode;
  },
};

function paint(event) {
  if (app.mode === "edit") app.editor.paint(event);
  else if (app.mode === "play") app.player.paint(event);
}

function keydown(e) {
  const t = e.target;
  const typing = t && (t.tagName === "TEXTAREA" || t.tagName === "SELECT"
    || (t.tagName === "INPUT" && !["radio", "checkbox", "file", "button", "range"].includes(t.type)));
  if (typing) return;
  let used = false;
  if (app.mode === "edit") used = app.editor.key(e);
  else if (app.mode === "play") used = app.player.key(e);
  else if (app.mode === "steps") used = app.stepper.key(e);
  if (!used && !e.ctrlKey && !e.metaKey && !e.altKey) {
    const mode = { e: "edit", p: "play", s: "steps" }[e.key.toLowerCase()];
    if (mode) { app.setMode(mode); used = true; }
  }
  if (used) e.preventDefault();
}

async function start() {
  app.grid = new GridView($("board"), paint);
  app.editor = new Editor(app);
  app.player = new Player(app);
  app.stepper = new Stepper(app);
  app.pictures = new PictureTools(app);
  app.keep = new KeepTrying(app);
  const files = new Files((puzzle) => app.open(puzzle), () => app.editor.puzzle());
  for (const m of MODES) $(`mode-${m}`).onclick = () => app.setMode(m);
  document.addEventListener("keydown", keydown);
  files.init();
  let mode = "edit";
  try {
    const found = await fromUrl();
    if (found.mode) mode = found.mode;
    if (found.puzzle) app.editor.load(found.puzzle, false);
    else if (found.open && !(await files.openGallery(found.open))) say(`no gallery entry ${found.open}`, true);
  } catch (err) {
    if (!shown(err)) say(String(err), true);
  }
  await app.setMode(mode, true);
  document.body.dataset.ready = "true";
}

start();
