"""Uniqueness proofs per prover: size, solve / prove / check times, and certify vs plain check.

Provers (:func:`nonosat.certificates.certifier.certify_puzzle`): ``native`` (the native solver's
root deductions as lemmas; only puzzles it decides without search), ``sat`` (CaDiCaL 1.9.5's DRAT
proof) and ``auto`` (native where it decides without search, else SAT after the native deductions).
For every puzzle and prover it measures:

* **lemmas**: clauses the proof adds (the empty clause included), and lemmas per cell;
* **filled**: native steps that unit propagation on the encoding does not give, derived by a
  small SAT refutation instead (0 on a propagation-complete encoding);
* **solve**: the native root node (native, auto) or the SAT solver finding the solution (sat),
  seconds;
* **prove**: writing the proof (native lemmas, or the SAT refutation), seconds;
* **dratify**: checking it in-process; **drat-trim**: checking it with drat-trim when on
  ``PATH``;
* **certify**: the whole certificate (encode + solve + prove + dratify check), seconds, and
  **plain**: the plain uniqueness check, ``solve(puzzle, "auto", limit=2)`` (the default engine
  of ``nonosat solve``), seconds, with their ratio.

Sets:

* the survey puzzles (FastNonogramSolver/puzzles/survey): every prover, plus the native prover
  on the propagation-complete ``regular`` encoding for comparison; the targets are Cat (#6),
  Swing (#529), Merka (#1611) and Forever (#6574);
* the picture puzzles of the corpus (jwilk-nonogram, Nonogram/games) that the native solver
  decides without search: native and sat, summarised (``--rows`` prints each);
* the taai2011 puzzles with a unique solution (the plain check runs on all 1000 to find them;
  8 are unique, one is undecided within the timeout): auto and sat.

The whole run takes about 15 minutes (knotty and faase use up the timeout three times each).

Targets (issue "certificates that scale"): at most 10 lemmas per cell, dratify under 1 s and
drat-trim under 0.2 s on the survey targets and the line-solvable pictures; Merka's proof at
most 33,000 lemmas, accepted by both checkers; certify at most twice the plain check on taai2011
and the survey.

Usage::

    .venv/bin/python benchmarks/bench_proofs.py [--timeout 60] [--rows] [--no-corpus]
        [--no-taai] [--csv rows.csv] [--record]

``--record`` appends the tables to ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import datetime
import io
import os
import platform
import shutil
import statistics
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from preamble import (  # first: puts REPO on sys.path
    CORPUS,
    REPO,
    TAAI2011,
    argument_parser,
    write_csv,
)

from nonosat.certificates import check_proof
from nonosat.certificates.certifier import certify_puzzle
from nonosat.engines import solve
from nonosat.errors import NonosatError
from nonosat.formats import iter_puzzles, read_puzzle, read_puzzles
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Puzzle

SURVEY = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"
TARGETS = {"webpbn-00006": "Cat", "webpbn-00529": "Swing", "webpbn-01611": "Merka",
           "webpbn-06574": "Forever"}
MAX_LEMMAS_PER_CELL = 10
MAX_DRATIFY_S = 1.0
MAX_DRAT_TRIM_S = 0.2
MAX_MERKA_LEMMAS = 33_000
MAX_RATIO = 2.0
DRAT_TRIM = shutil.which("drat-trim")


def measure(puzzle: Puzzle, prover: str, encoding: str | None, timeout: float) -> dict[str, Any]:
    """Certify ``puzzle`` with ``prover`` (see the module docstring for the fields)."""
    row: dict[str, Any] = {"prover": prover, "encoding": encoding or "order",
                           "cells": puzzle.height * puzzle.width}
    try:
        cert = certify_puzzle(puzzle, prover=prover, encoding=encoding, checkers=("dratify",),
                              timeout=timeout)
    except NonosatError as exc:
        row.update(verdict="-", note=str(exc).split(" (")[0].split(",")[0])
        return row
    times = cert.times
    row.update(verdict=cert.verdict, written_by=cert.prover, certify_s=times["total"],
               solve_s=times.get("native", 0.0) + times.get("solve", 0.0),
               prove_s=times.get("prove"))
    if cert.proof is None or cert.formula is None:
        return row
    lemmas = cert.stats["lemmas"]
    row.update(lemmas=lemmas, deletions=cert.stats["deletions"],
               per_cell=lemmas / row["cells"], filled=cert.stats.get("native", {}).get("filled"))
    check = cert.checks[0]
    row.update(dratify_s=check.time_s, dratify_ok=check.ok)
    if DRAT_TRIM:
        trim = check_proof(cert.formula, cert.nvars, cert.proof, "drat-trim", timeout)
        row.update(drat_trim_s=trim.time_s, drat_trim_ok=trim.ok)
    return row


def plain_check(puzzle: Puzzle, timeout: float) -> dict[str, Any]:
    """The plain uniqueness check: the default engine, limit 2."""
    start = time.perf_counter()
    result = solve(puzzle, "auto", limit=2, timeout=timeout)
    return {"plain_s": time.perf_counter() - start, "plain_verdict": result.status.value}


def root_complete(puzzle: Puzzle) -> bool:
    """Whether the native solver decides ``puzzle`` at the root (propagation and probing)."""
    search = NativeSearch(puzzle, limit=2)
    search.step(1)
    return search.trace().complete


# -- output --------------------------------------------------------------------------------------
def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "ok" if value else "REJECTED"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


COLUMNS = [("puzzle", "puzzle", 20), ("prover", "prover", 7), ("encoding", "enc", 7),
           ("written_by", "written by", 10), ("verdict", "verdict", 8), ("lemmas", "lemmas", 8),
           ("per_cell", "/cell", 6), ("filled", "filled", 6), ("solve_s", "solve s", 8),
           ("prove_s", "prove s", 8), ("dratify_s", "dratify s", 9),
           ("drat_trim_s", "drat-trim s", 11), ("certify_s", "certify s", 9),
           ("plain_s", "plain s", 8), ("ratio", "ratio", 6), ("note", "note", 0)]


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown table of ``rows``."""
    out = io.StringIO()
    out.write("| " + " | ".join(title for _, title, _ in COLUMNS) + " |\n")
    out.write("|" + "|".join("---" for _ in COLUMNS) + "|\n")
    for row in rows:
        cells = []
        for key, _, _ in COLUMNS:
            value = row.get(key)
            if key == "per_cell" and value is not None:
                value = f"{value:.2f}"
            elif key == "ratio" and value is not None:
                value = f"{value:.1f}"
            cells.append(fmt(value))
        if row.get("dratify_ok") is False or row.get("drat_trim_ok") is False:
            cells[-1] = "PROOF REJECTED"
        out.write("| " + " | ".join(cells) + " |\n")
    return out.getvalue()


