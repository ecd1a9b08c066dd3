"""Running a PySAT solver on a CNF: solver names, time limits, enumeration, DRAT proofs.

Shared by the SAT engine (:mod:`nonosat.engines.sat`) and the certificates
(:mod:`nonosat.certificates`), so that both run solvers the same way.  The formula comes
from :mod:`nonosat.encodings.cnf`; nothing here knows about puzzles.

Time limits and interrupts
--------------------------
CaDiCaL cannot be stopped from another thread through PySAT (its ``solve`` holds the GIL, and
PySAT has no ``interrupt`` for it), so every solve runs as a series of conflict-budgeted
``solve_limited`` calls: :meth:`SatRun.solve` sizes each budget from the conflict rate of the last
call so that a call lasts about :data:`CALL_S` seconds at first, then half the solve's time so far
(at most :data:`MAX_CALL_S`; less when the deadline is nearer), checks
the clock and :func:`nonosat.interrupts.check` between calls, and goes on.  An interrupt (Ctrl-C,
``SIGTERM``) therefore raises :class:`nonosat.interrupts.Interrupted` within about one call, and is
never reported as a deadline.  The solver keeps its learnt clauses between calls, so the search
continues where it stopped, but each call restarts some of CaDiCaL's schedules: 100 taai2011
puzzles (every 10th from 0 and from 5, ``auto``, uniqueness), SAT conflicts 55.1k and 21.1k in 69
and 44 calls against 44.2k and 19.7k in 36 and 31 unbudgeted calls (CPU 8.4 / 5.7 s against
6.8-8.9 / 5.2-5.4 s, a loaded machine); Faase (80x95, SAT engine alone) 19.6 s CPU in 190 calls
against 19.8 s in 2.  The first budget (:data:`FIRST_CONFLICT_BUDGET`, at most what the last
solver of the process ended with) is small enough for a large puzzle's first call; a formula much
slower per conflict than the last one can still make the first call last a few seconds (the
ambiguity map of Knotty: up to 2.9 s on a loaded machine; the CLI's native guard,
:mod:`nonosat.cli.native_guard`, started by :func:`nonosat.interrupts.before_blocking` when a
solver is created, ends an interrupted process then).  A deadline is overshot by about one
call.  Solvers that PySAT cannot bound (Lingeling) refuse a deadline and cannot be interrupted
before they return.

PySAT's own Ctrl-C handling in the main thread (a ``longjmp`` out of the solver, which leaves it
corrupt: double frees, crashes at the next Ctrl-C) is switched off when this module is imported:
nonosat's handlers (:mod:`nonosat.cli.signals`) take the signal instead.

Proofs
------
With ``with_proof=True`` the solver logs a DRAT proof.  PySAT hands CaDiCaL a temporary file for
its proof, which CaDiCaL writes in **binary** DRAT; ``get_proof()`` decodes it into text lines
(``"1 -2 0"``, ``"d 3 4 0"``, ``"0"``).  :meth:`SatRun.proof` returns those text lines: text DRAT is
what the in-process checker reads, and drat-trim reads both.  Glucose and the MiniSat-derived
solvers log text DRUP directly.

With ``lrat=True`` (CaDiCaL 1.9.5 only, :data:`LRAT_SOLVERS`), the same run also logs its proof
as LRAT: CaDiCaL writes each derived clause with its ID and the IDs of the clauses its unit
propagation used (its ``lrat`` option), and deletions by ID.  PySAT does not offer this, so
:class:`SatRun` sets the options (``binary=0``, then ``lrat=1``) and connects two proof tracers
through PySAT's own C functions (``cadical195_set``, ``cadical195_tracepr``) before any clause
is added: a text DRAT tracer and an LRAT tracer, each writing to its own temporary file.  Both
receive the same derivations, so the LRAT's added clauses are the DRAT's lemmas, in order.
Clause IDs ``1..m`` are the clauses given, in order (:meth:`SatRun.lrat`).
"""

from __future__ import annotations

import functools
import gc
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np
import pysolvers
from pysat._utils import MainThread
from pysat.solvers import NoSuchSolverError, Solver, SolverNames

from nonosat import interrupts
from nonosat.errors import EngineError

if TYPE_CHECKING:
    from nonosat.stop import StopToken

# PySAT passes "in the main thread" to its C calls, which then install a SIGINT handler that
# longjmps out of the solver mid-search: never (see the module docstring)
MainThread.check = staticmethod(lambda: False)

#: The SAT solver used when none is named (CaDiCaL 1.9.5).
DEFAULT_SOLVER = "Cadical195"

