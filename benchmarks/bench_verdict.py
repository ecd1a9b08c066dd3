"""Benchmark the verdict every command shares (issue 24, item 4); prints figures.

Each command runs as a ``nonosat`` process, as a user runs it, with its default time limit
unless ``--timeout`` is given; the figures are the wall time of the process and the time the
command reports for itself (loading the engine's kernels apart).

1. ``solve`` on Knotty (the reference: the portfolio's verdict).
2. ``verify --claim unique`` and ``--claim multiple`` on Knotty, with either solution ``solve``
   printed as ``--solution``: refuted with two solutions / confirmed.
3. ``certify`` on Knotty and on Faase (80x95; its second solution takes the portfolio tens of
   seconds): the witness certificate, then ``verify-certificate`` on it.

Usage::

    .venv/bin/python benchmarks/bench_verdict.py [--skip-faase] [--timeout SECONDS]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path

SURVEY = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"
NONOSAT = [sys.executable, "-m", "nonosat"]


def run(*args: str) -> tuple[int, str, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    done = subprocess.run([*NONOSAT, *args], capture_output=True, text=True, env=env)
    return done.returncode, done.stdout + done.stderr, time.perf_counter() - start


def own_time(output: str) -> str:
    found = re.findall(r"\[([0-9.]+ s[^\]]*)\]", output)
    return found[-1] if found else "?"


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--skip-faase", action="store_true")
    parser.add_argument("--timeout", default=None, help="--timeout for every command")
    args = parser.parse_args()
    limit = ["--timeout", args.timeout] if args.timeout else []
    knotty = str(SURVEY / "knotty.nin")
    with tempfile.TemporaryDirectory() as tmp:
        code, out, wall = run("solve", knotty, "--json", *limit)
        record = json.loads(out[out.index("{"):])
        print(f"solve knotty: exit {code}, {record['status']}, engine {record['engine']} "
              f"{record['time_s']:.3f} s (load {record['load_s']:.1f} s), process {wall:.1f} s")
        files = []
        for k, rows in enumerate(record["solutions"], start=1):
            files.append(Path(tmp) / f"s{k}.txt")
            files[-1].write_text("\n".join(rows) + "\n")
        for claim in ("unique", "multiple"):
            for k, sol in enumerate(files, start=1):
                code, out, wall = run("verify", knotty, "--solution", str(sol), "--claim", claim,
                                      *limit)
                verdict = out.splitlines()[0].rsplit(": ", 1)[-1]
                print(f"verify knotty --solution S{k} --claim {claim}: exit {code}, {verdict}, "
                      f"[{own_time(out)}], process {wall:.1f} s")
        names = ["knotty"] + ([] if args.skip_faase else ["faase"])
        for name in names:
            out_dir = Path(tmp) / f"cert-{name}"
            code, out, wall = run("certify", str(SURVEY / f"{name}.nin"), "--out", str(out_dir),
                                  *limit)
            what = "witness written" if "witness certificate written" in out else out.strip()
            print(f"certify {name}: exit {code}, {what}, [{own_time(out)}], "
                  f"process {wall:.1f} s")
            if out_dir.exists():
                code, out, wall = run("verify-certificate", str(out_dir), "--puzzle",
                                      str(SURVEY / f"{name}.nin"))
                print(f"  verify-certificate: exit {code}, "
                      f"{'verified' if ': verified:' in out else 'NOT verified'}, "
                      f"process {wall:.1f} s")


if __name__ == "__main__":
    main()
