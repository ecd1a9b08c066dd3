"""Analysis, hints and explanations of colour puzzles: every deduction agrees with the goal
picture, the staged solve of line-solvable puzzles ends solved at the goal, ambiguity maps mark
exactly the cells on which the solutions differ."""

from __future__ import annotations

import json
import re
from functools import cache
from itertools import combinations

import numpy as np
import pytest
from typer.testing import CliRunner

from nonosat.analysis.backdoor import smallest_backdoor
from nonosat.analysis.classify import solve_classification
from nonosat.analysis.difficulty import analyse
from nonosat.analysis.hints import HintFinder, next_hint
from nonosat.analysis.logic import open_grid
from nonosat.analysis.staged import staged_solve
from nonosat.analysis.structure import independent_parts
from nonosat.analysis.walkthrough import explain
from nonosat.cli.app import app
from nonosat.engines import Status, solve
from nonosat.formats import read_puzzle
from nonosat.native.colour import ColourProblem
from nonosat.puzzle import Puzzle
from tests.conftest import GAMES, corpus_path, force_per_cell_checks
from tests.test_analysis import domino

runner = CliRunner()


#: A cell named as black-and-white's ``R3C5``: colour hints name cells in words.
_RC = re.compile(r"\bR\d+C\d+\b")


def _cpsat_unique(puzzle: Puzzle) -> np.ndarray:
    result = solve(puzzle, "cpsat", limit=2)
    assert result.status == Status.UNIQUE
    return result.solutions[0].astype(np.int64)


def _check_forced(puzzle: Puzzle, before: np.ndarray, hint) -> None:
    """Each cell the hint narrows: CP-SAT with the state before it and the cell given the
    colours the hint removes finds no solution."""
    for cell, mask in hint.masks:
        removed = int(before[cell]) & ~mask
        assert removed, hint.text
        trial = np.array(before, dtype=np.int32)
        trial[cell] = removed
        assert solve(puzzle, "cpsat", partial=trial, limit=1).status == Status.NONE, hint.text


def test_explain_reaches_cpsats_solution_with_deductions_that_never_exclude_it():
    for puzzle in (
        read_puzzle(GAMES / "ladybird.non"),
        read_puzzle(corpus_path("number-loom", "examples", "wolter", "webpbn-color-00047.xml")),
    ):
        truth = _cpsat_unique(puzzle)
        result = explain(puzzle)
        assert result.final is not None and result.final.kind == "solved"
        for step in result.steps:
            assert step.masks and not _RC.search(step.text), step.text
            for (r, c), mask in step.masks:
                assert (mask >> truth[r, c]) & 1, step.text
            for (r, c), k in step.cells:
                assert k == truth[r, c], step.text
        assert np.array_equal(result.grid, 1 << truth)


def test_probing_and_implication_hints_are_forced_and_worded_in_words():
    """colour 4-Dom needs probing: replayed hint by hint, every deduction is forced (CP-SAT with
    the removed colours is infeasible) and names its cells "row 3, column 5"."""
    puzzle = colour_domino(4)
    truth = _cpsat_unique(puzzle)
    finder = HintFinder(puzzle)
    state = finder.logic.start()
    seen = set()
    while True:
        hint = finder.next(state)
        if hint.kind != "deduction":
            break
        assert not _RC.search(hint.text), hint.text
        seen.add(hint.technique)
        if hint.technique != "line":
            _check_forced(puzzle, state, hint)
            (r, c), _ = hint.masks[0]
            assert f"row {r + 1}, column {c + 1}" in hint.text, hint.text
        for (r, c), k in hint.cells:
            assert k == truth[r, c]
        from nonosat.analysis.hints import apply_hint

        state = apply_hint(state, hint)
    assert hint.kind == "solved" and np.array_equal(state, 1 << truth)
    assert seen - {"line"}, seen  # more than line solving was needed


def test_colour_hints_from_a_state_mistakes_and_verdicts():
    lady = read_puzzle(GAMES / "ladybird.non")
    truth = _cpsat_unique(lady)
    first = next_hint(lady)
    assert first.kind == "deduction" and first.technique == "line" and first.masks
    assert first.text.startswith(f"{lady.line_name(first.line)}, clue ")
    # a wrong cell is a mistake, named in words, with CP-SAT's colour
    state = np.full(lady.shape, (1 << lady.n_colours) - 1, dtype=np.int32)
    wrong = (truth[1, 5] + 1) % lady.n_colours
    state[1, 5] = 1 << wrong
    hint = next_hint(lady, state)
    assert hint.kind == "mistake" and hint.cells == (((1, 5), int(truth[1, 5])),)
    assert "row 2, column 6" in hint.text
    assert next_hint(read_puzzle(GAMES / "ladybird-impossible.non")).kind == "no-solution"
    for puzzle, verdict in ((read_puzzle(GAMES / "ladybird-ambiguous.xml"), "multiple"),
                            (colour_domino(5), "unique")):  # unique, but needs a guess
        stuck = explain(puzzle)
        assert stuck.final is not None and stuck.final.kind == "guess"
        hint = next_hint(puzzle, stuck.grid)
        assert hint.kind == "guess" and hint.verdict == verdict, hint.text


