"""`nonosat convert` and `nonosat formats` through the CLI."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.formats import formats, read_puzzle, read_puzzles
from tests.conftest import corpus_path

runner = CliRunner()

#: Formats that store clues (every one of them can be converted into every other).
CLUE_FORMATS = [f.name for f in formats().values() if f.write and not f.stores_picture]
SUFFIX = {name: (formats()[name].suffixes or (".out",))[0] for name in formats()}


def _convert(*args: str) -> object:
    return runner.invoke(app, ["convert", *map(str, args)])


@pytest.mark.parametrize("source", CLUE_FORMATS)
def test_convert_between_every_pair_of_clue_formats(tmp_path, source):
    # Square, because tournament files only hold square puzzles.
    dancer = read_puzzle(corpus_path("number-loom", "examples", "wolter", "webpbn-00006.xml"))
    start = tmp_path / f"start{SUFFIX['webpbn']}"
    start.write_bytes(formats()["webpbn"].write(dancer))
    first = tmp_path / f"first{SUFFIX[source]}"
    result = _convert(start, first, "--to", source)
    assert result.exit_code == 0, result.output
    for target in CLUE_FORMATS:
        out = tmp_path / f"{source}-to-{target}{SUFFIX[target]}"
        result = _convert(first, out, "--format", source, "--to", target)
        assert result.exit_code == 0, (source, target, result.output)
        back = read_puzzle(out, target)
        assert (back.rows, back.cols) == (dancer.rows, dancer.cols), (source, target)


def test_convert_to_pictures_uses_the_goal_or_solves_a_unique_puzzle(tmp_path):
    football = corpus_path("Nonogram", "games", "football.json")  # no goal in the file
    for suffix in (".png", ".pbm", ".grid"):
        out = tmp_path / f"football{suffix}"
        result = _convert(football, out)
        assert result.exit_code == 0, result.output
        picture = read_puzzle(out)
        original = read_puzzle(football)
        assert (picture.rows, picture.cols) == (original.rows, original.cols)
        assert original.is_solution(picture.goal)


def test_convert_refuses_a_picture_of_a_puzzle_with_several_solutions(tmp_path):
    katakana = corpus_path("picross-solver", "inputs", "test_pattern_05.txt")
    result = _convert(katakana, tmp_path / "k.png")
    assert result.exit_code == 2
    assert "several solutions" in result.stderr
    assert not (tmp_path / "k.png").exists()


def test_convert_never_overwrites_without_force(tmp_path):
    src = corpus_path("jwilk-nonogram", "data", "data000.nin")
    out = tmp_path / "a.non"
    out.write_text("precious\n")
    result = _convert(src, out)
    assert result.exit_code == 2 and "use --force" in result.stderr
    assert out.read_text() == "precious\n"
    result = _convert(src, out, "--force")
    assert result.exit_code == 0
    assert read_puzzle(out).rows == read_puzzle(src).rows
    assert not [p for p in os.listdir(tmp_path) if "nonosat-tmp" in p]


def test_convert_multi_puzzle_sets_whole_or_by_index(tmp_path):
    data = corpus_path("NonogramRecord", "question", "taai2011.txt").read_bytes()
    src = tmp_path / "taai2011-first-50.txt"
    src.write_bytes(data[: data.find(b"$51")])
    whole = tmp_path / "taai.csv"
    result = _convert(src, whole)
    assert result.exit_code == 0, result.output
    originals = read_puzzles(src)
    converted = read_puzzles(whole)
    assert len(originals) == len(converted) == 50
    assert all(
        (a.rows, a.cols) == (b.rows, b.cols) for a, b in zip(originals, converted, strict=True)
    )

    single = tmp_path / "p42.nin"
    result = _convert(src, single)
    assert result.exit_code == 2 and "pick one with --index N" in result.stderr
    result = _convert(src, single, "--index", "42")
    assert result.exit_code == 0
    assert read_puzzle(single).rows == read_puzzle(src, index=42).rows


def test_convert_to_stdout_and_ambiguous_suffixes(tmp_path):
    src = corpus_path("Nonogram", "games", "football.json")
    result = _convert(src, "-", "--to", "nin")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "20 20"
    result = _convert(src, "-")
    assert result.exit_code == 2 and "needs --to" in result.stderr
    result = _convert(src, tmp_path / "x.txt")
    assert result.exit_code == 2 and "several formats use '.txt'" in result.stderr
    result = _convert(src, tmp_path / "x.txt", "--to", "tournament")
    assert result.exit_code == 0
    assert read_puzzle(tmp_path / "x.txt").cols == read_puzzle(src).cols


def test_convert_refuses_non_square_puzzles_for_tournament_files(tmp_path):
    src = corpus_path("number-loom", "examples", "wolter", "webpbn-00001.xml")
    result = _convert(src, tmp_path / "t.txt", "--to", "tournament")
    assert result.exit_code == 2
    assert "tournament files hold square puzzles; this one is 5x10" in result.stderr


def test_convert_refuses_unknown_clues_for_formats_that_cannot_hold_them(tmp_path):
    src = corpus_path("Nonogram", "games", "P-partial.json")
    result = _convert(src, tmp_path / "p.non")
    assert result.exit_code == 2
    assert "row 7 has an unknown clue" in result.stderr
    result = _convert(src, tmp_path / "p2.json")
    assert result.exit_code == 0
    assert read_puzzle(tmp_path / "p2.json").rows[6] is None


def test_convert_keeps_the_goal_across_goal_carrying_formats(tmp_path):
    src = corpus_path("picross-solver", "inputs", "webpbn", "webpbn-00065-mum.non")
    original = read_puzzle(src)
    path = src
    for suffix in (".xml", ".json", ".non"):
        out = tmp_path / f"mum{suffix}"
        assert _convert(path, out).exit_code == 0
        path = out
    final = read_puzzle(path)
    assert np.array_equal(final.goal, original.goal)
    assert final.title == original.title and final.author == original.author


def test_formats_command_lists_every_format():
    result = runner.invoke(app, ["formats", "--json"])
    assert result.exit_code == 0
    listed = {f["name"]: f for f in json.loads(result.stdout)["formats"]}
    assert set(listed) == set(formats())
    assert listed["tournament"]["multi"] and listed["png"]["picture"]
    text = runner.invoke(app, ["formats"]).stdout
    assert "webpbn" in text and ".nin" in text


def test_convert_says_when_it_drops_givens(tmp_path):
    """webpbn XML and JSON keep the givens; another format drops them with a one-line warning
    on stderr and a "dropped" entry in --json (valid under docs/schema/convert.json); without
    givens nothing is said."""
    from nonosat.formats import encode_puzzles, get_format
    from nonosat.formats.givens import givens_rows, parse_givens, with_givens
    from nonosat.puzzle import Puzzle
    from tests.test_cli_contract import validate

    plain = Puzzle(rows=((1,), (1,)), cols=((1,), (1,)))
    source = tmp_path / "g.json"
    source.write_bytes(encode_puzzles([with_givens(plain, parse_givens(["#?", "??"], (2, 2)))],
                                      get_format("json")))
    result = runner.invoke(app, ["convert", str(source), str(tmp_path / "g.xml")])
    assert result.exit_code == 0 and "warning" not in result.stderr
    assert givens_rows(read_puzzle(tmp_path / "g.xml")) == ["#?", "??"]
    result = runner.invoke(app, ["convert", str(source), str(tmp_path / "g.non")])
    assert result.exit_code == 0
    warning = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warning == ["nonosat: warning: the puzzle's givens (1 given cell) were dropped: "
                       "non cannot hold them (webpbn and json can)"]
    result = runner.invoke(app, ["convert", str(source), str(tmp_path / "g2.non"), "--json"])
    obj = json.loads(result.stdout)
    validate("convert", obj)
    assert obj["dropped"] == [{"what": "givens", "puzzles": [1], "cells": 1}]
    assert obj["warnings"] == [warning[0].removeprefix("nonosat: warning: ")]
    result = runner.invoke(app, ["convert", str(tmp_path / "g.non"), str(tmp_path / "g3.non"),
                                 "--json"])
    assert json.loads(result.stdout)["dropped"] == [] and "warning" not in result.stderr
