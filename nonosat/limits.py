"""Resource limits: the one size limit every reader checks before allocating, the memory estimate
that refuses a puzzle early, and the default time limit of the interactive commands.

Everything is derived from **one size limit**, the largest number of cells a puzzle may have
(``NONOSAT_MAX_CELLS``, default :data:`DEFAULT_MAX_CELLS` = 2048 x 2048).  From it follow the
largest width or height, the most clue blocks in one puzzle, and the most bytes read from one
file; readers check them while parsing, before they build arrays of that size, so a 200 KB file
announcing a 50000 x 50000 puzzle is refused at once, not after numpy has tried to allocate it.

==========================  ====================================================================
limit                       value (``C`` = the cell limit)
==========================  ====================================================================
cells (width x height)      ``C``                                   (4,194,304)
width or height             ``8 * isqrt(C)``                        (16,384)
clue blocks, all lines      ``C / 4``                               (1,048,576)
text lines in one file      ``C / 4``                               (1,048,576)
file bytes                  ``4 * C + 1 MiB`` (``NONOSAT_MAX_FILE_BYTES`` overrides)    (17 MiB)
estimated memory            ``NONOSAT_MAX_MEMORY_MB``       (half the physical memory, >= 1 GiB)
default ``--timeout``       ``NONOSAT_TIMEOUT`` seconds             (300 s; ``0`` = none)
proof file bytes            ``NONOSAT_MAX_PROOF_BYTES``             (256 MiB; see below)
==========================  ====================================================================

The time limit is passed to the engines, which check it between steps; a ``nonosat`` process
is also ended (exit 4, one line) ``max(5 s, limit / 4)`` past it by a watchdog thread
(:func:`nonosat.cli.running.handle_errors`, :data:`nonosat.cli.running.HARD_STOP_STAGES`), for
compiled steps that cannot be interrupted.

The memory estimate (:func:`estimate_memory`) is a linear model, per kind of work
(:data:`WORKLOADS`), of what a command builds for a puzzle: the per-cell arrays of the native
solver, and the CNF encoding of every line (the SAT engine, ``certify``, ``encode``), about
``n * (k + 1)`` variables and clauses for a line of ``n`` cells and ``k`` blocks.  The CLI names
the kind of work of each command (:func:`workload`); the check runs when the puzzle is read, so a
puzzle that would need more than the memory limit is refused at once with a one-line message
naming the variable to raise, instead of running the machine out of memory.

The proof size limit (:func:`max_proof_bytes`) bounds every file the LRAT checker
(:mod:`nonosat.certificates.lrat_check`) reads, CNF and proofs alike: a larger one is refused
before it is read, with a one-line error naming the file and the variable.  The default,
:data:`DEFAULT_MAX_PROOF_BYTES`, is chosen by measurement (``benchmarks/bench_lrat_check.py``):
the checker's memory stays below 1 GB on proofs up to it, and it is far above the certificates of
the corpus puzzles.

Environment variables are read on every call (tests and long-running processes may change them).
"""

from __future__ import annotations

import contextvars
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from nonosat.errors import FormatError

if TYPE_CHECKING:
    from nonosat.puzzle import Puzzle

#: Default largest puzzle, in cells (2048 x 2048).
DEFAULT_MAX_CELLS = 1 << 22

#: Default memory a command may be estimated to need: half the physical memory, at least 1 GiB.
DEFAULT_MAX_MEMORY_MB = 1024


def _physical_mb() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return 2 * DEFAULT_MAX_MEMORY_MB

#: Default time limit of the interactive commands (solve, certify, crosscheck, render, ...), s.
DEFAULT_TIMEOUT_S = 300.0

ENV_MAX_CELLS = "NONOSAT_MAX_CELLS"
ENV_MAX_FILE_BYTES = "NONOSAT_MAX_FILE_BYTES"
ENV_MAX_MEMORY_MB = "NONOSAT_MAX_MEMORY_MB"
ENV_TIMEOUT = "NONOSAT_TIMEOUT"
ENV_MAX_PROOF_BYTES = "NONOSAT_MAX_PROOF_BYTES"

#: Default largest proof (or CNF) file the LRAT checker reads, in bytes (256 MiB).
DEFAULT_MAX_PROOF_BYTES = 256 << 20


def _env_number(name: str, default: float, integer: bool = True) -> float:
    """The environment variable ``name`` as a positive number, else ``default``.

    Raises
    ------
    FormatError
        The variable is set but not a positive number.
    """
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        raise FormatError(
            f"${name}", None, f"expected a {'whole ' if integer else ''}number, found {raw[:20]!r}"
        ) from None
    if value < 0 or (integer and value == 0) or math.isnan(value):
        raise FormatError(f"${name}", None, f"must be positive, found {raw[:20]!r}")
    return value


