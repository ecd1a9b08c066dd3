"""Issue 25 item 3: one rule for duplicate colour names in every reader.  A colour name (or,
in .non and Olšák .g files, which declare colours by character, a character) declared a second
time is refused with one line naming the file and the line of the second declaration -- never
silently replaced, merged or renamed."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from nonosat.errors import FormatError
from nonosat.formats import read_puzzle

NON = """title "Two reds"
width 3
height 1
{colours}
rows
1a,1b

columns
1a
0
1b
"""
G = """#d
   0:   #FFFFFF   white
{colours}
: rows
1a 1b
: columns
1a

1b
"""
JSON = """{{"palette": [
  {{"name": "white", "rgb": "#ffffff", "char": "."}},
  {{"name": "{a}", "rgb": "#ff0000", "char": "a"}},
  {{"name": "{b}", "rgb": "#00ff00", "char": "b"}}
 ],
 "rows": [[[1, "{a}"], [1, "{b}"]]],
 "cols": [[[1, "{a}"]], [], [[1, "{b}"]]]}}
"""
XML = """<?xml version="1.0"?>
<puzzleset><puzzle type="grid" defaultcolor="{a}">
<color name="white" char=".">FFFFFF</color>
<color name="{a}" char="a">FF0000</color>
<color name="{b}" char="b">00FF00</color>
<clues type="columns"><line><count color="{a}">1</count></line><line></line>
<line><count color="{b}">1</count></line></clues>
<clues type="rows"><line><count color="{a}">1</count><count color="{b}">1</count></line></clues>
</puzzle></puzzleset>
"""

CASES = {
    # name: (suffix, text, line of the second declaration, what is repeated)
    "non-name": (".non", NON.format(colours="color a #ff0000 red\ncolor b #00ff00 red\n"), 5,
                 'colour "red"'),
    "non-char": (".non", NON.format(colours="color a #ff0000 red\ncolor a #00ff00 green\n"
                                            "color b #0000ff blue\n"), 5, 'character "a"'),
    "g-name": (".g", G.format(colours="   a:a  #FF0000   red\n   b:b  #00FF00   red"), 4,
               'colour "red"'),
    "g-char": (".g", G.format(colours="   a:a  #FF0000   red\n   a:a  #00FF00   green\n"
                                      "   b:b  #0000FF   blue"), 4, 'character "a"'),
    "json-name": (".json", JSON.format(a="red", b="red"), 4, 'colour "red"'),
    "xml-name": (".xml", XML.format(a="red", b="red"), 5, 'colour "red"'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_repeated_colour_is_refused_naming_the_file_and_line(tmp_path, case):
    suffix, text, line, what = CASES[case]
    path = tmp_path / f"{case}{suffix}"
    path.write_text(text)
    with pytest.raises(FormatError) as exc:
        read_puzzle(path)
    message = str(exc.value)
    assert message.startswith(f"{path}:{line}: ") and "declared twice" in message, message
    assert what in message and "\n" not in message


@pytest.mark.parametrize("suffix, text", [
    (".non", NON.format(colours="color a #ff0000 red\ncolor b #00ff00 green\n")),
    (".g", G.format(colours="   a:a  #FF0000   red\n   b:b  #00FF00   green")),
    (".json", JSON.format(a="red", b="green")),
    (".xml", XML.format(a="red", b="green")),
])
def test_distinct_colours_read_in_every_reader(tmp_path, suffix, text):
    path = tmp_path / f"ok{suffix}"
    path.write_text(text)
    puzzle = read_puzzle(path)
    assert [c.name for c in puzzle.palette.colours][1:] == ["red", "green"]
    assert puzzle.rows == ((1, 1),)


def test_the_cli_refuses_a_repeated_colour_with_exit_2_and_one_line(tmp_path):
    from nonosat.cli.app import app

    path = tmp_path / "dup.xml"
    path.write_text(XML.format(a="red", b="red"))
    result = CliRunner().invoke(app, ["solve", str(path)])
    assert result.exit_code == 2
    err = result.stderr.strip()
    assert re.fullmatch(r"nonosat: error: .*dup\.xml:5: colour \"red\" is declared twice.*", err)
