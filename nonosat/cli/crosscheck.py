"""Cross-check engines: solve each puzzle with every engine and fail loudly when they disagree.

Runs the independent engines (native, sat, cpsat, or --engines) with limit 2 on every puzzle of
every file (multi-puzzle files expand to each puzzle, named PATH#N), checks each solution against
the clues and the file's goal picture, and prints a table of engine verdicts and times; with
--json, one JSON object per line per puzzle.  Exit 0 when all agree, 1 on any disagreement,
invalid solution or goal, 4 when an engine gave up, 2 for bad input.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nonosat.cli.common import (
    EXIT_FAILED,
    EXIT_GAVE_UP,
    EXIT_OK,
    FormatOpt,
    JsonOpt,
    TimeoutOpt,
    handle_errors,
    print_json,
)
from nonosat.engines import INDEPENDENT_ENGINES

if TYPE_CHECKING:
    from nonosat.crosscheck import CrossCheck

PuzzlesArg = Annotated[
    list[Path],
    typer.Argument(
        help="Puzzle files; multi-puzzle files are checked puzzle by puzzle.", show_default=False
    ),
]
EnginesOpt = Annotated[
    str,
    typer.Option("--engines", "-e", help="Comma-separated engines to compare."),
]

_DEFAULT_ENGINES = ",".join(INDEPENDENT_ENGINES)
_STYLE = {"disagreement": "bold red", "unknown": "yellow"}


@handle_errors
def crosscheck_command(
    puzzle_paths: PuzzlesArg,
    engines: EnginesOpt = _DEFAULT_ENGINES,
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
) -> None:
    """Compare every engine's verdict and solution on each puzzle."""
    from nonosat.crosscheck import crosscheck
    from nonosat.engines import get_engine
    from nonosat.errors import EngineError
    from nonosat.formats import iter_puzzles

    names = [name.strip() for name in engines.split(",") if name.strip()]
    if not names:
        raise EngineError("--engines names no engine")
    for name in names:
        get_engine(name)  # unknown or unavailable engines are bad input, before any work
    puzzles = [item for path in puzzle_paths for item in iter_puzzles(path, format)]
    reports = []
    for puzzle_id, puzzle in puzzles:
        report = crosscheck(puzzle, names, timeout=timeout, puzzle_id=puzzle_id)
        reports.append(report)
        if json_output:
            print_json(report.to_json())
    if not json_output:
        _print_table(reports, names)
    if any(r.failed for r in reports):
        raise typer.Exit(EXIT_FAILED)
    raise typer.Exit(EXIT_GAVE_UP if any(r.gave_up for r in reports) else EXIT_OK)


def _print_table(reports: list[CrossCheck], names: list[str]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Column, Table

    # puzzles of one directory: name the directory once, in the title
    folders = {os.path.dirname(r.puzzle_id) for r in reports}
    folder = folders.pop() if len(folders) == 1 else ""
    skip = len(os.path.join(folder, "")) if folder else 0
    table = Table(
        Column("puzzle", overflow="fold"),
        *(Column(name, no_wrap=True) for name in names),
        Column("status", no_wrap=True),
        title=escape(os.path.join(folder, "")) if folder else None,
    )
    for report in reports:
        cells = [f"{run.verdict} {run.time_s:.3f} s" for run in report.runs]
        status = report.status
        style = _STYLE.get(status, "red" if report.failed else "green")
        table.add_row(escape(report.puzzle_id[skip:]), *cells, f"[{style}]{status}[/]")
    console = Console(highlight=False)
    console.print(table)
    for report in reports:
        for finding in report.findings:
            where = escape(f"{report.puzzle_id}: {finding.kind}:")
            console.print(f"[red]{where}[/] {escape(finding.message)}", soft_wrap=True)
    failed = sum(r.failed for r in reports)
    gave_up = sum(r.gave_up and not r.failed for r in reports)
    console.print(
        f"{len(reports)} puzzle(s): {len(reports) - failed - gave_up} agreed, "
        f"{failed} with findings, {gave_up} where an engine gave up",
        soft_wrap=True,
    )
