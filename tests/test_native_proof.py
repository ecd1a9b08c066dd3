"""Proofs written by the native solver: its deduction trace as DRAT lemmas, checked by dratify.

The proofs are checked by a DRAT checker that shares no code with the native solver or the
encodings (dratify), against the formula re-derived from the clues; tampered proofs (a false
lemma, the refutation cut off) must be rejected.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nonosat.certificates import check_proof, verify_certificate
from nonosat.certificates.certifier import certify_puzzle
from nonosat.certificates.native_proof import Deletion, native_lemmas, proof_lines
from nonosat.cli.app import app
from nonosat.encodings.cnf import blocking_clause, encode
from nonosat.errors import EngineError, PuzzleError
from nonosat.formats import read_puzzle
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import GAMES, corpus_path, pictures

SURVEY = ("FastNonogramSolver", "puzzles", "survey")
runner = CliRunner()


def root_trace(puzzle: Puzzle):
    """The native solver's root node: its trace and, when complete, the grid it fixes."""
    search = NativeSearch(puzzle, limit=2)
    search.step(1)
    trace = search.trace()
    grid = search.root_grid() == Cell.FILLED if trace.complete else None
    return trace, grid


def native_proof(puzzle: Puzzle, encoding: str, **options):
    """(formula, nvars, NativeProof) for the uniqueness of a puzzle the root node decides."""
    trace, grid = root_trace(puzzle)
    assert trace.complete
    assert not puzzle.line_errors(grid)
    enc = encode(puzzle, encoding)
    formula = enc.clauses + [blocking_clause(grid)]
    return formula, enc.nvars, native_lemmas(enc, formula, trace.deductions, **options)


def text(steps) -> str:
    return "\n".join(proof_lines(steps)) + "\n"


def football() -> Puzzle:
    return read_puzzle(corpus_path("Nonogram", "games", "football.json"))


# -- line-solvable puzzles -----------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["regular", "order"])
def test_line_solvable_puzzles_get_a_unit_per_cell_and_check(encoding):
    for puzzle in (read_puzzle(GAMES / "heart.non"),
                   read_puzzle(corpus_path(*SURVEY, "webpbn-00006.nin"))):
        formula, nvars, proof = native_proof(puzzle, encoding)
        cells = puzzle.height * puzzle.width
        assert proof.stages == {"line": cells}
        assert proof.refutes and proof.filled == 0
        # one unit per cell, then the empty clause
        assert proof.steps[-1] == [] and all(len(s) == 1 for s in proof.steps[:-1])
        assert len(proof.steps) == cells + 1
        check = check_proof(formula, nvars, text(proof.steps), "dratify")
        assert check.ok, check.reason


def test_line_units_can_be_left_out_under_a_propagation_complete_encoding():
    puzzle = read_puzzle(GAMES / "heart.non")
    formula, nvars, proof = native_proof(puzzle, "regular", line_units=False)
    assert proof.steps == [[]]
    assert check_proof(formula, nvars, text(proof.steps), "dratify").ok


# -- probing -------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", [("Nonogram", "games", "football.json"),
                                  (*SURVEY, "webpbn-00023.nin")])
def test_probing_deductions_check_under_the_regular_encoding_without_help(path):
    puzzle = read_puzzle(corpus_path(*path))
    formula, nvars, proof = native_proof(puzzle, "regular", verify=False)
    assert proof.stages.get("failed-literal", 0) > 0 and proof.stages.get("probe-both", 0) > 0
    assert proof.filled == 0 and not proof.verified
    # each probe-both deduction: the binary clause, the unit, the binary clause deleted
    deleted = [s.clause for s in proof.steps if isinstance(s, Deletion)]
    assert len(deleted) == proof.stages["probe-both"]
    assert all(len(c) == 2 for c in deleted)
    check = check_proof(formula, nvars, text(proof.steps), "dratify")
    assert check.ok, check.reason


