"""Solve a puzzle and give the verdict on uniqueness.

Prints the clue-annotated grid of each solution found, the verdict (unique / multiple / none /
unknown) and the solving time; with --json, one JSON object.

\b
Examples:
  nonosat solve games/heart.non
  nonosat solve games/cross-ambiguous.non --limit 10 --json
  nonosat solve taai2011.txt --index 7 --engine sat --timeout 60
  nonosat solve puzzle.non --state partial.txt    # '#' filled, '.' empty, '?' unknown
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nonosat.cli.common import (
    STATUS_EXIT,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    TimeoutOpt,
    announce_compile,
    handle_errors,
    print_json,
    read_state,
)
from nonosat.engines import ENGINE_MODULES, Status, solve
from nonosat.formats import read_puzzle

EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine",
        "-e",
        metavar="NAME",
        help=f"Engine: {', '.join(ENGINE_MODULES)}. 'auto' runs the native solver's propagation "
        "and probing, and hands what they proved over to SAT if that does not decide the puzzle.",
    ),
]
LimitOpt = Annotated[
    int,
    typer.Option(
        "--limit", "-n", min=1, metavar="N", help="Look for up to N solutions (2 decides uniqueness, 1 = first only)."
    ),
]
StateOpt = Annotated[
    Path | None,
    typer.Option(
        "--state",
        metavar="FILE",
        help="Partial grid: a text file, one row per line, '#' filled, '.' empty, '?' unknown "
        "(colour puzzles: the palette's characters, '.' background, '?' unknown).",
    ),
]

SatSolverOpt = Annotated[
    str | None,
    typer.Option("--sat-solver", metavar="NAME", help="PySAT solver for --engine sat (default Cadical195)."),
]

_VERDICT = {
    Status.UNIQUE: "unique solution",
    Status.MULTIPLE: "several solutions",
    Status.NONE: "no solution",
    Status.SOLVED: "solved (uniqueness not checked: --limit 1)",
    Status.UNKNOWN: "gave up before deciding",
}


@handle_errors
def solve_command(
    puzzle_path: PuzzleArg,
    engine: EngineOpt = "auto",
    limit: LimitOpt = 2,
    timeout: TimeoutOpt = None,
    state: StateOpt = None,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
    sat_solver: SatSolverOpt = None,
) -> None:
    """Solve a puzzle and say whether its solution is unique."""
    from nonosat.errors import EngineError

    puzzle = read_puzzle(puzzle_path, format, index)
    partial = read_state(state, puzzle) if state is not None else None
    if engine in ("native", "auto"):
        announce_compile(puzzle.is_colour)
    options = {}
    if sat_solver is not None:
        if engine != "sat":
            raise EngineError("--sat-solver applies to --engine sat")
        options["solver"] = sat_solver
    result = solve(puzzle, engine, partial=partial, limit=limit, timeout=timeout, **options)
    name = str(puzzle_path) + (f"#{index}" if index is not None else "")
    if json_output:
        print_json(result.to_json(puzzle, name))
    elif puzzle.is_colour:
        from rich.console import Console

        from nonosat.render.colour_text import render_colour_text

        console = Console(highlight=False, soft_wrap=True)
        for k, sol in enumerate(result.solutions, start=1):
            if len(result.solutions) > 1:
                console.print(f"solution {k}:")
            console.print(render_colour_text(puzzle, sol))
            console.print("")
        console.print(
            f"{puzzle.describe()}: {_VERDICT[result.status]} "
            f"[{result.engine}, {result.time_s:.3f} s]",
            markup=False,
        )
    else:
        from nonosat.render.text import render_text

        for k, sol in enumerate(result.solutions, start=1):
            if len(result.solutions) > 1:
                typer.echo(f"solution {k}:")
            typer.echo(render_text(puzzle, sol))
            typer.echo("")
        typer.echo(
            f"{puzzle.describe()}: {_VERDICT[result.status]} "
            f"[{result.engine}, {result.time_s:.3f} s]"
        )
    raise typer.Exit(STATUS_EXIT[result.status])
