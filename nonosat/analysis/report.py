"""What an analysis found (:class:`Analysis`), its sections and its JSON form.

:func:`nonosat.analysis.difficulty.analyse` fills an :class:`Analysis` for every puzzle,
black-and-white or colour; the CLI, batch and the studio read it.  A colour puzzle's analysis
has the same fields and JSON keys, plus ``"kind": "colour"`` and ``"colours"``; its solutions and
witnesses hold colour indices, its staged states colour masks, and its cells name colours where
black-and-white ones say filled or empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from nonosat.analysis.backbone import Backbone
from nonosat.analysis.backdoor import Backdoor
from nonosat.analysis.classify import SearchEffort
from nonosat.analysis.extra_givens import UniquenessGivens
from nonosat.analysis.grade import Assessment, Grade, assess, needed_technique
from nonosat.analysis.implied import LinkedColours
from nonosat.analysis.staged import StagedRun
from nonosat.analysis.structure import Part
from nonosat.engines import Status
from nonosat.engines.counting import SolutionCount
from nonosat.native.implications import ForcedLiteral, LinkedCells
from nonosat.puzzle import Puzzle, colour_rows, grid_rows

#: The parts of an analysis its time limit bounds, in the order they run: the verdict, the
#: staged logic, the structure (implication graph, linked cells, independent parts), the
#: ambiguity map, the extra givens and the one-cell edits (several solutions), the backdoor.
SECTIONS = ("verdict", "stages", "structure", "map", "givens", "edits", "backdoor")
#: What :attr:`Analysis.sections` says of each: finished; cut short by the time limit (a partial
#: result: a map with undecided cells, a backdoor not proved smallest, givens not proved
#: unique, not every edit tried); not run because the time limit was reached; skipped (by an
#: option, or for lack of time left when it began); not applicable to this puzzle; not run
#: because the command was interrupted (Ctrl-C, SIGTERM: the CLI prints what finished).
SECTION_STATES = ("done", "cut short", "time limit", "skipped", "not applicable", "interrupted")


@dataclass
class Analysis:
    """Everything :func:`analyse` found out about a puzzle.

    Attributes
    ----------
    puzzle : Puzzle
    status : Status
        Verdict (unique / multiple / none / unknown; ``multiple`` means at least ``limit``),
        from ``engine``.
    solutions : list of ndarray of bool
        Solutions found (at most the limit used); colour: int8 colour indices.
    counted_all : bool
        ``solutions`` is every solution (enumeration finished below its cap).
    staged : StagedRun
        The staged logic (line solving, implications, probing).
    search : SearchEffort or None
        The decisive engine's search figures, when logic gets stuck.
    grade : Grade
    engine : str
        The engine that gave the verdict (``native``, ``native+sat``, ``sat``, ``cpsat``).
    solve_time_s : float
        That engine's time.
    linked : list of LinkedCells (colour: LinkedColours)
        Cells tied by the implication graph at the line-solving fixpoint (its strongly
        connected components).
    linked_after_logic : list of LinkedCells
        The same at the fixpoint of all logic (when logic gets stuck).
    graph_forced : list of ForcedLiteral
        What the first implication graph forces.
    graph_summary : dict
        Nodes, edges and strongly connected components of that graph.
    backbone : Backbone or None
        For puzzles with several solutions (the whole ambiguity map).
    givens : UniquenessGivens or None
        For puzzles with several solutions.
    edits : list of dict
        One-cell edits of the goal picture that make the solution unique.
    parts : list of Part
        Independent parts of the cells logic leaves open (empty when logic solves the puzzle).
    parts_after_line : list of Part
        Independent parts of the cells line solving leaves open.
    backdoor : Backdoor or None
        A smallest backdoor to line logic (or probing), for every puzzle with a solution
        (empty for a line-solvable one; for several solutions, of the solution it selects:
        :attr:`Backdoor.several`); ``None`` when skipped or there is no solution.
    backdoor_of : str
        The solution the backdoor's givens are taken from (``"the goal picture"``, ``"the
        first solution found"``, ``"the solution found"``).
    classification : str
    solution_count : SolutionCount or None
        The number of solutions (:func:`nonosat.engines.counting.count_after_solve`: exact from
        the verdict, a finished enumeration or the model counter, else the lower bound found).
    time_s : float
        The analysis' own time (seconds), without ``load_s``.
    load_s : float
        The one-off time the engine spent loading its compiled kernels and libraries (as
        :attr:`nonosat.engines.SolveResult.load_s`; 0 once loaded).
    sections : dict of str to str
        For each of :data:`SECTIONS`, one of :data:`SECTION_STATES`.
    edit_search : dict
        How the search for one-cell edits ended (``progress`` of
        :func:`nonosat.analysis.ambiguity.edit_suggestions`), empty when it did not run.
    assessment : Assessment or None
        Where ``classification``, ``grade`` and :attr:`techniques_needed` come from.
    """

    puzzle: Puzzle
    status: Status
    solutions: list[np.ndarray]
    counted_all: bool
    staged: StagedRun
    search: SearchEffort | None
    grade: Grade
    engine: str = ""
    solve_time_s: float = 0.0
    linked: list[LinkedCells] | list[LinkedColours] = field(default_factory=list)
    linked_after_logic: list[LinkedCells] | list[LinkedColours] = field(default_factory=list)
    graph_forced: list[ForcedLiteral] = field(default_factory=list)
    graph_summary: dict[str, Any] = field(default_factory=dict)
    backbone: Backbone | None = None
    givens: UniquenessGivens | None = None
    edits: list[dict[str, Any]] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    parts_after_line: list[Part] = field(default_factory=list)
    backdoor: Backdoor | None = None
    backdoor_of: str = ""
    classification: str = ""
    graph: Any = None
    solution_count: SolutionCount | None = None
    time_s: float = 0.0
    load_s: float = 0.0
    sections: dict[str, str] = field(default_factory=dict)
    edit_search: dict[str, Any] = field(default_factory=dict)
    assessment: Assessment | None = None

    @property
    def techniques_needed(self) -> str | None:
        """``"line"``, ``"implications"``, ``"probing"`` or ``"search"``; ``None`` when the
        time limit stopped the logic stages (from :attr:`assessment`, :func:`assess`)."""
        if self.assessment is not None:
            return self.assessment.techniques_needed
        return needed_technique(self.staged)

    def settle(self) -> None:
        """Decide the classification, techniques needed and grade together (:func:`assess`)
        from what is known now."""
        amb = None if self.backbone is None else int(self.backbone.ambiguous.sum())
        complete = self.backbone is None or not bool(self.backbone.undecided.any())
        self.assessment = assess(self.status, self.staged, self.search, amb, complete)
        self.classification = self.assessment.classification
        self.grade = self.assessment.grade

    def backbone_size(self) -> int | None:
        """Cells equal in all solutions (``None`` when unknown or there is no solution)."""
        if self.status == Status.UNIQUE or (self.status == Status.SOLVED and self.counted_all):
            return self.puzzle.height * self.puzzle.width
        if self.backbone is not None:
            return self.backbone.size
        return None

    def cells_by_stage(self) -> dict[str, int]:
        """Cells each stage adds to what the stages before it know (module docstring):
        ``line``, ``implications``, ``probing``, ``search``, ``ambiguous``, ``undecided``; they
        sum to the number of cells of a puzzle with a solution."""
        out: dict[str, int] = {**self.staged.cells_by_stage(), "search": 0, "ambiguous": 0,
                               "undecided": 0}
        left = self.staged.open_after["probing"]
        if self.staged.status == "contradiction" or self.status == Status.NONE:
            out["undecided"] = 0
            return out
        if self.status == Status.UNIQUE:
            out["search"] = left
        elif self.backbone is not None:
            amb = int(self.backbone.ambiguous.sum())
            und = int(self.backbone.undecided.sum())
            out.update(search=left - amb - und, ambiguous=amb, undecided=und)
        else:
            out["undecided"] = left
        return out

    @property
    def ambiguous(self) -> np.ndarray | None:
        """The ambiguity map (bool, ``(h, w)``), or ``None`` without several solutions."""
        return None if self.backbone is None else self.backbone.ambiguous

    def to_json(self, name: str | None = None) -> dict[str, Any]:
        """A JSON-serialisable dict (cells 1-based ``[row, col]``).  A colour puzzle's has the
        same keys, with ``"kind": "colour"``, ``"colours"`` (the palette's names, background
        first), solutions as rows of palette characters, and backdoor, givens, edit and
        linked-cell cells with ``"colour"`` (a name) instead of ``"value"``."""
        if self.puzzle.is_colour:
            return self._colour_json(name)
        return self._json(name)

    def _colour_json(self, name: str | None) -> dict[str, Any]:
        palette = self.puzzle.palette
        assert palette is not None
        names = [c.name for c in palette.colours]
        blank = [np.zeros(self.puzzle.shape, dtype=bool)] * len(self.solutions)
        out = replace(self, solutions=blank, backdoor=None, givens=None)._json(name)
        out["kind"] = "colour"
        out["colours"] = names
        out["solutions"] = [colour_rows(s, palette) for s in self.solutions[:10]]
        if self.backdoor is not None:
            bd = self.backdoor.to_json()
            bd["cells"] = [{"row": r + 1, "col": c + 1, "colour": names[int(k)]}
                           for (r, c), k in self.backdoor.cells]
            out["backdoor"] = {**bd, "of": self.backdoor_of}
        if self.status == Status.MULTIPLE:
            out["edits"] = [{"row": e["cell"][0] + 1, "col": e["cell"][1] + 1,
                             "colour": e["colour"], "text": e["text"]} for e in self.edits]
        if self.givens is not None:
            out["uniqueness_givens"] = {
                "cells": [{"row": r + 1, "col": c + 1, "colour": names[int(k)]}
                          for (r, c), k in self.givens.cells],
                "unique": self.givens.unique,
                "minimal": False,
                "note": "greedy and irredundant (no single given can be dropped), not proved "
                        "minimum",
            }
        return out

    def _json(self, name: str | None) -> dict[str, Any]:
        staged = self.staged

        def cells(mask: np.ndarray) -> list[list[int]]:
            return [[int(r) + 1, int(c) + 1] for r, c in zip(*np.nonzero(mask), strict=True)]

        def groups(linked: list) -> list[dict[str, Any]]:
            if self.puzzle.is_colour:
                assert self.puzzle.palette is not None
                names = [c.name for c in self.puzzle.palette.colours]
                return [{"literals": [{"row": r + 1, "col": c + 1, "colour": names[k]}
                                      for (r, c), k in g.literals]} for g in linked]
            return [{"equal": [[r + 1, c + 1] for r, c in g.equal],
                     "opposite": [[r + 1, c + 1] for r, c in g.opposite]} for g in linked]

        out: dict[str, Any] = {
            "puzzle": name if name is not None else self.puzzle.describe(),
            "width": self.puzzle.width,
            "height": self.puzzle.height,
            "status": self.status.value,
            "classification": self.classification,
            "engine": self.engine,
            "solve_time_s": round(self.solve_time_s, 6),
            "solutions_found": len(self.solutions),
            "counted_all": self.counted_all,
            **({} if self.solution_count is None else self.solution_count.to_json()),
            "techniques_needed": self.techniques_needed,
            "cells_by_stage": self.cells_by_stage(),
            "deductions": self.cells_by_stage(),
            "cells_by_step": staged.cells_by_step(),
            "steps": staged.techniques(),
            "rounds": staged.invocations,
            "open_after": staged.open_after,
            "search": None if self.search is None else self.search.to_json(),
            "backbone_size": self.backbone_size(),
            "grade": self.grade.to_json(),
            "linked_cells": groups(self.linked),
            "linked_cells_after_logic": groups(self.linked_after_logic),
            "implication_graph": self.graph_summary,
            "independent_parts": {"count": len(self.parts),
                                  "sizes": [p.size for p in self.parts],
                                  "parts": [p.to_json() for p in self.parts[:50]]},
            "independent_parts_after_line": {
                "count": len(self.parts_after_line),
                "sizes": [p.size for p in self.parts_after_line],
                "parts": [p.to_json() for p in self.parts_after_line[:50]]},
            "backdoor": None if self.backdoor is None else {**self.backdoor.to_json(),
                                                            "of": self.backdoor_of},
            "stage_time_s": staged.time_s,
            "time_s": round(self.time_s, 6),
            "load_s": round(self.load_s, 6),
            "solutions": [grid_rows(s) for s in self.solutions[:10]],
            "sections": dict(self.sections),
        }
        if self.backbone is not None:
            out["ambiguity"] = {
                "cells": cells(self.backbone.ambiguous),
                "undecided": cells(self.backbone.undecided),
                "complete": not bool(self.backbone.undecided.any()),
                "solves": self.backbone.solves,
            }
        if self.givens is not None:
            out["uniqueness_givens"] = {
                "cells": [{"row": r + 1, "col": c + 1, "value": "filled" if v else "empty"}
                          for (r, c), v in self.givens.cells],
                "unique": self.givens.unique,
                "minimal": False,
                "note": "greedy and irredundant (no single given can be dropped), not proved "
                        "minimum",
            }
        if self.status == Status.MULTIPLE:
            out["edits"] = [{"row": e["cell"][0] + 1, "col": e["cell"][1] + 1,
                             "value": "filled" if e["value"] == "#" else "empty",
                             "text": e["text"]} for e in self.edits]
            out["edit_search"] = self.edit_search_json()
        return out

    def edit_search_json(self) -> dict[str, Any]:
        """``{"state": SECTION_STATES item, "end", "candidates", "tried", "undecided",
        "found"}`` for the search for one-cell edits (see :meth:`edits_text`)."""
        info = self.edit_search
        return {"state": self.sections.get("edits", "not applicable"),
                "end": info.get("end"), "candidates": info.get("candidates", 0),
                "tried": info.get("tried", 0), "undecided": info.get("undecided", 0),
                "found": len(self.edits)}

    def edits_text(self) -> str | None:
        """The report's line when no one-cell edit is listed for a puzzle with several
        solutions: why (the picture is not known; the search did not run or ran out of time;
        none of the edits tried gives a unique solution); ``None`` when edits were found or
        the puzzle does not have several solutions."""
        if self.status != Status.MULTIPLE or self.edits:
            return None
        state = self.sections.get("edits")
        info = self.edit_search
        if self.puzzle.goal is None or info.get("end") == "no picture":
            return "edits: none looked for (the puzzle has no picture to edit)"
        if info.get("end") == "invalid picture":
            return ("edits: none looked for (the picture stored in the file contradicts the "
                    "clues)")
        if state == "time limit":
            return "edits: not looked for (time limit reached before the search for edits)"
        if state == "interrupted":
            return "edits: not looked for (interrupted)"
        if state == "skipped" or not info:
            return "edits: not looked for"
        tried, n = info.get("tried", 0), info.get("candidates", 0)
        undecided = info.get("undecided", 0)
        tail = (f"; {undecided} not decided in their time budget" if undecided else "")
        if info.get("end") == "all tried":
            return (f"edits: none found (none of the {n} one-cell edits of the picture gives "
                    f"a unique solution{tail})")
        return (f"edits: none found before the time limit ({tried} of {n} one-cell edits "
                f"tried{tail})")


def _goal_fits(puzzle: Puzzle) -> bool:
    """The puzzle's goal picture satisfies its clues."""
    try:
        return puzzle.goal is not None and puzzle.is_solution(puzzle.goal)
    except Exception:  # noqa: BLE001 - a goal of the wrong shape or type does not fit
        return False
