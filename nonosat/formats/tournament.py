"""TAAI / TCGA / ICGA computer-olympiad tournament sets (zxkyjimmy/NonogramRecord).

A question file holds many square puzzles (1000 of 25x25 per file)::

    $1
    <N column clues, left to right, blocks separated by TABs>
    <N row clues, top to bottom>
    $2
    ...

**Column clues come first.**  An empty clue is an empty line (``0`` is accepted too).  Files from
2018 on use CRLF line ends.  Each puzzle gets ``number = N`` from its ``$N`` header, so
``--index N`` picks it.

A solution file has the same ``$N`` headers, each followed by N lines of N TAB-separated ``0``/``1``
(the generator's picture).  :func:`read_solutions` reads one into ``{N: bool array}``; reading a
solution file as puzzles gives the puzzles of those pictures (clues derived, picture as goal).
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

import numpy as np

from nonosat.errors import FormatError
from nonosat.formats import Format, read_bytes
from nonosat.formats._text import (
    clue_string,
    decode_text,
    make_puzzle,
    parse_numbers,
    require_known,
    split_lines,
)
from nonosat.puzzle import Puzzle

_HEADER = re.compile(r"\$\s*(\d{1,9})\s*\$?\s*$")


def _blocks(data: bytes, path: str) -> list[tuple[int, int, list[str]]]:
    """``(N, header line, lines)`` of every ``$N`` block, in file order."""
    lines = split_lines(decode_text(data, path))
    blocks: list[tuple[int, int, list[str]]] = []
    seen: dict[int, int] = {}
    for k, line in enumerate(lines):
        text = line.strip()
        if text.startswith("$"):
            m = _HEADER.match(text)
            if not m:
                raise FormatError(
                    path, k + 1, f"expected a puzzle header like '$12', found {text[:20]!r}"
                )
            number = int(m.group(1))
            if number in seen:
                raise FormatError(
                    path, k + 1, f"puzzle ${number} appears twice (first on line {seen[number]})"
                )
            seen[number] = k + 1
            blocks.append((number, k + 1, []))
        elif blocks:
            blocks[-1][2].append(line)
        elif text:
            raise FormatError(
                path, k + 1, f"expected a puzzle header like '$1', found {text[:20]!r}"
            )
    if not blocks:
        raise FormatError(path, None, "no '$N' puzzle header; expected a tournament file")
    return blocks


def _is_picture(lines: list[str]) -> bool:
    """Whether a block is an N x N grid of 0/1 (a solution) rather than 2N clue lines."""
    rows = [line.split() for line in lines if line.strip()]
    return bool(rows) and all(len(r) == len(rows) and set(r) <= {"0", "1"} for r in rows)


def _picture(number: int, header: int, lines: list[str], path: str) -> np.ndarray:
    rows = [(k, line.split()) for k, line in enumerate(lines) if line.strip()]
    n = len(rows)
    for k, tokens in rows:
        if len(tokens) != n or not set(tokens) <= {"0", "1"}:
            raise FormatError(
                path,
                header + k + 1,
                f"solution ${number}: expected {n} cells of 0 or 1 separated by TABs",
            )
    return np.array([[t == "1" for t in tokens] for _, tokens in rows], dtype=bool)


def _clue_block(number: int, header: int, lines: list[str], path: str) -> Puzzle:
    filled = len(lines)
    while filled and not lines[filled - 1].strip():
        filled -= 1
    needed = filled if filled % 2 == 0 else filled + 1
    if needed == 0:
        raise FormatError(path, header, f"puzzle ${number} has no clue lines")
    if needed > len(lines):
        raise FormatError(
            path,
            header + len(lines) + 1,
            f"puzzle ${number} has {filled} clue lines; expected an even number "
            "(N column clues, then N row clues)",
        )
    n = needed // 2
    clues = [
        tuple(parse_numbers(lines[i], path, header + i + 1, "block lengths separated by TABs"))
        for i in range(needed)
    ]
    numbers = [header + i + 1 for i in range(needed)]
    return make_puzzle(path, clues[n:], clues[:n], numbers[n:], numbers[:n], number=number)


def _cut_picture(lines: list[str]) -> str | None:
    """Why a block of 0/1 rows is not a whole N x N picture (fewer rows than the first row has
    cells, or a last row cut short), ``None`` when it is no such block."""
    rows = [line.split() for line in lines if line.strip()]
    if not rows or not all(set(r) <= {"0", "1"} for r in rows):
        return "no rows" if not rows else None
    n = len(rows[0])
    if len(rows) < n and all(len(r) == n for r in rows[:-1]) and len(rows[-1]) <= n:
        whole = len(rows) - (len(rows[-1]) < n)
        return f"cut short: {whole} whole rows of {n}"
    return None


def solution_blocks(data: bytes, path: str) -> list[tuple[int, int, np.ndarray | None, str | None]]:
    """Every ``$N`` block of a tournament solution file, each read on its own.

    A file cut short (a solver killed while writing) keeps its intact pictures: its last block
    gets a problem instead of failing the whole file.

    Parameters
    ----------
    data : bytes
        The file's content.
    path : str
        The file, for errors.

    Returns
    -------
    list of (int, int, ndarray or None, str or None)
        ``(N, header line, picture, problem)`` in file order: the picture (bool, N x N) of an
        intact block, else ``None`` and why the block is not one (``"cut short: 12 whole rows of
        25"``, or the expected grid).

    Raises
    ------
    FormatError
        No ``$N`` header, a malformed or repeated header (names the line).
    """
    out: list[tuple[int, int, np.ndarray | None, str | None]] = []
    blocks = _blocks(data, path)
    for k, (number, header, lines) in enumerate(blocks):
        cut = _cut_picture(lines)
        if cut is not None and k == len(blocks) - 1:
            out.append((number, header, None, f"solution ${number} is {cut} (the file ends there)"))
            continue
        try:
            out.append((number, header, _picture(number, header, lines, path), None))
        except FormatError as exc:
            out.append((number, header, None, exc.message))
    return out


def read_tournament(data: bytes, path: str) -> list[Puzzle]:
    """Parse a tournament question file (or a solution file, giving puzzles of its pictures).

    Raises
    ------
    FormatError
        No ``$N`` header, a malformed header or clue, an odd number of clue lines, a clue that
        does not fit, a duplicated ``$N`` (each names the line).
    """
    puzzles = []
    blocks = _blocks(data, path)
    pictures = any(_is_picture(lines) for _, _, lines in blocks)
    for number, header, lines in blocks:
        cut = _cut_picture(lines) if pictures else None
        if cut is not None:
            raise FormatError(path, header, f"solution ${number} is {cut} (a solution file "
                              "cut short?); the other solutions are whole")
        if _is_picture(lines):
            pic = _picture(number, header, lines, path)
            puzzles.append(replace(Puzzle.from_picture(pic), number=number))
        else:
            puzzles.append(_clue_block(number, header, lines, path))
    return puzzles


def read_solutions(path: str | os.PathLike[str]) -> dict[int, np.ndarray]:
    """Read a tournament solution file (``NonogramRecord/solution/*.txt``).

    Parameters
    ----------
    path : path-like
        The solution file.

    Returns
    -------
    dict of int to ndarray of bool, shape (N, N)
        Picture of puzzle ``$N`` (``True`` = filled).  These are the generator's pictures: a
        puzzle with several solutions may be solved by another one.

    Raises
    ------
    FormatError
        A missing file, a block that is not an N x N grid of 0/1 (names the line).
    """
    out = {}
    for number, header, picture, problem in solution_blocks(read_bytes(path), str(path)):
        if picture is None:
            raise FormatError(str(path), header, problem or "not a picture")
        out[number] = picture
    return out


def with_goals(puzzles: list[Puzzle], solutions: dict[int, np.ndarray]) -> list[Puzzle]:
    """The puzzles with ``goal`` set from ``solutions`` (by ``number``), where one is given.

    Raises
    ------
    PuzzleError
        A solution of the wrong shape.
    """
    return [replace(p, goal=solutions[p.number]) if p.number in solutions else p for p in puzzles]


def _write_block(puzzle: Puzzle, number: int) -> str:
    require_known(puzzle, "tournament")
    if puzzle.width != puzzle.height:
        raise FormatError(
            "<tournament>",
            None,
            f"tournament files hold square puzzles; this one is {puzzle.width}x{puzzle.height}",
        )
    lines = [clue_string(c, "\t", "") for c in puzzle.cols + puzzle.rows]
    k = len(lines) - 1
    while k >= 0 and lines[k] == "":  # trailing empty clues: '0' keeps the count readable
        lines[k] = "0"
        k -= 1
    return "\r\n".join([f"${number}", *lines]) + "\r\n"


def write_tournament(puzzle: Puzzle) -> bytes:
    """One puzzle as a tournament file (``$N`` from its number, else ``$1``; CRLF).

    Raises
    ------
    FormatError
        Unknown clues, or a puzzle that is not square.
    """
    return _write_block(puzzle, puzzle.number if puzzle.number is not None else 1).encode()


def write_tournament_set(puzzles: list[Puzzle]) -> bytes:
    """Several puzzles as one tournament file, numbered by their ``number`` (else 1, 2, ...)."""
    return "".join(
        _write_block(p, p.number if p.number is not None else k)
        for k, p in enumerate(puzzles, start=1)
    ).encode()


def write_solutions(pictures: list[tuple[int, tuple[int, int], np.ndarray | None]]) -> bytes:
    """A tournament solution file, as nonosolve's ``-o`` writes one: for each puzzle ``$N`` then
    its N rows of N TAB-separated ``0``/``1`` (LF line ends).  A puzzle without a solution (none,
    or the solver gave up) gets an all-0 picture, as in nonosolve's files, so that every puzzle
    of the set has its block; :func:`nonosat.judge.read_results` reads such a block as no
    answer.

    Parameters
    ----------
    pictures : list of (int, (int, int), ndarray of bool or None)
        ``(N, (height, width), picture)`` of each puzzle, in the order to write.

    Raises
    ------
    FormatError
        A puzzle that is not square (the format holds N x N pictures), or two puzzles with the
        same number.
    """
    out = []
    seen: set[int] = set()
    for number, (height, width), picture in pictures:
        if height != width:
            raise FormatError("<tournament>", None, f"puzzle {number} is {width}x{height}; a "
                              "tournament solution file holds square pictures")
        if number in seen:
            raise FormatError("<tournament>", None, f"two puzzles numbered {number}; a "
                              "tournament solution file numbers each puzzle once")
        seen.add(number)
        grid = np.zeros((height, width), dtype=bool) if picture is None else np.asarray(picture)
        out.append(f"${number}\n")
        out += ["\t".join("1" if v else "0" for v in row) + "\n" for row in grid]
    return "".join(out).encode()


def save_solutions(path: str | os.PathLike[str],
                   pictures: list[tuple[int, tuple[int, int], np.ndarray | None]],
                   force: bool = False) -> None:
    """Write :func:`write_solutions` of ``pictures`` to ``path`` with the project's safe writer
    (:func:`nonosat.safe_io.atomic_write`: a fresh temporary renamed into place; an existing
    file is replaced only with ``force``).

    Raises
    ------
    FormatError
        As :func:`write_solutions` (naming ``path``), or ``path`` exists and not ``force``, or
        cannot be written.
    """
    from nonosat.safe_io import atomic_write

    try:
        data = write_solutions(pictures)
    except FormatError as exc:
        raise FormatError(str(path), None, exc.message) from None
    atomic_write(path, data, force=force)


def _sniff(head: bytes) -> bool:
    return bool(re.match(rb"\s*\$\d+\s*\r?\n", head.removeprefix(b"\xef\xbb\xbf")))


FORMAT = Format(
    name="tournament",
    suffixes=(".txt",),
    description="TAAI/TCGA/ICGA tournament set: '$N', column clues then row clues, TAB-separated",
    read=read_tournament,
    write=write_tournament,
    write_many=write_tournament_set,
    sniff=_sniff,
    multi=True,
)
