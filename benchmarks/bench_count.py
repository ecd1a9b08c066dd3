"""Exact solution counts (issue 26): the native line-level counter, CaDiCaL's enumeration, Ganak
and the portfolio of :func:`nonosat.engines.counting.count_solutions`, as a table.

For every puzzle chosen (default: every 50th taai2011 puzzle; ``--sets`` samples several
NonogramRecord files, ``--only`` names puzzles, ``--games`` adds the project's games with
several solutions), prints the exact count and the time to it of

* the native counter (:func:`nonosat.native.count.count_grid`, from the root node's fixed cells
  as :func:`~nonosat.engines.counting.count_solutions` runs it, ``--timeout`` s),
* the enumeration (``count_solutions(counter="enumerate")``: CaDiCaL, a blocking clause per
  solution, ``--enum-timeout`` s; ``0`` skips it),
* Ganak (pyganak on the ``order`` CNF projected on the cells, in its child process,
  ``--ganak-timeout`` s; ``0`` skips it), and
* the portfolio (``count_solutions()``, the default count, ``--portfolio-timeout`` s; ``0``
  skips it): its count and the counter that gave it,

and whether the exact counts agree (a disagreement is printed as ``DISAGREE`` and makes the
script exit 1).  The target: every corpus puzzle with <= 10^6 solutions counted exactly within
10 s.

A stopped native count shows the lower bound its finished parts prove (``>= N``), a stopped
enumeration the solutions it found (``>= N``).  The summary says how many each counter and the
portfolio counted exactly within 10 s, how many were proved to have more than 10^6 solutions
(out of the target's scope), and how many are undecided.

Usage::

    python benchmarks/bench_count.py [--step 50] [--start 0] [--timeout 10] [--enum-timeout 10]
        [--ganak-timeout 10] [--portfolio-timeout 10] [--only 450,550] [--set taai2011.txt]
        [--sets tcga2015,icga2019] [--games] [--probing 2] [--workers 1]

``--workers N`` runs the native counter on ``N`` worker threads
(:func:`nonosat.native.count_cubes.count_parallel`: its cubes, ``0``: the cores available)
instead of one.  ``--workers 1,0`` (several values) prints an A/B table instead: for each
puzzle, ``--rounds`` rounds alternating the order of the values, the native counter
(``count_solutions(counter="native", workers=N)``) and the portfolio (``count_solutions()``
with ``workers=1``, the portfolio before the workers, and ``workers=None``, its default, for
``0``; ``--portfolio-timeout 0`` skips it): count, wall seconds, CPU seconds of the process (all
threads) and the native decisions (summed over the workers: the duplicated work of the split
shows there).
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path

if TYPE_CHECKING:
    from nonosat.engines.counting import SolutionCount
    from nonosat.puzzle import Puzzle


def main() -> int:
    ap = argument_parser(__doc__)
    ap.add_argument("--set", default="taai2011.txt", help="a file of NonogramRecord/question")
    ap.add_argument("--sets", default="",
                    help="several files of NonogramRecord/question, comma-separated (the .txt "
                         "may be left off); overrides --set")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--step", type=int, default=50)
    ap.add_argument("--only", default="", help="0-based puzzle numbers, comma-separated")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--enum-timeout", type=float, default=10.0)
    ap.add_argument("--ganak-timeout", type=float, default=10.0)
    ap.add_argument("--portfolio-timeout", type=float, default=10.0)
    ap.add_argument("--games", action="store_true", help="also the project's games")
    ap.add_argument("--probing", type=int, default=None,
                    help="the native counter's probing mode (count_grid's probing=; default: "
                         "its default)")
    ap.add_argument("--workers", default="1",
                    help="native worker threads (0: the cores available); several values, "
                         "comma-separated, print the A/B table")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the A/B table")
    args = ap.parse_args()
    workers = [int(x) for x in args.workers.split(",") if x]

    from nonosat.engines.counting import COUNT_LIMIT, root_fixpoint
    from nonosat.formats import read_puzzle, read_puzzles
    from nonosat.native.count import count_grid, supported
    from nonosat.native.count_cubes import count_parallel
    from nonosat.puzzle import Puzzle
    from nonosat.stop import for_solve

    count_grid(Puzzle([(1,), (1,)], [(1,), (1,)]))  # load the compiled kernels first
    chosen: list[tuple[str, Puzzle]] = []
    if args.games:
        for name in ("cross-ambiguous.non", "heart.non", "impossible.non"):
            chosen.append((name, read_puzzle(REPO / "games" / name)))
    names = [x if x.endswith(".txt") else f"{x}.txt" for x in args.sets.split(",") if x]
    for name in names or [args.set]:
        path = CORPUS / "NonogramRecord" / "question" / name
        if not path.exists():
            print(f"{path} not found: its puzzles skipped", file=sys.stderr)
            continue
        puzzles = read_puzzles(path)
        numbers = ([int(x) for x in args.only.split(",")] if args.only
                   else range(args.start, len(puzzles), args.step))
        chosen += [(f"{path.stem} #{k}", puzzles[k]) for k in numbers]
    if len(workers) > 1:
        return _ab(chosen, workers, args.rounds, args.timeout, args.portfolio_timeout)

    print(f"## exact counts: native (<= {args.timeout:g} s), enumeration (<= "
          f"{args.enum_timeout:g} s), Ganak (<= {args.ganak_timeout:g} s), the portfolio (<= "
          f"{args.portfolio_timeout:g} s)\n")
    print("| puzzle | native count | native s | nodes | enum count | enum s | Ganak count | "
          "Ganak s | portfolio count | by | portfolio s | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    bad = 0
    within = {"native": 0, "enum": 0, "ganak": 0, "portfolio": 0}
    above = undecided = total = 0
    for name, puzzle in chosen:
        if not supported(puzzle):
            continue
        total += 1
        exact_counts: list[int] = []
        t0 = time.perf_counter()
        root = root_fixpoint(puzzle)
        if root is None:
            got_count, nodes = "0", 0
            exact_counts.append(0)
            native_s = time.perf_counter() - t0
        else:
            with for_solve(None, args.timeout) as token:
                extra = {} if args.probing is None else {"probing": args.probing}
                if workers[0] == 1:
                    got = count_grid(puzzle, root, limit=COUNT_LIMIT, stop=token, **extra)
                else:
                    got = count_parallel(puzzle, root, limit=COUNT_LIMIT, stop=token,
                                         workers=workers[0] or None, **extra)
            native_s = time.perf_counter() - t0
            nodes = got.stats["nodes"]
            if got.exact:
                exact_counts.append(int(got.count or 0))
            got_count = (f"{got.count:,}" if got.exact else
                         f"> {COUNT_LIMIT:,}" if got.finished else
                         f"gave up (>= {got.lower_bound:,})")
            above += got.finished and not got.exact
        within["native"] += bool(exact_counts) and native_s <= 10.0

        is_above = root is not None and got.finished and not got.exact
        enum_count, enum_s, _ = _run(puzzle, "enumerate", args.enum_timeout, exact_counts,
                                     within)
        ganak_count, ganak_s, _ = _run(puzzle, "ganak", args.ganak_timeout, exact_counts,
                                       within)
        port_count, port_s, port = _run(puzzle, "auto", args.portfolio_timeout, exact_counts,
                                        within)
        by = "-" if port is None else _SHORT.get(port.method, port.method)
        undecided += not exact_counts and not is_above
        agree = ""
        if len(exact_counts) > 1:
            agree = "yes" if len(set(exact_counts)) == 1 else "DISAGREE"
            bad += agree == "DISAGREE"
        print(f"| {name} | {got_count} | {native_s:.2f} | {nodes:,} | {enum_count} | {enum_s} | "
              f"{ganak_count} | {ganak_s} | {port_count} | {by} | {port_s} | {agree} |",
              flush=True)
    print(f"\ncounted exactly within 10 s, of {total}: native {within['native']}, enumeration "
          f"{within['enum']}, Ganak {within['ganak']}, the portfolio {within['portfolio']}; "
          f"native proved more than {COUNT_LIMIT:,}: {above}; undecided by every counter run: "
          f"{undecided}; disagreements: {bad}")
    return 1 if bad else 0


def _run(puzzle: Puzzle, counter: str, limit: float, exact_counts: list[int],
         within: dict[str, int]) -> tuple[str, str, SolutionCount | None]:
    """``count_solutions(counter=counter)`` within ``limit`` s (``0``: not run): the count and
    the seconds as shown, and the result; an exact count is added to ``exact_counts`` and, when
    within 10 s, to ``within``."""
    from nonosat.engines.counting import count_solutions

    if limit <= 0:
        return "-", "-", None
    t0 = time.perf_counter()
    g = count_solutions(puzzle, timeout=limit, counter=counter)
    took = time.perf_counter() - t0
    if g.exact:
        assert g.count is not None
        exact_counts.append(g.count)
        within[_KEY[counter]] += took <= 10.0
        return f"{g.count:,}", f"{took:.2f}", g
    shown = "gave up" if not g.count else f"gave up (>= {g.count:,})"
    return shown, f"{took:.2f}", g


def _ab(chosen: list[tuple[str, Puzzle]], workers: list[int], rounds: int, limit: float,
        portfolio_limit: float) -> int:
    """The A/B table of ``--workers`` with several values (module docstring)."""
    import os

    from nonosat.engines.counting import count_solutions
    from nonosat.native.count import supported
    from nonosat.native.count_cubes import available_cores

    print(f"## native counter on N workers (cores available: {available_cores()}, load "
          f"{os.getloadavg()[0]:.1f}), {limit:g} s, {rounds} rounds, order alternating\n")
    print("| puzzle | what | N | round | count | wall s | CPU s | nodes |")
    print("|---|---|---|---|---|---|---|---|")
    bad = 0
    for name, puzzle in chosen:
        if not supported(puzzle):
            continue
        exact: set[int] = set()
        for r in range(rounds):
            order = workers if r % 2 == 0 else workers[::-1]
            for n in order:
                runs = [("native", "native", limit)]
                if portfolio_limit > 0:
                    runs.append(("portfolio", "auto", portfolio_limit))
                for what, counter, seconds in runs:
                    t0, c0 = time.perf_counter(), time.process_time()
                    nodes = "-"
                    result: SolutionCount
                    if counter == "native":
                        result, decisions = _native(puzzle, seconds, n or available_cores())
                        nodes = f"{decisions:,}"
                    else:
                        result = count_solutions(puzzle, timeout=seconds, workers=n or None)
                    got = result
                    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                    if got.exact:
                        assert got.count is not None
                        exact.add(got.count)
                    shown = (f"{got.count:,}" if got.exact else
                             f"> {got.count - 1:,}" if got.count and "more than" in got.reason
                             else f"gave up (>= {got.count or 0:,})")
                    print(f"| {name} | {what} | {n or 'all'} | {r + 1} | {shown} | {wall:.2f} | "
                          f"{cpu:.2f} | {nodes} |", flush=True)
        if len(exact) > 1:
            print(f"| {name} | DISAGREE: {sorted(exact)} |")
            bad += 1
    print(f"\nload average after: {os.getloadavg()[0]:.1f}; disagreements: {bad}")
    return 1 if bad else 0


def _native(puzzle: Puzzle, seconds: float, workers: int) -> tuple[SolutionCount, int]:
    """The native counter as ``count_solutions(counter="native", workers=workers)`` runs it
    (the root's fixed cells first; the portfolio's warm-up before the split), and its
    decisions summed over its workers."""
    from nonosat.engines.counting import (
        COUNT_LIMIT,
        NATIVE_COUNTER,
        WARMUP_NODES,
        SolutionCount,
        root_fixpoint,
    )
    from nonosat.native.count import count_grid
    from nonosat.native.count_cubes import CubeCount
    from nonosat.stop import for_solve

    t0 = time.perf_counter()
    root = root_fixpoint(puzzle)
    if root is None:
        return SolutionCount(0, True, "engine"), 0
    with for_solve(None, seconds) as token:
        if workers == 1:
            got = count_grid(puzzle, root, limit=COUNT_LIMIT, stop=token)
        else:
            got = CubeCount(puzzle, root, limit=COUNT_LIMIT, stop=token,
                            warmup_nodes=WARMUP_NODES).run(workers)
    took = time.perf_counter() - t0
    reason = "" if got.exact else ("more than" if got.finished else "stopped")
    count = got.count if got.finished else got.lower_bound
    return SolutionCount(count, got.exact, NATIVE_COUNTER, took, reason), got.stats["nodes"]


_KEY = {"enumerate": "enum", "ganak": "ganak", "auto": "portfolio"}
_SHORT = {"native (line counter)": "native", "enumeration (CaDiCaL)": "enum",
          "ganak (pyganak)": "Ganak"}


if __name__ == "__main__":
    sys.exit(main())
