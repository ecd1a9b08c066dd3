"""Run one job over many puzzles: files, directories and multi-puzzle files, in parallel.

Jobs (--do): solve (first solution only), check (uniqueness verdict, the default), certify,
crosscheck, analyse.  Every puzzle gets an id (FILE, or FILE#N in a multi-puzzle file) and runs in
a worker process with a per-puzzle --timeout; a puzzle that hangs, crashes or runs out of memory
is recorded as such and the batch goes on.  Results go to --out as JSON Lines, one object per
puzzle as it finishes (the JSON contract of docs/cli.md: the fields of `solve --json` plus
job, elapsed_s, worker, and failure and error when it failed); rerunning with the same --out skips
the puzzles already recorded (also in a results file of an older nonosat).  With --brief, one
line per puzzle on stdout as it finishes instead of the summary.  --scheduler ADDRESS runs the
work on a dask.distributed cluster instead of local processes.  Ends with a summary table (or
--json).  Exit 0 when every puzzle got a verdict, 1 on any disagreement or invalid solution,
4 when some puzzle timed out, crashed or got no verdict, 2 for bad input.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonosat import interrupts
from nonosat.cli import signals
from nonosat.cli.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK, fail
from nonosat.cli.options import (
    BriefOpt,
    EnginesAliasOpt,
    ForceOpt,
    FormatOpt,
    JobsOpt,
    JsonOpt,
    TaaiOutOpt,
    engine_list,
    paths_param,
    timeout_param,
)
from nonosat.cli.output import brief_line, echo, emit
from nonosat.cli.running import handle_errors
from nonosat.text import printable

if TYPE_CHECKING:  # the batch machinery (numpy, the model) is imported by the command only
    from nonosat.batch import Summary

#: The jobs of :data:`nonosat.batch.jobs.JOBS`, for ``--help`` (which must not import the batch
#: machinery; ``tests/test_cli_batch.py`` checks the two agree).
JOB_HELP = {
    "solve": "first solution only (limit 1, tournament rules)",
    "check": "uniqueness verdict (limit 2)",
    "certify": "uniqueness certificate (checked DRAT proof), written under --cert-dir",
    "crosscheck": "solve with nonosat's portfolio, SAT and CP-SAT and compare the verdicts",
    "analyse": "difficulty analysis: techniques needed, grade, ambiguity of several solutions",
}

PathsArg = Annotated[list[Path], paths_param(
    "Puzzle files and directories (searched recursively for puzzle files).")]
DoOpt = Annotated[
    str,
    typer.Option(
        "--do",
        help="Job: "
        + "; ".join(f"{name} = {text}" for name, text in JOB_HELP.items())
        + "; or module:function (a custom job).",
    ),
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", "-o", help="Results file (JSON Lines); rerunning with it skips finished puzzles."
    ),
]
BatchTimeoutOpt = Annotated[float | None, timeout_param(
    "batch", "Per-puzzle time limit; a worker that overruns it by a grace margin is killed and "
    "the puzzle recorded as timeout")]
SchedulerOpt = Annotated[
    str | None,
    typer.Option("--scheduler", help="Address of a dask.distributed scheduler (tcp://host:8786)."),
]
CertDirOpt = Annotated[
    Path | None,
    typer.Option("--cert-dir", help="Directory for the certify job's certificates (required "
                 "with --do certify)."),
]
EngineOpt = Annotated[
    str | None,
    typer.Option(
        "--engine",
        "-e",
        metavar="NAME[,NAME...]",
        help="Engine for solve, check and analyse; a comma-separated list for crosscheck "
        "(default: auto; crosscheck: auto,sat,cpsat).",
    ),
]
RetryOpt = Annotated[
    bool,
    typer.Option("--retry-failed", help="Rerun puzzles recorded as timeout, crashed or error."),
]
MemoryOpt = Annotated[
    int | None,
    typer.Option("--memory-limit", min=64, metavar="MIB", help="Memory limit per worker (MiB)."),
]

#: Seconds between plain progress lines when stderr is not a terminal.
PLAIN_PROGRESS_SECONDS = 10.0

_STYLE = {
    "unique": "green",
    "solved": "green",
    "multiple": "cyan",
    "none": "magenta",
    "unknown": "yellow",
    "timeout": "yellow",
    "crashed": "red",
    "error": "red",
    "invalid": "bold red",
    "disagreement": "bold red",
}


@handle_errors
def batch_command(
    paths: PathsArg,
    do: DoOpt = "check",
    out: OutOpt = None,
    jobs: JobsOpt = None,
    timeout: BatchTimeoutOpt = None,
    scheduler: SchedulerOpt = None,
    cert_dir: CertDirOpt = None,
    engine: EngineOpt = None,
    retry_failed: RetryOpt = False,
    memory_limit: MemoryOpt = None,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    force: ForceOpt = False,
    brief: BriefOpt = False,
    engines_alias: EnginesAliasOpt = None,
    taai_out: TaaiOutOpt = None,
) -> None:
    """Run a job (check, solve, certify, crosscheck, analyse) over many puzzles."""
    from nonosat.batch import (
        BatchConfig,
        ResultsFile,
        collect_puzzles,
        pending,
        resolve_job,
        run_batch,
        summarise,
    )
    from nonosat.errors import FormatError

    job = resolve_job(do)
    if job.name == "certify" and cert_dir is None:
        raise fail("--do certify writes certificates: give --cert-dir DIR")
    if engine is not None or engines_alias is not None:
        engine = ",".join(engine_list(engine, "", engines_alias)) or None
    config = BatchConfig(
        job=do,
        engine=engine,
        timeout=timeout or None,
        jobs=jobs,
        memory_mb=memory_limit,
        cert_dir=cert_dir,
        retry_failed=retry_failed,
        force=force,
    )
    inputs = collect_puzzles(list(paths), format)
    if not inputs.puzzles and not inputs.errors:
        raise FormatError(", ".join(map(str, paths)), None, "no puzzle files found")
    results = ResultsFile(out) if out is not None else None
    try:
        if results is not None:
            results.add_input_errors(inputs.errors, job.name)
        todo = pending(inputs.puzzles, results, config)
        earlier = len(inputs.puzzles) - len(todo)
        where = f"dask scheduler {scheduler}" if scheduler else f"{jobs or 'all'} local workers"
        echo(
            printable(f"nonosat batch: {job.name} on {len(inputs.puzzles)} puzzles"
            + (f" ({earlier} already in {out}, {len(todo)} to run)" if earlier else "")
            + f" with {where}"),
            err=True,
        )
        start = time.perf_counter()
        progress = _Progress(len(todo), brief=brief)
        with progress:
            new = run_batch(
                todo, config, results=results, scheduler=scheduler, on_record=progress.update
            )
    except KeyboardInterrupt:
        kept = f"; the finished puzzles are in {out}, rerun to resume" if out else ""
        signals.announce(f"nonosat: interrupted{kept}")
        raise typer.Exit(128 + (interrupts.requested() or 2)) from None
    finally:
        if results is not None:
            results.close()
    elapsed = time.perf_counter() - start
    ids = {puzzle_id for puzzle_id, _ in inputs.puzzles}
    if results is not None:
        records = [r for (i, j), r in results.records.items() if j == job.name and i in ids]
    else:
        records = new
    summary = summarise(records, inputs.errors)
    if taai_out is not None:
        _write_taai_out(taai_out, inputs.puzzles, records, force)
    if json_output:
        emit(
            "batch",
            {
                "kind": "summary",
                "job": job.name,
                "out": str(out) if out is not None else None,
                "ran": len(new),
                "earlier": earlier,
                "elapsed_s": round(elapsed, 3),
                "skipped_files": len(inputs.skipped),
                **summary.to_json(),
            }
        )
    elif not brief:
        _print_summary(summary, job.name, len(new), earlier, elapsed)
    raise typer.Exit(_exit_code(summary, bool(inputs.errors)))


def _write_taai_out(path: Path, puzzles: list[tuple[str, Any]], records: list[dict[str, Any]],
                    force: bool) -> None:
    """``--taai-out``: the first solution of each puzzle's record (all 0 where it has none), in
    the puzzles' order, numbered by their ``$N`` (else their place in the list)."""
    from nonosat.errors import FormatError
    from nonosat.formats.tournament import save_solutions
    from nonosat.puzzle import grid_from_rows, grid_to_solution

    by_id = {r.get("id"): r for r in records}
    pictures = []
    for k, (puzzle_id, puzzle) in enumerate(puzzles, start=1):
        if puzzle.is_colour:
            raise FormatError(str(path), None, f"{puzzle_id} is a colour puzzle; tournament "
                              "solution files hold black-and-white puzzles only")
        found = (by_id.get(puzzle_id) or {}).get("solutions") or []
        first = grid_to_solution(grid_from_rows(found[0], puzzle.shape)) if found else None
        pictures.append((puzzle.number if puzzle.number is not None else k, puzzle.shape, first))
    save_solutions(path, pictures, force)


