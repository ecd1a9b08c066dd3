"""Fuzzing run (issue 17): hostile inputs against every reader and the commands that take files.

Mutations of the shipped ``games/`` puzzles, of a few corpus files, of pictures, of a results
file (JSON Lines and TSV) and of a certificate directory (truncations, byte flips, giant numbers, giant sizes, bad encodings, deep
nesting, splices, random bytes, duplicated or deleted lines) are

* fed **in-process** to every reader (each format's ``read`` on the raw bytes, plus
  :func:`nonosat.formats.read_puzzles` on a file, which adds the size and memory checks, and
  :func:`nonosat.judge.read_results`, the results-file reader of ``nonosat verify``), and
  certificate mutations to :func:`nonosat.certificates.verify_certificate`; an outcome is *ok*
  (puzzles read), *clean error* (a :class:`~nonosat.errors.NonosatError`), or *traceback*
  (anything else: ``ValueError``, ``IndexError``, ... escaping a reader), *hang* (over
  ``--timeout`` seconds of CPU, by ``SIGPROF``, or six times as many seconds of wall-clock time,
  by ``SIGALRM``, which catches an input that blocks without using CPU; CPU time, because on a
  machine shared with other jobs the wall-clock time of a 3 s read can pass 10 s) or *over 1 GB*
  (the process's resident memory after the input);
* run **as subprocesses** through ``nonosat solve``, ``convert``, ``render``, ``encode``,
  ``certify``, ``analyse``, ``verify`` (``--solution`` and ``--results``),
  ``verify-certificate`` and ``batch`` (a sample), each with a wall-clock limit and its peak RSS
  from ``os.wait4``: *ok* (exit 0), *clean error* (exit 1-5 with no traceback on stderr),
  *traceback* (a ``Traceback`` on stderr or another exit code), *hang* (killed at the limit),
  *over 1 GB* (peak RSS).

Prints the inputs, the outcomes, the slowest inputs and the peak RSS; every traceback or hang
is listed with the mutation that made it (and saved under ``--keep DIR`` to reproduce).

    nice .venv/bin/python benchmarks/bench_fuzz.py                      # 10,000 + 400 inputs
    .venv/bin/python benchmarks/bench_fuzz.py --inputs 500 --cli 20     # a quick look
"""

from __future__ import annotations

import collections
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from preamble import CORPUS, REPO, argument_parser  # first: puts REPO on sys.path

GB = 1 << 30

#: Corpus files used as seeds (small ones; a missing one is left out).
CORPUS_SEEDS = (
    "pbnsolve-examples/rose.g",
    "pbnsolve-examples/bird.mk",
    "picross-solver/inputs/example_input.txt",
    "picross-solver/inputs/note.nin",
    "jwilk-nonogram/data/data000.nin",
    "number-loom/puzzles/logo.xml",
    "Nonogram/games/football.json",
    "Nonogram/games/icons.csv",
)

OUTCOMES = ("ok", "clean error", "traceback", "hang", "over 1 GB")


class Hang(Exception):
    """Raised by SIGPROF or SIGALRM when one in-process call runs over its limit."""


def seeds() -> list[tuple[str, bytes]]:
    """``(name, bytes)`` of every seed: games/, corpus files, a tournament excerpt, a short
    code, and the heart as PBM, PNG and text grid."""
    from nonosat.formats import encode_puzzles, get_format, read_puzzle

    out = [(p.name, p.read_bytes()) for p in sorted((REPO / "games").iterdir()) if p.is_file()]
    for rel in CORPUS_SEEDS:
        path = CORPUS / rel
        if path.is_file():
            out.append((path.name, path.read_bytes()))
    taai = CORPUS / "NonogramRecord/question/taai2011.txt"
    if taai.is_file():
        out.append(("taai.txt", b"".join(taai.read_bytes().splitlines(True)[:153])))
    heart = read_puzzle(REPO / "games/heart.non")
    for name, fmt in (("heart.pbm", "pbm"), ("heart.png", "png"), ("heart.grid", "grid"),
                      ("heart.short", "short"), ("heart.cwd", "cwd"), ("heart.g", "olsak")):
        out.append((name, encode_puzzles([heart], get_format(fmt))))
    rows = ["".join("#" if cell else "." for cell in row) for row in heart.goal]
    out.append(("heart.jsonl", json.dumps({"id": "heart.non", "status": "unique",
                                           "solution": rows}).encode() + b"\n"))
    out.append(("heart.tsv", ("id\tstatus\tsolution\nheart.non\tunique\t"
                              + "|".join(rows) + "\n").encode()))
    return out


