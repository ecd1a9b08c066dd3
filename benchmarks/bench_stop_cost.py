"""What the stop flag costs the compiled search, in instructions (issue 27: "measure that the hot
path costs at most 2% more").

The compiled search reads its stop flag (:attr:`nonosat.stop.StopToken.flag`, ``flag[0]``) at
every node (``search_kernel``) and before every probe (``probe_tracked``).  Wall-clock A/B runs
cannot show 2% through the noise of a loaded machine; instruction counts do not depend on load.
So this script runs the same puzzles under ``valgrind --tool=callgrind`` in two copies of the
source tree, made in a scratch folder:

* **A**: this checkout's ``nonosat/`` as it is;
* **B**: the same copy with every compiled read of the flag replaced by the constant ``False``
  (:data:`FLAG_READ` -> ``False`` in ``nonosat/native/*.py``: numba prunes the dead branch, so B
  is the kernels without the flag).  The patch is listed (file, line, text) when B is built.

Each copy has its own numba cache (numba keeps it in ``__pycache__`` beside the source file, and
the copies are made without one).  Under valgrind the kernels are compiled for the CPU valgrind
presents (no AVX-512: numba's cache key holds the CPU name and features), so a first run compiles
them under valgrind, once per tree (20 minutes on a loaded 2-core machine); ``--scratch DIR
--reuse`` keeps the trees and their caches for the next run.  A and B are compiled for the same
target, so the comparison is like for like, though not the host's exact machine code.

Each worker process (``PYTHONPATH=copy``) imports the package, loads the kernels on a tiny puzzle,
builds the puzzles, and then solves them (a full run) or not (an empty run, the baseline: the
interpreter, numba's import, the cache loading and the puzzles' construction).  The figure is
full minus empty: the instructions of the solves themselves, almost all of it compiled code.  A
solve is the native engine's (:class:`nonosat.engines.native.NativeEngine`): a fresh
:func:`nonosat.stop.for_solve` token, :class:`nonosat.native.search.NativeSearch` with limit 2
(uniqueness), run to the end; only the slicing is by node count instead of by the clock
(``slice_s`` huge: 1, 2, 4 ... nodes a call), so that A and B make the same calls whatever
valgrind's slowdown.  A and B must make the same probes and nodes on every puzzle (checked).

Besides callgrind's total, the instructions executed in code without a symbol (numba's compiled
kernels are loaded into anonymous memory: callgrind's object ``???``) are summed from the
callgrind file: the kernels' own instructions, without any Python at all.

The puzzles: the first ``--random`` TAAI-style random 25x25 pictures (each cell black with
probability 0.45 or 0.40, alternately, numpy's default generator seeded with ``--seed``) whose
uniqueness search needs at least one decision (chosen with tree A, outside valgrind), and every
``--taai-step``-th puzzle of taai2011 from ``--taai-start`` (``--taai`` of them).

Also ``--latency`` (no valgrind): the wall time from a stop token set 50 ms into a hard solve to
the solve's return, in A (the flag stops the kernel within a probe) and in B (only the token
polled between two compiled calls, slices of about 20 ms, stops it), in ``--rounds`` rounds
alternating the trees' order, with the load average.

Usage::

    nice -n 10 python benchmarks/bench_stop_cost.py --scratch /tmp/stopcost --reuse
    python benchmarks/bench_stop_cost.py --scratch /tmp/stopcost --reuse --latency --rounds 5
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from preamble import REPO, TAAI2011, argument_parser

#: The compiled read of the stop flag, as it is written in every kernel.
FLAG_READ = "stop[0] != 0"
#: Modules whose compiled code may read the flag (pure-Python reads, e.g. ``self.stop[0]``, are
#: not kernels and are left alone: the pattern matches ``stop[0]`` only as a whole name).
NATIVE = "nonosat/native"
_READ = re.compile(r"(?<![\w.])stop\[0\] != 0")


# --------------------------------------------------------------------------------------------
# the two trees


def copy_tree(dest: Path) -> None:
    """``REPO/nonosat`` copied to ``dest/nonosat`` without any ``__pycache__`` (so no numba
    cache is shared with this checkout or with the other copy)."""
    shutil.copytree(REPO / "nonosat", dest / "nonosat",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))


def patch_without_flag(tree: Path) -> list[tuple[str, int, str]]:
    """Replace every compiled flag read under ``tree/nonosat/native`` by ``False``; returns the
    ``(file, line, text)`` of each read replaced."""
    removed = []
    for path in sorted((tree / NATIVE).glob("*.py")):
        lines = path.read_text().splitlines(keepends=True)
        changed = False
        for k, line in enumerate(lines):
            if _READ.search(line) and not line.lstrip().startswith("#") and "``" not in line:
                removed.append((f"{NATIVE}/{path.name}", k + 1, line.strip()))
                lines[k] = _READ.sub("False", line)
                changed = True
        if changed:
            path.write_text("".join(lines))
    return removed


def build(scratch: Path) -> tuple[Path, Path, list[tuple[str, int, str]]]:
    """Trees A and B under ``scratch`` (see the module docstring)."""
    a, b = scratch / "A", scratch / "B"
    copy_tree(a)
    copy_tree(b)
    removed = patch_without_flag(b)
    if not any("search.py" in f for f, _, _ in removed) or not any(
            "probe.py" in f for f, _, _ in removed):
        raise SystemExit(f"bench: expected flag reads in search.py and probe.py, found {removed}")
    return a, b, removed


# --------------------------------------------------------------------------------------------
# the worker (runs inside one tree, maybe under valgrind)


def random_puzzles(seed: int, count: int):
    """``count`` random 25x25 puzzles, cells black with probability 0.45 and 0.40 alternately."""
    import numpy as np

    from nonosat.puzzle import Puzzle

    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        picture = rng.random((25, 25)) < (0.45 if k % 2 == 0 else 0.40)
        out.append((f"r{seed}#{k}", Puzzle.from_picture(picture)))
    return out


def taai_puzzles(start: int, step: int, count: int):
    from nonosat.formats import read_puzzles

    if count <= 0:
        return []
    puzzles = read_puzzles(TAAI2011)
    return [(f"taai2011#{puzzles[k].number or k + 1}", puzzles[k])
            for k in range(start, len(puzzles), step)][:count]


def solve(puzzle, stop=None, max_probes=None):
    """The native engine's solve (see the module docstring): ``(stats, solutions, finished)``;
    ``max_probes``: give up after about that many probes (choosing the set)."""
    from nonosat.native.search import NativeSearch
    from nonosat.stop import for_solve

    with for_solve(stop, None) as token:
        search = NativeSearch(puzzle, limit=2, stop=token)
        if max_probes is not None:
            search.run_probes(max_probes)
            outcome = search.outcome()
        else:
            outcome = search.run(None, slice_s=1e9)
    return outcome.stats, len(outcome.solutions), outcome.finished


def worker(spec: dict) -> dict:
    # the tree is PYTHONPATH's, not this checkout (which the preamble put first on the path)
    while str(REPO) in sys.path:
        sys.path.remove(str(REPO))
    import nonosat
    from nonosat.puzzle import Puzzle

    if Path(nonosat.__file__).resolve().parents[1] != Path(os.environ["PYTHONPATH"]).resolve():
        raise SystemExit(f"bench: worker imported {nonosat.__file__}, not the tree's")

    solve(Puzzle([(1,), (1,)], [(1,), (1,)]))  # loads every kernel the search calls
    puzzles = random_puzzles(spec["seed"], spec["candidates"])
    if spec["pick"] is not None:
        puzzles = [puzzles[k] for k in spec["pick"]]
    puzzles += taai_puzzles(spec["taai_start"], spec["taai_step"], spec["taai"])
    rows = []
    shim = None
    if os.environ.get("STOPCOST_SHIM"):  # under callgrind: instrument the solves only
        import ctypes

        shim = ctypes.CDLL(os.environ["STOPCOST_SHIM"])
        # the empty run: the same calls around no solve (dumped apart: the baseline)
        shim.cg_start()
        for _pid, _puzzle in puzzles[:0]:
            pass
        shim.cg_stop()
        shim.cg_dump(b"empty")
        shim.cg_start()
    for pid, puzzle in puzzles:
        stats, nsol, finished = solve(puzzle, max_probes=spec.get("max_probes"))
        rows.append({"id": pid, "probes": stats["probes"], "nodes": stats["guesses"],
                     "line_solves": stats["line_solves"], "solutions": nsol,
                     "finished": finished, "kernel_s": stats["kernel_s"]})
    if shim is not None:
        shim.cg_stop()
        shim.cg_dump(b"full")
    return {"rows": rows, "count": len(puzzles)}


#: The client requests that switch callgrind's instrumentation on and off (``valgrind/callgrind.h``):
#: callgrind runs with ``--instr-atstart=no``, so the start-up (numba's import, the cache loading)
#: runs uninstrumented, several times faster, and is not counted at all.
SHIM = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void cg_dump(const char *what) { CALLGRIND_DUMP_STATS_AT(what); }
"""


