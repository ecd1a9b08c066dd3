"""Witness certificates: two distinct solutions, the evidence that a puzzle has several.

A uniqueness certificate needs a proof; "several solutions" needs none: two distinct grids that
each satisfy every clue settle it, and anyone can check them with a pencil.  ``nonosat certify``
writes this directory for a puzzle with several solutions (exit 1), ``nonosat verify`` puts one
under ``certificate/`` of its witness when a claim of ``unique`` is refuted or ``multiple``
confirmed, and ``nonosat verify-certificate`` re-checks it.

Directory
---------
====================  ============================================================================
``puzzle.json``       the clues (black-and-white: as in a uniqueness certificate; colour: with the
                      palette, as in a colour certificate), so the directory is self-contained
``solution-1.txt``    the first solution, one row per line: ``#`` filled and ``.`` empty, or the
                      palette's characters for a colour puzzle
``solution-2.txt``    the second, another grid
``certificate.json``  ``"kind": "witness"``, ``"verdict": "multiple"``, the clues' fingerprint,
                      the cells in which the two solutions differ, who found them, times, and the
                      SHA-256 of every other file
====================  ============================================================================

Checking (:func:`verify_witness`) trusts nothing but ``puzzle.json``: each solution is read as
a grid of exactly the puzzle's size and checked against every clue by a run-length count written
here (:func:`clue_violations`, independent of the solvers, the encodings and the model's own
check), the two must differ in at least one cell, the file hashes must match the record, the
clues must have the fingerprint recorded, and with ``expected`` (``--puzzle FILE``) they must be
that puzzle's clues.  No engine runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nonosat.errors import FormatError, InvalidSolutionError, NonosatError
from nonosat.puzzle import Puzzle

#: ``certificate.json``'s ``kind`` of a witness certificate.
KIND = "witness"
PUZZLE_FILE = "puzzle.json"
SOLUTION_FILES = ("solution-1.txt", "solution-2.txt")
CERTIFICATE_FILE = "certificate.json"
#: Every file of a witness directory, in the order they are written.
FILES = (PUZZLE_FILE, *SOLUTION_FILES, CERTIFICATE_FILE)
#: Clue violations listed per solution before the rest are counted.
_SHOWN = 3


# -- the independent check ----------------------------------------------------------------------
def runs(cells: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The blocks of one line: ``(lengths, colours)`` of its maximal runs of equal non-zero
    values (black-and-white: ``True`` = colour 1).  Two blocks of one colour are separate runs
    only with a background cell between them, as in webpbn's rules; blocks of different colours
    may touch."""
    values = np.asarray(cells).astype(np.int64).ravel()
    lengths: list[int] = []
    colours: list[int] = []
    previous = 0
    for value in values.tolist():
        if value != 0 and value == previous:
            lengths[-1] += 1
        elif value != 0:
            lengths.append(1)
            colours.append(value)
        previous = value
    return tuple(lengths), tuple(colours)


def clue_violations(puzzle: Puzzle, solution: np.ndarray) -> list[str]:
    """The lines of ``solution`` whose blocks are not their clue, one sentence each (empty:
    the solution satisfies every clue).  Unknown clues (``None``) accept any line.

    Counted here, run by run (:func:`runs`), rather than by :meth:`Puzzle.line_errors` or an
    engine, so that a witness is checked by code that did not find it.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white or colour.
    solution : ndarray, shape (height, width)
        ``bool`` (black-and-white) or colour indices (colour, 0 = background).

    Raises
    ------
    InvalidSolutionError
        ``solution`` has another shape than the puzzle.
    """
    grid = np.asarray(solution)
    if grid.shape != puzzle.shape:
        raise InvalidSolutionError(
            f"a {grid.shape[-1] if grid.ndim else '?'}x{grid.shape[0] if grid.ndim else '?'} "
            f"grid is no solution of a {puzzle.width}x{puzzle.height} puzzle"
        )
    problems = []
    colours = puzzle.line_colours if puzzle.is_colour else None
    for line, clue in enumerate(puzzle.lines):
        if clue is None:
            continue
        cells = grid[line] if line < puzzle.height else grid[:, line - puzzle.height]
        lengths, found_colours = runs(cells)
        want = tuple(colours[line] or ()) if colours is not None else (1,) * len(clue)
        if lengths != tuple(clue) or found_colours != want:
            problems.append(f"{puzzle.line_name(line)} should be "
                            f"{_blocks(puzzle, tuple(clue), want)} but is "
                            f"{_blocks(puzzle, lengths, found_colours)}")
    return problems


