"""Initial phases for a SAT solver on a nonogram CNF, from belief propagation over the lines.

A CDCL solver assigns each decision variable its saved *phase* (by default: false).  On a hard
puzzle the first solution can take CaDiCaL minutes from the default phases and milliseconds from
good ones: on Knotty (webpbn survey, 40x40, order encoding, root grid and probing implications
given) CaDiCaL 1.9.5 found no solution in 300 s with its default phases, 16 s with phases on the
cells alone, and 0.06 s with phases on the cells and on the order encoding's block-start
variables (measured side by side, ``benchmarks/RESULTS.md``).

The phases come from approximate marginals: each line counts the completions consistent with the
known cells, weighting every completion by the product of per-cell priors (the messages of the
crossing lines), which gives each cell's probability of being filled and each block's start
distribution (a forward-backward pass over the clue's automaton, ``O(n k)`` states, ``O(n k
b)`` work per line).  Rows and columns exchange *extrinsic* messages (the posterior with the
prior's odds divided out), damped by half, for :data:`BP_ITERATIONS` rounds.  A cell's phase is
*filled* when the product of its row and column messages favours it; the order encoding's
variable ``S(j, p)`` (*block j starts at or before p*, :func:`nonosat.encodings.cnf_lines._order_line`)
gets *true* when block j's start distribution puts at least half its mass at or before ``p``.

Phases never change which formulas are satisfiable: they only steer the search, so solutions,
verdicts and proofs stay what the clauses make them.

References
----------
.. [1] J. Pearl, "Probabilistic Reasoning in Intelligent Systems", 1988 (belief propagation).
.. [2] nonosolve (hyouv/FastNonogramSolver, 2026): SAT phases from line marginals refined by belief
   propagation, and solution-guided phases when looking for a further solution; the idea is
   taken from there, the code here is written from the description above.
"""

from __future__ import annotations

import numpy as np

from nonosat.kernel_cache import stamp_module
from nonosat.lazy_jit import njit
from nonosat.puzzle import Cell, Puzzle
from nonosat.stop import StopToken

#: Rounds of row-then-column message passing.
BP_ITERATIONS = 20

_CLIP_POST = 1e-9
_CLIP_MSG = 1e-6


@njit(cache=True, nogil=True)
def _block_weight(i, length, n, known, prior, wpre):  # pragma: no cover - compiled
    """Weight of a block of ``length`` cells starting at ``i`` and of the empty cell after it
    (none after the line's end), or 0.0 when the block does not fit there (a known-empty cell
    inside it, or a known-filled one right after it)."""
    e = i + length
    if e > n or wpre[e] != wpre[i] or (e < n and known[e] == 1):
        return 0.0
    wb = 1.0 if e >= n else 2.0 * (1.0 - prior[e])
    for t in range(i, e):
        wb *= 2.0 * prior[t]
    return wb


