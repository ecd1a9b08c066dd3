"""Proof checkers: nonosat-lrat (the default: the project's own LRAT checker, in-process), dratify
(in-process, never alone), drat-trim (DRAT) and cake_lpr (LRAT, formally verified).

See :mod:`nonosat.certificates` and ``docs/certificates.md`` for what each checks and when it
runs; external checkers are found by :func:`checker_executable` (``--checker-path`` /
``$NONOSAT_CHECKER_PATH``, then ``PATH``).  :func:`run_checks` is the one place that decides
which checks run on a proof: certify and verify-certificate (black-and-white and colour) call it.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nonosat import interrupts
from nonosat.errors import EngineError, check_known

#: The default checker: :func:`nonosat.certificates.lrat_check.check_lrat` on ``proof.lrat``.
DEFAULT_CHECKER = "nonosat-lrat"
#: The check that the LRAT proof's lemmas are the DRAT proof's
#: (:func:`nonosat.certificates.lrat_check.lemmas_agree`), run with every LRAT checker.
AGREEMENT = "drat-lrat-agreement"
#: Proof checkers :func:`check_proof` knows.
CHECKERS = (DEFAULT_CHECKER, "dratify", "drat-trim", "cake_lpr")
#: Checkers that check ``proof.lrat`` (the agreement check runs with them).
LRAT_CHECKERS = (DEFAULT_CHECKER, "cake_lpr")
#: What ``--checker`` takes besides the names of :data:`CHECKERS`.
CHECKER_GROUPS = ("auto", "all")
#: One line on stderr whenever dratify is asked for.
DRATIFY_WARNING = (
    "warning: dratify is not sound on deletions (it keeps a literal implied by a clause the "
    "proof deleted), so the default LRAT check runs too and decides; see docs/proof-checking.md"
)
#: The checkers that run as programs, found by :func:`checker_executable`.
EXTERNAL_CHECKERS = ("drat-trim", "cake_lpr")
#: Environment variable: directories (``os.pathsep``-separated) searched for external checkers
#: before ``PATH`` (set by ``--checker-path``).
CHECKER_PATH_ENV = "NONOSAT_CHECKER_PATH"

#: A line holding the empty clause, which every refutation must add.
_EMPTY_CLAUSE = re.compile(r"^[ \t]*0[ \t]*\r?$", re.MULTILINE)


# -- proof checking ------------------------------------------------------------------------------
@dataclass
class ProofCheck:
    """Verdict of one proof checker.

    Attributes
    ----------
    checker : str
        One of :data:`CHECKERS`, or :data:`AGREEMENT`.
    ok : bool
        The proof derives the empty clause and every step checks (for :data:`AGREEMENT`: the
        LRAT proof's lemmas are the DRAT proof's, in order).
    reason : str
        The checker's own explanation (first failing lemma, "s VERIFIED", ...).
    time_s : float
        Wall-clock seconds spent checking.
    version : str or None
        The checker's version (:func:`checker_version`).
    checks : str
        The file checked: ``"proof.lrat"``, ``"proof.drat"`` or both (agreement).
    """

    checker: str
    ok: bool
    reason: str
    time_s: float
    version: str | None = None
    checks: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"checker": self.checker, "version": self.version, "checks": self.checks,
                "ok": self.ok, "reason": self.reason, "time_s": round(self.time_s, 6)}


class ProofOutcome:
    """What the outcomes of certifying share (:class:`~nonosat.certificates.prove.Certificate`,
    :class:`~nonosat.certificates.colour_proofs.ColourCertificate`): a verdict, the checks of
    its proof, and whether they prove it."""

    verdict: str
    checks: list[ProofCheck]

    @property
    def proved(self) -> bool:
        """Whether the verdict is backed by a proof (unique or none) that every checker that ran
        accepted (at least one ran)."""
        return self.verdict in ("unique", "none") and bool(self.checks) and all(
            c.ok for c in self.checks
        )


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
    """The checkers ``auto`` runs here: the default LRAT checker always, then drat-trim and
    cake_lpr when found (:func:`checker_executable`)."""
    return [DEFAULT_CHECKER] + [c for c in EXTERNAL_CHECKERS if checker_executable(c)]


def resolve_checkers(names: Sequence[str]) -> list[str]:
    """Expand checker names: ``"auto"`` (the default) = the default LRAT checker, then
    drat-trim and cake_lpr when found (:func:`available_checkers`); ``"all"`` = the four
    (the external ones required).  dratify never decides alone: asking for it adds the
    default checker.

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
            wanted = [DEFAULT_CHECKER, name] if name == "dratify" else [name]
        else:
            raise EngineError(
                f"unknown proof checker {name!r}; choose one of {', '.join(CHECKERS)}, "
                f"{', '.join(CHECKER_GROUPS)}"
            )
        for checker in wanted:
            if checker in EXTERNAL_CHECKERS:
                _require(checker)
            if checker not in out:
                out.append(checker)
    return out


def checker_version(name: str) -> str | None:
    """The version of checker ``name`` as ``certificate.json`` and ``--json`` report it: the
    default checker's and the agreement check's :data:`~nonosat.certificates.lrat_check.\
CHECKER_VERSION`, dratify's package version, and for the external checkers (which print none)
    ``sha256:`` and the first 16 hex digits of the executable's SHA-256, or ``None`` when not
    found."""
    if name in (DEFAULT_CHECKER, AGREEMENT):
        from nonosat.certificates.lrat_check import CHECKER_VERSION

        return str(CHECKER_VERSION)
    if name == "dratify":
        import dratify

        native = " (native engine)" if dratify.native_implementation() is not None else ""
        return dratify.__version__ + native
    exe = checker_executable(name)
    if exe is None:
        return None
    return "sha256:" + _file_digest(exe)[:16]


