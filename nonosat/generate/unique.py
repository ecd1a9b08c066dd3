"""The fewest cell changes that make a picture's puzzle unique (and at most a target grade).

A picture drawn or thresholded from a photograph rarely makes a puzzle with one solution.
:func:`make_unique` changes cells of the picture, one at a time, until its clues have exactly one
solution, and, when a target grade is given, until logic of that grade solves it:

======  ===============================================  =====================================
grade   the puzzle must be solved by                     checked with
======  ===============================================  =====================================
1       line solving alone ("no guessing")               the native line propagation
2, 3    line solving and failed-literal probing          the native root node (probing)
4, 5    anything: a unique solution                      the portfolio (:func:`nonosat.engines
none    (same)                                           .solve`, limit 2)
======  ===============================================  =====================================

Each step is greedy, in the manner of Batenburg et al. [1]_: the cells the target logic leaves
open, the cells on which two solutions differ (the ambiguity the engine found) first, are the
candidates; each candidate change (black-and-white: the cell flipped; colour: each other colour
the line logic still allows there or a neighbour has) is scored by the cells line solving leaves
open in the changed picture's puzzle (a compiled fixpoint, about a millisecond), and the best is
kept (ties broken by the seeded random generator).  After every change the target is checked
(for grade 4, 5 or none with the portfolio's uniqueness check).  When it holds, a pruning pass
undoes every change that the target does not need (each undone alone and re-checked), so the
changes reported are irredundant; they are not proved fewest.

The target grade is an upper bound ("no harder than G"): the grade reached (the
:func:`nonosat.analysis.difficulty.difficulty_grade` of the result) is reported, and may be lower.

References
----------
.. [1] K. J. Batenburg, S. Henstra, W. A. Kosters, W. J. Palenstijn, "Constructing Simple
   Nonograms of Varying Difficulty", Pure Mathematics and Applications 20 (2009) 1-15.
.. [2] S. Tatham, *Pattern* (Simon Tatham's Portable Puzzle Collection): random grids kept only
   when its own line solver solves them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.engines import Status, solve
from nonosat.puzzle import Cell, Palette, Puzzle
from nonosat.stop import StopToken

#: Candidate cells scored per step (the ambiguous ones first, then open ones, sampled); a
#: third of them for colour pictures, each with at most two colours.
CANDIDATES = 48
#: Seconds one uniqueness check may take at most.
CHECK_TIMEOUT = 2.0
#: The least a uniqueness check gets after checks that gave up (see ``_Checker.check``).
MIN_CHECK_TIMEOUT = 0.25
#: Most steps of the search skipped between two uniqueness checks after checks that gave up
#: (the skips double from 1 with each check that gives up; see ``_Checker.check``).
MAX_CHECK_SKIP = 8

Progress = Callable[[dict[str, Any]], None]


@dataclass
class Generated:
    """What :func:`make_unique` (or :func:`nonosat.generate.random_puzzle`) made.

    Attributes
    ----------
    puzzle : Puzzle
        The puzzle of the final picture (the picture is its ``goal``).
    picture : ndarray
        The final picture, ``(height, width)`` (bool, or int8 colour indices).
    original : ndarray
        The picture before any change.
    status : Status
        The portfolio's verdict on the final puzzle (``unique`` when the target was reached).
    grade : int or None
        The grade (1-5) of the final puzzle, when unique.
    grade_name : str
    target_grade : int or None
    reached : bool
        Unique, and no harder than ``target_grade`` when one was given.
    steps : int
        Changes tried in the greedy search (before pruning).
    time_s : float
    reason : str
        Why the target was not reached (``"time limit"``, ``"--max-changes reached"``), else
        ``""``.
    """

    puzzle: Puzzle
    picture: np.ndarray
    original: np.ndarray
    status: Status
    grade: int | None = None
    grade_name: str = ""
    target_grade: int | None = None
    reached: bool = False
    steps: int = 0
    time_s: float = 0.0
    reason: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def changed(self) -> np.ndarray:
        """Bool mask, ``(height, width)``: the cells the search changed."""
        return np.asarray(self.picture) != np.asarray(self.original)

    @property
    def changes(self) -> int:
        """Number of cells changed."""
        return int(self.changed.sum())

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable summary (cells 1-based ``{"row", "col"}``, as the JSON contract of
        ``docs/cli.md``)."""
        h, w = self.picture.shape
        return {
            "width": w, "height": h,
            "colours": None if self.puzzle.palette is None else len(self.puzzle.palette) - 1,
            "status": self.status.value,
            "reached": self.reached,
            "target_grade": self.target_grade,
            "grade": self.grade, "grade_name": self.grade_name,
            "cells_changed": self.changes,
            "share_changed": round(self.changes / (h * w), 6),
            "changed": [{"row": int(r) + 1, "col": int(c) + 1}
                        for r, c in zip(*np.nonzero(self.changed), strict=True)],
            "steps": self.steps,
            "time_s": round(self.time_s, 6),
            "reason": self.reason,
            **self.info,
        }


