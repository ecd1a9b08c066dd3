"""Stepping the native solver: one stage at a time, with the deductions each made.

:class:`Stepper` owns one solver state of a black-and-white puzzle -- the grid, the trail (the
undo log with every assignment's reason), the work queue, the line cache
(:mod:`nonosat.native.propagate`) and the probing scratch (:mod:`nonosat.native.probe`) -- and
offers the native solver's stages as calls that return data:

* :meth:`Stepper.propagate` -- line propagation to a fixpoint: the cells it fixed and the line
  that fixed each (:class:`Deductions`), or ``None`` on a contradiction;
* :meth:`Stepper.probe` -- failed-literal probing to its fixpoint, in place (the deductions with
  their reasons); :meth:`Stepper.probe_round` -- one probing pass from the same state, nothing
  applied (:class:`ProbeRound`: the failed literals, the cells both values of a probe agree on);
* :meth:`Stepper.assume` / :meth:`Stepper.undo` -- assign a cell (a decision, a branch, a
  given) and roll back to a checkpoint (a trail length, :attr:`Stepper.checkpoint`);
  :meth:`Stepper.load` starts again from another grid on the same arrays and line cache;
  :meth:`Stepper.what_if` -- assume cells, propagate, undo in one call: the cells left open;
* :meth:`Stepper.best_branch` -- the branching rule of the search;
  :meth:`Stepper.implications` -- the binary implications probing finds;
  :meth:`Stepper.stamp` -- a new probing event, as the compiled search starts each node;
* the search: :class:`nonosat.native.search.NativeSearch` *is* a :class:`Stepper` with the
  compiled fork search on top (:meth:`~nonosat.native.search.NativeSearch.step`: a budget of
  decisions at a time, counting solutions up to a limit), so a caller can step the stages and
  then search on from the state they left.

The native solver's driver (:class:`~nonosat.native.search.NativeSearch`) and the analysis
(:mod:`nonosat.analysis.logic`, :mod:`nonosat.analysis.fork`, :mod:`nonosat.analysis.staged`,
:mod:`nonosat.analysis.backdoor`, :mod:`nonosat.analysis.steps`) drive the solver through this
class only: the kernels, the state tuples and their layout stay inside :mod:`nonosat.native`.
A new line-solving technique goes into the stage modules (:mod:`nonosat.native.line`,
:mod:`nonosat.native.propagate`, :mod:`nonosat.native.probe`) and is offered here as one more
call.

Nothing here prints; every call is one compiled kernel call (or a few numpy operations), so a
Python loop over stages costs what calling the kernels directly did.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.probe import (
    PROBE_STOPPED,
    TRACK_LINES,
    TRACK_TOUCHED,
    best_branch,
    collect_implications,
    new_probe_scratch,
    probe_tracked,
)
from nonosat.native.propagate import (
    KIND_BRANCH,
    KIND_DECISION,
    KIND_FAILED_LITERAL,
    KIND_GIVEN,
    KIND_LINE,
    KIND_NAMES,
    KIND_PROBE_BOTH,
    ST_DEPTH,
    ST_EVENT,
    ST_EXHAUSTED,
    ST_NSOL,
    ST_QCOUNT,
    ST_QHEAD,
    ST_ROOT_TLEN,
    ST_TLEN,
    assign,
    clear_queue,
    give_cells,
    mark_changed,
    new_state,
    problem_tuple,
    propagate,
    sync_line_masks,
    undo_to,
)
from nonosat.puzzle import Cell, Puzzle, pack_clues, unknown_grid

__all__ = ["KIND_BRANCH", "KIND_DECISION", "KIND_FAILED_LITERAL", "KIND_GIVEN", "KIND_LINE",
           "KIND_NAMES", "KIND_PROBE_BOTH", "TRACK_LINES", "TRACK_TOUCHED", "Deductions",
           "ProbeRound", "Stepper", "probe_round_kernel", "what_if_kernel"]


@dataclass(frozen=True)
class Deductions:
    """Cells a stage fixed, in the order it fixed them (a slice of the trail).

    Attributes
    ----------
    cells : ndarray of int32, shape (m,)
        Flat cell indices (``row * width + column``).
    values : ndarray of int8, shape (m,)
        ``Cell.EMPTY`` (1) or ``Cell.FILLED`` (2).
    kinds : ndarray of int8, shape (m,)
        Why each was fixed: the ``KIND_*`` constants of :mod:`nonosat.native.propagate`
        (names in :data:`KIND_NAMES`: ``"line"``, ``"decision"``, ``"failed-literal"``,
        ``"probe-both"``, ``"branch"``, ``"given"``).
    args : ndarray of int32, shape (m,)
        The reason's argument: the line solved for ``"line"`` (rows first, then columns), the
        probed cell (flat) for ``"failed-literal"``/``"probe-both"``, the depth of a decision
        or branch, -1 for a given.
    width : int
        The grid's width (to turn flat indices into ``(row, column)``).
    """

    cells: np.ndarray
    values: np.ndarray
    kinds: np.ndarray
    args: np.ndarray
    width: int

    def __len__(self) -> int:
        return int(self.cells.shape[0])

    def by_line(self) -> list[tuple[tuple[int, int], Cell, int]]:
        """The deductions as ``((row, column), value, arg)`` tuples, in order (for line
        deductions ``arg`` is the line)."""
        w = self.width
        return [(divmod(c, w), Cell(v), a) for c, v, a in
                zip(self.cells.tolist(), self.values.tolist(), self.args.tolist(), strict=True)]


@dataclass(frozen=True)
class ProbeRound:
    """One probing pass from one state (:meth:`Stepper.probe_round`); nothing applied.

    Attributes
    ----------
    cells : ndarray of int32, shape (m,)
        The cells probed (flat, ascending).
    status : ndarray of int8, shape (m,)
        Per probed cell: bit 1 when ``filled`` propagates to a contradiction, bit 2 when
        ``empty`` does (a failed literal: the other value is forced).
    both : ndarray of int32, shape (k, 3)
        ``(probed cell, cell, value)`` for every cell both values of a probe fix to the same
        value, each cell once, in probing order (collected only until the first failed literal).
    """

    cells: np.ndarray
    status: np.ndarray
    both: np.ndarray
    stopped: bool = False


@njit(cache=True, nogil=True)
def probe_round_kernel(problem, state, cells, status, both):  # pragma: no cover - compiled
    """Probe both values of each cell of ``cells`` from the same state (at a fixpoint).

    Parameters
    ----------
    problem, state : tuples
        See :mod:`nonosat.native.propagate`; the state is restored after every probe.
    cells : ndarray of int32, shape (m,)
        Unknown cells to probe.
    status : ndarray of int8, shape (m,)
        Receives bit 1 when ``filled`` fails, bit 2 when ``empty`` fails.
    both : ndarray of int32, shape (h*w, 3)
        Receives ``(probed cell, cell, value)`` for every cell both branches of a probe fix to
        the same value (each cell once; collected only while no failed literal has been seen).

    Returns
    -------
    int
        Rows of ``both`` written, ``-1`` when both values of a cell fail, or ``-2`` when the
        state's stop flag (``state[15]``) was set (read before each cell).
    """
    grid, trail, st, stop = state[0], state[1], state[6], state[15]
    n = grid.shape[0]
    mark = np.zeros(n, np.int8)
    fcells = np.zeros(n, np.int32)
    claimed = np.zeros(n, np.bool_)
    nboth = 0
    nfail = 0
    for i in range(cells.shape[0]):
        if stop[0] != 0:
            return -2
        cell = cells[i]
        base = st[ST_TLEN]
        assign(problem, state, cell, 2, KIND_DECISION, -1, -1)
        ok_f = propagate(problem, state)
        end_f = st[ST_TLEN]
        nf = end_f - base - 1 if ok_f else 0
        for k in range(nf):
            fcells[k] = trail[base + 1 + k]
            mark[fcells[k]] = grid[fcells[k]]
        undo_to(state, base)
        assign(problem, state, cell, 1, KIND_DECISION, -1, -1)
        ok_e = propagate(problem, state)
        if ok_f and ok_e and nfail == 0:
            for t in range(base + 1, st[ST_TLEN]):
                c = trail[t]
                if mark[c] == grid[c] and not claimed[c]:
                    claimed[c] = True
                    both[nboth, 0] = cell
                    both[nboth, 1] = c
                    both[nboth, 2] = grid[c]
                    nboth += 1
        undo_to(state, base)
        for k in range(nf):
            mark[fcells[k]] = 0
        status[i] = (0 if ok_f else 1) | (0 if ok_e else 2)
        if status[i] == 3:
            return -1
        if status[i] != 0:
            nfail += 1
    return nboth


@njit(cache=True, nogil=True)
def _assume_all(problem, state, cells, values, kind, arg):  # pragma: no cover - compiled
    """Assign ``values[i]`` to each still unknown ``cells[i]`` with reason ``(kind, arg)``."""
    grid = state[0]
    for i in range(cells.shape[0]):
        if grid[cells[i]] == 3:
            assign(problem, state, cells[i], values[i], kind, arg, -1)


@njit(cache=True, nogil=True)
def what_if_kernel(problem, state, cells, values, out):  # pragma: no cover - compiled
    """Assign ``values`` to the unknown ``cells`` (flat indices; decisions), propagate, write
    the flat indices of the cells left unknown into ``out`` and undo to the trail length the
    call began with.  Returns their number, ``-1`` on a contradiction."""
    grid, st = state[0], state[6]
    tlen = st[ST_TLEN]
    for i in range(cells.shape[0]):
        if grid[cells[i]] == 3:
            assign(problem, state, cells[i], values[i], KIND_DECISION, 0, -1)
    count = -1
    if propagate(problem, state):
        count = 0
        for k in range(grid.shape[0]):
            if grid[k] == 3:
                out[count] = k
                count += 1
    else:
        clear_queue(state)
    undo_to(state, tlen)
    return count


@njit(cache=True, nogil=True)
def _undo(state, tlen):  # pragma: no cover - compiled
    """Empty the work queue and undo the trail to ``tlen``."""
    clear_queue(state)
    undo_to(state, tlen)


class Stepper:
    """One black-and-white puzzle's native solver state, stepped one stage at a time.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white.
    grid : ndarray of int8, shape (height, width), optional
        The starting state (``Cell`` values); nothing known when omitted.  Copied.  Its known
        cells are the state, not trail entries (:meth:`give` puts givens on the trail).
    cache : ndarray, optional
        A line cache to share (:func:`nonosat.native.propagate.new_line_cache`; valid for any
        state of the same clues); a new one by default.
    stop : ndarray of int64, shape (1,), optional
        The stop flag the compiled loops read (:attr:`nonosat.stop.StopToken.flag`).
    track : int
        The change tracking of the search's probing (``TRACK_*`` of
        :mod:`nonosat.native.probe`): :data:`~nonosat.native.probe.TRACK_TOUCHED` sizes the
        scratch for the exact rule.

    Notes
    -----
    Every stage runs on the one state, so the line cache and the probing scores carry over from
    call to call.  A checkpoint is a trail length: :attr:`checkpoint` before a change,
    :meth:`undo` back to it.  The arrays behind the state (:attr:`state`, :attr:`problem`,
    :attr:`scratch`) are the kernels' (:mod:`nonosat.native.propagate`); callers outside
    :mod:`nonosat.native` use the methods.

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> s = Stepper(Puzzle([(2,), (1,)], [(2,), (1,)]))
    >>> len(s.propagate()), s.open_cells().tolist()
    (4, [])
    """

    def __init__(self, puzzle: Puzzle, grid: np.ndarray | None = None, *,
                 cache: np.ndarray | None = None, stop: np.ndarray | None = None,
                 track: int = TRACK_LINES) -> None:
        if puzzle.is_colour:
            raise ValueError("the native stepper is black-and-white; colour puzzles use "
                             "nonosat.native.colour")
        self.puzzle = puzzle
        self.shape = puzzle.shape
        h, w = puzzle.shape
        self.width = w
        packed = pack_clues(puzzle)
        start = unknown_grid(puzzle) if grid is None else self._checked(grid)
        #: the kernels' ``problem`` tuple (:mod:`nonosat.native.propagate`)
        self.problem = problem_tuple(packed)
        #: the kernels' ``state`` tuple (:mod:`nonosat.native.propagate`)
        self.state = new_state(packed, start, cache=cache, stop=stop)
        #: probing scratch (:func:`nonosat.native.probe.new_probe_scratch`)
        self.scratch = new_probe_scratch(h * w, h + w if track == TRACK_TOUCHED else 0)
        self.track = track
        self._stamped = 0  # trail length up to which probing's line stamps are set

    def _checked(self, grid: np.ndarray) -> np.ndarray:
        g = np.asarray(grid, dtype=np.int8)
        if g.shape != self.shape:
            from nonosat.errors import PuzzleError

            raise PuzzleError(f"grid is {g.shape[1]}x{g.shape[0]} but the puzzle is "
                              f"{self.shape[1]}x{self.shape[0]}")
        return g

    # -- reading -----------------------------------------------------------------------------
    @property
    def cache(self) -> np.ndarray:
        """The line cache (to share with another stepper of the same puzzle)."""
        return self.state[10]

    @property
    def checkpoint(self) -> int:
        """The trail length now: :meth:`undo` to it retracts every later change."""
        return int(self.state[6][ST_TLEN])

    @property
    def flat(self) -> np.ndarray:
        """The grid as the kernels hold it (int8, shape (height * width,), row-major): a view,
        read only by convention."""
        return self.state[0]

    def grid(self) -> np.ndarray:
        """The grid state (int8 ``Cell`` values, shape (height, width)), a copy."""
        return self.state[0].reshape(self.shape).copy()

    def open_cells(self) -> np.ndarray:
        """Flat indices of the unknown cells, ascending (int64, shape (k,))."""
        return np.flatnonzero(self.state[0] == Cell.UNKNOWN)

    def deductions(self, since: int = 0, end: int | None = None) -> Deductions:
        """The trail from position ``since`` to ``end`` (now when omitted) as
        :class:`Deductions`, with the cells' current values."""
        trail, tkind, targ = self.state[1], self.state[2], self.state[3]
        stop = self.checkpoint if end is None else end
        cells = trail[since:stop].copy()
        return Deductions(cells, self.state[0][cells], tkind[since:stop].copy(),
                          targ[since:stop].copy(), self.width)

    def counters(self) -> np.ndarray:
        """The solver's scalar counters (int64, indexed by the ``ST_*`` constants of
        :mod:`nonosat.native.propagate`), a copy."""
        return self.state[6].copy()

    @property
    def root_length(self) -> int:
        """Trail length when the search's root node was complete (-1 before)."""
        return int(self.state[6][ST_ROOT_TLEN])

    # -- changing the state --------------------------------------------------------------------
    def load(self, grid: np.ndarray) -> None:
        """Start again from ``grid`` (int8, shape (height, width)) on the same arrays and line
        cache: the trail emptied, every line queued (as a new state), probing scores and line
        stamps forgotten, the search reset.  The counters (line solves, cache hits) go on."""
        flat, st = self.state[0], self.state[6]
        flat[:] = self._checked(grid).reshape(-1)
        n_lines = self.state[4].shape[0]
        self.state[4][:] = np.arange(n_lines, dtype=np.int32)
        self.state[5][:] = True
        st[ST_TLEN] = 0
        st[ST_QHEAD] = 0
        st[ST_QCOUNT] = n_lines
        st[ST_ROOT_TLEN] = -1
        st[ST_DEPTH] = st[ST_NSOL] = st[ST_EXHAUSTED] = 0
        self.state[9][:] = 0
        self.scratch[1][:] = -1
        self._stamped = 0
        sync_line_masks(self.state)

    def give(self, partial: np.ndarray) -> int:
        """Put the known cells of ``partial`` (int8, shape (height, width)) on the trail as
        givens (``"given"``, before any other assignment); returns how many.

        Raises
        ------
        nonosat.errors.PuzzleError
            ``partial`` has another shape than the puzzle.
        """
        return give_cells(self.state, self._checked(partial).reshape(-1))

    def assume(self, cell: int, value: int, kind: int = KIND_DECISION, arg: int = -1) -> int:
        """Assign ``value`` (``Cell.EMPTY``/``Cell.FILLED``) to the unknown flat ``cell`` with
        the reason ``(kind, arg)`` (a decision by default) and queue its lines; returns the
        checkpoint before it (:meth:`undo` to it retracts the assumption and what followed)."""
        before = self.checkpoint
        _assume_all(self.problem, self.state, np.array([cell], dtype=np.int64),
                    np.array([value], dtype=np.int8), kind, arg)
        return before

    def assume_all(self, cells: np.ndarray, values: np.ndarray, kind: int = KIND_DECISION,
                   arg: int = -1) -> int:
        """:meth:`assume` for every still unknown cell of ``cells`` (flat, int64, shape (k,))
        with ``values`` (int8, shape (k,)), in one compiled call; returns the checkpoint before
        them."""
        before = self.checkpoint
        _assume_all(self.problem, self.state, cells, values, kind, arg)
        return before

    def undo(self, checkpoint: int, forget_probes: bool = True) -> None:
        """Roll back to ``checkpoint`` (a trail length): the cells assigned since are unknown
        again and the queue is emptied.  With ``forget_probes`` (default) probing forgets its
        results, which may rest on what was retracted, so that the next :meth:`probe` tries
        every cell again."""
        _undo(self.state, checkpoint)
        if forget_probes:
            self.scratch[1][:] = -1
        self._stamped = min(self._stamped, checkpoint)

    def stamp(self, since: int) -> None:
        """Start a new probing event and mark the lines of the cells assigned from checkpoint
        ``since`` on as changed in it (:func:`nonosat.native.propagate.mark_changed`), even when
        none were: what the compiled search does after each node's propagation.  A following
        ``probe(since=self.checkpoint)`` then stamps nothing more, and :meth:`last_probed`
        after it sees only the cells probed in the new event."""
        mark_changed(self.problem, self.state, since)
        self._stamped = max(self._stamped, self.checkpoint)

    def what_if(self, cells: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        """The cells line propagation leaves unknown with the unknown flat ``cells`` (int64,
        shape (k,)) set to ``values`` (int8, shape (k,)), the state restored afterwards, in one
        compiled call (:func:`what_if_kernel`; the state at a propagation fixpoint, so that only
        the lines of ``cells`` need solving): flat indices, ascending (int64), or ``None`` on a
        contradiction."""
        out = np.empty(self.state[0].shape[0], dtype=np.int64)
        n = what_if_kernel(self.problem, self.state, cells, values, out)
        return None if n < 0 else out[:n]

    # -- the stages ----------------------------------------------------------------------------
    def propagate(self) -> Deductions | None:
        """Line propagation over the queued lines to a fixpoint
        (:func:`nonosat.native.propagate.propagate`).

        Returns
        -------
        Deductions or None
            The cells fixed, each with the line that fixed it (``kinds`` all ``"line"``,
            ``args`` the lines); ``None`` on a contradiction (the queue is emptied, the cells
            fixed before it stay: :meth:`undo` retracts them).
        """
        before = self.checkpoint
        if not propagate(self.problem, self.state):
            return None
        return self.deductions(before)

    def probe(self, since: int | None = None) -> Deductions | None:
        """Failed-literal probing to its fixpoint, in place (:func:`nonosat.native.probe.probe`'s
        rule, run by :func:`~nonosat.native.probe.probe_tracked` with
        :data:`~nonosat.native.probe.TRACK_LINES`, which gives the same deductions and reads
        the stop flag): every unknown cell whose row or column changed since it was last probed
        is tried with both values; a failed literal fixes the other value, the cells both
        values agree on are fixed (``"probe-both"``).  The state should be at a propagation
        fixpoint.

        Parameters
        ----------
        since : int, optional
            The lines of the cells assigned from this checkpoint on count as changed for
            probing's tracking; by default those assigned since the last :meth:`probe` (or
            :meth:`undo` below it), which includes a decision and its propagation.

        Returns
        -------
        Deductions or None
            The cells fixed (``kinds`` ``"failed-literal"``, ``"probe-both"`` or ``"line"``,
            with the probed cell or the line); ``None`` when both values of some cell fail.

        Raises
        ------
        nonosat.stop.Stopped
            The stop flag was set (read before each probe): probing ended between two probes,
            short of its fixpoint.  The cells it fixed stay (valid deductions, at a propagation
            fixpoint; :meth:`deductions` from the checkpoint before the call gives them).
        """
        before = self.checkpoint
        stamp_from = self._stamped if since is None else since
        if before > stamp_from:  # the lines changed since, for probing's tracking
            mark_changed(self.problem, self.state, stamp_from)
        fixed = probe_tracked(self.problem, self.state, self.scratch, TRACK_LINES)
        self._stamped = self.checkpoint
        if fixed == PROBE_STOPPED:
            from nonosat.stop import Stopped

            raise Stopped(f"probing stopped ({len(self.deductions(before))} cells fixed)")
        if fixed < 0:
            return None
        return self.deductions(before)

    def probe_round(self, cells: np.ndarray | None = None) -> ProbeRound | None:
        """One probing pass, every probe from the current state (at a propagation fixpoint),
        nothing applied (:func:`probe_round_kernel`).

        Parameters
        ----------
        cells : ndarray of int32, shape (m,), optional
            The cells to probe (unknown); every unknown cell when omitted.

        Returns
        -------
        ProbeRound or None
            ``None`` when both values of some cell fail (no solution from this state); a set
            stop flag (read before each cell) ends it with :attr:`ProbeRound.stopped`.
        """
        todo = (self.open_cells() if cells is None else np.asarray(cells)).astype(np.int32)
        status = np.zeros(todo.shape[0], dtype=np.int8)
        both = np.zeros((self.state[0].shape[0], 3), dtype=np.int32)
        nboth = probe_round_kernel(self.problem, self.state, todo, status, both)
        if nboth == -2:
            empty = np.zeros(0, dtype=np.int32)
            return ProbeRound(empty, np.zeros(0, dtype=np.int8), both[:0], stopped=True)
        if nboth < 0:
            return None
        return ProbeRound(todo, status, both[:nboth])

    def last_probed(self) -> np.ndarray:
        """Flat indices of the unknown cells probed since the last change probing made
        (int64, ascending): after :meth:`probe` returned ``None``, the cells among which both
        values of one failed."""
        ev = self.state[6][ST_EVENT]
        return np.flatnonzero((self.scratch[1] == ev) & (self.state[0] == Cell.UNKNOWN))

    def best_branch(self, mode: int = 0) -> tuple[int, int]:
        """The unknown cell to branch on from the probing scores of :meth:`probe`, and the
        value to try first (:func:`nonosat.native.probe.best_branch`; ``mode`` its rule);
        ``(-1, 0)`` when every cell is known."""
        cell, value = best_branch(self.problem, self.state, self.scratch, mode)
        return int(cell), int(value)

    def implications(self, limit: int) -> np.ndarray:
        """Binary implications probing finds from the current state (at a propagation
        fixpoint; :func:`nonosat.native.probe.collect_implications`): int32 array of shape
        ``(m, 2)``, ``m <= limit``, rows of literal codes ``2 * cell + filled``, ``a -> b``.
        A set stop flag ends it early (the rows written hold)."""
        pairs = np.zeros((limit, 2), dtype=np.int32)
        n = collect_implications(self.problem, self.state, pairs)
        return pairs[:n]


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
