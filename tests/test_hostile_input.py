"""Issue 17: hostile input, data safety and bounded resources -- one regression test per item
of the fuzzing audit (test_item01_ ... test_item12_), on the hand-made files of tests/hostile/
(see its README.md) and on files made here.

Commands run as subprocesses where the issue is about the process (exit code, traceback,
memory, hanging); each must end in seconds.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import GAMES, REPO
from conftest import RSS_LAUNCHER as _LAUNCHER

HOSTILE = Path(__file__).resolve().parent / "hostile"
NONOSAT = [sys.executable, "-m", "nonosat"]


def run(*args: str, cwd: Path | None = None, timeout: float = 60, env: dict | None = None):
    """Run nonosat; returns ``(exit code, stdout, stderr, peak RSS in MiB)``.

    The peak RSS is the command's own, measured by a small launcher process that forks it
    (:data:`_LAUNCHER`): neither ``RUSAGE_CHILDREN`` (the largest child this process ever
    reaped, and Popen reaps children abandoned by earlier tests at any time) nor ``os.wait4`` on
    a direct child (whose ``ru_maxrss`` starts at this process's RSS) gives it.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        proc = subprocess.Popen(
            [sys.executable, "-S", "-c", _LAUNCHER, rss.name, *NONOSAT, *map(str, args)],
            cwd=cwd or REPO, stdout=out, stderr=err, env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        out.seek(0)
        err.seek(0)
        text_out = out.read().decode("utf-8", "replace")
        text_err = err.read().decode("utf-8", "replace")
        peak_kib = int(rss.read() or 0)
    return proc.returncode, text_out, text_err, peak_kib / 1024


def assert_one_line_error(code: int, err: str, name: str, expected_code: int = 2) -> None:
    """Exit ``expected_code``, no traceback, one line on stderr naming ``name``."""
    assert "Traceback" not in err, err
    assert code == expected_code, (code, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert name in lines[0], err


# -- item 1: data loss -------------------------------------------------------------------------
def test_item01_batch_never_touches_a_file_that_is_not_a_results_file(tmp_path):
    notes = tmp_path / "notes.txt"
    shutil.copy(HOSTILE / "notes-one-line.txt", notes)  # one line, no trailing newline
    short = tmp_path / "h.short"
    shutil.copy(HOSTILE / "heart.short", short)
    for out, puzzle in ((notes, GAMES / "heart.non"), (short, short)):
        before = out.read_bytes()
        code, _, err, _ = run("batch", puzzle, "--out", out, cwd=tmp_path)
        assert code == 2, err
        assert "not a nonosat results file" in err and "untouched" in err
        assert "Traceback" not in err
        assert out.read_bytes() == before


def test_item01_a_results_file_without_its_last_newline_is_appended_to(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"id": "x", "job": "check"}')  # ours, cut before its newline
    code, _, err, _ = run("batch", GAMES / "heart.non", "--out", out, cwd=tmp_path)
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert json.loads(lines[0]) == {"id": "x", "job": "check"}
    assert json.loads(lines[1])["status"] == "unique"


# -- item 2: writes through symbolic links -----------------------------------------------------
@pytest.mark.parametrize(
    "args, out",
    [
        (("convert", GAMES / "heart.non", "out.xml"), "out.xml"),
        (("encode", GAMES / "heart.non", "--out", "out.cnf"), "out.cnf"),
        (("render", GAMES / "heart.non", "--out", "out.svg"), "out.svg"),
    ],
    ids=["convert", "encode", "render"],
)
def test_item02_a_planted_temporary_symlink_is_never_written_through(tmp_path, args, out):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / f"{out}.nonosat-tmp").symlink_to(victim)
    (tmp_path / f".{out}.nonosat-tmp").symlink_to(victim)
    code, _, err, _ = run(*args, cwd=tmp_path)
    assert code == 0, err
    assert victim.read_text() == "precious\n"
    assert (tmp_path / out).is_file() and not (tmp_path / out).is_symlink()


def test_item02_a_symlink_at_the_target_is_refused_without_force_and_replaced_with_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "out.xml").symlink_to(victim)
    code, _, err, _ = run("convert", GAMES / "heart.non", "out.xml", cwd=tmp_path)
    assert_one_line_error(code, err, "out.xml")
    code, _, err, _ = run("convert", GAMES / "heart.non", "out.xml", "--force", cwd=tmp_path)
    assert code == 0, err
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "out.xml").is_symlink()


