"""davidje13/Nonogram "short" codes: the compact strings its solver prints after a solve.

* **Short rules** (``R...``): the clues.  After the ``R``, a bitstream in base64url digits
  (``A-Z a-z 0-9 - _``, 6 bits each, most significant first; trailing bits are padding):
  width and height as Exp-Golomb codes of order 4, then each row (top to bottom) and each column
  (left to right).  A line of length L is its number of filled cells T, coded with the
  low-biased prefix code for 0..L, then up to ``L - T`` block lengths, each ``r - 1`` coded with
  the prefix code for ``0..rem - 1`` (``rem`` = filled cells not yet accounted for); whatever
  remains after that is the last block.
* **Short image** (``L...`` run-length or ``B...`` bitmap): a grid of unknown / empty / filled
  cells.  ``L``: size, three bits saying which of (unknown, empty, filled) occur, then runs: the
  run's value as its rank among the values present other than the previous run's (prefix code),
  and ``run - 1`` as an Exp-Golomb code of order 1.  ``B``: size, the absent value (prefix code
  for 0..3), then one bit per cell.

The *low-biased prefix code* for symbols ``0..N`` is the canonical Huffman code of the weights
``1/(i + 2)``.  The reference merges nodes with rationals held in JavaScript doubles;
:func:`_code_lengths` repeats that arithmetic in Python floats (IEEE doubles too) so that the codes
match bit for bit even where rounding could matter (compared with exact fractions, the code
lengths agree for every N <= 200 and for N = 250 ... 1000).

Reference: davidje13/Nonogram, ``src/export/{rules,image,common}.mjs`` and ``src/data/``
(format described in ``../shared/formats/davidje13-short-codes.md``).

This module also defines the ``short`` file format: a text file holding one code.
"""

from __future__ import annotations

import math
import re
from functools import cache

import numpy as np

from nonosat.errors import FormatError, PuzzleError
from nonosat.formats import Format
from nonosat.formats._text import decode_text, make_puzzle, require_known, split_lines
from nonosat.puzzle import Cell, Puzzle

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_B64_BITS = {ch: format(i, "06b") for i, ch in enumerate(_B64)}
_MAX_SIZE = 1000  #: the reference refuses larger widths and heights
_SIZE_ORDER = 4  #: Exp-Golomb order of the width and height
_RUN_ORDER = 1  #: Exp-Golomb order of image run lengths
_IMAGE_SYMBOLS = (Cell.UNKNOWN, Cell.EMPTY, Cell.FILLED)  #: order of the 'exists' bits


class ShortCodeError(ValueError):
    """A malformed short code (raised by the decoders; readers turn it into FormatError)."""


# -- bit streams -------------------------------------------------------------------------------
class _BitReader:
    """Bits of a base64url string, most significant first; reading past the end is an error."""

    def __init__(self, text: str):
        try:
            self._bits = "".join(_B64_BITS[ch] for ch in text)
        except KeyError as exc:
            raise ShortCodeError(f"{exc.args[0]!r} is not a base64url digit") from None
        self._pos = 0

    def bit(self) -> int:
        pos = self._pos
        if pos >= len(self._bits):
            raise ShortCodeError("the code ends too early")
        self._pos = pos + 1
        return 1 if self._bits[pos] == "1" else 0

    def bits(self, n: int) -> int:
        if n == 0:
            return 0
        pos = self._pos
        if pos + n > len(self._bits):
            raise ShortCodeError("the code ends too early")
        self._pos = pos + n
        return int(self._bits[pos : pos + n], 2)

    def padding_ok(self) -> bool:
        """Whether everything after the read position is zero padding of the last digit."""
        rest = self._bits[self._pos :]
        return len(rest) < 6 and "1" not in rest


class _BitWriter:
    def __init__(self) -> None:
        self._parts: list[str] = []

    def bits(self, value: int, n: int) -> None:
        if n:
            self._parts.append(format(value, f"0{n}b"))

    def pattern(self, bits: str) -> None:
        self._parts.append(bits)

    def text(self) -> str:
        bits = "".join(self._parts)
        bits += "0" * (-len(bits) % 6)
        return "".join(_B64[int(bits[k : k + 6], 2)] for k in range(0, len(bits), 6))


def _read_exp_golomb(reader: _BitReader, order: int) -> int:
    zeros = 0
    while reader.bit() == 0:
        zeros += 1
        if zeros > 40:
            raise ShortCodeError("number too large")
    high = (1 << zeros) | reader.bits(zeros)
    return ((high - 1) << order) | reader.bits(order)


def _write_exp_golomb(writer: _BitWriter, value: int, order: int) -> None:
    high = (value >> order) + 1
    width = high.bit_length()
    writer.bits(0, width - 1)
    writer.bits(high, width)
    writer.bits(value & ((1 << order) - 1), order)


