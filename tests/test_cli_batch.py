"""``nonosat batch``'s summary: which puzzles have several solutions / none / failed, the grade
breakdown of ``--do analyse``, load time apart, and the --help job list (issue 15, CLI)."""

from __future__ import annotations

import json
from collections import Counter

from typer.testing import CliRunner

from nonosat.batch.jobs import JOBS
from nonosat.cli.app import app
from nonosat.cli.batch import JOB_HELP
from nonosat.engines import solve
from nonosat.formats import read_puzzle
from tests.conftest import GAMES

runner = CliRunner()


def _games(tmp_path):
    """The shipped games plus a file that cannot be read."""
    folder = tmp_path / "games"
    folder.mkdir()
    for path in GAMES.iterdir():
        if path.is_file() and path.suffix != ".md":
            (folder / path.name).write_bytes(path.read_bytes())
    (folder / "broken.nin").write_text("2 2\n1\nx\n1\n1\n")
    return folder


def _expected_status(path):
    """The verdict of CP-SAT (not the batch's engine) on one game."""
    return solve(read_puzzle(path), "cpsat", limit=2).status.value


def test_summary_lists_several_none_and_failed(tmp_path):
    folder = _games(tmp_path)
    out = tmp_path / "r.jsonl"
    args = ["batch", str(folder), "--out", str(out), "-j", "1", "-t", "30"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 2, result.output  # the unreadable file
    summary = json.loads(result.stdout)
    files = sorted(p for p in folder.iterdir() if p.name != "broken.nin")
    expected = {str(p): _expected_status(p) for p in files}
    assert sorted(summary["multiple"]) == sorted(k for k, v in expected.items() if v == "multiple")
    assert sorted(summary["none"]) == sorted(k for k, v in expected.items() if v == "none")
    assert summary["multiple"] and summary["none"]
    assert [f["puzzle"] for f in summary["failures"]] == [str(folder / "broken.nin")]
    # the table names them too (the rerun reads the results file: nothing is run again)
    text = runner.invoke(app, args).stdout
    assert f"several solutions ({len(summary['multiple'])})" in text
    assert f"no solution ({len(summary['none'])})" in text and "failures (1)" in text
    for name in ("cross-ambiguous.non", "impossible.non"):
        assert name in text
    assert "unreadable" in text
    # every row carries the engine's time and the load time apart
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    decided = [r for r in rows if r["status"] in ("unique", "multiple", "none")]
    assert len(decided) == len(files)
    assert all("load_s" in r and "time_s" in r for r in decided)


def test_analyse_summary_has_the_grade_breakdown(tmp_path):
    folder = _games(tmp_path)
    (folder / "broken.nin").unlink()
    out = tmp_path / "a.jsonl"
    args = ["batch", str(folder), "--do", "analyse", "--out", str(out), "-j", "1", "-t", "30"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    from nonosat.analysis.difficulty import GRADE_NAMES

    def grade(record):  # {"grade": 3, "name": "hard"} or, for colour puzzles, a bare 3
        g = record["grade"]["grade"] if isinstance(record["grade"], dict) else record["grade"]
        return f"{g} ({GRADE_NAMES[g]})"

    # issue 25: puzzles without a solution or with several (CP-SAT's verdict, not the batch's)
    # get no grade and are listed apart
    verdicts = {str(folder / p.name): _expected_status(p) for p in folder.iterdir()}
    apart = {"none": "not graded: no solution", "multiple": "not graded: several solutions"}
    assert {"none", "multiple"} <= set(verdicts.values())
    graded = [r for r in records if verdicts[r.get("puzzle", r.get("id"))] not in apart]
    expected = Counter(grade(r) for r in graded)
    assert summary["grades"] == dict(expected)
    assert summary["not_graded"] == dict(Counter(apart[v] for v in verdicts.values()
                                                 if v in apart))
    assert all(r["grade"]["grade"] is None for r in records
               if verdicts[r.get("puzzle", r.get("id"))] in apart)
    assert (sum(summary["grades"].values()) + sum(summary["not_graded"].values())
            == len(records) == len(list(folder.iterdir())))
    assert list(summary["grades"]) == sorted(summary["grades"])  # by grade
    text = runner.invoke(app, args).stdout
    assert "difficulty grades" in text and "not graded" in text
    for grade in [*expected, *summary["not_graded"]]:
        assert grade in text


def test_check_summary_has_no_grade_table(tmp_path):
    folder = _games(tmp_path)
    (folder / "broken.nin").unlink()
    result = runner.invoke(app, ["batch", str(folder), "-j", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["grades"] == {}


def test_help_lists_every_job():
    assert set(JOB_HELP) == set(JOBS)
    for name, job in JOBS.items():
        assert JOB_HELP[name] == job.description
    text = runner.invoke(app, ["batch", "-h"]).stdout
    for name in JOBS:
        assert f"{name} =" in " ".join(text.split())
