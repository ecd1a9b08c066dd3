"""The studio's solving routes (``/api/analyse``, ``/api/keep-trying``, ``/api/suggest``,
``/api/solve``, ``/api/make-unique``, ``/api/render``, ``/api/certify``), included in
:data:`nonosat.studio.api.router`.  Every job runs in a worker thread and reads its
:class:`~nonosat.studio.runner.JobToken` (:mod:`nonosat.studio.runner`)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import numpy as np
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response, StreamingResponse

from nonosat.puzzle import Puzzle
from nonosat.studio.api_common import SUPERSEDED, _download, _filename, _run
from nonosat.studio.runner import Disconnected, JobToken, clamp_timeout, stop_kwargs
from nonosat.studio.schemas import (
    AnalyseRequest,
    CertifyRequest,
    KeepTryingRequest,
    MakeUniqueRequest,
    RenderRequest,
    SolveRequest,
    SuggestRequest,
    puzzle_from_json,
    puzzle_to_json,
    solution_rows,
    state_from_json,
)

router = APIRouter()
log = logging.getLogger("nonosat.studio")


# -- solving -------------------------------------------------------------------------------------
@router.post("/analyse", summary="Verdict, whole ambiguity map, grade and make-unique suggestions",
             response_model=None)
async def analyse(body: AnalyseRequest, request: Request) -> dict[str, Any] | Response:
    """The editor's call on each edit (see docs/studio.md).  With ``stream``, the answer is
    NDJSON (:func:`_stream`): the verdict's line as soon as the verdict is known, then the whole
    analysis, so that a map or grade that takes seconds does not hold the verdict back."""
    from nonosat.studio.quick import Cancelled, quick_analyse

    puzzle = puzzle_from_json(body.puzzle)
    timeout = clamp_timeout(body.timeout)
    suggest_timeout = (None if body.suggest_timeout is None  # the default grows with the puzzle
                       else clamp_timeout(body.suggest_timeout))
    loop = asyncio.get_running_loop()
    first: asyncio.Future[dict[str, Any]] = loop.create_future()

    def tell(line: dict[str, Any]) -> None:  # in the worker thread
        def put() -> None:
            if not first.done():
                first.set_result(line)
        loop.call_soon_threadsafe(put)

    def work(token: JobToken):
        try:
            return quick_analyse(puzzle, timeout=timeout, suggest=body.suggest,
                                 suggest_timeout=suggest_timeout, should_stop=token,
                                 stop=token, on_verdict=tell if body.stream else None).to_json()
        except Cancelled:
            return None

    if body.stream:
        return await _stream(_run(request, body, work), first)
    out = await _run(request, body, work)
    if out is None:
        raise HTTPException(409, SUPERSEDED)
    return out


#: Media type of a streamed answer: one JSON object a line.
NDJSON = "application/x-ndjson"


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


async def _stream(job: Awaitable[dict[str, Any] | None],
                  first: asyncio.Future[dict[str, Any]]) -> Response:
    """A streamed analysis: NDJSON lines ``{"stage": "verdict", ...}`` (as soon as
    ``first`` has it) then ``{"stage": "done", ...whole analysis}``; a job superseded or failing
    after the verdict was sent ends with ``{"stage": "superseded"}`` or ``{"stage": "error",
    "detail": ...}``.  Until the verdict is known the request answers as an unstreamed one
    does: 409 when superseded, 4xx/503 on errors (raised here, answered by the application).
    When the client goes away the job is cancelled (its thread stops)."""
    task = asyncio.ensure_future(job)
    both: list[asyncio.Future[Any]] = [task, first]
    try:
        await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task.done():  # decided before any verdict line went out: one line, or the error
        out = task.result()
        if out is None:
            raise HTTPException(409, SUPERSEDED)
        return Response(_line({"stage": "done", **out}), media_type=NDJSON)
    verdict_line = first.result()

    async def lines() -> AsyncIterator[bytes]:
        try:
            yield _line(verdict_line)
            try:
                out = await task
            except HTTPException as exc:  # superseded (409)
                yield _line({"stage": "superseded" if exc.status_code == 409 else "error",
                             "detail": str(exc.detail)})
                return
            except Disconnected:
                return
            except Exception as exc:  # noqa: BLE001 - the status line is sent: say it in-band
                log.exception("analysis failed after its verdict was sent")
                yield _line({"stage": "error", "detail": f"internal error "
                                                         f"({type(exc).__name__})"})
                return
            yield _line({"stage": "superseded", "detail": SUPERSEDED} if out is None
                        else {"stage": "done", **out})
        finally:
            if not task.done():  # the client went away mid-stream: stop the job
                task.cancel()

    return StreamingResponse(lines(), media_type=NDJSON,
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.post("/keep-trying", status_code=202,
             summary="Start a background verdict under a longer limit (Keep trying)")
async def keep_trying(body: KeepTryingRequest, request: Request) -> dict[str, Any]:
    """``{"job", "state": "running", ...}`` (the ``GET`` answer); poll
    ``GET /api/keep-trying/{job}``, cancel with ``DELETE``.  A newer job of the same ``client``
    cancels the older one; more than two running: 503 (docs/studio.md)."""
    from nonosat.studio.background import DEFAULT_LIMIT_S, MAX_LIMIT_S, BackgroundJob
    from nonosat.studio.quick import quick_analyse

    puzzle = puzzle_from_json(body.puzzle)
    limit = clamp_timeout(body.limit, default=DEFAULT_LIMIT_S, cap=MAX_LIMIT_S)
    started = time.perf_counter()

    def work(job: BackgroundJob) -> dict[str, Any]:
        # the whole ends by the limit: a verdict reached in time is kept with a partial map
        return quick_analyse(puzzle, timeout=limit, suggest=body.suggest,
                             suggest_timeout=min(max(limit / 10, 1.0), 10.0),
                             stop=job.token, progress=job.update,
                             deadline=started + limit).to_json()

    client = body.client if isinstance(body.client, str) else None
    return request.app.state.background.start(work, limit, client).to_json()


@router.get("/keep-trying/{job_id}", summary="A background verdict's progress and result")
async def keep_trying_status(job_id: str, request: Request) -> dict[str, Any]:
    """``{"job", "state", "phase", "elapsed_s", "limit_s", "known", "result", "detail"}``;
    404 for an unknown (or forgotten) job."""
    return _background_job(request.app.state.background.get, job_id)


@router.delete("/keep-trying/{job_id}", summary="Cancel a background verdict")
async def keep_trying_cancel(job_id: str, request: Request) -> dict[str, Any]:
    """The job (``state`` ``"cancelled"`` unless it had already ended); 404 when unknown."""
    return _background_job(request.app.state.background.cancel, job_id)


def _background_job(find: Callable[[str], Any], job_id: str) -> dict[str, Any]:
    """``find(job_id)`` (the background runner's ``get`` or ``cancel``) as JSON; 404 when the
    job is unknown or forgotten."""
    try:
        return find(job_id).to_json()
    except KeyError:
        raise HTTPException(404, "no such background job (finished jobs are kept 10 minutes)"
                            ) from None


def suggest_work(puzzle: Puzzle, timeout: float) -> Callable[[JobToken], Any]:
    """The job of ``POST /api/suggest``: ``work(token)`` gives the answer, or ``None`` when the
    token was set (every phase reads it: the verdict's engines, the grade's kernels, the map's
    SAT calls, the suggestions between steps)."""
    from nonosat.engines import Status
    from nonosat.studio.quick import (
        Cancelled,
        backbone,
        quick_grade,
        start_grid,
        suggestions,
        verdict,
    )

    def work(should_stop: JobToken) -> dict[str, Any] | None:
        start = time.perf_counter()
        givens = start_grid(puzzle)
        result = verdict(puzzle, timeout, givens, stop=should_stop)
        if should_stop():
            return None
        if result.status != Status.MULTIPLE:
            return {"status": result.status.value, "suggestions": []}
        _, _, _, root = quick_grade(puzzle, result, givens, stop=should_stop)
        if root is None:
            root = givens
        ambiguous, _, witnesses = backbone(puzzle, result.solutions, root,
                                           deadline=start + timeout, stop=should_stop)
        if should_stop():
            return None
        left = max(timeout - (time.perf_counter() - start), 0.05)
        try:
            return {"status": result.status.value,
                    "suggestions": suggestions(puzzle, witnesses, root, ambiguous, timeout=left,
                                               should_stop=should_stop, stop=should_stop)}
        except Cancelled:
            return None

    return work


@router.post("/suggest", summary="Make-unique suggestions alone")
async def suggest(body: SuggestRequest, request: Request) -> dict[str, Any]:
    """``{"suggestions": [...]}`` as in ``/api/analyse`` (empty unless several solutions)."""
    from nonosat.studio.quick import suggestion_budget

    puzzle = puzzle_from_json(body.puzzle)
    timeout = clamp_timeout(body.timeout, default=suggestion_budget(puzzle))
    out = await _run(request, body, suggest_work(puzzle, timeout))
    if out is None:
        raise HTTPException(409, SUPERSEDED)
    return out


@router.post("/solve", summary="Solve: the JSON of `nonosat solve --json`")
async def solve_endpoint(body: SolveRequest, request: Request) -> dict[str, Any]:
    """Up to ``limit`` solutions with ``engine`` under ``timeout``."""
    from nonosat.engines import solve
    from nonosat.studio.quick import start_grid

    puzzle = puzzle_from_json(body.puzzle)
    state = state_from_json(puzzle, body.state) if body.state is not None else start_grid(puzzle)
    timeout = clamp_timeout(body.timeout)

    def work(token: JobToken):
        result = solve(puzzle, body.engine, partial=state, limit=body.limit, timeout=timeout,
                       **stop_kwargs(solve, token))
        out = result.to_json(puzzle)
        if puzzle.is_colour:  # the API's cell characters, not the palette's
            out["solutions"] = [solution_rows(puzzle, s) for s in result.solutions]
        return out

    return await _run(request, body, work)


def make_unique_work(puzzle: Puzzle, grade: int | None, timeout: float
                     ) -> Callable[[JobToken], dict[str, Any]]:
    """The job of ``POST /api/make-unique`` (``puzzle.goal`` is the picture): ``work(token)``
    gives the answer; the token is read between the search's solves and by their engines."""
    from nonosat.generate.unique import make_unique

    def work(should_stop: JobToken) -> dict[str, Any]:
        picture = np.asarray(puzzle.goal, dtype=np.int8 if puzzle.is_colour else bool)
        made = make_unique(picture, puzzle.palette, grade=grade, timeout=timeout,
                           should_stop=should_stop, title=puzzle.title,
                           **stop_kwargs(make_unique, should_stop))
        out = made.to_json()
        out["changed"] = [[c["row"] - 1, c["col"] - 1] for c in out["changed"]]
        out["picture"] = puzzle_to_json(made.puzzle)["goal"]
        return out

    return work


@router.post("/make-unique", summary="The fewest cell changes found that make the picture unique")
async def make_unique_endpoint(body: MakeUniqueRequest, request: Request) -> dict[str, Any]:
    """The picture (``puzzle.goal``) made unique as ``nonosat generate`` does: the proposed
    picture, the changed cells (0-based ``[r, c]``), verdict and grade.  Nothing is applied:
    the page shows the changes and applies them on request."""
    puzzle = puzzle_from_json(body.puzzle)
    if puzzle.goal is None:
        raise HTTPException(422, "puzzle.goal: the picture is needed to change its cells")
    timeout = clamp_timeout(body.timeout, default=10.0)
    return await _run(request, body, make_unique_work(puzzle, body.grade, timeout))


@router.post("/render", summary="SVG or PNG picture (`nonosat render`)")
async def render(body: RenderRequest, request: Request) -> Response:
    """With ``solution``, the solution is drawn (ambiguous cells checkered)."""
    puzzle = puzzle_from_json(body.puzzle)
    timeout = clamp_timeout(body.timeout)

    def work(should_stop):
        solutions: list[np.ndarray] = []
        if body.solution:
            from nonosat.engines import solve

            solutions = list(solve(puzzle, "auto", limit=2, timeout=timeout,
                                   **stop_kwargs(solve, should_stop)).solutions)
        if body.format == "svg":
            from nonosat.render.svg import render_svg

            return render_svg(puzzle, solutions=solutions).encode()
        from nonosat.render.png import render_png

        return render_png(puzzle, solutions=solutions)

    data = await _run(request, body, work)
    media = "image/svg+xml" if body.format == "svg" else "image/png"
    return Response(data, media_type=media, headers={
        "Content-Disposition": f'inline; filename="{_filename(puzzle, "." + body.format)}"'})


@router.post("/certify", summary="The `nonosat certify` bundle as a zip")
async def certify(body: CertifyRequest, request: Request) -> Response:
    """Headers ``X-Nonosat-Verdict`` (unique / multiple / none) and ``X-Nonosat-Certified``
    (the proof was checked and accepted).  A verdict not reached in time: 422."""
    from nonosat.certificates import resolve_checkers
    from nonosat.certificates.certifier import certificate_files_of, certify_puzzle

    puzzle = puzzle_from_json(body.puzzle)
    timeout = clamp_timeout(body.timeout, default=20.0)

    def work(should_stop):
        cert = certify_puzzle(puzzle, checkers=resolve_checkers(["auto"]), timeout=timeout)
        if cert.verdict == "unknown":
            return cert, b""
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in certificate_files_of(cert).items():  # several: a witness
                zf.writestr(f"certificate/{name}", data)
        return cert, buf.getvalue()

    cert, data = await _run(request, body, work)
    if cert.verdict == "unknown":
        raise HTTPException(422, f"gave up before deciding within {timeout:g} s; no certificate")
    proved = bool(cert.proved) and all(c.ok for c in cert.checks)
    return _download(data, "application/zip", _filename(puzzle, "-certificate.zip"),
                     **{"X-Nonosat-Verdict": cert.verdict,
                        "X-Nonosat-Certified": "true" if proved else "false"})
