"""Convert puzzle files between formats.

Reads any readable format (by suffix, by content, or --format) and writes any writable one (by
the output suffix, or --to).  A multi-puzzle file (tournament set, CSV list, picross-solver file)
converts whole into another multi-puzzle format, or one puzzle of it with --index N.  Picture
formats (text grid, PBM, PNG) need the puzzle's picture: a puzzle without a goal is solved first
(the default engine, auto) and its solution is used when it is unique.  OUT is never overwritten without
--force; '-' writes to standard output.  Givens (cells known from the start) are kept by webpbn XML
and JSON; other formats drop them, with a warning on stderr (and "dropped" in --json).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nonosat.cli.inputs import split_puzzle_ref
from nonosat.cli.options import ForceOpt, FormatOpt, IndexOpt, JsonOpt, PuzzleArg
from nonosat.cli.output import echo, emit, warn
from nonosat.cli.running import handle_errors
from nonosat.text import printable

if TYPE_CHECKING:
    from nonosat.formats import Format
    from nonosat.puzzle import Puzzle

OutArg = Annotated[
    Path,
    typer.Argument(
        help="Output file ('-' for standard output, with --to).", show_default=False,
        metavar="OUT",
    ),
]
ToOpt = Annotated[
    str | None,
    typer.Option(
        "--to", metavar="NAME",
        help="Output format (see 'nonosat formats') (default: from the output suffix).",
    ),
]


@handle_errors
def convert_command(
    puzzle_path: PuzzleArg,
    out: OutArg,
    to: ToOpt = None,
    force: ForceOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Convert a puzzle file to another format."""
    from nonosat.errors import FormatError
    from nonosat.formats import (
        encode_puzzles,
        get_format,
        read_puzzle,
        read_puzzles,
        write_puzzles,
        writer_format,
    )

    stdout = str(out) == "-"
    if stdout:
        if not to:
            raise FormatError("-", None, "writing to standard output needs --to FORMAT")
        target = get_format(to)
    else:
        target = writer_format(out, to)
    puzzle_path, index = split_puzzle_ref(puzzle_path, index)
    if index is not None:
        puzzles = [read_puzzle(puzzle_path, format, index)]
    else:
        puzzles = read_puzzles(puzzle_path, format)
    if stdout and json_output:
        raise FormatError("-", None, "--json needs an OUT file (standard output holds the "
                                     "converted puzzle)")
    if target.stores_picture:
        puzzles = [_with_picture(p, str(out)) for p in puzzles]
    if stdout:
        sys.stdout.buffer.write(encode_puzzles(puzzles, target, "-"))
        sys.stdout.flush()
        _dropped_givens(puzzles, target)
        return
    write_puzzles(puzzles, out, target.name, force)
    dropped = _dropped_givens(puzzles, target)
    if json_output:
        emit("convert", {"out": str(out), "format": target.name, "puzzles": len(puzzles),
                         "dropped": dropped})
        return
    count = f"{len(puzzles)} puzzles" if len(puzzles) > 1 else puzzles[0].describe()
    echo(printable(f"wrote {out} ({target.name}: {count})"), err=True)


def _dropped_givens(puzzles: list[Puzzle], target: Format) -> list[dict[str, object]]:
    """Warn (one line) when ``target`` cannot hold the givens some of ``puzzles`` have; the
    ``"dropped"`` list of ``--json``: ``{"what": "givens", "puzzles": [1-based numbers],
    "cells": given cells in all}``, empty when nothing was dropped."""
    from nonosat.formats.givens import givens_of

    if target.stores_givens:
        return []
    numbers, cells = [], 0
    for k, puzzle in enumerate(puzzles, start=1):
        state = givens_of(puzzle)
        if state is not None:
            numbers.append(k)
            masks = state.astype("int64")  # Cell values and colour masks: one bit = known
            cells += int(((masks & (masks - 1)) == 0).sum())
    if not numbers:
        return []
    which = ("the puzzle's" if len(puzzles) == 1 else
             f"{len(numbers)} puzzle{'s' if len(numbers) > 1 else ''}'")
    warn(f"{which} givens ({cells} given cell{'s' if cells != 1 else ''}) were dropped: "
         f"{target.name} cannot hold them (webpbn and json can)")
    return [{"what": "givens", "puzzles": numbers, "cells": cells}]


def _with_picture(puzzle: Puzzle, out: str) -> Puzzle:
    """``puzzle`` with a goal picture: its own, else its unique solution.

    Raises
    ------
    FormatError
        The puzzle has no solution, several, or unknown clues.
    """
    from dataclasses import replace

    from nonosat.engines import Status, solve
    from nonosat.errors import FormatError

    if puzzle.goal is not None:
        return puzzle

    result = solve(puzzle, "auto", limit=2)
    if result.status is Status.UNIQUE:
        return replace(puzzle, goal=result.solutions[0])
    reason = {
        Status.MULTIPLE: "it has several solutions, so no single picture",
        Status.NONE: "it has no solution",
    }.get(result.status, "the solver gave up")
    raise FormatError(
        out,
        None,
        f"a picture format needs the puzzle's picture, and {puzzle.describe()} has no "
        f"goal; solving it did not give one: {reason}",
    )


@handle_errors
def formats_command(json_output: JsonOpt = False) -> None:
    """List the puzzle file formats nonosat reads and writes."""
    import textwrap

    from nonosat.cli.output import emit, terminal_width
    from nonosat.formats import formats

    rows = list(formats().values())
    if json_output:
        emit("formats", {"formats": [_format_json(f) for f in rows]})
        return
    width = max(len(f.name) for f in rows)
    lines = terminal_width()
    for f in rows:
        mode = (
            ("r" if f.read else "-")
            + ("w" if f.write else "-")
            + ("m" if f.multi and f.read else "-")
            + ("M" if f.write_many else "-")
            + ("c" if f.colour else "-")
        )
        suffixes = " ".join(f.suffixes) or "-"
        head = f"{f.name:<{width}}  {mode}  {suffixes}"
        indent = " " * (width + 9)
        if len(head) + 2 + len(f.description) <= lines:
            echo(f"{head}  {f.description}")
        else:
            typer.echo(head)
            typer.echo("\n".join(textwrap.wrap(f.description, max(lines, 40),
                                               initial_indent=indent, subsequent_indent=indent)))
    typer.echo("")
    typer.echo("\n".join(textwrap.wrap(
        "r = readable, w = writable, m = reads several puzzles per file (pick one with "
        "--index N, or name it FILE#N), M = 'nonosat convert' writes several puzzles to one "
        "file, c = colour puzzles", max(lines, 40))))


def _format_json(f: Format) -> dict[str, object]:
    return {
        "name": f.name,
        "suffixes": list(f.suffixes),
        "read": f.read is not None,
        "write": f.write is not None,
        "multi": f.multi,
        "write_many": f.write_many is not None,
        "picture": f.stores_picture,
        "colour": f.colour,
        "description": f.description,
    }
