"""SVG pictures of puzzles and solutions (layout in :mod:`nonosat.render.layout`)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

import numpy as np

from nonosat.puzzle import Puzzle
from nonosat.render.layout import Line, Rect, Text, cell_states, scene


def render_svg(
    puzzle: Puzzle,
    grid: np.ndarray | None = None,
    *,
    solutions: list[np.ndarray] | None = None,
    cell: int | None = None,
) -> str:
    """An SVG document of ``puzzle`` with its clues and, optionally, a grid.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray, optional
        Bool solution (``True`` = filled) or ``int8`` grid state, shape ``(height, width)``;
        unknown cells are drawn light grey.  Omitted: an empty grid (the puzzle to solve).
    solutions : list of ndarray, optional
        Several solutions: the cells they disagree on are drawn as a grey checkerboard.
    cell : int, optional
        Cell size in pixels (default: 24 for small puzzles, less for big ones).

    Returns
    -------
    str
        A standalone SVG document; its ``width``/``height`` are the picture size in pixels.
    """
    pic = scene(puzzle, cell_states(puzzle, grid, solutions), cell)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{pic.width}" height="{pic.height}" '
        f'viewBox="0 0 {pic.width} {pic.height}" font-family="DejaVu Sans, Arial, sans-serif">',
    ]
    if puzzle.title:
        parts.append(f"<title>{escape(puzzle.title)}</title>")
    for shape in pic.shapes:
        if isinstance(shape, Rect):
            parts.append(
                f'<rect x="{shape.x:.2f}" y="{shape.y:.2f}" width="{shape.w:.2f}" '
                f'height="{shape.h:.2f}" fill="{shape.fill}"/>'
            )
        elif isinstance(shape, Line):
            parts.append(
                f'<line x1="{shape.x1:.2f}" y1="{shape.y1:.2f}" x2="{shape.x2:.2f}" '
                f'y2="{shape.y2:.2f}" stroke="{shape.color}" stroke-width="{shape.width:.2f}" '
                'stroke-linecap="square"/>'
            )
        elif isinstance(shape, Text):
            weight = ' font-weight="bold"' if shape.bold else ""
            parts.append(
                f'<text x="{shape.x:.2f}" y="{shape.y:.2f}" font-size="{shape.size:.2f}" '
                f'fill={quoteattr(shape.color)} text-anchor="middle" '
                f'dominant-baseline="central"{weight}>{escape(shape.text)}</text>'
            )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
