"""The studio's page in a real headless Chromium (Selenium), against `nonosat studio` run as a
process.

What the page shows is checked against engines independent of the server's code paths: the
ambiguity map against CP-SAT's enumeration of every solution, finished grids against the SAT
engine's solution.  Needs /usr/bin/chromium, chromedriver and selenium: without them the tests
skip with the reason on a user's machine and fail under CI (``CI=true``), never skipping
silently there.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from nonosat.engines import Status, solve
from nonosat.formats import read_puzzle, read_puzzles
from nonosat.puzzle import Puzzle, grid_rows, line_blocks
from tests.conftest import GAMES, REPO, _missing, corpus_path

CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--disable-quic", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]
WAIT_S = 20


# -- server and browser (also used by benchmarks/studio_screenshots.py) --------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(*paths: Path) -> tuple[subprocess.Popen, str]:
    """`nonosat studio --no-browser` on a free port; returns the process and the base URL."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-c", "from nonosat.cli.app import main; main()", "studio",
           "--no-browser", "--port", str(port), *map(str, paths)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)
    line = proc.stdout.readline()  # the URL, once the server listens
    if f"http://127.0.0.1:{port}/" not in line:
        proc.kill()
        raise RuntimeError(f"nonosat studio did not start: {line!r}")
    return proc, f"http://127.0.0.1:{port}"


def stop_server(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def browser_missing() -> str | None:
    """Why a headless Chromium cannot be driven here (None when it can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'nonosat[dev]')"
    if not (Path("/usr/bin/chromium").exists() or shutil.which("chromium")):
        return "chromium not found (apt-get install chromium)"
    if not shutil.which("chromedriver"):
        return "chromedriver not found (apt-get install chromium-driver)"
    return None


def chrome(profile: Path, size: str = "1400,1000", extra_args: tuple[str, ...] = ()):
    """A headless Chromium driver; the driver path is always given, so Selenium Manager never
    downloads anything.  ``extra_args``: more Chromium switches."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    binary = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    options.binary_location = binary
    for arg in [*CHROME_ARGS, f"--window-size={size}", f"--user-data-dir={profile}",
                *extra_args]:
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))


# -- page helpers ---------------------------------------------------------------------------------
def wait(driver, condition, timeout: float = WAIT_S, message: str = ""):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
        lambda d: condition(d), message)


def open_page(driver, base: str, query: str = "") -> None:
    driver.get(f"{base}/{query}")
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"),
         message="the page did not start")


def el(driver, css: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, css)


def cell(driver, r: int, c: int):
    return el(driver, f'#board .cell[data-r="{r}"][data-c="{c}"]')


def grid(driver) -> list[str]:
    """The board as row strings over '#' (filled), '.' (empty), '?' (unknown)."""
    return driver.execute_script("""
        const ch = {filled: '#', empty: '.', unknown: '?'};
        const rows = [];
        for (const c of document.querySelectorAll('#board .cell')) {
          const r = +c.dataset.r;
          rows[r] = (rows[r] || '') + ch[c.dataset.state];
        }
        return rows;""")


def marked(driver, cls: str) -> set[tuple[int, int]]:
    pairs = driver.execute_script(
        "return Array.from(document.querySelectorAll('#board .cell.' + arguments[0]),"
        " c => [+c.dataset.r, +c.dataset.c]);", cls)
    return {(r, c) for r, c in pairs}


def clues(driver) -> tuple[list[str], list[str]]:
    return tuple(driver.execute_script(
        "return [Array.from(document.querySelectorAll('#board .row-clue'), e => e.dataset.clue),"
        " Array.from(document.querySelectorAll('#board .col-clue'), e => e.dataset.clue)];"))


def verdict(driver) -> str:
    """The editor's verdict once no request is in flight (data-status)."""
    wait(driver, lambda d: el(d, "#verdict").get_attribute("data-busy") == "false",
         message="the verdict stayed busy")
    return el(driver, "#verdict").get_attribute("data-status")


def shared(driver) -> None:
    """Wait until the address bar holds the page's current puzzle and mode."""
    wait(driver, lambda d: d.execute_script("return document.body.dataset.shared") == "true",
         message="the address was not updated")


def next_frame(driver) -> None:
    """Return once the page has run its next animation frame (the editor redraws the clues of
    the cells painted since the last one then)."""
    driver.execute_async_script("requestAnimationFrame(() => arguments[0]())")


def _clue_extent(rows: list[list[str]]) -> tuple[int, int]:
    """What sizes the clue areas: the most numbers in a column clue (its lines) and the longest
    row clue's text.  Cells: "." or "?" background, any other character a colour ("#" black)."""
    def clue(line) -> list[int]:
        runs = [len(list(g)) for ch, g in itertools.groupby(line) if ch not in ".?"]
        return runs or [0]

    return (max(len(clue(col)) for col in zip(*rows, strict=True)),
            max(len(" ".join(map(str, clue(row)))) for row in rows))


def draw(driver, *strokes: list[tuple[int, int]]) -> None:
    """Paint with the mouse: each stroke is pressed on its first cell, dragged over the rest.

    The editor redraws the clues once a frame, and a clue that grows (a column's clue one
    number longer) moves the board.  The driver places the pointer from the layout it reads:
    a move placed before such a frame and sent after it landed a row off (a loaded machine
    painted (23, 22) for (24, 22)).  So a move after a paint that grows a clue area waits for
    that frame; the other moves go at once."""
    from selenium.webdriver.common.action_chains import ActionChains

    picture = [list(row) for row in grid(driver)]
    extent = _clue_extent(picture)
    for stroke in strokes:
        value = "." if picture[stroke[0][0]][stroke[0][1]] == "#" else "#"  # a stroke toggles
        chain = ActionChains(driver).click_and_hold(cell(driver, *stroke[0]))
        picture[stroke[0][0]][stroke[0][1]] = value
        for r, c in stroke[1:]:
            grown = _clue_extent(picture)
            if grown != extent:  # the board moves at the next frame: place the pointer after it
                chain.perform()
                next_frame(driver)
                chain, extent = ActionChains(driver), grown
            chain = chain.move_to_element(cell(driver, r, c))
            picture[r][c] = value
        chain.release().perform()
        extent = _clue_extent(picture)  # the release fits the board to its clues at once
def resize(driver, h: int, w: int) -> None:
    for name, value in (("edit-height", h), ("edit-width", w)):
        box = el(driver, f"#{name}")
        box.clear()
        box.send_keys(str(value))
    el(driver, "#edit-resize").click()
    wait(driver, lambda d: len(grid(d)) == h and len(grid(d)[0]) == w)


def set_mode(driver, mode: str) -> None:
    el(driver, f"#mode-{mode}").click()
    # data-mode-shown: the mode's board is drawn (play first awaits its storage key)
    wait(driver, lambda d: d.execute_script("return document.body.dataset.modeShown") == mode)


def open_file(driver, path: Path) -> None:
    """Open a file through the page's file input, as the file picker does."""
    el(driver, "#file-input").send_keys(str(path))


def picture_puzzle(rows: list[str]) -> Puzzle:
    picture = np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)
    return Puzzle(rows=[line_blocks(r) for r in picture], cols=[line_blocks(c) for c in picture.T],
                  goal=picture)


def ambiguity_truth(puzzle: Puzzle) -> set[tuple[int, int]]:
    """Cells that differ across every solution, enumerated by CP-SAT."""
    result = solve(puzzle, "cpsat", limit=5000)
    assert result.status != Status.UNKNOWN and len(result.solutions) < 5000
    sols = result.solutions
    diff = np.zeros(puzzle.shape, dtype=bool)
    for s in sols[1:]:
        diff |= s != sols[0]
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(diff), strict=True)}


def filled(rows: list[str]) -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"}


def solution_cells(puzzle: Puzzle) -> set[tuple[int, int]]:
    result = solve(puzzle, "sat")
    assert result.status == Status.UNIQUE
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(result.solutions[0]), strict=True)}


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    proc, base = start_server()
    try:
        yield base
    finally:
        assert stop_server(proc) == 130  # Ctrl-C: interrupted, as every command


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    reason = browser_missing()
    if reason:
        _missing(reason)
    drv = chrome(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield drv
    finally:
        drv.quit()


@pytest.fixture
def shot(driver, tmp_path_factory, request):
    """Call at the end of a test: a screenshot named after the test, in a tmp directory or in
    ``$NONOSAT_SCREENSHOTS`` when set."""
    keep = os.environ.get("NONOSAT_SCREENSHOTS")  # a folder to keep them in, to look at
    folder = Path(keep) if keep else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)

    def take(name: str = "") -> Path:
        path = folder / f"{request.node.name}{name}.png"
        driver.save_screenshot(str(path))
        return path

    return take


