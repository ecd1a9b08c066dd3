"""Steve Simpson's ``.non`` format, with the extensions of mikix/nonogram-db (``FORMAT.md``).

Layout (keys in any order, except that ``width``/``height`` come before ``rows``/``columns``/
``goal``; unknown lines are ignored, as the format requires)::

    catalogue "webpbn.com #1"
    title "Dancer"
    by "Jan Wolter"
    copyright "&copy; Copyright 2004 by Jan Wolter"
    license CC-BY-3.0
    width 5
    height 10

    rows
    2
    2,1
    ...
    columns
    2,1
    ...
    goal "01100011010010101110..."

Each of the ``height`` lines after ``rows`` (``width`` after ``columns``) is one clue: block
lengths separated by commas, ``0`` or an empty line for an empty line.  Strings are quoted and
may contain HTML entities.  A block may carry a colour letter (``3a,1b``): a puzzle using more
than one colour is a colour puzzle, whose letters are declared by ``color a #rrggbb [name]`` lines
(``color 0 ...`` sets the background, white by default; a plain number is colour ``1``, black
unless declared) and whose goal holds one character per cell (``0`` = background).  ``.nonpack``
bundles several puzzles separated by ``====`` lines.
"""

from __future__ import annotations

import html
import re

import numpy as np

from nonosat.errors import FormatError
from nonosat.formats import Format, one_line_text
from nonosat.formats._colour import (
    make_colour_puzzle,
    make_palette,
    parse_rgb,
    refuse_repeated,
    writer_chars,
    writer_names,
)
from nonosat.formats._text import (
    clue_string,
    decode_text,
    make_puzzle,
    parse_int,
    parse_size,
    require_known,
    split_lines,
    text_fields,
)
from nonosat.puzzle import Puzzle

_STRING_KEYS = {
    "catalogue": "catalogue",
    "title": "title",
    "by": "author",
    "copyright": "copyright",
    "license": "license",
}
_BLOCK = re.compile(r"(\d+)([^\d\s,]?)")
_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
#: Keys that may appear once per puzzle (a second ``width`` is an error, not a silent override).
_ONCE = frozenset({"width", "height", "rows", "columns", "goal"})


def read_non(data: bytes, path: str) -> list[Puzzle]:
    """Parse a ``.non`` file (or a ``.nonpack`` bundle of them, separated by ``====`` lines).

    Raises
    ------
    FormatError
        Missing ``width``/``height``/``rows``/``columns``, a malformed clue or goal, too few clue
        lines, a colour puzzle, a clue that does not fit (each names the line).
    """
    lines = split_lines(decode_text(data, path))
    puzzles = []
    start = 0
    for k, line in enumerate(lines + ["===="]):
        if line.strip() == "====":
            if any(t.strip() for t in lines[start:k]):
                puzzles.append(_read_one(lines, start, k, path))
            start = k + 1
    if len(puzzles) > 1:
        puzzles = [_numbered(p, n) for n, p in enumerate(puzzles, start=1)]
    return puzzles


def _numbered(puzzle: Puzzle, number: int) -> Puzzle:
    from dataclasses import replace

    return replace(puzzle, number=number)


