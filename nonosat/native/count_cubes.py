"""The native counter on several cores: its search split into cubes, counted by worker threads.

A **cube** is a partial grid: the cells of a few top-level decisions of the counter's own
search, with what propagation and probing fix under them.  :func:`make_cubes` grows them from
the root, best first (the open cube with the most undecided cells is split next, and counted
first), as the counter would branch (cube-and-conquer, Heule et al. [1]_; the
split of a parallel DPLL / #SAT search into guiding paths, Zhang et al. [2]_): the root's
propagation and failed-literal probing, then the branching cell of the counter's probing rule
(:func:`nonosat.native.count_probe._probe` on the largest component: the cell whose two values
propagate furthest), both values, each propagated and probed again; a value that propagates to
a contradiction is dropped (it has no solution).  The cubes partition the solutions: every
solution agrees with exactly one of them (it takes one value of each branching cell on its
path, and the cells fixed by propagation and probing hold in every solution below them), so
the count is the **sum** of the cubes' counts.

:class:`CubeCount` counts the cubes with worker threads, each with its own
:class:`nonosat.native.count.Counter` (the compiled kernel releases the GIL), whose component
cache is kept across the cubes that worker counts (the cache key is exact, so a component met
under another cube is the same component).  Workers pull cubes from one queue; another thread
can join as a worker while the count runs (:meth:`CubeCount.help`: the portfolio's enumeration
lane does once its enumeration gave up).  The cap holds for the sum: each cube is counted with
the cap ``limit + 1`` minus the finished cubes' sum, and once the finished cubes reach it every
worker stops and the count is the lower bound ``limit + 1``, as one counter's.  A stop (time
limit, cancel, interrupt) reaches every worker within one node (they read one flag); the lower
bound is then the finished cubes' sum plus what each stopped cube's finished parts prove.
:meth:`CubeCount.run` returns only once no worker of it is counting.

References
----------
.. [1] M. J. H. Heule, O. Kullmann, S. Wieringa, A. Biere, "Cube and Conquer: Guiding CDCL SAT
   Solvers by Lookaheads", HVC 2011.
.. [2] H. Zhang, M. P. Bonacina, J. Hsiang, "PSATO: a distributed propositional prover and its
   application to quasigroup problems", J. Symbolic Computation 21, 1996 (guiding paths).
"""

from __future__ import annotations

import heapq
import os
import threading
import time
from collections import deque
from typing import Any

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.count import (
    DEFAULT_LIMIT,
    DEFAULT_PROBE_FLAGS,
    SEG_STACK_DEPTH,
    Counter,
    NativeCount,
    _apply_partial,
)
from nonosat.native.count_parts import (
    M_ABORT,
    M_FLAGS,
    M_MODE,
    _components,
    _refine,
    new_count_context,
    seg_word,
    segment_stack_words,
)
from nonosat.native.count_probe import _probe
from nonosat.native.propagate import (
    KIND_DECISION,
    ST_TLEN,
    assign,
    clear_queue,
    new_state,
    problem_tuple,
    propagate,
)
from nonosat.puzzle import Cell, Puzzle, pack_clues, unknown_grid
from nonosat.stop import StopToken, for_solve

#: Cubes per worker of the first split, in the calling thread (:class:`CubeCount`).
CUBES_PER_WORKER = 8

#: A cube of the first split that its budget (:data:`SUBSPLIT_NODES`) does not count is split
#: again into this many by the worker that took it, so the second split runs on every core.  The cubes' counts differ widely (the solutions of
#: taai2011 #450 sit in a few of its cubes): split into 128 cubes, its largest takes 45,364
#: of 124,988 decisions; into 512, 9,942 of 122,878 (each counted by a fresh counter).  Each
#: cube costs a few milliseconds of splitting and of counting from its root (taai2011 #425,
#: two workers: 233 cubes 2.0 s of CPU, 905 cubes 2.9 s, one thread 1.3 s).
SUBCUBES = 32

#: The budget of decisions a cube of the first split is counted within before it is split
#: again: most of them take fewer (a cube with no solution: a few dozen), and are not split.
SUBSPLIT_NODES = 1000

#: Cubes are split again at most this many times, each time within a budget 4 times the last
#: (1,000, 4,000, 16,000 decisions); the cubes of the last split are counted whatever they
#: take.
SPLIT_LEVELS = 3

