"""Step-through solving: the native solver's deductions one at a time, guesses included.

:func:`solve_steps` runs the native solver's search (:mod:`nonosat.native.search`) in Python
on a :class:`~nonosat.native.stepping.Stepper` (the compiled stages one call at a time), in the
same order -- propagation to a fixpoint, failed-literal probing, branching on the cell
:meth:`~nonosat.native.stepping.Stepper.best_branch` picks (the rule
:class:`~nonosat.native.search.NativeSearch` uses by default), chronological backtracking -- and
turns every entry of the solver's trail into a :class:`SolveStep` a person can follow:

``line``
    One line solve and the cells it fixed ("Row 3 (clue 3 1): columns 4–6 filled").
``probe``
    A failed literal ("if R3C5 were filled, row 4 would have no room, so it is empty") or the
    cells both values of a probed cell agree on.
``guess``
    A search decision, or the other value of a decision once the first was exhausted: that one
    is a backtrack (``branch`` set, "Try the other value"), not a new guess (the one count of
    :mod:`nonosat.analysis.classify`, "Counting guesses and backtracks").
``contradiction``
    A line (or a probed cell) that can no longer hold its clue under the current guesses.
``rewind``
    Back to before the deepest guess still open: the cells set since become unknown again.
``solution``
    Every cell is known: a solution (sets no cell).

Replaying the cells of the steps in order on an all-unknown grid (a rewind sets its cells back to
unknown) gives, at each ``solution`` step, exactly that solution.  This is the model of the
step-through solvers of the field (e.g. the "solve step by step" views of davidje13's and
Hugi's solvers), on the native solver's own deductions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.analysis.wording import (  # noqa: F401 - re-exported, the names steps had
    cell_name,
    cells_text,
    line_cells_text,
    range_text,
    spans,
    value_word,
)
from nonosat.engines import Status
from nonosat.native.line import solve_line
from nonosat.native.stepping import (
    KIND_BRANCH,
    KIND_DECISION,
    KIND_FAILED_LITERAL,
    KIND_LINE,
    KIND_PROBE_BOTH,
    Stepper,
)
from nonosat.puzzle import Cell, Puzzle, clue_text, grid_rows, unknown_grid
from nonosat.stop import Stopped, StopToken, for_solve

#: Step kinds, in the order a reader meets them.
STEP_KINDS = ("line", "probe", "guess", "contradiction", "rewind", "solution")

_CHAR = {Cell.FILLED: "#", Cell.EMPTY: ".", Cell.UNKNOWN: "?"}


@dataclass
class SolveStep:
    """One step of a step-through solve.

    Attributes
    ----------
    kind : str
        One of :data:`STEP_KINDS`.
    text : str
        The step in plain words, ranges instead of cell lists.
    line : int or None
        Line index (rows first, then columns) the step is about, ``None`` when it is not about
        one line.
    cells : list of (row, col, value)
        Cells this step sets, 0-based, ``value`` a :class:`~nonosat.puzzle.Cell` int; a rewind
        sets its cells to ``Cell.UNKNOWN``; a solution or contradiction sets none.
    depth : int
        Guesses open when the step's cells are set (0 = pure logic).
    technique : str or None
        The hint technique of a step from :func:`nonosat.analysis.hints.walkthrough`'s logic
        stage (``"overlap"``, ``"line"``, ...); ``None`` for the search's steps.
    branch : bool
        A ``guess`` step that tries a decided cell's other value: a backtrack, not a guess.
    """

    kind: str
    text: str
    line: int | None
    cells: list[tuple[int, int, int]] = field(default_factory=list)
    depth: int = 0
    technique: str | None = None
    branch: bool = False

    @property
    def label(self) -> str:
        """What the step counts as: its technique, ``"other value"`` for a backtrack's guess
        step, else its kind."""
        return self.technique or ("other value" if self.branch else self.kind)

    def to_json(self, puzzle: Puzzle) -> dict[str, Any]:
        """``{"kind", "text", "line": {"axis": "row"|"col", "index"} | None, "cells":
        [[row, col, "#"|"."|"?"], ...], "depth"}``, plus ``"technique"`` when set; indices are
        0-based."""
        line = None
        if self.line is not None:
            h = puzzle.height
            line = ({"axis": "row", "index": self.line} if self.line < h
                    else {"axis": "col", "index": self.line - h})
        out = {
            "kind": self.kind,
            "text": self.text,
            "line": line,
            "cells": [[r, c, _CHAR[Cell(v)]] for r, c, v in self.cells],
            "depth": self.depth,
        }
        if self.technique is not None:
            out["technique"] = self.technique
        if self.branch:
            out["branch"] = True
        return out


@dataclass
class StepRun:
    """Result of :func:`solve_steps`.

    Attributes
    ----------
    steps : list of SolveStep
    status : Status
        ``UNIQUE``/``MULTIPLE``/``NONE`` when decided (``MULTIPLE``: at least two solutions),
        ``SOLVED`` with ``max_solutions=1``, ``UNKNOWN`` when ``max_steps`` or ``timeout``
        stopped the run first.
    solutions : list of ndarray of bool, shape (height, width)
        The solutions met, in order (one per ``solution`` step).
    complete : bool
        The search ran to its end (``max_solutions`` reached or the space exhausted).
    guesses : int
        Search decisions made (as :class:`~nonosat.native.search.NativeSearch`'s ``guesses``).
    backtracks : int
        Other values tried (as its ``backtracks``): the ``branch`` steps.
    """

    steps: list[SolveStep]
    status: Status
    solutions: list[np.ndarray]
    complete: bool
    guesses: int = 0
    backtracks: int = 0

    def to_json(self, puzzle: Puzzle, steps: list[dict[str, Any]] | None = None
                ) -> dict[str, Any]:
        """``{"steps": [...], "status": str, "solutions": [[row strings], ...], "complete"}``.

        ``steps``: the steps' JSON when the caller already made it (e.g. a few at a time,
        looking at a cancel token in between: tens of thousands take a few hundred ms)."""
        return {
            "steps": [s.to_json(puzzle) for s in self.steps] if steps is None else steps,
            "status": self.status.value,
            "solutions": [grid_rows(s) for s in self.solutions],
            "complete": self.complete,
        }


class _Stepper:
    """The search loop of :func:`nonosat.native.search.search_kernel`, in Python on a
    :class:`~nonosat.native.stepping.Stepper`, emitting steps from the trail after each stage."""

    def __init__(self, puzzle: Puzzle, max_solutions: int, branch_mode: int = 2,
                 start: np.ndarray | None = None, stop: np.ndarray | None = None):
        self.puzzle = puzzle
        # ``stop``: the flag the compiled probing reads between two probes
        self.solver = Stepper(puzzle, start, stop=stop)
        # a second stepper on the same line cache, to replay a failed branch for its wording
        self.side = Stepper(puzzle, cache=self.solver.cache)
        self.max_solutions = max_solutions
        self.branch_mode = branch_mode
        self.steps: list[SolveStep] = []
        self.solutions: list[np.ndarray] = []
        self.frames: list[list[int]] = []  # cell, trail length before, first value, flipped
        self.cursor = 0  # trail entries already turned into steps
        self.guesses = 0
        self.backtracks = 0

    # -- helpers -------------------------------------------------------------------------------
    def _rc(self, cell: int) -> tuple[int, int]:
        return divmod(int(cell), self.puzzle.width)

    def _clue(self, line: int) -> str:
        return f"{self.puzzle.line_name(line).capitalize()} (clue " \
               f"{clue_text(self.puzzle.lines[line])})"

    def _line_values(self, grid: np.ndarray, line: int) -> np.ndarray:
        h, w = self.puzzle.shape
        g = grid.reshape(h, w)
        return np.ascontiguousarray(g[line] if line < h else g[:, line - h])

    def _broken_line(self, grid: np.ndarray) -> int | None:
        """A line of ``grid`` (flat int8) that cannot hold its clue, or ``None``."""
        for line, clue in enumerate(self.puzzle.lines):
            if clue is not None and solve_line(clue, self._line_values(grid, line)) is None:
                return line
        return None

    def _failed_branch_line(self, before: np.ndarray, cell: int, value: int) -> int | None:
        """The line that breaks when ``cell = value`` is propagated from ``before`` (flat)."""
        side = self.side
        side.load(before.reshape(self.puzzle.shape))
        side.assume(cell, value)
        if side.propagate() is not None:
            return None
        return self._broken_line(side.flat)

    def _add(self, step: SolveStep) -> None:
        self.steps.append(step)

    # -- turning trail entries into steps ------------------------------------------------------
    def emit(self) -> None:
        """Steps for the trail entries ``[cursor, checkpoint)``."""
        found = self.solver.deductions(self.cursor)
        trail, values = found.cells.tolist(), found.values.tolist()
        tkind, targ = found.kinds.tolist(), found.args.tolist()
        end = len(trail)
        depth = len(self.frames)
        t = 0
        while t < end:
            kind = tkind[t]
            arg = targ[t]
            if kind == KIND_LINE:
                u = t
                while u < end and tkind[u] == KIND_LINE and targ[u] == arg:
                    u += 1
                cells = [(*self._rc(trail[k]), values[k]) for k in range(t, u)]
                text = f"{self._clue(arg)}: {line_cells_text(self.puzzle, arg, cells)}"
                self._add(SolveStep("line", text, arg, cells, depth))
                t = u
            elif kind == KIND_FAILED_LITERAL:
                cell = trail[t]
                value = values[t]
                r, c = self._rc(cell)
                before = self._replay_before(self.cursor + t)
                broken = self._failed_branch_line(before, cell, 3 - value)
                why = (f"{self.puzzle.line_name(broken)} would have no room for its clue"
                       if broken is not None else "line solving reaches a contradiction")
                text = (f"Probe {cell_name(r, c)}: if it were {value_word(3 - value)}, {why}; "
                        f"so it is {value_word(value)}")
                self._add(SolveStep("probe", text, None, [(r, c, value)], depth))
                t += 1
            elif kind == KIND_PROBE_BOTH:
                u = t
                while u < end and tkind[u] == KIND_PROBE_BOTH and targ[u] == arg:
                    u += 1
                cells = [(*self._rc(trail[k]), values[k]) for k in range(t, u)]
                pr, pc = self._rc(arg)
                text = (f"Probe {cell_name(pr, pc)}: filled or empty, line solving gives the "
                        f"same {'value' if len(cells) == 1 else 'values'} for "
                        f"{cells_text(self.puzzle, cells)}")
                self._add(SolveStep("probe", text, None, cells, depth))
                t = u
            elif kind in (KIND_DECISION, KIND_BRANCH):
                cell = trail[t]
                r, c = self._rc(cell)
                value = values[t]
                d = arg + 1
                if kind == KIND_DECISION:
                    text = f"Guess {cell_name(r, c)} {value_word(value)} (depth {d})"
                else:
                    text = (f"Try the other value: {cell_name(r, c)} {value_word(value)} "
                            f"(depth {d})")
                self._add(SolveStep("guess", text, None, [(r, c, value)], d,
                                    branch=kind == KIND_BRANCH))
                t += 1
            else:  # pragma: no cover - givens are not used here
                t += 1
        self.cursor += end

    def _replay_before(self, t: int) -> np.ndarray:
        """The flat grid as it was just before trail entry ``t`` (entries ``>= t`` unknown)."""
        out = self.solver.flat.copy()
        out[self.solver.deductions(t).cells] = Cell.UNKNOWN
        return out

    def contradiction(self, source: str) -> None:
        """A contradiction step after a failed propagation (``source="line"``) or probe."""
        depth = len(self.frames)
        grid = self.solver.flat
        if source == "line":
            broken = self._broken_line(grid)
            if broken is not None:
                text = f"Contradiction: {self._clue(broken)} has no room for its clue"
            else:  # pragma: no cover - propagate failed on some line
                text = "Contradiction: a line has no room for its clue"
            self._add(SolveStep("contradiction", text, broken, [], depth))
            return
        cell = self._doubly_failed_cell()
        if cell is not None:
            r, c = self._rc(cell)
            text = (f"Contradiction: probing {cell_name(r, c)} fails both ways (filled and "
                    f"empty each leave a line no room)")
        else:
            text = "Contradiction: probing finds a cell that can be neither filled nor empty"
        self._add(SolveStep("contradiction", text, None, [], depth))

    def _doubly_failed_cell(self) -> int | None:
        """After probing failed: a cell both of whose values fail, among the cells probed in
        the last event (few, :meth:`~nonosat.native.stepping.Stepper.last_probed`), or
        ``None``."""
        grid = self.solver.flat
        candidates = self.solver.last_probed()
        for cell in candidates[::-1][:64]:
            if (self._failed_branch_line(grid, int(cell), 2) is not None
                    and self._failed_branch_line(grid, int(cell), 1) is not None):
                return int(cell)
        return None

    def rewind(self, tlen: int, cell: int) -> None:
        """Undo the trail to ``tlen`` (the trail length before the guess on ``cell``)."""
        cells = [(*self._rc(k), int(Cell.UNKNOWN))
                 for k in self.solver.deductions(tlen).cells.tolist()]
        self.solver.undo(tlen, forget_probes=False)
        self.cursor = tlen
        r, c = self._rc(cell)
        depth = len(self.frames) - 1
        text = (f"Rewind to before the guess on {cell_name(r, c)} (depth {depth + 1}): "
                f"{len(cells)} cell{'s' if len(cells) != 1 else ''} unknown again")
        self._add(SolveStep("rewind", text, None, cells, depth))

    # -- the search loop (mirrors search_kernel) -------------------------------------------------
    def run(self, max_steps: int, deadline: float | None, stop: StopToken | None = None
            ) -> tuple[bool, bool]:
        """Returns ``(complete, exhausted)``; a set ``stop`` ends it as the deadline does."""
        solver = self.solver
        while True:
            if len(self.steps) >= max_steps or (
                deadline is not None and time.perf_counter() >= deadline
            ) or (stop is not None and stop.is_set()):
                return False, False
            node_start = solver.checkpoint
            ok = solver.propagate() is not None
            if ok:
                solver.stamp(node_start)
            self.emit()
            if not ok:
                self.contradiction("line")
            else:
                try:
                    ok = solver.probe(since=solver.checkpoint) is not None
                except Stopped:  # cut short between two probes: its fixes hold, the run ends
                    self.emit()
                    return False, False
                self.emit()
                if not ok:
                    self.contradiction("probe")
            if ok:
                cell, value = solver.best_branch(self.branch_mode)
                if cell < 0:
                    sol = solver.grid() == Cell.FILLED
                    self.solutions.append(sol)
                    k = len(self.solutions)
                    self._add(SolveStep("solution", f"Every cell is known: solution {k}", None,
                                        [], len(self.frames)))
                    if k >= self.max_solutions:
                        return True, False
                else:
                    d = len(self.frames)
                    self.frames.append([cell, solver.checkpoint, value, 0])
                    self.guesses += 1
                    solver.assume(cell, value, KIND_DECISION, d)
                    self.emit()
                    continue
            # backtrack: flip the deepest decision whose second value is untried
            while self.frames and self.frames[-1][3]:
                self.frames.pop()
            if not self.frames:
                # undo everything back to the root fixpoint is not needed: the space is exhausted
                return True, True
            top = self.frames[-1]
            self.rewind(top[1], top[0])
            top[3] = 1
            self.backtracks += 1
            solver.assume(top[0], 3 - top[2], KIND_BRANCH, len(self.frames) - 1)
            self.emit()


def solve_steps(
    puzzle: Puzzle,
    *,
    max_solutions: int = 2,
    max_steps: int = 100_000,
    timeout: float | None = None,
    start: np.ndarray | None = None,
    stop: StopToken | None = None,
) -> StepRun:
    """Solve ``puzzle`` step by step with the native solver's techniques, guesses included.

    Parameters
    ----------
    puzzle : Puzzle
    max_solutions : int
        Stop at this many solutions (2 decides uniqueness, 1 = first solution only).
    max_steps : int
        Stop after this many steps (the run is then incomplete unless its last step is the
        last solution wanted).
    timeout : float, optional
        Seconds; checked between search nodes and, by the compiled probing, between two
        probes.
    start : ndarray of int8, shape (height, width), optional
        The grid to start from (all unknown when omitted), e.g. the point where a person's
        deductions stop; its known cells are never rewound, and the steps set only the others
        (replay them with ``replay(puzzle, steps, start=start)``).
    stop : StopToken, optional
        Read between search nodes and between two probes: once set, the run ends as at its
        timeout (incomplete; the steps made hold).

    Returns
    -------
    StepRun
        The steps (see the module docstring), the verdict, the solutions met and whether the
        run was complete.

    Raises
    ------
    ValueError
        ``max_solutions`` or ``max_steps`` below 1.

    Notes
    -----
    The search is the native solver's (:func:`nonosat.native.search.search_kernel`: propagation,
    failed-literal probing at every node, branching on the best-scoring probed cell, the value
    that fixes fewer cells first, chronological backtracking), so the guesses counted here equal
    :class:`~nonosat.native.search.NativeSearch`'s for the same limit.  Rewinds across several
    exhausted guesses are one step.
    """
    if max_solutions < 1 or max_steps < 1:
        raise ValueError("max_solutions and max_steps must be at least 1")
    deadline = None if timeout is None else time.perf_counter() + timeout
    if start is not None:
        start = np.asarray(start, dtype=np.int8)
        if start.shape != puzzle.shape:
            raise ValueError(f"start grid is {start.shape}, the puzzle {puzzle.shape}")
    with for_solve(stop, timeout) as token:  # set by ``stop`` or at the timeout
        stepper = _Stepper(puzzle, max_solutions, start=start, stop=token.flag)
        complete, _ = stepper.run(max_steps, deadline, token)
    steps = stepper.steps
    if len(steps) > max_steps:  # one compiled call can add many steps: cut at the limit
        steps = steps[:max_steps]
        complete = complete and steps[-1].kind == "solution"
        kept = sum(1 for s in steps if s.kind == "solution")
        del stepper.solutions[kept:]
    for sol in stepper.solutions:
        if not puzzle.is_solution(sol):  # pragma: no cover - would be a solver bug
            raise AssertionError("the step-through search met an invalid solution")
    status = Status.from_search(len(stepper.solutions), max_solutions, complete)
    guesses = sum(1 for s in steps if s.kind == "guess" and not s.branch)
    backtracks = sum(1 for s in steps if s.branch)
    if len(steps) == len(stepper.steps):  # not cut: the counts are the search's
        assert (guesses, backtracks) == (stepper.guesses, stepper.backtracks)
    return StepRun(steps, status, stepper.solutions, complete, guesses, backtracks)


def replay(puzzle: Puzzle, steps: list[SolveStep], upto: int | None = None,
           start: np.ndarray | None = None) -> np.ndarray:
    """The grid state (int8, shape (height, width)) after the first ``upto`` steps (all when
    omitted), replayed on ``start`` (all unknown when omitted)."""
    grid = unknown_grid(puzzle) if start is None else np.array(start, dtype=np.int8)
    for step in steps[:upto]:
        for r, c, v in step.cells:
            grid[r, c] = v
    return grid
