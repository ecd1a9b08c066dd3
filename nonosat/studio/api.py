"""The studio's JSON API (``/api/...``): a thin layer over nonosat's engines, analysis, formats,
rendering and certificates.  Every endpoint calls the same functions as the matching CLI
command; solves run in worker threads under a time limit (:mod:`nonosat.studio.jobs`).  The
reference is ``docs/studio.md`` (the OpenAPI schema at ``/openapi.json``)."""

from __future__ import annotations

import base64
import binascii
import io
import re
import time
import zipfile
from collections.abc import Callable
from typing import Any, overload

import numpy as np
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from nonosat.errors import FormatError, NonosatError
from nonosat.puzzle import Cell, Puzzle
from nonosat.studio.colourcode import PREFIX as COLOUR_CODE_PREFIX
from nonosat.studio.jobs import JobRunner, JobToken, Superseded, clamp_timeout, stop_kwargs
from nonosat.studio.schemas import (
    AnalyseRequest,
    CertifyRequest,
    ConvertRequest,
    KeepTryingRequest,
    MakeUniqueRequest,
    ParseRequest,
    PuzzleRequest,
    RenderRequest,
    SolveRequest,
    StateRequest,
    StepsRequest,
    SuggestRequest,
    cell_json,
    puzzle_from_json,
    puzzle_to_json,
    solution_rows,
    state_from_json,
)
from nonosat.studio.validation import validation_message

router = APIRouter(prefix="/api")

#: Media types of written formats (others are ``text/plain``).
MEDIA_TYPES = {".png": "image/png", ".xml": "application/xml", ".json": "application/json",
               ".pbm": "image/x-portable-bitmap", ".csv": "text/csv"}
SUPERSEDED = "superseded by a newer request"


def _jobs(request: Request) -> JobRunner:
    return request.app.state.jobs


async def _run(request: Request, body: Any, func) -> Any:
    """Run ``func(token)`` in a worker thread under ``body``'s client key (:mod:`.jobs`); 409
    when a newer request superseded it.  A client that hangs up cancels the job; a full runner
    raises :class:`~nonosat.studio.jobs.Busy` (503, answered by the application)."""
    client = getattr(body, "client", None)
    try:
        return await _jobs(request).run(func, client if isinstance(client, str) else None,
                                        getattr(body, "seq", None),
                                        disconnected=request.is_disconnected)
    except Superseded:
        raise HTTPException(409, SUPERSEDED) from None


def _line_json(puzzle: Puzzle, line: int | None) -> dict[str, Any] | None:
    if line is None:
        return None
    h = puzzle.height
    return {"axis": "row", "index": line} if line < h else {"axis": "col", "index": line - h}


# -- solving -------------------------------------------------------------------------------------
@router.post("/analyse", summary="Verdict, whole ambiguity map, grade and make-unique suggestions")
async def analyse(body: AnalyseRequest, request: Request) -> dict[str, Any]:
    """The editor's call on each edit (see docs/studio.md)."""
    from nonosat.studio.quick import Cancelled, quick_analyse

    puzzle = puzzle_from_json(body.puzzle)
    timeout = clamp_timeout(body.timeout)
    suggest_timeout = (None if body.suggest_timeout is None  # the default grows with the puzzle
                       else clamp_timeout(body.suggest_timeout))

    def work(token: JobToken):
        try:
            return quick_analyse(puzzle, timeout=timeout, suggest=body.suggest,
                                 suggest_timeout=suggest_timeout, should_stop=token,
                                 stop=token).to_json()
        except Cancelled:
            return None

    out = await _run(request, body, work)
    if out is None:
        raise HTTPException(409, SUPERSEDED)
    return out


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


