"""Exact solution counts (issue 26): pyganak tested adversarially, the projected count of a
puzzle's CNF against brute-force enumeration and CP-SAT's enumeration, black-and-white and colour,
and ``solve --count`` / ``analyse`` on the command line.

Expected counts never come from the counter under test: they are enumerated here (every picture
of a tiny grid) or by the independent CP-SAT engine."""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.encodings.cnf import encode
from nonosat.encodings.ganak import count_models
from nonosat.engines import Status, solve
from nonosat.engines.counting import count_after_solve, count_solutions
from nonosat.formats import read_puzzle
from nonosat.puzzle import Colour, Palette, Puzzle, line_blocks, line_colour_blocks
from tests.test_cli_contract import validate

REPO = Path(__file__).resolve().parent.parent
GAMES = REPO / "games"


# -- pyganak itself ----------------------------------------------------------------------------
def brute_count(clauses: list[list[int]], nvars: int, projection: list[int]) -> int:
    """Projected models by enumerating every assignment of ``nvars`` variables."""
    seen = set()
    for bits in itertools.product((False, True), repeat=nvars):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            seen.add(tuple(bits[v - 1] for v in projection))
    return len(seen)


def ganak(clauses, nvars, projection=None) -> int:
    from pyganak import Counter

    counter = Counter()
    counter.new_vars(nvars)
    counter.add_clauses(clauses)
    if projection is not None:
        counter.set_sampling_set(projection)
    return int(counter.count())


@st.composite
def cnfs(draw):
    nvars = draw(st.integers(1, 7))
    lit = st.integers(1, nvars).flatmap(lambda v: st.sampled_from((v, -v)))
    clauses = draw(st.lists(st.lists(lit, min_size=1, max_size=3), max_size=12))
    projection = draw(st.lists(st.integers(1, nvars), unique=True, max_size=nvars))
    return clauses, nvars, sorted(projection)


@settings(max_examples=120, deadline=None)
@given(cnfs())
def test_pyganak_projected_count_equals_brute_force(cnf):
    clauses, nvars, projection = cnf
    assert ganak(clauses, nvars, projection) == brute_count(clauses, nvars, projection)


@settings(max_examples=8, deadline=None)
@given(cnfs())
def test_count_models_in_its_child_process_equals_brute_force(cnf):
    clauses, nvars, projection = cnf
    got = count_models(clauses, nvars, projection, timeout=30)
    assert got.exact and got.count == brute_count(clauses, nvars, projection)


def test_pyganak_edge_cases():
    assert ganak([], 0) == 1                  # empty formula, no variables: one (empty) model
    assert ganak([], 3) == 8                  # free variables each double the count
    assert ganak([[1], [-1]], 1) == 0         # unsatisfiable
    assert ganak([[1, 2], [-1], [-2]], 2, [1]) == 0   # unsatisfiable, projected
    assert ganak([[1, 2]], 2, []) == 1        # empty projection: satisfiable -> 1
    assert ganak([[1, 2]], 1 + 1, [1, 2, 2]) == 3     # repeated projection variable
    assert ganak([], 100) == 2**100           # beyond 64 bits


def test_auxiliary_variables_change_the_count_unless_projected():
    # x3 <-> (x1 and x2) is a function of x1, x2: same count either way
    tseitin = [[-3, 1], [-3, 2], [3, -1, -2]]
    assert ganak(tseitin, 3) == ganak(tseitin, 3, [1, 2]) == 4
    # x1 | x2 with x3, x4 free auxiliaries, and x3 -> x1 half-constrained
    aux = [[1, 2], [-3, 1]]
    assert ganak(aux, 4) == brute_count(aux, 4, [1, 2, 3, 4]) == 10
    assert ganak(aux, 4, [1, 2]) == 3


def test_count_models_handles_an_empty_clause_that_pyganak_counts_as_satisfiable():
    assert count_models([[1, 2], []], 2).count == 0
    assert count_models([[]], 0).count == 0


