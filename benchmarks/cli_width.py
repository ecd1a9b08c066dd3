"""The widest line every command prints, on games/ and a corpus sample (issue 25: 80 columns).

Runs each command as a user runs it in a pipe (no ``$COLUMNS``: text must fit 80 columns) on
the black-and-white games, Wolter's survey puzzles with long webpbn names (copied under a long
temporary path, so that verdict lines naming a file are long), a 55-wide puzzle, pbnsolve's
acorn.g (a colour puzzle 171 columns wide as a grid) and faase.nin (80x95), and prints one row
per run: the widest line of stdout and of stderr, and the line itself when it is over 80.  The
last line gives the widest of all.

Usage::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/cli_width.py [--quick] [--width 80]
        [--sample webpbn-00027.nin,acorn.g] [--no-games]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", REPO.parent / "shared" / "corpus"))
SURVEY = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"
SAMPLE = [SURVEY / "webpbn-00027.nin", SURVEY / "webpbn-01611.nin", SURVEY / "webpbn-00023.nin",
          CORPUS / "pbnsolve-examples" / "acorn.g", SURVEY / "faase.nin"]
COMMANDS = ["solve", "crosscheck", "batch", "convert", "formats", "render", "certify",
            "verify-certificate", "encode", "verify", "analyse", "hint", "explain", "studio",
            "generate"]


def runs(puzzle: Path, work: Path, quick: bool) -> list[list[str]]:
    """The command lines run on ``puzzle`` (outputs under ``work``)."""
    p, stem = str(puzzle), puzzle.stem
    slow = stem == "faase"
    t = ["--timeout", "20"]
    out = [["solve", p, *t], ["solve", p, "--limit", "3", *t], ["hint", p, *t]]
    if not slow:
        out += [["analyse", p, *t, "--backdoor-timeout", "2"],
                ["explain", p, "--max-steps", "40", *t]]
    if quick:
        return out
    cert = str(work / f"certificate-directory-of-{stem}")
    out += [["certify", p, "--out", cert, *t], ["verify-certificate", cert],
            ["verify", p, "--claim", "unique", *t], ["crosscheck", p, *t],
            ["encode", p, "--out", str(work / f"{stem}.cnf")], ["render", p],
            ["convert", p, str(work / f"{stem}-converted.non")]]
    return out


def widest(text: str) -> tuple[int, str]:
    lines = text.splitlines() or [""]
    line = max(lines, key=len)
    return len(line), line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="solve, hint, analyse, explain only")
    parser.add_argument("--width", type=int, default=80)
    parser.add_argument("--sample", help="comma-separated names of the corpus sample to run "
                        "(default: all of it)")
    parser.add_argument("--no-games", action="store_true", help="leave out games/ and -h")
    args = parser.parse_args()
    chosen = None if args.sample is None else set(args.sample.split(","))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.setdefault("PYTHONPATH", str(REPO))
    base = Path(tempfile.mkdtemp(prefix="nonosat-width-"))
    work = base / ("a-rather-long-directory-name-for-the-eighty-column-check" + "/deeper" * 3)
    work.mkdir(parents=True)
    puzzles = []
    games = [] if args.no_games else sorted((REPO / "games").iterdir())
    sample = [p for p in SAMPLE if chosen is None or p.name in chosen]
    for source in [*games, *sample]:
        if source.exists():
            target = work / f"{source.stem}-with-a-long-descriptive-file-name{source.suffix}"
            shutil.copy(source, target)
            puzzles.append(target)
    lines = [] if args.no_games else [[c, "-h"] for c in COMMANDS] + [["-h"], ["formats"]]
    for puzzle in puzzles:
        lines += runs(puzzle, work, args.quick)
    if not args.quick and chosen is None:
        lines += [["batch", str(work), "--out", str(work / "results.jsonl"), "-t", "20",
                   "-j", "1"],
                  ["generate", "--random", "30x30", "--seed", "3", "--out",
                   str(work / "generated-puzzle-with-a-long-name.non")]]
    worst = (0, "", "")
    over = 0
    for argv in lines:
        try:
            done = subprocess.run([sys.executable, "-m", "nonosat", *argv], env=env, cwd=base,
                                  capture_output=True, text=True, timeout=120)
            stdout, stderr, rc = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired:
            stdout, stderr, rc = "", "", "timeout"
        w_out, line_out = widest(stdout)
        w_err, line_err = widest(stderr)
        shown = " ".join(a.replace(str(work), "W") for a in argv)
        flag = "  OVER" if max(w_out, w_err) > args.width else ""
        over += bool(flag)
        print(f"{max(w_out, w_err):4d} out {w_out:4d} err {w_err:4d} rc={rc}  {shown}{flag}")
        if w_out > args.width:
            print(f"      {line_out[:200]}")
        if w_err > args.width:
            print(f"      {line_err[:200]}")
        worst = max(worst, (w_out, shown, line_out), (w_err, shown, line_err))
    print(f"widest line: {worst[0]} columns ({worst[1]}); {over} of {len(lines)} runs over "
          f"{args.width}")
    shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
