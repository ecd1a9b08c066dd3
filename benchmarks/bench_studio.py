"""Studio edit round trip: request to verdict + whole ambiguity map + grade, over HTTP.

Starts ``nonosat studio --no-browser`` as a separate process on a free port (as a user would),
waits until its kernels are warm, then times ``POST /api/analyse`` from the client's side (JSON
encoding, HTTP on localhost, validation, the analysis, the answer parsed) for:

* ``everyday``: every puzzle of the everyday corpus (``benchmarks/run.py``'s set: jwilk, the
  davidje13 games, picross-solver inputs; 344 puzzles) -- target: median <= 100 ms;
* ``random``: 30x30 random pictures at 50 % black (seeded) -- target: 90th percentile <= 300 ms.

Each request is sent as the editor sends it on an edit: the puzzle with its picture, once with
``"suggest": false`` (verdict, map and grade: what the targets time) and once with the default
suggestions (make-unique givens and one-cell edits, under their own budget, which grows with
the puzzle).

Besides the wall-clock round trip, each request's CPU time in the server process is read from
``/proc`` (:func:`server_cpu_s`): on a loaded machine the wall clock measures the load as much
as the studio does, the CPU time does not.  The corpus is ``$NONOSAT_CORPUS`` when set (as for
the tests), else ``../shared/corpus``.

With ``--issue29`` it measures instead what issue 29 asks of the server:

* **latency** from a cell change to the verdict (``"suggest": false``) on 15x15, 30x30, 50x50
  and 100x100 drawings (seeded blob pictures, one cell flipped per change);
* **burst**: 24 strokes on a 100x100 drawing sent 60 ms apart as the editor sends them (one
  ``client``, rising ``seq``: each supersedes the one before), streamed as the page asks; the
  time from the last stroke to its verdict (the stream's first line) and to the whole analysis;
* **abandoned**: 50 requests (a slow puzzle, Faase when the corpus is there, else a 100x100
  random picture, under a 30 s limit) whose clients hang up at once; then the time a 2x2 solve
  takes, and how long until a 2x2 solve answers within 1 s;
* **supersede**: in process, from superseding a running analysis of the slow puzzle to its
  thread's end (:attr:`nonosat.studio.runner.JobRunner.stop_latencies`);
* **keep trying**: Faase through ``POST /api/keep-trying`` (limit 300 s), the time to its verdict.

With ``--stop`` (issue 29 part 4, target: a superseded request stops within 100 ms), in process:
each phase of the editor's analysis (verdict, grade, map, suggestions) and each other solving job
(suggestions alone, make-unique, hint, steps) on 30x30 and 50x50 drawings and webpbn 6574 is
superseded at random moments; the time from the token's set to the worker thread's end.

Usage::

    python benchmarks/bench_studio.py                    # both sets, 100 random pictures
    python benchmarks/bench_studio.py --random 30 --no-everyday
    python benchmarks/bench_studio.py --issue29          # the server figures of issue 29
    python benchmarks/bench_studio.py --stop --repeats 20  # supersede latency by phase and job
"""

from __future__ import annotations

import argparse
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


