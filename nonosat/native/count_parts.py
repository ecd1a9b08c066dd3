"""The native counter's working state: its ``M_*`` counters, the component cache (exact keys,
open addressing), the cut of lines into segments (:func:`_refine`) and the split of a
component's segments into connected components
(:mod:`nonosat.native.count` holds the search that uses them; the method and its sources are
described there).
"""

from __future__ import annotations

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import leading_zeros, njit, trailing_zeros
from nonosat.native.line import BITS_MAX_LINE, line_masks

# -- the counter's scalar state (meta) ----------------------------------------------------
M_NODES = 0  #: decisions made
M_HITS = 1  #: component cache hits
M_STORES = 2  #: components stored in the cache
M_SPLITS = 3  #: nodes whose undecided cells fell into several components
M_ABORT = 4  #: 1 once the stop flag was seen (every count from then on is meaningless)
M_TOP = 5  #: top of the line stack (``lines``)
M_ARENA = 6  #: words of the key arena in use
M_ENTRIES = 7  #: entries in the cache table (this generation)
M_GEN = 8  #: the cache's generation (entries of older ones are free)
M_CLEARS = 9  #: times the cache was emptied (full)
M_BRANCH = 10  #: the branching rule
M_MAXDEPTH = 11  #: deepest stack
M_PROBE_MIN = 12  #: probe only components with at least this many undecided cells
M_PROBES = 13  #: probes (one per cell and value)
M_PROBING = 14  #: 0: no probing; 1: from every changed line; 2: from the decision's lines
M_STAMP = 15  #: the dirty marks' current stamp
M_PROBE_DEPTH = 16  #: probe only in frames at most this deep on the stack
M_STOP_SP = 17  #: frames on the stack when the stop flag was seen (the path to read bounds from)
M_MAX_NODES = 18  #: stop (as the stop flag does) once this many decisions were made
M_ZEROS = 19  #: components stored with count 0 (refuted subtrees)
M_FULL_DEPTH = 20  #: frames at most this deep probe every cell of their changed lines (mode 1)
M_MODE = 21  #: the probing mode of the current probing pass
M_PSTAMP = 22  #: the probe marks' current stamp (one per probe: probe-both)
M_ISTAMP = 23  #: the implied marks' current stamp (one per probing state: dominated probes)
M_FLAGS = 24  #: probing options (:data:`PROBE_BOTH`, :data:`PROBE_SKIP_IMPLIED`)
M_SKIPPED = 25  #: probes skipped as implied by a successful probe (cannot fail)
M_BOTH = 26  #: cells fixed by probe-both
M_FAILED = 27  #: probes that failed (their cell's other value fixed)
M_WEIGHTS = 28  #: conflict weights: 0 off, else bits of :data:`BUMP_PROBES`, :data:`BUMP_NODES`
M_SCORE = 29  #: the probing branch's score (:data:`SCORE_RULES` of the counter)
M_PASS = 30  #: probing passes run (each pass's id: the probe marks ``ctx[18]``)
M_FINAL = 31  #: the id of the last probing pass (at the probing fixpoint: it fixed nothing)
M_REUSED = 32  #: probes not run again: their cell was probed in the parent's last pass
M_FINAL_ISTAMP = 33  #: the implied marks' stamp of the state the last probing left
M_SIZE = 34

#: ``M_FLAGS`` bit: fix the cells both values of a probed cell propagate to the same value.
PROBE_BOTH = 1
#: ``M_FLAGS`` bit: skip a probe of a value that a successful probe of the same probing state
#: propagated to (it cannot fail, its propagation being a part of that probe's).
PROBE_SKIP_IMPLIED = 2
#: ``M_FLAGS`` bit: count a split's components smallest first (:func:`_components`).
SMALL_FIRST = 4
#: ``M_FLAGS`` bit: probe a component's rows in the order of their conflict weights, heaviest
#: first (:func:`nonosat.native.count_probe._probe`).
HEAVY_FIRST = 8

#: ``M_WEIGHTS`` bit: a failed probe (in probing, either value) bumps its failing line's weight.
BUMP_PROBES = 1
#: ``M_WEIGHTS`` bit: a contradiction that refutes a node (a decision's propagation, both values
#: of a probed cell, a probe-both fix) bumps its failing line's weight.
BUMP_NODES = 2

