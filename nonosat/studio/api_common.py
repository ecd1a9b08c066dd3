"""What the studio's API modules share: running a job in a worker thread under the request's
client key (409 when superseded), and the shapes of a few answers.  The routes are in
:mod:`nonosat.studio.api` (files, pictures, gallery), :mod:`nonosat.studio.api_solve` (verdicts,
suggestions, solve, make-unique, render, certify) and :mod:`nonosat.studio.api_play` (hint,
check, steps)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import Response

from nonosat.puzzle import Puzzle
from nonosat.studio.runner import JobRunner, Superseded

#: Media types of written formats (others are ``text/plain``).
MEDIA_TYPES = {".png": "image/png", ".xml": "application/xml", ".json": "application/json",
               ".pbm": "image/x-portable-bitmap", ".csv": "text/csv"}
SUPERSEDED = "superseded by a newer request"


def _jobs(request: Request) -> JobRunner:
    return request.app.state.jobs


async def _run(request: Request, body: Any, func) -> Any:
    """Run ``func(token)`` in a worker thread under ``body``'s client key (:mod:`.jobs`); 409
    when a newer request superseded it.  A client that hangs up cancels the job; a full runner
    raises :class:`~nonosat.studio.runner.Busy` (503, answered by the application)."""
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



def _filename(puzzle: Puzzle, suffix: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", puzzle.title or "puzzle").strip("-.")[:60]
    return f"{stem or 'puzzle'}{suffix}"


def _download(data: bytes, media_type: str, filename: str, **headers: str) -> Response:
    return Response(data, media_type=media_type,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"',
                             **headers})
