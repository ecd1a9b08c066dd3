"""Judge another solver's answers with evidence.

A solver writer runs a solver over a corpus and gets, per puzzle, a verdict (``unique``,
``multiple``, ``none``, or ``solved`` for a first solution only) and perhaps a solution.  This
module judges each answer and backs every judgement with something anyone can check again:

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
through :func:`nonosat.certify.certify_any`), with the same time limit, so a claim is judged on
every puzzle ``solve`` decides; proofs come from the certifier (CNF encoding, the native
solver's deductions and a SAT solver logging DRAT and LRAT, checked by nonosat's LRAT checker), and
several solutions are a witness certificate (:mod:`nonosat.certificates.witness`).  Every
solution used as evidence is checked against the clues here, line by line, independently of the
encoding.

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
:meth:`Judgement.witness_files` / :func:`write_witness`:

========================  ======================================================================
``verdict.json``          the judgement (:meth:`Judgement.to_json`)
``solution-K.txt``        evidence solutions found by nonosat, as text grids (``#`` / ``.``)
``submitted-K.txt``       a submitted solution that breaks the clues, as a text grid
``line-errors.txt``       its failing lines: ``row 3: expected 3 1, actual 2 2``
``certificate/``          the certificate directory: a proof, or a witness certificate of several
                          solutions (``nonosat verify-certificate`` checks either)
========================  ======================================================================

Nothing here prints.  :mod:`nonosat.cli.verify` is the command.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from nonosat.errors import EngineError, FormatError, PuzzleError
from nonosat.limits import size_limits
from nonosat.puzzle import (
    Puzzle,
    clue_text,
    colour_clue_text,
    colour_rows,
    grid_from_rows,
    grid_rows,
    grid_to_solution,
)
from nonosat.safe_io import atomic_write, read_bounded

#: Claimed verdicts that can be judged.
CLAIMS = ("unique", "multiple", "none", "solved")

#: Outcomes of a judgement.  ``unjudged``: a row with neither a verdict nor a solution (the other
#: solver gave up); ``bad-row``: the row cannot be judged (puzzle not found, malformed solution).
OUTCOMES = ("confirmed", "refuted", "undecided", "unjudged", "bad-row")

#: How other solvers spell their verdicts (lower case, ``_``/``-`` read as spaces) -> claim;
#: ``None`` means no verdict.
CLAIM_WORDS: dict[str, str | None] = {
    "unique": "unique", "unique solution": "unique", "one solution": "unique",
    "multiple": "multiple", "multiple solutions": "multiple", "several": "multiple",
    "several solutions": "multiple", "not unique": "multiple", "ambiguous": "multiple",
    "none": "none", "no solution": "none", "unsat": "none", "unsatisfiable": "none",
    "unsolvable": "none", "infeasible": "none",
    "solved": "solved", "sat": "solved", "satisfiable": "solved", "found": "solved",
    "feasible": "solved",
    "": None, "unknown": None, "timeout": None, "time out": None, "gave up": None,
    "error": None, "crashed": None, "?": None,
}

#: Statuses the batch machinery records for a worker that failed (they become ``undecided``).
_WORKER_FAILURES = ("timeout", "crashed", "error")


def parse_claim(text: str | None) -> str | None:
    """The claim (one of :data:`CLAIMS`) a results file's status means, ``None`` for no verdict.

    >>> parse_claim("Multiple_Solutions"), parse_claim("UNSAT"), parse_claim("timeout")
    ('multiple', 'none', None)

    Raises
    ------
    PuzzleError
        A status that names no verdict this module knows.
    """
    if text is None:
        return None
    key = re.sub(r"[\s_-]+", " ", str(text)).strip().lower()
    if key not in CLAIM_WORDS:
        raise PuzzleError(
            f"unknown status {text!r}; expected unique, multiple, none, solved or unknown"
        )
    return CLAIM_WORDS[key]


# -- solutions -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LineError:
    """A line of a solution that breaks its clue.

    Attributes
    ----------
    line : int
        Line index, rows first then columns (:meth:`Puzzle.line_name`).
    name : str
        ``"row 3"`` / ``"column 7"`` (1-based).
    expected : tuple of int
        The clue.
    actual : tuple of int
        The blocks the solution has in that line.
    """

    line: int
    name: str
    expected: Any
    actual: Any
    palette: Any = None  #: the puzzle's palette for a colour puzzle (clues are (lengths, colours))

    def __str__(self) -> str:
        if self.palette is not None:
            (lengths, colours), (got, got_colours) = self.expected, self.actual
            return (f"{self.name}: expected {colour_clue_text(lengths, colours, self.palette)}, "
                    f"actual {colour_clue_text(got, got_colours, self.palette)}")
        return f"{self.name}: expected {clue_text(self.expected)}, actual {clue_text(self.actual)}"

    def to_json(self) -> dict[str, Any]:
        """``{"line": "row 3", "expected": [3, 1], "actual": [2, 2]}``; for a colour puzzle the
        blocks are ``[length, "colour"]`` pairs."""
        if self.palette is not None:
            names = [c.name for c in self.palette.colours]

            def pairs(blocks: Any) -> list[list[Any]]:
                return [[b, names[c]] for b, c in zip(*blocks, strict=True)]

            return {"line": self.name, "expected": pairs(self.expected),
                    "actual": pairs(self.actual)}
        return {"line": self.name, "expected": list(self.expected or ()),
                "actual": list(self.actual)}


@dataclass
class SolutionCheck:
    """Whether a submitted solution satisfies every clue.

    Attributes
    ----------
    solution : ndarray of bool, shape (height, width)
    errors : list of LineError
        Every failing line, rows first (empty when the solution is valid).
    """

    solution: np.ndarray
    errors: list[LineError]

    @property
    def valid(self) -> bool:
        """No line breaks its clue."""
        return not self.errors

    def describe(self, limit: int = 3) -> str:
        """``"valid"`` or ``"breaks 4 clues: row 3: expected 3 1, actual 2 2; ..."``."""
        if self.valid:
            return "valid"
        shown = "; ".join(str(e) for e in self.errors[:limit])
        more = f"; and {len(self.errors) - limit} more" if len(self.errors) > limit else ""
        n = len(self.errors)
        return f"breaks {n} clue{'s' if n != 1 else ''}: {shown}{more}"

    def to_json(self) -> dict[str, Any]:
        """``{"valid": bool, "line_errors": [...]}``."""
        return {"valid": self.valid, "line_errors": [e.to_json() for e in self.errors]}


def check_solution(puzzle: Puzzle, solution: np.ndarray) -> SolutionCheck:
    """Check ``solution`` against every clue of ``puzzle``.

    Parameters
    ----------
    puzzle : Puzzle
    solution : ndarray of bool, shape (height, width)

    Returns
    -------
    SolutionCheck

    Raises
    ------
    PuzzleError
        ``solution`` has the wrong shape.
    """
    if puzzle.palette is not None:  # colour: indices of the palette
        sol = np.asarray(solution, dtype=np.int8)
        errors = [LineError(line, puzzle.line_name(line), expected, actual, puzzle.palette)
                  for line, expected, actual in puzzle.line_errors(sol)]
        return SolutionCheck(sol, errors)
    sol = np.asarray(solution, dtype=bool)
    errors = [LineError(line, puzzle.line_name(line), expected, actual)
              for line, expected, actual in puzzle.line_errors(sol)]
    return SolutionCheck(sol, errors)


def parse_solution(value: Any, shape: tuple[int, int], palette: Any = None) -> np.ndarray:
    """A solution as a results file writes it.

    Parameters
    ----------
    value : list of str, str, or list of list of int/bool
        Row strings (``"##..#"``; ``#``/``X``/``1`` filled, ``.``/``0``/``-`` empty), one string
        whose rows are separated by newlines, ``|``, ``/``, ``,`` or ``;``, or rows of 0/1.
    shape : (height, width)
        The puzzle's shape; the solution must have exactly this size.
    palette : Palette, optional
        A colour puzzle's palette: rows are then strings of its characters (``.`` is also the
        background), and the result holds colour indices (int8).

    Returns
    -------
    ndarray of bool, shape ``shape`` (int8 colour indices with ``palette``)

    Raises
    ------
    PuzzleError
        Wrong number of rows or cells in a row, an unknown or undecided (``?``) cell.
    """
    if isinstance(value, str):
        rows = [r.strip() for r in re.split(r"[\n|/,;]", value.strip())]
        rows = [r for r in rows if r]
    elif isinstance(value, list) and all(isinstance(r, str) for r in value):
        rows = [r.rstrip("\r\n") for r in value]
    elif isinstance(value, list) and all(isinstance(r, list) for r in value):
        rows = []
        for i, row in enumerate(value, start=1):
            if not all(v in (0, 1) for v in row):
                raise PuzzleError(f"solution row {i}: cells must be 0 or 1")
            rows.append("".join("1" if v else "0" for v in row))
    else:
        raise PuzzleError("a solution must be a list of row strings (or one string of rows)")
    height, width = shape
    if len(rows) != height:
        raise PuzzleError(f"wrong size: the solution has {len(rows)} rows, the puzzle {height}")
    for i, row in enumerate(rows, start=1):
        if len(row) != width:
            raise PuzzleError(
                f"wrong size: solution row {i} has {len(row)} cells, the puzzle is {width} wide"
            )
    if palette is not None:
        index = {ch: k for k, ch in enumerate(palette.chars)}
        index.setdefault(".", 0)
        out = np.zeros(shape, dtype=np.int8)
        for i, row in enumerate(rows):
            for j, ch in enumerate(row):
                if ch not in index:
                    raise PuzzleError(
                        f"solution row {i + 1}, column {j + 1}: {ch!r} is no colour of the "
                        f"palette ({palette.chars})"
                    )
                out[i, j] = index[ch]
        return out
    return grid_to_solution(grid_from_rows(rows, shape))


# -- judging ---------------------------------------------------------------------------------------
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
            "evidence": [_rows(self.puzzle, s) for s in self.evidence],
            "time_s": round(self.time_s, 6),
            "load_s": round(self.load_s, 6),
        }

    def witness_files(self) -> dict[str, bytes]:
        """The witness directory's files (relative path -> content); see the module docstring."""
        from nonosat.certify import certificate_files_of

        files: dict[str, bytes] = {}
        for k, sol in enumerate(self.evidence, start=1):
            files[f"solution-{k}.txt"] = _grid_text(sol, self.puzzle)
        bad = [c for c in self.checks if not c.valid]
        for k, check in enumerate(bad, start=1):
            files[f"submitted-{k}.txt"] = _grid_text(check.solution, self.puzzle)
        if bad:
            lines = []
            for k, check in enumerate(bad, start=1):
                if len(bad) > 1:
                    lines.append(f"submitted-{k}.txt:")
                lines.extend(str(e) for e in check.errors)
            files["line-errors.txt"] = ("\n".join(lines) + "\n").encode()
        cert = self.certificate
        if cert is not None and (cert.proved or cert.verdict == "multiple"):
            for name, data in certificate_files_of(cert).items():
                files[f"certificate/{name}"] = data
        files["verdict.json"] = (json.dumps(self.to_json(), indent=2) + "\n").encode()
        return files


