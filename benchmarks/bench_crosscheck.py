"""Cross-check the independent engines over corpus sets and print their times side by side.

For each set, every puzzle is cross-checked (:func:`nonosat.engines.compare.crosscheck`, limit 2) and
the script prints, per engine, the total and the per-puzzle median / 99th percentile / maximum
wall time, then the number of disagreements (must be zero), of other findings and of puzzles
where an engine gave up, and every finding.

Sets (``--set``, repeatable; default taai2011 and survey):

* ``taai2011``: the 1000 puzzles of ``NonogramRecord/question/taai2011.txt``, with the
  generator's pictures of ``solution/taai2011.txt`` as goals (a valid goal is one more witness
  against a wrong ``unique``/``none`` verdict).
* ``survey``: Wolter's survey puzzles (``FastNonogramSolver/puzzles/survey/webpbn-*.nin``; Knotty
  and Faase are left out, they are for the performance work).
* ``everyday``: every other black-and-white puzzle file of the corpus a registered format reads
  (jwilk, picross-solver, davidje13, number-loom); files no format reads (colour, triddlers,
  formats not registered) are counted and skipped.

Usage::

    .venv/bin/python benchmarks/bench_crosscheck.py [--set taai2011] [--timeout 60] [--max N]

An engine that reaches the time limit counts as *gave up*, not as a disagreement.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from preamble import CORPUS, argument_parser  # first: puts REPO on sys.path

from nonosat.engines import INDEPENDENT_ENGINES, Status
from nonosat.engines.compare import DISAGREEMENT, CrossCheck, crosscheck
from nonosat.errors import NonosatError
from nonosat.formats import iter_puzzles
from nonosat.formats.tournament import read_solutions, with_goals
from nonosat.puzzle import Puzzle

SKIPPED_SURVEY = ("knotty", "faase")


def taai2011() -> Iterator[tuple[str, Puzzle]]:
    path = CORPUS / "NonogramRecord" / "question" / "taai2011.txt"
    goals = read_solutions(CORPUS / "NonogramRecord" / "solution" / "taai2011.txt")
    ids, puzzles = zip(*iter_puzzles(path), strict=True)
    yield from zip(ids, with_goals(list(puzzles), goals), strict=True)


def survey() -> Iterator[tuple[str, Puzzle]]:
    for path in sorted((CORPUS / "FastNonogramSolver" / "puzzles" / "survey").glob("webpbn-*.nin")):
        yield from iter_puzzles(path)


def everyday() -> Iterator[tuple[str, Puzzle]]:
    skipped = 0
    for path in sorted(CORPUS.rglob("*")):
        rel = path.relative_to(CORPUS)
        if (
            not path.is_file()
            or rel.parts[0] == "NonogramRecord"
            or rel.parts[:2] == ("FastNonogramSolver", "puzzles")
            or any(name in path.name for name in SKIPPED_SURVEY)
            or path.suffix.lower() in (".md", ".py", ".sh")
            or path.name.upper().startswith(("LICENSE", "README", "SOURCES"))
        ):
            continue
        try:
            puzzles = list(iter_puzzles(path))
        except NonosatError:
            skipped += 1
            continue
        yield from puzzles
    print(f"everyday: {skipped} corpus files skipped (no registered format reads them)")


SETS = {"taai2011": taai2011, "survey": survey, "everyday": everyday}


def run_set(name: str, engines: list[str], timeout: float | None, limit: int | None) -> int:
    """Cross-check one set, print its figures; return the number of failed puzzles."""
    reports: list[CrossCheck] = []
    start = time.perf_counter()
    for k, (puzzle_id, puzzle) in enumerate(SETS[name]()):
        if limit is not None and k >= limit:
            break
        reports.append(crosscheck(puzzle, engines, timeout=timeout, puzzle_id=puzzle_id))
        if len(reports) % 100 == 0:
            print(f"  {name}: {len(reports)} puzzles checked", file=sys.stderr, flush=True)
    wall = time.perf_counter() - start
    print(f"\n== {name}: {len(reports)} puzzles, {wall:.1f} s wall")
    print(f"{'engine':<8} {'total s':>9} {'median s':>9} {'p99 s':>9} {'max s':>9}  slowest")
    for engine in engines:
        times = np.array([r.runs[engines.index(engine)].time_s for r in reports])
        slowest = reports[int(times.argmax())].puzzle_id if len(times) else "-"
        print(
            f"{engine:<8} {times.sum():9.3f} {np.median(times):9.4f} "
            f"{np.percentile(times, 99):9.4f} {times.max():9.4f}  {Path(slowest).name}"
        )
    verdicts: dict[str, int] = {}
    for r in reports:
        verdicts[r.status] = verdicts.get(r.status, 0) + 1
    disagreements = sum(r.status == DISAGREEMENT for r in reports)
    other = sum(r.failed and r.status != DISAGREEMENT for r in reports)
    gave_up = sum(r.gave_up for r in reports)
    print(f"verdicts: {dict(sorted(verdicts.items()))}")
    print(f"disagreements: {disagreements}   other findings: {other}   engine gave up: {gave_up}")
    for r in reports:
        for finding in r.findings:
            print(f"  {r.puzzle_id}: {finding.kind}: {finding.message}")
        if r.gave_up:
            quitters = ", ".join(run.engine for run in r.runs if run.status == Status.UNKNOWN)
            print(f"  {r.puzzle_id}: gave up: {quitters} (status {r.status})")
    return disagreements + other


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser(__doc__)
    parser.add_argument("--set", action="append", choices=sorted(SETS), dest="sets")
    parser.add_argument("--engines", default=",".join(INDEPENDENT_ENGINES))
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds per engine run (default 60; 0 = none)"
    )
    parser.add_argument("--max", type=int, default=None, help="first N puzzles of each set only")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    failed = 0
    for name in args.sets or ["taai2011", "survey"]:
        failed += run_set(name, engines, args.timeout or None, args.max)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
