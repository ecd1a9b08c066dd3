"""Givens: cells of a puzzle that are known from the start (black and white).

A puzzle's givens are a grid state (``int8``, shape ``(height, width)``, :class:`Cell` values,
``UNKNOWN`` where nothing is given) kept in ``puzzle.meta["givens"]``; a puzzle without givens
has no such key.  They are what ``nonosat solve --state FILE`` takes: the engines, hints and
step-through solving use them as the starting grid.

Formats that can hold them (:attr:`nonosat.formats.Format.stores_givens`):

* **webpbn XML**: a partial solution ``<solution type="saved"><image>`` whose unknown cells
  are ``?`` (webpbn's own form of a saved, unfinished grid);
* **JSON** (the davidje13 rules with nonosat's extensions): ``"givens": ["#.?", ...]``, row
  strings over ``#`` (filled), ``.`` (empty) and ``?`` (unknown).

For every other format the givens go in a text grid beside the file (:func:`givens_text`,
exactly a ``--state`` file: one row per line over ``#``, ``.``, ``?``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Puzzle, grid_from_rows, grid_rows

__all__ = ["GIVENS_KEY", "givens_of", "givens_rows", "givens_text", "parse_givens",
           "with_givens"]

#: The ``Puzzle.meta`` key of the givens.
GIVENS_KEY = "givens"


def givens_of(puzzle: Puzzle) -> np.ndarray | None:
    """The givens of ``puzzle`` (``int8`` grid state, shape ``(height, width)``), or ``None``
    when it has none."""
    state = puzzle.meta.get(GIVENS_KEY)
    if not isinstance(state, np.ndarray) or state.shape != puzzle.shape:
        return None
    return state


def parse_givens(rows: list[str], shape: tuple[int, int]) -> np.ndarray | None:
    """Grid state of row strings over ``#``/``X`` (filled), ``.`` (empty), ``?`` (unknown);
    ``None`` when no cell is known.

    Raises
    ------
    PuzzleError
        Wrong shape or an unknown character (names the row).
    """
    if len(rows) != shape[0]:
        raise PuzzleError(f"givens: {len(rows)} rows, expected {shape[0]}")
    for i, row in enumerate(rows):
        if len(row) != shape[1]:
            raise PuzzleError(f"givens row {i + 1} has {len(row)} cells, expected {shape[1]}")
    try:
        state = grid_from_rows(rows, shape)
    except PuzzleError as exc:
        raise PuzzleError(f"givens: {exc}") from None
    if not bool((state != Cell.UNKNOWN).any()):
        return None
    return state


def with_givens(puzzle: Puzzle, state: np.ndarray | None) -> Puzzle:
    """A copy of ``puzzle`` whose givens are ``state`` (none when ``state`` is ``None`` or all
    unknown).

    Raises
    ------
    PuzzleError
        ``state`` does not have the puzzle's shape, or the puzzle is a colour puzzle.
    """
    meta = {k: v for k, v in puzzle.meta.items() if k != GIVENS_KEY}
    if state is not None and bool((np.asarray(state) != Cell.UNKNOWN).any()):
        if puzzle.is_colour:
            raise PuzzleError("givens are black and white only")
        state = np.array(state, dtype=np.int8)
        if state.shape != puzzle.shape:
            raise PuzzleError(f"givens are {state.shape[1]}x{state.shape[0]} but the puzzle is "
                              f"{puzzle.width}x{puzzle.height}")
        state.setflags(write=False)
        meta[GIVENS_KEY] = state
    return dataclasses.replace(puzzle, meta=meta)


def givens_rows(puzzle: Puzzle) -> list[str] | None:
    """The givens as row strings over ``#``, ``.``, ``?`` (``None`` without givens)."""
    state = givens_of(puzzle)
    return None if state is None else grid_rows(state)


def givens_text(puzzle: Puzzle) -> str | None:
    """The givens as a ``--state`` file (one row per line), ``None`` without givens."""
    rows = givens_rows(puzzle)
    return None if rows is None else "".join(r + "\n" for r in rows)
