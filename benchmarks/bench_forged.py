"""Mutated real proofs through four checkers (issue 24): how many each accepts.

Real proofs: nonosat's certificates of small corpus puzzles (LRAT by nonosat, or by
``drat-trim -L`` for a SAT solver's proof) and CaDiCaL's proofs of random unsatisfiable 3-CNFs
and a pigeonhole formula through ``drat-trim -L``.  Each mutant (``tests/proof_mutations.py``:
lines dropped, duplicated or swapped, hints dropped, reordered, retargeted, negated, literals
flipped, dropped or added, fresh variables, early or unknown deletions, the empty clause
dropped, truncation, garbage bytes, huge numbers, a missing ``0``, smaller IDs, the CNF weakened
or changed, the whole proof replaced by the stale-trail forgery) goes to

* nonosat's LRAT checker (:func:`nonosat.certificates.lrat_check.check_lrat`, in-process),
* cake_lpr (the formally verified LRAT checker, a process),
* and, in its DRAT form (hints dropped), drat-trim and dratify.

A mutant cake_lpr rejects is invalid.  Target: nonosat's checker accepts **no invalid mutant**
(it may accept a mutant that is still a valid proof, e.g. one with an unused lemma dropped:
cake_lpr accepts those too).  The DRAT columns show what a DRAT-only check would have let
through: dratify accepts the stale-trail forgery, drat-trim rejects it.

Usage::

    python benchmarks/bench_forged.py                  # 10,000 mutants
    python benchmarks/bench_forged.py --count 500 --workers 1
"""

from __future__ import annotations

import collections
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from preamble import CORPUS, argument_parser  # first: puts REPO on sys.path

sys.path.insert(0, str(Path(__file__).resolve().parent))



from bench_certify import build_checkers  # noqa: E402

from nonosat.certificates import CHECKER_PATH_ENV  # noqa: E402
from nonosat.certificates.checkers import _check_dratify, _dimacs_body  # noqa: E402
from nonosat.certificates.lrat_check import check_lrat  # noqa: E402
from tests.proof_mutations import KINDS, mutate, to_drat  # noqa: E402

#: Corpus puzzles whose certificates are small enough for thousands of cake_lpr runs.
PUZZLES = ("webpbn-00006.nin", "webpbn-00021.nin", "webpbn-00023.nin", "webpbn-00027.nin")
TAAI = (3,)
#: Larger certificates are left out (cake_lpr and dratify would take most of the run).
MAX_LRAT_BYTES = 30_000


def real_proofs(tools: Path) -> list[tuple[str, list[list[int]], int, str]]:
    """(name, clauses, nvars, LRAT) of every real proof."""
    from pysat.solvers import Solver

    from nonosat.certificates.certifier import certify_puzzle
    from nonosat.formats import read_puzzle

    out = []
    survey = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"
    taai = CORPUS / "NonogramRecord" / "question" / "taai2011.txt"
    specs = [(name, str(survey / name), None) for name in PUZZLES]
    specs += [(f"taai2011#{k}", str(taai), k) for k in TAAI]
    seen = set()
    for name, path, index in specs:
        puzzle = read_puzzle(path, None, index)
        for prover in ("auto", "sat"):
            cert = certify_puzzle(puzzle, prover=prover, checkers=())
            if (cert.lrat is not None and cert.formula is not None and cert.lrat not in seen
                    and len(cert.lrat) <= MAX_LRAT_BYTES):
                seen.add(cert.lrat)
                out.append((f"{name} ({cert.prover}, LRAT by {cert.lrat_source})",
                            [list(c) for c in cert.formula], cert.nvars, cert.lrat))
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        formulas = []
        while len(formulas) < 12:
            n = rng.randint(12, 40)
            clauses = [[v if rng.random() < 0.5 else -v for v in rng.sample(range(1, n + 1), 3)]
                       for _ in range(int(n * 5))]
            formulas.append((f"random 3-CNF #{len(formulas)} ({n} vars)", clauses, n))
        holes = 4
        var = {(p, h): p * holes + h + 1 for p in range(holes + 1) for h in range(holes)}
        php = [[var[p, h] for h in range(holes)] for p in range(holes + 1)]
        php += [[-var[p, h], -var[q, h]] for h in range(holes)
                for p in range(holes + 1) for q in range(p + 1, holes + 1)]
        formulas.append(("pigeonhole 5 -> 4", php, len(var)))
        for name, clauses, n in formulas:
            with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as solver:
                if solver.solve():
                    continue
                drat = "\n".join(solver.get_proof()) + "\n"
            Path(tmp, "f.cnf").write_text(_dimacs_body(clauses, n))
            Path(tmp, "p.drat").write_text(drat)
            subprocess.run([str(tools / "drat-trim"), f"{tmp}/f.cnf", f"{tmp}/p.drat", "-L",
                            f"{tmp}/p.lrat"], capture_output=True, check=False)
            out.append((f"{name}, CaDiCaL + drat-trim -L", clauses, n,
                        Path(tmp, "p.lrat").read_text()))
    return out


