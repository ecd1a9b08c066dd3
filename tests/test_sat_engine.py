"""The SAT engine against brute force, the native engine and the corpus; solvers, limits, time."""

from __future__ import annotations

import itertools
import json
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.encodings.cnf import ENCODING_VERSIONS
from nonosat.engines import Status, get_engine, load_engine, solve
from nonosat.errors import EngineError
from nonosat.puzzle import Cell, Puzzle, line_blocks, unknown_grid
from tests.conftest import corpus_path, cpu_clock, pictures, random_implication_pairs

SURVEY = ("FastNonogramSolver", "puzzles", "survey")


def brute_force(puzzle: Puzzle) -> list[np.ndarray]:
    """Every solution, by trying each combination of row patterns."""
    h, w = puzzle.shape
    rows = [
        [p for p in itertools.product((False, True), repeat=w)
         if clue is None or line_blocks(p) == clue]
        for clue in puzzle.rows
    ]
    grids = (np.array(g, dtype=bool) for g in itertools.product(*rows))
    return [g for g in grids if puzzle.is_solution(g)]


def as_set(solutions):
    return {np.asarray(s, dtype=bool).tobytes() for s in solutions}


PICTURES = pictures(1, 4, (1, 5))


@pytest.mark.parametrize("encoding", sorted(ENCODING_VERSIONS))
@settings(max_examples=30, deadline=None)
@given(PICTURES)
def test_sat_engine_finds_exactly_the_brute_force_solutions(encoding, picture):
    puzzle = Puzzle.from_picture(picture)
    expected = brute_force(puzzle)
    result = solve(puzzle, "sat", limit=100, encoding=encoding)
    assert as_set(result.solutions) == as_set(expected)
    assert len(result.solutions) == len(expected)
    assert result.status == (Status.UNIQUE if len(expected) == 1 else Status.MULTIPLE)
    verdict = solve(puzzle, "sat", limit=2, encoding=encoding)
    assert verdict.status == (Status.UNIQUE if len(expected) == 1 else Status.MULTIPLE)


@settings(max_examples=20, deadline=None)
@given(PICTURES, st.integers(0, 2**32 - 1))
def test_partial_grid_restricts_the_solutions(picture, seed):
    puzzle = Puzzle.from_picture(picture)
    rng = np.random.default_rng(seed)
    partial = unknown_grid(puzzle)
    mask = rng.random(puzzle.shape) < 0.4
    values = rng.random(puzzle.shape) < 0.5
    partial[mask] = np.where(values[mask], Cell.FILLED, Cell.EMPTY)
    expected = [s for s in brute_force(puzzle) if (s[mask] == values[mask]).all()]
    result = solve(puzzle, "sat", partial=partial, limit=100)
    assert as_set(result.solutions) == as_set(expected)
    if not expected:
        assert result.status == Status.NONE


@settings(max_examples=15, deadline=None)
@given(PICTURES)
def test_sat_and_native_engines_agree(picture):
    pytest.importorskip("nonosat.engines.native")
    puzzle = Puzzle.from_picture(picture)
    sat = solve(puzzle, "sat", limit=2)
    native = solve(puzzle, "native", limit=2)
    assert sat.status == native.status
    if sat.status == Status.UNIQUE:
        assert (sat.solutions[0] == native.solutions[0]).all()


def test_limit_one_reports_solved_and_limits_are_respected():
    puzzle = Puzzle([(1,), (1,), (1,)], [(1,), (1,), (1,)])  # the 6 permutation matrices
    assert solve(puzzle, "sat", limit=1).status == Status.SOLVED
    some = solve(puzzle, "sat", limit=4)
    assert len(some.solutions) == 4 and len(as_set(some.solutions)) == 4
    every = solve(puzzle, "sat", limit=50)
    assert len(every.solutions) == 6 and every.status == Status.MULTIPLE


def test_no_solution_and_free_cells():
    assert solve(Puzzle([(2,), ()], [(2,), ()]), "sat").status == Status.NONE
    # the last cell lies on no known clue: the solver never sees its variable
    puzzle = Puzzle([(1,), None], [(1,), None])
    free = solve(puzzle, "sat", limit=10)
    assert as_set(free.solutions) == as_set(brute_force(puzzle)) and len(free.solutions) == 4


def test_stats_describe_the_formula_and_the_search():
    result = solve(Puzzle.from_picture([[1, 0, 1], [1, 1, 0]]), "sat", encoding="order")
    for key in ("solver", "encoding", "variables", "clauses", "conflicts", "decisions",
                "sat_calls", "encode_time_s", "sat_time_s"):
        assert key in result.stats
    assert result.stats["solver"] == "cadical195" and result.stats["encoding"] == "order"
    assert result.stats["variables"] >= 6
    json.dumps(result.stats)


