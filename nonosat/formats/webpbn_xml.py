"""webpbn XML (Jan Wolter's ``pbn-0.3.dtd``, also written by number-loom).

Layout::

    <puzzleset>
      <puzzle type="grid" defaultcolor="black">
        <title>...</title> <author>...</author> <copyright>...</copyright>
        <color name="white" char=".">FFFFFF</color> <color name="black" char="X">000000</color>
        <clues type="columns"><line><count>2</count><count>1</count></line> ...</clues>
        <clues type="rows"> ... </clues>
        <solution type="goal"><image>|.XX..|
                                     |.XX.X| ...</image></solution>
      </puzzle>
    </puzzleset>

``<line></line>`` is an empty line.  A partial ``<solution type="saved">`` (``?`` for unknown
cells) holds the puzzle's givens (:mod:`nonosat.formats.givens`; a colour puzzle's in its
colours' characters).  A ``<count>`` may name a colour (``color="red"``); a puzzle
whose clues use more than one colour besides the background is a colour puzzle (palette from its
``<color>`` elements, goal image in their characters).  Non-grid puzzles (triddlers) are
refused.  Parsed with :mod:`defusedxml` (entity expansion and external
declarations refused, external DTDs never fetched) through its SAX interface, so that every element knows its line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import xml.sax
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from nonosat.errors import FormatError
from nonosat.formats import Format
from nonosat.formats._colour import (
    make_colour_puzzle,
    make_palette,
    parse_rgb,
    refuse_repeated,
    writer_chars,
)
from nonosat.formats._text import decode_text, make_puzzle, require_known, text_fields
from nonosat.formats.givens import givens_rows, parse_givens, with_givens
from nonosat.limits import size_limits
from nonosat.puzzle import Cell, Clue, Puzzle


@dataclass
class _Node:
    """An XML element with the line it starts on."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[_Node] = field(default_factory=list)
    text: str = ""

    def find(self, tag: str) -> _Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[_Node]:
        return [c for c in self.children if c.tag == tag]

    def findtext(self, tag: str) -> str | None:
        node = self.find(tag)
        return node.text.strip() if node is not None else None


#: Deepest element nesting accepted (a webpbn file has puzzleset > puzzle > clues > line > count).
MAX_XML_DEPTH = 64


class _TooDeep(Exception):
    """Raised by :class:`_TreeBuilder` past :data:`MAX_XML_DEPTH`; ``args[0]`` is the line."""


class _TreeBuilder(xml.sax.handler.ContentHandler):
    """Build :class:`_Node` trees from SAX events, recording each element's line."""

    def __init__(self) -> None:
        super().__init__()
        self.root: _Node | None = None
        self._stack: list[_Node] = []
        self._locator: xml.sax.xmlreader.Locator | None = None

    def setDocumentLocator(self, locator: xml.sax.xmlreader.Locator) -> None:  # noqa: N802
        self._locator = locator

    def startElement(self, name: str, attrs: xml.sax.xmlreader.AttributesImpl) -> None:  # noqa: N802
        line = (self._locator.getLineNumber() or 0) if self._locator else 0
        if len(self._stack) >= MAX_XML_DEPTH:  # webpbn needs 5 levels; deep trees cost time
            raise _TooDeep(line)
        node = _Node(name, dict(attrs), line)
        if self._stack:
            self._stack[-1].children.append(node)
        else:
            self.root = node
        self._stack.append(node)

    def endElement(self, name: str) -> None:  # noqa: N802
        self._stack.pop()

    def characters(self, content: str) -> None:
        if self._stack:
            self._stack[-1].text += content


