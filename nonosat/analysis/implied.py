"""The implication graph's figures without building a networkx graph: compiled and array-based.

:mod:`nonosat.native.implications` builds the single-line implication graph as a
``networkx.DiGraph`` of :class:`~nonosat.native.implications.Literal` nodes and derives from it
the forced literals (:func:`~nonosat.native.implications.forced_literals`), the tied cells
(:func:`~nonosat.native.implications.linked_cells`) and the component figures
(:func:`nonosat.analysis.structure.scc_summary`).  That is the clear reference, and the graph is
what ``analyse --graph`` exports; but on a survey-size puzzle building the graph and its
condensation in Python takes seconds per implication round (webpbn #803, 4,400 literals and
78,000 edges: 1.6 s to build, 1.4 s to condense), and the staged analysis builds one per round.

Here the same edges (the same compiled
:func:`~nonosat.native.implications.line_implications` per line) go into integer arrays: literal
``2 * k + filled`` for the ``k``-th open cell in reading order (the bit order of
``forced_literals``), strongly connected components by Tarjan's algorithm (iterative, compiled;
it numbers components sinks first, a reverse topological order of the condensation), then the
reach set of each component as a bit set (``uint64`` words): its own literals OR the reach sets
of its successors.  The rules read the bit sets exactly as ``forced_literals`` does (line
conflicts, then contradictions in literal order with the lowest witness cell, then tautologies,
other cells before a cell's own literals), so :func:`forced_literals_fast` returns the same list;
``tests/test_analysis_implied.py`` checks it, and the tied cells and figures, against the networkx
reference on random and corpus puzzles.

Unlimited depth only (a ``depth`` limit goes through the reference).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.implications import (
    ForcedLiteral,
    LinkedCells,
    Literal,
    line_implications,
    open_lines,
)
from nonosat.puzzle import Cell, Puzzle, unknown_grid


@dataclass
class ImplicationArrays:
    """The single-line implication graph of a grid state as arrays.

    Attributes
    ----------
    cells : ndarray of int64, shape (m,)
        Flat indices (``row * width + col``) of the open cells, ascending; node ``2 * k +
        filled`` is cell ``cells[k]`` with that value.
    src, dst : ndarray of int64, shape (e,)
        Edges ``src -> dst`` (node ids), as the lines list them (rows first).
    conflicts : list of (int, int)
        ``(node, line)``: assuming ``node`` contradicts ``line`` outright.
    width : int
    """

    cells: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    conflicts: list[tuple[int, int]]
    width: int

    @property
    def nodes(self) -> int:
        """Number of nodes: two literals per open cell."""
        return 2 * int(self.cells.shape[0])

    def literal(self, node: int) -> Literal:
        """The :class:`Literal` of a node id."""
        r, c = divmod(int(self.cells[node >> 1]), self.width)
        return Literal(r, c, bool(node & 1))


def implication_arrays(puzzle: Puzzle, grid: np.ndarray | None = None,
                       cache: dict | None = None) -> ImplicationArrays:
    """The edges of :func:`nonosat.native.implications.implication_graph` as arrays (module
    docstring); same arguments.

    ``cache`` (a dict the caller keeps between calls on the same puzzle) remembers each line's
    implications by line and contents: the staged analysis rebuilds the graph after every round,
    and most lines have not changed since the last one."""
    state = unknown_grid(puzzle) if grid is None else np.asarray(grid, dtype=np.int8)
    h, w = puzzle.shape
    flat = state.reshape(-1)
    cells = np.nonzero(flat == Cell.UNKNOWN)[0].astype(np.int64)
    rank = np.full(h * w, -1, dtype=np.int64)
    rank[cells] = np.arange(cells.shape[0])
    longest = max(h, w)
    src = np.empty(2 * longest * longest, dtype=np.int32)
    dst = np.empty_like(src)
    val = np.empty(src.shape[0], dtype=np.int8)
    srcs, dsts = [], []
    conflicts: list[tuple[int, int]] = []
    for line, clue, values, base, step in open_lines(puzzle, state):
        key = (line, values.tobytes())
        found = None if cache is None else cache.get(key)
        if found is None:
            count = line_implications(clue, values, src, dst, val)
            found = (src[:count].astype(np.int64), dst[:count].astype(np.int64),
                     val[:count] == Cell.FILLED)
            if cache is not None:
                cache[key] = found
        s, d, filled = found
        ok = d >= 0
        src_node = 2 * rank[base + (s >> 1) * step] + (s & 1)
        dst_node = 2 * rank[base + np.where(ok, d, 0) * step] + filled
        for node in src_node[~ok].tolist():
            conflicts.append((int(node), line))
        srcs.append(src_node[ok])
        dsts.append(dst_node[ok])
    empty = np.zeros(0, dtype=np.int64)
    return ImplicationArrays(cells, np.concatenate(srcs) if srcs else empty,
                             np.concatenate(dsts) if dsts else empty, conflicts, w)


@njit(cache=True, nogil=True)
def _tarjan(n, indptr, succ):  # pragma: no cover - compiled
    """Strongly connected components of the graph ``(indptr, succ)`` (CSR) over ``n`` nodes:
    ``comp[node]``, numbered in the order Tarjan's algorithm completes them (every component
    after all components it reaches), and the count."""
    index = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    on_stack = np.zeros(n, np.bool_)
    comp = np.full(n, -1, np.int64)
    stack = np.empty(n, np.int64)
    sp = 0
    call = np.empty(n, np.int64)  # DFS path: node
    edge = np.empty(n, np.int64)  # next edge to look at, per path entry
    counter = 0
    ncomp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        depth = 0
        call[0] = root
        edge[0] = indptr[root]
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        on_stack[root] = True
        while depth >= 0:
            v = call[depth]
            if edge[depth] < indptr[v + 1]:
                u = succ[edge[depth]]
                edge[depth] += 1
                if index[u] < 0:
                    index[u] = counter
                    low[u] = counter
                    counter += 1
                    stack[sp] = u
                    sp += 1
                    on_stack[u] = True
                    depth += 1
                    call[depth] = u
                    edge[depth] = indptr[u]
                elif on_stack[u] and index[u] < low[v]:
                    low[v] = index[u]
                continue
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    x = stack[sp]
                    on_stack[x] = False
                    comp[x] = ncomp
                    if x == v:
                        break
                ncomp += 1
            depth -= 1
            if depth >= 0:
                parent = call[depth]
                if low[v] < low[parent]:
                    low[parent] = low[v]
    return comp, ncomp


@njit(cache=True, nogil=True)
def _reach(n, ncomp, comp, cindptr, csucc):  # pragma: no cover - compiled
    """Bit sets (``uint64`` words over node ids) of the nodes each component reaches, itself
    included; components in completion order, so successors come first."""
    words = (n + 63) // 64
    reach = np.zeros((ncomp, words), np.uint64)
    for v in range(n):
        reach[comp[v], v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    for k in range(ncomp):
        for e in range(cindptr[k], cindptr[k + 1]):
            t = csucc[e]
            if t != k:
                for i in range(words):
                    reach[k, i] |= reach[t, i]
    return reach


def _csr(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    return np.cumsum(indptr), dst[order].astype(np.int64)


def components(arrays: ImplicationArrays | PaletteArrays) -> tuple[np.ndarray, int]:
    """``(comp, count)``: each node's strongly connected component (:func:`_tarjan`)."""
    n = arrays.nodes
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    indptr, succ = _csr(n, arrays.src, arrays.dst)
    return _tarjan(n, indptr, succ)


