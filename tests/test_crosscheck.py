"""Cross-checking the independent engines (native, sat, cpsat) and the ``crosscheck`` command.

Properties: on random pictures the engines agree and the picture is a solution every engine
accepts; on random (often contradictory) clue sets they agree.  Test doubles registered as engines
show that a wrong engine is caught and named.
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest
from conftest import corpus_path
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.engines import ENGINE_MODULES, INDEPENDENT_ENGINES, SolveResult, Status, get_engine
from nonosat.engines.compare import DEFAULT_ENGINES, DISAGREEMENT, crosscheck
from nonosat.errors import EngineError, PuzzleError
from nonosat.formats import iter_puzzles
from nonosat.formats.tournament import write_tournament_set
from nonosat.puzzle import Puzzle, solution_to_grid, unknown_grid

ENGINES = INDEPENDENT_ENGINES

#: Two solutions: the diagonals of a 2x2 grid.
TWO_SOLUTIONS = Puzzle([(1,), (1,)], [(1,), (1,)])
#: One solution: an L in the corner.
UNIQUE = Puzzle([(2,), (1,)], [(2,), (1,)])
UNIQUE_SOLUTION = np.array([[True, True], [True, False]])


# -- test doubles --------------------------------------------------------------------------------
class _Double:
    """Base of the test doubles: asks CP-SAT, then :meth:`tamper` with its answer."""

    name = "double"

    def solve(self, puzzle, *, partial=None, limit=2, timeout=None):
        result = get_engine("cpsat").solve(puzzle, partial=partial, limit=limit, timeout=timeout)
        return self.tamper(result)

    def tamper(self, result: SolveResult) -> SolveResult:
        raise NotImplementedError


class BrokenEngine(_Double):
    """Flips the top-left cell of every solution it returns."""

    name = "broken"

    def tamper(self, result):
        for sol in result.solutions:
            sol[0, 0] = not sol[0, 0]
        result.engine = self.name
        return result


class LazyEngine(_Double):
    """Stops at the first solution and calls it unique."""

    name = "lazy"

    def tamper(self, result):
        if result.solutions:
            result.solutions = result.solutions[:1]
            result.status = Status.UNIQUE
        return result


class DoubleEngine(_Double):
    """Claims two solutions by returning the same one twice."""

    name = "double"

    def tamper(self, result):
        result.solutions = [result.solutions[0], result.solutions[0].copy()]
        result.status = Status.MULTIPLE
        return result


class HopelessEngine(_Double):
    """Always says there is no solution."""

    name = "hopeless"

    def tamper(self, result):
        return SolveResult(Status.NONE, [], self.name, result.time_s)


class CrashingEngine(_Double):
    name = "crashing"

    def tamper(self, result):
        raise IndexError("index 7 is out of bounds")


class GiveUpEngine(_Double):
    name = "giveup"

    def tamper(self, result):
        return SolveResult(Status.UNKNOWN, [], self.name, result.time_s)


@pytest.fixture
def doubles(monkeypatch):
    """Register the test doubles as engines ``broken``, ``lazy``, ... ."""
    module = types.ModuleType("nonosat_test_doubles")
    for cls in (
        BrokenEngine,
        LazyEngine,
        DoubleEngine,
        HopelessEngine,
        CrashingEngine,
        GiveUpEngine,
    ):
        setattr(module, cls.__name__, cls)
        monkeypatch.setitem(ENGINE_MODULES, cls.name, f"nonosat_test_doubles:{cls.__name__}")
    monkeypatch.setitem(sys.modules, "nonosat_test_doubles", module)


def write_nin(path, puzzle: Puzzle):
    lines = [f"{puzzle.width} {puzzle.height}"]
    lines += [" ".join(map(str, c)) if c else "0" for c in puzzle.rows + puzzle.cols]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_cli(*args: str):
    return CliRunner().invoke(app, ["crosscheck", *map(str, args)])


# -- the report ----------------------------------------------------------------------------------
def test_agreeing_engines_give_their_verdict():
    assert crosscheck(UNIQUE, ENGINES).status == "unique"
    report = crosscheck(TWO_SOLUTIONS, ENGINES)
    assert report.status == "multiple" and not report.findings and not report.failed
    assert [run.engine for run in report.runs] == list(ENGINES)
    for run in report.runs:
        assert run.status == Status.MULTIPLE and len(run.solutions) == 2 and run.time_s > 0
    contradiction = Puzzle([(2,), ()], [(2,), ()])
    assert crosscheck(contradiction, ENGINES).status == "none"


def test_invalid_solution_is_reported_against_its_engine(doubles):
    report = crosscheck(UNIQUE, ["cpsat", "broken"])
    assert report.status == DISAGREEMENT
    invalid = [f for f in report.findings if f.kind == "invalid-solution"]
    assert [f.engine for f in invalid] == ["broken"]
    assert "row 1 should be 2 but is 1" in invalid[0].message
    assert "column 1 should be 2 but is 1" in invalid[0].message
    # the engine's unique verdict is refuted by CP-SAT's solution, naming the differing cell
    refuted = [f for f in report.findings if f.kind == "solution"]
    assert refuted[0].engine == "broken" and "(row 1, column 1)" in refuted[0].message


def test_unique_verdict_refuted_by_another_solution(doubles):
    report = crosscheck(TWO_SOLUTIONS, ["lazy", "cpsat"])
    assert report.status == DISAGREEMENT
    assert {f.kind for f in report.findings} == {"verdict", "solution"}
    assert all(f.engine in (None, "lazy") for f in report.findings)
    assert "lazy unique, cpsat multiple" in report.findings[0].message


def test_none_verdict_refuted_by_a_solution(doubles):
    report = crosscheck(UNIQUE, ["hopeless", "cpsat"])
    assert report.status == DISAGREEMENT
    assert any(f.kind == "verdict" and f.engine == "hopeless" for f in report.findings)


def test_duplicate_solutions_do_not_make_multiple(doubles):
    report = crosscheck(UNIQUE, ["double"])
    assert report.status == DISAGREEMENT
    assert report.findings[0].kind == "inconsistent-result"
    assert "same solution twice" in report.findings[0].message


def test_crashing_engine_is_a_finding_and_the_others_still_run(doubles):
    report = crosscheck(UNIQUE, ["crashing", "cpsat"])
    assert report.status == DISAGREEMENT
    assert report.findings[0].kind == "engine-error"
    assert "IndexError" in report.findings[0].message
    assert report.runs[1].status == Status.UNIQUE


def test_engine_that_gives_up_does_not_hide_the_others(doubles):
    report = crosscheck(UNIQUE, ["giveup", "cpsat"])
    assert report.gave_up and not report.failed
    assert report.status == "unique"
    assert crosscheck(UNIQUE, ["giveup"]).status == "unknown"


def test_goal_picture_is_checked():
    wrong_goal = Puzzle(UNIQUE.rows, UNIQUE.cols, goal=~UNIQUE_SOLUTION)
    report = crosscheck(wrong_goal, ["cpsat"])
    assert report.failed and report.status == "unique"
    assert [f.kind for f in report.findings] == ["goal"]
    assert "row 1 should be 2 but is 0" in report.findings[0].message
    assert not crosscheck(Puzzle.from_picture(UNIQUE_SOLUTION), ["cpsat"]).findings


def test_valid_goal_refutes_a_unique_verdict_that_differs(doubles):
    found = get_engine("lazy").solve(TWO_SOLUTIONS).solutions[0]
    report = crosscheck(Puzzle.from_picture(~found), ["lazy"])  # the goal is the other diagonal
    assert report.status == DISAGREEMENT
    assert report.findings[0].kind == "solution"
    assert "the goal picture" in report.findings[0].message


def test_unknown_engine_is_refused():
    with pytest.raises(EngineError, match="unknown engine 'nope'"):
        crosscheck(UNIQUE, ["cpsat", "nope"])


def test_report_json_shape():
    obj = crosscheck(UNIQUE, ENGINES, puzzle_id="corner").to_json()
    json.dumps(obj)
    assert obj["id"] == "corner" and obj["status"] == "unique" and obj["findings"] == []
    for name in ENGINES:
        assert obj["engines"][name]["verdict"] == "unique"
        assert obj["engines"][name]["solutions"] == [["##", "#."]]
        assert obj["engines"][name]["time_s"] >= 0


@pytest.mark.parametrize(
    "rows, cols",
    [([(1,), None], [(1,), None]), ([None], [None]), ([(), None], [None, None])],
)
def test_engines_agree_when_some_cells_have_no_known_clue(rows, cols):
    # the last cell lies on an unknown row and an unknown column: no constraint mentions it
    report = crosscheck(Puzzle(rows, cols), ENGINES)
    assert not report.findings, report.findings
    assert report.status == "multiple"


# -- properties ----------------------------------------------------------------------------------
@st.composite
def pictures(draw, max_size: int = 15):
    height, width = draw(st.integers(1, max_size)), draw(st.integers(1, max_size))
    density = draw(st.sampled_from([0.1, 0.3, 0.5, 0.6, 0.75, 0.9]))
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).random((height, width)) < density


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pictures(), st.integers(0, 2**32 - 1))
def test_engines_agree_on_random_pictures_and_accept_the_picture(picture, seed):
    puzzle = Puzzle.from_picture(picture)  # the picture is also the goal, checked as a witness
    report = crosscheck(puzzle, ENGINES)
    assert not report.findings, report.findings
    assert report.status in ("unique", "multiple")
    if report.status == "unique":
        for run in report.runs:
            assert (run.solutions[0] == picture).all()
    # with a random part of the picture given, no engine may lose it
    partial = unknown_grid(puzzle)
    given_cells = np.random.default_rng(seed).random(puzzle.shape) < 0.5
    partial[given_cells] = solution_to_grid(picture)[given_cells]
    for name in ENGINES:
        result = get_engine(name).solve(puzzle, partial=partial, limit=2)
        assert result.status in (Status.UNIQUE, Status.MULTIPLE), name
        for sol in result.solutions:
            assert puzzle.is_solution(sol)
            assert (sol[given_cells] == picture[given_cells]).all()
        fixed = get_engine(name).solve(puzzle, partial=solution_to_grid(picture), limit=2)
        assert fixed.status == Status.UNIQUE and (fixed.solutions[0] == picture).all(), name


@st.composite
def clue_sets(draw):
    """Rows of one picture, columns of another with as many filled cells (so the totals match
    but the clues are often contradictory); sometimes a few unknown clues."""
    picture = draw(pictures(max_size=12))
    shuffled = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).permutation(picture.ravel())
    other = shuffled.reshape(picture.shape)
    rows = list(Puzzle.from_picture(picture).rows)
    cols = list(Puzzle.from_picture(other).cols)
    if draw(st.booleans()):
        n = len(rows + cols)  # about one clue in four unknown
        mask = draw(st.lists(st.sampled_from([False, False, False, True]), min_size=n, max_size=n))
        rows = [None if m else c for c, m in zip(rows, mask[: len(rows)], strict=True)]
        cols = [None if m else c for c, m in zip(cols, mask[len(rows) :], strict=True)]
    try:
        return Puzzle(rows, cols)
    except PuzzleError:
        assume(False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clue_sets())
def test_engines_agree_on_random_clue_sets(puzzle):
    report = crosscheck(puzzle, ENGINES)
    assert not report.findings, report.findings
    assert report.status in ("unique", "multiple", "none")


# -- the command ---------------------------------------------------------------------------------
def test_cli_broken_engine_exits_1_and_is_named(doubles, tmp_path):
    path = write_nin(tmp_path / "corner.nin", UNIQUE)
    result = run_cli(path, "--engines", "cpsat,broken")
    assert result.exit_code == 1, result.output
    assert "broken" in result.output and "invalid-solution" in result.output
    assert "disagreement" in result.output
    result = run_cli(path, "--engines", "cpsat,broken", "--json")
    assert result.exit_code == 1
    obj = json.loads(result.stdout)
    assert obj["status"] == "unknown" and obj["ok"] is False  # DISAGREEMENT: the findings say
    assert any(f["engine"] == "broken" and f["kind"] == "invalid-solution" for f in obj["findings"])


def test_cli_agreement_exits_0_with_a_table(tmp_path):
    path = write_nin(tmp_path / "corner.nin", UNIQUE)
    result = run_cli(path)
    assert result.exit_code == 0, result.output
    for name in DEFAULT_ENGINES:  # by default: auto (solve's portfolio), sat, cpsat
        assert name in result.output
    assert "1 agreed" in result.output


def test_cli_json_one_line_per_puzzle_of_a_multi_puzzle_file(tmp_path):
    path = tmp_path / "set.txt"
    path.write_bytes(write_tournament_set([UNIQUE, TWO_SOLUTIONS, Puzzle([(3,)] * 3, [(3,)] * 3)]))
    single = write_nin(tmp_path / "one.nin", UNIQUE)
    result = run_cli(path, single, "--json", "-e", ",".join(ENGINES))
    assert result.exit_code == 0, result.output
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["puzzle"] for o in objs] == [f"{path}#1", f"{path}#2", f"{path}#3", str(single)]
    assert [o["status"] for o in objs] == ["unique", "multiple", "unique", "unique"]
    for obj in objs:
        assert set(obj["engines"]) == set(ENGINES)
        for run in obj["engines"].values():
            assert {"status", "time_s", "solutions"} <= set(run)
    assert objs[2]["engines"]["cpsat"]["solutions"] == [["###"] * 3]


def test_cli_format_option_reads_every_file_in_that_format(tmp_path):
    path = write_nin(tmp_path / "corner.clues", UNIQUE)
    result = run_cli(path, "--format", "nin", "-e", "cpsat", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["engines"]["cpsat"]["solutions"] == [["##", "#."]]


def test_cli_engine_that_gives_up_exits_4(doubles, tmp_path):
    path = write_nin(tmp_path / "corner.nin", UNIQUE)
    assert run_cli(path, "--engines", "cpsat,giveup").exit_code == 4


def test_cli_bad_input_exits_2(tmp_path):
    good = write_nin(tmp_path / "corner.nin", UNIQUE)
    bad = tmp_path / "bad.nin"
    bad.write_text("2 2\n1\nx\n1\n1\n")
    cases = (
        [tmp_path / "missing.nin"],
        [bad],
        [good, "--engines", "cpsat,nope"],
        [good, "-e", ","],
    )
    for args in cases:
        result = run_cli(
            *args, *(["-e", "cpsat"] if "-e" not in args and "--engines" not in args else [])
        )
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
    assert "bad.nin:3" in run_cli(bad, "-e", "cpsat").output


# -- the corpus ----------------------------------------------------------------------------------
SURVEY = [
    "webpbn-00001", "webpbn-00006", "webpbn-00016", "webpbn-00021", "webpbn-00023",
    "webpbn-00027", "webpbn-00065", "webpbn-00436", "webpbn-00529", "webpbn-00803",
    "webpbn-01611", "webpbn-06574",
]  # fmt: skip


@pytest.mark.corpus
def test_survey_puzzles_agree_unique():
    # knotty and faase are left to the performance work
    survey = corpus_path("FastNonogramSolver", "puzzles", "survey")
    result = run_cli(
        *(survey / f"{name}.nin" for name in SURVEY), "--json", "-e", ",".join(ENGINES)
    )
    assert result.exit_code == 0, result.output
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(objs) == len(SURVEY)
    assert all(o["status"] == "unique" and not o["findings"] for o in objs)


@pytest.mark.corpus
def test_cli_timeout_reaches_the_engine_and_exits_4():
    # --timeout 0 means "no limit" (nonosat.limits.resolve_timeout); a tiny limit must still bite
    knotty = corpus_path("FastNonogramSolver", "puzzles", "survey", "knotty.nin")
    result = run_cli(knotty, "-e", "cpsat", "--timeout", "0.01", "--json")
    assert result.exit_code == 4, result.output
    obj = json.loads(result.stdout)
    assert obj["status"] == "unknown" and obj["engines"]["cpsat"]["status"] == "unknown"


@pytest.mark.corpus
def test_jwilk_everyday_puzzles_agree():
    files = sorted(corpus_path("jwilk-nonogram", "data").glob("*.nin"))
    assert len(files) == 151
    result = run_cli(*files, "--json", "-e", ",".join(ENGINES))
    assert result.exit_code == 0, result.output
    statuses = [json.loads(line)["status"] for line in result.stdout.splitlines()]
    assert len(statuses) == len(files)
    assert set(statuses) <= {"unique", "multiple"} and statuses.count("unique") > 100


@pytest.mark.corpus
def test_survey_xml_goal_pictures_match_the_unique_solution():
    wolter = corpus_path("number-loom", "examples", "wolter")
    files = [wolter / f"{name}.xml" for name in SURVEY]
    # the same puzzles as the .nin test above, which runs every engine; here the goals matter
    result = run_cli(*files, "--json", "-e", "sat,cpsat")
    assert result.exit_code == 0, result.output
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["status"] for o in objs] == ["unique"] * len(SURVEY)
    # the files carry goals: a goal that differed from the solution would have been a finding
    assert all(p.goal is not None for f in files for _, p in iter_puzzles(f))
