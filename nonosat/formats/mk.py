"""Olšák's ``.mk`` format (as read by pbnsolve).

Layout::

    H W
    <H row clues, top to bottom, blocks separated by spaces>
    #
    <W column clues, left to right>

``0`` or an empty line is an empty clue.
"""

from __future__ import annotations

from nonosat.errors import FormatError
from nonosat.formats import Format
from nonosat.formats._text import (
    clue_string,
    decode_text,
    make_puzzle,
    parse_numbers,
    parse_size,
    require_known,
    split_lines,
)
from nonosat.puzzle import Puzzle


def _section(
    lines: list[tuple[str, int]], expected: int, what: str, path: str, where: int | None
) -> list[tuple[str, int]]:
    """Exactly ``expected`` clue lines of a section: all of its lines, or, when blank lines
    were used as spacing, its non-blank ones."""
    if len(lines) == expected:
        return lines
    filled = [(t, k) for t, k in lines if t.strip()]
    if len(filled) == expected:
        return filled
    trimmed = list(lines)
    while len(trimmed) > expected and not trimmed[-1][0].strip():
        trimmed.pop()
    if len(trimmed) == expected:
        return trimmed
    raise FormatError(
        path, where, f"found {len(filled)} {what} clue lines; the header announces {expected}"
    )


def read_mk(data: bytes, path: str) -> list[Puzzle]:
    """Parse a ``.mk`` file.

    Raises
    ------
    FormatError
        A malformed ``H W`` header, no ``#`` separator, the wrong number of clue lines, a
        non-numeric clue, a clue that does not fit (each names the line).
    """
    lines = list(enumerate(split_lines(decode_text(data, path)), start=1))
    k = 0
    while k < len(lines) and not lines[k][1].strip():
        k += 1
    if k == len(lines):
        raise FormatError(path, None, "the file is empty; expected 'HEIGHT WIDTH'")
    header_line, header = lines[k]
    numbers = parse_numbers(header, path, header_line, "the header 'HEIGHT WIDTH'")
    if len(numbers) != 2:
        raise FormatError(path, header_line, f"expected 'HEIGHT WIDTH', found {header!r}")
    height = parse_size(numbers[0], path, header_line, "height")
    width = parse_size(numbers[1], path, header_line, "width")
    rest = [(text, n) for n, text in lines[k + 1 :]]
    sep = next((i for i, (text, _) in enumerate(rest) if text.strip() == "#"), None)
    if sep is None:
        raise FormatError(path, None, "no '#' line between the row clues and the column clues")
    rows = _section(rest[:sep], height, "row", path, rest[sep][1])
    cols = _section(rest[sep + 1 :], width, "column", path, rest[-1][1] if rest else None)

    def parse(text: str, line: int) -> tuple[int, ...]:
        return tuple(parse_numbers(text, path, line, "block lengths (whole numbers)"))

    return [
        make_puzzle(
            path,
            [parse(t, n) for t, n in rows],
            [parse(t, n) for t, n in cols],
            [n for _, n in rows],
            [n for _, n in cols],
        )
    ]


def write_mk(puzzle: Puzzle) -> bytes:
    """The ``.mk`` text of ``puzzle`` (clues only).

    Raises
    ------
    FormatError
        Unknown clues.
    """
    require_known(puzzle, "mk")
    out = [f"{puzzle.height} {puzzle.width}"]
    out += [clue_string(c) for c in puzzle.rows]
    out.append("#")
    out += [clue_string(c) for c in puzzle.cols]
    return ("\n".join(out) + "\n").encode()


def _sniff(head: bytes) -> bool:
    text = head.decode("latin-1")
    return "\n#\n" in text.replace("\r", "") and text.split("\n", 1)[0].replace(" ", "").isdigit()


FORMAT = Format(
    name="mk",
    suffixes=(".mk",),
    description="Olšák .mk: 'H W', row clues, '#', column clues",
    read=read_mk,
    write=write_mk,
    sniff=_sniff,
)
