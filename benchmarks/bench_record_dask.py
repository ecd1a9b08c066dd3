"""The whole NonogramRecord (30 tournament sets, 30,000 puzzles), both modes, in one run on a local
dask cluster, with one worker killed mid-run (issue 27).

The script starts ``dask scheduler`` and two ``dask worker`` processes (one thread each, no nanny)
on 127.0.0.1 with free ports, each in a process group of its own, and runs nonosat's batch over
every puzzle through the project's own dask path (:func:`nonosat.batch.run_batch` with
``scheduler=``, what ``nonosat batch --scheduler ADDRESS`` runs): mode ``2`` (uniqueness, the
``check`` job, limit 2) then mode ``1`` (first solution, the ``solve`` job), one results file for
both (``WORKDIR/results.jsonl``, resumable: rerun the same command and only the missing puzzles
run).  ``--kill-after S`` seconds after the batch starts, worker ``w1`` is killed with SIGKILL (its
process group: the worker and, through ``PR_SET_PDEATHSIG``, its puzzle process) and a replacement
``w3`` is started; the keys ``w1`` was executing at that moment are the tasks dask must rerun.

Checks at the end (a failed one exits 1): every puzzle has exactly one record per mode in the
results file, no task completed twice on the cluster (scheduler task stream, keyed by puzzle:
:func:`nonosat.batch.run.task_key`; only a result the killed worker held may be computed again),
every killed task completed once elsewhere, nonosat decided every puzzle and each verdict equals
nonosolve's where nonosolve decided (its timeouts are listed apart)
(``../shared/peers/nonosolve --taai SET -n 2`` / ``-n 1``, one process
per set and mode, run after the cluster is stopped, cached in ``WORKDIR/nonosolve/``), and no
process of the cluster (scheduler, workers, puzzle processes) is left.  The cluster is stopped on
every exit path (Ctrl-C and SIGTERM included).

Figures per mode: wall seconds; CPU seconds (user + sys) of the workers with their puzzle
processes (sampled from ``/proc`` every 0.5 s, so a killed process's last half second is missed),
of the scheduler and of the batch process; per worker the puzzles it completed, its compute
seconds (task stream) and puzzles per second of compute and of the mode's wall time.  The kill's
cost: the tasks rerun, the seconds of work they had done when killed, the seconds from the kill to
the replacement's first result (start-up and kernel loading), and the worker-seconds lost (the
two added: with two workers the wall time lost is about half of it).  Usage::

    nice -n 19 python benchmarks/bench_record_dask.py --kill-after 120 --workdir rec/ \\
        --until 20:10 --reference-until 20:40 --json record.json
    python benchmarks/bench_record_dask.py --sets taai2011,tcga2016,icga2018 --sample 20 \\
        --kill-after 5
"""

from __future__ import annotations

import calendar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from preamble import CORPUS, REPO, SHARED, argument_parser  # first: puts REPO on sys.path

QUESTIONS = CORPUS / "NonogramRecord" / "question"
NONOSOLVE = SHARED / "peers" / "nonosolve"

#: Mode (nonosolve's ``-n``) -> (nonosat batch job, name).
MODES = {"2": ("check", "uniqueness"), "1": ("solve", "first solution")}

_NONOSOLVE_VERDICT = {"UNIQUE": "unique", "MULTIPLE": "multiple", "FOUND": "solved",
                      "NONE": "none", "NO_SOLUTION": "none", "INFEASIBLE": "none",
                      "UNSAT": "none", "CONTRADICTION": "none"}
_DECIDED = {"unique", "multiple", "none", "solved"}

#: Seconds to wait for the scheduler and the workers to come up or go away.
WAIT_S = 120.0


# ------------------------------------------------------------------------------------ puzzles
def record_sets(names: str | None) -> list[Path]:
    """The tournament set files (all 30 by default), by stem."""
    files = sorted(QUESTIONS.glob("*.txt"))
    if not files:
        raise SystemExit(f"bench_record_dask: no tournament sets in {QUESTIONS}")
    if names:
        wanted = names.split(",")
        by_stem = {f.stem: f for f in files}
        missing = [w for w in wanted if w not in by_stem]
        if missing:
            raise SystemExit(f"bench_record_dask: no set {', '.join(missing)} in {QUESTIONS}")
        files = [by_stem[w] for w in wanted]
    return files


