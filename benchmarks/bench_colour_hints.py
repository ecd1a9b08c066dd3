"""Colour hints against CP-SAT: every deduction of the one hint finder is forced.

Random three-colour pictures (white, red, black; ``--seeds`` of them, ``--min``-``--max`` cells a
side, 50 % white) are replayed hint by hint from the empty grid with
:class:`nonosat.analysis.hints.HintFinder` (:func:`nonosat.analysis.hints.apply_hint` after each)
until solved or stuck.  For every hint that is not a line solve (implications, probing), each
cell it narrows is checked independently: OR-Tools CP-SAT, given the state before the hint with
that cell restricted to the colours the hint removed, must find no solution.  A puzzle the hints
solve must end at a valid solution.  No hint may name a cell "R3C5".

Prints the hints per technique, how the replays ended, the cells checked and the failures.

Usage::

    python benchmarks/bench_colour_hints.py [--seeds 120] [--min 10] [--max 14]
"""

from __future__ import annotations

import argparse
import re
import time

import numpy as np

from nonosat.analysis.hints import HintFinder, apply_hint
from nonosat.engines import Status, solve
from nonosat.palette import Colour, Palette
from nonosat.puzzle import Puzzle

PALETTE = Palette((Colour("white", (255, 255, 255), "."), Colour("red", (255, 0, 0), "r"),
                   Colour("black", (0, 0, 0), "k")))
RC = re.compile(r"\bR\d+C\d+\b")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=120)
    parser.add_argument("--min", type=int, default=10)
    parser.add_argument("--max", type=int, default=14)
    args = parser.parse_args()
    techniques: dict[str, int] = {}
    ends: dict[str, int] = {}
    checked = failures = named = 0
    start = time.perf_counter()
    for seed in range(args.seeds):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(args.min, args.max + 1))
        picture = rng.choice(3, size=(n, n), p=[0.5, 0.25, 0.25]).astype(np.int8)
        puzzle = Puzzle.from_picture(picture, palette=PALETTE)
        finder = HintFinder(puzzle)
        state = finder.logic.start()
        while True:
            hint = finder.next(state)
            if hint.kind != "deduction":
                break
            named += bool(RC.search(hint.text))
            assert hint.technique is not None
            techniques[hint.technique] = techniques.get(hint.technique, 0) + 1
            if hint.technique != "line":
                for cell, mask in hint.masks:
                    trial = np.array(state, dtype=np.int32)
                    trial[cell] = int(state[cell]) & ~mask
                    checked += 1
                    if solve(puzzle, "cpsat", partial=trial, limit=1).status != Status.NONE:
                        failures += 1
                        print(f"seed {seed}: not forced: {hint.text}")
            state = apply_hint(state, hint)
        ends[hint.kind] = ends.get(hint.kind, 0) + 1
        if hint.kind == "solved":
            solution = np.log2(state).astype(np.int8)  # one colour bit left per cell
            if not puzzle.is_solution(solution):
                failures += 1
                print(f"seed {seed}: the hints end at a grid that is no solution")
    print(f"{args.seeds} random {args.min}-{args.max} a side three-colour puzzles, "
          f"{time.perf_counter() - start:.0f} s")
    print("hints per technique:", dict(sorted(techniques.items())))
    print("replays ended:", dict(sorted(ends.items())))
    print(f"cells of implication/probing hints checked with CP-SAT: {checked}; "
          f"not forced: {failures}; hints naming a cell R<r>C<c>: {named}")


if __name__ == "__main__":
    main()
