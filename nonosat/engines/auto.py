"""The ``auto`` engine: a portfolio of the native solver and SAT.

The native solver runs first: its root node (propagation and failed-literal probing), then its
search (probing at every node) until a work budget of :data:`NATIVE_WORK` probes x lines is spent
(as nonosolve does), or ``budget_s`` seconds. If it has not finished by then, the hand-off gives the SAT engine (CaDiCaL by default) the root grid the native solver proved (every
cell propagation and probing fixed, as unit clauses through ``partial``) and the binary
implications probing finds there (``x -> y`` for every cell ``y`` that assuming ``x`` fixes, as
binary clauses), and SAT decides from there: solutions are the same set, since root deductions and
implications follow from the clues. ``--engine native`` stays pure; this is the default engine of
``nonosat solve``.
"""

from __future__ import annotations

import time

import numpy as np

from nonosat import interrupts
from nonosat.engines import Engine, SolveResult, Status, get_engine, load_engine
from nonosat.native.search import NativeSearch
from nonosat.native.swap import swap_neighbour
from nonosat.puzzle import Cell, Puzzle
from nonosat.stop import StopToken, for_solve


class AutoEngine(Engine):
    """Native first, SAT after ``budget_s`` seconds of native search.

    Parameters
    ----------
    budget_s : float
        Seconds of native search before the hand-off, on top of the work budget (default 0: the
        work budget alone decides).
    native_work : int
        Work budget of the native search before the hand-off, in probes times lines (``h + w``)
        of the puzzle (default :data:`NATIVE_WORK`; 0 = the root node and one decision, the
        hand-off of earlier versions).  Most 25x25 tournament puzzles need a few dozen search
        nodes: deciding them natively saves the CNF build and CaDiCaL's start (about 30 ms a
        puzzle); the hard ones pay the budget (a few tens of milliseconds) before SAT.
    sat_solver : str
        PySAT solver name for the hand-off (default CaDiCaL 1.9.5).
    implications : bool
        Also hand SAT the binary implications that probing finds at the root grid (default True).
    swap : bool
        After each solution SAT finds while more are wanted, look for another one a 2x2 swap
        away (:func:`nonosat.native.swap.swap_neighbour`) before asking SAT again (default True).
    phases : bool
        SAT's initial phases from belief propagation, then solution-guided (default True; see
        :class:`nonosat.engines.sat.SatEngine`).
    """

    name = "auto"

    def __init__(
        self, budget_s: float = 0.0, sat_solver: str = "Cadical195", implications: bool = True,
        native_work: int | None = None, swap: bool = True, phases: bool = True,
    ):
        self.budget_s = budget_s
        self.phases = phases
        self.swap = swap
        self.native_work = NATIVE_WORK if native_work is None else native_work
        self.sat_solver = sat_solver
        self.implications = implications

    def _run(self, puzzle: Puzzle, partial: np.ndarray | None, limit: int,
             timeout: float | None, stop: StopToken | None) -> SolveResult:
        """See :meth:`nonosat.engines.Engine.solve`; ``stats["handoff"]`` says whether SAT took
        over, and ``stats["native"]``/``stats["sat"]`` hold each engine's counters.

        One stop token (:func:`nonosat.stop.for_solve`: ``stop``, ``timeout`` and an interrupt)
        is read by the compiled native search and probing (within one probe), by the probing for
        implications, and by SAT between its budgeted calls; a stopped solve gives
        ``Status.UNKNOWN`` (``stats["stopped"]``: the reason), unless it had found ``limit``
        solutions already; an interrupted one raises :class:`nonosat.interrupts.Interrupted`."""
        start = time.perf_counter()
        with for_solve(stop, timeout) as token:
            if puzzle.is_colour:
                return self._solve_colour(puzzle, partial, limit, timeout, start, token)
            return self._solve(puzzle, partial, limit, timeout, start, token)

    def _solve(
        self, puzzle: Puzzle, partial: np.ndarray | None, limit: int, timeout: float | None,
        start: float, token: StopToken,
    ) -> SolveResult:
        search = NativeSearch(puzzle, partial, limit=limit, stop=token)
        budget = self.budget_s if timeout is None else min(self.budget_s, timeout)
        max_probes = self.native_work // max(puzzle.height + puzzle.width, 1)
        if not search.run_probes(max_probes, timeout) and budget > 0 and not search.stopped:
            if timeout is not None:  # what the probes left of the time limit
                budget = min(budget, timeout - (time.perf_counter() - start))
            if budget > 0:
                search.run(budget)
        outcome = search.outcome()
        stats: dict = {"handoff": False, "native": outcome.stats}
        if not outcome.finished and outcome.solutions and self.swap:
            # the native search found a solution but ran out of budget: a 2x2 swap away?
            outcome.solutions.extend(_swap_solutions(puzzle, outcome.solutions, partial, limit))
        if outcome.finished or len(outcome.solutions) >= limit:
            status = Status.from_search(len(outcome.solutions), limit, outcome.finished)
            return SolveResult(status, outcome.solutions, "native", time.perf_counter() - start,
                               stats, outcome.trace,
                               exhausted=outcome.finished and len(outcome.solutions) < limit)
        remaining = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.0)
        if remaining == 0.0 or token.is_set():
            # out of time or stopped: no probing for implications, no CNF to build
            return _stopped(outcome.solutions, start, stats, outcome.trace, token)
        root = search.root_grid()
        if partial is not None:
            given = np.isin(partial, (Cell.EMPTY, Cell.FILLED))
            root = np.where(given, partial, root).astype(np.int8)
        implications = search.root_implication_literals() if self.implications else ()
        trace = outcome.trace
        solutions = outcome.solutions
        del search, outcome  # free the native state (line cache 655 KB, trail, scratch) before SAT grows
        if token.is_set():  # stopped while probing for implications (they may be incomplete)
            return _stopped(solutions, start, stats, trace, token)
        # the first hand-off of a process loads PySAT and the SAT engine's compiled kernels: that
        # is load time (stats["load_s"], added to the result's load_s), not solving time
        sat_load = load_engine("sat", solver=self.sat_solver)
        start += sat_load
        remaining = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.0)
        if remaining is not None and sat_load > 0 and not token.is_set():
            token.arm(remaining)  # the solve's own token: the load is not solving time
        neighbour = swap_neighbour if self.swap else None
        sat = get_engine("sat", solver=self.sat_solver, implications=implications,
                         neighbour=neighbour, phases=self.phases).solve(
            puzzle, partial=root, limit=limit, timeout=remaining, stop=token
        )
        stats.update(handoff=True, sat=sat.stats, root_known=int(np.isin(root, (1, 2)).sum()),
                     load_s=sat_load)
        if sat.status == Status.UNKNOWN:
            stats["stopped"] = token.reason if token.is_set() else "time limit"
        return SolveResult(sat.status, sat.solutions, "native+sat", time.perf_counter() - start,
                           stats, trace, exhausted=sat.exhausted)

    def _solve_colour(
        self, puzzle: Puzzle, partial: np.ndarray | None, limit: int, timeout: float | None,
        start: float, token: StopToken,
    ) -> SolveResult:
        """A colour puzzle: the native colour search for :data:`COLOUR_NATIVE_BUDGET_S` seconds
        (colour picture puzzles are mostly decided at the root), then SAT given the root grid."""
        from nonosat.native.colour import colour_search

        budget = COLOUR_NATIVE_BUDGET_S if timeout is None else min(COLOUR_NATIVE_BUDGET_S, timeout)
        outcome = colour_search(puzzle, partial, limit=limit, timeout=budget, stop=token)
        interrupts.check()
        stats: dict = {"handoff": False, "native": outcome.stats}
        if outcome.finished or len(outcome.solutions) >= limit or outcome.root is None:
            status = Status.from_search(len(outcome.solutions), limit, outcome.finished)
            return SolveResult(status, outcome.solutions, "native", time.perf_counter() - start,
                               stats, outcome.root,
                               exhausted=outcome.finished and len(outcome.solutions) < limit)
        if token.is_set():
            return _stopped(outcome.solutions, start, stats, outcome.root, token)
        remaining = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.0)
        sat = get_engine("sat", solver=self.sat_solver).solve(
            puzzle, partial=outcome.root, limit=limit, timeout=remaining, stop=token
        )
        stats.update(handoff=True, sat=sat.stats)
        if sat.status == Status.UNKNOWN:
            stats["stopped"] = token.reason if token.is_set() else "time limit"
        return SolveResult(sat.status, sat.solutions, "native+sat", time.perf_counter() - start,
                           stats, outcome.root, exhausted=sat.exhausted)


