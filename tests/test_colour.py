"""Colour puzzles through the stack: the corpus solved by every engine, solutions checked by an
independent checker, unique solutions equal to the goal image; the model's colour validation."""

from __future__ import annotations

import glob
import itertools

import numpy as np
import pytest

from nonosat.engines import solve
from nonosat.errors import PuzzleError
from nonosat.formats import read_puzzles
from nonosat.puzzle import Colour, Palette, Puzzle
from tests.conftest import corpus_path

WHITE = Colour("white", (255, 255, 255), ".")
RED = Colour("red", (255, 0, 0), "r")
BLUE = Colour("blue", (0, 0, 255), "b")
PALETTE = Palette((WHITE, RED, BLUE))


def runs(cells) -> list[tuple[int, int]]:
    """(length, colour) of the non-background runs of ``cells``: written here, independently of
    the model's ``line_colour_blocks``."""
    return [(len(list(g)), int(c)) for c, g in itertools.groupby(int(v) for v in cells) if c]


def check(puzzle: Puzzle, solution: np.ndarray) -> None:
    """Assert that ``solution`` (colour indices) satisfies every clue of ``puzzle``."""
    assert solution.shape == puzzle.shape
    assert solution.min() >= 0 and solution.max() < puzzle.n_colours
    for i, (clue, colours) in enumerate(zip(puzzle.lines, puzzle.line_colours, strict=True)):
        cells = solution[i] if i < puzzle.height else solution[:, i - puzzle.height]
        assert runs(cells) == list(zip(clue, colours, strict=True)), puzzle.line_name(i)


def colour_corpus() -> list[str]:
    root = corpus_path()
    files = sorted(glob.glob(str(root / "pbnsolve-examples" / "*.g")))
    files += sorted(glob.glob(str(root / "number-loom" / "puzzles" / "*.xml")))
    files += [
        str(root / "number-loom" / "examples" / "wolter" / f"webpbn-color-{n}.xml")
        for n in ("00047", "00220")
    ]
    return files


def _readable(path: str) -> list[Puzzle]:
    if path.endswith("wake_up.xml"):  # the one triddler: not a grid puzzle
        return []
    return read_puzzles(path)


def test_corpus_has_the_colour_puzzles_of_the_issue():
    files = colour_corpus()
    colour = [p for f in files for p in _readable(f) if p.is_colour]
    # 5 of the 6 pbnsolve .g files (bicycle is black-and-white), 6 number-loom, 2 webpbn
    assert len(colour) == 13
    assert all(len(p.palette) >= 3 for p in colour)


@pytest.mark.parametrize("engine", ["native", "sat", "cpsat"])
def test_every_corpus_colour_puzzle_is_unique_and_satisfies_its_clues(engine):
    for path in colour_corpus():
        for puzzle in _readable(path):
            result = solve(puzzle, engine, limit=2, timeout=60)
            assert result.status.value == "unique", (path, engine, result.status)
            (solution,) = result.solutions
            check(puzzle, solution)
            if puzzle.goal is not None:
                assert np.array_equal(solution.astype(int), puzzle.goal.astype(int)), path


def test_goal_images_exist_for_the_webpbn_colour_puzzles():
    for path in colour_corpus()[-2:]:
        (puzzle,) = read_puzzles(path)
        assert puzzle.is_colour and puzzle.goal is not None
        check(puzzle, puzzle.goal)


def test_different_colours_touch_same_colours_need_a_gap():
    # 1x3: red 2 then blue 1 touching
    p = Puzzle(
        [(2, 1)], [(1,), (1,), (1,)], palette=PALETTE,
        row_colours=[(1, 2)], col_colours=[(1,), (1,), (2,)],
    )
    assert p.width == 3
    with pytest.raises(PuzzleError, match="needs 4 cells but the row has 3"):
        Puzzle(
            [(2, 1)], [(1,), (1,), (1,)], palette=PALETTE,
            row_colours=[(1, 1)], col_colours=[(1,), (1,), (1,)],
        )


def test_per_colour_totals_must_agree():
    with pytest.raises(PuzzleError, match="colour red"):
        Puzzle(
            [(1,)], [(1,)], palette=PALETTE, row_colours=[(1,)], col_colours=[(2,)],
        )


def test_black_and_white_puzzle_is_unchanged():
    p = Puzzle([(1,), ()], [(1,), ()])
    assert not p.is_colour and p.palette is None and p.n_colours == 2
    assert p.line_colours == ((1,), (), (1,), ())
    assert p.fingerprint() == Puzzle([(1,), ()], [(1,), ()]).fingerprint()


def test_from_picture_round_trip_and_engines_agree_on_small_random_pictures():
    rng = np.random.default_rng(3)
    for _ in range(25):
        pic = rng.integers(0, 3, size=(4, 5)).astype(np.int8)
        p = Puzzle.from_picture(pic, palette=PALETTE)
        check(p, pic)
        found = {}
        for engine in ("native", "sat", "cpsat"):
            r = solve(p, engine, limit=500)
            assert len(r.solutions) < 500  # every solution enumerated
            for s in r.solutions:
                check(p, s)
            found[engine] = sorted(s.tobytes() for s in r.solutions)
        assert pic.tobytes() in found["native"]
        assert found["native"] == found["sat"] == found["cpsat"]