@router.post("/suggest", summary="Make-unique suggestions alone")
async def suggest(body: SuggestRequest, request: Request) -> dict[str, Any]:
    """``{"suggestions": [...]}`` as in ``/api/analyse`` (empty unless several solutions)."""
    from nonosat.engines import Status
    from nonosat.studio.quick import (
        Cancelled,
        backbone,
        quick_grade,
        suggestion_budget,
        suggestions,
        verdict,
    )

    puzzle = puzzle_from_json(body.puzzle)
    timeout = clamp_timeout(body.timeout, default=suggestion_budget(puzzle))

    def work(should_stop):
        import time

        from nonosat.studio.quick import start_grid

        start = time.perf_counter()
        givens = start_grid(puzzle)
        result = verdict(puzzle, timeout, givens, stop=should_stop)
        if result.status != Status.MULTIPLE:
            return {"status": result.status.value, "suggestions": []}
        _, _, _, root = quick_grade(puzzle, result, givens)
        if root is None:
            root = givens
        ambiguous, _, witnesses = backbone(puzzle, result.solutions, root,
                                           deadline=start + timeout)
        left = max(timeout - (time.perf_counter() - start), 0.05)
        try:
            return {"status": result.status.value,
                    "suggestions": suggestions(puzzle, witnesses, root, ambiguous, timeout=left,
                                               should_stop=should_stop)}
        except Cancelled:
            return None

    out = await _run(request, body, work)
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


#: What :func:`_mistakes` returns when the solver gave up.
_UNDECIDED = object()


def _mistakes(puzzle: Puzzle, grid: np.ndarray, timeout: float):
    """:func:`nonosat.analysis.hints.find_mistakes` under ``timeout`` seconds (per solve);
    :data:`_UNDECIDED` when the solver gave up."""
    from nonosat.analysis.hints import find_mistakes
    from nonosat.errors import UndecidedError

    try:
        return find_mistakes(puzzle, grid, engine="auto", timeout=timeout)
    except UndecidedError:
        return _UNDECIDED


@router.post("/hint", summary="The next human-style deduction (`nonosat hint`)")
async def hint(body: StateRequest, request: Request) -> dict[str, Any]:
    """``Hint.to_json`` plus ``line`` ({axis, index}) and ``cells`` ([[r, c, v]])."""
    from nonosat.analysis.hints import Hint, next_hint

    puzzle = puzzle_from_json(body.puzzle)
    grid = state_from_json(puzzle, body.state)
    timeout = clamp_timeout(body.timeout)
    if puzzle.is_colour:
        from nonosat.studio.colour_play import colour_hint_json

        return await _run(request, body, lambda should_stop: colour_hint_json(puzzle, grid,
                                                                              timeout))

    def work(should_stop):
        mistakes = _mistakes(puzzle, grid, timeout)
        if mistakes is _UNDECIDED:
            h = Hint("unknown", f"The solver could not decide within {timeout:g} s whether "
                                f"the cells known so far are right; no hint.")
        elif mistakes is None:
            h = Hint("no-solution", "The puzzle has no solution.")
        elif mistakes:
            # next_hint's own check words the mistake hint (the same solves, now quick)
            h = next_hint(puzzle, grid, check=True, timeout=timeout)
        else:
            h = next_hint(puzzle, grid, check=False, timeout=timeout)
        out = h.to_json(puzzle)
        out["kind"] = h.kind
        out["line_name"] = out["line"]
        out["line"] = _line_json(puzzle, h.line)
        out["cells"] = [cell_json(r, c, v) for (r, c), v in h.cells]
        out["done"] = h.kind == "solved"
        return out

    return await _run(request, body, work)


@router.post("/check", summary="Mistakes in a grid state")
async def check(body: StateRequest, request: Request) -> dict[str, Any]:
    """``{"mistakes": [[r, c], ...], "complete": bool, "solvable": bool | null}``;
    ``solvable`` is ``null`` when the solver could not decide within the time limit (then
    ``mistakes`` is empty: none could be found)."""
    puzzle = puzzle_from_json(body.puzzle)
    grid = state_from_json(puzzle, body.state)
    timeout = clamp_timeout(body.timeout)
    if puzzle.is_colour:
        from nonosat.studio.colour_play import colour_check_json

        return await _run(request, body, lambda should_stop: colour_check_json(puzzle, grid,
                                                                               timeout))

    def work(should_stop):
        found = _mistakes(puzzle, grid, timeout)
        undecided = found is _UNDECIDED
        mistakes = [] if undecided else [[r, c] for (r, c), _ in (found or [])]
        known = bool((grid != Cell.UNKNOWN).all())
        complete = known and not mistakes and puzzle.is_solution(grid == Cell.FILLED)
        return {"mistakes": mistakes, "complete": bool(complete),
                "solvable": None if undecided else found is not None}

    return await _run(request, body, work)


