"""The complete line solver: every cell forced by one clue on one partially known line.

Given a clue ``c[0..k-1]`` and a line of ``n`` cells whose states are :class:`~nonosat.puzzle.Cell`
bit sets, the line solver returns, for every cell, the set of values that cell takes in *at least
one* arrangement of the blocks consistent with the known cells.  A cell whose set shrank to one
value is forced; an empty set everywhere means the line is contradictory.  This is the "complete"
(or "perfect") line solver of the literature: it finds every deduction one line allows.

Algorithm
---------
Dynamic programming over (block, position), O(n·k) time and space, as in Batenburg & Kosters,
"Solving Nonograms by combining relaxations" (Pattern Recognition 42, 2009) and the settle/
left-right formulations of Jan Wolter's pbnsolve:

* ``F[j, i]``: the prefix ``[0, i)`` can hold exactly the first ``j`` blocks;
* ``B[j, i]``: the suffix ``[i, n)`` can hold exactly the blocks ``j..k-1``;
* a cell may be empty iff ``F[j, i] and B[j, i + 1]`` for some ``j`` (and the cell allows empty);
* block ``j`` may start at ``s`` iff the prefix before ``s - 1`` holds ``j`` blocks with
  cell ``s - 1`` empty (or ``s = 0``, ``j = 0``), the cells ``[s, s + c_j)`` allow filled, and the
  suffix after ``s + c_j`` holds the rest with cell ``s + c_j`` empty (or the line ends);
  every such placement marks its cells as possibly filled (a difference array keeps this O(n·k)).

For lines of at most :data:`BITS_MAX_LINE` cells, :func:`line_kernel` uses a **bit-parallel**
formulation of the same computation (:func:`line_kernel_bits`): the sets of feasible start
positions of each block are int64 bit masks, computed forwards and backwards with shifts, ANDs and
carry-propagating additions (a run of empty-possible cells is crossed in one addition, the
"occluded fill" of bitboard programs), so a line costs O(k·log n) word operations.  Both
formulations are checked against brute-force enumeration in the tests.

The kernels are compiled with numba (``njit(cache=True)``); :func:`solve_line` is their Python face.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from nonosat.kernel_cache import stamp_module
from nonosat.puzzle import Cell

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
    :data:`BITS_MAX_LINE` cells: the core of :func:`line_kernel_bits`.

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
        z0 = trailing_zeros(ne)  # type: ignore[call-arg]
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


#: Cells per word of the multi-word kernel (:func:`line_masks_words`): 62 of an int64's bits, so
#: that the sum of two words never reaches the sign bit and a carry is ``sum >> 62``.
LIMB = 62
_LMASK = (1 << LIMB) - 1
#: Rows of temporaries at the head of the multi-word kernel's scratch (see :func:`words_scratch`).
_WT = 12


def words_for(n: int) -> int:
    """Words (of :data:`LIMB` cells) the multi-word kernel uses for a line of ``n`` cells."""
    return max((n + LIMB - 1) // LIMB, 1)


def words_scratch(n: int) -> np.ndarray:
    """Scratch of :func:`line_masks_words` for lines of up to ``n`` cells: int64, shape
    ``(12 + max blocks + 1, words_for(n))`` (temporaries, then one row per block's starts)."""
    return np.zeros((_WT + (n + 1) // 2 + 1, words_for(n)), dtype=np.int64)


# rows of the multi-word scratch
_FULL, _NE, _REACH, _FIT, _TMP, _Q, _COV, _E, _F, _CE, _CF = range(11)


@njit(cache=True, nogil=True, inline='always')
def _w_low(ws, o, nw, k):  # pragma: no cover - compiled
    """Row ``o`` = the bits ``0..k-1`` (``k`` >= 0; every bit when ``k`` covers all words)."""
    for i in range(nw):
        lo = i * LIMB
        if k >= lo + LIMB:
            ws[o, i] = _LMASK
        elif k > lo:
            ws[o, i] = (1 << (k - lo)) - 1
        else:
            ws[o, i] = 0


@njit(cache=True, nogil=True, inline='always')
def _w_shr(ws, x, o, nw, k):  # pragma: no cover - compiled
    """Row ``o`` = row ``x`` >> ``k`` over the words (``o`` may be ``x``)."""
    q = k // LIMB
    r = k - q * LIMB
    for i in range(nw):
        src = i + q
        v = 0
        if src < nw:
            v = ws[x, src] >> r
            if r > 0 and src + 1 < nw:
                v |= (ws[x, src + 1] << (LIMB - r)) & _LMASK
        ws[o, i] = v


@njit(cache=True, nogil=True, inline='always')
def _w_shl(ws, x, o, nw, k):  # pragma: no cover - compiled
    """Row ``o`` = row ``x`` << ``k`` over the words, bits past the last word dropped (``o`` may
    be ``x``)."""
    q = k // LIMB
    r = k - q * LIMB
    for i in range(nw - 1, -1, -1):
        src = i - q
        v = 0
        if src >= 0:
            v = (ws[x, src] << r) & _LMASK
            if r > 0 and src - 1 >= 0:
                v |= ws[x, src - 1] >> (LIMB - r)
        ws[o, i] = v


@njit(cache=True, nogil=True, inline='always')
def _w_zero(ws, x, nw):  # pragma: no cover - compiled
    for i in range(nw):
        if ws[x, i] != 0:
            return False
    return True


@njit(cache=True, nogil=True, inline='always')
def _w_fill_down(ws, gen, pro, o, nw):  # pragma: no cover - compiled
    """Row ``o`` = :func:`_fill_down` of rows ``gen``, ``pro`` over the words, from the top word
    down: a fill that reaches bit 0 of a word goes on at the top bit of the word below when that
    bit is in ``pro`` (``o`` may be ``gen``)."""
    carry = 0
    for i in range(nw - 1, -1, -1):
        p = ws[pro, i]
        g = ws[gen, i]
        if carry:
            g |= p & (1 << (LIMB - 1))
        g = _fill_down(g, p)
        ws[o, i] = g
        carry = g & 1


@njit(cache=True, nogil=True, inline='always')
def _w_reach(ws, seeds, o, nw):  # pragma: no cover - compiled
    """Row ``o`` = ``seeds | ((e + t) ^ e) | t`` with ``t = seeds & e`` (``e`` = row
    :data:`_E`): every cell reachable upwards from a seed through may-be-empty cells (a
    carry-propagating addition over the words), and the seeds; ``o`` may be ``seeds``."""
    carry = 0
    for i in range(nw):
        sd = ws[seeds, i]
        e = ws[_E, i]
        t = sd & e
        sm = e + t + carry
        carry = sm >> LIMB
        ws[o, i] = sd | ((sm & _LMASK) ^ e) | t


@njit(cache=True, nogil=True)
def line_masks_words(clue, n, ws):  # pragma: no cover - compiled
    """:func:`line_masks` on multi-word masks, for lines of any length: the bit-parallel complete
    line solver, each mask a row of ``W = words_for(n)`` words of :data:`LIMB` cells (bit ``b``
    of word ``i`` is cell ``62 * i + b``) in the scratch ``ws``.

    Parameters
    ----------
    clue : ndarray of int32, shape (k,)
        Block lengths, all positive.
    n : int
        Line length.
    ws : ndarray of int64, shape (>= 12 + k, >= W)
        Scratch (:func:`words_scratch`).  In: rows 7 and 8, the cells that may be empty / may be
        filled (no bit at or above ``n``).  Out: rows 9 and 10, the cells that may be empty /
        filled in some consistent arrangement.  Rows 12.. hold each block's start positions.

    Returns
    -------
    bool
        ``False`` when no arrangement is consistent (rows 9 and 10 are then undefined).

    The steps are those of :func:`line_masks` (same algorithm), with shifts, ANDs, additions and
    the occluded fill carried across words; every mask is a row of one 2-D array, indexed
    directly (slicing views would cost reference counting on every use).
    """
    nw = (n + LIMB - 1) // LIMB
    if nw == 0:
        nw = 1
    k = clue.shape[0]
    _w_low(ws, _FULL, nw, n)
    for i in range(nw):
        ws[_NE, i] = ws[_FULL, i] & ~ws[_E, i]
    if k == 0:
        if not _w_zero(ws, _NE, nw):
            return False
        for i in range(nw):
            ws[_CE, i] = ws[_FULL, i]
            ws[_CF, i] = 0
        return True
    z0 = n
    last = 0
    for i in range(nw):
        if ws[_NE, i] != 0:
            z0 = i * LIMB + trailing_zeros(ws[_NE, i])  # type: ignore[call-arg]  # numba intrinsic: stub gap
            break
    for i in range(nw - 1, -1, -1):
        if ws[_NE, i] != 0:
            last = i * LIMB + 64 - leading_zeros(ws[_NE, i])  # type: ignore[call-arg]  # numba intrinsic: stub gap
            break
    # forward pass: starts consistent with the prefix
    _w_low(ws, _REACH, nw, z0 + 1)
    for j in range(k):
        c = clue[j]
        if c > n:
            return False
        sj = _WT + j
        for i in range(nw):
            ws[_FIT, i] = ws[_F, i]
        length = 1
        while length * 2 <= c:
            _w_shr(ws, _FIT, _TMP, nw, length)
            for i in range(nw):
                ws[_FIT, i] &= ws[_TMP, i]
            length *= 2
        _w_shr(ws, _FIT, _TMP, nw, c - length)
        for i in range(nw):
            ws[_FIT, i] &= ws[_TMP, i]
        _w_low(ws, _TMP, nw, n - c + 1)
        for i in range(nw):
            ws[_FIT, i] &= ws[_TMP, i]
        if j < k - 1:
            _w_shr(ws, _E, _TMP, nw, c)
            for i in range(nw):
                ws[_FIT, i] &= ws[_TMP, i]
        else:
            _w_low(ws, _TMP, nw, max(last - c, 0))
            for i in range(nw):
                ws[_FIT, i] &= ~ws[_TMP, i]
        for i in range(nw):
            ws[sj, i] = ws[_REACH, i] & ws[_FIT, i]
        if _w_zero(ws, sj, nw):
            return False
        if j < k - 1:
            _w_shl(ws, sj, _TMP, nw, c + 1)
            for i in range(nw):
                ws[_TMP, i] &= ws[_FULL, i]
            _w_reach(ws, _TMP, _REACH, nw)
            for i in range(nw):
                ws[_REACH, i] &= ws[_FULL, i]
    # backward pass: keep starts from which the rest of the line can be completed
    for j in range(k - 2, -1, -1):
        c = clue[j]
        sj = _WT + j
        _w_shr(ws, sj + 1, _TMP, nw, 1)
        for i in range(nw):
            ws[_TMP, i] &= ws[_E, i]
        _w_fill_down(ws, _TMP, _E, _Q, nw)
        for i in range(nw):
            ws[_Q, i] |= ws[sj + 1, i]
        _w_shr(ws, _Q, _Q, nw, c + 1)
        for i in range(nw):
            ws[sj, i] &= ws[_Q, i]
        if _w_zero(ws, sj, nw):
            return False
    # cells that may be filled: covered by a surviving start
    for i in range(nw):
        ws[_CF, i] = 0
    for j in range(k):
        c = clue[j]
        for i in range(nw):
            ws[_COV, i] = ws[_WT + j, i]
        length = 1
        while length * 2 <= c:
            _w_shl(ws, _COV, _TMP, nw, length)
            for i in range(nw):
                ws[_COV, i] |= ws[_TMP, i]
            length *= 2
        _w_shl(ws, _COV, _TMP, nw, c - length)
        for i in range(nw):
            ws[_CF, i] |= ws[_COV, i] | ws[_TMP, i]
    # cells that may be empty: gap 0 (before block 0), then the gap after each block
    _w_shr(ws, _WT, _TMP, nw, 1)
    for i in range(nw):
        ws[_TMP, i] &= ws[_E, i]
    _w_fill_down(ws, _TMP, _E, _Q, nw)
    _w_low(ws, _TMP, nw, z0)
    for i in range(nw):
        ws[_CE, i] = ws[_TMP, i] & ws[_Q, i]
    for j in range(1, k + 1):
        c = clue[j - 1]
        _w_shl(ws, _WT + j - 1, _COV, nw, c)  # seeds: one past the end of block j - 1
        for i in range(nw):
            ws[_COV, i] &= ws[_FULL, i] & ws[_E, i]
        _w_reach(ws, _COV, _COV, nw)  # left: reachable from the end of block j - 1 ...
        if j < k:
            _w_shr(ws, _WT + j, _TMP, nw, 1)
            for i in range(nw):
                ws[_TMP, i] &= ws[_E, i]
            _w_fill_down(ws, _TMP, _E, _Q, nw)  # right: ... and from the start of block j
        else:
            _w_low(ws, _Q, nw, last)
            for i in range(nw):
                ws[_Q, i] = ws[_FULL, i] & ~ws[_Q, i]
        for i in range(nw):
            ws[_CE, i] |= ws[_COV, i] & ws[_E, i] & ws[_Q, i]
    for i in range(nw):
        ws[_CE, i] &= ws[_FULL, i]
        ws[_CF, i] &= ws[_FULL, i]
    return True


@njit(cache=True, nogil=True, inline='always')
def _shr2(lo, hi, k):  # pragma: no cover - compiled
    """``(lo, hi) >> k`` on a two-word mask."""
    if k == 0:
        return lo, hi
    if k >= LIMB:
        k -= LIMB
        return (hi >> k if k < LIMB else 0), 0
    return (lo >> k) | ((hi << (LIMB - k)) & _LMASK), hi >> k


@njit(cache=True, nogil=True, inline='always')
def _shl2(lo, hi, k):  # pragma: no cover - compiled
    """``(lo, hi) << k`` on a two-word mask, bits past the second word dropped."""
    if k == 0:
        return lo, hi
    if k >= LIMB:
        k -= LIMB
        return 0, ((lo << k) & _LMASK if k < LIMB else 0)
    return (lo << k) & _LMASK, ((hi << k) & _LMASK) | (lo >> (LIMB - k))


@njit(cache=True, nogil=True, inline='always')
def _low2(k):  # pragma: no cover - compiled
    """The bits ``0..k-1`` as a two-word mask (``k`` >= 0)."""
    if k >= 2 * LIMB:
        return _LMASK, _LMASK
    if k >= LIMB:
        return _LMASK, (1 << (k - LIMB)) - 1
    return (1 << k) - 1, 0


@njit(cache=True, nogil=True, inline='always')
def _fill2(g0, g1, p0, p1):  # pragma: no cover - compiled
    """:func:`_fill_down` on a two-word mask."""
    g1 = _fill_down(g1, p1)
    if g1 & 1:
        g0 |= p0 & (1 << (LIMB - 1))
    return _fill_down(g0, p0), g1


@njit(cache=True, nogil=True, inline='always')
def _reach2(s0, s1, e0, e1):  # pragma: no cover - compiled
    """``s | ((e + t) ^ e) | t`` with ``t = s & e`` on two-word masks (see :func:`_w_reach`)."""
    t0 = s0 & e0
    t1 = s1 & e1
    m0 = e0 + t0
    m1 = e1 + t1 + (m0 >> LIMB)
    return s0 | ((m0 & _LMASK) ^ e0) | t0, s1 | ((m1 & _LMASK) ^ e1) | t1


@njit(cache=True, nogil=True)
def line_masks2(clue, n, e0, e1, f0, f1, starts):  # pragma: no cover - compiled
    """:func:`line_masks` for lines of :data:`LIMB` + 1 to 2 x :data:`LIMB` cells (63-124), each
    mask two words ``(low, high)`` of :data:`LIMB` cells kept in registers: the same steps as
    :func:`line_masks` and :func:`line_masks_words`, with the two-word shifts, additions and
    fills written out.  ``starts`` is int64 scratch of at least ``2 * k`` entries.

    Returns ``(ok, can_e_low, can_e_high, can_f_low, can_f_high)``.
    """
    k = clue.shape[0]
    full0, full1 = _low2(n)
    ne0 = full0 & ~e0
    ne1 = full1 & ~e1
    if k == 0:
        if ne0 != 0 or ne1 != 0:
            return False, 0, 0, 0, 0
        return True, full0, full1, 0, 0
    z0 = n
    last = 0
    if ne0 != 0:
        z0 = trailing_zeros(ne0)  # type: ignore[call-arg]  # numba intrinsic: stub gap
    elif ne1 != 0:
        z0 = LIMB + trailing_zeros(ne1)  # type: ignore[call-arg]  # numba intrinsic: stub gap
    if ne1 != 0:
        last = LIMB + 64 - leading_zeros(ne1)  # type: ignore[call-arg]  # numba intrinsic: stub gap
    elif ne0 != 0:
        last = 64 - leading_zeros(ne0)  # type: ignore[call-arg]  # numba intrinsic: stub gap
    r0, r1 = _low2(z0 + 1)
    for j in range(k):
        c = clue[j]
        if c > n:
            return False, 0, 0, 0, 0
        a0 = f0
        a1 = f1
        length = 1
        while length * 2 <= c:
            b0, b1 = _shr2(a0, a1, length)
            a0 &= b0
            a1 &= b1
            length *= 2
        b0, b1 = _shr2(a0, a1, c - length)
        a0 &= b0
        a1 &= b1
        b0, b1 = _low2(n - c + 1)
        a0 &= b0
        a1 &= b1
        if j < k - 1:
            b0, b1 = _shr2(e0, e1, c)
            a0 &= b0
            a1 &= b1
        else:
            b0, b1 = _low2(max(last - c, 0))
            a0 &= ~b0
            a1 &= ~b1
        s0 = r0 & a0
        s1 = r1 & a1
        if s0 == 0 and s1 == 0:
            return False, 0, 0, 0, 0
        starts[2 * j] = s0
        starts[2 * j + 1] = s1
        if j < k - 1:
            b0, b1 = _shl2(s0, s1, c + 1)
            r0, r1 = _reach2(b0 & full0, b1 & full1, e0, e1)
            r0 &= full0
            r1 &= full1
    for j in range(k - 2, -1, -1):
        c = clue[j]
        x0 = starts[2 * j + 2]
        x1 = starts[2 * j + 3]
        b0, b1 = _shr2(x0, x1, 1)
        q0, q1 = _fill2(b0 & e0, b1 & e1, e0, e1)
        q0, q1 = _shr2(q0 | x0, q1 | x1, c + 1)
        s0 = starts[2 * j] & q0
        s1 = starts[2 * j + 1] & q1
        if s0 == 0 and s1 == 0:
            return False, 0, 0, 0, 0
        starts[2 * j] = s0
        starts[2 * j + 1] = s1
    cf0 = 0
    cf1 = 0
    for j in range(k):
        c = clue[j]
        v0 = starts[2 * j]
        v1 = starts[2 * j + 1]
        length = 1
        while length * 2 <= c:
            b0, b1 = _shl2(v0, v1, length)
            v0 |= b0
            v1 |= b1
            length *= 2
        b0, b1 = _shl2(v0, v1, c - length)
        cf0 |= v0 | b0
        cf1 |= v1 | b1
    b0, b1 = _shr2(starts[0], starts[1], 1)
    q0, q1 = _fill2(b0 & e0, b1 & e1, e0, e1)
    b0, b1 = _low2(z0)
    ce0 = b0 & q0
    ce1 = b1 & q1
    for j in range(1, k + 1):
        c = clue[j - 1]
        b0, b1 = _shl2(starts[2 * j - 2], starts[2 * j - 1], c)
        v0, v1 = _reach2(b0 & full0 & e0, b1 & full1 & e1, e0, e1)
        if j < k:
            b0, b1 = _shr2(starts[2 * j], starts[2 * j + 1], 1)
            q0, q1 = _fill2(b0 & e0, b1 & e1, e0, e1)
        else:
            b0, b1 = _low2(last)
            q0 = full0 & ~b0
            q1 = full1 & ~b1
        ce0 |= v0 & e0 & q0
        ce1 |= v1 & e1 & q1
    return True, ce0 & full0, ce1 & full1, cf0 & full0, cf1 & full1


@njit(cache=True, nogil=True)
def line_kernel_words(clue, cells, out, ws):  # pragma: no cover - compiled
    """Bit-parallel complete line solver on multi-word masks, any line length
    (:func:`line_masks_words`).  Same contract as :func:`line_kernel_dp`; ``ws`` is scratch of
    :func:`words_scratch` for at least ``len(cells)`` cells."""
    n = cells.shape[0]
    nw = (n + LIMB - 1) // LIMB
    if nw == 0:
        nw = 1
    for wi in range(nw):
        e = 0
        f = 0
        base = wi * LIMB
        for b in range(min(LIMB, n - base)):
            v = cells[base + b]
            e |= (v & 1) << b
            f |= ((v >> 1) & 1) << b
        ws[_E, wi] = e
        ws[_F, wi] = f
    if nw == 2:
        ok, ce0, ce1, cf0, cf1 = line_masks2(clue, n, ws[_E, 0], ws[_E, 1], ws[_F, 0],
                                             ws[_F, 1], ws[_WT:].reshape(-1))
        if not ok:
            return False
        ws[_CE, 0] = ce0
        ws[_CE, 1] = ce1
        ws[_CF, 0] = cf0
        ws[_CF, 1] = cf1
    elif not line_masks_words(clue, n, ws):
        return False
    for wi in range(nw):
        ce = ws[_CE, wi]
        cf = ws[_CF, wi]
        base = wi * LIMB
        for b in range(min(LIMB, n - base)):
            out[base + b] = ((ce >> b) & 1) | (((cf >> b) & 1) << 1)
    return True


@njit(cache=True, nogil=True)
def line_kernel(clue: np.ndarray, cells: np.ndarray, out: np.ndarray) -> bool:  # pragma: no cover
    """Compiled complete line solver: the bit-parallel kernel for lines of at most
    :data:`BITS_MAX_LINE` cells, its multi-word form (:func:`line_kernel_words`) for longer
    ones.  Same contract as :func:`line_kernel_dp`."""
    n = cells.shape[0]
    if n <= BITS_MAX_LINE:
        starts = np.empty(max(clue.shape[0], 1), np.int64)
        return line_kernel_bits(clue, cells, out, starts)
    nw = (n + LIMB - 1) // LIMB
    ws = np.empty((_WT + clue.shape[0] + 1, nw), np.int64)
    return line_kernel_words(clue, cells, out, ws)


@njit(cache=True, nogil=True)
def line_kernel_dp(clue: np.ndarray, cells: np.ndarray, out: np.ndarray) -> bool:  # pragma: no cover
    """Compiled complete line solver (dynamic programme, any line length).

    Parameters
    ----------
    clue : ndarray of int32, shape (k,)
        Block lengths, all positive.
    cells : ndarray of int8, shape (n,)
        Cell states (bit sets: 1 empty possible, 2 filled possible).
    out : ndarray of int8, shape (n,)
        Receives the possible values of every cell over all consistent arrangements.

    Returns
    -------
    bool
        ``False`` if no arrangement is consistent with ``cells`` (``out`` is then undefined).
    """
    n = cells.shape[0]
    k = clue.shape[0]
    # pe[i]: number of cells in [0, i) that cannot be filled
    pe = np.zeros(n + 1, np.int32)
    for i in range(n):
        pe[i + 1] = pe[i] + (1 if (cells[i] & 2) == 0 else 0)
    f = np.zeros((k + 1, n + 1), np.bool_)
    f[0, 0] = True
    for i in range(1, n + 1):
        can_empty = (cells[i - 1] & 1) != 0
        for j in range(k + 1):
            v = can_empty and f[j, i - 1]
            if not v and j > 0:
                s = i - clue[j - 1]
                if s >= 0 and pe[i] == pe[s]:
                    if s == 0:
                        v = j == 1
                    else:
                        v = (cells[s - 1] & 1) != 0 and f[j - 1, s - 1]
            f[j, i] = v
    if not f[k, n]:
        return False
    b = np.zeros((k + 1, n + 1), np.bool_)
    b[k, n] = True
    for i in range(n - 1, -1, -1):
        can_empty = (cells[i] & 1) != 0
        for j in range(k, -1, -1):
            v = can_empty and b[j, i + 1]
            if not v and j < k:
                e = i + clue[j]
                if e <= n and pe[e] == pe[i]:
                    if e == n:
                        v = j == k - 1
                    else:
                        v = (cells[e] & 1) != 0 and b[j + 1, e + 1]
            b[j, i] = v
    diff = np.zeros(n + 1, np.int32)
    for j in range(k):
        c = clue[j]
        for s in range(n - c + 1):
            e = s + c
            if pe[e] != pe[s]:
                continue
            if s == 0:
                ok = j == 0
            else:
                ok = (cells[s - 1] & 1) != 0 and f[j, s - 1]
            if not ok:
                continue
            if e == n:
                ok = j == k - 1
            else:
                ok = (cells[e] & 1) != 0 and b[j + 1, e + 1]
            if ok:
                diff[s] += 1
                diff[e] -= 1
    run = 0
    for i in range(n):
        run += diff[i]
        v = 2 if run > 0 else 0
        if cells[i] & 1:
            for j in range(k + 1):
                if f[j, i] and b[j, i + 1]:
                    v |= 1
                    break
        out[i] = v
    return True


def solve_line(
    clue: Sequence[int], cells: Sequence[int] | np.ndarray, method: str = "auto"
) -> np.ndarray | None:
    """Every value each cell can take in some arrangement of ``clue`` consistent with ``cells``.

    Parameters
    ----------
    clue : sequence of int
        Positive block lengths (``()`` for an empty line).
    cells : sequence of Cell / int, length n
        Current states of the line's cells.
    method : {"auto", "dp", "bits", "words"}
        Kernel: ``"dp"`` the dynamic programme, ``"bits"`` the bit-parallel one (lines of at most
        :data:`BITS_MAX_LINE` cells), ``"words"`` its multi-word form (any length), ``"auto"``
        the bit-parallel one for short lines and the multi-word one for longer lines.

    Returns
    -------
    ndarray of int8, shape (n,), or None
        New cell states (each a subset of the input state); ``None`` when the line is
        contradictory.

    Examples
    --------
    >>> from nonosat.puzzle import Cell
    >>> [Cell(v).name for v in solve_line([3], [Cell.UNKNOWN] * 4)]
    ['UNKNOWN', 'FILLED', 'FILLED', 'UNKNOWN']
    """
    c = np.asarray(clue, dtype=np.int32)
    line = np.asarray(cells, dtype=np.int8)
    out = np.empty_like(line)
    if method == "dp":
        ok = line_kernel_dp(c, line, out)
    elif method == "bits":
        if line.shape[0] > BITS_MAX_LINE:
            raise ValueError(f"the bit-parallel kernel takes lines of at most {BITS_MAX_LINE} cells")
        ok = line_kernel_bits(c, line, out, np.empty(max(len(c), 1), np.int64))
    elif method == "words":
        ws = np.zeros((_WT + len(c) + 1, words_for(line.shape[0])), np.int64)
        ok = line_kernel_words(c, line, out, ws)
    else:
        ok = line_kernel(c, line, out)
    return out if ok else None


def forced_cells(clue: Sequence[int], cells: Sequence[int] | np.ndarray) -> list[tuple[int, Cell]]:
    """Cells of an unknown state that ``clue`` forces: ``[(position, Cell.FILLED|EMPTY), ...]``.

    Raises
    ------
    ValueError
        The line is contradictory.
    """
    line = np.asarray(cells, dtype=np.int8)
    out = solve_line(clue, line)
    if out is None:
        raise ValueError("the line contradicts its clue")
    return [(i, Cell(int(v))) for i, (v, old) in enumerate(zip(out, line, strict=True)) if v != old]


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