#: Cache table rows (a power of two) and key arena words: 2**18 * 4 + 2**22 int64 words (40 MB).
TABLE_SLOTS = 1 << 18
ARENA_WORDS = 1 << 22


def segment_stack_words(n_lines: int, depth: int, n_blocks: int) -> int:
    """Words of a segment stack that holds ``depth`` nested splits of at most
    ``n_lines + n_blocks + 2`` segments each (3 words a segment: the split's refined segments,
    then its components' lengths and segments).  The nested splits on a path of the search hold
    ever fewer undecided cells, so ``depth = n_cells`` always suffices."""
    return 3 * (n_lines + n_blocks + 2) * (depth + 2) + 16


def new_count_context(n_lines: int, n_cells: int, n_blocks: int = -1,
                      slots: int = TABLE_SLOTS, arena: int = ARENA_WORDS,
                      seg_words: int | None = None) -> tuple:
    """The counter's working arrays: ``(meta, table, arena, segs, comp, queue, dirty, score,
    rowseg, colseg, near, pmark, imp, fixed, order, weight)``.

    ``meta`` (int64, :data:`M_SIZE`) the ``M_*`` counters; ``table`` (int64, (slots, 4)) the
    cache's rows ``(generation tag, key offset, key length, value * 2 + exact)``; ``arena``
    (int64) the keys, three words per segment ``(segment word, filled mask, empty mask)``
    (:func:`seg_word`; the masks restricted to the segment's cells); ``segs`` (int64) the stack
    of component segment lists; ``comp``/``queue`` (int32, one per possible segment) scratch of
    the component search; ``dirty`` (int64, ``n_lines``) the stamp of the probing pass that must
    probe a line's cells; ``score`` (int64, ``n_cells``) each cell's last probe score;
    ``rowseg``/``colseg`` (int32, ``n_cells``) the segment of a cell's row / column in the list
    being split; ``near`` (int64, ``n_cells``) the stamp of the probing pass that must probe a
    cell (probing mode 3).  ``n_blocks`` is the number of blocks of all clues (``-1``: at most one per two
    cells of every line): every segment holds a block, or is a line without a clue.
    Then ``(pmark, imp, fixed)`` (int64, ``n_cells``): the probing kernel's marks of the
    cells a probe's first value assigned (probe-both), of the values successful probes
    implied (skipped probes), and the cells probe-both fixes; ``order`` (int32, one per possible
    segment) the order of a split's components.  ``weight`` (float64, ``n_lines + 3``): each
    line's conflict weight (:func:`bump`), then the current bump, its growth factor (one over the
    decay) and the weights' share of the branching score (``alpha``).
    ``(rkey, rstarts)``: :func:`_refine`'s memo of each line's last solve, ``rkey`` (int64,
    ``(n_lines, 2)``) the known-filled and known-empty masks it was solved under (``-1``: none
    yet) and ``rstarts`` (int64, ``(n_lines, BITS_MAX_LINE + 2)``) its blocks' possible starts.
    ``pdone`` (int64, ``n_cells``): the id (``M_PASS``) of the probing pass that last probed
    each cell to a success (:func:`nonosat.native.count_probe._probe`).
    ``seg_words``: the segment stack's size (default: :func:`segment_stack_words` for
    ``n_cells`` nested splits, enough for any count); a count that fills a smaller stack stops
    with ``meta[M_ABORT] == 2``.
    """
    if slots < 4 or slots & (slots - 1):
        raise ValueError(f"cache slots must be a power of two >= 4, not {slots}")
    if n_blocks < 0:
        n_blocks = n_cells + n_lines
    n_segs = n_lines + n_blocks + 2
    meta = np.zeros(M_SIZE, dtype=np.int64)
    meta[M_GEN] = 1
    weight = np.zeros(n_lines + 3, dtype=np.float64)
    weight[n_lines] = 1.0
    weight[n_lines + 1] = 1.0
    return (
        meta,
        np.zeros((slots, 4), dtype=np.int64),
        np.zeros(arena, dtype=np.int64),
        np.zeros(segment_stack_words(n_lines, n_cells, n_blocks) if seg_words is None
                 else seg_words, dtype=np.int64),
        np.full(n_segs, -1, dtype=np.int32),
        np.zeros(n_segs, dtype=np.int32),
        np.zeros(n_lines, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int32),
        np.zeros(n_cells, dtype=np.int32),
        np.zeros(n_cells, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int64),
        np.zeros(n_segs, dtype=np.int32),
        weight,
        np.full((n_lines, 2), -1, dtype=np.int64),
        np.zeros((n_lines, BITS_MAX_LINE + 2), dtype=np.int64),
        np.zeros(n_cells, dtype=np.int64),
    )


