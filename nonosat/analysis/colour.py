"""Analysis, hints and explanations of colour puzzles.

Hints and explanations
----------------------
The staged solve of a colour puzzle takes human-sized steps, simplest first:

1. **line** -- the complete colour line solver (:func:`nonosat.native.colour.solve_colour_line`)
   on one line narrows the colours some of its cells can take (rows top to bottom, then columns,
   the line that fixes most cells first);
2. **probing** -- a colour a cell could still take is tried and propagation (line solving on
   every line) contradicts: the colour is removed (a failed literal);
3. **guess** -- neither applies: the rest needs search.

:func:`colour_explain` lists those steps until the grid is solved, contradicts or needs a guess;
:func:`colour_hint` is its first step from a given grid state.

Analysis
--------
:func:`analyse_colour` reports what :func:`nonosat.analysis.difficulty.analyse` reports for
black-and-white, through the same code wherever the colour case fits it: the verdict from the
``auto`` portfolio; the staged logic as fixpoints (:func:`colour_staged_solve`: line solving,
then probing passes; there is no implication stage for colour), so the cells each stage decides
sum to the cells known after it; the engine's search figures when logic gets stuck; the
one-line classification and the grade on the 1-5 scale (the black-and-white functions, fed the
colour figures); the independent parts of the cells logic leaves open
(:func:`nonosat.analysis.structure.independent_parts` on :func:`colour_open_grid`); a smallest
backdoor to colour line solving (:func:`colour_backdoor`: the hitting-set search of
:mod:`nonosat.analysis.backdoor` with the colour line closure); for several solutions the whole
ambiguity map (:func:`colour_ambiguity_map`, chunked SAT backbone over the colour CNF) and
extra givens (:func:`colour_givens`); the single-line implication graph over the literals "cell
takes colour c" (:func:`colour_implication_graph`), its strongly connected components and
export (:func:`write_colour_graph`).  A cell is *decided* when one colour is left; line and
probing steps that only narrow a cell's colours count as steps but decide no cell.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from nonosat import interrupts
from nonosat.analysis.ambiguity import (
    Backbone,
    UniquenessGivens,
    _CellRounds,
    _differing,
    _narrow,
    edit_suggestions,
)
from nonosat.analysis.backdoor import Backdoor, smallest_backdoor
from nonosat.analysis.classify import classify, found_ambiguous, search_effort
from nonosat.analysis.difficulty import (
    BACKDOOR_TIMEOUT,
    COUNT_CAP,
    SECTIONS,
    Analysis,
    Clock,
    _empty_staged,
    _goal_fits,
    not_graded,
    solution_count,
)
from nonosat.analysis.staged import STAGES, StagedRun, Step
from nonosat.analysis.structure import independent_parts, scc_summary
from nonosat.engines import SolveResult, Status
from nonosat.native.colour import ColourProblem, colour_propagate, solve_colour_line
from nonosat.puzzle import Cell, Puzzle, colour_clue_text, colour_rows
from nonosat.verdict import decide


def _names(puzzle: Puzzle, mask: int) -> str:
    assert puzzle.palette is not None
    cs = puzzle.palette.colours
    return " or ".join(cs[k].name for k in range(len(cs)) if (mask >> k) & 1) or "nothing"


@dataclass
class ColourStep:
    """One deduction: ``technique`` (``"line"`` / ``"probing"``), the ``line`` it used (or
    ``None``), ``cells`` ``[((row, col), new_mask), ...]`` (colour bit masks) and a sentence."""

    technique: str
    line: int | None
    cells: list[tuple[tuple[int, int], int]]
    text: str

    def to_json(self, puzzle: Puzzle) -> dict[str, Any]:
        """JSON form: technique, line name, text, cells with their remaining colour names."""
        return {
            "technique": self.technique,
            "line": puzzle.line_name(self.line) if self.line is not None else None,
            "text": self.text,
            "cells": [
                {"row": r + 1, "col": c + 1, "colours": _names(puzzle, m).split(" or ")}
                for (r, c), m in self.cells
            ],
        }


@dataclass
class ColourExplanation:
    """Steps of the staged colour solve and how it ended: ``end`` is ``"solved"``,
    ``"no-solution"``, ``"guess"`` (search needed) or ``"stopped"`` (max steps); ``grid`` the
    grid state reached (int32 colour masks, ``(height, width)``)."""

    steps: list[ColourStep]
    end: str
    grid: np.ndarray

    def technique_counts(self) -> dict[str, int]:
        """Number of steps of each technique."""
        out: dict[str, int] = {}
        for s in self.steps:
            out[s.technique] = out.get(s.technique, 0) + 1
        return out


def _line_cells(puzzle: Puzzle, line: int) -> list[tuple[int, int]]:
    if line < puzzle.height:
        return [(line, c) for c in range(puzzle.width)]
    return [(r, line - puzzle.height) for r in range(puzzle.height)]


def _line_step(puzzle: Puzzle, grid: np.ndarray) -> ColourStep | None | bool:
    """The line deduction fixing most cells; ``None`` if none; ``False`` on a contradiction."""
    best: ColourStep | None = None
    best_gain = 0
    colours = puzzle.line_colours
    for line, clue in enumerate(puzzle.lines):
        if clue is None:
            continue
        cells = _line_cells(puzzle, line)
        before = np.array([grid[r, c] for r, c in cells], dtype=np.int32)
        after = solve_colour_line(clue, colours[line] or (), before, puzzle.n_colours)
        if after is None:
            return False
        changed = [(cells[i], int(after[i])) for i in range(len(cells)) if after[i] != before[i]]
        gain = sum(1 for _, m in changed if m & (m - 1) == 0)  # cells decided
        if changed and (best is None or gain > best_gain):
            best_gain = gain
            text = (
                f"{puzzle.line_name(line)}, clue "
                f"{colour_clue_text(clue, colours[line], puzzle.palette)}: "
                + "; ".join(
                    f"R{r + 1}C{c + 1} {_names(puzzle, m)}" for (r, c), m in changed[:8]
                )
                + (f" (and {len(changed) - 8} more)" if len(changed) > 8 else "")
            )
            best = ColourStep("line", line, changed, text)
    return best


def _probe_step(puzzle: Puzzle, grid: np.ndarray) -> ColourStep | None:
    """A failed literal: a colour of an undecided cell whose trial contradicts."""
    problem = ColourProblem.of(puzzle)
    flat = grid.reshape(-1)
    for cell in range(flat.size):
        v = int(flat[cell])
        if v & (v - 1) == 0:
            continue
        for k in range(puzzle.n_colours):
            if not (v >> k) & 1:
                continue
            trial = flat.copy()
            trial[cell] = 1 << k
            if not problem.propagate(trial):
                r, c = divmod(cell, puzzle.width)
                new = v & ~(1 << k)
                assert puzzle.palette is not None
                text = (
                    f"if R{r + 1}C{c + 1} were {puzzle.palette.colours[k].name}, line solving "
                    f"would reach a contradiction: it is {_names(puzzle, new)}"
                )
                return ColourStep("probing", None, [((r, c), new)], text)
    return None


def colour_explain(
    puzzle: Puzzle, grid: np.ndarray | None = None, max_steps: int | None = None
) -> ColourExplanation:
    """The staged solve as steps (module docstring), from ``grid`` (int32 colour masks; all
    colours everywhere when omitted)."""
    full = (1 << puzzle.n_colours) - 1
    g = (
        np.full(puzzle.shape, full, dtype=np.int32)
        if grid is None
        else np.asarray(grid, dtype=np.int32).copy()
    )
    steps: list[ColourStep] = []
    while True:
        if (g == 0).any():
            return ColourExplanation(steps, "no-solution", g)
        if ((g & (g - 1)) == 0).all():
            return ColourExplanation(steps, "solved", g)
        if max_steps is not None and len(steps) >= max_steps:
            return ColourExplanation(steps, "stopped", g)
        step = _line_step(puzzle, g)
        if step is False:
            return ColourExplanation(steps, "no-solution", g)
        if step is None:
            step = _probe_step(puzzle, g)
        if step is None:
            return ColourExplanation(steps, "guess", g)
        for (r, c), m in step.cells:
            g[r, c] = m
        steps.append(step)


def colour_hint(puzzle: Puzzle, grid: np.ndarray | None = None) -> tuple[str, ColourStep | None]:
    """The next step from ``grid``: ``("hint", step)``, or ``("solved" | "no-solution" |
    "guess", None)``."""
    result = colour_explain(puzzle, grid, max_steps=1)
    if result.steps:
        return "hint", result.steps[0]
    return result.end, None


# -- the staged solve of the analysis ---------------------------------------------------------
def _is_open(grid: np.ndarray) -> np.ndarray:
    """Cells that can still take more than one colour (bool, same shape)."""
    g = np.asarray(grid)
    return (g & (g - 1)) != 0


def _colour_of(mask: int) -> int:
    return int(mask).bit_length() - 1


@dataclass
class ColourStagedRun(StagedRun):
    """:class:`~nonosat.analysis.staged.StagedRun` of a colour puzzle
    (:func:`colour_staged_solve`): ``grid`` holds int32 colour bit masks, a step's ``cells`` the
    cells it *decided* (one colour left) with their colour index; the ``implications`` stage does
    not exist for colour (its figures are 0)."""

    def cells_by_step(self) -> dict[str, int]:
        """Cells decided by the steps of each stage as the staged run interleaves them."""
        counts = dict.fromkeys(STAGES[:3], 0)
        for step in self.steps:
            counts[step.stage] += len(step.cells)
        return counts


def _line_fixpoint(puzzle: Puzzle, grid: np.ndarray) -> list[Step] | None:
    """Line solving to a fixpoint on ``grid`` (int32 masks, ``(h, w)``, updated in place), one
    line at a time (rows first, then every line a change touched): one ``line`` step per line
    solve that narrowed a cell.  ``None`` on a contradiction."""
    h, w = puzzle.shape
    colours = puzzle.line_colours
    queue = deque(range(h + w))
    queued = [True] * (h + w)
    steps: list[Step] = []
    while queue:
        line = queue.popleft()
        queued[line] = False
        clue = puzzle.lines[line]
        if clue is None:
            continue
        cells = grid[line, :] if line < h else grid[:, line - h]
        after = solve_colour_line(clue, colours[line] or (), cells, puzzle.n_colours)
        if after is None:
            return None
        changed = np.flatnonzero(after != cells)
        if changed.size == 0:
            continue
        decided = []
        for i in changed.tolist():
            cell = (line, i) if line < h else (i, line - h)
            m = int(after[i])
            grid[cell] = m
            other = h + i if line < h else i
            if not queued[other]:
                queued[other] = True
                queue.append(other)
            if m & (m - 1) == 0:
                decided.append((cell, _colour_of(m)))
        steps.append(Step("line", "line", tuple(decided), line=line))
    return steps


def colour_probe_pass(
    puzzle: Puzzle, grid: np.ndarray
) -> tuple[list[Step], list[tuple[tuple[int, int], int]]] | None:
    """One probing pass over the open cells of ``grid`` (int32 masks at a line fixpoint), every
    trial from the same state: each colour a cell can still take is set and propagated
    (:func:`nonosat.native.colour.colour_propagate`).

    Returns
    -------
    (steps, narrowed) or None
        Every colour whose trial contradicts is removed (``"failed-literal"`` steps, one per
        probed cell); if none is, every cell keeps only the colours some trial of a probed cell
        allows (``"probe-all"`` steps, grouped by probed cell, a cell counted for the first
        probe that narrows it).  ``narrowed`` lists ``((row, col), new mask)``.  Both are empty
        when probing finds nothing; ``None`` when every colour of some cell fails.
    """
    problem = ColourProblem.of(puzzle)
    h, w = puzzle.shape
    flat = np.ascontiguousarray(grid, dtype=np.int32).reshape(-1).copy()
    queued = np.zeros(h + w, np.bool_)
    st = np.zeros(3, np.int64)
    failed: list[tuple[int, int]] = []
    new = flat.copy()
    groups: list[tuple[int, list[int]]] = []
    for cell in np.flatnonzero(_is_open(flat)).tolist():
        v = int(flat[cell])
        union = np.zeros_like(flat)
        removed = 0
        for k in range(puzzle.n_colours):
            if not (v >> k) & 1:
                continue
            trial = flat.copy()
            trial[cell] = 1 << k
            queued[cell // w] = True
            queued[h + cell % w] = True
            if colour_propagate(trial, problem.lens, problem.cols, problem.start, problem.known,
                                h, w, problem.ncol, queued, st):
                union |= trial
            else:
                removed |= 1 << k
        if removed == v:
            return None
        if removed:
            failed.append((cell, v & ~removed))
        elif not failed:
            narrower = (new & union) != new
            narrower[cell] = False
            if narrower.any():
                groups.append((cell, np.flatnonzero(narrower).tolist()))
                new &= union
    steps: list[Step] = []
    narrowed: list[tuple[tuple[int, int], int]] = []
    if failed:
        for cell, m in failed:
            rc = divmod(cell, w)
            fixed = ((rc, _colour_of(m)),) if m & (m - 1) == 0 else ()
            steps.append(Step("probing", "failed-literal", fixed))
            narrowed.append((rc, m))
        return steps, narrowed
    seen: set[int] = set()
    for _probed, cells in groups:
        fixed = []
        for i in cells:
            if i in seen:
                continue
            seen.add(i)
            m = int(new[i])
            narrowed.append((divmod(i, w), m))
            if m & (m - 1) == 0:
                fixed.append((divmod(i, w), _colour_of(m)))
        steps.append(Step("probing", "probe-all", tuple(fixed)))
    return steps, narrowed


def colour_staged_solve(puzzle: Puzzle, grid: np.ndarray | None = None, *,
                        deadline: float | None = None) -> ColourStagedRun:
    """Solve a colour puzzle by logic, always with the simplest stage that makes progress, as
    :func:`nonosat.analysis.staged.staged_solve` does for black-and-white: line solving to a
    fixpoint, then one probing pass (:func:`colour_probe_pass`), then line solving again, until
    neither makes progress.  There is no implication stage: ``open_after["implications"]``
    equals ``open_after["line"]``.  Both stages are monotone and sound, so the grid after each
    is the unique fixpoint of the stages up to it (the fixpoint of the native solver's root
    node, :meth:`nonosat.native.colour.ColourProblem.probe`, after probing) and the cells per
    stage add up.

    Parameters
    ----------
    puzzle : Puzzle
        A colour puzzle.
    grid : ndarray of int, shape (height, width), optional
        Starting state (colour bit masks); every colour everywhere when omitted.  Not modified.
    deadline : float, optional
        A ``time.perf_counter()`` value: past it no further probing pass starts and the run is
        ``stopped`` (as :func:`nonosat.analysis.staged.staged_solve`).

    Returns
    -------
    ColourStagedRun
        ``status`` ``"solved"``, ``"stuck"`` or ``"contradiction"``.
    """
    full = (1 << puzzle.n_colours) - 1
    state = (np.full(puzzle.shape, full, dtype=np.int32) if grid is None
             else np.asarray(grid, dtype=np.int32).copy())
    steps: list[Step] = []
    open_after = {"start": int(_is_open(state).sum())}
    invocations = dict.fromkeys(STAGES[:3], 0)
    spent = dict.fromkeys(STAGES[:3], 0.0)
    status = "stuck"
    stopped = False
    while True:
        t0 = time.perf_counter()
        trial = state.copy()  # a contradiction leaves the state as it was, as for black-and-white
        line_steps = _line_fixpoint(puzzle, trial) if not (state == 0).any() else None
        spent["line"] += time.perf_counter() - t0
        if line_steps is not None:
            state = trial
        if line_steps is None:
            status = "contradiction"
            break
        if line_steps:
            invocations["line"] += 1
            steps.extend(line_steps)
        if not _is_open(state).any():
            status = "solved"
            break
        left = int(_is_open(state).sum())
        open_after.setdefault("line", left)
        open_after.setdefault("implications", left)
        if deadline is not None and time.perf_counter() >= deadline:
            stopped = True
            break
        t0 = time.perf_counter()
        probed = colour_probe_pass(puzzle, state)
        spent["probing"] += time.perf_counter() - t0
        if probed is None:
            status = "contradiction"
            break
        new, narrowed = probed
        if not narrowed:
            open_after.setdefault("probing", left)
            break
        invocations["probing"] += 1
        steps.extend(new)
        for cell, m in narrowed:
            state[cell] &= m
    final_open = int(_is_open(state).sum())
    for stage in STAGES[:3]:
        open_after.setdefault(stage, final_open)
    return ColourStagedRun(steps, state, status, open_after, invocations,
                           {k: round(v, 6) for k, v in spent.items()}, stopped)


# -- structure ---------------------------------------------------------------------------------
def colour_open_grid(grid: np.ndarray) -> np.ndarray:
    """A black-and-white grid state (int8) with :data:`~nonosat.puzzle.Cell.UNKNOWN` exactly
    where the colour state ``grid`` leaves several colours: the input of
    :func:`nonosat.analysis.structure.independent_parts`."""
    return np.where(_is_open(grid), np.int8(Cell.UNKNOWN), np.int8(Cell.FILLED)).astype(np.int8)


def colour_closure(
    puzzle: Puzzle, logic: str = "line"
) -> Callable[[np.ndarray], np.ndarray | None]:
    """The colour closure: a function from a grid state (colour masks, ``(h, w)``) to its
    fixpoint (a new array; ``None`` on a contradiction) under ``logic``: ``"line"``, line
    propagation (:meth:`nonosat.native.colour.ColourProblem.propagate`, compiled), or
    ``"probing"``, propagation and probing (:meth:`~nonosat.native.colour.ColourProblem.probe`).

    Raises
    ------
    ValueError
        Unknown ``logic``.
    """
    if logic not in ("line", "probing"):
        raise ValueError(f"unknown logic {logic!r}; use 'line' or 'probing'")
    problem = ColourProblem.of(puzzle)
    step = problem.propagate if logic == "line" else problem.probe

    def close(grid: np.ndarray) -> np.ndarray | None:
        flat = np.asarray(grid, dtype=np.int32).reshape(-1).copy()
        return flat.reshape(puzzle.shape) if step(flat) else None

    return close


def colour_backdoor(
    puzzle: Puzzle, solution: np.ndarray, *, logic: str = "line", timeout: float | None = 10.0,
    seed: int = 0, several: bool = False,
) -> Backdoor:
    """A smallest backdoor of a colour puzzle to colour line solving (``logic="probing"``: line
    solving and probing): the fewest cells whose colours (from ``solution``, int8 colour
    indices) make that logic decide every cell; :func:`nonosat.analysis.backdoor.smallest_backdoor`
    (implicit hitting sets, exact or the best found with a proved lower bound) with
    :func:`colour_closure`.  ``cells`` of the result hold colour indices; ``several`` records
    that ``solution`` is one of several (its givens then also make it the only one)."""
    full = (1 << puzzle.n_colours) - 1
    sol = np.asarray(solution, dtype=np.int64)
    return smallest_backdoor(
        puzzle, sol, logic=logic, timeout=timeout, seed=seed, several=several,
        close=colour_closure(puzzle, logic),
        start_grid=np.full(puzzle.shape, full, dtype=np.int32),
        target_grid=(1 << sol).astype(np.int32),
    )


# -- several solutions -------------------------------------------------------------------------
def colour_ambiguity_map(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    known: np.ndarray | None = None,
    *,
    timeout: float | None = None,
) -> Backbone:
    """The backbone (cells of the same colour in every solution) and the whole ambiguity map of
    a colour puzzle, by chunking over one SAT solver as
    :func:`nonosat.analysis.ambiguity.ambiguity_map` does for black-and-white: the colour CNF
    (:func:`nonosat.encodings.cnf_colour.encode_colour`, restricted to ``known``), first the
    solution-guided witnesses (each solution blocked, phases on the last one), then, again
    and again, the clause "some candidate cell has another colour than in the reference"; a
    model is a new witness and drops every candidate it changes, unsatisfiability proves the
    rest backbone.

    Parameters
    ----------
    puzzle : Puzzle
    solutions : list of ndarray of int8
        At least one solution (colour indices); the first is the reference.
    known : ndarray of int, shape (height, width), optional
        A grid state of colour masks every solution agrees with (logic's fixpoint): its decided
        cells are never candidates.
    timeout : float, optional
        Seconds; candidates left then are ``undecided``.

    Returns
    -------
    Backbone
        ``witnesses`` (int8 colour indices) differ, together, on exactly the ambiguous cells.

    Raises
    ------
    ValueError
        ``solutions`` is empty.
    """
    from nonosat.encodings.cnf_colour import encode_colour
    from nonosat.encodings.satsolver import SatRun

    if not solutions:
        raise ValueError("the backbone needs at least one solution")
    deadline = None if timeout is None else time.perf_counter() + timeout
    ref = np.asarray(solutions[0], dtype=np.int8)
    witnesses = [ref] + [np.asarray(s, dtype=np.int8) for s in solutions[1:]]
    candidate = np.ones(puzzle.shape, dtype=bool)
    if known is not None:
        candidate &= _is_open(np.asarray(known))
    for sol in witnesses[1:]:
        candidate &= sol == ref
    undecided = np.zeros(puzzle.shape, dtype=bool)
    if candidate.any():
        enc = encode_colour(puzzle, None if known is None else np.asarray(known, dtype=np.int32))
        with SatRun(enc.clauses) as run:
            def phase_lits(sol: np.ndarray) -> list[int]:
                # "cell (r, c) has colour sol[r, c]" true, its other colours false
                lits = []
                for (r, c), k in np.ndenumerate(sol):
                    for j in range(enc.ncol):
                        v = enc.cell_var(r, c, j)
                        lits.append(v if j == k else -v)
                return lits

            # each cell's literal "the cell has its reference colour"
            agree = np.array([enc.cell_var(r, c, int(k)) for (r, c), k in np.ndenumerate(ref)])

            def differs(cand: np.ndarray) -> list[int]:
                return (-agree.reshape(ref.shape)[cand]).tolist()

            # as black-and-white: guided witnesses first (the solver takes phases), then chunks
            # and per-cell checks
            guided = run.set_phases(phase_lits(witnesses[-1]))
            rounds = _CellRounds(agree, _colour_line_settle(puzzle, ref, known))
            undecided = _narrow(puzzle, enc, run, witnesses, candidate, ref, deadline,
                                differs=differs, guided=guided, block=enc.blocking_clause,
                                phase_lits=phase_lits, cells=rounds)
    ambiguous = _differing(witnesses, ref)
    mask = ~ambiguous & ~undecided
    return Backbone(mask, undecided, witnesses, solves=len(witnesses) - len(solutions) + 1)


def _colour_line_settle(
    puzzle: Puzzle, ref: np.ndarray, known: np.ndarray | None,
) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`nonosat.analysis.ambiguity._line_settle` for a colour puzzle: cells proven
    backbone (bool, (h, w)) take their colour in ``ref`` in a grid of colour masks that starts
    from ``known``; colour line propagation (:func:`colour_closure`) to a fixpoint; returns the
    further cells it decides (one colour left; bool, (h, w)), backbone too.

    Raises
    ------
    AssertionError
        Propagation contradicts ``ref`` (a solution): a line solver or encoding bug.
    """
    close = colour_closure(puzzle)
    full = (1 << puzzle.n_colours) - 1
    grid = np.full(puzzle.shape, full, dtype=np.int32)
    if known is not None:
        grid &= np.asarray(known, dtype=np.int32)
    values = (1 << ref.astype(np.int32)).astype(np.int32)

    def settle(proven: np.ndarray) -> np.ndarray:
        grid[proven] = values[proven]
        out = close(grid)
        if out is None or ((out & values) == 0).any():  # pragma: no cover - a solver bug
            raise AssertionError("colour propagation from backbone cells contradicts a solution")
        new = _is_open(grid) & ~_is_open(out)
        grid[:] = out
        return new

    return settle


def colour_backbone(
    puzzle: Puzzle, solutions: list[np.ndarray], deadline: float | None = None
) -> tuple[list[np.ndarray], int | None]:
    """The backbone of a colour puzzle as ``(witnesses, size)`` (``size`` ``None`` when
    ``deadline``, a ``time.perf_counter()`` value, passed first): :func:`colour_ambiguity_map`."""
    timeout = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
    bb = colour_ambiguity_map(puzzle, solutions, timeout=timeout)
    return bb.witnesses, None if bb.undecided.any() else bb.size


def colour_givens(
    puzzle: Puzzle,
    solutions: list[np.ndarray],
    deadline: float | None = None,
    *,
    known: np.ndarray | None = None,
) -> list[tuple[int, int, int]] | None:
    """Givens ``(row, col, colour)`` that make the solution ``solutions[0]`` unique, greedy and
    irredundant: give a cell on which the target and another solution differ (its target
    colour) until no other solution is left, then drop every given the others make redundant.

    One incremental SAT solver (CaDiCaL through PySAT) holds the colour CNF
    (:func:`nonosat.encodings.cnf_colour.encode_colour`, restricted to ``known``, a grid state of
    colour masks every solution agrees with) and the clause "some cell differs from the
    target"; each check solves it under the givens as assumptions: unsatisfiable means the
    givens make the target the only solution, a model is another solution.

    Returns
    -------
    list of (row, col, colour) or None
        0-based cells with colour indices, in the order chosen; ``None`` when ``deadline`` (a
        ``time.perf_counter()`` value) passed first.
    """
    from pysat.solvers import Solver

    from nonosat.encodings.cnf_colour import encode_colour
    from nonosat.encodings.satsolver import DEFAULT_SOLVER, solver_name

    target = np.asarray(solutions[0], dtype=np.int8)
    enc = encode_colour(puzzle, None if known is None else np.asarray(known, dtype=np.int32))
    open_cells = np.ones(puzzle.shape, dtype=bool) if known is None else _is_open(known)

    def lit(r: int, c: int) -> int:
        return enc.cell_var(r, c, int(target[r, c]))

    interrupts.before_blocking()  # CaDiCaL holds the GIL (nonosat.encodings.satsolver)
    with Solver(name=solver_name(DEFAULT_SOLVER), bootstrap_with=enc.clauses) as sat:
        sat.add_clause([-lit(int(r), int(c)) for r, c in np.argwhere(open_cells)])

        def other(givens: list[tuple[int, int, int]]) -> np.ndarray | bool | None:
            """Another solution with ``givens``; ``False`` if none; ``None`` at the deadline."""
            assumptions = [lit(r, c) for r, c, _ in givens]
            while True:
                if deadline is not None and time.perf_counter() >= deadline:
                    return None
                # budgeted calls, also without a deadline: CaDiCaL cannot be interrupted
                # otherwise (nonosat.encodings.satsolver), and an interrupt is checked between
                sat.conf_budget(5_000)
                answer = sat.solve_limited(assumptions=assumptions)
                interrupts.check()
                if answer is None:
                    continue
                return enc.solution(sat.get_model()) if answer else False

        givens: list[tuple[int, int, int]] = []
        found = other(givens)
        while found is not False:
            if found is None:
                return None
            r, c = (int(v) for v in np.argwhere(found != target)[0])
            givens.append((r, c, int(target[r, c])))
            found = other(givens)
        for given in list(reversed(givens)):
            if len(givens) == 1:
                break
            rest = [g for g in givens if g != given]
            found = other(rest)
            if found is None:
                return None
            if found is False:
                givens = rest
    return givens


# -- the analysis ------------------------------------------------------------------------------
@dataclass
class ColourAnalysis(Analysis):
    """What :func:`analyse_colour` found: an :class:`~nonosat.analysis.difficulty.Analysis`
    (same fields, same report and JSON keys) of a colour puzzle.  ``solutions`` and the
    backbone's witnesses hold colour indices (int8); ``staged`` is a :class:`ColourStagedRun`;
    ``givens.cells`` and ``backdoor.cells`` carry colour indices; ``graph`` (when kept) is
    :func:`colour_implication_graph`'s and ``graph_summary`` its figures; the linked-cells
    fields stay empty (not computed for colour)."""

    @property
    def ambiguous(self) -> np.ndarray | None:
        """The ambiguity map (bool, ``(h, w)``), or ``None`` without several solutions."""
        return None if self.backbone is None else self.backbone.ambiguous

    def to_json(self, name: str | None = None) -> dict[str, Any]:
        """The keys of :meth:`Analysis.to_json`, with ``"kind": "colour"``, ``"colours"`` (the
        palette's names, background first), solutions as rows of palette characters, and
        backdoor, givens and edit cells with ``"colour"`` (a name) instead of ``"value"``."""
        palette = self.puzzle.palette
        assert palette is not None
        names = [c.name for c in palette.colours]
        blank = [np.zeros(self.puzzle.shape, dtype=bool)] * len(self.solutions)
        out = Analysis.to_json(replace(self, solutions=blank, backdoor=None, givens=None), name)
        out["kind"] = "colour"
        out["colours"] = names
        out["solutions"] = [colour_rows(s, palette) for s in self.solutions[:10]]
        if self.backdoor is not None:
            bd = self.backdoor.to_json()
            bd["cells"] = [{"row": r + 1, "col": c + 1, "colour": names[int(k)]}
                           for (r, c), k in self.backdoor.cells]
            out["backdoor"] = {**bd, "of": self.backdoor_of}
        if self.status == Status.MULTIPLE:
            out["edits"] = [{"row": e["cell"][0] + 1, "col": e["cell"][1] + 1,
                             "colour": e["colour"], "text": e["text"]} for e in self.edits]
        if self.givens is not None:
            out["uniqueness_givens"] = {
                "cells": [{"row": r + 1, "col": c + 1, "colour": names[int(k)]}
                          for (r, c), k in self.givens.cells],
                "unique": self.givens.unique,
                "minimal": False,
                "note": "greedy and irredundant (no single given can be dropped), not proved "
                        "minimum",
            }
        return out


def analyse_colour(
    puzzle: Puzzle,
    *,
    limit: int = 2,
    count_all: bool = False,
    engine: str = "auto",
    timeout: float | None = 30.0,
    structure: bool = True,
    backdoor_timeout: float | None = BACKDOOR_TIMEOUT,
    keep_graph: bool = False,
    backdoor_logic: str = "line",
    progress: list | None = None,
    count: bool = True,
) -> ColourAnalysis:
    """Analyse a colour puzzle as :func:`nonosat.analysis.difficulty.analyse` analyses a
    black-and-white one.

    The verdict and the solutions come from ``engine`` (default the ``auto`` portfolio, as
    ``nonosat solve``); the staged logic (:func:`colour_staged_solve`: line solving, probing)
    gives the cells each stage decides (they sum to the cells) and the cells open after each;
    when logic gets stuck, the search figures are the engine's (the native colour search's
    guesses, or SAT's conflicts after the hand-off).  Then: the one-line classification
    (:func:`nonosat.analysis.classify.classify`), the grade on the 1-5 scale
    (:func:`nonosat.analysis.difficulty.assess`, as for black-and-white: no grade without a
    solution or with several), the independent parts of the cells
    line solving and all logic leave open (:func:`nonosat.analysis.structure.independent_parts`),
    for every puzzle with a solution a smallest backdoor (:func:`colour_backdoor`; empty for a
    line-solvable one; with several solutions that of the goal picture when it is a solution,
    else of the first solution found), and for several
    solutions the backbone and whole ambiguity map (:func:`colour_ambiguity_map`) and extra
    givens (:func:`colour_givens`), and one-cell edits of the picture (each cell painted another
    colour) whose clues have a unique solution
    (:func:`nonosat.analysis.ambiguity.edit_suggestions`, at most 5 s of what is left).

    Parameters
    ----------
    puzzle : Puzzle
        A colour puzzle.
    limit : int
        Count solutions up to this many (2 decides uniqueness).
    count_all : bool
        Enumerate every solution, up to :data:`~nonosat.analysis.difficulty.COUNT_CAP`.
    engine : str
        Engine for the verdict and the solutions.
    timeout : float, optional
        Seconds for the whole analysis, shared by its sections as by
        :func:`nonosat.analysis.difficulty.analyse` (:attr:`Analysis.sections` says which
        finished).
    structure : bool
        Compute the ambiguity map, givens, independent parts and backdoor.
    backdoor_timeout : float, optional
        Seconds for the backdoor search (``0`` skips it).
    backdoor_logic : str
        What completes the backdoor's givens: ``"line"`` or ``"probing"``.
    keep_graph : bool
        Keep the implication graph at the line-solving fixpoint
        (:func:`colour_implication_graph`) in ``graph`` (for export); its figures are in
        ``graph_summary`` either way.
    progress : list, optional
        As for :func:`nonosat.analysis.difficulty.analyse`.
    count : bool
        Count several solutions exactly (as :func:`nonosat.analysis.difficulty.analyse`).

    Returns
    -------
    ColourAnalysis
    """
    start = time.perf_counter()
    clock = Clock(timeout)
    cap = max(limit, COUNT_CAP) if count_all else limit
    result = decide(puzzle, engine=engine, limit=cap, timeout=clock.left())  # as 'nonosat solve'
    clock.allow(result.load_s)  # loading the engine's kernels is not the analysis' time
    solutions = list(result.solutions)
    status = result.status
    counted_all = (status in (Status.UNIQUE, Status.NONE)
                   or (status == Status.MULTIPLE and len(solutions) < cap
                       and getattr(result, "exhausted", True)))
    if status == Status.SOLVED:
        counted_all = False
    sections = dict.fromkeys(SECTIONS, "time limit")
    sections["verdict"] = "done" if status != Status.UNKNOWN else "cut short"
    empty = _empty_staged(puzzle)
    empty = ColourStagedRun(empty.steps, np.full(puzzle.shape, (1 << puzzle.n_colours) - 1,
                                                 dtype=np.int32), empty.status, empty.open_after,
                            empty.invocations, empty.time_s, True)
    out = ColourAnalysis(puzzle, status, solutions, counted_all, empty, None,
                         not_graded("not analysed"), engine=result.engine,
                         solve_time_s=result.time_s, sections=sections)
    out.load_s = result.load_s
    if count and status in (Status.UNIQUE, Status.NONE, Status.MULTIPLE) and not clock.out():
        out.solution_count = solution_count(puzzle, result, cap, clock.share(0.25, 10.0))

    def finish() -> ColourAnalysis:
        out.settle()
        out.time_s = time.perf_counter() - start - result.load_s
        return out

    out.settle()
    if progress is not None:
        progress.append(out)
    if clock.out():
        return finish()
    staged = colour_staged_solve(puzzle, deadline=clock.deadline)
    sections["stages"] = "cut short" if staged.stopped else "done"
    if staged.status == "solved" and status not in (Status.UNIQUE, Status.SOLVED):
        raise AssertionError(f"logic solved the puzzle but the engine says {status.value}")
    out.staged = staged
    out.search = search_effort(result) if staged.status == "stuck" else None
    out.settle()
    if clock.out():
        return finish()
    full = (1 << puzzle.n_colours) - 1
    line_fix = colour_closure(puzzle)(np.full(puzzle.shape, full, dtype=np.int32))
    if line_fix is not None:
        out.parts_after_line = independent_parts(colour_open_grid(line_fix))
        graph = colour_implication_graph(puzzle, line_fix)
        out.graph_summary = scc_summary(graph)
        if keep_graph:
            out.graph = graph
    if staged.status == "stuck":
        out.parts = independent_parts(colour_open_grid(staged.grid))
    sections["structure"] = "done"
    several = structure and len(solutions) >= 2
    for name in ("map", "givens", "edits"):
        if not several:
            sections[name] = "skipped" if not structure else "not applicable"
    if several and not clock.out():
        # as for black-and-white (nonosat.analysis.difficulty.analyse): the map, the givens and
        # the edits share what is left of the one time limit
        out.backbone = colour_ambiguity_map(puzzle, solutions, staged.grid,
                                            timeout=clock.share(0.5))
        sections["map"] = "cut short" if bool(out.backbone.undecided.any()) else "done"
        out.settle()
        witnesses = out.backbone.witnesses
        goal = puzzle.goal
        target = (np.asarray(goal, dtype=np.int8) if goal is not None and goal.shape == puzzle.shape
                  and puzzle.is_solution(goal) else witnesses[0])
        if not clock.out():
            share = clock.share(0.5)
            cells = colour_givens(puzzle, [target],
                                  None if share is None else time.perf_counter() + share,
                                  known=staged.grid)
            sections["givens"] = "done" if cells is not None else "cut short"
            if cells is not None:
                out.givens = UniquenessGivens([((r, c), k) for r, c, k in cells],
                                              target=target, unique=True)
        if puzzle.goal is None or not _goal_fits(puzzle):
            # a picture that contradicts the clues is no picture of this puzzle to edit
            sections["edits"] = "not applicable"
            out.edit_search = {"end": "no picture" if puzzle.goal is None else "invalid picture"}
        elif not clock.out():
            rest = clock.share(0.5, 5.0)
            assert rest is not None
            out.edits = edit_suggestions(puzzle, out.backbone.ambiguous,
                                         deadline=time.perf_counter() + rest,
                                         progress=out.edit_search)
            sections["edits"] = ("done" if out.edit_search.get("end") in ("all tried",
                                                                          "max edits")
                                 else "cut short")
    if not (structure and status in (Status.UNIQUE, Status.MULTIPLE)):
        sections["backdoor"] = "not applicable" if structure else "skipped"
    elif backdoor_timeout == 0:
        sections["backdoor"] = "skipped"
    elif not clock.out():
        # as for black-and-white: several solutions, the backdoor of the goal picture when it
        # is a solution, else of the first found (its givens then select it alone)
        target = solutions[0]
        goal = puzzle.goal
        if (status == Status.MULTIPLE and goal is not None and goal.shape == puzzle.shape
                and puzzle.is_solution(goal)):
            target = np.asarray(goal, dtype=np.int8)
        out.backdoor_of = ("the goal picture" if target is not solutions[0] else
                           "the solution found" if status == Status.UNIQUE else
                           "the first solution found")
        left = clock.left()
        budget = (backdoor_timeout if left is None else
                  left if backdoor_timeout is None else min(backdoor_timeout, left))
        out.backdoor = colour_backdoor(puzzle, target, logic=backdoor_logic,
                                       timeout=budget, several=status == Status.MULTIPLE)
        cut = not out.backdoor.exact and left is not None and (
            backdoor_timeout is None or left < backdoor_timeout)
        sections["backdoor"] = "cut short" if cut else "done"
    return finish()


def colour_solve_classification(
    puzzle: Puzzle, result: SolveResult, partial: np.ndarray | None = None
) -> str:
    """The classification ``nonosat solve`` prints for a colour puzzle, by the rules of
    :func:`nonosat.analysis.classify.solve_classification`: one colour line-solving fixpoint
    (from ``partial``, colour masks, when given) and the engine's figures, nothing else
    solved; with several solutions, the cells on which the solutions found differ)."""
    if result.status == Status.MULTIPLE:
        return classify(result.status, None, ambiguous=found_ambiguous(result.solutions),
                        complete=bool(result.exhausted))
    if result.status not in (Status.UNIQUE, Status.SOLVED):
        return classify(result.status, None)
    full = (1 << puzzle.n_colours) - 1
    grid = np.full(puzzle.shape, full, dtype=np.int32)
    if partial is not None:
        grid &= np.asarray(partial, dtype=np.int32)
    line = colour_closure(puzzle)(grid)
    if line is not None and not _is_open(line).any():
        return classify(result.status, "line")
    effort = search_effort(result)
    if result.engine == "native":
        return classify(result.status, "probing" if effort.guesses == 0 else "search", effort)
    if result.engine == "native+sat":
        return classify(result.status, "search", effort)
    return classify(result.status, "beyond-line")


def render_colour_ambiguity_text(
    puzzle: Puzzle, reference: np.ndarray, ambiguous: np.ndarray
) -> str:
    """The plain colour text grid of ``reference`` (colour indices) with its clues, the
    ambiguous cells drawn as ``<>`` (``<->`` when cells are three characters wide), as
    :func:`nonosat.analysis.ambiguity.render_ambiguity_text` draws black-and-white."""
    from nonosat.render.colour_text import plain_colour_text

    mask = np.asarray(ambiguous, dtype=bool)
    lines = plain_colour_text(puzzle, reference).split("\n")
    rule = next(i for i, line in enumerate(lines) if line.lstrip().startswith("+"))
    width = (len(lines[rule].strip()) - 2) // puzzle.width
    mark = "<>" if width == 2 else "<->"
    for r in range(puzzle.height):
        line = lines[rule + 1 + r]
        start = line.index("|", len(line) - width * puzzle.width - 2) + 1
        cells = [line[start + k * width: start + (k + 1) * width] for k in range(puzzle.width)]
        body = "".join(mark if mask[r, k] else cells[k] for k in range(puzzle.width))
        lines[rule + 1 + r] = line[:start] + body + line[start + width * puzzle.width:]
    return "\n".join(lines)


# -- the implication graph ---------------------------------------------------------------------
class ColourLiteral(tuple):
    """``(row, col, colour)``: cell ``(row, col)`` (0-based) takes colour ``colour`` (an index
    into the palette, 0 = background); a node of :func:`colour_implication_graph`."""

    __slots__ = ()

    def __new__(cls, row: int, col: int, colour: int) -> ColourLiteral:
        return super().__new__(cls, (row, col, colour))

    @property
    def cell(self) -> tuple[int, int]:
        """``(row, col)``, 0-based."""
        return (self[0], self[1])

    def name(self, puzzle: Puzzle) -> str:
        """Node name in exported graphs: ``"R3C5=red"`` (1-based, the colour's name)."""
        assert puzzle.palette is not None
        return f"R{self[0] + 1}C{self[1] + 1}={puzzle.palette.colours[self[2]].name}"


def colour_implication_graph(puzzle: Puzzle, grid: np.ndarray | None = None):
    """The single-line implication graph of a colour puzzle in the state ``grid`` (colour masks;
    every colour everywhere when omitted), as :func:`nonosat.native.implications.implication_graph`
    builds it for black-and-white with literals "cell takes colour c".

    For every cell with several colours left and each of them, the colour is assumed and the
    colour line solver runs on that cell's row and on its column only: every other cell of the
    line left with one colour (it had several) gives an edge ``assumption -> (cell, colour)``
    with the line (``line``, rows first).  Each edge is a sound implication in that state.  Only
    positive literals are nodes (a colour a line merely excludes gives no edge), so on a
    two-colour puzzle this is the black-and-white graph (``filled`` = the colour, ``empty`` =
    the background).  ``graph.graph["line_conflicts"]`` lists ``(literal, line)`` pairs whose
    assumption contradicts the line outright (never at a line-solving fixpoint).

    Returns
    -------
    networkx.DiGraph
        Nodes :class:`ColourLiteral`.
    """
    import networkx as nx

    full = (1 << puzzle.n_colours) - 1
    state = (np.full(puzzle.shape, full, dtype=np.int32) if grid is None
             else np.asarray(grid, dtype=np.int32))
    h, w = puzzle.shape
    colours = puzzle.line_colours
    graph = nx.DiGraph()
    open_now = _is_open(state)
    for r, c in zip(*np.nonzero(open_now), strict=True):
        graph.add_nodes_from(ColourLiteral(int(r), int(c), k) for k in range(puzzle.n_colours)
                             if (int(state[r, c]) >> k) & 1)
    conflicts: list[tuple[ColourLiteral, int]] = []
    for line, clue in enumerate(puzzle.lines):
        if clue is None:
            continue
        values = state[line, :] if line < h else state[:, line - h]
        if not _is_open(values).any():
            continue
        for p in np.flatnonzero(_is_open(values)).tolist():
            v = int(values[p])
            for k in range(puzzle.n_colours):
                if not (v >> k) & 1:
                    continue
                src = ColourLiteral(line, p, k) if line < h else ColourLiteral(p, line - h, k)
                trial = values.copy()
                trial[p] = 1 << k
                after = solve_colour_line(clue, colours[line] or (), trial, puzzle.n_colours)
                if after is None:
                    conflicts.append((src, line))
                    continue
                for q in np.flatnonzero(_is_open(values) & ~_is_open(after)).tolist():
                    if q == p:
                        continue
                    m = int(after[q])
                    dst = (ColourLiteral(line, q, _colour_of(m)) if line < h
                           else ColourLiteral(q, line - h, _colour_of(m)))
                    graph.add_edge(src, dst, line=line)
    graph.graph["line_conflicts"] = conflicts
    return graph


def write_colour_graph(graph, puzzle: Puzzle, path) -> str:
    """Write :func:`colour_implication_graph` to ``path`` (GraphML, GEXF, or DOT with pydot, by
    suffix) with node attributes ``row``, ``col`` (1-based), ``colour`` (its name) and ``scc``
    (:func:`nonosat.analysis.structure.component_ids`), edge attribute ``line``.

    Returns
    -------
    str
        The format written.

    Raises
    ------
    FormatError
        Unknown suffix, or DOT without pydot.
    """
    from pathlib import Path

    import networkx as nx

    from nonosat.analysis.structure import component_ids, graph_format, write_graph_file

    assert puzzle.palette is not None
    fmt = graph_format(path)
    names = [c.name for c in puzzle.palette.colours]
    ids = component_ids(graph)
    plain = nx.DiGraph()
    for lit in sorted(graph.nodes):
        plain.add_node(lit.name(puzzle), row=lit[0] + 1, col=lit[1] + 1, colour=names[lit[2]],
                       scc=ids[lit])
    for a, b, data in graph.edges(data=True):
        plain.add_edge(a.name(puzzle), b.name(puzzle), line=puzzle.line_name(data["line"]))
    write_graph_file(plain, Path(path), fmt)
    return fmt
