"""The SAT engine and uniqueness certificates per CNF encoding, on taai2011 and the survey.

For every puzzle and encoding (``order``, ``regular``, ``dfa``) it measures:

* **solve**: ``SatEngine(encoding=...).solve(puzzle, limit=2)``, the plain uniqueness check
  (encode + CaDiCaL 1.9.5 + blocking clause + second call), wall seconds;
* **certify**: :func:`nonosat.certificates.certify` without checking (encode, find,
  refute the formula plus blocking clause with a fresh solver logging DRAT), wall seconds, and
  how the refutation was obtained (``up``: unit propagation alone, proof = the empty clause;
  ``sat``: the solver's proof);
* **proof size**: lemmas (added clauses) and the CNF's variables and clauses;
* **check**: seconds for dratify (in-process) and for drat-trim when it is on ``PATH``.

It prints one row per puzzle and encoding for the survey, and for the taai2011 sample a summary
per encoding (verdicts; totals, medians, 95th percentile, maxima).  ``--csv FILE`` writes every
row.  Most taai2011 puzzles (random pictures) have several solutions, so there the figures are
mostly about solving: a certificate needs a unique puzzle.

Usage::

    .venv/bin/python benchmarks/bench_sat.py [--sample 50] [--seed 0] [--timeout 60]
        [--encodings order,regular,dfa] [--no-survey] [--no-taai] [--csv rows.csv]

``--sample 0`` runs the whole taai2011 set (1000 puzzles; tens of minutes).
"""

from __future__ import annotations

import random
import shutil
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from preamble import (  # first: puts REPO on sys.path
    CORPUS,
    TAAI2011,
    argument_parser,
    write_csv,
)

from nonosat.certificates import certify, check_proof
from nonosat.encodings.cnf import ENCODING_VERSIONS
from nonosat.engines.sat import SatEngine
from nonosat.formats import iter_puzzles, read_puzzle
from nonosat.puzzle import Puzzle

SURVEY = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"


def measure(puzzle: Puzzle, encoding: str, timeout: float) -> dict[str, Any]:
    """One puzzle under one encoding: solve, certify, check (see the module docstring)."""
    row: dict[str, Any] = {"encoding": encoding}
    result = SatEngine(encoding=encoding).solve(puzzle, limit=2, timeout=timeout)
    row.update(verdict=result.status.value, solve_s=result.time_s,
               variables=result.stats["variables"], clauses=result.stats["clauses"],
               conflicts=result.stats.get("conflicts"))
    if row["verdict"] == "unknown":
        return row
    cert = certify(puzzle, encoding=encoding, checkers=(), timeout=timeout)
    row.update(certify_s=cert.times["total"], cert_verdict=cert.verdict)
    if cert.proof is None or cert.formula is None:
        return row
    row.update(method="up" if cert.stats["prove"].get("method") == "unit propagation" else "sat",
               lemmas=cert.stats["lemmas"], proof_bytes=cert.stats["proof_bytes"])
    check = check_proof(cert.formula, cert.nvars, cert.proof, "dratify")
    row.update(dratify_s=check.time_s, dratify_ok=check.ok)
    if shutil.which("drat-trim"):
        check = check_proof(cert.formula, cert.nvars, cert.proof, "drat-trim", timeout)
        row.update(drat_trim_s=check.time_s, drat_trim_ok=check.ok)
    return row


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, bool):
        return "ok" if value else "FAIL"
    return str(value)


COLUMNS = [("puzzle", 18), ("encoding", 8), ("verdict", 8), ("vars", 7), ("clauses", 8),
           ("solve_s", 8), ("certify_s", 9), ("method", 6), ("lemmas", 8), ("dratify_s", 9),
           ("drat-trim_s", 11)]


