"""A submitted solution: read as a results file writes it (:func:`parse_solution`), checked
against every clue line by line (:func:`check_solution`), and written back as rows of text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.puzzle import (
    Puzzle,
    clue_text,
    colour_clue_text,
    colour_rows,
    grid_from_rows,
    grid_rows,
    grid_to_solution,
)


@dataclass(frozen=True)
class LineError:
    """A line of a solution that breaks its clue.

    Attributes
    ----------
    line : int
        Line index, rows first then columns (:meth:`Puzzle.line_name`).
    name : str
        ``"row 3"`` / ``"column 7"`` (1-based).
    expected : tuple of int
        The clue.
    actual : tuple of int
        The blocks the solution has in that line.
    """

    line: int
    name: str
    expected: Any
    actual: Any
    palette: Any = None  #: the puzzle's palette for a colour puzzle (clues are (lengths, colours))

    def __str__(self) -> str:
        if self.palette is not None:
            (lengths, colours), (got, got_colours) = self.expected, self.actual
            return (f"{self.name}: expected {colour_clue_text(lengths, colours, self.palette)}, "
                    f"actual {colour_clue_text(got, got_colours, self.palette)}")
        return f"{self.name}: expected {clue_text(self.expected)}, actual {clue_text(self.actual)}"

    def to_json(self) -> dict[str, Any]:
        """``{"line": "row 3", "expected": [3, 1], "actual": [2, 2]}``; for a colour puzzle the
        blocks are ``[length, "colour"]`` pairs."""
        if self.palette is not None:
            names = [c.name for c in self.palette.colours]

            def pairs(blocks: Any) -> list[list[Any]]:
                return [[b, names[c]] for b, c in zip(*blocks, strict=True)]

            return {"line": self.name, "expected": pairs(self.expected),
                    "actual": pairs(self.actual)}
        return {"line": self.name, "expected": list(self.expected or ()),
                "actual": list(self.actual)}


@dataclass
class SolutionCheck:
    """Whether a submitted solution satisfies every clue.

    Attributes
    ----------
    solution : ndarray of bool, shape (height, width)
    errors : list of LineError
        Every failing line, rows first (empty when the solution is valid).
    """

    solution: np.ndarray
    errors: list[LineError]

    @property
    def valid(self) -> bool:
        """No line breaks its clue."""
        return not self.errors

    def describe(self, limit: int = 3) -> str:
        """``"valid"`` or ``"breaks 4 clues: row 3: expected 3 1, actual 2 2; ..."``."""
        if self.valid:
            return "valid"
        shown = "; ".join(str(e) for e in self.errors[:limit])
        more = f"; and {len(self.errors) - limit} more" if len(self.errors) > limit else ""
        n = len(self.errors)
        return f"breaks {n} clue{'s' if n != 1 else ''}: {shown}{more}"

    def to_json(self) -> dict[str, Any]:
        """``{"valid": bool, "line_errors": [...]}``."""
        return {"valid": self.valid, "line_errors": [e.to_json() for e in self.errors]}


def check_solution(puzzle: Puzzle, solution: np.ndarray) -> SolutionCheck:
    """Check ``solution`` against every clue of ``puzzle``.

    Parameters
    ----------
    puzzle : Puzzle
    solution : ndarray of bool, shape (height, width)

    Returns
    -------
    SolutionCheck

    Raises
    ------
    PuzzleError
        ``solution`` has the wrong shape.
    """
    if puzzle.palette is not None:  # colour: indices of the palette
        sol = np.asarray(solution, dtype=np.int8)
        errors = [LineError(line, puzzle.line_name(line), expected, actual, puzzle.palette)
                  for line, expected, actual in puzzle.line_errors(sol)]
        return SolutionCheck(sol, errors)
    sol = np.asarray(solution, dtype=bool)
    errors = [LineError(line, puzzle.line_name(line), expected, actual)
              for line, expected, actual in puzzle.line_errors(sol)]
    return SolutionCheck(sol, errors)


def parse_solution(value: Any, shape: tuple[int, int], palette: Any = None) -> np.ndarray:
    """A solution as a results file writes it.

    Parameters
    ----------
    value : list of str, str, or list of list of int/bool
        Row strings (``"##..#"``; ``#``/``X``/``1`` filled, ``.``/``0``/``-`` empty), one string
        whose rows are separated by newlines, ``|``, ``/``, ``,`` or ``;``, or rows of 0/1.
    shape : (height, width)
        The puzzle's shape; the solution must have exactly this size.
    palette : Palette, optional
        A colour puzzle's palette: rows are then strings of its characters (``.`` is also the
        background), and the result holds colour indices (int8).

    Returns
    -------
    ndarray of bool, shape ``shape`` (int8 colour indices with ``palette``)

    Raises
    ------
    PuzzleError
        Wrong number of rows or cells in a row, an unknown or undecided (``?``) cell.
    """
    if isinstance(value, str):
        rows = [r.strip() for r in re.split(r"[\n|/,;]", value.strip())]
        rows = [r for r in rows if r]
    elif isinstance(value, list) and all(isinstance(r, str) for r in value):
        rows = [r.rstrip("\r\n") for r in value]
    elif isinstance(value, list) and all(isinstance(r, list) for r in value):
        rows = []
        for i, row in enumerate(value, start=1):
            if not all(v in (0, 1) for v in row):
                raise PuzzleError(f"solution row {i}: cells must be 0 or 1")
            rows.append("".join("1" if v else "0" for v in row))
    else:
        raise PuzzleError("a solution must be a list of row strings (or one string of rows)")
    height, width = shape
    if len(rows) != height:
        raise PuzzleError(f"wrong size: the solution has {len(rows)} rows, the puzzle {height}")
    for i, row in enumerate(rows, start=1):
        if len(row) != width:
            raise PuzzleError(
                f"wrong size: solution row {i} has {len(row)} cells, the puzzle is {width} wide"
            )
    if palette is not None:
        index = {ch: k for k, ch in enumerate(palette.chars)}
        index.setdefault(".", 0)
        out = np.zeros(shape, dtype=np.int8)
        for i, row in enumerate(rows):
            for j, ch in enumerate(row):
                if ch not in index:
                    raise PuzzleError(
                        f"solution row {i + 1}, column {j + 1}: {ch!r} is no colour of the "
                        f"palette ({palette.chars})"
                    )
                out[i, j] = index[ch]
        return out
    return grid_to_solution(grid_from_rows(rows, shape))


def solution_rows(puzzle: Puzzle, solution: np.ndarray) -> list[str]:
    """Row strings of a solution: ``#``/``.``, or the palette's characters for colour."""
    if puzzle.palette is not None:
        return colour_rows(solution, puzzle.palette)
    return grid_rows(np.asarray(solution, dtype=bool))


def solution_text(solution: np.ndarray, puzzle: Puzzle | None = None) -> bytes:
    """A solution as a text file: :func:`solution_rows`, one per line."""
    if puzzle is not None and puzzle.palette is not None:
        return ("\n".join(solution_rows(puzzle, solution)) + "\n").encode()
    return ("\n".join(grid_rows(np.asarray(solution, dtype=bool))) + "\n").encode()