@router.post("/steps", summary="Step-through solve (the native solver's deductions)")
async def steps(body: StepsRequest, request: Request) -> dict[str, Any]:
    """``StepRun.to_json``: steps, status, solutions (see docs/studio.md); a walk the steps
    alone leave undecided is finished by the verdict's portfolio
    (:func:`nonosat.studio.stepping.portfolio_steps`)."""
    from nonosat.studio.stepping import portfolio_steps

    puzzle = puzzle_from_json(body.puzzle)
    timeout = clamp_timeout(body.timeout)
    from nonosat.studio.quick import start_grid

    start = start_grid(puzzle)  # the givens: the steps start from them

    def work(token: JobToken):
        if puzzle.is_colour:
            from nonosat.studio.colour_play import colour_steps_json

            return colour_steps_json(puzzle, max_solutions=body.max_solutions,
                                     max_steps=body.max_steps or 100_000, timeout=timeout,
                                     start=start)
        return portfolio_steps(puzzle, max_solutions=body.max_solutions,
                               max_steps=body.max_steps, timeout=timeout,
                               stop=token, start=start).to_json(puzzle)

    return await _run(request, body, work)


# -- files ---------------------------------------------------------------------------------------
def _read(data: bytes, filename: str, format: str | None) -> list[Puzzle]:
    """Puzzles of a file's bytes (as :func:`nonosat.formats.read_puzzles` does for a path)."""
    from nonosat.formats import detect_format, get_format

    fmt = get_format(format) if format else detect_format(filename, data[:4096])
    if fmt.read is None:
        raise FormatError(filename, None, f"format {fmt.name!r} cannot be read")
    try:
        puzzles = fmt.read(data, filename)
    except FormatError:
        raise
    except NonosatError as exc:
        raise FormatError(filename, None, str(exc)) from None
    except (UnicodeError, ValueError) as exc:
        raise FormatError(filename, None, f"cannot read the file: {exc}") from None
    except RecursionError:
        raise FormatError(filename, None, "cannot read the file: nested too deeply") from None
    if not puzzles:
        raise FormatError(filename, None, "the file holds no puzzle")
    return puzzles


def _parsed(puzzles: list[Puzzle], index: int | None, filename: str) -> dict[str, Any]:
    from nonosat.studio.schemas import MAX_SIDE

    i = index or 0
    if i >= len(puzzles):
        raise FormatError(filename, None, f"index {i} out of range: the file holds "
                                          f"{len(puzzles)} puzzle{'s' if len(puzzles) != 1 else ''}")
    puzzle = puzzles[i]
    if puzzle.height > MAX_SIDE or puzzle.width > MAX_SIDE:
        raise FormatError(filename, None, f"the puzzle is {puzzle.width}x{puzzle.height}; the "
                                          f"studio takes at most {MAX_SIDE}x{MAX_SIDE} cells")
    stem = filename.rsplit(".", 1)[0] or "puzzle"
    names = [p.title or (stem if len(puzzles) == 1 else
                         f"{stem} #{p.number if p.number is not None else k + 1}")
             for k, p in enumerate(puzzles)]
    return {"puzzle": puzzle_to_json(puzzle), "count": len(puzzles), "names": names[:10_000],
            "index": i}


#: Largest file ``/api/parse`` reads (bytes; the request body is capped at 1 MB anyway).
MAX_FILE_BYTES = 1_000_000


def _check_picture_header(data: bytes, filename: str) -> None:
    """Refuse a picture over the studio's :data:`~nonosat.studio.schemas.MAX_SIDE` from its
    header, before a reader decodes it (pillow's :func:`PIL.Image.open` is lazy: it reads the
    header only; the pixels are decoded by ``load()``)."""
    from PIL import Image, UnidentifiedImageError

    from nonosat.studio.schemas import MAX_SIDE

    if not (data.startswith(b"\x89PNG") or data[:6] in (b"GIF87a", b"GIF89a")
            or data[:2] == b"BM" or data[:2] in (b"P1", b"P4")):
        return
    import warnings

    try:
        with warnings.catch_warnings():  # the size is checked here, against a smaller limit
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=["PNG", "GIF", "BMP", "PPM"]) as image:
                width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError,
            Image.DecompressionBombError):
        return  # not a picture after all: the format's reader says what is wrong
    if width > MAX_SIDE or height > MAX_SIDE:
        raise FormatError(filename, None, f"the picture is {width}x{height} pixels; the studio "
                                          f"takes at most {MAX_SIDE}x{MAX_SIDE} cells")


