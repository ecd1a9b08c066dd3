"""``nonosat generate`` (issue 26): pictures decoded, scaled and thresholded; the search that makes
a picture's puzzle unique (checked by CP-SAT, an engine the search does not use); random puzzles
from a seed; the command line.  Tiny pictures and grids only: the figures are in
``benchmarks/bench_generate.py``."""

from __future__ import annotations

import io
import json
import struct
import zlib

import numpy as np
import pytest
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.engines import Status, solve
from nonosat.errors import FormatError
from nonosat.formats import read_puzzle, read_puzzles
from nonosat.generate.from_image import (
    MAX_PIXELS,
    parse_size,
    picture_grid,
    quantise_picture,
    remove_specks,
)
from nonosat.generate.random import random_puzzle
from nonosat.generate.unique import make_unique
from nonosat.puzzle import Cell, Puzzle
from tests.test_cli_contract import validate

runner = CliRunner()


def drawing(fmt: str = "PNG", size=(64, 48)) -> bytes:
    """A black ring with a filled red square, on white, in ``fmt``."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    w, h = size
    draw.ellipse((4, 4, w - 5, h - 5), outline="black", width=5)
    draw.rectangle((w // 3, h // 3, 2 * w // 3, 2 * h // 3), fill=(200, 0, 0))
    buf = io.BytesIO()
    image.save(buf, fmt)
    return buf.getvalue()


def unique_by_cpsat(puzzle: Puzzle) -> bool:
    return solve(puzzle, "cpsat", limit=2, timeout=60).status is Status.UNIQUE


# -- pictures ----------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP", "BMP"])
def test_every_picture_format_is_read_and_thresholded(fmt):
    grid = picture_grid(drawing(fmt), 16, 12)
    assert grid.picture.shape == (12, 16) and grid.picture.dtype == bool
    assert grid.palette is None and grid.threshold is not None
    assert not grid.picture[0, 0] and not grid.picture[-1, -1]   # white corners stay empty
    assert grid.picture[6, 8]                                   # the dark square is filled
    assert grid.picture[6, 0] or grid.picture[6, 1]            # the ring's left side


def test_line_art_and_photo_get_different_filters():
    assert picture_grid(drawing(), 16, 12).kind == "line art"
    assert picture_grid(drawing(), 16, 12).filter == "box"
    rng = np.random.default_rng(0)
    noise = Image.fromarray(rng.integers(0, 255, (60, 80, 3), dtype=np.uint8))
    buf = io.BytesIO()
    noise.save(buf, "PNG")
    photo = picture_grid(buf.getvalue(), 16, 12)
    assert (photo.kind, photo.filter) == ("photo", "lanczos")


def test_otsu_threshold_is_scikit_images():
    from skimage.filters import threshold_otsu

    data = drawing()
    grid = picture_grid(data, 32, 24, filter="box")
    grey = Image.open(io.BytesIO(data)).convert("RGB").resize((32, 24), Image.Resampling.BOX)
    assert grid.threshold == pytest.approx(threshold_otsu(np.asarray(grey.convert("L"))))
    fixed = picture_grid(data, 32, 24, threshold=1)
    assert not fixed.picture.any() or fixed.picture.sum() < grid.picture.sum()


def test_aspect_ratio_and_size_parsing():
    assert picture_grid(drawing(size=(80, 40)), 20).picture.shape == (10, 20)
    assert parse_size("30x20") == (30, 20) and parse_size("7") == (7, None)
    for bad in ("0x5", "axb", "5x5x5", "999x2"):
        with pytest.raises(ValueError):
            parse_size(bad)


def _png_header(width: int, height: int) -> bytes:
    """A PNG signature and IHDR announcing ``width x height``, then an empty IDAT and IEND."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b""))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize("side", [8000, 100_000])
def test_huge_pictures_are_refused_from_the_header_before_decoding(side):
    assert side * side > MAX_PIXELS
    with pytest.raises(FormatError, match="pixels|cannot read"):
        picture_grid(_png_header(side, side), 10, 10, name="bomb.png")


