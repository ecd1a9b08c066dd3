"""Kernels that import numba only when one is first run compiled (issue 27: start-up).

Every module of nonosat that defines numba kernels takes its decorator from here
(``from nonosat.lazy_jit import njit``) instead of from numba.  Until numba is needed, the
decorator returns a :class:`LazyKernel`, which holds the Python function and its options and
imports nothing: importing the native solver costs no ``import numba`` (about 0.3 s) and no
compiler-target set-up (about 0.1 s).  The first call of any kernel from Python, or any look at a
numba attribute of one (``signatures``, ``_cache``, ...), **activates** numba once per process
(:func:`activate`: numba is imported) and gives *that* kernel its numba dispatcher
(``numba.njit(**options)(function)``, on-disk cache stamped by :mod:`nonosat.kernel_cache`), put
in place of the lazy kernel in every module of nonosat that holds it as a global.  Other kernels
stay lazy until they are used: a process that loads one cached kernel makes one dispatcher.
Before numba compiles anything (its ``numba:compile`` event), every kernel and lazy intrinsic is
made and put in place (:func:`make_all`), so that numba, compiling a kernel, finds dispatchers
among its callees' globals; kernels defined after that get their dispatcher at once.

**Interpreted runs.**  Inside :func:`interpreted`, a call of a lazy kernel runs its Python source
(the same function numba compiles: no second copy of the solver) as long as numba has not been
activated; after activation it runs compiled (the same results, faster).  The interpreted source
is run with numpy's overflow warnings off, as compiled integer arithmetic wraps (the line
cache's hash multiplies ``uint64`` values on purpose).  The kernels' integer arithmetic differs
from numba's in one way: numpy keeps ``int32`` scalars ``int32`` where numba widens to
``int64``, so a product of two ``int32`` values above 2**31 would wrap in Python and not in
numba.  Interpreted runs are therefore only for small puzzles (:func:`interpreted_allowed`), whose
indices and counts stay far below that; a Python integer too large for an array's type raises
``OverflowError`` instead of wrapping.  The command line uses this for a first look at a small
puzzle (:func:`nonosat.engines.solve`): a puzzle that line solving finishes is solved without
numba at all.

numba's own intrinsics that kernels call are wrapped the same way (:func:`lazy_intrinsic`:
:data:`trailing_zeros`, :data:`leading_zeros`, and :func:`nonosat.native.propagate.borrowed`),
each with a Python equivalent.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

#: Whether numba has been activated in this process (see :func:`activate`).
_active = False
#: Whether every lazy kernel has been made (:func:`make_all`: numba compiled something); from
#: then on, a kernel defined is made at once.
_all_made = False
_lock = threading.RLock()
#: Every lazy kernel and lazy intrinsic made so far, in definition order.
_lazy: list[LazyKernel | LazyIntrinsic] = []
#: Callables run once, just before numba is imported by :func:`activate` (the command line's
#: "compiling the kernels" notice and its SciPy-free numba import).
_before_activation: list[Callable[[], None]] = []
_local = threading.local()
#: Largest puzzle (cells) that :func:`interpreted_allowed` lets run interpreted; 0: none.
_interpreted_cells = 0


def _interpreting() -> bool:
    """Whether this thread is inside :func:`interpreted`."""
    return bool(getattr(_local, "interpreted", 0))


class OutOfTime(Exception):
    """An interpreted run (:func:`interpreted` with ``seconds``) went on past its time: raised
    by the next kernel call after it, so that the caller can run the compiled kernels instead."""


class LazyKernel:
    """A numba kernel not compiled or loaded yet: a stand-in for ``numba.njit(**options)(func)``.

    Calling it activates numba (:func:`activate`) and calls the dispatcher, or, inside
    :func:`interpreted` while numba is not active, runs ``func`` itself.  Any other attribute
    (``signatures``, ``_cache``, ...) activates numba and is the dispatcher's.

    Attributes
    ----------
    py_func : callable
        The kernel's Python function (as numba's ``Dispatcher.py_func``).
    options : dict
        The keyword arguments for ``numba.njit``.
    """

    #: Says "not a numba object yet" to :func:`nonosat.kernel_cache.stamp_module`.
    lazy = True

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]):
        self.py_func = func
        self.options = options
        self.dispatcher: Any = None
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__module__ = func.__module__
        self.__doc__ = func.__doc__

    def __call__(self, *args: Any) -> Any:
        dispatcher = self.dispatcher
        if dispatcher is None:
            if not _active and _interpreting():
                if _local.deadline is not None and time.perf_counter() > _local.deadline:
                    raise OutOfTime(f"interpreted run past its time, at {self.__qualname__}")
                return self.py_func(*args)
            dispatcher = _compiled(self)
        return dispatcher(*args)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_compiled(self), name)

    def __repr__(self) -> str:
        state = "active" if self.dispatcher is not None else "lazy"
        return f"<{state} kernel {self.__module__}.{self.__qualname__}>"

    def _make(self) -> Any:
        import numba

        from nonosat.kernel_cache import stamp_kernel

        self.dispatcher = numba.njit(**self.options)(self.py_func)
        stamp_kernel(self.dispatcher)
        return self.dispatcher


class LazyIntrinsic:
    """A numba intrinsic (or any compiled-only callable) not made yet: ``python`` in
    interpreted runs, ``make()`` (called once, at :func:`activate`) in compiled code.

    Attributes
    ----------
    python : callable
        The Python equivalent, run by interpreted kernels.
    """

    lazy = True

    def __init__(self, name: str, python: Callable[..., Any], make: Callable[[], Any]):
        self.__name__ = name
        self.python = python
        self.make = make
        self.dispatcher: Any = None

    def __call__(self, *args: Any) -> Any:
        dispatcher = self.dispatcher
        if dispatcher is None:
            if not _active and _interpreting():
                return self.python(*args)
            dispatcher = _compiled(self)
        return dispatcher(*args)

    def __repr__(self) -> str:
        return f"<lazy intrinsic {self.__name__}>"

    def _make(self) -> Any:
        self.dispatcher = self.make()
        return self.dispatcher


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` without importing numba before a kernel runs: ``@njit(**options)``
    (or bare ``@njit``) gives a :class:`LazyKernel`, or numba's dispatcher once numba is
    active.  The options are numba's."""
    if args and callable(args[0]) and not options:
        return njit()(args[0])
    if args:
        raise TypeError("nonosat.lazy_jit.njit takes keyword options only (no signatures)")

    def decorate(func: Callable[..., Any]) -> Any:
        with _lock:
            kernel = LazyKernel(func, options)
            if _all_made:
                return kernel._make()
            _lazy.append(kernel)
            return kernel

    return decorate


