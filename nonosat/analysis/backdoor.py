"""A smallest backdoor: the fewest cells whose values, once given, make logic solve the rest.

For a puzzle with a unique solution ``s``, a set ``B`` of cells is a *backdoor* to line logic
when line propagation from the givens ``{(cell, s[cell]) : cell in B}`` fixes every cell
(optionally: propagation and failed-literal probing, ``logic="probing"``).  A smallest backdoor
measures how far a puzzle is from line-solvable: the number of cells a setter would have to
print as givens.  For a puzzle with several solutions the definition is the same for one
chosen solution ``s``; logic being sound, a backdoor of ``s`` also makes ``s`` the only
solution with those givens (the size depends on the solution chosen).

Algorithm: **implicit hitting sets**, as in MaxHS (Davies and Bacchus, "Solving MAXSAT by
solving a sequence of simpler SAT instances", CP 2011; "Exploiting the power of MIP solvers in
MaxSAT", SAT 2013) and in the search for smallest clue sets of Sudoku-like puzzles.  The closure
``L(B)`` (the cells logic fixes from the givens ``B``) is monotone and idempotent.  So if the
givens ``B`` leave the cells ``U(B)`` open, a backdoor ``D`` with no cell in ``U(B)`` would lie
inside ``L(B)``, and ``L(D) <= L(L(B)) = L(B)`` would leave ``U(B)`` open: *every backdoor holds
a cell of* ``U(B)``.  These sets are collected; a minimum hitting set ``H`` of them (exact, by
the MaxSAT solver RC2 of PySAT: hard clauses = the sets, soft unit clauses ``not x_cell``) is a
lower bound on the backdoor size; when ``U(H)`` is empty, ``H`` is a smallest backdoor (exact);
otherwise ``H`` is grown, in a random order, to a maximal set of givens that still leaves cells
open (each open cell is added unless it would solve the puzzle), and what that leaves open -- a
small set, since adding any one of its cells solves the puzzle, and a subset of ``U(H)`` -- is
the next set (the core-minimising "grow" of MaxHS).  Now and then ``H`` is also completed
greedily (adding the sampled open cell that leaves fewest open) to a backdoor, made irredundant:
an upper bound, and every set met on the way is collected too.  Candidate cells are the cells open at the root fixpoint (a cell logic fixes
without givens adds nothing as a given).

The search stops at its time limit with the best backdoor found and the lower bound proved (the
last hitting-set optimum): the result says which (:attr:`Backdoor.exact`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.native.stepping import Stepper
from nonosat.puzzle import Cell, Puzzle, solution_to_grid, unknown_grid

#: Cells tried per greedy step (a sample of the open cells, spread over the grid).
GREEDY_SAMPLE = 24
#: The quick backdoor after a timeout gives ``len(open) // QUICK_BATCH_DIVISOR`` (at least one)
#: random open cells per closure.
QUICK_BATCH_DIVISOR = 16


@dataclass
class Backdoor:
    """Result of :func:`smallest_backdoor`.

    Attributes
    ----------
    cells : list of ((row, col), bool)
        The backdoor found (0-based cells, ``True`` = filled; a colour index, ``int``, with a
        caller's ``close``), sorted.
    exact : bool
        Proved smallest (``len(cells) == lower_bound``).
    lower_bound : int
        Every backdoor has at least this many cells.
    logic : str
        ``"line"`` or ``"probing"``: the logic the givens are completed by.
    candidates : int
        Cells open at the root fixpoint (the cells a backdoor is chosen among).
    sets : int
        Open-cell sets collected (hitting-set constraints).
    iterations : int
        Minimum hitting sets computed.
    time_s : float
    finished : bool
        ``False`` when the time limit stopped the search.
    several : bool
        The puzzle has several solutions: the backdoor is that of the solution given to
        :func:`smallest_backdoor` (its givens also make that solution the only one), and the
        bound holds for that solution.
    """

    cells: list[tuple[tuple[int, int], bool | int]] = field(default_factory=list)
    exact: bool = False
    lower_bound: int = 0
    logic: str = "line"
    candidates: int = 0
    sets: int = 0
    iterations: int = 0
    time_s: float = 0.0
    finished: bool = True
    several: bool = False

    @property
    def size(self) -> int:
        return len(self.cells)

    def describe(self) -> str:
        """``"3 cells (exact: proved smallest)"`` / ``"7 cells (best found in the time limit;
        every backdoor has at least 4)"`` / ``"0 cells (line solving alone solves it)"``."""
        n = self.size
        head = f"{n} cell{'s' if n != 1 else ''}"
        if self.candidates == 0:
            if self.logic == "line":
                return f"{head} (line solving alone solves it)"
            return f"{head} (line solving and probing alone solve it)"
        if self.exact:
            return f"{head} (exact: proved smallest)"
        return (f"{head} (best found in the time limit; every backdoor has at least "
                f"{self.lower_bound})")

    def to_json(self) -> dict[str, Any]:
        return {"logic": self.logic, "size": self.size, "exact": self.exact,
                "lower_bound": self.lower_bound,
                "cells": [{"row": r + 1, "col": c + 1, "value": "filled" if v else "empty"}
                          for (r, c), v in self.cells],
                "candidates": self.candidates, "sets": self.sets, "iterations": self.iterations,
                "time_s": round(self.time_s, 6), "finished": self.finished,
                "several_solutions": self.several}