def test_not_a_picture_and_a_truncated_picture():
    with pytest.raises(FormatError, match="not a PNG"):
        picture_grid(b"hello, world", 10, 10, name="x.png")
    with pytest.raises(FormatError, match="decode|read"):
        picture_grid(drawing()[:200], 10, 10, name="cut.png")


def test_quantised_colours_and_background():
    source = Image.open(io.BytesIO(drawing())).convert("RGB")
    picture, palette = quantise_picture(source.resize((16, 12)), 2, source)
    assert len(palette) == 3 and palette.colours[0].rgb == (255, 255, 255)
    assert picture[0, 0] == 0 and picture.max() <= 2
    red = [k for k, c in enumerate(palette.colours) if c.rgb[0] > 150 and c.rgb[1] < 80]
    black = [k for k, c in enumerate(palette.colours) if max(c.rgb) < 60]
    assert red and black and picture[6, 8] == red[0] and picture[6, 1] == black[0]
    grid = picture_grid(drawing(), 16, 12, colours=2)
    assert grid.palette == palette and np.array_equal(grid.picture, picture)


def test_specks_are_repainted_like_their_surroundings():
    pic = np.zeros((6, 6), dtype=bool)
    pic[2, 2] = True                      # a lone speck
    pic[0:3, 4:6] = True                  # a block of 6 cells stays
    cleaned, changed = remove_specks(pic, 1)
    assert changed == 1 and not cleaned[2, 2] and cleaned[0:3, 4:6].all()
    assert remove_specks(pic, 0)[1] == 0


# -- the search --------------------------------------------------------------------------------
def _ambiguous_picture() -> np.ndarray:
    # two diagonal 2x2 blocks: the clues are also met by the other diagonal
    pic = np.zeros((8, 8), dtype=bool)
    pic[1:3, 1:3] = True
    pic[3:5, 3:5] = True
    pic[5, 6] = pic[6, 5] = True
    return pic


def test_make_unique_changes_cells_until_cpsat_finds_one_solution():
    pic = _ambiguous_picture()
    assert not unique_by_cpsat(Puzzle.from_picture(pic))
    made = make_unique(pic, timeout=30)
    assert made.reached and made.status is Status.UNIQUE
    assert made.changes >= 1 and made.changes == int((made.picture != pic).sum())
    assert unique_by_cpsat(made.puzzle)
    assert made.puzzle.is_solution(made.picture)
    # irredundant: undoing any one change gives several solutions again
    for r, c in zip(*np.nonzero(made.changed), strict=True):
        back = made.picture.copy()
        back[r, c] = pic[r, c]
        assert not unique_by_cpsat(Puzzle.from_picture(back))


def test_grade_one_target_is_line_solvable():
    from nonosat.analysis.staged import staged_solve

    rng = np.random.default_rng(3)
    pic = rng.random((10, 10)) < 0.5
    made = make_unique(pic, grade=1, timeout=30)
    assert made.reached and made.grade == 1
    assert staged_solve(made.puzzle).hardest_stage() == "line"
    assert unique_by_cpsat(made.puzzle)


def test_a_unique_picture_is_left_alone_and_max_changes_is_respected():
    heart = read_puzzle("games/heart.non")
    goal = solve(heart, "native").solutions[0]
    assert make_unique(goal, timeout=30).changes == 0
    made = make_unique(_ambiguous_picture(), max_changes=0, timeout=30)
    assert not made.reached and made.changes == 0 and made.reason == "--max-changes reached"
    assert made.status is Status.MULTIPLE


def test_colour_picture_made_unique():
    from nonosat.generate.random import random_palette

    palette = random_palette(2)
    pic = np.zeros((6, 6), dtype=np.int8)
    pic[1:3, 1:3] = 1
    pic[3:5, 3:5] = 1
    pic[0, 5] = 2
    made = make_unique(pic, palette, timeout=30)
    assert made.reached and unique_by_cpsat(made.puzzle)
    assert made.puzzle.is_colour and made.puzzle.is_solution(made.picture)