@pytest.mark.parametrize("puzzle", ["heart.non", "ladybird.non"])
def test_item02_certify_never_writes_through_planted_symlinks(tmp_path, puzzle):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    cert = tmp_path / "cert"
    cert.mkdir()
    (cert / ".proof.drat.nonosat-tmp").symlink_to(victim)
    (cert / "puzzle.json").symlink_to(victim)
    code, _, err, _ = run("certify", GAMES / puzzle, "--out", cert, "--force", cwd=tmp_path)
    assert code == 0, err
    assert victim.read_text() == "precious\n"
    assert not (cert / "puzzle.json").is_symlink()


def test_item02_atomic_write_uses_a_fresh_temporary(tmp_path):
    from nonosat.safe_io import atomic_write

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    for name in ("a.txt.nonosat-tmp", ".a.txt.nonosat-tmp", ".a.txt.tmp"):
        (tmp_path / name).symlink_to(victim)
    atomic_write(tmp_path / "a.txt", b"new\n")
    assert (tmp_path / "a.txt").read_bytes() == b"new\n"
    assert victim.read_text() == "precious\n"


def test_item02_a_device_fifo_or_directory_at_the_target_is_never_replaced(tmp_path):
    """Renaming the temporary over a FIFO (or ``/dev/null``, as root) would replace the node
    itself: refused even with ``force``."""
    from nonosat.errors import FormatError
    from nonosat.safe_io import atomic_write

    fifo = tmp_path / "pipe.xml"
    os.mkfifo(fifo)
    (tmp_path / "dir.xml").mkdir()
    for target, kind in ((fifo, "FIFO"), (tmp_path / "dir.xml", "directory")):
        for force in (False, True):
            with pytest.raises(FormatError, match=kind):
                atomic_write(target, b"x", force=force)
    assert fifo.is_fifo() and (tmp_path / "dir.xml").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.xml", "pipe.xml"]  # no temporaries
    code, _, err, _ = run("convert", GAMES / "heart.non", fifo, "--force", timeout=30)
    assert_one_line_error(code, err, "pipe.xml")
    assert fifo.is_fifo()


# -- item 3: unbounded reads, FIFOs --------------------------------------------------------------
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_item03_devices_are_refused_at_once(device):
    start = time.monotonic()
    code, _, err, rss = run("solve", device, timeout=30)
    assert_one_line_error(code, err, device)
    assert "not a puzzle file" in err
    assert time.monotonic() - start < 20
    assert rss < 400


def test_item03_a_fifo_never_blocks(tmp_path):
    fifo = tmp_path / "pipe.non"
    os.mkfifo(fifo)
    code, _, err, _ = run("solve", fifo, timeout=30)
    assert_one_line_error(code, err, "pipe.non")
    assert "FIFO" in err
    batch = tmp_path / "dir"
    batch.mkdir()
    shutil.copy(GAMES / "heart.non", batch)
    os.mkfifo(batch / "pipe.non")
    code, _, err, _ = run("batch", batch, "--out", tmp_path / "r.jsonl", timeout=60)
    assert code == 2 and "Traceback" not in err
    rows = {json.loads(x)["puzzle"]: json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()}
    assert rows[str(batch / "heart.non")]["status"] == "unique"
    assert rows[str(batch / "pipe.non")]["failure"] == "unreadable"
    assert "FIFO" in rows[str(batch / "pipe.non")]["error"]


