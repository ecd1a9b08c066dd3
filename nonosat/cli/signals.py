"""Ctrl-C and ``SIGTERM`` in a ``nonosat`` process: exit 130 or 143 within a second, quietly.

:func:`install` (called by :func:`nonosat.cli.app.main`, before anything heavy is imported) sets
one handler for ``SIGINT`` and ``SIGTERM`` and starts a watcher thread:

* the handler records the signal (:func:`nonosat.interrupts.request`, which also calls the
  registered stoppers) and raises :class:`nonosat.interrupts.Interrupted` in the main thread,
  unless that thread is in a :func:`nonosat.interrupts.deferred` block (a CP-SAT callback, a file
  being written), which checks the flag when it is done;
* the C-level part of Python's signal handling writes the signal number to a socket (the
  "wakeup fd") at once, even while the main thread is inside a C extension; the watcher thread
  reads it, calls the stoppers (so CP-SAT returns from its search, and child processes are
  stopped) and, if the process is still running :data:`GRACE_S` seconds later (a compiled step
  that cannot be interrupted), removes the declared temporary files, flushes what it can and
  ends the process with ``os._exit(128 + signum)`` and one line on stderr.  A second signal
  ends it at once, and so does a signal while the command line is still being imported;
* CaDiCaL holds the GIL while it searches, when no Python thread runs: before the first SAT
  solver of the process (:func:`nonosat.interrupts.before_blocking`), a native thread
  (:mod:`nonosat.cli.native_guard`) takes the wakeup socket and ends the process
  :data:`nonosat.cli.native_guard.GRACE_S` seconds after a signal if it is still running.

The command then unwinds as for any :class:`KeyboardInterrupt` (``handle_errors`` prints
``nonosat: interrupted`` and exits 130; crosscheck and batch keep what finished), and
:func:`exit_code` maps the exit to 128 + the signal number.  PySAT's own Ctrl-C handling (a
``longjmp`` out of the solver, which corrupts it) is switched off in
:mod:`nonosat.encodings.satsolver`; CP-SAT is told not to catch ``SIGINT``
(:func:`nonosat.engines.cpsat.solver_parameters`).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
from typing import Any

from nonosat import interrupts

#: Seconds the main thread gets to unwind after the first signal before the process is ended.
GRACE_S = 0.6

#: The signals handled, and the exit code of each (128 + the signal number).
HANDLED = (signal.SIGINT, signal.SIGTERM)

_installed = False
_armed = False
_started = False
_raised = False
_announced = threading.Event()
_exiting = threading.Lock()


def install() -> None:
    """Install the handlers and the watcher thread (once; main thread only)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    _installed = True
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    reader.setblocking(True)
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    for signum in HANDLED:
        signal.signal(signum, _handler)
    _sockets[:] = [reader, writer]
    interrupts.on_blocking(_start_native_guard)
    sys.unraisablehook = _unraisable(sys.unraisablehook)
    threading.Thread(target=_watch, args=(reader, writer), name="nonosat-interrupts",
                     daemon=True).start()


_sockets: list[socket.socket] = []


def _start_native_guard() -> None:
    """Start :mod:`nonosat.cli.native_guard` (before the first SAT solver of the process): the
    signal bytes then go to its native thread first, which forwards them to the watcher."""
    from nonosat.cli import native_guard

    wakeup = native_guard.start(forward_to=_sockets[1])
    if wakeup is not None:
        _sockets.append(wakeup)
        signal.set_wakeup_fd(wakeup.fileno(), warn_on_full_buffer=False)


def arm() -> None:
    """Let the handler raise :class:`~nonosat.interrupts.Interrupted` in the main thread (from
    here to :func:`disarm`, inside the ``try`` of :func:`nonosat.cli.app.main`)."""
    global _armed, _started
    _armed = _started = True


def disarm() -> None:
    """From here on the handler only records signals (the exit code is decided by then)."""
    global _armed
    _armed = False
_started = False
_raised = False


def ignore() -> None:
    """Ignore ``SIGINT`` and ``SIGTERM`` from here on (main thread, the command has finished and
    its exit code is decided): Python's finalisation would otherwise restore the default
    action, and a signal arriving then would kill the process instead of letting it exit."""
    if not _installed:
        return
    for signum in HANDLED:
        signal.signal(signum, signal.SIG_IGN)


def _handler(signum: int, frame: Any) -> None:
    # raised once at most, only where main() catches it, and never into a deferred block (which
    # checks the flag itself); a second signal is the watcher's: it ends the process at once
    global _raised
    interrupts.request(signum)
    if _armed and not _raised and not interrupts.deferring() and not _in_callback(frame):
        _raised = True
        raise interrupts.Interrupted(interrupts.requested() or signum)


