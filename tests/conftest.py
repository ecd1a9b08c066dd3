"""Shared fixtures: the shared corpus location and small hand-made puzzles.

Tests that need ``../shared/corpus`` use the ``corpus`` fixture: it skips with a reason when the
corpus is absent (a user's clone), and fails instead when ``NONOSAT_REQUIRE_CORPUS=1`` (CI), so CI
never skips them silently.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GAMES = REPO / "games"
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", REPO.parent / "shared" / "corpus"))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test``: ``-n 2``), compile the numba kernels once, in two
    processes side by side, before the workers start (``tests/warm_kernels.py``): on an empty
    cache both workers, and the CLI subprocesses their first tests start, would otherwise each
    compile the same kernels at once.  A plain run compiles what it uses, as before, and so
    does any run with ``NONOSAT_WARM_KERNELS=0`` (to compare the two)."""
    import subprocess
    import sys

    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    if os.environ.get("NONOSAT_WARM_KERNELS") == "0":
        return
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    halves = [subprocess.Popen([sys.executable, "-m", "tests.warm_kernels", half], cwd=REPO,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
              for half in ("native", "sat")]
    for proc in halves:
        try:
            proc.wait(timeout=300)
        except subprocess.TimeoutExpired:  # the tests compile what is left themselves
            proc.kill()
            proc.wait()


def corpus_path(*parts: str) -> Path:
    """Path under the shared corpus; skips (or fails under CI) when it is absent."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        reason = f"shared corpus not found at {path} (clone ../shared beside the repo)"
        if os.environ.get("NONOSAT_REQUIRE_CORPUS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture
def corpus() -> Path:
    """The shared corpus root (``../shared/corpus``)."""
    return corpus_path()


THIRD_PARTY = Path(os.environ.get("NONOSAT_THIRD_PARTY", REPO.parent / "shared" / "third_party"))


def _missing(reason: str) -> None:
    """Skip with ``reason`` on a user's machine; fail under CI (``CI=true``) or
    ``NONOSAT_REQUIRE_CORPUS=1``, where the independent checkers must run."""
    if os.environ.get("CI") == "true" or os.environ.get("NONOSAT_REQUIRE_CORPUS") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def proof_checkers() -> Path:
    """A directory holding ``drat-trim`` and ``cake_lpr`` built from ``../shared/third_party``
    with ``cc`` (once per source version, cached under ``~/.cache/nonosat-checkers``; safe
    under pytest-xdist: each build goes to a temporary name, then is renamed into place)."""
    import hashlib
    import shutil
    import subprocess
    import tempfile

    sources = {
        "drat-trim": [THIRD_PARTY / "drat-trim" / "drat-trim.c"],
        "cake_lpr": [THIRD_PARTY / "cake_lpr" / "basis_ffi.c", THIRD_PARTY / "cake_lpr" / "cake_lpr.S"],
    }
    flags = {"drat-trim": ["-O2"], "cake_lpr": ["-O2", "-std=c99"]}
    for files in sources.values():
        for f in files:
            if not f.exists():
                _missing(f"checker source {f} not found (clone ../shared beside the repo)")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        _missing("no C compiler (cc) to build drat-trim and cake_lpr")
    digest = hashlib.sha256()
    for files in sources.values():
        for f in files:
            digest.update(f.read_bytes())
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    out = cache / "nonosat-checkers" / digest.hexdigest()[:16]
    out.mkdir(parents=True, exist_ok=True)
    for name, files in sources.items():
        target = out / name
        if target.exists():
            continue
        with tempfile.TemporaryDirectory(dir=out) as tmp:
            built = Path(tmp) / name
            done = subprocess.run([cc, *flags[name], "-o", str(built), *map(str, files)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                _missing(f"building {name} failed: {done.stderr.strip()[-300:]}")
            os.replace(built, target)
    return out


#: Runs ``argv[2:]`` as its child and writes that child's peak RSS (KiB) to ``argv[1]``;
#: exits with the child's code.  On Linux a child's ``ru_maxrss`` starts at the RSS of the
#: process it was forked from (kept across ``exec``), so a pytest worker grown to 466 MB by
#: earlier in-process tests made every refusal look like 466 MB.  This small launcher (about
#: 10 MB) forks the command instead, so the figure is the command's own.
RSS_LAUNCHER = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[2], sys.argv[2:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
    "code = os.waitstatus_to_exitcode(status)\n"
    "sys.exit(code if code >= 0 else 128 - code)\n"
)


def random_implication_pairs(rng, h: int, w: int, n: int) -> list:
    """``n`` random implications ``((r, c, value), (r, c, value))`` between cells of an ``h`` x
    ``w`` grid (the tuple form the SAT hand-off takes), drawn from ``rng`` (a numpy
    ``Generator``: row, column and value of each literal in turn)."""

    def literal() -> tuple[int, int, bool]:
        return int(rng.integers(h)), int(rng.integers(w)), bool(rng.integers(2))

    return [(literal(), literal()) for _ in range(n)]


def pictures(low: int, high: int, widths: tuple[int, int] | None = None):
    """A hypothesis strategy of random black-and-white pictures: ``h`` lists of ``w`` bools,
    ``h`` in ``low..high`` and ``w`` in ``widths`` (default the same range)."""
    from hypothesis import strategies as st

    wlow, whigh = (low, high) if widths is None else widths
    return st.integers(low, high).flatmap(
        lambda h: st.integers(wlow, whigh).flatmap(
            lambda w: st.lists(st.lists(st.booleans(), min_size=w, max_size=w),
                               min_size=h, max_size=h)
        )
    )


def force_per_cell_checks(monkeypatch: pytest.MonkeyPatch) -> list:
    """Switch off the ambiguity map's guided witnesses and its "some candidate differs" query,
    leaving the per-cell checks alone; returns a list that grows by one per round of them
    (:func:`nonosat.analysis.backbone_phases._cell_checks` call)."""
    import nonosat.analysis.backbone_phases as amb

    calls: list = []
    real = amb._cell_checks
    monkeypatch.setattr(amb, "WITNESS_MAX_S", 0.0)
    monkeypatch.setattr(amb, "CHUNK_SHARE", 0.0)
    monkeypatch.setattr(amb, "_cell_checks", lambda *a: calls.append(1) or real(*a))
    return calls


@pytest.fixture(scope="session")
def warm_studio() -> float:
    """The studio's kernel warm-up (:func:`nonosat.studio.asgi.warm_up`), once per test process,
    as ``nonosat studio`` runs it before its first job: an app made by ``create_app()`` alone
    has each process's first requests load (or compile) the kernels inside their time limits,
    which a loaded machine stretches past them.  Returns the seconds it took."""
    from nonosat.studio.asgi import warm_up

    return warm_up()


@contextmanager
def cpu_clock() -> Iterator[None]:
    """Within the block, ``time.perf_counter()`` reads this thread's CPU time
    (:func:`time.thread_time`): the deadlines and time shares of code that works in the calling
    thread (the native kernels, CaDiCaL, the ambiguity map) then measure the work done, which
    other processes on a loaded machine do not shrink.  For tests that assert what a time limit
    leaves room for, or how far a bounded run overshoots it; nothing inside may *wait* on the
    clock (a sleep-and-poll loop would never see it advance).  Timers (``StopToken.arm``) keep
    the wall clock."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(time, "perf_counter", time.thread_time)
        yield


@pytest.fixture(autouse=True)
def _wide_reports(monkeypatch):
    """Reports wrap at ``$COLUMNS`` (80 in a pipe): tests that look for a phrase get wide
    reports, so that a long temporary path (``/tmp/pytest-of-…/popen-gw1/…``) does not wrap the
    phrase.  The tests of the wrapping itself (``test_cli_width.py``, the golden tests) remove
    ``COLUMNS`` and check the 80 columns."""
    monkeypatch.setenv("COLUMNS", "1000")
