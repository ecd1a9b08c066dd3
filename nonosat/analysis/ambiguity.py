"""Where a puzzle with several solutions is ambiguous, and what makes it unique.

The work is split by job:

* :mod:`nonosat.analysis.backbone` -- the backbone and the whole ambiguity map
  (:func:`~nonosat.analysis.backbone.ambiguity_map`, chunked SAT, black-and-white and colour),
  with its SAT phases in :mod:`nonosat.analysis.backbone_phases`;
* :mod:`nonosat.analysis.extra_givens` -- extra givens that make the solution unique;
* :mod:`nonosat.analysis.edits` -- one-cell edits of the picture that make it unique;
* here, :func:`render_ambiguity_text`, the map drawn as text.

The names of those modules are importable from here too.
"""

from __future__ import annotations

import numpy as np

from nonosat.analysis.backbone import (
    Backbone,
    _chunked_backbone,
    _differing,
    _line_settle,
    ambiguity_map,
    backbone,
    sat_backbone,
)
from nonosat.analysis.backbone_phases import (
    CELL_BUDGET_GROWTH,
    CELL_FIRST_BUDGET,
    CELL_ROUND_SHARE,
    CHUNK_SHARE,
    CHUNK_TURN_SHARE,
    MIN_CELL_BUDGET,
    MIN_ROUND_S,
    WITNESS_MAX_S,
    WITNESS_SHARE,
    WITNESS_STALE,
    _cell_checks,
    _CellRounds,
    _guided_witnesses,
    _narrow,
)
from nonosat.analysis.edits import (
    EDIT_NATIVE_BUDGET_S,
    MAX_EDITS,
    edit_suggestions,
    picture_puzzle,
)
from nonosat.analysis.extra_givens import UniquenessGivens, uniqueness_givens
from nonosat.puzzle import Puzzle

__all__ = [
    "CELL_BUDGET_GROWTH", "CELL_FIRST_BUDGET", "CELL_ROUND_SHARE", "CHUNK_SHARE",
    "CHUNK_TURN_SHARE", "EDIT_NATIVE_BUDGET_S", "MAX_EDITS", "MIN_CELL_BUDGET", "MIN_ROUND_S",
    "WITNESS_MAX_S", "WITNESS_SHARE", "WITNESS_STALE", "Backbone", "UniquenessGivens",
    "_CellRounds", "_cell_checks", "_chunked_backbone", "_differing", "_guided_witnesses",
    "_line_settle", "_narrow", "ambiguity_map", "backbone", "edit_suggestions",
    "picture_puzzle", "render_ambiguity_text", "sat_backbone", "uniqueness_givens",
]


def render_ambiguity_text(puzzle: Puzzle, reference: np.ndarray, ambiguous: np.ndarray) -> str:
    """Clue-annotated text grid (:func:`nonosat.render.clue_grid.render_text`) of ``reference`` with
    the ambiguous cells drawn as ``<>`` (``<->`` when cells are three characters wide).

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white, or colour (drawn by
        :func:`nonosat.render.colour_text.plain_colour_text`).
    reference : ndarray of bool (colour: int8 colour indices), shape (height, width)
        A solution; its backbone cells are drawn as usual (``##`` filled, blank empty).
    ambiguous : ndarray of bool, shape (height, width)
        Cells that differ between solutions.
    """
    mask = np.asarray(ambiguous, dtype=bool)
    if puzzle.is_colour:
        from nonosat.render.colour_text import plain_colour_text

        text = plain_colour_text(puzzle, reference)
    else:
        from nonosat.render.clue_grid import render_text

        text = render_text(puzzle, np.asarray(reference, dtype=bool))
    lines = text.split("\n")
    rule = next(i for i, line in enumerate(lines) if line.lstrip().startswith("+"))
    width = (len(lines[rule].strip()) - 2) // puzzle.width
    mark = "<>" if width == 2 else "<->"
    for r in range(puzzle.height):
        line = lines[rule + 1 + r]
        start = line.index("|", len(line) - width * puzzle.width - 2) + 1
        cells = [line[start + k * width : start + (k + 1) * width] for k in range(puzzle.width)]
        body = "".join(mark if mask[r, k] else cells[k] for k in range(puzzle.width))
        lines[rule + 1 + r] = line[:start] + body + line[start + width * puzzle.width :]
    return "\n".join(lines)
