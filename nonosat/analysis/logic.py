"""The logic the analysis runs, on the model's general form.

The analysis (:mod:`nonosat.analysis.staged` and the modules above it) is written once, over
grid states of the general form: a cell holds the set of values it can still take.  A
black-and-white puzzle is the two-colour case; for it this module keeps the bit-parallel
black-and-white kernels (:mod:`nonosat.native.propagate`, :mod:`nonosat.native.probe`,
:mod:`nonosat.analysis.implied`), the ones the engines pick for speed, and states stay int8
(:class:`~nonosat.puzzle.Cell`).  A colour puzzle's states are int32 bit masks of the colours a
cell can still take (bit 0 = background) and its kernels the generic colour line solver
(:mod:`nonosat.native.colour`).

:func:`logic_of` gives a puzzle's :class:`Logic`: the same five operations for both forms --
the starting state, the open cells, line solving to a fixpoint (one step per line solve that
narrowed a cell), the implication stage (what the single-line implication graph forces: for
colour its literals are "cell takes colour c", :func:`nonosat.analysis.implied.palette_arrays`)
and one failed-literal probing pass -- plus applying a stage's steps.  :func:`closure` is the
fixpoint function the backdoor search and the generator use, :func:`open_grid` the
black-and-white picture of what is open (:func:`nonosat.analysis.structure.independent_parts`).

A step records the cells it *decided* (one value left) with their value; a colour step that
only narrows a cell's colours also records the new masks (:attr:`Step.masks`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nonosat.native.colour_stepping import ColourStepper
from nonosat.native.stepping import Deductions, Stepper
from nonosat.puzzle import Cell, Puzzle, unknown_grid

if TYPE_CHECKING:  # networkx loads with these: imported where they are used, not here, so that
    # `nonosat solve` (which classifies through this module) stays light (tests/test_imports.py)
    from nonosat.analysis.implied import ColourLiteral
    from nonosat.native.implications import Literal
    from nonosat.stop import StopToken


@dataclass(frozen=True)
class Step:
    """One batch of deductions made by one stage.

    Attributes
    ----------
    stage : str
        ``"line"``, ``"implications"`` or ``"probing"``.
    technique : str
        ``"line"`` (one line solve), ``"contradiction"``, ``"tautology"``, ``"line-conflict"``
        (implications), ``"failed-literal"`` or ``"probe-both"`` (probing).
    cells : tuple of ((row, col), Cell)
        The cells fixed, 0-based, with their values.
    line : int or None
        The line solved (rows first), for line steps.
    premise : Literal, ColourLiteral or None
        The assumption behind an implication or probing step (the refuted literal for a
        contradiction or failed literal; the cell split on for a tautology or probe-both).
    masks : tuple of ((row, col), int)
        Colour puzzles: every cell the step narrowed with its new colour mask (``cells`` holds
        only those left with one colour, as their colour index); empty for black-and-white.
    """

    stage: str
    technique: str
    cells: tuple[tuple[tuple[int, int], Cell | int], ...]
    line: int | None = None
    premise: Literal | ColourLiteral | None = None
    masks: tuple[tuple[tuple[int, int], int], ...] = ()



#: The technique of each implication rule's steps.
_IMPLICATION_TECHNIQUE = {"contradiction": "contradiction", "tautology": "tautology",
                          "line": "line-conflict"}


def _line_steps(deductions: Deductions) -> list[Step]:
    """Group consecutive deductions of one line solve into one step."""
    steps: list[Step] = []
    cells: list = []
    current = None
    for cell, value, line in deductions.by_line():
        if line != current and cells:
            steps.append(Step("line", "line", tuple(cells), line=current))
            cells = []
        current = line
        cells.append((cell, Cell(value)))
    if cells:
        steps.append(Step("line", "line", tuple(cells), line=current))
    return steps


def _implication_steps(
    puzzle: Puzzle, grid: np.ndarray, depth: int | None, rules: tuple[str, ...],
    cache: dict | None = None,
) -> list[Step]:
    from nonosat.analysis.implied import forced_literals_fast, implication_arrays
    from nonosat.native.implications import forced_literals, implication_graph

    technique = _IMPLICATION_TECHNIQUE
    if depth is None:  # compiled, array-based: the same list (nonosat.analysis.implied)
        forced = forced_literals_fast(implication_arrays(puzzle, grid, cache), rules)
    else:
        forced = forced_literals(implication_graph(puzzle, grid), depth, rules)
    return [
        Step("implications", technique[f.rule], ((f.literal.cell, f.literal.value),),
             premise=f.premise)
        for f in forced
    ]


def probe_pass(puzzle: Puzzle, grid: np.ndarray, stepper: Stepper | None = None, *,
               stop: StopToken | None = None) -> list[Step] | None:
    """One failed-literal pass: probe both values of every unknown cell of ``grid`` with full
    line propagation, all from the same state (:meth:`nonosat.native.stepping.Stepper.probe_round`).

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray of int8, shape (height, width)
        A state (normally at a line-propagation fixpoint).
    stepper : Stepper, optional
        The puzzle's stepper to run it on (its line cache carries over); a new one by default.
    stop : StopToken, optional
        For a new stepper: read by the probing kernel between two cells.

    Returns
    -------
    list of Step or None
        Every failed literal as a ``"failed-literal"`` step; if there is none, the cells fixed to
        the same value by both branches of a probe as ``"probe-both"`` steps (each cell once,
        grouped by probed cell); empty when probing finds nothing; ``None`` when both values of
        some cell fail or the state does not propagate (no solution).  With the stop flag set
        meanwhile (read by the kernel between two cells), ``[]``: the pass was cut short and
        proves nothing (the caller looks at the token).
    """
    from nonosat.native.implications import Literal

    w = puzzle.width
    if stepper is None:
        stepper = Stepper(puzzle, grid, stop=None if stop is None else stop.flag)
    else:
        stepper.load(grid)
    if stepper.propagate() is None:
        return None
    found = stepper.probe_round()
    if found is None:
        return None
    if found.stopped:
        return []
    failed = []
    for cell, code in zip(found.cells.tolist(), found.status.tolist(), strict=True):
        if code:
            r, c = divmod(int(cell), w)
            good = Cell.EMPTY if code == 1 else Cell.FILLED
            failed.append(Step("probing", "failed-literal", (((r, c), good),),
                               premise=Literal(r, c, code == 1)))
    if failed:
        return failed
    steps: list[Step] = []
    for probed, group in _by_probe(found.both.tolist()):
        fixed = tuple((divmod(c, w), Cell(v)) for _, c, v in group)
        steps.append(Step("probing", "probe-both", fixed, premise=Literal(*divmod(probed, w), True)))
    return steps


def _by_probe(rows: list[list[int]]) -> list[tuple[int, list[list[int]]]]:
    """Group ``(probed cell, cell, value)`` rows by probed cell, keeping their order."""
    out: list[tuple[int, list[list[int]]]] = []
    for row in rows:
        if out and out[-1][0] == row[0]:
            out[-1][1].append(row)
        else:
            out.append((row[0], [row]))
    return out


def _apply(grid: np.ndarray, steps: list[Step]) -> bool:
    """Write the steps' cells into ``grid``; ``False`` if two steps disagree on a cell."""
    for step in steps:
        for cell, value in step.cells:
            old = grid[cell]
            if old != Cell.UNKNOWN and old != value:
                return False
            grid[cell] = value
    return True



