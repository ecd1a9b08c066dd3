"""The pipe protocol between a sandbox and its worker process.

Each message is an 8-byte big-endian length followed by that many bytes of pickle.  The parent
sends ``("init", sys.path, memory_mb)`` once, then ``("call", "module:function", args)``; the
worker answers each call with ``("ok", value)``, ``("oom", message)`` or
``("error", message, traceback)``.
"""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any

HEADER = struct.Struct(">Q")


def read_message(fd: int) -> Any:
    """One message from ``fd``, or ``None`` at end of file."""
    header = read_exact(fd, HEADER.size)
    if header is None:
        return None
    body = read_exact(fd, HEADER.unpack(header)[0])
    if body is None:
        return None
    return pickle.loads(body)


def write_message(fd: int, message: Any) -> None:
    """Write one message (a picklable object) to ``fd``."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    data = memoryview(HEADER.pack(len(body)) + body)
    while data:
        data = data[os.write(fd, data) :]


def read_exact(fd: int, size: int) -> bytes | None:
    """Exactly ``size`` bytes from ``fd``, or ``None`` at end of file."""
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
