"""Issue 25, item 5: ``analyse`` (and solve, explain) agreeing with themselves.

* classification, techniques needed and grade decided together, checked on Edge, Bucks and
  generated puzzles against independent figures (CP-SAT's verdict, the native line-solving and
  probing fixpoints);
* no grade for a puzzle without a solution or with several (text, JSON);
* one time limit for the whole ``analyse``, keeping the sections that finished;
* guesses and backtracks counted one way in solve, explain and the native search;
* ``solve --limit N`` exact when every solution was enumerated (CP-SAT's enumeration);
* ``analyse`` says why no one-cell edit is listed;
* a goal that contradicts the clues is a warning in every command that reads it;
* the same for colour puzzles.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.analysis.ambiguity import edit_suggestions, picture_puzzle
from nonosat.analysis.classify import solve_classification
from nonosat.analysis.difficulty import analyse
from nonosat.cli import running
from nonosat.cli.app import app
from nonosat.engines import Status, solve
from nonosat.formats import read_puzzle
from nonosat.native.probe import probe_grid
from nonosat.native.propagate import propagate_grid
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import GAMES, corpus_path

runner = CliRunner()
SURVEY = ("FastNonogramSolver", "puzzles", "survey")

#: The classification's wording for each technique needed (a solved, unique puzzle).
WORDING = {"line": "unique, line-solvable", "implications": "unique, needs implications (depth 1)",
           "probing": "unique, needs probing (depth 1)", "search": "unique, needs search"}


def _agree(result) -> None:
    """Classification, techniques needed and grade tell one story, in the object, the JSON and
    the text report."""
    from nonosat.cli.analyse import _report

    needed = result.techniques_needed
    data = result.to_json("p")
    assert data["classification"] == result.classification
    assert data["techniques_needed"] == needed
    text = _report(result, "p")
    assert f"classification: {result.classification}\n" in text
    assert f"techniques needed: {needed} (" in text
    if result.status == Status.UNIQUE:
        assert result.classification.startswith(WORDING[needed])
        grade = result.grade.grade
        assert grade in {"line": {1}, "implications": {2, 3}, "probing": {3},
                         "search": {4, 5}}[needed]
        assert f"grade: {grade} (" in text
    else:
        assert not result.grade.graded and data["grade"]["grade"] is None
        assert f"grade: not graded: {result.grade.reason}" in text


@pytest.mark.parametrize("number", ["00023", "00027"])
def test_edge_and_bucks_classification_matches_the_techniques(number):
    """Edge and Bucks said 'needs probing (depth 1)' and then 'techniques needed: implications,
    probing 0'."""
    puzzle = read_puzzle(corpus_path(*SURVEY, f"webpbn-{number}.nin"))
    result = analyse(puzzle, backdoor_timeout=0)
    assert result.status == Status.UNIQUE
    cells = result.cells_by_stage()
    assert cells["probing"] == 0 and cells["implications"] > 0 and cells["search"] == 0
    assert result.techniques_needed == "implications"
    assert result.classification == "unique, needs implications (depth 1)"
    _agree(result)
    # nonosat solve says the same
    out = runner.invoke(app, ["solve", str(corpus_path(*SURVEY, f"webpbn-{number}.nin"))])
    assert "classification: unique, needs implications (depth 1)" in out.stdout


def test_generated_puzzles_classification_against_independent_figures():
    """Random pictures: the verdict is CP-SAT's, line-solvable is the native line fixpoint,
    'needs search' is the native probing fixpoint leaving cells open; the classification,
    techniques and grade follow from them and agree with the stage figures."""
    rng = np.random.default_rng(25)
    seen = set()
    for _ in range(40):
        h, w = rng.integers(4, 9, size=2)
        puzzle = Puzzle.from_picture(rng.random((h, w)) < rng.uniform(0.35, 0.65))
        result = analyse(puzzle, backdoor_timeout=0)
        truth = solve(puzzle, "cpsat", limit=2).status
        assert result.status == truth
        line = propagate_grid(puzzle)
        probed = probe_grid(puzzle)
        line_solved = line is not None and not (line[0] == Cell.UNKNOWN).any()
        stuck = probed is not None and bool((probed[0] == Cell.UNKNOWN).any())
        cells = result.cells_by_stage()
        needed = result.techniques_needed
        assert (needed == "line") == line_solved
        assert (needed == "search") == stuck
        # the stage figures say the same as the technique
        if needed == "line":
            assert cells["implications"] == cells["probing"] == cells["search"] == 0
        elif needed == "implications":
            assert cells["implications"] > 0 and cells["probing"] == cells["search"] == 0
        elif needed == "probing":
            assert cells["probing"] > 0 and cells["search"] == 0
        if truth == Status.MULTIPLE:
            assert result.classification.startswith("several solutions")
        _agree(result)
        if truth == Status.UNIQUE and needed != "search":  # solve classifies alike
            assert solve_classification(puzzle, solve(puzzle, "native", limit=2)) == \
                result.classification
        seen.add((truth, needed))
    assert {(Status.UNIQUE, "line"), (Status.MULTIPLE, "search")} <= seen, seen


