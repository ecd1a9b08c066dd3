"""The certificate directory on disk: its files, their hashes, and reading them back safely.

See :mod:`nonosat.certificates` for the layout.
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

from nonosat.certificates.prove import LRAT_SOURCES, Certificate
from nonosat.encodings.cnf import encode
from nonosat.errors import FormatError, PuzzleError
from nonosat.puzzle import Puzzle, grid_from_rows, grid_rows, grid_to_solution

CERTIFICATE_FORMAT = 1

PUZZLE_FILE = "puzzle.json"
CNF_FILE = "puzzle.cnf"
PROOF_FILE = "proof.drat"
LRAT_FILE = "proof.lrat"
SOLUTION_FILE = "solution.txt"
CERTIFICATE_FILE = "certificate.json"
#: Every file a certificate directory may hold, in the order they are written.
CERTIFICATE_FILES = (
    PUZZLE_FILE, CNF_FILE, PROOF_FILE, LRAT_FILE, SOLUTION_FILE, CERTIFICATE_FILE
)



# -- files ---------------------------------------------------------------------------------------
def puzzle_json(puzzle: Puzzle) -> str:
    """The clues (and metadata) as the JSON text of ``puzzle.json``: one clue per line,
    ``[]`` for an empty line, ``null`` for an unknown clue."""

    def block(clues: Sequence[Any]) -> str:
        return ",\n".join("    " + json.dumps(list(c) if c is not None else None) for c in clues)

    parts = [f'  "rows": [\n{block(puzzle.rows)}\n  ]', f'  "cols": [\n{block(puzzle.cols)}\n  ]']
    for key in ("title", "author", "copyright", "license"):
        value = getattr(puzzle, key)
        if value:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def read_puzzle_json(path: Path) -> Puzzle:
    """Read a certificate's ``puzzle.json``.

    Raises
    ------
    FormatError
        Unreadable file, invalid JSON, missing ``rows``/``cols``, clues that are not lists of
        whole numbers or ``null``, clues that cannot describe a puzzle.
    """
    try:
        obj = json.loads(read_certificate_file(path).decode("utf-8"))
    except FormatError:  # not a regular file, too large: its own message
        raise
    except OSError as exc:
        raise FormatError(str(path), None, exc.strerror or str(exc)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise FormatError(str(path), line, f"invalid JSON: {exc}") from None
    except (RecursionError, ValueError) as exc:  # nesting too deep, a giant integer
        raise FormatError(str(path), None, f"invalid JSON: {str(exc)[:80]}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("rows"), list) or not isinstance(
        obj.get("cols"), list
    ):
        raise FormatError(str(path), None, 'expected {"rows": [...], "cols": [...]}')
    for key in ("rows", "cols"):
        for clue in obj[key]:
            if clue is not None and (
                not isinstance(clue, list)
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in clue)
            ):
                raise FormatError(str(path), None, f"{key}: clue {clue!r} is not a list of numbers")
    meta = {k: obj[k] for k in ("title", "author", "copyright", "license")
            if isinstance(obj.get(k), str)}
    try:
        return Puzzle(tuple(obj["rows"]), tuple(obj["cols"]), **meta)
    except PuzzleError as exc:
        raise FormatError(str(path), None, str(exc)) from None


def solutions_text(solutions: Sequence[np.ndarray]) -> str:
    """``solution.txt``: each solution as rows of ``#`` and ``.``, separated by blank lines."""
    return "\n".join("\n".join(grid_rows(s)) + "\n" for s in solutions)