# -- segments -------------------------------------------------------------------------------
# A segment is one int64 word: ``line << 32 | lo << 24 | hi << 16 | p << 8 | q``: the cells
# ``lo..hi`` of ``line`` hold its blocks ``p..q-1`` (every arrangement of the line puts those
# blocks there and no other block there), so the line's constraint is the product of its
# segments' constraints.  ``p == q == 0`` on a line without a clue (no constraint).  Lists of
# segments are sorted (by line, then position): rows first.

@njit(cache=True, nogil=True, inline='always')
def seg_word(line, lo, hi, p, q):  # pragma: no cover - compiled
    """The segment word of ``line``'s cells ``lo..hi`` holding blocks ``p..q-1``."""
    return (np.int64(line) << 32) | (lo << 24) | (hi << 16) | (p << 8) | q


@njit(cache=True, nogil=True, inline='always')
def seg_line(s):  # pragma: no cover - compiled
    return s >> 32


@njit(cache=True, nogil=True, inline='always')
def seg_mask(s):  # pragma: no cover - compiled
    """The segment's cells as a mask of its line."""
    lo = (s >> 24) & 255
    hi = (s >> 16) & 255
    return ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)


@njit(cache=True, nogil=True, inline='always')
def ctz(x):  # pragma: no cover - compiled
    """Trailing zeros of the int64 ``x`` (64 for 0)."""
    return trailing_zeros(x)


@njit(cache=True, nogil=True, inline='always')
def clz(x):  # pragma: no cover - compiled
    """Leading zeros of the int64 ``x``."""
    return leading_zeros(x)


@njit(cache=True, nogil=True, inline='always')
def _popcount(x):  # pragma: no cover - compiled
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, nogil=True, inline='always')
def bump(ctx, line, kind):  # pragma: no cover - compiled
    """Add the current bump to ``line``'s conflict weight when ``meta[M_WEIGHTS]`` has the bit
    ``kind`` (:data:`BUMP_PROBES`, :data:`BUMP_NODES`), then grow the bump by its factor
    (``weight[n_lines + 1]``; all weights are scaled down together before they overflow): the
    decaying activities of VSIDS (Moskewicz et al., DAC 2001) and of sharpSAT's VSADS (Sang,
    Beame, Kautz, SAT 2005), kept per line as dom/wdeg keeps them per constraint (Boussemart
    et al., ECAI 2004)."""
    if (ctx[0][M_WEIGHTS] & kind) == 0:
        return
    weight = ctx[15]
    n = weight.shape[0] - 3
    weight[line] += weight[n]
    weight[n] *= weight[n + 1]
    if weight[n] > 1e100:
        for i in range(n + 1):
            weight[i] *= 1e-100


@njit(cache=True, nogil=True)
def _key_hash(state, segs, lo, n):  # pragma: no cover - compiled
    """64-bit hash of the component ``segs[lo:lo+n]``'s key (splitmix64-style mixing)."""
    lf, le = state[11], state[12]
    h = np.uint64(0x243F6A8885A308D3) ^ np.uint64(n)
    for i in range(lo, lo + n):
        s = segs[i]
        line = seg_line(s)
        r = seg_mask(s)
        for v in (np.uint64(s), np.uint64(lf[line] & r), np.uint64(le[line] & r)):
            h ^= v
            h *= np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
    return h