def _stopped(solutions: list[np.ndarray], start: float, stats: dict, trace: object,
             token: StopToken) -> SolveResult:
    """The native stage's result when the token was set (or no time is left): no verdict
    (an interrupt raises :class:`nonosat.interrupts.Interrupted` instead)."""
    interrupts.check()
    stats["stopped"] = token.reason if token.is_set() else "time limit"
    return SolveResult(Status.UNKNOWN, solutions, "native", time.perf_counter() - start, stats,
                       trace)


def _swap_solutions(
    puzzle: Puzzle, solutions: list[np.ndarray], partial: np.ndarray | None, limit: int
) -> list[np.ndarray]:
    """New solutions a 2x2 swap away from the last one, each checked against the clues and the
    given cells of ``partial``, until ``limit`` solutions in all or none is found."""
    found: list[np.ndarray] = []
    last = solutions[-1]
    given = None if partial is None else np.isin(partial, (Cell.EMPTY, Cell.FILLED))
    while len(solutions) + len(found) < limit:
        other = swap_neighbour(puzzle, last)
        if other is None or not puzzle.is_solution(other):
            break
        if given is not None and np.any(other[given] != (np.asarray(partial)[given] == Cell.FILLED)):
            break
        if any(np.array_equal(other, s) for s in solutions + found):
            break
        found.append(other)
        last = other
    return found


#: Work budget of the native search in ``auto`` before the hand-off to SAT: probes times lines
#: (``h + w``), so about 24,000 probes on a 25x25 puzzle (about 20 ms).  nonosolve budgets its DFS
#: the same way (40e6 there, with a C++ probe several times cheaper).  Measured with the compiled
#: CNF build, 100 taai2011 and 100 tcga2016 puzzles, uniqueness, interleaved: 0.8M 6.13 / 6.36 s
#: against 6.79 / 6.74 s at 1.6M and 7.91 / 8.08 s at 3.2M; 0.4M the same total but median 43 / 36
#: against 28 / 24 ms (benchmarks/RESULTS.md, "Change-tracked probing").  With the probe on line
#: masks (2.3x cheaper), 1.2M: taai2011 / tcga2016 (100 each, two rounds interleaved) 2.65 / 2.99 s
#: against 3.01 / 3.11 s at 0.8M and 2.90 / 2.93 s at 1.6M in uniqueness, 2.68 / 2.93 s against
#: 2.90 / 3.13 s and 2.84 / 2.90 s for a first solution (RESULTS.md, "Line state as masks").
NATIVE_WORK = 1_200_000

#: Seconds of native colour search before the auto engine hands a colour puzzle to SAT.
COLOUR_NATIVE_BUDGET_S = 1.0