# -- issue 29: the server's figures ---------------------------------------------------------------
def drawing(size: int, seed: int) -> np.ndarray:
    """A seeded drawing: a few filled discs and bars, as an author draws (not noise)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    pic = np.zeros((size, size), dtype=bool)
    for _ in range(max(3, size // 6)):
        r, c = rng.integers(0, size, 2)
        rad = rng.integers(max(2, size // 12), max(3, size // 5))
        pic ^= (yy - r) ** 2 + (xx - c) ** 2 <= rad ** 2
    for _ in range(max(2, size // 10)):
        r = int(rng.integers(0, size))
        pic[r, rng.integers(0, size // 2):rng.integers(size // 2, size)] ^= True
    return pic


def picture_json(pic: np.ndarray) -> dict:
    return puzzle_to_json(Puzzle(rows=[line_blocks(r) for r in pic],
                                 cols=[line_blocks(c) for c in pic.T], goal=pic))


def slow_puzzle() -> tuple[str, dict]:
    corpus = Path(os.environ.get("NONOSAT_CORPUS", REPO.parent / "shared" / "corpus"))
    faase = corpus / "FastNonogramSolver" / "puzzles" / "survey" / "faase.nin"
    if faase.exists():
        return "Faase", puzzle_to_json(read_puzzles(faase)[0])
    rng = np.random.default_rng(7)
    return "random 100x100", picture_json(rng.random((100, 100)) < 0.5)


def latency(client: httpx.Client, sizes: list[int], changes: int) -> list[str]:
    lines = ["| drawing | changes | median ms | p90 ms | max ms | verdicts |",
             "|---|---|---|---|---|---|"]
    rng = np.random.default_rng(29)
    for size in sizes:
        pic = drawing(size, size)
        client.post("/api/analyse", json={"puzzle": picture_json(pic), "suggest": False})
        times, verdicts = [], {}
        for k in range(changes):
            r, c = rng.integers(0, size, 2)
            pic[r, c] ^= True
            start = time.perf_counter()
            out = client.post("/api/analyse", json={"puzzle": picture_json(pic),
                                                    "suggest": False, "client": "lat",
                                                    "seq": k}).json()
            times.append((time.perf_counter() - start) * 1000)
            verdicts[out["status"]] = verdicts.get(out["status"], 0) + 1
        ms = sorted(times)
        lines.append(f"| {size}x{size} | {changes} | {statistics.median(ms):.0f} | "
                     f"{float(np.percentile(ms, 90)):.0f} | {ms[-1]:.0f} | "
                     + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())) + " |")
        print(lines[-1], flush=True)
    return lines


def burst(base: str, strokes: int = 24, gap_s: float = 0.06) -> tuple[float, float, dict]:
    """Seconds from the last stroke's request to its verdict (the first line of the streamed
    analysis, as the page shows it) and to the whole analysis (map and grade), and the answers'
    statuses."""
    import asyncio

    pic = drawing(100, 100)
    rng = np.random.default_rng(24)

    async def send(ac: httpx.AsyncClient, body: dict) -> tuple[int, float, float]:
        """(status, seconds to the first line, seconds to the end)."""
        start = time.perf_counter()
        async with ac.stream("POST", "/api/analyse", json=body) as r:
            lines = r.aiter_lines()
            first = None
            async for _ in lines:
                if first is None:
                    first = time.perf_counter() - start
            return r.status_code, first or 0.0, time.perf_counter() - start

    async def run() -> tuple[float, float, dict]:
        async with httpx.AsyncClient(base_url=base, timeout=120) as ac:
            tasks = []
            for k in range(strokes):
                r = int(rng.integers(0, 100))
                c0 = int(rng.integers(0, 90))
                pic[r, c0:c0 + int(rng.integers(2, 10))] ^= True  # a short stroke
                body = {"puzzle": picture_json(pic), "suggest": False, "client": "burst",
                        "seq": k, "stream": True}
                tasks.append(asyncio.create_task(send(ac, body)))
                await asyncio.sleep(gap_s)
            code, to_verdict, to_end = await tasks[-1]
            codes: dict = {}
            for t in tasks:
                got = (await t)[0]
                codes[got] = codes.get(got, 0) + 1
            assert code == 200
            return to_verdict, to_end, codes

    return asyncio.run(run())


def abandoned(port: int, base: str, n: int = 50) -> tuple[float, float, dict]:
    """50 requests whose clients hang up; then (2x2 solve seconds, seconds until a 2x2 solve
    answers within 1 s, the refusals seen)."""
    import json

    _, slow = slow_puzzle()
    two = {"rows": [[1], [1]], "cols": [[1], [1]]}
    body = json.dumps({"puzzle": slow, "timeout": 30, "suggest": False}).encode()
    head = (b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
    for _ in range(n):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(head + body)
            time.sleep(0.02)  # the server reads the request, then the client is gone
    gone = time.perf_counter()
    with httpx.Client(base_url=base, timeout=120) as client:
        start = time.perf_counter()
        r = client.post("/api/solve", json={"puzzle": two})
        first = time.perf_counter() - start
        codes = {r.status_code: 1}
        while True:
            start = time.perf_counter()
            r = client.post("/api/solve", json={"puzzle": two})
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
            if r.status_code == 200 and time.perf_counter() - start < 1.0:
                break
            time.sleep(0.2)
        return first, time.perf_counter() - gone, codes


def supersede_latency(repeats: int = 3) -> list[float]:
    """In process: seconds from superseding a running analysis of the slow puzzle to the end of
    its thread."""
    import asyncio

    from nonosat.studio.quick import Cancelled, quick_analyse
    from nonosat.studio.runner import JobRunner, Superseded
    from nonosat.studio.schemas import PuzzleIn, puzzle_from_json

    _, slow = slow_puzzle()
    puzzle = puzzle_from_json(PuzzleIn.model_validate(slow))
    runner = JobRunner(workers=2)

    def work(token):
        try:
            return quick_analyse(puzzle, timeout=30, suggest=False, stop=token)
        except Cancelled:
            return None

    async def once(k: int) -> None:
        task = asyncio.create_task(runner.run(work, "bench", 2 * k))
        await asyncio.sleep(1.0)
        await runner.run(lambda token: None, "bench", 2 * k + 1)
        try:
            await task
        except Superseded:
            pass
        while runner.running():
            await asyncio.sleep(0.01)

    for k in range(repeats):
        asyncio.run(once(k))
    runner.shutdown()
    return list(runner.stop_latencies)


# -- supersede at random moments, by phase (issue 29 part 4) -------------------------------------
#: Longest wait (seconds) into a phase before the token is set: a long phase (the suggestions of
#: a 50x50 drawing) is sampled over its first seconds.
PHASE_CAP_S = 3.0


def _thread_cpu_s(tid: int) -> float:
    """CPU seconds of thread ``tid`` of this process (Linux ``/proc``; 0.0 elsewhere)."""
    try:
        return int(Path(f"/proc/self/task/{tid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


#: Where the slow stops were (``--where``): the worker's stack 50 ms after the token was set.
SLOW_STACKS: list[str] = []


def _cancel_once(work, token, moment: float, phase_of=None, where: bool = False
                 ) -> tuple[float, float, str, object]:
    """Run ``work(token)`` in a thread, set ``token`` ``moment`` seconds after it starts (or
    after ``phase_of()`` says the phase began: see :func:`phase_supersede`), and return
    (seconds from the set to the thread's end, the thread's CPU seconds meanwhile, the phase
    when it was set, what work returned or raised); NaN seconds when it ended first."""
    import threading
    import traceback

    from nonosat.stop import CANCELLED

    ended: list[float] = []
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(work(token))
        except Exception as exc:  # noqa: BLE001 - Cancelled, or a failure to report
            outcome.append(exc)
        finally:
            ended.append(time.perf_counter())
            ended.append(_thread_cpu_s(threading.get_native_id()))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    start = time.perf_counter()
    if phase_of is not None:
        start = phase_of(thread)
    if start is None:  # the phase never came
        thread.join()
        return float("nan"), float("nan"), "-", outcome[0]
    while time.perf_counter() < start + moment and thread.is_alive():
        time.sleep(0.001)
    phase = phase_of.current if phase_of is not None else "job"
    cpu = _thread_cpu_s(thread.native_id or 0)
    at = time.perf_counter()
    token.set(CANCELLED)
    if where:
        thread.join(0.05)
        frame = sys._current_frames().get(thread.ident or 0)
        if frame is not None and thread.is_alive():
            SLOW_STACKS.append("".join(traceback.format_stack(frame)[-6:]))
    thread.join()
    if not ended or ended[0] <= at:  # it had finished before the token was set
        return float("nan"), float("nan"), "finished", outcome[0]
    return ended[0] - at, ended[1] - cpu, phase, outcome[0]


class _Phases:
    """The progress callback of :func:`nonosat.studio.quick.quick_analyse`: when ``target``
    begins (:meth:`__call__` is the ``phase_of`` of :func:`_cancel_once`)."""

    def __init__(self, target: str):
        import threading

        self.target = target
        self.current = "start"
        self.began: float | None = None
        self.event = threading.Event()

    def progress(self, phase: str, known: dict) -> None:
        if phase != self.current:
            self.current = phase
            if phase == self.target and self.began is None:
                self.began = time.perf_counter()
                self.event.set()

    def __call__(self, thread) -> float | None:
        while not self.event.wait(0.001):
            if not thread.is_alive():
                return None
        return self.began


def phase_supersede(puzzles: list[tuple[str, Puzzle]], repeats: int, seed: int = 4,
                    where: bool = False) -> list[str]:
    """For each puzzle and each phase of the editor's analysis (``verdict``, ``grade``,
    ``map``, ``suggestions``): one run to time the phases, then ``repeats`` runs superseded at a
    uniformly random moment within the phase (at most :data:`PHASE_CAP_S` into it); the
    seconds from the token's set to the worker thread's end.  A run that returns an answer
    after its token was set is counted as a *finding* (the studio answers 409 for it anyway;
    the analysis should raise ``Cancelled``).  Besides the wall clock, the worker thread's CPU
    time over the same span (``/proc``): on a loaded machine the wall clock measures the
    load."""
    from nonosat.studio.quick import Cancelled, quick_analyse
    from nonosat.studio.runner import JobToken

    rng = np.random.default_rng(seed)
    lines = ["| puzzle | phase | phase ms | supersedes | median ms | max ms | CPU median ms "
             "| CPU max ms | findings |", "|---|---|---|---|---|---|---|---|---|"]
    for name, puzzle in puzzles:
        marks: dict[str, float] = {}
        quick_analyse(puzzle, timeout=10, suggest=True, stop=JobToken())  # warm
        t0 = time.perf_counter()

        def mark(phase: str, known: dict, marks=marks, t0=t0) -> None:
            marks.setdefault(phase, time.perf_counter() - t0)

        quick_analyse(puzzle, timeout=10, suggest=True, stop=JobToken(), progress=mark)
        marks["end"] = time.perf_counter() - t0
        order = sorted(marks, key=marks.get)
        for i, phase in enumerate(order[:-1]):
            length = marks[order[i + 1]] - marks[phase]
            lat, cpus, findings = [], [], 0
            for _ in range(repeats):
                watch = _Phases(phase)
                token = JobToken()

                def work(tok, watch=watch, puzzle=puzzle):
                    try:
                        return quick_analyse(puzzle, timeout=10, suggest=True, stop=tok,
                                             should_stop=tok, progress=watch.progress)
                    except Cancelled:
                        return None

                moment = float(rng.uniform(0, min(length, PHASE_CAP_S)))
                took, cpu, _, out = _cancel_once(work, token, moment, watch, where)
                if took == took:  # not NaN: cancelled while running
                    lat.append(took * 1000)
                    cpus.append(cpu * 1000)
                    findings += out is not None
            lines.append(f"| {name} | {phase} | {length * 1000:.0f} | {len(lat)} | "
                         + _figures(lat, cpus) + f" {findings if lat else '-'} |")
            print(lines[-1], flush=True)
    return lines


def _figures(lat: list[float], cpus: list[float]) -> str:
    if not lat:
        return "- | - | - | - |"
    return (f"{statistics.median(lat):.0f} | {max(lat):.0f} | {statistics.median(cpus):.0f} | "
            f"{max(cpus):.0f} |")


def job_supersede(puzzles: list[tuple[str, Puzzle]], repeats: int, seed: int = 5,
                  where: bool = False) -> list[str]:
    """The other solving jobs of the studio (make-unique, hint, steps, suggestions alone):
    their work functions (as the API runs them) superseded at a uniformly random moment of an
    uncancelled run's length (at most :data:`PHASE_CAP_S`); seconds from the set to the
    thread's end."""
    from nonosat.studio.runner import JobToken

    rng = np.random.default_rng(seed)
    lines = ["| puzzle | job | job ms | supersedes | median ms | max ms | CPU median ms "
             "| CPU max ms |", "|---|---|---|---|---|---|---|---|"]
    for name, puzzle in puzzles:
        for job, work in studio_jobs(puzzle).items():
            for _ in range(2):  # the second run is timed (the first loads and compiles)
                t0 = time.perf_counter()
                try:
                    work(JobToken())
                except Exception:  # noqa: BLE001 - timed anyway
                    pass
                length = time.perf_counter() - t0
            lat, cpus = [], []
            for _ in range(repeats):
                moment = float(rng.uniform(0, min(length, PHASE_CAP_S)))
                took, cpu, _, _ = _cancel_once(work, JobToken(), moment, where=where)
                if took == took:
                    lat.append(took * 1000)
                    cpus.append(cpu * 1000)
            lines.append(f"| {name} | {job} | {length * 1000:.0f} | {len(lat)} | "
                         + _figures(lat, cpus))
            print(lines[-1], flush=True)
    return lines