@njit(cache=True, nogil=True)
def _lookup(state, ctx, segs, lo, n, hv):  # pragma: no cover - compiled
    """Row of the cache holding the component's key, or the free row where it belongs
    (linear probing; the table is never full: it is emptied at half load)."""
    meta, table, arena = ctx[0], ctx[1], ctx[2]
    lf, le = state[11], state[12]
    slots = table.shape[0]
    mask = slots - 1
    i = np.int64(hv & np.uint64(mask))
    gen = meta[M_GEN]
    while True:
        if table[i, 0] != gen:
            return i
        off = table[i, 1]
        if table[i, 2] == 3 * n:
            same = True
            for k in range(n):
                s = segs[lo + k]
                line = seg_line(s)
                r = seg_mask(s)
                o = off + 3 * k
                if (arena[o] != s or arena[o + 1] != lf[line] & r
                        or arena[o + 2] != le[line] & r):
                    same = False
                    break
            if same:
                return i
        i = (i + 1) & mask


@njit(cache=True, nogil=True)
def _store(state, ctx, segs, lo, n, hv, value, exact):  # pragma: no cover - compiled
    """Store the component's count (emptying the cache first when it is full)."""
    meta, table, arena = ctx[0], ctx[1], ctx[2]
    lf, le = state[11], state[12]
    if meta[M_ARENA] + 3 * n > arena.shape[0] or 2 * (meta[M_ENTRIES] + 1) > table.shape[0]:
        meta[M_GEN] += 1  # a new generation: every entry is stale
        meta[M_ARENA] = 0
        meta[M_ENTRIES] = 0
        meta[M_CLEARS] += 1
        if 3 * n > arena.shape[0]:
            return
    i = _lookup(state, ctx, segs, lo, n, hv)
    off = meta[M_ARENA]
    for k in range(n):
        s = segs[lo + k]
        line = seg_line(s)
        r = seg_mask(s)
        arena[off + 3 * k] = s
        arena[off + 3 * k + 1] = lf[line] & r
        arena[off + 3 * k + 2] = le[line] & r
    meta[M_ARENA] = off + 3 * n
    meta[M_ENTRIES] += 1
    meta[M_STORES] += 1
    if value == 0:
        meta[M_ZEROS] += 1
    table[i, 0] = meta[M_GEN]
    table[i, 1] = off
    table[i, 2] = 3 * n
    table[i, 3] = value * 2 + (1 if exact else 0)


@njit(cache=True, nogil=True)
def _refine(problem, state, ctx, segs, lo, n, out):  # pragma: no cover - compiled
    """Write the segments of ``segs[lo:lo+n]`` (sorted, at the propagation fixpoint) that hold
    undecided cells at ``segs[out:]``, each cut where its line's blocks now fall apart: between
    blocks ``j - 1`` and ``j`` when the last cell block ``j - 1`` can cover (over the line's
    arrangements consistent with its known cells) lies at least two cells before the first cell
    block ``j`` can cover (the cells between are empty in every arrangement).  A segment's
    cells are narrowed to those its blocks can cover.  The complete line solver
    (:func:`nonosat.native.line.line_masks`) gives each block's possible starts, memoised per
    line (``ctx[16]``, ``ctx[17]``: the masks of the line's last solve and its starts, which
    depend on nothing else): a line unchanged since the node that last refined it is not solved
    again.  On tcga2020 #500 (8,000 decisions, load 5) doubling this function and
    :func:`_components` cost +21 % of the count's time, more than the cache lookups (+7 %); the
    memo spares the lines a split did not change (a split below a decision sees the lines its
    propagation changed anew, the others as the parent left them).  The same searches with and
    without it (6,000 decisions, 3 rounds, load 3): 0.90x / 1.02x / 0.98x / 0.95x seconds on
    tcga2020 #500 / icga2017 #500 / taai2014 #500 / taai2011 #450: a few per cent.  Returns
    the number of segments written, or ``-1`` when the stack is full."""
    blocks, start, known, dims = problem
    h, w = dims[0], dims[1]
    lf, le = state[11], state[12]
    rkey, rstarts = ctx[16], ctx[17]
    starts = rstarts[0]
    size = segs.shape[0]
    r = 0
    cur = -1
    for i in range(lo, lo + n):
        s = segs[i]
        line = seg_line(s)
        free = seg_mask(s) & ~(lf[line] | le[line])
        if free == 0:
            continue
        if out + r + 1 > size:
            return -1
        if not known[line]:
            segs[out + r] = s
            r += 1
            continue
        length = w if line < h else h
        b0 = start[line]
        clue = blocks[b0:start[line + 1]]
        if line != cur:
            starts = rstarts[line]
            if rkey[line, 0] != lf[line] or rkey[line, 1] != le[line]:
                full = (1 << length) - 1
                line_masks(clue, length, full & ~lf[line], full & ~le[line], starts)
                rkey[line, 0] = lf[line]
                rkey[line, 1] = le[line]
            cur = line
        p = (s >> 8) & 255
        q = s & 255
        j0 = p
        a = ctz(starts[p])
        for j in range(p + 1, q + 1):
            last = 63 - clz(starts[j - 1]) + clue[j - 1] - 1
            if j < q:
                first = ctz(starts[j])
                if last + 1 >= first:
                    continue
            part = ((1 << (last + 1)) - 1) & ~((1 << a) - 1)
            if part & ~(lf[line] | le[line]) != 0:
                if out + r + 1 > size:
                    return -1
                segs[out + r] = seg_word(line, a, last, j0, j)
                r += 1
            if j < q:
                j0 = j
                a = first
    return r