def reach_sets(arrays: ImplicationArrays | PaletteArrays, comp: np.ndarray,
               ncomp: int) -> np.ndarray:
    """``(ncomp, words)`` ``uint64`` bit sets of the nodes each component reaches."""
    n = arrays.nodes
    cs, cd = comp[arrays.src], comp[arrays.dst]
    keep = cs != cd
    cindptr, csucc = _csr(ncomp, cs[keep], cd[keep])
    return _reach(n, ncomp, comp, cindptr, csucc)


_EVENS = np.uint64(0x5555555555555555)


def _bit_list(words: np.ndarray) -> list[int]:
    """Set bits of a ``uint64`` word array, ascending."""
    bits = np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little")
    return np.nonzero(bits)[0].tolist()


def forced_literals_fast(
    arrays: ImplicationArrays, rules: tuple[str, ...] = ("contradiction", "tautology"),
    comp_count: tuple[np.ndarray, int] | None = None,
) -> list[ForcedLiteral]:
    """:func:`nonosat.native.implications.forced_literals` at unlimited depth, on the arrays
    (module docstring): the same literals, rules, premises and witnesses, in the same order.

    Raises
    ------
    ValueError
        An unknown rule.
    """
    n = arrays.nodes
    out: list[ForcedLiteral] = []
    seen: set[int] = set()
    lit = arrays.literal

    def add(node: int, rule: str, premise: int, witness: int | None = None) -> None:
        if node not in seen:
            seen.add(node)
            out.append(ForcedLiteral(lit(node), rule, lit(premise),
                                     None if witness is None else lit(witness)))

    for node, _line in arrays.conflicts:
        add(node ^ 1, "line", node)
    if n == 0:
        return out
    comp, ncomp = comp_count if comp_count is not None else components(arrays)
    reach = reach_sets(arrays, comp, ncomp)
    for rule in rules:
        if rule == "contradiction":  # per component: cells with both values reached
            both = reach & (reach >> np.uint64(1)) & _EVENS
            hit = both.any(axis=1)
            witness: dict[int, int] = {}
            for node in np.nonzero(hit[comp])[0].tolist():
                k = int(comp[node])
                if k not in witness:
                    witness[k] = _bit_list(both[k])[0]  # the even bit 2i: cell i
                add(node ^ 1, "contradiction", node, witness[k] | 1)
        elif rule == "tautology":
            common = reach[comp[1::2]] & reach[comp[0::2]]  # per cell: yes & no
            rows = np.nonzero(common.any(axis=1))[0].tolist()
            for k in rows:  # splits on another cell first
                for i in _bit_list(common[k]):
                    if i >> 1 != k:
                        add(i, "tautology", 2 * k + 1)
            for k in rows:  # then a cell "split on itself" (not z reaching z)
                for i in (2 * k, 2 * k + 1):
                    if int(common[k, i >> 6]) >> (i & 63) & 1:
                        add(i, "tautology", 2 * k + 1)
        else:
            raise ValueError(f"unknown implication rule {rule!r}; use contradiction, tautology")
    return out


