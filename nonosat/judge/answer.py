"""Judging one answer of another solver about one puzzle: its claimed verdict and its solutions
(:func:`verify`), with the evidence behind the judgement (:class:`Judgement`)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.errors import EngineError
from nonosat.judge.claims import CLAIMS, parse_claim
from nonosat.judge.solution import SolutionCheck, check_solution, solution_rows
from nonosat.puzzle import Puzzle


@dataclass
class Judgement:
    """The judgement of one answer (a claim and/or solutions) about one puzzle.

    Attributes
    ----------
    puzzle : Puzzle
    claim : str or None
        The claimed verdict (:data:`CLAIMS`), ``None`` when only solutions were given.
    outcome : str
        ``confirmed`` (the whole answer holds), ``refuted`` (some part is wrong: an invalid
        solution or a wrong verdict), ``undecided`` (time ran out, or a proof was rejected) or
        ``unjudged`` (nothing to judge).
    claim_outcome : str or None
        The verdict's own outcome (``confirmed``/``refuted``/``undecided``); ``None`` without a
        claim.
    reason : str
        One sentence: why, and with what evidence.
    truth : str
        What nonosat established: ``unique``, ``multiple``, ``none``, ``solvable`` (a solution
        is known, uniqueness not decided) or ``unknown``.
    checks : list of SolutionCheck
        One per submitted solution.
    evidence : list of ndarray of bool
        Valid, distinct solutions backing the judgement (one or two).
    certificate : Certificate or None
        The certificate behind the judgement (a proof for ``unique``/``none``, the two-solution
        witness for ``multiple``); ``None`` when the submitted solutions decided alone.
    time_s : float
        Wall-clock seconds, without ``load_s``.
    load_s : float
        Seconds spent loading the engine's compiled kernels and libraries (a process's first
        verdict), apart from ``time_s`` as in ``nonosat solve``.
    """

    puzzle: Puzzle
    claim: str | None
    outcome: str
    claim_outcome: str | None
    reason: str
    truth: str
    checks: list[SolutionCheck] = field(default_factory=list)
    evidence: list[np.ndarray] = field(default_factory=list)
    certificate: Any = None
    time_s: float = 0.0
    load_s: float = 0.0

    @property
    def certified(self) -> bool:
        """Whether a checked proof (uniqueness or unsatisfiability) backs the judgement."""
        return bool(self.certificate is not None and self.certificate.proved)

    def witness_kind(self) -> str | None:
        """What the evidence is: ``"line errors"``, ``"two solutions"``, ``"solution"``,
        ``"uniqueness certificate"``, ``"unsatisfiability proof"``, or ``None``."""
        if self.outcome == "refuted" and any(not c.valid for c in self.checks) and (
            self.claim_outcome != "refuted"
        ):
            return "line errors"
        if self.certified:
            return ("uniqueness certificate" if self.truth == "unique"
                    else "unsatisfiability proof")
        if len(self.evidence) >= 2:
            return "two solutions"
        if self.evidence:
            return "solution"
        if any(not c.valid for c in self.checks):
            return "line errors"
        return None

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form: ``outcome``, ``claim``, ``claim_outcome``, ``truth``,
        ``reason``, ``certified``, ``witness`` (its kind), ``solutions`` (submitted, with their
        line errors), ``evidence`` (row strings), ``time_s``, ``load_s``."""
        return {
            "outcome": self.outcome,
            "claim": self.claim,
            "claim_outcome": self.claim_outcome,
            "truth": self.truth,
            "reason": self.reason,
            "certified": self.certified,
            "witness": self.witness_kind(),
            "solutions": [c.to_json() for c in self.checks],
            "evidence": [solution_rows(self.puzzle, s) for s in self.evidence],
            "time_s": round(self.time_s, 6),
            "load_s": round(self.load_s, 6),
        }

    def witness_files(self) -> dict[str, bytes]:
        """The witness directory's files (relative path -> content):
        :func:`nonosat.judge.evidence.witness_files`."""
        from nonosat.judge.evidence import witness_files

        return witness_files(self)


