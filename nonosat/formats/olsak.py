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
numbers are black).  The size is the number of lines in each section, so every line there counts,
blank ones included.  Triddlers (``#t``) and puzzles using more than one colour are refused.
"""

from __future__ import annotations

import re

from nonosat.errors import FormatError
from nonosat.formats import Format
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
                palette[m.group(1)] = m.group(3)
            continue
        if len(sections) <= 2:
            sections[-1].append((raw, k))
    if len(sections) < 2:
        raise FormatError(path, None, "expected a ': rows' section and a ': columns' section")
    background = {
        ch for ch, value in palette.items() if ch == "0" or value.lower() in ("#ffffff", "white")
    }
    used: dict[str, int] = {}
    clues: list[list[tuple[int, ...]]] = [[], []]
    for d, section in enumerate(sections[:2]):
        for raw, k in section:
            if len(raw) > MAX_CLUE_LINE_CHARS:
                raise FormatError(path, k, "clue line too long")
            blocks = []
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
            clues[d].append(tuple(blocks))
    if len(used) > 1:
        names = ", ".join(f"{c} ({palette.get(c, 'black')})" for c in sorted(used))
        raise FormatError(
            path,
            sorted(used.values())[1],
            f"colour puzzle (colours {names}); only black-and-white puzzles are supported",
        )
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


def write_olsak(puzzle: Puzzle) -> bytes:
    """The ``.g`` text of ``puzzle``: plain numbers (black), an empty line for an empty clue.

    Raises
    ------
    FormatError
        Unknown clues.
    """
    require_known(puzzle, "olsak")
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
)
