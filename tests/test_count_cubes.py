"""The native counter on several cores (``nonosat.native.count_cubes``, issue 26): its cubes
partition the solutions (checked picture by picture against brute force), the sum over the
cubes equals brute force, Ganak and the one-thread count, the cap and a stop behave as one
counter's, and no worker thread outlives a count."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonosat.engines.counting import count_solutions, root_fixpoint
from nonosat.formats import read_puzzle
from nonosat.native.count import Counter, count_grid
from nonosat.native.count_cubes import CubeCount, count_parallel, make_cubes
from nonosat.puzzle import Cell, Puzzle
from nonosat.stop import StopToken
from tests.test_count import GAMES, _pictures, brute_force_solutions

TAAI = ("NonogramRecord", "question", "taai2011.txt")


@st.composite
def puzzles_4x4(draw):
    """4x4 clues of a random picture, up to three lines' clues hidden (up to thousands of
    solutions)."""
    bits = draw(st.lists(st.booleans(), min_size=16, max_size=16))
    puzzle = Puzzle.from_picture(np.array(bits, dtype=bool).reshape(4, 4))
    hide = draw(st.lists(st.integers(0, 7), max_size=3, unique=True))
    rows = [None if i in hide else c for i, c in enumerate(puzzle.rows)]
    cols = [None if 4 + j in hide else c for j, c in enumerate(puzzle.cols)]
    return Puzzle(rows, cols)


def _worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("count-worker")]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(puzzles_4x4(), st.integers(1, 12))
def test_cubes_partition_the_solutions(puzzle, target):
    """Every solution (brute force over all 2^16 pictures) agrees with exactly one cube, and
    the sum of the cubes' counts, on two workers, is the brute-force count."""
    cubes = make_cubes(puzzle, None, target)
    assert cubes is not None
    pics, lines = _pictures(4, 4)
    want = 0
    for pic, ln in zip(pics, lines, strict=True):
        if not all(c is None or c == got for c, got in zip(puzzle.lines, ln, strict=True)):
            continue
        want += 1
        filled = np.where(pic, int(Cell.FILLED), int(Cell.EMPTY))
        agree = [bool(np.all((cube == filled) | (cube == int(Cell.UNKNOWN)))) for cube in cubes]
        assert sum(agree) == 1
    assert want == brute_force_solutions(puzzle)
    got = count_parallel(puzzle, workers=2, cubes=target)
    assert got.finished and got.exact and got.count == want
    assert not _worker_threads()


def test_cubes_sum_equals_ganak_on_the_games():
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    ganak = count_solutions(puzzle, timeout=60, counter="ganak")
    assert ganak.exact and ganak.count == 48
    for workers, cubes in ((2, 5), (3, 16)):
        got = count_parallel(puzzle, workers=workers, cubes=cubes)
        assert (got.count, got.exact) == (48, True)
    native = count_solutions(puzzle, timeout=60, counter="native", workers=2)
    assert (native.count, native.exact) == (48, True)


def test_a_counter_keeps_its_cache_across_partial_grids():
    """One :class:`Counter` counting several cubes gives each cube's own count (a fresh
    counter's), and finds components of the earlier cubes in its cache."""
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    cubes = make_cubes(puzzle, None, 8)
    assert cubes is not None and len(cubes) >= 4
    counter = Counter(puzzle)
    hits = 0
    for cube in cubes + cubes:
        got = counter.count(cube)
        assert got.count == count_grid(puzzle, cube).count
        hits += got.stats["cache_hits"]
    assert hits > 0


