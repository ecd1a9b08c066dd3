"""Judge another solver's answers, with evidence.

One puzzle: verify PUZZLE --solution FILE checks a solution (any picture format: text grid, PBM,
PNG, a webpbn file with a goal, a tournament solution file with --index N) against every clue and
names each failing line with its expected and actual blocks.  --claim unique|multiple|none|solved
judges the other solver's verdict, decided by the same portfolio and time limit as 'nonosat
solve': unique is confirmed with a uniqueness certificate (checked DRAT proof) or refuted with two
distinct valid solutions; multiple is confirmed with two solutions or refuted with a certificate;
none is confirmed with a proof of unsatisfiability or refuted with a solution.  --out DIR receives
the witness: solution-K.txt (text grids), certificate/ (a proof or a witness certificate of
several solutions; check it with nonosat verify-certificate), line-errors.txt, verdict.json.

Many puzzles: verify --results FILE PUZZLES... reads the other solver's results, JSON Lines
({"id": "set.txt#12", "status": "unique", "solution": ["##..", ...]}) or TSV with a header naming
the columns id, status and optionally solution (rows separated by '|' or '/'), or the peers'
files: a tournament solution file (nonosolve -o, --taai-out; one cut short keeps its intact
puzzles), nonosolve's --log, pbnsolve's output (see docs/formats.md).  Ids are FILE#N,
FILE, or the bare number N of a tournament set.  The rows are judged in parallel with a progress
bar; the summary counts confirmed / refuted / undecided rows per claimed verdict and lists every
refuted row with its witness directory (under --out, default RESULTS.witnesses beside the
results file).  A row whose puzzle cannot be found, or whose solution has the wrong size, is
reported as a bad row.

Exit 0 when every answer holds, 1 when one is refuted (witness written), 4 when one is undecided
within --timeout, 2 for bad input (also: bad rows in a results file).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from nonosat import interrupts
from nonosat.cli import signals
from nonosat.cli.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK, fail
from nonosat.cli.inputs import load_puzzle
from nonosat.cli.options import (
    BriefOpt,
    CheckerOpt,
    CheckerPathOpt,
    ForceOpt,
    FormatOpt,
    IndexOpt,
    JobsOpt,
    JsonOpt,
    paths_param,
    timeout_help,
    use_checker_path,
)
from nonosat.cli.output import brief_line, echo, echo_grid, emit
from nonosat.cli.running import handle_errors
from nonosat.text import printable

PuzzlesArg = Annotated[list[Path], paths_param(
    "The puzzle file; with --results, the puzzle files and directories its rows name.")]
SolutionOpt = Annotated[
    Path | None,
    typer.Option("--solution", "-s", help="The other solver's solution (a picture file)."),
]
ClaimOpt = Annotated[
    str | None,
    typer.Option("--claim", "-c", help="The other solver's verdict: unique, multiple, none, solved."),
]
ResultsOpt = Annotated[
    Path | None,
    typer.Option("--results", "-r", help="The other solver's results (JSON Lines or TSV)."),
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", "-o",
        help="Witness directory (one puzzle), or with --results the directory of one witness "
        "directory per refuted row (default: RESULTS.witnesses).",
    ),
]
VerifyTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout", "-t", min=0.0, metavar="SECONDS",
        help=timeout_help("verify", "Seconds per puzzle for finding solutions and proofs, "
                          "undecided after it (with --results the default is $NONOSAT_TIMEOUT, "
                          "else 60)"),
    ),
]
SolutionFormatOpt = Annotated[
    str | None, typer.Option("--solution-format", help="Format of --solution (default: detected).")
]
AllWitnessesOpt = Annotated[
    bool,
    typer.Option("--all-witnesses", help="With --results, also write the evidence of confirmed rows."),
]

_EXIT = {"confirmed": EXIT_OK, "refuted": EXIT_FAILED, "undecided": EXIT_GAVE_UP,
         "unjudged": EXIT_BAD_INPUT}
_STYLE = {"confirmed": "green", "refuted": "bold red", "undecided": "yellow",
          "unjudged": "dim", "bad-row": "red"}



@handle_errors
def verify_command(
    puzzles: PuzzlesArg,
    solution: SolutionOpt = None,
    claim: ClaimOpt = None,
    results: ResultsOpt = None,
    out: OutOpt = None,
    timeout: VerifyTimeoutOpt = None,
    index: IndexOpt = None,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    solution_format: SolutionFormatOpt = None,
    jobs: JobsOpt = None,
    checker: CheckerOpt = None,
    checker_path: CheckerPathOpt = None,
    force: ForceOpt = False,
    all_witnesses: AllWitnessesOpt = False,
    brief: BriefOpt = False,
) -> None:
    """Judge another solver's solution and verdict (or a whole results file) with evidence."""
    from nonosat.certificates import resolve_checkers

    use_checker_path(checker_path)
    checkers = resolve_checkers(checker or ["auto"])
    if results is not None:
        if solution is not None or claim is not None or index is not None:
            raise fail("--solution, --claim and --index judge one puzzle; --results takes "
                       "them from the results file")
        _verify_results(results, puzzles, out, timeout, jobs, checkers, json_output, format,
                        all_witnesses, brief)
    if len(puzzles) != 1:
        raise fail(f"give one puzzle file (got {len(puzzles)}), or --results FILE")
    if solution is None and claim is None:
        raise fail("nothing to verify: give --solution FILE and/or --claim VERDICT, "
                   "or --results FILE")
    _verify_one(puzzles[0], solution, claim, out, timeout, index, json_output, format,
                solution_format, checkers, force, brief)


