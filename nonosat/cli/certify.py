"""Certify that a puzzle has exactly one solution, with a DRAT proof anyone can check.

certify writes a certificate directory: puzzle.json (the clues), puzzle.cnf (the CNF encoding
plus the clause excluding the solution found), proof.drat (a DRAT proof that this CNF is
unsatisfiable, so no other solution exists), proof.lrat (the same refutation with each lemma's
hints, made in-process: nonosat's unit propagation for the native solver's lemmas, CaDiCaL's
own LRAT for its part), solution.txt and certificate.json (fingerprint, verdict, encoding,
solver, every checker that ran with its version and answer, who made the LRAT, times, proof
size, file hashes).  The proof is checked before anything is called certified, by default with
nonosat-lrat, the project's own LRAT checker, on proof.lrat, and the check that proof.lrat is
the LRAT form of proof.drat; drat-trim and cake_lpr run too when found (--checker,
--checker-path).  The proof is written by the native solver (--prover native: its propagation
and probing deductions, the cells propagation does not already give, for puzzles it decides
without search; exit 5 when it needs search), by the SAT solver (--prover sat), or by both
(--prover auto, the default: native where it decides the puzzle without search, else the SAT
solver's proof after the native deductions); it is checked the same way whatever wrote it.  The
verdict comes first, from the same portfolio and time limit as 'nonosat solve'.  A puzzle with
several solutions gets a witness certificate instead (exit 1): puzzle.json, solution-1.txt and
solution-2.txt (two distinct solutions, each checked against the clues) and certificate.json
("kind": "witness"); a puzzle without solution gets a proof that the CNF itself is
unsatisfiable (exit 3).  A proof that fails its check exits 1 and the files stay for
inspection.  DIR is never overwritten without --force.
Check it again anywhere with 'nonosat verify-certificate DIR'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nonosat.cli.common import (
    EXIT_FAILED,
    EXIT_GAVE_UP,
    EXIT_MULTIPLE,
    EXIT_NONE,
    EXIT_OK,
    announce_compile,
    handle_errors,
    split_puzzle_ref,
)
from nonosat.cli.options import (
    BriefOpt,
    CheckerOpt,
    CheckerPathOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    timeout_param,
    use_checker_path,
)
from nonosat.cli.output import brief_line, emit
from nonosat.text import printable

VERIFY_HELP = """Check a certificate directory written by 'nonosat certify'.

