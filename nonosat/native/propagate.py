"""Propagation: run the line solver on changed lines until nothing changes or a line contradicts.

The native solver keeps its whole state in numpy arrays so that propagation, probing and search
all run compiled (numba).  Two tuples travel through every kernel:

``problem = (blocks, start, known, dims)``
    The packed clues (:func:`nonosat.puzzle.pack_clues`) and ``dims = [height, width]``.

``state = (grid, trail, tkind, targ, queue, inq, st, linebuf, outbuf, changed_at, cache,
lf, le, ldims, starts, stop, wscratch)``
    ``grid`` (int8, h*w, row-major) holds cell bit sets; ``trail`` (int32) lists the cells assigned
    so far in order, with ``tkind``/``targ`` saying why (see the ``KIND_*`` constants); ``queue``
    (int32, h+w) is the FIFO work queue of lines to solve with ``inq`` flags; ``st`` (int64) holds
    the scalar counters indexed by the ``ST_*`` constants; ``linebuf``/``outbuf`` are scratch
    lines; ``changed_at`` (int64, h+w) is the event number of each line's last change (probing
    uses it to skip cells whose lines have not changed); ``cache`` is the line cache; ``lf``/``le``
    (int64, h+w) are the known-filled / known-empty cells of every line as bit masks (bit ``i``:
    cell ``i`` of the line), kept for the lines of at most :data:`~nonosat.native.line.BITS_MAX_LINE`
    cells only (rows when ``w <= 62``, columns when ``h <= 62``; 0 for the others); ``ldims``
    (int64) is ``[h, w]``; ``starts`` (int64) is the bit-parallel line solver's scratch;
    ``stop`` (int64, shape (1,)) is a stop flag (:attr:`nonosat.stop.StopToken.flag`): the search
    and probing loops return early once ``stop[0] != 0`` (see :mod:`nonosat.native.search`);
    ``wscratch`` (int64, 2-D) is the multi-word line solver's scratch
    (:func:`nonosat.native.line.words_scratch`) for the lines longer than
    :data:`~nonosat.native.line.BITS_MAX_LINE` cells.

**Line masks.**  :func:`assign` and :func:`undo_to` update ``lf``/``le`` with the grid, so
propagation reads a line's state as two words and hands them to the bit-parallel solver
(:func:`nonosat.native.line.line_masks`) and to the line cache without copying the line; the
forced cells are the set bits of the solved masks minus the known ones.  Longer lines are
copied into ``linebuf`` and solved by the multi-word form of the bit-parallel solver
(:func:`nonosat.native.line.line_kernel_words`), without the line cache.  Code that writes ``grid`` other
than through :func:`assign`/:func:`undo_to` must call :func:`sync_line_masks` afterwards.

**Line cache.**  Probing and search solve the same line in the same state over and over (and
tournament puzzles repeat line states often), so results for lines of at most
:data:`CACHE_MAX_LINE` cells are memoised in a hash table keyed by ``(line, known-filled mask,
known-empty mask)``, whose value is the solved line's masks (``(-1, -1)`` for a contradiction).
The table is one int64 array of :data:`CACHE_SLOTS` rows ``(tag, key masks, value masks)``,
**direct-mapped** (a key has one row, given by its hash; a new entry replaces the row's old one),
so it needs nothing compiled at run time: a numba typed dict cost about 0.4 s of compilation in
every process, most of a small puzzle's ``nonosat solve``.  An extra last row holds the table's
**generation** ``g`` (from 1) and the rows filled in it; an entry's tag is ``g * 2**32 + line +
1``, and an entry of an older generation counts as a free row.  Emptying the table is therefore
one increment (:func:`clear_line_cache`), not a write of the table: that is done when a table is
reused for another puzzle (:func:`nonosat.native.search.NativeSearch` takes its table from a
small pool, so that a run of puzzles does not fault in fresh pages each).  A direct-mapped table
never fills, so it is never emptied during a search (the linear-probing table it replaced was
emptied at three quarters full, losing every entry).

The table has 2**14 rows (655 KB): with the mask-based line solver a miss costs about 0.1 us,
while a hit's first load is a cache miss of the processor when the table does not stay in its
caches (``perf``: the tag load was the hottest instruction of a 25x25 search, 12 % of samples,
with the 1.3 MB linear-probing table of 2**15 rows).  Kernel CPU of ``auto``'s native stage,
generated sets, the same probes (``benchmarks/bench_native_ab.py``, 3 rounds, load 8-10; line
solves per lookup in brackets): random25-0.4-s7412x40 0.93x of the 2**15 linear table
(fastest rounds 0.78x; misses 0.293 against 0.268), random30-0.45-s7413x15 0.88x (0.83x; 0.308
against 0.279); 2**13 rows direct-mapped 0.76x / 1.17x (misses 0.327 / 0.350), 2**13 with
linear probing 0.91x / 0.97x (0.344 / 0.382).  Earlier, with the table of 2**15 rows, on
taai2011 100 puzzles: 2**13..2**16 rows 1.333 / 1.315 / 1.341 / 1.366 s, 2**19 (20 MB) 10-30 %
slower, no cache about 15 % slower; Knotty and three large survey puzzles (1M probes) preferred
larger tables, 1.73 / 1.63 / 1.59 s at 2**14 / 2**15 / 2**16 (benchmarks/RESULTS.md, "Line
state as masks").

Lines are numbered rows first (``0..h-1``), then columns (``h..h+w-1``).  Undoing to a trail
length resets the cells assigned since then to unknown: a cell only ever goes from unknown to one
value, so the trail is the complete undo log.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import lazy_intrinsic, njit, trailing_zeros
from nonosat.native.line import BITS_MAX_LINE, line_kernel_words, words_scratch
from nonosat.native.line_bits import line_masks_inline
from nonosat.puzzle import Cell, PackedClues

# -- why a cell was assigned (tkind) ----------------------------------------------------------
KIND_LINE = 0  #: forced by the line solver on line ``targ``
KIND_DECISION = 1  #: a search decision at depth ``targ``
KIND_FAILED_LITERAL = 2  #: probing: the opposite value (``targ`` = probed cell) led to a conflict
KIND_PROBE_BOTH = 3  #: probing: both values of cell ``targ`` force this value
KIND_BRANCH = 4  #: second branch of the decision at depth ``targ`` (the first was exhausted)
KIND_GIVEN = 5  #: given in the partial grid

KIND_NAMES = ("line", "decision", "failed-literal", "probe-both", "branch", "given")

# -- scalar state (st) --------------------------------------------------------------------------
ST_TLEN = 0  #: trail length
ST_QHEAD = 1  #: queue head index
ST_QCOUNT = 2  #: number of lines queued
ST_DEPTH = 3  #: search depth (number of open decisions)
ST_NSOL = 4  #: solutions found
ST_LIMIT = 5  #: solution limit
ST_NODES = 6  #: decisions made
ST_LINE_SOLVES = 7  #: line solver calls
ST_MAX_DEPTH = 8  #: deepest search depth reached
ST_CONFLICTS = 9  #: contradictions met (propagation or probing)
ST_ROOT_TLEN = 10  #: trail length when the root node's deductions were complete (-1 before)
ST_PROBES = 11  #: probes run (one per cell and value)
ST_PROBE_FIXES = 12  #: cells fixed by probing
ST_EVENT = 13  #: event counter for change tracking
ST_EXHAUSTED = 14  #: 1 when the search space is exhausted
ST_BACKTRACKS = 15  #: backtracks
ST_CACHE_HITS = 16  #: line cache hits
ST_CACHE_COUNT = 17  #: free rows of the line cache this state filled (the table keeps its own count)
ST_FAIL_LINE = 18  #: the line whose solving failed in the last contradiction of :func:`propagate`
ST_SIZE = 19

CACHE_MAX_LINE = BITS_MAX_LINE  #: longest line solved on masks and cached (62: bits of an int64)
CACHE_SLOTS = 1 << 14  #: hash table rows (a power of two)


def new_line_cache(slots: int = CACHE_SLOTS) -> np.ndarray:
    """An empty line cache: int64 array of shape (slots + 1, 5), all zero (free) but the last row,
    which holds the generation (column 0: 1) and the rows filled in this generation (column 1, at
    most ``slots``).  The count lives in the table, not in a solver state, because states share a
    table (the search and the steppers it builds).

    ``slots`` must be a power of two.  ``np.zeros`` maps fresh pages, so a small puzzle touches
    only the rows it uses."""
    if slots < 4 or slots & (slots - 1):
        raise ValueError(f"line cache slots must be a power of two >= 4, not {slots}")
    cache = np.zeros((slots + 1, 5), dtype=np.int64)
    cache[slots, 0] = 1
    return cache


def clear_line_cache(cache: np.ndarray) -> None:
    """Empty ``cache`` (every entry becomes stale: the generation moves on)."""
    cache[-1, 0] += 1
    cache[-1, 1] = 0


def new_state(packed: PackedClues, grid: np.ndarray, cache: np.ndarray | None = None,
              stop: np.ndarray | None = None) -> tuple:
    """Fresh solver state for ``packed`` starting from ``grid`` (int8, shape (h, w)); every line
    is queued.  Returns the ``state`` tuple described in the module docstring.

    ``cache`` shares another state's line cache (:func:`new_line_cache`; valid for any state of
    the same clues, since it is keyed by line and line contents); a new one by default.
    ``stop`` is the stop flag the kernels read (int64, shape (1,): a
    :class:`nonosat.stop.StopToken`'s ``flag``); a flag nobody sets by default."""
    h, w = packed.height, packed.width
    n_lines = h + w
    flat = np.ascontiguousarray(grid, dtype=np.int8).reshape(-1).copy()
    st = np.zeros(ST_SIZE, dtype=np.int64)
    st[ST_ROOT_TLEN] = -1
    queue = np.arange(n_lines, dtype=np.int32)
    st[ST_QCOUNT] = n_lines
    longest = max(h, w)
    state = (
        flat,
        np.zeros(h * w, dtype=np.int32),
        np.zeros(h * w, dtype=np.int8),
        np.zeros(h * w, dtype=np.int32),
        queue,
        np.ones(n_lines, dtype=np.bool_),
        st,
        np.zeros(longest, dtype=np.int8),
        np.zeros(longest, dtype=np.int8),
        np.zeros(n_lines, dtype=np.int64),
        new_line_cache() if cache is None else cache,
        np.zeros(n_lines, dtype=np.int64),
        np.zeros(n_lines, dtype=np.int64),
        np.array([h, w], dtype=np.int64),
        np.zeros(BITS_MAX_LINE + 2, dtype=np.int64),
        np.zeros(1, dtype=np.int64) if stop is None else _stop_flag(stop),
        words_scratch(longest if longest > BITS_MAX_LINE else 1),
    )
    if (flat != 3).any():  # the masks of a grid with nothing known are the zeros above
        sync_line_masks(state)
    return state


def _stop_flag(stop: np.ndarray) -> np.ndarray:
    """``stop`` checked to be an int64 array of shape (1,) (the kernels' one type for it)."""
    if not isinstance(stop, np.ndarray) or stop.dtype != np.int64 or stop.shape != (1,):
        raise TypeError("a stop flag is an int64 array of shape (1,) (StopToken.flag)")
    return stop


def give_cells(state: tuple, values: np.ndarray) -> int:
    """Put the known cells of ``values`` (int8, the grid flattened, shape (height * width,);
    :class:`~nonosat.puzzle.Cell` values) on ``state``'s trail as givens (``KIND_GIVEN``, in
    cell order), then :func:`sync_line_masks`; returns how many.  NumPy, no compiled kernel."""
    grid, trail, tkind, targ, st = (state[i] for i in (0, 1, 2, 3, 6))
    known = np.flatnonzero((values == Cell.EMPTY) | (values == Cell.FILLED))
    t = int(st[ST_TLEN])
    grid[known] = values[known]
    trail[t:t + known.size] = known
    tkind[t:t + known.size] = KIND_GIVEN
    targ[t:t + known.size] = -1
    st[ST_TLEN] = t + known.size
    sync_line_masks(state)
    return int(known.size)


def sync_line_masks(state: tuple) -> None:
    """Recompute ``state``'s line masks ``lf``/``le`` (see the module docstring) from its grid:
    after building a state, or after writing grid cells other than by :func:`assign`.  NumPy, so
    that building a state loads no compiled kernel."""
    h, w = int(state[13][0]), int(state[13][1])
    grid = state[0].reshape(h, w)
    for value, masks in ((2, state[11]), (1, state[12])):
        masks[:] = 0
        hit = (grid == value).astype(np.int64)
        if w <= BITS_MAX_LINE:
            masks[:h] = hit @ (np.int64(1) << np.arange(w, dtype=np.int64))
        if h <= BITS_MAX_LINE:
            masks[h:] = (np.int64(1) << np.arange(h, dtype=np.int64)) @ hit


def problem_tuple(packed: PackedClues) -> tuple:
    """The ``problem`` tuple of ``packed`` (see the module docstring)."""
    dims = np.array([packed.height, packed.width], dtype=np.int64)
    return (packed.blocks, packed.start, packed.known, dims)


def _borrow_value(context: Any, builder: Any, ty: Any, value: Any) -> Any:  # pragma: no cover
    """LLVM code (at compile time): ``value`` (of numba type ``ty``) with every array in it
    borrowed (see :func:`borrowed`)."""
    from numba import types
    from numba.core import cgutils

    if isinstance(ty, types.Array):
        ary = context.make_array(ty)(context, builder, value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    if isinstance(ty, types.BaseTuple):
        out = value
        members: Any = ty
        for i, item_ty in enumerate(members):
            item = builder.extract_value(value, i)
            out = builder.insert_value(out, _borrow_value(context, builder, item_ty, item), i)
        return out
    return value


def _borrowed(typingctx, value):  # pragma: no cover - compiled
    """``value`` (an array, or a tuple of arrays and scalars such as ``state``) with every array
    replaced by a **borrowed view**: the same data, shape and strides, without a reference count
    (a null ``meminfo``).

    numba counts references to every array a compiled function receives or unpacks from a
    tuple, with an atomic increment and decrement each; a call of :func:`propagate` with the
    ``problem`` and ``state`` tuples made about 80 of them, and they were two thirds of the CPU
    time of probing (``perf`` on a 25x25 search: ``NRT_incref``/``NRT_decref``).  On a borrowed
    view they are a test of a null pointer.  Only for the top of a compiled call: the views are
    valid while the caller holds the arrays, so they must never be returned or stored.
    """
    def codegen(context, builder, sig, args):
        return _borrow_value(context, builder, sig.args[0], args[0])

    return value(value), codegen


def _make_borrowed() -> Any:
    from numba.extending import intrinsic

    return intrinsic(_borrowed)


#: :func:`_borrowed` as a compiled function (``borrowed(x)``; numba's stubs type an
#: ``@intrinsic`` as its typing function, hence ``Any``); ``value`` itself when run as Python
#: (:mod:`nonosat.lazy_jit`).
borrowed: Any = lazy_intrinsic("borrowed", lambda value: value, _make_borrowed)


@njit(cache=True, nogil=True, inline='always')
def enqueue(state, line):  # pragma: no cover - compiled
    """Queue ``line`` unless it is queued already."""
    queue, inq, st = state[4], state[5], state[6]
    if not inq[line]:
        cap = queue.shape[0]
        i = st[ST_QHEAD] + st[ST_QCOUNT]  # head < cap and count < cap: no division needed
        queue[i - cap if i >= cap else i] = line
        st[ST_QCOUNT] += 1
        inq[line] = True


@njit(cache=True, nogil=True)
def clear_queue(state):  # pragma: no cover - compiled
    """Empty the work queue."""
    queue, inq, st = state[4], state[5], state[6]
    cap = queue.shape[0]
    while st[ST_QCOUNT] > 0:
        inq[queue[st[ST_QHEAD]]] = False
        st[ST_QHEAD] = (st[ST_QHEAD] + 1) % cap
        st[ST_QCOUNT] -= 1


@njit(cache=True, nogil=True, inline='always')
def put(problem, state, cell, value, kind, arg):  # pragma: no cover - compiled
    """Set unknown ``cell`` to ``value`` (1 empty / 2 filled) and log it on the trail with its
    reason ``(kind, arg)``, queueing nothing (:func:`assign` queues its lines)."""
    w = problem[3][1]
    h = problem[3][0]
    grid, trail, tkind, targ, st = state[0], state[1], state[2], state[3], state[6]
    grid[cell] = value
    t = st[ST_TLEN]
    trail[t] = cell
    tkind[t] = kind
    targ[t] = arg
    st[ST_TLEN] = t + 1
    row = cell // w
    c = cell - row * w
    lm = state[11] if value == 2 else state[12]
    if w <= BITS_MAX_LINE:
        lm[row] |= 1 << c
    if h <= BITS_MAX_LINE:
        lm[h + c] |= 1 << row


@njit(cache=True, nogil=True, inline='always')
def assign(problem, state, cell, value, kind, arg, skip_line):  # pragma: no cover - compiled
    """Set unknown ``cell`` to ``value`` (1 empty / 2 filled), log it on the trail with its reason
    ``(kind, arg)`` and queue its row and column (except ``skip_line``, the line being solved)."""
    put(problem, state, cell, value, kind, arg)
    w = problem[3][1]
    row = cell // w
    col = problem[3][0] + cell - row * w
    if row != skip_line:
        enqueue(state, row)
    if col != skip_line:
        enqueue(state, col)


@njit(cache=True, nogil=True)
def mark_changed(problem, state, from_tlen):  # pragma: no cover - compiled
    """Stamp the lines of the cells assigned since trail position ``from_tlen`` as changed now.

    Called when assignments become permanent (a decision's propagation, a probing fix), not for
    the temporary assignments of a probe, so that probing's change tracking sees real changes.
    """
    h, w = problem[3][0], problem[3][1]
    trail, st, changed_at = state[1], state[6], state[9]
    st[ST_EVENT] += 1
    ev = st[ST_EVENT]
    for t in range(from_tlen, st[ST_TLEN]):
        cell = trail[t]
        changed_at[cell // w] = ev
        changed_at[h + cell % w] = ev


@njit(cache=True, nogil=True, inline='always')
def undo_to(state, tlen):  # pragma: no cover - compiled
    """Reset every cell assigned after trail position ``tlen`` to unknown."""
    grid, trail, st, lf, le, ldims = state[0], state[1], state[6], state[11], state[12], state[13]
    h, w = ldims[0], ldims[1]
    rows = w <= BITS_MAX_LINE
    cols = h <= BITS_MAX_LINE
    for t in range(st[ST_TLEN] - 1, tlen - 1, -1):
        cell = trail[t]
        lm = lf if grid[cell] == 2 else le
        grid[cell] = 3
        r = cell // w
        c = cell - r * w
        if rows:
            lm[r] &= ~(1 << c)
        if cols:
            lm[h + c] &= ~(1 << r)
    st[ST_TLEN] = tlen


@njit(cache=True, nogil=True, inline='always')
def _cache_slot(cache, line, fmask, emask):  # pragma: no cover - compiled
    """Row of ``cache`` where key ``(line, fmask, emask)`` lives (direct-mapped: one row per
    key, a new entry replaces the old one).  Multiplicative hashing of the three key words
    (constants from splitmix64 / xxHash)."""
    h = np.uint64(line + 1) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(fmask) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= np.uint64(emask) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return np.int64(h & np.uint64(cache.shape[0] - 2))


@njit(cache=True, nogil=True)
def solve_line_masks(clue, line, n, fmask, emask, state):  # pragma: no cover - compiled
    """Line solver on masks through the line cache, for lines of at most
    :data:`CACHE_MAX_LINE` cells.

    ``fmask``/``emask`` are the line's known-filled / known-empty cells (bit ``i``: cell ``i``).
    Returns ``(fo, eo)``, the cells known filled / known empty once the line is solved (supersets
    of the inputs), or ``(-1, -1)`` on a contradiction."""
    return _lookup(state[10], state[6], clue, line, n, fmask, emask, state[14])


@njit(cache=True, nogil=True, inline='always')
def _lookup(cache, st, clue, line, n, fmask, emask, starts):  # pragma: no cover - compiled
    """:func:`solve_line_masks` on the arrays it needs (a call passing the whole state tuple
    costs more than a cache hit)."""
    slot = _cache_slot(cache, line, fmask, emask)
    last = cache.shape[0] - 1
    tag = (cache[last, 0] << 32) + line + 1
    t = cache[slot, 0]
    if t == tag and cache[slot, 1] == fmask and cache[slot, 2] == emask:
        st[ST_CACHE_HITS] += 1
        return cache[slot, 3], cache[slot, 4]
    st[ST_LINE_SOLVES] += 1
    full = (1 << n) - 1
    ok, can_e, can_f = line_masks_inline(clue, n, full & ~fmask, full & ~emask, starts)
    fo = -1
    eo = -1
    if ok:
        fo = can_f & ~can_e
        eo = can_e & ~can_f
    if t < (cache[last, 0] << 32):  # a free row (or one of an older generation)
        cache[last, 1] += 1
        st[ST_CACHE_COUNT] += 1
    cache[slot, 0] = tag
    cache[slot, 1] = fmask
    cache[slot, 2] = emask
    cache[slot, 3] = fo
    cache[slot, 4] = eo
    return fo, eo


@njit(cache=True, nogil=True)
def solve_line_cached(clue, line, n, state):  # pragma: no cover - compiled
    """Line solver on ``state``'s ``linebuf[:n]`` into ``outbuf[:n]``, through the line cache
    (:func:`solve_line_masks`) for lines of at most :data:`CACHE_MAX_LINE` cells.
    Returns ``False`` on a contradiction."""
    linebuf, outbuf, st = state[7], state[8], state[6]
    if n > CACHE_MAX_LINE:
        st[ST_LINE_SOLVES] += 1
        return line_kernel_words(clue, linebuf[:n], outbuf[:n], state[16])
    fmask = 0
    emask = 0
    for p in range(n):
        v = linebuf[p]
        if v == 2:
            fmask |= 1 << p
        elif v == 1:
            emask |= 1 << p
    fo, eo = solve_line_masks(clue, line, n, fmask, emask, state)
    if fo < 0:
        return False
    for p in range(n):
        if (fo >> p) & 1:
            outbuf[p] = 2
        elif (eo >> p) & 1:
            outbuf[p] = 1
        else:
            outbuf[p] = 3
    return True


@njit(cache=True, nogil=True)
def propagate(problem, state):  # pragma: no cover - compiled
    """Solve queued lines until the queue is empty (fixpoint) or a line is contradictory.

    Returns ``True`` at the fixpoint, ``False`` on a contradiction (the queue is then cleared;
    the caller undoes the trail).  The compiled call of :func:`propagate_inline`.
    """
    return propagate_inline(problem, state)


@njit(cache=True, nogil=True, inline='always')
def propagate_inline(problem, state):  # pragma: no cover - compiled
    """:func:`propagate`, inlined into its caller: for the hot loops of probing.

    A compiled call of :func:`propagate` counts a reference to each of the about 20 arrays of
    ``problem`` and ``state`` on entry and again on exit (numba's calling convention): on borrowed
    views (:func:`borrowed`) these are calls of ``NRT_incref``/``NRT_decref`` that only test a
    null pointer, but 80 of them a call were 7 % of a 25x25 search's samples (``perf``).  Inlined
    into a caller that holds borrowed views, numba prunes them.
    """
    blocks, start, known, dims = problem
    h, w = dims[0], dims[1]
    grid, trail, tkind, targ, queue, inq, st, linebuf, outbuf = (
        state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7], state[8]
    )
    cache, lf, le, starts = state[10], state[11], state[12], state[14]
    rows_masked = w <= CACHE_MAX_LINE
    cols_masked = h <= CACHE_MAX_LINE
    cap = queue.shape[0]
    while st[ST_QCOUNT] > 0:
        line = queue[st[ST_QHEAD]]
        head = st[ST_QHEAD] + 1
        st[ST_QHEAD] = 0 if head == cap else head
        st[ST_QCOUNT] -= 1
        inq[line] = False
        if not known[line]:
            continue
        if line < h:
            n = w
            base = line * w
            step = 1
        else:
            n = h
            base = line - h
            step = w
        if n <= CACHE_MAX_LINE:
            # the line's state is its two masks; the forced cells are the new bits of the result
            fm = lf[line]
            em = le[line]
            fo, eo = _lookup(cache, st, blocks[start[line]:start[line + 1]], line, n, fm, em,
                             starts)
            if fo < 0:
                clear_queue(state)
                st[ST_CONFLICTS] += 1
                st[ST_FAIL_LINE] = line
                return False
            nfm = fo & ~fm
            new = nfm | (eo & ~em)
            if new == 0:
                continue
            lf[line] = fo
            le[line] = eo
            # what assign() does, inlined: grid, trail, the crossing line's mask and queue entry
            if line < h:
                cbit = 1 << line
                cross0 = h
                cmasked = cols_masked
            else:
                cbit = 1 << (line - h)
                cross0 = 0
                cmasked = rows_masked
            while new != 0:
                # numba's stubs type the @intrinsic as its typing function (typingctx, src)
                p: int = trailing_zeros(new)
                bit = 1 << p
                new ^= bit
                cell = base + p * step
                t = st[ST_TLEN]
                trail[t] = cell
                tkind[t] = KIND_LINE
                targ[t] = line
                st[ST_TLEN] = t + 1
                cross = cross0 + p
                if nfm & bit:
                    grid[cell] = 2
                    if cmasked:
                        lf[cross] |= cbit
                else:
                    grid[cell] = 1
                    if cmasked:
                        le[cross] |= cbit
                if not inq[cross]:
                    i = st[ST_QHEAD] + st[ST_QCOUNT]
                    queue[i - cap if i >= cap else i] = cross
                    st[ST_QCOUNT] += 1
                    inq[cross] = True
            continue
        for p in range(n):
            linebuf[p] = grid[base + p * step]
        if not solve_line_cached(blocks[start[line]:start[line + 1]], line, n, state):
            clear_queue(state)
            st[ST_CONFLICTS] += 1
            st[ST_FAIL_LINE] = line
            return False
        for p in range(n):
            if outbuf[p] != linebuf[p]:
                assign(problem, state, base + p * step, outbuf[p], KIND_LINE, line, line)
    return True


def propagate_grid(puzzle, grid: np.ndarray | None = None):
    """Line propagation to a fixpoint from ``grid``: the Python face of :func:`propagate`.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray of int8, shape (height, width), optional
        Starting grid state (all unknown when omitted).  Not modified.

    Returns
    -------
    (ndarray of int8, list of (cell, value, line)) or None
        The fixpoint grid state and the deductions in order (``cell`` as ``(row, column)``,
        ``value`` a :class:`~nonosat.puzzle.Cell`, ``line`` the index of the line whose solving
        forced it, rows first); ``None`` when propagation meets a contradiction.
    """
    from nonosat.puzzle import Cell, pack_clues, unknown_grid

    packed = pack_clues(puzzle)
    start = unknown_grid(puzzle) if grid is None else np.asarray(grid, dtype=np.int8)
    state = new_state(packed, start)
    if not propagate(problem_tuple(packed), state):
        return None
    trail, targ, st = state[1], state[3], state[6]
    w = puzzle.width
    deductions = [
        (divmod(int(trail[t]), w), Cell(int(state[0][trail[t]])), int(targ[t]))
        for t in range(int(st[ST_TLEN]))
    ]
    return state[0].reshape(puzzle.shape).copy(), deductions


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
