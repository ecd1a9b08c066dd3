"""The native solver's deduction trace: the cells fixed at the root of the search, in order, as
:class:`Deduction` objects (what certificates, explanations and ``--trace`` read), built from
the root node's trail only when read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from nonosat.native.propagate import KIND_NAMES
from nonosat.puzzle import Cell

if TYPE_CHECKING:
    from nonosat.native.stepping import Deductions

__all__ = ["Deduction", "Trace"]


@dataclass(frozen=True)
class Deduction:
    """One cell fixed at the root of the search, in the order the solver fixed it.

    Attributes
    ----------
    cell : (row, column)
        0-based.
    value : Cell
        ``Cell.FILLED`` or ``Cell.EMPTY``.
    stage : str
        ``"line"`` (line solver on ``line``), ``"failed-literal"`` (probing ``probe`` with the
        opposite value led to a contradiction), ``"probe-both"`` (both values of ``probe`` force
        it), ``"given"`` (in the partial grid).
    line : int or None
        Line index (rows first, then columns) for ``"line"`` deductions.
    probe : (row, column) or None
        The probed cell for probing deductions.
    """

    cell: tuple[int, int]
    value: Cell
    stage: str
    line: int | None = None
    probe: tuple[int, int] | None = None


class Trace:
    """The native solver's deduction trace: the root node's deductions, in order.

    When the puzzle is decided without search (``complete``), the trace alone fixes every cell;
    otherwise it is the common prefix of every solution and the search continued from there.

    Parameters
    ----------
    deductions : list of Deduction, optional
        The deductions in order (default none).
    complete, contradiction : bool
    root : Deductions, optional
        The root node's trail slice (:class:`nonosat.native.stepping.Deductions`) instead of
        ``deductions``: the :class:`Deduction` objects are then built on the first read of
        :attr:`deductions` (a solve whose trace nobody reads, most of them, never builds them:
        625 objects on a 25x25 puzzle cost about as much CPU as its search).
    """

    __slots__ = ("_deductions", "_root", "complete", "contradiction")

    def __init__(self, deductions: list[Deduction] | None = None, complete: bool = False,
                 contradiction: bool = False, *, root: Deductions | None = None):
        self._deductions = None if deductions is None and root is not None else (
            deductions if deductions is not None else [])
        self._root = root
        self.complete = complete
        self.contradiction = contradiction

    @property
    def deductions(self) -> list[Deduction]:
        """The deductions in order (a list of :class:`Deduction`)."""
        if self._deductions is None:
            self._deductions = _build_deductions(self._root)
            self._root = None
        return self._deductions

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return (self.deductions == other.deductions and self.complete == other.complete
                and self.contradiction == other.contradiction)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def __repr__(self) -> str:
        count = len(self._deductions) if self._deductions is not None else (
            0 if self._root is None else len(self._root))
        return (f"Trace({count} deductions, complete={self.complete}, "
                f"contradiction={self.contradiction})")

    def stage_counts(self) -> dict[str, int]:
        """Number of deductions per stage."""
        counts: dict[str, int] = {}
        for d in self.deductions:
            counts[d.stage] = counts.get(d.stage, 0) + 1
        return counts


_CELL_VALUES = {int(c): c for c in Cell}


def _build_deductions(root: Deductions | None) -> list[Deduction]:
    """:class:`Deduction` objects of a trail slice (see :class:`Trace`)."""
    if root is None:
        return []
    w = root.width
    out = []
    names = KIND_NAMES
    for cell, value, kind_code, arg in zip(root.cells.tolist(), root.values.tolist(),
                                           root.kinds.tolist(), root.args.tolist(), strict=True):
        kind = names[kind_code]
        line = arg if kind == "line" else None
        probe_cell = divmod(arg, w) if kind in ("failed-literal", "probe-both") else None
        out.append(Deduction(divmod(cell, w), _CELL_VALUES[value], kind, line, probe_cell))
    return out
