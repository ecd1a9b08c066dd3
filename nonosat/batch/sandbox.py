"""Run job calls in a child process that can be killed from outside.

A compiled (numba) kernel that hangs cannot be interrupted from inside its process, and a puzzle
that segfaults or exhausts memory takes its process down.  So every batch job runs in a
:class:`Sandbox`: a long-lived child process (:mod:`nonosat.batch.child`) that executes one
call at a time.  The parent waits for the answer with a deadline; on overrun it kills the child
(``timeout``), on an unexpected end of the pipe it records how the child died (``crashed``), and
the next call starts a fresh child.  Keeping the child alive between puzzles makes the overhead per
puzzle a pipe round trip (well under a millisecond) instead of a process start.

The messages are described in :mod:`nonosat.batch.protocol`.

:func:`run_task` is what a batch executor runs: it uses one sandbox per executor thread (a thread
pool locally, a dask worker's task threads on a cluster), so *N* threads drive *N* children.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from nonosat.batch.jobs import Job, JobOptions
from nonosat.batch.protocol import HEADER, write_message
from nonosat.puzzle import Puzzle

_JOBS = "nonosat.batch.jobs"

#: Bytes of worker error output kept between calls (only the last call's is ever read).
_STDERR_KEEP = 1 << 20

#: Seconds a fresh child may take to start and run its job's warm-up (imports, numba compile).
STARTUP_SECONDS = 600.0


@dataclass(frozen=True)
class Outcome:
    """The answer to one sandboxed call.

    Attributes
    ----------
    kind : str
        ``"ok"``, ``"error"`` (the call raised), ``"timeout"`` (killed at the deadline) or
        ``"crashed"`` (the child died, or ran out of memory).
    value : object
        The call's return value when ``kind == "ok"``.
    error : str or None
        What went wrong, one line.
    wall_s : float
        Seconds from sending the call to receiving the answer (or giving up).
    pid : int or None
        Process id of the child that ran the call.
    """

    kind: str
    value: Any = None
    error: str | None = None
    wall_s: float = 0.0
    pid: int | None = None


class _Deadline(Exception):
    pass


class Sandbox:
    """A child Python process that runs calls one at a time; replaced when killed or dead.

    Parameters
    ----------
    memory_mb : int, optional
        Address-space limit of the child (``RLIMIT_AS``), in MiB; a job that exceeds it gets a
        ``MemoryError`` and is recorded as crashed (out of memory).

    Notes
    -----
    Not thread-safe: one thread drives one sandbox (:func:`run_task` keeps one per thread).
    :meth:`kill` alone may be called from another thread, to interrupt a batch.
    """

    def __init__(self, memory_mb: int | None = None):
        self.memory_mb = memory_mb
        self.warmed: set[Any] = set()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._stderr_mark = 0

    @property
    def pid(self) -> int | None:
        """Process id of the current child, if one is running."""
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._stderr is None:
            self._stderr = tempfile.TemporaryFile(prefix="nonosat-sandbox-")
        package_root = str(Path(__file__).resolve().parents[2])
        bootstrap = (
            "import sys; sys.path.insert(0, sys.argv.pop(1)); "
            "from nonosat.batch.child import main; sys.exit(main(sys.argv))"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", bootstrap, package_root, str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
            start_new_session=True,  # Ctrl-C reaches the batch, which then stops its children
        )
        self._proc = proc
        self.warmed.clear()
        assert proc.stdin is not None
        write_message(proc.stdin.fileno(), ("init", list(sys.path), self.memory_mb))
        return proc

    def call(self, target: str, args: tuple[Any, ...], timeout: float | None) -> Outcome:
        """Run ``target(*args)`` in the child, waiting at most ``timeout`` seconds.

        Parameters
        ----------
        target : str
            ``"module:function"``, imported in the child.
        args : tuple
            Picklable arguments.
        timeout : float or None
            Seconds before the child is killed (``None``: wait for ever).

        Returns
        -------
        Outcome
        """
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        pid = None
        try:
            proc = self._proc
            if proc is None or proc.poll() is not None:
                self._discard()
                proc = self._start()
            pid = proc.pid
            assert proc.stdin is not None and proc.stdout is not None
            self._mark_stderr()
            write_message(proc.stdin.fileno(), ("call", target, args))
            reply = self._receive(proc.stdout.fileno(), deadline)
        except _Deadline:
            self.kill()
            self._discard()
            return Outcome(
                "timeout",
                error=f"no answer after {timeout:.1f} s; worker killed",
                wall_s=time.perf_counter() - start,
                pid=pid,
            )
        except OSError:  # broken pipe: the child is gone
            reply = None
        wall = time.perf_counter() - start
        if reply is None:
            error = self._death_notice()
            self._discard()
            return Outcome("crashed", error=error, wall_s=wall, pid=pid)
        kind = reply[0]
        if kind == "ok":
            return Outcome("ok", value=reply[1], wall_s=wall, pid=pid)
        if kind == "oom":
            self.kill()  # a process that hit MemoryError is best not reused
            self._discard()
            return Outcome("crashed", error=reply[1], wall_s=wall, pid=pid)
        return Outcome("error", error=reply[1], wall_s=wall, pid=pid)

    @staticmethod
    def _receive(fd: int, deadline: float | None) -> Any:
        import pickle

        chunks: list[bytes] = []
        need = HEADER.size
        header = True
        while True:
            while need:
                if deadline is not None:
                    remaining = deadline - time.perf_counter()
                    if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                        raise _Deadline
                chunk = os.read(fd, min(need, 1 << 20))
                if not chunk:
                    return None
                chunks.append(chunk)
                need -= len(chunk)
            data = b"".join(chunks)
            chunks = []
            if not header:
                return pickle.loads(data)
            need = HEADER.unpack(data)[0]
            header = False
            if deadline is not None:  # the answer is arriving: let the body through
                deadline = max(deadline, time.perf_counter() + 60.0)

    def _mark_stderr(self) -> None:
        """Remember where the next call's error output starts (the child is idle now, so the
        file can also be emptied when it has grown)."""
        if self._stderr is not None:
            self._stderr.seek(0, os.SEEK_END)
            if self._stderr.tell() > _STDERR_KEEP:
                self._stderr.truncate(0)
                self._stderr.seek(0)
            self._stderr_mark = self._stderr.tell()

    def _death_notice(self) -> str:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if code is None:
            what = "worker stopped answering"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            what = f"worker killed by {name}"
            if -code == signal.SIGKILL:
                what += " (out of memory?)"
        else:
            what = f"worker exited with status {code}"
        tail = self._stderr_tail()
        return f"{what}: {tail}" if tail else what

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(self._stderr_mark)
        text = self._stderr.read()[-4096:].decode("utf-8", "replace")
        self._stderr.seek(0, os.SEEK_END)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def kill(self) -> None:
        """Kill the child at once (safe from another thread)."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass

    def _discard(self) -> None:
        proc, self._proc = self._proc, None
        self.warmed.clear()
        if proc is None:
            return
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    def close(self) -> None:
        """Stop the child (end of input, then kill after a second) and free the sandbox."""
        proc = self._proc
        if proc is not None and proc.poll() is None and proc.stdin is not None:
            try:
                proc.stdin.close()
                proc.wait(timeout=1.0)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
        self._discard()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


