"""Forged and mutated proofs (issue 24): nonosat's own LRAT checker
(:mod:`nonosat.certificates.lrat_check`) rejects each one, for the reason expected, and never
accepts a proof that cake_lpr (the formally verified checker, built by ``proof_checkers``)
rejects.  Real proofs come from PySAT's CaDiCaL through ``drat-trim -L`` and from nonosat's own
certificates."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonosat.certificates.lrat_check import (
    CHECKER_NAME,
    CHECKER_VERSION,
    LratCheck,
    ProofTooLargeError,
    check_lrat,
    lemmas_agree,
)
from nonosat.errors import NonosatError
from tests.proof_mutations import ALWAYS_REJECTED, KINDS, mutate

FORGED = Path(__file__).resolve().parent / "forged"

#: Satisfiable: x1 = true, x2 = false.
SAT_CNF = [[1, 2], [-2]]
#: The stale-trail forgery (DRAT, two fresh variables y = 3, w = 4): dratify 0.1.10 keeps w on its
#: root trail after deleting the clause that implied it, so it "refutes" any CNF.
STALE_TRAIL_DRAT = "3 0\n4 -3 0\nd 4 -3 0\n-4 0\n0\n"
#: All four clauses over two variables: unsatisfiable.
FULL2 = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
#: A valid LRAT refutation of FULL2.
FULL2_LRAT = "5 2 0 1 2 0\n6 0 5 3 4 0\n"


def dimacs(clauses, nvars: int) -> str:
    return f"p cnf {nvars} {len(clauses)}\n" + "".join(
        " ".join(map(str, c)) + " 0\n" for c in clauses)


def nvars_of(clauses) -> int:
    return max((abs(lit) for c in clauses for lit in c), default=1)


@pytest.fixture(scope="module")
def cake(proof_checkers, tmp_path_factory):
    """``cake(clauses, nvars, lrat) -> bool``: cake_lpr's verdict."""
    exe = str(proof_checkers / "cake_lpr")
    tmp = tmp_path_factory.mktemp("cake")

    def files(cnf: Path, proof: Path) -> bool:
        done = subprocess.run([exe, str(cnf), str(proof)], capture_output=True, text=True,
                              errors="replace", timeout=60)
        return "s VERIFIED UNSAT" in done.stdout.splitlines()

    def run(clauses, nvars: int, lrat: str | bytes) -> bool:
        cnf, proof = tmp / "f.cnf", tmp / "p.lrat"
        cnf.write_text(dimacs(clauses, nvars))
        proof.write_bytes(lrat.encode("latin-1") if isinstance(lrat, str) else lrat)
        return files(cnf, proof)

    run.files = files  # type: ignore[attr-defined]
    return run


def ours(clauses, nvars: int, lrat: str | bytes) -> LratCheck:
    data = lrat.encode("latin-1") if isinstance(lrat, str) else lrat
    return check_lrat(clauses, data, nvars=nvars)


