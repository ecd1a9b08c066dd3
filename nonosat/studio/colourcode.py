"""The studio's share code for colour puzzles (``C1...``): the davidje13 short code holds no
colour, so colour puzzles travel in URLs as this code (``docs/studio.md``, *Sharing*).

Layout: ``"C1"`` then the raw-DEFLATE-compressed (RFC 1951, :mod:`zlib`, level 9) payload in
unpadded base64url (RFC 4648 section 5).  The payload is a byte string:

* width, height: unsigned LEB128 varints (1 to :data:`~nonosat.studio.schemas.MAX_SIDE`);
* ``n``, the colours with the background (one byte, 2 to 31); for each colour, background
  first: its red, green and blue bytes, the UTF-8 length of its name (varint) and the name;
* one byte: ``1`` the picture follows, ``0`` the clues follow;
* picture: every cell's colour index, row by row, in ``ceil(log2 n)`` bits each, most
  significant bit first, padded with zero bits to a whole byte;
* clues: each row (top to bottom), then each column (left to right): ``blocks + 1`` as a varint
  (``0`` = an unknown clue), then each block's length (varint) and colour index (byte).

Nothing else is kept (the page's address carries the title as ``t=``).  The characters a file
gave the palette are not kept either: a decoded puzzle uses
:data:`~nonosat.studio.schemas.INDEX_CHARS`.
"""

from __future__ import annotations

import base64
import binascii
import zlib

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.puzzle import Colour, Palette, Puzzle

__all__ = ["PREFIX", "decode_colour_code", "encode_colour_code"]

#: The first characters of every code of this version.
PREFIX = "C1"
#: Largest payload decoded (bytes): a 200x200 picture of 31 colours is 25 kB.
MAX_PAYLOAD = 1 << 20
_MAX_NAME_BYTES = 160


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _bits(n: int) -> int:
    """Bits per cell for ``n`` colours."""
    return max(1, (n - 1).bit_length())


def encode_colour_code(puzzle: Puzzle, *, picture: bool = True) -> str:
    """The share code of a colour puzzle (module docstring).

    Parameters
    ----------
    puzzle : Puzzle
        A colour puzzle.
    picture : bool
        Hold the picture (``puzzle.goal``, needed) rather than the clues; the clues are derived
        from it when the code is read.

    Raises
    ------
    ValueError
        Not a colour puzzle, or ``picture`` without a goal.
    """
    palette = puzzle.palette
    if palette is None or puzzle.row_colours is None or puzzle.col_colours is None:
        raise ValueError("the colour share code is for colour puzzles")
    out = bytearray(_varint(puzzle.width) + _varint(puzzle.height))
    out.append(len(palette))
    for colour in palette.colours:
        name = colour.name.encode("utf-8")[:_MAX_NAME_BYTES]
        out += bytes(colour.rgb) + _varint(len(name)) + name
    if picture:
        if puzzle.goal is None:
            raise ValueError("the puzzle has no picture")
        out.append(1)
        bits = _bits(len(palette))
        cells = np.asarray(puzzle.goal, dtype=np.uint8).ravel()
        unpacked = ((cells[:, None] >> np.arange(bits - 1, -1, -1)) & 1).astype(np.uint8)
        out += np.packbits(unpacked.ravel()).tobytes()
    else:
        out.append(0)
        for clues, colours in ((puzzle.rows, puzzle.row_colours),
                               (puzzle.cols, puzzle.col_colours)):
            for clue, cols in zip(clues, colours, strict=True):
                if clue is None or cols is None:
                    out += _varint(0)
                    continue
                out += _varint(len(clue) + 1)
                for length, k in zip(clue, cols, strict=True):
                    out += _varint(length)
                    out.append(k)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = packer.compress(bytes(out)) + packer.flush()
    return PREFIX + base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise PuzzleError("colour code: the code is cut short")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        value = shift = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise PuzzleError("colour code: a number is too large")

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise PuzzleError("colour code: the code is cut short")
        self.pos += n
        return self.data[self.pos - n:self.pos]


def decode_colour_code(code: str) -> Puzzle:
    """The colour puzzle of a share code (:func:`encode_colour_code`).

    Raises
    ------
    PuzzleError
        Not a code of this kind, damaged, or a puzzle that is not valid (one line each).
    """
    from nonosat.studio.schemas import INDEX_CHARS, MAX_SIDE

    code = code.strip()
    if not code.startswith(PREFIX):
        raise PuzzleError(f"colour code: it must start with {PREFIX!r}")
    body = code[len(PREFIX):]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        unpacker = zlib.decompressobj(-15)
        data = unpacker.decompress(raw, MAX_PAYLOAD + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise PuzzleError("colour code: damaged (not valid base64url and DEFLATE data)") from None
    if len(data) > MAX_PAYLOAD or unpacker.unconsumed_tail:
        raise PuzzleError("colour code: too large")
    r = _Reader(data)
    width, height = r.varint(), r.varint()
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise PuzzleError(f"colour code: the size {width}x{height} is not 1 to {MAX_SIDE} cells")
    n = r.byte()
    if not 2 <= n <= len(INDEX_CHARS):
        raise PuzzleError(f"colour code: {n} colours (2 to {len(INDEX_CHARS)} allowed)")
    colours = []
    for k in range(n):
        red, green, blue = r.take(3)
        rgb = (red, green, blue)
        size = r.varint()
        if size > _MAX_NAME_BYTES:
            raise PuzzleError("colour code: a colour name is too long")
        try:
            name = r.take(size).decode("utf-8")
        except UnicodeDecodeError:
            raise PuzzleError("colour code: a colour name is not UTF-8") from None
        if not name.strip() or not name.isprintable():
            raise PuzzleError(f"colour code: colour {k} has no printable name")
        colours.append(Colour(name, rgb, INDEX_CHARS[k]))
    palette = Palette(tuple(colours))
    kind = r.byte()
    if kind == 1:
        bits = _bits(n)
        nbytes = (width * height * bits + 7) // 8
        packed = np.frombuffer(r.take(nbytes), dtype=np.uint8)
        unpacked = np.unpackbits(packed)[:width * height * bits].reshape(-1, bits)
        cells = (unpacked.astype(np.int64) << np.arange(bits - 1, -1, -1)).sum(axis=1)
        if (cells >= n).any():
            raise PuzzleError("colour code: a cell has a colour outside the palette")
        puzzle = Puzzle.from_picture(cells.reshape(height, width).astype(np.int8),
                                     palette=palette)
    elif kind == 0:
        lines: list[tuple[int, ...] | None] = []
        line_colours: list[tuple[int, ...] | None] = []
        for i in range(height + width):
            count = r.varint()
            if count == 0:
                lines.append(None)
                line_colours.append(None)
                continue
            if count - 1 > MAX_SIDE:
                raise PuzzleError(f"colour code: line {i + 1} has too many blocks")
            pairs = [(r.varint(), r.byte()) for _ in range(count - 1)]
            if any(not 1 <= k < n or length < 1 for length, k in pairs):
                raise PuzzleError(f"colour code: line {i + 1} has a bad block")
            lines.append(tuple(p[0] for p in pairs))
            line_colours.append(tuple(p[1] for p in pairs))
        puzzle = Puzzle(rows=tuple(lines[:height]), cols=tuple(lines[height:]),
                        row_colours=tuple(line_colours[:height]),
                        col_colours=tuple(line_colours[height:]), palette=palette)
    else:
        raise PuzzleError("colour code: unknown content kind")
    if r.pos != len(data):
        raise PuzzleError("colour code: unexpected bytes at the end")
    return puzzle
