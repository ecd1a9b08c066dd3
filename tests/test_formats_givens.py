"""Givens (cells known from the start) in the formats that hold them: webpbn XML's partial
``<solution type="saved">`` and the JSON format's ``"givens"``; other writers leave them out.

Round trips are checked against the grid written, and a saved partial solution as webpbn writes
it (hand-written here, not produced by our writer) is read back."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import numpy as np
import pytest

from nonosat.engines import Status, solve
from nonosat.errors import FormatError, PuzzleError
from nonosat.formats import encode_puzzles, formats, get_format
from nonosat.formats.givens import (
    givens_of,
    givens_rows,
    givens_text,
    parse_givens,
    with_givens,
)
from nonosat.puzzle import Cell, Colour, Palette, Puzzle, grid_from_rows

#: A 2x2 puzzle with two solutions (the diagonals); one given makes it unique.
DIAGONALS = Puzzle(rows=[(1,), (1,)], cols=[(1,), (1,)])
GIVENS = ["#?", "??"]


def _read(name: str, data: bytes) -> Puzzle:
    fmt = get_format(name)
    assert fmt.read is not None
    return fmt.read(data, f"test{fmt.suffixes[0]}")[0]


@pytest.mark.parametrize("name", ["webpbn", "json"])
@pytest.mark.parametrize("title", [None, 'a<&"]]>\n?#|\u202eb'])
def test_givens_round_trip(name, title):
    puzzle = with_givens(dataclasses.replace(DIAGONALS, title=title),
                         grid_from_rows(GIVENS, (2, 2)))
    back = _read(name, encode_puzzles([puzzle], get_format(name)))
    assert givens_rows(back) == GIVENS
    assert back == puzzle
    # the givens make the puzzle unique: the solver, started from them, agrees
    assert solve(back, "cpsat", partial=givens_of(back), limit=2).status == Status.UNIQUE
    # a puzzle without givens is written without them and read back without them
    plain = _read(name, encode_puzzles([DIAGONALS], get_format(name)))
    assert givens_of(plain) is None


def test_webpbn_saved_partial_solution_is_read_as_givens():
    xml = b"""<?xml version="1.0"?>
<puzzleset><puzzle type="grid" defaultcolor="black">
<color name="white" char=".">fff</color><color name="black" char="X">000</color>
<clues type="columns"><line><count>1</count></line><line><count>1</count></line></clues>
<clues type="rows"><line><count>1</count></line><line><count>1</count></line></clues>
<solution type="goal"><image>|X.|\n|.X|</image></solution>
<solution type="saved"><image>\n|?.|\n|??|\n</image></solution>
</puzzle></puzzleset>"""
    puzzle = _read("webpbn", xml)
    assert givens_rows(puzzle) == ["?.", "??"]
    assert puzzle.goal is not None and puzzle.goal.tolist() == [[True, False], [False, True]]
    # an all-unknown saved image is no givens
    empty = _read("webpbn", xml.replace(b"|?.|", b"|??|"))
    assert givens_of(empty) is None


def test_bad_givens_name_the_file():
    with pytest.raises(FormatError, match="givens"):
        _read("json", b'{"rows": [[1], [1]], "cols": [[1], [1]], "givens": ["#?"]}')
    with pytest.raises(FormatError, match="givens"):
        _read("json", b'{"rows": [[1], [1]], "cols": [[1], [1]], "givens": ["#?", "?z"]}')
    with pytest.raises(FormatError, match="saved"):
        _read("webpbn", b"""<puzzleset><puzzle type="grid">
