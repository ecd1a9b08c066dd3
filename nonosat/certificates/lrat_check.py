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

Streaming and bounds
--------------------
Both files are read in chunks of :data:`CHUNK_BYTES`; each chunk is parsed and checked by
compiled kernels (numba) without building Python objects per clause.  Live clauses are kept in
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
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from nonosat.errors import NonosatError, one_line
from nonosat.kernel_cache import stamp_module

#: Name of this checker in ``certificate.json`` and ``--json``.
CHECKER_NAME = "nonosat-lrat"
#: Version of the checking rules; changes whenever a rule changes.
CHECKER_VERSION = "1"

#: Bytes read from a file at a time.
CHUNK_BYTES = 8 << 20
#: First sizes of the clause store (clauses, literals); it doubles as needed (or compacts).
_INITIAL_CLAUSES = 1 << 12
_INITIAL_LITERALS = 1 << 14
#: Dead clauses (literals) tolerated beyond half the store before a compaction between chunks.
_COMPACT_SLACK = 1024
#: Largest CNF header variable count: the assignment takes one byte per variable and the trail
#: four (both allocated zeroed, so only the pages of variables in use become resident).
MAX_VARS = 1 << 28

# -- kernel status and error codes ---------------------------------------------------------------
_DONE = 0
_NEED_CLAUSES = 1
_NEED_LITS = 2
_ERROR = 4

# state vector (int64) slots
_S_NCL = 0  # clause slots used (live and dead)
_S_NLIT = 1  # literal slots used
_S_DEADCL = 2  # dead clause slots
_S_DEADLIT = 3  # literal slots of dead clauses
_S_MAXID = 4  # largest clause ID so far
_S_LEMMAS = 5  # clauses added by the proof
_S_DELS = 6  # clause IDs deleted
_S_LINE = 7  # lines read so far
_S_EMPTY = 8  # line that added the empty clause (0: none yet)
_S_ERR = 9  # error code
_S_ERR_A = 10  # error details
_S_ERR_B = 11
_S_NEED = 12  # capacity asked for with a _NEED_* status
_S_POS = 13  # where the kernel stopped
_S_NVARS = 14  # variables of the CNF
_S_HEADER = 15  # CNF: 1 once "p cnf" was read
_S_DECL = 16  # CNF: clause count of the header
_S_OPEN = 17  # CNF: literals of the clause being read (-1: none open)
_S_TOKENS = 18  # CNF: 1 once the current line has had a token
_S_LEN = 19

_E_SYNTAX = 1
_E_EMPTY_LINE = 2
_E_NUMBER = 3
_E_LITERAL = 4
_E_UNTERMINATED = 5
_E_TRAILING = 6
_E_ID_ORDER = 7
_E_DELETE_UNKNOWN = 8
_E_RAT = 9
_E_HINT_FORWARD = 10
_E_HINT_DEAD = 11
_E_HINT_SATISFIED = 12
_E_HINT_NOT_UNIT = 13
_E_FRESH = 14
_E_NO_CONFLICT = 15
_E_TAUTOLOGY = 16
_E_BAD_CHAR = 17
_E_ZERO_ID = 18
_E_ID_RANGE = 19
# CNF
_E_NO_HEADER = 30
_E_HEADER = 31
_E_CNF_LITERAL = 32
_E_TOO_MANY_CLAUSES = 33
_E_TOO_MANY_VARS = 34

_MAX_NUMBER = 1 << 62
_MAX_LITERAL = (1 << 31) - 1


