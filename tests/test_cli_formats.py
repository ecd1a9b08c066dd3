"""``nonosat formats`` claims only what ``nonosat convert`` does: every format listed as holding
several puzzles reads them and is written with several by convert (round trip, including the
goal pictures); formats that hold one puzzle refuse several (issue 15, CLI)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.formats import formats, read_puzzle, read_puzzles
from nonosat.formats.tournament import write_tournament_set
from nonosat.puzzle import Puzzle

runner = CliRunner()

PICTURES = [
    np.array([[1, 1, 0], [0, 1, 0], [1, 1, 1]], dtype=bool),
    np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1]], dtype=bool),
    np.array([[0, 0, 0], [0, 1, 0], [1, 0, 1]], dtype=bool),
]


def _listed():
    result = runner.invoke(app, ["formats", "--json"])
    assert result.exit_code == 0
    return {f["name"]: f for f in json.loads(result.stdout)["formats"]}


def test_every_multi_puzzle_format_is_also_written_with_several():
    listed = _listed()
    for name, entry in listed.items():
        if entry["multi"] and entry["write"]:
            assert entry["write_many"], name
        assert entry["write_many"] == (formats()[name].write_many is not None)
    assert listed["webpbn"]["write_many"] and listed["non"]["write_many"]
    text = runner.invoke(app, ["formats"]).stdout
    (mode,) = [line.split()[1] for line in text.splitlines() if line.startswith("webpbn")]
    assert mode.startswith("rwmM")


@pytest.mark.parametrize(
    "name", [n for n, f in formats().items() if f.write_many is not None and not f.stores_picture]
)
def test_convert_round_trips_several_puzzles(tmp_path, name):
    puzzles = [Puzzle.from_picture(p) for p in PICTURES]
    source = tmp_path / "set.txt"
    source.write_bytes(write_tournament_set(puzzles))
    suffix = {"non": ".nonpack"}.get(name, formats()[name].suffixes[0])
    out = tmp_path / f"set-out{suffix}"
    result = runner.invoke(app, ["convert", str(source), str(out), "--to", name])
    assert result.exit_code == 0, result.output
    assert "3 puzzles" in result.stderr
    back = read_puzzles(out, name)
    assert [(p.rows, p.cols) for p in back] == [(p.rows, p.cols) for p in puzzles]
    # each one by number, as FILE#N and --index name them
    assert read_puzzle(out, name, 2).rows == puzzles[1].rows
    solved = runner.invoke(app, ["solve", f"{out}#3", "--json", "--format", name])
    assert solved.exit_code == 0, solved.output
    assert json.loads(solved.stdout)["solutions"][0] == ["...", ".#.", "#.#"]


@pytest.mark.parametrize("name", ["webpbn", "non"])
def test_goal_pictures_survive_a_multi_puzzle_round_trip(tmp_path, name):
    from dataclasses import replace

    puzzles = [replace(Puzzle.from_picture(p), goal=p) for p in PICTURES]
    data = formats()[name].write_many(puzzles)
    out = tmp_path / ("set.xml" if name == "webpbn" else "set.nonpack")
    out.write_bytes(data)
    back = read_puzzles(out)
    assert len(back) == 3
    for original, copy in zip(puzzles, back, strict=True):
        assert np.array_equal(copy.goal, original.goal)


def test_single_puzzle_formats_refuse_several(tmp_path):
    source = tmp_path / "set.txt"
    source.write_bytes(write_tournament_set([Puzzle.from_picture(p) for p in PICTURES]))
    for name, fmt in formats().items():
        if fmt.write is None or fmt.write_many is not None or fmt.stores_picture:
            continue
        out = tmp_path / f"x-{name}{fmt.suffixes[0]}"
        result = runner.invoke(app, ["convert", str(source), str(out), "--to", name])
        assert result.exit_code == 2, (name, result.output)
        assert "pick one with --index N" in result.stderr
        assert not out.exists()


def test_file_hash_n_names_one_puzzle_for_every_command_of_this_module(tmp_path):
    puzzles = [Puzzle.from_picture(p) for p in PICTURES]
    source = tmp_path / "set.txt"
    source.write_bytes(write_tournament_set(puzzles))
    out = runner.invoke(app, ["convert", f"{source}#2", "-", "--to", "nin"])
    assert out.exit_code == 0, out.output
    assert out.stdout == runner.invoke(app, ["convert", str(source), "-", "--to", "nin",
                                             "--index", "2"]).stdout
    encoded = runner.invoke(app, ["encode", f"{source}#3", "--out", "-"])
    assert encoded.exit_code == 0 and encoded.stdout.startswith("c nonosat CNF")
    verified = runner.invoke(app, ["verify", f"{source}#3", "--claim", "unique"])
    assert verified.exit_code == 0, verified.output
    # a file really named like that is read as it is
    odd = tmp_path / "odd.nin#2"
    odd.write_text("2 2\n2\n1\n2\n1\n")
    result = runner.invoke(app, ["convert", str(odd), "-", "--to", "nin"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "2 2"