def _parse(data: bytes, path: str) -> _Node:
    # imported here: defusedxml.sax pulls in urllib.request, http.client and ssl (about 30 ms),
    # which every `nonosat` run would pay through the format registry
    import defusedxml
    import defusedxml.sax

    decode_text(data, path)  # refuse empty files and binary junk with a clear message
    size_limits().check_lines(data.count(b"<"), path, "XML tags")  # before building the tree
    builder = _TreeBuilder()
    try:
        # webpbn files name their DTD (<!DOCTYPE pbn SYSTEM "http://webpbn.com/...">); the SAX
        # reader never fetches it (external entities are off by default), so the DOCTYPE is
        # allowed, while every entity declaration, internal or external, is refused.
        defusedxml.sax.parseString(
            data, builder, forbid_dtd=False, forbid_entities=True, forbid_external=False
        )
    except _TooDeep as exc:
        raise FormatError(
            path, exc.args[0] or None, f"invalid XML: elements nested more than {MAX_XML_DEPTH} deep"
        ) from None
    except xml.sax.SAXParseException as exc:
        raise FormatError(path, exc.getLineNumber(), f"invalid XML: {exc.getMessage()}") from None
    except defusedxml.DefusedXmlException as exc:
        raise FormatError(path, None, f"refused XML: {exc}") from None
    except LookupError as exc:  # encoding="ebcdic-xx": an encoding Python does not know
        raise FormatError(path, 1, f"invalid XML: unknown encoding ({exc})") from None
    except (ValueError, UnicodeError) as exc:
        raise FormatError(path, None, f"invalid XML: {exc}") from None
    except RecursionError:
        raise FormatError(path, None, "invalid XML: nested too deeply") from None
    if builder.root is None:
        raise FormatError(path, None, "no XML element; expected <puzzleset>")
    return builder.root


def read_webpbn(data: bytes, path: str) -> list[Puzzle]:
    """Parse a webpbn XML puzzle set.

    Raises
    ------
    FormatError
        Invalid XML (with its line), entity declarations or external references, no
        ``<puzzle>``, missing ``<clues>``, a non-numeric ``<count>``, a colour or triddler puzzle,
        a goal image of the wrong size, a clue that does not fit (each names the line).
    """
    root = _parse(data, path)
    if root.tag == "puzzle":
        puzzle_nodes, source = [root], None
    elif root.tag == "puzzleset":
        puzzle_nodes, source = root.findall("puzzle"), root.findtext("source")
    else:
        raise FormatError(path, root.line, f"expected <puzzleset> or <puzzle>, found <{root.tag}>")
    if not puzzle_nodes:
        raise FormatError(path, root.line, "no <puzzle> in the <puzzleset>")
    puzzles = [_puzzle(node, path, source) for node in puzzle_nodes]
    if len(puzzles) > 1:
        from dataclasses import replace

        puzzles = [replace(p, number=k) for k, p in enumerate(puzzles, start=1)]
    return puzzles


def _puzzle(node: _Node, path: str, source: str | None) -> Puzzle:
    kind = node.attrib.get("type", "grid")
    if kind != "grid":
        raise FormatError(
            path, node.line, f'{kind!r} puzzles are not supported; expected type="grid"'
        )
    default = node.attrib.get("defaultcolor", "black")
    background = node.attrib.get("backgroundcolor", "white")
    refuse_repeated([(c.attrib.get("name", ""), c.line) for c in node.findall("color")], path)
    chars = {c.attrib.get("name", ""): c.attrib.get("char", "") for c in node.findall("color")}
    values = {c.attrib.get("name", ""): c.text.strip() for c in node.findall("color")}
    used: dict[str, int] = {}
    clues: dict[str, tuple[list[Clue], list[int]]] = {}
    block_names: dict[str, list[tuple[str, ...]]] = {}
    for clue_node in node.findall("clues"):
        kind = clue_node.attrib.get("type", "")
        if kind not in ("rows", "columns"):
            raise FormatError(
                path,
                clue_node.line,
                f'expected <clues type="rows"> or type="columns", found type={kind!r}',
            )
        if kind in clues:
            raise FormatError(path, clue_node.line, f'a second <clues type="{kind}">')
        lines: list[Clue] = []
        numbers: list[int] = []
        names: list[tuple[str, ...]] = []
        for line_node in clue_node.findall("line"):
            blocks = []
            line_names = []
            for count in line_node.findall("count"):
                text = count.text.strip()
                if not (text.isascii() and text.isdigit() and len(text) <= 9):
                    raise FormatError(
                        path, count.line, f"expected a whole number in <count>, found {text[:20]!r}"
                    )
                colour = count.attrib.get("color", default)
                if int(text):
                    used.setdefault(colour, count.line)
                blocks.append(int(text))
                line_names.append(colour)
            lines.append(tuple(blocks))
            numbers.append(line_node.line)
            names.append(tuple(line_names))
        clues[kind] = (lines, numbers)
        block_names[kind] = names
    for kind in ("rows", "columns"):
        if kind not in clues:
            raise FormatError(path, node.line, f'the puzzle has no <clues type="{kind}">')
    colours = sorted(set(used) - {background})
    fields = {k: node.findtext(k) for k in ("title", "author", "copyright")}
    meta = {k: v for k in ("id", "description", "authorid", "note") if (v := node.findtext(k))}
    if source := node.findtext("source") or source:
        meta["source"] = source
    if len(colours) > 1:
        return _colour_puzzle(
            node,
            path,
            clues,
            block_names,
            used,
            background,
            chars,
            values,
            meta,
            {k: v for k, v in fields.items() if v},
        )
    rows, row_lines = clues["rows"]
    cols, col_lines = clues["columns"]
    goal = None
    for solution in node.findall("solution"):
        image = solution.find("image")
        if solution.attrib.get("type", "goal") == "goal" and image is not None:
            goal = _image(image, len(rows), len(cols), chars.get(background, "."), path)
            break
    puzzle = make_puzzle(
        path,
        rows,
        cols,
        row_lines,
        col_lines,
        goal=goal,
        meta=meta,
        **text_fields({k: v for k, v in fields.items() if v}),
    )
    for solution in node.findall("solution"):
        image = solution.find("image")
        if solution.attrib.get("type") == "saved" and image is not None:
            saved = _saved_image(image, puzzle.shape, chars.get(background, "."), path)
            if bool((saved != Cell.UNKNOWN).any()):
                puzzle = with_givens(puzzle, saved)
            break
    return puzzle


