"""Cross-check: run independent engines on one puzzle and compare what they say.

A verdict is trusted only when independent engines agree.  :func:`crosscheck` runs each engine
(by default :data:`DEFAULT_ENGINES`: nonosat's verdict, the ``auto`` portfolio that ``nonosat
solve`` and every other command decide with (:mod:`nonosat.verdict`), against the SAT engine
alone and CP-SAT; ``native``, the native solver alone, can be named too) with limit 2 and
checks, independently of every engine:

* each reported solution against the clues (an invalid solution names the engine and the lines
  that break their clue);
* each result against itself: as many distinct solutions as its verdict claims;
* the verdicts against one another, and every ``unique`` or ``none`` verdict against the valid
  solutions the *other* engines found (a second valid solution refutes ``unique``, any refutes
  ``none``; the differing cells are named);
* the goal picture carried by the file, when there is one: it must satisfy the clues, and is then
  a valid solution like any engine's (so a unique solution that differs from it is a finding).

Engines are reached only through :func:`nonosat.engines.get_engine`, and each engine's own
``solve`` is called directly, so that an invalid solution is reported against the engine that
produced it rather than stopped by :func:`nonosat.engines.solve`'s own check.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat import interrupts
from nonosat.engines import CROSSCHECK_ENGINES, Status, get_engine, load_engine
from nonosat.errors import PuzzleError
from nonosat.puzzle import Puzzle, clue_text, colour_clue_text, colour_rows, grid_rows

#: The engines a cross-check compares by default (:data:`nonosat.engines.CROSSCHECK_ENGINES`):
#: nonosat's verdict (the portfolio of ``nonosat solve``, so that crosscheck decides every
#: puzzle solve decides), the SAT engine on its own and OR-Tools CP-SAT.
DEFAULT_ENGINES = CROSSCHECK_ENGINES

#: Overall status of a cross-check whose engines do not agree (or one of them is wrong).
DISAGREEMENT = "disagreement"

#: The verdicts a run with limit 2 can decide.
_DECIDED = (Status.UNIQUE, Status.MULTIPLE, Status.NONE)

#: How many solutions each verdict implies (``UNKNOWN``: whatever was found before giving up).
_COUNTS = {
    Status.UNIQUE: (1, 1),
    Status.MULTIPLE: (2, 2),
    Status.NONE: (0, 0),
    Status.UNKNOWN: (0, 1),
}

#: Cells listed by name in a finding before the rest are only counted.
_CELLS_SHOWN = 5


@dataclass
class EngineRun:
    """One engine's answer on one puzzle.

    Attributes
    ----------
    engine : str
    status : Status or None
        ``None`` when the engine failed with an exception (see ``error``).
    time_s : float
        Wall-clock seconds of the engine's ``solve`` call (the engine loaded beforehand).
    solutions : list of ndarray of bool, each shape (height, width)
    stats : dict
        The engine's statistics.
    error : str or None
        The exception an engine failed with (type and message).
    """

    engine: str
    status: Status | None
    time_s: float
    solutions: list[np.ndarray] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def verdict(self) -> str:
        """The status as text (``"unique"``, ...), ``"error"`` when the engine failed."""
        return self.status.value if self.status is not None else "error"


@dataclass(frozen=True)
class Finding:
    """Something a cross-check found wrong.

    Attributes
    ----------
    kind : str
        ``"engine-error"`` (an engine raised), ``"invalid-solution"`` (a solution breaks the
        clues), ``"inconsistent-result"`` (solution count or duplicates do not match the verdict),
        ``"verdict"`` (decided verdicts differ, or ``none`` against a valid solution),
        ``"solution"`` (``unique`` against a different valid solution) or ``"goal"`` (the file's
        goal picture breaks the clues).
    message : str
        One line naming the engine(s), lines and cells concerned.
    engine : str or None
        The engine at fault, when one can be named.
    """

    kind: str
    message: str
    engine: str | None = None


@dataclass
class CrossCheck:
    """The report of :func:`crosscheck` on one puzzle.

    Attributes
    ----------
    puzzle_id : str
    puzzle : Puzzle
    runs : list of EngineRun
        In the order the engines were given.
    findings : list of Finding
    status : str
        The verdict every deciding engine agrees on (``"unique"``, ``"multiple"``, ``"none"``),
        ``"unknown"`` when every engine gave up, or :data:`DISAGREEMENT` when a finding other than
        ``"goal"`` was made (an engine that returns an invalid solution agrees with no one).
    """

    puzzle_id: str
    puzzle: Puzzle
    runs: list[EngineRun]
    findings: list[Finding]
    status: str

    @property
    def failed(self) -> bool:
        """Whether anything was found wrong (a disagreement, an invalid solution or goal)."""
        return bool(self.findings)

    @property
    def gave_up(self) -> bool:
        """Whether some engine gave up (time limit) before deciding."""
        return any(run.status == Status.UNKNOWN for run in self.runs)

    def to_json(self) -> dict[str, Any]:
        """JSON object: ``id``, ``status``, ``engines`` (name -> ``verdict``, ``time_s``,
        ``solutions`` as row strings, ``stats``, ``error``) and ``findings``."""
        return {
            "id": self.puzzle_id,
            "status": self.status,
            "engines": {
                run.engine: {
                    "verdict": run.status.value if run.status is not None else None,
                    "time_s": round(run.time_s, 6),
                    "solutions": [
                        colour_rows(s, self.puzzle.palette)
                        if self.puzzle.palette is not None
                        else grid_rows(s)
                        for s in run.solutions
                    ],
                    "stats": run.stats,
                    "error": run.error,
                }
                for run in self.runs
            },
            "findings": [
                {"kind": f.kind, "engine": f.engine, "message": f.message} for f in self.findings
            ],
        }


def crosscheck(
    puzzle: Puzzle,
    engines: Sequence[str] = DEFAULT_ENGINES,
    *,
    timeout: float | None = None,
    puzzle_id: str | None = None,
) -> CrossCheck:
    """Run each engine on ``puzzle`` with limit 2 and compare their answers.

    Parameters
    ----------
    puzzle : Puzzle
    engines : sequence of str
        Engine names (duplicates are run once).
    timeout : float, optional
        Seconds allowed to *each* engine.
    puzzle_id : str, optional
        Name of the puzzle in the report (default: :meth:`Puzzle.describe`).

    Returns
    -------
    CrossCheck
        Each engine is loaded first (:func:`nonosat.engines.load_engine`), so the times are the
        engines' own.

    Raises
    ------
    EngineError
        An unknown or unavailable engine name.  An engine that raises while solving is reported
        as an ``"engine-error"`` finding instead, so one crash does not hide the other engines.
    Interrupted
        An interrupt (:mod:`nonosat.interrupts`) stopped an engine: never a finding.

    Examples
    --------
    >>> crosscheck(Puzzle([(1,), ()], [(1,), ()]), ["cpsat"]).status
    'unique'
    """
    names = list(dict.fromkeys(engines))
    instances = [get_engine(name) for name in names]
    for name in names:  # load kernels and libraries first: they are not the engine's time
        try:
            load_engine(name, colour=puzzle.is_colour)
        except Exception:  # an engine that fails here fails (and is reported) in its run below
            interrupts.check()  # unless an interrupt made it fail: that is no engine's fault
    runs = [
        _run(name, engine, puzzle, timeout) for name, engine in zip(names, instances, strict=True)
    ]
    findings: list[Finding] = []
    valid: dict[str, list[np.ndarray]] = {}
    for run in runs:
        run_findings = _check_run(puzzle, run)
        findings += run_findings
        if run.status is not None:
            valid[run.engine] = [s for s in run.solutions if _is_valid(puzzle, s)]
    goal, goal_findings = _goal_witness(puzzle)
    findings += goal_findings + _compare(runs, valid, goal)
    if findings and any(f.kind != "goal" for f in findings):
        status = DISAGREEMENT
    else:
        decided = {run.status.value for run in runs if run.status in _DECIDED}
        status = decided.pop() if decided else Status.UNKNOWN.value
    return CrossCheck(puzzle_id or puzzle.describe(), puzzle, runs, findings, status)


def _run(name: str, engine: Any, puzzle: Puzzle, timeout: float | None) -> EngineRun:
    start = time.perf_counter()
    try:
        result = engine.solve(puzzle, limit=2, timeout=timeout)
    except Exception as exc:  # an engine bug is a finding, not the end of the cross-check
        interrupts.check()  # but an engine stopped by an interrupt is no finding: Interrupted
        return EngineRun(
            name, None, time.perf_counter() - start, error=f"{type(exc).__name__}: {exc}"
        )
    elapsed = time.perf_counter() - start
    solutions = [np.asarray(s) for s in result.solutions]
    return EngineRun(name, result.status, elapsed, solutions, dict(result.stats))


def _is_valid(puzzle: Puzzle, solution: np.ndarray) -> bool:
    try:
        return _solution_problem(puzzle, solution) is None
    except PuzzleError:
        return False


def _check_run(puzzle: Puzzle, run: EngineRun) -> list[Finding]:
    """Findings about one run on its own: a crash, invalid or duplicate solutions, a solution
    count that does not match the verdict."""
    name = run.engine
    if run.status is None:
        return [Finding("engine-error", f"engine {name!r} failed: {run.error}", name)]
    findings = []
    for k, sol in enumerate(run.solutions, start=1):
        problem = _solution_problem(puzzle, sol)
        if problem:
            findings.append(
                Finding("invalid-solution", f"engine {name!r} solution {k}: {problem}", name)
            )
    distinct = {(s.shape, s.tobytes()) for s in run.solutions}
    if len(distinct) < len(run.solutions):
        findings.append(
            Finding(
                "inconsistent-result", f"engine {name!r} returned the same solution twice", name
            )
        )
    low, high = _COUNTS.get(run.status, (-1, -1))
    if not low <= len(run.solutions) <= high:
        findings.append(
            Finding(
                "inconsistent-result",
                f"engine {name!r} says {run.status.value} with limit 2 but returned "
                f"{len(run.solutions)} solution(s)",
                name,
            )
        )
    return findings


def _solution_problem(puzzle: Puzzle, solution: np.ndarray) -> str | None:
    """Why ``solution`` is not a solution of ``puzzle`` (the lines and their clues), or None."""
    if puzzle.is_colour:
        if solution.dtype.kind not in "iu":
            return f"is an array of {solution.dtype}, not of colour indices"
    elif solution.dtype != bool:
        return f"is an array of {solution.dtype}, not of bool"
    try:
        errors = puzzle.line_errors(solution)
    except PuzzleError as exc:
        return str(exc)
    if not errors:
        return None
    if puzzle.palette is not None:
        pal = puzzle.palette
        parts = [
            f"{puzzle.line_name(line)} should be {colour_clue_text(lengths, colours, pal)} but is "
            f"{colour_clue_text(got, got_colours, pal)}"
            for line, (lengths, colours), (got, got_colours) in errors[:_CELLS_SHOWN]
        ]
        more = f" (and {len(errors) - _CELLS_SHOWN} more lines)" if len(errors) > _CELLS_SHOWN else ""
        return "; ".join(parts) + more
    parts = [
        f"{puzzle.line_name(line)} should be {clue_text(expected)} but is {clue_text(actual)}"
        for line, expected, actual in errors[:_CELLS_SHOWN]
    ]
    more = f" (and {len(errors) - _CELLS_SHOWN} more lines)" if len(errors) > _CELLS_SHOWN else ""
    return "; ".join(parts) + more


def _goal_witness(puzzle: Puzzle) -> tuple[np.ndarray | None, list[Finding]]:
    """The goal picture when it satisfies the clues, else a ``"goal"`` finding saying why."""
    if puzzle.goal is None:
        return None, []
    problem = _solution_problem(puzzle, puzzle.goal)
    if problem:
        return None, [Finding("goal", f"the goal picture carried by the file: {problem}")]
    return puzzle.goal, []


def _compare(
    runs: list[EngineRun], valid: dict[str, list[np.ndarray]], goal: np.ndarray | None
) -> list[Finding]:
    """Findings between runs: differing decided verdicts, and ``unique``/``none`` verdicts
    refuted by another engine's (or the goal's) valid solution."""
    findings = []
    decided = [run for run in runs if run.status in _DECIDED]
    if len({run.status for run in decided}) > 1:
        said = ", ".join(f"{run.engine} {run.verdict}" for run in decided)
        findings.append(Finding("verdict", f"engines disagree on the verdict: {said}"))
    witnesses = [(name, sol) for name, sols in valid.items() for sol in sols]
    if goal is not None:
        witnesses.append(("the goal picture", goal))
    for run in decided:
        others = [(name, sol) for name, sol in witnesses if name != run.engine]
        if run.status == Status.NONE and others:
            name, _ = others[0]
            findings.append(
                Finding(
                    "verdict",
                    f"engine {run.engine!r} says none but {_who(name)} has a valid solution",
                    run.engine,
                )
            )
        elif run.status == Status.UNIQUE and run.solutions:
            mine = run.solutions[0]
            for name, sol in others:
                if sol.shape == mine.shape and (sol != mine).any():
                    findings.append(
                        Finding(
                            "solution",
                            f"engine {run.engine!r} says unique but {_who(name)} has another "
                            f"valid solution; they differ in {_cells(sol != mine)}",
                            run.engine,
                        )
                    )
                    break
    return findings


def _who(name: str) -> str:
    return name if name == "the goal picture" else f"engine {name!r}"


def _cells(mask: np.ndarray) -> str:
    """``"3 cells: (row 1, column 2), ..."`` for the True cells of ``mask`` (1-based)."""
    where = np.argwhere(mask)
    shown = ", ".join(f"(row {r + 1}, column {c + 1})" for r, c in where[:_CELLS_SHOWN])
    more = ", ..." if len(where) > _CELLS_SHOWN else ""
    return f"{len(where)} cell{'s' if len(where) != 1 else ''}: {shown}{more}"
