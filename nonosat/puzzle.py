"""The puzzle model: clues, grids and cell states.

Everything else in nonosat builds on this module and nothing here depends on anything else in the
package except :mod:`nonosat.errors` and :mod:`nonosat.palette` (the colours, re-exported here).

Conventions
-----------
* A **clue** is a tuple of positive block lengths (``(3, 1)``), ``()`` for an empty line, or
  ``None`` for an *unknown* clue (an unconstrained line, as davidje13's ``null``).  ``[0]`` on input
  is accepted as ``()``.
* Lines are numbered rows first, then columns: line ``i < height`` is row ``i`` (top to bottom),
  line ``height + j`` is column ``j`` (left to right).
* A **grid state** is a numpy ``int8`` array of shape ``(height, width)`` whose cells hold a
  :class:`Cell` value.  A cell value is the bit set of the values still possible for the cell,
  so intersecting two states is a bitwise AND and ``0`` means a contradiction.
* A **solution** is a numpy ``bool`` array of shape ``(height, width)``, ``True`` = filled.

Colour puzzles
--------------
A colour puzzle (webpbn's rules) carries a :class:`Palette` (colour 0 is the background) and, in
``row_colours``/``col_colours``, the colour index (``1..len(palette) - 1``) of every block,
parallel to the block lengths of ``rows``/``cols``.  Two adjacent blocks of the *same* colour need
at least one background cell between them; blocks of different colours may touch.  Its grid
states are ``int32`` bit masks of the colours a cell may still take (bit ``c`` = colour ``c``,
background = bit 0), and its solutions are ``int8`` arrays of colour indices.  Black-and-white is
the two-colour case with the same bits (``EMPTY`` = bit 0, ``FILLED`` = bit 1); a black-and-white
puzzle has ``palette is None`` and behaves exactly as it always has.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.palette import (
    MAX_COLOURS,
    Colour,
    Palette,
    clue_min_length_colour,
    colour_rows,
    line_colour_blocks,
)

__all__ = [  # the colour names live in nonosat.palette; the model re-exports them
    "CELL_CHARS", "MAX_COLOURS", "Cell", "Clue", "Colour", "PackedClues", "Palette", "Puzzle",
    "clue_min_length", "clue_min_length_colour", "clue_text", "colour_clue_text", "colour_rows",
    "colour_unknown_grid", "grid_from_rows", "grid_rows", "grid_to_solution",
    "line_blocks", "line_colour_blocks", "normalize_clue", "pack_clues", "solution_to_grid",
    "unknown_grid",
]

Clue = tuple[int, ...] | None


class Cell(IntEnum):
    """State of one cell: the bit set of the values it may still take."""

    CONFLICT = 0  #: no value possible (only inside solvers)
    EMPTY = 1  #: known empty (white, ``.``)
    FILLED = 2  #: known filled (black, ``#``)
    UNKNOWN = 3  #: either value still possible (``?``)


#: Characters used for cell states in text grids (``solve`` output, partial-state files).
CELL_CHARS = {Cell.EMPTY: ".", Cell.FILLED: "#", Cell.UNKNOWN: "?", Cell.CONFLICT: "!"}


def normalize_clue(clue: Iterable[int] | None, where: str = "line") -> Clue:
    """Return ``clue`` as a tuple of positive ints (``None`` stays ``None``).

    ``[0]`` and ``[]`` both mean an empty line.  Zeros elsewhere (``[0, 0]``, ``[2, 0, 1]``) are
    dropped, as several file formats write them.

    Raises
    ------
    PuzzleError
        A negative or non-integer block length; the message names ``where``.
    """
    if clue is None:
        return None
    if type(clue) is tuple and all(type(v) is int and v > 0 for v in clue):
        return clue  # fast path: already normalised
    out = []
    for value in clue:
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise PuzzleError(f"{where}: block length {value!r} is not a whole number")
        if value < 0:
            raise PuzzleError(f"{where}: block length {value} is negative")
        if value > 0:
            out.append(int(value))
    return tuple(out)


def clue_min_length(clue: Sequence[int]) -> int:
    """Fewest cells a line needs to hold ``clue``: the blocks plus one gap between each pair."""
    return sum(clue) + max(len(clue) - 1, 0)


def clue_text(clue: Clue) -> str:
    """Human-readable clue: ``"3 1"``, ``"0"`` for an empty line, ``"?"`` for an unknown clue."""
    if clue is None:
        return "?"
    return " ".join(map(str, clue)) if clue else "0"


def _line_runs(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of filled cells of every row of ``grid`` (bool, shape (n, length)), in
    order: the row of each run and its length."""
    n, length = grid.shape
    padded = np.zeros((n, length + 2), dtype=np.int8)
    padded[:, 1:-1] = grid
    step = np.diff(padded, axis=1)
    rows, begins = np.nonzero(step == 1)
    ends = np.nonzero(step == -1)[1]
    return rows, ends - begins


