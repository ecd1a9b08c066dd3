"""The names of the JSON contract (``nonosat/1``, ``docs/cli.md``, ``docs/schema/``) for what the
library layers report under their own names.

:func:`convert` renames, per command, what :meth:`to_json` methods call otherwise: ``id`` ->
``puzzle``, ``verdict``/``truth`` -> ``status`` (one vocabulary, :data:`STATUSES`), the engine's
time in ``time_s``, 0-based ``[row, col, "#"]`` cells -> 1-based ``{"row", "col", "value"}``.
The CLI's printers (:mod:`nonosat.cli.output`) and the batch results file
(:mod:`nonosat.batch.results`) both use it.  Pure dictionary work: imports nothing of nonosat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The version of the JSON contract, in every object's ``schema`` field.
SCHEMA = "nonosat/1"
#: The one vocabulary of ``status``.
STATUSES = ("unique", "multiple", "none", "solved", "unknown")
#: Cell values of black-and-white puzzles.
CELL_VALUES = {"#": "filled", ".": "empty", "?": "unknown"}


def convert(command: str, obj: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``obj`` (what ``command``'s library layer reports) with the contract's names;
    unchanged for a command without conversions."""
    body = dict(obj)
    converter = _CONVERT.get(command)
    return converter(body) if converter is not None else body


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
            body[key] = [g if "literals" in g else  # colour: literals, already cells
                         {"equal": _pairs(g.get("equal", [])),
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
                                            if k in ("decide", "solve", "prove")), 6))
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