def _rows(puzzle: Puzzle, solution: np.ndarray) -> list[str]:
    """Row strings of a solution: ``#``/``.``, or the palette's characters for colour."""
    if puzzle.palette is not None:
        return colour_rows(solution, puzzle.palette)
    return grid_rows(np.asarray(solution, dtype=bool))


def _grid_text(solution: np.ndarray, puzzle: Puzzle | None = None) -> bytes:
    if puzzle is not None and puzzle.palette is not None:
        return ("\n".join(_rows(puzzle, solution)) + "\n").encode()
    return ("\n".join(grid_rows(np.asarray(solution, dtype=bool))) + "\n").encode()


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
       by the portfolio of ``nonosat solve`` and :func:`nonosat.certify.certify_any`: two
       solutions (a witness certificate), or a DRAT proof of uniqueness or of unsatisfiability
       (checked before it counts).  Every solution used as evidence is re-checked against the
       clues here.

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
        Proof checkers for :func:`~nonosat.certify.certify_any` (``auto``, the default: nonosat's
        own LRAT checker and the DRAT/LRAT agreement, then drat-trim and cake_lpr when found;
        see :func:`nonosat.certificates.resolve_checkers`).

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
    """:func:`nonosat.certify.certify_any` (the portfolio of ``nonosat solve`` decides, then a
    proof for ``unique``/``none``), with every solution it returns checked against the clues and
    against the submitted valid solution."""
    from nonosat.certify import certify_any

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