def _runs_match(sol: np.ndarray, expected: tuple[np.ndarray, ...] | None) -> bool:
    """Whether every row and column of ``sol`` (bool, shape (height, width)) has the runs of
    ``expected`` (:meth:`Puzzle._expected_runs`); ``False`` when ``expected`` is ``None``."""
    if expected is None:
        return False
    for grid, line, length in ((sol, expected[0], expected[1]), (sol.T, expected[2], expected[3])):
        got_line, got_length = _line_runs(grid)
        if not (np.array_equal(got_line, line) and np.array_equal(got_length, length)):
            return False
    return True


def line_blocks(cells: Sequence[bool] | np.ndarray) -> tuple[int, ...]:
    """The clue of a solved line: lengths of its runs of filled cells, left to right.

    >>> line_blocks([True, True, False, True])
    (2, 1)
    """
    blocks = []
    run = 0
    for filled in cells:
        if filled:
            run += 1
        elif run:
            blocks.append(run)
            run = 0
    if run:
        blocks.append(run)
    return tuple(blocks)


@dataclass(frozen=True)
class Puzzle:
    """A black-and-white nonogram.

    Parameters
    ----------
    rows : sequence of clues
        Row clues, top to bottom (``height`` of them).
    cols : sequence of clues
        Column clues, left to right (``width`` of them).
    title, author, copyright, license : str, optional
        Metadata carried by the file, kept so that writers can write it back.
    goal : ndarray of bool, shape (height, width), optional
        The published picture (webpbn ``goal``, tournament solution, a picture file).  Not used
        by the solvers; cross-checks compare a unique solution against it.
    number : int, optional
        The puzzle's number inside a multi-puzzle file (the ``$N`` of a tournament set, the
        1-based row of a CSV file).
    meta : dict, optional
        Anything else a format wants to keep (not compared).
    palette : Palette, optional
        Set for a colour puzzle (see the module docstring); ``None`` for black-and-white.
    row_colours, col_colours : tuple of tuples of int, optional
        For a colour puzzle, the colour index of every block, parallel to ``rows``/``cols``
        (``None`` for a line with an unknown clue).  The goal is then an ``int8`` array of colour
        indices.

    Raises
    ------
    PuzzleError
        A clue that does not fit its line (``sum + gaps > length``), a zero-sized puzzle, a goal of
        the wrong shape, or row and column totals that disagree (only checked when every clue is
        known; per colour for a colour puzzle).  The message names the offending line, 1-based,
        as users count.
    """

    rows: tuple[Clue, ...]
    cols: tuple[Clue, ...]
    title: str | None = None
    author: str | None = None
    copyright: str | None = None
    license: str | None = None
    goal: np.ndarray | None = field(default=None, compare=False, repr=False)
    number: int | None = field(default=None, compare=False)
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    palette: Palette | None = None
    row_colours: tuple[tuple[int, ...] | None, ...] | None = None
    col_colours: tuple[tuple[int, ...] | None, ...] | None = None

    def __post_init__(self) -> None:
        if self.palette is not None or self.row_colours is not None or self.col_colours is not None:
            self._init_colour()
            return
        rows = tuple(normalize_clue(c, f"row {i + 1}") for i, c in enumerate(self.rows))
        cols = tuple(normalize_clue(c, f"column {j + 1}") for j, c in enumerate(self.cols))
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "cols", cols)
        if not rows or not cols:
            raise PuzzleError(
                f"a puzzle needs at least one row and one column (got {len(rows)} rows, "
                f"{len(cols)} columns)"
            )
        for kind, clues, length in (("row", rows, len(cols)), ("column", cols, len(rows))):
            for i, clue in enumerate(clues):
                if clue is not None and clue_min_length(clue) > length:
                    raise PuzzleError(
                        f"{kind} {i + 1}: clue {clue_text(clue)} needs {clue_min_length(clue)} "
                        f"cells but the {kind} has {length}"
                    )
        if all(c is not None for c in rows + cols):
            row_total = sum(sum(c) for c in rows if c is not None)
            col_total = sum(sum(c) for c in cols if c is not None)
            if row_total != col_total:
                raise PuzzleError(
                    f"row clues fill {row_total} cells but column clues fill {col_total}"
                )
        if self.goal is not None:
            goal = np.asarray(self.goal, dtype=bool)
            if goal.shape != (len(rows), len(cols)):
                raise PuzzleError(
                    f"goal picture is {goal.shape[1] if goal.ndim == 2 else '?'}x"
                    f"{goal.shape[0]} but the puzzle is {len(cols)}x{len(rows)}"
                )
            object.__setattr__(self, "goal", goal)

    def _init_colour(self) -> None:
        """Validation of a colour puzzle (see the class docstring)."""
        if self.palette is None or self.row_colours is None or self.col_colours is None:
            raise PuzzleError("a colour puzzle needs a palette, row_colours and col_colours")
        n_colours = len(self.palette)
        if len(self.row_colours) != len(self.rows) or len(self.col_colours) != len(self.cols):
            raise PuzzleError("row_colours/col_colours must have one entry per row/column")
        if not self.rows or not self.cols:
            raise PuzzleError(
                f"a puzzle needs at least one row and one column (got {len(self.rows)} rows, "
                f"{len(self.cols)} columns)"
            )
        totals = {}
        out: dict[str, tuple] = {}
        for kind, clues, colours, length in (
            ("row", self.rows, self.row_colours, len(self.cols)),
            ("column", self.cols, self.col_colours, len(self.rows)),
        ):
            new_clues: list[Clue] = []
            new_colours: list[tuple[int, ...] | None] = []
            total = np.zeros(n_colours, dtype=np.int64)
            for i, (clue, colour) in enumerate(zip(clues, colours, strict=True)):
                where = f"{kind} {i + 1}"
                if clue is None:
                    new_clues.append(None)
                    new_colours.append(None)
                    total[0] = -1  # an unknown clue: totals are not comparable
                    continue
                raw = list(clue)
                col = list(colour or ())
                if len(raw) != len(col):
                    raise PuzzleError(f"{where}: {len(raw)} blocks but {len(col)} block colours")
                blocks, bcol = [], []
                for value, c in zip(raw, col, strict=True):
                    norm = normalize_clue([value], where)
                    if not norm:
                        continue
                    if isinstance(c, bool) or not isinstance(c, int | np.integer) or not (
                        0 < int(c) < n_colours
                    ):
                        raise PuzzleError(f"{where}: block colour {c!r} is not in the palette")
                    blocks.append(norm[0])
                    bcol.append(int(c))
                if clue_min_length_colour(blocks, bcol) > length:
                    raise PuzzleError(
                        f"{where}: clue {colour_clue_text(tuple(blocks), tuple(bcol), self.palette)}"
                        f" needs {clue_min_length_colour(blocks, bcol)} cells but the {kind} has "
                        f"{length}"
                    )
                for b, c in zip(blocks, bcol, strict=True):
                    total[c] += b
                new_clues.append(tuple(blocks))
                new_colours.append(tuple(bcol))
            totals[kind] = total
            out[kind] = (tuple(new_clues), tuple(new_colours))
        object.__setattr__(self, "rows", out["row"][0])
        object.__setattr__(self, "row_colours", out["row"][1])
        object.__setattr__(self, "cols", out["column"][0])
        object.__setattr__(self, "col_colours", out["column"][1])
        if totals["row"][0] >= 0 and totals["column"][0] >= 0:
            for c in range(1, n_colours):
                if totals["row"][c] != totals["column"][c]:
                    raise PuzzleError(
                        f"row clues fill {totals['row'][c]} cells of colour "
                        f"{self.palette.colours[c].name} but column clues fill "
                        f"{totals['column'][c]}"
                    )
        if self.goal is not None:
            goal = np.asarray(self.goal)
            if goal.shape != (len(self.rows), len(self.cols)):
                raise PuzzleError(
                    f"goal picture is {goal.shape[1] if goal.ndim == 2 else '?'}x"
                    f"{goal.shape[0]} but the puzzle is {len(self.cols)}x{len(self.rows)}"
                )
            if goal.size and (goal.min() < 0 or goal.max() >= n_colours):
                raise PuzzleError("goal picture uses a colour that is not in the palette")
            object.__setattr__(self, "goal", goal.astype(np.int8))

    @property
    def is_colour(self) -> bool:
        """Whether this is a colour puzzle (it has a :class:`Palette`)."""
        return self.palette is not None

    @property
    def n_colours(self) -> int:
        """Number of colours, background included (2 for black-and-white)."""
        return len(self.palette) if self.palette is not None else 2

    @property
    def line_colours(self) -> tuple[tuple[int, ...] | None, ...]:
        """Block colours of every line in line order (rows, then columns); for a
        black-and-white puzzle every block has colour 1."""
        if self.row_colours is not None and self.col_colours is not None:
            return self.row_colours + self.col_colours
        return tuple(None if c is None else (1,) * len(c) for c in self.lines)

    # -- shape -------------------------------------------------------------------------------
    @property
    def width(self) -> int:
        """Number of columns."""
        return len(self.cols)

    @property
    def height(self) -> int:
        """Number of rows."""
        return len(self.rows)

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)``, the shape of grids of this puzzle."""
        return (len(self.rows), len(self.cols))

    @property
    def lines(self) -> tuple[Clue, ...]:
        """All clues in line order: rows top to bottom, then columns left to right."""
        return self.rows + self.cols

    def line_name(self, line: int) -> str:
        """``"row 3"`` / ``"column 7"`` (1-based) for line index ``line`` (rows first)."""
        if line < self.height:
            return f"row {line + 1}"
        return f"column {line - self.height + 1}"

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def from_picture(cls, picture: np.ndarray | Sequence[Sequence[bool]], **kwargs: Any) -> Puzzle:
        """Derive the clues of a picture (``True`` = filled); the picture becomes the goal.

        Raises
        ------
        PuzzleError
            An empty picture.
        """
        if kwargs.get("palette") is not None:
            pic = np.asarray(picture, dtype=np.int8)
            if pic.ndim != 2 or pic.size == 0:
                raise PuzzleError("a picture needs at least one row and one column")
            rows, row_colours = zip(*(line_colour_blocks(r) for r in pic), strict=True)
            cols, col_colours = zip(*(line_colour_blocks(c) for c in pic.T), strict=True)
            kwargs.setdefault("goal", pic)
            return cls(rows, cols, row_colours=row_colours, col_colours=col_colours, **kwargs)
        pic = np.asarray(picture, dtype=bool)
        if pic.ndim != 2 or pic.size == 0:
            raise PuzzleError("a picture needs at least one row and one column")
        rows = tuple(line_blocks(r) for r in pic)
        cols = tuple(line_blocks(c) for c in pic.T)
        kwargs.setdefault("goal", pic)
        return cls(rows, cols, **kwargs)

    # -- checking ----------------------------------------------------------------------------
    def line_errors(self, solution: np.ndarray) -> list[tuple[int, Any, Any]]:
        """Lines of ``solution`` that break their clue, as ``(line, expected, actual)``: block
        lengths (``tuple[int, ...]``), or for a colour puzzle ``(lengths, colours)`` pairs.

        Unknown clues (``None``) accept anything.  An empty list means ``solution`` is valid.

        Raises
        ------
        PuzzleError
            ``solution`` has the wrong shape.
        """
        if self.is_colour:
            return self._colour_line_errors(solution)
        sol = np.asarray(solution, dtype=bool)
        if sol.shape != self.shape:
            raise PuzzleError(
                f"solution is {sol.shape[1] if sol.ndim == 2 else '?'}x{sol.shape[0]} "
                f"but the puzzle is {self.width}x{self.height}"
            )
        if _runs_match(sol, self._expected_runs()):
            return []
        errors: list[tuple[int, Clue, tuple[int, ...]]] = []
        for i, clue in enumerate(self.rows):
            actual = line_blocks(sol[i])
            if clue is not None and actual != clue:
                errors.append((i, clue, actual))
        for j, clue in enumerate(self.cols):
            actual = line_blocks(sol[:, j])
            if clue is not None and actual != clue:
                errors.append((self.height + j, clue, actual))
        return errors

    def _expected_runs(self) -> tuple[np.ndarray, ...] | None:
        """The clues as run arrays for :func:`_runs_match` (computed once): ``(row of each row
        block, its length, column of each column block, its length)``; ``None`` when a clue is
        unknown."""
        runs = self.__dict__.get("_runs")
        if runs is None and "_runs" not in self.__dict__:
            if all(c is not None for c in self.rows) and all(c is not None for c in self.cols):
                runs = tuple(
                    a
                    for clues in (self.rows, self.cols)
                    for a in (
                        np.repeat(np.arange(len(clues)), [len(c or ()) for c in clues]),
                        np.fromiter((b for c in clues for b in c or ()), dtype=np.int64),
                    )
                )
            self.__dict__["_runs"] = runs  # frozen: a cache beside the fields, never compared
        return runs

    def _colour_line_errors(self, solution: np.ndarray) -> list:
        """:meth:`line_errors` of a colour puzzle: ``(line, (lengths, colours), actual)``."""
        sol = np.asarray(solution)
        if sol.shape != self.shape:
            raise PuzzleError(
                f"solution is {sol.shape[1] if sol.ndim == 2 else '?'}x{sol.shape[0]} "
                f"but the puzzle is {self.width}x{self.height}"
            )
        errors = []
        colours = self.line_colours
        for i, clue in enumerate(self.lines):
            cells = sol[i] if i < self.height else sol[:, i - self.height]
            actual = line_colour_blocks(cells)
            if clue is not None and actual != (clue, colours[i]):
                errors.append((i, (clue, colours[i]), actual))
        return errors

    def is_solution(self, solution: np.ndarray) -> bool:
        """Whether ``solution`` (bool array, shape ``(height, width)``) satisfies every clue."""
        return not self.line_errors(solution)

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the clues in a canonical text form; identifies the puzzle in
        certificates independently of the file format it came from."""
        text = "rows:" + "|".join(clue_text(c) for c in self.rows)
        text += ";cols:" + "|".join(clue_text(c) for c in self.cols)
        if self.palette is not None:
            text += ";colours:" + "|".join(
                ",".join(map(str, c)) if c is not None else "?" for c in self.line_colours
            )
            text += ";palette:" + ",".join(c.hex for c in self.palette.colours)
        return hashlib.sha256(text.encode()).hexdigest()

    def describe(self) -> str:
        """Short label: title if any, else ``WxH puzzle``."""
        size = f"{self.width}x{self.height}"
        return f"{self.title} ({size})" if self.title else f"{size} puzzle"


