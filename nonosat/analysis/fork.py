"""A depth-first search for the analysis, driven from Python so that it can count.

:func:`fork_search` branches like the native solver (:func:`nonosat.native.probe.best_branch`),
with line propagation and failed-literal probing at every node (the native solver's stages,
stepped on one :class:`~nonosat.native.stepping.Stepper`), and records the guesses
(decisions) made, the maximum depth and, for every solution found, the guesses on the path to it
-- the metric of dsmiller95/nonogram-printer ("the number of guesses required to get to each
solution").  Black-and-white puzzles; the analysis itself takes its search figures from the
engine that decided (:mod:`nonosat.analysis.classify`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from nonosat.native.stepping import KIND_BRANCH, Stepper
from nonosat.puzzle import Cell, Puzzle, unknown_grid


@dataclass
class ForkResult:
    """Outcome of :func:`fork_search`.

    Attributes
    ----------
    solutions : list of ndarray of bool, shape (height, width)
    guesses_to_solutions : list of int
        Decisions on the search path to each solution (dsmiller95's metric), same order.
    guesses : int
        Decisions made (a cell's second branch, tried after the first is exhausted, is not a new
        decision -- as the ``guesses`` statistic of :class:`nonosat.native.search.NativeSearch`).
    max_depth : int
        Deepest decision stack.
    finished : bool
        The search reached its solution limit or exhausted the space (``False``: timed out).
    """

    solutions: list[np.ndarray] = field(default_factory=list)
    guesses_to_solutions: list[int] = field(default_factory=list)
    guesses: int = 0
    max_depth: int = 0
    finished: bool = False


def fork_search(
    puzzle: Puzzle,
    grid: np.ndarray | None = None,
    *,
    limit: int = 2,
    timeout: float | None = None,
) -> ForkResult:
    """Depth-first search with line propagation and failed-literal probing at every node.

    Branches like the native solver (:func:`nonosat.native.probe.best_branch`: the cell whose probe
    branches fix the most cells, the value fixing more first) but is driven from Python so that
    it can record the number of decisions on the path to each solution.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray of int8, shape (height, width), optional
        Starting state (all unknown when omitted).
    limit : int
        Stop after this many solutions.
    timeout : float, optional
        Seconds; checked between nodes.

    Returns
    -------
    ForkResult
    """
    stepper = Stepper(puzzle, unknown_grid(puzzle) if grid is None else grid)
    out = ForkResult()
    frames: list[list[int]] = []  # cell, checkpoint before the decision, value, flipped
    deadline = None if timeout is None else time.perf_counter() + timeout
    while True:
        if deadline is not None and time.perf_counter() >= deadline:
            return out
        # a node: line propagation, then probing (its tracking sees the node's changes)
        if stepper.propagate() is not None and stepper.probe() is not None:
            cell, value = stepper.best_branch(0)
            if cell < 0:
                out.solutions.append(stepper.grid() == Cell.FILLED)
                out.guesses_to_solutions.append(len(frames))
                if len(out.solutions) >= limit:
                    out.finished = True
                    return out
            else:
                frames.append([cell, stepper.assume(cell, value, arg=len(frames)), value, 0])
                out.guesses += 1
                out.max_depth = max(out.max_depth, len(frames))
                continue
        # backtrack: the deepest decision whose other value is untried (probing starts afresh)
        while frames:
            top = frames[-1]
            stepper.undo(top[1])
            if not top[3]:
                top[3] = 1
                stepper.assume(top[0], 3 - top[2], KIND_BRANCH, len(frames) - 1)
                break
            frames.pop()
        else:
            out.finished = True
            return out