<clues type="columns"><line><count>1</count></line><line><count>1</count></line></clues>
<clues type="rows"><line><count>1</count></line><line><count>1</count></line></clues>
<solution type="saved"><image>|?..|\n|??|</image></solution></puzzle></puzzleset>""")


def test_only_webpbn_and_json_store_givens_and_the_state_file_reads_back():
    assert {f.name for f in formats().values() if f.stores_givens} == {"webpbn", "json"}
    puzzle = with_givens(DIAGONALS, grid_from_rows(GIVENS, (2, 2)))
    text = givens_text(puzzle)
    assert text == "#?\n??\n"
    state = grid_from_rows(text.split(), (2, 2))  # what `--state FILE` reads
    assert np.array_equal(state, givens_of(puzzle))
    assert givens_text(DIAGONALS) is None
    assert int((state != Cell.UNKNOWN).sum()) == 1


def _colour_puzzle(red: str, blue: str, red_char: str = "r", blue_char: str = "b") -> Puzzle:
    """2x4, red diagonals on the left and blue on the right: four solutions."""
    palette = Palette((Colour("white", (255, 255, 255), "."), Colour(red, (255, 0, 0), red_char),
                       Colour(blue, (0, 0, 255), blue_char)))
    return Puzzle(rows=((1, 1), (1, 1)), cols=((1,), (1,), (1,), (1,)),
                  row_colours=((1, 2), (1, 2)), col_colours=((1,), (1,), (2,), (2,)),
                  palette=palette)


#: Colour names and characters nonosat must write so that it reads them back: markup, quotes,
#: line breaks, a bar, '?' (an unknown cell of a givens grid) and a space as characters.
HOSTILE = [("red", "blue", "r", "b"),
           ('r<&"ed\n x', "blu|e ]]>", "?", "|"),
           ("\u202eevil\r", "?", " ", "#")]


@pytest.mark.parametrize("name", ["webpbn", "json"])
@pytest.mark.parametrize("names", HOSTILE)
def test_colour_givens_round_trip(name, names):
    puzzle = _colour_puzzle(*names)
    assert solve(puzzle, "cpsat", limit=5).status == Status.MULTIPLE
    state = parse_givens(["a???", "???b"], puzzle.shape, ".ab")
    assert state is not None
    given = with_givens(puzzle, state)
    back = _read(name, encode_puzzles([given], get_format(name)))
    assert back.palette is not None
    assert [c.name for c in back.palette.colours] == [c.name for c in puzzle.palette.colours]
    # the same cells given the same colours, whatever characters the file used
    assert givens_rows(back, ".ab") == ["a???", "???b"]
    assert np.array_equal(givens_of(back), givens_of(given))
    # an independent engine, started from the givens read back: one solution, which keeps them
    result = solve(back, "cpsat", partial=givens_of(back), limit=2)
    assert result.status == Status.UNIQUE
    assert result.solutions[0][0, 0] == 1 and result.solutions[0][1, 3] == 2
    # without givens: written and read back without them
    assert givens_of(_read(name, encode_puzzles([puzzle], get_format(name)))) is None


def test_colour_givens_state_file_and_partial_masks():
    puzzle = _colour_puzzle("red", "blue")
    # a cell with two colours left is no given: only the one-colour cells are kept
    masks = np.full(puzzle.shape, 7, dtype=np.int32)
    masks[0, 0], masks[1, 3], masks[0, 1] = 2, 4, 3
    given = with_givens(puzzle, masks)
    assert givens_rows(given) == ["r???", "???b"]
    text = givens_text(given)
    assert text == "r???\n???b\n"
    from nonosat.cli.inputs import read_state  # what `--state FILE` reads

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.txt"
        path.write_text(text)
        assert np.array_equal(read_state(path, given), givens_of(given))
    assert with_givens(puzzle, np.full(puzzle.shape, 7, dtype=np.int32)).meta == {}
    with pytest.raises(PuzzleError, match="palette"):
        with_givens(puzzle, np.full(puzzle.shape, 8, dtype=np.int32))


def test_webpbn_colour_saved_image_is_read_and_checked():
    xml = (CORPUS_COLOUR_HEAD + b"""<solution type="saved"><image>
|*??X|
|????|
</image></solution></puzzle></puzzleset>""")
    puzzle = _read("webpbn", xml)
    assert puzzle.palette is not None
    assert givens_rows(puzzle, ".ab") == ["a??b", "????"]
    with pytest.raises(FormatError, match="saved cell 2"):
        _read("webpbn", xml.replace(b"|*??X|", b"|*Z?X|"))


#: A colour webpbn puzzle as webpbn writes them (the layout of webpbn-color-00047.xml).
CORPUS_COLOUR_HEAD = b"""<?xml version="1.0"?>
<puzzleset><puzzle type="grid" defaultcolor="black">
<color name="white" char=".">FFFFFF</color>
<color name="red" char="*">FF0000</color>
<color name="black" char="X">000000</color>
<clues type="columns">
<line><count color="red">1</count></line><line><count color="red">1</count></line>
<line><count>1</count></line><line><count>1</count></line>
</clues>
<clues type="rows">
<line><count color="red">1</count><count>1</count></line>
<line><count color="red">1</count><count>1</count></line>
</clues>
"""


@pytest.mark.parametrize("name", ["webpbn", "json"])
def test_cli_commands_start_from_the_givens_a_file_holds(name, tmp_path):
    """``solve``, ``hint`` and ``encode`` use the file's givens when no ``--state`` is given: the
    diagonals puzzle is unique with its one given and has two solutions without it, as CP-SAT
    says of both (``--state`` still overrides the file's givens)."""
    import subprocess
    import sys

    fmt = get_format(name)
    with_file = tmp_path / f"given{fmt.suffixes[0]}"
    with_file.write_bytes(encode_puzzles([with_givens(DIAGONALS, grid_from_rows(GIVENS, (2, 2)))],
                                         fmt))
    plain_file = tmp_path / f"plain{fmt.suffixes[0]}"
    plain_file.write_bytes(encode_puzzles([DIAGONALS], fmt))
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("??\n??\n")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "nonosat", *args], capture_output=True,
                              text=True, timeout=120)

    assert solve(DIAGONALS, "cpsat", limit=3).status == Status.MULTIPLE
    assert solve(DIAGONALS, "cpsat", partial=grid_from_rows(GIVENS, (2, 2)),
                 limit=3).status == Status.UNIQUE
    given = run("solve", str(with_file), "--engine", "sat")
    assert given.returncode == 0, given.stdout + given.stderr
    assert run("solve", str(plain_file), "--engine", "sat").returncode == 1
    assert run("solve", str(with_file), "--state", str(unknown)).returncode == 1
    hint = run("hint", str(with_file), "--json")
    assert hint.returncode == 0, hint.stderr
    # from the given top-left cell, logic fills in the rest; without it a guess is needed
    import json

    report = json.loads(hint.stdout)
    assert report["outcome"] == "deduction"
    assert {(c["row"], c["col"], c["value"]) for c in report["cells"]} <= {
        (1, 2, "empty"), (2, 1, "empty"), (2, 2, "filled")}
    cnf = run("encode", str(with_file), "--out", "-")
    plain_cnf = run("encode", str(plain_file), "--out", "-")
    clauses = [line for line in cnf.stdout.splitlines() if line.startswith("p cnf")]
    plain_clauses = [line for line in plain_cnf.stdout.splitlines() if line.startswith("p cnf")]
    assert int(clauses[0].split()[3]) == int(plain_clauses[0].split()[3]) + 1  # one unit clause


