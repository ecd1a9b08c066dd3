"""Black-and-white outputs over a corpus sample stay what main printed before the one analysis
pipeline (issue 28): ``analyse`` (text and JSON), ``hint`` and ``explain`` on webpbn survey
puzzles that need line solving, the implication stage or probing, recorded by
``tests/golden/record_corpus.py`` on main's code (``tests/golden/corpus/``).  A wider sample
(the survey, the first 20 puzzles of taai2011, every file of ``games/``) was compared by hand
when the pipeline changed; see the commit message."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import REPO, corpus_path

GOLDEN = REPO / "tests" / "golden"
_spec = importlib.util.spec_from_file_location("golden_corpus", GOLDEN / "record_corpus.py")
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)


@pytest.mark.parametrize(("command", "name"), record.CASES,
                         ids=[f"{c}-{n}" for c, n in record.CASES])
def test_corpus_output_is_mains(command, name, monkeypatch):
    corpus_path(record.SURVEY, name)  # skips (fails under CI) without the corpus
    monkeypatch.setattr(record, "CORPUS", corpus_path())
    monkeypatch.delenv("COLUMNS", raising=False)
    golden = (GOLDEN / "corpus" / f"{command}-{name}.txt").read_text()
    assert record.run(command, name) == golden