def _exit_code(summary: Summary, unreadable: bool) -> int:
    if summary.disagreements:
        return EXIT_FAILED
    if summary.undecided:
        return EXIT_GAVE_UP
    return EXIT_BAD_INPUT if unreadable else EXIT_OK


# -- progress --------------------------------------------------------------------------------------


class _Progress:
    """Progress display: a rich bar on a terminal, plain lines on stderr otherwise.  Failures and
    disagreements are reported as they happen."""

    def __init__(self, total: int, brief: bool = False):
        from collections import Counter

        self.total = total
        #: Called with each finished record (--brief prints its line).
        self.on_each: Any = (lambda record: typer.echo(brief_record(record))) if brief else None
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.start = time.perf_counter()
        self._last_line = self.start
        self._printed = 0
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                speed_estimate_period=60.0,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("starting", total=self.total, rate="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
        elif self._printed != self.done:  # the last count, also after an interruption
            self._plain_line()

    def update(self, record: dict[str, Any]) -> None:
        """Account for one finished puzzle."""
        from nonosat.batch.results import UNDECIDED, is_disagreement

        self.done += 1
        status = str(record.get("status"))
        if self.on_each is not None:
            self.on_each(record)
        self.counts[status] += 1
        problem = None
        if is_disagreement(record):
            problem = record.get("disagreement") or record.get("error") or status
        elif status in UNDECIDED - {"unknown"}:
            problem = record.get("error") or status
        if self._bar is not None:
            if problem:
                from rich.markup import escape

                self._bar.console.print(
                    f"[{_STYLE.get(status, 'red')}]{escape(printable(record['id']))}: "
                    f"{escape(printable(status))}[/] {escape(printable(str(problem)))}"
                )
            elapsed = time.perf_counter() - self.start
            self._bar.update(
                self._task,
                advance=1,
                description=self._counts_text(),
                rate=f"{self.done / elapsed:.1f}/s" if elapsed > 0 else "",
            )
            return
        if problem:
            echo(printable(f"nonosat batch: {record['id']}: {status}: {problem}"), err=True)
        now = time.perf_counter()
        if now - self._last_line >= PLAIN_PROGRESS_SECONDS or self.done == self.total:
            self._last_line = now
            self._plain_line()

    def _counts_text(self) -> str:
        return printable(", ".join(f"{status} {n}" for status, n in self.counts.most_common()))

    def _plain_line(self) -> None:
        self._printed = self.done
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        percent = 100.0 * self.done / self.total if self.total else 100.0
        echo(
            f"nonosat batch: {self.done}/{self.total} ({percent:.0f}%), {rate:.1f} puzzles/s, "
            f"elapsed {_clock(elapsed)}, eta {_clock(eta)}; {self._counts_text()}",
            err=True,
        )


def brief_record(record: dict[str, Any]) -> str:
    """The brief line of a batch record: ``PUZZLE STATUS TIME`` (the engine's time, else the
    worker's), then the failure (``timeout``, ...) or, for analyse, ``grade=N``."""
    from nonosat.batch.results import file_record

    row = file_record(record)
    time_s = row.get("time_s")
    if not isinstance(time_s, (int, float)):
        time_s = row.get("elapsed_s")
    grade = row.get("grade")
    extra = row.get("failure") or (f"grade={grade['grade']}" if isinstance(grade, dict)
                                   and grade.get("grade") is not None else "")
    return brief_line(str(row.get("puzzle")), str(row.get("status")),
                      float(time_s) if isinstance(time_s, (int, float)) else None, extra)


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# -- summary ---------------------------------------------------------------------------------------

#: Rows of the disagreement and failure tables before the rest are only counted.
_LISTED = 20


def _print_summary(summary: Summary, job: str, ran: int, earlier: int, elapsed: float) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from nonosat.cli.output import fold, terminal_width

    console = Console(highlight=False, width=terminal_width())  # 80 in a pipe or log file
    rate = f", {ran / elapsed:.1f} puzzles/s" if ran and elapsed > 0 else ""
    console.print(
        f"[bold]{escape(printable(job))}[/]: {summary.puzzles} puzzles "
        f"({ran} run now in {elapsed:.1f} s{rate}"
        + (f", {earlier} from earlier results" if earlier else "")
        + ")"
    )
    verdicts = Table("status", "puzzles", "share", title="verdicts", title_justify="left")
    for status, n in summary.counts.items():
        share = f"{100.0 * n / summary.puzzles:.1f}%" if summary.puzzles else ""
        verdicts.add_row(f"[{_STYLE.get(status, '')}]{escape(printable(status))}[/]", str(n),
                         share)
    console.print(fold(verdicts))
    times = Table(
        "total", "median", "p99", "max", title="time per puzzle (s)", title_justify="left"
    )
    times.add_row(
        *(f"{t:.3f}" for t in (summary.total_s, summary.median_s, summary.p99_s, summary.max_s))
    )
    console.print(fold(times))
    if summary.slowest:
        slow = Table("puzzle", "status", "seconds", title="slowest", title_justify="left")
        for row in summary.slowest:
            slow.add_row(escape(printable(row["id"])), escape(printable(str(row["status"]))),
                         f"{row['wall_s'] or 0:.3f}")
        console.print(fold(slow))
    if summary.grades:
        grades = Table("grade", "puzzles", "share", title="difficulty grades",
                       title_justify="left")
        graded = sum(summary.grades.values())
        for grade, n in summary.grades.items():
            grades.add_row(escape(printable(str(grade))), str(n), f"{100.0 * n / graded:.1f}%")
        console.print(fold(grades))
    if summary.not_graded:  # no solution / several solutions: apart from the grades' shares
        apart = Table("reason", "puzzles", title="not graded", title_justify="left")
        for reason, n in summary.not_graded.items():
            apart.add_row(escape(reason), str(n))
        console.print(fold(apart))
    for title, ids in (("several solutions", summary.multiple), ("no solution", summary.none)):
        if not ids:
            continue
        # one name per line, never cut; their common folder said once, and a name still too
        # long for the terminal folded (nonosat.cli.output.wrap_lines)
        import os

        from nonosat.cli.output import wrap_lines

        console.print(f"{title} ({len(ids)})", markup=False)
        folders = {os.path.dirname(i) for i in ids[:_LISTED]}
        folder = folders.pop() if len(folders) == 1 else ""
        if folder:
            console.print(wrap_lines(f"  in {printable(os.path.join(folder, ''))}:"),
                          markup=False, soft_wrap=True)
        for puzzle_id in ids[:_LISTED]:
            name = puzzle_id[len(os.path.join(folder, "")):] if folder else puzzle_id
            console.print(wrap_lines(f"  {printable(name)}"), markup=False, soft_wrap=True)
        if len(ids) > _LISTED:
            console.print(f"  ... {len(ids) - _LISTED} more (--json lists them all)")
    for title, rows, key in (
        ("disagreements", summary.disagreements, "reason"),
        ("failures", summary.failures, "error"),
    ):
        if not rows:
            continue
        table = Table("puzzle", "status", key, title=f"{title} ({len(rows)})", title_justify="left")
        for row in rows[:_LISTED]:
            table.add_row(escape(printable(row["id"])), escape(printable(str(row["status"]))),
                          escape(printable(str(row[key] or ""))))
        if len(rows) > _LISTED:
            table.add_row("...", "", f"{len(rows) - _LISTED} more in the results file")
        console.print(fold(table))
