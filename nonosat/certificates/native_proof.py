"""DRAT lemmas from the native solver's deduction trace.

The native solver fixes cells by line solving, failed literals and probing, and can say why for
each cell (its *deduction trace*: cell, value, stage, line or probed cell, in order).  This
module turns such a trace into a DRAT proof prefix over a puzzle's CNF encoding
(:mod:`nonosat.encodings.cnf`), so that a certificate costs about one lemma per cell instead of
a SAT solver's search log.  For cell literal ``l`` (``x`` for the probed cell, filled):

===================  ===================================  ========================================
stage                lemmas                               why each is RUP
===================  ===================================  ========================================
``line``             ``l``                                assuming ``~l``, unit propagation on the
                                                          line's clauses and the earlier units
                                                          finds the conflict the line solver found
``failed-literal``   ``l``                                assuming ``~l`` (the failed value of
                                                          the cell), propagation over the whole
                                                          grid ends in a conflict
``probe-both``       ``~x | l``, ``l``, then ``d ~x | l``  ``x & ~l`` propagates to a conflict
                                                          (``x`` forces ``l``); then ``~l`` gives
                                                          ``~x`` by the binary clause, which
                                                          forces ``l`` too
``given``            ``l``                                RUP only when the formula has the unit
===================  ===================================  ========================================

Each of these holds when unit propagation on the encoding sees what the line solver sees: it is
guaranteed for the *propagation-complete* encodings (:data:`~nonosat.encodings.cnf.\
PROPAGATION_COMPLETE`, ``regular``).  For the others (``order``, ``dfa``) it may fail, so every
step is checked (by default on every encoding) by a compiled unit propagator that holds the
formula and the lemmas so far (:class:`~nonosat.certificates.rup.RupChecker`), which also
records the clauses each check used: the lemma's LRAT hints (:attr:`NativeProof.lrat`).  A
clause ``D`` that propagation does not derive is derived by an incremental SAT solver (made on
first need) solving under the assumptions ``~D``: the clauses it learns follow from the formula
and the lemmas whatever the assumptions, so they are written (and checked, with their hints) as
lemmas before ``D``, which they make RUP.  The number of such steps is reported
(:attr:`NativeProof.filled`).  With ``skip_implied``, unit lemmas that propagation already gives
are left out, and so is everything after propagation finds the conflict, but the empty clause.

When the trace fixes every cell and the formula ends with the blocking clause of that grid (a
uniqueness certificate), the units falsify the blocking clause and the proof ends with the
empty clause.  Otherwise the lemmas are a prefix: a SAT solver given the formula plus these
lemmas continues the proof (:func:`nonosat.certificates.certify`).

This module reads traces by duck typing and never imports the native solver (the encodings and
the solver are independent; the engines sit above both).

References
----------
.. [1] M. J. H. Heule, W. A. Hunt Jr., N. Wetzler, "Trimming while checking clausal proofs",
   FMCAD 2013 (DRAT, RUP).
.. [2] F. Bacchus, "GAC via unit propagation", CP 2007 (why line deductions are RUP lemmas
   under the regular encoding).
.. [3] J. W. Freeman, "Improvements to propositional satisfiability search algorithms", 1995
   (failed literals).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nonosat.certificates.rup import RupChecker
from nonosat.encodings.cnf import PROPAGATION_COMPLETE, PuzzleCnf, cell_var
from nonosat.encodings.satsolver import solver_name
from nonosat.errors import EngineError, PuzzleError
from nonosat.puzzle import Cell

Clause = list[int]

#: Deduction stages this module knows (the native solver's names).
STAGES = ("line", "failed-literal", "probe-both", "given")

#: SAT solver that checks each step by propagation and derives those propagation does not give
#: (incremental, with assumptions, logging DRAT: Glucose 4).  Measured on webpbn #803 (order
#: encoding, 489 probing deductions): 5 steps derived, 38 learnt lemmas, 0.03 s for the whole
#: proof; a fresh refutation of the formula per step instead needed 254 of them (the learnt
#: clauses of one make later ones RUP), 10 s and 1,500 lemmas.  CaDiCaL 1.9.5 logs 3 times more
#: lemmas than Glucose on the same steps (Nonogram/games/football.json).
FILL_SOLVER = "Glucose4"


@dataclass(frozen=True)
class Deletion:
    """A DRAT deletion step: ``clause`` is no longer needed by the proof."""

    clause: Clause


#: One proof step: a clause added (a lemma; ``[]`` is the empty clause) or a :class:`Deletion`.
Step = Clause | Deletion


@dataclass
class NativeProof:
    """DRAT steps written from a deduction trace.

    Attributes
    ----------
    steps : list of (list of int or Deletion)
        Lemmas (clauses added, in order) and deletions.
    lemmas : int
        Clauses added (the empty clause included).
    deletions : int
        Deletion steps.
    filled : int
        Trace steps that unit propagation does not derive on this encoding, derived by a SAT
        refutation instead (always 0 on a propagation-complete encoding).
    implied : int
        Unit lemmas left out because unit propagation already gave them when they came
        (``skip_implied``).
    refutes : bool
        Whether the steps end with the empty clause (the trace refutes the formula by itself).
    verified : bool
        Whether each step was checked with a propagator while it was written.
    drat : str or None
        Text DRAT of :attr:`steps` (written by the checker), when verified.
    lrat : str or None
        Text LRAT of :attr:`steps` over the formula's clause IDs (``1..m``, then each lemma the
        next ID), each lemma with the hints unit propagation found for it, when verified.
    checker : RupChecker or None
        The checker that checked the steps, holding the formula and them (when verified).
    stages : dict of str to int
        Deductions per stage.
    time_s : float
        Seconds spent writing (and checking) the steps.
    """

    steps: list[Step] = field(default_factory=list)
    lemmas: int = 0
    deletions: int = 0
    filled: int = 0
    implied: int = 0
    refutes: bool = False
    verified: bool = False
    stages: dict[str, int] = field(default_factory=dict)
    time_s: float = 0.0
    drat: str | None = field(default=None, repr=False)
    lrat: str | None = field(default=None, repr=False)
    checker: RupChecker | None = field(default=None, repr=False)

    def stats(self) -> dict[str, Any]:
        """The counters as a JSON-serialisable dict."""
        return {"lemmas": self.lemmas, "deletions": self.deletions, "filled": self.filled,
                "implied": self.implied,
                "refutes": self.refutes, "verified": self.verified, "stages": dict(self.stages),
                "time_s": round(self.time_s, 6)}


@dataclass(frozen=True)
class _Deduction:
    cell: tuple[int, int]
    value: int
    stage: str
    probe: tuple[int, int] | None


def _deductions(deductions: Iterable[Any]) -> list[_Deduction]:
    """Read deductions: objects with ``cell``, ``value``, ``stage`` (and ``probe``) attributes,
    or tuples ``(cell, value, stage[, line[, probe]])``."""
    out = []
    for k, d in enumerate(deductions):
        if isinstance(d, tuple):
            cell, value, stage = d[0], d[1], d[2]
            probe = d[4] if len(d) > 4 else None
        else:
            cell, value, stage = d.cell, d.value, d.stage
            probe = getattr(d, "probe", None)
        if isinstance(value, bool) or int(value) not in (Cell.EMPTY, Cell.FILLED):
            raise PuzzleError(f"deduction {k}: value {value!r} is not Cell.EMPTY or Cell.FILLED")
        if stage not in STAGES:
            raise PuzzleError(f"deduction {k}: unknown stage {stage!r}")
        if stage == "probe-both" and probe is None:
            raise PuzzleError(f"deduction {k}: a probe-both deduction needs its probed cell")
        out.append(_Deduction((int(cell[0]), int(cell[1])), int(value), stage,
                              None if probe is None else (int(probe[0]), int(probe[1]))))
    return out


class _Writer:
    """Collects steps, and with verification checks them in batches: a :class:`RupChecker`
    holds the formula and the lemmas so far, checks each lemma by unit propagation (recording
    its LRAT hints) and stops at one that propagation does not derive; that one is derived by
    an incremental SAT solver (logging DRAT, made on first need) holding the formula and the
    lemmas so far, solving under the lemma's negation as assumptions: its learnt clauses
    (consequences of the formula and the lemmas, whatever the assumptions) are checked and
    written before the lemma, which they make RUP."""

    def __init__(self, formula: Sequence[Sequence[int]], nvars: int, verify: bool, solver: str,
                 rup: RupChecker | None, skip_implied: bool = False):
        self.proof = NativeProof(verified=verify)
        self._formula = formula
        self._solver_name = solver
        self._solver: Any = None
        self._logged = 0
        self._synced = 0  # proof.steps already given to the SAT solver
        self._pending: list[Clause] = []
        self._deleting: list[bool] = []
        self._rup = (rup if rup is not None else RupChecker(formula, nvars)) if verify else None
        if self._rup is not None:
            self._rup.skip_implied = skip_implied

    def close(self) -> None:
        if self._solver is not None:
            self._solver.delete()

    def add(self, clause: Clause) -> None:
        """Add ``clause`` as a lemma (checked at the next :meth:`flush`)."""
        self._pending.append(clause)
        self._deleting.append(False)

    def delete(self, clause: Clause) -> None:
        self._pending.append(clause)
        self._deleting.append(True)

    def flush(self) -> None:
        """Check the pending steps and record them, deriving those propagation does not give."""
        steps, deleting = self._pending, self._deleting
        self._pending, self._deleting = [], []
        proof = self.proof
        if self._rup is None:
            for step, gone in zip(steps, deleting, strict=True):
                proof.steps.append(Deletion(step) if gone else step)
            proof.lemmas += deleting.count(False)
            proof.deletions += deleting.count(True)
            return
        lemmas, deletions = deleting.count(False), deleting.count(True)
        at = 0
        while at < len(steps):
            done = at + self._rup.run(steps[at:], deleting[at:])
            skipped = self._rup.skipped
            for k in range(at, done):
                if skipped[k - at]:
                    proof.implied += 1
                    if deleting[k]:  # counted as neither lemma nor deletion
                        deletions -= 1
                    else:
                        lemmas -= 1
                else:
                    proof.steps.append(Deletion(steps[k]) if deleting[k] else steps[k])
            if done == len(steps):
                break
            learnt = self._derive(steps[done], proof.steps)
            if self._rup.run(learnt) != len(learnt):  # pragma: no cover - learnt clauses are RUP
                raise EngineError("the SAT solver's learnt clauses are not RUP")
            kept = [c for c, gone in zip(learnt, self._rup.skipped, strict=True) if not gone]
            proof.steps.extend(kept)
            proof.lemmas += len(kept)
            proof.implied += len(learnt) - len(kept)
            proof.filled += 1
            if self._rup.run([steps[done]]) != 1:  # pragma: no cover - the final conflict is RUP
                raise EngineError(f"the SAT solver's learnt clauses do not make {steps[done]} RUP")
            proof.steps.append(steps[done])
            self._synced = len(proof.steps)
            at = done + 1
        proof.lemmas += lemmas
        proof.deletions += deletions

    @property
    def checker(self) -> RupChecker | None:
        return self._rup

    def text(self) -> tuple[str | None, str | None]:
        """(DRAT, LRAT) of the steps recorded, when they were checked."""
        if self._rup is None:
            return None, None
        return self._rup.drat(), self._rup.lrat()

    def _derive(self, clause: Clause, written: list[Step]) -> list[Clause]:
        """Learnt clauses that make ``clause`` RUP, from a SAT refutation of its negation."""
        if self._solver is None:
            from pysat.solvers import Solver

            self._solver = Solver(name=solver_name(self._solver_name),
                                  bootstrap_with=self._formula, with_proof=True)
        live: dict[tuple[int, ...], int] = {}
        for step in written[self._synced:]:
            key = tuple(sorted(step.clause if isinstance(step, Deletion) else step))
            live[key] = live.get(key, 0) + (-1 if isinstance(step, Deletion) else 1)
        for key, count in live.items():
            for _ in range(count):
                self._solver.add_clause(list(key))
        if self._solver.solve(assumptions=[-lit for lit in clause]):
            raise EngineError(
                f"the deduction {clause} does not follow from the clues and the earlier "
                "deductions (the trace does not belong to this puzzle)"
            )
        lines = self._solver.get_proof() or []
        learnt = []
        for line in lines[self._logged:]:
            text = line.strip()
            # the solver's deletions may name formula clauses, and it writes "0" whenever a
            # solve under assumptions fails: keep its learnt clauses only
            if text and not text.startswith("d") and text != "0":
                learnt.append([int(tok) for tok in text.split()[:-1]])
        self._logged = len(lines)
        for lemma in learnt:
            self._solver.add_clause(lemma)
        self._solver.add_clause(clause)
        return learnt


def native_lemmas(
    enc: PuzzleCnf,
    formula: Sequence[Sequence[int]],
    deductions: Iterable[Any],
    *,
    line_units: bool = True,
    verify: bool = True,
    solver: str = FILL_SOLVER,
    rup: RupChecker | None = None,
    skip_implied: bool = False,
) -> NativeProof:
    """DRAT steps for a deduction trace (see the module docstring).

    Parameters
    ----------
    enc : PuzzleCnf
        The puzzle's encoding; cell ``(r, c)`` is variable ``r * width + c + 1``.
    formula : sequence of list of int
        The formula to refute: ``enc.clauses`` plus extra clauses (a blocking clause).
    deductions : iterable
        The trace, in order: objects with attributes ``cell`` ((row, column), 0-based),
        ``value`` (``Cell.FILLED`` or ``Cell.EMPTY``), ``stage`` (``"line"``,
        ``"failed-literal"``, ``"probe-both"``, ``"given"``) and ``probe`` (the probed cell of a
        probe-both deduction), or tuples ``(cell, value, stage, line, probe)``.  Each deduction
        must follow from the clues and the earlier ones as its stage says.
    line_units : bool
        Write a unit lemma for each line deduction.  On a propagation-complete encoding they
        are implied by propagation on the earlier units and may be left out (a shorter proof
        that checks the same way); on other encodings they are always written.
    verify : bool
        Check every step by unit propagation (:class:`~nonosat.certificates.rup.RupChecker`,
        which also finds each lemma's LRAT hints: :attr:`NativeProof.lrat`) and derive by SAT
        those that propagation does not give (default).  ``False``: write the steps unchecked
        (no LRAT), which only a propagation-complete encoding makes sound.
    solver : str
        PySAT solver for the steps propagation does not give (:data:`FILL_SOLVER`).
    rup : RupChecker, optional
        A checker already holding ``formula`` (and nothing else), e.g. the one that found that
        propagation alone does not refute it; made here when not given.
    skip_implied : bool
        Leave out the unit lemmas that unit propagation already gives when they come (with
        ``verify``): a shorter proof whose LRAT hints are shorter too (the empty clause's hints
        then hold the propagation that made them redundant).  Counted in
        :attr:`NativeProof.implied`.

    Returns
    -------
    NativeProof
        Ends with the empty clause when the deductions falsify one of the clauses after
        ``enc.clauses`` (the blocking clause of the grid they fix).

    Raises
    ------
    PuzzleError
        A deduction with an unknown stage, a value that is not a cell value, or a cell outside
        the grid.
    EngineError
        A deduction that does not follow from the formula (found when verifying).

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> from nonosat.encodings.cnf import encode, blocking_clause
    >>> enc = encode(Puzzle([(1,), ()], [(1,), ()]), "regular")
    >>> trace = [((0, 0), Cell.FILLED, "line", 0, None), ((0, 1), Cell.EMPTY, "line", 0, None),
    ...          ((1, 0), Cell.EMPTY, "line", 1, None), ((1, 1), Cell.EMPTY, "line", 1, None)]
    >>> formula = enc.clauses + [blocking_clause([[True, False], [False, False]])]
    >>> native_lemmas(enc, formula, trace).steps
    [[1], [-2], [-3], [-4], []]
    """
    start = time.perf_counter()
    h, w = enc.puzzle.shape
    complete = enc.encoding in PROPAGATION_COMPLETE
    formula = list(formula)
    writer = _Writer(formula, enc.nvars, verify, solver, rup, skip_implied)
    proof = writer.proof
    fixed: dict[int, int] = {}

    def literal(cell: tuple[int, int], value: int) -> int:
        r, c = cell
        if not (0 <= r < h and 0 <= c < w):
            raise PuzzleError(f"deduction for cell {cell} outside the {w}x{h} grid")
        v = cell_var(w, r, c)
        return v if value == Cell.FILLED else -v

    try:
        for d in _deductions(deductions):
            proof.stages[d.stage] = proof.stages.get(d.stage, 0) + 1
            lit = literal(d.cell, d.value)
            if fixed.get(abs(lit)) == lit:
                continue
            fixed[abs(lit)] = lit
            if d.stage == "probe-both":
                probe = d.probe
                assert probe is not None
                binary = [-literal(probe, Cell.FILLED), lit]
                writer.add(binary)
                writer.add([lit])
                writer.delete(binary)
            elif d.stage != "line" or line_units or not complete:
                writer.add([lit])
        extra = formula[len(enc.clauses):]
        if any(clause and all(fixed.get(abs(lit)) == -lit for lit in clause) for clause in extra):
            writer.add([])
            proof.refutes = True
        writer.flush()
        proof.drat, proof.lrat = writer.text()
        proof.checker = writer.checker
    finally:
        writer.close()
    proof.time_s = time.perf_counter() - start
    return proof


def proof_lines(steps: Iterable[Step]) -> list[str]:
    """Text DRAT lines of ``steps`` (``"1 -2 0"``, ``"d 1 -2 0"``, ``"0"``).

    >>> proof_lines([[1, -2], Deletion([1, -2]), []])
    ['1 -2 0', 'd 1 -2 0', '0']
    """
    out = []
    for step in steps:
        if isinstance(step, Deletion):
            out.append("d " + " ".join(map(str, step.clause)) + " 0")
        else:
            out.append(" ".join(map(str, step)) + " 0" if step else "0")
    return out
