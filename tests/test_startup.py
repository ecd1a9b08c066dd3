"""Start-up and help (issues 15 and 16): ``nonosat --help``, ``-h`` and every ``nonosat CMD
--help`` import none of numba, numpy, PySAT, OR-Tools, networkx, Pillow (nor pydantic, which typer
would use to coerce values); one metavar and default style in every command's help; each
command's exit-code footer is true for that command; ``--version``; the first-run message also
with an empty ``NUMBA_CACHE_DIR``.  Each check runs in a fresh interpreter (``sys.modules``).
Timing targets live in ``benchmarks/bench_startup.py``, not here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from nonosat import __version__
from nonosat.cli.app import EXIT_CODES, app
from tests.conftest import GAMES, REPO

HEAVY = ("numba", "numpy", "pysat", "ortools", "networkx", "PIL", "pydantic", "llvmlite")
COMMANDS = sorted(EXIT_CODES)

runner = CliRunner()


def _loaded_after(args: list[str]) -> tuple[set[str], str]:
    code = (
        "import sys, json\n"
        "from nonosat.cli.app import main\n"
        f"sys.argv = ['nonosat', *{args!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO,
        env={**os.environ, "COLUMNS": "100"},
    )
    return set(json.loads(out.stderr.splitlines()[-1])), out.stdout


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"]]
                         + [[c, "--help"] for c in COMMANDS] + [["solve", "-h"]])
def test_help_imports_nothing_heavy(args):
    loaded, output = _loaded_after(args)
    assert "Usage" in output or "nonosat" in output
    assert not loaded & set(HEAVY), f"{args}: {sorted(loaded & set(HEAVY))}"


def test_every_command_is_listed_and_has_a_footer():
    top = runner.invoke(app, ["-h"])
    assert top.exit_code == 0
    for command in COMMANDS:
        assert re.search(rf"^  {re.escape(command)}\s", top.stdout, re.M), command


@pytest.mark.parametrize("command", COMMANDS)
def test_help_style_is_one_style(command):
    result = runner.invoke(app, [command, "-h"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    text = result.stdout
    usage = text.splitlines()[0]
    assert usage.startswith(f"Usage: nonosat {command} [OPTIONS]")
    assert "{" not in usage and "<" not in usage
    options = text[text.index("Options:"):] if "Options:" in text else ""
    arguments = text[text.index("Arguments:"): text.index("Options:")] if "Arguments:" in text else ""
    for section in (arguments, options):
        assert not re.search(r"<[a-z][^>]*>", section), section  # <str>, <path>, <list[Path]>
        assert not re.search(r"\{[a-z_]+\}", section), section  # {cert_dir}
    # defaults in typer's bracket only, never in the running text of an option
    for line in options.splitlines():
        assert not re.search(r"\(default:", line), line
        assert not re.search(r"; default:", line), line
    # -t means --timeout wherever it exists
    if re.search(r"^\s+-t, ", options, re.M):
        assert re.search(r"^\s+-t, --timeout SECONDS", options, re.M), options
    # the footer lists exactly this command's exit codes
    footer = text[text.index("Exit codes:"):]
    codes = [int(c) for c in re.findall(r"^\s+(\d+)\s", footer, re.M)]
    assert codes == list(EXIT_CODES[command]), (command, codes)


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"nonosat {__version__}"
    pyproject = (REPO / "pyproject.toml").read_text()
    assert f'version = "{__version__}"' in pyproject


def test_python_dash_m_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "nonosat", "--version"], capture_output=True,
                         text=True, cwd=REPO)
    assert out.returncode == 0 and out.stdout.strip() == f"nonosat {__version__}"


#: Invocations and the exit code each must give; every code must be in that command's footer.
EXITS = [
    (["solve", "heart.non"], 0), (["solve", "cross-ambiguous.non"], 1),
    (["solve", "impossible.non"], 3), (["solve", "missing.non"], 2),
    (["crosscheck", "heart.non", "-e", "native,cpsat"], 0),
    (["crosscheck", "missing.non"], 2),
    (["convert", "heart.non", "-", "--to", "nin"], 0), (["convert", "heart.non", "-"], 2),
    (["formats"], 0),
    (["render", "heart.non"], 0), (["render", "cross-ambiguous.non", "--solution"], 1),
    (["render", "impossible.non", "--solution"], 3),
    (["encode", "heart.non", "--out", "-"], 0),
    (["analyse", "heart.non"], 0), (["analyse", "impossible.non"], 3),
    (["hint", "heart.non"], 0), (["hint", "impossible.non"], 3),
    (["explain", "heart.non"], 0),
    (["verify", "heart.non", "--claim", "unique"], 0),
    (["verify", "cross-ambiguous.non", "--claim", "unique"], 1),
]


@pytest.mark.parametrize(("args", "code"), EXITS, ids=[" ".join(a) for a, _ in EXITS])
def test_exit_codes_are_in_the_commands_footer(args, code, monkeypatch):
    monkeypatch.chdir(GAMES)
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert code in EXIT_CODES[args[0]]


def test_the_compile_notice_comes_when_numba_compiles_and_only_then(tmp_path):
    """The notice follows numba's compile event: nothing for a process that compiles nothing,
    once (not per kernel) for one that compiles, and nothing when the kernel is in the cache."""
    quiet = "from nonosat.cli.running import announce_compile\nannounce_compile()\n"
    compiles = quiet + (
        "import numba\n"
        "@numba.njit(cache=True)\ndef g(x):\n    return x + 1\n"
        "@numba.njit(cache=True)\ndef f(x):\n    return g(x) * 2\n"
        "assert f(3) == 8 and f(2.5) == 7.0\n")
    module = tmp_path / "kernels_here.py"
    module.write_text(compiles)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    said = []
    for code in (quiet, None, None):
        args = ["-c", code] if code else [str(module)]
        out = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO,
                             env=env)
        assert out.returncode == 0, out.stderr
        said.append(out.stderr.count("compiling the solver kernels"))
    assert said == [0, 1, 0]  # none; once for four compiles; none from the cache


def test_every_engine_path_says_the_compile_notice(tmp_path):
    """``solve --engine sat`` and ``--engine cpsat`` (not only native/auto) say the notice when
    a kernel compiles on their way, once: a small kernel of nonosat's lazy ``njit`` in a fresh
    directory is run first by the engine call.  (Nothing when it comes from the cache: the
    notice's own test above.)"""
    runs = []
    for engine, where in (("sat", "a"), ("cpsat", "b")):
        folder = tmp_path / where
        folder.mkdir(exist_ok=True)
        (folder / "kernel_here.py").write_text(
            "from nonosat.lazy_jit import njit\n"
            "@njit(cache=True)\ndef bump(x):\n    return x + 1\n")
        code = (
            "import sys\n"
            f"sys.path.insert(0, {str(folder)!r})\n"
            "import kernel_here\n"
            "import nonosat.engines as engines\n"
            "real = engines.solve\n"
            "def solve(*args, **kw):\n"
            "    assert kernel_here.bump(1) == 2\n"
            "    return real(*args, **kw)\n"
            "engines.solve = solve\n"
            "from nonosat.cli.app import main\n"
            f"sys.argv = ['nonosat', 'solve', 'heart.non', '--engine', {engine!r}, '--brief']\n"
            "main()\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=GAMES, timeout=300)
        assert out.returncode == 0, out.stderr
        runs.append(out.stderr.count("compiling the solver kernels"))
    assert runs == [1, 1]  # each compiled a kernel: the notice, once


def test_solve_defaults_to_the_portfolio(tmp_path, monkeypatch):
    """`solve` (and `convert`, when it must solve for a picture) use `auto` unless told: the JSON
    of a puzzle the native root node leaves open carries the portfolio's hand-off flag (the
    native search decides this small one within its budget)."""
    text = runner.invoke(app, ["solve", "-h"], env={"COLUMNS": "200"}).stdout
    assert re.search(r"--engine NAME .*\[default: auto\]", " ".join(text.split()))
    result = runner.invoke(app, ["solve", str(GAMES / "cross-ambiguous.non"), "--json"])
    out = json.loads(result.stdout)
    assert out["engine"] == "native" and out["stats"]["handoff"] is False
    assert out["stats"]["native"]["guesses"] > 0
    import nonosat.engines as engines

    used = []
    real = engines.solve

    def recording(puzzle, engine="auto", **kw):
        used.append(engine)
        return real(puzzle, engine, **kw)

    monkeypatch.setattr(engines, "solve", recording)
    source = tmp_path / "heart.nin"  # .nin holds no goal picture: convert must solve
    assert runner.invoke(app, ["convert", str(GAMES / "heart.non"), str(source)]).exit_code == 0
    result = runner.invoke(app, ["convert", str(source), str(tmp_path / "heart.pbm")])
    assert result.exit_code == 0, result.output
    assert used == ["auto"]


def test_a_command_imports_only_its_own_module():
    loaded_modules = subprocess.run(
        [sys.executable, "-c",
         "import sys\n"
         "sys.argv = ['nonosat', 'formats']\n"
         "from nonosat.cli.app import main\n"
         "try:\n    main()\nexcept SystemExit:\n    pass\n"
         "sys.stderr.write(' '.join(m for m in sys.modules if m.startswith('nonosat.cli.')))\n"],
        capture_output=True, text=True, cwd=REPO, check=True,
    ).stderr.split()
    assert set(loaded_modules) == {"nonosat.cli.app", "nonosat.cli.click_style",
                                   "nonosat.cli.convert", "nonosat.cli.exits",
                                   "nonosat.cli.inputs", "nonosat.cli.options",
                                   "nonosat.cli.output", "nonosat.cli.running",
                                   "nonosat.cli.signals"}  # shared, light


_EXIT = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('atexit ran'))\n"
    "class Torn:\n"
    "    def __del__(self):\n"
    "        print('torn down')\n"
    "torn = Torn()  # deleted by the interpreter's tear-down, which the quick exit skips\n"
    "from nonosat.cli.app import main\n"
    "sys.argv = ['nonosat', 'solve', sys.argv[1]]\n"
    "main()\n"
)


