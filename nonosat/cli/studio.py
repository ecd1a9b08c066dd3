"""Start the studio: a local web page to design, check, play and step through puzzles.

Serves the page and its JSON API (FastAPI + uvicorn) on http://127.0.0.1:8765/ by default and
opens it in the browser. PATH (a puzzle file or a directory) is listed in the page's gallery
beside games/; a single file opens directly. The solver kernels are warmed in the background
at start-up, so the page answers at once. Ctrl-C stops the server (exit 0). A port in use is one
line on stderr and exit 2. API reference: docs/studio.md; OpenAPI schema at /openapi.json on the running server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nonosat.cli.running import handle_errors
from nonosat.text import printable

StudioPathArg = Annotated[
    Path | None,
    typer.Argument(help="A puzzle file or a directory of puzzles for the gallery.",
                   show_default=False),
]
HostOpt = Annotated[
    str, typer.Option("--host", help="Address to listen on (127.0.0.1: this machine only).")
]
PortOpt = Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")]
NoBrowserOpt = Annotated[
    bool, typer.Option("--no-browser", help="Do not open the page in a browser.")
]


@handle_errors
def studio_command(
    path: StudioPathArg = None,
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8765,
    no_browser: NoBrowserOpt = False,
) -> None:
    """Start the studio web app (editor, player, step-through solver)."""
    from nonosat.errors import FormatError

    if path is not None and not path.exists():
        raise FormatError(str(path), None, "no such file or directory")
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise FormatError("<studio>", None, f"the studio needs {exc.name}: pip install "
                                            f"fastapi uvicorn") from None
    from nonosat.studio.server import serve

    def say(message: str) -> None:
        typer.echo(printable(message), err=not message.startswith("nonosat studio at"))

    try:
        serve([path] if path is not None else [], host=host, port=port,
              open_browser=not no_browser, say=say)
    except KeyboardInterrupt:
        pass
    typer.echo("studio stopped", err=True)
