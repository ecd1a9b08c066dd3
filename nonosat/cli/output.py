"""One printer per kind of output, shared by every command: the JSON contract, brief lines,
verdict lines and grids that fit the terminal.

The JSON contract (``docs/cli.md``, JSON Schema in ``docs/schema/``): every object a command
prints with ``--json`` carries

* ``schema``: :data:`SCHEMA` (``"nonosat/1"``), and ``command``: the command that printed it;
* ``puzzle``: the name nonosat prints for the puzzle (``FILE``, or ``FILE#N`` for puzzle N of a
  multi-puzzle file; a certificate directory for ``verify-certificate``);
* ``status``: the puzzle's verdict, one of :data:`STATUSES` (``unique``, ``multiple``, ``none``,
  ``solved``, ``unknown``).  Commands that check something (``verify``,
  ``verify-certificate``, ``crosscheck``) say the puzzle's verdict in ``status`` as well, and
  the check's outcome in ``ok`` (true/false; ``verify`` also ``outcome``);
* ``time_s``: the engine's own time on the puzzle, ``elapsed_s``: the command's wall time;
* cells as 1-based ``{"row", "col", "value"}`` with ``value`` one of ``filled``, ``empty``,
  ``unknown`` (colour puzzles: ``"colour": NAME`` or ``"colours": [NAME, ...]``);
* ``warnings`` (when there are any): the warnings the command said on stderr, one string each
  (a goal picture that contradicts the clues: :func:`nonosat.cli.common.read_puzzle`).

One object per puzzle; a command that reports on several puzzles prints JSON Lines.
:func:`emit` prints an object after :func:`contract` has put it in this form; the per-command
conversions (:func:`nonosat.contract.convert`) rename what the library layers call otherwise,
so the layers below ``cli/`` keep their own names (the studio uses them).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from typing import Any

import typer

from nonosat.contract import SCHEMA, STATUSES, cell, convert

__all__ = ["SCHEMA", "STATUSES", "cell", "contract", "emit"]

#: ``time.perf_counter()`` when the command started (set by :func:`start_clock`).
_STARTED: float | None = None


def start_clock() -> None:
    """Remember when the command started, for ``elapsed_s``."""
    global _STARTED
    _STARTED = time.perf_counter()


def elapsed() -> float:
    """Seconds since :func:`start_clock` (0 when it was not called)."""
    return 0.0 if _STARTED is None else time.perf_counter() - _STARTED


# -- JSON ------------------------------------------------------------------------------------------


def emit(command: str, obj: dict[str, Any]) -> None:
    """Print ``obj`` as one line of JSON on stdout, in the contract's form (:func:`contract`)."""
    sys.stdout.write(json.dumps(contract(command, obj)) + "\n")
    sys.stdout.flush()