def studio_jobs(puzzle: Puzzle) -> dict:
    """The work functions of the studio's solving jobs for ``puzzle``, as the API builds them
    (:mod:`nonosat.studio.api`), by name."""
    from nonosat.puzzle import unknown_grid
    from nonosat.studio import api_play, api_solve

    grid = unknown_grid(puzzle)
    out = {
        "suggest": api_solve.suggest_work(puzzle, 10.0),
        "hint": api_play.hint_work(puzzle, grid, 10.0),
        "steps": api_play.steps_work(puzzle, 2, None, 10.0),
    }
    if puzzle.goal is not None:
        out["make-unique"] = api_solve.make_unique_work(puzzle, True, 10.0)
    return out


def issue29_stop(args: argparse.Namespace) -> None:
    """``--stop``: :func:`phase_supersede` and :func:`job_supersede` on 30x30 and 50x50
    drawings and the corpus's webpbn 6574 (when there)."""
    puzzles = [("30x30 drawing", Puzzle(rows=[line_blocks(r) for r in drawing(30, 30)],
                                        cols=[line_blocks(c) for c in drawing(30, 30).T],
                                        goal=drawing(30, 30))),
               ("50x50 drawing", Puzzle(rows=[line_blocks(r) for r in drawing(50, 50)],
                                        cols=[line_blocks(c) for c in drawing(50, 50).T],
                                        goal=drawing(50, 50)))]
    corpus = Path(os.environ.get("NONOSAT_CORPUS", REPO.parent / "shared" / "corpus"))
    forever = corpus / "FastNonogramSolver" / "puzzles" / "survey" / "webpbn-06574.nin"
    if forever.exists():
        puzzles.append(("webpbn 6574", read_puzzles(forever)[0]))
    else:
        print(f"(no {forever}: webpbn 6574 left out)")
    from nonosat.studio.quick import quick_analyse

    quick_analyse(puzzles[0][1], suggest=False)  # the kernels compiled before timing
    if args.only:
        puzzles = [p for p in puzzles if args.only in p[0]]
    out = phase_supersede(puzzles, args.repeats, where=args.where) if not args.no_phases else []
    if not args.no_jobs:
        out += [""] + job_supersede(puzzles, args.repeats, where=args.where)
    print()
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n".join(out))
    if SLOW_STACKS:
        from collections import Counter

        print("\nwhere the workers were 50 ms after the token was set (most frequent first):")
        for stack, n in Counter(SLOW_STACKS).most_common(8):
            print(f"--- {n}x\n{stack}")


