"""The difficulty grade of a puzzle, its classification and the techniques it needs.

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

from dataclasses import dataclass
from typing import Any

from nonosat.analysis.classify import SearchEffort, classify
from nonosat.analysis.staged import StagedRun
from nonosat.engines import Status

#: Grade names, index = grade.
GRADE_NAMES = ("", "easy", "moderate", "hard", "very hard", "extreme")
#: Search effort (guesses or conflicts) from which a search puzzle is "extreme".
EXTREME_EFFORT = 100
#: Former name of :data:`EXTREME_EFFORT`.
EXTREME_GUESSES = EXTREME_EFFORT


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