def _certificate(tmp_path: Path, puzzle: str = "heart.non") -> Path:
    out = tmp_path / f"cert-{puzzle}"
    code, _, err, _ = run("certify", GAMES / puzzle, "--out", out)
    assert code == 0, err
    return out


@pytest.mark.parametrize("puzzle", ["heart.non", "ladybird.non"])
def test_item03_certificate_files_that_are_fifos_or_devices_are_refused(tmp_path, puzzle):
    cert = _certificate(tmp_path, puzzle)
    for name in ("certificate.json", "puzzle.json", "proof.drat"):
        for kind in ("fifo", "zero"):
            broken = tmp_path / f"{name}-{kind}"
            shutil.copytree(cert, broken)
            (broken / name).unlink()
            if kind == "fifo":
                os.mkfifo(broken / name)
            else:
                (broken / name).symlink_to("/dev/zero")
            code, _, err, _ = run("verify-certificate", broken, timeout=30)
            err = " ".join(err.split())  # the report wraps at 80 columns
            assert code in (1, 2) and "Traceback" not in err, (name, kind, err)
            assert "NOT verified" in err or "error" in err
            assert ("FIFO" if kind == "fifo" else "character device") in err, (name, kind, err)


def test_item03_read_bounded_caps_the_bytes_read(tmp_path):
    from nonosat.errors import FormatError
    from nonosat.safe_io import read_bounded

    path = tmp_path / "big.non"
    path.write_bytes(b"x" * 1000)
    assert read_bounded(path, 1000) == b"x" * 1000
    with pytest.raises(FormatError, match="larger than 999 bytes"):
        read_bounded(path, 999)


def heart_refused_under(tmp_path, variable: str, value: str):
    """``solve`` on a copy of heart.non with the limit ``variable`` set to ``value``: one line
    that names the file and the variable, exit 2.  Returns the copy's path."""
    path = tmp_path / "heart.non"
    shutil.copy(GAMES / "heart.non", path)
    code, _, err, _ = run("solve", path, env={variable: value})
    assert_one_line_error(code, err, "heart.non")
    assert variable in err
    return path


def test_item03_the_file_size_cap_is_documented_and_raisable(tmp_path):
    heart_refused_under(tmp_path, "NONOSAT_MAX_FILE_BYTES", "100")


# -- item 4: tracebacks ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["big-int.json", "ebcdic.xml", "deep.json", "deep.xml"])
def test_item04_hostile_files_are_one_line_and_exit_2(tmp_path, name):
    code, _, err, _ = run("solve", HOSTILE / name)
    assert_one_line_error(code, err, name)


def test_item04_a_certificate_nested_100000_deep_is_one_problem(tmp_path):
    for puzzle in ("heart.non", "ladybird.non"):
        cert = _certificate(tmp_path, puzzle)
        record = json.loads((cert / "certificate.json").read_text())
        deep = "[" * 100_000 + "]" * 100_000
        (cert / "certificate.json").write_text(
            json.dumps(record)[:-1] + f', "x": {deep}}}'
        )
        code, _, err, _ = run("verify-certificate", cert)
        assert code == 1 and "Traceback" not in err, err
        assert "nested too deeply" in err
        shutil.copy(HOSTILE / "deep-certificate.json", cert / "certificate.json")
        code, _, err, _ = run("verify-certificate", cert)
        assert code == 1 and "Traceback" not in err, err


def test_item04_one_bad_file_in_a_batch_is_one_failed_row(tmp_path):
    batch = tmp_path / "dir"
    batch.mkdir()
    shutil.copy(GAMES / "heart.non", batch)
    for name in ("big-int.json", "ebcdic.xml", "deep.json"):
        shutil.copy(HOSTILE / name, batch)
    out = tmp_path / "r.jsonl"
    code, stdout, err, _ = run("batch", batch, "--out", out, "--json")
    assert code == 2 and "Traceback" not in err, err
    rows = {Path(json.loads(x)["puzzle"]).name: json.loads(x) for x in out.read_text().splitlines()}
    assert rows["heart.non"]["status"] == "unique"
    for name in ("big-int.json", "ebcdic.xml", "deep.json"):
        assert rows[name]["failure"] == "unreadable" and name in rows[name]["error"]
    summary = json.loads(stdout)
    assert {Path(f["puzzle"]).name for f in summary["failures"]} == {
        "big-int.json", "ebcdic.xml", "deep.json"}