def _post_status(url: str, body: dict, out: list[int]) -> None:
    out.append(httpx.post(url, json=body, timeout=120).status_code)


def fresh_supersede(runs: int, delays: list[float]) -> list[str]:
    """``--fresh``: supersedes in a fresh server process (``nonosat studio``, warming its kernels
    in the background).  Per run and delay: start the server, send the analysis of the burst
    drawing (:func:`benchmarks.bench_studio_draw` paints it; timeout 30 s) as soon as it listens
    (``delay`` 0: while the kernels load) or ``delay`` seconds after they are ready, supersede it
    300 ms later with a 2x2, and read ``GET /api/jobs``: the superseded job's stop time (cancel
    to thread end), or that it never started."""
    import threading

    from tests.test_studio_stream import BURST

    lines = []
    for delay in delays:
        for k in range(runs):
            port = free_port()
            env = {**os.environ,
                   "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
            began = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-c", "from nonosat.cli.app import main; main()", "studio",
                 "--no-browser", "--port", str(port)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
            try:
                proc.stdout.readline()  # listening
                listening = time.perf_counter() - began
                base = f"http://127.0.0.1:{port}"
                with httpx.Client(base_url=base, timeout=120) as client:
                    if delay > 0:
                        while not client.get("/api/jobs").json()["ready"]:
                            time.sleep(0.05)
                        time.sleep(delay)
                    answers: list[int] = []
                    body = {**BURST, "stream": False, "timeout": 30, "client": "fresh",
                            "seq": 1}
                    first = threading.Thread(target=_post_status,
                                             args=(f"{base}/api/analyse", body, answers))
                    first.start()
                    time.sleep(0.3)
                    two = client.post("/api/analyse", json={
                        "puzzle": {"rows": [[1], [1]], "cols": [[1], [1]]}, "suggest": False,
                        "client": "fresh", "seq": 2})
                    first.join()
                    # until no thread runs a job, and none waits for the kernels either
                    while ((state := client.get("/api/jobs").json())["running"]
                           or not state["ready"]):
                        time.sleep(0.01)
                    time.sleep(0.1)  # a job cancelled while waiting counts itself skipped
                    state = client.get("/api/jobs").json()
                    ready_at = time.perf_counter() - began
                stop = state["stop_ms"]
                when = (f"{delay:g} s after its kernels were ready" if delay
                        else "as it listened, while its kernels loaded")
                lines.append(
                    f"fresh server {k + 1}, analysis sent {when} and superseded 0.3 s later: "
                    f"answers {answers[0]}, then {two.status_code}; "
                    + (f"the superseded job stopped {stop[-1]:.0f} ms after its cancel"
                       if stop else f"the superseded job never started "
                       f"(skipped: {state['counts']['skipped']})")
                    + f" (listening after {listening:.1f} s; idle {ready_at:.1f} s after start)")
                print(lines[-1], flush=True)
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    return lines


def keep_trying(base: str) -> tuple[str, float, dict]:
    name, slow = slow_puzzle()
    with httpx.Client(base_url=base, timeout=60) as client:
        job = client.post("/api/keep-trying", json={"puzzle": slow, "limit": 300}).json()
        while True:
            try:
                out = client.get(f"/api/keep-trying/{job['job']}").json()
            except httpx.TransportError:  # a kept-alive connection closed as we sent: again
                time.sleep(0.5)
                continue
            if out["state"] != "running":
                result = out["result"] or {}
                return name, out["elapsed_s"], {"state": out["state"], **out["known"],
                                                "map complete": result.get("backbone_complete")}
            time.sleep(0.5)


def issue29(args: argparse.Namespace) -> None:
    port = free_port()
    proc = start_server(port)
    base = f"http://127.0.0.1:{port}"
    out: list[str] = []
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            out += latency(client, [15, 30, 50, 100], args.changes)
        took, whole, codes = burst(base)
        out.append(f"burst of 24 strokes on 100x100: verdict {took * 1000:.0f} ms after the last "
                   f"stroke, whole analysis {whole * 1000:.0f} ms (answers: {codes})")
        print(out[-1], flush=True)
        first, recovered, codes = abandoned(port, base)
        out.append(f"50 abandoned requests ({slow_puzzle()[0]}): the next 2x2 solve took "
                   f"{first * 1000:.0f} ms; a 2x2 solve answered within 1 s "
                   f"{recovered:.2f} s after the last hang-up (answers: {codes})")
        print(out[-1], flush=True)
        if not args.no_keep_trying:
            name, elapsed, known = keep_trying(base)
            out.append(f"keep trying on {name} (limit 300 s): {elapsed:.1f} s, {known}")
            print(out[-1], flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    lat = supersede_latency()
    out.append("supersede to thread end (in process, slow puzzle): "
               + ", ".join(f"{x * 1000:.0f} ms" for x in lat))
    print(out[-1], flush=True)
    print()
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n".join(out))


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--random", type=int, default=100, help="random 30x30 pictures (default 100)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-everyday", action="store_true")
    ap.add_argument("--no-suggest-runs", action="store_true",
                    help="skip the runs with suggestions")
    ap.add_argument("--issue29", action="store_true",
                    help="the server figures of issue 29 instead (latency by size, burst, "
                         "abandoned requests, supersede, keep trying)")
    ap.add_argument("--changes", type=int, default=10, help="cell changes per size (--issue29)")
    ap.add_argument("--no-keep-trying", action="store_true", help="skip Faase (--issue29)")
    ap.add_argument("--stop", action="store_true",
                    help="supersede latency by phase and by job, in process (issue 29 part 4)")
    ap.add_argument("--repeats", type=int, default=20,
                    help="supersedes per phase and per job (--stop)")
    ap.add_argument("--no-jobs", action="store_true",
                    help="the analysis's phases only (--stop)")
    ap.add_argument("--no-phases", action="store_true", help="the other jobs only (--stop)")
    ap.add_argument("--only", default="", help="puzzles whose name holds this (--stop)")
    ap.add_argument("--where", action="store_true",
                    help="print where workers still ran 50 ms after the set (--stop)")
    ap.add_argument("--fresh", type=int, default=0, metavar="RUNS",
                    help="supersedes in RUNS fresh server processes, while the kernels load and "
                         "once they are ready (issue 29 part 4)")
    args = ap.parse_args()
    if args.fresh:
        lines = fresh_supersede(args.fresh, [0.0, 0.5])
        print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print("\n".join(lines))
        return
    if args.stop:
        issue29_stop(args)
        return
    if args.issue29:
        issue29(args)
        return

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
