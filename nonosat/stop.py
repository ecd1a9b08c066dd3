"""Stop tokens: one way to tell a running solve to stop, from any thread, down to the compiled
kernels.

A :class:`StopToken` holds a one-cell ``int64`` array.  Python code polls :meth:`StopToken.is_set`
between steps; compiled kernels (which release the GIL) are handed :attr:`StopToken.flag` and read
``flag[0]`` in their loops, so that a cancel, a time limit or Ctrl-C stops them mid-node rather
than at their next return.  The token is set by :meth:`StopToken.set` (a superseded studio
request, a caller), by its own timer (:meth:`StopToken.arm`, a time limit), or by an interrupt
(:func:`nonosat.interrupts.request` while :meth:`StopToken.watch_interrupts` is active).

This module is at the bottom of the house beside :mod:`nonosat.interrupts`: it imports only numpy
and the standard library, and never prints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from nonosat import interrupts

#: ``flag[0]`` values: running, and the reasons a token was set.
RUNNING = 0
CANCELLED = 1
TIME_LIMIT = 2
INTERRUPTED = 3

_REASONS = {RUNNING: "running", CANCELLED: "cancelled", TIME_LIMIT: "time limit",
            INTERRUPTED: "interrupted"}


class Stopped(Exception):
    """Raised by a call that a set token ended before it had its whole result (e.g.
    :meth:`nonosat.native.stepping.Stepper.probe` short of its fixpoint): what it did is valid
    but not complete, and must not be used as if it were."""


class StopToken:
    """A flag that asks a running solve to stop.

    Attributes
    ----------
    flag : numpy.ndarray
        Shape ``(1,)``, ``int64``: 0 while running, else the reason (:data:`CANCELLED`,
        :data:`TIME_LIMIT`, :data:`INTERRUPTED`).  Pass it to compiled kernels; only the first
        reason set is kept.
    latency : float or None
        The longest (seconds) its holder wants work to go on after :meth:`set`, or ``None``
        for no bound beyond the kernels' own checks (the CLI: an interrupt during a long SAT
        call is ended by the native guard).  Code that can only look at the token between
        uninterruptible calls (the SAT engine's CaDiCaL calls) sizes them by it; the studio's
        jobs ask for 0.1 s.  A token of :func:`for_solve` takes its parent's.
    """

    __slots__ = ("flag", "latency", "_lock", "_timer", "_callbacks")

    def __init__(self, latency: float | None = None) -> None:
        self.latency = latency
        self.flag = np.zeros(1, dtype=np.int64)
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._callbacks: list[Callable[[int], object]] = []

    def set(self, reason: int = CANCELLED) -> None:
        """Ask the solve to stop (safe from any thread); a later reason does not replace the
        first.  The first call runs the callbacks of :meth:`calling` with the reason."""
        if reason == RUNNING:
            raise ValueError("a stop reason must not be RUNNING (0)")
        with self._lock:
            if self.flag[0] != RUNNING:
                return
            self.flag[0] = reason
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback(reason)
            except Exception:  # a callback of something already finished
                pass

    @contextmanager
    def calling(self, callback: Callable[[int], object]) -> Iterator[StopToken]:
        """Within the block, call ``callback(reason)`` when the token is set (from the thread
        that sets it; at once if it is set already): how a solver that cannot read
        :attr:`flag` is stopped (CP-SAT's ``stop_search``, another token's :meth:`set`).
        A callback that raises is ignored."""
        with self._lock:
            self._callbacks.append(callback)
            reason = int(self.flag[0])
        try:
            if reason != RUNNING:
                try:
                    callback(reason)
                except Exception:
                    pass
            yield self
        finally:
            with self._lock:
                self._callbacks.remove(callback)

    def is_set(self) -> bool:
        """Whether the solve was asked to stop."""
        return bool(self.flag[0])

    __bool__ = is_set

    @property
    def reason(self) -> str:
        """``"running"``, ``"cancelled"``, ``"time limit"`` or ``"interrupted"``."""
        return _REASONS.get(int(self.flag[0]), "cancelled")

    def arm(self, seconds: float | None) -> None:
        """Set the token with :data:`TIME_LIMIT` after ``seconds`` (``None``: never).  A token
        holds one timer: arming again replaces it.  :meth:`close` cancels it."""
        self.close()
        if seconds is None:
            return
        timer = threading.Timer(max(0.0, float(seconds)), self.set, args=(TIME_LIMIT,))
        timer.daemon = True
        self._timer = timer
        timer.start()

    def close(self) -> None:
        """Cancel the timer of :meth:`arm`, if any (the flag is left as it is)."""
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    @contextmanager
    def watch_interrupts(self) -> Iterator[StopToken]:
        """Within the block, an interrupt (:func:`nonosat.interrupts.request`) sets the token with
        :data:`INTERRUPTED`.

        Raises
        ------
        nonosat.interrupts.Interrupted
            On entry, when an interrupt was already requested.
        """
        with interrupts.stopper(lambda: self.set(INTERRUPTED)):
            yield self

    def __repr__(self) -> str:
        return f"StopToken({self.reason})"


def never() -> StopToken:
    """A fresh token nobody sets (for callers that do not cancel)."""
    return StopToken()


@contextmanager
def for_solve(stop: StopToken | None = None, seconds: float | None = None
              ) -> Iterator[StopToken]:
    """The token one solve's kernels read: a fresh token, set when ``stop`` is set (with its
    reason), after ``seconds`` (:data:`TIME_LIMIT`; ``None``: no time limit) and by an
    interrupt (:data:`INTERRUPTED`), whichever comes first.  ``stop`` itself is never set or
    re-armed here, so a caller can share one token between several solves.  The timer and the
    links end with the block.

    Raises
    ------
    nonosat.interrupts.Interrupted
        On entry, when an interrupt was already requested.

    Examples
    --------
    >>> with for_solve(None, 0.0) as token:
    ...     import time; time.sleep(0.05)
    ...     token.reason
    'time limit'
    """
    token = StopToken(latency=None if stop is None else stop.latency)
    try:
        with token.watch_interrupts():
            if stop is None:
                token.arm(seconds)
                yield token
            else:
                with stop.calling(token.set):
                    token.arm(seconds)
                    yield token
    finally:
        token.close()
