"""What every benchmark script starts with: where the repository, the shared corpus and the
third-party checkers are, this checkout first on ``sys.path``, the argument parser, and the CSV
writer.

A script imports it first (``python benchmarks/bench_x.py`` puts ``benchmarks/`` on the path)::

    from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path

``../shared`` is looked for beside the checkout and, for a git worktree in a folder of its own
(``/work/wt/NAME``), one level up; ``NONOSAT_SHARED`` names it outright, and ``NONOSAT_CORPUS``
and ``NONOSAT_THIRD_PARTY`` override its parts, as for the tests (``tests/conftest.py``).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: This checkout (the folder holding ``nonosat/``).
REPO = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    if os.environ.get("NONOSAT_SHARED"):
        return Path(os.environ["NONOSAT_SHARED"])
    for base in (REPO.parent, REPO.parent.parent):
        if (base / "shared").is_dir():
            return base / "shared"
    return REPO.parent / "shared"


#: ``../shared``: the corpus, the peer solvers and the third-party checkers.
SHARED = _shared()
#: The puzzle corpus (``NONOSAT_CORPUS`` overrides it).
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", SHARED / "corpus"))
#: Sources of the third-party proof checkers (``NONOSAT_THIRD_PARTY`` overrides it).
THIRD_PARTY = Path(os.environ.get("NONOSAT_THIRD_PARTY", SHARED / "third_party"))
#: The 1,000 puzzles of the TAAI 2011 tournament set.
TAAI2011 = CORPUS / "NonogramRecord" / "question" / "taai2011.txt"

if str(REPO) not in sys.path:  # this checkout's nonosat, not an installed one
    sys.path.insert(0, str(REPO))


def argument_parser(doc: str | None, **kwargs: Any) -> argparse.ArgumentParser:
    """An argument parser whose description is the first paragraph of the script's docstring."""
    description = (doc or "").split("\n\n")[0].strip()
    return argparse.ArgumentParser(description=description, **kwargs)


def add_window(ap: argparse.ArgumentParser, count: int = 100) -> None:
    """``--start``, ``--step``, ``--count``: every ``step``-th puzzle of a set from ``start``,
    ``count`` of them."""
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--step", type=int, default=10)
    ap.add_argument("--count", type=int, default=count)


def write_csv(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write ``rows`` (dicts) as CSV, one column per key any row has (sorted)."""
    rows = list(rows)
    keys = sorted({k for r in rows for k in r})
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, keys)
        writer.writeheader()
        writer.writerows(rows)
