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

from nonosat.cli.exits import EXIT_FAILED, EXIT_GAVE_UP, EXIT_MULTIPLE, EXIT_NONE, EXIT_OK
from nonosat.cli.inputs import load_puzzle, split_puzzle_ref, warn_givens_left_out
from nonosat.cli.options import (
    BriefOpt,
    CheckerOpt,
    CheckerPathOpt,
    EncodingOpt,
    ForceOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    SatSolverOpt,
    out_param,
    timeout_param,
    use_checker_path,
)
from nonosat.cli.output import brief_line, echo, emit
from nonosat.cli.running import announce_compile, handle_errors
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

DirArg = Annotated[Path, typer.Argument(help="Certificate directory.", show_default=False)]
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
        echo(f"nonosat: {DRATIFY_WARNING}", err=True)


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
OutOpt = Annotated[Path, out_param(
    "Certificate directory to write (claimed atomically: it holds the whole certificate or "
    "nothing).", required=True)]

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
    from nonosat.certificates import ensure_writable_dir, resolve_checkers
    from nonosat.certificates.certifier import certify_colour_puzzle, certify_puzzle, check_prover
    from nonosat.encodings.satsolver import DEFAULT_SOLVER
    from nonosat.errors import ProverRefusedError

    check_prover(prover)
    use_checker_path(checker_path)
    warn_dratify(checker)
    puzzle, ref = load_puzzle(puzzle_path, format, index)
    ensure_writable_dir(out, force)
    # a certificate holds the clues alone (puzzle.json)
    warn_givens_left_out([(ref, puzzle)], "certify decides and proves the clues alone")
    announce_compile()
    checkers = resolve_checkers(checker or ["auto"])
    solver = sat_solver or DEFAULT_SOLVER
    if puzzle.is_colour:  # the portfolio decides; the SAT solver's proof of the colour CNF
        cert = certify_colour_puzzle(puzzle, solver=solver, checkers=checkers, timeout=timeout)
        _report(cert, puzzle, out, force, ref, json_output, brief)
    try:
        cert = certify_puzzle(puzzle, prover=prover, encoding=encoding, solver=solver,
                              checkers=checkers, timeout=timeout)
    except ProverRefusedError as exc:
        # not bad input: the puzzle is fine, the chosen prover cannot prove it (exit 5)
        if json_output:
            emit("certify", {"puzzle": ref, "verdict": "unknown", "certified": False,
                             "prover": prover, "refused": str(exc)})
        elif brief:
            typer.echo(brief_line(ref, "unknown", None, "refused"))
        else:
            echo(printable(f"nonosat: {exc}"), err=True)
        raise typer.Exit(EXIT_PROVER_REFUSED) from None
    _report(cert, puzzle, out, force, ref, json_output, brief)


def _report(cert, puzzle, out: Path, force: bool, ref: str, json_output: bool,
            brief: bool) -> None:
    """Write the certificate (:func:`nonosat.certificates.certifier.write_certificate_of`: a proof
    bundle, a colour certificate, or with several solutions a witness) and print what was
    certified, as JSON, a brief line or the text report; always exits with the verdict's code (1
    when a check rejected the proof)."""
    from nonosat.certificates.certifier import write_certificate_of

    if cert.verdict == "multiple":
        _witness_written(cert, puzzle, out, force, json_output, ref, brief)
    colour = puzzle.is_colour
    written = [] if cert.verdict == "unknown" else write_certificate_of(cert, out, force)
    rejected = [c for c in cert.checks if not c.ok]
    code = EXIT_FAILED if rejected else _EXIT[cert.verdict]
    if json_output:
        record = {
            "puzzle": ref, "verdict": cert.verdict, "certified": cert.proved,
            "directory": str(out) if written else None,
            "encoding": "colour-starts" if colour else cert.encoding,
            "prover": "sat" if colour else cert.prover, "solver": cert.solver,
            "checks": [c.to_json() for c in cert.checks],
            "checkers_accepted": [c.checker for c in cert.checks if c.ok],
            "proof": {k: cert.stats[k] for k in ("lemmas", "deletions", "proof_bytes")
                      if k in cert.stats} if not colour else None,
            "lrat": None if cert.lrat is None else {"made_by": cert.lrat_source,
                                                    "lines": cert.lrat.count("\n")},
            "times_s": {k: round(v, 6) for k, v in cert.times.items()},
        }
        if colour:
            del record["proof"]
        emit("certify", record)
        raise typer.Exit(code)
    if brief:
        typer.echo(_brief(ref, cert.verdict, cert.times, bool(rejected), cert.proved))
        raise typer.Exit(code)
    name = f"{ref}: {puzzle.describe()}"
    if cert.verdict == "unknown":
        took = "" if colour else f" [{cert.times['total']:.3f} s]"
        echo(printable(f"{name}: gave up before deciding{took}; nothing written"))
        raise typer.Exit(code)
    claim = "unique solution" if cert.verdict == "unique" else "no solution"
    status = "certified" if cert.proved else "NOT certified: the proof was rejected"
    echo(printable(f"{name}: {claim}, {status}" + (" (colour puzzle)" if colour else "")))
    echo(_proof_line(cert, colour))
    _echo_lrat_and_checks(cert)
    echo(printable(f"  files: {out}/ ({', '.join(p.name for p in written)}) "
                   f"[{cert.times['total']:.3f} s]"))
    raise typer.Exit(code)


