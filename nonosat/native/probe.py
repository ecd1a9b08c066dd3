"""Failed-literal probing: try both values of every unknown cell with full propagation.

For each unknown cell ``x``:

* if ``x = filled`` propagates to a contradiction, ``x`` is a **failed literal** and ``x = empty``
  is forced (and vice versa); if both values fail, the current node has no solution;
* otherwise every cell that takes the same value in both branches is forced (the cells fixed in
  both branches, "probe-both" deductions);
* the number of cells each branch fixes scores the cell for branching: the search branches on the
  cell whose two branches fix the most cells (balanced product).

Passes repeat until a pass fixes nothing.  Change tracking: a cell is not probed again while
neither its row nor its column has changed since it was last probed (:func:`probe`, and
:func:`probe_tracked` with :data:`TRACK_LINES`, the search's default); :func:`probe_tracked` with
:data:`TRACK_TOUCHED` skips a cell only while no line its last probe read has changed, which
keeps every search node at the exact probing fixpoint (nonosolve's rule).

Probing as a complete-propagation amplifier for nonograms is described by Wu, Sun et al.,
"An Efficient Approach to Solving Nonograms" (IEEE TCIAIG 5(3), 2013; the LalaFrogKK solver) and
is the core of the strongest tournament solvers; the failed-literal technique comes from SAT
(Freeman, "Improvements to propositional satisfiability search algorithms", 1995).

All kernels run compiled (numba) on the state tuple of :mod:`nonosat.native.propagate`.
"""

from __future__ import annotations

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.propagate import (
    KIND_DECISION,
    KIND_FAILED_LITERAL,
    KIND_LINE,
    KIND_PROBE_BOTH,
    ST_CONFLICTS,
    ST_EVENT,
    ST_PROBE_FIXES,
    ST_PROBES,
    ST_TLEN,
    assign,
    borrowed,
    clear_queue,
    mark_changed,
    propagate,
    propagate_inline,
    put,
    undo_to,
)


