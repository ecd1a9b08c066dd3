"""Record the golden text outputs of solve/analyse/explain/hint on the black-and-white games.

Run once on main's code (before a change to the CLI's text), from the repository root::

    PYTHONPATH=$PWD python tests/golden/record.py

Each ``CMD-GAME.txt`` holds the exit code and the standard output, timings replaced by ``<t>``
(:func:`normalise`); ``tests/test_cli_golden.py`` compares the current output with them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GAMES = ["cross-ambiguous.non", "heart.non", "house.json", "impossible.non", "mug.xml",
         "sailboat.nin"]
COMMANDS = ["solve", "analyse", "explain", "hint"]

_TIME = re.compile(r"\d+(?:\.\d+)?(?= s\b)")
#: What a fresh process adds (the first load of the kernels), not an in-process run.
_LOAD = re.compile(r"(; loading the engine's kernels and libraries: <t> s(?=\])| \(loading the "
                   r"engine's kernels and libraries: <t> s apart\))")


def normalise(text: str) -> str:
    """``text`` with every duration (a number before `` s``) replaced by ``<t>``; the mention of
    a first load of the kernels (a fresh process's) dropped."""
    return _LOAD.sub("", _TIME.sub("<t>", text))


def run(command: str, game: str) -> str:
    """``rc=N`` and the normalised standard output of ``nonosat COMMAND games/GAME``."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "nonosat", command, f"games/{game}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )
    return f"rc={done.returncode}\n" + normalise(done.stdout)


if __name__ == "__main__":
    for command in COMMANDS:
        for game in GAMES:
            (HERE / f"{command}-{game}.txt").write_text(run(command, game))
            print(command, game)
