"""Uniqueness certificates of colour puzzles: the CNF of :mod:`nonosat.encodings.cnf_colour`
plus the blocking clause of the solution found, refuted by a DRAT proof that a proof checker
accepts before anything is called certified.

The certificate directory holds ``puzzle.json`` (the clues and palette, self-contained),
``puzzle.cnf`` (DIMACS: the encoding, then the blocking clause), ``proof.drat`` (text DRAT),
``proof.lrat`` (the same refutation as LRAT, made in-process: CaDiCaL's own LRAT, or for other
solvers the hints of nonosat's unit propagation, :func:`nonosat.certificates.prove.lrat_for`),
``solution.txt`` (rows of palette characters) and ``certificate.json`` (``"kind": "colour"``,
fingerprint, verdict, checks with their versions, SHA-256 of every file).
:func:`verify_colour_certificate` trusts only ``puzzle.json``: it re-derives the CNF and the
blocking clause, compares them with ``puzzle.cnf``, checks the solution against the clues, and
checks the proof against the re-derived formula.

The proof checks are those of black-and-white certificates
(:func:`nonosat.certificates.checkers.run_checks`: by default the LRAT checker on
``proof.lrat`` and its agreement with ``proof.drat``, drat-trim and cake_lpr when found).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nonosat.certificates.checkers import ProofOutcome
from nonosat.encodings.cnf_colour import ColourCnf, encode_colour
from nonosat.encodings.satsolver import DEFAULT_SOLVER, SatRun, proof_solver_name
from nonosat.errors import FormatError, PuzzleError
from nonosat.puzzle import Colour, Palette, Puzzle, colour_rows

if TYPE_CHECKING:
    from nonosat.certificates.checkers import ProofCheck

#: ``certificate.json``'s ``kind`` for colour certificates.
KIND = "colour"
FILES = ("puzzle.json", "puzzle.cnf", "proof.drat", "proof.lrat", "solution.txt",
         "certificate.json")


@dataclass
class ColourCertificate(ProofOutcome):
    """Outcome of :func:`certify_colour`: the attributes of
    :class:`~nonosat.certificates.prove.Certificate` that a SAT-made colour proof has
    (``puzzle``, ``verdict``, ``solver``, ``formula``, ``nvars``, ``proof``, ``checks``,
    ``times``, ``lrat``, ``lrat_source``, :attr:`proved`), with these differences:

    Attributes
    ----------
    solutions : list of ndarray of int8
        Colour indices (0 = background): the solution (unique), two solutions (multiple) or
        none.
    encoded : int
        Clauses of the encoding (the rest of ``formula`` is the blocking clause).
    """

    puzzle: Puzzle
    verdict: str
    solutions: list[np.ndarray]
    solver: str
    formula: list[list[int]] | None = None
    nvars: int = 0
    proof: str | None = None
    checks: list[Any] = field(default_factory=list)
    times: dict[str, float] = field(default_factory=dict)
    encoded: int = 0
    lrat: str | None = field(default=None, repr=False)
    lrat_source: str | None = None


def certify_colour(
    puzzle: Puzzle,
    *,
    solver: str = DEFAULT_SOLVER,
    checkers: tuple[str, ...] | list[str] = ("auto",),
    timeout: float | None = None,
) -> ColourCertificate:
    """Decide uniqueness of a colour puzzle and prove it: solve the CNF, add the blocking clause
    of the solution, and refute that formula with a proof-logging SAT solver (DRAT, and LRAT:
    CaDiCaL's own, else :func:`~nonosat.certificates.prove.lrat_for`); then check the proof
    with ``checkers`` (:func:`~nonosat.certificates.checkers.run_checks`; names as
    :func:`~nonosat.certificates.checkers.resolve_checkers` takes them).

    Raises
    ------
    EngineError
        A solver that cannot log proofs, or an unknown checker.
    """
    from nonosat.certificates.checkers import resolve_checkers, run_checks
    from nonosat.certificates.proof_text import renumber_lrat
    from nonosat.certificates.prove import lrat_for
    from nonosat.encodings.satsolver import LRAT_SOLVERS

    solver = proof_solver_name(solver)
    names = resolve_checkers(checkers) if checkers else []
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout
    enc = encode_colour(puzzle)
    cert = ColourCertificate(puzzle, "unknown", [], solver, nvars=enc.nvars,
                             encoded=len(enc.clauses))
    cert.times["encode"] = time.perf_counter() - start
    t = time.perf_counter()
    with SatRun(enc.clauses, solver) as run:
        answer, first, second = run.first_two(enc.solution, enc.blocking_clause, deadline)
    if first is not None and second is not None:
        cert.verdict = "multiple"
        cert.solutions = [first, second]
    cert.times["solve"] = time.perf_counter() - t
    if answer is None or cert.verdict == "multiple":
        cert.times["total"] = time.perf_counter() - start
        return cert
    formula = list(enc.clauses)
    if first is not None:
        formula.append(enc.blocking_clause(first))
        cert.solutions = [first]
    t = time.perf_counter()
    logs_lrat = solver.lower() in LRAT_SOLVERS
    with SatRun(formula, solver, with_proof=True, lrat=logs_lrat) as run:
        answer = run.solve(deadline)
        if answer is False:
            lines = [line for line in run.proof() if line]
            if not lines or lines[-1].strip() != "0":
                lines.append("0")
            cert.proof = "\n".join(lines) + "\n"
            if logs_lrat:
                # CaDiCaL's IDs interleave the clauses it derives while loading (see
                # renumber_lrat): renumbered to 1..m for the formula
                cert.lrat = renumber_lrat(run.lrat(), range(1, len(formula) + 1),
                                          len(formula) + 1)
                cert.lrat_source = "cadical" if cert.lrat is not None else None
    cert.times["prove"] = time.perf_counter() - t
    if cert.proof is None:  # time ran out (a model here would contradict the first call)
        cert.times["total"] = time.perf_counter() - start
        return cert
    cert.verdict = "unique" if first is not None else "none"
    cert.formula = formula
    if cert.lrat is None:
        t = time.perf_counter()
        cert.proof, cert.lrat, cert.lrat_source = lrat_for(formula, enc.nvars, cert.proof)
        cert.times["lrat"] = time.perf_counter() - t
    t = time.perf_counter()
    cert.checks = run_checks(formula, enc.nvars, cert.proof, cert.lrat, names)
    cert.times["check"] = time.perf_counter() - t
    cert.times["total"] = time.perf_counter() - start
    return cert


# -- files ---------------------------------------------------------------------------------
def colour_puzzle_json(puzzle: Puzzle) -> str:
    """``puzzle.json`` of a colour certificate: palette (name, ``#rrggbb``, char; background
    first), and every line's blocks as ``[length, colour index]`` pairs."""
    assert puzzle.palette is not None
    colours = puzzle.line_colours

    def blocks(i: int) -> list[list[int]] | None:
        clue = puzzle.lines[i]
        if clue is None:
            return None
        return [[b, c] for b, c in zip(clue, colours[i] or (), strict=True)]

    obj = {
        "palette": [
            {"name": c.name, "rgb": c.hex, "char": c.char} for c in puzzle.palette.colours
        ],
        "rows": [blocks(i) for i in range(puzzle.height)],
        "cols": [blocks(puzzle.height + j) for j in range(puzzle.width)],
        "title": puzzle.title,
    }
    return json.dumps(obj, ensure_ascii=False) + "\n"


def read_colour_puzzle_json(text: str, path: str) -> Puzzle:
    """The puzzle of a colour certificate's ``puzzle.json``.

    Raises
    ------
    FormatError
        Not the expected JSON object or clues the model refuses (names ``path``).
    """
    try:
        obj = json.loads(text)
        palette = Palette(
            tuple(
                Colour(str(c["name"]), _rgb(c["rgb"]), str(c.get("char", "?"))[:1] or "?")
                for c in obj["palette"]
            )
        )

        def split(lines: list) -> tuple[list, list]:
            clues = [None if b is None else tuple(int(x[0]) for x in b) for b in lines]
            cols = [None if b is None else tuple(int(x[1]) for x in b) for b in lines]
            return clues, cols

        rows, row_colours = split(obj["rows"])
        cols, col_colours = split(obj["cols"])
        return Puzzle(
            tuple(rows), tuple(cols), title=obj.get("title"), palette=palette,
            row_colours=tuple(row_colours), col_colours=tuple(col_colours),
        )
    except RecursionError:
        raise FormatError(path, None, "not a colour certificate puzzle: nested too deeply") from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, PuzzleError) as exc:
        raise FormatError(path, None, f"not a colour certificate puzzle: {str(exc)[:160]}") from None


