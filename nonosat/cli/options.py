"""Every option and argument more than one command takes, defined once (typer ``Annotated``
types), with one spelling, one default and one help text each.

A command declares a parameter with the type from here (``json_output: JsonOpt = False``);
its default and the environment variable that changes it are in the help text, and in the
table of ``docs/cli.md``.  Time limits: ``--timeout`` takes ``$NONOSAT_TIMEOUT`` when not given,
else the command's default of :data:`TIMEOUT_DEFAULTS` (:func:`timeout_param` builds the
option with its help, :func:`command_timeout` resolves it).

A new command is a few lines with these and the printers of :mod:`nonosat.cli.output`::

    @handle_errors
    def count_command(puzzle_path: PuzzleArg, timeout: TimeoutOpt = None,
                      json_output: JsonOpt = False, brief: BriefOpt = False,
                      format: FormatOpt = None, index: IndexOpt = None) -> None:
        puzzle, name = load_puzzle(puzzle_path, format, index)
        result = solve(puzzle, limit=100, timeout=timeout)
        if json_output:
            emit("count", {"puzzle": name, "status": result.status.value,
                           "time_s": result.time_s, "count": len(result.solutions)})
        elif brief:
            typer.echo(brief_line(name, result.status.value, result.time_s))
        else:  # a text report: every line fits the terminal
            echo(f"{name}: {len(result.solutions)} solutions found")
        raise typer.Exit(STATUS_EXIT[result.status])

(``load_puzzle`` from :mod:`nonosat.cli.inputs`; ``emit``, ``brief_line``, ``echo``,
``echo_grid`` from :mod:`nonosat.cli.output`), plus its name in :data:`TIMEOUT_DEFAULTS`,
``COMMAND_NAMES`` of :mod:`nonosat.cli.running`, :data:`nonosat.cli.app.COMMANDS` and a schema
file in ``docs/schema/``.

This module imports only typer (``nonosat --help`` stays light).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from typer.models import ArgumentInfo, OptionInfo

#: ``--timeout`` per command when neither the option nor ``$NONOSAT_TIMEOUT`` is given
#: (seconds; per puzzle for the commands over many puzzles).
TIMEOUT_DEFAULTS = {
    "solve": 300.0, "certify": 300.0, "verify-certificate": 300.0, "verify": 300.0,
    "render": 300.0, "hint": 300.0, "explain": 300.0, "crosscheck": 300.0,
    "analyse": 300.0,  # its verdict is solve's (nonosat.verdict), with solve's time limit
    "batch": 60.0, "verify --results": 60.0,
    "generate": 60.0,  # per puzzle: the search for the changes, its checks and the grade
}
ENV_TIMEOUT = "NONOSAT_TIMEOUT"
ENV_CHECKER_PATH = "NONOSAT_CHECKER_PATH"


def command_timeout(value: float | None, command: str) -> float | None:
    """The time limit ``command`` runs with: ``value`` when given (0 = none), else
    ``$NONOSAT_TIMEOUT`` (0 = none), else :data:`TIMEOUT_DEFAULTS`; ``None`` for no limit.

    Raises
    ------
    FormatError
        A malformed ``$NONOSAT_TIMEOUT``.
    """
    from nonosat.limits import default_timeout

    if value is not None:
        return value if value > 0 else None
    if os.environ.get(ENV_TIMEOUT) is not None:
        return default_timeout()
    return TIMEOUT_DEFAULTS[command]


def timeout_help(command: str, what: str = "Give up after SECONDS (exit 4)") -> str:
    """The help text of ``--timeout`` for ``command``: default and environment variable."""
    return (f"{what}; 0 = no limit (default: ${ENV_TIMEOUT}, else "
            f"{TIMEOUT_DEFAULTS[command]:g}).")


def timeout_param(command: str, what: str = "Give up after SECONDS (exit 4)") -> OptionInfo:
    """The ``--timeout/-t`` option of ``command``, for its ``Annotated`` type:
    ``Annotated[float | None, timeout_param("solve")]`` (default ``None``, resolved by
    :func:`command_timeout`).  A type alias spelled out at its use, which type checkers read."""
    return typer.Option("--timeout", "-t", min=0.0, metavar="SECONDS",
                        help=timeout_help(command, what))


PuzzleArg = Annotated[
    Path,
    typer.Argument(
        help="Puzzle file (.non, .nin, .json, .xml, tournament .txt, .csv, picture ...), or "
        "FILE#N for puzzle N of a multi-puzzle file.",
        show_default=False,
        metavar="PUZZLE",
    ),
]


def paths_param(what: str, metavar: str | None = None) -> ArgumentInfo:
    """The puzzle files and directories a command reads (``what``: its help), for the
    ``Annotated[list[Path], ...]`` of a command that takes several (no default shown)."""
    return typer.Argument(help=what, show_default=False, metavar=metavar)


PuzzlesArg = Annotated[list[Path], paths_param(
    "Puzzle files, directories (searched recursively) or FILE#N names; multi-puzzle files are "
    "taken puzzle by puzzle.", metavar="PUZZLE")]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format", "-f", metavar="NAME",
        help="Input format (see 'nonosat formats') (default: by suffix, then by content).",
    ),
]
IndexOpt = Annotated[
    int | None,
    typer.Option(
        "--index", "-i", metavar="N",
        help="Puzzle number N in a multi-puzzle file ($N, CSV row).",
    ),
]
JsonOpt = Annotated[
    bool,
    typer.Option("--json", help="Print JSON (schema nonosat/1, docs/cli.md); JSON Lines when "
                 "several objects."),
]
BriefOpt = Annotated[
    bool,
    typer.Option("--brief", "-q",
                 help="One line per puzzle: PUZZLE STATUS TIME, then what the command adds "
                 "(analyse: grade=N)."),
]
#: The old ``--timeout`` type, default $NONOSAT_TIMEOUT or 300 (kept for commands not yet
#: using :func:`timeout_param`).
TimeoutOpt = Annotated[float | None, timeout_param("solve")]

#: The engines ``--engine`` names, for its help (``nonosat.engines.ENGINE_MODULES`` without
#: importing the engines).
ENGINE_NAMES = "auto, native, sat, cpsat"

EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine", "-e", metavar="NAME",
        help=f"Engine: {ENGINE_NAMES}. 'auto' (the portfolio) runs the native solver's "
        "propagation and probing, and hands what they proved over to SAT if that does not "
        "decide the puzzle.",
    ),
]
EnginesOpt = Annotated[
    str | None,
    typer.Option(
        "--engine", "-e", metavar="NAME[,NAME...]",
        help="One engine or a comma-separated list (native, sat, cpsat; crosscheck compares "
        "them) (default: native,sat,cpsat).",
    ),
]
#: ``--engines``, the old spelling of :data:`EnginesOpt`, still accepted (hidden from help).
EnginesAliasOpt = Annotated[
    str | None, typer.Option("--engines", hidden=True, help="Same as --engine."),
]
CheckerOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--checker", metavar="NAME",
        help="Proof checker. auto (default): nonosat-lrat, the project's own LRAT checker, on "
        "proof.lrat, plus the check that proof.lrat is the LRAT form of proof.drat; then "
        "drat-trim and cake_lpr when found. nonosat-lrat: that check alone. dratify: also runs "
        "the default check (dratify is not sound on deletions). drat-trim: the DRAT proof. "
        "cake_lpr: the formally verified CakeML checker, on proof.lrat, with the agreement "
        "check. all: the four (drat-trim and cake_lpr required). Repeatable.",
    ),
]
CheckerPathOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--checker-path", metavar="DIR",
        help=f"Directory holding drat-trim / cake_lpr executables, searched before PATH (also "
        f"${ENV_CHECKER_PATH}). Repeatable.",
    ),
]
JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", min=1, metavar="N",
                 help="Local worker processes (default: all cores)."),
]
TaaiOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--taai-out", metavar="FILE",
        help="Also write the solutions as a tournament solution file ($N, then N rows of "
        "TAB-separated 0/1, as nonosolve -o writes; all 0 where none was found); "
        "'nonosat verify --results FILE' reads it back.",
    ),
]


StateOpt = Annotated[
    Path | None,
    typer.Option(
        "--state", metavar="FILE",
        help="Partial grid: a text file, one row per line, '#' filled, '.' empty, '?' unknown "
        "(colour puzzles: the palette's characters, '.' background, '?' unknown). "
        "Default: the givens the puzzle file holds (webpbn XML, JSON), if any.",
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option("--force", help="Replace what the command writes (files, directories) when "
                 "it exists; never done without --force."),
]
LimitOpt = Annotated[
    int,
    typer.Option(
        "--limit", "-n", min=1, metavar="N",
        help="Look for up to N solutions (2 decides uniqueness, 1 = first only; with more, the "
        "count found is printed).",
    ),
]
DepthOpt = Annotated[
    int | None,
    typer.Option("--depth", min=1, metavar="N",
                 help="Implication graph traversal depth (default: unlimited)."),
]
SatSolverOpt = Annotated[
    str | None,
    typer.Option("--sat-solver", metavar="NAME",
                 help="PySAT solver for the SAT engine; certify: one that logs DRAT proofs "
                 "(default: Cadical195)."),
]
EncodingOpt = Annotated[
    str | None,
    typer.Option("--encoding", metavar="NAME",
                 help="CNF line encoding: order, regular, dfa (default: order)."),
]


def out_param(what: str, required: bool = False) -> OptionInfo:
    """The ``--out/-o`` option, for its ``Annotated`` type: where a command writes (``what``:
    its help): ``Annotated[Path, out_param(what, required=True)]`` (no default shown) or
    ``Annotated[Path | None, out_param(what)]``."""
    if required:
        return typer.Option("--out", "-o", help=what, show_default=False)
    return typer.Option("--out", "-o", help=what)


def use_checker_path(dirs: list[Path] | None) -> None:
    """Put ``--checker-path`` directories first in ``$NONOSAT_CHECKER_PATH`` (read by
    :func:`nonosat.certificates.checker_executable`)."""
    if dirs:
        old = os.environ.get(ENV_CHECKER_PATH)
        parts = [str(d) for d in dirs] + ([old] if old else [])
        os.environ[ENV_CHECKER_PATH] = os.pathsep.join(parts)


def engine_list(value: str | None, default: str = "native,sat,cpsat",
                alias: str | None = None) -> list[str]:
    """The engines of ``--engine NAME[,NAME...]`` (or its old spelling ``--engines``, ``alias``;
    blank entries dropped).

    Raises
    ------
    EngineError
        ``--engine`` and ``--engines`` both given.
    """
    if value is not None and alias is not None:
        from nonosat.errors import EngineError

        raise EngineError("give --engine once (--engines is its old spelling)")
    chosen = value if value is not None else alias
    return [n.strip() for n in (chosen or default).split(",") if n.strip()]
