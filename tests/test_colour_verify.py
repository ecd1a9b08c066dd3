"""Judging another solver's answers about colour puzzles: valid and invalid solutions, claims
confirmed by a checked certificate or refuted by two solutions."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.formats import read_puzzle
from nonosat.judge import parse_solution, verify
from tests.conftest import GAMES

runner = CliRunner()


def test_colour_claims_and_solutions_are_judged():
    lady = read_puzzle(GAMES / "ladybird.non")
    good = verify(lady, "unique", [lady.goal])
    assert good.outcome == "confirmed" and good.certified
    wrong = lady.goal.copy()
    wrong[10, 1] = 0  # a leg removed
    bad = verify(lady, None, [wrong])
    assert bad.outcome == "refuted"
    names = {e.name for e in bad.checks[0].errors}
    assert names == {"row 11", "column 2"}
    assert "expected 1k 1k" in str(next(e for e in bad.checks[0].errors if e.name == "row 11"))
    amb = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    judged = verify(amb, "unique")
    assert judged.outcome == "refuted" and judged.truth == "multiple"
    a, b = judged.evidence
    assert not np.array_equal(a, b) and not amb.line_errors(a) and not amb.line_errors(b)
    none = verify(read_puzzle(GAMES / "ladybird-impossible.non"), "none")
    assert none.outcome == "confirmed" and none.certified


def test_parse_colour_solution_rows():
    lady = read_puzzle(GAMES / "ladybird.non")
    rows = ["".join(lady.palette.chars[v] for v in r) for r in lady.goal]
    assert np.array_equal(parse_solution(rows, lady.shape, lady.palette), lady.goal)


def test_cli_verify_colour_with_witness(tmp_path):
    out = tmp_path / "w"
    result = runner.invoke(app, ["verify", str(GAMES / "ladybird.non"), "--solution",
                                 str(GAMES / "ladybird.non"), "--claim", "unique", "--json",
                                 "--out", str(out), "--checker", "dratify"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == "confirmed" and data["certified"]
    check = runner.invoke(app, ["verify-certificate", str(out / "certificate")])
    assert check.exit_code == 0, check.output
