"""Whether a certificate's DRAT and LRAT proofs tell the same refutation (:func:`lemmas_agree`),
streamed together through compiled kernels; part of nonosat's LRAT checker
(:mod:`nonosat.certificates.lrat_check`), reading with :mod:`nonosat.certificates.lrat_read`."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from nonosat.certificates.lrat_read import (
    _DONE,
    _E_BAD_CHAR,
    _E_TRAILING,
    _ERROR,
    _MAX_LITERAL,
    _NEED_CLAUSES,
    _NEED_LITS,
    _S_EMPTY,
    _S_ERR,
    _S_ERR_A,
    _S_ERR_B,
    _S_LEN,
    _S_LINE,
    _S_NCL,
    _S_NEED,
    _S_NLIT,
    _S_POS,
    _check_deadline,
    _Failure,
    _grown,
    _line_end,
    _line_head,
    _lines,
    _literals,
    _message,
    _next,
    _open_source,
    _size_limit,
    _skip,
)
from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit


@njit(cache=True, nogil=True)
def _added_lines(buf, start, end, st, lrat, flat, offs, where):
    """The clauses added by the complete lines of ``buf[start:end]``: text LRAT (``lrat``;
    ``ID lits 0 hints 0``, deletions skipped) or text DRAT (``lits 0``, ``d lits 0`` skipped).
    Each clause's literals go to ``flat`` sorted and without repeats, ``offs[i]:offs[i + 1]``
    is clause ``i`` (``st[_S_NCL]`` of them so far), ``where[i]`` its line.  Statuses as
    :func:`_lrat_lines` (``_NEED_LITS`` asks for ``flat``, ``_NEED_CLAUSES`` for ``offs`` and
    ``where``)."""
    p = start
    while p < end:
        line_start = p
        line_end = _line_end(buf, p, end)
        ncl = st[_S_NCL]
        nlit = st[_S_NLIT]
        if ncl + 2 > offs.shape[0]:
            st[_S_POS] = line_start
            st[_S_NEED] = ncl + 2
            return _NEED_CLAUSES
        st[_S_LINE] += 1
        _, deletion, p = _line_head(buf, p, line_end, st, lrat)
        if p < 0:
            return _ERROR
        k, p = _literals(buf, p, line_end, st, flat, nlit, _MAX_LITERAL, line_start)
        if p < 0:  # an error, or no room (grow, then read this line again)
            return _ERROR if p == -1 else _NEED_LITS
        if lrat and not deletion:
            while True:
                hint, p = _next(buf, p, line_end, st)
                if p < 0:
                    return _ERROR
                if hint == 0:
                    break
        p = _skip(buf, p, line_end)
        if p < line_end:
            st[_S_ERR] = _E_TRAILING
            return _ERROR
        if not deletion:
            part = np.sort(flat[nlit:nlit + k])
            w = 0
            for i in range(k):
                if i == 0 or part[i] != part[i - 1]:
                    flat[nlit + w] = part[i]
                    w += 1
            offs[ncl] = nlit
            offs[ncl + 1] = nlit + w
            where[ncl] = st[_S_LINE]
            st[_S_NCL] = ncl + 1
            st[_S_NLIT] = nlit + w
            if w == 0 and st[_S_EMPTY] == 0:
                st[_S_EMPTY] = st[_S_LINE]
        p = line_end + 1
    st[_S_POS] = end
    return _DONE


@njit(cache=True, nogil=True)
def _subset(a_flat, a0, la, b_flat, b0, lb):
    """Whether the sorted literals ``a_flat[a0:a0 + la]`` are among ``b_flat[b0:b0 + lb]``."""
    if la > lb:
        return False
    j = 0
    for i in range(la):
        x = a_flat[a0 + i]
        while j < lb and b_flat[b0 + j] < x:
            j += 1
        if j == lb or b_flat[b0 + j] != x:
            return False
        j += 1
    return True


@njit(cache=True, nogil=True)
def _trimmed(a_flat, a_offs, a_n, a_i, b_flat, b_offs, b_n, b_i):
    """drat-trim's relation: match each LRAT clause ``a_i..a_n`` to the next DRAT lemma
    (``b_i..b_n``) that holds all its literals (drat-trim ``-L`` leaves lemmas out and drops
    literals from the ones it keeps).  Greedy, the earliest match: it finds a matching whenever
    one exists.  Returns the new ``(a_i, b_i, failed)``; one of the first two is at its end."""
    while a_i < a_n and b_i < b_n:
        a0 = a_offs[a_i]
        b0 = b_offs[b_i]
        if _subset(a_flat, a0, a_offs[a_i + 1] - a0, b_flat, b0, b_offs[b_i + 1] - b0):
            a_i += 1
        b_i += 1
    return a_i, b_i, False


@njit(cache=True, nogil=True)
def _materialised(a_flat, a_offs, a_n, a_i, b_flat, b_offs, b_n, b_i):
    """nonosat's relation: every DRAT lemma (``b_i..b_n``) is the next LRAT clause
    (``a_i..a_n``) equal to it, and the LRAT clauses passed over are units (the level-0
    literals nonosat's LRAT writer gives unit lemmas of their own, before a lemma that is not
    the empty clause).  Returns the new ``(a_i, b_i, failed)``; ``failed`` when a clause of two
    or more literals, or the empty clause, would be passed over, or a unit before the DRAT's
    empty clause."""
    while a_i < a_n and b_i < b_n:
        a0 = a_offs[a_i]
        la = a_offs[a_i + 1] - a0
        b0 = b_offs[b_i]
        if b_offs[b_i + 1] - b0 == la and _subset(a_flat, a0, la, b_flat, b0, la):
            a_i += 1
            b_i += 1
        elif la == 1 and b_offs[b_i + 1] > b0:
            a_i += 1
        else:  # a clause of two or more literals, the empty clause, or a unit before it
            return a_i, b_i, True
    return a_i, b_i, False


class _Added:
    """The clauses a DRAT or LRAT proof adds, batch by batch (one batch per chunk)."""

    def __init__(self, source: Any, lrat: bool, limit: int, what: str):
        self.name, chunks = _open_source(source, limit, what)
        self.lrat = lrat
        self.what = what
        self.lines = _lines(chunks)
        self.st = np.zeros(_S_LEN, dtype=np.int64)
        self.flat = np.zeros(1 << 14, dtype=np.int32)
        self.offs = np.zeros(1 << 12, dtype=np.int64)
        self.where = np.zeros(1 << 12, dtype=np.int64)
        self.first = True
        self.count = 0  # clauses in the current batch
        self.done = False

    def next_batch(self, deadline: float | None) -> bool:
        """Read the next chunk's clauses; ``False`` at the end of the file."""
        while True:
            try:
                buf, end = next(self.lines)
            except StopIteration:
                self.done = True
                self.count = 0
                return False
            _check_deadline(deadline, f"reading the {self.what}")
            if self.first:
                self.first = False
                if not self.lrat and end and buf[0] == 0x61:  # 'a': binary DRAT's addition
                    raise _Failure(f"{self.what} line 1: binary DRAT is not supported "
                                   "(nonosat writes and reads text DRAT)")
            st = self.st
            st[_S_NCL] = 0
            st[_S_NLIT] = 0
            pos = 0
            while True:
                status = _added_lines(buf, pos, end, st, self.lrat, self.flat, self.offs,
                                      self.where)
                if status == _DONE:
                    break
                if status == _ERROR:
                    code = int(st[_S_ERR])
                    extra = (" (binary DRAT is not supported; nonosat reads text DRAT)"
                             if code == _E_BAD_CHAR and not self.lrat else "")
                    raise _Failure(f"{self.what} line {int(st[_S_LINE])}: "
                                   + _message(code, int(st[_S_ERR_A]), int(st[_S_ERR_B]))
                                   + extra)
                pos = int(st[_S_POS])
                need = int(st[_S_NEED])
                if status == _NEED_LITS:
                    self.flat = _grown(self.flat, max(need, 2 * self.flat.shape[0]))
                else:
                    self.offs = _grown(self.offs, max(need, 2 * self.offs.shape[0]))
                    self.where = _grown(self.where, self.offs.shape[0])
            self.count = int(st[_S_NCL])
            if self.count:
                return True


