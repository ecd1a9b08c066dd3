"""CP-SAT model of a puzzle: one Boolean per cell, one automaton per line.

A clue ``(c1, ..., ck)`` is the regular language ``0* 1{c1} 0+ 1{c2} ... 1{ck} 0*`` over the cells
of its line (an empty clue is ``0*``, an unknown clue is no constraint).  Each known line is posted
as an ``add_automaton`` (the *regular* constraint of Pesant, 2004) over that language's
deterministic automaton, as in OR-Tools' ``examples/contrib/nonogram_regular.py``.

The module builds the model and its variable map only; running it is the CP-SAT engine's job
(:mod:`nonosat.engines.cpsat`).

A colour puzzle has one integer variable per cell (its colour index, 0 = background) and one
automaton per line over the colour alphabet (:func:`colour_clue_automaton`): the gap after a block
is mandatory only before a block of the same colour.

References
----------
G. Pesant, "A Regular Language Membership Constraint for Finite Sequences of Variables", CP 2004.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Puzzle

Transition = tuple[int, int, int]


@dataclass(frozen=True)
class CpSatModel:
    """A puzzle as a CP-SAT model.

    Attributes
    ----------
    model : ortools.sat.python.cp_model.CpModel
    cells : ndarray of object, shape (height, width)
        The Boolean variable of each cell (``1`` = filled).
    """

    model: cp_model.CpModel
    cells: np.ndarray


def clue_automaton(clue: Sequence[int]) -> tuple[list[Transition], list[int]]:
    """Deterministic automaton of the lines that satisfy ``clue``.

    States are numbered along the clue: state 0 reads the leading empty cells, each filled cell
    of a block advances one state, and the empty cell that ends a block moves to a state that
    loops on further empty cells (the gap, or the trailing empty cells after the last block).
    Missing transitions reject.

    Parameters
    ----------
    clue : sequence of int
        Block lengths (positive); empty for an empty line.

    Returns
    -------
    transitions : list of (state, value, next_state)
        ``value`` is 0 (empty cell) or 1 (filled cell); the start state is 0.
    final_states : list of int
        Accepting states: the end of the last block and the trailing empty cells after it.

    Notes
    -----
    ``sum(clue) + len(clue) + 1`` states and as many transitions plus one.

    Examples
    --------
    >>> clue_automaton((2,))
    ([(0, 0, 0), (0, 1, 1), (1, 1, 2), (2, 0, 3), (3, 0, 3)], [2, 3])
    """
    transitions = [(0, 0, 0)]
    state = 0
    for block in clue:
        for _ in range(block):
            transitions.append((state, 1, state + 1))
            state += 1
        transitions.append((state, 0, state + 1))
        state += 1
        transitions.append((state, 0, state))
    return transitions, ([state - 1, state] if clue else [0])


def colour_clue_automaton(
    lens: Sequence[int], cols: Sequence[int], ncol: int
) -> tuple[list[Transition], list[int]]:
    """Deterministic automaton, over colour indices ``0..ncol-1`` (0 = background), of the lines
    whose blocks are ``lens`` with colours ``cols`` (webpbn rules).

    State 0 reads leading background; each cell of block ``b`` advances one state; the state
    after the last cell of a block loops on background and, when the next block has another
    colour, may start it directly; the next block of the same colour needs a background first.

    Examples
    --------
    >>> colour_clue_automaton((1, 1), (1, 2), 3)
    ([(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 2, 2), (2, 0, 2)], [2])
    """
    transitions = [(0, 0, 0)]
    state = 0
    k = len(lens)
    for b in range(k):
        # `state` is the state before block b (after block b-1 or at the start)
        for _ in range(lens[b]):
            transitions.append((state, cols[b], state + 1))
            state += 1
        # after block b: background loops here; the next block may follow
        transitions.append((state, 0, state))
        if b + 1 < k and cols[b + 1] == cols[b]:
            # a background cell is required: go to a separate "gap" state
            transitions.pop()
            transitions.append((state, 0, state + 1))
            state += 1
            transitions.append((state, 0, state))
    return transitions, [state]


def build_model(puzzle: Puzzle, partial: np.ndarray | None = None) -> CpSatModel:
    """The CP-SAT model of ``puzzle``, restricted to the grid state ``partial``.

    Parameters
    ----------
    puzzle : Puzzle
    partial : ndarray of int8, shape (height, width), optional
        Grid state (:class:`~nonosat.puzzle.Cell` values): a cell that may not be filled is fixed
        to 0, one that may not be empty is fixed to 1 (a ``CONFLICT`` cell makes the model
        infeasible).

    Returns
    -------
    CpSatModel

    Raises
    ------
    PuzzleError
        ``partial`` has the wrong shape or values that are not cell states.
    """
    if puzzle.is_colour:
        return build_colour_model(puzzle, partial)
    model = cp_model.CpModel()
    cells = np.array(
        [
            [model.new_bool_var(f"r{r}c{c}") for c in range(puzzle.width)]
            for r in range(puzzle.height)
        ],
        dtype=object,
    )
    lines = [list(row) for row in cells] + [list(col) for col in cells.T]
    for clue, line in zip(puzzle.lines, lines, strict=True):
        if clue is not None:
            transitions, finals = clue_automaton(clue)
            model.add_automaton(line, 0, finals, transitions)
    if partial is not None:
        state = np.asarray(partial)
        if state.shape != puzzle.shape:
            raise PuzzleError(f"partial grid has shape {state.shape}, expected {puzzle.shape}")
        if ((state < Cell.CONFLICT) | (state > Cell.UNKNOWN)).any():
            raise PuzzleError("partial grid holds values that are not cell states (0-3)")
        for (r, c), value in np.ndenumerate(state):
            if not value & Cell.FILLED:
                model.add(cells[r, c] == 0)
            if not value & Cell.EMPTY:
                model.add(cells[r, c] == 1)
    return CpSatModel(model, cells)


def build_colour_model(puzzle: Puzzle, partial: np.ndarray | None = None) -> CpSatModel:
    """The CP-SAT model of a colour puzzle: one integer variable per cell (colour index), one
    automaton per line (:func:`colour_clue_automaton`); ``partial`` (colour bit masks) restricts
    each cell to the colours it allows.  ``cells`` holds the integer variables.

    Raises
    ------
    PuzzleError
        ``partial`` has the wrong shape.
    """
    model = cp_model.CpModel()
    ncol = puzzle.n_colours
    cells = np.array(
        [
            [model.new_int_var(0, ncol - 1, f"r{r}c{c}") for c in range(puzzle.width)]
            for r in range(puzzle.height)
        ],
        dtype=object,
    )
    lines = [list(row) for row in cells] + [list(col) for col in cells.T]
    for clue, colours, line in zip(puzzle.lines, puzzle.line_colours, lines, strict=True):
        if clue is not None:
            transitions, finals = colour_clue_automaton(clue, colours or (), ncol)
            model.add_automaton(line, 0, finals, transitions)
    if partial is not None:
        state = np.asarray(partial, dtype=np.int64)
        if state.shape != puzzle.shape:
            raise PuzzleError(f"partial grid has shape {state.shape}, expected {puzzle.shape}")
        for (r, c), mask in np.ndenumerate(state):
            allowed = [k for k in range(ncol) if (int(mask) >> k) & 1]
            if len(allowed) < ncol:
                model.add_allowed_assignments([cells[r, c]], [(k,) for k in allowed])
    return CpSatModel(model, cells)
