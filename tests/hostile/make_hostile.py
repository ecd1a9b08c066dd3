"""Write the hostile files of this directory (issue 17).  Every file is made here, by the
project, from nothing but this script; run it to regenerate them (the output is deterministic):

    .venv/bin/python tests/hostile/make_hostile.py

README.md lists each file and what it attacks.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: A 5 x 5 puzzle of our own (a plus sign), as the base of several files.
PLUS_ROWS = ["1", "1", "5", "1", "1"]
PLUS_COLS = ["1", "1", "5", "1", "1"]


#: Window-title escape (OSC 0 ... BEL), clear screen, carriage return, backspace, a bell, a
#: right-to-left override and a C1 control (CSI): nothing a title may do to a terminal.
CONTROLS = "\x1b]0;pwned\x07\x1b[2JA\rB\bC\x07\u202eD\x9b1m"
#: The same in a colour name (one word: a .non colour line ends at white space).
CONTROL_NAME = "r\x1b]0;pwned\x07e\bd\u202e"


def _non(extra_header: str = "", goal: str | None = None, rows=PLUS_ROWS, colours: str = "") -> str:
    text = f'title "Plus"\n{extra_header}width 5\nheight 5\n{colours}\nrows\n'
    text += "\n".join(rows) + "\n\ncolumns\n" + "\n".join(PLUS_COLS) + "\n"
    if goal is not None:
        text += f'\ngoal "{goal}"\n'
    return text


def _png(width: int, height: int, rows: int) -> bytes:
    """A 1-bit greyscale PNG whose header says ``width x height`` but holds ``rows`` rows."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * (((width + 7) // 8 + 1) * rows), 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)
            + chunk(b"IEND", b""))


def files() -> dict[str, bytes]:
    """Every hostile file: name -> bytes."""
    deep = 10_000
    out: dict[str, str | bytes] = {
        # item 1: results files that are not nonosat results files
        "notes-one-line.txt": "remember the milk",  # no trailing newline
        "heart.short": "R7u58r_9f-_3-fXjU7-_z-_3-H9_v8_fvz",  # games/heart.non, no newline
        # item 4: tracebacks
        "big-int.json": '{"rows": [[' + "9" * 5000 + '], [1]], "cols": [[1], [1]]}\n',
        "ebcdic.xml": '<?xml version="1.0" encoding="ebcdic-xx"?>\n<puzzleset><puzzle type="grid">'
                      "</puzzle></puzzleset>\n",
        "deep.json": "[" * deep + "]" * deep + "\n",
        "deep-certificate.json": '{"format": "nonosat-certificate", "verdict": "unique", "x": '
                                 + "[" * deep + "]" * deep + "}\n",
        "deep.xml": '<?xml version="1.0"?>\n<puzzleset>' + "<a>" * deep + "</a>" * deep
                    + "</puzzleset>\n",
        # item 5: giant sizes announced by small files
        "huge-header.non": "width 100000\nheight 100000\nrows\n1\ncolumns\n1\n",
        "huge-header.nin": "100000 100000\n1\n1\n",
        "huge-header.mk": "100000 100000\n1\n#\n1\n",
        "huge-header.cwd": "100000\n100000\n1\n\n1\n",
        "huge-header.pbm": "P1\n100000 100000\n0 1 0\n",
        "huge-header.png": _png(100_000, 100_000, 1),
        "wide.png": _png(100_000, 2, 2),
        "giant-clue.nin": "5 5\n99999999999\n1\n5\n1\n1\n1\n1\n5\n1\n1\n",
        # item 11: not an image nonosat reads, under an image suffix
        "postscript.png": "%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n"
                          "0 0 moveto 10 10 lineto stroke\nshowpage\n",
        "postscript.gif": "%!PS-Adobe-3.0\nshowpage\n",
        "truncated.png": _png(5, 5, 5)[:40],
        # item 12: minor parsing
        "bom-tournament.txt": "\ufeff$1\n1\n1\n5\n1\n1\n1\n1\n5\n1\n1\n",
        "bad-goal.non": _non(goal="00x0000100111110010000100"),
        "undefined-colour.non": _non(rows=["1r", "1r", "5z", "1r", "1r"],
                                     colours="color 0 #ffffff white\ncolor r #ff0000 red\n"),
        "duplicate-width.non": _non(extra_header="width 7\n"),
        # general junk
        "truncated.xml": '<?xml version="1.0"?>\n<puzzleset><puzzle type="grid"><clues type="col',
        "latin1.non": _non().replace("Plus", "Pl\xfcs").encode("latin-1"),
        "nul-bytes.nin": b"5 5\n1\x00\n1\n5\n1\n1\n1\n1\n5\n1\n1\n",
        "entities.xml": '<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY a "aaaaaaaaaa">'
                        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<puzzleset>&b;</puzzleset>\n',
        "external-entity.xml": '<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY e SYSTEM '
                               '"file:///etc/passwd">]>\n<puzzleset>&e;</puzzleset>\n',
        "utf16.non": _non().encode("utf-16"),
        "negative.json": '{"rows": [[-1], [1]], "cols": [[1], [1]]}\n',
        "float.json": '{"rows": [[1e999], [1]], "cols": [[1], [1]]}\n',
        "escape-in-title.non": _non().replace("Plus", "\x1b[31mred\x1b[0m"),
        # issue 25: terminal controls in every piece of text a file carries
        "control-text.non": _non(extra_header=f'by "{CONTROLS}"\n').replace("Plus", CONTROLS),
        "control-colours.non": _non(
            rows=["1r", "1r", "5k", "1r", "1r"],
            colours=f"color 0 #ffffff white\ncolor r #ff0000 {CONTROL_NAME}\n"
                    "color k #000000 black\n",
        ).replace("Plus", CONTROLS).replace('columns\n1\n1\n5', 'columns\n1k\n1k\n2r,1k,2r')
        .replace("columns\n1k\n1k\n2r,1k,2r\n1\n1", "columns\n1k\n1k\n2r,1k,2r\n1k\n1k"),
    }
    return {name: data.encode("utf-8") if isinstance(data, str) else data
            for name, data in out.items()}


def main() -> None:
    """Write every file of :func:`files` beside this script."""
    for name, data in files().items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
