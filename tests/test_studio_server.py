"""The studio's server machinery: only this machine can talk to it (Host, Origin, Content-Type,
symlinks out of its folders), stop tokens, disconnects and admission, parsing off the event
loop, and Keep trying (background verdicts).

Verdicts of background jobs are checked against the CP-SAT engine's enumeration, independent of
the studio's own solving path; the security checks are driven through a real uvicorn on a free
port as well as the in-process client.
"""

from __future__ import annotations

import asyncio
import io
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from fastapi import Request
from fastapi.testclient import TestClient

from nonosat.engines import Status, load_engine, solve
from nonosat.formats import read_puzzle
from nonosat.studio.asgi import create_app
from nonosat.studio.runner import Busy, Disconnected, JobRunner, JobToken, Superseded
from nonosat.studio.schemas import puzzle_to_json
from tests.conftest import GAMES

HEART = puzzle_to_json(read_puzzle(GAMES / "heart.non"))
TWO = {"rows": [[1], [1]], "cols": [[1], [1]]}  # 2x2, two solutions


@pytest.fixture(scope="module")
def client(warm_studio) -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=False)


def _one_line(r: httpx.Response) -> str:
    detail = r.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    return detail


# -- a real server -------------------------------------------------------------------------------
class LiveServer:
    """uvicorn serving ``app`` on a free port in a thread of this process."""

    def __init__(self, app) -> None:
        import uvicorn

        self.app = app
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.server.started

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)
        self.sock.close()


def _slow_route(app) -> None:
    """``POST /api/test-slow``: a job that polls its token until it is set (or 20 s)."""
    from nonosat.studio.api import _run

    app.state.slow_ended = []

    @app.post("/api/test-slow")
    async def slow(request: Request) -> dict:
        body = await request.json()

        class Body:
            client = body.get("client")
            seq = body.get("seq")

        def work(token: JobToken) -> dict:
            end = time.monotonic() + 20
            while not token.is_set() and time.monotonic() < end:
                time.sleep(0.005)
            app.state.slow_ended.append(time.monotonic())
            return {"stopped": token.is_set()}

        return await _run(request, Body, work)


@pytest.fixture(scope="module")
def live(warm_studio) -> Iterator[LiveServer]:
    app = create_app(jobs=JobRunner(workers=2, queue=1))
    _slow_route(app)
    server = LiveServer(app)
    yield server
    server.stop()


# -- Host ----------------------------------------------------------------------------------------
FOREIGN = ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil",
           "10.0.0.1:8765", "[::2]:8765", "", "127.0.0.1:99999", "a b", "localhost:x"]
LOCAL = ["127.0.0.1", "127.0.0.1:8765", "localhost", "LOCALHOST:80", "[::1]:8765", "[::1]",
         "localhost."]


@pytest.mark.parametrize("host", FOREIGN)
def test_a_foreign_host_is_served_nothing(client, host):
    """DNS rebinding: the page, the static files, the API, the schema: 421, one line."""
    for method, path in [("GET", "/"), ("GET", "/static/studio.css"), ("GET", "/api/gallery"),
                         ("GET", "/api/formats"), ("GET", "/openapi.json"),
                         ("POST", "/api/solve"), ("GET", "/static/nope.js")]:
        r = client.request(method, path, headers={"host": host},
                           json={"puzzle": HEART} if method == "POST" else None)
        assert r.status_code == 421, (host, path, r.status_code)
        assert "127.0.0.1" in _one_line(r)
        assert "<html" not in r.text and "rows" not in r.text


@pytest.mark.parametrize("host", LOCAL)
def test_this_machine_is_served(client, host):
    r = client.get("/", headers={"host": host})
    assert r.status_code == 200 and "<html" in r.text.lower()
    r = client.post("/api/solve", headers={"host": host}, json={"puzzle": HEART})
    assert r.status_code == 200 and r.json()["status"] == "unique"


def test_the_host_given_to_the_server_is_served_too():
    app_client = TestClient(create_app(host="192.168.7.9"), raise_server_exceptions=False)
    assert app_client.get("/api/formats", headers={"host": "192.168.7.9:8765"}).status_code == 200
    assert app_client.get("/api/formats", headers={"host": "localhost:1"}).status_code == 200
    assert app_client.get("/api/formats", headers={"host": "192.168.7.10"}).status_code == 421


