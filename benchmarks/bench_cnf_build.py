"""The SAT hand-off's fixed cost: CNF build and clause passing, before/after (issue 16).

Two measurements on the same tournament puzzles (default every 10th of ``taai2011``), CPU seconds
(``time.process_time``), variants alternated per puzzle (A then B, then B then A) so that both see
the same load:

* ``--part build`` (in-process): for each puzzle, the grid and implications the native root hands
  to SAT (as the ``auto`` engine does: :class:`~nonosat.native.search.NativeSearch`, work budget
  :data:`~nonosat.engines.auto.NATIVE_WORK`; puzzles the native search decides are measured as
  well, with their root grid), then

  - *python*: the order encoding built in Python (``cnf._encode_lines``, the code ``encode`` ran
    before the compiled encoder) plus the partial-grid units;
  - *compiled*: :func:`nonosat.encodings.cnf.encode` (numba kernel);
  - the same clauses (plus the implication clauses) passed to CaDiCaL 1.9.5 by
    ``Solver(bootstrap_with=...)`` (before), ``Solver().append_formula`` (now, :class:`SatRun`),
    and, for information only, PySAT's private C function per clause.

  The clause lists are asserted equal.

* ``--part auto --base DIR``: the whole ``auto`` engine in uniqueness mode (limit 2) in two
  worker processes, one importing ``nonosat`` from ``DIR`` (an export of the old code, e.g.
  ``git archive BASE nonosat | tar -x -C DIR``), one from this checkout; each has loaded the
  ``auto`` and ``sat`` engines first, and the parent hands them the puzzles alternately.  Verdicts
  are asserted equal, and the number of CaDiCaL conflicts compared (same formula, same search).
  The puzzles the native search decides alone run the same code in both: an A/A control of the
  noise.
* ``--part certify --base DIR``: the same with ``certify_puzzle(puzzle, checkers=())`` (issue 18),
  e.g. on ``--set everyday``; verdicts and provers compared.

Usage::

    python benchmarks/bench_cnf_build.py --part build
    python benchmarks/bench_cnf_build.py --part auto --base /tmp/nonosat-base
    python benchmarks/bench_cnf_build.py --part certify --set everyday --step 1 --count 1000 \
        --base /tmp/nonosat-base
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from preamble import CORPUS, REPO, add_window, argument_parser  # first: puts REPO on sys.path

HERE = REPO / "benchmarks"
ROOT = REPO


def tournament(name: str, start: int, step: int, count: int) -> list:
    from nonosat.formats.tournament import read_tournament

    path = CORPUS / "NonogramRecord" / "question" / f"{name}.txt"
    return read_tournament(path.read_bytes(), str(path))[start::step][:count]


def summary(label: str, times: list[float]) -> str:
    return (f"| {label} | {len(times)} | {sum(times):.3f} | {statistics.median(times) * 1e3:.2f} "
            f"| {max(times) * 1e3:.2f} |")


def part_build(puzzles: list) -> None:
    import pysolvers
    from pysat.solvers import Solver

    from nonosat.encodings.cnf import _encode_lines, encode, partial_units
    from nonosat.engines.auto import NATIVE_WORK
    from nonosat.engines.sat import implication_clauses
    from nonosat.native.search import NativeSearch

    encode(puzzles[0], "order")  # load the kernel
    clock = time.process_time
    t = {k: [] for k in ("python", "compiled", "bootstrap_with", "append_formula",
                         "private_add_cl")}
    handed = 0
    for i, puzzle in enumerate(puzzles):
        search = NativeSearch(puzzle, None, limit=2)
        finished = search.run_probes(NATIVE_WORK // (puzzle.height + puzzle.width))
        handed += not finished
        root = search.root_grid()
        extra = implication_clauses(puzzle.width, search.root_implications())
        del search
        built = {}
        for variant in (("python", "compiled") if i % 2 == 0 else ("compiled", "python")):
            gc.collect()
            start = clock()
            if variant == "python":
                clauses, _, _ = _encode_lines(puzzle, "order")
                clauses.extend(partial_units(puzzle, root))
            else:
                clauses = encode(puzzle, "order", root).clauses
            t[variant].append(clock() - start)
            built[variant] = clauses
        assert built["python"] == built["compiled"], f"puzzle {puzzle.number}: clauses differ"
        clauses = built["compiled"] + extra
        del built
        order = ("bootstrap_with", "append_formula", "private_add_cl")
        for variant in order if i % 2 == 0 else order[::-1]:
            start = clock()
            if variant == "bootstrap_with":
                solver = Solver(name="Cadical195", bootstrap_with=clauses)
            elif variant == "append_formula":
                solver = Solver(name="Cadical195")
                solver.append_formula(clauses)
            else:
                solver = Solver(name="Cadical195")
                add, handle = pysolvers.cadical195_add_cl, solver.solver.cadical
                for clause in clauses:
                    add(handle, clause)
            t[variant].append(clock() - start)
            assert solver.nof_clauses() >= 0
            solver.delete()
    print(f"{len(puzzles)} puzzles ({handed} handed to SAT by auto), load average "
          f"{os.getloadavg()[0]:.1f}\n")
    print("| stage | puzzles | total CPU s | median ms | max ms |\n|---|---|---|---|---|")
    for label, times in t.items():
        print(summary(label, times))


_WORKER = """
import json, sys, time
from nonosat.engines import load_engine, solve
from nonosat.formats import read_puzzles
task = sys.argv[1]
items = json.load(open(sys.argv[2]))
files = {}
def read_puzzle(path, index):
    if path not in files:
        puzzles = read_puzzles(path)
        files[path] = {(p.number if p.number is not None else k): p
                       for k, p in enumerate(puzzles, start=1)}
    found = files[path]
    return found[index] if index is not None else next(iter(found.values()))
