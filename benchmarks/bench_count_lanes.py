"""The counting portfolio's settings and second lane (issue 26), measured on the fresh-seed set
(``benchmarks/count_fresh.py --save FILE``) and the corpus checks.

``--mode settings``: for each puzzle, every ``--configs`` setting of
:func:`nonosat.native.count.count_grid` (JSON keyword arguments; ``{}`` is the default) counts
from the root node's fixed cells within ``--timeout`` s, the order of the settings rotated from
one puzzle to the next (interleaved); ``enum`` in the list is the enumeration alone
(``count_solutions(counter="enumerate")``).  Prints decisions, probes and seconds per puzzle and
setting, and a summary per setting: counted within the time limit, seconds (a count not
finished counts as the time limit), and decisions against the first setting's (geometric
mean over the puzzles both counted), and the best of the first setting and each other one
(what a portfolio of the two on two cores would take, at best).

``--mode portfolio``: ``count_solutions()`` with each ``--lanes`` value of its second lane
(``ganak``: the enumeration then Ganak, as before; ``native``: the enumeration handing over to a second
native counter; see :data:`nonosat.engines.counting.SECOND_LANES`; ``cubes``: the native
workers, ``workers=None``), ``--rounds`` rounds
alternating their order, within ``--timeout`` s: count, method, wall seconds, with the load
average.

Usage::

    python benchmarks/bench_count_lanes.py --fresh FILE [--corpus taai2011#425,...]
        [--mode settings|portfolio] [--configs '{}' '{"weights": 0}' enum] [--timeout 10]
        [--lanes ganak,native] [--rounds 2] [--only 3] [--budget 100000]
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from preamble import CORPUS, argument_parser  # first: puts REPO on sys.path

if TYPE_CHECKING:
    from nonosat.puzzle import Puzzle

#: The corpus checks of issue 26's last target, with their counts.
CORPUS_CHECKS = {"taai2011#425": 67_270, "taai2011#450": 646_519, "tcga2020#500": 210_785,
                 "icga2017#500": 7_788, "taai2014#500": 9_132}


def puzzles(fresh: str, corpus: str, only: int, skip: int = 0
            ) -> list[tuple[str, Puzzle, int | None]]:
    """The fresh set (from its ``skip``-th, ``only`` of them, 0: all) and the corpus checks
    named."""
    from count_fresh import load

    from nonosat.formats import read_puzzles

    got: list[tuple[str, Puzzle, int | None]] = []
    if fresh:
        loaded = load(fresh)[skip:]
        got.extend(loaded[:only] if only else loaded)
    for spec in filter(None, corpus.split(",")):
        name, k = spec.split("#")
        got.append((spec, read_puzzles(CORPUS / "NonogramRecord" / "question" / f"{name}.txt")
                    [int(k)], CORPUS_CHECKS.get(spec)))
    return got


def run_setting(puzzle: Puzzle, config: str, timeout: float, budget: int | None
                ) -> dict[str, Any]:
    """One count: ``config`` JSON for ``count_grid`` (within ``budget`` decisions), or
    ``enum``; ``s`` is the CPU seconds of this thread (the machine's load changes it less than
    wall time)."""
    from nonosat.engines.counting import count_solutions, root_fixpoint
    from nonosat.native.count import count_grid
    from nonosat.stop import for_solve

    t0 = time.thread_time()
    if config == "enum":
        got = count_solutions(puzzle, counter="enumerate", timeout=timeout)
        return {"count": got.count if got.exact else None, "lower": got.count or 0,
                "s": time.thread_time() - t0, "nodes": 0, "probes": 0}
    partial = root_fixpoint(puzzle)
    with for_solve(None, timeout) as token:
        r = count_grid(puzzle, partial, limit=10**6, stop=token, max_nodes=budget,
                       **json.loads(config))
    took = time.thread_time() - t0
    return {"count": r.count if r.finished and r.exact else None,
            "lower": r.lower_bound if not r.finished else (r.count or 0), "s": took,
            "nodes": int(r.stats["nodes"]), "probes": int(r.stats["probes"])}


def mode_settings(items: list, configs: list[str], timeout: float, budget: int | None,
                  cap: float) -> None:
    res: dict[tuple[str, str], dict[str, Any]] = {}
    for i, (name, puzzle, known) in enumerate(items):
        order = configs[i % len(configs):] + configs[:i % len(configs)]
        for c in order:
            r = res[(name, c)] = run_setting(puzzle, c, timeout, budget)
            if r["count"] is not None and known is not None and r["count"] != known:
                print(f"DISAGREE {name} {c}: {r['count']} != {known}")
        cells = []
        for c in configs:
            r = res[(name, c)]
            mark = " " if r["count"] is not None else ">"
            cells.append(f"{mark}{r['s']:5.2f}s {r['nodes']:>8,}")
        print(f"{name:>16} {known or 0:>9,} | " + " | ".join(cells)
              + f" | load {os.getloadavg()[0]:.2f}", flush=True)
    base = configs[0]
    print(f"\nsummary ({len(items)} puzzles; CPU seconds, '>': not counted within the limits; "
          f"a count over {cap:.0f} s of CPU, or none, counts as {cap:.0f} s)")

    def cpu(n: str, c: str) -> float:
        r = res[(n, c)]
        return min(r["s"], cap) if r["count"] is not None else cap

    for c in configs:
        done = sum(cpu(n, c) < cap for n, _, _ in items)
        secs = sum(cpu(n, c) for n, _, _ in items)
        both = [(res[(n, c)]["nodes"], res[(n, base)]["nodes"]) for n, _, _ in items
                if res[(n, c)]["count"] is not None and res[(n, base)]["count"] is not None
                and res[(n, base)]["nodes"] > 0 and res[(n, c)]["nodes"] > 0]
        geo = math.exp(sum(math.log(a / b) for a, b in both) / len(both)) if both else float("nan")
        pair = [min(cpu(n, base), cpu(n, c)) for n, _, _ in items]
        pdone = sum(p < cap for p in pair)
        print(f"  {c:>34}: counted {done}/{len(items)}, {secs:7.1f} s in all, decisions "
              f"{geo:.2f}x the first's ({len(both)} puzzles); best of the first and it: counted "
              f"{pdone}, {sum(pair):.1f} s")


def mode_portfolio(items: list, lanes: list[str], timeout: float, rounds: int) -> None:
    from nonosat.engines import counting

    total: dict[str, list[float]] = {lane: [] for lane in lanes}
    done: dict[str, int] = dict.fromkeys(lanes, 0)
    for name, puzzle, known in items:
        for rnd in range(rounds):
            order = lanes if rnd % 2 == 0 else lanes[::-1]
            cells = []
            for lane in order:
                t0 = time.perf_counter()
                kwargs: dict[str, Any] = ({"workers": None} if lane == "cubes"
                                          else {"second_lane": lane})
                got = counting.count_solutions(puzzle, timeout=timeout, **kwargs)
                took = time.perf_counter() - t0
                if got.exact and known is not None and got.count != known:
                    print(f"DISAGREE {name} {lane}: {got.count} != {known}")
                total[lane].append(took if got.exact else timeout)
                done[lane] += got.exact
                what = (f"{took:5.2f}s {counting._short(got.method)[:6]}" if got.exact
                        else f"  >{timeout:.0f}s {got.count or 0:>9,}")
                cells.append(f"{lane}: {what}")
            print(f"{name:>16} {known or 0:>9,} r{rnd} | " + " | ".join(cells)
                  + f" | load {os.getloadavg()[0]:.2f}", flush=True)
    print(f"\nsummary ({len(items)} puzzles x {rounds} rounds, {timeout:.0f} s)")
    for lane in lanes:
        print(f"  {lane:>8}: counted {done[lane]}/{len(total[lane])}, "
              f"{sum(total[lane]):.1f} s in all (not counted = {timeout:.0f} s)")


def main() -> int:
    ap = argument_parser(__doc__)
    ap.add_argument("--fresh", default="", help="the set count_fresh.py --save wrote")
    ap.add_argument("--corpus", default=",".join(CORPUS_CHECKS))
    ap.add_argument("--only", type=int, default=0, help="the first N of the fresh set")
    ap.add_argument("--skip", type=int, default=0, help="skip the first N of the fresh set")
    ap.add_argument("--names", default="", help="only these puzzles (fresh#SEED, set#K)")
    ap.add_argument("--mode", default="settings", choices=("settings", "portfolio"))
    ap.add_argument("--configs", nargs="*", default=["{}", '{"weights": 0}', '{"probing": 3}'])
    ap.add_argument("--lanes", default="ganak,native")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cap", type=float, default=10.0,
                    help="settings: CPU seconds a count must finish within to count as counted")
    ap.add_argument("--budget", type=int, default=0,
                    help="settings: decisions at most per count (0: the time limit alone)")
    args = ap.parse_args()
    from nonosat.native.count import count_grid
    from nonosat.puzzle import Puzzle

    count_grid(Puzzle([(1,), (1,)], [(1,), (1,)]))  # compile first
    items = puzzles(args.fresh, args.corpus, args.only, args.skip)
    if args.names:
        items = [item for item in items if item[0] in args.names.split(",")]
    print(f"{len(items)} puzzles, load {os.getloadavg()[0]:.2f}", flush=True)
    if args.mode == "settings":
        print(f"{'':>16} {'count':>9} | " + " | ".join(f"{c[:16]:>17}" for c in args.configs))
        mode_settings(items, args.configs, args.timeout, args.budget or None, args.cap)
    else:
        mode_portfolio(items, args.lanes.split(","), args.timeout, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