def write_witness(judgement: Judgement, out_dir: str | os.PathLike[str],
                  force: bool = False) -> list[Path]:
    """Write :meth:`Judgement.witness_files` under ``out_dir`` (created if needed).

    Raises
    ------
    FormatError
        ``out_dir`` is a file, or a non-empty directory without ``force``; a file that cannot
        be written.
    """
    from nonosat.certificates import ensure_writable_dir

    out = Path(out_dir)
    ensure_writable_dir(out, force)
    return write_files(judgement.witness_files(), out)


def write_files(files: dict[str, bytes], out: Path) -> list[Path]:
    """Write ``files`` (relative path -> content) under ``out``, each atomically; a directory
    whose files are all replaced (``certificate/``) loses the stale ones.

    Raises
    ------
    FormatError
        A file that cannot be written.
    """
    from nonosat.certificates import CERTIFICATE_FILES
    from nonosat.certificates.witness import SOLUTION_FILES

    written = []
    try:
        if any(name.startswith("certificate/") for name in files):
            for name in (*CERTIFICATE_FILES, *SOLUTION_FILES):
                if f"certificate/{name}" not in files:
                    (out / "certificate" / name).unlink(missing_ok=True)
        for name, data in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data, force=True)
            written.append(path)
    except OSError as exc:
        raise FormatError(str(exc.filename or out), None, exc.strerror or str(exc)) from None
    return written