# -- random ------------------------------------------------------------------------------------
def test_random_puzzles_are_reproducible_unique_and_of_the_grade_asked():
    from nonosat.analysis.difficulty import analyse

    a = random_puzzle(10, 10, grade=1, seed=11, timeout=30)
    b = random_puzzle(10, 10, grade=1, seed=11, timeout=30)
    assert a.puzzle == b.puzzle and np.array_equal(a.picture, b.picture)
    assert random_puzzle(10, 10, grade=1, seed=12, timeout=30).puzzle != a.puzzle
    assert a.reached and unique_by_cpsat(a.puzzle)
    assert analyse(a.puzzle, structure=False, backdoor_timeout=0).grade.grade == 1
    c = random_puzzle(12, 12, grade=3, seed=2, timeout=30)
    if c.reached:
        assert analyse(c.puzzle, structure=False, backdoor_timeout=0).grade.grade == 3
    assert unique_by_cpsat(c.puzzle)
    with pytest.raises(ValueError):
        random_puzzle(5, 5, density=1.5)
    with pytest.raises(ValueError):
        random_puzzle(5, 5, colours=3, grade=2)


def test_random_colour_puzzle():
    made = random_puzzle(8, 8, colours=3, seed=5, timeout=30)
    assert made.puzzle.is_colour and len(made.puzzle.palette) == 4
    assert made.reached and unique_by_cpsat(made.puzzle)


