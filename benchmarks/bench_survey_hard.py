"""The hardest survey puzzles (Knotty, Faase) per engine variant: verdict, CPU seconds, peak memory.

Issue "Speed" asks for every webpbn survey puzzle decided within 600 s on one core, and for a peak
memory of at most 300 MB.  Each variant runs in a fresh process (so that ``ru_maxrss`` is that
run's peak) under a CPU-time limit (``RLIMIT_CPU``), one after the other, and this script prints
one row per puzzle and variant:

* **verdict**: unique / multiple / unknown (the time limit struck) / killed (the CPU limit
  struck first) / error;
* **cpu s**: the child's CPU seconds (``time.process_time``), imports excluded;
* **peak MB**: the child's ``ru_maxrss``;
* **goal**: whether a returned solution equals the goal picture of the XML copy in
  ``number-loom/examples/wolter`` (used only to check answers, never to solve).

Variants (``--variants``, comma-separated):

* ``sat:<encoding>:<solver>``: :class:`nonosat.engines.sat.SatEngine` alone (e.g.
  ``sat:order:Cadical195``, ``sat:regular:Glucose4``);
* ``satroot:<encoding>:<solver>``: the same after 0.3 s of native search, given the native root
  grid and its probing implications (what the ``auto`` engine hands over);
* ``auto``, ``native``, ``cpsat``: those engines with their defaults.

Measured (2026-11-22, shared 2-core machine, limit 2, CPU seconds):

* Faase: ``satroot:order:Cadical195`` **multiple** in 43.7 s (46.6 s in a second run; both
  solutions satisfy every clue, differ in 482 cells, and neither is the goal picture, so Faase
  has at least three solutions); ``auto`` multiple in 58.8 s, peak 306 MB;
  ``sat:order:Cadical195`` (no root grid) unknown at 89 s; ``satroot:regular:Cadical195`` unknown
  at 88 s (524 MB).
* Knotty: undecided by every variant tried with these short caps: SAT order/regular x
  CaDiCaL/Glucose4 with the root grid found no first solution in 100 s; the goal's blocking
  clause (order and regular) or a single cell flip of the goal was not settled in 130 s and 300 s;
  native limit 1 found no solution in 80 s; probing to a fixpoint (failed literals on the regular
  encoding) fixes the same 79 of 1600 cells as the native root.  With the 600 s cap of
  ``benchmarks/run.py --sets survey`` it is decided: **multiple**, by ``sat`` in 340 s and by
  ``auto`` in 189 s CPU (two distinct solutions, each checked against every clue by
  :func:`nonosat.engines.solve`), so the blocking clause of the goal was satisfiable all along.

Usage::

    .venv/bin/python benchmarks/bench_survey_hard.py [--puzzles knotty,faase] [--limit 2]
        [--timeout 100] [--variants sat:order:Cadical195,satroot:order:Cadical195,cpsat]
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from typing import Any

from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path

SURVEY = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"
GOALS = CORPUS / "number-loom" / "examples" / "wolter"
DEFAULT_VARIANTS = "sat:order:Cadical195,satroot:order:Cadical195,satroot:order:Glucose4,cpsat"


def run_variant(name: str, variant: str, limit: int, timeout: float) -> dict[str, Any]:
    """Child process: solve survey puzzle ``name`` with ``variant``; returns the row."""
    import numpy as np

    from nonosat.engines import get_engine
    from nonosat.formats import read_puzzle

    puzzle = read_puzzle(SURVEY / f"{name}.nin")
    start = time.process_time()
    kind, _, rest = variant.partition(":")
    if kind in ("sat", "satroot"):
        encoding, _, solver = rest.partition(":")
        options: dict[str, Any] = {"encoding": encoding or "order", "solver": solver or "Cadical195"}
        partial = None
        if kind == "satroot":
            from nonosat.native.search import NativeSearch

            search = NativeSearch(puzzle, limit=limit)
            search.run(0.3)
            partial = search.root_grid()
            options["implications"] = search.root_implications()
        left = timeout - (time.process_time() - start)
        result = get_engine("sat", **options).solve(puzzle, partial=partial, limit=limit,
                                                    timeout=left)
    else:
        result = get_engine(kind).solve(puzzle, limit=limit, timeout=timeout)
    cpu = time.process_time() - start
    goal_file = GOALS / f"{name}.xml"
    goal = None
    if goal_file.exists():
        picture = read_puzzle(goal_file).goal
        if picture is not None:
            goal = any(np.array_equal(np.asarray(picture, bool), s) for s in result.solutions)
    return {"puzzle": name, "variant": variant, "verdict": result.status.value,
            "cpu_s": round(cpu, 2), "solutions": len(result.solutions), "goal": goal,
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def measure(name: str, variant: str, limit: int, timeout: float) -> dict[str, Any]:
    """Run one variant in a fresh process with a CPU limit of ``timeout`` + 30 s."""
    cap = int(timeout) + 30

    def limit_cpu() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap))

    cmd = [sys.executable, __file__, "--child", name, variant, str(limit), str(timeout)]
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=limit_cpu,
                          cwd=REPO, check=False)
    if proc.returncode == 0 and proc.stdout.strip():
        return json.loads(proc.stdout.strip().splitlines()[-1])
    verdict = "killed" if proc.returncode in (-9, -24) else "error"
    return {"puzzle": name, "variant": variant, "verdict": verdict, "cpu_s": None,
            "solutions": None, "goal": None, "peak_mb": None,
            "stderr": proc.stderr.strip().splitlines()[-1:] if proc.stderr else []}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        name, variant, limit, timeout = sys.argv[2:6]
        print(json.dumps(run_variant(name, variant, int(limit), float(timeout))))
        return
    parser = argument_parser(__doc__)
    parser.add_argument("--puzzles", default="knotty,faase")
    parser.add_argument("--variants", default=DEFAULT_VARIANTS)
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=100.0, help="CPU seconds per run")
    args = parser.parse_args()
    print(f"limit {args.limit}, timeout {args.timeout:g} s CPU per run, one run at a time")
    print(f"{'puzzle':8} {'variant':28} {'verdict':9} {'cpu s':>8} {'peak MB':>8} goal")
    for name in args.puzzles.split(","):
        for variant in args.variants.split(","):
            row = measure(name, variant, args.limit, args.timeout)
            cpu = "-" if row["cpu_s"] is None else f"{row['cpu_s']:.2f}"
            print(f"{name:8} {variant:28} {row['verdict']:9} {cpu:>8} {row['peak_mb'] or '-':>8} "
                  f"{row['goal']}", flush=True)


if __name__ == "__main__":
    main()
