"""The breaker explorer (issue 13): page size, time to write it, and time for headless
Chromium (the system package, driven by Playwright) to open it from a file and for one
click and one secret. Prints a Markdown section for benchmarks/RESULTS.md."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.machine import machine_line
from evo.baselines import run
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.show.explore import write_explorer

REPEATS = 5
CHROMIUM = "/usr/bin/chromium"


def median_time(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


#: Milliseconds the page takes to expand node 1 of the first tree (a click on its row).
IN_PAGE_CLICK = """() => {
  const t = performance.now();
  document.querySelector("#pane-0 .node[data-node='1'] > .row").click();
  return performance.now() - t;
}"""

#: Milliseconds the page takes to show a secret's game (typed, then submitted).
IN_PAGE_SECRET = """(secret) => {
  const t = performance.now();
  document.getElementById("secret").value = secret;
  document.getElementById("secret-form").requestSubmit();
  return performance.now() - t;
}"""


def browser_times(browser, page_path: Path, secret: str) -> tuple[float, float, float]:
    """Median seconds to open the page until it is ready (driver included), and, inside the
    page, to expand the root's first answer and to show a secret's game."""
    loads, clicks, secrets = [], [], []
    for _ in range(REPEATS):
        ctx = browser.new_context()
        ctx.route("**/*", lambda r: r.continue_() if r.request.url[:5] == "file:" else r.abort())
        page = ctx.new_page()
        t0 = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        loads.append(time.perf_counter() - t0)
        # In-page time (the script's own work, synchronous), without the driver's round trips.
        clicks.append(page.evaluate(IN_PAGE_CLICK) / 1000)
        secrets.append(page.evaluate(IN_PAGE_SECRET, secret) / 1000)
        assert page.query_selector("#pane-0 .node[data-node='1'].open")
        assert page.query_selector(".game-path li.step")
        ctx.close()
    return statistics.median(loads), statistics.median(clicks), statistics.median(secrets)


def main() -> None:
    from playwright.sync_api import sync_playwright

    g46 = make_game(4, 6)
    g58 = make_game(5, 8, table=False)
    knuth = run(g46, "knuth").tree
    rnd46 = random_breaker(g46, rng=np.random.default_rng(1))
    rnd58 = random_breaker(g58, rng=np.random.default_rng(1))
    rnd58b = random_breaker(g58, rng=np.random.default_rng(2))
    rnd68 = random_breaker(make_game(6, 8, table=False), rng=np.random.default_rng(1))
    cases = [
        ("(4,6) Knuth", (knuth, "knuth"), "5512"),
        ("(4,6) Knuth vs a random breaker", (knuth, "knuth", rnd46, "random"), "5512"),
        ("(5,8) random breaker", (rnd58, "random"), "12345"),
        ("(5,8) two random breakers", (rnd58, "a", rnd58b, "b"), "12345"),
        ("(6,8) random breaker", (rnd68, "random"), "123456"),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for label, args, secret in cases:
            path = Path(tmp) / "page.html"
            write = median_time(lambda a=args, q=path: write_explorer(q, *a))
            nodes = " + ".join(str(len(t)) for t in args[::2])
            load, click, play = browser_times(browser, path, secret)
            size = path.stat().st_size
            rows.append(
                (
                    label,
                    nodes,
                    f"{size / 1024:.0f}",
                    f"{write:.2f}",
                    f"{load:.2f}",
                    f"{click * 1000:.1f}",
                    f"{play * 1000:.1f}",
                )
            )
        browser.close()
    print("## Breaker explorer (issue 13)\n")
    print(machine_line() + "\n")
    print(
        f"Medians of {REPEATS}; `.venv/bin/python benchmarks/run_all.py explore`. Load: from "
        "`goto(file://…)` until the page has built its first level (headless Chromium, "
        "network blocked, driver round trips included); click (expanding one node) and "
        "secret (showing a secret's game): timed inside the page with performance.now(). "
        "No peer program has an explorer, so there is no ratio.\n"
    )
    print("| tree(s) | nodes | page KiB | write s | load s | click ms | secret ms |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
