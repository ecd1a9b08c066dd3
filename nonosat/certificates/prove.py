"""Building a uniqueness certificate: decide, then refute the encoding plus the blocking clause.

See :mod:`nonosat.certificates` for the certificate's contents and the prover hook.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.certificates.checkers import (
    ProofCheck,
    ProofOutcome,
    checker_executable,
    drat_to_lrat,
    resolve_checkers,
    run_checks,
)
from nonosat.certificates.native_proof import Deletion, NativeProof, Step, proof_lines
from nonosat.certificates.proof_text import renumber_lrat
from nonosat.certificates.rup import RupChecker
from nonosat.encodings.cnf import (
    DEFAULT_ENCODING,
    PuzzleCnf,
    blocking_clause,
    check_encoding,
    encode,
)
from nonosat.encodings.satsolver import (
    DEFAULT_SOLVER,
    LRAT_SOLVERS,
    SatRun,
    proof_solver_name,
)
from nonosat.errors import PuzzleError
from nonosat.puzzle import Puzzle

Clause = list[int]
#: A prover hook: ``prover(encoding, formula) -> steps`` or a NativeProof (see the package
#: docstring).
Prover = Callable[..., "Sequence[Step] | NativeProof"]



# -- certifying ----------------------------------------------------------------------------------
#: :attr:`Certificate.lrat_source` values, and what ``certificate.json``'s ``lrat.made_by`` says.
LRAT_SOURCES = {
    "nonosat": "nonosat (hints from its own unit propagation over the proof's lemmas)",
    "cadical": "CaDiCaL (its own LRAT output, logged beside its DRAT proof)",
    "nonosat+cadical": "nonosat for the prover's lemmas, then CaDiCaL's own LRAT (renumbered)",
    "drat-trim": "drat-trim -L (from proof.drat)",
}


@dataclass
class Certificate(ProofOutcome):
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
        The LRAT form of the proof, made in-process (:func:`lrat_for`): the hints of the
        prover's lemmas found by nonosat's unit propagation
        (:class:`~nonosat.certificates.rup.RupChecker`), CaDiCaL's own LRAT for its part of the
        proof (renumbered after the prover's lemmas), or, for a SAT solver that logs DRAT only,
        the hints nonosat's unit propagation finds for each of its lemmas.  drat-trim -L only
        where none of these can (a lemma that is not RUP) and drat-trim is found; ``None``
        when nothing could (the default check then rejects).
    lrat_source : str or None
        Who wrote :attr:`lrat` (:data:`LRAT_SOURCES`).
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
    lrat_source: str | None = None


def certify(
    puzzle: Puzzle,
    *,
    encoding: str = DEFAULT_ENCODING,
    solver: str = DEFAULT_SOLVER,
    checkers: Sequence[str] = ("auto",),
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
    3. Make the LRAT form of the proof in-process (:attr:`Certificate.lrat`), and check the
       proof with ``checkers`` (:func:`~nonosat.certificates.checkers.run_checks`).

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
        Checker names for :func:`~nonosat.certificates.checkers.resolve_checkers`
        (default ``auto``: the default LRAT checker with the DRAT/LRAT agreement, then
        drat-trim and cake_lpr when found); empty to skip checking (the certificate is then
        not :attr:`Certificate.proved`).
    timeout : float, optional
        Seconds for the solving steps; verdict ``unknown`` when they run out.  Proof checking is
        not bounded (drat-trim gets the time that is left).
    prover : callable, optional
        ``prover(encoding, formula) -> steps``: DRAT steps put before the SAT solver's proof
        (package docstring); with an attribute ``takes_rup = True`` it is called as
        ``prover(encoding, formula, rup=checker)`` with the
        :class:`~nonosat.certificates.rup.RupChecker` that holds ``formula``, and may return
        the :class:`~nonosat.certificates.native_proof.NativeProof` it checked with it.
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
            answer, first, second = run.first_two(enc.solution, blocking_clause, deadline)
            cert.stats["find"] = run.stats()
        if first is not None and second is not None:
            cert.verdict = "multiple"
            cert.solutions = [first, second]
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
        names = resolve_checkers(checkers) if checkers else []
        if cert.lrat is None:
            cert.proof, cert.lrat, cert.lrat_source = lrat_for(
                cert.formula, enc.nvars, cert.proof, remaining)
            times["lrat"] = time.perf_counter() - t
        t = time.perf_counter()
        cert.checks = run_checks(cert.formula, enc.nvars, cert.proof, cert.lrat, names,
                                 remaining)
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
    asked for lemmas, and :attr:`Certificate.prover` says ``"propagation"``.  One
    :class:`RupChecker` serves the propagation test, the check of the prover's steps and their
    LRAT; when no SAT solver is needed, ``cert.lrat`` is its LRAT (``lrat_source``
    ``"nonosat"``)."""
    t = time.perf_counter()
    rup = RupChecker(formula, enc.nvars)
    if rup.refuted:
        cert.stats["prove"] = {"method": "unit propagation"}
        cert.proof = "0\n"
        cert.lrat, cert.lrat_source = rup.conflict_lrat(), "nonosat"
        cert.prover = "propagation"
        cert.times["prove"] = time.perf_counter() - t
        cert.stats.update(_proof_size(cert.proof, 0))
        return None
    written: NativeProof | None = None
    steps: list[Step] = []
    if prover is not None:
        made = (prover(enc, formula, rup=rup) if getattr(prover, "takes_rup", False)
                else prover(enc, formula))
        if isinstance(made, NativeProof):
            written = made
            steps = list(made.steps)
        else:
            steps = [s if isinstance(s, Deletion) else list(s) for s in made]
    own = written is not None and written.checker is not None
    if own:
        assert written is not None and written.checker is not None
        rup = written.checker  # it holds the formula and the steps
    if not own and steps:
        # steps nobody checked: check them here, to find their hints (a prover's steps may
        # also be RAT, which drat-trim and dratify check and this propagator does not)
        rup = RupChecker(formula, enc.nvars)
        own = rup.run([s.clause if isinstance(s, Deletion) else s for s in steps],
                      [isinstance(s, Deletion) for s in steps]) == len(steps)
    added = sum(1 for s in steps if not isinstance(s, Deletion))
    refutes = bool(steps) and steps[-1] == []
    try:
        if own and (refutes or rup.refuted):
            # the prover's lemmas refute the formula, or unit propagation does after them
            cert.stats["prove"] = {"method": "prover" if refutes else "unit propagation"}
            if not refutes:
                rup.run([[]])
            cert.proof = rup.drat()
            cert.lrat, cert.lrat_source = rup.lrat(), "nonosat"
            cert.prover = "native"
            return None
        live: dict[tuple[int, ...], list[Clause]] = {}  # the lemmas not deleted again
        for step in steps:
            if isinstance(step, Deletion):
                same = live.get(tuple(sorted(step.clause)))
                if same:
                    same.pop()
            else:
                live.setdefault(tuple(sorted(step)), []).append(step)
        lemmas = [c for same in live.values() for c in same]
        if not own and (refutes or RupChecker(formula + lemmas, enc.nvars).refuted):
            cert.stats["prove"] = {"method": "prover" if refutes else "unit propagation"}
            cert.proof = _proof_text(steps, [])
            cert.prover = "native"
            return None
        ids: list[int] = []
        if own:
            # the lemmas the checker holds (with the units it wrote for its hints), under the
            # IDs its LRAT gave them: the SAT solver's LRAT names them by its own IDs m+1..
            ids, lemmas = rup.live_lemmas()
        logs_lrat = proof_solver_name(solver).lower() in LRAT_SOLVERS and (own or not steps)
        with SatRun(formula + lemmas, solver, with_proof=True, lrat=logs_lrat) as run:
            answer = run.solve(deadline)
            cert.stats["prove"] = {"method": "sat", **run.stats()}
            if answer is None:
                return None
            if answer:
                return enc.solution(run.model())
            if own and steps:
                cert.proof = _proof_text([], [rup.drat().rstrip("\n"), *run.proof()])
            else:
                cert.proof = _proof_text(steps, run.proof())
            if logs_lrat:
                # CaDiCaL's clause IDs: the clauses given (formula, then the lemmas) and those
                # it derives, from one counter; renumbered after the prefix's LRAT
                prefix = own and bool(steps)
                lrat = renumber_lrat(run.lrat(), [*range(1, len(formula) + 1), *ids],
                                     (rup.last_id if prefix else len(formula)) + 1)
                if lrat is not None:
                    cert.lrat = (rup.lrat() if prefix else "") + lrat
                    cert.lrat_source = "nonosat+cadical" if prefix else "cadical"
            cert.prover = "native+sat" if steps else "sat"
            return None
    finally:
        cert.times["prove"] = time.perf_counter() - t
        if cert.proof is not None:
            cert.stats.update(_proof_size(cert.proof, added))


