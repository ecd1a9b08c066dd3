"""A quick look for a second solution next to a known one: a 2x2 swap.

Many puzzles with several solutions have a local ambiguity: four cells at the corners of a
rectangle, filled on one diagonal and empty on the other, that can be flipped to the other
diagonal without changing any clue.  Finding one decides "multiple" at once, instead of a second
SAT call (or more native search) that must look for it.  The check costs O(n^3) per line in
compiled code (well under a millisecond on a 25x25 puzzle).

For every line the **moves** that keep its clue are listed: a filled cell ``a`` becomes empty and
an empty cell ``b`` becomes filled.  A swap is four moves that fit together: row ``r1`` moves
``c1 -> c2``, row ``r2`` moves ``c2 -> c1``, column ``c1`` moves ``r1 -> r2`` and column ``c2``
moves ``r2 -> r1``; each line involved changes in exactly those two cells, so every clue still
holds and the new grid is a solution.
"""

from __future__ import annotations

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.puzzle import Puzzle, pack_clues


@njit(cache=True, nogil=True)
def _line_ok(cells, clue):  # pragma: no cover - compiled
    """Whether the 0/1 ``cells`` have exactly the runs ``clue``."""
    k = 0
    run = 0
    for i in range(cells.shape[0] + 1):
        if i < cells.shape[0] and cells[i]:
            run += 1
        elif run:
            if k >= clue.shape[0] or clue[k] != run:
                return False
            k += 1
            run = 0
    return k == clue.shape[0]


@njit(cache=True, nogil=True)
def _line_moves(cells, clue, known, moves):  # pragma: no cover - compiled
    """``moves[a, b] = True`` when filled ``a`` -> empty and empty ``b`` -> filled keeps the
    clue (every move of a line whose clue is unknown)."""
    n = cells.shape[0]
    work = cells.copy()
    for a in range(n):
        if not cells[a]:
            continue
        for b in range(n):
            if cells[b]:
                continue
            if not known:
                moves[a, b] = True
                continue
            work[a] = 0
            work[b] = 1
            moves[a, b] = _line_ok(work, clue)
            work[a] = 1
            work[b] = 0


@njit(cache=True, nogil=True)
def swap_kernel(grid, blocks, start, known):  # pragma: no cover - compiled
    """``(r1, c1, r2, c2)`` of a clue-preserving 2x2 swap of ``grid`` (uint8, (h, w), a
    solution), cells ``(r1, c1)`` and ``(r2, c2)`` filled; ``(-1, -1, -1, -1)`` if there is none."""
    h, w = grid.shape
    rmoves = np.zeros((h, w, w), dtype=np.bool_)
    cmoves = np.zeros((w, h, h), dtype=np.bool_)
    for r in range(h):
        _line_moves(grid[r, :].copy(), blocks[start[r]:start[r + 1]], known[r], rmoves[r])
    for c in range(w):
        line = h + c
        _line_moves(grid[:, c].copy(), blocks[start[line]:start[line + 1]], known[line], cmoves[c])
    for r1 in range(h):
        for c1 in range(w):
            if not grid[r1, c1]:
                continue
            for c2 in range(w):
                if not rmoves[r1, c1, c2]:
                    continue
                for r2 in range(h):
                    if (cmoves[c1, r1, r2] and rmoves[r2, c2, c1] and cmoves[c2, r2, r1]):
                        return r1, c1, r2, c2
    return -1, -1, -1, -1


def swap_neighbour(puzzle: Puzzle, solution: np.ndarray) -> np.ndarray | None:
    """Another solution of ``puzzle`` that differs from ``solution`` (bool, (h, w)) by one 2x2
    swap, or ``None`` if there is none.  Black-and-white puzzles only."""
    packed = pack_clues(puzzle)
    grid = np.ascontiguousarray(solution, dtype=np.uint8)
    r1, c1, r2, c2 = swap_kernel(grid, packed.blocks, packed.start, packed.known)
    if r1 < 0:
        return None
    out = np.array(solution, dtype=bool)
    out[r1, c1] = out[r2, c2] = False
    out[r1, c2] = out[r2, c1] = True
    return out


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