def test_item03_item04_verify_results_files_that_are_hostile_are_one_line(tmp_path):
    """``nonosat verify --results FILE``: the other solver's results file is read like a
    puzzle (bounded, regular files only) and a hostile line is a bad row, not a traceback."""
    from nonosat.errors import FormatError
    from nonosat.judge import read_results

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for path, words in ((fifo, "FIFO"), (Path("/dev/zero"), "character device")):
        code, _, err, rss = run("verify", "--results", path, GAMES / "heart.non", timeout=30)
        assert_one_line_error(code, err, str(path))
        assert words in err and rss < 400, (err, rss)
    head = '{"id": "heart.non", "status": "unique", "x": '
    big = tmp_path / "big.jsonl"
    big.write_text(head + "9" * 5000 + "}\n")
    deep = tmp_path / "deep.jsonl"
    deep.write_text(head + "[" * 100_000 + "]" * 100_000 + "}\n")
    for path in (big, deep):
        (row,) = read_results(path)
        assert row.problem and row.problem.startswith("not JSON"), row
    long = tmp_path / "long.tsv"
    long.write_text("id\tstatus\n" + "a" * 200_000 + "\tunique\n")
    with pytest.raises(FormatError, match="long.tsv:2: malformed TSV"):
        read_results(long)
    for path in (big, long):
        code, _, err, _ = run("verify", "--results", path, GAMES / "heart.non", timeout=60)
        assert code == 2 and "Traceback" not in err, (code, err)


# -- item 5: memory blow-ups on sizes ------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    ["huge-header.non", "huge-header.nin", "huge-header.mk", "huge-header.cwd",
     "huge-header.pbm", "huge-header.png", "wide.png", "giant-clue.nin"],
)
def test_item05_announced_giant_sizes_are_refused_before_allocating(name):
    code, _, err, rss = run("solve", HOSTILE / name, timeout=30)
    assert_one_line_error(code, err, name)
    assert rss < 400, rss


def _lines_file(tmp_path: Path, suffix: str, n: int) -> Path:
    """A file of ``n`` row and ``n`` column clues in the format of ``suffix``."""
    if suffix == ".g":
        text = ": rows\n" + "1\n" * n + ": columns\n" + "1\n" * n
    elif suffix == ".txt":  # picross-solver
        text = "GRID big\nROWS\n" + "[ 1 ]\n" * n + "COLUMNS\n" + "[ 1 ]\n" * n
    elif suffix == ".tournament.txt":
        text = "$1\n" + "1\n" * (2 * n)
    elif suffix == ".xml":
        line = "<line><count>1</count></line>"
        text = ('<?xml version="1.0"?><puzzleset><puzzle type="grid"><clues type="columns">'
                + line * n + '</clues><clues type="rows">' + line * n
                + "</clues></puzzle></puzzleset>")
    else:  # .json
        text = json.dumps({"rows": [[1]] * n, "cols": [[1]] * n})
    path = tmp_path / f"big{suffix}"
    path.write_text(text)
    return path


@pytest.mark.parametrize("suffix", [".g", ".txt", ".tournament.txt", ".xml", ".json"])
def test_item05_every_line_based_reader_refuses_100000_by_100000(tmp_path, suffix):
    from nonosat.errors import FormatError
    from nonosat.formats import read_puzzles

    path = _lines_file(tmp_path, suffix, 100_000)
    with pytest.raises(FormatError, match="too large|limit"):
        read_puzzles(path)


