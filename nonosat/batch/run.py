"""Run a job over many puzzles through a ``concurrent.futures``-style executor.

Locally the executor is a thread pool whose threads each drive one worker process
(:mod:`nonosat.batch.sandbox`); with a dask scheduler address it is the
:class:`distributed.Client`'s executor, whose task threads on the dask workers do the same.
Either way the work sent out is :class:`~nonosat.batch.sandbox.Task` objects holding the puzzle
itself (not a file name), so workers need no shared file system, and the per-puzzle time limit
is enforced next to the worker process, from outside it.

At most a window of tasks is in flight at a time (twice the number of worker threads), so memory
stays flat on large corpora and an interrupted batch wastes little.  Each result is written to
the results file as soon as it arrives.

On a dask cluster each task is keyed by its puzzle (:func:`task_key`).  When a dask worker dies,
the scheduler reruns the tasks it held on the other workers under the same keys, so each result
comes back once; a puzzle gets at most one record per run whatever the executor does, and a rerun
of the batch skips the puzzles the results file holds (:func:`pending`): nothing is lost and
nothing is recorded twice (``benchmarks/bench_record_dask.py`` kills a worker mid-run to show it).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nonosat import interrupts
from nonosat.batch.jobs import JOBS, Job, JobOptions, engine_names, resolve_job
from nonosat.batch.results import ResultsFile
from nonosat.batch.sandbox import Task, close_sandboxes, kill_sandboxes, run_task
from nonosat.errors import EngineError, NonosatError, check_known
from nonosat.puzzle import Puzzle
from nonosat.safe_io import atomic_write

#: Fewest tasks kept in flight on a dask cluster (workers may join after the batch starts).
DASK_WINDOW = 32

#: Seconds to wait for a dask scheduler to answer.
CONNECT_SECONDS = 30.0


@dataclass(frozen=True)
class BatchConfig:
    """How to run a batch.

    Attributes
    ----------
    job : str or Job
        Job name (:data:`nonosat.batch.jobs.JOBS`), ``"module:function"``, or a
        :class:`~nonosat.batch.jobs.Job`.
    engine : str or None
        Engine for solve/check; comma-separated engines for crosscheck.  Default: the job's
        (``auto``; ``auto,sat,cpsat`` for crosscheck).
    timeout : float or None
        Per-puzzle time limit given to the engine, in seconds (``None``: none).
    grace_s : float or None
        Extra seconds before a worker that has not answered is killed (default:
        ``max(2, timeout / 4)``).  Only applies with a ``timeout``.
    jobs : int or None
        Local worker processes (default: the usable cores).  Ignored with a scheduler.
    memory_mb : int or None
        Address-space limit of each worker process, MiB.
    cert_dir : Path or None
        Where the certify job's certificates are written (by the batch process), one directory
        per puzzle (:func:`certificate_dir`).
    force : bool
        Replace existing certificate directories (else :func:`run_batch` refuses up front).
    retry_failed : bool
        Rerun puzzles whose earlier record is a failure (timeout, crash, error, unknown).
    """

    job: str | Job = "check"
    engine: str | None = None
    timeout: float | None = 60.0
    grace_s: float | None = None
    jobs: int | None = None
    memory_mb: int | None = None
    cert_dir: Path | None = None
    retry_failed: bool = False
    force: bool = False

    def deadline_s(self, factor: float = 1.0) -> float | None:
        """Seconds after which a worker that has not answered is killed, for a job that may take
        ``factor`` times the ``timeout`` (several engines in turn, unbounded proof checking)."""
        if self.timeout is None:
            return None
        limit = self.timeout * max(factor, 1.0)
        grace = self.grace_s if self.grace_s is not None else max(2.0, limit / 4)
        return limit + grace


def default_jobs() -> int:
    """Number of usable cores."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_engines(engine: str) -> list[str]:
    """The engines of a comma-separated list; fails up front on an unknown or uninstalled one.

    Raises
    ------
    EngineError
    """
    import importlib.util

    from nonosat.engines import ENGINE_MODULES

    names = engine_names(engine)
    if not names:
        raise EngineError("no engine named")
    for name in names:
        check_known(name, ENGINE_MODULES, "engine")
        module = ENGINE_MODULES[name].partition(":")[0]
        if importlib.util.find_spec(module) is None:
            raise EngineError(f"engine {name!r} is not available in this installation")
    return names


