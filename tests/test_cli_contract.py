"""The command-line contract (``docs/cli.md``): one JSON schema for every ``--json``, validated
with ``jsonschema`` against the real output of every command (``docs/schema/``); the brief
format; one spelling per option; help texts with defaults and environment variables; one-line
usage errors; 80 columns; wide grids summarised; resuming on an old results file."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from typer.testing import CliRunner

from nonosat.cli.app import COMMANDS, app
from tests.conftest import GAMES, REPO

SCHEMAS = REPO / "docs" / "schema"
runner = CliRunner()


def _registry() -> tuple[Registry, dict[str, dict]]:
    schemas = {p.stem: json.loads(p.read_text()) for p in SCHEMAS.glob("*.json")}
    resources = [(s["$id"], Resource.from_contents(s)) for s in schemas.values()]
    return Registry().with_resources(resources), schemas


REGISTRY, SCHEMA = _registry()


def validate(name: str, obj: dict) -> None:
    """``obj`` is valid under ``docs/schema/NAME.json`` (every error listed on failure)."""
    validator = Draft202012Validator(SCHEMA[name], registry=REGISTRY)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(obj)]
    assert not errors, (name, errors[:5])


def run(*args: str, code: int | None = None, env: dict | None = None):
    result = runner.invoke(app, [str(a) for a in args], env=env)
    if code is not None:
        assert result.exit_code == code, (args, result.output)
    return result


def lines_json(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# -- the JSON contract on every command's real output ------------------------------------------


def test_schemas_are_valid_json_schema():
    for schema in SCHEMA.values():
        Draft202012Validator.check_schema(schema)


def test_the_schema_rejects_the_old_names():
    """The schema can fail: an object with an old name (``id``, ``verdict``, ...), a status out
    of the vocabulary or a 0-based cell is refused."""
    good = json.loads(run("solve", GAMES / "heart.non", "--json", code=0).stdout)
    validate("solve", good)
    for bad in ({**good, "verdict": "unique"}, {**good, "status": "deduction"},
                {**good, "schema": "nonosat/0"}, {k: v for k, v in good.items() if k != "puzzle"}):
        with pytest.raises(AssertionError):
            validate("solve", bad)
    step = {"text": "x", "cells": [{"row": 0, "col": 1, "value": "filled"}]}
    explain = json.loads(run("explain", GAMES / "impossible.non", "--json", code=3).stdout)
    with pytest.raises(AssertionError):
        validate("explain", {**explain, "steps": [step]})


@pytest.mark.parametrize(("game", "code"), [("heart.non", 0), ("cross-ambiguous.non", 1),
                                            ("impossible.non", 3), ("ladybird.non", 0)])
def test_solve_json(game, code):
    obj = json.loads(run("solve", GAMES / game, "--json", code=code).stdout)
    validate("solve", obj)
    assert obj["command"] == "solve" and obj["puzzle"] == str(GAMES / game)
    # everything the text prints: the classification and the short codes
    text = run("solve", GAMES / game).stdout
    assert f"classification: {obj['classification']}" in text
    for key, label in (("short_image", "short image"), ("short_rules", "short rules")):
        assert (f"{label}: {obj[key]}" in text) if obj[key] else label not in text


def test_analyse_json_has_one_copy_of_each_figure():
    obj = json.loads(run("analyse", GAMES / "cross-ambiguous.non", "--json", code=1).stdout)
    validate("analyse", obj)
    assert "deductions" not in obj and "solve_time_s" not in obj
    assert sum(obj["cells_by_stage"].values()) == 35
    assert obj["ambiguity"]["cells"] and all(set(c) == {"row", "col"}
                                             for c in obj["ambiguity"]["cells"])
    assert obj["time_s"] <= obj["analysis_s"] + obj["elapsed_s"]
    validate("analyse", json.loads(run("analyse", GAMES / "heart.non", "--json", code=0).stdout))


def test_explain_and_hint_json():
    doc = json.loads(run("explain", GAMES / "cross-ambiguous.non", "--json", code=1).stdout)
    validate("explain", doc)
    # 1-based cells and lines: the first step's cells lie on its line
    step = next(s for s in doc["steps"] if s["cells"] and s["line"])
    key = "row" if step["line"]["axis"] == "row" else "col"
    assert {c[key] for c in step["cells"]} == {step["line"]["index"]}
    assert doc["stuck"]["status"] == "multiple"
    validate("explain", json.loads(run("explain", GAMES / "heart.non", "--json", code=0).stdout))
    hint = json.loads(run("hint", GAMES / "heart.non", "--json", code=0).stdout)
    validate("hint", hint)
    assert hint["outcome"] == "deduction" and "status" not in hint
    guess = json.loads(run("hint", GAMES / "cross-ambiguous.non", "--json", code=1).stdout)
    validate("hint", guess)
    assert guess["status"] == "multiple" and guess["outcome"] == "guess"
    colour = json.loads(run("hint", GAMES / "ladybird.non", "--json", code=0).stdout)
    validate("hint", colour)


def test_crosscheck_json_lines():
    objs = lines_json(run("crosscheck", GAMES, "--json", "--engine", "native,sat",
                          code=0).stdout)
    assert len(objs) == len([p for p in GAMES.iterdir() if p.is_file()])
    for obj in objs:
        validate("crosscheck", obj)
        assert obj["ok"] and set(obj["engines"]) == {"native", "sat"}


def test_certify_and_verify_certificate_json(tmp_path):
    cert = tmp_path / "cert"
    obj = json.loads(run("certify", GAMES / "heart.non", "--out", cert, "--json",
                         code=0).stdout)
    validate("certify", obj)
    assert obj["status"] == "unique" and obj["certified"]
    checked = json.loads(run("verify-certificate", cert, "--json", code=0).stdout)
    validate("verify-certificate", checked)
    assert checked["puzzle"] == str(cert) and checked["status"] == "unique" and checked["ok"]
    assert len(checked["fingerprint"]) == 64
    several = json.loads(run("certify", GAMES / "cross-ambiguous.non", "--out",
                             tmp_path / "c2", "--json", code=1).stdout)
    validate("certify", several)
    assert several["status"] == "multiple"


def test_verify_json_one_puzzle_and_a_results_file(tmp_path):
    obj = json.loads(run("verify", GAMES / "cross-ambiguous.non", "--claim", "unique",
                         "--json", code=1).stdout)
    validate("verify", obj)
    assert obj["status"] == "multiple" and obj["outcome"] == "refuted" and not obj["ok"]
    results = tmp_path / "r.jsonl"
    results.write_text('{"id": "heart.non", "status": "unique"}\n'
                       '{"id": "impossible.non", "status": "unique"}\n')
    objs = lines_json(run("verify", "--results", results, GAMES, "--json", "-j", "1",
                          code=1).stdout)
    assert [o.get("kind") for o in objs] == [None, None, "summary"]
    for obj in objs:
        validate("verify", obj)
    rows = {o["row_id"]: o for o in objs[:2]}
    assert rows["heart.non"]["ok"] and rows["impossible.non"]["status"] == "none"


def test_batch_json_and_results_file(tmp_path):
    out = tmp_path / "r.jsonl"
    summary = json.loads(run("batch", GAMES, "--do", "analyse", "--out", out, "--json",
                             "-j", "1", code=0).stdout)
    validate("batch", summary)
    records = lines_json(out.read_text())
    assert len(records) == summary["puzzles"]
    for record in records:
        validate("batch-record", record)
        assert record["job"] == "analyse" and "analysis_s" in record
    # the text summary of the same results (resumed: nothing runs) fits 80 columns in a pipe
    text = run("batch", GAMES, "--do", "analyse", "--out", out, code=0).stdout
    assert "difficulty grades" in text and max(len(x) for x in text.splitlines()) <= 80


def test_formats_json():
    obj = json.loads(run("formats", "--json", code=0).stdout)
    validate("formats", obj)


# -- resuming on a results file of an older nonosat -------------------------------------------


def test_batch_resumes_on_an_old_results_file(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    for name in ("heart.non", "impossible.non", "cross-ambiguous.non"):
        shutil.copy(GAMES / name, folder)
    out = tmp_path / "r.jsonl"
    # records as nonosat wrote them before the contract: id, wall_s, a failure as the status
    old = [{"id": str(folder / "heart.non"), "job": "check", "puzzle": str(folder / "heart.non"),
            "status": "unique", "time_s": 0.001, "wall_s": 0.01, "error": None},
           {"id": str(folder / "impossible.non"), "job": "check", "status": "timeout",
            "wall_s": 60.0, "error": "killed"}]
    out.write_text("".join(json.dumps(r) + "\n" for r in old))
    summary = json.loads(run("batch", folder, "--out", out, "--json", "-j", "1",
                             code=4).stdout)
    assert summary["earlier"] == 2 and summary["ran"] == 1  # only cross-ambiguous ran
    assert summary["counts"] == {"unique": 1, "timeout": 1, "multiple": 1}
    assert [f["puzzle"] for f in summary["failures"]] == [str(folder / "impossible.non")]
    lines = out.read_text().splitlines()
    assert [json.loads(x) for x in lines[:2]] == old  # left as they were
    new = json.loads(lines[2])
    validate("batch-record", new)
    assert new["puzzle"] == str(folder / "cross-ambiguous.non") and new["status"] == "multiple"
    # --retry-failed reruns the old failure (--brief: its line, as it finishes)
    again = run("batch", folder, "--out", out, "--brief", "-j", "1", "--retry-failed", code=0)
    (m,) = _brief(again.stdout)
    assert m.group(1) == str(folder / "impossible.non") and m.group(2) == "none"
    validate("batch-record", json.loads(out.read_text().splitlines()[-1]))


# -- brief output ------------------------------------------------------------------------------

BRIEF = re.compile(r"^(\S+) (unique|multiple|none|solved|unknown) (\d+\.\d{3}s|-)( \S+)*$")


def _brief(text: str) -> list[re.Match]:
    matches = [BRIEF.match(line) for line in text.splitlines()]
    assert all(matches), text
    return matches


def test_brief_one_line_per_puzzle(tmp_path):
    (m,) = _brief(run("solve", GAMES / "heart.non", "-q", code=0).stdout)
    assert m.group(1) == str(GAMES / "heart.non") and m.group(2) == "unique"
    (m,) = _brief(run("analyse", GAMES / "heart.non", "--brief", code=0).stdout)
    assert m.group(0).endswith(" grade=1")
    (m,) = _brief(run("verify", GAMES / "heart.non", "--claim", "unique", "-q", code=0).stdout)
    assert m.group(0).endswith(" confirmed")
    (m,) = _brief(run("certify", GAMES / "heart.non", "--out", tmp_path / "c", "-q",
                      code=0).stdout)
    assert m.group(0).endswith(" certified")
    (m,) = _brief(run("verify-certificate", tmp_path / "c", "-q", code=0).stdout)
    assert m.group(1) == str(tmp_path / "c") and m.group(0).endswith(" verified")
    files = sorted(str(p) for p in GAMES.iterdir() if p.is_file())
    found = _brief(run("crosscheck", GAMES, "-q", "-e", "native", code=0).stdout)
    assert sorted(m.group(1) for m in found) == files
    statuses = {m.group(1).rsplit("/", 1)[-1]: m.group(2) for m in found}
    assert statuses["impossible.non"] == "none" and statuses["cross-ambiguous.non"] == "multiple"
    # batch --brief: test_batch_resumes_on_an_old_results_file


def test_brief_names_a_puzzle_of_a_multi_puzzle_file(tmp_path):
    from nonosat.formats import read_puzzle, write_puzzles

    path = tmp_path / "set.non"
    write_puzzles([read_puzzle(GAMES / "heart.non"), read_puzzle(GAMES / "impossible.non")],
                  path)
    (m,) = _brief(run("solve", f"{path}#2", "-q", code=3).stdout)
    assert m.group(1) == f"{path}#2" and m.group(2) == "none"


# -- text output: the verdict line names the file; wide grids are summarised -------------------


def test_the_verdict_line_names_the_file(tmp_path):
    text = run("solve", GAMES / "sailboat.nin", code=0).stdout
    assert f"{GAMES / 'sailboat.nin'}: 15x11 puzzle: unique solution [" in text
    cert = run("certify", GAMES / "heart.non", "--out", tmp_path / "c", code=0).stdout
    assert cert.startswith(f"{GAMES / 'heart.non'}: Heart (13x11): unique solution, certified")


def test_grids_wider_than_the_terminal_are_summarised():
    narrow = run("solve", GAMES / "house.json", code=0, env={"COLUMNS": "30"}).stdout
    assert all(len(line) <= 30 for line in narrow.splitlines())  # the summaries wrapped too
    narrow = " ".join(narrow.split())  # their words, joined back
    assert "|" not in narrow and "(13x12 grid not shown: " in narrow
    assert "see --json or render --out F.svg" in narrow
    assert "short rules: (not shown: 37 characters; see --json)" in narrow
    wide = run("solve", GAMES / "house.json", code=0, env={"COLUMNS": "80"}).stdout
    assert "|  ##  ######  ######  ##  |" in wide and "not shown" not in wide


# -- options, help and errors ------------------------------------------------------------------


def test_engine_is_one_spelling_in_crosscheck_and_batch():
    for spelling in ("--engine", "-e", "--engines"):  # --engines: the hidden old spelling
        (m,) = _brief(run("crosscheck", GAMES / "heart.non", spelling, "native,sat", "-q",
                          code=0).stdout)
        assert m.group(0).endswith(" ok")
    summary = json.loads(run("batch", GAMES / "heart.non", "--engines", "native,sat", "--do",
                             "crosscheck", "-j", "1", "--json", code=0).stdout)
    assert summary["counts"] == {"unique": 1}
    for command in ("crosscheck", "batch"):
        help_text = run(command, "-h", code=0).stdout
        assert "--engine NAME[,NAME...]" in help_text and "--engines" not in help_text
    both = run("crosscheck", GAMES / "heart.non", "--engine", "sat", "--engines", "native",
               code=2)
    assert "--engine once" in both.output


def test_batch_certify_needs_a_certificate_directory(tmp_path):
    out = tmp_path / "r.jsonl"
    result = run("batch", GAMES / "heart.non", "--do", "certify", "--out", out, code=2)
    assert "--cert-dir" in result.output and not out.exists()


def test_verify_lists_cake_lpr_and_takes_checker_path(tmp_path):
    help_text = run("verify", "-h", code=0, env={"COLUMNS": "80"}).stdout
    assert "cake_lpr" in help_text and "--checker-path" in help_text
    assert "NONOSAT_CHECKER_PATH" in help_text
    run("verify", GAMES / "heart.non", "--claim", "unique", "--checker-path", tmp_path, code=0)


def test_s_has_one_meaning():
    """``-s`` is ``--solution FILE`` (verify); render's ``--solution`` flag has no ``-s``."""
    assert "-s, --solution FILE" in run("verify", "-h", code=0).stdout
    assert "-s," not in run("render", "-h", code=0).stdout
    run("render", GAMES / "heart.non", "-s", code=2)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_fits_80_columns_and_names_defaults(command):
    text = run(command, "-h", code=0, env={"COLUMNS": "80"}).stdout
    long = [line for line in text.splitlines() if len(line) > 80]
    assert not long, long
    assert "x>=" not in text and "x<=" not in text
    if "-t, --timeout" in text:  # every time limit says its default and its variable
        block = text[text.index("-t, --timeout"):].split("\n  -")[0]
        assert "$NONOSAT_TIMEOUT" in block and "default:" in block, block


