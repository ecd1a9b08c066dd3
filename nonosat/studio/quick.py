"""The editor's quick analysis: verdict, whole ambiguity map, grade and make-unique suggestions,
fast enough to answer every (debounced) edit.

``nonosat analyse`` (:func:`nonosat.analysis.difficulty.analyse`) computes the backbone by one
engine call per flipped cell, which re-encodes the puzzle each time: on random 30x30 pictures at
50 % black that is hundreds of solves and seconds per edit (measured: median 25 ms, 90th
percentile over 5 s with the native engine).  The studio therefore uses:

* **Verdict**: the native engine with ``limit=2`` under a short budget (a millisecond on picture
  puzzles, tens of milliseconds on random 30x30), then the ``auto`` portfolio for what it does not
  decide in that budget.  Both go through :func:`nonosat.engines.solve`, which checks every
  solution against the clues.
* **Backbone** (for several solutions) by *chunking* over one incremental SAT solver:
  :func:`nonosat.analysis.ambiguity.sat_backbone`, the same function as ``nonosat analyse`` and
  ``nonosat render --solution``.  Typically a handful of SAT calls, against one solve per cell.
* **Grade** by the same rule as ``nonosat analyse``
  (:func:`nonosat.analysis.difficulty.difficulty_grade` on a
  :func:`nonosat.analysis.staged.staged_solve` run): the implication-graph stage (networkx) is
  the costly one, so it runs only when line solving leaves at most :data:`IMPLICATION_OPEN_MAX`
  cells open; above that the stages are line solving and probing only and the grade says so
  (``exact: false``).  The guesses of a stuck puzzle are the native search's (the native engine
  and :func:`~nonosat.analysis.staged.fork_search` branch the same way).
* **Classification**: :func:`nonosat.analysis.classify.classify`, as ``nonosat solve`` and
  ``nonosat analyse`` print it.
* **Suggestions** (several solutions only), under their own time budget: extra givens from
  :func:`nonosat.analysis.ambiguity.uniqueness_givens` and, when the picture (``goal``) is
  known, one-cell edits of the picture whose re-derived clues have a unique solution
  (:func:`nonosat.analysis.ambiguity.edit_suggestions`, shared with ``nonosat analyse``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.analysis.ambiguity import MAX_EDITS, edit_suggestions, sat_backbone
from nonosat.engines import SolveResult, Status, solve
from nonosat.puzzle import Cell, Puzzle, grid_rows

__all__ = ["MAX_EDITS", "Cancelled", "QuickAnalysis", "classify", "edit_suggestions",
           "quick_analyse", "quick_grade", "sat_backbone", "suggestions", "verdict"]

#: Seconds the native engine gets before the ``auto`` portfolio takes over.
NATIVE_BUDGET_S = 0.25
#: The implication stage of the grade runs when line solving leaves at most this many cells open.
IMPLICATION_OPEN_MAX = 200


class Cancelled(Exception):  # noqa: N818 - a signal, not an error
    """Raised between phases when a newer request superseded this one."""


@dataclass
class QuickAnalysis:
    """Result of :func:`quick_analyse` (see :meth:`to_json` for the API shape)."""

    puzzle: Puzzle
    result: SolveResult
    ambiguous: np.ndarray
    backbone_complete: bool
    grade: dict[str, Any]
    techniques: dict[str, int]
    guesses: int
    classification: str
    suggestions: list[dict[str, Any]] = field(default_factory=list)
    time_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The ``POST /api/analyse`` answer; cells 0-based ``[row, col]``."""
        return {
            "status": self.result.status.value,
            "engine": self.result.engine,
            "time_s": round(self.time_s, 6),
            "solve_time_s": round(self.result.time_s, 6),
            "width": self.puzzle.width,
            "height": self.puzzle.height,
            "solutions": [grid_rows(s) for s in self.result.solutions[:2]],
            "ambiguous": [[int(r), int(c)] for r, c in zip(*np.nonzero(self.ambiguous),
                                                           strict=True)],
            "backbone_complete": self.backbone_complete,
            "grade": self.grade,
            "techniques": self.techniques,
            "guesses": self.guesses,
            "classification": self.classification,
            "suggestions": self.suggestions,
        }