def pending(
    puzzles: Iterable[tuple[str, Puzzle]], results: ResultsFile | None, config: BatchConfig
) -> list[tuple[str, Puzzle]]:
    """The puzzles of ``puzzles`` that ``results`` does not hold yet (all without a file)."""
    job = resolve_job(config.job).name
    if results is None:
        return list(puzzles)
    return [(i, p) for i, p in puzzles if not results.done(i, job, config.retry_failed)]


@contextmanager
def dask_executor(address: str) -> Iterator[tuple[cf.Executor, int]]:
    """A ``concurrent.futures`` executor on the dask scheduler at ``address``, and the number of
    worker threads it has.

    Raises
    ------
    NonosatError
        dask.distributed is not installed or the scheduler does not answer.
    """
    try:
        from distributed import Client
    except ImportError as exc:
        raise NonosatError(
            "--scheduler needs dask.distributed: pip install 'nonosat[dask]'"
        ) from exc
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise NonosatError(f"cannot reach the dask scheduler at {address}: {exc}") from None
    try:
        threads = sum(client.nthreads().values())
        yield client.get_executor(pure=False), max(threads, 1)
    finally:
        client.close()


def task_key(task: Task) -> str:
    """The dask key of ``task``: the job, the puzzle id and a digest of everything the result
    depends on (the puzzle's clues, the job's function, the options, the limits).

    Keying tasks by puzzle, not at random, makes a puzzle one task on the scheduler: a task that
    dask reruns after losing its worker keeps its key (its result comes back once), a second
    submission of the same puzzle while the first is in flight is the same task, and the
    scheduler's task stream names the puzzle of every completed task.

    Examples
    --------
    >>> from nonosat.batch.jobs import JOBS, JobOptions
    >>> from nonosat.puzzle import Puzzle
    >>> t = Task("a.non", Puzzle(((1,),), ((1,),)), JOBS["check"], JobOptions())
    >>> task_key(t).startswith("nonosat-check-a.non-")
    True
    >>> task_key(t) == task_key(Task("a.non", t.puzzle, JOBS["solve"], JobOptions()))
    False
    """
    import hashlib
    import pickle

    content = (task.puzzle, task.job, task.options, task.deadline_s, task.memory_mb)
    digest = hashlib.sha256(pickle.dumps(content, protocol=4)).hexdigest()[:16]
    return f"nonosat-{task.job.name}-{task.id}-{digest}"