def new_probe_scratch(n_cells: int, n_lines: int = 0) -> tuple:
    """Scratch arrays for :func:`probe` and :func:`probe_tracked`.

    ``(mark, probed_at, score_f, score_e, fcells, fixed, touched, line_log, line_seg, pst,
    freason)``:
    ``mark`` (int8) holds the first branch's values, ``probed_at`` (int64) the event number of each
    cell's last probe (-1: none valid), ``score_f``/``score_e`` (int32) the cells each branch fixed,
    ``fcells`` (int32) the first branch's cells and ``fixed`` (int32) the probe-both deductions.
    The rest serve the exact change tracking of :func:`probe_tracked` (``n_lines`` = ``h + w``;
    0 leaves them minimal, enough for :func:`probe` and the other rules of :func:`probe_tracked`;
    the log is ``16 * n_cells * n_lines`` bytes of address space, mapped as used): ``touched`` (uint64, shape (n_cells,
    ceil(n_lines / 64))) the lines each cell's last probe read, as a bit set; ``line_log`` (int64,
    shape (n_cells * n_lines + n_lines, 2)) the undo log of line change stamps ``(line, old
    stamp)``, one entry per line per search segment below the root; ``line_seg`` (int64,
    n_lines) the segment that last logged each line; ``pst`` (int64, 4): current segment, log
    length, segment counter, spare.  ``freason`` (int32) holds the first branch's reasons (the
    line that forced each cell), so that :func:`probe_tracked` replays that branch when the
    other one fails instead of propagating it again.
    """
    tw = max((n_lines + 63) // 64, 1)
    log_rows = n_cells * n_lines + n_lines if n_lines else 1
    return (
        np.zeros(n_cells, dtype=np.int8),
        np.full(n_cells, -1, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int32),
        np.zeros(n_cells, dtype=np.int32),
        np.zeros(n_cells, dtype=np.int32),
        np.zeros(n_cells, dtype=np.int32),
        np.zeros((n_cells, tw), dtype=np.uint64),
        np.zeros((log_rows, 2), dtype=np.int64),
        np.zeros(max(n_lines, 1), dtype=np.int64),
        np.zeros(4, dtype=np.int64),
        np.zeros(n_cells, dtype=np.int32),
    )


@njit(cache=True, nogil=True)
def probe(problem, state, scratch):  # pragma: no cover - compiled
    """Probe every unknown cell until a pass fixes nothing.

    Returns
    -------
    int
        Number of cells fixed, or ``-1`` when the node is contradictory (both values of some cell
        fail).  On a normal return the state is at a propagation fixpoint.
    """
    problem, state, scratch = borrowed(problem), borrowed(state), borrowed(scratch)
    h, w = problem[3][0], problem[3][1]
    grid, trail, tkind, targ, st, changed_at = (
        state[0], state[1], state[2], state[3], state[6], state[9]
    )
    mark, probed_at, score_f, score_e, fcells, fixed = (
        scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5]
    )
    n = h * w
    total = 0
    changed = True
    while changed:
        changed = False
        for cell in range(n):
            if grid[cell] != 3:
                continue
            row = cell // w
            col = h + cell % w
            if probed_at[cell] >= changed_at[row] and probed_at[cell] >= changed_at[col]:
                continue
            probed_at[cell] = st[ST_EVENT]
            base = st[ST_TLEN]
            # branch 1: filled
            st[ST_PROBES] += 1
            assign(problem, state, cell, 2, KIND_DECISION, -1, -1)
            ok_f = propagate(problem, state)
            nf = st[ST_TLEN] - base
            if ok_f:
                for t in range(base, st[ST_TLEN]):
                    fcells[t - base] = trail[t]
                    mark[trail[t]] = grid[trail[t]]
            undo_to(state, base)
            # branch 2: empty
            st[ST_PROBES] += 1
            assign(problem, state, cell, 1, KIND_DECISION, -1, -1)
            ok_e = propagate(problem, state)
            ne = st[ST_TLEN] - base
            if not ok_f and not ok_e:
                undo_to(state, base)
                st[ST_CONFLICTS] += 1
                return -1
            if not ok_f:
                # filled is a failed literal: the empty branch holds as it stands
                tkind[base] = KIND_FAILED_LITERAL
                targ[base] = cell
                mark_changed(problem, state, base)
                st[ST_PROBE_FIXES] += ne
                total += ne
                changed = True
                continue
            # cells fixed to the same value in both branches are forced (probe-both)
            nfix = 0
            if ok_e:
                for t in range(base + 1, st[ST_TLEN]):
                    c = trail[t]
                    if mark[c] == grid[c]:
                        fixed[nfix] = c * 4 + grid[c]
                        nfix += 1
            for k in range(nf):
                mark[fcells[k]] = 0
            undo_to(state, base)
            if not ok_e:
                # empty is a failed literal: redo the filled branch as forced
                assign(problem, state, cell, 2, KIND_FAILED_LITERAL, cell, -1)
                propagate(problem, state)
                mark_changed(problem, state, base)
                st[ST_PROBE_FIXES] += nf
                total += nf
                changed = True
                continue
            score_f[cell] = nf
            score_e[cell] = ne
            if nfix > 0:
                for k in range(nfix):
                    c = fixed[k] // 4
                    if grid[c] == 3:
                        assign(problem, state, c, fixed[k] % 4, KIND_PROBE_BOTH, cell, -1)
                if not propagate(problem, state):
                    st[ST_CONFLICTS] += 1
                    return -1
                mark_changed(problem, state, base)
                st[ST_PROBE_FIXES] += nfix
                total += nfix
                changed = True
    return total


TRACK_LINES = 0  #: re-probe a cell when its own row or column changed since its last probe
TRACK_TOUCHED = 1  #: re-probe a cell when any line its last probe read has changed (exact)
TRACK_NONE = 2  #: re-probe every unknown cell after any change (full probing)

#: :func:`probe_tracked`'s return when the state's stop flag was set: probing ended between two
#: probes (the state is at a propagation fixpoint, every cell fixed so far is a valid deduction,
#: but the node is not at the probing fixpoint).
PROBE_STOPPED = -2


@njit(cache=True, nogil=True)
def stamp_lines(problem, state, scratch, from_tlen):  # pragma: no cover - compiled
    """Stamp the lines of the cells assigned since trail position ``from_tlen`` as changed now
    (a new event), logging each line's previous stamp once per search segment so that a
    backtrack can restore it (:func:`restore_stamps`).  Segment 0 (the root) is not logged."""
    h, w = problem[3][0], problem[3][1]
    trail, st, changed_at = state[1], state[6], state[9]
    line_log, line_seg, pst = scratch[7], scratch[8], scratch[9]
    st[ST_EVENT] += 1
    ev = st[ST_EVENT]
    seg = pst[0]
    for t in range(from_tlen, st[ST_TLEN]):
        cell = trail[t]
        for k in range(2):
            line = cell // w if k == 0 else h + cell % w
            if changed_at[line] == ev:
                continue
            if seg != 0 and line_seg[line] != seg:
                line_seg[line] = seg
                m = pst[1]
                line_log[m, 0] = line
                line_log[m, 1] = changed_at[line]
                pst[1] = m + 1
            changed_at[line] = ev


