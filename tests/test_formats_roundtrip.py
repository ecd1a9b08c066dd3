"""Every black-and-white corpus puzzle survives read -> write (each writable format) -> read, and
independent copies of the same puzzles in different formats agree."""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.errors import FormatError
from nonosat.formats import detect_format, formats, get_format, read_puzzle, read_puzzles
from nonosat.formats.tournament import read_solutions, with_goals
from nonosat.puzzle import Puzzle
from tests.conftest import corpus_path

#: Formats whose files carry the goal picture (when the puzzle has one).
GOAL_FORMATS = {"non", "json", "webpbn", "short", "grid", "pbm", "png"}
#: Tournament sets are big: a sample of each keeps the test fast.
TOURNAMENT_SAMPLE = 5


def _corpus_files() -> list[Path]:
    root = corpus_path()
    patterns = [
        "**/*.non",
        "**/*.nin",
        "**/*.json",
        "number-loom/**/*.xml",
        "Nonogram/games/*.csv",
        "NonogramRecord/question/*.txt",
        "NonogramRecord/solution/*.txt",
        "picross-solver/inputs/*.txt",
        "picross-solver/inputs/raw/*.pbm",
        "picross-solver/inputs/raw/*.txt",
    ]
    files = sorted(
        {Path(p) for pat in patterns for p in glob.glob(str(root / pat), recursive=True)}
    )
    assert len(files) > 250, "the corpus looks incomplete"
    return files


def _black_and_white(path: Path) -> list[Puzzle]:
    """The puzzles of a corpus file, or [] for the colour / triddler ones (refused by design)."""
    if "NonogramRecord" in str(path):
        data = path.read_bytes()
        cut = data.find(b"$%d" % (TOURNAMENT_SAMPLE + 1))
        puzzles = get_format("tournament").read(data[:cut], str(path))
        assert len(puzzles) == TOURNAMENT_SAMPLE
        return puzzles
    try:
        puzzles = read_puzzles(path)
    except FormatError as exc:
        assert "triddler" in str(exc), exc
        return []
    # colour puzzles round-trip in tests/test_colour_formats.py
    return [p for p in puzzles if not p.is_colour]


def _can_hold(fmt_name: str, puzzle: Puzzle) -> bool:
    if get_format(fmt_name).stores_picture:
        return puzzle.goal is not None
    if any(c is None for c in puzzle.lines):
        return fmt_name == "json"
    if fmt_name == "tournament":
        return puzzle.width == puzzle.height
    return True


def test_every_black_and_white_corpus_puzzle_round_trips_through_every_writable_format():
    writable = [f for f in formats().values() if f.write is not None]
    assert {f.name for f in writable} >= {
        "webpbn",
        "json",
        "short",
        "csv",
        "tournament",
        "non",
        "nin",
        "cwd",
        "olsak",
        "mk",
        "picross",
        "grid",
        "pbm",
        "png",
    }
    checked = 0
    refused = []
    for path in _corpus_files():
        puzzles = _black_and_white(path)
        if not puzzles:
            refused.append(path.name)
        for puzzle in puzzles:
            for fmt in writable:
                if not _can_hold(fmt.name, puzzle):
                    continue
                data = fmt.write(puzzle)
                (back,) = fmt.read(data, f"{path.name}->{fmt.name}")
                assert back.rows == puzzle.rows, (path, fmt.name)
                assert back.cols == puzzle.cols, (path, fmt.name)
                if fmt.name in GOAL_FORMATS and puzzle.goal is not None:
                    assert np.array_equal(back.goal, puzzle.goal), (path, fmt.name)
                if puzzle.title and fmt.name in ("non", "json", "webpbn", "csv", "picross"):
                    assert back.title == puzzle.title, (path, fmt.name)
                checked += 1
    # 2 colour webpbn files, 6 colour number-loom puzzles (tested elsewhere) and 1 triddler.
    assert len(refused) == 9, refused
    assert checked > 5000


