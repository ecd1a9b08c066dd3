"""The analysis of two source trees side by side, in the same run (issue 28, the stepping API).

Each round runs one worker process per tree (``PYTHONPATH=TREE``), alternating the order, on the
same puzzles; a worker loads the kernels (one warm-up analysis), then runs
:func:`nonosat.analysis.difficulty.analyse` (no backdoor, the sections that drive the native
kernels step by step: the staged logic, the search figures, the structure) and, separately,
:func:`nonosat.analysis.staged.staged_solve` and :func:`nonosat.analysis.fork.fork_search`, and
times each with ``time.thread_time`` (CPU time, which a loaded machine disturbs less).  Printed
per round and tree: CPU seconds of each part; then the ratio of every tree to the first (median
of the per-round ratios) and whether the trees agree on every puzzle's outputs (the analysis
JSON without its times; every staged step and fork result), compared as SHA-256 digests (the
analysis JSON holds sections cut by time limits, so on a loaded machine it may differ between
rounds of one tree; the staged and fork digest may not).

Usage::

    python benchmarks/bench_stepping_ab.py --trees /tmp/base,. --set taai2011 --sample 30
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", ROOT.parent / "shared" / "corpus"))
QUESTIONS = CORPUS / "NonogramRecord" / "question"


def _strip_times(obj):
    """``obj`` (JSON data) without the keys that hold times."""
    if isinstance(obj, dict):
        return {k: _strip_times(v) for k, v in obj.items()
                if not (k.endswith("_s") or k in ("time", "seconds", "sections"))}
    if isinstance(obj, list):
        return [_strip_times(v) for v in obj]
    return obj


def worker(spec: dict) -> dict:
    from nonosat.analysis.difficulty import analyse
    from nonosat.analysis.fork import fork_search
    from nonosat.analysis.staged import staged_solve
    from nonosat.formats import read_puzzles

    puzzles = read_puzzles(QUESTIONS / f"{spec['set']}.txt")
    step = max(len(puzzles) // spec["sample"], 1)
    puzzles = puzzles[::step][: spec["sample"]]
    analyse(puzzles[0], timeout=60, backdoor_timeout=0.0)  # kernels loaded
    cpu = {"analyse": 0.0, "staged": 0.0, "fork": 0.0}
    digest = hashlib.sha256()  # the analysis JSON: its sections have time limits
    logic = hashlib.sha256()  # staged and fork: the same whatever the machine's load
    for puzzle in puzzles:
        c0 = time.thread_time()
        out = analyse(puzzle, timeout=60, backdoor_timeout=0.0)
        cpu["analyse"] += time.thread_time() - c0
        digest.update(json.dumps(_strip_times(out.to_json()), sort_keys=True).encode())
        c0 = time.thread_time()
        run = staged_solve(puzzle)
        cpu["staged"] += time.thread_time() - c0
        logic.update(repr((run.steps, run.status, run.open_after, run.invocations,
                            run.grid.tobytes())).encode())
        c0 = time.thread_time()
        fork = fork_search(puzzle, limit=2, timeout=20)
        cpu["fork"] += time.thread_time() - c0
        logic.update(repr((fork.guesses, fork.max_depth, fork.finished,
                            fork.guesses_to_solutions,
                            [s.tobytes() for s in fork.solutions])).encode())
    return {"cpu": cpu, "digest": digest.hexdigest(), "logic": logic.hexdigest(),
            "n": len(puzzles)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", default=f"{ROOT}")
    ap.add_argument("--set", default="taai2011")
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    trees = [str(Path(t).resolve()) for t in args.trees.split(",")]
    spec = json.dumps({"set": args.set, "sample": args.sample})
    results: dict[str, list[dict]] = {t: [] for t in trees}
    for rnd in range(args.rounds):
        order = trees if rnd % 2 == 0 else trees[::-1]
        for tree in order:
            env = dict(os.environ, PYTHONPATH=tree)
            proc = subprocess.run([sys.executable, __file__, "--worker", spec], env=env,
                                  capture_output=True, text=True, check=True)
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            results[tree].append(row)
            cpu = " ".join(f"{k} {v:.2f}s" for k, v in row["cpu"].items())
            print(f"round {rnd + 1} {tree}: {row['n']} puzzles, {cpu}", flush=True)
    base = trees[0]
    for tree in trees[1:]:
        for part in ("analyse", "staged", "fork"):
            ratios = [b["cpu"][part] / a["cpu"][part]
                      for a, b in zip(results[base], results[tree], strict=True)
                      if a["cpu"][part] > 0]
            best = min(r["cpu"][part] for r in results[tree]) / max(
                min(r["cpu"][part] for r in results[base]), 1e-9)
            print(f"{part}: {tree} / {base}: median ratio {statistics.median(ratios):.3f}, "
                  f"fastest rounds {best:.3f}")
        for key, what in (("logic", "staged and fork outputs"),
                          ("digest", "analysis JSON (time-limited sections: may differ)")):
            same = {r[key] for r in results[base] + results[tree]}
            print(f"{what}: " + ("agree" if len(same) == 1 else f"differ {sorted(same)}"))


if __name__ == "__main__":
    main()
