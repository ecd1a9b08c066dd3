"""The studio's JSON API through FastAPI's test client, and `nonosat studio` as a process.

Verdicts, ambiguity maps, hints and step replays are checked against engines independent of the
code under test: the CP-SAT engine (enumerating every solution of small puzzles) and the SAT
engine; files written by /api/convert are read back by the format readers, certificates are
checked by `verify_certificate` (re-derives the CNF and checks the proof).
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from nonosat.engines import Status, solve
from nonosat.formats import formats, read_puzzle, read_puzzles
from nonosat.puzzle import Puzzle, grid_rows, line_blocks
from nonosat.studio.asgi import create_app
from nonosat.studio.schemas import puzzle_to_json
from tests.conftest import GAMES, REPO, corpus_path

#: Colour games (their API paths are tested in tests/test_studio_colour.py).
COLOUR_GAMES = [p for p in sorted(GAMES.iterdir()) if read_puzzles(p)[0].is_colour]
BW_GAMES = [p for p in sorted(GAMES.iterdir()) if p not in COLOUR_GAMES]


@pytest.fixture(scope="module")
def client(warm_studio) -> TestClient:
    return TestClient(create_app())


def pj(puzzle: Puzzle) -> dict:
    return puzzle_to_json(puzzle)


def all_solutions(puzzle: Puzzle, cap: int = 5000) -> list[np.ndarray]:
    """Every solution, enumerated by CP-SAT (independent of the native solver and of the
    studio's SAT backbone)."""
    result = solve(puzzle, "cpsat", limit=cap)
    assert result.status != Status.UNKNOWN and len(result.solutions) < cap
    return result.solutions


def ambiguity_truth(puzzle: Puzzle) -> set[tuple[int, int]]:
    sols = all_solutions(puzzle)
    ref = sols[0]
    diff = np.zeros(puzzle.shape, dtype=bool)
    for s in sols[1:]:
        diff |= s != ref
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(diff), strict=True)}


def puzzle_from_pj(data: dict) -> Puzzle:
    from nonosat.studio.schemas import PuzzleIn, puzzle_from_json

    return puzzle_from_json(PuzzleIn.model_validate(data))


def picture_puzzle(picture: np.ndarray) -> Puzzle:
    return Puzzle(rows=[line_blocks(r) for r in picture], cols=[line_blocks(c) for c in picture.T],
                  goal=picture)


# -- analyse -------------------------------------------------------------------------------------
def test_analyse_whole_ambiguity_map_of_cross(client):
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    out = client.post("/api/analyse", json={"puzzle": pj(puzzle)}).json()
    assert out["status"] == "multiple"
    assert out["backbone_complete"] is True
    truth = ambiguity_truth(puzzle)
    assert len(truth) > 2  # more than where two solutions differ
    assert {tuple(c) for c in out["ambiguous"]} == truth
    for rows in out["solutions"]:
        assert puzzle.is_solution(np.array([[ch == "#" for ch in r] for r in rows]))
    assert out["classification"].startswith("several solutions")
    assert f"({len(truth)} cells" in out["classification"]


def unique_edits(picture: np.ndarray) -> set[tuple[int, int]]:
    """Every one-cell edit of ``picture`` whose clues have a unique solution (CP-SAT)."""
    out = set()
    for r in range(picture.shape[0]):
        for c in range(picture.shape[1]):
            edited = picture.copy()
            edited[r, c] = not edited[r, c]
            if solve(picture_puzzle(edited), "cpsat", limit=2).status == Status.UNIQUE:
                out.add((r, c))
    return out


def check_give(puzzle: Puzzle, suggestion: dict) -> None:
    grid = np.full(puzzle.shape, 3, dtype=np.int8)
    for r, c, v in suggestion["cells"]:
        grid[r, c] = 2 if v == "#" else 1
    assert solve(puzzle, "cpsat", partial=grid, limit=2).status == Status.UNIQUE


