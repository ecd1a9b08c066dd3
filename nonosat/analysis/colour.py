"""Analysis, hints and explanations of colour puzzles.

The staged solve of a colour puzzle takes human-sized steps, simplest first:

1. **line** -- the complete colour line solver (:func:`nonosat.native.colour.solve_colour_line`)
   on one line narrows the colours some of its cells can take (rows top to bottom, then columns,
   the line that fixes most cells first);
2. **probing** -- a colour a cell could still take is tried and propagation (line solving on
   every line) contradicts: the colour is removed (a failed literal);
3. **guess** -- neither applies: the rest needs search.

:func:`colour_explain` lists those steps until the grid is solved, contradicts or needs a guess;
:func:`colour_hint` is its first step from a given grid state; :func:`analyse_colour` adds the
verdict from an engine, the cells each stage fixed, the ambiguity map (cells on which solutions
differ) and a grade from 1 (easy: line solving alone) to 5.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.engines import Status, solve
from nonosat.native.colour import ColourProblem, solve_colour_line
from nonosat.puzzle import Puzzle, colour_clue_text, colour_rows


def _names(puzzle: Puzzle, mask: int) -> str:
    assert puzzle.palette is not None
    cs = puzzle.palette.colours
    return " or ".join(cs[k].name for k in range(len(cs)) if (mask >> k) & 1) or "nothing"


@dataclass
class ColourStep:
    """One deduction: ``technique`` (``"line"`` / ``"probing"``), the ``line`` it used (or
    ``None``), ``cells`` ``[((row, col), new_mask), ...]`` (colour bit masks) and a sentence."""

    technique: str
    line: int | None
    cells: list[tuple[tuple[int, int], int]]
    text: str

    def to_json(self, puzzle: Puzzle) -> dict[str, Any]:
        """JSON form: technique, line name, text, cells with their remaining colour names."""
        return {
            "technique": self.technique,
            "line": puzzle.line_name(self.line) if self.line is not None else None,
            "text": self.text,
            "cells": [
                {"row": r + 1, "col": c + 1, "colours": _names(puzzle, m).split(" or ")}
                for (r, c), m in self.cells
            ],
        }


@dataclass
class ColourExplanation:
    """Steps of the staged colour solve and how it ended: ``end`` is ``"solved"``,
    ``"no-solution"``, ``"guess"`` (search needed) or ``"stopped"`` (max steps); ``grid`` the
    grid state reached (int32 colour masks, ``(height, width)``)."""

    steps: list[ColourStep]
    end: str
    grid: np.ndarray

    def technique_counts(self) -> dict[str, int]:
        """Number of steps of each technique."""
        out: dict[str, int] = {}
        for s in self.steps:
            out[s.technique] = out.get(s.technique, 0) + 1
        return out


def _line_cells(puzzle: Puzzle, line: int) -> list[tuple[int, int]]:
    if line < puzzle.height:
        return [(line, c) for c in range(puzzle.width)]
    return [(r, line - puzzle.height) for r in range(puzzle.height)]


def _line_step(puzzle: Puzzle, grid: np.ndarray) -> ColourStep | None | bool:
    """The line deduction fixing most cells; ``None`` if none; ``False`` on a contradiction."""
    best: ColourStep | None = None
    best_gain = 0
    colours = puzzle.line_colours
    for line, clue in enumerate(puzzle.lines):
        if clue is None:
            continue
        cells = _line_cells(puzzle, line)
        before = np.array([grid[r, c] for r, c in cells], dtype=np.int32)
        after = solve_colour_line(clue, colours[line] or (), before, puzzle.n_colours)
        if after is None:
            return False
        changed = [(cells[i], int(after[i])) for i in range(len(cells)) if after[i] != before[i]]
        gain = sum(1 for _, m in changed if m & (m - 1) == 0)  # cells decided
        if changed and (best is None or gain > best_gain):
            best_gain = gain
            text = (
                f"{puzzle.line_name(line)}, clue "
                f"{colour_clue_text(clue, colours[line], puzzle.palette)}: "
                + "; ".join(
                    f"R{r + 1}C{c + 1} {_names(puzzle, m)}" for (r, c), m in changed[:8]
                )
                + (f" (and {len(changed) - 8} more)" if len(changed) > 8 else "")
            )
            best = ColourStep("line", line, changed, text)
    return best


def _probe_step(puzzle: Puzzle, grid: np.ndarray) -> ColourStep | None:
    """A failed literal: a colour of an undecided cell whose trial contradicts."""
    problem = ColourProblem.of(puzzle)
    flat = grid.reshape(-1)
    for cell in range(flat.size):
        v = int(flat[cell])
        if v & (v - 1) == 0:
            continue
        for k in range(puzzle.n_colours):
            if not (v >> k) & 1:
                continue
            trial = flat.copy()
            trial[cell] = 1 << k
            if not problem.propagate(trial):
                r, c = divmod(cell, puzzle.width)
                new = v & ~(1 << k)
                assert puzzle.palette is not None
                text = (
                    f"if R{r + 1}C{c + 1} were {puzzle.palette.colours[k].name}, line solving "
                    f"would reach a contradiction: it is {_names(puzzle, new)}"
                )
                return ColourStep("probing", None, [((r, c), new)], text)
    return None


def colour_explain(
    puzzle: Puzzle, grid: np.ndarray | None = None, max_steps: int | None = None
) -> ColourExplanation:
    """The staged solve as steps (module docstring), from ``grid`` (int32 colour masks; all
    colours everywhere when omitted)."""
    full = (1 << puzzle.n_colours) - 1
    g = (
        np.full(puzzle.shape, full, dtype=np.int32)
        if grid is None
        else np.asarray(grid, dtype=np.int32).copy()
    )
    steps: list[ColourStep] = []
    while True:
        if (g == 0).any():
            return ColourExplanation(steps, "no-solution", g)
        if ((g & (g - 1)) == 0).all():
            return ColourExplanation(steps, "solved", g)
        if max_steps is not None and len(steps) >= max_steps:
            return ColourExplanation(steps, "stopped", g)
        step = _line_step(puzzle, g)
        if step is False:
            return ColourExplanation(steps, "no-solution", g)
        if step is None:
            step = _probe_step(puzzle, g)
        if step is None:
            return ColourExplanation(steps, "guess", g)
        for (r, c), m in step.cells:
            g[r, c] = m
        steps.append(step)


def colour_hint(puzzle: Puzzle, grid: np.ndarray | None = None) -> tuple[str, ColourStep | None]:
    """The next step from ``grid``: ``("hint", step)``, or ``("solved" | "no-solution" |
    "guess", None)``."""
    result = colour_explain(puzzle, grid, max_steps=1)
    if result.steps:
        return "hint", result.steps[0]
    return result.end, None


@dataclass
class ColourAnalysis:
    """What :func:`analyse_colour` found (see its docstring)."""

    puzzle: Puzzle
    status: Status
    solutions: list[np.ndarray]
    techniques: dict[str, int]
    fixed_by: dict[str, int]
    end: str
    grade: int
    ambiguous: np.ndarray | None
    time_s: float
    stats: dict[str, Any] = field(default_factory=dict)

    def to_json(self, name: str) -> dict[str, Any]:
        """JSON-serialisable form."""
        assert self.puzzle.palette is not None
        return {
            "puzzle": name,
            "kind": "colour",
            "status": self.status.value,
            "techniques": self.techniques,
            "fixed_by": self.fixed_by,
            "staged_end": self.end,
            "grade": self.grade,
            "ambiguous_cells": int(self.ambiguous.sum()) if self.ambiguous is not None else 0,
            "solutions": [colour_rows(s, self.puzzle.palette) for s in self.solutions],
            "time_s": round(self.time_s, 6),
        }


def analyse_colour(
    puzzle: Puzzle, *, limit: int = 2, engine: str = "native", timeout: float | None = 30.0
) -> ColourAnalysis:
    """Verdict (``engine``, up to ``limit`` solutions), techniques of the staged solve, cells
    each technique decided, ambiguity map (cells on which the solutions found differ) and a
    grade: 1 line solving alone, 2 a few probes (at most 3), 3 more probing, 4 search needed,
    5 search needed and no unique solution."""
    start = time.perf_counter()
    result = solve(puzzle, engine, limit=limit, timeout=timeout)
    explained = colour_explain(puzzle)
    fixed: dict[str, int] = {}
    for step in explained.steps:
        fixed[step.technique] = fixed.get(step.technique, 0) + sum(
            1 for _, m in step.cells if m & (m - 1) == 0
        )
    counts = explained.technique_counts()
    if explained.end == "guess":
        grade = 5 if result.status != Status.UNIQUE else 4
    elif counts.get("probing", 0) > 3:
        grade = 3
    elif counts.get("probing", 0):
        grade = 2
    else:
        grade = 1
    ambiguous = None
    if len(result.solutions) >= 2:
        stack = np.asarray(result.solutions)
        ambiguous = (stack != stack[0]).any(axis=0)
    return ColourAnalysis(
        puzzle,
        result.status,
        result.solutions,
        counts,
        fixed,
        explained.end,
        grade,
        ambiguous,
        time.perf_counter() - start,
    )
