"""The exact counter's probing (:mod:`nonosat.native.count`): failed-literal probing of the
cells a count node changed, at the level of lines, with the line solver's propagation.

Mode 1 probes every undecided cell of the changed lines, mode 3 only the cells at
most :data:`NEAR` cells from a newly assigned cell along its row or column, mode 4 (the default)
mode 3 plus the decision's row and column (:func:`nonosat.native.count.count_grid`'s ``probing``).  A probe
that fails fixes the other value, as in the native solver's probing
(:mod:`nonosat.native.probe`); the assignments of a probe that succeeds are undone.
"""

from __future__ import annotations

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.count_parts import (
    M_ABORT,
    M_MODE,
    M_PROBES,
    M_STAMP,
    ctz,
    seg_line,
    seg_mask,
)
from nonosat.native.propagate import (
    KIND_FAILED_LITERAL,
    ST_TLEN,
    assign,
    clear_queue,
    propagate,
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


@njit(cache=True, nogil=True)
def _probe(problem, state, ctx, segs, lo, n, since):  # pragma: no cover - compiled
    """Failed-literal probing on the undecided cells of the component ``segs[lo:lo+n]``, to a
    fixpoint: a value whose propagation contradicts fixes the other value (kept on the trail:
    the caller undoes it).  A cell is probed when its row or column changed since trail position
    ``since`` (every cell when ``since < 0``), or since the previous pass fixed cells: the
    parent node was at the probing fixpoint (skipping a probe is sound: probing only adds
    consequences), as the native search's line tracking (:mod:`nonosat.native.probe`).

    Returns ``-2`` on a contradiction (both values of a cell fail), else the cell to branch on:
    the largest ``(nf + 1) * (ne + 1)`` over the cells' two values' propagated cells (as
    :func:`nonosat.native.probe.best_branch`'s default rule; a cell not probed at this node
    keeps its last score), or ``-1`` when no undecided cell is left."""
    h, w = problem[3][0], problem[3][1]
    grid, st, stop = state[0], state[6], state[15]
    lf, le = state[11], state[12]
    meta, dirty, score, near = ctx[0], ctx[6], ctx[7], ctx[10]
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
    while True:
        changed = False
        pass_start = st[ST_TLEN]
        for i in range(lo, lo + n):
            line = seg_line(segs[i])
            if line >= h:
                break  # the segments are sorted: rows first
            if stop[0] != 0:
                meta[M_ABORT] = 1
                return -1
            free = seg_mask(segs[i]) & ~(lf[line] | le[line])
            row_dirty = dirty[line] == stamp
            while free != 0:
                c = ctz(free)
                free &= free - 1
                cell = line * w + c
                if grid[cell] == 3 and (row_dirty or dirty[h + c] == stamp
                                        or near[cell] == stamp):
                    mark = st[ST_TLEN]
                    assign(problem, state, cell, 2, KIND_PROBE, cell, -1)
                    okf = propagate(problem, state)
                    nf = st[ST_TLEN] - mark
                    if not okf:
                        clear_queue(state)
                    undo_to(state, mark)
                    assign(problem, state, cell, 1, KIND_PROBE, cell, -1)
                    oke = propagate(problem, state)
                    ne = st[ST_TLEN] - mark
                    if not oke:
                        clear_queue(state)
                    meta[M_PROBES] += 2
                    if not okf and not oke:
                        undo_to(state, mark)
                        return -2
                    if not okf:
                        changed = True  # empty holds, with its propagation: keep it
                    elif not oke:
                        undo_to(state, mark)
                        assign(problem, state, cell, 2, KIND_PROBE, cell, -1)
                        propagate(problem, state)
                        changed = True
                    else:
                        undo_to(state, mark)
                        score[cell] = (nf + 1) * (ne + 1)
        if not changed:
            break
        meta[M_STAMP] += 1
        stamp = meta[M_STAMP]
        _mark_dirty(problem, state, ctx, pass_start, stamp, st[ST_TLEN])
    best = -1
    best_score = -1
    for i in range(lo, lo + n):
        line = seg_line(segs[i])
        if line >= h:
            break
        free = seg_mask(segs[i]) & ~(lf[line] | le[line])
        while free != 0:
            c = ctz(free)
            free &= free - 1
            cell = line * w + c
            if score[cell] > best_score:
                best_score = score[cell]
                best = cell
    return best


stamp_module(globals())