def verify(
    puzzle: Puzzle,
    claim: str | None = None,
    solutions: Sequence[np.ndarray] = (),
    *,
    timeout: float | None = None,
    checkers: Sequence[str] = ("auto",),
) -> Judgement:
    """Judge another solver's answer about ``puzzle``: its ``solutions`` and its ``claim``.

    1. Each submitted solution is checked against every clue.
    2. The claim is judged from the submitted solutions when they suffice (two distinct valid
       solutions decide ``multiple``; one decides ``solved`` and refutes ``none``), otherwise
       by the portfolio of ``nonosat solve`` and
       :func:`nonosat.certificates.certifier.certify_any`: two solutions (a witness
       certificate), or a DRAT proof of uniqueness or of unsatisfiability (checked before it
       counts).  Every solution used as evidence is re-checked against the clues here.

    Parameters
    ----------
    puzzle : Puzzle
    claim : str, optional
        ``unique``, ``multiple``, ``none`` or ``solved`` (see :func:`parse_claim`).
    solutions : sequence of ndarray of bool, each shape (height, width)
        The solutions the other solver gave.
    timeout : float, optional
        Seconds for finding solutions and proofs; the claim is ``undecided`` when they run out.
        Proof checking is not bounded.
    checkers : sequence of str
        Proof checkers for :func:`~nonosat.certificates.certifier.certify_any` (``auto``, the
        default: nonosat's own LRAT checker and the DRAT/LRAT agreement, then drat-trim and
        cake_lpr when found; see :func:`nonosat.certificates.resolve_checkers`).

    Returns
    -------
    Judgement

    Raises
    ------
    PuzzleError
        A submitted solution of the wrong shape, or an unknown claim.
    EngineError
        The certifier contradicts the evidence (an invalid solution, a proof of uniqueness of a
        solution other than a valid submitted one): a bug in nonosat, never passed as a verdict.

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> two = Puzzle([(1,), (1,)], [(1,), (1,)])  # a diagonal either way
    >>> verify(two, "unique").outcome
    'refuted'
    """
    start = time.perf_counter()
    if claim is not None and claim not in CLAIMS:
        claim = parse_claim(claim)
    checks = [check_solution(puzzle, s) for s in solutions]
    valid = _distinct([c.solution for c in checks if c.valid])
    loads: list[float] = []
    claim_outcome, reason, truth, evidence, cert = _judge_claim(
        puzzle, claim, valid, timeout, checkers, loads
    )
    invalid = [(k, c) for k, c in enumerate(checks, start=1) if not c.valid]
    if invalid:
        outcome = "refuted"
        k, check = invalid[0]
        which = "the solution" if len(checks) == 1 else f"solution {k}"
        why = f"{which} {check.describe()}"
        reason = why + (f"; claim {claim} {claim_outcome}: {reason}" if claim else "")
    elif claim is not None:
        outcome = claim_outcome or "undecided"
    elif checks:
        outcome = "confirmed"
        n = len(checks)
        reason = ("the solution satisfies every clue" if n == 1
                  else f"all {n} solutions satisfy every clue")
        truth = "multiple" if len(valid) >= 2 else "solvable"
    else:
        outcome, reason = "unjudged", "no verdict and no solution to judge"
    load_s = sum(loads)
    return Judgement(puzzle, claim, outcome, claim_outcome, reason, truth, checks, evidence,
                     cert, time.perf_counter() - start - load_s, load_s)