def _colour_puzzle(node, path, clues, block_names, used, background, chars, values, meta, fields):
    """The colour puzzle of a ``<puzzle>`` whose clues use several colours."""
    declared = [c.attrib.get("name", "") for c in node.findall("color")]
    order = [name for name in declared if name in used and name != background]
    order += sorted(name for name in used if name not in order and name != background)
    entries = []
    for name in order:
        value = values.get(name)
        rgb = parse_rgb(value) if value else parse_rgb(name)
        if rgb is None:
            raise FormatError(path, used[name], f"colour {name!r} has no RGB value")
        entries.append((name, rgb, chars.get(name) or name[:1]))
    bg_rgb = parse_rgb(values.get(background, "")) or parse_rgb(background) or (255, 255, 255)
    palette = make_palette((background, bg_rgb, chars.get(background) or "."), entries, path)
    index = {name: k for k, name in enumerate([background, *order])}
    parts = {}
    for kind in ("rows", "columns"):
        lines, numbers = clues[kind]
        blocks, colours = [], []
        for clue, names in zip(lines, block_names[kind], strict=True):
            pairs = [(b, index[n]) for b, n in zip(clue or (), names, strict=True) if b]
            blocks.append(tuple(b for b, _ in pairs))
            colours.append(tuple(c for _, c in pairs))
        parts[kind] = (blocks, colours, numbers)
    goal = None
    height, width = len(parts["rows"][0]), len(parts["columns"][0])
    char_index = {chars.get(name, ""): k for name, k in index.items() if chars.get(name)}
    for solution in node.findall("solution"):
        image = solution.find("image")
        if solution.attrib.get("type", "goal") == "goal" and image is not None:
            goal = _colour_image(image, height, width, char_index, path)
            break
    puzzle = make_colour_puzzle(
        path,
        parts["rows"][0],
        parts["rows"][1],
        parts["columns"][0],
        parts["columns"][1],
        palette,
        parts["rows"][2],
        parts["columns"][2],
        goal=goal,
        meta=meta,
        **fields,
    )
    for solution in node.findall("solution"):
        image = solution.find("image")
        if solution.attrib.get("type") == "saved" and image is not None:
            return with_givens(puzzle, _colour_saved(image, puzzle, char_index, path))
    return puzzle


def _colour_saved(node: _Node, puzzle: Puzzle, index: dict[str, int], path: str
                  ) -> np.ndarray | None:
    """The colour masks of a partial ``<solution type="saved">`` image (``?`` = unknown, any
    other cell a ``<color>``'s char), ``None`` when no cell is known."""
    chars = [""] * puzzle.n_colours
    for ch, k in index.items():
        chars[k] = ch
    rows = []
    for line, cells in _image_rows(node, puzzle.shape, path, "saved", "|..X?.|"):
        for j, ch in enumerate(cells):
            if ch != "?" and ch not in index:
                raise FormatError(path, line, f"saved cell {j + 1} is {ch!r}, which no "
                                  "<color> has as its char")
        rows.append(cells)
    return parse_givens(rows, puzzle.shape, chars)


