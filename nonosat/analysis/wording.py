"""Plain words for cells and ranges, shared by hints, step-through solving and ``explain``.

Positions are 0-based in code and 1-based in words; runs of consecutive positions become ranges
("columns 1–13", "rows 2, 4–6 and 9"), and cells of one line are named by their positions on it
("columns 3–7 of row 5 filled").  Lines (rows first, then columns) are named by
:meth:`nonosat.puzzle.Puzzle.line_name`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable

from nonosat.puzzle import Cell, Puzzle

#: Longest output line ``explain`` and ``hint`` print (their text is wrapped to it).
LINE_WIDTH = 100


def cell_name(r: int, c: int) -> str:
    """``"R3C5"`` (row 3, column 5) for 0-based ``(2, 4)``."""
    return f"R{r + 1}C{c + 1}"


def cell_words(r: int, c: int) -> str:
    """``"row 3, column 5"`` for 0-based ``(2, 4)``: how colour hints name a cell."""
    return f"row {r + 1}, column {c + 1}"


def cell_label(puzzle: Puzzle, r: int, c: int) -> str:
    """A single cell's name in ``puzzle``'s hints: :func:`cell_name` for black-and-white (the
    words its outputs have always used), :func:`cell_words` for colour."""
    return cell_words(r, c) if puzzle.is_colour else cell_name(r, c)


def colour_names(puzzle: Puzzle, mask: int) -> str:
    """The colours of bit mask ``mask`` by name: ``"red"``, ``"red or black"`` (palette
    order), ``"no colour"`` for 0.  The names are the file's (untrusted): printed through
    :func:`nonosat.text.printable`."""
    assert puzzle.palette is not None
    names = [col.name for k, col in enumerate(puzzle.palette.colours) if (mask >> k) & 1]
    if not names:
        return "no colour"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def colour_clue_words(puzzle: Puzzle, line: int) -> str:
    """A colour line's clue in words: ``"2 red, 1 black"`` (``"0"`` when empty)."""
    clue = puzzle.lines[line]
    if clue is None:
        return "?"
    if not clue:
        return "0"
    colours = puzzle.line_colours[line] or ()
    return ", ".join(f"{b} {colour_names(puzzle, 1 << k)}"
                     for b, k in zip(clue, colours, strict=True))


def value_word(value: int) -> str:
    """``"filled"`` / ``"empty"`` / ``"unknown"`` for a :class:`Cell` value."""
    return {Cell.FILLED: "filled", Cell.EMPTY: "empty"}.get(Cell(int(value)), "unknown")


def spans(positions: Iterable[int]) -> list[tuple[int, int]]:
    """Runs of consecutive 0-based positions: ``[0, 1, 2, 5] -> [(0, 2), (5, 5)]``."""
    out: list[tuple[int, int]] = []
    for p in sorted(set(positions)):
        if out and p == out[-1][1] + 1:
            out[-1] = (out[-1][0], p)
        else:
            out.append((p, p))
    return out