# -- the low-biased prefix code ----------------------------------------------------------------
def _js_mod(a: float, b: float) -> float:
    """JavaScript ``a % b`` on doubles (NaN where Python would raise)."""
    if b == 0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
        return math.nan
    return math.fmod(a, b)


def _js_div(a: float, b: float) -> float:
    """JavaScript ``a / b`` on doubles."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


class _Rational:
    """The reference's ``Rational``: numerator and denominator as doubles, reduced only when the
    denominator exceeds 1e5 (so rounding happens exactly where it happens there)."""

    __slots__ = ("num", "den")

    def __init__(self, num: float, den: float = 1.0):
        if den < 0:
            num, den = -num, -den
        self.num, self.den = num, den
        if self.den > 1e5:
            a, b = self.num, self.den
            while b and not math.isnan(b):  # gcd by repeated remainder, as in JavaScript
                a, b = b, _js_mod(a, b)
            self.num, self.den = _js_div(self.num, a), _js_div(self.den, a)

    def compare(self, other: _Rational) -> float:
        return self.num * other.den - other.num * self.den

    def add(self, other: _Rational) -> _Rational:
        return _Rational(self.num * other.den + other.num * self.den, self.den * other.den)


class _HuffmanNode:
    __slots__ = ("weight", "parent")

    def __init__(self, weight: _Rational):
        self.weight = weight
        self.parent: _HuffmanNode | None = None


def _code_lengths(limit: int) -> list[int]:
    """Code length of each symbol ``0..limit`` of the low-biased Huffman code (weights
    ``1/(i + 2)``), merging as the reference does: repeatedly join the two lightest nodes and
    insert the parent before the first node that is not heavier."""
    nodes = [_HuffmanNode(_Rational(1.0, float(i + 2))) for i in range(limit + 1)]
    queue = list(nodes)  # already sorted by decreasing weight; lightest at the end
    if len(queue) == 1:
        return [0]
    while len(queue) > 1:
        c2, c1 = queue.pop(), queue.pop()
        parent = _HuffmanNode(c1.weight.add(c2.weight))
        c1.parent = c2.parent = parent
        lo, hi = 0, len(queue)
        while hi > lo:
            mid = (lo + hi) >> 1
            if queue[mid].weight.compare(parent.weight) > 0:
                lo = mid + 1
            else:
                hi = mid
        queue.insert(lo, parent)
    lengths = []
    for node in nodes:
        depth, s = 0, node
        while s.parent is not None:
            depth, s = depth + 1, s.parent
        lengths.append(depth)
    return lengths


@cache
def _prefix_code(limit: int) -> tuple[tuple[str, ...], dict[tuple[int, int], int]]:
    """Canonical codes of symbols ``0..limit``: (code of each symbol as a bit string, symbol of
    each ``(code length, code value)``).

    Raises
    ------
    ShortCodeError
        ``limit`` < 0 (a line that would need a negative number of cells).
    """
    if limit < 0:
        raise ShortCodeError("inconsistent line (negative symbol range)")
    lengths = _code_lengths(limit)
    codes = [""] * (limit + 1)
    current: list[int] = []
    for symbol in sorted(range(limit + 1), key=lambda s: lengths[s]):  # stable: by value
        if current:
            k = len(current) - 1
            while current[k]:
                current[k] = 0
                k -= 1
            current[k] = 1
        current.extend([0] * (lengths[symbol] - len(current)))
        codes[symbol] = "".join(map(str, current))
    return tuple(codes), {(len(c), int(c or "0", 2)): s for s, c in enumerate(codes)}


def _read_symbol(reader: _BitReader, limit: int) -> int:
    codes, symbols = _prefix_code(limit)
    longest = len(codes[-1])  # canonical code: the last symbol has the longest code
    length = value = 0
    while (length, value) not in symbols:
        if length >= longest:
            raise ShortCodeError("invalid prefix code")
        value = (value << 1) | reader.bit()
        length += 1
    return symbols[(length, value)]


def _write_symbol(writer: _BitWriter, value: int, limit: int) -> None:
    writer.pattern(_prefix_code(limit)[0][value])


# -- short rules -------------------------------------------------------------------------------
def _read_size(reader: _BitReader) -> tuple[int, int]:
    sizes = []
    for name in ("width", "height"):
        value = _read_exp_golomb(reader, _SIZE_ORDER)
        if not 0 < value <= _MAX_SIZE:
            raise ShortCodeError(f"unsupported {name} {value} (1 to {_MAX_SIZE})")
        sizes.append(value)
    return sizes[0], sizes[1]


def _read_rule(reader: _BitReader, length: int) -> tuple[int, ...]:
    remaining = _read_symbol(reader, length)
    cap = length - remaining
    blocks: list[int] = []
    while remaining > 0 and len(blocks) < cap:
        block = _read_symbol(reader, remaining - 1) + 1
        remaining -= block
        blocks.append(block)
    if remaining > 0:
        blocks.append(remaining)
    return tuple(blocks)


def _write_rule(writer: _BitWriter, clue: tuple[int, ...], length: int) -> None:
    total = sum(clue)
    _write_symbol(writer, total, length)
    remaining = total
    for block in clue[: min(len(clue), length - total)]:
        _write_symbol(writer, block - 1, remaining - 1)
        remaining -= block


def decode_rules(code: str) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Decode a short-rules code.

    Parameters
    ----------
    code : str
        ``R`` followed by base64url digits.

    Returns
    -------
    rows, cols : tuple of clues
        Row clues top to bottom, column clues left to right.

    Raises
    ------
    ShortCodeError
        Not an ``R`` code, a non-base64url character, a code that ends early or carries extra
        data, a size over 1000.
    """
    code = code.strip()
    if not code.startswith("R"):
        raise ShortCodeError("a short-rules code starts with 'R'")
    reader = _BitReader(code[1:])
    width, height = _read_size(reader)
    rows = tuple(_read_rule(reader, width) for _ in range(height))
    cols = tuple(_read_rule(reader, height) for _ in range(width))
    if not reader.padding_ok():
        raise ShortCodeError("extra data after the last column")
    return rows, cols


