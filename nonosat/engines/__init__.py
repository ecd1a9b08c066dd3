"""One interface over every solving engine.

An engine answers one question: *given a puzzle, an optional partial grid, a solution limit and a
time limit, which solutions are there (up to the limit)?*  The native solver (line solving,
propagation, probing, search), the CNF encoding solved by PySAT and the CP-SAT model each sit
behind this interface in a module of their own under :mod:`nonosat.engines`; the engines never
import one another, so a cross-check compares independent code.  The ``auto`` engine (portfolio:
native first, SAT when the native search exceeds its budget) is the only place where two engines
meet.

Adding an engine is one module: define a subclass of :class:`Engine` with ``name`` and
``_run`` (:meth:`Engine.solve`'s arguments, in order), and add its import path to
:data:`ENGINE_MODULES`.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from nonosat.errors import EngineError, InvalidSolutionError, check_known

if TYPE_CHECKING:  # numpy and the model stay unimported until a solve: `nonosat --help` is light
    import numpy as np

    from nonosat.puzzle import Puzzle
    from nonosat.stop import StopToken

#: Engine name -> ``"module:Class"``.  Modules are imported lazily, so ``nonosat solve`` does not
#: pay for OR-Tools or PySAT unless it uses them.
ENGINE_MODULES: dict[str, str] = {
    "native": "nonosat.engines.native:NativeEngine",
    "sat": "nonosat.engines.sat:SatEngine",
    "cpsat": "nonosat.engines.cpsat:CpSatEngine",
    "auto": "nonosat.engines.auto:AutoEngine",
}

#: The engines a cross-check compares (``auto`` is native + sat, so it is not independent).
INDEPENDENT_ENGINES = ("native", "sat", "cpsat")

#: The engine that gives every command's verdict: the portfolio ``nonosat solve`` runs by default.
PORTFOLIO = "auto"

#: The engines ``crosscheck`` compares by default: nonosat's verdict (:data:`PORTFOLIO`), the SAT
#: engine on its own (CaDiCaL from the first clause, no native deductions) and OR-Tools CP-SAT
#: (another model and solver altogether).
CROSSCHECK_ENGINES = (PORTFOLIO, "sat", "cpsat")


class Status(StrEnum):
    """Verdict of a solve.

    ``UNIQUE``/``MULTIPLE``/``NONE`` are decided verdicts.  ``SOLVED`` means a solution was found
    but uniqueness was not examined (``limit=1``, tournament rules).  ``UNKNOWN`` means the engine
    gave up (time or node budget) before deciding.
    """

    UNIQUE = "unique"
    MULTIPLE = "multiple"
    NONE = "none"
    SOLVED = "solved"
    UNKNOWN = "unknown"

    @classmethod
    def from_search(cls, found: int, limit: int, complete: bool) -> Status:
        """Verdict of a search that found ``found`` solutions, stopping at ``limit``.

        ``complete`` is whether the search ran to its end (exhausted the space or reached the
        limit) rather than giving up.
        """
        if found >= 2:
            return cls.MULTIPLE
        if not complete:
            return cls.UNKNOWN
        if found == 0:
            return cls.NONE
        return cls.SOLVED if limit <= 1 else cls.UNIQUE


@dataclass
class SolveResult:
    """What an engine returns.

    Attributes
    ----------
    status : Status
    solutions : list of ndarray of bool, each shape (height, width)
        The solutions found, at most ``limit`` of them, all distinct.
    engine : str
        Name of the engine that produced the result (``"native"``, ``"sat"``, ...).
    time_s : float
        Wall-clock seconds the engine spent on this puzzle (:meth:`Engine.solve`), excluding the
        one-off cost of loading the engine (see ``load_s``).
    stats : dict
        Engine statistics, JSON-serialisable (line solves, guesses, conflicts, ...).
    trace : object, optional
        The native solver's deduction trace (see :mod:`nonosat.native.search`), for certificates and
        explanations; ``None`` for other engines.
    load_s : float
        Wall-clock seconds :func:`solve` spent loading the engine before solving (importing its
        libraries, loading the compiled numba kernels from the on-disk cache or compiling them on
        a first run; see :func:`load_engine`); 0.0 when the engine was already loaded in this
        process.  Never part of ``time_s``.
    exhausted : bool or None
        The engine ran its search to the end of the search space, below its limit: the
        ``solutions`` are every solution (that extends ``partial``).  ``False`` when the limit
        or the time stopped it; ``None`` when the engine does not say.
    """

    status: Status
    solutions: list[np.ndarray]
    engine: str
    time_s: float
    stats: dict[str, Any] = field(default_factory=dict)
    trace: Any = None
    load_s: float = 0.0
    exhausted: bool | None = None

    def to_json(self, puzzle: Puzzle, name: str | None = None) -> dict[str, Any]:
        """The ``solve --json`` object: puzzle, width, height, status, solutions (row strings of
        ``#`` and ``.``), engine, time_s, load_s, counted_all (:attr:`exhausted`: the solutions
        are every solution), stats."""
        from nonosat.puzzle import colour_rows, grid_rows

        return {
            "puzzle": name if name is not None else puzzle.describe(),
            "width": puzzle.width,
            "height": puzzle.height,
            "status": self.status.value,
            "solutions": [
                colour_rows(s, puzzle.palette) if puzzle.palette is not None else grid_rows(s)
                for s in self.solutions
            ],
            "engine": self.engine,
            "time_s": round(self.time_s, 6),
            "load_s": round(self.load_s, 6),
            "counted_all": bool(self.exhausted),
            "stats": self.stats,
        }


class Engine(Protocol):
    """The engine interface.  Implementations are stateless apart from configuration; each
    subclasses it and implements :meth:`_run` (``solve``'s arguments, in order), so that
    :meth:`solve`'s signature and defaults are written once."""

    name: str

    def solve(
        self,
        puzzle: Puzzle,
        *,
        partial: np.ndarray | None = None,
        limit: int = 2,
        timeout: float | None = None,
        stop: StopToken | None = None,
    ) -> SolveResult:
        """Find up to ``limit`` solutions of ``puzzle``.

        Parameters
        ----------
        puzzle : Puzzle
        partial : ndarray of int8, shape (height, width), optional
            Grid state (:class:`nonosat.puzzle.Cell` values) whose known cells every solution
            must agree with.
        limit : int
            Stop after this many solutions (2 decides uniqueness; 1 = first solution only).
        timeout : float, optional
            Seconds; on expiry the result has status ``UNKNOWN`` (or ``MULTIPLE`` if two
            solutions were already found) with the solutions found so far.
        stop : StopToken, optional
            A cancel (:mod:`nonosat.stop`): once it is set, the engine stops as at a time limit
            (``UNKNOWN`` unless ``limit`` solutions were found; ``stats["stopped"]`` gives the
            reason).  The native search reads it inside its compiled loops (within one probe),
            SAT between budgeted calls, CP-SAT through ``stop_search``.

        Raises
        ------
        EngineError
            The engine cannot run (missing dependency, internal failure).
        Interrupted
            An interrupt (Ctrl-C) stopped the solve: no verdict.
        """
        return self._run(puzzle, partial, limit, timeout, stop)

    def _run(self, puzzle: Puzzle, partial: np.ndarray | None, limit: int,
             timeout: float | None, stop: StopToken | None) -> SolveResult:
        """What an engine implements (a subclass of :class:`Engine`): :meth:`solve`, its
        arguments in order."""
        raise NotImplementedError


def get_engine(name: str, **options: Any) -> Engine:
    """Instantiate the engine called ``name`` with engine-specific ``options``.

    Raises
    ------
    EngineError
        Unknown engine name (the message lists the known ones) or an engine whose module cannot
        be imported.
    """
    target = ENGINE_MODULES[check_known(name, ENGINE_MODULES, "engine")]
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise EngineError(f"engine {name!r} is not available: {exc}") from exc
    return getattr(module, class_name)(**options)


#: Engines already loaded in this process (name and options), see :func:`load_engine`.
_LOADED: set[tuple[str, str]] = set()


def load_engine(name: str, *, colour: bool = False, **options: Any) -> float:
    """Load the engine called ``name`` once per process: import its module and libraries and run
    it on a 2x2 puzzle with two solutions, which makes numba load every compiled kernel the
    engine uses (from the on-disk cache, or compiles them on a first run).  The ``auto`` engine
    decides that puzzle natively; it loads PySAT and the SAT engine's kernels on its first
    hand-off to SAT and reports that time as ``stats["load_s"]``, which :func:`solve` adds to
    ``load_s``, so that a puzzle that never needs SAT never pays for it (about 25 ms a process).
    With ``colour=True`` the engine is run on a 2x2 colour puzzle with two solutions instead,
    which loads (or compiles) the colour kernels, a separate set: a colour puzzle does not use
    the black-and-white kernels, and a black-and-white run never touches the colour ones.

    Returns
    -------
    float
        Wall-clock seconds spent; 0.0 when the engine (with these options) was loaded already.

    Raises
    ------
    EngineError
        As :func:`get_engine`.
    """
    from nonosat.puzzle import Colour, Palette, Puzzle

    start = time.perf_counter()
    key = (name, repr(sorted(options.items())))
    colour_key = (name + ":colour", key[1])
    if (colour_key if colour else key) in _LOADED:
        return 0.0
    if not colour:
        get_engine(name, **options).solve(Puzzle(((1,), (1,)), ((1,), (1,))), limit=2)
        _LOADED.add(key)
    else:
        palette = Palette((Colour("white", (255, 255, 255), "."), Colour("red", (255, 0, 0), "r")))
        two = Puzzle(((1,), (1,)), ((1,), (1,)), palette=palette,
                     row_colours=((1,), (1,)), col_colours=((1,), (1,)))
        get_engine(name, **options).solve(two, limit=2)
        _LOADED.add(colour_key)
    return time.perf_counter() - start


def solve(
    puzzle: Puzzle,
    engine: str = "auto",
    *,
    partial: np.ndarray | None = None,
    limit: int = 2,
    timeout: float | None = None,
    stop: StopToken | None = None,
    **options: Any,
) -> SolveResult:
    """Solve ``puzzle`` with the named engine; see :meth:`Engine.solve` for the parameters.

    The engine is loaded first (:func:`load_engine`); that time is ``result.load_s``, apart from
    ``result.time_s``, the engine's own time on this puzzle, so that a first run's compile or
    cache load is never reported as solving time.  When the caller allowed it
    (:func:`nonosat.lazy_jit.allow_interpreted`: the command line) and numba is not loaded yet,
    a small black-and-white puzzle is first line-solved by the kernels run as Python; if that
    fixes every cell, the engine runs interpreted too, nothing is loaded, and ``load_s`` is the
    time of that first look (:func:`_solved_interpreted`).

    Every solution an engine returns is checked against the clues (and against ``partial``)
    here, independently of the engine: an invalid solution raises
    :class:`~nonosat.errors.InvalidSolutionError` (an engine bug must never pass as a verdict).

    Examples
    --------
    >>> from nonosat.puzzle import Puzzle
    >>> solve(Puzzle([(1,), ()], [(1,), ()]), "native").status.value
    'unique'
    """
    import numpy as np

    if limit < 1:
        raise EngineError(f"the solution limit must be at least 1 (got {limit})")
    extra = {} if stop is None else {"stop": stop}  # engines without one still work
    look_s = time.perf_counter()
    result = _solved_interpreted(puzzle, engine, partial, limit, timeout, extra, options)
    if result is None:
        load_s = load_engine(engine, colour=puzzle.is_colour, **options)
        start = time.perf_counter()
        result = get_engine(engine, **options).solve(
            puzzle, partial=partial, limit=limit, timeout=timeout, **extra
        )
    else:  # the interpreted first look at the puzzle takes the place of loading the kernels
        start = time.perf_counter() - result.time_s
        load_s = start - look_s
    for k, sol in enumerate(result.solutions):
        errors = puzzle.line_errors(sol)
        if errors:
            line, expected, actual = errors[0]
            raise InvalidSolutionError(
                f"engine {result.engine!r} returned an invalid solution #{k + 1}: "
                f"{puzzle.line_name(line)} should be {expected} but is {actual}"
            )
        if partial is not None and puzzle.is_colour:
            if not ((np.asarray(partial, dtype=np.int64) >> sol.astype(np.int64)) & 1).all():
                raise InvalidSolutionError(
                    f"engine {result.engine!r} returned solution #{k + 1}, which contradicts "
                    f"the given cells"
                )
        elif partial is not None:
            given = np.isin(partial, (1, 2))
            if (given & ((partial == 2) != sol)).any():
                raise InvalidSolutionError(
                    f"engine {result.engine!r} returned solution #{k + 1}, which contradicts "
                    f"the given cells"
                )
    result.time_s = time.perf_counter() - start if result.time_s <= 0 else result.time_s
    # an engine that loaded more on the way (auto's first hand-off to SAT) says so in its stats
    result.load_s = load_s + float(result.stats.get("load_s", 0.0))
    return result


def _solved_interpreted(
    puzzle: Puzzle, engine: str, partial: np.ndarray | None, limit: int,
    timeout: float | None, extra: dict[str, Any], options: dict[str, Any],
) -> SolveResult | None:
    """The native or ``auto`` engine's result on a small black-and-white puzzle that line
    solving finishes, computed without numba: the same kernels run as Python
    (:func:`nonosat.lazy_jit.interpreted`), when the caller allowed it
    (:func:`nonosat.lazy_jit.allow_interpreted`, the command line) and numba is not loaded yet
    (loading it, about 0.5 s, is most of a small puzzle's ``nonosat solve``).  ``None``
    (nothing decided; the compiled path follows) unless line propagation alone, run as Python
    from the clues and ``partial``, fixes every cell: then the engine itself runs, interpreted,
    and its search ends at its root node (one solution, and no other since every cell was
    forced), so the result is the compiled engine's, counters and trace included
    (``tests/test_lazy_jit.py`` compares them)."""
    import numpy as np

    from nonosat import lazy_jit

    if (engine not in ("native", "auto") or puzzle.is_colour or options
            or max(puzzle.shape) > INTERPRETED_MAX_LINE
            or not lazy_jit.interpreted_allowed(puzzle.height * puzzle.width)
            or (partial is not None and np.shape(partial) != puzzle.shape)):
        return None
    from nonosat.native.stepping import Stepper

    try:
        with lazy_jit.interpreted(INTERPRETED_LOOK_S):
            look = Stepper(puzzle)
            if partial is not None:
                look.give(partial)
            if look.propagate() is None or look.open_cells().size:
                return None
        del look
        with lazy_jit.interpreted():
            return get_engine(engine).solve(puzzle, partial=partial, limit=limit,
                                            timeout=timeout, **extra)
    except (lazy_jit.OutOfTime, OverflowError):  # slow, or arithmetic Python cannot mirror
        return None


#: Longest line of a puzzle that :func:`solve` may line-solve as Python (the lines of one
#: machine word: :data:`nonosat.native.line.BITS_MAX_LINE`).
INTERPRETED_MAX_LINE = 62
#: Seconds the interpreted line solving of :func:`solve` may take before it gives up for the
#: compiled kernels (a puzzle that line solving does not finish, or a slow one, pays at most
#: this on top of loading them).
INTERPRETED_LOOK_S = 0.1
