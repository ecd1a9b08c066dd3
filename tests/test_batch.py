"""Batch runs: inputs and ids, the resumable results file, worker isolation (hangs, crashes,
out of memory), the real check job against an independent engine, and the command line.

Misbehaving jobs are the doubles of ``tests/test_batch_doubles.py``, imported by the worker
processes (``tests/`` is on the path the workers inherit).  The dask tests are in
``test_batch_dask.py``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from test_batch_doubles import expected_status
from typer.testing import CliRunner

from nonosat.batch import (
    BatchConfig,
    Job,
    ResultsFile,
    collect_puzzles,
    pending,
    read_records,
    resolve_job,
    run_batch,
    summarise,
)
from nonosat.batch.jobs import goal_check
from nonosat.batch.results import memory_record, percentile
from nonosat.cli.app import app
from nonosat.engines import solve
from nonosat.errors import FormatError, NonosatError
from nonosat.formats import get_format, read_puzzle
from nonosat.puzzle import Puzzle
from tests.conftest import corpus_path

DOUBLE = "test_batch_doubles:behave"


def puzzle(width: int, title: str | None = None, seed: int = 0) -> Puzzle:
    """A small puzzle of the given width (3 rows), from a random picture."""
    rng = np.random.default_rng(seed * 100 + width)
    return Puzzle.from_picture(rng.random((3, width)) < 0.5, title=title)


def square(size: int, seed: int) -> Puzzle:
    """A square puzzle (tournament sets hold only those) from a random picture."""
    return Puzzle.from_picture(np.random.default_rng(seed).random((size, size)) < 0.5)


def by_id(records: list[dict]) -> dict[str, dict]:
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)), "an id was recorded twice"
    return {r["id"]: r for r in records}


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# -- inputs and ids ---------------------------------------------------------------------------------


def write_corpus(root: Path) -> list[Puzzle]:
    """A directory with a tournament set of 3, a .non file in a subdirectory, a README and a
    broken puzzle file; returns the set's puzzles."""
    set_puzzles = [square(5, seed=k) for k in range(3)]
    (root / "sets").mkdir(parents=True)
    (root / "sets" / "set.txt").write_bytes(get_format("tournament").write_many(set_puzzles))
    (root / "single").mkdir()
    (root / "single" / "one.non").write_bytes(get_format("non").write(puzzle(4, title="one")))
    (root / "README.md").write_text("# not a puzzle\n")
    (root / "single" / "broken.non").write_text("width 3\nheight 2\nrows\n1\n")
    return set_puzzles


def test_ids_are_file_and_number_and_stable_across_runs(tmp_path):
    set_puzzles = write_corpus(tmp_path / "corpus")
    first = collect_puzzles([tmp_path / "corpus"])
    again = collect_puzzles([tmp_path / "corpus"])
    root = tmp_path / "corpus"
    expected = [f"{root / 'sets' / 'set.txt'}#{n}" for n in (1, 2, 3)] + [
        str(root / "single" / "one.non")
    ]
    assert [i for i, _ in first.puzzles] == expected
    assert [i for i, _ in again.puzzles] == expected
    assert [p.rows for _, p in first.puzzles[:3]] == [p.rows for p in set_puzzles]
    assert first.skipped == [str(root / "README.md")]
    assert [e["id"] for e in first.errors] == [str(root / "single" / "broken.non")]


def test_a_file_named_twice_gives_each_puzzle_once(tmp_path):
    write_corpus(tmp_path / "c")
    one = tmp_path / "c" / "single" / "one.non"
    assert [i for i, _ in collect_puzzles([one, one]).puzzles] == [str(one)]


def test_a_missing_or_broken_file_named_directly_is_an_error(tmp_path):
    write_corpus(tmp_path / "c")
    with pytest.raises(FormatError, match="no such file"):
        collect_puzzles([tmp_path / "absent.non"])
    with pytest.raises(FormatError, match="broken.non"):
        collect_puzzles([tmp_path / "c" / "single" / "broken.non"])


# -- results file -----------------------------------------------------------------------------------


def test_results_reader_drops_a_cut_last_line_but_refuses_a_bad_middle_line(tmp_path):
    path = tmp_path / "r.jsonl"
    good = json.dumps({"id": "a", "job": "check", "status": "unique"})
    path.write_text(good + "\n" + good.replace('"a"', '"b"')[:20])
    assert [r["id"] for r in read_records(path)] == ["a"]
    path.write_text("{oops\n" + good + "\n")
    with pytest.raises(FormatError, match="r.jsonl:1"):
        read_records(path)


