"""Pictures as puzzles: a text grid, where each character is one cell.

``#``, ``X``, ``x``, ``1`` and ``█`` are filled; ``.``, ``0``, ``-`` and space are empty.  Short
rows are padded with empty cells (editors strip trailing spaces); leading and trailing blank lines
are dropped.  The clues are derived from the picture, which is kept as the goal
(:meth:`Puzzle.from_picture`).  Writing needs the puzzle's picture (its goal).

PBM and PNG images are :mod:`nonosat.formats.pbm` and :mod:`nonosat.formats.pixels`.
"""

from __future__ import annotations

import re
from typing import Unpack

import numpy as np

from nonosat.errors import FormatError, PuzzleError
from nonosat.formats import Format
from nonosat.formats._text import PuzzleFields, decode_text, split_lines
from nonosat.limits import size_limits
from nonosat.puzzle import Puzzle

FILLED = frozenset("#Xx1█")
EMPTY = frozenset(".0- ")



def picture_puzzle(picture: np.ndarray, path: str, **fields: Unpack[PuzzleFields]) -> Puzzle:
    """The puzzle of a picture (clues derived, picture as goal).

    Raises
    ------
    FormatError
        An empty picture, or one larger than the size limit (:mod:`nonosat.limits`).
    """
    if picture.ndim == 2:
        size_limits().check_cells(picture.shape[1], picture.shape[0], path)
    try:
        return Puzzle.from_picture(picture, **fields)
    except PuzzleError as exc:
        raise FormatError(path, None, str(exc)) from None


def require_goal(puzzle: Puzzle, format_name: str) -> np.ndarray:
    """The puzzle's picture, for writers of picture formats.

    Raises
    ------
    FormatError
        The puzzle has no goal picture (solve it first: ``nonosat convert`` does so when the
        solution is unique).
    """
    if puzzle.goal is None:
        raise FormatError(
            f"<{format_name}>",
            None,
            f"the {format_name} format stores a picture, and this puzzle has none (no goal); "
            "solve it first",
        )
    return puzzle.goal


def read_grid(data: bytes, path: str) -> list[Puzzle]:
    """Parse a text-grid picture.

    Raises
    ------
    FormatError
        A character that is neither filled nor empty (naming line and column), no cells.
    """
    lines = split_lines(decode_text(data, path))
    numbered = [(k, line.rstrip()) for k, line in enumerate(lines, start=1)]
    while numbered and not numbered[0][1]:
        numbered.pop(0)
    while numbered and not numbered[-1][1]:
        numbered.pop()
    if not numbered:
        raise FormatError(path, None, "the file is empty; expected a picture")
    width = max(len(text) for _, text in numbered)
    size_limits().check_cells(width, len(numbered), path)
    picture = np.zeros((len(numbered), width), dtype=bool)
    for i, (k, text) in enumerate(numbered):
        for j, ch in enumerate(text):
            if ch in FILLED:
                picture[i, j] = True
            elif ch not in EMPTY:
                raise FormatError(
                    path,
                    k,
                    f"column {j + 1}: expected a cell ('#', 'X', '1' filled; '.', '0', space "
                    f"empty), found {ch!r}",
                )
    return [picture_puzzle(picture, path)]


def write_grid(puzzle: Puzzle) -> bytes:
    """The puzzle's picture as rows of ``#`` and ``.``.

    Raises
    ------
    FormatError
        The puzzle has no goal picture.
    """
    goal = require_goal(puzzle, "grid")
    return "".join("".join("#" if v else "." for v in row) + "\n" for row in goal).encode()


def _sniff(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace")
    lines = [line.rstrip("\r") for line in text.split("\n")[:-1] or text.split("\n")]
    body = [line for line in lines if line.strip()]
    return bool(body) and all(re.fullmatch(r"[#Xx1█.0\- ]+", line) for line in body)


FORMAT = Format(
    name="grid",
    suffixes=(".txt", ".grid"),
    description="text picture: '#'/'X'/'1' filled, '.'/'0'/space empty (clues derived)",
    read=read_grid,
    write=write_grid,
    sniff=_sniff,
    stores_picture=True,
)
