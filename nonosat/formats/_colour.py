"""What the colour-capable readers and writers share: colour values, palettes built from a
file's colour declarations, and a colour :class:`~nonosat.puzzle.Puzzle` whose validation errors
name the file line.  Private to :mod:`nonosat.formats`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Unpack

from nonosat.errors import FormatError, PuzzleError
from nonosat.formats._text import PuzzleFields, clue_too_long
from nonosat.puzzle import (
    Colour,
    Palette,
    Puzzle,
    clue_min_length_colour,
    colour_clue_text,
)

_HEX = re.compile(r"#?([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})")

#: Characters a writer may give colours that have none (the background is ``.``).
SPARE_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def parse_rgb(value: str) -> tuple[int, int, int] | None:
    """``(r, g, b)`` of ``"#rrggbb"``, ``"rrggbb"``, ``"#rgb"`` or a CSS colour name (``"red"``;
    of ``"black/orange"``, a split cell of Olšák's triangles, the first part); ``None`` if it is
    none of those."""
    text = value.strip()
    m = _HEX.fullmatch(text)
    if m:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(ch * 2 for ch in h)
        return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))
    name = re.split(r"[/\\]", text)[0].strip().lower()
    if not name:
        return None
    from PIL import ImageColor

    try:
        rgb = ImageColor.getrgb(name)
    except ValueError:
        return None
    return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


def refuse_repeated(declared: Sequence[tuple[str, int | None]], path: str,
                    what: str = "colour") -> None:
    """The one rule for colour declarations in every reader: a colour name (or, where colours
    are declared by character, a character) is declared once.

    Parameters
    ----------
    declared : sequence of (str, int or None)
        Each declared name with the file line of its declaration, in file order.
    path : str
        The file, for the error.
    what : str
        What is named: ``"colour"`` (a name) or ``"colour character"``.

    Raises
    ------
    FormatError
        A name declared a second time; names the file and the second declaration's line.
    """
    from nonosat.text import quoted

    first: dict[str, int | None] = {}
    for name, line in declared:
        if name in first:
            where = f" (first on line {first[name]})" if first[name] is not None else ""
            raise FormatError(path, line, f"{what} {quoted(name)} is declared twice{where}; "
                              "each colour is declared once")
        first[name] = line


def make_palette(
    background: tuple[str, tuple[int, int, int], str],
    colours: Sequence[tuple[str, tuple[int, int, int], str]],
    path: str,
) -> Palette:
    """A :class:`Palette` of ``(name, rgb, char)`` entries, the background first.  Characters
    are made distinct (a missing, blank or repeated one is replaced by a spare letter), so that
    text grids of the palette read back unambiguously.

    Raises
    ------
    FormatError
        Too many colours or repeated names (names ``path``).
    """
    entries = []
    taken: set[str] = set()
    for name, rgb, ch in (background, *colours):
        if len(ch) != 1 or ch in taken or ch.isspace() or not ch.isprintable() or ch == "?":
            spare = next((c for c in SPARE_CHARS if c not in taken), None)
            if spare is None:
                raise FormatError(path, None, f"too many colours ({len(colours) + 1} with the "
                                  "background); no character is left to name them")
            ch = spare
        taken.add(ch)
        entries.append(Colour(name, rgb, ch))
    try:
        return Palette(tuple(entries))
    except PuzzleError as exc:
        raise FormatError(path, None, str(exc)) from None


def make_colour_puzzle(
    path: str,
    rows: Sequence[tuple[int, ...]],
    row_colours: Sequence[tuple[int, ...]],
    cols: Sequence[tuple[int, ...]],
    col_colours: Sequence[tuple[int, ...]],
    palette: Palette,
    row_lines: Sequence[int | None] | None = None,
    col_lines: Sequence[int | None] | None = None,
    **fields: Unpack[PuzzleFields],
) -> Puzzle:
    """A colour :class:`Puzzle`, turning every validation failure into a :class:`FormatError`
    that names the file line of the offending clue when the reader knows it.

    Blocks of length 0 are dropped (with their colour).

    Raises
    ------
    FormatError
        A clue that does not fit its line (same-colour blocks need a gap), colour totals that
        disagree, a goal of the wrong shape or colours.
    """
    clean: dict[str, tuple[list, list]] = {}
    for kind, clues, colours, where, length in (
        ("row", rows, row_colours, row_lines, len(cols)),
        ("column", cols, col_colours, col_lines, len(rows)),
    ):
        out_c, out_k = [], []
        for i, (clue, colour) in enumerate(zip(clues, colours, strict=True)):
            pairs = [(b, c) for b, c in zip(clue, colour, strict=True) if b]
            blocks = tuple(b for b, _ in pairs)
            bcol = tuple(c for _, c in pairs)
            if clue_min_length_colour(blocks, bcol) > length:
                raise clue_too_long(path, where, i, kind, colour_clue_text(blocks, bcol, palette),
                                    clue_min_length_colour(blocks, bcol), length)
            out_c.append(blocks)
            out_k.append(bcol)
        clean[kind] = (out_c, out_k)
    try:
        return Puzzle(
            tuple(clean["row"][0]),
            tuple(clean["column"][0]),
            palette=palette,
            row_colours=tuple(clean["row"][1]),
            col_colours=tuple(clean["column"][1]),
            **fields,
        )
    except PuzzleError as exc:
        raise FormatError(path, None, str(exc)) from None


def writer_names(palette: Palette, fmt: str) -> list[str]:
    """The colour names a line-based format writes: each made one line of words separated by
    single spaces (the readers split a colour line into words).

    Raises
    ------
    FormatError
        A name that is blank, or two names that become the same (the file could not tell
        the colours apart).
    """
    from nonosat.text import quoted

    names = [" ".join(c.name.replace("\x00", " ").split()) for c in palette.colours]
    for k, (name, colour) in enumerate(zip(names, palette.colours, strict=True)):
        if not name:
            raise FormatError(f"<{fmt}>", None, f"colour {k} has a blank name "
                              f"({quoted(colour.name)}); {fmt} files name every colour")
        if name in names[:k]:
            raise FormatError(f"<{fmt}>", None, f"colour names {quoted(colour.name)} and "
                              f"{quoted(palette.colours[names.index(name)].name)} are the same "
                              f"on one line; {fmt} files could not tell them apart")
    return names


def writer_chars(palette: Palette, background: str = ".") -> list[str]:
    """One distinct character per colour for writing: the palette's own characters where they
    are distinct, non-blank, not digits and not ``,|#?`` (``?`` is an unknown cell of a givens
    grid), else spare letters; ``background`` for colour 0."""
    out = [background]
    taken = {background}
    for colour in palette.colours[1:]:
        ch = colour.char
        if len(ch) != 1 or ch in taken or ch.isspace() or ch.isdigit() or ch in ",|#?":
            spare = next((c for c in SPARE_CHARS if c not in taken), None)
            if spare is None:
                raise FormatError("<output>", None, f"too many colours ({len(palette.colours)}"
                                  "); no character is left to name them")
            ch = spare
        out.append(ch)
        taken.add(ch)
    return out
