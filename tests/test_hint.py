"""Hints: the overlap rule, the order of techniques, the sentences, mistakes, and replaying hints.

The overlap rule is checked against brute-force enumeration of a line's arrangements and must
never claim more than the complete line solver; replayed hints must never set a cell against the
solution found by the SAT engine, and must finish every puzzle that line solving finishes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nonosat.analysis.hints import (
    HintFinder,
    apply_hint,
    next_hint,
    positions_text,
)
from nonosat.analysis.overlap import block_ranges, overlap
from nonosat.analysis.walkthrough import explain
from nonosat.cli.app import app
from nonosat.engines import solve
from nonosat.native.line import solve_line
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Cell, Puzzle, line_blocks, unknown_grid
from tests.conftest import corpus_path, pictures


def arrangements(clue: tuple[int, ...], cells: list[int]) -> list[tuple[bool, ...]]:
    """Every filling of the line that matches ``clue`` and the known ``cells`` (brute force)."""
    out = []
    for bits in itertools.product((False, True), repeat=len(cells)):
        if line_blocks(bits) != clue:
            continue
        if all(v & (Cell.FILLED if b else Cell.EMPTY) for b, v in zip(bits, cells, strict=True)):
            out.append(bits)
    return out


def starts(bits: tuple[bool, ...]) -> list[int]:
    return [i for i, b in enumerate(bits) if b and (i == 0 or not bits[i - 1])]


#: ``(clue, cells)``: the clue of a random line and a random partial state of that line (each
#: cell unknown, empty or filled, whatever the line holds).
lines = st.integers(1, 10).flatmap(
    lambda n: st.tuples(
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.sampled_from([Cell.UNKNOWN, Cell.UNKNOWN, Cell.EMPTY, Cell.FILLED]),
                 min_size=n, max_size=n),
    )
).map(lambda line: (line_blocks(line[0]), [int(m) for m in line[1]]))


@settings(max_examples=300, deadline=None)
@given(lines)
def test_block_ranges_match_brute_force(line):
    clue, cells = line
    fits = arrangements(clue, cells)
    ranges = block_ranges(clue, cells)
    if not fits:
        assert ranges is None
        return
    expected = [(min(starts(f)[j] for f in fits), max(starts(f)[j] for f in fits))
                for j in range(len(clue))]
    assert ranges == expected


@settings(max_examples=300, deadline=None)
@given(lines)
def test_overlap_is_sound_and_weaker_than_the_line_solver(line):
    clue, cells = line
    result = overlap(clue, cells)
    full = solve_line(clue, np.array(cells, dtype=np.int8))
    if full is None:
        assert result is None
        return
    for i in result.filled:
        assert full[i] == Cell.FILLED
    for i in result.empty:
        assert full[i] == Cell.EMPTY


def test_overlap_sentence_names_block_and_columns():
    # one row (clue 3 1 in 6 cells) and columns that say nothing until the row is known
    puzzle = Puzzle([(3, 1)], [None] * 6)
    hint = HintFinder(puzzle).next(unknown_grid(puzzle))
    assert hint.technique == "overlap" and hint.stage == "line"
    assert hint.text == "row 1, clue 3 1: the 3 must cover columns 2–3."
    assert hint.cells == (((0, 1), Cell.FILLED), ((0, 2), Cell.FILLED))


def test_overlap_sentence_for_empty_lines_unreachable_cells_and_repeated_blocks():
    puzzle = Puzzle([None], [None, None, ()])
    assert HintFinder(puzzle).next(unknown_grid(puzzle)).text == (
        "column 3, clue 0: the whole column is empty.")
    # clue 2 2 on ?#????: the first 2 starts at column 1 or 2, so the second starts at 4 or 5
    puzzle = Puzzle([(2, 2)], [None] * 6)
    state = np.array([[3, 2, 3, 3, 3, 3]], dtype=np.int8)
    hint = HintFinder(puzzle).next(state)
    assert hint.technique == "overlap"
    assert hint.text == "row 1, clue 2 2: the second 2 must cover column 5."
    assert hint.cells == (((0, 4), Cell.FILLED),)
    puzzle = Puzzle([(2,)], [None] * 6)
    state = np.array([[3, 3, 2, 3, 3, 3]], dtype=np.int8)
    hint = HintFinder(puzzle).next(state)
    assert hint.text == "row 1, clue 2: no block can reach columns 1 and 5–6."


def test_positions_text():
    assert positions_text([0, 1, 4, 8], "column") == "columns 1–2, 5 and 9"
    assert positions_text([6], "row") == "row 7"


def test_range_wording():
    from nonosat.analysis.wording import cell_set_text, cells_text, range_text, wrap

    assert range_text([0, 1, 2, 4], "column") == "columns 1–3 and 5"
    assert range_text([4, 2, 3, 2], "row") == "rows 3–5"
    assert range_text(range(13), "column") == "columns 1–13"
    assert range_text([1, 5, 6, 7, 9], "row") == "rows 2, 6–8 and 10"
    puzzle = Puzzle([None] * 10, [None] * 10)
    assert cells_text(puzzle, [(4, c, 2) for c in range(2, 7)]) == "columns 3–7 of row 5 filled"
    assert cells_text(puzzle, [(r, 3, 1) for r in range(10)] + [(0, 0, 2)]) == (
        "row 1 of column 1 filled; rows 1–10 of column 4 empty")
    assert cells_text(puzzle, [(1, 1, 2)]) == "R2C2 filled"
    assert cells_text(puzzle, [(r, r, 2) for r in range(6)], limit=2) == (
        "column 1 of row 1 filled; column 2 of row 2 filled and 4 more cells")
    assert cell_set_text(puzzle, [(1, 0), (1, 1), (1, 2), (4, 6)]) == (
        "columns 1–3 of row 2; column 7 of row 5")
    text = wrap("word " * 60, "  7. [line] ", indent=4)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert text.splitlines()[1].startswith("    word")


def test_full_line_solving_comes_after_overlap():
    # clue 1 1 on ??#??: every block could still reach every cell (no overlap), but either
    # block on column 3 leaves columns 2 and 4 empty
    puzzle = Puzzle([(1, 1)], [None] * 5)
    state = np.array([[3, 3, 2, 3, 3]], dtype=np.int8)
    finder = HintFinder(puzzle)
    assert finder.overlap_hint(state) is None
    hint = finder.next(state)
    assert hint.technique == "line" and hint.stage == "line"
    assert hint.text == ("row 1, clue 1 1: every placement of the blocks that fits the known "
                         "cells leaves columns 2 and 4 empty.")
    assert hint.cells == (((0, 1), Cell.EMPTY), ((0, 3), Cell.EMPTY))


def test_a_wrong_cell_is_reported_as_a_mistake():
    puzzle = Puzzle.from_picture(np.array([[1, 1, 0], [0, 1, 0], [1, 1, 1]], dtype=bool))
    assert solve(puzzle, "sat", limit=2).status.value == "unique"
    state = unknown_grid(puzzle)
    state[0, 2] = Cell.FILLED  # wrong: the solution has it empty
    state[1, 1] = Cell.FILLED  # right
    hint = next_hint(puzzle, state)
    assert hint.kind == "mistake"
    assert hint.cells == (((0, 2), Cell.EMPTY),)
    assert "R1C3" in hint.text


def test_a_solver_time_out_is_not_taken_for_no_solution(monkeypatch):
    """find_mistakes raises UndecidedError when a solve gives up (it used to answer None, "the
    puzzle has no solution"); next_hint says it could not decide, with verdict "unknown"."""
    import nonosat.engines as engines
    from nonosat.analysis.hints import find_mistakes
    from nonosat.errors import UndecidedError

    puzzle = Puzzle.from_picture(np.array([[1, 1, 0], [0, 1, 0], [1, 1, 1]], dtype=bool))
    state = unknown_grid(puzzle)
    state[0, 2] = Cell.FILLED
    real = engines.solve

    def gives_up(p, engine, **kw):
        return engines.SolveResult(engines.Status.UNKNOWN, [], engine, 0.0, {})

    monkeypatch.setattr(engines, "solve", gives_up)
    with pytest.raises(UndecidedError):
        find_mistakes(puzzle, state, timeout=0.01)
    hint = next_hint(puzzle, state, timeout=0.01)
    assert hint.verdict == "unknown" and "could not decide" in hint.text
    # only the full-puzzle solve gives up: still undecided, not "no solution"
    calls = []

    def second_gives_up(p, engine, **kw):
        calls.append(kw.get("partial") is not None)
        return real(p, engine, **kw) if kw.get("partial") is not None else gives_up(p, engine)

    monkeypatch.setattr(engines, "solve", second_gives_up)
    with pytest.raises(UndecidedError):
        find_mistakes(puzzle, state, timeout=0.01)
    assert calls == [True, False]


def test_a_consistent_state_of_a_multi_solution_puzzle_is_no_mistake():
    puzzle = Puzzle([(1,), (1,)], [(1,), (1,)])
    state = unknown_grid(puzzle)
    state[0, 1] = Cell.FILLED
    hint = next_hint(puzzle, state)
    assert hint.kind == "deduction" and hint.technique == "overlap"
    stuck = next_hint(puzzle)
    assert stuck.kind == "guess" and stuck.verdict == "multiple"
    assert "several solutions" in stuck.text


def test_solved_and_no_solution():
    puzzle = Puzzle.from_picture(np.array([[1, 0], [0, 0]], dtype=bool))
    full = np.where(puzzle.goal, Cell.FILLED, Cell.EMPTY).astype(np.int8)
    assert next_hint(puzzle, full).kind == "solved"
    assert next_hint(Puzzle([(2,), ()], [(2,), ()])).kind == "no-solution"


PICTURES = pictures(2, 7)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PICTURES)
def test_replayed_hints_never_set_a_wrong_cell(rows):
    puzzle = Puzzle.from_picture(np.array(rows, dtype=bool))
    solutions = solve(puzzle, "sat", limit=100).solutions
    line_solvable = not (propagate_grid(puzzle)[0] == Cell.UNKNOWN).any()
    state = unknown_grid(puzzle)
    finder = HintFinder(puzzle)
    while True:
        hint = finder.next(state)
        if hint.kind != "deduction":
            break
        assert hint.cells
        for cell, value in hint.cells:
            assert state[cell] == Cell.UNKNOWN
            assert all(sol[cell] == (value == Cell.FILLED) for sol in solutions), hint.text
        if hint.line is not None:  # one line's cells make one step
            assert {c[0] if hint.line < puzzle.height else c[1] for c, _ in hint.cells} == {
                hint.line if hint.line < puzzle.height else hint.line - puzzle.height}
        state = apply_hint(state, hint)
    if line_solvable:
        assert hint.kind == "solved"
        assert np.array_equal(state == Cell.FILLED, solutions[0])
    if len(solutions) > 1:
        assert hint.kind == "guess"


