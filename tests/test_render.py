"""Pictures of puzzles and solutions: SVG and PNG agree with each other and with the solution
they show; the CLI writes them; the text grid keeps wide clues apart."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.engines import Status, solve
from nonosat.formats import read_puzzle
from nonosat.puzzle import Cell, Puzzle
from nonosat.render.clue_grid import render_text
from nonosat.render.png import render_png
from nonosat.render.svg import render_svg
from tests.conftest import corpus_path

runner = CliRunner()
SVG = "{http://www.w3.org/2000/svg}"


def _grid_geometry(svg: str, puzzle: Puzzle) -> tuple[float, float, float]:
    """(x0, y0, cell) of the grid, read from the SVG's grid lines (independently of the layout
    code): the vertical lines are the w + 1 longest, evenly spaced."""
    root = ET.fromstring(svg)
    lines = [
        {k: float(v) for k, v in el.attrib.items() if k in ("x1", "y1", "x2", "y2")}
        for el in root.iter(f"{SVG}line")
    ]
    vertical = sorted({ln["x1"] for ln in lines if ln["x1"] == ln["x2"]})
    horizontal = sorted({ln["y1"] for ln in lines if ln["y1"] == ln["y2"]})
    assert len(vertical) == puzzle.width + 1 and len(horizontal) == puzzle.height + 1
    steps = np.diff(vertical)
    assert np.allclose(steps, steps[0]) and np.allclose(np.diff(horizontal), steps[0])
    return vertical[0], horizontal[0], float(steps[0])


def _cell_pixels(
    image: Image.Image, x0: float, y0: float, c: float, i: int, j: int, fx: float, fy: float
):
    return image.getpixel((int(x0 + (j + fx) * c), int(y0 + (i + fy) * c)))


def _football():
    puzzle = read_puzzle(corpus_path("Nonogram", "games", "football.json"))
    result = solve(puzzle, "native", limit=2)
    assert result.status is Status.UNIQUE
    return puzzle, result.solutions[0]


def test_svg_and_png_show_the_solution_cell_by_cell():
    puzzle, solution = _football()
    svg = render_svg(puzzle, solution, cell=20)
    root = ET.fromstring(svg)
    width, height = int(root.attrib["width"]), int(root.attrib["height"])
    image = Image.open(io.BytesIO(render_png(puzzle, solution, cell=20)))
    assert image.format == "PNG" and image.size == (width, height)
    x0, y0, c = _grid_geometry(svg, puzzle)
    assert c == 20
    assert width >= x0 + 20 * c and height >= y0 + 20 * c
    for i in range(puzzle.height):
        for j in range(puzzle.width):
            pixel = _cell_pixels(image.convert("RGB"), x0, y0, c, i, j, 0.5, 0.5)
            assert pixel == ((0, 0, 0) if solution[i, j] else (255, 255, 255)), (i, j)
    # Every clue number appears as text.
    texts = [el.text for el in root.iter(f"{SVG}text")]
    assert len(texts) == sum(len(c) for c in puzzle.rows + puzzle.cols)


def test_picture_size_grows_with_the_cell_size():
    puzzle, solution = _football()
    small = Image.open(io.BytesIO(render_png(puzzle, solution, cell=10)))
    large = Image.open(io.BytesIO(render_png(puzzle, solution, cell=30)))
    assert large.size[0] == pytest.approx(3 * small.size[0], rel=0.05)
    assert large.size[1] == pytest.approx(3 * small.size[1], rel=0.05)


def test_cells_that_differ_between_solutions_are_checkered():
    a = np.array([[1, 0], [0, 1]], dtype=bool)
    b = ~a
    puzzle = Puzzle(((1,), (1,)), ((1,), (1,)))
    assert puzzle.is_solution(a) and puzzle.is_solution(b)
    svg = render_svg(puzzle, solutions=[a, b], cell=40)
    x0, y0, c = _grid_geometry(svg, puzzle)
    image = Image.open(io.BytesIO(render_png(puzzle, solutions=[a, b], cell=40))).convert("RGB")
    for i in range(2):
        for j in range(2):
            top_left = _cell_pixels(image, x0, y0, c, i, j, 0.25, 0.25)
            top_right = _cell_pixels(image, x0, y0, c, i, j, 0.75, 0.25)
            bottom_right = _cell_pixels(image, x0, y0, c, i, j, 0.75, 0.75)
            assert top_left == bottom_right != top_right
            assert top_left not in ((0, 0, 0), (255, 255, 255))


def test_render_cli_writes_svg_and_png_with_the_verdict_as_exit_code(tmp_path):
    football = corpus_path("Nonogram", "games", "football.json")
    for suffix in (".svg", ".png"):
        out = tmp_path / f"football{suffix}"
        result = runner.invoke(app, ["render", str(football), "--solution", "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert "unique solution" in result.stderr
        assert out.stat().st_size > 1000
    Image.open(tmp_path / "football.png").verify()
    ET.parse(tmp_path / "football.svg")
    again = runner.invoke(app, ["render", str(football), "--out", str(tmp_path / "football.png")])
    assert again.exit_code == 2 and "use --force" in again.stderr


def test_render_cli_marks_the_ambiguous_cells_of_a_puzzle_with_several_solutions(tmp_path):
    katakana = corpus_path("picross-solver", "inputs", "test_pattern_05.txt")
    puzzle = read_puzzle(katakana)
    result = solve(puzzle, "native", limit=2)
    assert result.status is Status.MULTIPLE
    # the whole ambiguity map (issue 15), not only where the two solutions found differ
    from nonosat.analysis.ambiguity import ambiguity_map

    differs = ambiguity_map(puzzle, result.solutions).ambiguous
    assert (differs | (result.solutions[0] != result.solutions[1])).sum() == differs.sum()
    out = tmp_path / "k.png"
    cli = runner.invoke(
        app, ["render", str(katakana), "--solution", "--out", str(out), "--cell", "30"]
    )
    assert cli.exit_code == 1, cli.output
    svg = render_svg(puzzle, solutions=result.solutions, cell=30)
    x0, y0, c = _grid_geometry(svg, puzzle)
    image = Image.open(out).convert("RGB")
    for i, j in np.argwhere(differs):
        assert _cell_pixels(image, x0, y0, c, i, j, 0.25, 0.25) != _cell_pixels(
            image, x0, y0, c, i, j, 0.75, 0.25
        )
    text = runner.invoke(app, ["render", str(katakana), "--solution"])
    assert text.exit_code == 1
    assert text.stdout.count("??") == differs.sum()


def test_render_cli_without_out_prints_the_clue_grid():
    result = runner.invoke(app, ["render", str(corpus_path("Nonogram", "games", "football.json"))])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert any(line.strip().startswith("1 2 2 1 1 |") for line in lines)


def test_render_cli_refuses_other_picture_suffixes(tmp_path):
    result = runner.invoke(
        app,
        [
            "render",
            str(corpus_path("Nonogram", "games", "football.json")),
            "--out",
            str(tmp_path / "x.jpg"),
        ],
    )
    assert result.exit_code == 2 and ".svg or .png" in result.stderr


def test_text_grid_keeps_two_digit_column_clues_apart():
    picture = np.zeros((12, 3), dtype=bool)
    picture[:10, 0] = True
    picture[:12, 1] = True
    puzzle = Puzzle.from_picture(picture)
    text = render_text(puzzle, picture)
    header = text.splitlines()[0]
    assert "10" in header.split() and "12" in header.split()
    body = [line for line in text.splitlines() if "|" in line]
    assert body[0].endswith("|######   |")


def test_text_grid_shows_unknown_cells():
    puzzle = Puzzle(((1,),), ((1,), ()))
    grid = np.array([[Cell.UNKNOWN, Cell.EMPTY]], dtype=np.int8)
    assert "|??  |" in render_text(puzzle, grid)
