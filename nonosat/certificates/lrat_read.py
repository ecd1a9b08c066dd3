"""Reading for nonosat's LRAT checker: files and text in bounded chunks, the compiled tokeniser,
the DIMACS CNF reader, and the layout of the state array and the error codes the kernels share.

The checking rules are in :mod:`nonosat.certificates.lrat_check`, the DRAT/LRAT agreement in
:mod:`nonosat.certificates.lrat_agree`.  Both files are read in chunks of :data:`CHUNK_BYTES`
(a line longer than a chunk is gathered whole); a file larger than ``NONOSAT_MAX_PROOF_BYTES``
(:func:`nonosat.limits.max_proof_bytes`), or that is no regular file, is refused before it is
read.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from nonosat.errors import NonosatError, one_line
from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit

#: Bytes read from a file at a time.
CHUNK_BYTES = 8 << 20
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
def _literals(buf, p, e, st, dest, start, nvars, line_start):
    """Read a clause's literals, up to its ``0``, from ``buf[p:e]`` (a line that starts at
    ``line_start``) into ``dest[start:]``.  Returns ``(count, next position)``; position -1 on
    an error (``st[_S_ERR]``: a literal outside ``nvars`` variables, ``_E_LITERAL`` past
    ``_MAX_LITERAL`` else ``_E_FRESH``, with ``st[_S_ERR_A]`` the literal and ``st[_S_ERR_B]``
    ``nvars``; or a bad number), -2 when ``dest`` is full (``st[_S_NEED]``: the room to grow it
    to; ``st[_S_POS]``: the line to read again, not counted in ``st[_S_LINE]``)."""
    k = 0
    while True:
        lit, p = _next(buf, p, e, st)
        if p < 0 or lit == 0:
            return k, p
        if lit > nvars or -lit > nvars:
            st[_S_ERR] = _E_LITERAL if lit > _MAX_LITERAL or -lit > _MAX_LITERAL else _E_FRESH
            st[_S_ERR_A] = lit
            st[_S_ERR_B] = nvars
            return k, -1
        if start + k >= dest.shape[0]:
            st[_S_NEED] = start + 2 * k + 16
            st[_S_POS] = line_start
            st[_S_LINE] -= 1
            return k, -2
        dest[start + k] = lit
        k += 1


@njit(cache=True, nogil=True)
def _line_end(buf, p, end):
    """The position of the line break (or ``end``) that ends the line at ``buf[p]``."""
    while p < end and buf[p] != 10:
        p += 1
    return p


@njit(cache=True, nogil=True)
def _line_head(buf, p, e, st, with_id):
    """Read the start of the proof line ``buf[p:e]``: its clause ID (text LRAT, ``with_id``;
    0 for DRAT) and whether it is a deletion (``d``).  Returns ``(ID, deletion, next
    position)``; on an error (a blank line, a bad or non-positive ID, a ``d`` not followed by a
    space) sets ``st[_S_ERR]`` and returns position -1."""
    p = _skip(buf, p, e)
    if p >= e:
        st[_S_ERR] = _E_EMPTY_LINE
        return 0, False, -1
    ident = 0
    if with_id:
        ident, p = _number(buf, p, e, st)
        if p < 0:
            return 0, False, -1
        if ident <= 0:
            st[_S_ERR] = _E_ZERO_ID if ident == 0 else _E_SYNTAX
            st[_S_ERR_A] = 45
            return 0, False, -1
        p = _skip(buf, p, e)
    if p < e and buf[p] == 100:  # 'd'
        if p + 1 < e and not _is_space(buf[p + 1]):
            st[_S_ERR] = _E_SYNTAX
            st[_S_ERR_A] = buf[p + 1]
            return 0, True, -1
        return ident, True, p + 1
    return ident, False, p


@njit(cache=True, nogil=True)
def _next(buf, p, e, st):
    """The next number of a list that a ``0`` must end before the line does (literals, hints,
    deleted IDs): ``(value, next position)``; on an error (the line ends first:
    ``_E_UNTERMINATED``; or not a number, :func:`_number`) sets ``st[_S_ERR]`` and returns
    position -1."""
    p = _skip(buf, p, e)
    if p >= e:
        st[_S_ERR] = _E_UNTERMINATED
        return 0, -1
    return _number(buf, p, e, st)



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



def _check_deadline(deadline: float | None, where: str) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise _Failure(f"time limit reached while {where}", timed_out=True)


stamp_module(globals())
