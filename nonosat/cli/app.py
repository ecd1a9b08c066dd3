"""The typer application: registers every command module.

Each command lives in a module of its own under :mod:`nonosat.cli`; this file only wires them,
with one help style (:class:`nonosat.cli.click_style.NonosatCommand`), ``-h`` as well as ``--help``,
``--version``, and an exit-code footer per command that lists the codes *that* command returns.

Start-up: the command modules import only typer and the shared light modules of
:mod:`nonosat.cli` (options, output, exits, inputs, running) at module level;
numpy, numba, PySAT, OR-Tools, networkx and Pillow are imported inside the command functions, so
``nonosat --help`` and every ``nonosat CMD --help`` stay light (``tests/test_startup.py``).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Annotated, Any

from nonosat.cli import signals

if os.path.basename(sys.argv[0]) == "nonosat":  # the console script: Ctrl-C handled from here on
    signals.install()

import typer  # noqa: E402 - after the handlers, which must cover its import too

from nonosat import __version__
from nonosat.cli.click_style import NonosatCommand, NonosatGroup
from nonosat.cli.exits import EXIT_CODES_HELP

CONTEXT = {"help_option_names": ["-h", "--help"]}

_VERDICT = {
    0: "unique solution (or solved, with --limit 1)",
    1: "several solutions",
    2: "usage error or bad input",
    3: "no solution",
    4: "gave up before deciding (time limit)",
}
_BAD = {2: "usage error or bad input"}
_INTERRUPTED = {130: "interrupted (Ctrl-C)", 143: "terminated (SIGTERM)"}

#: The exit codes each command returns, and what they mean for it (its help footer).
EXIT_CODES: dict[str, dict[int, str]] = {
    "solve": _VERDICT | _INTERRUPTED,
    "crosscheck": {
        0: "every engine agrees on every puzzle",
        1: "a disagreement, an invalid solution or a solution contradicting the file's goal",
        2: "usage error or bad input (also: a file in a directory could not be read; the "
           "others are checked)",
        4: "an engine gave up (time limit) and the others agree",
        130: "interrupted (Ctrl-C): the table so far is printed; 1 instead if it has findings",
        143: "terminated (SIGTERM), as for 130",
    },
    "batch": {
        0: "every puzzle got a verdict",
        1: "a disagreement or an invalid solution",
        **_BAD,
        4: "a puzzle timed out, crashed or got no verdict",
        **_INTERRUPTED,
    },
    "convert": {0: "written", **_BAD, **_INTERRUPTED},
    "formats": {0: "listed", **_INTERRUPTED},
    "render": {
        0: "drawn (with --solution: unique solution)",
        1: "with --solution: several solutions",
        **_BAD,
        3: "with --solution: no solution",
        4: "with --solution: gave up before deciding",
        **_INTERRUPTED,
    },
    "certify": {
        0: "certified: unique solution, proof checked",
        1: "several solutions (a witness certificate written: two solutions), or a proof that "
           "failed its check",
        **_BAD,
        3: "no solution (proof of unsatisfiability checked)",
        4: "gave up before deciding (time limit)",
        5: "--prover native on a unique (or unsolvable) puzzle the native solver decides only "
           "by search",
        **_INTERRUPTED,
    },
    "verify-certificate": {
        0: "the certificate checks: unique solution",
        1: "the certificate checks and says several solutions, or anything fails",
        **_BAD,
        3: "the certificate checks and says no solution",
        **_INTERRUPTED,
    },
    "encode": {0: "written", **_BAD, **_INTERRUPTED},
    "verify": {
        0: "every answer holds",
        1: "an answer is refuted (witness written)",
        **_BAD,
        4: "an answer is undecided within --timeout",
        **_INTERRUPTED,
    },
    "analyse": _VERDICT | _INTERRUPTED,
    "hint": {
        0: "a hint, a solved grid, or a unique puzzle that needs a guess here",
        1: "a mistake in --state, or a guess is needed because the puzzle has several solutions",
        **_BAD,
        3: "no solution",
        4: "no deduction, and the engine did not decide within --timeout",
        **_INTERRUPTED,
    },
    "explain": {
        0: "explained to the unique solution (past guesses when needed)",
        1: "several solutions: explained to each of the first two",
        **_BAD,
        3: "no solution",
        4: "--timeout or --max-steps stopped the explanation first",
        **_INTERRUPTED,
    },
    "studio": {2: "bad PATH, or the port is in use", 130: "stopped (Ctrl-C)",
               143: "stopped (SIGTERM)"},
    "generate": {
        0: "written: unique (and the target grade reached)",
        1: "written, but not unique or the grade not reached (--max-changes, no draw)",
        **_BAD,
        4: "written, but the time limit stopped the search first",
        **_INTERRUPTED,
    },
}


def exit_codes_epilog(command: str) -> str:
    """The help footer of ``command``: its exit codes, one per line."""
    import textwrap

    lines = []
    for code, meaning in EXIT_CODES[command].items():
        lines += textwrap.wrap(meaning, 78, initial_indent=f"  {code:<3} ",
                               subsequent_indent=" " * 6)
    return "\b\nExit codes:\n" + "\n".join(lines)


#: Command name -> (module, function, where its help is: ``None`` for the module's docstring,
#: ``"func"`` for the function's, else an attribute of the module).
COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "solve": ("nonosat.cli.solve", "solve_command", None),
    "crosscheck": ("nonosat.cli.crosscheck", "crosscheck_command", None),
    "batch": ("nonosat.cli.batch", "batch_command", None),
    "convert": ("nonosat.cli.convert", "convert_command", None),
    "formats": ("nonosat.cli.convert", "formats_command", "func"),
    "render": ("nonosat.cli.render", "render_command", None),
    "certify": ("nonosat.cli.certify", "certify_command", None),
    "verify-certificate": ("nonosat.cli.certify", "verify_command", "VERIFY_HELP"),
    "encode": ("nonosat.cli.encode", "encode_command", None),
    "verify": ("nonosat.cli.verify", "verify_command", None),
    "analyse": ("nonosat.cli.analyse", "analyse_command", None),
    "hint": ("nonosat.cli.hint", "hint_command", None),
    "explain": ("nonosat.cli.explain", "explain_command", None),
    "studio": ("nonosat.cli.studio", "studio_command", None),
    "generate": ("nonosat.cli.generate", "generate_command", None),
}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nonosat {__version__}")
        raise typer.Exit(0)


def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Nonogram solver and uniqueness certifier."""


