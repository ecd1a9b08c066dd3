"""Givens: cells of a puzzle that are known from the start.

A black-and-white puzzle's givens are a grid state (``int8``, shape ``(height, width)``,
:class:`Cell` values, ``UNKNOWN`` where nothing is given) kept in ``puzzle.meta["givens"]``; a
colour puzzle's are colour bit masks (``int32``, shape ``(height, width)``, bit ``k`` = colour
``k`` of the palette, one bit = a given colour, every bit = unknown) kept in
``puzzle.meta["colour_givens"]``.  A puzzle without givens has no such key.  They are what
``nonosat solve --state FILE`` takes: the engines, hints and step-through solving use them as
the starting grid.  A colour given is one colour: a cell with several colours left is unknown.

Formats that can hold them (:attr:`nonosat.formats.Format.stores_givens`):

* **webpbn XML**: a partial solution ``<solution type="saved"><image>`` whose unknown cells
  are ``?`` (webpbn's own form of a saved, unfinished grid); a colour puzzle's image uses the
  characters of its ``<color>`` elements, as its goal image does;
* **JSON** (the davidje13 rules with nonosat's extensions): ``"givens": ["#.?", ...]``, row
  strings over ``#`` (filled), ``.`` (empty) and ``?`` (unknown); a colour puzzle's over the
  characters of its ``"palette"`` and ``?``.

For every other format the givens go in a text grid beside the file (:func:`givens_text`,
exactly a ``--state`` file: one row per line over ``#``, ``.``, ``?``, or the palette's
characters and ``?`` for a colour puzzle).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Puzzle, grid_from_rows, grid_rows

__all__ = ["COLOUR_GIVENS_KEY", "GIVENS_KEY", "givens_of", "givens_rows", "givens_text",
           "givens_text_beside", "parse_givens", "with_givens"]

#: The ``Puzzle.meta`` key of a black-and-white puzzle's givens.
GIVENS_KEY = "givens"
#: The ``Puzzle.meta`` key of a colour puzzle's givens (int32 colour bit masks).
COLOUR_GIVENS_KEY = "colour_givens"


def givens_of(puzzle: Puzzle) -> np.ndarray | None:
    """The givens of ``puzzle``, or ``None`` when it has none: an ``int8`` grid state (black
    and white) or ``int32`` colour bit masks (colour), shape ``(height, width)``."""
    state = puzzle.meta.get(COLOUR_GIVENS_KEY if puzzle.is_colour else GIVENS_KEY)
    if not isinstance(state, np.ndarray) or state.shape != puzzle.shape:
        return None
    return state


def parse_givens(rows: list[str], shape: tuple[int, int],
                 chars: Sequence[str] | None = None) -> np.ndarray | None:
    """Grid state of row strings; ``None`` when no cell is known.

    Without ``chars`` (black and white): rows over ``#``/``X`` (filled), ``.`` (empty) and
    ``?`` (unknown), an ``int8`` state.  With ``chars`` (a colour puzzle: the character of each
    colour index, the background first): rows over those characters and ``?``, ``int32``
    colour bit masks (every bit for ``?``).

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
    if chars is not None:
        full = (1 << len(chars)) - 1
        masks = {ch: 1 << k for k, ch in reversed(list(enumerate(chars)))}
        masks["?"] = full
        out = np.full(shape, full, dtype=np.int32)
        for i, row in enumerate(rows):
            for j, ch in enumerate(row):
                if ch not in masks:
                    from nonosat.text import quoted

                    raise PuzzleError(f"givens row {i + 1}, column {j + 1}: {quoted(ch)} is "
                                      "not '?' nor a colour's character")
                out[i, j] = masks[ch]
        return out if bool((out != full).any()) else None
    try:
        state = grid_from_rows(rows, shape)
    except PuzzleError as exc:
        raise PuzzleError(f"givens: {exc}") from None
    if not bool((state != Cell.UNKNOWN).any()):
        return None
    return state


