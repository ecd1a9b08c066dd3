"""The README's screenshots of `nonosat studio`: one per mode, regenerated with

    .venv/bin/python benchmarks/studio_screenshots.py [OUT_DIR]   # default docs/

It starts `nonosat studio` and drives headless Chromium exactly as tests/test_studio_browser.py
does (same helpers), then writes studio-editor.png (a drawing with several solutions: checkered
ambiguous cells and make-unique suggestions), studio-player.png (football.json mid-game, a hint
highlighted) and studio-steps.png (football.json's solve, mid-way).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import CORPUS  # noqa: E402
from tests.test_studio_browser import (  # noqa: E402
    chrome,
    draw,
    el,
    open_file,
    open_page,
    resize,
    set_mode,
    start_server,
    stop_server,
    verdict,
    wait,
)

#: games/heart.non's picture with a few cells changed: two solutions (a 2x2 swap at the bottom
#: left and its consequences), so the editor shows checkered cells and suggestions.
PICTURE = [
    "..###...###.#",
    ".#####.####..",
    "#############",
    "######.######",
    "#############",
    ".###########.",
    "..#########..",
    "...#######...",
    "....#####....",
    "#....###.....",
    ".#....#......",
]

HINT_AND_APPLY = """
    const done = arguments[arguments.length - 1];
    const text = document.getElementById('hint-text');
    const n = +text.dataset.n;
    document.getElementById('hint').click();
    const poll = () => {
      if (+text.dataset.n === n) return setTimeout(poll, 10);
      if (arguments[0]) document.getElementById('apply-hint').click();
      done(text.dataset.kind);
    };
    poll();"""


def main(out: Path) -> None:
    football = CORPUS / "Nonogram" / "games" / "football.json"
    proc, base = start_server()
    with tempfile.TemporaryDirectory() as profile:
        driver = chrome(Path(profile), size="1280,800")
        driver.set_script_timeout(30)
        try:
            # editor: the drawing, painted with the mouse
            open_page(driver, base, "?mode=edit")
            resize(driver, len(PICTURE), len(PICTURE[0]))
            strokes = []  # one drag per run of filled cells
            for r, row in enumerate(PICTURE):
                for c, ch in enumerate(row):
                    if ch == "#" and (c == 0 or row[c - 1] != "#"):
                        strokes.append([(r, c)])
                    elif ch == "#":
                        strokes[-1].append((r, c))
            draw(driver, *strokes)
            verdict(driver)
            wait(driver, lambda d: d.find_elements("css selector", "#suggestions .suggestion"))
            driver.save_screenshot(str(out / "studio-editor.png"))
            # player: football mid-game, a hint shown
            open_page(driver, base, "?mode=play")
            open_file(driver, football)
            wait(driver, lambda d: len(d.find_elements("css selector", "#board .cell")) == 400)
            el(driver, "#restart").click()
            for _ in range(45):
                driver.execute_async_script(HINT_AND_APPLY, True)
            driver.execute_async_script(HINT_AND_APPLY, False)
            driver.save_screenshot(str(out / "studio-player.png"))
            # steps: the same puzzle's solve, mid-way
            set_mode(driver, "steps")
            counter = el(driver, "#step-counter")
            wait(driver, lambda d: int(counter.get_attribute("data-total") or 0) > 0)
            driver.execute_script("for (let i = 0; i < 40; i++) "
                                  "document.getElementById('step-forward').click();")
            driver.save_screenshot(str(out / "studio-steps.png"))
        finally:
            driver.quit()
            stop_server(proc)
    for name in ("editor", "player", "steps"):
        path = out / f"studio-{name}.png"
        print(f"{path}  {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs")