@dataclass(frozen=True)
class SizeLimits:
    """The size limits every reader checks before allocating (see the module docstring).

    Attributes
    ----------
    max_cells : int
        Largest ``width * height``.
    max_side : int
        Largest width or height (number of row or column clues).
    max_blocks : int
        Most clue blocks in one puzzle, rows and columns together.
    max_lines : int
        Most text lines (or XML elements) in one file.
    max_file_bytes : int
        Most bytes read from one puzzle file.
    """

    max_cells: int
    max_side: int
    max_blocks: int
    max_lines: int
    max_file_bytes: int

    def check_side(self, value: int, path: str, line: int | None, what: str) -> int:
        """Refuse a width or height above :attr:`max_side` (or, with ``other``, a grid above
        :attr:`max_cells`).

        Raises
        ------
        FormatError
            Names the file, line and the variable that raises the limit.
        """
        if value > self.max_side:
            _refuse(path, line, f"{what} {value} is too large: the limit is {self.max_side}")
        return value

    def check_cells(self, width: int, height: int, path: str, line: int | None = None) -> None:
        """Refuse a ``width x height`` grid above the limits, before anything is allocated.

        Raises
        ------
        FormatError
        """
        self.check_side(width, path, line, "width")
        self.check_side(height, path, line, "height")
        if width * height > self.max_cells:
            _refuse(path, line, f"puzzle is {width}x{height} = {width * height} cells; the "
                    f"limit is {self.max_cells} cells")

    def check_lines(self, count: int, path: str, what: str = "lines") -> None:
        """Refuse a file of more than :attr:`max_lines` text lines (or XML elements), before
        they are split into objects.

        Raises
        ------
        FormatError
        """
        if count > self.max_lines:
            _refuse(path, None, f"the file has more than {self.max_lines} {what}; no puzzle "
                    "within the size limit needs so many")

    def check_blocks(self, blocks: int, path: str, line: int | None = None) -> None:
        """Refuse more clue blocks than :attr:`max_blocks`.

        Raises
        ------
        FormatError
        """
        if blocks > self.max_blocks:
            _refuse(path, line, f"more than {self.max_blocks} clue blocks; the limit is "
                    f"{self.max_blocks}")


def _refuse(path: str, line: int | None, text: str) -> NoReturn:
    """Raise the :class:`FormatError` of a size limit: ``text``, then how to raise the limit."""
    raise FormatError(path, line, f"{text} (raise it with {ENV_MAX_CELLS})")