def test_analyse_give_suggestion_makes_cross_unique(client):
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    out = client.post("/api/analyse", json={"puzzle": pj(puzzle), "suggest_timeout": 5}).json()
    gives = [s for s in out["suggestions"] if s["kind"] == "give"]
    assert len(gives) == 1 and gives[0]["cells"] and gives[0]["text"]
    check_give(puzzle, gives[0])
    # no one-cell edit of the cross is unique (checked by CP-SAT), so none is offered
    assert unique_edits(puzzle.goal) == set()
    assert not [s for s in out["suggestions"] if s["kind"] == "edit"]


def test_analyse_edit_suggestions_match_brute_force(client):
    rng = np.random.default_rng(7)
    tried = found = 0
    while tried < 6:
        picture = rng.random((5, 6)) < 0.5
        puzzle = picture_puzzle(picture)
        if solve(puzzle, "cpsat", limit=2).status != Status.MULTIPLE:
            continue
        tried += 1
        out = client.post("/api/analyse", json={"puzzle": pj(puzzle),
                                                "suggest_timeout": 10}).json()
        edits = {tuple(s["cell"]) for s in out["suggestions"] if s["kind"] == "edit"}
        truth = unique_edits(picture)
        assert edits <= truth
        assert bool(edits) == bool(truth)
        found += bool(edits)
        for s in out["suggestions"]:
            if s["kind"] == "edit":
                r, c = s["cell"]
                assert (s["value"] == "#") == (not picture[r, c])
            else:
                check_give(puzzle, s)
    assert found  # the sample exercises the edits


@pytest.mark.parametrize("seed", range(6))
def test_analyse_matches_enumeration_on_random_pictures(client, seed):
    rng = np.random.default_rng(seed)
    picture = rng.random((6, 7)) < 0.5
    puzzle = picture_puzzle(picture)
    out = client.post("/api/analyse", json={"puzzle": pj(puzzle), "suggest": False}).json()
    sols = all_solutions(puzzle)
    assert out["status"] == ("unique" if len(sols) == 1 else "multiple")
    assert {tuple(c) for c in out["ambiguous"]} == ambiguity_truth(puzzle)


def test_analyse_unique_and_none(client, corpus):
    football = read_puzzle(corpus_path("Nonogram", "games", "football.json"))
    out = client.post("/api/analyse", json={"puzzle": pj(football)}).json()
    assert out["status"] == "unique" and out["ambiguous"] == [] and out["suggestions"] == []
    truth = solve(football, "cpsat", limit=2)
    assert truth.status == Status.UNIQUE
    assert out["solutions"] == [grid_rows(truth.solutions[0])]
    assert 1 <= out["grade"]["level"] <= 5 and out["grade"]["name"]
    impossible = read_puzzle(GAMES / "impossible.non")
    out = client.post("/api/analyse", json={"puzzle": pj(impossible)}).json()
    assert out["status"] == "none" and out["solutions"] == []
    assert solve(impossible, "cpsat", limit=2).status == Status.NONE


def test_analyse_grade_agrees_with_nonosat_analyse(client):
    from nonosat.analysis.difficulty import analyse

    for path in BW_GAMES:
        puzzle = read_puzzles(path)[0]
        out = client.post("/api/analyse", json={"puzzle": pj(puzzle), "suggest": False}).json()
        full = analyse(puzzle, structure=False)
        # no grade for no solution or several (issue 25), as nonosat analyse
        assert out["grade"]["level"] == (full.grade.grade if full.grade.graded else None), \
            path.name
        if not full.grade.graded:
            assert out["grade"]["reason"] == full.grade.reason


def test_timeout_gives_unknown(client, corpus):
    # Faase (80x95): several seconds to decide; Knotty, used before, takes about 0.15 s now
    hard = read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey", "faase.nin"))
    for endpoint in ("/api/solve", "/api/analyse"):
        r = client.post(endpoint, json={"puzzle": pj(hard), "timeout": 0.05})
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "unknown"


