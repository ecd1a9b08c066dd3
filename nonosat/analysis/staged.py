"""The staged analysis solver: line solving -> implications -> probing -> fork, for every puzzle.

The production solver (:class:`nonosat.native.search.NativeSearch`) runs compiled and mixes its
techniques for speed.  This module is the *analysis view* of the same techniques: it always uses
the simplest one that still makes progress and records which stage made every deduction.  It is
written once, over the puzzle's :class:`~nonosat.analysis.logic.Logic` (black-and-white with its
bit-parallel kernels, colour with the colour line solver and literals "cell takes colour c").

1. **line** -- line propagation to a fixpoint;
2. **implications** -- the single-line implication graph (:mod:`nonosat.native.implications`,
   :mod:`nonosat.analysis.implied`): every literal forced by a contradiction or a tautology,
   then back to 1;
3. **probing** -- one failed-literal pass over the open cells with full propagation: every
   failed literal found, or when there is none the cells every value of a probed cell agrees on
   ("probe-both"; colour: "probe-all", each cell keeping the colours some trial allows), then
   back to 1;
4. **fork** -- when no stage makes progress, the search (:mod:`nonosat.analysis.fork`; the
   analysis takes the figures of the engine that decided).

Stages 1-3 are monotone and sound, so the grid after each stage is the unique fixpoint of the
techniques up to that stage; the number of cells open when a stage is first needed is the open
count *after* the stages before it.  A cell is open while it can take more than one value.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from nonosat.analysis.fork import ForkResult, fork_search
from nonosat.analysis.logic import Step, logic_of, probe_pass
from nonosat.native.implications import RULES
from nonosat.puzzle import Puzzle
from nonosat.stop import StopToken

__all__ = ["STAGES", "ForkResult", "StagedRun", "Step", "fork_search", "probe_pass",
           "staged_solve"]

#: The stages in the order the analysis tries them.
STAGES = ("line", "implications", "probing", "fork")


@dataclass
class StagedRun:
    """Result of :func:`staged_solve`.

    Attributes
    ----------
    steps : list of Step
        Every deduction in order.
    grid : ndarray, shape (height, width)
        State at the fixpoint of line solving, implications and probing (int8 cells for
        black-and-white, int32 colour masks for colour).
    status : str
        ``"solved"`` (logic fixed every cell), ``"stuck"`` (a fork is needed) or
        ``"contradiction"`` (no solution).
    open_after : dict of str to int
        Cells still open when the next stage was first needed: ``"start"``, ``"line"``,
        ``"implications"``, ``"probing"`` (a stage never needed copies the final count).
    invocations : dict of str to int
        How many times each stage was entered *and made progress*.
    time_s : dict of str to float
        Seconds spent per stage.
    stopped : bool
        The deadline or the stop token of :func:`staged_solve` stopped it (``status`` is then
        ``"stuck"`` and the figures are those of the rounds done: what logic would achieve is
        not known).
    """

    steps: list[Step]
    grid: np.ndarray
    status: str
    open_after: dict[str, int]
    invocations: dict[str, int]
    time_s: dict[str, float]
    stopped: bool = False

    def cells_by_stage(self) -> dict[str, int]:
        """Cells each stage adds to the fixpoint of the stages before it: ``line`` = cells known
        at the line-solving fixpoint, ``implications`` = cells the fixpoint of line solving and
        implications knows beyond that, ``probing`` = the same for probing.

        Consistent by construction: ``start - open_after["line"]``, ``open_after["line"] -
        open_after["implications"]``, ``open_after["implications"] - open_after["probing"]``, so
        the figures sum to the cells known after each stage (a cell the line solver fixes only
        after an implication made it possible counts for the implications, which it needed).
        The interleaved attribution, step by step, is :meth:`cells_by_step`.
        """
        oa = self.open_after
        return {"line": oa["start"] - oa["line"],
                "implications": oa["line"] - oa["implications"],
                "probing": oa["implications"] - oa["probing"]}

    def cells_by_step(self) -> dict[str, int]:
        """Cells fixed by the steps of each stage as the staged run interleaves them (line
        solving resumes after every implication or probing round, and its steps count for
        ``line``)."""
        counts = dict.fromkeys(STAGES[:3], 0)
        for step in self.steps:
            counts[step.stage] += len(step.cells)
        return counts

    def techniques(self) -> dict[str, int]:
        """Number of steps per technique."""
        counts: dict[str, int] = {}
        for step in self.steps:
            counts[step.technique] = counts.get(step.technique, 0) + 1
        return counts

    def hardest_stage(self) -> str:
        """The hardest stage the logic needed: ``"line"``, ``"implications"``, ``"probing"``, or
        ``"fork"`` when the logic got stuck."""
        if self.status == "stuck":
            return "fork"
        used = {s.stage for s in self.steps}
        for stage in ("probing", "implications"):
            if stage in used:
                return stage
        return "line"


def staged_solve(
    puzzle: Puzzle,
    grid: np.ndarray | None = None,
    *,
    depth: int | None = None,
    stages: tuple[str, ...] = ("line", "implications", "probing"),
    rules: tuple[str, ...] = RULES,
    deadline: float | None = None,
    stop: StopToken | None = None,
) -> StagedRun:
    """Solve by logic, always with the simplest stage that makes progress.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray, shape (height, width), optional
        Starting state (givens: int8 cells for black-and-white, int32 colour masks for colour);
        nothing known when omitted.  Not modified.
    depth : int, optional
        Traversal depth of the implication graph (unlimited when omitted; black-and-white
        only).
    rules : tuple of str
        Implication rules, in order of preference (see
        :func:`nonosat.native.implications.forced_literals`).
    stages : tuple of str
        The logical stages allowed, among ``"line"``, ``"implications"``, ``"probing"``
        (``"line"`` always runs).
    deadline : float, optional
        A ``time.perf_counter()`` value: past it, no further implication or probing round
        starts (one compiled round is not interrupted) and the run is ``stopped``.
    stop : StopToken, optional
        Read between rounds and by the probing passes (between two probed cells): once set,
        the run ends ``stopped`` at once (a round cut short is not counted).

    Returns
    -------
    StagedRun
    """
    logic = logic_of(puzzle, stop)

    def halted() -> bool:
        return stop is not None and stop.is_set()

    state = logic.start(grid)
    steps: list[Step] = []
    open_after = {"start": int(logic.open(state).sum())}
    invocations = dict.fromkeys(STAGES[:3], 0)
    spent = dict.fromkeys(STAGES[:3], 0.0)
    status = "stuck"
    stopped = False
    while True:
        t0 = time.perf_counter()
        result = logic.line(state)
        spent["line"] += time.perf_counter() - t0
        if result is None:
            status = "contradiction"
            break
        state, line_steps = result
        if line_steps:
            invocations["line"] += 1
            steps.extend(line_steps)
        if not logic.open(state).any():
            status = "solved"
            break
        open_after.setdefault("line", int(logic.open(state).sum()))
        if halted() or (deadline is not None and time.perf_counter() >= deadline):
            stopped = True
            break
        new: list[Step] | None = []
        if "implications" in stages:
            t0 = time.perf_counter()
            new = logic.implications(state, depth, rules)
            spent["implications"] += time.perf_counter() - t0
            if halted():
                stopped = True
                break
            if new:
                invocations["implications"] += 1
        if not new:
            open_after.setdefault("implications", int(logic.open(state).sum()))
            if "probing" in stages:
                t0 = time.perf_counter()
                new = logic.probing(state)
                spent["probing"] += time.perf_counter() - t0
                if halted():
                    stopped = True
                    break
                if new is None:
                    status = "contradiction"
                    break
                if new:
                    invocations["probing"] += 1
        if not new:
            open_after.setdefault("probing", int(logic.open(state).sum()))
            break
        steps.extend(new)
        if not logic.apply(state, new):
            status = "contradiction"
            break
    final_open = int(logic.open(state).sum())
    for stage in ("line", "implications", "probing"):
        open_after.setdefault(stage, final_open)
    return StagedRun(steps, state, status, open_after, invocations,
                     {k: round(v, 6) for k, v in spent.items()}, stopped)