def test_colour_names_are_escaped_on_the_terminal(tmp_path):
    """A colour name is the file's text: the hint prints it escaped, the JSON keeps it."""
    from nonosat.formats import write_puzzle
    from nonosat.palette import Colour, Palette

    evil = "r\x1b[2Jed"
    palette = Palette((Colour("white", (255, 255, 255), "."), Colour(evil, (255, 0, 0), "r"),
                       Colour("black", (0, 0, 0), "k")))
    pic = np.array([[1, 1], [2, 0]], dtype=np.int8)
    puzzle = Puzzle.from_picture(pic, palette=palette)
    path = tmp_path / "evil.non"
    write_puzzle(puzzle, path)
    out = runner.invoke(app, ["hint", str(path)])
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.output and "r\\x1b[2Jed" in out.output
    data = json.loads(runner.invoke(app, ["hint", str(path), "--json"]).stdout)
    assert evil in data["text"] and not _RC.search(data["text"])


def test_ambiguity_map_marks_the_cells_where_solutions_differ():
    puzzle = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    result = analyse(puzzle, limit=10)
    assert result.status.value == "multiple"
    stack = np.asarray(result.solutions)
    assert len(stack) == 2  # the leaf drawn two ways: exactly two solutions
    assert result.ambiguous.sum() == int((stack[0] != stack[1]).sum()) == 4
    # logic gets stuck on the 4 cells; several solutions: no grade
    assert result.staged.status == "stuck" and not result.grade.graded
    assert result.grade.describe() == "not graded: several solutions"


def test_cli_analyse_hint_explain_on_colour():
    acorn = str(corpus_path("pbnsolve-examples", "acorn.g"))
    out = runner.invoke(app, ["analyse", acorn, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "unique" and data["kind"] == "colour"
    assert data["grade"]["grade"] == 1 and data["grade"]["scale"] == [1, 5]
    out = runner.invoke(app, ["explain", acorn, "--json"])
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    assert data["end"] == "solved" and data["techniques"]["line"] > 10
    # every step's decided cells have CP-SAT's colours; every narrowed cell keeps CP-SAT's
    puzzle = read_puzzle(acorn)
    truth = _cpsat_unique(puzzle)
    names = [col.name for col in puzzle.palette.colours]
    decided = 0
    for step in data["steps"]:
        assert not _RC.search(step["text"]), step["text"]
        for cell in step["cells"]:
            assert cell["colour"] == names[truth[cell["row"] - 1, cell["col"] - 1]]
            decided += 1
        for cell in step["masks"]:
            assert names[truth[cell["row"] - 1, cell["col"] - 1]] in cell["colours"]
    assert decided == puzzle.width * puzzle.height
    out = runner.invoke(app, ["hint", str(GAMES / "ladybird.non")])
    assert out.exit_code == 0 and out.output.startswith("[line]")


def test_backbone_and_givens_of_an_ambiguous_colour_puzzle():
    puzzle = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    result = analyse(puzzle, limit=2)
    every = solve(puzzle, "cpsat", limit=100).solutions  # all of them (2)
    stack = np.asarray(every)
    assert result.backbone_size() == int((stack == stack[0]).all(axis=0).sum())
    assert result.givens is not None and result.givens.cells
    partial = np.full(puzzle.shape, (1 << puzzle.n_colours) - 1, dtype=np.int32)
    for (r, c), k in result.givens.cells:
        partial[r, c] = 1 << k
    assert solve(puzzle, "cpsat", partial=partial, limit=2).status.value == "unique"


# -- issue 19: the black-and-white analysis, on colour ------------------------------------------
def _palette():
    return read_puzzle(GAMES / "ladybird.non").palette  # white, red (1), black (2)


def colour_domino(n: int) -> Puzzle:
    """Greifer's n-Dom (tests/test_analysis.py: 4 needs probing, 5 a guess) in black, with an
    all-red column on the right: every row gets a red 1 that touches its last black block
    (different colours may touch), and the red column is forced, so the colour puzzle is the
    black-and-white one with one more colour, and as hard."""
    rows = [(3,), (1,)] + [(3, 1), (1,)] * (n - 1) + [(1,)]
    cols = [(1,), (1,)] + [(1, 3), (1,)] * (n - 1) + [(3,)]
    return Puzzle([r + (1,) for r in rows], [*cols, (len(rows),)], palette=_palette(),
                  row_colours=[(2,) * len(r) + (1,) for r in rows],
                  col_colours=[(2,) * len(c) for c in cols] + [(1,)], title=f"colour {n}-Dom")


def two_swaps() -> Puzzle:
    """4x4: a red 2x2 swap (top left) and a black one (bottom right): 4 solutions, two
    independent parts of 4 cells."""
    pic = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 2]], dtype=np.int8)
    return Puzzle.from_picture(pic, palette=_palette(), title="two swaps")