def _proof_line(cert, colour: bool) -> str:
    """``  proof: N lemmas (who wrote them), ENCODING encoding``."""
    if colour:
        lemmas = (cert.proof or "").count("\n")
        return f"  proof: {lemmas:,} DRAT lines ({cert.solver}), colour-starts encoding"
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
    return f"  proof: {lemmas:,} lemma{'s' if lemmas != 1 else ''} ({source}), " \
        f"{cert.encoding} encoding"


def _echo_lrat_and_checks(cert) -> None:
    """The LRAT line and one line per check of a certify report."""
    from nonosat.certificates.prove import LRAT_SOURCES

    if cert.lrat is not None:
        by = LRAT_SOURCES.get(cert.lrat_source or "", str(cert.lrat_source))
        echo(f"  LRAT: {cert.lrat.count(chr(10)):,} lines, made by {by}")
    else:
        typer.echo("  LRAT: none could be made (a lemma is not RUP and drat-trim was not found)")
    for check in cert.checks:
        verdict = "accepted" if check.ok else f"REJECTED ({printable(check.reason)})"
        version = f" {printable(check.version)}" if check.version else ""
        echo(f"  {check.checker}{version}: {verdict} in {check.time_s:.3f} s")
    if cert.checks:
        echo(f"  verdict rests on: {rests_on(cert.checks)}")


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
    from nonosat.certificates.colour_proofs import (
        ColourVerification,
        is_colour_certificate,
        verify_colour_certificate,
    )
    from nonosat.certificates.verification import Verification

    colour = is_colour_certificate(cert_dir)
    result: ColourVerification | Verification
    if colour:
        result = verify_colour_certificate(cert_dir, checker or ["auto"], expected=expected)
    else:
        result = verify_certificate(cert_dir, checker or ["auto"], timeout, expected=expected)
    code = _EXIT.get(result.verdict or "", EXIT_FAILED) if result.ok else EXIT_FAILED
    if json_output:
        if isinstance(result, ColourVerification):  # the colour certificate's
            record = {"kind": "colour", "ok": result.ok, "verdict": result.verdict,
                      "problems": result.problems,
                      "checks": [c.to_json() for c in result.checks],
                      "checkers_accepted": [c.checker for c in result.checks if c.ok],
                      "puzzle": result.puzzle.fingerprint() if result.puzzle else None,
                      "title": result.puzzle.title if result.puzzle else None,
                      "identity": "matched" if result.identity_verified else "unverified"}
        else:
            record = result.to_json()
        emit("verify-certificate", {"directory": str(cert_dir), **record})
    elif brief:
        typer.echo(_brief_check(cert_dir, result.verdict, result.ok, result.checks))
    else:
        _print_verification(cert_dir, result, puzzle_file, colour)
    raise typer.Exit(code)


def _print_verification(cert_dir: Path, result, puzzle_file: Path | None, colour: bool) -> None:
    """verify-certificate's text report: what was verified and what the verdict rests on, or
    ``NOT verified`` and each problem (on stderr)."""
    shown = printable(str(cert_dir))
    if not result.ok:
        echo(f"{shown}: NOT verified", err=True)
        for problem in result.problems:
            echo(f"  {printable(problem)}", err=True)
        return
    claims = {"unique": "unique solution", "none": "no solution"}
    if colour:
        claim = claims.get(result.verdict or "", str(result.verdict))
    else:
        claim = {**claims, "multiple": "several solutions (witness)"}[result.verdict or "unique"]
    about = identity(result.puzzle, puzzle_file, result.identity_verified)
    checks = checks_line(result.checks)
    if colour:
        echo(f"{shown}: verified: {claim} of {about} (colour) [{checks}]")
    else:
        echo(f"{shown}: verified: {claim} of {about}" + (f" [{checks}]" if checks else ""))
    if result.checks or colour:
        echo(f"  verdict rests on: {rests_on(result.checks)}")


def _witness_written(cert, puzzle, out: Path, force: bool, json_output: bool, ref: str,
                     brief: bool = False) -> None:
    """Several solutions: write the witness certificate (two distinct solutions, each checked
    against the clues; :mod:`nonosat.certificates.witness`) and exit 1."""
    from nonosat.certificates.certifier import write_certificate_of

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
    echo(printable(f"{ref}: {puzzle.describe()}: several solutions, witness certificate "
                         f"written (two distinct solutions, each checked against the clues; they "
                         f"differ in {differ} cell{'s' if differ != 1 else ''})"))
    echo(printable(f"  files: {out}/ ({', '.join(p.name for p in written)}) [{timing}]"))
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