# -- hand-made forgeries -------------------------------------------------------------------------
#: (name, CNF, LRAT, expected reason, cake_lpr's verdict: False = rejects, True = accepts (ours is
#: stricter there), None = not asserted)
CASES = [
    # the stale-trail forgery's LRAT forms: the units on fresh variables are not RUP
    ("stale-trail", SAT_CNF, "3 3 0 0\n4 4 -3 0 0\n4 d 4 0\n5 -4 0 0\n6 0 3 4 5 0\n",
     "line 1: literal 3 is outside the CNF's 2 variables", False),
    ("stale-trail-rat-hints", SAT_CNF, "3 3 0 -1 0\n4 4 -3 0 -3 0\n4 d 4 0\n5 -4 0 0\n6 0 3 5 0\n",
     "line 1: literal 3 is outside", False),
    ("stale-trail-in-range", [[1, 2], [-2], [5, -5]],
     "4 3 0 0\n5 4 -3 0 0\n5 d 5 0\n6 -4 0 0\n7 0 4 5 6 0\n",
     "line 1: the hints end without a conflict", False),
    ("rat-step", [[1, 2], [-1, 2], [1, -2], [-1, -2]], "5 2 0 -3 1 0\n6 0 5 3 4 0\n",
     "line 1: negative hint -3: RAT steps are not supported", None),
    ("rat-on-fresh", SAT_CNF, "3 3 0 0\n4 -3 0 -3 0\n5 0 3 4 0\n", "outside the CNF's", False),
    ("delete-cnf-clause-then-use", FULL2, "4 d 3 0\n5 2 0 1 2 0\n6 0 5 3 4 0\n",
     "line 3: hint 3 is not a live clause", False),
    ("hint-forward", FULL2, "5 2 0 1 6 0\n6 0 5 3 4 0\n",
     "line 1: hint 6 points at a clause not yet added", False),
    ("hint-self", FULL2, "5 2 0 5 2 0\n6 0 5 3 4 0\n",
     "line 1: hint 5 points at a clause not yet added", False),
    ("hint-deleted-lemma", FULL2, "5 2 0 1 2 0\n5 d 5 0\n6 0 5 3 4 0\n",
     "line 3: hint 5 is not a live clause", False),
    ("hint-nonexistent", FULL2, "5 2 0 1 2 0\n7 0 5 6 3 4 0\n",
     "line 2: hint 6 is not a live clause", False),
    ("hint-after-conflict-forward", FULL2, "5 2 0 1 2 0\n6 0 5 3 4 99 0\n",
     "line 2: hint 99 points at a clause not yet added", True),  # cake_lpr stops at the conflict
    ("weaker-cnf", FULL2[:3], FULL2_LRAT, "line 2: hint 4 is not a live clause", False),
    ("duplicate-id", FULL2, "5 2 0 1 2 0\n5 0 5 3 4 0\n",
     "line 2: clause ID 5 is not greater than every earlier ID", True),
    ("id-reuses-cnf-id", FULL2, "5 2 0 1 2 0\n4 0 5 3 4 0\n", "clause ID 4 is not greater", True),
    ("hints-reordered", FULL2, "5 2 0 1 2 0\n6 0 3 5 4 0\n",
     "line 2: hint 3 has two unassigned literals", False),
    ("truncated", FULL2, "5 2 0 1 2 0\n6 0 5 3", "line 2: the line ends before its terminating 0",
     False),
    ("literal-flipped", FULL2, "5 -2 0 1 2 0\n6 0 5 3 4 0\n", "line 1: hint 1 is satisfied", False),
    ("no-empty-clause", FULL2, "5 2 0 1 2 0\n", "never adds the empty clause", False),
    ("garbage-bytes", FULL2, b"5 2 0 1 2 0\n\x00\xff\n6 0 5 3 4 0\n", "line 2: unexpected byte",
     False),
    ("huge-id", FULL2, "5 2 0 1 2 0\n99999999999999999999999 0 5 3 4 0\n",
     "line 2: number too large", False),
    ("id-past-31-bits", FULL2, "5 2 0 1 2 0\n2147483648 0 5 3 4 0\n",
     "line 2: clause ID 2147483648 is past 2147483647", False),  # cake_lpr: heap exhausted
    ("literal-2**63", FULL2, "5 2 0 1 2 0\n6 9223372036854775808 0 5 3 4 0\n",
     "line 2: number too large", False),  # wraps to -2**63 in 64-bit arithmetic
    ("id-2**64+5", FULL2, "5 2 0 1 2 0\n18446744073709551621 0 5 3 4 0\n",
     "line 2: number too large", False),
    ("hint-2**64+1", FULL2, "5 2 0 1 2 0\n6 0 5 3 18446744073709551617 4 0\n",
     "line 2: number too large", False),
    ("huge-literal", FULL2, "5 2 0 1 2 0\n6 99999999999 0 5 3 4 0\n", "line 2: literal too large",
     False),
    ("tautology", FULL2, "5 2 -2 0 1 2 0\n6 0 5 3 4 0\n", "line 1: the clause holds both 2 and -2",
     False),
    ("empty-line", FULL2, "5 2 0 1 2 0\n\n6 0 5 3 4 0\n", "line 2: empty line", False),
    ("text-after-zero", FULL2, "5 2 0 1 2 0\n6 0 5 3 4 0 1\n", "line 2: text after the", False),
    ("delete-unknown", FULL2, "5 2 0 1 2 0\n5 d 99 0\n6 0 5 3 4 0\n",
     "line 2: deletes clause 99, which is not a live clause", True),
    ("delete-twice", FULL2, "5 2 0 1 2 0\n5 d 1 0\n5 d 1 0\n6 0 5 3 4 0\n",
     "line 3: deletes clause 1", None),
    ("binary-lrat", FULL2, b"a\x0a\x04\x00\x02\x04\x00", "line 1:", False),
    ("zero-id", FULL2, "0 2 0 1 2 0\n6 0 5 3 4 0\n", "line 1: clause ID 0", None),
    ("vertical-tab", FULL2, "5\x0b2 0 1 2 0\n6 0 5 3 4 0\n", "line 1:", False),
    ("no-hints", FULL2, "5 2 0 0\n6 0 5 3 4 0\n", "line 1: the hints end without a conflict",
     False),
]


