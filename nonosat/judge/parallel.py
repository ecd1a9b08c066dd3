"""Judging every row of a results file (:func:`verify_results`), in worker processes through
:mod:`nonosat.batch` (a worker per core, killed from outside on overrun).  A row whose puzzle
cannot be found, or whose solution has the wrong size, gets a ``bad-row`` record: nothing is
skipped silently."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from nonosat.errors import PuzzleError
from nonosat.judge.answer import verify
from nonosat.judge.claims import parse_claim
from nonosat.judge.evidence import witness_dir, write_files
from nonosat.judge.results_files import PuzzleIndex, ResultRow
from nonosat.judge.solution import parse_solution
from nonosat.puzzle import Puzzle

#: Statuses the batch machinery records for a worker that failed (they become ``undecided``).
_WORKER_FAILURES = ("timeout", "crashed", "error")

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