# -- one puzzle ------------------------------------------------------------------------------------


def _verify_one(puzzle_path: Path, solution_path: Path | None, claim: str | None,
                out: Path | None, timeout: float | None, index: int | None, json_output: bool,
                format: str | None, solution_format: str | None, checkers: list[str],
                force: bool, brief: bool = False) -> None:
    from nonosat.certificates import ensure_writable_dir
    from nonosat.judge import parse_claim, verify, write_witness

    claimed = parse_claim(claim) if claim is not None else None
    if claim is not None and claimed is None:
        raise fail(f"--claim {claim} is no verdict to judge; use unique, multiple, none or solved")
    from nonosat.cli.inputs import split_puzzle_ref

    puzzle, name = load_puzzle(puzzle_path, format, index)
    index = split_puzzle_ref(puzzle_path, index)[1]  # the solution file's picture number
    solutions = []
    if solution_path is not None:
        solutions.append(_read_solution(solution_path, solution_format, index, puzzle.shape))
    if out is not None:
        ensure_writable_dir(out, force)
    if claimed is not None:
        from nonosat.cli.running import announce_compile

        announce_compile()
    judgement = verify(puzzle, claimed, solutions, timeout=timeout or None, checkers=checkers)
    written = write_witness(judgement, out, force) if out is not None else []
    code = _EXIT[judgement.outcome]
    if json_output:
        emit("verify", {"puzzle": name, **judgement.to_json(),
                        "witness_dir": str(out) if written else None})
        raise typer.Exit(code)
    if brief:
        typer.echo(brief_line(name, _status(judgement.truth), judgement.time_s,
                              judgement.outcome))
        raise typer.Exit(code)
    echo(printable(f"{name} ({puzzle.width}x{puzzle.height}): {judgement.outcome.upper()}"))
    for k, check in enumerate(judgement.checks, start=1):
        label = "solution" if len(judgement.checks) == 1 else f"solution {k}"
        if check.valid:
            echo(f"  {label}: valid (every clue holds)")
        else:
            n = len(check.errors)
            echo(f"  {label}: INVALID, {n} line{'s' if n != 1 else ''} break their clue:")
            for error in check.errors:
                echo(printable(f"    {error}"))
    if judgement.claim is not None:
        claim_reason = judgement.reason.rpartition(": ")[2] if judgement.checks and (
            judgement.outcome == "refuted" and judgement.claim_outcome != "refuted"
        ) else judgement.reason
        echo(f"  claim {judgement.claim}: {judgement.claim_outcome} "
                   f"(nonosat: {judgement.truth}; {claim_reason})")
    from nonosat.cli.solve import LOAD_SHOWN_S

    timing = f"{judgement.time_s:.3f} s"
    if judgement.load_s >= LOAD_SHOWN_S:
        timing += f"; loading the engine's kernels and libraries: {judgement.load_s:.1f} s"
    echo(f"  evidence: {judgement.witness_kind() or 'none'} [{timing}]")
    if written and out is not None:
        names = sorted({p.relative_to(out).parts[0] for p in written})
        echo(printable(f"  witness: {out}/ ({', '.join(names)})"))
    elif judgement.outcome == "refuted" and judgement.claim_outcome == "refuted":
        from nonosat.render.clue_grid import render_text

        for k, sol in enumerate(judgement.evidence, start=1):
            echo(f"  nonosat's solution {k}:")
            if puzzle.is_colour:
                from nonosat.render.colour_text import plain_colour_text

                echo_grid(plain_colour_text(puzzle, sol), "grid", puzzle.shape)
            else:
                echo_grid(render_text(puzzle, sol), "grid", puzzle.shape)
    raise typer.Exit(code)


