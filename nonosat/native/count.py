"""Exact solution counts of black-and-white nonograms: a #SAT search over line segments.

:func:`count_grid` counts the pictures that satisfy every clue (and agree with a partial grid)
without storing them, up to a limit, compiled with numba.  It is a DPLL-style model counter
whose constraints are nonogram lines, cut into independent segments as cells are decided:

1. **Propagation** at every node is the native solver's complete line solver to a fixpoint
   (:func:`nonosat.native.propagate.propagate`, with its line cache): a line that cannot hold
   its clue ends the branch with count 0.
2. **Components over line segments.**  A line whose blocks fall apart is cut: when the last
   cell that block ``j - 1`` can cover (over the arrangements the line solver allows, from its
   blocks' possible starts) lies at least two cells before the first cell block ``j`` can
   cover, the cells between are empty in every arrangement, and the line's arrangements are
   the pairs of an arrangement of blocks ``..j-1`` on the cells before and one of blocks
   ``j..`` on the cells after: the line's constraint is the product of its *segments'*
   (:func:`nonosat.native.count_parts._refine`; a segment is a line's cells ``lo..hi``
   holding its blocks ``p..q-1``, the nonogram analogue of a CNF counter splitting a line's
   clauses between blocks).  The segments holding undecided cells form a bipartite graph (a
   row segment and a column segment are joined by each undecided cell they share); the count
   is the *product* of the counts of its connected components, each counted on its own (a
   component's count depends only on its segments' cells and blocks).  Segments are cut again
   as the search decides cells (a cut, once made, holds below the node).
3. **Component cache.**  The count of a component is stored under its exact key (each of its
   segments: line, cells, blocks, and the known-filled and known-empty cells among its cells
   as bit masks), so a component met again under another branch, or another order of
   decisions, is not counted twice: the component caching of Thurley's sharpSAT [1]_ and of
   Ganak [2]_ (here the key is exact, compared word for word, so a hash collision cannot
   change a count).
4. **Branching** on one undecided cell of the component: the count is the sum of the counts of
   its two values.  With probing (the default, in components of at least
   :data:`DEFAULT_PROBE_MIN` undecided cells) the cell is chosen by lookahead, the largest
   ``(nf + 1) * (ne + 1)`` over the cells its two values propagate to, weighted by
   **conflict-directed** line weights: every propagation that fails (a probe's or a
   decision's) adds to the weight of the line that failed, the weights decaying as VSIDS
   activities do (each bump is ``1 / decay`` times the last), and a cell's score is multiplied
   by ``1 + alpha * (w_row + w_col) / bump``: dom/wdeg [4]_ on lines with the decay of
   sharpSAT's VSADS [5]_, which takes the search to the lines that keep failing so that a
   component without a solution is refuted sooner (the counter has no clause learning).
   Without probing, :data:`BRANCH_RULES`.  Below a node whose probing fixed cells, the
   components of what is left are probed again in the same state: the cells the last pass of
   that probing probed are not (:func:`nonosat.native.count_probe._probe`'s ``final``).
5. **Bounded counting.**  Every count is asked for with a cap: an answer below the cap is
   exact, an answer equal to the cap means *at least* the cap.  A sum stops once its first
   branch reaches the cap; a product asks each factor for the cap divided by the factors
   already known, and once a factor reaches its share it only checks that the remaining
   factors have a solution.  So a puzzle with more than ``limit`` solutions stops with the
   lower bound ``limit + 1`` instead of counting them all.  Cached answers keep whether they
   are exact.

The search reads the stop flag (``state[15]``, a :class:`nonosat.stop.StopToken`'s ``flag``) at
every node: a cancel, a time limit or an interrupt ends it within one node, unfinished.

Black-and-white puzzles whose rows and columns have at most
:data:`~nonosat.native.line.BITS_MAX_LINE` cells only (the line state is two int64 masks);
colour puzzles and longer lines are counted by Ganak (:mod:`nonosat.engines.counting`).

This module builds only on the model and the native kernels (never on the encodings), so a
count is cross-checked against Ganak's count of the CNF by an independent engine.

References
----------
.. [1] M. Thurley, "sharpSAT -- Counting Models with Advanced Component Caching and Implicit
   BCP", SAT 2006, LNCS 4121, pp. 424-429.
.. [2] S. Sharma, S. Roy, M. Soos, K. S. Meel, "GANAK: A Scalable Probabilistic Exact Model
   Counter", IJCAI 2019 (component caching with hashed keys, branching that splits
   components).
.. [3] K. J. Batenburg, W. A. Kosters, "Solving Nonograms by combining relaxations", Pattern
   Recognition 42(8), 2009 (the line solver the propagation runs).
.. [4] F. Boussemart, F. Hemery, C. Lecoutre, L. Sais, "Boosting systematic search by
   weighting constraints", ECAI 2004, pp. 146-150.
.. [5] T. Sang, P. Beame, H. Kautz, "Heuristics for Fast Exact Model Counting", SAT 2005,
   LNCS 3569, pp. 226-240.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.native.count_parts import (
    BUMP_NODES,
    BUMP_PROBES,
    HEAVY_FIRST,
    M_ABORT,
    M_BOTH,
    M_BRANCH,
    M_CLEARS,
    M_FAILED,
    M_FINAL,
    M_FINAL_ISTAMP,
    M_FLAGS,
    M_FULL_DEPTH,
    M_GEN,
    M_HITS,
    M_MAX_NODES,
    M_MAXDEPTH,
    M_MODE,
    M_NODES,
    M_PROBE_DEPTH,
    M_PROBE_MIN,
    M_PROBES,
    M_PROBING,
    M_REUSED,
    M_SCORE,
    M_SKIPPED,
    M_SPLITS,
    M_STOP_SP,
    M_STORES,
    M_TOP,
    M_WEIGHTS,
    M_ZEROS,
    PROBE_BOTH,
    PROBE_SKIP_IMPLIED,
    _components,
    _key_hash,
    _lookup,
    _popcount,
    _refine,
    _store,
    bump,
    ctz,
    new_count_context,
    seg_line,
    seg_mask,
    seg_word,
    segment_stack_words,
)
from nonosat.native.count_probe import _probe
from nonosat.native.line import BITS_MAX_LINE
from nonosat.native.propagate import (
    KIND_DECISION,
    ST_FAIL_LINE,
    ST_TLEN,
    assign,
    borrowed,
    clear_queue,
    give_cells,
    new_state,
    problem_tuple,
    propagate,
    propagate_inline,
    undo_to,
)
from nonosat.puzzle import Puzzle, pack_clues, unknown_grid
from nonosat.stop import StopToken

#: Nested splits the segment stack holds at first (:func:`count_grid` grows it when a count
#: needs more: never seen on 25x25 puzzles, whose searches are at most ~160 frames deep).
SEG_STACK_DEPTH = 256

#: The most int64 words the segment stack may grow to (32 MiB).  Its bound for any count
#: (:func:`~nonosat.native.count_parts.segment_stack_words` with one nested split per cell) is
#: 349 MiB on a 62x62 puzzle with 31 blocks a line, more than a batch child's address-space
#: limit may allow: a count that fills this many words gives up (``reason``) instead.
SEG_STACK_MAX_WORDS = 1 << 22


#: Counts above this are reported as the lower bound ``limit + 1`` by default.
DEFAULT_LIMIT = 10**6

#: Branching rules (``branch`` of :func:`count_grid`):
#: 0: an undecided cell of the component's line with the fewest undecided cells;
#: 1: the undecided cell whose row and column have the most undecided cells together (the
#: cell that ties the most of the component together, to split it sooner).
BRANCH_RULES = (0, 1)

#: Components with fewer undecided cells than this are not probed by default (``probe_min`` of
#: :func:`count_grid`): they branch by ``branch`` with line propagation alone, which costs less
#: there than the probes save.  Measured (``benchmarks/bench_count_lanes.py --mode settings``,
#: the 28 fresh-seed puzzles and 5 corpus checks, 10 s of CPU each, load ~2): 100 counted 29/33
#: in 118.8 s of CPU in all, 0 (probing every component) 27/33 in 132.9 s; 60: 28/33, 150:
#: 28/33, both slower than 100; tcga2020 #500 alone 22.5 s against 37.0 s (load 1.9).
DEFAULT_PROBE_MIN = 100

#: Probing options by default (``probe_flags`` of :func:`count_grid`).
DEFAULT_PROBE_FLAGS = PROBE_BOTH | PROBE_SKIP_IMPLIED | HEAVY_FIRST

#: Conflict weights by default (``weights`` of :func:`count_grid`): failed probes and refuted
#: nodes both bump their failing line.
DEFAULT_WEIGHTS = BUMP_PROBES | BUMP_NODES

#: Scores of the probing branch (``score`` of :func:`count_grid`): 0 the lookahead score
#: ``(nf + 1) * (ne + 1)``; 1 / 2 that times the sum / product of the undecided cells of the
#: cell's row and column (cells that tie more of the component together).
SCORE_RULES = (0, 1, 2)

@njit(cache=True, nogil=True)
def _choose(problem, state, ctx, segs, lo, n):  # pragma: no cover - compiled
    """The cell to branch on in the component ``segs[lo:lo+n]`` (:data:`BRANCH_RULES`)."""
    h, w = problem[3][0], problem[3][1]
    lf, le = state[11], state[12]
    rule = ctx[0][M_BRANCH]
    if rule == 1:
        best = -1
        best_score = -1
        for i in range(lo, lo + n):
            line = seg_line(segs[i])
            if line >= h:
                break  # sorted: rows first
            free = seg_mask(segs[i]) & ~(lf[line] | le[line])
            nr = _popcount(((1 << w) - 1) & ~(lf[line] | le[line]))
            while free != 0:
                c = ctz(free)
                free &= free - 1
                col = h + c
                nc = _popcount(((1 << h) - 1) & ~(lf[col] | le[col]))
                score = nr + nc
                if score > best_score:
                    best_score = score
                    best = line * w + c
        return best
    best_seg = -1
    best_free = 1 << 30
    for i in range(lo, lo + n):
        line = seg_line(segs[i])
        u = _popcount(seg_mask(segs[i]) & ~(lf[line] | le[line]))
        if 0 < u < best_free:
            best_free = u
            best_seg = i
    line = seg_line(segs[best_seg])
    p = ctz(seg_mask(segs[best_seg]) & ~(lf[line] | le[line]))
    if line < h:
        return line * w + p
    return p * w + (line - h)


@njit(cache=True, nogil=True)
def _open_cells(problem, state, segs, lo, n):  # pragma: no cover - compiled
    """The number of undecided cells of the component ``segs[lo:lo+n]`` (those of its rows)."""
    h = problem[3][0]
    lf, le = state[11], state[12]
    total = 0
    for i in range(lo, lo + n):
        line = seg_line(segs[i])
        if line >= h:
            break
        total += _popcount(seg_mask(segs[i]) & ~(lf[line] | le[line]))
    return total


# frame kinds and fields of the counter's explicit stack (numba compiles recursion, but its
# on-disk cache does not load recursive kernels reliably)
K_SPLIT = 0  #: count the undecided part of some segments: the product of its components
K_COMP = 1  #: count one component: probe, then branch on a cell
F_KIND, F_LO, F_N, F_CAP, F_SINCE, F_ACC, F_PHASE, F_MARK, F_CELL, F_PMARK = range(10)
F_TOP, F_AT, F_END, F_SHARE, F_MODE, F_FINAL, F_FINAL_I = range(10, 17)
F_SIZE = 17


@njit(cache=True, nogil=True, inline='always')
def _push(frames, sp, kind, lo, n, cap, since):  # pragma: no cover - compiled
    frames[sp, F_KIND] = kind
    frames[sp, F_LO] = lo
    frames[sp, F_N] = n
    frames[sp, F_CAP] = cap
    frames[sp, F_SINCE] = since
    frames[sp, F_PHASE] = 0
    frames[sp, F_FINAL] = 0
    return sp + 1


@njit(cache=True, nogil=True)
def count_kernel(problem, state, ctx, frames, hvs, cap):  # pragma: no cover - compiled
    """The number of solutions from ``state`` (lines queued), bounded by ``cap``: below ``cap``
    exact, ``cap`` meaning at least ``cap``; ``-1`` when the stop flag ended the count.

    A depth-first search on an explicit stack ``frames`` (int64, (``2 * h * w + 8``,
    :data:`F_SIZE`); ``hvs`` (uint64) the component frames' key hashes).  A *split* frame
    counts the undecided part of a list of segments (sorted segment words, at the propagation
    fixpoint): it cuts them where their lines' blocks now fall apart, then takes the product
    of its components' counts: each component is asked for the cap
    divided by the product so far; once one reaches its share, the remaining ones are only
    checked to have a solution (cap 1).  A *component* frame looks its key up in the cache,
    probes (the cells fixed are undone when it ends; what is left is split again), else
    branches on a cell: filled, then empty, each propagated and split; the sum stops at the
    cap.  The cells assigned since a frame's ``since`` trail position are new at that node
    (``-1``: every cell): probing starts from their lines.
    """
    # borrowed views: no reference counting in the calls below (the caller holds the arrays)
    problem, state, ctx = borrowed(problem), borrowed(state), borrowed(ctx)
    frames, hvs = borrowed(frames), borrowed(hvs)
    meta, segs = ctx[0], ctx[3]
    st, stop = state[6], state[15]
    start, known = problem[1], problem[2]
    h, w = problem[3][0], problem[3][1]
    if not propagate(problem, state):
        clear_queue(state)
        return 0
    n0 = h + w
    if segs.shape[0] < n0:
        meta[M_ABORT] = 2  # no room for the root's segments (count_grid never allows it)
        return 0
    for line in range(n0):
        length = w if line < h else h
        k = start[line + 1] - start[line] if known[line] else 0
        segs[line] = seg_word(line, 0, length - 1, 0, k)
    meta[M_TOP] = n0
    probing = meta[M_PROBING] != 0
    sp = _push(frames, 0, K_SPLIT, 0, n0, cap, -1)
    ret = 0
    while sp > 0:
        f = sp - 1
        lo = frames[f, F_LO]
        n = frames[f, F_N]
        fcap = frames[f, F_CAP]
        phase = frames[f, F_PHASE]
        if frames[f, F_KIND] == K_SPLIT:
            if phase == 0:
                top = meta[M_TOP]
                r = _refine(problem, state, ctx, segs, lo, n, top)
                k, m = (-1, 0) if r < 0 else _components(problem, state, ctx, segs, top, r,
                                                         top + r)
                if k < 0:
                    meta[M_ABORT] = 2  # the segment stack is full (never, by its size)
                    ret = 0
                    sp -= 1
                    continue
                if k == 0:
                    ret = 1  # every cell decided (and every line checked by propagation)
                    sp -= 1
                    continue
                if k > 1:
                    meta[M_SPLITS] += 1
                frames[f, F_TOP] = top
                frames[f, F_AT] = top + r
                frames[f, F_END] = top + r + m
                frames[f, F_ACC] = 1
                frames[f, F_MODE] = 0
                frames[f, F_PHASE] = 1
                meta[M_TOP] = top + r + m
            else:
                # a component counted: ret
                result = -1
                at = frames[f, F_AT]
                frames[f, F_AT] = at + segs[at] + 1
                if meta[M_ABORT] != 0 or ret == 0:
                    result = 0
                elif frames[f, F_MODE] == 0:
                    if ret >= frames[f, F_SHARE]:
                        frames[f, F_MODE] = 1  # at least the cap, if the rest has a solution
                    else:
                        frames[f, F_ACC] *= ret
                if result < 0 and frames[f, F_AT] >= frames[f, F_END]:
                    result = frames[f, F_ACC] if frames[f, F_MODE] == 0 else fcap
                if result >= 0:
                    meta[M_TOP] = frames[f, F_TOP]
                    ret = result
                    sp -= 1
                    continue
            at = frames[f, F_AT]
            if frames[f, F_MODE] == 0:
                product = frames[f, F_ACC]
                share = (fcap + product - 1) // product
            else:
                share = 1
            frames[f, F_SHARE] = share
            sp = _push(frames, sp, K_COMP, at + 1, segs[at], share, frames[f, F_SINCE])
            frames[sp - 1, F_FINAL] = frames[f, F_FINAL]
            frames[sp - 1, F_FINAL_I] = frames[f, F_FINAL_I]
            continue
        # a component frame
        if phase == 0:
            if stop[0] != 0 or meta[M_NODES] >= meta[M_MAX_NODES]:
                meta[M_ABORT] = 1
                meta[M_STOP_SP] = sp
                ret = 0
                sp -= 1
                continue
            hv = _key_hash(state, segs, lo, n)
            hvs[f] = hv
            slot = _lookup(state, ctx, segs, lo, n, hv)
            table = ctx[1]
            if table[slot, 0] == meta[M_GEN]:
                packed = table[slot, 3]
                value = packed >> 1
                if (packed & 1) == 1 or value >= fcap:
                    meta[M_HITS] += 1
                    ret = min(value, fcap)
                    sp -= 1
                    continue
            pmark = st[ST_TLEN]
            frames[f, F_PMARK] = pmark
            cell = -1
            if (probing and sp <= meta[M_PROBE_DEPTH]
                    and _open_cells(problem, state, segs, lo, n) >= meta[M_PROBE_MIN]):
                meta[M_MODE] = 1 if sp <= meta[M_FULL_DEPTH] else meta[M_PROBING]
                cell = _probe(problem, state, ctx, segs, lo, n, frames[f, F_SINCE],
                              frames[f, F_FINAL], frames[f, F_FINAL_I])
                if meta[M_ABORT] != 0:
                    meta[M_STOP_SP] = sp
                    undo_to(state, pmark)
                    ret = 0
                    sp -= 1
                    continue
                if cell == -2:
                    undo_to(state, pmark)
                    _store(state, ctx, segs, lo, n, hv, 0, True)
                    ret = 0
                    sp -= 1
                    continue
                if st[ST_TLEN] > pmark:
                    # cells fixed: what is left may fall apart
                    # (in the state probing left, whose last pass's probes need not run again)
                    frames[f, F_PHASE] = 3
                    sp = _push(frames, sp, K_SPLIT, lo, n, fcap, pmark)
                    frames[sp - 1, F_FINAL] = meta[M_FINAL]
                    frames[sp - 1, F_FINAL_I] = meta[M_FINAL_ISTAMP]
                    continue
            else:
                cell = _choose(problem, state, ctx, segs, lo, n)
            frames[f, F_CELL] = cell
            frames[f, F_ACC] = 0
            value = 2
            frames[f, F_PHASE] = 1
        elif phase == 3:
            undo_to(state, frames[f, F_PMARK])
            if meta[M_ABORT] == 0:
                _store(state, ctx, segs, lo, n, hvs[f], ret, ret < fcap)
            sp -= 1
            continue
        else:
            # a branch counted: ret
            undo_to(state, frames[f, F_MARK])
            if meta[M_ABORT] != 0:
                ret = 0
                sp -= 1
                continue
            total = frames[f, F_ACC] + ret
            if total >= fcap or phase == 2:
                total = min(total, fcap)
                _store(state, ctx, segs, lo, n, hvs[f], total, total < fcap)
                ret = total
                sp -= 1
                continue
            frames[f, F_ACC] = total
            value = 1
            frames[f, F_PHASE] = 2
        # try the cell with ``value``
        mark = st[ST_TLEN]
        frames[f, F_MARK] = mark
        meta[M_NODES] += 1
        assign(problem, state, frames[f, F_CELL], value, KIND_DECISION, 0, -1)
        if propagate_inline(problem, state):
            sp = _push(frames, sp, K_SPLIT, lo, n, fcap - frames[f, F_ACC], mark)
            if sp > meta[M_MAXDEPTH]:
                meta[M_MAXDEPTH] = sp
        else:
            clear_queue(state)
            bump(ctx, st[ST_FAIL_LINE], BUMP_NODES)
            ret = 0  # resumes this frame at its phase with a count of 0
    if meta[M_ABORT] != 0:
        return -1
    return ret


@dataclass(frozen=True)
class NativeCount:
    """The outcome of :func:`count_grid`.

    Attributes
    ----------
    count : int or None
        The exact count when ``exact``; ``limit + 1`` (a lower bound) when the puzzle has more
        than ``limit`` solutions; ``None`` when the count was stopped (time limit, cancel,
        ``max_nodes``).
    exact : bool
    finished : bool
        The count ended (exact or above the limit), not stopped.
    time_s : float
        Seconds in the compiled counter.
    stats : dict of str to int
        ``nodes`` (decisions), ``cache_hits``, ``cached`` (components stored), ``splits``
        (nodes whose undecided cells fell apart into several components), ``cache_clears``,
        ``max_depth``, ``probes``, ``restarts`` (counts run again with a larger segment stack),
        ``probes_reused`` (probes not run again below a node whose probing fixed cells: their
        cell was probed in the same state by that probing's last pass).
    reason : str
        Why an unfinished count stopped: ``"stopped"`` (the stop flag) or
        ``"segment stack full"`` (the search nests deeper than :data:`SEG_STACK_MAX_WORDS`
        allows); ``""`` when it finished.
    lower_bound : int
        A count that finished: ``count``.  A stopped count: the solutions its finished parts
        prove (:func:`_stopped_lower_bound`, often 0), at most ``limit + 1``.
    """

    count: int | None
    exact: bool
    finished: bool
    time_s: float
    stats: dict[str, int]
    reason: str = ""
    lower_bound: int = 0


def supported(puzzle: Puzzle) -> bool:
    """Whether :func:`count_grid` counts ``puzzle``: black-and-white, with rows and columns of
    at most :data:`~nonosat.native.line.BITS_MAX_LINE` cells."""
    return (not puzzle.is_colour and puzzle.width <= BITS_MAX_LINE
            and puzzle.height <= BITS_MAX_LINE)


def count_grid(
    puzzle: Puzzle,
    partial: np.ndarray | None = None,
    *,
    limit: int = DEFAULT_LIMIT,
    stop: StopToken | None = None,
    branch: int = 0,
    probing: bool | int = 4,
    probe_depth: int | None = None,
    probe_min: int = DEFAULT_PROBE_MIN,
    max_nodes: int | None = None,
    full_depth: int = 0,
    probe_flags: int = DEFAULT_PROBE_FLAGS,
    weights: int = DEFAULT_WEIGHTS,
    weight_decay: float = 0.95,
    weight_alpha: float = 2.5,
    score: int = 0,
) -> NativeCount:
    """Count the solutions of ``puzzle`` that agree with ``partial``, up to ``limit``.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white, rows and columns of at most 62 cells (:func:`supported`).
    partial : ndarray of int8, shape (height, width), optional
        Grid state (:class:`~nonosat.puzzle.Cell` values) whose known cells are given.
    limit : int
        Counts up to ``limit`` are exact; above it the result is the lower bound ``limit + 1``
        (and the counter stops early).
    stop : StopToken, optional
        The compiled counter reads its flag at every node: once set, the count stops
        unfinished (``count=None``).  Arm it for a time limit (:func:`nonosat.stop.for_solve`).
    branch : int
        Branching rule without probing (:data:`BRANCH_RULES`).
    probing : bool or int
        Failed-literal probing at every node (``True`` or 1: the cells of every line changed
        since the parent node; 2: of the decision's row and column only, and of the lines
        probing changes; 3: the cells at most
        :data:`~nonosat.native.count_probe.NEAR` cells from a cell assigned since the parent
        node, along its row and column; 4, the default: those and the decision's
        row and column; ``False`` or 0: none); the branch is then the cell whose two values
        propagate furthest.  Mode 3 against 1 (``benchmarks/bench_count.py --probing``, taai2011,
        same load): #275 1.45 s / 2.28 s, #400 0.07 / 0.13 s, #425 (67,270 solutions) counted
        in 6.7-9.1 s / not in 10 s; #500 (1,454) counted by neither in 10 s.  Mode 4 against 3
        (10 s each, interleaved, load 10): #425 8.0 / 8.4 s, #275 1.66 / 1.49 s; on the puzzles
        neither finishes, mode 4 refutes far fewer components and proves larger lower bounds
        (:attr:`NativeCount.lower_bound`): #375 122,718 / 36,170, #450 86,067 / 51,913, #475
        45,037 / 0, #500 288 / 0.
    probe_depth : int, optional
        Probe only at nodes at most this deep on the search stack (two frames per decision);
        ``None``: everywhere.
    probe_min : int
        Probe only components with at least this many undecided cells (smaller ones branch by
        ``branch`` alone); :data:`DEFAULT_PROBE_MIN` by default, 0 probes every component.
    max_nodes : int, optional
        Stop (as the stop flag does) once this many decisions were made: a budget that does
        not depend on the machine's load.
    full_depth : int
        Frames at most this deep on the stack probe as mode 1 whatever ``probing`` says
        (0: none; an experiment, not a default: no better on taai2011).
    probe_flags : int
        Bits of :data:`~nonosat.native.count_parts.PROBE_BOTH` (fix the cells both values of a
        probed cell force), :data:`~nonosat.native.count_parts.PROBE_SKIP_IMPLIED` (skip the
        probes a successful probe implies), :data:`~nonosat.native.count_parts.SMALL_FIRST`
        (count a split's components smallest first) and
        :data:`~nonosat.native.count_parts.HEAVY_FIRST` (probe a component's rows in the order
        of their conflict weights, heaviest first, so that a contradiction is met after fewer
        probes); :data:`DEFAULT_PROBE_FLAGS` by default (all but ``SMALL_FIRST``).
        ``HEAVY_FIRST`` on the 19 puzzles of ``weights`` (alpha 3, load 3.4): geomean 0.91x
        probes, 0.98x nodes of the same without it (#500 349,451 / 376,540 probes; #450 4.25 M /
        4.26 M probes, 118,758 / 102,714 nodes).  Measured (``benchmarks/bench_count_ab.py``, taai2011, load 7-11, so
        read the node and probe counts first): flags 0 / 3, #425 (67,270 solutions) 27,568 /
        34,706 nodes, 755,548 / 463,794 probes; #500 (1,454) 22,158 / 13,164 nodes, 4.37 M /
        1.64 M probes; #450 (646,519) counted with 3 in 11.9 s (90,420 nodes), not with 0 in
        15 s.  ``SMALL_FIRST`` changed nothing measurable (#450, #375, #550 at 40,000 nodes: lower
        bounds up on one, down on two): an option, off.
    weights : int
        Conflict-directed branching (with probing): bits of
        :data:`~nonosat.native.count_parts.BUMP_PROBES` (a failed probe bumps the weight of
        the line whose solving failed) and :data:`~nonosat.native.count_parts.BUMP_NODES` (so
        does a contradiction that refutes a node); 0: the lookahead score alone.
        :data:`DEFAULT_WEIGHTS` (both) by default.  Measured (``benchmarks/bench_count_ab.py``,
        taai2011, 20 s, load 1.6-3.4) against 0: 19 counted puzzles (#275, #314, #318, ...,
        #546: 80 to 646,519 solutions) geomean 0.56x nodes, 0.46x probes (the defaults, with
        ``HEAVY_FIRST``; alpha 3 without it: 0.60x, 0.52x); #500 (1,454) 2,280 / 13,164
        nodes; #450 (646,519) 95,348 / 90,420 nodes, 3.72 M / 3.88 M probes.  #450 is
        chaotic: 90,420 nodes with 0, but 106,062-127,086 (6.0-7.5 M probes) when only the
        ties of equal scores are broken otherwise, and 95,348-130,202 (3.7-5.0 M probes) with
        weights (alpha 2.5-5, with or without ``HEAVY_FIRST``).  In 10 s, #550 proved > 10^6 (0: at
        least 692,179).  tcga2015 / taai2014 every 100th at 30,000 nodes: 0.67x / 0.63x the
        probes in all; tcga2015 #500 (430 solutions) 12,250 / 24,424 nodes.
    weight_decay : float
        Each bump is ``1 / weight_decay`` times the last (``0 < weight_decay <= 1``; 1: plain
        counts, as dom/wdeg): recent failures weigh more.  0.9 / 0.99 against 0.95 on 10 of
        those puzzles (alpha 3, without ``HEAVY_FIRST``): geomean 1.07x / 1.22x nodes.
    weight_alpha : float
        A cell's score is multiplied by ``1 + weight_alpha * (w_row + w_col) / bump``.
        2 / 3 against 2.5 on the 19 puzzles: geomean 1.03x / 1.06x nodes, 1.08x / 1.03x
        probes; 0.3 / 1 / 10 / 30 against 3 on 10 of them (without ``HEAVY_FIRST``): 1.75x /
        1.12x / 1.10x / 1.12x nodes.
    score : int
        The probing branch's score (:data:`SCORE_RULES`); 1 and 2 measured worse than 0
        (without weights, 20 s: #450 120,000 / 93,672 nodes against 90,420; #500 not counted
        with 1, 72,430 nodes with 2 against 13,164): options, off.

    Returns
    -------
    NativeCount

    Raises
    ------
    ValueError
        A colour puzzle, a line longer than 62 cells, ``limit < 1``, or an unknown branching
        rule, score or weight setting.
    PuzzleError
        ``partial`` has the wrong shape.

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> count_grid(Puzzle([(1,), (1,)], [(1,), (1,)])).count
    2
    """
    return Counter(puzzle, stop=stop, branch=branch, probing=probing, probe_depth=probe_depth,
                   probe_min=probe_min, full_depth=full_depth, probe_flags=probe_flags,
                   weights=weights, weight_decay=weight_decay, weight_alpha=weight_alpha,
                   score=score).count(partial, limit=limit, max_nodes=max_nodes)


#: The ``meta`` counters a :class:`Counter` reports per count (set to 0 before each count);
#: the others (the cache's generation, arena and entries, the probing stamps) are kept.
_PER_COUNT = (M_NODES, M_HITS, M_STORES, M_SPLITS, M_CLEARS, M_MAXDEPTH, M_PROBES, M_ZEROS,
              M_SKIPPED, M_FAILED, M_BOTH, M_ABORT, M_STOP_SP, M_REUSED)


class Counter:
    """The native counter of one puzzle, reusable: counts under several partial grids share
    its component cache and line cache (:meth:`count`).

    Sharing the cache is sound because its key is exact: a component is stored under its
    segments (line, cells, blocks) and the known-filled and known-empty cells among its cells,
    and its count depends on nothing else, whatever partial grid or decisions led to it
    (a count that sees the stop flag stores nothing from then on: what it stored before is
    finished components' counts, exact or capped, valid for the next counts).  The workers of :mod:`nonosat.native.count_cubes` count their
    cubes with one each.  Not thread-safe: one thread at a time.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white, rows and columns of at most 62 cells (:func:`supported`).
    stop : StopToken or ndarray, optional
        The stop flag every count reads (a token, or its ``flag`` array: int64, shape (1,)).
    branch, probing, probe_depth, probe_min, full_depth, probe_flags
        As :func:`count_grid`.
    weights, weight_decay, weight_alpha, score
        As :func:`count_grid` (the conflict weights are kept across counts, as the cache is).

    Raises
    ------
    ValueError
        A colour puzzle, a line longer than 62 cells, or an unknown branching rule, score or
        weight setting.
    """

    def __init__(self, puzzle: Puzzle, *, stop: StopToken | np.ndarray | None = None,
                 branch: int = 0, probing: bool | int = 4, probe_depth: int | None = None,
                 probe_min: int = DEFAULT_PROBE_MIN, full_depth: int = 0,
                 probe_flags: int = DEFAULT_PROBE_FLAGS, weights: int = DEFAULT_WEIGHTS,
                 weight_decay: float = 0.95, weight_alpha: float = 2.5,
                 score: int = 0) -> None:
        if not supported(puzzle):
            raise ValueError("the native counter counts black-and-white puzzles with lines of "
                             f"at most {BITS_MAX_LINE} cells")
        if branch not in BRANCH_RULES:
            raise ValueError(f"unknown branching rule {branch}")
        if score not in SCORE_RULES or not 0 <= weights <= BUMP_PROBES | BUMP_NODES:
            raise ValueError(f"unknown branching score {score} or conflict weights {weights}")
        if not 0.0 < weight_decay <= 1.0 or not weight_alpha >= 0.0:
            raise ValueError("conflict weights need 0 < weight_decay <= 1 and weight_alpha >= 0")
        self.puzzle = puzzle
        h, w = puzzle.shape
        self._packed = pack_clues(puzzle)
        self._problem = problem_tuple(self._packed)
        if stop is None:
            self.flag = np.zeros(1, dtype=np.int64)
        else:
            self.flag = stop if isinstance(stop, np.ndarray) else stop.flag
        self._options = (branch, int(probing), 1 << 40 if probe_depth is None else probe_depth,
                         probe_min, full_depth, probe_flags, weights, score)
        self._weighting = (1.0 / weight_decay, weight_alpha)
        blocks = len(self._packed.blocks)
        # the segment stack: room for SEG_STACK_DEPTH nested splits first, 8 times more after
        # a count that filled it (then counted again), up to its bound for any count (far more
        # than a count needs) or SEG_STACK_MAX_WORDS, whichever is smaller
        # (never below the room for the root's segments, one per line)
        root = segment_stack_words(h + w, 0, blocks)
        self._full = min(segment_stack_words(h + w, h * w, blocks),
                         max(SEG_STACK_MAX_WORDS, root))
        self._words = min(self._full, segment_stack_words(h + w, SEG_STACK_DEPTH, blocks))
        self._ctx = self._new_context()
        self._line_cache: np.ndarray | None = None
        self._frames = np.zeros((2 * h * w + 8, F_SIZE), dtype=np.int64)
        self._hvs = np.zeros(2 * h * w + 8, dtype=np.uint64)

    def _new_context(self) -> tuple:
        h, w = self.puzzle.shape
        ctx = new_count_context(h + w, h * w, len(self._packed.blocks), seg_words=self._words)
        (branch, probing, probe_depth, probe_min, full_depth, probe_flags, weights,
         score) = self._options
        ctx[0][M_BRANCH] = branch
        ctx[0][M_PROBING] = probing
        ctx[0][M_PROBE_DEPTH] = probe_depth
        ctx[0][M_PROBE_MIN] = probe_min
        ctx[0][M_FULL_DEPTH] = full_depth
        ctx[0][M_FLAGS] = probe_flags
        ctx[0][M_WEIGHTS] = weights
        ctx[0][M_SCORE] = score
        ctx[15][h + w + 1], ctx[15][h + w + 2] = self._weighting
        return ctx

    def count(self, partial: np.ndarray | None = None, *, limit: int = DEFAULT_LIMIT,
              max_nodes: int | None = None) -> NativeCount:
        """Count the solutions that agree with ``partial``, up to ``limit``
        (:func:`count_grid`'s ``partial``, ``limit`` and ``max_nodes``; the statistics are this
        count's).

        Returns
        -------
        NativeCount
            Its ``lower_bound`` on a stopped count is what this count's finished parts prove.

        Raises
        ------
        ValueError
            ``limit < 1``.
        PuzzleError
            ``partial`` has the wrong shape.
        """
        if limit < 1:
            raise ValueError(f"the count limit must be at least 1, not {limit}")
        puzzle = self.puzzle
        frames, hvs = self._frames, self._hvs
        took = 0.0
        restarts = 0
        while True:
            state = new_state(self._packed, unknown_grid(puzzle), cache=self._line_cache,
                              stop=self.flag)
            self._line_cache = state[10]
            if partial is not None:
                _apply_partial(puzzle, state, np.asarray(partial, dtype=np.int8))
            meta = self._ctx[0]
            for field in _PER_COUNT:
                meta[field] = 0
            meta[M_MAX_NODES] = 1 << 62 if max_nodes is None else max_nodes
            t0 = time.perf_counter()
            got = int(count_kernel(self._problem, state, self._ctx, frames, hvs, limit + 1))
            took += time.perf_counter() - t0
            if meta[M_ABORT] != 2 or self._words >= self._full:
                break
            self._words = min(self._full, 8 * self._words)
            self._ctx = self._new_context()  # (the cache starts empty again)
            restarts += 1
        stats = {"restarts": restarts, "nodes": int(meta[M_NODES]),
                 "cache_hits": int(meta[M_HITS]), "cached": int(meta[M_STORES]),
                 "splits": int(meta[M_SPLITS]), "cache_clears": int(meta[M_CLEARS]),
                 "max_depth": int(meta[M_MAXDEPTH]), "probes": int(meta[M_PROBES]),
                 "refuted": int(meta[M_ZEROS]), "probes_skipped": int(meta[M_SKIPPED]),
                 "probe_failed": int(meta[M_FAILED]), "probe_both": int(meta[M_BOTH]),
                 "probes_reused": int(meta[M_REUSED])}
        if meta[M_ABORT] == 2:
            return NativeCount(None, False, False, took, stats, "segment stack full")
        if got < 0:
            lower = min(_stopped_lower_bound(frames, meta), limit + 1)
            return NativeCount(None, False, False, took, stats, "stopped", lower)
        return NativeCount(got, got <= limit, True, took, stats, "", got)


def _stopped_lower_bound(frames: np.ndarray, meta: np.ndarray) -> int:
    """The solutions a count stopped by its flag has proved: read from its search path (the
    frames on the stack when the flag was seen, ``meta[M_STOP_SP]``; unwinding the stack only
    advances each split frame past its current component), from the top down.  The top frame
    is a component not counted yet (0).  A component frame that is branching adds the
    (finished) count of its first value: ``count >= acc + bound(child)``; one that probed
    passes its child's bound on.  A split frame multiplies the product of its finished
    components by its current one's bound when that component is its last, since then
    ``count = product * count(current)``; with components still to count, which may have no
    solution, the bound is 0.  (In the split's check mode, where the product has already
    reached its cap, a last component with a solution proves the cap.)  Every count in the
    frames is exact or a capped lower bound, so the result is a lower bound on the count."""
    lower = 0
    for f in range(int(meta[M_STOP_SP]) - 2, -1, -1):
        if frames[f, F_KIND] == K_COMP:
            phase = frames[f, F_PHASE]
            if phase in (1, 2):
                lower += int(frames[f, F_ACC])
            elif phase != 3:
                lower = 0
        elif frames[f, F_AT] < frames[f, F_END]:
            lower = 0
        elif frames[f, F_MODE] == 0:
            lower *= int(frames[f, F_ACC])
        else:
            lower = int(frames[f, F_CAP]) if lower >= 1 else 0
    return lower


def _apply_partial(puzzle: Puzzle, state: tuple, partial: np.ndarray) -> None:
    """Write the known cells of ``partial`` into ``state`` as givens."""
    if partial.shape != puzzle.shape:
        from nonosat.errors import PuzzleError

        raise PuzzleError(f"partial grid is {partial.shape[1]}x{partial.shape[0]} but the "
                          f"puzzle is {puzzle.width}x{puzzle.height}")
    give_cells(state, partial.reshape(-1))


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
