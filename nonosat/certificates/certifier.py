"""The certifier: a puzzle's verdict from the portfolio, then the certificate that backs it,
written by the native solver, the SAT solver, or both.

:func:`nonosat.certificates.certify` refutes *CNF + blocking clause* with a SAT solver's
DRAT proof, and accepts a prefix of lemmas from another prover.  This module is that other
prover's driver: it runs the native solver's root node (propagation and probing,
:class:`nonosat.native.search.NativeSearch`), hands its deduction trace to
:func:`nonosat.certificates.native_proof.native_lemmas`, and the certificate writer puts the lemmas
first.  It is the one module of :mod:`nonosat.certificates` above the engines: it sits above
both the native solver and the encodings, which never import each other; nothing else in the
package imports it (the package's ``__init__`` does not).

=========  ==========================================================================
prover     proof
=========  ==========================================================================
``native`` the native solver's deductions as lemmas, one or a few per cell, then the empty
           clause; only for puzzles the native solver decides at the root, without
           search (:class:`~nonosat.errors.EngineError` otherwise)
``sat``    the SAT solver's DRAT proof alone (the certificate writer as it is)
``auto``   ``native`` where the native solver decides the puzzle without search; otherwise
           the SAT solver, given the formula plus the native root deductions, continues the
           proof after them (``native+sat``)
=========  ==========================================================================

The verdict comes first, from the portfolio every command decides with
(:func:`nonosat.verdict.decide`, the ``auto`` engine of ``nonosat solve``), unless the native
root node already fixes every cell: a puzzle with several solutions gets its two solutions as a
witness certificate (:mod:`nonosat.certificates.witness`), whatever the prover; a unique puzzle's
solution is handed to :func:`~nonosat.certificates.certify` (``solution=``), which then only
writes and checks the proof.  :func:`certify_colour_puzzle` does the same for colour puzzles.

Whatever wrote it, the proof is checked the same way (:func:`~nonosat.certificates.\
check_proof`) and :attr:`~nonosat.certificates.Certificate.prover` records who wrote
it (``certificate.json``: ``"prover"``).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nonosat.certificates import Certificate, certify
from nonosat.certificates.native_proof import NativeProof, native_lemmas
from nonosat.certificates.rup import RupChecker
from nonosat.encodings.cnf import DEFAULT_ENCODING, ENCODING_VERSIONS, PuzzleCnf
from nonosat.encodings.satsolver import DEFAULT_SOLVER, proof_solver_name
from nonosat.engines import SolveResult, Status
from nonosat.errors import EngineError, ProverRefusedError, check_known
from nonosat.puzzle import Puzzle
from nonosat.verdict import decide, load_portfolio, remaining

#: Provers :func:`certify_puzzle` knows.
PROVERS = ("auto", "native", "sat")

#: Encoding used by the native prover when none is named: ``order``, by measurement
#: (``benchmarks/bench_proofs.py``).  The native proof has the same size on the
#: propagation-complete ``regular`` encoding, but dratify checks it 3 to 15 times slower (more
#: clauses and variables to propagate: webpbn #1611 Merka 0.44 s against 1.3 s, #803 0.24 s
#: against 3.3 s), while on ``order`` propagation misses only a few probing steps (0 to 14 per
#: puzzle on the survey and taai2011), which the proof writer derives by SAT.
NATIVE_ENCODING = DEFAULT_ENCODING


def check_prover(name: str) -> str:
    """Return ``name`` if it is a known prover.

    Raises
    ------
    EngineError
        Unknown prover; the message lists the known ones.
    """
    return check_known(name, PROVERS, "prover")


def certify_puzzle(
    puzzle: Puzzle,
    *,
    prover: str = "auto",
    encoding: str | None = None,
    solver: str = DEFAULT_SOLVER,
    checkers: Sequence[str] = ("auto",),
    timeout: float | None = None,
    line_units: bool = True,
) -> Certificate:
    """Decide whether ``puzzle`` has exactly one solution and prove it with the chosen prover.

    Parameters
    ----------
    puzzle : Puzzle
    prover : str
        ``"auto"`` (default), ``"native"`` or ``"sat"`` (module docstring).
    encoding : str, optional
        CNF line encoding; default :data:`~nonosat.encodings.cnf.DEFAULT_ENCODING`.  Native
        lemmas are RUP by construction on a propagation-complete encoding (``regular``); on
        the others each one is checked by propagation and the few that propagation does not
        derive are derived by a small SAT refutation
        (:func:`~nonosat.certificates.native_proof.native_lemmas`).
    solver : str
        PySAT solver for the SAT part.
    checkers : sequence of str
        Proof checkers (:func:`~nonosat.certificates.checkers.resolve_checkers`; default
        ``auto``: the LRAT checker with the DRAT/LRAT agreement, drat-trim and cake_lpr when
        found); empty to skip checking.
    timeout : float, optional
        Seconds for the verdict and the proof together, as ``nonosat solve`` gets them for its
        verdict (the native root node cannot be interrupted); proof checking is not bounded.
    line_units : bool
        Write a lemma for each line deduction (see
        :func:`~nonosat.certificates.native_proof.native_lemmas`).

    Returns
    -------
    Certificate
        Verdict ``multiple``: the first two solutions the portfolio found, no proof
        (``prover`` ``"none"``; write it with :func:`write_certificate_of`, a witness
        certificate); ``unknown``: time ran out (the solution found so far, if any).
        Otherwise ``cert.prover`` is ``"native"``, ``"sat"``, ``"native+sat"`` or
        ``"propagation"``.  ``cert.times``: ``decide`` (the portfolio's verdict), ``native``
        (its native solver's part), ``total`` (everything but ``load``), ``load`` (loading the
        engine's kernels and libraries, a process's first time); ``cert.stats["decided_by"]``
        the engine that gave the verdict; ``cert.stats["native"]`` the native lemmas' counters
        (:meth:`~nonosat.certificates.native_proof.NativeProof.stats`) and the native solver's.

    Raises
    ------
    EngineError
        Unknown prover, solver or checker; ``prover="native"`` on a unique (or unsolvable)
        puzzle the native solver does not decide at the root; a proof step that contradicts the
        portfolio's verdict (a bug).
    PuzzleError
        Unknown encoding.
    """
    check_prover(prover)
    if puzzle.is_colour:
        raise EngineError(
            "colour puzzles are certified by nonosat.certificates.certifier.certify_colour_puzzle "
            "(what 'nonosat certify' runs for them)"
        )
    encoding = encoding or (DEFAULT_ENCODING if prover == "sat" else NATIVE_ENCODING)
    solver = proof_solver_name(solver)
    load_s = load_portfolio()  # kernels and libraries: reported apart, as 'solve' does
    start = time.perf_counter()
    decision = decide(puzzle, timeout=timeout)  # the verdict, as 'nonosat solve' gives it
    early = _decided_without_proof(puzzle, decision, encoding, solver, start, load_s)
    if early is not None:
        return early
    solution = decision.solutions[0] if decision.status is Status.UNIQUE else None
    if prover == "sat":
        with _gc_paused():
            cert = certify(puzzle, encoding=encoding, solver=solver, checkers=checkers,
                           timeout=remaining(timeout, start), solution=solution)
        return _agrees(cert, decision, start, load_s)

    # the portfolio's native part ran the root node (propagation and probing): its deductions
    # are the proof's first lemmas
    from nonosat.native.trace import Trace

    trace = decision.trace
    if not isinstance(trace, Trace):
        raise EngineError(f"the portfolio ({decision.engine}) returned no native deduction trace")
    root_known = len(trace.deductions)
    if not trace.complete and not trace.contradiction and prover == "native":
        raise ProverRefusedError(
            f"the native solver needs search on this puzzle (propagation and probing fix "
            f"{root_known} of {puzzle.height * puzzle.width} cells), so its deductions cannot "
            "prove uniqueness alone; use --prover auto or sat"
        )
    written: list[NativeProof] = []

    def native_prover(enc: PuzzleCnf, formula: list[list[int]],
                      rup: RupChecker | None = None) -> NativeProof:
        t = time.perf_counter()
        proof = native_lemmas(enc, formula, trace.deductions, line_units=line_units, rup=rup,
                              skip_implied=True)
        proof.time_s = time.perf_counter() - t
        written.append(proof)
        return proof

    vars(native_prover)["takes_rup"] = True  # prove.certify then passes its RupChecker

    with _gc_paused():
        cert = certify(puzzle, encoding=encoding, solver=solver, checkers=checkers,
                       timeout=remaining(timeout, start), prover=native_prover,
                       solution=solution)
    _agrees(cert, decision, start, load_s)
    search = decision.stats.get("native", {})
    cert.times["native"] = float(search.get("kernel_s", 0.0))
    cert.stats["native"] = {
        "root_known": root_known,
        "complete": trace.complete,
        "search": search,
        **(written[-1].stats() if written else {}),
    }
    return cert


def _decided_without_proof(puzzle: Puzzle, decision: SolveResult, encoding: str, solver: str,
                           start: float, load_s: float) -> Certificate | None:
    """The certificate of a verdict that needs no proof, or ``None`` when one is to be written:
    ``multiple`` (two solutions, the witness) or ``unknown`` (time ran out; the solution found
    so far, if any).  ``times["load"]`` is the engine's loading time (not in ``total``)."""
    if decision.status not in (Status.MULTIPLE, Status.UNKNOWN):
        return None
    verdict = "multiple" if decision.status is Status.MULTIPLE else "unknown"
    solutions = list(decision.solutions[:2] if verdict == "multiple" else decision.solutions[:1])
    elapsed = time.perf_counter() - start
    return Certificate(puzzle, verdict, solutions, encoding, ENCODING_VERSIONS[encoding], solver,
                       times={"decide": decision.time_s, "total": elapsed,
                              "load": load_s + decision.load_s},
                       stats={"decided_by": decision.engine}, prover="none")


def _agrees(cert: Any, decision: SolveResult, start: float, load_s: float) -> Any:
    """``cert`` (black-and-white or colour) after the proof step, checked against the
    portfolio's ``decision``; the decision's time and engine, and the loading time (``load``,
    not in ``total``), are recorded.

    Raises
    ------
    EngineError
        The proof step contradicts the decision (a second solution after ``unique``, a solution
        after ``none``): a bug in nonosat, never passed as a verdict.
    """
    expected = {Status.UNIQUE: "unique", Status.NONE: "none"}[decision.status]
    if cert.verdict not in (expected, "unknown"):
        raise EngineError(f"the portfolio ({decision.engine}) says {expected} but the "
                          f"certifier found {cert.verdict}: a bug in nonosat")
    cert.times["decide"] = decision.time_s
    cert.times["total"] = time.perf_counter() - start
    cert.times["load"] = load_s + decision.load_s
    if isinstance(getattr(cert, "stats", None), dict):
        cert.stats["decided_by"] = decision.engine
    return cert


def certify_colour_puzzle(
    puzzle: Puzzle,
    *,
    solver: str = DEFAULT_SOLVER,
    checkers: Sequence[str] = ("auto",),
    timeout: float | None = None,
) -> Any:
    """:func:`certify_puzzle` of a colour puzzle: the portfolio decides
    (:func:`nonosat.verdict.decide`); several solutions are a witness, and otherwise
    :func:`nonosat.certificates.colour_proofs.certify_colour` writes and checks the proof in the time
    that is left.

    Returns
    -------
    nonosat.certificates.colour_proofs.ColourCertificate
        Verdict ``multiple`` with two solutions (no proof), ``unknown``, or the proof's.

    Raises
    ------
    EngineError
        As :func:`certify_colour`, or a proof step that contradicts the decision.
    """
    from nonosat.certificates.colour_proofs import ColourCertificate, certify_colour

    if not puzzle.is_colour:
        raise EngineError("certify_colour_puzzle takes a colour puzzle; use certify_puzzle")
    solver = proof_solver_name(solver)
    load_s = load_portfolio(colour=True)
    start = time.perf_counter()
    decision = decide(puzzle, timeout=timeout)
    if decision.status in (Status.MULTIPLE, Status.UNKNOWN):
        several = decision.status is Status.MULTIPLE
        return ColourCertificate(
            puzzle, "multiple" if several else "unknown",
            list(decision.solutions[:2] if several else decision.solutions[:1]), solver,
            times={"decide": decision.time_s, "total": time.perf_counter() - start,
                   "load": load_s + decision.load_s},
        )
    cert = certify_colour(puzzle, solver=solver, checkers=list(checkers),
                          timeout=remaining(timeout, start))
    return _agrees(cert, decision, start, load_s)


def certify_any(
    puzzle: Puzzle,
    *,
    prover: str = "auto",
    solver: str = DEFAULT_SOLVER,
    checkers: Sequence[str] = ("auto",),
    timeout: float | None = None,
    encoding: str | None = None,
) -> Any:
    """:func:`certify_puzzle` (black-and-white) or :func:`certify_colour_puzzle` (colour):
    what ``nonosat certify`` and ``nonosat verify`` run.

    Returns
    -------
    Certificate or ColourCertificate
    """
    if puzzle.is_colour:
        return certify_colour_puzzle(puzzle, solver=solver, checkers=checkers, timeout=timeout)
    return certify_puzzle(puzzle, prover=prover, encoding=encoding, solver=solver,
                          checkers=checkers, timeout=timeout)


def is_witness(cert: Any) -> bool:
    """Whether ``cert`` (black-and-white or colour) is a witness of several solutions: verdict
    ``multiple`` and two solutions."""
    return cert.verdict == "multiple" and len(cert.solutions) >= 2


def certificate_files_of(cert: Any) -> dict[str, bytes]:
    """The files of ``cert``'s directory (name -> bytes): a witness certificate
    (:func:`nonosat.certificates.witness.witness_files`) for several solutions, else the
    uniqueness certificate's files (black-and-white or colour).

    Raises
    ------
    InvalidSolutionError
        A witness whose solutions break a clue or are equal (never written).
    """
    if is_witness(cert):
        from nonosat.certificates.witness import witness_files

        return witness_files(cert.puzzle, cert.solutions, found_by=_found_by(cert),
                             times=cert.times)
    if cert.puzzle.is_colour:
        from nonosat.certificates.colour_proofs import colour_certificate_files

        return colour_certificate_files(cert)
    from nonosat.certificates import certificate_files

    return certificate_files(cert)


def write_certificate_of(cert: Any, out_dir: str | os.PathLike[str],
                         force: bool = False) -> list[Path]:
    """Write ``cert``'s directory (see :func:`certificate_files_of`); the caller has checked
    that ``out_dir`` may be written (:func:`nonosat.certificates.ensure_writable_dir`).

    Raises
    ------
    FormatError
        A file that cannot be written.
    InvalidSolutionError
        As :func:`certificate_files_of`.
    """
    if is_witness(cert):
        from nonosat.certificates.witness import write_witness_certificate

        return write_witness_certificate(cert.puzzle, cert.solutions, out_dir, force=force,
                                         found_by=_found_by(cert), times=cert.times)
    if cert.puzzle.is_colour:
        from nonosat.certificates.colour_proofs import write_colour_certificate

        return write_colour_certificate(cert, out_dir, force)
    from nonosat.certificates import write_certificate

    return write_certificate(cert, out_dir, force=force)


def _found_by(cert: Any) -> str | None:
    stats = getattr(cert, "stats", None)
    return stats.get("decided_by") if isinstance(stats, dict) else None


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: encoding, proof writing and dratify allocate a list
    per clause and create no cycles, and collections over them cost a third to a half of the
    time of a large certificate (measured on webpbn #1611: encode 0.23 -> 0.06 s, dratify
    1.4 -> 0.8 s)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
