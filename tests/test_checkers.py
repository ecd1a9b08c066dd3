"""Certificates checked by checkers nonosat did not write: drat-trim (DRAT) and cake_lpr (the
CakeML LRAT checker, proved correct in HOL4), both built from ``../shared/third_party`` by the
``proof_checkers`` fixture.  Tampered certificates must be rejected by each checker itself, so
every tampering below also rewrites the recorded hashes: only the checker can catch it."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from nonosat.certificates import (
    CHECKER_PATH_ENV,
    LRAT_FILE,
    PROOF_FILE,
    check_proof,
    verify_certificate,
    write_certificate,
)
from nonosat.certificates.certifier import certify_puzzle
from nonosat.formats import read_puzzle
from tests.conftest import GAMES, corpus_path

ALL = ("dratify", "drat-trim", "cake_lpr")
#: The checks that ``ALL`` runs: dratify never alone (the default check with it).
ALL_CHECKS = ["nonosat-lrat", "drat-lrat-agreement", "dratify", "drat-trim", "cake_lpr"]


@pytest.fixture
def checkers(proof_checkers, monkeypatch) -> Path:
    """The built checkers, found by nonosat through ``$NONOSAT_CHECKER_PATH``."""
    monkeypatch.setenv(CHECKER_PATH_ENV, str(proof_checkers))
    return proof_checkers


def _cases():
    return [
        ("line-solvable", lambda: read_puzzle(GAMES / "heart.non"), "auto"),
        ("line-solvable, SAT prover", lambda: read_puzzle(GAMES / "mug.xml"), "sat"),
        ("probing (Merka)", lambda: read_puzzle(
            corpus_path("FastNonogramSolver", "puzzles", "survey", "webpbn-01611.nin")), "native"),
        ("search: native lemmas then SAT (taai2011 #66)", lambda: read_puzzle(
            corpus_path("NonogramRecord", "question", "taai2011.txt"), index=66), "auto"),
        ("search: SAT alone (taai2011 #66)", lambda: read_puzzle(
            corpus_path("NonogramRecord", "question", "taai2011.txt"), index=66), "sat"),
    ]


@pytest.mark.corpus
@pytest.mark.parametrize(("name", "load", "prover"), _cases(), ids=[c[0] for c in _cases()])
def test_certificates_are_accepted_by_every_checker(name, load, prover, checkers):
    cert = certify_puzzle(load(), prover=prover, checkers=ALL)
    assert cert.verdict == "unique"
    assert [c.checker for c in cert.checks] == ALL_CHECKS
    assert all(c.ok for c in cert.checks), [c.to_json() for c in cert.checks]
    assert cert.lrat is not None and cert.proved
    # the LRAT is made in-process: nonosat's hints for the native lemmas, CaDiCaL's own after
    expected = {"native": "nonosat", "propagation": "nonosat", "sat": "cadical",
                "native+sat": "nonosat+cadical"}[cert.prover]
    assert cert.lrat_source == expected, cert.prover


@pytest.mark.corpus
def test_native_proofs_get_their_lrat_without_drat_trim(proof_checkers, tmp_path, monkeypatch):
    """With cake_lpr found and drat-trim not, the native solver's proof still has an LRAT form
    (nonosat's own hints), and the verified checker accepts it."""
    only = tmp_path / "only-cake"
    only.mkdir()
    (only / "cake_lpr").symlink_to(proof_checkers / "cake_lpr")
    monkeypatch.setenv(CHECKER_PATH_ENV, str(only))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    from nonosat.certificates import checker_executable

    assert checker_executable("drat-trim") is None
    puzzle = read_puzzle(corpus_path("Nonogram", "games", "football.json"))
    cert = certify_puzzle(puzzle, prover="native", checkers=("dratify", "cake_lpr"))
    assert cert.prover == "native" and cert.lrat_source == "nonosat"
    assert cert.proved, [c.to_json() for c in cert.checks]
    write_certificate(cert, tmp_path / "c")
    assert verify_certificate(tmp_path / "c", ["cake_lpr"]).ok


def _run(exe: Path, *args: Path) -> str:
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True).stdout


def test_the_built_checkers_judge_on_their_own(checkers, tmp_path):
    """The checkers themselves (not nonosat's wrapper) accept the bundle's files as written."""
    cert = certify_puzzle(read_puzzle(GAMES / "heart.non"), checkers=("drat-trim",))
    write_certificate(cert, tmp_path / "c")
    d = tmp_path / "c"
    assert "s VERIFIED" in _run(checkers / "drat-trim", d / "puzzle.cnf", d / PROOF_FILE)
    assert "s VERIFIED UNSAT" in _run(checkers / "cake_lpr", d / "puzzle.cnf", d / LRAT_FILE)


