"""nonosat's own LRAT checker: compiled, streamed, bounded in memory and in input size.

A refutation certificate is only as good as its checker.  This module checks a text LRAT proof
of a DIMACS CNF from the definition of LRAT alone (Cruz-Filipe, Heule, Hunt, Kaufmann,
Schneider-Kamp, "Efficient Certified RAT Verification", CADE 2017; the text format that
drat-trim ``-L`` and cake_lpr read), and shares no code with the proof writer
(:mod:`~nonosat.certificates.rup`, :mod:`~nonosat.certificates.native_proof`,
:mod:`~nonosat.certificates.prove`): a bug there cannot hide itself here.

What is checked
---------------
The CNF's clauses get the IDs ``1..m`` in file order.  The proof is a sequence of lines:

``ID lit ... 0 hint ... 0``
    adds the clause ``lit ...`` under the new ``ID``.  The step is checked as **RUP along the
    hints, in order**: the negation of every literal of the clause is assigned; each hint must
    name a live clause that is then *unit* (all its literals false but one, which is then
    assigned true, or is already true) or *falsified* (all literals false: a conflict, and the
    step checks), as cake_lpr counts them.  A hint clause with two or more literals that are not
    false fails the step, and so does running out of hints without a conflict.
``ID d id ... 0``
    deletes the clauses ``id ...`` (the line's own ``ID`` is not a clause; drat-trim writes the
    last clause's ID there, and it is read and otherwise ignored).

Rules beyond RUP (each one a way a forged proof could otherwise pass):

* a new clause's ID is strictly greater than every clause ID so far (CNF and proof);
* a hint names a live clause: one that exists, came earlier and is not deleted; so does a
  deletion (deleting an unknown or already deleted ID is an error);
* **RAT is refused**: a negative hint (RAT witness) fails the step with a reason.  nonosat's
  proofs are RUP only (the native prover's lemmas and CaDiCaL's proofs through drat-trim ``-L``
  never need RAT), and RUP is all this checker implements;
* a lemma that holds a literal and its negation (a tautology) is refused;
* **fresh variables are refused**: every literal of a lemma is on one of the CNF header's
  variables.  A RUP lemma may in principle hold a variable no clause mentions, but it gives
  nothing (RUP never needs it; only RAT and extended resolution introduce variables, and
  nonosat's proofs have neither), so a fresh literal can only be corruption or a forgery such as
  the stale-trail proof of ``docs/proof-checking.md``.  Refusing them is sound and keeps the
  assignment one byte per CNF variable;
* the proof is accepted only when every line checks **and** it adds the empty clause;
* anything malformed (an empty line, a missing terminating ``0``, a number that is not one, a
  number past 2**62, a new clause ID or a literal past 2**31 - 1, trailing text, binary data) is
  refused with a reason naming the line.  The CNF is read as strictly (header ``p cnf V C``, ``c`` comments, exactly
  ``C`` clauses, literals within ``V``).

Modules
-------
This module holds the rules; :mod:`~nonosat.certificates.lrat_store` the clause store (growth,
compaction, the CNF loaded into it); :mod:`~nonosat.certificates.lrat_read` reads the files
(chunks, the tokeniser, the CNF) and :mod:`~nonosat.certificates.lrat_agree` checks that a DRAT
and an LRAT proof agree.

Streaming and bounds
--------------------
Both files are read in chunks of :data:`~nonosat.certificates.lrat_read.CHUNK_BYTES`; each chunk
is parsed and checked by compiled kernels (numba) without building Python objects per clause.  Live clauses are kept in
flat arrays sorted by ID (IDs only grow, so appending keeps them sorted; lookup is a binary
search); deleted clauses are dropped by compaction when they are more than half the store, so
memory is linear in the live clauses and the longest line, not in the file.  A ``deadline``
(a :func:`time.perf_counter` value) is checked between chunks.  A file larger than
``NONOSAT_MAX_PROOF_BYTES`` (:func:`nonosat.limits.max_proof_bytes`) is refused before it is
read, with :class:`ProofTooLargeError`.

Hints are checked as they are read, never stored; the CNF is read token by token.  Measured
peak memory of a whole process (``benchmarks/bench_lrat_check.py``, ``docs/proof-checking.md``):
flat on a 1 GiB proof whose lemmas are deleted after use, under 1 GB on the worst proofs the
default limit lets through.

:func:`lemmas_agree` streams a DRAT and an LRAT proof together and checks that they tell the
same refutation (a certificate's two proof files must): both add the empty clause, and the
LRAT's clauses are drat-trim's trimmed subsequence of the DRAT's lemmas, or the DRAT's lemmas
are a subsequence of the LRAT's with nonosat's materialised unit lemmas between them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nonosat.lazy_jit import njit

# The agreement check and the reader's error are part of this checker's public face.
from nonosat.certificates.lrat_agree import lemmas_agree
from nonosat.certificates.lrat_read import (
    _DONE,
    _E_DELETE_UNKNOWN,
    _E_EMPTY_LINE,
    _E_FRESH,
    _E_HINT_DEAD,
    _E_HINT_FORWARD,
    _E_HINT_NOT_UNIT,
    _E_HINT_SATISFIED,
    _E_ID_ORDER,
    _E_ID_RANGE,
    _E_LITERAL,
    _E_NO_CONFLICT,
    _E_RAT,
    _E_SYNTAX,
    _E_TAUTOLOGY,
    _E_TRAILING,
    _E_UNTERMINATED,
    _E_ZERO_ID,
    _ERROR,
    _MAX_LITERAL,
    _NEED_CLAUSES,
    _NEED_LITS,
    _S_DEADCL,
    _S_DEADLIT,
    _S_DELS,
    _S_EMPTY,
    _S_ERR,
    _S_ERR_A,
    _S_ERR_B,
    _S_LEMMAS,
    _S_LINE,
    _S_MAXID,
    _S_NCL,
    _S_NEED,
    _S_NLIT,
    _S_NVARS,
    _S_POS,
    ProofTooLargeError,
    _check_deadline,
    _Failure,
    _is_space,
    _line_end,
    _line_head,
    _lines,
    _literals,
    _next,
    _number,
    _open_source,
    _size_limit,
    _skip,
)
from nonosat.certificates.lrat_store import _load_cnf, _run, _Store
from nonosat.kernel_cache import stamp_module

__all__ = ["CHECKER_NAME", "CHECKER_VERSION", "LratCheck", "ProofTooLargeError", "check_lrat",
           "lemmas_agree"]

#: Name of this checker in ``certificate.json`` and ``--json``.
CHECKER_NAME = "nonosat-lrat"
#: Version of the checking rules; changes whenever a rule changes.
CHECKER_VERSION = "1"

@dataclass
class LratCheck:
    """Verdict of :func:`check_lrat`.

    Attributes
    ----------
    ok : bool
        Every line checks and the proof adds the empty clause.
    reason : str
        ``"verified"``, or the first failing step (``"line N: ..."``; ``"CNF line N: ..."``
        for the formula).
    lemmas : int
        Clauses the proof added (up to the failing line).
    deletions : int
        Clause IDs the proof deleted.
    time_s : float
        Wall-clock seconds of the check (reading included).
    timed_out : bool
        The deadline passed before the check finished (then ``ok`` is false).
    """

    ok: bool
    reason: str
    lemmas: int
    deletions: int
    time_s: float
    timed_out: bool = False

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form, with the checker's name and version."""
        return {"checker": CHECKER_NAME, "version": CHECKER_VERSION, "ok": self.ok,
                "reason": self.reason, "lemmas": self.lemmas, "deletions": self.deletions,
                "time_s": round(self.time_s, 6), "timed_out": self.timed_out}



