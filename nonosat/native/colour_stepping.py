"""Stepping the colour solver: the shape of :class:`nonosat.native.stepping.Stepper` for colour.

:class:`ColourStepper` holds one colour puzzle's grid state (int32 bit masks of the colours each
cell can still take, bit 0 = background; :mod:`nonosat.native.colour`) and runs its stages one
call at a time, returning data: :meth:`~ColourStepper.propagate` (line solving to a fixpoint,
one :class:`LineSolve` per line solve that narrowed a cell), :meth:`~ColourStepper.probe_round`
(one probing pass from the same state, nothing applied: :class:`ColourProbeRound`),
:meth:`~ColourStepper.fixpoint` and :meth:`~ColourStepper.probe` (propagation, and
propagation and probing, to a fixpoint in place, compiled, no deductions) and
:meth:`~ColourStepper.load` (start again from another state).  The colour solver keeps no trail,
so there is no checkpoint to undo to: a caller loads the state it wants.

The analysis's colour logic (:class:`nonosat.analysis.logic.PaletteLogic` and its closure)
steps the colour kernels through this class only.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from nonosat.native.colour import ColourProblem, colour_propagate, solve_colour_line
from nonosat.puzzle import Puzzle

__all__ = ["ColourProbeRound", "ColourStepper", "LineSolve"]


@dataclass(frozen=True)
class LineSolve:
    """One line solve that narrowed cells (:meth:`ColourStepper.propagate`).

    Attributes
    ----------
    line : int
        The line solved (rows first, then columns).
    cells : ndarray of int64, shape (m,)
        The cells it narrowed (flat, ``row * width + column``), in line order.
    masks : ndarray of int32, shape (m,)
        Their new colour masks.
    """

    line: int
    cells: np.ndarray
    masks: np.ndarray


@dataclass(frozen=True)
class ColourProbeRound:
    """One probing pass from one state (:meth:`ColourStepper.probe_round`); nothing applied.

    Attributes
    ----------
    failed : list of (int, int, int)
        ``(cell, mask left, first colour removed)`` for every probed cell some of whose colours
        propagate to a contradiction (flat cells, in probing order).
    narrowed : list of (int, ndarray of int64)
        When no colour failed: ``(probed cell, cells)`` for every probe that narrows cells
        (each cell keeping only the colours some trial of the probed cell allows), in probing
        order; the cells narrowed by a probe include those an earlier probe narrowed too.
    masks : ndarray of int32, shape (h*w,)
        The state with every narrowing of ``narrowed`` applied (the start state when none).
    stopped : bool
        The stop flag ended the pass between two cells: it proves nothing.
    """

    failed: list[tuple[int, int, int]]
    narrowed: list[tuple[int, np.ndarray]]
    masks: np.ndarray
    stopped: bool = False


def _is_open(flat: np.ndarray) -> np.ndarray:
    return (flat & (flat - 1)) != 0


class ColourStepper:
    """One colour puzzle's grid state, stepped one stage at a time.

    Parameters
    ----------
    puzzle : Puzzle
        A colour puzzle (a black-and-white one works too: colour 1 is filled).
    grid : ndarray of int32, shape (height, width), optional
        Colour masks; every colour everywhere when omitted.  Copied.
    stop : ndarray of int64, shape (1,), optional
        A stop flag (:attr:`nonosat.stop.StopToken.flag`) :meth:`probe_round` reads before
        each cell.

    Notes
    -----
    One stepper serves one thread at a time.
    """

    def __init__(self, puzzle: Puzzle, grid: np.ndarray | None = None, *,
                 stop: np.ndarray | None = None) -> None:
        self.puzzle = puzzle
        self.stop = np.zeros(1, dtype=np.int64) if stop is None else stop
        self.shape = puzzle.shape
        self.problem = ColourProblem.of(puzzle)
        self._flat = self.problem.full_grid()
        if grid is not None:
            self.load(grid)

    def load(self, grid: np.ndarray) -> None:
        """Start again from ``grid`` (colour masks, shape (height, width)), copied."""
        self._flat = np.ascontiguousarray(grid, dtype=np.int32).reshape(-1).copy()

    def grid(self) -> np.ndarray:
        """The state (int32 colour masks, shape (height, width)), a copy."""
        return self._flat.reshape(self.shape).copy()

    def open_cells(self) -> np.ndarray:
        """Flat indices of the cells with more than one colour left, ascending."""
        return np.flatnonzero(_is_open(self._flat))

    def propagate(self) -> list[LineSolve] | None:
        """Line solving to a fixpoint, one line at a time (rows first, then every line a change
        touched, in order), with the colour line solver
        (:func:`nonosat.native.colour.solve_colour_line`).

        Returns
        -------
        list of LineSolve or None
            One entry per line solve that narrowed a cell; ``None`` on a contradiction (the
            state is then partly narrowed: load another).
        """
        puzzle = self.puzzle
        h, w = self.shape
        grid = self._flat.reshape(h, w)
        colours = puzzle.line_colours
        queue = deque(range(h + w))
        queued = [True] * (h + w)
        out: list[LineSolve] = []
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
            new = after[changed].astype(np.int32)
            cells[changed] = new
            for i in changed.tolist():
                other = h + i if line < h else i
                if not queued[other]:
                    queued[other] = True
                    queue.append(other)
            flat = line * w + changed if line < h else changed * w + (line - h)
            out.append(LineSolve(line, flat.astype(np.int64), new))
        return out

    def fixpoint(self) -> bool:
        """Line propagation to a fixpoint, in place, compiled and without the deductions
        (:meth:`nonosat.native.colour.ColourProblem.propagate`, every line queued): the
        cheaper :meth:`propagate` when only the state matters; ``False`` on a contradiction."""
        return self.problem.propagate(self._flat)

    def probe(self) -> bool:
        """Propagation and probing to a fixpoint, in place
        (:meth:`nonosat.native.colour.ColourProblem.probe`); ``False`` on a contradiction."""
        return self.problem.probe(self._flat)

    def probe_round(self) -> ColourProbeRound | None:
        """One probing pass over the open cells (the state at a line fixpoint), every trial
        from the same state: each colour a cell can still take is set and propagated
        (:func:`nonosat.native.colour.colour_propagate`).

        Returns
        -------
        ColourProbeRound or None
            ``None`` when every colour of some cell fails.
        """
        problem = self.problem
        h, w = self.shape
        flat = self._flat
        queued = np.zeros(h + w, np.bool_)
        st = np.zeros(3, np.int64)
        failed: list[tuple[int, int, int]] = []
        new = flat.copy()
        narrowed: list[tuple[int, np.ndarray]] = []
        for cell in self.open_cells().tolist():
            if self.stop[0] != 0:
                return ColourProbeRound([], [], flat.copy(), stopped=True)
            v = int(flat[cell])
            union = np.zeros_like(flat)
            removed = 0
            for k in range(self.puzzle.n_colours):
                if not (v >> k) & 1:
                    continue
                trial = flat.copy()
                trial[cell] = 1 << k
                queued[cell // w] = True
                queued[h + cell % w] = True
                if colour_propagate(trial, problem.lens, problem.cols, problem.start,
                                    problem.known, h, w, problem.ncol, queued, st):
                    union |= trial
                else:
                    removed |= 1 << k
            if removed == v:
                return None
            if removed:
                failed.append((cell, v & ~removed, (removed & -removed).bit_length() - 1))
            elif not failed:
                narrower = (new & union) != new
                narrower[cell] = False
                if narrower.any():
                    narrowed.append((cell, np.flatnonzero(narrower)))
                    new &= union
        return ColourProbeRound(failed, narrowed, new)
