"""The order encoding of a whole puzzle, compiled: flat clause arrays instead of Python lists.

:func:`nonosat.encodings.cnf.encode` builds the ``order`` encoding here.  The clauses are exactly
those of the Python reference :func:`nonosat.encodings.cnf_lines._order_line` (same literals, same
clauses, same order, same auxiliary variables), so certificates re-derive the same formula and
:data:`~nonosat.encodings.cnf.ENCODING_VERSIONS` is unchanged; ``tests/test_cnf_order.py`` checks
the two against each other on random clues, lines and puzzles.

The kernels are numba functions (``njit(cache=True)``, compiled once and loaded from numba's
on-disk cache afterwards) over numpy arrays.  A puzzle's clauses come back as one int64 array of
literals and the end offset of every clause in it (clause ``i`` is ``lits[ends[i-1]:ends[i]]``), so
that building a 25x25 puzzle's ~10,000 clauses costs no Python per clause; :func:`clause_lists`
turns them into the lists of ints PySAT and the certificates take.

This module must not import :mod:`nonosat.native`: the encodings stay independent of the native
solver they are cross-checked against.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.puzzle import Cell, Puzzle

#: Truth constants inside the kernels (as :data:`nonosat.encodings.cnf_lines.TRUE`): ``-TRUE``
#: is false.
_TRUE = np.int64(1 << 40)
_FALSE = -_TRUE


@njit(cache=True, nogil=True)
def _start_var(j, p, earliest, slack, first_aux):  # pragma: no cover - compiled
    """Literal of ``S(j, p)`` (*block j starts at or before p*): false below block ``j``'s earliest
    start, true from its latest start (``earliest[j] + slack``) on, else the auxiliary variable
    ``first_aux + j * slack + (p - earliest[j])`` (allocated block by block, start by start)."""
    if p < earliest[j]:
        return _FALSE
    if p >= earliest[j] + slack:
        return _TRUE
    return first_aux + j * slack + (p - earliest[j])


@njit(cache=True, nogil=True)
def _add(lits, ends, nl, nc, a, b, c, size):  # pragma: no cover - compiled
    """Append the clause of the first ``size`` (2 or 3) of ``a, b, c`` at literal ``nl`` and
    clause ``nc``, simplifying the truth constants away: a clause with a true literal is
    dropped, false literals are left out.  Returns the new ``(nl, nc)``."""
    start = nl
    for i in range(size):
        lit = a if i == 0 else b if i == 1 else c
        if lit == _TRUE:
            return start, nc
        if lit != _FALSE:
            lits[nl] = lit
            nl += 1
    ends[nc] = nl
    return nl, nc + 1


@njit(cache=True, nogil=True)
def order_line_bound(k, n, total):  # pragma: no cover - compiled
    """Upper bound on the clauses :func:`order_line_kernel` writes for a clue of ``k`` blocks of
    ``total`` cells in all on a line of ``n`` cells (each clause has at most 3 literals)."""
    if k == 0:
        return n
    slack = n - total - k + 1
    if slack < 0:
        return 1
    return (2 * k - 1) * slack + n * (2 * k + 1)


@njit(cache=True, nogil=True)
def order_line_kernel(clue, cells, first_aux, lits, ends, nl, nc):  # pragma: no cover - compiled
    """Order encoding of block starts for one line, as the Python reference ``_order_line``.

    Parameters
    ----------
    clue : int array, shape (k,)
        Block lengths (positive).
    cells : int64 array, shape (n,)
        Literals of the line's cells, in line order.
    first_aux : int
        First free variable; the line takes ``k * slack`` of them (``slack = n + 1 - sum(clue)
        - k``, the room each block has), block by block.
    lits, ends : int64 arrays
        Output buffers: literals, and each clause's end offset in ``lits``; large enough for
        :func:`order_line_bound` more clauses of 3 literals.
    nl, nc : int
        Literals and clauses already in the buffers.

    Returns
    -------
    (nl, nc, next_aux) : the new counts and the first variable still free.  A clue that does not
    fit gives the empty clause and no variables; an empty clue the unit ``-x`` of every cell.
    """
    n = cells.shape[0]
    k = clue.shape[0]
    if k == 0:
        for x in range(n):
            lits[nl] = -cells[x]
            nl += 1
            ends[nc] = nl
            nc += 1
        return nl, nc, first_aux
    total = 0
    for j in range(k):
        total += clue[j]
    slack = n - total - k + 1  # latest[j] - earliest[j], the same for every block
    if slack < 0:
        ends[nc] = nl  # the clue does not fit: the empty clause
        return nl, nc + 1, first_aux
    earliest = np.empty(k, dtype=np.int64)
    e = 0
    for j in range(k):
        earliest[j] = e
        e += clue[j] + 1
    # order: S(j, p) -> S(j, p + 1)
    for j in range(k):
        for p in range(earliest[j], earliest[j] + slack - 1):
            lits[nl] = -_start_var(j, p, earliest, slack, first_aux)
            lits[nl + 1] = _start_var(j, p + 1, earliest, slack, first_aux)
            nl += 2
            ends[nc] = nl
            nc += 1
    # separation: S(j + 1, p) -> S(j, p - b[j] - 1); both ends are always variables
    for j in range(k - 1):
        gap = clue[j] + 1
        for p in range(earliest[j + 1], earliest[j + 1] + slack):
            lits[nl] = -_start_var(j + 1, p, earliest, slack, first_aux)
            lits[nl + 1] = _start_var(j, p - gap, earliest, slack, first_aux)
            nl += 2
            ends[nc] = nl
            nc += 1
    last = k - 1
    for x in range(n):
        cell = cells[x]
        # covered -> filled: S(j, x) & ~S(j, x - b[j]) -> x
        for j in range(k):
            if earliest[j] <= x < earliest[j] + slack + clue[j]:
                nl, nc = _add(lits, ends, nl, nc,
                              -_start_var(j, x, earliest, slack, first_aux),
                              _start_var(j, x - clue[j], earliest, slack, first_aux), cell, 3)
        # filled -> covered
        nl, nc = _add(lits, ends, nl, nc, -cell,
                      _start_var(0, x, earliest, slack, first_aux), 0, 2)
        for j in range(last):
            nl, nc = _add(lits, ends, nl, nc, -cell,
                          -_start_var(j, x - clue[j], earliest, slack, first_aux),
                          _start_var(j + 1, x, earliest, slack, first_aux), 3)
        nl, nc = _add(lits, ends, nl, nc, -cell,
                      -_start_var(last, x - clue[last], earliest, slack, first_aux), 0, 2)
    return nl, nc, first_aux + k * slack


@njit(cache=True, nogil=True)
def order_puzzle_kernel(height, width, clues, clue_start, known):  # pragma: no cover - compiled
    """Order encoding of every line of a ``height x width`` puzzle: rows top to bottom, then
    columns left to right; cell ``(r, c)`` is variable ``r * width + c + 1``, auxiliary variables
    from ``height * width + 1`` on, line after line.

    Parameters
    ----------
    clues : int32 array
        Every known line's blocks, line after line; line ``i``'s are
        ``clues[clue_start[i]:clue_start[i + 1]]``.
    clue_start : int32 array, shape (height + width + 1,)
    known : bool array, shape (height + width,)
        False for a line whose clue is unknown (no clauses).

    Returns
    -------
    lits : int64 array
        The literals of all clauses, one after another.
    ends : int64 array
        End offset of each clause in ``lits``.
    spans : int64 array, shape (height + width, 4)
        Per line ``(first_clause, end_clause, first_aux, end_aux)``.
    nvars : int
        The last variable used (cells included).
    """
    nlines = height + width
    bound = 0
    for i in range(nlines):
        if known[i]:
            k = clue_start[i + 1] - clue_start[i]
            total = 0
            for t in range(clue_start[i], clue_start[i + 1]):
                total += clues[t]
            n = width if i < height else height
            bound += order_line_bound(k, n, total)
    lits = np.empty(3 * bound, dtype=np.int64)
    ends = np.empty(bound, dtype=np.int64)
    spans = np.zeros((nlines, 4), dtype=np.int64)
    nl = 0
    nc = 0
    aux = height * width + 1
    row_cells = np.empty(width, dtype=np.int64)
    col_cells = np.empty(height, dtype=np.int64)
    for i in range(nlines):
        spans[i, 0] = nc
        spans[i, 2] = aux
        if known[i]:
            if i < height:
                for c in range(width):
                    row_cells[c] = i * width + c + 1
                cells = row_cells
            else:
                for r in range(height):
                    col_cells[r] = r * width + (i - height) + 1
                cells = col_cells
            nl, nc, aux = order_line_kernel(clues[clue_start[i]:clue_start[i + 1]], cells, aux,
                                            lits, ends, nl, nc)
        spans[i, 1] = nc
        spans[i, 3] = aux
    return lits[:nl], ends[:nc], spans, aux - 1


def pack_lines(puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The puzzle's clues as the kernel takes them: ``(clues, clue_start, known)`` (see
    :func:`order_puzzle_kernel`)."""
    lines = puzzle.lines
    flat: list[int] = []
    start = [0]
    for clue in lines:
        if clue:
            flat.extend(clue)
        start.append(len(flat))
    return (np.array(flat, dtype=np.int32), np.array(start, dtype=np.int32),
            np.array([c is not None for c in lines], dtype=np.bool_))


