"""Malformed files give one clear FormatError naming the file, the line and what was expected;
on the command line, one line on stderr and exit code 2 -- never a traceback or a hang."""

from __future__ import annotations

import os
import time

import pytest
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.errors import FormatError
from nonosat.formats import formats, read_puzzles

DANCER_NON = """title "Dancer"
width 5
height 10

rows
2
2,1
1,1
3
1,1
1,1
2
1,1
1,2
2

columns
2,1
2,1,3
7
1,3
2,1
"""

# (file name, content, regex the message must match, 1-based line or None)
CASES = [
    # .nin
    ("a.nin", "5 x\n", r"expected the header 'WIDTH HEIGHT', found 'x'", 1),
    ("a.nin", "2 2\n1\nq\n1\n1\n", r"expected block lengths \(whole numbers\), found 'q'", 3),
    (
        "a.nin",
        "2 2\n1\n1\n1\n",
        r"file ends after 3 clue lines; expected 2 row clues and 2 column",
        5,
    ),
    ("a.nin", "2 2\n3\n1\n1\n1\n", r"row 1: clue 3 needs 3 cells but the row has 2", 2),
    ("a.nin", "2 2\n1\n1\n2\n1\n", r"row clues fill 2 cells but column clues fill 3", None),
    (
        "a.nin",
        "2 2\n1\n1\n2\n1\n1\n",
        r"unexpected line after the 2 row and 2 column clues .* do not make a puzzle",
        6,
    ),
    ("a.nin", "2 2\n1\n-1\n1\n1\n", r"found '-1'", 3),
    ("a.nin", "0 2\n", r"width must be at least 1", 1),
    ("a.nin", "99999999 2\n", r"too large", 1),
    # .non
    (
        "a.non",
        DANCER_NON.replace("1,3\n", "1,x\n"),
        r"expected block lengths separated by commas.*'x'",
        19,
    ),
    (
        "a.non",
        DANCER_NON.replace("width 5", "width 4"),
        r"unexpected clue line '2,1': more clue lines than 'width' and 'height' announce",
        22,
    ),
    (
        "a.non",
        DANCER_NON.replace("height 10", "height 12"),
        r"expected 12 rows clues after 'rows' on line 5, found 11 before 'columns'",
        17,
    ),
    ("a.non", DANCER_NON.replace("width 5\n", ""), r"'columns' comes before 'width'", 16),
    ("a.non", DANCER_NON.split("columns")[0], r"no 'columns' line", None),
    ("a.non", DANCER_NON + 'goal "0101"\n', r"goal has 4 cells; expected width x height = 50", 23),
    (
        "a.non",
        DANCER_NON.replace("2,1,3", "2a,1b,3a"),
        r"block '2a' uses colour 'a', which no 'color a #rrggbb' line declares",
        DANCER_NON.split("2,1,3")[0].count("\n") + 1,
    ),
    (
        "a.non",
        DANCER_NON.replace("1,2\n", "5,1\n"),
        r"row 9: clue 5 1 needs 7 cells but the row has 5",
        14,
    ),
    ("a.non", "width 5\nheight 10\nrows\n1\n", r"file ends after 1 of the 10 rows clues", 5),
    # davidje13 JSON
    (
        "a.json",
        '{"rows": [[1], [1]],\n "cols": [[1] [1]]}',
        r"invalid JSON: Expecting ',' delimiter",
        2,
    ),
    ("a.json", '{"rows": [[1]]}', r'no "cols" list', None),
    (
        "a.json",
        '{"rows": [\n[1],\n["a"]\n], "cols": [[1], [1]]}',
        r'row 2: expected a list of whole numbers or null, found \["a"\]',
        3,
    ),
    (
        "a.json",
        '{"rows": [\n[1],\n[3]\n],\n"cols": [[1], [1]]}',
        r"row 2: clue 3 needs 3 cells but the row has 2",
        3,
    ),
    ("a.json", "[1, 2]", r"expected a JSON object", 1),
    # tournament
    ("a.txt", "$1\n1\n1\n1\n", r"puzzle \$1 has 3 clue lines; expected an even number", 5),
    ("a.txt", "$1\n1\n1\n1\n1\n$x\n", r"expected a puzzle header like '\$12', found '\$x'", 6),
    (
        "a.txt",
        "$1\n1\n1\n1\n1\n$1\n1\n1\n1\n1\n",
        r"puzzle \$1 appears twice \(first on line 1\)",
        6,
    ),
    ("a.txt", "$1\n1\t1\n1\n1\n1\n", r"column 1: clue 1 1 needs 3 cells but the column has 2", 2),
    ("a.txt", "$1\n1\n1\ny\n1\n", r"expected block lengths separated by TABs, found 'y'", 4),
    # webpbn XML
    (
        "a.xml",
        "<puzzleset><puzzle>\n<clues type='rows'><line><count>1</line></clues>",
        r"invalid XML: mismatched tag",
        2,
    ),
    (
        "a.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY e "x">]>\n<puzzleset/>',
        r"refused XML: EntitiesForbidden",
        None,
    ),
    (
        "a.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<puzzleset>&e;</puzzleset>',
        r"refused XML",
        None,
    ),
    (
        "a.xml",
        "<puzzleset><puzzle type='grid'>\n<clues type='rows'><line><count>1</count></line></clues>\n<clues type='columns'><line>\n<count>one</count></line></clues></puzzle></puzzleset>",
        r"expected a whole number in <count>, found 'one'",
        4,
    ),
    (
        "a.xml",
        "<puzzleset><puzzle type='grid'><clues type='rows'><line><count>1</count></line></clues></puzzle></puzzleset>",
        r'the puzzle has no <clues type="columns">',
        1,
    ),
    ("a.xml", "<puzzleset/>", r"no <puzzle> in the <puzzleset>", 1),
    ("a.xml", "<html><body/></html>", r"expected <puzzleset> or <puzzle>, found <html>", 1),
    # CSV of short codes
    (
        "a.csv",
        "name,rules\nA,RrW8eI3iI3\nB,Rr!!\n",
        r"bad short code: '!' is not a base64url digit",
        3,
    ),
    ("a.csv", "name,code\nA,RrW8eI3iI3\n", r"expected a header line naming the columns", 1),
    # .cwd, .mk, .g, picross-solver
    (
        "a.cwd",
        "2\n2\n1\n1\n\n1\n",
        r"found 3 clue lines; expected 2 row clues and 2 column clues",
        None,
    ),
    ("a.cwd", "2\nw\n", r"expected the width \(a whole number\), found 'w'", 2),
    ("a.mk", "2 2\n1\n1\n1\n1\n", r"no '#' line between the row clues and the column clues", None),
    ("a.mk", "2 2\n1\n1\n1\n#\n1\n1\n", r"found 3 row clue lines; the header announces 2", 5),
    (
        "a.g",
        ": rows\n1\n1\n: columns\n1\n1z\n",
        r"block '1z' uses colour 'z', which the palette does not define",
        6,
    ),
    (
        "a.g",
        "#d\n 0: #FFFFFF white\n a:a #FF0000 red\n b:b #00FF00 green\n: rows\n1a 1a\n1b\n: columns\n1b\n1a\n",
        r"row 1: clue 1a 1a needs 3 cells but the row has 2",
        6,
    ),
    ("a.g", "#t\n: rows\n", r"triddler", 1),
    ("a.g", "1 2\n", r"expected a ': rows' section and a ': columns' section", None),
    ("b.txt", "GRID x\nROWS\n[ 1 ]\nCOLUMNS\n[ 1 \n", r"expected a clue like '\[ 2 1 \]'", 5),
    ("b.txt", "GRID x\nROWS\n[ 1 ]\nCOLUMNS\nfoo\n", r"expected GRID, ROWS, COLUMNS", 5),
    ("b.txt", "GRID x\nROWS\n[ 1 ]\n", r"grid 'x' has no COLUMNS", 1),
    # pictures
    ("c.grid", "#.#\n#?#\n", r"column 2: expected a cell .* found '\?'", 2),
    ("c.pbm", "P1\n3 3\n1 0\n", r"unreadable image|not an image", None),
    ("c.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", r"binary data|unreadable image", None),
]


