"""Only this machine can talk to the studio: the ``Host``, ``Origin`` and ``Content-Type`` checks.

The studio listens on ``127.0.0.1`` by default, but a socket bound to the loopback address does not
stop a web page in the user's own browser from reaching it:

* **DNS rebinding.** A page on ``evil.example`` makes its name resolve to ``127.0.0.1`` after
  loading; the browser then treats the studio as same-origin with that page and lets its scripts
  read every answer (the gallery and the puzzles under the studio's folder).  Such requests carry
  ``Host: evil.example``: every request whose ``Host`` does not name this machine
  (``127.0.0.1``, ``localhost``, ``[::1]`` or the ``--host`` given to ``nonosat studio``, with any
  port) is refused with **421** before routing, static files included (:class:`LocalOnly`).
  Names given with ``--allow-host`` are accepted too.  A server bound to an address other
  machines can reach (``--host`` not loopback) also accepts this machine's host name
  (:func:`machine_names`); one bound to every interface (``0.0.0.0``, ``::``) also accepts any IP
  address as ``Host``, since it may be reached through any of the machine's addresses (and
  through NAT or a VPN, under others), and an IP address in ``Host`` is never DNS rebinding: the
  attack needs a name the attacker's DNS answers for.
* **Cross-site requests (CSRF).** Any page may *send* a "simple" POST to ``127.0.0.1`` (a form
  submission or ``fetch`` with ``text/plain``, form-urlencoded or multipart bodies) without the
  browser asking first; it cannot read the answer, but it can make the server work.  A
  state-changing request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) is refused with **403** when it
  carries an ``Origin`` other than the studio's own (the scheme, host and port the request was
  sent to; ``Origin: null`` included), or a ``Sec-Fetch-Site`` of ``cross-site`` or ``same-site``,
  or a body that is neither ``application/json`` nor ``multipart/form-data`` (a JSON body makes a
  cross-origin browser ask first, a CORS preflight the studio never answers with permission).
  Requests without ``Origin`` (curl, scripts, the test client) are from this machine's own
  programs and pass.  A request with no body at all (``DELETE /api/keep-trying/{id}``) needs no
  ``Content-Type``.

Starlette's in-process test client (``fastapi.testclient.TestClient``) sends ``Host: testserver``
from the client address ``testclient``; that pair is accepted, since no socket can produce it
(uvicorn puts the peer's IP address there).

Algorithm: the checks of the Fetch standard's CORS protocol and OWASP's CSRF cheat sheet
("Verifying Origin With Standard Headers", "Fetch Metadata"); the DNS-rebinding defence is the
``Host`` allow-list that Jupyter and webpack-dev-server use.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

#: Host names that always mean this machine.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: ``--host`` values that listen on every interface.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
#: Methods that change state (checked for Origin and Content-Type).
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Body types a state-changing request may have.
BODY_TYPES = ("application/json", "multipart/form-data")


def split_host(value: str) -> tuple[str, int | None] | None:
    """``(host, port)`` of a ``Host`` header value (``"localhost:8765"``, ``"[::1]:80"``,
    ``"127.0.0.1"``); the host lower-cased, IPv6 without brackets; ``None`` when malformed."""
    value = value.strip()
    if not value or any(ch in value for ch in " /\\@?#") or len(value) > 300:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    elif value.count(":") == 1:
        host, port_text = value.split(":")
    elif ":" in value:  # a bare IPv6 address is not a valid Host
        return None
    else:
        host, port_text = value, None
    port = None
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            return None
        port = int(port_text)
    host = host.lower().rstrip(".")
    return (host, port) if host else None


def _normal(host: str) -> str:
    host = host.strip().lower().strip("[]").rstrip(".")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def host_name(value: str) -> str | None:
    """``value`` as :class:`LocalOnly` compares it (lower-case, an IP address in its usual form),
    when it is a host name or an IP address without a port (``--allow-host``); else ``None``."""
    host = _normal(value)
    if _is_ip(host):
        return host
    parsed = split_host(value)
    return None if parsed is None or parsed[1] is not None else _normal(parsed[0])


def is_wildcard(bound: str | None) -> bool:
    """Whether the ``--host`` ``bound`` listens on every interface (``0.0.0.0``, ``::``)."""
    return bound is not None and _normal(bound) in WILDCARD_HOSTS


def is_loopback(bound: str | None) -> bool:
    """Whether the ``--host`` ``bound`` is this machine only (``None``: the default,
    ``127.0.0.1``): a loopback address or ``localhost``."""
    if bound is None:
        return True
    host = _normal(bound)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def machine_names() -> frozenset[str]:
    """This machine's host name (:func:`socket.gethostname`), lower-case, with and without its
    domain; no DNS look-up."""
    import socket

    name = _normal(socket.gethostname())
    return frozenset(n for n in (name, name.split(".")[0]) if n)


def allowed_hosts(bound: str | None = None, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names a request may name: :data:`LOCAL_HOSTS`, the ``--host`` the server was
    started with (``bound``), ``extra`` (``--allow-host``) and, when ``bound`` is not loopback
    (other machines can reach the server), this machine's names (:func:`machine_names`).  A
    server bound to every interface accepts any IP address besides (:class:`LocalOnly`'s
    ``any_ip``)."""
    names = set(LOCAL_HOSTS) | {_normal(h) for h in extra if h}
    if bound:
        names.add(_normal(bound))
    if not is_loopback(bound):
        names |= machine_names()
    return frozenset(names)