# -- results files ---------------------------------------------------------------------------------
@dataclass
class ResultRow:
    """One row of another solver's results file.

    Attributes
    ----------
    line : int
        1-based line of the row in the file.
    id : str
        The puzzle it names (``file#N``, ``N``, or a file).
    status : str
        The status as written.
    solution : object or None
        The solution as written (see :func:`parse_solution`).
    problem : str or None
        Why the row cannot be judged (a malformed line), found while reading.
    """

    line: int
    id: str
    status: str
    solution: Any = None
    problem: str | None = None


#: Largest results file :func:`read_results` reads (``NONOSAT_MAX_FILE_BYTES`` raises it).
MAX_RESULTS_BYTES = 256 << 20


def read_results(path: str | os.PathLike[str]) -> list[ResultRow]:
    """Read a results file: JSON Lines (``{"id": ..., "status": ..., "solution": [...]}``), TSV
    whose header names the columns ``id``, ``status`` and optionally ``solution``, or the files
    other solvers write:

    - a tournament solution file (``$N`` then N rows of N TAB-separated 0/1: nonosolve's
      ``-o``, ``nonosat solve/batch --taai-out``): each intact picture is a row claiming
      ``solved`` with that solution, id ``N``; an all-0 picture (nonosolve's mark of a puzzle it
      did not solve) is a row without an answer; a block cut short (the solver was killed while
      writing) is one bad row, the others are judged;
    - nonosolve's ``--log`` (``#N<TAB>seconds<TAB>UNIQUE|MULTIPLE|NONE|TIMEOUT<TAB>...``): a row
      per puzzle, id ``N``, claiming its verdict;
    - pbnsolve's output (``-b``: an optional title line, then words such as ``unique``,
      ``multiple``, ``contradiction``, ``timeout``; without ``-b``: ``UNIQUE ... SOLUTION:`` /
      ``FOUND MULTIPLE SOLUTIONS:`` / ``NO SOLUTION.`` and the grid, which is read as the
      solution).  pbnsolve names no puzzle: a file of one run is a row for the one puzzle
      given; runs put one after another each start with a line ``==> FILE <==`` (what
      ``head``/``tail`` print between files) or ``== FILE``, naming the puzzle file.

    JSON Lines is recognised by a ``.jsonl``/``.ndjson``/``.json`` suffix or a first non-blank
    character ``{``, the others by their first lines.  A malformed line becomes a row with a
    ``problem`` (reported, not skipped).

    Raises
    ------
    FormatError
        Unreadable file, not a regular file or larger than :data:`MAX_RESULTS_BYTES`
        (:func:`nonosat.safe_io.read_bounded`), no rows, a malformed TSV, or a TSV header
        without ``id`` and ``status``.
    """
    p = Path(path)
    limit = max(MAX_RESULTS_BYTES, size_limits().max_file_bytes)
    try:
        text = read_bounded(p, limit, "results file").decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(str(p), None, f"not UTF-8 text: {exc.reason}") from None
    jsonl = p.suffix.lower() in (".jsonl", ".ndjson", ".json") or text.lstrip().startswith("{")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if jsonl:
        rows = _read_jsonl(text)
    elif re.fullmatch(r"\$\s*\d+\s*\$?", first):
        rows = _read_taai_solutions(text, str(p))
    elif _NONOSOLVE_LOG.match(first):
        rows = _read_nonosolve_log(text)
    elif _is_pbnsolve(text):
        rows = _read_pbnsolve(text)
    else:
        rows = _read_tsv(text, str(p))
    if not rows:
        raise FormatError(str(p), None, "no results rows")
    return rows