# -- mutations -------------------------------------------------------------------------------
def _numbers(data: bytes) -> list[tuple[int, int]]:
    spans, k = [], 0
    while k < len(data):
        if 48 <= data[k] <= 57:
            j = k
            while j < len(data) and 48 <= data[j] <= 57:
                j += 1
            spans.append((k, j))
            k = j
        else:
            k += 1
    return spans


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> tuple[str, bytes]:
    """One random mutation of ``data``: ``(what was done, new bytes)``."""
    kind = rng.choice(("truncate", "flip", "giant number", "giant size", "encoding", "nesting",
                       "splice", "lines", "random", "insert", "flip", "truncate"))
    n = len(data)
    if kind == "truncate":
        cut = rng.randrange(n + 1)
        return f"truncate at {cut}", data[:cut]
    if kind == "flip":
        out = bytearray(data)
        count = rng.choice((1, 1, 2, 4, 16))
        for _ in range(count):
            if out:
                k = rng.randrange(len(out))
                out[k] = rng.randrange(256) if rng.random() < 0.5 else out[k] ^ (1 << rng.randrange(8))
        return f"flip {count} bytes", bytes(out)
    if kind in ("giant number", "giant size"):
        spans = _numbers(data)
        if kind == "giant number":
            big = rng.choice((b"99999999999999999999", b"9" * 400, b"9" * 5000, b"-1", b"0",
                              b"1e999", b"4294967296", b"18446744073709551617"))
        else:
            big = str(rng.choice((16385, 20000, 65536, 100000, 1 << 31, 1 << 40))).encode()
        if spans:
            count = rng.choice((1, 1, 2, len(spans)))
            out = bytearray(data)
            for a, b in sorted(rng.sample(spans, min(count, len(spans))), reverse=True):
                out[a:b] = big
            return f"{kind} {big[:12]!r}x{count}", bytes(out)
        k = rng.randrange(n + 1)
        return f"{kind} inserted", data[:k] + big + data[k:]
    if kind == "encoding":
        how = rng.choice(("bom", "utf16", "latin", "bad utf8", "xml decl", "nul"))
        if how == "bom":
            return how, b"\xef\xbb\xbf" + data
        if how == "utf16":
            return how, data.decode("latin-1").encode("utf-16")
        if how == "latin":
            return how, data.replace(b"e", b"\xe9")
        if how == "bad utf8":
            k = rng.randrange(n + 1)
            return how, data[:k] + b"\xff\xfe\xc3" + data[k:]
        if how == "nul":
            return how, data.replace(b"\n", b"\x00\n", 3)
        enc = rng.choice((b"ebcdic-xx", b"utf-32", b"cp500", b"utf-16", b"x" * 300, b"rot13"))
        body = data.split(b"?>", 1)[-1] if data.startswith(b"<?xml") else data
        return f"xml encoding {enc[:12]!r}", b'<?xml version="1.0" encoding="' + enc + b'"?>' + body
    if kind == "nesting":
        depth = rng.choice((1000, 10000, 100000))
        opener, closer = rng.choice(((b"[", b"]"), (b"{\"a\":", b"}"), (b"<a>", b"</a>")))
        k = rng.randrange(n + 1)
        return f"nesting {opener!r}x{depth}", data[:k] + opener * depth + closer * depth + data[k:]
    if kind == "splice":
        other = rng.choice(others)
        a, b = rng.randrange(n + 1), rng.randrange(len(other) + 1)
        return "splice", data[:a] + other[b:]
    if kind == "lines":
        lines = data.splitlines(True)
        if not lines:
            return "lines (empty)", data
        how = rng.choice(("dup", "del", "swap", "repeat"))
        k = rng.randrange(len(lines))
        if how == "dup":
            lines.insert(k, lines[k])
        elif how == "del":
            del lines[k]
        elif how == "swap":
            j = rng.randrange(len(lines))
            lines[k], lines[j] = lines[j], lines[k]
        else:
            lines[k:k + 1] = [lines[k]] * rng.choice((100, 5000))
        return f"lines {how}", b"".join(lines)
    if kind == "insert":
        junk = rng.choice((b"\n", b"\r", b"\t", b" ", b"#", b"$", b"<", b">", b"&#0;", b",",
                           b"null", b"[]", b"{}", b"\x00", b"\x1b[31m", b"]]>", b"<!ENTITY"))
        k = rng.randrange(n + 1)
        return f"insert {junk!r}", data[:k] + junk * rng.choice((1, 3, 50)) + data[k:]
    size = rng.choice((0, 1, 7, 64, 1024))
    return f"random {size} bytes", rng.randbytes(size)


