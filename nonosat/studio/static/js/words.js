// Words for people: the engine's names of techniques, engines and step kinds as the sidebar
// shows them ("probe-both" -> "trying a cell both ways", "native+sat" -> "nonosat's solver,
// then a SAT solver").

const TECHNIQUES = {
  line: "line logic",
  overlap: "overlaps",
  tautology: "cells every arrangement of a line agrees on",
  contradiction: "ruling out what breaks a line",
  implications: "chains of consequences",
  implication: "chains of consequences",
  probing: "trying a cell",
  probe: "trying a cell",
  "failed-literal": "trying a cell (one value fails)",
  "probe-both": "trying a cell both ways",
  guess: "guesses",
  search: "guessing and backtracking",
  given: "given cells",
};

const ENGINES = {
  native: "nonosat's solver",
  sat: "a SAT solver",
  cpsat: "OR-Tools CP-SAT",
  auto: "the best solver",
};

const STEP_KINDS = {
  line: "line logic",
  probe: "trying a cell",
  contradiction: "a dead end",
  guess: "a guess",
  rewind: "going back",
  solution: "a solution",
};

/** A technique as people say it (unknown names: dashes become spaces). */
export function technique(name) {
  return TECHNIQUES[name] || String(name).replace(/[-_]+/g, " ");
}

/** An engine name ("native", "sat", "native+sat", ...) as people say it. */
export function engine(name) {
  const parts = String(name || "").split("+").filter(Boolean);
  if (!parts.length) return "the solver";
  return parts.map((p) => ENGINES[p] || p.replace(/[-_]+/g, " ")).join(", then ");
}

/** The kind of a step of the step-through solver as people say it. */
export function stepKind(kind) {
  return STEP_KINDS[kind] || String(kind).replace(/[-_]+/g, " ");
}

/** "line 40, probe-both 3" for people: "line logic ×40, trying a cell both ways ×3". */
export function techniqueList(counts) {
  return Object.entries(counts || {}).map(([k, n]) => `${technique(k)} ×${n}`).join(", ");
}
