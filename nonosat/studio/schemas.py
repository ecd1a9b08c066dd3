"""Request bodies of the studio API (pydantic models) and the JSON form of puzzles and grids.

A puzzle in JSON is ``{"rows": [[3, 1], [], null, ...], "cols": [...], "name": str?,
"goal": ["#.#", ...]?, "givens": ["#?.", ...]?}``: clues as lists of block lengths (``[]`` or ``[0]`` an empty line,
``null`` an unknown clue), the picture as row strings over ``#`` and ``.``.  A grid state is a
list of row strings over ``#`` (filled), ``.`` (empty) and ``?`` (unknown).  Cells are 0-based.

A **colour** puzzle adds ``"palette": [{"name", "rgb": "#rrggbb"}, ...]`` (colour 0 the
background) and ``"row_colours"``/``"col_colours"``, the colour index of every block, parallel to
``rows``/``cols``.  Its goal, grid states and solutions are row strings over :data:`INDEX_CHARS`:
``.`` the background, ``a`` colour 1, ``b`` colour 2, ... (``?`` unknown in a state), whatever
characters the palette uses in files.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Colour, Palette, Puzzle, grid_from_rows, grid_rows
from nonosat.studio.cells import INDEX_CHARS, colour_grid_rows

#: Largest puzzle side accepted (cells per line).
MAX_SIDE = 200

_VALUE = {Cell.FILLED: "#", Cell.EMPTY: ".", Cell.UNKNOWN: "?"}

#: Longest colour name accepted.
MAX_NAME = 40
_HEX = re.compile(r"#[0-9a-fA-F]{6}")


class ColourIn(BaseModel):
    """One colour of a palette as the page sends it."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=MAX_NAME, description="the colour's name")
    rgb: str = Field(pattern=r"^#[0-9a-fA-F]{6}$", description="#rrggbb")
    char: str | None = Field(None, description="character in text formats (optional)")


class PuzzleIn(BaseModel):
    """A puzzle as the page sends it."""

    model_config = ConfigDict(extra="ignore")

    rows: list[list[int] | None] = Field(description="row clues, top to bottom; null = unknown")
    cols: list[list[int] | None] = Field(description="column clues, left to right")
    name: str | None = Field(None, description="title")
    goal: list[str] | None = Field(None, description="the picture: row strings over # and . "
                                                     "(colour: over INDEX_CHARS)")
    givens: list[str] | None = Field(None, description="cells known from the start: row "
                                                       "strings over #, . and ? (unknown)")
    palette: list[ColourIn] | None = Field(None, min_length=2, max_length=31,
                                           description="colour puzzles: colour 0 = background")
    row_colours: list[list[int] | None] | None = Field(None, description="colour of each block")
    col_colours: list[list[int] | None] | None = Field(None, description="colour of each block")


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
    suggest_timeout: float | None = Field(None, description="most seconds for the suggestions "
                                                            "(default: grows with the puzzle, "
                                                            "2 s + 0.02 s per cell, at most 30)")
    stream: bool = Field(False, description="answer as NDJSON: the verdict's line as soon as it "
                                            "is known, then the whole analysis (docs/studio.md)")


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
    timeout: float | None = Field(None, description="most seconds (default: grows with the "
                                                    "puzzle, 2 s + 0.02 s per cell, at most 30)")


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


class KeepTryingRequest(PuzzleRequest):
    limit: float | None = Field(None, description="seconds the background verdict may run "
                                                  "(default 60, at most 300)")
    suggest: bool = Field(False, description="also compute make-unique suggestions at the end")


# -- conversions ---------------------------------------------------------------------------------
def _palette_from_json(colours: list[ColourIn]) -> Palette:
    """The :class:`Palette` of a request: names must be printable text (they are shown to other
    people), colours ``#rrggbb``; characters kept when every colour has a distinct one, else
    :data:`INDEX_CHARS`.

    Raises
    ------
    PuzzleError
        A name that is empty or not printable, names that repeat, a bad colour.
    """
    out = []
    chars = [c.char for c in colours]
    keep = (all(ch is not None and len(ch) == 1 and ch.isprintable() and ch not in "? "
                for ch in chars) and len(set(chars)) == len(chars))
    for k, c in enumerate(colours):
        name = c.name.strip()
        if not name or not name.isprintable():
            raise PuzzleError(f"palette colour {k}: the name must be printable text")
        if not _HEX.fullmatch(c.rgb):
            raise PuzzleError(f"palette colour {k}: the colour must be #rrggbb")
        rgb = (int(c.rgb[1:3], 16), int(c.rgb[3:5], 16), int(c.rgb[5:7], 16))
        out.append(Colour(name, rgb, c.char if keep and c.char is not None else INDEX_CHARS[k]))
    return Palette(tuple(out))


