"""Studio, colour: latency from a cell change to the verdict on colour drawings, over HTTP.

As ``benchmarks/bench_studio.py`` (whose server start-up, timing and table it reuses), on
colour drawings: each drawing is a background with rectangles in 3 colours (seeded), and each
request is the drawing after one more cell change (a cell painted another colour of the
palette, the background included), sent as the editor sends it (``"suggest": false``: verdict,
whole ambiguity map and grade).  Target (issue 29): at most 250 ms on 30x30.

Usage::

    python benchmarks/bench_studio_colour.py                 # 30x30, 10 drawings x 10 changes
    python benchmarks/bench_studio_colour.py --size 50 --drawings 5 --changes 5
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import httpx
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_studio import free_port, row, slowest, start_server, time_set  # noqa: E402

from nonosat.puzzle import Colour, Palette, Puzzle  # noqa: E402

PALETTE = Palette((Colour("white", (255, 255, 255), "."), Colour("red", (220, 30, 30), "r"),
                   Colour("black", (20, 20, 20), "k"), Colour("green", (40, 160, 60), "g")))


def drawings(n: int, changes: int, size: int, seed: int) -> list[tuple[str, Puzzle]]:
    """``n`` drawings, each followed by ``changes`` one-cell edits (each edit on the last)."""
    rng = np.random.default_rng(seed)
    out = []
    for d in range(n):
        pic = np.zeros((size, size), dtype=np.int8)
        for _ in range(size // 2):
            r, c = rng.integers(0, size, 2)
            h, w = rng.integers(1, max(2, size // 4), 2)
            pic[r:r + h, c:c + w] = rng.integers(1, len(PALETTE))
        for k in range(changes):
            r, c = rng.integers(0, size, 2)
            pic[r, c] = (pic[r, c] + rng.integers(1, len(PALETTE))) % len(PALETTE)
            out.append((f"drawing #{d} change {k + 1}",
                        Puzzle.from_picture(pic.copy(), palette=PALETTE)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--drawings", type=int, default=10)
    ap.add_argument("--changes", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    puzzles = drawings(args.drawings, args.changes, args.size, args.seed)
    port = free_port()
    proc = start_server(port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            time_set(client, proc.pid, puzzles[:3], suggest=False)  # the colour kernels warm
            times, cpu, verdicts = time_set(client, proc.pid, puzzles, suggest=False)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| set | requests | median ms | p90 ms | max ms | server CPU median ms "
          "| server CPU p90 ms | verdicts |")
    print("|---|---|---|---|---|---|---|---|")
    print(row(f"colour {args.size}x{args.size}, 3 colours, one cell changed", times, cpu,
              verdicts))
    print(slowest(puzzles, times, cpu))


if __name__ == "__main__":
    main()