def with_givens(puzzle: Puzzle, state: np.ndarray | None) -> Puzzle:
    """A copy of ``puzzle`` whose givens are ``state`` (none when ``state`` is ``None`` or
    nothing in it is known).

    ``state`` is an ``int8`` grid state for a black-and-white puzzle, ``int32`` colour bit
    masks for a colour puzzle (a cell with one bit is a given; any other mask is unknown).

    Raises
    ------
    PuzzleError
        ``state`` does not have the puzzle's shape, or (colour) holds a bit of no colour.
    """
    meta = {k: v for k, v in puzzle.meta.items() if k not in (GIVENS_KEY, COLOUR_GIVENS_KEY)}
    if state is None:
        return dataclasses.replace(puzzle, meta=meta)
    arr = np.asarray(state)
    if arr.shape != puzzle.shape:
        raise PuzzleError(f"givens are {arr.shape[1] if arr.ndim == 2 else '?'}x{arr.shape[0]} "
                          f"but the puzzle is {puzzle.width}x{puzzle.height}")
    if puzzle.is_colour:
        full = (1 << puzzle.n_colours) - 1
        masks = arr.astype(np.int64)
        if bool(((masks & ~full) != 0).any()) or bool((masks <= 0).any()):
            raise PuzzleError(f"givens: a cell's colours are not among the palette's "
                              f"{puzzle.n_colours}")
        one = (masks & (masks - 1)) == 0
        out = np.where(one, masks, full).astype(np.int32)
        if bool(one.any()):
            out.setflags(write=False)
            meta[COLOUR_GIVENS_KEY] = out
    elif bool((arr != Cell.UNKNOWN).any()):
        out = np.array(arr, dtype=np.int8)
        out.setflags(write=False)
        meta[GIVENS_KEY] = out
    return dataclasses.replace(puzzle, meta=meta)


def givens_rows(puzzle: Puzzle, chars: Sequence[str] | None = None) -> list[str] | None:
    """The givens as row strings (``None`` without givens): over ``#``, ``.``, ``?`` (black
    and white); for a colour puzzle over ``chars`` (the character of each colour index;
    default the palette's) and ``?``."""
    state = givens_of(puzzle)
    if state is None:
        return None
    if not puzzle.is_colour:
        return grid_rows(state)
    assert puzzle.palette is not None
    names = list(puzzle.palette.chars if chars is None else chars)
    return ["".join(names[int(m).bit_length() - 1] if m and not m & (m - 1) else "?"
                    for m in row) for row in state]


def givens_text(puzzle: Puzzle) -> str | None:
    """The givens as a ``--state`` file (one row per line), ``None`` without givens.

    Raises
    ------
    PuzzleError
        A colour puzzle whose palette characters cannot make a ``--state`` file (``?``, white
        space, or two colours sharing one).
    """
    if puzzle.palette is not None:
        chars = puzzle.palette.chars
        if len(set(chars)) != len(chars) or "?" in chars or any(c.isspace() for c in chars):
            raise PuzzleError("the palette's characters cannot make a --state grid (they "
                              "repeat, or one is '?' or white space)")
    rows = givens_rows(puzzle)
    return None if rows is None else "".join(r + "\n" for r in rows)


def givens_text_beside(puzzle: Puzzle, written: Puzzle) -> str | None:
    """The givens of ``puzzle`` as a ``--state`` file for ``written``: the puzzle as read back
    from a file of a format that cannot hold givens (a colour puzzle's grid then uses the
    characters of that file's palette); ``None`` without givens.

    Raises
    ------
    PuzzleError
        ``written`` is not ``puzzle`` read back (other shape or colours), or its palette's
        characters cannot make a ``--state`` grid.
    """
    state = givens_of(puzzle)
    if state is None:
        return None
    if written.shape != puzzle.shape or written.is_colour != puzzle.is_colour or (
            puzzle.palette is not None and written.palette is not None
            and [c.rgb for c in written.palette.colours]
            != [c.rgb for c in puzzle.palette.colours]):
        raise PuzzleError("the puzzle read back from the file has other cells or colours")
    return givens_text(with_givens(written, state))
