"""Starting and stopping the studio's server (uvicorn on :func:`nonosat.studio.asgi.create_app`).

The socket is bound here, before uvicorn starts, so that a port in use is one clear error
(:class:`PortInUseError`) instead of uvicorn's log and exit.  The numba kernels are warmed in a
background thread at start-up (:func:`nonosat.studio.asgi.warm_up`) so that no request pays
their compilation or loading: the server listens at once, but jobs wait for the warm-up before
they start (:class:`~nonosat.studio.runner.JobRunner`'s ``ready``), so that a request superseded
meanwhile never starts instead of running on through a kernel's loading; then the objects alive so far are frozen out of the garbage
collector's full collections (``gc.freeze``), which otherwise dominate the slowest edits.  Nothing here prints: messages go to the ``say`` callback.
"""

from __future__ import annotations

import gc
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from nonosat.errors import NonosatError
from nonosat.interrupts import Interrupted

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


class PortInUseError(NonosatError, OSError):
    """The address cannot be bound (in use, or not an address of this machine)."""


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (IPv6 when ``host`` is an IPv6 address).

    Raises
    ------
    PortInUseError
        The port is taken or the address is not available; the message names both.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # answers are written as headers then body: without TCP_NODELAY (inherited by the
        # accepted connections) the body waits for the client's delayed ACK, 40 ms per request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        why = "in use" if exc.errno in (98, 48, 10048) else (exc.strerror or str(exc))
        raise PortInUseError(f"cannot listen on {host}:{port}: {why} (choose another "
                             f"with --port)") from None
    sock.set_inheritable(True)
    return sock


def url_for(host: str, port: int, path: str = "/") -> str:
    """The address to open in a browser (``0.0.0.0`` and ``::`` shown as ``127.0.0.1``)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}{path}"


def serve(
    paths: Sequence[Path] = (),
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    open_browser: bool = True,
    say: Callable[[str], None] = lambda message: None,
    warm: bool = True,
    allow_hosts: Sequence[str] = (),
) -> None:
    """Run the studio until interrupted (Ctrl-C / SIGINT / SIGTERM), then return.

    Parameters
    ----------
    paths : sequence of Path
        Puzzle files or directories for the gallery; when the only one is a file, the page
        opens it directly (``/?open=<id>``).
    host, port : str, int
        Address to listen on (default ``127.0.0.1:8765``: this machine only).
    open_browser : bool
        Open the page in the default browser once the server listens.
    say : callable(str)
        Receives the messages for the user (the URL, warm-up progress).
    warm : bool
        Warm the compiled kernels in a background thread at start-up.
    allow_hosts : sequence of str
        More names to answer in the ``Host`` header (``--allow-host``; see
        :mod:`nonosat.studio.security`).

    Raises
    ------
    PortInUseError
        The address cannot be bound.
    """
    import uvicorn

    from nonosat.studio.asgi import create_app, warm_up
    from nonosat.studio.runner import JobRunner

    sock = bind(host, port)
    # with warming, jobs wait for the kernels to be loaded before they start (JobRunner's
    # ready): loading cannot be interrupted, so a job that loaded a kernel itself could not stop
    # when superseded
    ready = threading.Event() if warm else None
    app = create_app(list(paths), host=host, jobs=JobRunner(ready=ready),
                     allow_hosts=allow_hosts)
    page = "/"
    if len(paths) == 1 and Path(paths[0]).is_file():
        first = app.state.gallery.first_id(Path(paths[0]))
        if first is not None:
            page = f"/?open={first}"
    url = url_for(host, port, page)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)

    if warm:
        say("warming up the solver kernels in the background (first run: compiling, a few "
            "seconds)")

        def warmer() -> None:
            try:
                took = warm_up()
                # everything loaded so far (numba, FastAPI, the kernels) lives as long as the
                # server: freeze it out of the collector's view, so that the full collections
                # the CNF encoding's many small lists trigger do not rescan it (random 30x30
                # backbone: 90th percentile 196 ms -> 53 ms)
                gc.collect()
                gc.freeze()
                say(f"solver kernels ready ({took:.1f} s)")
            except Interrupted:  # the server is being stopped: warming is moot
                return
            except Exception as exc:  # noqa: BLE001 - warming is an optimisation only
                say(f"warm-up failed ({exc}); the first request will compile instead")
            finally:
                if ready is not None:
                    ready.set()

        threading.Thread(target=warmer, name="nonosat-warm", daemon=True).start()

    def opener() -> None:
        for _ in range(200):
            if server.started or server.should_exit:
                break
            time.sleep(0.05)
        if server.started:
            say(f"nonosat studio at {url}  (Ctrl-C to stop)")
            if open_browser:
                import webbrowser

                try:
                    webbrowser.open(url)
                except Exception:  # noqa: BLE001 - no browser: the URL was printed
                    pass

    threading.Thread(target=opener, name="nonosat-open", daemon=True).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the captured SIGINT after a clean shutdown
        pass
    finally:
        sock.close()