def test_quick_exit_after_numba_keeps_output_code_and_atexit():
    """A command that loaded numba leaves without the interpreter's tear-down
    (nonosat.quick_exit.leave, issue 27): the same output (block-buffered into a pipe), exit
    code and atexit functions as the ordinary exit (NONOSAT_FULL_EXIT=1)."""
    game = str(REPO / "games" / "cross-ambiguous.non")

    def run(full: str) -> tuple[int, str]:
        out = subprocess.run([sys.executable, "-c", _EXIT, game], capture_output=True,
                             text=True, cwd=REPO, env={**os.environ, "NONOSAT_FULL_EXIT": full})
        return out.returncode, re.sub(r"\[native, .*?\]", "[T]", out.stdout, flags=re.S)

    quick, full = run("0"), run("1")
    assert full[1].rstrip().endswith("torn down")  # the ordinary exit
    assert "torn down" not in quick[1]  # the quick one (numba was loaded)
    assert quick[0] == 1 and quick == (full[0], full[1].replace("torn down\n", "")), (quick, full)
    assert quick[1].rstrip().endswith("atexit ran") and "2 solutions found" in quick[1]


def test_bench_peers_worker_leaves_as_the_command_line_does(tmp_path):
    """``benchmarks/bench_peers.py --worker`` (the nonosat process whose CPU the peer ratios
    count) ends with the quick exit of the command line: its rows written, its output flushed,
    and no interpreter tear-down (the object below is never deleted)."""
    spec, rows = tmp_path / "spec.json", tmp_path / "rows.json"
    spec.write_text(json.dumps({"engine": "native", "limit": 2, "timeout": 60, "progress": True,
                                "puzzles": [["heart", str(GAMES / "heart.non"), None]]}))
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO / 'benchmarks')!r})\n"
        "class Torn:\n"
        "    def __del__(self):\n"
        "        print('torn down')\n"
        "torn = Torn()\n"
        "print('buffered')\n"
        "import bench_peers\n"
        f"sys.argv = ['bench_peers.py', '--worker', {str(spec)!r}, {str(rows)!r}]\n"
        "bench_peers.main()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         timeout=300, env={**os.environ, "NONOSAT_FULL_EXIT": "0"})
    assert out.returncode == 0, out.stderr
    assert out.stdout == "buffered\n"  # flushed, and no tear-down after it
    assert "nonosat heart: unique" in out.stderr
    assert [r["status"] for r in json.loads(rows.read_text())] == ["unique"]