def lemmas_agree(
    drat: str | bytes | os.PathLike[str],
    lrat: str | bytes | os.PathLike[str],
    *,
    deadline: float | None = None,
    max_bytes: int | None = None,
) -> tuple[bool, str]:
    """Whether the DRAT and the LRAT proof tell the same refutation, so that a certificate's
    two proof files cannot come from different puzzles (a swapped pair).

    They agree when both add the empty clause and one of two relations holds (clauses compared
    as sets of literals):

    * **trimmed** (drat-trim ``-L``): the clauses the LRAT adds are, in order, a subsequence of
      the lemmas the DRAT adds, each one the DRAT lemma or that lemma with literals dropped
      (drat-trim leaves out the lemmas it does not need and removes literals from some it
      keeps: 4 of the 134 lemmas of taai2011 #3's certificate);
    * **materialised** (nonosat's own LRAT): the lemmas the DRAT adds up to its empty clause are,
      in order, a subsequence of the clauses the LRAT adds, and every LRAT clause between them
      is a unit (nonosat's LRAT writer gives level-0 literals unit lemmas of their own, e.g.
      8,651 of the 8,700 of webpbn #1611's).  Every DRAT lemma is then an LRAT lemma that
      :func:`check_lrat` checks.

    Parameters
    ----------
    drat, lrat : str, bytes or os.PathLike
        The proofs, as paths or text (as ``lrat`` of :func:`check_lrat`).  Text DRAT only: a
        binary DRAT proof is refused with a reason.
    deadline : float, optional
        A :func:`time.perf_counter` value, checked between chunks.
    max_bytes : int, optional
        Largest file read; default :func:`nonosat.limits.max_proof_bytes`.

    Returns
    -------
    (bool, str)
        Agreement and a reason (``"agree"``, or the first LRAT line not found, a parse error
        naming its file and line, or which proof lacks the empty clause).

    Raises
    ------
    ProofTooLargeError
        A file over the size limit.
    FormatError
        A file that cannot be opened.

    Notes
    -----
    Both files are streamed together; memory is one chunk's clauses of each.  Time linear in
    the two files (each comparison advances a pointer), twice when the first relation fails.
    """
    limit = _size_limit(max_bytes)
    ok, reason, mismatch = _agree(drat, lrat, _trimmed, limit, deadline)
    if ok or not mismatch:
        return ok, reason  # agreement, a file that does not parse, no empty clause, time
    ok, other, _ = _agree(drat, lrat, _materialised, limit, deadline)
    return (True, "agree") if ok else (False, f"{reason}; nor are the DRAT lemmas the LRAT's "
                                              f"own ({other})")