# -- tests ----------------------------------------------------------------------------------------
def test_editor_verdict_and_checkered_ambiguity_follow_the_drawing(driver, server, shot):
    open_page(driver, server, "?mode=edit")
    resize(driver, 6, 6)
    draw(driver, [(0, 0), (0, 1), (0, 2)], [(2, 0)], [(3, 1)])
    assert grid(driver)[:4] == ["###...", "......", "#.....", ".#...."]
    assert verdict(driver) == "multiple"
    assert "several" in el(driver, "#verdict").text
    truth = ambiguity_truth(picture_puzzle(grid(driver)))
    assert len(truth) >= 4
    assert marked(driver, "ambiguous") == truth
    assert el(driver, "#grade").text.strip() not in ("", "—")
    shot("-ambiguous")
    # one more cell makes the picture the only solution: the checkered cells go
    draw(driver, [(2, 1)])
    assert verdict(driver) == "unique"
    assert ambiguity_truth(picture_puzzle(grid(driver))) == set()
    assert marked(driver, "ambiguous") == set()
    assert "unique" in el(driver, "#verdict").text
    # the clues are derived from the picture
    rows, cols = clues(driver)
    assert rows == ["3", "", "2", "1", "", ""] and cols[:3] == ["1 1", "1 2", "1"]
    shot()


#: A 25x25 face drawn in strokes: a frame, two eyes, a nose, a mouth with raised corners (one
#: solution, checked against CP-SAT in the test), then a diagonal pair that makes it ambiguous.
FACE_STROKES = [
    [(0, c) for c in range(25)], [(r, 24) for r in range(1, 25)],
    [(24, c) for c in range(23, -1, -1)], [(r, 0) for r in range(23, 0, -1)],
    *[[(r, c) for c in range(6, 9)] for r in range(5, 9)],
    *[[(r, c) for c in range(16, 19)] for r in range(5, 9)],
    [(r, 12) for r in range(9, 15)],
    [(17, 4), *[(18, c) for c in range(5, 20)], (17, 20)],
]
FACE_PAIR = [[(3, 3)], [(4, 4)]]


def busy_log(driver) -> None:
    """Record every value the verdict's busy flag takes from now on (``window.busyLog``)."""
    driver.execute_script("""
        window.busyLog = [];
        const v = document.getElementById('verdict');
        new MutationObserver(() => window.busyLog.push(v.dataset.busy))
          .observe(v, {attributes: true, attributeFilter: ['data-busy']});""")


def test_editor_25x25_drawing_shows_verdict_map_and_grade_live(driver, server, shot):
    """The issue's 'Done when': a 25x25 picture drawn with the mouse gets its verdict, whole
    ambiguity map (against CP-SAT's enumeration) and grade as it is drawn, and a make-unique
    suggestion makes it unique."""
    open_page(driver, server, "?mode=edit")
    resize(driver, 25, 25)
    draw(driver, *FACE_STROKES[:4])  # the frame
    assert verdict(driver) in ("unique", "multiple")
    busy_log(driver)
    draw(driver, *FACE_STROKES[4:])
    assert "true" in driver.execute_script("return window.busyLog")  # busy while it works
    face = grid(driver)
    assert len(face) == 25 and filled(face) == {rc for s in FACE_STROKES for rc in s}
    assert verdict(driver) == "unique"
    assert solve(picture_puzzle(face), "cpsat", limit=2).status == Status.UNIQUE
    assert marked(driver, "ambiguous") == set()
    first_grade = el(driver, "#grade").text.strip()
    assert first_grade[:1] in "12345" and "score" in first_grade
    # two more cells: several solutions, the whole map checkered, no grade (issue 25)
    busy_log(driver)
    draw(driver, *FACE_PAIR)
    assert verdict(driver) == "multiple"
    assert "true" in driver.execute_script("return window.busyLog")
    truth = ambiguity_truth(picture_puzzle(grid(driver)))
    assert len(truth) > 4  # more than the two cells where the first two solutions differ
    assert marked(driver, "ambiguous") == truth
    assert f"{len(truth)} cells ambiguous" in el(driver, "#verdict-detail").text
    grade = el(driver, "#grade").text.strip()
    assert grade == "not graded: several solutions"
    assert "Guesses" in el(driver, "#techniques").text
    shot("-ambiguous")
    ambiguous = grid(driver)
    # make-unique suggestions with one click: givens (the drawing unchanged) ...
    give = wait(driver, lambda d: el(d, '#suggestions li.suggestion[data-kind="give"] button'),
                message="no give suggestion")
    give.click()
    assert verdict(driver) == "unique"
    assert marked(driver, "given") and grid(driver) == ambiguous
    el(driver, "#givens-clear").click()
    assert verdict(driver) == "multiple"
    # ... or a one-cell edit of the picture
    edit = wait(driver, lambda d: el(d, '#suggestions li.suggestion[data-kind="edit"] button'),
                message="no edit suggestion")
    edit.click()
    assert verdict(driver) == "unique"
    after = grid(driver)
    assert len(filled(after) ^ filled(ambiguous)) == 1
    assert solve(picture_puzzle(after), "cpsat", limit=2).status == Status.UNIQUE
    assert marked(driver, "ambiguous") == set()
    shot()


def test_editor_tools_resize_clear_invert_shift(driver, server, shot):
    """Grids of 1x1 and 100x100 (the editor's limits; 101 is refused), and the picture tools."""
    open_page(driver, server, "?mode=edit")
    resize(driver, 1, 1)
    draw(driver, [(0, 0)])
    assert grid(driver) == ["#"] and verdict(driver) == "unique"
    resize(driver, 100, 100)
    assert verdict(driver) == "unique"  # the 1x1 picture, kept top-left, then empty cells
    assert filled(grid(driver)) == {(0, 0)}
    for name, value in (("edit-height", 101), ("edit-width", 5)):
        box = el(driver, f"#{name}")
        box.clear()
        box.send_keys(str(value))
    el(driver, "#edit-resize").click()
    wait(driver, lambda d: "1 to 100" in el(d, "#status").text)
    assert len(grid(driver)) == 100
    resize(driver, 4, 5)
    el(driver, "#edit-clear").click()
    assert grid(driver) == ["....."] * 4
    draw(driver, [(0, 0), (0, 1)], [(2, 3)])
    assert grid(driver) == ["##...", ".....", "...#.", "....."]
    el(driver, "#shift-right").click()
    el(driver, "#shift-down").click()
    assert grid(driver) == [".....", ".##..", ".....", "....#"]
    el(driver, "#shift-left").click()
    el(driver, "#shift-up").click()
    assert grid(driver) == ["##...", ".....", "...#.", "....."]  # the dropped column is gone
    el(driver, "#edit-invert").click()
    assert grid(driver) == ["..###", "#####", "###.#", "#####"]
    assert clues(driver)[0] == ["3", "5", "3 1", "5"]
    assert verdict(driver) == "unique"
    el(driver, "#edit-clear").click()
    assert grid(driver) == ["....."] * 4 and clues(driver)[0] == [""] * 4
    shot()


def test_make_unique_suggestions_apply_with_one_click(driver, server, shot):
    open_page(driver, server, "?mode=edit")
    resize(driver, 5, 5)
    draw(driver, [(1, 1)], [(2, 2)])
    assert verdict(driver) == "multiple"
    picture = grid(driver)
    # a `give`: those cells become givens and the verdict (with them) is unique
    give = wait(driver, lambda d: el(d, '#suggestions li.suggestion[data-kind="give"] button'),
                message="no give suggestion")
    give.click()
    assert verdict(driver) == "unique"
    assert marked(driver, "given")
    assert grid(driver) == picture  # givens do not change the drawing
    shot("-give")
    # without the givens it is ambiguous again; an `edit` changes one cell of the picture
    el(driver, "#givens-clear").click()
    assert verdict(driver) == "multiple"
    assert marked(driver, "given") == set()
    edit = wait(driver, lambda d: el(d, '#suggestions li.suggestion[data-kind="edit"] button'),
                message="no edit suggestion")
    edit.click()
    assert verdict(driver) == "unique"
    after = grid(driver)
    assert sum(a != b for x, y in zip(after, picture, strict=True)
               for a, b in zip(x, y, strict=True)) == 1
    assert solve(picture_puzzle(after), "cpsat", limit=2).status == Status.UNIQUE
    shot()