def test_count_models_edge_cases_and_errors():
    from nonosat.errors import EngineError

    assert count_models([], 0, []).count == 1
    assert count_models([], 5, [1, 2]).count == 4
    assert count_models([[1], [-1]], 1).count == 0
    with pytest.raises(EngineError, match="out of range"):
        count_models([[1, 3]], 2)
    with pytest.raises(EngineError, match="out of range"):
        count_models([[1]], 1, [2])
    gave_up = count_models([[1]], 1, timeout=0)
    assert gave_up.count is None and not gave_up.exact and gave_up.reason == "time limit"


def test_count_models_kills_the_counter_at_the_time_limit():
    # a 10x10 puzzle with no clues: 2**100 pictures in a trivial formula is instant, so use a
    # hard one: pigeonhole 9 into 8 needs exponential work from a counter without symmetry
    n, m = 11, 10
    var = lambda i, j: i * m + j + 1  # noqa: E731
    clauses = [[var(i, j) for j in range(m)] for i in range(n)]
    clauses += [[-var(i, j), -var(k, j)] for j in range(m) for i in range(n) for k in range(i)]
    got = count_models(clauses, n * m, timeout=0.5)
    if got.exact:  # a counter clever enough to refute it within the limit must say 0
        assert got.count == 0
    else:
        assert got.count is None and got.reason == "time limit" and got.time_s < 5


# -- puzzles: brute force ----------------------------------------------------------------------
H, W = 3, 4


@functools.cache
def _pictures(h: int, w: int):
    pics = [np.array(b, dtype=bool).reshape(h, w) for b in itertools.product((0, 1), repeat=h * w)]
    lines = [tuple(line_blocks(r) for r in p) + tuple(line_blocks(c) for c in p.T) for p in pics]
    return pics, lines


def brute_force_solutions(puzzle: Puzzle) -> int:
    _, lines = _pictures(puzzle.height, puzzle.width)
    return sum(all(c is None or c == got for c, got in zip(puzzle.lines, ln, strict=True))
               for ln in lines)


@st.composite
def bw_puzzles(draw):
    bits = draw(st.lists(st.booleans(), min_size=H * W, max_size=H * W))
    pic = np.array(bits, dtype=bool).reshape(H, W)
    puzzle = Puzzle.from_picture(pic)
    hide = draw(st.lists(st.integers(0, H + W - 1), max_size=2, unique=True))
    rows = [None if i in hide else c for i, c in enumerate(puzzle.rows)]
    cols = [None if H + j in hide else c for j, c in enumerate(puzzle.cols)]
    return Puzzle(rows, cols)


@pytest.mark.parametrize("counter", ["ganak", "enumerate"])  # the two CNF counters
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bw_puzzles(), st.sampled_from(("order", "regular", "dfa")), st.booleans())
def test_black_and_white_count_equals_brute_force(counter, puzzle, encoding, simplify):
    got = count_solutions(puzzle, timeout=120, encoding=encoding, simplify=simplify,
                          counter=counter)
    want = brute_force_solutions(puzzle)
    assert got.exact and got.count == want, (got, want, puzzle.rows, puzzle.cols)


def test_count_with_a_partial_grid_equals_brute_force():
    from nonosat.puzzle import Cell, unknown_grid

    puzzle = Puzzle([(1,), (1,), (1,)], [(1,), (1,), (1,)])  # the 6 permutation matrices
    partial = unknown_grid(puzzle)
    partial[0, 0] = Cell.EMPTY
    for counter in ("ganak", "native", "enumerate", "auto"):
        assert count_solutions(puzzle, timeout=30, counter=counter).count == 6
        assert count_solutions(puzzle, partial=partial, timeout=30, counter=counter).count == 4


COLOURS = Palette((Colour("white", (255, 255, 255), "."), Colour("red", (255, 0, 0), "r"),
                   Colour("blue", (0, 0, 255), "b")))


@functools.cache
def _colour_lines(h: int, w: int, k: int) -> list:
    out = []
    for cells in itertools.product(range(k), repeat=h * w):
        pic = np.array(cells).reshape(h, w)
        out.append([line_colour_blocks(r) for r in pic] + [line_colour_blocks(c) for c in pic.T])
    return out