def test_item05_a_200kb_tournament_file_of_50000_squared_is_refused_small(tmp_path):
    path = _lines_file(tmp_path, ".tournament.txt", 50_000)
    assert path.stat().st_size <= 300_000
    code, _, err, rss = run("solve", path, timeout=30)
    assert_one_line_error(code, err, path.name)
    assert rss < 400, rss


def test_item05_the_one_size_limit_is_checked_and_raisable(tmp_path):
    path = heart_refused_under(tmp_path, "NONOSAT_MAX_CELLS", "100")
    code, _, err, _ = run("solve", path, env={"NONOSAT_MAX_CELLS": "143"})
    assert code == 0, err


def test_item05_certify_memory_is_estimated_and_refused_early(tmp_path):
    from nonosat.limits import estimate_memory
    from nonosat.puzzle import Puzzle

    n = 1000
    stair = Puzzle(tuple((r + 1,) for r in range(n)), tuple((n - c,) for c in range(n)))
    twice = Puzzle(tuple((r + 1,) for r in range(2 * n)), tuple((2 * n - c,) for c in range(2 * n)))
    # linear: twice the side is four times the cells and four times the variable part
    fixed = estimate_memory(Puzzle(((1,),), ((1,),)), "certify")
    ratio = (estimate_memory(twice, "certify") - fixed) / (estimate_memory(stair, "certify") - fixed)
    assert 3.9 < ratio < 4.1
    rows = "\n".join("#" * (r + 1) + "." * (n - r - 1) for r in range(n))
    picture = tmp_path / "stair.txt"
    picture.write_text(rows + "\n")
    start = time.monotonic()
    code, _, err, rss = run("certify", picture, "--out", tmp_path / "c",
                            env={"NONOSAT_MAX_MEMORY_MB": "1024"}, timeout=60)
    assert_one_line_error(code, err, "stair.txt")
    assert "NONOSAT_MAX_MEMORY_MB" in err
    assert time.monotonic() - start < 30
    assert rss < 600, rss


# -- item 6: the quadratic reader ----------------------------------------------------------------
def test_item06_the_json_reader_is_linear_in_rows(tmp_path, monkeypatch):
    from nonosat.errors import FormatError
    from nonosat.formats import read_puzzles

    monkeypatch.setenv("NONOSAT_MAX_CELLS", str(10**12))
    monkeypatch.setenv("NONOSAT_MAX_MEMORY_MB", str(10**9))
    times = {}  # CPU seconds: on a loaded machine (load 16 on 2 cores) wall-clock time of the
    # 200,000-row read was 4.6 s against 0.16 s of CPU
    read_puzzles(GAMES / "house.json")  # warm-up: imports
    for n in (20_000, 200_000):
        text = "{\n\"rows\": [\n" + ",\n".join(["[1]"] * n) + "\n],\n\"cols\": [\n" + ",\n".join(
            ["[1]"] * n) + "\n]\n}\n"
        path = tmp_path / f"rows{n}.json"
        path.write_text(text)
        damaged = tmp_path / f"damaged{n}.json"
        damaged.write_text(text[:-4] + "x}\n")  # the error is found at the very end
        start = time.process_time()
        with pytest.raises(FormatError) as info:
            read_puzzles(damaged)
        assert re.search(r"damaged\d+\.json:\d+:", str(info.value)), info.value
        times[n] = time.process_time() - start
    assert times[200_000] < 15
    assert times[200_000] < 25 * max(times[20_000], 0.05), times


# -- item 7: certificates bound to a puzzle ------------------------------------------------------
@pytest.mark.parametrize("puzzle, other", [("heart.non", "mug.xml"),
                                           ("ladybird.non", "heart.non")])
