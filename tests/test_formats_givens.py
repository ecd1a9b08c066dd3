"""Givens (cells known from the start) in the formats that hold them: webpbn XML's partial
``<solution type="saved">`` and the JSON format's ``"givens"``; other writers leave them out.

Round trips are checked against the grid written, and a saved partial solution as webpbn writes
it (hand-written here, not produced by our writer) is read back."""

from __future__ import annotations

import numpy as np
import pytest

from nonosat.engines import Status, solve
from nonosat.errors import FormatError
from nonosat.formats import encode_puzzles, formats, get_format
from nonosat.formats.givens import givens_of, givens_rows, givens_text, with_givens
from nonosat.puzzle import Cell, Puzzle, grid_from_rows

#: A 2x2 puzzle with two solutions (the diagonals); one given makes it unique.
DIAGONALS = Puzzle(rows=[(1,), (1,)], cols=[(1,), (1,)])
GIVENS = ["#?", "??"]


def _read(name: str, data: bytes) -> Puzzle:
    fmt = get_format(name)
    assert fmt.read is not None
    return fmt.read(data, f"test{fmt.suffixes[0]}")[0]


@pytest.mark.parametrize("name", ["webpbn", "json"])
def test_givens_round_trip(name):
    puzzle = with_givens(DIAGONALS, grid_from_rows(GIVENS, (2, 2)))
    back = _read(name, encode_puzzles([puzzle], get_format(name)))
    assert givens_rows(back) == GIVENS
    assert back == puzzle
    # the givens make the puzzle unique: the solver, started from them, agrees
    assert solve(back, "cpsat", partial=givens_of(back), limit=2).status == Status.UNIQUE
    # a puzzle without givens is written without them and read back without them
    plain = _read(name, encode_puzzles([DIAGONALS], get_format(name)))
    assert givens_of(plain) is None


def test_webpbn_saved_partial_solution_is_read_as_givens():
    xml = b"""<?xml version="1.0"?>
<puzzleset><puzzle type="grid" defaultcolor="black">
<color name="white" char=".">fff</color><color name="black" char="X">000</color>
<clues type="columns"><line><count>1</count></line><line><count>1</count></line></clues>
<clues type="rows"><line><count>1</count></line><line><count>1</count></line></clues>
<solution type="goal"><image>|X.|\n|.X|</image></solution>
<solution type="saved"><image>\n|?.|\n|??|\n</image></solution>
</puzzle></puzzleset>"""
    puzzle = _read("webpbn", xml)
    assert givens_rows(puzzle) == ["?.", "??"]
    assert puzzle.goal is not None and puzzle.goal.tolist() == [[True, False], [False, True]]
    # an all-unknown saved image is no givens
    empty = _read("webpbn", xml.replace(b"|?.|", b"|??|"))
    assert givens_of(empty) is None


def test_bad_givens_name_the_file():
    with pytest.raises(FormatError, match="givens"):
        _read("json", b'{"rows": [[1], [1]], "cols": [[1], [1]], "givens": ["#?"]}')
    with pytest.raises(FormatError, match="givens"):
        _read("json", b'{"rows": [[1], [1]], "cols": [[1], [1]], "givens": ["#?", "?z"]}')
    with pytest.raises(FormatError, match="saved"):
        _read("webpbn", b"""<puzzleset><puzzle type="grid">
<clues type="columns"><line><count>1</count></line><line><count>1</count></line></clues>
<clues type="rows"><line><count>1</count></line><line><count>1</count></line></clues>
<solution type="saved"><image>|?..|\n|??|</image></solution></puzzle></puzzleset>""")


def test_only_webpbn_and_json_store_givens_and_the_state_file_reads_back():
    assert {f.name for f in formats().values() if f.stores_givens} == {"webpbn", "json"}
    puzzle = with_givens(DIAGONALS, grid_from_rows(GIVENS, (2, 2)))
    text = givens_text(puzzle)
    assert text == "#?\n??\n"
    state = grid_from_rows(text.split(), (2, 2))  # what `--state FILE` reads
    assert np.array_equal(state, givens_of(puzzle))
    assert givens_text(DIAGONALS) is None
    assert int((state != Cell.UNKNOWN).sum()) == 1