def _read_one(lines: list[str], start: int, stop: int, path: str) -> Puzzle:
    fields: dict[str, str] = {}
    size: dict[str, tuple[int, int]] = {}  # key -> (value, line)
    sections: dict[str, tuple[list[tuple[str, int]], int]] = {}
    goal: tuple[str, int] | None = None
    colours: dict[str, str] = {}
    seen: dict[str, int] = {}  # key of _ONCE -> its line
    colour_lines: dict[str, int] = {}
    k = start
    while k < stop:
        raw = lines[k]
        text = raw.strip()
        lineno = k + 1
        k += 1
        if not text:
            continue
        m = _KEYWORD.match(text)
        if not m:
            if text.startswith("#"):
                continue
            if _BLOCK.fullmatch(text.split(",")[0].strip()):
                raise FormatError(
                    path,
                    lineno,
                    f"unexpected clue line {text[:30]!r}: more clue lines than 'width' and "
                    "'height' announce",
                )
            raise FormatError(
                path, lineno, f"expected a key (width, height, rows, ...), found {text[:30]!r}"
            )
        key = m.group(0).lower()
        value = text[m.end() :].strip()
        if key in _ONCE:
            if key in seen:
                raise FormatError(
                    path, lineno, f"a second '{key}' line (the first is line {seen[key]})"
                )
            seen[key] = lineno
        if key in _STRING_KEYS:
            fields[_STRING_KEYS[key]] = _unquote(value)
        elif key in ("width", "height"):
            size[key] = (
                parse_size(
                    parse_int(value, path, lineno, f"the {key} (a whole number)"), path, lineno, key
                ),
                lineno,
            )
        elif key in ("rows", "columns"):
            other = "height" if key == "rows" else "width"
            if other not in size:
                raise FormatError(
                    path, lineno, f"'{key}' comes before '{other}'; expected '{other} N' first"
                )
            count = size[other][0]
            if k + count > stop:
                got = stop - k
                raise FormatError(
                    path,
                    stop + 1 if stop == len(lines) else stop,
                    f"file ends after {got} of the {count} {key} clues that "
                    f"'{key}' on line {lineno} announces",
                )
            block = [(lines[k + i], k + i + 1) for i in range(count)]
            for text_i, line_i in block:
                word = _KEYWORD.match(text_i.strip())
                if word and not _BLOCK.fullmatch(text_i.strip().split(",")[0]):
                    found = sum(1 for t, n in block if n < line_i)
                    raise FormatError(
                        path,
                        line_i,
                        f"expected {count} {key} clues after '{key}' on line "
                        f"{lineno}, found {found} before {text_i.strip()[:20]!r} "
                        "(wrong width/height?)",
                    )
            sections[key] = (block, lineno)
            k += count
        elif key == "goal":
            goal = (_unquote(value), lineno)
        elif key in ("color", "colour"):
            parts = value.split()
            if parts and parts[0] in colours:
                refuse_repeated([(parts[0], colour_lines[parts[0]]), (parts[0], lineno)], path,
                                "colour character")
            if parts:
                colours[parts[0]] = " ".join(parts[1:]) if len(parts) > 1 else "?"
                colour_lines[parts[0]] = lineno
        # Any other line is ignored, as FORMAT.md requires.
    refuse_repeated([(_colour_name(ch, value), colour_lines[ch]) for ch, value in colours.items()
                     if ch != "0" or len(value.split()) > 1], path)
    for key in ("width", "height", "rows", "columns"):
        if key not in size and key not in sections:
            raise FormatError(
                path, None, f"no '{key}' line; a .non file needs width, height, rows and columns"
            )
    used: dict[str, int] = {}  # colour letter -> first line using it
    rows, row_lines = _clues(sections["rows"][0], path, used)
    cols, col_lines = _clues(sections["columns"][0], path, used)
    meta = {"catalogue": fields.pop("catalogue")} if "catalogue" in fields else {}
    if len({c or "1" for c in used} - {"0"}) > 1:
        return _colour_puzzle(path, sections, colours, colour_lines, goal, size, fields, meta)
    picture = None
    if goal is not None:
        picture = _goal(goal, size["height"][0], size["width"][0], path, used)
    for colour, line in used.items():
        if colour and colour not in colours:
            raise FormatError(
                path,
                line,
                f"colour {colour!r} is not defined (no 'color {colour} ...' line); "
                "expected block lengths like 2,1",
            )
    return make_puzzle(path, rows, cols, row_lines, col_lines, goal=picture, meta=meta,
                       **text_fields(fields))