def test_no_grade_without_a_solution_or_with_several():
    for name, code, reason in (("impossible.non", 3, "no solution"),
                               ("cross-ambiguous.non", 1, "several solutions")):
        out = runner.invoke(app, ["analyse", str(GAMES / name), "--backdoor-timeout", "0"])
        assert out.exit_code == code, out.output
        assert f"\ngrade: not graded: {reason}\n" in out.stdout
        data = json.loads(runner.invoke(app, ["analyse", str(GAMES / name), "--json",
                                              "--backdoor-timeout", "0"]).stdout)
        assert data["grade"]["grade"] is None and data["grade"]["reason"] == reason
        assert data["grade"]["name"] == "not graded"


# -- one time limit for the whole command --------------------------------------------------------
def test_env_timeout_bounds_the_whole_analysis_and_keeps_what_finished(monkeypatch):
    """``NONOSAT_TIMEOUT=2 nonosat analyse faase.nin`` ran 91 s: the option's default (30 s) won
    over the variable, and each section had a limit of its own.  Faase is rarely decided in
    2 s (its verdict takes 1.8-6 s): the verdict says so and the sections it left no time for
    are marked, not run.  On a machine fast enough to decide it (CI did once, in 1.83 s) the
    verdict is its several solutions and the sections after it still have no time."""
    monkeypatch.setenv("NONOSAT_TIMEOUT", "2")
    path = corpus_path(*SURVEY, "faase.nin")
    out = runner.invoke(app, ["analyse", str(path), "--json"])
    assert out.exit_code in (1, 4), out.output
    data = json.loads(out.stdout)
    if out.exit_code == 4:  # undecided in 2 s
        assert data["status"] == "unknown" and data["sections"]["verdict"] == "cut short"
    else:  # decided: Faase has several solutions (two checked against its clues)
        assert data["status"] == "multiple" and data["sections"]["verdict"] == "done"
        assert data["solutions_found"] == 2 and data["solutions"][0] != data["solutions"][1]
        puzzle = read_puzzle(path)
        for rows in data["solutions"]:  # each one holds every clue (a run-length check)
            grid = [[c == "#" for c in row] for row in rows]
            assert [_runs(r) for r in grid] == [list(c) for c in puzzle.rows]
            assert [_runs(c) for c in zip(*grid, strict=True)] == [list(c) for c in puzzle.cols]
    assert data["sections"]["backdoor"] == "time limit"
    # the native root node (one compiled call, several seconds on a loaded machine) may overrun
    assert data["time_s"] < 2 + 8  # was 91 s


def _runs(cells) -> list[int]:
    """The lengths of the runs of filled cells in ``cells``, in order."""
    return [len(run) for run in "".join("#" if c else "." for c in cells).split(".") if run]


def test_env_timeout_bounds_every_section(monkeypatch, tmp_path):
    """A random 30x30 picture with several solutions: about 15 s of map, givens, edits and
    backdoor without a limit (measured); with ``NONOSAT_TIMEOUT=1`` the whole analysis stays
    near 1 s, keeps what finished and marks what it cut short."""
    from nonosat.formats import write_puzzle

    path = tmp_path / "random.non"
    write_puzzle(_random_30x30(), path)
    monkeypatch.setenv("NONOSAT_TIMEOUT", "1")
    out = runner.invoke(app, ["analyse", str(path), "--json"])
    assert out.exit_code == 1, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "multiple" and data["sections"]["verdict"] == "done"
    assert data["time_s"] < 1 + 1.5
    assert any(v in ("cut short", "time limit") for v in data["sections"].values())
    text = runner.invoke(app, ["analyse", str(path)]).stdout
    assert "time limits: " in text and "classification: several solutions" in text


def _random_30x30() -> Puzzle:
    """A random 30x30 picture with several solutions: about 15 s of map, givens, edits and
    backdoor without a limit (measured)."""
    rng = np.random.default_rng(3)
    rng.random((20, 20))
    return Puzzle.from_picture(rng.random((30, 30)) < 0.5)


