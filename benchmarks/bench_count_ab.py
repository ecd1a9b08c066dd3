"""A/B of the native counter (issue 26): settings of :func:`nonosat.native.count.count_grid`, or
another checkout's counter, on the same puzzles, interleaved, with node and probe counts.

Each *setting* is ``NAME=KWARGS`` (a Python dict literal of ``count_grid`` keyword arguments,
e.g. ``flags0={'probe_flags': 0}``), optionally ``NAME@CHECKOUT=KWARGS`` to run it on another
checkout's code (e.g. ``main@/work/main={}``: the counter before a change).  Every checkout runs
in a worker process of its own (its compiled kernels load once); the puzzles are counted in
``--rounds`` rounds, the settings' order reversed every other round, each with a time limit
(``--timeout`` s) or a node budget (``--max-nodes``, which does not depend on the load).

Per puzzle and setting it prints the count (or ``>= lower bound`` when stopped), the median
seconds, decisions (``nodes``), probes run, probes skipped and components refuted; counts that
differ between settings that finished are printed as ``DISAGREE`` (exit 1).  Timings on a
loaded machine are noisy: read the counts of nodes and probes first, and the load average
printed at the start and end.

Usage::

    python benchmarks/bench_count_ab.py --only 275,425,500 --rounds 2 \\
        'old@/work/main={}' 'new={}' 'noskip={"probe_flags": 1}'
    python benchmarks/bench_count_ab.py --only tcga2020#500,taai2011#450 --fresh 12 \\
        --seed 1127 --select 20 --max-nodes 8000 'old@/work/main={}' 'new={}'

``--fresh N`` adds random puzzles (not the corpus, so as not to tune on it alone): kept when the
first setting counts 10^3 to 10^6 solutions within ``--select`` s.
"""

from __future__ import annotations

import ast
import json
import os
import statistics
import subprocess
import sys

from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path

#: The worker: reads ``set index kwargs timeout`` lines, prints one JSON line per count.
WORKER = r"""
import json, sys, time
from nonosat.formats import read_puzzles
from nonosat.native.count import count_grid
from nonosat.stop import StopToken
sets = {}
for line in sys.stdin:
    path, k, kwargs, timeout = json.loads(line)
    if path not in sets:
        sets[path] = read_puzzles(path)
    tok = StopToken()
    if timeout > 0:
        tok.arm(timeout)
    t0 = time.perf_counter()
    r = count_grid(sets[path][k], stop=tok, **kwargs)
    out = {"count": r.count, "lower": r.lower_bound, "finished": r.finished,
           "s": time.perf_counter() - t0, **r.stats}
    print(json.dumps(out), flush=True)
"""


class Worker:
    """A child process counting with one checkout's code."""

    def __init__(self, checkout: str) -> None:
        env = dict(os.environ, PYTHONPATH=checkout)
        # run in the checkout: ``python -c`` puts the working directory first on the path
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=checkout)

    def count(self, path: str, k: int, kwargs: dict, timeout: float) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps([path, k, kwargs, timeout]) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the counting worker ended")
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def parse_setting(text: str) -> tuple[str, str, dict]:
    """``NAME[@CHECKOUT]=KWARGS`` as ``(name, checkout, kwargs)``."""
    head, _, body = text.partition("=")
    name, _, checkout = head.partition("@")
    kwargs = ast.literal_eval(body or "{}")
    if not isinstance(kwargs, dict):
        raise SystemExit(f"bench_count_ab: the settings of {name!r} are not a dict")
    return name, checkout or str(REPO), kwargs


def fresh_puzzles(seeds: list[int], path: str, density: tuple[float, float]) -> list[str]:
    """Write random pictures' puzzles (one per seed: a size from 20x20 to 25x25, density
    uniform in ``density``) to ``path`` (csv); their labels."""
    import numpy as np

    from nonosat.formats import write_puzzles
    from nonosat.puzzle import Puzzle

    puzzles, labels = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        side = int(rng.integers(20, 26))
        d = float(rng.uniform(*density))
        puzzles.append(Puzzle.from_picture(rng.random((side, side)) < d))
        labels.append(f"f{seed}")
    write_puzzles(puzzles, path, force=True)
    return labels


