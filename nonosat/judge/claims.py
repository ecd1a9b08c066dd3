"""The verdicts another solver can claim about a puzzle, the outcomes of a judgement, and how
other solvers spell their verdicts in their results files."""

from __future__ import annotations

import re

from nonosat.errors import PuzzleError

#: Claimed verdicts that can be judged.
CLAIMS = ("unique", "multiple", "none", "solved")

#: Outcomes of a judgement.  ``unjudged``: a row with neither a verdict nor a solution (the other
#: solver gave up); ``bad-row``: the row cannot be judged (puzzle not found, malformed solution).
OUTCOMES = ("confirmed", "refuted", "undecided", "unjudged", "bad-row")

#: How other solvers spell their verdicts (lower case, ``_``/``-`` read as spaces) -> claim;
#: ``None`` means no verdict.
CLAIM_WORDS: dict[str, str | None] = {
    "unique": "unique", "unique solution": "unique", "one solution": "unique",
    "multiple": "multiple", "multiple solutions": "multiple", "several": "multiple",
    "several solutions": "multiple", "not unique": "multiple", "ambiguous": "multiple",
    "none": "none", "no solution": "none", "unsat": "none", "unsatisfiable": "none",
    "unsolvable": "none", "infeasible": "none",
    "solved": "solved", "sat": "solved", "satisfiable": "solved", "found": "solved",
    "feasible": "solved",
    "": None, "unknown": None, "timeout": None, "time out": None, "gave up": None,
    "error": None, "crashed": None, "?": None,
}


def parse_claim(text: str | None) -> str | None:
    """The claim (one of :data:`CLAIMS`) a results file's status means, ``None`` for no verdict.

    >>> parse_claim("Multiple_Solutions"), parse_claim("UNSAT"), parse_claim("timeout")
    ('multiple', 'none', None)

    Raises
    ------
    PuzzleError
        A status that names no verdict this module knows.
    """
    if text is None:
        return None
    key = re.sub(r"[\s_-]+", " ", str(text)).strip().lower()
    if key not in CLAIM_WORDS:
        raise PuzzleError(
            f"unknown status {text!r}; expected unique, multiple, none, solved or unknown"
        )
    return CLAIM_WORDS[key]