def colour_clue_text(clue: Clue, colours: Sequence[int] | None, palette: Palette | None) -> str:
    """Human-readable colour clue: ``"3a 1b"`` (block lengths with their colour characters)."""
    if clue is None:
        return "?"
    if palette is None or colours is None:
        return clue_text(clue)
    if not clue:
        return "0"
    return " ".join(f"{b}{palette.colours[c].char}" for b, c in zip(clue, colours, strict=True))


def colour_unknown_grid(puzzle: Puzzle) -> np.ndarray:
    """A colour grid state with every colour possible everywhere: ``int32``, shape ``(h, w)``."""
    return np.full(puzzle.shape, (1 << puzzle.n_colours) - 1, dtype=np.int32)


# -- grids -------------------------------------------------------------------------------------
def unknown_grid(puzzle: Puzzle) -> np.ndarray:
    """A grid state with every cell :attr:`Cell.UNKNOWN`: ``int8`` array, shape ``(h, w)``."""
    return np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)


def solution_to_grid(solution: np.ndarray) -> np.ndarray:
    """Grid state (``int8``, :class:`Cell` values) of a solution (bool array)."""
    sol = np.asarray(solution, dtype=bool)
    return np.where(sol, np.int8(Cell.FILLED), np.int8(Cell.EMPTY)).astype(np.int8)