# an independent colour line closure: every arrangement of each clue enumerated
def _arrangements(lens: tuple[int, ...], cols: tuple[int, ...], n: int) -> np.ndarray:
    out: list[list[int]] = []

    def place(b: int, pos: int, row: list[int]) -> None:
        if b == len(lens):
            out.append(row + [0] * (n - len(row)))
            return
        gap = 1 if b and cols[b] == cols[b - 1] else 0
        for s in range(pos + gap, n - lens[b] + 1):
            place(b + 1, s + lens[b], row + [0] * (s - len(row)) + [cols[b]] * lens[b])

    place(0, 0, [])
    return np.array(out, dtype=np.int64).reshape(len(out), n)


@cache
def _line_table(puzzle: Puzzle) -> list[np.ndarray]:
    h = puzzle.height
    return [_arrangements(tuple(clue), tuple(cols or ()), puzzle.width if i < h else h)
            for i, (clue, cols) in enumerate(zip(puzzle.lines, puzzle.line_colours, strict=True))]


def brute_closure(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray | None:
    """Line solving to a fixpoint by enumerating every arrangement of every line."""
    g = np.asarray(grid, dtype=np.int64).copy()
    table = _line_table(puzzle)
    h = puzzle.height
    changed = True
    while changed:
        changed = False
        for i, arr in enumerate(table):
            cells = g[i, :] if i < h else g[:, i - h]
            ok = ((cells[None, :] >> arr) & 1).all(axis=1)
            if not ok.any():
                return None
            new = np.bitwise_or.reduce(1 << arr[ok], axis=0) & cells
            if (new != cells).any():
                changed = True
                if i < h:
                    g[i, :] = new
                else:
                    g[:, i - h] = new
    return g


def _full(puzzle: Puzzle) -> np.ndarray:
    return np.full(puzzle.shape, (1 << puzzle.n_colours) - 1, dtype=np.int64)


def _n_open(grid: np.ndarray) -> int:
    g = np.asarray(grid, dtype=np.int64)
    return int(((g & (g - 1)) != 0).sum())


def _native_fixpoints(puzzle: Puzzle) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Line and line+probing fixpoints by the native solver's compiled kernels."""
    problem = ColourProblem.of(puzzle)
    line, probed = problem.full_grid(), problem.full_grid()
    return (line.reshape(puzzle.shape) if problem.propagate(line) else None,
            probed.reshape(puzzle.shape) if problem.probe(probed) else None)


def _native_closure(puzzle: Puzzle, grid: np.ndarray, probe: bool = False) -> np.ndarray:
    problem = ColourProblem.of(puzzle)
    flat = np.asarray(grid, dtype=np.int32).reshape(-1).copy()
    assert (problem.probe if probe else problem.propagate)(flat)
    return flat.reshape(puzzle.shape)


def _colour_files() -> list[str]:
    from tests.test_colour import _readable, colour_corpus

    return [f for f in colour_corpus() if any(p.is_colour for p in _readable(f))]


def _check_stage_figures(puzzle: Puzzle) -> None:
    result = analyse(puzzle, backdoor_timeout=0)
    n = puzzle.height * puzzle.width
    cells = result.cells_by_stage()
    oa = result.staged.open_after
    assert all(v >= 0 for v in cells.values())
    assert oa["start"] == n and oa["start"] >= oa["line"] >= oa["probing"]
    assert cells["line"] == n - oa["line"]
    assert cells["line"] + cells["implications"] + cells["probing"] == n - oa["probing"]
    assert oa["line"] >= oa["implications"] >= oa["probing"]
    line, probed = _native_fixpoints(puzzle)
    if result.status != Status.NONE:
        assert sum(cells.values()) == n
        # the cells known after each stage are the native solver's fixpoints
        assert line is not None and probed is not None
        assert oa["line"] == _n_open(line) and oa["probing"] == _n_open(probed)
        assert np.array_equal(result.staged.grid, probed)
    else:
        assert result.classification == "no solution"
    if result.status == Status.MULTIPLE:
        assert cells["ambiguous"] == int(result.backbone.ambiguous.sum())
    if result.status in (Status.UNIQUE, Status.UNKNOWN):
        assert 1 <= result.grade.score <= 5 and 1 <= result.grade.grade <= 5
    else:  # no grade for no solution or several (as for black-and-white)
        assert not result.grade.graded and result.grade.reason == (
            "no solution" if result.status == Status.NONE else "several solutions")


def test_stage_figures_add_up_on_the_colour_corpus():
    files = _colour_files()
    assert len(files) == 13
    for f in files:
        _check_stage_figures(read_puzzle(f))


@pytest.mark.parametrize("name", ["ladybird.non", "ladybird-ambiguous.xml",
                                  "ladybird-impossible.non"])
def test_stage_figures_add_up_on_the_ladybirds(name):
    _check_stage_figures(read_puzzle(GAMES / name))


def test_stage_figures_add_up_where_probing_and_search_are_needed():
    for puzzle in (colour_domino(3), colour_domino(4), colour_domino(5), two_swaps()):
        _check_stage_figures(puzzle)
    # random small pictures: probing passes reach the native probing fixpoint
    rng = np.random.default_rng(19)
    stuck_or_probing = 0
    for _ in range(40):
        pic = rng.choice(3, size=(5, 6), p=[0.4, 0.3, 0.3]).astype(np.int8)
        if not pic.any(axis=0).all() or not pic.any(axis=1).all():
            continue
        puzzle = Puzzle.from_picture(pic, palette=_palette())
        staged = staged_solve(puzzle)
        line, probed = _native_fixpoints(puzzle)
        assert staged.open_after["line"] == _n_open(line)
        assert np.array_equal(staged.grid, probed)
        stuck_or_probing += staged.hardest_stage() != "line"
    assert stuck_or_probing >= 5  # the sample exercises probing, not only line solving


def test_classification_of_each_kind():
    line = read_puzzle(GAMES / "ladybird.non")
    several = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    none = read_puzzle(GAMES / "ladybird-impossible.non")
    probing, search = colour_domino(4), colour_domino(5)
    # what each needs, independently: the native kernels' fixpoints and CP-SAT's count
    for p, line_open, probe_open in ((probing, True, False), (search, True, True)):
        lfix, pfix = _native_fixpoints(p)
        assert (_n_open(lfix) > 0) == line_open and (_n_open(pfix) > 0) == probe_open
        assert solve(p, "cpsat", limit=2).status == Status.UNIQUE
    assert _n_open(_native_fixpoints(line)[0]) == 0
    every = solve(several, "cpsat", limit=100).solutions
    stack = np.asarray(every)
    truth = int((stack != stack[0]).any(axis=0).sum())
    assert solve(none, "cpsat", limit=2).status == Status.NONE
    got = {name: analyse(p, backdoor_timeout=1).classification
           for name, p in [("line", line), ("probing", probing), ("search", search),
                           ("several", several), ("none", none)]}
    assert got["line"] == "unique, line-solvable"
    assert got["probing"] == "unique, needs probing (depth 1)"
    assert re.fullmatch(r"unique, needs search \(\d+ (guess|guesses|conflict|conflicts)\)",
                        got["search"])
    assert got["several"] == f"several solutions ({truth} cells ambiguous)"
    assert got["none"] == "no solution"
    # the same words as black-and-white on the black-and-white twin
    assert analyse(domino(4), backdoor_timeout=0).classification == got["probing"]
    # nonosat solve: the cheap form, same words
    for name, p in [("line", line), ("probing", probing), ("search", search)]:
        assert solve_classification(p, solve(p, "auto", limit=2)) == got[name]
    found = solve(several, "auto")
    differ = int((np.array(found.solutions) != found.solutions[0]).any(axis=0).sum())
    assert 1 <= differ <= truth
    assert solve_classification(several, found) == \
        f"several solutions (at least {differ} cell{'s' * (differ != 1)} ambiguous)"
    assert solve_classification(none, solve(none, "auto")) == "no solution"
    out = runner.invoke(app, ["solve", str(GAMES / "ladybird.non")])
    assert out.exit_code == 0
    assert out.stdout.strip().endswith("classification: unique, line-solvable")


def test_backdoor_checked_by_an_independent_line_closure():
    puzzle = colour_domino(4)
    solution = solve(puzzle, "cpsat", limit=2).solutions[0]
    bd = smallest_backdoor(puzzle, solution, timeout=30)
    assert bd.exact and bd.lower_bound == bd.size >= 1
    target = 1 << solution.astype(np.int64)
    grid = _full(puzzle)
    for (r, c), k in bd.cells:
        assert k == solution[r, c]
        grid[r, c] = 1 << k
    closed = brute_closure(puzzle, grid)
    assert closed is not None and np.array_equal(closed, target)
    # no smaller set does: every set of size - 1 among the cells line solving leaves open
    root = brute_closure(puzzle, _full(puzzle))
    open_cells = [tuple(rc) for rc in np.argwhere(root != target)]
    assert 1 <= bd.size <= 2 and len(open_cells) > 20  # small enough to check exhaustively
    for smaller in combinations(open_cells, bd.size - 1):
        trial = root.copy()
        for r, c in smaller:
            trial[r, c] = target[r, c]
        assert _n_open(brute_closure(puzzle, trial)) > 0, smaller


def test_analyse_reports_the_backdoor_of_a_unique_colour_puzzle():
    puzzle = colour_domino(5)
    result = analyse(puzzle, backdoor_timeout=20)
    assert result.backdoor is not None and result.backdoor.size >= 1
    result_line_size = result.backdoor.size
    grid = _full(puzzle)
    for (r, c), k in result.backdoor.cells:
        grid[r, c] = 1 << k
    assert _n_open(brute_closure(puzzle, grid)) == 0
    data = result.to_json("d5")
    assert data["backdoor"]["exact"] == result.backdoor.exact
    assert {c["colour"] for c in data["backdoor"]["cells"]} <= set(data["colours"])
    line_solvable = analyse(read_puzzle(GAMES / "ladybird.non")).backdoor
    assert line_solvable is not None and line_solvable.size == 0 and line_solvable.exact
    # several solutions: the backdoor's givens make the solution it was taken from the only one
    several = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    result = analyse(several, backdoor_timeout=10)
    bd = result.backdoor
    assert bd is not None and bd.several and bd.size >= 1
    partial = _full(several).astype(np.int32)
    for (r, c), k in bd.cells:
        partial[r, c] = 1 << k
    assert solve(several, "cpsat", partial=partial, limit=2).status == Status.UNIQUE
    # to probing: never larger than to line solving, and probing completes it
    probing = smallest_backdoor(puzzle, result_solution := solve(puzzle, "cpsat").solutions[0],
                              logic="probing", timeout=10)
    assert probing.logic == "probing" and probing.size <= result_line_size
    grid = _full(puzzle)
    for (r, c), k in probing.cells:
        grid[r, c] = 1 << k
    assert _n_open(_native_closure(puzzle, grid, probe=True)) == 0
    assert result_solution is not None


def test_independent_parts_against_brute_force():
    puzzle = two_swaps()
    result = analyse(puzzle, limit=10)
    _, probed = _native_fixpoints(puzzle)
    open_cells = {tuple(map(int, rc)) for rc in np.argwhere((probed & (probed - 1)) != 0)}
    # brute force: open cells joined when they share a row or a column, transitively
    groups: list[set] = []
    for cell in sorted(open_cells):
        linked = [g for g in groups if any(o[0] == cell[0] or o[1] == cell[1] for o in g)]
        merged = {cell}.union(*linked)
        groups = [g for g in groups if g not in linked] + [merged]
    got = [set(p.cells) for p in result.parts]
    assert sorted(map(sorted, got)) == sorted(map(sorted, groups))
    assert len(got) == 2
    # the solutions are the products of the parts' solutions
    every = solve(puzzle, "cpsat", limit=100).solutions
    per_part = [{tuple(int(s[c]) for c in sorted(part)) for s in every} for part in got]
    assert len(every) == np.prod([len(x) for x in per_part]) == 4
    # the same parts from the shared function on the colour open grid
    assert [set(p.cells) for p in independent_parts(open_grid(puzzle, probed))] == got


def test_json_has_the_black_and_white_keys():
    def keys(d: dict, prefix: str = "") -> set[str]:
        out = set()
        for k, v in d.items():
            out.add(prefix + k)
            if isinstance(v, dict) and k not in ("steps", "cells_by_stage", "deductions",
                                                 "cells_by_step", "search", "backdoor"):
                out |= keys(v, prefix + k + ".")
        return out

    bw = analyse(read_puzzle(GAMES / "cross-ambiguous.non"), backdoor_timeout=0).to_json("x")
    colour = analyse(read_puzzle(GAMES / "ladybird-ambiguous.xml")).to_json("y")
    assert keys(bw) <= keys(colour), keys(bw) - keys(colour)
    bw = analyse(domino(5), backdoor_timeout=1).to_json("x")
    colour = analyse(colour_domino(5), backdoor_timeout=1).to_json("y")
    assert keys(bw) <= keys(colour), keys(bw) - keys(colour)
    assert set(bw["backdoor"]) - {"cells"} == set(colour["backdoor"]) - {"cells"}
    assert set(bw["cells_by_stage"]) == set(colour["cells_by_stage"])
    assert colour["linked_cells"] == []  # not computed for colour


def test_cli_report_on_an_ambiguous_colour_puzzle(tmp_path):
    path = GAMES / "ladybird-ambiguous.xml"
    puzzle = read_puzzle(path)
    every = solve(puzzle, "cpsat", limit=100).solutions
    stack = np.asarray(every)
    truth = (stack != stack[0]).any(axis=0)
    out = runner.invoke(app, ["analyse", str(path)])
    assert out.exit_code == 1, out.output
    text = out.stdout
    assert f"classification: several solutions ({int(truth.sum())} cells ambiguous)" in text
    m = re.search(r"cells fixed by stage: (.*) \(= (\d+) of (\d+)\)", text)
    assert m and int(m[2]) == int(m[3]) == puzzle.height * puzzle.width
    assert sum(int(v) for v in re.findall(r"\d+", m[1])) == int(m[2])
    assert "\ngrade: not graded: several solutions\n" in text
    grid_lines = [line for line in text.splitlines() if line.count("|") == 2]
    assert len(grid_lines) == puzzle.height
    assert sum(line.count("<>") for line in grid_lines) == int(truth.sum())
    assert "extra givens making the solution unique" in text
    data = json.loads(runner.invoke(app, ["analyse", str(path), "--json"]).stdout)
    assert {(c["row"], c["col"]) for c in data["ambiguity"]["cells"]} == {
        (int(r) + 1, int(c) + 1) for r, c in np.argwhere(truth)}
    svg = tmp_path / "map.svg"
    assert runner.invoke(app, ["analyse", str(path), "--map", str(svg)]).exit_code == 1
    assert svg.read_text().startswith("<svg") or "<svg" in svg.read_text()[:200]
    again = runner.invoke(app, ["analyse", str(path), "--map", str(svg)])
    assert again.exit_code == 2 and "already exists" in again.output


def test_implication_graph_is_the_black_and_white_one_on_the_twin(tmp_path):
    """On colour n-Dom (black dominoes, a red column line solving fixes) the graph over "cell
    takes colour c" is the black-and-white graph of n-Dom, built by the black-and-white line
    solver: filled = black, empty = background."""
    import networkx as nx

    from nonosat.analysis.implied import palette_arrays
    from nonosat.analysis.logic import closure
    from nonosat.analysis.structure import colour_graph
    from nonosat.native.implications import implication_graph
    from nonosat.native.propagate import propagate_grid

    for n in (3, 4):
        bw_puzzle, puzzle = domino(n), colour_domino(n)
        bw = implication_graph(bw_puzzle, propagate_grid(bw_puzzle)[0])
        colour = colour_graph(palette_arrays(puzzle, closure(puzzle)(_full(puzzle))))

        def as_colour(lit):
            return (lit.row, lit.col, 2 if lit.filled else 0)

        assert {tuple(lit) for lit in colour.nodes} == {as_colour(lit) for lit in bw.nodes}
        assert {(tuple(a), tuple(b)) for a, b in colour.edges} == {
            (as_colour(a), as_colour(b)) for a, b in bw.edges}
        result = analyse(puzzle, backdoor_timeout=0)
        assert result.graph_summary == analyse(bw_puzzle, backdoor_timeout=0).graph_summary
    assert result.graph_summary["nodes"] > 0
    path = str(tmp_path / "d3.non")
    from nonosat.formats import encode_puzzles, writer_format

    (tmp_path / "d3.non").write_bytes(encode_puzzles([colour_domino(3)], writer_format(path)))
    out = runner.invoke(app, ["analyse", path, "--graph", str(tmp_path / "g.graphml")])
    assert out.exit_code == 0, out.output
    written = nx.read_graphml(tmp_path / "g.graphml")
    data = json.loads(runner.invoke(app, ["analyse", path, "--json"]).stdout)
    bw3 = implication_graph(domino(3), propagate_grid(domino(3))[0])
    assert written.number_of_nodes() == data["implication_graph"]["nodes"] == len(bw3.nodes)
    assert {d["colour"] for _, d in written.nodes(data=True)} == {"white", "black"}
    sccs = {d["scc"] for _, d in written.nodes(data=True)}
    assert len(sccs) == data["implication_graph"]["components"]



def test_givens_are_unique_and_irredundant_by_cpsat():
    puzzle = two_swaps()
    result = analyse(puzzle, limit=10)
    assert result.givens is not None and result.givens.unique
    cells = result.givens.cells
    assert len(cells) == len(result.parts) == 2  # one given per independent part is needed

    def count(givens) -> Status:
        partial = _full(puzzle).astype(np.int32)
        for (r, c), k in givens:
            partial[r, c] = 1 << k
        return solve(puzzle, "cpsat", partial=partial, limit=2).status

    assert count(cells) == Status.UNIQUE
    for dropped in cells:
        assert count([g for g in cells if g != dropped]) == Status.MULTIPLE
    assert np.array_equal(result.givens.target, puzzle.goal)  # the picture is made unique
    for (r, c), k in cells:
        assert puzzle.goal[r, c] == k


@pytest.mark.parametrize("per_cell", [False, True], ids=["default", "per-cell checks alone"])
def test_colour_map_from_one_solution_against_cpsat_enumeration(per_cell, monkeypatch):
    """colour_ambiguity_map given only the first solution (the guided witnesses, then the
    "some candidate has another colour" clause; or, with those switched off, the per-cell
    checks alone) marks exactly the cells where the solutions CP-SAT enumerates differ: on
    two_swaps, three diagonal colour swaps (8 solutions) and the ambiguous ladybird."""
    from nonosat.analysis.backbone import ambiguity_map

    calls = force_per_cell_checks(monkeypatch) if per_cell else []
    pic = np.zeros((6, 6), dtype=np.int8)
    for i, k in enumerate((1, 2, 1)):
        pic[2 * i, 2 * i] = pic[2 * i + 1, 2 * i + 1] = k
    three = Puzzle.from_picture(pic, palette=_palette(), title="three swaps")
    for puzzle in (two_swaps(), three, read_puzzle(GAMES / "ladybird-ambiguous.xml")):
        every = solve(puzzle, "cpsat", limit=100).solutions
        assert 2 <= len(every) < 100
        stack = np.asarray(every)
        expected = (stack == stack[0]).all(axis=0)
        bb = ambiguity_map(puzzle, [every[0]], timeout=60)
        assert bool(calls) == per_cell
        assert not bb.undecided.any()
        assert np.array_equal(bb.mask, expected), puzzle.title
        assert all(puzzle.is_solution(w) for w in bb.witnesses)
        assert len({np.asarray(w).tobytes() for w in bb.witnesses}) == len(bb.witnesses)


def test_colour_one_cell_edits_each_make_the_puzzle_unique():
    """Colour analyse suggests one-cell edits of the picture (a cell painted another colour):
    each one's re-derived clues have a unique solution by CP-SAT (an independent engine), and
    on this small picture, where CP-SAT lists every such edit, the suggestions are among them;
    the report and the JSON name the colour."""
    pic = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 2]], dtype=np.int8)  # one red 2x2 swap
    puzzle = Puzzle.from_picture(pic, palette=_palette(), title="one swap")
    result = analyse(puzzle, backdoor_timeout=0)
    assert result.status == Status.MULTIPLE
    truth = set()
    for (r, c), k0 in np.ndenumerate(pic):
        for k in range(len(puzzle.palette)):
            if k != k0:
                edited = pic.copy()
                edited[r, c] = k
                twin = Puzzle.from_picture(edited, palette=puzzle.palette)
                if solve(twin, "cpsat", limit=2).status == Status.UNIQUE:
                    truth.add((r, c, k))
    found = {(e["cell"][0], e["cell"][1], e["value"]) for e in result.edits}
    assert found and found <= truth
    names = [c.name for c in puzzle.palette.colours]
    data = result.to_json()
    assert {(e["row"] - 1, e["col"] - 1, names.index(e["colour"])) for e in data["edits"]} \
        == found
    assert all(e["text"].startswith(f"paint R{e['row']}C{e['col']} of the picture "
                                    f"{e['colour']}") for e in data["edits"])


