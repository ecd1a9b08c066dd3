"""Ctrl-C and SIGTERM in every command (issue 25): exit 130 / 143 within about a second, no
traceback, no crash, no finding caused by the interrupt, no file half-written.

Each command runs as a ``nonosat`` process in a process group of its own on a puzzle that keeps
it busy (Faase, 80x95, from the shared corpus); once its handlers are installed (``SIGTERM``
caught, read from ``/proc``), the signal is sent to the whole group, as a terminal does, after a
random delay (seeded; the seed and the delay are in every failure message).  A longer run with
many interrupts per command is ``benchmarks/stress_interrupts.py``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import GAMES, corpus_path

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="needs Linux (/proc) and process groups")

#: Seconds from the signal to the exit that pass: the target is 1 s; a loaded CI machine (two
#: cores shared with other work) gets slack, never the 40 s of an unhandled interrupt.
LATENCY_LIMIT_S = 3.0

#: What a crash or an unhandled interrupt leaves on stderr.
CRASH_SIGNS = ("Traceback", "Segmentation fault", "double free", "corruption", "Aborted",
               "core dumped", "Fatal Python error", "Exception ignored", "KeyboardInterrupt")

#: What a finding caused by the interrupt would look like on stdout.
FALSE_FINDINGS = ("engine-error", "disagreement", "undecided", "Caught keyboard interrupt")

SEED = int(os.environ.get("NONOSAT_INTERRUPT_SEED", "25"))


def _caught_signals(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


def _ready(pid: int) -> bool:
    """Whether nonosat's handlers are installed in ``pid`` (SIGTERM is caught)."""
    return bool(_caught_signals(pid) & (1 << (signal.SIGTERM - 1)))


@dataclass
class Outcome:
    args: list[str]
    signum: int
    delay: float
    returncode: int | None
    latency: float
    stdout: str
    stderr: str
    finished_first: bool

    def describe(self) -> str:
        return (f"nonosat {' '.join(self.args)}: {signal.Signals(self.signum).name} after "
                f"{self.delay:.2f} s (seed {SEED}): exit {self.returncode} "
                f"{self.latency:.2f} s after the signal\nstdout: {self.stdout[-600:]!r}\n"
                f"stderr: {self.stderr[-1500:]!r}")


