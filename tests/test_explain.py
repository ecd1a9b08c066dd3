"""``nonosat explain``: numbered human-style steps ending in the solution or a needed guess."""

from __future__ import annotations

import json
import re

import numpy as np
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.engines import solve
from nonosat.formats import read_puzzle
from nonosat.puzzle import grid_from_rows
from tests.conftest import corpus_path

runner = CliRunner()


def test_explain_football_reads_like_a_person_solving():
    path = corpus_path("Nonogram", "games", "football.json")
    out = runner.invoke(app, ["explain", str(path)])
    assert out.exit_code == 0, out.output
    steps = re.findall(r"^ *(\d+)\. \[([a-z-]+)\] (.*)$", out.stdout, flags=re.M)
    assert [int(n) for n, _, _ in steps] == list(range(1, len(steps) + 1))
    assert steps[0][1] == "overlap"
    assert steps[0][2].startswith("column 10, clue 3 3 9 1: the first 3 must cover rows 2–3")
    techniques = {t for _, t, _ in steps}
    assert {"overlap", "line", "contradiction", "failed-literal"} <= techniques
    assert "Every cell is known: the puzzle is solved." in out.stdout


def test_explain_json_grid_is_the_solution():
    path = corpus_path("Nonogram", "games", "football.json")
    out = runner.invoke(app, ["explain", str(path), "--json"])
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    assert data["end"]["status"] == "solved"
    puzzle = read_puzzle(path, None, None)
    (solution,) = solve(puzzle, "sat", limit=2).solutions
    assert np.array_equal(grid_from_rows(data["grid"]) == 2, solution)
    assert sum(data["techniques"].values()) == len(data["steps"])
    for step in data["steps"]:  # a line step only touches its own line
        if step["line"] is not None:
            kind, number = step["line"].split()
            key = "row" if kind == "row" else "col"
            assert {c[key] for c in step["cells"]} == {int(number)}


def test_explain_stops_where_a_guess_is_needed(tmp_path):
    path = tmp_path / "two.non"
    path.write_text("width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n")
    out = runner.invoke(app, ["explain", str(path), "--no-grid"])
    assert out.exit_code == 4, out.output
    assert "a guess is needed (4 cells open)" in out.stdout
    out = runner.invoke(app, ["explain", str(path), "--max-steps", "1", "--json"])
    assert json.loads(out.stdout)["end"]["status"] == "guess"