def load_puzzles(files: list[Path], sample: int | None) -> dict[str, list[tuple[str, Any]]]:
    """Per set stem, the ``(id, puzzle)`` pairs of the batch (every k-th with ``sample``)."""
    from nonosat.batch import collect_puzzles

    out = {}
    for f in files:
        pairs = collect_puzzles([str(f)]).puzzles
        if sample:
            pairs = pairs[:: max(len(pairs) // sample, 1)][:sample]
        out[f.stem] = pairs
    return out


def number_of(puzzle_id: str) -> int:
    """The puzzle number of a ``FILE#N`` id."""
    return int(puzzle_id.rpartition("#")[2])


# ------------------------------------------------------------------------------------ cluster
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """``dask scheduler`` and ``dask worker`` processes on loopback, each in its own process
    group, all stopped by :meth:`stop` (SIGTERM to the group, SIGKILL after 10 s)."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.workers: dict[str, str] = {}  # name -> address, the killed worker's kept
        dask = Path(sys.executable).with_name("dask")
        self.dask = [str(dask)] if dask.exists() else [sys.executable, "-m", "dask"]
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(REPO), os.environ.get("PYTHONPATH", "")]))
        self.env.pop("DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES", None)

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        with open(self.logs / f"{name}.log", "ab") as log:
            proc = subprocess.Popen(self.dask + args, env=self.env, stdout=log, stderr=log,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs[name] = proc
        return proc

    def start_scheduler(self) -> None:
        proc = self._spawn("scheduler", ["scheduler", "--host", "127.0.0.1", "--port",
                                         str(self.port), "--no-dashboard"])
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"bench_record_dask: dask scheduler exited ({proc.returncode}); "
                                 f"see {self.logs / 'scheduler.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("bench_record_dask: the dask scheduler did not open its port")

    def start_worker(self, name: str) -> subprocess.Popen[bytes]:
        return self._spawn(name, ["worker", self.address, "--host", "127.0.0.1", "--name", name,
                                  "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                  "--death-timeout", "60"])

    def kill(self, name: str) -> None:
        """SIGKILL the process group of ``name``."""
        proc = self.procs[name]
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=WAIT_S)

    def stop(self) -> None:
        for proc in reversed(list(self.procs.values())):  # workers first, then the scheduler
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=WAIT_S)


# ------------------------------------------------------------------------------------ CPU
_TICK = os.sysconf("SC_CLK_TCK")


def _proc_stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its waited-for children) from /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    ppid = int(fields[1])
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return ppid, (utime + stime + cutime + cstime) / _TICK


class CpuSampler:
    """Last seen CPU seconds of every cluster process and of the processes they started."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.cpu: dict[int, float] = {}
        self.role: dict[int, str] = {}
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        roots = {p.pid: name for name, p in self.cluster.procs.items()}
        found = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                st = _proc_stat(int(entry))
                if st is None:
                    continue
                pid = int(entry)
                if pid in roots:
                    found[pid] = ("scheduler" if roots[pid] == "scheduler" else "workers", st[1])
                elif st[0] in roots:
                    found[pid] = ("scheduler" if roots[st[0]] == "scheduler" else "workers",
                                  st[1])
        with self.lock:
            for pid, (role, cpu) in found.items():
                self.cpu[pid] = cpu
                self.role[pid] = role

    def _run(self) -> None:
        while not self.stopped.wait(0.5):
            self.sample()

    def totals(self) -> dict[str, float]:
        self.sample()
        with self.lock:
            out: dict[str, float] = defaultdict(float)
            for pid, cpu in self.cpu.items():
                out[self.role[pid]] += cpu
            return dict(out)

    def pids(self) -> set[int]:
        with self.lock:
            return set(self.cpu)


# ------------------------------------------------------------------------------------ worker side
def _executing(dask_worker: Any) -> dict[str, Any]:
    """On a dask worker: the keys it is executing, with the seconds each has run, and the keys
    whose results it holds (computed, not yet fetched by the client: lost with the worker)."""
    now = time.time()
    return {"executing": {str(ts.key): now - (ts.start_time or now)
                          for ts in dask_worker.state.executing},
            "held": [str(k) for k in dask_worker.data]}


def _sandbox_pids() -> list[int]:
    from nonosat.batch.sandbox import sandbox_pids

    return sandbox_pids()


def warm_workers(client: Any, workers: dict[str, str], timeout: float) -> float:
    """Run each mode's warm-up (imports, kernel loading) in every worker's puzzle process."""
    from nonosat.batch.jobs import JOBS, JobOptions
    from nonosat.batch.sandbox import Task, run_task
    from nonosat.puzzle import Puzzle

    t0 = time.perf_counter()
    tiny = Puzzle(((1,), ()), ((1,), ()))
    futures = [client.submit(run_task, Task("warm-up", tiny, JOBS[job], JobOptions(
        timeout=timeout)), workers=[address], allow_other_workers=False, pure=False)
        for address in workers.values() for job, _ in MODES.values()]
    for f in futures:
        f.result(timeout=WAIT_S * 5)
    return time.perf_counter() - t0


# ------------------------------------------------------------------------------------ nonosolve
def nonosolve_rows(stem: str, pairs: list[tuple[str, Any]], mode: str, timeout: float,
                   cache: Path, until: float | None = None) -> dict[str, Any] | None:
    """nonosolve's verdict per puzzle number of one set and mode (cached in ``cache``); ``None``
    when it is not cached and ``until`` (epoch seconds) has passed; ``{"error": ...}`` (not
    cached: the next run tries again) when nonosolve exits with an error or is killed."""
    numbers = [number_of(i) for i, _ in pairs]
    tag = f"{stem}-n{mode}-{len(numbers)}"
    out = cache / f"{tag}.json"
    if out.exists():
        data: dict[str, Any] = json.loads(out.read_text())
        if data["numbers"] == numbers and not data.get("skipped"):
            return data
    if until is not None and time.time() > until:
        return None
    source = QUESTIONS / f"{stem}.txt"
    chunks = [c for c in re.split(r"(?m)^(?=\$)", source.read_text()) if c.startswith("$")]
    by_number = {int(c.split()[0][1:]): c for c in chunks}
    with tempfile.TemporaryDirectory(prefix="bench_record_nonosolve_") as t:
        tmp = Path(t)
        file = tmp / f"{stem}.txt"
        file.write_text("".join(by_number[n] if by_number[n].endswith("\n")
                                else by_number[n] + "\n" for n in numbers))
        log = tmp / "log.txt"
        before = os.times()
        try:
            subprocess.run([str(NONOSOLVE), "--taai", str(file), "-n", mode, "-o",
                            str(tmp / "sol.txt"), "--log", str(log), "--timeout", str(timeout)],
                           check=True, stdout=subprocess.DEVNULL)
        except subprocess.CalledProcessError as e:  # killed from outside, or crashed: no rows
            return {"error": f"nonosolve exited with {e.returncode}"}
        after = os.times()
        verdicts = {}
        for line in log.read_text().splitlines():
            f = line.split("\t")
            if len(f) >= 3 and f[0].startswith("#"):
                verdicts[f[0][1:]] = _NONOSOLVE_VERDICT.get(f[2], f[2].lower())
    data = {"numbers": numbers, "verdicts": verdicts,
            "cpu_s": (after.children_user - before.children_user)
            + (after.children_system - before.children_system)}
    cache.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data))
    return data