def test_explain_football_reaches_the_solution():
    from nonosat.formats import read_puzzle

    puzzle = read_puzzle(corpus_path("Nonogram", "games", "football.json"), None, None)
    result = explain(puzzle)
    assert result.final.kind == "solved"
    (solution,) = solve(puzzle, "sat", limit=2).solutions
    assert np.array_equal(result.grid == Cell.FILLED, solution)
    assert result.steps[0].technique == "overlap"
    counts = result.technique_counts()
    assert counts["overlap"] > counts.get("line", 0) > 0
    assert counts.get("contradiction", 0) > 0 and counts.get("failed-literal", 0) > 0


# -- CLI --------------------------------------------------------------------------------------
runner = CliRunner()


def test_hint_cli_from_empty_grid_and_json(tmp_path):
    path = tmp_path / "p.non"
    path.write_text("width 6\nheight 1\nrows\n3,1\ncolumns\n0\n1\n1\n1\n0\n1\n")
    out = runner.invoke(app, ["hint", str(path)])
    assert out.exit_code == 0, out.output
    assert "[overlap] row 1, clue 3 1:" in out.output
    out = runner.invoke(app, ["hint", str(path), "--json"])
    assert out.exit_code == 0
    import json

    data = json.loads(out.stdout)
    assert data["outcome"] == "deduction" and data["technique"] == "overlap"
    assert data["cells"] and all(set(c) == {"row", "col", "value"} for c in data["cells"])


