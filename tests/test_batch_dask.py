"""Batch runs on dask.distributed: a real ``LocalCluster`` with two worker processes, and a
scheduler and a worker started as separate processes on loopback, driven through
``nonosat batch --scheduler``.  Both must give the verdicts a local run gives, and keep the
per-puzzle isolation (a hang is a timeout, a crash is recorded) on the dask workers.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from test_batch import DOUBLE, by_id, puzzle, write_non
from test_batch_doubles import expected_status

from nonosat.batch import BatchConfig, read_records, run_batch

distributed = pytest.importorskip("distributed")

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

#: Upper bound on any wait for the cluster (start-up, connection, shutdown).
WAIT_SECONDS = 60.0


@pytest.fixture(scope="module")
def local_cluster():
    """A ``LocalCluster`` of two worker processes (one thread each, with nannies), shared by the
    tests of this module (starting one costs seconds)."""
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield cluster, client


def test_local_cluster_gives_the_local_verdicts_and_isolates_failures(local_cluster):
    items = [(f"p{k}", puzzle(3 + k % 4, seed=k)) for k in range(10)]
    items += [("hang", puzzle(3, "hang")), ("segfault", puzzle(3, "segfault"))]
    config = BatchConfig(job=DOUBLE, timeout=0.5, grace_s=0.5)
    _, client = local_cluster
    records = by_id(run_batch(items, config, executor=client.get_executor(pure=False)))
    worker_pids = set(client.run(os.getpid).values())
    assert records["hang"]["status"] == "timeout"
    assert records["segfault"]["status"] == "crashed"
    for puzzle_id, p in items[:10]:
        assert records[puzzle_id]["status"] == expected_status(p)
    # the jobs ran in sandboxes under the two dask workers, not in this process
    sandboxes = {int(r["worker"].rpartition(":")[2]) for r in records.values()}
    assert os.getpid() not in sandboxes and not sandboxes & worker_pids


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"dask scheduler exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("dask scheduler did not open its port in time")


def stop(proc: subprocess.Popen) -> None:
    """Stop a process group this test started: SIGTERM, then SIGKILL after a bounded wait."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=15)


def test_batch_through_a_scheduler_and_worker_started_as_processes(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    titles = [f"ok{k}" for k in range(6)] + ["hang", "exit"]
    puzzles = {t: puzzle(3 + k % 3, title=t, seed=k) for k, t in enumerate(titles)}
    for title, p in puzzles.items():
        write_non(corpus / f"{title}.non", p)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(TESTS), env.get("PYTHONPATH", "")])
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = []
    try:
        scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", str(port), "--no-dashboard"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        started.append(scheduler)
        wait_for_port(port, scheduler, time.monotonic() + WAIT_SECONDS)
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--host",
             "127.0.0.1", "--nworkers", "1", "--nthreads", "2", "--no-dashboard"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, cwd=tmp_path,
        )  # fmt: skip
        started.append(worker)
        with distributed.Client(address, timeout=WAIT_SECONDS) as client:
            client.wait_for_workers(1, timeout=WAIT_SECONDS)

        out = tmp_path / "r.jsonl"
        command = [sys.executable, "-c", "from nonosat.cli.app import main; main()", "batch", str(corpus), "--do", DOUBLE,
                   "--scheduler", address, "--out", str(out), "--timeout", "0.5", "--json"]  # fmt: skip
        run = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=WAIT_SECONDS, cwd=tmp_path
        )
        assert run.returncode == 4, run.stderr  # the hang timed out
        summary = json.loads(run.stdout)
        assert summary["puzzles"] == 8 and summary["ran"] == 8
        records = by_id(read_records(out))
        assert records[str(corpus / "hang.non")]["status"] == "timeout"
        assert records[str(corpus / "exit.non")]["status"] == "crashed"
        for title in titles[:6]:
            assert records[str(corpus / f"{title}.non")]["status"] == expected_status(
                puzzles[title]
            )

        again = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=WAIT_SECONDS, cwd=tmp_path
        )
        assert json.loads(again.stdout)["ran"] == 0, again.stderr
    finally:
        for proc in reversed(started):
            stop(proc)


def _held(dask_worker) -> list[str]:
    """On a dask worker: the keys it is executing or holds the result of."""
    return [str(ts.key) for ts in dask_worker.state.executing] + [str(k) for k in dask_worker.data]


def test_a_worker_killed_mid_run_loses_nothing_and_records_each_puzzle_once(tmp_path,
                                                                           local_cluster):
    from distributed import get_task_stream

    from nonosat.batch import ResultsFile
    from nonosat.batch.run import task_key

    # slow puzzles (0.3 s each), one given twice: one task (same key), one record
    items = [(f"p{k}", puzzle(3 + k, "slow", seed=k)) for k in range(5)]
    items.append(items[2])
    config = BatchConfig(job=DOUBLE, timeout=5.0)
    cluster, client = local_cluster
    killed: dict[str, list[str]] = {}

    def kill_one(record: dict) -> None:
        if killed:
            return
        for address, keys in client.run(_held).items():
            if keys:  # SIGKILL a worker in the middle of the run; its nanny restarts it
                pid = client.run(os.getpid, workers=[address])[address]
                os.kill(pid, signal.SIGKILL)
                killed["keys"] = keys
                return

    with ResultsFile(tmp_path / "r.jsonl") as results, get_task_stream(client) as stream:
        records = run_batch(items, config, results=results, scheduler=cluster.scheduler_address,
                            on_record=kill_one)
    assert killed, "no worker held a puzzle when the first record arrived"
    # each puzzle once, with the verdict the job gives it, in the run and in the file
    assert sorted(r["id"] for r in records) == [f"p{k}" for k in range(5)]
    on_file = read_records(tmp_path / "r.jsonl")
    assert sorted(r["id"] for r in on_file) == [f"p{k}" for k in range(5)]
    for puzzle_id, p in items[:5]:
        assert by_id(on_file)[puzzle_id]["status"] == expected_status(p)
    # on the cluster every puzzle's task completed, and only the tasks the killed worker was
    # running or held the result of completed twice
    done = Counter(t["key"] for t in stream.data if str(t["key"]).startswith("nonosat-"))
    keys = {task_key_of(task_key, pid, p, config) for pid, p in items[:5]}
    assert set(done) == keys
    assert {k for k, n in done.items() if n > 1} <= set(killed["keys"])
    assert all(n <= 2 for n in done.values())


def task_key_of(task_key, puzzle_id, p, config) -> str:
    from nonosat.batch.jobs import JobOptions, resolve_job
    from nonosat.batch.sandbox import Task

    options = JobOptions(engine="auto", timeout=config.timeout)
    return task_key(Task(puzzle_id, p, resolve_job(config.job), options, config.deadline_s()))