# -- one pipeline: a black-and-white puzzle as a two-colour palette ---------------------------
def two_colour(puzzle: Puzzle) -> Puzzle:
    """``puzzle`` (black-and-white) as a colour puzzle of two colours, white and black: the
    same clues, every block black.  The analysis runs it on the colour kernels (the generic
    colour line solver, literals "cell takes colour c"), the original on the black-and-white
    ones."""
    from nonosat.puzzle import Colour, Palette

    palette = Palette((Colour("white", (255, 255, 255), "."), Colour("black", (0, 0, 0), "#")))
    return Puzzle(puzzle.rows, puzzle.cols, palette=palette,
                  row_colours=[(1,) * len(r) for r in puzzle.rows],
                  col_colours=[(1,) * len(c) for c in puzzle.cols], title=puzzle.title)


def _figures(result) -> dict:
    """What must not depend on the kernels: the stage figures, the classification, the grade
    and the implication graph's figures; linked cells as sets of cells."""
    linked = []
    for g in result.linked:
        cells = ([c for c, _ in g.literals] if hasattr(g, "literals")
                 else [*g.equal, *g.opposite])
        linked.append(frozenset(cells))
    return {"cells": result.cells_by_stage(), "open": result.staged.open_after,
            "rounds": result.staged.invocations, "classification": result.classification,
            "grade": result.grade.describe(), "graph": result.graph_summary,
            "linked": sorted(linked, key=sorted), "status": result.status}


