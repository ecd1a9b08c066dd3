"""Uniqueness certificates written by the native solver, the SAT solver, or both.

:func:`nonosat.certificates.certify` refutes *CNF + blocking clause* with a SAT solver's
DRAT proof, and accepts a prefix of lemmas from another prover.  This module is that other
prover's driver: it runs the native solver's root node (propagation and probing,
:class:`nonosat.native.search.NativeSearch`), hands its deduction trace to
:func:`nonosat.certificates.native_proof.native_lemmas`, and the certificate writer puts the lemmas
first.  It sits above both the native solver and the encodings, which never import each other.

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

Whatever wrote it, the proof is checked the same way (:func:`~nonosat.certificates.\
check_proof`) and :attr:`~nonosat.certificates.Certificate.prover` records who wrote
it (``certificate.json``: ``"prover"``).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from nonosat.certificates import Certificate, certify
from nonosat.certificates.native_proof import NativeProof, native_lemmas
from nonosat.certificates.rup import RupChecker
from nonosat.encodings.cnf import DEFAULT_ENCODING, PuzzleCnf
from nonosat.encodings.satsolver import DEFAULT_SOLVER
from nonosat.errors import EngineError, ProverRefusedError
from nonosat.puzzle import Cell, Puzzle

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
    if name not in PROVERS:
        raise EngineError(f"unknown prover {name!r}; choose one of {', '.join(PROVERS)}")
    return name


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
        Seconds for the solving steps (the native root node cannot be interrupted).
    line_units : bool
        Write a lemma for each line deduction (see
        :func:`~nonosat.certificates.native_proof.native_lemmas`).

    Returns
    -------
    Certificate
        ``cert.prover`` is ``"native"``, ``"sat"`` or ``"native+sat"``; ``cert.times["native"]``
        the seconds of the native root node (also counted in ``"total"``);
        ``cert.stats["native"]`` the native lemmas' counters
        (:meth:`~nonosat.certificates.native_proof.NativeProof.stats`) and the root's solver
        counters.

    Raises
    ------
    EngineError
        Unknown prover, solver or checker; ``prover="native"`` on a puzzle the native solver
        does not decide at the root.
    PuzzleError
        Unknown encoding.
    """
    check_prover(prover)
    if puzzle.is_colour:
        raise EngineError(
            "colour puzzles are certified by nonosat.certificates.colour.certify_colour "
            "(what 'nonosat certify' runs for them)"
        )
    encoding = encoding or (DEFAULT_ENCODING if prover == "sat" else NATIVE_ENCODING)
    if prover == "sat":
        with _gc_paused():
            return certify(puzzle, encoding=encoding, solver=solver, checkers=checkers,
                           timeout=timeout)

    from nonosat.native.search import NativeSearch

    start = time.perf_counter()
    search = NativeSearch(puzzle, limit=2)
    search.step(1)  # the root node: propagation and probing, then at most one decision
    root_known = int(search.stats()["root_known"])
    complete = root_known == puzzle.height * puzzle.width
    native_s = time.perf_counter() - start
    solution = None
    if complete:
        solution = search.root_grid() == Cell.FILLED
    elif prover == "native" and not search.trace().contradiction:
        raise ProverRefusedError(
            f"the native solver needs search on this puzzle (propagation and probing fix "
            f"{root_known} of {puzzle.height * puzzle.width} cells), so its deductions cannot "
            "prove uniqueness alone; use --prover auto or sat"
        )
    written: list[NativeProof] = []

    def native_prover(enc: PuzzleCnf, formula: list[list[int]],
                      rup: RupChecker | None = None) -> NativeProof:
        # the trace is read only here: a formula that unit propagation refutes needs none
        t = time.perf_counter()
        deductions = search.trace().deductions
        proof = native_lemmas(enc, formula, deductions, line_units=line_units, rup=rup,
                              skip_implied=True)
        proof.time_s = time.perf_counter() - t  # with reading the trace
        written.append(proof)
        return proof

    native_prover.takes_rup = True  # type: ignore[attr-defined]

    remaining = None if timeout is None else max(timeout - native_s, 0.0)
    with _gc_paused():
        cert = certify(puzzle, encoding=encoding, solver=solver, checkers=checkers,
                       timeout=remaining, prover=native_prover, solution=solution)
    cert.times["native"] = native_s
    cert.times["total"] = cert.times.get("total", 0.0) + native_s
    cert.stats["native"] = {
        "root_known": root_known,
        "complete": complete,
        "search": search.stats(),
        **(written[-1].stats() if written else {}),
    }
    return cert



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
