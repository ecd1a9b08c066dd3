"""The last resort of :mod:`nonosat.cli.signals` for code that holds the GIL: a native thread.

CaDiCaL's ``solve`` (through PySAT) holds Python's GIL for as long as it runs, so while it does no
Python thread can run: not the watcher of :mod:`nonosat.cli.signals`, not its hard exit.  The
SAT calls are kept short (:data:`nonosat.encodings.satsolver.CALL_S`), but a formula much slower
per conflict than the budget assumed can make one last seconds.  This module starts, once per
process and only when a SAT solver is about to be used, a thread that never touches Python: a
small function in LLVM IR compiled by llvmlite (numba's backend; about 10 ms) and started with
``pthread_create``.
It blocks reading the signal numbers Python's C-level handler writes to the wakeup socket,
forwards each to the Python watcher, and :data:`GRACE_S` seconds after the first one writes
``nonosat: interrupted`` (unless already said) and calls ``_exit(128 + signum)``.  By then the
Python path (unwinding, partial results, temporaries removed) has normally ended the process;
the native thread only ends one whose main thread is still inside C code that holds the GIL.
"""

from __future__ import annotations

import ctypes
import socket
from typing import Any

#: Seconds from the first signal to the native thread's ``_exit`` (after the Python watcher's
#: :data:`nonosat.cli.signals.GRACE_S`, which removes temporaries and prints partial results).
GRACE_S = 0.9

# state slots shared with the native thread (int64 each)
_IN, _OUT, _SLEEP_US, _BUF, _MSG, _MSG_LEN, _SAID, _BYTE = range(8)

_kept: list[Any] = []  # the state array, message, sockets and thread id live as long as the process
_state: Any = None


#: The thread's body in LLVM IR: ``void* nonosat_guard(int64* state)``.  Loops reading one byte
#: (a signal number) from ``state[IN]`` into ``state[BYTE]``, forwards it to ``state[OUT]``,
#: sleeps ``state[SLEEP_US]``, writes the message unless ``state[SAID]`` and calls
#: ``_exit(128 + signum)``; returns when the socket is closed.
_IR = r"""
declare i64 @read(i32, ptr, i64)
declare i64 @write(i32, ptr, i64)
declare i32 @usleep(i32)
declare void @_exit(i32)

define ptr @nonosat_guard(ptr %st) {
entry:
  br label %loop
loop:
  %fdin64 = load volatile i64, ptr %st
  %fdin = trunc i64 %fdin64 to i32
  %p3 = getelementptr i64, ptr %st, i64 3
  %buf64 = load volatile i64, ptr %p3
  %buf = inttoptr i64 %buf64 to ptr
  %n = call i64 @read(i32 %fdin, ptr %buf, i64 1)
  %is1 = icmp eq i64 %n, 1
  br i1 %is1, label %got, label %check0
check0:
  %is0 = icmp eq i64 %n, 0
  br i1 %is0, label %done, label %loop
got:
  %p1 = getelementptr i64, ptr %st, i64 1
  %fo64 = load volatile i64, ptr %p1
  %fo = trunc i64 %fo64 to i32
  %w1 = call i64 @write(i32 %fo, ptr %buf, i64 1)
  %p2 = getelementptr i64, ptr %st, i64 2
  %us64 = load volatile i64, ptr %p2
  %us = trunc i64 %us64 to i32
  %s = call i32 @usleep(i32 %us)
  %p6 = getelementptr i64, ptr %st, i64 6
  %said = load volatile i64, ptr %p6
  %nosaid = icmp eq i64 %said, 0
  br i1 %nosaid, label %say, label %exit
say:
  %p4 = getelementptr i64, ptr %st, i64 4
  %m64 = load volatile i64, ptr %p4
  %m = inttoptr i64 %m64 to ptr
  %p5 = getelementptr i64, ptr %st, i64 5
  %ml = load volatile i64, ptr %p5
  %w2 = call i64 @write(i32 2, ptr %m, i64 %ml)
  br label %exit
exit:
  %p7 = getelementptr i64, ptr %st, i64 7
  %b = load volatile i64, ptr %p7
  %sig = and i64 %b, 255
  %code64 = add i64 %sig, 128
  %code = trunc i64 %code64 to i32
  call void @_exit(i32 %code)
  unreachable
done:
  ret ptr %st
}
"""


def _compile() -> int:
    """Compile :data:`_IR` with llvmlite's MCJIT (about 10 ms; llvmlite comes with numba) and
    return the function's address."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(_IR)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    _kept.append(engine)
    return int(engine.get_function_address("nonosat_guard"))


def start(forward_to: socket.socket) -> socket.socket | None:
    """Start the native thread: it reads a new wakeup socket, which it returns (the caller makes
    it Python's wakeup fd), and forwards every byte to ``forward_to``.  ``None`` when it cannot
    start (no numba, no ``pthread_create``): the Python watcher alone then handles signals."""
    import numpy as np

    try:
        address = _compile()
        libc = ctypes.CDLL(None)
        create = libc.pthread_create
    except Exception:  # noqa: BLE001 - an optional guard
        return None
    create.argtypes = [ctypes.POINTER(ctypes.c_ulong), ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p]
    create.restype = ctypes.c_int
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    reader.setblocking(True)
    message = ctypes.create_string_buffer(b"nonosat: interrupted\n")
    state = np.zeros(8, dtype=np.int64)
    state[_IN] = reader.fileno()
    state[_OUT] = forward_to.fileno()
    state[_SLEEP_US] = int(GRACE_S * 1e6)
    state[_BUF] = state.ctypes.data + 8 * _BYTE
    state[_MSG] = ctypes.addressof(message)
    state[_MSG_LEN] = len(message.value)
    thread = ctypes.c_ulong()
    if not address or create(ctypes.byref(thread), None, ctypes.c_void_p(address),
              ctypes.c_void_p(state.ctypes.data)) != 0:
        reader.close()
        writer.close()
        return None
    global _state
    _kept.extend([state, message, reader, writer, thread])
    _state = state
    return writer


def said() -> None:
    """The interrupt has been announced on stderr: the native thread does not say it again."""
    if _state is not None:
        _state[_SAID] = 1
