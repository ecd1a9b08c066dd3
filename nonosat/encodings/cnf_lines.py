"""The line encodings of the CNF: clauses that allow exactly the patterns of one line's cells
that match its clue (:func:`line_clauses`), and the names and versions of the encodings.

=========  ====================================================  ======================
name       idea                                                  propagation-complete
=========  ====================================================  ======================
order      order encoding of block starts (reference)            no
regular    regular constraint, state + transition variables      **yes**
dfa        automaton states only, forward Tseitin implications   no
=========  ====================================================  ======================

The ``order`` encoding of a whole puzzle is built by compiled code
(:mod:`nonosat.encodings.cnf_order`): exactly the clauses of the Python line encoder
:func:`_order_line` here, which stays as the reference it is tested against
(``tests/test_cnf_order.py``).  Whole puzzles, the variable layout and the choice of the default
encoding: :mod:`nonosat.encodings.cnf`.

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

from collections.abc import Callable, Sequence

from nonosat.errors import PuzzleError, check_known
from nonosat.puzzle import Clue

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
    return check_known(name, _LINE_ENCODERS, "CNF encoding", PuzzleError)


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
