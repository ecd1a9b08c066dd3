"""Compile (or load) the numba kernels once before pytest-xdist starts its workers.

In a fresh checkout numba's on-disk cache is empty, and every process that calls a kernel
before some process has cached it compiles it again: both xdist workers at once, and each CLI
subprocess a test starts meanwhile.  ``tests/conftest.py`` runs this module's two halves in
two processes side by side from the xdist controller (``python -m tests.warm_kernels native``
and ``... sat``) before the workers start, so each kernel is compiled about once; with a warm
cache each half only loads its kernels (about a second).  Nothing here asserts anything: a
failure only means the tests compile what they need themselves.
"""

from __future__ import annotations

import sys
from pathlib import Path

GAMES = Path(__file__).resolve().parents[1] / "games"


def native() -> None:
    """The native solver (black-and-white and colour) and the analysis kernels."""
    from nonosat.analysis.difficulty import analyse
    from nonosat.engines import load_engine
    from nonosat.formats import read_puzzle
    from nonosat.native.count import count_grid
    from nonosat.puzzle import Puzzle

    load_engine("native", colour=True)
    load_engine("auto", colour=True)
    count_grid(Puzzle([(1,), (1,)], [(1,), (1,)]))  # the exact counter's kernel
    # a puzzle that branches and probes below the root (48 solutions) compiles the rest of it
    count_grid(read_puzzle(GAMES / "cross-ambiguous.non"))
    from nonosat.native.count_cubes import make_cubes

    make_cubes(read_puzzle(GAMES / "cross-ambiguous.non"), None, 4)  # the workers' split
    # the auto engine's hand-off probes the root for implications (collect_implications): its
    # 2x2 in load_engine is decided before that, so a first hand-off in a test compiled it
    # inside the test's time limit (5 s of CPU; test_native_stop failed so under load)
    from nonosat.native.search import NativeSearch

    diagonal = Puzzle([(1,), (1,)], [(1,), (1,)])
    NativeSearch(diagonal, limit=2).root_implication_literals()
    for name in ("heart.non", "mug.xml"):
        analyse(read_puzzle(GAMES / name))


def sat() -> None:
    """The SAT engine's encoders and phases, and the proof writer and checkers."""
    from nonosat.certificates.certifier import certify_puzzle
    from nonosat.certificates.lrat_check import check_lrat, lemmas_agree
    from nonosat.engines import load_engine
    from nonosat.formats import read_puzzle

    load_engine("sat", colour=True)
    load_engine("sat")  # black-and-white, with the belief-propagation phases (_bp ...)
    check_lrat([[1], [-1]], b"3 0 1 2 0\n", nvars=1)
    lemmas_agree(b"0\n", b"3 0 1 2 0\n")
    certify_puzzle(read_puzzle(GAMES / "heart.non"))


if __name__ == "__main__":
    {"native": native, "sat": sat}[sys.argv[1]]()
