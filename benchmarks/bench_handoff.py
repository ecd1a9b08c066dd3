"""The SAT hand-off's fixed cost in ``auto``: A/B of two code trees or two engine settings (issue 16).

Two worker processes run ``solve(puzzle, "auto", limit=L)`` on the same puzzles, alternately (A
then B, then B then A), so that both see the same load.  Each worker imports ``nonosat`` from its
own directory (``--base DIR`` for A, e.g. ``git archive BASE nonosat | tar -x -C DIR``; B is
this checkout, or ``DIR`` too with ``--same``) and takes its own ``auto`` options (``--a-opts`` /
``--b-opts``, JSON, e.g. ``'{"phases": false}'`` or ``'{"native_work": 400000}'``; the key
``bp_iterations`` sets the rounds of belief propagation behind the SAT phases instead, and
``first_options`` CaDiCaL's options for ``limit=1``).  Each worker
has loaded the ``auto`` and ``sat`` engines and solved puzzles up to a first hand-off before the
timed ones.

Per puzzle: CPU seconds (``time.process_time``) of the solve, the verdict, the solutions (checked
with :meth:`~nonosat.puzzle.Puzzle.is_solution` and compared between A and B as sets), whether
SAT took over, CaDiCaL's own solve time (CPU seconds inside ``SatRun.solve``, timed by a
wrapper the worker installs) and conflicts.  *Overhead* of a hand-off = total CPU minus CaDiCaL's solve time:
the native stage, the CNF build, clause passing, phases, enumeration bookkeeping.

Sets: every ``--step``-th puzzle from ``--start`` of ``NonogramRecord/question/SET.txt`` (default 10, up to
``--count`` 100).

Usage::

    git archive BASE nonosat | tar -x -C /tmp/base
    python benchmarks/bench_handoff.py --base /tmp/base --sets taai2011,tcga2016 --limits 2,1
    python benchmarks/bench_handoff.py --base . --same --b-opts '{"phases": false}'
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from preamble import CORPUS, REPO, add_window, argument_parser  # first: puts REPO on sys.path

HERE = REPO / "benchmarks"
ROOT = REPO

_WORKER = """
import hashlib, json, sys, time
from nonosat.engines import get_engine, load_engine
from nonosat.formats import read_puzzles
items = json.load(open(sys.argv[1]))
opts = json.loads(sys.argv[2])
if "bp_iterations" in opts:  # experiment: rounds of belief propagation for the SAT phases
    import nonosat.encodings.phases as phases
    phases.order_phases.__defaults__ = (opts.pop("bp_iterations"),)
from nonosat.encodings.satsolver import SatRun
solve_cpu = [0.0]
_solve = SatRun.solve
def timed_solve(self, *args, **kwargs):  # CaDiCaL's own solve calls, in CPU seconds
    t = time.process_time()
    try:
        return _solve(self, *args, **kwargs)
    finally:
        solve_cpu[0] += time.process_time() - t
SatRun.solve = timed_solve
if "first_options" in opts:  # experiment: CaDiCaL options for limit=1
    import nonosat.engines.sat as sat
    sat.FIRST_SOLUTION_OPTIONS["cadical195"] = opts.pop("first_options")
files = {}
def puzzle_at(path, k):
    if path not in files:
        files[path] = read_puzzles(path)
    return files[path][k]
load_engine("auto")
load_engine("sat")
engine = get_engine("auto", **opts)
for path, k, _ in items:  # warm up until a hand-off: the first one loads PySAT and kernels
    if engine.solve(puzzle_at(path, k), limit=2).stats.get("handoff"):
        break
import nonosat
print(json.dumps({"ready": nonosat.__file__}), flush=True)
for line in sys.stdin:
    path, k, limit = items[int(line)]
    puzzle = puzzle_at(path, k)
    solve_cpu[0] = 0.0
    t0 = time.process_time()
    result = engine.solve(puzzle, limit=limit)
    cpu = time.process_time() - t0
    sat = result.stats.get("sat", {})
    assert all(puzzle.is_solution(s) for s in result.solutions), (path, k)
    sols = sorted(hashlib.sha1(s.tobytes()).hexdigest() for s in result.solutions)
    print(json.dumps({"status": result.status.value, "handoff": result.stats.get("handoff"),
                      "cpu": cpu, "sat_s": solve_cpu[0],
                      "conflicts": sat.get("conflicts", 0), "sols": sols}), flush=True)