def test_hint_and_check_obey_the_time_limit(client, corpus):
    """A state the solver cannot check in time: hint and check say so (they neither claim "no
    solution" nor run without a limit)."""
    hard = pj(read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey",
                                      "faase.nin")))
    assert solve(puzzle_from_pj(hard), "auto", timeout=0.05).status == Status.UNKNOWN
    start = time.perf_counter()
    out = client.post("/api/hint", json={"puzzle": hard, "timeout": 0.05}).json()
    assert out["kind"] == "unknown" and out["cells"] == [] and "could not" in out["text"]
    out = client.post("/api/check", json={"puzzle": hard, "timeout": 0.05}).json()
    assert out == {"mistakes": [], "complete": False, "solvable": None}
    assert time.perf_counter() - start < 120  # without the limit: a search of minutes


def test_timeouts_are_clamped():
    from nonosat.studio.runner import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, clamp_timeout

    assert clamp_timeout(None) == DEFAULT_TIMEOUT_S
    assert clamp_timeout(float("nan")) == DEFAULT_TIMEOUT_S  # never "no limit"
    assert clamp_timeout(float("inf")) == MAX_TIMEOUT_S
    assert clamp_timeout(1e308) == MAX_TIMEOUT_S
    assert clamp_timeout(-3) == 0.0
    assert clamp_timeout(0.25) == 0.25


# -- solve, hint, check, steps -------------------------------------------------------------------
def test_solve_is_solve_json(client):
    puzzle = read_puzzle(GAMES / "heart.non")
    out = client.post("/api/solve", json={"puzzle": pj(puzzle), "engine": "sat"}).json()
    assert set(out) >= {"puzzle", "width", "height", "status", "solutions", "engine", "time_s",
                        "stats"}
    assert out["status"] == "unique" and out["engine"] == "sat"
    assert out["solutions"] == [grid_rows(solve(puzzle, "cpsat").solutions[0])]
    partial = ["?" * puzzle.width] * puzzle.height
    out = client.post("/api/solve", json={"puzzle": pj(puzzle), "limit": 1,
                                          "state": partial}).json()
    assert out["status"] == "solved"


def test_play_football_to_the_end_with_hints(client, corpus):
    puzzle = read_puzzle(corpus_path("Nonogram", "games", "football.json"))
    truth = solve(puzzle, "cpsat", limit=1).solutions[0]
    state = [["?"] * puzzle.width for _ in range(puzzle.height)]
    for _ in range(puzzle.width * puzzle.height):
        out = client.post("/api/hint", json={"puzzle": pj(puzzle),
                                             "state": ["".join(r) for r in state]}).json()
        if out["done"]:
            break
        assert out["kind"] == "deduction", out
        assert out["cells"] and out["text"]
        if out["line"] is not None:
            axis, i = out["line"]["axis"], out["line"]["index"]
            assert axis in ("row", "col")
            assert all((r if axis == "row" else c) == i for r, c, _ in out["cells"])
        for r, c, v in out["cells"]:
            assert state[r][c] == "?"
            assert (v == "#") == bool(truth[r, c])  # never against the solution
            state[r][c] = v
    else:
        pytest.fail("hints did not finish the puzzle")
    assert ["".join(r) for r in state] == grid_rows(truth)
    check = client.post("/api/check", json={"puzzle": pj(puzzle),
                                            "state": ["".join(r) for r in state]}).json()
    assert check == {"mistakes": [], "complete": True, "solvable": True}


def test_hint_and_check_report_mistakes(client):
    puzzle = read_puzzle(GAMES / "heart.non")
    truth = solve(puzzle, "cpsat").solutions[0]
    state = [["?"] * puzzle.width for _ in range(puzzle.height)]
    state[0][0] = "." if truth[0, 0] else "#"  # wrong
    state[5][6] = "#" if truth[5, 6] else "."  # right
    rows = ["".join(r) for r in state]
    out = client.post("/api/check", json={"puzzle": pj(puzzle), "state": rows}).json()
    assert out["mistakes"] == [[0, 0]] and out["complete"] is False
    out = client.post("/api/hint", json={"puzzle": pj(puzzle), "state": rows}).json()
    assert out["kind"] == "mistake"
    assert out["cells"] == [[0, 0, "#" if truth[0, 0] else "."]]