def test_multi_puzzle_writers_keep_every_puzzle_and_its_number():
    path = corpus_path("NonogramRecord", "question", "tcga2016.txt")
    puzzles = read_puzzles(path)[:30]
    for name in ("tournament", "csv", "picross"):
        fmt = get_format(name)
        back = fmt.read(fmt.write_many(puzzles), "set")
        assert [(p.rows, p.cols) for p in back] == [(p.rows, p.cols) for p in puzzles], name
        assert [p.number for p in back] == list(range(1, 31)), name


def test_wolter_xml_and_survey_nin_hold_the_same_puzzles():
    xml_dir = corpus_path("number-loom", "examples", "wolter")
    nin_dir = corpus_path("FastNonogramSolver", "puzzles", "survey")
    pairs = 0
    for nin in sorted(nin_dir.glob("*.nin")):
        xml = xml_dir / (nin.stem + ".xml")
        a, b = read_puzzle(xml), read_puzzle(nin)
        assert (a.rows, a.cols) == (b.rows, b.cols), nin.name
        assert a.goal is not None and a.is_solution(a.goal), xml.name
        pairs += 1
    assert pairs == 14


def test_picross_solver_non_copies_agree_with_wolter_xml():
    """picross-solver's .non copies of webpbn puzzles (made independently) match the XML ones."""
    xml_dir = corpus_path("number-loom", "examples", "wolter")
    for non in corpus_path("picross-solver", "inputs", "webpbn").glob("webpbn-0*.non"):
        xml = xml_dir / ("-".join(non.stem.split("-")[:2]) + ".xml")
        if xml.exists():
            a, b = read_puzzle(xml), read_puzzle(non)
            assert (a.rows, a.cols) == (b.rows, b.cols), non.name
            assert np.array_equal(a.goal, b.goal), non.name


def test_tournament_solutions_are_goals_that_satisfy_the_published_clues():
    for year in ("taai2011", "tcga2016", "icga2017"):
        solutions = read_solutions(corpus_path("NonogramRecord", "solution", f"{year}.txt"))
        assert sorted(solutions) == list(range(1, 1001))
        puzzles = with_goals(
            read_puzzles(corpus_path("NonogramRecord", "question", f"{year}.txt")), solutions
        )
        assert all(p.goal.shape == (25, 25) for p in puzzles)
        assert all(p.is_solution(p.goal) for p in puzzles[::20]), year


def test_tournament_columns_come_first():
    """$1 of taai2011 starts '2 1 1 1 1 2 3': its first column, as the solution file shows."""
    puzzle = read_puzzle(corpus_path("NonogramRecord", "question", "taai2011.txt"), index=1)
    assert puzzle.number == 1
    assert puzzle.cols[0] == (2, 1, 1, 1, 1, 2, 3)
    goal = read_solutions(corpus_path("NonogramRecord", "solution", "taai2011.txt"))[1]
    assert puzzle.is_solution(goal)


def test_tournament_index_picks_the_numbered_puzzle_in_crlf_files():
    path = corpus_path("NonogramRecord", "question", "icga2018.txt")
    assert b"\r\n" in path.read_bytes()[:200]
    puzzle = read_puzzle(path, index=737)
    assert puzzle.number == 737 and puzzle.shape == (25, 25)


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("NonogramRecord/question/taai2011.txt", "tournament"),
        ("NonogramRecord/solution/taai2011.txt", "tournament"),
        ("picross-solver/inputs/domino_logic.txt", "picross"),
        ("picross-solver/inputs/raw/note.txt", "grid"),
        ("picross-solver/inputs/raw/rand11.txt", "grid"),
        ("picross-solver/inputs/raw/test.pbm", "pbm"),
        ("Nonogram/games/icons.csv", "csv"),
        ("jwilk-nonogram/data/data000.nin", "nin"),
    ],
)
def test_format_is_detected_by_suffix_then_content(relative, expected):
    path = corpus_path(*relative.split("/"))
    assert detect_format(path, path.read_bytes()[:4096]).name == expected