def size_limits() -> SizeLimits:
    """The size limits now in force (from ``NONOSAT_MAX_CELLS`` and ``NONOSAT_MAX_FILE_BYTES``).

    Raises
    ------
    FormatError
        A malformed environment variable.
    """
    cells = int(_env_number(ENV_MAX_CELLS, DEFAULT_MAX_CELLS))
    file_bytes = int(_env_number(ENV_MAX_FILE_BYTES, 4 * cells + (1 << 20)))
    return SizeLimits(
        max_cells=cells,
        max_side=max(8 * math.isqrt(cells), 1),
        max_blocks=max(cells // 4, 1024),
        max_lines=max(cells // 4, 1024),
        max_file_bytes=file_bytes,
    )


def max_memory_bytes() -> int:
    """The memory limit in bytes: ``NONOSAT_MAX_MEMORY_MB``, default half the physical memory
    (at least :data:`DEFAULT_MAX_MEMORY_MB`)."""
    default = max(DEFAULT_MAX_MEMORY_MB, _physical_mb() // 2)
    return int(_env_number(ENV_MAX_MEMORY_MB, default) * 2**20)


def max_proof_bytes() -> int:
    """The largest proof or CNF file the LRAT checker reads, in bytes:
    ``NONOSAT_MAX_PROOF_BYTES``, default :data:`DEFAULT_MAX_PROOF_BYTES`.

    Raises
    ------
    FormatError
        A malformed ``NONOSAT_MAX_PROOF_BYTES``.
    """
    return int(_env_number(ENV_MAX_PROOF_BYTES, DEFAULT_MAX_PROOF_BYTES))


def default_timeout() -> float | None:
    """The time limit of the interactive commands when ``--timeout`` is not given: seconds,
    or ``None`` for none (``NONOSAT_TIMEOUT=0``).

    Raises
    ------
    FormatError
        A malformed ``NONOSAT_TIMEOUT``.
    """
    raw = os.environ.get(ENV_TIMEOUT)
    if raw is not None and raw.strip() in ("0", "0.0", "none", "inf"):
        return None
    value = _env_number(ENV_TIMEOUT, DEFAULT_TIMEOUT_S, integer=False)
    return None if math.isinf(value) else value


def resolve_timeout(timeout: float | None) -> float | None:
    """The time limit a command runs with: ``timeout`` when given (``0`` = none), else
    :func:`default_timeout`."""
    if timeout is None:
        return default_timeout()
    return timeout if timeout > 0 else None


#: Memory model per workload: (fixed MiB, bytes per cell, bytes per CNF unit).  Measured with
#: ``/usr/bin/time`` on picross-solver's ``cauldron.non`` (512 x 512, 13.8 M units): native solve
#: 234 MB, SAT solve 1.7 GB, certify 4.9 GB; and on a random 200 x 200 picture (4.1 M units):
#: the SAT engine past 1.07 GB within 20 s, the auto portfolio's hand-off to SAT (with the root
#: implications) 1.44 GB, hence 300 bytes per unit for ``sat``; see benchmarks/RESULTS.md
#: "Fuzzing (issue 17)".
WORKLOADS: dict[str, tuple[int, int, int]] = {
    "read": (120, 64, 0),  # convert, render, batch (its workers have --memory-limit)
    "native": (200, 400, 8),  # the native solver alone, analysis, hints
    "sat": (200, 400, 300),  # SAT, CP-SAT, the auto portfolio (SAT hand-off), DIMACS encoding
    "certify": (200, 400, 380),  # certify and verify-certificate: CNF, DRAT proof, checker
}

_WORKLOAD: contextvars.ContextVar[str] = contextvars.ContextVar("nonosat_workload", default="read")


@contextmanager
def workload(kind: str) -> Iterator[None]:
    """Within the block, :func:`check_memory` estimates for ``kind`` (a key of
    :data:`WORKLOADS`); the CLI sets it per command, library callers get ``"read"``."""
    token = _WORKLOAD.set(kind if kind in WORKLOADS else "read")
    try:
        yield
    finally:
        _WORKLOAD.reset(token)


def command_workload(command: str, options: dict[str, object]) -> str:
    """The workload of a CLI command (its function name, e.g. ``"certify_command"``) run with
    ``options`` (its keyword arguments: ``engine`` matters)."""
    name = command.removesuffix("_command")
    if name in ("certify", "verify_certificate"):
        return "certify"
    if name in ("crosscheck", "encode"):
        return "sat"
    if name in ("solve", "render", "verify", "analyse", "hint", "explain"):
        engine = str(options.get("engine") or "native")
        return "sat" if engine in ("sat", "cpsat", "auto") else "native"
    return "read"


def estimate_memory(puzzle: Puzzle, kind: str | None = None) -> int:
    """Estimated peak memory, in bytes, of workload ``kind`` (default: the current one, see
    :func:`workload`) on ``puzzle`` (a :class:`~nonosat.puzzle.Puzzle`): a fixed process cost,
    bytes per cell, and bytes per unit of CNF size, ``n * (k + 1)`` for each line of ``n`` cells
    and ``k`` blocks (an unknown clue counts as ``n / 2`` blocks), per :data:`WORKLOADS`.
    Linear in the size of the clues, computed in O(lines)."""
    base_mb, per_cell, per_unit = WORKLOADS[kind or _WORKLOAD.get()]
    height, width = puzzle.shape
    units = 0
    if per_unit:
        for clues, length in ((puzzle.rows, width), (puzzle.cols, height)):
            for clue in clues:
                k = (length + 1) // 2 if clue is None else len(clue)
                units += length * (k + 1)
    return base_mb * 2**20 + per_cell * width * height + per_unit * units


def check_memory(puzzle: Puzzle, path: str, kind: str | None = None) -> None:
    """Refuse ``puzzle`` early when :func:`estimate_memory` exceeds the memory limit
    (:func:`max_memory_bytes`).

    Raises
    ------
    FormatError
        Names the file, the estimate, the limit and ``NONOSAT_MAX_MEMORY_MB``.
    """
    kind = kind or _WORKLOAD.get()
    need = estimate_memory(puzzle, kind)
    limit = max_memory_bytes()
    if need > limit:
        height, width = puzzle.shape
        raise FormatError(
            path,
            None,
            f"this {width}x{height} puzzle would need about {need / 2**20:.0f} MiB ({kind}); "
            f"the limit is {limit / 2**20:.0f} MiB (raise it with {ENV_MAX_MEMORY_MB})",
        )
