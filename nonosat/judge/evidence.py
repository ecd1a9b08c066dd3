"""The witness directory of a judgement: the evidence, as files anyone can check again.

========================  ======================================================================
``verdict.json``          the judgement (:meth:`~nonosat.judge.answer.Judgement.to_json`)
``solution-K.txt``        evidence solutions found by nonosat, as text grids (``#`` / ``.``)
``submitted-K.txt``       a submitted solution that breaks the clues, as a text grid
``line-errors.txt``       its failing lines: ``row 3: expected 3 1, actual 2 2``
``certificate/``          the certificate directory: a proof, or a witness certificate of several
                          solutions (``nonosat verify-certificate`` checks either)
========================  ======================================================================
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from nonosat.errors import FormatError
from nonosat.judge.solution import solution_text
from nonosat.safe_io import atomic_write

if TYPE_CHECKING:
    from nonosat.judge.answer import Judgement


def witness_files(judgement: Judgement) -> dict[str, bytes]:
    """The witness directory's files (relative path -> content), see the module docstring."""
    from nonosat.certificates.certifier import certificate_files_of

    files: dict[str, bytes] = {}
    for k, sol in enumerate(judgement.evidence, start=1):
        files[f"solution-{k}.txt"] = solution_text(sol, judgement.puzzle)
    bad = [c for c in judgement.checks if not c.valid]
    for k, check in enumerate(bad, start=1):
        files[f"submitted-{k}.txt"] = solution_text(check.solution, judgement.puzzle)
    if bad:
        lines = []
        for k, check in enumerate(bad, start=1):
            if len(bad) > 1:
                lines.append(f"submitted-{k}.txt:")
            lines.extend(str(e) for e in check.errors)
        files["line-errors.txt"] = ("\n".join(lines) + "\n").encode()
    cert = judgement.certificate
    if cert is not None and (cert.proved or cert.verdict == "multiple"):
        for name, data in certificate_files_of(cert).items():
            files[f"certificate/{name}"] = data
    files["verdict.json"] = (json.dumps(judgement.to_json(), indent=2) + "\n").encode()
    return files


def write_witness(judgement: Judgement, out_dir: str | os.PathLike[str],
                  force: bool = False) -> list[Path]:
    """Write :meth:`Judgement.witness_files` as the directory ``out_dir``, claimed atomically:
    the files are written into a fresh hidden sibling, which is then renamed to ``out_dir``
    (:func:`nonosat.safe_io.claimed_directory`), so ``out_dir`` holds the whole witness or,
    after an error or an interrupt, what it held before.  With ``force`` an earlier witness is
    replaced and the user's other files there are kept.

    Raises
    ------
    FormatError
        ``out_dir`` is a file, or a non-empty directory without ``force``; a file that cannot
        be written.
    """
    from nonosat.safe_io import claimed_directory

    out = Path(out_dir)
    files = judgement.witness_files()
    own = frozenset(name.split("/", 1)[0] for name in files)
    try:
        with claimed_directory(out, force, own) as fresh:
            for name, data in files.items():
                path = fresh / name
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "xb") as handle:  # a new file in a new private directory
                    handle.write(data)
    except OSError as exc:
        raise FormatError(str(exc.filename or out), None, exc.strerror or str(exc)) from None
    return [out / name for name in files]


def write_files(files: dict[str, bytes], out: Path) -> list[Path]:
    """Write ``files`` (relative path -> content) under ``out``, each atomically; a directory
    whose files are all replaced (``certificate/``) loses the stale ones.

    Raises
    ------
    FormatError
        A file that cannot be written.
    """
    from nonosat.certificates import CERTIFICATE_FILES
    from nonosat.certificates.witness import SOLUTION_FILES

    written = []
    try:
        if any(name.startswith("certificate/") for name in files):
            for name in (*CERTIFICATE_FILES, *SOLUTION_FILES):
                if f"certificate/{name}" not in files:
                    (out / "certificate" / name).unlink(missing_ok=True)
        for name, data in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data, force=True)
            written.append(path)
    except OSError as exc:
        raise FormatError(str(exc.filename or out), None, exc.strerror or str(exc)) from None
    return written


def witness_dir(out: Path, row_id: str) -> Path:
    """The witness directory of row ``row_id`` under ``out``: the id with every run of
    characters other than letters, digits, ``.``, ``-`` and ``_`` replaced by ``_``."""
    return out / (re.sub(r"[^A-Za-z0-9._-]+", "_", row_id.lstrip("./")) or "_")
