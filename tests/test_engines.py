"""The engine interface: every returned solution is checked independently of the engine."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from nonosat.engines import SolveResult, Status, solve
from nonosat.errors import EngineError, InvalidSolutionError
from nonosat.puzzle import Cell, Puzzle, unknown_grid


class _LyingEngine:
    name = "liar"

    def __init__(self, answer):
        self.answer = answer

    def solve(self, puzzle, *, partial=None, limit=2, timeout=None):
        return SolveResult(Status.UNIQUE, [np.array(self.answer, dtype=bool)], self.name, 0.01)


@pytest.fixture
def liar(monkeypatch):
    module = types.ModuleType("nonosat_test_liar")
    module.Liar = _LyingEngine
    monkeypatch.setitem(sys.modules, "nonosat_test_liar", module)
    monkeypatch.setitem(
        __import__("nonosat.engines", fromlist=["ENGINE_MODULES"]).ENGINE_MODULES,
        "liar", "nonosat_test_liar:Liar",
    )
    return "liar"


def test_a_solution_breaking_a_clue_is_an_engine_bug(liar):
    puzzle = Puzzle([(1,), ()], [(1,), ()])
    with pytest.raises(InvalidSolutionError, match="liar.*column 1 should be"):
        solve(puzzle, liar, answer=[[False, True], [False, False]])


def test_a_solution_contradicting_the_given_cells_is_an_engine_bug(liar):
    puzzle = Puzzle([(1,), (1,)], [(1,), (1,)])
    partial = unknown_grid(puzzle)
    partial[0, 0] = Cell.EMPTY
    with pytest.raises(InvalidSolutionError, match="given cells"):
        solve(puzzle, liar, partial=partial, answer=[[True, False], [False, True]])


def test_a_valid_solution_passes(liar):
    puzzle = Puzzle([(1,), ()], [(1,), ()])
    assert solve(puzzle, liar, answer=[[True, False], [False, False]]).status == Status.UNIQUE


def test_unknown_engine_and_bad_limit():
    puzzle = Puzzle([(1,)], [(1,)])
    with pytest.raises(EngineError, match="unknown engine"):
        solve(puzzle, "quantum")
    with pytest.raises(EngineError, match="at least 1"):
        solve(puzzle, "native", limit=0)


@pytest.mark.parametrize(
    ("found", "limit", "complete", "status"),
    [(0, 2, True, Status.NONE), (1, 2, True, Status.UNIQUE), (2, 2, True, Status.MULTIPLE),
     (1, 1, True, Status.SOLVED), (1, 2, False, Status.UNKNOWN), (2, 5, False, Status.MULTIPLE),
     (0, 2, False, Status.UNKNOWN)],
)
def test_status_from_search(found, limit, complete, status):
    assert Status.from_search(found, limit, complete) == status


@pytest.mark.parametrize("colour", [False, True])
def test_load_engine_loads_the_colour_kernels_only_for_colour(colour):
    """A colour puzzle's first solve must not count the colour kernels' compile as solving time:
    ``load_engine(colour=True)`` runs them (a black-and-white load leaves them untouched)."""
    import subprocess
    import sys

    code = (
        "from nonosat.engines import load_engine\n"
        "from nonosat.native import colour\n"
        f"load_engine('auto', colour={colour})\n"
        "from nonosat.native import search\n"
        "print(len(colour.colour_propagate.signatures), len(colour.colour_probe.signatures),\n"
        "      len(search.search_kernel.signatures))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    assert (out[:2] != ["0", "0"]) is colour and len(out) == 3, out
    # and the black-and-white search kernel only for black and white (issue 27: start-up)
    assert (out[2] == "0") is colour, out
