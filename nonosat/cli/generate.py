"""Make a puzzle from a picture, or a random one, with a unique solution.

From a picture (PNG, JPEG, GIF, WebP, BMP): the picture is scaled to --size cells (a box filter
for line art, Lanczos for photographs; --filter), thresholded to black-and-white by Otsu's method
(--threshold to fix the grey level, --invert for light-on-dark) or quantised to --colours K
colours besides the background, optionally cleaned of specks (--despeckle N: regions of at most
N cells are repainted like their surroundings), then cells are changed, as few as the search
finds, until the puzzle has exactly one solution and, with --grade G, no harder than grade G
(1 = line-solvable, "no guessing"; 2-3 = solved by line solving and probing; 4-5 = unique).
The changed cells are counted and listed (--diff FILE.png draws them); the changes are
irredundant (each one is needed), not proved fewest.

Random (--random WxH): a random picture (--density of filled cells, --colours K) repaired until
unique and exactly grade G when --grade is given (redrawn otherwise); the same --seed gives the
same puzzle.  --count N makes N puzzles (seeds S, S+1, ...) into one multi-puzzle file (a format
that holds several: .nonpack, .xml, .txt tournament, ...) or, when --out is an existing
directory, one file each (--format, default non).

--out is written in the format of its suffix (or --format) and never overwritten without
--force.  --certify DIR writes the uniqueness certificate of the puzzle (as 'nonosat certify').

\b
Examples:
  nonosat generate cat.png --size 30x30 --out cat.non
  nonosat generate logo.png --size 25x20 -k 3 -g 1 --diff d.png -o logo.xml
  nonosat generate --random 25x25 --grade 1 --seed 7 --out r.non
  nonosat generate --random 15x15 --count 20 --out batch.nonpack
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonosat.cli.exits import EXIT_BAD_INPUT, EXIT_GAVE_UP, EXIT_MULTIPLE, EXIT_OK, fail
from nonosat.cli.options import ForceOpt, FormatOpt, JsonOpt, timeout_param
from nonosat.cli.output import echo, emit
from nonosat.cli.running import announce_compile, handle_errors

if TYPE_CHECKING:
    from nonosat.certificates.colour_proofs import ColourCertificate
    from nonosat.certificates.prove import Certificate

TimeoutOpt = Annotated[float | None, timeout_param(
    "generate", "Stop the search after SECONDS per puzzle (exit 4)")]

PictureArg = Annotated[
    Path | None,
    typer.Argument(metavar="[PICTURE]", show_default=False,
                   help="Picture file (PNG, JPEG, GIF, WebP, BMP); omit with --random."),
]
SizeOpt = Annotated[
    str | None,
    typer.Option("--size", metavar="WxH",
                 help="Grid size in cells, e.g. 30x20 (30 alone: height from the aspect ratio)."),
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", metavar="FILE",
                 help="Write the puzzle here (format from the suffix or --format; a directory "
                 "with --count)."),
]
ColoursOpt = Annotated[
    int, typer.Option("--colours", "--colors", "-k", min=1, max=30, metavar="K",
                      help="1 = black-and-white (default); K >= 2 colours besides the "
                      "background."),
]
GradeOpt = Annotated[
    int | None,
    typer.Option("--grade", "-g", min=1, max=5, metavar="G",
                 help="Target grade: 1 line-solvable, 2-3 line solving and probing, 4-5 unique "
                 "(pictures: at most G; --random: exactly G)."),
]
MaxChangesOpt = Annotated[
    int | None, typer.Option("--max-changes", min=0, metavar="N",
                             help="Change at most N cells (default: as many as needed).")
]
ThresholdOpt = Annotated[
    float | None, typer.Option("--threshold", min=0, max=255, metavar="T",
                               help="Grey level 0-255 below which a cell is filled (default: "
                               "Otsu's threshold, chosen from the picture).")
]
InvertOpt = Annotated[bool, typer.Option("--invert", help="Fill the light cells instead.")]
FilterOpt = Annotated[
    str, typer.Option("--filter", metavar="NAME",
                      help="Scaling filter: auto (box for line art, lanczos for photos), box, "
                      "lanczos, nearest, bilinear.")
]
DespeckleOpt = Annotated[
    int, typer.Option("--despeckle", min=0, max=100, metavar="N",
                      help="Repaint regions of at most N cells like their surroundings "
                      "(0 = off).")
]
RandomOpt = Annotated[
    str | None, typer.Option("--random", metavar="WxH", help="Make a random puzzle of this size.")
]
DensityOpt = Annotated[
    float, typer.Option("--density", min=0.01, max=0.99, metavar="P",
                        help="--random: probability a cell is filled.")
]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, metavar="S", help="Random seed.")]
CountOpt = Annotated[
    int, typer.Option("--count", min=1, max=100_000, metavar="N",
                      help="--random: make N puzzles (seeds S, S+1, ...).")
]
DiffOpt = Annotated[
    Path | None, typer.Option("--diff", metavar="FILE.png",
                              help="Draw the puzzle with the changed cells marked.")
]
CertifyOpt = Annotated[
    Path | None, typer.Option("--certify", metavar="DIR",
                              help="Write the uniqueness certificate to DIR.")
]
TitleOpt = Annotated[str | None, typer.Option("--title", metavar="TEXT", help="Puzzle title.")]


def _exit_code(made) -> int:
    from nonosat.engines import Status

    if made.reached:
        return EXIT_OK
    if made.status is Status.UNKNOWN or made.reason == "time limit":
        return EXIT_GAVE_UP
    return EXIT_MULTIPLE


@handle_errors
def generate_command(
    picture: PictureArg = None,
    size: SizeOpt = None,
    out: OutOpt = None,
    colours: ColoursOpt = 1,
    grade: GradeOpt = None,
    max_changes: MaxChangesOpt = None,
    threshold: ThresholdOpt = None,
    invert: InvertOpt = False,
    filter: FilterOpt = "auto",
    despeckle: DespeckleOpt = 0,
    random: RandomOpt = None,
    density: DensityOpt = 0.5,
    seed: SeedOpt = 0,
    count: CountOpt = 1,
    diff: DiffOpt = None,
    certify: CertifyOpt = None,
    title: TitleOpt = None,
    timeout: TimeoutOpt = None,
    force: ForceOpt = False,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
) -> None:
    """Make a puzzle with a unique solution from a picture, or a random one."""
    from nonosat.errors import FormatError

    if (picture is None) == (random is None):
        raise fail("give a PICTURE or --random WxH (not both)")
    if out is None:
        raise fail("--out FILE is required (where to write the puzzle)")
    if random is None and size is None:
        raise fail("--size WxH is required with a picture")
    if count > 1 and random is None:
        raise fail("--count applies to --random")
    if colours >= 2 and grade == 2:
        raise fail("grade 2 (implications) does not exist for colour puzzles; use 1 or 3")
    for path in (diff, certify):
        if path is not None and path.exists() and not force:
            raise FormatError(str(path), None, "already exists; use --force to overwrite it")
    if diff is not None and diff.suffix.lower() != ".png":
        raise FormatError(str(diff), None, "--diff must end in .png")
    announce_compile()
    if random is not None:
        _random(random, out, colours, grade, density, seed, count, timeout, force, json_output,
                format, diff, certify)
        return
    assert picture is not None and size is not None
    _picture(picture, size, out, colours, grade, max_changes, threshold, invert, filter,
             despeckle, diff, certify, title, timeout, force, json_output, format)


def _size(text: str, option: str) -> tuple[int, int | None]:
    from nonosat.generate.from_image import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None


def _status_line(console: Any) -> Any:
    """A progress callback printing one updating line on stderr (a terminal only)."""
    if console is None:
        return None

    def show(info: dict[str, Any]) -> None:
        console.print(f"  step {info['step']}: {info['changes']} cells changed, "
                      f"{info['open']} open after line solving", end="\r", markup=False)

    return show


def _picture(picture, size, out, colours, grade, max_changes, threshold, invert, filter,
             despeckle, diff, certify, title, timeout, force, json_output, format) -> None:
    from nonosat.formats import write_puzzle, writer_format
    from nonosat.generate.from_image import picture_grid, read_picture_file
    from nonosat.generate.unique import make_unique

    width, height = _size(size, "--size")
    writer_format(out, format)  # an unwritable format fails before any work
    if out.exists() and not force:
        from nonosat.errors import FormatError

        raise FormatError(str(out), None, "already exists; use --force to overwrite it")
    start = time.perf_counter()
    data = read_picture_file(picture)
    try:
        grid = picture_grid(data, width, height, colours=colours, threshold=threshold,
                            invert=invert, filter=filter, despeckle=despeckle,
                            name=str(picture))
    except ValueError as exc:
        raise fail(str(exc)) from None
    console = _stderr_console()
    made = make_unique(grid.picture, grid.palette, grade=grade, max_changes=max_changes,
                       timeout=timeout, title=title or Path(picture).stem,
                       progress=_status_line(console))
    if console is not None:
        console.print(" " * 70, end="\r")
    made.info.update({"picture": str(picture), "source_size": list(grid.source_size),
                      "kind": grid.kind, "filter": grid.filter,
                      "threshold": None if grid.threshold is None else round(grid.threshold, 2),
                      "specks_removed": grid.specks_removed,
                      "filled_share": round(float((grid.picture != 0).mean()), 4)})
    _finish(made, out, format, force, diff, certify, json_output, time.perf_counter() - start,
            write_puzzle)


def _stderr_console() -> Any:
    if not sys.stderr.isatty():
        return None
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _describe(made) -> str:
    h, w = made.picture.shape
    share = 100.0 * made.changes / (h * w)
    verdict = {"unique": "unique solution", "multiple": "several solutions",
               "none": "no solution", "unknown": "undecided"}.get(made.status.value,
                                                                  made.status.value)
    grade = f", grade {made.grade} ({made.grade_name})" if made.grade else ""
    line = (f"{made.puzzle.describe()}: {verdict}{grade}; {made.changes} cell"
            f"{'s' * (made.changes != 1)} changed ({share:.1f}%) [{made.time_s:.2f} s]")
    if not made.reached:
        line += f"; target not reached: {made.reason or 'not unique'}"
    return line


def _changed_cells(made, limit: int = 20) -> str:
    import numpy as np

    cells = [f"R{int(r) + 1}C{int(c) + 1}" for r, c in zip(*np.nonzero(made.changed), strict=True)]
    more = f" (+{len(cells) - limit} more)" if len(cells) > limit else ""
    return ", ".join(cells[:limit]) + more


def _finish(made, out, format, force, diff, certify, json_output, total_s, write_puzzle) -> None:
    fmt = write_puzzle(made.puzzle, out, format, force)
    written = [str(out)]
    if diff is not None:
        from nonosat.render.changes import changes_png
        from nonosat.safe_io import atomic_write

        atomic_write(diff, changes_png(made.picture, made.original, made.puzzle.palette), force)
        written.append(str(diff))
    cert_info = _certify(made, certify, force) if certify is not None else None
    code = _exit_code(made)
    if json_output:
        emit("generate", {**made.to_json(), "out": str(out), "format": fmt.name,
                    "diff": None if diff is None else str(diff), "certificate": cert_info,
                    "total_s": round(total_s, 6)})
        raise typer.Exit(code)
    echo(_describe(made))
    if made.changes:
        echo(f"  changed: {_changed_cells(made)}")
    if cert_info is not None:
        echo(f"  certificate: {cert_info['directory']} ({cert_info['status']})")
    echo(f"  wrote {', '.join(written)}")
    raise typer.Exit(code)


def _certify(made, directory: Path, force: bool) -> dict[str, Any]:
    """Certify the puzzle made and write the certificate to ``directory``."""
    from nonosat.certificates import ensure_writable_dir, resolve_checkers

    ensure_writable_dir(directory, force)
    checkers = resolve_checkers(["auto"])
    cert: Certificate | ColourCertificate
    if made.puzzle.is_colour:
        from nonosat.certificates.colour_proofs import certify_colour, write_colour_certificate

        cert = certify_colour(made.puzzle, checkers=checkers)
        write_colour_certificate(cert, directory, force)
    else:
        from nonosat.certificates import write_certificate
        from nonosat.certificates.certifier import certify_puzzle

        bw_cert = certify_puzzle(made.puzzle, checkers=checkers)
        write_certificate(bw_cert, directory, force)
        cert = bw_cert
    ok = cert.proved and all(c.ok for c in cert.checks)
    return {"directory": str(directory), "verdict": cert.verdict, "certified": bool(ok),
            "checkers": [c.checker for c in cert.checks if c.ok],
            "status": "certified by " + ", ".join(c.checker for c in cert.checks)
            if ok else f"NOT certified ({cert.verdict})"}


def _random(random, out, colours, grade, density, seed, count, timeout, force, json_output,
            format, diff, certify) -> None:
    from nonosat.errors import FormatError
    from nonosat.formats import write_puzzle, write_puzzles, writer_format
    from nonosat.generate.random import random_puzzle

    width, height = _size(random, "--random")
    if height is None:
        height = width
    if count == 1:
        start = time.perf_counter()
        writer_format(out, format)
        if out.exists() and not force:
            raise FormatError(str(out), None, "already exists; use --force to overwrite it")
        made = _one_random(random_puzzle, width, height, density, colours, grade, seed, timeout)
        _finish(made, out, format, force, diff, certify, json_output,
                time.perf_counter() - start, write_puzzle)
        return
    if diff is not None or certify is not None:
        raise fail("--diff and --certify make one puzzle; leave out --count")
    to_dir = out.is_dir() or str(out).endswith(("/", "\\"))
    fmt_name = format or "non"
    if not to_dir:
        writer_format(out, format)
        if out.exists() and not force:
            raise FormatError(str(out), None, "already exists; use --force to overwrite it")
    else:
        from nonosat.formats import get_format

        fmt_suffix = get_format(fmt_name).suffixes[0]
    made_all = []
    start = time.perf_counter()
    console = _stderr_console()
    progress = None
    if console is not None:
        from rich.progress import Progress

        progress = Progress(console=console, transient=True)
        progress.start()
        task = progress.add_task("generating", total=count)
    try:
        for k in range(count):
            made_all.append(_one_random(random_puzzle, width, height, density, colours, grade,
                                        seed + k, timeout))
            if progress is not None:
                progress.advance(task)
    finally:
        if progress is not None:
            progress.stop()
    total = time.perf_counter() - start
    if to_dir:
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for k, made in enumerate(made_all):
            path = out / f"random-{width}x{height}-{seed + k:06d}{fmt_suffix}"
            write_puzzle(made.puzzle, path, fmt_name, force)
            paths.append(str(path))
    else:
        write_puzzles([m.puzzle for m in made_all], out, format, force)
        paths = [str(out)]
    reached = sum(m.reached for m in made_all)
    code = EXIT_OK if reached == count else EXIT_MULTIPLE
    if json_output:
        emit("generate", {"count": count, "reached": reached, "total_s": round(total, 6),
                    "per_second": round(count / total, 3) if total else None,
                    "written": paths, "puzzles": [m.to_json() for m in made_all]})
        raise typer.Exit(code)
    grades: dict[int | None, int] = {}
    for m in made_all:
        grades[m.grade] = grades.get(m.grade, 0) + 1
    spread = ", ".join(f"grade {g}: {n}" for g, n in sorted(grades.items(),
                                                            key=lambda x: (x[0] is None, x[0])))
    echo(f"{count} random {width}x{height} puzzles, {reached} reaching the target "
               f"({spread}) in {total:.2f} s ({count / total:.2f} per second)")
    echo(f"  wrote {paths[0]}" + (f" ... ({len(paths)} files)" if len(paths) > 1 else ""))
    raise typer.Exit(code)


def _one_random(random_puzzle, width, height, density, colours, grade, seed, timeout):
    try:
        return random_puzzle(width, height, density=density, colours=colours, grade=grade,
                             seed=seed, timeout=timeout)
    except ValueError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    except TimeoutError as exc:
        raise fail(str(exc), EXIT_GAVE_UP) from None
