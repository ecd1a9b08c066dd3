"""The colour puzzles drawn by the project (games/), their verdicts by every engine, and their
pictures in their own colours."""

from __future__ import annotations

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.engines import solve
from nonosat.formats import read_puzzle
from nonosat.render.svg import render_svg
from tests.conftest import GAMES
from tests.test_colour import check

runner = CliRunner()

CASES = [
    ("ladybird.non", "unique"),
    ("ladybird-ambiguous.xml", "multiple"),
    ("ladybird-impossible.non", "none"),
]


@pytest.mark.parametrize(("name", "verdict"), CASES)
@pytest.mark.parametrize("engine", ["native", "sat", "cpsat", "auto"])
def test_games_colour_verdicts(name, verdict, engine):
    puzzle = read_puzzle(GAMES / name)
    assert puzzle.is_colour
    assert puzzle.author == "nonosat project" and "CC0" in (puzzle.license or puzzle.copyright)
    result = solve(puzzle, engine, limit=2)
    assert result.status.value == verdict
    for solution in result.solutions:
        check(puzzle, solution)
    if verdict == "unique":
        assert np.array_equal(result.solutions[0], puzzle.goal)
    if verdict == "multiple":
        assert not np.array_equal(*result.solutions)


def test_solve_exit_codes_on_colour_games():
    codes = {name: runner.invoke(app, ["solve", str(GAMES / name)]).exit_code for name, _ in CASES}
    assert codes == {"ladybird.non": 0, "ladybird-ambiguous.xml": 1, "ladybird-impossible.non": 3}


def test_svg_in_the_puzzles_own_colours_with_ambiguous_cells_marked():
    puzzle = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    result = solve(puzzle, "native", limit=2)
    svg = render_svg(puzzle, solutions=result.solutions)
    fills = set(re.findall(r'<rect [^>]*fill="(#[0-9a-f]{6})"', svg))
    assert {c.hex for c in puzzle.palette.colours[1:]} <= fills
    assert "#6b6b6b" in fills  # the checkerboard of the cells the two solutions disagree on
    texts = set(re.findall(r'<text [^>]*fill="(#[0-9a-f]{6})"', svg))
    assert {c.hex for c in puzzle.palette.colours[1:]} <= texts  # clue numbers in block colour
    unique = read_puzzle(GAMES / "ladybird.non")
    svg = render_svg(unique, solutions=solve(unique, "native").solutions)
    assert "#6b6b6b" not in svg


def test_render_png_of_a_colour_puzzle(tmp_path):
    from PIL import Image

    out = tmp_path / "l.png"
    result = runner.invoke(app, ["render", str(GAMES / "ladybird.non"), "--solution", "--out", str(out)])
    assert result.exit_code == 0, result.output
    image = Image.open(out).convert("RGB")
    colours = {rgb for _, rgb in image.getcolors(1 << 20)}
    assert (220, 30, 30) in colours and (20, 20, 20) in colours
