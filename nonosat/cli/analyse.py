"""Analyse a puzzle: verdict, techniques needed, structure and difficulty grade.

Runs the staged solver (line solving -> implications -> probing -> fork) and reports the number
of solutions (up to --limit; --count-all enumerates up to 10000), the hardest technique needed,
the cells each stage fixed and the cells still open after it, the guesses and maximum depth of
the fork search (and the guesses on the path to each solution), the backbone size, groups of
cells the implication graph ties together, and a difficulty grade from 1 (easy) to 5 (extreme).
For puzzles with several solutions it draws the ambiguity map (cells that differ between
solutions, shown as <>) and a greedy set of extra givens that makes the solution unique.
--graph writes the implication graph at the line-solving fixpoint (GraphML, GEXF, or DOT with
pydot); --map writes the ambiguity map as SVG or PNG.  The exit code is the verdict, as for
'nonosat solve'.
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
)
from nonosat.formats import read_puzzle

LimitOpt = Annotated[
    int, typer.Option("--limit", "-n", min=1, help="Count solutions up to N (2 decides uniqueness).")
]
CountAllOpt = Annotated[
    bool, typer.Option("--count-all", help="Enumerate every solution (at most 10000).")
]
GraphOpt = Annotated[
    Path | None,
    typer.Option("--graph", help="Write the implication graph to FILE (.graphml, .gexf, .dot)."),
]
MapOpt = Annotated[
    Path | None,
    typer.Option("--map", help="Write the ambiguity map (or the solution) to FILE.svg / FILE.png."),
]
DepthOpt = Annotated[
    int | None,
    typer.Option("--depth", min=1, help="Implication graph traversal depth (default: unlimited)."),
]
EngineOpt = Annotated[
    str, typer.Option("--engine", "-e", help="Engine for the backbone and uniqueness solves.")
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite --graph / --map files.")]


def _cell(cell: tuple[int, int]) -> str:
    return f"R{cell[0] + 1}C{cell[1] + 1}"


@handle_errors
def analyse_command(
    puzzle_path: PuzzleArg,
    limit: LimitOpt = 2,
    count_all: CountAllOpt = False,
    graph: GraphOpt = None,
    map_file: MapOpt = None,
    depth: DepthOpt = None,
    engine: EngineOpt = "native",
    timeout: TimeoutOpt = 30.0,
    force: ForceOpt = False,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Analyse a puzzle: techniques needed, structure and difficulty grade."""
    from nonosat.analysis.difficulty import analyse
    from nonosat.errors import FormatError

    puzzle = read_puzzle(puzzle_path, format, index)
    if puzzle.is_colour:
        _analyse_colour(puzzle, puzzle_path, index, limit, count_all, engine, timeout,
                        graph, map_file, force, json_output)
    for path in (graph, map_file):
        if path is not None and path.exists() and not force:
            raise FormatError(str(path), None, "already exists; use --force to overwrite it")
    if map_file is not None and map_file.suffix.lower() not in (".svg", ".png"):
        raise FormatError(str(map_file), None, "--map must end in .svg or .png")
    announce_compile()
    result = analyse(puzzle, limit=limit, count_all=count_all, timeout=timeout, depth=depth,
                     engine=engine, keep_graph=graph is not None)
    if graph is not None:
        from nonosat.native.implications import write_graph

        fmt = write_graph(result.graph, puzzle, graph, result.graph_forced)
        typer.echo(f"wrote {graph} ({fmt}, {result.graph.number_of_nodes()} nodes, "
                   f"{result.graph.number_of_edges()} edges)", err=True)
    if map_file is not None:
        _write_map(result, map_file)
        typer.echo(f"wrote {map_file}", err=True)
    name = str(puzzle_path) + (f"#{index}" if index is not None else "")
    if json_output:
        print_json(result.to_json(name))
    else:
        typer.echo(_report(result, name))
    raise typer.Exit(STATUS_EXIT[result.status])


def _write_map(result, path: Path) -> None:
    from nonosat.cli.render import _write

    solutions = result.backbone.witnesses if result.backbone is not None else result.solutions
    if path.suffix.lower() == ".svg":
        from nonosat.render.svg import render_svg

        data = render_svg(result.puzzle, solutions=solutions).encode()
    else:
        from nonosat.render.png import render_png

        data = render_png(result.puzzle, solutions=solutions)
    _write(path, data)


_VERDICT = {
    "unique": "unique solution",
    "multiple": "several solutions",
    "none": "no solution",
    "solved": "solved (uniqueness not checked: --limit 1)",
    "unknown": "gave up before deciding",
}


