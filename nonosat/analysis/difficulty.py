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
The grade on the 1-5 scale, the classification and the techniques needed are decided together
by :func:`nonosat.analysis.grade.assess` (rules in :mod:`nonosat.analysis.grade`).

Colour puzzles
--------------
The same :func:`analyse` serves every puzzle: a colour puzzle goes through the same sections on
the model's general form (:mod:`nonosat.analysis.logic`: the colour line solver, the
implication graph over literals "cell takes colour c", probing every colour a cell can still
take), and its :class:`~nonosat.analysis.report.Analysis` has the same fields and JSON keys.

Time limit
----------
``timeout`` bounds the whole analysis: its :data:`SECTIONS` share one deadline (a
:class:`Clock`), each getting what the sections before it left (the map at most half, ...), and
:attr:`Analysis.sections` says of each whether it finished, was cut short (its partial result
kept) or not run.  Docs: ``docs/analysis.md``.
"""

from __future__ import annotations

import time

import numpy as np

from nonosat.analysis.backbone import ambiguity_map
from nonosat.analysis.backdoor import smallest_backdoor
from nonosat.analysis.classify import search_effort
from nonosat.analysis.edits import edit_suggestions
from nonosat.analysis.extra_givens import uniqueness_givens
from nonosat.analysis.grade import (
    EXTREME_EFFORT,
    EXTREME_GUESSES,
    GRADE_NAMES,
    NOT_GRADED,
    Assessment,
    Grade,
    assess,
    difficulty_grade,
    needed_technique,
    not_graded,
)
from nonosat.analysis.implied import (
    components,
    forced_literals_fast,
    implication_arrays,
    linked_cells_fast,
    palette_arrays,
    palette_linked,
    scc_summary_fast,
)
from nonosat.analysis.logic import closure, full_grid, open_grid
from nonosat.analysis.report import SECTION_STATES, SECTIONS, Analysis, _goal_fits
from nonosat.analysis.staged import StagedRun, staged_solve
from nonosat.analysis.structure import colour_graph, independent_parts, scc_summary
from nonosat.engines import SolveResult, Status
from nonosat.engines.counting import SolutionCount
from nonosat.native.implications import forced_literals, implication_graph, linked_cells
from nonosat.puzzle import Puzzle
from nonosat.verdict import decide

__all__ = ["BACKDOOR_TIMEOUT", "COUNT_CAP", "EXTREME_EFFORT", "EXTREME_GUESSES", "GRADE_NAMES",
           "NOT_GRADED", "SECTIONS", "SECTION_STATES", "Analysis", "Assessment", "Clock",
           "Grade", "analyse", "assess", "difficulty_grade", "needed_technique", "not_graded",
           "solution_count"]

#: Solutions enumerated at most by ``count_all``.
COUNT_CAP = 10_000
#: Seconds for the backdoor search by default.
BACKDOOR_TIMEOUT = 10.0


def _empty_staged(puzzle: Puzzle) -> StagedRun:
    """A staged run that never ran (the time limit was reached before it): nothing known."""
    n = puzzle.height * puzzle.width
    return StagedRun([], full_grid(puzzle), "stuck",
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
        Black-and-white or colour (module docstring).
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
        Implication graph traversal depth (unlimited when omitted; black-and-white only).
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
    line_fix = closure(puzzle)(full_grid(puzzle))
    if line_fix is not None:
        _structure(out, puzzle, line_fix, depth, keep_graph)
        out.parts_after_line = independent_parts(open_grid(puzzle, line_fix))
    if staged.status == "stuck":
        out.parts = independent_parts(open_grid(puzzle, staged.grid))
        if structure:
            out.linked_after_logic = _linked(puzzle, staged.grid)
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
                and puzzle.is_solution(np.asarray(puzzle.goal,
                                                  dtype=np.int8 if puzzle.is_colour else bool))):
            target = np.asarray(puzzle.goal, dtype=np.int8 if puzzle.is_colour else bool)
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


def _structure(out: Analysis, puzzle: Puzzle, line_fix: np.ndarray, depth: int | None,
               keep_graph: bool) -> None:
    """The implication graph at the line-solving fixpoint ``line_fix``: its figures, what it
    forces, the linked cells, and (``keep_graph``) the graph itself for export."""
    if puzzle.is_colour:
        palette = palette_arrays(puzzle, line_fix)
        comp = components(palette)
        out.linked = palette_linked(palette, comp)
        out.graph_summary = scc_summary_fast(palette, comp)
        if keep_graph:
            out.graph = colour_graph(palette)
    elif keep_graph or depth is not None:
        graph = implication_graph(puzzle, line_fix)
        out.graph_forced = forced_literals(graph, depth)
        out.linked = linked_cells(graph)
        out.graph_summary = scc_summary(graph)
        out.graph = graph if keep_graph else None
    else:  # the same figures without networkx (nonosat.analysis.implied)
        arrays = implication_arrays(puzzle, line_fix)
        comp = components(arrays)
        out.graph_forced = forced_literals_fast(arrays, comp_count=comp)
        out.linked = linked_cells_fast(arrays, comp)
        out.graph_summary = scc_summary_fast(arrays, comp)


def _linked(puzzle: Puzzle, grid: np.ndarray) -> list:
    """The linked cells of the implication graph of ``grid``."""
    if puzzle.is_colour:
        return palette_linked(palette_arrays(puzzle, grid))
    return linked_cells_fast(implication_arrays(puzzle, grid))