def _colour_puzzle(path, sections, colours, colour_lines, goal, size, fields, meta) -> Puzzle:
    """The colour puzzle of a ``.non`` file whose blocks use several colours."""
    parsed: dict[str, list] = {}
    used: dict[str, int] = {}
    for key in ("rows", "columns"):
        blocks, cols, numbers = [], [], []
        for text, lineno in sections[key][0]:
            pairs = []
            for token in text.strip().split(","):
                token = token.strip()
                if not token:
                    continue
                m = _BLOCK.fullmatch(token)
                ch = (m.group(2) or "1") if m else "1"
                length = int(m.group(1)) if m else 0
                if length and ch != "0":
                    if ch not in colours and ch != "1":
                        raise FormatError(
                            path,
                            lineno,
                            f"block {token!r} uses colour {ch!r}, which no 'color {ch} #rrggbb' "
                            "line declares",
                        )
                    used.setdefault(ch, lineno)
                    pairs.append((length, ch))
            blocks.append(tuple(b for b, _ in pairs))
            cols.append(tuple(c for _, c in pairs))
            numbers.append(lineno)
        parsed[key] = [blocks, cols, numbers]
    order = [ch for ch in colours if ch in used] + (
        ["1"] if "1" in used and "1" not in colours else []
    )
    entries = []
    for ch in order:
        parts = colours.get(ch, "#000000 black").split()
        rgb = parse_rgb(parts[0])
        if rgb is None:
            raise FormatError(
                path, colour_lines.get(ch), f"colour {ch!r}: {parts[0]!r} is not a colour"
            )
        entries.append((_colour_name(ch, " ".join(parts)), rgb, ch))
    bg_parts = colours.get("0", "#ffffff background").split()
    bg_rgb = parse_rgb(bg_parts[0]) or (255, 255, 255)
    bg_name = " ".join(bg_parts[1:]) or "background"
    names = {bg_name}
    unique = []
    for name, rgb, ch in entries:
        label = name if name not in names else f"{name}-{ch}"
        names.add(label)
        unique.append((label, rgb, ch))
    palette = make_palette((bg_name, bg_rgb, "."), unique, path)
    index = {ch: k for k, ch in enumerate(["0", *order])}
    for key in ("rows", "columns"):
        parsed[key][1] = [tuple(index[c] for c in line) for line in parsed[key][1]]
    picture = None
    if goal is not None:
        text, lineno = goal
        text = "".join(text.split())
        height, width = size["height"][0], size["width"][0]
        if len(text) != height * width:
            raise FormatError(
                path,
                lineno,
                f"goal has {len(text)} cells; expected width x height = {width * height}",
            )
        bad = sorted(set(text) - set(index))
        if bad:
            raise FormatError(path, lineno, f"goal uses colour {bad[0]!r}, which the clues do not")
        picture = np.array([index[ch] for ch in text], dtype=np.int8).reshape(height, width)
    return make_colour_puzzle(
        path,
        parsed["rows"][0],
        parsed["rows"][1],
        parsed["columns"][0],
        parsed["columns"][1],
        palette,
        parsed["rows"][2],
        parsed["columns"][2],
        goal=picture,
        meta=meta,
        **fields,
    )


def _colour_name(ch: str, value: str) -> str:
    """The name of colour ``ch`` declared as ``color ch VALUE``: the words after the RGB value,
    else a value that is a colour name (``color a red``), else the character itself."""
    parts = value.split()
    if len(parts) > 1:
        return " ".join(parts[1:])
    return parts[0] if parts and not parts[0].startswith("#") else ch


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return html.unescape(value)


def _clues(block: list[tuple[str, int]], path: str, used: dict[str, int]):
    clues, numbers = [], []
    for text, lineno in block:
        clue = []
        for token in text.strip().split(","):
            token = token.strip()
            if not token and text.strip() == "":
                continue
            m = _BLOCK.fullmatch(token)
            if not m:
                raise FormatError(
                    path,
                    lineno,
                    "expected block lengths separated by commas "
                    f"(like 2,1 or 3a,1b), found {token[:20]!r}",
                )
            if len(m.group(1)) > 9:
                raise FormatError(path, lineno, f"block length {m.group(1)[:12]}... is too large")
            length = int(m.group(1))
            if length:
                used.setdefault(m.group(2), lineno)
            clue.append(length)
        clues.append(tuple(clue))
        numbers.append(lineno)
    return clues, numbers


