"""Every text report of every command fits 80 columns in a pipe (issue 25): long lines wrap at
word boundaries with a hanging indent (:func:`nonosat.cli.output.wrap_lines`), grids and short
codes too wide are summarised.  Run on games/ and a corpus sample (survey puzzles with long
webpbn names, a 55-wide puzzle, pbnsolve's acorn.g, faase.nin), all copied under a long
temporary path so that verdict lines naming a file are long.  ``--brief`` lines, JSON and
one-line errors stay one line whatever their length (docs/cli.md) and are not run here.
``benchmarks/cli_width.py`` runs the same as processes and prints the widest line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nonosat.cli.app import COMMANDS, app
from tests.conftest import GAMES, corpus_path

WIDTH = 80
LONG = "a-rather-long-directory-name-for-the-eighty-column-check/deeper/deeper"
SAMPLE = {
    "webpbn-00027.nin": ("FastNonogramSolver", "puzzles", "survey", "webpbn-00027.nin"),
    "webpbn-01611.nin": ("FastNonogramSolver", "puzzles", "survey", "webpbn-01611.nin"),
    "acorn.g": ("pbnsolve-examples", "acorn.g"),
    "faase.nin": ("FastNonogramSolver", "puzzles", "survey", "faase.nin"),
}


@pytest.fixture(scope="module")
def where(tmp_path_factory) -> Path:
    """A long directory holding the games and the corpus sample under long names."""
    root = tmp_path_factory.mktemp("width") / LONG
    root.mkdir(parents=True)
    for game in GAMES.iterdir():
        shutil.copy(game, root / f"{game.stem}-with-a-long-descriptive-name{game.suffix}")
    return root


def _game(where: Path, stem: str) -> Path:
    return next(where.glob(f"{stem}-with-a-long-descriptive-name.*"))


def _check(args: list[str]) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    for stream in (result.stdout, result.stderr):
        for line in stream.splitlines():
            assert len(line) <= WIDTH, f"nonosat {' '.join(map(str, args))}:\n{line}"


@pytest.fixture(autouse=True)
def _pipe(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.mark.parametrize("command", [[], *[[c] for c in COMMANDS]], ids=lambda c: "-".join(c))
def test_help_fits(command):
    _check([*command, "-h"])


def test_formats_fits():
    _check(["formats"])


GAME_RUNS = {
    "solve": [], "solve-limit": ["--limit", "5"], "hint": [], "explain": ["--max-steps", "40"],
    "analyse": ["--backdoor-timeout", "0.2"], "verify": ["--claim", "unique"], "render": [],
}


@pytest.mark.parametrize("run", sorted(GAME_RUNS))
def test_game_reports_fit(run, where):
    command = run.split("-")[0]
    for game in sorted(where.glob("*-with-a-long-descriptive-name.*")):
        _check([command, game, *GAME_RUNS[run]])


def test_certify_verify_certificate_encode_convert_fit(where, tmp_path):
    for stem in ("heart", "cross-ambiguous", "impossible", "ladybird"):
        out = where / f"certificate-directory-of-{stem}"
        _check(["certify", _game(where, stem), "--out", out, "--force"])
        _check(["verify-certificate", out])
        _check(["verify-certificate", out, "--puzzle", _game(where, stem)])
    broken = where / "certificate-directory-of-heart"
    (broken / "solution.txt").write_text("#\n")
    _check(["verify-certificate", broken])
    _check(["encode", _game(where, "heart"), "--out", where / "heart-encoded.cnf", "--force"])
    _check(["convert", _game(where, "heart"), where / "heart-converted.xml", "--force"])


def test_crosscheck_batch_generate_fit(where, tmp_path):
    few = where / "two-puzzles-for-the-batch-and-the-crosscheck"
    few.mkdir(exist_ok=True)
    for stem in ("heart", "cross-ambiguous"):
        shutil.copy(_game(where, stem), few)
    _check(["crosscheck", few, "--engine", "native,sat"])  # "in FOLDER/:" above the table
    _check(["batch", few, "--out", where / "batch-results.jsonl", "-j", "1"])
    _check(["generate", "--random", "12x12", "--seed", "1", "--out",
            where / "generated-puzzle.non", "--force"])


def test_corpus_sample_fits(where):
    """Long survey names, a 55x60 puzzle (its grid and short codes summarised), acorn.g (a
    colour grid 171 columns wide) and faase.nin (80x95)."""
    copies = {}
    for name, parts in SAMPLE.items():
        source = corpus_path(*parts)
        copies[name] = where / f"{Path(name).stem}-from-the-corpus-sample{Path(name).suffix}"
        shutil.copy(source, copies[name])
    for name in ("webpbn-00027.nin", "webpbn-01611.nin", "acorn.g"):
        _check(["solve", copies[name], "--timeout", "30"])
        _check(["render", copies[name]])
    _check(["analyse", copies["webpbn-00027.nin"], "--backdoor-timeout", "1", "--timeout", "30"])
    _check(["explain", copies["webpbn-00027.nin"], "--max-steps", "30"])
    _check(["explain", copies["acorn.g"], "--max-steps", "10"])
    _check(["hint", copies["webpbn-01611.nin"]])
    _check(["solve", copies["faase.nin"], "--timeout", "2"])
