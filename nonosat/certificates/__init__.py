"""Uniqueness certificates: a CNF, a DRAT (and LRAT) proof, and the checks anyone can repeat.

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
``proof.lrat``     the same refutation as LRAT (lemmas with their hints), when made (below)
``solution.txt``   the solution, one row per line, ``#`` filled and ``.`` empty
``certificate.json``  puzzle fingerprint, verdict, solution, encoding name and version, solver,
                   checkers and their verdicts, times, proof size, SHA-256 of every file
=================  ===========================================================================

A puzzle without solution gets ``puzzle.cnf`` (the encoding alone) and a proof of its
unsatisfiability, and no ``solution.txt``.  A puzzle with several solutions gets no proof but a
witness certificate (:mod:`~nonosat.certificates.witness`: two distinct solutions, each checked
against the clues); directories of earlier versions, whose ``solution.txt`` holds the two
solutions separated by a blank line, still verify.

Proof checkers
--------------
Every certificate carries ``proof.lrat``, made in-process (:attr:`Certificate.lrat_source`):
nonosat's unit propagation writes the hints of the lemmas no SAT solver wrote
(:mod:`~nonosat.certificates.rup`), CaDiCaL 1.9.5 logs its own LRAT beside its DRAT
(:class:`~nonosat.encodings.satsolver.SatRun` with ``lrat=True``; renumbered after the native
lemmas), and for SAT solvers that log DRAT only nonosat checks each lemma forward and records
its hints (:func:`~nonosat.certificates.prove.lrat_for`).  drat-trim ``-L`` only when a lemma
is not RUP and drat-trim is found.

``nonosat-lrat`` (the default)
    :func:`nonosat.certificates.lrat_check.check_lrat` on ``proof.lrat``, with the check that
    the LRAT's lemmas are the DRAT's (``drat-lrat-agreement``,
    :func:`~nonosat.certificates.lrat_check.lemmas_agree`); the verdict rests on these.
``dratify``
    forward DRAT checker from PyPI, in-process.  Not sound on deletions (it keeps a literal
    whose reason clause was deleted): it never decides alone, the default check runs with it.
``drat-trim``
    Heule's backward checker (github.com/marijnheule/drat-trim), run as ``drat-trim CNF PROOF``.
``cake_lpr``
    the CakeML LRAT/LPR checker (github.com/tanyongkiam/cake_lpr), whose correctness is proved
    in HOL4 (Tan, Heule, Myreen, "cake_lpr: Verified Propagation Redundancy Checking in
    CakeML", TACAS 2021), on ``proof.lrat``, with the agreement check.

:func:`~nonosat.certificates.checkers.run_checks` decides which run (``auto``: the default
check, then drat-trim and cake_lpr when found); ``docs/certificates.md`` has the whole story.

The external checkers are looked up in the directories of ``NONOSAT_CHECKER_PATH`` (what
``--checker-path`` sets), then on ``PATH`` (:func:`checker_executable`).

Proof prefix (for other provers)
--------------------------------
:func:`certify` takes an optional ``prover``: a callable that receives the encoding and the
formula to refute and returns DRAT steps: lemma clauses (e.g. a propagation solver's deductions,
each RUP with respect to the formula and the earlier lemmas) and
:class:`~nonosat.certificates.native_proof.Deletion` steps for lemmas no longer needed.  The steps
are written first in the proof and the lemmas still present are given to the SAT solver as
clauses, so that its own proof continues from them; when they end with the empty clause the SAT
solver is not run at all.  :mod:`nonosat.certificates.native_proof` writes such steps from the
native solver's deduction trace; :attr:`Certificate.prover` records who wrote the proof.
The steps are checked by unit propagation as the proof is made
(:class:`~nonosat.certificates.rup.RupChecker`, which finds their LRAT hints at the same time);
steps it cannot justify (e.g. RAT steps) are left to the DRAT checkers, and the LRAT then comes
from drat-trim.  A prover may instead return a
:class:`~nonosat.certificates.native_proof.NativeProof` it checked with the checker it was given
(``prover(encoding, formula, rup=checker)`` when the callable has ``takes_rup = True``).

Modules
-------
:mod:`~nonosat.certificates.prove` builds the proof (:func:`certify`);
:mod:`~nonosat.certificates.native_proof` turns the native solver's deduction trace (data) into
proof lemmas; :mod:`~nonosat.certificates.rup` checks lemmas by unit propagation and writes
LRAT; :mod:`~nonosat.certificates.checkers` runs dratify, drat-trim and cake_lpr;
:mod:`~nonosat.certificates.bundle` writes and reads the certificate directory (files, hashes);
:mod:`~nonosat.certificates.recheck` checks a directory again without trusting it
(:mod:`~nonosat.certificates.verification`: the outcome);
:mod:`~nonosat.certificates.colour_proofs` does the same for colour puzzles;
:mod:`~nonosat.certificates.witness` writes and checks witnesses of several solutions.  These
build on :mod:`nonosat.encodings` (the CNF) and the model, never on :mod:`nonosat.native`.
:mod:`~nonosat.certificates.certifier` (``certify_puzzle``, what ``nonosat certify`` runs) sits
above them and the engines: it takes the portfolio's verdict, runs the native prover and writes
the certificate; this ``__init__`` does not import it.
"""

from nonosat.certificates.bundle import (
    CERTIFICATE_FILE,
    CERTIFICATE_FILES,
    CNF_FILE,
    LRAT_FILE,
    PROOF_FILE,
    PUZZLE_FILE,
    SOLUTION_FILE,
    certificate_files,
    ensure_writable_dir,
    read_puzzle_json,
    write_certificate,
)
from nonosat.certificates.checkers import (
    CHECKER_PATH_ENV,
    CHECKERS,
    ProofCheck,
    check_proof,
    checker_executable,
    drat_to_lrat,
    resolve_checkers,
)
from nonosat.certificates.prove import Certificate, certify
from nonosat.certificates.recheck import verify_certificate
from nonosat.certificates.verification import Verification

__all__ = [
    "CERTIFICATE_FILE", "CERTIFICATE_FILES", "CHECKERS", "CHECKER_PATH_ENV", "CNF_FILE",
    "Certificate", "LRAT_FILE", "PROOF_FILE", "PUZZLE_FILE", "ProofCheck", "SOLUTION_FILE",
    "Verification", "certificate_files", "certify", "check_proof", "checker_executable",
    "drat_to_lrat", "ensure_writable_dir", "read_puzzle_json", "resolve_checkers", "verify_certificate",
    "write_certificate",
]