def closure(puzzle: Puzzle, grid: np.ndarray, logic: str = "line") -> np.ndarray | None:
    """The fixpoint of ``logic`` (``"line"``: line propagation; ``"probing"``: propagation and
    failed-literal probing) from ``grid``; ``None`` on a contradiction
    (:func:`nonosat.analysis.logic.closure`)."""
    from nonosat.analysis.logic import closure as closure_of

    return closure_of(puzzle, logic)(grid)


class _LineClosure:
    """Line propagation from the root fixpoint plus givens, on one reused solver state (a
    :class:`~nonosat.native.stepping.Stepper`'s :meth:`~nonosat.native.stepping.Stepper.what_if`:
    assume the givens, propagate, undo to the root in one compiled call; only the givens' rows
    and columns are queued, the root being a fixpoint): no fresh state,
    line cache or deduction list per call as :func:`closure` builds (7 ms a call on Forever,
    webpbn #6574, against about 0.3 ms here)."""

    def __init__(self, puzzle: Puzzle, target: np.ndarray):
        self.stepper = Stepper(puzzle)
        self.ok = self.stepper.propagate() is not None
        self.target = np.ascontiguousarray(target, dtype=np.int8).reshape(-1)

    def root(self) -> np.ndarray:
        return self.stepper.grid()

    def open_after(self, givens: list[int]) -> list[int] | None:
        """Flat indices of the cells left unknown with the flat cells ``givens`` set as in the
        target; ``None`` on a contradiction."""
        cells = np.asarray(givens, dtype=np.int64)
        left = self.stepper.what_if(cells, self.target[cells])
        return None if left is None else left.tolist()