def _blocks(puzzle: Puzzle, lengths: tuple[int, ...], colours: tuple[int, ...]) -> str:
    if not lengths:
        return "empty"
    if puzzle.palette is None:
        return " ".join(map(str, lengths))
    names = [c.name for c in puzzle.palette.colours]
    return " ".join(f"{n}{names[c] if 0 <= c < len(names) else '?'}"
                    for n, c in zip(lengths, colours, strict=True))


def check_pair(puzzle: Puzzle, solutions: Sequence[np.ndarray]) -> list[str]:
    """Why ``solutions`` are no witness of several solutions of ``puzzle`` (empty: they are):
    fewer than two, a clue one of the first two breaks (:func:`clue_violations`), or two equal
    grids."""
    if len(solutions) < 2:
        return [f"a witness needs two solutions, got {len(solutions)}"]
    problems = []
    for k, sol in enumerate(solutions[:2], start=1):
        found = clue_violations(puzzle, sol)
        problems += [f"{SOLUTION_FILES[k - 1]}: {p}" for p in found[:_SHOWN]]
        if len(found) > _SHOWN:
            problems.append(f"{SOLUTION_FILES[k - 1]}: and {len(found) - _SHOWN} more lines")
    if np.array_equal(np.asarray(solutions[0]), np.asarray(solutions[1])):
        problems.append("the two solutions are the same grid")
    return problems


# -- writing --------------------------------------------------------------------------------------
def _rows(puzzle: Puzzle, solution: np.ndarray) -> list[str]:
    grid = np.asarray(solution)
    if puzzle.palette is not None:
        chars = puzzle.palette.chars
        return ["".join(chars[int(v)] for v in row) for row in grid]
    return ["".join("#" if v else "." for v in row) for row in grid.astype(bool)]