@njit(cache=True, nogil=True)
def _line_marginals(
    clue, k, known, prior, fwd, bwd, cell_out, start_out, wtab
):  # pragma: no cover - compiled
    """Marginals of one line under independent per-cell priors (compiled).

    ``clue[:k]`` block lengths; ``known[n]`` -1 unknown / 0 empty / 1 filled; ``prior[n]`` the
    probability of *filled* per cell; ``fwd``/``bwd`` scratch of shape at least ``(k+1, n+2)``,
    ``wtab`` of shape at least ``(k, n+1)`` (each block's weight at each start,
    :func:`_block_weight`, computed once for the three passes).
    Writes ``cell_out[n]`` (probability filled) and ``start_out[j, p]`` (probability that block
    ``j`` starts at ``p``).  Each completion is weighted by the product over its cells of ``2 *
    prior`` (filled) or ``2 * (1 - prior)`` (empty), so that weights stay near 1.  Returns False
    when no completion has positive finite weight (the outputs are then not written).
    """
    n = known.shape[0]
    # wpre[i]: known-empty cells before i, for an O(1) "block j fits at i" test
    wpre = np.zeros(n + 2, np.int64)
    for i in range(n):
        wpre[i + 1] = wpre[i] + (1 if known[i] == 0 else 0)
    wpre[n + 1] = wpre[n]
    for j in range(k):
        for i in range(n + 1):
            wtab[j, i] = _block_weight(i, clue[j], n, known, prior, wpre)
    for j in range(k + 1):
        for i in range(n + 2):
            fwd[j, i] = 0.0
            bwd[j, i] = 0.0
    fwd[0, 0] = 1.0
    for i in range(n + 1):
        can_empty = i >= n or known[i] != 1
        w_empty = 1.0 if i >= n else 2.0 * (1.0 - prior[i])
        for j in range(k + 1):
            v = fwd[j, i]
            if v == 0.0:
                continue
            if can_empty:
                fwd[j, i + 1] += v * w_empty
            if j < k:
                wb = wtab[j, i]
                if wb > 0.0:
                    fwd[j + 1, i + clue[j] + 1] += v * wb
    bwd[k, n + 1] = 1.0
    for i in range(n, -1, -1):
        can_empty = i >= n or known[i] != 1
        w_empty = 1.0 if i >= n else 2.0 * (1.0 - prior[i])
        for j in range(k, -1, -1):
            v = bwd[j, i + 1] * w_empty if can_empty else 0.0
            if j < k:
                wb = wtab[j, i]
                if wb > 0.0:
                    v += wb * bwd[j + 1, i + clue[j] + 1]
            bwd[j, i] = v
    total = bwd[0, 0]
    if not (total > 0.0) or not np.isfinite(total):
        return False
    for i in range(n):
        cell_out[i] = 0.0
    for j in range(k):
        for p in range(n):
            start_out[j, p] = 0.0
            if fwd[j, p] == 0.0:
                continue
            wb = wtab[j, p]
            if wb > 0.0:
                q = fwd[j, p] * wb * bwd[j + 1, p + clue[j] + 1] / total
                start_out[j, p] = q
                for t in range(p, p + clue[j]):
                    cell_out[t] += q
    return True


@njit(cache=True, nogil=True)
def _gather_line(line, h, w, known, row_msg, col_msg, line_known, prior):  # pragma: no cover
    """Copy line ``line``'s known cells and its priors (the crossing lines' messages) into
    ``line_known``/``prior``; returns the line's length."""
    rows = line < h
    idx = line if rows else line - h
    n = w if rows else h
    for i in range(n):
        r = idx if rows else i
        c = i if rows else idx
        line_known[i] = known[r, c]
        prior[i] = col_msg[r, c] if rows else row_msg[r, c]
    return n


@njit(cache=True, nogil=True)
def _workspace(clues, h, w):  # pragma: no cover - compiled
    """The scratch arrays of :func:`_line_marginals` for the lines of an ``h`` x ``w`` puzzle
    whose clues are the rows of ``clues``: ``fwd``, ``bwd``, ``post``, ``starts``,
    ``line_known``, ``prior``, ``wtab``."""
    kmax = clues.shape[1]
    m = max(h, w)
    return (np.zeros((kmax + 1, m + 2)), np.zeros((kmax + 1, m + 2)), np.zeros(m),
            np.zeros((max(kmax, 1), m)), np.zeros(m, np.int8), np.zeros(m),
            np.zeros((max(kmax, 1), m + 1)))