def verdict(puzzle: Puzzle, timeout: float, partial: np.ndarray | None = None) -> SolveResult:
    """Up to two solutions: native under :data:`NATIVE_BUDGET_S`, then ``auto`` for the rest of
    ``timeout`` (seconds).  Status ``UNKNOWN`` when neither decided in time."""
    start = time.perf_counter()
    result = solve(puzzle, "native", partial=partial, limit=2,
                   timeout=min(NATIVE_BUDGET_S, timeout))
    if result.status != Status.UNKNOWN:
        return result
    left = timeout - (time.perf_counter() - start)
    if left <= 0:
        return result
    auto = solve(puzzle, "auto", partial=partial, limit=2, timeout=left)
    auto.stats["native_first"] = result.stats
    return auto


def quick_grade(puzzle: Puzzle, result: SolveResult) -> tuple[dict[str, Any], dict[str, int],
                                                              int, np.ndarray | None]:
    """Grade, techniques (steps per technique), guesses and the logic fixpoint grid.

    The rule is :func:`nonosat.analysis.difficulty.difficulty_grade`'s; see the module docstring
    for when the implication stage is left out (``"exact": false``).  The fixpoint grid is
    ``None`` when logic proves there is no solution.
    """
    from nonosat.analysis.difficulty import difficulty_grade
    from nonosat.analysis.staged import ForkResult, StagedRun, staged_solve
    from nonosat.native.probe import probe_grid
    from nonosat.native.propagate import propagate_grid

    if result.status == Status.UNKNOWN:
        # the native root node (propagation and probing) ran and did not decide the puzzle,
        # nor did the search in the time limit: no logical stage would
        return ({"level": 5, "name": "extreme", "score": 5.0, "exact": False,
                 "reason": "not decided within the time limit"}, {}, 0, None)
    native = result.stats if result.engine == "native" else result.stats.get("native", {})
    guesses = int(native.get("guesses", 0))
    finished = result.engine == "native" and result.status != Status.UNKNOWN
    line = propagate_grid(puzzle)
    root = None
    if line is not None and bool((line[0] == Cell.UNKNOWN).any()):
        root = probe_grid(puzzle, line[0])
    if root is not None and bool((root[0] == Cell.UNKNOWN).any()):
        # logic (propagation and probing, the native root node) gets stuck: the grade rests on
        # the guesses alone (grades 4-5), so the staged run is not needed
        stuck = StagedRun([], root[0], "stuck", {}, dict.fromkeys(("line", "implications",
                                                                      "probing"), 0), {})
        grade = difficulty_grade(stuck, ForkResult(guesses=guesses, finished=finished))
        techniques: dict[str, int] = {"line": len(line[1])} if line[1] else {}
        for _cell, _value, kind, _reason in root[1]:
            techniques[kind] = techniques.get(kind, 0) + 1
        return ({"level": grade.grade, "name": grade.name, "score": grade.score,
                 "reason": grade.reason, "exact": True}, techniques, guesses, root[0])
    guesses = 0
    exact = True
    stages: tuple[str, ...] = ("line", "implications", "probing")
    if line is not None and int((line[0] == Cell.UNKNOWN).sum()) > IMPLICATION_OPEN_MAX:
        stages = ("line", "probing")
        exact = False
    staged = staged_solve(puzzle, stages=stages)
    fork = None
    if staged.status == "stuck":  # pragma: no cover - probing decided it above
        guesses = int(native.get("guesses", 0))
        fork = ForkResult(guesses=guesses, finished=finished)
    grade = difficulty_grade(staged, fork, contradiction=staged.status == "contradiction")
    out: dict[str, Any] = {"level": grade.grade, "name": grade.name, "score": grade.score,
           "reason": grade.reason, "exact": exact or staged.status != "stuck"}
    if not exact and staged.status == "stuck":
        out["reason"] += " (implication stage skipped: too many open cells)"
    grid = None if staged.status == "contradiction" else staged.grid
    return out, staged.techniques(), guesses, grid