@pytest.mark.parametrize("name,cnf,lrat,reason,cake_ok", CASES, ids=[c[0] for c in CASES])
def test_forged_proof_is_rejected(name, cnf, lrat, reason, cake_ok, cake):
    got = ours(cnf, nvars_of(cnf), lrat)
    assert not got.ok, name
    assert reason in got.reason, got.reason
    by_cake = cake(cnf, nvars_of(cnf), lrat)
    if cake_ok is not None:
        assert by_cake == cake_ok, f"cake_lpr's verdict on {name} changed"


def test_the_valid_reference_proof_is_accepted_by_both(cake):
    got = ours(FULL2, 2, FULL2_LRAT)
    assert got.ok and got.reason == "verified" and got.lemmas == 2, got
    assert cake(FULL2, 2, FULL2_LRAT)
    assert got.to_json()["checker"] == CHECKER_NAME and got.to_json()["version"] == CHECKER_VERSION


def test_stale_trail_drat_does_not_agree_with_a_real_lrat():
    # the DRAT form of the forgery, next to a real LRAT of another formula: the LRAT's lemma
    # (clause 2) is not among the forgery's lemmas
    ok, reason = lemmas_agree(STALE_TRAIL_DRAT.encode(), FULL2_LRAT.encode())
    assert not ok and "lrat line 1" in reason, reason
    # and next to its own LRAT form, the lemmas agree but the LRAT does not check
    lrat = "3 3 0 0\n4 4 -3 0 0\n4 d 4 0\n5 -4 0 0\n6 0 3 4 5 0\n"
    assert lemmas_agree(STALE_TRAIL_DRAT.encode(), lrat.encode()) == (True, "agree")
    assert not ours(SAT_CNF, 2, lrat).ok


def test_lemmas_agree_rules():
    drat = "2 0\nd 1 2 0\n0\n"
    assert lemmas_agree(drat.encode(), FULL2_LRAT.encode()) == (True, "agree")
    # the LRAT may leave DRAT lemmas out (drat-trim -L trims), not add its own or reorder them
    assert lemmas_agree(b"1 0\n2 0\n0\n", b"5 2 0 1 2 0\n6 0 5 3 4 0\n")[0]
    ok, reason = lemmas_agree(b"2 0\n1 0\n0\n", b"5 1 0 1 2 0\n6 2 0 1 0\n7 0 5 6 0\n")
    assert not ok and "lrat line 2" in reason
    ok, reason = lemmas_agree(b"2 0\n", FULL2_LRAT.encode())
    assert not ok and "lrat line 2" in reason
    ok, reason = lemmas_agree(b"2 0\n0\n", b"5 2 0 1 2 0\n")
    assert not ok and "LRAT proof never adds the empty clause" in reason
    # literal order and repeats do not matter: clauses are sets
    assert lemmas_agree(b"2 -1 2 0\n0\n", b"5 -1 2 0 1 0\n6 0 5 0\n")[0]
    ok, reason = lemmas_agree(b"a\x04\x02\x00", FULL2_LRAT.encode())
    assert not ok and "binary DRAT is not supported" in reason
    ok, reason = lemmas_agree(b"2 0\n0 x\n", FULL2_LRAT.encode())
    assert not ok and "drat line 2" in reason


def test_lemmas_agree_takes_trimmed_and_materialised_lrat():
    # drat-trim -L drops literals from lemmas it keeps: {2} for the DRAT's {1, 2}
    assert lemmas_agree(b"1 2 0\n0\n", b"5 2 0 1 2 0\n6 0 5 3 4 0\n") == (True, "agree")
    # but never adds one: {1, 2, 3} is not among the DRAT's lemmas
    assert not lemmas_agree(b"1 2 0\n0\n", b"5 1 2 3 0 1 0\n6 0 5 3 4 0\n")[0]
    # nonosat's own LRAT gives level-0 literals unit lemmas that the DRAT does not have
    assert lemmas_agree(b"2 0\n0\n", b"5 1 0 1 0\n6 2 0 1 0\n7 0 1 0\n") == (True, "agree")
    # only units: a clause of two literals between the DRAT's lemmas is not nonosat's writer's
    ok, reason = lemmas_agree(b"2 0\n0\n", b"5 1 3 0 1 0\n6 2 0 1 0\n7 0 1 0\n")
    assert not ok and "drat line 1" in reason and "lrat line 1" in reason, reason
    # ... before a lemma, never before the empty clause: a propagation certificate's DRAT (the
    # empty clause alone) does not agree with a proof that needs lemmas
    ok, reason = lemmas_agree(b"0\n", b"5 1 0 1 0\n6 0 5 2 0\n")
    assert not ok and "drat line 1" in reason, reason
    # and every DRAT lemma up to the empty clause must be there
    ok, reason = lemmas_agree(b"2 0\n-1 0\n0\n", b"5 1 0 1 0\n6 2 0 1 0\n7 0 1 0\n")
    assert not ok and "drat line 2" in reason, reason


