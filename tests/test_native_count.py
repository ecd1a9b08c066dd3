"""The native line-level counter (``nonosat.native.count``, issue 26) against independent
engines: brute-force enumeration of every picture of small grids, CP-SAT's enumeration, and Ganak
(the CNF's projected model count).  Expected counts never come from the counter under test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonosat.engines import Status, solve
from nonosat.engines.counting import (
    NATIVE_COUNTER,
    CountDisagreement,
    count_after_solve,
    count_solutions,
)
from nonosat.formats import read_puzzle
from nonosat.native.count import count_grid, supported
from nonosat.puzzle import Cell, Puzzle, line_blocks, unknown_grid
from nonosat.stop import StopToken
from tests.test_count import GAMES, brute_force_solutions


@st.composite
def small_puzzles(draw):
    """3x4 clues of a random picture, up to two lines' clues hidden (several solutions)."""
    h, w = 3, 4
    bits = draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w))
    puzzle = Puzzle.from_picture(np.array(bits, dtype=bool).reshape(h, w))
    hide = draw(st.lists(st.integers(0, h + w - 1), max_size=2, unique=True))
    rows = [None if i in hide else c for i, c in enumerate(puzzle.rows)]
    cols = [None if h + j in hide else c for j, c in enumerate(puzzle.cols)]
    return Puzzle(rows, cols)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_puzzles(), st.booleans(), st.sampled_from((0, 1)), st.sampled_from((0, 1, 3, 4, 11)),
       st.sampled_from((0, 1, 2, 3)), st.sampled_from((0, 1, 2)))
def test_native_count_equals_brute_force(puzzle, probing, branch, probe_flags, weights, score):
    """Every branching option (conflict weights, score rules) counts what brute force counts."""
    got = count_grid(puzzle, probing=probing, branch=branch, probe_flags=probe_flags, probe_min=0,
                     weights=weights, weight_decay=0.8, score=score)
    assert got.finished and got.exact
    assert got.count == brute_force_solutions(puzzle), (puzzle.rows, puzzle.cols)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.booleans(), min_size=36, max_size=36), st.integers(1, 3))
def test_native_count_equals_cpsat_enumeration(bits, limit_k):
    """6x6 random pictures (up to hundreds of solutions): CP-SAT enumerates them all; with a
    small limit the native count is the lower bound ``limit + 1`` above it."""
    puzzle = Puzzle.from_picture(np.array(bits, dtype=bool).reshape(6, 6))
    enumerated = solve(puzzle, "cpsat", limit=10_000, timeout=60)
    assert enumerated.status is not Status.UNKNOWN
    want = len(enumerated.solutions)
    assert want < 10_000
    got = count_grid(puzzle)
    assert got.exact and got.count == want
    limit = max(want - limit_k, 1)
    capped = count_grid(puzzle, limit=limit)
    if want > limit:
        assert (capped.count, capped.exact, capped.finished) == (limit + 1, False, True)
    else:
        assert (capped.count, capped.exact) == (want, True)


def test_native_count_with_a_partial_grid_and_refusals():
    puzzle = Puzzle([(1,), (1,), (1,)], [(1,), (1,), (1,)])  # the 6 permutation matrices
    partial = unknown_grid(puzzle)
    partial[0, 0] = Cell.EMPTY
    assert count_grid(puzzle).count == 6
    assert count_grid(puzzle, partial).count == 4
    partial[0, 0] = Cell.FILLED
    partial[1, 1] = Cell.FILLED
    assert count_grid(puzzle, partial).count == 1
    partial[0, 1] = Cell.FILLED
    assert count_grid(puzzle, partial).count == 0
    assert count_grid(read_puzzle(GAMES / "impossible.non")).count == 0
    colour = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    assert not supported(colour)
    with pytest.raises(ValueError):
        count_grid(colour)
    with pytest.raises(ValueError):
        count_grid(puzzle, limit=0)
    for bad in ({"score": 3}, {"weights": 4}, {"weight_decay": 0.0}, {"weight_alpha": -1.0}):
        with pytest.raises(ValueError):
            count_grid(puzzle, **bad)