def _parse_json_body(raw: bytes) -> tuple[bytes, str, str | None, int | None]:
    """``(data, filename, format, index)`` of a JSON ``/api/parse`` body; 422 with one line for
    anything malformed (including JSON nested too deep for the decoder)."""
    import json

    try:
        payload = json.loads(raw)
    except RecursionError:
        raise HTTPException(422, "body: JSON nested too deeply") from None
    except (ValueError, UnicodeError):
        raise HTTPException(422, "body: not valid JSON") from None
    try:
        body = ParseRequest.model_validate(payload)
    except Exception as exc:  # pydantic.ValidationError
        raise HTTPException(422, validation_message(exc)) from None
    filename = body.filename or ("code.short" if body.format == "short" else "text")
    if body.encoding == "base64":
        try:
            data = base64.b64decode(body.text, validate=True)
        except (binascii.Error, ValueError):
            raise HTTPException(422, "text: not valid base64") from None
    else:
        data = body.text.encode("utf-8", "surrogatepass")
    return data, filename, body.format, body.index


@router.post("/parse", summary="Read a puzzle file (upload or JSON text) or a short code")
async def parse(request: Request) -> dict[str, Any]:
    """Multipart (field ``file``; form fields ``index``, ``format``) or JSON
    ``{"text", "filename"?, "format"?, "index"?, "encoding"?: "text"|"base64"}``.  The JSON
    decoding, the picture's header check and the format's reader run in a worker thread (never
    on the event loop); a picture's size is checked from its header before it is decoded."""
    ctype = request.headers.get("content-type", "")
    client: str | None = None
    seq: int | None = None
    if ctype.startswith("multipart/form-data"):
        try:
            form = await request.form()
        except Exception:  # noqa: BLE001 - malformed multipart: the parser's errors vary
            raise HTTPException(422, "body: malformed multipart form") from None
        upload = form.get("file")
        if upload is None or isinstance(upload, str) or not hasattr(upload, "read"):
            raise HTTPException(422, "multipart upload needs a 'file' field")
        size = getattr(upload, "size", None)
        if size is not None and size > MAX_FILE_BYTES:
            raise HTTPException(413, f"file over {MAX_FILE_BYTES} bytes")
        data = await upload.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise HTTPException(413, f"file over {MAX_FILE_BYTES} bytes")
        filename = upload.filename or "upload"
        raw_fmt = form.get("format")
        fmt = raw_fmt if isinstance(raw_fmt, str) and raw_fmt else None
        raw_index = form.get("index")
        try:
            index = int(raw_index) if isinstance(raw_index, str) and raw_index else None
        except ValueError:
            raise HTTPException(422, f"index: not a whole number: {str(raw_index)[:20]!r}"
                                ) from None
        if index is not None and index < 0:
            raise HTTPException(422, "index: must be 0 or more")
        raw_client, raw_seq = form.get("client"), form.get("seq")
        client = raw_client if isinstance(raw_client, str) and raw_client else None
        seq = int(raw_seq) if isinstance(raw_seq, str) and raw_seq.isdigit() else None
        raw = None
    else:
        raw = await request.body()
        data, filename, fmt, index = b"", "", None, None

    def work(token: JobToken) -> dict[str, Any]:
        nonlocal data, filename, fmt, index
        if raw is not None:
            data, filename, fmt, index = _parse_json_body(raw)
        name = re.sub(r"[\\/]", "_", filename)[-200:]
        if fmt == "short" and (data.lstrip()[:len(COLOUR_CODE_PREFIX)]
                               == COLOUR_CODE_PREFIX.encode()):
            from nonosat.studio.colourcode import decode_colour_code

            try:
                puzzle = decode_colour_code(data.decode("ascii", "replace").strip())
            except NonosatError as exc:
                raise FormatError(name, None, str(exc)) from None
            return _parsed([puzzle], index, name)
        _check_picture_header(data, name)
        return _parsed(_read(data, name, fmt), index, name)

    try:
        return await _jobs(request).run(work, client, seq, disconnected=request.is_disconnected)
    except Superseded:
        raise HTTPException(409, SUPERSEDED) from None


# -- pictures (nonosat generate) -----------------------------------------------------------------
@overload
def _form_number(form: Any, name: str, default: float, low: float, high: float) -> float: ...
@overload
def _form_number(form: Any, name: str, default: None, low: float, high: float
                 ) -> float | None: ...