@pytest.mark.parametrize(("name", "content", "message", "line"), CASES)
def test_malformed_files_name_file_line_and_what_was_expected(
    tmp_path, name, content, message, line
):
    path = tmp_path / name
    path.write_bytes(content.encode("latin-1") if name.endswith(".png") else content.encode())
    with pytest.raises(FormatError, match=message) as info:
        read_puzzles(path)
    assert info.value.path == str(path)
    assert info.value.line == line, str(info.value)
    assert str(info.value).startswith(f"{path}:{line}:" if line else f"{path}:")


def test_junk_after_a_complete_nin_puzzle_is_ignored_and_noted(tmp_path):
    """Archived .nin files sometimes carry junk after a consistent puzzle (jwilk data142)."""
    path = tmp_path / "a.nin"
    path.write_text("2 2\n1\n1\n1\n1\n9 9 9\n")
    (puzzle,) = read_puzzles(path)
    assert puzzle.rows == ((1,), (1,)) and puzzle.meta["ignored_from_line"] == 6


@pytest.mark.parametrize("fmt", sorted(formats()))
def test_empty_files_are_refused_in_every_format(tmp_path, fmt):
    path = tmp_path / "empty.dat"
    path.write_bytes(b"\n  \n")
    with pytest.raises(FormatError, match=r"empty|not an image|no puzzle|PBM"):
        read_puzzles(path, fmt)


