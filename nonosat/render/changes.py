"""A picture of the cells a generator changed: the final grid, changed cells marked.

Used by ``nonosat generate --diff FILE.png`` and the studio.
"""

from __future__ import annotations

import io

import numpy as np

from nonosat.puzzle import Palette

#: Colour of the marks on changed cells.
MARK = (230, 30, 30)


def changes_png(picture: np.ndarray, original: np.ndarray, palette: Palette | None = None,
                cell: int = 12) -> bytes:
    """PNG bytes: ``picture`` drawn ``cell`` pixels per cell (black-and-white: black on white;
    colour: the palette's colours), a thin grid, and each cell that differs from ``original``
    outlined in red with a red diagonal (a cell emptied gets a red cross).

    Parameters
    ----------
    picture, original : ndarray, shape (height, width)
        Bool, or colour indices into ``palette``.
    palette : Palette, optional
    cell : int
        Pixels per cell (4 to 64).
    """
    from PIL import Image, ImageDraw

    cell = max(4, min(64, int(cell)))
    pic = np.asarray(picture)
    orig = np.asarray(original)
    h, w = pic.shape
    if palette is None:
        colours = [(255, 255, 255), (0, 0, 0)]
    else:
        colours = [c.rgb for c in palette.colours]
    image = Image.new("RGB", (w * cell + 1, h * cell + 1), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for r in range(h):
        for c in range(w):
            x, y = c * cell, r * cell
            draw.rectangle((x, y, x + cell, y + cell), fill=colours[int(pic[r, c])],
                           outline=(200, 200, 200))
    for r, c in zip(*np.nonzero(pic != orig), strict=True):
        x, y = int(c) * cell, int(r) * cell
        draw.rectangle((x, y, x + cell, y + cell), outline=MARK, width=max(1, cell // 6))
        draw.line((x, y + cell, x + cell, y), fill=MARK, width=max(1, cell // 8))
        if int(pic[r, c]) == 0:
            draw.line((x, y, x + cell, y + cell), fill=MARK, width=max(1, cell // 8))
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()