def _read_solution(path: Path, format: str | None, index: int | None,
                   shape: tuple[int, int]) -> Any:
    """The picture in ``path`` (its goal), checked to have the puzzle's size."""
    from nonosat.errors import FormatError
    from nonosat.formats import detect_format, read_bytes, read_puzzles

    data = read_bytes(path) if index is not None else b""
    if index is not None and (format or detect_format(path, data[:4096]).name) == "tournament":
        # a solution file cut short keeps its intact pictures: read the block asked for
        from nonosat.formats.tournament import solution_blocks

        blocks = {n: (line, pic, why) for n, line, pic, why in solution_blocks(data, str(path))}
        if any(pic is not None for _, pic, _ in blocks.values()):  # a solution file
            if index not in blocks:
                raise FormatError(str(path), None, f"no picture numbered {index} in the file")
            line, goal, why = blocks[index]
            if goal is None:
                raise FormatError(str(path), line, why or "no picture")
            return _sized(goal, path, shape)
    pictures = read_puzzles(path, format)
    if len(pictures) > 1:
        if index is None:
            raise FormatError(str(path), None, f"the file holds {len(pictures)} pictures; "
                              "pick one with --index N")
        chosen = [p for k, p in enumerate(pictures, start=1)
                  if (p.number if p.number is not None else k) == index]
        if not chosen:
            raise FormatError(str(path), None, f"no picture numbered {index} in the file")
        picture = chosen[0]
    else:
        picture = pictures[0]
    if picture.goal is None:
        raise FormatError(str(path), None, "holds clues but no solution picture")
    return _sized(picture.goal, path, shape)


def _sized(goal: Any, path: Path, shape: tuple[int, int]) -> Any:
    """``goal``, checked to have the puzzle's size."""
    from nonosat.errors import FormatError

    if goal.shape != shape:
        h, w = goal.shape
        raise FormatError(str(path), None, f"wrong size: the solution is {w}x{h}, the puzzle "
                          f"{shape[1]}x{shape[0]}")
    return goal


# -- a results file --------------------------------------------------------------------------------