def test_hint_cli_names_ranges():
    out = runner.invoke(app, ["hint", "games/heart.non"])
    assert out.exit_code == 0, out.output
    assert "fixes: columns 1–13 of row 3 filled" in out.stdout
    assert "R3C1" not in out.stdout


def test_hint_cli_says_several_solutions():
    out = runner.invoke(app, ["hint", "games/cross-ambiguous.non"])
    assert out.exit_code == 1, out.output
    assert "a guess is needed: the puzzle has several solutions" in out.stdout.lower()
    out = runner.invoke(app, ["hint", "games/cross-ambiguous.non", "--json"])
    data = __import__("json").loads(out.stdout)
    assert data["outcome"] == "guess" and data["status"] == "multiple"


def test_hint_cli_says_unique_but_needs_a_guess(tmp_path, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # the width of a pipe: 80
    # taai2011 #66 is unique; from where a person's deductions stop, only a guess goes on
    from nonosat.formats import read_puzzle
    from nonosat.puzzle import grid_rows

    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    puzzle = read_puzzle(path, None, 66)
    stuck = explain(puzzle).grid
    state = tmp_path / "state.txt"
    state.write_text("\n".join(grid_rows(stuck)) + "\n")
    out = runner.invoke(app, ["hint", str(path), "--index", "66", "--state", str(state)])
    assert out.exit_code == 0, out.output
    assert "No simple deduction: the puzzle is unique, but it needs a guess" in out.stdout
    assert "several" not in out.stdout
    assert all(len(line) <= 100 for line in out.stdout.splitlines())
    hint = next_hint(puzzle, stuck)
    assert hint.kind == "guess" and hint.verdict == "unique"
    assert hint.to_json(puzzle)["verdict"] == "unique"
    assert next_hint(puzzle, stuck, verdict=False).verdict is None


def test_hint_cli_reports_mistakes(tmp_path):
    path = tmp_path / "p.non"
    path.write_text("width 3\nheight 3\nrows\n2\n1\n3\ncolumns\n1,1\n3\n1\n")
    state = tmp_path / "state.txt"
    state.write_text("??#\n???\n???\n")  # R1C3 is empty in the only solution
    out = runner.invoke(app, ["hint", str(path), "--state", str(state)])
    assert out.exit_code == 1, out.output
    assert "R1C3" in out.output and "wrong" in out.output
    bad = tmp_path / "bad.txt"
    bad.write_text("??\n")
    out = runner.invoke(app, ["hint", str(path), "--state", str(bad)])
    assert out.exit_code == 2 and "bad.txt" in out.output


def test_a_stopped_hint_ends_soon_and_claims_nothing():
    """``next_hint(stop=)`` (the studio's superseded hint job): a token set while the mistake
    check solves Faase (seconds of native search) ends the hint within a generous bound, as
    "unknown", never as a mistake or a deduction; a token already set finds nothing at all."""
    import time

    from nonosat.formats import read_puzzle
    from nonosat.stop import StopToken

    faase = read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey", "faase.nin"))
    if isinstance(faase, list):
        faase = faase[0]
    already = StopToken()
    already.set()
    hint = next_hint(faase, engine="native", stop=already)
    assert (hint.kind, hint.verdict, hint.cells) == ("guess", "unknown", ())
    token = StopToken()
    token.arm(0.3)
    started = time.perf_counter()
    hint = next_hint(faase, engine="native", timeout=60, stop=token)
    assert time.perf_counter() - started < 10  # Faase's full check takes far longer unstopped
    assert (hint.kind, hint.verdict) == ("guess", "unknown")