def stats_line(values: list[float], digits: int = 3) -> str:
    if not values:
        return "-"
    values = sorted(values)
    return (f"total {sum(values):.{digits}f}, median {statistics.median(values):.{digits}f}, "
            f"max {values[-1]:.{digits}f}")


def summary(rows: list[dict[str, Any]], label: str) -> str:
    """Per prover: proofs, rejections, lemmas per cell, check and certify times, targets."""
    out = io.StringIO()
    for prover in dict.fromkeys(r["prover"] + "/" + r["encoding"] for r in rows):
        mine = [r for r in rows if r["prover"] + "/" + r["encoding"] == prover]
        proved = [r for r in mine if "lemmas" in r]
        rejected = sum(1 for r in proved if r.get("dratify_ok") is False
                       or r.get("drat_trim_ok") is False)
        over = [r["puzzle"] for r in proved if r["per_cell"] > MAX_LEMMAS_PER_CELL
                or r["dratify_s"] >= MAX_DRATIFY_S
                or r.get("drat_trim_s", 0.0) >= MAX_DRAT_TRIM_S]
        out.write(f"- {label}, {prover}: {len(proved)}/{len(mine)} proofs, {rejected} rejected; "
                  f"lemmas per cell {stats_line([r['per_cell'] for r in proved], 2)}; "
                  f"dratify s {stats_line([r['dratify_s'] for r in proved])}; "
                  f"certify s {stats_line([r['certify_s'] for r in proved])}")
        ratios = [r["ratio"] for r in proved if r.get("ratio") is not None]
        if ratios:
            out.write(f"; certify / plain {stats_line(ratios, 1)}")
        out.write(f"; outside the lemma/check targets: {', '.join(over) or 'none'}\n")
    return out.getvalue()