#: (CNF, DRAT form) -> (drat-trim, dratify) verdicts, per worker process.
_DRAT_VERDICTS: dict[tuple[int, str], tuple[bool | None, bool | None]] = {}


def judge(job: tuple) -> dict:
    """The four verdicts on one mutant."""
    kind, clauses, nvars, lrat, tools = job
    data = lrat.encode("latin-1")
    with tempfile.TemporaryDirectory(prefix="forged-") as tmp:
        cnf, proof, drat_path = Path(tmp, "f.cnf"), Path(tmp, "p.lrat"), Path(tmp, "p.drat")
        cnf.write_text(_dimacs_body(clauses, nvars))
        proof.write_bytes(data)
        ours = check_lrat(clauses, data, nvars=nvars).ok
        done = subprocess.run([f"{tools}/cake_lpr", str(cnf), str(proof)], capture_output=True,
                              text=True, errors="replace", timeout=120)
        cake = "s VERIFIED UNSAT" in done.stdout.splitlines()
        drat = to_drat(clauses, lrat)
        trim = dratify = None
        key = (hash(tuple(map(tuple, clauses))), drat)
        if drat is not None and key in _DRAT_VERDICTS:  # a mutation of the hints alone
            trim, dratify = _DRAT_VERDICTS[key]
        elif drat is not None and "\n0\n" in "\n" + drat:
            drat_path.write_text(drat)
            done = subprocess.run([f"{tools}/drat-trim", str(cnf), str(drat_path), "-t", "60"],
                                  capture_output=True, text=True, errors="replace")
            trim = "s VERIFIED" in done.stdout.splitlines()
            dratify = _check_dratify(clauses, nvars, drat)[0]
        elif drat is not None:
            trim = dratify = False  # no empty clause: not a refutation
        if drat is not None:
            _DRAT_VERDICTS[key] = (trim, dratify)
    return {"kind": kind, "ours": ours, "cake": cake, "drat-trim": trim, "dratify": dratify}


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=24)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-forged-tools-") as tools_dir:
        tools = Path(tools_dir)
        build_checkers(tools)
        os.environ[CHECKER_PATH_ENV] = str(tools)
        t = time.perf_counter()
        proofs = real_proofs(tools)
        print(f"{len(proofs)} real proofs in {time.perf_counter() - t:.0f} s:")
        for name, clauses, _, lrat in proofs:
            print(f"  {name}: {len(clauses)} clauses, LRAT {len(lrat):,} bytes")
        rng = random.Random(args.seed)
        jobs = []
        for i in range(args.count):
            name, clauses, nvars, lrat = proofs[i % len(proofs)]
            kind, cnf, text = mutate(clauses, nvars, lrat, rng, KINDS[(i // len(proofs))
                                                                      % len(KINDS)])
            jobs.append((kind, cnf, nvars, text, tools_dir))
        t = time.perf_counter()
        rows = []
        with ProcessPoolExecutor(args.workers) as pool:
            for row in pool.map(judge, jobs, chunksize=16):
                rows.append(row)
                if len(rows) % 1000 == 0:
                    print(f"  {len(rows)} mutants, {time.perf_counter() - t:.0f} s", flush=True)
        print(f"{len(rows)} mutants judged in {time.perf_counter() - t:.0f} s")
    checkers = ("ours", "cake", "drat-trim", "dratify")
    by_kind: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in rows:
        c = by_kind[r["kind"]]
        c["n"] += 1
        for k in checkers:
            c[k] += bool(r[k])
            c[k + " n/a"] += r[k] is None
        c["invalid"] += not r["cake"]
        c["ours on invalid"] += r["ours"] and not r["cake"]
        c["dratify, not drat-trim"] += bool(r["dratify"]) and r["drat-trim"] is False
    print(f"\n{'mutation':18s} {'n':>6s} {'ours':>6s} {'cake_lpr':>8s} {'drat-trim':>9s} "
          f"{'dratify':>8s} {'invalid':>8s} {'ours on invalid':>15s} {'dratify only':>12s}")
    total: collections.Counter = collections.Counter()
    for kind in sorted(by_kind):
        c = by_kind[kind]
        total.update(c)
        print(f"{kind:18s} {c['n']:6d} {c['ours']:6d} {c['cake']:8d} {c['drat-trim']:9d} "
              f"{c['dratify']:8d} {c['invalid']:8d} {c['ours on invalid']:15d} "
              f"{c['dratify, not drat-trim']:12d}")
    c = total
    print(f"{'all':18s} {c['n']:6d} {c['ours']:6d} {c['cake']:8d} {c['drat-trim']:9d} "
          f"{c['dratify']:8d} {c['invalid']:8d} {c['ours on invalid']:15d} "
          f"{c['dratify, not drat-trim']:12d}")
    print(f"(DRAT checkers: {c['drat-trim n/a']} mutants had no DRAT form: bytes that are not "
          "LRAT)")
    print(f"accepted by ours: {c['ours']} of {c['n']}, all valid proofs (cake_lpr accepts them "
          f"too): {c['ours on invalid'] == 0}; invalid mutants accepted by ours: "
          f"{c['ours on invalid']} (target 0)")


if __name__ == "__main__":
    main()
