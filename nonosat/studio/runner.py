"""Running solves off the event loop: stop tokens, supersession, disconnects and admission.

Every solving request runs in a worker thread (:class:`JobRunner`, a thread pool of
:data:`WORKERS` threads), so the event loop never blocks; the compiled kernels release the GIL
(``nogil=True``) for most of their work.  Each job gets its own :class:`JobToken` (a
:class:`nonosat.stop.StopToken`), which is set when

* a newer request with the same ``client`` key (one id per page and kind of request)
  *supersedes* it: the older request answers 409 at once;
* its client hangs up (the request polls ``request.is_disconnected()`` every
  :data:`POLL_S` while it waits): nobody would read the answer;
* the request is abandoned in any other way (the awaiting coroutine is cancelled).

The work function receives the token: it polls ``token.is_set()`` (or calls ``token()``, the
older ``should_stop`` interface) between steps and passes ``token`` on to the engines where they
take a ``stop=`` parameter (:func:`stop_kwargs`), whose compiled kernels read ``token.flag[0]``.
A job cancelled while still queued never starts.

**Admission.** At most ``workers + queue`` jobs are admitted at once (running, or queued and not
cancelled; a cancelled job keeps its slot until its thread ends, so that threads still finishing
count), except that a request superseding a live one takes its slot.  Beyond that
:meth:`JobRunner.run` raises :class:`Busy`, which the API answers 503 with
``Retry-After``.  Threads cannot be killed, so every solve must still carry a time limit:
:func:`clamp_timeout` caps it.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from nonosat.stop import CANCELLED, StopToken

#: Default seconds of a solve when the request gives none.
DEFAULT_TIMEOUT_S = 5.0
#: Largest time limit a request may ask for.
MAX_TIMEOUT_S = 30.0
#: Worker threads for solves.
WORKERS = 4
#: Jobs that may wait for a worker beyond those running; more are refused (503).
QUEUE = 8
#: Seconds between two checks of the client's connection while a job runs.
POLL_S = 0.05
#: ``Retry-After`` (seconds) of a refusal when the runner is full.
RETRY_AFTER_S = 1

T = TypeVar("T")


class Superseded(Exception):  # noqa: N818 - an outcome, not a failure
    """A newer request from the same client replaced this one (answered 409)."""


class Disconnected(Exception):  # noqa: N818 - an outcome, not a failure
    """The client hung up before the job finished; the job was cancelled."""


class Busy(Exception):  # noqa: N818 - an outcome, not a failure
    """Every worker and queue slot is taken (answered 503 with ``Retry-After``).

    Attributes
    ----------
    retry_after : int
        Seconds the client should wait before trying again.
    """

    def __init__(self, retry_after: int = RETRY_AFTER_S):
        super().__init__(f"the studio is busy: try again in {retry_after} s")
        self.retry_after = retry_after


#: How long a superseded or abandoned job may go on computing (issue 29: within 100 ms), the
#: :attr:`~nonosat.stop.StopToken.latency` of every job's token.
JOB_LATENCY_S = 0.1


class JobToken(StopToken):
    """A job's stop token; calling it is :meth:`is_set` (the ``should_stop`` callable that work
    functions written before stop tokens poll)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(latency=JOB_LATENCY_S)

    def __call__(self) -> bool:
        return self.is_set()


def clamp_timeout(timeout: float | None, default: float = DEFAULT_TIMEOUT_S,
                  cap: float = MAX_TIMEOUT_S) -> float:
    """The time limit to use: ``default`` when ``None`` or not a number (NaN), else
    ``timeout`` within ``[0, cap]`` seconds (infinity is ``cap``)."""
    if timeout is None or math.isnan(float(timeout)):
        return default
    return min(max(float(timeout), 0.0), cap)


def accepts_stop(func: Callable[..., Any]) -> bool:
    """Whether ``func`` declares a ``stop`` parameter (a :class:`~nonosat.stop.StopToken`)."""
    try:
        return "stop" in inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def stop_kwargs(func: Callable[..., Any], token: StopToken | None) -> dict[str, Any]:
    """``{"stop": token}`` when ``func`` takes a ``stop=`` parameter, else ``{}``: the one place
    that lets the studio pass its tokens to engines before and after they take them."""
    if token is None or not accepts_stop(func):
        return {}
    return {"stop": token}


class _Ticket:
    __slots__ = ("seq", "token", "superseded", "started", "cancelled_at", "ended_at")

    def __init__(self, seq: int):
        self.seq = seq
        self.token = JobToken()  # polled by the worker thread
        self.superseded = asyncio.Event()  # awaited by the request (event-loop side)
        self.started = False
        self.cancelled_at: float | None = None
        self.ended_at: float | None = None

    def cancel(self, superseded: bool = True) -> None:
        if self.cancelled_at is None:
            self.cancelled_at = time.perf_counter()
        self.token.set(CANCELLED)
        if superseded:
            self.superseded.set()


