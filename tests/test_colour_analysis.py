"""Analysis, hints and explanations of colour puzzles: every deduction agrees with the goal
picture, the staged solve of line-solvable puzzles ends solved at the goal, ambiguity maps mark
exactly the cells on which the solutions differ."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from nonosat.analysis.colour import analyse_colour, colour_explain, colour_hint
from nonosat.cli.app import app
from nonosat.formats import read_puzzle
from tests.conftest import GAMES, corpus_path

runner = CliRunner()


def test_explain_reaches_the_goal_with_deductions_that_never_exclude_it():
    for puzzle in (
        read_puzzle(GAMES / "ladybird.non"),
        read_puzzle(corpus_path("number-loom", "examples", "wolter", "webpbn-color-00047.xml")),
    ):
        result = colour_explain(puzzle)
        assert result.end == "solved"
        goal = puzzle.goal.astype(np.int64)
        for step in result.steps:
            for (r, c), mask in step.cells:
                assert (mask >> goal[r, c]) & 1, step.text
        assert np.array_equal(result.grid, 1 << goal)


def test_hint_is_a_sound_first_step():
    puzzle = read_puzzle(GAMES / "ladybird.non")
    kind, step = colour_hint(puzzle)
    assert kind == "hint" and step is not None and step.cells
    for (r, c), mask in step.cells:
        assert (mask >> int(puzzle.goal[r, c])) & 1


def test_impossible_puzzle_is_found_contradictory():
    assert colour_explain(read_puzzle(GAMES / "ladybird-impossible.non")).end == "no-solution"


def test_ambiguity_map_marks_the_cells_where_solutions_differ():
    puzzle = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    result = analyse_colour(puzzle, limit=10)
    assert result.status.value == "multiple"
    stack = np.asarray(result.solutions)
    assert len(stack) == 2  # the leaf drawn two ways: exactly two solutions
    assert result.ambiguous.sum() == int((stack[0] != stack[1]).sum()) == 4
    assert result.end == "guess" and result.grade == 5


def test_cli_analyse_hint_explain_on_colour():
    acorn = str(corpus_path("pbnsolve-examples", "acorn.g"))
    out = runner.invoke(app, ["analyse", acorn, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "unique" and data["kind"] == "colour" and data["grade"] == 1
    out = runner.invoke(app, ["explain", acorn, "--json"])
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    assert data["end"] == "solved" and data["techniques"]["line"] > 10
    out = runner.invoke(app, ["hint", str(GAMES / "ladybird.non")])
    assert out.exit_code == 0 and out.output.startswith("[line]")
