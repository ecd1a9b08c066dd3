"""Clue-annotated text grids, as the davidje13 solver prints them.

Column clues are stacked above the grid (bottom-aligned), row clues stand to the left
(right-aligned), each cell is two characters wide: ``##`` filled, two spaces empty, ``??`` unknown.
When a column clue has a number of two digits or more, cells widen to three characters (``###``)
so that neighbouring numbers stay apart.
"""

from __future__ import annotations

import numpy as np

from nonosat.puzzle import Cell, Puzzle

_CELL_TEXT = {Cell.FILLED: "##", Cell.EMPTY: "  ", Cell.UNKNOWN: "??", Cell.CONFLICT: "!!"}


def render_text(puzzle: Puzzle, grid: np.ndarray | None = None) -> str:
    """The puzzle with its clues and ``grid`` (a bool solution or an ``int8`` grid state; all
    unknown when omitted) as a multi-line string without a trailing newline."""
    if grid is None:
        cells = np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    else:
        g = np.asarray(grid)
        cells = np.where(g, Cell.FILLED, Cell.EMPTY) if g.dtype == bool else g
    row_texts = [
        " ".join(map(str, c)) if c else ("0" if c is not None else "?") for c in puzzle.rows
    ]
    left = max(len(t) for t in row_texts)
    col_clues = [list(c) if c else ([0] if c is not None else ["?"]) for c in puzzle.cols]
    depth = max(len(c) for c in col_clues)
    width = 2 if all(len(str(b)) < 2 for clue in col_clues for b in clue) else 3
    cell_text = {k: v[0] * width for k, v in _CELL_TEXT.items()}
    lines = []
    for level in range(depth):
        parts = []
        for clue in col_clues:
            k = level - (depth - len(clue))
            parts.append(f"{clue[k]!s:>{width}}" if k >= 0 else " " * width)
        lines.append(" " * (left + 1) + "".join(parts).rstrip())
    rule = " " * left + " +" + "-" * (width * puzzle.width) + "+"
    lines.append(rule)
    for text, row in zip(row_texts, cells, strict=True):
        body = "".join(cell_text[Cell(int(v))] for v in row)
        lines.append(f"{text:>{left}} |{body}|")
    lines.append(rule)
    return "\n".join(lines)
