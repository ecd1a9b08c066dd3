"""The bit-parallel complete line solver on one int64 word, for lines of at most 62 cells.

:func:`line_masks` is the solver on bit masks (the form propagation calls without copying a
line); :func:`line_kernel_bits` its face on a line of cell states.  The algorithm is described in
:mod:`nonosat.native.line` (the line solver's entry module, which re-exports these kernels);
:mod:`nonosat.native.line_words` holds its multi-word form for longer lines.
"""

from __future__ import annotations

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import leading_zeros, njit, trailing_zeros

#: Longest line the bit-parallel kernel handles (int64 masks; the sign bit and one carry bit are
#: kept free so that additions never overflow).
BITS_MAX_LINE = 62


@njit(cache=True, nogil=True)
def _shl(x, k):  # pragma: no cover - compiled
    """``x << k`` that is 0 for ``k >= 63`` (LLVM leaves large shifts undefined)."""
    return x << k if k < 63 else 0


@njit(cache=True, nogil=True)
def _fill_down(gen, pro):  # pragma: no cover - compiled
    """Occluded fill towards bit 0: ``gen`` plus every bit reachable from it by stepping down
    through bits of ``pro`` (Kogge-Stone, 6 steps for 64 bits)."""
    g = gen
    p = pro
    g |= p & (g >> 1)
    p &= p >> 1
    g |= p & (g >> 2)
    p &= p >> 2
    g |= p & (g >> 4)
    p &= p >> 4
    g |= p & (g >> 8)
    p &= p >> 8
    g |= p & (g >> 16)
    p &= p >> 16
    g |= p & (g >> 32)
    return g


@njit(cache=True, nogil=True)
def line_masks(clue, n, e, f, starts):  # pragma: no cover - compiled
    """Bit-parallel complete line solver on bit masks, for lines of at most
    :data:`BITS_MAX_LINE` cells: the core of :func:`line_kernel_bits`.  The compiled call of
    :func:`line_masks_inline`, which has the parameters, result and algorithm described here.
    """
    return line_masks_inline(clue, n, e, f, starts)


@njit(cache=True, nogil=True, inline='always')
def line_masks_inline(clue, n, e, f, starts):  # pragma: no cover - compiled
    """:func:`line_masks`, inlined into its caller: the line cache's lookup on a miss
    (:mod:`nonosat.native.propagate`), so that probing makes no compiled call per line solve
    (a call counts references to its two arrays on entry and exit; generated 25x25 sets,
    ``auto``'s native stage: 0.87x with this and the queue without divisions, 3 rounds).

    Parameters
    ----------
    clue : ndarray of int32, shape (k,)
        Block lengths, all positive.
    n : int
        Line length, at most :data:`BITS_MAX_LINE`.
    e, f : int
        Cells that may be empty / may be filled (bit ``i`` for cell ``i``, no bit at or above
        ``n``); every cell must allow at least one value.
    starts : ndarray of int64
        Scratch of at least ``k`` entries.

    Returns
    -------
    (bool, int, int)
        ``(ok, can_e, can_f)``: ``ok`` is ``False`` when no arrangement is consistent (the masks
        are then 0); else the cells that may be empty / filled in some consistent arrangement.

    Algorithm (bit ``i`` of a mask stands for cell, or start position, ``i``):

    * ``fit_j``: starts where block ``j`` fits on may-be-filled cells; separators and the ends of
      the line restrict starts further;
    * forwards, the starts of block ``j + 1`` are the cells reachable from "end of block ``j``
      + 1" by crossing may-be-empty cells (one carry-propagating addition);
    * backwards, starts of block ``j`` are kept only if some start of block ``j + 1`` is
      reachable from them (a downward occluded fill);
    * a cell may be filled iff some surviving start of some block covers it, and may be empty iff
      it lies in a gap reachable from both neighbouring blocks' surviving starts.
    """
    k = clue.shape[0]
    full = (1 << n) - 1
    ne = full & ~e  # cells that must be filled
    if k == 0:
        if ne != 0:
            return False, 0, 0
        return True, full, 0
    # first cell that cannot be empty (n if none): block 0 starts at or before it
    z0 = n
    last = 0
    if ne != 0:
        # numba's stubs type the @intrinsic as its typing function (typingctx, src)
        z0 = trailing_zeros(ne)
        # one past the last cell that cannot be empty: the last block ends at or after it
        last = 64 - leading_zeros(ne)
    # forward pass: starts consistent with the prefix
    reach = (1 << (z0 + 1)) - 1  # positions where block 0 may start
    for j in range(k):
        c = clue[j]
        if c > n:
            return False, 0, 0
        fit = f
        length = 1
        while length * 2 <= c:
            fit &= fit >> length
            length *= 2
        fit &= fit >> (c - length)
        fit &= (1 << (n - c + 1)) - 1  # block must end inside the line
        if j < k - 1:
            fit &= e >> c  # separator after the block may be empty (and exists)
        else:
            fit &= ~((1 << max(last - c, 0)) - 1)  # everything after the last block may be empty
        s = reach & fit
        if s == 0:
            return False, 0, 0
        starts[j] = s
        if j < k - 1:
            seeds = _shl(s, c + 1) & full
            t = seeds & e
            reach = (seeds | (((e + t) ^ e) | t)) & full
    # backward pass: keep starts from which the rest of the line can be completed
    for j in range(k - 2, -1, -1):
        c = clue[j]
        nxt = starts[j + 1]
        # positions q from which a start of block j+1 is reachable through may-be-empty cells
        q = nxt | _fill_down((nxt >> 1) & e, e)
        starts[j] &= q >> (c + 1)
        if starts[j] == 0:
            return False, 0, 0
    # cells that may be filled: covered by a surviving start
    can_f = 0
    for j in range(k):
        c = clue[j]
        cov = starts[j]
        length = 1
        while length * 2 <= c:
            cov |= cov << length
            length *= 2
        cov |= cov << (c - length)
        can_f |= cov
    # cells that may be empty: in a gap reachable from both sides
    can_e = ((1 << z0) - 1) & _fill_down((starts[0] >> 1) & e, e)  # gap 0: before block 0
    for j in range(1, k + 1):
        c = clue[j - 1]
        seeds = _shl(starts[j - 1], c) & full & e
        left = (((e + seeds) ^ e) | seeds) & e
        if j < k:
            right = _fill_down((starts[j] >> 1) & e, e)
        else:
            right = full & ~((1 << last) - 1)
        can_e |= left & right
    return True, can_e & full, can_f & full


@njit(cache=True, nogil=True)
def line_kernel_bits(clue, cells, out, starts):  # pragma: no cover - compiled
    """Bit-parallel complete line solver for lines of at most :data:`BITS_MAX_LINE` cells.

    Same contract as :func:`line_kernel_dp`; ``starts`` is int64 scratch of at least ``k``
    entries.  Converts the cells to masks and calls :func:`line_masks`.
    """
    n = cells.shape[0]
    e = 0
    f = 0
    for i in range(n):
        v = cells[i]
        if v & 1:
            e |= 1 << i
        if v & 2:
            f |= 1 << i
    ok, can_e, can_f = line_masks(clue, n, e, f, starts)
    if not ok:
        return False
    for i in range(n):
        out[i] = ((can_e >> i) & 1) | (((can_f >> i) & 1) << 1)
    return True


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