def _image_rows(node: _Node, shape: tuple[int, int], path: str, what: str = "goal",
                example: str = "|..XX.|") -> Iterator[tuple[int, str]]:
    """The rows of an image node as ``(line number, cells between the bars)``, one at a time
    (the caller's own check of a row comes before the next row's), each checked to be
    ``|...|`` with ``width`` cells, and ``height`` of them (checked after the last).

    Raises
    ------
    FormatError
        A row without its bars or of the wrong width, or the wrong number of rows (``what``:
        ``"goal"`` or ``"saved"`` names the image in the message).
    """
    height, width = shape
    count = 0
    for k, raw in enumerate(node.text.split("\n")):
        text = raw.strip()
        if not text:
            continue
        line = node.line + k
        if len(text) < 2 or text[0] != "|" or text[-1] != "|":
            raise FormatError(path, line,
                              f"expected a {what} row like {example}, found {text[:30]!r}")
        cells = text[1:-1]
        if len(cells) != width:
            raise FormatError(path, line, f"{what} row has {len(cells)} cells; expected {width}")
        count += 1
        yield line, cells
    if count != height:
        raise FormatError(path, node.line, f"{what} image has {count} rows; expected {height}")


def _colour_image(node: _Node, height: int, width: int, index: dict[str, int], path: str):
    rows = []
    for line, cells in _image_rows(node, (height, width), path):
        row = []
        for j, ch in enumerate(cells):
            if ch not in index:
                raise FormatError(
                    path, line, f"goal cell {j + 1} is {ch!r}, which no <color> has as its char"
                )
            row.append(index[ch])
        rows.append(row)
    return np.array(rows, dtype=np.int8)


def _image(node: _Node, height: int, width: int, background: str, path: str) -> np.ndarray:
    return np.array([[ch != background for ch in cells]
                     for _, cells in _image_rows(node, (height, width), path)], dtype=bool)


def _saved_image(node: _Node, shape: tuple[int, int], background: str, path: str
                 ) -> np.ndarray:
    """The grid state of a partial ``<solution type="saved">`` image (``?`` = unknown)."""
    return np.array([[Cell.UNKNOWN if ch == "?" else Cell.EMPTY if ch == background
                      else Cell.FILLED for ch in cells]
                     for _, cells in _image_rows(node, shape, path, "saved", "|..X?.|")],
                    dtype=np.int8)


def write_webpbn(puzzle: Puzzle) -> bytes:
    """webpbn XML of ``puzzle`` with title, author, copyright, description and goal image.

    Raises
    ------
    FormatError
        The puzzle has unknown clues.
    """
    return write_webpbn_set([puzzle])


def write_webpbn_set(puzzles: list[Puzzle]) -> bytes:
    """webpbn XML of several puzzles: one ``<puzzleset>`` with a ``<puzzle>`` for each, in order
    (read back as puzzles 1, 2, ...; ``--index N`` picks one); colour puzzles carry their
    ``<color>`` table.

    Raises
    ------
    FormatError
        A puzzle has unknown clues.
    """
    root = ET.Element("puzzleset")
    for puzzle in puzzles:
        require_known(puzzle, "webpbn")
        if puzzle.palette is not None:
            _add_colour_puzzle(root, puzzle)
        else:
            _add_puzzle(root, puzzle)
    ET.indent(root, space="")
    for line in root.iter("line"):  # keep each clue on one line, as webpbn writes it
        for count in line:
            count.tail = None
        line.text = None
    body = ET.tostring(root, encoding="unicode")
    bad = _NOT_XML.search(body)
    if bad:
        from nonosat.text import printable

        raise FormatError("<webpbn>", None, f"the text {printable(_around(body, bad.start()))} "
                          f"holds {printable(bad.group())}, a character XML 1.0 cannot hold")
    # ElementTree writes a CR of a text node as it is, which every XML parser reads as LF
    return ('<?xml version="1.0"?>\n' + body.replace("\r", "&#13;") + "\n").encode()


