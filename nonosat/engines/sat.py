"""The SAT engine: a CNF encoding (:mod:`nonosat.encodings.cnf`) solved by a PySAT solver.

Solutions are enumerated by adding, after each model, the blocking clause that excludes its
cells; the search stops at the limit or when the formula becomes unsatisfiable.  A time limit is
honoured with conflict budgets (:mod:`nonosat.encodings.satsolver`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from nonosat.encodings.cnf import (
    DEFAULT_ENCODING,
    ENCODING_VERSIONS,
    PuzzleCnf,
    blocking_clause,
    check_encoding,
    encode,
)
from nonosat.encodings.satsolver import DEFAULT_SOLVER, SatRun, solver_name
from nonosat.engines import Engine, SolveResult, Status
from nonosat.errors import EngineError, PuzzleError
from nonosat.puzzle import Cell, Puzzle
from nonosat.stop import StopToken

#: Solver options used when only a first solution is wanted (``limit=1``) on puzzles of more than
#: :data:`UNIQUENESS_OPTIONS_MAX_CELLS` cells: the formula is then satisfiable whenever the
#: puzzle has a solution, and CaDiCaL's stable mode alone (its "sat" configuration) finds models
#: sooner.  All 1000 taai2011 puzzles, given the native root grid and implications as ``auto``
#: does, CPU: 62.0 s against 79.8 s with the defaults (uniqueness mode: 60.9 s against 91.8 s;
#: see :data:`UNIQUENESS_OPTIONS`).
FIRST_SOLUTION_OPTIONS: dict[str, dict[str, int]] = {"cadical195": {"stabilizeonly": 1}}

#: Solver options for a uniqueness check (``limit >= 2``), and for a first solution too, on puzzles
#: of at most :data:`UNIQUENESS_OPTIONS_MAX_CELLS` cells: stable mode alone, no bounded variable
#: elimination, no chronological backtracking.  Measured in one run each (issue 16), SAT stage of
#: ``auto`` (root grid and implications given), 100 puzzles, CPU, same verdicts: taai2011 3.86 s
#: stable-only against 7.98 s defaults; tcga2016 (with unique puzzles) and icga2023: stable-only
#: 0.88x and 0.70x, stable-only without elimination 0.55x and 0.59x of the defaults.  For
#: ``limit=1``, ``auto`` on three 100-puzzle samples of each of taai2011, tcga2016, icga2018 and
#: tcga2023 (every 10th from 0, 5 and 3; A/B interleaved, ``benchmarks/bench_handoff.py``), CPU 57.4
#: s without elimination against 61.6 s with it (0.87x, 1.00x, 0.95x per sample), the slowest puzzle
#: 0.83 s against 3.0 s (taai2011 #591: 12,033 conflicts against 59,957), and the first SAT call is
#: then the same search as the uniqueness check's.
#: They are used only up to :data:`UNIQUENESS_OPTIONS_MAX_CELLS` cells: on Faase (80x95) ``auto``
#: took 59.2 s against 24.8 s with the defaults (one run, side by side).
#: Chronological backtracking is off too (``chrono=0``): the SAT stage of ``auto`` on the hand-off
#: puzzles of three samples of the four tournament sets (every 10th from 0, 5 and 3; 162, 153 and
#: 159 puzzles given root grid and implications, uniqueness, variants alternated per puzzle in one
#: process), CPU 8.35 / 6.39 / 8.17 s against 12.05 / 6.78 / 9.95 s with it (0.69x / 0.94x / 0.82x),
#: conflicts 173k / 124k / 171k against 258k / 135k / 206k; the same for ``limit=1`` (8.07 against
#: 11.70 s on the first sample).
UNIQUENESS_OPTIONS: dict[str, dict[str, int]] = {
    "cadical195": {"stabilizeonly": 1, "elim": 0, "chrono": 0}
}
UNIQUENESS_OPTIONS_MAX_CELLS = 1024


def implication_clauses(
    width: int, implications: Sequence[tuple[tuple[int, int, bool], tuple[int, int, bool]]]
) -> list[list[int]]:
    """Binary clauses ``~a | b`` of implications ``a -> b`` between cell literals, each given
    as ``((r1, c1, filled1), (r2, c2, filled2))`` (0-based; cell variable ``r * width + c + 1``,
    negated for *empty*), in the order given.

    >>> implication_clauses(3, [((0, 1, True), (1, 0, False))])
    [[-2, -4]]
    """
    return [
        [-(r1 * width + c1 + 1) if f1 else r1 * width + c1 + 1,
         r2 * width + c2 + 1 if f2 else -(r2 * width + c2 + 1)]
        for (r1, c1, f1), (r2, c2, f2) in implications
    ]


def implication_literals(width: int, implications) -> np.ndarray:
    """Implications as an int64 array ``(m, 2)`` of DIMACS literals, row ``(a, b)`` meaning
    ``a -> b`` (the clause ``-a | b`` of :func:`implication_clauses`).  An array (as
    :meth:`nonosat.native.search.NativeSearch.root_implication_literals` gives it) is returned as
    int64 ``(m, 2)``; a sequence of ``((r1, c1, filled1), (r2, c2, filled2))`` is converted.

    >>> implication_literals(3, [((0, 1, True), (1, 0, False))]).tolist()
    [[2, -4]]
    """
    if isinstance(implications, np.ndarray):
        return implications.astype(np.int64, copy=False).reshape(-1, 2)
    out = np.empty((len(implications), 2), dtype=np.int64)
    for i, ((r1, c1, f1), (r2, c2, f2)) in enumerate(implications):
        a, b = r1 * width + c1 + 1, r2 * width + c2 + 1
        out[i, 0] = a if f1 else -a
        out[i, 1] = b if f2 else -b
    return out


class SatEngine(Engine):
    """PySAT on a CNF encoding of the puzzle.

    Parameters
    ----------
    solver : str
        PySAT solver name (default ``"Cadical195"``, CaDiCaL 1.9.5; ``"Glucose4"``,
        ``"MapleChrono"``, ... see :func:`nonosat.encodings.satsolver.solver_names`).
    encoding : str
        CNF line encoding (:data:`nonosat.encodings.cnf.DEFAULT_ENCODING` by default).
    implications : sequence of ((r1, c1, filled1), (r2, c2, filled2)), or ndarray, optional
        Binary implications between cells known to hold in every solution (the portfolio passes
        those the native solver's probing found, as the ``(m, 2)`` array of DIMACS literals of
        :func:`implication_literals`); added as binary clauses.
    neighbour : callable (puzzle, solution) -> solution or None, optional
        Asked after each solution while more are wanted, for another solution nearby (the
        portfolio passes :func:`nonosat.native.swap.swap_neighbour`, a 2x2 swap); an answer that
        is a new solution agreeing with ``partial`` is taken instead of a SAT call.  None by
        default, so that the SAT engine alone stays independent of the native solver.
    phases : bool
        Give the solver initial phases from belief propagation over the lines
        (:mod:`nonosat.encodings.phases`; cells, and the order encoding's block starts) and, after
        each solution, that solution's cells as phases, so that the next one is looked for
        nearby (as nonosolve does).  Default True; phases steer the search, never the answer.

    Raises
    ------
    EngineError
        Unknown solver or encoding.

    Notes
    -----
    On puzzles of at most :data:`UNIQUENESS_OPTIONS_MAX_CELLS` cells CaDiCaL runs with
    :data:`UNIQUENESS_OPTIONS`; on larger ones with :data:`FIRST_SOLUTION_OPTIONS` when
    ``limit=1``, and with its defaults otherwise.

    Statistics: ``solver``, ``encoding``, ``options``, ``variables``, ``clauses``, ``conflicts``,
    ``decisions``, ``propagations``, ``restarts`` (cumulated over the enumeration, as the solver
    reports them), ``sat_calls`` (budgeted calls included), ``encode_time_s``, ``sat_time_s``.
    """

    name = "sat"

    def __init__(
        self,
        solver: str = DEFAULT_SOLVER,
        encoding: str = DEFAULT_ENCODING,
        implications: Sequence[tuple[tuple[int, int, bool], tuple[int, int, bool]]]
        | np.ndarray = (),
        neighbour: Callable[[Puzzle, np.ndarray], np.ndarray | None] | None = None,
        phases: bool = True,
    ):
        self.solver = solver_name(solver)
        self.phases = phases
        self.implications = implications
        self.neighbour = neighbour
        try:
            self.encoding = check_encoding(encoding)
        except PuzzleError as exc:
            raise EngineError(str(exc)) from None

    def _run(self, puzzle: Puzzle, partial: np.ndarray | None, limit: int,
             timeout: float | None, stop: StopToken | None) -> SolveResult:
        """Find up to ``limit`` solutions; see :meth:`nonosat.engines.Engine.solve`.  ``stop``
        (:mod:`nonosat.stop`) is polled between the solver's budgeted calls (about 0.4-4 s
        each, :mod:`nonosat.encodings.satsolver`); a stopped solve gives ``Status.UNKNOWN``."""
        start = time.perf_counter()
        deadline = start + timeout if timeout is not None else None
        if puzzle.is_colour:
            return self._solve_colour(puzzle, partial, limit, deadline, start, stop)
        flat = None
        pairs = implication_literals(puzzle.width, self.implications) \
            if len(self.implications) else None
        if self.encoding == "order":
            # compiled encoder to flat arrays, straight into the solver (SatRun.add_flat): the
            # same clauses, in the same order, as encode() plus implication_clauses()
            from nonosat.encodings.cnf_order import encode_order_flat

            lits, ends, nvars = encode_order_flat(puzzle, partial, pairs)
            flat = (lits, ends)
            nclauses = int(ends.shape[0])
            del lits, ends, pairs
            enc = PuzzleCnf(puzzle, self.encoding, ENCODING_VERSIONS[self.encoding], [], nvars, [])
            clauses: list[list[int]] = []
        else:
            enc = encode(puzzle, self.encoding, partial)
            clauses = enc.clauses
            if pairs is not None:
                clauses = clauses + [[-a, b] for a, b in pairs.tolist()]
            nclauses = len(clauses)
        encoded = time.perf_counter()
        solutions: list[np.ndarray] = []
        neighbours = 0
        if puzzle.height * puzzle.width <= UNIQUENESS_OPTIONS_MAX_CELLS:
            options = UNIQUENESS_OPTIONS.get(self.solver)
        elif limit == 1:
            options = FIRST_SOLUTION_OPTIONS.get(self.solver)
        else:
            options = None
        with SatRun(clauses, self.solver, options=options, flat=flat,
                    stop=_brief(stop)) as run:
            # the solver holds its own copy: free the Python clause lists (about 150 bytes a
            # clause; 48 MB on Faase, 80x95) before the search grows the solver's memory
            del clauses, flat
            enc = replace(enc, clauses=[], line_spans=[])
            phase_s = 0.0
            guided = False  # phases taken by this solver (Kissat takes none through PySAT)
            if self.phases:
                t = time.perf_counter()
                guided = run.set_phases(self._initial_phases(puzzle, partial, enc.nvars, stop))
                phase_s = time.perf_counter() - t
            def found(solution: np.ndarray) -> None:
                nonlocal neighbours
                if guided:  # solution-guided: look for the next solution near this one
                    cells = np.arange(1, solution.size + 1)
                    run.set_phases(np.where(solution.ravel(), cells, -cells).tolist())
                while len(solutions) < limit and self.neighbour is not None:
                    other = self._neighbour(puzzle, solution, partial, solutions)
                    if other is None:
                        break
                    solutions.append(other)
                    run.add_clause(blocking_clause(other))
                    neighbours += 1
                    solution = other

            complete = _enumerate(run, enc.solution, blocking_clause, solutions, limit, deadline,
                                  stop, found)
            stats = run.stats()
        stats.update(
            encoding=self.encoding,
            options=dict(options or {}),
            variables=enc.nvars,
            clauses=nclauses,
            implications=len(self.implications),
            encode_time_s=round(encoded - start, 6),
            phases=guided,
            phase_time_s=round(phase_s, 6),
        )
        if self.neighbour is not None:
            stats["neighbour_solutions"] = neighbours
        if not complete and stop is not None and stop.is_set():
            stats["stopped"] = stop.reason
        return self._result(solutions, limit, complete, start, stats)

    def _result(self, solutions: list[np.ndarray], limit: int, complete: bool, start: float,
                stats: dict) -> SolveResult:
        """The result of an enumeration (:func:`_enumerate`) that began at ``start``
        (:func:`time.perf_counter`)."""
        return SolveResult(
            status=Status.from_search(len(solutions), limit, complete),
            solutions=solutions,
            engine=self.name,
            exhausted=complete and len(solutions) < limit,
            time_s=time.perf_counter() - start,
            stats=stats,
        )

    def _initial_phases(
        self, puzzle: Puzzle, partial: np.ndarray | None, nvars: int,
        stop: StopToken | None = None,
    ) -> list[int]:
        """Initial phases: belief propagation over the lines (:mod:`nonosat.encodings.phases`),
        on the cells and, for the order encoding, on its block-start variables (``stop`` read
        between the iterations)."""
        from nonosat.encodings.phases import cell_phases, order_phases

        if self.encoding == "order":
            return order_phases(puzzle, partial, nvars, stop=stop)
        return cell_phases(puzzle, partial)

    def _neighbour(
        self, puzzle: Puzzle, solution: np.ndarray, partial: np.ndarray | None,
        solutions: list[np.ndarray],
    ) -> np.ndarray | None:
        """A new solution from :attr:`neighbour`, checked against the clues, ``partial`` and the
        solutions found; ``None`` otherwise."""
        if self.neighbour is None:
            return None
        other = self.neighbour(puzzle, solution)
        if other is None or not puzzle.is_solution(other):
            return None
        if partial is not None:
            given = np.isin(partial, (Cell.EMPTY, Cell.FILLED))
            if np.any(other[given] != (np.asarray(partial)[given] == Cell.FILLED)):
                return None
        if any(np.array_equal(other, s) for s in solutions):
            return None
        return other

    def _solve_colour(
        self,
        puzzle: Puzzle,
        partial: np.ndarray | None,
        limit: int,
        deadline: float | None,
        start: float,
        stop: StopToken | None = None,
    ) -> SolveResult:
        """A colour puzzle: the encoding of :mod:`nonosat.encodings.cnf_colour` (``partial``
        holds colour bit masks), enumerated with blocking clauses."""
        from nonosat.encodings.cnf_colour import encode_colour

        enc = encode_colour(puzzle, partial)
        encoded = time.perf_counter()
        solutions: list[np.ndarray] = []
        with SatRun(enc.clauses, self.solver, stop=_brief(stop)) as run:
            complete = _enumerate(run, enc.solution, enc.blocking_clause, solutions, limit,
                                  deadline, stop)
            stats = run.stats()
        stats.update(
            encoding="colour-starts",
            variables=enc.nvars,
            clauses=len(enc.clauses),
            encode_time_s=round(encoded - start, 6),
        )
        return self._result(solutions, limit, complete, start, stats)


def _brief(stop: StopToken | None) -> StopToken | None:
    """The token for the engine's :class:`SatRun`: ``stop`` when it asks for a bounded latency
    (:attr:`nonosat.stop.StopToken.latency`, the studio's jobs), whose run then makes short
    calls; else ``None`` (the CLI's long calls; ``stop`` is still read between them)."""
    return stop if stop is not None and stop.latency is not None else None


def _enumerate(
    run: SatRun, decode: Callable[[list[int]], np.ndarray],
    block: Callable[[np.ndarray], list[int]], solutions: list[np.ndarray], limit: int,
    deadline: float | None, stop: StopToken | None,
    found: Callable[[np.ndarray], None] | None = None,
) -> bool:
    """Solve, decode the model (``decode``), append the solution to ``solutions`` and block it
    (``block``), until ``limit`` solutions, no other solution, the ``deadline`` or a set
    ``stop``; ``found(solution)`` runs after each (it may append and block more).  Returns
    whether the enumeration ran to its end (``False``: stopped by time)."""
    while len(solutions) < limit:
        answer = run.solve(deadline, stop)
        if answer is None:
            return False
        if not answer:
            return True
        solution = decode(run.model())
        solutions.append(solution)
        run.add_clause(block(solution))
        if found is not None:
            found(solution)
    return True


#: CaDiCaL's options for :func:`other_than`: stable mode only, so that the search keeps to
#: the phases of the picture from its first decision.  On the burst drawing of
#: ``benchmarks/bench_studio_draw.py`` (100x100) the default options took 1,004 conflicts
#: (0.35 s) in one call and never ended in the 40 ms calls a stop token asks for (restarts
#: undid the guidance: still undecided after 5 s); stable mode: 1 conflict, 26 ms.
OTHER_THAN_OPTIONS = {"stabilizeonly": 1}


def other_than(puzzle: Puzzle, goal: np.ndarray, partial: np.ndarray | None = None, *,
               deadline: float, stop: StopToken | None = None) -> SolveResult:
    """The verdict of a drawing whose picture ``goal`` is known to be a solution: one SAT call,
    "a solution other than ``goal``", with the solver's phases on ``goal``.

    Where the search for a first solution is the hard part (24 short strokes scattered over an
    empty 100x100 board: rows of one block, columns of single cells, a packing problem on which
    the native engine and the SAT engine's ``limit=2`` enumeration both ran past 5 s), the
    drawing already is that solution, and a second one, when there is one, lies near it
    (solution-guided search, as the map's witnesses: :mod:`nonosat.analysis.backbone`): the
    call takes tens of milliseconds there (:data:`OTHER_THAN_OPTIONS`).  The formula is the SAT
    engine's (the order encoding, :func:`nonosat.encodings.cnf_order.encode_order_flat`, with
    ``partial``'s cells as units).  The studio asks it of a drawing (:mod:`nonosat.studio.quick`).

    Returns
    -------
    SolveResult
        ``UNIQUE`` (solutions ``[goal]``) when no other solution exists, ``MULTIPLE``
        (``[goal, other]``, ``other`` checked against the clues) when one does, ``UNKNOWN``
        (``[goal]``) at the ``deadline`` (``time.perf_counter()`` value) or once ``stop`` is
        set; engine ``"sat"``.
    """
    from nonosat.encodings.cnf_order import encode_order_flat

    start = time.perf_counter()
    lits, ends, nvars = encode_order_flat(puzzle, partial)
    cells = np.arange(1, goal.size + 1)
    agree = np.where(goal.ravel(), cells, -cells)
    solutions = [goal]
    complete = False
    with SatRun([], flat=(lits, ends), options=OTHER_THAN_OPTIONS, stop=stop) as run:
        del lits, ends
        run.set_phases(agree.tolist())
        run.add_clause((-agree).tolist())  # some cell differs from the picture
        answer = run.solve(deadline, stop)
        if answer is not None:
            complete = True
            if answer:
                model = np.asarray(run.model()[: goal.size], dtype=np.int64)
                other = (model > 0).reshape(goal.shape)
                if not puzzle.is_solution(other) or np.array_equal(other, goal):
                    raise AssertionError("the SAT model is not another solution: an encoding "
                                         "bug")
                solutions.append(other)
        stats = run.stats()
    stats.update(encoding="order", variables=nvars, from_picture=True)
    status = (Status.MULTIPLE if len(solutions) > 1 else Status.UNIQUE if complete
              else Status.UNKNOWN)
    return SolveResult(status=status, solutions=solutions, engine="sat",
                       exhausted=complete and len(solutions) < 2,
                       time_s=time.perf_counter() - start, stats=stats)
