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
* **Givens** (:mod:`nonosat.formats.givens`, ``puzzle.meta["givens"]``) are the starting grid of
  every stage: the verdict, the grade, the backbone and the suggestions are those of the puzzle
  with its givens.
* **Suggestions** (several solutions only), under their own time budget: extra givens from
  :func:`nonosat.analysis.ambiguity.uniqueness_givens` and, when the picture (``goal``) is
  known, one-cell edits of the picture whose re-derived clues have a unique solution
  (:func:`nonosat.analysis.ambiguity.edit_suggestions`, shared with ``nonosat analyse``).

**Colour** puzzles take the same steps through the same analysis functions (the one pipeline
of ``nonosat analyse``, on the colour kernels): the grade from
:func:`~nonosat.analysis.staged.staged_solve` (line solving, implications over "cell takes colour
c", probing), the map from :func:`~nonosat.analysis.backbone.ambiguity_map`, givens from
:func:`~nonosat.analysis.extra_givens.uniqueness_givens`; solutions, givens and edits are
written over :data:`nonosat.studio.cells.INDEX_CHARS` (``.`` background, ``a`` colour 1, ...).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.analysis.ambiguity import MAX_EDITS, edit_suggestions, sat_backbone
from nonosat.engines import SolveResult, Status, solve
from nonosat.engines.sat import other_than
from nonosat.formats.givens import givens_of
from nonosat.puzzle import Cell, Puzzle, grid_rows
from nonosat.stop import TIME_LIMIT, StopToken
from nonosat.studio.runner import stop_kwargs

__all__ = ["MAX_EDITS", "Cancelled", "QuickAnalysis", "classify", "edit_suggestions",
           "drawn_solution", "quick_analyse", "quick_grade", "sat_backbone",
           "suggestion_budget", "suggestions", "verdict", "verdict_json"]

#: Seconds the native engine gets before the ``auto`` portfolio takes over.
NATIVE_BUDGET_S = 0.25
#: Make-unique suggestions' cap: seconds, plus seconds per cell, and the most seconds
#: (:func:`suggestion_budget`).
SUGGEST_BASE_S = 2.0
SUGGEST_PER_CELL_S = 0.02
SUGGEST_MAX_S = 30.0
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
            "solutions": [_rows(self.puzzle, s) for s in self.result.solutions[:2]],
            "ambiguous": [[int(r), int(c)] for r, c in zip(*np.nonzero(self.ambiguous),
                                                           strict=True)],
            "backbone_complete": self.backbone_complete,
            "grade": self.grade,
            "techniques": self.techniques,
            "guesses": self.guesses,
            "classification": self.classification,
            "suggestions": self.suggestions,
        }


def _rows(puzzle: Puzzle, solution: np.ndarray) -> list[str]:
    if puzzle.is_colour:
        from nonosat.studio.cells import colour_grid_rows

        return colour_grid_rows(solution)
    return grid_rows(solution)


def start_grid(puzzle: Puzzle) -> np.ndarray | None:
    """The givens a solve starts from (:func:`nonosat.formats.givens.givens_of`): an int8 grid
    state for black-and-white, colour masks (int32) for colour; ``None`` without givens."""
    return givens_of(puzzle)


def given_count(puzzle: Puzzle, givens: np.ndarray) -> int:
    """Cells ``givens`` fixes (one colour left, or a known black-and-white cell)."""
    if puzzle.is_colour:
        g = np.asarray(givens, dtype=np.int64)
        return int(((g & (g - 1)) == 0).sum())
    return int((givens != Cell.UNKNOWN).sum())


def backbone(puzzle: Puzzle, solutions: list[np.ndarray], known: np.ndarray | None, *,
             deadline: float, stop: StopToken | None = None
             ) -> tuple[np.ndarray, bool, list[np.ndarray]]:
    """``(ambiguous, complete, witnesses)`` of several solutions, black-and-white
    (:func:`sat_backbone`) or colour (:func:`nonosat.analysis.backbone.ambiguity_map`); a set
    ``stop`` ends it as the deadline does (the map then incomplete)."""
    if not puzzle.is_colour:
        return sat_backbone(puzzle, solutions, known, deadline=deadline, stop=stop)
    from nonosat.analysis.backbone import ambiguity_map

    bb = ambiguity_map(puzzle, solutions, known,
                       timeout=max(deadline - time.perf_counter(), 0.0), stop=stop)
    return bb.ambiguous, not bool(bb.undecided.any()), list(bb.witnesses)


