"""The exact number of solutions of a puzzle: the native line-level counter, or the CNF's models
projected on the cell variables.

``nonosat solve --count`` and ``nonosat analyse`` use :func:`count_solutions`.  On a
black-and-white puzzle with lines of at most 62 cells it runs the native counter
(:mod:`nonosat.native.count`: a #SAT search over cells with line propagation, probing and
component caching, compiled; exact up to :data:`COUNT_LIMIT`, above it a lower bound) while
Ganak counts in its child process (a portfolio on two cores): the first exact count stops the
other; colour puzzles and longer lines are Ganak's alone.  ``crosscheck=True`` lets both finish
and raises :class:`CountDisagreement` when their exact counts differ (the tests do).  For Ganak
it encodes the puzzle (black-and-white: the default ``order`` encoding, :func:`nonosat.encodings.cnf.encode`;
colour: :func:`nonosat.encodings.cnf_colour.encode_colour`) and counts the models projected on
the cell variables with Ganak (:mod:`nonosat.encodings.ganak`), after the cells the native
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
from nonosat.errors import EngineError

if TYPE_CHECKING:
    import numpy as np

    from nonosat.puzzle import Puzzle
    from nonosat.stop import StopToken

#: Seconds the count gets by default when the caller names no time limit.
DEFAULT_COUNT_TIMEOUT = 10.0

#: Counts up to this are exact from the native counter; above, it gives the lower bound
#: ``COUNT_LIMIT + 1`` (and Ganak may still count exactly in the time left).
COUNT_LIMIT = 10**6

#: How the native counter is named in reports and JSON (``count_method``).
NATIVE_COUNTER = "native (line counter)"

#: The counters :func:`count_solutions` knows.
COUNTERS = ("auto", "native", "ganak")


class CountDisagreement(EngineError):
    """The native counter and Ganak both finished with different exact counts (a bug in one of
    them: never reported as a count)."""


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
        below its cap), ``"native (line counter)"`` (:mod:`nonosat.native.count`),
        ``"ganak (pyganak)"`` (the model counter), or ``"lower bound"``.
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
    counter: str = "auto",
    crosscheck: bool = False,
) -> SolutionCount:
    """Count the solutions of ``puzzle`` (agreeing with ``partial``): the native counter first
    (black-and-white, lines of at most 62 cells), then Ganak in the time left.

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
    counter : str
        ``"auto"`` (the native counter and Ganak at the same time, each within ``timeout``;
        the first exact count wins), ``"native"`` or ``"ganak"`` (one counter alone).
    crosscheck : bool
        With ``"auto"``: let both counters finish (within ``timeout``) and compare their exact
        counts.

    Returns
    -------
    SolutionCount
        ``exact`` with the count; the lower bound ``COUNT_LIMIT + 1`` when the native counter
        found more than :data:`COUNT_LIMIT` and Ganak did not finish; the lower bound a stopped
        native count proved (its finished parts, :attr:`~nonosat.native.count.NativeCount.lower_bound`)
        when it is at least 1; or ``count=None`` with the reason when nothing is known.

    Raises
    ------
    CountDisagreement
        ``crosscheck`` and the two counters' exact counts differ.
    EngineError
        Ganak is needed but not installed, or failed.
    PuzzleError
        ``partial`` has the wrong shape.
    ValueError
        ``counter`` is not one of :data:`COUNTERS`, or ``"native"`` on a puzzle it does not
        count (colour, or a line over 62 cells).
    nonosat.interrupts.Interrupted
        An interrupt stopped the count.
    """
    if counter not in COUNTERS:
        raise ValueError(f"unknown counter {counter!r} (one of {', '.join(COUNTERS)})")
    start = time.perf_counter()
    if simplify:
        fixed = root_fixpoint(puzzle, partial)
        if fixed is None:  # logic refutes the puzzle: no solution
            return SolutionCount(0, True, "engine", time.perf_counter() - start)
        partial = fixed
    from nonosat.native.count import supported

    if counter == "ganak" or not supported(puzzle):
        if counter == "native":
            raise ValueError("the native counter counts black-and-white puzzles with lines of "
                             "at most 62 cells")
        return _count_ganak(puzzle, partial, timeout, encoding, start)
    if counter == "native":
        return _count_native(puzzle, partial, timeout, start)
    # the portfolio: Ganak in its child process while the native counter runs here (its
    # kernel releases the GIL); the first exact count stops the other, unless crosscheck
    import threading

    from nonosat.stop import StopToken

    ganak_stop = StopToken()
    box: list[SolutionCount | BaseException] = []

    def run_ganak() -> None:
        try:
            box.append(_count_ganak(puzzle, partial, timeout, encoding, start, stop=ganak_stop))
        except BaseException as exc:  # handed to the caller's thread
            box.append(exc)

    thread = threading.Thread(target=run_ganak, name="ganak-count", daemon=True)
    thread.start()
    try:
        native = _count_native(puzzle, partial, timeout, start)
        if native.exact and not crosscheck:
            ganak_stop.set()
        thread.join()
    finally:
        ganak_stop.set()
        thread.join()
    got = box[0]
    if isinstance(got, BaseException):
        if native.exact and not crosscheck:
            return native
        raise got
    ganak = got
    if native.exact and ganak.exact and native.count != ganak.count:
        raise CountDisagreement(
            f"the native counter counts {native.count} solutions but Ganak {ganak.count}")
    if native.exact:
        return native
    if ganak.exact or native.count is None:
        return ganak
    return native  # the native lower bound (more than COUNT_LIMIT)


def _left(timeout: float | None, start: float) -> float | None:
    """What is left of ``timeout`` seconds counted from ``start``."""
    return None if timeout is None else max(timeout - (time.perf_counter() - start), 0.0)


def _count_native(puzzle: Puzzle, partial: np.ndarray | None, timeout: float | None,
                  start: float) -> SolutionCount:
    """The native counter (:func:`nonosat.native.count.count_grid`) within what is left of
    ``timeout`` seconds counted from ``start``."""
    from nonosat.native.count import count_grid
    from nonosat.stop import for_solve

    if timeout is not None and timeout <= 0:
        return SolutionCount(None, False, NATIVE_COUNTER, 0.0, "time limit")
    with for_solve(None, _left(timeout, start)) as token:
        got = count_grid(puzzle, partial, limit=COUNT_LIMIT, stop=token)
        reason = token.reason if token.is_set() else ""
    from nonosat import interrupts

    interrupts.check()  # an interrupted count is no count
    took = time.perf_counter() - start
    if not got.finished:
        # what the stopped count's finished parts prove (0: nothing)
        lower = got.lower_bound or None
        if lower is not None and lower > COUNT_LIMIT:
            return SolutionCount(lower, False, NATIVE_COUNTER, took,
                                 f"more than {COUNT_LIMIT:,} solutions")
        return SolutionCount(lower, False, NATIVE_COUNTER, took,
                             reason or got.reason or "stopped")
    if got.exact:
        return SolutionCount(got.count, True, NATIVE_COUNTER, took)
    return SolutionCount(got.count, False, NATIVE_COUNTER, took,
                         f"more than {COUNT_LIMIT:,} solutions")


def _count_ganak(puzzle: Puzzle, partial: np.ndarray | None, timeout: float | None,
                 encoding: str, start: float, stop: StopToken | None = None) -> SolutionCount:
    """Ganak on the CNF projected on the cells (:mod:`nonosat.encodings.ganak`) within what is
    left of ``timeout`` seconds counted from ``start``; ``stop`` kills it early."""
    from nonosat.encodings.ganak import COUNTER_NAME, count_models

    h, w = puzzle.shape
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
    result = count_models(clauses, nvars, range(1, cells + 1), timeout=_left(timeout, start),
                          stop=stop)
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
    lower = max(found, counted.count or 0) or None
    return SolutionCount(lower, False, "lower bound", time.perf_counter() - start,
                         counted.reason)
