"""The studio's gallery: the puzzles of ``games/`` and of the paths given to ``nonosat studio``.

Files are scanned once (on first use) and every puzzle gets a short stable id (a hash of the
resolved path and its position in the file).  Only files inside the folders given are served: a
file reached through a symbolic link that resolves outside its folder (``games/secret.non ->
~/.ssh/id_rsa``) is neither listed nor read, and :meth:`Gallery.load` checks again when it
reads (the link may have changed since the scan).  A file given by name is served as given.  Files nonosat cannot read, and colour puzzles (the
studio is black and white), are skipped.
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
    root: Path | None = None  # the folder it must stay inside (None: a file given by name)

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


def inside(path: Path, root: Path | None) -> bool:
    """Whether ``path``, all symbolic links resolved, lies inside ``root`` (resolved too);
    always true without a root."""
    if root is None:
        return True
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


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
            fence = root if root.is_dir() else None
            for path in _files(root):
                if len(out) >= MAX_ENTRIES:
                    return out
                if not inside(path, fence):  # a link out of the folder: never read
                    continue
                try:
                    puzzles = read_puzzles(path)
                except Exception:  # noqa: BLE001 - not a puzzle file: not listed
                    continue
                multi = len(puzzles) > 1
                for k, p in enumerate(puzzles):
                    eid = entry_id(path, k)
                    if eid in seen or len(out) >= MAX_ENTRIES or getattr(p, "is_colour", False):
                        continue  # the studio is black and white
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
                    out.append(Entry(eid, name, source, p.width, p.height, path, k, fence))
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
                if not inside(e.path, e.root):  # the link was changed to point out since
                    raise KeyError(eid)
                puzzles = read_puzzles(e.path)
                if e.index >= len(puzzles):
                    raise KeyError(eid)
                return e, puzzles[e.index]
        raise KeyError(eid)