def _read_jsonl(text: str) -> list[ResultRow]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            rows.append(ResultRow(number, f"line {number}", "", None, f"not JSON: {exc.msg}"))
            continue
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, nesting too deep
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:80]
            rows.append(ResultRow(number, f"line {number}", "", None, f"not JSON: {reason}"))
            continue
        if not isinstance(obj, dict) or "id" not in obj or "status" not in obj:
            rows.append(ResultRow(number, f"line {number}", "", None,
                                  "a results line must be an object with 'id' and 'status'"))
            continue
        solution = obj.get("solution")
        if solution is None and isinstance(obj.get("solutions"), list) and obj["solutions"]:
            solution = obj["solutions"]  # several grids: judged one by one
        status = obj["status"]
        rows.append(ResultRow(number, str(obj["id"]), "" if status is None else str(status),
                              solution))
    return rows


def _read_taai_solutions(text: str, path: str) -> list[ResultRow]:
    """Rows of a tournament solution file (:func:`nonosat.formats.tournament.solution_blocks`)."""
    from nonosat.formats.tournament import solution_blocks

    rows = []
    for number, line, picture, problem in solution_blocks(text.encode("utf-8"), path):
        if picture is None:
            rows.append(ResultRow(line, str(number), "", None, problem))
        elif not picture.any():  # nonosolve writes an empty grid for a puzzle it did not solve
            rows.append(ResultRow(line, str(number), "unknown", None))
        else:
            rows.append(ResultRow(line, str(number), "solved",
                                  ["".join("1" if v else "0" for v in row) for row in picture]))
    return rows


#: A line of nonosolve's ``--log``: ``#N``, seconds, the verdict, statistics (TAB-separated).
_NONOSOLVE_LOG = re.compile(r"#(\d+)\t[0-9.eE+-]+\t([A-Za-z_-]+)(?:\t.*)?$")


def _read_nonosolve_log(text: str) -> list[ResultRow]:
    """Rows of nonosolve's ``--log`` (its last line, ``total time: S``, is no row)."""
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("total time:"):
            continue
        m = _NONOSOLVE_LOG.fullmatch(line)
        if m is None:
            rows.append(ResultRow(number, f"line {number}", "", None,
                                  "expected '#N<TAB>seconds<TAB>VERDICT' (a nonosolve log cut "
                                  "short?)"))
            continue
        rows.append(ResultRow(number, m.group(1), m.group(2).lower()))
    return rows


#: Words of pbnsolve's brief (``-b``) verdict line, with ``logical``, which it prints too.
_PBNSOLVE_WORDS = {"unique", "multiple", "line", "logical", "depth-2", "trivial", "solvable",
                   "contradiction", "timeout", "stalled"}
#: pbnsolve's verbose verdict lines (without ``-b``) -> claim.
_PBNSOLVE_HEADS = ((re.compile(r"UNIQUE\b.*SOLUTION:?"), "unique"),
                   (re.compile(r"FOUND MULTIPLE SOLUTIONS:?"), "multiple"),
                   (re.compile(r"NO SOLUTION\.?"), "none"))
_PBNSOLVE_FILE = re.compile(r"==>? (.+?)(?: <==)?")


def _pbnsolve_verdict(line: str) -> str | None:
    """The claim of a pbnsolve verdict line (brief or verbose), ``None`` if it is none."""
    words = line.split()
    if words and set(words) <= _PBNSOLVE_WORDS:
        if "contradiction" in words:
            return "none"
        if "multiple" in words:
            return "multiple"
        if "unique" in words:
            return "unique"
        return "solved" if "solvable" in words or "trivial" in words else "unknown"
    for head, claim in _PBNSOLVE_HEADS:
        if head.fullmatch(line.strip()):
            return claim
    return None


def _is_pbnsolve(text: str) -> bool:
    """Whether ``text`` is pbnsolve's output: a verdict line among its first lines (after the
    optional file and title lines) and no TAB (a TSV header has them)."""
    head = [line for line in text.splitlines() if line.strip()][:3]
    return "\t" not in "".join(head) and any(_pbnsolve_verdict(line) for line in head)