def linked_cells_fast(arrays: ImplicationArrays,
                      comp_count: tuple[np.ndarray, int] | None = None) -> list[LinkedCells]:
    """:func:`nonosat.native.implications.linked_cells` on the arrays: the components with more
    than one cell, each with its mirror under negation once, largest first."""
    comp, ncomp = comp_count if comp_count is not None else components(arrays)
    if arrays.nodes == 0:
        return []
    members: dict[int, list[int]] = {}
    for node, k in enumerate(comp.tolist()):
        members.setdefault(k, []).append(node)
    groups = []
    done: set[int] = set()
    for k, nodes in members.items():
        cells = {v >> 1 for v in nodes}
        if len(cells) < 2 or len(cells) < len(nodes):  # one cell, or both values of a cell
            continue
        mirror = int(comp[nodes[0] ^ 1])  # a component only when it is the exact mirror
        if mirror in done and members[mirror] == sorted(v ^ 1 for v in nodes):
            continue
        done.add(k)
        ref = nodes[0] & 1  # nodes ascending: the smallest literal is the reference
        lits = [arrays.literal(v) for v in nodes]
        equal = [x.cell for v, x in zip(nodes, lits, strict=True) if v & 1 == ref]
        opposite = [x.cell for v, x in zip(nodes, lits, strict=True) if v & 1 != ref]
        groups.append(LinkedCells(equal, opposite))
    groups.sort(key=lambda g: (-(len(g.equal) + len(g.opposite)), g.equal[0]))
    return groups


def scc_summary_fast(arrays: ImplicationArrays | PaletteArrays,
                     comp_count: tuple[np.ndarray, int] | None = None) -> dict:
    """:func:`nonosat.analysis.structure.scc_summary` on the arrays (edges counted once)."""
    comp, ncomp = comp_count if comp_count is not None else components(arrays)
    n = arrays.nodes
    edges = int(np.unique(arrays.src * max(n, 1) + arrays.dst).shape[0]) if n else 0
    sizes = np.bincount(comp, minlength=ncomp) if n else np.zeros(0, dtype=np.int64)
    return {"nodes": n, "edges": edges, "components": int(ncomp),
            "nontrivial": int((sizes > 1).sum()), "largest": int(sizes.max()) if n else 0}


# -- colour: literals "cell takes colour c" -----------------------------------------------------
class ColourLiteral(tuple):
    """``(row, col, colour)``: cell ``(row, col)`` (0-based) takes colour ``colour`` (an index
    into the palette, 0 = background); a node of the colour implication graph
    (:func:`palette_arrays`, :func:`nonosat.analysis.structure.colour_graph`)."""

    __slots__ = ()

    def __new__(cls, row: int, col: int, colour: int) -> ColourLiteral:
        return super().__new__(cls, (row, col, colour))

    @property
    def cell(self) -> tuple[int, int]:
        """``(row, col)``, 0-based."""
        return (self[0], self[1])

    def name(self, puzzle: Puzzle) -> str:
        """Node name in exported graphs: ``"R3C5=red"`` (1-based, the colour's name)."""
        assert puzzle.palette is not None
        return f"R{self[0] + 1}C{self[1] + 1}={puzzle.palette.colours[self[2]].name}"


