"""One printer per kind of output, shared by every command: the JSON contract, brief lines,
verdict lines and grids that fit the terminal.

The JSON contract (``docs/cli.md``, JSON Schema in ``docs/schema/``): every object a command
prints with ``--json`` carries

* ``schema``: :data:`SCHEMA` (``"nonosat/1"``), and ``command``: the command that printed it;
* ``puzzle``: the name nonosat prints for the puzzle (``FILE``, or ``FILE#N`` for puzzle N of a
  multi-puzzle file; a certificate directory for ``verify-certificate``);
* ``status``: the puzzle's verdict, one of :data:`STATUSES` (``unique``, ``multiple``, ``none``,
  ``solved``, ``unknown``).  Commands that check something (``verify``,
  ``verify-certificate``, ``crosscheck``) say the puzzle's verdict in ``status`` as well, and
  the check's outcome in ``ok`` (true/false; ``verify`` also ``outcome``);
* ``time_s``: the engine's own time on the puzzle, ``elapsed_s``: the command's wall time;
* cells as 1-based ``{"row", "col", "value"}`` with ``value`` one of ``filled``, ``empty``,
  ``unknown`` (colour puzzles: ``"colour": NAME`` or ``"colours": [NAME, ...]``).

One object per puzzle; a command that reports on several puzzles prints JSON Lines.
:func:`emit` prints an object after :func:`contract` has put it in this form; the per-command
conversions (``_solve``, ``_explain``, ...) rename what the library layers call otherwise, so the
layers below ``cli/`` keep their own names (the studio uses them).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable
from typing import Any

import typer

from nonosat import JSON_SCHEMA as SCHEMA  # the contract's version: "nonosat/1"

#: The one vocabulary of ``status``.
STATUSES = ("unique", "multiple", "none", "solved", "unknown")
#: Cell values of black-and-white puzzles.
CELL_VALUES = {"#": "filled", ".": "empty", "?": "unknown"}

#: ``time.perf_counter()`` when the command started (set by :func:`start_clock`).
_STARTED: float | None = None


def start_clock() -> None:
    """Remember when the command started, for ``elapsed_s``."""
    global _STARTED
    _STARTED = time.perf_counter()


def elapsed() -> float:
    """Seconds since :func:`start_clock` (0 when it was not called)."""
    return 0.0 if _STARTED is None else time.perf_counter() - _STARTED


# -- JSON ------------------------------------------------------------------------------------------


def emit(command: str, obj: dict[str, Any]) -> None:
    """Print ``obj`` as one line of JSON on stdout, in the contract's form (:func:`contract`)."""
    sys.stdout.write(json.dumps(contract(command, obj)) + "\n")
    sys.stdout.flush()