def mutate_certificate(rng: random.Random, files: dict[str, bytes]) -> tuple[str, dict[str, bytes]]:
    """A certificate directory with one file mutated (or its hash list emptied)."""
    out = dict(files)
    name = rng.choice(sorted(files))
    if name == "certificate.json" and rng.random() < 0.2:
        record = json.loads(files[name])
        record["files"] = rng.choice(({}, None, [], {"puzzle.json": "0" * 64}))
        out[name] = json.dumps(record).encode()
        return "certificate.json: files replaced", out
    what, out[name] = mutate(rng, files[name], list(files.values()))
    return f"{name}: {what}", out


# -- in-process ------------------------------------------------------------------------------
def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _alarm(signum, frame):  # noqa: ARG001
    raise Hang


def run_in_process(count: int, seed: int, timeout: float, keep: Path | None) -> dict:
    """``count`` mutated inputs through every reader (and certificate verification)."""
    from nonosat.certificates import verify_certificate
    from nonosat.certificates.bundle import read_puzzle_json
    from nonosat.errors import NonosatError
    from nonosat.formats import formats, read_puzzles
    from nonosat.judge import read_results

    rng = random.Random(seed)
    base = seeds()
    datas = [d for _, d in base]
    readers = [f for f in formats().values() if f.read is not None]
    cert_files = _certificate_files()
    outcomes: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    problems: list[tuple[str, str, str]] = []
    slowest: list[tuple[float, str]] = []
    peak = _rss()
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    work = Path(tempfile.mkdtemp(prefix="nonosat-fuzz-"))
    try:
        for i in range(count):
            certificate = cert_files is not None and i % 50 == 49
            if certificate:
                what, files = mutate_certificate(rng, cert_files)
                label = f"#{i} certificate {what}"
                cert_dir = work / f"cert{i % 4}"
                shutil.rmtree(cert_dir, ignore_errors=True)
                cert_dir.mkdir()
                for name, data in files.items():
                    (cert_dir / name).write_bytes(data)
                jobs = [("verify_certificate", lambda d=cert_dir: verify_certificate(d)),
                        ("read_puzzle_json", lambda d=cert_dir: read_puzzle_json(d / "puzzle.json"))]
                sample = files["certificate.json"]
            else:
                name, data = rng.choice(base)
                what, sample = mutate(rng, data, datas)
                label = f"#{i} {name}: {what}"
                path = work / f"input{Path(name).suffix}"
                path.write_bytes(sample)
                jobs = [(f"read {fmt.name}", lambda f=fmt, s=sample: f.read(s, "fuzz"))
                        for fmt in readers]
                jobs.append(("read_puzzles", lambda p=path: read_puzzles(p)))
                jobs.append(("read_results", lambda p=path: read_results(p)))
            worst = "ok"
            start = time.perf_counter()
            cpu = time.process_time()
            for job, call in jobs:
                calls[job] += 1
                signal.setitimer(signal.ITIMER_PROF, timeout)
                signal.setitimer(signal.ITIMER_REAL, 6 * timeout)
                result, detail = "ok", ""
                try:
                    call()
                except Hang:
                    result = "hang"
                except NonosatError:
                    result = "clean error"
                except Exception as exc:  # noqa: BLE001 - exactly what the run looks for
                    result = "traceback"
                    detail = f"{type(exc).__name__}: {str(exc)[:100]}"
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.setitimer(signal.ITIMER_PROF, 0)
                rss = _rss()
                peak = max(peak, rss)
                if rss > GB:
                    result = "over 1 GB"
                if result in ("traceback", "hang", "over 1 GB"):
                    problems.append((label, job, detail if result == "traceback" else result))
                    if keep is not None:
                        keep.mkdir(parents=True, exist_ok=True)
                        (keep / f"inproc-{i}{Path(label.split(':')[0]).suffix or '.bin'}").write_bytes(sample)
                if result != "clean error" or job in ("read_puzzles", "verify_certificate"):
                    # a reader refusing another format's file says nothing; the file's own
                    # reading (read_puzzles, verify_certificate) decides ok / clean error
                    worst = max(worst, result, key=OUTCOMES.index)
            outcomes[worst] += 1
            wall = time.perf_counter() - start
            slowest.append((time.process_time() - cpu, f"{label} ({wall:.1f} s wall)"))
            slowest = sorted(slowest, reverse=True)[:10]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"inputs": count, "outcomes": dict(outcomes), "calls": sum(calls.values()),
            "problems": problems, "slowest": slowest, "peak_rss": max(
                peak, _peak_self())}


