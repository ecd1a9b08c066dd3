"""Difficulty grades over corpus sets: does the grade separate easy, tournament and hard puzzles?

For each set every puzzle is analysed (:func:`nonosat.analysis.difficulty.analyse`, limit 2,
without backbone and givens) and the script prints the distribution of grades 1-5, of the
techniques needed, the median / maximum guesses, the analysis time per puzzle, and for the survey
set (and with ``--verbose`` for every set) one line per puzzle.

Sets (``--set``, repeatable; default all three):

* ``easy``: the picture puzzles of davidje13's ``Nonogram/games`` (JSON and CSV, the ``-partial``
  files with unknown clues excluded) and Jakub Wilk's ``jwilk-nonogram/data``;
* ``tournament``: the first ``--tournament N`` (default 100) puzzles of TAAI 2011
  (``NonogramRecord/question/taai2011.txt``, random 25x25);
* ``survey``: Wolter's survey puzzles (``FastNonogramSolver/puzzles/survey/*.nin``, Knotty and
  Faase included: the fork search gives up after ``--timeout`` seconds).

Usage::

    .venv/bin/python benchmarks/bench_difficulty.py [--set easy] [--tournament 100] [--timeout 10]
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Iterator

from preamble import CORPUS, argument_parser  # first: puts REPO on sys.path

from nonosat.analysis.difficulty import GRADE_NAMES, analyse
from nonosat.formats import iter_puzzles
from nonosat.puzzle import Puzzle


def easy() -> Iterator[tuple[str, Puzzle]]:
    games = sorted((CORPUS / "Nonogram" / "games").glob("*"))
    for path in games:
        if "partial" not in path.name and path.suffix in (".json", ".csv"):
            yield from iter_puzzles(path)
    for path in sorted((CORPUS / "jwilk-nonogram" / "data").glob("*.nin")):
        yield from iter_puzzles(path)


def tournament(count: int) -> Iterator[tuple[str, Puzzle]]:
    for k, item in enumerate(iter_puzzles(CORPUS / "NonogramRecord" / "question" / "taai2011.txt")):
        if k >= count:
            break
        yield item


def survey() -> Iterator[tuple[str, Puzzle]]:
    for path in sorted((CORPUS / "FastNonogramSolver" / "puzzles" / "survey").glob("*.nin")):
        yield from iter_puzzles(path)


def run_set(name: str, items: Iterator[tuple[str, Puzzle]], timeout: float, verbose: bool) -> None:
    grades: Counter[int] = Counter()
    needed: Counter[str] = Counter()
    guesses: list[int] = []
    times: list[float] = []
    for ident, puzzle in items:
        start = time.perf_counter()
        result = analyse(puzzle, timeout=timeout, structure=False)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        grades[result.grade.grade] += 1
        needed[result.techniques_needed] += 1
        if result.fork is not None:
            guesses.append(result.fork.guesses)
        if verbose:
            short = ident.replace(str(CORPUS) + "/", "")
            print(f"  {short:60s} {puzzle.width:3d}x{puzzle.height:<3d} {result.status.value:8s} "
                  f"grade {result.grade.grade} ({result.grade.score:.3f}) "
                  f"{result.grade.reason}  [{elapsed:.2f} s]", flush=True)
    n = sum(grades.values())
    print(f"{name}: {n} puzzles")
    print("  grade      " + "  ".join(f"{g} {GRADE_NAMES[g]:>9s}" for g in range(1, 6)))
    print("  count      " + "  ".join(f"{grades[g]:11d}" for g in range(1, 6)))
    print("  percent    " + "  ".join(f"{100 * grades[g] / n:10.1f}%" for g in range(1, 6)))
    print("  techniques needed: " + ", ".join(
        f"{k} {needed[k]}" for k in ("line", "implications", "probing", "fork")))
    if guesses:
        print(f"  guesses (puzzles needing a fork): median {statistics.median(guesses):.0f}, "
              f"max {max(guesses)}")
    print(f"  analysis time per puzzle: median {statistics.median(times):.3f} s, "
          f"max {max(times):.2f} s, total {sum(times):.1f} s", flush=True)


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--set", action="append", choices=("easy", "tournament", "survey"))
    parser.add_argument("--tournament", type=int, default=100, metavar="N")
    parser.add_argument("--timeout", type=float, default=10.0, help="fork search seconds")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    sets = args.set or ["easy", "tournament", "survey"]
    for name in sets:
        items = {"easy": easy, "survey": survey}.get(name)
        source = items() if items else tournament(args.tournament)
        run_set(name, source, args.timeout, args.verbose or name == "survey")


if __name__ == "__main__":
    main()
