"""The README and the pages of ``docs/`` stay true: every ``nonosat ...`` command in their ``sh``
blocks is run (on ``games/`` and the shared corpus) and must give the exit code its comment states
(``exit N``; 0 when none) and the text its comment quotes; JSON output must parse, with the keys of the
README's JSON example, which must match what ``solve --json`` prints; the commands and exit codes
the README lists must be the program's (issue 15)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest

from nonosat.cli.app import EXIT_CODES
from tests.conftest import CORPUS, GAMES, REPO, corpus_path

README = (REPO / "README.md").read_text()
#: The documentation pages whose examples are run too.
DOCS = sorted((REPO / "docs").glob("*.md"))


def _blocks(language: str, text: str = README) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def _commands() -> list[tuple[str, str]]:
    """``(command, comment)`` of every line of an ``sh`` block, in the README or a page of
    ``docs/``, that runs ``nonosat``."""
    found = []
    pages = [README] + [page.read_text() for page in DOCS]
    for block in (b for text in pages for b in _blocks("sh", text)):
        for line in block.splitlines():
            if not line.startswith("nonosat "):
                continue
            command, _, comment = line.partition("  #")
            found.append((command.strip(), comment.strip()))
    return found


COMMANDS = _commands()


def test_the_readme_shows_commands():
    assert len([c for b in _blocks("sh") for c in b.splitlines() if c.startswith("nonosat ")]) >= 5
    assert len(COMMANDS) >= 20  # the docs pages' examples are collected too
    assert any("--json" in c for c, _ in COMMANDS) and any("batch" in c for c, _ in COMMANDS)


def _argument(arg: str) -> list[str]:
    """The argument as the shell would pass it: paths anchored, globs expanded."""
    if arg == "games" or arg.startswith("games/"):
        return [str(REPO / arg)]
    if arg.startswith("../shared/corpus/"):
        name, sep, number = arg.rpartition("#")
        if sep and number.isdigit():  # FILE#N, the name nonosat prints for puzzle N of FILE
            return [f"{path}#{number}" for path in _argument(name)]
        parts = arg.removeprefix("../shared/corpus/").split("/")
        if "*" in parts[-1]:
            found = sorted(str(p) for p in corpus_path(*parts[:-1]).glob(parts[-1]))
            assert found, f"{arg} matches nothing"
            return found
        return [str(corpus_path(*parts))]
    return [arg]


@pytest.mark.parametrize(("command", "comment"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command(command, comment, tmp_path):
    args = [x for a in shlex.split(command)[1:] for x in _argument(a)]
    out = subprocess.run([sys.executable, "-m", "nonosat", *args], capture_output=True,
                         text=True, cwd=tmp_path, timeout=600)
    match = re.search(r"\bexit (\d+)", comment)
    expected = int(match.group(1)) if match else 0
    assert out.returncode == expected, (command, out.stdout[-2000:], out.stderr[-2000:])
    assert "Traceback" not in out.stderr
    joined = " ".join(out.stdout.split())  # a text report wraps lines at 80 columns
    for quoted in re.findall(r'"([^"]+)"', comment):
        assert " ".join(quoted.split()) in joined, (command, quoted)
    if "--json" in args:
        obj = json.loads(out.stdout)
        if args[0] == "solve":
            assert set(obj) == set(_json_example())
            assert obj["status"] in ("unique", "multiple", "none", "solved", "unknown")
    if "--help" in args or "-h" in args:
        assert out.stdout.startswith("Usage: nonosat")
    if "--out" in args and args[0] != "batch":
        assert (tmp_path / args[args.index("--out") + 1]).exists(), (command, "nothing written")
    elif "--out" in args:
        rows = [json.loads(line) for line in (tmp_path / args[args.index("--out") + 1])
                .read_text().splitlines()]
        assert rows and all({"puzzle", "status", "time_s"} <= set(r) for r in rows)
        again = subprocess.run([sys.executable, "-m", "nonosat", *args, "--json"],
                               capture_output=True, text=True, cwd=tmp_path, timeout=600)
        assert json.loads(again.stdout)["ran"] == 0  # the rerun resumes: nothing left


def _json_example() -> dict:
    (block,) = _blocks("json")
    return json.loads(block)


def test_json_example_is_what_solve_prints():
    example = _json_example()
    out = subprocess.run([sys.executable, "-m", "nonosat", "solve", example["puzzle"], "--json"],
                         capture_output=True, text=True, cwd=REPO)
    actual = json.loads(out.stdout)
    assert set(actual) == set(example)
    for key in ("puzzle", "width", "height", "status", "solutions", "engine"):
        assert actual[key] == example[key], key
    assert set(example["stats"]) <= set(actual["stats"])
    assert set(example["stats"]["native"]) <= set(actual["stats"]["native"])
    assert (GAMES / "heart.non").exists()


def test_listed_commands_and_exit_codes_are_the_programs():
    listed = set(re.findall(r"^\| `nonosat ([a-z-]+)", README, re.M))
    listed |= set(re.findall(r"/ `nonosat ([a-z-]+)", README))
    assert listed == set(EXIT_CODES), listed ^ set(EXIT_CODES)
    table = README[README.index("### Exit codes"):]
    codes = {int(c) for c in re.findall(r"^\| (\d+) \|", table, re.M)}
    assert codes == {c for codes in EXIT_CODES.values() for c in codes}


def test_corpus_location_is_the_readmes():
    assert "../shared/corpus" in README
    assert CORPUS.name == "corpus"
