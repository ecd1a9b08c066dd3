"""pierre-dejoue/picross-solver's native text format (several puzzles per file).

Layout::

    # comment
    GRID Fish
    ROWS
    [ 5 ]
    [ 2 1 3 ]
    [ ]
    COLUMNS
    [ 1 1 ]
    ...
    GRID Another
    ...

``[ ]`` or ``[ 0 ]`` is an empty clue.  The name after ``GRID`` becomes the title; puzzle ``N`` is
the N-th ``GRID`` of the file.
"""

from __future__ import annotations

import re

from nonosat.errors import FormatError
from nonosat.formats import Format, one_line_text
from nonosat.formats._text import (
    clue_string,
    decode_text,
    make_puzzle,
    parse_numbers,
    require_known,
    split_lines,
)
from nonosat.puzzle import Puzzle


def read_picross(data: bytes, path: str) -> list[Puzzle]:
    """Parse a picross-solver native file.

    Raises
    ------
    FormatError
        Clues before ``GRID``/``ROWS``, a malformed ``[ ... ]`` line, an unknown keyword, a grid
        without rows or columns, a clue that does not fit (each names the line).
    """
    grids: list[dict] = []
    section = None
    for k, raw in enumerate(split_lines(decode_text(data, path)), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        word = text.split(maxsplit=1)[0]
        if word == "GRID":
            grids.append({"name": text[4:].strip(), "line": k, "ROWS": [], "COLUMNS": []})
            section = None
        elif word in ("ROWS", "COLUMNS"):
            if not grids:
                raise FormatError(path, k, f"'{word}' before any 'GRID name' line")
            section = word
        elif text.startswith("["):
            if section is None:
                raise FormatError(path, k, "a clue outside a ROWS or COLUMNS section")
            if not text.endswith("]"):
                raise FormatError(path, k, f"expected a clue like '[ 2 1 ]', found {text[:30]!r}")
            clue = tuple(parse_numbers(text[1:-1], path, k, "block lengths inside [ ]"))
            grids[-1][section].append((clue, k))
        else:
            raise FormatError(
                path,
                k,
                f"expected GRID, ROWS, COLUMNS, a '[ ... ]' clue or a '#' comment, found {text[:30]!r}",
            )
    if not grids:
        raise FormatError(path, None, "no 'GRID name' line; expected a picross-solver file")
    puzzles = []
    for number, grid in enumerate(grids, start=1):
        for key in ("ROWS", "COLUMNS"):
            if not grid[key]:
                raise FormatError(path, grid["line"], f"grid {grid['name']!r} has no {key}")
        rows, cols = grid["ROWS"], grid["COLUMNS"]
        puzzles.append(
            make_puzzle(
                path,
                [c for c, _ in rows],
                [c for c, _ in cols],
                [k for _, k in rows],
                [k for _, k in cols],
                title=grid["name"] or None,
                number=number if len(grids) > 1 else None,
            )
        )
    return puzzles


def _block(puzzle: Puzzle) -> str:
    require_known(puzzle, "picross")
    out = []
    for key, value in (
        ("by", puzzle.author),
        ("copyright", puzzle.copyright),
        ("license", puzzle.license),
    ):
        if value:
            out.append(f"# {key} {_one_line(value)}")
    out.append(f"GRID {_one_line(puzzle.title or '') or 'Puzzle'}")
    out.append("ROWS")
    out += [f"[ {clue_string(c, empty='')} ]".replace("[  ]", "[ ]") for c in puzzle.rows]
    out.append("COLUMNS")
    out += [f"[ {clue_string(c, empty='')} ]".replace("[  ]", "[ ]") for c in puzzle.cols]
    return "\n".join(out) + "\n"


def _one_line(text: str) -> str:
    return one_line_text(text)


def write_picross(puzzle: Puzzle) -> bytes:
    """One puzzle in picross-solver's native format (metadata as ``#`` comments).

    Raises
    ------
    FormatError
        Unknown clues.
    """
    return _block(puzzle).encode()


def write_picross_many(puzzles: list[Puzzle]) -> bytes:
    """Several puzzles in one picross-solver file."""
    return "\n".join(_block(p) for p in puzzles).encode()


def _sniff(head: bytes) -> bool:
    return bool(re.search(rb"^GRID\b", head, re.M)) and b"ROWS" in head


FORMAT = Format(
    name="picross",
    suffixes=(".txt",),
    description="picross-solver native: 'GRID name', ROWS / COLUMNS of '[ 2 1 ]' lines",
    read=read_picross,
    write=write_picross,
    write_many=write_picross_many,
    sniff=_sniff,
    multi=True,
)