def _peak_self() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _certificate_files() -> dict[str, bytes] | None:
    """The files of a certificate of games/heart.non (made once, in-process)."""
    from nonosat.certificates import certify
    from nonosat.certificates.bundle import certificate_files
    from nonosat.formats import read_puzzle

    try:
        cert = certify(read_puzzle(REPO / "games/heart.non"))
        return certificate_files(cert)
    except Exception as exc:  # noqa: BLE001
        print(f"no certificate seed: {exc}", file=sys.stderr)
        return None


# -- subprocesses ----------------------------------------------------------------------------
def run_one(argv: list[str], cwd: Path, limit: float,
            env: dict[str, str]) -> tuple[str, float, int, str, str]:
    """Run ``argv``: ``(outcome, seconds, peak RSS bytes, stderr tail, exit code or "killed")``."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > limit:
                os.killpg(proc.pid, signal.SIGKILL)
                killed = True
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    seconds = time.perf_counter() - start
    rss = usage.ru_maxrss * 1024
    if killed:
        outcome = "hang"
    elif rss > GB:
        outcome = "over 1 GB"
    elif "Traceback" in stderr or proc.returncode not in range(0, 6):
        outcome = "traceback"
    else:
        outcome = "ok" if proc.returncode == 0 else "clean error"
    last = stderr.strip().splitlines()[-1][:160] if stderr.strip() else ""
    return outcome, seconds, rss, last, "killed" if killed else str(proc.returncode)


def run_cli(count: int, seed: int, limit: float, keep: Path | None, workers: int) -> dict:
    """``count`` mutated inputs through the commands that take files, as subprocesses."""
    rng = random.Random(seed + 1)
    base = seeds()
    datas = [d for _, d in base]
    cert_files = _certificate_files()
    exe = str(REPO / ".venv/bin/nonosat") if (REPO / ".venv/bin/nonosat").exists() else "nonosat"
    env = dict(os.environ, NONOSAT_TIMEOUT="10")
    work = Path(tempfile.mkdtemp(prefix="nonosat-fuzz-cli-"))
    tasks = []
    for i in range(count):
        task_dir = work / f"t{i}"
        task_dir.mkdir()
        command = rng.choice(("solve", "solve", "convert", "render", "encode", "certify",
                              "analyse", "verify", "verify-certificate", "batch"))
        if command == "verify-certificate" and cert_files is not None:
            what, files = mutate_certificate(rng, cert_files)
            (task_dir / "cert").mkdir()
            for name, data in files.items():
                (task_dir / "cert" / name).write_bytes(data)
            argv = [exe, command, "cert"]
            label = f"#{i} verify-certificate {what}"
        else:
            name, data = rng.choice(base)
            what, sample = mutate(rng, data, datas)
            label = f"#{i} {command} {name}: {what}"
            if command == "batch":
                (task_dir / "in").mkdir()
                (task_dir / "in" / name).write_bytes(sample)
                other, odata = rng.choice(base)
                (task_dir / "in" / f"x-{other}").write_bytes(mutate(rng, odata, datas)[1])
                argv = [exe, command, "in", "--out", "r.jsonl", "--jobs", "1",
                        "--timeout", "10"]
            else:
                (task_dir / name).write_bytes(sample)
                argv = {"solve": [exe, "solve", name],
                        "convert": [exe, "convert", name, "out.xml"],
                        "render": [exe, "render", name, "--out", "out.svg"],
                        "encode": [exe, "encode", name, "--out", "out.cnf"],
                        "certify": [exe, "certify", name, "--out", "cert"],
                        "analyse": [exe, "analyse", name],
                        "verify": [exe, "verify", "--results", name, str(REPO / "games/heart.non")]
                        if Path(name).suffix in (".jsonl", ".tsv") or rng.random() < 0.3 else
                        [exe, "verify", str(REPO / "games/heart.non"), "--solution", name],
                        "verify-certificate": [exe, "solve", name]}[command]
        tasks.append((label, argv, task_dir))

    def go(task):
        label, argv, task_dir = task
        outcome, seconds, rss, last, code = run_one(argv, task_dir, limit, env)
        if outcome in ("traceback", "hang", "over 1 GB") and keep is not None:
            shutil.copytree(task_dir, keep / task_dir.name, dirs_exist_ok=True)
        shutil.rmtree(task_dir, ignore_errors=True)
        return label, argv[1], outcome, seconds, rss, last, code

    results = []
    try:
        with ThreadPoolExecutor(workers) as pool:
            for k, row in enumerate(pool.map(go, tasks), start=1):
                results.append(row)
                if k % 50 == 0:
                    print(f"  cli {k}/{count}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    outcomes = collections.Counter(r[2] for r in results)
    by_command: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for r in results:
        by_command[r[1]][r[2]] += 1
    by_exit = collections.Counter(r[6] for r in results)
    watchdog = [r[0] for r in results if "past the time limit" in r[5]]
    return {
        "inputs": count,
        "outcomes": dict(outcomes),
        "by_exit_code": dict(sorted(by_exit.items())),
        "stopped_by_watchdog": watchdog,
        "by_command": {k: dict(v) for k, v in sorted(by_command.items())},
        "problems": [(r[0], r[2], r[5]) for r in results if r[2] in ("traceback", "hang", "over 1 GB")],
        "slowest": sorted(((r[3], r[0]) for r in results), reverse=True)[:10],
        "peak_rss": max((r[4] for r in results), default=0),
        "peak_rss_input": max(results, key=lambda r: r[4])[0] if results else "",
    }


def _report(title: str, result: dict) -> None:
    print(f"\n{title}: {result['inputs']} inputs")
    for outcome in OUTCOMES:
        print(f"  {outcome:12} {result['outcomes'].get(outcome, 0)}")
    if "calls" in result:
        print(f"  ({result['calls']} reader calls)")
    if "by_exit_code" in result:
        print("  by exit code: " + ", ".join(f"{k}: {v}" for k, v in result["by_exit_code"].items()))
        print(f"  stopped 5 s past the time limit (exit 4): {len(result['stopped_by_watchdog'])}"
              + "".join(f"\n    {label[:120]}" for label in result["stopped_by_watchdog"][:10]))
    for command, counts in result.get("by_command", {}).items():
        print(f"  {command:20} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"  peak RSS: {result['peak_rss'] / 2**20:.0f} MiB"
          + (f" ({result['peak_rss_input']})" if result.get("peak_rss_input") else ""))
    print("  slowest (" + ("CPU" if "calls" in result else "wall-clock") + " seconds):")
    for seconds, label in result["slowest"][:5]:
        print(f"    {seconds:7.3f} s  {label[:120]}")
    if result["problems"]:
        print(f"  PROBLEMS ({len(result['problems'])}):")
        for problem in result["problems"][:40]:
            print("    " + " | ".join(str(p)[:150] for p in problem))


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzing; exit 1 when any traceback, hang or process over 1 GB was found."""
    parser = argument_parser(__doc__)
    parser.add_argument("--inputs", type=int, default=10_000, help="in-process inputs")
    parser.add_argument("--cli", type=int, default=400, help="subprocess inputs")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--timeout", type=float, default=10.0, help="CPU seconds per in-process call (wall-clock: six times as many)")
    parser.add_argument("--cli-timeout", type=float, default=60.0, help="seconds per command")
    parser.add_argument("--workers", type=int, default=2, help="concurrent subprocesses")
    parser.add_argument("--keep", type=Path, help="save inputs that found a problem here")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    names = [name for name, _ in seeds()]
    print(f"{len(names)} seed files (corpus {CORPUS}: "
          f"{sum(1 for rel in CORPUS_SEEDS if (CORPUS / rel).is_file())} of {len(CORPUS_SEEDS)}"
          f" found, plus the taai2011 excerpt: {'taai.txt' in names}): {', '.join(names)}")
    inproc = run_in_process(args.inputs, args.seed, args.timeout, args.keep)
    _report("in-process (every reader; certificates through verify_certificate)", inproc)
    cli = run_cli(args.cli, args.seed, args.cli_timeout, args.keep, args.workers) if args.cli else None
    if cli:
        _report("subprocesses (solve, convert, render, encode, certify, analyse, verify, "
                "verify-certificate, batch)", cli)
    total = args.inputs + (args.cli if cli else 0)
    bad = sum(r["outcomes"].get(o, 0) for r in (inproc, cli) if r
              for o in ("traceback", "hang", "over 1 GB"))
    print(f"\n{total} inputs in {time.perf_counter() - start:.0f} s; "
          f"tracebacks, hangs or over 1 GB: {bad}")
    if args.json:
        args.json.write_text(json.dumps({"argv": sys.argv, "seeds": names, "in_process": inproc,
                                         "cli": cli}, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
