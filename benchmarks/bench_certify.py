"""Uniqueness certificates over the corpus, checked by dratify, drat-trim and cake_lpr (issue 18).

For every unique black-and-white puzzle of the chosen sets (the everyday set, the webpbn survey,
the unique puzzles of a tournament set), in one process:

* the plain uniqueness check (``engines.solve(puzzle, "auto", limit=2)``), CPU seconds;
* in-process certify (solve + prove, no external check: ``certify_puzzle(..., checkers=())``,
  with no external checker reachable, so no ``drat-trim -L`` either), CPU seconds, its prover,
  lemmas and lemmas per cell;
* the LRAT proof: nonosat's own (provers ``propagation`` and ``native``) or drat-trim's
  (``drat-trim -L``, timed, for proofs with a SAT solver's part), its size in bytes;
* each checker's own time on the proof (dratify in-process; drat-trim and cake_lpr as
  processes, wall seconds).

drat-trim and cake_lpr are built from ``../shared/third_party`` (``$NONOSAT_THIRD_PARTY``) into a
temporary directory (``cc``), as the tests do; the corpus is ``../shared/corpus``
(``$NONOSAT_CORPUS``).  Prints a table per puzzle and a summary against the targets:
zero rejections; certify <= 2x the plain check on the median puzzle; drat-trim and cake_lpr
<= 0.2 s per survey puzzle.

Usage::

    python benchmarks/bench_certify.py                       # everyday + survey + taai2011
    python benchmarks/bench_certify.py --sets survey --limit 20
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from preamble import CORPUS, THIRD_PARTY, argument_parser  # first: puts REPO on sys.path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402

everyday, survey = run.everyday, run.survey

from nonosat.certificates import CHECKER_PATH_ENV, check_proof, drat_to_lrat  # noqa: E402
from nonosat.certificates.certifier import certify_puzzle  # noqa: E402
from nonosat.engines import solve  # noqa: E402
from nonosat.formats import read_puzzle  # noqa: E402


def build_checkers(dest: Path) -> None:
    """drat-trim and cake_lpr from ``../shared/third_party`` into ``dest``."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("bench_certify: no C compiler to build drat-trim and cake_lpr")
    subprocess.run([cc, "-O2", "-o", str(dest / "drat-trim"),
                    str(THIRD_PARTY / "drat-trim" / "drat-trim.c")], check=True,
                   capture_output=True)
    subprocess.run([cc, "-O2", "-std=c99", "-o", str(dest / "cake_lpr"),
                    str(THIRD_PARTY / "cake_lpr" / "basis_ffi.c"),
                    str(THIRD_PARTY / "cake_lpr" / "cake_lpr.S")], check=True,
                   capture_output=True)


def taai_unique(path: Path) -> list[tuple[str, str, int | None]]:
    """The puzzles of a tournament set (:func:`measure` keeps the unique ones)."""
    from nonosat.formats import read_puzzles

    return [(f"{path.stem}#{p.number}", str(path), p.number) for p in read_puzzles(path)]


def cpu() -> float:
    return time.process_time()


def measure(pid: str, path: str, index: int | None, timeout: float) -> dict | None:
    puzzle = read_puzzle(path, None, index)
    if puzzle.is_colour:
        return None
    t = cpu()
    plain = solve(puzzle, "auto", limit=2, timeout=timeout)
    plain_s = cpu() - t
    if plain.status.value != "unique":
        return None
    checker_path = os.environ.pop(CHECKER_PATH_ENV)  # no drat-trim -L inside certify
    try:
        t = cpu()
        cert = certify_puzzle(puzzle, checkers=(), timeout=timeout)
        certify_s = cpu() - t
    finally:
        os.environ[CHECKER_PATH_ENV] = checker_path
    row = {"id": pid, "cells": puzzle.width * puzzle.height, "prover": cert.prover,
           "lemmas": cert.stats.get("lemmas", 0), "plain_s": plain_s, "certify_s": certify_s,
           "verdict": cert.verdict}
    if cert.proof is None or cert.formula is None:
        row["rejected"] = ["no proof"]
        return row
    row["per_cell"] = row["lemmas"] / row["cells"]
    lrat = cert.lrat
    row["lrat_by"] = cert.lrat_source or "drat-trim"
    if lrat is None:
        t = time.perf_counter()
        lrat = drat_to_lrat(cert.formula, cert.nvars, cert.proof)
        row["lrat_s"] = time.perf_counter() - t
    row["lrat_bytes"] = len(lrat or "")
    rejected = []
    for checker in ("dratify", "drat-trim", "cake_lpr"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        check = check_proof(cert.formula, cert.nvars, cert.proof, checker, lrat=lrat)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        row[checker] = check.time_s
        # the checker process's own CPU seconds (user + system): less at the mercy of the load
        row[checker + " cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime
                                                                      - before.ru_stime)
        if not check.ok:
            rejected.append(f"{checker}: {check.reason}")
    row["rejected"] = rejected
    return row


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--sets", default="everyday,survey,taai2011")
    ap.add_argument("--limit", type=int, default=None, help="at most N puzzles per set")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="nonosat-checkers-") as tmp:
        build_checkers(Path(tmp))
        os.environ[CHECKER_PATH_ENV] = tmp
        # load the compiled kernels (solver, encoder, proof writer) before anything is timed
        warm = CORPUS / "FastNonogramSolver" / "puzzles" / "survey" / "webpbn-00001.nin"
        measure("warm-up", str(warm), None, args.timeout)
        rows_by_set: dict[str, list[dict]] = {}
        for name in args.sets.split(","):
            if name == "everyday":
                specs = everyday()
            elif name == "survey":
                specs = survey()
            else:
                specs = taai_unique(CORPUS / "NonogramRecord" / "question" / f"{name}.txt")
            specs = specs[: args.limit] if args.limit else specs
            rows = []
            print(f"\n## {name}: running", flush=True)
            for pid, path, index in specs:
                row = measure(pid, path, index, args.timeout)
                if row is not None:
                    rows.append(row)
                    print(row_text(row), flush=True)  # as they come: a long run shows progress
            rows_by_set[name] = rows
        report(rows_by_set)