def encode_rules(puzzle: Puzzle) -> str:
    """The short-rules code (``R...``) of ``puzzle``.

    Raises
    ------
    FormatError
        Unknown clues (the code cannot say "unknown"), or a side over 1000.
    """
    require_known(puzzle, "short")
    if max(puzzle.shape) > _MAX_SIZE:
        raise FormatError("<short>", None, f"short codes hold puzzles up to {_MAX_SIZE} cells wide")
    writer = _BitWriter()
    _write_exp_golomb(writer, puzzle.width, _SIZE_ORDER)
    _write_exp_golomb(writer, puzzle.height, _SIZE_ORDER)
    for clue in puzzle.rows:
        assert clue is not None  # require_known refused unknown clues
        _write_rule(writer, clue, puzzle.width)
    for clue in puzzle.cols:
        assert clue is not None
        _write_rule(writer, clue, puzzle.height)
    return "R" + writer.text()


# -- short image -------------------------------------------------------------------------------
def decode_image(code: str) -> np.ndarray:
    """Decode a short-image code (``L...`` or ``B...``).

    Returns
    -------
    ndarray of int8, shape (height, width)
        Grid state (:class:`~nonosat.puzzle.Cell` values: unknown, empty, filled).

    Raises
    ------
    ShortCodeError
        Unknown kind, bad digits, a run past the end, a code that ends early.
    """
    code = code.strip()
    if not code or code[0] not in "LB":
        raise ShortCodeError("a short-image code starts with 'L' or 'B'")
    reader = _BitReader(code[1:])
    width, height = _read_size(reader)
    size = width * height
    cells = np.empty(size, dtype=np.int8)
    if code[0] == "B":
        skip = _read_symbol(reader, 3)
        alphabet = [s for k, s in enumerate(_IMAGE_SYMBOLS) if k != skip]
        for i in range(size):
            cells[i] = alphabet[reader.bit()]
    else:
        alphabet = [s for s in _IMAGE_SYMBOLS if reader.bit()]
        if not alphabet:
            raise ShortCodeError("the image has no cell values")
        i, previous = 0, None
        while i < size:
            rank = _read_symbol(reader, len(alphabet) - (1 if previous is None else 2))
            index = rank + (1 if previous is not None and rank >= previous else 0)
            if index >= len(alphabet):
                raise ShortCodeError("invalid cell value")
            stop = i + _read_exp_golomb(reader, _RUN_ORDER) + 1
            if stop > size:
                raise ShortCodeError("a run goes past the last cell")
            cells[i:stop] = alphabet[index]
            i, previous = stop, index
    if not reader.padding_ok():
        raise ShortCodeError("extra data after the last cell")
    return cells.reshape(height, width)


