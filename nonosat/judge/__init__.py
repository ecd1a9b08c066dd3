"""Judging another solver's answers, with evidence anyone can check again.

A solver writer runs a solver over a corpus and gets, per puzzle, a verdict (``unique``,
``multiple``, ``none``, or ``solved`` for a first solution only) and perhaps a solution.  This
package judges each answer and backs every judgement with something anyone can check again:

=====================  ====================================  ====================================
claim                  confirmed by                          refuted by
=====================  ====================================  ====================================
a solution             every line matches its clue           the lines that break their clue
                                                             (expected and actual blocks)
``unique``             uniqueness certificate (DRAT proof)   two distinct valid solutions, or a
                                                             proof that there is no solution
``multiple``           two distinct valid solutions          uniqueness certificate, or a proof
                                                             that there is no solution
``none``               proof of unsatisfiability (DRAT)      a valid solution
``solved``             a valid solution                      proof of unsatisfiability
=====================  ====================================  ====================================

The verdict comes from the portfolio of ``nonosat solve`` (:func:`nonosat.verdict.decide`,
through :func:`nonosat.certificates.certifier.certify_any`), with the same time limit, so a
claim is judged on every puzzle ``solve`` decides; proofs come from the certifier (CNF
encoding, the native solver's deductions and a SAT solver logging DRAT and LRAT, checked by
nonosat's LRAT checker), and several solutions are a witness certificate
(:mod:`nonosat.certificates.witness`).  Every solution used as evidence is checked against the
clues here, line by line, independently of the encoding.

Batch form
----------
:func:`read_results` reads another solver's results file (JSON Lines or TSV with a header),
:class:`PuzzleIndex` finds the puzzle each row names (``file#N``, or the bare ``N`` of a
tournament set), and :func:`verify_results` judges the rows in parallel through
:mod:`nonosat.batch` (a worker process per core, killed from outside on overrun).  A row whose
puzzle cannot be found, or whose solution has the wrong size, gets a ``bad-row`` record: nothing
is skipped silently.

Witness directory
-----------------
:func:`write_witness` writes the evidence of a judgement as files anyone can check again
(``verdict.json``, the solutions, the line errors, the certificate): see
:mod:`nonosat.judge.evidence`.

Modules
-------
=========================  ======================================================================
:mod:`.claims`             the verdicts that can be claimed, and how other solvers spell them
:mod:`.solution`           a submitted solution: parsed, and checked line by line against the clues
:mod:`.answer`             judging one answer (:func:`verify`, :class:`Judgement`)
:mod:`.evidence`           the witness directory of a judgement
:mod:`.results_files`      reading another solver's results file, finding the puzzle of each row
:mod:`.parallel`           judging every row of a results file in worker processes
:mod:`.report`             the summary of a results file's judgements
=========================  ======================================================================

Nothing here prints.  :mod:`nonosat.cli.verify` is the command (``nonosat verify``).
"""

from nonosat.judge.answer import Judgement, verify
from nonosat.judge.claims import CLAIM_WORDS, CLAIMS, OUTCOMES, parse_claim
from nonosat.judge.evidence import witness_dir, witness_files, write_files, write_witness
from nonosat.judge.parallel import verify_results
from nonosat.judge.results_files import MAX_RESULTS_BYTES, PuzzleIndex, ResultRow, read_results
from nonosat.judge.solution import LineError, SolutionCheck, check_solution, parse_solution
from nonosat.judge.summary import VerifySummary, summarise_verdicts

__all__ = [
    "CLAIMS", "CLAIM_WORDS", "Judgement", "LineError", "MAX_RESULTS_BYTES", "OUTCOMES",
    "PuzzleIndex", "ResultRow", "SolutionCheck", "VerifySummary", "check_solution",
    "parse_claim", "parse_solution", "read_results", "summarise_verdicts", "verify",
    "verify_results", "witness_dir", "witness_files", "write_files", "write_witness",
]