def test_steps_replay_to_each_solution(client, corpus):
    pytest.importorskip("nonosat.analysis.steps", reason="nonosat.analysis.steps not merged yet")
    for puzzle in (read_puzzle(corpus_path("Nonogram", "games", "football.json")),
                   read_puzzle(GAMES / "cross-ambiguous.non")):
        # a generous time limit: the default would leave a loaded machine "undecided"
        out = client.post("/api/steps", json={"puzzle": pj(puzzle), "timeout": 30}).json()
        truth = [grid_rows(s) for s in all_solutions(puzzle)]
        grid = [["?"] * puzzle.width for _ in range(puzzle.height)]
        met = []
        for step in out["steps"]:
            assert step["kind"] in ("line", "probe", "contradiction", "guess", "rewind",
                                    "solution")
            for r, c, v in step["cells"]:
                grid[r][c] = v
            if step["kind"] == "solution":
                met.append(["".join(r) for r in grid])
        assert met == out["solutions"]
        assert all(m in truth for m in met)
        assert out["status"] == ("unique" if len(truth) == 1 else "multiple")
        assert len(met) == min(len(truth), 2)


# -- files ---------------------------------------------------------------------------------------
def test_parse_every_game_as_json_and_upload(client):
    for path in BW_GAMES:
        expected = read_puzzles(path)[0]
        out = client.post("/api/parse", json={"text": path.read_text(),
                                              "filename": path.name}).json()
        assert out["count"] == 1
        assert out["puzzle"]["rows"] == pj(expected)["rows"], path.name
        assert out["puzzle"]["cols"] == pj(expected)["cols"], path.name
        up = client.post("/api/parse", files={"file": (path.name, path.read_bytes())}).json()
        assert up["puzzle"] == out["puzzle"]


def test_parse_multi_puzzle_file_by_index(client, corpus):
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    puzzles = read_puzzles(path)
    out = client.post("/api/parse", files={"file": (path.name, path.read_bytes())},
                      data={"index": "7"}).json()
    assert out["count"] == len(puzzles) == len(out["names"])
    assert out["puzzle"]["rows"] == pj(puzzles[7])["rows"]


def test_parse_ignores_a_file_sent_as_the_index_or_format_field(client):
    # a file under "index" made int() raise TypeError (a 500), and one under "format" put the
    # upload's repr (its headers) into a 400 message; a file there now counts as no value
    body = (GAMES / "heart.non").read_bytes()
    plain = client.post("/api/parse", files={"file": ("heart.non", body)})
    assert plain.status_code == 200
    for field in ("index", "format"):
        r = client.post("/api/parse", files={"file": ("heart.non", body),
                                             field: ("x.txt", b"1")})
        assert r.status_code == 200, (field, r.status_code, r.text)
        assert r.json()["puzzle"] == plain.json()["puzzle"]
    ok = client.post("/api/parse", files={"file": ("heart.non", body)},
                     data={"index": "0", "format": "non"})
    assert ok.status_code == 200 and ok.json()["count"] == 1


def test_parse_rejects_bad_files_with_the_readers_message(client):
    r = client.post("/api/parse", json={"text": "width 3\nheight x\n", "filename": "bad.non"})
    assert r.status_code == 400 and "bad.non" in r.json()["detail"]
    r = client.post("/api/parse", json={"text": "<<<", "filename": "what.zzz"})
    assert r.status_code == 400 and "what.zzz" in r.json()["detail"]
    r = client.post("/api/parse", json={"text": "R!!", "format": "short"})
    assert r.status_code == 400
    r = client.post("/api/parse", content=b"{not json", headers={"content-type":
                                                                 "application/json"})
    assert r.status_code == 422 and r.json()["detail"]


