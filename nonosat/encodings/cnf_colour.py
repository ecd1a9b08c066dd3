"""CNF encoding of colour puzzles (webpbn rules), for the SAT engine and colour certificates.

Variables
---------
* **cell colour** ``x(r, c, k)`` = ``1 + (r * width + c) * C + k``: cell ``(r, c)`` has colour
  ``k`` (``0`` = background, ``C`` colours in all); exactly one per cell (one at-least-one clause
  and pairwise at-most-one clauses);
* **block start** ``s(line, b, p)``: block ``b`` of the line starts at cell ``p``, for ``p`` in the
  block's feasible range (from the colour-aware minimal lengths of the blocks before and after it);
  exactly one per block (at-least-one clause and a sequential-counter at-most-one, Sinz 2005).

Line clauses
------------
* a start colours its cells: ``s(b, p) -> x(i, colour_b)`` for ``p <= i < p + len_b``, and when the
  next block has the same colour, ``s(b, p) -> x(p + len_b, 0)`` (the mandatory gap);
* blocks keep their order and gaps: ``s(b, p) -> OR s(b + 1, q)`` over ``q >= p + len_b + gap``, and
  ``s(b + 1, q) -> OR s(b, p)`` over ``p <= q - len_b - gap`` (``gap`` = 1 for the same colour, else 0);
* a coloured cell is covered: ``x(i, k) -> OR s(b, p)`` over the blocks ``b`` of colour ``k`` and
  starts ``p`` covering ``i`` (a unit ``-x(i, k)`` where none can).

Exactly one start per block, in order, each colouring its cells, and no colour without a covering
block make the line's cells exactly the placement: the encoding is sound and complete.  Uniqueness
is decided by the blocking clause of the first solution (``OR -x(r, c, sol[r, c])``).

This module builds only on :mod:`nonosat.puzzle`; it never imports the native solver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.puzzle import Puzzle

Clause = list[int]


@dataclass
class ColourCnf:
    """A colour puzzle as CNF.

    Attributes
    ----------
    height, width, ncol : int
    nvars : int
        Variables used (cell colour variables first: ``1 .. height * width * ncol``).
    clauses : list of list of int
        DIMACS clauses.
    """

    height: int
    width: int
    ncol: int
    nvars: int
    clauses: list[Clause] = field(default_factory=list)

    def cell_var(self, r: int, c: int, k: int) -> int:
        """Variable of "cell ``(r, c)`` has colour ``k``"."""
        return 1 + (r * self.width + c) * self.ncol + k

    def solution(self, model: Sequence[int]) -> np.ndarray:
        """Colour indices (int8, ``(height, width)``) of a satisfying assignment ``model``
        (a list of DIMACS literals)."""
        true = np.zeros(self.nvars + 1, dtype=bool)
        lits = np.asarray(model, dtype=np.int64)
        lits = lits[(lits > 0) & (lits <= self.nvars)]
        true[lits] = True
        cells = true[1 : 1 + self.height * self.width * self.ncol].reshape(
            self.height, self.width, self.ncol
        )
        return cells.argmax(axis=2).astype(np.int8)

    def blocking_clause(self, solution: np.ndarray) -> Clause:
        """The clause that excludes ``solution`` (colour indices): some cell differs."""
        sol = np.asarray(solution, dtype=np.int64)
        return [
            -self.cell_var(r, c, int(sol[r, c]))
            for r in range(self.height)
            for c in range(self.width)
        ]


def encode_colour(puzzle: Puzzle, partial: np.ndarray | None = None) -> ColourCnf:
    """The CNF of ``puzzle`` (colour, or black-and-white as two colours), restricted to the
    grid state ``partial`` (colour bit masks, shape ``(height, width)``) when given.

    Raises
    ------
    PuzzleError
        ``partial`` has the wrong shape.
    """
    h, w, ncol = puzzle.height, puzzle.width, puzzle.n_colours
    enc = ColourCnf(h, w, ncol, h * w * ncol)
    out = enc.clauses
    x = enc.cell_var
    for r in range(h):
        for c in range(w):
            out.append([x(r, c, k) for k in range(ncol)])
            for a in range(ncol):
                for b in range(a + 1, ncol):
                    out.append([-x(r, c, a), -x(r, c, b)])
    for line, (clue, colours) in enumerate(zip(puzzle.lines, puzzle.line_colours, strict=True)):
        if clue is None:
            continue
        if line < h:
            cells = [(line, c) for c in range(w)]
        else:
            cells = [(r, line - h) for r in range(h)]
        _encode_line(enc, list(clue), list(colours or ()), cells)
    if partial is not None:
        state = np.asarray(partial, dtype=np.int64)
        if state.shape != puzzle.shape:
            raise PuzzleError(f"partial grid has shape {state.shape}, expected {puzzle.shape}")
        for (r, c), mask in np.ndenumerate(state):
            for k in range(ncol):
                if not (int(mask) >> k) & 1:
                    out.append([-x(r, c, k)])
    return enc


def _new_var(enc: ColourCnf) -> int:
    enc.nvars += 1
    return enc.nvars


def _at_most_one(enc: ColourCnf, lits: list[int]) -> None:
    """Sequential counter at-most-one (Sinz, "Towards an optimal CNF encoding of Boolean
    cardinality constraints", CP 2005): ``n - 1`` auxiliary variables, ``3n - 4`` clauses."""
    n = len(lits)
    if n <= 4:
        for i in range(n):
            for j in range(i + 1, n):
                enc.clauses.append([-lits[i], -lits[j]])
        return
    aux = [_new_var(enc) for _ in range(n - 1)]
    out = enc.clauses
    out.append([-lits[0], aux[0]])
    for i in range(1, n - 1):
        out.append([-lits[i], aux[i]])
        out.append([-aux[i - 1], aux[i]])
        out.append([-lits[i], -aux[i - 1]])
    out.append([-lits[n - 1], -aux[n - 2]])


def _encode_line(
    enc: ColourCnf, lens: list[int], cols: list[int], cells: list[tuple[int, int]]
) -> None:
    n = len(cells)
    k = len(lens)
    out = enc.clauses

    def x(i: int, colour: int) -> int:
        return enc.cell_var(cells[i][0], cells[i][1], colour)

    if k == 0:
        for i in range(n):
            out.append([x(i, 0)])
        return
    gap = [1 if b + 1 < k and cols[b] == cols[b + 1] else 0 for b in range(k)]
    earliest = [0] * k
    for b in range(1, k):
        earliest[b] = earliest[b - 1] + lens[b - 1] + gap[b - 1]
    latest = [0] * k
    latest[k - 1] = n - lens[k - 1]
    for b in range(k - 2, -1, -1):
        latest[b] = latest[b + 1] - lens[b] - gap[b]
    if latest[0] < 0 or earliest[k - 1] > latest[k - 1]:
        out.append([])  # the clue cannot fit (the model refuses such puzzles; kept for safety)
        return
    start: list[dict[int, int]] = []
    for b in range(k):
        vars_b = {p: _new_var(enc) for p in range(earliest[b], latest[b] + 1)}
        start.append(vars_b)
        out.append(list(vars_b.values()))
        _at_most_one(enc, list(vars_b.values()))
        for p, s in vars_b.items():
            for i in range(p, p + lens[b]):
                out.append([-s, x(i, cols[b])])
            if gap[b]:
                out.append([-s, x(p + lens[b], 0)])
    for b in range(k - 1):
        step = lens[b] + gap[b]
        for p, s in start[b].items():
            out.append([-s] + [t for q, t in start[b + 1].items() if q >= p + step])
        for q, t in start[b + 1].items():
            out.append([-t] + [s for p, s in start[b].items() if p <= q - step])
    colours = sorted(set(cols))
    for i in range(n):
        for colour in range(1, enc.ncol):
            cover = []
            if colour in colours:
                for b in range(k):
                    if cols[b] != colour:
                        continue
                    for p in range(max(earliest[b], i - lens[b] + 1), min(latest[b], i) + 1):
                        cover.append(start[b][p])
            out.append([-x(i, colour)] + cover)