def lazy_intrinsic(name: str, python: Callable[..., Any], make: Callable[[], Any]) -> Any:
    """A :class:`LazyIntrinsic` (or, once numba is active, ``make()`` itself)."""
    with _lock:
        item = LazyIntrinsic(name, python, make)
        if _all_made:
            return item._make()
        _lazy.append(item)
        return item


def _numba_attr(module: str, attr: str) -> Callable[[], Any]:
    def make() -> Any:
        import importlib

        return getattr(importlib.import_module(module), attr)

    return make


_MASK64 = (1 << 64) - 1


def _trailing_zeros(value: Any) -> int:
    """Trailing zero bits of a 64-bit integer (64 for 0), as numba's ``trailing_zeros``."""
    x = int(value) & _MASK64
    return 64 if x == 0 else (x & -x).bit_length() - 1


def _leading_zeros(value: Any) -> int:
    """Leading zero bits of a 64-bit integer (64 for 0), as numba's ``leading_zeros``."""
    return 64 - (int(value) & _MASK64).bit_length()


#: numba's ``trailing_zeros`` intrinsic (``numba.cpython.unsafe.numbers``), lazily.
trailing_zeros: Any = lazy_intrinsic(
    "trailing_zeros", _trailing_zeros, _numba_attr("numba.cpython.unsafe.numbers", "trailing_zeros"))
#: numba's ``leading_zeros`` intrinsic, lazily.
leading_zeros: Any = lazy_intrinsic(
    "leading_zeros", _leading_zeros, _numba_attr("numba.cpython.unsafe.numbers", "leading_zeros"))


def is_active() -> bool:
    """Whether numba has been activated in this process."""
    return _active


def before_activation(hook: Callable[[], None]) -> None:
    """Run ``hook()`` once, just before :func:`activate` imports numba (at once if numba is
    active already: then it runs now)."""
    with _lock:
        if _active:
            hook()
        else:
            _before_activation.append(hook)


def activate() -> None:
    """Import numba (:func:`nonosat.kernel_cache.import_numba`) and make compiled kernels
    possible from now on.  Idempotent and thread-safe; the hooks of :func:`before_activation`
    run first.

    Each lazy kernel or intrinsic gets its numba object when it is first used compiled (called
    from Python, or a numba attribute looked at): :func:`_compiled` makes it and puts it in
    place of the lazy one in every module of nonosat that holds it.  A process that loads one
    cached kernel makes one dispatcher, not one per kernel defined (about 40 ms CPU for 52
    kernels, issue 27).  Compiling is different: numba finds a kernel's callees among its
    globals, so before numba compiles anything (its ``numba:compile`` event), every kernel is
    made and put in place (:func:`make_all`)."""
    global _active
    if _active:
        return
    with _lock:
        if _active:
            return
        hooks = list(_before_activation)
        _before_activation.clear()
        for hook in hooks:
            hook()
        if _active:  # a hook looked at a kernel's cache, which activated numba
            return
        from nonosat.kernel_cache import import_numba

        import_numba()  # numba without the imports it makes only in case (SciPy, PyYAML)
        _listen_for_compiles()
        _active = True