Trusts nothing in DIR but the clues: re-derives the CNF from puzzle.json (encoding and version
from certificate.json) plus the blocking clause of solution.txt and compares it with puzzle.cnf
clause by clause, checks the solution against the clues, and checks the SHA-256 of every file
recorded in certificate.json.  The proof: by default nonosat-lrat, the project's own LRAT
checker, checks proof.lrat against the re-derived CNF, and proof.lrat must be the LRAT form of
proof.drat (the same lemmas); the verdict rests on these checks.  drat-trim and cake_lpr run too
when found; dratify only with --checker dratify, and never alone (it is not sound on
deletions).  A certificate without proof.lrat is rejected.  Without --puzzle the puzzle's
identity is unverified: the report quotes the certificate's own title as such; with --puzzle
FILE the certified clues must be FILE's.  A witness certificate (several solutions) is checked
against the clues alone: both solutions satisfy every clue and differ.  Every problem found is
listed.  Exits with the
certified verdict's code when everything checks (0 unique, 1 several solutions, 3 none) and 1
when anything fails.
"""

OutOpt = Annotated[
    Path,
    typer.Option("--out", "-o", help="Certificate directory to write.", show_default=False),
]
DirArg = Annotated[Path, typer.Argument(help="Certificate directory.", show_default=False)]
EncodingOpt = Annotated[
    str | None,
    typer.Option("--encoding", help="CNF line encoding: order, regular, dfa (default: order)."),
]
SatSolverOpt = Annotated[
    str | None,
    typer.Option("--sat-solver", help="PySAT solver that logs DRAT proofs (default Cadical195)."),
]
ExpectedOpt = Annotated[
    Path | None,
    typer.Option(
        "--puzzle",
        metavar="FILE",
        help="The puzzle file the certificate must be about (FILE#N: puzzle N of a "
        "multi-puzzle file): its clues are compared with the certified ones.",
    ),
]


def warn_dratify(names: list[str] | None) -> None:
    """One line on stderr when dratify is asked for (``--checker dratify`` or ``all``): it is
    not sound on deletions, and the default check runs beside it."""
    from nonosat.certificates.checkers import DRATIFY_WARNING

    if names and any(n in ("dratify", "all") for n in names):
        typer.echo(f"nonosat: {DRATIFY_WARNING}", err=True)


def checks_line(checks: list) -> str:
    """``name version: accepted in 0.012 s`` for each check, comma-separated."""

    parts = []
    for c in checks:
        version = f" {printable(c.version)}" if c.version else ""
        answer = "accepted" if c.ok else "REJECTED"
        parts.append(f"{c.checker}{version} {answer} in {c.time_s:.3f} s")
    return ", ".join(parts)


def rests_on(checks: list) -> str:
    """What the verdict rests on: each check that ran and the file it checked, dratify marked
    as never deciding alone."""
    said = []
    for c in checks:
        what = f"{c.checker} ({c.checks})" if c.checks else c.checker
        said.append(what + (", never alone" if c.checker == "dratify" else ""))
    return "; ".join(said) or "no check"


def identity(puzzle, puzzle_file: Path | None, matched: bool) -> str:
    """How a verification report names the certified puzzle: by the file the user gave when
    its clues are the certified ones, else by the certificate's own title, quoted and escaped
    and marked unverified (a certificate can carry any title)."""
    from nonosat.text import quoted

    fingerprint = puzzle.fingerprint()[:12] if puzzle is not None else "?"
    if puzzle_file is not None and matched:
        return f"{printable(str(puzzle_file))} (its clues, sha256 {fingerprint}...)"
    title = getattr(puzzle, "title", None)
    called = f"titled {quoted(title)}" if title else "without a title"
    return (f"the puzzle {called} in the certificate (identity unverified: no --puzzle "
            f"given; clues sha256 {fingerprint}...)")


TimeoutOpt = Annotated[float | None, timeout_param("certify")]
VerifyTimeoutOpt = Annotated[
    float | None, timeout_param("verify-certificate", "Seconds for each proof check")]
ProverOpt = Annotated[
    str,
    typer.Option(
        "--prover",
        metavar="NAME",
        help="Who writes the proof: native (the native solver's deductions; only puzzles it "
        "decides without search), sat (the SAT solver), auto (native where it decides without "
        "search, else SAT after the native deductions).",
    ),
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite the files of a non-empty DIR.")]

#: Exit code of ``certify --prover native`` on a puzzle the native solver needs search for.
EXIT_PROVER_REFUSED = 5

_EXIT = {"unique": EXIT_OK, "multiple": EXIT_MULTIPLE, "none": EXIT_NONE, "unknown": EXIT_GAVE_UP}


@handle_errors
def certify_command(
    puzzle_path: PuzzleArg,
    out: OutOpt,
    encoding: EncodingOpt = None,
    prover: ProverOpt = "auto",
    sat_solver: SatSolverOpt = None,
    checker: CheckerOpt = None,
    checker_path: CheckerPathOpt = None,
    timeout: TimeoutOpt = None,
    force: ForceOpt = False,
    json_output: JsonOpt = False,
    format: FormatOpt = None,
    index: IndexOpt = None,
    brief: BriefOpt = False,
) -> None:
    """Certify a puzzle's unique solution with a checked DRAT proof."""
    from nonosat.certificates import (
        ensure_writable_dir,
        resolve_checkers,
        write_certificate,
    )
    from nonosat.certify import certify_puzzle, check_prover
    from nonosat.cli.common import read_puzzle
    from nonosat.encodings.satsolver import DEFAULT_SOLVER
    from nonosat.errors import ProverRefusedError

    check_prover(prover)
    use_checker_path(checker_path)
    warn_dratify(checker)
    puzzle_path, index = split_puzzle_ref(puzzle_path, index)
    puzzle = read_puzzle(puzzle_path, format, index)
    ensure_writable_dir(out, force)
    ref = str(puzzle_path) + (f"#{index}" if index is not None else "")
    if puzzle.is_colour:
        _certify_colour(puzzle, out, checker, sat_solver, timeout, json_output, ref, brief)
    announce_compile()
    checkers = resolve_checkers(checker or ["auto"])
    try:
        cert = certify_puzzle(
            puzzle,
            prover=prover,
            encoding=encoding,
            solver=sat_solver or DEFAULT_SOLVER,
            checkers=checkers,
            timeout=timeout,
        )
    except ProverRefusedError as exc:
        # not bad input: the puzzle is fine, the chosen prover cannot prove it (exit 5)
        if json_output:
            emit("certify", {"puzzle": ref, "verdict": "unknown", "certified": False,
                             "prover": prover, "refused": str(exc)})
        elif brief:
            typer.echo(brief_line(ref, "unknown", None, "refused"))
        else:
            typer.echo(printable(f"nonosat: {exc}"), err=True)
        raise typer.Exit(EXIT_PROVER_REFUSED) from None
    if cert.verdict == "multiple":
        _witness_written(cert, puzzle, out, force, json_output, ref, brief)
    written = [] if cert.verdict == "unknown" else write_certificate(cert, out, force)
    rejected = [c for c in cert.checks if not c.ok]
    code = EXIT_FAILED if rejected else _EXIT[cert.verdict]
    if json_output:
        emit("certify", {
            "puzzle": ref,
            "verdict": cert.verdict,
            "certified": cert.proved,
            "directory": str(out) if written else None,
            "encoding": cert.encoding,
            "prover": cert.prover,
            "solver": cert.solver,
            "checks": [c.to_json() for c in cert.checks],
            "checkers_accepted": [c.checker for c in cert.checks if c.ok],
            "proof": {k: cert.stats[k] for k in ("lemmas", "deletions", "proof_bytes")
                      if k in cert.stats},
            "lrat": None if cert.lrat is None else {"made_by": cert.lrat_source,
                                                    "lines": cert.lrat.count("\n")},
            "times_s": {k: round(v, 6) for k, v in cert.times.items()},
        })
        raise typer.Exit(code)
    if brief:
        typer.echo(_brief(ref, cert.verdict, cert.times, bool(rejected), cert.proved))
        raise typer.Exit(code)
    name = f"{ref}: {puzzle.describe()}"
    if cert.verdict == "unknown":
        typer.echo(printable(f"{name}: gave up before deciding [{cert.times['total']:.3f} s]; "
                             "nothing written"))
        raise typer.Exit(code)
    claim = "unique solution" if cert.verdict == "unique" else "no solution"
    status = "certified" if cert.proved else "NOT certified: the proof was rejected"
    typer.echo(printable(f"{name}: {claim}, {status}"))
    lemmas = cert.stats.get("lemmas", 0)
    how = cert.stats.get("prove", {}).get("method", "sat")
    prefix = cert.stats.get("prefix_lemmas", 0)
    filled = cert.stats.get("native", {}).get("filled", 0)
    implied = cert.stats.get("native", {}).get("implied", 0)
    if cert.prover == "native":
        source = "native solver: propagation and probing deductions" + (
            f"; {filled} that unit propagation does not give derived by SAT" if filled else "") + (
            f"; {implied:,} that it gives left out" if implied else "")
    elif cert.prover == "native+sat":
        source = f"{prefix:,} from the native solver's deductions, then {cert.solver}"
    elif how == "unit propagation":
        source = "unit propagation refutes the formula"
    else:
        source = cert.solver
    typer.echo(f"  proof: {lemmas:,} lemma{'s' if lemmas != 1 else ''} ({source}), "
               f"{cert.encoding} encoding")
    _echo_lrat_and_checks(cert)
    typer.echo(printable(f"  files: {out}/ ({', '.join(p.name for p in written)}) "
                         f"[{cert.times['total']:.3f} s]"))
    raise typer.Exit(code)