#: First conflict budget of a solver (at most the budget the last solver of the process ended
#: with); later budgets follow the conflict rate seen.  5000 conflicts: about 0.25 s of CaDiCaL on
#: a 25x25 puzzle.  Measured on 2 x 100 taai2011 puzzles (every 10th from #0 and from #5, auto,
#: uniqueness, one run each on a loaded machine): 47.4k / 19.7k conflicts (7.2 / 5.6 s CPU)
#: against 44.2k / 19.7k (7.2 / 5.0 s) with one unbounded call per solve before interrupts were
#: handled, and 49.6k / 19.7k with 20,000, 25.6k on the second sample with 1,000.
FIRST_CONFLICT_BUDGET = 5000
#: Conflicts per second assumed for the first call under a short deadline (a low estimate).
FIRST_CONFLICT_RATE = 2_000
MIN_CONFLICT_BUDGET = 50
MAX_CONFLICT_BUDGET = 1 << 24
#: Seconds the first budgeted calls of a solve aim at: the longest an interrupt waits for
#: CaDiCaL early in a solve.
CALL_S = 0.4
#: Later calls aim at this share of the solve's time so far (at least :data:`CALL_S`, at most
#: :data:`MAX_CALL_S`), so a long solve makes a few long calls rather than many short ones:
#: each call restarts some of CaDiCaL's schedules.  An interrupt during a long call is ended by
#: the CLI's native guard (:mod:`nonosat.cli.native_guard`) within about a second.
CALL_GROWTH = 0.5
#: The longest a budgeted call aims at (seconds).
MAX_CALL_S = 4.0
#: Seconds every call aims at when the run has a stop token (``SatRun(stop=...)``): CaDiCaL
#: cannot be interrupted through PySAT (and holds the GIL), so the token is read between calls
#: and a call this short bounds the wait (the studio's 100 ms target for a superseded request).
STOP_CALL_S = 0.04

#: Clauses :meth:`SatRun.add_flat` adds between two looks at the run's stop token (about 10 ms
#: of adding).
ADD_CHUNK = 20_000
#: The conflict budget the last solver of this process ended with (0: none yet).
_last_budget = [0]


#: Solvers whose options :class:`SatRun` can set (CaDiCaL's ``options.hpp`` names).
CONFIGURABLE_SOLVERS = frozenset({"cadical153", "cadical195", "cadical300"})

#: Solvers that log DRAT proofs through PySAT (the others refuse ``with_proof``).
PROOF_SOLVERS = frozenset({
    "cadical103", "cadical153", "cadical195", "cadical300", "ergo", "glucose3", "glucose4",
    "glucose42", "gluecard3", "gluecard4", "lingeling", "maplechrono", "maplecm", "maplesat",
})


#: Solvers that log an LRAT proof besides the DRAT one (``SatRun(..., lrat=True)``).
LRAT_SOLVERS = frozenset({"cadical195"})


#: Solvers whose clauses :meth:`SatRun.add_flat` hands straight to PySAT's C extension: canonical
#: name -> (``pysolvers`` function adding one clause, attribute of PySAT's solver object holding
#: the C handle).  The wrapper it skips, ``Cadical195.add_clause``, does nothing else but record
#: a ``False`` answer, which CaDiCaL never gives (it reports an inconsistent formula at solve).
_DIRECT_ADD: dict[str, tuple[str, str]] = {"cadical195": ("cadical195_add_cl", "cadical")}


@functools.cache
def _canonical_names() -> dict[str, str]:
    """Lower-case name or alias -> PySAT's canonical solver name (computed once; callers do
    not modify it)."""
    names: dict[str, str] = {}
    for canonical, aliases in vars(SolverNames).items():
        if canonical.startswith("_") or not isinstance(aliases, tuple):
            continue
        names[canonical.lower()] = canonical
        for alias in aliases:
            names[str(alias).lower()] = canonical
    return names


def solver_names() -> list[str]:
    """Canonical names of the solvers this PySAT knows (some may not be built in)."""
    return sorted(set(_canonical_names().values()))


def solver_name(name: str) -> str:
    """PySAT's canonical name for ``name`` (case-insensitive; aliases such as ``cd19``,
    ``Cadical195`` or ``glucose4`` are accepted).

    Raises
    ------
    EngineError
        Unknown name; the message lists the known ones.
    """
    try:
        return _canonical_names()[name.lower()]
    except KeyError:
        raise EngineError(
            f"unknown SAT solver {name!r}; PySAT knows {', '.join(solver_names())}"
        ) from None


