"""verify-certificate's default check needs nothing outside the pip install and is sound (issue 24):
``proof.lrat`` checked by nonosat's own LRAT checker, and ``proof.lrat`` must hold the lemmas of
``proof.drat``.  dratify keeps a literal on its root trail after the clause that implied it is
deleted, so the five-line DRAT proof ``y 0``, ``w -y 0``, ``d w -y 0``, ``-w 0``, ``0`` over two
fresh variables "refutes" any CNF: certificates built on it must be rejected, whatever LRAT
comes beside it.  drat-trim and cake_lpr are kept out of the way (``PATH`` without them,
``NONOSAT_CHECKER_PATH`` unset) except where a test asks for cake_lpr."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.certificates import (
    CHECKER_PATH_ENV,
    Certificate,
    check_proof,
    write_certificate,
)
from nonosat.certificates.colour_proofs import ColourCertificate, write_colour_certificate
from nonosat.cli.app import app
from nonosat.encodings.cnf import DEFAULT_ENCODING, blocking_clause, encode
from nonosat.encodings.cnf_colour import encode_colour
from nonosat.encodings.satsolver import SatRun
from nonosat.formats import read_puzzle
from tests.conftest import GAMES, REPO, corpus_path

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_external_checkers(monkeypatch, tmp_path_factory):
    """A PATH holding only the Python running the tests (no drat-trim, no cake_lpr)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "python").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv(CHECKER_PATH_ENV, raising=False)
    assert shutil.which("drat-trim") is None and shutil.which("cake_lpr") is None


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def forgery(nvars: int) -> str:
    """The five-line stale-trail proof over two fresh variables ``y``, ``w``."""
    y, w = nvars + 1, nvars + 2
    return f"{y} 0\n{w} -{y} 0\nd {w} -{y} 0\n-{w} 0\n0\n"


def forged_lrat(nclauses: int, nvars: int) -> str:
    """The forgery written as LRAT (what a forger would put beside it)."""
    y, w = nvars + 1, nvars + 2
    m = nclauses
    return (f"{m + 1} {y} 0 0\n{m + 2} {w} -{y} 0 {m + 1} 0\n{m + 2} d {m + 2} 0\n"
            f"{m + 3} -{w} 0 {m + 1} 0\n{m + 4} 0 {m + 3} 0\n")


def rehash(directory: Path) -> None:
    """Record every file's SHA-256 again, so that only the proof checks can fail."""
    path = directory / "certificate.json"
    record = json.loads(path.read_text())
    record["files"] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                       for p in sorted(directory.iterdir()) if p.name != "certificate.json"}
    path.write_text(json.dumps(record))


def a_solution(puzzle) -> np.ndarray:
    enc = encode(puzzle, DEFAULT_ENCODING)
    with SatRun(enc.clauses) as run:
        assert run.solve()
        return enc.solution(run.model())


def forged_bw(puzzle, verdict: str, out: Path, lrat: str | None) -> Path:
    """A black-and-white certificate claiming ``verdict`` with the forged DRAT proof."""
    enc = encode(puzzle, DEFAULT_ENCODING)
    formula = list(enc.clauses)
    solutions = []
    if verdict == "unique":
        solutions = [a_solution(puzzle)]
        formula.append(blocking_clause(solutions[0]))
    cert = Certificate(puzzle, verdict, solutions, DEFAULT_ENCODING, enc.version, "cadical195",
                       formula=formula, nvars=enc.nvars, proof=forgery(enc.nvars), cnf=enc,
                       lrat=lrat)
    write_certificate(cert, out)
    return out


def forged_colour(puzzle, out: Path, lrat: str | None) -> Path:
    enc = encode_colour(puzzle)
    cert = ColourCertificate(puzzle, "none", [], "cadical195", formula=list(enc.clauses),
                             nvars=enc.nvars, proof=forgery(enc.nvars), lrat=lrat)
    write_colour_certificate(cert, out)
    return out


def _forged_cases():
    return [
        ("cross-ambiguous claimed unique", "cross-ambiguous.non", "unique"),
        ("heart claimed none", "heart.non", "none"),
        ("ladybird (colour) claimed none", "ladybird.non", "none"),
    ]


@pytest.mark.parametrize(("name", "game", "verdict"), _forged_cases(),
                         ids=[c[0] for c in _forged_cases()])
