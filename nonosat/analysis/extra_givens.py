"""Extra givens that make the solution of a puzzle with several solutions unique.

A greedy set of cells to reveal: repeatedly give a cell (among those two solutions found
disagree on) -- for black-and-white the one whose value, added to the givens, leaves the fewest
cells open after propagation and probing -- until the solution is the only one; then drop every
given the others make redundant.  The result is *irredundant* (no single given can be removed)
but not necessarily *minimum* (finding the smallest set is a much harder problem).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from nonosat import interrupts
from nonosat.engines import Status, solve
from nonosat.puzzle import Cell, Puzzle, solution_to_grid, unknown_grid
from nonosat.stop import StopToken


@dataclass
class UniquenessGivens:
    """Extra given cells that make a puzzle's solution unique.

    Attributes
    ----------
    cells : list of ((row, col), bool or int)
        The givens, 0-based, with their value (``True`` = filled; colour: the colour index), in
        the order chosen.
    target : ndarray of bool, shape (height, width)
        The solution the givens select (the puzzle's goal picture if it is a solution, else the
        first solution found).
    unique : bool
        Whether the puzzle with these givens was proved unique (``False`` if time ran out).
    minimal : bool
        Always ``False``: the set is greedy and irredundant, not proved minimum.
    solves : int
        Engine calls made.
    """

    cells: list[tuple[tuple[int, int], bool | int]] = field(default_factory=list)
    target: np.ndarray | None = None
    unique: bool = False
    minimal: bool = False
    solves: int = 0


def _open_after_logic(puzzle: Puzzle, grid: np.ndarray, stop: StopToken | None = None) -> int:
    from nonosat.analysis.logic import closure
    from nonosat.stop import Stopped

    try:
        fixed = closure(puzzle, "probing", stop=stop)(grid)
    except Stopped:  # probing cut short: no fixpoint to score (scored last; the loop ends)
        return int(puzzle.height * puzzle.width)
    return int(puzzle.height * puzzle.width) if fixed is None else int((fixed == 3).sum())


def uniqueness_givens(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None = None,
    *,
    engine: str = "native",
    timeout: float | None = None,
    max_candidates: int = 64,
    stop: StopToken | None = None,
) -> UniquenessGivens:
    """A greedy, irredundant set of extra givens that makes the solution unique.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white or colour (:func:`_colour_givens`).
    solutions : list of ndarray of bool (colour: int8 colour indices)
        At least two distinct solutions.
    known : ndarray, shape (height, width), optional
        Cells fixed by logic (not counted as givens): int8 cells, or colour masks.
    engine : str
        Engine for the uniqueness checks (black-and-white).
    timeout : float, optional
        Seconds for the whole computation.
    max_candidates : int
        At most this many candidate cells are scored per round (those first in reading order).
    stop : StopToken, optional
        Handed to the solves and the probing kernels, and read between candidates: once set,
        the search ends as at its time limit (``unique`` false unless already proved).

    Returns
    -------
    UniquenessGivens
    """
    deadline = None if timeout is None else time.perf_counter() + timeout
    target = solutions[0]
    if (puzzle.goal is not None and np.asarray(puzzle.goal).shape == puzzle.shape
            and puzzle.is_solution(puzzle.goal)):
        target = puzzle.goal
    if puzzle.is_colour:
        return _colour_givens(puzzle, np.asarray(target, dtype=np.int8), known, deadline, stop)
    target = np.asarray(target, dtype=bool)
    base = unknown_grid(puzzle) if known is None else np.asarray(known, dtype=np.int8).copy()
    target_grid = solution_to_grid(target)
    out = UniquenessGivens(target=target)

    def left() -> float | None:
        return None if deadline is None else max(deadline - time.perf_counter(), 0.0)

    def over() -> bool:
        return (stop is not None and stop.is_set()) or (
            deadline is not None and time.perf_counter() >= deadline)

    def with_givens(cells: list[tuple[int, int]]) -> np.ndarray:
        grid = base.copy()
        for cell in cells:
            grid[cell] = target_grid[cell]
        return grid

    chosen: list[tuple[int, int]] = []
    others = [np.asarray(s, dtype=bool) for s in solutions if not np.array_equal(s, target)]
    while True:
        if not others:
            result = solve(puzzle, engine, partial=with_givens(chosen), limit=2, timeout=left(),
                           stop=stop)
            out.solves += 1
            if result.status != Status.MULTIPLE:
                out.unique = result.status == Status.UNIQUE
                break
            others = [s for s in result.solutions if not np.array_equal(s, target)]
        current = with_givens(chosen)
        differ = (others[0] != target) & (current == Cell.UNKNOWN)
        cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(differ), strict=True)]
        # score candidates (at least one) until the deadline
        best, best_open = cells[0], None
        for cell in cells[:max_candidates]:
            if best_open is not None and over():
                break
            n_open = _open_after_logic(puzzle, with_givens([*chosen, cell]), stop)
            if best_open is None or n_open < best_open:
                best, best_open = cell, n_open
        chosen.append(best)
        others = [s for s in others if s[best] == target[best]]
        if over():
            break
    if out.unique:
        for cell in list(reversed(chosen)):
            if over():
                break
            rest = [c for c in chosen if c != cell]
            result = solve(puzzle, engine, partial=with_givens(rest), limit=2, timeout=left(),
                           stop=stop)
            out.solves += 1
            if result.status == Status.UNIQUE:
                chosen = rest
    out.cells = [(cell, bool(target[cell])) for cell in chosen]
    return out


def _colour_givens(
    puzzle: Puzzle, target: np.ndarray, known: np.ndarray | None, deadline: float | None,
    stop: StopToken | None = None,
) -> UniquenessGivens:
    """:func:`uniqueness_givens` of a colour puzzle: give a cell on which the target and another
    solution differ (its target colour) until no other solution is left, then drop every given
    the others make redundant.

    One incremental SAT solver (CaDiCaL through PySAT) holds the colour CNF
    (:func:`nonosat.encodings.cnf_colour.encode_colour`, restricted to ``known``, a state of
    colour masks every solution agrees with) and the clause "some cell differs from the
    target"; each check solves it under the givens as assumptions: unsatisfiable means the
    givens make the target the only solution, a model is another solution.  ``cells`` of the
    result hold colour indices; ``unique`` is ``False`` when ``deadline`` (a
    ``time.perf_counter()`` value) passed first.
    """
    from pysat.solvers import Solver

    from nonosat.encodings.cnf_colour import encode_colour
    from nonosat.encodings.satsolver import DEFAULT_SOLVER, solver_name

    out = UniquenessGivens(target=target)
    enc = encode_colour(puzzle, None if known is None else np.asarray(known, dtype=np.int32))
    open_cells = (np.ones(puzzle.shape, dtype=bool) if known is None
                  else (np.asarray(known) & (np.asarray(known) - 1)) != 0)

    def lit(r: int, c: int) -> int:
        return enc.cell_var(r, c, int(target[r, c]))

    interrupts.before_blocking()  # CaDiCaL holds the GIL (nonosat.encodings.satsolver)
    with Solver(name=solver_name(DEFAULT_SOLVER), bootstrap_with=enc.clauses) as sat:
        sat.add_clause([-lit(int(r), int(c)) for r, c in np.argwhere(open_cells)])

        def other(givens: list[tuple[int, int, int]]) -> np.ndarray | bool | None:
            """Another solution with ``givens``; ``False`` if none; ``None`` at the deadline."""
            assumptions = [lit(r, c) for r, c, _ in givens]
            while True:
                if ((deadline is not None and time.perf_counter() >= deadline)
                        or (stop is not None and stop.is_set())):
                    return None
                # budgeted calls, also without a deadline: CaDiCaL cannot be interrupted
                # otherwise (nonosat.encodings.satsolver), and an interrupt is checked between
                sat.conf_budget(5_000 if stop is None else 500)
                answer = sat.solve_limited(assumptions=assumptions)
                interrupts.check()
                if answer is None:
                    continue
                return enc.solution(sat.get_model()) if answer else False

        givens: list[tuple[int, int, int]] = []
        found = other(givens)
        while found is not False:
            out.solves += 1
            if found is None:
                break
            r, c = (int(v) for v in np.argwhere(found != target)[0])
            givens.append((r, c, int(target[r, c])))
            found = other(givens)
        out.unique = found is False
        for given in list(reversed(givens)):
            if len(givens) == 1 or not out.unique:
                break
            rest = [g for g in givens if g != given]
            found = other(rest)
            out.solves += 1
            if found is None:
                break
            if found is False:
                givens = rest
    out.cells = [((r, c), k) for r, c, k in givens]
    return out
