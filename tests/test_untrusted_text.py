"""Issue 25 item 1: untrusted text (titles, authors, colour names, file names, results-file
ids) never reaches a terminal raw.  Every command runs on the hostile files of tests/hostile/
(``control-text.non``, ``control-colours.non``, made by ``make_hostile.py``) under a file name
that holds terminal controls too; no raw ESC, BEL, CR, BS, C1 control or bidirectional
override may appear on stdout or stderr, and JSON keeps the exact text."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.text import printable, printable_lines, quoted

HOSTILE = Path(__file__).resolve().parent / "hostile"
#: What must never reach a terminal: C0 controls but line feed and TAB, DEL, C1 controls, the
#: bidirectional embeddings, overrides and isolates, line and paragraph separators.
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]")

runner = CliRunner()


def _run(*args) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
    err = result.stderr if result.stderr_bytes is not None else ""
    return result.exit_code, result.stdout + err


def _assert_clean(text: str) -> None:
    found = RAW.findall(text)
    assert not found, (found[:5], text[:600])


@pytest.fixture(scope="module")
def hostile_dir(tmp_path_factory) -> Path:
    """The two hostile puzzles under names with a window-title escape and a clear-screen."""
    d = tmp_path_factory.mktemp("hostile")
    shutil.copy(HOSTILE / "control-text.non", d / "t\x1b]0;x\x07itle\r.non")
    shutil.copy(HOSTILE / "control-colours.non", d / "c\x1b[2Jol\u202eour.non")
    return d


def _puzzle(d: Path, which: str) -> Path:
    return next(p for p in d.iterdir() if p.name.startswith(which) and p.suffix == ".non")


def test_printable_escapes_every_control_and_keeps_text():
    assert printable("Z\u00fcrich \u2764") == "Z\u00fcrich \u2764"
    assert printable("a\x1b]0;t\x07b\rc\bd\u202ee\x9b") == "a\\x1b]0;t\\x07b\\rc\\x08d\\u202ee\\x9b"
    assert printable_lines("a\x07\nb") == "a\\x07\nb"
    assert quoted('say "hi"\n') == '"say \\"hi\\"\\n"'


@pytest.mark.parametrize("which", ["t", "c"])
@pytest.mark.parametrize("command", [
    ["solve"], ["analyse"], ["hint"], ["explain"], ["render"], ["crosscheck"],
    ["verify", "--claim", "unique"],
])
def test_commands_print_hostile_titles_and_names_escaped(hostile_dir, which, command):
    puzzle = _puzzle(hostile_dir, which)
    code, out = _run(command[0], puzzle, *command[1:], "--timeout", "60")
    assert code == 0, out
    _assert_clean(out)


@pytest.mark.parametrize("which", ["t", "c"])
def test_certify_verify_certificate_convert_and_batch_escape(hostile_dir, tmp_path, which):
    puzzle = _puzzle(hostile_dir, which)
    cert = tmp_path / "cert\x07dir"
    code, out = _run("certify", puzzle, "--out", cert)
    assert code == 0, out
    _assert_clean(out)
    code, out = _run("verify-certificate", cert)
    assert code == 0, out
    _assert_clean(out)
    assert "\\x1b]0;pwned\\x07" in out  # the title is shown, escaped
    for suffix in (".non", ".json", ".xml"):
        code, out = _run("convert", puzzle, tmp_path / f"out\x1b{suffix}")
        assert code in (0, 2), out
        _assert_clean(out)
    if which == "t":  # one batch is enough (it starts a worker process)
        code, out = _run("batch", puzzle, "--out", tmp_path / "r\x1b.jsonl")
        _assert_clean(out)


def test_json_keeps_the_exact_title(hostile_dir):
    from nonosat.formats import read_puzzle

    puzzle = _puzzle(hostile_dir, "t")
    code, out = _run("solve", puzzle, "--json")
    assert code == 0
    assert json.loads(out)["puzzle"] == str(puzzle)  # JSON escaping keeps it exact
    assert "\x1b" in read_puzzle(puzzle).title


def test_verify_results_ids_and_claims_are_escaped(hostile_dir, tmp_path):
    puzzle = _puzzle(hostile_dir, "t")
    results = tmp_path / "results.jsonl"
    rows = [{"id": "no\x1b]0;such\x07.non", "status": "unique"},
            {"id": puzzle.name, "status": "un\x1b]0;x\x07ique"}]  # bad rows: no worker runs
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out = _run("verify", "--results", results, hostile_dir, "--timeout", "60")
    assert code == 2, out
    assert "itle\\r.non" in out  # the row's id, escaped
    _assert_clean(out)