def _is_open(grid: np.ndarray) -> np.ndarray:
    """Cells of a colour state (int32 masks) with several colours left (bool, same shape)."""
    g = np.asarray(grid)
    return (g & (g - 1)) != 0


@dataclass
class PaletteArrays:
    """The single-line implication graph of a colour grid state as arrays (the colour form of
    :class:`ImplicationArrays`; on a two-colour puzzle the same graph).

    Attributes
    ----------
    cell, colour : ndarray of int64, shape (n,)
        Node ``i`` is the literal "cell ``cell[i]`` (flat index) takes colour ``colour[i]``";
        nodes in reading order of the open cells, colours ascending within a cell.
    src, dst, line : ndarray of int64, shape (e,)
        Edges ``src -> dst`` and the line that gives each (rows first), as the lines list them.
    conflicts : list of (int, int)
        ``(node, line)``: assuming ``node`` contradicts ``line`` outright.
    width : int
    """

    cell: np.ndarray
    colour: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    line: np.ndarray
    conflicts: list[tuple[int, int]]
    width: int

    @property
    def nodes(self) -> int:
        """Number of nodes: one per colour left in each open cell."""
        return int(self.cell.shape[0])

    def literal(self, node: int) -> ColourLiteral:
        """The :class:`ColourLiteral` of a node id."""
        r, c = divmod(int(self.cell[node]), self.width)
        return ColourLiteral(r, c, int(self.colour[node]))


def palette_arrays(puzzle: Puzzle, grid: np.ndarray | None = None) -> PaletteArrays:
    """The single-line implication graph of a colour puzzle in the state ``grid`` (colour masks;
    every colour everywhere when omitted), as :func:`implication_arrays` builds it for
    black-and-white, with literals "cell takes colour c".

    For every cell with several colours left and each of them, the colour is assumed and the
    colour line solver (:func:`nonosat.native.colour.solve_colour_line`) runs on that cell's row
    and on its column only: every other cell of the line left with one colour (it had several)
    gives an edge from the assumption to that cell's colour.  Each edge is a sound implication
    in that state.  Only positive literals are nodes (a colour a line merely excludes gives no
    edge), so on a two-colour puzzle this is the black-and-white graph (``filled`` = the colour,
    ``empty`` = the background).
    """
    from nonosat.native.colour import solve_colour_line

    full = (1 << puzzle.n_colours) - 1
    state = (np.full(puzzle.shape, full, dtype=np.int32) if grid is None
             else np.asarray(grid, dtype=np.int32))
    h, w = puzzle.shape
    flat = state.reshape(-1)
    node_of = np.full((h * w, puzzle.n_colours), -1, dtype=np.int64)
    cells: list[int] = []
    colours: list[int] = []
    for i in np.flatnonzero(_is_open(flat)).tolist():
        for k in range(puzzle.n_colours):
            if (int(flat[i]) >> k) & 1:
                node_of[i, k] = len(cells)
                cells.append(i)
                colours.append(k)
    line_colours = puzzle.line_colours
    srcs: list[int] = []
    dsts: list[int] = []
    lines: list[int] = []
    conflicts: list[tuple[int, int]] = []
    for line, clue in enumerate(puzzle.lines):
        if clue is None:
            continue
        values = state[line, :] if line < h else state[:, line - h]
        open_line = _is_open(values)
        if not open_line.any():
            continue
        base, step = (line * w, 1) if line < h else (line - h, w)
        for p in np.flatnonzero(open_line).tolist():
            v = int(values[p])
            for k in range(puzzle.n_colours):
                if not (v >> k) & 1:
                    continue
                src = int(node_of[base + p * step, k])
                trial = values.copy()
                trial[p] = 1 << k
                after = solve_colour_line(clue, line_colours[line] or (), trial,
                                          puzzle.n_colours)
                if after is None:
                    conflicts.append((src, line))
                    continue
                for q in np.flatnonzero(open_line & ~_is_open(after)).tolist():
                    if q != p:
                        srcs.append(src)
                        dsts.append(int(node_of[base + q * step, int(after[q]).bit_length() - 1]))
                        lines.append(line)
    return PaletteArrays(np.array(cells, dtype=np.int64), np.array(colours, dtype=np.int64),
                         np.array(srcs, dtype=np.int64), np.array(dsts, dtype=np.int64),
                         np.array(lines, dtype=np.int64), conflicts, w)