def test_item07_verify_certificate_checks_the_puzzle_it_is_given(tmp_path, puzzle, other):
    cert = _certificate(tmp_path, puzzle)
    code, out, err, _ = run("verify-certificate", cert, "--puzzle", GAMES / other)
    assert code == 1 and "Traceback" not in err
    assert "another puzzle" in err
    code, out, err, _ = run("verify-certificate", cert, "--puzzle", GAMES / puzzle)
    assert code == 0, err
    assert "verified" in out and str(GAMES / puzzle) in out
    # without --puzzle the verified line still names the puzzle and its fingerprint
    code, out, err, _ = run("verify-certificate", cert)
    assert code == 0 and "sha256" in out
    assert ("Heart" if puzzle == "heart.non" else "Ladybird") in out


@pytest.mark.parametrize("puzzle", ["heart.non", "ladybird.non"])
@pytest.mark.parametrize("files", [{}, None, "missing", {"puzzle.json": "0" * 64}])
def test_item07_an_empty_missing_or_partial_hash_list_is_refused(tmp_path, puzzle, files):
    cert = _certificate(tmp_path, puzzle)
    record = json.loads((cert / "certificate.json").read_text())
    if files == "missing":
        del record["files"]
    elif isinstance(files, dict) and files:
        files = {"puzzle.json": record["files"]["puzzle.json"]}
        record["files"] = files
    else:
        record["files"] = files
    (cert / "certificate.json").write_text(json.dumps(record))
    code, out, err, _ = run("verify-certificate", cert)
    assert code == 1 and "Traceback" not in err, (code, out, err)
    assert "NOT verified" in err
    assert "hash" in err


# -- item 8: batch certify collisions --------------------------------------------------------------
def test_item08_batch_certify_names_are_unique_and_existing_directories_need_force(tmp_path):
    from nonosat.batch.run import certificate_dir

    batch = tmp_path / "in"
    batch.mkdir()
    shutil.copy(GAMES / "sailboat.nin", batch / "a b.nin")
    shutil.copy(GAMES / "sailboat.nin", batch / "a_b.nin")
    certs = tmp_path / "certs"
    code, _, err, _ = run("batch", "in", "--do", "certify", "--cert-dir", certs, "--out",
                          tmp_path / "r.jsonl", cwd=tmp_path, timeout=120)
    assert code == 0, err
    made = sorted(p.name for p in certs.iterdir())
    assert len(made) == 2 and len(set(made)) == 2
    assert certificate_dir(certs, "in/a b.nin") != certificate_dir(certs, "in/a_b.nin")
    for path in certs.iterdir():
        assert (path / "certificate.json").is_file()
    # reversible: the directory name gives the id back
    from urllib.parse import unquote

    assert {unquote(name) for name in made} == {"in/a b.nin", "in/a_b.nin"}
    mine = certs / made[0] / "my-notes.txt"
    mine.write_text("mine\n")
    (tmp_path / "r.jsonl").unlink()
    code, _, err, _ = run("batch", "in", "--do", "certify", "--cert-dir", certs, "--out",
                          tmp_path / "r.jsonl", cwd=tmp_path, timeout=120)
    assert code == 2 and "--force" in err and "Traceback" not in err
    assert mine.read_text() == "mine\n"


# -- item 9: silent skips ----------------------------------------------------------------------------
def test_item09_a_damaged_puzzle_file_is_a_failed_row_in_the_summary(tmp_path):
    batch = tmp_path / "in"
    batch.mkdir()
    shutil.copy(GAMES / "heart.non", batch)
    shutil.copy(HOSTILE / "truncated.xml", batch)
    shutil.copy(HOSTILE / "truncated.png", batch)
    (batch / "README.md").write_text("not a puzzle\n")
    out = tmp_path / "r.jsonl"
    code, stdout, err, _ = run("batch", batch, "--out", out, "--json")
    assert code == 2 and "Traceback" not in err
    summary = json.loads(stdout)
    failed = {Path(f["puzzle"]).name for f in summary["failures"]}
    assert failed == {"truncated.xml", "truncated.png"}
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert {Path(r["puzzle"]).name for r in rows} == {"heart.non", "truncated.xml", "truncated.png"}
    code, stdout, err, _ = run("batch", batch, "--out", tmp_path / "r2.jsonl",
                               env={"COLUMNS": "250"})
    assert "truncated.xml" in stdout and "truncated.png" in stdout


