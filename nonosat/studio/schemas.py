"""Request bodies of the studio API (pydantic models) and the JSON form of puzzles and grids.

A puzzle in JSON is ``{"rows": [[3, 1], [], null, ...], "cols": [...], "name": str?,
"goal": ["#.#", ...]?}``: clues as lists of block lengths (``[]`` or ``[0]`` an empty line,
``null`` an unknown clue), the picture as row strings over ``#`` and ``.``.  A grid state is a
list of row strings over ``#`` (filled), ``.`` (empty) and ``?`` (unknown).  Cells are 0-based.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Puzzle, grid_from_rows, grid_rows

#: Largest puzzle side accepted (cells per line).
MAX_SIDE = 200

_VALUE = {Cell.FILLED: "#", Cell.EMPTY: ".", Cell.UNKNOWN: "?"}


class PuzzleIn(BaseModel):
    """A puzzle as the page sends it."""

    model_config = ConfigDict(extra="ignore")

    rows: list[list[int] | None] = Field(description="row clues, top to bottom; null = unknown")
    cols: list[list[int] | None] = Field(description="column clues, left to right")
    name: str | None = Field(None, description="title")
    goal: list[str] | None = Field(None, description="the picture: row strings over # and .")


class Request(BaseModel):
    """Fields every POST body may carry: ``client`` (supersession key) and ``seq``."""

    model_config = ConfigDict(extra="ignore")

    client: str | None = Field(None, max_length=200,
                               description="a newer request with the same client cancels "
                                           "an older one still running (409)")
    seq: int | None = Field(None, description="the client's request number")


class PuzzleRequest(Request):
    puzzle: PuzzleIn


class AnalyseRequest(PuzzleRequest):
    timeout: float | None = Field(None, description="seconds (default 5, at most 30)")
    suggest: bool = Field(True, description="compute make-unique suggestions (several "
                                            "solutions only)")
    suggest_timeout: float | None = Field(None, description="seconds for the suggestions "
                                                            "(default 1)")


class SolveRequest(PuzzleRequest):
    engine: Literal["auto", "native", "sat", "cpsat"] = "auto"
    limit: int = Field(2, ge=1, le=1000)
    timeout: float | None = None
    state: list[str] | None = None


class StateRequest(PuzzleRequest):
    state: list[str] | None = Field(None, description="grid state; all unknown when omitted")
    timeout: float | None = Field(None, description="seconds per solve (default 5, at most "
                                                    "30)")


class StepsRequest(PuzzleRequest):
    max_solutions: int = Field(2, ge=1, le=100)
    max_steps: int | None = Field(None, ge=1, le=1_000_000)
    timeout: float | None = None


class SuggestRequest(PuzzleRequest):
    timeout: float | None = None


class ParseRequest(Request):
    text: str = Field(description="file content (or a short code); base64 when encoding is")
    filename: str | None = Field(None, description="used to tell the format by its suffix")
    format: str | None = Field(None, description="format name (see /api/formats)")
    index: int | None = Field(None, ge=0, description="0-based position in a multi-puzzle file")
    encoding: Literal["text", "base64"] = "text"


class ConvertRequest(PuzzleRequest):
    to: str = Field(description="a writable format name (see /api/formats)")


class RenderRequest(PuzzleRequest):
    format: Literal["svg", "png"] = "svg"
    solution: bool = False
    timeout: float | None = None


class CertifyRequest(PuzzleRequest):
    timeout: float | None = None


class MakeUniqueRequest(PuzzleRequest):
    grade: int | None = Field(None, ge=1, le=5, description="target grade (1 = line-solvable; "
                                                            "none: unique is enough)")
    timeout: float | None = Field(None, description="seconds (default 10, at most 30)")


# -- conversions ---------------------------------------------------------------------------------
def puzzle_from_json(data: PuzzleIn) -> Puzzle:
    """The :class:`Puzzle` of a request.

    Raises
    ------
    PuzzleError
        More than :data:`MAX_SIDE` rows or columns, a goal of the wrong shape or with other
        characters than ``#``/``.``, clues that cannot fit (the model's message names the line).
    """
    h, w = len(data.rows), len(data.cols)
    if h > MAX_SIDE or w > MAX_SIDE:
        raise PuzzleError(f"the puzzle is {w}x{h}; the studio takes at most "
                          f"{MAX_SIDE}x{MAX_SIDE} cells")
    goal = None
    if data.goal is not None:
        if any(set(row) - set("#.") for row in data.goal):
            raise PuzzleError("goal: rows must hold only '#' (filled) and '.' (empty)")
        if len(data.goal) != h or any(len(row) != w for row in data.goal):
            raise PuzzleError(f"goal: expected {h} rows of {w} cells")
        goal = np.array([[ch == "#" for ch in row] for row in data.goal], dtype=bool)
        if h == 0:
            goal = None
    return Puzzle(rows=tuple(None if c is None else tuple(c) for c in data.rows),
                  cols=tuple(None if c is None else tuple(c) for c in data.cols),
                  title=data.name or None, goal=goal)


def puzzle_to_json(puzzle: Puzzle) -> dict[str, Any]:
    """The JSON form of ``puzzle`` (see the module docstring)."""
    out: dict[str, Any] = {
        "rows": [None if c is None else list(c) for c in puzzle.rows],
        "cols": [None if c is None else list(c) for c in puzzle.cols],
        "name": puzzle.title,
    }
    if puzzle.goal is not None:
        out["goal"] = grid_rows(np.asarray(puzzle.goal, dtype=bool))
    return out


def state_from_json(puzzle: Puzzle, rows: list[str] | None) -> np.ndarray:
    """Grid state (int8, shape (height, width)) of row strings over ``#``, ``.``, ``?``.

    Raises
    ------
    PuzzleError
        Wrong shape or an unknown character (names the row).
    """
    if rows is None:
        return np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    for i, row in enumerate(rows):
        bad = set(row) - set("#.?")
        if bad:
            raise PuzzleError(f"state row {i + 1}: unknown cell {sorted(bad)[0]!r} "
                              f"(use '#', '.' or '?')")
        if len(row) != puzzle.width:
            raise PuzzleError(f"state row {i + 1} has {len(row)} cells, expected "
                              f"{puzzle.width}")
    return grid_from_rows(rows, puzzle.shape)


def cell_json(r: int, c: int, value: int) -> list[Any]:
    """``[r, c, "#"|"."|"?"]``."""
    return [int(r), int(c), _VALUE[Cell(int(value))]]
