"""Issue 15, the analysis half: verdicts from the portfolio, stage figures that add up, the
classification line, the whole ambiguity map in render --solution, structure in --json."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.analysis.classify import classify, solve_classification
from nonosat.analysis.difficulty import analyse
from nonosat.cli.app import app
from nonosat.engines import Status, solve
from nonosat.formats import read_puzzle
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import REPO, corpus_path
from tests.test_analysis import domino

runner = CliRunner()
GAMES = REPO / "games"
SURVEY = ("FastNonogramSolver", "puzzles", "survey")


def truth_ambiguous(puzzle: Puzzle) -> np.ndarray:
    """Cells that differ across ALL solutions (CP-SAT enumeration)."""
    result = solve(puzzle, "cpsat", limit=5000)
    assert len(result.solutions) < 5000
    stack = np.asarray(result.solutions, dtype=bool)
    return (stack != stack[0]).any(axis=0)


@pytest.mark.parametrize("ref", [("taai", 1), ("taai", 3), ("taai", 7), ("survey", "00065"),
                                 ("survey", "00436"), ("survey", "00803"), ("survey", "06574")])
def test_stage_figures_add_up(ref):
    kind, key = ref
    if kind == "taai":
        puzzle = read_puzzle(corpus_path("NonogramRecord", "question", "taai2011.txt"), None, key)
    else:
        puzzle = read_puzzle(corpus_path(*SURVEY, f"webpbn-{key}.nin"))
    result = analyse(puzzle, backdoor_timeout=0)
    n = puzzle.height * puzzle.width
    cells = result.cells_by_stage()
    assert all(v >= 0 for v in cells.values())
    assert sum(cells.values()) == n
    oa = result.staged.open_after
    assert oa["start"] >= oa["line"] >= oa["implications"] >= oa["probing"]
    # known after each stage = the cells of the stages up to it (independent: line fixpoint)
    line_open = int((propagate_grid(puzzle)[0] == Cell.UNKNOWN).sum())
    assert cells["line"] == n - line_open == n - oa["line"]
    assert cells["line"] + cells["implications"] == n - oa["implications"]
    assert cells["line"] + cells["implications"] + cells["probing"] == n - oa["probing"]
    if result.status == Status.MULTIPLE:
        assert cells["ambiguous"] == int(result.backbone.ambiguous.sum())
        assert result.grade.describe() == "not graded: several solutions"  # issue 25
    else:
        assert 1 <= result.grade.score <= 5 and 1 <= result.grade.grade <= 5


def test_render_checkers_exactly_the_non_backbone_cells(tmp_path):
    path = GAMES / "cross-ambiguous.non"
    puzzle = read_puzzle(path)
    truth = truth_ambiguous(puzzle)
    assert truth.sum() > 4  # more than the cells where two solutions differ
    text = runner.invoke(app, ["render", str(path), "--solution"])
    assert text.exit_code == 1, text.output
    rows = [line for line in text.stdout.splitlines() if line.count("|") == 2]
    assert len(rows) == puzzle.height
    marked = np.zeros(puzzle.shape, dtype=bool)
    for r, line in enumerate(rows):
        body = line[line.index("|") + 1: line.rindex("|")]
        width = len(body) // puzzle.width
        for c in range(puzzle.width):
            marked[r, c] = body[c * width:(c + 1) * width].strip("?") == ""
    assert np.array_equal(marked, truth)
    out = tmp_path / "cross.svg"
    svg = runner.invoke(app, ["render", str(path), "--solution", "--out", str(out)])
    assert svg.exit_code == 1, svg.output
    from nonosat.render.layout import CHECKER_LIGHT

    assert out.read_text().count(f'fill="{CHECKER_LIGHT}"') == int(truth.sum())
    # analyse --map / --json: the same cells
    data = json.loads(runner.invoke(app, ["analyse", str(path), "--json"]).stdout)
    assert {(c["row"], c["col"]) for c in data["ambiguity"]["cells"]} == {
        (int(r) + 1, int(c) + 1) for r, c in np.argwhere(truth)}
    assert data["classification"] == f"several solutions ({int(truth.sum())} cells ambiguous)"


def test_classification_of_each_kind():
    heart = read_puzzle(GAMES / "heart.non")
    probing = domino(4)
    search = domino(5)
    several = read_puzzle(GAMES / "cross-ambiguous.non")
    none = read_puzzle(GAMES / "impossible.non")
    got = {name: analyse(p, backdoor_timeout=1).classification
           for name, p in [("line", heart), ("probing", probing), ("search", search),
                           ("several", several), ("none", none)]}
    assert got["line"] == "unique, line-solvable"
    assert got["probing"] == "unique, needs probing (depth 1)"
    assert re.fullmatch(r"unique, needs search \(\d+ (guess|guesses|conflict|conflicts)\)",
                        got["search"])
    assert got["several"] == "several solutions (33 cells ambiguous)"
    assert got["none"] == "no solution"
    # nonosat solve: the same words, cheaply (the ambiguous cells of the solutions it found, a
    # lower bound of analyse's 33)
    for name, p in [("line", heart), ("probing", probing), ("search", search)]:
        assert solve_classification(p, solve(p, "auto", limit=2)) == got[name]
    for limit in (2, 100):
        found = solve(several, "auto", limit=limit)
        differ = int((np.array(found.solutions) != found.solutions[0]).any(axis=0).sum())
        assert 1 <= differ <= 33 and (limit == 2 or differ == 33)
        # every solution enumerated below the limit (100 > 48): exact (issue 25)
        assert found.exhausted == (limit == 100)
        at_least = "" if found.exhausted else "at least "
        assert solve_classification(several, found) == \
            f"several solutions ({at_least}{differ} cell{'s' * (differ != 1)} ambiguous)"
    assert solve_classification(none, solve(none, "auto", limit=2)) == "no solution"
    out = runner.invoke(app, ["solve", str(GAMES / "heart.non")])
    assert out.stdout.strip().endswith("classification: unique, line-solvable")
    assert classify(Status.UNKNOWN, None) == "undecided (time limit)"


def test_json_carries_structure_of_taai_7():
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    out = runner.invoke(app, ["analyse", str(path), "--index", "7", "--json"])
    assert out.exit_code == 1, out.output
    data = json.loads(out.stdout)
    assert data["classification"].startswith("several solutions (")
    parts = data["independent_parts"]
    assert parts["count"] == len(parts["sizes"]) >= 1
    assert sum(parts["sizes"]) == data["open_after"]["probing"]
    assert data["implication_graph"]["nodes"] == 2 * data["open_after"]["line"]
    assert data["grade"]["scale"] == [1, 5]


def test_json_carries_the_backdoor_of_a_unique_puzzle():
    path = corpus_path(*SURVEY, "webpbn-00065.nin")
    out = runner.invoke(app, ["analyse", str(path), "--json", "--backdoor-timeout", "20"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    bd = data["backdoor"]
    assert bd["logic"] == "line" and bd["size"] >= bd["lower_bound"] >= 1
    puzzle = read_puzzle(path)
    grid = np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    for cell in bd["cells"]:
        grid[cell["row"] - 1, cell["col"] - 1] = (Cell.FILLED if cell["value"] == "filled"
                                                  else Cell.EMPTY)
    assert not (propagate_grid(puzzle, grid)[0] == Cell.UNKNOWN).any()


def _several_with_goal(count: int, size: int = 5):
    """Random pictures (seeded) whose clues have several solutions, with the picture as goal."""
    from tests.test_backdoor import brute_closure

    rng = np.random.default_rng(1515)
    out = []
    while len(out) < count:
        pic = rng.random((size, size)) < 0.5
        puzzle = Puzzle.from_picture(pic)
        puzzle = Puzzle(rows=puzzle.rows, cols=puzzle.cols, goal=pic)
        if solve(puzzle, "cpsat", limit=2).status != Status.MULTIPLE:
            continue
        root = brute_closure(puzzle, np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8))
        if (root == Cell.UNKNOWN).sum() <= 14:  # exhaustive check below stays small
            out.append((puzzle, pic))
    return out


@pytest.mark.parametrize("k", range(3))
def test_backdoor_of_a_several_solution_puzzle_is_checked_and_smallest(k):
    """The backdoor analyse reports for a puzzle with several solutions: the goal's values,
    line logic (brute force, independent of the code) completes them to the goal and to nothing
    else, and no smaller set of open cells does (every subset tried)."""
    import itertools

    from tests.test_backdoor import brute_closure, with_givens

    puzzle, pic = _several_with_goal(3)[k]
    result = analyse(puzzle, backdoor_timeout=60)
    assert result.status == Status.MULTIPLE
    bd = result.backdoor
    assert bd is not None and bd.several and bd.exact and bd.size == bd.lower_bound >= 1
    assert result.backdoor_of == "the goal picture"
    assert all(v == bool(pic[rc]) for rc, v in bd.cells)
    grid = brute_closure(puzzle, with_givens(puzzle, pic, [rc for rc, _ in bd.cells]))
    assert np.array_equal(grid == Cell.FILLED, pic) and not (grid == Cell.UNKNOWN).any()
    root = brute_closure(puzzle, np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8))
    open_cells = [tuple(map(int, rc)) for rc in np.argwhere(root == Cell.UNKNOWN)]
    for size in range(bd.size):
        for subset in itertools.combinations(open_cells, size):
            grid = brute_closure(puzzle, with_givens(puzzle, pic, subset))
            assert (grid == Cell.UNKNOWN).any(), f"{subset} is a smaller backdoor"
    data = result.to_json()["backdoor"]
    assert data["several_solutions"] and data["of"] == "the goal picture"


def test_analyse_prints_a_backdoor_and_parts_for_every_kind():
    """Line-solvable: the empty backdoor, said so; several solutions: the backdoor of the goal
    picture and the parts after line solving; no solution: why there is none."""
    heart = runner.invoke(app, ["analyse", str(GAMES / "heart.non")])
    assert heart.exit_code == 0, heart.output
    assert "smallest backdoor to line solving: 0 cells (line solving alone solves it)" in \
        heart.stdout
    assert "independent parts after line solving: none (nothing left open)" in heart.stdout
    cross = runner.invoke(app, ["analyse", str(GAMES / "cross-ambiguous.non"), "--json"])
    data = json.loads(cross.stdout)
    bd = data["backdoor"]
    assert bd["several_solutions"] and bd["exact"] and bd["size"] == bd["lower_bound"] >= 1
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    grid = np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    for cell in bd["cells"]:
        assert (cell["value"] == "filled") == bool(puzzle.goal[cell["row"] - 1, cell["col"] - 1])
        grid[cell["row"] - 1, cell["col"] - 1] = (Cell.FILLED if cell["value"] == "filled"
                                                  else Cell.EMPTY)
    fixed = propagate_grid(puzzle, grid)[0]
    assert np.array_equal(fixed == Cell.FILLED, puzzle.goal)
    line_parts = data["independent_parts_after_line"]
    assert sum(line_parts["sizes"]) == data["open_after"]["line"]
    text = runner.invoke(app, ["analyse", str(GAMES / "cross-ambiguous.non")]).stdout
    assert "smallest backdoor to line solving of the goal picture: " in text
    assert "independent parts after line solving: 1 (cells: 35)" in text
    none = runner.invoke(app, ["analyse", str(GAMES / "impossible.non")])
    assert none.exit_code == 3
    assert "smallest backdoor to line solving: none (no solution)" in none.stdout
    probing = runner.invoke(app, ["analyse", str(GAMES / "heart.non"), "--backdoor-logic", "x"])
    assert probing.exit_code == 2 and "Traceback" not in probing.output


def test_backdoor_to_probing_is_no_larger_and_completes_by_probing():
    """--backdoor-logic probing: 4-Dom needs probing, so its probing backdoor is empty while its
    line backdoor is not; 5-Dom needs a guess: both are exact, the probing one no larger (every
    line backdoor is a probing backdoor), and probing from its givens finishes."""
    from nonosat.native.probe import probe_grid

    four = analyse(domino(4), backdoor_timeout=30, backdoor_logic="probing")
    assert four.backdoor.size == 0 and four.backdoor.logic == "probing"
    assert analyse(domino(4), backdoor_timeout=30).backdoor.size >= 1
    five = domino(5)
    line = analyse(five, backdoor_timeout=30).backdoor
    probing = analyse(five, backdoor_timeout=30, backdoor_logic="probing").backdoor
    assert line.exact and probing.exact and 1 <= probing.size <= line.size
    grid = np.full(five.shape, Cell.UNKNOWN, dtype=np.int8)
    for (r, c), v in probing.cells:
        grid[r, c] = Cell.FILLED if v else Cell.EMPTY
    fixed = probe_grid(five, grid)[0]
    (sat,) = solve(five, "sat", limit=2).solutions
    assert np.array_equal(fixed == Cell.FILLED, sat) and not (fixed == Cell.UNKNOWN).any()
    out = runner.invoke(app, ["analyse", str(GAMES / "heart.non"), "--backdoor-logic", "probing"])
    assert "smallest backdoor to probing: 0 cells (line solving and probing alone solve it)" \
        in out.stdout


def test_file_hash_n_names_work_for_analyse_hint_and_explain():
    """The FILE#N names nonosat prints (analyse's own report, batch ids) are accepted back."""
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    by_name = runner.invoke(app, ["analyse", f"{path}#7", "--json", "--backdoor-timeout", "0"])
    by_index = runner.invoke(app, ["analyse", str(path), "--index", "7", "--json",
                                   "--backdoor-timeout", "0"])
    assert by_name.exit_code == by_index.exit_code == 1, by_name.output
    a, b = json.loads(by_name.stdout), json.loads(by_index.stdout)
    assert a["puzzle"] == b["puzzle"] == f"{path}#7"
    assert a["solutions"][0] == b["solutions"][0]
    hint = runner.invoke(app, ["hint", f"{path}#7"])
    assert hint.exit_code == runner.invoke(app, ["hint", str(path), "--index", "7"]).exit_code
    assert hint.stdout == runner.invoke(app, ["hint", str(path), "--index", "7"]).stdout
    explain = runner.invoke(app, ["explain", f"{path}#7", "--max-steps", "3", "--no-grid"])
    assert explain.exit_code == 4 and "1. [" in explain.stdout


def test_file_hash_n_names_work_for_render_and_certify(tmp_path):
    """render and certify take the FILE#N names too, as the same puzzle as --index N."""
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    by_name = runner.invoke(app, ["render", f"{path}#7"])
    by_index = runner.invoke(app, ["render", str(path), "--index", "7"])
    assert by_name.exit_code == by_index.exit_code == 0, by_name.output
    assert by_name.stdout == by_index.stdout
    assert by_name.stdout != runner.invoke(app, ["render", str(path), "--index", "8"]).stdout
    cert = runner.invoke(app, ["certify", f"{path}#7", "-o", str(tmp_path / "a"), "--json"])
    ref = runner.invoke(app, ["certify", str(path), "--index", "7", "-o", str(tmp_path / "b"),
                              "--json"])
    assert cert.exit_code == ref.exit_code != 2, cert.output
    assert json.loads(cert.stdout)["puzzle"] == json.loads(ref.stdout)["puzzle"] == f"{path}#7"