"""


def items_for(sets: list[str], start: int, step: int, count: int, limits: list[int]) -> list:
    from nonosat.formats import read_puzzles

    out = []
    for name in sets:
        path = CORPUS / "NonogramRecord" / "question" / f"{name}.txt"
        n = len(read_puzzles(path))
        for limit in limits:
            out += [(str(path), k, limit) for k in range(start, n, step)[:count]]
    return out


def row(label: str, values: list[float]) -> str:
    if not values:
        return f"| {label} | 0 | | | |"
    return (f"| {label} | {len(values)} | {sum(values):.3f} | {statistics.median(values) * 1e3:.1f}"
            f" | {max(values) * 1e3:.1f} |")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--base", required=True, help="directory holding A's nonosat package")
    parser.add_argument("--same", action="store_true", help="B imports nonosat from --base too")
    parser.add_argument("--a-opts", default="{}")
    parser.add_argument("--b-opts", default="{}")
    parser.add_argument("--sets", default="taai2011,tcga2016,icga2018,tcga2023")
    parser.add_argument("--limits", default="2,1")
    add_window(parser)
    parser.add_argument("--dump", help="write every run's item and A/B results to this JSON file")
    args = parser.parse_args()
    sets = args.sets.split(",")
    limits = [int(x) for x in args.limits.split(",")]
    items = items_for(sets, args.start, args.step, args.count, limits)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(items, f)
    base = str(Path(args.base).resolve())
    trees = {"A": base, "B": base if args.same else str(ROOT)}
    opts = {"A": args.a_opts, "B": args.b_opts}
    workers = {
        name: subprocess.Popen([sys.executable, "-c", _WORKER, f.name, opts[name]],
                               env=dict(os.environ, PYTHONPATH=tree), text=True, cwd="/",
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for name, tree in trees.items()
    }
    for name, proc in workers.items():
        ready = json.loads(proc.stdout.readline())
        print(f"{name}: nonosat from {ready['ready']}, auto options {opts[name]}")
    results: dict[str, list[dict]] = {"A": [], "B": []}
    load = []
    for i in range(len(items)):
        for name in ("A", "B") if i % 2 == 0 else ("B", "A"):
            proc = workers[name]
            proc.stdin.write(f"{i}\n")
            proc.stdin.flush()
            results[name].append(json.loads(proc.stdout.readline()))
        a, b = results["A"][-1], results["B"][-1]
        assert a["status"] == b["status"], (items[i], a["status"], b["status"])
        if a["status"] in ("unique", "none"):
            # otherwise another search order may find other (valid) solutions
            assert a["sols"] == b["sols"], (items[i], "solutions differ")
        load.append(os.getloadavg()[0])
    for proc in workers.values():
        proc.stdin.close()
        proc.wait()
    os.unlink(f.name)
    print(f"\nload average {min(load):.1f}-{max(load):.1f}; verdicts identical on all "
          f"{len(items)} runs\n")
    print("| set, limit, variant | puzzles | CPU s | median ms | max ms |\n|---|---|---|---|---|")
    for name in sets:
        for limit in limits:
            idx = [i for i, it in enumerate(items) if Path(it[0]).stem == name and it[2] == limit]
            handed = [i for i in idx if results["B"][i]["handoff"] or results["A"][i]["handoff"]]
            for v in ("A", "B"):
                r = results[v]
                print(row(f"{name} L{limit} {v} all", [r[i]["cpu"] for i in idx]))
            for v in ("A", "B"):
                r = results[v]
                print(row(f"{name} L{limit} {v} hand-offs: total", [r[i]["cpu"] for i in handed]))
                print(row(f"{name} L{limit} {v} hand-offs: CaDiCaL solve",
                          [r[i]["sat_s"] for i in handed]))
                print(row(f"{name} L{limit} {v} hand-offs: overhead (total - solve)",
                          [r[i]["cpu"] - r[i]["sat_s"] for i in handed]))
                conf = sum(r[i]["conflicts"] or 0 for i in handed)
                print(f"| {name} L{limit} {v} hand-offs: conflicts | {len(handed)} | {conf} | | |")
    for v in ("A", "B"):
        print(row(f"all {v}", [r["cpu"] for r in results[v]]))
    if args.dump:
        with open(args.dump, "w") as out:
            json.dump({"items": items, "A": results["A"], "B": results["B"]}, out)
    same = sum(a["sols"] == b["sols"] for a, b in zip(results["A"], results["B"], strict=True))
    print(f"\nsame solution sets: {same} of {len(items)}")


if __name__ == "__main__":
    main()
