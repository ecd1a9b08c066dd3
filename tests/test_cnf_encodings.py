"""CNF line encodings against brute force: exact models, and propagation completeness.

The brute-force line solver here enumerates every pattern of a line; it shares no code with the
encodings (only :func:`nonosat.puzzle.line_blocks`, the definition of a clue).
"""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from nonosat.encodings.cnf import (
    DEFAULT_ENCODING,
    ENCODING_VERSIONS,
    PROPAGATION_COMPLETE,
    blocking_clause,
    encode,
    line_clauses,
    write_dimacs,
)
from nonosat.errors import PuzzleError
from nonosat.puzzle import Cell, Puzzle, line_blocks
from tests.conftest import pictures

ENCODINGS = sorted(ENCODING_VERSIONS)


# -- brute force ---------------------------------------------------------------------------------
def patterns(clue: tuple[int, ...], n: int) -> set[tuple[bool, ...]]:
    """Every line of ``n`` cells whose blocks are ``clue``."""
    return {p for p in itertools.product((False, True), repeat=n) if line_blocks(p) == clue}


def line_solve(clue: tuple[int, ...], known: dict[int, bool], n: int) -> dict[int, bool] | None:
    """Complete line solver by enumeration: the cells every completion agrees on, or ``None``
    when no completion of ``known`` matches ``clue``."""
    compatible = [p for p in patterns(clue, n) if all(p[i] == v for i, v in known.items())]
    if not compatible:
        return None
    return {i: compatible[0][i] for i in range(n) if len({p[i] for p in compatible}) == 1}


def line_formula(clue, n, encoding):
    clauses, _ = line_clauses(clue, list(range(1, n + 1)), n + 1, encoding)
    return clauses


def all_models(clauses, nvars):
    """Every model of ``clauses`` over variables 1..nvars (full assignments)."""
    models = []
    with Solver(name="m22", bootstrap_with=clauses) as s:
        for v in range(1, nvars + 1):
            s.add_clause([v, -v])  # make every variable known to the solver
        while s.solve():
            m = s.get_model()[:nvars]
            models.append(m)
            s.add_clause([-lit for lit in m])
    return models


def unit_propagate(clauses, assumptions):
    """Unit propagation with PySAT's ``propagate``: ``None`` on a conflict, else the set of
    literals implied.  Unit clauses are passed as assumptions so that nothing is assigned at
    decision level 0 (which ``propagate`` does not report)."""
    units = [c[0] for c in clauses if len(c) == 1]
    rest = [c for c in clauses if len(c) != 1]
    if any(len(c) == 0 for c in clauses):
        return None
    with Solver(name="m22", bootstrap_with=rest) as s:
        ok, implied = s.propagate(assumptions=units + list(assumptions))
    return set(implied) if ok else None


clue_and_length = st.integers(min_value=1, max_value=8).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, n), max_size=(n + 1) // 2).map(tuple).filter(
            lambda c: sum(c) + len(c) - 1 <= n
        ),
        st.just(n),
    )
)


# -- exact models --------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=60, deadline=None)
@given(clue_and_length)
def test_models_projected_on_cells_are_exactly_the_matching_patterns(encoding, cn):
    clue, n = cn
    clauses = line_formula(clue, n, encoding)
    nvars = max([n] + [abs(lit) for c in clauses for lit in c])
    models = all_models(clauses, nvars)
    projected = [tuple(lit > 0 for lit in m[:n]) for m in models]
    assert set(projected) == patterns(clue, n)
    if encoding in ("order", "regular"):
        # auxiliary variables are functions of the cells: one model per pattern
        assert len(projected) == len(set(projected))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_clue_of_every_short_line_is_exact(encoding):
    for n in range(1, 7):
        by_clue: dict[tuple[int, ...], set] = {}
        for p in itertools.product((False, True), repeat=n):
            by_clue.setdefault(line_blocks(p), set()).add(p)
        for clue, expected in by_clue.items():
            clauses = line_formula(clue, n, encoding)
            nvars = max([n] + [abs(lit) for c in clauses for lit in c])
            got = {tuple(lit > 0 for lit in m[:n]) for m in all_models(clauses, nvars)}
            assert got == expected, (clue, n)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_clue_that_does_not_fit_gives_the_empty_clause(encoding):
    assert [] in line_formula((3, 2), 5, encoding)


def test_unknown_clue_gives_no_clauses():
    assert line_formula(None, 5, "regular") == []
    puzzle = Puzzle([None, (1,)], [None, None, None])
    enc = encode(puzzle, "order")
    assert enc.nvars >= 6
    assert all(abs(lit) in (4, 5, 6) or abs(lit) > 6 for c in enc.clauses for lit in c)


# -- propagation completeness --------------------------------------------------------------------
partial_line = clue_and_length.flatmap(
    lambda cn: st.tuples(
        st.just(cn[0]),
        st.just(cn[1]),
        st.lists(st.sampled_from([None, False, True]), min_size=cn[1], max_size=cn[1]),
    )
)


def check_propagation(encoding, clue, n, values):
    clauses = line_formula(clue, n, encoding)
    known = {i: v for i, v in enumerate(values) if v is not None}
    assumptions = [i + 1 if v else -(i + 1) for i, v in known.items()]
    implied = unit_propagate(clauses, assumptions)
    expected = line_solve(clue, known, n)
    if expected is None:
        return implied is None
    if implied is None:
        return False
    cells = {abs(lit) - 1: lit > 0 for lit in implied if abs(lit) <= n}
    return cells == expected


