"""The native solver's line bit masks (``lf``/``le`` in the state tuple of
:mod:`nonosat.native.propagate`): kept equal to the int8 grid through assign / propagate / undo,
and propagation on masks reaching the same fixpoint as the dynamic-programme line solver."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.puzzle import Puzzle, pack_clues, unknown_grid


def masks_from_grid(grid: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Known-filled / known-empty masks of every line, recomputed from the flat grid (rows first,
    then columns; lines longer than 62 cells are not kept, so 0)."""
    g = grid.reshape(h, w)
    lf = np.zeros(h + w, dtype=np.int64)
    le = np.zeros(h + w, dtype=np.int64)
    for r in range(h):
        for c in range(w):
            for value, masks in ((2, lf), (1, le)):
                if g[r, c] == value:
                    if w <= 62:
                        masks[r] |= 1 << c
                    if h <= 62:
                        masks[h + c] |= 1 << r
    return lf, le


def assert_masks_match(state, h: int, w: int) -> int:
    """The state's masks equal the ones recomputed from its grid; returns their set bits."""
    lf, le = masks_from_grid(state[0], h, w)
    assert np.array_equal(state[11], lf), "known-filled masks differ from the grid"
    assert np.array_equal(state[12], le), "known-empty masks differ from the grid"
    return sum(bin(int(x)).count("1") for x in np.concatenate([lf, le]))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_masks_follow_the_grid_through_assign_propagate_undo(seed):
    """Random decisions, propagations and undos (on small grids and on grids with lines longer
    than 62 cells, whose masks are not kept): after every step the masks equal the ones
    recomputed from the grid, and some steps leave masks set (so masks that are not maintained
    fail: they would stay as new_state left them)."""
    from nonosat.native.propagate import (
        KIND_DECISION,
        ST_TLEN,
        assign,
        clear_queue,
        new_line_cache,
        new_state,
        problem_tuple,
        propagate,
        undo_to,
    )

    rng = np.random.default_rng(seed)
    shape = [(int(rng.integers(1, 12)), int(rng.integers(1, 12))), (3, 64), (64, 2)][seed % 3]
    h, w = shape
    puzzle = Puzzle.from_picture(rng.random(shape) < 0.55)
    packed = pack_clues(puzzle)
    problem = problem_tuple(packed)
    state = new_state(packed, unknown_grid(puzzle), cache=new_line_cache(1 << 8))
    clear_queue(state)
    st_ = state[6]
    assert assert_masks_match(state, h, w) == 0
    seen_bits = 0
    for _ in range(60):
        op = rng.integers(3)
        unknown = np.nonzero(state[0] == 3)[0]
        if op == 0 and unknown.size:
            cell = int(rng.choice(unknown))
            assign(problem, state, cell, int(rng.integers(1, 3)), KIND_DECISION, 0, -1)
        elif op == 1:
            if not propagate(problem, state):
                clear_queue(state)
        else:
            undo_to(state, int(rng.integers(0, st_[ST_TLEN] + 1)))
            clear_queue(state)
        seen_bits = max(seen_bits, assert_masks_match(state, h, w))
    assert seen_bits > 0


def test_partial_grid_sets_the_masks():
    """Given cells of a partial grid (written into the grid directly) are in the masks."""
    from nonosat.native.search import NativeSearch

    picture = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]], dtype=bool)
    puzzle = Puzzle.from_picture(picture)
    partial = unknown_grid(puzzle)
    partial[0, 0] = 2
    partial[1, 0] = 1
    search = NativeSearch(puzzle, partial=partial)
    assert assert_masks_match(search._state, 3, 3) == 4
    out = search.run()
    assert [s.tolist() for s in out.solutions] == [picture.tolist()]


def dp_fixpoint(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray | None:
    """Line propagation to a fixpoint with the dynamic-programme line solver, in Python (the
    fixpoint does not depend on the order lines are solved in)."""
    from nonosat.native.line import solve_line

    g = grid.copy()
    h = puzzle.height
    changed = True
    while changed:
        changed = False
        for line, clue in enumerate(puzzle.lines):
            if clue is None:
                continue
            view = g[line] if line < h else g[:, line - h]
            out = solve_line(clue, view, method="dp")
            if out is None:
                return None
            if not np.array_equal(out, view):
                view[:] = out
                changed = True
    return g


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_mask_propagation_reaches_the_dp_fixpoint(seed):
    """Propagation (masks, cache, bit-parallel solver; the DP path for lines over 62 cells)
    from a random partial grid gives the fixpoint of the DP line solver, contradictions too."""
    from nonosat.native.propagate import propagate_grid

    rng = np.random.default_rng(seed)
    shape = [(int(rng.integers(2, 15)), int(rng.integers(2, 15))), (4, 66)][seed % 2]
    picture = rng.random(shape) < 0.6
    puzzle = Puzzle.from_picture(picture)
    grid = unknown_grid(puzzle)
    other = rng.random(shape) < 0.5  # givens from another picture: contradictions happen
    source = other if rng.random() < 0.3 else picture
    given_cells = rng.random(shape) < 0.15
    grid[given_cells] = np.where(source[given_cells], 2, 1)
    want = dp_fixpoint(puzzle, grid)
    got = propagate_grid(puzzle, grid)
    if want is None:
        assert got is None
    else:
        assert got is not None and np.array_equal(got[0], want)