def build_shim(scratch: Path) -> Path:
    """The client-request library (``gcc`` and ``valgrind/callgrind.h`` are needed)."""
    src, lib = scratch / "cgshim.c", scratch / "cgshim.so"
    src.write_text(SHIM)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return lib


def run_worker(tree: Path, spec: dict, valgrind_out: Path | None = None,
               shim: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    if valgrind_out is not None and shim is not None:
        env["STOPCOST_SHIM"] = str(shim)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, __file__, "--worker", json.dumps(spec), str(out)]
        if valgrind_out is not None:
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={valgrind_out}",
                   f"--instr-atstart={'no' if shim else 'yes'}",
                   "--dump-line=no", "--compress-strings=no", "--compress-pos=no"] + cmd
        subprocess.run(cmd, check=True, env=env, cwd=tmp, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL if valgrind_out is not None else None)
        return json.loads(out.read_text())


# --------------------------------------------------------------------------------------------
# callgrind files


def dump_of(out: Path, what: str) -> Path:
    """The dump ``CALLGRIND_DUMP_STATS_AT(what)`` wrote (``out.N``, one per dump)."""
    for path in sorted(out.parent.glob(out.name + ".*")):
        with path.open(errors="replace") as f:
            head = "".join(f.readline() for _ in range(20))
        if f"Client Request: {what}" in head:
            return path
    raise SystemExit(f"bench: no callgrind dump {what!r} beside {out}")


