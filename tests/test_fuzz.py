"""Fuzzing (issue 17): hypothesis mutations of the shipped puzzles and a few corpus files --
truncations, byte flips, giant numbers, giant sizes, bad encodings, deep nesting -- fed to
every reader in-process (only nonosat's own errors may come out), to certificate verification,
and a smaller sample through the commands as subprocesses (exit 0-4, no traceback, bounded
time and peak RSS).  benchmarks/bench_fuzz.py is the long run of the same idea.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CORPUS, GAMES, REPO, RSS_LAUNCHER
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CORPUS_SEEDS = ("pbnsolve-examples/rose.g", "pbnsolve-examples/bird.mk",
                "picross-solver/inputs/example_input.txt", "number-loom/puzzles/logo.xml",
                "Nonogram/games/icons.csv")


def _seeds() -> list[tuple[str, bytes]]:
    out = [(p.name, p.read_bytes()) for p in sorted(GAMES.iterdir()) if p.is_file()]
    for rel in CORPUS_SEEDS:  # a user's clone without the corpus fuzzes games/ alone
        if (CORPUS / rel).is_file():
            out.append((Path(rel).name, (CORPUS / rel).read_bytes()))
    taai = CORPUS / "NonogramRecord/question/taai2011.txt"
    if taai.is_file():
        out.append(("taai.txt", b"".join(taai.read_bytes().splitlines(True)[:102])))
    out.append(("heart.short", b"R7u58r_9f-_3-fXjU7-_z-_3-H9_v8_fvz\n"))
    out.append(("plus.pbm", b"P1\n3 3\n010\n111\n010\n"))
    return out


SEEDS = _seeds()

GIANT = [b"9" * 5000, b"99999999999999999999", b"100000", b"16385", b"4294967296", b"-1",
         b"1e999", b"0"]


@st.composite
def mutated(draw) -> tuple[str, bytes, list[str]]:
    """``(seed name, bytes, what was done)``: one to three mutations of a seed."""
    name, data = draw(st.sampled_from(SEEDS))
    done = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "giant number", "encoding",
                                     "nesting", "insert", "lines"]))
        n = len(data)
        if kind == "truncate":
            data = data[: draw(st.integers(0, n))]
        elif kind == "flip" and n:
            k = draw(st.integers(0, n - 1))
            data = data[:k] + bytes([draw(st.integers(0, 255))]) + data[k + 1:]
        elif kind == "giant number":
            digits = [k for k, b in enumerate(data) if 48 <= b <= 57]
            big = draw(st.sampled_from(GIANT))
            k = draw(st.sampled_from(digits)) if digits else 0
            data = data[:k] + big + data[k + 1:]
        elif kind == "encoding":
            how = draw(st.sampled_from(["bom", "utf16", "bad utf8", "xml"]))
            if how == "bom":
                data = b"\xef\xbb\xbf" + data
            elif how == "utf16":
                data = data.decode("latin-1").encode("utf-16")
            elif how == "bad utf8":
                k = draw(st.integers(0, n))
                data = data[:k] + b"\xff\xc3" + data[k:]
            else:
                enc = draw(st.sampled_from([b"ebcdic-xx", b"utf-32", b"cp500", b"utf-16"]))
                data = b'<?xml version="1.0" encoding="' + enc + b'"?>' + data.split(b"?>")[-1]
        elif kind == "nesting":
            depth = draw(st.sampled_from([100, 5000, 100_000]))
            o, c = draw(st.sampled_from([(b"[", b"]"), (b"<a>", b"</a>"), (b'{"a":', b"}")]))
            k = draw(st.integers(0, n))
            data = data[:k] + o * depth + c * depth + data[k:]
        elif kind == "insert":
            junk = draw(st.sampled_from([b"\n", b"\r", b"\t", b"\x00", b"$", b"<", b",", b"#",
                                         b"[]", b"null", b"\x1b[0m", b"&x;"]))
            k = draw(st.integers(0, n))
            data = data[:k] + junk * draw(st.sampled_from([1, 7, 300])) + data[k:]
        elif kind == "lines":
            lines = data.splitlines(True)
            if lines:
                k = draw(st.integers(0, len(lines) - 1))
                lines[k:k + 1] = [lines[k]] * draw(st.sampled_from([0, 2, 500]))
                data = b"".join(lines)
        done.append(kind)
    return name, data, done


class _Slow(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise _Slow


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=mutated())
def test_every_reader_raises_only_nonosat_errors(case, tmp_path_factory):
    from nonosat.errors import NonosatError
    from nonosat.formats import formats, read_puzzles

    name, data, done = case
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_bytes(data)
    calls = [(fmt.name, lambda f=fmt: f.read(data, name))
             for fmt in formats().values() if fmt.read is not None]
    calls.append(("read_puzzles", lambda: read_puzzles(path)))
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for reader, call in calls:
            signal.setitimer(signal.ITIMER_REAL, 10)
            try:
                call()
            except NonosatError:
                pass
            except _Slow:
                pytest.fail(f"{reader} took over 10 s on {name} after {done}")
            except Exception as exc:  # noqa: BLE001
                pytest.fail(f"{reader} raised {type(exc).__name__}: {str(exc)[:200]} on {name} "
                            f"after {done}")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module")
def certificate_files() -> dict[str, bytes]:
    """The files of a certificate of games/heart.non."""
    from nonosat.certificates import certify
    from nonosat.certificates.bundle import certificate_files
    from nonosat.formats import read_puzzle

    return certificate_files(certify(read_puzzle(GAMES / "heart.non")))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(which=st.sampled_from(["certificate.json", "puzzle.json", "puzzle.cnf", "proof.drat",
                              "solution.txt"]), case=mutated())
def test_mutated_certificates_are_problems_not_crashes(which, case, certificate_files,
                                                      tmp_path_factory):
    from nonosat.certificates import verify_certificate

    cert = tmp_path_factory.mktemp("cert")
    for name, data in certificate_files.items():
        (cert / name).write_bytes(data)
    if case[1] != certificate_files[which]:
        (cert / which).write_bytes(case[1])
        result = verify_certificate(cert)
        assert not result.ok and result.problems


def _run(argv: list[str], cwd: Path) -> tuple[int, str, float, int]:
    """``(exit code, stderr, seconds, peak RSS bytes)`` of nonosat ``argv``, killed after 60 s.

    The peak RSS is the command's own, through :data:`conftest.RSS_LAUNCHER` (a direct child's
    ``ru_maxrss`` starts at this pytest worker's RSS)."""
    start = time.monotonic()
    rss_file = cwd / "peak-rss"
    with open(cwd / "stderr", "w+b") as err:
        proc = subprocess.Popen([sys.executable, "-S", "-c", RSS_LAUNCHER, str(rss_file),
                                 sys.executable, "-m", "nonosat", *argv], cwd=cwd,
                                stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                                env={**os.environ, "NONOSAT_TIMEOUT": "10"},
                                start_new_session=True)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail(f"nonosat {' '.join(argv)} hung (killed after 60 s)")
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    peak = int(rss_file.read_text() or 0) * 1024 if rss_file.exists() else 0
    return proc.returncode, text, time.monotonic() - start, peak


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(command=st.sampled_from(["solve", "convert", "render", "verify-certificate", "batch"]),
       case=mutated())
