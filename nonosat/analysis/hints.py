"""Hints and explanations: the next deduction a person could make, in words.

:class:`HintFinder` looks for the next deduction from a grid state, trying the techniques from
the simplest to the hardest and stopping at the first that fixes something:

1. **overlap** (:mod:`nonosat.analysis.overlap`) on one line -- "row 4, clue 3 1: the 3 must
   cover columns 5–6";
2. **line** -- the complete line solver (:mod:`nonosat.native.line`) on one line, for what the overlap
   rule misses;
3. **implications** -- a contradiction or tautology in the single-line implication graph
   (:mod:`nonosat.native.implications`), explained by its chains of lines;
4. **probing** -- a failed literal (assuming a value leads, line after line, to a line that
   cannot hold its clue) or the cells both values of a probe agree on.

Within a technique it prefers the deduction fixing the most cells (overlap, line), or the one with
the shortest argument (implications, probing).

The finder works on the puzzle's :class:`~nonosat.analysis.logic.Logic`, so colour puzzles get
the same techniques (but overlap) and the same sentences, with colours: "row 3, clue 2 red, 1
black: every placement of the blocks that fits the known cells leaves columns 4–6 red"; "If row
3, column 5 were red, ... So row 3, column 5 is black."  Colour probing is *probe-all*: every
colour a cell can take is tried, and what all the trials agree on is kept.  :func:`next_hint` first checks the given state
against the solution and reports wrong cells as a *mistake* instead of reasoning around them;
:mod:`nonosat.analysis.walkthrough` replays hints from the empty grid until the puzzle is solved
or a guess is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nonosat.analysis import wording
from nonosat.analysis.finder import (
    TECHNIQUE_STAGE,
    Hint,
    HintFinder,
    apply_hint,
    cell_name,
    literal_text,
    positions_text,
)
from nonosat.analysis.logic import logic_of
from nonosat.engines import Status
from nonosat.errors import UndecidedError
from nonosat.puzzle import Cell, Puzzle

if TYPE_CHECKING:
    from nonosat.stop import StopToken

__all__ = ["TECHNIQUE_STAGE", "Hint", "HintFinder", "apply_hint", "cell_name", "find_mistakes",
           "literal_text", "next_hint", "positions_text", "stuck_hint"]


#: The hint of a stopped :func:`next_hint` (its token was set before it finished).
_STOPPED = Hint("guess", "Stopped before a hint was found.", verdict="unknown")


def find_mistakes(
    puzzle: Puzzle, state: np.ndarray, *, engine: str = "native", timeout: float | None = None,
    stop: StopToken | None = None,
) -> list[tuple[tuple[int, int], Cell | int]] | None:
    """Known cells of ``state`` that no solution shares, with the correct values (a
    :class:`Cell`, or for a colour puzzle -- whose ``state`` holds colour masks, a cell known
    when one colour is left -- a colour index).

    The state is fine when some solution agrees with all its known cells.  Otherwise the wrong
    cells are those that disagree with the solution closest to the state (fewest differences
    among the solutions found, up to 2).  ``stop``: a cancel token, handed to each solve (a
    stopped solve gives up, which raises :class:`UndecidedError`).

    Returns
    -------
    list of ((row, col), Cell) or None
        Empty when there is no mistake; ``None`` when the puzzle itself has no solution.

    Raises
    ------
    UndecidedError
        A solve gave up within ``timeout`` seconds (each solve has its own), so neither "no
        mistake" nor "no solution" is known.
    """
    from nonosat.engines import solve

    given = solve(puzzle, engine, partial=state, limit=1, timeout=timeout, stop=stop)
    if given.solutions:
        return []
    if given.status == Status.UNKNOWN:
        raise UndecidedError("the solver gave up before deciding whether the known cells agree "
                             "with a solution")
    result = solve(puzzle, engine, limit=2, timeout=timeout, stop=stop)
    if result.status == Status.UNKNOWN and not result.solutions:
        raise UndecidedError("the solver gave up before deciding whether the puzzle has a "
                             "solution")
    if not result.solutions:
        return None
    known = ~logic_of(puzzle).open(state)

    def wrong(sol: np.ndarray) -> np.ndarray:
        if puzzle.is_colour:
            return known & (((np.asarray(state, np.int64) >> sol.astype(np.int64)) & 1) == 0)
        return known & (state != np.where(sol, Cell.FILLED, Cell.EMPTY))

    closest = min(result.solutions, key=lambda s: int(wrong(s).sum()))
    bad = wrong(closest)
    if puzzle.is_colour:
        return [((int(r), int(c)), int(closest[r, c]))
                for r, c in zip(*np.nonzero(bad), strict=True)]
    return [((int(r), int(c)), Cell.FILLED if closest[r, c] else Cell.EMPTY)
            for r, c in zip(*np.nonzero(bad), strict=True)]


def stuck_hint(
    puzzle: Puzzle,
    state: np.ndarray,
    *,
    engine: str = "auto",
    timeout: float | None = None,
    forced: bool = False,
    stop: StopToken | None = None,
) -> Hint:
    """The hint for a state where no deduction applies: asks ``engine`` (the portfolio by
    default) whether the solutions that agree with ``state`` are one or several, so that a
    player can tell a puzzle with several solutions from a unique but hard one.

    ``forced`` says every known cell of ``state`` follows from the clues (e.g. the grid
    :func:`explain` reached), so the solutions that agree with it are all the puzzle's.
    ``stop``: a cancel token for the solves (a stopped solve answers "unknown").

    Returns
    -------
    Hint
        ``"guess"`` with ``verdict`` ``"multiple"``, ``"unique"`` or ``"unknown"`` (time limit),
        or ``"no-solution"`` when no solution agrees with ``state``.
    """
    from nonosat.engines import solve

    logic = logic_of(puzzle)
    grid = logic.start(state)
    open_cells = int(logic.open(grid).sum())
    given = bool((grid != logic.start()).any()) and not forced  # forced cells change nothing
    result = solve(puzzle, engine, partial=grid if given else None, limit=2, timeout=timeout,
                   stop=stop)
    status = result.status
    where = f"({open_cells} cell{'s' if open_cells != 1 else ''} open)"
    if status == Status.NONE:
        if given:
            return Hint("no-solution", "No solution agrees with the cells known so far.")
        return Hint("no-solution", "The puzzle has no solution.")
    if status == Status.MULTIPLE:
        return Hint("guess", f"A guess is needed: the puzzle has several solutions, and no line, "
                    f"implication chain or probe can choose between them here {where}.",
                    verdict="multiple")
    if status == Status.UNIQUE:
        whole = (solve(puzzle, engine, limit=2, timeout=timeout, stop=stop).status if given
                 else status)
        if whole == Status.MULTIPLE:
            return Hint("guess", f"A guess is needed: the puzzle has several solutions; only one "
                        f"agrees with the cells known so far, but no line, implication chain or "
                        f"probe reaches it {where}.", verdict="multiple")
        if whole == Status.UNIQUE:
            return Hint("guess", f"No simple deduction: the puzzle is unique, but it needs a guess "
                        f"(or deeper probing) here {where}.", verdict="unique")
    return Hint("guess", f"No line, implication chain or probe fixes another cell: a guess is "
                f"needed {where}; whether the puzzle has one solution or several was not decided "
                f"within the time limit.", verdict="unknown")


def next_hint(
    puzzle: Puzzle,
    state: np.ndarray | None = None,
    *,
    check: bool = True,
    engine: str = "auto",
    depth: int | None = None,
    timeout: float | None = None,
    verdict: bool = True,
    stop: StopToken | None = None,
) -> Hint:
    """The next hint from ``state`` (all unknown when omitted).

    Parameters
    ----------
    puzzle : Puzzle
    state : ndarray, shape (height, width), optional
        int8 :class:`Cell` values (black-and-white) or int32 colour bit masks (colour).
    check : bool
        First look for mistakes in ``state`` (solves the puzzle with ``engine``).
    engine : str
        Engine for the mistake check and the verdict (default: the portfolio ``auto``).
    depth : int, optional
        Implication graph traversal depth.
    timeout : float, optional
        Seconds for each engine call.
    verdict : bool
        When no deduction applies, ask ``engine`` whether the puzzle has several solutions or
        one that needs a guess (:func:`stuck_hint`).
    stop : StopToken, optional
        Cancel token (:mod:`nonosat.stop`), read by every engine call and between the stages;
        a stopped hint is a ``"guess"`` with verdict ``"unknown"``.

    Returns
    -------
    Hint
    """
    grid = logic_of(puzzle).start(state)
    if check:
        try:
            mistakes = find_mistakes(puzzle, grid, engine=engine, timeout=timeout, stop=stop)
        except UndecidedError:
            return Hint("guess", "The solver could not decide within the time limit whether the "
                                 "cells known so far are right; no hint.", verdict="unknown")
        if mistakes is None:
            return Hint("no-solution", "The puzzle has no solution.")
        if mistakes:
            n = len(mistakes)
            them = "them" if n != 1 else "it"
            return Hint("mistake",
                        f"{n} cell{'s are' if n != 1 else ' is'} wrong: "
                        f"{wording.cell_set_text(puzzle, [c for c, _ in mistakes])} "
                        f"(no solution agrees with {them}).", tuple(mistakes))
    if stop is not None and stop.is_set():
        return _STOPPED
    hint = HintFinder(puzzle, depth).next(grid)
    if hint.kind == "guess" and verdict:
        if stop is not None and stop.is_set():
            return _STOPPED
        return stuck_hint(puzzle, grid, engine=engine,
                          timeout=timeout if timeout is not None else 30.0, stop=stop)
    return hint
