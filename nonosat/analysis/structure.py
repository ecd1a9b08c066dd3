"""The structure of a puzzle after logic: independent parts and tied cells.

* **Independent parts** (:func:`independent_parts`): the cells logic leaves open, grouped into
  connected components of the bipartite graph rows--columns in which an open cell ``(r, c)``
  joins row ``r`` and column ``c`` (as Hugi's solver splits a puzzle).  Two parts share no row and
  no column, so no clue links them: each can be solved separately, and the solutions of the
  puzzle are the products of the parts' solutions (a puzzle with several solutions is ambiguous
  in some parts and decided in the others).
* **Tied cells** (:func:`tied_cells`): the strongly connected components of the single-line
  implication graph (:mod:`nonosat.native.implications`) with more than one cell: the literals of
  a component imply each other, so its cells are equal or opposite in every solution.
  :func:`write_graph_with_components` exports the graph with each literal's component
  (GraphML, GEXF or DOT).

Nothing here solves; it reads grids and graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nonosat.native.implications import (
    LinkedCells,
    graph_format,
    linked_cells,
    write_graph_file,
)
from nonosat.puzzle import Cell


@dataclass(frozen=True)
class Part:
    """One independent part: its open ``cells`` (0-based, reading order), ``rows`` and
    ``cols`` (sorted)."""

    cells: tuple[tuple[int, int], ...]
    rows: tuple[int, ...]
    cols: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.cells)

    def to_json(self) -> dict[str, Any]:
        """1-based rows and columns, and the size."""
        return {"size": self.size, "rows": [r + 1 for r in self.rows],
                "cols": [c + 1 for c in self.cols]}


def independent_parts(grid: np.ndarray) -> list[Part]:
    """The open cells of ``grid`` grouped into independent parts (module docstring).

    Parameters
    ----------
    grid : ndarray of int8, shape (height, width)
        A grid state; its :data:`~nonosat.puzzle.Cell.UNKNOWN` cells are the open ones.

    Returns
    -------
    list of Part
        Largest first (ties: by first cell); empty when nothing is open.
    """
    grid = np.asarray(grid)
    h, w = grid.shape
    parent = list(range(h + w))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    open_cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(grid == Cell.UNKNOWN), strict=True)]
    for r, c in open_cells:
        a, b = find(r), find(h + c)
        if a != b:
            parent[b] = a
    groups: dict[int, list[tuple[int, int]]] = {}
    for r, c in open_cells:
        groups.setdefault(find(r), []).append((r, c))
    parts = [Part(tuple(cells), tuple(sorted({r for r, _ in cells})),
                  tuple(sorted({c for _, c in cells}))) for cells in groups.values()]
    parts.sort(key=lambda p: (-p.size, p.cells[0]))
    return parts


def tied_cells(graph) -> list[LinkedCells]:
    """Cells tied together by the implication graph's strongly connected components (more
    than one cell; a component and its mirror under negation once), largest first: see
    :func:`nonosat.native.implications.linked_cells`."""
    return linked_cells(graph)


def component_ids(graph) -> dict:
    """Literal -> index of its strongly connected component (components numbered largest
    first; a literal alone is a component of its own)."""
    import networkx as nx

    comps = sorted(nx.strongly_connected_components(graph), key=lambda c: (-len(c), min(c)))
    return {lit: k for k, comp in enumerate(comps) for lit in comp}


def scc_summary(graph) -> dict[str, Any]:
    """Figures of the implication graph: nodes, edges, strongly connected components (all of
    them, and those tying two cells or more), the largest component's literal count."""
    import networkx as nx

    sizes = sorted((len(c) for c in nx.strongly_connected_components(graph)), reverse=True)
    return {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(),
            "components": len(sizes), "nontrivial": sum(1 for s in sizes if s > 1),
            "largest": sizes[0] if sizes else 0}


def colour_graph(arrays):
    """The colour implication graph (:func:`nonosat.analysis.implied.palette_arrays`) as a
    ``networkx.DiGraph`` of :class:`~nonosat.analysis.implied.ColourLiteral` nodes, edge
    attribute ``line``; ``graph.graph["line_conflicts"]`` lists ``(literal, line)`` pairs whose
    assumption contradicts the line outright (never at a line-solving fixpoint).  On a
    two-colour puzzle it is the black-and-white graph."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(arrays.literal(v) for v in range(arrays.nodes))
    for a, b, line in zip(arrays.src.tolist(), arrays.dst.tolist(), arrays.line.tolist(),
                          strict=True):
        graph.add_edge(arrays.literal(a), arrays.literal(b), line=line)
    graph.graph["line_conflicts"] = [(arrays.literal(v), line) for v, line in arrays.conflicts]
    return graph


def write_graph_with_components(graph, puzzle, path: str | Path, forced=None) -> str:
    """:func:`nonosat.native.implications.write_graph` with one more node attribute, ``scc``
    (the index of the literal's strongly connected component, :func:`component_ids`).  A colour
    puzzle's graph (:func:`colour_graph`) is written with node attributes ``row``, ``col``
    (1-based), ``colour`` (its name) and ``scc``, edge attribute ``line``.

    Returns
    -------
    str
        The format written (``graphml``, ``gexf`` or ``dot``).

    Raises
    ------
    FormatError
        Unknown suffix, or DOT requested without pydot installed.
    """
    from nonosat.native.implications import export_graph

    fmt = graph_format(path)
    if puzzle.is_colour:
        _write_colour_graph(graph, puzzle, Path(path), fmt)
        return fmt
    plain = export_graph(graph, puzzle, forced)
    for lit, k in component_ids(graph).items():
        plain.nodes[lit.name()]["scc"] = k
    write_graph_file(plain, Path(path), fmt)
    return fmt


def _write_colour_graph(graph, puzzle, path: Path, fmt: str) -> None:
    """Write a colour implication graph (:func:`write_graph_with_components`)."""
    import networkx as nx

    names = [c.name for c in puzzle.palette.colours]
    ids = component_ids(graph)
    plain = nx.DiGraph()
    for lit in sorted(graph.nodes):
        plain.add_node(lit.name(puzzle), row=lit[0] + 1, col=lit[1] + 1, colour=names[lit[2]],
                       scc=ids[lit])
    for a, b, data in graph.edges(data=True):
        plain.add_edge(a.name(puzzle), b.name(puzzle), line=puzzle.line_name(data["line"]))
    write_graph_file(plain, path, fmt)
