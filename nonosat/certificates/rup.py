"""Unit propagation over a clause database, with LRAT hints (compiled).

:class:`RupChecker` holds a formula and the lemmas added after it, propagates their units at
decision level 0, and checks each new lemma ``C`` by reverse unit propagation (RUP: assuming the
negation of ``C``, unit propagation over the formula and the earlier lemmas ends in a conflict).
For every lemma it checks it records the *hints* an LRAT checker needs: the IDs of the clauses
that become unit, in the order they do, and last the clause that is falsified (the conflict's
implication cone, found by a backward walk over the reasons of the assigned literals and sorted
by trail position).  Clause IDs are those of LRAT: ``1..m`` the formula's clauses in order, then
each added lemma the next number.

It serves the certificate writer three ways:

* :meth:`RupChecker.refuted`: whether unit propagation on the formula alone finds a conflict
  (then the proof is the empty clause, whose LRAT hints are the conflict's cone);
* :meth:`RupChecker.run`: check a list of proof steps (lemmas and deletions) in order, stopping
  at the first lemma that is not RUP (the native proof writer derives that one by a SAT
  solver, :mod:`nonosat.certificates.native_proof`, and continues);
* :meth:`RupChecker.lrat` / :meth:`RupChecker.drat`: the text LRAT and DRAT of the steps
  checked so far, written by the kernel (no Python per lemma).

Nothing here is trusted: the proofs it helps write are checked by dratify, drat-trim and
cake_lpr before a certificate is called certified.  A lemma this propagator cannot justify is
reported, never written with made-up hints.

Propagation visits, for each literal made false, the formula clauses that hold it (occurrence
lists built once) and then the lemmas of two or more literals (few: the native proofs add units
and one binary at a time); each visited clause is scanned whole.  The formula's clauses are
short (order encoding: 2 and 3 literals), so watched literals would not pay for their
bookkeeping.

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt Jr., M. Kaufmann, P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017 (LRAT: clause IDs and hints).
.. [2] A. Van Gelder, "Verifying RUP proofs of propositional unsatisfiability", ISAIM 2008
   (reverse unit propagation).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from nonosat.certificates.proof_text import grow, put_clause, put_int
from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit

# meta slots (int64 array shared between calls)
_NTRAIL, _NCLAUSES, _NLITS, _NEXTRA, _CONFLICT0, _NFORMULA, _OUTLEN, _DRATLEN = range(8)
_META = 8


@njit(cache=True, nogil=True)
def _lidx(lit):
    return 2 * lit if lit > 0 else -2 * lit + 1


@njit(cache=True, nogil=True)
def _assign(lit, why, val, reason, tpos, trail, meta):
    v = abs(lit)
    val[v] = 1 if lit > 0 else -1
    reason[v] = why
    n = meta[_NTRAIL]
    tpos[v] = n
    trail[n] = lit
    meta[_NTRAIL] = n + 1


@njit(cache=True, nogil=True)
def _visit(c, lits, cstart, val, reason, tpos, trail, meta):
    """Examine clause ``c``: 0 satisfied or still open, 1 unit (its literal assigned), -1 false."""
    free = 0
    last = 0
    for k in range(cstart[c], cstart[c + 1]):
        lit = lits[k]
        x = val[abs(lit)]
        if x == 0:
            free += 1
            last = lit
            if free > 1:
                return 0
        elif (x > 0) == (lit > 0):
            return 0
    if free == 0:
        return -1
    _assign(last, c, val, reason, tpos, trail, meta)
    return 1


@njit(cache=True, nogil=True)
def _propagate(qhead, lits, cstart, alive, occ_start, occ, extra, val, reason, tpos, trail,
               meta):
    """Propagate from trail position ``qhead`` to a fixpoint; the conflict clause or -1."""
    while True:
        while qhead < meta[_NTRAIL]:
            p = trail[qhead]
            qhead += 1
            i = _lidx(-p)
            for j in range(occ_start[i], occ_start[i + 1]):
                c = occ[j]
                if _visit(c, lits, cstart, val, reason, tpos, trail, meta) < 0:
                    return c
        changed = False
        for j in range(meta[_NEXTRA]):
            c = extra[j]
            if alive[c]:
                r = _visit(c, lits, cstart, val, reason, tpos, trail, meta)
                if r < 0:
                    return c
                if r > 0:
                    changed = True
        if not changed:
            return -1


@njit(cache=True, nogil=True)
def _cone_vars(conflict, lits, cstart, reason, seen, stack, visited, implied):
    """Walk back from clause ``conflict`` over the reasons of its literals (depth first): writes
    into ``implied`` the variables of its implication cone that have a reason clause (other
    than ``conflict``), in the order the walk meets them, and returns how many.  ``seen`` is all
    zero before and after; ``visited`` is scratch (every variable met, to clear ``seen``)."""
    top = 0
    stack[top] = conflict
    top += 1
    n = 0
    nseen = 0
    while top > 0:
        top -= 1
        c = stack[top]
        for k in range(cstart[c], cstart[c + 1]):
            v = abs(lits[k])
            if seen[v]:
                continue
            seen[v] = 1
            visited[nseen] = v
            nseen += 1
            r = reason[v]
            if r >= 0 and r != conflict:
                implied[n] = v
                n += 1
                stack[top] = r
                top += 1
    for k in range(nseen):
        seen[visited[k]] = 0
    return n


@njit(cache=True, nogil=True)
def _cone_trail(conflict, lits, cstart, reason, tpos, seen, stack, visited, implied):
    """The variables :func:`_cone_vars` finds, by trail position (a new array).  A reason
    clause's implied literal is assigned after all its others, so this is also the order in
    which the reasons became unit: the order LRAT hints need."""
    found = implied[: _cone_vars(conflict, lits, cstart, reason, seen, stack, visited, implied)]
    return found[np.argsort(tpos[found])]


@njit(cache=True, nogil=True)
def _cone(conflict, lits, cstart, reason, tpos, seen, stack, pairs_t, pairs_c, hints, nh):
    """Write the hints of ``conflict`` into ``hints[nh:]``: the reasons of the literals its
    implication cone holds, by trail position, then ``conflict``; returns the new end."""
    for v in _cone_trail(conflict, lits, cstart, reason, tpos, seen, stack, pairs_t, pairs_c):
        hints[nh] = reason[v] + 1
        nh += 1
    hints[nh] = conflict + 1
    nh += 1
    return nh


@njit(cache=True, nogil=True)
def _drat_line(drat, meta, slits, a, b, deletion):
    """Append the DRAT line of the clause ``slits[a:b]`` (``d`` first for a ``deletion``);
    returns the buffer."""
    drat = grow(drat, meta[_DRATLEN] + 16 * (b - a) + 16)
    n = meta[_DRATLEN]
    if deletion:
        drat[n] = 100  # 'd'
        drat[n + 1] = 32
        n += 2
    n = put_clause(drat, n, slits, a, b)
    drat[n] = 10
    meta[_DRATLEN] = n + 1
    return drat


@njit(cache=True, nogil=True)
def _lrat_head(lrat, meta, ident, slits, a, b):
    """Start the LRAT line of clause ``ident``: the ID, the literals ``slits[a:b]`` and their
    ``0`` (room assumed); returns the end, where the hints go."""
    n = put_int(lrat, meta[_OUTLEN], ident)
    lrat[n] = 32
    return put_clause(lrat, n + 1, slits, a, b)


@njit(cache=True, nogil=True)
def _lrat_put(lrat, n, ident):
    """Append a space and the clause ID ``ident`` at ``lrat[n]``; returns the new end."""
    lrat[n] = 32
    return put_int(lrat, n + 1, ident)


@njit(cache=True, nogil=True)
def _lrat_end(lrat, n, meta):
    """Close the LRAT line at ``lrat[n]`` with `` 0`` and a line break, and record its end."""
    lrat[n] = 32
    lrat[n + 1] = 48
    lrat[n + 2] = 10
    meta[_OUTLEN] = n + 3


@njit(cache=True, nogil=True)
def _add_clause(src, a, b, lits, cstart, alive, meta):
    """Add the clause ``src[a:b]`` to the database (room assumed); returns its index."""
    c = meta[_NCLAUSES]
    n0 = meta[_NLITS]
    for k in range(a, b):
        lits[n0 + k - a] = src[k]
    meta[_NLITS] = n0 + b - a
    cstart[c + 1] = n0 + b - a
    alive[c] = 1
    meta[_NCLAUSES] = c + 1
    return c


@njit(cache=True, nogil=True)
def _deletable(slits, a, b, lits, cstart, alive, extra, reason, meta):
    """The live lemma with the literals ``slits[a:b]``, or -1 when there is none or it must
    stay: a clause that is the reason of a level-0 literal stays (LRAT hints may still name
    it)."""
    for j in range(meta[_NEXTRA]):
        c = extra[j]
        if not alive[c] or cstart[c + 1] - cstart[c] != b - a:
            continue
        same = True
        for k in range(a, b):
            hit = False
            for q in range(cstart[c], cstart[c + 1]):
                if lits[q] == slits[k]:
                    hit = True
                    break
            if not hit:
                same = False
                break
        if same:
            for q in range(cstart[c], cstart[c + 1]):
                if reason[abs(lits[q])] == c:
                    return -1
            return c
    return -1


@njit(cache=True, nogil=True)
def _materialize(conflict, base, lits, cstart, alive, reason, tpos, trail, seen, stack, pairs_t,
                 pairs_c, meta, lrat, drat):
    """Give every level-0 literal in the cone of ``conflict`` a unit clause of its own, written
    as an LRAT lemma (hints: its antecedents' unit clauses, then its reason) and as a DRAT
    lemma, so that later hints name one clause for it instead of re-deriving it.  Returns the
    LRAT and DRAT buffers."""
    for v in _cone_trail(conflict, lits, cstart, reason, tpos, seen, stack, pairs_t, pairs_c):
        r = reason[v]
        if tpos[v] >= base or cstart[r + 1] - cstart[r] == 1:
            continue  # assigned under the lemma's negation, or its reason is a unit already
        c = _add_clause(trail, tpos[v], tpos[v] + 1, lits, cstart, alive, meta)  # its literal
        lrat = grow(lrat, meta[_OUTLEN] + 24 * (cstart[r + 1] - cstart[r]) + 48)
        n = _lrat_head(lrat, meta, c + 1, lits, cstart[c], cstart[c + 1])
        for j in range(cstart[r], cstart[r + 1]):
            u = abs(lits[j])
            if u != v:
                n = _lrat_put(lrat, n, reason[u] + 1)
        _lrat_end(lrat, _lrat_put(lrat, n, r + 1), meta)
        # the same unit in the DRAT proof, so that the LRAT's lemmas are a subsequence of the
        # DRAT's (what a consistency check of the two compares)
        drat = _drat_line(drat, meta, lits, cstart[c], cstart[c + 1], False)
        reason[v] = c
    return lrat, drat


@njit(cache=True, nogil=True)
def _run_steps(kind, slits, sstart, first, skip_implied, materialize, skipped, lits, cstart,
               alive, occ_start, occ, extra, val, reason, tpos, trail, seen, stack, pairs_t, pairs_c, hints, meta, lrat, drat):
    """Check and record steps ``first..``; returns (index of the first step that is not RUP
    or ``len(kind)``, lrat buffer, drat buffer)."""
    nsteps = kind.size
    for s in range(first, nsteps):
        a = sstart[s]
        b = sstart[s + 1]
        size = b - a
        if kind[s] == 1:  # deletion: the live lemma with the same literals
            found = _deletable(slits, a, b, lits, cstart, alive, extra, reason, meta)
            if found >= 0:
                alive[found] = 0
                lrat = grow(lrat, meta[_OUTLEN] + 64)
                n = put_int(lrat, meta[_OUTLEN], meta[_NCLAUSES])
                lrat[n] = 32
                lrat[n + 1] = 100  # 'd'
                _lrat_end(lrat, _lrat_put(lrat, n + 2, found + 1), meta)
                # in the DRAT proof too; a deletion left out of the LRAT (a reason of a level-0
                # literal, a formula clause, a unit) is left out of both, so that the two
                # proofs hold the same clauses
                drat = _drat_line(drat, meta, slits, a, b, True)
            continue
        # an added lemma: RUP under the negation of its literals
        base = meta[_NTRAIL]
        conflict = meta[_CONFLICT0]
        if skip_implied and size > 0 and conflict >= 0:
            skipped[s] = 1  # propagation already refutes the formula: only [] is still needed
            continue
        if skip_implied and size == 1 and conflict < 0:
            lit = slits[a]
            x = val[abs(lit)]
            if x != 0 and (x > 0) == (lit > 0):
                skipped[s] = 1  # propagation already gives it: a lemma that changes nothing
                continue
        if conflict < 0:
            for k in range(a, b):
                lit = slits[k]
                x = val[abs(lit)]
                if x == 0:
                    _assign(-lit, -1, val, reason, tpos, trail, meta)
                elif (x > 0) == (lit > 0) and reason[abs(lit)] >= 0:
                    conflict = reason[abs(lit)]  # true at level 0: its reason is falsified
                    break
            if conflict < 0:
                conflict = _propagate(base, lits, cstart, alive, occ_start, occ, extra, val,
                                      reason, tpos, trail, meta)
        nh = 0
        if conflict >= 0 and materialize and size > 0 and meta[_CONFLICT0] < 0:
            lrat, drat = _materialize(conflict, base, lits, cstart, alive, reason, tpos, trail,
                                      seen, stack, pairs_t, pairs_c, meta, lrat, drat)
        if conflict >= 0:
            nh = _cone(conflict, lits, cstart, reason, tpos, seen, stack, pairs_t, pairs_c,
                       hints, 0)
        for t in range(base, meta[_NTRAIL]):
            v = abs(trail[t])
            val[v] = 0
            reason[v] = -1
        meta[_NTRAIL] = base
        if conflict < 0:
            return s, lrat, drat
        # add the lemma to the database, and its text: LRAT then DRAT
        c = _add_clause(slits, a, b, lits, cstart, alive, meta)
        lrat = grow(lrat, meta[_OUTLEN] + 16 * (size + nh) + 32)
        n = _lrat_head(lrat, meta, c + 1, slits, a, b)
        for k in range(nh):
            n = _lrat_put(lrat, n, hints[k])
        _lrat_end(lrat, n, meta)
        drat = _drat_line(drat, meta, slits, a, b, False)
        if size == 0:
            meta[_CONFLICT0] = c
            continue
        if meta[_CONFLICT0] >= 0:
            continue
        if size == 1 and val[abs(slits[a])] != 0:
            # already true at level 0 (false is impossible: the lemma was RUP and the level-0
            # state has no conflict): the unit clause is the shorter reason
            reason[abs(slits[a])] = c
            continue
        if size == 1:
            _assign(slits[a], c, val, reason, tpos, trail, meta)
        else:
            extra[meta[_NEXTRA]] = c
            meta[_NEXTRA] += 1
        found = _propagate(base, lits, cstart, alive, occ_start, occ, extra, val, reason, tpos,
                           trail, meta)
        if found >= 0:
            meta[_CONFLICT0] = found
    return nsteps, lrat, drat


@njit(cache=True, nogil=True)
def _load(lits, cstart, nclauses, nvars, val, reason, tpos, trail, meta, occ_start, occ, alive,
          extra):
    """Occurrence lists of the formula's clauses, and level-0 propagation of its units."""
    counts = np.zeros(2 * nvars + 3, np.int64)
    for c in range(nclauses):
        for k in range(cstart[c], cstart[c + 1]):
            counts[_lidx(lits[k]) + 1] += 1
    for i in range(1, counts.size):
        counts[i] += counts[i - 1]
    occ_start[:] = counts[: occ_start.size]
    fill = counts.copy()
    for c in range(nclauses):
        alive[c] = 1
        for k in range(cstart[c], cstart[c + 1]):
            i = _lidx(lits[k])
            occ[fill[i]] = c
            fill[i] += 1
    conflict = -1
    for c in range(nclauses):
        size = cstart[c + 1] - cstart[c]
        if size == 0:
            conflict = c
            break
        if size == 1:
            lit = lits[cstart[c]]
            x = val[abs(lit)]
            if x == 0:
                _assign(lit, c, val, reason, tpos, trail, meta)
            elif (x > 0) != (lit > 0):
                conflict = c
                break
    if conflict < 0:
        conflict = _propagate(0, lits, cstart, alive, occ_start, occ, extra, val, reason, tpos,
                              trail, meta)
    meta[_CONFLICT0] = conflict


def _room(a: np.ndarray, need: int) -> np.ndarray:
    """``a``, or when it is shorter than ``need`` a copy at least twice as long (zeros after)."""
    if need <= a.size:
        return a
    out = np.zeros(max(need, 2 * a.size), a.dtype)
    out[: a.size] = a
    return out


class RupChecker:
    """A formula and the lemmas added after it, for RUP checks with LRAT hints.

    Parameters
    ----------
    clauses : sequence of sequence of int
        The formula (DIMACS literals, no literal repeated within a clause); clause ``k``
        (0-based) has LRAT ID ``k + 1``.
    nvars : int
        Variables of the formula; lemmas use no others.
    skip_implied : bool
        Leave out unit lemmas whose literal unit propagation already gives at decision level 0,
        and every lemma but the empty clause once propagation finds a conflict (they are RUP,
        and adding them changes nothing a checker propagates): neither checked nor written,
        and flagged in :attr:`skipped`.
    materialize : bool
        Before a lemma (not the empty clause) whose hints would re-derive literals that
        propagation gives at level 0 through clauses of several literals, write those
        literals as unit lemmas of the LRAT proof (each with its antecedents' unit clauses and
        its reason as hints, once), so that every later lemma names one clause per such
        literal.  The LRAT proof then holds these units besides the DRAT proof's lemmas.

    Examples
    --------
    >>> rup = RupChecker([[1, 2], [-1, 2], [1, -2], [-1, -2]], 2)
    >>> rup.refuted
    False
    >>> rup.run([[2], []])
    2
    >>> print(rup.lrat(), end="")
    5 2 0 1 2 0
    6 0 5 3 4 0
    """

    def __init__(self, clauses: Sequence[Sequence[int]], nvars: int,
                 skip_implied: bool = False, materialize: bool = True):
        self.skip_implied = skip_implied
        self.materialize = materialize
        #: per step of the last :meth:`run`: 1 where a unit lemma was left out (see
        #: ``skip_implied``)
        self.skipped = np.zeros(0, np.uint8)
        nclauses = len(clauses)
        sizes = np.fromiter(map(len, clauses), np.int64, nclauses)
        flat = np.fromiter(chain.from_iterable(clauses), np.int32, int(sizes.sum()))
        self.nvars = int(nvars)
        self.nformula = nclauses
        self._lits = flat
        self._cstart = np.zeros(nclauses + 1, np.int64)
        np.cumsum(sizes, out=self._cstart[1:])
        self._alive = np.zeros(nclauses, np.uint8)
        self._extra = np.zeros(16, np.int64)
        n1 = self.nvars + 1
        self._val = np.zeros(n1, np.int8)
        self._reason = np.full(n1, -1, np.int64)
        self._tpos = np.zeros(n1, np.int64)
        self._trail = np.zeros(n1, np.int32)
        self._seen = np.zeros(n1, np.uint8)
        self._stack = np.zeros(n1 + 1, np.int64)
        self._pairs_t = np.zeros(n1, np.int64)
        self._pairs_c = np.zeros(n1, np.int64)
        self._hints = np.zeros(n1 + 1, np.int64)
        self._meta = np.zeros(_META, np.int64)
        self._meta[_NCLAUSES] = nclauses
        self._meta[_NLITS] = flat.size
        self._meta[_NFORMULA] = nclauses
        self._occ_start = np.zeros(2 * self.nvars + 3, np.int64)
        self._occ = np.zeros(max(flat.size, 1), np.int64)
        if flat.size and (int(np.abs(flat).max()) > self.nvars):
            raise ValueError("a clause names a variable above nvars")
        _load(self._lits, self._cstart, nclauses, self.nvars, self._val, self._reason,
              self._tpos, self._trail, self._meta, self._occ_start, self._occ, self._alive,
              self._extra)
        self._lrat = np.zeros(1 << 12, np.uint8)
        self._drat = np.zeros(1 << 12, np.uint8)
        #: lemmas checked and added, deletions recorded
        self.lemmas = 0

    @property
    def refuted(self) -> bool:
        """Whether unit propagation over the formula and the lemmas added so far finds a
        conflict (a lemma ``[]`` is then RUP, with hints)."""
        return bool(self._meta[_CONFLICT0] >= 0)

    def _reserve(self, nsteps: int, nlits: int) -> None:
        """Room for ``nsteps`` more clauses of ``nlits`` literals in all."""
        nclauses = int(self._meta[_NCLAUSES]) + nsteps
        self._cstart = _room(self._cstart, nclauses + 1)
        self._alive = _room(self._alive, nclauses)
        self._lits = _room(self._lits, int(self._meta[_NLITS]) + nlits)
        self._extra = _room(self._extra, int(self._meta[_NEXTRA]) + nsteps)

    def run(self, steps: Sequence[Sequence[int]], deletions: Sequence[bool] | None = None,
            ) -> int:
        """Check ``steps`` in order and add them: each clause a lemma that must be RUP (with
        respect to the formula and the earlier lemmas), or, where ``deletions[k]`` is true, the
        deletion of the live lemma with those literals.

        Returns
        -------
        int
            ``len(steps)`` when every lemma was RUP; else the index of the first that is not,
            with the steps before it added and it and the ones after it not.
        """
        n = len(steps)
        if n == 0:
            return 0
        sizes = np.fromiter(map(len, steps), np.int64, n)
        slits = np.fromiter(chain.from_iterable(steps), np.int32, int(sizes.sum()))
        if slits.size and int(np.abs(slits).max()) > self.nvars:
            raise ValueError("a lemma names a variable above nvars")
        sstart = np.zeros(n + 1, np.int64)
        np.cumsum(sizes, out=sstart[1:])
        kind = (np.zeros(n, np.int8) if deletions is None
                else np.fromiter(deletions, np.int8, n))
        self._reserve(n + self.nvars + 1, slits.size + self.nvars + 1)  # + materialized units
        self.skipped = np.zeros(n, np.uint8)
        done, self._lrat, self._drat = _run_steps(
            kind, slits, sstart, 0, self.skip_implied, self.materialize, self.skipped, self._lits,
            self._cstart, self._alive, self._occ_start, self._occ, self._extra, self._val, self._reason, self._tpos, self._trail,
            self._seen, self._stack, self._pairs_t, self._pairs_c, self._hints, self._meta,
            self._lrat, self._drat)
        self.lemmas += int(done) - int(self.skipped.sum())
        return int(done)

    @property
    def last_id(self) -> int:
        """The LRAT ID of the last clause (the formula's, or a lemma added since)."""
        return int(self._meta[_NCLAUSES])

    def live_lemmas(self) -> tuple[list[int], list[list[int]]]:
        """The lemmas in the database and not deleted (deletions this checker leaves out
        included; see :meth:`run`): their LRAT IDs, increasing, and their literals."""
        ids: list[int] = []
        clauses: list[list[int]] = []
        for c in range(self.nformula, int(self._meta[_NCLAUSES])):
            if self._alive[c]:
                ids.append(c + 1)
                clauses.append(self._lits[self._cstart[c]:self._cstart[c + 1]].tolist())
        return ids, clauses

    def lrat(self) -> str:
        """Text LRAT of the steps added so far: ``ID literals 0 hints 0`` per lemma and
        ``ID d IDs 0`` per deletion (ID: the last clause's, as drat-trim writes them)."""
        return self._lrat[: int(self._meta[_OUTLEN])].tobytes().decode("ascii")

    def drat(self) -> str:
        """Text DRAT of the steps added so far."""
        return self._drat[: int(self._meta[_DRATLEN])].tobytes().decode("ascii")

    def conflict_lrat(self) -> str:
        """The LRAT line of the empty clause when the formula (with the lemmas so far) is
        refuted by unit propagation: ``ID 0 hints 0``.

        Raises
        ------
        ValueError
            Unit propagation finds no conflict (:attr:`refuted` is false).
        """
        if not self.refuted:
            raise ValueError("unit propagation does not refute the formula")
        self.run([[]])
        return self.lrat()


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
