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
* **Backbone** (for several solutions) by *chunking* over one incremental SAT solver (Janota,
  Lynce and Marques-Silva, "Algorithms for computing backbones of propositional formulae", AI
  Communications 28(2), 2015, the chunking variant with one chunk of every candidate): encode the
  puzzle once (:func:`nonosat.encodings.cnf.encode`) with the cells fixed by logic as units, then
  repeatedly add the clause "some candidate cell differs from the reference solution".  A model
  is a new witness and removes every candidate it flips; unsatisfiability proves all remaining
  candidates backbone at once.  Each added clause is over a subset of the previous clause's
  cells, so it implies the previous one and the clauses need never be retracted.  Typically a
  handful of SAT calls, against one solve per cell.
* **Grade** by the same rule as ``nonosat analyse``
  (:func:`nonosat.analysis.difficulty.difficulty_grade` on a
  :func:`nonosat.analysis.staged.staged_solve` run): the implication-graph stage (networkx) is
  the costly one, so it runs only when line solving leaves at most :data:`IMPLICATION_OPEN_MAX`
  cells open; above that the stages are line solving and probing only and the grade says so
  (``exact: false``).  The guesses of a stuck puzzle are the native search's (the native engine
  and :func:`~nonosat.analysis.staged.fork_search` branch the same way).
* **Suggestions** (several solutions only), under their own time budget: extra givens from
  :func:`nonosat.analysis.ambiguity.uniqueness_givens` and, when the picture (``goal``) is
  known, one-cell edits of the picture whose re-derived clues have a unique solution.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.engines import SolveResult, Status, solve
from nonosat.puzzle import Cell, Puzzle, grid_rows, line_blocks

#: Seconds the native engine gets before the ``auto`` portfolio takes over.
NATIVE_BUDGET_S = 0.25
#: The implication stage of the grade runs when line solving leaves at most this many cells open.
IMPLICATION_OPEN_MAX = 200
#: At most this many make-unique edits are returned.
MAX_EDITS = 5


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


def sat_backbone(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None = None,
    *,
    deadline: float | None = None,
) -> tuple[np.ndarray, bool, list[np.ndarray]]:
    """The ambiguity map (complement of the backbone) by chunking over one SAT solver.

    Parameters
    ----------
    puzzle : Puzzle
    solutions : list of ndarray of bool, shape (height, width)
        At least one solution; the first is the reference.
    known : ndarray of int8, shape (height, width), optional
        Cells every solution agrees with (fixed by logic): never candidates, given as units.
    deadline : float, optional
        ``time.perf_counter()`` value after which to stop.

    Returns
    -------
    (ambiguous, complete, witnesses)
        ``ambiguous`` (bool, (h, w)): cells proven to differ between two solutions; ``complete``:
        every other cell was proven backbone (``False`` when the deadline came first: then
        ``ambiguous`` is a subset of the map); ``witnesses``: the solutions found.

    Raises
    ------
    ValueError
        ``solutions`` is empty.
    """
    from nonosat.encodings.cnf import cell_var, encode
    from nonosat.encodings.satsolver import SatRun

    if not solutions:
        raise ValueError("the backbone needs at least one solution")
    ref = np.asarray(solutions[0], dtype=bool)
    witnesses = [ref] + [np.asarray(s, dtype=bool) for s in solutions[1:]]
    candidate = np.ones(puzzle.shape, dtype=bool)
    if known is not None:
        candidate &= np.asarray(known) == Cell.UNKNOWN
    for sol in witnesses[1:]:
        candidate &= sol == ref
    w = puzzle.width
    complete = True
    if candidate.any():
        enc = encode(puzzle, partial=known)
        with SatRun(enc.clauses) as run:
            while candidate.any():
                cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(candidate), strict=True)]
                # "some candidate differs from the reference"
                run.add_clause([-cell_var(w, r, c) if ref[r, c] else cell_var(w, r, c)
                                for r, c in cells])
                answer = run.solve(deadline)
                if answer is None:
                    complete = False
                    break
                if not answer:
                    break
                other = enc.solution(run.model())
                if not puzzle.is_solution(other):  # pragma: no cover - would be an encoding bug
                    raise AssertionError("the backbone SAT model is not a solution")
                witnesses.append(other)
                candidate &= other == ref
    ambiguous = np.zeros(puzzle.shape, dtype=bool)
    for sol in witnesses[1:]:
        ambiguous |= sol != ref
    return ambiguous, complete, witnesses


def quick_grade(puzzle: Puzzle, result: SolveResult) -> tuple[dict[str, Any], dict[str, int],
                                                              int, np.ndarray | None]:
    """Grade, techniques (steps per technique), guesses and the logic fixpoint grid.

    The rule is :func:`nonosat.analysis.difficulty.difficulty_grade`'s; see the module docstring
    for when the implication stage is left out (``"exact": false``).  The fixpoint grid is
    ``None`` when logic proves there is no solution.
    """
    from nonosat.analysis.difficulty import difficulty_grade
    from nonosat.analysis.staged import ForkResult, staged_solve
    from nonosat.native.propagate import propagate_grid

    if result.status == Status.UNKNOWN:
        # the native root node (propagation and probing) ran and did not decide the puzzle,
        # nor did the search in the time limit: no logical stage would
        return ({"level": 5, "name": "extreme", "score": 5.0, "exact": False,
                 "reason": "not decided within the time limit"}, {}, 0, None)
    line = propagate_grid(puzzle)
    exact = True
    stages: tuple[str, ...] = ("line", "implications", "probing")
    if line is not None and int((line[0] == Cell.UNKNOWN).sum()) > IMPLICATION_OPEN_MAX:
        stages = ("line", "probing")
        exact = False
    staged = staged_solve(puzzle, stages=stages)
    fork = None
    guesses = 0
    if staged.status == "stuck":
        native = result.stats.get("native", result.stats) if result.engine != "native" \
            else result.stats
        guesses = int(native.get("guesses", 0))
        finished = result.engine == "native" and result.status != Status.UNKNOWN
        fork = ForkResult(guesses=guesses, finished=finished)
    grade = difficulty_grade(staged, fork, contradiction=staged.status == "contradiction")
    out = {"level": grade.grade, "name": grade.name, "score": grade.score,
           "reason": grade.reason, "exact": exact or staged.status != "stuck"}
    if not exact and staged.status == "stuck":
        out["reason"] += " (implication stage skipped: too many open cells)"
    grid = None if staged.status == "contradiction" else staged.grid
    return out, staged.techniques(), guesses, grid


