"""Colour puzzles: the generic colour kernels against the black-and-white ones, the colour corpus
against pbnsolve, and black-and-white speed before and after the colour change (same-run A/B).

Sections (``--sections``, comma-separated; all by default):

``line``
    Kernel cost per line on random black-and-white lines (random pictures of ``n`` cells, 30% of
    the cells revealed): the bit-parallel BW kernel, the BW dynamic programme, and the generic
    colour DP given the same lines as two colours.  Each kernel runs inside a compiled loop over
    all lines, so Python call overhead is not counted.  Then whole solves of a taai2011 sample:
    the BW native engine against the generic colour search (propagation, probing, search)
    applied to the same black-and-white puzzles.
``corpus``
    Every colour puzzle of the corpus (``pbnsolve-examples/*.g``, number-loom colour puzzles,
    webpbn #47 and #220): the verdict of each engine (native, sat, cpsat, auto), their
    in-process times (median of ``--runs`` after a warm-up), and ``pbnsolve -b -u`` as an
    independent reference (its verdict, and its process wall time, median of ``--runs``).
``bw``
    Same-run A/B of black-and-white solving: the tree at ``--base`` (default ``b45bf03``, the
    commit before colour; exported with ``git archive`` to a temporary directory) against this
    tree, alternately, each in its own process, on every 20th taai2011 puzzle (50; limit 2), with
    the engines ``auto`` (30 s cap), ``native`` (2 s cap: the native search alone leaves a
    few random 25x25 puzzles open) and ``cpsat`` (10 s cap; its model is now the colour model
    given two colours); process CPU seconds of the solving loop (after one warm-up
    puzzle).

Usage::

    python benchmarks/bench_colour.py [--sections line,corpus,bw] [--runs 3] [--rounds 2]
"""

from __future__ import annotations

import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from preamble import CORPUS, REPO, SHARED, argument_parser  # first: puts REPO on sys.path

ROOT = REPO
PBNSOLVE = SHARED / "peers" / "pbnsolve"
TAAI = CORPUS / "NonogramRecord" / "question" / "taai2011.txt"


# -- line kernels ------------------------------------------------------------------------------
def bench_line(lines_per_size: int = 4000) -> None:
    import numpy as np
    from numba import njit

    from nonosat.native.colour import colour_line_kernel
    from nonosat.native.line import line_kernel_bits, line_kernel_dp
    from nonosat.puzzle import line_blocks

    @njit(cache=False)
    def run_bits(clues, starts, cells, out, reps):  # pragma: no cover - compiled
        ok = 0
        scratch = np.empty(64, np.int64)
        for _ in range(reps):
            for i in range(cells.shape[0]):
                ok += line_kernel_bits(clues[starts[i]:starts[i + 1]], cells[i], out, scratch)
        return ok

    @njit(cache=False)
    def run_dp(clues, starts, cells, out, reps):  # pragma: no cover - compiled
        ok = 0
        for _ in range(reps):
            for i in range(cells.shape[0]):
                ok += line_kernel_dp(clues[starts[i]:starts[i + 1]], cells[i], out)
        return ok

    @njit(cache=False)
    def run_colour(clues, colours, starts, cells, out, reps):  # pragma: no cover - compiled
        ok = 0
        for _ in range(reps):
            for i in range(cells.shape[0]):
                ok += colour_line_kernel(
                    clues[starts[i]:starts[i + 1]], colours[starts[i]:starts[i + 1]],
                    cells[i], out, 2,
                )
        return ok

    rng = np.random.default_rng(1)
    print("## line kernels on black-and-white lines (ns per line, compiled loop)\n")
    print("| n | bits (BW) | DP (BW) | colour DP on 2 colours | colour / bits | colour / DP |")
    print("|---|---|---|---|---|---|")
    for n in (10, 20, 30, 50):
        flat: list[int] = []
        starts = [0]
        cells8 = np.empty((lines_per_size, n), np.int8)
        for i in range(lines_per_size):
            pic = rng.random(n) < 0.55
            flat.extend(line_blocks(pic))
            starts.append(len(flat))
            reveal = rng.random(n) < 0.3
            cells8[i] = np.where(reveal, np.where(pic, 2, 1), 3)
        clues = np.array(flat, np.int32)
        colours = np.ones_like(clues)
        st = np.array(starts, np.int32)
        cells32 = cells8.astype(np.int32)
        out8 = np.empty(n, np.int8)
        out32 = np.empty(n, np.int32)
        run_bits(clues, st, cells8, out8, 1)
        run_dp(clues, st, cells8, out8, 1)
        run_colour(clues, colours, st, cells32, out32, 1)
        reps = 20
        times = {}
        for name, fn, args in (
            ("bits", run_bits, (clues, st, cells8, out8, reps)),
            ("dp", run_dp, (clues, st, cells8, out8, reps)),
            ("colour", run_colour, (clues, colours, st, cells32, out32, reps)),
        ):
            best = float("inf")
            for _ in range(3):
                t = time.perf_counter()
                fn(*args)
                best = min(best, time.perf_counter() - t)
            times[name] = best / (reps * lines_per_size) * 1e9
        print(
            f"| {n} | {times['bits']:.0f} | {times['dp']:.0f} | {times['colour']:.0f} | "
            f"{times['colour'] / times['bits']:.1f}x | {times['colour'] / times['dp']:.1f}x |"
        )
    print()


