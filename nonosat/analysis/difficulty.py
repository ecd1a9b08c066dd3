"""The analysis report of one puzzle: verdict, techniques needed, structure and difficulty grade.

:func:`analyse` takes the **verdict** (and the solutions) from the fastest engine that decides
the puzzle, the ``auto`` portfolio by default (:mod:`nonosat.engines.auto`: the native root
node, then SAT given what it proved), under the caller's time limit -- the same verdict, in the
same time, as ``nonosat solve``.  The **staged logic** (:mod:`nonosat.analysis.staged`: line
solving, implications, probing; each bounded, no search) then says what each kind of logic
achieves; when logic gets stuck, the **search** figures are those of the engine that decided:
the native search's guesses when the native solver decided, CaDiCaL's conflicts when SAT did
(:class:`nonosat.analysis.classify.SearchEffort`).  No search is run for the analysis alone.
For puzzles with several solutions: the backbone and the whole ambiguity map
(:func:`nonosat.analysis.ambiguity.ambiguity_map`), a greedy set of extra givens and one-cell
edits of the picture that make the solution unique.  For every puzzle logic leaves open: the
independent parts of what line solving leaves open and of what all logic leaves open
(:mod:`nonosat.analysis.structure`).  For every puzzle with a solution a smallest backdoor to
line logic (:mod:`nonosat.analysis.backdoor`; empty when line solving solves it; with several
solutions, the backdoor of the goal picture when it is a solution, else of the first solution
found): exact when proved within ``backdoor_timeout``, else the best found with a lower bound,
and :attr:`Backdoor.exact` says which.

Cells per stage
---------------
The stages' figures are fixpoints, so they add up: ``line`` = cells known at the line-solving
fixpoint, ``implications`` / ``probing`` = cells the fixpoint with that stage knows beyond the
previous one, ``search`` = the cells logic leaves open that the engine decided (all of them when
the solution is unique; the backbone cells among them for several solutions, the rest being
ambiguous).  ``line + implications + probing + search (+ ambiguous)`` is the number of cells.

Difficulty grade
----------------
The grade is decided by the hardest technique the puzzle needs and how much of it; the
``score`` orders puzzles on one scale from 1 to 5:

=====  ============  ==========================================================  ==============
grade  name          rule                                                        score
=====  ============  ==========================================================  ==============
1      easy          line solving alone decides every cell                       [1, 2)
2      moderate      needs the implication graph, in at most 2 rounds (a round   [2, 3)
                     = one graph built after line solving got stuck, that
                     forced at least one cell)
3      hard          more implication rounds, or failed-literal probing          [3, 4)
4      very hard     logic gets stuck; the engine's search decided with effort   [4, 4.5)
                     ``e`` < 100 (native guesses, or SAT conflicts when SAT
                     decided)
5      extreme       search effort ``e`` >= 100                                  [4.5, 5)
5      extreme       not decided within the time limit                           5
=====  ============  ==========================================================  ==============

A puzzle without a solution or with several gets no grade (:func:`not_graded`: ``"not graded:
no solution"`` / ``"not graded: several solutions"``): the rule measures what it takes to reach
*the* solution.  The grade, the classification and the techniques needed are decided together by
:func:`assess`.

Time limit
----------
``timeout`` bounds the whole analysis: its :data:`SECTIONS` share one deadline (a
:class:`Clock`), each getting what the sections before it left (the map at most half, ...), and
:attr:`Analysis.sections` says of each whether it finished, was cut short (its partial result
kept) or not run.  Docs: ``docs/analysis.md``.

Scores: ``1 + s / (s + 100)`` for grade 1 with ``s`` the line steps (line solves that fixed a
cell); ``g + (i + 2 p) / (i + 2 p + 10)`` for grades 2-3 with ``i``/``p`` the implication/probing
rounds; ``4 + e / (e + 100)`` for a search with effort ``e`` (so grade 5 starts at 4.5).  The
search effort is counted in the unit of the engine that decided (the ``auto`` portfolio decides
with the native search only when its root node finishes; otherwise SAT's conflicts), and says
which.

Survey (``--timeout 60``, auto): Forever (webpbn #6574) is grade 4 (83 SAT conflicts); Knotty and
Faase are not decided in 60 s (grade 5, score 5); Mum, Petro, Light and Merka need probing or
three implication rounds (grade 3), Edge and Bucks implications (grade 2); the line-solvable
warm-ups (Dancer, Cat, Knot, Skid, Swing) grade 1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.analysis.ambiguity import (
    Backbone,
    UniquenessGivens,
    ambiguity_map,
    edit_suggestions,
    uniqueness_givens,
)
from nonosat.analysis.backdoor import Backdoor, smallest_backdoor
from nonosat.analysis.classify import SearchEffort, classify, search_effort
from nonosat.analysis.implied import (
    components,
    forced_literals_fast,
    implication_arrays,
    linked_cells_fast,
    scc_summary_fast,
)
from nonosat.analysis.staged import StagedRun, staged_solve
from nonosat.analysis.structure import Part, independent_parts, scc_summary
from nonosat.engines import SolveResult, Status
from nonosat.engines.counting import SolutionCount
from nonosat.native.implications import (
    ForcedLiteral,
    LinkedCells,
    forced_literals,
    implication_graph,
    linked_cells,
)
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Puzzle, grid_rows
from nonosat.verdict import decide

#: Grade names, index = grade.
GRADE_NAMES = ("", "easy", "moderate", "hard", "very hard", "extreme")
#: Search effort (guesses or conflicts) from which a search puzzle is "extreme".
EXTREME_EFFORT = 100
#: Former name of :data:`EXTREME_EFFORT`.
EXTREME_GUESSES = EXTREME_EFFORT
#: Solutions enumerated at most by ``count_all``.
COUNT_CAP = 10_000
#: Seconds for the backdoor search by default.
BACKDOOR_TIMEOUT = 10.0


@dataclass(frozen=True)
class Grade:
    """A difficulty grade: ``grade`` 1-5, its ``name``, the ordering ``score`` (in [1, 5]) and
    the ``reason`` (one sentence naming the rule that applied).

    A puzzle without a solution, with several, or whose logic stages the time limit stopped is
    not graded (:func:`not_graded`): ``grade`` 0, ``name`` ``"not graded"``, ``score`` 0 and
    the ``reason`` (``"no solution"``, ``"several solutions"``, ...).
    """

    grade: int
    name: str
    score: float
    reason: str

    @property
    def graded(self) -> bool:
        """Whether the puzzle got a grade (1-5)."""
        return self.grade > 0

    def describe(self) -> str:
        """``"2 (moderate), score 2.167 (scale 1-5): needs implications (2 rounds)"`` or
        ``"not graded: no solution"``."""
        if not self.graded:
            return f"not graded: {self.reason}"
        return f"{self.grade} ({self.name}), score {self.score} (scale 1-5): {self.reason}"

    def to_json(self) -> dict[str, Any]:
        """``{"grade", "name", "score", "reason", "scale"}``; ``grade`` and ``score`` are
        ``null`` when not graded."""
        return {"grade": self.grade if self.graded else None, "name": self.name,
                "score": self.score if self.graded else None, "reason": self.reason,
                "scale": [1, 5]}


#: Name of :func:`not_graded` grades.
NOT_GRADED = "not graded"


def not_graded(reason: str) -> Grade:
    """The :class:`Grade` of a puzzle that gets none, for ``reason`` (``"no solution"``,
    ``"several solutions"``, ...)."""
    return Grade(0, NOT_GRADED, 0.0, reason)


def _effort(search) -> tuple[int, str, bool]:
    """(effort, unit, decided) of a :class:`SearchEffort` or a legacy ``ForkResult``."""
    if isinstance(search, SearchEffort):
        return search.amount, search.unit, search.decided
    return int(search.guesses), "guesses", bool(search.finished)


def difficulty_grade(staged: StagedRun, search=None, contradiction: bool = False) -> Grade:
    """Grade a puzzle from its staged run and the search figures (rule in the module docstring).

    Parameters
    ----------
    staged : StagedRun
    search : SearchEffort or ForkResult, optional
        The engine's search figures when logic got stuck (a
        :class:`~nonosat.analysis.staged.ForkResult` counts its guesses).
    contradiction : bool
        Logic proved there is no solution (graded by the technique that proved it).
    """
    rounds_i = staged.invocations["implications"]
    rounds_p = staged.invocations["probing"]
    line_steps = sum(1 for s in staged.steps if s.stage == "line")
    if search is not None and staged.status == "stuck":
        e, unit, decided = _effort(search)
        word = unit if e != 1 else unit[:-2] if unit == "guesses" else unit[:-1]
        if not decided:
            return Grade(5, GRADE_NAMES[5], 5.0,
                         "logic gets stuck and the search did not decide within the time limit")
        score = round(4 + e / (e + EXTREME_EFFORT), 3)
        if e >= EXTREME_EFFORT:
            return Grade(5, GRADE_NAMES[5], min(score, 4.999),
                         f"logic gets stuck and the search needed {e} {word}")
        return Grade(4, GRADE_NAMES[4], min(score, 4.499),
                     f"logic gets stuck; the search needed {e} {word}")
    f23 = (rounds_i + 2 * rounds_p) / (rounds_i + 2 * rounds_p + 10)
    if rounds_p > 0 or rounds_i > 2:
        why = (f"needs probing ({rounds_p} round{'s' if rounds_p != 1 else ''})" if rounds_p
               else f"needs {rounds_i} rounds of implications")
        return Grade(3, GRADE_NAMES[3], min(round(3 + f23, 3), 3.999), why)
    if rounds_i > 0:
        return Grade(2, GRADE_NAMES[2], min(round(2 + f23, 3), 2.999),
                     f"needs implications ({rounds_i} round{'s' if rounds_i != 1 else ''})")
    return Grade(1, GRADE_NAMES[1], min(round(1 + line_steps / (line_steps + 100), 3), 1.999),
                 "line solving alone" + (" proves there is no solution" if contradiction
                                         else " decides every cell"))


def needed_technique(staged: StagedRun) -> str | None:
    """The hardest technique the staged logic needed: ``"line"``, ``"implications"``,
    ``"probing"``, ``"search"`` (logic gets stuck), or ``None`` when the time limit stopped the
    stages before they finished (not known)."""
    if getattr(staged, "stopped", False):
        return None
    stage = staged.hardest_stage()
    return "search" if stage == "fork" else stage


@dataclass(frozen=True)
class Assessment:
    """The classification, techniques needed and grade of one puzzle, decided together by
    :func:`assess` (so the report and the JSON, which print them from here, cannot contradict
    themselves)."""

    techniques_needed: str | None
    classification: str
    grade: Grade


def assess(
    status: Status,
    staged: StagedRun,
    search: SearchEffort | None = None,
    ambiguous: int | None = None,
    complete: bool = True,
) -> Assessment:
    """The one place that decides a puzzle's classification, techniques needed and grade.

    Parameters
    ----------
    status : Status
        The engine's verdict.
    staged : StagedRun
        The staged logic (black-and-white or colour).
    search : SearchEffort, optional
        The decisive engine's search figures, when logic gets stuck.
    ambiguous : int, optional
        Cells outside the backbone (several solutions), when computed.
    complete : bool
        The ambiguity map was complete (else ``ambiguous`` is a lower bound).

    Returns
    -------
    Assessment
        ``techniques_needed`` (:func:`needed_technique`); the classification
        (:func:`nonosat.analysis.classify.classify`, given the same technique for a solved
        puzzle); the grade (:func:`difficulty_grade`), or :func:`not_graded` for no solution,
        several solutions, or logic stages the time limit stopped.
    """
    needed = needed_technique(staged)
    contradiction = staged.status == "contradiction"
    classification = classify(status, needed if status in (Status.UNIQUE, Status.SOLVED)
                              else None, search, ambiguous, complete)
    if status == Status.NONE or contradiction:
        grade = not_graded("no solution")
    elif status == Status.MULTIPLE:
        grade = not_graded("several solutions")
    elif status == Status.UNKNOWN:
        grade = Grade(5, GRADE_NAMES[5], 5.0, "not decided within the time limit")
    elif needed is None:
        grade = not_graded("the logic stages did not finish within the time limit")
    else:
        grade = difficulty_grade(staged, search)
    return Assessment(needed, classification, grade)


#: The parts of an analysis its time limit bounds, in the order they run: the verdict, the
#: staged logic, the structure (implication graph, linked cells, independent parts), the
#: ambiguity map, the extra givens and the one-cell edits (several solutions), the backdoor.
SECTIONS = ("verdict", "stages", "structure", "map", "givens", "edits", "backdoor")
#: What :attr:`Analysis.sections` says of each: finished; cut short by the time limit (a partial
#: result: a map with undecided cells, a backdoor not proved smallest, givens not proved
#: unique, not every edit tried); not run because the time limit was reached; skipped (by an
#: option, or for lack of time left when it began); not applicable to this puzzle; not run
#: because the command was interrupted (Ctrl-C, SIGTERM: the CLI prints what finished).
SECTION_STATES = ("done", "cut short", "time limit", "skipped", "not applicable", "interrupted")


@dataclass
class Analysis:
    """Everything :func:`analyse` found out about a puzzle.

    Attributes
    ----------
    puzzle : Puzzle
    status : Status
        Verdict (unique / multiple / none / unknown; ``multiple`` means at least ``limit``),
        from ``engine``.
    solutions : list of ndarray of bool
        Solutions found (at most the limit used).
    counted_all : bool
        ``solutions`` is every solution (enumeration finished below its cap).
    staged : StagedRun
        The staged logic (line solving, implications, probing).
    search : SearchEffort or None
        The decisive engine's search figures, when logic gets stuck.
    grade : Grade
    engine : str
        The engine that gave the verdict (``native``, ``native+sat``, ``sat``, ``cpsat``).
    solve_time_s : float
        That engine's time.
    linked : list of LinkedCells
        Cells tied by the implication graph at the line-solving fixpoint (its strongly
        connected components).
    linked_after_logic : list of LinkedCells
        The same at the fixpoint of all logic (when logic gets stuck).
    graph_forced : list of ForcedLiteral
        What the first implication graph forces.
    graph_summary : dict
        Nodes, edges and strongly connected components of that graph.
    backbone : Backbone or None
        For puzzles with several solutions (the whole ambiguity map).
    givens : UniquenessGivens or None
        For puzzles with several solutions.
    edits : list of dict
        One-cell edits of the goal picture that make the solution unique.
    parts : list of Part
        Independent parts of the cells logic leaves open (empty when logic solves the puzzle).
    parts_after_line : list of Part
        Independent parts of the cells line solving leaves open.
    backdoor : Backdoor or None
        A smallest backdoor to line logic (or probing), for every puzzle with a solution
        (empty for a line-solvable one; for several solutions, of the solution it selects:
        :attr:`Backdoor.several`); ``None`` when skipped or there is no solution.
    backdoor_of : str
        The solution the backdoor's givens are taken from (``"the goal picture"``, ``"the
        first solution found"``, ``"the solution found"``).
    classification : str
    solution_count : SolutionCount or None
        The number of solutions (:func:`nonosat.engines.counting.count_after_solve`: exact from
        the verdict, a finished enumeration or the model counter, else the lower bound found).
    time_s : float
        The analysis' own time (seconds), without ``load_s``.
    load_s : float
        The one-off time the engine spent loading its compiled kernels and libraries (as
        :attr:`nonosat.engines.SolveResult.load_s`; 0 once loaded).
    sections : dict of str to str
        For each of :data:`SECTIONS`, one of :data:`SECTION_STATES`.
    edit_search : dict
        How the search for one-cell edits ended (``progress`` of
        :func:`nonosat.analysis.ambiguity.edit_suggestions`), empty when it did not run.
    assessment : Assessment or None
        Where ``classification``, ``grade`` and :attr:`techniques_needed` come from.
    """

    puzzle: Puzzle
    status: Status
    solutions: list[np.ndarray]
    counted_all: bool
    staged: StagedRun
    search: SearchEffort | None
    grade: Grade
    engine: str = ""
    solve_time_s: float = 0.0
    linked: list[LinkedCells] = field(default_factory=list)
    linked_after_logic: list[LinkedCells] = field(default_factory=list)
    graph_forced: list[ForcedLiteral] = field(default_factory=list)
    graph_summary: dict[str, Any] = field(default_factory=dict)
    backbone: Backbone | None = None
    givens: UniquenessGivens | None = None
    edits: list[dict[str, Any]] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    parts_after_line: list[Part] = field(default_factory=list)
    backdoor: Backdoor | None = None
    backdoor_of: str = ""
    classification: str = ""
    graph: Any = None
    solution_count: SolutionCount | None = None
    time_s: float = 0.0
    load_s: float = 0.0
    sections: dict[str, str] = field(default_factory=dict)
    edit_search: dict[str, Any] = field(default_factory=dict)
    assessment: Assessment | None = None

    @property
    def techniques_needed(self) -> str | None:
        """``"line"``, ``"implications"``, ``"probing"`` or ``"search"``; ``None`` when the
        time limit stopped the logic stages (from :attr:`assessment`, :func:`assess`)."""
        if self.assessment is not None:
            return self.assessment.techniques_needed
        return needed_technique(self.staged)

    def settle(self) -> None:
        """Decide the classification, techniques needed and grade together (:func:`assess`)
        from what is known now."""
        amb = None if self.backbone is None else int(self.backbone.ambiguous.sum())
        complete = self.backbone is None or not bool(self.backbone.undecided.any())
        self.assessment = assess(self.status, self.staged, self.search, amb, complete)
        self.classification = self.assessment.classification
        self.grade = self.assessment.grade

    def backbone_size(self) -> int | None:
        """Cells equal in all solutions (``None`` when unknown or there is no solution)."""
        if self.status == Status.UNIQUE or (self.status == Status.SOLVED and self.counted_all):
            return self.puzzle.height * self.puzzle.width
        if self.backbone is not None:
            return self.backbone.size
        return None

    def cells_by_stage(self) -> dict[str, int]:
        """Cells each stage adds to what the stages before it know (module docstring):
        ``line``, ``implications``, ``probing``, ``search``, ``ambiguous``, ``undecided``; they
        sum to the number of cells of a puzzle with a solution."""
        out: dict[str, int] = {**self.staged.cells_by_stage(), "search": 0, "ambiguous": 0,
                               "undecided": 0}
        left = self.staged.open_after["probing"]
        if self.staged.status == "contradiction" or self.status == Status.NONE:
            out["undecided"] = 0
            return out
        if self.status == Status.UNIQUE:
            out["search"] = left
        elif self.backbone is not None:
            amb = int(self.backbone.ambiguous.sum())
            und = int(self.backbone.undecided.sum())
            out.update(search=left - amb - und, ambiguous=amb, undecided=und)
        else:
            out["undecided"] = left
        return out

    def to_json(self, name: str | None = None) -> dict[str, Any]:
        """A JSON-serialisable dict (cells 1-based ``[row, col]``)."""
        staged = self.staged

        def cells(mask: np.ndarray) -> list[list[int]]:
            return [[int(r) + 1, int(c) + 1] for r, c in zip(*np.nonzero(mask), strict=True)]

        def groups(linked: list[LinkedCells]) -> list[dict[str, Any]]:
            return [{"equal": [[r + 1, c + 1] for r, c in g.equal],
                     "opposite": [[r + 1, c + 1] for r, c in g.opposite]} for g in linked]

        out: dict[str, Any] = {
            "puzzle": name if name is not None else self.puzzle.describe(),
            "width": self.puzzle.width,
            "height": self.puzzle.height,
            "status": self.status.value,
            "classification": self.classification,
            "engine": self.engine,
            "solve_time_s": round(self.solve_time_s, 6),
            "solutions_found": len(self.solutions),
            "counted_all": self.counted_all,
            **({} if self.solution_count is None else self.solution_count.to_json()),
            "techniques_needed": self.techniques_needed,
            "cells_by_stage": self.cells_by_stage(),
            "deductions": self.cells_by_stage(),
            "cells_by_step": staged.cells_by_step(),
            "steps": staged.techniques(),
            "rounds": staged.invocations,
            "open_after": staged.open_after,
            "search": None if self.search is None else self.search.to_json(),
            "backbone_size": self.backbone_size(),
            "grade": self.grade.to_json(),
            "linked_cells": groups(self.linked),
            "linked_cells_after_logic": groups(self.linked_after_logic),
            "implication_graph": self.graph_summary,
            "independent_parts": {"count": len(self.parts),
                                  "sizes": [p.size for p in self.parts],
                                  "parts": [p.to_json() for p in self.parts[:50]]},
            "independent_parts_after_line": {
                "count": len(self.parts_after_line),
                "sizes": [p.size for p in self.parts_after_line],
                "parts": [p.to_json() for p in self.parts_after_line[:50]]},
            "backdoor": None if self.backdoor is None else {**self.backdoor.to_json(),
                                                            "of": self.backdoor_of},
            "stage_time_s": staged.time_s,
            "time_s": round(self.time_s, 6),
            "load_s": round(self.load_s, 6),
            "solutions": [grid_rows(s) for s in self.solutions[:10]],
            "sections": dict(self.sections),
        }
        if self.backbone is not None:
            out["ambiguity"] = {
                "cells": cells(self.backbone.ambiguous),
                "undecided": cells(self.backbone.undecided),
                "complete": not bool(self.backbone.undecided.any()),
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
        if self.status == Status.MULTIPLE:
            out["edits"] = [{"row": e["cell"][0] + 1, "col": e["cell"][1] + 1,
                             "value": "filled" if e["value"] == "#" else "empty",
                             "text": e["text"]} for e in self.edits]
            out["edit_search"] = self.edit_search_json()
        return out

    def edit_search_json(self) -> dict[str, Any]:
        """``{"state": SECTION_STATES item, "end", "candidates", "tried", "undecided",
        "found"}`` for the search for one-cell edits (see :meth:`edits_text`)."""
        info = self.edit_search
        return {"state": self.sections.get("edits", "not applicable"),
                "end": info.get("end"), "candidates": info.get("candidates", 0),
                "tried": info.get("tried", 0), "undecided": info.get("undecided", 0),
                "found": len(self.edits)}

    def edits_text(self) -> str | None:
        """The report's line when no one-cell edit is listed for a puzzle with several
        solutions: why (the picture is not known; the search did not run or ran out of time;
        none of the edits tried gives a unique solution); ``None`` when edits were found or
        the puzzle does not have several solutions."""
        if self.status != Status.MULTIPLE or self.edits:
            return None
        state = self.sections.get("edits")
        info = self.edit_search
        if self.puzzle.goal is None or info.get("end") == "no picture":
            return "edits: none looked for (the puzzle has no picture to edit)"
        if info.get("end") == "invalid picture":
            return ("edits: none looked for (the picture stored in the file contradicts the "
                    "clues)")
        if state == "time limit":
            return "edits: not looked for (time limit reached before the search for edits)"
        if state == "interrupted":
            return "edits: not looked for (interrupted)"
        if state == "skipped" or not info:
            return "edits: not looked for"
        tried, n = info.get("tried", 0), info.get("candidates", 0)
        undecided = info.get("undecided", 0)
        tail = (f"; {undecided} not decided in their time budget" if undecided else "")
        if info.get("end") == "all tried":
            return (f"edits: none found (none of the {n} one-cell edits of the picture gives "
                    f"a unique solution{tail})")
        return (f"edits: none found before the time limit ({tried} of {n} one-cell edits "
                f"tried{tail})")


def _goal_fits(puzzle: Puzzle) -> bool:
    """The puzzle's goal picture satisfies its clues."""
    try:
        return puzzle.goal is not None and puzzle.is_solution(puzzle.goal)
    except Exception:  # noqa: BLE001 - a goal of the wrong shape or type does not fit
        return False


