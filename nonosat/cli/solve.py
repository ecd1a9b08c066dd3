"""Solve a puzzle and give the verdict on uniqueness.

Prints the clue-annotated grid of each solution found (with several, the cells on which they
differ are marked: '@' filled, '.' empty), the davidje13 short codes of the picture and of the
clues, the verdict (unique / several solutions, with how many were found up to --limit / none /
unknown) and the engine's own time (loading the compiled kernels is said apart), then a one-line
classification: "unique, line-solvable", "unique, needs probing (depth 1)", "unique, needs search
(N guesses)" (native search) or "(N conflicts)" (SAT decided), "several solutions (at least K
cells ambiguous)" (K: the cells on which the solutions found differ; `nonosat analyse` gives the
whole map; "K cells ambiguous" when --limit was above the count and every solution was found),
"no solution" (no extra solving: one line-solving fixpoint).  With --count, a puzzle with
several solutions is counted exactly ("48 solutions"): by the native line-level counter
(black-and-white, lines up to 62 cells; above 10^6 solutions a lower bound), CaDiCaL's
enumeration of the solutions, or Ganak (pyganak, the CNF's models projected on the cells),
whichever finishes first within what is left of --timeout; exact, but not certified.  If the count does not finish, the verdict keeps the lower bound.  With --json, one
JSON object (with --count: solution_count and solution_count_exact).  The puzzle may be named FILE#N, as nonosat names puzzle N of a multi-puzzle file.

\b
Examples:
  nonosat solve games/heart.non
  nonosat solve games/cross-ambiguous.non --limit 10 --json
  nonosat solve games/cross-ambiguous.non --count   # "48 solutions"
  nonosat solve taai2011.txt --index 7 --engine sat --timeout 60
  nonosat solve puzzle.non --state partial.txt  # '#' filled, '.' empty, '?'
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonosat.cli.exits import STATUS_EXIT
from nonosat.cli.inputs import load_puzzle, starting_state
from nonosat.cli.options import (
    BriefOpt,
    EngineOpt,
    ForceOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    LimitOpt,
    PuzzleArg,
    SatSolverOpt,
    StateOpt,
    TaaiOutOpt,
    timeout_param,
)
from nonosat.cli.output import brief_line, echo, echo_colour_grid, emit, fit_line
from nonosat.cli.running import announce_compile, handle_errors
from nonosat.engines import Status
from nonosat.text import printable, printable_lines

if TYPE_CHECKING:
    import numpy as np

    from nonosat.engines import SolveResult
    from nonosat.engines.counting import SolutionCount
    from nonosat.puzzle import Puzzle

TimeoutOpt = Annotated[float | None, timeout_param("solve")]
CountOpt = Annotated[
    bool,
    typer.Option(
        "--count",
        help="With several solutions, count them exactly (model counter, within what is left of "
        "--timeout); prints 'N solutions', else the lower bound found.",
    ),
]

_VERDICT = {
    Status.UNIQUE: "unique solution",
    Status.MULTIPLE: "several solutions",
    Status.NONE: "no solution",
    Status.SOLVED: "solved (uniqueness not checked: --limit 1)",
    Status.UNKNOWN: "gave up before deciding",
}
#: Loading times (``load_s``) said in the text report from this many seconds on (a first run's
#: compile; a cached load, about 0.2 s, is only in --json).
LOAD_SHOWN_S = 0.5
#: Solution grids printed in full; the others are counted (--json lists them all).
SHOWN = 3
#: Largest puzzle (cells) that ``solve`` first line-solves with the kernels run as Python, to
#: skip loading numba when that finishes it (:func:`nonosat.engines.solve`).
INTERPRETED_MAX_CELLS = 1024


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
    brief: BriefOpt = False,
    taai_out: TaaiOutOpt = None,
    force: ForceOpt = False,
    count: CountOpt = False,
) -> None:
    """Solve a puzzle and say whether its solution is unique."""
    from nonosat.engines import solve
    from nonosat.errors import EngineError

    puzzle, name = load_puzzle(puzzle_path, format, index)
    partial = starting_state(state, puzzle)
    options: dict[str, Any] = {}  # engine options (solve() takes them as **options)
    if sat_solver is not None:
        if engine != "sat":
            raise EngineError("--sat-solver applies to --engine sat")
        options["solver"] = sat_solver
    started = time.perf_counter()
    with _lazy_start(engine):
        result = solve(puzzle, engine, partial=partial, limit=limit, timeout=timeout, **options)
    counted = None
    if count:
        from nonosat.engines.counting import count_after_solve

        left = None if timeout is None else max(timeout - (time.perf_counter() - started), 0.0)
        counted = count_after_solve(puzzle, result, limit=limit, partial=partial, timeout=left)
    if taai_out is not None:
        from nonosat.errors import FormatError
        from nonosat.formats.tournament import save_solutions

        if puzzle.is_colour:
            raise FormatError(str(taai_out), None, "tournament solution files hold "
                              "black-and-white puzzles only")
        number = index if index is not None else (puzzle.number or 1)
        first = result.solutions[0] if result.solutions else None
        save_solutions(taai_out, [(number, puzzle.shape, first)], force)
    if json_output:
        emit("solve", {**result.to_json(puzzle, name), **solve_extras(puzzle, result, partial),
                       **({} if counted is None else counted.to_json())})
    elif brief:
        typer.echo(brief_line(name, result.status.value, result.time_s))
    elif puzzle.is_colour:
        for k, sol in enumerate(result.solutions, start=1):
            if len(result.solutions) > 1:
                typer.echo(f"solution {k}:")
            echo_colour_grid(puzzle, sol)
            typer.echo("")
        echo(f"{printable(name)}: {verdict_line(puzzle, result, limit, counted)}")
        from nonosat.analysis.classify import solve_classification

        echo(printable(f"classification: {solve_classification(puzzle, result, partial)}"))
    else:
        for line in report_lines(puzzle, result, limit, partial, name, counted):
            echo(printable_lines(line))
    raise typer.Exit(STATUS_EXIT[result.status])


def _lazy_start(engine: str) -> contextlib.AbstractContextManager[None]:
    """For the native and auto engines: numba is loaded only when a kernel first runs compiled,
    with the notice of :func:`announce_compile` then, if at all; a small puzzle that line
    solving finishes runs interpreted (:func:`nonosat.engines.solve`) and loads no numba."""
    if engine not in ("native", "auto"):
        return contextlib.nullcontext()
    from nonosat import lazy_jit

    return lazy_jit.lazy_start(INTERPRETED_MAX_CELLS, announce_compile)


def solve_extras(puzzle: Puzzle, result: SolveResult,
                 partial: np.ndarray | None = None) -> dict[str, object]:
    """What ``solve``'s text prints beyond :meth:`SolveResult.to_json`: the classification and
    the davidje13 short codes (``short_image``, ``short_rules``; ``None`` when the puzzle cannot
    have one)."""
    from nonosat.analysis.classify import solve_classification

    classification = solve_classification(puzzle, result, partial)
    if puzzle.is_colour:
        codes: dict[str, str] = {}
    else:
        codes = dict(line.split(": ", 1) for line in short_codes(puzzle, result.solutions))
    return {"classification": classification,
            "short_image": codes.get("short image"), "short_rules": codes.get("short rules")}


def report_lines(puzzle: Puzzle, result: SolveResult, limit: int,
                 partial: np.ndarray | None = None, name: str | None = None,
                 counted: SolutionCount | None = None) -> list[str]:
    """The text report of ``nonosat solve``: the solution grids (at most :data:`SHOWN`; with
    several, the cells that differ between the solutions found marked by :func:`mark_differences`),
    the davidje13 short codes (``short image``: the solution, or with several solutions the cells
    they agree on, as davidje13's solver prints the grid "before uncertainty"; ``short rules``:
    the clues), the verdict with the count found, and the engine's time, then the one-line
    classification (:func:`nonosat.analysis.classify.solve_classification`: one line-solving
    fixpoint, no further solving)."""
    from nonosat.cli.output import fits, grid_summary
    from nonosat.render.clue_grid import render_text

    lines: list[str] = []
    solutions = result.solutions
    several = len(solutions) > 1
    for k, sol in enumerate(solutions[:SHOWN], start=1):
        text = render_text(puzzle, sol)
        if several:
            lines.append(f"solution {k}:")
            text = mark_differences(text, puzzle, sol, solutions)
        lines.append(text if fits(text.split("\n")) else grid_summary(text, "grid",
                                                                         puzzle.shape))
        lines.append("")
    if len(solutions) > SHOWN:
        lines += [f"({len(solutions) - SHOWN} more solutions not shown; --json lists them all)", ""]
    if several:
        lines += ["'@' filled, '.' empty: cells that differ between the solutions found", ""]
    lines += [fit_line(line, "short codes") for line in short_codes(puzzle, solutions)]
    verdict = verdict_line(puzzle, result, limit, counted)
    lines.append(f"{printable(name)}: {verdict}" if name is not None else verdict)
    from nonosat.analysis.classify import solve_classification

    lines.append(f"classification: {solve_classification(puzzle, result, partial)}")
    return lines


def verdict_line(puzzle: Puzzle, result: SolveResult, limit: int,
                 counted: SolutionCount | None = None) -> str:
    """``NAME (WxH): VERDICT [ENGINE, TIME s]``; several solutions are counted: "48 solutions
    (all: the search ended below the limit 100)" when the engine enumerated every one, else "2
    solutions found (limit 2)", or with an exact count ``counted`` from the model counter "48
    solutions" (its time said after the engine's); a load of the engine of
    :data:`LOAD_SHOWN_S` or more is said apart from the engine's time."""
    verdict = _VERDICT[result.status]
    if result.status is Status.MULTIPLE and result.exhausted:
        verdict = (f"{len(result.solutions)} solutions (all: the search ended below the limit "
                   f"{limit})")
    elif result.status is Status.MULTIPLE:
        verdict = f"{len(result.solutions)} solutions found (limit {limit})"
        if counted is not None and counted.exact and counted.count is not None:
            verdict = counted.describe()
        elif counted is not None:
            verdict += f"; not counted exactly ({counted.reason or 'counter did not finish'})"
            if (counted.count or 0) > len(result.solutions):
                verdict += f", at least {counted.count}"
    timing = f"{result.engine}, {result.time_s:.3f} s"
    if counted is not None and counted.method not in ("engine", "lower bound"):
        timing += f"; counted by {counted.method} in {counted.time_s:.3f} s"
    if result.load_s >= LOAD_SHOWN_S:
        timing += f"; loading the engine's kernels and libraries: {result.load_s:.1f} s"
    return f"{printable(puzzle.describe())}: {verdict} [{timing}]"