def _echo_lrat_and_checks(cert) -> None:
    """The LRAT line and one line per check of a certify report."""
    from nonosat.certificates.prove import LRAT_SOURCES

    if cert.lrat is not None:
        by = LRAT_SOURCES.get(cert.lrat_source or "", str(cert.lrat_source))
        typer.echo(f"  LRAT: {cert.lrat.count(chr(10)):,} lines, made by {by}")
    else:
        typer.echo("  LRAT: none could be made (a lemma is not RUP and drat-trim was not found)")
    for check in cert.checks:
        verdict = "accepted" if check.ok else f"REJECTED ({printable(check.reason)})"
        version = f" {printable(check.version)}" if check.version else ""
        typer.echo(f"  {check.checker}{version}: {verdict} in {check.time_s:.3f} s")
    if cert.checks:
        typer.echo(f"  verdict rests on: {rests_on(cert.checks)}")


@handle_errors
def verify_command(
    cert_dir: DirArg,
    checker: CheckerOpt = None,
    checker_path: CheckerPathOpt = None,
    puzzle_file: ExpectedOpt = None,
    timeout: VerifyTimeoutOpt = None,
    json_output: JsonOpt = False,
    brief: BriefOpt = False,
) -> None:
    """Check a certificate directory written by nonosat certify."""
    from nonosat.certificates import verify_certificate
    from nonosat.formats import read_puzzle

    use_checker_path(checker_path)
    warn_dratify(checker)
    expected = None
    if puzzle_file is not None:  # FILE#N: puzzle N of a multi-puzzle file, as nonosat names it
        expected_path, expected_index = split_puzzle_ref(puzzle_file)
        expected = read_puzzle(expected_path, None, expected_index)
    from nonosat.certificates.colour import (
        is_colour_certificate,
        verify_colour_certificate,
    )

    shown = printable(str(cert_dir))
    if is_colour_certificate(cert_dir):
        colour = verify_colour_certificate(cert_dir, checker or ["auto"], expected=expected)
        code = _EXIT.get(colour.verdict or "", EXIT_FAILED) if colour.ok else EXIT_FAILED
        if json_output:
            emit("verify-certificate", {"directory": str(cert_dir), "kind": "colour",
                                        "ok": colour.ok,
                        "verdict": colour.verdict, "problems": colour.problems,
                        "checks": [c.to_json() for c in colour.checks],
                        "checkers_accepted": [c.checker for c in colour.checks if c.ok],
                        "puzzle": colour.puzzle.fingerprint() if colour.puzzle else None,
                        "title": colour.puzzle.title if colour.puzzle else None,
                        "identity": "matched" if colour.identity_verified else "unverified"})
        elif brief:
            typer.echo(_brief_check(cert_dir, colour.verdict, colour.ok, colour.checks))
        elif colour.ok:
            claim = {"unique": "unique solution", "none": "no solution"}.get(
                colour.verdict or "", str(colour.verdict))
            about = identity(colour.puzzle, puzzle_file, colour.identity_verified)
            typer.echo(f"{shown}: verified: {claim} of {about} (colour) "
                       f"[{checks_line(colour.checks)}]")
            typer.echo(f"  verdict rests on: {rests_on(colour.checks)}")
        else:
            typer.echo(f"{shown}: NOT verified", err=True)
            for problem in colour.problems:
                typer.echo(f"  {printable(problem)}", err=True)
        raise typer.Exit(code)
    result = verify_certificate(cert_dir, checker or ["auto"], timeout, expected=expected)
    code = _EXIT.get(result.verdict or "", EXIT_FAILED) if result.ok else EXIT_FAILED
    if json_output:
        emit("verify-certificate", {"directory": str(cert_dir), **result.to_json()})
        raise typer.Exit(code)
    if brief:
        typer.echo(_brief_check(cert_dir, result.verdict, result.ok, result.checks))
        raise typer.Exit(code)
    if result.ok:
        claim = {"unique": "unique solution", "none": "no solution",
                 "multiple": "several solutions (witness)"}[result.verdict or "unique"]
        about = identity(result.puzzle, puzzle_file, result.identity_verified)
        checks = checks_line(result.checks)
        typer.echo(f"{shown}: verified: {claim} of {about}" + (f" [{checks}]" if checks else ""))
        if result.checks:
            typer.echo(f"  verdict rests on: {rests_on(result.checks)}")
    else:
        typer.echo(f"{shown}: NOT verified", err=True)
        for problem in result.problems:
            typer.echo(f"  {printable(problem)}", err=True)
    raise typer.Exit(code)