def test_play_football_to_completion_with_hints(driver, server, shot):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    path = corpus_path("Nonogram", "games", "football.json")
    puzzle = read_puzzle(path)
    open_page(driver, server, "?mode=play")
    open_file(driver, path)
    wait(driver, lambda d: clues(d)[0] == [" ".join(map(str, c)) for c in puzzle.rows],
         message="football did not open")
    assert len(grid(driver)) == 20
    el(driver, "#restart").click()
    # mouse and keyboard: click fills, X crosses, Ctrl-Z / Ctrl-Y undo and redo
    cell(driver, 0, 0).click()
    assert grid(driver)[0][0] == "#"
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT, "x").perform()
    assert grid(driver)[0][:2] == "#."
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    assert grid(driver)[0][:2] == "#?"
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("y").key_up(Keys.CONTROL).perform()
    assert grid(driver)[0][:2] == "#."
    ActionChains(driver).send_keys(Keys.DELETE, Keys.ARROW_LEFT, Keys.BACK_SPACE).perform()
    assert grid(driver)[0][:2] == "??"
    # hints to the end: each highlights its cells and line, "apply hint" writes them; the
    # first ones by keyboard (H, A) and mouse, the rest by clicking the buttons from a script
    # (one round trip per hint instead of a dozen)
    hint_text = el(driver, "#hint-text")
    for n in range(3):
        ActionChains(driver).send_keys("h").perform()
        wait(driver, lambda d, n=n: int(hint_text.get_attribute("data-n")) > n)
        assert hint_text.get_attribute("data-kind") == "deduction" and hint_text.text
        assert marked(driver, "hint")
        if n == 2:
            shot("-hint")
        ActionChains(driver).send_keys("a").perform()
        assert not marked(driver, "hint")
    step = """
        const done = arguments[arguments.length - 1];
        const text = document.getElementById('hint-text');
        if (document.getElementById('play-status').dataset.complete === 'true') return done(null);
        const n = +text.dataset.n;
        document.getElementById('hint').click();
        const poll = () => {
          if (+text.dataset.n === n) return setTimeout(poll, 10);
          const cells = document.querySelectorAll('#board .cell.hint').length;
          const kind = text.dataset.kind;
          const words = text.textContent;
          document.getElementById('apply-hint').click();
          done([kind, words, cells]);
        };
        poll();"""
    driver.set_script_timeout(WAIT_S)
    for _ in range(400):
        got = driver.execute_async_script(step)
        if got is None:
            break
        kind, words, cells = got
        assert kind == "deduction" and words and cells > 0, got
    status = el(driver, "#play-status")
    assert status.get_attribute("data-complete") == "true"
    assert "Solved" in status.text
    assert filled(grid(driver)) == solution_cells(puzzle)
    # the timer stopped (asserting that nothing changes takes a little time)
    stopped = el(driver, "#timer").text
    time.sleep(1.2)
    assert el(driver, "#timer").text == stopped
    shot()


def test_step_through_to_the_end(driver, server, shot):
    from selenium.webdriver.support.ui import Select

    open_page(driver, server, "?mode=steps")
    gallery = Select(el(driver, "#gallery"))
    wait(driver, lambda d: len(gallery.options) > 1)
    heart = next(o for o in gallery.options if o.text.startswith("Heart"))
    gallery.select_by_value(heart.get_attribute("value"))
    counter = el(driver, "#step-counter")
    wait(driver, lambda d: int(counter.get_attribute("data-total") or 0) > 0
         and len(grid(d)) == 11)
    total = int(counter.get_attribute("data-total"))
    assert set("".join(grid(driver))) == {"?"}
    el(driver, "#step-forward").click()
    el(driver, "#step-forward").click()
    assert counter.get_attribute("data-index") == "2"
    assert el(driver, "#step-text").text
    assert marked(driver, "line") and marked(driver, "hint")
    known = sum(ch != "?" for ch in "".join(grid(driver)))
    el(driver, "#step-back").click()
    assert counter.get_attribute("data-index") == "1"
    assert sum(ch != "?" for ch in "".join(grid(driver))) < known
    # play at full speed to the end
    driver.execute_script("const s = document.getElementById('step-speed');"
                          "s.value = s.max; s.dispatchEvent(new Event('input'));")
    el(driver, "#step-play").click()
    wait(driver, lambda d: counter.get_attribute("data-index") == str(total),
         message="playing did not reach the end")
    assert el(driver, "#step-verdict").get_attribute("data-status") == "unique"
    assert "unique" in el(driver, "#step-verdict").text
    final = grid(driver)
    assert "?" not in "".join(final)
    assert filled(final) == solution_cells(read_puzzle(GAMES / "heart.non"))
    shot()
    # several solutions: the steps walk to each; the grid at the end is a solution
    cross = next(o for o in gallery.options if o.text.startswith("Cross"))
    gallery.select_by_value(cross.get_attribute("value"))
    wait(driver, lambda d: len(grid(d)) == 5 and counter.get_attribute("data-index") == "0")
    el(driver, "#step-last").click()
    wait(driver, lambda d: el(d, "#step-verdict").get_attribute("data-status") == "multiple")
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    # the last step's grid: every row drawn at the puzzle's width, no cell unknown (a read during
    # the redraw once gave rows of two lengths, and numpy a ValueError)
    wait(driver, lambda d: (rows := grid(d)) and len(rows) == puzzle.height
         and all(len(r) == puzzle.width and "?" not in r for r in rows),
         message="the last step's grid was not drawn")
    end = np.array([[ch == "#" for ch in row] for row in grid(driver)])
    assert puzzle.is_solution(end)


def test_shared_url_restores_puzzle_and_mode(driver, server, shot):
    open_page(driver, server, "?mode=edit")
    resize(driver, 7, 8)
    draw(driver, [(0, 0), (1, 1), (2, 2), (3, 3)], [(6, 7), (6, 6)], [(4, 1)])
    picture = grid(driver)
    wanted = clues(driver)
    verdict(driver)
    shared(driver)
    assert "p=" in driver.current_url and "i=" in driver.current_url
    assert "mode=edit" in driver.current_url
    url = driver.current_url
    driver.switch_to.new_window("tab")
    try:
        open_page(driver, server, url.split("/", 3)[3])
        assert driver.execute_script("return document.body.dataset.mode") == "edit"
        assert clues(driver) == wanted
        assert grid(driver) == picture  # the picture comes back too
        shot("-edit")
        set_mode(driver, "play")
        shared(driver)
        assert "mode=play" in driver.current_url
        play_url = driver.current_url
        open_page(driver, server, "")
        open_page(driver, server, play_url.split("/", 3)[3])
        assert driver.execute_script("return document.body.dataset.mode") == "play"
        assert el(driver, "#mode-play").get_attribute("aria-pressed") == "true"
        assert clues(driver) == wanted
        shot()
    finally:
        driver.close()
        driver.switch_to.window(driver.window_handles[0])


def test_player_state_survives_a_reload(driver, server, shot):
    open_page(driver, server, "?mode=edit")
    resize(driver, 6, 6)
    draw(driver, [(0, 0), (0, 1), (0, 2), (0, 3)], [(2, 2), (3, 2), (4, 2)])
    picture = grid(driver)
    set_mode(driver, "play")
    el(driver, "#restart").click()
    draw(driver, [(0, 0), (0, 1), (0, 2)])
    el(driver, "#tool-cross").click()
    draw(driver, [(5, 0), (5, 1)])
    state = grid(driver)
    assert state[0] == "###???" and state[5] == "..????"
    shared(driver)
    assert "mode=play" in driver.current_url
    driver.refresh()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    assert driver.execute_script("return document.body.dataset.mode") == "play"
    assert grid(driver) == state
    # undo history is per page, but the game goes on from where it was
    cell(driver, 0, 3).click()
    assert el(driver, "#play-status").get_attribute("data-complete") == "false"
    # a mistake (a cross where every solution has a filled cell): Check marks it, only it
    el(driver, "#tool-cross").click()
    cell(driver, 3, 2).click()
    assert grid(driver)[3][2] == "."
    truth = solve(picture_puzzle(picture), "cpsat", limit=100).solutions
    assert all(s[3, 2] for s in truth)
    el(driver, "#check").click()
    wait(driver, lambda d: marked(d, "wrong"), message="Check marked nothing")
    assert marked(driver, "wrong") == {(3, 2)}
    assert "1 mistake" in el(driver, "#play-status").text
    shot()


