"""The compiled order encoder (nonosat.encodings.cnf_order) against the Python reference.

Certificates re-derive a puzzle's CNF and compare it clause by clause, so the compiled encoder
must give exactly the reference's clauses: the same literals in the same order, the same
auxiliary variables, the same line spans.  (That the reference's models are exactly a line's
patterns is checked against brute force in ``tests/test_cnf_encodings.py``, which runs through
the compiled encoder too.)
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonosat.encodings.cnf import (
    ENCODING_VERSIONS,
    _encode_lines,
    encode,
    line_clauses,
    partial_units,
)
from nonosat.encodings.cnf_lines import _Clauses, _order_line, _Vars
from nonosat.encodings.cnf_order import encode_order, order_line
from nonosat.formats.tournament import read_tournament
from nonosat.puzzle import Puzzle, line_blocks
from tests.conftest import corpus_path


def reference_line(clue, cells, first_aux):
    out = _Clauses()
    aux = _Vars(first_aux)
    _order_line(tuple(clue), list(cells), aux, out)
    return list(out), aux.next


# a clue of up to 8 blocks on a line of 0-30 cells: fitting, tight, or too long for the line
lines = st.integers(0, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 12), max_size=8).map(tuple),
        st.just(n),
    )
)


@settings(max_examples=400, deadline=None)
@given(lines, st.data())
def test_compiled_line_equals_the_reference(clue_n, data):
    clue, n = clue_n
    # the cells are any literals: distinct variables with random signs, in any order
    variables = data.draw(st.permutations(range(1, n + 1)))
    signs = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    cells = [v if s else -v for v, s in zip(variables, signs, strict=True)]
    first_aux = n + 1 + data.draw(st.integers(0, 50))
    assert order_line(clue, cells, first_aux) == reference_line(clue, cells, first_aux)


def test_tight_and_overlong_clues_equal_the_reference():
    for clue, n in [((3, 1), 5), ((3, 1), 4), ((1,) * 5, 9), ((1,) * 5, 8), ((25,), 25),
                    ((), 4), ((2,), 0), ((1, 1), 1)]:
        cells = list(range(1, n + 1))
        assert order_line(clue, cells, n + 1) == reference_line(clue, cells, n + 1)


@st.composite
def puzzles(draw):
    """A picture's clues, some lines hidden (unknown clue); once a line is hidden the row and
    column totals need not agree, so some known clues are then those of random other lines."""
    h, w = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    picture = np.array(draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w))).reshape(h, w)
    lines = [line_blocks(row) for row in picture] + [line_blocks(col) for col in picture.T]
    hidden = draw(st.lists(st.booleans(), min_size=h + w, max_size=h + w))
    if any(hidden):
        for i in range(h + w):
            if draw(st.integers(0, 3)) == 0:
                n = w if i < h else h
                lines[i] = line_blocks(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    clues = [None if hide else clue for clue, hide in zip(lines, hidden, strict=True)]
    return Puzzle(clues[:h], clues[h:])


@settings(max_examples=150, deadline=None)
@given(puzzles(), st.data())
def test_compiled_puzzle_equals_the_reference(puzzle, data):
    """Unknown clues and empty lines included; with a partial grid."""
    clauses, nvars, spans = _encode_lines(puzzle, "order")
    assert encode_order(puzzle) == (clauses, nvars, spans)
    h, w = puzzle.shape
    partial = np.array(data.draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=h * w,
                                          max_size=h * w)), dtype=np.int8).reshape(h, w)
    enc = encode(puzzle, "order", partial)
    assert enc.clauses == clauses + partial_units(puzzle, partial)
    assert (enc.nvars, enc.line_spans, enc.version) == (nvars, spans, ENCODING_VERSIONS["order"])


def test_tournament_puzzles_equal_the_reference():
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    for puzzle in read_tournament(path.read_bytes(), str(path))[::97]:
        assert encode_order(puzzle) == _encode_lines(puzzle, "order")


def test_line_clauses_order_is_the_compiled_encoder():
    assert line_clauses((2,), [1, 2, 3, 4], 5, "order") == reference_line((2,), [1, 2, 3, 4], 5)
    assert line_clauses(None, [1, 2], 3, "order") == ([], 3)


@pytest.mark.parametrize("encoding", ["regular", "dfa"])
def test_other_encodings_still_built_by_the_python_encoders(encoding):
    puzzle = Puzzle([(1,), (2,)], [(2,), (1,)])
    enc = encode(puzzle, encoding)
    assert (enc.clauses, enc.nvars, enc.line_spans) == _encode_lines(puzzle, encoding)
