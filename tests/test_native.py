"""The native solver on hand-made puzzles, random pictures and the shared corpus.

Correctness is judged against independent evidence: the clues themselves (every solution is
checked line by line), brute-force enumeration on tiny grids, and the published tournament
solutions (the generator's pictures).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.engines import Status, solve
from nonosat.engines.native import NativeEngine
from nonosat.formats import read_puzzle, read_puzzles
from nonosat.formats.tournament import read_solutions
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Cell, Puzzle, line_blocks, unknown_grid
from tests.conftest import GAMES, corpus_path, pictures


def brute_force_solutions(puzzle: Puzzle) -> list[np.ndarray]:
    """Every grid of a tiny puzzle that satisfies all clues (2^(h*w) candidates)."""
    h, w = puzzle.shape
    rows_ok = [
        [
            bits
            for bits in itertools.product((False, True), repeat=w)
            if clue is None or line_blocks(bits) == clue
        ]
        for clue in puzzle.rows
    ]
    out = []
    for choice in itertools.product(*rows_ok):
        grid = np.array(choice, dtype=bool).reshape(h, w)
        if puzzle.is_solution(grid):
            out.append(grid)
    return out


@settings(max_examples=60, deadline=None)
@given(
    pictures(1, 5),
    st.booleans(),
)
def test_solution_count_matches_brute_force(picture, probing):
    puzzle = Puzzle.from_picture(picture)
    expected = brute_force_solutions(puzzle)
    result = NativeEngine(probing=probing).solve(puzzle, limit=100)
    assert len(result.solutions) == len(expected)
    assert {s.tobytes() for s in result.solutions} == {s.tobytes() for s in expected}
    assert result.status == (Status.UNIQUE if len(expected) == 1 else Status.MULTIPLE)


def test_contradictory_clues_have_no_solution():
    result = solve(read_puzzle(GAMES / "impossible.non"), "native")
    assert result.status == Status.NONE and result.solutions == []
    assert result.trace.contradiction


def test_two_solutions_are_distinct_and_valid():
    puzzle = Puzzle([(1,), (1,)], [(1,), (1,)])
    result = solve(puzzle, "native")
    assert result.status == Status.MULTIPLE
    a, b = result.solutions
    assert not np.array_equal(a, b)
    assert puzzle.is_solution(a) and puzzle.is_solution(b)


def test_limit_one_finds_a_solution_without_deciding_uniqueness():
    result = solve(Puzzle([(1,), (1,)], [(1,), (1,)]), "native", limit=1)
    assert result.status == Status.SOLVED and len(result.solutions) == 1


def test_partial_grid_restricts_solutions():
    puzzle = Puzzle([(1,), (1,)], [(1,), (1,)])
    partial = unknown_grid(puzzle)
    partial[0, 0] = Cell.FILLED
    result = solve(puzzle, "native", partial=partial)
    assert result.status == Status.UNIQUE
    assert result.solutions[0].tolist() == [[True, False], [False, True]]


def test_unknown_clue_leaves_line_unconstrained():
    puzzle = Puzzle([None, (1,)], [(1,), None])
    result = NativeEngine().solve(puzzle, limit=10)
    assert len(result.solutions) == len(brute_force_solutions(puzzle))


def test_line_solvable_puzzle_has_complete_trace():
    result = solve(read_puzzle(GAMES / "heart.non"), "native")
    assert result.status == Status.UNIQUE
    trace = result.trace
    assert trace.complete and result.stats["guesses"] == 0
    assert len(trace.deductions) == 13 * 11
    solution = result.solutions[0]
    for d in trace.deductions:
        assert (d.value == Cell.FILLED) == solution[d.cell]


def test_timeout_gives_unknown_with_partial_results():
    # a pathological puzzle for a tiny budget: many solutions, limit high, timeout zero
    puzzle = Puzzle.from_picture(np.eye(12, dtype=bool) | np.eye(12, dtype=bool)[::-1])
    search = NativeSearch(puzzle, limit=10_000)
    search.step(1)
    assert not search.finished
    result = NativeEngine().solve(puzzle, limit=10_000, timeout=0.0)
    assert result.status in (Status.UNKNOWN, Status.MULTIPLE)


@pytest.mark.corpus
def test_tournament_sample_against_published_solutions():
    question = corpus_path("NonogramRecord", "question", "taai2011.txt")
    published = read_solutions(corpus_path("NonogramRecord", "solution", "taai2011.txt"))
    puzzles = read_puzzles(question)
    assert len(puzzles) == 1000
    verdicts = {}
    for puzzle in puzzles[:50]:  # the full set runs in benchmarks/bench_native.py
        result = solve(puzzle, "native", timeout=60)
        assert result.status in (Status.UNIQUE, Status.MULTIPLE), puzzle.number
        goal = published[puzzle.number]
        assert puzzle.is_solution(goal)  # the published picture really solves the clues
        for sol in result.solutions:
            assert puzzle.is_solution(sol)
        if result.status == Status.UNIQUE:
            assert np.array_equal(result.solutions[0], goal), puzzle.number
        verdicts[result.status] = verdicts.get(result.status, 0) + 1
    assert sum(verdicts.values()) == 50


SURVEY = [
    "webpbn-00001.nin", "webpbn-00006.nin", "webpbn-00016.nin", "webpbn-00021.nin",
    "webpbn-00023.nin", "webpbn-00027.nin", "webpbn-00065.nin", "webpbn-00436.nin",
    "webpbn-00529.nin", "webpbn-00803.nin", "webpbn-01611.nin", "webpbn-06574.nin",
]


@pytest.mark.corpus
@pytest.mark.parametrize("name", SURVEY)
def test_survey_puzzles_are_solved(name):
    path = corpus_path("FastNonogramSolver", "puzzles", "survey", name)
    puzzle = read_puzzle(path)
    result = solve(puzzle, "native", timeout=120)
    assert result.status in (Status.UNIQUE, Status.MULTIPLE), result.status
    for sol in result.solutions:
        assert puzzle.is_solution(sol)


@pytest.mark.corpus
def test_football_is_unique():
    puzzle = read_puzzle(corpus_path("Nonogram", "games", "football.json"))
    result = solve(puzzle, "native")
    assert result.status == Status.UNIQUE
    assert puzzle.is_solution(result.solutions[0])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_root_implications_hold_in_every_solution(seed):
    rng = np.random.default_rng(seed)
    picture = rng.random((5, 6)) < rng.uniform(0.3, 0.7)
    puzzle = Puzzle.from_picture(picture)
    search = NativeSearch(puzzle, limit=1)
    search.run()
    implications = search.root_implications()
    for sol in brute_force_solutions(puzzle):
        for (r1, c1, f1), (r2, c2, f2) in implications:
            if sol[r1, c1] == f1:
                assert sol[r2, c2] == f2


def test_auto_engine_hands_over_to_sat_with_root_grid_and_implications():
    from nonosat.engines.auto import AutoEngine

    puzzle = Puzzle.from_picture(np.eye(6, dtype=bool) | np.eye(6, dtype=bool)[::-1])
    expected = brute_force_solutions(puzzle)  # 66 solutions
    result = AutoEngine(budget_s=0.0, native_work=0).solve(puzzle, limit=len(expected) + 1)
    assert result.stats["handoff"] and result.engine == "native+sat"
    assert {s.tobytes() for s in result.solutions} == {s.tobytes() for s in expected}


def test_auto_engine_decides_natively_within_its_work_budget():
    """A puzzle that needs a few dozen search nodes is decided by the native search (no CNF),
    with the same solutions; a tiny budget hands it to SAT."""
    from nonosat.engines.auto import AutoEngine

    puzzle = Puzzle.from_picture(np.eye(6, dtype=bool) | np.eye(6, dtype=bool)[::-1])
    expected = {s.tobytes() for s in brute_force_solutions(puzzle)}
    native = AutoEngine().solve(puzzle, limit=len(expected) + 1)
    assert not native.stats["handoff"] and native.engine == "native"
    assert native.stats["native"]["guesses"] > 1
    assert {s.tobytes() for s in native.solutions} == expected
    small = AutoEngine(native_work=12).solve(puzzle, limit=len(expected) + 1)
    assert small.stats["handoff"]
    assert {s.tobytes() for s in small.solutions} == expected


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_line_cache_answers_like_the_line_solver(seed):
    """The hash-table line cache (a tiny one, so that entries replace each other many times)
    gives the uncached line solver's answer on repeated random line states, contradictions
    included."""
    from nonosat.native.line import line_kernel
    from nonosat.native.propagate import (
        ST_CACHE_COUNT,
        ST_CACHE_HITS,
        new_line_cache,
        new_state,
        solve_line_cached,
    )
    from nonosat.puzzle import pack_clues

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    picture = rng.random((1, n)) < 0.55
    puzzle = Puzzle.from_picture(picture)
    packed = pack_clues(puzzle)
    clue = packed.blocks[packed.start[0]:packed.start[1]]
    state = new_state(packed, unknown_grid(puzzle), cache=new_line_cache(16))
    queries = [rng.choice(np.array([1, 2, 3, 3], dtype=np.int8), size=n) for _ in range(20)]
    # each state twice in a row (a miss, then a hit); 40 states on 16 rows replace each other
    for cells in [q for q in queries * 2 for _ in range(2)]:
        state[7][:n] = cells
        got_ok = solve_line_cached(clue, 0, n, state)
        want = np.zeros(n, dtype=np.int8)
        want_ok = line_kernel(clue, cells.copy(), want)
        assert got_ok == want_ok
        if want_ok:
            assert np.array_equal(state[8][:n], want)
        assert 0 < state[6][ST_CACHE_COUNT] <= 16
    assert state[6][ST_CACHE_HITS] > 0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_swap_neighbour_is_another_solution(seed):
    """The 2x2-swap neighbour of a solution is a different solution; on a puzzle whose only
    solutions differ by swaps it finds one whenever there is a second solution."""
    from nonosat.native.swap import swap_neighbour

    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    puzzle = Puzzle.from_picture(rng.random((h, w)) < 0.5)
    solutions = brute_force_solutions(puzzle)
    keys = {s.tobytes() for s in solutions}
    for s in solutions:
        other = swap_neighbour(puzzle, s)
        if other is not None:
            assert other.tobytes() in keys and not np.array_equal(other, s)
            assert int((other != s).sum()) == 4
    if len(solutions) == 1:
        assert swap_neighbour(puzzle, solutions[0]) is None


def test_swap_neighbour_on_the_two_by_two_ambiguity():
    from nonosat.native.swap import swap_neighbour

    puzzle = Puzzle.from_picture(np.eye(2, dtype=bool))
    other = swap_neighbour(puzzle, np.eye(2, dtype=bool))
    assert np.array_equal(other, np.eye(2, dtype=bool)[::-1])


def test_sat_engine_with_the_swap_neighbour_finds_the_same_solutions():
    """SAT with the swap neighbour (as auto hands it over) enumerates the same solution set,
    with at least one solution found as a neighbour, and honours given cells."""
    from nonosat.engines.sat import SatEngine
    from nonosat.native.swap import swap_neighbour

    puzzle = Puzzle.from_picture(np.eye(6, dtype=bool) | np.eye(6, dtype=bool)[::-1])
    expected = {s.tobytes() for s in brute_force_solutions(puzzle)}
    result = SatEngine(neighbour=swap_neighbour).solve(puzzle, limit=len(expected) + 1)
    assert {s.tobytes() for s in result.solutions} == expected
    assert len(result.solutions) == len(expected)
    assert result.stats["neighbour_solutions"] > 0
    partial = np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    partial[0, 0] = Cell.FILLED
    given = SatEngine(neighbour=swap_neighbour).solve(puzzle, partial=partial, limit=100)
    want = {s.tobytes() for s in brute_force_solutions(puzzle) if s[0, 0]}
    assert {s.tobytes() for s in given.solutions} == want


def test_auto_swap_solutions_respect_given_cells():
    from nonosat.engines.auto import _swap_solutions

    puzzle = Puzzle.from_picture(np.eye(2, dtype=bool))
    first = np.eye(2, dtype=bool)
    assert [s.tolist() for s in _swap_solutions(puzzle, [first], None, 2)] == [[[False, True],
                                                                              [True, False]]]
    partial = np.full((2, 2), Cell.UNKNOWN, dtype=np.int8)
    partial[0, 0] = Cell.FILLED
    assert _swap_solutions(puzzle, [first], partial, 2) == []
    assert _swap_solutions(puzzle, [first], None, 1) == []
