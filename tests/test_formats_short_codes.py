"""davidje13 short codes: the published codes decode to the published puzzles and re-encode to
the same strings; random puzzles survive encode -> decode."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.errors import FormatError
from nonosat.formats import get_format, read_puzzle, read_puzzles
from nonosat.formats.short_codes import (
    ShortCodeError,
    decode_image,
    decode_rules,
    encode_image,
    encode_rules,
)
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import corpus_path

FOOTBALL_RULES = "RSJH58Z7Dnyl9tWtZGp7r8XqjLwdrazUm-812Xl5kSoFuEelf7b7FW0LhH2lo-VloqQ"
FOOTBALL_IMAGE = "LSJGLQRYQShD41JJX_QjekiFT8-SPTj3J0IIfSiK_ri16tDFuy00opFQpBLos"


def _published_codes() -> list[tuple[str, str]]:
    """(file name, rules code) of every row of the davidje13 CSV files, read with the csv module
    (independently of the reader under test)."""
    codes = []
    for path in sorted(corpus_path("Nonogram", "games").glob("*.csv")):
        lines = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
        for row in csv.DictReader(io.StringIO("\n".join(lines))):
            codes.append((path.name, row["rules"]))
    return codes


def test_football_rules_code_decodes_to_football_json():
    football = read_puzzle(corpus_path("Nonogram", "games", "football.json"))
    rows, cols = decode_rules(FOOTBALL_RULES)
    assert rows == football.rows and cols == football.cols
    assert encode_rules(football) == FOOTBALL_RULES


def test_football_image_code_is_the_solution_and_re_encodes():
    football = read_puzzle(corpus_path("Nonogram", "games", "football.json"))
    image = decode_image(FOOTBALL_IMAGE)
    assert image.shape == (20, 20)
    assert set(np.unique(image)) == {Cell.EMPTY, Cell.FILLED}
    assert football.is_solution(image == Cell.FILLED)
    assert encode_image(image == Cell.FILLED) == FOOTBALL_IMAGE


def test_all_146_csv_codes_decode_and_re_encode_identically():
    codes = _published_codes()
    assert len(codes) == 146
    puzzles = [
        p
        for path in sorted(corpus_path("Nonogram", "games").glob("*.csv"))
        for p in read_puzzles(path)
    ]
    assert len(puzzles) == 146
    for (name, code), puzzle in zip(codes, puzzles, strict=True):
        assert encode_rules(puzzle) == code, (name, puzzle.title)
        # Puzzle construction checked that every clue fits and the totals agree.
        assert sum(map(sum, puzzle.rows)) == sum(map(sum, puzzle.cols))


def test_csv_rows_carry_names_authors_and_licences():
    external = read_puzzles(corpus_path("Nonogram", "games", "external.csv"))
    football = next(p for p in external if p.title == "Football")
    assert football.number == 3 and football.author == "Juraj Simlovic"
    assert football.license == "CC BY-SA 3.0"
    assert "wikipedia" in football.meta["source"]
    alphabet = read_puzzles(corpus_path("Nonogram", "games", "alphabet.csv"))
    assert {"#", '"', ","} <= {p.title for p in alphabet}


@st.composite
def pictures(draw, max_side=14):
    h = draw(st.integers(1, max_side))
    w = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).random((h, w)) < density


@settings(max_examples=150, deadline=None)
@given(pictures())
def test_rules_code_round_trips_any_puzzle(picture):
    puzzle = Puzzle.from_picture(picture)
    code = encode_rules(puzzle)
    assert code.startswith("R")
    assert decode_rules(code) == (puzzle.rows, puzzle.cols)


@settings(max_examples=150, deadline=None)
@given(pictures(), st.booleans())
def test_image_code_round_trips_solutions_and_partial_grids(picture, with_unknown):
    grid = np.where(picture, np.int8(Cell.FILLED), np.int8(Cell.EMPTY)).astype(np.int8)
    if with_unknown:
        grid[:, ::3] = Cell.UNKNOWN
    code = encode_image(grid)
    assert code[0] in "LB"
    assert np.array_equal(decode_image(code), grid)


def test_long_lines_use_large_prefix_codes():
    picture = np.zeros((3, 300), dtype=bool)
    picture[1, ::2] = True
    puzzle = Puzzle.from_picture(picture)
    assert decode_rules(encode_rules(puzzle)) == (puzzle.rows, puzzle.cols)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("Xabc", "starts with 'R'"),
        ("R", "ends too early"),
        ("RSJH58Z7", "ends too early"),
        ("RSJH58Z7Dnyl9tW!", "not a base64url digit"),
        (FOOTBALL_RULES + "AAAA", "extra data"),
        ("RAAAAAAAAAAA", "number too large"),
        ("RAgAAAAAAA", "unsupported width 1008"),
    ],
)
def test_malformed_rules_codes_are_refused(code, message):
    with pytest.raises(ShortCodeError, match=message):
        decode_rules(code)


def test_short_file_reports_the_line_of_a_bad_code(tmp_path):
    path = tmp_path / "bad.short"
    path.write_text("# a comment\n\nRSJH58Z7\n")
    with pytest.raises(FormatError, match=r"bad\.short:3: bad short code"):
        read_puzzles(path)
    path.write_text(FOOTBALL_RULES + "\n" + FOOTBALL_IMAGE + "\n")
    puzzle = read_puzzle(path)
    assert puzzle.goal is not None and puzzle.is_solution(puzzle.goal)
    assert get_format("short").write(puzzle).decode().split() == [FOOTBALL_RULES, FOOTBALL_IMAGE]