def _witness_written(cert, puzzle, out: Path, force: bool, json_output: bool, ref: str,
                     brief: bool = False) -> None:
    """Several solutions: write the witness certificate (two distinct solutions, each checked
    against the clues; :mod:`nonosat.certificates.witness`) and exit 1."""
    from nonosat.certify import write_certificate_of

    written = write_certificate_of(cert, out, force)
    found_by = cert.stats.get("decided_by") if isinstance(getattr(cert, "stats", None),
                                                           dict) else None
    differ = int((cert.solutions[0] != cert.solutions[1]).sum())
    total = cert.times.get("total", 0.0)
    if json_output:
        emit("certify", {"puzzle": ref, "verdict": "multiple", "certified": True,
                         "kind": "witness", "directory": str(out), "found_by": found_by,
                         "differing_cells": differ,
                         "times_s": {k: round(v, 6) for k, v in cert.times.items()}})
        raise typer.Exit(EXIT_MULTIPLE)
    if brief:
        time_s = sum(v for k, v in cert.times.items() if k in ("decide", "solve", "prove"))
        typer.echo(brief_line(ref, "multiple", time_s, "witness"))
        raise typer.Exit(EXIT_MULTIPLE)
    load = cert.times.get("load", 0.0)
    timing = f"{total:.3f} s" + (f"; loading the engine's kernels and libraries: {load:.1f} s"
                                 if load >= 0.5 else "")
    typer.echo(printable(f"{ref}: {puzzle.describe()}: several solutions, witness certificate "
                         f"written (two distinct solutions, each checked against the clues; they "
                         f"differ in {differ} cell{'s' if differ != 1 else ''})"))
    typer.echo(printable(f"  files: {out}/ ({', '.join(p.name for p in written)}) [{timing}]"))
    raise typer.Exit(EXIT_MULTIPLE)


