"""The multi-word bit-parallel line solver (lines over 62 cells, issue 27) against the dynamic
programme: random lines (hypothesis), every line of the long-line corpus puzzles, and search
results on long-line puzzles.  ``benchmarks/bench_line_words.py`` checks every line of the
corpus the same way and prints the speed."""

from __future__ import annotations

from itertools import groupby

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.native.line import BITS_MAX_LINE, LIMB, solve_line
from nonosat.puzzle import Puzzle
from tests.conftest import corpus_path


def clue_of(picture: np.ndarray) -> list[int]:
    """The picture's runs of filled cells (written apart from the model's own clue code)."""
    return [len(list(run)) for filled, run in groupby(picture.tolist()) if filled]


def same(clue, cells) -> None:
    want = solve_line(clue, cells, "dp")
    got = solve_line(clue, cells, "words")
    assert (want is None) == (got is None), (clue, cells.tolist(), want, got)
    if want is not None:
        assert np.array_equal(want, got), (clue, cells.tolist(), want.tolist(), got.tolist())
    auto = solve_line(clue, cells)
    assert (auto is None) == (want is None)
    if want is not None:
        assert np.array_equal(auto, want)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 3 * LIMB + 10),
    st.floats(0.1, 0.9),
    st.floats(0.0, 0.7),
    st.floats(0.0, 0.05),
    st.integers(0, 2**32 - 1),
)
def test_words_kernel_matches_the_dynamic_programme(n, density, known, flips, seed):
    """Lines of 1-196 cells (one to four words; 63-124 take the two-word path): the clue of a
    random picture, some cells revealed from it, some revealed cells flipped (contradictions
    too)."""
    rng = np.random.default_rng(seed)
    picture = rng.random(n) < density
    cells = np.full(n, 3, dtype=np.int8)
    shown = rng.random(n) < known
    cells[shown] = np.where(picture[shown], 2, 1)
    flip = shown & (rng.random(n) < flips)
    cells[flip] = 3 - cells[flip]
    same(clue_of(picture), cells)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2 * LIMB + 4), st.integers(0, 2**32 - 1))
def test_words_kernel_on_arbitrary_clues(n, seed):
    """Clues not taken from any picture (often contradictory), on random partial lines."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(0, max(n // 2, 1) + 1))
    clue = [int(x) for x in rng.integers(1, max(n // max(k, 1), 1) + 1, size=k)]
    cells = rng.choice(np.array([1, 2, 3, 3, 3], dtype=np.int8), size=n)
    same(clue, cells)


def test_word_boundaries():
    """Blocks ending and starting on either side of a word boundary, exact fits, empty lines."""
    for n in (LIMB, LIMB + 1, 2 * LIMB - 1, 2 * LIMB, 2 * LIMB + 1, 3 * LIMB):
        for c in (1, 2, LIMB - 1, LIMB, LIMB + 1):
            if c <= n:
                for pos in (0, LIMB - c, LIMB - c + 1, n - c):
                    if 0 <= pos <= n - c:
                        picture = np.zeros(n, dtype=bool)
                        picture[pos:pos + c] = True
                        cells = np.full(n, 3, dtype=np.int8)
                        same([c], cells)
                        cells[pos] = 2
                        same([c], cells)
        same([], np.full(n, 3, dtype=np.int8))
        same([n], np.full(n, 3, dtype=np.int8))
        same([1] * ((n + 1) // 2), np.full(n, 3, dtype=np.int8))


LONG = [
    ("FastNonogramSolver", "puzzles", "survey", "faase.nin"),
    ("picross-solver", "inputs", "qnonograms", "tiger.non"),
    ("pbnsolve-examples", "gentleman.mk"),
    ("pbnsolve-examples", "bird3.mk"),
]


@pytest.mark.parametrize("parts", LONG, ids=[p[-1] for p in LONG])
def test_every_line_of_long_corpus_puzzles(parts):
    """Every line longer than 62 cells of the corpus's long-line puzzles, all unknown and at
    the propagation fixpoint (what the solver meets), against the dynamic programme."""
    from nonosat.formats import read_puzzle
    from nonosat.native.propagate import propagate_grid

    puzzle = read_puzzle(corpus_path(*parts))
    fixpoint = propagate_grid(puzzle)
    assert fixpoint is not None
    grid = fixpoint[0]
    checked = 0
    for line, clue in enumerate(puzzle.lines):
        cells = grid[line] if line < puzzle.height else grid[:, line - puzzle.height]
        if len(cells) <= BITS_MAX_LINE or clue is None:
            continue
        same(list(clue), np.full(len(cells), 3, dtype=np.int8))
        same(list(clue), np.ascontiguousarray(cells))
        checked += 1
    assert checked > 0


def test_search_on_long_lines_finds_valid_solutions():
    """A random 70x66 picture (rows and columns over 62 cells): the native search, all on the
    multi-word kernel, finds solutions that satisfy the clues, and the same count as CP-SAT."""
    from nonosat.engines import solve

    picture = np.random.default_rng(4).random((66, 70)) < 0.6
    puzzle = Puzzle.from_picture(picture)
    native = solve(puzzle, "native", limit=2, timeout=60)
    assert native.status.value in ("unique", "multiple")
    sat = solve(puzzle, "sat", limit=2, timeout=120)
    assert sat.status == native.status