def clause_lists(lits: np.ndarray, ends: np.ndarray) -> list[list[int]]:
    """Flat clauses (literals and end offsets, as the kernels return them) as a list of lists of
    Python ints.

    Python's cyclic garbage collector is paused while the lists are made: they hold only ints, so
    they can form no cycle, and ~10,000 new lists would otherwise set off a few collections of
    the whole heap (the young generation every 700 allocations, the older ones after it), which
    measured as long as the conversion itself in a process with numba loaded.
    """
    flat = lits.tolist()
    stops = ends.tolist()
    starts = [0, *stops[:-1]] if stops else []
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [flat[a:b] for a, b in zip(starts, stops, strict=True)]
    finally:
        if enabled:
            gc.enable()


def order_line(
    clue: tuple[int, ...], cells: Sequence[int], first_aux: int
) -> tuple[list[list[int]], int]:
    """The order encoding of one line (:func:`nonosat.encodings.cnf.line_clauses`): its
    clauses, and the first variable still free afterwards."""
    clue_arr = np.array(clue, dtype=np.int32)
    cells_arr = np.array(cells, dtype=np.int64).reshape(-1)
    bound = order_line_bound(len(clue), cells_arr.shape[0], int(clue_arr.sum()))
    lits = np.empty(3 * bound, dtype=np.int64)
    ends = np.empty(bound, dtype=np.int64)
    nl, nc, next_aux = order_line_kernel(clue_arr, cells_arr, first_aux, lits, ends, 0, 0)
    return clause_lists(lits[:nl], ends[:nc]), int(next_aux)