def test_probing_deductions_check_under_the_order_encoding_with_filled_gaps():
    puzzle = football()
    formula, nvars, proof = native_proof(puzzle, "order")
    assert proof.verified
    # two failed literals are not refuted by propagation on the order encoding
    assert proof.filled > 0
    check = check_proof(formula, nvars, text(proof.steps), "dratify")
    assert check.ok, check.reason


def test_the_proof_needs_its_probing_lemmas():
    """Without the lemmas the blocking clause is not refuted by propagation: the empty clause
    alone, or the line units alone, are rejected."""
    puzzle = football()
    formula, nvars, proof = native_proof(puzzle, "regular", verify=False)
    assert not check_proof(formula, nvars, "0\n", "dratify").ok
    first_probe = next(k for k, s in enumerate(proof.steps)
                       if not isinstance(s, Deletion) and len(s) == 2)
    cut = proof.steps[:first_probe] + [[]]
    assert not check_proof(formula, nvars, text(cut), "dratify").ok


def test_a_false_unit_lemma_is_rejected():
    """The opposite of a failed literal's conclusion, put where the conclusion is written (so
    that propagation has not fixed that cell yet), is neither RUP nor RAT."""
    puzzle = football()
    formula, nvars, proof = native_proof(puzzle, "regular", verify=False)
    trace, _ = root_trace(puzzle)
    failed = next(d for d in trace.deductions if d.stage == "failed-literal")
    lit = (failed.cell[0] * puzzle.width + failed.cell[1] + 1) * (
        1 if failed.value == Cell.FILLED else -1)
    k = proof.steps.index([lit])
    tampered = proof.steps[:k] + [[-lit]] + proof.steps[k:]
    check = check_proof(formula, nvars, text(tampered), "dratify")
    assert not check.ok
    assert f"step {k + 1}" in check.reason


def test_a_proof_cut_before_its_refutation_is_rejected():
    puzzle = football()
    formula, nvars, proof = native_proof(puzzle, "regular", verify=False)
    assert proof.steps[-1] == []
    check = check_proof(formula, nvars, text(proof.steps[:-1]), "dratify")
    assert not check.ok


# -- traces by duck typing -----------------------------------------------------------------------
def test_tuples_and_bad_deductions():
    puzzle = Puzzle([(1,), ()], [(1,), ()])
    enc = encode(puzzle, "order")
    formula = enc.clauses + [blocking_clause(np.array([[True, False], [False, False]]))]
    trace = [((0, 0), Cell.FILLED, "line", 0, None), ((1, 1), Cell.EMPTY, "line", 1, None),
             ((0, 1), Cell.EMPTY, "line", 0, None), ((1, 0), Cell.EMPTY, "line", 2, None)]
    proof = native_lemmas(enc, formula, trace)
    assert proof.refutes and check_proof(formula, enc.nvars, text(proof.steps)).ok
    with pytest.raises(PuzzleError, match="stage"):
        native_lemmas(enc, formula, [((0, 0), Cell.FILLED, "guess")])
    with pytest.raises(PuzzleError, match="value"):
        native_lemmas(enc, formula, [((0, 0), True, "line")])
    with pytest.raises(PuzzleError, match="outside"):
        native_lemmas(enc, formula, [((2, 0), Cell.FILLED, "line")])
    with pytest.raises(PuzzleError, match="probed cell"):
        native_lemmas(enc, formula, [((0, 0), Cell.FILLED, "probe-both")])
    # a deduction that does not follow from the clues
    with pytest.raises(EngineError, match="does not follow"):
        native_lemmas(enc, enc.clauses, [((0, 1), Cell.FILLED, "line")], verify=True)


