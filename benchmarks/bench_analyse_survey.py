"""``nonosat analyse`` against ``nonosat solve`` on Wolter's survey puzzles (issue 15).

For every survey puzzle (``FastNonogramSolver/puzzles/survey/*.nin`` under ``$NONOSAT_CORPUS`` or
``../shared/corpus``), one at
a time, the two commands are run as a user runs them, with the same ``--timeout``:

    nonosat solve FILE --timeout T --json
    nonosat analyse FILE --timeout T --json

and one row is printed per puzzle: solve's verdict and engine time (``time_s``) and the process's
wall time; analyse's verdict, the engine time of its verdict (``solve_time_s``), its whole
analysis time (``time_s``) and wall time; the classification, the independent parts after
logic, the backdoor (size, exact or best found with its lower bound) and the grade.  A row is
flagged ``MISSED`` when analyse does not decide a puzzle solve decides.  The compiled kernels
are loaded (and compiled if needed) before the first timed run.

Usage::

    .venv/bin/python benchmarks/bench_analyse_survey.py [--timeout 120] [--only knotty,faase]
        [--json-out rows.json] [--snapshot]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path

SURVEY = CORPUS / "FastNonogramSolver" / "puzzles" / "survey"
NAMES = {"00001": "Dancer", "00006": "Cat", "00016": "Knot", "00021": "Skid", "00023": "Edge",
         "00027": "Bucks", "00065": "Mum", "00436": "Petro", "00529": "Swing", "00803": "Light",
         "01611": "Merka", "06574": "Forever", "knotty": "Knotty", "faase": "Faase"}


ENV = dict(os.environ)


def nonosat() -> list[str]:
    if "PYTHONPATH" in ENV:  # --snapshot
        return [sys.executable, "-m", "nonosat"]
    exe = Path(sys.executable).with_name("nonosat")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "nonosat"]


def snapshot() -> None:
    """Run a copy of the package (in a temporary directory), so that editing the checkout
    during a long run does not change the program measured."""
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="nonosat-snapshot-"))
    shutil.copytree(REPO / "nonosat", root / "nonosat",
                    ignore=shutil.ignore_patterns("__pycache__"))
    ENV["PYTHONPATH"] = str(root)
    print(f"# snapshot of {REPO / 'nonosat'} in {root}", flush=True)


def run(args: list[str], grace: float) -> tuple[dict | None, float, int]:
    """(JSON output or None, wall seconds, exit code) of one command."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(nonosat() + args, capture_output=True, text=True, timeout=grace,
                              env=ENV)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - start, -1
    wall = time.perf_counter() - start
    try:
        return json.loads(proc.stdout), wall, proc.returncode
    except json.JSONDecodeError:
        sys.stderr.write(proc.stderr[-2000:])
        return None, wall, proc.returncode


def title(path: Path) -> str:
    key = path.stem.removeprefix("webpbn-")
    return NAMES.get(key, path.stem)


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", default="", help="comma-separated titles or file stems")
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--snapshot", action="store_true",
                    help="run a copy of the package, so the checkout may change meanwhile")
    args = ap.parse_args()
    if args.snapshot:
        snapshot()
    files = sorted(SURVEY.glob("*.nin"), key=lambda f: (not f.stem.startswith("webpbn"), f.name))
    if args.only:
        want = {w.strip().lower() for w in args.only.split(",")}
        files = [f for f in files if title(f).lower() in want or f.stem.lower() in want]
    if not files:
        sys.exit(f"no survey puzzles in {SURVEY}")
    t = f"{args.timeout:g}"
    grace = 10 * args.timeout + 600  # analyse runs the engine up to three times, plus structure
    # load (compile) the kernels once, the analysis ones too
    run(["solve", str(SURVEY / "webpbn-00001.nin"), "--json"], grace)
    run(["analyse", str(SURVEY / "webpbn-06574.nin"), "--json", "--backdoor-timeout", "1"], grace)
    print(f"# load average {os.getloadavg()[0]:.2f}; --timeout {t}", flush=True)
    print("| puzzle | solve: verdict, engine s (wall s) | analyse: verdict, verdict s / total s "
          "(wall s) | classification | backbone: proved / ambiguous / undecided cells | "
          "independent parts | backdoor | grade |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    rows = []
    for path in files:
        s, s_wall, _ = run(["solve", str(path), "--timeout", t, "--json"], grace)
        a, a_wall, _ = run(["analyse", str(path), "--timeout", t, "--json"], grace)
        row = {"puzzle": title(path), "file": path.name, "solve": s and {
            "status": s["status"], "engine": s["engine"], "time_s": s["time_s"]},
            "solve_wall_s": round(s_wall, 2), "analyse_wall_s": round(a_wall, 2),
            "load": round(os.getloadavg()[0], 2)}
        if a is not None:
            row["analyse"] = {k: a[k] for k in ("status", "classification", "engine",
                                                "solve_time_s", "time_s", "backdoor", "grade",
                                                "backbone_size")}
            row["analyse"]["parts"] = a["independent_parts"]["sizes"]
            amb = a.get("ambiguity")
            row["analyse"]["map"] = None if amb is None else {
                "ambiguous": len(amb["cells"]), "undecided": len(amb["undecided"]),
                "complete": amb["complete"]}
            if a["backdoor"]:
                row["analyse"]["backdoor"] = {k: a["backdoor"][k] for k in
                                              ("size", "exact", "lower_bound", "logic", "time_s")}
        rows.append(row)
        sv = "failed" if s is None else f"{s['status']}, {s['time_s']:.2f} s ({s_wall:.1f})"
        if a is None:
            print(f"| {row['puzzle']} | {sv} | failed ({a_wall:.1f}) | | | | | |", flush=True)
            continue
        av = f"{a['status']}, {a['solve_time_s']:.2f} / {a['time_s']:.1f} s ({a_wall:.1f})"
        if s is not None and s["status"] in ("unique", "multiple", "none") \
                and a["status"] != s["status"]:
            av += " **MISSED**"
        sizes = a["independent_parts"]["sizes"]
        parts = ("none (logic solves it)" if not sizes else
                 f"{len(sizes)} ({', '.join(map(str, sizes[:6]))}{' ...' if len(sizes) > 6 else ''})")
        bd = a["backdoor"]
        if bd is None:
            back = "none"
        elif bd["exact"]:
            back = f"{bd['size']} (exact)"
        else:
            back = f"{bd['size']} (best found, >= {bd['lower_bound']})"
        g = a["grade"]
        m = row["analyse"]["map"]
        bb = a["backbone_size"]
        bbs = (f"{bb} / {m['ambiguous']} / {m['undecided']}" if m is not None
               else f"{bb} / 0 / 0" if a["status"] == "unique" else "-")
        print(f"| {row['puzzle']} | {sv} | {av} | {a['classification']} | {bbs} | {parts} | "
              f"{back} | "
              f"{g['grade']} ({g['score']}) |", flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