def _message(code: int, a: int, b: int) -> str:
    """The reason for error ``code`` with details ``a``, ``b`` (without the line)."""
    return {
        _E_SYNTAX: "expected a number, found something else",
        _E_EMPTY_LINE: "empty line",
        _E_NUMBER: f"number too large (over {_MAX_NUMBER})",
        _E_LITERAL: f"literal too large (over {_MAX_LITERAL})",
        _E_UNTERMINATED: "the line ends before its terminating 0",
        _E_TRAILING: "text after the terminating 0",
        _E_ID_ORDER: f"clause ID {a} is not greater than every earlier ID (largest so far {b})",
        _E_DELETE_UNKNOWN: f"deletes clause {a}, which is not a live clause (never added, or "
        "already deleted)",
        _E_RAT: f"negative hint {a}: RAT steps are not supported (nonosat's proofs are RUP)",
        _E_HINT_FORWARD: f"hint {a} points at a clause not yet added (this step's ID is {b})",
        _E_HINT_DEAD: f"hint {a} is not a live clause (deleted, or never added)",
        _E_HINT_SATISFIED: f"hint {a} is satisfied by the assignment and has another literal "
        f"not false, so it is not unit (hint #{b})",
        _E_HINT_NOT_UNIT: f"hint {a} has two unassigned literals, neither unit nor falsified "
        f"(hint #{b})",
        _E_FRESH: f"literal {a} is outside the CNF's {b} variables (fresh variables are not "
        "supported: RUP never needs them)",
        _E_NO_CONFLICT: "the hints end without a conflict: the clause is not RUP along them",
        _E_TAUTOLOGY: f"the clause holds both {a} and -{a}",
        _E_BAD_CHAR: f"unexpected byte {a:#04x} (text LRAT/DRAT/DIMACS only)",
        _E_ZERO_ID: "clause ID 0 (IDs are positive)",
        _E_ID_RANGE: f"clause ID {a} is past {_MAX_LITERAL} (2**31 - 1: drat-trim's IDs are 32-bit "
        "integers)",
        _E_NO_HEADER: "no 'p cnf VARIABLES CLAUSES' header before the clauses",
        _E_HEADER: "malformed 'p cnf VARIABLES CLAUSES' header",
        _E_CNF_LITERAL: f"literal {a} outside the header's {b} variables",
        _E_TOO_MANY_CLAUSES: f"more clauses than the header's {a}",
        _E_TOO_MANY_VARS: f"{a} variables: the checker's limit is {MAX_VARS}",
    }.get(code, f"error {code}")


class ProofTooLargeError(NonosatError):
    """A proof (or CNF) file above the size limit, refused before it is read.

    The message is one line: the file, its size, the limit and the environment variable that
    raises it (``NONOSAT_MAX_PROOF_BYTES``).
    """

    def __init__(self, path: str, size: int, limit: int):
        from nonosat.limits import ENV_MAX_PROOF_BYTES

        self.path, self.size, self.limit = path, size, limit
        super().__init__(one_line(
            f"{path}: {size} bytes is over the proof size limit of {limit} bytes "
            f"(raise it with {ENV_MAX_PROOF_BYTES})"))


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


# -- kernels -------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _is_space(c: int) -> bool:
    return c == 32 or c == 9 or c == 13  # cake_lpr does not take \v or \f as spaces


@njit(cache=True, nogil=True)
def _number(buf, p, e, st):
    """Parse an integer at ``buf[p]`` (optional ``-``, digits) ending at a space or ``e``.
    Returns ``(value, next position)``; on error sets ``st[_S_ERR]`` and returns position -1."""
    neg = False
    if p < e and buf[p] == 45:
        neg = True
        p += 1
    if p >= e or buf[p] < 48 or buf[p] > 57:
        st[_S_ERR] = _E_SYNTAX if p >= e or buf[p] < 128 and buf[p] >= 32 else _E_BAD_CHAR
        st[_S_ERR_A] = buf[p] if p < e else 0
        return 0, -1
    value = 0
    while p < e and buf[p] >= 48 and buf[p] <= 57:
        if value > _MAX_NUMBER // 10:  # checked before the product, which could wrap around
            st[_S_ERR] = _E_NUMBER
            return 0, -1
        value = value * 10 + (buf[p] - 48)
        if value > _MAX_NUMBER:
            st[_S_ERR] = _E_NUMBER
            return 0, -1
        p += 1
    if p < e and not _is_space(buf[p]) and buf[p] != 10:
        st[_S_ERR] = _E_SYNTAX if buf[p] < 128 and buf[p] >= 32 else _E_BAD_CHAR
        st[_S_ERR_A] = buf[p]
        return 0, -1
    if neg:
        if value == 0:
            st[_S_ERR] = _E_SYNTAX
            st[_S_ERR_A] = 45
            return 0, -1
        value = -value
    return value, p