def _goal(
    goal: tuple[str, int], height: int, width: int, path: str, used: dict[str, int]
) -> np.ndarray:
    text, lineno = goal
    text = "".join(text.split())
    bad = re.search(r"[^0-9A-Za-z]", text)
    if bad:
        raise FormatError(
            path,
            lineno,
            f"goal: expected cells '0' (empty) and '1' (filled), found {bad.group(0)!r} at cell "
            f"{bad.start() + 1}",
        )
    if len(text) != height * width:
        raise FormatError(
            path, lineno, f"goal has {len(text)} cells; expected width x height = {width * height}"
        )
    colour_chars = set(text) - {"0", "1"}
    if colour_chars:
        raise FormatError(
            path,
            lineno,
            f"goal uses colour {sorted(colour_chars)[0]!r} but the clues use one colour",
        )
    arr = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) != ord("0")
    return arr.reshape(height, width)


def write_non(puzzle: Puzzle) -> bytes:
    """The ``.non`` text of ``puzzle``, with its title, author, copyright, licence, catalogue
    and goal.

    Raises
    ------
    FormatError
        The puzzle has unknown clues.
    """
    require_known(puzzle, "non")
    out = []
    if puzzle.meta.get("catalogue"):
        out.append(f"catalogue {_quote(str(puzzle.meta['catalogue']))}")
    for key, value in (
        ("title", puzzle.title),
        ("by", puzzle.author),
        ("copyright", puzzle.copyright),
    ):
        if value:
            out.append(f"{key} {_quote(value)}")
    if puzzle.license:
        lic = puzzle.license
        out.append(
            f"license {lic}" if re.fullmatch(r"[A-Za-z0-9.+-]+", lic) else f"license {_quote(lic)}"
        )
    out += [f"width {puzzle.width}", f"height {puzzle.height}", ""]
    if puzzle.palette is not None:
        chars = writer_chars(puzzle.palette, "0")
        names = writer_names(puzzle.palette, "non")
        for ch, colour, name in zip(chars, puzzle.palette.colours, names, strict=True):
            out.append(f"color {ch} {colour.hex} {name}")
        colours = puzzle.line_colours
        out += ["", "rows"]
        for i, clue in enumerate(puzzle.lines):
            if i == puzzle.height:
                out += ["", "columns"]
            pairs = zip(clue or (), colours[i] or (), strict=True)
            out.append(",".join(f"{b}{chars[c]}" for b, c in pairs) or "0")
        if puzzle.goal is not None:
            cells = "".join(chars[int(v)] for v in puzzle.goal.ravel())
            out += ["", f'goal "{cells}"']
        return ("\n".join(out) + "\n").encode()
    out += ["rows"]
    out += [clue_string(c, ",") for c in puzzle.rows]
    out += ["", "columns"]
    out += [clue_string(c, ",") for c in puzzle.cols]
    if puzzle.goal is not None:
        out += ["", 'goal "' + "".join("1" if v else "0" for v in puzzle.goal.ravel()) + '"']
    return ("\n".join(out) + "\n").encode()


def write_nonpack(puzzles: list[Puzzle]) -> bytes:
    """A ``.nonpack`` bundle: the ``.non`` text of each puzzle, separated by ``====`` lines (read
    back as puzzles 1, 2, ...; ``--index N`` picks one).

    Raises
    ------
    FormatError
        A puzzle has unknown clues.
    """
    return b"====\n".join(write_non(p) for p in puzzles)


def _quote(value: str) -> str:
    one_line = one_line_text(value)
    return '"' + html.escape(one_line, quote=False).replace('"', "&quot;") + '"'


def _sniff(head: bytes) -> bool:
    text = head.decode("latin-1")
    return bool(
        re.search(r"^\s*width\s+\d+", text, re.M) and re.search(r"^\s*height\s+\d+", text, re.M)
    )


FORMAT = Format(
    name="non",
    suffixes=(".non", ".nonpack"),
    description="Steve Simpson .non (mikix/nonogram-db keys: title, by, copyright, license, goal)",
    read=read_non,
    write=write_non,
    write_many=write_nonpack,
    sniff=_sniff,
    multi=True,
    colour=True,
)
