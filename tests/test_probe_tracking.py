"""Change-tracked probing (``probe_tracked``) against an independent probing written here.

The reference below solves lines by enumerating every placement of a line (tiny grids only) and
probes every unknown cell on every pass, so it shares no code with the compiled kernels.  The
properties checked:

* at the root, tracked probing reaches the same grid as full probing by the reference (the
  probing fixpoint is unique: every deduction stays valid as more cells become known);
* at every search node the native search visits (decisions and backtracks, with the line stamps
  restored and the probes below a backtracked decision forgotten), the grid it branches from is a
  probing fixpoint: the reference finds nothing more to deduce there.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.native.probe import TRACK_NONE, TRACK_TOUCHED
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import pictures

EMPTY, FILLED, UNKNOWN = int(Cell.EMPTY), int(Cell.FILLED), int(Cell.UNKNOWN)


def _fillings(clue, n):
    """Every filling of a line of ``n`` cells with block lengths ``clue`` (tuples of bools)."""
    if not clue:
        yield (False,) * n
        return
    first, rest = clue[0], clue[1:]
    need = sum(rest) + len(rest)
    for lead in range(n - need - first + 1):
        head = (False,) * lead + (True,) * first
        if rest:
            for tail in _fillings(rest, n - len(head) - 1):
                yield head + (False,) + tail
        else:
            yield head + (False,) * (n - len(head))


def _line_solve(clue, cells):
    """Known cells of a line after enumerating all its fillings: a list, or None if none fits."""
    candidates = (
        itertools.product((False, True), repeat=len(cells)) if clue is None
        else _fillings(tuple(clue), len(cells))
    )
    fits = [
        bits for bits in candidates
        if all(c == UNKNOWN or (c == FILLED) == b for c, b in zip(cells, bits, strict=True))
    ]
    if not fits:
        return None
    out = list(cells)
    for p in range(len(cells)):
        values = {f[p] for f in fits}
        if len(values) == 1:
            out[p] = FILLED if values.pop() else EMPTY
    return out


def _propagate(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray | None:
    """Line solving on every row and column until nothing changes (a copy), None on conflict."""
    g = grid.copy()
    h, w = g.shape
    changed = True
    while changed:
        changed = False
        for r in range(h):
            line = _line_solve(puzzle.rows[r], [int(x) for x in g[r]])
            if line is None:
                return None
            if line != [int(x) for x in g[r]]:
                g[r] = line
                changed = True
        for c in range(w):
            line = _line_solve(puzzle.cols[c], [int(x) for x in g[:, c]])
            if line is None:
                return None
            if line != [int(x) for x in g[:, c]]:
                g[:, c] = line
                changed = True
    return g


def _probe_once(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray | None:
    """One full probing pass over every unknown cell (failed literals and cells both values
    agree on), then propagation; None when the grid is contradictory."""
    g = _propagate(puzzle, grid)
    if g is None:
        return None
    for r, c in zip(*np.nonzero(g == UNKNOWN), strict=True):
        if g[r, c] != UNKNOWN:
            continue
        branches = []
        for value in (FILLED, EMPTY):
            trial = g.copy()
            trial[r, c] = value
            branches.append(_propagate(puzzle, trial))
        a, b = branches
        if a is None and b is None:
            return None
        if a is None or b is None:
            g = b if a is None else a
            continue
        agree = (a == b) & (g == UNKNOWN)
        if agree.any():
            g = _propagate(puzzle, np.where(agree, a, g).astype(np.int8))
            if g is None:
                return None
    return g


def _probe_fixpoint(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray | None:
    g = grid
    while True:
        nxt = _probe_once(puzzle, g)
        if nxt is None or np.array_equal(nxt, g):
            return nxt
        g = nxt


PICTURES = pictures(4, 10)


@settings(max_examples=40, deadline=None)
@given(PICTURES)
def test_tracked_root_reaches_the_full_probing_fixpoint(picture):
    puzzle = Puzzle.from_picture(picture)
    start = np.full(puzzle.shape, UNKNOWN, dtype=np.int8)
    want = _probe_fixpoint(puzzle, start)
    assert want is not None  # a picture's clues have a solution
    for track in (TRACK_TOUCHED, TRACK_NONE):
        search = NativeSearch(puzzle, limit=1000, track=track)
        search.step(1)
        assert np.array_equal(search.root_grid(), want), track


@settings(max_examples=40, deadline=None)
@given(PICTURES, st.sampled_from([2, 3, 6, 12]))
def test_every_search_node_is_a_probing_fixpoint(picture, branch_mode):
    """Step the search one decision at a time; before each decision the grid (the pending
    decision's cell left out) must be a full probing fixpoint, also after backtracks."""
    puzzle = Puzzle.from_picture(picture)
    search = NativeSearch(puzzle, limit=1000, track=TRACK_TOUCHED, branch_mode=branch_mode)
    trail, st_ = search._state[1], search._state[6]
    nodes = 0
    while not search.step(1) and nodes < 12:
        nodes += 1
        grid = search.partial_grid().reshape(-1)
        decision = int(trail[int(st_[0]) - 1])  # the decision just assigned, not yet propagated
        grid[decision] = UNKNOWN
        grid = grid.reshape(puzzle.shape)
        assert np.array_equal(_probe_once(puzzle, grid), grid)
    # and the search still finds exactly the solutions of a full-probing search
    full = NativeSearch(puzzle, limit=1000, track=TRACK_NONE).run()
    search.run()
    assert {s.tobytes() for s in search.solutions()} == {s.tobytes() for s in full.solutions}


def _fresh_full_probe(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray | None:
    """Full probing to its fixpoint from ``grid``: :func:`probe_grid` in a fresh state (which
    probes every unknown cell on its first pass, no stamps or earlier probes carried over),
    repeated until the grid stops changing."""
    from nonosat.native.probe import probe_grid

    while True:
        out = probe_grid(puzzle, grid)
        if out is None or np.array_equal(out[0], grid):
            return None if out is None else out[0]
        grid = out[0]


def test_tournament_search_nodes_are_probing_fixpoints():
    """On 25x25 tournament puzzles that need search (taai2011 #87 and #187 are where the older
    row/column rule stops short at the root), every node of the first 40 decisions, across
    backtracks, is a fixpoint of full probing done afresh, and the root equals it."""
    from nonosat.formats import read_puzzles
    from tests.conftest import corpus_path

    puzzles = read_puzzles(corpus_path("NonogramRecord", "question", "taai2011.txt"))
    checked = backtracked = 0
    for number in (87, 187, 307, 367):
        puzzle = next(p for p in puzzles if p.number == number)
        start = np.full(puzzle.shape, UNKNOWN, dtype=np.int8)
        search = NativeSearch(puzzle, limit=2, track=TRACK_TOUCHED)
        trail, st_ = search._state[1], search._state[6]
        first = True
        while not search.step(1) and checked < 160:
            if first:
                assert np.array_equal(search.root_grid(), _fresh_full_probe(puzzle, start))
                first = False
            grid = search.partial_grid().reshape(-1)
            grid[int(trail[int(st_[0]) - 1])] = UNKNOWN
            grid = grid.reshape(puzzle.shape)
            assert np.array_equal(_fresh_full_probe(puzzle, grid), grid), (number, checked)
            checked += 1
        backtracked += int(search.stats()["backtracks"])
    assert checked >= 60 and backtracked > 0  # the check saw nodes after backtracks