#: The statistics of the workers' counts that :meth:`CubeCount.run` sums.
_SUMMED = ("nodes", "cache_hits", "cached", "splits", "cache_clears", "probes", "refuted",
           "probes_skipped", "probe_failed", "probe_both", "restarts")


#: The most threads a count uses by default, whatever the cores: each worker's counter holds
#: its own component cache (:data:`~nonosat.native.count_parts.TABLE_SLOTS` rows and
#: :data:`~nonosat.native.count_parts.ARENA_WORDS` key words, about 40 MB), and the cubes'
#: duplicated work grows with their number (taai2011 #450: +23 % decisions on 2 workers, +33 %
#: on 4).
MAX_THREADS = 8


def available_cores() -> int:
    """The threads a count uses by default: the cores this process may run on
    (``os.sched_getaffinity``, else ``os.cpu_count``), at most :data:`MAX_THREADS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_THREADS))


@njit(cache=True, nogil=True)
def _split_step(problem, state, ctx, cell, value):  # pragma: no cover - compiled
    """Propagate ``state`` (its givens queued), then decide ``cell`` with ``value`` (1 empty,
    2 filled; ``cell < 0``: none, the root), propagate and probe as the counter does at a node
    (the root: every cell of the component; below: probing mode 4 from the decision), and name
    the branching cell: ``-2`` on a contradiction, ``-1`` when every cell is decided, ``-3``
    when the stop flag ended probing or the segment stack is full, else the cell (the probing
    rule's branch in the component with the most segments).  Cells fixed stay assigned in
    ``state``."""
    meta, segs = ctx[0], ctx[3]
    st = state[6]
    if not propagate(problem, state):
        clear_queue(state)
        return -2
    since = -1
    if cell >= 0:
        since = st[ST_TLEN]
        assign(problem, state, cell, value, KIND_DECISION, 0, -1)
        if not propagate(problem, state):
            clear_queue(state)
            return -2
    start, known = problem[1], problem[2]
    h, w = problem[3][0], problem[3][1]
    n0 = h + w
    for line in range(n0):
        length = w if line < h else h
        k = start[line + 1] - start[line] if known[line] else 0
        segs[line] = seg_word(line, 0, length - 1, 0, k)
    r = _refine(problem, state, ctx, segs, 0, n0, n0)
    if r < 0:
        return -3
    k, m = _components(problem, state, ctx, segs, n0, r, n0 + r)
    if k < 0:
        return -3
    if k == 0:
        return -1
    at = n0 + r
    best_lo = -1
    best_n = 0
    while at < n0 + r + m:
        if segs[at] > best_n:
            best_n = segs[at]
            best_lo = at + 1
        at += segs[at] + 1
    meta[M_MODE] = 1 if since < 0 else 4
    branch = _probe(problem, state, ctx, segs, best_lo, best_n, since, 0, 0)
    if meta[M_ABORT] != 0:
        return -3
    return branch


class _Splitter:
    """The working arrays of :func:`_split_step` for one puzzle (one thread at a time)."""

    def __init__(self, puzzle: Puzzle, flag: np.ndarray, probe_flags: int) -> None:
        h, w = puzzle.shape
        self.puzzle = puzzle
        self.packed = pack_clues(puzzle)
        self.problem = problem_tuple(self.packed)
        blocks = len(self.packed.blocks)
        words = min(segment_stack_words(h + w, SEG_STACK_DEPTH, blocks),
                    segment_stack_words(h + w, h * w, blocks))
        self.ctx = new_count_context(h + w, h * w, blocks, slots=4, arena=4, seg_words=words)
        self.ctx[0][M_FLAGS] = probe_flags
        self.flag = flag
        self.cache: np.ndarray | None = None

    def step(self, grid: np.ndarray, cell: int = -1, value: int = 0) -> tuple[int, np.ndarray]:
        """Propagate ``grid``, decide ``cell`` (``-1``: none) with ``value``
        (:class:`~nonosat.puzzle.Cell`), propagate and probe: ``(branch, fixed)``, the
        branching cell (or :func:`_split_step`'s negative code) and the grid with the cells
        fixed."""
        h, w = self.puzzle.shape
        state = new_state(self.packed, unknown_grid(self.puzzle), cache=self.cache,
                          stop=self.flag)
        self.cache = state[10]
        _apply_partial(self.puzzle, state, grid)
        branch = int(_split_step(self.problem, state, self.ctx, cell, value))
        return branch, state[0].reshape(h, w).copy()


def make_cubes(puzzle: Puzzle, partial: np.ndarray | None, target: int, *,
               flag: np.ndarray | None = None, probe_flags: int = DEFAULT_PROBE_FLAGS,
               splitter: _Splitter | None = None) -> list[np.ndarray] | None:
    """Split the count of ``puzzle`` (agreeing with ``partial``) into at least ``target``
    cubes (fewer when the search tree is smaller), best first (module docstring): each cube
    propagated and probed, those with a contradiction dropped.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white, lines of at most 62 cells.
    partial : ndarray of int8, shape (height, width), optional
        :class:`~nonosat.puzzle.Cell` values; its known cells hold in every cube.
    target : int
        Cubes wanted.
    flag : ndarray of int64, shape (1,), optional
        A stop flag (:attr:`nonosat.stop.StopToken.flag`) the probing reads.
    probe_flags : int
        Probing options, as :func:`nonosat.native.count.count_grid`'s.
    splitter : _Splitter, optional
        Working arrays to reuse (its flag and probing options then hold).

    Returns
    -------
    list of ndarray of int8, shape (height, width), or None
        The cubes, most undecided cells first (an empty list: no solution); ``None`` when
        the stop flag was set.
    """
    if splitter is None:
        splitter = _Splitter(puzzle, np.zeros(1, dtype=np.int64) if flag is None else flag,
                             probe_flags)
    base = unknown_grid(puzzle) if partial is None else np.asarray(partial, dtype=np.int8)
    unknown = int(Cell.UNKNOWN)
    # best first: the open cube with the most undecided cells (after its propagation and
    # probing) is split next; on taai2011 #450 the cubes with most of the solutions and of
    # the work are those (581 undecided cells against 505-567 for the cubes without solution)
    heap: list[tuple[int, int, int, np.ndarray]] = []
    done: list[np.ndarray] = []
    seq = 0

    def add(grid: np.ndarray, decide: int = -1, value: int = 0) -> bool:
        nonlocal seq
        cell, fixed = splitter.step(grid, decide, value)
        if cell == -3:
            if splitter.flag[0] != 0:
                return False
            if decide >= 0:
                grid = grid.copy()
                grid.reshape(-1)[decide] = value
            done.append(grid)
        elif cell == -1:
            done.append(fixed)
        elif cell >= 0:
            heapq.heappush(heap, (-int((fixed == unknown).sum()), seq, cell, fixed))
            seq += 1
        return True  # (-2: a contradiction, dropped)

    if not add(base):
        return None
    while heap and len(heap) + len(done) < target:
        _, _, cell, fixed = heapq.heappop(heap)
        for value in (Cell.FILLED, Cell.EMPTY):
            if not add(fixed, cell, int(value)):
                return None
    return done + [fixed for _, _, _, fixed in sorted(heap)]


class CubeCount:
    """One count split into cubes (:func:`make_cubes`) and counted by worker threads.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white, lines of at most 62 cells
        (:func:`nonosat.native.count.supported`).
    partial : ndarray of int8, shape (height, width), optional
        Grid state whose known cells are given.
    limit : int
        Counts up to ``limit`` are exact; above, the lower bound ``limit + 1``.
    stop : StopToken, optional
        Stops every worker (within one node) when set; never set here.
    cubes : int, optional
        Cubes to split into (default: :data:`CUBES_PER_WORKER` per worker of :meth:`run`, and
        per helper announced by ``helpers``).
    subcubes : int
        A cube of the first split that :data:`SUBSPLIT_NODES` decisions do not count is split
        again into this many by the worker that took it (:data:`SUBCUBES`; 1: no second
        split).
    helpers : int
        Threads expected to join by :meth:`help` (counted for the default number of cubes).
    progress : callable, optional
        Called with a lower bound on the count: what the warm-up proved (when it proved
        any), then the finished cubes' sum each time a cube finishes (from a worker thread; it
        must be quick and must not raise).
    warmup_nodes : int
        Before splitting, the calling thread's counter counts the whole puzzle alone with this
        budget of decisions (0: none): a count that ends within it is returned as it is (no
        split, no thread), else that counter keeps its cache for its cubes.
    **options
        :class:`nonosat.native.count.Counter`'s branching and probing options.
    """

    def __init__(self, puzzle: Puzzle, partial: np.ndarray | None = None, *,
                 limit: int = DEFAULT_LIMIT, stop: StopToken | None = None,
                 cubes: int | None = None, subcubes: int = SUBCUBES, helpers: int = 0,
                 progress: Any = None, warmup_nodes: int = 0, **options: Any) -> None:
        if limit < 1:
            raise ValueError(f"the count limit must be at least 1, not {limit}")
        self.puzzle = puzzle
        self.partial = None if partial is None else np.asarray(partial, dtype=np.int8)
        if self.partial is not None and self.partial.shape != puzzle.shape:
            from nonosat.errors import PuzzleError

            raise PuzzleError(f"partial grid is {self.partial.shape[1]}x"
                              f"{self.partial.shape[0]} but the puzzle is "
                              f"{puzzle.width}x{puzzle.height}")
        self.limit = limit
        self._stop = stop
        self._cubes = cubes
        self._helpers = helpers
        self._progress = progress
        self._warmup = warmup_nodes
        self._options = options
        self._cond = threading.Condition()
        self._queue: deque[tuple[np.ndarray, int]] = deque()  # (cube, its split's level)
        self._splitting = 0  # workers splitting a cube of the first split
        self._subcubes = subcubes
        self._levels = SPLIT_LEVELS if subcubes > 1 else 0
        self._open = False  # cubes may be pulled (between the split and the end of run)
        self._closed = False  # run has returned: help does nothing
        self._active = 0
        self._sum = 0
        self._stopped_lower = 0
        self._over = False
        self._failure = ""
        self._errors: list[BaseException] = []
        self._stats: dict[str, int] = dict.fromkeys(_SUMMED, 0)
        self._stats["max_depth"] = 0
        self._per_worker: list[int] = []  # nodes each worker's cubes took
        self._per_worker_cpu: list[float] = []  # and its thread's CPU seconds
        self._flag: np.ndarray | None = None
        self._joined = 0  # helpers that joined (help)
        self._warmup_lower = 0
        self.cube_count = 0  #: cubes made (0 until the split)

    # -- workers ------------------------------------------------------------------------------
    def _counter(self) -> Counter:
        return Counter(self.puzzle, stop=self._flag, **self._options)

    def _work(self, counter: Counter) -> None:
        """Count cubes from the queue until none is left (and no worker is splitting one), the
        cap is reached or a stop.  A cube of the first split is counted within a budget of
        :data:`SUBSPLIT_NODES` decisions first; one that needs more is split again here into
        ``subcubes`` cubes, which go to the front of the queue (what the budget counted is
        dropped, but for the components it cached)."""
        nodes = 0
        cpu = time.thread_time()
        splitter: _Splitter | None = None
        try:
            while True:
                with self._cond:
                    while (self._open and not self._queue and self._splitting > 0
                           and not self._over and self._flag is not None
                           and self._flag[0] == 0):
                        self._cond.wait(0.05)  # another worker is splitting a cube
                    if (not self._open or not self._queue or self._over
                            or self._flag is None or self._flag[0] != 0):
                        break
                    grid, level = self._queue.popleft()
                    cap_left = self.limit - self._sum  # >= 0 while not over
                    self._active += 1
                    budgeted = level < self._levels
                    if budgeted:
                        self._splitting += 1
                try:
                    if not budgeted:
                        got = counter.count(grid, limit=max(1, cap_left))
                    else:
                        # first within a budget: a cube that takes more is split again
                        try:
                            got = counter.count(grid, limit=max(1, cap_left),
                                                max_nodes=SUBSPLIT_NODES * 4 ** level)
                            if (not got.finished and got.reason == "stopped"
                                    and self._flag[0] == 0):
                                nodes += got.stats["nodes"]
                                self._record_stats(got)
                                if splitter is None:
                                    splitter = _Splitter(self.puzzle, self._flag,
                                                         self._options.get(
                                                             "probe_flags",
                                                             DEFAULT_PROBE_FLAGS))
                                sub = make_cubes(self.puzzle, grid, self._subcubes,
                                                 splitter=splitter)
                                with self._cond:
                                    if sub is not None:
                                        self.cube_count += len(sub) - 1
                                        self._queue.extendleft(
                                            (g, level + 1) for g in reversed(sub))
                                continue
                        finally:
                            with self._cond:
                                self._splitting -= 1
                finally:
                    with self._cond:
                        self._active -= 1
                        self._cond.notify_all()
                nodes += got.stats["nodes"]
                done = self._record(got)
                if done is not None and self._progress is not None:
                    self._progress(done)
        except BaseException as exc:  # handed to run's caller
            with self._cond:
                self._errors.append(exc)
            self._halt()
        finally:
            with self._cond:
                self._per_worker.append(nodes)
                self._per_worker_cpu.append(time.thread_time() - cpu)

    def _record(self, got: NativeCount) -> int | None:
        """Add a cube's count; stop every worker once the sum is over the limit.  Returns the
        finished sum when the cube finished."""
        over = False
        with self._cond:
            self._add_stats(got)
            if got.finished:
                assert got.count is not None
                self._sum += got.count
                if not got.exact or self._sum > self.limit:
                    self._over = over = True
                total: int | None = self._sum
            else:
                self._stopped_lower += got.lower_bound
                if got.reason != "stopped":
                    self._failure = got.reason
                    over = True  # no exact count can come: stop the others
                total = None
        if over:
            self._halt()
        return total

    def _halt(self) -> None:
        if self._flag is not None and self._flag[0] == 0:
            self._flag[0] = 1

    def help(self, stop: StopToken | None = None) -> None:
        """Join the count from another thread as one more worker (its own counter) until the
        cubes run out, the count ends or a stop; waits while :meth:`run` warms up and splits
        (or until ``stop`` is set), returns at once once it has returned (or :meth:`close`).
        Exceptions of the count go to :meth:`run`'s caller."""
        with self._cond:
            while not (self._open or self._closed):  # run is still warming up or splitting
                if stop is not None and stop.is_set():
                    return
                self._cond.wait(0.05)
            if self._closed:
                return
            self._active += 1  # run waits for this helper from here on
            self._joined += 1
        try:
            counter = self._counter()
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()
        self._work(counter)

    def close(self) -> None:
        """Declare that :meth:`run` will not be called: :meth:`help` returns at once."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def finished_sum(self) -> int:
        """The finished cubes' sum so far (a lower bound on the count)."""
        return self._sum

    # -- the count ----------------------------------------------------------------------------
    def run(self, workers: int, stop: StopToken | None = None) -> NativeCount:
        """Count with ``workers`` threads (the calling one and ``workers - 1`` started here);
        ``stop``, when given, replaces the constructor's.

        Returns
        -------
        NativeCount
            As :func:`nonosat.native.count.count_grid`'s; its ``stats`` are the sums over the
            workers' counts (plus ``cubes``, ``workers``, ``split_ms``, the busiest worker's
            decisions and thread CPU, ``busiest_worker_nodes`` and ``busiest_worker_cpu_ms``,
            and ``workers_cpu_ms`` in all), so ``nodes`` is the total work, duplicated work
            across cubes included.

        Raises
        ------
        ValueError
            ``workers < 1``.
        """
        if workers < 1:
            raise ValueError(f"at least one worker, not {workers}")
        if stop is not None:
            self._stop = stop
        try:
            return self._run(workers)
        finally:
            with self._cond:
                self._open = False
                self._closed = True
                self._cond.notify_all()

    def _run(self, workers: int) -> NativeCount:
        t0 = time.perf_counter()
        with for_solve(self._stop) as token:
            self._flag = token.flag
            first = self._counter()
            if self._warmup > 0:
                got = first.count(self.partial, limit=self.limit, max_nodes=self._warmup)
                if got.finished or got.reason != "stopped" or token.is_set():
                    return got
                self._record_stats(got)
                self._warmup_lower = got.lower_bound  # a lower bound on the whole count too
                if self._progress is not None and got.lower_bound > 0:
                    self._progress(got.lower_bound)
            target = self._cubes or CUBES_PER_WORKER * (workers + self._helpers)
            t_split = time.perf_counter()
            cubes = make_cubes(self.puzzle, self.partial, target, flag=token.flag,
                               probe_flags=self._options.get("probe_flags", DEFAULT_PROBE_FLAGS))
            split_ms = int(1000 * (time.perf_counter() - t_split))
            if cubes is None:
                return self._result(t0, workers, 0, split_ms)
            self.cube_count = len(cubes)
            with self._cond:
                self._queue.extend((cube, 0) for cube in cubes)
                self._open = True
            threads = [threading.Thread(target=self._work_new, name=f"count-worker-{i}",
                                        daemon=True) for i in range(1, workers)]
            try:
                for thread in threads:
                    thread.start()
                self._work(first)
            finally:
                if self._errors:
                    self._halt()
                for thread in threads:
                    thread.join()
                with self._cond:
                    self._open = False  # no helper takes a cube from here on
                    while self._active > 0:
                        self._cond.wait()
            if self._errors:
                raise self._errors[0]
            return self._result(t0, workers, self.cube_count, split_ms)

    def _work_new(self) -> None:
        try:
            counter = self._counter()
        except BaseException as exc:  # pragma: no cover - allocation failure
            with self._cond:
                self._errors.append(exc)
            self._halt()
            return
        self._work(counter)

    def _record_stats(self, got: NativeCount) -> None:
        with self._cond:
            self._add_stats(got)

    def _add_stats(self, got: NativeCount) -> None:
        for key in _SUMMED:
            self._stats[key] += got.stats.get(key, 0)
        self._stats["max_depth"] = max(self._stats["max_depth"], got.stats["max_depth"])

    def _result(self, t0: float, workers: int, cubes: int, split_ms: int) -> NativeCount:
        took = time.perf_counter() - t0
        stats = dict(self._stats)
        stats.update(cubes=cubes, workers=workers + self._joined, split_ms=split_ms,
                     busiest_worker_nodes=max(self._per_worker, default=0),
                     busiest_worker_cpu_ms=int(1000 * max(self._per_worker_cpu, default=0.0)),
                     workers_cpu_ms=int(1000 * sum(self._per_worker_cpu)))
        if self._over and not self._failure:
            # the finished cubes' sum reached the cap: at least limit + 1, as one counter's
            return NativeCount(self.limit + 1, False, True, took, stats, "", self.limit + 1)
        # a stopped count's lower bound: the finished cubes' sum plus what the stopped ones
        # proved (the cubes partition the solutions), or the warm-up's, whichever is larger
        lower = min(max(self._sum + self._stopped_lower, self._warmup_lower), self.limit + 1)
        if self._failure:
            return NativeCount(None, False, False, took, stats, self._failure, lower)
        if self._flag is not None and self._flag[0] != 0 or self._queue:
            if lower > self.limit:
                return NativeCount(self.limit + 1, False, True, took, stats, "", lower)
            return NativeCount(None, False, False, took, stats, "stopped", lower)
        return NativeCount(self._sum, True, True, took, stats, "", self._sum)


def count_parallel(puzzle: Puzzle, partial: np.ndarray | None = None, *,
                   limit: int = DEFAULT_LIMIT, stop: StopToken | None = None,
                   workers: int | None = None, cubes: int | None = None,
                   subcubes: int = SUBCUBES, **options: Any) -> NativeCount:
    """Count the solutions of ``puzzle`` agreeing with ``partial`` on ``workers`` threads
    (default: :func:`available_cores`), split into ``cubes`` cubes, each split again into
    ``subcubes`` by the worker that takes it (:class:`CubeCount`).

    ``workers=1`` with no ``cubes`` is :func:`nonosat.native.count.count_grid` itself (no
    split).  Parameters and result as :func:`~nonosat.native.count.count_grid`'s
    (``options``: its branching and probing options).

    Raises
    ------
    ValueError
        A puzzle the native counter does not count, ``limit < 1`` or ``workers < 1``.
    """
    from nonosat.native.count import count_grid

    n = available_cores() if workers is None else workers
    if n < 1:
        raise ValueError(f"at least one worker, not {n}")
    if n == 1 and cubes is None:
        return count_grid(puzzle, partial, limit=limit, stop=stop, **options)
    return CubeCount(puzzle, partial, limit=limit, stop=stop, cubes=cubes, subcubes=subcubes,
                     **options).run(n)


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
