"""Proof text written by compiled kernels: numbers and clauses into growing byte buffers, and a
SAT solver's LRAT renumbered into the certificate's clause IDs (:func:`renumber_lrat`).

The proof writer's side (:mod:`~nonosat.certificates.rup`, :mod:`~nonosat.certificates.prove`,
:mod:`~nonosat.certificates.colour_proofs`); nonosat's LRAT checker reads proofs with code of its own
(:mod:`~nonosat.certificates.lrat_read`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit


@njit(cache=True, nogil=True)
def put_int(buf, n, x):
    """Write the decimal text of ``x`` into ``buf[n:]`` (room for it assumed); returns the new
    end."""
    if x < 0:
        buf[n] = 45  # '-'
        n += 1
        x = -x
    if x == 0:
        buf[n] = 48
        return n + 1
    m = 0
    y = x
    while y > 0:
        m += 1
        y //= 10
    for k in range(m - 1, -1, -1):
        buf[n + k] = 48 + x % 10
        x //= 10
    return n + m


@njit(cache=True, nogil=True)
def grow(buf, need):
    """``buf`` (uint8), or a copy at least twice as large holding it, with room for ``need``
    bytes."""
    if need <= buf.size:
        return buf
    size = buf.size * 2
    while size < need:
        size *= 2
    out = np.empty(size, np.uint8)
    out[: buf.size] = buf
    return out


@njit(cache=True, nogil=True)
def put_clause(buf, n, slits, a, b):
    """Write the literals ``slits[a:b]``, each followed by a space, then ``0``; returns the new
    end."""
    for k in range(a, b):
        n = put_int(buf, n, slits[k])
        buf[n] = 32
        n += 1
    buf[n] = 48
    return n + 1


@njit(cache=True, nogil=True)
def _lrat_line(text, pos):
    """Parse the LRAT line at ``pos`` of ``text`` (bytes) into ``pos``'s line: returns
    (next position, kind, numbers): kind 0 an added clause (ID, literals, 0, hints, 0), 1 a
    deletion (ID, IDs, 0; the ``d`` left out), -1 a blank line."""
    size = text.size
    nums = np.empty(16, np.int64)
    n = 0
    kind = -1
    i = pos
    while i < size and text[i] != 10:
        c = text[i]
        if c == 100:  # 'd'
            kind = 1
            i += 1
            continue
        neg = c == 45
        if neg:
            i += 1
        if i >= size or not 48 <= text[i] <= 57:
            i += 1  # a space, or a character CaDiCaL does not write
            continue
        x = 0
        while i < size and 48 <= text[i] <= 57:
            x = 10 * x + (text[i] - 48)
            i += 1
        if n == nums.size:
            more = np.empty(2 * n, np.int64)
            more[:n] = nums
            nums = more
        nums[n] = -x if neg else x
        n += 1
        if kind < 0:
            kind = 0
    return i + 1, kind, nums[:n]


@njit(cache=True, nogil=True)
def _renumber(text, originals, first_new):
    """Renumber a SAT solver's LRAT (see :func:`renumber_lrat`); returns (bytes, length), or
    (empty, -1) when the solver's IDs do not fit ``originals``."""
    size = text.size
    # pass 1: the IDs the solver gave its derived clauses (the first number of each added
    # clause); every other ID up to the largest is one of the clauses it was given, in order
    top = 0
    pos = 0
    while pos < size:
        pos, kind, nums = _lrat_line(text, pos)
        for k in range(nums.size if kind == 1 else min(nums.size, 1)):
            top = max(top, abs(nums[k]))
        if kind == 0:
            # hints too (after the literals' 0)
            z = 1
            while z < nums.size and nums[z] != 0:
                z += 1
            for k in range(z + 1, nums.size):
                top = max(top, abs(nums[k]))
    derived = np.zeros(top + 2, np.uint8)
    pos = 0
    while pos < size:
        pos, kind, nums = _lrat_line(text, pos)
        if kind == 0:
            derived[nums[0]] = 1
    mapping = np.zeros(top + 2, np.int64)
    j = 0
    nxt = first_new
    for x in range(1, top + 1):
        if derived[x]:
            mapping[x] = nxt
            nxt += 1
        elif j < originals.size:
            mapping[x] = originals[j]
            j += 1
        else:
            mapping[x] = -1  # an ID neither given nor derived
    out = np.empty(size + size // 2 + 64, np.uint8)
    n = 0
    last = first_new - 1
    pos = 0
    while pos < size:
        pos, kind, nums = _lrat_line(text, pos)
        if kind < 0:
            continue
        out = grow(out, n + 24 * nums.size + 32)
        if kind == 1:
            n = put_int(out, n, last)
            out[n] = 32
            out[n + 1] = 100
            n += 2
            for k in range(1, nums.size):
                y = mapping[nums[k]] if nums[k] > 0 else 0
                if nums[k] > 0 and y < 0:
                    return np.empty(0, np.uint8), -1
                out[n] = 32
                n = put_int(out, n + 1, y)
        else:
            last = mapping[nums[0]]
            n = put_int(out, n, last)
            z = 1
            while z < nums.size and nums[z] != 0:
                out[n] = 32
                n = put_int(out, n + 1, nums[z])
                z += 1
            out[n] = 32
            out[n + 1] = 48
            n += 2
            for k in range(z + 1, nums.size):
                x = nums[k]
                if x == 0:
                    break
                y = mapping[abs(x)]
                if y < 0:
                    return np.empty(0, np.uint8), -1
                out[n] = 32
                n = put_int(out, n + 1, -y if x < 0 else y)
            out[n] = 32
            out[n + 1] = 48
            n += 2
        out[n] = 10
        n += 1
    return out, n


def renumber_lrat(text: str, originals: Sequence[int], first_new: int) -> str | None:
    """A SAT solver's text LRAT with its clause IDs renumbered into another numbering
    (literals unchanged).

    CaDiCaL numbers the clauses it is given and the clauses it derives from one counter: a
    clause given with a literal already false at the root is strengthened as it is added (a
    derived clause, whose ID comes between the given ones).  So the IDs of the derived clauses
    are those its LRAT adds, and every other ID, in increasing order, is the next clause it was
    given.  Given clause ``j`` (0-based) becomes ``originals[j]``; derived clauses become
    ``first_new, first_new + 1, ...`` in their order; a deletion line's own ID becomes the last
    derived clause's.  Used to put the solver's LRAT after that of the lemmas it was given
    (and to undo the interleaving even when it was given the formula alone).

    Returns
    -------
    str or None
        ``None`` when an ID is neither given nor derived (the numbering is not CaDiCaL's; the
        caller then makes the LRAT another way).

    Examples
    --------
    >>> print(renumber_lrat("4 1 0 1 3 0\\n4 d 3 0\\n5 0 4 2 0\\n", [1, 2, 7], 10), end="")
    10 1 0 1 7 0
    10 d 7 0
    11 0 10 2 0
    """
    data = np.frombuffer(text.encode("ascii"), np.uint8)
    out, n = _renumber(data, np.asarray(list(originals), np.int64), int(first_new))
    if n < 0:
        return None
    return out[:n].tobytes().decode("ascii")


stamp_module(globals())