def test_timeout_cuts_sections_short_and_reports_them():
    """A several-solution puzzle whose verdict takes milliseconds: a small limit leaves the map,
    givens, edits and backdoor cut short or not run, each marked, and the report says so; the
    analysis stays within the limit (and a little)."""
    puzzle = _random_30x30()
    result = analyse(puzzle, timeout=0.3)
    assert result.status == Status.MULTIPLE
    assert result.sections["verdict"] == "done"
    assert result.time_s < 0.3 + 2.0
    unfinished = {k for k, v in result.sections.items() if v in ("cut short", "time limit")}
    assert unfinished, result.sections
    from nonosat.cli.analyse import _report

    text = _report(result, "p")
    assert "time limits: " in text
    data = result.to_json()
    assert data["sections"] == result.sections
    small = read_puzzle(GAMES / "cross-ambiguous.non")
    full = analyse(small, timeout=None, backdoor_timeout=0)
    assert all(v in ("done", "skipped", "not applicable") for v in full.sections.values())
    assert "time limits: " not in _report(full, "p")


def test_overrun_report_prints_the_finished_sections():
    """When a compiled step overruns, the watchdog prints what finished before it exits."""
    from nonosat.cli.analyse import _report_on_overrun

    progress: list = []
    result = analyse(read_puzzle(GAMES / "cross-ambiguous.non"), timeout=None,
                     backdoor_timeout=0, progress=progress)
    assert progress == [result]
    try:
        _report_on_overrun(progress, "cross", False, 0)
        text = running.OVERRUN_REPORT()
        assert text.startswith("cross: ") and "classification: several solutions" in text
        _report_on_overrun(progress, "cross", True, 0)
        assert json.loads(running.OVERRUN_REPORT())["status"] == "multiple"
    finally:
        running.OVERRUN_REPORT = None


# -- guesses and backtracks ----------------------------------------------------------------------
def test_heart_solved_without_search_has_no_backtrack():
    data = json.loads(runner.invoke(app, ["solve", str(GAMES / "heart.non"), "--json"]).stdout)
    native = data["stats"]["native"]
    assert native["guesses"] == 0 and native["backtracks"] == 0


def test_explain_counts_guesses_and_backtracks_as_the_native_search():
    path = GAMES / "cross-ambiguous.non"
    out = runner.invoke(app, ["explain", str(path), "--json"])
    data = json.loads(out.stdout)
    steps = data["steps"]
    decisions = [s for s in steps if s["kind"] == "guess" and not s.get("branch")]
    branches = [s for s in steps if s.get("branch")]
    assert data["guesses"] == len(decisions) == data["counts"]["search"]["guess"]
    assert data["backtracks"] == len(branches) == data["counts"]["search"].get("other value", 0)
    assert all(s["text"].startswith("Try the other value") for s in branches)
    # the same search run by the compiled native solver (logic fixes nothing on the cross)
    search = NativeSearch(read_puzzle(path), limit=2)
    search.run(None)
    stats = search.stats()
    assert (stats["guesses"], stats["backtracks"]) == (data["guesses"], data["backtracks"])
    text = runner.invoke(app, ["explain", str(path)]).stdout
    assert len(re.findall(r"\[guess\]", text)) == data["guesses"]
    assert len(re.findall(r"\[other value\]", text)) == data["backtracks"]


def test_backtracks_never_exceed_guesses():
    rng = np.random.default_rng(7)
    for _ in range(20):
        puzzle = Puzzle.from_picture(rng.random((10, 10)) < 0.5)
        search = NativeSearch(puzzle, limit=2)
        search.run(None)
        stats = search.stats()
        assert stats["backtracks"] <= stats["guesses"]
        if stats["guesses"] == 0:
            assert stats["backtracks"] == 0


# -- solve --limit -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cross-ambiguous.non", "ladybird-ambiguous.xml"])
def test_solve_limit_above_the_count_is_exact(name):
    path = GAMES / name
    every = solve(read_puzzle(path), "cpsat", limit=1000).solutions
    assert 2 <= len(every) < 100
    stack = np.asarray(every)
    ambiguous = int((stack != stack[0]).any(axis=0).sum())
    out = runner.invoke(app, ["solve", str(path), "--limit", "100"])
    assert out.exit_code == 1
    assert f"{len(every)} solutions (all: the search ended below the limit 100)" in out.stdout
    assert f"classification: several solutions ({ambiguous} cells ambiguous)" in out.stdout
    data = json.loads(runner.invoke(app, ["solve", str(path), "--limit", "100", "--json"]).stdout)
    assert data["counted_all"] is True and len(data["solutions"]) == len(every)
    # cut by the limit: a lower bound
    out = runner.invoke(app, ["solve", str(path), "--limit", "2"])
    assert "2 solutions found (limit 2)" in out.stdout
    assert "several solutions (at least " in out.stdout


