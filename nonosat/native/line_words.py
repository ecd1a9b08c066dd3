"""The bit-parallel complete line solver on multi-word masks, for lines of any length.

Each mask is a row of ``words_for(n)`` int64 words of :data:`LIMB` cells; :func:`line_masks2`
keeps a two-word mask (63-124 cells) in registers, :func:`line_masks_words` works on rows of a
scratch array for any length, and :func:`line_kernel_words` is their face on a line of cell
states.  Same algorithm as :func:`nonosat.native.line_bits.line_masks` (described in
:mod:`nonosat.native.line`, which re-exports these kernels).
"""

from __future__ import annotations

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import leading_zeros, njit, trailing_zeros
from nonosat.native.line_bits import _fill_down

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
            z0 = i * LIMB + trailing_zeros(ws[_NE, i])
            break
    for i in range(nw - 1, -1, -1):
        if ws[_NE, i] != 0:
            last = i * LIMB + 64 - leading_zeros(ws[_NE, i])
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
        z0 = trailing_zeros(ne0)
    elif ne1 != 0:
        z0 = LIMB + trailing_zeros(ne1)
    if ne1 != 0:
        last = LIMB + 64 - leading_zeros(ne1)
    elif ne0 != 0:
        last = 64 - leading_zeros(ne0)
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


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
