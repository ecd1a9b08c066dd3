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


@njit(cache=True, nogil=True)
def line_kernel(clue: np.ndarray, cells: np.ndarray, out: np.ndarray) -> bool:  # pragma: no cover
    """Compiled complete line solver: the bit-parallel kernel for lines of at most
    :data:`BITS_MAX_LINE` cells, the dynamic programme otherwise.  Same contract as
    :func:`line_kernel_dp`."""
    if cells.shape[0] <= BITS_MAX_LINE:
        starts = np.empty(max(clue.shape[0], 1), np.int64)
        return line_kernel_bits(clue, cells, out, starts)
    return line_kernel_dp(clue, cells, out)


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
    method : {"auto", "dp", "bits"}
        Kernel: ``"dp"`` the dynamic programme, ``"bits"`` the bit-parallel one (lines of at most
        :data:`BITS_MAX_LINE` cells), ``"auto"`` the bit-parallel one where it applies.

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
