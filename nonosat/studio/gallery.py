"""The studio's gallery: the puzzles of ``games/`` and of the paths given to ``nonosat studio``.

Files are scanned once (on first use) and every puzzle gets a short stable id (a hash of the
resolved path and its position in the file).  Files nonosat cannot read are skipped.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nonosat.puzzle import Puzzle

#: At most this many puzzles are listed (a directory of a whole corpus stays usable).
MAX_ENTRIES = 2000
#: Files whose names end so are never puzzles.
_SKIP_SUFFIXES = {".md", ".py", ".pyc", ".zip", ".gz", ".txt~", ".cnf", ".drat"}


def games_dir() -> Path | None:
    """The repository's ``games/`` folder, when nonosat runs from a checkout."""
    here = Path(__file__).resolve().parents[2] / "games"
    return here if here.is_dir() else None


@dataclass(frozen=True)
class Entry:
    """One gallery puzzle: ``id``, ``name``, ``source`` (file, plus ``#N`` inside a multi-puzzle
    file), ``width``, ``height``, and where to read it (``path``, 0-based ``index``)."""

    id: str
    name: str
    source: str
    width: int
    height: int
    path: Path
    index: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "source": self.source, "width": self.width,
                "height": self.height}


def _files(path: Path) -> Iterable[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.is_file() and not p.name.startswith(".") and p.suffix.lower() not in _SKIP_SUFFIXES \
                    and p.name not in ("LICENSE", "README"):
                yield p


def entry_id(path: Path, index: int) -> str:
    """Stable id of puzzle ``index`` of ``path``: 12 hex digits."""
    return hashlib.sha1(f"{path.resolve()}#{index}".encode()).hexdigest()[:12]


class Gallery:
    """The gallery over ``paths`` (files or directories), ``games/`` first when present.

    Parameters
    ----------
    paths : iterable of Path
        Extra files or directories (``nonosat studio PATH``).
    include_games : bool
        List the repository's ``games/`` too.
    """

    def __init__(self, paths: Iterable[Path] = (), include_games: bool = True):
        self.paths = [Path(p) for p in paths]
        games = games_dir() if include_games else None
        self.roots = ([games] if games else []) + self.paths
        self._entries: list[Entry] | None = None
        self._lock = threading.Lock()

    def entries(self) -> list[Entry]:
        """Every puzzle listed (scanned on the first call)."""
        with self._lock:
            if self._entries is None:
                self._entries = self._scan()
            return self._entries

    def _scan(self) -> list[Entry]:
        from nonosat.formats import read_puzzles

        out: list[Entry] = []
        seen: set[str] = set()
        for root in self.roots:
            for path in _files(root):
                if len(out) >= MAX_ENTRIES:
                    return out
                try:
                    puzzles = read_puzzles(path)
                except Exception:  # noqa: BLE001 - not a puzzle file: not listed
                    continue
                multi = len(puzzles) > 1
                for k, p in enumerate(puzzles):
                    eid = entry_id(path, k)
                    if eid in seen or len(out) >= MAX_ENTRIES:
                        continue
                    seen.add(eid)
                    try:
                        source = str(path.relative_to(root.parent if root.is_dir() else
                                                      path.parent))
                    except ValueError:
                        source = path.name
                    number = p.number if p.number is not None else k + 1
                    if multi:
                        source += f"#{number}"
                    name = p.title or (path.stem + (f" #{number}" if multi else ""))
                    out.append(Entry(eid, name, source, p.width, p.height, path, k))
        return out

    def first_id(self, path: Path) -> str | None:
        """Id of the first puzzle of ``path`` (a file given to ``nonosat studio``)."""
        for e in self.entries():
            if e.path.resolve() == Path(path).resolve():
                return e.id
        return None

    def load(self, eid: str) -> tuple[Entry, Puzzle]:
        """The entry and its puzzle.

        Raises
        ------
        KeyError
            Unknown id.
        FormatError
            The file changed and no longer reads.
        """
        from nonosat.formats import read_puzzles

        for e in self.entries():
            if e.id == eid:
                puzzles = read_puzzles(e.path)
                if e.index >= len(puzzles):
                    raise KeyError(eid)
                return e, puzzles[e.index]
        raise KeyError(eid)