@njit(cache=True, nogil=True)
def _bp(clues, ks, known, h, w, iterations, row_msg, col_msg):  # pragma: no cover - compiled
    """Belief propagation over the lines (compiled); ``clues[l, :ks[l]]`` the clue of line
    ``l`` (rows ``0..h-1``, then columns), ``known`` the ``(h, w)`` grid (-1/0/1).  Updates the
    messages ``row_msg``/``col_msg`` (``(h, w)``, probability filled) in place."""
    fwd, bwd, post, starts, line_known, prior, wtab = _workspace(clues, h, w)
    for _ in range(iterations):
        for first, last in ((0, h), (h, h + w)):  # the rows, then the columns
            for line in range(first, last):
                k = ks[line]
                if k == 0:
                    continue
                n = _gather_line(line, h, w, known, row_msg, col_msg, line_known, prior)
                if not _line_marginals(clues[line], k, line_known[:n], prior[:n], fwd, bwd,
                                       post, starts, wtab):
                    continue
                rows = line < h
                idx = line if rows else line - h
                for i in range(n):
                    r = idx if rows else i
                    c = i if rows else idx
                    pst = min(1.0 - _CLIP_POST, max(_CLIP_POST, post[i]))
                    pri = prior[i]
                    y = pst * (1.0 - pri)
                    z = (1.0 - pst) * pri
                    msg = min(1.0 - _CLIP_MSG, max(_CLIP_MSG, y / (y + z)))
                    if rows:
                        row_msg[r, c] = 0.5 * row_msg[r, c] + 0.5 * msg
                    else:
                        col_msg[r, c] = 0.5 * col_msg[r, c] + 0.5 * msg


@njit(cache=True, nogil=True)
def _start_phase_lits(clues, ks, known, h, w, row_msg, col_msg, out):  # pragma: no cover
    """Phase literals of the order encoding's block-start variables ``S(j, p)`` (compiled), in
    the encoding's order from variable ``h*w + 1`` on, each from its line's start distribution
    given the crossing lines' messages.  Returns the number written to ``out``."""
    fwd, bwd, post, starts, line_known, prior, wtab = _workspace(clues, h, w)
    nout = 0
    var = h * w
    for line in range(h + w):
        k = ks[line]
        if k == 0:
            continue
        n = _gather_line(line, h, w, known, row_msg, col_msg, line_known, prior)
        ok = _line_marginals(clues[line], k, line_known[:n], prior[:n], fwd, bwd, post, starts,
                             wtab)
        total = 0
        for j in range(k):
            total += clues[line, j] + 1
        suffix = total
        for j in range(k):
            earliest = total - suffix
            latest = n - suffix + 1
            cum = 0.0
            for p in range(earliest):
                cum += starts[j, p] if ok else 0.0
            for p in range(earliest, latest):
                if ok:
                    cum += starts[j, p]
                var += 1
                out[nout] = var if (ok and cum >= 0.5) else -var
                nout += 1
            suffix -= clues[line, j] + 1
    return nout


def _line_arrays(puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray]:
    """Clues as a ``(h + w, kmax)`` int64 array and their lengths; unknown clues are empty."""
    lines = [tuple(c) if c is not None else () for c in puzzle.lines]
    kmax = max((len(c) for c in lines), default=0)
    clues = np.zeros((len(lines), max(kmax, 1)), np.int64)
    ks = np.zeros(len(lines), np.int64)
    for i, c in enumerate(lines):
        ks[i] = len(c)
        clues[i, : len(c)] = c
    return clues, ks


