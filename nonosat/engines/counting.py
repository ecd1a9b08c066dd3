"""The exact number of solutions of a puzzle: its CNF's models projected on the cell variables.

``nonosat solve --count`` and ``nonosat analyse`` use :func:`count_solutions`; it encodes the
puzzle (black-and-white: the default ``order`` encoding, :func:`nonosat.encodings.cnf.encode`;
colour: :func:`nonosat.encodings.cnf_colour.encode_colour`) and counts the models projected on
the cell variables with Ganak (:mod:`nonosat.encodings.count`), after the cells the native
solver's root node (line propagation and probing) fixes are added as unit clauses (they hold in
every solution, and they shrink the counter's work), so that the auxiliary variables
of the encoding never change the count: black-and-white cells are variables ``1 .. h*w``, colour
cells the ``h*w*C`` "cell has colour k" variables (exactly one per cell, so their projected
models are the pictures).  The count is exact but not certified (no proof accompanies it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nonosat.engines import SolveResult, Status

if TYPE_CHECKING:
    import numpy as np

    from nonosat.puzzle import Puzzle

#: Seconds the count gets by default when the caller names no time limit.
DEFAULT_COUNT_TIMEOUT = 10.0


@dataclass(frozen=True)
class SolutionCount:
    """How many solutions a puzzle has.

    Attributes
    ----------
    count : int or None
        Exact number of solutions when ``exact``; else the lower bound known (the solutions an
        engine found), or ``None`` when nothing is known.
    exact : bool
    method : str
        ``"engine"`` (the verdict itself: unique = 1, none = 0, or an enumeration that finished
        below its cap), ``"ganak (pyganak)"`` (the model counter), or ``"lower bound"``.
    time_s : float
        Seconds the model counter took (0 when it did not run).
    reason : str
        Why the count is not exact (``"time limit"``, ...), else ``""``.
    """

    count: int | None
    exact: bool
    method: str
    time_s: float = 0.0
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"solution_count", "solution_count_exact", "count_method", "count_time_s"}``."""
        return {"solution_count": self.count, "solution_count_exact": self.exact,
                "count_method": self.method, "count_time_s": round(self.time_s, 6)}

    def describe(self) -> str:
        """``"48 solutions"``, ``"1 solution"``, or ``"at least 2 solutions"``."""
        if self.count is None:
            return "an unknown number of solutions"
        noun = "solution" if self.count == 1 else "solutions"
        return f"{self.count} {noun}" if self.exact else f"at least {self.count} {noun}"


def count_solutions(
    puzzle: Puzzle,
    *,
    partial: np.ndarray | None = None,
    timeout: float | None = DEFAULT_COUNT_TIMEOUT,
    encoding: str = "order",
    simplify: bool = True,
) -> SolutionCount:
    """Count the solutions of ``puzzle`` (agreeing with ``partial``) with the model counter.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white or colour.
    partial : ndarray, optional
        Grid state (black-and-white: :class:`~nonosat.puzzle.Cell` values; colour: bit masks),
        shape ``(height, width)``.
    timeout : float, optional
        Seconds for the counter (including its process start-up, about 0.15 s).
    encoding : str
        Black-and-white line encoding (:func:`nonosat.encodings.cnf.encode`); every encoding
        gives the same projected count (the ``dfa`` encoding's unprojected count is far larger:
        its automaton variables are not functions of the cells).
    simplify : bool
        Add the cells the native root node fixes as unit clauses first (:func:`root_fixpoint`;
        sound: they hold in every solution).  ``False`` counts the encoding alone.

    Returns
    -------
    SolutionCount
        ``exact`` with the count, or ``count=None`` with the reason when the counter did not
        finish.

    Raises
    ------
    EngineError
        The counter is not installed or failed.
    PuzzleError
        ``partial`` has the wrong shape.
    """
    from nonosat.encodings.count import COUNTER_NAME, count_models

    h, w = puzzle.shape
    start = time.perf_counter()
    if simplify:
        fixed = root_fixpoint(puzzle, partial)
        if fixed is None:  # logic refutes the puzzle: no solution
            return SolutionCount(0, True, "engine", time.perf_counter() - start)
        partial = fixed
    if puzzle.is_colour:
        from nonosat.encodings.cnf_colour import encode_colour

        enc = encode_colour(puzzle, partial)
        cells = h * w * puzzle.n_colours
        nvars, clauses = max(enc.nvars, cells), enc.clauses
    else:
        from nonosat.encodings.cnf import encode

        benc = encode(puzzle, encoding, partial)
        cells = h * w
        nvars, clauses = max(benc.nvars, cells), benc.clauses
    left = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.0)
    result = count_models(clauses, nvars, range(1, cells + 1), timeout=left)
    return SolutionCount(result.count, result.exact, COUNTER_NAME,
                         time.perf_counter() - start, result.reason)


def root_fixpoint(puzzle: Puzzle, partial: np.ndarray | None = None) -> np.ndarray | None:
    """The native solver's root node from ``partial`` (line propagation and failed-literal
    probing to a fixpoint, compiled): every cell it fixes has that value in every solution, so
    its units leave the count unchanged and make the counter's formula far smaller.  ``None``
    on a contradiction (no solution)."""
    import numpy as np

    if puzzle.is_colour:
        from nonosat.native.colour import ColourProblem

        full = (1 << puzzle.n_colours) - 1
        start = (np.full(puzzle.shape, full, dtype=np.int32) if partial is None
                 else np.asarray(partial, dtype=np.int32))
        flat = start.reshape(-1).copy()
        return flat.reshape(puzzle.shape) if ColourProblem.of(puzzle).probe(flat) else None
    from nonosat.native.probe import probe_grid

    got = probe_grid(puzzle, partial)
    return None if got is None else got[0]


def count_after_solve(
    puzzle: Puzzle,
    result: SolveResult,
    *,
    limit: int,
    partial: np.ndarray | None = None,
    timeout: float | None = DEFAULT_COUNT_TIMEOUT,
) -> SolutionCount:
    """The number of solutions, given an engine's ``result`` for ``puzzle`` with ``limit``.

    Unique is 1 and none is 0 (the verdict is the count); several solutions found below the
    limit are every solution (the enumeration finished); otherwise the model counter runs
    (:func:`count_solutions`) within ``timeout``, and when it does not finish the count is the
    lower bound the engine found.  ``SOLVED`` (``--limit 1``) and ``UNKNOWN`` verdicts are
    counted by the model counter too.
    """
    found = len(result.solutions)
    if result.status is Status.UNIQUE:
        return SolutionCount(1, True, "engine")
    if result.status is Status.NONE:
        return SolutionCount(0, True, "engine")
    if result.status is Status.MULTIPLE and found < limit and getattr(result, "exhausted", True):
        return SolutionCount(found, True, "engine")
    start = time.perf_counter()
    counted = count_solutions(puzzle, partial=partial, timeout=timeout)
    if counted.exact:
        return counted
    lower = found if found else None
    return SolutionCount(lower, False, "lower bound", time.perf_counter() - start,
                         counted.reason)
