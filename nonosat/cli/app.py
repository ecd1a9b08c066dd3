"""The typer application: registers every command module.

Each command lives in a module of its own under :mod:`nonosat.cli`; this file only wires them,
with one help style (:class:`nonosat.cli.common.NonosatCommand`), ``-h`` as well as ``--help``,
``--version``, and an exit-code footer per command that lists the codes *that* command returns.

Start-up: the command modules import only typer and :mod:`nonosat.cli.common` at module level;
numpy, numba, PySAT, OR-Tools, networkx and Pillow are imported inside the command functions, so
``nonosat --help`` and every ``nonosat CMD --help`` stay light (``tests/test_startup.py``).
"""

from __future__ import annotations

from typing import Annotated

import typer

from nonosat import __version__
from nonosat.cli import (
    analyse,
    batch,
    certify,
    convert,
    crosscheck,
    encode,
    explain,
    hint,
    render,
    solve,
    studio,
)
from nonosat.cli import verify as verify_cli
from nonosat.cli.common import EXIT_CODES_HELP, NonosatCommand, NonosatGroup

CONTEXT = {"help_option_names": ["-h", "--help"]}

_VERDICT = {
    0: "unique solution (or solved, with --limit 1)",
    1: "several solutions",
    2: "usage error or bad input",
    3: "no solution",
    4: "gave up before deciding (time limit)",
}
_BAD = {2: "usage error or bad input"}
_INTERRUPTED = {130: "interrupted (Ctrl-C)"}

#: The exit codes each command returns, and what they mean for it (its help footer).
EXIT_CODES: dict[str, dict[int, str]] = {
    "solve": _VERDICT | _INTERRUPTED,
    "crosscheck": {
        0: "every engine agrees on every puzzle",
        1: "a disagreement, an invalid solution or a solution contradicting the file's goal",
        **_BAD,
        4: "an engine gave up (time limit) and the others agree",
        130: "interrupted (Ctrl-C): the table so far is printed; 1 instead if it has findings",
    },
    "batch": {
        0: "every puzzle got a verdict",
        1: "a disagreement or an invalid solution",
        **_BAD,
        4: "a puzzle timed out, crashed or got no verdict",
        **_INTERRUPTED,
    },
    "convert": {0: "written", **_BAD, **_INTERRUPTED},
    "formats": {0: "listed"},
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
        1: "several solutions (two written as the witness), or a proof that failed its check",
        **_BAD,
        3: "no solution (proof of unsatisfiability checked)",
        4: "gave up before deciding (time limit)",
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
        0: "a hint, a solved grid, or only a guess is left",
        1: "a mistake in --state",
        **_BAD,
        3: "no solution",
        **_INTERRUPTED,
    },
    "explain": {
        0: "explained to the solution",
        **_BAD,
        3: "no solution",
        4: "a guess is needed (the explanation stops there)",
        **_INTERRUPTED,
    },
    "studio": {0: "stopped (Ctrl-C)", 2: "bad PATH, or the port is in use"},
}


def exit_codes_epilog(command: str) -> str:
    """The help footer of ``command``: its exit codes, one per line."""
    lines = [f"  {code:<3} {meaning}" for code, meaning in EXIT_CODES[command].items()]
    return "\b\nExit codes:\n" + "\n".join(lines)


app = typer.Typer(
    name="nonosat",
    help=(
        "Nonogram solver and uniqueness certifier.\n\n"
        "Solve puzzles with a native line solver + search, a CNF encoding (PySAT/CaDiCaL) or "
        "OR-Tools CP-SAT; certify uniqueness with checked DRAT proofs; cross-check engines; "
        "analyse difficulty.  'nonosat COMMAND -h' shows a command's options and exit codes."
    ),
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=CONTEXT,
    cls=NonosatGroup,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nonosat {__version__}")
        raise typer.Exit(0)


@app.callback()
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


def _register(name: str, func: object, help_text: str | None) -> None:
    app.command(
        name, help=help_text, epilog=exit_codes_epilog(name), cls=NonosatCommand,
        context_settings=CONTEXT,
    )(func)  # type: ignore[arg-type]


_register("solve", solve.solve_command, solve.__doc__)
_register("crosscheck", crosscheck.crosscheck_command, crosscheck.__doc__)
_register("batch", batch.batch_command, batch.__doc__)
_register("convert", convert.convert_command, convert.__doc__)
_register("formats", convert.formats_command, convert.formats_command.__doc__)
_register("render", render.render_command, render.__doc__)
_register("certify", certify.certify_command, certify.__doc__)
_register("verify-certificate", certify.verify_command, certify.VERIFY_HELP)
_register("encode", encode.encode_command, encode.__doc__)
_register("verify", verify_cli.verify_command, verify_cli.__doc__)
_register("analyse", analyse.analyse_command, analyse.__doc__)
_register("hint", hint.hint_command, hint.__doc__)
_register("explain", explain.explain_command, explain.__doc__)
_register("studio", studio.studio_command, studio.__doc__)


def main() -> None:
    """Console-script entry point (also ``python -m nonosat``, named ``nonosat`` in help)."""
    app(prog_name="nonosat")


if __name__ == "__main__":
    main()
