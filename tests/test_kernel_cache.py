"""numba's kernel cache is stamped over every kernel source (nonosat.kernel_cache): an edit of a
callee's file makes the cached callers stale.  Before, numba stamped each kernel with its own
file only, and the cached search kernel went on running an edited propagate.py's old code."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from nonosat import kernel_cache
from nonosat.kernel_cache import KERNEL_FILES, source_stamp, stamp_of

PACKAGE = Path(kernel_cache.__file__).resolve().parent


def test_every_kernel_module_is_listed_and_stamped():
    kernel = re.compile(r"@njit\([^)]*cache=True")
    defining = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
                if kernel.search(p.read_text())}
    assert "native/search.py" in defining
    assert defining <= set(KERNEL_FILES), defining - set(KERNEL_FILES)
    for rel in defining:
        assert "stamp_module(globals())" in (PACKAGE / rel).read_text(), rel


def test_loaded_kernels_carry_the_stamp_of_all_sources():
    from nonosat.encodings import phases
    from nonosat.native import line, search

    for kernel in (search.search_kernel, line.line_kernel, phases._bp):
        assert kernel._cache._cache_file._source_stamp == source_stamp()


def test_stamp_changes_with_any_kernel_file(tmp_path):
    for rel in KERNEL_FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PACKAGE / rel, tmp_path / rel)
    before = stamp_of(tmp_path)
    assert stamp_of(tmp_path) == before
    target = tmp_path / "native" / "line.py"
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert stamp_of(tmp_path) != before


_PROBE = """
import nonosat
assert nonosat.__file__.startswith(%r)
from nonosat.native.propagate import propagate_grid
from nonosat.puzzle import Puzzle
# one 70-cell row: the multi-word line solver (lines over 62 cells), called from propagate's kernel
puzzle = Puzzle([(70,)], [(1,)] * 70)
print("contradiction" if propagate_grid(puzzle) is None else "solved")
"""


def test_editing_a_callee_file_recompiles_its_caller(tmp_path):
    """A copy of the package and its own cache: propagate (propagate.py) is cached with the
    multi-word line solver (line_words.py, lines over 62 cells) compiled in; line_words.py is
    then edited so that every long line contradicts, and the next run must see it without
    propagate.py changing."""
    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy / "nonosat", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(copy), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> str:
        # cwd: not the checkout, whose nonosat would come first on sys.path
        out = subprocess.run([sys.executable, "-c", _PROBE % str(copy)], env=env, capture_output=True,
                             text=True, timeout=600, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert run() == "solved"
    assert list((tmp_path / "cache").rglob("propagate.propagate-*.nbi")), "nothing was cached"
    line = copy / "nonosat" / "native" / "line_words.py"
    text = line.read_text()
    head = "def line_kernel_words(clue, cells, out, ws):"
    head_end = text.index("\n", text.index(head)) + 1
    line.write_text(text[:head_end] + "    return False\n" + text[head_end:])
    st = line.stat()  # a later modification time even on a coarse clock
    os.utime(line, ns=(st.st_atime_ns, max(st.st_mtime_ns, time.time_ns()) + 2_000_000_000))
    assert run() == "contradiction"


def test_the_proof_kernels_are_compiled():
    """The loops over every byte of a proof are numba kernels (a decorator lost in a move
    leaves a correct but ~25x slower Python loop that no other test notices)."""
    from nonosat.certificates import lrat_agree, lrat_check, lrat_read, lrat_store, proof_text, rup

    kernels = [lrat_read._cnf_lines, lrat_read._number, lrat_check._lrat_lines,
               lrat_store._compact, lrat_agree._added_lines, lrat_agree._trimmed,
               lrat_agree._materialised, rup._run_steps, rup._load, proof_text._renumber]
    plain = [k.__name__ for k in kernels if not hasattr(k, "py_func")]
    assert not plain, plain


def test_numba_imported_without_scipy_still_runs_kernels_and_scipy(tmp_path):
    """The CLI's numba import hides SciPy (kernel_cache.import_numba_without_scipy): numba and a
    kernel load without importing scipy.linalg, and SciPy imports normally afterwards."""
    code = (
        "import sys\n"
        "from nonosat.kernel_cache import import_numba_without_scipy\n"
        "assert import_numba_without_scipy()\n"
        "from nonosat.native.search import NativeSearch\n"
        "from nonosat.puzzle import Puzzle\n"
        "out = NativeSearch(Puzzle([(1,), (1,)], [(1,), (1,)]), limit=3).run()\n"
        "assert len(out.solutions) == 2 and out.finished\n"
        "assert 'scipy.linalg' not in sys.modules, 'numba imported scipy.linalg'\n"
        "import scipy.linalg\n"
        "assert scipy.linalg.det([[2.0]]) == 2.0\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