# -- colour -----------------------------------------------------------------------------------
def _is_open(grid: np.ndarray) -> np.ndarray:
    """Cells that can still take more than one colour (bool, same shape)."""
    g = np.asarray(grid)
    return (g & (g - 1)) != 0


def _colour_of(mask: int) -> int:
    return int(mask).bit_length() - 1


def _line_fixpoint(puzzle: Puzzle, grid: np.ndarray,
                   stepper: ColourStepper | None = None) -> list[Step] | None:
    """Line solving to a fixpoint on ``grid`` (int32 masks, ``(h, w)``, updated in place), one
    line at a time (rows first, then every line a change touched): one ``line`` step per line
    solve that narrowed a cell (:meth:`nonosat.native.colour_stepping.ColourStepper.propagate`).
    ``None`` on a contradiction."""
    stepper = ColourStepper(puzzle) if stepper is None else stepper
    stepper.load(grid)
    solves = stepper.propagate()
    if solves is None:
        return None
    grid[...] = stepper.grid()
    w = puzzle.width
    steps: list[Step] = []
    for solve in solves:
        masks = tuple((divmod(c, w), m) for c, m in
                      zip(solve.cells.tolist(), solve.masks.tolist(), strict=True))
        decided = tuple((cell, _colour_of(m)) for cell, m in masks if m & (m - 1) == 0)
        steps.append(Step("line", "line", decided, line=solve.line, masks=masks))
    return steps


