// Open and save: file picker and drag-and-drop (POST /api/parse, a chooser for multi-puzzle
// files), the gallery, downloads in every writable format, pictures, the certificate bundle,
// and printing.

import { get, postForm, postRaw, say, shown } from "./api.js";

const $ = (id) => document.getElementById(id);

export class Files {
  /** `open(puzzle)` is called with each puzzle opened; `current()` gives the puzzle to save. */
  constructor(open, current) {
    this.open = open;
    this.current = current;
    this.file = null;
    $("open-file").onclick = () => $("file-input").click();
    $("file-input").onchange = (e) => {
      if (e.target.files[0]) this.openFile(e.target.files[0]);
      e.target.value = "";
    };
    document.addEventListener("dragover", (e) => { e.preventDefault(); document.body.classList.add("dropping"); });
    document.addEventListener("dragleave", () => document.body.classList.remove("dropping"));
    document.addEventListener("drop", (e) => {
      e.preventDefault();
      document.body.classList.remove("dropping");
      const file = e.dataTransfer && e.dataTransfer.files[0];
      if (file) this.openFile(file);
    });
    $("chooser-open").onclick = () => this.openFile(this.file, Number($("chooser-select").value));
    $("gallery").onchange = (e) => { if (e.target.value) this.openGallery(e.target.value); };
    $("download").onclick = () => this.download($("download-format").value);
    $("print").onclick = () => window.print();
  }

  /** Fill the gallery and the download formats. */
  async init() {
    try {
      const [entries, formats] = await Promise.all([get("gallery"), get("formats")]);
      const gallery = $("gallery");
      for (const e of entries || []) {
        gallery.append(new Option(`${e.name} (${e.width}x${e.height})`, e.id));
      }
      const select = $("download-format");
      const group = (label, options) => {
        const g = document.createElement("optgroup");
        g.label = label;
        for (const [value, text] of options) g.append(new Option(text, value));
        select.append(g);
      };
      const writers = formats ? formats.write : [];
      // a suffix several formats write (grid and picross: .txt) gets the format's name too
      const seen = {};
      for (const f of writers) { const x = f.suffixes[0] || ".txt"; seen[x] = (seen[x] || 0) + 1; }
      this.tags = {};
      for (const f of writers) if (seen[f.suffixes[0] || ".txt"] > 1) this.tags[f.name] = `-${f.name}`;
      this.keepsGivens = Object.fromEntries(writers.map((f) => [f.name, !!f.stores_givens]));
      group("Puzzle file", writers.map((f) => [
        `to:${f.name}`, `${f.name} (${f.suffixes.join(" ") || "text"})${f.stores_picture ? " · picture" : ""}${f.colour ? " · colour" : ""}`]));
      group("Picture", [["svg", "SVG"], ["svg-solution", "SVG with solution"], ["png", "PNG"],
        ["png-solution", "PNG with solution"]]);
      group("Proof", [["certify", "certificate bundle (zip)"]]);
    } catch (err) {
      if (!shown(err)) throw err;
    }
  }

  async openFile(file, index = null) {
    if (!file) return;
    this.file = file;
    const form = new FormData();
    form.append("file", file, file.name);
    if (index !== null) form.append("index", String(index));
    say(`reading ${file.name}…`);
    let out;
    try {
      out = await postForm("parse", form);
    } catch (err) {
      if (!shown(err)) throw err;
      return;
    }
    if (!out) return;
    const chooser = $("chooser");
    chooser.hidden = out.count <= 1;
    if (out.count > 1) {
      $("chooser-count").textContent = String(out.count);
      const select = $("chooser-select");
      select.textContent = "";
      out.names.forEach((name, i) => select.append(new Option(name, String(i))));
      select.value = String(out.index);
    }
    say(`opened ${out.names[out.index] || file.name}`);
    this.open(out.puzzle);
  }

  async openGallery(id) {
    try {
      const out = await get(`gallery/${encodeURIComponent(id)}`);
      if (!out) return;
      $("chooser").hidden = true;
      if (!out.puzzle.name) out.puzzle.name = out.name;
      say(`opened ${out.name} (${out.source})`);
      this.open(out.puzzle);
      return true;
    } catch (err) {
      if (!shown(err)) throw err;
      return false;
    }
  }

  async download(choice) {
    const puzzle = this.current();
    let path;
    let body;
    if (choice.startsWith("to:")) { path = "convert"; body = { puzzle, to: choice.slice(3) }; }
    else if (choice === "certify") { path = "certify"; body = { puzzle }; }
    else {
      const [format, sol] = choice.split("-");
      path = "render";
      body = { puzzle, format, solution: sol === "solution" };
    }
    say(path === "certify" ? "certifying…" : "preparing the download…");
    let response;
    try {
      response = await postRaw(path, body, "download");
    } catch (err) {
      if (!shown(err)) throw err;
      return;
    }
    if (!response) return;
    const blob = await response.blob();
    const match = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    let name = match ? match[1] : "puzzle";
    // distinct names per kind: Heart.svg and Heart-solution.svg, Heart-grid.txt and Heart-picross.txt
    const tag = path === "render" ? (body.solution ? "-solution" : "")
      : path === "convert" ? (this.tags && this.tags[body.to]) || "" : "";
    if (tag) name = name.replace(/(\.[A-Za-z0-9]+)?$/, (x) => tag + x);
    let givensNote = "";
    let beside = null;
    if (puzzle.givens) {
      const kept = response.headers.get("X-Nonosat-Givens");
      if (path === "convert" && kept !== "kept") {
        beside = name.replace(/(\.[A-Za-z0-9]+)?$/, "-givens.txt");
        givensNote = `; this format cannot hold the givens: they are in ${beside} beside it `
          + "(nonosat solve FILE --state GIVENS)";
      } else if (path !== "convert") {
        givensNote = path === "certify" ? "; the givens were dropped (the certificate is of the clues alone)"
          : "; the givens are not drawn in the picture (they were dropped)";
      } else {
        givensNote = "; the givens are saved in it";
      }
    }
    if (path === "certify") {
      name = name === "puzzle" ? "certificate.zip" : name;
      const verdict = response.headers.get("X-Nonosat-Verdict");
      const certified = response.headers.get("X-Nonosat-Certified") === "true";
      say(`certificate: verdict ${verdict}, ${certified ? "certified (proof checked)" : "not certified"}${givensNote}`);
    } else {
      say(`saved ${name}${givensNote}`);
    }
    this.save(blob, name);
    if (beside) {
      // a colour puzzle's grid is in the characters of the file's palette (the server's)
      const state = response.headers.get("X-Nonosat-Givens-State");
      const text = state !== null ? decodeURIComponent(state) : puzzle.givens.map((row) => row + "\n").join("");
      this.save(new Blob([text], { type: "text/plain" }), beside);
    }
  }

  /** Hand `blob` to the browser as a download named `name`. */
  save(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }
}
