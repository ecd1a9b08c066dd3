"""Explain a whole solve, step by step, as a person would solve it -- guesses included.

Numbered steps from the empty grid.  First the deductions a person makes without guessing, each
named by its technique (overlap, line, contradiction, tautology, failed-literal, probe-both) with
the sentence that explains it; the cells one line yields are one step, named by ranges ("columns
3–7 filled").  Where no deduction applies, the portfolio engine says why: "the puzzle has several
solutions" or "the puzzle is unique, but it needs a guess here".  Then the search goes on from
there as a step-through solver does -- guess, line solving, contradiction, rewind to before the
guess, the other value -- to the solution (for a puzzle with several solutions, to each of the
first two; for one with none, through every contradiction).  The grid is shown every
--grid-every steps and at the end of each stage ('?' open, '#' filled, '.' empty).  Lines fit
the terminal (80 columns in a pipe).

Exit 0 when explained to the unique solution, 1 when the puzzle has several solutions (the first
two reached), 3 when it has none, 4 when --timeout or --max-steps stopped it first (the verdict,
when known, is printed).
"""

from __future__ import annotations

from typing import Annotated

import typer

from nonosat.cli.exits import EXIT_GAVE_UP, EXIT_MULTIPLE, EXIT_NONE, EXIT_OK, STATUS_EXIT
from nonosat.cli.inputs import load_puzzle
from nonosat.cli.options import (
    DepthOpt,
    EngineOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    timeout_param,
)
from nonosat.cli.output import echo_colour_grid, echo_grid, emit, terminal_width, wrap
from nonosat.cli.running import announce_compile, handle_errors
from nonosat.text import printable, printable_lines

TimeoutOpt = Annotated[float | None, timeout_param("explain")]

MaxStepsOpt = Annotated[
    int | None, typer.Option("--max-steps", min=1, help="Stop after N steps (exit 4).")
]
GridOpt = Annotated[
    bool, typer.Option("--grid/--no-grid", help="Show grids (every --grid-every steps and at the "
                       "end of each stage).")
]
GridEveryOpt = Annotated[
    int, typer.Option("--grid-every", min=0, metavar="N",
                      help="Show the grid every N steps; 0 = only at the end of each stage.")
]
#: Steps between grids by default.
GRID_EVERY = 50