@njit(cache=True, nogil=True)
def _find(cid, ncl, ident):
    """Slot of clause ``ident`` in ``cid[:ncl]`` (sorted), or -1."""
    lo = 0
    hi = ncl
    # IDs are often dense: try the slot the ID would have without gaps first
    if ncl > 0:
        guess = ident - cid[0]
        if 0 <= guess < ncl and cid[guess] == ident:
            return guess
    while lo < hi:
        mid = (lo + hi) >> 1
        if cid[mid] < ident:
            lo = mid + 1
        else:
            hi = mid
    if lo < ncl and cid[lo] == ident:
        return lo
    return -1


@njit(cache=True, nogil=True)
def _undo(val, trail, t):
    for i in range(t):
        val[trail[i]] = 0


@njit(cache=True, nogil=True)
def _lrat_lines(buf, start, end, st, cid, cstart, clen, lits, val, trail):
    """Check the complete lines of ``buf[start:end]`` (text LRAT) against the clause store.

    ``cid``/``cstart``/``clen`` hold the clauses by increasing ID (``clen < 0``: deleted, the
    literal count being ``-clen - 1``), ``lits`` their literals, ``val`` the assignment per
    variable (0 unassigned, 1 true, -1 false; all 0 between steps), ``trail`` the variables
    assigned in the current step (at most one entry per variable).  Hints are processed as they
    are read, never stored.  Returns a status: ``_DONE`` (all consumed), a ``_NEED_*`` status
    (``st[_S_POS]`` is the line to resume at, ``st[_S_NEED]`` the capacity needed) or
    ``_ERROR`` (``st[_S_ERR]``, details in ``st[_S_ERR_A]``/``st[_S_ERR_B]``)."""
    nvars = st[_S_NVARS]
    p = start
    while p < end:
        line_start = p
        line_end = _line_end(buf, p, end)
        ncl = st[_S_NCL]
        nlit = st[_S_NLIT]
        if ncl >= cid.shape[0]:
            st[_S_POS] = line_start
            st[_S_NEED] = ncl + 1
            return _NEED_CLAUSES
        st[_S_LINE] += 1
        ident, deletion, p = _line_head(buf, p, line_end, st, True)
        if p < 0:
            return _ERROR
        if deletion:
            while True:
                target, p = _next(buf, p, line_end, st)
                if p < 0:
                    return _ERROR
                if target == 0:
                    break
                slot = _find(cid, ncl, target) if target > 0 else -1
                if slot < 0 or clen[slot] < 0:
                    st[_S_ERR] = _E_DELETE_UNKNOWN
                    st[_S_ERR_A] = target
                    return _ERROR
                st[_S_DEADLIT] += clen[slot]
                clen[slot] = -clen[slot] - 1
                st[_S_DEADCL] += 1
                st[_S_DELS] += 1
        else:
            if ident > _MAX_LITERAL:
                st[_S_ERR] = _E_ID_RANGE
                st[_S_ERR_A] = ident
                return _ERROR
            if ident <= st[_S_MAXID]:
                st[_S_ERR] = _E_ID_ORDER
                st[_S_ERR_A] = ident
                st[_S_ERR_B] = st[_S_MAXID]
                return _ERROR
            # the clause's literals, straight into the store (kept only if the step checks)
            k, p = _literals(buf, p, line_end, st, lits, nlit, nvars, line_start)
            if p < 0:  # an error, or no room (grow, then read this line again)
                return _ERROR if p == -1 else _NEED_LITS
            # RUP along the hints: assign the negation of the clause ...
            t = 0
            for i in range(k):
                lit = lits[nlit + i]
                var = lit if lit > 0 else -lit
                want = -1 if lit > 0 else 1
                if val[var] == want:
                    continue
                if val[var] == -want:
                    _undo(val, trail, t)
                    st[_S_ERR] = _E_TAUTOLOGY
                    st[_S_ERR_A] = var
                    return _ERROR
                val[var] = want
                trail[t] = var
                t += 1
            # ... then each hint, as it is read, must be unit (assign it) or falsified
            conflict = False
            status = 0
            nhint = 0
            while True:
                hint, p = _next(buf, p, line_end, st)
                if p < 0:
                    status = st[_S_ERR]
                    break
                if hint == 0:
                    break
                nhint += 1
                if hint < 0:
                    status = _E_RAT
                    st[_S_ERR_A] = hint
                    break
                slot = _find(cid, ncl, hint)
                if slot < 0 or clen[slot] < 0:
                    status = _E_HINT_FORWARD if hint >= ident else _E_HINT_DEAD
                    st[_S_ERR_A] = hint
                    st[_S_ERR_B] = ident
                    break
                if conflict:  # hints after the conflict: only checked to be live clauses
                    continue
                base = cstart[slot]
                # the literals not false under the assignment (true or unassigned), as
                # cake_lpr counts them: none is a conflict, one is a unit (assigned true, or
                # already true: nothing to do), two or more fail the step
                nonfalse = 0
                last = 0
                satisfied = False
                for i in range(clen[slot]):
                    lit = lits[base + i]
                    v = val[lit if lit > 0 else -lit]
                    if v == 0 or (v > 0) == (lit > 0):
                        if nonfalse == 0 or lit != last:
                            nonfalse += 1
                            last = lit
                        if v != 0:
                            satisfied = True
                if nonfalse == 0:
                    conflict = True
                elif nonfalse == 1:
                    var = last if last > 0 else -last
                    if val[var] == 0:
                        val[var] = 1 if last > 0 else -1
                        trail[t] = var
                        t += 1
                else:
                    status = _E_HINT_SATISFIED if satisfied else _E_HINT_NOT_UNIT
                    st[_S_ERR_A] = hint
                    st[_S_ERR_B] = nhint
                    break
            _undo(val, trail, t)
            if status == 0 and not conflict:
                status = _E_NO_CONFLICT
            if status != 0:
                st[_S_ERR] = status
                return _ERROR
            cid[ncl] = ident
            cstart[ncl] = nlit
            clen[ncl] = k
            st[_S_NCL] = ncl + 1
            st[_S_NLIT] = nlit + k
            st[_S_MAXID] = ident
            st[_S_LEMMAS] += 1
            if k == 0 and st[_S_EMPTY] == 0:
                st[_S_EMPTY] = st[_S_LINE]
        p = _skip(buf, p, line_end)
        if p < line_end:
            st[_S_ERR] = _E_TRAILING
            return _ERROR
        p = line_end + 1
    st[_S_POS] = end
    return _DONE