def _verify_results(results: Path, puzzle_paths: list[Path], out: Path | None,
                    timeout: float | None, jobs: int | None, checkers: list[str],
                    json_output: bool, format: str | None, all_witnesses: bool,
                    brief: bool = False) -> None:
    from nonosat.batch import collect_puzzles
    from nonosat.cli.batch import _Progress
    from nonosat.errors import FormatError
    from nonosat.judge import PuzzleIndex, read_results, summarise_verdicts, verify_results

    if not puzzle_paths:
        raise fail("--results needs the puzzle files its rows name")
    rows = read_results(results)
    inputs = collect_puzzles(list(puzzle_paths), format)
    if not inputs.puzzles:
        raise FormatError(", ".join(map(str, puzzle_paths)), None, "no puzzle files found")
    index = PuzzleIndex(inputs.puzzles)
    witnesses = out if out is not None else results.with_name(results.name + ".witnesses")
    limit = timeout  # resolved by handle_errors ("verify --results")
    echo(printable(f"nonosat verify: {len(rows)} rows of {results} against "
                         f"{len(inputs.puzzles)} puzzles with {jobs or 'all'} local workers"),
               err=True)
    start = time.perf_counter()
    progress = _Progress(len(rows))
    if brief:
        progress.on_each = lambda record: typer.echo(_brief_row(record))
    try:
        with progress:
            records = verify_results(
                rows, index, timeout=limit, jobs=jobs, out_dir=witnesses,
                keep=("refuted", "confirmed") if all_witnesses else ("refuted",),
                checkers=checkers, on_record=progress.update,
            )
    except KeyboardInterrupt:
        signals.announce()
        raise typer.Exit(128 + (interrupts.requested() or 2)) from None
    elapsed = time.perf_counter() - start
    summary = summarise_verdicts(records)
    for error in inputs.errors:
        summary.bad_rows.append({"id": error["id"], "line": None, "reason": error["error"]})
    if json_output:
        for record in records:
            emit("verify", record)
        emit("verify", {"kind": "summary", "results": str(results),
                        "elapsed_s": round(elapsed, 3), "witnesses": str(witnesses),
                        **summary.to_json()})
    elif not brief:
        _print_summary(summary, elapsed, witnesses)
    if summary.refuted:
        raise typer.Exit(EXIT_FAILED)
    if summary.bad_rows:
        raise typer.Exit(EXIT_BAD_INPUT)
    if summary.undecided:
        raise typer.Exit(EXIT_GAVE_UP)
    raise typer.Exit(EXIT_OK)


def _status(truth: object) -> str:
    return truth if truth in ("unique", "multiple", "none", "solved") else "unknown"


def _brief_row(record: dict[str, Any]) -> str:
    """``PUZZLE STATUS TIME OUTCOME`` of a results row."""
    time_s = record.get("time_s")
    return brief_line(str(record.get("puzzle") or record.get("id")), _status(record.get("truth")),
                      float(time_s) if isinstance(time_s, (int, float)) else None,
                      str(record.get("outcome") or record.get("status")))


#: Rows of the refuted / bad / undecided tables before the rest are only counted.
_LISTED = 50  # undecided rows; refuted and bad rows are all listed


def _print_summary(summary: Any, elapsed: float, witnesses: Path) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from nonosat.cli.output import fold, terminal_width
    from nonosat.judge import OUTCOMES

    console = Console(highlight=False, width=terminal_width())  # 80 in a pipe or log file
    console.print(f"[bold]verify[/]: {summary.rows} rows in {elapsed:.1f} s")
    outcomes = [o for o in OUTCOMES if summary.count(o)]
    table = Table("claimed", *(f"[{_STYLE[o]}]{o}[/]" for o in outcomes), "rows",
                  title="outcome per claimed verdict", title_justify="left")
    for claim, counts in summary.table.items():
        table.add_row("(no verdict)" if claim == "-" else escape(printable(claim)),
                      *(str(counts.get(o, 0)) for o in outcomes), str(sum(counts.values())))
    table.add_row("[bold]all[/]", *(str(summary.count(o)) for o in outcomes), str(summary.rows))
    console.print(fold(table))
    sections = (
        ("refuted", summary.refuted, ("id", "claim", "evidence", "witness_dir")),
        ("bad rows", summary.bad_rows, ("id", "line", "reason")),
        ("undecided", summary.undecided, ("id", "claim", "reason")),
    )
    for title, rows, columns in sections:
        if not rows:
            continue
        labels = {"witness_dir": "witness", "evidence": "refuted by"}
        t = Table(*(labels.get(c, c) for c in columns), title=f"{title} ({len(rows)})",
                  title_justify="left")
        for row in rows[:_LISTED]:
            t.add_row(*(escape(printable(str(row.get(c) if row.get(c) is not None else "-")))
                        for c in columns))
        if len(rows) > _LISTED:
            t.add_row("...", *([""] * (len(columns) - 2)), f"{len(rows) - _LISTED} more (--json)")
        console.print(fold(t))
    if summary.refuted and not any(r.get("witness_dir") for r in summary.refuted):
        console.print(f"no witness written (see {escape(printable(str(witnesses)))})")
