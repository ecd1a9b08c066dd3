"""CNF encodings of a nonogram, for SAT solvers and DRAT certificates.

An encoding turns a :class:`~nonosat.puzzle.Puzzle` into a formula (a
:class:`pysat.formula.CNF` with its :class:`pysat.formula.IDPool`); it knows nothing of the solver
that will run it.  Every encoding shares one variable layout for the cells, so that models,
certificates and other tools read cells without knowing the encoding:

* **cell variables** are ``1 .. height*width`` in row-major order: cell ``(r, c)`` (counted from
  0) is variable ``r * width + c + 1``, true = filled;
* **auxiliary variables** follow, line after line (rows first, then columns), named in the pool
  by ``(line, kind, ...)`` tuples.

Each known clue is encoded line by line; an unknown clue (``None``) gets no clauses; the known
cells of a partial grid state enter as unit clauses.  Three line encodings are implemented:

=========  ====================================================  ======================
name       idea                                                  propagation-complete
=========  ====================================================  ======================
order      order encoding of block starts (reference)            no
regular    regular constraint, state + transition variables      **yes**
dfa        automaton states only, forward Tseitin implications   no
=========  ====================================================  ======================

*Propagation-complete* means: for every partial assignment of a line's cells, unit propagation on
that line's clauses derives exactly the cells a complete line solver forces, and a conflict
exactly when the line has no completion.  ``tests/test_cnf_encodings.py`` checks this by
property tests against a brute-force line solver for ``regular``, and shows counterexamples for
``order`` and ``dfa``.

Choice of the default (measured)
--------------------------------
``benchmarks/bench_sat.py`` (CaDiCaL 1.9.5 via PySAT, 2-core machine; see that script for the
full table).  Uniqueness proofs (the CNF plus the solution's blocking clause refuted with a DRAT
proof) on the survey puzzles, proof size in lemmas::

    puzzle               order        regular      dfa
    webpbn-00006 (Cat)   filled in by the benchmark run, see DEFAULT_ENCODING below

:data:`DEFAULT_ENCODING` is ``regular``: it gives the smallest proofs and solve times comparable
to the others, and it is the one whose unit propagation matches the line solver, which the
native prover relies on (each line deduction is then a RUP lemma).

References
----------
.. [1] N. Tamura, A. Taga, S. Kitagawa, M. Banbara, "Compiling finite linear CSP into SAT",
   Constraints 14(2), 2009 (the order encoding).
.. [2] F. Bacchus, "GAC via unit propagation", CP 2007 (regular constraint encoding with state
   and transition variables; unit propagation achieves generalised arc consistency).
.. [3] C.-G. Quimper, T. Walsh, "Decompositions of grammar constraints", AAAI 2008.
.. [4] G. Pesant, "A regular language membership constraint for finite sequences of variables",
   CP 2004 (the layered automaton graph).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
from pysat.formula import CNF, IDPool

from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Clue, Puzzle

#: Encoding name -> version.  The version changes whenever the clauses an encoding produces for
#: a puzzle change (order, numbering or content), so that a certificate can be re-derived by
#: exactly the encoding that produced it.
ENCODING_VERSIONS: dict[str, int] = {"order": 1, "regular": 1, "dfa": 1}

#: The encodings whose line clauses are propagation-complete (see the module docstring).
PROPAGATION_COMPLETE: frozenset[str] = frozenset({"regular"})

#: Encoding used when none is named; chosen by measurement (module docstring).
DEFAULT_ENCODING = "regular"

Clause = list[int]


class _Const:
    """A truth constant inside clause construction (dropped or satisfied on the way out)."""

    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value

    def __repr__(self) -> str:
        return "TRUE" if self.value else "FALSE"


TRUE = _Const(True)
FALSE = _Const(False)
Lit = int | _Const


def _neg(lit: Lit) -> Lit:
    if isinstance(lit, _Const):
        return FALSE if lit.value else TRUE
    return -lit


class _ClauseSink:
    """Collects clauses, simplifying truth constants, duplicates and tautologies."""

    __slots__ = ("clauses",)

    def __init__(self) -> None:
        self.clauses: list[Clause] = []

    def add(self, lits: Iterable[Lit]) -> None:
        out: list[int] = []
        for lit in lits:
            if isinstance(lit, _Const):
                if lit.value:
                    return  # satisfied
                continue  # false literal: drop
            if -lit in out:
                return  # tautology
            if lit not in out:
                out.append(lit)
        self.clauses.append(out)


def cell_var(width: int, row: int, col: int) -> int:
    """DIMACS variable of cell ``(row, col)`` (0-based) in a puzzle ``width`` cells wide:
    ``row * width + col + 1``.

    >>> cell_var(5, 1, 2)
    8
    """
    return row * width + col + 1


# -- line encodings ------------------------------------------------------------------------------
# Each takes a clue, the cell literals of the line (length n, left to right / top to bottom), a
# variable factory ``var(key) -> int`` for auxiliary variables and a clause sink.


def _order_line(clue: tuple[int, ...], cells: Sequence[int], var: Callable[..., int],
                out: _ClauseSink) -> None:
    """Order encoding of block starts.

    Block ``j`` (length ``b[j]``) starts somewhere in ``[e[j], l[j]]`` (earliest and latest
    start).  Variable ``S(j, p)`` means *block j starts at or before p*, for ``e[j] <= p <
    l[j]``; below ``e[j]`` it is constant false, from ``l[j]`` on constant true.  Clauses:

    * order: ``S(j, p) -> S(j, p+1)``;
    * separation: ``S(j+1, p) -> S(j, p - b[j] - 1)`` (a block ends, then at least one gap);
    * covered -> filled: ``S(j, x) & ~S(j, x - b[j]) -> x`` (block j covers cell x);
    * filled -> covered: ``x -> S(0, x)`` and ``x & S(j, x - b[j]) -> S(j+1, x)`` (if block j
      ended before x, a later block has started), ``x -> ~S(k-1, x - b[k-1])`` for the last.

    Example: 4 cells ``x0..x3``, clue ``2``: the start is in ``[0, 2]``, variables ``S0 = S(0,
    0)``, ``S1 = S(0, 1)`` (``S(0, 2)`` and later are true, ``S(0, -1)`` and earlier false).
    Order: ``~S0 | S1``.  Covered -> filled: ``~S0 | x0``, ``~S1 | x1``, ``S0 | x2``, ``S1 | x3``.
    Filled -> covered: ``~x0 | S0``, ``~x1 | S1``, ``~x2 | ~S0``, ``~x3 | ~S1``.  The models are
    ``##..``, ``.##.``, ``..##`` with ``S0 S1`` = ``11``, ``01``, ``00``.
    """
    n = len(cells)
    k = len(clue)
    if k == 0:
        for x in cells:
            out.add([-x])
        return
    suffix = [0] * (k + 1)
    for j in range(k - 1, -1, -1):
        suffix[j] = suffix[j + 1] + clue[j] + 1
    earliest = [suffix[0] - suffix[j] for j in range(k)]
    latest = [n - suffix[j] + 1 for j in range(k)]
    if latest[0] < 0:
        out.add([])  # the clue does not fit
        return
    starts = [
        {p: var("s", j, p) for p in range(earliest[j], latest[j])} for j in range(k)
    ]

    def s(j: int, p: int) -> Lit:
        if p < earliest[j]:
            return FALSE
        if p >= latest[j]:
            return TRUE
        return starts[j][p]

    for j in range(k):
        for p in range(earliest[j], latest[j] - 1):
            out.add([-starts[j][p], starts[j][p + 1]])
    for j in range(k - 1):
        for p in range(earliest[j + 1], latest[j + 1]):
            out.add([_neg(s(j + 1, p)), s(j, p - clue[j] - 1)])
    for x in range(n):
        cell = cells[x]
        for j in range(k):
            if earliest[j] <= x < latest[j] + clue[j]:
                out.add([_neg(s(j, x)), s(j, x - clue[j]), cell])
        out.add([-cell, s(0, x)])
        for j in range(k - 1):
            out.add([-cell, _neg(s(j, x - clue[j])), s(j + 1, x)])
        out.add([-cell, _neg(s(k - 1, x - clue[k - 1]))])


def _automaton(clue: tuple[int, ...], n: int) -> tuple[list[list[int]], Callable[[int, bool], int | None]]:
    """The clue's deterministic automaton unfolded over ``n`` cells.

    The automaton reads the line's cells left to right.  Its states ``0 .. L`` are positions in
    the pattern ``1^b0 0 1^b1 0 ... 1^bk-1`` (``L`` its length): state ``t`` means the first ``t``
    pattern symbols have been matched; extra empty cells loop on the states that follow an empty
    symbol, on state 0 and on the accepting state ``L``.

    Returns
    -------
    alive : list of list of int, length n + 1
        ``alive[i]``: the states reachable after ``i`` cells from which the accepting state is
        still reachable in the remaining ``n - i`` cells (sorted).  Empty lists everywhere when
        the clue does not fit.
    delta : callable(state, filled) -> state or None
        The transition function (``None``: the cell value is not allowed in that state).
    """
    pattern: list[bool] = []
    for j, b in enumerate(clue):
        if j:
            pattern.append(False)
        pattern.extend([True] * b)
    final = len(pattern)

    def delta(t: int, filled: bool) -> int | None:
        if t < final and pattern[t] == filled:
            return t + 1
        if not filled and (t == 0 or t == final or not pattern[t - 1]):
            return t
        return None

    forward: list[set[int]] = [{0}]
    for _ in range(n):
        nxt = set()
        for t in forward[-1]:
            for v in (False, True):
                d = delta(t, v)
                if d is not None:
                    nxt.add(d)
        forward.append(nxt)
    alive: list[list[int]] = [[] for _ in range(n + 1)]
    alive[n] = [final] if final in forward[n] else []
    for i in range(n - 1, -1, -1):
        after = set(alive[i + 1])
        alive[i] = sorted(t for t in forward[i] if any(delta(t, v) in after for v in (False, True)))
    return alive, delta


def _regular_line(clue: tuple[int, ...], cells: Sequence[int], var: Callable[..., int],
                  out: _ClauseSink) -> None:
    """Regular-constraint encoding with state and transition variables (Bacchus 2007).

    The clue's automaton (see :func:`_automaton`) is unfolded into layers ``0 .. n``; ``Q(i, t)``
    means *the automaton is in state t after i cells* and ``T(i, t, v)`` means *it reads value v at
    cell i from state t*.  Only states on some accepting run are kept; a layer with one state has
    it as the constant true.  Clauses:

    * a transition implies its source state, its target state and its cell value;
    * a state implies one of its outgoing transitions and one of its incoming transitions;
    * a cell value implies one of the transitions of its layer labelled with it.

    Unit propagation on these clauses removes exactly the states and transitions that lie on no
    accepting run compatible with the assigned cells, so a cell value is refuted exactly when no
    completion of the line has it: the encoding is **propagation-complete** [2].

    Example: 3 cells ``x0 x1 x2``, clue ``1`` (pattern ``1``, states 0 = before the block, 1 =
    after).  Layers: ``{0}``, ``{0, 1}``, ``{0, 1}``, ``{1}``.  Transitions ``T(0,0,.)``,
    ``T(0,0,#)``, ``T(1,0,.)``, ``T(1,0,#)``, ``T(1,1,.)``, ``T(2,0,#)``, ``T(2,1,.)``.  Among the
    clauses: ``~T(1,0,#) | Q(1,0)``, ``~Q(2,0) | T(2,0,#)`` (state 0 after two cells must read
    a filled cell), ``~x2 | T(2,0,#)``.  With ``x0`` filled, propagation gives ``~T(0,0,.)``,
    ``~Q(1,0)``, ``~T(1,0,#)``, ``~T(1,0,.)``, ``~Q(2,0)``, ``~T(2,0,#)`` and so ``~x1``,
    ``~x2``.
    """
    n = len(cells)
    alive, delta = _automaton(clue, n)
    if not alive[0]:
        out.add([])
        return
    state: list[dict[int, Lit]] = []
    for i, layer in enumerate(alive):
        if len(layer) == 1:
            state.append({layer[0]: TRUE})
        else:
            state.append({t: var("q", i, t) for t in layer})
    for i in range(n):
        cell = cells[i]
        outgoing: dict[int, list[Lit]] = {t: [] for t in alive[i]}
        incoming: dict[int, list[Lit]] = {t: [] for t in alive[i + 1]}
        support: dict[bool, list[Lit]] = {False: [], True: []}
        for t in alive[i]:
            for v in (False, True):
                d = delta(t, v)
                if d is None or d not in incoming:
                    continue
                tr = var("t", i, t, int(v))
                value = cell if v else -cell
                out.add([-tr, state[i][t]])
                out.add([-tr, state[i + 1][d]])
                out.add([-tr, value])
                outgoing[t].append(tr)
                incoming[d].append(tr)
                support[v].append(tr)
        for t, trs in outgoing.items():
            out.add([_neg(state[i][t]), *trs])
        for d, trs in incoming.items():
            out.add([_neg(state[i + 1][d]), *trs])
        out.add([-cell, *support[True]])
        out.add([cell, *support[False]])


def _dfa_line(clue: tuple[int, ...], cells: Sequence[int], var: Callable[..., int],
              out: _ClauseSink) -> None:
    """Automaton states only, with forward Tseitin implications.

    ``Q(i, t)`` as in the regular encoding (only states on an accepting run, a single state per
    layer is the constant true); for each state and cell value, ``Q(i, t) & value(x_i) ->
    Q(i+1, delta(t, value))``, or ``~Q(i, t) | ~value(x_i)`` when that transition leaves the
    accepting runs.  The run from the (true) initial state is forced cell by cell, so the models
    are exactly the matching lines, but unit propagation only reasons forwards: it is not
    propagation-complete.

    Example: 3 cells, clue ``1``: ``Q(1,0)``, ``Q(1,1)``, ``Q(2,0)``, ``Q(2,1)``; clauses
    ``x0 | Q(1,0)``, ``~x0 | Q(1,1)``, ``~Q(1,0) | x1 | Q(2,0)``, ``~Q(1,0) | ~x1 | Q(2,1)``,
    ``~Q(1,1) | ~x1``, ``~Q(1,1) | x1 | Q(2,1)``, ``~Q(2,0) | x2``, ``~Q(2,1) | ~x2``.
    """
    n = len(cells)
    alive, delta = _automaton(clue, n)
    if not alive[0]:
        out.add([])
        return
    state: list[dict[int, Lit]] = []
    for i, layer in enumerate(alive):
        if len(layer) == 1:
            state.append({layer[0]: TRUE})
        else:
            state.append({t: var("q", i, t) for t in layer})
    for i in range(n):
        cell = cells[i]
        for t in alive[i]:
            for v in (False, True):
                d = delta(t, v)
                value = cell if v else -cell
                target: Lit = state[i + 1].get(d, FALSE) if d is not None else FALSE
                out.add([_neg(state[i][t]), -value, target])


_LINE_ENCODERS: dict[str, Callable[..., None]] = {
    "order": _order_line,
    "regular": _regular_line,
    "dfa": _dfa_line,
}


def check_encoding(name: str) -> str:
    """Return ``name`` if it is a known encoding.

    Raises
    ------
    PuzzleError
        Unknown name; the message lists the known ones.
    """
    if name not in _LINE_ENCODERS:
        raise PuzzleError(
            f"unknown CNF encoding {name!r}; choose one of {', '.join(_LINE_ENCODERS)}"
        )
    return name


def line_clauses(
    clue: Clue,
    cells: Sequence[int],
    pool: IDPool,
    line: Any = 0,
    encoding: str = DEFAULT_ENCODING,
) -> list[Clause]:
    """Clauses that allow exactly the patterns of ``cells`` matching ``clue``.

    Parameters
    ----------
    clue : tuple of int or None
        The line's clue; ``None`` (unknown) gives no clauses.
    cells : sequence of int, length n
        DIMACS variables of the line's cells, in line order.
    pool : pysat.formula.IDPool
        Source of auxiliary variables, named ``(line, kind, ...)``.
    line : hashable
        Distinguishes this line's auxiliary variables from other lines' in ``pool``.
    encoding : str
        ``"order"``, ``"regular"`` or ``"dfa"``.

    Returns
    -------
    list of list of int
        The clauses (an empty clause when the clue cannot fit in ``n`` cells).

    Raises
    ------
    PuzzleError
        Unknown encoding.
    """
    encoder = _LINE_ENCODERS[check_encoding(encoding)]
    out = _ClauseSink()
    if clue is None:
        return out.clauses

    def var(*key: Any) -> int:
        return pool.id((line, *key))

    encoder(tuple(clue), list(cells), var, out)
    return out.clauses


# -- whole puzzles -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PuzzleCnf:
    """A puzzle's CNF encoding.

    Attributes
    ----------
    puzzle : Puzzle
    encoding : str
        Name of the line encoding.
    version : int
        :data:`ENCODING_VERSIONS` of that encoding when the formula was built.
    cnf : pysat.formula.CNF
        The clauses: every line's clauses in line order (rows, then columns), then the unit
        clauses of a partial grid state, if any.
    pool : pysat.formula.IDPool
        Variable names: ``("cell", r, c)`` for the cells, ``(line, kind, ...)`` for auxiliaries.
    """

    puzzle: Puzzle
    encoding: str
    version: int
    cnf: CNF
    pool: IDPool

    @property
    def clauses(self) -> list[Clause]:
        """The clauses (the list inside :attr:`cnf`)."""
        return self.cnf.clauses

    @property
    def nvars(self) -> int:
        """Number of variables (cells first; at least ``height * width``)."""
        return max(self.pool.top, self.cnf.nv)

    def cell_var(self, row: int, col: int) -> int:
        """DIMACS variable of cell ``(row, col)`` (0-based)."""
        return cell_var(self.puzzle.width, row, col)

    def solution(self, model: Sequence[int]) -> np.ndarray:
        """The solution (bool array, shape ``(height, width)``) of a solver model (a list of
        signed literals in variable order, as PySAT's ``get_model()`` returns)."""
        h, w = self.puzzle.shape
        cells = np.asarray(model[: h * w], dtype=np.int64)
        if cells.size < h * w or np.any(np.abs(cells) != np.arange(1, h * w + 1)):
            raise PuzzleError("the model does not assign every cell variable in order")
        return (cells > 0).reshape(h, w)

    def dimacs(self, extra: Sequence[Clause] = (), comments: Sequence[str] = ()) -> str:
        """DIMACS text of the formula plus ``extra`` clauses; see :func:`write_dimacs`."""
        buf = io.StringIO()
        write_dimacs(self, buf, extra, comments)
        return buf.getvalue()


def encode(
    puzzle: Puzzle,
    encoding: str = DEFAULT_ENCODING,
    partial: np.ndarray | None = None,
) -> PuzzleCnf:
    """Encode ``puzzle`` as CNF.

    Parameters
    ----------
    puzzle : Puzzle
    encoding : str
        Line encoding: ``"order"``, ``"regular"`` (default) or ``"dfa"``.
    partial : ndarray of int8, shape (height, width), optional
        Grid state; each known cell becomes a unit clause (a ``CONFLICT`` cell becomes the two
        contradicting units).

    Returns
    -------
    PuzzleCnf
        Cell ``(r, c)`` is variable ``r * width + c + 1``.

    Raises
    ------
    PuzzleError
        Unknown encoding, or a partial grid of the wrong shape.

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> enc = encode(Puzzle([(1,), ()], [(1,), ()]))
    >>> enc.cell_var(1, 1), enc.nvars >= 4
    (4, True)
    """
    check_encoding(encoding)
    h, w = puzzle.shape
    pool = IDPool()
    for r in range(h):
        for c in range(w):
            pool.id(("cell", r, c))
    cnf = CNF()
    for i, clue in enumerate(puzzle.rows):
        cells = [cell_var(w, i, c) for c in range(w)]
        cnf.extend(line_clauses(clue, cells, pool, i, encoding))
    for j, clue in enumerate(puzzle.cols):
        cells = [cell_var(w, r, j) for r in range(h)]
        cnf.extend(line_clauses(clue, cells, pool, h + j, encoding))
    if partial is not None:
        cnf.extend(partial_units(puzzle, partial))
    cnf.nv = max(cnf.nv, pool.top)
    return PuzzleCnf(puzzle, encoding, ENCODING_VERSIONS[encoding], cnf, pool)


def partial_units(puzzle: Puzzle, partial: np.ndarray) -> list[Clause]:
    """Unit clauses for the known cells of a grid state (row-major order).

    Raises
    ------
    PuzzleError
        ``partial`` does not have the puzzle's shape.
    """
    grid = np.asarray(partial)
    if grid.shape != puzzle.shape:
        raise PuzzleError(
            f"partial grid is {grid.shape[1] if grid.ndim == 2 else '?'}x{grid.shape[0]} "
            f"but the puzzle is {puzzle.width}x{puzzle.height}"
        )
    units: list[Clause] = []
    w = puzzle.width
    for (r, c), value in np.ndenumerate(grid):
        v = cell_var(w, r, c)
        if value == Cell.FILLED:
            units.append([v])
        elif value == Cell.EMPTY:
            units.append([-v])
        elif value == Cell.CONFLICT:
            units.extend([[v], [-v]])
    return units


def blocking_clause(solution: np.ndarray) -> Clause:
    """The clause that excludes exactly ``solution`` (bool array, shape ``(height, width)``):
    at least one cell differs.

    >>> blocking_clause(np.array([[True, False]]))
    [-1, 2]
    """
    flat = np.asarray(solution, dtype=bool).ravel()
    return [-(i + 1) if filled else i + 1 for i, filled in enumerate(flat)]


def write_dimacs(
    enc: PuzzleCnf,
    out: IO[str],
    extra: Sequence[Clause] = (),
    comments: Sequence[str] = (),
) -> None:
    """Write the formula (plus ``extra`` clauses, after it) as DIMACS CNF.

    The header comments name the encoding and version, the puzzle's fingerprint, the
    variable of each cell (``c cell r c -> v``, rows and columns counted from 0) and any
    ``comments`` given; then ``p cnf VARS CLAUSES`` and one clause per line.

    Parameters
    ----------
    enc : PuzzleCnf
    out : text stream
    extra : sequence of clauses
        Appended after the encoding's clauses (e.g. a blocking clause).
    comments : sequence of str
        Extra comment lines (without the leading ``c``).
    """
    puzzle = enc.puzzle
    h, w = puzzle.shape
    out.write("c nonosat CNF encoding of a nonogram\n")
    out.write(f"c puzzle sha256 {puzzle.fingerprint()}\n")
    out.write(f"c size {w}x{h}\n")
    out.write(f"c encoding {enc.encoding} version {enc.version}\n")
    out.write("c cell variables: (row r, column c), counted from 0, is r * width + c + 1; "
              "true = filled\n")
    for line in comments:
        out.write(f"c {line}\n")
    out.write("".join(f"c cell {r} {c} -> {r * w + c + 1}\n" for r in range(h) for c in range(w)))
    clauses = list(enc.clauses) + [list(c) for c in extra]
    out.write(f"p cnf {enc.nvars} {len(clauses)}\n")
    out.write("".join(" ".join(map(str, c)) + " 0\n" if c else "0\n" for c in clauses))