@pytest.mark.parametrize("n", [3, 4])
def test_two_colour_twin_of_n_dom_has_the_black_and_white_analysis(n):
    """n-Dom (3: implications, 4: probing) analysed on the colour kernels as a two-colour
    palette gives the black-and-white analysis: the same stage figures (the implication stage
    over "cell takes colour c" forces what the black-and-white graph forces), classification,
    grade, graph figures and linked cells."""
    bw = analyse(domino(n), backdoor_timeout=0)
    colour = analyse(two_colour(domino(n)), backdoor_timeout=0)
    assert _figures(colour) == _figures(bw)
    assert colour.techniques_needed == ("implications" if n == 3 else "probing")
    if n == 3:
        assert "literals" in colour.to_json()["linked_cells"][0]


def test_two_colour_twins_of_random_pictures_have_the_black_and_white_figures():
    """Random small black-and-white pictures: the colour pipeline's staged figures, grid and
    linked cells agree with the black-and-white pipeline's on every one (and the sample
    exercises the implication stage)."""
    from nonosat.puzzle import Cell

    rng = np.random.default_rng(28)
    used = set()
    for _ in range(30):
        pic = rng.random((6, 6)) < 0.5
        if not pic.any(axis=0).all() or not pic.any(axis=1).all():
            continue
        bw_puzzle = Puzzle.from_picture(pic)
        bw, colour = staged_solve(bw_puzzle), staged_solve(two_colour(bw_puzzle))
        assert colour.open_after == bw.open_after and colour.invocations == bw.invocations
        assert colour.status == bw.status
        known = colour.grid & (colour.grid - 1) == 0
        assert np.array_equal(known, bw.grid != Cell.UNKNOWN)
        assert np.array_equal(colour.grid[known] == 2, bw.grid[known] == Cell.FILLED)
        used |= {s.stage for s in bw.steps}
    assert "implications" in used


