"""The step-through solver: replaying its steps reproduces each solution; its solutions and
verdicts agree with the SAT engine (independent code); its guesses are the native solver's."""

from __future__ import annotations

import numpy as np
import pytest

from nonosat.analysis.steps import STEP_KINDS, replay, solve_steps
from nonosat.engines import Status, solve
from nonosat.formats import read_puzzle
from nonosat.native.propagate import ST_PROBES
from nonosat.native.search import NativeSearch
from nonosat.puzzle import Cell, Puzzle
from tests.conftest import GAMES, corpus_path


def _check_replay(puzzle: Puzzle, run) -> None:
    """Replay every step on an all-unknown grid; at each solution step the grid must be exactly
    that solution, and a rewind may only reset cells that are known."""
    grid = np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    k = 0
    for step in run.steps:
        assert step.kind in STEP_KINDS
        for r, c, v in step.cells:
            if step.kind == "rewind":
                assert v == Cell.UNKNOWN and grid[r, c] != Cell.UNKNOWN
            else:
                assert grid[r, c] == Cell.UNKNOWN, f"step sets a known cell: {step.text}"
            grid[r, c] = v
        if step.kind == "solution":
            assert (grid != Cell.UNKNOWN).all()
            assert np.array_equal(grid == Cell.FILLED, run.solutions[k])
            k += 1
    assert k == len(run.solutions)


def _random_puzzles(n: int, size: int, density: float, seed: int) -> list[Puzzle]:
    rng = np.random.default_rng(seed)
    return [Puzzle.from_picture(rng.random((size, size)) < density) for _ in range(n)]


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_random_puzzles_agree_with_sat(limit):
    for puzzle in _random_puzzles(25, 7, 0.5, seed=limit):
        run = solve_steps(puzzle, max_solutions=limit)
        assert run.complete
        _check_replay(puzzle, run)
        sat = solve(puzzle, "sat", limit=limit)
        assert run.status == sat.status
        assert len(run.solutions) == len(sat.solutions)
        for sol in run.solutions:
            assert puzzle.is_solution(sol)
        assert len({s.tobytes() for s in run.solutions}) == len(run.solutions)
        native = NativeSearch(puzzle, limit=limit).run()
        assert run.guesses == native.stats["guesses"]


def test_ambiguous_game_walks_past_guesses():
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    run = solve_steps(puzzle)
    assert run.status == Status.MULTIPLE and len(run.solutions) == 2
    kinds = [s.kind for s in run.steps]
    assert "guess" in kinds and kinds.count("solution") == 2
    assert "rewind" in kinds[kinds.index("solution"):]
    _check_replay(puzzle, run)
    doc = run.to_json(puzzle)
    assert doc["status"] == "multiple" and len(doc["solutions"]) == 2
    step = next(s for s in doc["steps"] if s["kind"] == "line")
    assert step["line"]["axis"] in ("row", "col")
    assert all(ch in "#.?" for _, _, ch in step["cells"])


def test_no_solution_ends_with_contradiction():
    puzzle = read_puzzle(GAMES / "impossible.non")
    run = solve_steps(puzzle)
    assert run.status == Status.NONE and not run.solutions
    assert run.steps[-1].kind == "contradiction"
    assert solve(puzzle, "sat").status == Status.NONE


def test_unique_tournament_puzzle_past_a_contradiction_to_its_solution():
    # taai2011 #66 (25x25): unique; the native search guesses once, meets a contradiction,
    # rewinds and reaches the solution with the other value
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    puzzle = read_puzzle(path, None, 66)
    run = solve_steps(puzzle)
    kinds = [s.kind for s in run.steps]
    assert run.status == Status.UNIQUE and run.guesses >= 1
    first_solution = kinds.index("solution")
    assert "contradiction" in kinds[:first_solution] and "rewind" in kinds[:first_solution]
    _check_replay(puzzle, run)
    sat = solve(puzzle, "sat")
    assert sat.status == Status.UNIQUE
    assert np.array_equal(sat.solutions[0], run.solutions[0])


def test_max_steps_stops_early():
    puzzle = read_puzzle(GAMES / "heart.non")
    run = solve_steps(puzzle, max_steps=3)
    assert not run.complete and run.status == Status.UNKNOWN
    assert len(run.steps) >= 3
    with pytest.raises(ValueError):
        solve_steps(puzzle, max_solutions=0)


def test_step_text_names_ranges():
    puzzle = read_puzzle(GAMES / "heart.non")
    run = solve_steps(puzzle)
    assert run.status == Status.UNIQUE
    full = [s for s in run.steps if s.kind == "line" and len(s.cells) == puzzle.width]
    assert full and "columns 1–13 filled" in full[0].text
    assert replay(puzzle, run.steps).tolist() == np.where(run.solutions[0], 2, 1).tolist()


def test_a_set_token_stops_probing_between_two_probes(monkeypatch):
    """A cancel (or the time limit) that arrives while a node is being worked on ends the
    step-through at the next probe, not after the node's whole probing fixpoint: here the token
    is set as the root's line propagation ends, on a puzzle whose probing would then fix its 97
    open cells, so no probe runs, no probe step nor solution is reported, and the run says it
    is incomplete.  The native stepper itself raises ``Stopped`` rather than give a probing
    short of its fixpoint as a result."""
    from nonosat.native.stepping import Stepper
    from nonosat.stop import Stopped, StopToken

    puzzle = _random_puzzles(1, 15, 0.55, 0)[0]
    fresh = Stepper(puzzle)
    assert fresh.propagate() is not None and len(fresh.open_cells()) == 97
    assert len(fresh.probe()) == 97  # what the probing of the root would fix
    token = StopToken()
    real = Stepper.propagate

    def propagate_then_cancel(self):
        found = real(self)
        token.set()
        return found

    monkeypatch.setattr(Stepper, "propagate", propagate_then_cancel)
    run = solve_steps(puzzle, stop=token)
    assert not run.complete and run.status == Status.UNKNOWN and not run.solutions
    assert {s.kind for s in run.steps} == {"line"}
    _check_replay(puzzle, run)
    monkeypatch.undo()
    # the stepper: a set flag ends probing before its first probe, the state left valid
    flag = np.zeros(1, dtype=np.int64)
    stepper = Stepper(puzzle, stop=flag)
    stepper.propagate()
    before = stepper.grid()
    flag[0] = 1
    with pytest.raises(Stopped):
        stepper.probe()
    assert np.array_equal(stepper.grid(), before) and stepper.counters()[ST_PROBES] == 0
    flag[0] = 0
    assert len(stepper.probe()) == 97