def test_the_stale_trail_forgery_is_rejected_by_the_defaults(tmp_path, name, game, verdict):
    puzzle = read_puzzle(GAMES / game)
    if puzzle.is_colour:
        nclauses, nvars = len(encode_colour(puzzle).clauses), encode_colour(puzzle).nvars
    else:
        enc = encode(puzzle, DEFAULT_ENCODING)
        nclauses, nvars = len(enc.clauses) + (verdict == "unique"), enc.nvars
    # dratify alone accepts it: the test's forgery is the real one
    enc_clauses = (list(encode_colour(puzzle).clauses) if puzzle.is_colour
                   else list(encode(puzzle, DEFAULT_ENCODING).clauses))
    if verdict == "unique":
        enc_clauses.append(blocking_clause(a_solution(puzzle)))
    assert check_proof(enc_clauses, nvars, forgery(nvars), "dratify").ok
    for k, lrat in enumerate([None, forged_lrat(nclauses, nvars), "garbage\n"]):
        out = tmp_path / f"c{k}"
        if puzzle.is_colour:
            forged_colour(puzzle, out, lrat)
        else:
            forged_bw(puzzle, verdict, out, lrat)
        for extra in ([], ["--puzzle", GAMES / game]):
            result = cli("verify-certificate", out, *extra)
            assert result.exit_code == 1, (lrat, extra, result.output)
            assert "NOT verified" in result.output
            if lrat is None:
                assert "has no proof.lrat" in result.output
        # asking for dratify runs the default check too, with a warning
        result = cli("verify-certificate", out, "--checker", "dratify")
        assert result.exit_code == 1 and "not sound on deletions" in result.output


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> dict[str, Path]:
    """Certificates of a puzzle that needs search (webpbn #6574 of the survey: the native
    solver's lemmas then CaDiCaL, and CaDiCaL alone) and of Heart, made through the CLI with
    the defaults."""
    base = tmp_path_factory.mktemp("genuine")
    searched = corpus_path("FastNonogramSolver", "puzzles", "survey", "webpbn-06574.nin")
    out = {}
    for name, args in [("auto", [searched]), ("sat", [searched, "--prover", "sat"]),
                       ("heart", [GAMES / "heart.non"])]:
        result = cli("certify", *args, "--out", base / name)
        assert result.exit_code == 0, result.output
        out[name] = base / name
    return out


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    return dest


@pytest.mark.corpus
def test_genuine_certificates_record_their_checks_and_lrat_source(genuine):
    sources = {}
    for name, directory in genuine.items():
        record = json.loads((directory / "certificate.json").read_text())
        assert record["certified"] is True
        checks = {c["checker"]: c for c in record["checkers"]}
        assert set(checks) == {"nonosat-lrat", "drat-lrat-agreement"}, record["checkers"]
        assert all(c["ok"] and c["version"] for c in checks.values())
        sources[name] = record["lrat"]["source"]
        result = cli("verify-certificate", directory, "--json")
        assert result.exit_code == 0, result.output
        verified = json.loads(result.output)
        assert [c["checker"] for c in verified["checks"]] == ["nonosat-lrat",
                                                              "drat-lrat-agreement"]
        assert all(c["version"] for c in verified["checks"])
        assert verified["identity"] == "unverified"
    assert sources == {"auto": "nonosat+cadical", "sat": "cadical", "heart": "nonosat"}


@pytest.mark.corpus
def test_tampered_lrat_or_drat_is_rejected(genuine, tmp_path):
    auto, sat = genuine["auto"], genuine["sat"]
    lines = (auto / "proof.lrat").read_text().splitlines()

    def rejected(directory: Path, *words: str) -> None:
        rehash(directory)
        result = cli("verify-certificate", directory)
        assert result.exit_code == 1, result.output
        for word in words:
            assert word in result.output, result.output

    # a hint edited: the last clause named by the last lemma with hints
    edited = _copy(auto, tmp_path / "edited")
    k = max(i for i, line in enumerate(lines) if " d " not in line and line.split()[1] != "0")
    fields = lines[k].split()
    fields[-2] = str(int(fields[-2]) - 1 if int(fields[-2]) > 1 else 2)
    (edited / "proof.lrat").write_text("\n".join(lines[:k] + [" ".join(fields)] + lines[k + 1:])
                                       + "\n")
    rejected(edited, "rejected by nonosat-lrat")

    garbage = _copy(auto, tmp_path / "garbage")
    (garbage / "proof.lrat").write_text("1 2 3 garbage\n")
    rejected(garbage, "rejected by nonosat-lrat")

    # another certificate's LRAT pass (same puzzle, another proof)
    swapped = _copy(auto, tmp_path / "swapped")
    shutil.copy(sat / "proof.lrat", swapped / "proof.lrat")
    rejected(swapped, "is not the LRAT form of proof.drat")

    # a garbage DRAT beside the valid LRAT: only the agreement can see it
    bad_drat = _copy(auto, tmp_path / "bad-drat")
    (bad_drat / "proof.drat").write_text("1 0\n0\n")
    rejected(bad_drat, "is not the LRAT form of proof.drat")

    without = _copy(auto, tmp_path / "without")
    (without / "proof.lrat").unlink()
    rejected(without, "has no proof.lrat")


