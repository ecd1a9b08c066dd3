"""The complete line solver against brute-force enumeration of every arrangement."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.native.line import forced_cells, solve_line
from nonosat.puzzle import Cell, line_blocks


def brute_force(clue: tuple[int, ...], cells: list[int]) -> list[int] | None:
    """Union of every full line that matches ``clue`` and agrees with ``cells``."""
    n = len(cells)
    out = [0] * n
    found = False
    for bits in itertools.product((False, True), repeat=n):
        if line_blocks(bits) != tuple(clue):
            continue
        if any(not (cells[i] & (2 if b else 1)) for i, b in enumerate(bits)):
            continue
        found = True
        for i, b in enumerate(bits):
            out[i] |= 2 if b else 1
    return out if found else None


@st.composite
def line_and_state(draw):
    n = draw(st.integers(1, 11))
    picture = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    # a clue either from a real line (satisfiable) or random (often contradictory)
    if draw(st.booleans()):
        clue = line_blocks(picture)
    else:
        clue = tuple(draw(st.lists(st.integers(1, n), max_size=4)))
    cells = draw(
        st.lists(st.sampled_from([Cell.UNKNOWN, Cell.UNKNOWN, Cell.EMPTY, Cell.FILLED]),
                 min_size=n, max_size=n)
    )
    return clue, [int(c) for c in cells]


@pytest.mark.parametrize("method", ["dp", "bits"])
@settings(max_examples=600, deadline=None)
@given(case=line_and_state())
def test_line_solver_matches_brute_force(method, case):
    clue, cells = case
    expected = brute_force(clue, cells)
    got = solve_line(clue, cells, method=method)
    if expected is None:
        assert got is None
    else:
        assert got is not None and list(got) == expected


def test_overlap_of_a_long_block():
    got = solve_line([4], [Cell.UNKNOWN] * 6)
    assert [Cell(v) for v in got] == [Cell.UNKNOWN, Cell.UNKNOWN, Cell.FILLED, Cell.FILLED,
                                      Cell.UNKNOWN, Cell.UNKNOWN]


def test_contradiction_when_clue_cannot_fit_known_cells():
    assert solve_line([3], [Cell.UNKNOWN, Cell.EMPTY, Cell.UNKNOWN, Cell.UNKNOWN]) is None
    assert solve_line([], [Cell.FILLED]) is None
    assert solve_line([1, 1], [Cell.FILLED, Cell.FILLED, Cell.UNKNOWN]) is None


def test_empty_clue_empties_the_line():
    assert list(solve_line([], [Cell.UNKNOWN] * 3)) == [Cell.EMPTY] * 3


def test_forced_cells_lists_only_changes():
    cells = np.array([Cell.FILLED, Cell.UNKNOWN, Cell.UNKNOWN, Cell.UNKNOWN], dtype=np.int8)
    assert forced_cells([2], cells) == [(1, Cell.FILLED), (2, Cell.EMPTY), (3, Cell.EMPTY)]


@settings(max_examples=300, deadline=None)
@given(st.integers(40, 62).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.sampled_from([3, 3, 3, 1, 2]), min_size=n, max_size=n),
)))
def test_bit_parallel_kernel_agrees_with_dp_on_long_lines(case):
    """Lines too long for brute force: the two kernels must agree cell for cell."""
    picture, cells = case
    clue = line_blocks(picture)
    # keep the picture's own cells consistent half the time, so both outcomes occur
    dp = solve_line(clue, cells, method="dp")
    bits = solve_line(clue, cells, method="bits")
    assert (dp is None) == (bits is None)
    if dp is not None:
        assert list(dp) == list(bits)
    consistent = [2 if b else 1 for b in picture]
    assert list(solve_line(clue, consistent, method="bits")) == consistent