# -- sets ----------------------------------------------------------------------------------------
def survey_rows(timeout: float) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(SURVEY.glob("*.nin")):
        puzzle = read_puzzle(path)
        name = TARGETS.get(path.stem)
        label = path.stem
        if label.startswith("webpbn-"):
            label = f"#{int(label.split('-')[1])}" + (f" {name}" if name else "")
        plain = plain_check(puzzle, timeout)
        for prover, encoding in (("native", None), ("native", "regular"), ("sat", None),
                                 ("auto", None)):
            row = {"set": "survey", "puzzle": label, "target": bool(name),
                   **measure(puzzle, prover, encoding, timeout), **plain}
            if plain["plain_verdict"] == "unknown" and row["verdict"] == "unknown":
                row["note"] = f"neither decides it within {timeout:g} s"
            if "certify_s" in row and row["verdict"] not in ("-", "unknown"):
                row["ratio"] = row["certify_s"] / plain["plain_s"]
            rows.append(row)
            print_progress(row)
    return rows


def picture_puzzles() -> list[tuple[str, Puzzle]]:
    out = []
    for folder in ("jwilk-nonogram/data", "Nonogram/games"):
        for path in sorted((CORPUS / folder).glob("*")):
            if path.suffix.lower() not in (".nin", ".json", ".csv", ".non"):
                continue
            try:
                puzzles = read_puzzles(path)
            except NonosatError:
                continue
            for k, puzzle in enumerate(puzzles, start=1):
                name = f"{path.relative_to(CORPUS)}" + (f"#{k}" if len(puzzles) > 1 else "")
                out.append((name, puzzle))
    return out


def corpus_rows(timeout: float) -> tuple[list[dict[str, Any]], int]:
    rows = []
    puzzles = picture_puzzles()
    for name, puzzle in puzzles:
        if not root_complete(puzzle):
            continue
        plain = plain_check(puzzle, timeout)
        for prover in ("native", "sat"):
            row = {"set": "pictures", "puzzle": name, **measure(puzzle, prover, None, timeout),
                   **plain}
            if "certify_s" in row:
                row["ratio"] = row["certify_s"] / plain["plain_s"]
            rows.append(row)
    return rows, len(puzzles)


def taai_rows(timeout: float) -> list[dict[str, Any]]:
    rows = []
    for pid, puzzle in iter_puzzles(TAAI2011):
        plain = plain_check(puzzle, timeout)
        if plain["plain_verdict"] != "unique":
            continue
        for prover in ("auto", "sat"):
            row = {"set": "taai2011", "puzzle": "taai2011 #" + pid.rsplit("#", 1)[-1],
                   **measure(puzzle, prover, None, timeout), **plain}
            if "certify_s" in row:
                row["ratio"] = row["certify_s"] / plain["plain_s"]
            rows.append(row)
            print_progress(row)
    return rows


def print_progress(row: dict[str, Any]) -> None:
    print(f"  {row['puzzle']:<24} {row['prover']:<6} {row['encoding']:<7} "
          f"{fmt(row.get('verdict')):<8} lemmas {fmt(row.get('lemmas')):>8} "
          f"dratify {fmt(row.get('dratify_s'))} certify {fmt(row.get('certify_s'))} "
          f"plain {fmt(row.get('plain_s'))} {row.get('note', '')}", file=sys.stderr)


