"""Studio edit round trip: request to verdict + whole ambiguity map + grade, over HTTP.

Starts ``nonosat studio --no-browser`` as a separate process on a free port (as a user would),
waits until its kernels are warm, then times ``POST /api/analyse`` from the client's side (JSON
encoding, HTTP on localhost, validation, the analysis, the answer parsed) for:

* ``everyday``: every puzzle of the everyday corpus (``benchmarks/run.py``'s set: jwilk, the
  davidje13 games, picross-solver inputs; 344 puzzles) -- target: median <= 100 ms;
* ``random``: 30x30 random pictures at 50 % black (seeded) -- target: 90th percentile <= 300 ms.

Each request is sent as the editor sends it on an edit: the puzzle with its picture, once with
``"suggest": false`` (verdict, map and grade: what the targets time) and once with the default
suggestions (make-unique givens and one-cell edits, under their own 1 s budget).

Besides the wall-clock round trip, each request's CPU time in the server process is read from
``/proc`` (:func:`server_cpu_s`): on a loaded machine the wall clock measures the load as much
as the studio does, the CPU time does not.  The corpus is ``$NONOSAT_CORPUS`` when set (as for
the tests), else ``../shared/corpus``.

Usage::

    python benchmarks/bench_studio.py                    # both sets, 100 random pictures
    python benchmarks/bench_studio.py --random 30 --no-everyday
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
from preamble import REPO, argument_parser  # first: puts REPO on sys.path

sys.path.insert(0, str(REPO / "benchmarks"))

from nonosat.formats import read_puzzles  # noqa: E402
from nonosat.puzzle import Puzzle, line_blocks  # noqa: E402
from nonosat.studio.schemas import puzzle_to_json  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def everyday_puzzles() -> list[tuple[str, Puzzle]]:
    import run
    from run import everyday

    if os.environ.get("NONOSAT_CORPUS"):  # as the tests read it (tests/conftest.py)
        run.CORPUS = Path(os.environ["NONOSAT_CORPUS"])

    cache: dict[str, list[Puzzle]] = {}
    out = []
    for pid, path, index in everyday():
        puzzles = cache.setdefault(path, read_puzzles(path))
        out.append((pid, next(p for k, p in enumerate(puzzles, start=1)
                              if index is None or (p.number or k) == index)))
    return out


def random_puzzles(n: int, seed: int, size: int = 30) -> list[tuple[str, Puzzle]]:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        picture = rng.random((size, size)) < 0.5
        out.append((f"random #{k}", Puzzle(rows=[line_blocks(r) for r in picture],
                                          cols=[line_blocks(c) for c in picture.T],
                                          goal=picture)))
    return out


def start_server(port: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from nonosat.cli.app import main; main()", "studio",
         "--no-browser", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    proc.stdout.readline()  # the URL: listening
    for line in proc.stderr:  # wait for the warm-up to finish
        if "kernels ready" in line or "warm-up failed" in line:
            break
    return proc


def server_cpu_s(pid: int) -> float:
    """CPU seconds used so far by every live thread of process ``pid`` (Linux
    ``/proc/PID/task/*/schedstat``, nanoseconds); 0.0 where that is not available.  The
    server's pool threads live as long as it does, so the difference across one request is
    that request's CPU time, whatever the machine's load."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        return 0.0
    return total / 1e9


def time_set(client: httpx.Client, pid: int, puzzles: list[tuple[str, Puzzle]],
             suggest: bool) -> tuple[list[float], list[float], dict[str, int]]:
    """Wall-clock round trips and server CPU seconds per request, and the verdicts."""
    times, cpu = [], []
    verdicts: dict[str, int] = {}
    for i, (_name, puzzle) in enumerate(puzzles):
        body = {"puzzle": puzzle_to_json(puzzle), "suggest": suggest, "client": "bench",
                "seq": i}
        before = server_cpu_s(pid)
        start = time.perf_counter()
        r = client.post("/api/analyse", json=body)
        out = r.json()
        times.append(time.perf_counter() - start)
        cpu.append(server_cpu_s(pid) - before)
        r.raise_for_status()
        assert "ambiguous" in out and "grade" in out
        verdicts[out["status"]] = verdicts.get(out["status"], 0) + 1
    return times, cpu, verdicts


def row(name: str, times: list[float], cpu: list[float], verdicts: dict[str, int]) -> str:
    ms = sorted(t * 1000 for t in times)
    cms = sorted(t * 1000 for t in cpu)
    p90 = float(np.percentile(ms, 90))
    return (f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {p90:.1f} | {ms[-1]:.1f} | "
            f"{statistics.median(cms):.1f} | {float(np.percentile(cms, 90)):.1f} | "
            + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())) + " |")


def slowest(puzzles: list[tuple[str, Puzzle]], times: list[float], cpu: list[float],
            n: int = 3) -> str:
    worst = sorted(range(len(times)), key=lambda i: -times[i])[:n]
    return "slowest: " + "; ".join(f"{puzzles[i][0]} {times[i] * 1000:.0f} ms "
                                   f"(server CPU {cpu[i] * 1000:.0f} ms)" for i in worst)


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--random", type=int, default=100, help="random 30x30 pictures (default 100)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-everyday", action="store_true")
    ap.add_argument("--no-suggest-runs", action="store_true",
                    help="skip the runs with suggestions")
    args = ap.parse_args()

    sets = []
    if not args.no_everyday:
        sets.append(("everyday", everyday_puzzles()))
    if args.random:
        sets.append(("random 30x30 50%", random_puzzles(args.random, args.seed)))
    port = free_port()
    proc = start_server(port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            lines = ["| set | puzzles | median ms | p90 ms | max ms | server CPU median ms "
                     "| server CPU p90 ms | verdicts |", "|---|---|---|---|---|---|---|---|"]
            notes = []
            for name, puzzles in sets:
                times, cpu, verdicts = time_set(client, proc.pid, puzzles, suggest=False)
                lines.append(row(f"{name}, verdict + map + grade", times, cpu, verdicts))
                notes.append(f"{name}: {slowest(puzzles, times, cpu)}")
                print(lines[-1], flush=True)
                if not args.no_suggest_runs:
                    times, cpu, verdicts = time_set(client, proc.pid, puzzles, suggest=True)
                    lines.append(row(f"{name}, with suggestions", times, cpu, verdicts))
                    print(lines[-1], flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print()
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n".join(lines))
    print("\n".join(notes))


if __name__ == "__main__":
    main()