def _distinct(solutions: Iterable[np.ndarray]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for sol in solutions:
        if not any(np.array_equal(sol, o) for o in out):
            out.append(sol)
    return out


_Claim = tuple[str | None, str, str, list[np.ndarray], Any]


def _judge_claim(puzzle: Puzzle, claim: str | None, valid: list[np.ndarray],
                 timeout: float | None, checkers: Sequence[str], loads: list[float]) -> _Claim:
    """``(claim_outcome, reason, truth, evidence, certificate)`` of ``claim``; the engine's
    loading time, when it was loaded, is appended to ``loads``."""
    if claim is None:
        return None, "", "unknown", valid[:2], None
    # The submitted solutions decide alone when they can.
    if len(valid) >= 2:
        holds = claim in ("multiple", "solved")
        return ("confirmed" if holds else "refuted",
                "the submitted solutions are two distinct valid solutions",
                "multiple", valid[:2], None)
    if valid and claim in ("solved", "none"):
        return ("confirmed" if claim == "solved" else "refuted",
                "the submitted solution satisfies every clue", "solvable", valid[:1], None)
    cert = _certify(puzzle, valid, timeout, checkers)
    loads.append(float(cert.times.get("load", 0.0)))
    rejected = [c for c in cert.checks if not c.ok]
    truth = cert.verdict
    if truth == "unknown" and cert.solutions:
        truth = "solvable"
    sols = list(cert.solutions)
    if rejected:
        why = "; ".join(f"{c.checker} rejects the proof: {c.reason}" for c in rejected)
        return "undecided", f"nonosat's own proof was rejected ({why})", "unknown", [], None
    if truth == "unknown":
        limit = f" within {timeout:g} s" if timeout is not None else ""
        return "undecided", f"no verdict{limit}", truth, [], None

    two = "two distinct valid solutions"
    if truth == "multiple":
        outcome = "confirmed" if claim in ("multiple", "solved") else "refuted"
        return outcome, f"nonosat found {two}", truth, sols[:2], cert
    if truth == "none":
        outcome = "confirmed" if claim == "none" else "refuted"
        return outcome, "a checked DRAT proof that no solution exists", truth, [], cert
    if truth == "unique":
        if claim == "solved":
            return "confirmed", "a valid solution", truth, sols[:1], None
        if claim == "none":
            return ("refuted", "a valid solution (the only one: uniqueness certificate)", truth,
                    sols[:1], cert)
        outcome = "confirmed" if claim == "unique" else "refuted"
        return outcome, "a uniqueness certificate (checked DRAT proof)", truth, sols[:1], cert
    # solvable: a solution was found, uniqueness undecided within the time limit
    if claim in ("none", "solved"):
        outcome = "refuted" if claim == "none" else "confirmed"
        return outcome, "a valid solution", truth, sols[:1], cert
    limit = f" within {timeout:g} s" if timeout is not None else ""
    return "undecided", f"a solution exists; uniqueness not decided{limit}", truth, sols[:1], None


def _certify(puzzle: Puzzle, valid: list[np.ndarray], timeout: float | None,
             checkers: Sequence[str]) -> Any:
    """:func:`nonosat.certificates.certifier.certify_any` (the portfolio of ``nonosat solve``
    decides, then a proof for ``unique``/``none``), with every solution it returns checked
    against the clues and against the submitted valid solution."""
    from nonosat.certificates.certifier import certify_any

    cert = certify_any(puzzle, timeout=timeout, checkers=checkers)
    for k, sol in enumerate(cert.solutions, start=1):
        errors = check_solution(puzzle, sol).errors
        if errors:
            raise EngineError(f"the certifier returned an invalid solution #{k}: {errors[0]}")
    if len(cert.solutions) >= 2 and np.array_equal(cert.solutions[0], cert.solutions[1]):
        raise EngineError("the certifier returned the same solution twice as a witness")
    if valid and cert.verdict == "none":
        raise EngineError("the certifier proved that no solution exists, but the submitted "
                          "solution satisfies every clue")
    if valid and cert.verdict == "unique" and not np.array_equal(cert.solutions[0], valid[0]):
        raise EngineError("the certifier proved another solution unique, but the submitted "
                          "solution satisfies every clue")
    return cert
