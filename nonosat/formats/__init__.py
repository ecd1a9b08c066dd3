"""Puzzle file formats: a small registry, one module per format.

Each format module defines a module-level ``FORMAT = Format(...)``; the registry imports the
modules listed in :data:`FORMAT_MODULES` on first use.  A format is chosen by the ``format``
argument (``--format`` on the command line), else by the file's suffix, else by sniffing the
first bytes of the content.  Adding a format is one module plus one line here.

Every reader takes the file's bytes and its path (for error messages) and returns a list of
puzzles (most formats hold one; tournament sets and CSV files hold many).  Readers raise
:class:`nonosat.errors.FormatError` naming the file and line; they never print.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from nonosat.errors import FormatError, NonosatError
from nonosat.limits import check_memory, size_limits
from nonosat.safe_io import atomic_write, read_bounded

if TYPE_CHECKING:  # the model (numpy) is imported by the readers, not by `--help`
    from nonosat.puzzle import Puzzle

#: Modules defining a ``FORMAT``; order matters for sniffing (first match wins).
FORMAT_MODULES: tuple[str, ...] = (
    "nonosat.formats.webpbn_xml",
    "nonosat.formats.davidje13_json",
    "nonosat.formats.short_codes",
    "nonosat.formats.davidje13_csv",
    "nonosat.formats.tournament",
    "nonosat.formats.non",
    "nonosat.formats.mk",  # before nin: both start with two numbers, mk has a '#' line
    "nonosat.formats.olsak",
    "nonosat.formats.nin",
    "nonosat.formats.cwd",
    "nonosat.formats.picross_native",
    "nonosat.formats.pbm",
    "nonosat.formats.pixels",
    "nonosat.formats.picture",  # last: the loosest sniffing
)

Reader = Callable[[bytes, str], "list[Puzzle]"]
Writer = Callable[["Puzzle"], bytes]
Sniffer = Callable[[bytes], bool]


@dataclass(frozen=True)
class Format:
    """A puzzle file format.

    Attributes
    ----------
    name : str
        Short name used by ``--format`` / ``--to`` (``"non"``, ``"webpbn"``, ...).
    suffixes : tuple of str
        Lower-case file suffixes including the dot (``(".non",)``).
    description : str
        One line for ``--help`` and ``nonosat formats``.
    read : callable(data: bytes, path: str) -> list[Puzzle], optional
    write : callable(puzzle) -> bytes, optional
        Writers of single-puzzle formats; multi-puzzle formats may also define ``write_many``.
    write_many : callable(list[Puzzle]) -> bytes, optional
    sniff : callable(head: bytes) -> bool, optional
        Whether the first 4 KiB look like this format (used when the suffix is not known).
    multi : bool
        Whether a file may hold several puzzles.
    stores_picture : bool
        Whether the format stores the picture rather than the clues (text grids, PBM, PNG): its
        writer needs the puzzle's ``goal``.
    colour : bool
        Whether the writer can hold colour puzzles; writing a colour puzzle to a format without
        it is refused with a clear error.
    stores_givens : bool
        Whether the format holds a puzzle's givens (:mod:`nonosat.formats.givens`); other
        writers drop them (the studio then saves a ``--state`` grid beside the file).
    """

    name: str
    suffixes: tuple[str, ...]
    description: str
    read: Reader | None = None
    write: Writer | None = None
    write_many: Callable[[list[Puzzle]], bytes] | None = None
    sniff: Sniffer | None = None
    multi: bool = False
    stores_picture: bool = False
    colour: bool = False
    stores_givens: bool = False


_REGISTRY: dict[str, Format] | None = None


def formats() -> dict[str, Format]:
    """All registered formats by name (imports the format modules on first call)."""
    global _REGISTRY
    if _REGISTRY is None:
        registry: dict[str, Format] = {}
        for module_name in FORMAT_MODULES:
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name == module_name:  # format not written yet
                    continue
                raise
            fmt: Format = module.FORMAT
            registry[fmt.name] = fmt
        _REGISTRY = registry
    return _REGISTRY


def get_format(name: str) -> Format:
    """The format called ``name``.

    Raises
    ------
    FormatError
        Unknown name; the message lists the known ones.
    """
    try:
        return formats()[name]
    except KeyError:
        known = ", ".join(sorted(formats()))
        raise FormatError("--format", None, f"unknown format {name!r}; known: {known}") from None


def detect_format(path: str | os.PathLike[str], head: bytes | None = None) -> Format:
    """Choose the format of ``path`` by suffix, then by sniffing ``head`` (its first bytes,
    after a UTF-8 byte order mark).

    Raises
    ------
    FormatError
        Neither the suffix nor the content identify a known format.
    """
    if head is not None:
        head = head.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark says nothing
    suffix = Path(path).suffix.lower()
    claimed = [f for f in formats().values() if suffix in f.suffixes and f.read is not None]
    if len(claimed) == 1:
        return claimed[0]
    if claimed and head is not None:  # a shared suffix (.txt): let the content decide
        for fmt in claimed:
            if fmt.sniff is not None and fmt.sniff(head):
                return fmt
    if head is not None:
        for fmt in formats().values():
            if fmt.sniff is not None and fmt.read is not None and fmt.sniff(head):
                return fmt
    raise FormatError(
        str(path), None, "cannot tell the puzzle format from the name or content; use --format"
    )


#: White space other than the space (line breaks of every kind, TAB, U+2028, ...) and NUL.
_BREAKS = re.compile(r"[^\S ]+|\x00+")


def one_line_text(text: str) -> str:
    """``text`` as a line-based format writes a title, author, copyright or licence: each run
    of white space other than spaces (line breaks of every kind, TABs, U+2028, ...) and of NULs
    becomes one space, so that the text stays on its line and reads back the same.  Every other
    character, controls included, is written as it is (a file is not a terminal; nonosat
    escapes text where it prints it: :mod:`nonosat.text`).

    >>> one_line_text("Two\r\nlines,\ta tab and  two spaces")
    'Two lines, a tab and  two spaces'
    """
    return _BREAKS.sub(" ", text)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a puzzle file, refusing missing files, directories, FIFOs, devices and files over
    the size limit (:func:`nonosat.limits.size_limits`), without ever blocking
    (:func:`nonosat.safe_io.read_bounded`).

    Raises
    ------
    FormatError
    """
    return read_bounded(path, size_limits().max_file_bytes, "puzzle file")


