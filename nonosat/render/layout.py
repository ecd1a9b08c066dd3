"""Where everything goes in a picture of a puzzle: a list of shapes that the SVG and PNG
renderers draw the same way.

The picture has the title on top (when there is one), the column clues stacked above the grid
(bottom-aligned), the row clues to the left (right-aligned), and the grid with a thick line every
five cells.  Filled cells are black, empty ones white, unknown ones light grey, and cells on which
several solutions disagree are drawn with a grey checkerboard (as the dsmiller95 nonogram designer
shows ambiguous cells).

A colour puzzle is drawn in its own palette: cells in their colour, clue numbers in their block's
colour (on a dark backing when the colour is too light to read on white); its cell array (from
:func:`cell_states`) holds colour indices, :data:`COLOUR_UNKNOWN`, :data:`COLOUR_DIFFERS` or
:data:`COLOUR_CONFLICT`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nonosat.puzzle import Cell, Clue, Puzzle

#: Cell value used only here: the solutions disagree on this cell.
DIFFERS = 4
#: Colour cell values (colour puzzles; colour indices are 0..C-1): still undecided, a conflict.
COLOUR_UNKNOWN = -1
COLOUR_DIFFERS = -2
COLOUR_CONFLICT = -3

INK = "#000000"
PAPER = "#ffffff"
GRID = "#9a9a9a"
UNKNOWN_FILL = "#e4e4e4"
CHECKER_DARK = "#6b6b6b"
CHECKER_LIGHT = "#c8c8c8"
CLUE_INK = "#1a1a1a"
MARGIN_CELLS = 0.5


@dataclass(frozen=True)
class Rect:
    """Axis-aligned filled rectangle (pixels)."""

    x: float
    y: float
    w: float
    h: float
    fill: str


@dataclass(frozen=True)
class Line:
    """Straight line of ``width`` pixels."""

    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    color: str


@dataclass(frozen=True)
class Text:
    """Text centred on ``(x, y)``, ``size`` pixels high."""

    x: float
    y: float
    text: str
    size: float
    color: str = CLUE_INK
    bold: bool = False


@dataclass
class Scene:
    """A picture: its size in pixels and its shapes, in drawing order."""

    width: int
    height: int
    shapes: list[Rect | Line | Text] = field(default_factory=list)


def cell_states(
    puzzle: Puzzle, grid: np.ndarray | None = None, solutions: list[np.ndarray] | None = None
) -> np.ndarray:
    """The cells to draw: ``int8`` array of shape ``(height, width)`` holding
    :class:`~nonosat.puzzle.Cell` values or :data:`DIFFERS`.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray, optional
        A bool solution or an ``int8`` grid state.
    solutions : list of bool ndarray, optional
        Several solutions: cells on which they all agree are drawn as such, the others as
        :data:`DIFFERS`.  Takes precedence over ``grid``.
    """
    if puzzle.is_colour:
        return _colour_cells(puzzle, grid, solutions)
    if solutions:
        stack = np.asarray(solutions, dtype=bool)
        cells = np.where(stack[0], np.int8(Cell.FILLED), np.int8(Cell.EMPTY)).astype(np.int8)
        cells[(stack != stack[0]).any(axis=0)] = DIFFERS
        return cells
    if grid is None:  # the puzzle to solve: a blank (white) grid
        return np.full(puzzle.shape, Cell.EMPTY, dtype=np.int8)
    g = np.asarray(grid)
    if g.dtype == bool:
        return np.where(g, np.int8(Cell.FILLED), np.int8(Cell.EMPTY)).astype(np.int8)
    return g.astype(np.int8)


def _colour_cells(
    puzzle: Puzzle, grid: np.ndarray | None, solutions: list[np.ndarray] | None
) -> np.ndarray:
    """Cells of a colour puzzle: ``int16`` colour indices, :data:`COLOUR_UNKNOWN`,
    :data:`COLOUR_DIFFERS` or :data:`COLOUR_CONFLICT`.  ``grid`` is a solution (``int8`` colour
    indices) or a grid state of colour bit masks (``int32``/``int64``)."""
    if solutions:
        stack = np.asarray(solutions, dtype=np.int16)
        cells = stack[0].copy()
        cells[(stack != stack[0]).any(axis=0)] = COLOUR_DIFFERS
        return cells
    if grid is None:
        return np.zeros(puzzle.shape, dtype=np.int16)
    g = np.asarray(grid)
    if g.dtype.itemsize >= 4:  # bit masks
        g = g.astype(np.int64)
        single = (g > 0) & ((g & (g - 1)) == 0)
        idx = np.log2(np.maximum(g, 1)).round().astype(np.int16)
        cells = np.where(single, idx, np.int16(COLOUR_UNKNOWN)).astype(np.int16)
        cells[g == 0] = COLOUR_CONFLICT
        return cells
    return g.astype(np.int16)


def _light(hex_colour: str) -> bool:
    """Whether a ``#rrggbb`` colour is too light to read as text on white."""
    r, g, b = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b > 200


