"""What every command shares: exit codes, the puzzle argument and options, error handling, JSON.

Exit codes (documented in ``nonosat --help`` and the README):

====  =========================================================
0     unique solution (or the command succeeded)
1     several solutions / a check failed (disagreement, invalid proof or solution)
2     usage error or bad input (malformed file, clues that cannot fit, unknown format)
3     no solution
4     gave up (time or node limit) before deciding
130   interrupted (Ctrl-C, SIGINT)
143   terminated (SIGTERM)
====  =========================================================
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import typer
from typer.core import TyperCommand, TyperGroup

from nonosat import interrupts
from nonosat.cli import signals

# The shared options and arguments live in nonosat.cli.options (one definition each); these
# names stay importable from here.
from nonosat.cli.options import (
    BriefOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    TimeoutOpt,
    command_timeout,
)
from nonosat.engines import Status
from nonosat.errors import NonosatError, one_line
from nonosat.limits import command_workload, workload

__all__ = ["BriefOpt", "FormatOpt", "IndexOpt", "JsonOpt", "PuzzleArg", "TimeoutOpt"]

if TYPE_CHECKING:
    import numpy as np

    from nonosat.puzzle import Puzzle

EXIT_OK = 0
EXIT_MULTIPLE = 1
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_NONE = 3
EXIT_GAVE_UP = 4
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

EXIT_CODES_HELP = (
    "Exit codes: 0 unique (or success), 1 multiple solutions or a failed check, "
    "2 usage error or bad input, 3 no solution, 4 gave up (time limit), 130 interrupted "
    "(Ctrl-C), 143 terminated (SIGTERM).  Each command's help lists the codes it returns."
)

STATUS_EXIT = {
    Status.UNIQUE: EXIT_OK,
    Status.SOLVED: EXIT_OK,
    Status.MULTIPLE: EXIT_MULTIPLE,
    Status.NONE: EXIT_NONE,
    Status.UNKNOWN: EXIT_GAVE_UP,
}

F = TypeVar("F", bound=Callable[..., Any])

#: Metavars of options and arguments that name none, by parameter name (else by type, below):
#: one style (upper case, no ``<type>``) in every command's help.
_METAVARS = {
    "cert_dir": "DIR", "out": "FILE", "paths": "PATH", "puzzle_paths": "PUZZLE",
    "puzzles": "PUZZLE", "scheduler": "ADDRESS", "jobs": "N", "cell": "PIXELS",
    "depth": "N", "limit": "N", "max_steps": "N", "memory_limit": "MIB", "timeout": "SECONDS",
}
#: click's ranges in help ("x>=0.0", "1<=x<=9"): the help texts say the bounds in words.
_RANGE = re.compile(r"(?:; )?(?:-?[\d.]+<=?x(?:<=?-?[\d.]+)?|x[<>]=?-?[\d.]+)(?=[;\]])")
_TYPE_METAVARS = {"path": "FILE", "int": "N", "float": "X", "str": "NAME"}
_PROSE_DEFAULT = re.compile(r"\s*[(;]\s*default:?\s+([^)]*?)\)\s*(?=\.|$)|\s*Default:\s+([^.]*)\.\s*$")


def _click_exceptions() -> Any:
    """The module of the click exceptions typer raises (typer 0.29 vendors click)."""
    try:
        from typer._click import exceptions
    except ImportError:  # a typer that uses click itself
        from click import exceptions  # type: ignore[no-redef]
    return exceptions


def _usage_one_line(error: Any) -> None:
    """``show`` of a click usage error, on one line: ``nonosat: error: MESSAGE (try 'nonosat
    CMD -h')`` instead of click's usage, hint and error lines."""
    click = _click_exceptions()
    ctx = getattr(error, "ctx", None)
    plain = isinstance(error, click.BadParameter) and not isinstance(
        error, click.MissingParameter)
    message = error.message if plain else error.format_message()
    param = getattr(error, "param", None)
    if plain:
        name = param.opts[0] if param is not None and param.opts else (
            error.param_hint if isinstance(error.param_hint, str) else None)
        if param is not None and param.param_type_name == "argument":
            name = _argument_name(param)
        message = f"{name}: {message}" if name else message
    message = message.rstrip(".")
    where = f" (try '{ctx.command_path} -h')" if ctx is not None else ""
    typer.echo(f"nonosat: error: {one_line(message)}{where}", err=True)


def _one_line_errors(call: Callable[[], Any]) -> Any:
    """Run ``call``; a click usage error raised in it shows itself on one line."""
    click = _click_exceptions()
    try:
        return call()
    except click.UsageError as error:
        if type(error).__name__ != "NoArgsIsHelpError":  # that one shows the help, as it should
            error.show = lambda file=None, _e=error: _usage_one_line(_e)  # type: ignore
        raise


class NonosatCommand(TyperCommand):
    """The click command class of every nonosat command: one help style everywhere.

    Arguments are shown as ``PUZZLE`` (``[NAME]`` when optional, ``NAME...`` for several), never
    as typer's ``{name}`` or ``<path>``; options without a metavar get one from the parameter
    name or its type (``FILE``, ``N``, ``NAME``) instead of ``<str>`` / ``<list[Path]>``; a
    default written in the help text ("(default: X)") moves into the ``[default: X]`` bracket
    typer uses for the others.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            lighten(param)
            if getattr(param, "is_flag", False) or getattr(param, "count", False):
                continue
            if param.metavar is None:
                desc = getattr(param, "type_descriptor", None)
                kind = "str"
                if desc is not None:
                    kind = "path" if desc.is_path else getattr(
                        desc.annotation if not desc.is_list else str, "__name__", "str"
                    )
                    if desc.is_list and desc.is_path:
                        kind = "path"
                metavar = _METAVARS.get(param.name or "", _TYPE_METAVARS.get(kind, "VALUE"))
                if kind == "path" and "director" in (getattr(param, "help", "") or ""):
                    metavar = "DIR"
                param.metavar = metavar
                if param.param_type_name == "argument" and param.name not in _METAVARS:
                    param.metavar = (param.name or "value").upper()
            help_text = getattr(param, "help", None)
            if help_text:
                match = _PROSE_DEFAULT.search(help_text)
                if match:
                    param.help = (help_text[: match.start()] + help_text[match.end():]).rstrip()
                    if not param.help.endswith("."):
                        param.help += "."
                    if param.default is None or param.default is False:  # else typer shows it
                        param._prose_default = (  # type: ignore[attr-defined]
                            (match.group(1) or match.group(2)).strip()
                        )

    def get_help_option(self, ctx: Any) -> Any:
        """The ``-h``/``--help`` option, coerced without pydantic like the others."""
        option = super().get_help_option(ctx)
        if option is not None:
            lighten(option)
        return option

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """Click's, with usage errors on one line (:func:`_usage_one_line`)."""
        return _one_line_errors(lambda: super(NonosatCommand, self).make_context(*args, **kwargs))

    def invoke(self, ctx: Any) -> Any:
        """Click's, with usage errors (``typer.BadParameter`` of a command) on one line."""
        return _one_line_errors(lambda: super(NonosatCommand, self).invoke(ctx))

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:
        """``[OPTIONS] PUZZLE`` rather than typer's ``[OPTIONS] {PUZZLE}``."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(_argument_name(param, usage=True))
        return pieces

    def format_options(self, ctx: typer.Context, formatter: Any) -> None:
        """Arguments and options as typer lays them out, in the one style above."""
        args, opts = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            name, text = record
            text = _RANGE.sub("", text).replace("  []", "").replace("[; ", "[")
            default = getattr(param, "_prose_default", None)
            if default:
                if text.endswith("]") and "  [" in text:
                    head, _, extra = text.rpartition("  [")
                    text = f"{head}  [default: {default}; {extra}"
                else:
                    text = f"{text}  [default: {default}]"
            if param.param_type_name == "argument":
                args.append((_argument_name(param), text))
            else:
                opts.append((name, text))
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


class NonosatGroup(TyperGroup):
    """The ``nonosat`` group: its own options (``--version``) coerced without pydantic too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            lighten(param)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """Click's, with usage errors on one line (:func:`_usage_one_line`)."""
        return _one_line_errors(lambda: super(NonosatGroup, self).make_context(*args, **kwargs))

    def invoke(self, ctx: Any) -> Any:
        """Click's, with usage errors (unknown command, a command's) on one line."""
        return _one_line_errors(lambda: super(NonosatGroup, self).invoke(ctx))

    def get_help_option(self, ctx: Any) -> Any:
        """The ``-h``/``--help`` option, coerced without pydantic like the others."""
        option = super().get_help_option(ctx)
        if option is not None:
            lighten(option)
        return option


_PLAIN = {str, int, float, bool, Path}


class _PlainCoercion:
    """Coercion of a plain ``str``/``int``/``float``/``bool``/``Path`` parameter (or a list of
    them) without building typer's pydantic ``TypeAdapter``: importing pydantic costs about a
    third of ``nonosat --help``'s time.  Same results and ranges (``min``/``max``) as typer's."""

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        if multi:
            if isinstance(value, str):
                raise typer.BadParameter("Value must be an iterable.", ctx=ctx, param=param)
            return [self._one(item, param, ctx) for item in value]
        return self._one(value, param, ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        kind = self.kind
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            result = value
        elif kind is bool:
            text = str(value).strip().lower()
            if text not in ("1", "0", "true", "false", "yes", "no", "on", "off", "y", "n"):
                raise typer.BadParameter(f"{value!r} is not a valid boolean.", ctx=ctx, param=param)
            result = text in ("1", "true", "yes", "on", "y")
        else:
            try:
                result = kind(value)
            except (TypeError, ValueError):
                noun = {int: "an integer", float: "a number"}.get(kind, kind.__name__)
                raise typer.BadParameter(
                    f"{value!r} is not {noun}.", ctx=ctx, param=param
                ) from None
        low, high = getattr(param, "min", None), getattr(param, "max", None)
        if kind in (int, float) and (
            (low is not None and result < low) or (high is not None and result > high)
        ):
            if low is not None and result < low:
                bound = f"at least {low:g}"
            else:
                bound = f"at most {high:g}"
            raise typer.BadParameter(f"must be {bound} (got {value})", ctx=ctx, param=param)
        return result


def lighten(param: Any) -> None:
    """Give a typer parameter of a plain type :class:`_PlainCoercion` instead of typer's
    pydantic coercion; parameters with path checks, parsers, choices or files keep typer's."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or desc.file_annotation is not None or desc.is_choice or desc.is_tuple:
        return
    info = desc.parameter_info
    if info.parser is not None or getattr(info, "clamp", False):
        return
    kind = desc.annotation
    if desc.is_list:
        from typing import get_args

        kind = (get_args(kind) or (None,))[0]
    if kind not in _PLAIN:
        return
    if kind is Path and (
        info.exists or info.resolve_path or info.allow_dash or info.writable
        or not info.file_okay or not info.dir_okay or info.path_type is not None
    ):
        return
    param._runtime_param = _PlainCoercion(kind)


def _argument_name(param: Any, usage: bool = False) -> str:
    name = param.metavar or (param.name or "value").upper()
    if param.nargs != 1:
        name += "..."
    if usage and not param.required:
        name = f"[{name}]"
    return name


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print ``nonosat: error: message`` on stderr and return the :class:`typer.Exit` to raise."""
    typer.echo(f"nonosat: error: {one_line(message)}", err=True)
    return typer.Exit(code)


#: Set by :func:`nonosat.cli.app.main` (a real ``nonosat`` process, not a command run
#: in-process by tests): the time limit is then also enforced by :func:`_watchdog`.
HARD_TIME_LIMIT = False

#: Commands whose whole run the watchdog bounds, by ``module.function``: how many times the
#: ``--timeout`` the command may use by design (stages that each get the limit: render's
#: ambiguity witnesses after the solve, the checkers of verify-certificate one after another;
#: analyse's sections share one deadline, :func:`nonosat.analysis.difficulty.analyse`).
#: Commands not listed (crosscheck: the
#: limit is per puzzle and engine) are not bounded as a whole.
HARD_STOP_STAGES = {
    "nonosat.cli.solve.solve_command": 1,
    "nonosat.cli.hint.hint_command": 1,
    "nonosat.cli.explain.explain_command": 1,
    "nonosat.cli.certify.certify_command": 1,
    "nonosat.cli.certify.verify_command": 3,
    "nonosat.cli.render.render_command": 2,
    "nonosat.cli.verify.verify_command": 2,
    "nonosat.cli.analyse.analyse_command": 1,
}


#: Set by a command that can report what it finished (``analyse``): called by :func:`_watchdog`
#: before it ends the process, its text (if any) is printed on stdout first, so that an overrun
#: keeps the finished part of the command's output.
OVERRUN_REPORT: Callable[[], str | None] | None = None


#: Seconds the running command spent on work its time limit does not count (loading the
#: engine's compiled kernels and libraries, reading the puzzle: :func:`excuse`); the watchdog
#: grants them on top of the limit before it stops the process.
_EXCUSED = [0.0]


def excuse(seconds: float) -> None:
    """Tell the watchdog (:func:`_watchdog`) that ``seconds`` of the command's time went to work
    its time limit does not count (loading an engine), so that it stops the process that much
    later."""
    _EXCUSED[0] += max(seconds, 0.0)


#: Command name of each command function (``module.function``), for its ``--timeout`` default
#: (:data:`nonosat.cli.options.TIMEOUT_DEFAULTS`).
COMMAND_NAMES = {
    "nonosat.cli.solve.solve_command": "solve",
    "nonosat.cli.hint.hint_command": "hint",
    "nonosat.cli.explain.explain_command": "explain",
    "nonosat.cli.certify.certify_command": "certify",
    "nonosat.cli.certify.verify_command": "verify-certificate",
    "nonosat.cli.render.render_command": "render",
    "nonosat.cli.verify.verify_command": "verify",
    "nonosat.cli.analyse.analyse_command": "analyse",
    "nonosat.cli.crosscheck.crosscheck_command": "crosscheck",
    "nonosat.cli.batch.batch_command": "batch",
    "nonosat.cli.generate.generate_command": "generate",
}


def _watchdog(limit: float) -> Any:
    """A daemon timer that ends the process with exit 4 and one line on stderr when the command
    is still running ``max(5, limit / 4)`` seconds past ``limit`` seconds (its time limit times
    its :data:`HARD_STOP_STAGES`): a compiled step that cannot be interrupted (one root node of
    native probing on a random 1000x1000 grid ran for minutes past a 5 s limit) must not run
    without bound.  The compiled kernels release the GIL, so the timer thread runs while they
    do."""
    import os
    import threading

    grace = max(5.0, limit / 4)
    _EXCUSED[0] = 0.0
    granted = [0.0]

    def overrun() -> None:
        extra = _EXCUSED[0] - granted[0]
        if extra > 0.01:  # time the limit does not count (loading): allow it, then look again
            granted[0] += extra
            again = threading.Timer(extra, overrun)
            again.daemon = True
            again.start()
            timers.append(again)
            return
        try:
            report = None
            if OVERRUN_REPORT is not None:
                try:
                    report = OVERRUN_REPORT()
                except Exception:  # noqa: BLE001 - the error line below is what matters
                    report = None
            if report:
                sys.stdout.write(report + "\n")
                sys.stdout.flush()
            sys.stderr.write(
                f"nonosat: error: gave up: still running {grace:g} s past the time limit of "
                f"{limit:g} s (raise it with --timeout or NONOSAT_TIMEOUT; 0 = none)\n"
            )
            sys.stderr.flush()
        finally:
            os._exit(EXIT_GAVE_UP)

    timers: list[Any] = []
    timer = threading.Timer(limit + grace, overrun)
    timer.daemon = True
    timer.start()
    timers.append(timer)
    return _Timers(timers)


class _Timers:
    """The watchdog's timers (the first, and those re-armed for excused time): ``cancel`` stops
    them all."""

    def __init__(self, timers: list[Any]) -> None:
        self.timers = timers

    def cancel(self) -> None:
        for timer in list(self.timers):
            timer.cancel()


def handle_errors(func: F) -> F:
    """Decorator for commands: a :class:`NonosatError` becomes one line on stderr and exit 2,
    never a traceback.  ``KeyboardInterrupt`` (and :class:`nonosat.interrupts.Interrupted`)
    exits 130 (143 after ``SIGTERM``), as does any error raised after an interrupt.  A
    ``timeout`` not given takes the default of :func:`nonosat.limits.default_timeout` (``0``: none), in a ``nonosat`` process
    enforced by :func:`_watchdog` as well, and the memory estimate checks the command's kind of
    work (:func:`nonosat.limits.command_workload`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global OVERRUN_REPORT
        timer = None
        WARNINGS.clear()
        OVERRUN_REPORT = None
        from nonosat.cli.output import start_clock

        start_clock()
        try:
            command = COMMAND_NAMES.get(f"{func.__module__}.{func.__name__}")
            if "timeout" in kwargs and command is not None:
                if kwargs.get("results"):
                    command = "verify --results"
                kwargs["timeout"] = command_timeout(kwargs["timeout"], command)
                stages = HARD_STOP_STAGES.get(f"{func.__module__}.{func.__name__}")
                if HARD_TIME_LIMIT and stages and kwargs["timeout"] is not None \
                        and command != "verify --results":
                    timer = _watchdog(stages * kwargs["timeout"])
            with workload(command_workload(func.__name__, kwargs)):
                return func(*args, **kwargs)
        except (typer.Exit, click.exceptions.ClickException, click.exceptions.Abort):
            raise
        except KeyboardInterrupt as exc:  # also nonosat.interrupts.Interrupted
            signals.announce()
            raise typer.Exit(getattr(exc, "exit_code", EXIT_INTERRUPTED)) from None
        except Exception as exc:
            if interrupts.requested():  # whatever failed on the way out of an interrupt
                signals.announce()
                raise typer.Exit(128 + interrupts.requested()) from None
            if isinstance(exc, NonosatError):
                raise fail(str(exc)) from None
            raise
        finally:
            if timer is not None:
                timer.cancel()

    return wrapper  # type: ignore[return-value]


def announce_compile(colour: bool = False) -> None:
    """Say on stderr that the numba kernels are being compiled when they are not cached yet, so a
    first run does not appear to hang (later runs load them from the cache).  ``colour``: the
    colour kernels (:mod:`nonosat.native.colour`) instead of the black-and-white ones, which are
    the native search kernel and the kernels a hand-off to SAT compiles (the order encoding's
    build and the belief-propagation phases)."""
    if colour:
        from nonosat.native.colour import colour_kernels_cached as kernels_cached

        cached = kernels_cached()
    else:
        from nonosat.encodings import cnf_order, phases
        from nonosat.native.search import kernels_cached

        cached = kernels_cached() and all(
            _dispatcher_cached(k) for k in (cnf_order.order_puzzle_kernel, phases._bp,
                                            phases._start_phase_lits))
    if not cached:
        typer.echo(
            "nonosat: compiling the solver kernels (first run only; cached afterwards) ...",
            err=True,
        )


def _dispatcher_cached(dispatcher: Any) -> bool:
    """Whether numba's on-disk cache holds ``dispatcher`` (an ``njit(cache=True)`` function) for
    its current source, by reading the cache's index where numba will look for it; True when
    numba's cache internals are not as expected (then nothing is announced)."""
    import os

    try:
        cache_file = dispatcher._cache._cache_file
        return os.path.exists(cache_file._index_path) and bool(cache_file._load_index())
    except Exception:
        return True


def split_puzzle_ref(path: Path, index: int | None = None) -> tuple[Path, int | None]:
    """``(file, number)`` for a puzzle argument: ``FILE#N`` (the name nonosat gives puzzle N of a
    multi-puzzle file, in tables, JSON and batch results) when ``FILE`` exists and no file is
    literally called ``FILE#N``; else ``(path, index)``.

    Raises
    ------
    FormatError
        ``FILE#N`` together with a different ``--index``.
    """
    from nonosat.errors import FormatError

    head, sep, tail = str(path).rpartition("#")
    if not sep or not tail.isdigit() or path.exists() or not Path(head).is_file():
        return path, index
    if index is not None and index != int(tail):
        raise FormatError(str(path), None, f"names puzzle {tail}, but --index says {index}")
    return Path(head), int(tail)


def read_state(path: Path, puzzle: Puzzle) -> np.ndarray:
    """Grid state from a text picture with ``?`` for unknown cells; for a colour puzzle, rows of
    the palette's characters (int32 colour bit masks).

    Raises
    ------
    FormatError
        Unreadable file, unknown character or wrong shape (names the file).
    """
    from nonosat.errors import FormatError, PuzzleError
    from nonosat.limits import size_limits
    from nonosat.puzzle import grid_from_rows
    from nonosat.safe_io import read_bounded

    try:
        rows = read_bounded(path, size_limits().max_file_bytes, "state file").decode().splitlines()
    except UnicodeDecodeError as exc:
        raise FormatError(str(path), None, str(exc)) from None
    if puzzle.palette is not None:
        return _colour_state(rows, puzzle, str(path))
    try:
        return grid_from_rows([r for r in rows if r.strip()], puzzle.shape)
    except PuzzleError as exc:
        raise FormatError(str(path), None, str(exc)) from None


def _colour_state(rows: list[str], puzzle: Puzzle, path: str) -> np.ndarray:
    """Colour grid state (int32 bit masks) from rows of palette characters, ``?`` unknown."""
    import numpy as np

    from nonosat.errors import FormatError

    assert puzzle.palette is not None
    chars = {ch: 1 << k for k, ch in enumerate(puzzle.palette.chars)}
    chars.setdefault(".", 1)  # the background, whatever its own character
    chars["?"] = (1 << len(puzzle.palette)) - 1
    numbered = [(k, r.rstrip("\r\n")) for k, r in enumerate(rows, start=1) if r.strip()]
    if len(numbered) != puzzle.height:
        raise FormatError(path, None, f"grid has {len(numbered)} rows, expected {puzzle.height}")
    grid = np.empty(puzzle.shape, dtype=np.int32)
    for i, (line, text) in enumerate(numbered):
        if len(text) != puzzle.width:
            raise FormatError(path, line, f"row has {len(text)} cells, expected {puzzle.width}")
        for j, ch in enumerate(text):
            if ch not in chars:
                raise FormatError(
                    path, line, f"column {j + 1}: {ch!r} is no colour of the palette "
                    f"({puzzle.palette.chars}) nor '?'"
                )
            grid[i, j] = chars[ch]
    return grid


#: The warnings said on stderr while the command runs (:func:`warn`); :func:`print_json` adds
#: them to the command's JSON object as ``"warnings"``.  Emptied when a command starts
#: (:func:`handle_errors`).
WARNINGS: list[str] = []


def warn(message: str) -> None:
    """Say ``nonosat: warning: message`` (one line) on stderr and keep it for the JSON output."""
    text = one_line(message)
    WARNINGS.append(text)
    typer.echo(f"nonosat: warning: {text}", err=True)


def goal_problem(puzzle: Puzzle) -> str | None:
    """Why the goal picture stored with ``puzzle`` (``puzzle.goal``) does not satisfy its clues:
    how many lines break their clue and the first of them; ``None`` without a goal or when it
    is a solution."""
    from nonosat.errors import PuzzleError
    from nonosat.puzzle import clue_text, colour_clue_text

    if puzzle.goal is None:
        return None
    try:
        errors = puzzle.line_errors(puzzle.goal)
    except PuzzleError as exc:
        return str(exc)
    if not errors:
        return None
    line, expected, actual = errors[0]
    if puzzle.palette is not None:
        want, got = (colour_clue_text(*expected, puzzle.palette),
                     colour_clue_text(*actual, puzzle.palette))
    else:
        want, got = clue_text(expected), clue_text(actual)
    n = len(errors)
    lines = "1 line breaks its clue" if n == 1 else f"{n} lines break their clue"
    return f"{lines} (first: {puzzle.line_name(line)} should be {want} but the picture has {got})"


def read_puzzle(path: Path, format: str | None = None, index: int | None = None) -> Puzzle:
    """:func:`nonosat.formats.read_puzzle`, for the commands that use a puzzle's stored solution
    (its goal picture): a goal that contradicts the clues is a warning (:func:`warn`, naming
    the file and the first line it breaks), as ``nonosat crosscheck`` flags it."""
    from nonosat.formats import read_puzzle as read
    from nonosat.text import printable

    puzzle = read(path, format, index)
    problem = goal_problem(puzzle)
    if problem is not None:
        name = printable(str(path)) + (f"#{index}" if index is not None else "")
        warn(f"{name}: the solution stored in the file (its goal picture) contradicts the "
             f"clues: {problem}")
    return puzzle


def print_json(obj: Any) -> None:
    """Print ``obj`` as one line of JSON on stdout (with ``"warnings"``, the command's
    :data:`WARNINGS`, added to an object when there are any)."""
    if WARNINGS and isinstance(obj, dict) and "warnings" not in obj:
        obj = {**obj, "warnings": list(WARNINGS)}
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def load_puzzle(path: Path, format: str | None = None,
                index: int | None = None) -> tuple[Puzzle, str]:
    """The puzzle a command's ``PUZZLE`` argument (``FILE`` or ``FILE#N``, with ``--format`` and
    ``--index``) names, and the name nonosat prints for it (``FILE``, or ``FILE#N`` for puzzle N
    of a multi-puzzle file): :func:`split_puzzle_ref`, then :func:`read_puzzle` (a goal that
    contradicts the clues is a warning).

    Raises
    ------
    FormatError
        As :func:`split_puzzle_ref` and :func:`nonosat.formats.read_puzzle`.
    """
    path, index = split_puzzle_ref(path, index)
    return read_puzzle(path, format, index), str(path) + (f"#{index}" if index is not None else "")