def test_encodings_do_not_import_the_native_solver():
    code = ("import sys, nonosat.certificates.native_proof, nonosat.certificates\n"
            "print(' '.join(m for m in sys.modules if m.startswith('nonosat')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert not {"nonosat.native.search", "nonosat.native.probe", "nonosat.native.propagate", "nonosat.native.line"} & set(out)


# -- random pictures: every complete trace gives a proof dratify accepts -------------------------
PICTURES = pictures(3, 7)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PICTURES, st.sampled_from(["regular", "order"]))
def test_native_proofs_of_random_pictures_check(picture, encoding):
    puzzle = Puzzle.from_picture(picture)
    trace, grid = root_trace(puzzle)
    if not trace.complete:
        return  # several solutions or search needed: no native proof
    enc = encode(puzzle, encoding)
    formula = enc.clauses + [blocking_clause(grid)]
    proof = native_lemmas(enc, formula, trace.deductions)
    assert proof.refutes
    check = check_proof(formula, enc.nvars, text(proof.steps), "dratify")
    assert check.ok, (trace.stage_counts(), check.reason)


# -- provers through certify ---------------------------------------------------------------------
def test_auto_prover_continues_with_sat_after_the_native_prefix():
    """taai2011 #66 is the one unique puzzle of the set that the native solver decides only
    with search: the proof is the root deductions, then the SAT solver's."""
    puzzle = read_puzzle(corpus_path("NonogramRecord", "question", "taai2011.txt"), index=66)
    cert = certify_puzzle(puzzle, prover="auto")
    assert cert.verdict == "unique" and cert.prover == "native+sat"
    assert cert.proved and cert.stats["prefix_lemmas"] > 0
    assert not cert.stats["native"]["complete"]
    # the proof checks against the formula alone, the lemmas included
    assert check_proof(cert.formula, cert.nvars, cert.proof, "dratify").ok


def test_provers_agree_on_verdicts():
    for puzzle, verdict in ((Puzzle([(1,), (1,)], [(1,), (1,)]), "multiple"),
                            (read_puzzle(GAMES / "impossible.non"), "none"),
                            (read_puzzle(GAMES / "heart.non"), "unique")):
        for prover in ("auto", "sat"):
            cert = certify_puzzle(puzzle, prover=prover)
            assert cert.verdict == verdict, (puzzle.title, prover)
            assert verdict == "multiple" or cert.proved
    # several solutions need no proof, so no prover refuses them: the portfolio's two
    # solutions are the witness (a unique puzzle that needs search is refused: the CLI test)
    two = Puzzle([(1,), (1,)], [(1,), (1,)])
    cert = certify_puzzle(two, prover="native")
    assert cert.verdict == "multiple" and cert.proof is None
    assert len(cert.solutions) == 2 and all(two.is_solution(s) for s in cert.solutions)
    assert not np.array_equal(*cert.solutions)
    with pytest.raises(EngineError, match="unknown prover"):
        certify_puzzle(Puzzle([(1,)], [(1,)]), prover="magic")


def test_cli_native_prover_writes_a_certificate_that_verifies(tmp_path):
    out = tmp_path / "cert"
    result = runner.invoke(app, ["certify", str(football_path()), "--out", str(out),
                                 "--prover", "native", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "certificate.json").read_text())
    assert record["prover"] == "native" and record["certified"]
    assert json.loads(result.output)["prover"] == "native"
    assert verify_certificate(out).ok
    assert runner.invoke(app, ["verify-certificate", str(out)]).exit_code == 0


def test_cli_native_prover_refuses_a_puzzle_that_needs_search(tmp_path):
    """Not bad input (exit 2) but a prover that cannot prove this puzzle: its own exit code."""
    result = runner.invoke(app, ["certify", str(corpus_path(*SURVEY, "webpbn-06574.nin")),
                                 "--out", str(tmp_path / "c"), "--prover", "native"])
    assert result.exit_code == 5
    assert "needs search" in result.output
    assert not (tmp_path / "c").exists()


def football_path():
    return corpus_path("Nonogram", "games", "football.json")
