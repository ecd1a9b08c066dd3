"""``nonosat explain``: numbered steps, past guesses, to the solution(s); verdicts, exit codes,
ranges, line lengths, and a ``--json`` whose steps replay to the solutions an independent engine
finds."""

from __future__ import annotations

import json
import re

import numpy as np
from typer.testing import CliRunner

from nonosat.analysis.walkthrough import walkthrough
from nonosat.cli.app import app
from nonosat.engines import Status, solve
from nonosat.formats import read_puzzle
from nonosat.puzzle import grid_from_rows
from tests.conftest import GAMES, corpus_path

runner = CliRunner()

_VALUE = {"filled": 2, "empty": 1, "unknown": 3}


def _taai(index: int) -> tuple[str, object]:
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    return str(path), read_puzzle(path, None, index)


def _replay(doc: dict) -> tuple[np.ndarray, list[np.ndarray]]:
    """Replay the JSON steps on an all-unknown grid: the final grid and the grid at each
    ``solution`` step."""
    grid = np.full((doc["height"], doc["width"]), 3, dtype=np.int8)
    at_solutions = []
    for step in doc["steps"]:
        for cell in step["cells"]:  # the JSON contract: 1-based {"row", "col", "value"}
            r, c, value = cell["row"] - 1, cell["col"] - 1, cell["value"]
            assert (grid[r, c] == 3) != (value == "unknown"), step["text"]  # rewind known
            grid[r, c] = _VALUE[value]
        if step["kind"] == "solution":
            at_solutions.append(grid.copy())
    return grid, at_solutions


def _lines_fit(text: str, width: int = 100) -> None:
    long = [line for line in text.splitlines() if len(line) > width]
    assert not long, f"{len(long)} lines over {width} characters, e.g. {long[0]!r}"


def test_explain_football_reads_like_a_person_solving(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # the width of a pipe: 80
    path = corpus_path("Nonogram", "games", "football.json")
    out = runner.invoke(app, ["explain", str(path)])
    assert out.exit_code == 0, out.output
    steps = re.findall(r"^ *(\d+)\. \[([a-z-]+)\] (.*)$", out.stdout, flags=re.M)
    assert [int(n) for n, _, _ in steps] == list(range(1, len(steps) + 1))
    assert steps[0][1] == "overlap"
    assert steps[0][2].startswith("column 10, clue 3 3 9 1: the first 3 must cover rows 2–3")
    techniques = {t for _, t, _ in steps}
    assert {"overlap", "line", "contradiction", "failed-literal"} <= techniques
    assert "Unique solution: logic alone solves the puzzle" in out.stdout
    assert "Grid after step 50:" in out.stdout  # the default --grid-every
    _lines_fit(out.stdout)


def test_explain_walks_past_a_guess_to_the_unique_solution(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # the width of a pipe: 80
    # taai2011 #66 (25x25): unique; logic stops after 50 steps, the search guesses, meets a
    # contradiction, rewinds and reaches the solution with the other value
    path, puzzle = _taai(66)
    out = runner.invoke(app, ["explain", path, "--index", "66"])
    assert out.exit_code == 0, out.output
    assert "the puzzle is unique, but it needs a guess" in out.stdout
    assert "Unique solution, but it needs a guess" in out.stdout
    for kind in ("guess", "contradiction, depth 1", "rewind", "solution"):
        assert f"[{kind}]" in out.stdout, kind
    _lines_fit(out.stdout)
    out = runner.invoke(app, ["explain", path, "--index", "66", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["status"] == "unique" and doc["end"] == "solved" and doc["guesses"] >= 1
    kinds = [s["kind"] for s in doc["steps"]]
    assert {"guess", "contradiction", "rewind"} <= set(kinds) and kinds[-1] == "solution"
    final, (at_solution,) = _replay(doc)
    (sat,) = solve(puzzle, "sat", limit=2).solutions  # an independent engine
    assert np.array_equal(final == 2, sat) and np.array_equal(at_solution == 2, sat)
    assert np.array_equal(grid_from_rows(doc["solutions"][0]) == 2, sat)
    assert doc["grids"][-1]["after"] == len(doc["steps"])


def test_explain_reaches_two_solutions_of_an_ambiguous_puzzle():
    path = GAMES / "cross-ambiguous.non"
    puzzle = read_puzzle(path)
    out = runner.invoke(app, ["explain", str(path)])
    assert out.exit_code == 1, out.output
    assert "the puzzle has several solutions" in out.stdout
    assert "Several solutions: the first two are reached above" in out.stdout
    assert out.stdout.count("Every cell is known: solution") == 2
    out = runner.invoke(app, ["explain", str(path), "--json"])
    assert out.exit_code == 1
    doc = json.loads(out.stdout)
    assert doc["status"] == "multiple" and doc["stuck"]["status"] == "multiple"
    final, reached = _replay(doc)
    assert len(reached) == 2 and not np.array_equal(reached[0], reached[1])
    for grid, rows in zip(reached, doc["solutions"], strict=True):
        assert (grid != 3).all() and puzzle.is_solution(grid == 2)
        assert np.array_equal(grid, grid_from_rows(rows))
    assert np.array_equal(final, reached[1])


def test_explain_no_solution_and_exit_codes(tmp_path):
    out = runner.invoke(app, ["explain", str(GAMES / "impossible.non")])
    assert out.exit_code == 3, out.output
    assert "No solution" in out.stdout
    path = tmp_path / "two.non"  # two solutions, nothing to deduce
    path.write_text("width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n")
    out = runner.invoke(app, ["explain", str(path), "--no-grid"])
    assert out.exit_code == 1, out.output
    assert "Grid after" not in out.stdout
    out = runner.invoke(app, ["explain", str(GAMES / "heart.non"), "--max-steps", "1", "--json"])
    assert out.exit_code == 4
    assert json.loads(out.stdout)["end"] == "max-steps"


def test_explain_lines_fit_on_a_25x25_puzzle_with_several_solutions(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # the width of a pipe: 80
    path, _ = _taai(7)
    out = runner.invoke(app, ["explain", path, "--index", "7", "--grid-every", "20"])
    assert out.exit_code == 1, out.output
    _lines_fit(out.stdout)
    assert "Grid after step 20:" in out.stdout and "Grid after step 40:" in out.stdout


def test_forever_ends_cleanly_at_the_time_limit():
    path = corpus_path("FastNonogramSolver", "puzzles", "survey", "webpbn-06574.nin")
    out = runner.invoke(app, ["explain", str(path), "--timeout", "1", "--no-grid"])
    assert out.exit_code == 4, out.output
    assert "Stopped at the time limit (1 s)" in out.stdout


def test_forever_walkthrough_reaches_the_solution():
    path = corpus_path("FastNonogramSolver", "puzzles", "survey", "webpbn-06574.nin")
    puzzle = read_puzzle(path)
    walk = walkthrough(puzzle, timeout=120)
    assert walk.status == Status.UNIQUE and walk.end == "solved"
    assert walk.stuck is not None and walk.stuck.verdict == "unique" and walk.guesses > 1
    (sat,) = solve(puzzle, "sat", limit=2).solutions
    assert np.array_equal(walk.solutions[0], sat)
