"""The native engine: line solver, propagation, probing and fork search (:mod:`nonosat.native.search`)
behind the engine interface."""

from __future__ import annotations

import time

import numpy as np

from nonosat import interrupts
from nonosat.engines import Engine, SolveResult, Status
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Puzzle
from nonosat.stop import StopToken, for_solve


class NativeEngine(Engine):
    """Pure native solver.

    Parameters
    ----------
    probing : bool
        Probe at every search node (default ``True``); ``False`` gives propagation + fork only.
    """

    name = "native"

    def __init__(self, probing: bool = True):
        self.probing = probing

    def _run(self, puzzle: Puzzle, partial: np.ndarray | None, limit: int,
             timeout: float | None, stop: StopToken | None) -> SolveResult:
        """See :meth:`nonosat.engines.Engine.solve`.  ``result.trace`` is the root deduction
        trace (:class:`nonosat.native.trace.Trace`).

        The compiled search reads a stop token (:func:`nonosat.stop.for_solve`) set by ``stop``,
        by ``timeout`` and by an interrupt, so each stops it within one probe; a stopped search
        gives ``Status.UNKNOWN`` (``stats["stopped"]``: the reason), an interrupted one raises
        :class:`nonosat.interrupts.Interrupted`."""
        start = time.perf_counter()
        with for_solve(stop, timeout) as token:
            if puzzle.is_colour:
                return self._solve_colour(puzzle, partial, limit, timeout, start, token)
            search = NativeSearch(puzzle, partial, limit=limit, probing=self.probing, stop=token)
            outcome = search.run(timeout)
            interrupts.check()  # a search the interrupt stopped is no verdict
        status = Status.from_search(len(outcome.solutions), limit, outcome.finished)
        stats: dict[str, object] = dict(outcome.stats)
        if not outcome.finished:  # stopped by the token, or by the clock between slices
            stats["stopped"] = token.reason if token.is_set() else "time limit"
        return SolveResult(
            status=status,
            solutions=outcome.solutions,
            engine=self.name,
            time_s=time.perf_counter() - start,
            stats=stats,
            trace=outcome.trace,
            exhausted=outcome.finished and len(outcome.solutions) < limit,
        )

    def _solve_colour(
        self,
        puzzle: Puzzle,
        partial: np.ndarray | None,
        limit: int,
        timeout: float | None,
        start: float,
        token: StopToken,
    ) -> SolveResult:
        """A colour puzzle: :func:`nonosat.native.colour.colour_search` (``partial`` holds colour
        bit masks); ``result.trace`` is the root grid state (int32 colour masks)."""
        from nonosat.native.colour import colour_search

        outcome = colour_search(
            puzzle, partial, limit=limit, probing=self.probing, timeout=timeout, stop=token
        )
        interrupts.check()
        return SolveResult(
            status=Status.from_search(len(outcome.solutions), limit, outcome.finished),
            solutions=outcome.solutions,
            engine=self.name,
            time_s=time.perf_counter() - start,
            stats=dict(outcome.stats),
            trace=outcome.root,
            exhausted=outcome.finished and len(outcome.solutions) < limit,
        )
