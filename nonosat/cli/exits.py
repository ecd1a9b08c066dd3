"""Exit codes of every command, and the one-line error that ends a command.

====  =========================================================
0     unique solution (or the command succeeded)
1     several solutions / a check failed (disagreement, invalid proof or solution)
2     usage error or bad input (malformed file, clues that cannot fit, unknown format)
3     no solution
4     gave up (time or node limit) before deciding
130   interrupted (Ctrl-C, SIGINT)
143   terminated (SIGTERM)
====  =========================================================

Documented in ``nonosat --help`` (:data:`EXIT_CODES_HELP`) and the README.
"""

from __future__ import annotations

import typer

from nonosat.engines import Status
from nonosat.errors import one_line

EXIT_OK = 0
EXIT_MULTIPLE = 1
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_NONE = 3
EXIT_GAVE_UP = 4
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

EXIT_CODES_HELP = (
    "Exit codes: 0 unique (or success), 1 multiple solutions or a failed check, "
    "2 usage error or bad input, 3 no solution, 4 gave up (time limit), 130 interrupted "
    "(Ctrl-C), 143 terminated (SIGTERM).  Each command's help lists the codes it returns."
)

STATUS_EXIT = {
    Status.UNIQUE: EXIT_OK,
    Status.SOLVED: EXIT_OK,
    Status.MULTIPLE: EXIT_MULTIPLE,
    Status.NONE: EXIT_NONE,
    Status.UNKNOWN: EXIT_GAVE_UP,
}


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print ``nonosat: error: message`` on stderr and return the :class:`typer.Exit` to raise."""
    typer.echo(f"nonosat: error: {one_line(message)}", err=True)
    return typer.Exit(code)