def verdict(puzzle: Puzzle, timeout: float, partial: np.ndarray | None = None,
            stop: StopToken | None = None) -> SolveResult:
    """Up to two solutions: native under :data:`NATIVE_BUDGET_S`, then, for the rest of
    ``timeout`` (seconds), :func:`nonosat.engines.sat.other_than` when the drawn picture is a solution, else
    the ``auto`` portfolio.  Status ``UNKNOWN`` when neither decided in time, or when ``stop``
    was set (it is passed to the engines when they take a ``stop=`` parameter, and checked
    between the two)."""
    start = time.perf_counter()
    extra = stop_kwargs(solve, stop)
    result = solve(puzzle, "native", partial=partial, limit=2,
                   timeout=min(NATIVE_BUDGET_S, timeout), **extra)
    if result.status != Status.UNKNOWN:
        return result
    left = timeout - (time.perf_counter() - start)
    if left <= 0 or (stop is not None and stop.is_set()):
        return result
    goal = drawn_solution(puzzle, partial)
    if goal is not None:
        other = other_than(puzzle, goal, partial, deadline=start + timeout, stop=stop)
        other.stats["native_first"] = result.stats
        return other
    auto = solve(puzzle, "auto", partial=partial, limit=2, timeout=left, **extra)
    auto.stats["native_first"] = result.stats
    return auto


def drawn_solution(puzzle: Puzzle, partial: np.ndarray | None = None) -> np.ndarray | None:
    """The drawn picture (``puzzle.goal``, bool ``(height, width)``) when it is a solution of a
    black-and-white ``puzzle`` that agrees with the givens ``partial`` (int8 grid state); else
    ``None`` (colour, no picture, or clues typed by hand that the picture does not fit)."""
    goal = puzzle.goal
    if puzzle.is_colour or goal is None:
        return None
    goal = np.asarray(goal, dtype=bool)
    if goal.shape != puzzle.shape or not puzzle.is_solution(goal):
        return None
    if partial is not None:
        state = np.asarray(partial)
        known = state != Cell.UNKNOWN
        if np.any(goal[known] != (state[known] == Cell.FILLED)):
            return None
    return goal


#: The grade of a run stopped by its token before the grade was known.
STOPPED_GRADE: dict[str, Any] = {"level": None, "name": "not graded", "score": None,
                                 "exact": False, "reason": "stopped before the grade was known"}


