"""The single-line implication graph: contradictions, tautologies and linked cells.

Nodes are cell *literals* -- ``(row, column) = filled`` or ``(row, column) = empty`` -- for the
cells still unknown in a grid state.  For every unknown cell and each of its two values, the
value is assumed and the complete line solver (:func:`nonosat.native.line.solve_line`) runs on that
cell's row and on its column only (nothing else, no propagation): every cell of that line that
becomes known gives an edge ``assumption -> implied literal``.  Each edge is a sound implication
in the current state, so every path is too.  Traversing the graph then finds:

* **contradictions** -- a literal ``x`` from which both ``y`` and ``not y`` are reachable cannot
  hold, so ``not x`` is forced (this includes ``x`` reaching ``not x``);
* **tautologies** -- a literal ``z`` reachable from both ``y`` and ``not y`` is forced whatever
  ``y`` is;
* **linked cells** -- literals in one strongly connected component imply each other, so their
  cells are equal (same value in the literals) or opposite.

This is the ``implications`` solver of David Evans' davidje13/Nonogram (README, "Implications"):
stronger than line solving, because it chains single-line implications through several lines,
weaker than failed-literal probing (:mod:`nonosat.native.probe`), which propagates every line at once.
Traversal depth is configurable (unlimited by default): ``depth=k`` only follows paths of at
most ``k`` edges.

Building the graph is one compiled loop per line (:func:`line_implications`, around the line
solver's kernel).  The graph is a :class:`networkx.DiGraph`; strongly connected components and the condensation come
from networkx, and reachability is computed once per component over the condensation in reverse
topological order, with Python integers as bit sets of literals (so every literal's reachable set
costs one OR per condensation edge).  :func:`write_graph` exports it as GraphML or GEXF (DOT when
pydot is installed) with node attributes ``row``, ``col`` (1-based), ``value`` and ``forced_by``;
:func:`read_graph` reads it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import networkx as nx
import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.line import line_kernel
from nonosat.puzzle import Cell, Puzzle, unknown_grid


class Literal(NamedTuple):
    """``(row, col) = filled`` when ``filled`` else ``(row, col) = empty``; 0-based cell."""

    row: int
    col: int
    filled: bool

    @property
    def cell(self) -> tuple[int, int]:
        """``(row, col)``, 0-based."""
        return (self.row, self.col)

    @property
    def value(self) -> Cell:
        """``Cell.FILLED`` or ``Cell.EMPTY``."""
        return Cell.FILLED if self.filled else Cell.EMPTY

    def negation(self) -> Literal:
        """The same cell with the other value."""
        return Literal(self.row, self.col, not self.filled)

    def name(self) -> str:
        """Node name used in exported graphs: ``"R3C5=filled"`` (1-based)."""
        return f"R{self.row + 1}C{self.col + 1}={'filled' if self.filled else 'empty'}"

    def __str__(self) -> str:
        return f"(row {self.row + 1}, column {self.col + 1}) {'filled' if self.filled else 'empty'}"


@dataclass(frozen=True)
class ForcedLiteral:
    """A literal the graph forces, with the reason.

    Attributes
    ----------
    literal : Literal
        What is forced.
    rule : str
        ``"contradiction"``: ``premise`` (the negation of ``literal``) reaches both ``witness`` and
        its negation; ``"tautology"``: both ``premise`` and its negation reach ``literal``;
        ``"line"``: assuming ``premise`` contradicts its own row or column directly (only in a
        state that is not at a line-solving fixpoint).
    premise : Literal
        The assumption the argument starts from.
    witness : Literal or None
        For a contradiction, the literal ``y`` with both ``y`` and ``not y`` reachable.
    """

    literal: Literal
    rule: str
    premise: Literal
    witness: Literal | None = None


@dataclass(frozen=True)
class LinkedCells:
    """Cells tied together by a strongly connected component of the graph.

    Attributes
    ----------
    equal : list of (row, col)
        Cells that all take the same value (the first is the reference cell).
    opposite : list of (row, col)
        Cells that take the opposite value of the reference cell.
    """

    equal: list[tuple[int, int]]
    opposite: list[tuple[int, int]]


def _line_cells(puzzle: Puzzle, line: int) -> list[tuple[int, int]]:
    h, w = puzzle.shape
    if line < h:
        return [(line, c) for c in range(w)]
    return [(r, line - h) for r in range(h)]


@njit(cache=True, nogil=True)
def line_implications(clue, cells, src, dst, val):  # pragma: no cover - compiled
    """Every single-line implication of one line.

    For each unknown position ``p`` and value ``v`` (1 empty, 2 filled), the line is solved with
    ``p`` set to ``v`` (:func:`nonosat.native.line.line_kernel`, the compiled face of
    :func:`nonosat.native.line.solve_line`); every other position ``q`` that becomes known gives an
    entry ``src = 2 * p + (v == 2)``, ``dst = q``, ``val`` = its value.  An assumption that
    contradicts the line gives one entry with ``dst = -1``.

    Parameters
    ----------
    clue : ndarray of int32, shape (k,)
    cells : ndarray of int8, shape (n,)
        The line's cell states.
    src, dst : ndarray of int32, shape (>= 2 * n * n,)
    val : ndarray of int8, shape (>= 2 * n * n,)
        Receive the entries.

    Returns
    -------
    int
        Number of entries written.
    """
    n = cells.shape[0]
    test = cells.copy()
    out = np.empty_like(cells)
    count = 0
    for p in range(n):
        if cells[p] != 3:
            continue
        for v in (2, 1):
            test[p] = v
            lit = 2 * p + (1 if v == 2 else 0)
            if not line_kernel(clue, test, out):
                src[count] = lit
                dst[count] = -1
                val[count] = 0
                count += 1
            else:
                for q in range(n):
                    if out[q] != test[q]:
                        src[count] = lit
                        dst[count] = q
                        val[count] = out[q]
                        count += 1
        test[p] = 3
    return count


def open_lines(
    puzzle: Puzzle, state: np.ndarray,
) -> Iterator[tuple[int, np.ndarray, np.ndarray, int, int]]:
    """The lines of ``state`` (int8, (h, w)) with a known clue and an unknown cell, in the order
    of ``puzzle.lines`` (rows, then columns): ``(line, clue, values, base, step)``, ``clue`` as
    int32, ``values`` the line's cells (contiguous int8), and the flat cell index of line
    position ``p`` is ``base + p * step``."""
    h, w = puzzle.shape
    for line, clue in enumerate(puzzle.lines):
        if clue is None:
            continue
        values = state[line] if line < h else state[:, line - h]
        if not (values == Cell.UNKNOWN).any():
            continue
        base, step = (line * w, 1) if line < h else (line - h, w)
        yield (line, np.asarray(clue, dtype=np.int32), np.ascontiguousarray(values), base,
               step)


def implication_graph(puzzle: Puzzle, grid: np.ndarray | None = None) -> nx.DiGraph:
    """Build the single-line implication graph of ``puzzle`` in the state ``grid``.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray of int8, shape (height, width), optional
        Grid state (:class:`~nonosat.puzzle.Cell` values); all unknown when omitted.  Only its
        unknown cells get nodes.

    Returns
    -------
    networkx.DiGraph
        Nodes are :class:`Literal` (two per unknown cell).  An edge ``x -> y`` carries ``line``
        (line index, rows first) and means: with ``x`` assumed, solving that line forces ``y``.
        ``graph.graph["line_conflicts"]`` lists ``(literal, line)`` pairs whose assumption
        contradicts the line outright (never at a line-solving fixpoint).

    Notes
    -----
    Four line solves per unknown cell (two values, row and column), compiled
    (:func:`line_implications`): O(u * n * k) for ``u`` unknown cells, lines of ``n`` cells and
    ``k`` blocks.  Lines with an unknown clue imply nothing.

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> g = implication_graph(Puzzle([(1,), (1,)], [(1,), (1,)]))
    >>> g.has_edge(Literal(0, 0, True), Literal(0, 1, False))
    True
    """
    state = unknown_grid(puzzle) if grid is None else np.asarray(grid, dtype=np.int8)
    h, w = puzzle.shape
    graph = nx.DiGraph()
    # one Literal object per cell and value, shared by every edge (index 2 * (r * w + c) + filled)
    lits: list[Literal | None] = [None] * (2 * h * w)
    for r, c in zip(*np.nonzero(state == Cell.UNKNOWN), strict=True):
        r, c = int(r), int(c)
        lits[2 * (r * w + c)] = Literal(r, c, False)
        lits[2 * (r * w + c) + 1] = Literal(r, c, True)
    graph.add_nodes_from(lit for lit in lits if lit is not None)
    conflicts: list[tuple[Literal, int]] = []
    longest = max(h, w)
    src = np.empty(2 * longest * longest, dtype=np.int32)
    dst = np.empty_like(src)
    val = np.empty(src.shape[0], dtype=np.int8)
    for line, clue, values, base, step in open_lines(puzzle, state):
        count = line_implications(clue, values, src, dst, val)
        s = src[:count].astype(np.int64)
        d = dst[:count].astype(np.int64)
        src_lit = 2 * (base + (s >> 1) * step) + (s & 1)
        dst_lit = 2 * (base + d * step) + (val[:count] == Cell.FILLED)
        edges = []
        for a, b, ok in zip(src_lit.tolist(), dst_lit.tolist(), (d >= 0).tolist(), strict=True):
            if ok:
                edges.append((lits[a], lits[b]))
            else:
                conflicts.append((lits[a], line))
        graph.add_edges_from(edges, line=line)
    graph.graph["line_conflicts"] = conflicts
    return graph


def _reach_sets(graph: nx.DiGraph, index: dict[Literal, int], depth: int | None) -> dict:
    """Bit set (Python int over ``index``) of the literals reachable from each node, within
    ``depth`` edges (unlimited when ``None``)."""
    if depth is None:
        cond = nx.condensation(graph)
        mapping = cond.graph["mapping"]
        comp_reach: dict[int, int] = {}
        for comp in reversed(list(nx.topological_sort(cond))):
            bits = 0
            for node in cond.nodes[comp]["members"]:
                bits |= 1 << index[node]
            for succ in cond.successors(comp):
                bits |= comp_reach[succ]
            comp_reach[comp] = bits
        return {node: comp_reach[mapping[node]] for node in graph}
    reach = {node: 1 << index[node] for node in graph}
    for _ in range(depth):
        nxt = {}
        for node in graph:
            bits = 1 << index[node]
            for succ in graph.successors(node):
                bits |= reach[succ]
            nxt[node] = bits
        if nxt == reach:
            break
        reach = nxt
    return reach


def _bits(value: int) -> Iterable[int]:
    while value:
        low = value & -value
        yield low.bit_length() - 1
        value ^= low


RULES = ("contradiction", "tautology")


def forced_literals(
    graph: nx.DiGraph, depth: int | None = None, rules: tuple[str, ...] = RULES
) -> list[ForcedLiteral]:
    """Literals forced by contradictions and tautologies in ``graph``.

    Parameters
    ----------
    graph : networkx.DiGraph
        From :func:`implication_graph`.
    depth : int, optional
        Follow paths of at most ``depth`` edges; unlimited when omitted.
    rules : tuple of str
        The rules to apply, in order (``"contradiction"``, ``"tautology"``); a literal found by
        several is reported under the first.

    Returns
    -------
    list of ForcedLiteral
        At most one entry per forced literal: direct line conflicts first, then each rule's
        literals in cell order.  Forcing both values of one cell means the state has no
        solution.

    Notes
    -----
    Soundness: every edge is an implication valid in the grid state, so ``x`` reaching ``y`` and
    ``not y`` refutes ``x``, and ``z`` reached from ``y`` and from ``not y`` holds either way.

    At a line-solving fixpoint the graph is closed under contraposition (if assuming ``x`` makes
    a line force ``y``, assuming ``not y`` makes the same line force ``not x``, the line solver
    being complete), so a path ``y -> z`` of length ``k`` has a mirror ``not z -> not y`` of length
    ``k``: ``z`` is forced by a tautology on ``y`` exactly when ``not z`` is refuted by a
    contradiction with witness ``y``, at every depth.  The two rules then force the same set
    of literals; they differ in the argument they give (``tests/test_implications.py`` checks
    this).

    Cost: one strongly-connected-components pass and one bit-set OR per condensation edge, then
    O(literals) big-integer operations.
    """
    nodes = sorted(graph.nodes)
    # literal index 2 * cell + filled: the even bits are "empty" literals, the odd ones "filled"
    cells = sorted({lit.cell for lit in nodes})
    cell_index = {cell: i for i, cell in enumerate(cells)}
    index = {lit: 2 * cell_index[lit.cell] + int(lit.filled) for lit in nodes}
    by_index = {i: lit for lit, i in index.items()}
    evens = int("01" * len(cells), 2) if cells else 0  # bit 2i set for every cell i
    reach = _reach_sets(graph, index, depth)
    out: list[ForcedLiteral] = []
    seen: set[Literal] = set()

    def add(forced: ForcedLiteral) -> None:
        if forced.literal not in seen:
            seen.add(forced.literal)
            out.append(forced)

    for lit, _line in graph.graph.get("line_conflicts", []):
        add(ForcedLiteral(lit.negation(), "line", lit))
    for rule in rules:
        if rule == "contradiction":
            for lit in nodes:
                bits = reach[lit]
                both = (bits & evens) & ((bits >> 1) & evens)
                if both:
                    y = by_index[next(iter(_bits(both)))]
                    add(ForcedLiteral(lit.negation(), "contradiction", lit,
                                      Literal(y.row, y.col, True)))
        elif rule == "tautology":
            # splits on another cell first; a cell "split on itself" (not z reaching z) last
            for own in (False, True):
                for cell in cells:
                    yes, no = Literal(cell[0], cell[1], True), Literal(cell[0], cell[1], False)
                    own_bits = (1 << index[yes]) | (1 << index[no])
                    common = reach[yes] & reach[no]
                    for i in _bits(common & own_bits if own else common & ~own_bits):
                        add(ForcedLiteral(by_index[i], "tautology", yes))
        else:
            raise ValueError(f"unknown implication rule {rule!r}; use {', '.join(RULES)}")
    return out


def explain_forced(graph: nx.DiGraph, forced: ForcedLiteral) -> list[list[Literal]]:
    """The implication chains behind ``forced``: shortest paths in ``graph``.

    Returns
    -------
    list of list of Literal
        Contradiction: the paths ``premise -> ... -> witness`` and ``premise -> ... -> not
        witness``; tautology: ``premise -> ... -> literal`` and ``not premise -> ... ->
        literal``; line conflict: ``[[premise]]``.
    """
    if forced.rule == "contradiction":
        assert forced.witness is not None
        targets = [(forced.premise, forced.witness), (forced.premise, forced.witness.negation())]
    elif forced.rule == "tautology":
        targets = [(forced.premise, forced.literal), (forced.premise.negation(), forced.literal)]
    else:
        return [[forced.premise]]
    return [nx.shortest_path(graph, a, b) for a, b in targets]


def linked_cells(graph: nx.DiGraph) -> list[LinkedCells]:
    """Groups of cells that must be equal or opposite: the strongly connected components of
    ``graph`` with more than one cell, each reported once (a component and its mirror image
    under negation say the same thing).

    Returns
    -------
    list of LinkedCells
        Largest groups first.  A component holding both values of one cell (no solution) is
        skipped.
    """
    groups = []
    done: set[frozenset] = set()
    for comp in nx.strongly_connected_components(graph):
        if len({lit.cell for lit in comp}) < 2:
            continue
        if any(lit.negation() in comp for lit in comp):
            continue
        key = frozenset(comp)
        mirror = frozenset(lit.negation() for lit in comp)
        if key in done or mirror in done:
            continue
        done.add(key)
        lits = sorted(comp)
        ref = lits[0]
        equal = [lit.cell for lit in lits if lit.filled == ref.filled]
        opposite = [lit.cell for lit in lits if lit.filled != ref.filled]
        groups.append(LinkedCells(equal, opposite))
    groups.sort(key=lambda g: (-(len(g.equal) + len(g.opposite)), g.equal[0]))
    return groups


# -- export -----------------------------------------------------------------------------------
GRAPH_FORMATS = {".graphml": "graphml", ".gexf": "gexf", ".dot": "dot", ".gv": "dot"}


def export_graph(
    graph: nx.DiGraph, puzzle: Puzzle, forced: list[ForcedLiteral] | None = None
) -> nx.DiGraph:
    """A copy of ``graph`` with string node names (:meth:`Literal.name`) and plain attributes,
    ready for the networkx writers.

    Node attributes: ``row``, ``col`` (1-based ints), ``value`` (``"filled"``/``"empty"``),
    ``forced_by`` (``"contradiction"``, ``"tautology"``, ``"line"`` or ``""``).
    Edge attribute: ``line`` (``"row 3"`` / ``"column 7"``).
    """
    reasons = {f.literal: f.rule for f in (forced if forced is not None else [])}
    out = nx.DiGraph()
    for lit in sorted(graph.nodes):
        out.add_node(
            lit.name(),
            row=lit.row + 1,
            col=lit.col + 1,
            value="filled" if lit.filled else "empty",
            forced_by=reasons.get(lit, ""),
        )
    for a, b, data in graph.edges(data=True):
        out.add_edge(a.name(), b.name(), line=puzzle.line_name(data["line"]))
    return out


def write_graph(
    graph: nx.DiGraph,
    puzzle: Puzzle,
    path: str | Path,
    forced: list[ForcedLiteral] | None = None,
) -> str:
    """Write ``graph`` to ``path``; the format follows the suffix (``.graphml``, ``.gexf``,
    ``.dot``/``.gv``).

    Returns
    -------
    str
        The format written.

    Raises
    ------
    FormatError
        Unknown suffix, or DOT requested without pydot installed.
    """
    fmt = graph_format(path)
    write_graph_file(export_graph(graph, puzzle, forced), Path(path), fmt)
    return fmt


def graph_format(path: str | Path) -> str:
    """The graph format named by ``path``'s suffix (``graphml``, ``gexf`` or ``dot``).

    Raises
    ------
    FormatError
        Unknown suffix.
    """
    from nonosat.errors import FormatError

    path = Path(path)
    fmt = GRAPH_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise FormatError(str(path), None, f"unknown graph format {path.suffix!r}; use "
                          f"{', '.join(sorted(GRAPH_FORMATS))}")
    return fmt


def write_graph_file(plain: nx.DiGraph, path: Path, fmt: str) -> None:
    """Write the networkx graph ``plain`` (plain node names and attributes) to ``path`` as
    ``fmt`` (:func:`graph_format`).

    Raises
    ------
    FormatError
        DOT requested without pydot installed.
    """
    from nonosat.errors import FormatError

    if fmt == "graphml":
        nx.write_graphml(plain, path)
    elif fmt == "gexf":
        nx.write_gexf(plain, path)
    else:
        try:
            from networkx.drawing.nx_pydot import write_dot

            write_dot(plain, path)
        except ImportError:
            raise FormatError(str(path), None, "DOT export needs pydot (pip install pydot)") from None


def read_graph(path: str | Path) -> nx.DiGraph:
    """Read a graph written by :func:`write_graph` back into networkx, with :class:`Literal`
    nodes and integer ``line``-free edges (the edge attribute ``line`` keeps its text).

    Raises
    ------
    FormatError
        Unknown suffix or a file networkx cannot parse.
    """
    from nonosat.errors import FormatError

    path = Path(path)
    fmt = GRAPH_FORMATS.get(path.suffix.lower())
    try:
        if fmt == "graphml":
            plain = nx.read_graphml(path)
        elif fmt == "gexf":
            plain = nx.read_gexf(path)
        elif fmt == "dot":
            from networkx.drawing.nx_pydot import read_dot

            plain = nx.DiGraph(read_dot(path))
        else:
            raise FormatError(str(path), None, f"unknown graph format {path.suffix!r}")
    except (ImportError, nx.NetworkXError, ValueError, KeyError) as exc:
        raise FormatError(str(path), None, f"cannot read graph: {exc}") from None
    out = nx.DiGraph()
    names = {}
    for node, data in plain.nodes(data=True):
        lit = Literal(int(data["row"]) - 1, int(data["col"]) - 1, data["value"] == "filled")
        names[node] = lit
        out.add_node(lit, forced_by=data.get("forced_by", "") or "")
    for a, b, data in plain.edges(data=True):
        out.add_edge(names[a], names[b], line=data.get("line"))
    return out


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