# ------------------------------------------------------------------------------------ the run
class Killer:
    """Kills worker ``w1`` after ``seconds`` and starts ``w3``; remembers what that cost."""

    def __init__(self, cluster: Cluster, client: Any, seconds: float | None):
        self.cluster, self.client, self.seconds = cluster, client, seconds
        self.info: dict[str, Any] = {"killed": False}
        self.done = threading.Event()
        self.timer: threading.Timer | None = None

    def arm(self) -> None:
        if self.seconds is not None and not self.info["killed"] and self.timer is None:
            self.timer = threading.Timer(self.seconds, self._kill)
            self.timer.daemon = True
            self.timer.start()

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _kill(self) -> None:
        try:
            address = self.cluster.workers["w1"]
            state: dict[str, Any] = {}
            try:
                state = self.client.run(_executing, workers=[address],
                                        on_error="return").get(address) or {}
                if not isinstance(state, dict):
                    state = {}
            except Exception:  # noqa: BLE001 - the kill goes ahead; the figure says unknown
                pass
            self.cluster.kill("w1")
            t_kill = time.time()
            self.cluster.start_worker("w3")
            self.info.update(killed=True, at=t_kill, worker=address,
                             executing=state.get("executing", {}), held=state.get("held", []))
        finally:
            self.done.set()