def test_every_interface_answers_this_machine_from_other_machines():
    """``--host 0.0.0.0``: another machine reaches the studio by an IP address of this one (any
    address: a rebinding page cannot name one) or by its host name; a foreign name still gets
    421, and ``--allow-host`` adds a DNS name.  The default loopback bind accepts none of these
    (the DNS-rebinding defence), but does accept an ``--allow-host`` name."""
    name = socket.gethostname().lower()
    wildcard = TestClient(create_app(host="0.0.0.0", allow_hosts=["Studio.LAN"]),
                          raise_server_exceptions=False)
    loopback = TestClient(create_app(allow_hosts=["studio.lan"]), raise_server_exceptions=False)
    for host in ("192.0.2.2:8765", "10.1.2.3", "[fe80::1]:8765", f"{name}:8765",
                 "studio.lan:8765"):
        assert wildcard.get("/api/formats", headers={"host": host}).status_code == 200, host
        expected = 200 if host.startswith("studio.lan") else 421
        assert loopback.get("/api/formats", headers={"host": host}).status_code == expected
    for host in ("evil.example:8765", f"{name}.evil.example", "192.0.2.2.evil.example"):
        r = wildcard.get("/api/formats", headers={"host": host})
        assert r.status_code == 421 and "--allow-host" in _one_line(r), host
    # a non-loopback address: itself and this machine's name, not another address
    lan = TestClient(create_app(host="192.168.7.9"), raise_server_exceptions=False)
    assert lan.get("/api/formats", headers={"host": name}).status_code == 200
    assert lan.get("/api/formats", headers={"host": "10.1.2.3"}).status_code == 421


def test_allow_host_option_is_checked_and_explained():
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    runner = CliRunner()
    text = " ".join(runner.invoke(app, ["studio", "--help"], env={"COLUMNS": "200"})
                    .stdout.split())
    assert "--allow-host NAME" in text and "DNS rebinding" in text and "0.0.0.0" in text
    for bad in ("studio.lan:8765", "http://studio.lan", "a b"):
        r = runner.invoke(app, ["studio", "--no-browser", "--allow-host", bad])
        assert r.exit_code == 2 and "--allow-host" in r.output, (bad, r.output)


def test_a_real_server_refuses_a_foreign_host(live):
    """Through uvicorn and a socket (not the in-process client): the Host header decides."""
    with httpx.Client(base_url=live.base, timeout=10) as http:
        assert http.get("/").status_code == 200
        for path in ("/", "/api/gallery", "/static/studio.css"):
            r = http.get(path, headers={"host": "evil.example"})
            assert r.status_code == 421 and "127.0.0.1" in _one_line(r)
        r = http.get("/", headers={"host": f"localhost:{live.port}"})
        assert r.status_code == 200
    # HTTP/1.0 without any Host header
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as s:
        s.sendall(b"GET /api/gallery HTTP/1.0\r\n\r\n")
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 421"), answer[:80]


# -- Origin and Content-Type ---------------------------------------------------------------------
def test_cross_origin_state_changes_are_refused(client):
    base = {"host": "127.0.0.1:8765"}
    cases = [
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "http://127.0.0.1:9999"}, 403),  # another local service's page
        ({"origin": "https://127.0.0.1:8765"}, 403),
        ({"origin": "null"}, 403),
        ({"sec-fetch-site": "cross-site"}, 403),
        ({"sec-fetch-site": "same-site"}, 403),
        ({"origin": "http://127.0.0.1:8765"}, 200),
        ({"origin": "http://127.0.0.1:8765", "sec-fetch-site": "same-origin"}, 200),
        ({}, 200),  # no Origin: a program on this machine, not a page
    ]
    for extra, status in cases:
        r = client.post("/api/solve", json={"puzzle": HEART}, headers={**base, **extra})
        assert r.status_code == status, (extra, r.status_code, r.text)
        if status != 200:
            assert "refused" in _one_line(r)


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", None,
                                   "text/plain; charset=utf-8", "application/xml"])
