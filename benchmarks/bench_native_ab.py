"""The native kernels of two source trees side by side, in the same run (issue 27).

Each round runs one worker process per tree (``PYTHONPATH=TREE``), alternating the order, on the
same puzzles; a worker loads the kernels, then runs the native search of every puzzle and times
the search's CPU time (``time.thread_time`` around the calls that run the compiled search, no
set-up; CPU rather than wall time, so that a loaded machine disturbs the figures less).  ``--mode budget`` (default) is the ``auto`` engine's native stage (the search until its
work budget, :data:`nonosat.engines.auto.NATIVE_WORK`, the hot path of a tournament set);
``--mode root`` is the root node only (propagation and probing); ``--mode full`` searches to the
end (``--cap`` seconds a puzzle).  Printed per round and tree: CPU seconds in all, probes,
median microseconds a puzzle; then the ratio of every tree to the first (the median of the
per-round ratios of totals, and the ratio of the trees' fastest rounds, which a loaded machine
disturbs least), and whether the trees agree on every puzzle's outcome (solutions
found, finished, probes made).

Sets: tournament stems (``taai2011`` ...), ``survey`` (the webpbn survey), ``faase``, a file, or
a generated TAAI-style set ``random{N}-{ratio}-s{seed}x{count}`` (an N x N random picture per
puzzle, each cell black with probability ``ratio``, clues taken from it; most such puzzles have
several solutions, as in the TAAI tournaments' random sets), see :func:`random_set`.  Usage::

    python benchmarks/bench_native_ab.py --trees /tmp/base,. --sets taai2011 --sample 100
    python benchmarks/bench_native_ab.py --trees /tmp/base,. --sets random25-0.45-s7x200
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", ROOT.parent / "shared" / "corpus"))
QUESTIONS = CORPUS / "NonogramRecord" / "question"
SURVEY = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"

_RANDOM = re.compile(r"random(\d+)(?:x(\d+))?-([0-9.]+)-s(\d+)x(\d+)$")


def random_set(name: str):
    """The puzzles of a generated set ``random{N}[x{H}]-{ratio}-s{seed}x{count}``: ``count``
    random pictures of ``N`` columns and ``H`` rows (``N`` when omitted), each cell black with
    probability ``ratio`` (numpy's default generator seeded with ``seed``), as puzzles."""
    import numpy as np

    from nonosat.puzzle import Puzzle

    m = _RANDOM.match(name)
    if not m:
        raise SystemExit(f"bench: not a generated set name: {name!r}")
    w = int(m.group(1))
    h = int(m.group(2) or w)
    ratio, seed, count = float(m.group(3)), int(m.group(4)), int(m.group(5))
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        picture = rng.random((h, w)) < ratio
        out.append(Puzzle.from_picture(picture, title=f"{name} #{k + 1}"))
    return out


def is_random_set(name: str) -> bool:
    return bool(_RANDOM.match(name))


def load_set(name: str, sample: int | None):
    """``[(id, puzzle), ...]`` of a set name (see the module docstring)."""
    from nonosat.formats import read_puzzle, read_puzzles

    if is_random_set(name):
        puzzles = [(f"#{k + 1}", p) for k, p in enumerate(random_set(name))]
    elif name == "survey":
        puzzles = [(p.stem, read_puzzle(p)) for p in sorted(SURVEY.glob("*.nin"))]
    elif name == "faase":
        puzzles = [("faase", read_puzzle(SURVEY / "faase.nin"))]
    elif (QUESTIONS / f"{name}.txt").exists():
        puzzles = [(f"#{p.number or k + 1}", p)
                   for k, p in enumerate(read_puzzles(QUESTIONS / f"{name}.txt"))]
    else:
        puzzles = [(f"#{k + 1}", p) for k, p in enumerate(read_puzzles(name))]
    if sample and len(puzzles) > sample:
        puzzles = puzzles[:: max(len(puzzles) // sample, 1)][:sample]
    return puzzles


def worker(spec: dict) -> dict:
    from nonosat.engines import load_engine
    from nonosat.native.search import NativeSearch

    load_engine("native")
    work = 1_200_000
    try:
        from nonosat.engines.auto import NATIVE_WORK as work
    except ImportError:
        pass
    rows = []
    for pid, puzzle in load_set(spec["set"], spec["sample"]):
        if puzzle.is_colour:
            continue
        search = NativeSearch(puzzle, limit=spec["limit"])
        c0 = time.thread_time()
        if spec["mode"] == "budget":
            search.run_probes(work // max(puzzle.height + puzzle.width, 1))
        elif spec["mode"] == "root":
            search.step(1)  # the root node (and its first decision's assignment)
        else:
            search.run(spec["cap"])
        cpu = time.thread_time() - c0
        st = search.stats()
        rows.append({"id": pid, "kernel_s": search.time_s, "cpu_s": cpu, "probes": st["probes"],
                     "line_solves": st["line_solves"], "hits": st["line_cache_hits"],
                     "nodes": st["guesses"], "solutions": len(search.solutions()),
                     "finished": search.finished})
    return {"rows": rows}


def run_tree(tree: str, spec: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        subprocess.run([sys.executable, __file__, "--worker", json.dumps(spec), str(out)],
                       check=True, env=env, cwd=tmp)
        return json.loads(out.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trees", default=str(ROOT), help="comma-separated source trees")
    ap.add_argument("--sets", default="taai2011")
    ap.add_argument("--sample", type=int)
    ap.add_argument("--limit", type=int, default=2)
    ap.add_argument("--mode", choices=("budget", "root", "full"), default="budget")
    ap.add_argument("--cap", type=float, default=30.0, help="seconds a puzzle (--mode full)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        spec = json.loads(args.worker[0])
        Path(args.worker[1]).write_text(json.dumps(worker(spec)))
        return
    trees = args.trees.split(",")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          f"{os.getloadavg()[0]:.1f}, mode {args.mode}, limit {args.limit}, trees {trees}")
    for name in args.sets.split(","):
        spec = {"set": name, "sample": args.sample, "limit": args.limit, "mode": args.mode,
                "cap": args.cap}
        totals: dict[str, list[float]] = {t: [] for t in trees}
        first: dict[str, list] = {}
        for r in range(args.rounds):
            order = trees if r % 2 == 0 else trees[::-1]
            for tree in order:
                rows = run_tree(tree, spec)["rows"]
                ks = [row["cpu_s"] for row in rows]
                totals[tree].append(sum(ks))
                probes = sum(row["probes"] for row in rows)
                print(f"{name} round {r + 1} {tree}: {len(rows)} puzzles, CPU {sum(ks):.3f} s,"
                      f" probes {probes}, median {1e6 * statistics.median(ks):.0f} us",
                      flush=True)
                outcome = [(row["solutions"], row["finished"], row["probes"]) for row in rows]
                first.setdefault(tree, outcome)
        base = trees[0]
        for tree in trees[1:]:
            ratios = [b / a for a, b in zip(totals[base], totals[tree], strict=True)]
            same = first[tree] == first[base]
            best = min(totals[tree]) / min(totals[base])
            print(f"{name}: {tree} / {base} = {statistics.median(ratios):.3f} (rounds "
                  f"{', '.join(f'{x:.3f}' for x in ratios)}; fastest rounds {best:.3f}); same "
                  f"outcomes and probes: {same}")


if __name__ == "__main__":
    main()
