"""Uniqueness certificates: unique, ambiguous and impossible puzzles; every tampering detected."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.certificates import (
    CERTIFICATE_FILE,
    CNF_FILE,
    LRAT_FILE,
    PROOF_FILE,
    PUZZLE_FILE,
    SOLUTION_FILE,
    certify,
    check_proof,
    verify_certificate,
    write_certificate,
)
from nonosat.cli.app import app
from nonosat.encodings.cnf import blocking_clause, encode
from nonosat.errors import FormatError
from nonosat.puzzle import Puzzle, grid_rows
from tests.conftest import corpus_path

SURVEY = ("FastNonogramSolver", "puzzles", "survey")
HEART = Puzzle.from_picture(
    [[0, 1, 1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 0],
     [0, 0, 1, 1, 1, 0, 0], [0, 0, 0, 1, 0, 0, 0]],
    title="heart",
)
AMBIGUOUS = Puzzle([(1,), (1,)], [(1,), (1,)])
IMPOSSIBLE = Puzzle([(2,), ()], [(2,), ()])
runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def read_survey(name: str) -> Puzzle:
    from nonosat.formats import read_puzzle

    return read_puzzle(corpus_path(*SURVEY, name))


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    """A certificate whose proof comes from the SAT solver (#23 is not solved by propagation)."""
    out = tmp_path_factory.mktemp("cert") / "c23"
    cert = certify(read_survey("webpbn-00023.nin"), encoding="order")
    assert cert.stats["prove"]["method"] == "sat" and cert.stats["lemmas"] > 10
    write_certificate(cert, out)
    return out


def copy_dir(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    return dst


def rehash(cert_dir: Path) -> None:
    """What a forger would also do: record the tampered files' hashes in certificate.json."""
    import hashlib

    path = cert_dir / CERTIFICATE_FILE
    record = json.loads(path.read_text())
    for name in record["files"]:
        record["files"][name] = hashlib.sha256((cert_dir / name).read_bytes()).hexdigest()
    path.write_text(json.dumps(record))


# -- verdicts ------------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["order", "regular", "dfa"])
def test_unique_puzzle_is_certified_and_verified(tmp_path, encoding):
    cert = certify(HEART, encoding=encoding)
    assert cert.verdict == "unique" and cert.proved
    assert (cert.solutions[0] == HEART.goal).all()
    assert cert.formula[-1] == blocking_clause(HEART.goal)
    files = write_certificate(cert, tmp_path / "c")
    # every certificate carries its LRAT, made in-process
    assert {f.name for f in files} == {PUZZLE_FILE, CNF_FILE, PROOF_FILE, LRAT_FILE,
                                       SOLUTION_FILE, CERTIFICATE_FILE}
    record = json.loads((tmp_path / "c" / CERTIFICATE_FILE).read_text())
    assert record["lrat"]["source"] in ("nonosat", "cadical", "nonosat+cadical")
    assert record["verdict"] == "unique" and record["certified"] is True
    assert record["puzzle"]["sha256"] == HEART.fingerprint()
    assert record["encoding"] == {"name": encoding, "version": cert.encoding_version}
    assert record["solution"] == grid_rows(HEART.goal)
    assert [(c["checker"], c["ok"]) for c in record["checkers"]] == [
        ("nonosat-lrat", True), ("drat-lrat-agreement", True)]
    assert record["proof"]["lemmas"] >= 1 and set(record["times_s"]) >= {"solve", "prove", "total"}
    result = verify_certificate(tmp_path / "c")
    assert result.ok, result.problems
    assert result.verdict == "unique"


def test_search_proof_is_text_drat_that_checks(searched):
    proof = (searched / PROOF_FILE).read_text(encoding="ascii")
    lines = proof.splitlines()
    assert lines[-1] == "0" and len(lines) > 10
    for line in lines:  # text DRAT: optional "d", DIMACS literals, terminating 0
        tokens = line.split()
        tokens = tokens[1:] if tokens[0] == "d" else tokens
        assert tokens[-1] == "0" and all(int(t) != 0 for t in tokens[:-1])
    assert verify_certificate(searched).ok


def test_ambiguous_puzzle_gets_two_solutions_as_witness(tmp_path):
    cert = certify(AMBIGUOUS)
    assert cert.verdict == "multiple" and not cert.proved and cert.proof is None
    assert len(cert.solutions) == 2 and not np.array_equal(*cert.solutions)
    assert all(AMBIGUOUS.is_solution(s) for s in cert.solutions)
    out = cli("certify", _write_json(tmp_path, AMBIGUOUS), "--out", tmp_path / "c")
    assert out.exit_code == 1, out.output
    assert "several solutions" in out.output
    assert not (tmp_path / "c" / PROOF_FILE).exists()
    result = verify_certificate(tmp_path / "c")
    assert result.ok and result.verdict == "multiple"
    assert cli("verify-certificate", tmp_path / "c").exit_code == 1


def test_impossible_puzzle_gets_a_proof_of_unsatisfiability(tmp_path):
    cert = certify(IMPOSSIBLE)
    assert cert.verdict == "none" and cert.proved and not cert.solutions
    assert cert.formula == encode(IMPOSSIBLE, cert.encoding).clauses
    out = cli("certify", _write_json(tmp_path, IMPOSSIBLE), "--out", tmp_path / "c")
    assert out.exit_code == 3, out.output
    assert not (tmp_path / "c" / SOLUTION_FILE).exists()
    assert cli("verify-certificate", tmp_path / "c").exit_code == 3


def test_impossible_puzzle_that_needs_search(tmp_path):
    # a unique puzzle plus one clue changed so that it has no solution, found only by search
    rows = list(read_survey("webpbn-00023.nin").rows)
    cols = list(read_survey("webpbn-00023.nin").cols)
    rows[0], rows[1] = rows[1], rows[0]
    try:
        puzzle = Puzzle(rows, cols)
    except Exception:  # pragma: no cover - the swap keeps the totals
        pytest.skip("swapped clues do not form a puzzle")
    cert = certify(puzzle, encoding="order")
    if cert.verdict != "none":
        pytest.skip("the swapped puzzle still has a solution")
    assert cert.proved
    write_certificate(cert, tmp_path / "c")
    assert verify_certificate(tmp_path / "c").ok


def _write_json(tmp_path: Path, puzzle: Puzzle) -> Path:
    path = tmp_path / "puzzle.json"
    path.write_text(json.dumps({"rows": [list(c) for c in puzzle.rows],
                                "cols": [list(c) for c in puzzle.cols]}))
    return path


# -- the acceptance scenario ---------------------------------------------------------------------
def test_cat_certificate_round_trip_and_tampering(tmp_path):
    cat = corpus_path(*SURVEY, "webpbn-00006.nin")
    out = tmp_path / "cat"
    made = cli("certify", cat, "--out", out)
    assert made.exit_code == 0, made.output
    assert "certified" in made.output and "nonosat-lrat 1: accepted" in made.output
    assert cli("verify-certificate", out).exit_code == 0

    one_cell = copy_dir(out, tmp_path / "one-cell")
    text = (one_cell / SOLUTION_FILE).read_text()
    k = text.index("#")
    (one_cell / SOLUTION_FILE).write_text(text[:k] + "." + text[k + 1:])
    bad = cli("verify-certificate", one_cell)
    assert bad.exit_code == 1 and SOLUTION_FILE in bad.output

    dropped = copy_dir(out, tmp_path / "dropped")
    lines = (dropped / PROOF_FILE).read_text().splitlines(keepends=True)
    (dropped / PROOF_FILE).write_text("".join(lines[:-1]))
    bad = cli("verify-certificate", dropped)
    assert bad.exit_code == 1 and PROOF_FILE in bad.output
    rehash(dropped)  # caught by the proof check too, not only by the recorded hash
    bad = cli("verify-certificate", dropped)
    assert bad.exit_code == 1 and "never adds the empty clause" in bad.output

    again = cli("certify", cat, "--out", out)
    assert again.exit_code == 2 and "--force" in again.output
    assert cli("certify", cat, "--out", out, "--force").exit_code == 0


# -- tampering, file by file ---------------------------------------------------------------------
def test_one_cell_change_of_the_solution_is_detected_even_with_rehashed_files(searched, tmp_path):
    d = copy_dir(searched, tmp_path / "d")
    rows = (d / SOLUTION_FILE).read_text().splitlines()
    rows[3] = rows[3][:2] + ("." if rows[3][2] == "#" else "#") + rows[3][3:]
    (d / SOLUTION_FILE).write_text("\n".join(rows) + "\n")
    assert not verify_certificate(d).ok
    rehash(d)
    result = verify_certificate(d)
    assert not result.ok
    assert any("row 4 should be" in p for p in result.problems), result.problems


def test_dropped_proof_line_is_detected(searched, tmp_path):
    d = copy_dir(searched, tmp_path / "d")
    lines = (d / PROOF_FILE).read_text().splitlines(keepends=True)
    (d / PROOF_FILE).write_text("".join(lines[:5] + lines[6:]))
    result = verify_certificate(d)
    assert not result.ok and any(PROOF_FILE in p for p in result.problems)


@pytest.mark.parametrize("cut", ["last line", "second half"])
def test_proof_cut_short_fails_the_checker_itself(searched, tmp_path, cut):
    d = copy_dir(searched, tmp_path / "d")
    lines = (d / PROOF_FILE).read_text().splitlines(keepends=True)
    kept = lines[:-1] if cut == "last line" else lines[: len(lines) // 2]
    (d / PROOF_FILE).write_text("".join(kept))
    rehash(d)
    result = verify_certificate(d)
    assert not result.ok
    # proof.lrat is intact: the agreement check sees that proof.drat no longer has its lemmas
    assert any("is not the LRAT form of proof.drat" in p for p in result.problems), (
        result.problems)
    result = verify_certificate(d, ["dratify"])
    assert any("rejected by dratify" in p for p in result.problems), result.problems


def test_false_lemma_in_the_proof_is_rejected(searched, tmp_path):
    d = copy_dir(searched, tmp_path / "d")
    solution = np.array([[c == "#" for c in r] for r in (d / SOLUTION_FILE).read_text().split()])
    wrong = -1 if solution[0, 0] else 1  # the opposite of cell (0, 0) of the unique solution
    (d / PROOF_FILE).write_text(f"{wrong} 0\n" + (d / PROOF_FILE).read_text())
    rehash(d)
    result = verify_certificate(d, ["dratify"])
    assert not result.ok and any("step 1" in p for p in result.problems), result.problems
    # the default check rests on proof.lrat, which still refutes the formula on its own: a
    # DRAT lemma added before the LRAT's lemmas is no reason to doubt the verdict
    assert verify_certificate(d).ok


def test_edited_cnf_is_detected_by_rederiving_it(searched, tmp_path):
    d = copy_dir(searched, tmp_path / "d")
    lines = (d / CNF_FILE).read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith("p cnf")) + 10
    lits = lines[k].split()
    lits[0] = str(-int(lits[0]))
    lines[k] = " ".join(lits) + "\n"
    (d / CNF_FILE).write_text("".join(lines))
    rehash(d)
    result = verify_certificate(d)
    assert not result.ok and any(f"{CNF_FILE}: clause 10 differs" in p for p in result.problems)
    # the proof is checked against the re-derived formula, never the file: dropping the
    # blocking clause from the file does not make the check pass for the wrong formula
    (d / CNF_FILE).write_text("".join(lines[:-1]))
    rehash(d)
    assert not verify_certificate(d).ok


def test_edited_puzzle_is_detected(searched, tmp_path):
    d = copy_dir(searched, tmp_path / "d")
    obj = json.loads((d / PUZZLE_FILE).read_text())
    obj["rows"][0], obj["rows"][1] = obj["rows"][1], obj["rows"][0]
    (d / PUZZLE_FILE).write_text(json.dumps(obj))
    result = verify_certificate(d)
    assert not result.ok and any("fingerprint" in p for p in result.problems)
    # a forger who also fixes the fingerprint and hashes is caught by the clues themselves
    record = json.loads((d / CERTIFICATE_FILE).read_text())
    record["puzzle"]["sha256"] = Puzzle(obj["rows"], obj["cols"]).fingerprint()
    (d / CERTIFICATE_FILE).write_text(json.dumps(record))
    rehash(d)
    result = verify_certificate(d)
    assert not result.ok and any("should be" in p for p in result.problems), result.problems


def test_edited_record_is_detected(searched, tmp_path):
    d = copy_dir(searched, tmp_path / "d")
    record = json.loads((d / CERTIFICATE_FILE).read_text())
    record["verdict"] = "multiple"
    (d / CERTIFICATE_FILE).write_text(json.dumps(record))
    assert not verify_certificate(d).ok
    record["verdict"] = "unique"
    record["encoding"]["version"] += 1
    (d / CERTIFICATE_FILE).write_text(json.dumps(record))
    result = verify_certificate(d)
    assert not result.ok and any("cannot be re-derived" in p for p in result.problems)
    (d / CERTIFICATE_FILE).write_text("{not json")
    assert not verify_certificate(d).ok


def test_missing_or_invalid_directory(tmp_path):
    with pytest.raises(FormatError):
        verify_certificate(tmp_path / "nowhere")
    assert cli("verify-certificate", tmp_path / "nowhere").exit_code == 2
    (tmp_path / "empty").mkdir()
    assert cli("verify-certificate", tmp_path / "empty").exit_code == 1


# -- proof failure, prefixes, checkers -----------------------------------------------------------
def test_no_vacuous_lemmas_when_propagation_refutes():
    """Line-solvable puzzles: the CNF plus the blocking clause is refuted by unit propagation,
    so the proof is the empty clause alone and the prover is never asked (issue 18)."""
    calls = []

    def line_solver(enc, formula):
        calls.append(1)
        return [[]]

    for encoding in ("regular", "order"):
        cert = certify(HEART, encoding=encoding, prover=line_solver)
        assert cert.proved and cert.proof == "0\n" and cert.prover == "propagation"
        assert cert.stats["prove"]["method"] == "unit propagation"
    assert not calls


@pytest.mark.corpus
def test_proof_prefix_from_another_prover():
    """A prover's lemmas come first in the proof and the SAT solver goes on from them (on Merka,
    which unit propagation does not refute; the lemmas are copies of formula clauses, so they
    are RUP whatever the order)."""
    merka = read_survey("webpbn-01611.nin")

    def partial(enc, formula):  # a prefix without the empty clause: the SAT solver goes on
        return [list(c) for c in formula[:5]]

    cert = certify(merka, encoding="order", prover=partial)
    assert cert.proved and cert.prover == "native+sat" and cert.stats["prefix_lemmas"] == 5
    first = [list(c) for c in encode(merka, "order").clauses[:5]]
    assert cert.proof.splitlines()[:5] == [" ".join(map(str, c)) + " 0" for c in first]

    # a false lemma (the opposite of a solution cell) on a puzzle that propagation alone does
    # not refute
    puzzle = read_survey("webpbn-00023.nin")
    solution = certify(puzzle, encoding="order").solutions[0]

    def liar(enc, formula):
        return [[-1 if solution[0, 0] else 1]]

    cert = certify(puzzle, encoding="order", prover=liar, checkers=("dratify",))
    assert cert.verdict == "unique" and not cert.proved
    # no LRAT can be made of a proof whose first lemma is not RUP (no drat-trim here)
    assert cert.lrat is None
    assert [(c.checker, c.ok) for c in cert.checks][0] == ("nonosat-lrat", False)
    assert "step 1" in next(c.reason for c in cert.checks if c.checker == "dratify")


def test_rejected_proof_exits_1_and_keeps_the_files(tmp_path, monkeypatch):
    import nonosat.certificates.prove as certificate

    # a proof cut down to the empty clause, on a puzzle that propagation alone does not refute
    monkeypatch.setattr(certificate, "_proof_text", lambda lemmas, lines: "0\n")
    monkeypatch.setattr(certificate.RupChecker, "drat", lambda self: "0\n")
    out = cli("certify", corpus_path(*SURVEY, "webpbn-00023.nin"), "--out", tmp_path / "c",
              "--encoding", "order")
    assert out.exit_code == 1 and "REJECTED" in out.output
    record = json.loads((tmp_path / "c" / CERTIFICATE_FILE).read_text())
    assert record["certified"] is False and not all(c["ok"] for c in record["checkers"])
    assert (tmp_path / "c" / PROOF_FILE).read_text() == "0\n"
    assert cli("verify-certificate", tmp_path / "c").exit_code == 1


def test_drat_trim_is_run_when_asked(tmp_path, monkeypatch):
    """A stand-in drat-trim on PATH (it calls dratify): checks the invocation and the parsing of
    the 's VERIFIED' verdict line."""
    fake = tmp_path / "bin" / "drat-trim"
    fake.parent.mkdir()
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from dratify import check_proof, parse_dimacs\n"
        "ok = check_proof(parse_dimacs(open(sys.argv[1]).read()), open(sys.argv[2]).read()).ok\n"
        "print('c stand-in drat-trim')\n"
        "print('s VERIFIED' if ok else 's NOT VERIFIED')\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    enc = encode(HEART, "order")
    formula = enc.clauses + [blocking_clause(HEART.goal)]
    assert check_proof(formula, enc.nvars, "0\n", "drat-trim").ok
    refuted = check_proof(enc.clauses, enc.nvars, "0\n", "drat-trim")
    assert not refuted.ok and "NOT VERIFIED" in refuted.reason
    out = cli("certify", _write_json(tmp_path, HEART), "--out", tmp_path / "c",
              "--checker", "dratify", "--checker", "drat-trim")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert any(line.startswith("  drat-trim sha256:") and "accepted" in line for line in lines)
    assert any(line.startswith("  dratify ") and "accepted" in line for line in lines)
    assert cli("verify-certificate", tmp_path / "c", "--checker", "drat-trim").exit_code == 0


def test_drat_trim_missing_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("NONOSAT_CHECKER_PATH", raising=False)
    out = cli("certify", _write_json(tmp_path, HEART), "--out", tmp_path / "c",
              "--checker", "drat-trim")
    assert out.exit_code == 2 and "drat-trim not found" in out.output


def test_timeout_writes_nothing_and_exits_4(tmp_path):
    # Faase: the portfolio needs seconds to find its second solution (Knotty's takes 0.5 s now)
    faase = corpus_path(*SURVEY, "faase.nin")
    out = cli("certify", faase, "--out", tmp_path / "c", "--timeout", "0.5")
    assert out.exit_code == 4, out.output
    assert not (tmp_path / "c").exists()


def test_force_replaces_a_certificate_and_removes_stale_files(tmp_path):
    write_certificate(certify(HEART), tmp_path / "c")
    (tmp_path / "c" / "notes.txt").write_text("mine")
    with pytest.raises(FormatError, match="--force"):
        write_certificate(certify(IMPOSSIBLE), tmp_path / "c")
    write_certificate(certify(IMPOSSIBLE), tmp_path / "c", force=True)
    assert not (tmp_path / "c" / SOLUTION_FILE).exists()
    assert (tmp_path / "c" / "notes.txt").read_text() == "mine"
    assert verify_certificate(tmp_path / "c").verdict == "none"


def test_encode_command_writes_dimacs(tmp_path):
    src = _write_json(tmp_path, HEART)
    out = cli("encode", src, "--out", tmp_path / "h.cnf", "--encoding", "order")
    assert out.exit_code == 0, out.output
    text = (tmp_path / "h.cnf").read_text()
    assert "c cell 5 3 -> 39\n" in text and "c encoding order version 1\n" in text
    assert cli("encode", src, "--out", tmp_path / "h.cnf").exit_code == 2
    state = tmp_path / "state.txt"
    state.write_text("#??????\n" + "???????\n" * 5)
    assert cli("encode", src, "--out", tmp_path / "h.cnf", "--force", "--state", state,
               "--encoding", "order").exit_code == 0
    assert (tmp_path / "h.cnf").read_text().rstrip().endswith("\n1 0")
    assert cli("encode", src, "--out", tmp_path / "x.cnf", "--encoding", "nope").exit_code == 2


@pytest.mark.parametrize("solver", ["Glucose4", "MapleChrono", "Cadical153"])
def test_other_proof_logging_solvers(searched, solver):
    cert = certify(read_survey("webpbn-00023.nin"), encoding="order", solver=solver)
    assert cert.proved and cert.stats["prove"]["method"] == "sat"


def test_solver_without_proof_logging_is_refused(tmp_path):
    out = cli("certify", _write_json(tmp_path, HEART), "--out", tmp_path / "c",
              "--sat-solver", "minisat22")
    assert out.exit_code == 2 and "cannot log DRAT proofs" in out.output
    assert "Exception ignored" not in out.output