# -- colour ---------------------------------------------------------------------------------------
INDEX = ".abcdefghijklmnopqrstuvwxyzABCD"


def colour_grid(driver) -> list[str]:
    """The board of a colour puzzle as row strings: "." background / crossed, "?" unknown,
    "a", "b", ... colours 1, 2, ... (the cells' data-colour)."""
    return driver.execute_script("""
        const index = arguments[0];
        const rows = [];
        for (const c of document.querySelectorAll('#board .cell')) {
          const r = +c.dataset.r;
          const ch = c.dataset.state === 'filled' ? index[+c.dataset.colour]
            : c.dataset.state === 'empty' ? '.' : '?';
          rows[r] = (rows[r] || '') + ch;
        }
        return rows;""", INDEX)


def fast_strokes(driver, strokes: list[list[tuple[int, int]]], pen: str | None = None) -> None:
    """Paint strokes through every cell, with no pause between pointer moves.  A straight
    stroke needs only its ends: the board paints the cells a fast pointer jumps over.

    ``pen`` (the colour's character, in the editor, whose clues follow the drawing): every cell
    of the strokes given, and a pause for the next frame wherever a paint grows a clue area
    and so moves the board (see :func:`draw`)."""
    from selenium.webdriver.common.action_chains import ActionChains

    cells = driver.find_elements("css selector", "#board .cell")  # row by row, found once
    width = int(driver.execute_script("return document.querySelectorAll("
                                      "'#board .col-clue').length"))
    picture = [list(row) for row in colour_grid(driver)] if pen else []
    extent = _clue_extent(picture) if pen else None
    chain = ActionChains(driver, duration=0)  # one request for them all
    for stroke in strokes:
        for k, (r, c) in enumerate(stroke):
            if pen and (grown := _clue_extent(picture)) != extent:
                chain.perform()  # the board moves at the next frame: place the pointer after it
                next_frame(driver)
                chain, extent = ActionChains(driver, duration=0), grown
            target = cells[r * width + c]
            chain = chain.click_and_hold(target) if k == 0 else chain.move_to_element(target)
            if pen:
                picture[r][c] = pen
        chain = chain.release()
    chain.perform()


def runs(picture: np.ndarray, k: int) -> list[list[tuple[int, int]]]:
    """The runs of colour ``k`` along the rows of a picture, as strokes."""
    out = []
    for r, row in enumerate(picture):
        c = 0
        while c < len(row):
            if row[c] != k:
                c += 1
                continue
            start = c
            while c < len(row) and row[c] == k:
                c += 1
            out.append([(r, x) for x in range(start, c)])
    return out


def test_colour_drawing_unique_shared_and_reopened_in_a_new_browser(driver, server, shot,
                                                                     tmp_path):
    """Draw a 3-colour 15x15 picture with the palette, get its unique verdict (checked by
    CP-SAT), share the address and open it in a new browser (another driver session)."""
    from nonosat.puzzle import Colour, Palette

    open_page(driver, server, "?mode=edit")
    resize(driver, 15, 15)
    el(driver, "#edit-clear").click()
    el(driver, "#edit-colour").click()                    # colour: white and black
    wait(driver, lambda d: len(d.find_elements("css selector", "#palette .swatch-row")) == 2)
    el(driver, "#palette-add").click()
    el(driver, "#palette-add").click()                    # two more: three colours
    rows = driver.find_elements("css selector", "#palette .swatch-row")
    assert len(rows) == 4
    picture = np.zeros((15, 15), dtype=np.int8)
    picture[0, :] = 1
    picture[1:, 0] = 2
    picture[14, 1:] = 3
    for k in (1, 2, 3):
        el(driver, f'#palette .swatch-row[data-index="{k}"] input[type=radio]').click()
        fast_strokes(driver, runs(picture, k), pen=INDEX[k])
    expected = ["".join(INDEX[v] for v in row) for row in picture]
    wait(driver, lambda d: colour_grid(d) == expected, message="the drawing is not on the board")
    assert verdict(driver) == "unique"
    names = driver.execute_script("return Array.from(document.querySelectorAll("
                                  "'#palette input[type=text]'), e => e.value)")
    rgbs = driver.execute_script("return Array.from(document.querySelectorAll("
                                 "'#palette input[type=color]'), e => e.value)")
    palette = Palette(tuple(Colour(n, tuple(int(h[i:i + 2], 16) for i in (1, 3, 5)), INDEX[k])
                            for k, (n, h) in enumerate(zip(names, rgbs, strict=True))))
    truth = Puzzle.from_picture(picture, palette=palette)
    assert solve(truth, "cpsat", limit=2).status == Status.UNIQUE
    # the clues are drawn in their colours: the row clue of row 15 is "1 14" in colours 2, 3
    row15 = el(driver, '#board .row-clue[data-r="14"]')
    assert row15.get_attribute("data-clue") == "1 14"
    assert row15.get_attribute("data-colours") == "2 3"
    chips = row15.find_elements("css selector", ".chip")
    assert [c.value_of_css_property("background-color") for c in chips] == [
        "rgba({}, {}, {}, 1)".format(*palette.colours[k].rgb) for k in (2, 3)]
    wanted = clues(driver)
    shared(driver)
    assert "p=C1" in driver.current_url and "i=C1" in driver.current_url
    url = driver.current_url.split("/", 3)[3]
    shot()
    other = chrome(tmp_path / "another-profile")
    try:
        open_page(other, server, url)
        assert colour_grid(other) == expected
        assert clues(other) == wanted
        assert verdict(other) == "unique"
        again = other.execute_script("return Array.from(document.querySelectorAll("
                                     "'#palette input[type=text]'), e => e.value)")
        assert again == names
    finally:
        other.quit()


def test_play_acorn_to_the_win_with_the_colour_picker(driver, server, shot):
    """pbnsolve's acorn.g (50x35, 4 colours) opened and played to the win: each colour picked
    in the player and its runs painted, the cells read from the SAT engine's solution."""
    path = corpus_path("pbnsolve-examples") / "acorn.g"
    puzzle = read_puzzle(path)
    solution = solve(puzzle, "sat").solutions[0]
    open_page(driver, server, "?mode=play")
    open_file(driver, path)
    wait(driver, lambda d: len(colour_grid(d)) == puzzle.height
         and len(colour_grid(d)[0]) == puzzle.width, message="acorn.g did not open")
    picker = driver.find_elements("css selector", "#colour-picker label")
    assert len(picker) == len(puzzle.palette) - 1
    assert el(driver, "#play-status").get_attribute("data-complete") == "false"
    for k in range(1, len(puzzle.palette)):
        el(driver, f'#colour-picker label[data-index="{k}"] input').click()
        fast_strokes(driver, [[run[0], run[-1]] if len(run) > 1 else run
                              for run in runs(solution, k)])
    expected = ["".join(INDEX[v] if v else "?" for v in row) for row in solution]
    wait(driver, lambda d: el(d, "#play-status").get_attribute("data-complete") == "true",
         message="the win was not detected")
    assert colour_grid(driver) == expected
    shot()


def test_import_a_three_colour_picture_with_the_colours_slider(driver, server, shot, tmp_path):
    from PIL import Image

    pic = np.zeros((6, 6), dtype=np.int8)
    pic[0:2, 0:3] = 1
    pic[3:6, 1] = 2
    pic[4, 3:6] = 3
    rgb = np.array([[255, 255, 255], [220, 20, 20], [20, 20, 200], [20, 160, 40]], dtype=np.uint8)
    path = tmp_path / "three.png"
    Image.fromarray(np.kron(rgb[pic], np.ones((10, 10, 1), dtype=np.uint8))).save(path)
    open_page(driver, server, "?mode=edit")
    el(driver, "#import-picture summary").click()
    _slide(driver, "#import-width", 6)
    el(driver, "#import-file").send_keys(str(path))
    wait(driver, lambda d: len(grid(d)) == 6 and len(grid(d)[0]) == 6)
    _slide(driver, "#import-colours", 3)                  # the grid follows, in three colours

    def same_shape(d) -> bool:
        got = colour_grid(d)
        if len(got) != 6 or any(len(r) != 6 for r in got):
            return False
        colour_of = {}
        for r in range(6):
            for c in range(6):
                if colour_of.setdefault(int(pic[r, c]), got[r][c]) != got[r][c]:
                    return False
        return len(set(colour_of.values())) == 4 and colour_of[0] == "."

    wait(driver, same_shape, message="the three-colour picture is not on the board")
    assert len(driver.find_elements("css selector", "#palette .swatch-row")) == 4
    assert "3 colours" in el(driver, "#import-colours-label").text
    assert verdict(driver) in ("unique", "multiple")
    shot()


