"""Independent parts (issue 15): the open cells after logic grouped as Hugi splits a puzzle,
checked against a brute-force component computation; the implication graph's components."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.analysis.structure import (
    component_ids,
    independent_parts,
    scc_summary,
    write_graph_with_components,
)
from nonosat.native.implications import implication_graph
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Cell, Puzzle


def brute_parts(grid: np.ndarray) -> set[frozenset]:
    """Components of the open cells, two linked when they share a row or a column (flood fill
    over cell pairs, nothing shared with the implementation)."""
    cells = [tuple(map(int, rc)) for rc in np.argwhere(grid == Cell.UNKNOWN)]
    left = set(cells)
    out = set()
    while left:
        seed = left.pop()
        comp, todo = {seed}, [seed]
        while todo:
            r, c = todo.pop()
            for other in list(left):
                if other[0] == r or other[1] == c:
                    left.discard(other)
                    comp.add(other)
                    todo.append(other)
        out.add(frozenset(comp))
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.data())
def test_parts_match_brute_force(h, w, data):
    bits = data.draw(st.lists(st.integers(0, 2), min_size=h * w, max_size=h * w))
    codes = {0: Cell.UNKNOWN, 1: Cell.EMPTY, 2: Cell.FILLED}
    grid = np.array([codes[b] for b in bits], dtype=np.int8).reshape(h, w)
    parts = independent_parts(grid)
    assert {frozenset(p.cells) for p in parts} == brute_parts(grid)
    assert [p.size for p in parts] == sorted((p.size for p in parts), reverse=True)
    for a, b in itertools.combinations(parts, 2):  # no row or column links two parts
        assert not set(a.rows) & set(b.rows) and not set(a.cols) & set(b.cols)


def test_two_separate_blocks_are_two_parts():
    grid = np.full((4, 4), Cell.EMPTY, dtype=np.int8)
    grid[0:2, 0:2] = Cell.UNKNOWN
    grid[2:4, 2:4] = Cell.UNKNOWN
    parts = independent_parts(grid)
    assert [p.size for p in parts] == [4, 4]
    assert parts[0].rows == (0, 1) and parts[1].cols == (2, 3)
    assert independent_parts(np.full((3, 3), Cell.FILLED, dtype=np.int8)) == []


def test_graph_export_carries_the_components(tmp_path):
    puzzle = Puzzle([(1,), (1,)], [(1,), (1,)])  # the two diagonals: the cells are all tied
    graph = implication_graph(puzzle, propagate_grid(puzzle)[0])
    summary = scc_summary(graph)
    assert summary["nodes"] == 8 and summary["nontrivial"] == 2 and summary["largest"] == 4
    path = tmp_path / "g.graphml"
    write_graph_with_components(graph, puzzle, path)
    back = nx.read_graphml(path)
    ids = component_ids(graph)
    assert {data["scc"] for _, data in back.nodes(data=True)} == set(ids.values())
    for lit, k in ids.items():
        assert back.nodes[lit.name()]["scc"] == k
