"""Checking a certificate directory again, anywhere, without trusting anything in it but the
clues (:func:`verify_certificate`, what ``nonosat verify-certificate`` runs)."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nonosat.certificates.bundle import (
    CERTIFICATE_FILE,
    CERTIFICATE_FILES,
    CNF_FILE,
    LRAT_FILE,
    PROOF_FILE,
    PUZZLE_FILE,
    SOLUTION_FILE,
    read_certificate_file,
    read_puzzle_json,
    read_solutions,
    sha256_hex,
)
from nonosat.certificates.checkers import (
    ProofCheck,
    resolve_checkers,
    run_checks,
)
from nonosat.certificates.verification import Verification, check_problems
from nonosat.encodings.cnf import ENCODING_VERSIONS, blocking_clause, encode
from nonosat.errors import FormatError, NonosatError
from nonosat.puzzle import Puzzle, grid_rows

Clause = list[int]


# -- verifying -----------------------------------------------------------------------------------
def verify_certificate(
    cert_dir: str | os.PathLike[str],
    checkers: Sequence[str] = ("auto",),
    timeout: float | None = None,
    expected: Puzzle | None = None,
) -> Verification:
    """Check a certificate directory without trusting anything in it but the clues.

    1. ``puzzle.json`` gives the clues; its fingerprint must be the one certified.
    2. Unique: ``solution.txt`` must satisfy the clues and equal the certified solution; the
       CNF is re-derived from the clues (encoding and version from ``certificate.json``) plus
       the solution's blocking clause and must equal ``puzzle.cnf`` clause for clause; the proof
       must refute the *re-derived* formula.  None: the same without solution.  Multiple: the
       two solutions must satisfy the clues and differ.
    3. Every file must have the SHA-256 recorded in ``certificate.json``, and the record must
       list every file the verdict needs (an empty or partial list is refused).
    4. With ``expected`` (the puzzle the user holds, e.g. ``--puzzle FILE``), the certified
       clues must be its clues: a certificate of another puzzle does not verify.

    5. The proof: by default (``checkers=("auto",)``) ``proof.lrat`` is checked against the
       *re-derived* formula by the default LRAT checker
       (:func:`nonosat.certificates.lrat_check.check_lrat`), and its lemmas must be those of
       ``proof.drat`` (:data:`~nonosat.certificates.checkers.AGREEMENT`); drat-trim and
       cake_lpr run too when found.  A certificate without ``proof.lrat`` is rejected.  dratify
       never decides alone (:func:`~nonosat.certificates.checkers.resolve_checkers`).

    A witness certificate (``"kind": "witness"``, black-and-white or colour) is checked by
    :func:`nonosat.certificates.witness.verify_witness` instead (no proof, no checker).

    Files are read with a size cap and only when they are regular files
    (:func:`nonosat.safe_io.read_bounded`).

    Parameters
    ----------
    cert_dir : path
    checkers : sequence of str
        Proof checkers (see :func:`resolve_checkers`).
    timeout : float, optional
        Seconds for drat-trim and the default checker.
    expected : Puzzle, optional
        The puzzle the certificate must be about.

    Returns
    -------
    Verification
        Problems are reported, not raised, so that all of them are listed.

    Raises
    ------
    FormatError
        ``cert_dir`` is not a directory.
    EngineError
        Unknown checker or drat-trim not on ``PATH``.
    ProofTooLargeError
        A proof over the size limit (``NONOSAT_MAX_PROOF_BYTES``).
    """
    start = time.perf_counter()
    root = Path(cert_dir)
    if not root.is_dir():
        raise FormatError(str(root), None, "not a certificate directory")
    from nonosat.certificates import witness

    if witness.is_witness_certificate(root):  # two solutions, no proof: checked against the clues
        return witness.verify_witness(root, expected)
    names = resolve_checkers(checkers)
    problems: list[str] = []
    checks: list[ProofCheck] = []

    def done(verdict: str | None, puzzle: Puzzle | None) -> Verification:
        ok = not problems and (verdict == "multiple" or bool(checks))
        if not problems and not ok:
            problems.append("no proof checker ran")
        matched = (expected is not None and puzzle is not None
                   and expected.fingerprint() == puzzle.fingerprint())
        return Verification(ok, verdict, problems, checks, puzzle, time.perf_counter() - start,
                            identity_verified=matched)

    try:
        record = json.loads(read_certificate_file(root / CERTIFICATE_FILE).decode("utf-8"))
        if not isinstance(record, dict) or record.get("format") != "nonosat-certificate":
            raise ValueError("not a nonosat certificate")
    except RecursionError:
        problems.append(f"{CERTIFICATE_FILE}: cannot be read: nested too deeply")
        return done(None, None)
    except (OSError, ValueError, NonosatError) as exc:
        problems.append(f"{CERTIFICATE_FILE}: cannot be read: {exc}")
        return done(None, None)
    verdict = record.get("verdict")
    if verdict not in ("unique", "none", "multiple"):
        problems.append(f"{CERTIFICATE_FILE}: verdict {verdict!r} is not certified")
        return done(None, None)

    try:
        puzzle = read_puzzle_json(root / PUZZLE_FILE)
    except NonosatError as exc:
        problems.append(str(exc))
        return done(verdict, None)
    if puzzle.fingerprint() != _get(record, "puzzle", "sha256"):
        problems.append(f"{PUZZLE_FILE}: clues differ from the certified puzzle (fingerprint)")
    if expected is not None and expected.fingerprint() != puzzle.fingerprint():
        problems.append(
            f"the certificate is about another puzzle: its clues ({PUZZLE_FILE}) are not those "
            f"of {expected.describe()}"
        )

    _check_hashes(root, record, problems, _required_files(verdict))

    solutions: list[np.ndarray] = []
    if verdict in ("unique", "multiple"):
        try:
            solutions = read_solutions(root / SOLUTION_FILE, puzzle.shape)
        except NonosatError as exc:
            problems.append(str(exc))
            return done(verdict, puzzle)
        for k, sol in enumerate(solutions, start=1):
            for line, wanted, actual in puzzle.line_errors(sol)[:3]:
                problems.append(
                    f"{SOLUTION_FILE}: solution {k}: {puzzle.line_name(line)} should be "
                    f"{list(wanted or ())} but is {list(actual)}"
                )
    if verdict == "multiple":
        if len(solutions) < 2:
            problems.append(f"{SOLUTION_FILE}: a witness of several solutions needs two")
        elif np.array_equal(solutions[0], solutions[1]):
            problems.append(f"{SOLUTION_FILE}: the two solutions of the witness are the same")
        return done(verdict, puzzle)
    if verdict == "unique":
        if len(solutions) != 1:
            problems.append(f"{SOLUTION_FILE}: expected one solution, found {len(solutions)}")
            return done(verdict, puzzle)
        if grid_rows(solutions[0]) != record.get("solution"):
            problems.append(f"{SOLUTION_FILE}: differs from the solution in {CERTIFICATE_FILE}")

    encoding = _get(record, "encoding", "name")
    version = _get(record, "encoding", "version")
    if encoding not in ENCODING_VERSIONS:
        problems.append(f"{CERTIFICATE_FILE}: unknown encoding {encoding!r}")
        return done(verdict, puzzle)
    if version != ENCODING_VERSIONS[encoding]:
        problems.append(
            f"{CERTIFICATE_FILE}: encoding {encoding} version {version} cannot be re-derived "
            f"(this nonosat has version {ENCODING_VERSIONS[encoding]})"
        )
        return done(verdict, puzzle)
    enc = encode(puzzle, encoding)
    formula = list(enc.clauses)
    if verdict == "unique":
        formula.append(blocking_clause(solutions[0]))
    _compare_cnf(root / CNF_FILE, formula, enc.nvars, problems)

    try:
        proof = read_certificate_file(root / PROOF_FILE).decode("ascii")
    except (OSError, UnicodeDecodeError, NonosatError) as exc:
        problems.append(f"{PROOF_FILE}: cannot be read: {exc}")
        return done(verdict, puzzle)
    try:
        lrat = (read_certificate_file(root / LRAT_FILE).decode("ascii")
                if (root / LRAT_FILE).exists() else None)
    except (OSError, UnicodeDecodeError, NonosatError) as exc:
        problems.append(f"{LRAT_FILE}: cannot be read: {exc}")
        return done(verdict, puzzle)
    if lrat is not None and LRAT_FILE not in (record.get("files") or {}):
        problems.append(f"{LRAT_FILE}: not listed in {CERTIFICATE_FILE}")
    checks.extend(run_checks(formula, enc.nvars, proof, lrat, names, timeout))
    problems.extend(check_problems(checks))
    return done(verdict, puzzle)


def _get(record: dict[str, Any], *keys: str) -> Any:
    value: Any = record
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _required_files(verdict: str) -> tuple[str, ...]:
    """The files whose hashes a certificate of ``verdict`` must record."""
    if verdict == "multiple":
        return (PUZZLE_FILE, SOLUTION_FILE)
    if verdict == "none":
        return (PUZZLE_FILE, CNF_FILE, PROOF_FILE)
    return (PUZZLE_FILE, CNF_FILE, PROOF_FILE, SOLUTION_FILE)



def _check_hashes(root: Path, record: dict[str, Any], problems: list[str],
                  required: Sequence[str]) -> None:
    recorded = record.get("files")
    if not isinstance(recorded, dict) or not recorded:
        problems.append(f"{CERTIFICATE_FILE}: no file hashes")
        return
    for name in required:
        if name not in recorded:
            problems.append(f"{CERTIFICATE_FILE}: no hash of {name}")
    for name, digest in recorded.items():
        if name == CERTIFICATE_FILE or name not in CERTIFICATE_FILES:
            continue
        try:
            actual = sha256_hex(read_certificate_file(root / name))
        except (OSError, NonosatError):
            problems.append(f"{name}: missing or unreadable")
            continue
        if actual != digest:
            problems.append(f"{name}: differs from the certified file (SHA-256)")


def _compare_cnf(path: Path, formula: list[Clause], nvars: int, problems: list[str]) -> None:
    from pysat.formula import CNF

    try:
        text = read_certificate_file(path).decode("ascii")
        clauses = CNF(from_string=text).clauses
    except (OSError, UnicodeDecodeError, ValueError, NonosatError) as exc:
        problems.append(f"{CNF_FILE}: cannot be read: {exc}")
        return
    header = re.search(r"^p\s+cnf\s+(\d+)\s+(\d+)\s*$", text, re.MULTILINE)
    declared = (int(header.group(1)), int(header.group(2))) if header else None
    if declared != (nvars, len(formula)) or len(clauses) != len(formula):
        problems.append(
            f"{CNF_FILE}: declares {declared} variables and clauses and has {len(clauses)} "
            f"clauses; the clues give {nvars} variables and {len(formula)} clauses"
        )
        return
    for k, (got, want) in enumerate(zip(clauses, formula, strict=True), start=1):
        if got != want:
            problems.append(f"{CNF_FILE}: clause {k} differs from the clues' formula: "
                            f"{_clause_diff(got, want)}")
            return


def _clause_diff(got: list[int], want: list[int]) -> str:
    extra = [lit for lit in got if lit not in want]
    missing = [lit for lit in want if lit not in got]

    def short(lits: list[int]) -> str:
        return " ".join(map(str, lits[:8])) + (" ..." if len(lits) > 8 else "")

    if not extra and not missing:
        return "same literals in another order"
    return f"has {short(extra) or 'nothing'} instead of {short(missing) or 'nothing'}"
