"""The analysis report of one puzzle: verdict, techniques needed, structure and difficulty grade.

:func:`analyse` runs the staged solver (:mod:`nonosat.analysis.staged`), then the fork search if
logic gets stuck, then for puzzles with several solutions the backbone, the ambiguity map and a
greedy set of extra givens (:mod:`nonosat.analysis.ambiguity`).

Difficulty grade
----------------
The grade is decided by the hardest technique the puzzle needs and how much of it:

=====  ============  ==========================================================================
grade  name          rule
=====  ============  ==========================================================================
1      easy          line solving alone decides every cell
2      moderate      needs the implication graph, in at most 2 rounds (a round = one graph
                     built after line solving got stuck, that forced at least one cell)
3      hard          needs more implication rounds, or failed-literal probing
4      very hard     logic gets stuck: a fork (guess) is needed, and the search decides the
                     puzzle with fewer than 100 guesses
5      extreme       100 guesses or more, or the search did not finish in the time limit
=====  ============  ==========================================================================

Inside a grade, ``score = grade + f`` with ``0 <= f < 1`` orders puzzles:
``f = s / (s + 100)`` for grade 1 with ``s`` the line steps (line solves that fixed a cell);
``f = (i + 2 p) / (i + 2 p + 10)`` for grades 2-3 with ``i``/``p`` the implication/probing rounds;
``f = g / 100`` for grade 4 and ``f = g / (g + 1000)`` for grade 5 with ``g`` the guesses.

Calibration (``benchmarks/bench_difficulty.py``, fork search limited to 10 s): the 298 picture
puzzles of davidje13's games and Jakub Wilk's set are 87% grade 1 and 96% grade 1-2 (the four
grade-4 ones have several solutions); the first 100 random 25x25 tournament puzzles of TAAI 2011
are 93% grade 4 (most have several solutions; median 3 guesses, at most 16) and 7% grade 3; the
survey's notoriously hard puzzles (Knotty, Faase, Forever) are grade 5 (over a thousand guesses
without finishing), Mum, Petro, Light and Merka grade 3 (probing, or three implication
rounds), Edge and Bucks grade 2, and its line-solvable warm-ups (Dancer, Cat, Knot, Skid,
Swing) grade 1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.analysis.ambiguity import Backbone, UniquenessGivens, backbone, uniqueness_givens
from nonosat.analysis.staged import ForkResult, StagedRun, fork_search, staged_solve
from nonosat.engines import Status
from nonosat.native.implications import (
    ForcedLiteral,
    LinkedCells,
    forced_literals,
    implication_graph,
    linked_cells,
)
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Puzzle, grid_rows, grid_to_solution

#: Grade names, index = grade.
GRADE_NAMES = ("", "easy", "moderate", "hard", "very hard", "extreme")
#: Guesses from which a forked puzzle is "extreme".
EXTREME_GUESSES = 100
#: Solutions enumerated at most by ``count_all``.
COUNT_CAP = 10_000


@dataclass(frozen=True)
class Grade:
    """A difficulty grade: ``grade`` 1-5, its ``name``, the ordering ``score`` and the
    ``reason`` (one sentence naming the rule that applied)."""

    grade: int
    name: str
    score: float
    reason: str


def difficulty_grade(
    staged: StagedRun, fork: ForkResult | None, contradiction: bool = False
) -> Grade:
    """Grade a puzzle from its staged run and fork search (formula in the module docstring).

    Parameters
    ----------
    staged : StagedRun
    fork : ForkResult or None
        The search after logic got stuck (``None`` when logic decided the puzzle).
    contradiction : bool
        Logic proved there is no solution (graded by the technique that proved it).
    """
    rounds_i = staged.invocations["implications"]
    rounds_p = staged.invocations["probing"]
    line_steps = sum(1 for s in staged.steps if s.stage == "line")
    if fork is not None and staged.status == "stuck":
        g = fork.guesses
        if not fork.finished or g >= EXTREME_GUESSES:
            why = "did not finish" if not fork.finished else f"needed {g} guesses"
            return Grade(5, GRADE_NAMES[5], round(5 + g / (g + 1000), 3),
                         f"logic gets stuck and the search {why}")
        return Grade(4, GRADE_NAMES[4], round(4 + g / EXTREME_GUESSES, 3),
                     f"logic gets stuck; the search needed {g} guess{'es' if g != 1 else ''}")
    f23 = (rounds_i + 2 * rounds_p) / (rounds_i + 2 * rounds_p + 10)
    if rounds_p > 0 or rounds_i > 2:
        why = (f"needs probing ({rounds_p} round{'s' if rounds_p != 1 else ''})" if rounds_p
               else f"needs {rounds_i} rounds of implications")
        return Grade(3, GRADE_NAMES[3], round(3 + f23, 3), why)
    if rounds_i > 0:
        return Grade(2, GRADE_NAMES[2], round(2 + f23, 3),
                     f"needs implications ({rounds_i} round{'s' if rounds_i != 1 else ''})")
    return Grade(1, GRADE_NAMES[1], round(1 + line_steps / (line_steps + 100), 3),
                 "line solving alone" + (" proves there is no solution" if contradiction
                                         else " decides every cell"))


@dataclass
class Analysis:
    """Everything :func:`analyse` found out about a puzzle.

    Attributes
    ----------
    puzzle : Puzzle
    status : Status
        Verdict (unique / multiple / none / unknown; ``multiple`` means at least ``limit``).
    solutions : list of ndarray of bool
        Solutions found (at most the limit used).
    counted_all : bool
        ``solutions`` is every solution (enumeration finished below its cap).
    staged : StagedRun
    fork : ForkResult or None
    grade : Grade
    linked : list of LinkedCells
        Cells that must be equal or opposite, from the implication graph at the line-solving
        fixpoint.
    graph_forced : list of ForcedLiteral
        What the first implication graph forces.
    backbone : Backbone or None
        For puzzles with several solutions.
    givens : UniquenessGivens or None
        For puzzles with several solutions.
    time_s : float
    """

    puzzle: Puzzle
    status: Status
    solutions: list[np.ndarray]
    counted_all: bool
    staged: StagedRun
    fork: ForkResult | None
    grade: Grade
    linked: list[LinkedCells] = field(default_factory=list)
    graph_forced: list[ForcedLiteral] = field(default_factory=list)
    backbone: Backbone | None = None
    givens: UniquenessGivens | None = None
    graph: Any = None
    time_s: float = 0.0

    @property
    def techniques_needed(self) -> str:
        """``"line"``, ``"implications"``, ``"probing"`` or ``"fork"``."""
        return self.staged.hardest_stage()

    def backbone_size(self) -> int | None:
        """Cells equal in all solutions (``None`` when unknown or there is no solution)."""
        if self.status == Status.UNIQUE or (self.status == Status.SOLVED and self.counted_all):
            return self.puzzle.height * self.puzzle.width
        if self.backbone is not None:
            return self.backbone.size
        return None

    def to_json(self, name: str | None = None) -> dict[str, Any]:
        """A JSON-serialisable dict (cells 1-based ``[row, col]``)."""
        staged = self.staged

        def cells(mask: np.ndarray) -> list[list[int]]:
            return [[int(r) + 1, int(c) + 1] for r, c in zip(*np.nonzero(mask), strict=True)]

        out: dict[str, Any] = {
            "puzzle": name if name is not None else self.puzzle.describe(),
            "width": self.puzzle.width,
            "height": self.puzzle.height,
            "status": self.status.value,
            "solutions_found": len(self.solutions),
            "counted_all": self.counted_all,
            "techniques_needed": self.techniques_needed,
            "deductions": {**staged.cells_by_stage(),
                           "fork": staged.open_after["probing"] if staged.status == "stuck" else 0},
            "steps": staged.techniques(),
            "rounds": staged.invocations,
            "open_after": staged.open_after,
            "fork": None,
            "backbone_size": self.backbone_size(),
            "grade": {"grade": self.grade.grade, "name": self.grade.name,
                      "score": self.grade.score, "reason": self.grade.reason},
            "linked_cells": [
                {"equal": [[r + 1, c + 1] for r, c in g.equal],
                 "opposite": [[r + 1, c + 1] for r, c in g.opposite]}
                for g in self.linked
            ],
            "stage_time_s": staged.time_s,
            "time_s": round(self.time_s, 6),
            "solutions": [grid_rows(s) for s in self.solutions[:10]],
        }
        if self.fork is not None:
            out["fork"] = {
                "guesses": self.fork.guesses,
                "max_depth": self.fork.max_depth,
                "guesses_to_solutions": self.fork.guesses_to_solutions[:100],
                "finished": self.fork.finished,
            }
        if self.backbone is not None:
            out["ambiguity"] = {
                "cells": cells(self.backbone.ambiguous),
                "undecided": cells(self.backbone.undecided),
                "solves": self.backbone.solves,
            }
        if self.givens is not None:
            out["uniqueness_givens"] = {
                "cells": [{"row": r + 1, "col": c + 1, "value": "filled" if v else "empty"}
                          for (r, c), v in self.givens.cells],
                "unique": self.givens.unique,
                "minimal": False,
                "note": "greedy and irredundant (no single given can be dropped), not proved "
                        "minimum",
            }
        return out


def analyse(
    puzzle: Puzzle,
    *,
    limit: int = 2,
    count_all: bool = False,
    timeout: float | None = 30.0,
    depth: int | None = None,
    engine: str = "native",
    structure: bool = True,
    keep_graph: bool = False,
) -> Analysis:
    """Analyse ``puzzle``: verdict, techniques, counts per stage, grade and, for several
    solutions, backbone, ambiguity map and extra givens.

    Parameters
    ----------
    puzzle : Puzzle
    limit : int
        Count solutions up to this many (2 decides uniqueness).
    count_all : bool
        Enumerate every solution, up to :data:`COUNT_CAP`.
    timeout : float, optional
        Seconds for the fork search, and again for each of the backbone and the givens.
    depth : int, optional
        Implication graph traversal depth (unlimited when omitted).
    engine : str
        Engine for the backbone and uniqueness solves.
    structure : bool
        Compute the backbone, ambiguity map and givens for puzzles with several solutions.
    keep_graph : bool
        Keep the implication graph at the line-solving fixpoint in ``Analysis.graph`` (for
        export).

    Returns
    -------
    Analysis
    """
    start = time.perf_counter()
    staged = staged_solve(puzzle, depth=depth)
    # the implication graph where line solving first gets stuck: linked cells and export
    line_fix = propagate_grid(puzzle)
    graph = None
    forced: list[ForcedLiteral] = []
    linked: list[LinkedCells] = []
    if line_fix is not None:
        graph = implication_graph(puzzle, line_fix[0])
        forced = forced_literals(graph, depth)
        linked = linked_cells(graph)
    fork = None
    cap = max(limit, COUNT_CAP) if count_all else limit
    if staged.status == "solved":
        solutions = [grid_to_solution(staged.grid)]
        status = Status.UNIQUE
        counted_all = True
    elif staged.status == "contradiction":
        solutions, status, counted_all = [], Status.NONE, True
    else:
        fork = fork_search(puzzle, staged.grid, limit=cap, timeout=timeout)
        solutions = fork.solutions
        status = Status.from_search(len(solutions), cap, fork.finished)
        counted_all = fork.finished and len(solutions) < cap
    for sol in solutions:
        if not puzzle.is_solution(sol):  # pragma: no cover - would be a solver bug
            raise AssertionError("the analysis search returned an invalid solution")
    grade = difficulty_grade(staged, fork, contradiction=staged.status == "contradiction")
    result = Analysis(puzzle, status, solutions, counted_all, staged, fork, grade, linked,
                      forced, graph=graph if keep_graph else None)
    if structure and len(solutions) >= 2:
        result.backbone = backbone(puzzle, solutions, staged.grid, engine=engine, timeout=timeout)
        result.givens = uniqueness_givens(puzzle, solutions, staged.grid, engine=engine,
                                          timeout=timeout)
    result.time_s = time.perf_counter() - start
    return result

