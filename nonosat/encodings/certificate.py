"""Uniqueness certificates: a CNF, a DRAT proof, and the checks anyone can repeat.

A solver's word that a puzzle has one solution is not a certificate; a checked proof is.  For a
puzzle with solution ``S``, the certificate is the CNF encoding of the clues plus the *blocking
clause* of ``S`` (at least one cell differs from ``S``), and a DRAT proof that this formula is
unsatisfiable.  Anyone can re-derive the CNF from the clues, check that ``S`` satisfies the
clues, and check the proof with a DRAT checker.

Certificate directory
---------------------
=================  ===========================================================================
``puzzle.json``    the clues (``{"rows": [[3, 1], [], null], "cols": [...]}``, davidje13-style
                   JSON, so the directory is self-contained) and the puzzle's metadata
``puzzle.cnf``     DIMACS: the encoding, then the blocking clause (as a clause, not an
                   assumption); comments map cells to variables
``proof.drat``     text DRAT proof of the unsatisfiability of ``puzzle.cnf``
``solution.txt``   the solution, one row per line, ``#`` filled and ``.`` empty
``certificate.json``  puzzle fingerprint, verdict, solution, encoding name and version, solver,
                   checkers and their verdicts, times, proof size, SHA-256 of every file
=================  ===========================================================================

A puzzle without solution gets ``puzzle.cnf`` (the encoding alone) and a proof of its
unsatisfiability, and no ``solution.txt``.  A puzzle with several solutions gets no proof: its
``solution.txt`` holds two distinct solutions, separated by a blank line, as the witness.

Proof checkers
--------------
``dratify``
    forward DRAT checker from PyPI, in-process; checks every lemma.  Pure Python (about 40,000
    lemmas a second on unit-heavy proofs) unless a native engine is installed
    (``cdclkit-native``), which it then uses.
``drat-trim``
    Heule's backward checker (github.com/marijnheule/drat-trim), run as ``drat-trim CNF PROOF``.
``cake_lpr``
    the CakeML LRAT/LPR checker (github.com/tanyongkiam/cake_lpr), whose correctness is proved
    in HOL4 (Tan, Heule, Myreen, "cake_lpr: Verified Propagation Redundancy Checking in
    CakeML", TACAS 2021).  It checks the LRAT form of the proof (``proof.lrat``), which
    drat-trim writes from the DRAT proof (``drat-trim CNF PROOF -L LRAT``): every lemma with the
    IDs of the clauses that derive it by unit propagation, so the verified checker needs no
    search of its own.

The external checkers are looked up in the directories of ``NONOSAT_CHECKER_PATH`` (what
``--checker-path`` sets), then on ``PATH`` (:func:`checker_executable`).

Proof prefix (for other provers)
--------------------------------
:func:`certify` takes an optional ``prover``: a callable that receives the encoding and the
formula to refute and returns DRAT steps: lemma clauses (e.g. a propagation solver's deductions,
each RUP with respect to the formula and the earlier lemmas) and
:class:`~nonosat.encodings.native_proof.Deletion` steps for lemmas no longer needed.  The steps
are written first in the proof and the lemmas still present are given to the SAT solver as
clauses, so that its own proof continues from them; when they end with the empty clause the SAT
solver is not run at all.  :mod:`nonosat.encodings.native_proof` writes such steps from the
native solver's deduction trace; :attr:`Certificate.prover` records who wrote the proof.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nonosat.encodings.cnf import (
    DEFAULT_ENCODING,
    ENCODING_VERSIONS,
    PuzzleCnf,
    blocking_clause,
    check_encoding,
    encode,
)
from nonosat.encodings.native_proof import Deletion, Step, proof_lines
from nonosat.encodings.satsolver import (
    DEFAULT_SOLVER,
    SatRun,
    proof_solver_name,
    refuted_by_propagation,
)
from nonosat.errors import EngineError, FormatError, NonosatError, PuzzleError
from nonosat.puzzle import Puzzle, grid_from_rows, grid_rows, grid_to_solution

#: Version of the certificate directory layout and ``certificate.json`` schema.
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

#: Proof checkers :func:`check_proof` knows.
CHECKERS = ("dratify", "drat-trim", "cake_lpr")
#: The checkers that run as programs, found by :func:`checker_executable`.
EXTERNAL_CHECKERS = ("drat-trim", "cake_lpr")
#: Environment variable: directories (``os.pathsep``-separated) searched for external checkers
#: before ``PATH`` (set by ``--checker-path``).
CHECKER_PATH_ENV = "NONOSAT_CHECKER_PATH"

#: A line holding the empty clause, which every refutation must add.
_EMPTY_CLAUSE = re.compile(r"^[ \t]*0[ \t]*\r?$", re.MULTILINE)

Clause = list[int]
#: A prover hook: ``prover(encoding, formula) -> steps`` (see the module docstring).
Prover = Callable[[PuzzleCnf, list[Clause]], Sequence[Step]]


# -- proof checking ------------------------------------------------------------------------------
@dataclass
class ProofCheck:
    """Verdict of one proof checker.

    Attributes
    ----------
    checker : str
        ``"dratify"`` or ``"drat-trim"``.
    ok : bool
        The proof derives the empty clause and every step checks.
    reason : str
        The checker's own explanation (first failing lemma, "s VERIFIED", ...).
    time_s : float
        Wall-clock seconds spent checking.
    """

    checker: str
    ok: bool
    reason: str
    time_s: float

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"checker": self.checker, "ok": self.ok, "reason": self.reason,
                "time_s": round(self.time_s, 6)}


def checker_executable(name: str) -> str | None:
    """Path of the external checker ``name`` (``"drat-trim"`` or ``"cake_lpr"``): the first
    found in the directories of ``$NONOSAT_CHECKER_PATH``, then on ``PATH``; ``None`` when
    neither has it."""
    dirs = os.environ.get(CHECKER_PATH_ENV)
    if dirs:
        found = shutil.which(name, path=dirs)
        if found:
            return found
    return shutil.which(name)


def available_checkers() -> list[str]:
    """The checkers that can run here: ``dratify`` always, drat-trim and cake_lpr when found
    (:func:`checker_executable`; cake_lpr also needs drat-trim, which writes its LRAT input)."""
    out = ["dratify"]
    if checker_executable("drat-trim"):
        out.append("drat-trim")
        if checker_executable("cake_lpr"):
            out.append("cake_lpr")
    return out


def resolve_checkers(names: Sequence[str]) -> list[str]:
    """Expand checker names: ``"auto"`` = every checker that can run here
    (:func:`available_checkers`), ``"all"`` = all three (each required).

    Raises
    ------
    EngineError
        Unknown checker, or an external checker asked for but not found.
    """
    out: list[str] = []
    for name in names:
        if name == "auto":
            wanted = available_checkers()
        elif name == "all":
            wanted = list(CHECKERS)
        elif name in CHECKERS:
            wanted = [name]
        else:
            raise EngineError(
                f"unknown proof checker {name!r}; choose one of {', '.join(CHECKERS)}, auto, all"
            )
        for checker in wanted:
            if checker in EXTERNAL_CHECKERS:
                _require(checker)
            if checker not in out:
                out.append(checker)
    return out


def _require(name: str) -> str:
    exe = checker_executable(name)
    if exe is None:
        raise EngineError(
            f"{name} not found (looked in --checker-path / ${CHECKER_PATH_ENV}, then PATH); "
            "build it from its sources or use --checker dratify"
        )
    return exe


def check_proof(
    clauses: Sequence[Sequence[int]],
    nvars: int,
    proof: str,
    checker: str = "dratify",
    timeout: float | None = None,
    lrat: str | None = None,
) -> ProofCheck:
    """Check that the text DRAT ``proof`` refutes ``clauses``.

    Parameters
    ----------
    clauses : sequence of sequence of int
        The formula (DIMACS literals).  Checkers are given this formula, never a file that could
        differ from it.
    nvars : int
        Number of variables of the formula.
    proof : str
        Text DRAT.  It must add the empty clause (a line ``0``), even where unit propagation on
        the formula alone finds the conflict and the checkers would not look at the proof.
    checker : str
        ``"dratify"`` (in-process), ``"drat-trim"`` or ``"cake_lpr"`` (subprocesses; see
        :func:`checker_executable`).  cake_lpr checks ``lrat``, or, when it is not given, the
        LRAT that drat-trim writes from ``proof`` (:func:`drat_to_lrat`).
    timeout : float, optional
        Seconds, for drat-trim (its ``-t``); dratify cannot be interrupted.
    lrat : str, optional
        Text LRAT form of the proof, for cake_lpr.

    Returns
    -------
    ProofCheck

    Raises
    ------
    EngineError
        Unknown checker, or an external checker not found.
    """
    start = time.perf_counter()
    if checker not in CHECKERS:
        raise EngineError(f"unknown proof checker {checker!r}; choose one of {', '.join(CHECKERS)}")
    if not _EMPTY_CLAUSE.search(proof):
        # checkers accept a formula that propagation alone refutes whatever the proof says;
        # a refutation must still end in the empty clause, so a cut proof is always caught
        ok, reason = False, "the proof never adds the empty clause"
    elif checker == "dratify":
        ok, reason = _check_dratify(clauses, nvars, proof)
    elif checker == "drat-trim":
        ok, reason = _check_drat_trim(clauses, nvars, proof, timeout)
    else:
        if lrat is None:
            lrat = drat_to_lrat(clauses, nvars, proof, timeout)
        ok, reason = _check_cake_lpr(clauses, nvars, lrat) if lrat is not None else (
            False, "drat-trim could not turn the proof into LRAT (it does not verify)")
    return ProofCheck(checker, ok, reason, time.perf_counter() - start)


def _check_dratify(clauses: Sequence[Sequence[int]], nvars: int, proof: str) -> tuple[bool, str]:
    from dratify import CNF as DratifyCnf
    from dratify import check_proof as dratify_check

    # dratify's internal literals: 2 * (variable - 1), plus 1 when negative.  The clauses come
    # from the encoding (no repeated literal, no tautology), so they go in as they are.
    # the checker allocates a list per clause and makes no cycles: pausing the cyclic garbage
    # collector saves a third of the check (webpbn #1611's certificate: 0.78 -> 0.52 s)
    collecting = gc.isenabled()
    gc.disable()
    try:
        formula = DratifyCnf(nvars)
        formula.clauses = [tuple(2 * lit - 2 if lit > 0 else -2 * lit - 1 for lit in c)
                           for c in clauses]
        # "auto": dratify's Rust checker when one is installed (cdclkit-native), else Python
        result = dratify_check(formula, proof, engine="auto")
    except ValueError as exc:  # malformed proof text
        return False, f"malformed proof: {exc}"
    finally:
        if collecting:
            gc.enable()
    reason = result.reason
    if not result.ok and result.failed_step > 0:
        reason += f" (step {result.failed_step})"
    return bool(result.ok), reason


def _check_drat_trim(clauses: Sequence[Sequence[int]], nvars: int, proof: str,
                     timeout: float | None) -> tuple[bool, str]:
    ok, reason, _ = _run_drat_trim(clauses, nvars, proof, timeout, lrat=False)
    return ok, reason


def _run_drat_trim(clauses: Sequence[Sequence[int]], nvars: int, proof: str,
                   timeout: float | None, lrat: bool) -> tuple[bool, str, str | None]:
    """drat-trim on the formula and the proof; with ``lrat``, also the LRAT it writes
    (``None`` when it does not verify)."""
    exe = _require("drat-trim")
    with tempfile.TemporaryDirectory(prefix="nonosat-drat-") as tmp:
        cnf_path = Path(tmp, "formula.cnf")
        proof_path = Path(tmp, "proof.drat")
        lrat_path = Path(tmp, "proof.lrat")
        cnf_path.write_text(_dimacs_body(clauses, nvars))
        proof_path.write_text(proof)
        cmd = [exe, str(cnf_path), str(proof_path)]
        if timeout is not None:
            cmd += ["-t", str(max(1, int(timeout + 0.999)))]
        if lrat:
            cmd += ["-L", str(lrat_path)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError as exc:
            raise EngineError(f"cannot run drat-trim: {exc}") from None
        lines = [line.strip() for line in done.stdout.splitlines()]
        if "s VERIFIED" in lines:
            text = lrat_path.read_text() if lrat and lrat_path.exists() else None
            return True, "s VERIFIED", text
    tail = [line for line in lines if line][-3:]
    return False, " | ".join(tail) or f"drat-trim exited with {done.returncode} and no verdict", None


def drat_to_lrat(clauses: Sequence[Sequence[int]], nvars: int, proof: str,
                 timeout: float | None = None) -> str | None:
    """The LRAT form of the DRAT ``proof`` of ``clauses``, as drat-trim writes it
    (``drat-trim CNF PROOF -L LRAT``): each lemma with the IDs of the clauses whose unit
    propagation derives it; clause IDs 1..m are the formula's clauses in order.  ``None`` when
    drat-trim does not verify the proof (no LRAT then).

    Raises
    ------
    EngineError
        drat-trim not found (:func:`checker_executable`).
    """
    ok, _, text = _run_drat_trim(clauses, nvars, proof, timeout, lrat=True)
    return text if ok else None


def _check_cake_lpr(clauses: Sequence[Sequence[int]], nvars: int, lrat: str) -> tuple[bool, str]:
    exe = _require("cake_lpr")
    with tempfile.TemporaryDirectory(prefix="nonosat-lrat-") as tmp:
        cnf_path = Path(tmp, "formula.cnf")
        lrat_path = Path(tmp, "proof.lrat")
        cnf_path.write_text(_dimacs_body(clauses, nvars))
        lrat_path.write_text(lrat)
        try:
            done = subprocess.run([exe, str(cnf_path), str(lrat_path)], capture_output=True,
                                  text=True, check=False)
        except OSError as exc:
            raise EngineError(f"cannot run cake_lpr: {exc}") from None
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    if "s VERIFIED UNSAT" in lines:
        return True, "s VERIFIED UNSAT"
    return False, " | ".join(lines[-3:]) or f"cake_lpr exited with {done.returncode}"


def _dimacs_body(clauses: Sequence[Sequence[int]], nvars: int) -> str:
    body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return f"p cnf {nvars} {len(clauses)}\n{body}"


# -- certifying ----------------------------------------------------------------------------------
@dataclass
class Certificate:
    """Outcome of :func:`certify`.

    Attributes
    ----------
    puzzle : Puzzle
    verdict : str
        ``"unique"``, ``"multiple"``, ``"none"`` or ``"unknown"`` (time limit).
    solutions : list of ndarray of bool, shape (height, width)
        The solution (unique), two solutions (multiple: the witness) or none.
    encoding : str
    encoding_version : int
    solver : str
        PySAT name of the SAT solver.
    formula : list of list of int, or None
        The refuted formula (encoding, plus the blocking clause when unique); ``None`` for
        multiple and unknown verdicts.
    nvars : int
    proof : str or None
        Text DRAT proof of the formula's unsatisfiability.
    checks : list of ProofCheck
    times : dict of str to float
        Seconds: ``encode``, ``solve`` (finding the solution), ``prove`` (refuting the formula,
        proof logged), ``check`` (all checkers), ``total``.
    stats : dict
        Proof size (``lemmas``, ``deletions``, ``prefix_lemmas``, ``proof_bytes``) and solver
        statistics.
    prover : str
        Who wrote the proof: ``"propagation"`` (nobody: unit propagation refutes the formula,
        the proof is the empty clause alone), ``"sat"`` (the SAT solver), ``"native"`` (the
        prover hook's steps alone, e.g. the native solver's deductions) or ``"native+sat"``
        (those steps, then the SAT solver).
    lrat : str or None
        The LRAT form of the proof (written by drat-trim from the DRAT proof, see
        :func:`drat_to_lrat`), when drat-trim was found; ``None`` otherwise.
    """

    puzzle: Puzzle
    verdict: str
    solutions: list[np.ndarray]
    encoding: str
    encoding_version: int
    solver: str
    formula: list[Clause] | None = None
    nvars: int = 0
    proof: str | None = None
    checks: list[ProofCheck] = field(default_factory=list)
    times: dict[str, float] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    cnf: PuzzleCnf | None = field(default=None, repr=False)
    prover: str = "sat"
    lrat: str | None = field(default=None, repr=False)

    @property
    def proved(self) -> bool:
        """Whether the verdict is backed by a proof (unique or none) that every checker that ran
        accepted (at least one ran)."""
        return (
            self.verdict in ("unique", "none")
            and bool(self.checks)
            and all(c.ok for c in self.checks)
        )


def certify(
    puzzle: Puzzle,
    *,
    encoding: str = DEFAULT_ENCODING,
    solver: str = DEFAULT_SOLVER,
    checkers: Sequence[str] = ("dratify",),
    timeout: float | None = None,
    prover: Prover | None = None,
    solution: np.ndarray | None = None,
) -> Certificate:
    """Decide whether ``puzzle`` has exactly one solution and prove it.

    1. Decide uniqueness as the SAT engine does, without a proof: solve the encoding, add the
       solution's blocking clause, solve again (the solver keeps what it learnt).  A second
       solution: verdict ``multiple``, the two solutions are the witness, no proof.
    2. Otherwise refute the encoding plus the blocking clause (or the encoding alone when it
       has no solution): when unit propagation alone refutes it (line-solvable puzzles), the
       proof is just the empty clause; otherwise a fresh SAT solver logs a DRAT proof of this
       exact formula.  Verdict ``unique`` (or ``none``).
    3. Check the proof with each of ``checkers``.

    With a ``solution`` given, step 1 is skipped and step 2 decides (a model of the formula
    found there makes the verdict ``multiple``).

    Parameters
    ----------
    puzzle : Puzzle
    encoding : str
        CNF line encoding (:mod:`nonosat.encodings.cnf`).
    solver : str
        PySAT solver able to log proofs (CaDiCaL, Glucose, Lingeling, MapleSAT families).
    checkers : sequence of str
        ``"dratify"``, ``"drat-trim"``, ``"cake_lpr"``; empty to skip checking (the
        certificate is then not :attr:`Certificate.proved`).  Whenever drat-trim is found
        (:func:`checker_executable`), the LRAT form of the proof is made too
        (:attr:`Certificate.lrat`, ``proof.lrat``), and cake_lpr checks it.
    timeout : float, optional
        Seconds for the solving steps; verdict ``unknown`` when they run out.  Proof checking is
        not bounded (drat-trim gets the time that is left).
    prover : callable, optional
        ``prover(encoding, formula) -> steps``: DRAT steps put before the SAT solver's proof
        (module docstring).
    solution : ndarray of bool, shape (height, width), optional
        A solution found by another engine; step 1 then only checks it against the clues
        instead of running the SAT solver.

    Returns
    -------
    Certificate

    Raises
    ------
    EngineError
        Unknown solver or checker, or a solver that cannot log proofs.
    PuzzleError
        Unknown encoding, or a ``solution`` that does not satisfy the clues.
    """
    check_encoding(encoding)
    solver = proof_solver_name(solver)
    start = time.perf_counter()
    deadline = start + timeout if timeout is not None else None
    enc = encode(puzzle, encoding)
    times = {"encode": time.perf_counter() - start}
    cert = Certificate(puzzle, "unknown", [], encoding, enc.version, solver, nvars=enc.nvars,
                       times=times, cnf=enc)

    t = time.perf_counter()
    first: np.ndarray | None
    if solution is not None:
        first = np.asarray(solution, dtype=bool)
        if first.shape != puzzle.shape or puzzle.line_errors(first):
            raise PuzzleError("the solution given to certify does not satisfy the clues")
        answer: bool | None = True
    else:
        with SatRun(enc.clauses, solver) as run:
            answer = run.solve(deadline)
            first = enc.solution(run.model()) if answer else None
            if first is not None:
                run.add_clause(blocking_clause(first))
                again = run.solve(deadline)
                if again:
                    cert.verdict = "multiple"
                    cert.solutions = [first, enc.solution(run.model())]
                elif again is None:
                    answer = None
            cert.stats["find"] = run.stats()
    times["solve"] = time.perf_counter() - t
    if answer is None or cert.verdict == "multiple":
        return _finish(cert, start)
    if first is None:
        _prove(cert, enc, list(enc.clauses), solver, deadline, prover)
        if cert.proof is None:
            return _finish(cert, start)
        cert.verdict = "none"
        cert.formula = list(enc.clauses)
    else:
        cert.solutions = [first]
        formula = list(enc.clauses) + [blocking_clause(first)]
        second = _prove(cert, enc, formula, solver, deadline, prover)
        if second is not None:
            cert.verdict = "multiple"
            cert.solutions.append(second)
        elif cert.proof is not None:
            cert.verdict = "unique"
            cert.formula = formula
        else:
            return _finish(cert, start)
    if cert.proof is not None and cert.formula is not None:
        t = time.perf_counter()
        remaining = None if deadline is None else max(1.0, deadline - time.perf_counter())
        names = resolve_checkers(checkers)
        if checker_executable("drat-trim") is not None:
            cert.lrat = drat_to_lrat(cert.formula, enc.nvars, cert.proof, remaining)
            times["lrat"] = time.perf_counter() - t
        for checker in names:
            cert.checks.append(check_proof(cert.formula, enc.nvars, cert.proof, checker,
                                           remaining, lrat=cert.lrat))
        times["check"] = time.perf_counter() - t
    return _finish(cert, start)


def _prove(cert: Certificate, enc: PuzzleCnf, formula: list[Clause], solver: str,
           deadline: float | None, prover: Prover | None) -> np.ndarray | None:
    """Refute ``formula``: the prover's lemmas, then the empty clause if unit propagation
    already refutes the formula and the lemmas, else a fresh SAT solver's DRAT proof.  Sets
    ``cert.proof``; returns a model's solution if the formula is satisfiable after all (and
    ``None`` with ``cert.proof`` unset when the deadline passed).

    No vacuous work: when unit propagation alone refutes ``formula`` (most line-solvable
    puzzles under the order encoding), the proof is the empty clause alone, the prover is not
    asked for lemmas, and :attr:`Certificate.prover` says ``"propagation"``."""
    t = time.perf_counter()
    if refuted_by_propagation(formula):
        cert.stats["prove"] = {"method": "unit propagation"}
        cert.proof = "0\n"
        cert.prover = "propagation"
        cert.times["prove"] = time.perf_counter() - t
        cert.stats.update(_proof_size(cert.proof, 0))
        return None
    steps = [s if isinstance(s, Deletion) else list(s) for s in prover(enc, formula)] \
        if prover is not None else []
    live: dict[tuple[int, ...], list[Clause]] = {}  # the lemmas not deleted again
    for step in steps:
        if isinstance(step, Deletion):
            same = live.get(tuple(sorted(step.clause)))
            if same:
                same.pop()
        else:
            live.setdefault(tuple(sorted(step)), []).append(step)
    lemmas = [c for same in live.values() for c in same]
    added = sum(1 for s in steps if not isinstance(s, Deletion))
    try:
        if steps and steps[-1] == []:
            cert.stats["prove"] = {"method": "prover"}
            cert.proof = _proof_text(steps, [])
            cert.prover = "native"
            return None
        if refuted_by_propagation(formula + lemmas):
            cert.stats["prove"] = {"method": "unit propagation"}
            cert.proof = _proof_text(steps, [])
            cert.prover = "native" if steps else "sat"
            return None
        with SatRun(formula + lemmas, solver, with_proof=True) as run:
            answer = run.solve(deadline)
            cert.stats["prove"] = {"method": "sat", **run.stats()}
            if answer is None:
                return None
            if answer:
                return enc.solution(run.model())
            cert.proof = _proof_text(steps, run.proof())
            cert.prover = "native+sat" if steps else "sat"
            return None
    finally:
        cert.times["prove"] = time.perf_counter() - t
        if cert.proof is not None:
            cert.stats.update(_proof_size(cert.proof, added))


def _proof_text(steps: Sequence[Step], solver_lines: Sequence[str]) -> str:
    """Text DRAT: the prefix steps, then the solver's lines, ending with the empty clause."""
    lines = proof_lines(steps)
    lines.extend(solver_lines)
    if not lines or lines[-1].strip() != "0":
        lines.append("0")  # the empty clause; a checker still has to derive it
    return "\n".join(lines) + "\n"