def bench_bw_search(sample: int) -> None:
    """The BW native engine against the generic colour search on the same BW puzzles."""
    from nonosat.engines import solve
    from nonosat.formats import read_puzzles
    from nonosat.native.colour import colour_search

    puzzles = read_puzzles(TAAI)[::10][:sample]
    solve(puzzles[0], "native")
    colour_search(puzzles[0])
    rows = []
    for engine in ("native BW", "colour search"):
        total = 0.0
        undecided = 0
        for p in puzzles:
            t = time.process_time()
            if engine == "native BW":
                r = solve(p, "native", limit=2, timeout=10)
                done = r.status.value != "unknown"
            else:
                o = colour_search(p, limit=2, timeout=10)
                done = o.finished
            total += time.process_time() - t
            undecided += not done
        rows.append((engine, total, undecided))
    rows += _generic_models_on_bw(puzzles)
    print(f"## whole solves, {len(puzzles)} taai2011 puzzles (every 10th), limit 2, 10 s cap\n")
    print("| solver | CPU s | undecided |")
    print("|---|---|---|")
    for engine, total, undecided in rows:
        print(f"| {engine} | {total:.2f} | {undecided} |")
    print()


def _generic_models_on_bw(puzzles) -> list[tuple[str, float, int]]:
    """SAT and CP-SAT: the black-and-white models against the colour models given the same
    black-and-white puzzles (two colours)."""
    import time as _time

    from ortools.sat.python import cp_model

    from nonosat.encodings.cpsat_model import build_colour_model
    from nonosat.engines import solve
    from nonosat.engines.cpsat import _Collector, solver_parameters
    from nonosat.engines.sat import SatEngine

    def cpsat_colour(p):
        built = build_colour_model(p)
        solver = cp_model.CpSolver()
        solver_parameters(solver, 10)
        collector = _Collector(built.cells, 2)
        collector.colour = True
        status = solver.solve(built.model, collector)
        return status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) or len(collector.solutions) >= 2

    sat = SatEngine()
    runs = {
        "sat BW (order encoding)": lambda p: solve(p, "sat", limit=2, timeout=10).status.value
        != "unknown",
        "sat colour encoding on BW": lambda p: sat._solve_colour(
            p, None, 2, _time.perf_counter() + 10, _time.perf_counter()
        ).status.value != "unknown",
        "cpsat BW (Boolean automata)": lambda p: solve(p, "cpsat", limit=2, timeout=10)
        .status.value != "unknown",
        "cpsat colour model on BW": cpsat_colour,
    }
    rows = []
    for name, fn in runs.items():
        fn(puzzles[0])
        total, undecided = 0.0, 0
        for p in puzzles:
            t = time.process_time()
            done = fn(p)
            total += time.process_time() - t
            undecided += not done
        rows.append((name, total, undecided))
    return rows


# -- colour corpus -----------------------------------------------------------------------------
def colour_files() -> list[Path]:
    files = [Path(p) for p in sorted(glob.glob(str(CORPUS / "pbnsolve-examples" / "*.g")))]
    files += [Path(p) for p in sorted(glob.glob(str(CORPUS / "number-loom" / "puzzles" / "*.xml")))]
    files += [
        CORPUS / "number-loom" / "examples" / "wolter" / f"webpbn-color-{n}.xml"
        for n in ("00047", "00220")
    ]
    return files


