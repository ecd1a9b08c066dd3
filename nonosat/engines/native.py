"""The native engine: line solver, propagation, probing and fork search (:mod:`nonosat.native.search`)
behind the engine interface."""

from __future__ import annotations

import time

import numpy as np

from nonosat.engines import SolveResult, Status
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Puzzle


class NativeEngine:
    """Pure native solver.

    Parameters
    ----------
    probing : bool
        Probe at every search node (default ``True``); ``False`` gives propagation + fork only.
    """

    name = "native"

    def __init__(self, probing: bool = True):
        self.probing = probing

    def solve(
        self,
        puzzle: Puzzle,
        *,
        partial: np.ndarray | None = None,
        limit: int = 2,
        timeout: float | None = None,
    ) -> SolveResult:
        """See :meth:`nonosat.engines.Engine.solve`.  ``result.trace`` is the root deduction
        trace (:class:`nonosat.native.search.Trace`)."""
        start = time.perf_counter()
        if puzzle.is_colour:
            return self._solve_colour(puzzle, partial, limit, timeout, start)
        search = NativeSearch(puzzle, partial, limit=limit, probing=self.probing)
        outcome = search.run(timeout)
        status = Status.from_search(len(outcome.solutions), limit, outcome.finished)
        return SolveResult(
            status=status,
            solutions=outcome.solutions,
            engine=self.name,
            time_s=time.perf_counter() - start,
            stats=dict(outcome.stats),
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
    ) -> SolveResult:
        """A colour puzzle: :func:`nonosat.native.colour.colour_search` (``partial`` holds colour
        bit masks); ``result.trace`` is the root grid state (int32 colour masks)."""
        from nonosat.native.colour import colour_search

        outcome = colour_search(
            puzzle, partial, limit=limit, probing=self.probing, timeout=timeout
        )
        return SolveResult(
            status=Status.from_search(len(outcome.solutions), limit, outcome.finished),
            solutions=outcome.solutions,
            engine=self.name,
            time_s=time.perf_counter() - start,
            stats=dict(outcome.stats),
            trace=outcome.root,
            exhausted=outcome.finished and len(outcome.solutions) < limit,
        )