@pytest.mark.parametrize("name", ["Glucose4", "minisat22", "MapleChrono", "cadical153"])
def test_other_pysat_solvers(name):
    puzzle = Puzzle.from_picture([[1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]])
    assert get_engine("sat", solver=name).solve(puzzle).status == Status.UNIQUE


def test_unknown_solver_and_encoding_are_refused():
    with pytest.raises(EngineError, match="cadical195"):
        get_engine("sat", solver="nosuch")
    with pytest.raises(EngineError, match="regular"):
        get_engine("sat", encoding="nosuch")


def test_solver_that_cannot_be_bounded_refuses_a_timeout():
    puzzle = Puzzle.from_picture([[1, 0], [1, 1]])
    assert get_engine("sat", solver="lingeling").solve(puzzle).status == Status.UNIQUE
    with pytest.raises(EngineError, match="time limit"):
        get_engine("sat", solver="lingeling").solve(puzzle, timeout=5)


def test_timeout_is_honoured_on_a_hard_puzzle():
    from nonosat.formats import read_puzzle

    # minutes for CaDiCaL from its default phases (well under a second with the BP phases)
    puzzle = read_puzzle(corpus_path(*SURVEY, "knotty.nin"))
    load_engine("sat", encoding="order", phases=False)  # kernels and PySAT: not the engine's time
    # the limit and the conflict budgets in this thread's CPU seconds (CaDiCaL runs in it): on a
    # loaded machine a wall-clock second left room for one budgeted call only, and the last
    # call's overshoot grew with the load
    wall, cpu = time.perf_counter, time.thread_time
    start, cpu_start = wall(), cpu()
    with cpu_clock():
        result = solve(puzzle, "sat", timeout=1.0, encoding="order", phases=False)
    elapsed, used = wall() - start, cpu() - cpu_start
    assert result.status == Status.UNKNOWN
    assert used < 4.0, (used, elapsed)  # unbounded, the search takes minutes
    assert elapsed < 60.0, (used, elapsed)
    assert result.stats["sat_calls"] >= 2  # budgeted calls, not one unbounded call


@pytest.mark.parametrize("name", ["webpbn-00006.nin", "webpbn-00023.nin", "webpbn-06574.nin"])
def test_corpus_puzzles_agree_with_the_native_engine(name):
    from nonosat.formats import read_puzzle

    pytest.importorskip("nonosat.engines.native")
    puzzle = read_puzzle(corpus_path(*SURVEY, name))
    sat = solve(puzzle, "sat", timeout=60)
    native = solve(puzzle, "native", timeout=60)
    assert sat.status == native.status == Status.UNIQUE
    assert (sat.solutions[0] == native.solutions[0]).all()


def test_cli_solve_with_a_named_sat_solver(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"rows": [[1], [2]], "cols": [[2], [1]]}')
    runner = CliRunner()
    out = runner.invoke(app, ["solve", str(path), "--engine", "sat", "--sat-solver", "glucose4",
                              "--json"])
    assert out.exit_code == 0, out.output
    obj = json.loads(out.stdout)
    assert obj["status"] == "unique" and obj["engine"] == "sat"
    assert obj["solutions"] == [["#.", "##"]] and obj["stats"]["solver"] == "glucose4"
    bad = runner.invoke(app, ["solve", str(path), "--engine", "sat", "--sat-solver", "nope"])
    assert bad.exit_code == 2 and "unknown SAT solver" in bad.output
    wrong = runner.invoke(app, ["solve", str(path), "--engine", "cpsat", "--sat-solver", "g4"])
    assert wrong.exit_code == 2 and "--engine sat" in wrong.output


