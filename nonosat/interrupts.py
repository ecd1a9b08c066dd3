"""Interrupts (Ctrl-C, ``SIGTERM``) as the rest of nonosat sees them: one flag, the callbacks that
stop what is running, and the exception raised instead of a verdict.

The signal handlers themselves are installed by the command line (:mod:`nonosat.cli.signals`),
which calls :func:`request` when a signal arrives; nothing here prints, exits or touches a signal.
Below the CLI, code that runs a long step it cannot return from quickly by itself registers a way
to stop it (:func:`stopper`: CP-SAT's ``stop_search``, a child process's ``terminate``) and calls
:func:`check` when the step returns, so that an interrupted step raises :class:`Interrupted`
rather than reporting "gave up", an engine error or any verdict.  SAT calls are kept short
instead (:class:`nonosat.encodings.satsolver.SatRun` checks between conflict-budgeted calls),
since CaDiCaL holds the GIL and cannot be stopped through PySAT.

:class:`Interrupted` derives from :class:`KeyboardInterrupt`, so ``except Exception`` (which
turns an engine's failure into a finding) never catches it.

Python code that must not be left half-done (a callback called from C++, a file being written)
runs inside :func:`deferred`: the CLI's handler then only sets the flag, and the code calls
:func:`check` when it is safe.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: ``SIGINT`` and ``SIGTERM`` (numbers as on Linux; :mod:`signal` is not imported here).
SIGINT = 2
SIGTERM = 15


class Interrupted(KeyboardInterrupt):
    """The run was interrupted by a signal (Ctrl-C or ``SIGTERM``); never a verdict.

    Parameters
    ----------
    signum : int
        The signal received first (2 for ``SIGINT``, 15 for ``SIGTERM``).
    """

    def __init__(self, signum: int = SIGINT):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """``128 + signum``: 130 for Ctrl-C, 143 for ``SIGTERM``."""
        return 128 + self.signum


_lock = threading.Lock()
_signum = 0
_stoppers: dict[int, Callable[[], object]] = {}
_keys = itertools.count()
_deferred = 0
_temporaries: set[str] = set()


def requested() -> int:
    """The signal number of the first interrupt received, 0 when none was."""
    return _signum


def check() -> None:
    """Raise :class:`Interrupted` when an interrupt was requested.

    Raises
    ------
    Interrupted
    """
    if _signum:
        raise Interrupted(_signum)


def request(signum: int) -> bool:
    """Record an interrupt by ``signum`` and call every registered stopper (first request only).

    Safe from any thread; a stopper that fails is ignored.

    Returns
    -------
    bool
        Whether this was the first request.
    """
    global _signum
    with _lock:
        if _signum:
            return False
        _signum = signum
        stoppers = list(_stoppers.values())
    for stop in stoppers:
        try:
            stop()
        except Exception:  # a stopper of something already finished
            pass
    return True


@contextmanager
def stopper(callback: Callable[[], object]) -> Iterator[None]:
    """Register ``callback`` (e.g. a solver's ``stop_search``) to be called, from whichever
    thread receives it, when an interrupt is requested while the block runs.

    Raises
    ------
    Interrupted
        On entry, when an interrupt was already requested (nothing is started then).
    """
    check()
    key = next(_keys)
    with _lock:
        _stoppers[key] = callback
    try:
        yield
    finally:
        with _lock:
            _stoppers.pop(key, None)


def deferring() -> bool:
    """Whether code that must not be unwound mid-way is running (:func:`deferred`)."""
    return _deferred > 0


@contextmanager
def deferred() -> Iterator[None]:
    """Run the block without being unwound by an interrupt: the CLI's signal handler only sets
    the flag meanwhile.  The caller calls :func:`check` after the block where it wants to stop.
    Meant for the main thread (where signal handlers run)."""
    global _deferred
    _deferred += 1
    try:
        yield
    finally:
        _deferred -= 1


@contextmanager
def temporary(path: str | os.PathLike[str]) -> Iterator[None]:
    """Declare ``path`` a temporary file for the block: a process that has to end at once after
    an interrupt (:mod:`nonosat.cli.signals`) removes it first, so no temporary is left."""
    name = os.fspath(path)
    with _lock:
        _temporaries.add(name)
    try:
        yield
    finally:
        with _lock:
            _temporaries.discard(name)


def temporaries() -> list[str]:
    """The temporary files declared with :func:`temporary` and not yet finished."""
    with _lock:
        return sorted(_temporaries)


_before_blocking: Callable[[], object] | None = None


def on_blocking(hook: Callable[[], object] | None) -> None:
    """Set the hook :func:`before_blocking` runs once (the CLI starts its native guard there)."""
    global _before_blocking
    _before_blocking = hook


def before_blocking() -> None:
    """Called before C code that holds the GIL for long stretches (a SAT solver) is used: runs
    the hook of :func:`on_blocking` once, in the main thread (elsewhere it waits for a call there)."""
    global _before_blocking
    hook = _before_blocking
    if hook is None or threading.current_thread() is not threading.main_thread():
        return
    _before_blocking = None
    try:
        hook()
    except Exception:  # an optional guard: signals are handled without it
        pass


def reset() -> None:
    """Forget a requested interrupt (tests; a process that was interrupted ends)."""
    global _signum
    with _lock:
        _signum = 0
