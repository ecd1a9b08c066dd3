"""Images (PNG, and anything else pillow reads: GIF, BMP, ...) as puzzles, one pixel per cell.

The image is converted to grey levels; pixels darker than the threshold (50 %) are filled, and
transparent pixels are empty.  The clues are derived from the picture, which is kept as the goal.
Written as a 1-bit PNG, one pixel per cell, black = filled.
"""

from __future__ import annotations

import io
import warnings

import numpy as np

from nonosat.errors import FormatError
from nonosat.formats import Format
from nonosat.formats.picture import picture_puzzle, require_goal
from nonosat.limits import size_limits
from nonosat.puzzle import Puzzle

#: Grey level (0-255) below which a pixel counts as filled.
THRESHOLD = 128

#: The pillow formats nonosat reads (``formats=`` of :func:`PIL.Image.open`); no other decoder is
#: ever tried on a file, whatever its name.
IMAGE_FORMATS = ("PNG", "GIF", "BMP")


def read_image(
    data: bytes, path: str, formats: tuple[str, ...] = ("PNG", "GIF", "BMP")
) -> list[Puzzle]:
    """Parse an image with pillow, one pixel per cell.

    ``formats`` are the pillow format names tried (:data:`IMAGE_FORMATS`; ``("PPM",)`` for PBM).

    Raises
    ------
    FormatError
        Not a PNG, GIF or BMP image (pillow is restricted to these: a file named ``.png``
        holding PostScript or any other format is refused, never handed to Ghostscript or
        another decoder), a truncated image, an image over the size limit
        (:mod:`nonosat.limits`, checked from the header before decoding).
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=list(formats))
            width, height = image.size
            size_limits().check_cells(width, height, path)
            image.load()
    except FormatError:
        raise
    except UnidentifiedImageError:
        raise FormatError(
            path, None, f"not a {'/'.join(formats)} image (the images nonosat reads)"
        ) from None
    except (
        OSError,
        ValueError,
        SyntaxError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
        MemoryError,
        EOFError,
    ) as exc:
        raise FormatError(path, None, f"unreadable image: {exc}") from None
    if image.mode == "1":
        picture = ~np.asarray(image, dtype=bool)
    else:
        rgba = image.convert("RGBA")
        grey = np.asarray(rgba.convert("L"), dtype=np.uint8)
        alpha = np.asarray(rgba, dtype=np.uint8)[:, :, 3]
        picture = (grey < THRESHOLD) & (alpha >= 128)
    return [picture_puzzle(picture, path)]


def write_png(puzzle: Puzzle) -> bytes:
    """The puzzle's picture as a 1-bit PNG, one pixel per cell, black = filled.

    Raises
    ------
    FormatError
        The puzzle has no goal picture.
    """
    from PIL import Image

    goal = require_goal(puzzle, "png")
    image = Image.fromarray(~np.asarray(goal, dtype=bool)).convert("1")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _sniff(head: bytes) -> bool:
    return head.startswith(b"\x89PNG\r\n\x1a\n") or head[:6] in (b"GIF87a", b"GIF89a")


FORMAT = Format(
    name="png",
    suffixes=(".png", ".gif", ".bmp"),
    description="PNG (or GIF/BMP) image, one pixel per cell: dark pixels are filled (clues derived)",
    read=read_image,
    write=write_png,
    sniff=_sniff,
    stores_picture=True,
)
