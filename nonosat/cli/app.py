"""The typer application: registers every command module.

Each command lives in a module of its own under :mod:`nonosat.cli`; this file only wires them.
"""

from __future__ import annotations

import typer

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
from nonosat.cli.common import EXIT_CODES_HELP

app = typer.Typer(
    name="nonosat",
    help=(
        "Nonogram solver and uniqueness certifier.\n\n"
        "Solve puzzles with a native line solver + search, a CNF encoding (PySAT/CaDiCaL) or "
        "OR-Tools CP-SAT; certify uniqueness with checked DRAT proofs; cross-check engines; "
        "analyse difficulty.\n\n" + EXIT_CODES_HELP
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

app.command("solve", help=solve.__doc__, epilog=EXIT_CODES_HELP)(solve.solve_command)
app.command("crosscheck", help=crosscheck.__doc__, epilog=EXIT_CODES_HELP)(crosscheck.crosscheck_command)
app.command("batch", help=batch.__doc__, epilog=EXIT_CODES_HELP)(batch.batch_command)
app.command("convert", help=convert.__doc__, epilog=EXIT_CODES_HELP)(convert.convert_command)
app.command("formats", help=convert.formats_command.__doc__)(convert.formats_command)
app.command("render", help=render.__doc__, epilog=EXIT_CODES_HELP)(render.render_command)
app.command("certify", help=certify.__doc__, epilog=EXIT_CODES_HELP)(certify.certify_command)
app.command("verify-certificate", help=certify.VERIFY_HELP, epilog=EXIT_CODES_HELP)(certify.verify_command)
app.command("encode", help=encode.__doc__, epilog=EXIT_CODES_HELP)(encode.encode_command)
app.command("verify", help=verify_cli.__doc__, epilog=EXIT_CODES_HELP)(verify_cli.verify_command)
app.command("analyse", help=analyse.__doc__, epilog=EXIT_CODES_HELP)(analyse.analyse_command)
app.command("hint", help=hint.__doc__, epilog=EXIT_CODES_HELP)(hint.hint_command)
app.command("explain", help=explain.__doc__, epilog=EXIT_CODES_HELP)(explain.explain_command)
app.command("studio", help=studio.__doc__)(studio.studio_command)


def main() -> None:
    """Console-script entry point."""
    app()
