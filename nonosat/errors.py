"""Errors raised by nonosat.

Everything nonosat raises on purpose derives from :class:`NonosatError`; the CLI turns any of them
into one line on stderr and exit code 2 (bad input).  Nothing below the CLI prints or exits.
"""

from __future__ import annotations

from collections.abc import Iterable


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped (``\\n``, ``\\x1b``), so
    that an error message naming a file called ``"a\\nb.non"`` stays on one line."""
    from nonosat.text import printable

    return printable(text)


class NonosatError(Exception):
    """Base class of every error nonosat raises deliberately."""


class PuzzleError(NonosatError, ValueError):
    """Clues that cannot describe a puzzle: a clue that does not fit its line, row and column
    totals that disagree, a grid of the wrong shape.  The message names the line."""


class FormatError(NonosatError, ValueError):
    """A malformed or unsupported puzzle file.

    Parameters
    ----------
    path : str
        The file (or ``"<string>"``) being read.
    line : int or None
        1-based line number where the problem was found, when it has one.
    message : str
        What was expected and what was found.
    """

    def __init__(self, path: str, line: int | None, message: str):
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(one_line(f"{where}: {message}"))


class EngineError(NonosatError, RuntimeError):
    """An engine could not run (unknown name, missing optional dependency, internal failure)."""


class UndecidedError(EngineError):
    """An engine gave up (time limit) where the caller needs a decided answer, e.g.
    :func:`nonosat.analysis.hints.find_mistakes` asked whether a grid state has a solution."""


class ProverRefusedError(EngineError):
    """The prover asked for cannot prove this puzzle alone (``--prover native`` on a puzzle the
    native solver decides only by search).  Not bad input: ``certify`` exits 5 for it."""


class InvalidSolutionError(EngineError):
    """An engine returned a grid that breaks the clues: an engine bug, never a verdict.  The
    message names the engine and the first failing line."""


def check_known(name: str, known: Iterable[str], what: str,
                error: type[NonosatError] = EngineError) -> str:
    """Return ``name`` if it is one of ``known``: the one check, and the one message, for every
    name a user picks from a list (engines, provers, encodings, proof checkers, batch jobs).

    Parameters
    ----------
    name : str
    known : iterable of str
        The names, in the order the message lists them.
    what : str
        What the names name: the message is ``unknown WHAT 'NAME'; choose one of A, B, ...``.
    error : type
        The :class:`NonosatError` to raise (:class:`EngineError` by default).

    Raises
    ------
    NonosatError
        ``error``, when ``name`` is not in ``known``.
    """
    names = list(known)
    if name not in names:
        raise error(f"unknown {what} {name!r}; choose one of {', '.join(names)}")
    return name
