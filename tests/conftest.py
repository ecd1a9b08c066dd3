"""Shared fixtures: the shared corpus location and small hand-made puzzles.

Tests that need ``../shared/corpus`` use the ``corpus`` fixture: it skips with a reason when the
corpus is absent (a user's clone), and fails instead when ``NONOSAT_REQUIRE_CORPUS=1`` (CI), so CI
never skips them silently.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GAMES = REPO / "games"
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", REPO.parent / "shared" / "corpus"))


def corpus_path(*parts: str) -> Path:
    """Path under the shared corpus; skips (or fails under CI) when it is absent."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        reason = f"shared corpus not found at {path} (clone ../shared beside the repo)"
        if os.environ.get("NONOSAT_REQUIRE_CORPUS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture
def corpus() -> Path:
    """The shared corpus root (``../shared/corpus``)."""
    return corpus_path()
