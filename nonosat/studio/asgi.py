"""The studio's ASGI application: :func:`create_app`.

``GET /`` serves ``static/index.html``, ``/static/...`` the rest of that folder, ``/api/...`` the
JSON API (:mod:`nonosat.studio.api`), ``/openapi.json`` its OpenAPI schema (FastAPI's ``/docs``
and ``/redoc`` pages are off: they load Swagger UI / ReDoc from a CDN, so they stayed blank on an
offline machine; the reference is ``docs/studio.md``).  Request
bodies over :data:`MAX_BODY_BYTES` are refused with 413 before they are parsed; nonosat's own
errors become 4xx with a one-line ``detail``; anything unexpected is logged and answered 500
without internals.  Before anything else, :class:`nonosat.studio.security.LocalOnly` refuses
requests that do not come from this machine's own pages (a foreign ``Host``: 421; a
cross-origin or wrongly typed state-changing request: 403 / 415); a full job runner answers 503
with ``Retry-After`` (:mod:`nonosat.studio.runner`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from nonosat.errors import FormatError, NonosatError, PuzzleError
from nonosat.studio.api import router
from nonosat.studio.gallery import Gallery
from nonosat.studio.runner import Busy, Disconnected, JobRunner
from nonosat.studio.security import LocalOnly, allowed_hosts, is_wildcard
from nonosat.studio.validation import validation_message

__all__ = ["MAX_BODY_BYTES", "STATIC_DIR", "BodyLimit", "create_app", "validation_message",
           "warm_up"]

#: Largest request body accepted (bytes).
MAX_BODY_BYTES = 1_000_000
#: The front end's folder (static HTML, CSS and JavaScript modules).
STATIC_DIR = Path(__file__).resolve().parent / "static"

log = logging.getLogger("nonosat.studio")


class BodyLimit:
    """ASGI middleware: 413 for request bodies over ``limit`` bytes, by ``Content-Length`` before
    anything is read, and by counting for bodies sent without it (the body is read before the
    application sees it, so nothing is parsed from an oversized one)."""

    def __init__(self, app: Any, limit: int = MAX_BODY_BYTES):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = -1
                if size < 0 or size > self.limit:
                    await self._reject(send)
                    return
        # read the whole body first (it is at most ``limit`` bytes), counting as it comes
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.limit:
                await self._reject(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, send: Any) -> None:
        body = (b'{"detail":"request body too large: at most %d bytes"}' % self.limit)
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def create_app(paths: Iterable[Path] = (), *, include_games: bool = True,
               host: str | None = None, jobs: JobRunner | None = None,
               allow_hosts: Iterable[str] = ()) -> FastAPI:
    """The studio application.

    Parameters
    ----------
    paths : iterable of Path
        Puzzle files or directories listed in the gallery beside ``games/``.
    include_games : bool
        List the repository's ``games/`` folder (when running from a checkout).
    host : str, optional
        The address the server listens on (``--host``): requests naming it in their ``Host``
        header are answered, beside ``127.0.0.1``, ``localhost`` and ``[::1]``
        (:mod:`nonosat.studio.security`); when it is not loopback, this machine's host name
        too, and when it is every interface (``0.0.0.0``, ``::``), any IP address.
    jobs : JobRunner, optional
        The job runner (default: :data:`~nonosat.studio.runner.WORKERS` threads).
    allow_hosts : iterable of str
        More names to answer in ``Host`` (``--allow-host``: a DNS name other machines use).

    Returns
    -------
    FastAPI
        ``app.state.gallery`` (:class:`~nonosat.studio.gallery.Gallery`), ``app.state.jobs``
        (:class:`~nonosat.studio.runner.JobRunner`) and ``app.state.background``
        (:class:`~nonosat.studio.background.BackgroundJobs`, *Keep trying*) hold the server's
        state.
    """
    from nonosat.studio.background import BackgroundJobs

    runner = jobs if jobs is not None else JobRunner()
    background = BackgroundJobs()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        background.shutdown()
        runner.shutdown()

    app = FastAPI(
        lifespan=lifespan,
        title="nonosat studio",
        description="Design, check, play and step through nonograms: nonosat's engines, "
                    "analysis and certificates over JSON. Reference: docs/studio.md.",
        version=_version(),
        docs_url=None,  # Swagger UI and ReDoc load their scripts from a CDN: blank offline
        redoc_url=None,
    )
    app.state.gallery = Gallery(paths, include_games=include_games)
    app.state.jobs = runner
    app.state.background = background
    app.include_router(router)

    @app.exception_handler(Busy)
    async def _busy(request: Request, exc: Busy) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503,
                            headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(Disconnected)
    async def _gone(request: Request, exc: Disconnected) -> JSONResponse:
        # nobody reads this answer: the client hung up and its job was cancelled
        return JSONResponse({"detail": "the client closed the request"}, status_code=499)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_message(exc), "errors": _jsonable(exc)},
                            status_code=422)

    @app.exception_handler(PuzzleError)
    async def _puzzle_error(request: Request, exc: PuzzleError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(FormatError)
    async def _format_error(request: Request, exc: FormatError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(NonosatError)
    async def _nonosat_error(request: Request, exc: NonosatError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(ValueError)
    async def _value_error(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc).splitlines()[0] if str(exc) else
                             "invalid value"}, status_code=422)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error in %s %s", request.method, request.url.path)
        return JSONResponse({"detail": f"internal error ({type(exc).__name__}); see the "
                                       f"server's log"}, status_code=500)

    @app.get("/api/jobs", summary="The job runner's state (kernels ready, jobs, stop times)")
    async def jobs_state() -> dict[str, Any]:
        """Whether the kernels are loaded (``ready``), jobs running and holding a slot, the
        runner's counts and the last cancelled jobs' stop times (ms from the cancel to their
        thread's end): what ``benchmarks/bench_studio.py --fresh`` reads."""
        ready = runner.ready
        return {"ready": ready is None or ready.is_set(), "running": runner.running(),
                "load": runner.load(), "counts": dict(runner.counts),
                "stop_ms": [round(x * 1000, 1) for x in list(runner.stop_latencies)[-50:]]}

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        page = STATIC_DIR / "index.html"
        if not page.is_file():
            raise HTTPException(404, "the studio's page is missing from this installation")
        return FileResponse(page, media_type="text/html")

    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)
    # outermost: a request from elsewhere is refused before anything reads it
    app.add_middleware(LocalOnly, hosts=allowed_hosts(host, allow_hosts),
                       any_ip=is_wildcard(host))
    return app


