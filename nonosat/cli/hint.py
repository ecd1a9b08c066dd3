"""The next step a person could take, explained.

From a partial grid (--state: a text file, one row per line, '#' filled, '.' empty, '?' unknown;
the empty grid when omitted), prints the simplest next deduction -- overlap on one line before
full line solving, before an implication chain, before probing -- with a sentence explaining it
and the cells it fixes, named by ranges ("columns 1–13 of row 2 filled").  When no deduction
applies, the engine (the portfolio by default) tells which case it is: "a guess is needed: the
puzzle has several solutions", or "no simple deduction: the puzzle is unique, but it needs a
guess here", or no solution.  A wrong cell in the state is reported as a mistake (exit 1).
Colour puzzles get the same hints (a state of palette characters, '?' unknown), with the colours
named ("row 3, column 5 is red"); colour names are escaped on the terminal.
Exit 0 for a hint, a solved grid, or a unique puzzle that needs a guess; 1 for a mistake or a
puzzle with several solutions; 3 when the puzzle has no solution; 4 when the engine did not
decide within --timeout.
"""

from __future__ import annotations

from typing import Annotated

import typer

from nonosat.cli.exits import EXIT_FAILED, EXIT_GAVE_UP, EXIT_MULTIPLE, EXIT_NONE, EXIT_OK
from nonosat.cli.inputs import load_puzzle, starting_state
from nonosat.cli.options import (
    EngineOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    StateOpt,
    timeout_param,
)
from nonosat.cli.output import emit, wrap
from nonosat.cli.running import announce_compile, handle_errors
from nonosat.text import printable

TimeoutOpt = Annotated[float | None, timeout_param("hint")]

@handle_errors
def hint_command(
    puzzle_path: PuzzleArg,
    state: StateOpt = None,
    engine: EngineOpt = "auto",
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Show the next deduction from a partial grid, with an explanation."""
    from nonosat.analysis.hints import next_hint
    from nonosat.analysis.wording import mask_cells_text, pair_cells_text

    puzzle, name = load_puzzle(puzzle_path, format, index)
    grid = starting_state(state, puzzle)
    announce_compile()
    hint = next_hint(puzzle, grid, engine=engine, timeout=timeout)  # resolved by handle_errors
    if json_output:
        emit("hint", {"puzzle": name, **hint.to_json(puzzle)})
    else:
        label = f"[{hint.technique}] " if hint.technique else ""
        # colour names are the file's text: printable() escapes them (and any line break)
        typer.echo(wrap(printable(hint.text), label, indent=2))
        if hint.masks:  # colour: the colours each narrowed cell may still take
            typer.echo(wrap(printable(mask_cells_text(puzzle, hint.masks, limit=12)),
                            "leaves: ", indent=2))
        elif hint.cells:
            verb = "correct values" if hint.kind == "mistake" else "fixes"
            typer.echo(wrap(printable(pair_cells_text(puzzle, hint.cells, limit=12)),
                            f"{verb}: ", indent=2))
    if hint.kind == "guess":
        code = {"multiple": EXIT_MULTIPLE, "unknown": EXIT_GAVE_UP}.get(hint.verdict or "", EXIT_OK)
    else:
        code = {"mistake": EXIT_FAILED, "no-solution": EXIT_NONE}.get(hint.kind, EXIT_OK)
    raise typer.Exit(code)