@njit(cache=True, nogil=True)
def restore_stamps(state, scratch, log_len, epoch):  # pragma: no cover - compiled
    """Undo the line stamps logged after ``log_len`` (newest first) and forget every probe made
    after event ``epoch``: after a backtrack to a decision made at event ``epoch``, the grid is as
    it was then, so the line stamps and the probe results of that moment hold again."""
    changed_at = state[9]
    probed_at, line_log, pst = scratch[1], scratch[7], scratch[9]
    for m in range(pst[1] - 1, log_len - 1, -1):
        changed_at[line_log[m, 0]] = line_log[m, 1]
    pst[1] = log_len
    for cell in range(probed_at.shape[0]):
        if probed_at[cell] > epoch:
            probed_at[cell] = -1


@njit(cache=True, nogil=True, inline='always')
def _probe_valid(scratch, changed_at, cell, h, w, track, event):  # pragma: no cover - compiled
    """Whether ``cell``'s last probe still holds under tracking rule ``track``."""
    stamp = scratch[1][cell]
    if stamp < 0:
        return False
    if track == TRACK_LINES:
        return stamp >= changed_at[cell // w] and stamp >= changed_at[h + cell % w]
    if track == TRACK_NONE:
        return stamp >= event
    touched = scratch[6]
    for k in range(touched.shape[1]):
        bits = touched[cell, k]
        base = 64 * k
        while bits != 0:
            low = bits & (~bits + np.uint64(1))
            line = base + _bit_index(low)
            if changed_at[line] > stamp:
                return False
            bits ^= low
    return True


@njit(cache=True, nogil=True, inline='always')
def _bit_index(low):  # pragma: no cover - compiled
    """Index of the single set bit of ``low`` (uint64)."""
    i = 0
    if low >> np.uint64(32):
        i += 32
        low >>= np.uint64(32)
    if low >> np.uint64(16):
        i += 16
        low >>= np.uint64(16)
    if low >> np.uint64(8):
        i += 8
        low >>= np.uint64(8)
    if low >> np.uint64(4):
        i += 4
        low >>= np.uint64(4)
    if low >> np.uint64(2):
        i += 2
        low >>= np.uint64(2)
    if low >> np.uint64(1):
        i += 1
    return i


@njit(cache=True, nogil=True, inline='always')
def _touch(problem, state, scratch, cell, start, end):  # pragma: no cover - compiled
    """Add to ``cell``'s touched set the rows and columns of the trail cells ``start:end``."""
    h, w = problem[3][0], problem[3][1]
    trail, touched = state[1], scratch[6]
    for t in range(start, end):
        c = trail[t]
        r = c // w
        col = h + c % w
        touched[cell, r >> 6] |= np.uint64(1) << np.uint64(r & 63)
        touched[cell, col >> 6] |= np.uint64(1) << np.uint64(col & 63)


@njit(cache=True, nogil=True)
def probe_tracked(problem, state, scratch, track):  # pragma: no cover - compiled
    """Probe unknown cells until a pass fixes nothing, skipping cells whose last probe still holds.

    Like :func:`probe` (same deductions, reasons and scores), with the rule for skipping a cell
    chosen by ``track``: :data:`TRACK_TOUCHED` (exact) skips a cell while no line its last probe
    read (the rows and columns of every cell either branch fixed, which include every line either
    branch's propagation solved) has changed since: propagation is deterministic in the lines it
    reads, so probing again would give the same result.  The state's line stamps are set by
    :func:`stamp_lines` (logged for backtracking).  :data:`TRACK_LINES` looks at the cell's own row
    and column only (cheaper per node, but a probe whose other lines changed is skipped, so the
    node is not at the probing fixpoint), :data:`TRACK_NONE` re-probes every cell after any
    change.  This is the change tracking of nonosolve (hyouv/FastNonogramSolver, ``engine.h``:
    a probe is valid while no line it touched has a newer stamp).

    The state's stop flag (``state[15]``, :mod:`nonosat.native.propagate`) is read before each
    probe: once it is set, probing returns :data:`PROBE_STOPPED` between two probes.

    Two shortcuts keep the result that of :func:`probe` with less line solving: when the empty
    branch fails, the filled branch is replayed from its first run (its cells, values and reasons,
    in trail order: propagation is deterministic) instead of propagated again; and the cells both
    branches fix are set without propagating afterwards, as nonosolve does (``engine.h``): the
    two branches' fixpoints ``A`` and ``B`` are line-solver fixpoints, and a line solved at
    ``A & B`` forces only what every arrangement consistent with it shares, which every
    arrangement consistent with ``A`` (a subset) and with ``B`` shares too, so it is already in
    ``A & B``: the intersection is a fixpoint.

    Returns
    -------
    int
        Number of cells fixed, ``-1`` when the node is contradictory, or :data:`PROBE_STOPPED`.
    """
    problem, state, scratch = borrowed(problem), borrowed(state), borrowed(scratch)
    h, w = problem[3][0], problem[3][1]
    grid, trail, tkind, targ, st, changed_at = (
        state[0], state[1], state[2], state[3], state[6], state[9]
    )
    mark, probed_at, score_f, score_e, fcells, fixed, touched = (
        scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5], scratch[6]
    )
    freason = scratch[10]
    stop = state[15]
    tw = touched.shape[1]
    exact = track == TRACK_TOUCHED
    n = h * w
    total = 0
    changed = True
    while changed:
        changed = False
        for cell in range(n):
            if grid[cell] != 3:
                continue
            if _probe_valid(scratch, changed_at, cell, h, w, track, st[ST_EVENT]):
                continue
            if stop[0] != 0:
                return PROBE_STOPPED
            probed_at[cell] = st[ST_EVENT]
            if exact:
                for k in range(tw):
                    touched[cell, k] = 0
            base = st[ST_TLEN]
            # branch 1: filled
            st[ST_PROBES] += 1
            assign(problem, state, cell, 2, KIND_DECISION, -1, -1)
            ok_f = propagate_inline(problem, state)
            nf = st[ST_TLEN] - base
            if exact:
                _touch(problem, state, scratch, cell, base, st[ST_TLEN])
            if ok_f:
                for t in range(base, st[ST_TLEN]):
                    fcells[t - base] = trail[t]
                    freason[t - base] = targ[t]
                    mark[trail[t]] = grid[trail[t]]
            undo_to(state, base)
            # branch 2: empty
            st[ST_PROBES] += 1
            assign(problem, state, cell, 1, KIND_DECISION, -1, -1)
            ok_e = propagate_inline(problem, state)
            ne = st[ST_TLEN] - base
            if exact:
                _touch(problem, state, scratch, cell, base, st[ST_TLEN])
            if not ok_f and not ok_e:
                undo_to(state, base)
                st[ST_CONFLICTS] += 1
                return -1
            if not ok_f:
                tkind[base] = KIND_FAILED_LITERAL
                targ[base] = cell
                stamp_lines(problem, state, scratch, base)
                st[ST_PROBE_FIXES] += ne
                total += ne
                changed = True
                continue
            nfix = 0
            if ok_e:
                for t in range(base + 1, st[ST_TLEN]):
                    c = trail[t]
                    if mark[c] == grid[c]:
                        fixed[nfix] = c * 4 + grid[c]
                        nfix += 1
            undo_to(state, base)
            if not ok_e:
                # the filled branch holds: replay it (what propagating it again would write)
                put(problem, state, cell, 2, KIND_FAILED_LITERAL, cell)
                for k in range(1, nf):
                    put(problem, state, fcells[k], mark[fcells[k]], KIND_LINE, freason[k])
            for k in range(nf):
                mark[fcells[k]] = 0
            if not ok_e:
                stamp_lines(problem, state, scratch, base)
                st[ST_PROBE_FIXES] += nf
                total += nf
                changed = True
                continue
            score_f[cell] = nf
            score_e[cell] = ne
            if nfix > 0:
                for k in range(nfix):
                    c = fixed[k] // 4
                    if grid[c] == 3:
                        assign(problem, state, c, fixed[k] % 4, KIND_PROBE_BOTH, cell, -1)
                clear_queue(state)  # the intersection of two fixpoints is one (see above)
                stamp_lines(problem, state, scratch, base)
                st[ST_PROBE_FIXES] += nfix
                total += nfix
                changed = True
    return total


