"""davidje13/Nonogram CSV game lists: ``name,rules[,source,author,license]``, one puzzle per row,
``rules`` a short-rules code (see :mod:`nonosat.formats.short_codes`).

Lines starting with ``#`` are comments; the first other line is the header.  Puzzle ``N`` is the
N-th data row (``--index N``); its name becomes the title.
"""

from __future__ import annotations

import csv
import io

from nonosat.errors import FormatError
from nonosat.formats import Format, one_line_text
from nonosat.formats._text import decode_text, split_lines
from nonosat.formats.short_codes import encode_rules, puzzle_from_code
from nonosat.puzzle import Puzzle

_COLUMNS = ("name", "rules", "source", "author", "license")


def read_csv(data: bytes, path: str) -> list[Puzzle]:
    """Parse a davidje13 CSV game list.

    Raises
    ------
    FormatError
        No header with a ``rules`` column, a row without a code, a malformed code (each names
        the line).
    """
    lines = split_lines(decode_text(data, path))
    # Blank out comments so that the csv reader's line numbers stay the file's.
    text = "\n".join("" if line.lstrip().startswith("#") else line for line in lines)
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    header: list[str] | None = None
    puzzles: list[Puzzle] = []
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip().lower() for cell in row]
                if "rules" not in header:
                    raise FormatError(
                        path,
                        line,
                        "expected a header line naming the columns "
                        f"(name,rules,...), found {','.join(row)[:40]!r}",
                    )
                continue
            record = dict(zip(header, (cell.strip() for cell in row), strict=False))
            code = record.get("rules", "")
            if not code:
                raise FormatError(
                    path, line, "expected a short-rules code (R...) in the 'rules' column"
                )
            name = _unquote(record.get("name", ""))
            fields = {
                "title": name or None,
                "author": record.get("author") or None,
                "license": record.get("license") or None,
                "number": len(puzzles) + 1,
            }
            meta = {"source": record["source"]} if record.get("source") else {}
            puzzles.append(puzzle_from_code(code, path, line, meta=meta, **fields))
    except csv.Error as exc:
        raise FormatError(path, reader.line_num, f"invalid CSV: {exc}") from None
    if header is None:
        raise FormatError(path, None, "no header line; expected name,rules[,source,author,license]")
    return puzzles


def _unquote(name: str) -> str:
    """Names like ``'"'`` (a puzzle named by a quote character) lose their single quotes."""
    if len(name) >= 3 and name[0] == name[-1] == "'":
        return name[1:-1]
    return name


def _quote_name(name: str) -> str:
    """A name starting with ``#`` would read as a comment: wrap it in single quotes, as the
    davidje13 files do (``'#'``)."""
    return f"'{name}'" if name.startswith("#") else name


def write_csv_many(puzzles: list[Puzzle]) -> bytes:
    """A CSV game list of ``puzzles`` (columns present in at least one puzzle).

    Raises
    ------
    FormatError
        A puzzle with unknown clues.
    """
    rows = []
    for k, puzzle in enumerate(puzzles, start=1):
        rows.append(
            {
                "name": _quote_name(one_line_text(puzzle.title or "")
                                    or f"Puzzle {puzzle.number or k}"),
                "rules": encode_rules(puzzle),
                "source": one_line_text(str(puzzle.meta.get("source") or "")),
                "author": one_line_text(puzzle.author or ""),
                "license": one_line_text(puzzle.license or ""),
            }
        )
    used = [c for c in _COLUMNS if c in ("name", "rules") or any(r[c] for r in rows)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(used)
    for r in rows:
        writer.writerow([r[c] for c in used])
    return out.getvalue().encode()


def write_csv(puzzle: Puzzle) -> bytes:
    """A one-row CSV game list."""
    return write_csv_many([puzzle])


def _sniff(head: bytes) -> bool:
    for raw in head.split(b"\n"):
        line = raw.strip()
        if line and not line.startswith(b"#"):
            return line.lower().startswith(b"name,rules")
    return False


FORMAT = Format(
    name="csv",
    suffixes=(".csv",),
    description="davidje13 CSV game list: name,rules[,source,author,license] (short-rules codes)",
    read=read_csv,
    write=write_csv,
    write_many=write_csv_many,
    sniff=_sniff,
    multi=True,
)