def run_modes(args: Any, cluster: Cluster, puzzles: dict[str, list[tuple[str, Any]]],
              workdir: Path) -> dict[str, Any]:
    """Set after set, each mode in turn, through :func:`nonosat.batch.run_batch` on the
    cluster; stops before a set once ``args.until`` (epoch seconds) has passed."""
    from distributed import Client

    from nonosat.batch import ResultsFile

    modes = args.modes.split(",")
    out: dict[str, Any] = {"modes": {}, "done_sets": [], "set_walls": {}}
    for mode in modes:
        job, title = MODES[mode]
        out["modes"][mode] = {"job": job, "title": title, "puzzles": 0, "wall_s": 0.0,
                              "workers_cpu_s": 0.0, "scheduler_cpu_s": 0.0, "batch_cpu_s": 0.0,
                              "per_worker": {}, "completed_tasks": 0}
    with Client(cluster.address, timeout=WAIT_S, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=WAIT_S)
        names = {w["name"]: a for a, w in client.scheduler_info()["workers"].items()}
        cluster.workers.update(names)
        out["warm_up_s"] = warm_workers(client, names, args.timeout)
        sampler = CpuSampler(cluster)
        sampler.sample()
        sampler.thread.start()
        killer = Killer(cluster, client, args.kill_after)
        done_keys: Counter[str] = Counter()
        compute_s: dict[str, float] = {}
        sandboxes: set[int] = set()
        try:
            with ResultsFile(workdir / "results.jsonl") as results:
                killer.arm()
                for stem, pairs in puzzles.items():
                    if args.until is not None and time.time() > args.until:
                        break
                    walls = {}
                    for mode in modes:
                        walls[mode] = run_one(args, cluster, client, sampler, results, stem,
                                              pairs, mode, out["modes"][mode], done_keys,
                                              compute_s)
                        if killer.info["killed"] and "mode" not in killer.info:
                            killer.info["mode"] = mode
                            killer.info["set"] = stem
                    out["done_sets"].append(stem)
                    out["set_walls"][stem] = walls
            killer.disarm()
            if killer.info["killed"]:
                # the replacement's first result: its start-up and kernel loading are the cost
                firsts = [m["per_worker"].get("w3", {}).get("first_done")
                          for m in out["modes"].values()]
                firsts = [f for f in firsts if f and f < 1e17]
                killer.info["replacement_first_s"] = (min(firsts) - killer.info["at"]
                                                      if firsts else None)
            for pids in client.run(_sandbox_pids, on_error="return").values():
                if isinstance(pids, list):
                    sandboxes.update(pids)
        finally:
            killer.disarm()
            sampler.stopped.set()
    out["kill"] = killer.info
    out["done_keys"] = done_keys
    out["compute_s"] = compute_s
    out["cluster_pids"] = sampler.pids() | sandboxes | {p.pid for p in cluster.procs.values()}
    return out


