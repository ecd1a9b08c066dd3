"""``nonosat crosscheck`` as a command: the inputs it accepts (directories, FILE#N, --index), the
table within 80 columns with every name whole, progress on stderr, and Ctrl-C keeping what
finished (issue 15, CLI)."""

from __future__ import annotations

import json
import sys
import types

import pytest
from typer.testing import CliRunner

from nonosat.cli import crosscheck as cli_crosscheck
from nonosat.cli.app import app
from nonosat.engines import ENGINE_MODULES, get_engine
from nonosat.engines.compare import crosscheck
from nonosat.formats.tournament import write_tournament_set
from nonosat.puzzle import Puzzle

UNIQUE = Puzzle([(2,), (1,)], [(2,), (1,)])
TWO = Puzzle([(1,), (1,)], [(1,), (1,)])
FULL = Puzzle([(3,)] * 3, [(3,)] * 3)


def write_nin(path, puzzle: Puzzle):
    lines = [f"{puzzle.width} {puzzle.height}"]
    lines += [" ".join(map(str, c)) if c else "0" for c in puzzle.rows + puzzle.cols]
    path.write_text("\n".join(lines) + "\n")
    return path


def run(*args):
    return CliRunner().invoke(app, ["crosscheck", *map(str, args)])


def ids_of(result):
    return [json.loads(line)["puzzle"] for line in result.stdout.splitlines()]


def test_directory_is_searched_recursively(tmp_path):
    write_nin(tmp_path / "a.nin", UNIQUE)
    (tmp_path / "sub").mkdir()
    write_nin(tmp_path / "sub" / "b.nin", TWO)
    (tmp_path / "notes.md").write_text("not a puzzle")
    result = run(tmp_path, "-e", "native,cpsat", "--json")
    assert result.exit_code == 0, result.output
    assert sorted(ids_of(result)) == sorted([str(tmp_path / "a.nin"), str(tmp_path / "sub" / "b.nin")])


def test_unreadable_file_in_a_directory_is_reported_and_the_rest_checked(tmp_path):
    write_nin(tmp_path / "a.nin", UNIQUE)
    (tmp_path / "broken.nin").write_text("2 2\n1\nx\n")
    result = run(tmp_path, "-e", "native,cpsat", "--json")
    assert ids_of(result) == [str(tmp_path / "a.nin")]
    said = " ".join(result.stderr.split())  # wrapped at 80 columns
    assert f"not checked: {tmp_path / 'broken.nin'}" in said
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_empty_directory_is_bad_input(tmp_path):
    (tmp_path / "empty").mkdir()
    result = run(tmp_path / "empty", "-e", "cpsat")
    assert result.exit_code == 2
    assert "no puzzle" in result.output and "Traceback" not in result.output


def test_file_hash_n_names_and_index(tmp_path):
    path = tmp_path / "set.txt"
    path.write_bytes(write_tournament_set([UNIQUE, TWO, FULL]))
    result = run(f"{path}#2", f"{path}#3", "-e", "native,cpsat", "--json")
    assert result.exit_code == 0, result.output
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["puzzle"] for o in objs] == [f"{path}#2", f"{path}#3"]
    assert [o["status"] for o in objs] == ["multiple", "unique"]
    result = run(path, "--index", "3", "-e", "cpsat", "--json")
    assert result.exit_code == 0, result.output
    assert ids_of(result) == [f"{path}#3"]
    # FILE#N and a different --index contradict each other
    assert run(f"{path}#2", "--index", "3", "-e", "cpsat").exit_code == 2
    # a number beyond the file is bad input, named
    result = run(f"{path}#9", "-e", "cpsat")
    assert result.exit_code == 2 and "set.txt" in result.output


def _reports(names, engines):
    return [crosscheck(p, engines, puzzle_id=n) for n, p in zip(names, [UNIQUE, TWO, FULL], strict=True)]


@pytest.mark.parametrize("engines", [["native", "sat", "cpsat"], ["native", "sat", "cpsat", "auto"]])
def test_table_fits_80_columns_and_keeps_every_name(engines):
    names = [
        "short.nin",
        "a-rather-long-directory-name/with/a/very-long-puzzle-file-name-indeed.nin#12",
        "x" * 130 + ".non",
    ]
    lines = cli_crosscheck.table_lines(_reports(names, engines), engines, 80)
    assert max(map(len, lines)) <= 80, "\n".join(lines)
    text = "\n".join(lines)
    for name in names:  # whole, on one line, or folded over consecutive full lines
        assert name in text.replace("\n", "") , name
        assert name[:80] in lines or any(name in line for line in lines)
    for engine in engines:
        assert engine in lines[0]
    # each puzzle's verdicts are there
    assert sum(("multiple" in line or "mult" in line) for line in lines) >= 1