def read_puzzles(path: str | os.PathLike[str], format: str | None = None) -> list[Puzzle]:
    """Every puzzle in the file at ``path``.

    Each puzzle is checked against the size limit and the memory estimate
    (:mod:`nonosat.limits`); the readers check the size limit themselves while parsing, before
    they allocate.

    Raises
    ------
    FormatError
        Missing, unreadable, non-regular, too large, unrecognised or malformed file (message
        names file and line); a puzzle over the limits.
    PuzzleError
        Clues that cannot describe a puzzle (re-raised as FormatError naming the file).
    """
    data = read_bytes(path)
    fmt = get_format(format) if format else detect_format(path, data[:4096])
    if fmt.read is None:
        raise FormatError(str(path), None, f"format {fmt.name!r} cannot be read")
    try:
        puzzles = fmt.read(data, str(path))
    except FormatError:
        raise
    except NonosatError as exc:
        raise FormatError(str(path), None, str(exc)) from None
    except RecursionError:
        raise FormatError(str(path), None, f"nested too deeply for a {fmt.name} file") from None
    except MemoryError:
        raise FormatError(str(path), None, "too large to read (out of memory)") from None
    except (ValueError, LookupError, OverflowError, TypeError) as exc:
        # A reader met input it did not foresee: still one line naming the file, never a
        # traceback (the fuzzing tests look for these).
        raise FormatError(
            str(path), None, f"malformed {fmt.name} file ({type(exc).__name__}: {exc})"
        ) from None
    if not puzzles:
        raise FormatError(str(path), None, "the file holds no puzzle")
    limits = size_limits()
    for puzzle in puzzles:
        limits.check_cells(puzzle.width, puzzle.height, str(path))
        check_memory(puzzle, str(path))
    return puzzles


def read_puzzle(
    path: str | os.PathLike[str], format: str | None = None, index: int | None = None
) -> Puzzle:
    """The puzzle at ``path``; for multi-puzzle files, the one numbered ``index`` (the ``$N`` of a
    tournament set, the 1-based row of a CSV file).

    Raises
    ------
    FormatError
        As :func:`read_puzzles`; also a multi-puzzle file without ``index``, or an ``index`` the
        file does not hold.
    """
    puzzles = read_puzzles(path, format)
    if index is None:
        if len(puzzles) > 1:
            raise FormatError(
                str(path), None, f"the file holds {len(puzzles)} puzzles; pick one with --index N"
            )
        return puzzles[0]
    for position, puzzle in enumerate(puzzles, start=1):
        if (puzzle.number if puzzle.number is not None else position) == index:
            return puzzle
    raise FormatError(str(path), None, f"no puzzle numbered {index} in the file")


def puzzle_id(path: str | os.PathLike[str], puzzle: Puzzle, multi: bool) -> str:
    """Stable id of a puzzle: the path, plus ``#N`` for puzzle N of a multi-puzzle file."""
    return f"{path}#{puzzle.number}" if multi and puzzle.number is not None else str(path)