@njit(cache=True, nogil=True)
def _skip(buf, p, e):
    while p < e and _is_space(buf[p]):
        p += 1
    return p


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
        q = p
        while q < end and buf[q] != 10:
            q += 1
        line_end = q
        ncl = st[_S_NCL]
        nlit = st[_S_NLIT]
        if ncl >= cid.shape[0]:
            st[_S_POS] = line_start
            st[_S_NEED] = ncl + 1
            return _NEED_CLAUSES
        st[_S_LINE] += 1
        p = _skip(buf, p, line_end)
        if p >= line_end:
            st[_S_ERR] = _E_EMPTY_LINE
            return _ERROR
        ident, p = _number(buf, p, line_end, st)
        if p < 0:
            return _ERROR
        if ident <= 0:
            st[_S_ERR] = _E_ZERO_ID if ident == 0 else _E_SYNTAX
            st[_S_ERR_A] = 45
            return _ERROR
        p = _skip(buf, p, line_end)
        if p < line_end and buf[p] == 100:  # 'd': deletion
            p += 1
            if p < line_end and not _is_space(buf[p]):
                st[_S_ERR] = _E_SYNTAX
                st[_S_ERR_A] = buf[p]
                return _ERROR
            while True:
                p = _skip(buf, p, line_end)
                if p >= line_end:
                    st[_S_ERR] = _E_UNTERMINATED
                    return _ERROR
                target, p = _number(buf, p, line_end, st)
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
            k = 0
            while True:
                p = _skip(buf, p, line_end)
                if p >= line_end:
                    st[_S_ERR] = _E_UNTERMINATED
                    return _ERROR
                lit, p = _number(buf, p, line_end, st)
                if p < 0:
                    return _ERROR
                if lit == 0:
                    break
                if lit > nvars or -lit > nvars:
                    st[_S_ERR] = _E_LITERAL if lit > _MAX_LITERAL or -lit > _MAX_LITERAL \
                        else _E_FRESH
                    st[_S_ERR_A] = lit
                    st[_S_ERR_B] = nvars
                    return _ERROR
                if nlit + k >= lits.shape[0]:  # no room: grow, then read this line again
                    st[_S_LINE] -= 1
                    st[_S_POS] = line_start
                    st[_S_NEED] = nlit + 2 * k + 16
                    return _NEED_LITS
                lits[nlit + k] = lit
                k += 1
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
                p = _skip(buf, p, line_end)
                if p >= line_end:
                    status = _E_UNTERMINATED
                    break
                hint, p = _number(buf, p, line_end, st)
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