def run_batch(
    puzzles: Iterable[tuple[str, Puzzle]],
    config: BatchConfig,
    *,
    results: ResultsFile | None = None,
    executor: cf.Executor | None = None,
    scheduler: str | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Run ``config.job`` on every puzzle and return the new records, in completion order.

    Parameters
    ----------
    puzzles : iterable of (str, Puzzle)
        The puzzles to run, with their ids (see :func:`pending` to leave out those already done).
    config : BatchConfig
    results : ResultsFile, optional
        Each record is appended (and flushed) as soon as it arrives.
    executor : concurrent.futures.Executor, optional
        Where to run the tasks (e.g. ``distributed.Client(...).get_executor()``); it is not shut
        down.  Default: a local pool of ``config.jobs`` workers, or the dask cluster at
        ``scheduler``.
    scheduler : str, optional
        Address of a dask scheduler (``tcp://host:8786``).
    on_record : callable(dict), optional
        Called with each record after it is written (progress display).

    Returns
    -------
    list of dict
        The records of this run (see :func:`nonosat.batch.sandbox.run_task`).

    Raises
    ------
    NonosatError
        Unknown job or engine, a job whose module is missing, an unreachable scheduler, or a lost
        connection to it (records already written stay); an existing certificate directory
        without ``config.force`` (checked before anything runs).
    KeyboardInterrupt
        Propagated after the workers are stopped; records already written stay.  After an
        interrupt (:mod:`nonosat.interrupts`) no further record is written.
    """
    job = resolve_job(config.job)
    engine = config.engine or job.default_engine
    uses_engines = job.default_engine != "" and job.name in JOBS
    names = check_engines(engine) if uses_engines else [engine]
    options = JobOptions(
        engine=engine, timeout=config.timeout, want_certificate=config.cert_dir is not None
    )
    deadline = config.deadline_s((len(names) if job.engines_in_turn else 1) * job.time_factor)
    if config.cert_dir is not None:
        puzzles = list(puzzles)
        check_certificate_dirs(config.cert_dir, (i for i, _ in puzzles), config.force)
    tasks = (
        Task(puzzle_id, puzzle, job, options, deadline, config.memory_mb)
        for puzzle_id, puzzle in puzzles
    )

    written: set[str] = set()

    def finish(record: dict[str, Any]) -> bool:
        # after an interrupt no record is kept: a puzzle whose worker was stopped by it is no
        # "crashed" or "timeout" verdict (Interrupted; the records before it stay)
        interrupts.check()
        if record["id"] in written:  # one record per puzzle and run, whatever the executor does
            return False
        written.add(record["id"])
        if config.cert_dir is not None:
            _write_certificate(record, config.cert_dir, config.force)
        if results is not None:
            results.append(record)
        if on_record is not None:
            on_record(record)
        return True

    if executor is not None:
        return _drive(executor, tasks, 64, finish)
    if scheduler is not None:
        with dask_executor(scheduler) as (dask, threads):
            return _drive(dask, tasks, max(2 * threads, DASK_WINDOW), finish, keyed=True)
    workers = config.jobs or default_jobs()
    pool = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nonosat-batch")
    try:
        return _drive(pool, tasks, 2 * workers, finish)
    except BaseException:
        kill_sandboxes()  # interrupt the puzzles still running
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        close_sandboxes()


def _drive(
    executor: cf.Executor,
    tasks: Iterator[Task],
    window: int,
    finish: Callable[[dict[str, Any]], bool],
    keyed: bool = False,
) -> list[dict[str, Any]]:
    """Keep ``window`` tasks in flight; ``keyed``: submit each under its :func:`task_key` (a
    dask executor's ``submit`` takes ``key=``)."""
    records: list[dict[str, Any]] = []
    in_flight: dict[cf.Future[dict[str, Any]], Task] = {}
    exhausted = False
    try:
        while True:
            while not exhausted and len(in_flight) < window:
                task = next(tasks, None)
                if task is None:
                    exhausted = True
                elif keyed:  # ClientExecutor.submit passes key= on to Client.submit
                    submit: Callable[..., cf.Future[dict[str, Any]]] = executor.submit
                    in_flight[submit(run_task, task, key=task_key(task))] = task
                else:
                    in_flight[executor.submit(run_task, task)] = task
            if not in_flight:
                return records
            done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for future in done:
                task = in_flight.pop(future)
                record = _record_of(future, task)
                if finish(record):
                    records.append(record)
    finally:
        for future in in_flight:
            future.cancel()


def _record_of(future: cf.Future[dict[str, Any]], task: Task) -> dict[str, Any]:
    """The task's record, or a ``crashed`` record when the executor lost its worker."""
    try:
        return future.result()
    except Exception as exc:
        name = type(exc).__name__
        if name != "KilledWorker":  # anything else: the executor itself is broken
            raise NonosatError(f"the batch executor failed on {task.id}: {name}: {exc}") from exc
        return {
            "id": task.id,
            "job": task.job.name,
            "puzzle": task.id,
            "width": task.puzzle.width,
            "height": task.puzzle.height,
            "status": "crashed",
            "wall_s": 0.0,
            "worker": None,
            "error": f"the dask worker died on this puzzle several times: {exc}",
        }


#: Longest certificate directory name kept whole (file systems allow 255 bytes).
_MAX_NAME = 200


def certificate_name(puzzle_id: str) -> str:
    """The certificate directory name of ``puzzle_id``: unique and reversible.

    The id is percent-encoded (:func:`urllib.parse.quote` with no safe characters: ``/``, space,
    ``#`` and ``%`` itself are escaped, so ``a b.nin`` and ``a_b.nin`` stay apart) and a leading
    ``.`` is escaped (no hidden, ``.`` or ``..`` names); :func:`puzzle_id_of` turns the name back
    into the id (``sets/taai2011.txt#12`` -> ``sets%2Ftaai2011.txt%2312``).  A name longer than
    200 characters keeps its first 180 and ends in ``~`` and 16 hex digits of the id's SHA-256,
    still unique (the results record names the directory).
    """
    from urllib.parse import quote

    name = quote(puzzle_id, safe="")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > _MAX_NAME:
        import hashlib

        digest = hashlib.sha256(puzzle_id.encode("utf-8", "surrogateescape")).hexdigest()
        name = f"{name[:180]}~{digest[:16]}"
    return name or "%00"


def puzzle_id_of(name: str) -> str:
    """The puzzle id whose :func:`certificate_name` is ``name`` (names of shortened ids have no
    inverse and are returned decoded as far as they go)."""
    from urllib.parse import unquote

    return unquote(name)


def certificate_dir(cert_dir: Path, puzzle_id: str) -> Path:
    """The directory of ``puzzle_id``'s certificate under ``cert_dir`` (:func:`certificate_name`)."""
    return cert_dir / certificate_name(puzzle_id)


def check_certificate_dirs(cert_dir: Path, puzzle_ids: Iterable[str], force: bool) -> None:
    """Refuse, before anything runs, to write into existing certificate directories.

    Raises
    ------
    NonosatError
        A puzzle's directory exists and not ``force``; the message names it and how many.
    """
    if force:
        return
    existing = [certificate_dir(cert_dir, i) for i in puzzle_ids]
    existing = [d for d in existing if d.exists() or d.is_symlink()]
    if existing:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise NonosatError(
            f"{existing[0]}{more}: certificate directory already exists; use --force to replace "
            "the certificates (nothing was run)"
        )


def _write_certificate(record: dict[str, Any], cert_dir: Path, force: bool = False) -> None:
    """Move a certificate's files out of ``record`` into :func:`certificate_dir`, claimed
    atomically: the files go to a fresh hidden directory of ``cert_dir`` (``mkdtemp``, created
    exclusively), which is then renamed to the certificate's name.  The rename fails when that
    name exists and is not an empty directory, so two batches sharing ``--cert-dir`` never write
    into one certificate directory, and a directory holds one certificate, whole, or nothing.
    With ``force`` an existing directory is replaced (moved aside, then removed).

    Raises
    ------
    NonosatError
        The directory exists (made by another run since the check before the batch started)
        and not ``force``, or it cannot be written.
    """
    import shutil
    import tempfile

    files = record.pop("certificate_files", None)
    if not files:
        return
    out = certificate_dir(cert_dir, record["id"])
    claim = None
    try:
        cert_dir.mkdir(parents=True, exist_ok=True)
        claim = Path(tempfile.mkdtemp(prefix=".claim-", dir=cert_dir))
        for name, data in files.items():
            atomic_write(claim / name, data)
        _publish(claim, out, force)
        claim = None
    except FileExistsError:
        raise NonosatError(
            f"{out}: certificate directory already exists (another run wrote it meanwhile?); "
            "use --force to replace the certificates"
        ) from None
    except OSError as exc:
        raise NonosatError(
            f"cannot write the certificate in {out}: {exc.strerror or exc}"
        ) from None
    finally:
        if claim is not None:
            shutil.rmtree(claim, ignore_errors=True)
    record["certificate"] = str(out)


def _publish(claim: Path, out: Path, force: bool) -> None:
    """Rename the directory ``claim`` to ``out`` (:func:`nonosat.safe_io.publish_directory`)."""
    from nonosat.safe_io import publish_directory

    publish_directory(claim, out, force)
