"""Long tasks while drawing on a 100x100 board in the studio (issue 29 part 6).

A headless Chromium (Debian's chromium + chromium-driver, driven by Selenium as in
``tests/test_studio_browser.py``) opens the editor, resizes it to 100x100 and paints a scripted
drawing: 24 strokes of 6-14 cells each, every pointer event in its own task (8 ms apart, as a
quick hand moves), 60 ms between strokes; then it waits for the verdict of the last stroke.
Chromium's ``longtask`` PerformanceObserver records every task over 50 ms from the first
stroke to the verdict (painting, clue updates, the verdict's request and its answer drawn).

    python benchmarks/bench_studio_draw.py [--repeats 3]

Prints, per run, the number of long tasks (> 50 ms of wall time, the PerformanceObserver's), the
longest; the main thread's tasks from Chromium's trace by their *CPU* time (how many over 50 ms,
the longest: what the page costs, whatever else the machine runs); the renderer's CPU; the time
from the last stroke to the verdict of the final drawing shown (``#verdict[data-verdict-busy]``
last turned false: the streamed analysis's first line) and to the whole analysis
(``data-busy``: the map and grade too); and the ``/api/analyse`` requests sent from the first
stroke on, by answer (``--requests`` lists those sent after the last stroke).  The final
drawing (24 short strokes on an empty board) is a hard one for the engines: before the verdict
was asked of the picture (:func:`nonosat.engines.sat.other_than`) and streamed ahead of
the map, its verdict came 8.2 s after the last stroke, "undecided", behind a 5 s map.  On a busy machine the wall-clock long tasks mostly
measure the wait for a core (``--nice -10`` as root narrows that).  Speed targets live here, not
in the tests.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_studio_browser import (  # noqa: E402
    CHROME_ARGS,
    browser_missing,
    open_page,
    resize,
    start_server,
    stop_server,
    wait,
)

#: The script run in the page: 24 strokes, pointer events as the board listens for them.
DRAW = """
const done = arguments[arguments.length - 1];
const strokes = arguments[0], n = arguments[1];
window.__long = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__long.push(e.duration);
}).observe({ type: "longtask", buffered: false });
window.__loaf = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration <= 50) continue;
      const style = e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0;
      const render = e.renderStart ? e.startTime + e.duration - e.renderStart : 0;
      window.__loaf.push({ duration: e.duration, style, render,
        scripts: e.scripts.map((s) => ({ name: `${s.invoker || ""} ${s.sourceFunctionName || ""}`,
          duration: s.duration, forced: s.forcedStyleAndLayoutDuration })) });
    }
  }).observe({ type: "long-animation-frame", buffered: false });
} catch { /* an older Chromium */ }
// when the verdict (data-verdict-busy) and the whole analysis (data-busy) were last shown,
// and every /api/analyse request: [sent, answered, HTTP status]
const verdictEl = document.getElementById("verdict");
window.__shown = { verdict: null, analysis: null };
new MutationObserver(() => {
  const now = performance.now();
  if (verdictEl.dataset.verdictBusy === "false" && window.__shown.verdictBusy !== "false")
    window.__shown.verdict = now;
  if (verdictEl.dataset.busy === "false" && window.__shown.busy !== "false")
    window.__shown.analysis = now;
  window.__shown.verdictBusy = verdictEl.dataset.verdictBusy;
  window.__shown.busy = verdictEl.dataset.busy;
}).observe(verdictEl, { attributes: true });
window.__requests = [];
if (!window.__fetch) {
  window.__fetch = window.fetch;
  window.fetch = async (url, init) => {
    const entry = [performance.now(), null, null];
    if (String(url).includes("/api/analyse")) window.__requests.push(entry);
    const response = await window.__fetch(url, init);
    entry[1] = performance.now();
    entry[2] = response.status;
    return response;
  };
}
const board = document.getElementById("board");
const cells = board.querySelector(".cells");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let seed = 29;
const rand = (k) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % k; };
(async () => {
  for (let s = 0; s < strokes; s++) {
    const r = rand(n), c0 = rand(n - 15), len = 6 + rand(9);
    const first = board.querySelector(`.cell[data-r="${r}"][data-c="${c0}"]`);
    const box = cells.getBoundingClientRect();
    const cs = box.width / n;
    const at = (c) => ({ clientX: box.left + (c + 0.5) * cs, clientY: box.top + (r + 0.5) * cs,
                         bubbles: true, button: 0, buttons: 1, pointerId: 1, isPrimary: true });
    first.dispatchEvent(new PointerEvent("pointerdown", at(c0)));
    for (let c = c0 + 1; c < c0 + len; c++) {
      await sleep(8);
      window.dispatchEvent(new PointerEvent("pointermove", at(c)));
    }
    await sleep(8);
    window.dispatchEvent(new PointerEvent("pointerup", at(c0 + len - 1)));
    window.__lastStroke = performance.now(); // the stroke ends as the button is released
    await sleep(60);
  }
  done(true);
})();
"""


def verdict(driver) -> str:
    """The editor's verdict once the whole analysis is shown (``#verdict[data-busy]`` false: the
    verdict, map and grade of the drawing as it is; up to 2 minutes on a busy machine)."""
    wait(driver, lambda d: d.execute_script(
        "const v = document.getElementById('verdict');"
        "return v.dataset.busy === 'false' && v.dataset.verdictBusy === 'false'"), timeout=120,
        message="the verdict stayed busy")
    return driver.execute_script("return document.getElementById('verdict').dataset.status")


def burst_timing(driver) -> dict:
    """After :data:`DRAW` and :func:`verdict`: ms from the last stroke to the verdict of the
    final drawing shown (``verdict``: ``#verdict[data-verdict-busy]`` last turned false) and to
    the whole analysis (``analysis``: ``data-busy``, map and grade), and the ``/api/analyse``
    requests sent from the first stroke on (``sent``; ``answers``: count by HTTP status)."""
    out = driver.execute_script(
        "const s = window.__shown, t = window.__lastStroke;"
        "return {verdict: s.verdict - t, analysis: s.analysis - t,"
        " requests: window.__requests.map((e) => [e[0] - t, e[1] === null ? null : e[1] - t,"
        " e[2]])};")
    answers: dict = {}
    for _, _, code in out["requests"]:
        answers[code] = answers.get(code, 0) + 1
    return {"verdict": out["verdict"], "analysis": out["analysis"],
            "sent": len(out["requests"]), "answers": answers,
            "after_last": [r for r in out["requests"] if r[0] > 0]}


def top_functions(profile: dict, n: int = 15) -> list[str]:
    """The ``n`` functions of a CDP CPU profile with the most self time (ms, approximate)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    self_ms: dict[str, float] = {}
    for node_id, dt in zip(profile["samples"], profile["timeDeltas"], strict=False):
        frame = nodes[node_id]["callFrame"]
        name = (f"{frame['functionName'] or '(anonymous)'} "
                f"{frame['url'].rsplit('/', 1)[-1]}:{frame['lineNumber'] + 1}")
        self_ms[name] = self_ms.get(name, 0.0) + dt / 1000
    return [f"{ms:8.0f} ms  {name}" for name, ms in
            sorted(self_ms.items(), key=lambda kv: -kv[1])[:n]]


def chrome(profile: Path):
    """A headless Chromium as the browser tests start it, also recording a trace of the page's
    main thread (``devtools.timeline``) into the performance log."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    binary = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    options.binary_location = binary
    for arg in [*CHROME_ARGS, "--window-size=1400,1000", f"--user-data-dir={profile}"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    options.add_experimental_option("perfLoggingPrefs", {
        "traceCategories": "devtools.timeline,toplevel", "enableNetwork": False,
        "enablePage": False})
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))


def main_thread_tasks(driver) -> list[tuple[float, float]]:
    """``(wall ms, thread CPU ms)`` of every task the page's main thread ran from the first
    stroke on (the trace's ``RunTask`` events: ``dur`` and ``tdur``).  The CPU time is what the
    page costs; the wall time also holds the time the thread waited for a busy machine's
    cores."""
    import json

    events = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Tracing.dataCollected":
            events.append(message["params"])
    downs = [e for e in events if e.get("name") == "EventDispatch"
             and e.get("args", {}).get("data", {}).get("type") == "pointerdown"]
    if not downs:
        return []
    start, tid = min(e["ts"] for e in downs), downs[0]["tid"]
    return [(e.get("dur", 0) / 1000, e.get("tdur", 0) / 1000) for e in events
            if e.get("ph") == "X" and e.get("name") == "ThreadControllerImpl::RunTask"
            and e.get("tid") == tid and e["ts"] >= start]


def renderer_cpu_s(profile: Path) -> float:
    """CPU seconds (user + system) used so far by the Chromium renderer processes of the
    browser started with ``profile``: a figure the machine's load does not inflate, unlike the
    wall-clock length of a task."""
    import psutil

    total = 0.0
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if "--type=renderer" in cmd and any(str(profile) in a for a in cmd):
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system
    return total


def renice(profile: Path, nice: int) -> int:
    """Set the niceness of the browser's processes (those started with ``profile``); negative
    values need root.  Returns how many were changed."""
    import psutil

    done = 0
    for proc in psutil.process_iter(["cmdline"]):
        if any(str(profile) in a for a in proc.info["cmdline"] or []):
            try:
                proc.nice(nice)
                done += 1
            except psutil.Error:
                pass
    return done


def run_once(base: str, profile: Path, cpu_profile: bool = False, nice: int | None = None,
             size: int = 100, strokes: int = 24) -> tuple[int, float, dict, int, float, list[tuple[float, float]]]:
    """``(tasks over 50 ms, longest ms, :func:`burst_timing`, tasks, renderer CPU seconds over
    the drawing, the main thread's tasks as (wall ms, CPU ms))``."""
    driver = chrome(profile)
    try:
        driver.set_script_timeout(120)
        open_page(driver, base, "?mode=edit")
        resize(driver, size, size)
        verdict(driver)
        if nice is not None:
            renice(profile, nice)
        if cpu_profile:
            driver.execute_cdp_cmd("Profiler.enable", {})
            driver.execute_cdp_cmd("Profiler.start", {})
        cpu = renderer_cpu_s(profile)
        driver.execute_async_script(DRAW, strokes, size)
        status = verdict(driver)
        cpu = renderer_cpu_s(profile) - cpu
        if cpu_profile:
            prof = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
            print("\n".join(top_functions(prof)))
        after = burst_timing(driver)
        durations = driver.execute_script("return window.__long")
        if cpu_profile:
            for frame in driver.execute_script("return window.__loaf") or []:
                scripts = "; ".join(f"{s['name'].strip()} {s['duration']:.0f} ms (forced "
                                    f"layout {s['forced']:.0f})" for s in frame["scripts"])
                print(f"  frame {frame['duration']:.0f} ms: style+layout+render "
                      f"{frame['style']:.0f} ms; {scripts}")
        assert status, "no verdict"
        return (sum(d > 50 for d in durations), max(durations, default=0.0), after,
                len(durations), cpu, main_thread_tasks(driver))
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--nice", type=int, default=None,
                        help="niceness of the browser's processes (e.g. -10, as root: the "
                        "figures of a busy machine then come nearer an idle one's)")
    parser.add_argument("--size", type=int, default=100, help="board side (16-100)")
    parser.add_argument("--strokes", type=int, default=24)
    parser.add_argument("--requests", action="store_true",
                        help="also list the analyse requests sent after the last stroke")
    parser.add_argument("--profile", action="store_true",
                        help="also print the page's functions with the most CPU time")
    args = parser.parse_args()
    missing = browser_missing()
    if missing:
        sys.exit(f"bench_studio_draw: {missing}")
    proc, base = start_server()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(args.repeats):
                over, longest, after, _, cpu, tasks = run_once(
                    base, Path(tmp) / f"p{k}", args.profile, args.nice, args.size,
                    args.strokes)
                cpu_ms = [c for _, c in tasks]
                print(f"run {k + 1}: {args.strokes} strokes on {args.size}x{args.size}: "
                      f"{over} long tasks > 50 ms "
                      f"(longest {longest:.0f} ms); main thread: {len(tasks)} tasks, "
                      f"{sum(c > 50 for c in cpu_ms)} over 50 ms of CPU (longest "
                      f"{max(cpu_ms, default=0):.1f} ms CPU, {sum(cpu_ms):.0f} ms in all); "
                      f"renderer CPU {cpu * 1000:.0f} ms; verdict {after['verdict']:.0f} ms "
                      f"after the last stroke, whole analysis (map, grade) "
                      f"{after['analysis']:.0f} ms; {after['sent']} analyse requests "
                      f"(answers {after['answers']}); load average "
                      f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
                if args.requests:
                    for sent, answered, code in after["after_last"]:
                        print(f"  request sent {sent:.0f} ms after the last stroke, answered "
                              f"at {answered:.0f} ms: {code}")
    finally:
        stop_server(proc)


if __name__ == "__main__":
    main()