def test_colour_implication_stage_is_sound_against_cpsat():
    """Every implication step on colour n-Dom (extra red column) keeps the solution CP-SAT
    finds (an independent engine), and the stage decides cells."""
    for n in (3, 4):
        puzzle = colour_domino(n)
        truth = solve(puzzle, "cpsat", limit=2)
        assert truth.status == Status.UNIQUE
        sol = truth.solutions[0].astype(np.int64)
        run = staged_solve(puzzle)
        steps = [s for s in run.steps if s.stage == "implications"]
        assert steps and sum(len(s.cells) for s in steps) > 0
        for step in run.steps:
            for (r, c), m in step.masks:
                assert (m >> sol[r, c]) & 1, (step, (r, c))


def test_colour_report_lists_linked_cells():
    """The colour report prints the linked-cells lines: on the ambiguous ladybird the four
    cells of its swap, a colour each."""
    out = runner.invoke(app, ["analyse", str(GAMES / "ladybird-ambiguous.xml")])
    assert out.exit_code == 1
    line = next(x for x in out.stdout.splitlines() if x.startswith("linked cells after line"))
    assert line.startswith("linked cells after line solving: 1 group; largest: ")
    assert sorted(line.split("largest: ")[1].split(" = ")) == [
        "R1C4 white", "R1C6 green", "R2C4 green", "R2C6 white"]