def classify(status: Status, grade: dict[str, Any], result: SolveResult, ambiguous: int,
             complete: bool) -> str:
    """The one-line classification (:func:`nonosat.analysis.classify.classify`, shared with
    ``nonosat solve`` and ``nonosat analyse``) from the quick grade and the engine's result."""
    from nonosat.analysis.classify import classify as shared
    from nonosat.analysis.classify import search_effort

    needed = {1: "line", 2: "implications", 3: "probing"}.get(grade.get("level", 0), "search")
    return shared(status, needed, search_effort(result),
                  ambiguous if status == Status.MULTIPLE else None, complete)


def quick_analyse(
    puzzle: Puzzle,
    *,
    timeout: float = 5.0,
    suggest: bool = True,
    suggest_timeout: float = 1.0,
    should_stop: Callable[[], bool] = lambda: False,
) -> QuickAnalysis:
    """Verdict, whole ambiguity map, grade and suggestions of ``puzzle`` (module docstring).

    Parameters
    ----------
    puzzle : Puzzle
    timeout : float
        Seconds for the verdict, and again for the backbone.
    suggest : bool
        Compute make-unique suggestions for puzzles with several solutions.
    suggest_timeout : float
        Seconds for the suggestions (givens and edits share them).
    should_stop : callable
        Polled between phases; when it returns ``True`` :class:`Cancelled` is raised.

    Raises
    ------
    Cancelled
        ``should_stop()`` became true.
    """
    start = time.perf_counter()

    def check() -> None:
        if should_stop():
            raise Cancelled

    result = verdict(puzzle, timeout)
    check()
    grade, techniques, guesses, root = quick_grade(puzzle, result)
    if result.status in (Status.NONE, Status.MULTIPLE):  # no grade, as nonosat analyse
        grade = {"level": None, "name": "not graded", "score": None, "exact": True,
                 "reason": "no solution" if result.status == Status.NONE else
                 "several solutions"}
    check()
    ambiguous = np.zeros(puzzle.shape, dtype=bool)
    complete = result.status in (Status.UNIQUE, Status.NONE)
    witnesses = list(result.solutions)
    if result.status == Status.MULTIPLE:
        ambiguous, complete, witnesses = sat_backbone(
            puzzle, result.solutions, root, deadline=time.perf_counter() + timeout)
    check()
    out = QuickAnalysis(puzzle, result, ambiguous, complete, grade, techniques, guesses,
                        classify(result.status, grade, result, int(ambiguous.sum()), complete))
    if suggest and result.status == Status.MULTIPLE:
        out.suggestions = suggestions(puzzle, witnesses, root, ambiguous,
                                      timeout=suggest_timeout, should_stop=should_stop)
    check()
    out.time_s = time.perf_counter() - start
    return out


def suggestions(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None,
    ambiguous: np.ndarray,
    *,
    timeout: float,
    should_stop: Callable[[], bool] = lambda: False,
) -> list[dict[str, Any]]:
    """Make-unique suggestions: one ``give`` (extra givens, half of ``timeout``) and up to
    :data:`MAX_EDITS` ``edit`` entries (when the puzzle has a ``goal``)."""
    from nonosat.analysis.ambiguity import uniqueness_givens

    deadline = time.perf_counter() + timeout
    out: list[dict[str, Any]] = []
    share = timeout / 2 if puzzle.goal is not None else timeout
    givens = uniqueness_givens(puzzle, solutions, known, engine="native", timeout=share)
    if givens.unique and givens.cells:
        cells = [[r, c, "#" if v else "."] for (r, c), v in givens.cells]
        n = len(cells)
        out.append({"kind": "give", "cells": cells,
                    "text": f"give {n} cell{'s' if n != 1 else ''} as a start: "
                            + ", ".join(f"R{r + 1}C{c + 1} {'filled' if v else 'empty'}"
                                        for (r, c), v in givens.cells[:8])
                            + (f" and {n - 8} more" if n > 8 else "")
                            + "; the solution is then unique"})
    if should_stop():
        raise Cancelled
    if puzzle.goal is not None and np.asarray(puzzle.goal).shape == puzzle.shape:
        out += edit_suggestions(puzzle, ambiguous, deadline=deadline, should_stop=should_stop)
    return out