def test_first_solution_mode_configures_cadical_and_still_solves():
    """Up to 1024 cells both modes run CaDiCaL with the uniqueness options (stable-only, no
    elimination, no chronological backtracking); above, limit=1 runs it stable-only and limit=2
    with its defaults.  Solutions must still satisfy the clues, and options for a solver without
    ``configure`` are refused clearly."""
    from nonosat.encodings.satsolver import SatRun
    from nonosat.engines.sat import FIRST_SOLUTION_OPTIONS, UNIQUENESS_OPTIONS

    assert "cadical195" in FIRST_SOLUTION_OPTIONS
    picture = np.random.default_rng(7).random((15, 15)) < 0.5
    puzzle = Puzzle.from_picture(picture)
    result = solve(puzzle, "sat", limit=1)  # checks the solution against the clues
    assert result.status is Status.SOLVED
    assert result.stats["options"] == UNIQUENESS_OPTIONS["cadical195"]
    unique = solve(puzzle, "sat", limit=2)  # uniqueness: the same options
    assert unique.stats["options"] == UNIQUENESS_OPTIONS["cadical195"]
    assert unique.status is solve(puzzle, "cpsat", limit=2).status  # an independent engine
    big = Puzzle.from_picture(np.random.default_rng(8).random((40, 30)) < 0.5)  # > 1024 cells
    assert solve(big, "sat", limit=2, timeout=60).stats["options"] == {}
    first = solve(big, "sat", limit=1, timeout=60)
    assert first.stats["options"] == FIRST_SOLUTION_OPTIONS["cadical195"]
    assert first.status is Status.SOLVED
    with pytest.raises(EngineError, match="takes no options"):
        SatRun([[1, 2]], "minisat22", options={"stabilizeonly": 1})


def test_partial_units_one_unit_per_known_cell_in_row_major_order():
    """Every FILLED cell gives its variable, every EMPTY cell its negation, a CONFLICT cell both,
    an UNKNOWN cell nothing; row-major order (checked cell by cell against the definition)."""
    import numpy as np

    from nonosat.encodings.cnf import partial_units
    from nonosat.puzzle import Cell, Puzzle

    puzzle = Puzzle([(1,)] * 3, [(1,), (1,), (1,), ()])  # 3 rows, 4 columns
    rng = np.random.default_rng(7)
    for _ in range(20):
        grid = rng.integers(0, 4, size=(3, 4)).astype(np.int8)
        expected = []
        for r in range(3):
            for c in range(4):
                v = r * 4 + c + 1
                if grid[r, c] == Cell.FILLED:
                    expected.append([v])
                elif grid[r, c] == Cell.EMPTY:
                    expected.append([-v])
                elif grid[r, c] == Cell.CONFLICT:
                    expected += [[v], [-v]]
        assert partial_units(puzzle, grid) == expected


def test_knotty_is_decided_with_two_different_solutions():
    """Knotty (webpbn survey) has several solutions; nonosolve and the published pair say so.
    With the BP phases the portfolio decides it (it gave up after 60 s before them)."""
    from nonosat.formats import read_puzzle

    puzzle = read_puzzle(corpus_path(*SURVEY, "knotty.nin"))
    result = solve(puzzle, "auto", timeout=120)
    assert result.status == Status.MULTIPLE
    first, second = result.solutions
    assert puzzle.is_solution(first) and puzzle.is_solution(second)
    assert (first != second).any()


def test_auto_loads_the_sat_stage_on_its_first_hand_off_as_load_time():
    """`load_engine("auto")` stays native (a puzzle the native search decides never pays for
    PySAT); the first hand-off loads PySAT and the compiled order encoder and reports that as
    load time (stats["load_s"], added to load_s), never as time_s.  In a fresh process."""
    import json
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from nonosat.engines import load_engine, solve\n"
        "from nonosat.formats import read_puzzle\n"
        "load_engine('auto')\n"
        "before = 'pysat.solvers' in sys.modules\n"
        f"r = solve(read_puzzle(r'{corpus_path(*SURVEY, 'knotty.nin')}'), 'auto', timeout=120)\n"
        "from nonosat.encodings import cnf_order\n"
        "print(json.dumps([before, r.stats['handoff'], r.stats['load_s'], r.load_s,\n"
        "                  len(cnf_order.order_puzzle_kernel.signatures)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, handoff, stage_load, load_s, signatures = json.loads(out.stdout)
    assert before is False and handoff is True
    assert stage_load > 0 and load_s >= stage_load and signatures >= 1


def test_implication_and_blocking_clauses_from_their_definitions():
    from nonosat.encodings.cnf import blocking_clause
    from nonosat.engines.sat import implication_clauses

    rng = np.random.default_rng(3)
    h, w = 4, 7
    pairs = random_implication_pairs(rng, h, w, 50)
    pairs = [(a, b) for a, b in pairs if a[:2] != b[:2]]
    for (a, b), clause in zip(pairs, implication_clauses(w, pairs), strict=True):
        # a -> b: the clause is falsified exactly when a holds and b does not
        for value_a, value_b in itertools.product((False, True), repeat=2):
            grid = np.zeros((h, w), dtype=bool)
            grid[a[0], a[1]] = value_a if a[2] else not value_a
            grid[b[0], b[1]] = value_b if b[2] else not value_b
            satisfied = any(grid.flat[abs(lit) - 1] == (lit > 0) for lit in clause)
            assert satisfied == (not value_a or value_b)
    grid = rng.integers(0, 2, size=(h, w)).astype(bool)
    clause = blocking_clause(grid)
    assert not any(grid.flat[abs(lit) - 1] == (lit > 0) for lit in clause)  # grid excluded
    assert sorted(abs(lit) for lit in clause) == list(range(1, h * w + 1))