def check_lrat(
    cnf: str | os.PathLike[str] | Sequence[Sequence[int]],
    lrat: str | bytes | os.PathLike[str],
    *,
    nvars: int | None = None,
    deadline: float | None = None,
    max_bytes: int | None = None,
) -> LratCheck:
    """Check that the text LRAT proof ``lrat`` refutes the CNF ``cnf`` (rules: module docstring).

    Parameters
    ----------
    cnf : str, os.PathLike or sequence of sequence of int
        A DIMACS file (path), or the clauses themselves (IDs 1..m in order; then ``nvars`` is
        required).
    lrat : str, bytes or os.PathLike
        The proof: a path (``os.PathLike``, or a ``str`` without a line break), or its text
        (``bytes``, or a ``str`` holding a line break).
    nvars : int, optional
        Variables of ``cnf`` when it is given as clauses.
    deadline : float, optional
        A :func:`time.perf_counter` value; checked between chunks.  Past it the verdict is
        ``ok=False, timed_out=True``.
    max_bytes : int, optional
        Largest file (CNF or proof) read; default :func:`nonosat.limits.max_proof_bytes`.

    Returns
    -------
    LratCheck
        The verdict; ``reason`` names the first failing line.

    Raises
    ------
    ProofTooLargeError
        A file over the size limit (refused before it is read).
    FormatError
        A file that cannot be opened.

    Notes
    -----
    Time linear in the proof's size plus, per hint, a binary search over the live clauses and
    a scan of the hint clause; memory linear in the live clauses and the longest line.
    """
    start = time.perf_counter()
    limit = _size_limit(max_bytes)
    store = _Store()
    st = store.st
    _, chunks = _open_source(lrat, limit, "lrat")  # a proof over the limit: refused first
    try:
        _load_cnf(store, cnf, nvars, limit, deadline)
        for buf, end in _lines(chunks):
            _check_deadline(deadline, f"checking (line {int(st[_S_LINE])})")
            _run(_lrat_lines, store, buf, end, with_val=True)
            store.maybe_compact()
        if st[_S_EMPTY] == 0:
            raise _Failure(f"line {int(st[_S_LINE])}: the proof never adds the empty clause")
    except _Failure as failure:
        return LratCheck(False, failure.reason, int(st[_S_LEMMAS]), int(st[_S_DELS]),
                         time.perf_counter() - start, failure.timed_out)
    return LratCheck(True, "verified", int(st[_S_LEMMAS]), int(st[_S_DELS]),
                     time.perf_counter() - start)


stamp_module(globals())
