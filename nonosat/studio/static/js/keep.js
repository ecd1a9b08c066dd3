// "Keep trying": the editor's analysis run on in the background (POST /api/keep-trying, polled
// with GET /api/keep-trying/{job}, cancelled with DELETE) up to a limit the author chooses, for
// puzzles the live verdict leaves undecided. Shows the elapsed time and what is known so far
// (the verdict once in, then the cells proved, ambiguous and undecided); an edit of the puzzle
// or Cancel stops it. The result, when decided, becomes the editor's analysis.

import { get, post, say, shown } from "./api.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 500;
const PHASES = { queued: "waiting for a free worker", verdict: "looking for solutions",
  grade: "grading", map: "mapping the ambiguous cells", suggestions: "looking for suggestions",
  done: "done" };
const STATUS = { unique: "unique solution", multiple: "several solutions", none: "no solution",
  unknown: "undecided" };

export class KeepTrying {
  constructor(app) {
    this.app = app;
    this.job = null; // {id, version}
    this.timer = null;
    $("keep-trying").onclick = () => this.start();
    $("keep-cancel").onclick = () => this.cancel("cancelled");
  }

  get editor() { return this.app.editor; }

  /** Start a job for the editor's puzzle (a running one is cancelled first). */
  async start() {
    await this.cancel(null);
    const version = this.editor.version;
    const limit = Number($("keep-limit").value);
    this.show("starting…", true);
    let job;
    try {
      job = await post("keep-trying", { puzzle: this.editor.puzzle(), limit, suggest: true },
        "keep-trying");
    } catch (err) {
      this.show(shown(err) ? `could not start: ${err.message}` : String(err), false);
      return;
    }
    if (!job || version !== this.editor.version) return;
    this.job = { id: job.job, version };
    this.update(job);
  }

  /** The puzzle changed (or Cancel): stop the job. `why` null = quietly. */
  async cancel(why) {
    clearTimeout(this.timer);
    const job = this.job;
    this.job = null;
    if (why) this.show(why, false);
    if (!job) return;
    if (why === "cancelled" && job.status && job.version === this.editor.version) {
      this.editor.takeVerdict(job.status, `found by Keep trying in ${job.verdictAt.toFixed(1)} s;`
        + " the ambiguity map was not finished (cancelled)");
    }
    try {
      await fetch(`/api/keep-trying/${encodeURIComponent(job.id)}`, { method: "DELETE" });
    } catch { /* the server is gone: nothing runs there either */ }
  }

  /** The editor's puzzle changed: a job for the old one is of no use. */
  changed() {
    if (this.job) this.cancel("stopped: the puzzle changed");
  }

  async poll() {
    const job = this.job;
    if (!job) return;
    let out;
    try {
      out = await get(`keep-trying/${encodeURIComponent(job.id)}`);
    } catch (err) {
      if (this.job === job) {
        this.job = null;
        this.show(shown(err) ? `stopped: ${err.message}` : String(err), false);
      }
      return;
    }
    if (this.job !== job || !out) return;
    this.update(out);
  }

  /** Show a job's answer; poll again while it runs. */
  update(out) {
    const k = out.known || {};
    const parts = [`${out.elapsed_s.toFixed(1)} s of ${out.limit_s} s`];
    if (k.status) parts.push(STATUS[k.status] || k.status);
    const counts = [];
    if (k.proved !== undefined) counts.push(`${k.proved} cells proved`);
    if (k.ambiguous !== undefined) counts.push(`${k.ambiguous} ambiguous`);
    if (k.undecided !== undefined) counts.push(`${k.undecided} undecided`);
    if (counts.length) parts.push(counts.join(", "));
    const $status = $("keep-status");
    $status.dataset.state = out.state;
    $status.dataset.status = k.status || "";
    // the verdict is in before the whole analysis: show it at once (the map may take long)
    const early = k.status && k.status !== "unknown" && !(out.state === "done" && out.result);
    if (early && this.job && this.job.version === this.editor.version) {
      if (this.job.verdictAt === undefined) this.job.verdictAt = k.verdict_s ?? out.elapsed_s;
      this.job.status = k.status;
      const rest = { running: "; still working on the ambiguity map and the grade",
        "gave up": "; the ambiguity map was not finished within the limit",
        cancelled: "; the ambiguity map was not finished (cancelled)" }[out.state] || "";
      this.editor.takeVerdict(k.status,
        `found by Keep trying in ${this.job.verdictAt.toFixed(1)} s${rest}`);
    }
    if (out.state === "running") {
      this.show(`${PHASES[out.phase] || out.phase} · ${parts.join(" · ")}`, true);
      this.timer = setTimeout(() => this.poll(), POLL_MS);
      return;
    }
    const job = this.job;
    this.job = null;
    if (job && job.version === this.editor.version && out.result && out.result.status !== "unknown") {
      this.editor.takeAnalysis(out.result);
    }
    const head = { done: "decided", "gave up": "gave up at the limit", cancelled: "cancelled",
      failed: `failed: ${out.detail || "?"}` }[out.state] || out.state;
    this.show(`${head} · ${parts.join(" · ")}`, false);
    $status.dataset.state = out.state;
    if (out.state === "failed") say(`Keep trying failed: ${out.detail || "?"}`, true);
  }

  show(text, running) {
    $("keep-status").textContent = text;
    $("keep-trying").hidden = running;
    $("keep-limit").disabled = running;
    $("keep-cancel").hidden = !running;
  }
}