def _read_pbnsolve(text: str) -> list[ResultRow]:
    """Rows of pbnsolve's output, one per run (see :func:`read_results`); a verbose run's first
    grid (``X`` filled, ``.`` empty) is its solution."""
    rows: list[ResultRow] = []
    current: ResultRow | None = None
    file = ""
    grid: list[str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        named = _PBNSOLVE_FILE.fullmatch(line.strip())
        if named:
            file, current, grid = named.group(1), None, None
            continue
        if grid is not None:
            if line and set(line) <= set("X.") and (not grid or len(line) == len(grid[0])):
                grid.append(line)
                continue
            grid = None
        claim = _pbnsolve_verdict(line) if current is None else None
        if claim is not None:
            current = ResultRow(number, file, claim)
            rows.append(current)
            if not line.split()[0].islower():  # verbose: the solution grid follows
                grid = []
                current.solution = grid
    for row in rows:
        if row.solution == []:
            row.solution = None
    return rows


def _read_tsv(text: str, path: str) -> list[ResultRow]:
    reader = csv.reader(io.StringIO(text), delimiter="\t")
    header: list[str] | None = None
    rows: list[ResultRow] = []
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # a field over csv's size limit
            raise FormatError(path, reader.line_num or None, f"malformed TSV: {exc}") from None
        number = reader.line_num
        if not any(cell.strip() for cell in record):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in record]
            missing = [c for c in ("id", "status") if c not in header]
            if missing:
                raise FormatError(path, number, "expected a TSV header naming the columns id, "
                                  f"status and optionally solution; missing {', '.join(missing)}")
            continue
        cells = dict(zip(header, (c.strip() for c in record), strict=False))
        if len(record) < header.index("status") + 1:
            rows.append(ResultRow(number, cells.get("id") or f"line {number}", "", None,
                                  f"{len(record)} columns; the header has {len(header)}"))
            continue
        rows.append(ResultRow(number, cells["id"], cells["status"], cells.get("solution") or None))
    return rows


# -- finding the puzzles ---------------------------------------------------------------------------
class PuzzleIndex:
    """Finds the puzzle a results row names.

    A row id is matched, in order: exactly against the puzzle ids (``path#N`` as
    :func:`nonosat.formats.iter_puzzles` gives them); as ``FILE#N`` or ``FILE`` where ``FILE`` is
    the same file by path or, failing that, by file name; as a bare puzzle number ``N`` (``$N``
    and ``#N`` too) of a multi-puzzle file (a tournament set).

    Parameters
    ----------
    puzzles : iterable of (str, Puzzle)
        Ids and puzzles, e.g. :attr:`nonosat.batch.Inputs.puzzles`.
    """

    def __init__(self, puzzles: Iterable[tuple[str, Puzzle]]):
        self.by_id: dict[str, Puzzle] = {}
        self._by_path: dict[tuple[str, int | None], list[str]] = {}
        self._by_name: dict[tuple[str, int | None], list[str]] = {}
        self._by_number: dict[int, list[str]] = {}
        for puzzle_id, puzzle in puzzles:
            self.by_id[puzzle_id] = puzzle
            file, number = _split_id(puzzle_id)
            self._by_path.setdefault((_real(file), number), []).append(puzzle_id)
            self._by_name.setdefault((Path(file).name, number), []).append(puzzle_id)
            if number is not None:
                self._by_number.setdefault(number, []).append(puzzle_id)

    def find(self, row_id: str) -> tuple[str, Puzzle]:
        """The ``(id, puzzle)`` that ``row_id`` names.

        Raises
        ------
        LookupError
            No puzzle, or several (the message says which and how to be precise).
        """
        row_id = row_id.strip()
        if not row_id and len(self.by_id) == 1:  # a results file naming no puzzle (pbnsolve's)
            return next(iter(self.by_id.items()))
        if row_id in self.by_id:
            return row_id, self.by_id[row_id]
        bare = re.fullmatch(r"[$#]?\s*(\d+)", row_id)
        if bare:
            wanted = int(bare.group(1))
            return self._one(self._by_number.get(wanted, []),
                             f"no puzzle numbered {wanted} in the puzzle files", row_id)
        file, number = _split_id(row_id)
        found = self._by_path.get((_real(file), number)) or self._by_name.get(
            (Path(file).name, number), [])
        what = f"puzzle {number} of {file}" if number is not None else file
        return self._one(found, f"no {what} among the puzzle files", row_id)

    def _one(self, found: list[str], missing: str, row_id: str) -> tuple[str, Puzzle]:
        if not found:
            raise LookupError(missing)
        if len(found) > 1:
            raise LookupError(f"{row_id!r} is ambiguous: {', '.join(found[:3])}"
                              + (" ..." if len(found) > 3 else "") + "; name FILE#N")
        return found[0], self.by_id[found[0]]


def _split_id(puzzle_id: str) -> tuple[str, int | None]:
    m = re.fullmatch(r"(.*)#(\d+)", puzzle_id)
    return (m.group(1), int(m.group(2))) if m else (puzzle_id, None)


def _real(file: str) -> str:
    try:
        return os.path.realpath(file)
    except (OSError, ValueError):
        return file


