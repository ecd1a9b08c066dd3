"""A whole solve explained: the deductions a person can make, then the search.

:func:`explain` replays hints (:class:`nonosat.analysis.hints.HintFinder`) from the empty grid
until the puzzle is solved or a guess is needed; :func:`walkthrough` continues with the native
search's guesses, contradictions and rewinds (:mod:`nonosat.analysis.steps`), which ``nonosat
explain`` prints.

Colour puzzles
--------------
:func:`explain` works on colour puzzles too (the same :class:`~nonosat.analysis.hints.HintFinder`
on colour masks: line, implications and probing hints, worded with the colours); the search part
of :func:`walkthrough` (the native step-through solver) is black-and-white only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from nonosat.analysis.hints import Hint, HintFinder, apply_hint, stuck_hint
from nonosat.analysis.steps import SolveStep
from nonosat.engines import Status
from nonosat.puzzle import Cell, Puzzle
from nonosat.stop import StopToken


@dataclass
class Explanation:
    """A whole solve in steps: ``steps`` (deduction hints in order), ``final`` (the ``solved``,
    ``guess`` or ``no-solution`` hint) and ``grid`` (the state reached)."""

    steps: list[Hint] = field(default_factory=list)
    final: Hint | None = None
    grid: np.ndarray | None = None

    def technique_counts(self) -> dict[str, int]:
        """Steps per technique."""
        counts: dict[str, int] = {}
        for step in self.steps:
            assert step.technique is not None
            counts[step.technique] = counts.get(step.technique, 0) + 1
        return counts


def explain(
    puzzle: Puzzle,
    state: np.ndarray | None = None,
    *,
    depth: int | None = None,
    max_steps: int | None = None,
    deadline: float | None = None,
    stop: StopToken | None = None,
) -> Explanation:
    """Replay hints from ``state`` (the empty grid when omitted) until the puzzle is solved, a
    guess is needed, ``max_steps`` steps were made, ``deadline`` (a :func:`time.perf_counter`
    value, checked between hints) passed or ``stop`` (a :class:`~nonosat.stop.StopToken`,
    checked between hints) was set; ``final`` is ``None`` when one of the last three stopped
    it.

    Returns
    -------
    Explanation
    """
    finder = HintFinder(puzzle, depth)
    grid = finder.logic.start(state)
    out = Explanation()
    while max_steps is None or len(out.steps) < max_steps:
        if (deadline is not None and time.perf_counter() >= deadline) or (
                stop is not None and stop.is_set()):
            break
        hint = finder.next(grid)
        if hint.kind != "deduction":
            out.final = hint
            break
        out.steps.append(hint)
        grid = apply_hint(grid, hint)
    out.grid = grid
    return out


#: Kind of a walk-through step for each hint technique (the other kinds are
#: :data:`nonosat.analysis.steps.STEP_KINDS`).
TECHNIQUE_KIND = {
    "overlap": "line",
    "line": "line",
    "contradiction": "implication",
    "tautology": "implication",
    "failed-literal": "probe",
    "probe-both": "probe",
    "probe-all": "probe",
}


def hint_step(hint: Hint) -> SolveStep:
    """A deduction hint as a :class:`~nonosat.analysis.steps.SolveStep` (depth 0, the technique
    kept)."""
    assert hint.technique is not None
    cells = [(r, c, int(v)) for (r, c), v in hint.cells]
    return SolveStep(TECHNIQUE_KIND[hint.technique], hint.text, hint.line, cells, 0,
                     technique=hint.technique)


@dataclass
class Walkthrough:
    """A whole solve for a reader: person-style deductions while they last, then the native
    search's guesses, contradictions and rewinds to the solution (or to each of the first two
    solutions, or to the end of the search when there is none).

    Attributes
    ----------
    steps : list of SolveStep
        In order; replaying their cells on an all-unknown grid (:func:`replay`) gives each
        solution at its ``solution`` step.
    stages : list of (str, int, int)
        ``(name, first, end)`` step index ranges: ``"logic"`` (deductions without guessing),
        ``"search"`` (from the first guess on).
    status : Status
        The verdict: ``UNIQUE``, ``MULTIPLE``, ``NONE`` or ``UNKNOWN`` (time limit before the
        verdict).
    solutions : list of ndarray of bool
        The solutions reached (one, two for ``MULTIPLE``, none).
    stuck : Hint or None
        Where logic stopped, with the engine's verdict (:func:`stuck_hint`); ``None`` when
        logic solved the puzzle, found it contradictory, or ran out of time or steps.
    end : str
        Why the walk ended: ``"solved"`` (every solution wanted reached), ``"no-solution"``,
        ``"timeout"`` or ``"max-steps"``.
    guesses : int
        Search decisions made (the ``guess`` steps that are not a ``branch``).
    backtracks : int
        Other values tried (the ``branch`` steps, "Try the other value"): with ``guesses``,
        counted as :mod:`nonosat.analysis.classify` defines them.
    """

    steps: list[SolveStep]
    stages: list[tuple[str, int, int]]
    status: Status
    solutions: list[np.ndarray]
    stuck: Hint | None
    end: str
    guesses: int = 0
    final_text: str = ""
    backtracks: int = 0

    @property
    def complete(self) -> bool:
        """The walk reached what it set out to (each solution wanted, or the proof that there
        is none)."""
        return self.end in ("solved", "no-solution")

    def counts(self) -> dict[str, dict[str, int]]:
        """Per stage (``"logic"``, ``"search"``): steps per technique (logic) or kind."""
        out: dict[str, dict[str, int]] = {}
        for name, first, end in self.stages:
            counts = out.setdefault(name, {})
            for step in self.steps[first:end]:
                counts[step.label] = counts.get(step.label, 0) + 1
        return out


def walkthrough(
    puzzle: Puzzle,
    *,
    engine: str = "auto",
    timeout: float | None = None,
    depth: int | None = None,
    max_steps: int | None = None,
) -> Walkthrough:
    """Explain a whole solve: hints (:func:`explain`) while a deduction applies; when none does,
    the verdict of ``engine`` (:func:`stuck_hint`: several solutions, unique but needs a guess,
    or none), then the step-through search (:func:`nonosat.analysis.steps.solve_steps`, started
    from the grid logic reached) to the solution, to each of the first two solutions when there
    are several, or through every contradiction when there is none.

    Parameters
    ----------
    puzzle : Puzzle
    engine : str
        Engine asked for the verdict when logic is stuck (default: the portfolio).
    timeout : float, optional
        Seconds for the whole walk; when it runs out, ``end`` is ``"timeout"``.
    depth : int, optional
        Implication graph traversal depth for the hints.
    max_steps : int, optional
        Stop after this many steps (``end`` is then ``"max-steps"``).

    Returns
    -------
    Walkthrough

    Raises
    ------
    ValueError
        A colour puzzle (its step-through search does not exist; :func:`explain` covers its
        logic).
    """
    from nonosat.analysis.steps import solve_steps

    if puzzle.is_colour:
        raise ValueError("the walk-through's search is black-and-white only; use explain()")

    deadline = None if timeout is None else time.perf_counter() + timeout

    def remaining() -> float | None:
        return None if deadline is None else max(deadline - time.perf_counter(), 0.001)

    logic = explain(puzzle, depth=depth, max_steps=max_steps, deadline=deadline)
    steps = [hint_step(h) for h in logic.steps]
    stages = [("logic", 0, len(steps))]
    grid = logic.grid
    assert grid is not None
    final = logic.final
    if final is None:
        end = "max-steps" if max_steps is not None and len(steps) >= max_steps else "timeout"
        return Walkthrough(steps, stages, Status.UNKNOWN, [], None, end)
    if final.kind == "solved":
        steps.append(SolveStep("solution", "Every cell is known: the puzzle is solved by logic "
                               "alone, so its solution is unique.", None, [], 0))
        stages[0] = ("logic", 0, len(steps))
        return Walkthrough(steps, stages, Status.UNIQUE, [grid == Cell.FILLED], None, "solved",
                           final_text=final.text)
    if final.kind == "no-solution":
        line = final.line
        steps.append(SolveStep("contradiction", final.text, line, [], 0))
        stages[0] = ("logic", 0, len(steps))
        return Walkthrough(steps, stages, Status.NONE, [], None, "no-solution",
                           final_text="The puzzle has no solution.")
    stuck = stuck_hint(puzzle, grid, engine=engine, timeout=remaining(), forced=True)
    if stuck.kind == "no-solution":
        status, wanted = Status.NONE, 1
    elif stuck.verdict == "multiple":
        status, wanted = Status.MULTIPLE, 2
    elif stuck.verdict == "unique":
        status, wanted = Status.UNIQUE, 1
    else:
        return Walkthrough(steps, stages, Status.UNKNOWN, [], stuck, "timeout")
    left = None if max_steps is None else max_steps - len(steps)
    if left is not None and left < 1:
        return Walkthrough(steps, stages, status, [], stuck, "max-steps")
    run = solve_steps(puzzle, max_solutions=wanted, max_steps=left or 1_000_000,
                      timeout=remaining(), start=grid)
    first = len(steps)
    steps.extend(run.steps)
    stages.append(("search", first, len(steps)))
    if run.complete:
        end = "solved" if run.solutions else "no-solution"
        if len(run.solutions) != (0 if status == Status.NONE else wanted):  # pragma: no cover
            raise AssertionError("the step-through search disagrees with the engine's verdict")
    elif left is not None and len(run.steps) >= left:
        end = "max-steps"
    else:
        end = "timeout"
    return Walkthrough(steps, stages, status, run.solutions, stuck, end, run.guesses,
                       backtracks=run.backtracks)