def encode_image(grid: np.ndarray) -> str:
    """The short-image code of a bool solution or an ``int8`` grid state: the shorter of the
    run-length (``L``) and bitmap (``B``) forms, ``L`` on a tie, as the reference picks.

    Raises
    ------
    FormatError
        A side over 1000 cells.
    """
    g = np.asarray(grid)
    if g.dtype == bool:
        g = np.where(g, np.int8(Cell.FILLED), np.int8(Cell.EMPTY))
    height, width = g.shape
    if max(height, width) > _MAX_SIZE:
        raise FormatError("<short>", None, f"short codes hold grids up to {_MAX_SIZE} cells wide")
    flat = [int(v) for v in g.ravel()]
    exists = [s in flat for s in map(int, _IMAGE_SYMBOLS)]
    alphabet = [int(s) for s, e in zip(_IMAGE_SYMBOLS, exists, strict=True) if e]

    writer = _BitWriter()
    _write_exp_golomb(writer, width, _SIZE_ORDER)
    _write_exp_golomb(writer, height, _SIZE_ORDER)
    writer.pattern("".join("1" if e else "0" for e in exists))
    i, previous = 0, None
    while i < len(flat):
        value = flat[i]
        rank = sum(1 for a in alphabet[: alphabet.index(value)] if a != previous)
        _write_symbol(writer, rank, len(alphabet) - (1 if previous is None else 2))
        run = 1
        while i + run < len(flat) and flat[i + run] == value:
            run += 1
        _write_exp_golomb(writer, run - 1, _RUN_ORDER)
        previous, i = value, i + run
    best = "L" + writer.text()
    if len(alphabet) == 2 and 1 + len(flat) / 6 < len(best):
        writer = _BitWriter()
        _write_exp_golomb(writer, width, _SIZE_ORDER)
        _write_exp_golomb(writer, height, _SIZE_ORDER)
        _write_symbol(writer, exists.index(False), 3)
        for value in flat:
            writer.bits(alphabet.index(value), 1)
        bitmap = "B" + writer.text()
        if len(bitmap) < len(best):
            best = bitmap
    return best


def puzzle_from_code(code: str, path: str = "<code>", line: int | None = None, **fields) -> Puzzle:
    """A puzzle from a short-rules code, or from a short-image code of a solved picture (clues
    derived, picture kept as goal).

    Raises
    ------
    FormatError
        A malformed code, an image with unknown cells, clues that do not make a puzzle.
    """
    code = code.strip()
    try:
        if code.startswith("R"):
            rows, cols = decode_rules(code)
            return make_puzzle(path, rows, cols, [line] * len(rows), [line] * len(cols), **fields)
        grid = decode_image(code)
    except ShortCodeError as exc:
        raise FormatError(path, line, f"bad short code: {exc}") from None
    if (grid == Cell.UNKNOWN).any():
        raise FormatError(
            path, line, "the short image has unknown cells; expected a solved picture"
        )
    try:
        return Puzzle.from_picture(grid == Cell.FILLED, **fields)
    except PuzzleError as exc:
        raise FormatError(path, line, str(exc)) from None


# -- the 'short' file format: one code in a text file ------------------------------------------
_CODE = re.compile(r"[RLB][A-Za-z0-9_-]+")


def read_short(data: bytes, path: str) -> list[Puzzle]:
    """A text file holding one short code (``R...`` rules, or ``L...``/``B...`` image); blank
    lines and ``#`` comments are skipped, a second line may hold the picture's image code.

    Raises
    ------
    FormatError
        No code, a malformed code (naming the line).
    """
    codes = []
    for k, raw in enumerate(split_lines(decode_text(data, path)), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if not _CODE.fullmatch(text):
            raise FormatError(
                path, k, f"expected a short code (R..., L... or B...), found {text[:30]!r}"
            )
        codes.append((text, k))
    if not codes:
        raise FormatError(path, None, "no short code in the file")
    code, line = codes[0]
    puzzle = puzzle_from_code(code, path, line)
    for extra, k in codes[1:]:
        if extra[0] in "LB" and puzzle.goal is None:
            picture = puzzle_from_code(extra, path, k)
            try:
                from dataclasses import replace

                puzzle = replace(puzzle, goal=picture.goal)
            except PuzzleError as exc:
                raise FormatError(path, k, str(exc)) from None
    return [puzzle]


def write_short(puzzle: Puzzle) -> bytes:
    """The short-rules code of ``puzzle``, then the short-image code of its goal if it has one."""
    lines = [encode_rules(puzzle)]
    if puzzle.goal is not None:
        lines.append(encode_image(puzzle.goal))
    return ("\n".join(lines) + "\n").encode()


def _sniff(head: bytes) -> bool:
    first = head.strip().split(b"\n", 1)[0].strip()
    return bool(re.fullmatch(rb"R[A-Za-z0-9_-]{3,}", first))


FORMAT = Format(
    name="short",
    suffixes=(".short",),
    description="davidje13 short code in a text file (R... rules, optional L.../B... image)",
    read=read_short,
    write=write_short,
    sniff=_sniff,
)