def test_native_count_stops_on_the_token():
    token = StopToken()
    token.set()
    got = count_grid(read_puzzle(GAMES / "cross-ambiguous.non"), stop=token)
    assert (got.count, got.finished, got.exact) == (None, False, False)


@pytest.mark.parametrize("name", ["cross-ambiguous.non", "heart.non", "impossible.non"])
def test_native_count_equals_ganak_on_the_games(name):
    puzzle = read_puzzle(GAMES / name)
    # generous limits: on a cold kernel cache the root node's compilation counts against them
    ganak = count_solutions(puzzle, timeout=120, counter="ganak")
    got = count_solutions(puzzle, timeout=120, counter="native")
    assert ganak.exact and got.exact and got.count == ganak.count
    both = count_solutions(puzzle, timeout=120, crosscheck=True)  # raises on a disagreement
    assert both.count == ganak.count


def test_auto_counts_natively_and_colour_with_ganak():
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    got = count_after_solve(puzzle, solve(puzzle, "native", limit=2), limit=2, timeout=30)
    assert (got.count, got.exact, got.method) == (48, True, NATIVE_COUNTER)
    colour = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    assert count_solutions(colour, timeout=30).method == "enumeration (CaDiCaL)"


def test_a_disagreement_is_loud(monkeypatch):
    import nonosat.engines.counting as counting

    real = counting._count_native

    def wrong(*args, **kwargs):
        got = real(*args, **kwargs)
        return counting.SolutionCount(got.count + 1, True, got.method, got.time_s)

    monkeypatch.setattr(counting, "_count_native", wrong)
    with pytest.raises(CountDisagreement):
        count_solutions(read_puzzle(GAMES / "cross-ambiguous.non"), timeout=30, crosscheck=True)


@pytest.mark.corpus
@pytest.mark.parametrize("index, count", [(1, 72), (151, 198)])
def test_taai2011_counts_equal_ganak(corpus, index, count):
    """Two taai2011 puzzles whose counts Ganak finds in a few seconds (#0, #150 of
    benchmarks/RESULTS.md's table; 1-based here): the native count equals Ganak's, run here."""
    puzzle = read_puzzle(corpus / "NonogramRecord" / "question" / "taai2011.txt", None, index)
    ganak = count_solutions(puzzle, timeout=60, counter="ganak")
    assert ganak.exact and ganak.count == count
    native = count_solutions(puzzle, timeout=60, counter="native")
    assert native.exact and native.count == ganak.count


def test_count_models_stops_on_the_token():
    import time

    from nonosat.encodings.cnf import encode
    from nonosat.encodings.ganak import count_models

    enc = encode(read_puzzle(GAMES / "cross-ambiguous.non"), "order")
    token = StopToken()
    token.set()
    start = time.perf_counter()
    got = count_models(enc.clauses, enc.nvars, range(1, 36), timeout=30, stop=token)
    assert (got.count, got.exact, got.reason) == (None, False, "cancelled")
    assert time.perf_counter() - start < 5
    assert count_models(enc.clauses, enc.nvars, range(1, 36), timeout=30,
                        stop=StopToken()).count == 48


# -- segments (a line cut where its blocks fall apart): larger grids, an independent enumerator --
def rowwise_count(puzzle: Puzzle, partial: np.ndarray | None = None) -> int:
    """Solutions (agreeing with ``partial``) by a plain backtracking over each row's
    arrangements (every 0/1 row whose blocks are the row's clue), pruned by the columns' runs so
    far: independent of the native code."""
    h, w = puzzle.shape
    every = list(itertools.product((0, 1), repeat=w))
    patterns = []
    for r, clue in enumerate(puzzle.rows):
        known = [] if partial is None else [(c, int(partial[r, c] == Cell.FILLED))
                                            for c in range(w) if partial[r, c] != Cell.UNKNOWN]
        patterns.append([p for p in every
                         if (clue is None or line_blocks(np.array(p, dtype=bool)) == clue)
                         and all(p[c] == v for c, v in known)])
    cols = puzzle.cols

    def col_ok(col: list[int], clue: tuple[int, ...] | None, done: bool) -> bool:
        if clue is None:
            return True
        runs = line_blocks(np.array(col, dtype=bool))
        if done:
            return runs == clue
        if not runs:
            return True
        open_run = col[-1] == 1
        closed = runs[:-1] if open_run else runs
        if len(runs) > len(clue) or tuple(clue[:len(closed)]) != closed:
            return False
        return not open_run or runs[-1] <= clue[len(runs) - 1]

    grid: list[tuple[int, ...]] = []

    def rec(r: int) -> int:
        if r == h:
            return 1
        total = 0
        for p in patterns[r]:
            grid.append(p)
            if all(col_ok([g[c] for g in grid], cols[c], r == h - 1) for c in range(w)):
                total += rec(r + 1)
            grid.pop()
        return total

    return rec(0)