# -- batch -----------------------------------------------------------------------------------------
#: Key of :attr:`Puzzle.meta` under which a batch task carries its row to the worker.
ROW_META = "verify_row"


def verify_job(puzzle: Puzzle, options: Any) -> dict[str, Any]:
    """Batch job (runs in a worker): judge the row carried in ``puzzle.meta[ROW_META]``
    (``claim``, ``solutions``, ``checkers``, ``keep``) with :func:`verify`.

    Returns the judgement's JSON with ``status`` = the outcome, and ``witness_files`` (relative
    path -> bytes) when the outcome is in ``keep``; the batch process writes them.
    """
    row = puzzle.meta.get(ROW_META, {})
    judgement = verify(puzzle, row.get("claim"), row.get("solutions", ()),
                       timeout=options.timeout, checkers=row.get("checkers", ("auto",)))
    record = judgement.to_json()
    record["status"] = record.pop("outcome")
    if judgement.outcome in row.get("keep", ("refuted",)):
        record["witness_files"] = judgement.witness_files()
    return record


def warm_verify(options: Any) -> None:
    """Import the encoding, the SAT solver and the proof checker once per worker process."""
    verify(Puzzle(((1,), ()), ((1,), ())), "unique")


def verify_batch_job() -> Any:
    """The :class:`nonosat.batch.Job` that runs :func:`verify_job` (proof checking is not bounded
    by the timeout, so the worker's deadline is three times it)."""
    from nonosat.batch.jobs import Job

    return Job("verify", f"{__name__}:verify_job", f"{__name__}:warm_verify",
               ("nonosat.certificates",),
               "judge another solver's answers", default_engine="", time_factor=3.0)


def witness_dir(out: Path, row_id: str) -> Path:
    """The witness directory of row ``row_id`` under ``out``: the id with every run of
    characters other than letters, digits, ``.``, ``-`` and ``_`` replaced by ``_``."""
    return out / (re.sub(r"[^A-Za-z0-9._-]+", "_", row_id.lstrip("./")) or "_")


