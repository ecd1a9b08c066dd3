"""*Keep trying*: verdicts that run on in the background, up to a limit the author chooses.

The live verdict of the editor has a few seconds; a hard puzzle (Faase) needs tens.  A background
job runs the same analysis (:func:`nonosat.studio.quick.quick_analyse`) in a thread of its own
(never one of the request pool's, so it cannot hold up the live verdicts) under a time limit of
at most :data:`MAX_LIMIT_S`, and the page polls it: elapsed time, the phase, and what is known so
far (the verdict once it is in, then the map's proved, ambiguous and undecided counts).  A job is
cancelled by ``DELETE``, by a newer job of the same ``client``, or by its limit (the work is
given it as a deadline, and its :class:`~nonosat.stop.StopToken` is armed for
:data:`GRACE_S` later as a backstop).  A verdict reached within the limit is ``done`` even
when the map could not be completed (``backbone_complete`` false, ``known.undecided`` the cells
left open).  At most :data:`MAX_RUNNING` run at once
(more: 503; a cancelled job counts until its thread has returned); a finished job is kept for :data:`KEEP_S` seconds for the page to read.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from nonosat.stop import CANCELLED, TIME_LIMIT
from nonosat.studio.runner import Busy, JobToken

#: Largest time limit of a background verdict (seconds).
MAX_LIMIT_S = 300.0
#: Default time limit (seconds).
DEFAULT_LIMIT_S = 60.0
#: Background jobs running at once; more are refused (503).
MAX_RUNNING = 2
#: Seconds past its limit after which a job's token is set (the work itself ends by the limit:
#: this stops what overruns it, such as suggestions).
GRACE_S = 5.0
#: Seconds a finished job stays readable.
KEEP_S = 600.0
#: Finished jobs kept at most (the oldest are forgotten first).
MAX_KEPT = 64

#: What a job can be.
STATES = ("running", "done", "cancelled", "gave up", "failed")


class BackgroundJob:
    """One background verdict.

    Attributes
    ----------
    id : str
        16 hex digits (random).
    limit_s : float
        Its time limit.
    token : JobToken
        Set to stop it (cancel, supersession, time limit).
    state : str
        One of :data:`STATES`.
    phase : str
        What it is doing (``"verdict"``, ``"grade"``, ``"map"``, ``"suggestions"``, ``"done"``).
    known : dict
        What is known so far: ``status`` and ``verdict_s`` (seconds to it) once the verdict is
        in, ``proved``, ``ambiguous``, ``undecided`` (cell counts, once known).
    result : dict or None
        The answer (the ``POST /api/analyse`` object) once done.
    detail : str or None
        One line when it failed, gave up or was cancelled.
    """

    def __init__(self, limit_s: float, client: str | None):
        self.id = secrets.token_hex(8)
        self.client = client
        self.limit_s = limit_s
        self.token = JobToken()
        self.started = time.monotonic()
        self.ended: float | None = None
        self.state = "running"
        self.phase = "queued"
        self.known: dict[str, Any] = {}
        self.result: dict[str, Any] | None = None
        self.detail: str | None = None
        self.alive = True  # its thread has not returned (a cancelled job may still be ending)
        self._lock = threading.Lock()

    def update(self, phase: str, known: dict[str, Any]) -> None:
        """Record the phase and what is known (called from the job's thread)."""
        with self._lock:
            self.phase = phase
            if "status" in known and "verdict_s" not in self.known:
                self.known["verdict_s"] = round(time.monotonic() - self.started, 3)
            self.known.update(known)

    def finish(self, state: str, result: dict[str, Any] | None = None,
               detail: str | None = None) -> None:
        with self._lock:
            if self.state != "running":
                return
            self.state, self.result, self.detail = state, result, detail
            self.phase = "done"
            self.ended = time.monotonic()
            if result is not None:
                cells = int(result.get("width", 0)) * int(result.get("height", 0))
                n = len(result.get("ambiguous", ()))
                status = result.get("status")
                self.known["status"] = status
                if status == "unique":
                    self.known.update(proved=cells, ambiguous=0, undecided=0)
                elif status == "multiple":
                    complete = bool(result.get("backbone_complete"))
                    self.known.update(ambiguous=n, proved=cells - n if complete else
                                      self.known.get("proved", 0),
                                      undecided=0 if complete else
                                      cells - n - int(self.known.get("proved", 0)))

    def to_json(self) -> dict[str, Any]:
        """The ``GET /api/keep-trying/{id}`` answer (docs/studio.md)."""
        with self._lock:
            end = self.ended if self.ended is not None else time.monotonic()
            return {"job": self.id, "state": self.state, "phase": self.phase,
                    "elapsed_s": round(end - self.started, 3), "limit_s": self.limit_s,
                    "known": dict(self.known), "result": self.result, "detail": self.detail}


class BackgroundJobs:
    """The server's background verdicts (``app.state.background``).

    Parameters
    ----------
    max_running : int
        Jobs running at once; :meth:`start` raises :class:`~nonosat.studio.runner.Busy` beyond.
    grace_s : float
        Seconds past a job's limit after which its token is set.
    """

    def __init__(self, max_running: int = MAX_RUNNING, grace_s: float = GRACE_S):
        self.max_running = max_running
        self.grace_s = grace_s
        self._jobs: dict[str, BackgroundJob] = {}
        self._lock = threading.Lock()

    def start(self, work: Callable[[BackgroundJob], dict[str, Any]], limit_s: float,
              client: str | None = None) -> BackgroundJob:
        """Start ``work(job)`` in a thread of its own under ``limit_s`` seconds.

        ``work`` returns the result, raises :class:`~nonosat.studio.quick.Cancelled` when the
        token was set, or any other exception (the job then fails with its first line).  A
        running job of the same ``client`` is cancelled first.

        Raises
        ------
        Busy
            :data:`MAX_RUNNING` jobs are running.
        """
        with self._lock:
            self._forget()
            if client is not None:
                for old in self._jobs.values():
                    if old.client == client and old.state == "running":
                        self._cancel(old, "cancelled: a newer job replaced it")
            if sum(1 for j in self._jobs.values() if j.alive) >= self.max_running:
                raise Busy(retry_after=5)
            job = BackgroundJob(limit_s, client)
            self._jobs[job.id] = job
        job.token.arm(limit_s + self.grace_s)
        threading.Thread(target=self._run, args=(job, work), name=f"nonosat-keep-{job.id}",
                         daemon=True).start()
        return job

    def _run(self, job: BackgroundJob, work: Callable[[BackgroundJob], dict[str, Any]]) -> None:
        from nonosat.studio.quick import Cancelled

        try:
            result = work(job)
        except Cancelled:
            result = None
        except Exception as exc:  # noqa: BLE001 - a failed job says why; the server goes on
            line = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
            job.finish("failed", detail=line)
            return
        finally:
            job.token.close()
            job.alive = False
        if job.token.is_set() and (result is None or result.get("status") == "unknown"):
            if int(job.token.flag[0]) == TIME_LIMIT:
                job.finish("gave up", result=result,
                           detail=f"not decided within the limit of {job.limit_s:g} s")
            else:
                job.finish("cancelled", detail="cancelled")
            return
        if result is None:
            job.finish("cancelled", detail="cancelled")
        elif result.get("status") == "unknown":
            job.finish("gave up", result=result,
                       detail=f"not decided within the limit of {job.limit_s:g} s")
        else:
            job.finish("done", result=result)

    def get(self, job_id: str) -> BackgroundJob:
        """The job.

        Raises
        ------
        KeyError
            Unknown (or forgotten) id.
        """
        with self._lock:
            self._forget()
            return self._jobs[job_id]

    def cancel(self, job_id: str) -> BackgroundJob:
        """Cancel a job (a finished one is left as it is).

        Raises
        ------
        KeyError
            Unknown id.
        """
        with self._lock:
            job = self._jobs[job_id]
            self._cancel(job, "cancelled")
            return job

    @staticmethod
    def _cancel(job: BackgroundJob, detail: str) -> None:
        job.token.set(CANCELLED)
        job.finish("cancelled", detail=detail)  # its thread ends at its next check

    def _forget(self) -> None:
        now = time.monotonic()
        ended = sorted((j for j in self._jobs.values() if j.ended is not None and not j.alive),
                       key=lambda j: j.ended or 0.0)
        for k, job in enumerate(ended):
            if now - (job.ended or now) > KEEP_S or len(ended) - k > MAX_KEPT:
                del self._jobs[job.id]

    def running(self) -> int:
        """Jobs whose thread is running now (cancelled ones included, until they return)."""
        with self._lock:
            return sum(1 for j in self._jobs.values() if j.alive)

    def shutdown(self) -> None:
        """Cancel every running job."""
        with self._lock:
            for job in self._jobs.values():
                if job.state == "running":
                    self._cancel(job, "the server stopped")
