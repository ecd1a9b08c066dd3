"""The complete line solver as a dynamic programme over (block, position), any line length.

The reference formulation (Batenburg & Kosters 2009; pbnsolve's left-right settle), O(n*k): see
:mod:`nonosat.native.line`, which re-exports :func:`line_kernel_dp`.  The bit-parallel kernels
(:mod:`nonosat.native.line_bits`, :mod:`nonosat.native.line_words`) are checked against it and
against brute force in the tests.
"""

from __future__ import annotations

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit


@njit(cache=True, nogil=True)
def line_kernel_dp(clue: np.ndarray, cells: np.ndarray, out: np.ndarray) -> bool:  # pragma: no cover
    """Compiled complete line solver (dynamic programme, any line length).

    Parameters
    ----------
    clue : ndarray of int32, shape (k,)
        Block lengths, all positive.
    cells : ndarray of int8, shape (n,)
        Cell states (bit sets: 1 empty possible, 2 filled possible).
    out : ndarray of int8, shape (n,)
        Receives the possible values of every cell over all consistent arrangements.

    Returns
    -------
    bool
        ``False`` if no arrangement is consistent with ``cells`` (``out`` is then undefined).
    """
    n = cells.shape[0]
    k = clue.shape[0]
    # pe[i]: number of cells in [0, i) that cannot be filled
    pe = np.zeros(n + 1, np.int32)
    for i in range(n):
        pe[i + 1] = pe[i] + (1 if (cells[i] & 2) == 0 else 0)
    f = np.zeros((k + 1, n + 1), np.bool_)
    f[0, 0] = True
    for i in range(1, n + 1):
        can_empty = (cells[i - 1] & 1) != 0
        for j in range(k + 1):
            v = can_empty and f[j, i - 1]
            if not v and j > 0:
                s = i - clue[j - 1]
                if s >= 0 and pe[i] == pe[s]:
                    if s == 0:
                        v = j == 1
                    else:
                        v = (cells[s - 1] & 1) != 0 and f[j - 1, s - 1]
            f[j, i] = v
    if not f[k, n]:
        return False
    b = np.zeros((k + 1, n + 1), np.bool_)
    b[k, n] = True
    for i in range(n - 1, -1, -1):
        can_empty = (cells[i] & 1) != 0
        for j in range(k, -1, -1):
            v = can_empty and b[j, i + 1]
            if not v and j < k:
                e = i + clue[j]
                if e <= n and pe[e] == pe[i]:
                    if e == n:
                        v = j == k - 1
                    else:
                        v = (cells[e] & 1) != 0 and b[j + 1, e + 1]
            b[j, i] = v
    diff = np.zeros(n + 1, np.int32)
    for j in range(k):
        c = clue[j]
        for s in range(n - c + 1):
            e = s + c
            if pe[e] != pe[s]:
                continue
            if s == 0:
                ok = j == 0
            else:
                ok = (cells[s - 1] & 1) != 0 and f[j, s - 1]
            if not ok:
                continue
            if e == n:
                ok = j == k - 1
            else:
                ok = (cells[e] & 1) != 0 and b[j + 1, e + 1]
            if ok:
                diff[s] += 1
                diff[e] -= 1
    run = 0
    for i in range(n):
        run += diff[i]
        v = 2 if run > 0 else 0
        if cells[i] & 1:
            for j in range(k + 1):
                if f[j, i] and b[j, i + 1]:
                    v |= 1
                    break
        out[i] = v
    return True


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