@pytest.mark.parametrize("encoding", sorted(PROPAGATION_COMPLETE))
@settings(max_examples=300, deadline=None)
@given(partial_line)
def test_unit_propagation_derives_exactly_what_the_line_solver_forces(encoding, line):
    clue, n, values = line
    assert check_propagation(encoding, clue, n, values)


@pytest.mark.parametrize("encoding", sorted(PROPAGATION_COMPLETE))
def test_unit_propagation_detects_every_contradiction_of_short_lines(encoding):
    n = 5
    for clue in {line_blocks(p) for p in itertools.product((False, True), repeat=n)}:
        for values in itertools.product([None, False, True], repeat=n):
            assert check_propagation(encoding, clue, n, values), (clue, values)


@pytest.mark.parametrize("encoding", sorted(set(ENCODINGS) - PROPAGATION_COMPLETE))
def test_encodings_not_claimed_complete_really_are_not(encoding):
    """The docstring says these are not propagation-complete; show a line where they miss."""
    n = 6
    for clue in {line_blocks(p) for p in itertools.product((False, True), repeat=n)}:
        for values in itertools.product([None, False, True], repeat=n):
            if not check_propagation(encoding, clue, n, values):
                return
    pytest.fail(f"{encoding} matched the line solver on every line of {n} cells")


# -- whole puzzles -------------------------------------------------------------------------------
def brute_force_solutions(puzzle: Puzzle) -> list[np.ndarray]:
    h, w = puzzle.shape
    rows = [
        [np.array(p) for p in itertools.product((False, True), repeat=w)
         if clue is None or line_blocks(p) == clue]
        for clue in puzzle.rows
    ]
    return [np.array(g) for g in itertools.product(*rows) if puzzle.is_solution(np.array(g))]


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=25, deadline=None)
@given(
    pictures(1, 4)
)
def test_puzzle_models_are_the_brute_force_solutions(encoding, picture):
    puzzle = Puzzle.from_picture(picture)
    enc = encode(puzzle, encoding)
    found = []
    with Solver(name="cd195", bootstrap_with=enc.clauses) as s:
        while s.solve():
            sol = enc.solution(s.get_model())
            found.append(sol)
            s.add_clause(blocking_clause(sol))
    expected = brute_force_solutions(puzzle)
    assert sorted(map(bytes, map(np.packbits, found))) == sorted(
        map(bytes, map(np.packbits, expected))
    )


def test_cells_are_numbered_row_major_for_every_encoding():
    puzzle = Puzzle.from_picture([[True, False, False], [True, True, False]])
    for encoding in ENCODINGS:
        enc = encode(puzzle, encoding)
        assert [enc.cell_var(r, c) for r in range(2) for c in range(3)] == [1, 2, 3, 4, 5, 6]
        assert all(enc.pool.id(("cell", r, c)) == r * 3 + c + 1
                   for r in range(2) for c in range(3))
        with Solver(name="cd195", bootstrap_with=enc.clauses) as s:
            assert s.solve()
            assert s.get_model()[:6] == [1, -2, -3, 4, 5, -6]


def test_partial_state_enters_as_unit_clauses():
    puzzle = Puzzle([(1,), (1,)], [(1,), (1,)])  # two solutions (the diagonals)
    partial = np.full((2, 2), Cell.UNKNOWN, dtype=np.int8)
    partial[0, 0] = Cell.FILLED
    partial[1, 0] = Cell.EMPTY
    enc = encode(puzzle, "regular", partial)
    assert [1] in enc.clauses and [-3] in enc.clauses
    with Solver(name="cd195", bootstrap_with=enc.clauses) as s:
        assert s.solve()
        assert enc.solution(s.get_model()).tolist() == [[True, False], [False, True]]
        s.add_clause(blocking_clause(enc.solution(s.get_model())))
        assert not s.solve()
    partial[0, 0] = Cell.CONFLICT
    with Solver(name="cd195", bootstrap_with=encode(puzzle, "order", partial).clauses) as s:
        assert not s.solve()


def test_partial_state_of_the_wrong_shape_is_refused():
    with pytest.raises(PuzzleError, match="partial grid"):
        encode(Puzzle([(1,)], [(1,)]), partial=np.full((2, 2), 3, dtype=np.int8))


def test_unknown_encoding_is_refused_with_the_choices():
    with pytest.raises(PuzzleError, match="regular"):
        encode(Puzzle([(1,)], [(1,)]), "magic")


def test_dimacs_maps_cells_to_variables_and_parses_back():
    from dratify import parse_dimacs

    puzzle = Puzzle.from_picture([[True, False], [True, True]])
    enc = encode(puzzle, DEFAULT_ENCODING)
    buf = io.StringIO()
    write_dimacs(enc, buf, extra=[[-1, 2, -3, -4]])
    text = buf.getvalue()
    assert "c cell 1 0 -> 3\n" in text
    assert f"c encoding {DEFAULT_ENCODING} version" in text
    assert f"p cnf {enc.nvars} {len(enc.clauses) + 1}\n" in text
    parsed = parse_dimacs(text, strict=True)
    assert len(parsed.clauses) == len(enc.clauses) + 1
    assert parsed.nvars == enc.nvars