def read_solutions(path: Path, shape: tuple[int, int]) -> list[np.ndarray]:
    """Read ``solution.txt`` (grids separated by blank lines).

    Raises
    ------
    FormatError
        Unreadable file, unknown characters, undecided cells or grids of the wrong shape.
    """
    try:
        text = read_certificate_file(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(str(path), None, getattr(exc, "strerror", None) or str(exc)) from None
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            blocks[-1].append(line.rstrip())
        elif blocks[-1]:
            blocks.append([])
    try:
        return [grid_to_solution(grid_from_rows(b, shape)) for b in blocks if b]
    except PuzzleError as exc:
        raise FormatError(str(path), None, str(exc)) from None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def certificate_files(cert: Certificate) -> dict[str, bytes]:
    """The files of a certificate directory (name -> content), ``certificate.json`` last."""
    files: dict[str, bytes] = {PUZZLE_FILE: puzzle_json(cert.puzzle).encode()}
    enc_comments = []
    if cert.verdict == "unique":
        enc_comments.append("the last clause is the blocking clause of solution.txt: the "
                            "formula says 'another solution exists'")
    if cert.formula is not None:
        enc = cert.cnf if cert.cnf is not None else encode(cert.puzzle, cert.encoding)
        extra = cert.formula[len(enc.clauses):]
        files[CNF_FILE] = enc.dimacs(extra, enc_comments).encode()
    if cert.proof is not None:
        files[PROOF_FILE] = cert.proof.encode()
    if cert.lrat is not None:
        files[LRAT_FILE] = cert.lrat.encode()
    if cert.solutions:
        files[SOLUTION_FILE] = solutions_text(cert.solutions).encode()
    files[CERTIFICATE_FILE] = (
        json.dumps(certificate_record(cert, files), indent=2, ensure_ascii=False) + "\n"
    ).encode()
    return files


def certificate_record(cert: Certificate, files: dict[str, bytes]) -> dict[str, Any]:
    """The ``certificate.json`` object of ``cert`` whose other files are ``files``."""
    from importlib.metadata import PackageNotFoundError, version

    def package_version(name: str) -> str | None:
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    puzzle = cert.puzzle
    return {
        "format": "nonosat-certificate",
        "format_version": CERTIFICATE_FORMAT,
        "puzzle": {
            "sha256": puzzle.fingerprint(),
            "title": puzzle.title,
            "width": puzzle.width,
            "height": puzzle.height,
        },
        "verdict": cert.verdict,
        "certified": cert.proved,
        "solution": grid_rows(cert.solutions[0]) if cert.verdict == "unique" else None,
        "witness": [grid_rows(s) for s in cert.solutions] if cert.verdict == "multiple" else None,
        "encoding": {"name": cert.encoding, "version": cert.encoding_version},
        "prover": cert.prover,
        "solver": {"name": cert.solver, "pysat": package_version("python-sat")},
        # every check that ran, with the checker's version and its answer
        "checkers": [c.to_json() for c in cert.checks],
        "lrat": {"file": LRAT_FILE, "source": cert.lrat_source,
                 "made_by": LRAT_SOURCES.get(cert.lrat_source or "", cert.lrat_source),
                 "lines": cert.lrat.count("\n")} if cert.lrat is not None else None,
        "proof": {k: cert.stats[k] for k in ("lemmas", "deletions", "prefix_lemmas",
                                              "proof_bytes") if k in cert.stats}
        if cert.proof is not None else None,
        "cnf": {"variables": cert.nvars, "clauses": len(cert.formula)}
        if cert.formula is not None else None,
        "times_s": {k: round(v, 6) for k, v in cert.times.items()},
        "files": {name: sha256_hex(data) for name, data in files.items()},
        "nonosat": package_version("nonosat"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_certificate(cert: Certificate, out_dir: str | os.PathLike[str],
                      force: bool = False) -> list[Path]:
    """Write the certificate directory, claimed atomically (:func:`write_directory`).

    Raises
    ------
    FormatError
        ``out_dir`` is a file, or an existing non-empty directory without ``force`` (with
        ``force``, the certificate files already there are replaced and stale ones removed;
        other files are kept).
    """
    return write_directory(out_dir, certificate_files(cert), force)


#: The names a certificate directory of any kind holds (the proof bundle, a colour certificate,
#: a witness of several solutions): ``--force`` replaces these, and keeps any other file.
CERTIFICATE_NAMES = frozenset(CERTIFICATE_FILES) | {"solution-1.txt", "solution-2.txt"}


def write_directory(out_dir: str | os.PathLike[str], files: dict[str, bytes],
                    force: bool = False) -> list[Path]:
    """Write ``files`` (name -> bytes) as the directory ``out_dir``, claimed atomically: they
    are written into a fresh hidden sibling, which is then renamed to ``out_dir``
    (:func:`nonosat.safe_io.claimed_directory`).  ``out_dir`` holds the whole certificate or,
    after an error or an interrupt, what it held before: never a half-written one, and two
    runs never write into one directory.

    With ``force`` an earlier certificate in ``out_dir`` is replaced (its files that
    ``files`` lacks disappear) and any other file there is kept (:data:`CERTIFICATE_NAMES`).

    Raises
    ------
    FormatError
        ``out_dir`` is a file or a non-empty directory without ``force``; a file cannot be
        written.
    """
    from nonosat.safe_io import claimed_directory

    out = Path(out_dir)
    with claimed_directory(out, force, CERTIFICATE_NAMES) as fresh:
        for name, data in files.items():
            with open(fresh / name, "xb") as handle:  # a new file in a new private directory
                handle.write(data)
    return [out / name for name in files]


def ensure_writable_dir(out: Path, force: bool) -> None:
    """Refuse an ``out`` that is a file, or a non-empty directory without ``force``.

    Raises
    ------
    FormatError
    """
    from nonosat.safe_io import check_directory_claim

    check_directory_claim(out, force)



#: Largest certificate file read (a proof of a 100x100 puzzle is a few MB).
MAX_CERTIFICATE_FILE_BYTES = 1 << 30


def read_certificate_file(path: Path) -> bytes:
    """A certificate file's bytes: regular files only, at most
    :data:`MAX_CERTIFICATE_FILE_BYTES` (never blocks on a FIFO or reads ``/dev/zero``).

    Raises
    ------
    FormatError
    """
    from nonosat.safe_io import read_bounded

    return read_bounded(path, MAX_CERTIFICATE_FILE_BYTES, path.name)
