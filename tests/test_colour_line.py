"""The colour line solver against brute-force enumeration of every colouring of short lines."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.native.colour import solve_colour_line
from nonosat.puzzle import line_colour_blocks


def brute_force(lens, cols, cells, ncol):
    """Union, over every colouring of the line allowed by ``cells`` whose runs equal the clue,
    of each cell's colour bit; ``None`` if there is none."""
    out = [0] * len(cells)
    found = False
    choices = [[c for c in range(ncol) if (m >> c) & 1] for m in cells]
    for colouring in itertools.product(*choices):
        if line_colour_blocks(colouring) == (tuple(lens), tuple(cols)):
            found = True
            for i, c in enumerate(colouring):
                out[i] |= 1 << c
    return out if found else None


@st.composite
def colour_lines(draw):
    ncol = draw(st.integers(2, 4))
    n = draw(st.integers(1, 8))
    k = draw(st.integers(0, 4))
    lens = draw(st.lists(st.integers(1, 4), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(1, ncol - 1), min_size=k, max_size=k))
    full = (1 << ncol) - 1
    cells = draw(
        st.lists(
            st.one_of(st.just(full), st.integers(0, full)), min_size=n, max_size=n
        )
    )
    return lens, cols, cells, ncol


@settings(max_examples=600, deadline=None)
@given(colour_lines())
def test_colour_line_solver_matches_brute_force(case):
    lens, cols, cells, ncol = case
    expected = brute_force(lens, cols, cells, ncol)
    got = solve_colour_line(lens, cols, cells, ncol)
    if expected is None:
        assert got is None
    else:
        assert got is not None and [int(v) for v in got] == expected


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_touching_blocks_of_different_colours(data):
    """Lines drawn from a random colouring whose clue has touching different-colour blocks: the
    true colouring is always among the answers, and the solver equals brute force."""
    ncol = data.draw(st.integers(3, 4))
    n = data.draw(st.integers(2, 8))
    picture = data.draw(st.lists(st.integers(0, ncol - 1), min_size=n, max_size=n))
    lens, cols = line_colour_blocks(picture)
    full = (1 << ncol) - 1
    reveal = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    cells = [(1 << c) if r else full for c, r in zip(picture, reveal, strict=True)]
    got = solve_colour_line(lens, cols, cells, ncol)
    assert got is not None
    assert all((int(g) >> c) & 1 for g, c in zip(got, picture, strict=True))
    assert [int(v) for v in got] == brute_force(lens, cols, cells, ncol)


def test_touching_and_separated_blocks():
    # 2 red + 1 blue touch; 2 red + 1 red need a gap
    assert [int(v) for v in solve_colour_line([2, 1], [1, 2], [7] * 3, 3)] == [2, 2, 4]
    assert solve_colour_line([2, 1], [1, 1], [7] * 3, 3) is None
    assert [int(v) for v in solve_colour_line([2, 1], [1, 1], [7] * 4, 3)] == [2, 2, 1, 2]
    # background-only line
    assert [int(v) for v in solve_colour_line([], [], [7, 7], 3)] == [1, 1]
    assert solve_colour_line([], [], [2, 7], 3) is None


def test_black_and_white_as_two_colours_matches_bw_kernel():
    """The generic kernel on two colours agrees with the black-and-white kernel."""
    from nonosat.native.line import solve_line

    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 30))
        pic = rng.random(n) < 0.55
        lens, _ = line_colour_blocks(pic.astype(int))
        cells = np.where(rng.random(n) < 0.3, np.where(pic, 2, 1), 3)
        bw = solve_line(lens, cells)
        col = solve_colour_line(lens, [1] * len(lens), cells, 2)
        assert bw is not None and col is not None
        assert [int(v) for v in bw] == [int(v) for v in col]
