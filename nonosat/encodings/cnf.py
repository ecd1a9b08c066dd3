"""CNF encodings of a nonogram, for SAT solvers and DRAT certificates.

An encoding turns a :class:`~nonosat.puzzle.Puzzle` into a formula (:class:`PuzzleCnf`: DIMACS
clauses, also as a :class:`pysat.formula.CNF`, with an :class:`pysat.formula.IDPool` naming the
cells); it knows nothing of the solver that will run it.  Every encoding shares one variable
layout for the cells, so that models, certificates and other tools read cells without knowing
the encoding:

* **cell variables** are ``1 .. height*width`` in row-major order: cell ``(r, c)`` (counted from
  0) is variable ``r * width + c + 1``, true = filled;
* **auxiliary variables** follow, line after line (rows first, then columns);
  :attr:`PuzzleCnf.line_spans` gives each line's clauses and auxiliary variables.

Each known clue is encoded line by line; an unknown clue (``None``) gets no clauses; the known
cells of a partial grid state enter as unit clauses.  Three line encodings are implemented:

=========  ====================================================  ======================
name       idea                                                  propagation-complete
=========  ====================================================  ======================
order      order encoding of block starts (reference)            no
regular    regular constraint, state + transition variables      **yes**
dfa        automaton states only, forward Tseitin implications   no
=========  ====================================================  ======================

The ``order`` encoding of a whole puzzle is built by compiled code
(:mod:`nonosat.encodings.cnf_order`, numba kernels over numpy arrays): exactly the clauses of the
Python line encoder :func:`_order_line` below, which stays as the reference it is tested against
(``tests/test_cnf_order.py``).  On a 25x25 tournament puzzle (~11,000 clauses) that is about 0.2
ms of kernel and 1.5 ms to make the Python lists PySAT takes, against about 8 ms in Python
(``benchmarks/bench_cnf_build.py``).  ``regular`` and ``dfa`` are built in Python.

*Propagation-complete* means: for every partial assignment of a line's cells, unit propagation on
that line's clauses derives exactly the cells a complete line solver forces, and a conflict
exactly when the line has no completion.  ``tests/test_cnf_encodings.py`` checks this by
property tests against a brute-force line solver for ``regular``, and shows counterexamples for
``order`` and ``dfa``.

Choice of the default (measured)
--------------------------------
``benchmarks/bench_sat.py`` (CaDiCaL 1.9.5 via PySAT, on the shared 2-core machine under load, so
times are rough).  *certify* = encode, find the solution, refute the CNF plus its blocking
clause with a fresh solver logging DRAT; *lemmas* = proof lines that add a clause (``1`` = the
empty clause alone: unit propagation refutes the formula); *check* = dratify, in-process::

    survey puzzle     vars/clauses (order)  solve s  certify s  lemmas   check s
                                            o / r / d  o / r / d  o / r / d   o / r / d
    #6 Cat            1100/3068      .012/.075/.23  .016/.089/.77  1/1/14350  .06/.28/2.5
    #529 Swing        9920/33720     .18/.56/2.2    .34/.66/9.1    1/1/133608 .78/2.8/53
    #1611 Merka       24126/86255    .32/1.5/4.2    .89/3.1/18     24181/70159/344638
                                                                              3.5/11/129
    #6574 Forever     2731/8842      .034/.10/.54   .07/.20/1.3    976/2530/23420 .30/.88/4.6
    all 12 decided    total          1.2/4.5/77     2.4/7.7/54     34263/112115/878016
                                                                              7.8/28/343

(o = order, r = regular, d = dfa; Knotty and Faase exceed 60 s with every encoding.)  The
regular encoding has about 2.5 times the variables and 3 times the clauses of the order
encoding; on every puzzle here the order encoding is the fastest to solve, gives the smallest
proofs and the fastest checks, and unit propagation refutes the same five line-solvable
puzzles under both.  The dfa encoding needs real search (thousands of conflicts) and gives
proofs ten times larger.  On 60 random taai2011 puzzles (25x25; every one of them has several
solutions, so only the uniqueness check is timed) the total solve time was 19 s for order, 59 s
for regular and 213 s for dfa (median 0.10 / 0.26 / 1.96 s, maximum 4.0 / 13 / 25 s).

:data:`DEFAULT_ENCODING` is therefore ``order``.  ``regular`` is the encoding on which every line
deduction of the native solver is a RUP lemma by construction; the native prover
(:mod:`nonosat.certificates.native_proof`) nevertheless defaults to ``order`` too, checking each
step by propagation and deriving the few that propagation misses, because its proofs are the
same size and dratify checks them 3-15x faster (``benchmarks/RESULTS.md``).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

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
DEFAULT_ENCODING = "order"

Clause = list[int]

#: Truth constants used while building clauses: integers beyond any variable, so that ``-TRUE``
#: is ``FALSE``.  :class:`_Clauses` drops false literals and satisfied clauses.
TRUE = 1 << 40
FALSE = -TRUE


class _Clauses(list):
    """A list of clauses that simplifies the truth constants away as clauses are added."""

    def add(self, lits: list[int]) -> None:
        if TRUE in lits:
            return
        if FALSE in lits:
            lits = [lit for lit in lits if lit != FALSE]
        self.append(lits)


class _Vars:
    """Allocates auxiliary variables from ``next``, consecutively."""

    __slots__ = ("next",)

    def __init__(self, first: int):
        self.next = first

    def new(self) -> int:
        v = self.next
        self.next += 1
        return v


def cell_var(width: int, row: int, col: int) -> int:
    """DIMACS variable of cell ``(row, col)`` (0-based) in a puzzle ``width`` cells wide:
    ``row * width + col + 1``.

    >>> cell_var(5, 1, 2)
    8
    """
    return row * width + col + 1


# -- line encodings ------------------------------------------------------------------------------
# Each takes a clue, the cell literals of the line (length n, in line order), an allocator of
# auxiliary variables and the clause list to extend.


def _order_line(clue: tuple[int, ...], cells: Sequence[int], aux: _Vars, out: _Clauses) -> None:
    """Order encoding of block starts (the Python reference; :func:`encode` builds it with the
    compiled kernels of :mod:`nonosat.encodings.cnf_order`, which give the same clauses).

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
        out.extend([-x] for x in cells)
        return
    suffix = [0] * (k + 1)
    for j in range(k - 1, -1, -1):
        suffix[j] = suffix[j + 1] + clue[j] + 1
    earliest = [suffix[0] - suffix[j] for j in range(k)]
    latest = [n - suffix[j] + 1 for j in range(k)]
    if latest[0] < 0:
        out.append([])  # the clue does not fit
        return
    # S[j][p + 1] for p in -1 .. n-1, so that x - b[j] >= -1 indexes it; constants outside.
    starts = [
        [FALSE if p < earliest[j] else TRUE if p >= latest[j] else 0 for p in range(-1, n)]
        for j in range(k)
    ]
    for j in range(k):
        for p in range(earliest[j], latest[j]):
            starts[j][p + 1] = aux.new()

    def s(j: int, p: int) -> int:
        return FALSE if p < -1 else starts[j][p + 1]

    for j in range(k):
        row = starts[j]
        for p in range(earliest[j], latest[j] - 1):
            out.append([-row[p + 1], row[p + 2]])
    for j in range(k - 1):
        gap = clue[j] + 1
        for p in range(earliest[j + 1], latest[j + 1]):
            out.append([-starts[j + 1][p + 1], starts[j][p + 1 - gap]])
    last = k - 1
    for x in range(n):
        cell = cells[x]
        for j in range(k):
            if earliest[j] <= x < latest[j] + clue[j]:
                out.add([-s(j, x), s(j, x - clue[j]), cell])
        out.add([-cell, s(0, x)])
        for j in range(last):
            out.add([-cell, -s(j, x - clue[j]), s(j + 1, x)])
        out.add([-cell, -s(last, x - clue[last])])


