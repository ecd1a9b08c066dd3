"""Explain a whole solve, step by step, as a person would solve it.

Numbered steps from the empty grid, each one deduction named by its technique (overlap, line,
contradiction, tautology, failed-literal, probe-both) with the sentence that explains it; the
cells one line yields are one step.  Ends with the solved grid, or at the point where a guess is
needed (the grid so far is printed, '??' for open cells).  Exit 0 when solved, 4 when a guess is
needed, 3 when the puzzle has no solution.
"""

from __future__ import annotations

from typing import Annotated

import typer

from nonosat.cli.common import (
    EXIT_GAVE_UP,
    EXIT_NONE,
    EXIT_OK,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    announce_compile,
    handle_errors,
    print_json,
)
from nonosat.formats import read_puzzle

MaxStepsOpt = Annotated[
    int | None, typer.Option("--max-steps", min=1, help="Stop after N steps.")
]
DepthOpt = Annotated[
    int | None,
    typer.Option("--depth", min=1, help="Implication graph traversal depth (default: unlimited)."),
]
GridOpt = Annotated[
    bool, typer.Option("--grid/--no-grid", help="Print the grid reached at the end.")
]


@handle_errors
def explain_command(
    puzzle_path: PuzzleArg,
    max_steps: MaxStepsOpt = None,
    depth: DepthOpt = None,
    grid: GridOpt = True,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Explain the solve as numbered human-style steps."""
    from nonosat.analysis.hints import explain
    from nonosat.puzzle import grid_rows

    puzzle = read_puzzle(puzzle_path, format, index)
    announce_compile(puzzle.is_colour)
    if puzzle.is_colour:
        _explain_colour(puzzle, puzzle_path, index, max_steps, grid, json_output)
    result = explain(puzzle, depth=depth, max_steps=max_steps)
    final = result.final
    if json_output:
        print_json({
            "puzzle": str(puzzle_path) + (f"#{index}" if index is not None else ""),
            "steps": [s.to_json(puzzle) for s in result.steps],
            "end": final.to_json(puzzle) if final is not None else None,
            "techniques": result.technique_counts(),
            "grid": grid_rows(result.grid) if result.grid is not None else None,
        })
    else:
        width = len(str(len(result.steps)))
        for k, step in enumerate(result.steps, start=1):
            typer.echo(f"{k:>{width}}. [{step.technique}] {step.text}")
        if final is not None:
            typer.echo(final.text)
        else:
            typer.echo(f"stopped after {len(result.steps)} steps (--max-steps)")
        counts = ", ".join(f"{k} {v}" for k, v in sorted(result.technique_counts().items()))
        typer.echo(f"{len(result.steps)} steps: {counts}")
        if grid:
            from nonosat.render.text import render_text

            typer.echo(render_text(puzzle, result.grid))
    kind = final.kind if final is not None else "stopped"
    raise typer.Exit({"solved": EXIT_OK, "no-solution": EXIT_NONE}.get(kind, EXIT_GAVE_UP))


def _explain_colour(puzzle, puzzle_path, index, max_steps, grid, json_output) -> None:
    """``explain`` of a colour puzzle (:func:`nonosat.analysis.colour.colour_explain`);
    always exits."""
    import numpy as np  # here, not at module level: `nonosat --help` must not import numpy

    from nonosat.analysis.colour import colour_explain
    from nonosat.puzzle import colour_rows

    result = colour_explain(puzzle, max_steps=max_steps)
    if json_output:
        g = result.grid
        single = ((g & (g - 1)) == 0) & (g > 0)
        solution = colour_rows(np.log2(np.maximum(g, 1)).astype(int), puzzle.palette) \
            if single.all() else None
        print_json({
            "puzzle": str(puzzle_path) + (f"#{index}" if index is not None else ""),
            "steps": [s.to_json(puzzle) for s in result.steps],
            "end": result.end,
            "techniques": result.technique_counts(),
            "grid": solution,
        })
    else:
        width = len(str(len(result.steps)))
        for k, step in enumerate(result.steps, start=1):
            typer.echo(f"{k:>{width}}. [{step.technique}] {step.text}")
        ends = {"solved": "solved.", "no-solution": "contradiction: the puzzle has no solution.",
                "guess": "no deduction left: the rest needs a guess.",
                "stopped": f"stopped after {len(result.steps)} steps (--max-steps)"}
        typer.echo(ends[result.end])
        counts = ", ".join(f"{k} {v}" for k, v in sorted(result.technique_counts().items()))
        typer.echo(f"{len(result.steps)} steps: {counts}")
        if grid:
            from rich.console import Console

            from nonosat.render.colour_text import render_colour_text

            Console(highlight=False, soft_wrap=True).print(
                render_colour_text(puzzle, result.grid, masks=True))
    raise typer.Exit({"solved": EXIT_OK, "no-solution": EXIT_NONE}.get(result.end, EXIT_GAVE_UP))
