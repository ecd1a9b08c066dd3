"""Mirek Olšák's ``.g`` format (his ``grid`` solver; also read and written by number-loom and
pbnsolve), black and white only.

Layout::

    #d                                  (optional: a palette follows)
       0:   #FFFFFF   white
       a:a  #000000   black
    : rows
    3a 1a
    <one line per row, top to bottom; an empty line is an empty row>
    : columns
    <one line per column, left to right>

Lines before the first ``:`` that are not palette entries are comments; so is everything after
the second section.  A block is a number, optionally followed by its colour character (plain
numbers are colour ``1``, black unless the palette says otherwise).  The size is the number of
lines in each section, so every line there counts, blank ones included.  A puzzle whose blocks use
more than one colour besides the background is a colour puzzle (colour values are ``#rrggbb`` or
names; Olšák's split "triangle" colours such as ``black/orange`` are read as plain colours, drawn
in their first part).  Triddlers (``#t``) are refused.
"""

from __future__ import annotations

import re

from nonosat.errors import FormatError
from nonosat.formats import Format
from nonosat.formats._colour import (
    make_colour_puzzle,
    make_palette,
    parse_rgb,
    refuse_repeated,
    writer_chars,
    writer_names,
)
from nonosat.formats._text import (
    MAX_CLUE_LINE_CHARS,
    clue_string,
    decode_text,
    make_puzzle,
    require_known,
    split_lines,
)
from nonosat.puzzle import Puzzle

_BLOCK = re.compile(r"(\d{1,9})(\S?)")
_PALETTE = re.compile(r"\s*(\S):(\S*)\s+(\S+)(?:\s+(.*))?")


def read_olsak(data: bytes, path: str) -> list[Puzzle]:
    """Parse an Olšák ``.g`` file.

    Raises
    ------
    FormatError
        No ``: rows`` / ``: columns`` sections, a malformed block, an undefined colour, a
        triddler or colour puzzle, a clue that does not fit (each names the line).
    """
    lines = split_lines(decode_text(data, path))
    palette: dict[str, str] = {}
    names: dict[str, str] = {}
    lines_of: dict[str, int] = {}
    sections: list[list[tuple[str, int]]] = []
    in_palette = False
    for k, raw in enumerate(lines, start=1):
        text = raw.strip()
        if raw.startswith("#") and not sections:
            directive = text[1:2].lower()
            if directive == "t":
                raise FormatError(path, k, "triddler (triangular) puzzles are not supported")
            in_palette = directive == "d"
            continue
        if text.startswith(":"):
            sections.append([])
            continue
        if not sections:
            if in_palette and text:
                m = _PALETTE.fullmatch(raw)
                if not m:
                    raise FormatError(
                        path,
                        k,
                        f"expected a palette line like 'a:a #000000 black', found {text[:30]!r}",
                    )
                if m.group(1) in palette:
                    refuse_repeated([(m.group(1), lines_of[m.group(1)]), (m.group(1), k)], path,
                                    "colour character")
                palette[m.group(1)] = m.group(3)
                names[m.group(1)] = (m.group(4) or "").strip()
                lines_of[m.group(1)] = k
            continue
        if len(sections) <= 2:
            sections[-1].append((raw, k))
    if len(sections) < 2:
        raise FormatError(path, None, "expected a ': rows' section and a ': columns' section")
    background = {
        ch for ch, value in palette.items() if ch == "0" or value.lower() in ("#ffffff", "white")
    }
    refuse_repeated([(_colour_name(ch, palette, names), lines_of[ch]) for ch in palette
                     if ch not in background], path)
    used: dict[str, int] = {}
    clues: list[list[tuple[int, ...]]] = [[], []]
    block_colours: list[list[tuple[str, ...]]] = [[], []]
    for d, section in enumerate(sections[:2]):
        for raw, k in section:
            if len(raw) > MAX_CLUE_LINE_CHARS:
                raise FormatError(path, k, "clue line too long")
            blocks = []
            chars = []
            for token in raw.split():
                m = _BLOCK.fullmatch(token)
                if not m:
                    raise FormatError(
                        path, k, f"expected a block like 3 or 3a, found {token[:20]!r}"
                    )
                colour = m.group(2) or "1"
                if colour not in palette and colour != "1":
                    raise FormatError(
                        path,
                        k,
                        f"block {token!r} uses colour {colour!r}, which the palette does not define",
                    )
                if int(m.group(1)) and colour not in background:
                    used.setdefault(colour, k)
                blocks.append(int(m.group(1)))
                chars.append(colour)
            clues[d].append(tuple(blocks))
            block_colours[d].append(tuple(chars))
    if len(used) > 1:
        return [_colour_puzzle(path, sections, clues, block_colours, palette, names, background)]
    rows, cols = clues
    return [
        make_puzzle(
            path,
            rows,
            cols,
            [k for _, k in sections[0]],
            [k for _, k in sections[1]],
        )
    ]


