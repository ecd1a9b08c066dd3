"""Batch runs: one job (solve, check, certify, cross-check, analyse) over whole corpora.

The pieces, in the order a batch uses them:

* :mod:`nonosat.batch.collect` — files and directories to ``(id, puzzle)`` pairs;
* :mod:`nonosat.batch.results` — the resumable JSON Lines results file and the summary;
* :mod:`nonosat.batch.jobs` — the per-puzzle jobs, by name;
* :mod:`nonosat.batch.sandbox` — worker processes that are killed from outside on overrun;
* :mod:`nonosat.batch.run` — the executor loop (local pool or dask.distributed).

Nothing here prints; :mod:`nonosat.cli.batch` is the command.

Examples
--------
>>> from nonosat.batch import BatchConfig, collect_puzzles, run_batch  # doctest: +SKIP
>>> inputs = collect_puzzles(["taai2011.txt"])                         # doctest: +SKIP
>>> with ResultsFile("r.jsonl") as results:                            # doctest: +SKIP
...     config = BatchConfig(job="check", timeout=10)
...     run_batch(pending(inputs.puzzles, results, config), config, results=results)
"""

from __future__ import annotations

from nonosat.batch.collect import Inputs, collect_puzzles
from nonosat.batch.jobs import JOBS, Job, JobOptions, resolve_job
from nonosat.batch.results import ResultsFile, Summary, read_records, summarise
from nonosat.batch.run import BatchConfig, default_jobs, pending, run_batch

__all__ = [
    "JOBS",
    "BatchConfig",
    "Inputs",
    "Job",
    "JobOptions",
    "ResultsFile",
    "Summary",
    "collect_puzzles",
    "default_jobs",
    "pending",
    "read_records",
    "resolve_job",
    "run_batch",
    "summarise",
]
