"""Analyse a puzzle: verdict, classification, techniques needed, structure, difficulty grade.

The verdict and the solutions come from the engine (--engine, default auto: the same portfolio
and time limit as 'nonosat solve', so analyse decides every puzzle solve decides).  The staged
logic (line solving, then the implication graph, then failed-literal probing; no search) says
what each kind of logic achieves: the cells each stage adds to what the stages before it know
(they sum to the cells of the puzzle: line + implications + probing + search + ambiguous) and
the cells still open after it.  When logic gets stuck the search figures are the engine's: the
native search's guesses, or SAT's conflicts when the portfolio handed over to SAT.

Also printed: a one-line classification ("unique, line-solvable", "unique, needs implications
(depth 1)", "unique, needs probing (depth 1)", "unique, needs search (N guesses|conflicts)",
"several solutions (K cells ambiguous)", "no solution"), decided together with the techniques
needed and the grade, so they agree; the backbone; the independent parts of the cells line solving
and all logic leave open (they share no row and no column: each can be solved alone); cells tied by
the implication graph (its strongly connected components); a smallest backdoor: the fewest cells
whose values, given, make line solving (--backdoor-logic probing: line solving and probing) finish
-- "exact: proved smallest", or "best found in the time limit" with the lower bound proved
(--backdoor-timeout), 0 cells for a line-solvable puzzle, and with several solutions that of the
goal picture (else the first solution found), whose givens then also make it the only one; for
several solutions the whole ambiguity map (<>), extra givens and one-cell edits of the picture
(when it is known) that make the solution unique, or why none is listed ("edits: none found ...").
--timeout (default $NONOSAT_TIMEOUT or 300) bounds the whole command: the verdict, the logic
stages, the structure, the ambiguity map (up to half of what is left), the givens, the edits and
the backdoor share it; a section the limit cuts short keeps its partial result (a map cut short is
a lower bound: "at least K cells ambiguous"), and a closing "time limits:" line (in --json,
"sections") says which sections were cut short or not run.
A puzzle with several solutions is counted exactly when a counter (the native line-level
counter, then Ganak on the CNF projected on the cells; exact, not certified) finishes in its
share of the time (at most 10 s): "N solutions".

\b
Grade (score on one scale, 1 to 5):
  1 easy       line solving alone               score 1 + s/(s+100)
  2 moderate   implications, at most 2 rounds   score 2 + r/(r+10)
  3 hard       more implication rounds, probing score 3 + r/(r+10)
  4 very hard  search with effort e < 100       score 4 + e/(e+100), < 4.5
  5 extreme    search with effort e >= 100      in [4.5, 5); 5 = undecided
  s = line steps, r = implication rounds + 2 x probing rounds, e = the native
  search's guesses, or SAT's conflicts when SAT decided.  No grade ("not
  graded: no solution" / "not graded: several solutions") without a solution
  or with several.

--graph writes the implication graph at the line-solving fixpoint (GraphML, GEXF, or DOT with
pydot; node attribute scc = strongly connected component); --map writes the ambiguity map as
SVG or PNG.  The exit code is the verdict, as for 'nonosat solve'.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from nonosat.cli import running
from nonosat.cli.exits import STATUS_EXIT
from nonosat.cli.inputs import load_puzzle, warn_givens_left_out
from nonosat.cli.options import (
    BriefOpt,
    DepthOpt,
    EngineOpt,
    ForceOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    LimitOpt,
    PuzzleArg,
    timeout_param,
)
from nonosat.cli.output import brief_line, echo, emit, wrap_lines
from nonosat.cli.running import announce_compile, handle_errors
from nonosat.text import printable, printable_lines

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
BackdoorOpt = Annotated[
    float, typer.Option("--backdoor-timeout", min=0, metavar="SECONDS",
                        help="Seconds for the smallest-backdoor search (0 skips it).")
]
BackdoorLogicOpt = Annotated[
    str, typer.Option("--backdoor-logic", metavar="NAME",
                      help="What completes the backdoor's givens: line (line solving) or probing "
                      "(line solving and failed-literal probing).")
]
#: Seconds for the backdoor search by default (nonosat.analysis.difficulty.BACKDOOR_TIMEOUT).
BACKDOOR_TIMEOUT = 10.0
TimeoutOpt = Annotated[float | None, timeout_param("analyse", "Seconds for the whole analysis, every section together "
                            "(exit 4 when the verdict is not decided)")]


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
    engine: EngineOpt = "auto",
    timeout: TimeoutOpt = None,
    backdoor_timeout: BackdoorOpt = BACKDOOR_TIMEOUT,
    backdoor_logic: BackdoorLogicOpt = "line",
    force: ForceOpt = False,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
    brief: BriefOpt = False,
) -> None:
    """Analyse a puzzle: verdict, classification, techniques, structure and difficulty grade."""
    import time

    setup = time.perf_counter()
    from nonosat.analysis.difficulty import analyse
    from nonosat.errors import FormatError

    if backdoor_logic not in ("line", "probing"):
        raise typer.BadParameter(f"{backdoor_logic!r}: use line or probing",
                                 param_hint="--backdoor-logic")
    puzzle, name = load_puzzle(puzzle_path, format, index)
    warn_givens_left_out([(name, puzzle)], "analyse looks at the clues alone")
    for path in (graph, map_file):
        if path is not None and path.exists() and not force:
            raise FormatError(str(path), None, "already exists; use --force to overwrite it")
    if map_file is not None and map_file.suffix.lower() not in (".svg", ".png"):
        raise FormatError(str(map_file), None, "--map must end in .svg or .png")
    announce_compile()
    loaded = _load(engine, setup, colour=puzzle.is_colour)
    progress: list = []
    report = _report_on_overrun(progress, name, json_output, backdoor_timeout)
    result = _run_reporting_interrupts(report, lambda: analyse(
        puzzle, limit=limit, count_all=count_all, timeout=timeout, depth=depth, engine=engine,
        keep_graph=graph is not None, backdoor_timeout=backdoor_timeout,
        backdoor_logic=backdoor_logic, progress=progress))
    running.OVERRUN_REPORT = None
    result.load_s += loaded
    if graph is not None:
        from nonosat.analysis.structure import write_graph_with_components

        if result.graph is None:
            raise FormatError(str(graph), None, "line solving contradicts the clues: no "
                              "implication graph to write")
        fmt = write_graph_with_components(result.graph, puzzle, graph, result.graph_forced)
        echo(f"wrote {printable(str(graph))} ({fmt}, {result.graph.number_of_nodes()} nodes, "
                   f"{result.graph.number_of_edges()} edges)", err=True)
    if map_file is not None:
        _write_map(result, map_file)
        echo(f"wrote {printable(str(map_file))}", err=True)
    if json_output:
        emit("analyse", result.to_json(name))
    elif brief:
        typer.echo(_brief(result, name))
    else:
        echo(printable_lines(_report(result, name, backdoor_timeout)))
    raise typer.Exit(STATUS_EXIT[result.status])


def _brief(result, name: str) -> str:
    """The brief line: ``PUZZLE STATUS TIME grade=N`` (no grade when there is none)."""
    grade = getattr(result, "grade", None)
    extra = f"grade={grade.grade}" if grade is not None and grade.graded else ""
    return brief_line(name, result.status.value, result.solve_time_s, extra)


def _load(engine: str, setup: float, colour: bool) -> float:
    """Load the engine now (its compiled kernels and libraries) and excuse the time spent since
    ``setup`` (``time.perf_counter()`` when the command began: imports, reading the puzzle,
    loading) from the watchdog's count: the analysis' time limit does not include it.  Returns
    the seconds spent loading (the analysis reports them apart, as ``load_s``)."""
    import time

    from nonosat.engines import load_engine

    try:
        loaded = load_engine(engine, colour=colour)
    except Exception:  # noqa: BLE001 - an unknown engine is reported by the analysis itself
        loaded = 0.0
    running.excuse(time.perf_counter() - setup)
    return loaded


#: Section states of sections that did not run (:data:`nonosat.analysis.difficulty.SECTION_STATES`).
_NOT_RUN = ("time limit", "interrupted")


def _report_on_overrun(progress: list, name: str, json_output: bool,
                       backdoor_timeout: float) -> Callable[[str], str | None]:
    """Let the watchdog (:func:`nonosat.cli.running._watchdog`) print the sections of the
    analysis that finished (the analysis in ``progress``, its unfinished sections marked) when a
    compiled step overruns the time limit and the process must end.  Returns the report
    function, ``report(why)`` (``why``: ``"time limit"`` or ``"interrupted"``), which an
    interrupt uses too (:func:`_print_on_interrupt`)."""
    def report(why: str = "time limit") -> str | None:
        if not progress:
            return None
        result = progress[-1]
        for key, state in result.sections.items():
            if state not in ("done", "skipped", "not applicable", "cut short"):
                result.sections[key] = why
        result.settle()
        if json_output:
            import json

            return json.dumps(result.to_json(name))
        return wrap_lines(printable_lines(_report(result, name, backdoor_timeout)))

    running.OVERRUN_REPORT = report
    return report


def _print_on_interrupt(report: Callable[[str], str | None]) -> None:
    """On Ctrl-C or SIGTERM, print the sections of the analysis that finished (the others
    marked ``interrupted``) before the process ends with 130 / 143: from the main thread when
    the interrupt reaches Python, or from the watcher thread when the main thread is stuck in a
    compiled step (:data:`nonosat.cli.signals.last_words`)."""
    from nonosat.cli import signals

    def last_words() -> None:
        try:
            text = report("interrupted")
        except Exception:  # noqa: BLE001 - the analysis may be mid-update: print nothing
            return None
        if text:
            sys.stdout.write(text + "\n")
        return None

    signals.last_words = last_words


def _run_reporting_interrupts(report: Callable[[str], str | None], run: Callable[[], Any]) -> Any:
    """``run()``, printing the finished sections of the analysis if it is interrupted."""
    from nonosat.cli import signals
    from nonosat.interrupts import Interrupted

    _print_on_interrupt(report)
    try:
        return run()
    except Interrupted:
        words, signals.last_words = signals.last_words, None
        if words is not None:
            words()
        raise
    finally:
        signals.last_words = None


def _write_map(result, path: Path) -> None:
    from nonosat.cli.render import _write

    # the witnesses of the ambiguity map differ, together, on exactly the non-backbone cells
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


def _value(puzzle, v) -> str:
    """A cell's value in words: ``filled``/``empty``, or a colour puzzle's colour name."""
    if puzzle.is_colour:
        return puzzle.palette.colours[int(v)].name
    return "filled" if v else "empty"


def _cells(cells, limit: int, puzzle) -> str:
    out = ", ".join(f"{_cell(c)} {_value(puzzle, v)}" for c, v in cells[:limit])
    return out + (f" and {len(cells) - limit} more" if len(cells) > limit else "")


def _linked(groups, puzzle) -> str:
    if puzzle.is_colour:  # literals "cell takes colour c", each true when the others are
        biggest = groups[0]
        desc = " = ".join(f"{_cell(c)} {_value(puzzle, k)}" for c, k in biggest.literals[:6])
        if len(biggest.literals) > 6:
            desc += " ..."
        return f"{len(groups)} group{'s' if len(groups) != 1 else ''}; largest: {desc}"
    biggest = groups[0]
    desc = " = ".join(_cell(c) for c in biggest.equal[:6])
    if len(biggest.equal) > 6:
        desc += " ..."
    if biggest.opposite:
        desc += ", opposite " + " = ".join(_cell(c) for c in biggest.opposite[:6])
    return f"{len(groups)} group{'s' if len(groups) != 1 else ''}; largest: {desc}"


def _parts(parts) -> str:
    """``"none (nothing open)"`` / ``"3 (cells: 40, 12, 4); no row or column links two"``."""
    if not parts:
        return "none (nothing left open)"
    sizes = [p.size for p in parts]
    shown = ", ".join(map(str, sizes[:12])) + (" ..." if len(sizes) > 12 else "")
    tail = "; no row or column links two parts" if len(sizes) > 1 else ""
    return f"{len(sizes)} (cells: {shown}){tail}"


def _backdoor_line(result, backdoor_timeout: float) -> str:
    """The backdoor: found (exact or best with a bound), or why there is none."""
    bd = result.backdoor
    logic = "line solving" if bd is None or bd.logic == "line" else "probing"
    head = f"smallest backdoor to {logic}"
    if bd is None:
        status = result.status.value
        why = ("no solution" if status == "none" else
               "undecided puzzle" if status == "unknown" else
               "uniqueness not checked (--limit 1)" if status == "solved" else
               "skipped (--backdoor-timeout 0)" if backdoor_timeout == 0 else
               f"not run: {result.sections['backdoor']}"
               if result.sections.get("backdoor") in _NOT_RUN else
               "not computed")
        return f"{head}: none ({why})"
    if bd.several:
        head += f" of {result.backdoor_of}"
    out = f"{head}: {bd.describe()}"
    if bd.several:
        out += "\n  (several solutions: these givens also make it the only one)"
    if bd.cells:
        # one line, wrapped with the report (nonosat.cli.output.wrap_lines)
        out += "\n  givens: " + _cells(bd.cells, 60, result.puzzle)
    return out


def _several(result) -> str:
    """The verdict of several solutions: "N solutions" when counted exactly (a finished
    enumeration or the model counter), else "several solutions (at least N)"."""
    counted = result.solution_count
    if counted is not None and counted.exact and counted.count is not None:
        return counted.describe()
    if result.counted_all:
        return f"{len(result.solutions)} solutions"
    # the counter's lower bound (a stopped count's finished parts) when it is larger
    lower = max(len(result.solutions), (counted.count or 0) if counted is not None else 0)
    return f"several solutions (at least {lower})"


#: What the report says of a section the time limit cut short or left no time for.
_SECTION_NAMES = {"stages": "logic stages", "structure": "structure", "map": "ambiguity map",
                  "givens": "extra givens", "edits": "one-cell edits", "backdoor": "backdoor"}


def _fit_grid(text: str, shape: tuple[int, int]) -> str:
    """``text``, or a one-line summary when it is wider than the terminal."""
    from nonosat.cli.output import fits, grid_summary

    return text if fits(text.split("\n")) else grid_summary(text, "map", shape)


def _techniques_line(result, chain: list[str], upto: dict[str, int]) -> str:
    """``techniques needed: ...`` from the assessment (the classification's own source)."""
    needed = result.techniques_needed
    if needed is None:
        why = "interrupted" if result.sections.get("stages") == "interrupted" else "time limit"
        return f"techniques needed: unknown (the logic stages did not finish: {why})"
    return f"techniques needed: {needed} ({' -> '.join(chain[:upto[needed]])})"


def _search_line(search) -> str:
    """``search: ...``: what the search after logic did (black-and-white and colour)."""
    if search is None:
        return "search: not needed"
    unfinished = "" if search.decided else " (time limit: not decided)"
    if search.engine == "sat":
        return f"search: decided by SAT after logic: {search.describe()}{unfinished}"
    if search.engine == "native":
        return (f"search: decided by the native search: {search.describe()}, max depth "
                f"{search.max_depth}{unfinished}")
    return f"search: decided by {search.engine} (no search figures)"


def _unfinished_line(result) -> str | None:
    """``time limits: cut short: ambiguity map; not run: backdoor`` when the time limit (or a
    section's own budget: the edits' 5 s, the backdoor's --backdoor-timeout) stopped sections
    of the analysis (``None`` when every section finished)."""
    sections = result.sections
    cut = [_SECTION_NAMES[k] for k, v in sections.items() if v == "cut short" and
           k in _SECTION_NAMES]
    missed = [_SECTION_NAMES[k] for k, v in sections.items() if v == "time limit" and
              k in _SECTION_NAMES]
    stopped = [_SECTION_NAMES[k] for k, v in sections.items() if v == "interrupted" and
               k in _SECTION_NAMES]
    if not cut and not missed and not stopped:
        return None
    parts = ([f"cut short: {', '.join(cut)}"] if cut else []) + (
        [f"not run: {', '.join(missed)}"] if missed else [])
    line = "time limits: " + "; ".join(parts) if parts else ""
    if stopped:
        line += ("; " if line else "") + f"interrupted, not run: {', '.join(stopped)}"
    return line


def _report(result, name: str, backdoor_timeout: float = BACKDOOR_TIMEOUT) -> str:
    """The human-readable report."""
    from nonosat.analysis.ambiguity import render_ambiguity_text

    puzzle = result.puzzle
    staged = result.staged
    n_cells = puzzle.height * puzzle.width
    verdict = _VERDICT[result.status.value]
    if result.status.value == "multiple":
        verdict = _several(result)
    colours = (f", {len(puzzle.palette.colours) - 1} colours" if puzzle.is_colour else "")
    lines = [f"{printable(name)}: {printable(puzzle.describe())}{colours}: {verdict} "
             f"[{result.engine}, {result.solve_time_s:.3f} s]",
             f"classification: {result.classification}"]
    lines.append(_techniques_line(result, ["line solving", "implications", "probing", "search"],
                                  {"line": 1, "implications": 2, "probing": 3, "search": 4}))
    if result.sections.get("stages") in _NOT_RUN:
        lines.append(f"logic stages: not run ({result.sections['stages']})")
    else:
        cells = result.cells_by_stage()
        parts = [f"line {cells['line']}", f"implications {cells['implications']}",
                 f"probing {cells['probing']}", f"search {cells['search']}"]
        if cells["ambiguous"]:
            parts.append(f"ambiguous {cells['ambiguous']}")
        if cells["undecided"]:
            parts.append(f"undecided {cells['undecided']}")
        total = sum(cells.values())
        lines.append(f"cells fixed by stage: {', '.join(parts)} (= {total} of {n_cells})")
        oa = staged.open_after
        lines.append(f"cells open after: line {oa['line']}, implications {oa['implications']}, "
                     f"probing {oa['probing']} (of {n_cells})")
        inv = staged.invocations
        steps = staged.techniques()
        lines.append(f"rounds that made progress: line {inv['line']}, implications "
                     f"{inv['implications']}, probing {inv['probing']}; steps: "
                     + (", ".join(f"{k} {v}" for k, v in sorted(steps.items())) or "none"))
        lines.append(_search_line(result.search))
    bb = result.backbone_size()
    lines.append(f"backbone: {bb} of {n_cells} cells" if bb is not None else "backbone: unknown")
    if staged.status != "contradiction" and result.sections.get("structure") not in _NOT_RUN:
        lines.append(f"independent parts after line solving: {_parts(result.parts_after_line)}")
        lines.append(f"independent parts after logic: {_parts(result.parts)}")
    gs = result.graph_summary
    if gs and gs["nodes"]:
        lines.append(f"implication graph after line solving: {gs['nodes']} literals, "
                     f"{gs['edges']} edges, {gs['nontrivial']} strongly connected component"
                     f"{'s' if gs['nontrivial'] != 1 else ''} of two literals or more")
    if result.linked:
        lines.append(f"linked cells after line solving: {_linked(result.linked, puzzle)}")
    if result.linked_after_logic:
        lines.append(f"linked cells after logic: {_linked(result.linked_after_logic, puzzle)}")
    lines.append(_backdoor_line(result, backdoor_timeout))
    lines.append(f"grade: {result.grade.describe()}")
    if result.backbone is not None:
        amb = result.backbone.ambiguous
        lines.append(f"ambiguity map: {int(amb.sum())} cells differ between solutions (<>):")
        lines.append(_fit_grid(render_ambiguity_text(puzzle, result.solutions[0], amb),
                               puzzle.shape))
        if result.backbone.undecided.any():
            lines.append(f"({int(result.backbone.undecided.sum())} cells undecided: time limit)")
    if result.givens is not None:
        gv = result.givens
        state = "unique" if gv.unique else "not proved unique (time limit)"
        lines.append(f"extra givens making the solution {state}: {len(gv.cells)} "
                     f"({_cells(gv.cells, 20, puzzle)}); greedy, no given can be dropped, but not "
                     "proved minimum")
    for edit in result.edits:
        lines.append(f"edit: {edit['text']}")
    if (edits := result.edits_text()) is not None:
        lines.append(edits)
    if (unfinished := _unfinished_line(result)) is not None:
        lines.append(unfinished)
    load = (f" (loading the engine's kernels and libraries: {result.load_s:.1f} s apart)"
            if result.load_s >= 0.5 else "")
    lines.append(f"time: {result.time_s:.2f} s{load}")
    return "\n".join(lines)