def run_one(args: Any, cluster: Cluster, client: Any, sampler: CpuSampler, results: Any,
            stem: str, pairs: list[tuple[str, Any]], mode: str, acc: dict[str, Any],
            done_keys: Counter[str], compute_s: dict[str, float]) -> float:
    """One set in one mode, the figures added to ``acc``; returns the wall seconds."""
    from distributed import get_task_stream

    from nonosat.batch import BatchConfig, pending, run_batch
    from nonosat.batch.jobs import JOBS, JobOptions
    from nonosat.batch.run import task_key
    from nonosat.batch.sandbox import Task

    job, title = MODES[mode]
    config = BatchConfig(job=job, timeout=args.timeout)
    todo = pending(pairs, results, config)
    keys = {task_key(Task(i, p, JOBS[job], JobOptions(engine="auto", timeout=args.timeout),
                          config.deadline_s())) for i, p in todo}
    cpu0, own0, t0 = sampler.totals(), time.process_time(), time.perf_counter()
    with get_task_stream(client) as stream:
        run_batch(todo, config, results=results, scheduler=cluster.address)
        wall = time.perf_counter() - t0
    cpu1, own1 = sampler.totals(), time.process_time()
    cluster.workers.update({w["name"]: a for a, w in client.scheduler_info()["workers"].items()})
    address_name = {a: n for n, a in cluster.workers.items()}
    ours = [t for t in stream.data if t.get("key") in keys]
    for t in ours:
        done_keys[t["key"]] += 1
        name = address_name.get(t["worker"], t["worker"])
        compute_s[t["key"]] = sum(ss["stop"] - ss["start"] for ss in t.get("startstops", [])
                                  if ss.get("action") == "compute")
        w = acc["per_worker"].setdefault(
            name, {"puzzles": 0, "compute_s": 0.0, "first_done": 1e18, "last_done": 0.0})
        for ss in t.get("startstops", []):
            if ss.get("action") == "compute":
                w["compute_s"] += ss["stop"] - ss["start"]
                w["first_done"] = min(w["first_done"], ss["stop"])
                w["last_done"] = max(w["last_done"], ss["stop"])
        w["puzzles"] += 1
    acc["puzzles"] += len(todo)
    acc["wall_s"] += wall
    acc["workers_cpu_s"] += cpu1.get("workers", 0) - cpu0.get("workers", 0)
    acc["scheduler_cpu_s"] += cpu1.get("scheduler", 0) - cpu0.get("scheduler", 0)
    acc["batch_cpu_s"] += own1 - own0
    acc["completed_tasks"] += len(ours)
    print(f"#   {stem} {title}: {len(todo)} puzzles, {wall:.1f} s", file=sys.stderr, flush=True)
    return wall


def alive(pids: set[int]) -> list[int]:
    """The pids of ``pids`` still running (not zombies)."""
    out = []
    for pid in pids:
        st = Path(f"/proc/{pid}/stat")
        try:
            state = st.read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            out.append(pid)
    return out


def next_utc(hhmm: str | None) -> float | None:
    """Epoch seconds of the next ``HH:MM`` UTC: today's, or tomorrow's once today's has passed
    (``--until 00:08`` given at 23:40 means in 28 minutes, not 23 hours ago)."""
    if not hhmm:
        return None
    hh, mm = (int(x) for x in hhmm.split(":"))
    now = time.gmtime()
    at = calendar.timegm((now.tm_year, now.tm_mon, now.tm_mday, hh, mm, 0, 0, 0, 0))
    return at if at > time.time() else at + 86400


