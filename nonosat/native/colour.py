"""The native solver for colour puzzles: complete colour line solver, propagation, probing and a
search counting solutions up to a limit.

Cell states are ``int32`` bit masks of the colours a cell may still take (bit ``c`` = colour
``c``, background = bit 0; see :mod:`nonosat.puzzle`).  A line's clue is two parallel arrays:
block lengths ``lens`` and block colours ``cols`` (``1..C-1``).  Rules (webpbn's): adjacent blocks
of the same colour need at least one background cell between them; blocks of different colours may
touch.

Line solver
-----------
Dynamic programming over (block, position) with colour transitions, O(n·k) time and space, as the
black-and-white dynamic programme (Batenburg & Kosters, "Solving Nonograms by combining
relaxations", Pattern Recognition 42, 2009) generalised to colours as in Jan Wolter's pbnsolve
(left/right-most placements with colour-dependent gaps):

* ``F[j, i]``: the prefix ``[0, i)`` can hold exactly the first ``j`` blocks;
* ``B[j, i]``: the suffix ``[i, n)`` can hold exactly the blocks ``j..k-1``;
* block ``j`` may sit on ``[s, s + len_j)`` iff those cells allow its colour, the prefix before it
  holds blocks ``0..j-1`` (with a background cell at ``s - 1`` when block ``j - 1`` has the same
  colour), and the suffix after it holds the rest (a background cell at ``s + len_j`` when block
  ``j + 1`` has the same colour);
* a cell may be background iff ``F[j, i] and B[j, i + 1]`` for some ``j``, and may take colour
  ``c`` iff some valid placement of a block of colour ``c`` covers it (per-colour difference
  arrays keep this O(n·k)).

Black-and-white keeps its own kernels (:mod:`nonosat.native.line`: the bit-parallel one is several
times faster than this generic DP on two-colour lines; ``benchmarks/bench_colour.py`` measures
it), so the generic kernels here serve colour puzzles only.

Propagation, probing (every colour a cell can still take is tried; a colour whose trial
contradicts is removed, and every cell keeps only the colours some surviving trial allows) and the
search are compiled with numba too; the search's recursion and time limit are in Python.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.puzzle import Puzzle
from nonosat.stop import StopToken


@njit(cache=True, nogil=True)
def colour_line_kernel(lens, cols, cells, out, ncol):  # pragma: no cover - compiled
    """Compiled complete colour line solver.

    Parameters
    ----------
    lens, cols : ndarray of int32, shape (k,)
        Block lengths (positive) and colours (``1..ncol-1``).
    cells : ndarray of int32, shape (n,)
        Cell states (colour bit masks).
    out : ndarray of int32, shape (n,)
        Receives, for every cell, the colours it takes in some arrangement consistent with
        ``cells``.
    ncol : int
        Number of colours, background included.

    Returns
    -------
    bool
        ``False`` if no arrangement is consistent (``out`` is then undefined).
    """
    n = cells.shape[0]
    k = lens.shape[0]
    # pbad[j, i]: cells in [0, i) that cannot take block j's colour
    pbad = np.zeros((k, n + 1), np.int32)
    for j in range(k):
        bit = 1 << cols[j]
        for i in range(n):
            pbad[j, i + 1] = pbad[j, i] + (1 if (cells[i] & bit) == 0 else 0)
    f = np.zeros((k + 1, n + 1), np.bool_)
    f[0, 0] = True
    for i in range(1, n + 1):
        bg = (cells[i - 1] & 1) != 0
        for j in range(k + 1):
            v = bg and f[j, i - 1]
            if not v and j > 0:
                s = i - lens[j - 1]
                if s >= 0 and pbad[j - 1, i] == pbad[j - 1, s]:
                    if j >= 2 and cols[j - 2] == cols[j - 1]:
                        v = s >= 1 and (cells[s - 1] & 1) != 0 and f[j - 1, s - 1]
                    else:
                        v = f[j - 1, s]
            f[j, i] = v
    if not f[k, n]:
        return False
    b = np.zeros((k + 1, n + 1), np.bool_)
    b[k, n] = True
    for i in range(n - 1, -1, -1):
        bg = (cells[i] & 1) != 0
        for j in range(k, -1, -1):
            v = bg and b[j, i + 1]
            if not v and j < k:
                e = i + lens[j]
                if e <= n and pbad[j, e] == pbad[j, i]:
                    if j + 1 < k and cols[j + 1] == cols[j]:
                        v = e < n and (cells[e] & 1) != 0 and b[j + 1, e + 1]
                    else:
                        v = b[j + 1, e]
            b[j, i] = v
    diff = np.zeros((ncol, n + 1), np.int32)
    for j in range(k):
        c = lens[j]
        col = cols[j]
        same_left = j >= 1 and cols[j - 1] == col
        same_right = j + 1 < k and cols[j + 1] == col
        for s in range(n - c + 1):
            e = s + c
            if pbad[j, e] != pbad[j, s]:
                continue
            if same_left:
                ok = s >= 1 and (cells[s - 1] & 1) != 0 and f[j, s - 1]
            else:
                ok = f[j, s]
            if not ok:
                continue
            if same_right:
                ok = e < n and (cells[e] & 1) != 0 and b[j + 1, e + 1]
            else:
                ok = b[j + 1, e]
            if ok:
                diff[col, s] += 1
                diff[col, e] -= 1
    for i in range(n):
        v = 0
        if cells[i] & 1:
            for j in range(k + 1):
                if f[j, i] and b[j, i + 1]:
                    v = 1
                    break
        out[i] = v
    for col in range(1, ncol):
        run = 0
        bit = 1 << col
        for i in range(n):
            run += diff[col, i]
            if run > 0:
                out[i] |= bit
    return True


def solve_colour_line(
    lens: Sequence[int], cols: Sequence[int], cells: Sequence[int] | np.ndarray, ncol: int
) -> np.ndarray | None:
    """Every colour each cell can take in some arrangement of the colour clue consistent with
    ``cells``.

    Parameters
    ----------
    lens, cols : sequences of int
        Block lengths and block colours (``1..ncol-1``), parallel.
    cells : sequence of int, length n
        Cell states: bit masks of possible colours (bit 0 = background).
    ncol : int
        Number of colours, background included.

    Returns
    -------
    ndarray of int32, shape (n,), or None
        New cell states (each a subset of the input); ``None`` when the line is contradictory.

    Examples
    --------
    >>> [int(v) for v in solve_colour_line([2, 1], [1, 2], [7, 7, 7], 3)]
    [2, 2, 4]
    """
    lens_a = np.asarray(lens, dtype=np.int32)
    cols_a = np.asarray(cols, dtype=np.int32)
    line = np.asarray(cells, dtype=np.int32)
    out = np.empty_like(line)
    ok = colour_line_kernel(lens_a, cols_a, line, out, ncol)
    return out if ok else None


# -- propagation ----------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def colour_propagate(grid, lens, cols, start, known, h, w, ncol, queued, stats):  # pragma: no cover
    """Run the colour line solver on queued lines until nothing changes (compiled).

    ``grid`` (int32, ``h*w``, row-major) is updated in place; ``queued`` (bool, ``h+w``, rows
    first) marks the lines to solve and is left all ``False``; ``stats[0]`` counts line solves.
    Returns ``False`` on a contradiction (``grid`` is then partly updated).
    """
    n_lines = h + w
    queue = np.empty(n_lines, np.int32)
    head = 0
    count = 0
    for i in range(n_lines):
        if queued[i]:
            queue[(head + count) % n_lines] = i
            count += 1
    longest = max(h, w)
    buf = np.empty(longest, np.int32)
    out = np.empty(longest, np.int32)
    while count > 0:
        line = queue[head]
        head = (head + 1) % n_lines
        count -= 1
        queued[line] = False
        if not known[line]:
            continue
        if line < h:
            n = w
            for x in range(w):
                buf[x] = grid[line * w + x]
        else:
            n = h
            col = line - h
            for y in range(h):
                buf[y] = grid[y * w + col]
        stats[0] += 1
        ok = colour_line_kernel(
            lens[start[line]:start[line + 1]], cols[start[line]:start[line + 1]],
            buf[:n], out[:n], ncol,
        )
        if not ok:
            for i in range(n_lines):
                queued[i] = False
            return False
        for x in range(n):
            if out[x] != buf[x]:
                if line < h:
                    grid[line * w + x] = out[x]
                    other = h + x
                else:
                    grid[x * w + (line - h)] = out[x]
                    other = x
                if not queued[other]:
                    queued[other] = True
                    queue[(head + count) % n_lines] = other
                    count += 1
    return True


@njit(cache=True, nogil=True)
def _popcount(v):  # pragma: no cover - compiled
    c = 0
    while v:
        v &= v - 1
        c += 1
    return c


@njit(cache=True, nogil=True)
def colour_probe(grid, lens, cols, start, known, h, w, ncol, stats):  # pragma: no cover
    """Probing to a fixpoint (compiled): for every undecided cell and every colour it may take,
    set the cell to that colour and propagate.  A colour whose trial contradicts is removed (a
    failed literal); every cell keeps only the colours some surviving trial allows.  ``grid`` is
    propagated first and updated in place.

    ``stats``: ``[0]`` line solves, ``[1]`` probes, ``[2]`` colours removed by probing.
    Returns ``False`` if the grid is contradictory.
    """
    n_lines = h + w
    queued = np.ones(n_lines, np.bool_)
    if not colour_propagate(grid, lens, cols, start, known, h, w, ncol, queued, stats):
        return False
    trial = np.empty_like(grid)
    union = np.empty_like(grid)
    changed = True
    while changed:
        changed = False
        for cell in range(h * w):
            v = grid[cell]
            if _popcount(v) < 2:
                continue
            for i in range(grid.shape[0]):
                union[i] = 0
            alive = 0
            for c in range(ncol):
                bit = 1 << c
                if not (v & bit):
                    continue
                for i in range(grid.shape[0]):
                    trial[i] = grid[i]
                trial[cell] = bit
                queued[cell // w] = True
                queued[h + cell % w] = True
                stats[1] += 1
                if colour_propagate(trial, lens, cols, start, known, h, w, ncol, queued, stats):
                    alive += 1
                    for i in range(grid.shape[0]):
                        union[i] |= trial[i]
            if alive == 0:
                return False
            for i in range(grid.shape[0]):
                nv = grid[i] & union[i]
                if nv != grid[i]:
                    stats[2] += 1
                    grid[i] = nv
                    queued[i // w] = True
                    queued[h + i % w] = True
                    changed = True
            if changed:
                if not colour_propagate(grid, lens, cols, start, known, h, w, ncol, queued, stats):
                    return False
    return True


# -- the Python face ------------------------------------------------------------------------
@dataclass(frozen=True)
class ColourProblem:
    """A colour puzzle packed for the compiled kernels: flat block ``lens``/``cols`` (int32, line
    after line, rows first), ``start`` (int32, ``h + w + 1``), ``known`` (bool, ``h + w``)."""

    height: int
    width: int
    ncol: int
    lens: np.ndarray
    cols: np.ndarray
    start: np.ndarray
    known: np.ndarray

    @classmethod
    def of(cls, puzzle: Puzzle) -> ColourProblem:
        """Pack ``puzzle`` (colour or black-and-white: every BW block has colour 1)."""
        lens: list[int] = []
        cols: list[int] = []
        start = [0]
        for clue, colours in zip(puzzle.lines, puzzle.line_colours, strict=True):
            lens.extend(clue or ())
            cols.extend(colours or ())
            start.append(len(lens))
        return cls(
            puzzle.height,
            puzzle.width,
            puzzle.n_colours,
            np.array(lens, dtype=np.int32),
            np.array(cols, dtype=np.int32),
            np.array(start, dtype=np.int32),
            np.array([c is not None for c in puzzle.lines], dtype=np.bool_),
        )

    def full_grid(self) -> np.ndarray:
        """A flat grid with every colour possible everywhere (int32, ``h*w``)."""
        return np.full(self.height * self.width, (1 << self.ncol) - 1, dtype=np.int32)

    def propagate(self, grid: np.ndarray, stats: np.ndarray | None = None) -> bool:
        """Propagate ``grid`` (flat int32, updated in place) with every line queued."""
        st = np.zeros(3, np.int64) if stats is None else stats
        queued = np.ones(self.height + self.width, np.bool_)
        return bool(
            colour_propagate(
                grid, self.lens, self.cols, self.start, self.known, self.height, self.width,
                self.ncol, queued, st,
            )
        )

    def probe(self, grid: np.ndarray, stats: np.ndarray | None = None) -> bool:
        """Propagation and probing to a fixpoint on ``grid`` (flat int32, in place)."""
        st = np.zeros(3, np.int64) if stats is None else stats
        return bool(
            colour_probe(
                grid, self.lens, self.cols, self.start, self.known, self.height, self.width,
                self.ncol, st,
            )
        )


@dataclass
class ColourOutcome:
    """Result of :func:`colour_search`: ``solutions`` (int8 arrays of colour indices, shape
    ``(h, w)``), ``finished`` (the search ran to its end or to the limit), ``root`` (the grid
    state after root propagation and probing, int32 ``(h, w)``, or ``None`` if contradictory),
    ``stats``."""

    solutions: list[np.ndarray]
    finished: bool
    root: np.ndarray | None
    stats: dict[str, int | float] = field(default_factory=dict)


def grid_solution(grid: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Colour indices (int8, ``shape``) of a fully decided flat grid of one-bit masks."""
    g = np.asarray(grid, dtype=np.int64).reshape(shape)
    return (np.log2(g).round()).astype(np.int8)