def colour_probe_pass(puzzle: Puzzle, grid: np.ndarray, stepper: ColourStepper | None = None,
                      *, stop: StopToken | None = None) -> list[Step] | None:
    """One probing pass over the open cells of ``grid`` (int32 masks at a line fixpoint), every
    trial from the same state: each colour a cell can still take is set and propagated
    (:meth:`nonosat.native.colour_stepping.ColourStepper.probe_round`).

    Returns
    -------
    list of Step or None
        Every colour whose trial contradicts is removed (``"failed-literal"`` steps, one per
        probed cell); if none is, every cell keeps only the colours some trial of a probed cell
        allows (``"probe-all"`` steps, grouped by probed cell, a cell counted for the first
        probe that narrows it).  :attr:`Step.masks` holds the new masks.  Empty when probing
        finds nothing; ``None`` when every colour of some cell fails.  ``[]`` as soon as
        the stop flag is set (``stop``'s for a new stepper; read before each cell): a pass cut
        short proves nothing (the caller looks at the token).
    """
    from nonosat.analysis.implied import ColourLiteral

    w = puzzle.width
    if stepper is None:
        stepper = ColourStepper(puzzle, stop=None if stop is None else stop.flag)
    stepper.load(grid)
    found = stepper.probe_round()
    if found is None:
        return None
    if found.stopped:
        return []
    steps: list[Step] = []
    if found.failed:
        for cell, m, k in found.failed:
            rc = divmod(cell, w)
            one = ((rc, _colour_of(m)),) if m & (m - 1) == 0 else ()
            steps.append(Step("probing", "failed-literal", one,
                              premise=ColourLiteral(*rc, k), masks=((rc, m),)))
        return steps
    flat = np.asarray(grid, dtype=np.int32).reshape(-1)
    new = found.masks
    seen: set[int] = set()
    for probed, cells in found.narrowed:
        fixed: list[tuple[tuple[int, int], int]] = []
        masks: list[tuple[tuple[int, int], int]] = []
        for i in cells.tolist():
            if i in seen:
                continue
            seen.add(i)
            m = int(new[i])
            masks.append((divmod(i, w), m))
            if m & (m - 1) == 0:
                fixed.append((divmod(i, w), _colour_of(m)))
        steps.append(Step("probing", "probe-all", tuple(fixed),
                          premise=ColourLiteral(*divmod(probed, w), _colour_of(
                              int(flat[probed]) & -int(flat[probed]))),
                          masks=tuple(masks)))
    return steps


def colour_implication_steps(puzzle: Puzzle, grid: np.ndarray,
                             rules: tuple[str, ...] = ("contradiction", "tautology")
                             ) -> list[Step]:
    """The implication stage of a colour puzzle: what the single-line implication graph over the
    literals "cell takes colour c" (:func:`nonosat.analysis.implied.palette_arrays`) settles in
    the state ``grid`` (int32 masks), by :func:`nonosat.analysis.implied.palette_forced`: one
    ``"implications"`` step per literal, a refuted one removing its colour from its cell, a
    forced one leaving its cell that colour alone (:attr:`Step.masks`)."""
    from nonosat.analysis.implied import palette_arrays, palette_forced

    steps: list[Step] = []
    for f in palette_forced(palette_arrays(puzzle, grid), rules):
        cell = f.literal.cell
        m = int(grid[cell]) & (~(1 << f.literal[2]) if f.refuted else 1 << f.literal[2])
        fixed = ((cell, _colour_of(m)),) if m and m & (m - 1) == 0 else ()
        steps.append(Step("implications", _IMPLICATION_TECHNIQUE[f.rule], fixed,
                          premise=f.premise, masks=((cell, m),)))
    return steps