#: Characters XML 1.0 cannot hold, not even as a character reference: C0 controls other than
#: TAB, LF and CR, the surrogates and U+FFFE, U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _around(body: str, at: int) -> str:
    """The text around position ``at`` of ``body`` (its element's text), for an error."""
    start = max(body.rfind(">", 0, at), body.rfind('"', 0, at)) + 1
    ends = [e for e in (body.find("<", at), body.find('"', at)) if e >= 0]
    return body[start:min(ends) if ends else at + 1][:60]


def _add_metadata(node: ET.Element, puzzle: Puzzle) -> None:
    """The puzzle's title, author, copyright, id and description, each that it has, as child
    elements of its ``<puzzle>`` ``node``."""
    for key in ("title", "author", "copyright"):
        if getattr(puzzle, key):
            ET.SubElement(node, key).text = getattr(puzzle, key)
    for key in ("id", "description"):
        if isinstance(puzzle.meta.get(key), str):
            ET.SubElement(node, key).text = puzzle.meta[key]


def _add_puzzle(root: ET.Element, puzzle: Puzzle) -> None:
    node = ET.SubElement(root, "puzzle", type="grid", defaultcolor="black")
    _add_metadata(node, puzzle)
    ET.SubElement(node, "color", name="white", char=".").text = "FFFFFF"
    ET.SubElement(node, "color", name="black", char="X").text = "000000"
    for kind, lines in (("columns", puzzle.cols), ("rows", puzzle.rows)):
        clues = ET.SubElement(node, "clues", type=kind)
        for clue in lines:
            line = ET.SubElement(clues, "line")
            for block in clue or ():
                ET.SubElement(line, "count").text = str(block)
    if puzzle.goal is not None:
        solution = ET.SubElement(node, "solution", type="goal")
        image = ET.SubElement(solution, "image")
        image.text = "\n" + "".join(
            "|" + "".join("X" if v else "." for v in row) + "|\n" for row in puzzle.goal
        )
    givens = givens_rows(puzzle)
    if givens is not None:
        solution = ET.SubElement(node, "solution", type="saved")
        image = ET.SubElement(solution, "image")
        image.text = "\n" + "".join("|" + row.replace("#", "X") + "|\n" for row in givens)


def _add_colour_puzzle(root: ET.Element, puzzle: Puzzle) -> None:
    """webpbn XML of a colour puzzle: one ``<color>`` per palette colour, ``color=`` on every
    ``<count>``, the goal image in the colours' characters."""
    palette = puzzle.palette
    assert palette is not None
    chars = writer_chars(palette)
    names = [c.name for c in palette.colours]
    node = ET.SubElement(
        root, "puzzle", type="grid", defaultcolor=names[1], backgroundcolor=names[0]
    )
    _add_metadata(node, puzzle)
    for colour, ch in zip(palette.colours, chars, strict=True):
        ET.SubElement(node, "color", name=colour.name, char=ch).text = colour.hex[1:].upper()
    colours = puzzle.line_colours
    for kind, lines, offset in (("columns", puzzle.cols, puzzle.height), ("rows", puzzle.rows, 0)):
        clues = ET.SubElement(node, "clues", type=kind)
        for i, clue in enumerate(lines):
            line = ET.SubElement(clues, "line")
            for block, c in zip(clue or (), colours[offset + i] or (), strict=True):
                ET.SubElement(line, "count", color=names[c]).text = str(block)
    if puzzle.goal is not None:
        solution = ET.SubElement(node, "solution", type="goal")
        image = ET.SubElement(solution, "image")
        image.text = "\n" + "".join(
            "|" + "".join(chars[int(v)] for v in row) + "|\n" for row in puzzle.goal
        )
    givens = givens_rows(puzzle, chars)
    if givens is not None:
        solution = ET.SubElement(node, "solution", type="saved")
        image = ET.SubElement(solution, "image")
        image.text = "\n" + "".join("|" + row + "|\n" for row in givens)


def _sniff(head: bytes) -> bool:
    text = head.lstrip()
    return text.startswith(b"<") and (b"<puzzleset" in head or b"<puzzle" in head)


FORMAT = Format(
    name="webpbn",
    suffixes=(".xml", ".pbn"),
    description="webpbn XML (<puzzleset><puzzle type=grid>, with goal image)",
    read=read_webpbn,
    write=write_webpbn,
    write_many=write_webpbn_set,
    sniff=_sniff,
    multi=True,
    colour=True,
    stores_givens=True,
)