def brute_force_colour(puzzle: Puzzle) -> int:
    want = [(tuple(c), tuple(cc)) for c, cc in zip(puzzle.lines, puzzle.line_colours,
                                                   strict=True)]
    return sum(got == want for got in _colour_lines(puzzle.height, puzzle.width,
                                                    puzzle.n_colours))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 2), min_size=9, max_size=9))
def test_colour_count_equals_brute_force(cells):
    puzzle = Puzzle.from_picture(np.array(cells, dtype=np.int8).reshape(3, 3), palette=COLOURS)
    got = count_solutions(puzzle, timeout=30, simplify=sum(cells) % 2 == 0)
    assert got.exact and got.count == brute_force_colour(puzzle)


# -- puzzles: CP-SAT's enumeration -------------------------------------------------------------
@pytest.mark.parametrize("name", ["cross-ambiguous.non", "ladybird-ambiguous.xml", "heart.non",
                                  "impossible.non", "ladybird.non"])
def test_count_equals_cpsat_enumeration_on_the_games(name):
    puzzle = read_puzzle(GAMES / name)
    enumerated = solve(puzzle, "cpsat", limit=100_000, timeout=60)
    assert enumerated.status is not Status.UNKNOWN
    assert len(enumerated.solutions) < 100_000
    for counter in ("ganak", "enumerate", "auto"):
        got = count_solutions(puzzle, timeout=30, counter=counter)
        assert got.exact and got.count == len(enumerated.solutions)


def test_colour_count_equals_cpsat_on_random_pictures():
    rng = np.random.default_rng(7)
    counts = []
    for _ in range(3):
        pic = rng.integers(0, 3, size=(4, 5)).astype(np.int8)
        puzzle = Puzzle.from_picture(pic, palette=COLOURS)
        enumerated = solve(puzzle, "cpsat", limit=100_000, timeout=60)
        got = count_solutions(puzzle, timeout=30)
        assert got.exact and got.count == len(enumerated.solutions)
        counts.append(got.count)
    assert max(counts) >= 1


def test_count_after_solve_uses_the_verdict_and_falls_back_to_the_lower_bound():
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    result = solve(puzzle, "native", limit=2)
    assert count_after_solve(puzzle, result, limit=2, timeout=30).count == 48
    assert count_after_solve(puzzle, solve(puzzle, "native", limit=100), limit=100).method \
        == "engine"
    cut = count_after_solve(puzzle, result, limit=2, timeout=0)
    assert (cut.count, cut.exact, cut.reason) == (2, False, "time limit")
    assert cut.describe() == "at least 2 solutions"
    heart = read_puzzle(GAMES / "heart.non")
    assert count_after_solve(heart, solve(heart, "native"), limit=2).count == 1


@pytest.mark.corpus
def test_taai2011_first_puzzle_has_72_solutions(corpus):
    puzzle = read_puzzle(corpus / "NonogramRecord" / "question" / "taai2011.txt", None, 1)
    assert count_solutions(puzzle, timeout=60, counter="ganak").count == 72


def test_dfa_encoding_needs_the_projection():
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    enc = encode(puzzle, "dfa")
    assert count_models(enc.clauses, enc.nvars, timeout=30).count > 48  # auxiliaries counted
    assert count_solutions(puzzle, encoding="dfa", timeout=30, counter="ganak").count == 48


# -- command line ------------------------------------------------------------------------------
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_solve_count_prints_the_exact_count():
    done = run("solve", str(GAMES / "cross-ambiguous.non"), "--count")
    assert done.exit_code == 1, done.output
    assert "48 solutions [" in done.stdout
    plain = run("solve", str(GAMES / "cross-ambiguous.non"))
    assert "2 solutions found (limit 2)" in plain.stdout and "counted" not in plain.stdout


def test_solve_count_json_and_analyse_json():
    done = run("solve", str(GAMES / "ladybird-ambiguous.xml"), "--count", "--json")
    out = json.loads(done.stdout)
    validate("solve", out)
    assert (out["solution_count"], out["solution_count_exact"]) == (2, True)
    done = run("analyse", str(GAMES / "cross-ambiguous.non"), "--json", "--backdoor-timeout", "0")
    out = json.loads(done.stdout)
    validate("analyse", out)
    assert (out["solution_count"], out["solution_count_exact"]) == (48, True)
    # the portfolio's first exact count: the native counter, or another while its kernels load
    assert out["count_method"] in ("native (line counter)", "ganak (pyganak)",
                                   "enumeration (CaDiCaL)")
    text = run("analyse", str(GAMES / "cross-ambiguous.non"), "--backdoor-timeout", "0").stdout
    assert "(7x5): 48 solutions [" in " ".join(text.split())  # the verdict line wraps at 80