def test_main_help_fits_80_columns():
    text = run("-h", code=0, env={"COLUMNS": "80"}).stdout
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize("args", [
    ["solve", "--limit", "0", "x.non"], ["solve", "--bogus", "x.non"], ["solve"],
    ["bogus"], ["solve", "--limit", "x", "y"], ["analyse", "x.non", "--backdoor-logic", "x"],
    ["batch", "--timeout", "-1", "x"], ["certify", "x.non"],
])
def test_usage_errors_are_one_line(args):
    result = run(*args, code=2)
    (line,) = result.output.strip().splitlines()
    assert line.startswith("nonosat: error: ") and "Traceback" not in line
    assert "x>=" not in line and "Usage:" not in line
    assert re.search(r"\(try 'nonosat( [a-z-]+)? -h'\)$", line), line


def test_no_arguments_still_shows_the_help():
    result = run(code=2)
    assert result.output.startswith("Usage: nonosat") and "Commands:" in result.output


def test_messages_do_not_leak_internals():
    result = run("solve", GAMES / "heart.non", "--format", "foo", code=2)
    assert "<format>" not in result.output and "--format: unknown format 'foo'" in result.output
    assert "must be at least 1 (got 0)" in run("solve", "--limit", "0", "x", code=2).output


def test_formats_and_tables_fit_80_columns_in_a_pipe(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # the width of a pipe: 80
    text = run("formats", code=0).stdout
    assert max(len(line) for line in text.splitlines()) <= 80
    for name in ("webpbn", "tournament", "olsak"):
        assert re.search(rf"^{name} ", text, re.M)
    table = run("crosscheck", GAMES, "-e", "native", code=0).stdout
    assert max(len(line) for line in table.splitlines()) <= 80


def test_timeout_default_and_environment(monkeypatch):
    from nonosat.cli.options import TIMEOUT_DEFAULTS, command_timeout

    monkeypatch.delenv("NONOSAT_TIMEOUT", raising=False)
    # analyse's verdict is solve's, with solve's time limit (issue 24)
    assert command_timeout(None, "analyse") == TIMEOUT_DEFAULTS["analyse"] == 300.0
    assert command_timeout(None, "batch") == 60.0 and command_timeout(None, "solve") == 300.0
    assert command_timeout(5.0, "batch") == 5.0 and command_timeout(0.0, "solve") is None
    monkeypatch.setenv("NONOSAT_TIMEOUT", "7")
    assert command_timeout(None, "analyse") == command_timeout(None, "batch") == 7.0
    monkeypatch.setenv("NONOSAT_TIMEOUT", "0")
    assert command_timeout(None, "verify --results") is None


def test_colour_puzzles_follow_the_same_contract(tmp_path):
    cases = [(("explain", GAMES / "ladybird.non"), "explain", 0),
             (("analyse", GAMES / "ladybird-ambiguous.xml"), "analyse", 1),
             (("certify", GAMES / "ladybird.non", "--out", tmp_path / "c"), "certify", 0),
             (("verify-certificate", tmp_path / "c"), "verify-certificate", 0),
             (("hint", GAMES / "ladybird-impossible.non"), "hint", 3)]  # no solution
    for args, schema, code in cases:
        obj = json.loads(run(*args, "--json", code=code).stdout)
        validate(schema, obj)
    step = json.loads(run("explain", GAMES / "ladybird.non", "--json").stdout)["steps"][0]
    # the cells left one colour; every cell narrowed, with the colours it may still take
    assert all(set(c) == {"row", "col", "colour"} for c in step["cells"])
    assert step["masks"] and all(set(c) == {"row", "col", "colours"} for c in step["masks"])