# -- one interface over both forms -------------------------------------------------------------
class Logic:
    """The staged logic of one puzzle on its grid states (module docstring); :func:`logic_of`
    picks the form.  Every method leaves its ``state`` argument unchanged unless it says so."""

    def __init__(self, puzzle: Puzzle, stop: StopToken | None = None) -> None:
        self.puzzle = puzzle
        #: Read by the probing passes (both forms): once set, a pass ends between two cells,
        #: its result meaningless (the caller looks at the token).
        self.stop = stop
        #: each line's implications by its contents, kept across calls (black-and-white)
        self.implication_cache: dict = {}

    def start(self, grid: np.ndarray | None = None) -> np.ndarray:
        """A new state: ``grid`` (givens) copied, or nothing known when omitted."""
        raise NotImplementedError

    def open(self, state: np.ndarray) -> np.ndarray:
        """Cells with more than one value left (bool, ``(h, w)``)."""
        raise NotImplementedError

    def line(self, state: np.ndarray) -> tuple[np.ndarray, list[Step]] | None:
        """Line solving to a fixpoint: the new state and a ``"line"`` step per line solve that
        narrowed a cell; ``None`` on a contradiction."""
        raise NotImplementedError

    def implications(self, state: np.ndarray, depth: int | None = None,
                     rules: tuple[str, ...] = ("contradiction", "tautology"),
                     cache: dict | None = None) -> list[Step]:
        """What the single-line implication graph of ``state`` forces (at a line fixpoint),
        ``depth`` levels deep (unlimited when ``None``; black-and-white only).  ``cache``: the
        lines' implications by contents (:func:`nonosat.analysis.implied.implication_arrays`),
        :attr:`implication_cache` when omitted."""
        raise NotImplementedError

    def probing(self, state: np.ndarray) -> list[Step] | None:
        """One failed-literal pass from ``state`` (at a line fixpoint); ``None`` when every
        value of some cell fails."""
        raise NotImplementedError

    def apply(self, state: np.ndarray, steps: list[Step]) -> bool:
        """Write the steps into ``state`` (in place); ``False`` on a contradiction."""
        raise NotImplementedError


class TwoValueLogic(Logic):
    """Black-and-white puzzles: int8 states and the bit-parallel kernels, stepped on one
    :class:`~nonosat.native.stepping.Stepper` (its line cache serves every call)."""

    def __init__(self, puzzle: Puzzle, stop: StopToken | None = None) -> None:
        super().__init__(puzzle, stop)
        self._stepper: Stepper | None = None

    @property
    def stepper(self) -> Stepper:
        """The puzzle's native stepper (made on first use)."""
        if self._stepper is None:
            self._stepper = Stepper(self.puzzle, stop=_flag(self.stop))
        return self._stepper

    def start(self, grid: np.ndarray | None = None) -> np.ndarray:
        return (unknown_grid(self.puzzle) if grid is None
                else np.asarray(grid, dtype=np.int8)).copy()

    def open(self, state: np.ndarray) -> np.ndarray:
        return state == Cell.UNKNOWN

    def line(self, state: np.ndarray) -> tuple[np.ndarray, list[Step]] | None:
        stepper = self.stepper
        stepper.load(state)
        found = stepper.propagate()
        if found is None:
            return None
        return stepper.grid(), _line_steps(found)

    def implications(self, state: np.ndarray, depth: int | None = None,
                     rules: tuple[str, ...] = ("contradiction", "tautology"),
                     cache: dict | None = None) -> list[Step]:
        return _implication_steps(self.puzzle, state, depth, rules,
                                  self.implication_cache if cache is None else cache)

    def probing(self, state: np.ndarray) -> list[Step] | None:
        return probe_pass(self.puzzle, state, self.stepper)

    def apply(self, state: np.ndarray, steps: list[Step]) -> bool:
        return _apply(state, steps)