def grid_to_solution(grid: np.ndarray) -> np.ndarray:
    """Bool solution of a fully known grid state.

    Raises
    ------
    PuzzleError
        The grid has unknown or conflicting cells.
    """
    g = np.asarray(grid)
    bad = (g != Cell.EMPTY) & (g != Cell.FILLED)
    if bad.any():
        r, c = map(int, np.argwhere(bad)[0])
        raise PuzzleError(f"cell (row {r + 1}, column {c + 1}) is not decided")
    return g == Cell.FILLED


def grid_rows(grid: np.ndarray) -> list[str]:
    """Rows of a grid state, or of a bool solution, as strings of ``#``, ``.`` and ``?``."""
    g = np.asarray(grid)
    if g.dtype == bool:
        return ["".join("#" if v else "." for v in row) for row in g]
    return ["".join(CELL_CHARS[Cell(int(v))] for v in row) for row in g]


_CHAR_CELLS = {
    "#": Cell.FILLED, "X": Cell.FILLED, "x": Cell.FILLED, "1": Cell.FILLED, "█": Cell.FILLED,
    ".": Cell.EMPTY, "0": Cell.EMPTY, " ": Cell.EMPTY, "-": Cell.EMPTY,
    "?": Cell.UNKNOWN,
}


def grid_from_rows(rows: Sequence[str], shape: tuple[int, int] | None = None) -> np.ndarray:
    """Parse a text grid (``#``/``X``/``1`` filled, ``.``/``0``/space empty, ``?`` unknown).

    Parameters
    ----------
    rows : sequence of str
        One string per row.  Short rows are padded with empty cells (trailing spaces are often
        stripped by editors).
    shape : (height, width), optional
        Expected shape.

    Raises
    ------
    PuzzleError
        An unknown character, or a grid that does not have the expected shape (names the row).
    """
    height = len(rows)
    width = shape[1] if shape else max((len(r) for r in rows), default=0)
    if shape and height != shape[0]:
        raise PuzzleError(f"grid has {height} rows, expected {shape[0]}")
    grid = np.full((height, width), Cell.EMPTY, dtype=np.int8)
    for i, row in enumerate(rows):
        if len(row) > width:
            raise PuzzleError(f"grid row {i + 1} has {len(row)} cells, expected {width}")
        for j, ch in enumerate(row):
            if ch not in _CHAR_CELLS:
                raise PuzzleError(f"grid row {i + 1}, column {j + 1}: unknown cell {ch!r}")
            grid[i, j] = _CHAR_CELLS[ch]
    return grid