@njit(cache=True, nogil=True)
def best_branch(problem, state, scratch, mode):  # pragma: no cover - compiled
    """The unknown cell to branch on, from the probing scores, and the value to try first.

    ``nf``/``ne`` are the cells the filled/empty probe of a cell fixed.  ``mode`` selects the rule
    (bit 0: score by ``min(nf, ne)`` then ``max`` instead of ``(nf + 1) * (ne + 1)``; bit 1: try
    the branch that fixes *fewer* cells first instead of more; bit 2: score by LalaFrogKK's
    ``min(nf, ne) + 1.85 * log(1 + |nf - ne|)`` (Wu, Sun et al. 2013, as nonosolve uses it);
    bit 3: try empty first whatever the scores).

    Returns ``(cell, value)``, or ``(-1, 0)`` when no cell is unknown.
    """
    grid = state[0]
    score_f, score_e = scratch[2], scratch[3]
    best = -1
    best_score = -1.0
    for cell in range(grid.shape[0]):
        if grid[cell] == 3:
            a = score_f[cell]
            b = score_e[cell]
            if mode & 4:
                s = min(a, b) + 1.85 * np.log(1.0 + abs(a - b))
            elif mode & 1:
                s = min(a, b) * 100000 + max(a, b)
            else:
                s = (a + 1) * (b + 1)
            if s > best_score:
                best_score = s
                best = cell
    if best < 0:
        return -1, 0
    if mode & 8:
        return best, 1
    more = 2 if score_f[best] >= score_e[best] else 1
    return best, (3 - more if mode & 2 else more)


