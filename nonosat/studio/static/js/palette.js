// Colour puzzles in the page: the editor's palette (add, rename, recolour, remove colours; the
// colour to draw with), the player's colour picker, and the clue text of colour lines.
//
// A palette is [{name, rgb}] with colour 0 the background; cells of a colour picture are "."
// (background) and "a", "b", ... (INDEX in grid.js) for colours 1, 2, .... Colour names are
// untrusted text: they only ever reach the page as textContent, input values or titles, and
// colours are accepted only as #rrggbb.

import { INDEX, safeColour } from "./grid.js";

const HEX = /^#[0-9a-fA-F]{6}$/;
const MAX_COLOURS = 31; // background included (the server's limit)
const MAX_NAME = 40;
const DEFAULTS = [["black", "#111111"], ["red", "#d62828"], ["blue", "#1d4ed8"], ["green", "#2a9d3f"],
  ["yellow", "#f4c20d"], ["orange", "#f77f00"], ["purple", "#7b2cbf"], ["brown", "#8b5a2b"],
  ["pink", "#f08cba"], ["grey", "#8a8a8a"], ["cyan", "#1fb5c9"]];

/** The problem with a palette (a one-line message), or "" when it is fine. */
export function paletteProblem(palette) {
  if (!Array.isArray(palette) || palette.length < 2) return "a palette needs the background and a colour";
  if (palette.length > MAX_COLOURS) return `at most ${MAX_COLOURS - 1} colours`;
  const seen = new Set();
  for (const [k, p] of palette.entries()) {
    const name = String(p.name || "").trim();
    if (!name) return `colour ${k} needs a name`;
    if (name.length > MAX_NAME) return `colour ${k}: a name of at most ${MAX_NAME} characters`;
    if (/[\u0000-\u001f\u007f]/.test(name)) return `colour ${k}: the name has control characters`;
    if (seen.has(name)) return `two colours are called "${name}"`;
    seen.add(name);
    if (!HEX.test(p.rgb)) return `colour ${k}: not a #rrggbb colour`;
  }
  return "";
}

/** A clean copy of a palette from the server or a file ({name, rgb} only). */
export function copyPalette(palette) {
  return palette ? palette.map((p) => ({ name: String(p.name), rgb: safeColour(p.rgb) })) : null;
}

/** A clue line of a colour clue: "3a 1b" (lengths with their colours' letters), "?" unknown. */
export function colourClueLine(clue, colours) {
  if (clue === null) return "?";
  return clue.map((n, i) => `${n}${INDEX[(colours || [])[i]] || "?"}`).join(" ");
}

/** Parse the clue text of colour lines (one per line, "3a 1b", empty or 0 = empty, ? = unknown)
 * into {clues, colours}; blank lines at the end beyond `size` are dropped (as parseClues in
 * editor.js). Throws Error naming the line. */
export function parseColourClues(text, n, size = 0) {
  const clues = [];
  const colours = [];
  const lines = text.replace(/\r/g, "").split("\n");
  while (lines.length > Math.max(size, 1) && lines[lines.length - 1].trim() === "") lines.pop();
  lines.forEach((line, i) => {
    const t = line.trim();
    if (t === "?") { clues.push(null); colours.push(null); return; }
    if (t === "" || t === "0" || t === "-") { clues.push([]); colours.push([]); return; }
    const lengths = [];
    const cols = [];
    for (const token of t.split(/[\s,]+/)) {
      const m = /^(\d+)([a-zA-D])$/.exec(token);
      const k = m ? INDEX.indexOf(m[2]) : -1;
      if (!m || k < 1 || k >= n || +m[1] < 1) {
        throw new Error(`line ${i + 1}: "${token}" is not a block (a length and a colour letter a-${INDEX[n - 1]})`);
      }
      lengths.push(+m[1]);
      cols.push(k);
    }
    clues.push(lengths);
    colours.push(cols);
  });
  return { clues, colours };
}

function el(tag, props = {}) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  return e;
}

/**
 * The editor's palette panel. `onChange(palette, remap)` is called after an accepted change
 * (`remap`: old colour index -> new one, or null when the indices did not move);
 * `onToggle(colour)` when the author switches between black-and-white and colour.
 */
export class PaletteEditor {
  constructor(container, { onChange, onToggle }) {
    this.onChange = onChange;
    this.onToggle = onToggle;
    this.palette = null;
    this.selected = 1;
    this.box = el("div", { id: "palette-editor" });
    const toggle = el("label", { title: "Draw in colours (webpbn's colour rules)" });
    this.colourBox = el("input", { type: "checkbox", id: "edit-colour" });
    this.colourBox.onchange = () => this.onToggle(this.colourBox.checked);
    toggle.append(this.colourBox, document.createTextNode(" Colour puzzle"));
    const row = el("div", { className: "row" });
    row.append(toggle);
    this.list = el("div", { className: "palette", id: "palette" });
    this.list.setAttribute("role", "radiogroup");
    this.list.setAttribute("aria-label", "Colour to draw with");
    this.add = el("button", { type: "button", id: "palette-add", textContent: "Add colour",
      title: "Add a colour to the palette" });
    this.add.onclick = () => this.addColour();
    this.note = el("p", { className: "note", id: "palette-note" });
    this.box.append(row, this.list, this.add, this.note);
    container.append(this.box);
    this.render();
  }

  /** Show `palette` (null: black-and-white). */
  set(palette) {
    this.palette = copyPalette(palette);
    if (this.palette && (this.selected < 0 || this.selected >= this.palette.length)) this.selected = 1;
    this.render();
  }