def _compiled(item: LazyKernel | LazyIntrinsic) -> Any:
    """The numba object of ``item``, made now if it was not (numba activated first), and put
    in place of ``item`` in every module of nonosat that holds it."""
    activate()
    with _lock:
        if item.dispatcher is None:
            item._make()
            _rebind({id(item): item.dispatcher})
        return item.dispatcher


def make_all() -> None:
    """Make every lazy kernel and intrinsic defined so far, and any defined later at once, each
    put in place of the lazy one in every module of nonosat that holds it (numba, compiling a
    kernel, finds dispatchers among its callees' globals).  Activates numba; runs by itself
    before numba compiles anything (see :func:`activate`)."""
    global _all_made
    activate()
    with _lock:
        if _all_made:
            return
        made: dict[int, Any] = {}
        for item in _lazy:
            made[id(item)] = item.dispatcher if item.dispatcher is not None else item._make()
        _rebind(made)
        _lazy.clear()
        _all_made = True


def _rebind(made: dict[int, Any]) -> None:
    """Put ``made[id(lazy)]`` in place of every lazy kernel or intrinsic ``lazy`` held as a
    global by a module of nonosat."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "nonosat" or name.startswith("nonosat.")):
            continue
        namespace = getattr(module, "__dict__", None)
        if namespace is None:
            continue
        for key, value in list(namespace.items()):
            if isinstance(value, (LazyKernel, LazyIntrinsic)) and id(value) in made:
                namespace[key] = made[id(value)]


def _listen_for_compiles() -> None:
    """Run :func:`make_all` when numba starts compiling (its ``numba:compile`` event, sent by
    a dispatcher before it types a function), once."""
    from numba.core import event

    class BeforeCompile(event.Listener):
        def on_start(self, ev: Any) -> None:
            if not _all_made:
                make_all()

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", BeforeCompile())


@contextlib.contextmanager
def interpreted(seconds: float | None = None) -> Iterator[None]:
    """Within this block (in this thread), lazy kernels called from Python run their Python
    source while numba is not active (compiled once it is), with numpy's overflow warnings off
    (compiled integers wrap).  See the module docstring for the limits.

    Parameters
    ----------
    seconds : float, optional
        Wall-clock time for the block: the first kernel call (from Python or from another
        kernel) after it raises :class:`OutOfTime`.  ``None``: no limit.
    """
    import numpy as np

    outer = getattr(_local, "deadline", None)
    _local.interpreted = getattr(_local, "interpreted", 0) + 1
    _local.deadline = outer if seconds is None else time.perf_counter() + seconds
    try:
        with np.errstate(over="ignore"):
            yield
    finally:
        _local.interpreted -= 1
        _local.deadline = outer


def allow_interpreted(max_cells: int) -> None:
    """Let :func:`interpreted_allowed` say yes for puzzles of at most ``max_cells`` cells (0:
    never, the default).  The command line sets it: a library or a batch of puzzles, which would
    run many puzzles interpreted, does not."""
    global _interpreted_cells
    _interpreted_cells = max_cells


@contextlib.contextmanager
def activation_hook(hook: Callable[[], None]) -> Iterator[None]:
    """Within this block, ``hook`` registered with :func:`before_activation` (run at once if
    numba is active already); unregistered at its end if it has not run (so that a process
    running several commands, as a test does, does not keep it)."""
    before_activation(hook)
    try:
        yield
    finally:
        with _lock:
            if hook in _before_activation:
                _before_activation.remove(hook)


@contextlib.contextmanager
def lazy_start(max_cells: int, hook: Callable[[], None]) -> Iterator[None]:
    """Within this block, :func:`allow_interpreted` (``max_cells``) and ``hook`` registered with
    :func:`before_activation`; both are undone at its end (so that a process running several
    commands, as a test does, keeps neither)."""
    global _interpreted_cells
    old = _interpreted_cells
    _interpreted_cells = max_cells
    try:
        with activation_hook(hook):
            yield
    finally:
        _interpreted_cells = old


def interpreted_allowed(cells: int) -> bool:
    """Whether a first look at a puzzle of ``cells`` cells may run interpreted: numba is not
    active yet and the puzzle is small enough (:func:`allow_interpreted`)."""
    return not _active and 0 < cells <= _interpreted_cells