def encode_order(puzzle: Puzzle) -> tuple[list[list[int]], int, list[tuple[int, int, int, int]]]:
    """The order encoding of ``puzzle``'s lines: ``(clauses, nvars, line_spans)`` as
    :class:`nonosat.encodings.cnf.PuzzleCnf` holds them (without the units of a partial grid).

    >>> encode_order(Puzzle([(1,), ()], [(1,), ()]))[0][:3]
    [[-5, 1], [-1, 5], [5, 2]]
    """
    h, w = puzzle.shape
    lits, ends, spans, nvars = order_puzzle_kernel(h, w, *pack_lines(puzzle))
    return (clause_lists(lits, ends), int(nvars),
            [(a, b, c, d) for a, b, c, d in spans.tolist()])


def encode_order_flat(
    puzzle: Puzzle,
    partial: np.ndarray | None = None,
    implications: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """The formula the SAT engine solves, as flat arrays ``(lits, ends, nvars)`` (int64; clause
    ``i`` is ``lits[ends[i-1]:ends[i]]``): the order encoding of the lines (the clauses of
    :func:`encode_order`), then the unit clauses of ``partial``'s known cells
    (:func:`unit_literals`), then ``-a | b`` for every implication row ``(a, b)`` — the same
    clauses in the same order as :func:`nonosat.encodings.cnf.encode` plus
    :func:`nonosat.engines.sat.implication_clauses`, without a Python list per clause.

    Parameters
    ----------
    puzzle : Puzzle
    partial : ndarray of int8, shape (height, width), optional
        Grid state (:class:`~nonosat.puzzle.Cell` values).
    implications : ndarray of int, shape (m, 2), optional
        DIMACS literals ``a -> b`` between cell variables.

    Raises
    ------
    PuzzleError
        ``partial`` does not have the puzzle's shape, or ``implications`` is not ``(m, 2)``.
    """
    units = None if partial is None else unit_literals(puzzle, partial)  # shape check first
    h, w = puzzle.shape
    lits, ends, _, nvars = order_puzzle_kernel(h, w, *pack_lines(puzzle))
    parts, stops = [lits], [ends]
    nl = lits.shape[0]
    if units is not None and units.shape[0]:
        parts.append(units)
        stops.append(nl + np.arange(1, units.shape[0] + 1, dtype=np.int64))
        nl += units.shape[0]
    if implications is not None:
        pairs = np.asarray(implications, dtype=np.int64)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise PuzzleError(f"implications must be an (m, 2) array, not {pairs.shape}")
        if pairs.shape[0]:
            binary = np.empty((pairs.shape[0], 2), dtype=np.int64)
            binary[:, 0] = -pairs[:, 0]
            binary[:, 1] = pairs[:, 1]
            parts.append(binary.ravel())
            stops.append(nl + 2 * np.arange(1, pairs.shape[0] + 1, dtype=np.int64))
    if len(parts) == 1:
        return lits, ends, int(nvars)
    return np.concatenate(parts), np.concatenate(stops), int(nvars)


def unit_literals(puzzle: Puzzle, partial: np.ndarray) -> np.ndarray:
    """The unit clauses of :func:`nonosat.encodings.cnf.partial_units` as one int64 array of
    literals (one clause each, row-major; a ``CONFLICT`` cell gives ``v`` then ``-v``).

    Raises
    ------
    PuzzleError
        ``partial`` does not have the puzzle's shape.

    >>> unit_literals(Puzzle([(1,), ()], [(1,), ()]), np.array([[2, 1], [0, 3]], np.int8)).tolist()
    [1, -2, 3, -3]
    """
    grid = np.asarray(partial)
    if grid.shape != puzzle.shape:
        raise PuzzleError(
            f"partial grid is {grid.shape[1] if grid.ndim == 2 else '?'}x{grid.shape[0]} "
            f"but the puzzle is {puzzle.width}x{puzzle.height}"
        )
    flat = grid.ravel()
    filled, empty, conflict = int(Cell.FILLED), int(Cell.EMPTY), int(Cell.CONFLICT)
    known = np.flatnonzero((flat == filled) | (flat == empty) | (flat == conflict))
    values = flat[known]
    clash = values == conflict
    reps = np.where(clash, 2, 1)
    out = np.repeat(known.astype(np.int64) + 1, reps)
    sign = np.repeat(np.where(values == empty, -1, 1), reps)
    sign[(np.cumsum(reps) - 1)[clash]] = -1  # the second unit of a conflict cell is -v
    return out * sign


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