@njit(cache=True, nogil=True)
def _cnf_lines(buf, start, end, st, cid, cstart, clen, lits):
    """Read ``buf[start:end]`` (DIMACS CNF, complete lines) into the clause store (IDs 1, 2, ...
    in order), token by token: ``st[_S_OPEN]`` carries a clause that spans lines,
    ``st[_S_LINE]`` counts the lines ended, ``st[_S_TOKENS]`` whether the current line has had
    a token.  Statuses as :func:`_lrat_lines`; a ``_NEED_*`` status resumes at the token
    ``st[_S_POS]``."""
    p = start
    while p < end:
        c = buf[p]
        if c == 10:
            st[_S_LINE] += 1
            st[_S_TOKENS] = 0
            p += 1
            continue
        if _is_space(c):
            p += 1
            continue
        if st[_S_TOKENS] == 0 and (c == 99 or c == 112):
            line_end = p
            while line_end < end and buf[line_end] != 10:
                line_end += 1
        if st[_S_TOKENS] == 0 and c == 99:  # 'c': a comment line
            p = line_end
            continue
        if st[_S_TOKENS] == 0 and c == 112:  # 'p cnf V C'
            if st[_S_HEADER] != 0 or st[_S_NCL] > 0 or st[_S_OPEN] >= 0:
                st[_S_ERR] = _E_HEADER
                return _ERROR
            p = _skip(buf, p + 1, line_end)
            if (p + 3 > line_end or buf[p] != 99 or buf[p + 1] != 110 or buf[p + 2] != 102
                    or (p + 3 < line_end and not _is_space(buf[p + 3]))):
                st[_S_ERR] = _E_HEADER
                return _ERROR
            p = _skip(buf, p + 3, line_end)
            nv, p = _number(buf, p, line_end, st)
            if p < 0 or nv < 0:
                st[_S_ERR] = _E_HEADER
                return _ERROR
            p = _skip(buf, p, line_end)
            nc, p = _number(buf, p, line_end, st)
            if p < 0 or nc < 0:
                st[_S_ERR] = _E_HEADER
                return _ERROR
            p = _skip(buf, p, line_end)
            if p < line_end:
                st[_S_ERR] = _E_HEADER
                return _ERROR
            if nv > MAX_VARS:
                st[_S_ERR] = _E_TOO_MANY_VARS
                st[_S_ERR_A] = nv
                return _ERROR
            st[_S_HEADER] = 1
            st[_S_NVARS] = nv
            st[_S_DECL] = nc
            st[_S_TOKENS] = 1
            continue
        if st[_S_NCL] >= cid.shape[0]:
            st[_S_POS] = p
            st[_S_NEED] = st[_S_NCL] + 1
            return _NEED_CLAUSES
        if st[_S_NLIT] >= lits.shape[0]:
            st[_S_POS] = p
            st[_S_NEED] = st[_S_NLIT] + 1
            return _NEED_LITS
        lit, p = _number(buf, p, end, st)
        if p < 0:
            return _ERROR
        st[_S_TOKENS] = 1
        if st[_S_HEADER] == 0:
            st[_S_ERR] = _E_NO_HEADER
            return _ERROR
        if st[_S_OPEN] < 0:
            if st[_S_NCL] >= st[_S_DECL]:
                st[_S_ERR] = _E_TOO_MANY_CLAUSES
                st[_S_ERR_A] = st[_S_DECL]
                return _ERROR
            st[_S_OPEN] = 0
        if lit == 0:
            ncl = st[_S_NCL]
            k = st[_S_OPEN]
            cid[ncl] = ncl + 1
            cstart[ncl] = st[_S_NLIT] - k
            clen[ncl] = k
            st[_S_NCL] = ncl + 1
            st[_S_MAXID] = ncl + 1
            st[_S_OPEN] = -1
        else:
            if lit > st[_S_NVARS] or -lit > st[_S_NVARS]:
                st[_S_ERR] = _E_CNF_LITERAL
                st[_S_ERR_A] = lit
                st[_S_ERR_B] = st[_S_NVARS]
                return _ERROR
            lits[st[_S_NLIT]] = lit
            st[_S_NLIT] += 1
            st[_S_OPEN] += 1
    st[_S_POS] = end
    return _DONE


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
        q = p
        while q < end and buf[q] != 10:
            q += 1
        line_end = q
        ncl = st[_S_NCL]
        nlit = st[_S_NLIT]
        if ncl + 2 > offs.shape[0]:
            st[_S_POS] = line_start
            st[_S_NEED] = ncl + 2
            return _NEED_CLAUSES
        st[_S_LINE] += 1
        p = _skip(buf, p, line_end)
        if p >= line_end:
            st[_S_ERR] = _E_EMPTY_LINE
            return _ERROR
        if lrat:
            ident, p = _number(buf, p, line_end, st)
            if p < 0:
                return _ERROR
            if ident <= 0:
                st[_S_ERR] = _E_ZERO_ID if ident == 0 else _E_SYNTAX
                st[_S_ERR_A] = 45
                return _ERROR
            p = _skip(buf, p, line_end)
        deletion = False
        if p < line_end and buf[p] == 100:
            deletion = True
            p += 1
            if p < line_end and not _is_space(buf[p]):
                st[_S_ERR] = _E_SYNTAX
                return _ERROR
        k = 0
        while True:
            p = _skip(buf, p, line_end)
            if p >= line_end:
                st[_S_ERR] = _E_UNTERMINATED
                return _ERROR
            lit, p = _number(buf, p, line_end, st)
            if p < 0:
                return _ERROR
            if lit == 0:
                break
            if lit > _MAX_LITERAL or -lit > _MAX_LITERAL:
                st[_S_ERR] = _E_LITERAL
                return _ERROR
            if nlit + k >= flat.shape[0]:  # no room: grow, then read this line again
                st[_S_LINE] -= 1
                st[_S_POS] = line_start
                st[_S_NEED] = nlit + 2 * k + 16
                return _NEED_LITS
            flat[nlit + k] = lit
            k += 1
        if lrat and not deletion:
            while True:
                p = _skip(buf, p, line_end)
                if p >= line_end:
                    st[_S_ERR] = _E_UNTERMINATED
                    return _ERROR
                hint, p = _number(buf, p, line_end, st)
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