def probe_grid(puzzle, grid: np.ndarray | None = None, *, stop=None):
    """Propagation then failed-literal probing to a fixpoint from ``grid`` (Python face of
    :func:`probe`).

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray of int8, shape (height, width), optional
        Starting grid state (all unknown when omitted).  Not modified.
    stop : StopToken, optional
        Its flag goes into the solver state, but :func:`probe` itself does not read it (only
        :func:`probe_tracked` and the search do, whose callers tell a stop from a contradiction):
        this call runs to its fixpoint, and a caller that was stopped meanwhile looks at the
        token afterwards.

    Returns
    -------
    (ndarray of int8, list of (cell, value, stage, reason)) or None
        The fixpoint grid and the deductions in order: ``stage`` is ``"line"`` (``reason`` = line
        index), ``"failed-literal"`` or ``"probe-both"`` (``reason`` = the probed cell as
        ``(row, column)``); ``None`` on a contradiction.
    """
    from nonosat.native.propagate import KIND_NAMES, ST_TLEN, new_state, problem_tuple
    from nonosat.puzzle import Cell, pack_clues, unknown_grid

    packed = pack_clues(puzzle)
    start = unknown_grid(puzzle) if grid is None else np.asarray(grid, dtype=np.int8)
    problem = problem_tuple(packed)
    state = new_state(packed, start, stop=None if stop is None else stop.flag)
    if not propagate(problem, state) or probe(problem, state, new_probe_scratch(start.size)) < 0:
        return None
    trail, tkind, targ, st = state[1], state[2], state[3], state[6]
    w = puzzle.width
    out = []
    for t in range(int(st[ST_TLEN])):
        kind = KIND_NAMES[int(tkind[t])]
        arg = int(targ[t])
        reason = arg if kind == "line" else divmod(arg, w)
        out.append((divmod(int(trail[t]), w), Cell(int(state[0][trail[t]])), kind, reason))
    return state[0].reshape(puzzle.shape).copy(), out


@njit(cache=True, nogil=True)
def collect_implications(problem, state, pairs):  # pragma: no cover - compiled
    """Binary implications found by probing every unknown cell once from the current state.

    For each unknown cell ``x`` and value ``v``, ``x = v`` is assumed and propagated; every cell
    ``y`` it fixes to ``u`` gives the implication ``(x = v) -> (y = u)``.  Literals are encoded as
    ``2 * cell + (value == filled)``.  ``pairs`` (int32, shape (m, 2)) receives up to ``m``
    implications; failed probes contribute none.  The state is left as it was.  Once the state's
    stop flag is set, it returns between two cells (the implications written hold, but are not
    all of them: the caller looks at the flag).

    Returns
    -------
    int
        Number of implications written.
    """
    problem, state, pairs = borrowed(problem), borrowed(state), borrowed(pairs)
    h, w = problem[3][0], problem[3][1]
    grid, trail, st, stop = state[0], state[1], state[6], state[15]
    count = 0
    cap = pairs.shape[0]
    for cell in range(h * w):
        if grid[cell] != 3:
            continue
        if stop[0] != 0:
            return count
        for value in (2, 1):
            base = st[ST_TLEN]
            assign(problem, state, cell, value, KIND_DECISION, -1, -1)
            if propagate(problem, state):
                lit = 2 * cell + (1 if value == 2 else 0)
                for t in range(base + 1, st[ST_TLEN]):
                    if count >= cap:
                        break
                    other = trail[t]
                    pairs[count, 0] = lit
                    pairs[count, 1] = 2 * other + (1 if grid[other] == 2 else 0)
                    count += 1
            undo_to(state, base)
            if count >= cap:
                return count
    return count


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