def logic_for(grade: int | None) -> str | None:
    """The logic a target grade asks for: ``"line"`` (1), ``"probing"`` (2, 3), or ``None``
    (4, 5, none: uniqueness only).

    Raises
    ------
    ValueError
        A grade outside 1..5.
    """
    if grade is None:
        return None
    if not 1 <= grade <= 5:
        raise ValueError(f"grade {grade}: use 1 (line-solvable) to 5")
    return "line" if grade == 1 else "probing" if grade <= 3 else None


def picture_puzzle(picture: np.ndarray, palette: Palette | None, title: str | None = None
                   ) -> Puzzle:
    """The puzzle whose clues are derived from ``picture``; the picture is its goal."""
    if palette is not None:
        return Puzzle.from_picture(picture, palette=palette, title=title)
    return Puzzle.from_picture(picture, title=title)


def open_cells(puzzle: Puzzle, logic: str = "line") -> tuple[np.ndarray, np.ndarray] | None:
    """``(open, fixpoint)`` after ``logic`` (``"line"`` or ``"probing"``, native, compiled):
    ``open`` a bool mask of the cells it leaves undecided, ``fixpoint`` the grid state (int8
    :class:`~nonosat.puzzle.Cell` values, or int32 colour masks); ``None`` on a contradiction."""
    from nonosat.analysis.logic import closure, full_grid

    # the native stepper of the puzzle's form (nonosat.native.stepping, colour_stepping)
    fix = closure(puzzle, logic)(full_grid(puzzle))
    if fix is None:
        return None
    if puzzle.is_colour:
        bits = fix.astype(np.int64)
        return (bits & (bits - 1)) != 0, fix
    return fix == Cell.UNKNOWN, fix


class _Checker:
    """The target check and the deadline shared by a search."""

    def __init__(self, logic: str | None, engine: str, deadline: float | None,
                 stop: StopToken | None = None):
        self.stop = stop
        self.logic = logic
        self.engine = engine
        self.deadline = deadline
        self.checks = 0
        self.budget = CHECK_TIMEOUT
        self.skip = 0  # search steps left before the next uniqueness check
        self.backoff = 1
        self.skipped = 0

    def left(self) -> float | None:
        return None if self.deadline is None else max(self.deadline - time.perf_counter(), 0.0)

    def expired(self) -> bool:
        """The deadline passed, or the stop token was set."""
        return (self.stop is not None and self.stop.is_set()) or (
            self.deadline is not None and time.perf_counter() >= self.deadline)

    def check(self, puzzle: Puzzle, *, may_skip: bool = False
              ) -> tuple[bool, np.ndarray, np.ndarray | None, Status]:
        """``(reached, open cells, differing cells or None, status)``.

        With ``may_skip`` (a search step, not a pruning step), the portfolio's uniqueness check
        is skipped for a few steps after checks that gave up: on pictures that line solving
        cannot start (concentric rings), every check up to the last few changes gives up, and
        the checks then took most of the time.  A skipped check answers "not reached" (the
        search goes on; the target is only ever claimed from a check that ran)."""
        self.checks += 1
        got = open_cells(puzzle, self.logic or "line")
        if got is None:  # impossible: the picture is a solution of its own clues
            raise AssertionError("logic found a contradiction in a picture's own clues")
        open_mask = got[0]
        if not open_mask.any():
            return True, open_mask, None, Status.UNIQUE
        if self.logic is not None:
            return False, open_mask, None, Status.UNKNOWN
        if may_skip and self.skip > 0:
            self.skip -= 1
            self.skipped += 1
            return False, open_mask, None, Status.UNKNOWN
        left = self.left()
        timeout = self.budget if left is None else min(left, self.budget)
        # colour: the portfolio's hand-off to SAT builds the colour CNF in Python (about half a
        # second on 30x30, not bounded by the time limit), so the native search checks alone
        engine = "native" if puzzle.is_colour and self.engine == "auto" else self.engine
        result = solve(puzzle, engine, limit=2, timeout=max(timeout, 0.01), stop=self.stop)
        # a check that gives up halves the next one's budget (a picture that hard is changed
        # further anyway); a decided one restores it
        self.budget = (max(self.budget / 2, MIN_CHECK_TIMEOUT) if result.status is Status.UNKNOWN
                       else CHECK_TIMEOUT)
        # and skips the next 1, 2, 4, ... search steps' checks (a decided one: none)
        if result.status is Status.UNKNOWN:
            self.skip, self.backoff = self.backoff, min(2 * self.backoff, MAX_CHECK_SKIP)
        else:
            self.skip, self.backoff = 0, 1
        if result.status is Status.UNIQUE:
            return True, open_mask, None, result.status
        differ = None
        if len(result.solutions) >= 2:
            stack = np.asarray(result.solutions)
            differ = (stack != stack[0]).any(axis=0)
        return False, open_mask, differ, result.status


