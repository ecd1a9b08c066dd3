"""The colours of a colour puzzle: :class:`Colour`, :class:`Palette` (colour 0 is the
background), and the colour blocks of a solved line.  Part of the model
(:mod:`nonosat.puzzle`, which re-exports these names); it depends on nothing else in the package
but :mod:`nonosat.errors`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nonosat.errors import PuzzleError


def clue_min_length_colour(clue: Sequence[int], colours: Sequence[int]) -> int:
    """Fewest cells a colour line needs: the blocks plus one gap between each pair of adjacent
    blocks of the same colour (different colours may touch)."""
    gaps = sum(1 for a, b in zip(colours, colours[1:], strict=False) if a == b)
    return sum(clue) + gaps


def line_colour_blocks(cells: Sequence[int] | np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The clue of a solved colour line (colour indices, 0 = background): ``(lengths, colours)``
    of its runs of one non-background colour, left to right.

    >>> line_colour_blocks([1, 1, 2, 0, 1])
    ((2, 1, 1), (1, 2, 1))
    """
    lengths: list[int] = []
    colours: list[int] = []
    prev = 0
    for value in cells:
        v = int(value)
        if v and v == prev:
            lengths[-1] += 1
        elif v:
            lengths.append(1)
            colours.append(v)
        prev = v
    return tuple(lengths), tuple(colours)


@dataclass(frozen=True)
class Colour:
    """One colour of a palette: its ``name`` (``"red"``), ``rgb`` (three ints 0..255) and the
    one-character ``char`` used in text grids and clue suffixes."""

    name: str
    rgb: tuple[int, int, int]
    char: str

    @property
    def hex(self) -> str:
        """``"#rrggbb"``."""
        return "#{:02x}{:02x}{:02x}".format(*self.rgb)


@dataclass(frozen=True)
class Palette:
    """The colours of a colour puzzle; ``colours[0]`` is the background.

    Raises
    ------
    PuzzleError
        Fewer than two colours, more than :data:`MAX_COLOURS`, two colours sharing a name, or a
        colour whose ``char`` is not one printable character.
    """

    colours: tuple[Colour, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "colours", tuple(self.colours))
        if len(self.colours) < 2:
            raise PuzzleError("a palette needs a background and at least one colour")
        if len(self.colours) > MAX_COLOURS:
            raise PuzzleError(
                f"{len(self.colours)} colours; at most {MAX_COLOURS} (background included)"
            )
        bad = [c.char for c in self.colours if len(c.char) != 1 or not c.char.isprintable()]
        if bad:
            raise PuzzleError(f"a colour's character must be one printable character, not "
                              f"{bad[0].encode('unicode_escape').decode('ascii')!r}")
        names = [c.name for c in self.colours]
        if len(set(names)) != len(names):
            raise PuzzleError(f"colour names repeat in the palette: {', '.join(names)}")

    def __len__(self) -> int:
        return len(self.colours)

    def index(self, name: str) -> int:
        """Index of the colour called ``name``.

        Raises
        ------
        PuzzleError
            No such colour.
        """
        for k, c in enumerate(self.colours):
            if c.name == name:
                return k
        raise PuzzleError(f"no colour named {name!r} in the palette")

    @property
    def chars(self) -> str:
        """One character per colour (index order), for text grids."""
        return "".join(c.char for c in self.colours)


#: Most colours a palette may hold (background included): a cell's state is an int32 bit set.
MAX_COLOURS = 31


def colour_rows(solution: np.ndarray, palette: Palette) -> list[str]:
    """Rows of a colour solution (colour indices) as strings of the palette's characters."""
    chars = palette.chars
    return ["".join(chars[int(v)] for v in row) for row in np.asarray(solution)]
