"""The black-and-white text outputs of solve, analyse, explain and hint on ``games/`` stay what
main printed before the CLI contract (``tests/golden/``, recorded by ``tests/golden/record.py``
on main's code), except for the changes made on purpose, applied here to main's output by
:func:`intended`: ``solve``'s verdict line names the file (``games/heart.non: Heart (13x11):
...``), as analyse's always did; issue 25: no grade for no solution or several, analyse's
``edits:`` line, explain's ``[other value]`` backtracks."""

from __future__ import annotations

import importlib.util
import re

import pytest
from typer.testing import CliRunner

from nonosat.cli.app import app
from tests.conftest import REPO

GOLDEN = REPO / "tests" / "golden"
_spec = importlib.util.spec_from_file_location("golden_record", GOLDEN / "record.py")
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)

CASES = [(c, g) for c in record.COMMANDS for g in record.GAMES]
#: solve's verdict line: the one ending in ``[ENGINE, TIME s]``.
_VERDICT = re.compile(r"^(?!games/)(.*: .* \[\w+, <t> s\])$", re.M)


def intended(command: str, game: str, text: str) -> str:
    """Main's output with this task's intended changes."""
    if command == "solve":
        text = _VERDICT.sub(lambda m: f"games/{game}: {m.group(1)}", text)
    if command == "analyse":
        text = _analyse_issue25(text)
    if command == "explain":
        text = _explain_issue25(text)
    if command == "analyse" and game == "cross-ambiguous.non":
        # issue 26: analyse counts the solutions exactly (48: brute force, tests/test_count.py)
        text = text.replace(": several solutions (at least 2) [", ": 48 solutions [")
    return text


#: Issue 25: no grade for no solution or several; analyse says why no edit is listed.
_GRADE = re.compile(r"^grade: .*$", re.M)
_SIZE = re.compile(r"\((\d+)x(\d+)\): ")


def _analyse_issue25(text: str) -> str:
    classification = re.search(r"^classification: (.*)$", text, re.M)
    assert classification
    if classification[1] == "no solution":
        text = _GRADE.sub("grade: not graded: no solution", text)
    elif classification[1].startswith("several solutions"):
        text = _GRADE.sub("grade: not graded: several solutions", text)
        if "\nedit: " not in text:  # every one-cell edit of the (small) pictures is tried
            size = _SIZE.search(text)
            assert size
            n = int(size[1]) * int(size[2])
            text = re.sub(r"^(time: )", "edits: none found (none of the "
                          f"{n} one-cell edits of the picture gives a unique solution)\n\\1",
                          text, flags=re.M)
    return text


def _explain_issue25(text: str) -> str:
    """Issue 25: trying a cell's other value is a backtrack, labelled ``[other value]`` and
    counted apart from the guesses."""
    text, flips = re.subn(r"\[guess\] Try the other value", "[other value] Try the other value",
                          text)
    if not flips:
        return text

    def recount(m: re.Match) -> str:
        counts = dict(item.rsplit(" ", 1) for item in m[2].split(", "))
        counts["guess"] = str(int(counts["guess"]) - flips)
        counts["other value"] = str(flips)
        return m[1] + "(" + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ")"

    return re.sub(r"(search \d+ )\(([^)]*)\)", recount, text)


@pytest.mark.parametrize(("command", "game"), CASES, ids=[f"{c}-{g}" for c, g in CASES])
def test_text_output_is_mains_but_for_intended_changes(command, game, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("COLUMNS", raising=False)
    result = CliRunner().invoke(app, [command, f"games/{game}"])
    golden = (GOLDEN / f"{command}-{game}.txt").read_text()
    code, _, main_out = golden.partition("\n")
    assert f"rc={result.exit_code}" == code
    expected = intended(command, game, record.normalise(main_out))
    assert record.normalise(result.stdout) == expected


def test_the_intended_change_is_made():
    """``intended`` changes what it must: the solve goldens' verdict lines get the file name."""
    text = (GOLDEN / "solve-sailboat.nin.txt").read_text()
    changed = intended("solve", "sailboat.nin", record.normalise(text))
    assert "games/sailboat.nin: 15x11 puzzle: unique solution [native, <t> s]" in changed
    assert changed.count("games/sailboat.nin") == 1
