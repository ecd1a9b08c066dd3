"""Netpbm PBM bitmaps (plain ``P1`` and raw ``P4``) as puzzles: black pixels are filled cells.

Read with pillow; the clues are derived from the image, which is kept as the goal.  Written as
plain ``P1`` (one pixel per cell), which every PBM reader accepts.
"""

from __future__ import annotations

import io

import numpy as np

from nonosat.errors import FormatError
from nonosat.formats import Format, one_line_text
from nonosat.formats.picture import require_goal
from nonosat.formats.pixels import read_image
from nonosat.puzzle import Puzzle


def read_pbm(data: bytes, path: str) -> list[Puzzle]:
    """Parse a PBM image.

    Raises
    ------
    FormatError
        Not a PBM file, a truncated or oversized image.
    """
    if data.lstrip()[:2] not in (b"P1", b"P4"):
        raise FormatError(path, 1, "expected a PBM image (starting with P1 or P4)")
    return read_image(data, path, ("PPM",))


def write_pbm(puzzle: Puzzle) -> bytes:
    """The puzzle's picture as a plain PBM (``P1``), one pixel per cell, 1 = black = filled.

    Raises
    ------
    FormatError
        The puzzle has no goal picture.
    """
    goal = require_goal(puzzle, "pbm")
    out = io.StringIO()
    out.write(f"P1\n# {one_line_text(puzzle.title or '') or 'nonosat puzzle'}\n{goal.shape[1]} {goal.shape[0]}\n")
    for row in np.asarray(goal, dtype=np.uint8):
        text = " ".join(map(str, row))
        while len(text) > 70:  # PBM lines should not exceed 70 characters
            cut = text.rfind(" ", 0, 70)
            out.write(text[:cut] + "\n")
            text = text[cut + 1 :]
        out.write(text + "\n")
    return out.getvalue().encode()


def _sniff(head: bytes) -> bool:
    return head[:2] in (b"P1", b"P4") and head[2:3] in (b"\n", b"\r", b" ", b"\t", b"#")


FORMAT = Format(
    name="pbm",
    suffixes=(".pbm",),
    description="PBM bitmap (P1/P4): black pixels are filled cells (clues derived)",
    read=read_pbm,
    write=write_pbm,
    sniff=_sniff,
    stores_picture=True,
)
