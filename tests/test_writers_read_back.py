"""Issue 25 item 2: every file nonosat writes, it reads back.

Each writable format of the registry (``nonosat formats``) writes puzzles whose title, author,
copyright, licence and colour names are hostile text (controls, line breaks, quotes, markup,
bidirectional overrides, non-ASCII), drawn by hypothesis.  The writer either refuses with one
clean line (:class:`~nonosat.errors.FormatError`) or writes a file that reads back to the same
clues, the same colours and, for each piece of text the format holds, the same text (line breaks
and TABs in the one-line text formats become one space: :func:`nonosat.formats.one_line_text`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nonosat.errors import FormatError
from nonosat.formats import formats, one_line_text
from nonosat.puzzle import Colour, Palette, Puzzle

#: Pieces a hostile file may carry, besides what hypothesis draws.
NASTY = ["\x1b]0;pwned\x07", "\x1b[2J", "a\rb", "a\bb", "\u202eevil", "\x9b", "x\n<y/>",
         'say "hi" & <b>', "&amp; &#27;", "\x00", "\x0b\x0c", "\u2028", "\x85", " pad ", "\t",
         "\ud7ff\ue000\ufffd", "a,b;c|d", "#1", "$2", "GRID x", "width 9", "]]>", "'", "\\"]

TEXT = st.one_of(
    st.sampled_from(NASTY),
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8),
    st.lists(st.sampled_from(NASTY + ["a", " ", "é"]), min_size=1, max_size=4).map("".join),
)
MAYBE = st.one_of(st.none(), TEXT)

PICTURE = np.array([[0, 0, 1, 0, 0], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0],
                    [1, 0, 0, 0, 1]], dtype=bool)
COLOUR_PICTURE = np.array([[0, 0, 1, 0, 0], [0, 1, 2, 1, 0], [2, 2, 2, 2, 2], [0, 1, 0, 1, 0],
                           [1, 0, 0, 0, 2]])

WRITABLE = sorted(name for name, f in formats().items() if f.write is not None)


def _puzzle(colour: bool, texts: dict, names: list[str]) -> Puzzle:
    if colour:
        palette = Palette((Colour(names[0], (255, 255, 255), "."),
                           Colour(names[1], (220, 30, 30), "r"),
                           Colour(names[2], (20, 20, 20), "k")))
        base = Puzzle.from_picture(COLOUR_PICTURE, palette=palette)
    else:
        base = Puzzle.from_picture(PICTURE)
    return replace(base, goal=base.goal, **texts)


def _holds(fmt, field: str, colour: bool) -> bool:
    """Whether ``fmt`` keeps ``field`` at all (a plain value written is read back)."""
    texts = {"title": "Plain title", "author": "Plain author", "copyright": "Plain c",
             "license": "CC0-1.0"}
    puzzle = _puzzle(colour, texts, ["white", "red", "black"])
    (back,) = fmt.read(fmt.write(puzzle), "x")
    if field == "names":
        return back.palette is not None and [c.name for c in back.palette.colours] == [
            "white", "red", "black"]
    return getattr(back, field) == texts[field]


def _same_text(back: str | None, value: str | None, words: bool = False) -> bool:
    """Whether ``back`` is ``value`` as written: exactly, without white space at its ends (the
    readers strip it), or made one line (:func:`one_line_text`; a colour name, ``words``, made
    words separated by single spaces); a format may fill in a missing (or blank) title of its
    own ("Puzzle 1")."""
    if value is None or not value.replace("\x00", " ").strip():
        return True
    one_line = one_line_text(value)
    made = (value, value.strip(), one_line, one_line.strip())
    return back in made or (words and back == " ".join(value.replace("\x00", " ").split()))


@pytest.mark.parametrize("name", WRITABLE)
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(title=MAYBE, author=MAYBE, copyright=MAYBE, license=MAYBE,
       names=st.lists(TEXT, min_size=3, max_size=3, unique=True), colour=st.booleans())
@example(title="\x1b]0;pwned\x07 a\rb", author="x\n<y/>", copyright=None, license=None,
         names=["white", "r\x1bed", "bl\nack"], colour=True)
def test_every_writer_refuses_or_writes_what_it_reads_back(name, title, author, copyright,
                                                           license, names, colour):
    fmt = formats()[name]
    if colour and not fmt.colour:
        return
    texts = {"title": title, "author": author, "copyright": copyright, "license": license}
    puzzle = _puzzle(colour, texts, names)
    try:
        data = fmt.write(puzzle)
    except FormatError as exc:
        assert "\n" not in str(exc) and str(exc).isprintable(), str(exc)
        return
    (back,) = fmt.read(data, f"written.{name}")
    assert back.rows == puzzle.rows and back.cols == puzzle.cols
    if colour:
        assert back.line_colours == puzzle.line_colours
        assert [c.rgb for c in back.palette.colours] == [c.rgb for c in puzzle.palette.colours]
        if _holds(fmt, "names", colour):
            for got, sent in zip(back.palette.colours, names, strict=True):
                assert _same_text(got.name, sent, words=True), (got.name, sent, data[:300])
    for field, value in texts.items():
        if _holds(fmt, field, colour):
            assert _same_text(getattr(back, field), value), (field, value, data[:300])


def test_xml_and_json_keep_line_breaks_and_markup_exactly_and_line_formats_make_one_line():
    text = 'Two\r\nlines & <b>"quoted"</b>'
    puzzle = _puzzle(True, {"title": text, "author": "a\tb"}, ["white", "re\rd", "black"])
    for name in ("webpbn", "json"):
        fmt = formats()[name]
        (back,) = fmt.read(fmt.write(puzzle), "x")
        assert (back.title, back.author) == (text, "a\tb")
        assert back.palette.colours[1].name == "re\rd"
    fmt = formats()["non"]
    (back,) = fmt.read(fmt.write(puzzle), "x")
    assert (back.title, back.author) == ('Two lines & <b>"quoted"</b>', "a b")
    assert back.palette.colours[1].name == "re d"


@pytest.mark.parametrize("name, words", [
    ("webpbn", "XML 1.0 cannot hold"),
    ("non", "could not tell them apart"),
])
def test_a_writer_refuses_what_it_cannot_hold_in_one_line(name, words):
    puzzle = _puzzle(True, {"title": "bell \x07"}, ["white", "dark  red", "dark\nred"])
    with pytest.raises(FormatError, match=words) as exc:
        formats()[name].write(puzzle)
    assert str(exc.value).isprintable()
