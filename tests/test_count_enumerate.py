"""The enumeration counter (``nonosat.encodings.enumerate``, issue 26) and its place in the
counting portfolio: projected counts against brute force (random formulas with auxiliary
variables free or half-constrained, exactly-one groups, small black-and-white and colour
puzzles), stops and caps giving lower bounds, and the portfolio's stop wiring and cross-check.

Expected counts never come from the counter under test: they are enumerated here (every
assignment of a tiny formula, every picture of a tiny grid) or come from Ganak / the native
counter run beside it."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonosat.encodings.enumerate import ENUMERATOR_NAME, count_by_enumeration
from nonosat.engines import counting
from nonosat.engines.counting import CountDisagreement, count_solutions
from nonosat.errors import EngineError
from nonosat.formats import read_puzzle
from nonosat.puzzle import Puzzle
from nonosat.stop import StopToken
from tests.test_count import COLOURS, brute_force_colour

GAMES = Path(__file__).resolve().parent.parent / "games"


def brute_projected(clauses, nvars, groups) -> int:
    """Distinct projections on ``groups`` of the models of ``clauses`` with exactly one true
    variable in every group of two or more."""
    seen = set()
    for bits in itertools.product((False, True), repeat=nvars):
        if not all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            continue
        if any(len(g) > 1 and sum(bits[v - 1] for v in g) != 1 for g in groups):
            continue
        seen.add(tuple(bits[v - 1] for g in groups for v in g))
    return len(seen)


@st.composite
def projected_cnfs(draw):
    """A random formula over up to 8 variables and a random projection of disjoint groups
    (singletons and exactly-one groups); the variables left out are auxiliaries, free or
    constrained by the clauses."""
    nvars = draw(st.integers(1, 8))
    lit = st.integers(1, nvars).flatmap(lambda v: st.sampled_from((v, -v)))
    clauses = draw(st.lists(st.lists(lit, min_size=1, max_size=3), max_size=10))
    order = draw(st.permutations(range(1, nvars + 1)))
    chosen = order[: draw(st.integers(0, nvars))]
    groups, i = [], 0
    while i < len(chosen):
        size = draw(st.integers(1, 3))
        groups.append(sorted(chosen[i: i + size]))
        i += size
    return clauses, nvars, groups


@settings(max_examples=80, deadline=None)
@given(projected_cnfs())
def test_projected_count_equals_brute_force(cnf):
    clauses, nvars, groups = cnf
    got = count_by_enumeration(clauses, nvars, groups, timeout=30)
    assert got.exact and got.count == brute_projected(clauses, nvars, groups), got


def test_auxiliary_freedom_does_not_change_the_projected_count():
    # x1 | x2, with x3 free and x4 -> x1: 10 full models, 3 pictures of (x1, x2)
    aux = [[1, 2], [-4, 1]]
    assert count_by_enumeration(aux, 4, [[1], [2]]).count == 3
    assert count_by_enumeration(aux, 4, [[1], [2], [3], [4]]).count == 10
    # a free auxiliary the formula never mentions; a projected variable it never mentions
    assert count_by_enumeration([[1, 2]], 9, [[1], [2]]).count == 3
    assert count_by_enumeration([[1, 2]], 9, [[1], [2], [9]]).count == 6
    # the dfa encoding's automaton variables are not functions of the cells: 48 pictures
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    for encoding in ("dfa", "regular", "order"):
        got = count_solutions(puzzle, encoding=encoding, simplify=False, timeout=120,
                              counter="enumerate")
        assert (got.count, got.exact, got.method) == (48, True, ENUMERATOR_NAME)


def test_edge_cases_and_errors():
    assert count_by_enumeration([], 0, []).count == 1           # satisfiable, nothing projected
    assert count_by_enumeration([[1], [-1]], 1, []).count == 0  # unsatisfiable
    assert count_by_enumeration([[1], []], 1, [[1]]).count == 0  # an empty clause
    assert count_by_enumeration([], 12, [[v] for v in range(1, 13)]).count == 4096
    assert count_by_enumeration([], 6, [[1, 2, 3], [4, 5, 6]]).count == 9
    for bad in ([[2]], [[1], [1]], [[]]):
        with pytest.raises(EngineError):
            count_by_enumeration([[1]], 1, bad)
    with pytest.raises(EngineError, match="out of range"):
        count_by_enumeration([[1, 3]], 2, [[1]])


def test_a_cap_or_a_stop_gives_a_lower_bound():
    free = [[v] for v in range(1, 21)]  # 2^20 models
    capped = count_by_enumeration([], 20, free, cap=100)
    assert (capped.count, capped.exact, capped.reason) == (101, False, "more than 100 models")
    assert count_by_enumeration([], 10, free[:10], cap=1024).exact  # exactly the cap: exact
    timed = count_by_enumeration([], 20, free, timeout=0.3)
    assert not timed.exact and timed.reason == "time limit" and 0 < timed.count < 2**20
    assert timed.time_s < 5
    token = StopToken()
    threading.Timer(0.3, token.set).start()
    stopped = count_by_enumeration([], 20, free, stop=token)
    assert not stopped.exact and stopped.reason == "cancelled" and 0 < stopped.count < 2**20
    few = count_by_enumeration([], 20, free, max_literals=20 * 50)
    assert (few.count, few.exact, few.reason) == (51, False, "memory")


# -- puzzles -----------------------------------------------------------------------------------
# (black-and-white puzzles against brute force: tests/test_count.py, for both CNF counters)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 2), min_size=9, max_size=9), st.booleans())
def test_colour_count_equals_brute_force(cells, simplify):
    puzzle = Puzzle.from_picture(np.array(cells, dtype=np.int8).reshape(3, 3), palette=COLOURS)
    got = count_solutions(puzzle, timeout=120, simplify=simplify, counter="enumerate")
    assert got.exact and got.count == brute_force_colour(puzzle)


def test_a_capped_puzzle_count_is_a_lower_bound():
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")  # 48 solutions
    got = counting._count_enumeration(puzzle, None, 30, "order", time.perf_counter(), cap=10)
    assert (got.count, got.exact, got.reason) == (11, False, "more than 10 solutions")


# -- the portfolio -----------------------------------------------------------------------------
def test_the_enumeration_stops_a_native_count_that_does_not_finish(monkeypatch):
    """A native count that would run to the time limit (simulated: it waits for its stop
    token) is stopped by the enumeration's exact count, long before the limit."""
    waited = []

    def stuck(puzzle, partial, timeout, start, stop=None, **_workers):
        assert stop is not None
        for _ in range(3000):
            if stop.is_set():
                break
            time.sleep(0.01)
        waited.append(stop.is_set())
        return counting.SolutionCount(None, False, counting.NATIVE_COUNTER, 0.0, stop.reason)

    monkeypatch.setattr(counting, "_count_native", stuck)
    began = time.perf_counter()
    got = count_solutions(read_puzzle(GAMES / "cross-ambiguous.non"), timeout=30)
    assert (got.count, got.exact, got.method) == (48, True, ENUMERATOR_NAME)
    assert waited == [True] and time.perf_counter() - began < 15