def _clue_numbers(clue: Clue) -> list[str]:
    if clue is None:
        return ["?"]
    return [str(b) for b in clue] if clue else ["0"]


def _slot(text: str, cell: float) -> float:
    """Width of one row-clue number: a cell, wider for three digits or more."""
    return cell * max(1.0, 0.55 * len(text) + 0.2)


def auto_cell_size(puzzle: Puzzle) -> int:
    """A cell size (pixels) that keeps pictures of big puzzles around 1000-2000 pixels wide."""
    side = max(puzzle.width, puzzle.height)
    return int(max(4, min(24, 1200 // side)))


def scene(puzzle: Puzzle, cells: np.ndarray, cell: int | None = None) -> Scene:
    """Lay out ``puzzle`` with the cell states ``cells`` (from :func:`cell_states`).

    Parameters
    ----------
    puzzle : Puzzle
    cells : ndarray of int8, shape (height, width)
    cell : int, optional
        Cell size in pixels (default :func:`auto_cell_size`).

    Returns
    -------
    Scene
        Width and height in pixels (whole numbers) and the shapes to draw.
    """
    c = float(cell or auto_cell_size(puzzle))
    h, w = puzzle.shape
    font = 0.62 * c
    row_numbers = [_clue_numbers(clue) for clue in puzzle.rows]
    col_numbers = [_clue_numbers(clue) for clue in puzzle.cols]
    palette = puzzle.palette
    inks: list[list[str]] = [[CLUE_INK] * len(nums) for nums in row_numbers + col_numbers]
    if palette is not None:
        for n, colours in enumerate(puzzle.line_colours):
            if colours:
                inks[n] = [palette.colours[k].hex for k in colours]
    left = max(sum(_slot(t, c) for t in nums) for nums in row_numbers) + 0.3 * c
    depth = max(len(nums) for nums in col_numbers)
    margin = MARGIN_CELLS * c
    title_h = 1.6 * c if puzzle.title else 0.0
    x0 = margin + left
    y0 = margin + title_h + depth * c + 0.2 * c
    title_size = 0.9 * c
    title_w = 0.62 * title_size * len(puzzle.title or "")  # rough width of the title text
    extra = max(0.0, title_w - (left + w * c)) / 2  # widen narrow puzzles to fit the title
    x0 += extra
    out = Scene(int(round(x0 + w * c + margin + extra)), int(round(y0 + h * c + margin)))
    shapes = out.shapes
    shapes.append(Rect(0, 0, out.width, out.height, PAPER))
    if puzzle.title:
        shapes.append(Text(out.width / 2, margin + 0.7 * c, puzzle.title, title_size, INK, True))

    # Column clues, bottom-aligned above each column; row clues, right-aligned left of each row.
    def clue(x: float, y: float, text: str, size: float, ink: str, slot: float) -> None:
        if ink != CLUE_INK and _light(ink):  # a light colour: on a dark backing
            shapes.append(Rect(x - slot / 2 + 1, y - c / 2 + 1, slot - 2, c - 2, "#505050"))
        shapes.append(Text(x, y, text, size, ink, ink != CLUE_INK))

    for j, nums in enumerate(col_numbers):
        x = x0 + (j + 0.5) * c
        for k, text in enumerate(nums):
            y = y0 - 0.2 * c - (len(nums) - k - 0.5) * c
            size = min(font, 1.7 * c / max(len(text), 1))
            clue(x, y, text, size, inks[h + j][k], c)
    for i, nums in enumerate(row_numbers):
        y = y0 + (i + 0.5) * c
        x = x0 - 0.3 * c
        for k in range(len(nums) - 1, -1, -1):
            text = nums[k]
            slot = _slot(text, c)
            clue(x - slot / 2, y, text, font, inks[i][k], slot)
            x -= slot

    if palette is not None:
        _colour_grid(shapes, cells, palette, x0, y0, c)
        _grid_lines(shapes, h, w, x0, y0, c)
        return out

    # Cells: unknown background, runs of filled cells, checkerboards where solutions differ.
    _fill_runs(shapes, cells == Cell.UNKNOWN, x0, y0, c, UNKNOWN_FILL)
    _fill_runs(shapes, cells == Cell.FILLED, x0, y0, c, INK)
    _marks(shapes, cells == DIFFERS, cells == Cell.CONFLICT, x0, y0, c)

    _grid_lines(shapes, h, w, x0, y0, c)
    return out


def _colour_grid(shapes: list, cells: np.ndarray, palette, x0: float, y0: float, c: float) -> None:
    """Cells of a colour puzzle: runs of each colour, unknown grey, checkerboards where the
    solutions differ, red conflicts."""
    for k, colour in enumerate(palette.colours):
        if k > 0:  # the background is drawn as paper
            _fill_runs(shapes, cells == k, x0, y0, c, colour.hex)
    _fill_runs(shapes, cells == COLOUR_UNKNOWN, x0, y0, c, UNKNOWN_FILL)
    _marks(shapes, cells == COLOUR_DIFFERS, cells == COLOUR_CONFLICT, x0, y0, c)


def _fill_runs(shapes: list, mask: np.ndarray, x0: float, y0: float, c: float, fill: str) -> None:
    """One rectangle of colour ``fill`` per run of ``True`` cells in each row of ``mask`` (bool,
    (h, w)), the grid's corner at ``(x0, y0)``, cells ``c`` wide."""
    for i in range(mask.shape[0]):
        for j0, j1 in _runs(mask[i]):
            shapes.append(Rect(x0 + j0 * c, y0 + i * c, (j1 - j0) * c, c, fill))


def _marks(shapes: list, differs: np.ndarray, conflict: np.ndarray, x0: float, y0: float,
           c: float) -> None:
    """Checkerboards on the cells where the solutions differ, then red conflict cells (each a
    bool mask, (h, w))."""
    half = c / 2
    for i, j in np.argwhere(differs):
        x, y = x0 + j * c, y0 + i * c
        shapes.append(Rect(x, y, c, c, CHECKER_LIGHT))
        shapes.append(Rect(x, y, half, half, CHECKER_DARK))
        shapes.append(Rect(x + half, y + half, half, half, CHECKER_DARK))
    for i, j in np.argwhere(conflict):
        shapes.append(Rect(x0 + j * c, y0 + i * c, c, c, "#d62728"))


def _grid_lines(shapes: list, h: int, w: int, x0: float, y0: float, c: float) -> None:
    # Grid lines: thin between cells, thick every five cells and around the grid.
    thin, thick = max(1.0, c / 20), max(2.0, c / 8)
    for j in range(w + 1):
        bold = j % 5 == 0 or j == w
        x = x0 + j * c
        shapes.append(Line(x, y0, x, y0 + h * c, thick if bold else thin, INK if bold else GRID))
    for i in range(h + 1):
        bold = i % 5 == 0 or i == h
        y = y0 + i * c
        shapes.append(Line(x0, y, x0 + w * c, y, thick if bold else thin, INK if bold else GRID))


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` of every run of ``True`` in a 1-D bool array."""
    padded = np.concatenate(([False], mask, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))