def test_table_abbreviates_only_when_needed():
    engines = ["native", "sat", "cpsat", "auto"]
    reports = _reports(["a.nin", "b.nin", "c.nin"], engines)
    wide = cli_crosscheck.table_lines(reports, engines, 200)
    narrow = cli_crosscheck.table_lines(reports, engines, 80)
    assert any("multiple" in line for line in wide) and not any("verdicts:" in x for x in wide)
    assert max(map(len, narrow)) <= 80
    assert any(line.startswith("verdicts:") for line in narrow)


class _Interrupting:
    """An engine that answers like CP-SAT on the first puzzle it sees, then is 'interrupted'."""

    name = "interrupting"
    calls = 0

    def solve(self, puzzle, *, partial=None, limit=2, timeout=None):
        if puzzle.width != 2:  # the 2x2 warm-up puzzle of load_engine does not count
            type(self).calls += 1
            if type(self).calls >= 2:
                raise KeyboardInterrupt
        return get_engine("cpsat").solve(puzzle, partial=partial, limit=limit, timeout=timeout)


@pytest.fixture
def interrupting(monkeypatch):
    module = types.ModuleType("nonosat_test_interrupt")
    module.Interrupting = _Interrupting
    _Interrupting.calls = 0
    monkeypatch.setitem(ENGINE_MODULES, "interrupting", "nonosat_test_interrupt:Interrupting")
    monkeypatch.setitem(sys.modules, "nonosat_test_interrupt", module)


def test_ctrl_c_prints_what_finished_and_exits_130(tmp_path, interrupting):
    a = write_nin(tmp_path / "a.nin", FULL)
    b = write_nin(tmp_path / "b.nin", FULL)
    c = write_nin(tmp_path / "c.nin", FULL)
    result = run(a, b, c, "-e", "cpsat,interrupting")
    assert result.exit_code == 130, result.output
    assert "a.nin" in result.stdout and "b.nin" not in result.stdout
    assert "1 puzzle(s): 1 agreed" in result.stdout
    assert "interrupted after 1 of 3" in result.stderr


def test_ctrl_c_after_a_finding_exits_1(tmp_path, interrupting, monkeypatch):
    a = write_nin(tmp_path / "a.nin", FULL)
    b = write_nin(tmp_path / "b.nin", FULL)
    wrong = Puzzle([(1,)] * 3, [(1,)] * 3)  # 3 x 3 with a different answer from cpsat's
    real = get_engine("cpsat").solve

    def lying(self, puzzle, **kw):
        if puzzle.width != 2:
            type(self).calls += 1
            if type(self).calls >= 2:
                raise KeyboardInterrupt
        return real(wrong if puzzle.width == 3 else puzzle, **kw)

    monkeypatch.setattr(_Interrupting, "solve", lying)
    result = run(a, b, "-e", "cpsat,interrupting")
    assert result.exit_code == 1, result.output
    assert "a.nin" in result.stdout


def test_plain_progress_lines_on_stderr(tmp_path, monkeypatch):
    monkeypatch.setattr(cli_crosscheck, "PLAIN_PROGRESS_SECONDS", 0.0)
    files = [write_nin(tmp_path / f"{k}.nin", FULL) for k in range(3)]
    result = run(*files, "-e", "cpsat")
    assert result.exit_code == 0, result.output
    assert "nonosat crosscheck: 3/3 puzzles" in result.stderr
    assert "nonosat crosscheck" not in result.stdout


def test_times_exclude_loading_the_engines(tmp_path):
    """The first puzzle's time is the engine's own: loading (numba kernels, PySAT, OR-Tools) is
    done before, so it is no slower than the same puzzle checked again."""
    path = write_nin(tmp_path / "a.nin", FULL)
    result = run(path, path, "-e", "native,sat,cpsat", "--json")
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    for engine in ("native", "sat", "cpsat"):
        assert first["engines"][engine]["time_s"] < second["engines"][engine]["time_s"] + 0.05
