"""The SAT hand-off's array paths (issue 16): implications as DIMACS arrays, the order formula as
flat arrays, and clauses passed to the solver by :meth:`SatRun.add_flat`.

Each new path is checked against an independent reference: brute-force solution and model
counts, the Python reference encoder (``cnf._encode_lines``) and the implication definition.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.encodings.cnf import _encode_lines, partial_units
from nonosat.encodings.cnf_order import clause_lists, encode_order_flat, unit_literals
from nonosat.encodings.satsolver import SatRun
from nonosat.engines.sat import SatEngine, implication_clauses, implication_literals
from nonosat.errors import EngineError, PuzzleError
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import random_implication_pairs
from tests.test_native import brute_force_solutions


def random_puzzle(rng: np.random.Generator, h: int, w: int) -> Puzzle:
    return Puzzle.from_picture(rng.random((h, w)) < rng.uniform(0.3, 0.7))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_root_implication_literals_are_the_tuples_and_hold_in_every_solution(seed):
    rng = np.random.default_rng(seed)
    puzzle = random_puzzle(rng, 5, 6)
    search = NativeSearch(puzzle, limit=1)
    search.run()
    pairs = search.root_implication_literals()
    tuples = search.root_implications()
    assert pairs.shape == (len(tuples), 2) and pairs.dtype == np.int64
    w = puzzle.width
    for (a, b), ((r1, c1, f1), (r2, c2, f2)) in zip(pairs.tolist(), tuples, strict=True):
        # variable r * w + c + 1, positive = filled
        assert (a, b) == ((r1 * w + c1 + 1) * (1 if f1 else -1), (r2 * w + c2 + 1) * (1 if f2 else -1))
    for sol in brute_force_solutions(puzzle):
        flat = sol.ravel()
        for a, b in pairs.tolist():
            if flat[abs(a) - 1] == (a > 0):
                assert flat[abs(b) - 1] == (b > 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_encode_order_flat_is_the_reference_formula(seed):
    """Lines (Python reference encoder), then the partial grid's units, then ``-a | b`` per
    implication: the same clauses in the same order."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    puzzle = random_puzzle(rng, h, w)
    partial = rng.choice([Cell.CONFLICT, Cell.EMPTY, Cell.FILLED, Cell.UNKNOWN, Cell.UNKNOWN],
                         size=(h, w)).astype(np.int8) if rng.random() < 0.7 else None
    m = int(rng.integers(0, 12))
    cells = rng.integers(0, h * w, size=(m, 2)) + 1
    pairs = cells * rng.choice([-1, 1], size=(m, 2)) if rng.random() < 0.8 else None
    expected, nvars, _ = _encode_lines(puzzle, "order")
    if partial is not None:
        expected += partial_units(puzzle, partial)
        assert unit_literals(puzzle, partial).tolist() == [c[0] for c in partial_units(puzzle,
                                                                                       partial)]
    if pairs is not None:
        expected += [[-a, b] for a, b in pairs.tolist()]
    lits, ends, n = encode_order_flat(puzzle, partial, pairs)
    assert n == nvars
    assert clause_lists(lits, ends) == expected


def test_encode_order_flat_refuses_a_partial_grid_of_another_shape():
    puzzle = Puzzle([(1,), ()], [(1,), ()])
    with pytest.raises(PuzzleError, match="partial grid is 3x2 but the puzzle is 2x2"):
        encode_order_flat(puzzle, np.full((2, 3), Cell.UNKNOWN, np.int8))
    with pytest.raises(PuzzleError, match="implications"):
        encode_order_flat(puzzle, None, np.array([1, 2, 3]))


def test_implication_literals_from_tuples_give_the_implication_clauses():
    w = 7
    pairs = random_implication_pairs(np.random.default_rng(5), 4, w, 40)
    lits = implication_literals(w, pairs)
    assert [[-a, b] for a, b in lits.tolist()] == implication_clauses(w, pairs)
    assert implication_literals(w, lits) is lits or np.array_equal(implication_literals(w, lits),
                                                                    lits)


def brute_force_models(clauses: list[list[int]], nvars: int) -> set[tuple[bool, ...]]:
    return {bits for bits in itertools.product((False, True), repeat=nvars)
            if all(any(bits[abs(x) - 1] == (x > 0) for x in c) for c in clauses)}


def solver_models(run: SatRun, nvars: int) -> set[tuple[bool, ...]]:
    models = set()
    while run.solve():
        model = run.model()
        values = {abs(x): x > 0 for x in model}
        bits = tuple(values.get(v, False) for v in range(1, nvars + 1))
        models.add(bits)
        run.add_clause([-v if values.get(v, False) else v for v in range(1, nvars + 1)])
    return models


@pytest.mark.parametrize("solver", ["Cadical195", "Minisat22"])
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_add_flat_gives_the_solver_the_clauses_unchanged(solver, seed):
    """Every model of a random CNF (with units, long clauses, sometimes an empty clause),
    enumerated through ``add_flat``, is a brute-force model and vice versa; the CaDiCaL path calls
    PySAT's C function directly, the other solvers go through ``add_clause``."""
    rng = np.random.default_rng(seed)
    nvars = int(rng.integers(1, 8))
    clauses = []
    for _ in range(int(rng.integers(0, 14))):
        size = int(rng.integers(0 if rng.random() < 0.03 else 1, 5))
        clauses.append([int(v) * int(s) for v, s in zip(rng.integers(1, nvars + 1, size=size),
                                                        rng.choice([-1, 1], size=size),
                                                        strict=True)])
    # every variable occurs, so that the solver's models name them all
    clauses.append(list(range(1, nvars + 1)) + [-1])
    lits = np.array([x for c in clauses for x in c], dtype=np.int64)
    ends = np.cumsum([len(c) for c in clauses]).astype(np.int64)
    with SatRun([], solver, flat=(lits, ends)) as run:
        assert solver_models(run, nvars) == brute_force_models(clauses, nvars)


def test_add_flat_refuses_a_zero_literal_and_bad_offsets():
    with SatRun([]) as run, pytest.raises(EngineError, match="zero literal"):
        run.add_flat(np.array([1, 0, 2]), np.array([1, 3]))
    with SatRun([]) as run, pytest.raises(EngineError, match="offsets"):
        run.add_flat(np.array([1, 2]), np.array([1, 3]))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_sat_engine_takes_implications_as_an_array_or_as_tuples(seed):
    """Given the native root grid and its implications in either form, the SAT engine builds the
    same formula and finds every solution brute force finds."""
    rng = np.random.default_rng(seed)
    puzzle = random_puzzle(rng, 5, 5)
    search = NativeSearch(puzzle, limit=1)
    search.run_probes(0)
    root, tuples, pairs = (search.root_grid(), search.root_implications(),
                           search.root_implication_literals())
    expected = {s.tobytes() for s in brute_force_solutions(puzzle)}
    results = [SatEngine(implications=imp).solve(puzzle, partial=root, limit=len(expected) + 1)
               for imp in (tuples, pairs)]
    for result in results:
        assert {s.tobytes() for s in result.solutions} == expected
    assert results[0].stats["clauses"] == results[1].stats["clauses"]
    assert results[0].stats["implications"] == results[1].stats["implications"] == len(tuples)
    regular = SatEngine(encoding="regular", implications=pairs).solve(
        puzzle, partial=root, limit=len(expected) + 1)
    assert {s.tobytes() for s in regular.solutions} == expected
