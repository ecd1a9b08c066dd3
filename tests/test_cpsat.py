"""The CP-SAT engine against brute force: every picture of a small grid is enumerated here, so the
expected solutions never come from the engine under test."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from nonosat.encodings.cpsat_model import build_model, clue_automaton
from nonosat.engines import Status, get_engine, solve
from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Puzzle, line_blocks, solution_to_grid, unknown_grid

H, W = 3, 4
#: Every picture of an H x W grid, with the clue of each of its lines (rows, then columns).
PICTURES = [
    np.array(bits, dtype=bool).reshape(H, W) for bits in itertools.product((0, 1), repeat=H * W)
]
PICTURE_LINES = [
    tuple(line_blocks(r) for r in pic) + tuple(line_blocks(c) for c in pic.T) for pic in PICTURES
]


def brute_force(puzzle: Puzzle, partial: np.ndarray | None = None) -> set[bytes]:
    """Every H x W picture that satisfies the known clues and the partial grid, as bytes."""
    found = set()
    for pic, lines in zip(PICTURES, PICTURE_LINES, strict=True):
        if all(c is None or c == got for c, got in zip(puzzle.lines, lines, strict=True)):
            if partial is None or (solution_to_grid(pic) & partial == solution_to_grid(pic)).all():
                found.add(pic.tobytes())
    return found


def accepts(clue: tuple[int, ...], cells: tuple[int, ...]) -> bool:
    """Run the automaton of ``clue`` over ``cells``."""
    transitions, finals = clue_automaton(clue)
    step = {(s, v): t for s, v, t in transitions}
    state: int | None = 0
    for value in cells:
        state = step.get((state, value))
        if state is None:
            return False
    return state in finals


@pytest.mark.parametrize("length", range(0, 9))
def test_automaton_accepts_exactly_the_lines_of_its_clue(length):
    lines = list(itertools.product((0, 1), repeat=length))
    clues = {line_blocks(line) for line in lines} | {(length + 1,), (1, length)}
    for clue in clues:
        for line in lines:
            assert accepts(clue, line) == (line_blocks(line) == clue), (clue, line)


def test_automaton_is_deterministic():
    transitions, _ = clue_automaton((3, 1, 2))
    keys = [(s, v) for s, v, _ in transitions]
    assert len(keys) == len(set(keys))


@st.composite
def small_puzzles(draw):
    """Clue sets on H x W: rows of one picture, columns of another (often contradictory), some
    lines unknown."""
    a, b = draw(st.integers(0, len(PICTURES) - 1)), draw(st.integers(0, len(PICTURES) - 1))
    lines = list(PICTURE_LINES[a][:H] + PICTURE_LINES[b][H:])
    unknown = draw(st.lists(st.booleans(), min_size=H + W, max_size=H + W))
    if draw(st.booleans()):
        lines = [None if u else c for c, u in zip(lines, unknown, strict=True)]
    try:
        return Puzzle(lines[:H], lines[H:])
    except PuzzleError:
        assume(False)


@settings(max_examples=150, deadline=None)
@given(small_puzzles())
def test_enumeration_finds_exactly_the_brute_force_solutions(puzzle):
    expected = brute_force(puzzle)
    result = solve(puzzle, "cpsat", limit=len(PICTURES) + 1)
    got = [s.tobytes() for s in result.solutions]
    assert len(got) == len(set(got))
    assert set(got) == expected
    assert result.status == {0: Status.NONE, 1: Status.UNIQUE}.get(len(expected), Status.MULTIPLE)


@settings(max_examples=100, deadline=None)
@given(small_puzzles(), st.lists(st.sampled_from(list(Cell)), min_size=H * W, max_size=H * W))
def test_partial_grid_restricts_the_solutions(puzzle, cells):
    partial = np.array(cells, dtype=np.int8).reshape(H, W)
    expected = brute_force(puzzle, partial)
    result = solve(puzzle, "cpsat", partial=partial, limit=len(PICTURES) + 1)
    assert {s.tobytes() for s in result.solutions} == expected


@settings(max_examples=100, deadline=None)
@given(small_puzzles())
def test_limit_two_decides_uniqueness(puzzle):
    count = len(brute_force(puzzle))
    result = solve(puzzle, "cpsat", limit=2)
    assert len(result.solutions) == min(count, 2)
    assert result.status == {0: Status.NONE, 1: Status.UNIQUE}.get(count, Status.MULTIPLE)
    assert solve(puzzle, "cpsat", limit=1).status == (Status.SOLVED if count else Status.NONE)


def test_enumeration_runs_on_one_worker(monkeypatch):
    seen = []
    original = cp_model.CpSolver.solve

    def spy(self, model, callback=None):
        seen.append((self.parameters.num_workers, self.parameters.enumerate_all_solutions))
        return original(self, model, callback)

    monkeypatch.setattr(cp_model.CpSolver, "solve", spy)
    puzzle = Puzzle([(1,)] * 3, [(1,)] * 3)
    for limit in (1, 2, 100):
        get_engine("cpsat").solve(puzzle, limit=limit)
    assert seen == [(1, True)] * 3


@pytest.mark.parametrize("n", [5, 6])
def test_permutation_puzzle_enumerates_all_n_factorial_solutions(n):
    # every row and column holds one filled cell: the solutions are the n! permutation matrices
    # (several CP-SAT workers report duplicates here, e.g. 1288 "solutions" for n = 6)
    result = solve(Puzzle([(1,)] * n, [(1,)] * n), "cpsat", limit=10**6)
    assert result.status == Status.MULTIPLE
    assert (
        len({s.tobytes() for s in result.solutions}) == len(result.solutions) == math.factorial(n)
    )
    for sol in result.solutions:
        assert (sol.sum(axis=0) == 1).all() and (sol.sum(axis=1) == 1).all()


def test_unknown_clues_leave_lines_free():
    result = solve(Puzzle([None] * 3, [None] * 3), "cpsat", limit=1000)
    assert len({s.tobytes() for s in result.solutions}) == 2**9


def test_empty_clues_give_the_empty_grid():
    result = solve(Puzzle([()] * 4, [()] * 5), "cpsat")
    assert result.status == Status.UNIQUE
    assert not result.solutions[0].any()


def test_conflicting_partial_cell_has_no_solution():
    partial = unknown_grid(Puzzle([None], [None]))
    partial[0, 0] = Cell.CONFLICT
    assert solve(Puzzle([None], [None]), "cpsat", partial=partial).status == Status.NONE


def test_partial_of_wrong_shape_is_refused():
    with pytest.raises(PuzzleError):
        build_model(Puzzle([(1,)], [(1,)]), np.full((2, 2), Cell.UNKNOWN, dtype=np.int8))


def test_timeout_gives_up_with_what_it_found():
    # 30! solutions: enumerating them cannot finish in the time limit
    puzzle = Puzzle([(1,)] * 30, [(1,)] * 30)
    result = solve(puzzle, "cpsat", limit=10**9, timeout=0.3)
    assert result.status in (Status.UNKNOWN, Status.MULTIPLE)
    assert result.stats["cpsat_status"] in ("FEASIBLE", "UNKNOWN")
    assert result.time_s < 5
    assert solve(puzzle, "cpsat", limit=2, timeout=0.0).status in (Status.UNKNOWN, Status.MULTIPLE)


def test_stats_are_reported():
    result = solve(Puzzle([(2,), (1,)], [(2,), (1,)]), "cpsat")
    assert result.status == Status.UNIQUE
    assert {"branches", "conflicts", "wall_time_s"} <= set(result.stats)
    assert result.time_s > 0
