"""``nonosat solve`` through typer's CliRunner: output, JSON shape, exit codes, error lines."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.puzzle import Puzzle
from tests.conftest import GAMES, corpus_path

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_unique_puzzle_prints_grid_and_verdict():
    result = run("solve", str(GAMES / "heart.non"), "--engine", "native")
    assert result.exit_code == 0, result.output
    assert "unique solution" in result.output
    assert "|    ######      ######    |" in result.output  # first row of the heart


def test_json_shape_and_solution():
    result = run("solve", str(GAMES / "heart.non"), "--json", "--engine", "native")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert set(data) == {"puzzle", "width", "height", "status", "solutions", "engine", "time_s", "load_s", "stats"}
    assert data["status"] == "unique" and (data["width"], data["height"]) == (13, 11)
    assert data["solutions"][0][0] == "..###...###.."
    assert data["stats"]["guesses"] == 0


def test_multiple_solutions_exit_1_with_two_distinct_valid_solutions():
    result = run("solve", str(GAMES / "cross-ambiguous.non"), "--json", "--engine", "native")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["status"] == "multiple"
    a, b = data["solutions"]
    assert a != b
    from nonosat.formats import read_puzzle
    from nonosat.puzzle import grid_from_rows, grid_to_solution

    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    for rows in (a, b):
        assert puzzle.is_solution(grid_to_solution(grid_from_rows(rows)))


def test_no_solution_exit_3():
    result = run("solve", str(GAMES / "impossible.non"))
    assert result.exit_code == 3
    assert "no solution" in result.output


def test_limit_counts_more_solutions():
    result = run("solve", str(GAMES / "cross-ambiguous.non"), "--json", "--limit", "50")
    data = json.loads(result.stdout)
    assert len(data["solutions"]) > 2
    assert len({tuple(s) for s in data["solutions"]}) == len(data["solutions"])


def test_malformed_file_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.non"
    bad.write_text("width 3\nheight 2\nrows\n1\nx\ncolumns\n1\n1\n0\n")
    result = run("solve", str(bad))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0]
    assert "Traceback" not in result.output


def test_clues_that_cannot_fit_name_the_line(tmp_path):
    bad = tmp_path / "wide.nin"
    bad.write_text("3 2\n4\n1\n1\n1\n1\n")
    result = run("solve", str(bad))
    assert result.exit_code == 2
    assert "row 1" in result.stderr and str(bad) in result.stderr


def test_missing_file_and_unknown_engine_exit_2(tmp_path):
    assert run("solve", str(tmp_path / "nope.non")).exit_code == 2
    result = run("solve", str(GAMES / "heart.non"), "--engine", "quantum")
    assert result.exit_code == 2 and "unknown engine" in result.stderr


def test_state_file_restricts_solutions(tmp_path):
    from nonosat.formats import write_puzzle

    puzzle_path = tmp_path / "two.non"
    write_puzzle(Puzzle([(1,), (1,)], [(1,), (1,)]), puzzle_path)
    state = tmp_path / "state.txt"
    state.write_text("#?\n??\n")
    result = run("solve", str(puzzle_path), "--state", str(state), "--json", "--engine", "native")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["solutions"] == [["#.", ".#"]]


def test_help_documents_exit_codes():
    result = run("solve", "--help")
    assert result.exit_code == 0
    assert "Exit codes" in result.output and "--limit" in result.output


@pytest.mark.corpus
def test_football_json_unique_with_right_picture():
    path = corpus_path("Nonogram", "games", "football.json")
    result = run("solve", str(path), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["status"] == "unique"
    from nonosat.formats import read_puzzle
    from nonosat.puzzle import grid_from_rows, grid_to_solution

    assert read_puzzle(path).is_solution(grid_to_solution(grid_from_rows(data["solutions"][0])))


@pytest.mark.corpus
def test_tournament_index_picks_one_puzzle():
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    result = run("solve", str(path), "--index", "3", "--json", "--engine", "native")
    assert result.exit_code in (0, 1)
    assert json.loads(result.stdout)["puzzle"].endswith("#3")
    no_index = run("solve", str(path))
    assert no_index.exit_code == 2 and "--index" in no_index.stderr
