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

The kernel is compiled with numba (``njit(cache=True)``); :func:`solve_line` is its Python face.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nonosat.puzzle import Cell


@njit(cache=True, nogil=True)
def line_kernel(clue: np.ndarray, cells: np.ndarray, out: np.ndarray) -> bool:  # pragma: no cover
    """Compiled complete line solver.

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


def solve_line(clue: Sequence[int], cells: Sequence[int] | np.ndarray) -> np.ndarray | None:
    """Every value each cell can take in some arrangement of ``clue`` consistent with ``cells``.

    Parameters
    ----------
    clue : sequence of int
        Positive block lengths (``()`` for an empty line).
    cells : sequence of Cell / int, length n
        Current states of the line's cells.

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
    return out if line_kernel(c, line, out) else None


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