def _messages(
    puzzle: Puzzle, partial: np.ndarray | None, iterations: int, stop: StopToken | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Run belief propagation: ``(clues, ks, known, row_msg, col_msg, belief)``, ``known`` the
    grid as -1 unknown / 0 empty / 1 filled and ``belief`` each cell's probability of filled.
    With a ``stop`` token the iterations run one call each and end once it is set (the
    messages of the iterations done: phases only guide a solver, whose answer does not depend
    on them)."""
    if puzzle.is_colour:
        raise ValueError("SAT phases are for black-and-white puzzles")
    clues, ks = _line_arrays(puzzle)
    known = np.full(puzzle.shape, -1, np.int8)
    if partial is not None:
        grid = np.asarray(partial)
        known[grid == Cell.EMPTY] = 0
        known[grid == Cell.FILLED] = 1
    h, w = puzzle.shape
    row_msg = np.full((h, w), 0.5)
    col_msg = np.full((h, w), 0.5)
    if stop is None:
        _bp(clues, ks, known, h, w, iterations, row_msg, col_msg)
    else:  # the same iterations (each starts from the last one's messages), stoppable
        for _ in range(iterations):
            if stop.is_set():
                break
            _bp(clues, ks, known, h, w, 1, row_msg, col_msg)
    y = row_msg * col_msg
    belief = y / (y + (1.0 - row_msg) * (1.0 - col_msg))
    belief[known == 1] = 1.0
    belief[known == 0] = 0.0
    return clues, ks, known, row_msg, col_msg, belief


def _cell_lits(belief: np.ndarray) -> list[int]:
    """Cell phase literals: filled (positive) where the belief is at least one half."""
    cells = np.arange(1, belief.size + 1)
    return np.where(belief.ravel() >= 0.5, cells, -cells).tolist()


def cell_marginals(
    puzzle: Puzzle, partial: np.ndarray | None = None, iterations: int = BP_ITERATIONS
) -> np.ndarray:
    """Approximate probability that each cell is filled, by belief propagation over the lines.

    Parameters
    ----------
    puzzle : Puzzle
        A black-and-white puzzle (unknown clues constrain nothing).
    partial : numpy.ndarray of int8, shape (height, width), optional
        Known cells (:class:`~nonosat.puzzle.Cell` values); they are fixed in every line count.
    iterations : int
        Rounds of message passing (rows, then columns).

    Returns
    -------
    numpy.ndarray of float64, shape (height, width)
        Values in ``[0, 1]``; known cells are 0 or 1.  Not a verdict: a heuristic for phases.

    Raises
    ------
    ValueError
        A colour puzzle.
    """
    return _messages(puzzle, partial, iterations)[-1]


def cell_phases(
    puzzle: Puzzle, partial: np.ndarray | None = None, iterations: int = BP_ITERATIONS
) -> list[int]:
    """Phase literals for the cell variables ``1 .. height*width`` of any encoding (filled =
    positive), from :func:`cell_marginals`.

    Raises
    ------
    ValueError
        A colour puzzle.
    """
    return _cell_lits(cell_marginals(puzzle, partial, iterations))


def order_phases(
    puzzle: Puzzle, partial: np.ndarray | None, nvars: int, iterations: int = BP_ITERATIONS,
    stop: StopToken | None = None,
) -> list[int]:
    """Phase literals for the ``order`` encoding of ``puzzle`` (:mod:`nonosat.encodings.cnf`):
    one literal per cell variable (filled = positive) and per block-start variable ``S(j, p)``.

    Parameters
    ----------
    puzzle, partial, iterations
        As :func:`cell_marginals`.
    nvars : int
        The encoding's variable count; if the block-start variables computed here do not add up
        to it (another layout), only the cell phases are returned.
    stop : StopToken, optional
        Read between belief-propagation iterations; once set, the phases come from the
        iterations done (a studio job superseded here ends within one iteration).

    Returns
    -------
    list of int
        Literals for :meth:`pysat.solvers.Solver.set_phases`.

    Raises
    ------
    ValueError
        A colour puzzle.
    """
    clues, ks, known, row_msg, col_msg, belief = _messages(puzzle, partial, iterations, stop)
    h, w = puzzle.shape
    lits = _cell_lits(belief)
    if _start_vars(clues, ks, h, w) + h * w != nvars:  # another layout: the cells only
        return lits
    out = np.zeros(max(nvars - h * w, 0) + 1, np.int64)
    count = _start_phase_lits(clues, ks, known, h, w, row_msg, col_msg, out)
    return lits + out[:count].tolist()


def _start_vars(clues: np.ndarray, ks: np.ndarray, h: int, w: int) -> int:
    """Number of ``S(j, p)`` variables the order encoding allocates (clues that fit)."""
    total = 0
    for line, k in enumerate(ks):
        n = w if line < h else h
        lens = clues[line, :k]
        if k == 0:
            continue
        span = int(lens.sum()) + int(k) - 1
        if span > n:
            return -1  # the clue does not fit: the encoding allocates nothing for it
        total += int(k) * (n - span)
    return total


# numba's cache stamp over every kernel source, not this file alone (nonosat.kernel_cache)
stamp_module(globals())
