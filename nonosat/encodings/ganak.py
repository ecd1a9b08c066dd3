"""Exact projected model counting of a CNF with Ganak (``pyganak``).

A puzzle with several solutions has as many solutions as its CNF encoding has models *projected
on the cell variables*: the auxiliary variables of a line encoding (block starts, automaton
states, at-most-one counters) are functions of the cells in some encodings but not in every one,
so the count of full models may differ from the count of pictures.  :func:`count_models` asks
Ganak [1]_ (through ``pyganak``, its Python binding, which runs Arjun's preprocessing first) for
the number of distinct assignments of a chosen set of variables (the *sampling set*) that extend
to a model of the formula.

The counter runs in a **child process** (``python -m nonosat.encodings.ganak``): ``pyganak``'s
``count()`` cannot be interrupted, prints progress lines on the standard output from C++, and is
new code to this project; in a child it is bounded by the time limit (the child is killed on
expiry), its output stays out of the caller's, a crash is an error rather than a dead process,
and its address space is limited to the memory limit (:func:`nonosat.limits.max_memory_bytes`).

The count is **not certified**: Ganak is an exact counter (no approximation), but its answer is
not accompanied by a checkable proof; nonosat checks counts against brute-force enumeration and
CP-SAT's enumeration in its tests only.

Adversarial findings about ``pyganak`` 2.8.0 that this module works around (tested in
``tests/test_count.py``): an empty clause is counted as satisfiable (a formula containing ``[]``
gets count 1), so a formula with an empty clause is answered 0 here without calling Ganak; a
sampling-set variable that no clause mentions is counted as free (a factor 2), which is right.

This module builds only on the CNF (lists of DIMACS clauses); it never imports the native solver.

References
----------
.. [1] S. Sharma, S. Roy, M. Soos, K. S. Meel, "GANAK: A Scalable Probabilistic Exact Model
   Counter", IJCAI 2019; M. Soos, K. S. Meel et al., Ganak 2 (2024-2025),
   https://github.com/meelgroup/ganak.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nonosat.errors import EngineError
from nonosat.stop import StopToken

#: How the counter is named in reports and JSON.
COUNTER_NAME = "ganak (pyganak)"


@dataclass(frozen=True)
class CountResult:
    """The outcome of :func:`count_models`.

    Attributes
    ----------
    count : int or None
        The exact projected model count, or ``None`` when the counter did not finish.
    exact : bool
        ``count`` is exact (the counter finished).
    time_s : float
        Wall-clock seconds, including the child process' start-up.
    reason : str
        Why there is no count (``"time limit"``, ``"memory limit"``, ...), else ``""``.
    counter : str
        :data:`COUNTER_NAME`.
    """

    count: int | None
    exact: bool
    time_s: float
    reason: str = ""
    counter: str = COUNTER_NAME


def _payload(clauses: Iterable[Sequence[int]], nvars: int, projection: Sequence[int]) -> bytes:
    """``nvars nproj proj... lits-with-0-terminators`` as ASCII integers."""
    parts = [str(nvars), str(len(projection)), " ".join(map(str, projection))]
    parts.extend(" ".join(map(str, clause)) + " 0" for clause in clauses)
    return "\n".join(parts).encode("ascii")


def count_models(
    clauses: Sequence[Sequence[int]],
    nvars: int,
    projection: Sequence[int] | None = None,
    *,
    timeout: float | None = None,
    stop: StopToken | None = None,
) -> CountResult:
    """The number of models of ``clauses`` projected on ``projection``.

    Parameters
    ----------
    clauses : sequence of sequence of int
        DIMACS clauses (nonzero literals; an empty clause makes the formula unsatisfiable).
    nvars : int
        Number of variables of the formula: variables ``1 .. nvars`` that no clause mentions are
        free (each doubles the count when it is projected on).
    projection : sequence of int, optional
        The sampling set (positive variables, at most ``nvars``); ``None`` counts over every
        variable ``1 .. nvars``.  An empty projection counts 1 for a satisfiable formula, 0 else.
    timeout : float, optional
        Seconds; the child process is killed on expiry and the result has ``count=None``.
    stop : StopToken, optional
        Polled every 20 ms: once set, the child process is killed and the result has
        ``count=None`` with the token's reason (a portfolio whose other counter finished).

    Returns
    -------
    CountResult

    Raises
    ------
    EngineError
        ``pyganak`` is not installed, a literal or projected variable is out of range, or the
        counter crashed.

    Examples
    --------
    >>> count_models([[1, 2]], 3, [1, 2]).count
    3
    """
    start = time.perf_counter()
    proj = list(range(1, nvars + 1)) if projection is None else [int(v) for v in projection]
    if any(v < 1 or v > nvars for v in proj):
        raise EngineError(f"projection variable out of range 1..{nvars}")
    for clause in clauses:
        if not clause:
            # pyganak counts a formula with an empty clause as satisfiable (module docstring)
            return CountResult(0, True, time.perf_counter() - start)
        if any(lit == 0 or abs(lit) > nvars for lit in clause):
            raise EngineError(f"clause {list(clause)[:8]} has a literal out of range 1..{nvars}")
    if timeout is not None and timeout <= 0:
        return CountResult(None, False, time.perf_counter() - start, "time limit")
    data = _payload(clauses, nvars, proj)
    from nonosat.limits import max_memory_bytes

    env = {**os.environ, "NONOSAT_COUNT_MEMORY": str(max_memory_bytes())}
    deadline = None if timeout is None else start + timeout
    with subprocess.Popen([sys.executable, "-m", "nonosat.encodings.ganak"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env) as proc:
        pending: bytes | None = data
        while True:
            wait = 0.02 if stop is not None else None
            if deadline is not None:
                left = max(deadline - time.perf_counter(), 0.0)
                wait = left if wait is None else min(wait, left)
            try:
                stdout, stderr = proc.communicate(pending, timeout=wait)
                break
            except subprocess.TimeoutExpired:
                pending = None  # the input is written once; later calls only wait
                why = ""
                if stop is not None and stop.is_set():
                    why = stop.reason
                elif deadline is not None and time.perf_counter() >= deadline:
                    why = "time limit"
                if why:
                    proc.kill()
                    proc.communicate()
                    return CountResult(None, False, time.perf_counter() - start, why)
        returncode = proc.returncode
    elapsed = time.perf_counter() - start
    out = stdout.decode("ascii", "replace").split()
    if returncode == 0 and len(out) == 2 and out[0] == "count" and out[1].isdigit():
        return CountResult(int(out[1]), True, elapsed)
    err = stderr.decode("utf-8", "replace").strip().splitlines()
    if returncode == 3:
        raise EngineError("the model counter is not available: pip install pyganak")
    if any("MemoryError" in line or "bad_alloc" in line for line in err):
        return CountResult(None, False, elapsed, "memory limit")
    last = err[-1][:200] if err else f"exit status {returncode}"
    raise EngineError(f"the model counter failed: {last}")


def _child() -> int:  # pragma: no cover - runs in the child process
    """Read the payload on stdin, count with pyganak, print ``count N`` on the real stdout."""
    real = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # Ganak's own progress lines ("c o ...") go nowhere
    limit = int(os.environ.get("NONOSAT_COUNT_MEMORY", "0"))
    if limit > 0:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):
            pass
    try:
        from pyganak import Counter
    except ImportError:
        return 3
    ints = sys.stdin.buffer.read().split()
    nvars, nproj = int(ints[0]), int(ints[1])
    proj = [int(v) for v in ints[2: 2 + nproj]]
    counter = Counter()
    if nvars:
        counter.new_vars(nvars)
    clause: list[int] = []
    batch: list[list[int]] = []
    for tok in ints[2 + nproj:]:
        lit = int(tok)
        if lit:
            clause.append(lit)
        else:
            batch.append(clause)
            clause = []
    counter.add_clauses(batch)
    counter.set_sampling_set(proj)
    result = counter.count()
    os.write(real, f"count {int(result)}\n".encode("ascii"))
    return 0


if __name__ == "__main__":  # pragma: no cover - the child process
    sys.exit(_child())