def _cnf_cell_models(dimacs: str) -> set[tuple[int, ...]]:
    """The models of a colour DIMACS text projected on its cell variables (the 'c cell r c
    colour k -> v' comments), enumerated by CaDiCaL (PySAT) with blocking clauses."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cells = [int(line.split()[-1]) for line in dimacs.splitlines()
             if line.startswith("c cell ")]
    models = set()
    with Solver(name="cadical153", bootstrap_with=CNF(from_string=dimacs).clauses) as sat:
        while sat.solve():
            model = sat.get_model()
            models.add(tuple(v for v in cells if model[v - 1] > 0))
            sat.add_clause([-model[v - 1] for v in cells])
    return models


@pytest.mark.parametrize("name", ["webpbn", "json"])
def test_colour_encode_keeps_the_givens_a_file_holds(name, tmp_path):
    """``encode`` of a colour file with givens writes their unit clauses: the CNF's solutions
    (enumerated by CaDiCaL) are as many as CP-SAT finds started from the givens, and a
    ``--state`` grid replaces the file's givens, as for black and white."""
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    puzzle = _colour_puzzle("red", "blue")
    # one given on the left: two solutions left of four
    state = parse_givens(["r???", "????"], puzzle.shape, ".rb")
    fmt = get_format(name)
    path = tmp_path / f"given{fmt.suffixes[0]}"
    path.write_bytes(encode_puzzles([with_givens(puzzle, state)], fmt))
    expected = solve(puzzle, "cpsat", partial=state, limit=10)
    assert len(expected.solutions) == 2
    assert len(solve(puzzle, "cpsat", limit=10).solutions) == 4
    runner = CliRunner()
    out = runner.invoke(app, ["encode", str(path), "--out", "-"])
    assert out.exit_code == 0, out.output
    assert len(_cnf_cell_models(out.stdout)) == len(expected.solutions)
    # --state overrides the file's givens (here: both sides given, one solution)
    grid = tmp_path / "state.txt"
    grid.write_text("r???\n???b\n")
    out = runner.invoke(app, ["encode", str(path), "--out", "-", "--state", str(grid)])
    assert out.exit_code == 0, out.output
    assert len(_cnf_cell_models(out.stdout)) == 1


def test_certify_says_it_leaves_the_files_givens_out(tmp_path):
    """``certify`` proves the clues alone (a certificate's ``puzzle.json`` holds no givens):
    for a file with givens it says so, and its verdict is CP-SAT's without them (the diagonals
    puzzle: several solutions, though unique from its given); ``analyse`` and ``crosscheck``,
    which judge the clues alone too, say so as well."""
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    path = tmp_path / "given.json"
    path.write_bytes(encode_puzzles([with_givens(DIAGONALS, grid_from_rows(GIVENS, (2, 2)))],
                                    get_format("json")))
    assert solve(DIAGONALS, "cpsat", limit=3).status == Status.MULTIPLE
    out = CliRunner().invoke(app, ["certify", str(path), "--out", str(tmp_path / "cert")])
    assert out.exit_code == 1, out.output
    assert "givens the file holds are left out" in out.stderr
    plain = tmp_path / "plain.json"
    plain.write_bytes(encode_puzzles([DIAGONALS], get_format("json")))
    out = CliRunner().invoke(app, ["certify", str(plain), "--out", str(tmp_path / "cert2")])
    assert out.exit_code == 1 and "givens" not in out.stderr
    for command, code in ((["analyse", str(path)], 1), (["crosscheck", str(path), str(plain)], 0)):
        out = CliRunner().invoke(app, command)
        assert out.exit_code == code, out.output
        assert out.stderr.count("givens the file holds are left out") == 1, out.stderr
