"""Untrusted text made safe to print (bottom layer).

Titles, authors, colour names and file names come from files nonosat did not write.  Before any
of them reaches a terminal or a text report it goes through :func:`printable`, so that an escape
sequence, a bell, a carriage return or a bidirectional override in a puzzle's title shows as
visible characters instead of acting on the terminal.
"""

from __future__ import annotations

__all__ = ["printable", "printable_lines", "quoted"]


def printable(text: str) -> str:
    """``text`` with every non-printable character escaped visibly.

    Control characters (C0, DEL, C1), line and paragraph separators, format characters such as
    the bidirectional overrides (U+202E) and every other character that :meth:`str.isprintable`
    rejects become their Python escape (``\\x1b``, ``\\n``, ``\\u202e``); printable text,
    including non-ASCII letters, is unchanged.

    Parameters
    ----------
    text : str
        Untrusted text.

    Returns
    -------
    str
        One line of printable characters.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


def quoted(text: str) -> str:
    """``text`` made :func:`printable` and put in double quotes (an inner ``"`` or ``\\`` is
    escaped with a backslash), for reports that show text taken on trust: ``title "Heart"``."""
    inner = printable(text.replace("\\", "\\\\").replace('"', '\\"'))
    return f'"{inner}"'


def printable_lines(text: str) -> str:
    """``text`` with each of its lines made :func:`printable` (the line breaks kept), for a
    multi-line report of nonosat's own that holds untrusted pieces: the last guard at the point
    of printing.  A piece that may itself hold a line break is made :func:`printable` where it
    is put into the report, so that it cannot start a line of its own."""
    if text.isprintable():
        return text
    return "\n".join(printable(line) for line in text.split("\n"))
