"""SAT phases from belief propagation (nonosat.encodings.phases): the line marginals are exact
(weighted completion counts, checked by brute-force enumeration), the phase literals cover the
order encoding's variables, and phases never change an answer."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.encodings.cnf import encode
from nonosat.encodings.phases import _line_marginals, cell_marginals, order_phases
from nonosat.engines.cpsat import CpSatEngine
from nonosat.engines.sat import SatEngine
from nonosat.puzzle import Puzzle


def runs(line) -> tuple[int, ...]:
    return tuple(len(list(g)) for v, g in itertools.groupby(line) if v)


@st.composite
def weighted_lines(draw):
    n = draw(st.integers(1, 9))
    known = draw(st.lists(st.sampled_from([-1, -1, -1, 0, 1]), min_size=n, max_size=n))
    prior = draw(st.lists(st.floats(0.05, 0.95), min_size=n, max_size=n))
    picture = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return runs(picture), np.array(known, np.int8), np.array(prior)


@settings(max_examples=300, deadline=None)
@given(weighted_lines())
def test_line_marginals_are_the_weighted_completion_counts(case):
    clue, known, prior = case
    n = len(known)
    weights = {}
    for bits in itertools.product((0, 1), repeat=n):
        if runs(bits) != clue or any(k >= 0 and k != b for k, b in zip(known, bits, strict=True)):
            continue
        weights[bits] = float(np.prod([p if b else 1 - p for b, p in zip(bits, prior, strict=True)]))
    k = len(clue)
    clue_arr = np.array(clue or (0,), np.int64)
    fwd = np.zeros((k + 1, n + 2))
    bwd = np.zeros((k + 1, n + 2))
    cells = np.zeros(n)
    starts = np.zeros((max(k, 1), n))
    ok = _line_marginals(clue_arr, k, known, prior, fwd, bwd, cells, starts,
                         np.zeros((max(k, 1), n + 1)))
    assert ok == bool(weights)
    if not weights:
        return
    total = sum(weights.values())
    expected = np.array([sum(w for b, w in weights.items() if b[i]) for i in range(n)]) / total
    assert np.allclose(cells, expected, atol=1e-9)
    for j in range(k):  # block j's start distribution
        for p in range(n):
            want = sum(w for b, w in weights.items()
                       if [i for i in range(n) if b[i] and (i == 0 or not b[i - 1])][j] == p)
            assert starts[j, p] == pytest.approx(want / total, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.data())
def test_order_phases_give_one_literal_per_variable(h, w, data):
    picture = np.array(data.draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w)))
    puzzle = Puzzle.from_picture(picture.reshape(h, w))
    enc = encode(puzzle, "order")
    lits = order_phases(puzzle, None, enc.nvars)
    assert sorted(abs(x) for x in lits) == list(range(1, enc.nvars + 1))
    belief = cell_marginals(puzzle)
    assert belief.shape == (h, w) and ((belief >= 0) & (belief <= 1)).all()


def test_line_solvable_picture_gets_its_solution_as_phases():
    """Where line logic alone decides a cell, its marginal is 0 or 1: a full row or an empty
    one leaves nothing to guess."""
    picture = np.array([[1, 1, 1], [0, 0, 0], [1, 0, 1]], bool)
    belief = cell_marginals(Puzzle.from_picture(picture))
    assert np.allclose(belief[:2], picture[:2], atol=1e-3)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(2, 6), st.data())
def test_phases_change_no_answer(h, w, data):
    picture = np.array(data.draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w)))
    puzzle = Puzzle.from_picture(picture.reshape(h, w))
    with_phases = SatEngine(phases=True).solve(puzzle, limit=3)
    reference = CpSatEngine().solve(puzzle, limit=3)
    assert with_phases.status == reference.status
    assert len(with_phases.solutions) == len(reference.solutions)
    assert with_phases.stats["phases"] is True


def test_stoppable_phases_equal_the_one_call_and_a_set_token_ends_them():
    """``order_phases(stop=)`` runs the belief-propagation iterations one call each: with a
    token never set the phases equal the single call's; with a token already set no iteration
    runs (the messages stay at 0.5), which is what lets a superseded studio job end there."""
    from nonosat.encodings.phases import _messages
    from nonosat.formats import read_puzzle
    from nonosat.stop import StopToken
    from tests.conftest import GAMES

    puzzle = read_puzzle(GAMES / "heart.non")
    enc = encode(puzzle, "order")
    assert order_phases(puzzle, None, enc.nvars, stop=StopToken()) == order_phases(
        puzzle, None, enc.nvars)
    stopped = StopToken()
    stopped.set()
    row_msg = _messages(puzzle, None, 10, stopped)[3]
    assert (row_msg == 0.5).all()
    assert not (_messages(puzzle, None, 10)[3] == 0.5).all()