def test_step_through_shows_probes_guesses_and_rewinds(driver, server, shot):
    """One step at a time through games/cross-ambiguous.non (probes, guesses, rewinds, two
    solutions) and games/impossible.non (a contradiction): each solution step shows a solution
    (checked against CP-SAT's enumeration), a rewind takes cells back, a guess is marked."""
    puzzle = read_puzzle(GAMES / "cross-ambiguous.non")
    truth = {tuple(grid_rows(s)) for s in solve(puzzle, "cpsat", limit=100).solutions}
    open_page(driver, server, "?mode=steps")
    open_file(driver, GAMES / "cross-ambiguous.non")
    counter = el(driver, "#step-counter")
    wait(driver, lambda d: int(counter.get_attribute("data-total") or 0) > 0
         and clues(d)[0] == [" ".join(map(str, c)) for c in puzzle.rows])
    # One JS turn checks that this puzzle's steps are loaded and walks them: between a Python
    # wait and a later execute_script the page may start another /api/steps load (its run is
    # then cleared, and every click did nothing: kinds all '' in a CI run)
    want_rows = [" ".join(map(str, c)) for c in puzzle.rows]
    trace = wait(driver, lambda d: d.execute_script("""
        const counter = document.getElementById('step-counter');
        const rowClues = Array.from(document.querySelectorAll('#board .row-clue'),
                                    e => e.dataset.clue);
        if (!(+counter.dataset.total > 0) || counter.dataset.index !== '0'
            || JSON.stringify(rowClues) !== JSON.stringify(arguments[0])) return null;
        const out = [];
        const forward = document.getElementById('step-forward');
        const rows = () => {
          const ch = {filled: '#', empty: '.', unknown: '?'}, g = [];
          for (const c of document.querySelectorAll('#board .cell'))
            g[+c.dataset.r] = (g[+c.dataset.r] || '') + ch[c.dataset.state];
          return g;
        };
        for (let i = 0; i < 100000 && !forward.disabled; i++) {
          forward.click();
          const kind = document.getElementById('step-counter').dataset.kind;
          out.push([kind, document.getElementById('step-text').textContent, rows(),
                    document.querySelectorAll('#board .cell.guess').length,
                    document.querySelectorAll('#board .cell.hint').length]);
        }
        return out;""", want_rows), message="the steps of cross-ambiguous.non never loaded")
    kinds = [t[0] for t in trace]
    assert {"line", "probe", "guess", "rewind", "solution"} <= set(kinds), kinds
    assert all(text for _, text, *_ in trace)
    met = []
    for i, (kind, _text, rows, guessed, hinted) in enumerate(trace):
        if kind == "guess":
            assert guessed == 1 and hinted == 0
        if kind == "line":
            assert hinted > 0
        if kind == "rewind":  # cells go back to unknown
            assert "".join(rows).count("?") > "".join(trace[i - 1][2]).count("?")
        if kind == "solution":
            met.append(tuple(rows))
    assert len(met) == 2 and len(set(met)) == 2 and set(met) <= truth
    assert el(driver, "#step-verdict").get_attribute("data-status") == "multiple"
    shot("-cross")
    open_file(driver, GAMES / "impossible.non")
    wait(driver, lambda d: el(d, "#step-counter").get_attribute("data-index") == "0"
         and el(d, "#step-text").text.startswith("The empty grid"))
    el(driver, "#step-last").click()
    wait(driver, lambda d: el(d, "#step-verdict").get_attribute("data-status") == "none")
    assert "dead end" in el(driver, "#step-counter").text  # a contradiction, for people
    assert "no solution" in el(driver, "#step-verdict").text
    assert solve(read_puzzle(GAMES / "impossible.non"), "cpsat").status == Status.NONE
    shot()


def test_clue_mode_with_unknown_clues(driver, server, shot):
    """Clues typed directly (no picture), one of them unknown: verdict and ambiguity map against
    CP-SAT; the address carries the clues (JSON: short codes cannot hold an unknown clue)."""
    heart = read_puzzle(GAMES / "heart.non")
    rows = [" ".join(map(str, c)) for c in heart.rows]
    cols = [" ".join(map(str, c)) for c in heart.cols]

    def type_clues(row_lines: list[str]) -> None:
        for name, lines in (("clue-rows", row_lines), ("clue-cols", cols)):
            box = el(driver, f"#{name}")
            box.clear()
            box.send_keys("\n".join(lines))
        el(driver, "#clue-apply").click()

    open_page(driver, server, "?mode=edit")
    el(driver, "#kind-clues").click()
    wait(driver, lambda d: el(d, "#clue-editor").is_displayed())
    type_clues(["?", *rows[1:]])
    wait(driver, lambda d: len(grid(d)) == heart.height and clues(d)[0][0] == "?")
    unknown_first = Puzzle(rows=[None, *heart.rows[1:]], cols=list(heart.cols))
    assert verdict(driver) == "multiple"
    assert marked(driver, "ambiguous") == ambiguity_truth(unknown_first)
    assert "?" not in "".join(grid(driver))  # a solution is shown under the map
    assert unknown_first.is_solution(np.array([[ch == "#" for ch in r] for r in grid(driver)]))
    shared(driver)
    assert "j=" in driver.current_url
    url = driver.current_url
    # an unknown clue that does not matter: unique, and the solution can become the picture
    type_clues([*rows[:3], "?", *rows[4:]])
    assert verdict(driver) == "unique"
    shot("-unique")
    el(driver, "#to-picture").click()
    wait(driver, lambda d: el(d, "#kind-picture").is_selected())
    assert filled(grid(driver)) == solution_cells(heart)
    # the first address reopens the clues with the unknown one
    open_page(driver, server, url.split("/", 3)[3])
    assert clues(driver)[0] == ["?", *rows[1:]] and clues(driver)[1] == cols
    assert el(driver, "#kind-clues").is_selected()
    assert verdict(driver) == "multiple"
    shot()


def test_drop_a_multi_puzzle_file_and_pick_one(driver, server, shot):
    """A file dropped on the page (a drop event carrying the file, as a drag from the desktop
    makes): a multi-puzzle file opens its first puzzle and offers the others."""
    path = corpus_path("picross-solver", "inputs", "domino_logic.txt")
    puzzles = read_puzzles(path)
    assert len(puzzles) > 3

    def row_clues(p: Puzzle) -> list[str]:
        return [" ".join(map(str, c)) for c in p.rows]

    open_page(driver, server, "?mode=play")
    driver.execute_script("""
        const dt = new DataTransfer();
        dt.items.add(new File([arguments[0]], arguments[1], {type: 'text/plain'}));
        document.getElementById('board').dispatchEvent(
          new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));""",
                          path.read_text(), path.name)
    chooser = el(driver, "#chooser")
    wait(driver, lambda d: chooser.is_displayed(), message="no chooser for a multi-puzzle file")
    assert el(driver, "#chooser-count").text == str(len(puzzles))
    wait(driver, lambda d: clues(d)[0] == row_clues(puzzles[0]))
    from selenium.webdriver.support.ui import Select

    Select(el(driver, "#chooser-select")).select_by_value("3")
    el(driver, "#chooser-open").click()
    wait(driver, lambda d: clues(d)[0] == row_clues(puzzles[3])
         and clues(d)[1] == [" ".join(map(str, c)) for c in puzzles[3].cols])
    assert driver.execute_script("return document.body.dataset.mode") == "play"
    shot()


