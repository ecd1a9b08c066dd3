"""Cross-check engines: solve each puzzle with every engine and fail loudly when they disagree.

Runs nonosat's verdict (auto: the portfolio 'nonosat solve' decides with) against the SAT
engine alone and CP-SAT (or --engine NAME,NAME...; native, the native solver alone, too) with
limit 2 on every puzzle
named: files (a multi-puzzle file expands to each puzzle, named FILE#N), directories (searched
recursively for puzzle files), FILE#N names as nonosat prints them, or puzzle N of each file with
--index N.  Checks each solution against the clues and the file's goal picture, and prints a table
of engine verdicts and times that fits the terminal (80 columns in a pipe); with --json, one JSON
object per line per puzzle; with --brief, one line per puzzle.  A progress bar runs on stderr on a terminal.  Ctrl-C stops the run
and prints what finished.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonosat import interrupts
from nonosat.cli import signals
from nonosat.cli.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK
from nonosat.cli.inputs import split_puzzle_ref, warn_givens_left_out
from nonosat.cli.options import (
    BriefOpt,
    EnginesAliasOpt,
    EnginesOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzlesArg,
    engine_list,
    timeout_param,
)
from nonosat.cli.output import brief_line, echo, emit
from nonosat.cli.running import handle_errors
from nonosat.text import printable
from nonosat.verdict import CROSSCHECK_ENGINES

if TYPE_CHECKING:
    from nonosat.engines.compare import CrossCheck
    from nonosat.puzzle import Puzzle

TimeoutOpt = Annotated[float | None, timeout_param(
    "crosscheck", "Seconds per puzzle and engine; an engine past it gave up")]
_DEFAULT_ENGINES = ",".join(CROSSCHECK_ENGINES)
_STYLE = {"disagreement": "red", "unknown": "yellow"}
#: Exit code after Ctrl-C when what finished has no findings (1 when it has; 143 after SIGTERM).
EXIT_INTERRUPTED = 130
#: Seconds between plain progress lines on stderr when it is not a terminal.
PLAIN_PROGRESS_SECONDS = 10.0


@handle_errors
def crosscheck_command(
    puzzle_paths: PuzzlesArg,
    engines: EnginesOpt = None,
    engines_alias: EnginesAliasOpt = None,
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
    brief: BriefOpt = False,
) -> None:
    """Compare every engine's verdict and solution on each puzzle."""
    from nonosat.engines import get_engine
    from nonosat.engines.compare import crosscheck
    from nonosat.errors import EngineError

    names = engine_list(engines, _DEFAULT_ENGINES, engines_alias)
    if not names:
        raise EngineError("--engine names no engine")
    for name in names:
        get_engine(name)  # unknown or unavailable engines are bad input, before any work
    skipped: list[tuple[str, str]] = []
    puzzles = collect(puzzle_paths, format, index, skipped=skipped)
    warn_givens_left_out(puzzles, "the engines are compared on the clues alone")
    for name, why in skipped:
        echo(printable(f"nonosat: not checked: {name}: {why}"), err=True)
    reports: list[CrossCheck] = []
    interrupted = False

    def last_words() -> int:
        # the process must end while an engine is in compiled code: what finished, as below
        done = list(reports)
        if not json_output and not brief:
            print_table(done, names)
        signals.announce(f"nonosat: interrupted after {len(done)} of {len(puzzles)} puzzles")
        return EXIT_FAILED if any(r.failed for r in done) else 128 + (interrupts.requested() or 2)

    signals.last_words = last_words
    with _Progress(len(puzzles)) as progress:
        try:
            for puzzle_id, puzzle in puzzles:
                progress.start(puzzle_id)
                report = crosscheck(puzzle, names, timeout=timeout, puzzle_id=puzzle_id)
                reports.append(report)
                progress.done(report)
                if json_output:
                    emit("crosscheck", report.to_json())
                elif brief:
                    typer.echo(_brief(report))
        except KeyboardInterrupt:
            interrupted = True
    signals.last_words = None
    if not json_output and not brief:
        print_table(reports, names)
    if interrupted:
        signals.announce(
            f"nonosat: interrupted after {len(reports)} of {len(puzzles)} puzzles "
            f"(the {'table' if not (json_output or brief) else 'lines'} above "
            f"show{'s' if not (json_output or brief) else ''} those)"
        )
    if any(r.failed for r in reports):
        if interrupted:
            signals.KEEP_FAILED.set()  # real findings among what finished: exit 1, not 130
        raise typer.Exit(EXIT_FAILED)
    if interrupted:
        raise typer.Exit(128 + (interrupts.requested() or 2))
    if skipped:
        echo(f"nonosat: {len(skipped)} file{'s' if len(skipped) > 1 else ''} in the "
                   "directories could not be read (listed above)", err=True)
        raise typer.Exit(EXIT_BAD_INPUT)
    raise typer.Exit(EXIT_GAVE_UP if any(r.gave_up for r in reports) else EXIT_OK)