def callgrind_counts(path: Path) -> tuple[int, int]:
    """``(total, anonymous)``: all instructions of a callgrind file (uncompressed names), and
    those executed in functions of the object ``???`` (code without a file: numba's kernels)."""
    total = anon = 0
    obj = ""
    in_call = False
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            total = max(total, int(line.split()[1]))
        elif line.startswith("ob="):
            obj = line[3:].strip()
        elif line.startswith("calls="):
            in_call = True  # the next cost line is a call's inclusive cost: not self cost
        elif line[:1].isdigit() or line[:1] in "+-*":
            if in_call:
                in_call = False
            elif obj == "???":
                parts = line.split()
                if len(parts) >= 2:
                    anon += int(parts[1])
    return total, anon


# --------------------------------------------------------------------------------------------
# latency


def hard_puzzles() -> list:
    """The stop-latency puzzles: the 60x60 random picture of ``tests/test_native_stop.py`` (its
    nodes probe for tens of milliseconds), and a random 25x25 the search does not decide within seconds
    (nodes of a few milliseconds)."""
    import numpy as np

    from nonosat.puzzle import Puzzle

    picture = np.random.default_rng(0).random((60, 60)) < 0.5
    return [("random60 (test_native_stop)", Puzzle.from_picture(picture)),
            ("random25 r2027#2", random_puzzles(2027, 3)[2][1])]