def test_downloads_and_printable_page(driver, server, shot, tmp_path):
    """Save as puzzle files (read back by nonosat's readers), SVG, PNG with the solution, the
    certificate bundle; the print stylesheet shows the clues and an empty grid only."""
    import zipfile

    from selenium.webdriver.support.ui import Select

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(downloads)})
    heart = read_puzzle(GAMES / "heart.non")
    open_page(driver, server, "?mode=edit")
    open_file(driver, GAMES / "heart.non")
    wait(driver, lambda d: clues(d)[0] == [" ".join(map(str, c)) for c in heart.rows])
    assert verdict(driver) == "unique"

    def download(choice: str) -> Path:
        before = set(downloads.iterdir())
        Select(el(driver, "#download-format")).select_by_value(choice)
        el(driver, "#download").click()

        def new(_d):
            fresh = [p for p in downloads.iterdir() if p not in before
                     and not p.name.endswith(".crdownload")]
            return fresh[0] if fresh and fresh[0].stat().st_size > 0 else None

        return wait(driver, new, timeout=60, message=f"no download for {choice}")

    names = set()
    for fmt in ("non", "json", "short", "webpbn", "pbm", "grid", "picross"):
        path = download(f"to:{fmt}")
        names.add(path.name)
        got = read_puzzles(path, format=fmt)
        assert len(got) == 1, fmt
        assert list(got[0].rows) == list(heart.rows) and list(got[0].cols) == list(heart.cols)
    assert len(names) == 7  # grid and picross both write .txt: distinct names
    plain = download("svg")
    svg = plain.read_text()
    assert svg.lstrip().startswith(("<svg", "<?xml")) and "</svg>" in svg
    with_solution = download("png-solution")
    assert with_solution.name.endswith("-solution.png") and "-solution" not in plain.name
    png = with_solution.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    bundle = download("certify")
    with zipfile.ZipFile(bundle) as z:
        assert z.namelist()
    status = el(driver, "#status").text
    assert "verdict unique" in status and "certified (proof checked)" in status
    # the printable page: no chrome, the clues, every cell blank
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        hidden = driver.execute_script("""
            return Array.from(document.querySelectorAll('.chrome'),
                              e => getComputedStyle(e).display);""")
        assert hidden and set(hidden) == {"none"}
        backgrounds = driver.execute_script("""
            return Array.from(document.querySelectorAll('#board .cell'),
                              c => getComputedStyle(c).backgroundColor);""")
        assert set(backgrounds) == {"rgb(255, 255, 255)"}
        assert clues(driver)[0] == [" ".join(map(str, c)) for c in heart.rows]
        shot("-print")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def _slide(driver, css: str, value: int) -> None:
    driver.execute_script("arguments[0].value = arguments[1];"
                          " arguments[0].dispatchEvent(new Event('input'));", el(driver, css), value)


def test_import_a_picture_and_make_it_unique_with_undo(driver, server, shot, tmp_path):
    """Import picture (live sliders) then Make unique: the changes are shown before they are
    applied, checked by CP-SAT once applied, and undone."""
    from PIL import Image

    picture = np.zeros((8, 8), dtype=bool)   # ambiguous: the other diagonal has the same clues
    picture[1:3, 1:3] = picture[3:5, 3:5] = True
    picture[5, 6] = picture[6, 5] = True
    big = np.kron(~picture, np.ones((10, 10), dtype=bool)).astype(np.uint8) * 255
    path = tmp_path / "diagonal.png"
    Image.fromarray(big).save(path)
    rows = ["".join("#" if v else "." for v in row) for row in picture]

    open_page(driver, server, "?mode=edit")
    el(driver, "#import-picture summary").click()
    _slide(driver, "#import-width", 8)
    el(driver, "#import-file").send_keys(str(path))
    wait(driver, lambda d: grid(d) == rows, message="the imported picture is not on the board")
    assert verdict(driver) == "multiple"
    _slide(driver, "#import-threshold", 0)        # nothing is darker than 0: an empty grid
    wait(driver, lambda d: grid(d) == ["." * 8] * 8, message="the threshold slider did nothing")
    _slide(driver, "#import-threshold", 256)      # back to Otsu's threshold
    wait(driver, lambda d: grid(d) == rows, message="the automatic threshold did not return")
    assert verdict(driver) == "multiple"

    assert not el(driver, "#make-unique-proposal").is_displayed()  # nothing proposed yet
    el(driver, "#make-unique").click()
    wait(driver, lambda d: el(d, "#make-unique-proposal").is_displayed(),
         message="no proposal shown")
    proposed = marked(driver, "proposed")
    assert proposed and grid(driver) == rows        # shown, not applied
    shot("-proposal")
    el(driver, "#make-unique-apply").click()
    assert verdict(driver) == "unique"
    after = grid(driver)
    changed = {(r, c) for r in range(8) for c in range(8) if after[r][c] != rows[r][c]}
    assert changed == proposed and marked(driver, "proposed") == set()
    assert solve(picture_puzzle(after), "cpsat", limit=2).status == Status.UNIQUE
    el(driver, "#make-unique-undo").click()
    wait(driver, lambda d: grid(d) == rows, message="undo did not restore the picture")
    assert verdict(driver) == "multiple"
    shot()


# -- issue 29: undo, givens, keep trying, the player's help, small faults ----------------------------
def ctrl(driver, key: str, shift: bool = False) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    chain = ActionChains(driver).key_down(Keys.CONTROL)
    if shift:
        chain = chain.key_down(Keys.SHIFT)
    chain = chain.send_keys(key)
    if shift:
        chain = chain.key_up(Keys.SHIFT)
    chain.key_up(Keys.CONTROL).perform()


def test_editor_undo_a_clear_and_every_operation(driver, server, shot):
    """Clear, Invert, Resize, strokes and Apply clues are undone by Ctrl-Z and the buttons and
    redone by Ctrl-Y / Ctrl-Shift-Z, across mode switches; Apply clues keeps the size."""
    open_page(driver, server, "?mode=edit")
    assert len(grid(driver)) == 10 and len(grid(driver)[0]) == 10
    # the case: a 3x2 block top-left of the default 10x10, Apply clues unedited
    draw(driver, [(0, 0), (0, 1), (0, 2)], [(1, 0), (1, 1), (1, 2)])
    el(driver, "#kind-clues").click()
    el(driver, "#clue-apply").click()
    wait(driver, lambda d: len(clues(d)[0]) == 10 and len(clues(d)[1]) == 10)
    assert clues(driver)[0][:3] == ["3", "3", ""] and len(grid(driver)) == 10
    ctrl(driver, "z")  # Apply clues undone
    ctrl(driver, "z")  # back to the picture (the switch to clues undone)
    wait(driver, lambda d: d.find_element("id", "kind-picture").is_selected())
    assert filled(grid(driver)) == {(r, c) for r in range(2) for c in range(3)}
    resize(driver, 4, 5)
    before = grid(driver)
    assert before == ["###..", "###..", ".....", "....."]
    el(driver, "#edit-clear").click()
    assert grid(driver) == ["....."] * 4
    ctrl(driver, "z")
    assert grid(driver) == before
    ctrl(driver, "y")
    assert grid(driver) == ["....."] * 4
    el(driver, "#edit-undo").click()
    assert grid(driver) == before and verdict(driver) in ("unique", "multiple")
    # kept across mode switches
    set_mode(driver, "play")
    set_mode(driver, "edit")
    el(driver, "#edit-invert").click()
    assert grid(driver) == ["...##", "...##", "#####", "#####"]
    ctrl(driver, "z")
    assert grid(driver) == before
    ctrl(driver, "z", shift=True)  # redo
    assert grid(driver) == ["...##", "...##", "#####", "#####"]
    ctrl(driver, "z")
    ctrl(driver, "z")  # the resize
    wait(driver, lambda d: len(grid(d)) == 10)
    el(driver, "#edit-redo").click()
    wait(driver, lambda d: len(grid(d)) == 4)
    assert grid(driver) == before
    shot()