def test_shortcode_round_trip_is_convert_to_short(client, tmp_path):
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    puzzle = read_puzzle(GAMES / "heart.non")
    out = client.post("/api/shortcode", json={"puzzle": pj(puzzle)}).json()
    target = tmp_path / "heart.short"
    result = CliRunner().invoke(app, ["convert", str(GAMES / "heart.non"), str(target),
                                      "--to", "short"])
    assert result.exit_code == 0, result.output
    assert out["text"] == target.read_text()
    back = client.post("/api/parse", json={"text": out["code"], "format": "short"}).json()
    assert back["puzzle"]["rows"] == pj(puzzle)["rows"]
    assert back["puzzle"]["cols"] == pj(puzzle)["cols"]


def test_convert_every_writable_format_reads_back(client):
    # square, with a picture: every writable format can hold it (tournament files are square,
    # picture formats need the goal)
    picture = np.random.default_rng(3).random((10, 10)) < 0.5
    puzzle = Puzzle(rows=[line_blocks(r) for r in picture],
                    cols=[line_blocks(c) for c in picture.T], goal=picture, title="Ten by ten")
    for fmt in formats().values():
        if fmt.write is None:
            continue
        r = client.post("/api/convert", json={"puzzle": pj(puzzle), "to": fmt.name})
        assert r.status_code == 200, (fmt.name, r.text)
        disposition = r.headers["content-disposition"]
        assert disposition.startswith("attachment; filename=")
        name = disposition.split("filename=")[1].strip('"')
        if fmt.read is None:
            continue
        back = fmt.read(r.content, name)[0]
        assert back.rows == puzzle.rows and back.cols == puzzle.cols, fmt.name
    heart = read_puzzle(GAMES / "heart.non")  # 13x11: not for a tournament file
    r = client.post("/api/convert", json={"puzzle": pj(heart), "to": "tournament"})
    assert r.status_code == 400 and "square" in r.json()["detail"]
    r = client.post("/api/convert", json={"puzzle": pj(puzzle), "to": "nope"})
    assert r.status_code == 400 and "nope" in r.json()["detail"]


def test_render_svg_and_png(client):
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    r = client.post("/api/render", json={"puzzle": pj(puzzle), "format": "svg",
                                         "solution": True})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith(("<svg", "<?xml")) and "</svg>" in r.text
    r = client.post("/api/render", json={"puzzle": pj(puzzle), "format": "png"})
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_certify_bundle_verifies(client, tmp_path):
    from nonosat.certificates import verify_certificate

    puzzle = read_puzzle(GAMES / "heart.non")
    r = client.post("/api/certify", json={"puzzle": pj(puzzle)})
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    assert r.headers["x-nonosat-verdict"] == "unique"
    assert r.headers["x-nonosat-certified"] == "true"
    zipfile.ZipFile(io.BytesIO(r.content)).extractall(tmp_path)
    result = verify_certificate(tmp_path / "certificate", ["dratify"], None)
    assert result.ok and result.verdict == "unique"


# -- gallery, formats ----------------------------------------------------------------------------
def test_gallery_lists_games_and_paths(corpus):
    football = corpus_path("Nonogram", "games", "football.json")
    client = TestClient(create_app([football]))
    entries = client.get("/api/gallery").json()
    sources = {e["source"] for e in entries}
    assert {f"games/{p.name}" for p in BW_GAMES} <= sources
    assert not {f"games/{p.name}" for p in COLOUR_GAMES} & sources
    assert "football.json" in sources
    for e in entries:
        out = client.get(f"/api/gallery/{e['id']}").json()
        path = football if e["source"] == "football.json" else REPO / e["source"]
        expected = read_puzzles(path)[0]
        assert out["puzzle"]["rows"] == pj(expected)["rows"]
        assert (e["width"], e["height"]) == (expected.width, expected.height)
    assert client.get("/api/gallery/doesnotexist").status_code == 404


def test_formats_lists_readers_and_writers(client):
    out = client.get("/api/formats").json()
    assert {f["name"] for f in out["read"]} == {f.name for f in formats().values() if f.read}
    assert {f["name"] for f in out["write"]} == {f.name for f in formats().values() if f.write}