def test_appending_after_a_cut_line_starts_on_a_fresh_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "a", "job": "check"}) + '\n{"id": "b", "jo')
    with ResultsFile(path) as results:
        results.append({"id": "c", "job": "check", "status": "unique"})
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r.get("puzzle", r.get("id")) for r in rows] == ["a", "c"]  # an old record, a new one


def test_two_batches_cannot_write_one_results_file(tmp_path):
    path = tmp_path / "r.jsonl"
    with ResultsFile(path):
        with pytest.raises(FormatError, match="another batch"):
            ResultsFile(path)
    with ResultsFile(path):  # released on close
        pass


def test_retry_failed_reruns_only_failures(tmp_path):
    path = tmp_path / "r.jsonl"
    with ResultsFile(path) as results:
        for puzzle_id, status in (("a", "unique"), ("b", "timeout"), ("c", "crashed")):
            results.append({"id": puzzle_id, "job": "check", "status": status})
    items = [(i, puzzle(3)) for i in "abcd"]
    with ResultsFile(path) as results:
        assert [i for i, _ in pending(items, results, BatchConfig())] == ["d"]
        retry = BatchConfig(retry_failed=True)
        assert [i for i, _ in pending(items, results, retry)] == ["b", "c", "d"]
        assert [i for i, _ in pending(items, results, BatchConfig(job="solve"))] == list("abcd")


def test_summary_counts_times_and_problems():
    records = [{"id": f"p{k}", "status": "unique", "wall_s": float(k)} for k in range(1, 101)] + [
        {"id": "t", "status": "timeout", "wall_s": 200.0, "error": "no answer"},
        {"id": "g", "status": "unique", "wall_s": 0.0, "goal_check": "contradicts"},
    ]
    summary = summarise(records, [{"id": "bad.non", "status": "unreadable", "error": "x"}])
    assert summary.counts == {"unique": 101, "timeout": 1}
    assert summary.max_s == 200.0 and summary.total_s == sum(range(1, 101)) + 200.0
    times = sorted(r["wall_s"] for r in records)
    assert summary.median_s == times[50]  # nearest rank, 102 values
    assert summary.p99_s == percentile(times, 99) == times[100]
    assert [s["id"] for s in summary.slowest[:2]] == ["t", "p100"]
    assert [d["id"] for d in summary.disagreements] == ["g"]
    assert [f["id"] for f in summary.failures] == ["t", "bad.non"]
    assert summary.undecided == 1


def test_goal_check_flags_a_verdict_the_published_picture_refutes():
    pic = np.array([[1, 0], [0, 1]], dtype=bool)  # two solutions: the diagonals
    p = Puzzle.from_picture(pic)
    other = ~pic
    assert goal_check(p, "unique", [pic]) == "match"
    assert goal_check(p, "unique", [other]) == "contradicts"
    assert goal_check(p, "none", []) == "contradicts"
    assert goal_check(p, "solved", [other]) == "other"
    assert goal_check(p, "unknown", []) is None
    assert goal_check(Puzzle(p.rows, p.cols, goal=np.ones((2, 2), bool)), "unique", [pic]) == (
        "invalid"
    )


def test_unknown_or_missing_jobs_are_refused_up_front():
    with pytest.raises(NonosatError, match="unknown job"):
        resolve_job("bake")
    with pytest.raises(NonosatError, match="nonosat_no_such_module"):
        resolve_job("nonosat_no_such_module:run")


# -- running ----------------------------------------------------------------------------------------


