"""The exact counter's probing (:mod:`nonosat.native.count`): failed-literal probing of the
cells a count node changed, at the level of lines, with the line solver's propagation.

Mode 1 probes every undecided cell of the changed lines, mode 3 only the cells at
most :data:`NEAR` cells from a newly assigned cell along its row or column, mode 4 (the default)
mode 3 plus the decision's row and column (:func:`nonosat.native.count.count_grid`'s ``probing``).  A probe
that fails fixes the other value, as in the native solver's probing
(:mod:`nonosat.native.probe`); the assignments of a probe that succeeds are undone.

A probe that fails bumps the conflict weight of the line whose solving failed
(:func:`~nonosat.native.count_parts.bump`), and the branch is the cell of the largest lookahead
score times ``1 + alpha * (weight of its row + weight of its column) / current bump``:
conflict-directed branching (dom/wdeg) with decaying weights.
"""

from __future__ import annotations

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.count_parts import (
    BUMP_NODES,
    BUMP_PROBES,
    HEAVY_FIRST,
    M_ABORT,
    M_BOTH,
    M_FAILED,
    M_FINAL,
    M_FINAL_ISTAMP,
    M_FLAGS,
    M_ISTAMP,
    M_MODE,
    M_PASS,
    M_PROBES,
    M_PSTAMP,
    M_REUSED,
    M_SCORE,
    M_SKIPPED,
    M_STAMP,
    M_WEIGHTS,
    PROBE_BOTH,
    PROBE_SKIP_IMPLIED,
    _popcount,
    bump,
    ctz,
    seg_line,
    seg_mask,
)
from nonosat.native.propagate import (
    KIND_FAILED_LITERAL,
    ST_FAIL_LINE,
    ST_TLEN,
    assign,
    borrowed,
    clear_queue,
    propagate_inline,
    undo_to,
)

#: Probing mode 3 probes the cells at most this many cells from a newly assigned cell along
#: its row and column.
NEAR = 2

KIND_PROBE = KIND_FAILED_LITERAL  #: the trail reason of a probe's (temporary) assignments


@njit(cache=True, nogil=True, inline='always')
def _mark_dirty(problem, state, ctx, since, stamp, end):  # pragma: no cover - compiled
    """Mark the row and column of every cell at trail positions ``since .. end - 1`` dirty (with
    probing modes 3 and 4: the cells at most :data:`NEAR` cells from it along its row and column)."""
    h, w = problem[3][0], problem[3][1]
    trail, dirty, near = state[1], ctx[6], ctx[10]
    cells_only = ctx[0][M_MODE] >= 3
    for t in range(since, end):
        cell = trail[t]
        r = cell // w
        c = cell - r * w
        if cells_only:
            for d in range(-NEAR, NEAR + 1):
                if 0 <= c + d < w:
                    near[cell + d] = stamp
                if 0 <= r + d < h:
                    near[cell + d * w] = stamp
        else:
            dirty[r] = stamp
            dirty[h + c] = stamp


@njit(cache=True, nogil=True, inline='always')
def _imply(imp, istamp, cell, value):  # pragma: no cover - compiled
    """Mark ``cell = value`` implied by a successful probe of probing state ``istamp``."""
    bit = 1 if value == 2 else 2
    if imp[cell] >> 2 == istamp:
        imp[cell] |= bit
    else:
        imp[cell] = (istamp << 2) | bit


