"""Start the studio: a local web page to design, check, play and step through puzzles.

Serves the page and its JSON API (FastAPI + uvicorn) on http://127.0.0.1:8765/ by default and
opens it in the browser. PATH (a puzzle file or a directory) is listed in the page's gallery
beside games/; a single file opens directly. The solver kernels are warmed in the background
at start-up, so the page answers at once. Ctrl-C stops the server (exit 0). A port in use is one
line on stderr and exit 2. API reference: docs/studio.md; OpenAPI schema at /openapi.json on the running server.

Only requests addressed to this machine are answered (the Host header, against DNS rebinding):
127.0.0.1, localhost, [::1] and the --host address. With a --host other machines can reach, this
machine's host name is accepted too, and with --host 0.0.0.0 (or ::, every interface) any IP
address; a DNS name other machines use for it needs --allow-host NAME. The studio has no
password: anyone who can reach a non-loopback --host can use it.
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
AllowHostOpt = Annotated[
    list[str] | None,
    typer.Option("--allow-host", metavar="NAME",
                 help="Also answer requests addressed to NAME (the Host header), e.g. the DNS "
                 "name other machines reach a non-loopback --host by. Repeatable.",
                 show_default=False),
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
    allow_host: AllowHostOpt = None,
) -> None:
    """Start the studio web app (editor, player, step-through solver)."""
    from nonosat.errors import FormatError

    if path is not None and not path.exists():
        raise FormatError(str(path), None, "no such file or directory")
    from nonosat.studio.security import host_name

    for name in allow_host or ():
        if host_name(name) is None:
            from nonosat.text import quoted

            raise FormatError("--allow-host", None, f"{quoted(name)} is not a host name or "
                                                    "address (give no port nor scheme)")
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise FormatError("<studio>", None, f"the studio needs {exc.name}: pip install "
                                            f"fastapi uvicorn") from None
    from nonosat.studio.server import serve

    def say(message: str) -> None:
        typer.echo(printable(message), err=not message.startswith("nonosat studio at"))

    from nonosat.studio.security import is_loopback

    if not is_loopback(host):
        say(f"nonosat: warning: listening on {host or '0.0.0.0'}: any machine that can reach "
            f"port {port} can use the studio (it has no password)")
    try:
        serve([path] if path is not None else [], host=host, port=port,
              open_browser=not no_browser, say=say, allow_hosts=list(allow_host or ()))
    except KeyboardInterrupt:
        pass
    typer.echo("studio stopped", err=True)