def interrupt(args: list[str], signum: int, delay: float, cwd: Path,
              ready_timeout: float = 60.0) -> Outcome:
    """Run ``nonosat ARGS`` in its own process group, send ``signum`` to the group ``delay``
    seconds after its handlers are installed, and wait for the exit."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[1])] + [p for p in env.get("PYTHONPATH", "")
                                                     .split(os.pathsep) if p])
    env.setdefault("NONOSAT_TIMEOUT", "0")
    proc = subprocess.Popen(
        [sys.executable, "-m", "nonosat", *args], cwd=cwd, env=env, start_new_session=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        give_up = time.monotonic() + ready_timeout
        while not _ready(proc.pid) and proc.poll() is None and time.monotonic() < give_up:
            time.sleep(0.005)
        try:
            proc.wait(delay)
            finished_first = True
        except subprocess.TimeoutExpired:
            finished_first = False
        sent = time.monotonic()
        if not finished_first:
            os.killpg(proc.pid, signum)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        latency = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return Outcome(args, signum, delay, proc.returncode, latency, out.decode(errors="replace"),
                   err.decode(errors="replace"), finished_first)


def check_outcome(outcome: Outcome, allowed_after_finish: tuple[int, ...] = ()) -> None:
    """The assertions every interrupted run must pass."""
    what = outcome.describe()
    if outcome.finished_first or outcome.returncode in allowed_after_finish:
        # done before the signal, or the signal came after its exit code was decided (it is
        # then ignored: never a death by the signal)
        assert outcome.returncode in allowed_after_finish, what
    else:
        expected = 128 + outcome.signum
        assert outcome.returncode == expected, what
        assert outcome.latency <= LATENCY_LIMIT_S, what
        assert "interrupted" in outcome.stderr, what
    for sign in CRASH_SIGNS:
        assert sign not in outcome.stderr, what
    for finding in FALSE_FINDINGS:
        assert finding not in outcome.stdout, what


def no_temporaries(directory: Path) -> list[str]:
    return [p.name for p in directory.rglob("*") if p.name.endswith(".nonosat-tmp")]


@pytest.fixture(scope="module")
def faase() -> Path:
    return corpus_path("FastNonogramSolver/puzzles/survey/faase.nin")


def _delays(name: str, count: int, low: float, high: float) -> list[float]:
    rng = random.Random(f"{SEED}:{name}")
    return [round(rng.uniform(low, high), 2) for _ in range(count)]


#: command -> arguments after the puzzle (``{out}`` is a fresh directory); each is busy on Faase
#: for many seconds (the SAT search that decides it takes ~20 s of CPU).
BUSY = {
    "solve": ["--json"],
    "certify": ["-o", "{out}/cert"],
    "crosscheck": ["--engines", "cpsat,sat"],
    "analyse": ["--json"],
    "hint": [],
    "explain": [],
    "render": ["--solution", "-o", "{out}/faase.png"],
    "verify": ["--claim", "unique", "-o", "{out}/witness"],
}


@pytest.mark.parametrize("command", sorted(BUSY))
def test_busy_command_interrupted(command: str, faase: Path, tmp_path: Path) -> None:
    """SIGINT at one random moment and SIGTERM at another, each to the process group."""
    for k, (signum, delay) in enumerate(zip((signal.SIGINT, signal.SIGTERM),
                                            _delays(command, 2, 0.0, 2.5), strict=True)):
        out = tmp_path / f"run{k}"
        out.mkdir()
        args = [command, str(faase)] + [a.format(out=out) for a in BUSY[command]]
        outcome = interrupt(args, signum, delay, out)
        check_outcome(outcome)
        assert outcome.stdout.strip() == "" or command != "solve", outcome.describe()
        assert no_temporaries(out) == [], outcome.describe()
        # whatever was written is complete: no partial target
        for path in out.rglob("*"):
            if path.suffix == ".json":
                json.loads(path.read_text())
            elif path.suffix == ".png":
                from PIL import Image

                with Image.open(path) as image:
                    image.verify()


def test_crosscheck_keeps_the_table_and_no_finding(tmp_path: Path) -> None:
    """A tournament file of 1000 puzzles: the first ones finish, then the run is interrupted;
    the table of what finished is printed and the run exits 130, with no finding."""
    tcga = corpus_path("NonogramRecord/question/tcga2012.txt")
    for delay in _delays("crosscheck-table", 1, 5.0, 6.0):
        outcome = interrupt(["crosscheck", str(tcga), "--engines", "native,sat"], signal.SIGINT,
                            delay, tmp_path)
        check_outcome(outcome)
        assert "interrupted after" in outcome.stderr, outcome.describe()
        assert "puzzle(s):" in outcome.stdout and "0 with findings" in outcome.stdout, \
            outcome.describe()


def test_batch_sigterm_keeps_rows_and_resumes(tmp_path: Path) -> None:
    """batch under SIGTERM (SIGINT is tested in test_cli_batch): exit 143, the rows written are
    whole lines, no 'crashed' row for a worker stopped by the signal."""
    survey = corpus_path("FastNonogramSolver/puzzles/survey")
    results = tmp_path / "results.jsonl"
    outcome = interrupt(["batch", str(survey), "-o", str(results), "-j", "2"], signal.SIGTERM,
                        _delays("batch", 1, 1.0, 2.0)[0], tmp_path)
    check_outcome(outcome)
    if results.exists():
        for line in results.read_text().splitlines():
            record = json.loads(line)
            assert record["status"] not in ("crashed", "killed", "error"), outcome.describe()


def test_encode_and_convert_never_half_written(tmp_path: Path, faase: Path) -> None:
    """Short writers: interrupted at a random moment, the target is whole or absent, and no
    temporary is left; a run that finished first exits 0."""
    for k, delay in enumerate(_delays("writers", 4, 0.0, 0.6)):
        target = tmp_path / f"faase{k}.cnf"
        args = ["encode", str(faase), "-o", str(target)] if k % 2 == 0 else \
            ["convert", str(faase), str(target.with_suffix(".non"))]
        signum = signal.SIGINT if k < 2 else signal.SIGTERM
        outcome = interrupt(args, signum, delay, tmp_path)
        check_outcome(outcome, allowed_after_finish=(0,))
        assert no_temporaries(tmp_path) == [], outcome.describe()
        if target.exists():
            header = target.read_text().splitlines()
            assert header and header[-1].endswith(" 0"), outcome.describe()


def test_formats_and_studio(tmp_path: Path) -> None:
    """formats (quick) and studio (a server waiting for requests)."""
    outcome = interrupt(["formats"], signal.SIGINT, 0.0, tmp_path)
    check_outcome(outcome, allowed_after_finish=(0,))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for signum in (signal.SIGINT, signal.SIGTERM):
        outcome = interrupt(["studio", str(GAMES), "--no-browser", "--port", str(port)],
                            signum, 1.0, tmp_path)
        check_outcome(outcome)


def test_analyse_prints_the_sections_that_finished(tmp_path: Path) -> None:
    """Ctrl-C during Knotty's analysis (its ambiguity map runs for minutes), after the verdict:
    the sections that finished are printed, the others marked interrupted, exit 130."""
    knotty = corpus_path("FastNonogramSolver/puzzles/survey/knotty.nin")
    # the kernels this needs, compiled (or loaded) before the clock starts
    warm = subprocess.run([sys.executable, "-m", "nonosat", "solve", str(knotty), "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 1, warm.stderr
    outcome = interrupt(["analyse", str(knotty)], signal.SIGINT, 6.0, tmp_path)
    check_outcome(outcome)
    what = outcome.describe()
    assert "classification: several solutions" in outcome.stdout, what
    assert "interrupted, not run:" in outcome.stdout, what
    assert "ambiguity map" in outcome.stdout.split("interrupted, not run:")[1], what


def test_usage_error_raised_in_a_command_stays_a_usage_error_during_an_interrupt() -> None:
    """typer 0.29 vendors click, so its ``BadParameter`` is not a ``click.ClickException``: the
    command wrapper must still pass it on to typer (exit 2 with its message) rather than turn it
    into the interrupt's exit code."""
    import typer

    from nonosat import interrupts
    from nonosat.cli.running import handle_errors

    @handle_errors
    def command() -> None:
        raise typer.BadParameter("bad value")

    interrupts.request(signal.SIGINT)
    try:
        with pytest.raises(typer.BadParameter, match="bad value"):
            command()
    finally:
        interrupts.reset()
