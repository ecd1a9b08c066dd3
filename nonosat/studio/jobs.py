"""Running solves off the event loop, with time limits and supersession.

Every solving request runs in a worker thread (:class:`JobRunner`, a bounded thread pool), so
the event loop never blocks; the compiled kernels release the GIL (``nogil=True``) for most of
their work.  A request may name a ``client`` (one id per page and kind of request): a newer
request with the same client *supersedes* an older one still running.  The older request answers
409 at once; its thread is told to stop (the ``should_stop`` callable it polls between phases
returns ``True``) and otherwise ends at its own time limit, whose result is dropped.  Threads
cannot be killed, so every solve must carry a time limit: :func:`clamp_timeout` caps it.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

#: Default seconds of a solve when the request gives none.
DEFAULT_TIMEOUT_S = 5.0
#: Largest time limit a request may ask for.
MAX_TIMEOUT_S = 30.0
#: Worker threads for solves.
WORKERS = 4

T = TypeVar("T")


class Superseded(Exception):  # noqa: N818 - an outcome, not a failure
    """A newer request from the same client replaced this one (answered 409)."""


def clamp_timeout(timeout: float | None, default: float = DEFAULT_TIMEOUT_S) -> float:
    """The time limit to use: ``default`` when ``None`` or not a number (NaN), else
    ``timeout`` within ``[0, MAX_TIMEOUT_S]`` seconds (infinity is ``MAX_TIMEOUT_S``)."""
    if timeout is None or math.isnan(float(timeout)):
        return default
    return min(max(float(timeout), 0.0), MAX_TIMEOUT_S)


class _Ticket:
    __slots__ = ("seq", "stop", "superseded")

    def __init__(self, seq: int):
        self.seq = seq
        self.stop = threading.Event()  # polled by the worker thread
        self.superseded = asyncio.Event()  # awaited by the request (event-loop side)

    def cancel(self) -> None:
        self.stop.set()
        self.superseded.set()


class JobRunner:
    """Runs blocking functions in a thread pool, one live job per client.

    Parameters
    ----------
    workers : int
        Threads in the pool.
    """

    def __init__(self, workers: int = WORKERS):
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nonosat-job")
        self._lock = threading.Lock()
        self._live: dict[str, _Ticket] = {}
        self._counter = 0

    async def run(
        self,
        func: Callable[[Callable[[], bool]], T],
        client: str | None = None,
        seq: int | None = None,
    ) -> T:
        """Run ``func(should_stop)`` in a worker thread and return its result.

        Parameters
        ----------
        func : callable(should_stop) -> T
            The blocking work; it may poll ``should_stop()`` and give up early.
        client : str, optional
            Supersession key: a later call with the same key supersedes this one.
        seq : int, optional
            The client's request number; a call whose ``seq`` is below the live one's is
            superseded at once.  Without it, arrival order decides.

        Raises
        ------
        Superseded
            A newer call with the same ``client`` arrived before this one finished.
        """
        ticket = self._register(client, seq)
        if ticket.stop.is_set():  # already older than the live request: nothing to run
            raise Superseded
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, func, ticket.stop.is_set)
        if client is None:
            return await future
        # the loop's own thread registers and cancels tickets, so the asyncio.Event is safe
        waiter = asyncio.ensure_future(ticket.superseded.wait())
        racing: set[asyncio.Future[Any]] = {future, waiter}
        try:
            done, _ = await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            if future in done and not ticket.superseded.is_set():
                return future.result()
            raise Superseded
        finally:
            waiter.cancel()
            self._release(client, ticket)

    def _register(self, client: str | None, seq: int | None) -> _Ticket:
        with self._lock:
            self._counter += 1
            ticket = _Ticket(seq if seq is not None else self._counter)
            if client is None:
                return ticket
            old = self._live.get(client)
            if old is not None and seq is not None and old.seq > seq:
                ticket.cancel()  # an older request arriving late: superseded at once
                return ticket
            if old is not None:
                old.cancel()
            self._live[client] = ticket
            return ticket

    def _release(self, client: str, ticket: _Ticket) -> None:
        with self._lock:
            if self._live.get(client) is ticket:
                del self._live[client]

    def shutdown(self) -> None:
        """Stop every live job and the pool (without waiting for running threads)."""
        with self._lock:
            for ticket in self._live.values():
                ticket.stop.set()
            self._live.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)

