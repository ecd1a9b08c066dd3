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

The kernels are compiled with numba (``njit(cache=True)``), one module per formulation:
:mod:`nonosat.native.line_bits` (one int64 word, lines of at most 62 cells),
:mod:`nonosat.native.line_words` (multi-word masks, any length) and
:mod:`nonosat.native.line_dp` (the dynamic programme).  This module re-exports them and holds
:func:`line_kernel` (the compiled dispatcher) and :func:`solve_line` (their Python face).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.line_bits import BITS_MAX_LINE, line_kernel_bits, line_masks
from nonosat.native.line_dp import line_kernel_dp
from nonosat.native.line_words import (
    _WT,
    LIMB,
    line_kernel_words,
    line_masks2,
    line_masks_words,
    words_for,
    words_scratch,
)
from nonosat.puzzle import Cell

__all__ = [
    "BITS_MAX_LINE", "LIMB", "forced_cells", "line_kernel", "line_kernel_bits", "line_kernel_dp",
    "line_kernel_words", "line_masks", "line_masks2", "line_masks_words", "solve_line",
    "words_for", "words_scratch",
]


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