# -- item 10: default limits --------------------------------------------------------------------------
def test_item10_interactive_commands_have_a_default_time_limit(monkeypatch):
    from nonosat.limits import DEFAULT_TIMEOUT_S, default_timeout, resolve_timeout

    monkeypatch.delenv("NONOSAT_TIMEOUT", raising=False)
    assert default_timeout() == DEFAULT_TIMEOUT_S == 300
    assert resolve_timeout(None) == 300 and resolve_timeout(5) == 5 and resolve_timeout(0) is None
    monkeypatch.setenv("NONOSAT_TIMEOUT", "7")
    assert resolve_timeout(None) == 7
    monkeypatch.setenv("NONOSAT_TIMEOUT", "0")
    assert resolve_timeout(None) is None


def test_item10_a_hard_puzzle_stops_at_the_default_time_limit(tmp_path):
    """``NONOSAT_TIMEOUT`` (the default ``--timeout``) ends the search: exit 4 or a verdict."""
    import random

    rng = random.Random(17)
    n = 45
    rows = "\n".join("".join(rng.choice("#.") for _ in range(n)) for _ in range(n))
    path = tmp_path / "random.txt"
    path.write_text(rows + "\n")
    start = time.monotonic()
    code, out, err, _ = run("solve", path, "--engine", "native", env={"NONOSAT_TIMEOUT": "1"},
                            timeout=60)
    assert "Traceback" not in err
    assert code in (0, 1, 4), (code, err)
    assert time.monotonic() - start < 20


def test_item10_native_probing_stops_at_the_limit_inside_the_compiled_root_node(tmp_path):
    """One root node of native probing on a random 400x400 grid is a single compiled call of
    well over 20 s CPU; it reads the stop flag before every probe (``nonosat.stop``), so a
    0.5 s limit ends it with the ordinary verdict: exit 4, "gave up", nothing on stderr, long
    before the watchdog (5 s past the limit) would have to end the process."""
    import random

    rng = random.Random(17)
    n = 400
    path = tmp_path / "random400.txt"
    path.write_text("\n".join("".join(rng.choice("#.") for _ in range(n)) for _ in range(n)) + "\n")
    code, out, err, _ = run("solve", path, "--engine", "native",
                            env={"NONOSAT_TIMEOUT": "0.5"}, timeout=120)
    assert "Traceback" not in err and not err.strip(), err
    assert code == 4, (code, out)
    verdict = re.search(r"gave up before deciding \[native, ([0-9.]+) s[;\]]", out)
    assert verdict, out
    assert float(verdict[1]) < 5.5  # the watchdog's grace would be 5 s past the limit


def test_item10_the_portfolio_out_of_time_builds_no_cnf(monkeypatch):
    """Once the native phase has used up the time limit, the auto engine gives up at once: no
    probing for root implications, no SAT hand-off (on a random 200x200 grid with a 5 s
    limit these ran for 60 s more and built a 1.4 GB CNF after the limit had passed)."""
    import random

    import nonosat.engines.auto as auto
    from nonosat.engines import Status, get_engine
    from nonosat.native.search import NativeSearch
    from nonosat.puzzle import Puzzle

    rng = random.Random(17)
    n = 45  # native search does not finish on it within minutes (test above)
    picture = [[rng.random() < 0.5 for _ in range(n)] for _ in range(n)]
    puzzle = Puzzle.from_picture(picture)
    called = []

    def no_sat(*args, **kwargs):
        raise AssertionError(f"SAT hand-off after the time limit (after {called})")

    monkeypatch.setattr(auto, "get_engine", no_sat)
    for name in ("root_implications", "root_implication_literals"):
        monkeypatch.setattr(NativeSearch, name,
                            lambda self, *a, **k: called.append("implications") or [])
    result = get_engine("auto").solve(puzzle, timeout=1e-6)
    assert result.status == Status.UNKNOWN
    assert called == []


