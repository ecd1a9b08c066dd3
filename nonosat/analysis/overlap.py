"""The simple overlap technique: where each block of a clue can lie, and what that forces.

For every block of a line's clue, the *range* of starts it can take in some arrangement that
fits the known cells is ``[lo, hi]``.  In every arrangement the block then covers
``[hi, lo + length)`` -- the overlap of its leftmost and rightmost placements, the first thing a
person fills in ("the 3 must cover columns 5-6") -- and a cell outside every block's reach
``[lo, hi + length)`` is empty.  On an empty line this is the textbook "simple boxes / simple
spaces" rule; with known cells it is the same rule on the narrowed ranges.  It never finds more
than the complete line solver (:mod:`nonosat.native.line`), and often less: it does not combine the
blocks' placements, so hints try it first as the easier technique.

The ranges come from the same prefix/suffix dynamic programming as the line solver
(Batenburg & Kosters 2009), written here in plain Python for explanation purposes: lines are
short and the results are cached by the hint finder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nonosat.puzzle import Cell


@dataclass(frozen=True)
class Overlap:
    """What the overlap rule forces on one line.

    Attributes
    ----------
    ranges : list of (int, int)
        Per block, the lowest and highest start (0-based) over the arrangements that fit.
    covered : list of (int, int)
        Per block, the half-open interval ``[start, end)`` it covers in every arrangement
        (``start >= end`` when it has no sure cells).
    filled : list of int
        Unknown positions the rule fills.
    empty : list of int
        Unknown positions the rule empties (out of reach of every block).
    """

    ranges: list[tuple[int, int]]
    covered: list[tuple[int, int]]
    filled: list[int]
    empty: list[int]


def block_ranges(clue: Sequence[int], cells: Sequence[int]) -> list[tuple[int, int]] | None:
    """Lowest and highest start of each block over the arrangements consistent with ``cells``.

    Parameters
    ----------
    clue : sequence of int
        Block lengths.
    cells : sequence of Cell / int, length n
        Line state (bit sets: 1 empty possible, 2 filled possible).

    Returns
    -------
    list of (int, int) or None
        ``[(lo, hi), ...]`` per block; ``None`` when no arrangement fits.

    Examples
    --------
    >>> block_ranges([3], [3] * 5)
    [(0, 2)]
    """
    n, k = len(cells), len(clue)
    can_e = [bool(v & 1) for v in cells]
    can_f = [bool(v & 2) for v in cells]
    blocked = [0] * (n + 1)  # blocked[i]: cells in [0, i) that cannot be filled
    for i in range(n):
        blocked[i + 1] = blocked[i] + (0 if can_f[i] else 1)

    def fillable(s: int, e: int) -> bool:
        return blocked[e] == blocked[s]

    # fwd[j][i]: the prefix [0, i) holds exactly the first j blocks
    fwd = [[False] * (n + 1) for _ in range(k + 1)]
    fwd[0][0] = True
    for i in range(1, n + 1):
        for j in range(k + 1):
            ok = can_e[i - 1] and fwd[j][i - 1]
            if not ok and j > 0:
                s = i - clue[j - 1]
                if s >= 0 and fillable(s, i):
                    ok = (j == 1) if s == 0 else (can_e[s - 1] and fwd[j - 1][s - 1])
            fwd[j][i] = ok
    if not fwd[k][n]:
        return None
    # bwd[j][i]: the suffix [i, n) holds exactly the blocks j..k-1
    bwd = [[False] * (n + 1) for _ in range(k + 1)]
    bwd[k][n] = True
    for i in range(n - 1, -1, -1):
        for j in range(k, -1, -1):
            ok = can_e[i] and bwd[j][i + 1]
            if not ok and j < k:
                e = i + clue[j]
                if e <= n and fillable(i, e):
                    ok = (j == k - 1) if e == n else (can_e[e] and bwd[j + 1][e + 1])
            bwd[j][i] = ok
    out = []
    for j, length in enumerate(clue):
        starts = []
        for s in range(n - length + 1):
            e = s + length
            if not fillable(s, e):
                continue
            left = (j == 0) if s == 0 else (can_e[s - 1] and fwd[j][s - 1])
            right = (j == k - 1) if e == n else (can_e[e] and bwd[j + 1][e + 1])
            if left and right:
                starts.append(s)
        out.append((starts[0], starts[-1]))
    return out


def overlap(clue: Sequence[int], cells: Sequence[int]) -> Overlap | None:
    """Apply the overlap rule to one line.

    Parameters
    ----------
    clue : sequence of int
    cells : sequence of Cell / int
        Line state.

    Returns
    -------
    Overlap or None
        ``None`` when the line contradicts its clue.

    Examples
    --------
    >>> overlap([3], [3] * 4).filled
    [1, 2]
    """
    ranges = block_ranges(clue, cells)
    if ranges is None:
        return None
    n = len(cells)
    covered = [(hi, lo + length) for (lo, hi), length in zip(ranges, clue, strict=True)]
    sure = [False] * n
    for start, end in covered:
        for i in range(start, end):
            sure[i] = True
    reach = [False] * n
    for (lo, hi), length in zip(ranges, clue, strict=True):
        for i in range(lo, hi + length):
            reach[i] = True
    filled = [i for i in range(n) if sure[i] and cells[i] == Cell.UNKNOWN]
    empty = [i for i in range(n) if not reach[i] and cells[i] == Cell.UNKNOWN]
    return Overlap(ranges, covered, filled, empty)
