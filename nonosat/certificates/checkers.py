"""Proof checkers: dratify (in-process), drat-trim (DRAT) and cake_lpr (LRAT, formally verified).

See :mod:`nonosat.certificates` for what each checks; external checkers are found by
:func:`checker_executable` (``--checker-path`` / ``$NONOSAT_CHECKER_PATH``, then ``PATH``).
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
from nonosat.errors import EngineError

#: Proof checkers :func:`check_proof` knows.
CHECKERS = ("dratify", "drat-trim", "cake_lpr")
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
    (:func:`checker_executable`; cake_lpr only together with drat-trim, which writes the LRAT
    of proofs with a SAT solver's part, so that ``auto`` never asks for a check that cannot
    run; ``--checker cake_lpr`` alone checks the LRAT nonosat writes itself)."""
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
        LRAT that drat-trim writes from ``proof`` (:func:`drat_to_lrat`); without either it
        rejects (no LRAT to check).
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
        if lrat is None and checker_executable("drat-trim") is None:
            ok, reason = False, ("no LRAT form of this proof: nonosat writes it for proofs "
                                 "without a SAT solver's part; for the others drat-trim -L "
                                 "does, and drat-trim was not found")
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