class PaletteLogic(Logic):
    """Colour puzzles: int32 colour masks and the generic colour kernels, stepped on one
    :class:`~nonosat.native.colour_stepping.ColourStepper`."""

    def __init__(self, puzzle: Puzzle, stop: StopToken | None = None) -> None:
        super().__init__(puzzle, stop)
        self._stepper: ColourStepper | None = None

    @property
    def stepper(self) -> ColourStepper:
        """The puzzle's colour stepper (made on first use)."""
        if self._stepper is None:
            self._stepper = ColourStepper(self.puzzle, stop=_flag(self.stop))
        return self._stepper

    def start(self, grid: np.ndarray | None = None) -> np.ndarray:
        return (full_grid(self.puzzle) if grid is None
                else np.asarray(grid, dtype=np.int32).copy())

    def open(self, state: np.ndarray) -> np.ndarray:
        return _is_open(state)

    def line(self, state: np.ndarray) -> tuple[np.ndarray, list[Step]] | None:
        if (state == 0).any():
            return None
        trial = state.copy()  # a contradiction leaves the state as it was, as for black-and-white
        steps = _line_fixpoint(self.puzzle, trial, self.stepper)
        return None if steps is None else (trial, steps)

    def implications(self, state: np.ndarray, depth: int | None = None,
                     rules: tuple[str, ...] = ("contradiction", "tautology"),
                     cache: dict | None = None) -> list[Step]:
        return colour_implication_steps(self.puzzle, state,
                                        tuple(r for r in rules if r != "line"))

    def probing(self, state: np.ndarray) -> list[Step] | None:
        return colour_probe_pass(self.puzzle, state, self.stepper)

    def apply(self, state: np.ndarray, steps: list[Step]) -> bool:
        for step in steps:
            for cell, m in step.masks:
                state[cell] &= m
        return not (state == 0).any()


def _flag(stop: StopToken | None) -> np.ndarray | None:
    return None if stop is None else stop.flag


def logic_of(puzzle: Puzzle, stop: StopToken | None = None) -> Logic:
    """The :class:`Logic` of ``puzzle``'s form (``stop``: :attr:`Logic.stop`)."""
    return PaletteLogic(puzzle, stop) if puzzle.is_colour else TwoValueLogic(puzzle, stop)


def full_grid(puzzle: Puzzle) -> np.ndarray:
    """The state where nothing is known: every colour everywhere (int32 masks) for a colour
    puzzle, :func:`~nonosat.puzzle.unknown_grid` (int8) for black-and-white."""
    if puzzle.is_colour:
        return np.full(puzzle.shape, (1 << puzzle.n_colours) - 1, dtype=np.int32)
    return unknown_grid(puzzle)


def open_grid(puzzle: Puzzle, state: np.ndarray) -> np.ndarray:
    """A black-and-white state (int8) with :data:`~nonosat.puzzle.Cell.UNKNOWN` exactly where
    ``state`` leaves several values: the input of
    :func:`nonosat.analysis.structure.independent_parts` (``state`` itself for
    black-and-white)."""
    if not puzzle.is_colour:
        return state
    return np.where(_is_open(state), np.int8(Cell.UNKNOWN), np.int8(Cell.FILLED)).astype(np.int8)


def closure(puzzle: Puzzle, logic: str = "line", stop: StopToken | None = None
            ) -> Callable[[np.ndarray], np.ndarray | None]:
    """A function from a state (``(h, w)``: int8 for black-and-white, colour masks for colour)
    to its fixpoint (a new array; ``None`` on a contradiction) under ``logic``: ``"line"``,
    line propagation, or ``"probing"``, propagation and failed-literal probing -- the compiled
    kernels of the puzzle's form (:meth:`nonosat.native.stepping.Stepper.propagate` and
    :meth:`~nonosat.native.stepping.Stepper.probe` on one stepper reused from call to call;
    :class:`nonosat.native.colour_stepping.ColourStepper`'s compiled propagation and probing).

    Raises
    ------
    ValueError
        Unknown ``logic``.

    Notes
    -----
    With ``stop`` set during a black-and-white probing fixpoint, the function raises
    :class:`nonosat.stop.Stopped` (probing cut short has no fixpoint to give).
    """
    if logic not in ("line", "probing"):
        raise ValueError(f"unknown logic {logic!r}; use 'line' or 'probing'")
    if not puzzle.is_colour:
        stepper = Stepper(puzzle, stop=_flag(stop))
        probing = logic == "probing"

        def close_two(grid: np.ndarray) -> np.ndarray | None:
            stepper.load(grid)
            if stepper.propagate() is None or (probing and stepper.probe() is None):
                return None
            return stepper.grid()

        return close_two
    colour = ColourStepper(puzzle, stop=_flag(stop))

    def close(grid: np.ndarray) -> np.ndarray | None:
        colour.load(grid)
        ok = colour.fixpoint() if logic == "line" else colour.probe()
        return colour.grid() if ok else None

    return close