  /** The character the pen draws with ("#" in black-and-white). */
  pen() {
    return this.palette ? INDEX[this.selected] : "#";
  }

  select(k) {
    this.selected = k;
    for (const [i, row] of Array.from(this.list.children).entries()) {
      row.classList.toggle("selected", i === k);
      row.querySelector("input[type=radio]").checked = i === k;
    }
  }

  render() {
    this.colourBox.checked = !!this.palette;
    this.list.textContent = "";
    this.list.hidden = !this.palette;
    this.add.hidden = !this.palette;
    this.note.textContent = "";
    if (!this.palette) return;
    this.palette.forEach((p, k) => {
      const row = el("div", { className: "swatch-row" });
      row.dataset.index = String(k);
      const radio = el("input", { type: "radio", name: "palette-pen", checked: k === this.selected,
        title: k ? `Draw with ${p.name} (key ${k})` : "Draw the background (erase)" });
      radio.setAttribute("aria-label", k ? `draw with colour ${k}` : "draw the background");
      radio.onchange = () => this.select(k);
      const colour = el("input", { type: "color", value: p.rgb, title: "Change the colour" });
      colour.setAttribute("aria-label", `colour ${k}`);
      colour.onchange = () => this.update(k, { rgb: colour.value });
      const name = el("input", { type: "text", value: p.name, maxLength: MAX_NAME, spellcheck: false,
        title: k ? "The colour's name" : "The background's name" });
      name.setAttribute("aria-label", `name of colour ${k}`);
      name.onchange = () => this.update(k, { name: name.value.trim() });
      row.append(radio, colour, name);
      if (k === 0) row.append(el("span", { className: "note", textContent: "background" }));
      else if (this.palette.length > 2) {
        const remove = el("button", { type: "button", textContent: "×", title: "Remove this colour (its cells become background)" });
        remove.setAttribute("aria-label", `remove colour ${k}`);
        remove.onclick = () => this.removeColour(k);
        row.append(remove);
      }
      row.classList.toggle("selected", k === this.selected);
      this.list.append(row);
    });
    this.add.disabled = this.palette.length >= MAX_COLOURS;
  }

  /** Apply `next` when it is a valid palette, else say why. */
  accept(next, remap = null) {
    const problem = paletteProblem(next);
    if (problem) { this.note.textContent = problem; this.render(); this.note.textContent = problem; return false; }
    this.palette = next;
    this.render();
    this.onChange(copyPalette(next), remap);
    return true;
  }

  update(k, change) {
    const next = this.palette.map((p, i) => (i === k ? { ...p, ...change } : { ...p }));
    this.accept(next);
  }

  addColour() {
    const used = new Set(this.palette.map((p) => p.name));
    const [name, rgb] = DEFAULTS.find(([n]) => !used.has(n)) || [`colour ${this.palette.length}`, "#777777"];
    let unique = name;
    for (let i = 2; used.has(unique); i++) unique = `${name} ${i}`;
    if (this.accept([...this.palette.map((p) => ({ ...p })), { name: unique, rgb }])) this.select(this.palette.length - 1);
  }

  removeColour(k) {
    const next = this.palette.filter((_, i) => i !== k).map((p) => ({ ...p }));
    const remap = this.palette.map((_, i) => (i === k ? 0 : i > k ? i - 1 : i));
    if (this.selected >= next.length || this.selected === k) this.selected = 1;
    else if (this.selected > k) this.selected -= 1;
    this.accept(next, remap);
  }
}

/** The player's colour picker: the colours of the puzzle (1..n-1) to fill with. */
export class ColourPicker {
  constructor(container) {
    this.box = el("div", { className: "picker", id: "colour-picker" });
    this.box.setAttribute("role", "radiogroup");
    this.box.setAttribute("aria-label", "Colour to fill with");
    this.box.hidden = true;
    container.append(this.box);
    this.palette = null;
    this.selected = 1;
  }

  set(palette) {
    this.palette = copyPalette(palette);
    this.box.textContent = "";
    this.box.hidden = !this.palette;
    if (!this.palette) return;
    if (this.selected >= this.palette.length) this.selected = 1;
    this.palette.forEach((p, k) => {
      if (k === 0) return;
      const label = el("label", { title: `Fill with ${p.name} (key ${k})` });
      label.dataset.index = String(k);
      const radio = el("input", { type: "radio", name: "play-colour", checked: k === this.selected });
      radio.onchange = () => { this.selected = k; };
      const swatch = el("span", { className: "swatch" });
      swatch.style.backgroundColor = p.rgb;
      label.append(radio, swatch, document.createTextNode(p.name));
      this.box.append(label);
    });
  }

  /** Choose colour `k` (1-based, the digit keys); false when there is no such colour. */
  choose(k) {
    if (!this.palette || k < 1 || k >= this.palette.length) return false;
    this.selected = k;
    for (const label of this.box.children) label.querySelector("input").checked = +label.dataset.index === k;
    return true;
  }

  /** The character a fill writes. */
  pen() {
    return this.palette ? INDEX[this.selected] : "#";
  }
}

/** Map the cells of a colour picture (rows of characters, changed in place) by `remap`. */
export function remapPicture(picture, remap) {
  for (const row of picture) {
    for (let c = 0; c < row.length; c++) {
      const k = INDEX.indexOf(row[c]);
      if (k > 0) row[c] = INDEX[remap[k]];
    }
  }
}
