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
    assert set(data) == {"schema", "command", "puzzle", "width", "height", "status", "solutions",
                         "engine", "time_s", "load_s", "stats", "elapsed_s", "classification",
                         "short_image", "short_rules", "counted_all"}
    assert data["counted_all"] is True  # unique: the search ended below the limit 2
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


# -- several solutions: the count, the marked cells, the short codes (issue 15) ------------------


def _grids(output: str, puzzle: Puzzle) -> list[list[str]]:
    """The body of every text grid in ``output``, as lists of rows of one character per cell."""
    grids, rows = [], []
    for line in output.splitlines():
        if line.count("|") == 2 and not line.strip().startswith("+"):
            body = line[line.index("|") + 1: line.rindex("|")]
            width = len(body) // puzzle.width
            rows.append(body[::width])
            if len(rows) == puzzle.height:
                grids.append(rows)
                rows = []
    return grids


def test_several_solutions_counted_up_to_the_limit():
    from nonosat.engines import solve
    from nonosat.formats import read_puzzle

    path = GAMES / "cross-ambiguous.non"
    # the number of solutions, from CP-SAT (not the default engine), enumerated to the end
    total = len(solve(read_puzzle(path), "cpsat", limit=10_000).solutions)
    assert total > 10
    for limit in (2, 10, 100):
        result = run("solve", str(path), "--limit", str(limit))
        assert result.exit_code == 1, result.output
        if limit <= total:
            assert f"{limit} solutions found (limit {limit})" in result.output
        else:  # every solution enumerated below the limit: exact (issue 25)
            assert (f"{total} solutions (all: the search ended below the limit {limit})"
                    in result.output)


def test_differing_cells_are_marked_in_the_grids():
    import numpy as np

    from nonosat.formats import read_puzzle

    path = GAMES / "cross-ambiguous.non"
    puzzle = read_puzzle(path)
    sols = json.loads(run("solve", str(path), "--limit", "3", "--json").stdout)["solutions"]
    stack = np.array([[[ch == "#" for ch in row] for row in sol] for sol in sols])
    differs = (stack != stack[0]).any(axis=0)
    assert differs.any() and not differs.all()
    grids = _grids(run("solve", str(path), "--limit", "3").output, puzzle)
    assert len(grids) == 3
    for grid, sol in zip(grids, stack, strict=True):
        for r in range(puzzle.height):
            for c in range(puzzle.width):
                expected = ("@" if sol[r, c] else ".") if differs[r, c] else ("#" if sol[r, c] else " ")
                assert grid[r][c] == expected, (r, c)


def test_short_codes_under_the_grid_decode_to_the_picture_and_clues():
    import numpy as np

    from nonosat.formats import read_puzzle
    from nonosat.formats.short_codes import decode_image, decode_rules
    from nonosat.puzzle import Cell

    heart = read_puzzle(GAMES / "heart.non")
    out = run("solve", str(GAMES / "heart.non")).output
    image = next(x.split(": ")[1] for x in out.splitlines() if x.startswith("short image: "))
    rules = next(x.split(": ")[1] for x in out.splitlines() if x.startswith("short rules: "))
    assert heart.is_solution(decode_image(image) == Cell.FILLED)
    assert decode_rules(rules) == (heart.rows, heart.cols)
    # several solutions: the image is the part they agree on, unknown elsewhere
    path = GAMES / "cross-ambiguous.non"
    sols = json.loads(run("solve", str(path), "--json").stdout)["solutions"]
    stack = np.array([[[ch == "#" for ch in row] for row in sol] for sol in sols])
    out = run("solve", str(path)).output
    image = next(x.split(": ")[1] for x in out.splitlines() if x.startswith("short image: "))
    grid = decode_image(image)
    differs = (stack != stack[0]).any(axis=0)
    assert np.array_equal(grid == Cell.UNKNOWN, differs)
    assert np.array_equal(grid[~differs] == Cell.FILLED, stack[0][~differs])


@pytest.mark.corpus
def test_file_hash_n_names_a_puzzle_of_a_set():
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    by_name = run("solve", f"{path}#7", "--json")
    by_index = run("solve", str(path), "--index", "7", "--json")
    assert by_name.exit_code == by_index.exit_code
    a, b = json.loads(by_name.stdout), json.loads(by_index.stdout)
    assert a["puzzle"] == b["puzzle"] == f"{path}#7"
    assert a["solutions"] == b["solutions"]


def test_load_time_is_apart_from_the_engine_time():
    """In a fresh process, the first solve loads the kernels (load_s) and the engine time of the
    tiny heart stays far below it; a second solve in the same process loads nothing."""
    import subprocess
    import sys

    code = (
        "import json\n"
        "from nonosat.engines import solve\n"
        "from nonosat.formats import read_puzzle\n"
        f"p = read_puzzle(r'{GAMES / 'heart.non'}')\n"
        "a = solve(p, 'auto'); b = solve(p, 'auto')\n"
        "print(json.dumps([a.load_s, a.time_s, b.load_s, b.time_s]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    load_a, time_a, load_b, time_b = json.loads(out.stdout)
    assert load_a > 0.05 and time_a < load_a / 4
    # the second solve's engine time is the tiny heart's again, far below a load (both slow
    # down alike on a loaded machine: compared with each other, not with a fixed figure)
    assert load_b == 0.0 and time_b < load_a / 4