def classify(status: Status, grade: dict[str, Any], guesses: int, ambiguous: int,
             complete: bool) -> str:
    """One line in the style of pbnsolve's verdicts: ``"unique, line solvable"``, ``"unique,
    needs probing"``, ``"unique, needs search (3 guesses)"``, ``"several solutions (33 cells
    ambiguous)"``, ``"no solution"``, ``"undecided (time limit)"``."""
    if status == Status.NONE:
        return "no solution"
    if status == Status.UNKNOWN:
        return "undecided (time limit)"
    if status == Status.MULTIPLE:
        n = f"{ambiguous}{'' if complete else '+'}"
        return f"several solutions ({n} cell{'s' if ambiguous != 1 else ''} ambiguous)"
    level = grade["level"]
    if level == 1:
        return "unique, line solvable"
    if level == 2:
        return "unique, needs implications"
    if level == 3:
        return "unique, needs probing"
    return f"unique, needs search ({guesses} guess{'es' if guesses != 1 else ''})"


def _picture_puzzle(puzzle: Puzzle, picture: np.ndarray) -> Puzzle:
    return Puzzle(rows=[line_blocks(r) for r in picture], cols=[line_blocks(c) for c in picture.T],
                  title=puzzle.title, goal=picture)


def edit_suggestions(
    puzzle: Puzzle,
    ambiguous: np.ndarray,
    *,
    deadline: float,
    should_stop: Callable[[], bool] = lambda: False,
    max_edits: int = MAX_EDITS,
) -> list[dict[str, Any]]:
    """One-cell edits of the picture (``puzzle.goal``) whose re-derived clues have a unique
    solution, nearest the ambiguous cells first, until ``deadline`` (``perf_counter``).

    Candidates: the ambiguous cells, then their 8 neighbours, then the rest, each flipped.  Each
    candidate is decided by :func:`verdict` under the time left.
    """
    goal = np.asarray(puzzle.goal, dtype=bool)
    h, w = goal.shape
    order: list[tuple[int, int]] = [(int(r), int(c)) for r, c in zip(*np.nonzero(ambiguous),
                                                                     strict=True)]
    near = np.zeros_like(ambiguous)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            near |= np.roll(np.roll(ambiguous, dr, 0), dc, 1)
    near &= ~ambiguous
    order += [(int(r), int(c)) for r, c in zip(*np.nonzero(near), strict=True)]
    seen = set(order)
    order += [(r, c) for r in range(h) for c in range(w) if (r, c) not in seen]
    out: list[dict[str, Any]] = []
    for r, c in order:
        left = deadline - time.perf_counter()
        if left <= 0 or len(out) >= max_edits or should_stop():
            break
        picture = goal.copy()
        picture[r, c] = not picture[r, c]
        try:
            edited = _picture_puzzle(puzzle, picture)
        except Exception:  # noqa: BLE001 - an edit that breaks the model is not a suggestion
            continue
        res = solve(edited, "native", limit=2, timeout=min(left, NATIVE_BUDGET_S))
        if res.status == Status.UNIQUE:
            value = "#" if picture[r, c] else "."
            word = "fill" if picture[r, c] else "clear"
            out.append({"kind": "edit", "cell": [r, c], "value": value,
                        "text": f"{word} R{r + 1}C{c + 1} of the picture: the new clues have a "
                                f"unique solution"})
    return out


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
    if result.engine == "native" and result.status != Status.UNKNOWN:
        guesses = int(result.stats.get("guesses", guesses))
    check()
    ambiguous = np.zeros(puzzle.shape, dtype=bool)
    complete = result.status in (Status.UNIQUE, Status.NONE)
    witnesses = list(result.solutions)
    if result.status == Status.MULTIPLE:
        ambiguous, complete, witnesses = sat_backbone(
            puzzle, result.solutions, root, deadline=time.perf_counter() + timeout)
    check()
    out = QuickAnalysis(puzzle, result, ambiguous, complete, grade, techniques, guesses,
                        classify(result.status, grade, guesses, int(ambiguous.sum()), complete))
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
                            + ", ".join(f"R{r + 1}C{c + 1} {'filled' if v == '#' else 'empty'}"
                                        for r, c, v in cells[:8])
                            + (f" and {n - 8} more" if n > 8 else "")
                            + "; the solution is then unique"})
    if should_stop():
        raise Cancelled
    if puzzle.goal is not None and np.asarray(puzzle.goal).shape == puzzle.shape:
        out += edit_suggestions(puzzle, ambiguous, deadline=deadline, should_stop=should_stop)
    return out