def _options(picture: np.ndarray, fix: np.ndarray, cell: tuple[int, int], colour: bool
             ) -> list[int]:
    """The values a candidate cell may be changed to."""
    r, c = cell
    here = int(picture[r, c])
    if not colour:
        return [1 - here]
    allowed = {k for k in range(32) if (int(fix[r, c]) >> k) & 1}
    h, w = picture.shape
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < h and 0 <= c + dc < w:
            allowed.add(int(picture[r + dr, c + dc]))
    allowed.discard(here)
    # the background first (a cell emptied), then the other colours, at most two: a colour
    # candidate costs ~20 ms (the puzzle's clues re-derived and validated, then line solving)
    ordered = sorted(allowed, key=lambda k: (k != 0, k))
    return ordered[:2]


def _slack(picture: np.ndarray, cell: tuple[int, int], palette: Palette | None) -> int:
    """Free cells of the row and the column of ``cell`` under their clues (the line length less
    the least length the clue needs), summed."""
    from nonosat.puzzle import (
        clue_min_length,
        clue_min_length_colour,
        line_blocks,
        line_colour_blocks,
    )

    r, c = cell
    total = 0
    for line in (picture[r], picture[:, c]):
        if palette is None:
            total += line.size - clue_min_length(line_blocks(line))
        else:
            lengths, colours = line_colour_blocks(line)
            total += line.size - clue_min_length_colour(lengths, colours)
    return total


def _candidates(open_mask: np.ndarray, differ: np.ndarray | None, rng: np.random.Generator,
                limit: int) -> list[tuple[int, int]]:
    """The ambiguous cells, then the open cells, each group shuffled, at most ``limit``."""
    first = np.zeros_like(open_mask) if differ is None else differ
    groups = [first, open_mask & ~first]
    out: list[tuple[int, int]] = []
    for g in groups:
        cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(g), strict=True)]
        rng.shuffle(cells)
        out.extend(cells[: limit - len(out)])
        if len(out) >= limit:
            break
    return out


