"""The default certificate check against cake_lpr, and what making the LRAT in-process costs
(issue 24).

For every unique puzzle of the chosen sets (black-and-white and colour: the webpbn survey, a
sample of a tournament set, ``pbnsolve-examples/*.g``, games/, the everyday set of
``benchmarks/run.py``):

* certify in-process as ``nonosat certify`` does (``certify_puzzle`` / ``certify_colour``,
  checks left out), CPU seconds, and again with the in-process LRAT switched off (CaDiCaL logs
  DRAT only, no forward pass: the certificate writer as it was before), CPU seconds;
* the default check (``nonosat-lrat`` on the LRAT plus the DRAT/LRAT agreement), wall seconds;
* cake_lpr on the same LRAT (built from ``../shared/third_party``), wall seconds;
* acceptance counts of both.

drat-trim and cake_lpr are built with ``cc`` into a temporary directory; the corpus is
``../shared/corpus`` (``$NONOSAT_CORPUS``).  Prints one line per puzzle and a summary.

Usage::

    python benchmarks/bench_default_check.py                    # survey, taai2011 sample, .g
    python benchmarks/bench_default_check.py --sets survey --limit 5
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from preamble import CORPUS, argument_parser  # first: puts REPO on sys.path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402
from bench_certify import build_checkers  # noqa: E402

import nonosat.certificates.prove as prove  # noqa: E402
from nonosat.certificates import CHECKER_PATH_ENV  # noqa: E402
from nonosat.certificates.certifier import certify_puzzle  # noqa: E402
from nonosat.certificates.checkers import check_proof, run_checks  # noqa: E402
from nonosat.certificates.colour_proofs import certify_colour  # noqa: E402
from nonosat.formats import read_puzzle, read_puzzles  # noqa: E402

GAMES = Path(__file__).resolve().parents[1] / "games"


def specs(sets: list[str], limit: int | None, sample: int) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for name in sets:
        if name == "survey":
            rows = run.survey()
        elif name == "everyday":
            rows = run.everyday()
        elif name == "g":
            rows = [(p.name, str(p), None)
                    for p in sorted((CORPUS / "pbnsolve-examples").glob("*.g"))]
        elif name == "games":
            rows = [(p.name, str(p), None) for p in sorted(GAMES.iterdir())]
        else:
            path = CORPUS / "NonogramRecord" / "question" / f"{name}.txt"
            puzzles = read_puzzles(path)
            step = max(len(puzzles) // sample, 1)
            rows = [(f"{name}#{p.number}", str(path), p.number) for p in puzzles[::step][:sample]]
        out[name] = rows[:limit] if limit else rows
    return out


#: ``--prover`` of the black-and-white certificates (``auto`` as ``nonosat certify``; ``sat``
#: makes every proof CaDiCaL's, so that its LRAT is measured on every puzzle).
PROVER = "auto"


def certify_any(puzzle, timeout: float):
    if puzzle.is_colour:
        return certify_colour(puzzle, checkers=(), timeout=timeout)
    return certify_puzzle(puzzle, prover=PROVER, checkers=(), timeout=timeout)


def without_lrat():
    """Switch the in-process LRAT off (the writer before issue 24); returns the undo."""
    saved = prove.LRAT_SOLVERS, prove.lrat_for
    import nonosat.certificates.colour_proofs  # noqa: F401
    import nonosat.encodings.satsolver as satsolver

    saved_sat = satsolver.LRAT_SOLVERS
    prove.LRAT_SOLVERS = frozenset()
    satsolver.LRAT_SOLVERS = frozenset()
    prove.lrat_for = lambda formula, nvars, proof, timeout=None: (proof, None, None)

    def undo() -> None:
        prove.LRAT_SOLVERS, prove.lrat_for = saved
        satsolver.LRAT_SOLVERS = saved_sat

    return undo


def measure(pid: str, path: str, index: int | None, timeout: float) -> dict | None:
    try:
        puzzle = read_puzzle(path, None, index)
    except Exception:
        return None
    t = time.process_time()
    cert = certify_any(puzzle, timeout)
    with_s = time.process_time() - t
    if cert.verdict not in ("unique", "none") or cert.proof is None:
        return None
    undo = without_lrat()
    try:
        t = time.process_time()
        certify_any(puzzle, timeout)
        without_s = time.process_time() - t
    finally:
        undo()
    row = {"id": pid, "colour": puzzle.is_colour, "verdict": cert.verdict,
           "with_s": with_s, "without_s": without_s, "lrat_by": cert.lrat_source,
           "lrat_kb": len(cert.lrat or "") / 1e3}
    t = time.perf_counter()
    checks = run_checks(cert.formula, cert.nvars, cert.proof, cert.lrat, ["nonosat-lrat"])
    row["default_s"] = time.perf_counter() - t
    row["default_ok"] = all(c.ok for c in checks)
    cake = check_proof(cert.formula, cert.nvars, cert.proof, "cake_lpr", lrat=cert.lrat)
    row["cake_s"], row["cake_ok"] = cake.time_s, cake.ok
    return row


def line(r: dict) -> str:
    return (f"{r['id'][-30:]:<30} {'colour' if r['colour'] else 'b&w':<6} "
            f"{str(r['lrat_by']):<15} {r['lrat_kb']:>8.1f} {r['without_s']:>8.3f} "
            f"{r['with_s']:>8.3f} {r['default_s']:>8.3f} {r['cake_s']:>8.3f} "
            f"{'ok' if r['default_ok'] else 'REJECTED':>8} {'ok' if r['cake_ok'] else 'REJECTED':>8}")


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--sets", default="games,survey,taai2011,g")
    ap.add_argument("--limit", type=int, default=None, help="at most N puzzles per set")
    ap.add_argument("--sample", type=int, default=15, help="puzzles of each tournament set")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--prover", default="auto", help="auto (as certify) or sat")
    args = ap.parse_args()
    global PROVER
    PROVER = args.prover
    with tempfile.TemporaryDirectory(prefix="nonosat-checkers-") as tmp:
        build_checkers(Path(tmp))
        os.environ[CHECKER_PATH_ENV] = tmp
        measure("warm-up", str(GAMES / "heart.non"), None, args.timeout)
        rows = []
        print(f"{'puzzle':<30} {'kind':<6} {'lrat by':<15} {'lrat KB':>8} {'before':>8} "
              f"{'after':>8} {'default':>8} {'cake_lpr':>8} {'default':>8} {'cake_lpr':>8}")
        print("(certify CPU s without / with the in-process LRAT; checks wall s)")
        for name, rows_spec in specs(args.sets.split(","), args.limit, args.sample).items():
            print(f"## {name}", flush=True)
            for pid, path, index in rows_spec:
                row = measure(pid, path, index, args.timeout)
                if row is not None:
                    rows.append(row)
                    print(line(row), flush=True)
    if not rows:
        return
    n = len(rows)
    print(f"\ncertificates: {n} ({sum(r['colour'] for r in rows)} colour); default check "
          f"accepts {sum(r['default_ok'] for r in rows)}, cake_lpr accepts "
          f"{sum(r['cake_ok'] for r in rows)}")
    print(f"default check: total {sum(r['default_s'] for r in rows):.3f} s, median "
          f"{statistics.median(r['default_s'] for r in rows) * 1e3:.1f} ms; cake_lpr: total "
          f"{sum(r['cake_s'] for r in rows):.3f} s, median "
          f"{statistics.median(r['cake_s'] for r in rows) * 1e3:.1f} ms")
    print(f"certify CPU: total {sum(r['without_s'] for r in rows):.3f} s without the LRAT, "
          f"{sum(r['with_s'] for r in rows):.3f} s with; median ratio "
          f"{statistics.median(r['with_s'] / max(r['without_s'], 1e-6) for r in rows):.2f}")


if __name__ == "__main__":
    main()
