"""The staged analysis solver: line solving -> implications -> probing -> fork.

The production solver (:class:`nonosat.native.search.NativeSearch`) runs compiled and mixes its
techniques for speed.  This module is the *analysis view* of the same techniques: it always uses
the simplest one that still makes progress and records which stage made every deduction.

1. **line** -- line propagation to a fixpoint (:func:`nonosat.native.propagate.propagate_grid`);
2. **implications** -- the single-line implication graph (:mod:`nonosat.native.implications`):
   every literal forced by a contradiction or a tautology, then back to 1;
3. **probing** -- one failed-literal pass over the unknown cells with full propagation (the
   compiled kernels of :mod:`nonosat.native.propagate`): every failed literal found, or when there is
   none the cells both values of a probed cell agree on ("probe-both"), then back to 1;
4. **fork** -- when no stage makes progress: a depth-first search with propagation and probing at
   every node (:func:`fork_search`), counting the guesses (decisions) made, the maximum depth
   and, for every solution found, the guesses on the path to it -- the metric of
   dsmiller95/nonogram-printer ("the number of guesses required to get to each solution").

Stages 1-3 are monotone and sound, so the grid after each stage is the unique fixpoint of the
techniques up to that stage; the number of cells open when a stage is first needed is the open
count *after* the stages before it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from nonosat.analysis.implied import forced_literals_fast, implication_arrays
from nonosat.kernel_cache import stamp_module
from nonosat.native.implications import RULES, Literal, forced_literals, implication_graph
from nonosat.native.probe import best_branch, new_probe_scratch, probe
from nonosat.native.propagate import (
    KIND_BRANCH,
    KIND_DECISION,
    ST_TLEN,
    assign,
    clear_queue,
    mark_changed,
    new_state,
    problem_tuple,
    propagate,
    propagate_grid,
    undo_to,
)
from nonosat.puzzle import Cell, Puzzle, pack_clues, unknown_grid

#: The stages in the order the analysis tries them.
STAGES = ("line", "implications", "probing", "fork")


@dataclass(frozen=True)
class Step:
    """One batch of deductions made by one stage.

    Attributes
    ----------
    stage : str
        ``"line"``, ``"implications"`` or ``"probing"``.
    technique : str
        ``"line"`` (one line solve), ``"contradiction"``, ``"tautology"``, ``"line-conflict"``
        (implications), ``"failed-literal"`` or ``"probe-both"`` (probing).
    cells : tuple of ((row, col), Cell)
        The cells fixed, 0-based, with their values.
    line : int or None
        The line solved (rows first), for line steps.
    premise : Literal or None
        The assumption behind an implication or probing step (the refuted literal for a
        contradiction or failed literal; the cell split on for a tautology or probe-both).
    """

    stage: str
    technique: str
    cells: tuple[tuple[tuple[int, int], Cell], ...]
    line: int | None = None
    premise: Literal | None = None


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


@dataclass
class StagedRun:
    """Result of :func:`staged_solve`.

    Attributes
    ----------
    steps : list of Step
        Every deduction in order.
    grid : ndarray of int8, shape (height, width)
        State at the fixpoint of line solving, implications and probing.
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
        The deadline of :func:`staged_solve` stopped it between two rounds (``status`` is then
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


def _line_steps(deductions: list) -> list[Step]:
    """Group consecutive deductions of one line solve into one step."""
    steps: list[Step] = []
    cells: list = []
    current = None
    for cell, value, line in deductions:
        if line != current and cells:
            steps.append(Step("line", "line", tuple(cells), line=current))
            cells = []
        current = line
        cells.append((cell, Cell(value)))
    if cells:
        steps.append(Step("line", "line", tuple(cells), line=current))
    return steps


def _implication_steps(
    puzzle: Puzzle, grid: np.ndarray, depth: int | None, rules: tuple[str, ...],
    cache: dict | None = None,
) -> list[Step]:
    technique = {"contradiction": "contradiction", "tautology": "tautology", "line": "line-conflict"}
    if depth is None:  # compiled, array-based: the same list (nonosat.analysis.implied)
        forced = forced_literals_fast(implication_arrays(puzzle, grid, cache), rules)
    else:
        forced = forced_literals(implication_graph(puzzle, grid), depth, rules)
    return [
        Step("implications", technique[f.rule], ((f.literal.cell, f.literal.value),),
             premise=f.premise)
        for f in forced
    ]


@njit(cache=True, nogil=True)
def probe_pass_kernel(problem, state, cells, status, both):  # pragma: no cover - compiled
    """Probe both values of each cell of ``cells`` from the same state (at a fixpoint).

    Parameters
    ----------
    problem, state : tuples
        See :mod:`nonosat.native.propagate`; the state is restored after every probe.
    cells : ndarray of int32, shape (m,)
        Unknown cells to probe.
    status : ndarray of int8, shape (m,)
        Receives bit 1 when ``filled`` fails, bit 2 when ``empty`` fails.
    both : ndarray of int32, shape (h*w, 3)
        Receives ``(probed cell, cell, value)`` for every cell both branches of a probe fix to
        the same value (each cell once; collected only while no failed literal has been seen).

    Returns
    -------
    int
        Rows of ``both`` written, or ``-1`` when both values of a cell fail.
    """
    grid, trail, st = state[0], state[1], state[6]
    n = grid.shape[0]
    mark = np.zeros(n, np.int8)
    fcells = np.zeros(n, np.int32)
    claimed = np.zeros(n, np.bool_)
    nboth = 0
    nfail = 0
    for i in range(cells.shape[0]):
        cell = cells[i]
        base = st[ST_TLEN]
        assign(problem, state, cell, 2, KIND_DECISION, -1, -1)
        ok_f = propagate(problem, state)
        end_f = st[ST_TLEN]
        nf = end_f - base - 1 if ok_f else 0
        for k in range(nf):
            fcells[k] = trail[base + 1 + k]
            mark[fcells[k]] = grid[fcells[k]]
        undo_to(state, base)
        assign(problem, state, cell, 1, KIND_DECISION, -1, -1)
        ok_e = propagate(problem, state)
        if ok_f and ok_e and nfail == 0:
            for t in range(base + 1, st[ST_TLEN]):
                c = trail[t]
                if mark[c] == grid[c] and not claimed[c]:
                    claimed[c] = True
                    both[nboth, 0] = cell
                    both[nboth, 1] = c
                    both[nboth, 2] = grid[c]
                    nboth += 1
        undo_to(state, base)
        for k in range(nf):
            mark[fcells[k]] = 0
        status[i] = (0 if ok_f else 1) | (0 if ok_e else 2)
        if status[i] == 3:
            return -1
        if status[i] != 0:
            nfail += 1
    return nboth


def probe_pass(puzzle: Puzzle, grid: np.ndarray) -> list[Step] | None:
    """One failed-literal pass: probe both values of every unknown cell of ``grid`` with full
    line propagation, all from the same state (:func:`probe_pass_kernel`).

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray of int8, shape (height, width)
        A state (normally at a line-propagation fixpoint).

    Returns
    -------
    list of Step or None
        Every failed literal as a ``"failed-literal"`` step; if there is none, the cells fixed to
        the same value by both branches of a probe as ``"probe-both"`` steps (each cell once,
        grouped by probed cell); empty when probing finds nothing; ``None`` when both values of
        some cell fail or the state does not propagate (no solution).
    """
    h, w = puzzle.shape
    packed = pack_clues(puzzle)
    problem = problem_tuple(packed)
    state = new_state(packed, grid)
    if not propagate(problem, state):
        return None
    cells = np.nonzero(state[0] == Cell.UNKNOWN)[0].astype(np.int32)
    status = np.zeros(cells.shape[0], dtype=np.int8)
    both = np.zeros((h * w, 3), dtype=np.int32)
    nboth = probe_pass_kernel(problem, state, cells, status, both)
    if nboth < 0:
        return None
    failed = []
    for cell, code in zip(cells.tolist(), status.tolist(), strict=True):
        if code:
            rc = divmod(cell, w)
            good = Cell.EMPTY if code == 1 else Cell.FILLED
            failed.append(Step("probing", "failed-literal", ((rc, good),),
                               premise=Literal(*rc, code == 1)))
    if failed:
        return failed
    steps: list[Step] = []
    for probed, group in _by_probe(both[:nboth].tolist()):
        fixed = tuple((divmod(c, w), Cell(v)) for _, c, v in group)
        steps.append(Step("probing", "probe-both", fixed, premise=Literal(*divmod(probed, w), True)))
    return steps


def _by_probe(rows: list[list[int]]) -> list[tuple[int, list[list[int]]]]:
    """Group ``(probed cell, cell, value)`` rows by probed cell, keeping their order."""
    out: list[tuple[int, list[list[int]]]] = []
    for row in rows:
        if out and out[-1][0] == row[0]:
            out[-1][1].append(row)
        else:
            out.append((row[0], [row]))
    return out


def _apply(grid: np.ndarray, steps: list[Step]) -> bool:
    """Write the steps' cells into ``grid``; ``False`` if two steps disagree on a cell."""
    for step in steps:
        for cell, value in step.cells:
            old = grid[cell]
            if old != Cell.UNKNOWN and old != value:
                return False
            grid[cell] = value
    return True


def staged_solve(
    puzzle: Puzzle,
    grid: np.ndarray | None = None,
    *,
    depth: int | None = None,
    stages: tuple[str, ...] = ("line", "implications", "probing"),
    rules: tuple[str, ...] = RULES,
    deadline: float | None = None,
) -> StagedRun:
    """Solve by logic, always with the simplest stage that makes progress.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray of int8, shape (height, width), optional
        Starting state (givens); all unknown when omitted.  Not modified.
    depth : int, optional
        Traversal depth of the implication graph (unlimited when omitted).
    rules : tuple of str
        Implication rules, in order of preference (see
        :func:`nonosat.native.implications.forced_literals`).
    stages : tuple of str
        The logical stages allowed, among ``"line"``, ``"implications"``, ``"probing"``
        (``"line"`` always runs).
    deadline : float, optional
        A ``time.perf_counter()`` value: past it, no further implication or probing round
        starts (one compiled round is not interrupted) and the run is ``stopped``.

    Returns
    -------
    StagedRun
    """
    state = (unknown_grid(puzzle) if grid is None else np.asarray(grid, dtype=np.int8)).copy()
    steps: list[Step] = []
    open_after = {"start": int((state == Cell.UNKNOWN).sum())}
    invocations = dict.fromkeys(STAGES[:3], 0)
    spent = dict.fromkeys(STAGES[:3], 0.0)
    status = "stuck"
    line_cache: dict = {}  # each line's implications by contents, across rounds
    stopped = False
    while True:
        t0 = time.perf_counter()
        result = propagate_grid(puzzle, state)
        spent["line"] += time.perf_counter() - t0
        if result is None:
            status = "contradiction"
            break
        state, deductions = result
        if deductions:
            invocations["line"] += 1
            steps.extend(_line_steps(deductions))
        if not (state == Cell.UNKNOWN).any():
            status = "solved"
            break
        open_after.setdefault("line", int((state == Cell.UNKNOWN).sum()))
        if deadline is not None and time.perf_counter() >= deadline:
            stopped = True
            break
        new: list[Step] | None = []
        if "implications" in stages:
            t0 = time.perf_counter()
            new = _implication_steps(puzzle, state, depth, rules, line_cache)
            spent["implications"] += time.perf_counter() - t0
            if new:
                invocations["implications"] += 1
        if not new:
            open_after.setdefault("implications", int((state == Cell.UNKNOWN).sum()))
            if "probing" in stages:
                t0 = time.perf_counter()
                new = probe_pass(puzzle, state)
                spent["probing"] += time.perf_counter() - t0
                if new is None:
                    status = "contradiction"
                    break
                if new:
                    invocations["probing"] += 1
        if not new:
            open_after.setdefault("probing", int((state == Cell.UNKNOWN).sum()))
            break
        steps.extend(new)
        if not _apply(state, new):
            status = "contradiction"
            break
    final_open = int((state == Cell.UNKNOWN).sum())
    for stage in ("line", "implications", "probing"):
        open_after.setdefault(stage, final_open)
    return StagedRun(steps, state, status, open_after, invocations,
                     {k: round(v, 6) for k, v in spent.items()}, stopped)


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
    h, w = puzzle.shape
    packed = pack_clues(puzzle)
    problem = problem_tuple(packed)
    start = unknown_grid(puzzle) if grid is None else np.asarray(grid, dtype=np.int8)
    state = new_state(packed, start)
    scratch = new_probe_scratch(h * w)
    flat, st = state[0], state[6]
    out = ForkResult()
    frames: list[list[int]] = []  # cell, trail length before the decision, value, flipped
    deadline = None if timeout is None else time.perf_counter() + timeout
    node_start = 0
    while True:
        if deadline is not None and time.perf_counter() >= deadline:
            return out
        ok = propagate(problem, state)
        if ok:
            mark_changed(problem, state, node_start)
            ok = probe(problem, state, scratch) >= 0
        if ok:
            cell, value = best_branch(problem, state, scratch, 0)
            if cell < 0:
                out.solutions.append((flat == Cell.FILLED).reshape(h, w).copy())
                out.guesses_to_solutions.append(len(frames))
                if len(out.solutions) >= limit:
                    out.finished = True
                    return out
            else:
                node_start = int(st[ST_TLEN])
                frames.append([int(cell), node_start, int(value), 0])
                out.guesses += 1
                out.max_depth = max(out.max_depth, len(frames))
                assign(problem, state, int(cell), int(value), KIND_DECISION, len(frames) - 1, -1)
                continue
        clear_queue(state)
        scratch[1][:] = -1  # after a backtrack every cell is probed afresh
        while frames:
            top = frames[-1]
            undo_to(state, top[1])
            if not top[3]:
                top[3] = 1
                node_start = top[1]
                assign(problem, state, top[0], 3 - top[2], KIND_BRANCH, len(frames) - 1, -1)
                break
            frames.pop()
        else:
            out.finished = True
            return out


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