@dataclass(frozen=True)
class PaletteForced:
    """A literal the colour implication graph settles: ``refuted`` (the cell cannot take the
    colour) or forced (it takes it), by ``rule`` (``"line"``: assuming it contradicts a line;
    ``"contradiction"``: assuming it leads to two colours of one cell; ``"tautology"``: every
    colour of the ``premise``'s cell leads to it), with the assumption ``premise``."""

    literal: ColourLiteral
    rule: str
    premise: ColourLiteral
    refuted: bool


def palette_forced(
    arrays: PaletteArrays, rules: tuple[str, ...] = ("contradiction", "tautology"),
    comp_count: tuple[np.ndarray, int] | None = None,
) -> list[PaletteForced]:
    """What the colour implication graph settles at unlimited depth, by the rules of
    :func:`forced_literals_fast` read on literals "cell takes colour c": line conflicts first,
    then contradictions (a literal whose reach holds two colours of one cell is refuted), then
    tautologies (a literal every colour of some other cell reaches is forced).

    Raises
    ------
    ValueError
        An unknown rule.
    """
    n = arrays.nodes
    out: list[PaletteForced] = []
    seen: set[tuple[int, bool]] = set()
    lit = arrays.literal

    def add(node: int, rule: str, premise: int, refuted: bool) -> None:
        if (node, refuted) not in seen:
            seen.add((node, refuted))
            out.append(PaletteForced(lit(node), rule, lit(premise), refuted))

    for node, _line in arrays.conflicts:
        add(node, "line", node, True)
    if n == 0:
        return out
    comp, ncomp = comp_count if comp_count is not None else components(arrays)
    reach = reach_sets(arrays, comp, ncomp)
    for rule in rules:
        if rule == "contradiction":  # per component: two colours of one cell reached
            clash: dict[int, bool] = {}
            for node in range(n):
                k = int(comp[node])
                if k not in clash:
                    cells = arrays.cell[_bit_list(reach[k])]
                    clash[k] = np.unique(cells).shape[0] < cells.shape[0]
                if clash[k]:
                    add(node, "contradiction", node, True)
        elif rule == "tautology":  # every colour of a cell reaches a literal of another cell
            starts = np.flatnonzero(np.r_[True, arrays.cell[1:] != arrays.cell[:-1]])
            ends = np.r_[starts[1:], n]
            for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
                common = reach[comp[a]].copy()
                for node in range(a + 1, b):
                    common &= reach[comp[node]]
                for i in _bit_list(common):
                    if arrays.cell[i] != arrays.cell[a]:
                        add(i, "tautology", a, False)
        else:
            raise ValueError(f"unknown implication rule {rule!r}; use contradiction, tautology")
    return out


@dataclass(frozen=True)
class LinkedColours:
    """Cells tied by a strongly connected component of the colour implication graph: the
    ``literals`` ``((row, col), colour)`` hold together or not at all in every solution."""

    literals: list[tuple[tuple[int, int], int]]


def palette_linked(arrays: PaletteArrays,
                   comp_count: tuple[np.ndarray, int] | None = None) -> list[LinkedColours]:
    """The components of the colour implication graph over two cells or more (no cell twice),
    one per set of cells (on a two-colour puzzle a component and its mirror under negation
    are one group, as :func:`linked_cells_fast` reports them), largest first."""
    if arrays.nodes == 0:
        return []
    comp, _ncomp = comp_count if comp_count is not None else components(arrays)
    members: dict[int, list[int]] = {}
    for node, k in enumerate(comp.tolist()):
        members.setdefault(k, []).append(node)
    groups = []
    done: set[frozenset[int]] = set()
    for nodes in members.values():
        cells = [int(arrays.cell[v]) for v in nodes]
        key = frozenset(cells)
        if len(key) < 2 or len(key) < len(cells) or key in done:
            continue
        done.add(key)
        lits = [arrays.literal(v) for v in sorted(nodes)]
        groups.append(LinkedColours([(x.cell, x[2]) for x in lits]))
    groups.sort(key=lambda g: (-len(g.literals), g.literals[0]))
    return groups


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