# -- one sandbox per executor thread ---------------------------------------------------------------

_local = threading.local()
_registry: list[Sandbox] = []
_registry_lock = threading.Lock()


def thread_sandbox(memory_mb: int | None = None) -> Sandbox:
    """The calling thread's sandbox (created on first use)."""
    sandbox: Sandbox | None = getattr(_local, "sandbox", None)
    if sandbox is None or sandbox.memory_mb != memory_mb:
        if sandbox is not None:
            sandbox.close()
        sandbox = Sandbox(memory_mb)
        _local.sandbox = sandbox
        with _registry_lock:
            _registry.append(sandbox)
    return sandbox


def kill_sandboxes() -> None:
    """Kill every child of this process's sandboxes (interrupting their calls)."""
    with _registry_lock:
        sandboxes = list(_registry)
    for sandbox in sandboxes:
        sandbox.kill()


def close_sandboxes() -> None:
    """Stop every sandbox of this process.  Call only when no thread is using them."""
    with _registry_lock:
        sandboxes = list(_registry)
        _registry.clear()
    for sandbox in sandboxes:
        sandbox.close()


def sandbox_pids() -> list[int]:
    """Process ids of the children this process's sandboxes are running now (on a dask worker:
    ``client.run(sandbox_pids)`` maps the ``worker`` pids of the records to dask workers)."""
    with _registry_lock:
        sandboxes = list(_registry)
    return [pid for pid in (s.pid for s in sandboxes) if pid is not None]


