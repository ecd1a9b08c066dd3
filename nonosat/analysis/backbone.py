"""The backbone and the whole ambiguity map of a puzzle with at least one solution.

The **backbone** is the set of cells that take the same value in every solution; the
**ambiguity map** its complement, the cells that differ between some two solutions.
:func:`ambiguity_map` (used by ``nonosat analyse``, ``nonosat render --solution`` and the studio,
for black-and-white and colour puzzles alike) computes it by *chunking* over one incremental SAT
solver (:func:`sat_backbone`: Janota, Lynce and Marques-Silva, "Algorithms for computing
backbones of propositional formulae", AI Communications 28(2), 2015, the chunking variant with
one chunk of every candidate): encode the puzzle once with the cells fixed by logic as units,
then repeatedly add the clause "some candidate cell differs from the reference solution"; a
model is a new witness and removes every candidate it changes, unsatisfiability proves every
remaining candidate backbone at once.  Each added clause is over a subset of the previous
clause's cells, so it implies the previous one and the clauses need never be retracted:
typically a handful of SAT calls.  A colour puzzle goes through its colour CNF
(:func:`nonosat.encodings.cnf_colour.encode_colour`), "differs" meaning "has another colour".

The SAT phases themselves (guided witnesses, the chunking query, per-cell checks) are in
:mod:`nonosat.analysis.backbone_phases`; this module gives them each encoding's literals.

:func:`backbone` is the older one-solve-per-flip form, through any engine (black-and-white).
The solutions found while computing the backbone are *witnesses*: together they differ on
exactly the ambiguous cells, so drawing them as several solutions draws the map.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nonosat.analysis.backbone_phases import _CellRounds, _narrow, _stopped
from nonosat.engines import Status, solve
from nonosat.puzzle import Cell, Puzzle, unknown_grid
from nonosat.stop import StopToken


@dataclass
class Backbone:
    """The backbone of a puzzle with at least one solution.

    Attributes
    ----------
    mask : ndarray of bool, shape (height, width)
        ``True`` for backbone cells (same value in every solution).
    undecided : ndarray of bool, shape (height, width)
        Cells whose status could not be decided before the time limit (counted neither way).
    witnesses : list of ndarray of bool
        Solutions found (the reference solution first); together they differ on exactly the
        non-backbone cells when nothing is undecided.
    solves : int
        Engine calls made.
    """

    mask: np.ndarray
    undecided: np.ndarray
    witnesses: list[np.ndarray]
    solves: int = 0

    @property
    def size(self) -> int:
        """Number of backbone cells."""
        return int(self.mask.sum())

    @property
    def ambiguous(self) -> np.ndarray:
        """The ambiguity map: cells that differ between some two solutions (bool, (h, w))."""
        return ~self.mask & ~self.undecided


def backbone(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None = None,
    *,
    engine: str = "native",
    timeout: float | None = None,
) -> Backbone:
    """Compute the backbone from known solutions by flipping cells.

    Parameters
    ----------
    puzzle : Puzzle
    solutions : list of ndarray of bool, shape (height, width)
        At least one solution (more only speed things up); the first is the reference.
    known : ndarray of int8, shape (height, width), optional
        A grid state every solution agrees with (cells fixed by logic): its known cells are
        backbone without a solve, and it is the starting state of every solve.
    engine : str
        Engine for the flip solves (see :mod:`nonosat.engines`).
    timeout : float, optional
        Seconds for the whole computation; cells left when it expires are ``undecided``.

    Returns
    -------
    Backbone

    Raises
    ------
    ValueError
        ``solutions`` is empty.
    """
    if not solutions:
        raise ValueError("the backbone needs at least one solution")
    ref = np.asarray(solutions[0], dtype=bool)
    base = unknown_grid(puzzle) if known is None else np.asarray(known, dtype=np.int8).copy()
    witnesses = [ref] + [np.asarray(s, dtype=bool) for s in solutions[1:]]
    candidate = base == Cell.UNKNOWN
    for sol in witnesses[1:]:
        candidate &= sol == ref
    undecided = np.zeros(puzzle.shape, dtype=bool)
    deadline = None if timeout is None else time.perf_counter() + timeout
    solves = 0
    for r, c in zip(*np.nonzero(candidate), strict=True):
        if not candidate[r, c]:
            continue
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            undecided[r, c] = True
            continue
        partial = base.copy()
        partial[r, c] = Cell.EMPTY if ref[r, c] else Cell.FILLED
        result = solve(puzzle, engine, partial=partial, limit=1, timeout=left)
        solves += 1
        if result.solutions:
            other = result.solutions[0]
            witnesses.append(other)
            candidate &= other == ref
        elif result.status == Status.UNKNOWN:
            undecided[r, c] = True
    mask = np.ones(puzzle.shape, dtype=bool)
    for sol in witnesses[1:]:
        mask &= sol == ref
    mask &= ~undecided
    return Backbone(mask, undecided, witnesses, solves)


def sat_backbone(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None = None,
    *,
    deadline: float | None = None,
    stop: StopToken | None = None,
) -> tuple[np.ndarray, bool, list[np.ndarray]]:
    """The ambiguity map (complement of the backbone) by chunking over one SAT solver (module
    docstring).

    Parameters
    ----------
    puzzle : Puzzle
    solutions : list of ndarray of bool, shape (height, width)
        At least one solution; the first is the reference.
    known : ndarray of int8, shape (height, width), optional
        Cells every solution agrees with (fixed by logic): never candidates, given as units.
    deadline : float, optional
        ``time.perf_counter()`` value after which to stop.
    stop : StopToken, optional
        Once set, stop as at the deadline (read between SAT calls, which it keeps short:
        :class:`nonosat.encodings.satsolver.SatRun`).

    Returns
    -------
    (ambiguous, complete, witnesses)
        ``ambiguous`` (bool, (h, w)): cells proven to differ between two solutions; ``complete``:
        every other cell was proven backbone (``False`` when the deadline came first: then
        ``ambiguous`` is a subset of the map); ``witnesses``: the solutions found.

    Raises
    ------
    ValueError
        ``solutions`` is empty.
    """
    ambiguous, open_cells, witnesses = _chunked_backbone(puzzle, solutions, known, deadline,
                                                         stop)
    return ambiguous, not open_cells.any(), witnesses


def _chunked_backbone(
    puzzle: Puzzle, solutions: list[np.ndarray], known: np.ndarray | None,
    deadline: float | None, stop: StopToken | None = None,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """:func:`sat_backbone`, returning the candidates left undecided instead of a flag.

    Two phases over one incremental solver:

    1. **Guided witnesses** (at most :data:`WITNESS_SHARE` of the time left, at most
       :data:`WITNESS_MAX_S` seconds): block every solution known and ask for another with the
       solver's phases on the last solution found, so that it finds the nearest other solution
       (solution-guided enumeration); stop after :data:`WITNESS_STALE` witnesses in a row that
       make no new cell ambiguous.  A blocking clause excludes one solution, so each call is
       cheap where the "some candidate differs" clause is not: on Knotty (40x40, at least 16
       solutions) the disjunction alone found 14 ambiguous cells in 120 s, the witnesses find 56
       in about 2 s.  Blocking clauses exclude only witnesses, which agree with the reference on
       every remaining candidate anyway, so they never change what phase 2 proves.
    2. **Chunking** (module docstring): "some candidate differs from the reference" until
       unsatisfiable (every remaining candidate is backbone) or the deadline.  With a deadline
       it takes turns (:func:`_narrow`) with rounds of **per-cell checks**
       (:func:`_cell_checks`: each candidate under an assumption, with a conflict budget that
       grows by :data:`CELL_BUDGET_GROWTH` per round, every cell proven backbone followed by
       line propagation).  On Faase (80x95, at least 3,700 ambiguous cells) the disjunction
       alone proved no cell backbone beyond logic in 120 s; with the per-cell checks, 690 more
       (``benchmarks/RESULTS.md``).
    """
    from nonosat.encodings.cnf import encode
    from nonosat.encodings.phases import order_phases
    from nonosat.encodings.satsolver import SatRun

    if not solutions:
        raise ValueError("the backbone needs at least one solution")
    kind = np.int8 if puzzle.is_colour else bool
    ref = np.asarray(solutions[0], dtype=kind)
    witnesses = [ref] + [np.asarray(s, dtype=kind) for s in solutions[1:]]
    candidate = np.ones(puzzle.shape, dtype=bool)
    if known is not None:
        candidate &= (_colour_open(known) if puzzle.is_colour
                      else np.asarray(known) == Cell.UNKNOWN)
    for sol in witnesses[1:]:
        candidate &= sol == ref
    undecided = np.zeros(puzzle.shape, dtype=bool)
    if candidate.any() and puzzle.is_colour:
        undecided = _colour_narrow(puzzle, witnesses, candidate, ref, known, deadline, stop)
    elif candidate.any() and not _stopped(stop):
        # a set token is read between the steps of the set-up too (the encoding, loading the
        # solver and the phases each take tens of milliseconds on 50x50, with the GIL held)
        enc = encode(puzzle, partial=known)
        cells = np.arange(1, ref.size + 1).reshape(ref.shape)
        agree = np.where(ref, cells, -cells)  # each cell's literal "as in the reference"

        def differs(cand: np.ndarray) -> list[int]:  # some candidate differs from the reference
            return (-agree[cand]).tolist()

        undecided = candidate.copy()
        if not _stopped(stop):
            with SatRun(enc.clauses, stop=stop) as run:
                guided = not _stopped(stop) and run.set_phases(order_phases(puzzle, known,
                                                                            enc.nvars))
                rounds = _CellRounds(agree.ravel(), _line_settle(puzzle, ref, known))
                undecided = _narrow(puzzle, enc, run, witnesses, candidate, ref, deadline,
                                    differs=differs, guided=guided, cells=rounds, stop=stop)
    elif candidate.any():
        undecided = candidate.copy()
    ambiguous = _differing(witnesses, ref)
    return ambiguous, undecided, witnesses


def _line_settle(
    puzzle: Puzzle, ref: np.ndarray, known: np.ndarray | None,
) -> Callable[[np.ndarray], np.ndarray]:
    """The ``settle`` of :func:`_cell_checks` for a black-and-white puzzle: a function that adds
    cells proven backbone (bool, (h, w); their values those of ``ref``) to a grid state that
    starts from ``known`` and runs the native line solver to a fixpoint, returning the cells
    it fixes beyond them (bool, (h, w)).  Each follows from the clues and backbone cells, so it
    is backbone too.

    Raises
    ------
    AssertionError
        Line propagation contradicts ``ref`` (a solution): a line solver or encoding bug.
    """
    from nonosat.native.propagate import propagate_grid

    fixed = unknown_grid(puzzle) if known is None else np.asarray(known, dtype=np.int8).copy()
    values = np.where(ref, Cell.FILLED, Cell.EMPTY).astype(np.int8)

    def settle(proven: np.ndarray) -> np.ndarray:
        fixed[proven] = values[proven]
        out = propagate_grid(puzzle, fixed)
        if out is None:  # pragma: no cover - would be a line solver bug
            raise AssertionError("line propagation from backbone cells met a contradiction")
        grid = out[0]
        new = (grid != Cell.UNKNOWN) & (fixed == Cell.UNKNOWN)
        if (grid[new] != values[new]).any():  # pragma: no cover - would be a line solver bug
            raise AssertionError("line propagation from backbone cells contradicts a solution")
        fixed[new] = grid[new]
        return new

    return settle


def _colour_open(grid: np.ndarray) -> np.ndarray:
    """Cells of a colour state (int32 masks) with several colours left (bool, same shape)."""
    g = np.asarray(grid)
    return (g & (g - 1)) != 0


def _colour_narrow(
    puzzle: Puzzle, witnesses: list[np.ndarray], candidate: np.ndarray, ref: np.ndarray,
    known: np.ndarray | None, deadline: float | None, stop: StopToken | None = None,
) -> np.ndarray:
    """The SAT phases of :func:`_chunked_backbone` for a colour puzzle: the colour CNF
    (:func:`nonosat.encodings.cnf_colour.encode_colour`, restricted to ``known``), the guided
    witnesses (each solution blocked, phases on the last one), then "some candidate cell has
    another colour than in the reference" and per-cell checks (:func:`_narrow`).  Returns the
    candidates left undecided."""
    from nonosat.encodings.cnf_colour import encode_colour
    from nonosat.encodings.satsolver import SatRun

    enc = encode_colour(puzzle, None if known is None else np.asarray(known, dtype=np.int32))
    if _stopped(stop):
        return candidate.copy()
    with SatRun(enc.clauses, stop=stop) as run:
        def phase_lits(sol: np.ndarray) -> list[int]:
            # "cell (r, c) has colour sol[r, c]" true, its other colours false
            lits = []
            for (r, c), k in np.ndenumerate(sol):
                for j in range(enc.ncol):
                    v = enc.cell_var(r, c, j)
                    lits.append(v if j == k else -v)
            return lits

        # each cell's literal "the cell has its reference colour"
        agree = np.array([enc.cell_var(r, c, int(k)) for (r, c), k in np.ndenumerate(ref)])

        def differs(cand: np.ndarray) -> list[int]:
            return (-agree.reshape(ref.shape)[cand]).tolist()

        guided = run.set_phases(phase_lits(witnesses[-1]))
        rounds = _CellRounds(agree, _colour_settle(puzzle, ref, known))
        return _narrow(puzzle, enc, run, witnesses, candidate, ref, deadline,
                       differs=differs, guided=guided, block=enc.blocking_clause,
                       phase_lits=phase_lits, cells=rounds, stop=stop)


def _colour_settle(
    puzzle: Puzzle, ref: np.ndarray, known: np.ndarray | None,
) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`_line_settle` for a colour puzzle: cells proven backbone (bool, (h, w)) take their
    colour in ``ref`` in a state of colour masks that starts from ``known``; colour line
    propagation (:func:`nonosat.analysis.logic.closure`) to a fixpoint; returns the further
    cells it decides (one colour left; bool, (h, w)), backbone too.

    Raises
    ------
    AssertionError
        Propagation contradicts ``ref`` (a solution): a line solver or encoding bug.
    """
    from nonosat.analysis.logic import closure, full_grid

    close = closure(puzzle)
    grid = full_grid(puzzle)
    if known is not None:
        grid &= np.asarray(known, dtype=np.int32)
    values = (1 << ref.astype(np.int32)).astype(np.int32)

    def settle(proven: np.ndarray) -> np.ndarray:
        grid[proven] = values[proven]
        out = close(grid)
        if out is None or ((out & values) == 0).any():  # pragma: no cover - a solver bug
            raise AssertionError("colour propagation from backbone cells contradicts a solution")
        new = _colour_open(grid) & ~_colour_open(out)
        grid[:] = out
        return new

    return settle