@pytest.mark.parametrize("chunk", [3, 1 << 20])
def test_cnf_files_are_read_strictly(tmp_path, monkeypatch, chunk):
    from nonosat.certificates import lrat_read, lrat_store

    monkeypatch.setattr(lrat_read, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(lrat_store, "_INITIAL_CLAUSES", 1)
    monkeypatch.setattr(lrat_store, "_INITIAL_LITERALS", 1)
    proof = tmp_path / "p.lrat"
    proof.write_text(FULL2_LRAT)
    cases = {
        "c comment\np cnf 2 4\n1 2 0\n-1 2 0\n1 -2\n0\n-1 -2 0\n": "verified",
        "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n": "3 clauses, the header says 4",
        "1 2 0\n": "no 'p cnf",
        "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -3 0\n": "CNF line 5: literal -3 outside the "
        "header's 2",
        "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 % 0\n": "CNF line 5: expected a number",
        "p cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n": "more clauses than the header's 3",
        "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2\n": "the last clause has no terminating 0",
        "p dnf 2 4\n": "malformed 'p cnf",
    }
    for i, (text, reason) in enumerate(cases.items()):
        cnf = tmp_path / f"f{i}.cnf"
        cnf.write_text(text)
        got = check_lrat(cnf, proof)
        assert reason in got.reason, (text, got.reason)
        assert got.ok == (reason == "verified")


def test_proof_over_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    cnf, proof = tmp_path / "f.cnf", tmp_path / "proof.lrat"
    cnf.write_text(dimacs(FULL2, 2))
    proof.write_text(FULL2_LRAT)
    with pytest.raises(ProofTooLargeError) as err:
        check_lrat(cnf, proof, max_bytes=10)
    message = str(err.value)
    assert isinstance(err.value, NonosatError) and "\n" not in message
    assert "proof.lrat" in message and "NONOSAT_MAX_PROOF_BYTES" in message
    monkeypatch.setenv("NONOSAT_MAX_PROOF_BYTES", "12")
    with pytest.raises(ProofTooLargeError):
        check_lrat(cnf, proof)
    with pytest.raises(ProofTooLargeError):
        lemmas_agree(proof, proof)
    monkeypatch.setenv("NONOSAT_MAX_PROOF_BYTES", "1000")
    assert check_lrat(cnf, proof).ok


def test_files_that_are_not_regular_or_missing_are_refused(tmp_path):
    from nonosat.errors import FormatError

    cnf = tmp_path / "f.cnf"
    cnf.write_text(dimacs(FULL2, 2))
    fifo = tmp_path / "proof.fifo"
    os.mkfifo(fifo)
    for proof in (tmp_path, fifo, tmp_path / "missing.lrat"):
        with pytest.raises(FormatError) as err:
            check_lrat(cnf, proof)
        assert str(proof) in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(FormatError):
        lemmas_agree(fifo, cnf)


def test_deadline_gives_up_without_a_verdict(tmp_path):
    import time

    got = check_lrat(FULL2, FULL2_LRAT.encode(), nvars=2, deadline=time.perf_counter() - 1)
    assert not got.ok and got.timed_out and "time limit" in got.reason


def test_lines_longer_than_a_chunk_and_many_deletions(monkeypatch):
    """A clause store that grows, compacts and a line split across chunks: the verdict is the
    same as in one piece."""
    from nonosat.certificates import lrat_read, lrat_store

    n = 300
    # x_1 and x_i -> x_{i+1}: the units x_2 ... x_n as lemmas, each deleted after use with the
    # implication that gave it
    cnf = [[1]] + [[-i, i + 1] for i in range(1, n)] + [[-n]]
    lines, ident = [], n + 2
    prev = 1
    for i in range(2, n + 1):
        lines.append(f"{ident} {i} 0 {prev} {i} 0")
        lines.append(f"{ident} d {prev} {i} 0" if prev > n + 1 else f"{ident} d {i} 0")
        prev = ident
        ident += 1
    lines.append(f"{ident} 0 {prev} {n + 1} 0")
    text = ("\n".join(lines) + "\n").encode()
    whole = check_lrat(cnf, text, nvars=n)
    assert whole.ok and whole.lemmas == n and whole.deletions == 2 * n - 3, whole
    monkeypatch.setattr(lrat_read, "CHUNK_BYTES", 7)
    monkeypatch.setattr(lrat_store, "_INITIAL_CLAUSES", 2)
    monkeypatch.setattr(lrat_store, "_INITIAL_LITERALS", 2)
    monkeypatch.setattr(lrat_store, "_COMPACT_SLACK", 0)
    small = check_lrat(cnf, text, nvars=n)
    assert (small.ok, small.lemmas, small.deletions) == (True, n, 2 * n - 3)
    compactions = []
    real = lrat_store._compact
    monkeypatch.setattr(lrat_store, "_compact", lambda *a: compactions.append(1) or real(*a))
    small = check_lrat(cnf, text, nvars=n)
    assert small.ok and compactions
    bad = text.replace(f" {n + 1} 0\n".encode(), f" {n} 0\n".encode())
    assert not check_lrat(cnf, bad, nvars=n).ok


# -- real proofs and their mutations -------------------------------------------------------------
def sat_proof(clauses, nvars: int, drat_trim: Path, tmp: Path) -> tuple[str, str] | None:
    """CaDiCaL's DRAT refutation of ``clauses`` and drat-trim's LRAT of it (``None``: the
    formula is satisfiable)."""
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as solver:
        if solver.solve():
            return None
        drat = "\n".join(solver.get_proof()) + "\n"
    (tmp / "f.cnf").write_text(dimacs(clauses, nvars))
    (tmp / "p.drat").write_text(drat)
    subprocess.run([str(drat_trim), str(tmp / "f.cnf"), str(tmp / "p.drat"), "-L",
                    str(tmp / "p.lrat")], capture_output=True, timeout=60, check=False)
    return drat, (tmp / "p.lrat").read_text()


def random_cnf(rng: random.Random, nvars: int, nclauses: int) -> list[list[int]]:
    return [[v if rng.random() < 0.5 else -v for v in rng.sample(range(1, nvars + 1), 3)]
            for _ in range(nclauses)]


@pytest.fixture(scope="module")
def real_proofs(proof_checkers, tmp_path_factory):
    """(name, clauses, nvars, DRAT, LRAT): CaDiCaL proofs of random 3-CNFs and a pigeonhole
    formula through drat-trim -L, and nonosat's certificate of a puzzle."""
    tmp = tmp_path_factory.mktemp("real")
    rng = random.Random(24)
    out = []
    while len(out) < 3:
        clauses = random_cnf(rng, 30, 150)
        got = sat_proof(clauses, 30, proof_checkers / "drat-trim", tmp)
        if got:
            out.append((f"random3cnf-{len(out)}", clauses, 30, *got))
    holes = 4  # 5 pigeons, 4 holes
    var = {(p, h): p * holes + h + 1 for p in range(holes + 1) for h in range(holes)}
    php = [[var[p, h] for h in range(holes)] for p in range(holes + 1)]
    php += [[-var[p, h], -var[q, h]] for h in range(holes)
            for p in range(holes + 1) for q in range(p + 1, holes + 1)]
    out.append(("php-5-4", php, len(var), *sat_proof(php, len(var), proof_checkers / "drat-trim",
                                                      tmp)))
    out.extend(puzzle_proofs(proof_checkers))
    return out


def puzzle_proofs(checker_dir: Path) -> list:
    """nonosat's certificates of two small puzzles: the native prover's LRAT (written by
    nonosat) and the SAT prover's (drat-trim -L)."""
    from nonosat.certificates.certifier import certify_puzzle
    from nonosat.formats import read_puzzle

    old = os.environ.get("NONOSAT_CHECKER_PATH")
    os.environ["NONOSAT_CHECKER_PATH"] = str(checker_dir)
    out = []
    try:
        for name, prover in (("heart.non", "native"), ("sailboat.nin", "sat")):
            puzzle = read_puzzle(str(Path(__file__).resolve().parents[1] / "games" / name))
            cert = certify_puzzle(puzzle, prover=prover, checkers=())
            assert cert.lrat is not None and cert.formula is not None, name
            out.append((f"{name}-{prover}", [list(c) for c in cert.formula], cert.nvars,
                        cert.proof, cert.lrat))
    finally:
        if old is None:
            os.environ.pop("NONOSAT_CHECKER_PATH", None)
        else:
            os.environ["NONOSAT_CHECKER_PATH"] = old
    return out


def test_real_proofs_are_accepted_by_both_and_their_pairs_agree(real_proofs, cake):
    for name, clauses, nvars, drat, lrat in real_proofs:
        got = ours(clauses, nvars, lrat)
        assert got.ok, (name, got.reason)
        assert cake(clauses, nvars, lrat), name
        assert lemmas_agree(drat.encode(), lrat.encode()) == (True, "agree"), name


def test_swapped_drat_lrat_pairs_disagree(real_proofs):
    multi = [p for p in real_proofs if p[4].count("\n") > 3]
    assert len(multi) >= 3
    for (name_a, *_, drat_a, _), (name_b, *_, _, lrat_b) in zip(multi, multi[1:] + multi[:1],
                                                                strict=True):
        ok, reason = lemmas_agree(drat_a.encode(), lrat_b.encode())
        assert not ok, (name_a, name_b)
        assert reason.startswith("lrat line"), reason


def test_every_mutation_class_on_real_proofs(real_proofs, cake):
    """Each mutation class a few times on each real proof: never accepted where cake_lpr
    rejects; the classes that cannot be valid are always rejected."""
    rng = random.Random(2024)
    rejected = 0
    total = 0
    for name, clauses, nvars, _, lrat in real_proofs:
        for kind in KINDS:
            kind, cnf, text = mutate(clauses, nvars, lrat, rng, kind)
            got = ours(cnf, nvars, text)
            total += 1
            rejected += not got.ok
            if kind in ALWAYS_REJECTED:
                assert not got.ok, (name, kind)
            if got.ok:
                assert cake(cnf, nvars, text), (name, kind, "accepted by ours, not by cake_lpr")
    assert rejected > total * 0.7, (rejected, total)


def test_weaker_cnf_is_not_refuted_by_the_real_proof(real_proofs):
    """The proof of a formula checked against the formula with a clause dropped that the
    proof uses: rejected (a satisfiable weakening can have no refutation)."""
    for name, clauses, nvars, _, lrat in real_proofs:
        used = {int(x) for line in lrat.splitlines() if " d " not in line
                for x in line.split(" 0 ", 1)[1].split()[:-1]}
        drop = max(i for i in used if i <= len(clauses))
        weaker = clauses[: drop - 1] + clauses[drop:]
        assert not ours(weaker, nvars, lrat).ok, name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), nvars=st.integers(5, 14),
       kind=st.sampled_from((None, *KINDS)), mutations=st.integers(0, 3))
