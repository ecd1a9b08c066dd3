"""Colour puzzles through the CLI: ``solve`` prints the picture in colour with the verdict,
``crosscheck`` agrees, and commands that take colour puzzles work on them."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.formats import read_puzzle
from tests.conftest import corpus_path

runner = CliRunner()


def test_solve_acorn_prints_the_acorn_in_colour_with_the_verdict_unique():
    acorn = corpus_path("pbnsolve-examples", "acorn.g")
    result = runner.invoke(app, ["solve", str(acorn)],
                           env={"FORCE_COLOR": "1", "COLORTERM": "truecolor", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "unique solution" in result.output
    # truecolour cells: yellow (#ffff00) and brown (#a52a2a) blocks as 24-bit background colours
    assert "48;2;255;255;0m" in result.output and "48;2;165;42;42m" in result.output


def test_solve_colour_json_rows_use_the_palette_characters():
    acorn = corpus_path("pbnsolve-examples", "acorn.g")
    result = runner.invoke(app, ["solve", str(acorn), "--json", "--engine", "native"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    puzzle = read_puzzle(acorn)
    assert data["status"] == "unique"
    rows = data["solutions"][0]
    assert len(rows) == puzzle.height and all(len(r) == puzzle.width for r in rows)
    assert set("".join(rows)) == set(puzzle.palette.chars)


def test_crosscheck_agrees_on_colour_puzzles():
    files = [
        str(corpus_path("pbnsolve-examples", n)) for n in ("acorn.g", "rose.g", "alladin.g")
    ] + [str(corpus_path("number-loom", "examples", "wolter", "webpbn-color-00047.xml"))]
    result = runner.invoke(app, ["crosscheck", *files, "--json"])
    assert result.exit_code == 0, result.output


def test_colour_state_files_for_solve_and_hint(tmp_path):
    from tests.conftest import GAMES

    lady = str(GAMES / "ladybird.non")
    rows = ["...kk....", "..kkkk..."] + ["?" * 9] * 9
    good = tmp_path / "good.txt"
    good.write_text("\n".join(rows) + "\n")
    result = runner.invoke(app, ["solve", lady, "--state", str(good), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["status"] == "unique"
    hint = runner.invoke(app, ["hint", lady, "--state", str(good), "--json"])
    assert hint.exit_code == 0 and json.loads(hint.stdout)["outcome"] == "deduction"
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("\n".join(["...kk....", "..kkkr..."] + ["?" * 9] * 9) + "\n")
    result = runner.invoke(app, ["solve", lady, "--state", str(wrong)])
    assert result.exit_code == 3  # no solution agrees with the state
    hint = runner.invoke(app, ["hint", lady, "--state", str(wrong), "--json"])
    assert hint.exit_code == 1
    assert json.loads(hint.stdout)["cells"] == [{"row": 2, "col": 6, "colour": "black"}]
    assert "row 2, column 6" in json.loads(hint.stdout)["text"]
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(["...kk..x.", "..kkkk..."] + ["?" * 9] * 9) + "\n")
    result = runner.invoke(app, ["solve", lady, "--state", str(bad)])
    assert result.exit_code == 2 and "bad.txt:1: column 8" in result.output
