"""The examples of ``docs/`` pages that ``tests/test_readme.py`` does not run (it runs the
``nonosat ...`` lines of ``sh`` blocks): the Python API blocks of ``docs/solving.md``, in order
and in one namespace; docs/proof-checking.md's ``check_lrat`` block and its ``python -c``
example on the files the page's ``printf`` lines write, whose output must be the line the page
shows; the error examples of docs/formats.md and docs/limits.md and formats.md's pbnsolve loop;
docs/studio.md's Python block and API examples through FastAPI's TestClient (issue 28 item 5)."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import CORPUS, GAMES, REPO, _missing

PEERS = CORPUS.parent / "peers"

DOCS = REPO / "docs"


def _blocks(page: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (DOCS / page).read_text(), re.S)


def test_solving_python_api_blocks_run(monkeypatch):
    blocks = _blocks("solving.md", "python")
    assert len(blocks) >= 2
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(blocks[0], "docs/solving.md", "exec"), namespace)
    first = namespace["result"]
    assert first.status.value == "unique"
    assert namespace["puzzle"].is_solution(np.asarray(first.solutions[0]))
    for block in blocks[1:]:
        exec(compile(block, "docs/solving.md", "exec"), namespace)
    # the stop token's example: a decided solve is unique; a stopped one is never a verdict
    assert namespace["result"].status.value in ("unique", "unknown")


def _console_steps(block: str) -> list[tuple[str, list[str]]]:
    """``(command, output lines)`` of each ``$ ...`` line of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def test_proof_checking_forged_lrat_example(tmp_path, monkeypatch, capsys):
    blocks = _blocks("proof-checking.md", "console")
    assert any("forged.lrat" in b for b in blocks)
    monkeypatch.chdir(tmp_path)
    ran = 0
    for command, output in (step for b in blocks for step in _console_steps(b)):
        words = shlex.split(command)
        if words[0] == "printf":  # printf 'TEXT' > FILE: only \n escapes on the page
            assert words[2] == ">"
            (tmp_path / words[3]).write_text(words[1].replace("\\n", "\n"))
        elif words[:2] == ["python", "-c"]:
            exec(compile(words[2], "docs/proof-checking.md", "exec"), {})
            assert capsys.readouterr().out.splitlines() == output
            ran += 1
    assert ran == 1


@pytest.mark.parametrize(("page", "marker"), [("formats.md", "two-reds.non"),
                                              ("limits.md", "NONOSAT_MAX_CELLS=100")])
def test_console_error_examples(tmp_path, page, marker):
    """docs/formats.md and docs/limits.md: the file the page shows (``$ cat FILE``, or a
    ``games/`` puzzle), read by the ``$ [VAR=VALUE] nonosat ...`` command shown, gets the exit
    code and the output lines the page shows."""
    (block,) = [b for b in _blocks(page, "console") if marker in b]
    (tmp_path / "games").symlink_to(GAMES)
    ran = 0
    for command, output in _console_steps(block):
        words = shlex.split(command.partition("  #")[0])
        env = dict(os.environ)
        while "=" in words[0]:
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        if words[0] == "cat":
            (tmp_path / words[1]).write_text("\n".join(output) + "\n")
        elif words[0] == "nonosat":
            out = subprocess.run([sys.executable, "-m", "nonosat", *words[1:]], cwd=tmp_path,
                                 env=env, capture_output=True, text=True, timeout=120)
            match = re.search(r"# exit (\d+)", command)
            assert out.returncode == (int(match.group(1)) if match else 0), out.stderr
            assert (out.stdout + out.stderr).splitlines() == output
            ran += 1
    assert ran == 1