def _form_number(form: Any, name: str, default: float | None, low: float, high: float
                 ) -> float | None:
    raw = form.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise HTTPException(422, f"{name}: not a number: {str(raw)[:20]!r}") from None
    if not low <= value <= high:
        raise HTTPException(422, f"{name}: must be {low:g} to {high:g}")
    return value


@router.post("/picture", summary="A picture made into a grid (`nonosat generate`'s first steps)")
async def picture(request: Request) -> dict[str, Any]:
    """Multipart: ``file`` (PNG, JPEG, GIF, WebP, BMP) and the form fields ``width``,
    ``height`` (cells; height empty = from the aspect ratio), ``threshold`` (0-255, empty =
    Otsu), ``invert``, ``despeckle``, ``client``, ``seq``.  The file's size is checked before it
    is read whole and the picture's pixel count from its header before it is decoded; decoding
    and scaling run in a worker thread, off the event loop."""
    from nonosat.generate.picture import MAX_PICTURE_BYTES, picture_grid

    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise HTTPException(422, "body: send the picture as a multipart form (field 'file')")
    try:
        form = await request.form()
    except Exception:  # noqa: BLE001 - malformed multipart: the parser's errors vary
        raise HTTPException(422, "body: malformed multipart form") from None
    upload = form.get("file")
    if upload is None or not hasattr(upload, "read"):
        raise HTTPException(422, "multipart upload needs a 'file' field")
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_PICTURE_BYTES:
        raise HTTPException(413, f"picture file over {MAX_PICTURE_BYTES // 2**20} MiB")
    data = await upload.read(MAX_PICTURE_BYTES + 1)
    if len(data) > MAX_PICTURE_BYTES:
        raise HTTPException(413, f"picture file over {MAX_PICTURE_BYTES // 2**20} MiB")
    width = int(_form_number(form, "width", 20, 1, 100))
    height = _form_number(form, "height", None, 1, 100)
    threshold = _form_number(form, "threshold", None, 0, 255)
    despeckle = int(_form_number(form, "despeckle", 0, 0, 100))
    colours = int(_form_number(form, "colours", 1, 1, 30))
    invert = str(form.get("invert", "")).lower() in ("1", "true", "on", "yes")
    name = re.sub(r"[\\/]", "_", getattr(upload, "filename", None) or "picture")[-200:]
    client = form.get("client")
    raw_seq = form.get("seq")
    seq = int(raw_seq) if isinstance(raw_seq, str) and raw_seq.isdigit() else None

    def work(should_stop):
        grid = picture_grid(data, width, None if height is None else int(height),
                            colours=colours, threshold=threshold, invert=invert,
                            despeckle=despeckle, name=name)
        title = re.sub(r"\.[A-Za-z0-9]+$", "", name) or "picture"
        if grid.palette is not None:
            puzzle = Puzzle.from_picture(grid.picture, palette=grid.palette, title=title)
        else:
            puzzle = Puzzle.from_picture(grid.picture, title=title)
        return {"puzzle": puzzle_to_json(puzzle), "width": puzzle.width,
                "height": puzzle.height, "kind": grid.kind, "filter": grid.filter,
                "threshold": grid.threshold, "specks_removed": grid.specks_removed,
                "source_size": list(grid.source_size)}

    try:
        return await _jobs(request).run(work, client if isinstance(client, str) else None, seq,
                                        disconnected=request.is_disconnected)
    except Superseded:
        raise HTTPException(409, SUPERSEDED) from None


@router.post("/make-unique", summary="The fewest cell changes found that make the picture unique")
async def make_unique_endpoint(body: MakeUniqueRequest, request: Request) -> dict[str, Any]:
    """The picture (``puzzle.goal``) made unique as ``nonosat generate`` does: the proposed
    picture, the changed cells (0-based ``[r, c]``), verdict and grade.  Nothing is applied:
    the page shows the changes and applies them on request."""
    from nonosat.generate.unique import make_unique

    puzzle = puzzle_from_json(body.puzzle)
    if puzzle.goal is None:
        raise HTTPException(422, "puzzle.goal: the picture is needed to change its cells")
    timeout = clamp_timeout(body.timeout, default=10.0)

    def work(should_stop):
        picture = np.asarray(puzzle.goal, dtype=np.int8 if puzzle.is_colour else bool)
        made = make_unique(picture, puzzle.palette, grade=body.grade,
                           timeout=timeout, should_stop=should_stop, title=puzzle.title)
        out = made.to_json()
        out["changed"] = [[c["row"] - 1, c["col"] - 1] for c in out["changed"]]
        out["picture"] = puzzle_to_json(made.puzzle)["goal"]
        return out

    return await _run(request, body, work)


