"""The hint finder: the next deduction a person could make from a grid state, in words.

:class:`HintFinder` tries the techniques from the simplest to the hardest and stops at the first
that fixes something (the list, and the wording, are in :mod:`nonosat.analysis.hints`, the
module callers import from; this one holds the finder, the :class:`Hint` it returns and
:func:`apply_hint`).  It works on the puzzle's :class:`~nonosat.analysis.logic.Logic`, so
black-and-white and colour puzzles share it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from nonosat.analysis import wording
from nonosat.analysis.logic import logic_of
from nonosat.analysis.overlap import overlap
from nonosat.native.colour import solve_colour_line
from nonosat.native.implications import (
    ForcedLiteral,
    Literal,
    explain_forced,
    forced_literals,
    implication_graph,
)
from nonosat.native.line import solve_line
from nonosat.puzzle import Cell, Puzzle, clue_text

#: Techniques from the simplest to the hardest, with the solver stage each belongs to.
TECHNIQUE_STAGE = {
    "overlap": "line",
    "line": "line",
    "contradiction": "implications",
    "tautology": "implications",
    "failed-literal": "probing",
    "probe-both": "probing",
    "probe-all": "probing",
}

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth", "tenth")


@dataclass(frozen=True)
class Hint:
    """One hint.

    Attributes
    ----------
    kind : str
        ``"deduction"`` (cells can be fixed), ``"mistake"`` (``cells`` are wrong in the given
        state, with their correct values), ``"solved"``, ``"guess"`` (no deduction without
        guessing) or ``"no-solution"``.
    text : str
        The explaining sentence.
    cells : tuple of ((row, col), Cell or int)
        Cells fixed (0-based), or the correct values of mistaken cells; for a colour puzzle the
        value is a colour index (into the palette).
    technique : str or None
        See :data:`TECHNIQUE_STAGE`.
    line : int or None
        The line the deduction is about (overlap and line techniques), rows first.
    verdict : str or None
        On a ``"guess"`` hint from :func:`next_hint` / :func:`stuck_hint`: what the engine says
        of the solutions that agree with the state -- ``"multiple"`` (the puzzle has several
        solutions), ``"unique"`` (one solution, but reaching it needs a guess), ``"unknown"``
        (not decided within the time limit); ``None`` when not asked.
    masks : tuple of ((row, col), int)
        Colour deductions: every cell narrowed with its new colour bit mask (``cells`` holds
        those left with one colour); empty for black-and-white.
    """

    kind: str
    text: str
    cells: tuple[tuple[tuple[int, int], Cell | int], ...] = ()
    technique: str | None = None
    line: int | None = None
    verdict: str | None = None
    masks: tuple[tuple[tuple[int, int], int], ...] = ()

    @property
    def stage(self) -> str | None:
        """Solver stage of the technique (``"line"``, ``"implications"``, ``"probing"``)."""
        return TECHNIQUE_STAGE.get(self.technique) if self.technique else None

    def to_json(self, puzzle: Puzzle) -> dict[str, Any]:
        """JSON-serialisable dict; cells 1-based; ``verdict`` as the attribute.  A colour
        hint's cell values are colour names, and ``masks`` lists the narrowed cells with the
        colours each may still take."""
        names = [col.name for col in puzzle.palette.colours] if puzzle.palette else []
        out: dict[str, Any] = {
            "status": self.kind,
            "technique": self.technique,
            "stage": self.stage,
            "line": puzzle.line_name(self.line) if self.line is not None else None,
            "text": self.text,
            "cells": [
                {"row": r + 1, "col": c + 1, "colour": names[int(v)]} if names else
                {"row": r + 1, "col": c + 1, "value": "filled" if v == Cell.FILLED else "empty"}
                for (r, c), v in self.cells
            ],
        }
        if names:
            out["masks"] = [{"row": r + 1, "col": c + 1,
                             "colours": [n for k, n in enumerate(names) if (m >> k) & 1]}
                            for (r, c), m in self.masks]
        out["verdict"] = self.verdict
        return out


# -- wording ----------------------------------------------------------------------------------
def cell_name(cell: tuple[int, int]) -> str:
    """``"R3C5"`` for 0-based ``(2, 4)``."""
    return f"R{cell[0] + 1}C{cell[1] + 1}"


def literal_text(lit: Literal) -> str:
    """``"R3C5 filled"``."""
    return f"{cell_name(lit.cell)} {'filled' if lit.filled else 'empty'}"


def positions_text(positions: list[int], noun: str) -> str:
    """``"columns 1–2, 5 and 9"`` for 0-based ``[0, 1, 4, 8]`` and ``noun="column"``
    (:func:`nonosat.analysis.wording.range_text`)."""
    return wording.range_text(positions, noun)


def _block_name(clue: tuple[int, ...], j: int) -> str:
    length = clue[j]
    if clue.count(length) == 1:
        return f"the {length}"
    nth = sum(1 for b in clue[: j + 1] if b == length)
    ordinal = _ORDINALS[nth - 1] if nth <= len(_ORDINALS) else f"{nth}th"
    return f"the {ordinal} {length}"


# -- the finder -------------------------------------------------------------------------------
def _bw_cells(cells: tuple[tuple[tuple[int, int], Cell | int], ...]
              ) -> tuple[tuple[tuple[int, int], Cell], ...]:
    """A black-and-white step's cells with their values as :class:`Cell`."""
    return tuple((rc, Cell(value)) for rc, value in cells)


