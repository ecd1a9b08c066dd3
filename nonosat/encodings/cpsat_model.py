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
    """Deterministic automaton of the black-and-white lines that satisfy ``clue``: the colour
    automaton (:func:`colour_clue_automaton`) of the clue with every block of colour 1, the one
    code path for both kinds of puzzle.

    Parameters
    ----------
    clue : sequence of int
        Block lengths (positive); empty for an empty line.

    Returns
    -------
    transitions : list of (state, value, next_state)
        ``value`` is 0 (empty cell) or 1 (filled cell); the start state is 0.
    final_states : list of int
        The accepting state: after the last block (it loops on empty cells).

    Notes
    -----
    ``sum(clue) + len(clue)`` states (one for an empty clue).

    Examples
    --------
    >>> clue_automaton((2,))
    ([(0, 0, 0), (0, 1, 1), (1, 1, 2), (2, 0, 2)], [2])
    """
    return colour_clue_automaton(clue, (1,) * len(clue), 2)


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

    One path for black-and-white and colour puzzles (:func:`build_colour_model`): the variables
    of a black-and-white puzzle are Booleans (``1`` = filled), its lines two-colour automata, and
    its grid states (:class:`~nonosat.puzzle.Cell` values) are the two-colour bit masks.  Measured
    on 30 taai2011 puzzles, the colour model given black-and-white puzzles ran as fast as the
    former Boolean-only model (2.40 s against 2.48 s CPU, ``benchmarks/bench_colour.py``).

    Parameters
    ----------
    puzzle : Puzzle
    partial : ndarray of int8, shape (height, width), optional
        Grid state (:class:`~nonosat.puzzle.Cell` values, or colour bit masks for a colour
        puzzle): every cell is restricted to the values it allows (a ``CONFLICT`` cell makes the
        model infeasible).

    Returns
    -------
    CpSatModel

    Raises
    ------
    PuzzleError
        ``partial`` has the wrong shape or values that are not cell states.
    """
    if partial is not None and not puzzle.is_colour:
        state = np.asarray(partial)
        if state.shape == puzzle.shape and ((state < Cell.CONFLICT) | (state > Cell.UNKNOWN)).any():
            raise PuzzleError("partial grid holds values that are not cell states (0-3)")
    return build_colour_model(puzzle, partial)


def build_colour_model(puzzle: Puzzle, partial: np.ndarray | None = None) -> CpSatModel:
    """The CP-SAT model of a puzzle over its colours: one variable per cell (its colour index;
    a Boolean for a black-and-white puzzle), one automaton per line
    (:func:`colour_clue_automaton`); ``partial`` (colour bit masks) restricts each cell to the
    colours it allows.  ``cells`` holds the variables.

    Raises
    ------
    PuzzleError
        ``partial`` has the wrong shape.
    """
    model = cp_model.CpModel()
    ncol = puzzle.n_colours
    def var(name: str):
        if puzzle.is_colour:
            return model.new_int_var(0, ncol - 1, name)
        return model.new_bool_var(name)

    cells = np.array(
        [[var(f"r{r}c{c}") for c in range(puzzle.width)] for r in range(puzzle.height)],
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
            cell = cells[int(r), int(c)]  # one variable (ndenumerate's indices are untyped)
            if len(allowed) == 1:
                model.add(cell == allowed[0])
            elif not allowed:
                model.add_bool_or([])  # a conflicting cell: no solution
            elif len(allowed) < ncol:
                model.add_allowed_assignments([cell], [(k,) for k in allowed])
    return CpSatModel(model, cells)