def _jsonable(exc: RequestValidationError) -> list[dict[str, Any]]:
    out = []
    for e in exc.errors()[:20]:
        out.append({"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")),
                    "type": str(e.get("type", ""))})
    return out


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("nonosat")
    except Exception:  # noqa: BLE001 - not installed (running from a checkout)
        return "dev"


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernels a first request would need, by solving
    and analysing a small puzzle; returns the seconds it took."""
    import time

    import numpy as np

    from nonosat.puzzle import Puzzle, line_blocks
    from nonosat.studio.quick import quick_analyse

    start = time.perf_counter()
    rng = np.random.default_rng(0)
    picture = rng.random((8, 8)) < 0.5
    # and a picture with several solutions (a 2x2 diagonal): the whole ambiguity map runs the
    # SAT backbone, whose compiled CNF build would otherwise be compiled by the first such edit
    # (seconds)
    several = np.zeros((6, 6), dtype=bool)
    several[1, 1] = several[2, 2] = True
    several[4, 1:5] = True
    for pic in (picture, several):
        puzzle = Puzzle(rows=tuple(line_blocks(r) for r in pic),
                        cols=tuple(line_blocks(c) for c in pic.T), goal=pic)
        quick_analyse(puzzle, timeout=30, suggest=True, suggest_timeout=0.2)
    # colour: the colour line, propagation and probing kernels and the implication graph's
    # (a 2x2 diagonal in one colour has two solutions, and a 3x3 of two colours one)
    from nonosat.studio.schemas import PuzzleIn, puzzle_from_json

    palette = [{"name": "white", "rgb": "#ffffff"}, {"name": "red", "rgb": "#ff0000"},
               {"name": "blue", "rgb": "#0000ff"}]
    for goal in (["a.", ".a"], ["ab.", ".ab", "b.a"]):
        quick_analyse(puzzle_from_json(PuzzleIn.model_validate(
            {**_colour_clues(goal), "palette": palette, "goal": goal})),
            timeout=30, suggest=True, suggest_timeout=0.2)
    from nonosat.engines import solve

    solve(puzzle, "sat", limit=2, timeout=30)
    from nonosat.analysis.hints import next_hint

    next_hint(puzzle)
    try:
        from nonosat.analysis.steps import solve_steps

        solve_steps(puzzle, max_steps=50)
    except ImportError:  # pragma: no cover - before the analysis branch is merged
        pass
    # the certificate's proof writer and nonosat's LRAT checker (Download > certificate)
    from nonosat.certificates.certifier import certify_puzzle

    certify_puzzle(Puzzle(rows=((2,), (1,)), cols=((2,), (1,))), timeout=30)
    return time.perf_counter() - start


def _colour_clues(goal: list[str]) -> dict[str, list[list[int]]]:
    """The clues of a colour picture (rows over ``.``, ``a``, ``b``, ...) in the API's JSON:
    ``rows``/``cols`` block lengths, ``row_colours``/``col_colours`` their colour indices."""
    def line(cells: str) -> tuple[list[int], list[int]]:
        lengths: list[int] = []
        colours: list[int] = []
        prev = "."
        for ch in cells:
            if ch != "." and ch == prev:
                lengths[-1] += 1
            elif ch != ".":
                lengths.append(1)
                colours.append(ord(ch) - ord("a") + 1)
            prev = ch
        return lengths, colours

    rows = [line(r) for r in goal]
    cols = [line("".join(col)) for col in zip(*goal, strict=True)]
    return {"rows": [r[0] for r in rows], "row_colours": [r[1] for r in rows],
            "cols": [c[0] for c in cols], "col_colours": [c[1] for c in cols]}
