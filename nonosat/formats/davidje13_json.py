"""davidje13/Nonogram JSON rules: ``{"rows": [[3], [1, 1], ...], "cols": [...]}``.

``[]`` (or ``[0]``) is an empty line and ``null`` an *unknown* clue (an unconstrained line, as in
``football-partial.json``).  Other keys (``source``, ``title``, ``author``, ``copyright``,
``license``) are kept; the goal picture, when there is one, is written as ``"goal"``: a list of
row strings of ``#`` and ``.`` (an extension that the davidje13 solver ignores), and the givens
(:mod:`nonosat.formats.givens`), when there are any, as ``"givens"``: row strings over ``#``, ``.``
and ``?`` (unknown).

Colour puzzles (nonosat's extension): a ``"palette"`` list of ``{"name", "rgb": "#rrggbb",
"char"}`` objects, the background first, and every block as ``[length, "colour name"]``; the goal's
row strings (and the givens', with ``?`` for unknown) then use the palette's characters::

    {"palette": [{"name": "white", "rgb": "#ffffff", "char": "."},
                 {"name": "red", "rgb": "#ff0000", "char": "r"}, ...],
     "rows": [[[2, "red"], [1, "blue"]], ...], "cols": [...], "goal": ["rrb.", ...]}
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from nonosat.errors import FormatError, PuzzleError
from nonosat.formats import Format
from nonosat.formats._colour import (
    SPARE_CHARS,
    make_colour_puzzle,
    make_palette,
    parse_rgb,
    refuse_repeated,
    writer_chars,
)
from nonosat.formats._text import decode_text, make_puzzle
from nonosat.formats.givens import GIVENS_KEY, givens_rows, parse_givens, with_givens
from nonosat.limits import size_limits
from nonosat.puzzle import Cell, Clue, Puzzle, grid_from_rows, grid_rows

_META_KEYS = ("title", "author", "copyright", "license")


def read_json(data: bytes, path: str) -> list[Puzzle]:
    """Parse davidje13 JSON rules.

    Raises
    ------
    FormatError
        Invalid JSON (with its line), missing ``rows``/``cols``, a clue that is not a list of
        whole numbers or ``null``, a clue that does not fit (naming the line when the file puts
        one clue per line, as the davidje13 files do).
    """
    text = decode_text(data, path)
    limits = size_limits()
    # Every clue and block is a list element: bound them before json builds the objects.
    limits.check_lines(data.count(b"["), path, "JSON lists")
    limits.check_blocks(data.count(b","), path)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise FormatError(path, None, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise FormatError(path, None, f"invalid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise FormatError(path, 1, 'expected a JSON object {"rows": [...], "cols": [...]}')
    if "palette" in obj:
        return [_read_colour(obj, text, path)]
    clues: dict[str, list[Clue]] = {}
    where: dict[str, list[int | None]] = {}
    for key in ("rows", "cols"):
        name = key if key in obj else ("columns" if key == "cols" and "columns" in obj else None)
        if name is None:
            raise FormatError(
                path, None, f'no "{key}" list; expected {{"rows": [...], "cols": [...]}}'
            )
        value = obj[name]
        lines = _element_lines(text, name)
        if not isinstance(value, list):
            raise FormatError(
                path, lines[0] if lines else None, f'"{name}" must be a list of clues'
            )
        clues[key], where[key] = [], []
        for i, item in enumerate(value):
            line = lines[i] if lines and i < len(lines) else None
            clues[key].append(
                _clue(item, path, line, f"{key[:-1].replace('col', 'column')} {i + 1}")
            )
            where[key].append(line)
    fields: dict[str, Any] = {k: str(obj[k]) for k in _META_KEYS if isinstance(obj.get(k), str)}
    meta = {
        k: v
        for k, v in obj.items()
        if k not in ("rows", "cols", "columns", "goal", GIVENS_KEY, *_META_KEYS)
    }
    goal = None
    if "goal" in obj:
        g = obj["goal"]
        if not (isinstance(g, list) and all(isinstance(r, str) for r in g)):
            raise FormatError(path, None, '"goal" must be a list of row strings of "#" and "."')
        try:
            goal = grid_from_rows(g, (len(clues["rows"]), len(clues["cols"])))
            goal = goal == Cell.FILLED
        except PuzzleError as exc:
            raise FormatError(path, None, f"goal: {exc}") from None
    puzzle = make_puzzle(
        path,
        clues["rows"],
        clues["cols"],
        where["rows"],
        where["cols"],
        goal=goal,
        meta=meta,
        **fields,
    )
    return [_read_givens(obj, puzzle, path, '"#", "." and "?"')]


def _read_givens(obj: dict[str, Any], puzzle: Puzzle, path: str, chars_text: str,
                 chars: list[str] | None = None) -> Puzzle:
    """``puzzle`` with the givens of the ``"givens"`` key when ``obj`` has one: row strings of
    ``chars`` (a colour puzzle's characters; black-and-white: ``#`` and ``.``) and ``?``,
    ``chars_text`` naming them in the error.

    Raises
    ------
    FormatError
        Not a list of strings, or rows that do not fit the puzzle.
    """
    if GIVENS_KEY not in obj:
        return puzzle
    g = obj[GIVENS_KEY]
    if not (isinstance(g, list) and all(isinstance(r, str) for r in g)):
        raise FormatError(path, None, f'"givens" must be a list of row strings of {chars_text}')
    try:
        return with_givens(puzzle, parse_givens(g, puzzle.shape, chars))
    except PuzzleError as exc:
        raise FormatError(path, None, str(exc)) from None


def _read_colour(obj: dict[str, Any], text: str, path: str) -> Puzzle:
    """A colour puzzle of the JSON extension (see the module docstring)."""
    raw = obj["palette"]
    pal_line = _element_lines(text, "palette")
    if not isinstance(raw, list) or len(raw) < 2:
        raise FormatError(
            path, None, '"palette" must list the background and at least one colour'
        )
    entries = []
    for i, item in enumerate(raw):
        line = pal_line[i] if pal_line and i < len(pal_line) else None
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise FormatError(path, line, 'a palette entry must be {"name": ..., "rgb": "#rrggbb"}')
        rgb = parse_rgb(str(item.get("rgb", item["name"])))
        if rgb is None:
            raise FormatError(path, line, f"palette colour {item['name']!r} has no valid rgb")
        given = item.get("char")
        char = given if isinstance(given, str) else SPARE_CHARS[i]
        entries.append((item["name"], rgb, char[:1] or SPARE_CHARS[i]))
    refuse_repeated([(name, pal_line[i] if pal_line and i < len(pal_line) else None)
                     for i, (name, _, _) in enumerate(entries)], path)
    palette = make_palette(entries[0], entries[1:], path)
    index = {name: k for k, (name, _, _) in enumerate(entries)}
    parts: dict[str, tuple[list, list, list]] = {}
    for key in ("rows", "cols"):
        value = obj.get(key)
        lines = _element_lines(text, key)
        if not isinstance(value, list):
            raise FormatError(path, None, f'no "{key}" list of colour clues')
        blocks, colours, where = [], [], []
        for i, item in enumerate(value):
            line = lines[i] if lines and i < len(lines) else None
            name = f"{key[:-1].replace('col', 'column')} {i + 1}"
            if not isinstance(item, list) or not all(
                isinstance(b, list)
                and len(b) == 2
                and isinstance(b[0], int)
                and not isinstance(b[0], bool)
                and b[0] >= 0
                and b[1] in index
                and index[b[1]] != 0
                for b in item
            ):
                raise FormatError(
                    path,
                    line,
                    f'{name}: expected a list of [length, "colour"] blocks with colours of the '
                    f"palette, found {json.dumps(item)[:40]}",
                )
            blocks.append(tuple(b[0] for b in item))
            colours.append(tuple(index[b[1]] for b in item))
            where.append(line)
        parts[key] = (blocks, colours, where)
    fields: dict[str, Any] = {k: str(obj[k]) for k in _META_KEYS if isinstance(obj.get(k), str)}
    goal = None
    if "goal" in obj:
        g = obj["goal"]
        chars = {c: k for k, (_, _, c) in enumerate(entries)}
        height, width = len(parts["rows"][0]), len(parts["cols"][0])
        if not (
            isinstance(g, list)
            and len(g) == height
            and all(isinstance(r, str) and len(r) == width and set(r) <= set(chars) for r in g)
        ):
            raise FormatError(
                path, None, f'"goal" must be {height} row strings of {width} palette characters'
            )
        goal = np.array([[chars[ch] for ch in r] for r in g], dtype=np.int8)
    puzzle = make_colour_puzzle(
        path,
        parts["rows"][0],
        parts["rows"][1],
        parts["cols"][0],
        parts["cols"][1],
        palette,
        parts["rows"][2],
        parts["cols"][2],
        goal=goal,
        **fields,
    )
    return _read_givens(obj, puzzle, path, 'the palette\'s characters and "?"',
                        [c for _, _, c in entries])


def _write_colour(puzzle: Puzzle) -> bytes:
    palette = puzzle.palette
    assert palette is not None
    chars = writer_chars(palette)
    names = [c.name for c in palette.colours]
    pal = ",\n".join(
        "    " + json.dumps({"name": c.name, "rgb": c.hex, "char": ch}, ensure_ascii=False)
        for c, ch in zip(palette.colours, chars, strict=True)
    )
    colours = puzzle.line_colours

    def block(clues: tuple[Clue, ...], offset: int) -> str:
        return ",\n".join(
            "    "
            + json.dumps(
                [[b, names[c]] for b, c in zip(clue, colours[offset + i] or (), strict=True)]
                if clue is not None
                else None,
                ensure_ascii=False,
            )
            for i, clue in enumerate(clues)
        )

    parts = [
        f'  "palette": [\n{pal}\n  ]',
        f'  "rows": [\n{block(puzzle.rows, 0)}\n  ]',
        f'  "cols": [\n{block(puzzle.cols, puzzle.height)}\n  ]',
    ]
    for key in _META_KEYS:
        value = getattr(puzzle, key)
        if value:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    if puzzle.goal is not None:
        rows = ",\n".join(
            "    " + json.dumps("".join(chars[int(v)] for v in r)) for r in puzzle.goal
        )
        parts.append(f'  "goal": [\n{rows}\n  ]')
    givens = givens_rows(puzzle, chars)
    if givens is not None:
        rows = ",\n".join("    " + json.dumps(r) for r in givens)
        parts.append(f'  "givens": [\n{rows}\n  ]')
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode()


def _clue(item: Any, path: str, line: int | None, name: str) -> Clue:
    if item is None:
        return None
    if not isinstance(item, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in item
    ):
        raise FormatError(
            path,
            line,
            f"{name}: expected a list of whole numbers or null, found {json.dumps(item)[:40]}",
        )
    return tuple(item)


def _element_lines(text: str, key: str) -> list[int] | None:
    """1-based line of each element of the top-level list ``key``, located with the JSON
    decoder itself (``raw_decode`` element by element); ``None`` when the layout is unusual.

    Linear in the length of ``text``: line breaks are counted only over the stretch since the
    previous element (counting from the start each time made 200,000 rows take over a minute).
    """
    decoder = json.JSONDecoder()
    needle = json.dumps(key)
    pos = text.find(needle)
    if pos < 0:
        return None
    pos = text.find("[", pos + len(needle))
    if pos < 0:
        return None
    lines = []
    i = pos + 1
    n = len(text)
    line = text.count("\n", 0, i) + 1
    counted = i
    try:
        while i < n:
            while i < n and text[i] in " \t\r\n,":
                i += 1
            if i >= n or text[i] == "]":
                break
            line += text.count("\n", counted, i)
            counted = i
            lines.append(line)
            _, i = decoder.raw_decode(text, i)
    except (ValueError, RecursionError):
        return None
    return lines


def write_json(puzzle: Puzzle) -> bytes:
    """davidje13 JSON of ``puzzle``, one clue per line; unknown clues become ``null``; a colour
    puzzle in the palette extension (module docstring)."""
    if puzzle.palette is not None:
        return _write_colour(puzzle)

    def block(clues: tuple[Clue, ...]) -> str:
        return ",\n".join("    " + json.dumps(list(c) if c is not None else None) for c in clues)

    parts = [f'  "rows": [\n{block(puzzle.rows)}\n  ]', f'  "cols": [\n{block(puzzle.cols)}\n  ]']
    for key in _META_KEYS:
        value = getattr(puzzle, key)
        if value:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    for key, value in puzzle.meta.items():
        if isinstance(value, str) and key not in ("rows", "cols", "goal", *_META_KEYS):
            parts.append(f"  {json.dumps(str(key))}: {json.dumps(value, ensure_ascii=False)}")
    if puzzle.goal is not None:
        rows = ",\n".join("    " + json.dumps(r) for r in grid_rows(puzzle.goal))
        parts.append(f'  "goal": [\n{rows}\n  ]')
    givens = givens_rows(puzzle)
    if givens is not None:
        rows = ",\n".join("    " + json.dumps(r) for r in givens)
        parts.append(f'  "givens": [\n{rows}\n  ]')
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode()


def _sniff(head: bytes) -> bool:
    text = head.lstrip()
    return text.startswith(b"{") and (b'"rows"' in head or b'"cols"' in head)


FORMAT = Format(
    name="json",
    suffixes=(".json",),
    description='davidje13 JSON rules {"rows": [...], "cols": [...]} (null = unknown clue)',
    read=read_json,
    write=write_json,
    sniff=_sniff,
    colour=True,
    stores_givens=True,
)
