"""The examples of ``docs/`` pages that ``tests/test_readme.py`` does not run (it runs the
``nonosat ...`` lines of ``sh`` blocks): the Python API blocks of ``docs/solving.md``, in order
and in one namespace, and the ``python -c`` example of ``docs/proof-checking.md`` on the files
the page's ``printf`` lines write, whose output must be the line the page shows."""

from __future__ import annotations

import re
import shlex

import numpy as np

from tests.conftest import REPO

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
