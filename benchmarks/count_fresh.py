"""A fresh-seed set of puzzles for counting benchmarks (issue 26): random black-and-white
grids whose clues have between 10^3 and 10^6 solutions and are hard for the native counter.

The public corpus is a check, not a target one may tune on: the settings of the counting
portfolio are measured on this set instead.  For each seed (``--seed`` + k, k = 0, 1, ...) a
random grid (``--sizes``, e.g. ``20x20,25x25``, taken in turn; density drawn uniformly in
``--density``) gives its clues (:meth:`nonosat.puzzle.Puzzle.from_picture`); the puzzle is kept
when

* the native counter (:func:`nonosat.native.count.count_grid`, default settings, from the root
  node's fixed cells as :func:`nonosat.engines.counting.count_solutions` counts) does **not**
  finish within ``--easy`` s (hard enough: the default takes longer than that), and
* a long native run (``--long`` s, default 120) counts it exactly, with between ``--low``
  (10^3) and ``--high`` (10^6) solutions.

Prints every candidate (seed, size, density, fate) and the set kept, and with ``--save FILE``
writes it as JSON (seed, size, density, count, the long run's seconds and decisions, the rows
of the grid) for :func:`load`, so that benchmarks need not count it again.

The set of ``docs/counting.md`` (28 puzzles) is ``benchmarks/count_fresh.json``.

Usage::

    python benchmarks/count_fresh.py [--seed 20261127] [--tries 60] [--want 24]
        [--sizes 20x20,25x25] [--density 0.45,0.6] [--easy 1] [--long 120] [--save FILE]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from preamble import argument_parser  # first: puts REPO on sys.path

if TYPE_CHECKING:
    import numpy as np

    from nonosat.puzzle import Puzzle

#: The seed used for the set in ``docs/counting.md`` (chosen on 2026-11-27).
DEFAULT_SEED = 20261127


def make_grid(seed: int, shape: tuple[int, int], density: tuple[float, float]
              ) -> tuple[np.ndarray, float]:
    """A random black-and-white picture of ``shape`` (bool) and its density, from ``seed``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    d = float(rng.uniform(*density))
    return rng.random(shape) < d, d


def puzzle_of(rows: list[str]) -> Puzzle:
    """The puzzle whose solution's rows are ``rows`` (``#`` filled, ``.`` empty)."""
    import numpy as np

    from nonosat.puzzle import Puzzle

    return Puzzle.from_picture(np.array([[c == "#" for c in r] for r in rows]))


def load(path: str | Path) -> list[tuple[str, Puzzle, int]]:
    """The set ``--save`` wrote: ``(name, puzzle, exact count)`` per puzzle."""
    data = json.loads(Path(path).read_text())
    return [(f"fresh#{d['seed']}", puzzle_of(d["rows"]), int(d["count"])) for d in data]


def main() -> int:
    ap = argument_parser(__doc__)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--tries", type=int, default=60, help="candidates at most")
    ap.add_argument("--want", type=int, default=24, help="stop once this many are kept")
    ap.add_argument("--sizes", default="20x20,25x25")
    ap.add_argument("--density", default="0.45,0.6")
    ap.add_argument("--easy", type=float, default=1.0,
                    help="seconds: a puzzle the default counts within them is too easy")
    ap.add_argument("--long", type=float, default=120.0, help="seconds of the exact run")
    ap.add_argument("--low", type=int, default=10**3)
    ap.add_argument("--high", type=int, default=10**6)
    ap.add_argument("--save", default="", help="write the set as JSON to this file")
    args = ap.parse_args()
    import os

    from nonosat.engines.counting import root_fixpoint
    from nonosat.native.count import count_grid
    from nonosat.stop import for_solve

    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    dens = tuple(float(v) for v in args.density.split(","))
    count_grid(puzzle_of(["#.", ".#"]))  # compile first
    kept: list[dict[str, Any]] = []
    print(f"seeds {args.seed} .. {args.seed + args.tries - 1}, sizes {args.sizes}, density "
          f"{dens}, easy < {args.easy} s, exact within {args.long} s, "
          f"{args.low:,} <= count <= {args.high:,}", flush=True)
    for k in range(args.tries):
        if len(kept) >= args.want:
            break
        seed = args.seed + k
        h, w = sizes[k % len(sizes)]
        grid, d = make_grid(seed, (h, w), dens)
        rows = ["".join("#" if v else "." for v in row) for row in grid]
        puzzle = puzzle_of(rows)
        partial = root_fixpoint(puzzle)
        fate = ""
        assert partial is not None  # the picture is a solution
        t0 = time.perf_counter()
        with for_solve(None, args.easy) as token:
            quick = count_grid(puzzle, partial, limit=args.high, stop=token)
        if quick.finished:
            fate = (f"easy ({quick.count:,} solutions in {time.perf_counter() - t0:.2f} s)"
                    if quick.exact else "more than the limit (quick)")
        elif quick.lower_bound > args.high:
            fate = "more than the limit (quick)"
        else:
            t0 = time.perf_counter()
            with for_solve(None, args.long) as token:
                got = count_grid(puzzle, partial, limit=args.high, stop=token)
            took = time.perf_counter() - t0
            if not got.finished:
                fate = f"not counted in {args.long:.0f} s (at least {got.lower_bound:,})"
            elif not got.exact:
                fate = f"more than {args.high:,} ({took:.1f} s)"
            elif got.count is not None and got.count < args.low:
                fate = f"only {got.count:,} solutions ({took:.1f} s)"
            else:
                fate = f"KEPT {got.count:,} solutions ({took:.1f} s, {got.stats['nodes']} nodes)"
                kept.append({"seed": seed, "size": f"{h}x{w}", "density": round(d, 4),
                             "count": got.count, "seconds": round(took, 2),
                             "nodes": int(got.stats["nodes"]), "rows": rows})
        print(f"seed {seed} {h}x{w} density {d:.3f}: {fate} "
              f"(load {os.getloadavg()[0]:.2f})", flush=True)
    print(f"\nkept {len(kept)}:")
    for d in kept:
        print(f"  seed {d['seed']} {d['size']} density {d['density']}: {d['count']:,} solutions,"
              f" {d['seconds']} s, {d['nodes']:,} decisions")
    if args.save:
        Path(args.save).write_text(json.dumps(kept, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