def contract(command: str, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` in the JSON contract: ``schema`` and ``command`` first, the command's own names
    mapped to the contract's (``_CONVERT``), ``elapsed_s`` added when missing."""
    body = convert(command, obj)
    body.pop("schema", None)
    body.pop("command", None)
    out: dict[str, Any] = {"schema": SCHEMA, "command": command}
    for key in ("puzzle", "status"):
        if key in body:
            out[key] = body.pop(key)
    out.update(body)
    if "elapsed_s" not in out and command != "formats":
        out["elapsed_s"] = round(elapsed(), 6)
    from nonosat.cli.common import WARNINGS  # said on stderr too (nonosat.cli.common.warn)

    if WARNINGS and "warnings" not in out:
        out["warnings"] = list(WARNINGS)
    return out


# -- text ------------------------------------------------------------------------------------------


def terminal_width() -> int:
    """The width text output must fit: ``$COLUMNS``, else the terminal's, else 80 (a pipe)."""
    import os

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((80, 24)).columns
    return 80


def brief_line(puzzle: str, status: str, time_s: float | None, *extra: str) -> str:
    """The brief format (``-q/--brief``): ``PUZZLE STATUS TIMEs [EXTRA...]``, one line per
    puzzle, fields separated by one space (the name never holds a control character)."""
    from nonosat.text import printable

    parts = [printable(puzzle).replace(" ", "\\x20"), printable(status)]
    parts.append("-" if time_s is None else f"{time_s:.3f}s")
    parts += [printable(e) for e in extra if e]
    return " ".join(parts)


def fits(lines: list[str], width: int | None = None) -> bool:
    """Whether every line of ``lines`` fits ``width`` (default :func:`terminal_width`)."""
    width = terminal_width() if width is None else width
    return all(len(line) <= width for line in lines)


def grid_summary(text: str, what: str, shape: tuple[int, int]) -> str:
    """The one line printed instead of a grid ``text`` wider than the terminal."""
    cols = max((len(line) for line in text.split("\n")), default=0)
    height, width = shape
    return f"({width}x{height} {what} not shown: {cols} columns; see --json or render --out F.svg)"


def echo_grid(text: str, what: str, shape: tuple[int, int]) -> None:
    """Print a grid, or :func:`grid_summary` when it does not fit the terminal."""
    if fits(text.split("\n")):
        typer.echo(text)
    else:
        typer.echo(grid_summary(text, what, shape))


def echo_colour_grid(puzzle: Any, grid: Any = None, *, masks: bool = False) -> None:
    """Print a colour puzzle's grid in colour (:func:`nonosat.render.colour_text.
    render_colour_text`), or :func:`grid_summary` when it does not fit the terminal."""
    from rich.console import Console

    from nonosat.render.colour_text import render_colour_text

    text = render_colour_text(puzzle, grid, masks=masks)
    if fits(text.plain.split("\n")):
        Console(highlight=False, soft_wrap=True).print(text)
    else:
        typer.echo(grid_summary(text.plain, "grid", puzzle.shape))


def wrap(text: str, first: str = "", indent: int | None = None, width: int | None = None) -> str:
    """``first + text`` wrapped at word boundaries to ``width`` columns (default
    :func:`terminal_width`), continuation lines indented by ``indent`` spaces (default:
    ``len(first)``, a hanging indent under the text).  :func:`textwrap.fill`; a word longer
    than a line (a long path) is split, never a line left over ``width``; ranges (``1–6``) and
    hyphenated words are not split."""
    import textwrap

    width = terminal_width() if width is None else width
    pad = " " * (len(first) if indent is None else indent)
    return textwrap.fill(text, width=width, initial_indent=first, subsequent_indent=pad,
                         break_long_words=True, break_on_hyphens=False)


def wrap_lines(text: str, width: int | None = None) -> str:
    """``text`` with every line longer than ``width`` (default :func:`terminal_width`) wrapped
    by :func:`wrap`, its continuation lines indented two spaces more than the line itself
    (``label: long value`` lines, verdict lines naming a long path).  Lines that fit are left
    as they are (grids wider than the terminal are summarised before: :func:`echo_grid`)."""
    width = terminal_width() if width is None else width
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        body = line.lstrip(" ")
        lead = len(line) - len(body)
        out.append(wrap(body, " " * lead, lead + 2, width))
    return "\n".join(out)


def echo(text: str = "", err: bool = False) -> None:
    """Print a text report (or a line of one) on stdout (``err``: stderr), every line fitting
    the terminal (:func:`wrap_lines`).  Not for ``--brief`` lines, JSON or one-line errors,
    which stay one line whatever their length."""
    typer.echo(wrap_lines(text), err=err)


def fit_line(line: str, what: str) -> str:
    """``line`` when it fits the terminal, else a summary saying how long it is and where to
    find it (``--json``)."""
    if len(line) <= terminal_width():
        return line
    label, _, value = line.partition(": ")
    return f"{label}: (not shown: {len(value)} characters; see --json)"


def fold(table: Any) -> Any:
    """A rich ``Table`` whose cells fold long text onto more lines instead of cutting it with an
    ellipsis (names and paths are never cut)."""
    for column in table.columns:
        column.overflow = "fold"
    return table