def row_text(r: dict) -> str:
    """One puzzle's line of the table."""
    ratio = r["certify_s"] / r["plain_s"] if r["plain_s"] > 0 else float("nan")
    return (f"{r['id'][-34:]:<34} {r['prover']:<11} {r['lemmas']:>7} "
            f"{r.get('per_cell', 0):>6.2f} {r['plain_s']:>7.3f} {r['certify_s']:>8.3f} "
            f"{ratio:>6.2f} {r.get('lrat_by', '-'):>9} {r.get('lrat_bytes', 0) / 1e3:>8.1f} "
            f"{r.get('lrat_s', 0):>6.3f} {r.get('dratify', 0):>8.3f} "
            f"{r.get('drat-trim', 0):>9.3f} {r.get('drat-trim cpu', 0):>6.3f} "
            f"{r.get('cake_lpr', 0):>8.3f} {r.get('cake_lpr cpu', 0):>6.3f}"
            + (f"  REJECTED {r['rejected']}" if r["rejected"] else ""))


def report(rows_by_set: dict[str, list[dict]]) -> None:
    head = (f"{'puzzle':<34} {'prover':<11} {'lemmas':>7} {'/cell':>6} {'plain':>7} "
            f"{'certify':>8} {'ratio':>6} {'lrat by':>9} {'lrat KB':>8} {'-L s':>6} "
            f"{'dratify':>8} {'drat-trim':>9} {'(cpu)':>6} {'cake_lpr':>8} {'(cpu)':>6}")
    for name, rows in rows_by_set.items():
        print(f"\n## {name}: {len(rows)} unique puzzles (CPU s for plain/certify, wall s for checks)")
        print(head)
        for r in rows:
            print(row_text(r))
    rows = [r for rs in rows_by_set.values() for r in rs]
    if not rows:
        return
    ratios = [r["certify_s"] / r["plain_s"] for r in rows if r["plain_s"] > 0]
    rejected = [r for r in rows if r["rejected"]]
    print(f"\npuzzles certified: {len(rows)}; rejections: {len(rejected)} (target 0)")
    print(f"certify / plain check, median puzzle: {statistics.median(ratios):.2f}x (target <= 2x);"
          f" median certify {statistics.median(r['certify_s'] for r in rows) * 1e3:.2f} ms CPU,"
          f" plain {statistics.median(r['plain_s'] for r in rows) * 1e3:.2f} ms")
    provers: dict[str, int] = {}
    for r in rows:
        provers[r["prover"]] = provers.get(r["prover"], 0) + 1
    print("provers:", ", ".join(f"{k} {v}" for k, v in sorted(provers.items())),
          "; LRAT by nonosat:", sum(r.get("lrat_by") == "nonosat" for r in rows))
    for name, rs in rows_by_set.items():
        rr = [r["certify_s"] / r["plain_s"] for r in rs if r["plain_s"] > 0]
        if rr:
            print(f"  {name}: {len(rs)} puzzles, certify / plain median {statistics.median(rr):.2f}x,"
                  f" rejections {sum(bool(r['rejected']) for r in rs)}")
    surv = rows_by_set.get("survey", [])
    for checker in ("drat-trim", "cake_lpr"):
        if surv:
            worst = max(surv, key=lambda r: r.get(checker, 0))
            cpu_worst = max(surv, key=lambda r: r.get(checker + " cpu", 0))
            print(f"{checker} on survey puzzles: max {worst.get(checker, 0):.3f} s wall "
                  f"({worst['id']}), median {statistics.median(r.get(checker, 0) for r in surv):.3f}"
                  f" s; CPU max {cpu_worst.get(checker + ' cpu', 0):.3f} s ({cpu_worst['id']})"
                  " (target <= 0.2 s each)")


if __name__ == "__main__":
    main()
