"""PNG pictures of puzzles and solutions, drawn with pillow (layout in
:mod:`nonosat.render.layout`, the same as the SVG pictures)."""

from __future__ import annotations

import io
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from nonosat.puzzle import Puzzle
from nonosat.render.layout import Line, Rect, Text, cell_states, scene


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(size, 6))


def render_image(
    puzzle: Puzzle,
    grid: np.ndarray | None = None,
    *,
    solutions: list[np.ndarray] | None = None,
    cell: int | None = None,
) -> Image.Image:
    """A pillow RGB image of ``puzzle`` with its clues and, optionally, a grid.

    Parameters are those of :func:`nonosat.render.svg.render_svg`; the image has the same size
    in pixels as the SVG picture.
    """
    pic = scene(puzzle, cell_states(puzzle, grid, solutions), cell)
    image = Image.new("RGB", (pic.width, pic.height), "white")
    draw = ImageDraw.Draw(image)
    for shape in pic.shapes:
        if isinstance(shape, Rect):
            x0, y0 = round(shape.x), round(shape.y)
            x1, y1 = round(shape.x + shape.w) - 1, round(shape.y + shape.h) - 1
            if x1 >= x0 and y1 >= y0:
                draw.rectangle((x0, y0, x1, y1), fill=shape.fill)
        elif isinstance(shape, Line):
            width = max(1, round(shape.width))
            x1, y1, x2, y2 = (round(v) for v in (shape.x1, shape.y1, shape.x2, shape.y2))
            # Centre the stroke on the line, as SVG does.
            off = width // 2
            if x1 == x2:
                draw.rectangle(
                    (x1 - off, y1 - off, x1 - off + width - 1, y2 + off), fill=shape.color
                )
            else:
                draw.rectangle(
                    (x1 - off, y1 - off, x2 + off, y1 - off + width - 1), fill=shape.color
                )
        elif isinstance(shape, Text):
            draw.text(
                (shape.x, shape.y),
                shape.text,
                fill=shape.color,
                font=_font(round(shape.size)),
                anchor="mm",
                stroke_width=1 if shape.bold else 0,
                stroke_fill=shape.color,
            )
    return image


def render_png(
    puzzle: Puzzle,
    grid: np.ndarray | None = None,
    *,
    solutions: list[np.ndarray] | None = None,
    cell: int | None = None,
) -> bytes:
    """The PNG bytes of :func:`render_image`."""
    out = io.BytesIO()
    render_image(puzzle, grid, solutions=solutions, cell=cell).save(
        out, format="PNG", optimize=True
    )
    return out.getvalue()