def test_rerun_after_a_kill_runs_only_the_missing_puzzles(tmp_path):
    items = [(f"p{k}", puzzle(3 + k % 5, seed=k)) for k in range(12)]
    config = BatchConfig(job=DOUBLE, timeout=5, jobs=2)
    out = tmp_path / "r.jsonl"
    with ResultsFile(out) as results:
        run_batch(items, config, results=results)
    lines = out.read_text().splitlines(keepends=True)
    assert len(lines) == 12
    kept = lines[:7]
    out.write_text("".join(kept) + lines[7][: len(lines[7]) // 2])  # killed mid-write
    kept_ids = {json.loads(line)["puzzle"] for line in kept}

    results = ResultsFile(out)
    todo = pending(items, results, config)
    assert {i for i, _ in todo} == {i for i, _ in items} - kept_ids
    with results:
        new = run_batch(todo, config, results=results)
    assert {r["id"] for r in new} == {i for i, _ in items} - kept_ids
    assert out.read_text().startswith("".join(kept))
    final = by_id([memory_record(json.loads(line)) for line in out.read_text().splitlines()])
    assert set(final) == {i for i, _ in items}
    for puzzle_id, p in items:
        assert final[puzzle_id]["status"] == expected_status(p)
    with ResultsFile(out) as results:
        assert pending(items, results, config) == []


def test_a_hanging_puzzle_is_killed_as_timeout_and_the_batch_goes_on(tmp_path):
    items = [("hang", puzzle(3, "hang"))] + [(f"p{k}", puzzle(3 + k, seed=k)) for k in range(6)]
    config = BatchConfig(job=DOUBLE, timeout=0.5, grace_s=0.5, jobs=2)
    start = time.perf_counter()
    records = by_id(run_batch(items, config))
    assert time.perf_counter() - start < 15
    hang = records.pop("hang")
    assert hang["status"] == "timeout" and "killed" in hang["error"]
    assert 1.0 <= hang["wall_s"] < 5.0
    assert process_gone(int(hang["worker"].rpartition(":")[2]))
    for puzzle_id, p in items[1:]:
        assert records[puzzle_id]["status"] == expected_status(p)
        assert records[puzzle_id]["error"] is None


def test_crashes_and_exhausted_memory_are_recorded_and_the_batch_goes_on():
    bad = ["segfault", "exit", "oom", "raise", "hog"]
    items = []
    for k, title in enumerate(bad):
        items += [(title, puzzle(3, title)), (f"after-{title}", puzzle(4 + k, seed=k))]
    config = BatchConfig(job=DOUBLE, timeout=20, jobs=1, memory_mb=1024)
    records = by_id(run_batch(items, config))
    assert records["segfault"]["status"] == "crashed"
    assert "SIGSEGV" in records["segfault"]["error"]
    assert records["exit"]["status"] == "crashed" and "status 3" in records["exit"]["error"]
    assert records["oom"]["status"] == "crashed" and "out of memory" in records["oom"]["error"]
    assert records["hog"]["status"] == "crashed" and "out of memory" in records["hog"]["error"]
    assert records["raise"]["status"] == "error"
    assert records["raise"]["error"] == "ValueError: raised on purpose"
    for puzzle_id, p in items:
        if puzzle_id.startswith("after-"):
            assert records[puzzle_id]["status"] == expected_status(p)


def test_worker_start_up_is_not_charged_to_the_first_puzzle():
    job = Job("slow-start", DOUBLE, "test_batch_doubles:warm")  # warm-up sleeps 1 s
    items = [(f"p{k}", puzzle(3 + k, seed=k)) for k in range(4)]
    # a deadline of 0.9 s a puzzle: a warm-up charged to one (1 s) would be killed as timeout;
    # an answer at once leaves the rest to a loaded machine's scheduling and pipe round trip
    records = run_batch(items, BatchConfig(job=job, timeout=0.5, grace_s=0.4, jobs=2))
    assert sorted(r["status"] for r in records) == sorted(expected_status(p) for _, p in items)
    assert max(r["wall_s"] for r in records) < 0.9


def test_check_job_verdicts_agree_with_cp_sat(tmp_path):
    """The real check job (native engine, in workers) against CP-SAT run here."""
    pictures = [np.random.default_rng(k).random((5, 6)) < 0.5 for k in range(10)]
    pictures.append(np.eye(4, dtype=bool))  # several solutions
    items = [(f"p{k}", Puzzle.from_picture(pic)) for k, pic in enumerate(pictures)]
    records = by_id(run_batch(items, BatchConfig(job="check", engine="native", jobs=2)))
    verdicts = set()
    for puzzle_id, p in items:
        record = records[puzzle_id]
        expected = solve(p, "cpsat", limit=2)
        assert record["status"] == expected.status.value
        assert record["engine"] == "native" and record["job"] == "check"
        assert (record["width"], record["height"]) == (p.width, p.height)
        assert len(record["solutions"]) == len(expected.solutions)
        assert record["goal_check"] in ("match", "other")
        verdicts.add(record["status"])
    assert verdicts == {"unique", "multiple"}


def test_certify_job_writes_certificates_that_verify(tmp_path):
    certificate = pytest.importorskip("nonosat.certificates")
    unique = Puzzle.from_picture(np.array([[1, 1, 1], [1, 0, 0], [1, 0, 1]], dtype=bool))
    several = Puzzle.from_picture(np.eye(3, dtype=bool))
    assert solve(unique, "cpsat").status.value == "unique"
    items = [("sets/a.txt#1", unique), ("b.non", several)]
    config = BatchConfig(job="certify", jobs=1, cert_dir=tmp_path / "certs")
    records = by_id(run_batch(items, config))
    first = records["sets/a.txt#1"]
    assert (first["status"], first["certified"]) == ("unique", True)
    assert "certificate_files" not in first  # written to disk, not into the results
    assert first["certificate"] == str(tmp_path / "certs" / "sets%2Fa.txt%231")
    verification = certificate.verify_certificate(first["certificate"])
    assert verification.ok and verification.verdict == "unique", verification.problems
    second = records["b.non"]
    assert second["status"] == "multiple" and len(second["solutions"]) == 2
    assert certificate.verify_certificate(second["certificate"]).verdict == "multiple"


def test_crosscheck_and_analyse_jobs_run_in_workers():
    pictures = [np.random.default_rng(k).random((4, 5)) < 0.5 for k in range(3)]
    items = [(f"p{k}", Puzzle.from_picture(pic)) for k, pic in enumerate(pictures)]
    items.append(("eye", Puzzle.from_picture(np.eye(4, dtype=bool))))
    expected = {i: solve(p, "cpsat", limit=2).status.value for i, p in items}
    cross = by_id(run_batch(items, BatchConfig(job="crosscheck", engine="native,cpsat", jobs=1)))
    analysed = by_id(run_batch(items, BatchConfig(job="analyse", jobs=1)))
    for puzzle_id, status in expected.items():
        assert cross[puzzle_id]["status"] == status, cross[puzzle_id]
        assert set(cross[puzzle_id]["engines"]) == {"native", "cpsat"}
        assert "disagreement" not in cross[puzzle_id]
        assert analysed[puzzle_id]["status"] == status
        assert analysed[puzzle_id]["grade"]["name"]
    assert analysed["eye"]["backbone_size"] < 16  # several solutions: some cells ambiguous


def test_batch_analyse_uses_the_portfolio_and_a_short_backdoor_search():
    """As `nonosat analyse`: the default engine is the portfolio (auto); the backdoor search
    is bounded by BATCH_BACKDOOR_TIMEOUT per puzzle, and says whether it is exact."""
    from nonosat.batch.jobs import BATCH_BACKDOOR_TIMEOUT, resolve_job

    assert resolve_job("analyse").default_engine == "auto"
    forever = read_puzzle(corpus_path("FastNonogramSolver", "puzzles", "survey",
                                      "webpbn-06574.nin"))
    record = run_batch([("forever", forever)], BatchConfig(job="analyse", jobs=1))[0]
    assert record["status"] == "unique"
    backdoor = record["backdoor"]
    # Forever's exact backdoor is not proved in 2 s (7 >= 6 at 10 s): the search used its time
    assert backdoor["time_s"] <= BATCH_BACKDOOR_TIMEOUT + 1.0
    assert backdoor["exact"] or backdoor["lower_bound"] <= backdoor["size"]


# -- command line ------------------------------------------------------------------------------------


def write_non(path: Path, p: Puzzle) -> None:
    path.write_bytes(get_format("non").write(p))


def test_cli_resumes_and_exits_by_the_worst_outcome(tmp_path):
    corpus = tmp_path / "c"
    corpus.mkdir()
    for k in range(4):
        write_non(corpus / f"ok{k}.non", puzzle(3 + k, title=f"ok{k}", seed=k))
    out = tmp_path / "r.jsonl"
    runner = CliRunner()
    args = ["batch", str(corpus), "--do", DOUBLE, "--out", str(out), "-j", "2", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout)
    assert summary["ran"] == 4 and summary["puzzles"] == 4
    assert summary["counts"] == {"unique": 2, "multiple": 2}
    assert "4/4 (100%)" in first.stderr  # plain progress lines: stderr is not a terminal

    write_non(corpus / "zz-hang.non", puzzle(3, "hang"))
    second = runner.invoke(app, args + ["--timeout", "0.5"])
    assert second.exit_code == 4, second.output
    summary = json.loads(second.stdout)
    assert (summary["ran"], summary["earlier"], summary["puzzles"]) == (1, 4, 5)
    assert summary["failures"][0]["status"] == "timeout"
    assert "4 already in" in second.stderr

    write_non(corpus / "zz-invalid.non", puzzle(3, "invalid"))
    third = runner.invoke(app, args[:-1])  # the table, not JSON
    assert third.exit_code == 1, third.output
    assert "disagreements (1)" in third.stdout and "zz-invalid.non" in third.stdout
    assert "failures (1)" in third.stdout and "timeout" in third.stdout
    assert len(read_records(out)) == 6


def test_cli_reports_a_missing_job_module_as_bad_input(tmp_path):
    p = tmp_path / "a.non"
    write_non(p, puzzle(3))
    result = CliRunner().invoke(app, ["batch", str(p), "--do", "nonosat_no_such_module:run"])
    assert result.exit_code == 2
    assert "nonosat_no_such_module" in result.stderr
