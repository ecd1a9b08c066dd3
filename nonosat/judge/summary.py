"""The summary of a results file's judgements: rows per claimed verdict and outcome, and the
refuted, undecided and bad rows (:func:`summarise_verdicts`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nonosat.judge.claims import CLAIMS, OUTCOMES


@dataclass
class VerifySummary:
    """What :func:`verify_results` found.

    Attributes
    ----------
    rows : int
    table : dict of str to dict of str to int
        Claimed verdict (``unique``, ``multiple``, ``none``, ``solved``, ``-`` for none) ->
        outcome -> rows.
    refuted : list of dict
        ``id``, ``claim``, ``reason``, ``evidence`` (its kind) and ``witness_dir`` (directory or
        ``None``) of each refuted row.
    undecided : list of dict
        ``id``, ``claim``, ``reason`` of each undecided row.
    bad_rows : list of dict
        ``id``, ``line``, ``reason`` of each row that could not be judged.
    """

    rows: int = 0
    table: dict[str, dict[str, int]] = field(default_factory=dict)
    refuted: list[dict[str, Any]] = field(default_factory=list)
    undecided: list[dict[str, Any]] = field(default_factory=list)
    bad_rows: list[dict[str, Any]] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        """Rows with ``outcome``."""
        return sum(c.get(outcome, 0) for c in self.table.values())

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"rows": self.rows, "table": self.table, "refuted": self.refuted,
                "undecided": self.undecided, "bad_rows": self.bad_rows}


def summarise_verdicts(records: Iterable[dict[str, Any]]) -> VerifySummary:
    """Count :func:`verify_results` records per claimed verdict and outcome, and list the
    refuted, undecided and bad rows."""
    summary = VerifySummary()
    table: dict[str, Counter[str]] = {}
    for r in records:
        summary.rows += 1
        claim = r.get("claim") or "-"
        status = str(r.get("status"))
        table.setdefault(claim, Counter())[status] += 1
        if status == "refuted":
            summary.refuted.append({"id": r["id"], "claim": r.get("claim"),
                                    "reason": r.get("reason"), "evidence": r.get("witness"),
                                    "witness_dir": r.get("witness_dir")})
        elif status == "undecided":
            summary.undecided.append({"id": r["id"], "claim": r.get("claim"),
                                      "reason": r.get("reason")})
        elif status == "bad-row":
            summary.bad_rows.append({"id": r["id"], "line": r.get("line"),
                                     "reason": r.get("reason")})
    order = [*CLAIMS, "-"]
    summary.table = {c: {o: table[c].get(o, 0) for o in OUTCOMES if table[c].get(o)}
                     for c in sorted(table, key=order.index)}
    return summary