def _colour_puzzle(path, sections, clues, block_colours, palette, names, background) -> Puzzle:
    """The colour puzzle of a ``.g`` file whose blocks use several colours."""
    used = {
        ch
        for d in (0, 1)
        for cl, co in zip(clues[d], block_colours[d], strict=True)
        for b, ch in zip(cl, co, strict=True)
        if b and ch not in background
    }
    order = [ch for ch in palette if ch in used]
    if "1" in used and "1" not in palette:
        order.append("1")
    index: dict[str, int] = {}
    entries: list[tuple[str, tuple[int, int, int], str]] = []
    for ch in order:
        value = palette.get(ch, "black")
        rgb = parse_rgb(value)
        if rgb is None:
            raise FormatError(
                path, None, f"colour {ch!r} has a value {value!r} that is not a colour"
            )
        index[ch] = len(entries) + 1
        name = _colour_name(ch, palette, names)
        entries.append((name, rgb, ch))
    bg_char = next(iter(background), "0")
    bg_rgb = parse_rgb(palette.get(bg_char, "#ffffff")) or (255, 255, 255)
    # unique names (two declarations may share a colour name)
    seen: set[str] = set()
    unique = []
    for name, rgb, ch in entries:
        label = name if name not in seen and name != "background" else f"{name}-{ch}"
        seen.add(label)
        unique.append((label, rgb, ch))
    pal = make_palette(("background", bg_rgb, "."), unique, path)
    colours = [
        [
            tuple(index[ch] if b and ch in index else 0 for b, ch in zip(cl, co, strict=True))
            for cl, co in zip(clues[d], block_colours[d], strict=True)
        ]
        for d in (0, 1)
    ]
    # blocks of the background colour carry no information: drop them
    rows = [
        tuple(b for b, c in zip(cl, co, strict=True) if c)
        for cl, co in zip(clues[0], colours[0], strict=True)
    ]
    rcol = [tuple(c for c in co if c) for co in colours[0]]
    cols = [
        tuple(b for b, c in zip(cl, co, strict=True) if c)
        for cl, co in zip(clues[1], colours[1], strict=True)
    ]
    ccol = [tuple(c for c in co if c) for co in colours[1]]
    return make_colour_puzzle(
        path,
        rows,
        rcol,
        cols,
        ccol,
        pal,
        [k for _, k in sections[0]],
        [k for _, k in sections[1]],
    )


def _colour_name(ch: str, palette: dict[str, str], names: dict[str, str]) -> str:
    """The name of palette colour ``ch``: its value when that is a colour name (``a:a red``),
    else the name after the ``#rrggbb`` value, else the character."""
    value = palette.get(ch, "black")
    return value if not value.startswith("#") else (names.get(ch) or ch).strip()


def write_olsak(puzzle: Puzzle) -> bytes:
    """The ``.g`` text of ``puzzle``: plain numbers (black), an empty line for an empty clue; a
    colour puzzle gets its palette (``#d`` section, ``#rrggbb`` values) and blocks like ``3a``.

    Raises
    ------
    FormatError
        Unknown clues.
    """
    require_known(puzzle, "olsak")
    if puzzle.palette is not None:
        chars = writer_chars(puzzle.palette, "0")
        names = writer_names(puzzle.palette, "olsak")
        out = ["#d", f"   0:   {puzzle.palette.colours[0].hex}   {names[0]}"]
        for ch, colour, name in zip(chars[1:], puzzle.palette.colours[1:], names[1:], strict=True):
            out.append(f"   {ch}:{ch}  {colour.hex}   {name}")
        out.append(": rows")
        for clue, colours in zip(puzzle.lines, puzzle.line_colours, strict=True):
            if len(out) == len(puzzle.palette) + 2 + puzzle.height:
                out.append(": columns")
            out.append(
                " ".join(f"{b}{chars[c]}" for b, c in zip(clue or (), colours or (), strict=True))
            )
        return ("\n".join(out) + "\n").encode()
    out = ["#d", "   0:   #FFFFFF   white", "   1:1  #000000   black", ": rows"]
    out += [clue_string(c, empty="") for c in puzzle.rows]
    out.append(": columns")
    out += [clue_string(c, empty="") for c in puzzle.cols]
    return ("\n".join(out) + "\n").encode()


def _sniff(head: bytes) -> bool:
    return bool(re.search(rb"^:\s*rows\s*$", head, re.M | re.I))


FORMAT = Format(
    name="olsak",
    suffixes=(".g",),
    description="Olšák .g: optional '#d' palette, ': rows' and ': columns' sections",
    read=read_olsak,
    write=write_olsak,
    sniff=_sniff,
    colour=True,
)