def main() -> int:
    ap = argument_parser(__doc__)
    ap.add_argument("--sets", help="set stems, comma-separated (default: all 30)")
    ap.add_argument("--sample", type=int, help="every k-th puzzle, N per set")
    ap.add_argument("--modes", default="2,1", help="2 uniqueness (check), 1 first solution")
    ap.add_argument("--kill-after", type=float, default=60.0,
                    help="seconds after the batch starts to SIGKILL worker w1 (negative: never)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per puzzle")
    ap.add_argument("--workdir", type=Path, help="results and caches (default: a temporary "
                    "directory, removed at the end); give one to resume an interrupted run")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--until", help="HH:MM (UTC): start no new set after this time; the sets "
                    "done are checked and reported, the rest run when the same command is "
                    "given again with the same --workdir")
    ap.add_argument("--reference-until", help="HH:MM (UTC): run no nonosolve after this time; "
                    "the sets left are reported as not compared (same command again with the "
                    "same --workdir compares them)")
    args = ap.parse_args()
    args.until_text = args.until
    args.until = next_utc(args.until)
    args.reference_until = next_utc(args.reference_until)
    if args.kill_after is not None and args.kill_after < 0:
        args.kill_after = None
    for mode in args.modes.split(","):
        if mode not in MODES:
            raise SystemExit(f"bench_record_dask: unknown mode {mode!r} (2 or 1)")
    if not NONOSOLVE.exists():
        raise SystemExit(f"bench_record_dask: {NONOSOLVE} is missing (../shared/peers/README.md)")

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    own_tmp = args.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="bench_record_dask_")) if own_tmp else args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "logs").mkdir(exist_ok=True)
    files = record_sets(args.sets)
    puzzles = load_puzzles(files, args.sample)
    total = sum(len(p) for p in puzzles.values())
    load = os.getloadavg()
    print(f"# {len(files)} sets, {total} puzzles, modes {args.modes}; load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; workdir {workdir}", flush=True)
    cluster = Cluster(workdir / "logs")
    t_start = time.perf_counter()
    try:
        cluster.start_scheduler()
        cluster.start_worker("w1")
        cluster.start_worker("w2")
        run = run_modes(args, cluster, puzzles, workdir)
    except KeyboardInterrupt:
        cluster.stop()
        if own_tmp:
            shutil.rmtree(workdir, ignore_errors=True)
        print("# interrupted: the cluster is stopped" + ("" if own_tmp else
              f"; the results so far are in {workdir}"), flush=True)
        return 130
    finally:
        cluster.stop()
    run_wall = time.perf_counter() - t_start
    (workdir / "run.json").write_text(json.dumps(  # the cluster's figures, before nonosolve runs
        {k: v for k, v in run.items() if k != "cluster_pids"}, indent=1, default=str))
    time.sleep(1.0)  # PR_SET_PDEATHSIG is delivered asynchronously
    left = alive(run.pop("cluster_pids"))
    not_done = [stem for stem in puzzles if stem not in run["done_sets"]]
    done = {stem: pairs for stem, pairs in puzzles.items() if stem in run["done_sets"]}
    report = check_and_report(args, done, workdir, run, run_wall, left, load)
    report["sets_not_run"] = not_done
    if not_done:
        print(f"# not run (--until {args.until_text}): {', '.join(not_done)}; give the same "
              f"command again with --workdir {workdir} to run them", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    if own_tmp:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if report["ok"] else 1


def check_and_report(args: Any, puzzles: dict[str, list[tuple[str, Any]]], workdir: Path,
                     run: dict[str, Any], run_wall: float, left: list[int],
                     load: tuple[float, float, float]) -> dict[str, Any]:
    from nonosat.batch import read_records

    records = read_records(workdir / "results.jsonl")
    per_key = Counter((r["id"], r["job"]) for r in records)
    status = {(r["id"], r["job"]): r.get("status") for r in records}
    modes = args.modes.split(",")
    problems: list[str] = []
    # exactly one record per puzzle and mode
    for mode in modes:
        job = MODES[mode][0]
        for pairs in puzzles.values():
            for i, _ in pairs:
                n = per_key[(i, job)]
                if n != 1:
                    problems.append(f"{i} {job}: {n} records")
    twice = {k: n for k, n in run["done_keys"].items() if n > 1}
    kill = run["kill"]
    executing, held = list(kill.get("executing", {})), set(kill.get("held", []))
    for mode, m in run["modes"].items():
        # a result the killed worker held is computed again (allowed, checked per task below)
        again = sum(n - 1 for k, n in twice.items()
                    if k in held and k.startswith(f"nonosat-{MODES[mode][0]}-"))
        if m["completed_tasks"] - again != m["puzzles"]:
            problems.append(f"mode {mode}: {m['completed_tasks']} tasks completed on the "
                            f"cluster for {m['puzzles']} puzzles ({again} held by the killed "
                            "worker and computed again)")
    # a task completes twice only when the killed worker held its result (not yet fetched)
    problems += [f"task {k} completed {n} times" for k, n in twice.items()
                 if n > 2 or k not in held]
    for key in executing:
        if run["done_keys"].get(key) != 1:
            problems.append(f"killed task {key} completed {run['done_keys'].get(key, 0)} times")
    kill["rerun_executing"] = len(executing)
    kill["rerun_held"] = len(twice)
    kill["discarded_s"] = sum(kill.get("executing", {}).values()) + sum(
        run["compute_s"].get(k, 0.0) for k in twice)
    rerun = executing + list(twice)
    if left:
        problems.append(f"processes left running: {left}")
    # verdicts against nonosolve, one set and mode at a time, the cluster stopped
    print(f"# nonosolve: {len(puzzles)} sets x {len(modes)} modes, one process at a time",
          flush=True)
    sets: list[dict[str, Any]] = []
    disagreements: list[str] = []
    nonosolve_cpu: Counter[str] = Counter()
    not_compared: list[str] = []
    undecided: list[str] = []
    for stem, pairs in puzzles.items():
        row: dict[str, Any] = {"set": stem, "puzzles": len(pairs)}
        for mode in modes:
            job = MODES[mode][0]
            ref = nonosolve_rows(stem, pairs, mode, args.timeout, workdir / "nonosolve",
                                 args.reference_until)
            ours: Counter[str] = Counter(str(status.get((i, job))) for i, _ in pairs)
            row[mode] = dict(ours)
            if ref is None or "error" in ref:
                not_compared.append(f"{stem} -n {mode}" + (f" ({ref['error']})" if ref else ""))
                continue
            nonosolve_cpu[mode] += ref["cpu_s"]
            for i, _ in pairs:
                mine = status.get((i, job))
                theirs = ref["verdicts"].get(str(number_of(i)))
                if mine not in _DECIDED or (theirs in _DECIDED and mine != theirs):
                    disagreements.append(f"{i} {job}: nonosat {mine}, nonosolve {theirs}")
                elif theirs not in _DECIDED:  # nonosolve's timeout: no verdict to compare
                    undecided.append(f"{i} {job}: nonosat {mine}, nonosolve {theirs}")
        sets.append(row)
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "set_walls": run.get("set_walls"),
        "load_average": load, "sets": sets, "run_wall_s": run_wall,
        "warm_up_s": run.get("warm_up_s"), "modes": run["modes"],
        "nonosolve_cpu_s": dict(nonosolve_cpu), "kill": {k: v for k, v in kill.items()},
        "rerun_tasks": len(rerun), "tasks_completed_twice": len(twice),
        "disagreements": disagreements, "problems": problems, "processes_left": left,
        "not_compared": not_compared, "nonosolve_undecided": undecided,
    }
    report["ok"] = not problems and not disagreements
    print_table(report)
    return report