def _proof_size(proof: str, prefix: int) -> dict[str, int]:
    deletions = proof.count("\nd ") + proof.startswith("d ")
    lines = proof.count("\n")
    return {"lemmas": lines - deletions, "deletions": deletions, "prefix_lemmas": prefix,
            "proof_bytes": len(proof.encode())}


def _finish(cert: Certificate, start: float) -> Certificate:
    cert.times["total"] = time.perf_counter() - start
    return cert


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
        obj = json.loads(_read(path).decode("utf-8"))
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
        text = _read(path).decode("utf-8")
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


def _sha256(data: bytes) -> str:
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
        "checkers": [
            {**c.to_json(), "version": _dratify_version() if c.checker == "dratify"
             else checker_executable(c.checker)}
            for c in cert.checks
        ],
        "lrat": {"file": LRAT_FILE, "made_by": "drat-trim -L (from proof.drat)",
                 "lines": cert.lrat.count("\n")} if cert.lrat is not None else None,
        "proof": {k: cert.stats[k] for k in ("lemmas", "deletions", "prefix_lemmas",
                                              "proof_bytes") if k in cert.stats}
        if cert.proof is not None else None,
        "cnf": {"variables": cert.nvars, "clauses": len(cert.formula)}
        if cert.formula is not None else None,
        "times_s": {k: round(v, 6) for k, v in cert.times.items()},
        "files": {name: _sha256(data) for name, data in files.items()},
        "nonosat": package_version("nonosat"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _dratify_version() -> str:
    import dratify

    native = " (native engine)" if dratify.native_implementation() is not None else ""
    return dratify.__version__ + native


def write_certificate(cert: Certificate, out_dir: str | os.PathLike[str],
                      force: bool = False) -> list[Path]:
    """Write the certificate directory (created if needed).

    Raises
    ------
    FormatError
        ``out_dir`` is a file, or an existing non-empty directory without ``force`` (with
        ``force``, the certificate files already there are replaced and stale ones removed;
        other files are left alone).
    """
    out = Path(out_dir)
    ensure_writable_dir(out, force)
    files = certificate_files(cert)
    out.mkdir(parents=True, exist_ok=True)
    for name in CERTIFICATE_FILES:
        if name not in files:
            (out / name).unlink(missing_ok=True)
    written = []
    for name, data in files.items():
        path = out / name
        tmp = out / f".{name}.nonosat-tmp"
        try:
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise FormatError(str(path), None, exc.strerror or str(exc)) from None
        written.append(path)
    return written


def ensure_writable_dir(out: Path, force: bool) -> None:
    """Refuse an ``out`` that is a file, or a non-empty directory without ``force``.

    Raises
    ------
    FormatError
    """
    if out.exists() and not out.is_dir():
        raise FormatError(str(out), None, "is a file, not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise FormatError(str(out), None, "directory is not empty; use --force to overwrite")


# -- verifying -----------------------------------------------------------------------------------
@dataclass
class Verification:
    """Outcome of :func:`verify_certificate`.

    Attributes
    ----------
    ok : bool
        Every check passed.
    verdict : str or None
        The verdict the certificate claims (``unique``/``none``/``multiple``).
    problems : list of str
        What failed, one sentence each (empty when ``ok``).
    checks : list of ProofCheck
        Proof checks that ran.
    puzzle : Puzzle or None
    time_s : float
    """

    ok: bool
    verdict: str | None
    problems: list[str]
    checks: list[ProofCheck]
    puzzle: Puzzle | None
    time_s: float

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {
            "ok": self.ok,
            "verdict": self.verdict,
            "problems": self.problems,
            "checks": [c.to_json() for c in self.checks],
            "puzzle": self.puzzle.fingerprint() if self.puzzle else None,
            "title": self.puzzle.describe() if self.puzzle else None,
            "checkers_accepted": [c.checker for c in self.checks if c.ok],
            "time_s": round(self.time_s, 6),
        }


def verify_certificate(
    cert_dir: str | os.PathLike[str],
    checkers: Sequence[str] = ("dratify",),
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

    cake_lpr checks the bundle's ``proof.lrat`` when there is one (else the LRAT drat-trim
    writes from ``proof.drat``), against the *re-derived* formula.  Files are read with a size
    cap and only when they are regular files (:func:`nonosat.safe_io.read_bounded`).

    Parameters
    ----------
    cert_dir : path
    checkers : sequence of str
        Proof checkers (see :func:`resolve_checkers`).
    timeout : float, optional
        Seconds for drat-trim.
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
    """
    start = time.perf_counter()
    root = Path(cert_dir)
    if not root.is_dir():
        raise FormatError(str(root), None, "not a certificate directory")
    names = resolve_checkers(checkers)
    problems: list[str] = []
    checks: list[ProofCheck] = []

    def done(verdict: str | None, puzzle: Puzzle | None) -> Verification:
        ok = not problems and (verdict == "multiple" or bool(checks))
        if not problems and not ok:
            problems.append("no proof checker ran")
        return Verification(ok, verdict, problems, checks, puzzle, time.perf_counter() - start)

    try:
        record = json.loads(_read(root / CERTIFICATE_FILE).decode("utf-8"))
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
            for line, expected, actual in puzzle.line_errors(sol)[:3]:
                problems.append(
                    f"{SOLUTION_FILE}: solution {k}: {puzzle.line_name(line)} should be "
                    f"{list(expected or ())} but is {list(actual)}"
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
        proof = _read(root / PROOF_FILE).decode("ascii")
        lrat = _read(root / LRAT_FILE).decode("ascii") if (root / LRAT_FILE).exists() else None
    except (OSError, UnicodeDecodeError, NonosatError) as exc:
        problems.append(f"{PROOF_FILE}: cannot be read: {exc}")
        return done(verdict, puzzle)
    if lrat is not None and LRAT_FILE not in (record.get("files") or {}):
        problems.append(f"{LRAT_FILE}: not listed in {CERTIFICATE_FILE}")
    for checker in names:
        check = check_proof(formula, enc.nvars, proof, checker, timeout, lrat=lrat)
        checks.append(check)
        if not check.ok:
            problems.append(f"{PROOF_FILE}: rejected by {checker}: {check.reason}")
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


#: Largest certificate file read (a proof of a 100x100 puzzle is a few MB).
MAX_CERTIFICATE_FILE_BYTES = 1 << 30


def _read(path: Path) -> bytes:
    """A certificate file's bytes: regular files only, at most
    :data:`MAX_CERTIFICATE_FILE_BYTES` (never blocks on a FIFO or reads ``/dev/zero``).

    Raises
    ------
    FormatError
    """
    from nonosat.safe_io import read_bounded

    return read_bounded(path, MAX_CERTIFICATE_FILE_BYTES, path.name)


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
            actual = _sha256(_read(root / name))
        except (OSError, NonosatError):
            problems.append(f"{name}: missing or unreadable")
            continue
        if actual != digest:
            problems.append(f"{name}: differs from the certified file (SHA-256)")


def _compare_cnf(path: Path, formula: list[Clause], nvars: int, problems: list[str]) -> None:
    from pysat.formula import CNF

    try:
        text = _read(path).decode("ascii")
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
