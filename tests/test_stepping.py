"""The native solver's stepping API (issue 28): :class:`nonosat.native.stepping.Stepper` and
:class:`nonosat.native.colour_stepping.ColourStepper`, checked against brute force (every
solution of a small puzzle) and against fresh states."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nonosat.native.colour_stepping import ColourStepper
from nonosat.native.search import NativeSearch
from nonosat.native.stepping import Stepper
from nonosat.palette import Colour, Palette
from nonosat.puzzle import Cell, Puzzle, line_blocks


def brute_force(puzzle: Puzzle) -> list[np.ndarray]:
    """Every solution (bool, (h, w)) by enumerating the rows."""
    h, w = puzzle.shape
    rows = [[np.array(p) for p in itertools.product((False, True), repeat=w)
             if line_blocks(p) == clue] for clue in puzzle.rows]
    return [np.array(g) for g in itertools.product(*rows) if puzzle.is_solution(np.array(g))]


def random_puzzles(count: int, seed: int, size: int = 5) -> list[Puzzle]:
    rng = np.random.default_rng(seed)
    return [Puzzle.from_picture(rng.random((size, size)) < 0.5) for _ in range(count)]


def _sound(puzzle: Puzzle, flat: np.ndarray, solutions: list[np.ndarray]) -> bool:
    """Every known cell of ``flat`` agrees with every solution."""
    known = flat != Cell.UNKNOWN
    return all(np.array_equal(flat[known], np.where(s.reshape(-1), Cell.FILLED,
                                                    Cell.EMPTY)[known]) for s in solutions)


def test_stages_are_sound_and_report_what_they_fixed():
    for puzzle in random_puzzles(20, seed=1):
        solutions = brute_force(puzzle)
        stepper = Stepper(puzzle)
        lines = stepper.propagate()
        assert lines is not None
        assert (lines.kinds == 0).all()  # "line", each with the line that fixed it
        for cell, line in zip(lines.cells.tolist(), lines.args.tolist(), strict=True):
            r, c = divmod(cell, puzzle.width)
            assert line in (r, puzzle.height + c)
        probed = stepper.probe()
        assert probed is not None
        assert _sound(puzzle, stepper.flat, solutions)
        found = np.concatenate([lines.cells, probed.cells])
        assert sorted(found.tolist()) == np.flatnonzero(stepper.flat != Cell.UNKNOWN).tolist()
        assert np.array_equal(stepper.flat[found], np.concatenate([lines.values, probed.values]))


def test_probe_round_failed_literals_hold_in_every_solution():
    checked = 0
    for puzzle in random_puzzles(30, seed=2):
        solutions = brute_force(puzzle)
        stepper = Stepper(puzzle)
        stepper.propagate()
        before = stepper.grid()
        found = stepper.probe_round()
        assert np.array_equal(stepper.grid(), before)  # nothing applied
        if found is None:
            assert not solutions
            continue
        for cell, code in zip(found.cells.tolist(), found.status.tolist(), strict=True):
            if code:
                value = code == 1  # filled failed: empty forced, and vice versa
                assert all(bool(s.reshape(-1)[cell]) != value for s in solutions)
                checked += 1
        for _, cell, value in found.both.tolist():
            assert all(bool(s.reshape(-1)[cell]) == (value == Cell.FILLED) for s in solutions)
    assert checked > 0


def test_assume_and_undo_restore_the_state_and_the_deductions():
    puzzle = random_puzzles(1, seed=3, size=8)[0]
    stepper = Stepper(puzzle)
    root = stepper.propagate()
    assert root is not None
    grid = stepper.grid()
    for cell in stepper.open_cells().tolist():
        for value in (Cell.FILLED, Cell.EMPTY):
            mark = stepper.assume(cell, value)
            stepper.propagate()
            stepper.undo(mark)
            assert np.array_equal(stepper.grid(), grid)
    # a reused stepper (loaded again) deduces what a fresh one does
    stepper.load(np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8))
    again = stepper.propagate()
    assert again is not None
    assert np.array_equal(again.cells, root.cells) and np.array_equal(again.args, root.args)


def test_native_search_is_a_stepper_that_searches_on_from_the_stepped_state():
    for puzzle in random_puzzles(12, seed=4):
        solutions = brute_force(puzzle)
        search = NativeSearch(puzzle, limit=len(solutions) + 1)
        assert search.propagate() is not None
        search.run()
        assert search.finished
        got = {s.tobytes() for s in search.solutions()}
        assert got == {s.tobytes() for s in solutions}


def test_colour_stepper_line_solves_reach_the_compiled_fixpoint():
    palette = Palette((Colour("white", (255, 255, 255), "."), Colour("red", (255, 0, 0), "r"),
                       Colour("blue", (0, 0, 255), "b")))
    rng = np.random.default_rng(5)
    for _ in range(15):
        puzzle = Puzzle.from_picture(rng.integers(0, 3, (5, 6)), palette=palette)
        stepper = ColourStepper(puzzle)
        solves = stepper.propagate()
        assert solves is not None
        stepped = stepper.grid()
        replay = np.full(puzzle.height * puzzle.width, 7, dtype=np.int32)
        for solve in solves:  # each solve narrows, and replaying them gives the fixpoint
            assert ((replay[solve.cells] & solve.masks) == solve.masks).all()
            assert (solve.masks != replay[solve.cells]).all()
            replay[solve.cells] = solve.masks
        assert np.array_equal(replay.reshape(puzzle.shape), stepped)
        stepper.load(np.full(puzzle.shape, 7, dtype=np.int32))
        assert stepper.fixpoint()
        assert np.array_equal(stepper.grid(), stepped)


def test_the_stepper_is_black_and_white():
    palette = Palette((Colour("white", (255, 255, 255), "."), Colour("red", (255, 0, 0), "r"),
                       Colour("blue", (0, 0, 255), "b")))
    with pytest.raises(ValueError, match="black-and-white"):
        Stepper(Puzzle.from_picture(np.array([[1, 2]]), palette=palette))


def test_stamp_starts_a_new_probing_event():
    # two solutions: probing fixes nothing, so every cell stays open and was probed
    s = Stepper(Puzzle([(1,), (1,)], [(1,), (1,)]))
    assert s.propagate() is not None and s.probe() is not None
    assert s.last_probed().tolist() == [0, 1, 2, 3]
    s.stamp(s.checkpoint)  # nothing assigned since: a new event all the same
    assert s.last_probed().tolist() == []
    assert s.probe(since=s.checkpoint) is not None  # nothing changed: nothing re-probed
    assert s.last_probed().tolist() == []


def test_steppers_sharing_a_small_line_cache_never_fill_it():
    """Two steppers share one line cache of 16 rows (the search and the steppers it builds
    share theirs).  The count of filled rows is the table's (at most its rows: the table is
    direct-mapped, an entry replaces another; the linear-probing table before it, counted per
    state, could fill, and its lookup then probed a full table forever), and both reach the
    fixpoint of a stepper with a table of its own."""
    from nonosat.native.propagate import new_line_cache

    rng = np.random.default_rng(2611)
    for _ in range(5):
        puzzle = Puzzle.from_picture(rng.random((12, 12)) < 0.5)
        alone = Stepper(puzzle)
        alone.propagate()
        alone.probe()
        shared = new_line_cache(16)
        first, second = Stepper(puzzle, cache=shared), Stepper(puzzle, cache=shared)
        for stepper in (first, second):
            stepper.propagate()
            stepper.probe()
            assert np.array_equal(stepper.grid(), alone.grid())
        assert 0 < shared[-1, 1] <= 16  # rows filled, counted over both steppers