def print_row(row: dict[str, Any]) -> None:
    values = [row.get("puzzle"), row["encoding"], row["verdict"], row.get("variables"),
              row.get("clauses"), row.get("solve_s"), row.get("certify_s"), row.get("method"),
              row.get("lemmas"), row.get("dratify_s"), row.get("drat_trim_s")]
    if row.get("dratify_ok") is False or row.get("drat_trim_ok") is False:
        values[7] = "REJECT"
    print("  ".join(fmt(v).rjust(w) for v, (_, w) in zip(values, COLUMNS, strict=True)))
    sys.stdout.flush()


def header() -> None:
    print("  ".join(name.rjust(w) for name, w in COLUMNS))


def summary(rows: list[dict[str, Any]], encodings: list[str]) -> None:
    """Per encoding: decided count, total/median/p95/max of each time, lemma statistics."""

    def stats(values: list[float]) -> str:
        if not values:
            return "-"
        values = sorted(values)
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        return (f"total {sum(values):8.2f}  median {statistics.median(values):7.3f}  "
                f"p95 {p95:7.3f}  max {values[-1]:7.3f}")

    for enc in encodings:
        mine = [r for r in rows if r["encoding"] == enc]
        decided = [r for r in mine if r["verdict"] != "unknown"]
        up = sum(1 for r in mine if r.get("method") == "up")
        rejected = sum(1 for r in mine if r.get("dratify_ok") is False)
        lemmas = [r["lemmas"] for r in mine if "lemmas" in r]
        verdicts = ", ".join(f"{v} {n}" for v, n in sorted(Counter(
            r["verdict"] for r in mine).items()))
        print(f"{enc}: {len(decided)}/{len(mine)} decided ({verdicts}), {up} refuted by "
              f"propagation alone, {rejected} proofs rejected")
        for key in ("solve_s", "certify_s", "dratify_s", "drat_trim_s"):
            values = [r[key] for r in mine if key in r]
            if values:
                print(f"  {key:12s} {stats(values)}")
        if lemmas:
            print(f"  {'lemmas':12s} total {sum(lemmas):8d}  median "
                  f"{statistics.median(lemmas):7.0f}  max {max(lemmas):8d}")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--sample", type=int, default=50,
                        help="random taai2011 puzzles to run (0 = all 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per solve")
    parser.add_argument("--encodings", default=",".join(sorted(ENCODING_VERSIONS)))
    parser.add_argument("--no-survey", action="store_true")
    parser.add_argument("--no-taai", action="store_true")
    parser.add_argument("--csv", type=Path, help="write every row to this CSV file")
    args = parser.parse_args()
    encodings = args.encodings.split(",")
    rows: list[dict[str, Any]] = []
    print(f"CaDiCaL 1.9.5 via PySAT; drat-trim: {shutil.which('drat-trim') or 'not on PATH'}; "
          f"timeout {args.timeout:g} s")

    if not args.no_survey:
        print(f"\n== survey puzzles ({SURVEY}) ==")
        header()
        for path in sorted(SURVEY.glob("*.nin")):
            puzzle = read_puzzle(path)
            for enc in encodings:
                row = {"set": "survey", "puzzle": path.stem, **measure(puzzle, enc, args.timeout)}
                rows.append(row)
                print_row(row)
        print()
        summary([r for r in rows if r["set"] == "survey"], encodings)

    if not args.no_taai:
        puzzles = list(iter_puzzles(TAAI2011))
        if args.sample:
            puzzles = random.Random(args.seed).sample(puzzles, min(args.sample, len(puzzles)))
        print(f"\n== taai2011: {len(puzzles)} puzzles (seed {args.seed}) ==")
        start = time.perf_counter()
        for pid, puzzle in puzzles:
            for enc in encodings:
                rows.append({"set": "taai2011", "puzzle": pid.rsplit("#", 1)[-1],
                             **measure(puzzle, enc, args.timeout)})
        print(f"({time.perf_counter() - start:.1f} s)")
        summary([r for r in rows if r["set"] == "taai2011"], encodings)

    if args.csv:
        write_csv(args.csv, rows)


if __name__ == "__main__":
    main()