# -- edits ---------------------------------------------------------------------------------------
def test_analyse_says_no_edit_was_found():
    path = GAMES / "cross-ambiguous.non"
    puzzle = read_puzzle(path)
    out = runner.invoke(app, ["analyse", str(path), "--backdoor-timeout", "0"])
    assert "edit:" not in out.stdout
    n = puzzle.height * puzzle.width
    assert f"edits: none found (none of the {n} one-cell edits of the picture" in out.stdout
    # CP-SAT agrees: no one-cell edit of the picture has a unique solution
    for r in range(puzzle.height):
        for c in range(puzzle.width):
            picture = puzzle.goal.copy()
            picture[r, c] = not picture[r, c]
            assert solve(picture_puzzle(puzzle, picture), "cpsat", limit=2).status != \
                Status.UNIQUE
    data = json.loads(runner.invoke(app, ["analyse", str(path), "--json",
                                          "--backdoor-timeout", "0"]).stdout)
    assert data["edits"] == [] and data["edit_search"]["end"] == "all tried"
    assert data["edit_search"]["tried"] == data["edit_search"]["candidates"] == n
    # no time left: the search says it did not finish
    progress: dict = {}
    assert edit_suggestions(puzzle, np.ones(puzzle.shape, bool), deadline=0.0,
                            progress=progress) == []
    assert progress["end"] == "time limit" and progress["tried"] == 0


# -- goals that contradict the clues -------------------------------------------------------------
def test_goal_contradicting_the_clues_is_a_warning_everywhere(tmp_path):
    text = (GAMES / "heart.non").read_text()
    bad = tmp_path / "bad.non"
    bad.write_text(re.sub(r'goal "0', 'goal "1', text, count=1))
    puzzle = read_puzzle(bad)
    assert puzzle.goal is not None and not puzzle.is_solution(puzzle.goal)
    for args in (["solve"], ["analyse", "--backdoor-timeout", "0"], ["hint"], ["explain"],
                 ["render"], ["verify", "--claim", "unique"]):
        out = runner.invoke(app, [*args, str(bad)])
        assert out.exit_code == 0, (args, out.output)
        warnings = [line for line in out.stderr.splitlines() if "warning" in line]
        assert len(warnings) == 1, (args, out.stderr)
        assert "contradicts the clues" in warnings[0] and "bad.non" in warnings[0]
    for args in (["solve"], ["analyse", "--backdoor-timeout", "0"], ["hint"], ["explain"]):
        data = json.loads(runner.invoke(app, [*args, str(bad), "--json"]).stdout)
        assert len(data["warnings"]) == 1 and "row 1" in data["warnings"][0], args
    # a goal that fits: no warning
    out = runner.invoke(app, ["solve", str(GAMES / "heart.non"), "--json"])
    assert "warning" not in out.stderr and "warnings" not in json.loads(out.stdout)


# -- colour --------------------------------------------------------------------------------------
def test_colour_analysis_agrees_with_itself():
    ambiguous = analyse(read_puzzle(GAMES / "ladybird-ambiguous.xml"), backdoor_timeout=0)
    assert solve(ambiguous.puzzle, "cpsat", limit=2).status == Status.MULTIPLE
    assert ambiguous.grade.describe() == "not graded: several solutions"
    assert ambiguous.to_json()["grade"]["grade"] is None
    impossible = analyse(read_puzzle(GAMES / "ladybird-impossible.non"),
                                backdoor_timeout=0)
    assert impossible.grade.describe() == "not graded: no solution"
    unique = analyse(read_puzzle(GAMES / "ladybird.non"), backdoor_timeout=0)
    assert unique.status == Status.UNIQUE and unique.grade.graded
    needed = unique.techniques_needed
    assert unique.classification.startswith(WORDING[needed])
    assert unique.to_json()["techniques_needed"] == needed
    # one time limit: no time left after the verdict, the sections say so
    cut = analyse(read_puzzle(GAMES / "ladybird-ambiguous.xml"), timeout=1e-9)
    assert cut.sections["stages"] == "time limit" and cut.techniques_needed is None
    from nonosat.cli.analyse import _report

    text = _report(cut, "p")
    assert "logic stages: not run (time limit)" in text and "time limits: " in text