def verify_results(
    rows: Sequence[ResultRow],
    index: PuzzleIndex,
    *,
    timeout: float | None = 60.0,
    jobs: int | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    keep: Sequence[str] = ("refuted",),
    checkers: Sequence[str] = ("auto",),
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Judge every row of a results file, in parallel worker processes.

    Parameters
    ----------
    rows : sequence of ResultRow
    index : PuzzleIndex
        The puzzles the rows name.
    timeout : float or None
        Seconds per row for finding solutions and proofs (``undecided`` after it); a worker that
        overruns three times that (plus a grace margin) is killed and the row is ``undecided``.
    jobs : int, optional
        Worker processes (default: the usable cores).
    out_dir : path, optional
        Witnesses of the rows whose outcome is in ``keep`` are written to
        :func:`witness_dir` ``(out_dir, id)`` by this process, and the record's ``witness_dir``
        is that directory.
    keep : sequence of str
        Outcomes whose witnesses are written.
    checkers : sequence of str
        Proof checkers.
    on_record : callable(dict), optional
        Called with each record as it is final (progress display).

    Returns
    -------
    list of dict
        One record per row, in file order: ``id`` (the row's), ``line``, ``puzzle`` (the
        puzzle's id, when found), ``claim``, ``status`` (an :data:`OUTCOMES` value), ``reason``,
        and for judged rows the fields of :meth:`Judgement.to_json` (``witness`` is the kind of
        evidence) plus ``witness_dir`` (where it was written, or ``None``).

    Raises
    ------
    NonosatError
        The batch machinery cannot run; a witness that cannot be written.
    """
    from nonosat.batch import BatchConfig, run_batch

    records: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    tasks: list[tuple[str, Puzzle]] = []
    seen: dict[str, int] = {}
    out = Path(out_dir) if out_dir is not None else None

    def finish(record: dict[str, Any]) -> None:
        if on_record is not None:
            on_record(record)

    for row in rows:
        key = f"{row.id}@{row.line}"
        order.append(key)
        base = {"id": row.id, "line": row.line, "claim": None, "puzzle": None}
        problem = row.problem
        claim = None
        puzzle_id = None
        puzzle = None
        solutions: list[np.ndarray] = []
        if problem is None and row.id in seen:
            problem = f"duplicate row: {row.id!r} is already on line {seen[row.id]}"
        if problem is None:
            seen[row.id] = row.line
            try:
                claim = parse_claim(row.status)
                base["claim"] = claim
                puzzle_id, puzzle = index.find(row.id)
                base["puzzle"] = puzzle_id
                solutions = _row_solutions(row.solution, puzzle.shape, puzzle.palette)
            except LookupError as exc:
                problem = f"puzzle not found: {exc.args[0]}"
            except PuzzleError as exc:
                problem = str(exc)
        if problem is not None or puzzle is None:
            record = {**base, "status": "bad-row", "reason": problem, "error": problem}
            records[key] = record
            finish(record)
            continue
        row_meta = {"claim": claim, "solutions": solutions, "checkers": tuple(checkers),
                    "keep": tuple(keep)}
        tasks.append((key, replace(puzzle, meta={**puzzle.meta, ROW_META: row_meta})))
        records[key] = base

    def arrived(record: dict[str, Any]) -> None:
        key = record["id"]
        base = records[key]
        record = {**base, **{k: v for k, v in record.items() if k not in ("id", "puzzle", "job")}}
        if record.get("status") in _WORKER_FAILURES:
            what = record["status"]
            record["status"] = "undecided"
            record["reason"] = f"{what}: {record.get('error') or what}"
        files = record.pop("witness_files", None)
        record["witness_dir"] = None
        if files and out is not None:
            target = witness_dir(out, base["id"])
            write_files(files, target)
            record["witness_dir"] = str(target)
        if record.get("status") == "refuted":
            record["disagreement"] = record.get("reason")
        records[key] = record
        finish(record)

    if tasks:
        config = BatchConfig(job=verify_batch_job(), timeout=timeout, jobs=jobs)
        run_batch(tasks, config, on_record=arrived)
    result = []
    for key in order:
        record = records[key]
        record.pop("disagreement", None)
        result.append(record)
    return result


def _row_solutions(value: Any, shape: tuple[int, int], palette: Any = None) -> list[np.ndarray]:
    """The solution(s) of a row: ``None``, one solution, or a list of solutions."""
    if value is None or value == "" or value == []:
        return []
    if isinstance(value, list) and value and all(
        isinstance(v, list) and v and all(isinstance(r, str) for r in v) for v in value
    ):
        return [parse_solution(v, shape, palette) for v in value]
    return [parse_solution(value, shape, palette)]


# -- summary ---------------------------------------------------------------------------------------
@dataclass
class VerifySummary:
    """What :func:`verify_results` found.

    Attributes
    ----------
    rows : int
    table : dict of str to dict of str to int
        Claimed verdict (``unique``, ``multiple``, ``none``, ``solved``, ``-`` for none) ->
        outcome -> rows.
    refuted : list of dict
        ``id``, ``claim``, ``reason``, ``evidence`` (its kind) and ``witness_dir`` (directory or
        ``None``) of each refuted row.
    undecided : list of dict
        ``id``, ``claim``, ``reason`` of each undecided row.
    bad_rows : list of dict
        ``id``, ``line``, ``reason`` of each row that could not be judged.
    """

    rows: int = 0
    table: dict[str, dict[str, int]] = field(default_factory=dict)
    refuted: list[dict[str, Any]] = field(default_factory=list)
    undecided: list[dict[str, Any]] = field(default_factory=list)
    bad_rows: list[dict[str, Any]] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        """Rows with ``outcome``."""
        return sum(c.get(outcome, 0) for c in self.table.values())

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"rows": self.rows, "table": self.table, "refuted": self.refuted,
                "undecided": self.undecided, "bad_rows": self.bad_rows}


def summarise_verdicts(records: Iterable[dict[str, Any]]) -> VerifySummary:
    """Count :func:`verify_results` records per claimed verdict and outcome, and list the
    refuted, undecided and bad rows."""
    summary = VerifySummary()
    table: dict[str, Counter[str]] = {}
    for r in records:
        summary.rows += 1
        claim = r.get("claim") or "-"
        status = str(r.get("status"))
        table.setdefault(claim, Counter())[status] += 1
        if status == "refuted":
            summary.refuted.append({"id": r["id"], "claim": r.get("claim"),
                                    "reason": r.get("reason"), "evidence": r.get("witness"),
                                    "witness_dir": r.get("witness_dir")})
        elif status == "undecided":
            summary.undecided.append({"id": r["id"], "claim": r.get("claim"),
                                      "reason": r.get("reason")})
        elif status == "bad-row":
            summary.bad_rows.append({"id": r["id"], "line": r.get("line"),
                                     "reason": r.get("reason")})
    order = [*CLAIMS, "-"]
    summary.table = {c: {o: table[c].get(o, 0) for o in OUTCOMES if table[c].get(o)}
                     for c in sorted(table, key=order.index)}
    return summary
