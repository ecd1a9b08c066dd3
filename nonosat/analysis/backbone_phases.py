"""The SAT phases of the ambiguity map (:func:`nonosat.analysis.backbone.ambiguity_map`): how
one incremental solver narrows the candidate cells to the ambiguous ones and the backbone.

Three ways of narrowing, for any encoding (black-and-white or colour), over one
:class:`~nonosat.encodings.satsolver.SatRun`:

* :func:`_guided_witnesses`: solution-guided enumeration, each solution blocked, the solver's
  phases on the last one found;
* :func:`_differs_query`: the chunking query "some candidate differs from the reference"
  (Janota, Lynce and Marques-Silva, AI Communications 28(2), 2015);
* :func:`_cell_checks`: one candidate at a time under an assumption, with a conflict budget
  (CadiBack, Biere, Froleyks and Wang, FMCAD 2023);

and :func:`_narrow`, which runs them in turns until the deadline.  What a puzzle's encoding
contributes (the literals, the decoding, line propagation from proven cells) comes from
:mod:`nonosat.analysis.backbone`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.puzzle import Puzzle
from nonosat.stop import StopToken

#: Share of the time left in its turn that one call of the "some candidate differs" query may
#: take: a call that takes longer ends the turn (the query has stalled).
CHUNK_SHARE = 0.5
#: Share of the time left that the "some candidate differs" query gets per turn (tuned on
#: Faase at 30 s and 120 s: 0.25-0.6 with CHUNK_SHARE 0.5-1 differ by under 5% of cells).
CHUNK_TURN_SHARE = 0.6
#: Share of the time left given to per-cell checks before the query gets its turn again.
CELL_ROUND_SHARE = 0.5
#: Seconds left below which the map stops alternating.
MIN_ROUND_S = 0.05
#: Conflicts per cell in the first round of :func:`_cell_checks`; each later round multiplies
#: it by :data:`CELL_BUDGET_GROWTH`.
CELL_FIRST_BUDGET = 300
#: A per-cell call that would get fewer conflicts than this before the deadline is not made.
MIN_CELL_BUDGET = 50
CELL_BUDGET_GROWTH = 10
#: Share of the time left that the map (:func:`~nonosat.analysis.backbone._chunked_backbone`)
#: gives its guided-witness phase.
WITNESS_SHARE = 0.25
#: Most seconds of the guided-witness phase (also its limit when there is no deadline).
WITNESS_MAX_S = 10.0
#: Witnesses in a row that make no new cell ambiguous before the guided phase stops.
WITNESS_STALE = 8


def _narrow(
    puzzle: Puzzle, enc: Any, run: Any, witnesses: list[np.ndarray], candidate: np.ndarray,
    ref: np.ndarray, deadline: float | None, *, differs: Callable[[np.ndarray], list[int]],
    guided: bool, block: Callable[[np.ndarray], list[int]] | None = None,
    phase_lits: Callable[[np.ndarray], list[int]] | None = None,
    cells: _CellRounds | None = None, stop: StopToken | None = None,
) -> np.ndarray:
    """The phases of :func:`~nonosat.analysis.backbone._chunked_backbone` over ``run`` (the
    puzzle's CNF ``enc``), for any encoding (black-and-white or colour,
    :func:`~nonosat.analysis.backbone._colour_narrow`): the guided witnesses when ``guided``
    (the solver takes phases; ``block``/``phase_lits`` as :func:`_guided_witnesses`), then the
    clause ``differs(candidate)`` ("some candidate differs from the reference") until
    unsatisfiable or the deadline.  ``witnesses`` grows and ``candidate`` (bool, (h, w))
    narrows in place; returns the candidates left undecided.

    With a deadline and ``cells`` (the per-cell checks' literals and state), the
    "differs" query (:data:`CHUNK_TURN_SHARE` of the time left; a call that takes
    :data:`CHUNK_SHARE` of its turn ends the turn) and per-cell checks (:func:`_cell_checks`,
    :data:`CELL_ROUND_SHARE` of the time left) take turns until the deadline, the solver
    keeping its learnt clauses, so that a puzzle whose whole backbone is out of reach still
    gets most of its cells decided, and one whose query needs more than one turn still gets
    the time.  A set ``stop`` ends every phase between two SAT calls (the candidates left are
    undecided).
    """
    if guided:
        _guided_witnesses(puzzle, enc, run, witnesses, candidate, ref, deadline,
                          block=block, phase_lits=phase_lits, stop=stop)
    if deadline is None or cells is None:
        _differs_query(puzzle, enc, run, witnesses, candidate, ref, deadline, differs,
                       stop=stop)
        return candidate.copy()
    phases = cells.agree.tolist() if phase_lits is None else phase_lits(ref)
    clause_over = [-1]  # candidates in the last "differs" clause added
    while candidate.any() and not _stopped(stop):
        now = time.perf_counter()
        if deadline - now < MIN_ROUND_S:
            break
        turn = now + CHUNK_TURN_SHARE * (deadline - now)
        if _differs_query(puzzle, enc, run, witnesses, candidate, ref, turn, differs,
                          clause_over, share=CHUNK_SHARE, stop=stop):
            break
        now = time.perf_counter()
        until = now + CELL_ROUND_SHARE * max(deadline - now, 0.0)
        if _cell_checks(puzzle, enc, run, witnesses, candidate, ref, until, cells, phases,
                        stop):  # positional: tests wrap it as (*args)
            cells.next_round()  # every candidate tried at this budget
    return candidate.copy()


def _stopped(stop: StopToken | None) -> bool:
    return stop is not None and stop.is_set()


def _differs_query(
    puzzle: Puzzle, enc: Any, run: Any, witnesses: list[np.ndarray], candidate: np.ndarray,
    ref: np.ndarray, until: float | None, differs: Callable[[np.ndarray], list[int]],
    clause_over: list[int] | None = None, share: float | None = None,
    stop: StopToken | None = None,
) -> bool:
    """Chunking (module docstring): add "some candidate differs from ``ref``" and solve, each
    model a witness that narrows ``candidate`` (in place), until unsatisfiable (every candidate
    left is backbone: ``candidate`` is cleared) or ``until`` (or a set ``stop``); with ``share``,
    also as soon as one call takes more than that share of the time left before ``until`` (the
    query has stalled).
    Returns whether the candidates are all decided.  ``clause_over`` (one int, kept by the
    caller across calls): the number of candidates of the last clause added; the clause is not
    added again for the same ones."""
    while candidate.any():
        if _stopped(stop):
            return False
        count = int(candidate.sum())
        if clause_over is None or clause_over[0] != count:
            run.add_clause(differs(candidate))
            if clause_over is not None:
                clause_over[0] = count
        call_until = until
        if until is not None and share is not None:
            now = time.perf_counter()
            call_until = now + share * max(until - now, 0.0)
        answer = run.solve(call_until, stop)
        if answer is None:
            return False
        if not answer:
            candidate[:] = False
            return True
        _take_witness(puzzle, enc, run, witnesses, candidate, ref)
    return True


def _take_witness(
    puzzle: Puzzle, enc: Any, run: Any, witnesses: list[np.ndarray], candidate: np.ndarray,
    ref: np.ndarray,
) -> np.ndarray:
    """The solution of ``run``'s last model, checked against the clues, appended to
    ``witnesses``; every candidate on which it differs from ``ref`` is cleared (in place)."""
    other = enc.solution(run.model())
    if not puzzle.is_solution(other):  # pragma: no cover - would be an encoding bug
        raise AssertionError("the backbone SAT model is not a solution")
    witnesses.append(other)
    candidate &= other == ref
    return other


@dataclass
class _CellRounds:
    """What the per-cell checks (:func:`_cell_checks`) of one map need and keep across turns.

    Attributes
    ----------
    agree : ndarray of int, shape (h*w,)
        Each cell's literal "the cell has its value in the reference" (its negation is the
        assumption, the literal itself the unit of a proved cell).
    settle : callable
        Line propagation from the cells proved so far
        (:func:`~nonosat.analysis.backbone._line_settle`): given the cells just proved (bool,
        (h, w)), returns the further cells that follow (bool, (h, w)).
    budget : int
        Conflicts per cell in this round.
    pace : float or None
        Seconds per conflict of the last call that used its whole budget.
    tried : ndarray of bool, shape (h*w,)
        Cells out of budget in this round.
    """

    agree: np.ndarray
    settle: Callable[[np.ndarray], np.ndarray]
    budget: int = field(init=False)
    pace: float | None = None
    tried: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.budget = CELL_FIRST_BUDGET
        self.tried = np.zeros(self.agree.size, dtype=bool)

    def next_round(self) -> None:
        """Every candidate was tried at this budget: the next round, :data:`CELL_BUDGET_GROWTH`
        times the budget, tries them all again."""
        self.budget *= CELL_BUDGET_GROWTH
        self.tried[:] = False


def _cell_checks(
    puzzle: Puzzle, enc: Any, run: Any, witnesses: list[np.ndarray], candidate: np.ndarray,
    ref: np.ndarray, until: float, cells: _CellRounds, phases: list[int],
    stop: StopToken | None = None,
) -> bool:
    """One round of per-cell backbone checks (the one-literal-at-a-time algorithm of Janota,
    Lynce and Marques-Silva 2015, with model filtering and a conflict budget, as in
    CadiBack, Biere, Froleyks and Wang, FMCAD 2023): for each candidate cell in reading order,
    solve under the assumption that it differs from ``ref`` within ``cells.budget`` conflicts,
    the solver's phases on ``ref`` (``phases``) so that a model is a nearby solution.

    * satisfiable: a witness, which clears every candidate it flips;
    * unsatisfiable: the cell is backbone; its value is added as a unit clause and
      ``cells.settle`` (line propagation from every cell proven so far) returns the further
      cells that follow, backbone too, added likewise;
    * out of budget: left for the next round.

    A call never gets more conflicts than fit in the time left at ``cells.pace`` (updated
    here), so that a large budget cannot run far past ``until``.

    ``candidate`` (bool, (h, w)) narrows in place, ``cells.tried`` grows, until every candidate
    was tried (returns ``True``) or ``until`` or a set ``stop`` (returns ``False``)."""
    run.set_phases(phases)
    while time.perf_counter() < until:
        if _stopped(stop):
            return False
        left = np.flatnonzero(candidate.ravel() & ~cells.tried)
        if left.size == 0:
            return True
        i = int(left[0])
        allowed = cells.budget
        if cells.pace is not None:
            allowed = min(allowed, int((until - time.perf_counter()) / cells.pace))
            if allowed < MIN_CELL_BUDGET:
                return False
        start = time.perf_counter()
        answer = run.solve_limited([-int(cells.agree[i])], allowed)
        if answer is None and _stopped(stop):
            return False
        if answer is None:
            cells.pace = (time.perf_counter() - start) / allowed
            cells.tried[i] = True
        elif answer:
            _take_witness(puzzle, enc, run, witnesses, candidate, ref)
        else:
            proven = np.zeros(ref.size, dtype=bool)
            proven[i] = True
            proven |= cells.settle(proven.reshape(ref.shape)).reshape(-1)
            for j in np.flatnonzero(proven):
                run.add_clause([int(cells.agree[j])])
            candidate &= ~proven.reshape(ref.shape)
    return False


def _guided_witnesses(
    puzzle: Puzzle, enc: Any, run: Any, witnesses: list[np.ndarray], candidate: np.ndarray,
    ref: np.ndarray, deadline: float | None, *,
    block: Callable[[np.ndarray], list[int]] | None = None,
    phase_lits: Callable[[np.ndarray], list[int]] | None = None,
    stop: StopToken | None = None,
) -> None:
    """Phase 1 of :func:`~nonosat.analysis.backbone._chunked_backbone` (black-and-white and
    colour): solution-guided witnesses appended to ``witnesses``, ``candidate`` (bool, (h, w))
    narrowed in place.

    ``enc.solution(model)`` decodes a model; ``block(solution)`` is the clause excluding one
    solution and ``phase_lits(solution)`` the literals that steer the solver to it (defaults:
    black-and-white cell variables ``1 .. h*w``)."""
    from nonosat.encodings.cnf import blocking_clause

    cells = np.arange(1, ref.size + 1)
    if block is None:
        block = blocking_clause
    if phase_lits is None:
        def phase_lits(sol: np.ndarray) -> list[int]:
            return np.where(sol.ravel(), cells, -cells).tolist()

    now = time.perf_counter()
    share = WITNESS_MAX_S if deadline is None else min(WITNESS_MAX_S,
                                                       WITNESS_SHARE * (deadline - now))
    until = now + share
    for sol in witnesses:
        run.add_clause(block(sol))
    last = witnesses[-1]
    stale = 0
    while (candidate.any() and stale < WITNESS_STALE and time.perf_counter() < until
           and not _stopped(stop)):
        run.set_phases(phase_lits(last))
        answer = run.solve(until, stop)
        if not answer:  # no other solution (the phase-2 clause then proves it) or out of time
            return
        before = int(candidate.sum())
        last = _take_witness(puzzle, enc, run, witnesses, candidate, ref)
        run.add_clause(block(last))
        stale = stale + 1 if int(candidate.sum()) == before else 0