def test_simple_request_bodies_are_refused(client, ctype):
    """The bodies a page can send cross-origin without a preflight (and any but JSON and
    multipart) change nothing, even without an Origin."""
    import json

    body = json.dumps({"text": "ok", "format": "short"}).encode()
    headers = {"content-type": ctype} if ctype else {}
    for path in ("/api/parse", "/api/solve", "/api/keep-trying"):
        r = client.post(path, content=body, headers=headers)
        if ctype is None:  # httpx sends no Content-Type for raw bytes
            assert "content-type" not in r.request.headers
        assert r.status_code == 415, (path, ctype, r.status_code)
        assert "application/json" in _one_line(r)


def test_cross_origin_multipart_is_refused_and_own_multipart_works(client):
    short = client.post("/api/shortcode", json={"puzzle": HEART}).json()["text"].encode()
    files = {"file": ("heart.short", short)}
    r = client.post("/api/parse", files=files, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.post("/api/parse", files=files, headers={"origin": "http://testserver"})
    assert r.status_code == 200 and r.json()["puzzle"]["rows"] == HEART["rows"]


def test_a_real_server_refuses_cross_origin_posts(live):
    with httpx.Client(base_url=live.base, timeout=120) as http:
        r = http.post("/api/parse", content=b'{"text": "x"}',
                      headers={"content-type": "text/plain", "origin": "http://evil.example"})
        assert r.status_code == 403
        r = http.post("/api/solve", json={"puzzle": HEART},
                      headers={"origin": f"http://127.0.0.1:{live.port}"})
        assert r.status_code == 200 and r.json()["status"] == "unique"


# -- symlinks ------------------------------------------------------------------------------------
def test_puzzles_through_symlinks_out_of_the_folder_are_refused(tmp_path):
    folder, outside = tmp_path / "studio", tmp_path / "private"
    folder.mkdir()
    outside.mkdir()
    heart = (GAMES / "heart.non").read_bytes()
    (folder / "mine.non").write_bytes(heart)
    (outside / "secret.non").write_bytes(heart.replace(b"Heart", b"Secret"))
    (folder / "link.non").symlink_to(outside / "secret.non")
    (folder / "dir").symlink_to(outside, target_is_directory=True)
    (folder / "sub").mkdir()
    (folder / "sub" / "other.non").write_bytes(heart)
    (folder / "inner.non").symlink_to(folder / "sub" / "other.non")  # a link inside: fine
    app = create_app([folder], include_games=False)
    client = TestClient(app)
    entries = client.get("/api/gallery").json()
    sources = sorted(e["source"] for e in entries)
    # sub/other.non and inner.non are one file (one id): listed once, under the first name
    assert sources == ["studio/inner.non", "studio/mine.non"], sources
    assert all("Secret" not in e["name"] for e in entries)
    # a listed file later replaced by a link out of the folder is refused when it is read
    mine = next(e for e in entries if e["source"] == "studio/mine.non")
    assert client.get(f"/api/gallery/{mine['id']}").status_code == 200
    (folder / "mine.non").unlink()
    (folder / "mine.non").symlink_to(outside / "secret.non")
    r = client.get(f"/api/gallery/{mine['id']}")
    assert r.status_code == 404 and "Secret" not in r.text


# -- jobs: stop tokens, disconnects, admission ---------------------------------------------------
def _poller(ended: list[float], limit: float = 20.0):
    def work(token: JobToken) -> str:
        end = time.monotonic() + limit
        while not token.is_set() and time.monotonic() < end:
            time.sleep(0.002)
        ended.append(time.monotonic())
        return "stopped" if token.is_set() else "ran out"

    return work


def test_a_superseded_job_stops_its_thread():
    runner = JobRunner(workers=2, queue=0)
    ended: list[float] = []

    async def run() -> float:
        old = asyncio.create_task(runner.run(_poller(ended), "page", 1))
        deadline = time.monotonic() + 10  # the worker thread may start late on a loaded machine
        while runner.running() == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        assert runner.running() == 1
        new = asyncio.create_task(runner.run(lambda token: "new", "page", 2))
        with pytest.raises(Superseded):
            await old
        superseded_at = time.monotonic()
        assert await new == "new"
        while runner.running():
            await asyncio.sleep(0.005)
        return superseded_at

    superseded_at = asyncio.run(run())
    assert ended and ended[0] - superseded_at < 0.2  # the thread ended, not at its 20 s
    assert runner.stop_latencies and max(runner.stop_latencies) < 0.2
    runner.shutdown()


def test_a_disconnected_client_cancels_its_job():
    runner = JobRunner(workers=1, queue=0)
    ended: list[float] = []
    calls = 0

    async def gone() -> bool:
        nonlocal calls
        calls += 1
        return calls > 3

    async def run() -> None:
        with pytest.raises(Disconnected):
            await runner.run(_poller(ended), disconnected=gone)
        while runner.running():
            await asyncio.sleep(0.005)

    start = time.monotonic()
    asyncio.run(run())
    assert ended and ended[0] - start < 1.0
    assert runner.counts["disconnected"] == 1
    runner.shutdown()


def test_a_real_client_hanging_up_cancels_its_job(live):
    """A socket closed mid-request (uvicorn's http.disconnect, seen through
    ``request.is_disconnected``) stops the job's thread."""
    jobs: JobRunner = live.app.state.jobs
    before = jobs.counts["disconnected"]
    ended = live.app.state.slow_ended
    n = len(ended)
    body = b'{"client": "hang"}'
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as s:
        s.sendall(b"POST /api/test-slow HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                  % (len(body), body))
        deadline = time.monotonic() + 10
        while jobs.running() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert jobs.running() == 1
    closed = time.monotonic()
    deadline = closed + 10
    while len(ended) == n and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(ended) == n + 1 and ended[-1] - closed < 1.0, "the job ran on"
    assert jobs.counts["disconnected"] == before + 1


def test_a_full_runner_answers_503_with_retry_after(live):
    """Two workers and one queue slot: the fourth concurrent request is refused at once."""

    async def run() -> tuple[list[int], httpx.Response, float]:
        async with httpx.AsyncClient(base_url=live.base, timeout=120) as http:
            held = [asyncio.create_task(http.post("/api/test-slow", json={"client": f"c{k}"}))
                    for k in range(3)]
            deadline = time.monotonic() + 10
            while live.app.state.jobs.load() < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            t = time.monotonic()
            refused = await http.post("/api/solve", json={"puzzle": HEART})
            took = time.monotonic() - t
            # requests superseding the held ones take their slots (and stop them; the queued
            # one never starts)
            fresh = await asyncio.gather(*[http.post("/api/solve", json={
                "puzzle": HEART, "client": f"c{k}"}) for k in range(3)])
            assert [f.json()["status"] for f in fresh] == ["unique"] * 3
            statuses = [(await h).status_code for h in held]
            return statuses, refused, took

    statuses, refused, took = asyncio.run(run())
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert "busy" in _one_line(refused) and took < 1.0
    assert statuses == [409, 409, 409]
    with httpx.Client(base_url=live.base, timeout=120) as http:
        assert http.post("/api/solve", json={"puzzle": HEART}).json()["status"] == "unique"


def test_the_studio_recovers_at_once_after_50_abandoned_requests():
    """50 requests whose clients went away (their awaiting tasks cancelled) leave no thread
    running: a 2x2 solve answers within a second."""
    load_engine("native")  # the kernels loaded (or compiled) beforehand: not part of the second
    runner = JobRunner()
    ended: list[float] = []

    async def run() -> float:
        tasks = [asyncio.create_task(runner.run(_poller(ended))) for _ in range(12)]
        await asyncio.sleep(0.05)
        for t in tasks:
            t.cancel()
        for _ in range(38):  # and more, each abandoned at once
            task = asyncio.create_task(runner.run(_poller(ended)))
            await asyncio.sleep(0)
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        start = time.monotonic()
        from nonosat.puzzle import Puzzle

        result = await runner.run(lambda token: solve(Puzzle(**{k: [tuple(c) for c in v]
                                                                 for k, v in TWO.items()}),
                                                      "native"))
        assert result.status == Status.MULTIPLE
        return time.monotonic() - start

    took = asyncio.run(run())
    assert took < 1.0, took
    deadline = time.monotonic() + 2
    while runner.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runner.running() == 0
    runner.shutdown()


# -- parsing -------------------------------------------------------------------------------------
def test_deeply_nested_json_is_a_422_not_a_500(client):
    for path in ("/api/parse", "/api/solve", "/api/analyse", "/api/keep-trying"):
        r = client.post(path, content=b"[" * 10_000, headers={"content-type":
                                                               "application/json"})
        # /api/parse reads its body itself: 422; FastAPI's own body parsing answers 400
        assert r.status_code == (422 if path == "/api/parse" else 400), (path, r.status_code)
        _one_line(r)
    r = client.post("/api/parse", json={"text": "[" * 10_000, "filename": "x.json"})
    assert 400 <= r.status_code < 500 and "Traceback" not in r.text
    _one_line(r)


def test_bad_parse_bodies_get_a_4xx_with_one_line(client):
    for body in [b"", b"null", b"{", b"\xff\xfe", b'{"text": 5}', b'{"text": "x", "index": -1}',
                 b'{"text": "!!", "encoding": "base64"}', b'{"text": "x", "format": "magic"}',
                 b'{"text": "\\ud800", "filename": "a.non"}']:
        r = client.post("/api/parse", content=body, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500, (body, r.status_code, r.text)
        _one_line(r)
    for path in ("/api/parse", "/api/picture"):
        for ctype in ("multipart/form-data; boundary=x", "multipart/form-data"):
            r = client.post(path, content=b"--x\r\nContent-Disposition: form-data\r\n",
                            headers={"content-type": ctype})
            assert 400 <= r.status_code < 500, (path, ctype, r.status_code, r.text)
            _one_line(r)
    r = client.post("/api/picture", json={"file": "x"})
    assert r.status_code == 422 and "multipart" in _one_line(r)


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (width, height), 1).save(out, format="PNG")
    return out.getvalue()


def test_picture_size_is_checked_from_the_header_before_decoding(client, monkeypatch):
    from PIL import ImageFile

    decoded: list[tuple[int, int]] = []
    real_load = ImageFile.ImageFile.load

    def load(self):
        decoded.append(self.size)
        return real_load(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)
    big = _png(10_000, 10_000)  # 100 million pixels in a few kilobytes
    assert len(big) < 200_000
    start = time.monotonic()
    r = client.post("/api/parse", files={"file": ("big.png", big)})
    assert r.status_code == 400 and "200x200" in _one_line(r)
    assert time.monotonic() - start < 5
    r = client.post("/api/parse", files={"file": ("wide.png", _png(201, 3))})
    assert r.status_code == 400 and "201x3" in _one_line(r)
    assert decoded == []  # neither was decoded
    r = client.post("/api/parse", files={"file": ("ok.png", _png(20, 10))})
    assert r.status_code == 200 and len(r.json()["puzzle"]["rows"]) == 10
    assert decoded and set(decoded) == {(20, 10)}


def test_parsing_runs_in_a_worker_thread(client, monkeypatch):
    import nonosat.studio.api as api

    threads: list[str] = []
    real = api._read

    def spy(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "_read", spy)
    short = client.post("/api/shortcode", json={"puzzle": HEART}).json()["code"]
    assert client.post("/api/parse", json={"text": short, "format": "short"}).status_code == 200
    assert client.post("/api/parse", files={"file": ("h.short", short.encode())}).status_code \
        == 200
    assert len(threads) == 2 and all(t.startswith("nonosat-job") for t in threads), threads


# -- Keep trying ---------------------------------------------------------------------------------
def _wait_job(client, job: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        out = client.get(f"/api/keep-trying/{job}").json()
        if out["state"] != "running" or time.monotonic() > deadline:
            return out
        time.sleep(0.05)


def test_keep_trying_reaches_the_verdict_with_the_map(client):
    from nonosat.puzzle import Puzzle

    cross = read_puzzle(GAMES / "cross-ambiguous.non")
    r = client.post("/api/keep-trying", json={"puzzle": puzzle_to_json(cross), "limit": 30})
    assert r.status_code == 202
    started = r.json()
    assert started["state"] == "running" and started["limit_s"] == 30
    out = _wait_job(client, started["job"])
    assert out["state"] == "done" and out["phase"] == "done", out
    # checked against CP-SAT's enumeration of every solution
    sols = solve(cross, "cpsat", limit=1000).solutions
    diff = np.zeros(cross.shape, dtype=bool)
    for s in sols[1:]:
        diff |= s != sols[0]
    assert out["result"]["status"] == "multiple" and len(sols) > 1
    assert {tuple(c) for c in out["result"]["ambiguous"]} == {
        (int(r), int(c)) for r, c in zip(*np.nonzero(diff), strict=True)}
    cells = cross.height * cross.width
    verdict_s = out["known"].pop("verdict_s")
    assert 0 <= verdict_s <= out["elapsed_s"]
    assert out["known"] == {"status": "multiple", "ambiguous": int(diff.sum()),
                            "proved": cells - int(diff.sum()), "undecided": 0}
    assert out["elapsed_s"] <= 30
    # unique, and a limit over the cap is capped
    heart = Puzzle(**{k: [tuple(c) for c in v] for k, v in HEART.items() if k in ("rows",
                                                                                  "cols")})
    r = client.post("/api/keep-trying", json={"puzzle": HEART, "limit": 10_000})
    assert r.json()["limit_s"] == 300
    out = _wait_job(client, r.json()["job"])
    assert out["result"]["status"] == solve(heart, "cpsat").status.value == "unique"
    assert out["known"]["proved"] == heart.height * heart.width


def test_keep_trying_cancel_limit_and_admission():
    from nonosat.studio.background import BackgroundJobs
    from nonosat.studio.quick import Cancelled

    jobs = BackgroundJobs(max_running=2, grace_s=0.0)
    ended: dict[str, float] = {}

    def work(job):
        job.update("verdict", {"undecided": 4})
        while not job.token.is_set():
            time.sleep(0.002)
        ended[job.id] = time.monotonic()
        raise Cancelled

    a = jobs.start(work, 30, client="tab")
    b = jobs.start(work, 0.2)  # runs out of time
    with pytest.raises(Busy):
        jobs.start(work, 30)
    deadline = time.monotonic() + 10  # a's thread may start late on a loaded machine
    while a.to_json()["phase"] != "verdict" and time.monotonic() < deadline:
        time.sleep(0.005)
    assert a.to_json()["phase"] == "verdict" and a.to_json()["known"] == {"undecided": 4}
    t = time.monotonic()
    assert jobs.cancel(a.id).state == "cancelled"
    deadline = time.monotonic() + 10
    while jobs.running() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert jobs.running() == 0 and ended[a.id] - t < 0.2, (ended, t)
    assert b.state == "gave up" and "0.2 s" in (b.detail or "")
    # a newer job of the same client cancels the older one
    c = jobs.start(work, 30, client="tab")
    d = jobs.start(lambda job: {"status": "unique", "width": 1, "height": 1}, 30, client="tab")
    deadline = time.monotonic() + 10
    while d.state == "running" and time.monotonic() < deadline:
        time.sleep(0.005)
    assert c.state == "cancelled" and d.state == "done"
    with pytest.raises(KeyError):
        jobs.get("nope")
    jobs.shutdown()


def test_keep_trying_over_http_cancel_and_unknown_jobs(client):
    r = client.get("/api/keep-trying/0123456789abcdef")
    assert r.status_code == 404 and _one_line(r)
    assert client.delete("/api/keep-trying/nope").status_code == 404
    r = client.post("/api/keep-trying", json={"puzzle": HEART, "limit": "x"})
    assert r.status_code == 422 and _one_line(r)
    job = client.post("/api/keep-trying", json={"puzzle": HEART}).json()["job"]
    r = client.delete(f"/api/keep-trying/{job}", headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.delete(f"/api/keep-trying/{job}")
    assert r.status_code == 200 and r.json()["state"] in ("cancelled", "done")


def test_no_circle_between_api_and_app():
    """Issue 28: studio/api.py imported validation_message from studio/asgi.py, which imports
    the router of studio/api.py."""
    import ast

    api = Path(__file__).resolve().parents[1] / "nonosat" / "studio" / "api.py"
    imported = {node.module for node in ast.walk(ast.parse(api.read_text()))
                if isinstance(node, ast.ImportFrom)}
    assert "nonosat.studio.asgi" not in imported


# -- suggestions ---------------------------------------------------------------------------------
SMILEY = ["..........",
          "..######..",
          ".#......#.",
          "#..#..#..#",
          "#........#",
          "#.#....#.#",
          "#..####..#",
          ".#......#.",
          "..######..",
          ".........."]


def test_suggestions_are_the_same_on_every_load(client):
    """The same drawing gives the same make-unique suggestions each time (issue 29: reloading a
    smiley gave "no suggestion found in time" half of the time), and each is checked by CP-SAT:
    the givens leave one solution, each edit's clues have one solution."""
    from nonosat.puzzle import Cell, Puzzle, line_blocks
    from nonosat.studio.quick import suggestion_budget

    pic = np.array([[ch == "#" for ch in row] for row in SMILEY])
    puzzle = Puzzle(rows=[line_blocks(r) for r in pic], cols=[line_blocks(c) for c in pic.T],
                    goal=pic)
    assert solve(puzzle, "cpsat", limit=2).status == Status.MULTIPLE
    # the cap (suggestion_budget: 4 s here) is a safety net the work bound stays under on an
    # idle machine; a loaded one can reach it and cut one answer short: the longest cap
    answers = [client.post("/api/suggest", json={"puzzle": puzzle_to_json(puzzle),
                                                 "timeout": 30}).json()
               for _ in range(2)]
    assert answers[0]["suggestions"], "no suggestion"
    assert answers[1] == answers[0]
    for s in answers[0]["suggestions"]:
        if s["kind"] == "give":
            state = np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
            for r, c, v in s["cells"]:
                state[r, c] = Cell.FILLED if v == "#" else Cell.EMPTY
            assert solve(puzzle, "cpsat", partial=state, limit=2).status == Status.UNIQUE
        else:
            edited = pic.copy()
            edited[tuple(s["cell"])] = s["value"] == "#"
            again = Puzzle(rows=[line_blocks(r) for r in edited],
                           cols=[line_blocks(c) for c in edited.T])
            assert solve(again, "cpsat", limit=2).status == Status.UNIQUE
    assert suggestion_budget(puzzle) < suggestion_budget(Puzzle(rows=[()] * 30,
                                                                cols=[()] * 30)) <= 30


# -- steps ---------------------------------------------------------------------------------------
def test_steps_of_a_deep_search_reach_the_end_with_the_portfolio(client, corpus):
    """webpbn-06574: the step-through alone stops undecided after thousands of steps; the walk
    ends with the verdict's portfolio.  Replaying the steps' cells gives a solution, and the
    status is CP-SAT's."""
    from nonosat.puzzle import Cell
    from tests.conftest import corpus_path

    puzzle = read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey",
                                     "webpbn-06574.nin"))
    # the longest limit: the walk and its portfolio take a few seconds idle, which a loaded
    # machine stretched past 15 s (an "unknown" status)
    out = client.post("/api/steps", json={"puzzle": puzzle_to_json(puzzle), "timeout": 30})
    assert out.status_code == 200
    run = out.json()
    assert run["status"] == solve(puzzle, "cpsat", limit=2).status.value == "unique"
    assert run["complete"] and run["steps"][-1]["kind"] == "solution"
    grid = np.full(puzzle.shape, Cell.UNKNOWN, dtype=np.int8)
    value = {"#": Cell.FILLED, ".": Cell.EMPTY, "?": Cell.UNKNOWN}
    for step in run["steps"]:
        for r, c, v in step["cells"]:
            grid[r, c] = value[v]
    assert not (grid == Cell.UNKNOWN).any()
    assert puzzle.is_solution(grid == Cell.FILLED)
    assert ["#" if x else "." for x in (grid == Cell.FILLED)[0]] == list(run["solutions"][0][0])


# -- stop tokens in the grade and the map (issue 29 part 4) --------------------------------------
def _random_multiple():
    """25x25 random picture (seed 4): several solutions, a map of 69 ambiguous cells that takes
    about 30 short SAT calls."""
    from nonosat.puzzle import Puzzle, line_blocks

    pic = np.random.default_rng(4).random((25, 25)) < 0.5
    return Puzzle(rows=[line_blocks(r) for r in pic], cols=[line_blocks(c) for c in pic.T],
                  goal=pic)


@pytest.mark.parametrize("phase", ["grade", "map"])
def test_a_job_superseded_in_the_grade_or_the_map_stops_with_no_finding(phase, monkeypatch):
    """The token set as the phase begins: the analysis raises Cancelled (no verdict, grade or
    map is answered) within 1 s; once the token is set the map makes no SAT call and no
    probing run of the grade goes to its end."""
    import nonosat.analysis.staged as staged
    import nonosat.native.probe as probe
    from nonosat.encodings import satsolver
    from nonosat.puzzle import Puzzle
    from nonosat.stop import CANCELLED
    from nonosat.studio.quick import Cancelled, quick_analyse

    quick_analyse(Puzzle(rows=[[1], [1]], cols=[[1], [1]]), suggest=False)  # loaded, as served
    calls: list[bool] = []  # per SAT call: was the token set
    done_after: list[str] = []  # grade runs that went to their end after the set
    real, real_probe, real_staged = satsolver.SatRun._call, probe.probe_grid, staged.staged_solve
    token = JobToken()

    def spy(self, *args, **kwargs):
        calls.append(token.is_set())
        return real(self, *args, **kwargs)

    def spy_probe(*args, **kwargs):
        out = real_probe(*args, **kwargs)
        if token.is_set() and out is not None:
            done_after.append("probe_grid")
        return out

    def spy_staged(*args, **kwargs):
        out = real_staged(*args, **kwargs)
        if token.is_set() and not out.stopped:
            done_after.append("staged_solve")
        return out

    monkeypatch.setattr(satsolver.SatRun, "_call", spy)
    monkeypatch.setattr(probe, "probe_grid", spy_probe)
    monkeypatch.setattr(staged, "staged_solve", spy_staged)
    set_at: list[tuple[float, float]] = []

    def progress(ph: str, known: dict) -> None:
        if ph == phase and not set_at:
            token.set(CANCELLED)
            set_at.append((time.perf_counter(), time.thread_time()))

    with pytest.raises(Cancelled):
        quick_analyse(_random_multiple(), timeout=10, suggest=False, stop=token,
                      should_stop=token, progress=progress)
    assert set_at, f"the {phase} phase never began"
    # the analysis runs in this thread: its CPU time past the stop is the work it did on (which
    # a loaded machine does not inflate, the wall clock it does)
    wall, cpu = time.perf_counter() - set_at[0][0], time.thread_time() - set_at[0][1]
    assert cpu < 1.0 and wall < 10, (cpu, wall)
    assert not any(calls), "SAT calls made after the token was set"
    assert not done_after, f"{done_after} ran to its end after the token was set"


def test_the_grade_and_the_map_stopped_midway_claim_nothing_false(monkeypatch):
    """quick_grade with a set token answers 'not graded' with no grid (never 'no solution');
    the map stopped after its third SAT call is incomplete, and every cell it calls ambiguous
    differs between two verified solutions (the witnesses) -- checked against CP-SAT's
    enumeration being several solutions."""
    from nonosat.analysis.backbone import sat_backbone
    from nonosat.encodings import satsolver
    from nonosat.stop import CANCELLED
    from nonosat.studio.quick import STOPPED_GRADE, quick_grade, verdict

    puzzle = _random_multiple()
    result = verdict(puzzle, 10.0)
    assert result.status == Status.MULTIPLE
    assert solve(puzzle, "cpsat", limit=2, timeout=30).status == Status.MULTIPLE
    token = JobToken()
    token.set(CANCELLED)
    grade, techniques, _, grid = quick_grade(puzzle, result, stop=token)
    assert grade == STOPPED_GRADE and grid is None and not techniques

    token = JobToken()
    real = satsolver.SatRun._call
    count = [0]

    def spy(self, *args, **kwargs):
        count[0] += 1
        if count[0] == 3:
            token.set(CANCELLED)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(satsolver.SatRun, "_call", spy)
    ambiguous, complete, witnesses = sat_backbone(puzzle, result.solutions, None,
                                                  deadline=time.perf_counter() + 30, stop=token)
    assert count[0] == 3 and not complete
    assert all(puzzle.is_solution(w) for w in witnesses)
    differ = np.zeros(puzzle.shape, dtype=bool)
    for w in witnesses[1:]:
        differ |= w != witnesses[0]
    assert ambiguous.any() and (ambiguous == differ).all()