@njit(cache=True, nogil=True)
def _probe(problem, state, ctx, segs, lo, n, since, final, final_istamp):  # pragma: no cover - compiled
    """Failed-literal probing on the undecided cells of the component ``segs[lo:lo+n]``, to a
    fixpoint: a value whose propagation contradicts fixes the other value (kept on the trail:
    the caller undoes it).  A cell is probed when its row or column changed since trail position
    ``since`` (every cell when ``since < 0``), or since the previous pass fixed cells: the
    parent node was at the probing fixpoint (skipping a probe is sound: probing only adds
    consequences), as the native search's line tracking (:mod:`nonosat.native.probe`).

    With :data:`~nonosat.native.count_parts.PROBE_BOTH` in ``meta[M_FLAGS]``, the cells both
    values of a probed cell propagate to the same value are fixed too (probe-both, as
    :func:`nonosat.native.probe.probe`).  With
    :data:`~nonosat.native.count_parts.PROBE_SKIP_IMPLIED`, a value that a successful probe
    since the last fix propagated to is not probed: the line solver's propagation is monotone,
    so that value's propagation is part of the successful probe's and cannot fail (its cell
    keeps its last score for that value).  Neither changes which counts are found, only which
    cells are fixed before a branch (probe-both) and which probes run.

    Every probe that fails adds to the conflict weight of the line whose solving failed
    (:func:`~nonosat.native.count_parts.bump`, with :data:`~nonosat.native.count_parts.BUMP_PROBES`
    in ``meta[M_WEIGHTS]``; a contradiction that refutes the node, with
    :data:`~nonosat.native.count_parts.BUMP_NODES`).

    Returns ``-2`` on a contradiction (both values of a cell fail), else the cell to branch on:
    the largest ``(nf + 1) * (ne + 1)`` over the cells' two values' propagated cells (as
    :func:`nonosat.native.probe.best_branch`'s default rule; a value not probed at this node
    keeps its last count), times ``1 + alpha * (w_row + w_col) / bump`` with conflict weights
    (``w`` a line's weight, ``bump`` the current bump: with decay, about the number of recent
    failures on the cell's two lines), and with ``meta[M_SCORE]`` 1 / 2 times the sum / product of
    the undecided cells of the cell's row and column; ``-1`` when no undecided cell is left.

    ``final`` (0: none) is the id of the last pass of the probing that left the state as it is
    now (:data:`~nonosat.native.count_parts.M_FINAL`): the component below a node whose probing
    fixed cells is probed again in the same state (the node's fixes are split into components
    first), and a cell that pass probed with success (``ctx[18][cell] == final``) would give the
    same outcome again (propagation is a function of the lines' states), so it is not probed
    again (its score is that pass's) until this probing changes the state; ``final_istamp``
    is that state's stamp of implied values (:data:`~nonosat.native.count_parts.M_ISTAMP`),
    whose marks stay valid too (without them the probes they let skip ran again: taai2011 #425
    at 8,000 decisions 92,690 probes against 67,493 without reuse: dropped).  Skipping a probe is
    sound whatever it would give, so this cannot change a count.  A third of the probes ran in
    such components (8,000 decisions: tcga2020 #500 288,141 of 867,414; taai2011 #450 147,453
    of 465,971).  Measured (``benchmarks/bench_count_ab.py``, 6,000 decisions, 3 rounds
    interleaved, load 2.6-3.1; the search itself differs a little, the skipped probes' marks
    and scores being the parent's): probes 0.87x / 0.89x / 0.99x / 0.91x / 0.90x and seconds
    0.86x / 0.88x / 0.95x / 0.88x / 1.0x on tcga2020 #500 / icga2017 #500 / taai2014 #500 /
    taai2011 #450 / #425, fresh random 25x25 pictures 0.80x / 0.94x probes.  Counted to the end
    (2 rounds, load 4): taai2014 #500 22.4 / 19.9 s, icga2017 #500 4.5 / 4.7 s (29,174 /
    34,840 decisions), taai2011 #450 5.9 / 7.3 s (95,348 / 108,822 decisions: the search of
    #450 is chaotic, see :func:`nonosat.native.count.count_grid`'s ``weights``); one round,
    load 2.2-2.8: tcga2020 #500 (210,785 solutions) 57.8 / 34.0 s (402,064 / 277,928
    decisions, 40.5 M / 22.5 M probes); fresh pictures (seeds 27018, 27022 of
    ``bench_count_ab.py --density 0.4,0.5``) 3.3 / 4.0 s and 9.6 / 8.1 s.  Over 14 puzzles
    counted to the end: geomean 0.85x the time, per decision cheaper on 11.  Returns with
    ``meta[M_FINAL]`` / ``meta[M_FINAL_ISTAMP]`` set to this probing's last pass / stamp of
    implied values."""
    problem, state, ctx = borrowed(problem), borrowed(state), borrowed(ctx)
    h, w = problem[3][0], problem[3][1]
    grid, trail, st, stop = state[0], state[1], state[6], state[15]
    lf, le = state[11], state[12]
    meta, dirty, score, near = ctx[0], ctx[6], ctx[7], ctx[10]
    pmark, imp, fixed = ctx[11], ctx[12], ctx[13]
    both = (meta[M_FLAGS] & PROBE_BOTH) != 0
    skip = (meta[M_FLAGS] & PROBE_SKIP_IMPLIED) != 0
    meta[M_STAMP] += 1
    stamp = meta[M_STAMP]
    if since < 0:
        for i in range(lo, lo + n):
            dirty[seg_line(segs[i])] = stamp
    elif meta[M_MODE] == 2 and st[ST_TLEN] > since:
        # light probing: from the lines of the first cell assigned (the decision) only
        _mark_dirty(problem, state, ctx, since, stamp, since + 1)
    else:
        _mark_dirty(problem, state, ctx, since, stamp, st[ST_TLEN])
        if meta[M_MODE] == 4 and st[ST_TLEN] > since:
            # and the decision's row and column
            cell = state[1][since]
            dirty[cell // w] = stamp
            dirty[h + cell % w] = stamp
    if final != 0:
        cur = final_istamp  # the state is the one those probes' implied marks were made in
    else:
        meta[M_ISTAMP] += 1
        cur = meta[M_ISTAMP]
    # the component's row segments (sorted: rows first), with HEAVY_FIRST in the order of their
    # rows' conflict weights, heaviest first (a contradiction is then met after fewer probes)
    nrows = 0
    while nrows < n and seg_line(segs[lo + nrows]) < h:
        nrows += 1
    heavy = (meta[M_FLAGS] & HEAVY_FIRST) != 0
    if heavy:
        order, weight = ctx[14], ctx[15]
        for k in range(nrows):
            x = lo + k
            wx = weight[seg_line(segs[x])]
            j = k
            while j > 0 and weight[seg_line(segs[order[j - 1]])] < wx:
                order[j] = order[j - 1]
                j -= 1
            order[j] = x
    pdone = ctx[18]
    while True:
        changed = False
        pass_start = st[ST_TLEN]
        meta[M_PASS] += 1
        pid = meta[M_PASS]
        for k in range(nrows):
            i = ctx[14][k] if heavy else lo + k
            line = seg_line(segs[i])
            if stop[0] != 0:
                meta[M_ABORT] = 1
                return -1
            free = seg_mask(segs[i]) & ~(lf[line] | le[line])
            row_dirty = dirty[line] == stamp
            while free != 0:
                c = ctz(free)
                free &= free - 1
                cell = line * w + c
                if grid[cell] != 3 or not (row_dirty or dirty[h + c] == stamp
                                           or near[cell] == stamp):
                    continue
                if final != 0 and pdone[cell] == final:
                    meta[M_REUSED] += 2
                    pdone[cell] = pid
                    continue
                istamp = cur
                implied = imp[cell] & 3 if skip and imp[cell] >> 2 == istamp else 0
                if implied == 3:
                    meta[M_SKIPPED] += 2
                    continue
                mark = st[ST_TLEN]
                old = score[cell]
                nf = old >> 24
                ne = old & 0xFFFFFF
                okf = True
                ffail = -1
                pst = 0
                if implied & 1 == 0:
                    assign(problem, state, cell, 2, KIND_PROBE, cell, -1)
                    okf = propagate_inline(problem, state)
                    meta[M_PROBES] += 1
                    if okf:
                        nf = st[ST_TLEN] - mark
                        if both:
                            meta[M_PSTAMP] += 1
                            pst = meta[M_PSTAMP] << 2
                        for t in range(mark, st[ST_TLEN]):
                            x = trail[t]
                            if both:
                                pmark[x] = pst | grid[x]
                            if skip:
                                _imply(imp, istamp, x, grid[x])
                    else:
                        clear_queue(state)
                        ffail = st[ST_FAIL_LINE]
                        bump(ctx, ffail, BUMP_PROBES)
                    undo_to(state, mark)
                else:
                    meta[M_SKIPPED] += 1
                oke = True
                nfix = 0
                if implied & 2 == 0:
                    assign(problem, state, cell, 1, KIND_PROBE, cell, -1)
                    oke = propagate_inline(problem, state)
                    meta[M_PROBES] += 1
                    if oke:
                        ne = st[ST_TLEN] - mark
                        if skip:
                            for t in range(mark, st[ST_TLEN]):
                                _imply(imp, istamp, trail[t], grid[trail[t]])
                        if pst != 0:
                            for t in range(mark + 1, st[ST_TLEN]):
                                x = trail[t]
                                if pmark[x] == pst | grid[x]:
                                    fixed[nfix] = x * 4 + grid[x]
                                    nfix += 1
                    else:
                        clear_queue(state)
                        bump(ctx, st[ST_FAIL_LINE], BUMP_PROBES)
                    if not okf and not oke:
                        bump(ctx, ffail, BUMP_NODES)
                        bump(ctx, st[ST_FAIL_LINE], BUMP_NODES)
                        undo_to(state, mark)
                        return -2
                    if not okf:
                        # empty holds, with its propagation: keep it
                        meta[M_FAILED] += 1
                        changed = True
                        final = 0
                        meta[M_ISTAMP] += 1
                        cur = meta[M_ISTAMP]
                        continue
                    undo_to(state, mark)
                else:
                    meta[M_SKIPPED] += 1
                    if not okf:
                        # filled failed, empty is implied by a successful probe: fix it
                        assign(problem, state, cell, 1, KIND_PROBE, cell, -1)
                        if not propagate_inline(problem, state):
                            clear_queue(state)
                            bump(ctx, ffail, BUMP_NODES)
                            bump(ctx, st[ST_FAIL_LINE], BUMP_NODES)
                            undo_to(state, mark)
                            return -2
                        meta[M_FAILED] += 1
                        changed = True
                        final = 0
                        meta[M_ISTAMP] += 1
                        cur = meta[M_ISTAMP]
                        continue
                if not oke:
                    meta[M_FAILED] += 1
                    assign(problem, state, cell, 2, KIND_PROBE, cell, -1)
                    propagate_inline(problem, state)
                    changed = True
                    final = 0
                    meta[M_ISTAMP] += 1
                    cur = meta[M_ISTAMP]
                    continue
                score[cell] = (nf << 24) | ne
                if nfix == 0:
                    pdone[cell] = pid
                if nfix > 0:
                    for k in range(nfix):
                        x = fixed[k] >> 2
                        if grid[x] == 3:
                            assign(problem, state, x, fixed[k] & 3, KIND_PROBE, cell, -1)
                    meta[M_BOTH] += nfix
                    if not propagate_inline(problem, state):
                        clear_queue(state)
                        bump(ctx, st[ST_FAIL_LINE], BUMP_NODES)
                        return -2
                    changed = True
                    final = 0
                    meta[M_ISTAMP] += 1
                    cur = meta[M_ISTAMP]
        if not changed:
            break
        meta[M_STAMP] += 1
        stamp = meta[M_STAMP]
        _mark_dirty(problem, state, ctx, pass_start, stamp, st[ST_TLEN])
    meta[M_FINAL] = pid
    meta[M_FINAL_ISTAMP] = cur
    best = -1
    best_score = -1.0
    weight = ctx[15]
    nl = weight.shape[0] - 3
    # conflict weights: the score times 1 + alpha * (row's + column's weight) / current bump
    alpha = weight[nl + 2] / weight[nl] if meta[M_WEIGHTS] != 0 else 0.0
    for i in range(lo, lo + n):
        line = seg_line(segs[i])
        if line >= h:
            break
        free = seg_mask(segs[i]) & ~(lf[line] | le[line])
        wrow = weight[line]
        rule = meta[M_SCORE]
        nr = _popcount(((1 << w) - 1) & ~(lf[line] | le[line])) if rule != 0 else 0
        while free != 0:
            c = ctz(free)
            free &= free - 1
            cell = line * w + c
            sc = score[cell]
            v = float(((sc >> 24) + 1) * ((sc & 0xFFFFFF) + 1))
            if rule != 0:
                nc = _popcount(((1 << h) - 1) & ~(lf[h + c] | le[h + c]))
                v *= float(nr + nc) if rule == 1 else float(nr * nc)
            if alpha != 0.0:
                v *= 1.0 + alpha * (wrow + weight[h + c])
            if v > best_score:
                best_score = v
                best = cell
    return best


stamp_module(globals())