# -- validation ----------------------------------------------------------------------------------
def test_malformed_and_oversized_input(client):
    r = client.post("/api/analyse", json={"puzzle": {"rows": "x"}})
    assert r.status_code == 422 and "puzzle.rows" in r.json()["detail"]
    r = client.post("/api/analyse", json={"puzzle": {"rows": [[3]], "cols": [[1]]}})
    assert r.status_code == 422 and "row 1" in r.json()["detail"]
    big = {"rows": [[1]] * 201, "cols": [[1]] * 201}
    r = client.post("/api/analyse", json={"puzzle": big})
    assert r.status_code == 422 and "200x200" in r.json()["detail"]
    r = client.post("/api/solve", content=b" " * 1_000_001,
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "too large" in r.json()["detail"]
    heart = pj(read_puzzle(GAMES / "heart.non"))
    r = client.post("/api/check", json={"puzzle": heart, "state": ["#x"]})
    assert r.status_code == 422 and "state row 1" in r.json()["detail"]
    r = client.post("/api/solve", json={"puzzle": heart, "engine": "magic"})
    assert r.status_code == 422
    r = client.post("/api/analyse", json={"puzzle": {**heart, "goal": ["#"]}})
    assert r.status_code == 422 and "goal" in r.json()["detail"]


SOLVING = ["analyse", "suggest", "solve", "hint", "check", "steps", "shortcode", "convert",
           "render", "certify"]
#: Bodies every puzzle endpoint must refuse with a 4xx and a one-line message.
BAD_BODIES = [
    b"", b"null", b"[]", b"1", b"{", b"\xff\xfe", b'{"puzzle": null}', b"{}",
    b'{"puzzle": {"rows": "ab", "cols": []}}',
    b'{"puzzle": {"rows": [["a"]], "cols": [[1]]}}',
    b'{"puzzle": {"rows": [[1.5]], "cols": [[1]]}}',
    b'{"puzzle": {"rows": [[-1]], "cols": [[1]]}}',
    b'{"puzzle": {"rows": [[2]], "cols": [[1]]}}',
    b'{"puzzle": {"rows": [[9223372036854775808]], "cols": [[1]]}}',
    b'{"puzzle": {"rows": [[1]], "cols": [[1]], "goal": ["#", "#"]}}',
    b'{"puzzle": {"rows": [[1]], "cols": [[1]], "goal": ["x"]}}',
    b'{"puzzle": {"rows": [[1]], "cols": [[1]], "goal": [""]}}',
    b'{"puzzle": {"rows": [[1]], "cols": [[1]]}, "state": ["#", "#"]}',
    b'{"puzzle": {"rows": [[1]], "cols": [[1]]}, "state": ["z"]}',
    b'{"puzzle": {"rows": [[1]], "cols": [[1]]}, "timeout": "soon"}',
    b'{"puzzle": {"rows": [[1]], "cols": [[1]]}, "seq": "x", "client": 5}',
    ('{"puzzle": {"rows": ' + str([[1]] * 201) + ', "cols": [[1]]}}').encode(),
]


@pytest.mark.parametrize("endpoint", SOLVING)
def test_bad_bodies_get_a_4xx_with_a_message_on_every_endpoint(endpoint):
    """Never a 5xx: each malformed body is refused with a client error and a one-line detail
    (the state and timeout fields only matter where the endpoint reads them)."""
    client = TestClient(create_app(), raise_server_exceptions=False)
    extra = {"convert": {"to": "non"}}.get(endpoint, {})
    for raw in BAD_BODIES:
        body = raw
        if extra and raw.startswith(b'{"puzzle": {'):
            body = raw[:-1] + b', "to": "non"}'
        r = client.post(f"/api/{endpoint}", content=body,
                        headers={"content-type": "application/json"})
        if r.status_code == 200:  # a field this endpoint ignores (state, timeout, seq)
            assert b'"state"' in raw or b'"timeout"' in raw or b'"seq"' in raw, (endpoint, raw)
            continue
        assert 400 <= r.status_code < 500, (endpoint, raw, r.status_code, r.text)
        detail = r.json()["detail"]
        assert isinstance(detail, str) and detail and "\n" not in detail, (endpoint, raw)
        assert "Traceback" not in r.text


def test_body_limit_counts_bodies_without_length():
    app = create_app()

    async def run() -> int:
        async def chunks():
            for _ in range(11):
                yield b" " * 100_000

        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as ac:
            r = await ac.post("/api/solve", content=chunks(),
                              headers={"content-type": "application/json"})
            return r.status_code

    assert asyncio.run(run()) == 413


def test_newer_request_supersedes_older(corpus, warm_studio):
    app = create_app()
    # Faase (80x95) takes the portfolio tens of seconds: still running when the newer arrives
    # (Knotty, used before, is now decided in well under a second)
    slow_puzzle = pj(read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey",
                                             "faase.nin")))
    heart = pj(read_puzzle(GAMES / "heart.non"))

    async def run():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1",
                                     timeout=60) as ac:
            slow = asyncio.create_task(ac.post("/api/solve", json={
                "puzzle": slow_puzzle, "timeout": 30, "client": "page", "seq": 1}))
            await asyncio.sleep(0.3)
            sent = time.perf_counter()  # the older is superseded from here
            fast = await ac.post("/api/solve", json={"puzzle": heart, "client": "page",
                                                     "seq": 2})
            old = await slow
            return old, fast, time.perf_counter() - sent

    old, fast, took = asyncio.run(run())
    assert fast.status_code == 200 and fast.json()["status"] == "unique"
    assert old.status_code == 409
    assert old.json() == {"detail": "superseded by a newer request"}
    # the older answered at once, not at its 30 s limit (nor after the tens of seconds Faase
    # takes); timed from the newer request, so the app's kernel warm-up (seconds under load)
    # is not counted
    assert took < 15, took


