"""The ``.nin`` format (Jakub Wilk's nonogram solver, webpbn's ``sample-nin`` archive).

Layout::

    W H
    <H row clues, top to bottom, one per line, blocks separated by spaces>
    <W column clues, left to right>

``0`` (or an empty line) is an empty clue.  Lines starting with ``#`` before the header are
comments.
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


def read_nin(data: bytes, path: str) -> list[Puzzle]:
    """Parse a ``.nin`` file.

    Raises
    ------
    FormatError
        A missing or malformed ``W H`` header, a non-numeric clue, too few or too many clue
        lines, a clue that does not fit (each names the line).
    """
    lines = split_lines(decode_text(data, path))
    k = 0
    while k < len(lines) and (not lines[k].strip() or lines[k].lstrip().startswith("#")):
        k += 1
    if k == len(lines):
        raise FormatError(path, None, "the file is empty; expected a 'W H' header")
    header = parse_numbers(lines[k], path, k + 1, "the header 'WIDTH HEIGHT'")
    if len(header) != 2:
        raise FormatError(
            path, k + 1, f"expected the header 'WIDTH HEIGHT' (two numbers), found {lines[k]!r}"
        )
    width = parse_size(header[0], path, k + 1, "width")
    height = parse_size(header[1], path, k + 1, "height")
    first = k + 1
    needed = height + width
    body = lines[first : first + needed]
    if len(body) < needed:
        raise FormatError(
            path,
            len(lines) + 1,
            f"file ends after {len(body)} clue lines; expected {height} row clues and "
            f"{width} column clues ({needed} lines)",
        )
    clues = [
        tuple(parse_numbers(text, path, first + i + 1, "block lengths (whole numbers)"))
        for i, text in enumerate(body)
    ]
    numbers = list(range(first + 1, first + needed + 1))
    extra = next((n for n in range(first + needed, len(lines)) if lines[n].strip()), None)
    try:
        puzzle = make_puzzle(
            path, clues[:height], clues[height:], numbers[:height], numbers[height:]
        )
    except FormatError as exc:
        if extra is None:
            raise
        raise FormatError(
            path,
            extra + 1,
            f"unexpected line after the {height} row and {width} column clues (wrong size in "
            f"the header?); the clues before it do not make a puzzle: {exc.message}",
        ) from None
    if extra is not None:
        # Some archived files carry junk after a complete puzzle (jwilk data142.nin); the
        # puzzle itself is consistent, so keep it and note where the junk starts.
        puzzle.meta["ignored_from_line"] = extra + 1
    return [puzzle]


def write_nin(puzzle: Puzzle) -> bytes:
    """The ``.nin`` text of ``puzzle`` (metadata and goal are not kept: the format has no place
    for them).

    Raises
    ------
    FormatError
        The puzzle has unknown clues.
    """
    require_known(puzzle, "nin")
    out = [f"{puzzle.width} {puzzle.height}"]
    out += [clue_string(c) for c in puzzle.lines]
    return ("\n".join(out) + "\n").encode()


def _sniff(head: bytes) -> bool:
    text = head.decode("latin-1").lstrip()
    first = text.split("\n", 1)[0].split()
    return len(first) == 2 and all(t.isdigit() for t in first)


FORMAT = Format(
    name="nin",
    suffixes=(".nin",),
    description="Jakub Wilk / webpbn .nin: 'W H', row clues, column clues",
    read=read_nin,
    write=write_nin,
    sniff=_sniff,
)
