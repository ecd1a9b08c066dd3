"""The exact number of solutions of a puzzle: the native line-level counter, CaDiCaL's
enumeration of the solutions, or the CNF's models projected on the cell variables (Ganak).

``nonosat solve --count`` and ``nonosat analyse`` use :func:`count_solutions`.  It runs a
portfolio on two cores, in two lanes at the same time; the first exact count stops the other
lane, and so does the native counter's "more than :data:`COUNT_LIMIT`" (``crosscheck=True``
lets every counter finish and raises :class:`CountDisagreement` when two exact counts differ;
the tests do):

* here, on a black-and-white puzzle with lines of at most 62 cells, the **native counter**
  (:mod:`nonosat.native.count`: a #SAT search over cells with line propagation, probing and
  component caching, compiled; exact up to :data:`COUNT_LIMIT`, above it a lower bound);
  in a thread meanwhile, after the native counter's head start of :data:`ENUM_DELAY` s, the
  **enumeration** (:mod:`nonosat.encodings.enumerate`: CaDiCaL finds a solution, a blocking
  clause over the undecided cells excludes it, until the formula is unsatisfiable) for its
  share (:data:`ENUM_SECONDS`, :data:`ENUM_SHARE`, :data:`ENUM_CAP`), then **Ganak**
  (:mod:`nonosat.encodings.ganak`, in its child process) in the time left.  The native
  counter is fast when the count decomposes into components; the enumeration when the count
  is small but the branches with no solution are hard to refute (CaDiCaL learns clauses from
  them, the native counter does not).  With ``workers`` other than 1 (not the default:
  :func:`count_solutions`), the native counter's search is split into cubes counted by worker
  threads (:mod:`nonosat.native.count_cubes`: after :data:`WARMUP_NODES` decisions alone),
  and the lane's thread joins them once the enumeration gives up (:data:`ENUM_HANDOVER`)
  instead of starting Ganak.  With ``second_lane="native"`` (not the default: measured no
  better), the lane runs a second native counter with other settings (:data:`LANE_SETTINGS`)
  before the enumeration and once it gives up;
* on a colour puzzle or a longer line, the enumeration here (up to :data:`COUNT_LIMIT`
  solutions) and Ganak in the thread.

Both CNF counters work on the puzzle's encoding (black-and-white: the default ``order``
encoding, :func:`nonosat.encodings.cnf.encode`; colour: :func:`nonosat.encodings.cnf_colour.encode_colour`)
after the cells the native solver's root node (line propagation and probing) fixes are added as
unit clauses (they hold in every solution, and they shrink the counters' work), and count its
models projected on the cell variables, so that the auxiliary variables of the encoding never
change the count: black-and-white cells are variables ``1 .. h*w``, colour cells the ``h*w*C``
"cell has colour k" variables (exactly one per cell, so their projected models are the
pictures).  The count is exact but not certified (no proof accompanies it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nonosat.encodings.enumerate import ENUMERATOR_NAME
from nonosat.engines import SolveResult, Status
from nonosat.errors import EngineError

if TYPE_CHECKING:
    import numpy as np

    from nonosat.native.count_cubes import CubeCount
    from nonosat.puzzle import Puzzle
    from nonosat.stop import StopToken

#: Seconds the count gets by default when the caller names no time limit.
DEFAULT_COUNT_TIMEOUT = 10.0

#: Counts up to this are exact from the native counter; above, it gives the lower bound
#: ``COUNT_LIMIT + 1`` (and Ganak may still count exactly in the time left).
COUNT_LIMIT = 10**6

#: How the native counter is named in reports and JSON (``count_method``).
NATIVE_COUNTER = "native (line counter)"

#: How the enumeration is named in reports and JSON (``count_method``).
ENUMERATOR = ENUMERATOR_NAME

#: In the portfolio, seconds the native counter runs alone before the enumeration starts
#: beside it (most counts end in the native counter within them).
ENUM_DELAY = 0.3
#: In the portfolio, the enumeration's share: it stops after :data:`ENUM_SECONDS` seconds from
#: its start or :data:`ENUM_SHARE` of the time limit, whichever is later, or after
#: :data:`ENUM_CAP` solutions, and Ganak counts in the time left.  Measured
#: (``benchmarks/bench_count.py``, ``docs/counting.md``): within 10 s Ganak counted none of 50
#: sampled corpus puzzles that the native counter and the enumeration did not.
ENUM_SECONDS = 10.0
ENUM_SHARE = 0.5
ENUM_CAP = 100_000

#: In the portfolio, the native counter counts the whole puzzle alone for this many decisions
#: before it splits its search into cubes for its workers (:mod:`nonosat.native.count_cubes`):
#: most counts end within them (about 0.5 s; taai2011 #275, 11,860 solutions, in 4,026), and
#: then no thread starts: the split costs more decisions than it saves on such counts.
WARMUP_NODES = 5000
#: In the portfolio with the native workers, once the enumeration found this many solutions,
#: or the native counter proves this many (its warm-up's lower bound, then its finished cubes'
#: sum), the enumeration stops and its thread counts cubes too: the enumeration finds about
#: 1,000-2,000 solutions a second on a 25x25 puzzle, fewer as its blocking clauses accumulate,
#: so a count this large cannot end in it within 10 s.  The counts it finishes first are small
#: and their warm-ups prove almost nothing (icga2017 #500: 7,788 solutions, 5.9 s in the
#: portfolio, warm-up bound 94; taai2014 #500: 9,132, 9.2 s, bound 0), while the counts that
#: need every core prove more at once (taai2011 #450, 646,519: bound 19,509).  Measured with
#: 2,000 the enumeration handed over before it could finish those two.
ENUM_HANDOVER = 12_000

#: With ``second_lane="native"`` (not the default), the second lane's native counter:
#: :func:`nonosat.native.count.count_grid` settings other than the first lane's (a portfolio
#: of two configurations, as SAT solvers run: the same search branches elsewhere, and the
#: first exact count wins).  It runs for :data:`LANE_PROBE_NODES` decisions before the
#: enumeration (an exact count there ends the count; a lower bound of at least
#: :data:`ENUM_HANDOVER` skips the enumeration, which could not finish), and after the
#: enumeration once that found :data:`ENUM_HANDOVER` solutions, with the component cache of
#: its first run, in the time left.  Measured against the default lane (``docs/counting.md``,
#: ``benchmarks/bench_count_lanes.py --mode portfolio``): no better on 28 fresh-seed puzzles
#: and the corpus checks (52 / 66 counts within 10 s against 54 / 66).
LANE_SETTINGS: dict[str, Any] = {"weights": 0}
#: Decisions of the second lane's native counter before the enumeration (see
#: :data:`LANE_SETTINGS`).
LANE_PROBE_NODES = 3000

#: What the second lane runs beside the native counter (``count_solutions(second_lane=)``):
#: ``"ganak"`` (the default: the enumeration for its share, then Ganak) or ``"native"`` (the
#: enumeration, which hands over to a second native counter with :data:`LANE_SETTINGS` once
#: it cannot finish; measured no better).
SECOND_LANES = ("ganak", "native")

#: The counters :func:`count_solutions` knows.
COUNTERS = ("auto", "native", "ganak", "enumerate")


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
    workers: int | None = 1,
    second_lane: str = "ganak",
) -> SolutionCount:
    """Count the solutions of ``puzzle`` (agreeing with ``partial``) with a portfolio of exact
    counters on two cores (module docstring; more with ``workers``).

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white or colour.
    partial : ndarray, optional
        Grid state (black-and-white: :class:`~nonosat.puzzle.Cell` values; colour: bit masks),
        shape ``(height, width)``.
    timeout : float, optional
        Seconds for the count (including Ganak's process start-up, about 0.15 s).
    encoding : str
        Black-and-white line encoding (:func:`nonosat.encodings.cnf.encode`) for Ganak and the
        enumeration; every encoding gives the same projected count (the ``dfa`` encoding's
        unprojected count is far larger: its automaton variables are not functions of the
        cells).
    simplify : bool
        Add the cells the native root node fixes as unit clauses first (:func:`root_fixpoint`;
        sound: they hold in every solution).  ``False`` counts the encoding alone.
    counter : str
        ``"auto"`` (the portfolio), or one counter alone: ``"native"``, ``"ganak"`` or
        ``"enumerate"`` (CaDiCaL's enumeration, up to :data:`COUNT_LIMIT` solutions).
    crosscheck : bool
        With ``"auto"``: let every counter of the portfolio finish (within ``timeout``) and
        compare their exact counts.
    workers : int or None
        Threads of the native counter.  ``1`` (the default): one counter with no split and,
        with ``"auto"``, a lane that runs Ganak after the enumeration.  More, or ``None`` (the
        cores available, at most :data:`~nonosat.native.count_cubes.MAX_THREADS`): its search
        split into cubes (:mod:`nonosat.native.count_cubes`); ``"native"``: on that many
        workers; ``"auto"``: the native workers (``None``: the cores less one) beside the
        enumeration lane, which joins them when its enumeration gives up.  Not the default:
        measured on 2 cores (``docs/counting.md``), the cubes proved "more than 10^6" on far
        fewer puzzles within 10 s (their sum grows only as cubes finish) and were no faster on
        taai2011 #450 (646,519 solutions: 8.5-9.8 s on one thread, 8.1-10 s on the cubes).
    second_lane : str
        With ``"auto"``, one worker and no ``crosscheck``: what the second lane runs after the
        enumeration gives up (:data:`SECOND_LANES`): ``"ganak"`` (the default) Ganak,
        ``"native"`` a second native counter with other settings (:data:`LANE_SETTINGS`;
        measured no better on two cores, ``docs/counting.md``).

    Returns
    -------
    SolutionCount
        ``exact`` with the count; else the largest lower bound known: ``COUNT_LIMIT + 1`` when
        the native counter found more than :data:`COUNT_LIMIT`, the lower bound a stopped
        native count proved (its finished parts,
        :attr:`~nonosat.native.count.NativeCount.lower_bound`), or the solutions a stopped
        enumeration found, when at least 1; or ``count=None`` with the reason when nothing is
        known.

    Raises
    ------
    CountDisagreement
        Two counters' exact counts differ (``crosscheck``, or two counters that finished at
        about the same time).
    EngineError
        Ganak is needed but not installed, or failed, and no other counter finished.
    PuzzleError
        ``partial`` has the wrong shape.
    ValueError
        ``counter`` is not one of :data:`COUNTERS`, ``"native"`` on a puzzle it does not
        count (colour, or a line over 62 cells), ``workers < 1``, or ``second_lane`` not one
        of :data:`SECOND_LANES`.
    nonosat.interrupts.Interrupted
        An interrupt stopped the count.
    """
    if counter not in COUNTERS:
        raise ValueError(f"unknown counter {counter!r} (one of {', '.join(COUNTERS)})")
    if workers is not None and workers < 1:
        raise ValueError(f"at least one worker, not {workers}")
    if second_lane not in SECOND_LANES:
        raise ValueError(f"unknown second lane {second_lane!r} (one of "
                         f"{', '.join(SECOND_LANES)})")
    start = time.perf_counter()
    if simplify:
        fixed = root_fixpoint(puzzle, partial)
        if fixed is None:  # logic refutes the puzzle: no solution
            return SolutionCount(0, True, "engine", time.perf_counter() - start)
        partial = fixed
    from nonosat.native.count import supported

    native_ok = supported(puzzle)
    if counter == "native":
        if not native_ok:
            raise ValueError("the native counter counts black-and-white puzzles with lines of "
                             "at most 62 cells")
        from nonosat.native.count_cubes import available_cores

        return _count_native(puzzle, partial, timeout, start,
                             workers=available_cores() if workers is None else workers)
    if counter == "ganak":
        return _count_ganak(puzzle, partial, timeout, encoding, start)
    if counter == "enumerate":
        return _count_enumeration(puzzle, partial, timeout, encoding, start)
    return _portfolio(puzzle, partial, timeout, encoding, start, native_ok, crosscheck,
                      workers, second_lane)


def _portfolio(puzzle: Puzzle, partial: np.ndarray | None, timeout: float | None,
               encoding: str, start: float, native_ok: bool, crosscheck: bool,
               workers: int | None = None, second_lane: str = "ganak") -> SolutionCount:
    """Two lanes at the same time (module docstring): here the native counter on its workers
    (or, when it cannot count the puzzle, the enumeration), in a thread the enumeration for
    its share, then (with the cubes) the native counter's cubes, then Ganak (or Ganak alone);
    the first exact count, or the native counter's "more than the limit", stops the other
    lane unless ``crosscheck``."""
    import threading

    from nonosat.native.count_cubes import CubeCount, available_cores
    from nonosat.stop import StopToken

    stop_here, stop_there = StopToken(), StopToken()
    enum_stop = StopToken()  # the enumeration's: set by stop_there, or to hand over
    cubes: CubeCount | None = None
    n_native = 1
    if native_ok:
        if workers is None:
            cores = available_cores()
            n_native = max(1, cores - 1)
            split = cores > 1
        else:
            n_native = workers
            split = workers > 1
        if split and not crosscheck:
            def handover(total: int) -> None:
                if total >= ENUM_HANDOVER:
                    enum_stop.set()

            cubes = CubeCount(puzzle, partial, limit=COUNT_LIMIT, helpers=1,
                              progress=handover, warmup_nodes=WARMUP_NODES)
        elif split:
            # crosscheck: every counter runs to its end, the native one on its workers
            cubes = CubeCount(puzzle, partial, limit=COUNT_LIMIT, warmup_nodes=WARMUP_NODES)
    here_done = threading.Event()
    there: list[SolutionCount] = []
    failed: list[BaseException] = []
    # the second native counter (one worker, no crosscheck): LANE_SETTINGS
    lane_native = (native_ok and cubes is None and not crosscheck
                   and second_lane == "native")

    def lane_count(counter: Any, token: StopToken, max_nodes: int | None) -> SolutionCount:
        """The second lane's native count (``counter`` reads ``token``); a final answer (an
        exact count, or more than the limit) stops the first lane."""
        got = counter.count(partial, limit=COUNT_LIMIT, max_nodes=max_nodes)
        result = _native_result(got, start, token.reason if token.is_set() else "")
        if result.exact or (result.count or 0) > COUNT_LIMIT:
            stop_here.set()
        return result

    def lane_ganak() -> None:
        """Ganak in the time left; its exact count stops the first lane (unless
        ``crosscheck``)."""
        got = _count_ganak(puzzle, partial, timeout, encoding, start, stop=stop_there)
        there.append(got)
        if got.exact and not crosscheck:
            stop_here.set()

    def enumerate_share(cap: int) -> SolutionCount:
        """The enumeration for its share of the time, counted from ``start`` as ``timeout``
        is: the larger of ENUM_SECONDS and ENUM_SHARE of the time limit (no time limit: until
        ``cap`` solutions); its exact count stops the first lane (unless ``crosscheck``)."""
        share = None if timeout is None else min(timeout, max(
            time.perf_counter() - start + ENUM_SECONDS, ENUM_SHARE * timeout))
        with stop_there.calling(enum_stop.set):
            got = _count_enumeration(puzzle, partial, share, encoding, start, stop=enum_stop,
                                     cap=cap)
        there.append(got)
        if got.exact and not crosscheck:
            stop_here.set()
        return got

    def lane_native_run() -> None:
        """The second lane with its native counter: a short run, the enumeration unless that
        run proves it cannot finish, then the native counter again in the time left (or Ganak,
        when the enumeration stopped at its time share rather than its cap)."""
        from nonosat.native.count import Counter
        from nonosat.stop import for_solve

        with for_solve(stop_there, _left(timeout, start)) as token:
            counter = Counter(puzzle, stop=token, **LANE_SETTINGS)
            bound = 0
            if LANE_PROBE_NODES > 0:
                first = lane_count(counter, token, LANE_PROBE_NODES)
                if first.exact or (first.count or 0) > COUNT_LIMIT or token.is_set():
                    there.append(first)
                    return
                bound = first.count or 0
            if bound < ENUM_HANDOVER:
                got = enumerate_share(ENUM_HANDOVER)
                if got.exact or stop_there.is_set():
                    return
                if (got.count or 0) <= ENUM_HANDOVER:
                    # stopped by its share of the time, not its cap: Ganak, as before
                    lane_ganak()
                    return
            there.append(lane_count(counter, token, None))

    def lane() -> None:
        try:
            if native_ok:
                # the native counter's head start: most counts end in it at once, and then
                # nothing else runs (nor changes the method reported)
                here_done.wait(ENUM_DELAY)
                if stop_there.is_set():
                    return
            if lane_native:
                lane_native_run()
                return
            if native_ok:
                got = enumerate_share(ENUM_HANDOVER if cubes is not None and not crosscheck
                                      else ENUM_CAP)
                if (got.exact and not crosscheck) or stop_there.is_set():
                    return
                if cubes is not None and not crosscheck:
                    # the enumeration gave up: this thread counts the native counter's cubes,
                    # then (the cubes all taken, others still counting) runs Ganak meanwhile
                    cubes.help(stop_there)
                    if stop_there.is_set():
                        return
            lane_ganak()
        except BaseException as exc:  # handed to the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=lane, name="count-lane", daemon=True)
    thread.start()
    try:
        if native_ok:
            here = _count_native(puzzle, partial, timeout, start, stop=stop_here,
                                 workers=n_native, cubes=cubes)
        else:
            here = _count_enumeration(puzzle, partial, timeout, encoding, start,
                                      stop=stop_here)
        if (here.exact or (here.count or 0) > COUNT_LIMIT) and not crosscheck:
            stop_there.set()  # first: the lane, woken next, then starts nothing
        here_done.set()
        thread.join()
    finally:
        here_done.set()
        stop_there.set()
        thread.join()
    results = [here, *there]
    exact = [got for got in results if got.exact]
    for got in exact[1:]:
        if got.count != exact[0].count:
            raise CountDisagreement(
                f"the {_short(exact[0].method)} counts {exact[0].count} solutions but the "
                f"{_short(got.method)} {got.count}")
    if exact:
        return exact[0]
    if failed:
        raise failed[0]
    # no exact count: the largest lower bound known (the first lane's on a tie), else the
    # last counter's reason (Ganak's when it ran)
    best = max(results, key=lambda got: got.count or 0)
    return best if best.count else results[-1]


def _short(method: str) -> str:
    """``"native (line counter)"`` -> ``"native counter"``, and so on, for messages."""
    return {NATIVE_COUNTER: "native counter", ENUMERATOR: "enumeration",
            "ganak (pyganak)": "Ganak"}.get(method, method)


def _left(timeout: float | None, start: float) -> float | None:
    """What is left of ``timeout`` seconds counted from ``start``."""
    return None if timeout is None else max(timeout - (time.perf_counter() - start), 0.0)


def _count_native(puzzle: Puzzle, partial: np.ndarray | None, timeout: float | None,
                  start: float, stop: StopToken | None = None, workers: int = 1,
                  cubes: CubeCount | None = None) -> SolutionCount:
    """The native counter within what is left of ``timeout`` seconds counted from ``start``;
    ``stop`` stops it early.  One worker: :func:`nonosat.native.count.count_grid`; more, or
    ``cubes`` (the portfolio's, which its lane may join): its cubes on ``workers`` threads
    (:class:`nonosat.native.count_cubes.CubeCount`), after :data:`WARMUP_NODES` decisions
    alone."""
    from nonosat.native.count import count_grid
    from nonosat.native.count_cubes import CubeCount
    from nonosat.stop import for_solve

    if timeout is not None and timeout <= 0:
        if cubes is not None:
            cubes.close()
        return SolutionCount(None, False, NATIVE_COUNTER, 0.0, "time limit")
    with for_solve(stop, _left(timeout, start)) as token:
        if cubes is not None:
            got = cubes.run(workers, stop=token)
        elif workers > 1:
            got = CubeCount(puzzle, partial, limit=COUNT_LIMIT, stop=token,
                            warmup_nodes=WARMUP_NODES).run(workers)
        else:
            got = count_grid(puzzle, partial, limit=COUNT_LIMIT, stop=token)
        reason = token.reason if token.is_set() else ""
    from nonosat import interrupts

    interrupts.check()  # an interrupted count is no count
    return _native_result(got, start, reason)


def _native_result(got: Any, start: float, reason: str) -> SolutionCount:
    """A :class:`SolutionCount` of the native counter's ``got`` (a
    :class:`~nonosat.native.count.NativeCount`), counted from ``start``; ``reason``: why it
    was stopped, if it was."""
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


def _count_enumeration(puzzle: Puzzle, partial: np.ndarray | None, timeout: float | None,
                       encoding: str, start: float, stop: StopToken | None = None,
                       cap: int = COUNT_LIMIT) -> SolutionCount:
    """CaDiCaL's enumeration (:func:`nonosat.encodings.enumerate.count_by_enumeration`) of the
    CNF's models projected on the cells (:func:`enumeration_problem`) within what is left of
    ``timeout`` seconds counted from ``start``, up to ``cap`` solutions; ``stop`` stops it
    early.  Stopped, its count is a lower bound (the solutions it found)."""
    from nonosat.encodings.enumerate import count_by_enumeration

    if timeout is not None and _left(timeout, start) == 0:
        return SolutionCount(None, False, ENUMERATOR, 0.0, "time limit")
    clauses, nvars, groups = enumeration_problem(puzzle, partial, encoding)
    got = count_by_enumeration(clauses, nvars, groups, cap=cap, timeout=_left(timeout, start),
                               stop=stop)
    took = time.perf_counter() - start
    if got.exact:
        return SolutionCount(got.count, True, ENUMERATOR, took)
    reason = (f"more than {cap:,} solutions" if got.count > cap
              else got.reason or "stopped")
    return SolutionCount(got.count or None, False, ENUMERATOR, took, reason)


def enumeration_problem(puzzle: Puzzle, partial: np.ndarray | None, encoding: str = "order"
                        ) -> tuple[list[list[int]], int, list[list[int]]]:
    """The formula and projection the enumeration counts: ``(clauses, nvars, groups)`` for
    :func:`nonosat.encodings.enumerate.count_by_enumeration`.

    Black-and-white: the ``encoding`` CNF with ``partial``'s known cells as units, projected on
    the variables of the cells ``partial`` leaves undecided (the others are fixed by their
    units).  Colour: the colour CNF restricted to ``partial``, projected on one exactly-one
    group per cell with two or more possible colours (its "cell has colour k" variables for
    the colours still possible; the others are false by unit clauses).  Either way the
    projected models are the pictures, one for one.
    """
    import numpy as np

    from nonosat.puzzle import Cell

    h, w = puzzle.shape
    if puzzle.is_colour:
        from nonosat.encodings.cnf_colour import encode_colour

        enc = encode_colour(puzzle, partial)
        ncol = puzzle.n_colours
        if partial is None:
            masks = [(1 << ncol) - 1] * (h * w)
        else:
            masks = np.asarray(partial, dtype=np.int64).reshape(-1).tolist()
        groups = [[1 + i * ncol + k for k in range(ncol) if (mask >> k) & 1]
                  for i, mask in enumerate(masks) if mask & (mask - 1)]
        return enc.clauses, max(enc.nvars, h * w * ncol), groups
    from nonosat.encodings.cnf import encode

    benc = encode(puzzle, encoding, partial)
    if partial is None:
        free = np.arange(h * w)
    else:
        flat = np.asarray(partial).reshape(-1)
        free = np.flatnonzero(~np.isin(flat, (int(Cell.FILLED), int(Cell.EMPTY),
                                               int(Cell.CONFLICT))))
    return benc.clauses, max(benc.nvars, h * w), [[v] for v in (free + 1).tolist()]


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