def _colour_goal(rows: list[str], n: int, h: int, w: int) -> np.ndarray:
    """A colour picture (int8 colour indices) of row strings over :data:`INDEX_CHARS`."""
    allowed = INDEX_CHARS[:n]
    if len(rows) != h or any(len(row) != w for row in rows):
        raise PuzzleError(f"goal: expected {h} rows of {w} cells")
    for i, row in enumerate(rows):
        bad = set(row) - set(allowed)
        if bad:
            raise PuzzleError(f"goal row {i + 1}: {sorted(bad)[0]!r} is not one of the "
                              f"palette's {n} colours ({allowed})")
    return np.array([[allowed.index(ch) for ch in row] for row in rows], dtype=np.int8)


def _colour_clues(clues: list[list[int] | None], colours: list[list[int] | None] | None,
                  kind: str, n: int) -> tuple[list, list]:
    if colours is None or len(colours) != len(clues):
        raise PuzzleError(f"{kind}_colours: one list of block colours per {kind} is needed")
    lengths: list[tuple[int, ...] | None] = []
    cols: list[tuple[int, ...] | None] = []
    for i, (clue, col) in enumerate(zip(clues, colours, strict=True)):
        if clue is None or col is None:
            if (clue is None) != (col is None):
                raise PuzzleError(f"{kind} {i + 1}: unknown clue without unknown colours")
            lengths.append(None)
            cols.append(None)
            continue
        pairs = [(b, k) for b, k in zip(clue, col, strict=False) if b != 0]
        if len(col) != len(clue) or any(not 1 <= k < n for _, k in pairs):
            raise PuzzleError(f"{kind} {i + 1}: each block needs a colour 1 to {n - 1}")
        lengths.append(tuple(b for b, _ in pairs))
        cols.append(tuple(k for _, k in pairs))
    return lengths, cols


def puzzle_from_json(data: PuzzleIn) -> Puzzle:
    """The :class:`Puzzle` of a request (black-and-white, or colour with a ``palette``).

    Raises
    ------
    PuzzleError
        More than :data:`MAX_SIDE` rows or columns, a goal of the wrong shape or with other
        characters than ``#``/``.`` (colour: the palette's :data:`INDEX_CHARS`), clues that
        cannot fit (the model's message names the line), a bad palette or block colours.
    """
    h, w = len(data.rows), len(data.cols)
    if h > MAX_SIDE or w > MAX_SIDE:
        raise PuzzleError(f"the puzzle is {w}x{h}; the studio takes at most "
                          f"{MAX_SIDE}x{MAX_SIDE} cells")
    if data.palette is not None:
        palette = _palette_from_json(data.palette)
        n = len(palette)
        rows, row_colours = _colour_clues(data.rows, data.row_colours, "row", n)
        cols, col_colours = _colour_clues(data.cols, data.col_colours, "column", n)
        cgoal = _colour_goal(data.goal, n, h, w) if data.goal is not None and h else None
        meta = {}
        if data.givens is not None:
            from nonosat.formats.givens import COLOUR_GIVENS_KEY

            if len(data.givens) != h or any(len(row) != w for row in data.givens):
                raise PuzzleError(f"givens: expected {h} rows of {w} cells")
            for i, row in enumerate(data.givens):
                bad = set(row) - set(INDEX_CHARS[:n] + "?")
                if bad:
                    raise PuzzleError(f"givens row {i + 1}: {sorted(bad)[0]!r} is not '?' or one "
                                      f"of the palette's {n} colours")
            full = (1 << n) - 1
            state = np.array([[full if ch == "?" else 1 << INDEX_CHARS.index(ch) for ch in row]
                              for row in data.givens], dtype=np.int32)
            if (state != full).any():
                meta[COLOUR_GIVENS_KEY] = state
        return Puzzle(rows=tuple(rows), cols=tuple(cols), row_colours=tuple(row_colours),
                      col_colours=tuple(col_colours), palette=palette,
                      title=data.name or None, goal=cgoal, meta=meta)
    goal = None
    if data.goal is not None:
        if any(set(row) - set("#.") for row in data.goal):
            raise PuzzleError("goal: rows must hold only '#' (filled) and '.' (empty)")
        if len(data.goal) != h or any(len(row) != w for row in data.goal):
            raise PuzzleError(f"goal: expected {h} rows of {w} cells")
        goal = np.array([[ch == "#" for ch in row] for row in data.goal], dtype=bool)
        if h == 0:
            goal = None
    puzzle = Puzzle(rows=tuple(None if c is None else tuple(c) for c in data.rows),
                    cols=tuple(None if c is None else tuple(c) for c in data.cols),
                    title=data.name or None, goal=goal)
    if data.givens is not None:
        from nonosat.formats.givens import parse_givens, with_givens

        if any(set(row) - set("#.?") for row in data.givens):
            raise PuzzleError("givens: rows must hold only '#', '.' and '?'")
        puzzle = with_givens(puzzle, parse_givens(data.givens, puzzle.shape))
    return puzzle