def contract(command: str, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` in the JSON contract: ``schema`` and ``command`` first, the command's own names
    mapped to the contract's (``_CONVERT``), ``elapsed_s`` added when missing."""
    body = dict(obj)
    convert = _CONVERT.get(command)
    if convert is not None:
        body = convert(body)
    body.pop("schema", None)
    body.pop("command", None)
    out: dict[str, Any] = {"schema": SCHEMA, "command": command}
    for key in ("puzzle", "status"):
        if key in body:
            out[key] = body.pop(key)
    out.update(body)
    if "elapsed_s" not in out and command != "formats":
        out["elapsed_s"] = round(elapsed(), 6)
    return out


def cell(row0: int, col0: int, value: str | None = None) -> dict[str, Any]:
    """A cell of the contract: 1-based ``row`` and ``col`` from 0-based indices, and its
    ``value`` (``#``/``.``/``?`` or already ``filled``/``empty``/``unknown``) when given."""
    out: dict[str, Any] = {"row": int(row0) + 1, "col": int(col0) + 1}
    if value is not None:
        out["value"] = CELL_VALUES.get(value, value)
    return out


def _pairs(cells: list[list[int]]) -> list[dict[str, int]]:
    """1-based ``[row, col]`` pairs as contract cells."""
    return [{"row": int(r), "col": int(c)} for r, c in cells]


def _rename(body: dict[str, Any], old: str, new: str) -> None:
    if old in body:
        value = body.pop(old)
        body.setdefault(new, value)


def _solve(body: dict[str, Any]) -> dict[str, Any]:
    return body


def _analyse(body: dict[str, Any]) -> dict[str, Any]:
    body.pop("deductions", None)  # the same numbers as cells_by_stage
    if "solve_time_s" in body:  # time_s is the engine's; the analysis' own time is analysis_s
        body["analysis_s"] = body.pop("time_s", None)
        body["time_s"] = body.pop("solve_time_s")
    for key in ("linked_cells", "linked_cells_after_logic"):
        if isinstance(body.get(key), list):
            body[key] = [{"equal": _pairs(g.get("equal", [])),
                          "opposite": _pairs(g.get("opposite", []))} for g in body[key]]
    ambiguity = body.get("ambiguity")
    if isinstance(ambiguity, dict):
        for key in ("cells", "undecided"):
            if isinstance(ambiguity.get(key), list):
                ambiguity[key] = _pairs(ambiguity[key])
    return body


def _step(step: dict[str, Any], height: int) -> dict[str, Any]:
    step = dict(step)
    line = step.get("line")
    if isinstance(line, dict):
        step["line"] = {"axis": line["axis"], "index": int(line["index"]) + 1}
    cells = step.get("cells")
    if cells and isinstance(cells[0], list):
        step["cells"] = [cell(r, c, v) for r, c, v in cells]
    return step


def _explain(body: dict[str, Any]) -> dict[str, Any]:
    height = int(body.get("height") or 0)
    if isinstance(body.get("steps"), list):
        body["steps"] = [_step(s, height) for s in body["steps"]]
    if isinstance(body.get("stuck"), dict):
        body["stuck"] = _hint(_step(body["stuck"], height))
    return body


def _hint(body: dict[str, Any]) -> dict[str, Any]:
    if "status" in body and body["status"] not in STATUSES:
        body["outcome"] = body.pop("status")
    if "kind" in body and "outcome" not in body:
        body["outcome"] = body.pop("kind")
    verdict = body.pop("verdict", None)
    if verdict in STATUSES:
        body["status"] = verdict
    if isinstance(body.get("step"), dict):
        body["step"] = _step(body["step"], 0)
    return body


def _crosscheck(body: dict[str, Any]) -> dict[str, Any]:
    _rename(body, "id", "puzzle")
    if body.get("status") not in STATUSES:  # "disagreement", "error": the check failed
        body["status"] = "unknown"
    body["ok"] = not body.get("findings")
    engines = body.get("engines")
    if isinstance(engines, dict):
        for run in engines.values():
            if isinstance(run, dict):
                _rename(run, "verdict", "status")
        times = [r.get("time_s") or 0.0 for r in engines.values() if isinstance(r, dict)]
        body.setdefault("time_s", round(max(times), 6) if times else 0.0)
    return body


def _certify(body: dict[str, Any]) -> dict[str, Any]:
    _rename(body, "verdict", "status")
    times = body.pop("times_s", None)
    if isinstance(times, dict):
        body["stage_s"] = times
        body.setdefault("time_s", round(sum(v for k, v in times.items()
                                            if k in ("solve", "prove", "native")), 6))
    body.setdefault("time_s", 0.0)
    return body


def _verify_certificate(body: dict[str, Any]) -> dict[str, Any]:
    _rename(body, "verdict", "status")
    if body.get("status") not in STATUSES:
        body["status"] = "unknown"
    fingerprint = body.pop("puzzle", None)
    if fingerprint is not None:
        body["fingerprint"] = fingerprint
    body["puzzle"] = body.get("directory")
    return body


def _verify(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("kind") == "summary":  # rows keep the other solver's id as row_id
        return _summary(body, "row_id")
    if "line" in body and "id" in body:  # a row of a results file (verify --results)
        body["row_id"] = body.pop("id")
        if not body.get("puzzle"):
            body["puzzle"] = body["row_id"]
    if body.get("status") not in STATUSES and "status" in body:  # a row's outcome
        body.setdefault("outcome", body.pop("status"))
    truth = body.pop("truth", None)
    body["status"] = truth if truth in STATUSES else "unknown"
    _rename(body, "wall_s", "elapsed_s")
    body["ok"] = body.get("outcome") == "confirmed"
    return body


def _rows(rows: Any, id_name: str = "puzzle") -> Any:
    """Summary rows (``{"id", "status", "wall_s", ...}``) with the contract's names (``id``
    becomes ``id_name``)."""
    if not isinstance(rows, list):
        return rows
    out = []
    for row in rows:
        if isinstance(row, dict):
            row = dict(row)
            _rename(row, "id", id_name)
            _rename(row, "wall_s", "elapsed_s")
        out.append(row)
    return out


def _summary(body: dict[str, Any], id_name: str = "puzzle") -> dict[str, Any]:
    """A summary over many puzzles (batch, verify --results): ``kind`` ``summary``, rows with
    the contract's names, the per-puzzle time figures in ``per_puzzle_s``."""
    body.setdefault("kind", "summary")
    if isinstance(body.get("time_s"), dict):
        body["per_puzzle_s"] = body.pop("time_s")
    for key in ("slowest", "disagreements", "failures", "refuted", "bad_rows", "undecided"):
        if key in body:
            body[key] = _rows(body[key], id_name)
    return body


_CONVERT: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "solve": _solve,
    "analyse": _analyse,
    "explain": _explain,
    "hint": _hint,
    "crosscheck": _crosscheck,
    "certify": _certify,
    "verify-certificate": _verify_certificate,
    "verify": _verify,
    "batch": _summary,
}


# -- text ------------------------------------------------------------------------------------------


def terminal_width() -> int:
    """The width text output must fit: ``$COLUMNS``, else the terminal's, else 80 (a pipe)."""
    import os

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((80, 24)).columns
    return 80


def brief_line(puzzle: str, status: str, time_s: float | None, *extra: str) -> str:
    """The brief format (``-q/--brief``): ``PUZZLE STATUS TIMEs [EXTRA...]``, one line per
    puzzle, fields separated by one space (the name never holds a control character)."""
    from nonosat.text import printable

    parts = [printable(puzzle).replace(" ", "\\x20"), status]
    parts.append("-" if time_s is None else f"{time_s:.3f}s")
    parts += [e for e in extra if e]
    return " ".join(parts)


def fits(lines: list[str], width: int | None = None) -> bool:
    """Whether every line of ``lines`` fits ``width`` (default :func:`terminal_width`)."""
    width = terminal_width() if width is None else width
    return all(len(line) <= width for line in lines)


def grid_summary(text: str, what: str, shape: tuple[int, int]) -> str:
    """The one line printed instead of a grid ``text`` wider than the terminal."""
    cols = max((len(line) for line in text.split("\n")), default=0)
    height, width = shape
    return f"({width}x{height} {what} not shown: {cols} columns wide; see --json or 'nonosat render')"


def echo_grid(text: str, what: str, shape: tuple[int, int]) -> None:
    """Print a grid, or :func:`grid_summary` when it does not fit the terminal."""
    if fits(text.split("\n")):
        typer.echo(text)
    else:
        typer.echo(grid_summary(text, what, shape))


def fit_line(line: str, what: str) -> str:
    """``line`` when it fits the terminal, else a summary saying how long it is and where to
    find it (``--json``)."""
    if len(line) <= terminal_width():
        return line
    label, _, value = line.partition(": ")
    return f"{label}: (not shown: {len(value)} characters; see --json)"


def fold(table: Any) -> Any:
    """A rich ``Table`` whose cells fold long text onto more lines instead of cutting it with an
    ellipsis (names and paths are never cut)."""
    for column in table.columns:
        column.overflow = "fold"
    return table
