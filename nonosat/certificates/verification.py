"""The outcome of checking a certificate directory (:class:`Verification`), shared by the
checks of proofs (:mod:`~nonosat.certificates.recheck`), of colour certificates
(:mod:`~nonosat.certificates.colour_proofs`) and of witnesses (:mod:`~nonosat.certificates.witness`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nonosat.certificates.bundle import LRAT_FILE, PROOF_FILE
from nonosat.certificates.checkers import AGREEMENT, ProofCheck

if TYPE_CHECKING:
    from nonosat.puzzle import Puzzle


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
        The certified clues (``puzzle.json``); its title is the certificate's word only.
    time_s : float
    identity_verified : bool
        Whether the clues were compared with a puzzle the user holds (``expected``) and are
        its clues; otherwise the title is unverified and is never the report's name for the
        puzzle.
    """

    ok: bool
    verdict: str | None
    problems: list[str]
    checks: list[ProofCheck]
    puzzle: Puzzle | None
    time_s: float
    identity_verified: bool = False

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form: the checks as :meth:`ProofCheck.to_json` (checker, version,
        file checked, answer); ``title`` is the certificate's own (unverified unless
        ``identity`` says ``"matched"``)."""
        return {
            "ok": self.ok,
            "verdict": self.verdict,
            "problems": self.problems,
            "checks": [c.to_json() for c in self.checks],
            "puzzle": self.puzzle.fingerprint() if self.puzzle else None,
            "title": self.puzzle.title if self.puzzle else None,
            "identity": "matched" if self.identity_verified else "unverified",
            "checkers_accepted": [c.checker for c in self.checks if c.ok],
            "time_s": round(self.time_s, 6),
        }


def check_problems(checks: Sequence[ProofCheck]) -> list[str]:
    """One sentence per rejecting check, naming the file it checked."""
    out = []
    for check in checks:
        if check.ok:
            continue
        if check.checker == AGREEMENT:
            out.append(f"{LRAT_FILE} is not the LRAT form of {PROOF_FILE}: {check.reason}")
        else:
            out.append(f"{check.checks or PROOF_FILE}: rejected by {check.checker}: "
                       f"{check.reason}")
    return out