def _brief(report: CrossCheck) -> str:
    """``PUZZLE STATUS TIME ok|FINDINGS``: the agreed verdict (``unknown`` when the engines
    disagree), the slowest engine's time, and ``ok`` or the kinds of the findings."""
    status = report.status if report.status in ("unique", "multiple", "none") else "unknown"
    slowest = max((run.time_s for run in report.runs), default=0.0)
    kinds = sorted({f.kind for f in report.findings})
    return brief_line(report.puzzle_id, status, slowest, ",".join(kinds) or "ok")


def collect(paths: list[Path], format: str | None, index: int | None,
            skipped: list[tuple[str, str]] | None = None) -> list[tuple[str, Puzzle]]:
    """``(id, puzzle)`` for every puzzle the arguments name: files (each puzzle of a multi-puzzle
    file, or puzzle ``index`` of it), ``FILE#N`` names and directories (searched recursively).

    Files found in a directory that cannot be read are appended to ``skipped`` as ``(name,
    reason)`` and the rest is checked; without a ``skipped`` list the first one is an error.

    Raises
    ------
    FormatError
        A missing path, an unreadable file named directly, ``--index`` out of range, or a
        directory with no puzzle file.
    """
    from nonosat.errors import FormatError
    from nonosat.formats import iter_puzzles, read_puzzle

    puzzles: list[tuple[str, Puzzle]] = []
    for path in paths:
        file, number = split_puzzle_ref(path, index)
        if file.is_dir():
            from nonosat.batch.collect import collect_puzzles

            found = collect_puzzles([file], format)
            if found.errors and (skipped is None or not found.puzzles):
                first = found.errors[0]
                raise FormatError(str(first["id"]), None, str(first["error"]).split(": ", 1)[-1])
            if skipped is not None:  # else any error was raised above
                skipped.extend((str(error["id"]), str(error["error"]).split(": ", 1)[-1])
                               for error in found.errors)
            if not found.puzzles:
                raise FormatError(str(file), None, "no puzzle files in this directory")
            puzzles += found.puzzles
        elif number is not None:
            puzzles.append((f"{file}#{number}", read_puzzle(file, format, number)))
        else:
            puzzles += list(iter_puzzles(file, format))
    return puzzles


