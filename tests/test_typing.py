"""Types are checked without blanket ignores (issue 28 part 4).

CI runs mypy (``make typecheck`` in ``.ci/run``); these cheap checks keep its configuration
honest: no module of nonosat has its errors switched off, every ``type: ignore`` names its error
code and says why, and only third-party packages may lack types.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)$")


def _mypy_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]


def test_mypy_config_switches_nothing_off_for_nonosat():
    config = _mypy_config()
    assert config["files"] == ["nonosat"]
    assert "ignore-without-code" in config["enable_error_code"]
    assert config["warn_unused_ignores"] is True
    for key in ("ignore_errors", "disable_error_code", "follow_imports"):
        assert key not in config, key
    for override in config.get("overrides", []):
        modules = override["module"]
        modules = [modules] if isinstance(modules, str) else modules
        assert set(override) <= {"module", "ignore_missing_imports"}, override
        assert not [m for m in modules if m.split(".")[0] == "nonosat"], override


def test_every_type_ignore_names_its_code_and_a_reason():
    bare, unexplained = [], []
    for path in sorted((REPO / "nonosat").rglob("*.py")):
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines, start=1):
            match = IGNORE.search(line)
            if match is None:
                continue
            where = f"{path.relative_to(REPO)}:{number}"
            if not match["codes"]:
                bare.append(where)
            # the reason: a comment after the ignore, or a comment line just above
            above = lines[number - 2].strip() if number > 1 else ""
            if not match["rest"].strip(" #") and not above.startswith("#"):
                unexplained.append(where)
    assert not bare, f"type: ignore without an error code: {bare}"
    assert not unexplained, f"type: ignore without a reason comment: {unexplained}"


def test_ci_runs_mypy_before_the_tests():
    steps = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()
             if line.strip().startswith("make ")]
    assert steps.index("make typecheck") < steps.index("make test")
    makefile = (REPO / "Makefile").read_text()
    target = re.search(r"^typecheck:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert target is not None and "$(BIN)/mypy" in target.group(1)