def test_formats_pbnsolve_results_loop(tmp_path):
    """docs/formats.md: the page's shell loop runs pbnsolve on three ``games/`` puzzles, and
    ``nonosat verify --results`` confirms every row of what it wrote (exit 0)."""
    pbnsolve = PEERS / "pbnsolve"
    if not pbnsolve.exists():
        _missing(f"pbnsolve is not in {PEERS}")
    (loop,) = [b for b in _blocks("formats.md", "bash") if "pbnsolve -b -u" in b]
    for name in ("heart.non", "cross-ambiguous.non", "impossible.non"):
        shutil.copy(GAMES / name, tmp_path / name)
    nonosat = tmp_path / "bin" / "nonosat"
    nonosat.parent.mkdir()
    nonosat.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m nonosat \"$@\"\n")
    nonosat.chmod(0o755)
    env = {**os.environ, "PATH": f"{nonosat.parent}:{PEERS}:{os.environ['PATH']}"}
    out = subprocess.run(["bash", "-c", loop], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-2000:])
    rows = (tmp_path / "pbnsolve.txt").read_text()
    assert rows.count("==> ") == 3 and "contradiction" in rows
    assert "verify: 3 rows" in out.stdout and "Traceback" not in out.stderr


def test_studio_api_examples(tmp_path, monkeypatch):
    """docs/studio.md: the page's Python block builds the app on a folder; its Puzzle example is
    a valid puzzle whose ``goal`` is a solution that keeps its ``givens``; ``POST /api/analyse``
    and ``POST /api/steps`` on it answer with (at least) the keys and values the page's answer
    examples show, and the gallery lists the folder given."""
    from fastapi.testclient import TestClient

    puzzle_json, analyse_json, _keep_trying, steps_json = (
        json.loads(b) for b in _blocks("studio.md", "json"))
    (python,) = _blocks("studio.md", "python")
    folder = re.search(r'Path\("([^"]+)"\)', python).group(1)
    (tmp_path / folder).mkdir()
    shutil.copy(GAMES / "heart.non", tmp_path / folder / "mine.non")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(python, "docs/studio.md", "exec"), namespace)
    client = TestClient(namespace["app"])
    names = {(e["name"], e["source"]) for e in client.get("/api/gallery").json()}
    assert any("mine.non" in source for _, source in names), names

    goal = np.array([[c == "#" for c in row] for row in puzzle_json["goal"]])
    for given, want in zip("".join(puzzle_json["givens"]), goal.ravel(), strict=True):
        assert given == "?" or (given == "#") == want

    answer = client.post("/api/analyse", json={"puzzle": puzzle_json, "timeout": 10})
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert set(analyse_json) - {"suggestions"} <= set(got), set(analyse_json) - set(got)
    assert got["status"] in analyse_json["status"].split("|")
    assert got["status"] == "unique" and got["solutions"] == [puzzle_json["goal"]]
    assert set(analyse_json["grade"]) <= set(got["grade"])
    assert got["techniques"].get("line", 0) > 0  # line solvable: no probe, no guess

    answer = client.post("/api/steps", json={"puzzle": puzzle_json})
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert set(steps_json) <= set(got) and got["steps"]
    for step in got["steps"]:
        assert set(steps_json["steps"][0]) <= set(step)
        assert step["kind"] in steps_json["steps"][0]["kind"].split("|")
    assert got["solutions"] == [puzzle_json["goal"]]


def test_proof_checking_python_block(tmp_path, monkeypatch):
    """docs/proof-checking.md's first Python block, on a certificate ``nonosat certify`` writes:
    each call gives what its comment shows (the figures of the check aside)."""
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(app, ["certify", str(GAMES / "heart.non"), "--out", "cert"])
    assert made.exit_code == 0, made.output
    block = _blocks("proof-checking.md", "python")[0]
    namespace: dict = {}
    values = []
    for statement in ast.parse(block).body:
        if isinstance(statement, ast.Expr):
            values.append(eval(compile(ast.Expression(statement.value), "docs", "eval"),
                               namespace))
        else:
            exec(compile(ast.Module([statement], []), "docs/proof-checking.md", "exec"), namespace)
    shown = [line.partition("#")[2].strip() for line in block.splitlines() if "#" in line]
    check, agree = values
    fields = dict(re.findall(r"(\w+)=([^,)]+)", shown[0]))
    assert check.ok is (fields["ok"] == "True") and repr(check.reason) == fields["reason"]
    assert check.timed_out is (fields["timed_out"] == "True") and check.lemmas >= 1
    assert agree == ast.literal_eval(shown[1])