def quick_grade(puzzle: Puzzle, result: SolveResult, start: np.ndarray | None = None, *,
                stop: StopToken | None = None
                ) -> tuple[dict[str, Any], dict[str, int], int, np.ndarray | None]:
    """Grade, techniques (steps per technique), guesses and the logic fixpoint grid.

    ``start`` (int8 grid state, optional) is the grid the logic starts from: the givens.

    The rule is :func:`nonosat.analysis.difficulty.difficulty_grade`'s; see the module docstring
    for when the implication stage is left out (``"exact": false``).  The fixpoint grid is
    ``None`` when logic proves there is no solution, or when ``stop`` was set before the grade
    was known (read by the probing kernels and between stages: the answer is then
    :data:`STOPPED_GRADE`, no technique, no grid).
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
    if puzzle.is_colour:
        return _colour_grade(puzzle, result, start, stop)

    def stopped() -> bool:
        return stop is not None and stop.is_set()

    halted: tuple[dict[str, Any], dict[str, int], int, np.ndarray | None] = (
        dict(STOPPED_GRADE), {}, 0, None)
    native = result.stats if result.engine == "native" else result.stats.get("native", {})
    guesses = int(native.get("guesses", 0))
    finished = result.engine == "native" and result.status != Status.UNKNOWN
    line = propagate_grid(puzzle, start)
    root = None
    if line is not None and bool((line[0] == Cell.UNKNOWN).any()) and not stopped():
        root = probe_grid(puzzle, line[0], stop=stop)
    if stopped():
        return halted
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
    staged = staged_solve(puzzle, start, stages=stages, stop=stop)
    if staged.stopped:
        return halted
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


def _colour_grade(puzzle: Puzzle, result: SolveResult, start: np.ndarray | None = None,
                  stop: StopToken | None = None
                  ) -> tuple[dict[str, Any], dict[str, int], int, np.ndarray | None]:
    """:func:`quick_grade` of a colour puzzle: the staged solve (line solving, implications,
    probing) and, when it gets stuck, the engine's search figures, graded by the same rule; the
    fixpoint grid holds colour bit masks (int32)."""
    from nonosat.analysis.classify import search_effort
    from nonosat.analysis.difficulty import difficulty_grade
    from nonosat.analysis.staged import staged_solve

    staged = staged_solve(puzzle, start, stop=stop)
    if staged.stopped:
        return dict(STOPPED_GRADE), {}, 0, None
    stuck = staged.status == "stuck"
    grade = difficulty_grade(staged, search_effort(result) if stuck else None,
                             contradiction=staged.status == "contradiction")
    native = result.stats if result.engine == "native" else result.stats.get("native", {})
    guesses = int(native.get("guesses", 0)) if stuck else 0
    grid = None if staged.status == "contradiction" else staged.grid
    return ({"level": grade.grade, "name": grade.name, "score": grade.score,
             "reason": grade.reason, "exact": True}, staged.techniques(), guesses, grid)


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
    suggest_timeout: float | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    stop: StopToken | None = None,
    progress: Callable[[str, dict[str, Any]], None] | None = None,
    deadline: float | None = None,
    on_verdict: Callable[[dict[str, Any]], None] | None = None,
) -> QuickAnalysis:
    """Verdict, whole ambiguity map, grade and suggestions of ``puzzle`` (module docstring).

    Parameters
    ----------
    puzzle : Puzzle
    timeout : float
        Seconds for the verdict, and again for the backbone.
    suggest : bool
        Compute make-unique suggestions for puzzles with several solutions.
    suggest_timeout : float, optional
        Most seconds for the suggestions (default :func:`suggestion_budget`, which grows with
        the puzzle).
    should_stop : callable
        Polled between phases; when it returns ``True`` :class:`Cancelled` is raised.
    stop : StopToken, optional
        Polled as ``should_stop`` is, and handed to the engines that take a ``stop=`` parameter
        (:func:`nonosat.studio.runner.stop_kwargs`).  Set by its timer (``TIME_LIMIT``), the
        analysis finishes with what it has (no more map, no suggestions) instead of raising.
    progress : callable(phase, known), optional
        Called as each phase starts (``"verdict"``, ``"grade"``, ``"map"``, ``"suggestions"``)
        with what is known so far: ``status`` once the verdict is in, ``proved`` (cells fixed in
        every solution), ``ambiguous`` and ``undecided`` cell counts once they are known.
    deadline : float, optional
        ``time.perf_counter()`` value by which the whole must end: the verdict and the map get
        at most what is left of it (the map then stays partial, ``backbone_complete`` false).
    on_verdict : callable(dict), optional
        Called once the verdict is known, before the grade and the map, with
        :func:`verdict_json` of it (the studio streams it to the page at once).

    Raises
    ------
    Cancelled
        ``should_stop()`` became true.
    """
    start = time.perf_counter()
    cells = puzzle.height * puzzle.width

    def check() -> None:
        # a token set by its timer (TIME_LIMIT) means "finish with what you have": the engines
        # it reaches give up, the map gets no more time and suggestions are skipped; any other
        # reason (a cancel) drops the work
        if should_stop() or (stop is not None and stop.is_set() and not timed_out()):
            raise Cancelled

    def timed_out() -> bool:
        return stop is not None and int(stop.flag[0]) == TIME_LIMIT

    def tell(phase: str, **known: Any) -> None:
        if progress is not None:
            progress(phase, known)

    def budget() -> float:
        if timed_out():
            return 0.0
        if deadline is None:
            return timeout
        return max(min(timeout, deadline - time.perf_counter()), 0.0)

    givens = start_grid(puzzle)
    tell("verdict", undecided=cells)
    result = verdict(puzzle, budget(), givens, stop=stop)
    check()
    if on_verdict is not None:
        on_verdict(verdict_json(puzzle, result, time.perf_counter() - start))
    tell("grade", status=result.status.value,
         **({"proved": cells, "ambiguous": 0, "undecided": 0}
            if result.status == Status.UNIQUE else {}))
    grade, techniques, guesses, root = quick_grade(puzzle, result, givens, stop=stop)
    if root is None:
        root = givens
    if result.status in (Status.NONE, Status.MULTIPLE):  # no grade, as nonosat analyse
        grade = {"level": None, "name": "not graded", "score": None, "exact": True,
                 "reason": "no solution" if result.status == Status.NONE else
                 "several solutions"}
    check()
    ambiguous = np.zeros(puzzle.shape, dtype=bool)
    complete = result.status in (Status.UNIQUE, Status.NONE)
    witnesses = list(result.solutions)
    if result.status == Status.MULTIPLE:
        proved = 0 if root is None else given_count(puzzle, root)
        tell("map", status=result.status.value, proved=proved, ambiguous=0,
             undecided=cells - proved)
        ambiguous, complete, witnesses = backbone(
            puzzle, result.solutions, root, deadline=time.perf_counter() + budget(), stop=stop)
        n = int(ambiguous.sum())
        tell("map", status=result.status.value, ambiguous=n,
             proved=cells - n if complete else proved, undecided=0 if complete else
             cells - n - proved)
    check()
    text = classify(result.status, grade, result, int(ambiguous.sum()), complete)
    if givens is not None:
        n = given_count(puzzle, givens)
        text = f"with {n} given cell{'s' if n != 1 else ''}: {text}"
    out = QuickAnalysis(puzzle, result, ambiguous, complete, grade, techniques, guesses, text)
    if suggest and result.status == Status.MULTIPLE and not timed_out():
        tell("suggestions", status=result.status.value)
        out.suggestions = suggestions(puzzle, witnesses, root, ambiguous,
                                      timeout=suggest_timeout, should_stop=should_stop,
                                      stop=stop)
    check()
    out.time_s = time.perf_counter() - start
    return out


#: The classification a verdict alone gives (before the grade and the map are known).
VERDICT_WORDS = {"unique": "unique solution", "multiple": "several solutions",
                 "none": "no solution", "unknown": "undecided (time limit)",
                 "solved": "solved"}


def verdict_json(puzzle: Puzzle, result: SolveResult, seconds: float) -> dict[str, Any]:
    """The verdict alone, in the shape of :meth:`QuickAnalysis.to_json` (``status``, ``engine``,
    ``time_s`` = ``seconds`` since the analysis began, ``solve_time_s``, ``width``, ``height``,
    up to two ``solutions``, ``classification``), with ``"stage": "verdict"``: the first line of
    a streamed ``POST /api/analyse``."""
    status = result.status.value
    return {"stage": "verdict", "status": status, "engine": result.engine,
            "time_s": round(seconds, 6), "solve_time_s": round(result.time_s, 6),
            "width": puzzle.width, "height": puzzle.height,
            "solutions": [_rows(puzzle, s) for s in result.solutions[:2]],
            "classification": VERDICT_WORDS.get(status, status)}


def suggestion_budget(puzzle: Puzzle) -> float:
    """Seconds the make-unique suggestions of ``puzzle`` may take at most: :data:`SUGGEST_BASE_S`
    plus :data:`SUGGEST_PER_CELL_S` per cell, at most :data:`SUGGEST_MAX_S` (15x15: 6.5 s,
    30x30: 20 s, 40x40 and larger: 30 s).

    This is a safety cap, not the measure of the search: the givens search is bounded by its
    work (a greedy round per given, :func:`~nonosat.analysis.ambiguity.uniqueness_givens`'s
    ``max_candidates`` scored per round) and the edits by their number
    (:data:`~nonosat.analysis.ambiguity.MAX_EDITS`) and the cells to try, so that the same
    drawing gives the same suggestions on every load as long as the cap is not reached."""
    return min(SUGGEST_MAX_S, SUGGEST_BASE_S + SUGGEST_PER_CELL_S * puzzle.height * puzzle.width)


def suggestions(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None,
    ambiguous: np.ndarray,
    *,
    timeout: float | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    stop: StopToken | None = None,
) -> list[dict[str, Any]]:
    """Make-unique suggestions: one ``give`` (extra givens) and up to :data:`MAX_EDITS` ``edit``
    entries (when the puzzle has a ``goal``).

    Deterministic: the givens are chosen towards the picture (``goal``) when it is a solution,
    else towards the first of ``solutions``, with only the first two solutions as a start (not
    the time-dependent witnesses of the backbone); every further solution comes from the native
    engine, which is deterministic.  ``timeout`` (default :func:`suggestion_budget`) is a cap:
    reached, the suggestions found so far are returned (the givens only when they make the
    puzzle unique).  ``stop`` is handed to the searches' solves and kernels (and read between
    their steps); ``should_stop`` is polled between the two searches (:class:`Cancelled`).
    """
    if timeout is None:
        timeout = suggestion_budget(puzzle)
    solutions = list(solutions[:2])
    if (not puzzle.is_colour and puzzle.goal is not None
            and np.asarray(puzzle.goal).shape == puzzle.shape
            and puzzle.is_solution(np.asarray(puzzle.goal, dtype=bool))):
        solutions = [np.asarray(puzzle.goal, dtype=bool)]  # (colour: targets the goal itself)
    from nonosat.analysis.ambiguity import uniqueness_givens

    deadline = time.perf_counter() + timeout
    out: list[dict[str, Any]] = []
    share = timeout / 2 if puzzle.goal is not None else timeout
    if puzzle.is_colour:
        return _colour_suggestions(puzzle, solutions, known, ambiguous, deadline=deadline,
                                   share=share, should_stop=should_stop, stop=stop)
    givens = uniqueness_givens(puzzle, solutions, known, engine="native", timeout=share,
                               stop=stop)
    if givens.unique and givens.cells:
        cells: list[list[Any]] = [[r, c, "#" if v else "."] for (r, c), v in givens.cells]
        n = len(cells)
        out.append({"kind": "give", "cells": cells,
                    "text": f"give {n} cell{'s' if n != 1 else ''} as a start: "
                            + "; ".join(f"row {r + 1} column {c + 1} "
                                        f"{'filled' if v else 'empty'}"
                                        for (r, c), v in givens.cells[:8])
                            + (f" and {n - 8} more" if n > 8 else "")
                            + "; the solution is then unique"})
    if should_stop():
        raise Cancelled
    if puzzle.goal is not None and np.asarray(puzzle.goal).shape == puzzle.shape:
        out += edit_suggestions(puzzle, ambiguous, deadline=deadline, should_stop=should_stop,
                                stop=stop)
    return out


def _colour_suggestions(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None,
    ambiguous: np.ndarray,
    *,
    deadline: float,
    share: float,
    should_stop: Callable[[], bool],
    stop: StopToken | None = None,
) -> list[dict[str, Any]]:
    """:func:`suggestions` of a colour puzzle: givens of the goal picture (when it is a solution,
    else of the first solution) by :func:`nonosat.analysis.extra_givens.uniqueness_givens`, then
    one-cell edits; cells as ``[r, c, ch]`` over :data:`nonosat.studio.cells.INDEX_CHARS`."""
    from nonosat.analysis.extra_givens import uniqueness_givens
    from nonosat.studio.cells import INDEX_CHARS

    assert puzzle.palette is not None
    names = [c.name for c in puzzle.palette.colours]
    goal = puzzle.goal
    target = (np.asarray(goal, dtype=np.int8) if goal is not None and goal.shape == puzzle.shape
              and puzzle.is_solution(goal) else solutions[0])
    out: list[dict[str, Any]] = []
    found = uniqueness_givens(puzzle, [target], known, timeout=share, stop=stop)
    cells = [(r, c, int(k)) for (r, c), k in found.cells] if found.unique else None
    if cells:
        n = len(cells)
        out.append({"kind": "give", "cells": [[r, c, INDEX_CHARS[k]] for r, c, k in cells],
                    "text": f"give {n} cell{'s' if n != 1 else ''} as a start: "
                            + "; ".join(f"row {r + 1} column {c + 1} {names[k]}"
                                        for r, c, k in cells[:8])
                            + (f" and {n - 8} more" if n > 8 else "")
                            + "; the solution is then unique"})
    if should_stop():
        raise Cancelled
    if goal is not None and np.asarray(goal).shape == puzzle.shape:
        for e in edit_suggestions(puzzle, ambiguous, deadline=deadline, should_stop=should_stop,
                                  stop=stop):
            e["value"] = INDEX_CHARS[int(e["value"])]
            out.append(e)
    return out
