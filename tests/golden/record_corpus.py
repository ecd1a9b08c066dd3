"""Record the golden outputs of analyse (text and JSON), explain and hint over a corpus sample.

Run on main's code before a change to the analysis, from the repository root::

    NONOSAT_CORPUS=../shared/corpus PYTHONPATH=$PWD python tests/golden/record_corpus.py

Each ``corpus/CMD-FILE.txt`` holds the exit code and the standard output of one in-process run
(``typer``'s runner), the corpus folder written ``<corpus>``, durations replaced by ``<t>``
(:func:`record.normalise`), and for
``analyse-json`` the JSON without its timing keys (:func:`strip_times`), sorted and indented;
``tests/test_corpus_golden.py`` compares the current outputs with them.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = Path(os.environ.get("NONOSAT_CORPUS", HERE.parents[2] / "shared" / "corpus"))
SURVEY = "FastNonogramSolver/puzzles/survey"
#: Webpbn survey puzzles that each command handles in well under a second: line-solvable ones
#: and ones that need the implication stage (23, 27) or probing (65, 436).
ANALYSE = [f"webpbn-{n}.nin" for n in ("00001", "00006", "00016", "00021", "00023", "00027",
                                         "00065", "00436", "00529")]
EXPLAIN = [f"webpbn-{n}.nin" for n in ("00006", "00016", "00021", "00023", "00027")]
CASES = ([("analyse", f) for f in ANALYSE] + [("analyse-json", f) for f in ANALYSE]
         + [("hint", f) for f in ANALYSE] + [("explain", f) for f in EXPLAIN])

_spec = importlib.util.spec_from_file_location("golden_record", HERE / "record.py")
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)


def strip_times(value):
    """``value`` (parsed JSON) without the keys that hold durations."""
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items()
                if not ("time" in k or k.endswith("_s") or k == "seconds")}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value


def args(command: str, name: str) -> list[str]:
    """The command line of one case."""
    path = str(CORPUS / SURVEY / name)
    if command == "analyse":
        return ["analyse", path, "--timeout", "60"]
    if command == "analyse-json":
        return ["analyse", path, "--json", "--timeout", "60"]
    return [command, path]


def run(command: str, name: str) -> str:
    """``rc=N`` and the normalised standard output of one case, in this process."""
    from typer.testing import CliRunner

    from nonosat.cli.app import app

    result = CliRunner().invoke(app, args(command, name))
    text = result.stdout
    if command == "analyse-json":
        text = json.dumps(strip_times(json.loads(text)), indent=1, sort_keys=True)
    return f"rc={result.exit_code}\n" + record.normalise(text.replace(str(CORPUS), "<corpus>"))


if __name__ == "__main__":
    for command, name in CASES:
        (HERE / "corpus" / f"{command}-{name}.txt").write_text(run(command, name))
        print(command, name)