def iter_puzzles(
    path: str | os.PathLike[str], format: str | None = None
) -> Iterator[tuple[str, Puzzle]]:
    """``(id, puzzle)`` for every puzzle in the file (ids as :func:`puzzle_id`)."""
    puzzles = read_puzzles(path, format)
    multi = len(puzzles) > 1
    for position, puzzle in enumerate(puzzles, start=1):
        if multi and puzzle.number is None:
            puzzle = _with_number(puzzle, position)
        yield puzzle_id(path, puzzle, multi), puzzle


def _with_number(puzzle: Puzzle, number: int) -> Puzzle:
    from dataclasses import replace

    return replace(puzzle, number=number)


def writer_format(path: str | os.PathLike[str], format: str | None = None) -> Format:
    """The format to write ``path`` in: ``format`` if given, else the one writable format that
    claims the path's suffix.

    Raises
    ------
    FormatError
        Unknown or read-only format, no writable format (or several) for the suffix.
    """
    p = Path(path)
    if format:
        fmt = get_format(format)
    else:
        suffix = p.suffix.lower()
        matches = [f for f in formats().values() if suffix in f.suffixes and f.write]
        if not matches:
            raise FormatError(
                str(p), None, f"no writable format has the suffix {suffix!r}; use --to"
            )
        if len(matches) > 1:
            names = ", ".join(f.name for f in matches)
            raise FormatError(
                str(p), None, f"several formats use {suffix!r} ({names}); pick one with --to"
            )
        fmt = matches[0]
    if fmt.write is None:
        raise FormatError(str(p), None, f"format {fmt.name!r} cannot be written")
    return fmt


def encode_puzzles(puzzles: list[Puzzle], fmt: Format, path: str = "<output>") -> bytes:
    """The bytes of ``puzzles`` in ``fmt`` (several puzzles need a multi-puzzle format).

    Raises
    ------
    FormatError
        A puzzle the format cannot hold (unknown clues, no picture, ...), or several puzzles
        for a single-puzzle format; the message names ``path``.
    """
    for puzzle in puzzles:
        if puzzle.is_colour and not fmt.colour:
            able = ", ".join(f.name for f in formats().values() if f.colour and f.write)
            raise FormatError(
                path,
                None,
                f"{puzzle.describe()} is a colour puzzle ({len(puzzle.palette or ()) - 1} colours) "
                f"and the {fmt.name} format holds black-and-white puzzles only; write one of "
                f"{able}",
            )
    try:
        if len(puzzles) == 1 or fmt.write_many is None:
            if len(puzzles) != 1 or fmt.write is None:
                multi = ", ".join(f.name for f in formats().values() if f.write_many)
                raise FormatError(
                    path,
                    None,
                    f"{len(puzzles)} puzzles, but a {fmt.name} file holds one; pick one with "
                    f"--index N, or write a multi-puzzle format ({multi})",
                )
            return fmt.write(puzzles[0])
        return fmt.write_many(puzzles)
    except FormatError as exc:
        if exc.path == path:
            raise
        raise FormatError(path, None, exc.message) from None


def write_puzzles(
    puzzles: list[Puzzle],
    path: str | os.PathLike[str],
    format: str | None = None,
    force: bool = False,
) -> Format:
    """Write ``puzzles`` to ``path`` in ``format`` (default: from the suffix); several puzzles
    need a format with ``write_many`` (tournament, csv, picross, webpbn, non as ``.nonpack``).

    The file is written to a temporary name and renamed, so a failure never leaves a half-written
    file, and an existing file is never replaced unless ``force``.

    Raises
    ------
    FormatError
        As :func:`writer_format` and :func:`encode_puzzles`, or an existing ``path`` without
        ``force``.
    """
    p = Path(path)
    fmt = writer_format(p, format)
    if p.exists() and not force:
        raise FormatError(str(p), None, "already exists; use --force to overwrite it")
    data = encode_puzzles(puzzles, fmt, str(p))
    atomic_write(p, data, force)
    return fmt


def write_puzzle(
    puzzle: Puzzle,
    path: str | os.PathLike[str],
    format: str | None = None,
    force: bool = False,
) -> Format:
    """Write ``puzzle`` to ``path`` in ``format`` (default: from the suffix).

    The file is written to a temporary name and renamed, so a failure never leaves a half-written
    file, and an existing file is never replaced unless ``force``.

    Raises
    ------
    FormatError
        Unknown or read-only format, a puzzle the format cannot hold, or an existing ``path``
        without ``force``.
    """
    return write_puzzles([puzzle], path, format, force)