def _differing(witnesses: list[np.ndarray], ref: np.ndarray) -> np.ndarray:
    """Cells (bool, (h, w)) on which some witness differs from the reference ``ref``."""
    ambiguous = np.zeros(ref.shape, dtype=bool)
    for sol in witnesses[1:]:
        ambiguous |= sol != ref
    return ambiguous


def ambiguity_map(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None = None,
    *,
    timeout: float | None = None,
    stop: StopToken | None = None,
) -> Backbone:
    """The backbone and the whole ambiguity map of a puzzle with at least one solution, by
    chunking over one SAT solver (:func:`sat_backbone`); the one implementation behind
    ``nonosat analyse``, ``nonosat render --solution`` and the studio.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white or colour.
    solutions : list of ndarray of bool (colour: int8 colour indices)
        Solutions known (the first is the reference); more only save SAT calls.
    known : ndarray, optional
        Cells fixed by logic (every solution agrees with them): int8 cells, or colour masks.
    timeout : float, optional
        Seconds; cells neither proven backbone nor ambiguous by then are ``undecided``.
    stop : StopToken, optional
        Once set, stop as at the timeout (between two short SAT calls).

    Returns
    -------
    Backbone
        ``witnesses`` differ, together, on exactly :attr:`Backbone.ambiguous`; ``solves`` counts
        the SAT calls made.
    """
    deadline = None if timeout is None else time.perf_counter() + timeout
    ambiguous, undecided, witnesses = _chunked_backbone(puzzle, solutions, known, deadline,
                                                        stop)
    mask = ~ambiguous & ~undecided
    return Backbone(mask, undecided, witnesses, solves=len(witnesses) - len(solutions) + 1)
