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
import sys
import types
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
    "native/count_cubes.py",
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
    """Give one numba dispatcher the stamp of all kernel sources (see :func:`stamp_module`) and
    the quick cache load (:func:`load_without_refresh`); ``False`` when ``kernel`` has no
    on-disk cache to stamp."""
    cache = getattr(kernel, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        cache_file._source_stamp = source_stamp()
        load_without_refresh(cache)
        return True
    return False


#: Environment variable that, set to ``1``, keeps numba's own cache load (with its full
#: target refresh) for nonosat's kernels: a switch for diagnosing, not for use.
FULL_REFRESH_ENV = "NONOSAT_NUMBA_FULL_REFRESH"


def load_without_refresh(cache: Any) -> bool:
    """Make numba's on-disk ``cache`` of one nonosat kernel load a cached kernel without
    *refreshing* numba's CPU target first.

    numba's ``Cache.load_overload`` calls ``target_context.refresh()`` before it reads the cache:
    that imports and registers the typing and lowering of all of numba's supported Python and
    NumPy (``numba.np.arraymath``, ``numba.np.linalg`` with ``scipy.linalg``, the typed
    containers, ``np.random``, ...), which compiling needs and running compiled code does not:
    0.15 s CPU of a process that loads one kernel (0.25 s with SciPy; issue 27, measured
    2026-11-27, docs/startup.md).  Loading object code needs only what the code calls: numba's
    runtime (``NRT_*``, initialised here as numba does: ``rtsys.initialize``), the C helpers
    and math functions registered when the target context is made, and the hash secrets of
    ``numba.cpython.hashing`` (imported here); unpickling the entry imports the modules its
    types come from.  numba refreshes the target itself before compiling anything
    (``CompilerBase``) and before lowering a function it does not know, so a kernel missing
    from the cache, or a caller's own ``numba.njit`` function, compiles as before.

    Touches numba's private cache methods (``_load_overload``,
    ``_guard_against_spurious_io_errors``, numba 0.5x-0.6x); where they are missing, or
    :data:`FULL_REFRESH_ENV` is ``1``, nothing is changed.

    Returns
    -------
    bool
        Whether the quick load was installed on ``cache``.
    """
    if os.environ.get(FULL_REFRESH_ENV) == "1":
        return False
    if not (hasattr(cache, "_load_overload")
            and hasattr(cache, "_guard_against_spurious_io_errors")):
        return False
    cache.load_overload = types.MethodType(_load_overload, cache)
    return True


def _load_overload(cache: Any, sig: Any, target_context: Any) -> Any:
    """``Cache.load_overload`` without the target refresh (see :func:`load_without_refresh`)."""
    import numba.cpython.hashing  # noqa: F401  # its hash secrets are symbols compiled code uses
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)  # once per process; numba's refresh would do it
    with cache._guard_against_spurious_io_errors():
        return cache._load_overload(sig, target_context)
    return None  # the guard swallowed an I/O error: not cached, numba compiles


#: Modules that numba imports only to look at SciPy: ``numba/__init__`` imports ``scipy`` for its
#: version check, and the CPU target's refresh imports ``scipy.linalg`` (all of it, for
#: ``cython_blas``) to know whether compiled ``np.correlate``/``np.convolve`` can use BLAS.
_SCIPY_FOR_NUMBA = ("scipy", "scipy.linalg.cython_blas")


class _LazyYaml:
    """Stands for the ``yaml`` module in ``numba.core.config`` (see :func:`import_numba`):
    imports PyYAML on first use, which numba makes only when a ``.numba_config.yaml`` exists."""

    def __getattr__(self, name: str) -> Any:
        import importlib

        return getattr(importlib.import_module("yaml"), name)


def import_numba() -> bool:
    """Import numba without the imports it makes only in case: PyYAML (numba's config reads a
    ``.numba_config.yaml`` file with it, only when one is in the working directory: it then gets
    PyYAML on first use, as before) and SciPy (numba's version check of it is skipped).  About
    0.04 s CPU of a process that loads a kernel (issue 27).  Since the quick cache load
    (:func:`load_without_refresh`), SciPy is imported (``scipy.linalg``, for BLAS) only if
    something is compiled in this process: then ``np.dot``, ``@`` and ``np.linalg`` compile as
    usual (each looks for BLAS when it is compiled).

    Returns
    -------
    bool
        Whether numba was imported here (``False``: it was imported already).
    """
    import importlib.util

    if "numba" in sys.modules:
        return False
    hide = [name for name in _SCIPY_FOR_NUMBA if name not in sys.modules]
    lazy_yaml = ("yaml" not in sys.modules and not os.path.isfile(".numba_config.yaml")
                 and importlib.util.find_spec("yaml") is not None)
    if lazy_yaml:
        hide.append("yaml")
    for name in hide:
        sys.modules[name] = None  # type: ignore[assignment]  # an import of it raises ImportError
    try:
        import numba  # noqa: F401
    finally:
        for name in hide:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    if lazy_yaml:
        from numba.core import config

        config.yaml = _LazyYaml()
        config._HAVE_YAML = True
    return True


#: The command line's name for :func:`import_numba` (numba with SciPy hidden).
import_numba_without_scipy = import_numba
