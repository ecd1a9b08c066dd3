"""Fork search: propagate, probe, branch on a cell, recurse; count solutions up to a limit.

The native solver's top level, compiled with numba.  One search node is

1. **propagation** (:mod:`nonosat.native.propagate`) to a fixpoint, then
2. **probing** (:mod:`nonosat.native.probe`, optional) to a fixpoint, then
3. if every cell is known, a solution; else a **fork** on the cell whose probe branches fixed the
   most cells (or, without probing, an unknown cell of the most constrained line), trying the
   value whose branch fixed more cells first.

Depth-first, chronological backtracking with an explicit stack and a trail (undo log), so the
loop needs no recursion and runs entirely compiled.  The search stops at ``limit`` solutions
(2 decides uniqueness) or when the space is exhausted.  It is *resumable*: :func:`search_kernel`
returns after a node budget, and the Python driver :class:`NativeSearch` checks the clock between
calls, which is how the portfolio hand-off to SAT works.  The compiled loop also reads a **stop
flag** (a :class:`nonosat.stop.StopToken`'s) at every node and before every probe, so a cancel, a
time limit (the engines arm a token with ``timeout``) or an interrupt (Ctrl-C, through
:meth:`~nonosat.stop.StopToken.watch_interrupts`) stops it within one probe, even inside a
node's probing that takes seconds (a large open grid).  A stopped search is unfinished: never a
verdict.

The root node's deductions are kept in order on the trail with their reasons: that is the
**deduction trace** (:class:`Trace`) the certificate writer turns into proof lemmas and the
explainer into steps.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass

import numpy as np

from nonosat import interrupts
from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.probe import (
    PROBE_STOPPED,
    TRACK_LINES,
    TRACK_TOUCHED,
    best_branch,
    probe_tracked,
    restore_stamps,
    stamp_lines,
)
from nonosat.native.propagate import (
    KIND_BRANCH,
    KIND_DECISION,
    ST_BACKTRACKS,
    ST_CACHE_HITS,
    ST_CONFLICTS,
    ST_DEPTH,
    ST_EVENT,
    ST_EXHAUSTED,
    ST_LIMIT,
    ST_LINE_SOLVES,
    ST_MAX_DEPTH,
    ST_NODES,
    ST_NSOL,
    ST_PROBE_FIXES,
    ST_PROBES,
    ST_ROOT_TLEN,
    ST_TLEN,
    assign,
    borrowed,
    clear_line_cache,
    clear_queue,
    new_line_cache,
    propagate,
    undo_to,
)
from nonosat.native.stepping import Stepper
from nonosat.native.trace import Deduction, Trace  # noqa: F401 (Deduction: the old import path)
from nonosat.puzzle import Cell, Puzzle
from nonosat.stop import StopToken

PAUSED = 1
FINISHED = 0
STOPPED = 2

#: Line caches of finished searches, reused (emptied by a generation step) by the next
#: :class:`NativeSearch`, so that a run of puzzles does not fault in a fresh table each.
_CACHE_POOL: list[np.ndarray] = []
_CACHE_POOL_MAX = 1


def _take_line_cache() -> np.ndarray:
    try:
        cache = _CACHE_POOL.pop()
    except IndexError:
        return new_line_cache()
    clear_line_cache(cache)
    return cache


def _give_line_cache(cache: np.ndarray) -> None:
    if len(_CACHE_POOL) < _CACHE_POOL_MAX:
        _CACHE_POOL.append(cache)


@njit(cache=True, nogil=True)
def simple_branch(problem, state):  # pragma: no cover - compiled
    """Branching without probing scores: the first unknown cell of the row or column with the
    fewest unknown cells (most constrained line); try filled first.  ``(-1, 0)`` if none."""
    h, w = problem[3][0], problem[3][1]
    grid = state[0]
    best_line = -1
    best_unknown = 1 << 30
    for r in range(h):
        u = 0
        for c in range(w):
            if grid[r * w + c] == 3:
                u += 1
        if 0 < u < best_unknown:
            best_unknown = u
            best_line = r
    for c in range(w):
        u = 0
        for r in range(h):
            if grid[r * w + c] == 3:
                u += 1
        if 0 < u < best_unknown:
            best_unknown = u
            best_line = h + c
    if best_line < 0:
        return -1, 0
    if best_line < h:
        for c in range(w):
            if grid[best_line * w + c] == 3:
                return best_line * w + c, 2
    c = best_line - h
    for r in range(h):
        if grid[r * w + c] == 3:
            return r * w + c, 2
    return -1, 0


@njit(cache=True, nogil=True)
def search_kernel(
    problem, state, scratch, frames, sols, max_nodes, probing, branch_mode, track
):  # pragma: no cover - compiled
    """Run the search for at most ``max_nodes`` decisions.

    Parameters
    ----------
    problem, state : tuples
        See :mod:`nonosat.native.propagate`.
    scratch : tuple
        Probing scratch (:func:`nonosat.native.probe.new_probe_scratch` with ``n_lines``).
    frames : ndarray of int64, shape (h*w + 1, 6)
        Decision stack: cell, trail length before the decision, first value, flipped flag, event
        number at the decision, line-stamp log length at the decision.
    sols : ndarray of int8, shape (limit, h*w)
        Receives the solutions found.
    max_nodes : int
        Decision budget for this call.
    probing : bool
        Whether to probe at every node.
    branch_mode : int
        Branching rule with probing (see :func:`nonosat.native.probe.best_branch`).
    track : int
        Probing's change tracking (``TRACK_*`` of :mod:`nonosat.native.probe`).  With
        :data:`~nonosat.native.probe.TRACK_TOUCHED` a backtrack restores the line stamps and
        forgets the probes made below the decision (:func:`~nonosat.native.probe.restore_stamps`),
        so every node is at the exact probing fixpoint.

    The state's stop flag (``state[15]``) is read at every node and before every probe: once it
    is set the kernel returns ``STOPPED`` within one probe.

    Returns
    -------
    int
        ``FINISHED`` (0): limit reached or space exhausted (``st[ST_EXHAUSTED]``);
        ``PAUSED`` (1): budget used up, call again to continue;
        ``STOPPED`` (2): the stop flag was set; the state is consistent (a node's probing is
        redone by the next call), so a call with the flag cleared would continue.
    """
    # borrowed views: no reference counting in the loops below (propagate.borrowed)
    problem = borrowed(problem)
    state = borrowed(state)
    scratch = borrowed(scratch)
    frames = borrowed(frames)
    sols = borrowed(sols)
    grid, st, stop = state[0], state[6], state[15]
    pst = scratch[9]
    exact = track == TRACK_TOUCHED
    nodes0 = st[ST_NODES]
    while True:
        if st[ST_NODES] - nodes0 >= max_nodes:
            return PAUSED
        if stop[0] != 0:
            return STOPPED
        node_start = st[ST_TLEN]
        if exact and st[ST_DEPTH] > 0:
            # the node's changes start with its decision (or flipped branch), already assigned:
            # its row and column changed even when propagation fixes nothing else in them
            node_start = frames[st[ST_DEPTH] - 1, 1]
        ok = propagate(problem, state)
        if ok:
            stamp_lines(problem, state, scratch, node_start)
        if ok and probing:
            fixed = probe_tracked(problem, state, scratch, track)
            if fixed == PROBE_STOPPED:
                return STOPPED
            ok = fixed >= 0
        if ok:
            if st[ST_DEPTH] == 0:
                st[ST_ROOT_TLEN] = st[ST_TLEN]
            if probing:
                cell, value = best_branch(problem, state, scratch, branch_mode)
            else:
                cell, value = simple_branch(problem, state)
            if cell < 0:
                k = st[ST_NSOL]
                sols[k, :] = grid
                st[ST_NSOL] = k + 1
                if k + 1 >= st[ST_LIMIT]:
                    return FINISHED
            else:
                d = st[ST_DEPTH]
                frames[d, 0] = cell
                frames[d, 1] = st[ST_TLEN]
                frames[d, 2] = value
                frames[d, 3] = 0
                frames[d, 4] = st[ST_EVENT]
                frames[d, 5] = pst[1]
                if exact:
                    pst[2] += 1
                    pst[0] = pst[2]
                st[ST_DEPTH] = d + 1
                if d + 1 > st[ST_MAX_DEPTH]:
                    st[ST_MAX_DEPTH] = d + 1
                st[ST_NODES] += 1
                assign(problem, state, cell, value, KIND_DECISION, d, -1)
                continue
        # backtrack: flip the deepest decision whose second value is untried (a backtrack is
        # counted for each flip: nonosat.analysis.classify, "Counting guesses and backtracks")
        clear_queue(state)
        while True:
            d = st[ST_DEPTH]
            if d == 0:
                st[ST_EXHAUSTED] = 1
                return FINISHED
            top = d - 1
            undo_to(state, frames[top, 1])
            if exact:
                restore_stamps(state, scratch, frames[top, 5], frames[top, 4])
            if frames[top, 3] == 0:
                frames[top, 3] = 1
                st[ST_BACKTRACKS] += 1
                if exact:
                    pst[2] += 1
                    pst[0] = pst[2]
                assign(problem, state, frames[top, 0], 3 - frames[top, 2], KIND_BRANCH, top, -1)
                break
            st[ST_DEPTH] = top
            if top == 0:
                pst[0] = 0


@dataclass
class SearchOutcome:
    """Result of :meth:`NativeSearch.run`: solutions (bool arrays), whether the search finished
    (limit reached or space exhausted), the statistics and the root deduction trace."""

    solutions: list[np.ndarray]
    finished: bool
    stats: dict[str, int | float]
    trace: Trace


class NativeSearch(Stepper):
    """The native solver on one puzzle: propagation, probing and fork search, resumable.

    A :class:`~nonosat.native.stepping.Stepper` (its state, trail, line cache and probing
    scratch; its stages can be stepped before or between searches) with the compiled search on
    top: :meth:`step` runs it for a budget of decisions, :meth:`run` until it finishes or a time
    limit.

    Parameters
    ----------
    puzzle : Puzzle
    partial : ndarray of int8, shape (height, width), optional
        Grid state whose known cells are given.
    limit : int
        Stop after this many solutions.
    probing : bool
        Probe at every node (default).  Without it the search is propagation + fork only.
    branch_mode : int
        Branching rule (:func:`nonosat.native.probe.best_branch`).  The default 2 branches on the cell
        with the largest ``(nf + 1) * (ne + 1)`` and tries the value that fixes fewer cells first;
        measured on 100 taai2011 puzzles (every 10th, limit 2): 58 s CPU and 6 unfinished within
        30 s, against 146 s and 12 for trying the value that fixes more cells first (mode 0).
        nonosolve's rule (LalaFrogKK score, empty first: mode 12) and the other bits decided fewer
        of 100 taai2011 puzzles within 32,000 probes (58 against 66 with exact tracking).
    track : int
        Probing's change tracking (``TRACK_*`` of :mod:`nonosat.native.probe`).  The default
        :data:`~nonosat.native.probe.TRACK_LINES` re-probes a cell when its own row or column
        changed; :data:`~nonosat.native.probe.TRACK_TOUCHED` (nonosolve's rule, exact: every node
        at the probing fixpoint) re-probes more per node and saved too few nodes to pay: probes to
        decide, 100 puzzles each, uniqueness, same puzzles finished by both: taai2011 0.93M
        against 0.86M, tcga2016 0.85M against 0.69M (more on 50 of 70 and 60 of 71 puzzles);
        decided within 16,000 probes 40 against 52 and 47 against 59.
    stop : StopToken, optional
        A token (:mod:`nonosat.stop`) whose flag the compiled search reads at every node and
        before every probe: once it is set, :meth:`step` returns within one probe, unfinished,
        and :attr:`stopped` is true.  ``None``: a flag nobody sets.

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> out = NativeSearch(Puzzle([(1,), (1,)], [(1,), (1,)]), limit=3).run()
    >>> len(out.solutions), out.finished
    (2, True)
    """

    def __init__(
        self,
        puzzle: Puzzle,
        partial: np.ndarray | None = None,
        limit: int = 2,
        probing: bool = True,
        branch_mode: int = 2,
        track: int = TRACK_LINES,
        stop: StopToken | None = None,
    ):
        self._stop_flag = np.zeros(1, dtype=np.int64) if stop is None else stop.flag
        self._stopped = False
        self.branch_mode = branch_mode
        self.limit = limit
        self.probing = probing
        h, w = puzzle.shape
        cache = _take_line_cache()
        # the exact rule's touched sets and stamp log (up to h*w*(h+w) rows, mapped lazily) only
        # when asked for: on a large grid they would be the biggest arrays of the search
        super().__init__(puzzle, cache=cache, stop=self._stop_flag, track=track)
        weakref.finalize(self, _give_line_cache, cache)
        self._state = self.state  # the name tests and older callers read
        self._frames = np.zeros((h * w + 1, 6), dtype=np.int64)
        self._sols = np.zeros((limit, h * w), dtype=np.int8)
        self.state[6][ST_LIMIT] = limit
        if partial is not None:
            self._apply_partial(np.asarray(partial, dtype=np.int8))
        self._finished = False
        self.time_s = 0.0

    def _apply_partial(self, partial: np.ndarray) -> None:
        if partial.shape != self.puzzle.shape:
            from nonosat.errors import PuzzleError

            raise PuzzleError(
                f"partial grid is {partial.shape[1]}x{partial.shape[0]} but the puzzle is "
                f"{self.puzzle.width}x{self.puzzle.height}"
            )
        self.give(partial)

    def step(self, max_nodes: int) -> bool:
        """Run up to ``max_nodes`` decisions; ``True`` once the search has finished.  A set stop
        token ends the call early (within one probe), unfinished, with :attr:`stopped` true.

        Raises
        ------
        nonosat.interrupts.Interrupted
            An interrupt was requested (checked when the compiled call returns).
        """
        if self._finished:
            return True
        t0 = time.perf_counter()
        code = search_kernel(
            self.problem, self.state, self.scratch, self._frames, self._sols,
            max_nodes, self.probing, self.branch_mode, self.track,
        )
        self.time_s += time.perf_counter() - t0
        self._finished = code == FINISHED
        self._stopped = code == STOPPED
        interrupts.check()  # between slices: an interrupted search is no verdict
        return self._finished

    @property
    def stopped(self) -> bool:
        """Whether the last :meth:`step` was ended by the stop token (the search is unfinished:
        no verdict)."""
        return self._stopped

    def run_probes(self, max_probes: int, timeout: float | None = None) -> bool:
        """Search until finished or about ``max_probes`` probes have been made (counted over the
        whole search; the budget is checked between small batches of decisions, so it may be
        overrun by a few nodes), or ``timeout`` seconds have passed.  Returns :attr:`finished`.
        """
        deadline = None if timeout is None else time.perf_counter() + timeout
        st = self.state[6]
        chunk = 1
        while not self.step(chunk):
            if self._stopped or st[ST_PROBES] >= max_probes:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            chunk = min(chunk * 2, 16)
        return self._finished

    def run(self, timeout: float | None = None, slice_s: float = 0.02) -> SearchOutcome:
        """Search until finished or ``timeout`` seconds have passed.

        The compiled loop runs in slices: the number of decisions per call adapts so that a call
        lasts about ``slice_s`` seconds (one decision with probing can take long on a large,
        open grid), and the clock is checked between calls.  The overrun past ``timeout`` is
        therefore about one slice, or one search node when a single node takes longer, unless
        the search's stop token is armed with the same time limit (as the engines do): that
        stops it within one probe.  A set stop token ends the run (unfinished).
        """
        deadline = None if timeout is None else time.perf_counter() + timeout
        chunk = 1
        while True:
            t0 = time.perf_counter()
            if self.step(chunk) or self._stopped:
                break
            took = time.perf_counter() - t0
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if took < slice_s / 2:
                chunk = min(chunk * 2, 1 << 20)
            elif took > slice_s * 2 and chunk > 1:
                chunk = max(chunk // 2, 1)
        return self.outcome()

    @property
    def finished(self) -> bool:
        """Whether the search reached its limit or exhausted the space."""
        return self._finished

    def partial_grid(self) -> np.ndarray:
        """The current grid state (int8, shape (height, width)); after the root node, the cells
        every solution shares."""
        return self.grid()

    def root_grid(self) -> np.ndarray:
        """Grid state after the root node's propagation and probing (int8, (height, width))."""
        grid = np.full(self.puzzle.height * self.puzzle.width, Cell.UNKNOWN, dtype=np.int8)
        root = self.deductions(0, max(self.root_length, 0))
        grid[root.cells] = root.values  # root deductions are never undone
        return grid.reshape(self.puzzle.shape)

    def root_implications(self, limit: int = 200_000) -> list[tuple[tuple[int, int, bool], ...]]:
        """Binary implications between cell literals at the root grid, found by probing.

        Returns up to ``limit`` pairs ``((r1, c1, filled1), (r2, c2, filled2))`` meaning "if cell
        (r1, c1) is filled1 then cell (r2, c2) is filled2" (``filled`` True = filled).  They hold
        in every solution; :meth:`root_implication_literals` gives the same pairs as an array.
        """
        w = self.puzzle.width
        codes = self._root_implication_codes(limit).tolist()
        return [((a // 2 // w, a // 2 % w, bool(a & 1)), (b // 2 // w, b // 2 % w, bool(b & 1)))
                for a, b in codes]

    def root_implication_literals(self, limit: int = 200_000) -> np.ndarray:
        """The implications of :meth:`root_implications`, in the same order, as DIMACS literals
        of the cell variables (cell ``(r, c)`` is variable ``r * width + c + 1``, positive =
        filled): an int64 array of shape ``(m, 2)``, row ``(a, b)`` meaning ``a -> b`` (the
        binary clause ``-a | b``).  The portfolio hands them to SAT in this form.
        """
        codes = self._root_implication_codes(limit).astype(np.int64)
        return (codes // 2 + 1) * (2 * (codes & 1) - 1)

    def _root_implication_codes(self, limit: int) -> np.ndarray:
        """Implications probing finds at the root grid (:func:`collect_implications`): int32
        array ``(m, 2)`` of literal codes ``2 * cell + filled``, ``m <= limit``."""
        root = Stepper(self.puzzle, self.root_grid(), cache=self.cache, stop=self._stop_flag)
        if root.propagate() is None:
            return np.zeros((0, 2), dtype=np.int32)
        return root.implications(limit)

    def trace(self) -> Trace:
        """The root node's deductions in order (see :class:`Trace`; its :class:`Deduction`
        objects are built when first read)."""
        h, w = self.puzzle.shape
        root = self.root_length
        contradiction = root < 0 and self._finished
        found = self.deductions(0, max(root, 0))  # root deductions are never undone
        return Trace(complete=root == h * w, contradiction=contradiction, root=found)

    def stats(self) -> dict[str, int | float]:
        """Counters: line solves, decisions (``guesses``), maximum depth, conflicts,
        ``backtracks`` (a decided cell's other value tried; ``backtracks <= guesses``, both 0
        without search: :mod:`nonosat.analysis.classify`, "Counting guesses and backtracks"),
        probes, probe fixes, solve time."""
        st = self.state[6]
        return {
            "line_solves": int(st[ST_LINE_SOLVES]),
            "line_cache_hits": int(st[ST_CACHE_HITS]),
            "guesses": int(st[ST_NODES]),
            "max_depth": int(st[ST_MAX_DEPTH]),
            "conflicts": int(st[ST_CONFLICTS]),
            "backtracks": int(st[ST_BACKTRACKS]),
            "probes": int(st[ST_PROBES]),
            "probe_fixes": int(st[ST_PROBE_FIXES]),
            "root_known": int(max(st[ST_ROOT_TLEN], 0)),
            "kernel_s": round(self.time_s, 6),
        }

    def solutions(self) -> list[np.ndarray]:
        """Solutions found so far (bool arrays, shape (height, width))."""
        n = int(self.state[6][ST_NSOL])
        return [(self._sols[k] == Cell.FILLED).reshape(self.puzzle.shape) for k in range(n)]

    def outcome(self) -> SearchOutcome:
        """The current :class:`SearchOutcome`."""
        return SearchOutcome(self.solutions(), self._finished, self.stats(), self.trace())


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