def test_commands_on_hostile_files_end_cleanly(command, case, certificate_files,
                                               tmp_path_factory):
    name, data, done = case
    work = tmp_path_factory.mktemp("cli")
    if command == "verify-certificate":
        (work / "cert").mkdir()
        for file, content in certificate_files.items():
            (work / "cert" / file).write_bytes(content)
        target = "puzzle.json" if len(done) % 2 else "certificate.json"
        (work / "cert" / target).write_bytes(data)
        argv = [command, "cert"]
    elif command == "batch":
        (work / "in").mkdir()
        (work / "in" / name).write_bytes(data)
        argv = [command, "in", "--out", "r.jsonl", "--jobs", "1"]
    else:
        (work / name).write_bytes(data)
        argv = {"solve": ["solve", name], "convert": ["convert", name, "out.xml"],
                "render": ["render", name, "--out", "out.svg"]}[command]
    code, err, seconds, rss = _run(argv, work)
    assert "Traceback" not in err, (argv, done, err[-2000:])
    assert code in range(0, 5), (argv, done, code, err[-500:])
    assert seconds < 60
    assert rss < 1 << 30, (argv, done, rss)
    if command == "batch":
        rows = [json.loads(x) for x in (work / "r.jsonl").read_text().splitlines()]
        assert len(rows) == 1  # the file is a row: a result or a failure, never skipped


def test_the_seeds_include_the_corpus_when_it_is_there():
    assert len(SEEDS) >= 10 or not CORPUS.is_dir()
    assert REPO.is_dir()
