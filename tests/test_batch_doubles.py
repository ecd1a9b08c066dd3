"""Job doubles for the batch tests (imported by the worker processes; holds no tests).

``behave(puzzle, options)`` acts on the puzzle's title: ``hang`` never returns, ``segfault``
kills its process with SIGSEGV, ``exit`` exits with status 3, ``oom`` raises MemoryError,
``raise`` raises ValueError, ``hog`` allocates 8 GiB, ``invalid`` reports an invalid solution,
``slow`` sleeps 0.3 s; anything else answers at once with a status derived from the clues
(:func:`expected_status`), so results can be checked against the puzzles.
"""

from __future__ import annotations

import os
import signal
import time

from nonosat.batch.jobs import JobOptions
from nonosat.puzzle import Puzzle


def expected_status(puzzle: Puzzle) -> str:
    """The status :func:`behave` gives a well-behaved puzzle."""
    return "unique" if puzzle.width % 2 else "multiple"


def warm(options: JobOptions) -> None:
    """A warm-up that takes a while (as compiling kernels does): not charged to any puzzle."""
    time.sleep(1.0)


def behave(puzzle: Puzzle, options: JobOptions) -> dict:
    """Act on the puzzle's title (see the module docstring)."""
    title = puzzle.title or ""
    if title == "hang":
        while True:
            time.sleep(1)
    if title == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if title == "exit":
        os._exit(3)
    if title == "oom":
        raise MemoryError
    if title == "raise":
        raise ValueError("raised on purpose")
    if title == "hog":
        hog = bytearray(8 << 30)
        return {"status": "unique", "size": len(hog)}
    if title == "invalid":
        return {"status": "invalid", "error": "row 1 should be 1 but is 2"}
    if title == "slow":
        time.sleep(0.3)
    return {"status": expected_status(puzzle), "engine": "double", "pid": os.getpid()}
