"""nonosat's own LRAT checker against cake_lpr, and its memory on a 1 GiB proof (issue 24).

1. **Time**: for the unique puzzles of the chosen sets (the webpbn survey, a sample of a
   tournament set, the pbnsolve colour examples), certify in-process (LRAT by nonosat, or by
   ``drat-trim -L`` for proofs with a SAT solver's part and for colour puzzles), then check the
   LRAT with :func:`nonosat.certificates.lrat_check.check_lrat` (in-process, kernels loaded: a
   warm-up check runs first) and with cake_lpr (a process, wall seconds), and
   :func:`~nonosat.certificates.lrat_check.lemmas_agree` on the DRAT/LRAT pair.  Target: ours at
   most 2x cake_lpr on the median puzzle.  The cost of a fresh process (imports and loading the
   cached kernels) is printed once.
2. **Memory**: peak RSS of a fresh process checking generated proofs: a valid 1 GiB proof
   whose lemmas are deleted after use (memory follows the live clauses, not the file), the same
   proof at the default ``NONOSAT_MAX_PROOF_BYTES`` (refused before reading), and a proof of the
   default limit's size that never deletes (the worst case the limit allows: every line a new
   live unit clause).  Target: at most 1 GB, or a clean refusal.

drat-trim and cake_lpr are built from ``../shared/third_party`` with ``cc`` into a temporary
directory; the corpus is ``../shared/corpus`` (``$NONOSAT_CORPUS``).

Usage::

    python benchmarks/bench_lrat_check.py                     # survey + 60 of taai2011 + colour
    python benchmarks/bench_lrat_check.py --sets survey --no-memory
    python benchmarks/bench_lrat_check.py --memory-only --big-gib 1
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from preamble import CORPUS, argument_parser  # first: puts REPO on sys.path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402
from bench_certify import build_checkers  # noqa: E402

from nonosat.certificates import CHECKER_PATH_ENV, drat_to_lrat  # noqa: E402
from nonosat.certificates.checkers import _dimacs_body  # noqa: E402
from nonosat.certificates.lrat_check import check_lrat, lemmas_agree  # noqa: E402

#: Runs ``argv[2:]`` as its child and prints the child's peak RSS (KiB) and exit code: a child's
#: ru_maxrss starts at the RSS of the process it was forked from, so the checker is forked from
#: this small launcher, not from the benchmark (tests/conftest.py's RSS_LAUNCHER).
LAUNCHER = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))\n"
)

CHECK = (
    "import sys, time\n"
    "t = time.perf_counter()\n"
    "from nonosat.certificates.lrat_check import check_lrat\n"
    "try:\n"
    "    r = check_lrat(sys.argv[1], sys.argv[2])\n"
    "    print('VERDICT', r.ok, r.lemmas, r.deletions, f'{time.perf_counter() - t:.3f}', r.reason)\n"
    "except Exception as e:\n"
    "    print('ERROR', type(e).__name__, e, f'{time.perf_counter() - t:.3f}')\n"
)


def puzzles(sets: list[str], tournament: int) -> list[tuple[str, str, int | None]]:
    out: list[tuple[str, str, int | None]] = []
    if "survey" in sets:
        out += run.survey()
    if "taai2011" in sets:
        path = CORPUS / "NonogramRecord" / "question" / "taai2011.txt"
        out += [(f"taai2011#{k}", str(path), k) for k in range(1, tournament + 1)]
    if "colour" in sets:
        base = CORPUS / "pbnsolve-examples"
        out += [(p.name, str(p), None) for p in sorted(base.iterdir()) if p.is_file()]
    return out


def certificate(path: str, index: int | None, timeout: float):
    """(formula, nvars, DRAT, LRAT, who wrote the LRAT) of a unique puzzle, else None."""
    from nonosat.certificates.certifier import certify_puzzle
    from nonosat.formats import read_puzzle

    puzzle = read_puzzle(path, None, index)
    if puzzle.is_colour:
        from nonosat.certificates.colour_proofs import certify_colour

        cert = certify_colour(puzzle, checkers=(), timeout=timeout)
        if cert.verdict != "unique" or cert.proof is None:
            return None
        lrat = drat_to_lrat(cert.formula, cert.nvars, cert.proof, timeout)
        return (cert.formula, cert.nvars, cert.proof, lrat, "drat-trim") if lrat else None
    cert = certify_puzzle(puzzle, checkers=(), timeout=timeout)
    if cert.verdict != "unique" or cert.proof is None or cert.lrat is None:
        return None
    return cert.formula, cert.nvars, cert.proof, cert.lrat, cert.lrat_source or "drat-trim"


def time_checks(specs, tools: Path, timeout: float) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-lrat-") as tmp:
        cnf, drat, lrat = Path(tmp, "f.cnf"), Path(tmp, "p.drat"), Path(tmp, "p.lrat")
        cnf.write_text("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
        lrat.write_text("5 2 0 1 2 0\n6 0 5 3 4 0\n")
        check_lrat(cnf, lrat)  # warm-up: kernels loaded
        for pid, path, index in specs:
            try:
                got = certificate(path, index, timeout)
            except Exception as exc:  # an engine's time limit, a puzzle it cannot read
                print(f"  {pid}: skipped ({type(exc).__name__}: {exc})")
                continue
            if got is None:
                continue
            formula, nvars, proof, text, by = got
            cnf.write_text(_dimacs_body(formula, nvars))
            drat.write_text(proof)
            lrat.write_text(text)
            t = time.perf_counter()
            ours = check_lrat(cnf, lrat)
            ours_s = time.perf_counter() - t
            t = time.perf_counter()
            agree = lemmas_agree(drat, lrat)
            agree_s = time.perf_counter() - t
            t = time.perf_counter()
            done = subprocess.run([str(tools / "cake_lpr"), str(cnf), str(lrat)],
                                  capture_output=True, text=True)
            cake_s = time.perf_counter() - t
            row = {"id": pid, "by": by, "bytes": len(text), "ours": ours.ok, "ours_s": ours_s,
                   "agree": agree[0], "agree_s": agree_s,
                   "cake": "s VERIFIED UNSAT" in done.stdout, "cake_s": cake_s}
            rows.append(row)
            print(f"  {pid:34s} {by:9s} {len(text):>9,d} B  ours {ours.ok!s:5} "
                  f"{ours_s:7.4f} s  agree {agree[0]!s:5} {agree_s:7.4f} s  "
                  f"cake_lpr {row['cake']!s:5} {cake_s:7.4f} s  ratio {ours_s / cake_s:5.2f}"
                  + ("" if ours.ok else f"  ({ours.reason})"), flush=True)
    return rows


def cold_process(cnf: Path, lrat: Path) -> str:
    done = subprocess.run([sys.executable, "-c", CHECK, str(cnf), str(lrat)],
                          capture_output=True, text=True)
    return (done.stdout + done.stderr).strip().splitlines()[-1]


# -- generated proofs ----------------------------------------------------------------------------
def chain_files(folder: Path, target_bytes: int, delete: bool, n: int = 1000) -> tuple[Path, Path]:
    """A CNF ``x1, x1 -> x2, ..., x(n-1) -> xn, -xn`` and a valid LRAT proof of about
    ``target_bytes``: the units x2 .. xn derived again and again (each lemma from the previous
    unit and an implication), each deleted after use when ``delete``; last the empty clause."""
    cnf = folder / "chain.cnf"
    cnf.write_text(f"p cnf {n} {n + 1}\n1 0\n" + "".join(f"-{i} {i + 1} 0\n" for i in range(1, n))
                   + f"-{n} 0\n")
    proof = folder / ("chain-deleting.lrat" if delete else "chain-keeping.lrat")
    ident = n + 2
    written = 0
    with open(proof, "w") as out:
        while True:
            prev = 1
            lines = []
            for i in range(2, n + 1):
                lines.append(f"{ident} {i} 0 {prev} {i} 0\n")
                if delete and prev > n + 1:
                    lines.append(f"{ident} d {prev} 0\n")
                prev = ident
                ident += 1
            chunk = "".join(lines)
            out.write(chunk)
            written += len(chunk)
            if written >= target_bytes:
                break
        out.write(f"{ident} 0 {prev} {n + 1} 0\n")
    return cnf, proof


def wide_files(folder: Path, target_bytes: int) -> tuple[Path, Path]:
    """CNF ``1, 2 .. 9`` (unit clauses) and a valid proof of about ``target_bytes`` whose
    lemmas each hold 1,000 one-digit literals and are never deleted; last the empty clause."""
    cnf = folder / "nine.cnf"
    cnf.write_text("p cnf 9 10\n" + "".join(f"{v} 0\n" for v in range(1, 10)) + "-1 0\n")
    proof = folder / "wide.lrat"
    body = " ".join(str(1 + i % 9) for i in range(1000))
    ident = 11
    written = 0
    with open(proof, "w") as out:
        while written < target_bytes:
            lines = "".join(f"{ident + j} {body} 0 1 0\n" for j in range(1000))
            out.write(lines)
            written += len(lines)
            ident += 1000
        out.write(f"{ident} 0 1 10 0\n")
    return cnf, proof


def unit_cnf_files(folder: Path, target_bytes: int) -> tuple[Path, Path]:
    """A CNF of about ``target_bytes`` made of the unit clause ``1`` again and again, then
    ``-1``, and its one-line refutation: the largest clause count a CNF within the limit has."""
    count = target_bytes // 4
    cnf = folder / "units.cnf"
    with open(cnf, "w") as out:
        out.write(f"p cnf 1 {count + 1}\n")
        block = "1 0\n" * 100_000
        for _ in range(count // 100_000):
            out.write(block)
        out.write("1 0\n" * (count % 100_000) + "-1 0\n")
    proof = folder / "units.lrat"
    proof.write_text(f"{count + 2} 0 1 {count + 1} 0\n")
    return cnf, proof


def peak(cnf: Path, proof: Path, env: dict[str, str]) -> tuple[int, str]:
    """Peak RSS (bytes) and the verdict line of a fresh process checking ``proof``."""
    done = subprocess.run([sys.executable, "-c", LAUNCHER, sys.executable, "-c", CHECK, str(cnf),
                           str(proof)], capture_output=True, text=True, env=env)
    lines = done.stdout.strip().splitlines()
    rss_kib = int(lines[-1].split()[0])
    verdict = next((ln for ln in lines if ln.startswith(("VERDICT", "ERROR"))),
                   done.stderr.strip()[-300:])
    return rss_kib * 1024, verdict


def memory(gib: float, keep_dir: Path | None) -> None:
    from nonosat.limits import DEFAULT_MAX_PROOF_BYTES

    folder = keep_dir or Path(tempfile.mkdtemp(prefix="bench-lrat-big-"))
    env = {k: v for k, v in os.environ.items() if k != "NONOSAT_MAX_PROOF_BYTES"}
    try:
        big = int(gib * 2**30)
        t = time.perf_counter()
        cnf, deleting = chain_files(folder, big, delete=True)
        print(f"  wrote {deleting.stat().st_size / 2**30:.2f} GiB (lemmas deleted after use) in "
              f"{time.perf_counter() - t:.0f} s")
        rss, verdict = peak(cnf, deleting, env)
        print(f"  default limit ({DEFAULT_MAX_PROOF_BYTES / 2**20:.0f} MiB): peak RSS "
              f"{rss / 1e6:.0f} MB: {verdict}")
        raised = dict(env, NONOSAT_MAX_PROOF_BYTES=str(4 * big))
        t = time.perf_counter()
        rss, verdict = peak(cnf, deleting, raised)
        print(f"  limit raised: peak RSS {rss / 1e6:.0f} MB in {time.perf_counter() - t:.1f} s: "
              f"{verdict}")
        deleting.unlink()
        t = time.perf_counter()
        cnf, keeping = chain_files(folder, DEFAULT_MAX_PROOF_BYTES - (1 << 20), delete=False)
        print(f"  wrote {keeping.stat().st_size / 2**20:.0f} MiB that never deletes in "
              f"{time.perf_counter() - t:.0f} s")
        rss, verdict = peak(cnf, keeping, env)
        print(f"  default limit, no deletions (unit lemmas): peak RSS {rss / 1e6:.0f} MB: "
              f"{verdict}")
        keeping.unlink()
        cnf, wide = wide_files(folder, DEFAULT_MAX_PROOF_BYTES - (1 << 20))
        rss, verdict = peak(cnf, wide, env)
        print(f"  default limit, no deletions (lemmas of 1,000 one-digit literals: 4 bytes "
              f"stored per 2 of text): peak RSS {rss / 1e6:.0f} MB: {verdict}")
        wide.unlink()
        units, proof = unit_cnf_files(folder, DEFAULT_MAX_PROOF_BYTES - (1 << 20))
        rss, verdict = peak(units, proof, env)
        print(f"  default limit, a CNF of unit clauses only ({units.stat().st_size / 2**20:.0f} "
              f"MiB): peak RSS {rss / 1e6:.0f} MB: {verdict}")
        units.unlink()
    finally:
        if keep_dir is None:
            for p in folder.iterdir():
                p.unlink()
            folder.rmdir()


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--sets", default="survey,taai2011,colour")
    ap.add_argument("--tournament", type=int, default=60, help="taai2011 puzzles tried")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--memory-only", action="store_true")
    ap.add_argument("--big-gib", type=float, default=1.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lrat-tools-") as tools_dir:
        tools = Path(tools_dir)
        build_checkers(tools)
        os.environ[CHECKER_PATH_ENV] = str(tools)  # drat-trim -L for SAT proofs
        if not args.memory_only:
            print("== check time: nonosat-lrat (in-process, warm) vs cake_lpr (process)")
            rows = time_checks(puzzles(args.sets.split(","), args.tournament), tools,
                               args.timeout)
            if rows:
                ratios = [r["ours_s"] / r["cake_s"] for r in rows]
                print(f"certificates: {len(rows)}; accepted by ours {sum(r['ours'] for r in rows)}"
                      f", by cake_lpr {sum(r['cake'] for r in rows)}; DRAT/LRAT agree "
                      f"{sum(r['agree'] for r in rows)}")
                print(f"ours / cake_lpr: median {statistics.median(ratios):.3f}, max "
                      f"{max(ratios):.3f} (target: median <= 2)")
                print(f"ours total {sum(r['ours_s'] for r in rows):.2f} s, cake_lpr total "
                      f"{sum(r['cake_s'] for r in rows):.2f} s, lemmas_agree total "
                      f"{sum(r['agree_s'] for r in rows):.2f} s")
                with tempfile.TemporaryDirectory() as tmp:
                    cnf, proof = chain_files(Path(tmp), 0, delete=True, n=10)
                    print(f"a fresh process (imports, cached kernels): {cold_process(cnf, proof)}")
        if not args.no_memory:
            print(f"== peak memory on a {args.big_gib:g} GiB proof")
            memory(args.big_gib, None)


if __name__ == "__main__":
    main()