def _file_digest(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_checks(
    clauses: Sequence[Sequence[int]],
    nvars: int,
    proof: str,
    lrat: str | None,
    names: Sequence[str],
    timeout: float | None = None,
) -> list[ProofCheck]:
    """Check a refutation of ``clauses`` with each checker of ``names`` (already resolved by
    :func:`resolve_checkers`), and, when an LRAT checker is among them, that the LRAT proof's
    lemmas are the DRAT proof's (:data:`AGREEMENT`): a certificate whose ``proof.lrat`` is not
    the LRAT form of its ``proof.drat`` (another certificate's, a garbage DRAT beside a valid
    LRAT) is rejected.  The default checker and cake_lpr check ``lrat``; dratify and drat-trim
    ``proof``.

    Returns
    -------
    list of ProofCheck
        One per checker, in the order of ``names``, the agreement check after the first LRAT
        checker.

    Raises
    ------
    EngineError
        An external checker not found.
    ProofTooLargeError
        A proof over the size limit (:func:`nonosat.certificates.lrat_check.check_lrat`).
    """
    checks: list[ProofCheck] = []
    for name in names:
        checks.append(check_proof(clauses, nvars, proof, name, timeout, lrat=lrat))
        if name in LRAT_CHECKERS and not any(c.checker == AGREEMENT for c in checks):
            checks.append(check_agreement(proof, lrat, timeout))
    return checks


def check_agreement(proof: str, lrat: str | None, timeout: float | None = None) -> ProofCheck:
    """Whether the LRAT proof's added clauses are the DRAT proof's lemmas, in order, both ending
    in the empty clause (:func:`nonosat.certificates.lrat_check.lemmas_agree`: an LRAT clause may
    be a DRAT lemma with literals dropped, as ``drat-trim -L`` trims, and unit lemmas that
    nonosat's LRAT materialises for its hints may stand before a lemma).  The verdict rests on
    the LRAT check; this check ties the DRAT proof to it (another certificate's LRAT, or a garbage
    DRAT beside a valid LRAT, is rejected)."""
    from nonosat.certificates.lrat_check import lemmas_agree

    start = time.perf_counter()
    if lrat is None:
        ok, reason = False, f"no LRAT proof to compare with the DRAT proof ({_NO_LRAT})"
    else:
        deadline = None if timeout is None else time.perf_counter() + timeout
        ok, reason = lemmas_agree(proof.encode(), lrat.encode(), deadline=deadline)
    return ProofCheck(AGREEMENT, bool(ok), reason, time.perf_counter() - start,
                      checker_version(AGREEMENT), "proof.drat, proof.lrat")


_NO_LRAT = "the certificate has no proof.lrat"


def _require(name: str) -> str:
    exe = checker_executable(name)
    if exe is None:
        raise EngineError(
            f"{name} not found (looked in --checker-path / ${CHECKER_PATH_ENV}, then PATH); "
            "build it from its sources, or leave --checker out for the default check"
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
        ``"nonosat-lrat"`` (the default: :func:`nonosat.certificates.lrat_check.check_lrat`
        on ``lrat``, in-process), ``"dratify"`` (in-process, on ``proof``), ``"drat-trim"`` (on
        ``proof``) or ``"cake_lpr"`` (on ``lrat``; subprocesses, see
        :func:`checker_executable`).  An LRAT checker without ``lrat`` rejects.
    timeout : float, optional
        Seconds, for drat-trim (its ``-t``) and the default checker; dratify cannot be
        interrupted.
    lrat : str, optional
        Text LRAT form of the proof, for the LRAT checkers.

    Returns
    -------
    ProofCheck

    Raises
    ------
    EngineError
        Unknown checker, or an external checker not found.
    ProofTooLargeError
        A proof over the default checker's size limit.
    """
    start = time.perf_counter()
    check_known(checker, CHECKERS, "proof checker")
    if not _EMPTY_CLAUSE.search(proof):
        # checkers accept a formula that propagation alone refutes whatever the proof says;
        # a refutation must still end in the empty clause, so a cut proof is always caught
        ok, reason = False, "the proof never adds the empty clause"
    elif checker in LRAT_CHECKERS and lrat is None:
        ok, reason = False, _NO_LRAT
    elif checker == DEFAULT_CHECKER:
        from nonosat.certificates.lrat_check import check_lrat

        assert lrat is not None
        deadline = None if timeout is None else time.perf_counter() + timeout
        # bytes: a str without a newline would be taken for a file name
        result = check_lrat(clauses, lrat.encode(), nvars=nvars, deadline=deadline)
        ok, reason = bool(result.ok), result.reason
    elif checker == "dratify":
        ok, reason = _check_dratify(clauses, nvars, proof)
    elif checker == "drat-trim":
        ok, reason = _check_drat_trim(clauses, nvars, proof, timeout)
    else:
        assert lrat is not None
        ok, reason = _check_cake_lpr(clauses, nvars, lrat)
    files = "proof.lrat" if checker in LRAT_CHECKERS else "proof.drat"
    return ProofCheck(checker, ok, reason, time.perf_counter() - start,
                      checker_version(checker), files)


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
        interrupts.check()  # a checker stopped by Ctrl-C is no failed check
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
        interrupts.check()
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    if "s VERIFIED UNSAT" in lines:
        return True, "s VERIFIED UNSAT"
    return False, " | ".join(lines[-3:]) or f"cake_lpr exited with {done.returncode}"


def _dimacs_body(clauses: Sequence[Sequence[int]], nvars: int) -> str:
    body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return f"p cnf {nvars} {len(clauses)}\n{body}"
