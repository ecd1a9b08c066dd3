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
cells of a partial grid state enter as unit clauses.  Three line encodings are implemented,
``order``, ``regular`` and ``dfa``, in :mod:`nonosat.encodings.cnf_lines` (with their
references).

The ``order`` encoding of a whole puzzle is built by compiled code
(:mod:`nonosat.encodings.cnf_order`, numba kernels over numpy arrays): exactly the clauses of the
Python line encoder :func:`~nonosat.encodings.cnf_lines._order_line`, which stays as the
reference it is tested against (``tests/test_cnf_order.py``).  On a 25x25 tournament puzzle
(~11,000 clauses) that is about 0.2 ms of kernel and 1.5 ms to make the Python lists PySAT
takes, against about 8 ms in Python (``benchmarks/bench_cnf_build.py``).  ``regular`` and
``dfa`` are built in Python.

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
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

import numpy as np
from pysat.formula import CNF, IDPool

from nonosat.encodings.cnf_lines import (
    _LINE_ENCODERS,
    DEFAULT_ENCODING,
    ENCODING_VERSIONS,
    FALSE,
    PROPAGATION_COMPLETE,
    TRUE,
    Clause,
    _Clauses,
    _Vars,
    cell_var,
    check_encoding,
    line_clauses,
)
from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Puzzle

__all__ = ["DEFAULT_ENCODING", "ENCODING_VERSIONS", "FALSE", "PROPAGATION_COMPLETE", "TRUE",
           "Clause", "PuzzleCnf", "blocking_clause", "cell_var", "check_encoding", "encode",
           "line_clauses", "partial_units", "write_dimacs"]

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
