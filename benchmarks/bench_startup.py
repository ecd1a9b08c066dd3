"""``nonosat solve`` as a whole process: median time per run, and where the time goes.

The issue "Speed" asks for ``nonosat solve`` on an everyday puzzle in <= 0.3 s median after the
first run (which compiles the numba kernels).  This script runs the installed ``nonosat`` on every
puzzle shipped in ``games/`` (one warm-up run first), ``--runs`` times each, and prints the median
wall-clock and CPU seconds (user + system of the child, from ``resource.getrusage``).  It then
times, each in a fresh interpreter, the steps a run goes through, cumulatively:

* ``python``: the interpreter with its site packages, nothing imported;
* ``numpy``: ``import numpy``;
* ``cli``: ``import nonosat.cli.app`` (typer, the command modules, formats and engines);
* ``numba``: ``import numba`` on top;
* ``first solve``: reading ``games/heart.non`` and one native solve, which loads the cached
  kernels (numba initialises its compiler target on the first call).

Usage::

    python benchmarks/bench_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p for p in (ROOT / "games").iterdir() if p.is_file() and p.suffix != ".md")

STEPS = {
    "python": "pass",
    "numpy": "import numpy",
    "cli": "import numpy, nonosat.cli.app",
    "numba": "import numpy, nonosat.cli.app, numba",
    "first solve": (
        "import nonosat.cli.app\n"
        "from nonosat.formats import read_puzzle\n"
        "from nonosat.native.search import NativeSearch\n"
        f"NativeSearch(read_puzzle({str(ROOT / 'games' / 'heart.non')!r}), limit=2).run(None)"
    ),
}


def timed(command: list[str]) -> tuple[float, float]:
    """Run ``command``; return (wall seconds, CPU seconds of the child: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def medians(command: list[str], runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``runs`` runs of ``command``."""
    samples = [timed(command) for _ in range(runs)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per puzzle and per step")
    args = parser.parse_args()
    exe = shutil.which("nonosat", path=str(Path(sys.executable).parent)) or shutil.which("nonosat")
    if exe is None:
        sys.exit("bench_startup: the nonosat command is not installed (pip install -e .)")
    print(f"# nonosat solve as a process — {platform.machine()}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; median of {args.runs} runs")
    print()
    print("| puzzle | wall s | CPU s |")
    print("|---|---|---|")
    walls, cpus = [], []
    for game in GAMES:
        command = [exe, "solve", str(game)]
        timed(command)  # warm-up: compiles the kernels on a fresh checkout
        wall, cpu = medians(command, args.runs)
        walls.append(wall)
        cpus.append(cpu)
        print(f"| {game.name} | {wall:.3f} | {cpu:.3f} |")
    print(f"| **median** | **{statistics.median(walls):.3f}** | **{statistics.median(cpus):.3f}** |")
    print()
    print("| step (cumulative) | wall s | CPU s | this step's CPU s |")
    print("|---|---|---|---|")
    previous = 0.0
    for name, code in STEPS.items():
        wall, cpu = medians([sys.executable, "-c", code], args.runs)
        print(f"| {name} | {wall:.3f} | {cpu:.3f} | {cpu - previous:+.3f} |")
        previous = cpu


if __name__ == "__main__":
    main()
