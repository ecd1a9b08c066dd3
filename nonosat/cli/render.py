"""Draw a puzzle with its clues, and optionally its solution, as SVG or PNG.

Without --out, prints the clue-annotated grid in the terminal.  With --solution the puzzle is
solved first (--engine, default auto: the portfolio, as 'nonosat solve', looking for two
solutions); when it has several, every cell outside the backbone -- the whole ambiguity map, the
cells that differ between some two solutions, as 'nonosat analyse --map' finds it -- is drawn as
a grey checkerboard (in the terminal: '??').  With --solution the exit code is the verdict, as
for 'nonosat solve'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nonosat.cli.exits import EXIT_OK, STATUS_EXIT
from nonosat.cli.inputs import load_puzzle
from nonosat.cli.options import EngineOpt, ForceOpt, FormatOpt, IndexOpt, PuzzleArg, TimeoutOpt
from nonosat.cli.output import echo, echo_colour_grid, echo_grid
from nonosat.cli.running import handle_errors
from nonosat.errors import FormatError
from nonosat.text import printable

SolutionOpt = Annotated[
    bool, typer.Option("--solution", help="Solve the puzzle and draw its solution.")
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Write FILE.svg or FILE.png instead of printing text."),
]
CellOpt = Annotated[
    int | None,
    typer.Option("--cell", min=4, max=200, help="Cell size in pixels (default: by puzzle size)."),
]

_VERDICT = {
    "unique": "unique solution",
    "multiple": "several solutions: the cells that differ between solutions (the whole "
                "ambiguity map) are checkered",
    "none": "no solution",
    "unknown": "gave up before deciding",
    "solved": "solved",
}


@handle_errors
def render_command(
    puzzle_path: PuzzleArg,
    solution: SolutionOpt = False,
    out: OutOpt = None,
    cell: CellOpt = None,
    engine: EngineOpt = "auto",
    timeout: TimeoutOpt = None,
    force: ForceOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Draw a puzzle (and its solution) as SVG, PNG or text."""
    puzzle, _ = load_puzzle(puzzle_path, format, index)
    kind = None
    if out is not None:
        kind = out.suffix.lower()
        if kind not in (".svg", ".png"):
            raise FormatError(str(out), None, "--out must end in .svg or .png")
        if out.exists() and not force:
            raise FormatError(str(out), None, "already exists; use --force to overwrite it")
    solutions: list = []
    code = EXIT_OK
    verdict = None
    if solution:
        from nonosat.engines import solve

        result = solve(puzzle, engine, limit=2, timeout=timeout)
        solutions = list(result.solutions)
        if len(solutions) >= 2 and not puzzle.is_colour:
            solutions = ambiguity_witnesses(puzzle, solutions, timeout)
        code = STATUS_EXIT[result.status]
        verdict = _VERDICT.get(result.status.value, result.status.value)
    if out is None and puzzle.is_colour:
        import numpy as np

        grid = None
        if solutions:
            stack = np.asarray(solutions, dtype=np.int64)
            grid = np.bitwise_or.reduce(np.left_shift(1, stack), axis=0)
        echo_colour_grid(puzzle, grid, masks=True)
    elif out is None:
        from nonosat.puzzle import Cell
        from nonosat.render.clue_grid import render_text
        from nonosat.render.layout import DIFFERS, cell_states

        grid = None
        if solutions:
            grid = cell_states(puzzle, solutions=solutions)
            grid[grid == DIFFERS] = Cell.UNKNOWN
        echo_grid(render_text(puzzle, grid), "grid", puzzle.shape)
    else:
        if kind == ".svg":
            from nonosat.render.svg import render_svg

            data = render_svg(puzzle, solutions=solutions, cell=cell).encode()
        else:
            from nonosat.render.png import render_png

            data = render_png(puzzle, solutions=solutions, cell=cell)
        _write(out, data)
        echo(printable(f"wrote {out}"), err=True)
    if verdict is not None:
        echo(printable(f"{puzzle.describe()}: {verdict}"), err=out is not None)
    raise typer.Exit(code)


def ambiguity_witnesses(puzzle, solutions: list, timeout: float | None) -> list:
    """Solutions that differ, together, on exactly the non-backbone cells (the witnesses of
    :func:`nonosat.analysis.ambiguity.ambiguity_map`, the function behind ``analyse --map``),
    so that drawing them as several solutions checkers the whole ambiguity map."""
    from nonosat.analysis.ambiguity import ambiguity_map
    from nonosat.native.probe import probe_grid

    root = probe_grid(puzzle)
    return ambiguity_map(puzzle, solutions, None if root is None else root[0],
                         timeout=timeout).witnesses


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` atomically (temporary name, then rename).

    Raises
    ------
    FormatError
        The file cannot be written.
    """
    from nonosat.safe_io import atomic_write

    atomic_write(path, data, force=True)  # --force was checked before drawing