def _single(mask: int) -> bool:
    return mask != 0 and mask & (mask - 1) == 0


class HintFinder:
    """Finds hints for one puzzle, black-and-white or colour; caches per-line results between
    calls.

    States are the puzzle's :class:`~nonosat.analysis.logic.Logic` form
    (:func:`~nonosat.analysis.logic.logic_of`): int8 :class:`~nonosat.puzzle.Cell` values for
    black-and-white, int32 colour bit masks for colour.  The techniques are the same for both
    (the overlap rule is black-and-white only); a colour hint's ``cells`` are the cells left
    with one colour (their colour index) and its ``masks`` every cell it narrowed.

    Parameters
    ----------
    puzzle : Puzzle
    depth : int, optional
        Implication graph traversal depth (unlimited when omitted; black-and-white only).
    """

    def __init__(self, puzzle: Puzzle, depth: int | None = None):
        self.puzzle = puzzle
        self.depth = depth
        self.logic = logic_of(puzzle)
        self.colour = puzzle.is_colour
        self._overlap: dict[tuple[int, bytes], Any] = {}
        self._line: dict[tuple[int, bytes], Any] = {}

    # lines
    def _line_cells(self, line: int) -> list[tuple[int, int]]:
        h, w = self.puzzle.shape
        return [(line, c) for c in range(w)] if line < h else [(r, line - h) for r in range(h)]

    def _values(self, state: np.ndarray, line: int) -> np.ndarray:
        h = self.puzzle.height
        return np.ascontiguousarray(state[line] if line < h else state[:, line - h])

    def _solve(self, line: int, values: np.ndarray) -> np.ndarray | None:
        """The complete line solver of the puzzle's form on one line's values."""
        clue = self.puzzle.lines[line]
        assert clue is not None  # _best_line and _propagate_from skip unknown clues
        if self.colour:
            return solve_colour_line(clue, self.puzzle.line_colours[line] or (), values,
                                     self.puzzle.n_colours)
        return solve_line(clue, values)

    def _noun(self, line: int) -> str:
        return "column" if line < self.puzzle.height else "row"

    def _prefix(self, line: int) -> str:
        if self.colour:
            return f"{self.puzzle.line_name(line)}, clue {wording.colour_clue_words(self.puzzle, line)}"
        return f"{self.puzzle.line_name(line)}, clue {clue_text(self.puzzle.lines[line])}"

    def _cell(self, cell: tuple[int, int]) -> str:
        return wording.cell_label(self.puzzle, *cell)

    def _colours(self, mask: int) -> str:
        return wording.colour_names(self.puzzle, mask)

    def _contradiction(self, line: int) -> Hint:
        return Hint("no-solution",
                    f"{self._prefix(line)}: the known cells leave no room for the clue, so this "
                    "state has no solution.", line=line)

    def _best_line(
        self, state: np.ndarray, memo: dict, deduce: Callable[[int, np.ndarray], Any],
        gain: Callable[[np.ndarray, Any], int],
    ) -> tuple | None:
        """Run ``deduce(line, values)`` (memoised in ``memo``) on every line with open cells.

        Returns ``(line, values, result)`` for the first line whose result is ``None`` (a
        contradiction), else for the line of largest ``gain(values, result)`` (the first on
        ties), else ``None`` when no line gains anything."""
        best: tuple[int, int, np.ndarray, Any] | None = None
        for line, clue in enumerate(self.puzzle.lines):
            if clue is None:
                continue
            values = self._values(state, line)
            if not self.logic.open(values).any():
                continue
            key = (line, values.tobytes())
            if key not in memo:
                memo[key] = deduce(line, values)
            result = memo[key]
            if result is None:
                return line, values, None
            g = gain(values, result)
            if g and (best is None or g > best[0]):
                best = (g, line, values, result)
        return None if best is None else best[1:]

    def _masks_hint(self, text: str, technique: str, masks: list[tuple[tuple[int, int], int]],
                    line: int | None = None) -> Hint:
        """A colour deduction narrowing ``masks`` (``((row, col), new mask)``)."""
        cells = tuple(sorted((rc, int(m).bit_length() - 1) for rc, m in masks if _single(m)))
        return Hint("deduction", text, cells, technique, line, masks=tuple(sorted(masks)))

    def overlap_hint(self, state: np.ndarray) -> Hint | None:
        """The overlap deduction fixing the most cells, or ``None`` (always for colour)."""
        if self.colour:
            return None
        found = self._best_line(
            state, self._overlap,
            lambda line, values: overlap(self.puzzle.lines[line] or (), values.tolist()),
            lambda values, result: len(result.filled) + len(result.empty),
        )
        if found is None:
            return None
        line, _, result = found
        if result is None:
            return self._contradiction(line)
        clue = self.puzzle.lines[line]
        noun = self._noun(line)
        cells = self._line_cells(line)
        parts = []
        if not clue:
            text = f"{self._prefix(line)}: the whole {self.puzzle.line_name(line).split()[0]} " \
                   "is empty."
        else:
            new_filled = set(result.filled)
            for j, (start, end) in enumerate(result.covered):
                mine = [i for i in range(start, end) if i in new_filled]
                if mine:
                    span = list(range(start, end))
                    parts.append(f"{_block_name(clue, j)} must cover {positions_text(span, noun)}")
            if result.empty:
                reach = positions_text(result.empty, noun)
                parts.append(f"no block can reach {reach}")
            text = f"{self._prefix(line)}: " + "; ".join(parts) + "."
        fixed = [(cells[i], Cell.FILLED) for i in result.filled]
        fixed += [(cells[i], Cell.EMPTY) for i in result.empty]
        fixed.sort()
        return Hint("deduction", text, tuple(fixed), "overlap", line)

    def _line_gain(self, values: np.ndarray, out: np.ndarray) -> int:
        """Cells a line solve changes; for colour, cells it decides first (then narrows)."""
        changed = out != values
        if not self.colour:
            return int(changed.sum())
        decided = changed & ((out & (out - 1)) == 0)
        return int(decided.sum()) * (len(values) + 1) + int(changed.sum())

    def line_hint(self, state: np.ndarray) -> Hint | None:
        """The complete-line-solver deduction fixing the most cells, or ``None``."""
        found = self._best_line(state, self._line, self._solve, self._line_gain)
        if found is None:
            return None
        line, values, out = found
        if out is None:
            return self._contradiction(line)
        noun = self._noun(line)
        cells = self._line_cells(line)
        if self.colour:
            masks = [(cells[i], int(out[i])) for i in range(len(values)) if out[i] != values[i]]
            text = (f"{self._prefix(line)}: every placement of the blocks that fits the known "
                    f"cells leaves {wording.line_masks_text(self.puzzle, line, masks)}.")
            return self._masks_hint(text, "line", masks, line)
        filled = [i for i in range(len(values)) if out[i] != values[i] and out[i] == Cell.FILLED]
        empty = [i for i in range(len(values)) if out[i] != values[i] and out[i] == Cell.EMPTY]
        what = []
        if filled:
            what.append(f"fills {positions_text(filled, noun)}")
        if empty:
            what.append(f"leaves {positions_text(empty, noun)} empty")
        text = (f"{self._prefix(line)}: every placement of the blocks that fits the known "
                f"cells {' and '.join(what)}.")
        fixed = sorted([(cells[i], Cell.FILLED) for i in filled]
                       + [(cells[i], Cell.EMPTY) for i in empty])
        return Hint("deduction", text, tuple(fixed), "line", line)

    def _chain(self, graph: nx.DiGraph, path: list[Literal]) -> str:
        steps = []
        for a, b in zip(path, path[1:], strict=False):
            steps.append(f"{self.puzzle.line_name(graph.edges[a, b]['line'])} gives "
                         f"{literal_text(b)}")
        return ", then ".join(steps)

    def _outcome(self, state: np.ndarray, cell: tuple[int, int], mask: int) -> str:
        """What a colour cell is after a deduction: ``"is red"``, ``"is not red"`` (one colour
        of several removed) or ``"is red or black"``."""
        old = int(state[cell])
        removed = old & ~mask
        if not _single(mask) and _single(removed):
            return f"is not {self._colours(removed)}"
        return f"is {self._colours(mask)}"

    def _colour_chain(self, graph: nx.DiGraph, path: list) -> str:
        """A path of colour literals in words: ``"row 3 gives row 3, column 6 red, then ..."``."""
        return ", then ".join(
            f"{self.puzzle.line_name(graph.edges[a, b]['line'])} gives {self._cell(b.cell)} "
            f"{self._colours(1 << int(b[2]))}" for a, b in zip(path, path[1:], strict=False))

    def _colour_implication_hint(self, state: np.ndarray) -> Hint | None:
        from nonosat.analysis.implied import ColourLiteral, palette_arrays
        from nonosat.analysis.structure import colour_graph

        steps = self.logic.implications(state)
        if not steps:
            return None
        step = steps[0]
        premise = step.premise
        assert premise is not None and len(step.masks) == 1
        (cell, mask), = step.masks
        name = self._cell(cell)
        what = self._outcome(state, cell, mask)
        graph = colour_graph(palette_arrays(self.puzzle, state))
        p_cell = self._cell(premise.cell)
        if step.technique == "tautology":  # every colour of the premise's cell reaches the cell
            target = ColourLiteral(*cell, int(mask).bit_length() - 1)
            ways = []
            for k in range(self.puzzle.n_colours):
                start = ColourLiteral(*premise.cell, k)
                if (int(state[premise.cell]) >> k) & 1 and start in graph:
                    path = nx.shortest_path(graph, start, target)
                    ways.append(f"if {p_cell} is {self._colours(1 << k)}, "
                                f"{self._colour_chain(graph, path)}")
            text = (f"{name[0].upper()}{name[1:]} {what} whatever colour {p_cell} takes: "
                    + "; ".join(ways) + ".")
            return self._masks_hint(text, step.technique, [(cell, mask)])
        # a contradiction: the premise reaches two colours of one cell (shortest pair)
        paths = nx.single_source_shortest_path(graph, premise)
        by_cell: dict[tuple[int, int], list[list]] = {}
        for lit, path in paths.items():
            by_cell.setdefault(lit.cell, []).append(path)
        witness = min((sorted(ps, key=len)[:2] for ps in by_cell.values() if len(ps) > 1),
                      key=lambda two: len(two[0]) + len(two[1]))
        chains = [self._colour_chain(graph, p) for p in witness if len(p) > 1]
        both = " and ".join(self._colours(1 << int(p[-1][2])) for p in witness)
        text = (f"If {p_cell} were {self._colours(1 << int(premise[2]))}: "
                + "; and ".join(chains)
                + f" — {self._cell(witness[0][-1].cell)} would have to be both {both}. "
                f"So {name} {what}.")
        return self._masks_hint(text, step.technique, [(cell, mask)])

    def implication_hint(self, state: np.ndarray, max_candidates: int = 200) -> Hint | None:
        """The implication-graph deduction with the shortest chains, or ``None`` (for colour,
        the first the colour implication graph gives)."""
        if self.colour:
            return self._colour_implication_hint(state)
        graph = implication_graph(self.puzzle, state)
        forced = forced_literals(graph, self.depth)
        if not forced:
            return None
        best: tuple[int, ForcedLiteral, list[list[Literal]]] | None = None
        for f in forced[:max_candidates]:
            paths = explain_forced(graph, f)
            cost = sum(len(p) for p in paths)
            if best is None or cost < best[0]:
                best = (cost, f, paths)
        assert best is not None
        _, f, paths = best
        lit = f.literal
        if f.rule == "contradiction":
            assert f.witness is not None
            chains = [self._chain(graph, p) for p in paths if len(p) > 1]
            text = (f"If {cell_name(f.premise.cell)} were "
                    f"{'filled' if f.premise.filled else 'empty'}: " + "; and ".join(chains)
                    + f" — {cell_name(f.witness.cell)} would have to be both filled and empty. "
                    f"So {literal_text(lit).replace(' ', ' is ', 1)}.")
            technique = "contradiction"
        elif f.rule == "tautology":
            y = cell_name(f.premise.cell)
            text = (f"{literal_text(lit).replace(' ', ' is ', 1)} either way: if {y} is filled, "
                    f"{self._chain(graph, paths[0])}; if {y} is empty, "
                    f"{self._chain(graph, paths[1])}.")
            technique = "tautology"
        else:
            text = (f"{literal_text(f.premise)} contradicts its own row or column, so "
                    f"{literal_text(lit).replace(' ', ' is ', 1)}.")
            technique = "contradiction"
        return Hint("deduction", text, ((lit.cell, lit.value),), technique)

    def _propagate_from(self, state: np.ndarray, cell: tuple[int, int], value: int):
        """Line-by-line propagation after assuming ``cell = value`` (a :class:`Cell`, or a
        colour mask): ``(conflict line or None, cells fixed or narrowed on the way)``."""
        h = self.puzzle.height
        grid = state.copy()
        grid[cell] = value
        queue = [cell[0], h + cell[1]]
        queued = set(queue)
        fixed = 0
        while queue:
            line = queue.pop(0)
            queued.discard(line)
            clue = self.puzzle.lines[line]
            if clue is None:
                continue
            values = self._values(grid, line)
            out = self._solve(line, values)
            if out is None:
                return line, fixed
            cells = self._line_cells(line)
            for i in np.nonzero(out != values)[0]:
                r, c = cells[int(i)]
                grid[r, c] = out[i]
                fixed += 1
                other = h + c if line < h else r
                if other not in queued:
                    queued.add(other)
                    queue.append(other)
        return None, fixed

    def _refutation(self, state: np.ndarray, steps: list) -> tuple | None:
        """Among failed-literal ``steps``: ``(cells fixed on the way, step, line)`` for the one
        whose line-by-line propagation reaches a line with no room soonest, or ``None``."""
        best = None
        for step in steps:
            premise = step.premise
            assert premise is not None
            value = 1 << int(premise[2]) if self.colour else premise.value
            line, fixed = self._propagate_from(state, premise.cell, value)
            if line is not None and (best is None or fixed < best[0]):
                best = (fixed, step, line)
        return best

    def _colour_probing_hint(self, state: np.ndarray, steps: list, best: tuple | None) -> Hint:
        if steps[0].technique == "failed-literal":
            fixed, step, line = best if best is not None else (0, steps[0], None)
            premise = step.premise
            (cell, mask), = step.masks
            name = self._cell(cell)
            removed = int(state[cell]) & ~mask
            tried = 1 << int(premise[2])
            if line is not None:
                why = (f"solving the lines one after another would narrow {fixed} more "
                       f"cell{'s' if fixed != 1 else ''} and then leave {self._prefix(line)} "
                       "no room")
            else:
                why = "solving every line would reach a contradiction"
            also = (f" (and likewise if it were {self._colours(removed & ~tried)})"
                    if removed & ~tried else "")
            text = (f"If {name} were {self._colours(tried)}, {why}{also}. So {name} "
                    f"{self._outcome(state, cell, mask)}.")
            return self._masks_hint(text, "failed-literal", list(step.masks))
        step = max(steps, key=lambda s: len(s.masks))
        assert step.premise is not None
        y = self._cell(step.premise.cell)
        n = len(step.masks)
        text = (f"Whatever colour {y} takes ({self._colours(int(state[step.premise.cell]))}), "
                f"solving the lines one after another leaves "
                f"{wording.mask_cells_text(self.puzzle, step.masks)} every time — so "
                f"{'it is' if n == 1 else 'they are'}.")
        return self._masks_hint(text, "probe-all", list(step.masks))

    def probing_hint(self, state: np.ndarray, max_candidates: int = 30) -> Hint | None:
        """A failed literal with the shortest refutation, else a probe-both (for colour,
        probe-all) deduction."""
        steps = self.logic.probing(state)
        if steps is None:
            return Hint("no-solution", ("Every colour of some cell leads" if self.colour else
                                        "Both values of some cell lead") + " to a contradiction, "
                        "so this state has no solution.")
        if not steps:
            return None
        failed = steps[0].technique == "failed-literal"
        best = self._refutation(state, steps[:max_candidates]) if failed else None
        if self.colour:
            return self._colour_probing_hint(state, steps, best)
        if failed:
            if best is not None:
                fixed, step, line = best
                premise = step.premise
                assert isinstance(premise, Literal)
                (cell, value), = step.cells
                text = (f"If {cell_name(cell)} were {'filled' if premise.filled else 'empty'}, "
                        f"solving the lines one after another would fix {fixed} more "
                        f"cell{'s' if fixed != 1 else ''} and then leave {self._prefix(line)} "
                        f"no room. So {cell_name(cell)} is "
                        f"{'filled' if value == Cell.FILLED else 'empty'}.")
                return Hint("deduction", text, _bw_cells(step.cells), "failed-literal")
            step = steps[0]
            (cell, value), = step.cells
            text = (f"Assuming {cell_name(cell)} "
                    f"{'empty' if value == Cell.FILLED else 'filled'} leads to a contradiction "
                    f"by line solving, so it is {'filled' if value == Cell.FILLED else 'empty'}.")
            return Hint("deduction", text, _bw_cells(step.cells), "failed-literal")
        step = max(steps, key=lambda s: len(s.cells))
        assert step.premise is not None
        y = cell_name(step.premise.cell)
        text = (f"Whether {y} is filled or empty, solving the lines one after another gives "
                f"{wording.pair_cells_text(self.puzzle, step.cells)} both ways — so "
                f"{'it is' if len(step.cells) == 1 else 'they are'}.")
        return Hint("deduction", text, _bw_cells(step.cells), "probe-both")

    def next(self, state: np.ndarray) -> Hint:
        """The next deduction from ``state`` (no mistake check), or a ``"solved"`` /
        ``"guess"`` / ``"no-solution"`` hint."""
        if self.colour and (np.asarray(state) == 0).any():
            r, c = (int(v) for v in np.argwhere(np.asarray(state) == 0)[0])
            return Hint("no-solution", f"{self._cell((r, c))} has no colour left, so this state "
                        "has no solution.")
        open_cells = int(self.logic.open(state).sum())
        if open_cells == 0:
            return Hint("solved", "Every cell is known: the puzzle is solved.")
        for finder in (self.overlap_hint, self.line_hint, self.implication_hint,
                       self.probing_hint):
            hint = finder(state)
            if hint is not None:
                return hint
        return Hint("guess", f"No line, implication chain or probe fixes another cell: a guess "
                    f"is needed ({open_cells} cell{'s' if open_cells != 1 else ''} open).")


def apply_hint(state: np.ndarray, hint: Hint) -> np.ndarray:
    """A copy of ``state`` with the hint applied: its cells set (black-and-white, int8), or
    its colour masks intersected (colour, int32); shape (height, width)."""
    if hint.masks:
        out = np.array(state, dtype=np.int32, copy=True)
        for cell, mask in hint.masks:
            out[cell] &= mask
        return out
    out = np.array(state, dtype=np.int8, copy=True)
    for cell, value in hint.cells:
        out[cell] = value
    return out
