"""A whole solve explained: the deductions a person can make, then the search.

:func:`explain` replays hints (:class:`nonosat.analysis.hints.HintFinder`) from the empty grid
until the puzzle is solved or a guess is needed; :func:`walkthrough` continues with the native
search's guesses, contradictions and rewinds (:mod:`nonosat.analysis.steps`), which ``nonosat
explain`` prints.

Colour puzzles
--------------
The staged solve of a colour puzzle takes human-sized steps, simplest first:

1. **line** -- the complete colour line solver (:func:`nonosat.native.colour.solve_colour_line`)
   on one line narrows the colours some of its cells can take (rows top to bottom, then columns,
   the line that fixes most cells first);
2. **probing** -- a colour a cell could still take is tried and propagation (line solving on
   every line) contradicts: the colour is removed (a failed literal);
3. **guess** -- neither applies: the rest needs search.

:func:`colour_explain` lists those steps until the grid is solved, contradicts or needs a guess;
:func:`colour_hint` is its first step from a given grid state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from nonosat.analysis.hints import Hint, HintFinder, apply_hint, stuck_hint
from nonosat.analysis.steps import SolveStep
from nonosat.engines import Status
from nonosat.native.colour import ColourProblem, solve_colour_line
from nonosat.puzzle import Cell, Puzzle, colour_clue_text, unknown_grid


@dataclass
class Explanation:
    """A whole solve in steps: ``steps`` (deduction hints in order), ``final`` (the ``solved``,
    ``guess`` or ``no-solution`` hint) and ``grid`` (the state reached)."""

    steps: list[Hint] = field(default_factory=list)
    final: Hint | None = None
    grid: np.ndarray | None = None

    def technique_counts(self) -> dict[str, int]:
        """Steps per technique."""
        counts: dict[str, int] = {}
        for step in self.steps:
            assert step.technique is not None
            counts[step.technique] = counts.get(step.technique, 0) + 1
        return counts


def explain(
    puzzle: Puzzle,
    state: np.ndarray | None = None,
    *,
    depth: int | None = None,
    max_steps: int | None = None,
    deadline: float | None = None,
) -> Explanation:
    """Replay hints from ``state`` (the empty grid when omitted) until the puzzle is solved, a
    guess is needed, ``max_steps`` steps were made or ``deadline`` (a
    :func:`time.perf_counter` value, checked between hints) passed; ``final`` is ``None`` when
    one of the last two stopped it.

    Returns
    -------
    Explanation
    """
    grid = unknown_grid(puzzle) if state is None else np.array(state, dtype=np.int8)
    finder = HintFinder(puzzle, depth)
    out = Explanation()
    while max_steps is None or len(out.steps) < max_steps:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        hint = finder.next(grid)
        if hint.kind != "deduction":
            out.final = hint
            break
        out.steps.append(hint)
        grid = apply_hint(grid, hint)
    out.grid = grid
    return out


#: Kind of a walk-through step for each hint technique (the other kinds are
#: :data:`nonosat.analysis.steps.STEP_KINDS`).
TECHNIQUE_KIND = {
    "overlap": "line",
    "line": "line",
    "contradiction": "implication",
    "tautology": "implication",
    "failed-literal": "probe",
    "probe-both": "probe",
}


def hint_step(hint: Hint) -> SolveStep:
    """A deduction hint as a :class:`~nonosat.analysis.steps.SolveStep` (depth 0, the technique
    kept)."""
    assert hint.technique is not None
    cells = [(r, c, int(v)) for (r, c), v in hint.cells]
    return SolveStep(TECHNIQUE_KIND[hint.technique], hint.text, hint.line, cells, 0,
                     technique=hint.technique)


@dataclass
class Walkthrough:
    """A whole solve for a reader: person-style deductions while they last, then the native
    search's guesses, contradictions and rewinds to the solution (or to each of the first two
    solutions, or to the end of the search when there is none).

    Attributes
    ----------
    steps : list of SolveStep
        In order; replaying their cells on an all-unknown grid (:func:`replay`) gives each
        solution at its ``solution`` step.
    stages : list of (str, int, int)
        ``(name, first, end)`` step index ranges: ``"logic"`` (deductions without guessing),
        ``"search"`` (from the first guess on).
    status : Status
        The verdict: ``UNIQUE``, ``MULTIPLE``, ``NONE`` or ``UNKNOWN`` (time limit before the
        verdict).
    solutions : list of ndarray of bool
        The solutions reached (one, two for ``MULTIPLE``, none).
    stuck : Hint or None
        Where logic stopped, with the engine's verdict (:func:`stuck_hint`); ``None`` when
        logic solved the puzzle, found it contradictory, or ran out of time or steps.
    end : str
        Why the walk ended: ``"solved"`` (every solution wanted reached), ``"no-solution"``,
        ``"timeout"`` or ``"max-steps"``.
    guesses : int
        Search decisions made (the ``guess`` steps that are not a ``branch``).
    backtracks : int
        Other values tried (the ``branch`` steps, "Try the other value"): with ``guesses``,
        counted as :mod:`nonosat.analysis.classify` defines them.
    """

    steps: list[SolveStep]
    stages: list[tuple[str, int, int]]
    status: Status
    solutions: list[np.ndarray]
    stuck: Hint | None
    end: str
    guesses: int = 0
    final_text: str = ""
    backtracks: int = 0

    @property
    def complete(self) -> bool:
        """The walk reached what it set out to (each solution wanted, or the proof that there
        is none)."""
        return self.end in ("solved", "no-solution")

    def counts(self) -> dict[str, dict[str, int]]:
        """Per stage (``"logic"``, ``"search"``): steps per technique (logic) or kind."""
        out: dict[str, dict[str, int]] = {}
        for name, first, end in self.stages:
            counts = out.setdefault(name, {})
            for step in self.steps[first:end]:
                counts[step.label] = counts.get(step.label, 0) + 1
        return out


def walkthrough(
    puzzle: Puzzle,
    *,
    engine: str = "auto",
    timeout: float | None = None,
    depth: int | None = None,
    max_steps: int | None = None,
) -> Walkthrough:
    """Explain a whole solve: hints (:func:`explain`) while a deduction applies; when none does,
    the verdict of ``engine`` (:func:`stuck_hint`: several solutions, unique but needs a guess,
    or none), then the step-through search (:func:`nonosat.analysis.steps.solve_steps`, started
    from the grid logic reached) to the solution, to each of the first two solutions when there
    are several, or through every contradiction when there is none.

    Parameters
    ----------
    puzzle : Puzzle
    engine : str
        Engine asked for the verdict when logic is stuck (default: the portfolio).
    timeout : float, optional
        Seconds for the whole walk; when it runs out, ``end`` is ``"timeout"``.
    depth : int, optional
        Implication graph traversal depth for the hints.
    max_steps : int, optional
        Stop after this many steps (``end`` is then ``"max-steps"``).

    Returns
    -------
    Walkthrough
    """
    from nonosat.analysis.steps import solve_steps

    deadline = None if timeout is None else time.perf_counter() + timeout

    def remaining() -> float | None:
        return None if deadline is None else max(deadline - time.perf_counter(), 0.001)

    logic = explain(puzzle, depth=depth, max_steps=max_steps, deadline=deadline)
    steps = [hint_step(h) for h in logic.steps]
    stages = [("logic", 0, len(steps))]
    grid = logic.grid
    assert grid is not None
    final = logic.final
    if final is None:
        end = "max-steps" if max_steps is not None and len(steps) >= max_steps else "timeout"
        return Walkthrough(steps, stages, Status.UNKNOWN, [], None, end)
    if final.kind == "solved":
        steps.append(SolveStep("solution", "Every cell is known: the puzzle is solved by logic "
                               "alone, so its solution is unique.", None, [], 0))
        stages[0] = ("logic", 0, len(steps))
        return Walkthrough(steps, stages, Status.UNIQUE, [grid == Cell.FILLED], None, "solved",
                           final_text=final.text)
    if final.kind == "no-solution":
        line = final.line
        steps.append(SolveStep("contradiction", final.text, line, [], 0))
        stages[0] = ("logic", 0, len(steps))
        return Walkthrough(steps, stages, Status.NONE, [], None, "no-solution",
                           final_text="The puzzle has no solution.")
    stuck = stuck_hint(puzzle, grid, engine=engine, timeout=remaining(), forced=True)
    if stuck.kind == "no-solution":
        status, wanted = Status.NONE, 1
    elif stuck.verdict == "multiple":
        status, wanted = Status.MULTIPLE, 2
    elif stuck.verdict == "unique":
        status, wanted = Status.UNIQUE, 1
    else:
        return Walkthrough(steps, stages, Status.UNKNOWN, [], stuck, "timeout")
    left = None if max_steps is None else max_steps - len(steps)
    if left is not None and left < 1:
        return Walkthrough(steps, stages, status, [], stuck, "max-steps")
    run = solve_steps(puzzle, max_solutions=wanted, max_steps=left or 1_000_000,
                      timeout=remaining(), start=grid)
    first = len(steps)
    steps.extend(run.steps)
    stages.append(("search", first, len(steps)))
    if run.complete:
        end = "solved" if run.solutions else "no-solution"
        if len(run.solutions) != (0 if status == Status.NONE else wanted):  # pragma: no cover
            raise AssertionError("the step-through search disagrees with the engine's verdict")
    elif left is not None and len(run.steps) >= left:
        end = "max-steps"
    else:
        end = "timeout"
    return Walkthrough(steps, stages, status, run.solutions, stuck, end, run.guesses,
                       backtracks=run.backtracks)


# -- colour -----------------------------------------------------------------------------------
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


def _line_step(puzzle: Puzzle, grid: np.ndarray) -> ColourStep | Literal[False] | None:
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