@njit(cache=True, nogil=True)
def _components(problem, state, ctx, segs, lo, n, out):  # pragma: no cover - compiled
    """Write the connected components of the segments ``segs[lo:lo+n]`` (each holding undecided
    cells; every undecided cell's row segment and column segment among them) at ``segs[out:]``,
    one after another, each as its length then its segments (sorted, as ``segs[lo:lo+n]`` is):
    two segments are joined by an undecided cell they share.  The components come in the order
    of their first segments, or with :data:`SMALL_FIRST` in ``meta[M_FLAGS]`` by their number of
    segments, smallest first (a product is 0 as soon as one factor is: the small ones are
    quicker to refute).  Returns ``(k, m)``: the number of
    components and the words written, or ``(-1, 0)`` when the stack is full."""
    h, w = problem[3][0], problem[3][1]
    lf, le = state[11], state[12]
    comp, queue, rowseg, colseg, order = ctx[4], ctx[5], ctx[8], ctx[9], ctx[14]
    if out + 2 * n > segs.shape[0]:
        return -1, 0
    for i in range(n):
        s = segs[lo + i]
        line = seg_line(s)
        free = seg_mask(s) & ~(lf[line] | le[line])
        comp[i] = -1
        if line < h:
            base = line * w
            while free != 0:
                b = ctz(free)
                free &= free - 1
                rowseg[base + b] = i
        else:
            c = line - h
            while free != 0:
                b = ctz(free)
                free &= free - 1
                colseg[b * w + c] = i
    k = 0
    for i0 in range(n):
        if comp[i0] >= 0:
            continue
        comp[i0] = k
        queue[0] = i0
        qn = 1
        qi = 0
        while qi < qn:
            i = queue[qi]
            qi += 1
            s = segs[lo + i]
            line = seg_line(s)
            free = seg_mask(s) & ~(lf[line] | le[line])
            while free != 0:
                b = ctz(free)
                free &= free - 1
                if line < h:
                    other = colseg[line * w + b]
                else:
                    other = rowseg[b * w + line - h]
                if comp[other] < 0:
                    comp[other] = k
                    queue[qn] = other
                    qn += 1
        k += 1
    # counting sort by component, keeping the order: queue[c] = where component c's words start
    for c in range(k):
        queue[c] = 0
    for i in range(n):
        queue[comp[i]] += 1
    small_first = (ctx[0][M_FLAGS] & SMALL_FIRST) != 0
    for c in range(k):
        j = c
        if small_first:  # insertion sort by size (segments), stable
            while j > 0 and queue[order[j - 1]] > queue[c]:
                order[j] = order[j - 1]
                j -= 1
        order[j] = c
    at = out
    for x in range(k):
        c = order[x]
        size = queue[c]
        segs[at] = size
        queue[c] = at + 1
        at += size + 1
    for i in range(n):
        c = comp[i]
        segs[queue[c]] = segs[lo + i]
        queue[c] += 1
    return k, at - out


stamp_module(globals())