def colour_search(
    puzzle: Puzzle,
    partial: np.ndarray | None = None,
    *,
    limit: int = 2,
    probing: bool = True,
    timeout: float | None = None,
    stop: StopToken | None = None,
) -> ColourOutcome:
    """Count the solutions of a colour puzzle up to ``limit``: propagation (and probing) at every
    node, then a branch on an undecided cell with the fewest colours left, one child per colour.

    Parameters
    ----------
    puzzle : Puzzle
        A colour puzzle (a black-and-white one works too, as two colours).
    partial : ndarray of int, shape (h, w), optional
        Colour bit masks the solutions must agree with.
    limit : int
        Stop after this many solutions.
    probing : bool
        Probe at every node (default) or only propagate.
    timeout : float, optional
        Seconds; on expiry ``finished`` is ``False``.
    stop : StopToken, optional
        Polled at every search node (:mod:`nonosat.stop`); once set, ``finished`` is ``False``.
    """
    problem = ColourProblem.of(puzzle)
    deadline = None if timeout is None else time.perf_counter() + timeout
    st = np.zeros(3, np.int64)
    grid = problem.full_grid()
    if partial is not None:
        grid &= np.asarray(partial, dtype=np.int32).reshape(-1)
    solutions: list[np.ndarray] = []
    counters = {"nodes": 0, "max_depth": 0}
    finished = True

    def close(g: np.ndarray) -> bool:
        return problem.probe(g, st) if probing else problem.propagate(g, st)

    def visit(g: np.ndarray, depth: int) -> bool:
        """Returns False to stop (limit reached or time out)."""
        nonlocal finished
        counters["max_depth"] = max(counters["max_depth"], depth)
        if (deadline is not None and time.perf_counter() > deadline) or (
                stop is not None and stop.is_set()):
            finished = False
            return False
        counts = np.array([bin(int(v)).count("1") for v in g])
        open_cells = np.flatnonzero(counts > 1)
        if open_cells.size == 0:
            solutions.append(grid_solution(g, puzzle.shape))
            return len(solutions) < limit
        cell = int(open_cells[np.argmin(counts[open_cells])])
        v = int(g[cell])
        for c in range(problem.ncol):
            if not (v >> c) & 1:
                continue
            child = g.copy()
            child[cell] = 1 << c
            counters["nodes"] += 1
            if close(child) and not visit(child, depth + 1):
                return False
        return True

    t0 = time.perf_counter()
    root: np.ndarray | None = None
    if close(grid):
        root = grid.reshape(puzzle.shape).copy()
        visit(grid, 0)
    stats = {
        "line_solves": int(st[0]),
        "probes": int(st[1]),
        "probe_fixes": int(st[2]),
        "guesses": counters["nodes"],
        "max_depth": counters["max_depth"],
        "search_time_s": round(time.perf_counter() - t0, 6),
    }
    return ColourOutcome(solutions, finished, root, stats)


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