def _rgb(text: str) -> tuple[int, int, int]:
    h = text.lstrip("#")
    if len(h) != 6:
        raise ValueError(f"colour {text!r} is not #rrggbb")
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def _dimacs(formula: list[list[int]], nvars: int, comments: list[str]) -> str:
    head = [f"c {c}" for c in comments] + [f"p cnf {nvars} {len(formula)}"]
    return "\n".join(head + [" ".join(map(str, c)) + " 0" for c in formula]) + "\n"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def colour_certificate_files(cert: ColourCertificate) -> dict[str, bytes]:
    """The files of the certificate directory (name -> bytes), ``certificate.json`` last."""
    puzzle = cert.puzzle
    assert puzzle.palette is not None
    files: dict[str, bytes] = {"puzzle.json": colour_puzzle_json(puzzle).encode()}
    if cert.formula is not None:
        comments = ["nonosat colour CNF: cell colour variables 1..h*w*C, then block starts"]
        if cert.verdict == "unique":
            comments.append("the last clause is the blocking clause of solution.txt")
        files["puzzle.cnf"] = _dimacs(cert.formula, cert.nvars, comments).encode()
    if cert.proof is not None:
        files["proof.drat"] = cert.proof.encode()
    if cert.lrat is not None:
        files["proof.lrat"] = cert.lrat.encode()
    if cert.solutions:
        files["solution.txt"] = "\n\n".join(
            "\n".join(colour_rows(s, puzzle.palette)) for s in cert.solutions
        ).encode() + b"\n"
    record = {
        "format": "nonosat-certificate",
        "kind": KIND,
        "puzzle": {
            "sha256": puzzle.fingerprint(),
            "title": puzzle.title,
            "width": puzzle.width,
            "height": puzzle.height,
            "colours": len(puzzle.palette),
        },
        "verdict": cert.verdict,
        "certified": cert.proved,
        "encoding": {"name": "colour-starts", "version": 1},
        "solver": cert.solver,
        # every check that ran, with the checker's version and its answer
        "checkers": [c.to_json() for c in cert.checks],
        "lrat": {"file": "proof.lrat", "source": cert.lrat_source,
                 "lines": cert.lrat.count("\n")} if cert.lrat is not None else None,
        "cnf": {"variables": cert.nvars, "clauses": len(cert.formula)}
        if cert.formula is not None
        else None,
        "times_s": {k: round(v, 6) for k, v in cert.times.items()},
        "files": {name: _sha256(data) for name, data in files.items()},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    files["certificate.json"] = (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()
    return files


def write_colour_certificate(cert: ColourCertificate, out_dir: str | os.PathLike[str],
                             force: bool = True) -> list[Path]:
    """Write the certificate directory, claimed atomically
    (:func:`nonosat.certificates.bundle.write_directory`: filled in a fresh hidden sibling,
    then renamed into place).  ``force`` (the default: the caller checks overwriting) replaces
    an earlier certificate.

    Raises
    ------
    FormatError
        A file cannot be written; ``out_dir`` is a non-empty directory without ``force``, or
        holds other files than a certificate's.
    """
    from nonosat.certificates.bundle import write_directory

    return write_directory(out_dir, colour_certificate_files(cert), force)


@dataclass
class ColourVerification:
    """Outcome of :func:`verify_colour_certificate`: ``verdict`` as recorded, ``ok`` when
    every check passed, ``problems`` (one line each), ``checks`` (proof checks), ``puzzle``
    (the certified clues, when they could be read)."""

    verdict: str | None
    ok: bool
    problems: list[str]
    checks: list[Any] = field(default_factory=list)
    puzzle: Puzzle | None = None
    identity_verified: bool = False


def _read_file(root: Path, name: str) -> bytes:
    """A certificate file's bytes, bounded and from a regular file only
    (:func:`nonosat.certificates.bundle.read_certificate_file`).

    Raises
    ------
    FormatError
    """
    from nonosat.certificates.bundle import read_certificate_file

    return read_certificate_file(root / name)


def _read_record(root: Path) -> dict[str, Any]:
    """``certificate.json`` as a dict.

    Raises
    ------
    FormatError
        Unreadable, not a regular file, too large, not JSON (a giant number, nesting too deep)
        or not an object.
    """
    path = root / "certificate.json"
    try:
        record = json.loads(_read_file(root, "certificate.json").decode("utf-8"))
    except RecursionError:
        raise FormatError(str(path), None, "invalid JSON: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormatError(str(path), None, f"invalid JSON: {str(exc)[:120]}") from None
    if not isinstance(record, dict):
        raise FormatError(str(path), None, "not a certificate record (a JSON object)")
    return record


def is_colour_certificate(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory/certificate.json`` says ``"kind": "colour"`` (``False`` when it
    cannot be read: the black-and-white verifier then reports why)."""
    from nonosat.errors import NonosatError

    try:
        record = _read_record(Path(directory))
    except (OSError, NonosatError):
        return False
    return record.get("kind") == KIND


#: The files whose hashes a colour certificate of each verdict must record.
_REQUIRED = {
    "unique": ("puzzle.json", "puzzle.cnf", "proof.drat", "solution.txt"),
    "none": ("puzzle.json", "puzzle.cnf", "proof.drat"),
}


def verify_colour_certificate(
    directory: str | os.PathLike[str],
    checkers: tuple[str, ...] | list[str] = ("auto",),
    expected: Puzzle | None = None,
) -> ColourVerification:
    """Re-check a colour certificate directory, trusting only its ``puzzle.json`` (module
    docstring).  Every problem found is listed; ``ok`` is ``False`` if there is any.

    Files are read bounded and only when regular (never blocks on a FIFO or reads
    ``/dev/zero``); the SHA-256 list must name every file the verdict needs (an empty or
    missing list is a problem); with ``expected`` (``--puzzle FILE``) the certified clues must
    be that puzzle's (:attr:`ColourVerification.identity_verified`).  The proof is checked as
    :func:`nonosat.certificates.verify_certificate` checks it (``proof.lrat`` by the default
    checker and its agreement with ``proof.drat``; without ``proof.lrat`` the certificate is
    rejected).

    Raises
    ------
    FormatError
        ``directory`` is not a directory.
    EngineError
        Unknown checker, or an external checker asked for but not found.
    ProofTooLargeError
        A proof over the size limit.
    """
    from nonosat.certificates.checkers import resolve_checkers, run_checks
    from nonosat.certificates.verification import check_problems
    from nonosat.errors import NonosatError
    from nonosat.limits import check_memory, size_limits

    root = Path(directory)
    if not root.is_dir():
        raise FormatError(str(root), None, "not a certificate directory")
    problems: list[str] = []
    try:
        record = _read_record(root)
    except NonosatError as exc:
        return ColourVerification(None, False, [f"certificate.json: cannot be read: {exc}"])
    verdict = record.get("verdict")
    if verdict not in _REQUIRED:
        return ColourVerification(
            None, False, [f"certificate.json: verdict {str(verdict)[:40]!r} carries no proof"]
        )
    verdict = str(verdict)
    try:
        puzzle_path = root / "puzzle.json"
        try:
            text = _read_file(root, "puzzle.json").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(str(puzzle_path), None, f"not UTF-8: {exc}") from None
        puzzle = read_colour_puzzle_json(text, str(puzzle_path))
        size_limits().check_cells(puzzle.width, puzzle.height, str(puzzle_path))
        check_memory(puzzle, str(puzzle_path), "certify")
    except NonosatError as exc:
        return ColourVerification(verdict, False, [str(exc)])
    recorded = record.get("files")
    if not isinstance(recorded, dict) or not recorded:
        problems.append("certificate.json: no file hashes")
        recorded = {}
    for name in _REQUIRED[verdict]:
        if recorded and name not in recorded:
            problems.append(f"certificate.json: no hash of {name}")
    for name, digest in recorded.items():
        if name == "certificate.json" or name not in FILES:
            continue
        try:
            actual = _sha256(_read_file(root, name))
        except (OSError, NonosatError):
            problems.append(f"{name}: missing or unreadable")
            continue
        if actual != digest:
            problems.append(f"{name} does not match the SHA-256 recorded in certificate.json")
    certified = record.get("puzzle")
    if not isinstance(certified, dict) or certified.get("sha256") != puzzle.fingerprint():
        problems.append("puzzle.json's fingerprint differs from certificate.json's")
    if expected is not None and expected.fingerprint() != puzzle.fingerprint():
        problems.append(
            "the certificate is about another puzzle: its clues (puzzle.json) are not those "
            f"of {expected.describe()}"
        )
    checks: list[ProofCheck] = []
    enc: ColourCnf = encode_colour(puzzle)
    formula = list(enc.clauses)
    if verdict == "unique":
        solution = _read_solution(root, puzzle, problems)
        if solution is None:
            return ColourVerification(verdict, False, problems, checks, puzzle)
        formula.append(enc.blocking_clause(solution))
    _compare_cnf(root, formula, enc.nvars, problems)
    try:
        proof = _read_file(root, "proof.drat").decode("ascii")
    except (OSError, UnicodeDecodeError, NonosatError) as exc:
        problems.append(f"proof.drat: cannot be read: {exc}")
        return ColourVerification(verdict, False, problems, checks, puzzle)
    lrat = None
    if "proof.lrat" in os.listdir(root):
        try:
            lrat = _read_file(root, "proof.lrat").decode("ascii")
        except (OSError, UnicodeDecodeError, NonosatError) as exc:
            problems.append(f"proof.lrat: cannot be read: {exc}")
            return ColourVerification(verdict, False, problems, checks, puzzle)
        if "proof.lrat" not in recorded:
            problems.append("proof.lrat: not listed in certificate.json")
    checks.extend(run_checks(formula, enc.nvars, proof, lrat, resolve_checkers(checkers)))
    problems.extend(check_problems(checks))
    if not checks and not problems:
        problems.append("no proof checker ran")
    matched = expected is not None and expected.fingerprint() == puzzle.fingerprint()
    return ColourVerification(verdict, not problems, problems, checks, puzzle, matched)


def _read_solution(root: Path, puzzle: Puzzle, problems: list[str]) -> np.ndarray | None:
    from nonosat.errors import NonosatError

    assert puzzle.palette is not None
    chars = {ch: k for k, ch in enumerate(puzzle.palette.chars)}
    try:
        text = _read_file(root, "solution.txt").decode("utf-8")
    except (OSError, UnicodeDecodeError, NonosatError) as exc:
        problems.append(f"solution.txt: cannot be read: {exc}")
        return None
    try:
        rows = [r for r in text.splitlines() if r.strip()]
        if len(rows) != puzzle.height or any(len(r) != puzzle.width for r in rows):
            raise ValueError("wrong shape")
        sol = np.array([[chars[ch] for ch in r] for r in rows], dtype=np.int8)
    except (KeyError, ValueError):
        problems.append("solution.txt is not a grid of the palette's characters of the "
                        "puzzle's size")
        return None
    if puzzle.line_errors(sol):
        problems.append("solution.txt does not satisfy the clues")
        return None
    return sol


def _compare_cnf(root: Path, formula: list[list[int]], nvars: int, problems: list[str]) -> None:
    from nonosat.errors import NonosatError

    try:
        lines = _read_file(root, "puzzle.cnf").decode("ascii").splitlines()
    except (OSError, UnicodeDecodeError, NonosatError) as exc:
        problems.append(f"puzzle.cnf: cannot be read: {exc}")
        return
    clauses = []
    try:
        for line in lines:
            if not line.strip() or line.startswith(("c", "p")):
                continue
            lits = [int(v) for v in line.split()]
            clauses.append(lits[:-1])
    except ValueError:
        problems.append("puzzle.cnf: not a DIMACS CNF (a clause is not whole numbers)")
        return
    if clauses != formula:
        diff = next(
            (k for k, (a, b) in enumerate(zip(clauses, formula, strict=False)) if a != b),
            min(len(clauses), len(formula)),
        )
        problems.append(
            f"puzzle.cnf differs from the CNF re-derived from puzzle.json (clause {diff + 1})"
        )