def lrat_for(formula: Sequence[Sequence[int]], nvars: int, proof: str,
             timeout: float | None = None) -> tuple[str, str | None, str | None]:
    """The LRAT form of a DRAT ``proof`` of ``formula``, made in-process: each lemma is checked
    by nonosat's unit propagation (:class:`~nonosat.certificates.rup.RupChecker`, forward),
    which records the clauses it used as the lemma's hints.  Deletions of clauses that are the
    reasons of literals unit propagation fixes at the root (CaDiCaL deletes such clauses) are
    left out of both proofs, as drat-trim ignores them, so that no hint names a deleted clause;
    the units the checker writes to shorten hints go into both.

    When a lemma is not RUP (a RAT step), drat-trim -L writes the LRAT if it is found.

    Returns
    -------
    (proof, lrat, source)
        The DRAT proof as the checker rewrote it (or ``proof`` itself), the LRAT (``None``
        when neither could make it) and who made it (``"nonosat"``, ``"drat-trim"`` or
        ``None``).
    """
    steps: list[list[int]] = []
    deleting: list[bool] = []
    for line in proof.splitlines():
        fields = line.split()
        if not fields or fields[0] == "c":
            continue
        gone = fields[0] == "d"
        try:
            lits = [int(v) for v in fields[1 if gone else 0:]]
        except ValueError:
            return proof, None, None
        if not lits or lits[-1] != 0 or any(abs(v) > nvars for v in lits):
            return proof, None, None
        steps.append(lits[:-1])
        deleting.append(gone)
    rup = RupChecker(formula, nvars)
    if rup.run(steps, deleting) == len(steps) and steps and steps[-1] == [] and not deleting[-1]:
        return rup.drat(), rup.lrat(), "nonosat"
    if checker_executable("drat-trim") is not None:
        lrat = drat_to_lrat(formula, nvars, proof, timeout)
        if lrat is not None:
            return proof, lrat, "drat-trim"
    return proof, None, None


def _proof_text(steps: Sequence[Step], solver_lines: Sequence[str]) -> str:
    """Text DRAT: the prefix steps, then the solver's lines, ending with the empty clause."""
    lines = proof_lines(steps)
    lines.extend(line for line in solver_lines if line)
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