@router.post("/shortcode", summary="The davidje13 short code (`nonosat convert --to short`)")
async def shortcode(body: PuzzleRequest) -> dict[str, Any]:
    """``{"code": rules code, "image_code": picture code or null, "text": the whole .short
    file}``; ``code`` alone opens the puzzle again through ``/api/parse``."""
    from nonosat.formats import encode_puzzles, get_format

    puzzle = puzzle_from_json(body.puzzle)
    if puzzle.is_colour:
        from nonosat.studio.colourcode import encode_colour_code

        code = encode_colour_code(puzzle, picture=False)
        image = encode_colour_code(puzzle, picture=True) if puzzle.goal is not None else None
        return {"code": code, "image_code": image,
                "text": code + ("\n" + image if image else "") + "\n"}
    text = encode_puzzles([puzzle], get_format("short"), "puzzle.short").decode()
    lines = text.split()
    return {"code": lines[0], "image_code": lines[1] if len(lines) > 1 else None, "text": text}


def _filename(puzzle: Puzzle, suffix: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", puzzle.title or "puzzle").strip("-.")[:60]
    return f"{stem or 'puzzle'}{suffix}"


def _download(data: bytes, media_type: str, filename: str, **headers: str) -> Response:
    return Response(data, media_type=media_type,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"',
                             **headers})


@router.post("/convert", summary="Download the puzzle in a writable format")
async def convert(body: ConvertRequest) -> Response:
    """The file as ``nonosat convert --to FORMAT`` writes it."""
    from nonosat.formats import encode_puzzles, get_format

    puzzle = puzzle_from_json(body.puzzle)
    fmt = get_format(body.to)
    if fmt.write is None:
        raise FormatError("<format>", None, f"format {fmt.name!r} cannot be written")
    from nonosat.studio.quick import start_grid

    suffix = fmt.suffixes[0] if fmt.suffixes else ".txt"
    name = _filename(puzzle, suffix)
    data = encode_puzzles([puzzle], fmt, name)
    media = MEDIA_TYPES.get(suffix, "text/plain; charset=utf-8")
    givens = ("none" if start_grid(puzzle) is None else
              "kept" if fmt.stores_givens else "dropped")
    headers = {"X-Nonosat-Givens": givens}
    if givens == "dropped" and puzzle.is_colour and fmt.read is not None:
        # the --state grid beside the file, in the characters of the file's own palette
        from urllib.parse import quote

        from nonosat.formats.givens import givens_text_beside

        text = givens_text_beside(puzzle, fmt.read(data, name)[0])
        headers["X-Nonosat-Givens-State"] = quote(text or "", safe="")
    return _download(data, media, name, **headers)


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


# -- gallery and formats -------------------------------------------------------------------------
@router.get("/gallery", summary="Puzzles of games/ and of the PATH given to `nonosat studio`")
async def gallery(request: Request) -> list[dict[str, Any]]:
    """``[{"id", "name", "source", "width", "height"}]``."""
    return [e.to_json() for e in request.app.state.gallery.entries()]


@router.get("/gallery/{entry_id}", summary="One gallery puzzle")
async def gallery_entry(entry_id: str, request: Request) -> dict[str, Any]:
    """``{"puzzle", "id", "name", "source"}``; 404 for an unknown id."""
    try:
        entry, puzzle = request.app.state.gallery.load(entry_id)
    except KeyError:
        raise HTTPException(404, f"no gallery puzzle with id {entry_id!r}") from None
    return {"puzzle": puzzle_to_json(puzzle), **entry.to_json()}


@router.get("/formats", summary="Readable and writable formats")
async def formats_list() -> dict[str, Any]:
    """``{"read": [...], "write": [...]}`` with name, suffixes, description."""
    from nonosat.formats import formats

    def one(f) -> dict[str, Any]:
        return {"name": f.name, "suffixes": list(f.suffixes), "description": f.description,
                "stores_picture": f.stores_picture, "multi": f.multi,
                "colour": bool(getattr(f, "colour", False))}

    fmts = list(formats().values())
    return {"read": [one(f) for f in fmts if f.read], "write": [one(f) for f in fmts if f.write]}

