"""Reading what a command is given: a puzzle argument (``FILE`` or ``FILE#N``), a puzzle whose
stored goal picture is checked against its clues, and a partial grid state."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nonosat.cli.output import warn

if TYPE_CHECKING:
    import numpy as np

    from nonosat.puzzle import Puzzle


def split_puzzle_ref(path: Path, index: int | None = None) -> tuple[Path, int | None]:
    """``(file, number)`` for a puzzle argument: ``FILE#N`` (the name nonosat gives puzzle N of a
    multi-puzzle file, in tables, JSON and batch results) when ``FILE`` exists and no file is
    literally called ``FILE#N``; else ``(path, index)``.

    Raises
    ------
    FormatError
        ``FILE#N`` together with a different ``--index``.
    """
    from nonosat.errors import FormatError

    head, sep, tail = str(path).rpartition("#")
    if not sep or not tail.isdigit() or path.exists() or not Path(head).is_file():
        return path, index
    if index is not None and index != int(tail):
        raise FormatError(str(path), None, f"names puzzle {tail}, but --index says {index}")
    return Path(head), int(tail)


def starting_state(path: Path | None, puzzle: Puzzle) -> np.ndarray | None:
    """The grid a command starts from: the ``--state`` file when one is given (see
    :func:`read_state`), else the givens the puzzle's file holds
    (:func:`nonosat.formats.givens.givens_of`), else ``None``.

    Raises
    ------
    FormatError
        As :func:`read_state`.
    """
    if path is not None:
        return read_state(path, puzzle)
    from nonosat.formats.givens import givens_of

    givens = givens_of(puzzle)
    return None if givens is None else givens.copy()


def warn_givens_left_out(named: list[tuple[str, Puzzle]], what: str) -> None:
    """One warning (:func:`warn`) when some of ``named`` (``(name, puzzle)`` pairs) hold givens
    (:func:`nonosat.formats.givens.givens_of`) that the command leaves out: ``what`` says what
    it judges instead (e.g. ``"certify decides and proves the clues alone"``)."""
    from nonosat.formats.givens import givens_of
    from nonosat.text import printable

    holding = [name for name, puzzle in named if givens_of(puzzle) is not None]
    if not holding:
        return
    first = printable(holding[0])
    which = first if len(holding) == 1 else f"{first} and {len(holding) - 1} more"
    warn(f"{which}: the givens the file holds are left out: {what} ('nonosat solve' and "
         "'encode' start from them)")


def read_state(path: Path, puzzle: Puzzle) -> np.ndarray:
    """Grid state from a text picture with ``?`` for unknown cells; for a colour puzzle, rows of
    the palette's characters (int32 colour bit masks).

    Raises
    ------
    FormatError
        Unreadable file, unknown character or wrong shape (names the file).
    """
    from nonosat.errors import FormatError, PuzzleError
    from nonosat.limits import size_limits
    from nonosat.puzzle import grid_from_rows
    from nonosat.safe_io import read_bounded

    try:
        rows = read_bounded(path, size_limits().max_file_bytes, "state file").decode().splitlines()
    except UnicodeDecodeError as exc:
        raise FormatError(str(path), None, str(exc)) from None
    if puzzle.palette is not None:
        return _colour_state(rows, puzzle, str(path))
    try:
        return grid_from_rows([r for r in rows if r.strip()], puzzle.shape)
    except PuzzleError as exc:
        raise FormatError(str(path), None, str(exc)) from None


def _colour_state(rows: list[str], puzzle: Puzzle, path: str) -> np.ndarray:
    """Colour grid state (int32 bit masks) from rows of palette characters, ``?`` unknown."""
    import numpy as np

    from nonosat.errors import FormatError

    assert puzzle.palette is not None
    chars = {ch: 1 << k for k, ch in enumerate(puzzle.palette.chars)}
    chars.setdefault(".", 1)  # the background, whatever its own character
    chars["?"] = (1 << len(puzzle.palette)) - 1
    numbered = [(k, r.rstrip("\r\n")) for k, r in enumerate(rows, start=1) if r.strip()]
    if len(numbered) != puzzle.height:
        raise FormatError(path, None, f"grid has {len(numbered)} rows, expected {puzzle.height}")
    grid = np.empty(puzzle.shape, dtype=np.int32)
    for i, (line, text) in enumerate(numbered):
        if len(text) != puzzle.width:
            raise FormatError(path, line, f"row has {len(text)} cells, expected {puzzle.width}")
        for j, ch in enumerate(text):
            if ch not in chars:
                raise FormatError(
                    path, line, f"column {j + 1}: {ch!r} is no colour of the palette "
                    f"({puzzle.palette.chars}) nor '?'"
                )
            grid[i, j] = chars[ch]
    return grid


def goal_problem(puzzle: Puzzle) -> str | None:
    """Why the goal picture stored with ``puzzle`` (``puzzle.goal``) does not satisfy its clues:
    how many lines break their clue and the first of them; ``None`` without a goal or when it
    is a solution."""
    from nonosat.errors import PuzzleError
    from nonosat.puzzle import clue_text, colour_clue_text

    if puzzle.goal is None:
        return None
    try:
        errors = puzzle.line_errors(puzzle.goal)
    except PuzzleError as exc:
        return str(exc)
    if not errors:
        return None
    line, expected, actual = errors[0]
    if puzzle.palette is not None:
        (lengths, colours), (got_lengths, got_colours) = expected, actual
        want, got = (colour_clue_text(lengths, colours, puzzle.palette),
                     colour_clue_text(got_lengths, got_colours, puzzle.palette))
    else:
        want, got = clue_text(expected), clue_text(actual)
    n = len(errors)
    lines = "1 line breaks its clue" if n == 1 else f"{n} lines break their clue"
    return f"{lines} (first: {puzzle.line_name(line)} should be {want} but the picture has {got})"


def read_puzzle(path: Path, format: str | None = None, index: int | None = None) -> Puzzle:
    """:func:`nonosat.formats.read_puzzle`, for the commands that use a puzzle's stored solution
    (its goal picture): a goal that contradicts the clues is a warning (:func:`warn`, naming
    the file and the first line it breaks), as ``nonosat crosscheck`` flags it."""
    from nonosat.formats import read_puzzle as read
    from nonosat.text import printable

    puzzle = read(path, format, index)
    problem = goal_problem(puzzle)
    if problem is not None:
        name = printable(str(path)) + (f"#{index}" if index is not None else "")
        warn(f"{name}: the solution stored in the file (its goal picture) contradicts the "
             f"clues: {problem}")
    return puzzle


def load_puzzle(path: Path, format: str | None = None,
                index: int | None = None) -> tuple[Puzzle, str]:
    """The puzzle a command's ``PUZZLE`` argument (``FILE`` or ``FILE#N``, with ``--format`` and
    ``--index``) names, and the name nonosat prints for it (``FILE``, or ``FILE#N`` for puzzle N
    of a multi-puzzle file): :func:`split_puzzle_ref`, then :func:`read_puzzle` (a goal that
    contradicts the clues is a warning).

    Raises
    ------
    FormatError
        As :func:`split_puzzle_ref` and :func:`nonosat.formats.read_puzzle`.
    """
    path, index = split_puzzle_ref(path, index)
    return read_puzzle(path, format, index), str(path) + (f"#{index}" if index is not None else "")
