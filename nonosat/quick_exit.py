"""Leave a process without the interpreter's tear-down once numba is loaded (issue 27).

A process that ran compiled kernels spends 0.1-0.2 s CPU at exit tearing down numba's and LLVM's
modules and objects (measured 2026-11-27 on ``nonosat solve``, against about 0.01 s without
numba: docs/startup.md), none of which the user sees.  :func:`leave` does what an ordinary exit
does that has an effect -- runs the ``atexit`` functions (weakref finalizers, logging,
multiprocessing) and flushes the standard streams -- and then ends the process with
``os._exit``.  Only process entry points call it (the command line's ``main`` and the batch
worker's), never library code.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

#: Environment variable that, set to ``1``, makes :func:`leave` do nothing (the interpreter's
#: whole clean-up then runs, as after ``sys.exit``).
FULL_EXIT_ENV = "NONOSAT_FULL_EXIT"


def leave(code: Any) -> None:
    """End the process now with exit status ``code`` (as ``sys.exit(code)`` would), skipping the
    interpreter's tear-down, when that is safe and worth it; otherwise return, and the caller
    exits as usual.

    It leaves only when numba is loaded (without it the tear-down is cheap), ``code`` is an
    integer or ``None``, no thread is running that an ordinary exit would wait for (daemon
    threads end either way), :data:`FULL_EXIT_ENV` is not ``1``, and the ``atexit`` functions
    and the flush succeed.  Objects still alive are not finalised (their ``__del__`` does not
    run), as Python does not promise at exit either.

    Parameters
    ----------
    code : int or None
        The exit status (``None``: 0; taken modulo 256 as by the operating system).
    """
    if "numba" not in sys.modules or os.environ.get(FULL_EXIT_ENV) == "1":
        return
    if not (code is None or isinstance(code, int)):
        return
    if any(t is not threading.main_thread() and not t.daemon and t.is_alive()
           for t in threading.enumerate()):
        return
    import atexit

    try:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:  # noqa: BLE001 - a failing clean-up or a closed stream: exit as usual
        return
    os._exit(0 if code is None else code & 0xFF)
