"""The CP-SAT engine: the automaton model of :mod:`nonosat.encodings.cpsat_model` solved by OR-Tools.

Solutions are enumerated by a solution callback that stops the search at the limit.  CP-SAT can
lose solutions when it enumerates with several workers while still reporting the search as
complete, so enumeration always runs with ``num_workers=1``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from nonosat import interrupts
from nonosat.encodings.cpsat_model import build_model
from nonosat.engines import Engine, SolveResult, Status
from nonosat.errors import EngineError
from nonosat.puzzle import Puzzle
from nonosat.stop import StopToken


class _Collector(cp_model.CpSolverSolutionCallback):
    """Keeps each solution as a bool array and stops the search after ``limit`` of them."""

    def __init__(self, cells: np.ndarray, limit: int):
        super().__init__()
        self._cells = cells
        self._limit = limit
        self.solutions: list[np.ndarray] = []
        self.colour = False  # set for a colour puzzle: solutions are colour indices (int8)

    def on_solution_callback(self) -> None:
        # called from CP-SAT's C++ search: an exception must not unwind through it, so an
        # interrupt arriving now only sets the flag (checked once the search has returned)
        with interrupts.deferred():
            self._collect()

    def _collect(self) -> None:
        if self.colour:
            values = [self.value(var) for var in self._cells.flat]
            self.solutions.append(np.array(values, dtype=np.int8).reshape(self._cells.shape))
            if len(self.solutions) >= self._limit:
                self.stop_search()
            return
        values = [self.boolean_value(var) for var in self._cells.flat]
        self.solutions.append(np.array(values, dtype=bool).reshape(self._cells.shape))
        if len(self.solutions) >= self._limit:
            self.stop_search()


def solver_parameters(solver: cp_model.CpSolver, timeout: float | None) -> None:
    """Set the parameters every enumeration uses on ``solver``: all solutions, one worker,
    ``max_time_in_seconds = timeout`` (seconds) when given, and ``catch_sigint_signal`` off
    (CP-SAT's own SIGINT handler would replace nonosat's and leave Ctrl-C to kill the process;
    an interrupt stops the search through :func:`nonosat.interrupts.stopper` instead)."""
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    if timeout is not None:
        solver.parameters.max_time_in_seconds = float(timeout)


#: Seconds between two looks at a stop token while CP-SAT searches (:func:`_stopping`).
STOP_POLL_S = 0.01


@contextmanager
def _stopping(solver: cp_model.CpSolver, stop: StopToken | None) -> Iterator[None]:
    """While the block runs, a thread that calls ``solver.stop_search()`` once ``stop`` is set,
    every :data:`STOP_POLL_S` seconds until the block ends: CP-SAT ignores a ``stop_search``
    that comes before its search has started, so one call from :meth:`StopToken.calling` could
    be lost."""
    if stop is None:
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(STOP_POLL_S):
            if stop.is_set():
                solver.stop_search()

    thread = threading.Thread(target=watch, name="nonosat-cpsat-stop", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


class CpSatEngine(Engine):
    """OR-Tools CP-SAT on the automaton model (one Boolean per cell, one automaton per line).

    Statistics: ``branches``, ``conflicts`` and ``wall_time_s`` as CP-SAT reports them, and the
    CP-SAT status name.
    """

    name = "cpsat"

    def _run(self, puzzle: Puzzle, partial: np.ndarray | None, limit: int,
             timeout: float | None, stop: StopToken | None) -> SolveResult:
        """Find up to ``limit`` solutions; see :meth:`nonosat.engines.Engine.solve`.  A set
        ``stop`` token (:mod:`nonosat.stop`) calls CP-SAT's ``stop_search``; the result is then
        ``Status.UNKNOWN`` unless ``limit`` solutions were found.

        Raises
        ------
        EngineError
            CP-SAT rejects the model (``MODEL_INVALID``).
        Interrupted
            An interrupt stopped the search (:mod:`nonosat.interrupts`).
        """
        start = time.perf_counter()
        built = build_model(puzzle, partial)
        solver = cp_model.CpSolver()
        solver_parameters(solver, timeout)
        collector = _Collector(built.cells, limit)
        collector.colour = puzzle.is_colour
        with interrupts.stopper(solver.stop_search), _stopping(solver, stop):
            status = solver.solve(built.model, collector)
        interrupts.check()  # a stopped search is no verdict
        if status == cp_model.MODEL_INVALID:
            raise EngineError(f"CP-SAT rejected the model: {built.model.validate()}")
        found = len(collector.solutions)
        # OPTIMAL/INFEASIBLE: the enumeration ran to its end; otherwise only reaching the limit
        # makes it complete (FEASIBLE or UNKNOWN without it means the time limit struck).
        complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) or found >= limit
        stopped = stop is not None and stop.is_set() and found < limit
        if stopped:  # stop_search may end the enumeration with any status: no verdict
            complete = False
        stats: dict[str, Any] = {
            "cpsat_status": solver.status_name(status),
            "branches": int(solver.num_branches),
            "conflicts": int(solver.num_conflicts),
            "wall_time_s": float(solver.wall_time),
        }
        if stopped and stop is not None:
            stats["stopped"] = stop.reason
        return SolveResult(
            status=Status.from_search(found, limit, complete),
            solutions=collector.solutions,
            engine=self.name,
            exhausted=complete and found < limit,
            time_s=time.perf_counter() - start,
            stats=stats,
        )
