"""No merge-conflict markers are left in the tracked files (two once sat unseen in a docstring and
a docs page, where no test reads them)."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import REPO

MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)


def test_no_tracked_file_holds_a_conflict_marker():
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout.split("\n")
    found = []
    for name in filter(None, files):
        path = REPO / name
        if path.suffix not in {".py", ".md", ".js", ".html", ".css", ".toml", ".json", ".txt",
                               ""} or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in MARKER.finditer(text)]
    assert not found, f"conflict markers at {found}"