def _rehash(cert_dir: Path) -> None:
    record = json.loads((cert_dir / "certificate.json").read_text())
    for name in record["files"]:
        if name != "certificate.json":
            record["files"][name] = hashlib.sha256((cert_dir / name).read_bytes()).hexdigest()
    (cert_dir / "certificate.json").write_text(json.dumps(record))


@pytest.fixture(scope="module")
def merka_pristine(proof_checkers, tmp_path_factory) -> Path:
    """Merka's certificate, certified once per module with all three checkers."""
    puzzle = read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey", "webpbn-01611.nin"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(CHECKER_PATH_ENV, str(proof_checkers))
        cert = certify_puzzle(puzzle, prover="native", checkers=ALL)
    assert cert.proved
    out = tmp_path_factory.mktemp("merka") / "merka"
    write_certificate(cert, out)
    return out


@pytest.fixture
def merka_bundle(checkers, merka_pristine, tmp_path) -> Path:
    """A copy of Merka's certificate for one test to tamper with."""
    import shutil

    return Path(shutil.copytree(merka_pristine, tmp_path / "merka"))


def _edit(path: Path, edit) -> None:
    lines = path.read_text().splitlines()
    edit(lines)
    path.write_text("\n".join(lines) + "\n")


def _flip_first_unit(lines: list[str]) -> None:
    for k, line in enumerate(lines):
        parts = line.split()
        if len(parts) == 2 and parts[1] == "0" and parts[0] != "d":
            lines[k] = f"{-int(parts[0])} 0"
            return
    raise AssertionError("no unit lemma to flip")


def _flip_lrat_lemma(lines: list[str]) -> None:
    # an addition line: ID lits... 0 hints... 0 ; flip its first literal, keep the hints
    for k, line in enumerate(lines):
        parts = line.split()
        if len(parts) > 3 and parts[1] != "d" and parts[1] != "0":
            parts[1] = str(-int(parts[1]))
            lines[k] = " ".join(parts)
            return
    raise AssertionError("no LRAT lemma to flip")


def _change_last_hint(lines: list[str]) -> None:
    # the empty clause's line: ID 0 hints... 0 -- point its last hint at another clause
    for k in range(len(lines) - 1, -1, -1):
        parts = lines[k].split()
        if len(parts) > 3 and parts[1] == "0":
            parts[-2] = str(int(parts[-2]) + 1 if int(parts[-2]) > 1 else 2)
            lines[k] = " ".join(parts)
            return
    raise AssertionError("no empty-clause line")


def _cut_drat(lines: list[str]) -> None:
    # keep the empty clause (so that the wrapper's own "never adds the empty clause" test does
    # not decide) and drop the lemmas before it: only the checker can see it is not derived
    assert lines[-1].strip() == "0" and len(lines) > 1
    del lines[:-1]


def _cut_lrat(lines: list[str]) -> None:
    while lines and lines[-1].split()[1:2] != ["0"]:
        lines.pop()
    lines.pop()  # the line deriving the empty clause


@pytest.mark.corpus
@pytest.mark.parametrize(("checker", "target", "tamper"), [
    ("dratify", PROOF_FILE, _flip_first_unit),
    ("drat-trim", PROOF_FILE, _flip_first_unit),
    ("dratify", PROOF_FILE, _cut_drat),
    ("drat-trim", PROOF_FILE, _cut_drat),
    ("cake_lpr", LRAT_FILE, _flip_lrat_lemma),
    ("cake_lpr", LRAT_FILE, _change_last_hint),
    ("cake_lpr", LRAT_FILE, _cut_lrat),
], ids=["dratify-flipped-literal", "drat-trim-flipped-literal", "dratify-cut-proof",
        "drat-trim-cut-proof", "cake_lpr-flipped-literal", "cake_lpr-changed-hint",
        "cake_lpr-cut-proof"])
def test_a_tampered_proof_is_rejected_by_the_checker(merka_bundle, checker, target, tamper):
    assert verify_certificate(merka_bundle, [checker]).ok
    _edit(merka_bundle / target, tamper)
    _rehash(merka_bundle)
    result = verify_certificate(merka_bundle, [checker])
    assert not result.ok
    assert any(f"rejected by {checker}" in p for p in result.problems), result.problems


@pytest.mark.corpus
@pytest.mark.parametrize("checker", ["drat-trim", "cake_lpr"])
def test_a_formula_without_the_blocking_clause_is_not_refuted(merka_bundle, checker):
    """A changed solution or clue changes the formula; the checkers must not accept the old
    proof for a satisfiable formula (here: the encoding without its blocking clause)."""
    from nonosat.encodings.cnf import encode

    puzzle = read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey", "webpbn-01611.nin"))
    enc = encode(puzzle)
    proof = (merka_bundle / PROOF_FILE).read_text()
    lrat = (merka_bundle / LRAT_FILE).read_text()
    check = check_proof(enc.clauses, enc.nvars, proof, checker, lrat=lrat)
    assert not check.ok, check.reason