def make_unique(
    picture: np.ndarray,
    palette: Palette | None = None,
    *,
    grade: int | None = None,
    max_changes: int | None = None,
    timeout: float | None = 60.0,
    engine: str = "auto",
    seed: int = 0,
    candidates: int = CANDIDATES,
    prune: bool = True,
    title: str | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    stop: StopToken | None = None,
) -> Generated:
    """Change the fewest cells (greedily, then pruned) that make ``picture``'s puzzle unique
    and no harder than ``grade`` (module docstring).

    Parameters
    ----------
    picture : ndarray, shape (height, width)
        Bool (filled) or, with ``palette``, int colour indices (0 = background).
    palette : Palette, optional
    grade : int, optional
        Target grade 1-5 (1 = line-solvable); ``None``: unique is enough.
    max_changes : int, optional
        Most cells the greedy search may change (default: no limit but the time).
    timeout : float, optional
        Seconds for the whole search (checks included).
    engine : str
        Engine of the uniqueness checks (default the ``auto`` portfolio).
    seed : int
        Seeds the tie-breaking and the sampling of candidates (same seed, same result).
    candidates : int
        Candidate cells scored per step.
    prune : bool
        Undo the changes the target does not need once it is reached.
    title : str, optional
        Title of the puzzle made.
    progress : callable, optional
        Called after each step with ``{"step", "changes", "open"}``.
    should_stop : callable
        Polled between steps; ``True`` stops the search as a time limit does.
    stop : StopToken, optional
        Handed to the uniqueness checks' engines and read between candidates: once set, the
        search stops as at its time limit (no grade is computed).

    Returns
    -------
    Generated

    Raises
    ------
    ValueError
        A grade outside 1..5 or a picture that is not 2-D.
    """
    start = time.perf_counter()
    colour = palette is not None
    original = np.asarray(picture, dtype=np.int8 if colour else bool).copy()
    if original.ndim != 2 or original.size == 0:
        raise ValueError("the picture must be a non-empty 2-D grid")
    pic = original.copy()
    logic = logic_for(grade)
    deadline = None if timeout is None else start + timeout
    checker = _Checker(logic, engine, deadline, stop)
    rng = np.random.default_rng(seed)
    steps = 0
    reason = ""
    puzzle = picture_puzzle(pic, palette, title)
    reached, open_mask, differ, status = checker.check(puzzle)
    while not reached:
        if max_changes is not None and int((pic != original).sum()) >= max_changes:
            reason = "--max-changes reached"
            break
        if checker.expired() or should_stop():
            reason = "time limit"
            break
        fix = open_cells(puzzle, "line")
        assert fix is not None
        best: tuple[tuple[int, int, int], tuple[int, int], int] | None = None
        ties = 0
        for cell in _candidates(open_mask, differ, rng,
                                candidates if not colour else max(8, candidates // 3)):
            for value in _options(pic, fix[1], cell, colour):
                old = pic[cell]
                pic[cell] = value
                got = open_cells(picture_puzzle(pic, palette), "line")
                # ties in the cells left open (common while line solving fixes nothing at all)
                # go to the change that leaves its row and column the least slack (tighter
                # clues overlap sooner); undoing an earlier change is cheaper
                score = (int(got[0].sum()) if got is not None else 1 << 30,
                         _slack(pic, cell, palette), int(value != original[cell]))
                pic[cell] = old
                if best is None or score < best[0]:
                    best, ties = (score, cell, value), 1
                elif score == best[0]:
                    ties += 1
                    if rng.random() < 1.0 / ties:
                        best = (score, cell, value)
            if checker.expired():
                break
        if best is None:
            reason = "no candidate change"
            break
        pic[best[1]] = best[2]
        steps += 1
        puzzle = picture_puzzle(pic, palette, title)
        reached, open_mask, differ, status = checker.check(puzzle, may_skip=True)
        if progress is not None:
            progress({"step": steps, "changes": int((pic != original).sum()),
                      "open": int(open_mask.sum())})
    if reached and prune:
        for r, c in zip(*np.nonzero(pic != original), strict=True):
            if checker.expired():
                break
            kept = pic[r, c]
            pic[r, c] = original[r, c]
            ok = checker.check(picture_puzzle(pic, palette, title))[0]
            if not ok:
                pic[r, c] = kept
        puzzle = picture_puzzle(pic, palette, title)
    out = Generated(puzzle, pic, original, status if not reached else Status.UNIQUE,
                    target_grade=grade, steps=steps, reason=reason)
    # reached: every picture kept was checked (the last change, or each pruning step kept);
    # a pruning step undone restores a picture already checked
    out.status = Status.UNIQUE if reached else status
    if reached:
        if logic == "line":  # line solving alone: grade 1 by definition
            out.grade, out.grade_name = 1, "easy"
        elif stop is not None and stop.is_set():
            out.reason = out.reason or "stopped before the grade was known"
        else:
            left = checker.left()
            g = grade_of(puzzle, None if left is None else max(left, 2.0))
            out.grade, out.grade_name = g.grade, g.name
        out.reached = grade is None or (out.grade is not None and out.grade <= grade)
        if not out.reached and not out.reason:
            out.reason = f"grade {out.grade} reached, harder than {grade}"
    out.info["checks"] = checker.checks
    out.info["checks_skipped"] = checker.skipped
    out.time_s = time.perf_counter() - start
    return out


def grade_of(puzzle: Puzzle, timeout: float | None = 30.0) -> Any:
    """The :class:`~nonosat.analysis.difficulty.Grade` of a unique puzzle (staged logic, and the
    engine's search figures when logic gets stuck; the search within ``timeout``)."""
    from nonosat.analysis.difficulty import analyse

    return analyse(puzzle, structure=False, backdoor_timeout=0, timeout=timeout,
                   count=False).grade