def _grown(array: np.ndarray, size: int) -> np.ndarray:
    """``array`` enlarged to ``size`` (zeros after), in place where the allocator can
    (``realloc``: a large block is remapped, not copied, so growing does not hold two copies)."""
    try:
        array.resize(size, refcheck=False)  # no view of the store outlives a kernel call
        return array
    except ValueError:  # not the owner of its data (e.g. a view): copy
        out = np.zeros(size, dtype=array.dtype)
        out[: array.shape[0]] = array
        return out


# -- reading -------------------------------------------------------------------------------------
def _is_path(source: object) -> bool:
    """A ``str`` without a line break or an ``os.PathLike`` names a file; anything else is text."""
    if isinstance(source, os.PathLike):
        return True
    return isinstance(source, str) and "\n" not in source


def _size_limit(max_bytes: int | None) -> int:
    if max_bytes is not None:
        return max_bytes
    from nonosat.limits import max_proof_bytes

    return max_proof_bytes()


def _open_source(source: Any, limit: int, what: str) -> tuple[str, Iterator[bytes]]:
    """``(name, chunks)`` of a file path or in-memory text.  A file that is missing, not a
    regular file (a directory, FIFO or device: never read, never waited on) or over ``limit``
    bytes is refused at once, before anything is read (and checked again when it is opened)."""
    if _is_path(source):
        path = os.fspath(source)
        _regular_size(path, os.stat, limit, what)
        return path, _file_chunks(path, limit, what)
    data = source.encode() if isinstance(source, str) else bytes(source)
    if len(data) > limit:
        raise ProofTooLargeError(f"<{what}>", len(data), limit)
    return f"<{what}>", iter([data[i:i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES)])


def _regular_size(target: Any, stat_call: Any, limit: int, what: str) -> None:
    """Refuse ``target`` (a path for ``os.stat``, a descriptor for ``os.fstat``) unless it is a
    regular file of at most ``limit`` bytes."""
    from nonosat.errors import FormatError

    name = target if isinstance(target, str) else "<fd>"
    try:
        info = stat_call(target)
    except OSError as exc:
        raise FormatError(name, None, f"cannot read the {what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise FormatError(name, None, f"is not a regular file; the {what} must be one")
    if info.st_size > limit:
        raise ProofTooLargeError(name, info.st_size, limit)


def _file_chunks(path: str, limit: int, what: str) -> Iterator[bytes]:
    from nonosat.errors import FormatError

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FormatError(path, None, f"cannot read the {what}: {exc.strerror or exc}") from None
    read = 0
    try:
        try:
            _regular_size(fd, os.fstat, limit, what)
        except (FormatError, ProofTooLargeError):  # replaced since it was checked
            raise FormatError(path, None, f"changed while being read; the {what} must be a "
                                          "regular file within the size limit") from None
        while True:
            try:
                chunk = os.read(fd, CHUNK_BYTES)
            except OSError as exc:
                raise FormatError(path, None, exc.strerror or str(exc)) from None
            if not chunk:
                return
            read += len(chunk)
            if read > limit:  # the file grew after its size was checked
                raise ProofTooLargeError(path, read, limit)
            yield chunk
    finally:
        os.close(fd)


def _lines(chunks: Iterator[bytes]) -> Iterator[tuple[np.ndarray, int]]:
    """Buffers of complete lines: ``(bytes as uint8, end)``; the last one may lack its
    newline.  A line longer than a chunk is gathered whole, in one growing buffer."""
    pending = bytearray()
    for chunk in chunks:
        cut = chunk.rfind(b"\n")
        if cut < 0:
            pending += chunk
            continue
        if pending:
            pending += chunk
            data: bytes | bytearray = pending
            end = len(pending) - (len(chunk) - cut - 1)
        else:
            data, end = chunk, cut + 1
        yield np.frombuffer(data, dtype=np.uint8), end
        pending = bytearray(chunk[cut + 1:])
    if pending:
        yield np.frombuffer(pending, dtype=np.uint8), len(pending)


class _Failure(Exception):
    def __init__(self, reason: str, timed_out: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.timed_out = timed_out


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


def _check_deadline(deadline: float | None, where: str) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise _Failure(f"time limit reached while {where}", timed_out=True)


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
