"""What every command shares: exit codes, the puzzle argument and options, error handling, JSON.

Exit codes (documented in ``nonosat --help`` and the README):

====  =========================================================
0     unique solution (or the command succeeded)
1     several solutions / a check failed (disagreement, invalid proof or solution)
2     usage error or bad input (malformed file, clues that cannot fit, unknown format)
3     no solution
4     gave up (time or node limit) before deciding
====  =========================================================
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from nonosat.engines import Status
from nonosat.errors import NonosatError

if TYPE_CHECKING:
    import numpy as np

    from nonosat.puzzle import Puzzle

EXIT_OK = 0
EXIT_MULTIPLE = 1
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_NONE = 3
EXIT_GAVE_UP = 4

EXIT_CODES_HELP = (
    "Exit codes: 0 unique (or success), 1 multiple solutions or a failed check, "
    "2 usage error or bad input, 3 no solution, 4 gave up (time limit)."
)

STATUS_EXIT = {
    Status.UNIQUE: EXIT_OK,
    Status.SOLVED: EXIT_OK,
    Status.MULTIPLE: EXIT_MULTIPLE,
    Status.NONE: EXIT_NONE,
    Status.UNKNOWN: EXIT_GAVE_UP,
}

PuzzleArg = Annotated[
    Path,
    typer.Argument(
        help="Puzzle file (.non, .nin, .json, .xml, tournament .txt, .csv, picture ...).",
        show_default=False,
        metavar="PUZZLE",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format", "-f", metavar="NAME",
        help="Input format (see 'nonosat formats'); default: by suffix, then by content.",
    ),
]
IndexOpt = Annotated[
    int | None,
    typer.Option(
        "--index", "-i", metavar="N", help="Puzzle number N in a multi-puzzle file ($N, CSV row)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
TimeoutOpt = Annotated[
    float | None,
    typer.Option("--timeout", "-t", min=0.0, help="Give up after SECONDS (exit 4).", metavar="SECONDS"),
]

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print ``nonosat: error: message`` on stderr and return the :class:`typer.Exit` to raise."""
    typer.echo(f"nonosat: error: {message}", err=True)
    return typer.Exit(code)


def handle_errors(func: F) -> F:
    """Decorator for commands: a :class:`NonosatError` becomes one line on stderr and exit 2,
    never a traceback.  ``KeyboardInterrupt`` exits 130."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except NonosatError as exc:
            raise fail(str(exc)) from None
        except KeyboardInterrupt:
            typer.echo("nonosat: interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def announce_compile(colour: bool = False) -> None:
    """Say on stderr that the numba kernels are being compiled when they are not cached yet, so a
    first run does not appear to hang (later runs load them from the cache).  ``colour``: the
    colour kernels (:mod:`nonosat.native.colour`) instead of the black-and-white ones."""
    if colour:
        from nonosat.native.colour import colour_kernels_cached as kernels_cached
    else:
        from nonosat.native.search import kernels_cached

    if not kernels_cached():
        typer.echo(
            "nonosat: compiling the solver kernels (first run only; cached afterwards) ...",
            err=True,
        )


def read_state(path: Path, puzzle: Puzzle) -> np.ndarray:
    """Grid state from a text picture with ``?`` for unknown cells; for a colour puzzle, rows of
    the palette's characters (int32 colour bit masks).

    Raises
    ------
    FormatError
        Unreadable file, unknown character or wrong shape (names the file).
    """
    from nonosat.errors import FormatError, PuzzleError
    from nonosat.puzzle import grid_from_rows

    try:
        rows = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(str(path), None, getattr(exc, "strerror", None) or str(exc)) from None
    if puzzle.palette is not None:
        return _colour_state(rows, puzzle, str(path))
    try:
        return grid_from_rows([r for r in rows if r.strip()], puzzle.shape)
    except PuzzleError as exc:
        raise FormatError(str(path), None, str(exc)) from None


def _colour_state(rows: list[str], puzzle: Puzzle, path: str) -> np.ndarray:
    """Colour grid state (int32 bit masks) from rows of palette characters, ``?`` unknown."""
    import numpy as np

    from nonosat.errors import FormatError

    assert puzzle.palette is not None
    chars = {ch: 1 << k for k, ch in enumerate(puzzle.palette.chars)}
    chars.setdefault(".", 1)  # the background, whatever its own character
    chars["?"] = (1 << len(puzzle.palette)) - 1
    numbered = [(k, r.rstrip("\r\n")) for k, r in enumerate(rows, start=1) if r.strip()]
    if len(numbered) != puzzle.height:
        raise FormatError(path, None, f"grid has {len(numbered)} rows, expected {puzzle.height}")
    grid = np.empty(puzzle.shape, dtype=np.int32)
    for i, (line, text) in enumerate(numbered):
        if len(text) != puzzle.width:
            raise FormatError(path, line, f"row has {len(text)} cells, expected {puzzle.width}")
        for j, ch in enumerate(text):
            if ch not in chars:
                raise FormatError(
                    path, line, f"column {j + 1}: {ch!r} is no colour of the palette "
                    f"({puzzle.palette.chars}) nor '?'"
                )
            grid[i, j] = chars[ch]
    return grid


def print_json(obj: Any) -> None:
    """Print ``obj`` as one line of JSON on stdout."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()