def _agree(drat: Any, lrat: Any, relation: Any, limit: int,
           deadline: float | None) -> tuple[bool, str, bool]:
    """One streamed pass of :func:`lemmas_agree` with ``relation`` (:func:`_trimmed`: the LRAT
    drives; :func:`_materialised`: the DRAT drives).  Returns ``(agree, reason, mismatch)``,
    ``mismatch`` when the lemmas differ (rather than a parse error, a missing empty clause or
    the deadline)."""
    trimmed = relation is _trimmed
    try:
        a = _Added(lrat, True, limit, "lrat")
        b = _Added(drat, False, limit, "drat")
        a_i = b_i = 0
        while True:
            if a_i >= a.count:
                if not a.next_batch(deadline):
                    if trimmed:
                        break  # every LRAT clause matched
                    if b_i >= b.count:
                        if not b.next_batch(deadline):
                            break  # every DRAT lemma matched (and the DRAT has no empty clause)
                        b_i = 0
                    return False, (f"drat line {int(b.where[b_i])}: a lemma that the LRAT "
                                   "proof does not add"), True
                a_i = 0
            if b_i >= b.count:
                if not b.next_batch(deadline):
                    if not trimmed:
                        break  # every DRAT lemma matched
                    return False, (f"lrat line {int(a.where[a_i])}: adds a clause that is not "
                                   "among the DRAT proof's lemmas (in order; literals may be "
                                   "dropped)"), True
                b_i = 0
            a_i, b_i, failed = relation(a.flat, a.offs, a.count, a_i, b.flat, b.offs, b.count,
                                        b_i)
            if failed:
                return False, (f"drat line {int(b.where[b_i])}: a lemma that the LRAT proof does "
                               f"not add where expected (lrat line {int(a.where[a_i])} "
                               "instead)"), True
            if not trimmed and b.st[_S_EMPTY] and b_i > 0 and b.where[b_i - 1] >= b.st[_S_EMPTY]:
                break  # every DRAT lemma up to its empty clause matched
        while a.st[_S_EMPTY] == 0 and a.next_batch(deadline):  # the rest of the LRAT proof
            pass
        if a.st[_S_EMPTY] == 0:
            return False, "the LRAT proof never adds the empty clause", False
        while b.st[_S_EMPTY] == 0 and b.next_batch(deadline):  # the rest of the DRAT proof
            pass
        if b.st[_S_EMPTY] == 0:
            return False, "the DRAT proof never adds the empty clause", False
    except _Failure as failure:
        return False, failure.reason, False
    return True, "agree", False


stamp_module(globals())