def smallest_backdoor(
    puzzle: Puzzle,
    solution: np.ndarray,
    *,
    logic: str = "line",
    timeout: float | None = 10.0,
    seed: int = 0,
    several: bool = False,
    close: Callable[[np.ndarray], np.ndarray | None] | None = None,
    start_grid: np.ndarray | None = None,
    target_grid: np.ndarray | None = None,
) -> Backdoor:
    """A smallest set of cells whose values (from ``solution``) make ``logic`` solve the rest,
    by implicit hitting sets (module docstring).

    Parameters
    ----------
    puzzle : Puzzle
        With the solution ``solution`` (black-and-white or colour).
    solution : ndarray of bool (colour: int colour indices), shape (height, width)
    logic : str
        ``"line"`` (line propagation) or ``"probing"`` (propagation and failed-literal probing).
    timeout : float, optional
        Seconds; on expiry the best backdoor found is returned with the proved lower bound.
    seed : int
        Seed of the greedy step's sampling.
    several : bool
        The puzzle has several solutions and ``solution`` is one of them (recorded in
        :attr:`Backdoor.several`; the search is the same: the givens then also select
        ``solution`` as the only one).
    close, start_grid, target_grid : optional, together
        Another logic over another kind of grid state (colour puzzles get the colour
        closure, :func:`nonosat.analysis.logic.closure`, when they are omitted):
        ``close(grid)`` returns the fixpoint of the logic from ``grid`` (a new array, ``None``
        on a contradiction; it must be monotone and idempotent), ``start_grid`` is the state with nothing known and
        ``target_grid`` the state of the solution; a cell is open when its state differs from
        the target's, and the backdoor's values are ``solution``'s (``int``).  ``logic`` then
        only names the logic.

    Returns
    -------
    Backdoor
    """
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout
    if close is None and puzzle.is_colour:  # the colour closure over colour masks
        from nonosat.analysis.logic import closure as closure_of
        from nonosat.analysis.logic import full_grid

        close = closure_of(puzzle, logic)
        start_grid = full_grid(puzzle)
        target_grid = (1 << np.asarray(solution, dtype=np.int64)).astype(np.int32)
    if close is None:
        sol = np.asarray(solution, dtype=bool)
        target = solution_to_grid(sol)
        fast = _LineClosure(puzzle, target) if logic == "line" else None
        if fast is not None:
            root = fast.root() if fast.ok else None
        else:
            root = closure(puzzle, unknown_grid(puzzle), logic)

        def close_open(grid: np.ndarray) -> list[int] | None:
            fixed = closure(puzzle, grid, logic)
            return None if fixed is None else np.nonzero(fixed.reshape(-1) == Cell.UNKNOWN)[0].tolist()

        def value(k: int) -> bool | int:
            return bool(sol.reshape(-1)[k])
    else:  # a caller's logic (colour): open = differs from the target state
        if start_grid is None or target_grid is None:
            raise ValueError("close needs start_grid and target_grid")
        sol = np.asarray(solution)
        target = np.asarray(target_grid)
        fast = None
        root = close(np.asarray(start_grid).copy())

        def close_open(grid: np.ndarray) -> list[int] | None:
            fixed = close(grid)
            return None if fixed is None else np.nonzero(
                fixed.reshape(-1) != target.reshape(-1))[0].tolist()

        def value(k: int) -> bool | int:
            return int(sol.reshape(-1)[k])
    if root is None:
        raise ValueError("the puzzle has no solution: no backdoor")
    # cells as flat indices (row * width + col) inside the search
    if close is None:
        cand = np.nonzero(root.reshape(-1) == Cell.UNKNOWN)[0].tolist()
    else:
        cand = np.nonzero(root.reshape(-1) != target.reshape(-1))[0].tolist()
    out = Backdoor(logic=logic, candidates=len(cand), several=several)
    if not cand:
        out.exact = True
        out.time_s = time.perf_counter() - start
        return out
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    var = {cell: k + 1 for k, cell in enumerate(cand)}
    rng = np.random.default_rng(seed)

    w = puzzle.width
    flat_target = target.reshape(-1)

    def open_after(givens: list[int]) -> list[int]:
        if fast is not None:
            left = fast.open_after(givens)
        else:
            grid = root.copy().reshape(-1)
            for cell in givens:
                grid[cell] = flat_target[cell]
            left = close_open(grid.reshape(root.shape))
        if left is None:  # pragma: no cover - givens from the solution cannot contradict
            raise AssertionError("givens from the solution contradict the clues")
        return left

    wcnf = WCNF()
    for cell in cand:
        wcnf.append([-var[cell]], weight=1)
    rc2 = RC2(wcnf)
    seen: set[frozenset] = set()

    def add_set(cells: list[int]) -> None:
        key = frozenset(cells)
        if key not in seen:
            seen.add(key)
            rc2.add_clause([var[c] for c in cells])

    def expired() -> bool:
        return deadline is not None and time.perf_counter() >= deadline

    def grow(givens: list[int], left: list[int]) -> list | None:
        """Greedy: add the sampled open cell that leaves fewest open until none is; every open
        set met is collected.  ``None`` if the time ran out."""
        givens = list(givens)
        while left:
            if expired():
                return None
            picks = left if len(left) <= GREEDY_SAMPLE else [
                left[i] for i in sorted(rng.choice(len(left), GREEDY_SAMPLE, replace=False))]
            best_cell, best_open = picks[0], open_after([*givens, picks[0]])
            for cell in picks[1:]:
                rest = open_after([*givens, cell])
                if len(rest) < len(best_open):
                    best_cell, best_open = cell, rest
            givens.append(best_cell)
            left = best_open
            if left:
                add_set(left)
        return givens

    def shrink(givens: list[int]) -> list[int]:
        """Drop every given the others make redundant (irredundant backdoor)."""
        for cell in list(reversed(givens)):
            if expired():
                break
            rest = [c for c in givens if c != cell]
            if not open_after(rest):
                givens = rest
        return givens

    def core(givens: list[int], left: list[int]) -> list:
        """Grow the non-backdoor ``givens`` to a maximal one (in a random order, keeping each
        open cell whose addition still leaves cells open) and return what it leaves open: a
        small set every backdoor must hit (adding any one of its cells solves the puzzle)."""
        givens = list(givens)
        order = [left[i] for i in rng.permutation(len(left))]
        open_now = set(left)
        stop = time.perf_counter() + core_budget
        for cell in order:
            if cell not in open_now:
                continue
            if expired() or time.perf_counter() >= stop:
                break  # what is open now is still a valid set, only larger
            rest = open_after([*givens, cell])
            if rest:
                givens.append(cell)
                open_now = set(rest)
        return sorted(open_now)

    core_budget = 0.5 if timeout is None else max(timeout / 20, 0.05)
    best: list[int] | None = None
    hitting: list[int] = []
    add_set(cand)  # U(empty set): every backdoor holds an open cell
    out.lower_bound = 1
    try:
        while not expired():
            model = rc2.compute()
            out.iterations += 1
            if model is None:  # pragma: no cover - the whole candidate set is a backdoor
                break
            hitting = [cand[v - 1] for v in model if v > 0]
            out.lower_bound = max(out.lower_bound, len(hitting))
            if best is not None and len(best) <= out.lower_bound:
                break
            left = open_after(hitting)
            if not left:
                best = hitting
                break
            add_set(core(hitting, left))
            if best is not None and out.iterations % 8:
                continue
            grown = grow(hitting, left)
            if grown is not None:
                grown = shrink(grown)
                if best is None or len(grown) < len(best):
                    best = grown
                if len(best) <= out.lower_bound:
                    break
    finally:
        rc2.delete()
    if best is None:  # timed out before the first greedy backdoor: a quick one, random open
        # cells added while cells are left open, a sixteenth of those open at a time (one
        # closure per batch: on Faase, 80x95, one closure per given took 17 s past the limit)
        best = list(hitting)
        left = open_after(best)
        while left:
            batch = max(1, len(left) // QUICK_BATCH_DIVISOR)
            best.extend(left[i] for i in rng.choice(len(left), batch, replace=False))
            left = open_after(best)
    out.cells = sorted((divmod(int(k), w), value(k)) for k in best)
    out.exact = len(best) <= out.lower_bound
    out.finished = out.exact
    out.sets = len(seen)
    out.time_s = time.perf_counter() - start
    return out