@pytest.mark.corpus
@pytest.mark.parametrize("checker", ALL)
def test_a_changed_clue_is_rejected(merka_bundle, checker):
    puzzle_json = merka_bundle / "puzzle.json"
    obj = json.loads(puzzle_json.read_text())
    k = next(i for i, clue in enumerate(obj["rows"]) if clue)
    obj["rows"][k] = obj["rows"][k][:-1] + [obj["rows"][k][-1] + 1]
    puzzle_json.write_text(json.dumps(obj))
    _rehash(merka_bundle)
    assert not verify_certificate(merka_bundle, [checker]).ok


@pytest.mark.corpus
@pytest.mark.parametrize("checker", ALL)
def test_a_changed_solution_is_rejected_by_the_checker(merka_bundle, checker):
    """Flip one cell of the solution and make the bundle consistent again (record, hashes):
    the re-derived formula then blocks a non-solution, is satisfiable, and only the proof
    checker stands between it and a false certificate."""
    sol = merka_bundle / "solution.txt"
    rows = sol.read_text().splitlines()
    rows[0] = ("." if rows[0][0] == "#" else "#") + rows[0][1:]
    sol.write_text("\n".join(rows) + "\n")
    record = json.loads((merka_bundle / "certificate.json").read_text())
    record["solution"] = rows
    (merka_bundle / "certificate.json").write_text(json.dumps(record))
    _rehash(merka_bundle)
    result = verify_certificate(merka_bundle, [checker])
    assert not result.ok
    # the flipped grid breaks its clues, and the proof no longer refutes the formula
    assert any(f"rejected by {checker}" in p for p in result.problems), result.problems


def test_verify_against_the_puzzle_file_one_holds(checkers, tmp_path):
    cert = certify_puzzle(read_puzzle(GAMES / "heart.non"), checkers=ALL)
    write_certificate(cert, tmp_path / "c")
    assert verify_certificate(tmp_path / "c", list(ALL), expected=read_puzzle(GAMES / "heart.non")).ok
    other = verify_certificate(tmp_path / "c", ["dratify"], expected=read_puzzle(GAMES / "mug.xml"))
    assert not other.ok and any("another puzzle" in p for p in other.problems)


def test_empty_file_hashes_are_refused(tmp_path):
    cert = certify_puzzle(read_puzzle(GAMES / "heart.non"), checkers=("dratify",))
    write_certificate(cert, tmp_path / "c")
    record = json.loads((tmp_path / "c" / "certificate.json").read_text())
    record["files"] = {}
    (tmp_path / "c" / "certificate.json").write_text(json.dumps(record))
    result = verify_certificate(tmp_path / "c", ["dratify"])
    assert not result.ok and any("no file hashes" in p for p in result.problems)


def test_deeply_nested_certificate_json_is_one_problem_not_a_crash(tmp_path):
    d = tmp_path / "c"
    d.mkdir()
    (d / "certificate.json").write_text("[" * 100_000 + "]" * 100_000)
    result = verify_certificate(d, ["dratify"])
    assert not result.ok and "certificate.json" in result.problems[0]


def test_a_fifo_proof_is_refused_without_blocking(tmp_path):
    import os

    cert = certify_puzzle(read_puzzle(GAMES / "heart.non"), checkers=("dratify",))
    write_certificate(cert, tmp_path / "c")
    (tmp_path / "c" / PROOF_FILE).unlink()
    os.mkfifo(tmp_path / "c" / PROOF_FILE)
    result = verify_certificate(tmp_path / "c", ["dratify"])
    assert not result.ok and any(PROOF_FILE in p for p in result.problems)


@pytest.mark.corpus
def test_cli_certify_checker_all_on_merka(checkers, tmp_path):
    """The issue's done-when: DRAT and LRAT proofs that dratify, drat-trim and cake_lpr accept."""
    import sys

    merka = corpus_path("FastNonogramSolver", "puzzles", "survey", "webpbn-01611.nin")
    out = subprocess.run(
        [sys.executable, "-m", "nonosat", "certify", str(merka), "--out", str(tmp_path / "m"),
         "--checker", "all", "--checker-path", str(checkers), "--json"],
        capture_output=True, text=True, env={**os_environ(), CHECKER_PATH_ENV: ""},
    )
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["certified"] and [c["checker"] for c in obj["checks"] if c["ok"]] == ALL_CHECKS
    assert (tmp_path / "m" / LRAT_FILE).exists()
    record = json.loads((tmp_path / "m" / "certificate.json").read_text())
    # the native solver's proof: nonosat wrote the LRAT hints itself
    assert record["lrat"]["made_by"].startswith("nonosat")
    assert [c["checker"] for c in record["checkers"] if c["ok"]] == ALL_CHECKS
    assert all(c["version"] for c in record["checkers"])


def os_environ() -> dict[str, str]:
    import os

    return dict(os.environ)
