"""nonosat verify: solutions and verdicts of another solver, judged with evidence.

Every witness is checked here independently of the code that produced it: solutions against the
clues by a run-length count written in this file (and against brute-force solution sets on the
small puzzles), certificates through :func:`verify_certificate`.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path
from typer.testing import CliRunner

from nonosat.certificates import verify_certificate
from nonosat.cli.app import app
from nonosat.errors import PuzzleError
from nonosat.formats import read_puzzle, read_puzzles
from nonosat.formats.tournament import read_solutions
from nonosat.judge import (
    PuzzleIndex,
    ResultRow,
    check_solution,
    parse_claim,
    parse_solution,
    read_results,
    verify,
    verify_results,
    write_witness,
)
from nonosat.puzzle import Puzzle, grid_rows

runner = CliRunner()

HEART_PICTURE = np.array(
    [[0, 1, 1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 0],
     [0, 0, 1, 1, 1, 0, 0], [0, 0, 0, 1, 0, 0, 0]], dtype=bool)
#: 3x3 with exactly one solution (brute force below says so).
UNIQUE = Puzzle.from_picture([[1, 1, 0], [0, 1, 0], [1, 1, 1]], goal=None)
#: 2x3 whose two rows may swap their blocks: two solutions.
MULTIPLE = Puzzle([(1,), (1,)], [(1,), (1,), ()])
#: Totals agree (2 = 2) but the full first row and column leave row 2 non-empty: no solution.
IMPOSSIBLE = Puzzle([(2,), ()], [(2,), ()])
SMALL = {"unique": UNIQUE, "multiple": MULTIPLE, "none": IMPOSSIBLE}

TAAI = ("NonogramRecord", "question", "taai2011.txt")
TAAI_SOLUTIONS = ("NonogramRecord", "solution", "taai2011.txt")


# -- independent checks ----------------------------------------------------------------------------


def runs(cells) -> tuple[int, ...]:
    """Block lengths of a line, by itertools.groupby (independent of Puzzle.line_errors)."""
    return tuple(len(list(g)) for filled, g in itertools.groupby(bool(c) for c in cells) if filled)


def failing_lines(puzzle: Puzzle, sol: np.ndarray) -> list[str]:
    """``"row 2: expected 1, actual 0"`` for every line of ``sol`` that breaks its clue."""

    def text(blocks):
        return " ".join(map(str, blocks)) if blocks else "0"

    out = []
    for i, clue in enumerate(puzzle.rows):
        if runs(sol[i]) != clue:
            out.append(f"row {i + 1}: expected {text(clue)}, actual {text(runs(sol[i]))}")
    for j, clue in enumerate(puzzle.cols):
        if runs(sol[:, j]) != clue:
            out.append(f"column {j + 1}: expected {text(clue)}, actual {text(runs(sol[:, j]))}")
    return out


def brute_force(puzzle: Puzzle) -> list[np.ndarray]:
    """Every solution of a small puzzle, by trying all 2^(h*w) grids."""
    h, w = puzzle.shape
    found = []
    for bits in itertools.product((False, True), repeat=h * w):
        grid = np.array(bits, dtype=bool).reshape(h, w)
        if not failing_lines(puzzle, grid):
            found.append(grid)
    return found


def read_grid(path: Path) -> np.ndarray:
    """A witness solution file, read back as a text-grid picture."""
    return read_puzzle(path, "grid").goal


def holds(claim: str, count: int) -> bool:
    return {"unique": count == 1, "multiple": count >= 2, "none": count == 0,
            "solved": count >= 1}[claim]


def check_witness(puzzle: Puzzle, directory: Path, kind: str, truth_solutions=None) -> None:
    """The witness in ``directory`` proves what ``kind`` says, checked without nonosat.judge."""
    verdict = json.loads((directory / "verdict.json").read_text())
    assert verdict["witness"] == kind
    if kind in ("two solutions", "solution"):
        sols = [read_grid(directory / f"solution-{k}.txt")
                for k in range(1, 3 if kind == "two solutions" else 2)]
        for sol in sols:
            assert failing_lines(puzzle, sol) == []
            if truth_solutions is not None:
                assert any(np.array_equal(sol, t) for t in truth_solutions)
        if kind == "two solutions":
            assert not np.array_equal(sols[0], sols[1])
            cert = verify_certificate(directory / "certificate")
            assert cert.ok and cert.verdict == "multiple", cert.problems
    elif kind in ("uniqueness certificate", "unsatisfiability proof"):
        cert = verify_certificate(directory / "certificate")
        assert cert.ok, cert.problems
        assert cert.verdict == ("unique" if kind == "uniqueness certificate" else "none")
        assert cert.puzzle is not None and cert.puzzle.fingerprint() == puzzle.fingerprint()
        assert cert.checks and all(c.ok for c in cert.checks)
    elif kind == "line errors":
        submitted = read_grid(directory / "submitted-1.txt")
        expected = failing_lines(puzzle, submitted)
        assert expected
        assert (directory / "line-errors.txt").read_text().splitlines() == expected
    else:
        raise AssertionError(kind)


# -- small puzzles, every claim --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["unique", "multiple", "none"])
def test_small_puzzles_have_the_solution_counts_the_tests_assume(name):
    count = len(brute_force(SMALL[name]))
    assert holds(name, count)


@pytest.mark.parametrize("name", ["unique", "multiple", "none"])
@pytest.mark.parametrize("claim", ["unique", "multiple", "none", "solved"])
def test_every_claim_on_small_puzzles_is_judged_with_the_right_witness(tmp_path, name, claim):
    puzzle = SMALL[name]
    truth = brute_force(puzzle)
    judgement = verify(puzzle, claim)
    assert judgement.outcome == ("confirmed" if holds(claim, len(truth)) else "refuted")
    assert judgement.claim_outcome == judgement.outcome
    assert judgement.truth == {0: "none", 1: "unique"}.get(len(truth), "multiple")
    write_witness(judgement, tmp_path / "w")
    if len(truth) >= 2:
        kind = "two solutions"
    elif len(truth) == 0:
        kind = "unsatisfiability proof"
    elif claim == "solved":
        kind = "solution"  # a solution is all a claim of 'solved' needs
    else:
        kind = "uniqueness certificate"
    check_witness(puzzle, tmp_path / "w", kind, truth)
    if kind == "uniqueness certificate":
        assert np.array_equal(read_grid(tmp_path / "w" / "solution-1.txt"), truth[0])


def test_a_valid_solution_is_confirmed_and_an_invalid_one_refuted_with_its_failing_lines(tmp_path):
    puzzle = UNIQUE
    sol = brute_force(puzzle)[0]
    judgement = verify(puzzle, solutions=[sol])
    assert judgement.outcome == "confirmed" and judgement.checks[0].valid
    bad = sol.copy()
    bad[1, 1] = False
    bad[0, 2] = True
    judgement = verify(puzzle, solutions=[bad])
    assert judgement.outcome == "refuted"
    got = [str(e) for e in judgement.checks[0].errors]
    assert got == failing_lines(puzzle, bad)
    assert {e.name for e in judgement.checks[0].errors} == {"row 1", "row 2", "column 2",
                                                            "column 3"}
    write_witness(judgement, tmp_path / "w")
    check_witness(puzzle, tmp_path / "w", "line errors")


def test_an_invalid_solution_refutes_the_answer_even_when_the_verdict_holds():
    sol = brute_force(UNIQUE)[0]
    bad = ~sol
    judgement = verify(UNIQUE, "unique", [bad])
    assert judgement.outcome == "refuted"
    assert judgement.claim_outcome == "confirmed" and judgement.certified
    assert "breaks" in judgement.reason


def test_two_submitted_solutions_decide_multiple_without_a_search():
    a, b = brute_force(MULTIPLE)
    judgement = verify(MULTIPLE, "multiple", [a, b])
    assert judgement.outcome == "confirmed" and judgement.certificate is None
    judgement = verify(MULTIPLE, "unique", [a, b])
    assert judgement.outcome == "refuted" and judgement.witness_kind() == "two solutions"


def test_a_submitted_solution_refutes_none():
    judgement = verify(UNIQUE, "none", [brute_force(UNIQUE)[0]])
    assert judgement.outcome == "refuted" and judgement.witness_kind() == "solution"


def test_a_solution_of_the_wrong_size_is_bad_input():
    with pytest.raises(PuzzleError, match="3x3"):
        verify(UNIQUE, "unique", [np.zeros((2, 3), dtype=bool)])


def test_undecided_when_the_certifier_runs_out_of_time(monkeypatch):
    import nonosat.certificates as certificate
    import nonosat.certificates.certifier as certifier

    def out_of_time(puzzle, **kwargs):
        return certificate.Certificate(puzzle, "unknown", [], "order", 1, "cadical195")

    monkeypatch.setattr(certifier, "certify", out_of_time)  # the proof step, after the verdict
    judgement = verify(UNIQUE, "unique", timeout=1.0)
    assert judgement.outcome == "undecided" and "1 s" in judgement.reason


@pytest.mark.parametrize("puzzle", [UNIQUE, MULTIPLE], ids=["unique", "multiple"])
def test_undecided_when_the_verdict_runs_out_of_time(monkeypatch, puzzle):
    """The portfolio gives up (as 'nonosat solve' would): no claim is judged either way."""
    import nonosat.certificates.certifier as certifier
    from nonosat.engines import SolveResult, Status

    monkeypatch.setattr(certifier, "decide", lambda puzzle, **kw: SolveResult(
        Status.UNKNOWN, [], "native+sat", 1.0))
    for claim in ("unique", "multiple", "none"):
        judgement = verify(puzzle, claim, timeout=1.0)
        assert judgement.outcome == "undecided" and "1 s" in judgement.reason


def test_a_rejected_proof_is_undecided_never_confirmed(monkeypatch):
    import nonosat.certificates as certificate
    import nonosat.certificates.certifier as certifier

    real = certifier.certify

    def rejected(puzzle, **kwargs):
        cert = real(puzzle, **kwargs)
        cert.checks = [certificate.ProofCheck("dratify", False, "lemma 3 is not RUP", 0.0)]
        return cert

    monkeypatch.setattr(certifier, "certify", rejected)
    judgement = verify(UNIQUE, "unique")
    assert judgement.outcome == "undecided" and "rejects the proof" in judgement.reason


def test_claims_are_read_as_other_solvers_write_them():
    assert parse_claim("UNIQUE") == "unique"
    assert parse_claim("multiple_solutions") == "multiple"
    assert parse_claim("unsat") == "none"
    assert parse_claim("SAT") == "solved"
    assert parse_claim("timeout") is None
    with pytest.raises(PuzzleError, match="unknown status"):
        parse_claim("maybe")


def test_solutions_are_read_as_other_solvers_write_them():
    want = np.array([[1, 1, 0], [0, 1, 0], [1, 1, 1]], dtype=bool)
    for value in (["##.", ".#.", "###"], "##.|.#.|###", "110/010/111", "XX-\n-X-\nXXX",
                  [[1, 1, 0], [0, 1, 0], [1, 1, 1]]):
        assert np.array_equal(parse_solution(value, (3, 3)), want), value
    with pytest.raises(PuzzleError, match="wrong size.*2 rows"):
        parse_solution(["##.", ".#."], (3, 3))
    with pytest.raises(PuzzleError, match="wrong size.*row 2 has 2"):
        parse_solution(["##.", ".#", "###"], (3, 3))
    with pytest.raises(PuzzleError, match="not decided"):
        parse_solution(["##.", ".?.", "###"], (3, 3))


# -- command line, one puzzle ----------------------------------------------------------------------


def write_grid(path: Path, sol: np.ndarray) -> Path:
    path.write_text("\n".join(grid_rows(sol)) + "\n")
    return path


def test_cli_exit_codes_and_witness_directory(tmp_path):
    puzzle = write_grid(tmp_path / "heart.txt", HEART_PICTURE)
    p = read_puzzle(puzzle)
    sol = p.goal
    bad = sol.copy()
    bad[0, 0] = ~bad[0, 0]
    bad_file = write_grid(tmp_path / "bad.txt", bad)
    ok = runner.invoke(app, ["verify", str(puzzle), "--solution", str(puzzle), "--claim", "unique"])
    assert ok.exit_code == 0, ok.output
    assert "CONFIRMED" in ok.output
    refuted = runner.invoke(app, ["verify", str(puzzle), "--solution", str(bad_file),
                                  "--out", str(tmp_path / "w")])
    assert refuted.exit_code == 1, refuted.output
    for line in failing_lines(p, bad):
        assert line in refuted.output
    check_witness(p, tmp_path / "w", "line errors")
    again = runner.invoke(app, ["verify", str(puzzle), "--claim", "multiple",
                                "--out", str(tmp_path / "w")])
    assert again.exit_code == 2 and "not empty" in again.output
    forced = runner.invoke(app, ["verify", str(puzzle), "--claim", "multiple", "--json",
                                 "--out", str(tmp_path / "w"), "--force"])
    assert forced.exit_code == 1
    record = json.loads(forced.stdout)
    assert record["outcome"] == "refuted" and record["witness"] == "uniqueness certificate"
    check_witness(p, tmp_path / "w", "uniqueness certificate")


def test_cli_two_solutions_shown_when_unique_is_refuted(tmp_path):
    from nonosat.formats import write_puzzle

    path = tmp_path / "two.non"
    write_puzzle(MULTIPLE, path)
    result = runner.invoke(app, ["verify", str(path), "--claim", "unique"])
    assert result.exit_code == 1
    assert "nonosat's solution 2" in result.output


def test_cli_undecided_exits_4(tmp_path, monkeypatch):
    import nonosat.certificates as certificate
    import nonosat.certificates.certifier as certifier

    monkeypatch.setattr(certifier, "certify", lambda puzzle, **kw: certificate.Certificate(
        puzzle, "unknown", [], "order", 1, "cadical195"))
    path = write_grid(tmp_path / "p.txt", brute_force(UNIQUE)[0])
    result = runner.invoke(app, ["verify", str(path), "--claim", "unique", "--timeout", "0.5"])
    assert result.exit_code == 4, result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--claim", "maybe"], "unknown status"),
        ([], "nothing to verify"),
        (["--claim", "timeout"], "no verdict to judge"),
        (["--solution", "{small}"], "wrong size"),
        (["--solution", "{missing}"], "No such file"),
    ],
)
def test_cli_bad_input_exits_2(tmp_path, args, message):
    puzzle = write_grid(tmp_path / "p.txt", brute_force(UNIQUE)[0])
    write_grid(tmp_path / "small.txt", np.ones((2, 2), dtype=bool))
    args = [a.format(small=tmp_path / "small.txt", missing=tmp_path / "nope.txt") for a in args]
    result = runner.invoke(app, ["verify", str(puzzle), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_solution_from_a_tournament_solution_file():
    question = corpus_path(*TAAI)
    solutions = corpus_path(*TAAI_SOLUTIONS)
    result = runner.invoke(app, ["verify", str(question), "--index", "7", "--solution",
                                 str(solutions), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["solutions"] == [{"valid": True, "line_errors": []}]
    wrong = runner.invoke(app, ["verify", str(question), "--index", "7", "--solution",
                                str(question)])
    assert wrong.exit_code == 2 and "no solution picture" in wrong.output


# -- published solutions --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["taai2011.txt", "tcga2016.txt", "icga2017.txt"])
def test_published_solutions_are_valid_solutions_of_their_puzzles(name):
    puzzles = read_puzzles(corpus_path("NonogramRecord", "question", name))
    pictures = read_solutions(corpus_path("NonogramRecord", "solution", name))
    assert len(puzzles) == len(pictures) == 1000
    for puzzle in puzzles:
        sol = pictures[puzzle.number]
        check = check_solution(puzzle, sol)
        assert check.valid, (puzzle.number, check.describe())
    # the check can fail: one flipped cell breaks its row and its column
    puzzle = puzzles[0]
    bad = pictures[puzzle.number].copy()
    bad[3, 4] = ~bad[3, 4]
    assert {e.name for e in check_solution(puzzle, bad).errors} == {"row 4", "column 5"}


# -- finding puzzles -------------------------------------------------------------------------------


def test_row_ids_find_their_puzzles(tmp_path):
    a = Puzzle([(1,)], [(1,)])
    b = Puzzle([()], [()])
    index = PuzzleIndex([("sets/x.txt#1", a), ("sets/x.txt#2", b), ("other/y.txt#2", a),
                         ("single.non", b)])
    assert index.find("sets/x.txt#2")[0] == "sets/x.txt#2"
    assert index.find("x.txt#1")[0] == "sets/x.txt#1"
    assert index.find("1")[0] == "sets/x.txt#1"
    assert index.find("$1")[0] == "sets/x.txt#1"
    assert index.find("/somewhere/else/single.non")[0] == "single.non"
    with pytest.raises(LookupError, match="ambiguous"):
        index.find("2")
    with pytest.raises(LookupError, match="no puzzle numbered 7"):
        index.find("7")
    with pytest.raises(LookupError, match="no puzzle 9 of x.txt"):
        index.find("x.txt#9")


def test_results_files_jsonl_and_tsv(tmp_path):
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text('{"id": "1", "status": "unique", "solution": ["#"]}\nnot json\n'
                     '{"id": "2"}\n\n{"id": 3, "status": null}\n')
    rows = read_results(jsonl)
    assert [(r.line, r.id, r.status, r.solution) for r in rows if r.problem is None] == [
        (1, "1", "unique", ["#"]), (5, "3", "", None)]
    assert [r.line for r in rows if r.problem] == [2, 3]
    tsv = tmp_path / "r.tsv"
    tsv.write_text("ID\tStatus\tsolution\n1\tunique\t#.|.#\n2\tmultiple\t\n")
    rows = read_results(tsv)
    assert [(r.id, r.status, r.solution) for r in rows] == [("1", "unique", "#.|.#"),
                                                            ("2", "multiple", None)]
    headless = tmp_path / "h.tsv"
    headless.write_text("1\tunique\n")
    from nonosat.errors import FormatError

    with pytest.raises(FormatError, match="header"):
        read_results(headless)


def test_rows_that_cannot_be_judged_are_reported_not_skipped():
    index = PuzzleIndex([("u.txt", UNIQUE), ("v.txt", MULTIPLE)])
    rows = [
        ResultRow(1, "nowhere.txt", "unique"),
        ResultRow(2, "u.txt", "unique", ["##", ".#"]),
        ResultRow(3, "v.txt", "perhaps"),
        ResultRow(4, "line 4", "", None, "not JSON: Expecting value"),
        ResultRow(5, "u.txt", "unique"),
    ]
    records = verify_results(rows, index, jobs=1)
    assert [r["status"] for r in records] == ["bad-row"] * 5
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5]
    reasons = [r["reason"] for r in records]
    assert "puzzle not found" in reasons[0]
    assert "wrong size" in reasons[1]
    assert "unknown status" in reasons[2]
    assert "not JSON" in reasons[3]
    assert "duplicate row" in reasons[4] and "line 2" in reasons[4]


# -- a tournament slice with planted mistakes ------------------------------------------------------


@pytest.fixture(scope="module")
def taai_slice():
    """Truth for taai2011 puzzles 1-20 from the native engine (independent of the SAT encoding
    and the certificates), and the published pictures."""
    from nonosat.engines import solve

    puzzles = {p.number: p for p in read_puzzles(corpus_path(*TAAI))}
    pictures = read_solutions(corpus_path(*TAAI_SOLUTIONS))
    truth = {n: solve(puzzles[n], "native", limit=2).status.value for n in range(1, 21)}
    return puzzles, pictures, truth


def test_tournament_slice_exactly_the_planted_mistakes_are_refuted(tmp_path, taai_slice):
    puzzles, pictures, truth = taai_slice
    unique = [n for n, v in truth.items() if v == "unique"]
    multiple = [n for n, v in truth.items() if v == "multiple"]
    assert len(unique) >= 1 and len(multiple) >= 4, truth
    rows: dict[int, dict] = {n: {"id": f"taai2011.txt#{n}", "status": truth[n],
                                 "solution": grid_rows(pictures[n])} for n in truth}
    planted = {}
    # wrong verdicts
    rows[multiple[0]]["status"] = "unique"
    planted[multiple[0]] = "two solutions"
    rows[unique[0]]["status"] = "multiple"
    planted[unique[0]] = "uniqueness certificate"
    rows[multiple[1]] = {"id": str(multiple[1]), "status": "none"}  # bare number, no solution
    planted[multiple[1]] = "two solutions"
    # wrong solutions
    flipped = pictures[multiple[2]].copy()
    flipped[12, 12] = ~flipped[12, 12]
    rows[multiple[2]]["solution"] = grid_rows(flipped)
    planted[multiple[2]] = "line errors"
    rows[multiple[3]]["solution"] = grid_rows(pictures[multiple[3] + 1])  # another puzzle's
    planted[multiple[3]] = "line errors"
    # rows that cannot be judged, and one without a verdict
    extra = [{"id": "taai2011.txt#5000", "status": "unique"},
             {"id": "taai2011.txt#21", "status": "unique", "solution": grid_rows(pictures[21])[:24]},
             {"id": "taai2011.txt#22", "status": "timeout"}]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in [*rows.values(), *extra]))
    out = tmp_path / "witnesses"
    result = runner.invoke(app, ["verify", "--results", str(results), str(corpus_path(*TAAI)),
                                 "--out", str(out), "--jobs", "2", "--json", "--timeout", "60"])
    assert result.exit_code == 1, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]  # JSON Lines
    report = lines[-1]
    assert report["kind"] == "summary" and all(r["command"] == "verify" for r in lines)
    records = {r["row_id"]: r for r in lines[:-1]}
    refuted = {r["row_id"] for r in report["refuted"]}
    assert refuted == {rows[n]["id"] for n in planted}
    for n, row in rows.items():
        record = records[row["id"]]
        if n not in planted:
            assert record["outcome"] == "confirmed" and record["ok"], record
            continue
        assert record["outcome"] == "refuted" and not record["ok"]
        witness = Path(record["witness_dir"])
        assert witness.parent == out and record["witness"] == planted[n]
        check_witness(puzzles[n], witness, planted[n])
    assert records["taai2011.txt#5000"]["outcome"] == "bad-row"
    assert "not found" in records["taai2011.txt#5000"]["reason"]
    assert records["taai2011.txt#21"]["outcome"] == "bad-row"
    assert "wrong size" in records["taai2011.txt#21"]["reason"]
    assert records["taai2011.txt#22"]["outcome"] == "unjudged"
    table = report["table"]
    assert sum(sum(c.values()) for c in table.values()) == len(rows) + len(extra)
    assert table["unique"]["refuted"] >= 1 and table["none"] == {"refuted": 1}
    # only refuted rows get a witness directory
    assert {p.name for p in out.iterdir()} == {Path(records[rows[n]["id"]]["witness_dir"]).name
                                               for n in planted}
    assert {(r["row_id"], r["evidence"]) for r in report["refuted"]} == {
        (rows[n]["id"], planted[n]) for n in planted}


def test_the_witness_directory_is_claimed_whole_or_not_at_all(tmp_path, monkeypatch):
    """``verify --out``: an interrupt between two files leaves no directory and no temporary
    sibling; an existing non-empty directory is refused and left as it was."""
    from nonosat import interrupts
    from nonosat.errors import FormatError
    from nonosat.judge import evidence

    judgement = verify(MULTIPLE, "unique")
    assert len(judgement.witness_files()) >= 2
    calls = []
    real_open = open

    def interrupted_open(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 2:
            raise interrupts.Interrupted(interrupts.SIGINT)
        return real_open(*args, **kwargs)

    monkeypatch.setattr(evidence, "open", interrupted_open, raising=False)
    with pytest.raises(interrupts.Interrupted):
        write_witness(judgement, tmp_path / "w")
    assert len(calls) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    monkeypatch.undo()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(FormatError):
        write_witness(judgement, mine)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    written = write_witness(judgement, tmp_path / "w")
    assert all(p.is_file() for p in written)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "w"]


def test_line_errors_agree_with_independent_runs():
    """Puzzle.line_errors (its vectorised check first, the per-line report after) names exactly
    the lines whose runs, counted by itertools.groupby, differ from the clue: random pictures,
    each grid itself, with one cell flipped and with a row shifted, and with unknown clues."""
    rng = np.random.default_rng(27)
    for k in range(60):
        h, w = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        picture = rng.random((h, w)) < rng.uniform(0.2, 0.8)
        puzzle = Puzzle.from_picture(picture)
        if k % 5 == 0:  # some unknown clues: they accept anything
            puzzle = Puzzle(puzzle.rows[:-1] + (None,), (None,) + puzzle.cols[1:])
        flipped = picture.copy()
        flipped[rng.integers(h), rng.integers(w)] ^= True
        shifted = picture.copy()
        shifted[0] = np.roll(shifted[0], 1)
        for grid in (picture, flipped, shifted):
            got = sorted(line for line, _, _ in puzzle.line_errors(grid))
            want = sorted([i for i, c in enumerate(puzzle.rows)
                           if c is not None and runs(grid[i]) != c]
                          + [h + j for j, c in enumerate(puzzle.cols)
                             if c is not None and runs(grid[:, j]) != c])
            assert got == want
            assert puzzle.is_solution(grid) == (not want)