def test_givens_prefilled_in_play_saved_and_reopened(driver, server, shot, tmp_path):
    """A `give` suggestion's cells are part of the puzzle: locked and pre-filled in Play, in the
    address, in the JSON download (read back by nonosat's reader, checked by CP-SAT started
    from them) and there again when the file is opened."""
    from selenium.webdriver.support.ui import Select

    from nonosat.formats.givens import givens_of, givens_rows

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(downloads)})
    open_page(driver, server, "?mode=edit")
    resize(driver, 5, 5)
    draw(driver, [(1, 1)], [(2, 2)])
    assert verdict(driver) == "multiple"
    give = wait(driver, lambda d: el(d, '#suggestions li.suggestion[data-kind="give"] button'),
                message="no give suggestion")
    give.click()
    assert verdict(driver) == "unique"
    given = marked(driver, "given")
    picture = grid(driver)
    expect = {(r, c): picture[r][c] for r, c in given}
    assert given
    set_mode(driver, "play")
    assert marked(driver, "given") == given
    board = grid(driver)
    assert {(r, c): board[r][c] for r, c in given} == expect  # pre-filled
    assert all(ch == "?" for r, row in enumerate(board) for c, ch in enumerate(row)
               if (r, c) not in given)
    r, c = next(iter(given))
    cell(driver, r, c).click()  # locked: a click does not change it
    assert grid(driver)[r][c] == expect[(r, c)]
    shared(driver)
    assert "g=" in driver.current_url
    url = driver.current_url
    shot("-play")
    # Steps start from the givens and end with the puzzle's (unique) verdict
    set_mode(driver, "steps")
    counter = el(driver, "#step-counter")
    wait(driver, lambda d: int(counter.get_attribute("data-total") or 0) > 0)
    start = grid(driver)
    assert {(r, c) for r, row in enumerate(start) for c, ch in enumerate(row) if ch != "?"} == given
    el(driver, "#step-last").click()
    wait(driver, lambda d: el(d, "#step-verdict").get_attribute("data-status") == "unique")
    assert "?" not in "".join(grid(driver))
    # saved: JSON keeps them
    set_mode(driver, "edit")
    Select(el(driver, "#download-format")).select_by_value("to:json")
    el(driver, "#download").click()
    path = wait(driver, lambda d: next((p for p in downloads.iterdir()
                                        if p.suffix == ".json" and p.stat().st_size), None),
                message="no JSON download")
    saved = read_puzzle(path)
    rows = givens_rows(saved)
    assert rows is not None
    assert {(r, c): rows[r][c] for r in range(5) for c in range(5) if rows[r][c] != "?"} == expect
    assert solve(saved, "cpsat", partial=givens_of(saved), limit=2).status == Status.UNIQUE
    # reopened: the file, then the address, in Play
    open_page(driver, server, "?mode=play")
    open_file(driver, path)
    wait(driver, lambda d: marked(d, "given") == given, message="givens not reopened")
    board = grid(driver)
    assert {(r, c): board[r][c] for r, c in given} == expect
    driver.get(url)
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    wait(driver, lambda d: marked(d, "given") == given, message="givens not in the address")
    # printed: the given filled cells black, every other cell blank
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        printed = driver.execute_script("""
            return Array.from(document.querySelectorAll('#board .cell'),
                              c => [+c.dataset.r, +c.dataset.c, getComputedStyle(c).backgroundColor]);""")
        black = {(r, c) for r, c, bg in printed if bg == "rgb(0, 0, 0)"}
        assert black == {rc for rc, v in expect.items() if v == "#"}
        assert {bg for r, c, bg in printed if (r, c) not in black} == {"rgb(255, 255, 255)"}
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    shot()


def test_colour_givens_saved_in_json_and_beside_a_non_file(driver, server, shot, tmp_path):
    """A colour puzzle's givens (opened from a file): kept in the JSON download, and beside a
    .non download (which cannot hold them) as a --state grid in that file's palette characters;
    CP-SAT, started from what was read back, finds the one solution with the given colours."""
    from selenium.webdriver.support.ui import Select

    from nonosat.cli.inputs import read_state
    from nonosat.formats import encode_puzzles, get_format
    from nonosat.formats.givens import givens_of, parse_givens, with_givens
    from nonosat.puzzle import Colour, Palette

    # the .non file's characters (r, k) are not the page's (a, b): the grid must use the file's
    palette = Palette((Colour("white", (255, 255, 255), "."), Colour("red?", (255, 0, 0), "r"),
                       Colour("blue", (0, 0, 255), "k")))
    puzzle = Puzzle(rows=((1, 1), (1, 1)), cols=((1,), (1,), (1,), (1,)),
                    row_colours=((1, 2), (1, 2)), col_colours=((1,), (1,), (2,), (2,)),
                    palette=palette, title="two")
    puzzle = with_givens(puzzle, parse_givens(["a???", "???b"], puzzle.shape, ".ab"))
    source = tmp_path / "two.json"
    source.write_bytes(encode_puzzles([puzzle], get_format("json")))
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(downloads)})
    open_page(driver, server, "?mode=edit")
    open_file(driver, source)
    wait(driver, lambda d: marked(d, "given") == {(0, 0), (1, 3)}, message="no givens")

    def download(to: str, suffix: str) -> Path:
        Select(el(driver, "#download-format")).select_by_value(f"to:{to}")
        el(driver, "#download").click()
        return wait(driver, lambda d: next((p for p in downloads.iterdir()
                                            if p.name.endswith(suffix) and p.stat().st_size),
                                           None), message=f"no {suffix} download")

    def check(saved: Puzzle, partial: np.ndarray) -> None:
        result = solve(saved, "cpsat", partial=partial, limit=2)
        assert result.status == Status.UNIQUE
        assert saved.palette is not None
        rgb = [c.rgb for c in saved.palette.colours]
        assert rgb[result.solutions[0][0, 0]] == (255, 0, 0)
        assert rgb[result.solutions[0][1, 3]] == (0, 0, 255)

    saved = read_puzzle(download("json", ".json"))
    check(saved, givens_of(saved))
    non = download("non", ".non")
    beside = wait(driver, lambda d: next(downloads.glob("*-givens.txt"), None),
                  message="no givens grid beside the .non file")
    wait(driver, lambda d: beside.stat().st_size > 0)
    saved = read_puzzle(non)
    assert givens_of(saved) is None
    check(saved, read_state(beside, saved))
    assert "cannot hold the givens" in el(driver, "#status").text
    shot()


def test_keep_trying_decides_faase(driver, server, shot):
    """Faase (80x95): the live verdict gives up within its 5 s; Keep trying runs on in the
    background, shows the time and what is known, and reaches the verdict: several solutions
    (as tests/test_analysis.py's per-cell checks on Faase find independently; a second solve
    here would double the test's time)."""
    path = corpus_path("FastNonogramSolver", "puzzles", "survey", "faase.nin")
    faase = read_puzzle(path)
    open_page(driver, server, "?mode=edit")
    open_file(driver, path)
    wait(driver, lambda d: len(clues(d)[0]) == faase.height, message="faase did not open")
    live = verdict(driver)
    assert live in ("unknown", "multiple")
    el(driver, "#keep-trying").click()
    status = el(driver, "#keep-status")
    wait(driver, lambda d: " s of " in status.text, message="no progress shown")
    assert el(driver, "#keep-cancel").is_displayed()
    wait(driver, lambda d: status.get_attribute("data-status") == "multiple", timeout=150,
         message="Keep trying did not decide Faase")
    assert verdict(driver) == "multiple" and "several" in el(driver, "#verdict").text
    assert "Keep trying" in el(driver, "#verdict-detail").text
    if status.get_attribute("data-state") == "running":  # the map goes on: cancel it
        el(driver, "#keep-cancel").click()
        wait(driver, lambda d: el(d, "#keep-trying").is_displayed())
        assert "cancelled" in status.text
        assert "not finished" in el(driver, "#verdict-detail").text
        assert verdict(driver) == "multiple"  # the verdict found stays
    shot()


def _has(driver, css: str, cls: str) -> bool:
    return cls in (el(driver, css).get_attribute("class") or "").split()


def test_player_helps_greys_marks_crosses_and_wins(driver, server, shot):
    """Finished clues greyed, a line that cannot fit marked (an option), a click on a clue
    crosses the rest of its line, hint cells to fill and to cross in their own colours, a win
    banner."""
    import json
    from urllib.parse import quote

    # "#.#" / "..." / "###": unique, every line decided by line logic
    rows, cols = [[1, 1], [], [3]], [[1, 1], [1], [1, 1]]
    open_page(driver, server, "?mode=play&j=" + quote(json.dumps({"rows": rows, "cols": cols})))
    wait(driver, lambda d: len(grid(d)) == 3)
    el(driver, "#restart").click()
    el(driver, "#hint").click()  # hint colours: to fill and to cross apart
    wait(driver, lambda d: marked(d, "hint"), message="no hint")
    hint = driver.execute_script("return document.getElementById('hint-text').textContent")
    fills, crosses = marked(driver, "hint-fill"), marked(driver, "hint-cross")
    assert fills | crosses == marked(driver, "hint") and not fills & crosses, hint
    el(driver, "#apply-hint").click()
    after = grid(driver)
    assert all(after[r][c] == "#" for r, c in fills) and all(after[r][c] == "." for r, c in crosses)
    el(driver, "#restart").click()
    el(driver, '#board .row-clue[data-r="1"]').click()  # crosses the empty row
    assert grid(driver)[1] == "..."
    assert _has(driver, '#board .row-clue[data-r="1"]', "finished")
    assert not _has(driver, '#board .row-clue[data-r="0"]', "finished")
    cell(driver, 0, 0).click()
    cell(driver, 0, 1).click()  # "##?" cannot hold 1 1
    assert _has(driver, '#board .row-clue[data-r="0"]', "broken")
    el(driver, "#mark-broken").click()  # the option off
    assert not _has(driver, '#board .row-clue[data-r="0"]', "broken")
    el(driver, "#mark-broken").click()
    ctrl(driver, "z")
    assert grid(driver)[0] == "#??" and not _has(driver, '#board .row-clue[data-r="0"]', "broken")
    assert not el(driver, "#win").is_displayed()
    for r, c in ((0, 2), (2, 0), (2, 1), (2, 2)):
        cell(driver, r, c).click()
    assert _has(driver, '#board .row-clue[data-r="2"]', "finished")
    wait(driver, lambda d: el(d, "#win").is_displayed(), message="no win banner")
    assert "Solved" in el(driver, "#win").text
    shot()
    # an all-empty puzzle is not solved the moment it opens: the player crosses its cells
    empty = {"rows": [[], []], "cols": [[], [], []]}
    open_page(driver, server, "?mode=play&j=" + quote(json.dumps(empty)))
    wait(driver, lambda d: len(grid(d)) == 2)
    el(driver, "#restart").click()
    status = el(driver, "#play-status")
    assert status.get_attribute("data-complete") == "false"
    assert status.get_attribute("data-confirm") == "true" and "cross" in status.text
    assert not el(driver, "#win").is_displayed()
    el(driver, '#board .row-clue[data-r="0"]').click()
    assert status.get_attribute("data-complete") == "false"
    el(driver, '#board .row-clue[data-r="1"]').click()
    assert grid(driver) == ["...", "..."]
    wait(driver, lambda d: el(d, "#win").is_displayed(), message="no win banner")
    assert status.get_attribute("data-complete") == "true"
    shot("-empty")


