"""The single-line implication graph: construction, contradictions, tautologies, linked cells,
export.

Edges are checked against the line solver's Python face run independently; every forced literal
and every linked-cell relation is checked against all solutions found by the SAT engine.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonosat.engines import solve
from nonosat.errors import FormatError
from nonosat.native.implications import (
    Literal,
    explain_forced,
    forced_literals,
    implication_graph,
    linked_cells,
    read_graph,
    write_graph,
)
from nonosat.native.line import solve_line
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import pictures

#: Line solving gets stuck; one implication round (contradictions) finishes it.
README_LIKE = [".#..", "#.#.", "#.#.", ".#.#"]


def picture(rows: list[str]) -> Puzzle:
    return Puzzle.from_picture(np.array([[ch == "#" for ch in row] for row in rows]))


def reference_edges(puzzle: Puzzle, grid: np.ndarray) -> set[tuple[Literal, Literal]]:
    """The implication edges computed directly with :func:`solve_line`, one line at a time."""
    h, w = puzzle.shape
    edges = set()
    for line, clue in enumerate(puzzle.lines):
        cells = [(line, c) for c in range(w)] if line < h else [(r, line - h) for r in range(h)]
        values = np.array([grid[rc] for rc in cells], dtype=np.int8)
        for p in np.nonzero(values == Cell.UNKNOWN)[0]:
            for filled in (True, False):
                test = values.copy()
                test[p] = Cell.FILLED if filled else Cell.EMPTY
                out = solve_line(clue, test)
                assert out is not None  # at a line-solving fixpoint no single value fails
                for q in np.nonzero(out != test)[0]:
                    edges.add((Literal(*cells[p], filled),
                               Literal(*cells[q], bool(out[q] == Cell.FILLED))))
    return edges


def all_solutions(puzzle: Puzzle, cap: int = 200) -> list[np.ndarray]:
    result = solve(puzzle, "sat", limit=cap)
    assert len(result.solutions) < cap, "too many solutions to check exhaustively"
    return result.solutions


PICTURES = pictures(3, 6)


# -- the davidje13 README examples, as graphs -------------------------------------------------
def readme_graph(edges: list[tuple[Literal, Literal]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    for r in range(2):
        for c in range(2):
            graph.add_nodes_from([Literal(r, c, True), Literal(r, c, False)])
    graph.add_edges_from(edges, line=0)
    return graph


ON = lambda r, c: Literal(r - 1, c - 1, True)  # noqa: E731 - the README's 1-based (row, col)
OFF = lambda r, c: Literal(r - 1, c - 1, False)  # noqa: E731


def test_readme_contradiction_refutes_the_assumption():
    graph = readme_graph([(ON(1, 1), ON(1, 2)), (ON(1, 2), ON(2, 2)),
                          (ON(1, 1), ON(2, 1)), (ON(2, 1), OFF(2, 2))])
    forced = forced_literals(graph, rules=("contradiction",))
    assert [(f.literal, f.rule, f.premise) for f in forced] == [(OFF(1, 1), "contradiction", ON(1, 1))]
    assert forced[0].witness.cell == (1, 1)
    paths = explain_forced(graph, forced[0])
    assert {p[-1] for p in paths} == {ON(2, 2), OFF(2, 2)}
    assert forced_literals(graph, depth=1) == []  # needs paths of two edges


def test_readme_tautology_forces_the_common_consequence():
    graph = readme_graph([(ON(1, 1), OFF(1, 2)), (OFF(1, 2), OFF(2, 2)),
                          (OFF(1, 1), ON(2, 1)), (ON(2, 1), OFF(2, 2))])
    forced = forced_literals(graph, rules=("tautology",))
    assert [(f.literal, f.rule) for f in forced] == [(OFF(2, 2), "tautology")]
    assert forced_literals(graph, rules=("contradiction",)) == []  # not closed under contraposition
    assert forced_literals(graph, depth=1, rules=("tautology",)) == []
    assert [len(p) for p in explain_forced(graph, forced[0])] == [3, 3]


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="unknown implication rule"):
        forced_literals(readme_graph([]), rules=("magic",))


# -- graphs of puzzles -----------------------------------------------------------------------
def test_nodes_are_the_unknown_cells_only():
    puzzle = picture(README_LIKE)
    grid, _ = propagate_grid(puzzle)
    graph = implication_graph(puzzle, grid)
    unknown = {(int(r), int(c)) for r, c in zip(*np.nonzero(grid == Cell.UNKNOWN), strict=True)}
    assert unknown  # line solving alone is stuck here
    assert {lit.cell for lit in graph.nodes} == unknown
    assert graph.number_of_nodes() == 2 * len(unknown)


def test_edges_record_the_line_that_implies_them():
    puzzle = Puzzle([(1,), (1,)], [(1,), (1,)])
    graph = implication_graph(puzzle)
    assert graph.edges[Literal(0, 0, True), Literal(0, 1, False)]["line"] == 0  # row 1
    assert graph.edges[Literal(0, 0, True), Literal(1, 0, False)]["line"] == 2  # column 1
    assert forced_literals(graph) == []  # two solutions: nothing is forced
    groups = linked_cells(graph)
    assert len(groups) == 1
    (group,) = groups
    assert sorted(group.equal + group.opposite) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert sorted(group.equal) in ([(0, 0), (1, 1)], [(0, 1), (1, 0)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PICTURES)
def test_edges_match_the_line_solver_run_line_by_line(rows):
    puzzle = Puzzle.from_picture(np.array(rows, dtype=bool))
    grid, _ = propagate_grid(puzzle)
    graph = implication_graph(puzzle, grid)
    assert set(graph.edges) == reference_edges(puzzle, grid)
    assert graph.graph["line_conflicts"] == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PICTURES, st.sampled_from([None, 1, 2, 3]))
def test_forced_literals_and_linked_cells_hold_in_every_solution(rows, depth):
    puzzle = Puzzle.from_picture(np.array(rows, dtype=bool))
    grid, _ = propagate_grid(puzzle)
    graph = implication_graph(puzzle, grid)
    solutions = all_solutions(puzzle)
    for forced in forced_literals(graph, depth):
        lit = forced.literal
        assert all(sol[lit.cell] == lit.filled for sol in solutions), forced
    for group in linked_cells(graph):
        ref = group.equal[0]
        for sol in solutions:
            assert all(sol[c] == sol[ref] for c in group.equal)
            assert all(sol[c] != sol[ref] for c in group.opposite)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PICTURES, st.sampled_from([None, 1, 2]))
def test_contradictions_and_tautologies_force_the_same_literals_at_a_fixpoint(rows, depth):
    puzzle = Puzzle.from_picture(np.array(rows, dtype=bool))
    grid, _ = propagate_grid(puzzle)
    graph = implication_graph(puzzle, grid)
    for a, b in graph.edges:  # closed under contraposition
        assert graph.has_edge(b.negation(), a.negation())
    by_contradiction = {f.literal for f in forced_literals(graph, depth, ("contradiction",))}
    by_tautology = {f.literal for f in forced_literals(graph, depth, ("tautology",))}
    assert by_contradiction == by_tautology


def test_depth_limits_the_traversal():
    puzzle = picture(README_LIKE)
    grid, _ = propagate_grid(puzzle)
    graph = implication_graph(puzzle, grid)
    unlimited = {f.literal for f in forced_literals(graph)}
    shallow = {f.literal for f in forced_literals(graph, depth=1)}
    assert unlimited and shallow <= unlimited
    solution = puzzle.goal
    assert all(solution[lit.cell] == lit.filled for lit in unlimited)


# -- export -----------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".graphml", ".gexf"])
def test_graph_export_reloads_in_networkx(tmp_path, suffix):
    puzzle = picture(README_LIKE)
    grid, _ = propagate_grid(puzzle)
    graph = implication_graph(puzzle, grid)
    forced = forced_literals(graph)
    path = tmp_path / f"g{suffix}"
    assert write_graph(graph, puzzle, path, forced) == suffix[1:]
    back = read_graph(path)
    assert set(back.nodes) == set(graph.nodes)
    assert set(back.edges) == set(graph.edges)
    reasons = {f.literal: f.rule for f in forced}
    for lit in back.nodes:
        assert back.nodes[lit]["forced_by"] == reasons.get(lit, "")
    for a, b in graph.edges:
        assert back.edges[a, b]["line"] == puzzle.line_name(graph.edges[a, b]["line"])
    # and plain networkx reads the attributes without nonosat
    plain = nx.read_graphml(path) if suffix == ".graphml" else nx.read_gexf(path)
    node, data = next(iter(plain.nodes(data=True)))
    assert {"row", "col", "value", "forced_by"} <= set(data)
    assert node == f"R{int(data['row'])}C{int(data['col'])}={data['value']}"


def test_dot_export_needs_pydot(tmp_path):
    puzzle = picture(README_LIKE)
    graph = implication_graph(puzzle, propagate_grid(puzzle)[0])
    try:
        import pydot  # noqa: F401
    except ImportError:
        with pytest.raises(FormatError, match="pydot"):
            write_graph(graph, puzzle, tmp_path / "g.dot")
    else:  # pragma: no cover - depends on the environment
        write_graph(graph, puzzle, tmp_path / "g.dot")
        assert set(read_graph(tmp_path / "g.dot").edges) == set(graph.edges)


def test_unknown_graph_suffix_is_a_format_error(tmp_path):
    puzzle = picture(README_LIKE)
    with pytest.raises(FormatError, match="unknown graph format"):
        write_graph(implication_graph(puzzle), puzzle, tmp_path / "g.txt")
    with pytest.raises(FormatError):
        read_graph(tmp_path / "g.txt")