load_engine("auto")
load_engine("sat")
if task == "certify":
    from nonosat.certificates.certifier import certify_puzzle
    certify_puzzle(read_puzzle(items[0][0], index=items[0][1]), checkers=())
import nonosat
print(json.dumps({"ready": nonosat.__file__}), flush=True)
for line in sys.stdin:
    path, index = items[int(line)]
    puzzle = read_puzzle(path, index=index)
    t0 = time.process_time()
    if task == "auto":
        result = solve(puzzle, "auto", limit=2)
        cpu = time.process_time() - t0
        sat = result.stats.get("sat", {})
        out = {"status": result.status.value, "handoff": result.stats.get("handoff", False),
               "conflicts": sat.get("conflicts"), "encode": sat.get("encode_time_s")}
    else:
        cert = certify_puzzle(puzzle, checkers=())
        cpu = time.process_time() - t0
        out = {"status": cert.verdict, "handoff": cert.prover != "propagation",
               "conflicts": cert.prover, "encode": cert.times.get("encode")}
    out["cpu"] = cpu
    print(json.dumps(out), flush=True)
"""


def part_pair(args: argparse.Namespace, items: list[tuple[str, int | None]], what: str) -> None:
    """Run ``args.part`` (``auto`` or ``certify``) on ``items`` in a worker on the old code and
    one on this checkout, alternately, and print the A/B table."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(items, f)
    envs = {"before": dict(os.environ, PYTHONPATH=str(Path(args.base).resolve())),
            "after": dict(os.environ, PYTHONPATH=str(ROOT))}
    workers = {
        # cwd away from this checkout: `python -c` puts the cwd first on sys.path
        name: subprocess.Popen([sys.executable, "-c", _WORKER, args.part, f.name], env=env,
                               text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/")
        for name, env in envs.items()
    }
    for name, proc in workers.items():
        ready = json.loads(proc.stdout.readline())
        print(f"{name}: nonosat from {ready['ready']}")
    n = len(items)
    cpu: dict[str, list[float]] = {name: [] for name in workers}
    handed: list[bool] = []
    encode: dict[str, list[float]] = {name: [] for name in workers}
    same = 0
    load = []
    for i in range(n):
        answers = {}
        for name in (("before", "after") if i % 2 == 0 else ("after", "before")):
            proc = workers[name]
            proc.stdin.write(f"{i}\n")
            proc.stdin.flush()
            answers[name] = json.loads(proc.stdout.readline())
            cpu[name].append(answers[name]["cpu"])
            if answers[name]["encode"] is not None:
                encode[name].append(answers[name]["encode"])
        assert answers["before"]["status"] == answers["after"]["status"], (items[i], answers)
        handed.append(answers["after"]["handoff"])
        same += answers["before"]["conflicts"] == answers["after"]["conflicts"]
        load.append(os.getloadavg()[0])
    for proc in workers.values():
        proc.stdin.close()
        proc.wait()
    os.unlink(f.name)
    split = ("handed to SAT", "decided natively (A/A control)") if args.part == "auto" else \
        ("proved by the native or SAT prover", "refuted by propagation")
    check = "CaDiCaL conflicts" if args.part == "auto" else "prover"
    print(f"\n{what}, {n} puzzles, {args.part}, same verdicts; {sum(handed)} {split[0]}; "
          f"{same} with the same {check} before and after; load average "
          f"{min(load):.1f}-{max(load):.1f}\n")
    print("| code | puzzles | total CPU s | median ms | max ms |\n|---|---|---|---|---|")
    for label, keep in (("all", None), (split[0], True), (split[1], False)):
        for name, times in cpu.items():
            chosen = [t for t, h in zip(times, handed, strict=True) if keep is None or h == keep]
            if chosen:
                print(summary(f"{name}, {label}", chosen))
    for name, times in encode.items():
        if times:
            print(summary(f"{name}, CNF build as the code times it (wall: the SAT engine's "
                          f"encode_time_s, certify's times['encode'])", times))


def everyday_items() -> list[tuple[str, int | None]]:
    """(path, index) of the everyday set of ``benchmarks/run.py``."""
    sys.path.insert(0, str(HERE))
    import run

    run.CORPUS = CORPUS
    return [(path, index) for _, path, index in run.everyday()]


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--part", choices=("build", "auto", "certify"), default="build")
    parser.add_argument("--set", default="taai2011")
    add_window(parser)
    parser.add_argument("--base", help="directory holding the old code's nonosat package")
    args = parser.parse_args()
    if args.part == "build":
        part_build(tournament(args.set, args.start, args.step, args.count))
        return
    if not args.base:
        parser.error(f"--part {args.part} needs --base")
    if args.set == "everyday":
        items = everyday_items()[args.start::args.step][:args.count]
        what = f"everyday[{args.start}::{args.step}]"
    else:
        path = CORPUS / "NonogramRecord" / "question" / f"{args.set}.txt"
        numbers = [p.number for p in tournament(args.set, args.start, args.step, args.count)]
        items = [(str(path), k) for k in numbers]
        what = f"{args.set}[{args.start}::{args.step}]"
    part_pair(args, items, what)


if __name__ == "__main__":
    main()