def compact_grid(grid) -> list[str]:
    """A grid state one character per cell, rows and columns numbered: the ruler gives the tens
    and the units of each column number."""
    h, w = grid.shape
    chars = {2: "#", 1: ".", 3: "?"}
    pad = len(str(h)) + 2
    tens = "".join(str((c + 1) // 10 % 10) if (c + 1) >= 10 else " " for c in range(w))
    units = "".join(str((c + 1) % 10) for c in range(w))
    lines = [" " * pad + tens] if w >= 10 else []
    lines.append(" " * pad + units)
    for r in range(h):
        lines.append(f"{r + 1:>{pad - 2}}  " + "".join(chars.get(int(v), "?") for v in grid[r]))
    return lines


def grid_lines(puzzle, grid, *, clues: bool) -> list[str]:
    """The grid with its clues when that fits the terminal, else compact."""
    if clues:
        from nonosat.render.clue_grid import render_text

        text = render_text(puzzle, grid).splitlines()
        if max(map(len, text)) <= terminal_width():
            return text
    return compact_grid(grid)


_STAGE_TITLES = {
    "logic": "Logic: deductions without guessing",
    "search": "Search: guesses, contradictions and rewinds",
}


@handle_errors
def explain_command(
    puzzle_path: PuzzleArg,
    max_steps: MaxStepsOpt = None,
    depth: DepthOpt = None,
    grid: GridOpt = True,
    grid_every: GridEveryOpt = GRID_EVERY,
    engine: EngineOpt = "auto",
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Explain the solve as numbered steps, past guesses, to the solution(s)."""
    import numpy as np

    from nonosat.analysis.walkthrough import walkthrough
    from nonosat.engines import Status
    from nonosat.puzzle import grid_rows, unknown_grid

    puzzle, name = load_puzzle(puzzle_path, format, index)
    announce_compile()
    if puzzle.is_colour:
        _explain_colour(puzzle, name, max_steps, grid, json_output, engine, timeout)
    limit = timeout  # resolved by handle_errors
    walk = walkthrough(puzzle, engine=engine, timeout=limit, depth=depth, max_steps=max_steps)
    stage_ends = {end for _, first, end in walk.stages if end > first}
    snapshots: list[tuple[int, np.ndarray]] = []  # (steps done, grid)
    state = unknown_grid(puzzle)
    for k, step in enumerate(walk.steps, start=1):
        for r, c, v in step.cells:
            state[r, c] = v
        if grid and (k in stage_ends or step.kind == "solution"
                     or (grid_every and k % grid_every == 0)):
            snapshots.append((k, state.copy()))
    if grid and not walk.steps:
        snapshots.append((0, state.copy()))

    if walk.end == "timeout":
        ending = f"Stopped at the time limit ({limit:g} s) after {len(walk.steps)} steps."
    elif walk.end == "max-steps":
        ending = f"Stopped after {len(walk.steps)} steps (--max-steps)."
    elif walk.status == Status.MULTIPLE:
        a, b = walk.solutions
        ending = (f"Several solutions: the first two are reached above; they differ in "
                  f"{int((a != b).sum())} cells.")
    elif walk.status == Status.NONE and walk.stuck is None:
        ending = "No solution: the deductions reach a line that cannot hold its clue."
    elif walk.status == Status.NONE:
        ending = "No solution: every guess ends in a contradiction."
    elif walk.stuck is None:
        ending = "Unique solution: logic alone solves the puzzle, no guess needed."
    else:
        ending = (f"Unique solution, but it needs a guess: reached after {walk.guesses} "
                  f"guess{'es' if walk.guesses != 1 else ''}; the {engine} engine checked "
                  "that there is no other.")
    if walk.end in ("timeout", "max-steps"):
        verdict = {Status.MULTIPLE: "the puzzle has several solutions",
                   Status.UNIQUE: "the puzzle is unique",
                   Status.NONE: "the puzzle has no solution"}.get(walk.status)
        ending += f" The verdict: {verdict}." if verdict else " The verdict is not known yet."

    if json_output:
        emit("explain", {
            "puzzle": name,
            "width": puzzle.width,
            "height": puzzle.height,
            "status": walk.status.value,
            "end": walk.end,
            "text": ending,
            "stuck": walk.stuck.to_json(puzzle) if walk.stuck is not None else None,
            "stages": [{"name": n, "first": f, "end": e} for n, f, e in walk.stages],
            "steps": [s.to_json(puzzle) for s in walk.steps],
            "solutions": [grid_rows(s) for s in walk.solutions],
            "guesses": walk.guesses,
            "backtracks": walk.backtracks,
            "counts": walk.counts(),
            "grids": [{"after": k, "rows": grid_rows(g)} for k, g in snapshots],
        })
    else:
        width = len(str(max(len(walk.steps), 1)))
        shots = dict(snapshots)
        starts = {first: name for name, first, end in walk.stages if end > first}
        if walk.steps and walk.stages[0][2] == 0:  # logic had nothing to say
            typer.echo(_STAGE_TITLES["logic"])
            typer.echo("No line, implication chain or probe fixes a cell of the empty grid.")
        for k, step in enumerate(walk.steps, start=1):
            if k - 1 in starts:
                typer.echo(_STAGE_TITLES[starts[k - 1]])
                if starts[k - 1] == "search" and walk.stuck is not None:
                    typer.echo(wrap(printable_lines(walk.stuck.text)))
            label = step.label
            if step.technique is None and step.depth and step.kind in ("line", "probe",
                                                                       "contradiction"):
                label += f", depth {step.depth}"
            typer.echo(wrap(printable_lines(step.text), f"{k:>{width}}. [{label}] ",
                            indent=width + 2))
            if k in shots:
                final = k == len(walk.steps) or walk.steps[k - 1].kind == "solution"
                typer.echo(f"Grid after step {k}:")
                echo_grid("\n".join(grid_lines(puzzle, shots[k], clues=final)), "grid",
                          puzzle.shape)
        if 0 in shots:
            echo_grid("\n".join(grid_lines(puzzle, shots[0], clues=True)), "grid", puzzle.shape)
        if walk.stuck is not None and not any(n == "search" for n, f, e in walk.stages
                                              if e > f):
            typer.echo(wrap(printable_lines(walk.stuck.text)))
        parts = []
        for name, counts in walk.counts().items():
            n = sum(counts.values())
            listed = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            parts.append(f"{name} {n}" + (f" ({listed})" if listed else ""))
        typer.echo(wrap(f"{len(walk.steps)} steps: " + "; ".join(parts)))
        typer.echo(wrap(ending))
    if walk.end in ("timeout", "max-steps"):
        raise typer.Exit(EXIT_GAVE_UP)
    if walk.end == "no-solution":
        raise typer.Exit(EXIT_NONE)
    raise typer.Exit(STATUS_EXIT.get(walk.status, EXIT_OK))


def _explain_colour(puzzle, name, max_steps, grid, json_output, engine, timeout) -> None:
    """``explain`` of a colour puzzle: the hints of :func:`nonosat.analysis.walkthrough.explain`
    (the one finder of black-and-white), then, when logic is stuck, the engine's verdict
    (:func:`nonosat.analysis.hints.stuck_hint`); always exits."""
    import numpy as np  # here, not at module level: `nonosat --help` must not import numpy

    from nonosat.analysis.hints import stuck_hint
    from nonosat.analysis.walkthrough import explain
    from nonosat.puzzle import colour_rows

    result = explain(puzzle, max_steps=max_steps)
    final = result.final
    g = result.grid
    assert g is not None
    end = "stopped" if final is None else final.kind
    stuck = None
    if end == "guess":
        stuck = stuck_hint(puzzle, g, engine=engine, timeout=timeout, forced=True)
        end = stuck.kind  # "guess", or "no-solution"
    status = {"solved": "unique", "no-solution": "none"}.get(end, "unknown")
    if stuck is not None and stuck.kind == "guess":
        status = {"multiple": "multiple", "unique": "unique"}.get(stuck.verdict or "", status)
    if json_output:
        single = ((g & (g - 1)) == 0) & (g > 0)
        solution = colour_rows(np.log2(np.maximum(g, 1)).astype(int), puzzle.palette) \
            if single.all() else None
        emit("explain", {
            "puzzle": name,
            "status": status,
            "steps": [s.to_json(puzzle) for s in result.steps],
            "end": end,
            "techniques": result.technique_counts(),
            "stuck": stuck.to_json(puzzle) if stuck is not None else None,
            "grid": solution,
        })
    else:
        width = len(str(len(result.steps)))
        for k, step in enumerate(result.steps, start=1):
            typer.echo(wrap(printable(step.text), f"{k:>{width}}. [{step.technique}] ",
                            indent=width + 2))
        if final is not None and final.kind == "no-solution":
            typer.echo(wrap(printable(final.text)))
        typer.echo(wrap(printable(stuck.text)) if stuck is not None else
                   {"solved": "Unique solution: logic alone solves the puzzle, no guess needed.",
                    "no-solution": "No solution: the deductions reach a contradiction.",
                    "stopped": f"Stopped after {len(result.steps)} steps (--max-steps)."}[end])
        counts = ", ".join(f"{k} {v}" for k, v in sorted(result.technique_counts().items()))
        typer.echo(wrap(f"{len(result.steps)} steps: {counts}"))
        if grid:
            echo_colour_grid(puzzle, g, masks=True)
    # 0 only when explained to the solution: colour has no step-through search, so a unique
    # puzzle that needs a guess ends as a stopped walk-through (4)
    code = EXIT_OK if end == "solved" else {"multiple": EXIT_MULTIPLE,
                                            "none": EXIT_NONE}.get(status, EXIT_GAVE_UP)
    raise typer.Exit(code)
