"""The verdict every command gives: one decision, made by the portfolio of ``nonosat solve``.

``solve``, ``verify``, ``certify``, ``analyse`` and ``crosscheck`` all answer the same first
question -- does this puzzle have no solution, one, or several? -- and they answer it the same
way, here: :func:`decide` runs the ``auto`` engine (:mod:`nonosat.engines.auto`: the native
solver's propagation and probing, a budgeted native search, then the hand-off of what it proved
to SAT with belief-propagation phases) with a limit of two solutions, under the command's time
limit (``--timeout``, default ``$NONOSAT_TIMEOUT`` or 300 s, :func:`nonosat.limits.
resolve_timeout`).  A puzzle ``solve`` decides is decided by every command in the same time; what
each command adds comes after the verdict:

============  =====================================================================
command       after the verdict
============  =====================================================================
solve         prints it
verify        judges the other solver's claim with it; a proof for ``unique``/``none``
certify       a checked DRAT proof (``unique``/``none``) or a witness certificate
              (two solutions, :mod:`nonosat.certificates.witness`)
analyse       logic stages, structure, grade
crosscheck    compares it with the independent engines (``sat``, ``cpsat``)
============  =====================================================================

Every solution :func:`decide` returns has been checked against the clues
(:func:`nonosat.engines.solve`), so two distinct ones are a witness of several solutions.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

# The portfolio's name and the cross-check's default engines are the engines' own constants,
# re-exported here, where every command reads its verdict.
from nonosat.engines import CROSSCHECK_ENGINES, PORTFOLIO  # noqa: F401

if TYPE_CHECKING:
    import numpy as np

    from nonosat.engines import SolveResult
    from nonosat.puzzle import Puzzle



def decide(
    puzzle: Puzzle,
    *,
    timeout: float | None = None,
    limit: int = 2,
    engine: str = PORTFOLIO,
    partial: np.ndarray | None = None,
    **options: Any,
) -> SolveResult:
    """The verdict on ``puzzle``: :func:`nonosat.engines.solve` with the portfolio.

    Parameters
    ----------
    puzzle : Puzzle
        Black-and-white or colour.
    timeout : float, optional
        Seconds; the status is ``unknown`` when they run out (``None``: no limit).
    limit : int
        Solutions looked for (2 decides uniqueness; more counts them).
    engine : str
        Another engine only when the user names one (``solve --engine``, ``analyse
        --engine``); every command's default is :data:`PORTFOLIO`.
    partial : ndarray, optional
        Cells given (see :meth:`nonosat.engines.Engine.solve`).
    **options
        Engine options (``solver`` for ``sat``).

    Returns
    -------
    SolveResult
        Each solution checked against the clues; with status ``multiple``, the first two are
        distinct.

    Raises
    ------
    EngineError
        Unknown engine, or a solution that breaks the clues (an engine bug).
    """
    from nonosat.engines import solve

    return solve(puzzle, engine, partial=partial, limit=limit, timeout=timeout, **options)


def load_portfolio(colour: bool = False) -> float:
    """Load the portfolio's kernels and libraries once per process
    (:func:`nonosat.engines.load_engine`), so that a command can report that time apart from
    its own, as ``solve`` does; returns the seconds spent (0.0 when already loaded)."""
    from nonosat.engines import load_engine

    return load_engine(PORTFOLIO, colour=colour)


def remaining(timeout: float | None, start: float) -> float | None:
    """What is left of ``timeout`` seconds counted from ``start`` (a :func:`time.perf_counter`
    value): ``None`` for no limit, never below 0."""
    if timeout is None:
        return None
    return max(timeout - (time.perf_counter() - start), 0.0)