class JobRunner:
    """Runs blocking functions in a thread pool: one live job per client, bounded admission.

    Parameters
    ----------
    workers : int
        Threads in the pool.
    queue : int
        Jobs that may wait for a thread; beyond ``workers + queue`` live jobs, :class:`Busy`.
    ready : threading.Event, optional
        Set once the compiled kernels are loaded (the server's warm-up,
        :func:`nonosat.studio.asgi.warm_up`): until then a job waits, as if queued, before it
        starts, and one cancelled meanwhile never starts.  Loading a kernel cannot be
        interrupted (a first analysis in a fresh process spent about 400 ms in it), so no job
        should be the one to load it.

    Attributes
    ----------
    counts : dict of str to int
        ``admitted``, ``refused`` (busy), ``superseded``, ``disconnected``, ``skipped``
        (cancelled before they started).
    stop_latencies : collections.deque of float
        Seconds from a job's cancel to its thread's end, for the last 200 cancelled jobs that
        had started (what :mod:`benchmarks.bench_studio` reports).
    """

    def __init__(self, workers: int = WORKERS, queue: int = QUEUE,
                 ready: threading.Event | None = None):
        self.workers = workers
        self.queue = queue
        self.ready = ready
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nonosat-job")
        self._lock = threading.Lock()
        self._live: dict[str, _Ticket] = {}
        self._tickets: set[_Ticket] = set()
        self._counter = 0
        self.counts = dict.fromkeys(("admitted", "refused", "superseded", "disconnected",
                                     "skipped"), 0)
        self.stop_latencies: deque[float] = deque(maxlen=200)

    # -- what is running ---------------------------------------------------------------------
    def load(self) -> int:
        """Jobs holding a slot: running, or queued and not cancelled."""
        with self._lock:
            return self._load()

    def _load(self) -> int:
        return sum(1 for t in self._tickets if t.started or not t.token.is_set())

    def running(self) -> int:
        """Jobs whose thread is running now (cancelled ones included, until they return)."""
        with self._lock:
            return sum(1 for t in self._tickets if t.started)

    # -- running a job -----------------------------------------------------------------------
    async def run(
        self,
        func: Callable[[JobToken], T],
        client: str | None = None,
        seq: int | None = None,
        *,
        disconnected: Callable[[], Awaitable[bool]] | None = None,
    ) -> T:
        """Run ``func(token)`` in a worker thread and return its result.

        Parameters
        ----------
        func : callable(JobToken) -> T
            The blocking work; it polls the token (``token.is_set()`` or ``token()``) and gives
            up early when it is set.
        client : str, optional
            Supersession key: a later call with the same key supersedes this one.
        seq : int, optional
            The client's request number; a call whose ``seq`` is below the live one's is
            superseded at once.  Without it, arrival order decides.
        disconnected : async callable() -> bool, optional
            Polled every :data:`POLL_S` while the job runs (``request.is_disconnected``); when it
            answers true the job is cancelled and :class:`Disconnected` raised.

        Raises
        ------
        Superseded
            A newer call with the same ``client`` arrived before this one finished.
        Disconnected
            The client went away.
        Busy
            No worker or queue slot is free.
        """
        ticket = self._register(client, seq)
        if ticket.token.is_set():  # already older than the live request: nothing to run
            raise Superseded
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.run_in_executor(self._pool, self._call, ticket, func)
        waiter: asyncio.Future[Any] = asyncio.ensure_future(ticket.superseded.wait())
        both: list[asyncio.Future[Any]] = [future, waiter]
        try:
            while True:
                done, _ = await asyncio.wait(both, timeout=POLL_S,
                                             return_when=asyncio.FIRST_COMPLETED)
                if ticket.superseded.is_set():
                    raise Superseded
                if future in done:
                    return future.result()
                if disconnected is not None and await disconnected():
                    with self._lock:
                        self.counts["disconnected"] += 1
                    ticket.cancel(superseded=False)
                    raise Disconnected
        finally:
            waiter.cancel()
            if not future.done():  # superseded, disconnected or abandoned: stop the thread
                ticket.cancel(superseded=False)
            if client is not None:
                self._release(client, ticket)

    def _call(self, ticket: _Ticket, func: Callable[[JobToken], T]) -> T:
        ready = self.ready
        if ready is not None:  # the kernels are being loaded: wait for them as a queued job
            while not ready.wait(POLL_S / 5) and not ticket.token.is_set():
                pass
        with self._lock:
            ticket.started = not ticket.token.is_set()
            if not ticket.started:  # cancelled while queued: never starts
                self._tickets.discard(ticket)
                self.counts["skipped"] += 1
                raise Superseded  # nobody awaits it any more
        try:
            return func(ticket.token)
        finally:
            with self._lock:
                ticket.ended_at = time.perf_counter()
                if ticket.cancelled_at is not None:
                    self.stop_latencies.append(ticket.ended_at - ticket.cancelled_at)
                self._tickets.discard(ticket)
                ticket.token.close()

    def _register(self, client: str | None, seq: int | None) -> _Ticket:
        with self._lock:
            self._counter += 1
            ticket = _Ticket(seq if seq is not None else self._counter)
            old = self._live.get(client) if client is not None else None
            if old is not None and seq is not None and old.seq > seq:
                ticket.cancel()  # an older request arriving late: superseded at once
                self.counts["superseded"] += 1
                return ticket
            if old is not None:
                # the newer request takes the older one's slot: admitted even when full (the
                # older one's thread is told to stop, and a client has one live job at a time)
                old.cancel()
                self.counts["superseded"] += 1
            elif self._load() >= self.workers + self.queue:
                self.counts["refused"] += 1
                raise Busy()
            self.counts["admitted"] += 1
            self._tickets.add(ticket)
            if client is not None:
                self._live[client] = ticket
            return ticket

    def _release(self, client: str, ticket: _Ticket) -> None:
        with self._lock:
            if self._live.get(client) is ticket:
                del self._live[client]

    def shutdown(self) -> None:
        """Stop every job and the pool (without waiting for running threads)."""
        with self._lock:
            for ticket in list(self._tickets):
                ticket.token.set(CANCELLED)
            self._live.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)