def main() -> int:
    ap = argument_parser(__doc__)
    ap.add_argument("settings", nargs="+", help="NAME[@CHECKOUT]=KWARGS")
    ap.add_argument("--set", default="taai2011.txt", help="a file of NonogramRecord/question")
    ap.add_argument("--only", default="450",
                    help="0-based puzzle numbers of --set, or SET#K, comma-separated")
    ap.add_argument("--fresh", type=int, default=0,
                    help="also N random puzzles (seeds --seed + k), kept when the first "
                         "setting counts 10^3..10^6 solutions within --select s")
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--fresh-seeds", default="",
                    help="random puzzles of these seeds, comma-separated, kept without --select")
    ap.add_argument("--select", type=float, default=20.0)
    ap.add_argument("--density", default="0.45,0.6", help="of the fresh pictures: LOW,HIGH")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--max-nodes", type=int, default=0, help="a node budget (0: none)")
    args = ap.parse_args()

    def corpus_file(name: str) -> str:
        name = name if name.endswith(".txt") else name + ".txt"
        return str(CORPUS / "NonogramRecord" / "question" / name)

    puzzles: list[tuple[str, str, int]] = []  # (label, file, index)
    for x in args.only.split(","):
        if "#" in x:
            sname, _, k = x.partition("#")
            puzzles.append((x, corpus_file(sname), int(k)))
        elif x:
            puzzles.append((x, corpus_file(args.set), int(x)))
    settings = [parse_setting(s) for s in args.settings]
    workers = {checkout: Worker(checkout) for _, checkout, _ in settings}
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    if args.fresh or args.fresh_seeds:
        import tempfile

        fresh = os.path.join(tempfile.mkdtemp(prefix="bench_count_ab"), "fresh.csv")
        first = workers[settings[0][1]]
        lo, hi = (float(v) for v in args.density.split(","))
        given = [int(x) for x in args.fresh_seeds.split(",") if x]
        seeds = given or [args.seed + k for k in range(args.fresh)]
        for k, label in enumerate(fresh_puzzles(seeds, fresh, (lo, hi))):
            if given:
                puzzles.append((label, fresh, k))
                continue
            r = first.count(fresh, k, dict(settings[0][2]), args.select)
            keep = r["finished"] and r["count"] is not None and 10**3 <= r["count"] <= 10**6
            print(f"fresh {label}: {r['count'] if r['finished'] else 'not counted'} "
                  f"({r['s']:.1f} s){' kept' if keep else ''}", flush=True)
            if keep:
                puzzles.append((label, fresh, k))
    for w in workers.values():  # compile / load the kernels first
        w.count(puzzles[0][1], puzzles[0][2], {"max_nodes": 1}, 0)
    results: dict[tuple[str, str], list[dict]] = {}
    for rnd in range(args.rounds):
        order = settings if rnd % 2 == 0 else settings[::-1]
        for label, path, k in puzzles:
            for sname, checkout, kwargs in order:
                kw = dict(kwargs)
                if args.max_nodes:
                    kw["max_nodes"] = args.max_nodes
                r = workers[checkout].count(path, k, kw, args.timeout)
                results.setdefault((label, sname), []).append(r)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    bad = 0
    cols = ["count", "s", "nodes", "probes", "skipped", "reused", "refuted", "hits"]
    print(f"{'puzzle':>14} {'setting':>12} " + " ".join(f"{c:>12}" for c in cols))
    for k, _, _ in puzzles:
        exact = set()
        for sname, _, _ in settings:
            rs = results[(k, sname)]
            r = rs[0]
            shown = (str(r["count"]) if r["finished"]
                     else ">= " + str(max(x["lower"] for x in rs)))
            if r["finished"]:
                exact.add(r["count"])
            row = [shown, f"{statistics.median(x['s'] for x in rs):.2f}", r["nodes"],
                   r["probes"], r.get("probes_skipped", 0), r.get("probes_reused", 0),
                   r["refuted"], r["cache_hits"]]
            print(f"{k:>14} {sname:>12} " + " ".join(f"{str(c):>12}" for c in row))
        if len(exact) > 1:
            print(f"{k:>14} DISAGREE {sorted(exact)}")
            bad = 1
    for w in workers.values():
        w.close()
    return bad


if __name__ == "__main__":
    sys.exit(main())