@pytest.mark.parametrize("fmt", sorted(formats()))
def test_binary_junk_is_refused_in_every_format(tmp_path, fmt):
    path = tmp_path / "junk.dat"
    path.write_bytes(os.urandom(4096) + b"\x00\xff")
    with pytest.raises(FormatError) as info:
        read_puzzles(path, fmt)
    assert info.value.path == str(path)


def test_unknown_content_without_a_known_suffix_is_refused(tmp_path):
    path = tmp_path / "mystery"
    path.write_text("hello world\n")
    with pytest.raises(FormatError, match="cannot tell the puzzle format"):
        read_puzzles(path)


@pytest.mark.parametrize("suffix", [".non", ".txt", ".xml", ".json", ""])
def test_fifty_megabytes_of_garbage_fail_fast(tmp_path, suffix):
    path = tmp_path / f"garbage{suffix}"
    text = suffix in (".txt", "")
    chunk = (b"lorem ipsum 12 dolor 7 sit\n" * 40000) if text else os.urandom(1 << 20)
    with path.open("wb") as f:
        for _ in range(50 * (1 << 20) // len(chunk)):
            f.write(chunk)
    start = time.perf_counter()
    with pytest.raises(FormatError):
        read_puzzles(path)
    assert time.perf_counter() - start < 15


def test_files_larger_than_the_limit_are_refused_before_reading(tmp_path):
    path = tmp_path / "huge.non"
    with path.open("wb") as f:
        f.truncate(65 * (1 << 20))  # sparse
    with pytest.raises(FormatError, match="larger than [0-9]+ bytes .*NONOSAT_MAX_FILE_BYTES"):
        read_puzzles(path)


def test_cli_turns_a_malformed_file_into_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.nin"
    bad.write_text("2 2\n1\nq\n1\n1\n")
    runner = CliRunner()
    for args in (
        ["convert", str(bad), str(tmp_path / "out.non")],
        ["render", str(bad)],
        ["render", str(bad), "--out", str(tmp_path / "x.svg")],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert (
            result.stderr.strip()
            == f"nonosat: error: {bad}:3: expected block lengths (whole numbers), found 'q'"
        )
        assert "Traceback" not in result.output
    assert not (tmp_path / "out.non").exists()


def test_cli_reports_a_missing_file_and_a_directory(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["convert", str(tmp_path / "nope.non"), str(tmp_path / "o.nin")])
    assert result.exit_code == 2 and "No such file" in result.stderr
    result = runner.invoke(app, ["convert", str(tmp_path), str(tmp_path / "o.nin")])
    assert result.exit_code == 2 and "is a directory" in result.stderr