def origin_matches(origin: str, host: str) -> bool:
    """Is ``origin`` (an ``Origin`` header) the page of the server reached as ``host`` (the
    request's ``Host`` header)?  ``http`` only; the default port 80 may be left out of either."""
    if not origin.startswith("http://"):
        return False
    a = split_host(origin[len("http://"):])
    b = split_host(host)
    if a is None or b is None:
        return False
    return _normal(a[0]) == _normal(b[0]) and (a[1] or 80) == (b[1] or 80)


class LocalOnly:
    """ASGI middleware: refuse requests that do not come from this machine's own pages (module
    docstring).  Refusals are JSON ``{"detail": one line}``: 421 for a foreign ``Host``, 403 for a
    cross-origin or wrongly typed state-changing request; nothing of the application runs.

    Parameters
    ----------
    app : ASGI application
    hosts : iterable of str
        Accepted host names (:func:`allowed_hosts`).
    any_ip : bool
        Accept any IP address as ``Host`` too (a server bound to every interface:
        :func:`is_wildcard`).
    """

    def __init__(self, app: Any, hosts: Iterable[str] = LOCAL_HOSTS, any_ip: bool = False):
        self.app = app
        self.hosts = frozenset(_normal(h) for h in hosts)
        self.any_ip = any_ip

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            status, message = refusal
            await _refuse(send, status, message)
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: dict) -> tuple[int, str] | None:
        """``(status, message)`` when the request must be refused, else ``None``."""
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers", ()):
            if name in headers:  # two Host (or Origin) headers: ambiguous, refused
                if name in (b"host", b"origin"):
                    return 400, f"duplicate {name.decode()} header"
                continue
            headers[name] = value
        raw_host = headers.get(b"host", b"").decode("latin-1")
        parsed = split_host(raw_host)
        if parsed is None:
            return 421, ("missing or malformed Host header: this studio answers only requests "
                         "addressed to 127.0.0.1, localhost, its --host or an --allow-host")
        host = _normal(parsed[0])
        client = scope.get("client") or ("", 0)
        in_process = host == "testserver" and client[0] == "testclient"
        if host not in self.hosts and not in_process and not (self.any_ip and _is_ip(host)):
            return 421, ("this studio answers only requests addressed to 127.0.0.1, localhost, "
                         "its --host or an --allow-host")
        if scope.get("method", "GET").upper() not in STATE_CHANGING:
            return None
        origin = headers.get(b"origin")
        if origin is not None and not origin_matches(origin.decode("latin-1"), raw_host):
            return 403, "cross-origin request refused: only the studio's own page may send it"
        site = headers.get(b"sec-fetch-site", b"").decode("latin-1").lower()
        if site in ("cross-site", "same-site"):
            return 403, "cross-site request refused: only the studio's own page may send it"
        ctype = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
        bodiless = (headers.get(b"content-length", b"0").strip() in (b"", b"0")
                    and b"transfer-encoding" not in headers)
        if ctype not in BODY_TYPES and not (bodiless and not ctype):
            shown = ctype or "none"
            return 415, (f"content type {shown[:60]!r} refused: send application/json or "
                         f"multipart/form-data")
        return None


async def _refuse(send: Any, status: int, message: str) -> None:
    import json

    body = json.dumps({"detail": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