def targets_report(rows: list[dict[str, Any]]) -> str:
    """The issue's targets, one line each, met or not."""
    out = io.StringIO()
    for row in rows:
        if not row.get("target") or row["prover"] != "auto":
            continue
        if "lemmas" not in row:
            out.write(f"- {row['puzzle']}: no proof ({row.get('note') or row['verdict']})\n")
            continue
        checks = [f"{row['per_cell']:.2f} lemmas/cell "
                  f"({'ok' if row['per_cell'] <= MAX_LEMMAS_PER_CELL else 'over'})",
                  f"dratify {row['dratify_s']:.3f} s "
                  f"({'ok' if row['dratify_s'] < MAX_DRATIFY_S else 'over'})"]
        if "drat_trim_s" in row:
            checks.append(f"drat-trim {row['drat_trim_s']:.3f} s "
                          f"({'ok' if row['drat_trim_s'] < MAX_DRAT_TRIM_S else 'over'})")
        else:
            checks.append("drat-trim not run")
        if row["puzzle"].endswith("Merka"):
            checks.append(f"{row['lemmas']:,} lemmas "
                          f"({'ok' if row['lemmas'] <= MAX_MERKA_LEMMAS else 'over'})")
        if row.get("ratio") is not None:
            checks.append(f"certify/plain {row['ratio']:.1f}x "
                          f"({'ok' if row['ratio'] <= MAX_RATIO else 'over'})")
        accepted = row.get("dratify_ok") and row.get("drat_trim_ok", True)
        out.write(f"- {row['puzzle']} ({row['written_by']}): {'; '.join(checks)}; proof "
                  f"{'accepted' if accepted else 'REJECTED'}\n")
    return out.getvalue()


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per solve")
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--no-taai", action="store_true")
    parser.add_argument("--rows", action="store_true", help="print every picture puzzle's rows")
    parser.add_argument("--csv", type=Path, help="write every row to this CSV file")
    parser.add_argument("--record", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()

    # load the compiled kernels and the checker before timing anything
    warm = Puzzle([(1,), (1,)], [(1,), (1,)])
    solve(warm, "auto", limit=2)
    certify_puzzle(Puzzle([(1,)], [(1,)]), prover="auto")

    report = io.StringIO()
    rows: list[dict[str, Any]] = []
    with redirect_stdout(report):
        print(f"Python {platform.python_version()}, CaDiCaL 1.9.5 via PySAT, dratify "
              f"{_dratify_engine()}; drat-trim: "
              f"{DRAT_TRIM or 'not on PATH (no Debian package), not measured'}; "
              f"timeout {args.timeout:g} s; {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.1f} at the start.\n")
        print("### Survey puzzles\n")
        survey = survey_rows(args.timeout)
        rows += survey
        print(table(survey))
        print("Targets (auto prover, the default):\n")
        print(targets_report(survey))
        print(summary(survey, "survey"))
        if not args.no_corpus:
            pictures, total = corpus_rows(args.timeout)
            rows += pictures
            decided = len({r["puzzle"] for r in pictures})
            print(f"### Picture puzzles decided without search ({decided} of {total} in "
                  "jwilk-nonogram and Nonogram/games)\n")
            print(summary(pictures, "pictures"))
            worst = sorted((r for r in pictures if "lemmas" in r),
                           key=lambda r: (-r["dratify_s"]))[:5]
            print("Slowest checks:\n")
            print(table(worst))
            if args.rows:
                print(table(pictures))
        if not args.no_taai:
            taai = taai_rows(args.timeout)
            rows += taai
            print("### taai2011 puzzles with a unique solution\n")
            print(table(taai))
            print(summary(taai, "taai2011"))
    text = report.getvalue()
    print(text)
    if args.csv:
        write_csv(args.csv, rows)
    if args.record:
        with (REPO / "benchmarks" / "RESULTS.md").open("a") as fh:
            fh.write(f"\n## Uniqueness proofs per prover (bench_proofs.py, "
                     f"{datetime.date.today().isoformat()})\n\n{text}")


def _dratify_engine() -> str:
    import dratify

    native = dratify.native_implementation() is not None
    return dratify.__version__ + (" (native engine)" if native else " (pure Python)")


if __name__ == "__main__":
    main()