def _report(result, name: str) -> str:
    """The human-readable report."""
    from nonosat.analysis.ambiguity import render_ambiguity_text

    puzzle = result.puzzle
    staged = result.staged
    n_cells = puzzle.height * puzzle.width
    verdict = _VERDICT[result.status.value]
    if result.status.value == "multiple":
        verdict = (f"{len(result.solutions)} solutions" if result.counted_all
                   else f"several solutions (at least {len(result.solutions)})")
    lines = [f"{name}: {puzzle.describe()}: {verdict}"]
    needed = result.techniques_needed
    chain = ["line solving", "implications", "probing", "fork"]
    upto = {"line": 1, "implications": 2, "probing": 3, "fork": 4}[needed]
    lines.append(f"techniques needed: {needed} ({' -> '.join(chain[:upto])})")
    cells = staged.cells_by_stage()
    fork_cells = staged.open_after["probing"] if staged.status == "stuck" else 0
    lines.append(f"cells fixed by stage: line {cells['line']}, implications "
                 f"{cells['implications']}, probing {cells['probing']}, fork {fork_cells}")
    oa = staged.open_after
    lines.append(f"cells open after: line {oa['line']}, implications {oa['implications']}, "
                 f"probing {oa['probing']} (of {n_cells})")
    inv = staged.invocations
    steps = staged.techniques()
    lines.append(f"rounds that made progress: line {inv['line']}, implications "
                 f"{inv['implications']}, probing {inv['probing']}; steps: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(steps.items())))
    if result.fork is None:
        lines.append("fork: not needed")
    else:
        f = result.fork
        to_sol = ", ".join(map(str, f.guesses_to_solutions[:20]))
        more = " ..." if len(f.guesses_to_solutions) > 20 else ""
        lines.append(f"fork: {f.guesses} guess{'es' if f.guesses != 1 else ''}, max depth "
                     f"{f.max_depth}" + (f"; guesses to each solution: {to_sol}{more}"
                                         if f.guesses_to_solutions else "")
                     + ("" if f.finished else " (search did not finish)"))
    bb = result.backbone_size()
    lines.append(f"backbone: {bb} of {n_cells} cells" if bb is not None else "backbone: unknown")
    if result.linked:
        biggest = result.linked[0]
        desc = " = ".join(_cell(c) for c in biggest.equal[:6])
        if len(biggest.equal) > 6:
            desc += " ..."
        if biggest.opposite:
            desc += ", opposite " + " = ".join(_cell(c) for c in biggest.opposite[:6])
        lines.append(f"linked cells after line solving: {len(result.linked)} group"
                     f"{'s' if len(result.linked) != 1 else ''}; largest: {desc}")
    g = result.grade
    lines.append(f"grade: {g.grade} ({g.name}), score {g.score}: {g.reason}")
    if result.backbone is not None:
        amb = result.backbone.ambiguous
        lines.append(f"ambiguity map: {int(amb.sum())} cells differ between solutions (<>):")
        lines.append(render_ambiguity_text(puzzle, result.solutions[0], amb))
        if result.backbone.undecided.any():
            lines.append(f"({int(result.backbone.undecided.sum())} cells undecided: time limit)")
    if result.givens is not None:
        gv = result.givens
        listed = ", ".join(f"{_cell(c)} {'filled' if v else 'empty'}" for c, v in gv.cells)
        state = "unique" if gv.unique else "not proved unique (time limit)"
        lines.append(f"extra givens making the solution {state}: {len(gv.cells)} ({listed}); "
                     "greedy, no given can be dropped, but not proved minimum")
    lines.append(f"time: {result.time_s:.2f} s")
    return "\n".join(lines)


def _analyse_colour(puzzle, puzzle_path, index, limit, count_all, engine, timeout, graph,
                    map_file, force, json_output) -> None:
    """``analyse`` of a colour puzzle (:func:`nonosat.analysis.colour.analyse_colour`); always
    exits with the verdict's code."""
    from nonosat.analysis.colour import analyse_colour
    from nonosat.errors import FormatError

    if graph is not None:
        raise FormatError(str(graph), None, "--graph (the implication graph) is for "
                          "black-and-white puzzles; this is a colour puzzle")
    if map_file is not None:
        if map_file.exists() and not force:
            raise FormatError(str(map_file), None, "already exists; use --force to overwrite it")
        if map_file.suffix.lower() not in (".svg", ".png"):
            raise FormatError(str(map_file), None, "--map must end in .svg or .png")
    announce_compile()
    result = analyse_colour(puzzle, limit=10000 if count_all else limit, engine=engine,
                            timeout=timeout)
    if map_file is not None:
        from nonosat.cli.render import _write

        if map_file.suffix.lower() == ".svg":
            from nonosat.render.svg import render_svg

            data = render_svg(puzzle, solutions=result.solutions).encode()
        else:
            from nonosat.render.png import render_png

            data = render_png(puzzle, solutions=result.solutions)
        _write(map_file, data)
        typer.echo(f"wrote {map_file}", err=True)
    name = str(puzzle_path) + (f"#{index}" if index is not None else "")
    if json_output:
        print_json(result.to_json(name))
        raise typer.Exit(STATUS_EXIT[result.status])
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.techniques.items())) or "none"
    fixed = ", ".join(f"{k} {v}" for k, v in sorted(result.fixed_by.items())) or "none"
    ends = {"solved": "line solving and probing solve it", "guess": "search is needed",
            "no-solution": "line solving and probing prove there is no solution"}
    lines = [
        f"{name}: {_VERDICT[result.status.value]} (colour puzzle, "
        f"{len(puzzle.palette) - 1} colours)",
        f"steps: {counts}; cells decided by: {fixed}",
        f"staged solve: {ends.get(result.end, result.end)}",
        f"grade: {result.grade} (1 easy .. 5 extreme)",
    ]
    if result.ambiguous is not None:
        lines.append(f"ambiguous cells: {int(result.ambiguous.sum())} "
                     f"of {puzzle.height * puzzle.width} differ between solutions")
    lines.append(f"time: {result.time_s:.2f} s")
    typer.echo("\n".join(lines))
    raise typer.Exit(STATUS_EXIT[result.status])
