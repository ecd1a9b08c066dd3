"""The results file of a batch (JSON Lines, resumable) and the summary of its records.

One JSON object per line and per puzzle, written and flushed as each puzzle finishes, so a batch
killed at any point loses at most the puzzles that were running.  Rerunning with the same file
skips the ``(id, job)`` pairs already recorded; a last line cut short by the kill is dropped.

In the file, records follow the JSON contract (``docs/cli.md``, schema ``nonosat/1``): the
puzzle's name in ``puzzle``, the worker's wall time in ``elapsed_s``, ``status`` in the one
vocabulary (``unique``, ``multiple``, ``none``, ``solved``, ``unknown``) and a failure below
(``timeout``, ...) in ``failure`` with ``status`` ``unknown``.  In memory, and in files written
before the contract (which are still read, so that a batch resumes on them), the name is ``id``,
the time ``wall_s`` and a failure the ``status`` itself: :func:`file_record` and
:func:`memory_record` convert.

Statuses
--------
Decided verdicts are those of :class:`nonosat.engines.Status` (``unique``, ``multiple``,
``none``, ``solved``); ``unknown`` means the engine gave up within its own time limit.  Failures:

``timeout``
    the worker overran the time limit by the grace margin and was killed;
``crashed``
    the worker died (signal, out of memory) while on this puzzle;
``error``
    the job raised (an engine that is not installed, a bug);
``invalid``
    an engine returned a solution that breaks the clues;
``disagreement``
    engines (cross-check) or the published picture (``goal_check == "contradicts"``) disagree
    with the verdict;
``unreadable``
    an input file (found in a directory) that could not be read: damaged, not a regular file,
    over the size limit.  Its row names the file and the reader's one-line error.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from nonosat.errors import FormatError
from nonosat.safe_io import read_bounded

#: Statuses that mean a puzzle got no verdict (exit code 4).
UNDECIDED = frozenset({"unknown", "timeout", "crashed", "error"})
#: Status of the row of an input file that could not be read (listed among the failures).
UNREADABLE = "unreadable"
#: Statuses that mean a wrong answer somewhere (exit code 1).
WRONG = frozenset({"invalid", "disagreement"})


_GAVE_UP = "the engine gave up within its time limit"


def is_disagreement(record: dict[str, Any]) -> bool:
    """Whether ``record`` reports an invalid solution or a disagreement (engines, goal)."""
    return (
        record.get("status") in WRONG
        or record.get("goal_check") == "contradicts"
        or bool(record.get("disagreement"))
    )


#: Largest results file read (a million puzzles of about 1 KB each).
MAX_RESULTS_BYTES = 1 << 30

#: How the records nonosat writes begin; a cut last line is dropped only when it begins so.
_RECORD_START = re.compile(r'\{\s*"(?:id|schema)"\s*:')

_NOT_OURS = (
    "is not a nonosat results file (every line must be a JSON record with 'puzzle' and 'job'); "
    "it is left untouched: choose another --out"
)


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every record of a results file, in file order (an absent file has none).

    The file is recognised by its content: every line must be a JSON object with a string
    ``id`` and ``job`` (what nonosat writes), except that a last line cut short (no newline,
    not valid JSON, but beginning like a record) is ignored: that is what a killed batch leaves
    behind.  Anything else (notes, a puzzle file, an empty line-less text) is refused, so that
    :class:`ResultsFile` never truncates or appends to a file that nonosat did not write.

    Raises
    ------
    FormatError
        A FIFO, device or other non-regular file; a line that is not a nonosat record (names the
        line: the file is not touched).
    """
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        return []
    data = read_bounded(p, MAX_RESULTS_BYTES, "results file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(str(p), None, f"{_NOT_OURS} (not UTF-8 text)") from None
    lines = text.split("\n")
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            if number == len(lines) and _RECORD_START.match(line):  # a killed batch's last line
                break
            raise FormatError(str(p), number, _NOT_OURS) from None
        if isinstance(record, dict):
            record = memory_record(record)
        if not (
            isinstance(record, dict)
            and isinstance(record.get("id"), str)
            and isinstance(record.get("job"), str)
        ):
            raise FormatError(str(p), number, _NOT_OURS)
        records.append(record)
    return records


#: The contract's statuses; any other status of a record is a failure (``timeout``, ...).
_VERDICTS = frozenset({"unique", "multiple", "none", "solved", "unknown"})


#: The command whose JSON a job's record follows (:func:`nonosat.contract.convert`).
_JOB_COMMAND = {"solve": "solve", "check": "solve", "analyse": "analyse",
                "crosscheck": "crosscheck", "certify": "certify"}


def file_record(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` (the in-memory form) as written to the file: ``schema`` first, ``puzzle`` for
    ``id``, ``elapsed_s`` for ``wall_s``, a failure status in ``failure`` with ``status``
    ``unknown`` (module docstring)."""
    from nonosat.contract import SCHEMA, convert

    out: dict[str, Any] = {"schema": SCHEMA, "puzzle": record.get("id"),
                           "job": record.get("job")}
    status = record.get("status")
    command = _JOB_COMMAND.get(str(record.get("job")))
    converted = convert(command, record) if command is not None else dict(record)
    if status is not None and status not in _VERDICTS:
        out["status"] = "unknown"
        out["failure"] = status
    else:
        out["status"] = converted.get("status", status)
    for key, value in converted.items():
        if key in ("id", "puzzle", "job", "status", "schema"):
            continue
        out["elapsed_s" if key == "wall_s" else key] = value
    return out


def memory_record(record: dict[str, Any]) -> dict[str, Any]:
    """A record read from a file (:func:`file_record`'s form, or the older one with ``id``,
    ``wall_s`` and failures as the status) in the in-memory form."""
    if "id" in record and "schema" not in record:  # written before the contract
        return record
    out = dict(record)
    out.pop("schema", None)
    if isinstance(out.get("puzzle"), str):
        out["id"] = out["puzzle"]
    if "elapsed_s" in out and "wall_s" not in out:
        out["wall_s"] = out.pop("elapsed_s")
    failure = out.pop("failure", None)
    if isinstance(failure, str) and failure:
        out["status"] = failure
    return out


class ResultsFile:
    """A JSON Lines results file opened for resuming and appending.

    Parameters
    ----------
    path : path-like
        Created if absent; existing records are read first (:func:`read_records`).  The file is
        locked until :meth:`close`.

    Raises
    ------
    FormatError
        The file cannot be created or read, is not a regular file, is not a nonosat results file
        (:func:`read_records`: then it is left exactly as it was), or another batch holds its
        lock.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.jsonl")
    >>> with ResultsFile(path) as results:
    ...     results.append({"id": "a.non", "job": "check", "status": "unique"})
    >>> with ResultsFile(path) as results:
    ...     results.done("a.non", "check")
    True
    """

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._file: IO[str] | None = None
        self._lock = self._take_lock()
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        try:
            for record in read_records(self.path):
                self.records[(record["id"], str(record.get("job")))] = record  # last one wins
        except BaseException:
            self.close()
            raise

    def _take_lock(self) -> IO[bytes] | None:
        """Lock the file (``flock``, exclusive) so that two batches never run into one file."""
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # O_NONBLOCK: a FIFO at the path must not block; it is refused just below.
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise FormatError(str(self.path), None, "is not a regular file; choose another --out")
            handle = os.fdopen(fd, "ab")  # held until close()
        except OSError as exc:
            raise FormatError(str(self.path), None, exc.strerror or str(exc)) from None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise FormatError(
                str(self.path), None, "another batch is writing this results file"
            ) from None
        return handle

    def done(self, puzzle_id: str, job: str, retry_failed: bool = False) -> bool:
        """Whether ``puzzle_id`` already has a ``job`` record (a failed one counts unless
        ``retry_failed``; an ``unreadable`` file's row never does: the file may be fixed)."""
        record = self.records.get((puzzle_id, job))
        if record is None or record.get("status") == UNREADABLE:
            return False
        return not (retry_failed and record.get("status") in UNDECIDED)

    def add_input_errors(self, errors: Iterable[dict[str, Any]], job: str) -> None:
        """Write one failed row (status ``unreadable``) per input file that could not be read
        (:attr:`nonosat.batch.collect.Inputs.errors`), unless the same row is already there.

        Raises
        ------
        FormatError
            The file cannot be written.
        """
        for error in errors:
            old = self.records.get((error["id"], job))
            if old is not None and old.get("error") == error.get("error"):
                continue
            self.append(
                {
                    "id": error["id"],
                    "job": job,
                    "puzzle": error["id"],
                    "status": UNREADABLE,
                    "wall_s": 0.0,
                    "error": error.get("error"),
                }
            )

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one line and flush it to the operating system.

        Raises
        ------
        FormatError
            The file cannot be written.
        """
        if self._file is None:
            self._file = self._open()
        try:
            self._file.write(json.dumps(file_record(record), separators=(",", ":")) + "\n")
            self._file.flush()
        except OSError as exc:
            raise FormatError(str(self.path), None, exc.strerror or str(exc)) from None
        self.records[(record["id"], str(record.get("job")))] = record

    def _open(self) -> IO[str]:
        """Open for appending, first cutting off an unfinished last line."""
        try:
            if self.path.exists():
                with open(self.path, "rb+") as f:
                    data = f.read()
                    if data and not data.endswith(b"\n"):
                        last = data.rfind(b"\n") + 1
                        try:
                            json.loads(data[last:])
                            f.write(b"\n")
                        except ValueError:
                            # read_records accepted the file, so this is a cut record
                            f.truncate(last)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            return open(self.path, "a", encoding="utf-8")
        except OSError as exc:
            raise FormatError(str(self.path), None, exc.strerror or str(exc)) from None

    def close(self) -> None:
        """Close the file and release its lock (records already written stay)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- summary ---------------------------------------------------------------------------------------


@dataclass
class Summary:
    """What a batch found, for the table at the end and ``--json``.

    Attributes
    ----------
    puzzles : int
        Records summarised.
    counts : dict of str to int
        Puzzles per status, most frequent first.
    total_s, median_s, p99_s, max_s : float
        Sum, median, 99th percentile (nearest rank) and maximum of the per-puzzle wall-clock
        seconds (``wall_s``).
    slowest : list of dict
        The slowest puzzles: ``id``, ``status``, ``wall_s``.
    disagreements : list of dict
        ``id``, ``status``, ``reason`` of each record for which :func:`is_disagreement` holds.
    failures : list of dict
        ``id``, ``status``, ``error`` of each record without a verdict (timeouts, crashes, errors,
        engines giving up), plus the unreadable input files.
    multiple, none : list of str
        Ids of the puzzles found to have several solutions / no solution, in record order.
    grades : dict of str to int
        For analyse records: puzzles per difficulty grade (``"3 (hard)"``), by grade.
    not_graded : dict of str to int
        For analyse records: puzzles that get no grade, by reason (``"not graded: no
        solution"``, ``"not graded: several solutions"``), apart from ``grades``.
    """

    puzzles: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    total_s: float = 0.0
    median_s: float = 0.0
    p99_s: float = 0.0
    max_s: float = 0.0
    slowest: list[dict[str, Any]] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    multiple: list[str] = field(default_factory=list)
    none: list[str] = field(default_factory=list)
    grades: dict[str, int] = field(default_factory=dict)
    not_graded: dict[str, int] = field(default_factory=dict)

    @property
    def undecided(self) -> int:
        """Puzzles that got no verdict."""
        return sum(n for status, n in self.counts.items() if status in UNDECIDED)

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-serialisable dict."""
        return {
            "puzzles": self.puzzles,
            "counts": self.counts,
            "time_s": {
                "total": round(self.total_s, 6),
                "median": round(self.median_s, 6),
                "p99": round(self.p99_s, 6),
                "max": round(self.max_s, 6),
            },
            "slowest": self.slowest,
            "disagreements": self.disagreements,
            "failures": self.failures,
            "multiple": self.multiple,
            "none": self.none,
            "grades": self.grades,
            "not_graded": self.not_graded,
        }


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank ``q``-th percentile (0 < q <= 100) of ascending ``sorted_values``."""
    if not sorted_values:
        return 0.0
    rank = max(math.ceil(q / 100 * len(sorted_values)), 1)
    return sorted_values[rank - 1]


def summarise(
    records: Iterable[dict[str, Any]],
    input_errors: Iterable[dict[str, Any]] = (),
    slowest: int = 5,
) -> Summary:
    """Summarise batch records (see :class:`Summary`).

    Parameters
    ----------
    records : iterable of dict
        Results records (one per puzzle).
    input_errors : iterable of dict
        ``{"id", "status", "error"}`` for input files that could not be read; listed among the
        failures but not counted as puzzles.
    slowest : int
        How many of the slowest puzzles to list.
    """
    records = list(records)
    counts = Counter(str(r.get("status")) for r in records)
    times = sorted(float(r.get("wall_s") or 0.0) for r in records)
    by_time = sorted(records, key=lambda r: -float(r.get("wall_s") or 0.0))[:slowest]
    disagreements = [
        {"id": r["id"], "status": r.get("status"), "reason": _reason(r)}
        for r in records
        if is_disagreement(r)
    ]
    failures = [
        {"id": r["id"], "status": r.get("status"), "error": r.get("error") or _GAVE_UP}
        for r in records
        if r.get("status") in UNDECIDED
    ]
    failures += [dict(e) for e in input_errors]
    grades: Counter[int] = Counter()
    not_graded: Counter[str] = Counter()
    names: dict[int, str] = {}
    for r in records:  # {"grade": 3, "name": "hard", ...}, or a bare 3 (colour puzzles)
        grade = r.get("grade")
        if isinstance(grade, dict) and grade.get("grade") is None and grade.get("reason"):
            not_graded[f"not graded: {grade['reason']}"] += 1  # no solution, several
            continue
        if isinstance(grade, dict) and grade.get("name"):
            name = str(grade["name"])
            grade = grade.get("grade")
            if isinstance(grade, int) and not isinstance(grade, bool):
                names[grade] = name
        if isinstance(grade, int) and not isinstance(grade, bool):
            grades[grade] += 1
    if grades:
        grade_names: tuple[str, ...] = ()
        try:
            from nonosat.analysis.difficulty import GRADE_NAMES

            grade_names = GRADE_NAMES
        except ImportError:
            pass
        for g in grades:
            if g not in names and 0 < g < len(grade_names):
                names[g] = grade_names[g]
    return Summary(
        puzzles=len(records),
        counts=dict(counts.most_common()),
        total_s=sum(times),
        median_s=percentile(times, 50),
        p99_s=percentile(times, 99),
        max_s=times[-1] if times else 0.0,
        slowest=[
            {"id": r["id"], "status": r.get("status"), "wall_s": r.get("wall_s")} for r in by_time
        ],
        disagreements=disagreements,
        failures=failures,
        multiple=[str(r["id"]) for r in records if r.get("status") == "multiple"],
        none=[str(r["id"]) for r in records if r.get("status") == "none"],
        grades={
            (f"{g} ({names[g]})" if g in names else str(g)): n for g, n in sorted(grades.items())
        },
        not_graded=dict(sorted(not_graded.items())),
    )


def _reason(record: dict[str, Any]) -> str:
    if record.get("goal_check") == "contradicts":
        return f"verdict {record.get('status')} but the published picture satisfies the clues"
    return str(record.get("error") or record.get("disagreement") or record.get("status"))
