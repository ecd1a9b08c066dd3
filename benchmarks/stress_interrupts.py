"""Stress Ctrl-C / SIGTERM handling: many interrupts per command at random moments (issue 25).

Each command of ``tests/test_interrupts.py`` runs on Faase (80x95) in a process group of its own
and gets SIGINT or SIGTERM (alternately) at a random moment after its handlers are installed;
every run must pass the test's checks (exit 130/143, no traceback or crash signature, no false
finding, no temporary or half-written file).  Prints one row per command: runs, exit codes seen,
median and worst latency from the signal to the exit, failures.

    python benchmarks/stress_interrupts.py [--runs N] [--max-delay S] [--seed N] [COMMAND ...]
"""

from __future__ import annotations

import os
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from preamble import argument_parser  # first: puts REPO on sys.path

from tests import test_interrupts as harness  # noqa: E402


def main() -> int:
    parser = argument_parser(__doc__)
    parser.add_argument("commands", nargs="*", default=sorted(harness.BUSY))
    parser.add_argument("--runs", type=int, default=10, help="interrupts per command")
    parser.add_argument("--max-delay", type=float, default=8.0,
                        help="latest moment of the signal, seconds after the handlers are up")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    args = parser.parse_args()
    faase = harness.corpus_path("FastNonogramSolver/puzzles/survey/faase.nin")
    harness.SEED = args.seed
    print(f"seed {args.seed}, {args.runs} runs per command, signal within "
          f"{args.max_delay:g} s of start-up", flush=True)
    header = f"{'command':<12} {'runs':>4}  {'exit codes':<18} {'median s':>8} {'worst s':>8}  fails"
    rows = [header, "-" * len(header)]
    failures = []
    for command in args.commands:
        codes: Counter[str] = Counter()
        latencies = []
        fails = 0
        delays = harness._delays(command, args.runs, 0.0, args.max_delay)
        for k, delay in enumerate(delays):
            signum = signal.SIGINT if k % 2 == 0 else signal.SIGTERM
            with tempfile.TemporaryDirectory(prefix="nonosat-stress-") as tmp:
                out = Path(tmp)
                cmd = [command, str(faase)] + [a.format(out=out) for a in harness.BUSY[command]]
                outcome = harness.interrupt(cmd, signum, delay, out)
                try:
                    harness.check_outcome(outcome)
                    assert harness.no_temporaries(out) == []
                except AssertionError:
                    fails += 1
                    failures.append(outcome.describe())
            codes["done" if outcome.finished_first else str(outcome.returncode)] += 1
            if not outcome.finished_first:
                latencies.append(outcome.latency)
        seen = ",".join(f"{code}x{n}" for code, n in sorted(codes.items()))
        median = statistics.median(latencies) if latencies else float("nan")
        worst = max(latencies) if latencies else float("nan")
        rows.append(f"{command:<12} {len(delays):>4}  {seen:<18} {median:>8.2f} {worst:>8.2f}"
                    f"  {fails}")
        print(rows[-1], flush=True)
    print("\n".join(["", *rows]))
    for text in failures:
        print("\nFAILED:", text)
    return 1 if failures else 0


if __name__ == "__main__":
    os.environ.setdefault("NONOSAT_TIMEOUT", "0")
    sys.exit(main())