@pytest.mark.corpus
@pytest.mark.parametrize("index, budget", [(0, 1000), (400, 1000), (400, 1)])
def test_cubes_sum_equals_one_thread_on_the_corpus(corpus, index, budget, monkeypatch):
    """taai2011 #0 (72 solutions) and #400 (3,803); with a budget of 1 decision every cube is
    split again, three levels deep (the cubes of a budget that ran out are replaced by their
    own cubes, and the sum is unchanged)."""
    import nonosat.native.count_cubes as count_cubes

    monkeypatch.setattr(count_cubes, "SUBSPLIT_NODES", budget)
    puzzle = read_puzzle(corpus.joinpath(*TAAI), None, index + 1)
    partial = root_fixpoint(puzzle)
    one = count_grid(puzzle, partial)
    assert one.exact
    got = count_parallel(puzzle, partial, workers=2, cubes=24)
    assert got.exact and got.count == one.count
    assert got.stats["cubes"] >= (2 if budget > 1 else 100)
    # the cap holds for the sum: the same lower bound as one counter's
    limit = one.count // 3
    capped_one = count_grid(puzzle, partial, limit=limit)
    capped = count_parallel(puzzle, partial, workers=2, cubes=24, limit=limit)
    assert (capped.count, capped.exact, capped.finished) == (limit + 1, False, True)
    assert (capped_one.count, capped_one.exact) == (capped.count, capped.exact)
    assert not _worker_threads()


@pytest.mark.corpus
def test_a_stop_ends_every_worker_with_no_count(corpus):
    """taai2011 #450 (646,519 solutions) stopped after 0.3 s: no count, a lower bound below
    the true count, and no worker thread left once the call returns."""
    puzzle = read_puzzle(corpus.joinpath(*TAAI), None, 451)
    partial = root_fixpoint(puzzle)
    token = StopToken()
    token.arm(0.3)
    started = time.perf_counter()
    got = count_parallel(puzzle, partial, workers=3, cubes=24, stop=token)
    assert time.perf_counter() - started < 3
    assert got.count is None and not got.finished and not got.exact
    assert got.reason == "stopped" and 0 <= got.lower_bound <= 646_519
    assert not _worker_threads()
    # and a token set before the count starts counts nothing
    token = StopToken()
    token.set()
    got = count_parallel(puzzle, partial, workers=2, cubes=8, stop=token)
    assert got.count is None and not got.finished
    assert not _worker_threads()


def test_a_helper_thread_counts_cubes_too():
    """A thread that joins with :meth:`CubeCount.help` counts cubes (the portfolio's lane);
    the total is unchanged, and ``help`` after the count returns at once."""
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    cubes = CubeCount(puzzle, cubes=16, helpers=1)
    helper = threading.Thread(target=cubes.help)
    helper.start()
    got = cubes.run(1)
    helper.join(timeout=30)
    assert not helper.is_alive()
    assert (got.count, got.exact) == (48, True)
    cubes.help()  # returns at once: the count is over


def test_workers_must_be_positive():
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    with pytest.raises(ValueError):
        count_parallel(puzzle, workers=0)
    with pytest.raises(ValueError):
        count_solutions(puzzle, workers=0)


def test_the_portfolio_counts_on_the_workers_with_the_lane(monkeypatch):
    """The portfolio with its native workers (no warm-up, so that the count is split) and an
    enumeration lane that hands over after one solution (so that it joins the workers when
    they have not finished by then): the count is still exact (48, brute force and Ganak
    above); with ``crosscheck`` every counter runs and agrees."""
    import nonosat.engines.counting as counting
    import nonosat.native.count_cubes as count_cubes

    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    monkeypatch.setattr(counting, "WARMUP_NODES", 0)
    monkeypatch.setattr(counting, "ENUM_HANDOVER", 1)
    monkeypatch.setattr(counting, "ENUM_DELAY", 0.0)
    joined: list[int] = []
    real_help = count_cubes.CubeCount.help

    def help_(self, stop=None):
        joined.append(1)
        real_help(self, stop)

    monkeypatch.setattr(count_cubes.CubeCount, "help", help_)
    got = count_solutions(puzzle, timeout=60, workers=2)
    assert (got.count, got.exact) == (48, True)
    both = count_solutions(puzzle, timeout=60, workers=2, crosscheck=True)
    assert (both.count, both.exact) == (48, True)
    assert not _worker_threads()