@st.composite
def segment_puzzles(draw):
    """6x7 clues of a random picture (density 0.25-0.6: lines of several blocks that cut into
    segments), one line's clue maybe hidden, and a partial grid showing some of the picture's
    empty cells (known empty cells inside lines make cuts)."""
    h, w = 6, 7
    density = draw(st.sampled_from((0.25, 0.4, 0.6)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pic = rng.random((h, w)) < density
    puzzle = Puzzle.from_picture(pic)
    hide = draw(st.lists(st.integers(0, h + w - 1), max_size=1))
    rows = [None if i in hide else c for i, c in enumerate(puzzle.rows)]
    cols = [None if h + j in hide else c for j, c in enumerate(puzzle.cols)]
    partial = unknown_grid(puzzle)
    shown = ~pic & (rng.random((h, w)) < draw(st.sampled_from((0.0, 0.15, 0.3))))
    partial[shown] = Cell.EMPTY
    return Puzzle(rows, cols), partial


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segment_puzzles(), st.sampled_from((True, False, 2, 3, 4)), st.sampled_from((0, 1)),
       st.sampled_from((0, 8)), st.sampled_from((0, 6)),
       st.sampled_from((0, 1, 2, 3, 4, 7, 8, 11, 15)),
       st.sampled_from((0, 3)), st.sampled_from((0, 1, 2)))
def test_native_count_on_segments_equals_rowwise_enumeration(case, probing, branch, probe_min,
                                                              full_depth, probe_flags, weights,
                                                              score):
    """Every probing option (probe-both fixes, skipped implied probes: ``probe_flags``) and
    branching option (conflict weights, score rules) counts what the row-by-row enumerator
    counts."""
    puzzle, partial = case
    want = rowwise_count(puzzle, partial)
    got = count_grid(puzzle, partial, probing=probing, branch=branch, probe_min=probe_min,
                     full_depth=full_depth, probe_flags=probe_flags, weights=weights,
                     weight_alpha=3.0, score=score)
    assert got.finished and got.exact
    assert got.count == want, (puzzle.rows, puzzle.cols, partial.tolist())
    if want > 3:
        capped = count_grid(puzzle, partial, limit=want - 2, probing=probing, branch=branch)
        assert (capped.count, capped.exact, capped.finished) == (want - 1, False, True)


def test_rowwise_enumeration_is_right_on_brute_force_puzzles():
    """The enumerator above against every picture of a 3x4 grid (so that it checks something)."""
    rng = np.random.default_rng(7)
    for _ in range(12):
        puzzle = Puzzle.from_picture(rng.random((3, 4)) < 0.5)
        hidden = Puzzle([None, *puzzle.rows[1:]], puzzle.cols)
        for p in (puzzle, hidden):
            assert rowwise_count(p) == brute_force_solutions(p)


def test_native_count_grows_a_full_segment_stack(monkeypatch):
    """A segment stack too small for the search is grown and the count run again (the first
    size is for 0 nested splits here): the count is still the enumerator's."""
    import nonosat.native.count as native_count

    puzzle = Puzzle.from_picture(np.random.default_rng(4).random((6, 7)) < 0.4)
    want = rowwise_count(puzzle)
    assert want > 100
    monkeypatch.setattr(native_count, "SEG_STACK_DEPTH", 0)
    got = count_grid(puzzle)
    assert (got.count, got.exact) == (want, True)
    assert got.stats["restarts"] >= 1


def test_native_count_gives_up_when_the_segment_stack_reaches_its_bound(monkeypatch):
    """The segment stack grows only up to ``SEG_STACK_MAX_WORDS``: a count that needs more
    gives up with a reason (no crash, no MemoryError), and the portfolio reports it unfinished."""
    import nonosat.native.count as native_count

    puzzle = Puzzle.from_picture(np.random.default_rng(4).random((6, 7)) < 0.4)
    monkeypatch.setattr(native_count, "SEG_STACK_DEPTH", 0)
    monkeypatch.setattr(native_count, "SEG_STACK_MAX_WORDS", 1)
    got = count_grid(puzzle)
    assert (got.count, got.exact, got.finished, got.reason) == (
        None, False, False, "segment stack full")
    assert got.stats["restarts"] == 0
    out = count_solutions(puzzle, timeout=30, counter="native", simplify=False)
    assert (out.count, out.exact, out.reason) == (None, False, "segment stack full")


def test_a_stopped_native_count_proves_a_lower_bound():
    """A count stopped after ``max_nodes`` decisions reports the solutions its finished parts
    prove: never more than the enumerator's count, often more than 0, and the count itself
    when it finishes."""
    rng = np.random.default_rng(11)
    bounds = []
    for _ in range(6):
        puzzle = Puzzle.from_picture(rng.random((6, 7)) < 0.45)
        want = rowwise_count(puzzle)
        # every component probed (as in a large puzzle's top components): below the default
        # DEFAULT_PROBE_MIN cells a 6x7 count is line propagation alone
        nodes = count_grid(puzzle, probe_min=0).stats["nodes"]
        for m in sorted(set(np.linspace(0, nodes, 7).astype(int).tolist())):
            got = count_grid(puzzle, max_nodes=m, probe_min=0)
            if got.finished:
                assert (got.count, got.lower_bound) == (want, want)
            else:
                assert got.count is None and got.reason == "stopped"
                assert 0 <= got.lower_bound <= want, (puzzle.rows, puzzle.cols, m)
                bounds.append((got.lower_bound, want))
    assert any(0 < lb < want for lb, want in bounds)


@pytest.mark.corpus
def test_probe_options_keep_a_corpus_count(corpus):
    """taai2011 #276 (1-based; 11,860 solutions, Ganak's count, 69 s under load: too slow to
    run here): counted the same with and without probe-both fixes and skipped implied probes,
    with and without conflict weights, and the options do what they say (fixes made, probes skipped, fewer probes run)."""
    puzzle = read_puzzle(corpus / "NonogramRecord" / "question" / "taai2011.txt", None, 276)
    plain = count_grid(puzzle, probe_flags=0, probe_min=0)
    both = count_grid(puzzle, probe_flags=3, probe_min=0)
    unweighted = count_grid(puzzle, weights=0, probe_min=0)
    assert plain.exact and both.exact and plain.count == both.count == 11860
    # conflict weights change the branching (so the decisions), not the count
    assert unweighted.exact and unweighted.count == 11860
    assert unweighted.stats["nodes"] != both.stats["nodes"]
    assert plain.stats["probes_skipped"] == plain.stats["probe_both"] == 0
    assert both.stats["probes_skipped"] > 0 and both.stats["probe_both"] > 0
    assert both.stats["probes"] < plain.stats["probes"]


def test_reused_probe_results_count_what_ganak_counts():
    """Below a node whose probing fixed cells, the cells its last pass probed are not probed
    again (``probes_reused``): counts with that path taken equal Ganak's (random 12x12 pictures;
    the path must be taken on some of them)."""
    reused = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        puzzle = Puzzle.from_picture(rng.random((12, 12)) < 0.45)
        got = count_grid(puzzle, probe_min=0)
        ganak = count_solutions(puzzle, timeout=120, counter="ganak")
        assert ganak.exact and got.exact and got.count == ganak.count, seed
        reused += got.stats["probes_reused"]
    assert reused > 0