atexit.register(close_sandboxes)


# -- a batch task ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """One puzzle's job, as sent to an executor (picklable: it travels to dask workers).

    Attributes
    ----------
    id : str
        The puzzle's id (``file#N``).
    puzzle : Puzzle
    job : Job
    options : JobOptions
    deadline_s : float or None
        Seconds after which the worker is killed and the puzzle recorded as ``timeout``.
    memory_mb : int or None
        Address-space limit of the worker process, MiB.
    """

    id: str
    puzzle: Puzzle
    job: Job
    options: JobOptions
    deadline_s: float | None = None
    memory_mb: int | None = None


def run_task(task: Task) -> dict[str, Any]:
    """Run ``task`` in this thread's sandbox and return its results record.

    Each worker process first runs the job's warm-up (or imports the job's module) once, with
    :data:`STARTUP_SECONDS` to do it, so start-up is charged to no puzzle's time limit.

    The record holds ``id``, ``job``, ``puzzle`` (the id), ``width``, ``height``, the job's own
    fields (for solve and check: those of ``solve --json``), ``wall_s`` (seconds, including the
    round trip to the worker), ``worker`` (``host:pid``) and ``error`` (``None`` unless the job
    failed).  Failures are records too, with status ``timeout``, ``crashed`` or ``error``.
    """
    sandbox = thread_sandbox(task.memory_mb)
    record: dict[str, Any] = {
        "id": task.id,
        "job": task.job.name,
        "puzzle": task.id,
        "width": task.puzzle.width,
        "height": task.puzzle.height,
    }
    warm_key = (task.job.run, task.job.warmup, task.options.engine)
    if warm_key not in sandbox.warmed:
        if task.job.warmup is not None:
            outcome = sandbox.call(task.job.warmup, (task.options,), STARTUP_SECONDS)
        else:  # at least import the job's module outside the time limit
            outcome = sandbox.call(f"{_JOBS}:import_target", (task.job.run,), STARTUP_SECONDS)
        if outcome.kind != "ok":
            return _failed(record, outcome, "worker start-up failed: ")
        sandbox.warmed.add(warm_key)
    outcome = sandbox.call(task.job.run, (task.puzzle, task.options), task.deadline_s)
    if outcome.kind != "ok":
        return _failed(record, outcome, "")
    value = dict(outcome.value)
    value.pop("puzzle", None)
    record.update(value)
    record.setdefault("status", "error")
    record["wall_s"] = round(outcome.wall_s, 6)
    record["worker"] = _worker_name(outcome)
    record.setdefault("error", None)
    return record


def _failed(record: dict[str, Any], outcome: Outcome, prefix: str) -> dict[str, Any]:
    record["status"] = outcome.kind
    record["wall_s"] = round(outcome.wall_s, 6)
    record["worker"] = _worker_name(outcome)
    record["error"] = prefix + (outcome.error or outcome.kind)
    return record


def _worker_name(outcome: Outcome) -> str:
    return f"{socket.gethostname()}:{outcome.pid if outcome.pid is not None else os.getpid()}"
