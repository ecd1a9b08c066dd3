"""The black-and-white text outputs of solve, analyse, explain and hint on ``games/`` stay what
main printed before the CLI contract (``tests/golden/``, recorded by ``tests/golden/record.py``
on main's code), except for the changes made on purpose, applied here to main's output by
:func:`intended`: ``solve``'s verdict line names the file (``games/heart.non: Heart (13x11):
...``), as analyse's always did; issue 25: no grade for no solution or several, analyse's
``edits:`` line, explain's ``[other value]`` backtracks; issue 25: every line within 80 columns
(a longer line wrapped at word boundaries with a hanging indent: :func:`wrapped`, main's output
re-flowed, so that the test still proves that nothing but the wrapping changed)."""

from __future__ import annotations

import importlib.util
import re
import textwrap

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


def intended(command: str, game: str, text: str, times: list[str] | None = None) -> str:
    """Main's output with the intended changes, wrapped to 80 columns (:func:`wrapped`);
    ``times``: the durations of the output it is compared with, put in place of main's
    ``<t>`` before wrapping (a line's length, so where it wraps, depends on them)."""
    text = _changed(command, game, "\n".join(_unwrap(command, text.split("\n"))))
    if times is not None:
        parts = text.split("<t>")
        assert len(parts) == len(times) + 1, (len(parts) - 1, times)
        text = "".join(p + t for p, t in zip(parts, times, strict=False)) + parts[-1]
    return wrapped(command, text)


#: Columns every line fits (in a pipe, without $COLUMNS).
WIDTH = 80
#: Main's explain and hint wrapped their sentences at 100 columns.
_OLD_WIDTH = 100
_STEP = re.compile(r"^( *\d+)\. \[")


def wrapped(command: str, text: str) -> str:
    """Main's ``text`` with every line longer than :data:`WIDTH` wrapped at word boundaries
    (:func:`textwrap.fill`): explain's numbered steps under their text (as main wrapped them at
    100), its other sentences and hint's continuation at the margin main used (0 and 2), any
    other line (analyse's and solve's) with continuation lines two spaces in (explain's and
    hint's sentences joined back first: :func:`_unwrap`)."""
    out = []
    for line in text.split("\n"):
        if len(line) <= WIDTH:
            out.append(line)
            continue
        step = _STEP.match(line)
        if command == "explain":
            indent = len(step[1]) + 2 if step else 0
        elif command == "hint":
            indent = 2
        else:
            indent = len(line) - len(line.lstrip(" ")) + 2
        out.append(textwrap.fill(line, WIDTH, subsequent_indent=" " * indent,
                                 break_on_hyphens=False))
    return "\n".join(out)


def _unwrap(command: str, lines: list[str]) -> list[str]:
    """explain's and hint's sentences as one line each (main wrapped them at 100 columns)."""
    if command not in ("explain", "hint"):
        return lines
    out: list[str] = []
    for line in lines:
        prev = out[-1] if out else None
        word = line.lstrip(" ").split(" ", 1)[0]
        if prev is not None and prev.strip() and line.strip():
            step = _STEP.match(prev)
            indent = len(line) - len(line.lstrip(" "))
            joins = (
                (command == "hint" and indent == 2)
                or (step is not None and indent == len(step[1]) + 2)
                or (command == "explain" and step is None and indent == 0
                    and not _STEP.match(line) and len(prev) + 1 + len(word) > _OLD_WIDTH)
            )
            if joins:
                out[-1] = f"{prev} {line.lstrip(' ')}"
                continue
        out.append(line)
    return out


def _changed(command: str, game: str, text: str) -> str:
    """Main's output with the changes made on purpose before the 80 columns."""
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
def test_text_output_is_mains_but_for_intended_changes(command, game, monkeypatch, warm):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("COLUMNS", raising=False)
    result = CliRunner().invoke(app, [command, f"games/{game}"])
    golden = (GOLDEN / f"{command}-{game}.txt").read_text()
    code, _, main_out = golden.partition("\n")
    assert f"rc={result.exit_code}" == code
    times = record._TIME.findall(result.stdout)
    expected = intended(command, game, record.normalise(main_out), times)
    assert result.stdout == expected
    assert max(map(len, result.stdout.splitlines())) <= WIDTH


@pytest.fixture(scope="module")
def warm():
    """The engines' kernels and libraries loaded before the compared runs, so that no run says
    how long its first load took (main's goldens leave that out)."""
    for command in record.COMMANDS:
        CliRunner().invoke(app, [command, str(REPO / "games" / "cross-ambiguous.non")])


def test_the_intended_change_is_made():
    """``intended`` changes what it must: the solve goldens' verdict lines get the file name."""
    text = (GOLDEN / "solve-sailboat.nin.txt").read_text()
    changed = intended("solve", "sailboat.nin", record.normalise(text))
    assert "games/sailboat.nin: 15x11 puzzle: unique solution [native, <t> s]" in changed
    assert changed.count("games/sailboat.nin") == 1


def test_the_wrapping_keeps_every_word_and_line():
    """:func:`wrapped` only re-flows: main's explain (wrapped at 100) and analyse, joined back
    without line breaks and spaces, are the wrapped text joined back so; every line fits."""
    for command, game in (("explain", "house.json"), ("analyse", "cross-ambiguous.non"),
                          ("hint", "cross-ambiguous.non")):
        main = (GOLDEN / f"{command}-{game}.txt").read_text().partition("\n")[2]
        out = wrapped(command, "\n".join(_unwrap(command, main.split("\n"))))
        assert out != main
        assert re.sub(r"\s", "", out) == re.sub(r"\s", "", main)
        assert max(map(len, out.splitlines())) <= WIDTH
    step = wrapped("explain", " 9. [overlap] " + "word " * 30)
    assert _unwrap("explain", (" 9. [overlap] a" + " b" * 43 + "\n    c").split("\n")) == [
        " 9. [overlap] a" + " b" * 43 + " c"]
    assert step.splitlines()[1].startswith("    word")
