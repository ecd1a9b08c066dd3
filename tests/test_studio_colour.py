"""Colour puzzles in the studio's API (docs/studio.md): open, analyse (verdict, whole ambiguity
map, suggestions), solve, check, hint, steps, convert, pictures, make-unique and the ``C1``
share code.  Results are checked against CP-SAT's enumeration and the SAT engine (not the
studio's own code paths) and against the format readers."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonosat.engines import Status, solve
from nonosat.errors import PuzzleError
from nonosat.formats import read_puzzle, read_puzzles
from nonosat.puzzle import Colour, Palette, Puzzle
from nonosat.studio.asgi import create_app
from nonosat.studio.colourcode import decode_colour_code, encode_colour_code
from nonosat.studio.schemas import INDEX_CHARS, PuzzleIn, puzzle_from_json, puzzle_to_json
from tests.conftest import GAMES, corpus_path

COLOUR_GAMES = [p for p in sorted(GAMES.iterdir()) if read_puzzles(p)[0].is_colour]
PALETTE = Palette((Colour("white", (255, 255, 255), "."), Colour("red", (220, 30, 30), "r"),
                   Colour("black", (20, 20, 20), "k"), Colour("green", (40, 160, 60), "g")))


@pytest.fixture(scope="module")
def client(warm_studio) -> TestClient:
    return TestClient(create_app())


def rows_of(solution: np.ndarray) -> list[str]:
    return ["".join(INDEX_CHARS[int(v)] for v in row) for row in solution]


def of_rows(rows: list[str]) -> np.ndarray:
    return np.array([[INDEX_CHARS.index(ch) for ch in row] for row in rows], dtype=np.int8)


def back(data: dict) -> Puzzle:
    return puzzle_from_json(PuzzleIn.model_validate(data))


def every_solution(puzzle: Puzzle) -> list[np.ndarray]:
    result = solve(puzzle, "cpsat", limit=500)
    assert result.status != Status.UNKNOWN and len(result.solutions) < 500
    return result.solutions


def same_puzzle(a: Puzzle, b: Puzzle, background_name: bool = True) -> bool:
    assert a.palette is not None and b.palette is not None
    first = 0 if background_name else 1
    return (a.rows == b.rows and a.cols == b.cols and a.row_colours == b.row_colours
            and a.col_colours == b.col_colours
            and [c.rgb for c in a.palette.colours] == [c.rgb for c in b.palette.colours]
            and [c.name for c in a.palette.colours[first:]]
            == [c.name for c in b.palette.colours[first:]])


def test_colour_games_and_pbnsolve_examples_open_with_their_palette(client):
    paths = [*COLOUR_GAMES, corpus_path("pbnsolve-examples") / "acorn.g"]
    for path in paths:
        out = client.post("/api/parse", files={"file": (path.name, path.read_bytes())})
        assert out.status_code == 200, out.text
        data = out.json()["puzzle"]
        assert data["palette"][0]["rgb"].startswith("#") and data["row_colours"]
        truth = read_puzzles(path)[0]
        assert same_puzzle(back(data), truth)
        if truth.goal is not None:
            assert (of_rows(data["goal"]) == truth.goal).all()


def test_analyse_colour_map_and_givens_against_cpsat(client):
    puzzle = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    out = client.post("/api/analyse", json={"puzzle": puzzle_to_json(puzzle)}).json()
    assert out["status"] == "multiple"
    sols = every_solution(puzzle)
    diff = np.zeros(puzzle.shape, dtype=bool)
    for s in sols[1:]:
        diff |= s != sols[0]
    assert {tuple(rc) for rc in out["ambiguous"]} == set(zip(*np.nonzero(diff), strict=True))
    assert out["backbone_complete"] and out["grade"]["level"] is None
    assert all(puzzle.is_solution(of_rows(s)) for s in out["solutions"])
    give = next(s for s in out["suggestions"] if s["kind"] == "give")
    # the givens leave exactly one of CP-SAT's solutions
    left = [s for s in sols if all(s[r, c] == INDEX_CHARS.index(v) for r, c, v in give["cells"])]
    assert len(left) == 1
    # /api/solve with the givens as the state agrees
    state = [["?"] * puzzle.width for _ in range(puzzle.height)]
    for r, c, v in give["cells"]:
        state[r][c] = v
    solved = client.post("/api/solve", json={"puzzle": puzzle_to_json(puzzle), "limit": 2,
                                             "state": ["".join(r) for r in state]}).json()
    assert solved["status"] == "unique" and (of_rows(solved["solutions"][0]) == left[0]).all()
    # the givens as part of the puzzle: the verdict, and the steps (which never set them)
    with_givens = {**puzzle_to_json(puzzle), "givens": ["".join(r) for r in state]}
    again = client.post("/api/analyse", json={"puzzle": with_givens}).json()
    assert again["status"] == "unique" and again["classification"].startswith("with ")
    assert (of_rows(again["solutions"][0]) == left[0]).all()
    run = client.post("/api/steps", json={"puzzle": with_givens}).json()
    assert run["status"] == "unique"
    assert (of_rows(run["solutions"][0]) == left[0]).all()
    given_cells = {(r, c) for r, c, _ in give["cells"]}
    assert not any((r, c) in given_cells for st in run["steps"] for r, c, _ in st["cells"])


def test_analyse_unique_colour_and_edit_suggestions(client):
    puzzle = read_puzzle(GAMES / "ladybird.non")
    out = client.post("/api/analyse", json={"puzzle": puzzle_to_json(puzzle)}).json()
    assert out["status"] == "unique" and out["grade"]["level"] == 1
    assert (of_rows(out["solutions"][0]) == solve(puzzle, "sat").solutions[0]).all()
    # an ambiguous colour drawing (two 2x2 diagonals of one colour): edits make it unique
    pic = np.zeros((6, 6), dtype=np.int8)
    pic[0, 0] = pic[1, 1] = 1
    pic[4, 4] = 2
    drawing = Puzzle.from_picture(pic, palette=PALETTE)
    out = client.post("/api/analyse", json={"puzzle": puzzle_to_json(drawing),
                                            "suggest_timeout": 5}).json()
    assert out["status"] == "multiple"
    edits = [s for s in out["suggestions"] if s["kind"] == "edit"]
    assert edits
    for e in edits:
        edited = pic.copy()
        edited[tuple(e["cell"])] = INDEX_CHARS.index(e["value"])
        again = Puzzle.from_picture(edited, palette=PALETTE)
        assert solve(again, "cpsat", limit=2).status == Status.UNIQUE


def test_check_hint_and_steps_of_a_colour_puzzle(client):
    puzzle = read_puzzle(GAMES / "ladybird.non")
    data = puzzle_to_json(puzzle)
    truth = rows_of(solve(puzzle, "sat").solutions[0])
    h, w = puzzle.shape
    # hints from an empty grid, applied one after another, reach the SAT engine's solution
    state = [["?"] * w for _ in range(h)]
    for _ in range(h * w):
        hint = client.post("/api/hint", json={"puzzle": data,
                                              "state": ["".join(r) for r in state]}).json()
        if hint["done"]:
            break
        assert hint["kind"] in ("deduction", "guess") and hint["cells"]
        assert not re.search(r"\bR\d+C\d+\b", hint["text"]), hint["text"]  # cells in words
        for r, c, v in hint["cells"]:
            assert truth[r][c] == v
            state[r][c] = v
    assert ["".join(r) for r in state] == truth
    check = client.post("/api/check", json={"puzzle": data, "state": truth}).json()
    assert check == {"mistakes": [], "complete": True, "solvable": True}
    wrong = [list(r) for r in truth]
    wrong[4][4] = "a" if truth[4][4] != "a" else "b"
    check = client.post("/api/check", json={"puzzle": data,
                                            "state": ["".join(r) for r in wrong]}).json()
    assert check["mistakes"] == [[4, 4]] and not check["complete"]
    hint = client.post("/api/hint", json={"puzzle": data,
                                          "state": ["".join(r) for r in wrong]}).json()
    assert hint["kind"] == "mistake" and hint["cells"] == [[4, 4, truth[4][4]]]
    # the steps of an ambiguous puzzle replay to each solution CP-SAT enumerates
    amb = read_puzzle(GAMES / "ladybird-ambiguous.xml")
    run = client.post("/api/steps", json={"puzzle": puzzle_to_json(amb)}).json()
    assert run["status"] == "multiple" and run["complete"]
    grid = [["?"] * amb.width for _ in range(amb.height)]
    seen = []
    for step in run["steps"]:
        for r, c, v in step["cells"]:
            grid[r][c] = v
        if step["kind"] == "solution":
            seen.append(["".join(r) for r in grid])
    assert seen == run["solutions"] and len(seen) == 2
    assert {tuple(rows_of(s)) for s in every_solution(amb)} >= {tuple(s) for s in seen}


def test_convert_colour_to_every_colour_format_and_back(client):
    puzzle = read_puzzle(GAMES / "ladybird.non")
    listed = client.get("/api/formats").json()["write"]
    colour_formats = [f for f in listed if f["colour"]]
    assert {"webpbn", "non", "json", "olsak"} <= {f["name"] for f in colour_formats}
    for f in colour_formats:
        r = client.post("/api/convert", json={"puzzle": puzzle_to_json(puzzle), "to": f["name"]})
        assert r.status_code == 200, (f["name"], r.text)
        name = r.headers["content-disposition"].split('"')[1]
        again = client.post("/api/parse", files={"file": (name, r.content)})
        assert again.status_code == 200, (f["name"], again.text)
        # Olšák's format names the background "background"
        assert same_puzzle(back(again.json()["puzzle"]), puzzle, f["name"] != "olsak"), f["name"]
    bw_only = next(f for f in listed if not f["colour"] and not f["stores_picture"])
    r = client.post("/api/convert", json={"puzzle": puzzle_to_json(puzzle), "to": bw_only["name"]})
    assert r.status_code == 400 and "\n" not in r.json()["detail"]


def test_bad_palettes_are_refused_with_one_line(client):
    base = puzzle_to_json(read_puzzle(GAMES / "ladybird.non"))
    for palette in ([{"name": "x", "rgb": "red"}, {"name": "y", "rgb": "#000000"}],
                    [{"name": "a\u0007", "rgb": "#ffffff"}, {"name": "y", "rgb": "#000000"},
                     {"name": "z", "rgb": "#000001"}],
                    [{"name": "<b>", "rgb": "#ffffff"}, {"name": "<b>", "rgb": "#000000"},
                     {"name": "z", "rgb": "#000001"}]):
        r = client.post("/api/analyse", json={"puzzle": {**base, "palette": palette}})
        assert r.status_code == 422 and "\n" not in r.json()["detail"]
    r = client.post("/api/analyse", json={"puzzle": {**base, "row_colours": None}})
    assert r.status_code == 422


def test_picture_import_quantises_to_k_colours(client):
    from PIL import Image

    pic = np.zeros((6, 6), dtype=np.int8)
    pic[0:2, 0:3] = 1
    pic[3:6, 1] = 2
    pic[4, 3:6] = 3
    rgb = np.array([[255, 255, 255], [220, 20, 20], [20, 20, 200], [20, 160, 40]], dtype=np.uint8)
    image = Image.fromarray(np.kron(rgb[pic], np.ones((8, 8, 1), dtype=np.uint8)))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    out = client.post("/api/picture", files={"file": ("three.png", buf.getvalue())},
                      data={"width": "6", "colours": "3"}).json()
    data = out["puzzle"]
    assert len(data["palette"]) == 4
    got = of_rows(data["goal"])
    # the same cells share a colour as in the drawing (the quantiser chooses the order)
    for k in range(4):
        assert len({int(v) for v in got[pic == k]}) == 1
    assert len({int(got[pic == k][0]) for k in range(4)}) == 4
    assert data["palette"][int(got[0, 5])]["rgb"] in ("#ffffff", "#fefefe", "#fdfdfd")


def test_make_unique_a_colour_picture(client):
    pic = np.zeros((6, 6), dtype=np.int8)
    pic[0, 0] = pic[1, 1] = 1
    pic[3, 3] = pic[4, 4] = 2
    drawing = Puzzle.from_picture(pic, palette=PALETTE)
    assert solve(drawing, "cpsat", limit=2).status == Status.MULTIPLE
    out = client.post("/api/make-unique", json={"puzzle": puzzle_to_json(drawing)}).json()
    assert out["status"] == "unique" and out["changed"]
    made = Puzzle.from_picture(of_rows(out["picture"]), palette=PALETTE)
    assert solve(made, "cpsat", limit=2).status == Status.UNIQUE
    changed = {tuple(map(int, rc)) for rc in np.argwhere(of_rows(out["picture"]) != pic)}
    assert changed == {tuple(rc) for rc in out["changed"]}


# -- the C1 share code ----------------------------------------------------------------------------
@st.composite
def colour_puzzles(draw):
    h = draw(st.integers(1, 9))
    w = draw(st.integers(1, 9))
    n = draw(st.integers(2, 31))
    letters = st.one_of(st.characters(codec="utf-8", categories=("L", "N", "P")), st.just(" "))
    names = draw(st.lists(st.text(letters, min_size=1, max_size=12).filter(str.strip),
                          min_size=n, max_size=n, unique_by=str.strip))
    rgbs = draw(st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=n, max_size=n))
    palette = Palette(tuple(Colour(name.strip(), rgb, INDEX_CHARS[k])
                            for k, (name, rgb) in enumerate(zip(names, rgbs, strict=True))))
    cells = draw(st.lists(st.integers(0, n - 1), min_size=h * w, max_size=h * w))
    return Puzzle.from_picture(np.array(cells, dtype=np.int8).reshape(h, w), palette=palette)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(colour_puzzles(), st.data())
def test_colour_share_code_round_trips(puzzle, data):
    image = decode_colour_code(encode_colour_code(puzzle, picture=True))
    assert same_puzzle(image, puzzle) and (image.goal == puzzle.goal).all()
    # the clue form, with some clues unknown
    unknown = data.draw(st.sets(st.integers(0, puzzle.height + puzzle.width - 1)))
    lines = list(puzzle.rows + puzzle.cols)
    colours = list(puzzle.row_colours + puzzle.col_colours)
    for i in unknown:
        lines[i] = colours[i] = None
    h = puzzle.height
    partial = Puzzle(rows=lines[:h], cols=lines[h:], row_colours=tuple(colours[:h]),
                     col_colours=tuple(colours[h:]), palette=puzzle.palette)
    rules = decode_colour_code(encode_colour_code(partial, picture=False))
    assert same_puzzle(rules, partial) and rules.goal is None


def test_colour_share_code_through_the_api_and_damaged_codes(client):
    puzzle = read_puzzle(GAMES / "ladybird.non")
    codes = client.post("/api/shortcode", json={"puzzle": puzzle_to_json(puzzle)}).json()
    assert codes["code"].startswith("C1") and codes["image_code"].startswith("C1")
    assert len(codes["image_code"]) < 120  # compact: 9x11 cells of 3 colours and the palette
    for key in ("code", "image_code"):
        out = client.post("/api/parse", json={"text": codes[key], "format": "short"})
        assert same_puzzle(back(out.json()["puzzle"]), puzzle)
    good = codes["code"]
    for bad in ("C1", "C1!!!!", good[:-6], good[:10], "C1" + "A" * 40):
        out = client.post("/api/parse", json={"text": bad, "format": "short"})
        assert out.status_code == 400 and "\n" not in out.json()["detail"], bad
    with pytest.raises(PuzzleError):
        decode_colour_code("R" + good[2:])


@pytest.mark.parametrize("to", ["json", "webpbn", "non", "olsak"])
def test_colour_givens_saved_and_reopened(client, tmp_path, to):
    """Saving a colour puzzle with givens (hostile colour names) keeps them in JSON and webpbn
    XML, read back by nonosat's readers and reopened by /api/parse; other formats drop them
    and the --state grid to put beside the file reads back with `--state`'s reader.  CP-SAT,
    started from what was read back, finds the one solution with those colours."""
    from urllib.parse import unquote

    from nonosat.cli.inputs import read_state
    from nonosat.formats.givens import givens_of

    data = {"rows": [[1, 1], [1, 1]], "cols": [[1], [1], [1], [1]],
            "row_colours": [[1, 2], [1, 2]], "col_colours": [[1], [1], [2], [2]],
            "palette": [{"name": "white", "rgb": "#ffffff", "char": "."},
                        {"name": 'r<&"ed ?|', "rgb": "#ff0000", "char": "r"},
                        {"name": "blue ]]>", "rgb": "#0000ff", "char": "k"}],
            "givens": ["a???", "???b"], "name": "two\u202e"}
    response = client.post("/api/convert", json={"puzzle": data, "to": to})
    assert response.status_code == 200, response.text
    path = tmp_path / f"saved.{to}"
    path.write_bytes(response.content)
    saved = read_puzzle(path)
    assert saved.palette is not None
    if to in ("json", "webpbn"):
        assert response.headers["X-Nonosat-Givens"] == "kept"
        partial = givens_of(saved)
        reopened = client.post("/api/parse", files={"file": (path.name, path.read_bytes())})
        assert reopened.json()["puzzle"]["givens"] == ["a???", "???b"]
    else:
        assert response.headers["X-Nonosat-Givens"] == "dropped" and givens_of(saved) is None
        beside = tmp_path / "saved-givens.txt"
        beside.write_text(unquote(response.headers["X-Nonosat-Givens-State"]))
        # in the file's characters (the page's own are a, b)
        assert beside.read_text() == "r???\n???k\n"
        partial = read_state(beside, saved)
    result = solve(saved, "cpsat", partial=partial, limit=2)
    assert result.status == Status.UNIQUE
    rgb = [c.rgb for c in saved.palette.colours]
    sol = result.solutions[0]
    assert rgb[sol[0, 0]] == (255, 0, 0) and rgb[sol[1, 3]] == (0, 0, 255)


def test_a_cancelled_colour_steps_request_stops_and_answers_nothing(warm_studio):
    """The colour step-through reads the job's token (between hints and in the search): a set
    token ends it with no step, ``complete`` false, and the job answers nothing (409), as the
    black-and-white steps do; an unset token walks to the solution as before.

    The kernels are loaded first (``warm_studio``, as the server does): the first walk of a
    process spent 4 s of its 5 s limit loading them (under load 8)."""
    from nonosat.studio.api_play import steps_work
    from nonosat.studio.colour_play import colour_steps_json
    from nonosat.studio.runner import JobToken

    lady = read_puzzle(GAMES / "ladybird.non")
    token = JobToken()
    token.set()
    out = colour_steps_json(lady, stop=token)
    assert out["steps"] == [] and not out["complete"] and out["status"] == "unknown"
    assert steps_work(lady, 2, None, 5.0)(token) is None
    whole = steps_work(lady, 2, None, 5.0)(JobToken())
    assert whole is not None and whole["complete"] and whole["status"] == "unique"
