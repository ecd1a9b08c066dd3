"""The studio's page in a real headless Chromium (Selenium), against `nonosat studio` run as a
process.

What the page shows is checked against engines independent of the server's code paths: the
ambiguity map against CP-SAT's enumeration of every solution, finished grids against the SAT
engine's solution.  Needs /usr/bin/chromium, chromedriver and selenium: without them the tests
skip with the reason on a user's machine and fail under CI (``CI=true``), never skipping
silently there.
"""

from __future__ import annotations

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


def draw(driver, *strokes: list[tuple[int, int]]) -> None:
    """Paint with the mouse: each stroke is pressed on its first cell, dragged over the rest."""
    from selenium.webdriver.common.action_chains import ActionChains

    for stroke in strokes:
        chain = ActionChains(driver).click_and_hold(cell(driver, *stroke[0]))
        for rc in stroke[1:]:
            chain = chain.move_to_element(cell(driver, *rc))
        chain.release().perform()


def resize(driver, h: int, w: int) -> None:
    for name, value in (("edit-height", h), ("edit-width", w)):
        box = el(driver, f"#{name}")
        box.clear()
        box.send_keys(str(value))
    el(driver, "#edit-resize").click()
    wait(driver, lambda d: len(grid(d)) == h and len(grid(d)[0]) == w)


def set_mode(driver, mode: str) -> None:
    el(driver, f"#mode-{mode}").click()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.mode") == mode)


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


def test_colour_puzzles_are_refused_with_the_message(driver, server, shot):
    colour = next(p for p in sorted(GAMES.iterdir()) if read_puzzles(p)[0].is_colour)
    open_page(driver, server, "?mode=edit")
    open_file(driver, colour)
    status = el(driver, "#status")
    wait(driver, lambda d: "colour" in status.text, message="no message for a colour puzzle")
    assert "error" in status.get_attribute("class")
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
    assert "contradiction" in el(driver, "#step-counter").text
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

    for fmt in ("non", "json", "short", "webpbn", "pbm"):
        got = read_puzzles(download(f"to:{fmt}"))
        assert len(got) == 1, fmt
        assert list(got[0].rows) == list(heart.rows) and list(got[0].cols) == list(heart.cols)
    svg = download("svg").read_text()
    assert svg.lstrip().startswith(("<svg", "<?xml")) and "</svg>" in svg
    png = download("png-solution").read_bytes()
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