def test_request_with_an_older_seq_is_superseded_at_once():
    from nonosat.studio.runner import JobRunner, Superseded

    runner = JobRunner(workers=2)

    async def run():
        def slow(should_stop):
            while not should_stop():
                time.sleep(0.01)
            return "stopped"

        newer = asyncio.create_task(runner.run(slow, "page", 5))
        await asyncio.sleep(0.05)
        with pytest.raises(Superseded):  # seq 4 arrives after seq 5: refused
            await runner.run(lambda stop: "late", "page", 4)
        assert not newer.done()
        latest = await runner.run(lambda stop: "latest", "page", 6)
        with pytest.raises(Superseded):
            await newer
        return latest

    latest = asyncio.run(run())
    assert latest == "latest"
    runner.shutdown()


# -- the command ---------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_studio_command_serves_and_stops_on_sigint():
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-c", "from nonosat.cli.app import main; main()", "studio",
           "--no-browser", "--port", str(port), str(GAMES / "heart.non")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        line = proc.stdout.readline()  # the URL, once the server listens
        assert f"http://127.0.0.1:{port}/?open=" in line, (line, proc.stderr.read())
        base = f"http://127.0.0.1:{port}"
        page = httpx.get(base + "/", timeout=10)
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        entries = httpx.get(base + "/api/gallery", timeout=10).json()
        assert line.strip().split("?open=")[1].split()[0] in {e["id"] for e in entries}
        # a second server on the same port: one line, exit 2
        again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
        assert again.returncode == 2
        assert "in use" in again.stderr and "Traceback" not in again.stderr
        assert len(again.stderr.strip().splitlines()) == 1
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130  # interrupted, as every command (issue 25)
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_studio_command_opens_the_browser_unless_told_not_to(tmp_path):
    """Without --no-browser the page's address goes to the browser ($BROWSER, which Python's
    webbrowser module honours: here a command that writes the address to a file)."""
    opened = tmp_path / "opened.txt"
    port = _free_port()
    browser = (f"{sys.executable} -c \"import sys; open(sys.argv[2], 'w').write(sys.argv[1])\""
               f" %s {opened}")
    env = {**os.environ, "BROWSER": browser,
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", "from nonosat.cli.app import main; main()",
                             "studio", "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        deadline = time.monotonic() + 60
        while not (opened.exists() and opened.read_text()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert opened.read_text() == f"http://127.0.0.1:{port}/"
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130


def test_api_is_documented_at_openapi_without_cdn_pages(client):
    # /docs and /redoc would load Swagger UI / ReDoc from a CDN: off (404), nothing blank
    assert client.get("/docs").status_code == 404
    assert client.get("/redoc").status_code == 404
    paths = client.get("/openapi.json").json()["paths"]
    for endpoint in ("analyse", "solve", "hint", "steps", "certify", "convert", "render",
                     "check", "suggest", "parse", "shortcode"):
        assert f"/api/{endpoint}" in paths, endpoint
        assert paths[f"/api/{endpoint}"]["post"]["summary"]


def test_studio_command_rejects_missing_path(tmp_path):
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    result = CliRunner().invoke(app, ["studio", "--no-browser", str(tmp_path / "nope.non")])
    assert result.exit_code == 2
    assert "nope.non" in result.output


def test_static_files_are_package_data():
    text = (REPO / "pyproject.toml").read_text()
    assert 'studio/static/**/*' in text
    assert Path(REPO / "nonosat" / "studio" / "static").is_dir()


# -- givens (issue 29 part 3) --------------------------------------------------------------------
def test_givens_are_part_of_the_puzzle_in_every_endpoint(client):
    """A `give` suggestion's cells sent as the puzzle's `givens`: the verdict, grade and steps
    are those of the puzzle with its givens (checked against CP-SAT started from them), JSON and
    webpbn downloads keep them and read back with them, other formats say they were dropped."""
    pytest.importorskip("nonosat.analysis.steps", reason="nonosat.analysis.steps not merged yet")
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    out = client.post("/api/analyse", json={"puzzle": pj(puzzle), "suggest_timeout": 5}).json()
    assert out["status"] == "multiple" and out["grade"]["level"] is None
    give = next(s for s in out["suggestions"] if s["kind"] == "give")
    rows = [["?"] * puzzle.width for _ in range(puzzle.height)]
    for r, c, v in give["cells"]:
        rows[r][c] = v
    data = {**pj(puzzle), "givens": ["".join(r) for r in rows]}
    state = np.array([[{"#": 2, ".": 1, "?": 3}[ch] for ch in r] for r in rows], dtype=np.int8)
    truth = solve(puzzle, "cpsat", partial=state, limit=2)
    assert truth.status == Status.UNIQUE
    with_givens = client.post("/api/analyse", json={"puzzle": data}).json()
    assert with_givens["status"] == "unique"
    assert with_givens["solutions"] == [grid_rows(truth.solutions[0])]
    assert with_givens["grade"]["level"] in range(1, 6)
    assert with_givens["classification"].startswith(f"with {len(give['cells'])} given cell")
    steps = client.post("/api/steps", json={"puzzle": data}).json()
    assert steps["status"] == "unique" and steps["solutions"] == with_givens["solutions"]
    for name, kept in (("json", "kept"), ("webpbn", "kept"), ("non", "dropped")):
        response = client.post("/api/convert", json={"puzzle": data, "to": name})
        assert response.status_code == 200 and response.headers["x-nonosat-givens"] == kept
        back = client.post("/api/parse", json={"text": response.text, "format": name}).json()
        assert back["puzzle"].get("givens") == (data["givens"] if kept == "kept" else None)
    plain = client.post("/api/convert", json={"puzzle": pj(puzzle), "to": "json"})
    assert plain.headers["x-nonosat-givens"] == "none"
    bad = client.post("/api/analyse", json={"puzzle": {**data, "givens": data["givens"][1:]}})
    assert bad.status_code == 422 and "givens" in bad.json()["detail"]
