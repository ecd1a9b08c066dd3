"""The compiled unit propagator that checks proof lemmas and writes their LRAT hints
(:mod:`nonosat.certificates.rup`), against an independent propagator (MiniSat's, through PySAT)
and judged by cake_lpr, the formally verified LRAT checker, on random formulas."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from nonosat.certificates.checkers import _dimacs_body
from nonosat.certificates.rup import RupChecker

NVARS = 6
literals = st.integers(1, NVARS).flatmap(lambda v: st.sampled_from([v, -v]))
clauses = st.lists(literals, min_size=1, max_size=3, unique_by=abs)
formulas = st.lists(clauses, min_size=1, max_size=18)


def propagation_conflict(formula, assumptions=()) -> bool:
    """MiniSat: does unit propagation of ``formula`` under ``assumptions`` find a conflict?"""
    with Solver(name="minisat22", bootstrap_with=formula) as solver:
        ok, _ = solver.propagate(assumptions=list(assumptions))
    return not ok


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas, st.lists(clauses, max_size=8))
def test_rup_verdicts_agree_with_minisat(formula, candidates):
    rup = RupChecker(formula, NVARS)
    assert rup.refuted == propagation_conflict(formula)
    database = list(formula)
    for lemma in candidates:
        expected = propagation_conflict(database, [-lit for lit in lemma])
        assert (rup.run([lemma]) == 1) == expected, (database, lemma)
        if expected:
            database.append(lemma)
        assert rup.refuted == propagation_conflict(database)


def test_a_lemma_that_is_not_rup_stops_the_run():
    rup = RupChecker([[1, 2], [-1, 2]], 2)
    # [2] is RUP; [1] is not (the formula has a model with 1 false); [2] is not reached
    assert rup.run([[2], [1], [-1, 2]]) == 1
    assert rup.lemmas == 1
    assert rup.lrat() == "3 2 0 1 2 0\n"


def test_deletions_and_skipped_units():
    rup = RupChecker([[1, 2], [-1, 2], [-2, 3]], 3, skip_implied=True)
    # [2] is RUP and new; [3] then follows by propagation: left out; the binary is deleted
    assert rup.run([[2], [3], [1, 3], [1, 3]], [False, False, False, True]) == 4
    assert list(rup.skipped) == [0, 1, 0, 0]
    assert rup.drat() == "2 0\n1 3 0\nd 1 3 0\n"
    assert rup.lrat().splitlines()[-1] == "5 d 5 0"


@pytest.fixture
def cake_lpr(proof_checkers):
    return proof_checkers / "cake_lpr"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(formulas, st.lists(clauses, max_size=10), st.booleans())
def test_cake_lpr_accepts_the_lrat_of_refutations(cake_lpr, tmp_path, formula, candidates,
                                                    skip_implied):
    """Keep the candidate lemmas that MiniSat's propagation says are RUP; when the formula and
    they are refuted by propagation, the LRAT proof (with the empty clause) must be accepted by
    the verified checker, and one with the empty clause's hints cut short must not."""
    rup = RupChecker(formula, NVARS, skip_implied=skip_implied)
    database = list(formula)
    for lemma in candidates:
        if rup.refuted:
            break
        if propagation_conflict(database, [-lit for lit in lemma]):
            assert rup.run([lemma]) == 1
            database.append(lemma)
    if not propagation_conflict(database):
        return
    assert rup.run([[]]) == 1
    lrat = rup.lrat()
    cnf = tmp_path / "f.cnf"
    cnf.write_text(_dimacs_body(formula, NVARS))
    proof = tmp_path / "p.lrat"
    proof.write_text(lrat)
    out = subprocess.run([str(cake_lpr), str(cnf), str(proof)], capture_output=True, text=True)
    assert "s VERIFIED UNSAT" in out.stdout, (formula, lrat, out.stdout, out.stderr)
    # the empty clause's line without its last hint (the falsified clause): rejected
    lines = lrat.splitlines()
    last = lines[-1].split()
    hints = last[2:-1]
    lines[-1] = " ".join([last[0], "0", *hints[:-1], "0"])
    proof.write_text("\n".join(lines) + "\n")
    out = subprocess.run([str(cake_lpr), str(cnf), str(proof)], capture_output=True, text=True)
    assert "s VERIFIED UNSAT" not in out.stdout, (formula, lines)
