"""The per-puzzle jobs a batch runs, and the table that names them.

A job is a plain function ``run(puzzle, options) -> dict`` executed in a worker process; the dict
it returns becomes the puzzle's line in the results file (the batch adds ``id``, ``job``, timing
and ``error``).  It must hold a ``status`` (a :class:`nonosat.engines.Status` value, or one of the
failure statuses of :mod:`nonosat.batch.results`).  A job may name a *warm-up* function
``warmup(options)`` that each worker process runs once before its first puzzle, outside the
per-puzzle time limit, so that importing the engines and compiling the numba kernels is not
charged to (and not killed with) the first puzzle.

Jobs are named by ``"module:function"`` strings and imported in the worker, so the batch process
does not import OR-Tools or PySAT, and a job whose module is not installed is reported once, up
front, by :func:`resolve_job`.  ``--do module:function`` runs any importable function with the same
signature (a custom job).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

from nonosat.errors import InvalidSolutionError, NonosatError, check_known
from nonosat.puzzle import Puzzle
from nonosat.verdict import CROSSCHECK_ENGINES


@dataclass(frozen=True)
class JobOptions:
    """Options every job receives (the same for every puzzle of a batch).

    Attributes
    ----------
    engine : str
        Engine name for :func:`nonosat.engines.solve` (``"auto"``, ``"native"``, ``"sat"``, ...);
        for the crosscheck job, a comma-separated list of engines to compare.
    timeout : float or None
        Seconds the engine may spend on one puzzle before giving up (status ``unknown``).  The
        batch kills a worker that overruns it by a grace margin (status ``timeout``).
    want_certificate : bool
        Whether the certify job should return the certificate text (written under
        ``--cert-dir`` by the batch process, so workers need no shared file system).
    """

    engine: str = "auto"
    timeout: float | None = None
    want_certificate: bool = False


@dataclass(frozen=True)
class Job:
    """A named job.

    Attributes
    ----------
    name : str
        What ``--do`` calls it (``"check"``).
    run : str
        ``"module:function"`` called in the worker as ``function(puzzle, options) -> dict``.
    warmup : str or None
        ``"module:function"`` called once per worker process as ``function(options)``.
    requires : tuple of str
        Modules the job needs; :func:`resolve_job` fails with a clear message when one is missing.
    description : str
        One line for ``--help``.
    engines_in_turn : bool
        Whether the job runs each engine of a comma-separated ``engine`` in turn, each with the
        full ``timeout`` (the worker's deadline is then multiplied by the number of engines).
    default_engine : str
        Engine (list) used when none is given; ``""`` for jobs that use no engine.
    time_factor : float
        The worker's deadline is ``time_factor * timeout`` plus grace, for jobs whose steps are
        not all bounded by ``timeout`` (certify: solving is, checking the proof is not).
    """

    name: str
    run: str
    warmup: str | None = None
    requires: tuple[str, ...] = ()
    description: str = ""
    engines_in_turn: bool = False
    default_engine: str = "auto"
    time_factor: float = 1.0


_HERE = __name__

#: The jobs ``nonosat batch --do`` knows, by name.
JOBS: dict[str, Job] = {
    "solve": Job(
        "solve",
        f"{_HERE}:solve_job",
        f"{_HERE}:warm_engine",
        (),
        "first solution only (limit 1, tournament rules)",
    ),
    "check": Job(
        "check",
        f"{_HERE}:check_job",
        f"{_HERE}:warm_engine",
        (),
        "uniqueness verdict (limit 2)",
    ),
    "certify": Job(
        "certify",
        f"{_HERE}:certify_job",
        None,
        ("nonosat.certificates",),
        "uniqueness certificate (checked DRAT proof), written under --cert-dir",
    ),
    "crosscheck": Job(
        "crosscheck",
        f"{_HERE}:crosscheck_job",
        None,
        ("nonosat.engines.compare",),
        "solve with nonosat's portfolio, SAT and CP-SAT and compare the verdicts",
        engines_in_turn=True,
        default_engine=",".join(CROSSCHECK_ENGINES),
    ),
    "analyse": Job(
        "analyse",
        f"{_HERE}:analyse_job",
        f"{_HERE}:warm_analyse",
        ("nonosat.analysis.difficulty",),
        "difficulty analysis: techniques needed, grade, ambiguity of several solutions",
        time_factor=3.0,
    ),
}


def resolve_job(name: str | Job) -> Job:
    """The job called ``name`` (a :data:`JOBS` key or a ``"module:function"`` custom job), or
    ``name`` itself when it is a :class:`Job`.

    Raises
    ------
    NonosatError
        Unknown job name, or a job whose module is not installed (not written yet, or an optional
        dependency missing): one clear message up front instead of one error per puzzle.
    """
    if isinstance(name, Job):
        job = name
    elif ":" in name and name not in JOBS:
        job = Job(name, name, None, (name.partition(":")[0],), "custom job")
    else:
        job = JOBS[check_known(name, JOBS, "job", NonosatError)]
    for module in job.requires:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise NonosatError(
                f"the {job.name!r} job needs the module {module}, which is not available in "
                "this installation"
            )
    return job


def import_target(target: str) -> Any:
    """The object named by ``"module:attribute"``.

    Raises
    ------
    NonosatError
        The module or the attribute does not exist.
    """
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attribute)
    except (ImportError, AttributeError) as exc:
        raise NonosatError(f"cannot load job {target!r}: {exc}") from exc


# -- solve and check ------------------------------------------------------------------------------

def _tiny_puzzle() -> Puzzle:
    """A 2x2 puzzle with one filled cell: enough to import and compile everything."""
    return Puzzle(((1,), ()), ((1,), ()))


def engine_names(engine: str) -> list[str]:
    """The engines of a comma-separated list, each once, in order."""
    return list(dict.fromkeys(name.strip() for name in engine.split(",") if name.strip()))


def warm_engine(options: JobOptions) -> None:
    """Import the engine(s) and compile their kernels by solving a 2x2 puzzle (once per worker)."""
    from nonosat.engines import solve

    for name in engine_names(options.engine):
        solve(_tiny_puzzle(), name, limit=2)


def warm_certify(options: JobOptions) -> None:
    """Import the CNF encoding, the SAT solver and the proof checker (once per worker)."""
    from nonosat.certificates.certifier import certify_puzzle

    certify_puzzle(_tiny_puzzle())


def solve_job(puzzle: Puzzle, options: JobOptions) -> dict[str, Any]:
    """First solution only: :func:`nonosat.engines.solve` with ``limit=1``."""
    return _solve(puzzle, options, limit=1)


def check_job(puzzle: Puzzle, options: JobOptions) -> dict[str, Any]:
    """Uniqueness verdict: :func:`nonosat.engines.solve` with ``limit=2``."""
    return _solve(puzzle, options, limit=2)


def _solve(puzzle: Puzzle, options: JobOptions, limit: int) -> dict[str, Any]:
    from nonosat.engines import solve

    try:
        result = solve(puzzle, options.engine, limit=limit, timeout=options.timeout)
    except InvalidSolutionError as exc:
        return {"status": "invalid", "engine": options.engine, "error": str(exc)}
    record = result.to_json(puzzle)
    check = goal_check(puzzle, result.status.value, result.solutions)
    if check is not None:
        record["goal_check"] = check
    return record


def goal_check(puzzle: Puzzle, status: str, solutions: list[Any]) -> str | None:
    """Compare a verdict with the published picture (``puzzle.goal``), when there is one.

    Returns
    -------
    str or None
        ``None`` without a goal or without a decided verdict; ``"match"`` when a solution found
        is the goal; ``"invalid"`` when the goal breaks the clues (a data problem, not an engine
        one); ``"contradicts"`` when the engine said *unique* with another picture, or *none*,
        although the goal satisfies the clues (a disagreement); ``"other"`` otherwise (several
        solutions, or a first solution that happens not to be the goal).
    """
    import numpy as np

    if puzzle.goal is None or status not in ("unique", "multiple", "none", "solved"):
        return None
    if not puzzle.is_solution(puzzle.goal):
        return "invalid"
    if any(np.array_equal(np.asarray(s, dtype=puzzle.goal.dtype), puzzle.goal) for s in solutions):
        return "match"
    if status in ("unique", "none"):
        return "contradicts"
    return "other"


# -- jobs that call into other modules -------------------------------------------------------------


def certify_job(puzzle: Puzzle, options: JobOptions) -> dict[str, Any]:
    """Uniqueness certificate: :func:`nonosat.certificates.certifier.certify_puzzle` (the verdict
    from the portfolio of ``nonosat solve``; CNF, DRAT proof written by the native solver where it
    decides without search, by SAT otherwise; checked by dratify; several solutions: a witness
    certificate).

    The record has ``status`` (the certificate's verdict), ``certified`` (a proof every checker
    accepted), ``solutions``, ``engine`` (the SAT solver), ``time_s``, ``stats``, ``checks`` and,
    when ``options.want_certificate``, ``certificate_files`` (file name -> bytes), which the batch
    process writes under ``--cert-dir`` and removes from the record.  A unique or none verdict
    whose proof a checker rejects is a disagreement.  A colour puzzle is certified by
    :func:`nonosat.certificates.certifier.certify_colour_puzzle` (the colour certificate or a
    witness; ``stats`` empty).
    """
    from nonosat.certificates.certifier import (
        certificate_files_of,
        certify_colour_puzzle,
        certify_puzzle,
    )
    from nonosat.puzzle import colour_rows, grid_rows

    if puzzle.palette is not None:  # the portfolio decides, then the colour certificate
        cert = certify_colour_puzzle(puzzle, timeout=options.timeout)
        solutions = [colour_rows(s, puzzle.palette) for s in cert.solutions]
        stats: dict[str, Any] = {}
    else:
        cert = certify_puzzle(puzzle, timeout=options.timeout)
        solutions = [grid_rows(s) for s in cert.solutions]
        stats = {k: v for k, v in cert.stats.items() if isinstance(v, int | float | str)}
    record: dict[str, Any] = {
        "status": cert.verdict,
        "certified": cert.proved,
        "solutions": solutions,
        "engine": f"sat:{cert.solver}",
        "time_s": round(cert.times.get("total", 0.0), 6),
        "stats": stats,
        "checks": [c.to_json() for c in cert.checks],
    }
    rejected = [c for c in cert.checks if not c.ok]
    if cert.verdict in ("unique", "none") and rejected:
        record["disagreement"] = "; ".join(
            f"{c.checker} rejects the proof: {c.reason}" for c in rejected
        )
    check = goal_check(puzzle, cert.verdict, cert.solutions)
    if check is not None:
        record["goal_check"] = check
    if options.want_certificate:  # several solutions: a witness certificate
        record["certificate_files"] = certificate_files_of(cert)
    return record


def crosscheck_job(puzzle: Puzzle, options: JobOptions) -> dict[str, Any]:
    """Cross-check of the engines in ``options.engine`` (:func:`nonosat.engines.compare.crosscheck`).

    The record is ``CrossCheck.to_json`` (``status`` is the agreed verdict, ``"unknown"`` or
    ``"disagreement"``; ``engines``; ``findings``) plus ``disagreement``, the findings' messages
    joined, when anything was found wrong (including a goal picture that breaks the clues).
    """
    from nonosat.engines.compare import crosscheck

    report = crosscheck(puzzle, engine_names(options.engine), timeout=options.timeout)
    record = report.to_json()
    record.pop("id", None)
    if report.failed:
        record["disagreement"] = "; ".join(f["message"] for f in record["findings"])
    return record


def warm_analyse(options: JobOptions) -> None:
    """Import the analysis and compile its kernels on a 2x2 puzzle (once per worker)."""
    from nonosat.analysis.difficulty import analyse

    analyse(_tiny_puzzle(), engine=options.engine)


#: Seconds of backdoor search per puzzle in a batch analysis (``nonosat analyse`` gives it 10 s
#: by default): a run over a tournament set would otherwise spend 10 s on every puzzle logic
#: does not solve.  The record says whether the backdoor is exact or the best found, with its
#: lower bound, as always.
BATCH_BACKDOOR_TIMEOUT = 2.0


def analyse_job(puzzle: Puzzle, options: JobOptions) -> dict[str, Any]:
    """Difficulty analysis: :func:`nonosat.analysis.difficulty.analyse` (its ``timeout`` bounds
    the verdict, then the ambiguity map and the givens together; the backdoor search gets at
    most :data:`BATCH_BACKDOOR_TIMEOUT`), recorded as ``Analysis.to_json``; colour puzzles
    alike."""
    from nonosat.analysis.difficulty import analyse

    backdoor_s = BATCH_BACKDOOR_TIMEOUT
    if options.timeout:
        backdoor_s = min(backdoor_s, options.timeout)
    result = analyse(puzzle, timeout=options.timeout, engine=options.engine,
                     backdoor_timeout=backdoor_s, count=False)  # no counter process per puzzle
    record = result.to_json()
    check = goal_check(puzzle, result.status.value, result.solutions)
    if check is not None:
        record["goal_check"] = check
    return record
