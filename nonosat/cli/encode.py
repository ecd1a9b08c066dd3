"""Write a puzzle's CNF encoding as DIMACS.

Cell (row r, column c), counted from 0, is variable r * width + c + 1 (true = filled) in every
encoding; comment lines 'c cell r c -> v' repeat the mapping.  Auxiliary variables follow.  A
partial grid (--state) adds unit clauses.  OUT is never overwritten without --force; '-' writes
to standard output.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from nonosat.cli.common import (
    FormatOpt,
    IndexOpt,
    PuzzleArg,
    handle_errors,
    read_state,
    split_puzzle_ref,
)

OutOpt = Annotated[
    Path,
    typer.Option("--out", "-o", help="DIMACS file to write ('-' for standard output).",
                 show_default=False),
]
EncodingOpt = Annotated[
    str | None,
    typer.Option("--encoding", help="CNF line encoding: order, regular, dfa (default: order)."),
]
StateOpt = Annotated[
    Path | None,
    typer.Option("--state", help="Partial grid: one row per line, '#' filled, '.' empty, "
                 "'?' unknown; known cells become unit clauses."),
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite OUT if it exists.")]


@handle_errors
def encode_command(
    puzzle_path: PuzzleArg,
    out: OutOpt,
    encoding: EncodingOpt = None,
    state: StateOpt = None,
    force: ForceOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Write a puzzle's CNF encoding (DIMACS)."""
    from nonosat.encodings.cnf import DEFAULT_ENCODING, encode
    from nonosat.errors import FormatError
    from nonosat.formats import read_puzzle

    puzzle_path, index = split_puzzle_ref(puzzle_path, index)
    puzzle = read_puzzle(puzzle_path, format, index)
    partial = read_state(state, puzzle) if state is not None else None
    enc = encode(puzzle, encoding or DEFAULT_ENCODING, partial)
    text = enc.dimacs()
    if str(out) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    if out.exists() and not force:
        raise FormatError(str(out), None, "already exists; use --force to overwrite it")
    tmp = out.with_name(f".{out.name}.nonosat-tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise FormatError(str(out), None, exc.strerror or str(exc)) from None
    typer.echo(
        f"wrote {out} ({enc.encoding} encoding: {enc.nvars} variables, "
        f"{len(enc.clauses)} clauses)",
        err=True,
    )