def latency_worker(spec: dict) -> dict:
    """Inside one tree: for each hard puzzle, the wall time from a token set ``delay`` s into the
    solve to the solve's return.  The driver is :meth:`NativeSearch.run`'s loop (slices of about
    20 ms) with the token also polled between two compiled calls, so that a tree whose kernels
    do not read the flag (B) stops at the end of the call it is in."""
    import threading

    while str(REPO) in sys.path:
        sys.path.remove(str(REPO))
    from nonosat.native.search import NativeSearch
    from nonosat.puzzle import Puzzle
    from nonosat.stop import StopToken

    solve(Puzzle([(1,), (1,)], [(1,), (1,)]))
    out = {}
    for name, puzzle in hard_puzzles():
        token = StopToken()
        search = NativeSearch(puzzle, limit=2, stop=token)
        t_set: list[float] = []

        def cancel(token=token, t_set=t_set):
            t_set.append(time.perf_counter())
            token.set()

        timer = threading.Timer(spec["delay"], cancel)
        chunk, finished = 1, False
        timer.start()
        t0 = time.perf_counter()
        while True:
            c0 = time.perf_counter()
            if search.step(chunk) or token.is_set():
                finished = search.finished
                break
            took = time.perf_counter() - c0
            if took < 0.01:
                chunk = min(chunk * 2, 1 << 20)
            elif took > 0.04 and chunk > 1:
                chunk = max(chunk // 2, 1)
        t_end = time.perf_counter()
        timer.join()
        out[name] = {"after_set_ms": (t_end - t_set[0]) * 1000 if t_set else None,
                     "total_ms": (t_end - t0) * 1000, "finished": finished,
                     "stopped": search.stopped}
    return out


def latency(trees: list[tuple[str, Path]], rounds: int, delay: float) -> None:
    """Interleaved rounds of :func:`latency_worker` in each tree (one process each)."""
    print(f"stop latency: token set {delay * 1000:.0f} ms into the solve, {rounds} rounds, "
          f"trees alternating; load {os.getloadavg()[0]:.2f}")
    got: dict[tuple[str, str], list[float]] = {}
    for r in range(rounds):
        order = trees if r % 2 == 0 else trees[::-1]
        for name, tree in order:
            res = run_worker(tree, {"latency": True, "delay": delay})
            for pname, row in res.items():
                if row["finished"]:
                    raise SystemExit(f"bench: {pname} finished before the stop in {name}")
                got.setdefault((name, pname), []).append(row["after_set_ms"])
    for (name, pname), waits in sorted(got.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        waits.sort()
        print(f"  {name} {pname:<28} set -> return: median {statistics.median(waits):7.2f} ms, "
              f"min {waits[0]:7.2f}, max {waits[-1]:7.2f}")
    print(f"  load average at the end {os.getloadavg()[0]:.2f}")


# --------------------------------------------------------------------------------------------


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--random", type=int, default=20, help="random 25x25 puzzles needing search")
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--taai", type=int, default=3)
    ap.add_argument("--taai-start", type=int, default=3)
    ap.add_argument("--taai-step", type=int, default=97)
    ap.add_argument("--max-probes", type=int, default=20_000,
                    help="skip random puzzles needing more probes (bounds the run time)")
    ap.add_argument("--scratch", help="folder for the trees (default: a temporary one)")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse the trees (and their compiled kernels) already in --scratch")
    ap.add_argument("--latency", action="store_true", help="only the stop latency")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--worker", nargs=2, help=argparse_suppress())
    args = ap.parse_args()
    if args.worker:
        spec = json.loads(args.worker[0])
        result = latency_worker(spec) if spec.get("latency") else worker(spec)
        Path(args.worker[1]).write_text(json.dumps(result))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("bench: valgrind is not installed")
    scratch_ctx = tempfile.TemporaryDirectory(prefix="stopcost-")
    scratch = Path(args.scratch) if args.scratch else Path(scratch_ctx.name)
    scratch.mkdir(parents=True, exist_ok=True)
    a, b = scratch / "A", scratch / "B"
    if args.reuse and a.is_dir() and b.is_dir():
        print(f"trees A and B of {scratch} reused")
    else:
        for tree in (a, b):
            shutil.rmtree(tree, ignore_errors=True)
        a, b, removed = build(scratch)
        print(f"B: {len(removed)} flag reads replaced by False:")
        for f, n, text in removed:
            print(f"  {f}:{n}: {text}")
    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:  # compile (or load) both trees' kernels
        list(pool.map(lambda tree: run_worker(tree, {"latency": True, "delay": 0.0}), (a, b)))
    print(f"kernels of A and B ready in {time.perf_counter() - t0:.0f} s", flush=True)
    if args.latency:
        latency([("A", a), ("B", b)], args.rounds, args.delay)
        return
    # the random puzzles, chosen with A (no valgrind) by probe counts: the same set on any machine
    t0 = time.perf_counter()
    cand = 4 * args.random
    spec = {"seed": args.seed, "candidates": cand, "pick": None, "taai": 0,
            "max_probes": args.max_probes, "taai_start": args.taai_start,
            "taai_step": args.taai_step, "solve": True}
    rows = run_worker(a, spec)["rows"]
    pick = [k for k, r in enumerate(rows) if r["finished"] and r["nodes"] >= 1][: args.random]
    print(f"set: {len(pick)} of the first {cand} random 25x25 (seed {args.seed}) needing search "
          f"and <= {args.max_probes} probes, + {args.taai} taai2011 (from #{args.taai_start + 1}, "
          f"every {args.taai_step}th); chosen in {time.perf_counter() - t0:.0f} s", flush=True)
    spec = dict(spec, pick=pick, taai=args.taai, max_probes=None)
    shim = build_shim(scratch)
    results = {}

    def measure(job):
        name, tree = job
        t0 = time.perf_counter()
        out = scratch / f"callgrind.{name}"
        res = run_worker(tree, spec, out, shim)
        for mode in ("empty", "full"):
            total, anon = callgrind_counts(dump_of(out, mode))
            results[name, mode] = (total, anon, res)
            print(f"  {name} {mode}: {total:,} instructions ({anon:,} in compiled kernels)")
        print(f"  {name}: {time.perf_counter() - t0:.0f} s under valgrind, "
              f"load {os.getloadavg()[0]:.2f}", flush=True)

    # counts do not depend on load: A and B side by side
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(measure, [("A", a), ("B", b)]))
    ra, rb = results["A", "full"][2]["rows"], results["B", "full"][2]["rows"]
    keys = ("probes", "nodes", "line_solves", "solutions", "finished")
    same = [x["id"] for x, y in zip(ra, rb, strict=True)
            if any(x[k] != y[k] for k in keys)]
    n = len(ra)
    probes = sum(r["probes"] for r in ra)
    nodes = sum(r["nodes"] for r in ra)
    print(f"{n} puzzles: {probes:,} probes, {nodes:,} nodes in A; "
          f"A and B {'make the same probes, nodes and line solves' if not same else 'DIFFER on ' + ', '.join(same)}")
    print(f"{'':>28}{'A (flag)':>16}{'B (no flag)':>16}{'A/B':>9}")
    for label, idx in (("whole process - empty", 0), ("compiled kernels only", 1)):
        fa = results["A", "full"][idx] - results["A", "empty"][idx]
        fb = results["B", "full"][idx] - results["B", "empty"][idx]
        print(f"{label:>28}{fa:>16,}{fb:>16,}{fa / fb:>9.5f}")
        print(f"{'  per puzzle':>28}{fa // n:>16,}{fb // n:>16,}")
        print(f"{'  per probe':>28}{fa // probes:>16,}{fb // probes:>16,}"
              f"   (A - B: {(fa - fb) / probes:.1f} a probe, {(fa - fb) / max(nodes, 1):.1f} a node)")
    if not args.scratch:
        scratch_ctx.cleanup()


def argparse_suppress() -> str:
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