# -- packed form for compiled kernels ---------------------------------------------------------
@dataclass(frozen=True)
class PackedClues:
    """Clues flattened into numpy arrays for the compiled (numba) kernels.

    Attributes
    ----------
    height, width : int
    blocks : ndarray of int32
        All block lengths, line after line (rows first, then columns).
    start : ndarray of int32, shape (height + width + 1,)
        ``blocks[start[i]:start[i + 1]]`` is the clue of line ``i``.
    known : ndarray of bool, shape (height + width,)
        ``False`` for unknown clues (unconstrained lines, never solved).
    """

    height: int
    width: int
    blocks: np.ndarray
    start: np.ndarray
    known: np.ndarray


def pack_clues(puzzle: Puzzle) -> PackedClues:
    """Flatten ``puzzle``'s clues into :class:`PackedClues` (rows first, then columns).

    Computed once per puzzle (kept beside its fields) and shared by every solver state built
    on the puzzle: the kernels only read it, and nothing may write to its arrays."""
    packed = puzzle.__dict__.get("_packed")
    if packed is None:
        packed = _pack_clues(puzzle)
        puzzle.__dict__["_packed"] = packed  # frozen: a cache beside the fields
    return packed


def _pack_clues(puzzle: Puzzle) -> PackedClues:
    """:func:`pack_clues`, computed."""
    lines = puzzle.lines
    start = np.zeros(len(lines) + 1, dtype=np.int32)
    flat: list[int] = []
    for i, clue in enumerate(lines):
        flat.extend(clue or ())
        start[i + 1] = len(flat)
    known = np.array([c is not None for c in lines], dtype=np.bool_)
    return PackedClues(puzzle.height, puzzle.width, np.array(flat, dtype=np.int32), start, known)