def test_small_faults_errors_keyboard_names_preview_phone(driver, server, shot):
    """Issue 29's small faults: an error bar goes once a later request succeeds (after a 150
    resize, and after the server was out of reach); ``/api/parse`` answers 10,000 ``[`` with a
    422; Difficulty is
    blank on an error verdict; Open… is a button the keyboard reaches; a suggestion names rows
    and columns and previews its cells on hover; on a phone the header is short and the help
    does not say right-click."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    open_page(driver, server, "?mode=edit")
    resize(driver, 5, 5)
    for name, value in (("edit-height", 150), ("edit-width", 5)):
        box = el(driver, f"#{name}")
        box.clear()
        box.send_keys(str(value))
    el(driver, "#edit-resize").click()
    wait(driver, lambda d: _has(d, "#status", "error"))
    draw(driver, [(1, 1)], [(2, 2)])
    assert verdict(driver) == "multiple"
    wait(driver, lambda d: not _has(d, "#status", "error"), message="the error bar stayed")
    # the server out of reach (as while it restarts: every fetch fails), then back
    driver.execute_script("window.__fetch = window.fetch; window.fetch = () => "
                          "Promise.reject(new TypeError('Failed to fetch'));")
    draw(driver, [(3, 3)])
    wait(driver, lambda d: _has(d, "#status", "error")
         and "cannot reach" in el(d, "#status").text, message="no error while unreachable")
    driver.execute_script("window.fetch = window.__fetch;")
    draw(driver, [(3, 3)])
    assert verdict(driver) == "multiple"
    wait(driver, lambda d: not _has(d, "#status", "error"),
         message="the error bar stayed after the server came back")
    # 10,000 '[' to /api/parse: a 422 with one line, not a 500
    code, detail = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/api/parse', {method: 'POST', headers: {'Content-Type': 'application/json'},
                             body: '['.repeat(10000)})
          .then(r => r.json().then(b => done([r.status, b.detail])), e => done([0, String(e)]));""")
    assert code == 422 and isinstance(detail, str) and "\n" not in detail, (code, detail)
    # words for people in the sidebar, not the engine's names
    sidebar = el(driver, "#verdict-detail").text + " " + el(driver, "#techniques").text
    for word in ("native", "probe-both", "failed-literal", "+sat", "engine "):
        assert word not in sidebar, sidebar
    # a suggestion: rows and columns named, its cells outlined on hover
    give = wait(driver, lambda d: el(d, '#suggestions li.suggestion[data-kind="give"]'),
                timeout=3 * WAIT_S, message="no give suggestion")  # slow on a busy machine
    assert "row " in give.text and "column " in give.text and "R1C" not in give.text
    ActionChains(driver).move_to_element(give).perform()
    wait(driver, lambda d: marked(d, "preview"), message="no preview on hover")
    ActionChains(driver).move_to_element(el(driver, "#grade")).perform()
    wait(driver, lambda d: not marked(d, "preview"))
    # an error verdict: a clue that cannot fit; Difficulty shows nothing
    el(driver, "#kind-clues").click()
    box = el(driver, "#clue-rows")
    box.clear()
    box.send_keys("9\n0\n0\n0\n0")
    el(driver, "#clue-apply").click()
    wait(driver, lambda d: el(d, "#verdict").get_attribute("data-status") == "error")
    assert el(driver, "#grade").text.strip() == "—" and el(driver, "#techniques").text == ""
    # Open… by keyboard: a button in the tab order that opens the file picker
    driver.execute_script("window.picked = 0; document.getElementById('file-input')"
                          ".addEventListener('click', e => { window.picked++; e.preventDefault(); });")
    opener = el(driver, "#open-file")
    assert opener.tag_name == "button"
    driver.execute_script("arguments[0].focus()", opener)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    assert driver.execute_script("return window.picked") == 1
    # a phone: the header is short, the help speaks of taps
    driver.set_window_size(390, 844)
    try:
        open_page(driver, server, "?mode=play")
        height = driver.execute_script("return document.querySelector('header').offsetHeight")
        assert height <= 110, height
        help_text = driver.execute_script(
            "return document.querySelector('#panel-play .note:last-of-type').textContent")
        assert "right-click" not in help_text and "tap" in help_text
        shot("-phone")
    finally:
        driver.set_window_size(1400, 1000)

def test_the_verdict_shows_before_the_map_of_a_hard_drawing(driver, server, shot, tmp_path):
    """The drawing of ``benchmarks/bench_studio_draw.py``'s burst (24 short strokes on an empty
    100x100 board): its verdict, several solutions, is shown (``data-verdict-busy`` false) while
    the map, which runs to its time limit on it, is still on its way (``data-busy`` true).
    (That the map then follows: ``tests/test_studio_stream.py``, over HTTP.)"""
    from nonosat.formats import write_puzzle
    from tests.test_studio_stream import burst_drawing
    from tests.test_studio_stream import picture as burst_picture

    puzzle = burst_picture(burst_drawing())
    path = tmp_path / "burst.json"
    write_puzzle(puzzle, path)
    open_page(driver, server, "?mode=edit")
    open_file(driver, path)
    wait(driver, lambda d: d.execute_script(
        "const v = document.getElementById('verdict');"
        "return v.dataset.verdictBusy === 'false' && v.dataset.status === 'multiple'"),
        message="no verdict of several solutions")
    assert el(driver, "#verdict").get_attribute("data-busy") == "true", "the map came at once"
    assert "map and grade on their way" in el(driver, "#verdict-detail").text
    shot()
    open_page(driver, server, "?mode=edit")  # leaving: the server stops the map


def test_a_rebound_host_gets_nothing_in_the_browser(server, tmp_path_factory):
    """DNS rebinding as the browser meets it: ``evil.example`` resolves to 127.0.0.1 (Chromium's
    host resolver rules stand in for the attacker's DNS), so a page there is same-origin with the
    studio's port.  The studio serves it nothing: the page is a 421, and the page's own scripts
    cannot read the API; the studio's page at 127.0.0.1 still works."""
    reason = browser_missing()
    if reason:
        _missing(reason)
    port = server.rsplit(":", 1)[1]
    drv = chrome(tmp_path_factory.mktemp("rebinding-profile"),
                 extra_args=("--host-resolver-rules=MAP evil.example 127.0.0.1",))
    try:
        drv.get(f"http://evil.example:{port}/")
        text = el(drv, "body").text
        assert "127.0.0.1" in text and "nonosat" not in drv.title.lower(), (drv.title, text)
        answers = drv.execute_async_script("""
            const done = arguments[arguments.length - 1];
            Promise.all(['/api/gallery', '/static/studio.css'].map(p => fetch(p).then(
                r => r.text().then(t => [r.status, t.slice(0, 200)]))))
              .then(done, e => done(String(e)));""")
        assert [a[0] for a in answers] == [421, 421], answers
        assert all('"id"' not in a[1] for a in answers)
        open_page(drv, server)  # the studio's own page: served and working
    finally:
        drv.quit()