def bench_corpus(runs: int) -> None:
    from nonosat.engines import solve
    from nonosat.errors import FormatError
    from nonosat.formats import read_puzzle

    engines = ("native", "sat", "cpsat", "auto")
    rows = []
    for path in colour_files():
        try:
            puzzle = read_puzzle(path)
        except FormatError:
            continue  # the triddler
        if not puzzle.is_colour:
            continue
        verdicts, times = {}, {}
        for engine in engines:
            solve(puzzle, engine)  # warm-up
            samples = []
            for _ in range(runs):
                t = time.perf_counter()
                r = solve(puzzle, engine, limit=2, timeout=60)
                samples.append(time.perf_counter() - t)
            verdicts[engine] = r.status.value
            times[engine] = statistics.median(samples)
        ref, ref_t = pbnsolve(path, runs)
        rows.append((path.name, puzzle, verdicts, times, ref, ref_t))
    print(f"## colour corpus ({len(rows)} puzzles), in-process seconds (median of {runs})\n")
    print("| puzzle | size | colours | verdicts n/s/c/a | native | sat | cpsat | auto | pbnsolve "
          "(process) | pbnsolve says |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, p, v, t, ref, ref_t in rows:
        vv = "/".join(v[e] for e in engines)
        print(
            f"| {name} | {p.width}x{p.height} | {len(p.palette) - 1} | {vv} | "
            + " | ".join(f"{t[e] * 1000:.1f} ms" for e in engines)
            + f" | {ref_t * 1000:.1f} ms | {ref} |"
        )
    agree = all(len(set(v.values())) == 1 for _, _, v, _, _, _ in rows)
    ref_ok = all(ref.startswith(v["native"]) for _, _, v, _, ref, _ in rows)
    print()
    for e in engines:
        med = statistics.median(t[e] for _, _, _, t, _, _ in rows)
        print(f"median {e}: {med * 1000:.1f} ms")
    med_ref = statistics.median(r for *_, r in rows)
    print(f"median pbnsolve (whole process): {med_ref * 1000:.1f} ms")
    best = min(statistics.median(t[e] for _, _, _, t, _, _ in rows) for e in engines)
    print(f"fastest engine's median / pbnsolve's median: {best / med_ref:.2f}")
    print(f"all engines agree: {agree}; every verdict matches pbnsolve's: {ref_ok}\n")


def pbnsolve(path: Path, runs: int) -> tuple[str, float]:
    """pbnsolve's verdict (``unique``/``multiple``/...) and median wall seconds of its process."""
    if not PBNSOLVE.exists():
        return "n/a", float("nan")
    samples = []
    verdict = "?"
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run([str(PBNSOLVE), "-b", "-u", str(path)], capture_output=True,
                             text=True, timeout=120)
        samples.append(time.perf_counter() - t)
        lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
        verdict = lines[-1].strip() if lines else "?"
    return verdict, statistics.median(samples)


# -- black-and-white A/B -----------------------------------------------------------------------
_AB_SCRIPT = r"""
import json, sys, time
from nonosat.formats import read_puzzles
from nonosat.engines import solve
puzzles = read_puzzles(sys.argv[1])[::20]
out = {}
for engine, cap in (("auto", 30), ("native", 2), ("cpsat", 10)):
    solve(puzzles[0], engine)
    t = time.process_time()
    verdicts = [solve(p, engine, limit=2, timeout=cap).status.value for p in puzzles]
    out[engine] = [time.process_time() - t, verdicts]
print(json.dumps(out))
"""


def bench_bw_ab(base: str, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", base], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {"base " + base: tmp, "colour (this tree)": str(ROOT)}
        results: dict[str, list[dict]] = {k: [] for k in trees}
        for _ in range(rounds + 1):  # the first round compiles each tree's kernels
            for name, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=tree)
                proc = subprocess.run([sys.executable, "-c", _AB_SCRIPT, str(TAAI)], env=env,
                                      capture_output=True, text=True, check=True, cwd=tree)
                results[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"## black-and-white A/B: every 20th taai2011 puzzle (50), limit 2, CPU s of the "
          f"solving loop, {rounds} alternated rounds after a compiling one\n")
    engines = ("auto", "native", "cpsat")
    print("| tree | " + " | ".join(f"{e} (per round)" for e in engines) + " |")
    print("|---|---|---|---|")
    for name, runs in results.items():
        cells = [" / ".join(f"{r[e][0]:.2f}" for r in runs[1:]) for e in engines]
        print(f"| {name} | " + " | ".join(cells) + " |")
    a, b = (list(results.values())[k][-1] for k in (0, 1))
    same = all(a[e][1] == b[e][1] for e in engines)
    print(f"\nidentical verdicts in both trees: {same}\n")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--sections", default="line,corpus,bw")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--base", default="b45bf03")
    parser.add_argument("--sample", type=int, default=50, help="taai2011 puzzles for the "
                        "whole-solve comparison of the line section")
    args = parser.parse_args()
    sections = args.sections.split(",")
    print(f"# bench_colour ({time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.1f})\n")
    if "line" in sections:
        bench_line()
        bench_bw_search(args.sample)
    if "corpus" in sections:
        bench_corpus(args.runs)
    if "bw" in sections:
        bench_bw_ab(args.base, args.rounds)


if __name__ == "__main__":
    main()