def test_a_disagreement_of_the_enumeration_is_loud(monkeypatch):
    real = counting._count_enumeration

    def wrong(*args, **kwargs):
        got = real(*args, **kwargs)
        return counting.SolutionCount((got.count or 0) + 1, True, got.method, got.time_s)

    monkeypatch.setattr(counting, "_count_enumeration", wrong)
    with pytest.raises(CountDisagreement, match="enumeration"):
        count_solutions(read_puzzle(GAMES / "cross-ambiguous.non"), timeout=30, crosscheck=True)
    with pytest.raises(CountDisagreement, match="enumeration"):  # colour: against Ganak
        count_solutions(read_puzzle(GAMES / "ladybird-ambiguous.xml"), timeout=30,
                        crosscheck=True)


def test_crosscheck_runs_every_counter(monkeypatch):
    ran = []
    for name in ("_count_native", "_count_enumeration", "_count_ganak"):
        real = getattr(counting, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            got = _real(*args, **kwargs)
            ran.append((_name, got.count, got.exact))
            return got

        monkeypatch.setattr(counting, name, spy)
    got = count_solutions(read_puzzle(GAMES / "cross-ambiguous.non"), timeout=60,
                          crosscheck=True)
    assert got.count == 48
    assert sorted(ran) == [("_count_enumeration", 48, True), ("_count_ganak", 48, True),
                           ("_count_native", 48, True)]
