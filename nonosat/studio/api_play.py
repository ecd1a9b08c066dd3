"""The studio's play routes (``/api/hint``, ``/api/check``, ``/api/steps``), included in
:data:`nonosat.studio.api.router`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from fastapi import APIRouter, HTTPException, Request

from nonosat.puzzle import Cell, Puzzle
from nonosat.studio.api_common import SUPERSEDED, _line_json, _run
from nonosat.studio.runner import JobToken, clamp_timeout, stop_kwargs
from nonosat.studio.schemas import (
    StateRequest,
    StepsRequest,
    cell_json,
    puzzle_from_json,
    state_from_json,
)

router = APIRouter()


#: What :func:`_mistakes` returns when the solver gave up.
_UNDECIDED = object()


def _mistakes(puzzle: Puzzle, grid: np.ndarray, timeout: float, stop: JobToken | None = None):
    """:func:`nonosat.analysis.hints.find_mistakes` under ``timeout`` seconds (per solve);
    :data:`_UNDECIDED` when the solver gave up (or was stopped)."""
    from nonosat.analysis.hints import find_mistakes
    from nonosat.errors import UndecidedError

    try:
        return find_mistakes(puzzle, grid, engine="auto", timeout=timeout,
                             **stop_kwargs(find_mistakes, stop))
    except UndecidedError:
        return _UNDECIDED


def hint_work(puzzle: Puzzle, grid: np.ndarray, timeout: float
              ) -> Callable[[JobToken], dict[str, Any]]:
    """The job of ``POST /api/hint``: ``work(token)`` gives the answer; the token is handed to
    the finders that take a ``stop=`` parameter (:func:`~nonosat.studio.runner.stop_kwargs`)."""
    from nonosat.analysis.hints import Hint, next_hint

    if puzzle.is_colour:
        from nonosat.studio.colour_play import colour_hint_json

        return lambda should_stop: colour_hint_json(puzzle, grid, timeout)

    def work(should_stop: JobToken) -> dict[str, Any]:
        mistakes = _mistakes(puzzle, grid, timeout, should_stop)
        extra = stop_kwargs(next_hint, should_stop)
        if mistakes is _UNDECIDED:
            h = Hint("unknown", f"The solver could not decide within {timeout:g} s whether "
                                f"the cells known so far are right; no hint.")
        elif mistakes is None:
            h = Hint("no-solution", "The puzzle has no solution.")
        elif mistakes:
            # next_hint's own check words the mistake hint (the same solves, now quick)
            h = next_hint(puzzle, grid, check=True, timeout=timeout, **extra)
        else:
            h = next_hint(puzzle, grid, check=False, timeout=timeout, **extra)
        out = h.to_json(puzzle)
        out["kind"] = h.kind
        out["line_name"] = out["line"]
        out["line"] = _line_json(puzzle, h.line)
        out["cells"] = [cell_json(r, c, v) for (r, c), v in h.cells]
        out["done"] = h.kind == "solved"
        return out

    return work


@router.post("/hint", summary="The next human-style deduction (`nonosat hint`)")
async def hint(body: StateRequest, request: Request) -> dict[str, Any]:
    """``Hint.to_json`` plus ``line`` ({axis, index}) and ``cells`` ([[r, c, v]])."""
    puzzle = puzzle_from_json(body.puzzle)
    grid = state_from_json(puzzle, body.state)
    return await _run(request, body, hint_work(puzzle, grid, clamp_timeout(body.timeout)))


@router.post("/check", summary="Mistakes in a grid state")
async def check(body: StateRequest, request: Request) -> dict[str, Any]:
    """``{"mistakes": [[r, c], ...], "complete": bool, "solvable": bool | null}``;
    ``solvable`` is ``null`` when the solver could not decide within the time limit (then
    ``mistakes`` is empty: none could be found)."""
    puzzle = puzzle_from_json(body.puzzle)
    grid = state_from_json(puzzle, body.state)
    timeout = clamp_timeout(body.timeout)
    if puzzle.is_colour:
        from nonosat.studio.colour_play import colour_check_json

        return await _run(request, body, lambda should_stop: colour_check_json(puzzle, grid,
                                                                               timeout))

    def work(should_stop: JobToken) -> dict[str, Any]:
        found = _mistakes(puzzle, grid, timeout, should_stop)
        undecided = found is _UNDECIDED
        mistakes = [] if undecided else [[r, c] for (r, c), _ in (found or [])]
        known = bool((grid != Cell.UNKNOWN).all())
        complete = known and not mistakes and puzzle.is_solution(grid == Cell.FILLED)
        return {"mistakes": mistakes, "complete": bool(complete),
                "solvable": None if undecided else found is not None}

    return await _run(request, body, work)


#: Steps written to JSON between two looks at the job's token (about 1 ms of work).
_STEPS_PER_CHECK = 256


def steps_work(puzzle: Puzzle, max_solutions: int, max_steps: int | None, timeout: float
               ) -> Callable[[JobToken], dict[str, Any] | None]:
    """The job of ``POST /api/steps``: ``work(token)`` gives ``StepRun.to_json`` from the
    givens; a walk the steps alone leave undecided is finished by the verdict's portfolio
    (:func:`nonosat.studio.steps_to_end.portfolio_steps`, which reads the token).  ``None`` when
    the token was set (the steps of a deep search are not written out for nobody: tens of
    thousands take a few hundred milliseconds)."""
    from nonosat.studio.quick import start_grid
    from nonosat.studio.steps_to_end import portfolio_steps

    start = start_grid(puzzle)  # the givens: the steps start from them

    def work(token: JobToken) -> dict[str, Any] | None:
        if puzzle.is_colour:
            from nonosat.studio.colour_play import colour_steps_json

            out = colour_steps_json(puzzle, max_solutions=max_solutions,
                                    max_steps=max_steps or 100_000, timeout=timeout,
                                    start=start, **stop_kwargs(colour_steps_json, token))
            return None if token.is_set() else out  # cut short: not presented as an answer
        run = portfolio_steps(puzzle, max_solutions=max_solutions, max_steps=max_steps,
                              timeout=timeout, stop=token, start=start)
        steps: list[dict[str, Any]] = []
        for k, step in enumerate(run.steps):  # written out a few at a time, for nobody never
            if k % _STEPS_PER_CHECK == 0 and token.is_set():
                return None
            steps.append(step.to_json(puzzle))
        return None if token.is_set() else run.to_json(puzzle, steps)

    return work


@router.post("/steps", summary="Step-through solve (the native solver's deductions)")
async def steps(body: StepsRequest, request: Request) -> dict[str, Any]:
    """``StepRun.to_json``: steps, status, solutions (see docs/studio.md); a walk the steps
    alone leave undecided is finished by the verdict's portfolio
    (:func:`nonosat.studio.steps_to_end.portfolio_steps`)."""
    puzzle = puzzle_from_json(body.puzzle)
    work = steps_work(puzzle, body.max_solutions, body.max_steps, clamp_timeout(body.timeout))
    out = await _run(request, body, work)
    if out is None:
        raise HTTPException(409, SUPERSEDED)
    return out
