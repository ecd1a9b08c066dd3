"""Benchmark nonosat verify on the tournament sets; prints figures.

1. Every published solution (NonogramRecord/solution/*.txt, 3 x 1000 pictures) checked against
   its puzzle's clues: valid count and time per solution.
2. A whole results file through the batch form: taai2011, 1000 rows of status ``solved`` with the
   published pictures (worker round trips plus solution checks; no search needed).
3. A solver that says ``unique`` for every puzzle of a tcga2023 slice (most have several
   solutions): rows refuted with two solutions / confirmed with certificates, time per row.

Usage::

    .venv/bin/python benchmarks/bench_verify.py [--rows 100] [--jobs 2]
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from preamble import CORPUS, argument_parser  # first: puts REPO on sys.path

from nonosat.batch import collect_puzzles  # noqa: E402
from nonosat.formats import read_puzzles  # noqa: E402
from nonosat.formats.tournament import read_solutions  # noqa: E402
from nonosat.judge import (  # noqa: E402
    PuzzleIndex,
    check_solution,
    read_results,
    summarise_verdicts,
    verify_results,
)
from nonosat.puzzle import grid_rows  # noqa: E402

RECORD = CORPUS / "NonogramRecord"


def published_solutions() -> None:
    print("published solutions against their puzzles")
    for solution_file in sorted((RECORD / "solution").glob("*.txt")):
        puzzles = read_puzzles(RECORD / "question" / solution_file.name)
        pictures = read_solutions(solution_file)
        start = time.perf_counter()
        valid = sum(check_solution(p, pictures[p.number]).valid for p in puzzles)
        elapsed = time.perf_counter() - start
        print(f"  {solution_file.name}: {valid}/{len(puzzles)} valid, "
              f"{1000 * elapsed / len(puzzles):.2f} ms per solution")


def run(rows_file: Path, puzzle_file: Path, jobs: int, out: Path, timeout: float) -> None:
    rows = read_results(rows_file)
    index = PuzzleIndex(collect_puzzles([puzzle_file]).puzzles)
    start = time.perf_counter()
    records = verify_results(rows, index, timeout=timeout, jobs=jobs, out_dir=out)
    elapsed = time.perf_counter() - start
    summary = summarise_verdicts(records)
    times = sorted(float(r.get("time_s") or 0.0) for r in records)
    kinds = Counter(r.get("witness") for r in records if r["status"] == "refuted")
    print(f"  {len(rows)} rows in {elapsed:.1f} s wall ({len(rows) / elapsed:.1f} rows/s, "
          f"{jobs} workers); judging time per row median {times[len(times) // 2]:.3f} s, "
          f"max {times[-1]:.3f} s")
    print(f"  outcomes per claim: {json.dumps(summary.table)}")
    if kinds:
        print(f"  refuting evidence: {dict(kinds)}")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--rows", type=int, default=100, help="tcga2023 rows (default 100)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    published_solutions()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        print("taai2011: 1000 rows 'solved' with the published pictures")
        pictures = read_solutions(RECORD / "solution" / "taai2011.txt")
        results = tmp_path / "taai.jsonl"
        results.write_text("".join(
            json.dumps({"id": str(n), "status": "solved", "solution": grid_rows(pic)}) + "\n"
            for n, pic in sorted(pictures.items())))
        run(results, RECORD / "question" / "taai2011.txt", args.jobs, tmp_path / "w1",
            args.timeout)
        print(f"tcga2023: first {args.rows} rows claiming 'unique'")
        results = tmp_path / "tcga.tsv"
        results.write_text("id\tstatus\n" + "".join(
            f"tcga2023.txt#{n}\tunique\n" for n in range(1, args.rows + 1)))
        run(results, RECORD / "question" / "tcga2023.txt", args.jobs, tmp_path / "w2",
            args.timeout)


if __name__ == "__main__":
    main()
