"""Line-oriented text puzzle files: decoding, numbered lines, clue numbers, building the
:class:`~nonosat.puzzle.Puzzle` with errors that name the file and line, and what writers share.

Shared by the text formats (``.non``, ``.nin``, tournament sets, ``.cwd``, Olšák, picross-solver,
text grids); private to :mod:`nonosat.formats`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Unpack

import numpy as np

from nonosat.errors import FormatError, PuzzleError
from nonosat.limits import size_limits
from nonosat.puzzle import Clue, Puzzle, clue_min_length, clue_text

#: No clue line of a real puzzle is anywhere near this long (a 10000-wide line of 1s is 20000).
MAX_CLUE_LINE_CHARS = 200_000


_CONTROL_OK = {9, 10, 12, 13}  # TAB, LF, FF, CR
_PLAIN_NUMBERS = re.compile(r"[ \t\r\f\v]*(?:[0-9]{1,9}(?:[ \t\r\f\v]+|\Z))*")


def decode_text(data: bytes, path: str) -> str:
    """The text of a puzzle file: UTF-8 (with or without BOM), else Latin-1 when the bytes hold
    no control characters.

    Raises
    ------
    FormatError
        An empty file, binary data (NUL or other control bytes, invalid UTF-8 with control
        bytes; the message gives the line of the first bad byte), or more lines than the size
        limit allows (:mod:`nonosat.limits`, checked before the text is split).
    """
    if not data.strip():
        raise FormatError(path, None, "the file is empty; expected a puzzle")
    size_limits().check_lines(data.count(b"\n"), path)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(
            path,
            data.count(b"\n", 0, nul) + 1,
            "binary data (NUL byte); expected a text puzzle file",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    control = data.translate(None, bytes(range(32, 256)) + bytes(_CONTROL_OK))
    if control:
        pos = data.find(control[:1])
        raise FormatError(
            path,
            data.count(b"\n", 0, pos) + 1,
            f"binary data (byte 0x{control[0]:02x}); expected a text puzzle file",
        )
    return data.decode("latin-1")


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` without their ``\\n`` / ``\\r\\n`` endings (line ``k`` is index
    ``k - 1``)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_int(token: str, path: str, line: int, what: str) -> int:
    """``token`` as a non-negative int.

    Raises
    ------
    FormatError
        ``token`` is not a whole number ≥ 0; the message says that ``what`` was expected.
    """
    if not token.isascii() or not token.isdigit() or len(token) > 9:
        raise FormatError(path, line, f"expected {what}, found {_show(token)}")
    return int(token)


def parse_numbers(text: str, path: str, line: int, what: str, sep: str = "") -> list[int]:
    """The whole numbers on one line, separated by whitespace or any character of ``sep``.

    Raises
    ------
    FormatError
        A token that is not a whole number, or an absurdly long line.
    """
    if len(text) > MAX_CLUE_LINE_CHARS:
        raise FormatError(path, line, f"line is {len(text)} characters long; expected {what}")
    for ch in sep:
        text = text.replace(ch, " ")
    tokens = text.split()
    if _PLAIN_NUMBERS.fullmatch(text):  # fast path: only ASCII digits and blanks
        return [int(t) for t in tokens]
    return [parse_int(t, path, line, what) for t in tokens]


def parse_size(value: int, path: str, line: int, what: str) -> int:
    """Check a width or height read from a header.

    Raises
    ------
    FormatError
        Zero, or larger than the size limit (:meth:`nonosat.limits.SizeLimits.check_side`).
    """
    if value < 1:
        raise FormatError(path, line, f"{what} must be at least 1, found {value}")
    return size_limits().check_side(value, path, line, what)


class TextFields(TypedDict, total=False):
    """The text fields of :class:`Puzzle` a file may give."""

    title: str | None
    author: str | None
    copyright: str | None
    license: str | None


class PuzzleFields(TextFields, total=False):
    """The optional fields of :class:`Puzzle` a reader passes on (as keyword arguments)."""

    goal: np.ndarray | None
    number: int | None
    meta: dict[str, Any]


def text_fields(fields: Mapping[str, str | None]) -> TextFields:
    """The ``title``, ``author``, ``copyright`` and ``license`` a reader found (its other keys
    are not :class:`Puzzle` fields), as :func:`make_puzzle` takes them; an absent one is
    ``None``, as :class:`Puzzle`'s default."""
    return TextFields(title=fields.get("title"), author=fields.get("author"),
                        copyright=fields.get("copyright"), license=fields.get("license"))


def clue_too_long(path: str, where: Sequence[int | None] | None, i: int, kind: str, text: str,
                  need: int, length: int) -> FormatError:
    """The error for clue ``i`` of a ``kind`` (``"row"``/``"column"``) that needs ``need``
    cells where the line has ``length``: ``text`` is the clue as written, ``where[i]`` (when
    there) its line in the file."""
    line = where[i] if where is not None and i < len(where) else None
    return FormatError(path, line, f"{kind} {i + 1}: clue {text} needs {need} cells but the "
                                   f"{kind} has {length}")


def make_puzzle(
    path: str,
    rows: Sequence[Clue],
    cols: Sequence[Clue],
    row_lines: Sequence[int | None] | None = None,
    col_lines: Sequence[int | None] | None = None,
    **fields: Unpack[PuzzleFields],
) -> Puzzle:
    """Build a :class:`Puzzle`, turning every validation failure into a :class:`FormatError`
    that names the file line of the offending clue (when the reader knows it).

    Parameters
    ----------
    path : str
        File name for messages.
    rows, cols : sequences of clues
    row_lines, col_lines : sequences of int or None, optional
        1-based file line of each row / column clue.
    **fields
        Passed to :class:`Puzzle` (``title``, ``goal``, ``number``, ...).

    Raises
    ------
    FormatError
        A clue that does not fit its line, totals that disagree, a goal of the wrong shape, a
        puzzle over the size limit (:mod:`nonosat.limits`).
    """
    height, width = len(rows), len(cols)
    size_limits().check_cells(width, height, path)
    for kind, clues, where, length in (
        ("row", rows, row_lines, width),
        ("column", cols, col_lines, height),
    ):
        for i, clue in enumerate(clues):
            if clue is None or sum(clue) + len(clue) - 1 <= length:
                continue
            blocks = [b for b in clue if b]
            if clue_min_length(blocks) > length:
                raise clue_too_long(path, where, i, kind, clue_text(tuple(blocks)),
                                    clue_min_length(blocks), length)
    try:
        return Puzzle(tuple(rows), tuple(cols), **fields)
    except PuzzleError as exc:
        raise FormatError(path, None, str(exc)) from None


def _show(token: str) -> str:
    """A token for an error message, shortened."""
    return repr(token if len(token) <= 20 else token[:20] + "...") if token else "nothing"


def require_known(puzzle: Puzzle, format_name: str) -> None:
    """Refuse to write a puzzle with unknown clues into a format that cannot say "unknown".

    Raises
    ------
    FormatError
        Names the first unknown line.
    """
    for i, clue in enumerate(puzzle.lines):
        if clue is None:
            raise FormatError(
                f"<{format_name}>",
                None,
                f"{puzzle.line_name(i)} has an unknown clue, which the {format_name} format "
                "cannot hold (use davidje13 JSON)",
            )


def clue_string(clue: Clue, sep: str = " ", empty: str = "0") -> str:
    """A known clue as text: blocks joined by ``sep``, ``empty`` for an empty line."""
    if clue is None:
        raise ValueError("unknown clue")
    return sep.join(map(str, clue)) if clue else empty
