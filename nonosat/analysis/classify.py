"""A one-line classification of a puzzle, in the style of pbnsolve's verdicts.

The one implementation behind ``nonosat solve``, ``nonosat analyse`` and the studio's quick
analysis:

=======================================  ===================================================
classification                           when
=======================================  ===================================================
``unique, line-solvable``                line solving alone fixes every cell
``unique, needs implications (depth 1)`` line solving gets stuck; the implication graph (one
                                         assumption at a time, through single lines) fixes
                                         every cell
``unique, needs probing (depth 1)``      failed-literal probing (one assumption at a time,
                                         fully propagated) is needed
``unique, needs search (N guesses)``     logic gets stuck; the native search decided with N
                                         decisions
``unique, needs search (N conflicts)``   logic gets stuck; SAT (CaDiCaL, after the native
                                         root node) decided with N conflicts
``several solutions (K cells ambiguous)`` K = cells outside the backbone; without the
                                         backbone (``nonosat solve``): ``several solutions``
``no solution``                          proved
``undecided (time limit)``               the engine gave up
=======================================  ===================================================

``solved`` replaces ``unique`` when uniqueness was not examined (``--limit 1``).  The
implication stage of ``nonosat analyse`` is weaker than probing (both are "depth 1": one
assumption at a time).  In ``nonosat analyse`` the classification, the techniques needed and the
grade are decided together, by :func:`nonosat.analysis.difficulty.assess`, so they cannot
contradict each other.

Counting guesses and backtracks
-------------------------------
The one definition every command (``solve``, ``analyse``, ``explain``, ``hint``) and the JSON
use: a **guess** is a search decision, a cell given its first value while the search could
still take the other; trying a decided cell's *other* value after the first led to no (more)
solutions is a **backtrack**, not a new guess.  So ``backtracks <= guesses``, and a puzzle
solved without a guess has 0 of both (finding that the space is exhausted after the last
solution is neither).  The native search counts them as ``stats["guesses"]`` and
``stats["backtracks"]`` (:meth:`nonosat.native.search.NativeSearch.stats`); ``nonosat explain``
numbers its ``guess`` steps (``"guesses"`` in its JSON) and its ``other value`` steps
(``"backtracks"``) by the same rule, and the two agree with the native search's figures for the
same search.  A ``SAT`` search counts **conflicts** instead (CaDiCaL's), not guesses.

:func:`solve_classification` is the cheap form for ``nonosat solve``: from the engine's result
and one line-solving fixpoint (about a millisecond), nothing else solved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nonosat.engines import Status

if TYPE_CHECKING:
    import numpy as np

    from nonosat.engines import SolveResult
    from nonosat.puzzle import Puzzle


@dataclass(frozen=True)
class SearchEffort:
    """What the search stage cost, as the engine that decided the puzzle counts it.

    Attributes
    ----------
    engine : str
        ``"native"`` (the native search decided: ``guesses`` counts its decisions) or ``"sat"``
        (SAT decided after the native root node: ``conflicts`` counts CaDiCaL's conflicts), or
        another engine's name (``"cpsat"``: no count).
    guesses : int
        Native decisions (a cell's second branch is not a new decision).
    conflicts : int
        SAT conflicts.
    max_depth : int
        Deepest native decision stack.
    decided : bool
        The engine decided the puzzle within the time limit.
    """

    engine: str
    guesses: int = 0
    conflicts: int = 0
    max_depth: int = 0
    decided: bool = True

    @property
    def unit(self) -> str:
        """``"guesses"`` or ``"conflicts"``."""
        return "conflicts" if self.engine == "sat" else "guesses"

    @property
    def amount(self) -> int:
        """The effort in :attr:`unit`."""
        return self.conflicts if self.engine == "sat" else self.guesses

    def describe(self) -> str:
        """``"3 guesses"`` / ``"83 conflicts"`` (singular for 1)."""
        n = self.amount
        word = self.unit if n != 1 else self.unit[:-2 if self.unit == "guesses" else -1]
        return f"{n} {word}"

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "guesses": self.guesses, "conflicts": self.conflicts,
                "max_depth": self.max_depth, "decided": self.decided, "unit": self.unit,
                "amount": self.amount}


def search_effort(result: SolveResult) -> SearchEffort:
    """The search figures of an engine result: the native search's decisions when the native
    solver decided (``engine == "native"``), CaDiCaL's conflicts when the ``auto`` portfolio
    handed over to SAT (``"native+sat"``) or the SAT engine ran alone."""
    decided = result.status not in (Status.UNKNOWN,)
    stats = result.stats or {}
    if result.engine == "native":
        native = stats.get("native", stats) if "native" in stats else stats
        return SearchEffort("native", guesses=int(native.get("guesses", 0)),
                            max_depth=int(native.get("max_depth", 0)), decided=decided)
    if result.engine in ("native+sat", "sat"):
        sat = stats.get("sat", stats)
        return SearchEffort("sat", conflicts=int(sat.get("conflicts", 0)), decided=decided)
    return SearchEffort(result.engine, decided=decided)


def classify(
    status: Status,
    needed: str | None,
    search: SearchEffort | None = None,
    ambiguous: int | None = None,
    complete: bool = True,
) -> str:
    """The one-line classification (table in the module docstring).

    Parameters
    ----------
    status : Status
        The verdict.
    needed : str or None
        The hardest technique needed: ``"line"``, ``"implications"``, ``"probing"``,
        ``"search"``; ``"beyond-line"`` when only "more than line solving" is known (an engine
        without search figures); ``None`` when unknown.
    search : SearchEffort, optional
        The search figures (for ``needed == "search"``).
    ambiguous : int, optional
        Cells outside the backbone (several solutions); ``None``: not computed.
    complete : bool
        The backbone was complete (else ``ambiguous`` is a lower bound).
    """
    if status == Status.NONE:
        return "no solution"
    if status == Status.UNKNOWN:
        return "undecided (time limit)"
    if status == Status.MULTIPLE:
        if ambiguous is None:
            return "several solutions"
        at_least = "" if complete else "at least "
        return f"several solutions ({at_least}{ambiguous} cell{'s' if ambiguous != 1 else ''} " \
               "ambiguous)"
    head = "unique" if status == Status.UNIQUE else "solved"
    if needed == "line":
        return f"{head}, line-solvable"
    if needed == "implications":
        return f"{head}, needs implications (depth 1)"
    if needed == "probing":
        return f"{head}, needs probing (depth 1)"
    if needed == "search":
        if search is not None and search.engine in ("native", "sat"):
            return f"{head}, needs search ({search.describe()})"
        return f"{head}, needs search"
    if needed == "beyond-line":
        return f"{head}, not line-solvable"
    return head


def found_ambiguous(solutions: list[np.ndarray]) -> int | None:
    """Cells (a count) on which some two of ``solutions`` (arrays of one shape: bool cells or
    colour indices) differ: a lower bound of the puzzle's ambiguity map; ``None`` for fewer
    than two solutions."""
    import numpy as np

    if len(solutions) < 2:
        return None
    stack = np.asarray(solutions)
    return int((stack != stack[0]).any(axis=0).sum())


#: Seconds ``nonosat solve`` gives the implication stage to tell "needs implications" from
#: "needs probing" (past them it says probing, the native root node's own logic).
IMPLICATIONS_BUDGET_S = 0.5


def _implications_or_probing(puzzle: Puzzle, partial: np.ndarray | None) -> str:
    """``"implications"`` when line solving and the implication graph alone solve the puzzle
    (as ``nonosat analyse``'s staged logic finds, so that both commands classify it alike),
    else ``"probing"``; ``"probing"`` too when that is not settled in
    :data:`IMPLICATIONS_BUDGET_S`."""
    import time

    from nonosat.analysis.staged import staged_solve

    run = staged_solve(puzzle, partial, stages=("line", "implications"),
                       deadline=time.perf_counter() + IMPLICATIONS_BUDGET_S)
    return "implications" if run.status == "solved" else "probing"


def _line_solved_by_native(result: SolveResult) -> bool:
    """Whether the native engine's root trace (:class:`nonosat.native.trace.Trace`) fixed
    every cell by line solving alone (and givens): then the line-solving fixpoint from the
    clues and givens is complete, which :func:`solve_classification` would otherwise compute
    again (line solving's fixpoint does not depend on the order of the lines, and probing
    runs only on a grid that propagation left open, so any other trace is not line-solved)."""
    trace = result.trace
    if result.engine != "native" or not getattr(trace, "complete", False):
        return False
    return all(d.stage in ("line", "given") for d in trace.deductions)


def solve_classification(
    puzzle: Puzzle, result: SolveResult, partial: np.ndarray | None = None
) -> str:
    """The classification ``nonosat solve`` prints: from ``result`` and one line-solving
    fixpoint (no further solving: with several solutions, the cells on which the solutions
    found differ, :func:`found_ambiguous`: a lower bound of the ambiguity map, "at least K
    cells", unless the engine enumerated every solution below its limit,
    :attr:`nonosat.engines.SolveResult.exhausted`, when it is the map).

    * line solving fixes every cell: line-solvable;
    * the native engine decided without a guess: needs implications when line solving and the
      implication graph alone solve it (as ``nonosat analyse`` says), else needs probing (its
      root node is propagation and failed-literal probing);
    * the native search guessed: needs search (its guesses); the ``auto`` portfolio handed
      over to SAT: needs search (CaDiCaL's conflicts);
    * other engines (sat, cpsat): "not line-solvable" (they measure no logic).

    Colour puzzles alike (``partial``: colour masks), on the colour line solver.
    """
    if result.status == Status.MULTIPLE:
        # every solution found (the search ended below its limit): the map is exact
        return classify(result.status, None, ambiguous=found_ambiguous(result.solutions),
                        complete=bool(result.exhausted))
    if result.status not in (Status.UNIQUE, Status.SOLVED):
        return classify(result.status, None)
    if _line_solved_by_native(result):
        return classify(result.status, "line")
    from nonosat.analysis.logic import closure, logic_of

    logic = logic_of(puzzle)
    line = closure(puzzle)(logic.start(partial))
    if line is not None and not bool(logic.open(line).any()):
        return classify(result.status, "line")
    effort = search_effort(result)
    if result.engine == "native" and effort.guesses == 0:
        return classify(result.status, _implications_or_probing(puzzle, partial), effort)
    if result.engine == "native":
        return classify(result.status, "search", effort)
    if result.engine == "native+sat":
        return classify(result.status, "search", effort)
    return classify(result.status, "beyond-line")
