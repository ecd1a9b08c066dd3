"""Check, hint and step-through of colour puzzles for the studio's ``/api/check``, ``/api/hint``
and ``/api/steps``, with the answers black-and-white gets (``docs/studio.md``).

A grid state is a grid of colour bit masks (int32; a player's cell is one colour or every
colour); cells are written ``[r, c, ch]`` over :data:`nonosat.studio.schemas.INDEX_CHARS`
(``.`` background, ``a`` colour 1, ...; ``?`` still open).  Deductions are
:class:`nonosat.analysis.hints.HintFinder`'s, the finder ``nonosat hint`` and black-and-white use
(line solving, implications, then probing); the search that finishes a puzzle logic cannot is the
engines' (:func:`nonosat.engines.solve`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nonosat.engines import Status, solve
from nonosat.puzzle import Puzzle
from nonosat.stop import StopToken
from nonosat.studio.schemas import INDEX_CHARS, colour_cell_json, colour_grid_rows

__all__ = ["colour_check_json", "colour_hint_json", "colour_steps_json"]

#: Line and probing steps that only narrow colours, looked through for one that decides a cell.
MAX_NARROWING = 500


def _single(grid: np.ndarray) -> np.ndarray:
    """Cells with one colour left (bool, same shape)."""
    g = np.asarray(grid, dtype=np.int64)
    return (g != 0) & ((g & (g - 1)) == 0)


def _index(mask: int) -> int:
    return int(mask).bit_length() - 1


def _line_json(puzzle: Puzzle, line: int | None) -> dict[str, Any] | None:
    if line is None:
        return None
    h = puzzle.height
    return {"axis": "row", "index": line} if line < h else {"axis": "col", "index": line - h}


def _mistakes(puzzle: Puzzle, grid: np.ndarray, timeout: float) -> list[list[Any]] | None:
    """The known cells no solution shares, with their right colours (``[r, c, ch]``), by
    :func:`nonosat.analysis.hints.find_mistakes` (black-and-white's; ``timeout`` seconds a
    solve): empty when some solution agrees, ``None`` when the puzzle has no solution.

    Raises
    ------
    TimeoutError
        A solve gave up (neither answer is known).
    """
    from nonosat.analysis.hints import find_mistakes
    from nonosat.errors import UndecidedError

    try:
        found = find_mistakes(puzzle, grid, engine="auto", timeout=timeout)
    except UndecidedError:
        raise TimeoutError from None
    if found is None:
        return None
    return [[r, c, INDEX_CHARS[int(k)]] for (r, c), k in found]


def colour_check_json(puzzle: Puzzle, grid: np.ndarray, timeout: float) -> dict[str, Any]:
    """The ``/api/check`` answer for a colour grid state: ``{"mistakes": [[r, c]],
    "complete", "solvable"}``."""
    try:
        found = _mistakes(puzzle, grid, timeout)
    except TimeoutError:
        return {"mistakes": [], "complete": False, "solvable": None}
    mistakes = [[r, c] for r, c, _ in found or []]
    known = bool(_single(grid).all())
    complete = (known and not mistakes
                and puzzle.is_solution(np.vectorize(_index)(grid).astype(np.int8)))
    return {"mistakes": mistakes, "complete": bool(complete), "solvable": found is not None}


def colour_hint_json(puzzle: Puzzle, grid: np.ndarray, timeout: float) -> dict[str, Any]:
    """The ``/api/hint`` answer for a colour grid state (keys as black-and-white's): a mistake,
    else the next line or probing deduction that decides a cell (steps that only narrow a
    cell's colours are taken silently: a player's cell is one colour or unknown), else, when
    logic is stuck, one cell of the solution (``"guess"``)."""
    from nonosat.analysis.hints import HintFinder, apply_hint
    from nonosat.analysis.wording import cell_words, colour_names

    def answer(kind: str, text: str, cells: list[list[Any]], line: int | None = None,
               technique: str | None = None) -> dict[str, Any]:
        return {"kind": kind, "status": kind, "text": text, "technique": technique,
                "stage": technique, "line": _line_json(puzzle, line),
                "line_name": puzzle.line_name(line) if line is not None else None,
                "cells": cells, "done": kind == "solved"}

    try:
        mistakes = _mistakes(puzzle, grid, timeout)
    except TimeoutError:
        return answer("unknown", f"The solver could not decide within {timeout:g} s whether "
                                 f"the cells known so far are right; no hint.", [])
    if mistakes is None:
        return answer("no-solution", "The puzzle has no solution.", [])
    if mistakes:
        n = len(mistakes)
        return answer("mistake", f"{n} cell{'s are' if n != 1 else ' is'} wrong (marked): "
                                 "no solution has them so.", mistakes)
    g = np.asarray(grid, dtype=np.int32).copy()
    if _single(g).all():
        return answer("solved", "The puzzle is solved.", [])
    finder = HintFinder(puzzle)
    for _ in range(MAX_NARROWING):
        hint = finder.next(g)
        if hint.kind != "deduction":
            break
        known = _single(g)
        decided = [colour_cell_json(r, c, 1 << int(k)) for (r, c), k in hint.cells
                   if not known[r, c]]
        g = apply_hint(g, hint)
        if decided:
            return answer("deduction", hint.text, decided, hint.line, hint.stage)
    result = solve(puzzle, "auto", partial=grid, limit=1, timeout=timeout)
    if not result.solutions:
        return answer("unknown", "No deduction found and the solver could not finish in "
                                 f"{timeout:g} s.", [])
    sol = result.solutions[0]
    r, c = (int(v) for v in np.argwhere(~_single(grid))[0])
    return answer("guess", f"Logic alone gets no further here: try {cell_words(r, c)} as "
                           f"{colour_names(puzzle, 1 << int(sol[r, c]))} (it is so in a "
                           "solution).",
                  [[r, c, INDEX_CHARS[int(sol[r, c])]]])


def colour_steps_json(puzzle: Puzzle, *, max_solutions: int = 2, max_steps: int = 100_000,
                      timeout: float = 5.0, start: np.ndarray | None = None,
                      stop: StopToken | None = None) -> dict[str, Any]:
    """The ``/api/steps`` answer for a colour puzzle: the hints of
    :func:`~nonosat.analysis.walkthrough.explain` (``kind`` ``line`` / ``implication`` /
    ``probe`` as black-and-white's, cells that one colour is left to), then, when logic gets stuck, the search's part: a ``guess`` step
    filling the rest of the first solution and a ``solution``; for a second solution, a
    ``rewind`` of the cells where it differs, a ``guess`` step setting them and another
    ``solution``.  ``{"steps", "status", "solutions", "complete"}`` as black-and-white.
    ``start`` (int32 colour masks, the givens) is where the steps start; its decided cells are
    never set by a step.  ``stop`` (the job's token) is read between hints and by the search:
    once set, the answer is incomplete (``"complete": false``)."""
    from nonosat.analysis.walkthrough import TECHNIQUE_KIND, explain

    run = explain(puzzle, start, max_steps=max_steps, stop=stop)
    assert run.grid is not None
    end = "stopped" if run.final is None else run.final.kind
    steps: list[dict[str, Any]] = []
    known = np.zeros(puzzle.shape, dtype=bool) if start is None else _single(start)
    for step in run.steps:
        assert step.technique is not None
        cells = []
        for (r, c), k in step.cells:
            if not known[r, c]:
                known[r, c] = True
                cells.append(colour_cell_json(r, c, 1 << int(k)))
        steps.append({"kind": TECHNIQUE_KIND[step.technique],
                      "text": step.text, "line": _line_json(puzzle, step.line),
                      "cells": cells, "depth": 0, "technique": step.technique})
    solutions: list[np.ndarray] = []
    complete = end != "stopped"
    if end == "no-solution":
        steps.append({"kind": "contradiction", "text": "a line cannot be completed: no "
                      "solution", "line": None, "cells": [], "depth": 0})
        status = Status.NONE
    elif end == "solved":
        solutions = [np.vectorize(_index)(run.grid).astype(np.int8)]
        steps.append({"kind": "solution", "text": "solved by logic alone", "line": None,
                      "cells": [], "depth": 0})
        status = Status.UNIQUE
    else:
        result = solve(puzzle, "auto", partial=run.grid, limit=max_solutions, timeout=timeout,
                       stop=stop)
        status = result.status
        solutions = list(result.solutions)
        previous: np.ndarray | None = None
        for k, sol in enumerate(solutions):
            if previous is None:
                todo = ~known
            else:
                todo = (sol != previous) & ~known
                steps.append({"kind": "rewind", "text": "back to look for another solution",
                              "line": None, "depth": 1,
                              "cells": [[int(r), int(c), "?"] for r, c in np.argwhere(todo)]})
            steps.append({"kind": "guess", "text": "logic is stuck: the search sets the rest"
                          if k == 0 else "the search finds other colours for these cells",
                          "line": None, "depth": 1,
                          "cells": [[int(r), int(c), INDEX_CHARS[int(sol[r, c])]]
                                    for r, c in np.argwhere(todo)]})
            steps.append({"kind": "solution", "text": f"solution {k + 1}", "line": None,
                          "cells": [], "depth": 1})
            previous = sol
        if not solutions and status == Status.NONE:
            steps.append({"kind": "contradiction", "text": "the search finds no solution",
                          "line": None, "cells": [], "depth": 1})
        complete = complete and status != Status.UNKNOWN
    return {"steps": steps, "status": status.value,
            "solutions": [colour_grid_rows(s) for s in solutions], "complete": complete}
