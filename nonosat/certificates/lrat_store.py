"""The clause store of nonosat's LRAT checker: flat arrays by ID, growth, compaction, and the
CNF loaded into it.

:mod:`~nonosat.certificates.lrat_check` holds the checking rules (its kernel updates the store
that lives here); :mod:`~nonosat.certificates.lrat_read` reads the files.  Live clauses are kept
in flat arrays sorted by ID (IDs only grow, so appending keeps them sorted); deleted clauses
are dropped by compaction when they are more than half the store, so memory is linear in the
live clauses, not in the file.  Like the rest of the checker, this shares no code with the
proof writer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nonosat.certificates.lrat_read import (
    _DONE,
    _E_NO_HEADER,
    _E_TOO_MANY_VARS,
    _ERROR,
    _NEED_CLAUSES,
    _S_DEADCL,
    _S_DEADLIT,
    _S_DECL,
    _S_ERR,
    _S_ERR_A,
    _S_ERR_B,
    _S_HEADER,
    _S_LEN,
    _S_LINE,
    _S_MAXID,
    _S_NCL,
    _S_NEED,
    _S_NLIT,
    _S_NVARS,
    _S_OPEN,
    _S_POS,
    _S_TOKENS,
    MAX_VARS,
    _check_deadline,
    _cnf_lines,
    _Failure,
    _grown,
    _is_path,
    _lines,
    _message,
    _open_source,
)
from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit

#: First sizes of the clause store (clauses, literals); it doubles as needed (or compacts).
_INITIAL_CLAUSES = 1 << 12
_INITIAL_LITERALS = 1 << 14
#: Dead clauses (literals) tolerated beyond half the store before a compaction between chunks.
_COMPACT_SLACK = 1024


@njit(cache=True, nogil=True)
def _compact(st, cid, cstart, clen, lits):
    """Drop the deleted clauses from the store (keeping the order by ID)."""
    n = 0
    w = 0
    for s in range(st[_S_NCL]):
        if clen[s] < 0:
            continue
        base = cstart[s]
        for i in range(clen[s]):
            lits[w + i] = lits[base + i]
        cid[n] = cid[s]
        cstart[n] = w
        clen[n] = clen[s]
        w += clen[s]
        n += 1
    st[_S_NCL] = n
    st[_S_NLIT] = w
    st[_S_DEADCL] = 0
    st[_S_DEADLIT] = 0



# -- clause store --------------------------------------------------------------------------------
class _Store:
    """The clause store and checker state that the kernels update (numpy arrays)."""

    def __init__(self) -> None:
        clauses, literals = _INITIAL_CLAUSES, _INITIAL_LITERALS
        self.st = np.zeros(_S_LEN, dtype=np.int64)
        self.st[_S_OPEN] = -1
        self.cid = np.zeros(clauses, dtype=np.int64)
        self.cstart = np.zeros(clauses, dtype=np.int64)
        self.clen = np.zeros(clauses, dtype=np.int32)
        self.lits = np.zeros(literals, dtype=np.int32)
        self.val = np.zeros(1, dtype=np.int8)
        self.trail = np.zeros(1, dtype=np.int32)

    def make_room(self, status: int) -> None:
        """Compact, or grow the array a ``_NEED_*`` status asked for."""
        st = self.st
        need = int(st[_S_NEED])
        if st[_S_DEADCL] * 2 > st[_S_NCL] or st[_S_DEADLIT] * 2 > st[_S_NLIT]:
            dead_cl, dead_lit = int(st[_S_DEADCL]), int(st[_S_DEADLIT])
            _compact(st, self.cid, self.cstart, self.clen, self.lits)
            need -= dead_cl if status == _NEED_CLAUSES else dead_lit
            if need <= (self.cid if status == _NEED_CLAUSES else self.lits).shape[0]:
                return
        if status == _NEED_CLAUSES:
            size = max(need, 2 * self.cid.shape[0])
            self.cid = _grown(self.cid, size)
            self.cstart = _grown(self.cstart, size)
            self.clen = _grown(self.clen, size)
        else:
            self.lits = _grown(self.lits, max(need, 2 * self.lits.shape[0]))

    def maybe_compact(self) -> None:
        """Compact when deleted clauses are more than half the store."""
        st = self.st
        if (st[_S_DEADCL] * 2 > st[_S_NCL] + _COMPACT_SLACK
                or st[_S_DEADLIT] * 2 > st[_S_NLIT] + 4 * _COMPACT_SLACK):
            _compact(st, self.cid, self.cstart, self.clen, self.lits)


def _run(kernel, store: _Store, buf: np.ndarray, end: int, with_val: bool) -> None:
    """Run ``kernel`` over ``buf[:end]``, making room whenever it asks; raises
    :class:`_Failure` on an error (the CNF kernel counts the lines it has ended, the LRAT
    kernel the lines it has begun)."""
    pos = 0
    while True:
        st = store.st
        if with_val:
            status = kernel(buf, pos, end, st, store.cid, store.cstart, store.clen, store.lits,
                            store.val, store.trail)
        else:
            status = kernel(buf, pos, end, st, store.cid, store.cstart, store.clen, store.lits)
        if status == _DONE:
            return
        if status == _ERROR:
            raise _Failure(f"line {int(st[_S_LINE]) + (not with_val)}: "
                           + _message(int(st[_S_ERR]), int(st[_S_ERR_A]), int(st[_S_ERR_B])))
        pos = int(st[_S_POS])
        store.make_room(status)


def _load_cnf(store: _Store, cnf: Any, nvars: int | None, limit: int,
              deadline: float | None) -> None:
    """Fill the store with the CNF's clauses (IDs 1..m)."""
    st = store.st
    if _is_path(cnf):
        name, chunks = _open_source(cnf, limit, "cnf")
        try:
            for buf, end in _lines(chunks):
                _check_deadline(deadline, "reading the CNF")
                _run(_cnf_lines, store, buf, end, with_val=False)
        except _Failure as failure:
            if failure.timed_out:
                raise
            raise _Failure("CNF " + failure.reason) from None
        where = f"CNF line {int(st[_S_LINE]) + int(st[_S_TOKENS])}"
        if st[_S_HEADER] == 0:
            raise _Failure(f"{where}: " + _message(_E_NO_HEADER, 0, 0))
        if st[_S_OPEN] >= 0:
            raise _Failure(f"{where}: the last clause has no terminating 0")
        if st[_S_NCL] != st[_S_DECL]:
            raise _Failure(f"{where}: {int(st[_S_NCL])} clauses, the header says "
                           f"{int(st[_S_DECL])}")
    else:
        if nvars is None or nvars < 0:
            raise TypeError("check_lrat: nvars (>= 0) is required when the CNF is given as "
                            "clauses")
        if nvars > MAX_VARS:
            raise _Failure("CNF: " + _message(_E_TOO_MANY_VARS, nvars, 0))
        sizes = np.fromiter((len(c) for c in cnf), dtype=np.int64)
        flat = np.fromiter((lit for c in cnf for lit in c), dtype=np.int64, count=int(sizes.sum()))
        if flat.size and int(np.abs(flat).max()) > nvars or (flat == 0).any():
            raise _Failure(f"CNF: a literal is 0 or outside the {nvars} variables")
        m = sizes.shape[0]
        store.cid = np.arange(1, m + 1, dtype=np.int64)
        store.cstart = np.zeros(m, dtype=np.int64)
        if m:
            store.cstart[1:] = np.cumsum(sizes)[:-1]
        store.clen = sizes.astype(np.int32)
        store.lits = flat.astype(np.int32)
        st[_S_NCL] = m
        st[_S_NLIT] = flat.size
        st[_S_MAXID] = m
        st[_S_NVARS] = nvars
    store.val = np.zeros(int(st[_S_NVARS]) + 1, dtype=np.int8)
    store.trail = np.zeros(int(st[_S_NVARS]) + 1, dtype=np.int32)
    st[_S_LINE] = 0

stamp_module(globals())
