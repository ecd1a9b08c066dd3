"""nonosat against nonosolve (and Hugi) on the same puzzles, one process at a time (issue 16).

Every figure is CPU seconds (user + sys).  For each set and mode (``2`` = uniqueness, stop after two
solutions; ``1`` = first solution, tournament rules) the script runs, one after the other:

* **nonosat** — one child process (``python bench_peers.py --worker``) that imports nonosat, loads
  the kernels on a 2x2 puzzle, then solves every puzzle in turn in-process and times each with
  ``time.process_time``.  *process CPU* is the whole child (``RUSAGE_CHILDREN``: start-up, import
  and kernel loading included); *puzzles CPU* is the sum of the per-puzzle times.  The child
  ends as ``nonosat`` does (:func:`nonosat.quick_exit.leave`: no interpreter tear-down).
* **nonosolve** (``../shared/peers/nonosolve``, hyouv/FastNonogramSolver) — a tournament set as one
  process (``--taai SET -n N -o SOL --log LOG``; per-puzzle times from its log, its own wall
  clock; with ``--peer-cpu`` each puzzle is also run as its own process and its CPU, minus
  nonosolve's start-up on a 2x2 puzzle, is the per-puzzle time: fair medians on a loaded
  machine); other sets one process per puzzle (per-puzzle CPU from ``RUSAGE_CHILDREN``).
* **hugi** (``--hugi``; meros/hugi, ``--threads 1``) — one process per puzzle, uniqueness mode only
  (Hugi has no first-solution mode).

The ratio printed is nonosat's over nonosolve's, for the whole-process CPU and for the median.
Verdicts are compared per puzzle; any decided verdict that differs from nonosolve's is listed as a
disagreement (a bug to find, not a figure).  Puzzles given to the peers are written as ``.nin``
files (a tournament set as the set file itself), so every solver reads the same clues.

Sets: tournament files by stem (``taai2011``, ``tcga2016``, ``icga2018``, ``icga2023`` …, from
``NonogramRecord/question``), generated TAAI-style sets ``random{N}-{ratio}-s{seed}x{count}``
(``random25-0.45-s11x200``: 200 random 25x25 pictures, black ratio 0.45, seed 11; see
``bench_native_ab.py``), ``survey`` (webpbn survey with Knotty and Faase; give ``--timeout
600``), ``everyday`` (the set of ``run.py``) and ``longlines``: every black-and-white corpus
puzzle with a row or column over 62 cells (the multi-word line masks), whatever its format,
each distinct puzzle once, one row per puzzle printed as well, timeout 300 s a puzzle unless
``--timeout`` says otherwise (nonosolve's timeout is wall-clock, and it needs about 50 s of CPU
on Faase); a puzzle with a line over 510 cells (nonosolve answers ``ERROR``) is solved by
nonosat alone and kept out of the ratio.  A generated set of another size than 25x25
(``random80x95-0.6-s1x10``) is handed to the peers as ``.nin`` files.  Usage::

    python benchmarks/bench_peers.py --sets taai2011 --sample 100 --modes 2,1
    python benchmarks/bench_peers.py --sets taai2011,tcga2016,icga2018,icga2023 --modes 2,1
    python benchmarks/bench_peers.py --sets survey --timeout 600 --hugi
    python benchmarks/bench_peers.py --sets longlines --modes 2,1
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from preamble import CORPUS, REPO, SHARED, argument_parser  # first: puts REPO on sys.path

HERE = REPO / "benchmarks"
ROOT = REPO
QUESTIONS = CORPUS / "NonogramRecord" / "question"
PEERS = SHARED / "peers"
NONOSOLVE = PEERS / "nonosolve"
HUGI = PEERS / "hugi"

_NONOSOLVE_VERDICT = {"UNIQUE": "unique", "MULTIPLE": "multiple", "FOUND": "solved",
                      "NONE": "none", "NO_SOLUTION": "none", "INFEASIBLE": "none",
                      "UNSAT": "none", "CONTRADICTION": "none"}


def children_cpu() -> float:
    """CPU seconds (user + sys) of every waited-for child process so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# --------------------------------------------------------------------------------------- sets
