"""The multi-word line solver against the dynamic programme on every line of the corpus, and the
speed of both on the long lines (issue 27).

Every black-and-white puzzle the readers find under ``../shared/corpus`` (the NonogramRecord
tournament sets: the first ``--per-set`` puzzles of each, 30 sets) gives every line, in four
states: all unknown, the puzzle's propagation fixpoint, and two random states (cells of the
fixpoint line set at random, contradictory or not).  For each, :func:`nonosat.native.line.
solve_line` with ``method="words"`` (any length; one word up to 62 cells, two words in registers
for 63-124, more beyond) must equal ``method="dp"``.  Printed: lines and states checked,
mismatches (each one listed), and for the lines over 62 cells the median time of each kernel
(compiled loop, microseconds a line).  Usage::

    python benchmarks/bench_line_words.py [--per-set 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", ROOT.parent / "shared" / "corpus"))


def puzzles(per_set: int):
    from nonosat.formats import read_puzzles

    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix.lower() in (".md", ".png", ".jpg", ".py", ".rs",
                                                         ".cpp", ".h", ".c", ".json", ".toml"):
            continue
        try:
            found = read_puzzles(path)
        except Exception:
            continue
        if "NonogramRecord" in path.parts:
            found = found[:per_set]
        for k, p in enumerate(found):
            if not p.is_colour:
                yield f"{path.relative_to(CORPUS)}#{k + 1}", p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-set", type=int, default=50,
                    help="puzzles of each NonogramRecord set (default 50)")
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    from numba import njit

    from nonosat.native.line import line_kernel_dp, line_kernel_words, solve_line, words_scratch
    from nonosat.native.propagate import propagate_grid

    @njit
    def timed_words(clue, cells, out, ws, reps):  # pragma: no cover - compiled
        ok = 0
        for _ in range(reps):
            ok += line_kernel_words(clue, cells, out, ws)
        return ok

    @njit
    def timed_dp(clue, cells, out, reps):  # pragma: no cover - compiled
        ok = 0
        for _ in range(reps):
            ok += line_kernel_dp(clue, cells, out)
        return ok

    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    n_puzzles = lines = states = long_states = 0
    mismatches: list[str] = []
    speed_w: list[float] = []
    speed_d: list[float] = []
    for name, puzzle in puzzles(args.per_set):
        n_puzzles += 1
        fix = propagate_grid(puzzle)
        grid = fix[0] if fix is not None else np.full(puzzle.shape, 3, dtype=np.int8)
        for line, clue in enumerate(puzzle.lines):
            if clue is None:
                continue
            lines += 1
            row = grid[line] if line < puzzle.height else grid[:, line - puzzle.height]
            n = len(row)
            variants = [np.full(n, 3, dtype=np.int8), np.ascontiguousarray(row)]
            for _ in range(2):
                v = np.ascontiguousarray(row).copy()
                pick = rng.random(n) < 0.1
                v[pick] = rng.choice(np.array([1, 2], dtype=np.int8), size=int(pick.sum()))
                variants.append(v)
            for cells in variants:
                states += 1
                a = solve_line(list(clue), cells, "dp")
                b = solve_line(list(clue), cells, "words")
                if (a is None) != (b is None) or (a is not None and not np.array_equal(a, b)):
                    mismatches.append(f"{name} line {line}: {list(clue)} {cells.tolist()}")
                if n > 62:
                    long_states += 1
                    c = np.asarray(clue, dtype=np.int32)
                    out = np.empty(n, dtype=np.int8)
                    ws = words_scratch(n)
                    reps = 200
                    timed_words(c, cells, out, ws, 1)
                    timed_dp(c, cells, out, 1)
                    s = time.perf_counter()
                    timed_words(c, cells, out, ws, reps)
                    speed_w.append((time.perf_counter() - s) / reps)
                    s = time.perf_counter()
                    timed_dp(c, cells, out, reps)
                    speed_d.append((time.perf_counter() - s) / reps)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          f"{os.getloadavg()[0]:.1f}, corpus {CORPUS}, {time.perf_counter() - t0:.0f} s")
    print(f"puzzles {n_puzzles}, lines {lines}, line states {states} "
          f"(over 62 cells: {long_states}); mismatches words vs dp: {len(mismatches)}")
    for m in mismatches[:20]:
        print("  MISMATCH", m)
    if speed_w:
        mw, md = statistics.median(speed_w), statistics.median(speed_d)
        print(f"lines over 62 cells, median per line solve: words {1e6 * mw:.2f} us, "
              f"dp {1e6 * md:.2f} us ({md / mw:.1f}x)")


if __name__ == "__main__":
    main()