def test_never_accepts_what_cake_lpr_rejects(seed, nvars, kind, mutations, proof_checkers, cake,
                                             tmp_path):
    rng = random.Random(seed)
    clauses = random_cnf(rng, nvars, int(nvars * 6))
    got = sat_proof(clauses, nvars, proof_checkers / "drat-trim", tmp_path)
    if got is None:
        return
    _, lrat = got
    cnf = clauses
    if mutations == 0:
        assert ours(cnf, nvars, lrat).ok and cake(cnf, nvars, lrat)
        return
    for _ in range(mutations):
        try:
            _, cnf, lrat = mutate(cnf, nvars, lrat, rng, kind)
        except (ValueError, IndexError):
            break  # the last mutation left text that the mutator cannot parse again
    verdict = ours(cnf, nvars, lrat)
    if verdict.ok:
        assert cake(cnf, nvars, lrat), (kind, lrat)


def test_forged_folder_cases(cake):
    """The files in tests/forged/: each ``NAME.cnf`` with ``NAME.lrat`` is rejected, with the
    reason in ``NAME.reason``, and cake_lpr rejects it too."""
    names = sorted(p.stem for p in FORGED.glob("*.lrat"))
    assert names
    for name in names:
        cnf = FORGED / f"{name}.cnf"
        got = check_lrat(cnf, FORGED / f"{name}.lrat")
        assert not got.ok and (FORGED / f"{name}.reason").read_text().strip() in got.reason, \
            (name, got.reason)
        assert not cake.files(cnf, FORGED / f"{name}.lrat"), name