#: Libraries whose Python code must not be unwound half-way: code that C calls back (an
#: exception raised there is printed and dropped by ctypes, and the C code goes on: llvmlite's
#: callbacks while numba compiles or loads a kernel), and wrappers that keep a C object's state
#: in Python (PySAT's ``delete`` frees the solver, then forgets it: unwound in between, the
#: solver is freed twice, "double free or corruption"; OR-Tools, numba's compiler).
_NO_RAISE_PACKAGES = tuple(f"{os.sep}{name}{os.sep}"
                           for name in ("llvmlite", "numba", "pysat", "ortools"))


def _in_callback(frame: Any) -> bool:
    """Whether ``frame`` or one of its callers runs in :data:`_NO_RAISE_PACKAGES` (the flag is
    then only set: the next :func:`nonosat.interrupts.check`, or the watcher, ends the run)."""
    depth = 0
    while frame is not None and depth < 64:
        if any(package in frame.f_code.co_filename for package in _NO_RAISE_PACKAGES):
            return True
        frame = frame.f_back
        depth += 1
    return False


def _unraisable(hook: Any) -> Any:
    """``sys.unraisablehook`` that drops an interrupt raised where it could not propagate."""

    def unraisable(info: Any) -> None:
        if interrupts.requested() and isinstance(info.exc_value, KeyboardInterrupt):
            return
        hook(info)

    return unraisable


def _watch(reader: socket.socket, writer: socket.socket) -> None:
    """The watcher thread: stoppers at once, the hard exit after :data:`GRACE_S`."""
    timer = None
    while True:
        try:
            data = reader.recv(64)
        except OSError:
            return
        if not data:
            return
        for signum in data:
            if signum not in HANDLED:
                continue
            if not _started:  # still importing: nothing to unwind or to keep
                interrupts.request(signum)
                hard_exit()
            if interrupts.request(signum) or timer is None:
                timer = threading.Timer(GRACE_S, hard_exit)
                timer.daemon = True
                timer.start()
            else:  # a second signal: end at once
                hard_exit()


def announce(text: str = "nonosat: interrupted") -> None:
    """Print ``text`` (one line) on stderr: once in a process where :func:`install` ran (a
    command that says more, crosscheck or batch, says it instead of the plain line)."""
    if _installed and _announced.is_set():
        return
    _announced.set()
    _said_natively()
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except Exception:
        pass


def _said_natively() -> None:
    native = sys.modules.get("nonosat.cli.native_guard")
    if native is not None:
        native.said()


def exit_code(code: Any) -> int:
    """The exit code of a process that was interrupted and meant to exit with ``code``:
    128 + the signal number, except 1 kept when the command said it has real findings
    (``crosscheck``: :data:`KEEP_FAILED`)."""
    signum = interrupts.requested()
    if not signum:
        return code if isinstance(code, int) else (0 if code is None else 1)
    if code == 1 and KEEP_FAILED.is_set():
        return 1
    return 128 + signum


#: Set by a command that exits 1 after an interrupt because of real findings (crosscheck).
KEEP_FAILED = threading.Event()


def finish(code: Any) -> None:
    """End an interrupted process with :func:`exit_code` (``code``): flush stdout and stderr,
    remove declared temporaries, and ``os._exit``, skipping the interpreter's finalisation (C
    extensions' objects left mid-way must not be torn down)."""
    final = exit_code(code)
    if final >= 128:
        announce()
    _flush_and_exit(final)


#: Set by a command (crosscheck) that can still print what finished when the process has to
#: end while its main thread is stuck in compiled code: called by :func:`hard_exit` in the
#: watcher thread; returns the exit code, or None for 128 + the signal number.
last_words: Any = None


def hard_exit() -> None:
    """End the process now with 128 + the signal received (the watcher thread's last resort),
    after :data:`last_words` when a command set them."""
    signum = interrupts.requested() or signal.SIGINT
    if last_words is not None and not _exiting.locked():
        try:
            code = last_words()
        except Exception:
            code = None
        if code is not None:
            _flush_and_exit(code)
    announce_done = _announced.is_set()
    if not announce_done:
        _said_natively()
        try:
            os.write(2, b"nonosat: interrupted\n")
        except OSError:
            pass
        _announced.set()
    _flush_and_exit(128 + signum)


def _flush_and_exit(code: int) -> None:
    if not _exiting.acquire(blocking=False):
        threading.Event().wait()  # another thread is ending the process
    remove_temporaries()
    flusher = threading.Thread(target=_flush, daemon=True)
    flusher.start()
    flusher.join(0.2)  # a stream blocked on a full pipe must not keep the process alive
    os._exit(code)


def remove_temporaries() -> None:
    """Remove the temporary files and directories declared with
    :func:`nonosat.interrupts.temporary` (a half-written file, a certificate directory being
    filled: :func:`nonosat.safe_io.claimed_directory`)."""
    import shutil

    for path in interrupts.temporaries():
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
