"""One-cell edits of a puzzle's picture that make its solution unique.

:func:`edit_suggestions`: change one cell of the goal picture (flip it; a colour puzzle's cell
painted each other colour), re-derive the clues, keep the edit when the new puzzle has a unique
solution.  Every solve goes through :func:`nonosat.engines.solve`, which checks each solution
against the clues.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from nonosat.engines import Status, solve
from nonosat.puzzle import Puzzle, line_blocks
from nonosat.stop import StopToken

#: Seconds the native engine gets per edited picture in :func:`edit_suggestions`.
EDIT_NATIVE_BUDGET_S = 0.25
#: At most this many make-unique edits are returned.
MAX_EDITS = 5


def picture_puzzle(puzzle: Puzzle, picture: np.ndarray) -> Puzzle:
    """The puzzle whose clues are derived from ``picture`` (bool, or colour indices for a colour
    ``puzzle``, whose palette is kept), with ``puzzle``'s title and the picture as its goal."""
    if puzzle.is_colour:
        return Puzzle.from_picture(picture, palette=puzzle.palette, title=puzzle.title)
    return Puzzle(rows=tuple(line_blocks(r) for r in picture),
                  cols=tuple(line_blocks(c) for c in picture.T), title=puzzle.title, goal=picture)


def edit_suggestions(
    puzzle: Puzzle,
    ambiguous: np.ndarray,
    *,
    deadline: float,
    should_stop: Callable[[], bool] = lambda: False,
    max_edits: int = MAX_EDITS,
    stop: StopToken | None = None,
    progress: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One-cell edits of the picture (``puzzle.goal``) whose re-derived clues have a unique
    solution, nearest the ambiguous cells first, until ``deadline`` (``perf_counter``).

    Candidates: the ambiguous cells, then their 8 neighbours, then the rest, each flipped (a
    colour puzzle's cell painted each other colour of the palette, background included).  Each
    candidate is decided by the native engine under :data:`EDIT_NATIVE_BUDGET_S` (an edit it
    does not decide in that time is skipped).

    Returns
    -------
    list of dict
        ``{"kind": "edit", "cell": [row, col] (0-based), "value": "#" or ".", "text": ...}``
        (colour: ``"value"`` the colour index and ``"colour"`` its name); empty when the puzzle
        has no goal picture.

    Other Parameters
    ----------------
    progress : dict, optional
        Filled with ``"candidates"`` (edits there are), ``"tried"`` (edits tried),
        ``"undecided"`` (tried but not decided in their budget) and ``"end"``: ``"all tried"``,
        ``"max edits"`` (``max_edits`` found), ``"time limit"``, ``"stopped"``
        (``should_stop``) or ``"no picture"``.
    stop : StopToken, optional
        Handed to each edit's solve and read between edits, as ``should_stop`` is.
    """
    info: dict[str, Any] = progress if progress is not None else {}
    info.update(candidates=0, tried=0, undecided=0, end="no picture")
    if puzzle.goal is None or np.asarray(puzzle.goal).shape != puzzle.shape:
        return []
    palette = puzzle.palette if puzzle.is_colour else None
    goal = np.asarray(puzzle.goal, dtype=bool if palette is None else np.int8)
    h, w = goal.shape
    ambiguous = np.asarray(ambiguous, dtype=bool)
    order: list[tuple[int, int]] = [(int(r), int(c)) for r, c in zip(*np.nonzero(ambiguous),
                                                                     strict=True)]
    near = np.zeros_like(ambiguous)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            near |= np.roll(np.roll(ambiguous, dr, 0), dc, 1)
    near &= ~ambiguous
    order += [(int(r), int(c)) for r, c in zip(*np.nonzero(near), strict=True)]
    seen = set(order)
    order += [(r, c) for r in range(h) for c in range(w) if (r, c) not in seen]
    edits = [(r, c, v) for r, c in order
             for v in ([not goal[r, c]] if palette is None
                       else [k for k in range(len(palette)) if k != goal[r, c]])]
    out: list[dict[str, Any]] = []
    info.update(candidates=len(edits), end="all tried")
    for r, c, v in edits:
        left = deadline - time.perf_counter()
        if left <= 0 or len(out) >= max_edits or should_stop() or (stop is not None
                                                                     and stop.is_set()):
            info["end"] = ("max edits" if len(out) >= max_edits else
                           "time limit" if left <= 0 else "stopped")
            break
        info["tried"] += 1
        picture = goal.copy()
        picture[r, c] = v
        try:
            edited = picture_puzzle(puzzle, picture)
        except Exception:  # noqa: BLE001 - an edit that breaks the model is not a suggestion
            continue
        res = solve(edited, "native", limit=2, timeout=min(left, EDIT_NATIVE_BUDGET_S),
                    stop=stop)
        if res.status == Status.UNKNOWN:
            info["undecided"] += 1
        if res.status != Status.UNIQUE:
            continue
        where = f"R{r + 1}C{c + 1} of the picture"
        why = "the new clues have a unique solution"
        if palette is not None:
            name = palette.colours[int(v)].name
            out.append({"kind": "edit", "cell": [r, c], "value": int(v), "colour": name,
                        "text": f"paint {where} {name}: {why}"})
        else:
            out.append({"kind": "edit", "cell": [r, c], "value": "#" if v else ".",
                        "text": f"{'fill' if v else 'clear'} {where}: {why}"})
    return out