class _Progress:
    """A rich progress bar on stderr when it is a terminal; else a plain line every
    :data:`PLAIN_PROGRESS_SECONDS`.  Nothing for a single puzzle."""

    def __init__(self, total: int):
        self.total = total
        self.count = 0
        self.begin = self.last = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self.total > 1 and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._bar = Progress(
                BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=Console(stderr=True), transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("", total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def start(self, puzzle_id: str) -> None:
        """Show that ``puzzle_id`` is being checked."""
        if self._bar is not None:
            self._bar.update(self._task, description=_shorten(printable(puzzle_id), 40))

    def done(self, report: CrossCheck) -> None:
        """Account for one finished puzzle."""
        self.count += 1
        if self._bar is not None:
            self._bar.update(self._task, advance=1)
            return
        now = time.perf_counter()
        if self.total > 1 and now - self.last >= PLAIN_PROGRESS_SECONDS:
            self.last = now
            typer.echo(
                f"nonosat crosscheck: {self.count}/{self.total} puzzles, "
                f"{now - self.begin:.0f} s", err=True,
            )


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else "..." + text[-(width - 3):]


# -- the table -----------------------------------------------------------------------------------

#: Short verdicts for narrow terminals (explained under the table when used).
_SHORT = {"unique": "uniq", "multiple": "mult", "none": "none", "unknown": "unkn", "error": "err",
          "disagreement": "DISAGREE"}


def _time(seconds: float) -> str:
    return f"{seconds:.3f}s" if seconds < 100 else f"{seconds:.0f}s"


def table_lines(reports: list[CrossCheck], names: list[str], width: int) -> list[str]:
    """The verdict table as text lines of at most ``width`` characters (at least 40).

    One row per puzzle: its name, each engine's verdict and time, the overall status.  Verdicts
    are abbreviated when the full ones do not fit; a puzzle name too long for its column gets a
    line of its own (folded at ``width`` if need be) with its row below, so names are never cut.
    Puzzles of one directory have it named once, above the table.
    """
    width = max(width, 40)
    folders = {os.path.dirname(r.puzzle_id) for r in reports}
    folder = folders.pop() if len(folders) == 1 else ""
    skip = len(os.path.join(folder, "")) if folder else 0
    ids = [printable(r.puzzle_id[skip:]) for r in reports]
    from nonosat.cli.output import wrap

    # the folder named once (a path longer than the width folded)
    lines = wrap(f"in {printable(os.path.join(folder, ''))}:", width=width).split("\n") \
        if folder else []
    for short in (False, True):
        def verdict(text: str, short: bool = short) -> str:
            return _SHORT.get(text, text) if short else text

        cells = [
            [f"{verdict(run.verdict)} {_time(run.time_s)}" for run in report.runs]
            for report in reports
        ]
        statuses = [verdict(r.status) for r in reports]
        widths = [
            max([len(name)] + [len(row[k]) for row in cells]) for k, name in enumerate(names)
        ]
        status_w = max([len("status")] + [len(s) for s in statuses])
        rest = sum(w + 2 for w in widths) + 2 + status_w  # all but the name column
        if rest + 12 <= width or short:
            break
    name_w = max(min(max([len("puzzle")] + [len(i) for i in ids]), width - rest), 6)
    def row(first: str, values: list[str], status: str) -> str:
        parts = [first.ljust(name_w)] + [v.ljust(w) for v, w in zip(values, widths, strict=True)]
        return ("  ".join(parts) + "  " + status).rstrip()

    lines.append(row("puzzle", names, "status"))
    lines.append(row("-" * name_w, ["-" * w for w in widths], "-" * status_w))
    for puzzle_id, values, status in zip(ids, cells, statuses, strict=True):
        if len(puzzle_id) <= name_w:
            lines.append(row(puzzle_id, values, status))
            continue
        lines += [puzzle_id[k: k + width] for k in range(0, len(puzzle_id), width)]
        lines.append(row("", values, status))
    if short:
        import textwrap

        used = {v for row in cells for v in row} | set(statuses)
        legend = [f"{v} = {k}" for k, v in _SHORT.items()
                  if k != v and any(u.split()[0] == v for u in used)]
        lines += textwrap.wrap("verdicts: " + ", ".join(legend), width)
    return lines


def print_table(reports: list[CrossCheck], names: list[str]) -> None:
    """Print the verdict table (:func:`table_lines`, terminal width or 80), the findings and a
    one-line summary on stdout."""
    from nonosat.cli.output import terminal_width

    width = terminal_width()  # $COLUMNS, else the terminal's, else 80
    colour = sys.stdout.isatty()
    for line in table_lines(reports, names, width):
        line = printable(line)
        if colour:
            for status, style in _STYLE.items():
                if line.endswith(status) or line.endswith(_SHORT.get(status, "\0")):
                    line = line[: -len(line.split()[-1])] + typer.style(line.split()[-1], fg=style)
        typer.echo(line)
    for report in reports:
        for finding in report.findings:
            echo(printable(f"{report.puzzle_id}: {finding.kind}: {finding.message}"))
    failed = sum(r.failed for r in reports)
    gave_up = sum(r.gave_up and not r.failed for r in reports)
    typer.echo(
        f"{len(reports)} puzzle(s): {len(reports) - failed - gave_up} agreed, "
        f"{failed} with findings, {gave_up} where an engine gave up"
    )
