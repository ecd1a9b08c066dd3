"""Colour puzzles through every colour format (read -> write -> read), the goal image kept; a
colour puzzle written to a black-and-white-only format is a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from nonosat.errors import FormatError
from nonosat.formats import encode_puzzles, formats, get_format, read_puzzles
from tests.test_colour import _readable, colour_corpus

COLOUR_FORMATS = ("webpbn", "non", "olsak", "json")
GOAL_FORMATS = ("webpbn", "non", "json")


def _colour_puzzles():
    return [p for f in colour_corpus() for p in _readable(f) if p.is_colour]


def test_the_colour_formats_are_marked():
    assert {f.name for f in formats().values() if f.colour} == set(COLOUR_FORMATS)


@pytest.mark.parametrize("name", COLOUR_FORMATS)
def test_every_corpus_colour_puzzle_round_trips(name):
    fmt = get_format(name)
    for puzzle in _colour_puzzles():
        data = fmt.write(puzzle)
        (back,) = fmt.read(data, f"<{name}>")
        assert back.is_colour
        assert back.rows == puzzle.rows and back.cols == puzzle.cols
        assert back.row_colours == puzzle.row_colours and back.col_colours == puzzle.col_colours
        assert [c.rgb for c in back.palette.colours] == [c.rgb for c in puzzle.palette.colours]
        assert back.fingerprint() == puzzle.fingerprint()
        if name in GOAL_FORMATS and puzzle.goal is not None:
            assert np.array_equal(back.goal, puzzle.goal)


def test_formats_command_says_which_formats_hold_colour():
    import json

    from typer.testing import CliRunner

    from nonosat.cli.app import app

    listed = json.loads(CliRunner().invoke(app, ["formats", "--json"]).stdout)["formats"]
    assert {f["name"] for f in listed if f["colour"]} == set(COLOUR_FORMATS)


def test_convert_colour_between_formats_and_refuse_bw_only(tmp_path):
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    runner = CliRunner()
    src = str(colour_corpus()[0])  # acorn.g
    out = tmp_path / "acorn.xml"
    assert runner.invoke(app, ["convert", src, str(out)]).exit_code == 0
    assert read_puzzles(out)[0].fingerprint() == read_puzzles(src)[0].fingerprint()
    bad = runner.invoke(app, ["convert", src, str(tmp_path / "acorn.nin")])
    assert bad.exit_code == 2
    assert "colour puzzle" in bad.output and "black-and-white puzzles only" in bad.output
    assert "Traceback" not in bad.output and not (tmp_path / "acorn.nin").exists()


def test_colour_to_a_black_and_white_format_is_a_clear_error():
    puzzle = _colour_puzzles()[0]
    bw_only = [f for f in formats().values() if f.write is not None and not f.colour]
    assert {"short", "nin", "tournament", "mk"} <= {f.name for f in bw_only}
    for fmt in bw_only:
        with pytest.raises(FormatError, match="colour puzzle .* black-and-white puzzles only"):
            encode_puzzles([puzzle], fmt, "out.x")


def test_non_colour_extension_reads_declared_letters(tmp_path):
    text = (
        "width 3\nheight 1\ncolor a #ff0000 red\ncolor b #0000ff blue\n"
        "rows\n2a,1b\ncolumns\n1a\n1a\n1b\ngoal \"aab\"\n"
    )
    path = tmp_path / "t.non"
    path.write_text(text)
    (p,) = read_puzzles(path)
    assert p.is_colour and [c.name for c in p.palette.colours][1:] == ["red", "blue"]
    assert p.row_colours == ((1, 2),) and p.goal.tolist() == [[1, 1, 2]]


def test_colour_errors_name_file_and_line(tmp_path):
    path = tmp_path / "bad.non"
    path.write_text("width 2\nheight 1\ncolor a #ff0000\ncolor b #00ff00\nrows\n1a,1a\ncolumns\n1a\n1b\n")
    with pytest.raises(FormatError, match=r"bad.non:6: row 1: clue 1a 1a needs 3 cells"):
        read_puzzles(path)
    path = tmp_path / "bad.json"
    path.write_text('{"palette": [{"name": "w", "rgb": "#fff"}, {"name": "r", "rgb": "#f00"}],\n'
                    '"rows": [\n[[1, "q"]]\n],\n"cols": [[[1, "r"]]]}')
    with pytest.raises(FormatError, match=r"bad.json:3: row 1: expected a list of"):
        read_puzzles(path)


def test_palette_characters_are_made_distinct():
    text = b"""<?xml version="1.0"?>
<puzzleset><puzzle type="grid" defaultcolor="blue">
<color name="white" char=".">FFFFFF</color>
<color name="blue">0000FF</color><color name="black">000000</color>
<clues type="columns"><line><count color="blue">1</count></line>
<line><count color="black">1</count></line></clues>
<clues type="rows"><line><count color="blue">1</count><count color="black">1</count></line></clues>
</puzzle></puzzleset>"""
    (p,) = get_format("webpbn").read(text, "t.xml")
    chars = p.palette.chars
    assert len(set(chars)) == len(chars) == 3
