"""Time ``nonosat batch``: the overhead per puzzle, and ``--do check`` on the taai2011 set with 1
and 2 jobs (puzzles per second and speed-up).

1. **Overhead.**  1000 small random puzzles (5x5) run three ways: the check job called in this
   process, one after the other (the baseline), then through :func:`nonosat.batch.run_batch` with
   1 and 2 workers; also a job that does nothing, which measures the batch machinery alone
   (sandbox round trip, pickling, executor hand-off, writing the results file).  Worker start-up
   (interpreter, imports, numba cache) is shown separately.
2. **Corpus.**  ``nonosat batch SET --do check --out FILE --json`` as a subprocess (so the figures
   include everything a user waits for) with ``--jobs 1`` and ``--jobs 2``, each into a fresh
   results file; prints puzzles per second, the speed-up and the verdict counts, which must be
   the same for every number of jobs.

Usage::

    .venv/bin/python benchmarks/bench_batch.py [--set PATH] [--limit N] [--timeout S]
        [--engine native] [--jobs 1,2] [--skip-overhead]

``--limit N`` runs the first N puzzles of the set only (the whole taai2011 check with a 10 s limit
takes a quarter of an hour per job count on one core).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from preamble import TAAI2011, argument_parser  # first: puts REPO on sys.path

from nonosat.batch import BatchConfig, Job, ResultsFile, read_records, run_batch
from nonosat.batch.jobs import JobOptions, check_job, warm_engine
from nonosat.batch.results import UNDECIDED
from nonosat.batch.sandbox import close_sandboxes
from nonosat.puzzle import Puzzle


def noop_job(puzzle: Puzzle, options: JobOptions) -> dict:
    """A job that does nothing: what is left is the cost of the batch machinery."""
    return {"status": "solved"}


def small_puzzles(count: int) -> list[tuple[str, Puzzle]]:
    rng = np.random.default_rng(2011)
    return [(f"p{k}", Puzzle.from_picture(rng.random((5, 5)) < 0.5)) for k in range(count)]


def overhead(engine: str, jobs: list[int], count: int = 1000) -> None:
    items = small_puzzles(count)
    options = JobOptions(engine=engine, timeout=10)
    warm_engine(options)
    start = time.perf_counter()
    for _, p in items:
        check_job(p, options)
    direct = time.perf_counter() - start
    print(f"overhead on {count} 5x5 puzzles ({engine} engine)")
    print(
        f"  in process, one after the other: {direct:7.3f} s  {1e3 * direct / count:6.3f} ms/puzzle"
    )
    noop = Job("noop", "bench_batch:noop_job")  # workers find this file: its folder is on the path
    with tempfile.TemporaryDirectory() as tmp:
        for n in jobs:
            for label, job in (("no-op job", noop), ("check job", "check")):
                config = BatchConfig(job=job, engine=engine, timeout=10, jobs=n)
                # the same n worker threads (and their worker processes) for both runs
                with ThreadPoolExecutor(n) as pool:
                    start = time.perf_counter()
                    run_batch(items[: 4 * n], config, executor=pool)  # start the workers
                    startup = time.perf_counter() - start
                    out = Path(tmp) / f"{label}-{n}.jsonl"
                    with ResultsFile(out) as results:
                        start = time.perf_counter()
                        run_batch(items, config, results=results, executor=pool)
                        wall = time.perf_counter() - start
                close_sandboxes()
                print(
                    f"  batch, {label}, {n} job(s): {wall:7.3f} s  {1e3 * wall / count:6.3f} "
                    f"ms/puzzle  {count / wall:7.0f} puzzles/s  (worker start-up {startup:.2f} s)"
                )


def corpus(path: Path, limit: int | None, timeout: float, engine: str, jobs: list[int]) -> None:
    source = path
    with tempfile.TemporaryDirectory() as tmp:
        if limit is not None:
            lines = path.read_text().splitlines(keepends=True)
            heads = [k for k, line in enumerate(lines) if line.startswith("$")]
            cut = heads[limit] if limit < len(heads) else len(lines)
            source = Path(tmp) / path.name
            source.write_text("".join(lines[:cut]))
        print(f"nonosat batch {path.name} --do check --engine {engine} --timeout {timeout:g}"
              + (f" (first {limit} puzzles)" if limit else ""))  # fmt: skip
        rates = {}
        verdicts = {}
        for n in jobs:
            out = Path(tmp) / f"r{n}.jsonl"
            command = [
                sys.executable, "-c", "from nonosat.cli.app import main; main()", "batch",
                str(source), "--do", "check", "--engine", engine, "--timeout", str(timeout),
                "--jobs", str(n), "--out", str(out), "--json",
            ]  # fmt: skip
            start = time.perf_counter()
            run = subprocess.run(command, capture_output=True, text=True)
            wall = time.perf_counter() - start
            if run.returncode not in (0, 1, 4):
                sys.exit(f"batch failed ({run.returncode}): {run.stderr}")
            summary = json.loads(run.stdout)
            rates[n] = summary["puzzles"] / wall
            verdicts[n] = summary["counts"]
            t = summary["time_s"]
            print(
                f"  {n} job(s): {summary['puzzles']} puzzles in {wall:.1f} s = {rates[n]:.2f} "
                f"puzzles/s; per puzzle median {t['median']:.3f} s, p99 {t['p99']:.3f} s, "
                f"max {t['max']:.3f} s; {summary['counts']}"
            )
        base = rates[jobs[0]]
        for n in jobs[1:]:
            print(f"  speed-up {jobs[0]} -> {n} jobs: {rates[n] / base:.2f}x")
        decided = [
            {r["id"]: r["status"] for r in read_records(Path(tmp) / f"r{n}.jsonl")} for n in jobs
        ]
        differ = [
            i
            for i, status in decided[0].items()
            for other in decided[1:]
            if status not in UNDECIDED and other.get(i) not in UNDECIDED and other.get(i) != status
        ]
        print(f"  puzzles decided differently by different job counts: {len(differ)} {differ[:5]}")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--set", type=Path, default=TAAI2011)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--engine", default="native")
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--skip-overhead", action="store_true")
    args = parser.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    if not args.skip_overhead:
        overhead(args.engine, jobs)
    if not args.set.exists():
        sys.exit(f"{args.set} not found (the shared corpus goes beside the repository)")
    corpus(args.set, args.limit, args.timeout, args.engine, jobs)


if __name__ == "__main__":
    main()