def print_table(report: dict[str, Any]) -> None:
    print()
    print("| mode | puzzles | wall s | workers CPU s | scheduler CPU s | batch CPU s | "
          "nonosolve CPU s | per worker: puzzles, compute s, puzzles/s compute, /s wall |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, m in report["modes"].items():
        workers = "; ".join(
            f"{n} {w['puzzles']}, {w['compute_s']:.1f} s, "
            f"{w['puzzles'] / w['compute_s'] if w['compute_s'] else 0:.1f}/s, "
            f"{w['puzzles'] / m['wall_s'] if m['wall_s'] else 0:.1f}/s"
            for n, w in m["per_worker"].items())
        print(f"| {m['title']} | {m['puzzles']} | {m['wall_s']:.1f} | {m['workers_cpu_s']:.1f} "
              f"| {m['scheduler_cpu_s']:.1f} | {m['batch_cpu_s']:.1f} | "
              f"{report['nonosolve_cpu_s'].get(mode, 0):.1f} | {workers} |")
    kill = report["kill"]
    if kill.get("killed"):
        lost = kill["discarded_s"]
        first = kill.get("replacement_first_s")
        print(f"\nkill: w1 SIGKILLed during {kill.get('set')} {MODES[kill.get('mode', '2')][1]}; "
              f"tasks rerun {report['rerun_tasks']} ({kill['rerun_executing']} running, "
              f"{kill['rerun_held']} finished but not fetched; work discarded {lost:.2f} s); "
              f"replacement w3's first "
              f"result {first if first is None else round(first, 1)} s after the kill; "
              f"worker-seconds lost {lost + (first or 0):.1f} (wall ~{(lost + (first or 0)) / 2:.1f}"
              f" s with 2 workers); records per puzzle and mode: exactly 1")
    else:
        print("\nkill: none (the run ended first, or --kill-after was negative)")
    verdicts: Counter[str] = Counter()
    for s in report["sets"]:
        for mode in report["modes"]:
            for k, n in s.get(mode, {}).items():
                verdicts[f"{mode}:{k}"] += n
    print(f"verdicts: {dict(verdicts)}; disagreements with nonosolve: "
          f"{len(report['disagreements'])} {report['disagreements'][:10]}; nonosolve undecided "
          f"{len(report['nonosolve_undecided'])} {report['nonosolve_undecided'][:5]}; "
          f"not compared "
          f"(--reference-until, or nonosolve failed): {', '.join(report['not_compared']) or 'none'}")
    print(f"checks: {'ok' if report['ok'] else 'FAILED'} {report['problems'][:10]}; processes "
          f"left {len(report['processes_left'])}; whole run {report['run_wall_s']:.1f} s "
          f"(warm-up {report['warm_up_s'] or 0:.1f} s)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