def test_content_sniffing_without_a_suffix(tmp_path):
    for relative, expected in [
        ("Nonogram/games/football.json", "json"),
        ("number-loom/examples/wolter/webpbn-00001.xml", "webpbn"),
        ("picross-solver/inputs/webpbn/webpbn-00001-dancer.non", "non"),
        ("NonogramRecord/question/taai2011.txt", "tournament"),
    ]:
        target = tmp_path / expected
        target.write_bytes(corpus_path(*relative.split("/")).read_bytes())
        assert read_puzzles(target)[0].width > 0
        assert detect_format(target, target.read_bytes()[:4096]).name == expected


def test_picture_files_give_the_puzzle_of_the_picture():
    moss = read_puzzle(corpus_path("picross-solver", "inputs", "webpbn", "webpbn-36459-moss.non"))
    pbm = read_puzzle(corpus_path("picross-solver", "inputs", "raw", "moss-60x60-bw-3.pbm"))
    assert (pbm.rows, pbm.cols) == (moss.rows, moss.cols)
    note = read_puzzle(corpus_path("picross-solver", "inputs", "raw", "note.txt"))
    nin = read_puzzle(corpus_path("picross-solver", "inputs", "note.nin"))
    assert (note.rows, note.cols) == (nin.rows, nin.cols)
    assert note.goal.shape == (6, 6) and note.goal.sum() == 13


def test_non_keeps_metadata_and_unescapes_html():
    dancer = read_puzzle(
        corpus_path("picross-solver", "inputs", "webpbn", "webpbn-00001-dancer.non")
    )
    assert dancer.title == "Dancer" and dancer.author == "Jan Wolter"
    assert dancer.copyright == "© Copyright 2004 by Jan Wolter"
    assert dancer.meta["catalogue"] == "webpbn.com #1"
    again = get_format("non").read(get_format("non").write(dancer), "x")[0]
    assert again.copyright == dancer.copyright and again.meta == dancer.meta


def test_json_null_is_an_unknown_clue_and_round_trips():
    partial = read_puzzle(corpus_path("Nonogram", "games", "P-partial.json"))
    assert partial.rows[6] is None and partial.cols[1:4] == (None, None, None)
    assert partial.rows[0] == ()
    back = get_format("json").read(get_format("json").write(partial), "x")[0]
    assert back.rows == partial.rows and back.cols == partial.cols
    with pytest.raises(FormatError, match="unknown clue"):
        get_format("non").write(partial)


@st.composite
def _pictures(draw):
    h = draw(st.integers(1, 9))
    w = draw(st.integers(1, 9))
    density = draw(st.sampled_from([0.0, 0.15, 0.5, 0.9]))
    seed = draw(st.integers(0, 2**32 - 1))
    picture = np.random.default_rng(seed).random((h, w)) < density
    if draw(st.booleans()):  # empty first/last lines are where positional formats go wrong
        picture[-1, :] = False
        picture[:, -1] = False
    return picture


@settings(max_examples=120, deadline=None)
@given(_pictures(), st.sampled_from(["", "Title", '#hash, "quoted" & <angle>']))
def test_random_puzzles_round_trip_through_every_writable_format(picture, title):
    puzzle = Puzzle.from_picture(picture, title=title or None)
    for fmt in formats().values():
        if fmt.write is None or not _can_hold(fmt.name, puzzle):
            continue
        (back,) = fmt.read(fmt.write(puzzle), f"random->{fmt.name}")
        assert (back.rows, back.cols) == (puzzle.rows, puzzle.cols), fmt.name
        if fmt.name in GOAL_FORMATS:
            assert np.array_equal(back.goal, puzzle.goal), fmt.name
        if title and fmt.name in ("non", "json", "webpbn", "csv", "picross"):
            assert back.title == title, fmt.name
