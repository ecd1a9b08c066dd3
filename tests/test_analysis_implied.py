"""The array-based implication figures (nonosat.analysis.implied) against the networkx
reference (nonosat.native.implications, nonosat.analysis.structure): the same forced literals
with the same rules, premises and witnesses in the same order, the same tied cells and the same
component figures -- on random pictures (hypothesis), at line-solving fixpoints and off them,
and on corpus puzzles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.analysis.implied import (
    forced_literals_fast,
    implication_arrays,
    linked_cells_fast,
    scc_summary_fast,
)
from nonosat.analysis.structure import scc_summary
from nonosat.formats import read_puzzle
from nonosat.native.implications import forced_literals, implication_graph, linked_cells
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Cell, Puzzle, unknown_grid
from tests.conftest import corpus_path


def check_same(puzzle: Puzzle, grid: np.ndarray) -> int:
    graph = implication_graph(puzzle, grid)
    arrays = implication_arrays(puzzle, grid)
    assert arrays.nodes == graph.number_of_nodes()
    edges = {(arrays.literal(a), arrays.literal(b))
             for a, b in zip(arrays.src.tolist(), arrays.dst.tolist(), strict=True)}
    assert edges == set(graph.edges)
    for rules in (("contradiction", "tautology"), ("tautology", "contradiction"),
                  ("tautology",)):
        assert forced_literals_fast(arrays, rules) == forced_literals(graph, None, rules), rules
    assert linked_cells_fast(arrays) == linked_cells(graph)
    assert scc_summary_fast(arrays) == scc_summary(graph)
    return len(forced_literals(graph))


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 7), st.integers(3, 7), st.data())
def test_random_pictures_at_and_off_the_line_fixpoint(h, w, data):
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    pic = rng.random((h, w)) < data.draw(st.sampled_from([0.3, 0.5, 0.7]))
    puzzle = Puzzle.from_picture(pic)
    check_same(puzzle, unknown_grid(puzzle))  # off the fixpoint: line conflicts possible
    fixed = propagate_grid(puzzle)
    assert fixed is not None
    check_same(puzzle, fixed[0])
    # a few wrong givens: states with no solution, conflicts and contradictory components
    grid = fixed[0].copy()
    open_cells = np.argwhere(grid == Cell.UNKNOWN)
    for r, c in open_cells[: data.draw(st.integers(0, 3))]:
        grid[r, c] = Cell.EMPTY if pic[r, c] else Cell.FILLED
    check_same(puzzle, grid)


@pytest.mark.parametrize("ref", [("NonogramRecord", "question", "taai2011.txt", 7),
                                 ("FastNonogramSolver", "puzzles", "survey", "webpbn-06574.nin",
                                  None)])
def test_corpus_puzzles(ref):
    *parts, index = ref
    puzzle = read_puzzle(corpus_path(*parts), None, index)
    fixed = propagate_grid(puzzle)
    assert check_same(puzzle, fixed[0]) > 0  # something is forced: the rules were exercised