def _empty_staged(puzzle: Puzzle) -> StagedRun:
    """A staged run that never ran (the time limit was reached before it): nothing known."""
    from nonosat.puzzle import unknown_grid

    n = puzzle.height * puzzle.width
    return StagedRun([], unknown_grid(puzzle), "stuck",
                     dict.fromkeys(("start", "line", "implications", "probing"), n),
                     dict.fromkeys(("line", "implications", "probing"), 0), {}, stopped=True)


class Clock:
    """One deadline shared by every section of an analysis (``timeout`` seconds from its
    creation; ``None``: no limit)."""

    def __init__(self, timeout: float | None) -> None:
        self.deadline = None if timeout is None else time.perf_counter() + timeout

    def allow(self, seconds: float) -> None:
        """Move the deadline ``seconds`` later (time that does not count: loading an engine)."""
        if self.deadline is not None:
            self.deadline += seconds

    def left(self) -> float | None:
        """Seconds left (never negative); ``None`` without a limit."""
        if self.deadline is None:
            return None
        return max(self.deadline - time.perf_counter(), 0.0)

    def out(self) -> bool:
        """The time limit is reached."""
        left = self.left()
        return left is not None and left <= 0.0

    def share(self, fraction: float, cap: float | None = None) -> float | None:
        """``fraction`` of the time left, at most ``cap`` seconds (``None``: no limit and no
        cap)."""
        left = self.left()
        if left is None:
            return cap
        part = left * fraction
        return part if cap is None else min(part, cap)