def mark_differences(text: str, puzzle: Puzzle, solution: np.ndarray,
                     solutions: list[np.ndarray]) -> str:
    """``text`` (:func:`nonosat.render.clue_grid.render_text` of ``solution``) with each cell on which
    ``solutions`` differ drawn ``@@`` when filled in ``solution`` and ``..`` when empty."""
    import numpy as np

    stack = np.asarray(solutions, dtype=bool)
    differs = (stack != stack[0]).any(axis=0)
    lines = text.split("\n")
    first = len(lines) - puzzle.height - 1  # the row lines end one line before the bottom rule
    for r in range(puzzle.height):
        line = lines[first + r]
        start = line.index("|") + 1
        width = (line.rindex("|") - start) // puzzle.width
        cells = list(line)
        for c in np.flatnonzero(differs[r]):
            mark = "@" if solution[r, c] else "."
            at = start + int(c) * width
            cells[at: at + width] = mark * width
        lines[first + r] = "".join(cells)
    return "\n".join(lines)


def short_codes(puzzle: Puzzle, solutions: list[np.ndarray]) -> list[str]:
    """``short image: ...`` and ``short rules: ...`` lines (davidje13's codes, as his solver
    prints them), for the solution found or the cells several solutions agree on; a code the
    puzzle cannot have (unknown clues, a side over 1000) is left out."""
    import numpy as np

    from nonosat.errors import NonosatError
    from nonosat.formats.short_codes import encode_image, encode_rules
    from nonosat.puzzle import Cell

    lines = []
    if solutions:
        stack = np.asarray(solutions, dtype=bool)
        grid = np.where(stack[0], np.int8(Cell.FILLED), np.int8(Cell.EMPTY))
        grid[(stack != stack[0]).any(axis=0)] = Cell.UNKNOWN
        try:
            lines.append(f"short image: {encode_image(grid)}")
        except NonosatError:
            pass
    try:
        lines.append(f"short rules: {encode_rules(puzzle)}")
    except NonosatError:
        pass
    return lines
