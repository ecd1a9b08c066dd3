"""Kernels import numba only when one runs compiled, and a small puzzle that line solving
finishes is solved by the same kernels run as Python (nonosat.lazy_jit; issue 27: start-up of
``nonosat solve``).

A child process, in which numba is never imported, runs the interpreted kernels on generated
puzzles; this process (numba loaded) runs the compiled ones on the same puzzles and compares
every counter, deduction and result, and the verdicts with the SAT engine's (an independent
engine)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from nonosat.engines import Status, get_engine
from nonosat.engines import solve as engine_solve
from nonosat.native.stepping import Stepper
from nonosat.puzzle import Puzzle
from tests.conftest import GAMES, REPO

#: Generated puzzles: (seed, height, width, density, with givens).
CASES = [(seed, 4 + seed % 17, 4 + (seed * 7) % 15, (0.35, 0.55, 0.7, 0.8)[seed % 4], seed % 5 == 0)
         for seed in range(48)]


def _puzzle(seed: int, h: int, w: int, density: float, givens: bool
            ) -> tuple[Puzzle, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    picture = rng.random((h, w)) < density
    partial = None
    if givens:  # a few cells of the picture given (1 empty, 2 filled), the rest unknown (3)
        partial = np.where(rng.random((h, w)) < 0.15, np.where(picture, 2, 1), 3).astype(np.int8)
    return Puzzle.from_picture(picture), partial


_CHILD = r"""
import json, sys
import numpy as np
from tests.test_lazy_jit import CASES, _puzzle
from nonosat import lazy_jit
from nonosat.engines import _solved_interpreted
from nonosat.native import search
from nonosat.native.stepping import Stepper

out = {"cases": []}
assert isinstance(search.search_kernel, lazy_jit.LazyKernel)
lazy_jit.allow_interpreted(10_000)
for case in CASES:
    puzzle, partial = _puzzle(*case)
    with lazy_jit.interpreted():
        s = Stepper(puzzle)
        if partial is not None:
            s.give(partial)
        d = s.propagate()
    row = {"grid": s.flat.tolist(), "counters": s.counters().tolist(),
           "deductions": None if d is None else [d.cells.tolist(), d.kinds.tolist(),
                                                 d.args.tolist()],
           "results": []}
    for engine in ("auto", "native"):
        for limit in (1, 2):
            r = _solved_interpreted(puzzle, engine, partial, limit, None, {}, {})
            row["results"].append(None if r is None else {
                "status": r.status.value, "engine": r.engine,
                "solutions": [x.astype(int).tolist() for x in r.solutions],
                "stats": {k: v for k, v in r.stats["native"].items() if k != "kernel_s"}
                         if engine == "auto" else
                         {k: v for k, v in r.stats.items() if k != "kernel_s"},
                "trace": [[list(x.cell), int(x.value), x.stage, x.line]
                          for x in r.trace.deductions]})
    out["cases"].append(row)
try:
    with lazy_jit.interpreted(0.0):
        Stepper(_puzzle(*CASES[0])[0]).propagate()
    out["out_of_time"] = False
except lazy_jit.OutOfTime:
    out["out_of_time"] = True
out["numba_before"] = "numba" in sys.modules
sig = search.search_kernel.signatures  # a numba attribute: activates numba
from nonosat.native import probe, propagate
out["numba_after"] = "numba" in sys.modules
out["rebound"] = (type(search.search_kernel).__name__, type(probe.propagate).__name__,
                  probe.propagate is propagate.propagate)
lazy_jit.make_all()  # what numba's first compile in a process does
out["all_made"] = (type(probe.propagate).__name__, probe.propagate is propagate.propagate)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def child() -> dict:
    run = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         timeout=300, cwd=REPO)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _propagated(case: tuple) -> tuple[Puzzle, np.ndarray | None, Stepper, Any]:
    """The case's puzzle and givens, a compiled stepper given them and propagated, and what
    propagation deduced (``None``: a contradiction)."""
    puzzle, partial = _puzzle(*case)
    s = Stepper(puzzle)
    if partial is not None:
        s.give(partial)
    return puzzle, partial, s, s.propagate()


def test_interpreted_line_solving_matches_the_compiled(child):
    line_solved = 0
    for case, row in zip(CASES, child["cases"], strict=True):
        _, _, s, d = _propagated(case)
        assert row["grid"] == s.flat.tolist(), case
        assert row["counters"] == s.counters().tolist(), case
        assert row["deductions"] == (None if d is None else [d.cells.tolist(), d.kinds.tolist(),
                                                              d.args.tolist()]), case
        line_solved += d is not None and not s.open_cells().size
    assert 10 <= line_solved <= len(CASES) - 10  # both kinds of puzzle were tried