def build_app(only: str | None = None) -> typer.Typer:
    """The ``nonosat`` typer application with every command of :data:`COMMANDS`, or with the
    command ``only`` (importing only its module: ``nonosat solve`` does not import the other
    command modules)."""
    application = typer.Typer(
        name="nonosat",
        help=(
            "Nonogram solver and uniqueness certifier.\n\n"
            "Solve puzzles with a native line solver + search, a CNF encoding (PySAT/CaDiCaL) "
            "or OR-Tools CP-SAT; certify uniqueness with checked DRAT proofs; cross-check "
            "engines; analyse difficulty.  'nonosat COMMAND -h' shows a command's options and "
            "exit codes."
        ),
        epilog=EXIT_CODES_HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings=CONTEXT,
        cls=NonosatGroup,
    )
    application.callback()(_main)
    for name, (module_name, function, help_at) in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(module_name)
        func = getattr(module, function)
        if help_at is None:
            help_text = module.__doc__
        elif help_at == "func":
            help_text = func.__doc__
        else:
            help_text = getattr(module, help_at)
        application.command(
            name, help=help_text, epilog=exit_codes_epilog(name), cls=NonosatCommand,
            context_settings=CONTEXT,
        )(func)
    return application


_APP: typer.Typer | None = None


def __getattr__(name: str) -> Any:
    """``nonosat.cli.app.app``: the application with every command, built on first use."""
    global _APP
    if name == "app":
        if _APP is None:
            _APP = build_app()
        return _APP
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point (also ``python -m nonosat``, named ``nonosat`` in help).

    ``nonosat CMD ...`` builds the application with that command alone, so a run imports one
    command module; anything else (``nonosat``, ``--help``, ``--version``, an unknown command)
    gets every command.

    Ctrl-C and ``SIGTERM`` are handled from the first line on (:mod:`nonosat.cli.signals`): an
    interrupted run ends with exit 130 or 143 (1 for a crosscheck with real findings), without a
    traceback, whatever it was doing."""
    from nonosat import interrupts

    signals.install()
    code: Any = 0
    try:
        try:
            signals.arm()
            argv = sys.argv[1:]
            only = argv[0] if argv and argv[0] in COMMANDS else None
            from nonosat.cli import running

            running.HARD_TIME_LIMIT = True  # a nonosat process: the time limit is also a hard stop
            build_app(only)(prog_name="nonosat")
        finally:
            signals.disarm()
    except SystemExit as exc:
        code = exc.code
    except BaseException:
        if not interrupts.requested():
            raise
        code = 1
    if interrupts.requested():
        signals.finish(code)
    signals.ignore()  # the command is done: a signal now must not kill the exiting interpreter
    if interrupts.requested():  # one arrived in between
        signals.finish(code)
    _exit(code)


def _exit(code: Any) -> None:
    """End the process with ``code`` (as ``sys.exit``), without the interpreter's tear-down when
    numba is loaded (:func:`nonosat.quick_exit.leave`: 0.1-0.2 s CPU of a ``nonosat solve``
    that loaded a kernel)."""
    from nonosat.quick_exit import leave

    leave(code)
    sys.exit(code)


if __name__ == "__main__":
    main()
