"""Turn the paths given to a batch into ``(id, puzzle)`` pairs.

Files are read whole (multi-puzzle files give ``file#N`` ids, see
:func:`nonosat.formats.iter_puzzles`); directories are walked recursively in sorted order and
their files kept when their suffix belongs to one puzzle format only (``.non``, ``.xml``,
``.json``, ``.png``, ...: a damaged one is reported, never skipped silently), or, for a suffix several
formats share (``.txt``) or none claims, when a format's content sniffer recognises the content (so a
``README.txt`` beside tournament sets is skipped, not reported).  A file named on the command line
that cannot be read is an error; a file found in a directory that cannot be read (damaged, a FIFO
or device, over the size limit) is recorded as an error row and the batch goes on.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nonosat.errors import FormatError, NonosatError, one_line
from nonosat.formats import detect_format, formats, iter_puzzles
from nonosat.puzzle import Puzzle


@dataclass
class Inputs:
    """What :func:`collect_puzzles` found.

    Attributes
    ----------
    puzzles : list of (str, Puzzle)
        Every puzzle with its id, in input order, each id once.
    errors : list of dict
        ``{"id": path, "status": "unreadable", "error": message}`` per file found in a directory
        that could not be read.
    skipped : list of str
        Files in directories that are not puzzle files.
    """

    puzzles: list[tuple[str, Puzzle]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def collect_puzzles(paths: list[str | os.PathLike[str]], format: str | None = None) -> Inputs:
    """Every puzzle under ``paths`` (files and directories).

    Parameters
    ----------
    paths : list of path-like
        Puzzle files and directories.  Ids are the paths as given (relative paths stay relative),
        so rerunning from the same directory gives the same ids.
    format : str, optional
        Format of every file (``--format``); default: detected per file.

    Raises
    ------
    FormatError
        A path that does not exist, or a file named directly that cannot be read.
    """
    inputs = Inputs()
    seen: set[str] = set()

    def add(file: str, strict: bool) -> None:
        try:
            pairs = list(iter_puzzles(file, format))
        except NonosatError as exc:
            if strict:
                raise
            inputs.errors.append({"id": file, "status": "unreadable", "error": str(exc)})
            return
        except (Exception, RecursionError) as exc:  # a reader bug: one failed row, not a crash
            message = f"{one_line(file)}: unreadable ({type(exc).__name__}: {one_line(str(exc))})"
            if strict:
                raise FormatError(file, None, message.split(": ", 1)[1]) from None
            inputs.errors.append({"id": file, "status": "unreadable", "error": message})
            return
        for puzzle_id, puzzle in pairs:
            if puzzle_id not in seen:
                seen.add(puzzle_id)
                inputs.puzzles.append((puzzle_id, puzzle))

    for path in paths:
        p = Path(path)
        if p.is_dir():
            for file in _walk(p):
                if format is not None or _looks_like_puzzle(file):
                    add(str(file), strict=False)
                else:
                    inputs.skipped.append(str(file))
        elif p.exists():
            add(str(path), strict=True)
        else:
            raise FormatError(str(path), None, "no such file or directory")
    return inputs


def _walk(root: Path) -> list[Path]:
    """Files under ``root``, sorted, skipping hidden files and directories."""
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        files.extend(Path(dirpath, f) for f in sorted(filenames) if not f.startswith("."))
    return files


def _looks_like_puzzle(path: Path) -> bool:
    """Whether a file found in a directory is meant as a puzzle file: its suffix belongs to
    exactly one readable format (then a damaged file is reported, not skipped), or its content
    is recognised.  Never blocks: a FIFO or device is opened with ``O_NONBLOCK`` and, if its
    suffix says puzzle, reported by the reader as not a regular file."""
    suffix = path.suffix.lower()
    claimed = [f for f in formats().values() if suffix in f.suffixes and f.read is not None]
    if len(claimed) == 1:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return bool(claimed)  # let the reader report it
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return bool(claimed)
        head = os.read(fd, 4096)
    except OSError:
        return bool(claimed)
    finally:
        os.close(fd)
    try:
        fmt = detect_format(path, head)
    except FormatError:
        return False
    return fmt.sniff is None or fmt.sniff(head.removeprefix(b"\xef\xbb\xbf"))