def _automaton(
    clue: tuple[int, ...], n: int
) -> tuple[list[list[int]], Callable[[int, bool], int | None], list[bool]]:
    """The clue's deterministic automaton unfolded over ``n`` cells.

    The automaton reads the line's cells in order.  Its states ``0 .. L`` are positions in the
    pattern ``1^b0 0 1^b1 0 ... 1^bk-1`` (``L`` its length): state ``t`` means the first ``t``
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
    pattern : list of bool
        The pattern (``True`` = filled symbol).
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

    # reachable from the start after i cells: t <= i; the accepting state reachable in the
    # remaining cells: final - t <= n - i (each cell advances at most one pattern symbol)
    alive = [
        [t for t in range(max(0, final - (n - i)), min(i, final) + 1)] for i in range(n + 1)
    ]
    if final > n:
        alive = [[] for _ in range(n + 1)]
    return alive, delta, pattern


def _layer_states(alive: list[list[int]], aux: _Vars) -> list[dict[int, int]]:
    """State literals per layer: a fresh variable per state, the constant true for a layer
    that has a single state."""
    return [
        {layer[0]: TRUE} if len(layer) == 1 else {t: aux.new() for t in layer} for layer in alive
    ]


def _block_states(alive: list[list[int]], pattern: list[bool], aux: _Vars) -> list[dict[int, int]]:
    """State literals per layer for the regular encoding: like :func:`_layer_states`, but a
    state inside a block (``2 <= t < L`` with filled pattern symbols ``t-2`` and ``t-1``) is
    entered only from state ``t-1`` one cell earlier, which has no other way out, so it is the
    same literal as that state: one variable per block start position rather than one per
    covered cell."""
    final = len(pattern)
    states: list[dict[int, int]] = []
    for i, layer in enumerate(alive):
        if len(layer) == 1:
            states.append({layer[0]: TRUE})
            continue
        here: dict[int, int] = {}
        for t in layer:
            if 2 <= t < final and pattern[t - 1] and pattern[t - 2]:
                here[t] = states[i - 1][t - 1]
            else:
                here[t] = aux.new()
        states.append(here)
    return states


def _regular_line(clue: tuple[int, ...], cells: Sequence[int], aux: _Vars, out: _Clauses) -> None:
    """Regular-constraint encoding with state and transition variables (Bacchus 2007).

    The clue's automaton (see :func:`_automaton`) is unfolded into layers ``0 .. n``; ``Q(i, t)``
    means *the automaton is in state t after i cells* and ``T(i, t, v)`` means *it reads value v at
    cell i from state t*.  Only states on some accepting run are kept; a layer with one state has
    it as the constant true.  Clauses:

    * a transition implies its source state, its target state and its cell value;
    * a state implies one of its outgoing transitions and one of its incoming transitions;
    * a cell value implies one of the transitions of its layer labelled with it.

    A transition that is the only one leaving its state is that state's literal, and one that is
    the only one entering its state is that state's literal (the binary clauses make them
    equivalent, so merging them changes nothing for unit propagation); only the loops on empty
    cells between blocks keep variables of their own.  Likewise the states inside a block are
    merged along the diagonal with the state where the block was entered
    (:func:`_block_states`).

    Unit propagation on these clauses removes exactly the states and transitions that lie on no
    accepting run compatible with the assigned cells, so a cell value is refuted exactly when no
    completion of the line has it: the encoding is **propagation-complete** [2].

    Example: 3 cells ``x0 x1 x2``, clue ``1`` (pattern ``1``; state 0 = before the block, 1 =
    after it).  Layers ``{0}``, ``{0, 1}``, ``{0, 1}``, ``{1}``: variables ``Q10 Q11 Q20 Q21``
    and one transition variable ``T1`` for ``0 -#-> 1`` at cell 1 (every other transition is
    merged with a state).  The clauses of cell 1 are ``~Q20 | Q10``, ``~Q20 | ~x1``, ``~T1 |
    Q10``, ``~T1 | Q21``, ``~T1 | x1``, ``~Q11 | Q21``, ``~Q11 | ~x1``, ``~Q10 | Q20 | T1``,
    ``~Q21 | T1 | Q11``, ``~x1 | T1``, ``x1 | Q20 | Q11``; cell 0 gives ``~Q10 | ~x0``, ``~Q11 |
    x0``, ``Q10 | Q11``, ``~x0 | Q11``, ``x0 | Q10`` and cell 2 ``~Q20 | x2``, ``~Q21 | ~x2``,
    ``Q20 | Q21``, ``~x2 | Q20``, ``x2 | Q21``.  With ``x0`` filled, propagation gives
    ``~Q10``, then ``~Q20`` and ``~T1``, then ``~x1`` and ``~x2``: the line solver's answer.
    """
    n = len(cells)
    alive, delta, pattern = _automaton(clue, n)
    if not alive[0]:
        out.append([])
        return
    state = _block_states(alive, pattern, aux)
    for i in range(n):
        cell = cells[i]
        here, there = state[i], state[i + 1]
        trans = []
        n_out = dict.fromkeys(here, 0)
        n_in = dict.fromkeys(there, 0)
        for t in here:
            for v in (False, True):
                d = delta(t, v)
                if d is not None and d in there:
                    trans.append((t, v, d))
                    n_out[t] += 1
                    n_in[d] += 1
        outgoing: dict[int, list[int]] = {t: [] for t in here}
        incoming: dict[int, list[int]] = {d: [] for d in there}
        support: dict[bool, list[int]] = {False: [], True: []}
        for t, v, d in trans:
            source, target = here[t], there[d]
            value = cell if v else -cell
            if n_out[t] == 1:
                tr = source
            elif n_in[d] == 1:
                tr = target
            else:
                tr = aux.new()
            if tr != source:
                out.add([-tr, source])
            if tr != target:
                out.add([-tr, target])
            out.add([-tr, value])
            outgoing[t].append(tr)
            incoming[d].append(tr)
            support[v].append(tr)
        for t, trs in outgoing.items():
            if here[t] not in trs:
                out.add([-here[t], *trs])
        for d, trs in incoming.items():
            if there[d] not in trs:
                out.add([-there[d], *trs])
        out.add([-cell, *dict.fromkeys(support[True])])
        out.add([cell, *dict.fromkeys(support[False])])


def _dfa_line(clue: tuple[int, ...], cells: Sequence[int], aux: _Vars, out: _Clauses) -> None:
    """Automaton states only, with forward Tseitin implications.

    ``Q(i, t)`` as in the regular encoding (only states on an accepting run, a single state per
    layer is the constant true); for each state and cell value, ``Q(i, t) & value(x_i) ->
    Q(i+1, delta(t, value))``, or ``~Q(i, t) | ~value(x_i)`` when that transition leaves the
    accepting runs.  The run from the (true) initial state is forced cell by cell, so the models
    are exactly the matching lines, but unit propagation mostly reasons forwards: it is not
    propagation-complete.

    Example: 3 cells, clue ``1``: ``Q(1,0)``, ``Q(1,1)``, ``Q(2,0)``, ``Q(2,1)``; clauses
    ``x0 | Q(1,0)``, ``~x0 | Q(1,1)``, ``~Q(1,0) | x1 | Q(2,0)``, ``~Q(1,0) | ~x1 | Q(2,1)``,
    ``~Q(1,1) | ~x1``, ``~Q(1,1) | x1 | Q(2,1)``, ``~Q(2,0) | x2``, ``~Q(2,1) | ~x2``.
    """
    n = len(cells)
    alive, delta, pattern = _automaton(clue, n)
    if not alive[0]:
        out.append([])
        return
    state = _layer_states(alive, aux)
    for i in range(n):
        cell = cells[i]
        here, there = state[i], state[i + 1]
        for t, q in here.items():
            for v in (False, True):
                d = delta(t, v)
                target = there.get(d, FALSE) if d is not None else FALSE
                out.add([-q, -cell if v else cell, target])


_LINE_ENCODERS: dict[str, Callable[[tuple[int, ...], Sequence[int], _Vars, _Clauses], None]] = {
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
    first_aux: int,
    encoding: str = DEFAULT_ENCODING,
) -> tuple[list[Clause], int]:
    """Clauses that allow exactly the patterns of ``cells`` matching ``clue``.

    Parameters
    ----------
    clue : tuple of int or None
        The line's clue; ``None`` (unknown) gives no clauses.
    cells : sequence of int, length n
        DIMACS variables of the line's cells, in line order.
    first_aux : int
        First variable free for the line's auxiliary variables (allocated consecutively).
    encoding : str
        ``"order"``, ``"regular"`` or ``"dfa"``.

    Returns
    -------
    clauses : list of list of int
        The clauses (an empty clause when the clue cannot fit in ``n`` cells).
    next_aux : int
        First variable still free afterwards.

    Raises
    ------
    PuzzleError
        Unknown encoding.

    Examples
    --------
    >>> line_clauses((2,), [1, 2, 3, 4], 5, "order")
    ([[-5, 6], [-5, 1], [-1, 5], [-6, 2], [-2, 6], [5, 3], [-3, -5], [6, 4], [-4, -6]], 7)
    """
    encoder = _LINE_ENCODERS[check_encoding(encoding)]
    if clue is None:
        return [], first_aux
    if encoding == "order":
        from nonosat.encodings.cnf_order import order_line

        return order_line(tuple(clue), cells, first_aux)
    out = _Clauses()
    aux = _Vars(first_aux)
    encoder(tuple(clue), list(cells), aux, out)
    return list(out), aux.next


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
    clauses : list of list of int
        DIMACS clauses: every line's clauses in line order (rows, then columns), then the unit
        clauses of a partial grid state, if any.
    nvars : int
        Number of variables: the ``height * width`` cells, then each line's auxiliary variables.
    line_spans : list of (int, int, int, int)
        Per line (rows, then columns): ``(first_clause, end_clause, first_aux, end_aux)``, the
        half-open ranges of the line's clauses in :attr:`clauses` and of its auxiliary
        variables, so that a prover can work on one line's clauses.
    """

    puzzle: Puzzle
    encoding: str
    version: int
    clauses: list[Clause]
    nvars: int
    line_spans: list[tuple[int, int, int, int]]

    @property
    def cnf(self) -> CNF:
        """The clauses as a :class:`pysat.formula.CNF` (sharing the clause list)."""
        cnf = CNF()
        cnf.clauses = self.clauses
        cnf.nv = self.nvars
        return cnf

    @property
    def pool(self) -> IDPool:
        """An :class:`pysat.formula.IDPool` that names the cells ``("cell", r, c)`` and
        continues after the last variable (for callers adding variables of their own)."""
        pool = IDPool()
        h, w = self.puzzle.shape
        for r in range(h):
            for c in range(w):
                pool.id(("cell", r, c))
        pool.top = self.nvars
        return pool

    def cell_var(self, row: int, col: int) -> int:
        """DIMACS variable of cell ``(row, col)`` (0-based)."""
        return cell_var(self.puzzle.width, row, col)

    def solution(self, model: Sequence[int]) -> np.ndarray:
        """The solution (bool array, shape ``(height, width)``) of a solver model (a list of
        signed literals in variable order, as PySAT's ``get_model()`` returns).

        Raises
        ------
        PuzzleError
            The model does not list the cell variables ``1, 2, ...`` in order.
        """
        h, w = self.puzzle.shape
        cells = np.asarray(model[: h * w], dtype=np.int64)
        if np.any(np.abs(cells) != np.arange(1, cells.size + 1)):
            raise PuzzleError("the model does not list the cell variables in order")
        # a solver leaves out variables beyond the last one any clause mentions (cells whose
        # row and column clues are both unknown): they are free, take them empty
        filled = np.zeros(h * w, dtype=bool)
        filled[: cells.size] = cells > 0
        return filled.reshape(h, w)

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
        Line encoding: ``"order"`` (the default, :data:`DEFAULT_ENCODING`), ``"regular"`` or
        ``"dfa"``.
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

    Notes
    -----
    Deterministic: the same puzzle, encoding and version always give the same clauses in the
    same order, which is what lets a certificate be re-derived and compared.  ``order`` is built
    by compiled kernels (:mod:`nonosat.encodings.cnf_order`, loaded with the ``sat`` and
    ``auto`` engines by :func:`nonosat.engines.load_engine`), the others in Python.

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> enc = encode(Puzzle([(1,), ()], [(1,), ()]), "order")
    >>> enc.cell_var(1, 1), enc.clauses[:3]
    (4, [[-5, 1], [-1, 5], [5, 2]])
    """
    check_encoding(encoding)
    if partial is not None:
        units = partial_units(puzzle, partial)  # checks the shape before any work
    if encoding == "order":
        from nonosat.encodings.cnf_order import encode_order

        out, nvars, spans = encode_order(puzzle)
    else:
        out, nvars, spans = _encode_lines(puzzle, encoding)
    if partial is not None:
        out.extend(units)
    return PuzzleCnf(puzzle, encoding, ENCODING_VERSIONS[encoding], out, nvars, spans)


def _encode_lines(
    puzzle: Puzzle, encoding: str
) -> tuple[list[Clause], int, list[tuple[int, int, int, int]]]:
    """Every line's clauses built in Python by the line encoder (the reference the compiled
    ``order`` encoder of :mod:`nonosat.encodings.cnf_order` is tested against): ``(clauses,
    nvars, line_spans)`` as :class:`PuzzleCnf` holds them."""
    encoder = _LINE_ENCODERS[encoding]
    h, w = puzzle.shape
    clauses = _Clauses()
    aux = _Vars(h * w + 1)
    spans = []
    lines = [[cell_var(w, i, c) for c in range(w)] for i in range(h)]
    lines += [[cell_var(w, r, j) for r in range(h)] for j in range(w)]
    for clue, cells in zip(puzzle.lines, lines, strict=True):
        first_clause, first_aux = len(clauses), aux.next
        if clue is not None:
            encoder(clue, cells, aux, clauses)
        spans.append((first_clause, len(clauses), first_aux, aux.next))
    return list(clauses), aux.next - 1, spans


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
    filled, empty, conflict = int(Cell.FILLED), int(Cell.EMPTY), int(Cell.CONFLICT)
    flat = grid.ravel()
    known = np.flatnonzero(np.isin(flat, (filled, empty, conflict)))
    # only the known cells, in row-major order; variable of flat index i is i + 1 (cell_var)
    for v, value in zip((known + 1).tolist(), flat[known].tolist(), strict=True):
        if value == filled:
            units.append([v])
        elif value == empty:
            units.append([-v])
        else:
            units.extend([[v], [-v]])
    return units


def blocking_clause(solution: np.ndarray) -> Clause:
    """The clause that excludes exactly ``solution`` (bool array, shape ``(height, width)``):
    at least one cell differs.

    >>> blocking_clause(np.array([[True, False]]))
    [-1, 2]
    """
    flat = np.asarray(solution, dtype=bool).ravel()
    var = np.arange(1, flat.size + 1, dtype=np.int64)
    return np.where(flat, -var, var).tolist()


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
