"""Projected model counting by enumeration: a CDCL solver (CaDiCaL) finds a model, a blocking
clause excludes its projection, and so on until the formula is unsatisfiable.

This is the plain *blocking-clause enumeration* of all-solutions SAT (see e.g. [1]_): each
satisfiable call gives a model whose projection on the chosen variables has not been seen, the
clause "some projected variable differs" is added, and the solver, which keeps its learnt
clauses and saved phases between calls, goes on.  When the formula with every blocking clause
is unsatisfiable, the projections found are all of them: the count is **exact**.  Stopped
earlier (a time limit, a stop token, a cap on the models, a bound on the blocking clauses'
size), the projections found are distinct, so their number is a **lower bound**.

Its cost grows with the count (one SAT call and one blocking clause per projection), unlike a
model counter's (:mod:`nonosat.encodings.ganak`), which counts sets of models without listing
them; but a CDCL solver learns from the branches with no model, so it is fast on formulas with
few models that are hard to find (nonogram puzzles whose few thousand solutions are spread
through many empty branches: ``docs/counting.md``).

The projection is a list of **groups** of variables:

* a group of one variable ``[v]`` is a Boolean variable: the blocking clause has ``-v`` when the
  model has ``v`` true, ``v`` when it has it false;
* a group of two or more ``[v1, ..., vk]`` is an **exactly-one** group (a colour cell: "cell has
  colour k" for every k); the clauses saying exactly one is true are added to the formula, and
  the blocking clause has only ``-vi`` for the true ``vi`` (under exactly-one, "``vi`` false"
  is "a different value").  The count is then of the formula with those clauses (the same
  count when the formula already implies them, as the colour encoding does).

A projected variable that no clause mentions is free: the solver's model leaves it out, it is
read as false, and the blocking clause's literal ``v`` lets the next model take it true, so it
doubles the count as it should.

The solver runs in conflict-budgeted calls (:class:`~nonosat.encodings.satsolver.SatRun` with a
stop token), so a stop token or the time limit is seen within about :data:`ENUM_CALL_S`
seconds, and an interrupt raises
:class:`nonosat.interrupts.Interrupted` between calls.

This module builds only on the CNF (lists of DIMACS clauses); it never imports the native solver.

References
----------
.. [1] O. Grumberg, A. Schuster, A. Yadgar, "Memory efficient all-solutions SAT solver and its
   application for reachability analysis", FMCAD 2004; T. Toda, T. Soh, "Implementing
   efficient all solutions SAT solvers", ACM JEA 21 (2016) (blocking-clause enumeration and
   its alternatives).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from nonosat.errors import EngineError
from nonosat.stop import StopToken, for_solve

#: How the enumeration is named in reports and JSON (``count_method``).
ENUMERATOR_NAME = "enumeration (CaDiCaL)"

#: CaDiCaL options of the enumeration: no variable elimination, vivification, probing or
#: subsumption rounds.  The blocking clauses are irredundant clauses that keep arriving, and
#: these rounds then run over the whole growing formula within one call, beyond its conflict
#: budget: a call of 0.45 s CPU (1.3 s wall on a loaded machine) was measured where the
#: others took 0.04 s, delaying a stop by as much (the portfolio's 10 s count returned after
#: 11.8 s).  Without them (10 s runs on a loaded machine, load 10): the longest call 0.09 s
#: instead of 0.13-1.3 s on four puzzles, and about as many models (taai2011 #500's 1,454 in
#: 2.8 s either way; on #425, #450 and icga2021 #700 the differences, -8 % to +80 %, were
#: within the run-to-run noise).
ENUM_OPTIONS = {"elim": 0, "vivify": 0, "probe": 0, "subsume": 0}

#: Seconds each conflict-budgeted solver call aims at: the longest a stop waits (about; more on
#: a loaded machine).  Shorter calls slow a hard search down: each call restarts some of
#: CaDiCaL's schedules.  Measured (6 s runs, load 8-10): taai2011 #475 153 and 82 models with
#: 0.4 s calls against 16 and 8 with 0.04 s calls; #650 49 and 417 against 12 and 18; #500's
#: 1,454 in 4.4 s against 1,304 unfinished in 6 s.
ENUM_CALL_S = 0.4

#: The most blocking-clause literals one enumeration adds (about 4 bytes each in CaDiCaL, plus
#: its watches): beyond it the enumeration stops with a lower bound (``reason`` "memory").
#: 2^25 literals: 53,000 blocking clauses of a 25x25 puzzle with 625 undecided cells.
MAX_BLOCKING_LITERALS = 1 << 25


@dataclass(frozen=True)
class EnumerationResult:
    """The outcome of :func:`count_by_enumeration`.

    Attributes
    ----------
    count : int
        The number of distinct projected models found: every one of them when ``exact``, else a
        lower bound (``cap + 1`` when the cap stopped it).
    exact : bool
        The formula with every blocking clause was proved unsatisfiable.
    time_s : float
        Wall-clock seconds.
    reason : str
        Why the count is not exact (``"time limit"``, ``"cancelled"``, ``"more than N
        models"``, ``"memory"``), else ``""``.
    calls : int
        Conflict-budgeted solver calls made.
    conflicts : int
        Conflicts the solver made.
    counter : str
        :data:`ENUMERATOR_NAME`.
    """

    count: int
    exact: bool
    time_s: float
    reason: str = ""
    calls: int = 0
    conflicts: int = 0
    counter: str = ENUMERATOR_NAME


def count_by_enumeration(
    clauses: Sequence[Sequence[int]],
    nvars: int,
    groups: Sequence[Sequence[int]],
    *,
    cap: int | None = None,
    timeout: float | None = None,
    stop: StopToken | None = None,
    max_literals: int = MAX_BLOCKING_LITERALS,
    solver: str = "cadical195",
) -> EnumerationResult:
    """The number of models of ``clauses`` projected on ``groups``, by enumerating them.

    Parameters
    ----------
    clauses : sequence of sequence of int
        DIMACS clauses (an empty clause makes the formula unsatisfiable).
    nvars : int
        Number of variables of the formula (literals and groups within ``1 .. nvars``).
    groups : sequence of sequence of int
        The projection: Boolean variables (groups of one) and exactly-one groups (module
        docstring).  No variable may be in two groups.  No groups: 1 for a satisfiable formula,
        0 else.
    cap : int, optional
        Stop once more than ``cap`` projections are found (the result is then ``cap + 1``, not
        exact); ``None``: no cap.
    timeout : float, optional
        Seconds; the result found so far is returned (not exact) on expiry.
    stop : StopToken, optional
        Read between the solver's calls: once set, the result found so far is returned (not
        exact) with the token's reason.
    max_literals : int
        The most literals the blocking clauses may have in all (:data:`MAX_BLOCKING_LITERALS`);
        beyond, the result is a lower bound with ``reason`` ``"memory"``.
    solver : str
        PySAT solver name (one that takes conflict budgets).

    Returns
    -------
    EnumerationResult

    Raises
    ------
    EngineError
        A literal or group variable out of range, a variable in two groups, an empty group,
        or an unknown solver.
    nonosat.interrupts.Interrupted
        An interrupt was requested (checked between the solver's calls).

    Examples
    --------
    >>> count_by_enumeration([[1, 2]], 3, [[1], [2]]).count
    3
    >>> count_by_enumeration([], 6, [[1, 2, 3], [4, 5, 6]]).count
    9
    """
    from nonosat.encodings.satsolver import SatRun

    start = time.perf_counter()
    seen: set[int] = set()
    for group in groups:
        if not group:
            raise EngineError("an empty projection group")
        for v in group:
            if not 1 <= v <= nvars:
                raise EngineError(f"projection variable {v} out of range 1..{nvars}")
            if v in seen:
                raise EngineError(f"projection variable {v} is in two groups")
            seen.add(v)
    for clause in clauses:
        if any(lit == 0 or abs(lit) > nvars for lit in clause):
            raise EngineError(f"clause {list(clause)[:8]} has a literal out of range 1..{nvars}")
    if any(not clause for clause in clauses):
        return EnumerationResult(0, True, time.perf_counter() - start)
    singles = [int(g[0]) for g in groups if len(g) == 1]
    onehot = [[int(v) for v in g] for g in groups if len(g) > 1]
    extra: list[list[int]] = []
    for group in onehot:  # exactly one: at least one, pairwise at most one
        extra.append(list(group))
        extra.extend([-a, -b] for i, a in enumerate(group) for b in group[i + 1:])
    width = len(singles) + len(onehot)  # literals per blocking clause
    top = max(seen, default=0)
    found = 0
    with for_solve(stop, timeout) as token:
        from nonosat.encodings.satsolver import CONFIGURABLE_SOLVERS, solver_name

        options = ENUM_OPTIONS if solver_name(solver) in CONFIGURABLE_SOLVERS else None
        with SatRun(clauses, solver, options=options, stop=token,
                    stop_call_s=ENUM_CALL_S) as run:
            for clause in extra:
                run.add_clause(clause)
            reason = ""
            while True:
                answer = run.solve()
                if answer is None:
                    reason = token.reason if token.is_set() else "stopped"
                    break
                if not answer:
                    break
                found += 1
                if cap is not None and found > cap:
                    reason = f"more than {cap:,} models"
                    break
                if not width:  # nothing projected: one (empty) projection
                    reason = ""
                    run.add_clause([])
                    continue
                if found * width > max_literals:
                    reason = "memory"
                    break
                model = run.model()
                if len(model) >= top:
                    # model[v - 1] is +-v; the blocking literal is its negation
                    block = [-model[v - 1] for v in singles]
                    for group in onehot:
                        block.extend(-v for v in group if model[v - 1] > 0)
                else:  # variables past the solver's last are free: read as false
                    def value(v: int, model: list[int] = model) -> bool:
                        return v <= len(model) and model[v - 1] > 0

                    block = [-v if value(v) else v for v in singles]
                    for group in onehot:
                        block.extend(-v for v in group if value(v))
                run.add_clause(block)
            stats = run.stats()
    exact = not reason and answer is False
    return EnumerationResult(found, exact, time.perf_counter() - start,
                             "" if exact else reason, int(stats.get("sat_calls", 0)),
                             int(stats.get("conflicts", 0)))