def test_interpreted_results_are_the_compiled_engines(child):
    decided = 0
    for case, row in zip(CASES, child["cases"], strict=True):
        puzzle, partial, s, d = _propagated(case)
        solved = d is not None and not s.open_cells().size
        results = iter(row["results"])
        for engine in ("auto", "native"):
            for limit in (1, 2):
                got = next(results)
                if not solved:  # not finished by line solving: the compiled path decides
                    assert got is None, case
                    continue
                decided += 1
                r = get_engine(engine).solve(puzzle, partial=partial, limit=limit)
                stats = r.stats["native"] if engine == "auto" else r.stats
                assert got == {
                    "status": r.status.value, "engine": r.engine,
                    "solutions": [x.astype(int).tolist() for x in r.solutions],
                    "stats": {k: v for k, v in stats.items() if k != "kernel_s"},
                    "trace": [[list(x.cell), int(x.value), x.stage, x.line]
                              for x in r.trace.deductions]}, (case, engine, limit)
                # an independent engine agrees: line solved to the end means unique
                sat = engine_solve(puzzle, "sat", partial=partial, limit=limit)
                assert got["status"] == sat.status.value, (case, engine, limit)
                assert got["status"] == (Status.UNIQUE if limit == 2 else Status.SOLVED).value
    assert decided >= 40


def test_kernels_stay_lazy_until_a_compiled_use(child):
    assert child["out_of_time"]
    assert not child["numba_before"]
    assert child["numba_after"]
    # the kernel used is made and put in place; a kernel not used is not made (a dispatcher
    # costs its making and a cache directory check) until numba compiles something
    assert child["rebound"] == ["CPUDispatcher", "LazyKernel", True]
    assert child["all_made"] == ["CPUDispatcher", True]


_CLI = r"""
import sys
from typer.testing import CliRunner
from nonosat.cli.app import app
if sys.argv[1] == "compiled":
    from nonosat import lazy_jit
    lazy_jit.activate()
r = CliRunner().invoke(app, ["solve", sys.argv[2], "--engine", sys.argv[3]])
print(r.output)
print("numba" in sys.modules, r.exit_code)
"""


def test_solve_of_a_line_solvable_game_loads_no_numba():
    """``nonosat solve games/heart.non`` never imports numba, and prints what the compiled path
    prints (but the engine's time)."""
    engine = "auto"
    heart = str(GAMES / "heart.non")

    def run(mode: str) -> str:
        out = subprocess.run([sys.executable, "-c", _CLI, mode, heart, engine],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return re.sub(r"\[native, [0-9.]+ s[^\]]*\]", "[native, T]", out.stdout)

    interpreted, compiled = run("interpreted"), run("compiled")
    assert interpreted.endswith("False 0\n"), interpreted
    assert compiled.endswith("True 0\n"), compiled
    assert interpreted.replace("False 0\n", "") == compiled.replace("True 0\n", "")
    assert "line-solvable" in interpreted


_COMPILE = r"""
import sys
import numpy as np
from nonosat import lazy_jit
from nonosat.native import line_bits
line_bits.line_kernel_bits  # noqa: B018  (the module's kernels, lazy)
assert isinstance(line_bits.line_masks, lazy_jit.LazyKernel)
clue = np.array([2, 1], dtype=np.int32)
cells = np.full(5, 3, dtype=np.int8)
out = np.zeros(5, dtype=np.int8)
ok = line_bits.line_kernel_bits(clue, cells, out, np.zeros(2, dtype=np.int64))
print(ok, out.tolist(), type(line_bits.line_masks).__name__, type(line_bits._shl).__name__,
      dict(line_bits.line_kernel_bits._cache_misses) != {})
"""


def test_a_kernel_compiled_with_lazy_callees(tmp_path):
    """A kernel compiled (an empty numba cache) while its callees are still lazy: numba's
    compile event makes every kernel first, so the compile finds dispatchers among the kernel's
    globals (lazy_jit.make_all).  The line [2 1] on 5 cells: cell 0 may be either, cell 1
    filled, the rest open."""
    import os

    run = subprocess.run([sys.executable, "-c", _COMPILE], capture_output=True, text=True,
                         timeout=300, cwd=REPO, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    ok, rest = run.stdout.split(" ", 1)
    assert ok in ("True", "1"), run.stdout
    assert rest.strip() == "[3, 2, 3, 3, 3] CPUDispatcher CPUDispatcher True", run.stdout
