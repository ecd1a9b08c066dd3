"""Issue 25 item 5: ``verify --results`` reads the peers' own files, captured from real runs in
tests/peers/ (see its README.md): nonosolve's ``--log`` and ``-o`` solution file (also cut
short), pbnsolve's ``-b`` and verbose output; ``solve``/``batch --taai-out`` write the
tournament solution format, which reads back.  The verdicts nonosolve and pbnsolve claim are
judged by nonosat's own evidence (certificates, solutions), never taken on trust."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, _missing
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.errors import FormatError
from nonosat.formats import read_puzzles
from nonosat.formats.tournament import read_solutions, solution_blocks, write_solutions
from nonosat.judge import check_solution, parse_solution, read_results

PEER_DATA = Path(__file__).resolve().parent / "peers"
PEERS = Path(os.environ.get("NONOSAT_PEERS", REPO.parent / "shared" / "peers"))
PUZZLES = [PEER_DATA / n for n in ("set.txt", "plus.non", "diagonals.non", "impossible.non",
                                   "hard.non")]
runner = CliRunner()


def _verify(results: Path, *puzzles: Path) -> tuple[int, list[tuple], dict]:
    """Exit code, ``(puzzle, claim, outcome)`` of each row (the puzzle's file name and number,
    the outcome ``None`` for a row not judged) and the summary of ``verify --results --json``."""
    result = runner.invoke(app, ["verify", "--results", str(results), *map(str, puzzles),
                                 "--json", "--jobs", "1", "--out", str(results) + ".w"])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    rows = [(Path(r["puzzle"]).name, r.get("claim"), r.get("claim_outcome")) for r in lines[:-1]]
    assert lines[-1]["kind"] == "summary"
    return result.exit_code, rows, lines[-1]


def test_nonosolve_log_rows_claim_its_verdicts():
    rows = read_results(PEER_DATA / "nonosolve-log.txt")
    assert [(r.id, r.status, r.solution, r.problem) for r in rows] == [
        ("1", "unique", None, None), ("2", "multiple", None, None), ("3", "none", None, None),
        ("4", "multiple", None, None)]


def test_a_cut_nonosolve_solution_file_keeps_its_intact_puzzles():
    whole = read_results(PEER_DATA / "nonosolve-sol.txt")
    cut = read_results(PEER_DATA / "nonosolve-sol-cut.txt")
    assert [(r.id, r.status) for r in whole] == [("1", "solved"), ("2", "solved"),
                                                 ("3", "unknown"), ("4", "solved")]
    assert [(r.id, r.status, r.solution) for r in cut[:3]] == [
        (r.id, r.status, r.solution) for r in whole[:3]]
    assert cut[3].id == "4" and cut[3].solution is None
    assert "cut short: 12 whole rows of 15" in cut[3].problem
    # the puzzle reader names the cut block instead of misreading it as clues
    with pytest.raises(FormatError, match=r"nonosolve-sol-cut.txt:16: solution \$4 is cut short"):
        read_puzzles(PEER_DATA / "nonosolve-sol-cut.txt")
    with pytest.raises(FormatError, match="cut short"):
        read_solutions(PEER_DATA / "nonosolve-sol-cut.txt")


def test_pbnsolve_outputs_give_one_row_per_run():
    rows = read_results(PEER_DATA / "pbnsolve-b.txt")
    assert [(r.id, r.status, r.solution) for r in rows] == [
        ("plus.non", "unique", None), ("diagonals.non", "multiple", None),
        ("impossible.non", "none", None), ("hard.non", "unknown", None)]
    (one,) = read_results(PEER_DATA / "plus.non.pbnsolve-b")
    assert (one.id, one.status) == ("", "unique")
    (verbose,) = read_results(PEER_DATA / "diagonals.non.pbnsolve-verbose")
    assert (verbose.id, verbose.status, verbose.solution) == (
        "", "multiple", ["X...", "...X", "..XX", ".XX."])


def test_verify_judges_the_peers_claims_with_its_own_evidence(tmp_path):
    for name in ("nonosolve-log.txt", "nonosolve-sol-cut.txt", "pbnsolve-b.txt"):
        shutil.copy(PEER_DATA / name, tmp_path / name)
    code, rows, _ = _verify(tmp_path / "nonosolve-log.txt", *PUZZLES)
    assert code == 0
    assert rows == [("set.txt#1", "unique", "confirmed"), ("set.txt#2", "multiple", "confirmed"),
                    ("set.txt#3", "none", "confirmed"), ("set.txt#4", "multiple", "confirmed")]
    code, rows, summary = _verify(tmp_path / "nonosolve-sol-cut.txt", *PUZZLES)
    assert code == 2  # the cut block is a bad row; the intact ones are judged
    assert rows == [("set.txt#1", "solved", "confirmed"), ("set.txt#2", "solved", "confirmed"),
                    ("set.txt#3", None, None), ("4", None, None)]
    (bad,) = summary["bad_rows"]
    assert bad["line"] == 16 and "cut short: 12 whole rows of 15" in bad["reason"]
    # pbnsolve's rows name the same puzzles by file (its verdicts are the same claims)
    from nonosat.batch import collect_puzzles
    from nonosat.judge import PuzzleIndex

    index = PuzzleIndex(collect_puzzles(PUZZLES, None).puzzles)
    for row in read_results(tmp_path / "pbnsolve-b.txt"):
        assert index.find(row.id)[0].endswith(row.id)


def test_verify_solution_takes_an_intact_picture_of_a_cut_file():
    ok = runner.invoke(app, ["verify", str(PEER_DATA / "set.txt"), "--index", "2", "--solution",
                             str(PEER_DATA / "nonosolve-sol-cut.txt")])
    assert ok.exit_code == 0 and "CONFIRMED" in ok.stdout
    cut = runner.invoke(app, ["verify", str(PEER_DATA / "set.txt"), "--index", "4",
                              "--solution", str(PEER_DATA / "nonosolve-sol-cut.txt")])
    assert cut.exit_code == 2 and "cut short" in cut.stderr


def test_taai_out_round_trips_through_verify_results(tmp_path):
    puzzles = tmp_path / "set.txt"
    shutil.copy(PEER_DATA / "set.txt", puzzles)
    one, many = tmp_path / "one.txt", tmp_path / "many.txt"
    solved = runner.invoke(app, ["solve", str(puzzles), "--index", "2", "--taai-out", str(one)])
    assert solved.exit_code == 1, solved.output  # several solutions; the first is written
    again = runner.invoke(app, ["solve", str(puzzles), "--index", "2", "--taai-out", str(one)])
    assert again.exit_code == 2 and "already exists" in again.stderr  # never over a file
    batch = runner.invoke(app, ["batch", str(puzzles), "--jobs", "1", "--taai-out", str(many)])
    assert batch.exit_code == 0, batch.output
    blocks = solution_blocks(many.read_bytes(), str(many))
    assert [(n, p is not None and p.any()) for n, _, p, _ in blocks] == [
        (1, True), (2, True), (3, False), (4, True)]  # no solution: all 0, as nonosolve writes
    code, rows, summary = _verify(many, puzzles)
    assert code == 0 and not summary["bad_rows"]
    assert rows == [("set.txt#1", "solved", "confirmed"), ("set.txt#2", "solved", "confirmed"),
                    ("set.txt#3", None, None), ("set.txt#4", "solved", "confirmed")]
    (row,) = read_results(one)
    assert (row.id, row.status) == ("2", "solved")
    puzzle = read_puzzles(puzzles)[1]
    assert check_solution(puzzle, parse_solution(row.solution, puzzle.shape)).valid
    with pytest.raises(FormatError, match="square"):
        write_solutions([(1, (2, 3), np.zeros((2, 3), bool))])


def test_live_peers_write_what_the_captured_files_show(tmp_path):
    """Run nonosolve and pbnsolve now (skipped outside CI where ../shared/peers is absent) and
    read their output: the same rows as the captured files."""
    nonosolve, pbnsolve = PEERS / "nonosolve", PEERS / "pbnsolve"
    if not (os.access(nonosolve, os.X_OK) and os.access(pbnsolve, os.X_OK)):
        _missing(f"peer solvers not found in {PEERS} (clone ../shared beside the repo)")
    shutil.copy(PEER_DATA / "set.txt", tmp_path / "set.txt")
    subprocess.run([str(nonosolve), "--taai", "set.txt", "-n", "2", "-o", "sol.txt", "--log",
                    "log.txt"], cwd=tmp_path, check=True, capture_output=True, timeout=60)
    for live, captured in (("log.txt", "nonosolve-log.txt"), ("sol.txt", "nonosolve-sol.txt")):
        assert [(r.id, r.status) for r in read_results(tmp_path / live)] == [
            (r.id, r.status) for r in read_results(PEER_DATA / captured)]
    shutil.copy(PEER_DATA / "diagonals.non", tmp_path / "diagonals.non")
    out = subprocess.run([str(pbnsolve), "-b", "-u", "diagonals.non"], cwd=tmp_path,
                         check=True, capture_output=True, timeout=60).stdout
    (tmp_path / "pbn.txt").write_bytes(out)
    assert [(r.id, r.status) for r in read_results(tmp_path / "pbn.txt")] == [("", "multiple")]
