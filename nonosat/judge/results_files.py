"""Reading another solver's results file (:func:`read_results`): JSON Lines, TSV, a tournament
solution file, nonosolve's log, pbnsolve's output; and finding the puzzle each row names
(:class:`PuzzleIndex`)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nonosat.errors import FormatError
from nonosat.limits import size_limits
from nonosat.puzzle import Puzzle
from nonosat.safe_io import read_bounded


@dataclass
class ResultRow:
    """One row of another solver's results file.

    Attributes
    ----------
    line : int
        1-based line of the row in the file.
    id : str
        The puzzle it names (``file#N``, ``N``, or a file).
    status : str
        The status as written.
    solution : object or None
        The solution as written (see :func:`parse_solution`).
    problem : str or None
        Why the row cannot be judged (a malformed line), found while reading.
    """

    line: int
    id: str
    status: str
    solution: Any = None
    problem: str | None = None


#: Largest results file :func:`read_results` reads (``NONOSAT_MAX_FILE_BYTES`` raises it).
MAX_RESULTS_BYTES = 256 << 20


def read_results(path: str | os.PathLike[str]) -> list[ResultRow]:
    """Read a results file: JSON Lines (``{"id": ..., "status": ..., "solution": [...]}``), TSV
    whose header names the columns ``id``, ``status`` and optionally ``solution``, or the files
    other solvers write:

    - a tournament solution file (``$N`` then N rows of N TAB-separated 0/1: nonosolve's
      ``-o``, ``nonosat solve/batch --taai-out``): each intact picture is a row claiming
      ``solved`` with that solution, id ``N``; an all-0 picture (nonosolve's mark of a puzzle it
      did not solve) is a row without an answer; a block cut short (the solver was killed while
      writing) is one bad row, the others are judged;
    - nonosolve's ``--log`` (``#N<TAB>seconds<TAB>UNIQUE|MULTIPLE|NONE|TIMEOUT<TAB>...``): a row
      per puzzle, id ``N``, claiming its verdict;
    - pbnsolve's output (``-b``: an optional title line, then words such as ``unique``,
      ``multiple``, ``contradiction``, ``timeout``; without ``-b``: ``UNIQUE ... SOLUTION:`` /
      ``FOUND MULTIPLE SOLUTIONS:`` / ``NO SOLUTION.`` and the grid, which is read as the
      solution).  pbnsolve names no puzzle: a file of one run is a row for the one puzzle
      given; runs put one after another each start with a line ``==> FILE <==`` (what
      ``head``/``tail`` print between files) or ``== FILE``, naming the puzzle file.

    JSON Lines is recognised by a ``.jsonl``/``.ndjson``/``.json`` suffix or a first non-blank
    character ``{``, the others by their first lines.  A malformed line becomes a row with a
    ``problem`` (reported, not skipped).

    Raises
    ------
    FormatError
        Unreadable file, not a regular file or larger than :data:`MAX_RESULTS_BYTES`
        (:func:`nonosat.safe_io.read_bounded`), no rows, a malformed TSV, or a TSV header
        without ``id`` and ``status``.
    """
    p = Path(path)
    limit = max(MAX_RESULTS_BYTES, size_limits().max_file_bytes)
    try:
        text = read_bounded(p, limit, "results file").decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(str(p), None, f"not UTF-8 text: {exc.reason}") from None
    jsonl = p.suffix.lower() in (".jsonl", ".ndjson", ".json") or text.lstrip().startswith("{")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if jsonl:
        rows = _read_jsonl(text)
    elif re.fullmatch(r"\$\s*\d+\s*\$?", first):
        rows = _read_taai_solutions(text, str(p))
    elif _NONOSOLVE_LOG.match(first):
        rows = _read_nonosolve_log(text)
    elif _is_pbnsolve(text):
        rows = _read_pbnsolve(text)
    else:
        rows = _read_tsv(text, str(p))
    if not rows:
        raise FormatError(str(p), None, "no results rows")
    return rows


def _read_jsonl(text: str) -> list[ResultRow]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            rows.append(ResultRow(number, f"line {number}", "", None, f"not JSON: {exc.msg}"))
            continue
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, nesting too deep
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:80]
            rows.append(ResultRow(number, f"line {number}", "", None, f"not JSON: {reason}"))
            continue
        if not isinstance(obj, dict) or "id" not in obj or "status" not in obj:
            rows.append(ResultRow(number, f"line {number}", "", None,
                                  "a results line must be an object with 'id' and 'status'"))
            continue
        solution = obj.get("solution")
        if solution is None and isinstance(obj.get("solutions"), list) and obj["solutions"]:
            solution = obj["solutions"]  # several grids: judged one by one
        status = obj["status"]
        rows.append(ResultRow(number, str(obj["id"]), "" if status is None else str(status),
                              solution))
    return rows


def _read_taai_solutions(text: str, path: str) -> list[ResultRow]:
    """Rows of a tournament solution file (:func:`nonosat.formats.tournament.solution_blocks`)."""
    from nonosat.formats.tournament import solution_blocks

    rows = []
    for number, line, picture, problem in solution_blocks(text.encode("utf-8"), path):
        if picture is None:
            rows.append(ResultRow(line, str(number), "", None, problem))
        elif not picture.any():  # nonosolve writes an empty grid for a puzzle it did not solve
            rows.append(ResultRow(line, str(number), "unknown", None))
        else:
            rows.append(ResultRow(line, str(number), "solved",
                                  ["".join("1" if v else "0" for v in row) for row in picture]))
    return rows


#: A line of nonosolve's ``--log``: ``#N``, seconds, the verdict, statistics (TAB-separated).
_NONOSOLVE_LOG = re.compile(r"#(\d+)\t[0-9.eE+-]+\t([A-Za-z_-]+)(?:\t.*)?$")


def _read_nonosolve_log(text: str) -> list[ResultRow]:
    """Rows of nonosolve's ``--log`` (its last line, ``total time: S``, is no row)."""
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("total time:"):
            continue
        m = _NONOSOLVE_LOG.fullmatch(line)
        if m is None:
            rows.append(ResultRow(number, f"line {number}", "", None,
                                  "expected '#N<TAB>seconds<TAB>VERDICT' (a nonosolve log cut "
                                  "short?)"))
            continue
        rows.append(ResultRow(number, m.group(1), m.group(2).lower()))
    return rows


#: Words of pbnsolve's brief (``-b``) verdict line, with ``logical``, which it prints too.
_PBNSOLVE_WORDS = {"unique", "multiple", "line", "logical", "depth-2", "trivial", "solvable",
                   "contradiction", "timeout", "stalled"}
#: pbnsolve's verbose verdict lines (without ``-b``) -> claim.
_PBNSOLVE_HEADS = ((re.compile(r"UNIQUE\b.*SOLUTION:?"), "unique"),
                   (re.compile(r"FOUND MULTIPLE SOLUTIONS:?"), "multiple"),
                   (re.compile(r"NO SOLUTION\.?"), "none"))
_PBNSOLVE_FILE = re.compile(r"==>? (.+?)(?: <==)?")


def _pbnsolve_verdict(line: str) -> str | None:
    """The claim of a pbnsolve verdict line (brief or verbose), ``None`` if it is none."""
    words = line.split()
    if words and set(words) <= _PBNSOLVE_WORDS:
        if "contradiction" in words:
            return "none"
        if "multiple" in words:
            return "multiple"
        if "unique" in words:
            return "unique"
        return "solved" if "solvable" in words or "trivial" in words else "unknown"
    for head, claim in _PBNSOLVE_HEADS:
        if head.fullmatch(line.strip()):
            return claim
    return None


def _is_pbnsolve(text: str) -> bool:
    """Whether ``text`` is pbnsolve's output: a verdict line among its first lines (after the
    optional file and title lines) and no TAB (a TSV header has them)."""
    head = [line for line in text.splitlines() if line.strip()][:3]
    return "\t" not in "".join(head) and any(_pbnsolve_verdict(line) for line in head)


def _read_pbnsolve(text: str) -> list[ResultRow]:
    """Rows of pbnsolve's output, one per run (see :func:`read_results`); a verbose run's first
    grid (``X`` filled, ``.`` empty) is its solution."""
    rows: list[ResultRow] = []
    current: ResultRow | None = None
    file = ""
    grid: list[str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        named = _PBNSOLVE_FILE.fullmatch(line.strip())
        if named:
            file, current, grid = named.group(1), None, None
            continue
        if grid is not None:
            if line and set(line) <= set("X.") and (not grid or len(line) == len(grid[0])):
                grid.append(line)
                continue
            grid = None
        claim = _pbnsolve_verdict(line) if current is None else None
        if claim is not None:
            current = ResultRow(number, file, claim)
            rows.append(current)
            if not line.split()[0].islower():  # verbose: the solution grid follows
                grid = []
                current.solution = grid
    for row in rows:
        if row.solution == []:
            row.solution = None
    return rows


def _read_tsv(text: str, path: str) -> list[ResultRow]:
    reader = csv.reader(io.StringIO(text), delimiter="\t")
    header: list[str] | None = None
    rows: list[ResultRow] = []
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # a field over csv's size limit
            raise FormatError(path, reader.line_num or None, f"malformed TSV: {exc}") from None
        number = reader.line_num
        if not any(cell.strip() for cell in record):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in record]
            missing = [c for c in ("id", "status") if c not in header]
            if missing:
                raise FormatError(path, number, "expected a TSV header naming the columns id, "
                                  f"status and optionally solution; missing {', '.join(missing)}")
            continue
        cells = dict(zip(header, (c.strip() for c in record), strict=False))
        if len(record) < header.index("status") + 1:
            rows.append(ResultRow(number, cells.get("id") or f"line {number}", "", None,
                                  f"{len(record)} columns; the header has {len(header)}"))
            continue
        rows.append(ResultRow(number, cells["id"], cells["status"], cells.get("solution") or None))
    return rows


class PuzzleIndex:
    """Finds the puzzle a results row names.

    A row id is matched, in order: exactly against the puzzle ids (``path#N`` as
    :func:`nonosat.formats.iter_puzzles` gives them); as ``FILE#N`` or ``FILE`` where ``FILE`` is
    the same file by path or, failing that, by file name; as a bare puzzle number ``N`` (``$N``
    and ``#N`` too) of a multi-puzzle file (a tournament set).

    Parameters
    ----------
    puzzles : iterable of (str, Puzzle)
        Ids and puzzles, e.g. :attr:`nonosat.batch.Inputs.puzzles`.
    """

    def __init__(self, puzzles: Iterable[tuple[str, Puzzle]]):
        self.by_id: dict[str, Puzzle] = {}
        self._by_path: dict[tuple[str, int | None], list[str]] = {}
        self._by_name: dict[tuple[str, int | None], list[str]] = {}
        self._by_number: dict[int, list[str]] = {}
        for puzzle_id, puzzle in puzzles:
            self.by_id[puzzle_id] = puzzle
            file, number = _split_id(puzzle_id)
            self._by_path.setdefault((_real(file), number), []).append(puzzle_id)
            self._by_name.setdefault((Path(file).name, number), []).append(puzzle_id)
            if number is not None:
                self._by_number.setdefault(number, []).append(puzzle_id)

    def find(self, row_id: str) -> tuple[str, Puzzle]:
        """The ``(id, puzzle)`` that ``row_id`` names.

        Raises
        ------
        LookupError
            No puzzle, or several (the message says which and how to be precise).
        """
        row_id = row_id.strip()
        if not row_id and len(self.by_id) == 1:  # a results file naming no puzzle (pbnsolve's)
            return next(iter(self.by_id.items()))
        if row_id in self.by_id:
            return row_id, self.by_id[row_id]
        bare = re.fullmatch(r"[$#]?\s*(\d+)", row_id)
        if bare:
            wanted = int(bare.group(1))
            return self._one(self._by_number.get(wanted, []),
                             f"no puzzle numbered {wanted} in the puzzle files", row_id)
        file, number = _split_id(row_id)
        found = self._by_path.get((_real(file), number)) or self._by_name.get(
            (Path(file).name, number), [])
        what = f"puzzle {number} of {file}" if number is not None else file
        return self._one(found, f"no {what} among the puzzle files", row_id)

    def _one(self, found: list[str], missing: str, row_id: str) -> tuple[str, Puzzle]:
        if not found:
            raise LookupError(missing)
        if len(found) > 1:
            raise LookupError(f"{row_id!r} is ambiguous: {', '.join(found[:3])}"
                              + (" ..." if len(found) > 3 else "") + "; name FILE#N")
        return found[0], self.by_id[found[0]]


def _split_id(puzzle_id: str) -> tuple[str, int | None]:
    m = re.fullmatch(r"(.*)#(\d+)", puzzle_id)
    return (m.group(1), int(m.group(2))) if m else (puzzle_id, None)


def _real(file: str) -> str:
    try:
        return os.path.realpath(file)
    except (OSError, ValueError):
        return file
