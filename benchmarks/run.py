"""Engines over named puzzle sets: decided, total / median / p90 / p99 / max time, peak memory,
and verdict counts, printed as a table (and optionally appended to RESULTS.md).

Sets (read from ../shared/corpus):

* ``everyday``   — jwilk-nonogram, Nonogram/games, picross-solver/inputs (black and white);
* ``tournament`` — NonogramRecord/question/taai2011.txt (or ``--tournament FILE``), in two modes:
  first solution only (``--limit 1``, tournament rules) and uniqueness (``--limit 2``);
* ``survey``     — the webpbn survey puzzles (FastNonogramSolver/puzzles/survey, number-loom
  wolter XML) and 9-Dom from picross-solver/inputs/domino_logic.txt.

Each (set, engine, mode) runs in a fresh worker process so that the peak resident memory it
reports (``ru_maxrss``) belongs to that run alone; times are measured in-process around the
engine call (kernels are compiled/loaded once per worker before timing), both as CPU time of the
process (``--clock cpu``, the default: robust when other work shares the machine; every engine
runs in-process, CP-SAT on one worker) and as wall-clock time.

Usage::

    python benchmarks/run.py --sets everyday,tournament --engines native,auto
    python benchmarks/run.py --sets tournament --engines native --sample 100 --timeout 60
    python benchmarks/run.py --sets survey --timeout 600 --record   # append to RESULTS.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from preamble import CORPUS, REPO  # first: puts REPO on sys.path


def everyday() -> list[tuple[str, str, int | None]]:
    """(id, path, index) of the everyday set."""
    from nonosat.formats import detect_format, read_bytes, read_puzzles

    out = []
    for folder in ("jwilk-nonogram", "Nonogram/games", "picross-solver/inputs"):
        for path in sorted((CORPUS / folder).rglob("*")):
            if not path.is_file() or path.suffix.lower() in (".md", "") or "README" in path.name:
                continue
            if path.name in ("LICENSE", "cauldron.non", "domino_logic.txt"):
                continue
            try:
                detect_format(path, read_bytes(path)[:4096])
                puzzles = read_puzzles(path)
            except Exception:  # colour puzzles and non-puzzle files are not part of the set
                continue
            for k, p in enumerate(puzzles, start=1):
                index = (p.number or k) if len(puzzles) > 1 else None
                out.append((f"{path.relative_to(CORPUS)}" + (f"#{index}" if index else ""),
                            str(path), index))
    return out


def tournament(path: Path, sample: int | None) -> list[tuple[str, str, int | None]]:
    from nonosat.formats import read_puzzles

    puzzles = read_puzzles(path)
    if sample:
        step = max(len(puzzles) // sample, 1)
        puzzles = puzzles[::step][:sample]
    return [(f"{path.name}#{p.number}", str(path), p.number) for p in puzzles]


def survey() -> list[tuple[str, str, int | None]]:
    base = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"
    out = [(p.name, str(p), None) for p in sorted(base.glob("*.nin"))]
    dom = CORPUS / "picross-solver" / "inputs" / "domino_logic.txt"
    if dom.exists():
        from nonosat.formats import read_puzzles

        for k, p in enumerate(read_puzzles(dom), start=1):
            if p.title and "9" in p.title:
                out.append((f"9-Dom ({dom.name}#{p.number or k})", str(dom), p.number or k))
    return out


def worker(spec: dict) -> dict:
    """Run one (set, engine, limit) in this process; return per-puzzle rows and peak memory."""
    from nonosat.engines import solve
    from nonosat.formats import read_puzzle
    from nonosat.puzzle import Puzzle

    solve(Puzzle([(1,), ()], [(1,), ()]), spec["engine"], limit=2)  # load kernels before timing
    rows = []
    for pid, path, index in spec["puzzles"]:
        puzzle = read_puzzle(path, index=index)
        c0 = time.process_time()
        t0 = time.perf_counter()
        try:
            result = solve(puzzle, spec["engine"], limit=spec["limit"], timeout=spec["timeout"])
            status = result.status.value
        except Exception as exc:  # an engine failure is a row, not the end of the run
            status = f"error: {exc}"
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        rows.append({"id": pid, "status": status, "wall_s": wall, "cpu_s": cpu,
                     "time_s": cpu if spec.get("clock", "cpu") == "cpu" else wall})
        if spec.get("progress"):
            print(f"  {spec['engine']:6} {pid}: {status} {rows[-1]['time_s']:.3f}s",
                  file=sys.stderr, flush=True)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"rows": rows, "peak_mb": peak_mb}


def summarize(name: str, engine: str, limit: int, out: dict) -> dict:
    times = sorted(r["time_s"] for r in out["rows"])
    counts: dict[str, int] = {}
    for r in out["rows"]:
        key = r["status"] if not r["status"].startswith("error") else "error"
        counts[key] = counts.get(key, 0) + 1

    def pct(p: float) -> float:
        return times[min(int(p * len(times)), len(times) - 1)] if times else 0.0

    decided = sum(counts.get(k, 0) for k in ("unique", "multiple", "none", "solved"))
    return {
        "set": name, "engine": engine, "limit": limit, "puzzles": len(times), "decided": decided,
        "total_s": sum(times), "median_s": statistics.median(times) if times else 0.0,
        "p90_s": pct(0.9), "p99_s": pct(0.99), "max_s": times[-1] if times else 0.0,
        "peak_mb": out["peak_mb"], "counts": counts,
        "wall_total_s": sum(r["wall_s"] for r in out["rows"]),
        "slowest": sorted(out["rows"], key=lambda r: -r["time_s"])[:3],
    }


def table(summaries: list[dict]) -> str:
    head = ("| set | engine | limit | puzzles | decided | total s | median ms | p90 ms | p99 ms "
            "| max s | wall total s | peak MB | unique / multiple / none / solved / gave up |")
    lines = [head, "|" + "---|" * 13]
    for s in summaries:
        c = s["counts"]
        lines.append(
            f"| {s['set']} | {s['engine']} | {s['limit']} | {s['puzzles']} | {s['decided']} | "
            f"{s['total_s']:.2f} | {s['median_s'] * 1e3:.1f} | {s['p90_s'] * 1e3:.1f} | "
            f"{s['p99_s'] * 1e3:.1f} | {s['max_s']:.2f} | {s['wall_total_s']:.1f} | "
            f"{s['peak_mb']:.0f} | "
            f"{c.get('unique', 0)} / {c.get('multiple', 0)} / {c.get('none', 0)} / "
            f"{c.get('solved', 0)} / {c.get('unknown', 0) + c.get('error', 0)} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sets", default="everyday,tournament,survey")
    ap.add_argument("--engines", default="native,sat,cpsat,auto")
    ap.add_argument("--tournament", type=Path,
                    default=CORPUS / "NonogramRecord" / "question" / "taai2011.txt")
    ap.add_argument("--sample", type=int, default=None, help="tournament: N puzzles spread over the set")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per puzzle")
    ap.add_argument("--modes", default="1,2", help="tournament limits to run (1 = first solution)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="time measure for the table (cpu: process CPU time)")
    ap.add_argument("--record", action="store_true", help="append the table to RESULTS.md")
    ap.add_argument("--progress", action="store_true", help="one stderr line per puzzle")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        spec = json.loads(Path(args.worker).read_text())
        Path(args.worker).write_text(json.dumps(worker(spec)))
        return
    if not CORPUS.exists():
        sys.exit(f"benchmarks need the shared corpus at {CORPUS}")
    sets: dict[str, list] = {}
    for name in args.sets.split(","):
        if name == "everyday":
            sets[name] = [(everyday(), 2)]
        elif name == "tournament":
            puzzles = tournament(args.tournament, args.sample)
            sets[name] = [(puzzles, int(m)) for m in args.modes.split(",")]
        elif name == "survey":
            sets[name] = [(survey(), 2)]
        else:
            sys.exit(f"unknown set {name!r}")
    summaries = []
    import tempfile

    for name, runs in sets.items():
        for puzzles, limit in runs:
            for engine in args.engines.split(","):
                spec = {"engine": engine, "limit": limit, "timeout": args.timeout,
                        "puzzles": puzzles, "progress": args.progress, "clock": args.clock}
                with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                    json.dump(spec, f)
                subprocess.run([sys.executable, __file__, "--worker", f.name], check=True)
                out = json.loads(Path(f.name).read_text())
                Path(f.name).unlink()
                s = summarize(name, engine, limit, out)
                summaries.append(s)
                print(table([s]).splitlines()[-1], flush=True)
                print("    slowest: " + ", ".join(f"{r['id']} {r['time_s']:.2f}s ({r['status']})"
                                                  for r in s["slowest"]), flush=True)
    text = table(summaries)
    print()
    print(text)
    if args.record:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        machine = (f"{platform.machine()}, Python {platform.python_version()}, 2 cores, one per "
                   f"run; times: {args.clock}")
        with open(REPO / "benchmarks" / "RESULTS.md", "a") as f:
            f.write(f"\n### {stamp} — `{' '.join(sys.argv[1:])}` — {machine}\n\n{text}\n")


if __name__ == "__main__":
    main()
