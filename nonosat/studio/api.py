"""The studio's JSON API (``/api/...``): a thin layer over nonosat's engines, analysis, formats,
rendering and certificates.  Every endpoint calls the same functions as the matching CLI
command; solves run in worker threads under a time limit (:mod:`nonosat.studio.runner`).  The
reference is ``docs/studio.md`` (the OpenAPI schema at ``/openapi.json``).

The routes are split by job: files, pictures, short codes, downloads and the gallery here;
verdicts and solving in :mod:`nonosat.studio.api_solve`; play (hint, check, steps) in
:mod:`nonosat.studio.api_play`; what they share in :mod:`nonosat.studio.api_common`.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from typing import Any, overload

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from nonosat.errors import FormatError, NonosatError
from nonosat.puzzle import Puzzle
from nonosat.studio import api_play, api_solve
from nonosat.studio.api_common import (
    MEDIA_TYPES,
    SUPERSEDED,
    _download,
    _filename,
    _jobs,
    _line_json,
    _run,
)
from nonosat.studio.colourcode import PREFIX as COLOUR_CODE_PREFIX
from nonosat.studio.runner import JobToken, Superseded
from nonosat.studio.schemas import (
    ConvertRequest,
    ParseRequest,
    PuzzleRequest,
    puzzle_from_json,
    puzzle_to_json,
)
from nonosat.studio.validation import validation_message

__all__ = ["MEDIA_TYPES", "SUPERSEDED", "_line_json", "_run", "router"]

router = APIRouter(prefix="/api")
router.include_router(api_solve.router)
router.include_router(api_play.router)


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
    from nonosat.generate.from_image import MAX_PICTURE_BYTES, picture_grid

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
