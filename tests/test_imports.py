"""Imports stay lazy: the CLI and `nonosat solve --engine native` must not pay for OR-Tools,
networkx, PySAT or Dask (issue: start-up time of a whole `nonosat solve` process)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import GAMES

HEAVY = ("ortools", "networkx", "pysat", "dask", "distributed")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    return {m.split(".")[0] for m in out}


def test_cli_import_is_light():
    loaded = _modules_after("import nonosat.cli.app")
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_native_solve_does_not_load_other_engines():
    code = (
        "from typer.testing import CliRunner\n"
        "from nonosat.cli.app import app\n"
        f"r = CliRunner().invoke(app, ['solve', r'{GAMES / 'heart.non'}', '--engine', 'native'])\n"
        "assert r.exit_code == 0, r.output\n"
    )
    loaded = _modules_after(code)
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
