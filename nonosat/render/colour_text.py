"""Colour puzzles as clue-annotated text grids with rich styles (truecolour in a terminal).

The layout is that of :mod:`nonosat.render.clue_grid`: column clues stacked above the grid, row clues
to the left, each cell two (or three) characters wide.  A cell of colour ``k`` is its palette
character repeated, styled as a solid block of the colour (``"yy"`` in yellow on yellow); the
background is blank; a cell still undecided (a grid state with several colours) is ``??``.  Clue
numbers are drawn in their block's colour.  Without a terminal, rich drops the styles and the
characters remain, so the text is readable in a file or a test.
"""

from __future__ import annotations

import numpy as np
from rich.text import Text

from nonosat.puzzle import Puzzle


def _contrast(rgb: tuple[int, int, int]) -> str:
    """Black or white, whichever reads better on ``rgb``."""
    r, g, b = rgb
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def render_colour_text(
    puzzle: Puzzle, grid: np.ndarray | None = None, *, masks: bool = False
) -> Text:
    """The colour puzzle with its clues and ``grid`` as a :class:`rich.text.Text`.

    Parameters
    ----------
    puzzle : Puzzle
        A colour puzzle.
    grid : ndarray, shape (height, width), optional
        A solution (colour indices) or, with ``masks=True``, a grid state of colour bit masks;
        all undecided when omitted.
    masks : bool
        Whether ``grid`` holds bit masks.

    Raises
    ------
    ValueError
        ``puzzle`` is not a colour puzzle.
    """
    if puzzle.palette is None:
        raise ValueError("render_colour_text draws colour puzzles")
    colours = puzzle.palette.colours
    if grid is None:
        cells = np.full(puzzle.shape, -1, dtype=np.int64)
    elif masks:
        g = np.asarray(grid, dtype=np.int64)
        single = (g > 0) & ((g & (g - 1)) == 0)
        cells = np.where(single, np.log2(np.maximum(g, 1)).round().astype(np.int64), -1)
        cells = np.where(g == 0, -2, cells)
    else:
        cells = np.asarray(grid, dtype=np.int64)
    line_colours = puzzle.line_colours
    row_items = [
        list(zip(c, line_colours[i] or (), strict=True)) if c else []
        for i, c in enumerate(puzzle.rows)
    ]
    col_items = [
        list(zip(c, line_colours[puzzle.height + j] or (), strict=True)) if c else []
        for j, c in enumerate(puzzle.cols)
    ]
    width = 2 if all(b < 10 for items in col_items for b, _ in items) else 3

    def clue_style(k: int) -> str:
        return f"bold {colours[k].hex}"

    row_widths = [
        sum(len(str(b)) for b, _ in items) + max(len(items) - 1, 0) if items else 1
        for items in row_items
    ]
    left = max(row_widths)
    depth = max((len(items) for items in col_items), default=0) or 1
    out = Text()
    for level in range(depth):
        out.append(" " * (left + 1))
        for items in col_items:
            k = level - (depth - len(items)) if items else level - (depth - 1)
            if items and k >= 0:
                b, c = items[k]
                out.append(f"{b!s:>{width}}", style=clue_style(c))
            elif not items and k == 0:
                out.append(f"{'0':>{width}}")
            else:
                out.append(" " * width)
        out.append("\n")
    rule = " " * left + " +" + "-" * (width * puzzle.width) + "+\n"
    out.append(rule)
    for r, items in enumerate(row_items):
        out.append(" " * (left - row_widths[r]))
        if items:
            for n, (b, c) in enumerate(items):
                if n:
                    out.append(" ")
                out.append(str(b), style=clue_style(c))
        else:
            out.append("0" if puzzle.rows[r] is not None else "?")
        out.append(" |")
        for value in cells[r]:
            v = int(value)
            if v == 0:
                out.append(" " * width)
            elif v > 0:
                colour = colours[v]
                out.append(colour.char * width, style=f"{colour.hex} on {colour.hex}")
            elif v == -2:
                out.append("!" * width, style="bold red")
            else:
                out.append("?" * width)
        out.append("|\n")
    out.append(rule.rstrip("\n"))
    return out


def plain_colour_text(
    puzzle: Puzzle, grid: np.ndarray | None = None, *, masks: bool = False
) -> str:
    """:func:`render_colour_text` without styles (a plain string)."""
    return render_colour_text(puzzle, grid, masks=masks).plain
