"""The worker side of a :class:`nonosat.batch.sandbox.Sandbox`: a child process that runs one job
call at a time.

Started by :class:`nonosat.batch.sandbox.Sandbox` with the parent's process id as argument.  It talks to its parent over its original
stdin/stdout with length-prefixed pickles (:mod:`nonosat.batch.protocol`);
file descriptor 1 is pointed at stderr so that anything a job prints cannot corrupt the protocol.
It dies with its parent (``PR_SET_PDEATHSIG`` on Linux, a watchdog thread elsewhere), even while
a compiled kernel holds the interpreter.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
import traceback
from typing import Any

from nonosat.batch.protocol import read_message, write_message


def _die_with_parent(parent: int) -> None:
    """Exit when the parent goes away, even if this process is stuck in compiled code."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        else:
            if os.getppid() != parent:  # the parent died before prctl took effect
                os._exit(1)
            return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _limit_memory(megabytes: int) -> None:
    import resource

    limit = megabytes * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def serve(proto_in: int, proto_out: int) -> int:
    """Answer ``("init", sys_path, memory_mb)`` and ``("call", target, args)`` messages until end
    of input.  A call is answered ``("ok", value)``, ``("oom", message)`` or
    ``("error", message, traceback)``."""
    from nonosat.batch.jobs import import_target

    while True:
        message = read_message(proto_in)
        if message is None:
            return 0
        kind = message[0]
        if kind == "init":
            _, parent_path, memory_mb = message
            sys.path[:] = list(parent_path) + [p for p in sys.path if p not in parent_path]
            if memory_mb:
                _limit_memory(memory_mb)
            continue
        _, target, args = message
        try:
            reply: tuple[Any, ...] = ("ok", import_target(target)(*args))
        except MemoryError:
            reply = ("oom", "out of memory (MemoryError)")
        except BaseException as exc:  # every failure goes back to the parent
            reply = ("error", f"{type(exc).__name__}: {exc}", traceback.format_exc())
        try:
            write_message(proto_out, reply)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            write_message(proto_out, ("error", f"the job's result cannot be sent: {exc}", ""))


def main(argv: list[str]) -> int:
    """Entry point: ``argv[1]`` is the parent's process id."""
    # the parent decides when to stop: a Ctrl-C or SIGTERM sent to the whole process group must
    # not kill the puzzles first (the parent would record them as crashed)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _die_with_parent(int(argv[1]))
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    code = serve(proto_in, proto_out)
    from nonosat.quick_exit import leave

    leave(code)  # without the interpreter's tear-down once numba is loaded (0.1-0.2 s CPU)
    return code


if __name__ == "__main__":  # python -m nonosat.batch.child PARENT_PID
    sys.exit(main(sys.argv))
