"""Write a puzzle's CNF encoding as DIMACS.

Cell (row r, column c), counted from 0, is variable r * width + c + 1 (true = filled) in every
encoding; comment lines 'c cell r c -> v' repeat the mapping.  Auxiliary variables follow.  A
partial grid (--state, else the givens the puzzle file holds) adds unit clauses; a colour
puzzle's exclude the colours a known cell does not have.  OUT is never overwritten without
--force; '-' writes to standard output.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

from nonosat.cli.inputs import load_puzzle, starting_state
from nonosat.cli.options import (
    EncodingOpt,
    ForceOpt,
    FormatOpt,
    IndexOpt,
    PuzzleArg,
    StateOpt,
    out_param,
)
from nonosat.cli.output import echo
from nonosat.cli.running import handle_errors
from nonosat.text import printable

OutOpt = Annotated[Path, out_param("DIMACS file to write ('-' for standard output).",
                                   required=True)]


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

    puzzle, _ = load_puzzle(puzzle_path, format, index)
    if puzzle.is_colour:
        from nonosat.encodings.cnf_colour import encode_colour
        from nonosat.errors import EngineError

        if encoding not in (None, "colour-starts"):
            raise EngineError("a colour puzzle has one encoding (colour-starts)")
        colour = encode_colour(puzzle, starting_state(state, puzzle))
        h, w, k = puzzle.height, puzzle.width, puzzle.n_colours
        text = "".join(
            f"c cell {r} {c} colour {n} -> {colour.cell_var(r, c, n)}\n"
            for r in range(h) for c in range(w) for n in range(k)
        )
        text += f"p cnf {colour.nvars} {len(colour.clauses)}\n"
        text += "".join(" ".join(map(str, cl)) + " 0\n" for cl in colour.clauses)
        enc = None
    else:
        partial = starting_state(state, puzzle)
        enc = encode(puzzle, encoding or DEFAULT_ENCODING, partial)
        text = enc.dimacs()
    if str(out) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    if out.exists() and not force:
        raise FormatError(str(out), None, "already exists; use --force to overwrite it")
    from nonosat.safe_io import atomic_write

    atomic_write(out, text.encode(), force)
    if enc is None:
        echo(printable(f"wrote {out} (colour-starts encoding)"), err=True)
        return
    echo(
        printable(f"wrote {out} ({enc.encoding} encoding: {enc.nvars} variables, "
        f"{len(enc.clauses)} clauses)"),
        err=True,
    )