def _puzzle_json(puzzle: Puzzle) -> bytes:
    if puzzle.is_colour:
        from nonosat.certificates.colour_proofs import colour_puzzle_json

        return colour_puzzle_json(puzzle).encode()
    from nonosat.certificates.bundle import puzzle_json

    return puzzle_json(puzzle).encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def witness_files(
    puzzle: Puzzle,
    solutions: Sequence[np.ndarray],
    *,
    found_by: str | None = None,
    times: dict[str, float] | None = None,
) -> dict[str, bytes]:
    """The files of a witness directory (name -> bytes), ``certificate.json`` last.

    Parameters
    ----------
    puzzle : Puzzle
    solutions : sequence of ndarray, shape (height, width)
        The first two are the witness (bool, or colour indices for a colour puzzle).
    found_by : str, optional
        The engine that found them (``certificate.json``: ``found_by``).
    times : dict of str to float, optional
        Seconds, recorded as ``times_s``.

    Raises
    ------
    InvalidSolutionError
        Fewer than two solutions, one that breaks a clue, or two equal ones: nothing that is
        not a witness is ever written.
    """
    problems = check_pair(puzzle, solutions)
    if problems:
        raise InvalidSolutionError(f"not a witness of several solutions: {problems[0]}")
    first, second = (np.asarray(s) for s in solutions[:2])
    files: dict[str, bytes] = {PUZZLE_FILE: _puzzle_json(puzzle)}
    for name, sol in zip(SOLUTION_FILES, (first, second), strict=True):
        files[name] = ("\n".join(_rows(puzzle, sol)) + "\n").encode()
    info: dict[str, Any] = {
        "sha256": puzzle.fingerprint(),
        "title": puzzle.title,
        "width": puzzle.width,
        "height": puzzle.height,
    }
    if puzzle.palette is not None:
        info["colours"] = len(puzzle.palette)
    record = {
        "format": "nonosat-certificate",
        "kind": KIND,
        "verdict": "multiple",
        "certified": True,
        "evidence": "two distinct solutions, each satisfying every clue",
        "puzzle": info,
        "solutions": list(SOLUTION_FILES),
        "differing_cells": int((first != second).sum()),
        "found_by": found_by,
        "times_s": {k: round(v, 6) for k, v in (times or {}).items()},
        "files": {name: _sha256(data) for name, data in files.items()},
        "nonosat": _version(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    files[CERTIFICATE_FILE] = (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()
    return files


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nonosat")
    except PackageNotFoundError:
        return None


def write_witness_certificate(
    puzzle: Puzzle,
    solutions: Sequence[np.ndarray],
    out_dir: str | os.PathLike[str],
    force: bool = False,
    *,
    found_by: str | None = None,
    times: dict[str, float] | None = None,
) -> list[Path]:
    """Write the witness directory :func:`witness_files` makes, claimed atomically
    (:func:`nonosat.certificates.bundle.write_directory`: filled in a fresh hidden sibling,
    then renamed into place; with ``force`` an earlier certificate of any kind is replaced
    whole).

    Raises
    ------
    FormatError
        ``out_dir`` is a file, a non-empty directory without ``force`` (or one holding other
        files than a certificate's), or cannot be written.
    InvalidSolutionError
        As :func:`witness_files`.
    """
    from nonosat.certificates.bundle import ensure_writable_dir, write_directory

    ensure_writable_dir(Path(out_dir), force)
    files = witness_files(puzzle, solutions, found_by=found_by, times=times)
    return write_directory(out_dir, files, force)


# -- checking -------------------------------------------------------------------------------------
def _read(root: Path, name: str) -> bytes:
    from nonosat.certificates.bundle import read_certificate_file

    return read_certificate_file(root / name)


def read_record(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    """``certificate.json`` of ``directory`` as a dict, ``None`` when it cannot be read or is
    not a JSON object (the verifiers then say why)."""
    try:
        record = json.loads(_read(Path(directory), CERTIFICATE_FILE).decode("utf-8"))
    except (OSError, ValueError, RecursionError, NonosatError):
        return None
    return record if isinstance(record, dict) else None


def is_witness_certificate(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory/certificate.json`` says ``"kind": "witness"``."""
    record = read_record(directory)
    return record is not None and record.get("kind") == KIND


def _read_puzzle(root: Path) -> Puzzle:
    """The clues of ``puzzle.json``: a colour puzzle when it has a palette.

    Raises
    ------
    FormatError
    """
    from nonosat.limits import size_limits

    path = root / PUZZLE_FILE
    data = _read(root, PUZZLE_FILE)
    try:
        text = data.decode("utf-8")
        obj = json.loads(text)
        colour = isinstance(obj, dict) and "palette" in obj
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FormatError(str(path), None, f"invalid JSON: {str(exc)[:120]}") from None
    if colour:
        from nonosat.certificates.colour_proofs import read_colour_puzzle_json

        puzzle = read_colour_puzzle_json(text, str(path))
    else:
        from nonosat.certificates.bundle import read_puzzle_json

        puzzle = read_puzzle_json(path)
    size_limits().check_cells(puzzle.width, puzzle.height, str(path))
    return puzzle


def _read_solution(root: Path, name: str, puzzle: Puzzle) -> np.ndarray:
    """A solution file, read strictly: exactly ``height`` rows of ``width`` cells, ``#``/``.``
    (colour: the palette's characters).

    Raises
    ------
    FormatError
    """
    path = root / name
    try:
        text = _read(root, name).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(str(path), None, f"not UTF-8 text: {exc.reason}") from None
    rows = [r.rstrip("\r") for r in text.split("\n")]
    while rows and not rows[-1]:
        rows.pop()
    if len(rows) != puzzle.height:
        raise FormatError(str(path), None,
                          f"{len(rows)} rows; the puzzle has {puzzle.height}")
    if puzzle.palette is not None:
        chars = {ch: k for k, ch in enumerate(puzzle.palette.chars)}
        dtype: Any = np.int8
    else:
        chars = {"#": 1, ".": 0}
        dtype = bool
    grid = np.zeros(puzzle.shape, dtype=np.int16)
    for i, row in enumerate(rows):
        if len(row) != puzzle.width:
            raise FormatError(str(path), i + 1,
                              f"{len(row)} cells; the puzzle is {puzzle.width} wide")
        for j, ch in enumerate(row):
            if ch not in chars:
                raise FormatError(str(path), i + 1,
                                  f"column {j + 1}: {ch!r} is not a cell of this puzzle")
            grid[i, j] = chars[ch]
    return grid.astype(dtype)


def verify_witness(
    cert_dir: str | os.PathLike[str],
    expected: Puzzle | None = None,
) -> Any:
    """Check a witness directory without trusting anything in it but the clues (module
    docstring).  Every problem found is listed.

    Parameters
    ----------
    cert_dir : path
    expected : Puzzle, optional
        The puzzle the witness must be about (``--puzzle FILE``).

    Returns
    -------
    nonosat.certificates.verification.Verification
        ``verdict`` ``"multiple"``; ``ok`` when every check passed; no proof checks.

    Raises
    ------
    FormatError
        ``cert_dir`` is not a directory.
    """
    from nonosat.certificates.verification import Verification

    start = time.perf_counter()
    root = Path(cert_dir)
    if not root.is_dir():
        raise FormatError(str(root), None, "not a certificate directory")
    problems: list[str] = []

    def done(puzzle: Puzzle | None) -> Verification:
        matched = (expected is not None and puzzle is not None
                   and expected.fingerprint() == puzzle.fingerprint())
        return Verification(not problems, "multiple", problems, [], puzzle,
                            time.perf_counter() - start, identity_verified=matched)

    record = read_record(root)
    if record is None or record.get("format") != "nonosat-certificate":
        problems.append(f"{CERTIFICATE_FILE}: cannot be read as a nonosat certificate")
        return done(None)
    if record.get("kind") != KIND or record.get("verdict") != "multiple":
        problems.append(f"{CERTIFICATE_FILE}: not a witness of several solutions")
        return done(None)
    try:
        puzzle = _read_puzzle(root)
    except NonosatError as exc:
        problems.append(str(exc))
        return done(None)
    certified = record.get("puzzle")
    if not isinstance(certified, dict) or certified.get("sha256") != puzzle.fingerprint():
        problems.append(f"{PUZZLE_FILE}: clues differ from the certified puzzle (fingerprint)")
    if expected is not None and expected.fingerprint() != puzzle.fingerprint():
        problems.append(
            f"the certificate is about another puzzle: its clues ({PUZZLE_FILE}) are not those "
            f"of {expected.describe()}"
        )
    recorded = record.get("files")
    if not isinstance(recorded, dict) or not recorded:
        problems.append(f"{CERTIFICATE_FILE}: no file hashes")
        recorded = {}
    for name in FILES[:-1]:
        if recorded and name not in recorded:
            problems.append(f"{CERTIFICATE_FILE}: no hash of {name}")
        try:
            data = _read(root, name)
        except (OSError, NonosatError):
            problems.append(f"{name}: missing or unreadable")
            continue
        if name in recorded and _sha256(data) != recorded[name]:
            problems.append(f"{name}: differs from the certified file (SHA-256)")
    solutions = []
    for name in SOLUTION_FILES:
        try:
            solutions.append(_read_solution(root, name, puzzle))
        except (OSError, NonosatError) as exc:
            if (root / name).exists():
                problems.append(str(exc))
    if len(solutions) == 2:
        problems += check_pair(puzzle, solutions)
    return done(puzzle)