def generated_set(name: str, tmp: Path) -> dict:
    """A generated TAAI-style set ``random{N}-{ratio}-s{seed}x{count}`` (random pictures, clues
    from them: :func:`bench_native_ab.random_set`) as a tournament set file nonosolve reads."""
    from bench_native_ab import random_set

    from nonosat.formats import write_puzzles

    puzzles = random_set(name)
    if any(p.shape != (25, 25) for p in puzzles):  # the tournament format is 25x25 only
        from nonosat.formats import write_puzzle

        folder = tmp / f"{name}-src"
        folder.mkdir(exist_ok=True)
        specs: list[tuple[str, str, int | None]] = []
        for k, p in enumerate(puzzles, start=1):
            write_puzzle(p, folder / f"{k:04d}.nin", format="nin")
            specs.append((f"#{k}", str(folder / f"{k:04d}.nin"), None))
        return file_set(name, specs, tmp)
    file = tmp / f"{name}.txt"
    write_puzzles(puzzles, file, format="tournament")
    return tournament_set(name, None, tmp, path=file)


def tournament_set(stem: str, sample: int | None, tmp: Path, path: Path | None = None) -> dict:
    """A tournament set (optionally every k-th puzzle) as a set file nonosolve reads."""
    path = path or QUESTIONS / f"{stem}.txt"
    if not path.exists():
        raise SystemExit(f"bench_peers: no tournament set {path}")
    text = path.read_text()
    chunks = [c for c in re.split(r"(?m)^(?=\$)", text) if c.strip().startswith("$")]
    if sample:
        step = max(len(chunks) // sample, 1)
        chunks = chunks[::step][:sample]
    file = tmp / f"{stem}.txt"
    file.write_text("".join(c if c.endswith("\n") else c + "\n" for c in chunks))
    numbers = [int(c.split()[0][1:]) for c in chunks]
    return {"name": stem, "kind": "tournament", "file": str(file),
            "puzzles": [(f"#{n}", str(file), n) for n in numbers]}


def file_set(name: str, specs: list[tuple[str, str, int | None]], tmp: Path) -> dict:
    """Puzzles given by (id, path, index), each also written as a ``.nin`` file for the peers.
    Puzzles ``.nin`` cannot hold (colour, unknown clues) are left out of the set and counted in
    ``skipped``: every solver gets the same puzzles."""
    from nonosat.errors import NonosatError
    from nonosat.formats import read_puzzle, write_puzzle

    puzzles = []
    skipped = 0
    folder = tmp / name
    folder.mkdir(exist_ok=True)
    for k, (pid, path, index) in enumerate(specs):
        nin = folder / f"{k:04d}.nin"
        try:
            write_puzzle(read_puzzle(path, index=index), nin, format="nin")
        except NonosatError:
            skipped += 1
            continue
        puzzles.append((pid, str(nin), None))
    if skipped:
        print(f"# {name}: {skipped} puzzle(s) left out (not expressible as .nin: colour or "
              f"unknown clues)", flush=True)
    return {"name": name, "kind": "files", "puzzles": puzzles, "skipped": skipped}


#: A line over this many cells takes the multi-word masks (``nonosat/native/line_words.py``).
LONG_LINE = 62
#: nonosolve (c08a8d9) answers ``ERROR`` at once for a puzzle with a line of 511 cells or more
#: (measured on 510x2 / 511x2 and 2x512 puzzles): such puzzles are solved by nonosat alone.
NONOSOLVE_MAX_LINE = 510
#: Seconds per puzzle of the long-lines set unless ``--timeout`` says otherwise.
LONGLINES_TIMEOUT = 300.0


def longlines_specs() -> tuple[list[tuple[str, str, int | None]], list[str]]:
    """``(id, path, index)`` of every black-and-white corpus puzzle with a row or column over
    :data:`LONG_LINE` cells, in every format nonosat reads, each distinct puzzle once (the first
    file in path order; a copy in another format is listed as a duplicate), and notes on what was
    left out.  ``NonogramRecord/`` is not read: its 30,000 puzzles are all 25x25 (checked)."""
    from nonosat.formats import read_puzzles

    specs: list[tuple[str, str, int | None]] = []
    notes: list[str] = []
    seen: dict[tuple, str] = {}
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or "NonogramRecord" in path.parts:
            continue
        try:
            found = read_puzzles(path)
        except Exception:  # not a puzzle file (README, LICENSE), or a triddler
            continue
        for k, p in enumerate(found, start=1):
            if max(p.width, p.height) <= LONG_LINE:
                continue
            index = (p.number or k) if len(found) > 1 else None
            pid = f"{path.relative_to(CORPUS)}" + (f"#{index}" if index else "")
            if p.is_colour or any(c is None for c in p.lines):
                notes.append(f"{pid} ({p.width}x{p.height}): colour or unknown clues")
                continue
            key = (p.rows, p.cols)
            if key in seen:
                notes.append(f"{pid}: the same clues as {seen[key]}")
                continue
            seen[key] = pid
            specs.append((pid, str(path), index))
    return specs, notes


def longlines_set(tmp: Path) -> dict:
    """The long-lines set (:func:`longlines_specs`) as ``.nin`` files; puzzles with a line over
    :data:`NONOSOLVE_MAX_LINE` cells go to ``alone`` (nonosat only, out of the ratio)."""
    from nonosat.formats import read_puzzle

    specs, notes = longlines_specs()
    s = file_set("longlines", specs, tmp)
    s["notes"] = notes
    s["alone"] = []
    kept = []
    for pid, nin, _ in s["puzzles"]:
        p = read_puzzle(nin)
        if max(p.width, p.height) > NONOSOLVE_MAX_LINE:
            s["alone"].append((pid, nin, None))
            s["notes"].append(f"{pid} ({p.width}x{p.height}): nonosat only, out of the ratio "
                              f"(nonosolve rejects lines over {NONOSOLVE_MAX_LINE} cells)")
        else:
            kept.append((pid, nin, None))
    s["puzzles"] = kept
    s["detail"] = True
    s["timeout"] = LONGLINES_TIMEOUT
    return s


def load_sets(names: list[str], sample: int | None, tmp: Path) -> list[dict]:
    sys.path.insert(0, str(HERE))
    import run  # the set definitions of benchmarks/run.py

    out = []
    for name in names:
        if name == "survey":
            out.append(file_set("survey", run.survey(), tmp))
        elif name == "everyday":
            specs = run.everyday()
            if sample:
                specs = specs[:: max(len(specs) // sample, 1)][:sample]
            out.append(file_set("everyday", specs, tmp))
        elif name == "longlines":
            out.append(longlines_set(tmp))
        elif name.startswith("random"):
            out.append(generated_set(name, tmp))
        else:
            out.append(tournament_set(name, sample, tmp))
    return out


# ------------------------------------------------------------------------------------ solvers
def worker(spec_path: str, out_path: str) -> None:
    """Child process: solve every puzzle of the spec in-process; write per-puzzle rows."""
    spec = json.loads(Path(spec_path).read_text())
    from nonosat.engines import solve
    from nonosat.formats import read_puzzle, read_puzzles
    from nonosat.puzzle import Puzzle

    solve(Puzzle([(1,), ()], [(1,), ()]), spec["engine"], limit=2)  # load the kernels
    rows = []
    sets: dict[str, dict[int, Puzzle]] = {}  # a set file is parsed once, as nonosolve reads it
    for pid, path, index in spec["puzzles"]:
        if index is None:
            puzzle = read_puzzle(path)
        else:
            if path not in sets:
                sets[path] = {p.number or k: p for k, p in enumerate(read_puzzles(path), 1)}
            puzzle = sets[path].get(index) or read_puzzle(path, index=index)
        c0 = time.process_time()
        try:
            status = solve(puzzle, spec["engine"], limit=spec["limit"],
                           timeout=spec["timeout"]).status.value
        except Exception as exc:  # an engine failure is a row, not the end of the run
            status = f"error: {exc}"
        rows.append({"id": pid, "status": status, "cpu_s": time.process_time() - c0})
        if spec.get("progress"):
            print(f"  nonosat {pid}: {status} {rows[-1]['cpu_s']:.3f}s", file=sys.stderr,
                  flush=True)
    Path(out_path).write_text(json.dumps(rows))


def run_nonosat(s: dict, limit: int, args, tmp: Path) -> dict:
    spec = tmp / "spec.json"
    out = tmp / "rows.json"
    spec.write_text(json.dumps({"engine": args.engine, "limit": limit, "timeout": args.timeout,
                                "puzzles": s["puzzles"], "progress": args.progress}))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    c0 = children_cpu()
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", str(spec),
                    str(out)], check=True, env=env)
    return {"process_s": children_cpu() - c0, "rows": json.loads(out.read_text())}


def nonosolve_startup_cpu(tmp: Path, runs: int = 5) -> float:
    """Median CPU seconds of a whole nonosolve process on a 2x2 puzzle: its start-up, which
    :func:`nonosolve_per_puzzle` takes off each puzzle's process CPU."""
    two = tmp / "two.nin"
    two.write_text("2 2\n1\n1\n1\n1\n")
    times = []
    for _ in range(runs):
        c0 = children_cpu()
        subprocess.run([str(NONOSOLVE), "-q", str(two)], capture_output=True)
        times.append(children_cpu() - c0)
    return statistics.median(times)


def nonosolve_per_puzzle(s: dict, limit: int, args, tmp: Path, rows: list[dict]) -> None:
    """Replace the per-puzzle times of a tournament set's ``rows`` (nonosolve's own log: wall
    clock, which a loaded machine inflates) by CPU seconds: one process per puzzle (``.nin``),
    minus the process start-up (:func:`nonosolve_startup_cpu`)."""
    from nonosat.formats import read_puzzles, write_puzzle

    startup = nonosolve_startup_cpu(tmp)
    folder = tmp / "per-puzzle" / s["name"]
    folder.mkdir(parents=True, exist_ok=True)
    puzzles = {p.number or k: p for k, p in enumerate(read_puzzles(s["file"]), 1)}
    by_id = {r["id"]: r for r in rows}
    for pid, _, index in s["puzzles"]:
        nin = folder / f"{pid[1:]}.nin"
        if not nin.exists():
            write_puzzle(puzzles[index], nin, format="nin")
        c0 = children_cpu()
        subprocess.run([str(NONOSOLVE), "-q", "-n", str(limit), "--timeout", str(args.timeout),
                        str(nin)], capture_output=True)
        if pid in by_id:
            by_id[pid]["wall_s"] = by_id[pid]["cpu_s"]
            by_id[pid]["cpu_s"] = max(children_cpu() - c0 - startup, 0.0)


def run_nonosolve(s: dict, limit: int, args, tmp: Path) -> dict:
    if s["kind"] == "tournament":
        log = tmp / "nonosolve.log"
        c0 = children_cpu()
        subprocess.run([str(NONOSOLVE), "--taai", s["file"], "-n", str(limit), "-o",
                        str(tmp / "sol.txt"), "--log", str(log), "--timeout", str(args.timeout)],
                       check=True, stdout=subprocess.DEVNULL)
        process = children_cpu() - c0
        rows = []
        for line in log.read_text().splitlines():
            f = line.split("\t")
            if len(f) >= 3 and f[0].startswith("#"):
                rows.append({"id": f[0], "cpu_s": float(f[1]),
                             "status": _NONOSOLVE_VERDICT.get(f[2], f[2].lower())})
        if args.peer_cpu:
            nonosolve_per_puzzle(s, limit, args, tmp, rows)
        return {"process_s": process, "rows": rows}
    rows = []
    for pid, path, _ in s["puzzles"]:
        c0 = children_cpu()
        p = subprocess.run([str(NONOSOLVE), "-q", "-n", str(limit), "--timeout",
                            str(args.timeout), path], capture_output=True, text=True)
        words = p.stdout.split()
        verdict = next((w for w in words if w in _NONOSOLVE_VERDICT or w.isupper()), "?")
        rows.append({"id": pid, "cpu_s": children_cpu() - c0,
                     "status": _NONOSOLVE_VERDICT.get(verdict, verdict.lower())})
    return {"process_s": sum(r["cpu_s"] for r in rows), "rows": rows}


def run_hugi(s: dict, limit: int, args, tmp: Path) -> dict | None:
    if limit != 2 or not HUGI.exists():
        return None
    rows = []
    paths = s["puzzles"]
    if s["kind"] == "tournament":  # Hugi reads .nin/.non only: one .nin per puzzle
        from nonosat.formats import read_puzzle, write_puzzle

        folder = tmp / "hugi" / s["name"]  # one folder per set: numbers repeat across sets
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for pid, path, index in s["puzzles"]:
            nin = folder / f"{pid[1:]}.nin"
            if not nin.exists():
                write_puzzle(read_puzzle(path, index=index), nin, format="nin")
            paths.append((pid, str(nin), None))
    for pid, path, _ in paths:
        c0 = children_cpu()
        try:
            p = subprocess.run([str(HUGI), path, "--threads", "1"], capture_output=True,
                               text=True, timeout=args.timeout)
            text = (p.stdout + p.stderr).lower()
            status = ("multiple" if "not unique" in text or "several" in text else
                      "unique" if "unique solution" in text else
                      "none" if "no solution" in text or "contradiction" in text else "unknown")
        except subprocess.TimeoutExpired:
            status = "unknown"
        rows.append({"id": pid, "cpu_s": children_cpu() - c0, "status": status})
    return {"process_s": sum(r["cpu_s"] for r in rows), "rows": rows}


# ------------------------------------------------------------------------------------ summary
def summary(solver: str, result: dict) -> dict:
    rows = result["rows"]
    times = sorted(r["cpu_s"] for r in rows)

    def pct(p: float) -> float:
        return times[min(len(times) - 1, int(p * len(times)))] if times else float("nan")

    counts: dict[str, int] = {}
    for r in rows:
        key = r["status"] if not r["status"].startswith("error") else "error"
        counts[key] = counts.get(key, 0) + 1
    return {"solver": solver, "n": len(rows), "process_s": result["process_s"],
            "puzzles_s": sum(times), "median_ms": 1000 * statistics.median(times) if times else 0,
            "p90_ms": 1000 * pct(0.9), "p99_ms": 1000 * pct(0.99), "max_s": times[-1] if times
            else 0, "verdicts": " ".join(f"{k} {v}" for k, v in sorted(counts.items()))}


def per_puzzle(name: str, limit: int, results: dict[str, dict]) -> list[str]:
    """One table row per puzzle and solver (small sets: ``detail``)."""
    out = []
    for solver, res in results.items():
        for r in res["rows"]:
            out.append(f"| {name} | {limit} | {r['id']} | {solver} | {r['cpu_s']:.3f} | "
                       f"{r['status']} |")
    return out


def disagreements(a: dict, b: dict) -> list[str]:
    """Puzzles where both decided and the verdicts differ."""
    decided = {"unique", "multiple", "none", "solved"}
    theirs = {r["id"]: r["status"] for r in b["rows"]}
    out = []
    for r in a["rows"]:
        t = theirs.get(r["id"])
        if t is None:
            out.append(f"{r['id']} (missing from nonosolve's log)")
        elif r["status"] in decided and t in decided and r["status"] != t:
            out.append(f"{r['id']} ({r['status']} vs {t})")
        elif r["status"].startswith("error"):
            out.append(f"{r['id']} ({r['status']})")
    return out


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--sets", default="taai2011,tcga2016,icga2018,icga2023")
    ap.add_argument("--modes", default="2,1", help="solution limits: 2 uniqueness, 1 first")
    ap.add_argument("--sample", type=int, help="every k-th puzzle, N puzzles per set")
    ap.add_argument("--engine", default="auto", help="nonosat engine")
    ap.add_argument("--timeout", type=float,
                    help=f"seconds per puzzle (default 60; longlines {LONGLINES_TIMEOUT:g})")
    ap.add_argument("--hugi", action="store_true", help="also run hugi --threads 1 (limit 2)")
    ap.add_argument("--peer-cpu", action="store_true",
                    help="nonosolve's per-puzzle times of a tournament set as CPU (one process "
                         "per puzzle, start-up taken off) instead of its log's wall clock")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--json", type=Path, help="write every per-puzzle row here")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        from nonosat.quick_exit import leave

        # as the CLI and the batch child leave: flushed, atexit run, no interpreter tear-down
        # (0.1-0.15 s CPU of numba's and LLVM's objects, which would count against nonosat)
        leave(0)
        return
    if not NONOSOLVE.exists():
        raise SystemExit(f"bench_peers: {NONOSOLVE} is missing (see ../shared/peers/README.md)")
    sys.path.insert(0, str(ROOT))
    dump = []
    with tempfile.TemporaryDirectory(prefix="bench_peers_") as t:
        tmp = Path(t)
        sets = load_sets(args.sets.split(","), args.sample, tmp)
        print(f"CPU seconds (user+sys), one process at a time; nonosat engine {args.engine}; "
              f"timeout {args.timeout or 60:g} s (longlines "
              f"{args.timeout or LONGLINES_TIMEOUT:g} s); load average {os.getloadavg()[0]:.2f}")
        for s in sets:
            for note in s.get("notes", []):
                print(f"# {s['name']}: {note}")
        print()
        print("| set | limit | solver | puzzles | process CPU s | puzzles CPU s | median ms | "
              "p90 ms | p99 ms | max s | verdicts | x nonosolve (process) | x median |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        details = []
        for s in sets:
            sargs = argparse.Namespace(**{**vars(args), "timeout": args.timeout or s.get(
                "timeout", 60.0)})
            for limit in (int(m) for m in args.modes.split(",")):
                results = {"nonosolve": run_nonosolve(s, limit, sargs, tmp),
                           "nonosat": run_nonosat(s, limit, sargs, tmp)}
                if args.hugi:
                    h = run_hugi(s, limit, sargs, tmp)
                    if h:
                        results["hugi"] = h
                ref = summary("nonosolve", results["nonosolve"])
                for solver, res in results.items():
                    m = summary(solver, res)
                    ratio = m["process_s"] / ref["process_s"] if ref["process_s"] else 0
                    mratio = m["median_ms"] / ref["median_ms"] if ref["median_ms"] else 0
                    print(f"| {s['name']} | {limit} | {solver} | {m['n']} | {m['process_s']:.2f}"
                          f" | {m['puzzles_s']:.2f} | {m['median_ms']:.1f} | {m['p90_ms']:.1f} | "
                          f"{m['p99_ms']:.1f} | {m['max_s']:.2f} | {m['verdicts']} | "
                          f"{ratio:.2f} | {mratio:.2f} |", flush=True)
                    dump.append({"set": s["name"], "limit": limit, "solver": solver, **res})
                bad = disagreements(results["nonosat"], results["nonosolve"])
                if "hugi" in results:
                    bad += [f"hugi {d}" for d in disagreements(results["hugi"],
                                                               results["nonosolve"])]
                print(f"| {s['name']} | {limit} | disagreements with nonosolve: {len(bad)} "
                      f"{'; '.join(bad[:10])} |||||||||||", flush=True)
                if s.get("detail"):
                    details += per_puzzle(s["name"], limit, results)
                if s.get("alone"):
                    alone = run_nonosat({**s, "puzzles": s["alone"]}, limit, sargs, tmp)
                    details += per_puzzle(s["name"], limit, {"nonosat": alone})
                    dump.append({"set": s["name"], "limit": limit, "solver": "nonosat alone",
                                 **alone})
        if details:
            print()
            print(f"nonosolve's per-puzzle CPU below is its whole process; its start-up (a 2x2 "
                  f"puzzle, median of 5) is {nonosolve_startup_cpu(tmp):.3f} s. nonosat's is "
                  f"the solve alone (its start-up is in the process CPU above).")
            print("| set | limit | puzzle | solver | CPU s | verdict |")
            print("|---|---|---|---|---|---|")
            print("\n".join(details))
    if args.json:
        args.json.write_text(json.dumps(dump))


if __name__ == "__main__":
    main()
