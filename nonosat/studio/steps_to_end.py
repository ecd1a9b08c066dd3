"""Steps that reach the end: the step-through solve finished by the verdict's portfolio.

The step-through solve (:func:`nonosat.analysis.steps.solve_steps`) is the native search played
one deduction at a time in Python; on a puzzle that needs a deep search (webpbn-06574) it stops
undecided after tens of thousands of steps, although the editor's verdict (native, then the
``auto`` portfolio with SAT) decides it in a fraction of a second.  :func:`portfolio_steps` runs
the steps under part of the time limit and, when they stop undecided, asks the verdict
(:func:`nonosat.studio.quick.verdict`) and ends the walk with its answer: a ``rewind`` back to
what logic alone had fixed (the guesses' cells set back to unknown), then one ``solution`` step
per solution the portfolio found (the cells it sets), each after a rewind to that point, as the
step-through walks to each solution.  A puzzle with no solution ends with a ``contradiction``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from nonosat.engines import Status
from nonosat.puzzle import Cell, Puzzle
from nonosat.stop import StopToken

#: Share of the time limit the step-through gets before the portfolio is asked, and its most
#: seconds (a walk of thousands of steps is long enough to follow; the rest is the portfolio's).
STEPS_SHARE = 0.6
STEPS_MAX_S = 2.0


def portfolio_steps(puzzle: Puzzle, *, max_solutions: int = 2, max_steps: int | None = None,
                    timeout: float = 5.0, stop: StopToken | None = None,
                    start: np.ndarray | None = None) -> Any:
    """The step-through solve of ``puzzle``, finished by the verdict's portfolio when the steps
    alone stop undecided (module docstring).

    Parameters
    ----------
    puzzle : Puzzle
    max_solutions : int
        Solutions to walk to (2 decides uniqueness).
    max_steps : int, optional
        Most steps of the step-through (its default when ``None``).
    timeout : float
        Seconds for the whole: :data:`STEPS_SHARE` of it (at most :data:`STEPS_MAX_S`) for the
        steps, the rest for the portfolio.
    stop : StopToken, optional
        Read by the step-through between nodes and passed to the portfolio's engines.
    start : ndarray of int8, shape (height, width), optional
        The givens: the steps and the portfolio start from them (the steps never set them).

    Returns
    -------
    nonosat.analysis.steps.StepRun
        ``status`` the verdict's, ``complete`` true when the portfolio decided it.
    """
    from nonosat.analysis.steps import SolveStep, replay, solve_steps
    from nonosat.studio.quick import verdict

    began = time.perf_counter()
    kwargs: dict[str, Any] = {"max_solutions": max_solutions,
                              "timeout": min(timeout * STEPS_SHARE, STEPS_MAX_S), "start": start}
    if max_steps is not None:
        kwargs["max_steps"] = max_steps
    run = solve_steps(puzzle, stop=stop, **kwargs)
    if run.status != Status.UNKNOWN or (stop is not None and stop.is_set()):
        return run
    left = timeout - (time.perf_counter() - began)
    if left <= 0:
        return run
    result = verdict(puzzle, left, start, stop=stop)
    if result.status == Status.UNKNOWN:
        return run
    # what logic fixed: the cells of steps made with no guess open
    logic = replay(puzzle, [s for s in run.steps if s.depth == 0], start=start)
    now = replay(puzzle, run.steps, start=start)
    steps = list(run.steps)
    engine = {"native": "the native search", "native+sat": "the SAT solver"}.get(
        result.engine, f"the {result.engine} engine")

    def rewind(grid: np.ndarray, text: str) -> None:
        back = np.argwhere((grid != Cell.UNKNOWN) & (logic == Cell.UNKNOWN))
        if len(back):
            steps.append(SolveStep("rewind", text, None,
                                   [(int(r), int(c), int(Cell.UNKNOWN)) for r, c in back]))

    rewind(now, "back to what logic proved: the step-by-step search is taking long, "
                f"{engine} finishes it")
    if result.status == Status.NONE:
        steps.append(SolveStep("contradiction", f"{engine} proved that the puzzle has no "
                                                "solution", None))
        return type(run)(steps, Status.NONE, [], True, run.guesses, run.backtracks)
    wanted = result.solutions[:max_solutions]
    grid = logic
    for k, sol in enumerate(wanted):
        if k:
            rewind(grid, "back to what logic proved, for the next solution")
        fill = np.argwhere(logic == Cell.UNKNOWN)
        cells = [(int(r), int(c), int(Cell.FILLED if sol[r, c] else Cell.EMPTY))
                 for r, c in fill]
        steps.append(SolveStep("solution", f"{engine} found solution {k + 1}: "
                                           f"{len(cells)} cells", None, cells))
        grid = np.where(logic == Cell.UNKNOWN,
                        np.where(sol, Cell.FILLED, Cell.EMPTY), logic).astype(np.int8)
    status = Status.from_search(len(wanted), max_solutions, True)
    return type(run)(steps, status, [np.asarray(s, dtype=bool) for s in wanted], True,
                     run.guesses, run.backtracks)
