"""The native counter's working state: its ``M_*`` counters, the component cache (exact keys,
open addressing) and the split of a component's lines into connected components
(:mod:`nonosat.native.count` holds the search that uses them; the method and its sources are
described there).
"""

from __future__ import annotations

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit

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
M_DEPTH = 12  #: (unused)
M_PROBES = 13  #: probes (one per cell and value)
M_PROBING = 14  #: 0: no probing; 1: from every changed line; 2: from the decision's lines
M_STAMP = 15  #: the dirty marks' current stamp
M_PROBE_DEPTH = 16  #: probe only in frames at most this deep on the stack
M_SIZE = 17

#: Cache table rows (a power of two) and key arena words: 2**18 * 4 + 2**22 int64 words (40 MB).
TABLE_SLOTS = 1 << 18
ARENA_WORDS = 1 << 22


def new_count_context(n_lines: int, n_cells: int, slots: int = TABLE_SLOTS,
                      arena: int = ARENA_WORDS) -> tuple:
    """The counter's working arrays: ``(meta, table, arena, lines, comp, queue, dirty,
    score)``.

    ``meta`` (int64, :data:`M_SIZE`) the ``M_*`` counters; ``table`` (int64, (slots, 4)) the
    cache's rows ``(generation tag, key offset, key length, value * 2 + exact)``; ``arena``
    (int64) the keys, three words per line ``(line, filled mask, empty mask)``; ``lines``
    (int32) the stack of component line lists; ``comp``/``queue`` (int32, ``n_lines``) scratch
    of the component search; ``dirty`` (int64, ``n_lines``) the stamp of the probing pass that
    must probe a line's cells; ``score`` (int64, ``n_cells``) each cell's last probe score.
    """
    if slots < 4 or slots & (slots - 1):
        raise ValueError(f"cache slots must be a power of two >= 4, not {slots}")
    meta = np.zeros(M_SIZE, dtype=np.int64)
    meta[M_GEN] = 1
    return (
        meta,
        np.zeros((slots, 4), dtype=np.int64),
        np.zeros(arena, dtype=np.int64),
        # every level of the recursion holds at most n_lines lines and as many lengths, and a
        # level is one decision deeper than the one below it (at most n_cells on a path)
        np.zeros(2 * n_lines * (n_cells + 2), dtype=np.int32),
        np.full(n_lines, -1, dtype=np.int32),
        np.zeros(n_lines, dtype=np.int32),
        np.zeros(n_lines, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int64),
    )


@njit(cache=True, nogil=True, inline='always')
def _popcount(x):  # pragma: no cover - compiled
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def _key_hash(state, lines, lo, n):  # pragma: no cover - compiled
    """64-bit hash of the component ``lines[lo:lo+n]``'s key (splitmix64-style mixing)."""
    lf, le = state[11], state[12]
    h = np.uint64(0x243F6A8885A308D3) ^ np.uint64(n)
    for i in range(lo, lo + n):
        line = lines[i]
        for v in (np.uint64(line + 1), np.uint64(lf[line]), np.uint64(le[line])):
            h ^= v
            h *= np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
    return h


@njit(cache=True, nogil=True)
def _lookup(state, ctx, lines, lo, n, hv):  # pragma: no cover - compiled
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
                line = lines[lo + k]
                o = off + 3 * k
                if arena[o] != line or arena[o + 1] != lf[line] or arena[o + 2] != le[line]:
                    same = False
                    break
            if same:
                return i
        i = (i + 1) & mask


@njit(cache=True, nogil=True)
def _store(state, ctx, lines, lo, n, hv, value, exact):  # pragma: no cover - compiled
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
    i = _lookup(state, ctx, lines, lo, n, hv)
    off = meta[M_ARENA]
    for k in range(n):
        line = lines[lo + k]
        arena[off + 3 * k] = line
        arena[off + 3 * k + 1] = lf[line]
        arena[off + 3 * k + 2] = le[line]
    meta[M_ARENA] = off + 3 * n
    meta[M_ENTRIES] += 1
    meta[M_STORES] += 1
    table[i, 0] = meta[M_GEN]
    table[i, 1] = off
    table[i, 2] = 3 * n
    table[i, 3] = value * 2 + (1 if exact else 0)


@njit(cache=True, nogil=True)
def _components(problem, state, ctx, lines, lo, n):  # pragma: no cover - compiled
    """Write the connected components of the lines ``lines[lo:lo+n]`` that hold undecided
    cells (a row and a column joined by each undecided cell they share) at the line stack's top,
    one after another, each as its length then its lines (sorted, as ``lines[lo:lo+n]`` is).
    Returns ``(k, m)``: the number of components and the words written."""
    h, w = problem[3][0], problem[3][1]
    lf, le = state[11], state[12]
    meta, comp, queue = ctx[0], ctx[4], ctx[5]
    k = 0
    for i in range(lo, lo + n):
        comp[lines[i]] = -1
    for i in range(lo, lo + n):
        s = lines[i]
        if comp[s] >= 0:
            continue
        length = w if s < h else h
        if ((1 << length) - 1) & ~(lf[s] | le[s]) == 0:
            continue
        comp[s] = k
        queue[0] = s
        qn = 1
        qi = 0
        while qi < qn:
            line = queue[qi]
            qi += 1
            if line < h:
                free = ((1 << w) - 1) & ~(lf[line] | le[line])
                base = h
            else:
                free = ((1 << h) - 1) & ~(lf[line] | le[line])
                base = 0
            p = 0
            while free != 0:
                if free & 1:
                    other = base + p
                    if comp[other] < 0:
                        comp[other] = k
                        queue[qn] = other
                        qn += 1
                free >>= 1
                p += 1
        k += 1
    top = meta[M_TOP]
    m = 0
    for c in range(k):
        at = top + m
        m += 1
        for i in range(lo, lo + n):
            if comp[lines[i]] == c:
                lines[top + m] = lines[i]
                m += 1
        lines[at] = top + m - at - 1
    for i in range(lo, lo + n):
        comp[lines[i]] = -1
    return k, m


stamp_module(globals())