# -- the portfolio's second lane ---------------------------------------------------------------
def _first_lane_waits(monkeypatch) -> None:
    """The first lane's native counter counts nothing: it waits until the second lane stops it
    (at most 60 s), so that the second lane's result is the portfolio's."""
    import time

    import nonosat.engines.counting as counting

    def waits(puzzle, partial, timeout, start, stop=None, **kwargs):
        end = time.perf_counter() + 60
        while not stop.is_set() and time.perf_counter() < end:
            time.sleep(0.01)
        return counting.SolutionCount(None, False, counting.NATIVE_COUNTER, 0.0, "stopped")

    monkeypatch.setattr(counting, "_count_native", waits)


def _lane_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name == "count-lane"]


def test_the_second_lane_hands_over_from_the_enumeration_to_its_native_counter(monkeypatch):
    """The second lane's native counter (other settings than the first lane's) after a
    one-decision run, then the enumeration handing over after one solution: its count is the
    portfolio's, and equals CP-SAT's enumeration (48 pictures); and the default lane's Ganak
    after the enumeration."""
    import time

    import nonosat.engines.counting as counting

    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    want = len(solve(puzzle, "cpsat", limit=1000, timeout=60).solutions)
    _first_lane_waits(monkeypatch)
    monkeypatch.setattr(counting, "ENUM_DELAY", 0.0)
    monkeypatch.setattr(counting, "LANE_PROBE_NODES", 1)
    monkeypatch.setattr(counting, "ENUM_HANDOVER", 1)
    enumerated: list = []
    real = counting._count_enumeration

    def spy(*args, **kwargs):
        enumerated.append(real(*args, **kwargs))
        return enumerated[-1]

    monkeypatch.setattr(counting, "_count_enumeration", spy)
    got = count_solutions(puzzle, timeout=60, second_lane="native")
    assert (got.count, got.exact, got.method) == (want, True, counting.NATIVE_COUNTER)
    assert [(e.exact, e.count) for e in enumerated] == [(False, 2)]  # it handed over
    # the default lane: the enumeration (made to stop early here), then Ganak, whose exact
    # count stops the first lane at once (not at its 60 s)
    monkeypatch.setattr(counting, "_count_enumeration",
                        lambda *a, **k: counting.SolutionCount(3, False, counting.ENUMERATOR))
    t0 = time.perf_counter()
    old = count_solutions(puzzle, timeout=60)
    assert (old.count, old.exact, old.method) == (want, True, "ganak (pyganak)")
    assert time.perf_counter() - t0 < 30
    # the enumeration stopped by its share of the time, not its cap: Ganak after it
    monkeypatch.setattr(counting, "ENUM_HANDOVER", 100)
    new = count_solutions(puzzle, timeout=60, second_lane="native")
    assert (new.count, new.exact, new.method) == (want, True, "ganak (pyganak)")
    assert not _lane_threads()
    with pytest.raises(ValueError):
        count_solutions(puzzle, second_lane="cubes")


def test_more_than_the_limit_in_the_second_lane_stops_both(monkeypatch):
    """The second lane's native counter finding more than the limit (10 here, 48 pictures)
    stops the first lane at once, and the answer is the lower bound limit + 1."""
    import time

    import nonosat.engines.counting as counting

    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    _first_lane_waits(monkeypatch)
    monkeypatch.setattr(counting, "ENUM_DELAY", 0.0)
    monkeypatch.setattr(counting, "COUNT_LIMIT", 10)
    t0 = time.perf_counter()
    got = count_solutions(puzzle, timeout=60, second_lane="native")
    assert time.perf_counter() - t0 < 30  # not the first lane's 60 s
    assert (got.count, got.exact, got.reason) == (11, False, "more than 10 solutions")
    assert not _lane_threads()