def _brief(ref: str, verdict: str, times: dict[str, float], rejected: bool,
           proved: bool) -> str:
    """``PUZZLE STATUS TIME certified|rejected|-``: certify's brief line."""
    time_s = sum(v for k, v in times.items() if k in ("decide", "solve", "prove"))
    mark = "rejected" if rejected else ("certified" if proved else "")
    return brief_line(ref, verdict, time_s, mark)


def _brief_check(cert_dir: Path, verdict: str | None, ok: bool, checks: list) -> str:
    """``DIR STATUS TIME verified|failed``: verify-certificate's brief line (the checkers'
    time)."""
    time_s = sum(c.time_s for c in checks)
    return brief_line(str(cert_dir), verdict if ok and verdict else "unknown", time_s,
                      "verified" if ok else "failed")


def _certify_colour(puzzle, out, checker, sat_solver, timeout, json_output, ref=None,
                    brief=False) -> None:
    """``certify`` of a colour puzzle (:mod:`nonosat.certificates.colour`): the portfolio
    decides (:func:`nonosat.certify.certify_colour_puzzle`); several solutions get a witness
    certificate, otherwise the SAT solver's DRAT proof of the colour CNF plus blocking clause;
    always exits."""
    from nonosat.certificates import resolve_checkers
    from nonosat.certificates.colour import write_colour_certificate
    from nonosat.certify import certify_colour_puzzle
    from nonosat.encodings.satsolver import DEFAULT_SOLVER

    announce_compile(colour=True)
    cert = certify_colour_puzzle(puzzle, solver=sat_solver or DEFAULT_SOLVER,
                                 checkers=resolve_checkers(checker or ["auto"]), timeout=timeout)
    if cert.verdict == "multiple":
        _witness_written(cert, puzzle, out, True, json_output, ref or puzzle.describe(), brief)
    written = [] if cert.verdict == "unknown" else write_colour_certificate(cert, out)
    rejected = [c for c in cert.checks if not c.ok]
    code = EXIT_FAILED if rejected else _EXIT[cert.verdict]
    ref = ref or puzzle.describe()
    if json_output:
        emit("certify", {"puzzle": ref, "verdict": cert.verdict,
                    "certified": cert.proved, "directory": str(out) if written else None,
                    "encoding": "colour-starts", "prover": "sat", "solver": cert.solver,
                    "checks": [c.to_json() for c in cert.checks],
                    "checkers_accepted": [c.checker for c in cert.checks if c.ok],
                    "lrat": None if cert.lrat is None else {
                        "made_by": cert.lrat_source, "lines": cert.lrat.count("\n")},
                    "times_s": {k: round(v, 6) for k, v in cert.times.items()}})
        raise typer.Exit(code)
    if brief:
        typer.echo(_brief(ref, cert.verdict, cert.times, bool(rejected), cert.proved))
        raise typer.Exit(code)
    name = f"{ref}: {puzzle.describe()}"
    if cert.verdict == "unknown":
        typer.echo(printable(f"{name}: gave up before deciding; nothing written"))
        raise typer.Exit(code)
    claim = "unique solution" if cert.verdict == "unique" else "no solution"
    status = "certified" if cert.proved else "NOT certified: the proof was rejected"
    typer.echo(printable(f"{name}: {claim}, {status} (colour puzzle)"))
    lemmas = (cert.proof or "").count("\n")
    typer.echo(f"  proof: {lemmas:,} DRAT lines ({cert.solver}), colour-starts encoding")
    _echo_lrat_and_checks(cert)
    typer.echo(printable(f"  files: {out}/ ({', '.join(p.name for p in written)}) "
                         f"[{cert.times['total']:.3f} s]"))
    raise typer.Exit(code)