def proof_solver_name(name: str) -> str:
    """Like :func:`solver_name`, for a solver that must log DRAT proofs.

    Raises
    ------
    EngineError
        Unknown name, or a solver that cannot log proofs (the message lists those that can).
    """
    canonical = solver_name(name)
    if canonical not in PROOF_SOLVERS:
        raise EngineError(
            f"SAT solver {canonical!r} cannot log DRAT proofs; choose one of "
            f"{', '.join(sorted(PROOF_SOLVERS))}"
        )
    return canonical


class SatRun:
    """One PySAT solver over a formula, used as a context manager.

    Parameters
    ----------
    clauses : sequence of list of int
        DIMACS clauses.
    name : str
        Solver name (see :func:`solver_name`).
    with_proof : bool
        Log a DRAT proof (:meth:`proof`).
    lrat : bool
        Log the proof as LRAT too (:meth:`lrat`); implies ``with_proof``, for the solvers of
        :data:`LRAT_SOLVERS`.
    options : dict of str to int, optional
        Solver options (CaDiCaL's ``--name=value`` options, e.g. ``{"stabilizeonly": 1}``),
        for the solvers in :data:`CONFIGURABLE_SOLVERS`.
    flat : (ndarray, ndarray), optional
        More clauses, after ``clauses``, as flat arrays ``(lits, ends)`` (see
        :meth:`add_flat`): the SAT engine's formula, passed without a Python list per clause
        being kept.
    stop : StopToken, optional
        Read between the solver's budgeted calls by :meth:`solve` and :meth:`solve_limited`,
        which give up (``None``) once it is set; the calls then aim at ``stop_call_s``
        seconds each, so a set token is seen within about that.
    stop_call_s : float
        Seconds each call aims at when there is a ``stop`` token (default
        :data:`STOP_CALL_S`).  Very short calls slow a long search down (each call restarts
        some of CaDiCaL's schedules): the enumeration counter takes 0.4 s.

    Raises
    ------
    EngineError
        Unknown solver, a solver this PySAT was built without, proof logging asked of a
        solver that cannot log proofs, or options for a solver that takes none.

    Examples
    --------
    >>> with SatRun([[1, 2], [-1]]) as run:
    ...     run.solve(), run.model()
    (True, [-1, 2])
    """

    def __init__(self, clauses: Sequence[Sequence[int]], name: str = DEFAULT_SOLVER,
                 with_proof: bool = False, options: dict[str, int] | None = None,
                 flat: tuple[np.ndarray, np.ndarray] | None = None, lrat: bool = False,
                 *, stop: StopToken | None = None, stop_call_s: float = STOP_CALL_S):
        with_proof = with_proof or lrat
        self._stop = stop
        self._stop_call_s = stop_call_s
        self.name = proof_solver_name(name) if with_proof else solver_name(name)
        self.with_proof = with_proof
        if lrat and self.name not in LRAT_SOLVERS:
            raise EngineError(f"SAT solver {self.name!r} cannot log LRAT through PySAT; "
                              f"{', '.join(sorted(LRAT_SOLVERS))} can")
        self._traces: list[Any] = []
        if options and self.name not in CONFIGURABLE_SOLVERS:
            # PySAT would ignore them silently
            raise EngineError(f"SAT solver {self.name!r} takes no options; CaDiCaL does")
        self.calls = 0
        self.solve_time_s = 0.0
        #: True once :meth:`add_flat` stopped early at the run's token: the formula is then not
        #: the one asked for, and every solve answers ``None``
        self.incomplete = False
        interrupts.before_blocking()  # the solver holds the GIL: the CLI's native guard, if any
        try:
            self._solver = Solver(name=self.name, with_proof=with_proof and not lrat)
            if lrat:
                self._trace_lrat()
        except NoSuchSolverError:
            raise EngineError(f"SAT solver {self.name!r} is not built into this PySAT") from None
        except NotImplementedError as exc:
            raise EngineError(f"SAT solver {self.name!r}: {exc}") from None
        # lists of clauses: append_formula (Solver(bootstrap_with=...) also type-checks every
        # clause); flat arrays, the SAT engine's, go by add_flat with no Python frame per clause
        self._solver.append_formula(clauses)
        if flat is not None:
            self.add_flat(*flat)
        # the first budget: the default, or less when the last solver of this process needed
        # less for a call of CALL_S seconds (Knotty's ambiguity queries: about 300 conflicts)
        self._budget = min(FIRST_CONFLICT_BUDGET, _last_budget[0] or FIRST_CONFLICT_BUDGET)
        if stop is not None:  # short calls from the first: a first guess at the rate
            self._budget = min(self._budget, int(FIRST_CONFLICT_RATE * stop_call_s))
        if options:
            self._solver.configure(dict(options))

    def _trace_lrat(self) -> None:
        """Connect a text DRAT tracer, then an LRAT tracer, to the fresh CaDiCaL (no clause
        added yet: CaDiCaL takes tracers only while it is being configured)."""
        handle = self._solver.solver.cadical
        # text proofs; the first tracer is DRAT, then 'lrat' makes the second LRAT
        for option, value in (("binary", 0), ("lrat", 1)):
            pysolvers.cadical195_set(handle, option, value)
            traced = tempfile.TemporaryFile()
            self._traces.append((traced, pysolvers.cadical195_tracepr(handle, traced)))

    def __enter__(self) -> SatRun:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Free the solver (also done on leaving the ``with`` block)."""
        if self._budget and self._stop is None:  # a stop run's short calls are not the rate
            _last_budget[0] = self._budget
        self._solver.delete()  # first: CaDiCaL may still write to its tracers' files
        for traced, _ in self._traces:
            traced.close()
        self._traces = []

    def add_clause(self, clause: Sequence[int]) -> None:
        """Add a clause (e.g. a blocking clause) for the next :meth:`solve`."""
        self._solver.add_clause(list(clause))

    def add_flat(self, lits: np.ndarray, ends: np.ndarray) -> None:
        """Add the clauses ``lits[ends[i-1]:ends[i]]`` (``lits`` nonzero DIMACS literals,
        ``ends`` the non-decreasing end offset of every clause, as the compiled encoders return
        them; an empty clause is added as such), in order.

        PySAT takes one clause per C call (its ``add_clause`` refuses the 0 that would separate
        clauses); for CaDiCaL (:data:`_DIRECT_ADD`) each clause goes straight to the extension's
        C function, as a slice of one list of Python ints, from C-level ``map`` iteration: no
        Python frame per clause (``append_formula`` runs two).  Python's cyclic collector is
        paused meanwhile: the short-lived slices can form no cycle, and would otherwise set off
        collections of the whole heap (as in :func:`nonosat.encodings.cnf_order.clause_lists`).
        A run with a stop token adds :data:`ADD_CHUNK` clauses at a time and looks at the
        token in between: once it is set, the rest is not added, :attr:`incomplete` is set and
        no solve of this run answers (Faase's 80x95 order encoding took 0.25 s or more to add,
        uninterrupted, after a superseded studio request).

        Raises
        ------
        EngineError
            A zero literal, or ``ends`` not within ``lits``.
        """
        lits = np.asarray(lits)
        ends = np.asarray(ends)
        if ends.shape[0] == 0:
            return
        if (int(ends[-1]) != lits.shape[0] or int(ends[0]) < 0 or np.any(np.diff(ends) < 0)
                or not np.all(lits)):
            raise EngineError("flat clauses: a zero literal, or offsets out of order or range")
        flat = lits.tolist()
        stops = ends.tolist()
        starts = [0, *stops[:-1]]
        direct = _DIRECT_ADD.get(self.name)
        handle = getattr(self._solver.solver, direct[1], None) if direct else None
        fn = getattr(pysolvers, direct[0]) if handle is not None and direct is not None else None
        step = len(stops) if self._stop is None else ADD_CHUNK
        enabled = gc.isenabled()
        gc.disable()
        try:
            for first in range(0, len(stops), step):
                if self._stop is not None and self._stop.is_set():
                    self.incomplete = True
                    return
                chunk = slice(first, first + step)
                clauses = map(flat.__getitem__, map(slice, starts[chunk], stops[chunk]))
                if fn is not None:
                    deque(map(fn, repeat(handle), clauses), maxlen=0)
                else:
                    deque(map(self._solver.add_clause, clauses), maxlen=0)
        finally:
            if enabled:
                gc.enable()

    def set_phases(self, literals: Sequence[int]) -> bool:
        """Prefer these literals' values in the solver's decisions (its saved phases); they steer
        the search, never what is satisfiable.

        Returns
        -------
        bool
            False when this solver cannot take phases through PySAT (Kissat): nothing is set.
        """
        try:
            self._solver.set_phases(list(literals))
        except NotImplementedError:
            return False
        return True

    def solve(self, deadline: float | None = None, stop: StopToken | None = None
              ) -> bool | None:
        """Decide the formula, in conflict-budgeted calls of about :data:`CALL_S` seconds.

        Parameters
        ----------
        deadline : float, optional
            ``time.perf_counter()`` value after which to give up.
        stop : StopToken, optional
            Polled between calls (:mod:`nonosat.stop`): once set, give up as at the deadline
            (default: the run's own token, if any).

        Returns
        -------
        bool or None
            ``True`` satisfiable, ``False`` unsatisfiable, ``None`` the deadline passed (or the
            stop token was set) first.

        Raises
        ------
        EngineError
            A deadline for a solver that cannot be bounded.
        Interrupted
            An interrupt was requested (:mod:`nonosat.interrupts`), checked between calls.
        """
        if self.incomplete:
            return None
        start = time.perf_counter()
        try:
            interrupts.check()
            return self._solve_bounded(deadline, stop if stop is not None else self._stop)
        finally:
            self.solve_time_s += time.perf_counter() - start

    def solve_limited(self, assumptions: Sequence[int], conflicts: int) -> bool | None:
        """Decide the formula under ``assumptions`` (literals, for this call only) within
        ``conflicts`` conflicts (in calls of about :data:`CALL_S` seconds each).

        Returns
        -------
        bool or None
            ``True`` satisfiable (:meth:`model`), ``False`` unsatisfiable under the assumptions,
            ``None`` the conflict budget ran out first (or the run's stop token was set).

        Raises
        ------
        EngineError
            A solver that cannot be bounded (Kissat through PySAT).
        Interrupted
            An interrupt was requested, checked between calls.
        """
        if self.incomplete:
            return None
        start = time.perf_counter()
        left = max(1, int(conflicts))
        try:
            while True:
                interrupts.check()
                if self._stop is not None and self._stop.is_set():
                    return None
                budget = min(left, self._budget or FIRST_CONFLICT_BUDGET)
                result, used = self._call(budget, self._call_target(CALL_S),
                                          list(assumptions))
                if result is not None:
                    return result
                left -= max(used, budget)
                if left <= 0:
                    return None
        except NotImplementedError:
            raise EngineError(f"SAT solver {self.name!r} cannot be bounded by a conflict "
                              "budget") from None
        finally:
            self.solve_time_s += time.perf_counter() - start

    def _call(self, budget: int, target: float, assumptions: list[int] | None = None
              ) -> tuple[bool | None, int]:
        """One ``solve_limited`` call within ``budget`` conflicts; the next budget is sized from
        the conflicts it made and its time so that a call lasts about ``target`` seconds.
        Returns the answer and the conflicts made.

        Raises
        ------
        NotImplementedError
            A solver that cannot be bounded.
        Interrupted
            An interrupt was requested meanwhile (the answer is not used).
        """
        before = self._conflicts()
        self._solver.conf_budget(max(1, int(budget)))
        self.calls += 1
        call_start = time.perf_counter()
        if assumptions:
            result = self._solver.solve_limited(assumptions=assumptions)
        else:
            result = self._solver.solve_limited()
        took = time.perf_counter() - call_start
        interrupts.check()  # an interrupted search is no answer, and no "deadline" either
        after = self._conflicts() if before is not None else None
        used = after - before if before is not None and after is not None else budget
        if result is None or took >= 0.05:  # a short finished call says little about the rate
            scaled = int(max(used, 1) * max(target, 0.01) / max(took, 1e-4))
            self._budget = max(MIN_CONFLICT_BUDGET,
                               min(scaled, 4 * max(budget, used), MAX_CONFLICT_BUDGET))
        return result, used

    def _call_target(self, seconds: float) -> float:
        """Seconds a call aims at: ``seconds``, at most the run's ``stop_call_s`` with a stop
        token."""
        return seconds if self._stop is None else min(seconds, self._stop_call_s)

    def _conflicts(self) -> int | None:
        """Conflicts made so far (None when the solver does not say)."""
        try:
            return int((self._solver.accum_stats() or {}).get("conflicts", 0))
        except NotImplementedError:
            return None

    def _solve_bounded(self, deadline: float | None, stop: StopToken | None = None
                       ) -> bool | None:
        began = time.perf_counter()
        while True:
            now = time.perf_counter()
            remaining = CALL_S if deadline is None else deadline - now
            if remaining <= 0 or (stop is not None and stop.is_set()):
                return None
            if not self._budget:
                self._budget = max(MIN_CONFLICT_BUDGET, min(
                    FIRST_CONFLICT_BUDGET, int(max(remaining, CALL_S) * FIRST_CONFLICT_RATE)))
            # aim at CALL_S seconds, then at a share of the solve so far, or less when the
            # deadline is nearer
            target = self._call_target(min(MAX_CALL_S,
                                           max(CALL_S, CALL_GROWTH * (now - began))))
            left = target if deadline is None else max(deadline - now, 0.0)
            try:
                result, _ = self._call(self._budget, min(left, target))
            except NotImplementedError:
                if deadline is None:  # cannot be bounded (nor interrupted): one plain call
                    result = self._solver.solve()
                    interrupts.check()
                    return result
                raise EngineError(
                    f"SAT solver {self.name!r} cannot be stopped at a time limit; "
                    "run it without --timeout or choose another solver"
                ) from None
            if result is not None:
                return result

    def model(self) -> list[int]:
        """The model of the last satisfiable :meth:`solve` (signed literals, variable order)."""
        model = self._solver.get_model()
        if model is None:
            raise EngineError("the SAT solver has no model (the last solve was not SAT)")
        return list(model)

    def first_two(self, decode: Callable[[list[int]], np.ndarray],
                  block: Callable[[np.ndarray], Sequence[int]], deadline: float | None = None,
                  ) -> tuple[bool | None, np.ndarray | None, np.ndarray | None]:
        """Solve; then add the blocking clause of the first solution and solve again (the
        uniqueness check).

        Parameters
        ----------
        decode : callable
            A model (:meth:`model`) to a solution grid.
        block : callable
            A solution grid to the clause that excludes it.
        deadline : float or None
            As :meth:`solve`, for both calls.

        Returns
        -------
        (bool or None, ndarray or None, ndarray or None)
            ``(answer, first, second)``: ``answer`` None when time ran out in either call,
            else whether there is a solution; ``first`` the solution found first, ``second``
            another one (None: ``first`` is the only one, or time ran out).
        """
        answer = self.solve(deadline)
        first = decode(self.model()) if answer else None
        if first is None:
            return answer, None, None
        self.add_clause(block(first))
        again = self.solve(deadline)
        return (None if again is None else answer), first, (
            decode(self.model()) if again else None)

    def proof(self) -> list[str]:
        """The DRAT proof logged so far, as text lines (``"1 -2 0"``, ``"d 1 2 0"``).

        Raises
        ------
        EngineError
            The run was not created ``with_proof``.
        """
        if not self.with_proof:
            raise EngineError("the SAT solver was not asked to log a proof")
        if self._traces:
            return self._traced(0).decode("ascii").splitlines()
        return list(self._solver.get_proof() or [])

    def lrat(self) -> str:
        """The LRAT proof logged so far, as text (``ID literals 0 hints 0`` per derived clause,
        ``ID d IDs 0`` per deletion); clause IDs ``1..m`` are the clauses given, in order.

        Raises
        ------
        EngineError
            The run was not created with ``lrat=True``.
        """
        if not self._traces:
            raise EngineError("the SAT solver was not asked to log an LRAT proof")
        return self._traced(1).decode("ascii")

    def _traced(self, k: int) -> bytes:
        traced, pointer = self._traces[k]
        pysolvers.flushpr(pointer)
        traced.seek(0)
        return traced.read()

    def stats(self) -> dict[str, Any]:
        """Solver statistics: ``solver``, ``conflicts``, ``decisions``, ``propagations``,
        ``restarts`` (where the solver reports them), ``sat_calls``, ``sat_time_s``."""
        stats: dict[str, Any] = {"solver": self.name}
        try:
            stats.update({k: int(v) for k, v in (self._solver.accum_stats() or {}).items()})
        except NotImplementedError:
            pass
        stats["sat_calls"] = self.calls
        stats["sat_time_s"] = round(self.solve_time_s, 6)
        return stats


def refuted_by_propagation(clauses: Sequence[Sequence[int]]) -> bool:
    """Whether unit propagation alone derives a conflict from ``clauses``.

    Such a formula needs no proof beyond the empty clause: a DRAT checker finds the conflict
    by propagating the formula's unit clauses.  MiniSat propagates unit clauses at decision level
    0 as the clauses are loaded, and does nothing else there.

    >>> refuted_by_propagation([[1], [-1, 2], [-2]]), refuted_by_propagation([[1], [-1, 2]])
    (True, False)
    """
    with Solver(name="minisat22") as solver:
        solver.append_formula(clauses)
        ok, _ = solver.propagate(assumptions=[])
    return not ok
