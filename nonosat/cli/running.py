"""Running a command: errors as one line and an exit code, the time limit (a watchdog that ends
a compiled step which overruns it), and the notice that the kernels are being compiled.

:func:`handle_errors` wraps every command function; the state it keeps for the running command
(:data:`HARD_TIME_LIMIT`, :data:`OVERRUN_REPORT`) lives here.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import click
import typer

from nonosat import interrupts, lazy_jit
from nonosat.cli import signals
from nonosat.cli.click_style import _click_exceptions
from nonosat.cli.exits import EXIT_GAVE_UP, EXIT_INTERRUPTED, fail
from nonosat.cli.options import command_timeout
from nonosat.cli.output import WARNINGS, start_clock
from nonosat.errors import NonosatError
from nonosat.limits import command_workload, workload

_TYPER_CLICK = _click_exceptions()  # typer 0.29 vendors click: its exceptions are not click's

P = ParamSpec("P")
R = TypeVar("R")



#: Set by :func:`nonosat.cli.app.main` (a real ``nonosat`` process, not a command run
#: in-process by tests): the time limit is then also enforced by :func:`_watchdog`.
HARD_TIME_LIMIT = False

#: Commands whose whole run the watchdog bounds, by ``module.function``: how many times the
#: ``--timeout`` the command may use by design (stages that each get the limit: render's
#: ambiguity witnesses after the solve, the checkers of verify-certificate one after another;
#: analyse's sections share one deadline, :func:`nonosat.analysis.difficulty.analyse`).
#: Commands not listed (crosscheck: the
#: limit is per puzzle and engine) are not bounded as a whole.
HARD_STOP_STAGES = {
    "nonosat.cli.solve.solve_command": 1,
    "nonosat.cli.hint.hint_command": 1,
    "nonosat.cli.explain.explain_command": 1,
    "nonosat.cli.certify.certify_command": 1,
    "nonosat.cli.certify.verify_command": 3,
    "nonosat.cli.render.render_command": 2,
    "nonosat.cli.verify.verify_command": 2,
    "nonosat.cli.analyse.analyse_command": 1,
}


#: Set by a command that can report what it finished (``analyse``): called by :func:`_watchdog`
#: before it ends the process, its text (if any) is printed on stdout first, so that an overrun
#: keeps the finished part of the command's output.
OVERRUN_REPORT: Callable[[], str | None] | None = None


#: Seconds the running command spent on work its time limit does not count (loading the
#: engine's compiled kernels and libraries, reading the puzzle: :func:`excuse`); the watchdog
#: grants them on top of the limit before it stops the process.
_EXCUSED = [0.0]


def excuse(seconds: float) -> None:
    """Tell the watchdog (:func:`_watchdog`) that ``seconds`` of the command's time went to work
    its time limit does not count (loading an engine), so that it stops the process that much
    later."""
    _EXCUSED[0] += max(seconds, 0.0)


#: Command name of each command function (``module.function``), for its ``--timeout`` default
#: (:data:`nonosat.cli.options.TIMEOUT_DEFAULTS`).
COMMAND_NAMES = {
    "nonosat.cli.solve.solve_command": "solve",
    "nonosat.cli.hint.hint_command": "hint",
    "nonosat.cli.explain.explain_command": "explain",
    "nonosat.cli.certify.certify_command": "certify",
    "nonosat.cli.certify.verify_command": "verify-certificate",
    "nonosat.cli.render.render_command": "render",
    "nonosat.cli.verify.verify_command": "verify",
    "nonosat.cli.analyse.analyse_command": "analyse",
    "nonosat.cli.crosscheck.crosscheck_command": "crosscheck",
    "nonosat.cli.batch.batch_command": "batch",
    "nonosat.cli.generate.generate_command": "generate",
}


def _watchdog(limit: float) -> Any:
    """A daemon timer that ends the process with exit 4 and one line on stderr when the command
    is still running ``max(5, limit / 4)`` seconds past ``limit`` seconds (its time limit times
    its :data:`HARD_STOP_STAGES`): a compiled step that cannot be interrupted (one root node of
    native probing on a random 1000x1000 grid ran for minutes past a 5 s limit) must not run
    without bound.  The compiled kernels release the GIL, so the timer thread runs while they
    do."""
    import os
    import threading

    grace = max(5.0, limit / 4)
    _EXCUSED[0] = 0.0
    granted = [0.0]

    def overrun() -> None:
        extra = _EXCUSED[0] - granted[0]
        if extra > 0.01:  # time the limit does not count (loading): allow it, then look again
            granted[0] += extra
            again = threading.Timer(extra, overrun)
            again.daemon = True
            again.start()
            timers.append(again)
            return
        try:
            report = None
            if OVERRUN_REPORT is not None:
                try:
                    report = OVERRUN_REPORT()
                except Exception:  # noqa: BLE001 - the error line below is what matters
                    report = None
            if report:
                sys.stdout.write(report + "\n")
                sys.stdout.flush()
            sys.stderr.write(
                f"nonosat: error: gave up {grace:g} s past the time limit of {limit:g} s "
                "(--timeout)\n"
            )
            sys.stderr.flush()
        finally:
            os._exit(EXIT_GAVE_UP)

    timers: list[Any] = []
    timer = threading.Timer(limit + grace, overrun)
    timer.daemon = True
    timer.start()
    timers.append(timer)
    return _Timers(timers)


class _Timers:
    """The watchdog's timers (the first, and those re-armed for excused time): ``cancel`` stops
    them all."""

    def __init__(self, timers: list[Any]) -> None:
        self.timers = timers

    def cancel(self) -> None:
        for timer in list(self.timers):
            timer.cancel()


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Decorator for commands: a :class:`NonosatError` becomes one line on stderr and exit 2,
    never a traceback.  ``KeyboardInterrupt`` (and :class:`nonosat.interrupts.Interrupted`)
    exits 130 (143 after ``SIGTERM``), as does any error raised after an interrupt.  A
    ``timeout`` not given takes the default of :func:`nonosat.limits.default_timeout` (``0``: none), in a ``nonosat`` process
    enforced by :func:`_watchdog` as well, and the memory estimate checks the command's kind of
    work (:func:`nonosat.limits.command_workload`).  Whatever the command runs, numba starting
    to compile a kernel says :data:`COMPILE_NOTICE` (:func:`announce_compile`, registered to
    run when numba is activated)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        global OVERRUN_REPORT
        timer = None
        WARNINGS.clear()
        OVERRUN_REPORT = None
        start_clock()
        try:
            command = COMMAND_NAMES.get(f"{func.__module__}.{func.__name__}")
            if "timeout" in kwargs and command is not None:
                if kwargs.get("results"):
                    command = "verify --results"
                given = kwargs["timeout"]
                assert given is None or isinstance(given, int | float)  # --timeout's value
                limit = command_timeout(given, command)
                kwargs["timeout"] = limit
                stages = HARD_STOP_STAGES.get(f"{func.__module__}.{func.__name__}")
                if HARD_TIME_LIMIT and stages and limit is not None \
                        and command != "verify --results":
                    timer = _watchdog(stages * limit)
            # whichever engine or kernel the command reaches: the notice when numba compiles
            with workload(command_workload(func.__name__, kwargs)), \
                    lazy_jit.activation_hook(announce_compile):
                return func(*args, **kwargs)
        except (typer.Exit, click.exceptions.ClickException, click.exceptions.Abort,
                typer.Abort, _TYPER_CLICK.ClickException):
            raise  # typer's own exits and usage errors, whichever click raised them
        except KeyboardInterrupt as exc:  # also nonosat.interrupts.Interrupted
            signals.announce()
            raise typer.Exit(getattr(exc, "exit_code", EXIT_INTERRUPTED)) from None
        except Exception as exc:
            if interrupts.requested():  # whatever failed on the way out of an interrupt
                signals.announce()
                raise typer.Exit(128 + interrupts.requested()) from None
            if isinstance(exc, NonosatError):
                raise fail(str(exc)) from None
            raise
        finally:
            if timer is not None:
                timer.cancel()

    return wrapper


#: What a command says on stderr when numba starts compiling (:func:`announce_compile`).
COMPILE_NOTICE = "nonosat: compiling the solver kernels (first run only; cached afterwards) ..."
_notice_registered = False


def announce_compile() -> None:
    """Import numba (SciPy kept out) and say :data:`COMPILE_NOTICE` on stderr, once, when numba
    starts compiling a kernel, so that a first run does not appear to hang; a run that loads
    every kernel it uses from numba's on-disk cache says nothing.

    The notice follows numba's ``numba:compile`` event, which a dispatcher sends only for a
    signature its cache does not hold, so it appears when and only when something compiles:
    the search at the start, the hand-off's kernels (the order encoding's build, the
    belief-propagation phases) only if the puzzle reaches SAT.  (It used to be decided from the
    cache files at the start, and was printed whenever the hand-off's kernels were not cached,
    even for a puzzle that never reached SAT.)  The event covers the colour kernels as well."""
    global _notice_registered
    from nonosat.kernel_cache import import_numba_without_scipy

    import_numba_without_scipy()  # the first numba import of a command: SciPy stays out of it
    if _notice_registered:
        return
    _notice_registered = True
    from numba.core import event

    class _Notice(event.Listener):
        said = False

        def on_start(self, ev: Any) -> None:
            if not self.said:
                self.said = True
                typer.echo(COMPILE_NOTICE, err=True)

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _Notice())