def listing(parts: list[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    if not parts:
        return ""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def range_text(positions: Iterable[int], noun: str) -> str:
    """0-based positions as 1-based ranges after ``noun``: ``"columns 1–3 and 5"`` for
    ``[0, 1, 2, 4]``, ``"rows 2, 4–6 and 9"``, ``"column 3"`` (plural from two positions)."""
    runs = spans(positions)
    parts = [f"{a + 1}" if a == b else f"{a + 1}–{b + 1}" for a, b in runs]
    plural = sum(b - a + 1 for a, b in runs) > 1
    return f"{noun}{'s' if plural else ''} {listing(parts)}"


def line_noun(puzzle: Puzzle, line: int) -> str:
    """What positions along ``line`` are called: ``"column"`` along a row, ``"row"`` along a
    column."""
    return "column" if line < puzzle.height else "row"


def line_cells_text(puzzle: Puzzle, line: int, cells: Iterable[tuple[int, int, int]]) -> str:
    """What cells of one line became, by ranges: ``"columns 4–6 filled, column 9 empty"``
    (``cells`` as ``(row, col, value)``, all on ``line``; unknown values are skipped)."""
    h = puzzle.height
    noun = line_noun(puzzle, line)
    pos: dict[Cell, list[int]] = {Cell.FILLED: [], Cell.EMPTY: []}
    for r, c, v in cells:
        if Cell(int(v)) in pos:
            pos[Cell(int(v))].append(c if line < h else r)
    return ", ".join(f"{range_text(p, noun)} {value_word(v)}" for v, p in pos.items() if p)


def _groups(puzzle: Puzzle, cells: list[tuple[int, int, int]]) -> dict[int, list]:
    """The cells grouped by rows or by columns, whichever needs fewer groups (rows on ties)."""
    h = puzzle.height
    by_row: dict[int, list[tuple[int, int, int]]] = {}
    by_col: dict[int, list[tuple[int, int, int]]] = {}
    for cell in cells:
        by_row.setdefault(cell[0], []).append(cell)
        by_col.setdefault(h + cell[1], []).append(cell)
    return by_row if len(by_row) <= len(by_col) else by_col


def cells_text(puzzle: Puzzle, cells: Iterable[tuple[int, int, int]], limit: int = 4) -> str:
    """Cells of any lines, grouped by line and named by ranges: ``"columns 4–6 of row 3 filled;
    column 2 of row 7 empty"`` (by rows or by columns, whichever needs fewer groups); at most
    ``limit`` groups, then ``"and N more cells"``.  A single cell is ``"R3C5 filled"``."""
    cells = [(int(r), int(c), int(v)) for r, c, v in cells]
    if puzzle.is_colour:  # values are colour indices
        return mask_cells_text(puzzle, [((r, c), 1 << v) for r, c, v in cells], limit)
    if len(cells) == 1:
        r, c, v = cells[0]
        return f"{cell_name(r, c)} {value_word(v)}"
    h = puzzle.height

    def of_line(line: int, group: list[tuple[int, int, int]]) -> str:
        noun = line_noun(puzzle, line)
        pos: dict[Cell, list[int]] = {Cell.FILLED: [], Cell.EMPTY: []}
        for r, c, v in group:
            if Cell(v) in pos:
                pos[Cell(v)].append(c if line < h else r)
        return ", ".join(f"{range_text(p, noun)} of {puzzle.line_name(line)} "
                         f"{value_word(v)}" for v, p in pos.items() if p)

    return _grouped(puzzle, cells, limit, of_line)


def _grouped(puzzle: Puzzle, cells: list[tuple[int, int, int]], limit: int,
             of_line: Callable[[int, list[tuple[int, int, int]]], str]) -> str:
    """``cells`` grouped by rows or by columns (:func:`_groups`), ``of_line(line, group)`` for
    at most ``limit`` groups joined by ``"; "``, then ``"and N more cells"``."""
    groups = _groups(puzzle, cells)
    parts = []
    shown = 0
    for line in sorted(groups)[:limit]:
        parts.append(of_line(line, groups[line]))
        shown += len(groups[line])
    text = "; ".join(parts)
    left = len(cells) - shown
    if left > 0:
        text += f" and {left} more cell{'s' if left != 1 else ''}"
    return text


def _by_mask(puzzle: Puzzle, line: int, cells: Iterable[tuple[tuple[int, int], int]],
             of: bool = False) -> str:
    """Cells of one line by their colour masks, ``"columns 4–6 red, column 9 white or red"``
    (masks in the order first met; ``"columns 4–6 of row 3 red"`` with ``of``)."""
    h = puzzle.height
    pos: dict[int, list[int]] = {}
    for (r, c), m in cells:
        pos.setdefault(int(m), []).append(c if line < h else r)
    where = f" of {puzzle.line_name(line)}" if of else ""
    return ", ".join(f"{range_text(p, line_noun(puzzle, line))}{where} "
                     f"{colour_names(puzzle, m)}" for m, p in pos.items())


def line_masks_text(puzzle: Puzzle, line: int, cells: Iterable[tuple[tuple[int, int], int]]
                    ) -> str:
    """What cells of one line of a colour puzzle may still be, by ranges: ``"columns 4–6 red,
    column 9 white or red"`` (``cells`` as ``((row, col), colour mask)``, all on ``line``)."""
    return _by_mask(puzzle, line, cells)


def mask_cells_text(puzzle: Puzzle, cells: Iterable[tuple[tuple[int, int], int]],
                    limit: int = 4) -> str:
    """Cells of a colour puzzle with their colour masks, grouped by line as :func:`cells_text`:
    ``"columns 4–6 of row 3 red; column 2 of row 7 white or black"``; a single cell is
    ``"row 3, column 5 red"``."""
    masks = [((int(r), int(c)), int(m)) for (r, c), m in cells]
    if len(masks) == 1:
        (r, c), m = masks[0]
        return f"{cell_words(r, c)} {colour_names(puzzle, m)}"
    return _grouped(puzzle, [(r, c, m) for (r, c), m in masks], limit,
                    lambda line, group: _by_mask(puzzle, line,
                                                 [((r, c), m) for r, c, m in group], of=True))


def pair_cells_text(puzzle: Puzzle, cells: Iterable[tuple[tuple[int, int], int]],
                    limit: int = 4) -> str:
    """:func:`cells_text` of hint-style cells ``((row, col), value)``."""
    return cells_text(puzzle, [(r, c, int(v)) for (r, c), v in cells], limit)


def cell_set_text(puzzle: Puzzle, cells: Iterable[tuple[int, int]], limit: int = 4) -> str:
    """Cells without values, grouped by line: ``"columns 1–3 of row 2; R5C7"``."""
    cells = [(int(r), int(c)) for r, c in cells]
    if len(cells) == 1:
        return cell_label(puzzle, *cells[0])
    h = puzzle.height

    def of_line(line: int, group: list[tuple[int, int, int]]) -> str:
        pos = [c if line < h else r for r, c, _ in group]
        return f"{range_text(pos, line_noun(puzzle, line))} of {puzzle.line_name(line)}"

    return _grouped(puzzle, [(r, c, int(Cell.FILLED)) for r, c in cells], limit, of_line)


def wrap(text: str, first: str = "", indent: int | None = None, width: int = LINE_WIDTH) -> str:
    """``first + text`` wrapped to ``width`` characters, continuation lines indented by
    ``indent`` (default: ``len(first)``); never breaks inside a word or after a dash of a
    range."""
    pad = " " * (len(first) if indent is None else indent)
    return textwrap.fill(text, width=width, initial_indent=first, subsequent_indent=pad,
                         break_long_words=True, break_on_hyphens=False)
