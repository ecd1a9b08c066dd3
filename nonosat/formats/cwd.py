"""The ``.cwd`` format (Meshcheryakov's QNonograms, Sukhoy's solver; read by pbnsolve and Copris).

Layout::

    H
    W
    <H row clues, top to bottom, blocks separated by spaces>

    <W column clues, left to right>

``0`` is an empty clue.  Blank lines are never clues here: they only separate the sections.
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


def read_cwd(data: bytes, path: str) -> list[Puzzle]:
    """Parse a ``.cwd`` file.

    Raises
    ------
    FormatError
        A missing height or width, a non-numeric clue, too few or too many clue lines, a clue
        that does not fit (each names the line).
    """
    lines = [
        (text, k)
        for k, text in enumerate(split_lines(decode_text(data, path)), start=1)
        if text.strip()
    ]
    if not lines:
        raise FormatError(path, None, "the file is empty; expected the height and width")
    first = parse_numbers(lines[0][0], path, lines[0][1], "the height (a whole number)")
    if len(first) == 2:  # 'H W' on one line
        (height, width), body = first, lines[1:]
    elif len(first) == 1 and len(lines) > 1:
        second = parse_numbers(lines[1][0], path, lines[1][1], "the width (a whole number)")
        if len(second) != 1:
            raise FormatError(
                path, lines[1][1], f"expected the width on its own line, found {lines[1][0]!r}"
            )
        height, width, body = first[0], second[0], lines[2:]
    else:
        raise FormatError(
            path, lines[0][1], f"expected the height on its own line, found {lines[0][0]!r}"
        )
    height = parse_size(height, path, lines[0][1], "height")
    width = parse_size(width, path, lines[0][1], "width")
    if len(body) < height + width:
        raise FormatError(
            path,
            None,
            f"found {len(body)} clue lines; expected {height} row clues and {width} column "
            f"clues ({height + width} non-blank lines, 0 for an empty line)",
        )
    if len(body) > height + width:
        text, k = body[height + width]
        raise FormatError(
            path, k, f"unexpected line {text[:20]!r} after {height} row and {width} column clues"
        )
    clues = [tuple(parse_numbers(t, path, k, "block lengths (whole numbers)")) for t, k in body]
    numbers = [k for _, k in body]
    return [make_puzzle(path, clues[:height], clues[height:], numbers[:height], numbers[height:])]


def write_cwd(puzzle: Puzzle) -> bytes:
    """The ``.cwd`` text of ``puzzle`` (clues only).

    Raises
    ------
    FormatError
        Unknown clues.
    """
    require_known(puzzle, "cwd")
    out = [str(puzzle.height), str(puzzle.width)]
    out += [clue_string(c) for c in puzzle.rows]
    out.append("")
    out += [clue_string(c) for c in puzzle.cols]
    return ("\n".join(out) + "\n").encode()


FORMAT = Format(
    name="cwd",
    suffixes=(".cwd",),
    description="QNonograms / pbnsolve .cwd: height, width, row clues, blank line, column clues",
    read=read_cwd,
    write=write_cwd,
)
