"""Keep numba's on-disk kernel cache fresh when *any* kernel source changes.

numba's cache (``njit(cache=True)``) stamps each compiled function with the modification time and
size of the function's **own** source file, and reuses the compiled code while that stamp holds.
A kernel compiles its callees into itself (``search_kernel`` holds ``propagate``, the line solver,
probing ...), so after an edit of ``native/propagate.py`` -- or a ``git pull`` that changes only
that file -- the cached ``search_kernel`` would go on running the old ``propagate``: measured,
a changed counter in ``propagate`` was not seen by ``NativeSearch`` until the cache files were
deleted.  A reinstall does not hit this (every file gets a new time), an editable install or a
checkout does.

:func:`stamp_module`, called at the end of every module that defines cached kernels, replaces
each kernel's stamp with one over **all** kernel sources (:data:`KERNEL_FILES`: path, size and
modification time of each, as numba's own stamp), so any change to any of them makes every cached
kernel stale and recompiled once.  It touches a private attribute of numba's cache
(``_cache._cache_file._source_stamp``, numba 0.5x-0.6x); if that is not there, nothing is
changed and numba's own per-file stamp applies.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any

#: Every source file whose code or constants compiled kernels contain (package-relative).  A
#: module that defines ``njit(cache=True)`` kernels must be listed (a test checks it) and call
#: :func:`stamp_module` at its end.
KERNEL_FILES = (
    "puzzle.py",
    "palette.py",
    "native/line.py",
    "native/line_bits.py",
    "native/line_words.py",
    "native/line_dp.py",
    "native/propagate.py",
    "native/probe.py",
    "native/search.py",
    "native/stepping.py",
    "native/swap.py",
    "native/implications.py",
    "native/colour.py",
    "native/count.py",
    "native/count_parts.py",
    "native/count_probe.py",
    "encodings/cnf_order.py",
    "encodings/phases.py",
    "certificates/proof_text.py",
    "certificates/rup.py",
    "certificates/lrat_read.py",
    "certificates/lrat_check.py",
    "certificates/lrat_store.py",
    "certificates/lrat_agree.py",
    "analysis/implied.py",
)

_ROOT = Path(__file__).resolve().parent


def stamp_of(root: Path, files: tuple[str, ...] = KERNEL_FILES) -> tuple[str, str]:
    """The stamp of the kernel sources under ``root``: ``("nonosat-kernels", hex digest)`` of
    each file's relative path, size and modification time (nanoseconds); a missing file counts
    as size -1.  Cheap: one ``stat`` per file, no reading."""
    digest = hashlib.blake2b(digest_size=16)
    for rel in files:
        try:
            st = os.stat(root / rel)
            digest.update(f"{rel}:{st.st_size}:{st.st_mtime_ns};".encode())
        except OSError:
            digest.update(f"{rel}:-1;".encode())
    return ("nonosat-kernels", digest.hexdigest())


@functools.cache
def source_stamp() -> tuple[str, str]:
    """:func:`stamp_of` this installed package (computed once per process)."""
    return stamp_of(_ROOT)


def stamp_module(namespace: dict[str, Any]) -> int:
    """Give every cached numba kernel in ``namespace`` (a module's ``globals()``) the stamp of
    all kernel sources (:func:`source_stamp`).  Call it at the end of the module, before any
    kernel runs.  Returns the number of kernels stamped."""
    count = 0
    for obj in list(namespace.values()):
        # a lazy kernel (nonosat.lazy_jit) is stamped when numba makes its dispatcher; looking
        # at its attributes would make it now
        if not getattr(type(obj), "lazy", False) and stamp_kernel(obj):
            count += 1
    return count


def stamp_kernel(kernel: Any) -> bool:
    """Give one numba dispatcher the stamp of all kernel sources (see :func:`stamp_module`);
    ``False`` when ``kernel`` has no on-disk cache to stamp."""
    cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        cache_file._source_stamp = source_stamp()
        return True
    return False


#: Modules that numba imports only to look at SciPy: ``numba/__init__`` imports ``scipy`` for its
#: version check, and the CPU target's first initialisation imports ``scipy.linalg`` (all of it,
#: for ``cython_blas``) to know whether compiled ``np.dot``/``np.linalg`` can be offered.
_SCIPY_FOR_NUMBA = ("scipy", "scipy.linalg.cython_blas")


def import_numba_without_scipy() -> bool:
    """Import numba and initialise its CPU target (which loading any cached kernel does) with
    SciPy hidden, so that neither imports SciPy: about 0.1 s of a whole ``nonosat solve`` on an
    idle machine (``python -X importtime``: ``scipy.linalg`` under ``numba.np.arraymath``), paid
    by every process that loads a kernel, when none of nonosat's kernels uses BLAS.

    The price: in this process, numba compiles no new function that calls ``np.dot``, ``@`` or
    ``np.linalg`` on arrays (numba decided BLAS is missing); importing SciPy itself works as
    before.  So only the command line calls this (one process per command, running only
    nonosat's kernels), never a library import.  Does nothing when numba is imported already.

    Returns
    -------
    bool
        Whether numba was imported here with SciPy hidden.
    """
    import sys

    if "numba" in sys.modules:
        return False
    hidden = [name for name in _SCIPY_FOR_NUMBA if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # an import of it raises ImportError
    try:
        import numba  # noqa: F401
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return True
