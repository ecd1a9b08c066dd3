"""``nonosat --help`` and ``nonosat solve`` as whole processes: median time per run, and where
the time goes.

Issue 16 asks for ``nonosat --help`` (and every command's ``--help``) in <= 0.15 s as a whole
process, and ``nonosat solve`` on a ``games/`` puzzle in <= 0.5 s after the first run (which
compiles the numba kernels).  This script runs the installed ``nonosat``: ``--help``, ``-h`` of
two commands, then ``solve`` on every puzzle shipped in ``games/`` (one warm-up run first; with
the default engine, and ``--engine native`` on the heart), ``--runs`` times each, and prints the
median wall-clock and CPU seconds (user + system of the child, from ``resource.getrusage``).  It
then times, each in a fresh interpreter, the steps a run goes through, cumulatively:

* ``python``: the interpreter with its site packages, nothing imported;
* ``cli``: ``import nonosat.cli.app`` (typer and the shared CLI code; a run imports one
  command module on top, ``--help`` all of them; no numpy);
* ``numpy``: ``import numpy`` and the puzzle model on top;
* ``solver modules``: the native solver's and the portfolio's modules (their kernels are lazy,
  :mod:`nonosat.lazy_jit`: no numba yet);
* ``interpreted heart``: reading ``games/heart.non`` and solving it with the default engine as
  ``nonosat solve`` does (line solving finishes it: the kernels run as Python, no numba);
* ``numba``: importing numba as the command line does (SciPy and PyYAML hidden) and activating
  the lazy kernels (no dispatcher made yet: each is made when first used);
* ``load native``: :func:`nonosat.engines.load_engine` of the native engine (the search kernel's
  dispatcher, numba's target context and runtime, and the cached kernel loaded without numba's
  target refresh: :func:`nonosat.kernel_cache.load_without_refresh`);
* ``load auto``: the same for the default engine;
* ``compiled heart``: the heart solved with the default engine on top (compiled).

Usage::

    python benchmarks/bench_startup.py [--runs 5]
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from preamble import REPO, argument_parser  # first: puts REPO on sys.path

ROOT = REPO
GAMES = sorted(p for p in (ROOT / "games").iterdir() if p.is_file() and p.suffix != ".md")

_CLI = "import nonosat.cli.app\n"
_NUMPY = _CLI + "import numpy, nonosat.puzzle\n"
_MODULES = _NUMPY + "import nonosat.engines.auto, nonosat.engines.native\n"
_HEART = (
    "from nonosat.engines import solve\n"
    "from nonosat.formats import read_puzzle\n"
    f"solve(read_puzzle({str(ROOT / 'games' / 'heart.non')!r}), 'auto')\n"
)
_INTERPRETED = (_MODULES + "from nonosat import lazy_jit\n"
                "lazy_jit.allow_interpreted(1024)\n" + _HEART
                + "assert not lazy_jit.is_active()\n")
_NUMBA = (_MODULES + "from nonosat.kernel_cache import import_numba_without_scipy\n"
          "import_numba_without_scipy()\nfrom nonosat import lazy_jit\nlazy_jit.activate()\n")
_NATIVE = _NUMBA + "from nonosat.engines import load_engine\nload_engine('native')\n"
_AUTO = _NUMBA + "from nonosat.engines import load_engine\nload_engine('auto')\n"
#: Step name -> (code, the step it builds on: "this step's CPU" is the difference).
STEPS = {
    "python": ("pass", None),
    "cli": (_CLI, "python"),
    "numpy": (_NUMPY, "cli"),
    "solver modules": (_MODULES, "numpy"),
    "interpreted heart": (_INTERPRETED, "solver modules"),
    "numba": (_NUMBA, "solver modules"),
    "load native": (_NATIVE, "numba"),
    "load auto": (_AUTO, "numba"),
    "compiled heart": (_AUTO + _HEART, "load auto"),
}


#: The children's environment: Python writes and reuses its bytecode caches, as on a user's
#: machine.  ``PYTHONDONTWRITEBYTECODE=1`` (set in some sandboxes and CI images) makes every run
#: compile every nonosat module from source again: about 55 ms of ``nonosat solve`` on the
#: heart (2026-11-25), which is not the program's start-up.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str]) -> tuple[float, float]:
    """Run ``command``; return (wall seconds, CPU seconds of the child: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=CHILD_ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def medians(command: list[str], runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``runs`` runs of ``command``."""
    samples = [timed(command) for _ in range(runs)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per puzzle and per step")
    args = parser.parse_args()
    exe = shutil.which("nonosat", path=str(Path(sys.executable).parent)) or shutil.which("nonosat")
    if exe is None:
        sys.exit("bench_startup: the nonosat command is not installed (pip install -e .)")
    print(f"# nonosat solve as a process — {platform.machine()}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; median of {args.runs} runs")
    print()
    print("| command | wall s | CPU s |")
    print("|---|---|---|")
    for extra in (["--help"], ["solve", "-h"], ["batch", "-h"]):
        wall, cpu = medians([exe, *extra], args.runs)
        print(f"| nonosat {' '.join(extra)} | {wall:.3f} | {cpu:.3f} |")
    heart = ROOT / "games" / "heart.non"
    wall, cpu = medians([exe, "solve", str(heart), "--engine", "native"], args.runs)
    print(f"| nonosat solve heart.non --engine native | {wall:.3f} | {cpu:.3f} |")
    walls, cpus = [], []
    for game in GAMES:
        command = [exe, "solve", str(game)]
        timed(command)  # warm-up: compiles the kernels on a fresh checkout
        wall, cpu = medians(command, args.runs)
        walls.append(wall)
        cpus.append(cpu)
        print(f"| nonosat solve {game.name} | {wall:.3f} | {cpu:.3f} |")
    print(f"| **solve, median over games/** | **{statistics.median(walls):.3f}** | "
          f"**{statistics.median(cpus):.3f}** |")
    print()
    print("| step (cumulative) | wall s | CPU s | this step's CPU s (on top of) |")
    print("|---|---|---|---|")
    cpus_of: dict[str, float] = {}
    for name, (code, base) in STEPS.items():
        wall, cpu = medians([sys.executable, "-c", code], args.runs)
        cpus_of[name] = cpu
        delta = cpu - cpus_of[base] if base else cpu
        print(f"| {name} | {wall:.3f} | {cpu:.3f} | {delta:+.3f} ({base or '-'}) |")


if __name__ == "__main__":
    main()