def test_item10_a_huge_puzzle_is_refused_by_the_memory_estimate(tmp_path):
    n = 5000
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"rows": [[]] * n, "cols": [[]] * n}))
    code, _, err, rss = run("solve", path, env={"NONOSAT_MAX_CELLS": str(n * n),
                                                "NONOSAT_MAX_MEMORY_MB": "2048"}, timeout=60)
    assert_one_line_error(code, err, "empty.json")
    assert "NONOSAT_MAX_MEMORY_MB" in err
    assert rss < 600, rss


def test_item10_the_default_engine_is_estimated_with_its_sat_hand_off(tmp_path):
    """The auto portfolio hands open puzzles to SAT, so its estimate is SAT's: a random
    200x200 grid (1.44 GB measured through the hand-off) is refused under a 1024 MiB limit,
    by ``solve`` with the default engine as by ``--engine sat``; ``--engine native`` runs."""
    import random

    from nonosat.limits import command_workload

    assert command_workload("solve_command", {"engine": "auto"}) == "sat"
    assert command_workload("solve_command", {"engine": "native"}) == "native"
    rng = random.Random(17)
    n = 200
    path = tmp_path / "random200.txt"
    path.write_text("\n".join("".join(rng.choice("#.") for _ in range(n)) for _ in range(n)) + "\n")
    env = {"NONOSAT_MAX_MEMORY_MB": "1024", "NONOSAT_TIMEOUT": "0.5"}
    for engine in ("auto", "sat"):
        code, _, err, rss = run("solve", path, "--engine", engine, env=env, timeout=60)
        assert_one_line_error(code, err, "random200.txt")
        assert "NONOSAT_MAX_MEMORY_MB" in err and rss < 400, (err, rss)


# -- item 11: images ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["postscript.png", "postscript.gif", "truncated.png"])
def test_item11_pillow_only_opens_the_image_formats_nonosat_reads(tmp_path, name, monkeypatch):
    code, _, err, _ = run("solve", HOSTILE / name, env={"PATH": str(tmp_path)})
    assert_one_line_error(code, err, name)
    assert "ghostscript" not in err.lower()
    from PIL import Image

    opened = []
    real_open = Image.open

    def spy(fp, mode="r", formats=None):
        opened.append(formats)
        return real_open(fp, mode, formats)

    monkeypatch.setattr(Image, "open", spy)
    from nonosat.errors import FormatError
    from nonosat.formats import read_puzzles

    with pytest.raises(FormatError):
        read_puzzles(HOSTILE / name)
    assert opened and all(f and "EPS" not in f and len(f) <= 4 for f in opened), opened


# -- item 12: minor parsing ---------------------------------------------------------------------------
def test_item12_a_tournament_file_with_a_bom_is_read(tmp_path):
    from nonosat.formats import read_puzzles

    (puzzle,) = read_puzzles(HOSTILE / "bom-tournament.txt")
    assert puzzle.shape == (5, 5) and puzzle.number == 1


@pytest.mark.parametrize("name, words", [
    ("bad-goal.non", "goal"),
    ("undefined-colour.non", "'z'"),
    ("duplicate-width.non", "second 'width'"),
])
def test_item12_non_files_with_bad_goals_colours_or_keys_are_refused(name, words):
    code, _, err, _ = run("solve", HOSTILE / name)
    assert_one_line_error(code, err, name)
    assert words in err


def test_item12_a_file_name_with_a_newline_stays_one_line(tmp_path):
    bad = tmp_path / "bad\nname.non"
    shutil.copy(HOSTILE / "truncated.xml", bad)
    code, _, err, _ = run("solve", bad)
    assert_one_line_error(code, err, "bad\\nname.non")
    code, _, err, _ = run("solve", tmp_path / "no\x1bsuch.non")
    assert_one_line_error(code, err, "no\\x1bsuch.non")