def test_a_relabelled_certificate_is_named_as_unverified(tmp_path):
    out = tmp_path / "c"
    assert cli("certify", GAMES / "heart.non", "--out", out).exit_code == 0
    obj = json.loads((out / "puzzle.json").read_text())
    obj["title"] = 'Cross "x"\x1b[31m (25x25)'
    (out / "puzzle.json").write_text(json.dumps(obj))
    rehash(out)
    result = cli("verify-certificate", out)
    assert result.exit_code == 0, result.output
    assert 'titled "Cross \\"x\\"\\x1b[31m (25x25)"' in result.output
    assert "identity unverified" in result.output and "\x1b" not in result.output
    matched = cli("verify-certificate", out, "--puzzle", GAMES / "heart.non")
    assert matched.exit_code == 0, matched.output
    assert "Cross" not in matched.output and "heart.non" in matched.output
    assert "unverified" not in matched.output


def test_certify_then_verify_heart_with_nothing_but_the_install(tmp_path):
    """``nonosat certify games/heart.non --out c && nonosat verify-certificate c --puzzle
    games/heart.non``, as processes, with a PATH that has no drat-trim or cake_lpr."""
    env = {k: v for k, v in os.environ.items() if k != CHECKER_PATH_ENV}
    env["PYTHONPATH"] = str(REPO)
    command = [sys.executable, "-m", "nonosat"]
    out = tmp_path / "c"
    made = subprocess.run([*command, "certify", str(GAMES / "heart.non"), "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert made.returncode == 0, made.stderr
    done = subprocess.run([*command, "verify-certificate", str(out), "--puzzle",
                           str(GAMES / "heart.non")], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.split())  # report lines wrap at 80 columns, after the path
    assert "verified: unique solution of" in flat
    assert ("verdict rests on: nonosat-lrat (proof.lrat); drat-lrat-agreement (proof.drat, "
            "proof.lrat)") in flat


def test_colour_certificate_carries_lrat_and_verifies(tmp_path):
    out = tmp_path / "c"
    made = cli("certify", GAMES / "ladybird.non", "--out", out, "--json")
    assert made.exit_code == 0, made.output
    assert json.loads(made.output)["lrat"]["made_by"] == "cadical"
    record = json.loads((out / "certificate.json").read_text())
    assert "proof.lrat" in record["files"]
    assert cli("verify-certificate", out).exit_code == 0
    (out / "proof.lrat").unlink()
    rehash(out)
    result = cli("verify-certificate", out)
    assert result.exit_code == 1 and "has no proof.lrat" in result.output


@pytest.mark.corpus
def test_cake_lpr_accepts_genuine_certificates_and_rejects_a_garbage_drat(
        genuine, proof_checkers, monkeypatch, tmp_path):
    monkeypatch.setenv(CHECKER_PATH_ENV, str(proof_checkers))
    colour = tmp_path / "colour"
    assert cli("certify", GAMES / "ladybird.non", "--out", colour).exit_code == 0
    for directory in [*genuine.values(), colour]:
        result = cli("verify-certificate", directory, "--checker", "cake_lpr", "--json")
        assert result.exit_code == 0, result.output
        checks = {c["checker"]: c["ok"] for c in json.loads(result.output)["checks"]}
        assert checks == {"cake_lpr": True, "drat-lrat-agreement": True}
        # the default with the checkers found: all four answers recorded
        result = cli("verify-certificate", directory, "--json")
        checks = {c["checker"]: c["ok"] for c in json.loads(result.output)["checks"]}
        assert checks == {"nonosat-lrat": True, "drat-lrat-agreement": True, "drat-trim": True,
                          "cake_lpr": True}, result.output
    bad = _copy(genuine["auto"], tmp_path / "bad")
    (bad / "proof.drat").write_text("garbage\n0\n")
    rehash(bad)
    result = cli("verify-certificate", bad, "--checker", "cake_lpr")
    assert result.exit_code == 1 and "is not the LRAT form of proof.drat" in result.output


def test_a_proof_over_the_size_limit_is_one_line_exit_2(tmp_path, monkeypatch):
    out = tmp_path / "c"
    assert cli("certify", GAMES / "heart.non", "--out", out).exit_code == 0
    monkeypatch.setenv("NONOSAT_MAX_PROOF_BYTES", "4")
    result = cli("verify-certificate", out)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_native_proof_with_a_satisfied_hint_is_accepted_and_named_by_file_and_number(tmp_path):
    """taai2011 #74: nonosat's native proof has a hint clause whose one literal not false is
    already true; cake_lpr accepts that, and so must the default check (it rejected it once).
    ``--puzzle FILE#N`` names puzzle N of a multi-puzzle file, and another number is refused."""
    taai = corpus_path("NonogramRecord", "question", "taai2011.txt")
    out = cli("certify", f"{taai}#74", "--out", tmp_path / "c")
    assert out.exit_code == 0, out.output
    assert "NOT certified" not in out.output
    good = cli("verify-certificate", tmp_path / "c", "--puzzle", f"{taai}#74")
    assert good.exit_code == 0 and "verified: unique solution of" in good.output, good.output
    assert "taai2011.txt#74" in good.output
    other = cli("verify-certificate", tmp_path / "c", "--puzzle", f"{taai}#75")
    assert other.exit_code == 1 and "NOT verified" in other.output, other.output
