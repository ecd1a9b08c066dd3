"""Exact solution counts (issue 26): the native line-level counter against Ganak, as a table.

For every puzzle chosen (default: every 50th taai2011 puzzle, the 20 of ``benchmarks/RESULTS.md``'s
counts, #450 and the nine that Ganak could not count in 10 s among them, and the project's
games with several solutions), prints the exact count and the time to it of

* the native counter (:func:`nonosat.native.count.count_grid`, from the root node's fixed cells
  as :func:`nonosat.engines.counting.count_solutions` runs it, ``--timeout`` s), and
* Ganak (pyganak on the ``order`` CNF projected on the cells, in its child process,
  ``--ganak-timeout`` s; ``--ganak-timeout 0`` skips it),

and whether they agree where both finish (a disagreement is printed as ``DISAGREE`` and makes
the script exit 1).  The target: every corpus puzzle with <= 10^6 solutions counted exactly
within 10 s.

A stopped native count shows the lower bound its finished parts prove (``>= N``).  The summary
says how many were counted exactly within 10 s, how many were proved to have more than 10^6
solutions (out of the target's scope), and how many are undecided.  ``--sets`` samples several
NonogramRecord files (e.g. every 100th puzzle of each: ``--sets tcga2015,icga2019 --step 100``).

Usage::

    python benchmarks/bench_count.py [--step 50] [--start 0] [--timeout 10] [--ganak-timeout 10]
        [--only 450,550] [--set taai2011.txt] [--sets tcga2015,icga2019] [--games] [--probing 2]
"""

from __future__ import annotations

import sys
import time

from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path


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
    ap.add_argument("--ganak-timeout", type=float, default=10.0)
    ap.add_argument("--games", action="store_true", help="also the project's games")
    ap.add_argument("--probing", type=int, default=None,
                    help="the native counter's probing mode (count_grid's probing=; default: "
                         "its default)")
    args = ap.parse_args()

    from nonosat.engines.counting import COUNT_LIMIT, count_solutions, root_fixpoint
    from nonosat.formats import read_puzzle, read_puzzles
    from nonosat.native.count import count_grid, supported
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

    print(f"## exact counts: native (<= {args.timeout:g} s) against Ganak "
          f"(<= {args.ganak_timeout:g} s)\n")
    print("| puzzle | native count | native s | nodes | Ganak count | Ganak s | agree |")
    print("|---|---|---|---|---|---|---|")
    bad = 0
    native_times = []
    above = undecided = 0
    for name, puzzle in chosen:
        if not supported(puzzle):
            continue
        t0 = time.perf_counter()
        root = root_fixpoint(puzzle)
        if root is None:
            got_count, nodes, exact = "0", 0, True
            native_s = time.perf_counter() - t0
        else:
            with for_solve(None, args.timeout) as token:
                extra = {} if args.probing is None else {"probing": args.probing}
                got = count_grid(puzzle, root, limit=COUNT_LIMIT, stop=token, **extra)
            native_s = time.perf_counter() - t0
            nodes = got.stats["nodes"]
            exact = got.exact
            got_count = (f"{got.count:,}" if got.exact else
                         f"> {COUNT_LIMIT:,}" if got.finished else
                         f"gave up (>= {got.lower_bound:,})")
            above += got.finished and not got.exact
            undecided += not got.finished
        native_times.append(native_s if exact else float("inf"))
        ganak_count, ganak_s, agree = "-", "-", ""
        if args.ganak_timeout > 0:
            t0 = time.perf_counter()
            g = count_solutions(puzzle, timeout=args.ganak_timeout, counter="ganak")
            ganak_s = f"{time.perf_counter() - t0:.2f}"
            ganak_count = f"{g.count:,}" if g.exact else "gave up"
            if g.exact and exact:
                agree = "yes" if f"{g.count:,}" == got_count else "DISAGREE"
                bad += agree == "DISAGREE"
        print(f"| {name} | {got_count} | {native_s:.2f} | {nodes:,} | {ganak_count} | "
              f"{ganak_s} | {agree} |", flush=True)
    within = sum(t <= 10.0 for t in native_times)
    print(f"\nnative: counted exactly within 10 s: {within}/{len(native_times)}; proved more "
          f"than {COUNT_LIMIT:,}: {above}; undecided: {undecided}; "
          f"disagreements with Ganak: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