def solution_rows(puzzle: Puzzle, solution: np.ndarray) -> list[str]:
    """A solution as the API writes it: ``#``/``.`` rows, or :data:`INDEX_CHARS` for colour."""
    return colour_grid_rows(solution) if puzzle.is_colour else grid_rows(solution)


def puzzle_to_json(puzzle: Puzzle) -> dict[str, Any]:
    """The JSON form of ``puzzle`` (see the module docstring)."""
    out: dict[str, Any] = {
        "rows": [None if c is None else list(c) for c in puzzle.rows],
        "cols": [None if c is None else list(c) for c in puzzle.cols],
        "name": puzzle.title,
    }
    if puzzle.palette is not None:
        assert puzzle.row_colours is not None and puzzle.col_colours is not None
        out["palette"] = [{"name": c.name, "rgb": c.hex, "char": c.char}
                          for c in puzzle.palette.colours]
        out["row_colours"] = [None if c is None else list(c) for c in puzzle.row_colours]
        out["col_colours"] = [None if c is None else list(c) for c in puzzle.col_colours]
        if puzzle.goal is not None:
            out["goal"] = colour_grid_rows(puzzle.goal)
        from nonosat.studio.quick import start_grid

        cgivens = start_grid(puzzle)
        if cgivens is not None:
            out["givens"] = [
                "".join(INDEX_CHARS[int(m).bit_length() - 1] if m and not m & (m - 1) else "?"
                        for m in row) for row in cgivens]
        return out
    if puzzle.goal is not None:
        out["goal"] = grid_rows(np.asarray(puzzle.goal, dtype=bool))
    from nonosat.formats.givens import givens_rows

    givens = givens_rows(puzzle)
    if givens is not None:
        out["givens"] = givens
    return out


def state_from_json(puzzle: Puzzle, rows: list[str] | None) -> np.ndarray:
    """Grid state of row strings: over ``#``, ``.``, ``?`` (int8 :class:`Cell` values), or for
    a colour puzzle over :data:`INDEX_CHARS` and ``?`` (int32 colour bit masks, ``?`` = every
    colour); shape (height, width).

    Raises
    ------
    PuzzleError
        Wrong shape or an unknown character (names the row).
    """
    colour = puzzle.is_colour
    allowed = INDEX_CHARS[:puzzle.n_colours] + "?" if colour else "#.?"
    if rows is None:
        if colour:
            return np.full(puzzle.shape, (1 << puzzle.n_colours) - 1, dtype=np.int32)
        return np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    if colour and len(rows) != puzzle.height:
        raise PuzzleError(f"state has {len(rows)} rows, expected {puzzle.height}")
    for i, row in enumerate(rows):
        bad = set(row) - set(allowed)
        if bad:
            raise PuzzleError(f"state row {i + 1}: unknown cell {sorted(bad)[0]!r} "
                              f"(use {', '.join(repr(ch) for ch in allowed)})")
        if len(row) != puzzle.width:
            raise PuzzleError(f"state row {i + 1} has {len(row)} cells, expected "
                              f"{puzzle.width}")
    if colour:
        full = (1 << puzzle.n_colours) - 1
        return np.array([[full if ch == "?" else 1 << INDEX_CHARS.index(ch) for ch in row]
                         for row in rows], dtype=np.int32)
    return grid_from_rows(rows, puzzle.shape)


def cell_json(r: int, c: int, value: int) -> list[Any]:
    """``[r, c, "#"|"."|"?"]``."""
    return [int(r), int(c), _VALUE[Cell(int(value))]]


def colour_cell_json(r: int, c: int, mask: int) -> list[Any]:
    """``[r, c, ch]`` of a colour cell state: its colour's :data:`INDEX_CHARS` character when
    one colour is left, else ``"?"``."""
    m = int(mask)
    ch = INDEX_CHARS[m.bit_length() - 1] if m and not m & (m - 1) else "?"
    return [int(r), int(c), ch]