def test_solve_limited_answers_under_assumptions_and_stops_at_its_conflict_budget():
    """SatRun.solve_limited: SAT/UNSAT under assumptions that do not stay, None when the
    conflict budget runs out (pigeonhole 9 into 8 needs far more than one conflict)."""
    from nonosat.encodings.satsolver import SatRun

    with SatRun([[1, 2], [-1, 2]]) as run:
        assert run.solve_limited([-2], 1000) is False
        assert run.solve_limited([1], 1000) is True and 2 in run.model()
        assert run.solve() is True  # the assumptions did not stay
    pigeons, holes = 9, 8
    var = lambda p, h: p * holes + h + 1  # noqa: E731
    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes)
                for p in range(pigeons) for q in range(p + 1, pigeons)]
    with SatRun(clauses) as run:
        assert run.solve_limited([], 1) is None


def test_a_stopped_run_adds_no_more_clauses_and_never_answers(monkeypatch):
    """SatRun(stop=...) adds flat clauses a chunk at a time: once the token is set the rest is
    not added and no solve answers (a formula cut short could be wrongly satisfiable); with a
    token nobody sets the same formula (pigeons 5 into 4 holes: unsatisfiable) is decided as
    without one."""
    from nonosat.encodings import satsolver
    from nonosat.encodings.satsolver import SatRun
    from nonosat.stop import StopToken

    pigeons, holes = 5, 4
    var = {(p, h): p * holes + h + 1 for p in range(pigeons) for h in range(holes)}
    clauses = [[var[p, h] for h in range(holes)] for p in range(pigeons)]
    clauses += [[-var[p, h], -var[q, h]] for h in range(holes)
                for p, q in itertools.combinations(range(pigeons), 2)]
    lits = np.array([lit for c in clauses for lit in c], dtype=np.int64)
    ends = np.cumsum([len(c) for c in clauses]).astype(np.int64)
    monkeypatch.setattr(satsolver, "ADD_CHUNK", 7)
    for token in (None, StopToken(latency=0.1)):
        with SatRun([], flat=(lits, ends), stop=token) as run:
            assert not run.incomplete
            assert run.solve() is False
    stopped = StopToken(latency=0.1)
    stopped.set()
    with SatRun([], flat=(lits, ends), stop=stopped) as run:
        assert run.incomplete  # only the first clauses, satisfiable on their own
        assert run.solve() is None
        assert run.solve_limited([], 10_000) is None


def test_a_token_with_a_latency_makes_the_sat_engine_call_briefly(monkeypatch):
    """A token's latency (the studio's jobs: 0.1 s) reaches the SAT engine through the
    portfolio's per-solve token, which takes its parent's latency, and the engine hands it to
    its run (whose calls then aim at 40 ms); a token without one is not handed on (the CLI's
    long calls stay).  The solve still decides, as the native engine does."""
    from nonosat.encodings.satsolver import SatRun
    from nonosat.engines import sat as sat_engine
    from nonosat.stop import StopToken, for_solve

    parent = StopToken(latency=0.1)
    with for_solve(parent, 5.0) as token:
        assert token.latency == 0.1
    with for_solve(None, 5.0) as token:
        assert token.latency is None
    handed: list[object] = []

    class Recording(SatRun):
        def __init__(self, *args, stop=None, **kwargs):
            handed.append(stop)
            super().__init__(*args, stop=stop, **kwargs)

    monkeypatch.setattr(sat_engine, "SatRun", Recording)
    puzzle = Puzzle.from_picture(np.array(
        [[(r * 7 + c * 3) % 5 < 2 for c in range(12)] for r in range(12)], dtype=bool))
    brief = StopToken(latency=0.1)
    sat = get_engine("sat").solve(puzzle, limit=2, stop=brief)
    get_engine("sat").solve(puzzle, limit=2, stop=StopToken())
    assert handed == [brief, None]
    native = get_engine("native").solve(puzzle, limit=2)
    assert sat.status == native.status
    assert len({s.tobytes() for s in sat.solutions}) == len(native.solutions)
    assert all(puzzle.is_solution(s) for s in sat.solutions)