# -- command line ------------------------------------------------------------------------------
def test_cli_picture_to_puzzle_with_diff_and_json(tmp_path):
    src = tmp_path / "ring.png"
    src.write_bytes(drawing())
    out, diff = tmp_path / "ring.non", tmp_path / "diff.png"
    done = runner.invoke(app, ["generate", str(src), "--size", "16x12", "--out", str(out),
                               "--diff", str(diff), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    validate("generate", report)
    assert report["status"] == "unique" and report["kind"] == "line art"
    puzzle = read_puzzle(out)
    assert unique_by_cpsat(puzzle)
    image = Image.open(diff)
    assert image.size == (16 * 12 + 1, 12 * 12 + 1)
    for r, c in ((x["row"], x["col"]) for x in report["changed"]):  # outlined in red
        assert image.getpixel(((c - 1) * 12 + 1, (r - 1) * 12 + 6))[0] > 200
    # never overwrite without --force; the file is left as it was
    before = out.read_bytes()
    again = runner.invoke(app, ["generate", str(src), "--size", "10x8", "--out", str(out)])
    assert again.exit_code == 2 and "already exists" in again.output
    assert out.read_bytes() == before


def test_cli_bad_input_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a picture")
    done = runner.invoke(app, ["generate", str(bad), "--size", "10x10", "--out",
                               str(tmp_path / "x.non")])
    assert done.exit_code == 2 and "bad.png" in done.output and "Traceback" not in done.output
    for args in (["--size", "10x10"], ["--random", "5x5", str(bad), "--out", "x.non"],
                 ["--random", "0x5", "--out", str(tmp_path / "y.non")]):
        assert runner.invoke(app, ["generate", *args]).exit_code == 2
    assert not (tmp_path / "x.non").exists()


def test_cli_random_batch_to_a_file_and_to_a_directory(tmp_path):
    pack = tmp_path / "b.nonpack"
    done = runner.invoke(app, ["generate", "--random", "8x8", "--count", "3", "--seed", "4",
                               "--out", str(pack)])
    assert done.exit_code == 0, done.output
    puzzles = read_puzzles(pack)
    assert len(puzzles) == 3 and all(unique_by_cpsat(p) for p in puzzles)
    folder = tmp_path / "many"
    folder.mkdir()
    done = runner.invoke(app, ["generate", "--random", "8x8", "--count", "2", "--seed", "4",
                               "--out", str(folder), "--json"])
    assert done.exit_code == 0, done.output
    validate("generate", json.loads(done.stdout))
    files = sorted(folder.iterdir())
    assert len(files) == 2
    assert read_puzzle(files[0]) == puzzles[0]   # the same seeds give the same puzzles


def test_cli_help_teaches():
    done = runner.invoke(app, ["generate", "--help"])
    assert done.exit_code == 0
    for word in ("--size", "--grade", "--random", "Otsu", "Examples", "Exit codes"):
        assert word in done.stdout


def test_unknown_cell_check_uses_the_cell_values():
    assert int(Cell.UNKNOWN) == 3  # open_cells compares the native grid with Cell.UNKNOWN


# -- studio API --------------------------------------------------------------------------------
def test_studio_picture_import_and_make_unique():
    from fastapi.testclient import TestClient

    from nonosat.studio.asgi import create_app

    client = TestClient(create_app())
    files = {"file": ("ring.png", drawing(), "image/png")}
    got = client.post("/api/picture", files=files, data={"width": "16", "height": "12"})
    assert got.status_code == 200, got.text
    body = got.json()
    assert (body["width"], body["height"], body["kind"]) == (16, 12, "line art")
    goal = body["puzzle"]["goal"]
    assert len(goal) == 12 and all(len(r) == 16 for r in goal) and goal[6][8] == "#"
    darker = client.post("/api/picture", files=files,
                         data={"width": "16", "height": "12", "threshold": "5"}).json()
    assert sum(r.count("#") for r in darker["puzzle"]["goal"]) < sum(r.count("#") for r in goal)
    # bad input: one message, no decoding of a bomb, bad numbers
    bomb = client.post("/api/picture", files={"file": ("b.png", _png_header(9000, 9000))},
                       data={"width": "10"})
    assert bomb.status_code == 400 and "pixels" in bomb.json()["detail"]
    assert client.post("/api/picture", files=files, data={"width": "0"}).status_code == 422
    assert client.post("/api/picture", files={"file": ("x.png", b"junk")}).status_code == 400
    # make unique: changes proposed, not applied; the proposal is unique by CP-SAT
    pic = _ambiguous_picture()
    puzzle = Puzzle.from_picture(pic)
    payload = {"puzzle": {"rows": [list(c) for c in puzzle.rows],
                          "cols": [list(c) for c in puzzle.cols],
                          "goal": ["".join("#" if v else "." for v in row) for row in pic]}}
    made = client.post("/api/make-unique", json=payload).json()
    assert made["status"] == "unique" and made["changed"]
    proposal = np.array([[ch == "#" for ch in row] for row in made["picture"]])
    assert sorted(map(list, zip(*np.nonzero(proposal != pic), strict=True))) == \
        sorted(made["changed"])
    assert unique_by_cpsat(Puzzle.from_picture(proposal))
    no_goal = client.post("/api/make-unique", json={"puzzle": {"rows": [[1]], "cols": [[1]]}})
    assert no_goal.status_code == 422


def test_a_skipped_uniqueness_check_never_claims_the_target():
    from nonosat.generate.unique import _Checker

    rows = ["..###.#", "###..##", "...####", "....##.", "#..#.##", "#..##.#", ".##..##"]
    pic = np.array([[ch == "#" for ch in row] for row in rows])
    puzzle = Puzzle.from_picture(pic)
    assert unique_by_cpsat(puzzle)  # unique, but line solving leaves cells open (below)
    checker = _Checker(None, "auto", None)
    checker.skip = 1  # as after a check that gave up
    reached, open_mask, _, status = checker.check(puzzle, may_skip=True)
    assert not reached and open_mask.any() and status is Status.UNKNOWN
    assert checker.skipped == 1 and checker.skip == 0
    assert checker.check(puzzle, may_skip=True)[0]  # the next step's check runs
    checker.skip = 3
    assert checker.check(puzzle)[0]  # pruning steps are never skipped
