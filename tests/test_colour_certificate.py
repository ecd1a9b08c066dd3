"""Colour certificates: a DRAT proof of uniqueness checked by the in-process checker (dratify),
re-verified from the directory, and rejected once tampered with."""

from __future__ import annotations

import hashlib
import json

import numpy as np
from typer.testing import CliRunner

from nonosat.certificates.colour_proofs import certify_colour, verify_colour_certificate
from nonosat.cli.app import app
from nonosat.formats import read_puzzle
from tests.conftest import corpus_path

runner = CliRunner()


def _rehash(directory, name):
    """Update certificate.json's SHA-256 of ``name`` so that only the content check can fail."""
    record = json.loads((directory / "certificate.json").read_text())
    record["files"][name] = hashlib.sha256((directory / name).read_bytes()).hexdigest()
    (directory / "certificate.json").write_text(json.dumps(record))


def test_colour_certificate_is_checked_and_a_tampered_one_rejected(tmp_path):
    shuttle = corpus_path("pbnsolve-examples", "spaceShuttle.g")
    out = tmp_path / "cert"
    result = runner.invoke(app, ["certify", str(shuttle), "--out", str(out), "--checker", "dratify"])
    assert result.exit_code == 0, result.output
    assert "unique solution, certified" in " ".join(result.output.split())  # wrapped at 80
    record = json.loads((out / "certificate.json").read_text())
    assert record["kind"] == "colour" and record["certified"] is True
    assert [(c["checker"], c["ok"]) for c in record["checkers"]] == [
        ("nonosat-lrat", True), ("drat-lrat-agreement", True), ("dratify", True)]
    ok = runner.invoke(app, ["verify-certificate", str(out), "--checker", "dratify"])
    assert ok.exit_code == 0, ok.output

    # a proof cut to its first quarter (plus the empty clause) must be rejected by the checker
    proof = (out / "proof.drat").read_text().splitlines()
    (out / "proof.drat").write_text("\n".join(proof[: len(proof) // 4]) + "\n0\n")
    _rehash(out, "proof.drat")
    bad = runner.invoke(app, ["verify-certificate", str(out), "--checker", "dratify"])
    assert bad.exit_code == 1
    assert "rejected by dratify" in bad.output and "is not the LRAT form" in bad.output

    # an unrehashed edit is caught by the hashes
    (out / "proof.drat").write_text("\n".join(proof) + "\n")
    (out / "solution.txt").write_text((out / "solution.txt").read_text().replace("r", "1", 1))
    bad = verify_colour_certificate(out)
    assert not bad.ok and any("solution.txt" in p for p in bad.problems)


def test_in_process_certificate_of_a_colour_puzzle():
    puzzle = read_puzzle(corpus_path("number-loom", "examples", "wolter", "webpbn-color-00047.xml"))
    cert = certify_colour(puzzle)
    assert cert.verdict == "unique" and cert.proved
    assert (cert.solutions[0] == puzzle.goal).all()
    # the formula without the blocking clause is satisfiable: the proof must not check there
    from nonosat.certificates import check_proof

    assert cert.formula is not None
    assert not check_proof(cert.formula[:-1], cert.nvars, cert.proof).ok


def test_every_corpus_colour_puzzle_is_certified_analysed_and_drawn():
    """The issue's "done when": certify, analyse and render work on every colour puzzle of the
    corpus (crosscheck: tests/test_colour.py and tests/test_colour_cli.py)."""
    from nonosat.analysis.difficulty import analyse
    from nonosat.render.svg import render_svg
    from tests.test_colour import _readable, check, colour_corpus

    puzzles = [p for f in colour_corpus() for p in _readable(f) if p.is_colour]
    assert len(puzzles) == 13
    for puzzle in puzzles:
        cert = certify_colour(puzzle)
        assert cert.verdict == "unique" and cert.proved, puzzle.describe()
        check(puzzle, cert.solutions[0])
        analysis = analyse(puzzle)
        assert analysis.status.value == "unique" and analysis.grade.grade in (1, 2, 3)
        assert np.array_equal(analysis.solutions[0], cert.solutions[0])
        svg = render_svg(puzzle, solutions=analysis.solutions)
        used = {int(v) for v in np.unique(cert.solutions[0]) if v}
        for k in used:
            assert f'fill="{puzzle.palette.colours[k].hex}"' in svg
