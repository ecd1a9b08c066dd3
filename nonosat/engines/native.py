"""The native engine: line solver, propagation, probing and fork search (:mod:`nonosat.native.search`)
behind the engine interface."""

from __future__ import annotations

import time

import numpy as np

from nonosat.engines import SolveResult, Status
from nonosat.puzzle import Puzzle
from nonosat.native.search import NativeSearch


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
        )