def solution_count(puzzle: Puzzle, result: SolveResult, limit: int,
                   timeout: float | None) -> SolutionCount | None:
    """The number of solutions for :attr:`Analysis.solution_count`: the model counter
    (:func:`nonosat.engines.counting.count_after_solve`) gets at most
    :data:`~nonosat.engines.counting.DEFAULT_COUNT_TIMEOUT` seconds (and no more than
    ``timeout``); when the counter fails (not installed, crashed) the count is the lower bound
    found, with the error as its ``reason``."""
    from nonosat.engines.counting import DEFAULT_COUNT_TIMEOUT, count_after_solve
    from nonosat.errors import EngineError

    budget = DEFAULT_COUNT_TIMEOUT if timeout is None else min(timeout, DEFAULT_COUNT_TIMEOUT)
    try:
        return count_after_solve(puzzle, result, limit=limit, timeout=budget)
    except EngineError as exc:
        return SolutionCount(len(result.solutions) or None, False, "lower bound",
                             reason=str(exc))


def analyse(
    puzzle: Puzzle,
    *,
    limit: int = 2,
    count_all: bool = False,
    timeout: float | None = 30.0,
    depth: int | None = None,
    engine: str = "auto",
    structure: bool = True,
    keep_graph: bool = False,
    backdoor_timeout: float | None = BACKDOOR_TIMEOUT,
    backdoor_logic: str = "line",
    progress: list | None = None,
    count: bool = True,
) -> Analysis:
    """Analyse ``puzzle`` (module docstring).

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white (colour puzzles: :func:`nonosat.analysis.colour.analyse_colour`).
    limit : int
        Count solutions up to this many (2 decides uniqueness).
    count_all : bool
        Enumerate every solution, up to :data:`COUNT_CAP`.
    timeout : float, optional
        Seconds for the **whole** analysis, every section together (:data:`SECTIONS`): the
        verdict gets what it needs of it; the staged logic, the structure, the ambiguity map (at
        most half of what is left), the extra givens (half of what is then left), the one-cell
        edits (half of the rest, at most 5 s) and the backdoor (at most ``backdoor_timeout``)
        what is left after the sections before them.  A section the limit cut short keeps its
        partial result; one it left no time for is not run.  :attr:`Analysis.sections` says
        which.  (A compiled round that cannot be interrupted may overrun the limit a little.)
    depth : int, optional
        Implication graph traversal depth (unlimited when omitted).
    engine : str
        Engine for the verdict, the solutions and the givens (default the ``auto`` portfolio).
    structure : bool
        Compute the ambiguity map, givens, edits, independent parts and backdoor.
    keep_graph : bool
        Keep the implication graph at the line-solving fixpoint in ``Analysis.graph`` (for
        export).
    backdoor_timeout : float, optional
        Seconds for the backdoor search at most (``0`` skips it).
    backdoor_logic : str
        The logic the backdoor's givens are completed by: ``"line"`` (line solving) or
        ``"probing"`` (line solving and failed-literal probing).
    progress : list, optional
        When given, the :class:`Analysis` is appended to it as soon as the verdict is known and
        then completed section by section (settled after each), so that a caller can report
        what finished if the process must stop early.
    count : bool
        Count several solutions exactly with the model counter (:func:`solution_count`: at most
        10 s and a quarter of the time left); ``False`` keeps the lower bound (batch runs: no
        counter process per puzzle).

    Returns
    -------
    Analysis
    """
    start = time.perf_counter()
    clock = Clock(timeout)
    cap = max(limit, COUNT_CAP) if count_all else limit
    result = decide(puzzle, engine=engine, limit=cap, timeout=clock.left())  # as 'nonosat solve'
    clock.allow(result.load_s)  # loading the engine's kernels is not the analysis' time
    solutions = list(result.solutions)
    status = result.status
    counted_all = (status in (Status.UNIQUE, Status.NONE)
                   or (status == Status.MULTIPLE and len(solutions) < cap
                       and getattr(result, "exhausted", True)))
    if status == Status.SOLVED:
        counted_all = False
    sections = dict.fromkeys(SECTIONS, "time limit")
    sections["verdict"] = "done" if status != Status.UNKNOWN else "cut short"
    out = Analysis(puzzle, status, solutions, counted_all, _empty_staged(puzzle), None,
                   not_graded("not analysed"), engine=result.engine,
                   solve_time_s=result.time_s, sections=sections)
    out.load_s = result.load_s
    out.settle()
    if progress is not None:  # from here on, what finished can be reported
        progress.append(out)
    if count and status in (Status.UNIQUE, Status.NONE, Status.MULTIPLE) and not clock.out():
        out.solution_count = solution_count(puzzle, result, cap, clock.share(0.25, 10.0))

    def finish() -> Analysis:
        out.settle()
        out.time_s = time.perf_counter() - start - result.load_s
        return out

    out.settle()
    if clock.out():
        return finish()
    staged = staged_solve(puzzle, depth=depth, deadline=clock.deadline)
    sections["stages"] = "cut short" if staged.stopped else "done"
    if staged.status == "solved" and status not in (Status.UNIQUE, Status.SOLVED):
        raise AssertionError(f"logic solved the puzzle but the engine says {status.value}")
    out.staged = staged
    out.search = search_effort(result) if staged.status == "stuck" else None
    out.settle()
    if clock.out():
        return finish()
    # the implication graph where line solving first gets stuck: linked cells and export
    line_fix = propagate_grid(puzzle)
    if line_fix is not None and (keep_graph or depth is not None):
        graph = implication_graph(puzzle, line_fix[0])
        out.graph_forced = forced_literals(graph, depth)
        out.linked = linked_cells(graph)
        out.graph_summary = scc_summary(graph)
        out.graph = graph if keep_graph else None
    elif line_fix is not None:  # the same figures without networkx (nonosat.analysis.implied)
        arrays = implication_arrays(puzzle, line_fix[0])
        comp = components(arrays)
        out.graph_forced = forced_literals_fast(arrays, comp_count=comp)
        out.linked = linked_cells_fast(arrays, comp)
        out.graph_summary = scc_summary_fast(arrays, comp)
    if line_fix is not None:
        out.parts_after_line = independent_parts(line_fix[0])
    if staged.status == "stuck":
        out.parts = independent_parts(staged.grid)
        if structure:
            out.linked_after_logic = linked_cells_fast(implication_arrays(puzzle, staged.grid))
    sections["structure"] = "done"
    several = structure and len(solutions) >= 2
    for name in ("map", "givens", "edits"):
        if not several:
            sections[name] = "skipped" if not structure else "not applicable"
    if several and not clock.out():
        # the ambiguity map, the givens and the edits share what is left of the time limit
        # (the map up to half of it, the givens half of the rest, the edits half of what is
        # then left, at most 5 s), leaving the rest to the backdoor
        out.backbone = ambiguity_map(puzzle, solutions, staged.grid, timeout=clock.share(0.5))
        sections["map"] = "cut short" if bool(out.backbone.undecided.any()) else "done"
        out.settle()
        if not clock.out():
            out.givens = uniqueness_givens(puzzle, out.backbone.witnesses, staged.grid,
                                           engine=engine, timeout=clock.share(0.5))
            sections["givens"] = "done" if out.givens.unique else "cut short"
        if puzzle.goal is None or not _goal_fits(puzzle):
            # a picture that contradicts the clues is no picture of this puzzle to edit
            sections["edits"] = "not applicable"
            out.edit_search = {"end": "no picture" if puzzle.goal is None else "invalid picture"}
        elif not clock.out():
            share = clock.share(0.5, 5.0)
            assert share is not None
            out.edits = edit_suggestions(puzzle, out.backbone.ambiguous,
                                         deadline=time.perf_counter() + share,
                                         progress=out.edit_search)
            sections["edits"] = ("done" if out.edit_search.get("end") in ("all tried",
                                                                          "max edits")
                                 else "cut short")
    if not (structure and status in (Status.UNIQUE, Status.MULTIPLE)):
        sections["backdoor"] = "not applicable" if structure else "skipped"
    elif backdoor_timeout == 0:
        sections["backdoor"] = "skipped"
    elif not clock.out():
        # several solutions: the backdoor of the solution the givens select (the goal picture
        # when it is a solution, else the first found); line logic completing it from the
        # backdoor also proves it the only solution with those givens
        target = solutions[0]
        if (status == Status.MULTIPLE and puzzle.goal is not None
                and np.asarray(puzzle.goal).shape == puzzle.shape
                and puzzle.is_solution(np.asarray(puzzle.goal, dtype=bool))):
            target = np.asarray(puzzle.goal, dtype=bool)
        out.backdoor_of = ("the goal picture" if target is not solutions[0] else
                           "the solution found" if status == Status.UNIQUE else
                           "the first solution found")
        left = clock.left()
        budget = (backdoor_timeout if left is None else
                  left if backdoor_timeout is None else min(backdoor_timeout, left))
        out.backdoor = smallest_backdoor(puzzle, target, logic=backdoor_logic,
                                         timeout=budget, several=status == Status.MULTIPLE)
        cut = not out.backdoor.exact and left is not None and (
            backdoor_timeout is None or left < backdoor_timeout)
        sections["backdoor"] = "cut short" if cut else "done"
    return finish()
