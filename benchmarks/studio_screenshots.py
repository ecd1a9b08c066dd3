"""The README's screenshots of `nonosat studio`: one per mode, regenerated with

    .venv/bin/python benchmarks/studio_screenshots.py [OUT_DIR]   # default docs/

It starts `nonosat studio` and drives headless Chromium exactly as tests/test_studio_browser.py
does (same helpers), then writes studio-editor.png (the tests' 25x25 face drawing with several
solutions: its whole ambiguity map checkered, grade, make-unique suggestions), studio-player.png
(football.json mid-game, a hint highlighted) and studio-steps.png (football.json's solve,
mid-way).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from preamble import REPO  # first: puts REPO on sys.path

from tests.conftest import CORPUS  # noqa: E402
from tests.test_studio_browser import (  # noqa: E402
    FACE_PAIR,
    FACE_STROKES,
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
        driver = chrome(Path(profile), size="1280,960")
        driver.set_script_timeout(30)
        try:
            # editor: the browser test's 25x25 face, painted with the mouse, with the two
            # cells that give it several solutions
            open_page(driver, base, "?mode=edit")
            resize(driver, 25, 25)
            draw(driver, *FACE_STROKES, *FACE_PAIR)
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
