"""Every dashboard page in a real browser, cold and warm, on a saved real dataset.

    python benchmarks/bench_browser_pages.py [--data ../shared/data/wmt24_esa] [--lp en-cs]
        [--pages systems divergence ...] [--name wmt24]

For each page:

* **cold**: a fresh Streamlit server on 127.0.0.1 (tests/browser.py's ``running_app``) with an
  empty cache (a new ``EVALCORE_CACHE``), the dataset already saved in the workspace
  (``evalcore.io.workspace.save`` of ``evalcore.io.load_collection``), opened by a deep link
  ``/<page>?dataset=NAME&lp=LP`` in headless Debian Chromium (Playwright);
* **warm rerun** (the issue's "warm rerun ≤ 1 s"): in the same tab, once the cold load is done,
  Streamlit's rerun key "r" is pressed; the time runs to the last websocket message of the
  rerun (script finished, every delta sent), every cache warm;
* **new tab, warm**: the same URL opened again in a new tab on the same server (a new session:
  the frontend loads again and the script runs again, every cache warm). This includes the
  browser's own cost of a Streamlit page with a Plotly figure: 2.7–3.2 s for a one-chart
  page on this machine (see BENCHMARKS.md).

Two times from ``page.goto``: **first figure** (the first ``[data-testid="stPlotlyChart"]
.main-svg`` drawn, in a viewport tall enough to show the whole page; Plotly may draw it after
the script has finished; "–" when the page has no figure; the cold run waits up to ``--figure-grace`` s
after the script is idle for a figure, a new-tab run 15 s when the cold run drew one, since a warm page goes idle before
Plotly has even created its chart element) and **done** (the script is idle: no running
indicator, progress bar or spinner for 1 s; the time is when it became idle).
Prints a Markdown table; never part of the test suite.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

try:  # the one page list (pages/registry.py); an older checkout without it: its fixed list
    from pages.registry import PAGES as _REGISTRY

    PAGES = [p.slug for p in _REGISTRY]
except ImportError:
    PAGES = ["data", "systems", "human_likeness", "likeness_vs_acceptability", "queen_vs_human", "divergence",
             "judges", "learned", "learn", "campaign", "compare", "references", "experts"]
from browser import CHART, FIGURE as FIG  # noqa: E402  (a page's own figures, not the shell's prefetch chart)
IDLE = """() => !!document.querySelector('[data-testid="stApp"]')
                && (!!document.querySelector('h1') || !!document.querySelector('[data-testid="stException"]'))
                && !document.querySelector('[data-testid="stStatusWidget"]')
                && !document.querySelector('[data-testid="stProgress"]')
                && !document.querySelector('[data-testid="stSpinner"]')"""


def measure(page, url: str, timeout: float = 600.0, settle: float = 1.0, expect_figure: bool = False,
            figure_grace: float = 15.0) -> tuple[float | None, float, str]:
    """(first figure s or None, done s, exception text or "") of one page load.

    Done: the script has been idle for ``settle`` s (the time is when it became idle); a busy
    spell after that (a rerun, e.g. the deep-link hand-over) resets it. Plotly draws after the
    script has finished, and on a warm run the page goes idle before the chart element even
    exists: with ``expect_figure`` (the cold run of the same URL drew one) or a chart element on
    the page, the wait goes on up to ``figure_grace`` s after idle for the first drawn figure."""
    t0 = time.perf_counter()
    page.goto(url)
    first = None
    idle_since = None
    while True:
        now = time.perf_counter() - t0
        if now > timeout:
            raise TimeoutError(f"{url}: not done after {timeout:.0f} s")
        if first is None and page.query_selector(FIG) is not None:
            first = now
        if page.evaluate(IDLE):
            if idle_since is None:
                idle_since = now
            elif now - idle_since >= settle:
                waiting = first is None and (expect_figure or page.query_selector(CHART) is not None)
                if not waiting or now - idle_since >= figure_grace:
                    break
        else:
            idle_since = None
        time.sleep(0.05)
    err = page.query_selector('[data-testid="stException"]')
    return first, idle_since, (err.inner_text()[:200] if err else "")


def watch_frames(page) -> list[float]:
    """Arrival times (perf_counter) of the websocket messages the server sends this page."""
    frames: list[float] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda _payload: frames.append(time.perf_counter())))
    return frames


def rerun(page, frames: list[float], quiet: float = 1.5, timeout: float = 120.0) -> float | None:
    """Seconds from pressing Streamlit's rerun key ("r") to the last message of the rerun the
    server sends (the script has finished and every delta has arrived; no message for ``quiet``
    s after it), in the same tab: a warm rerun with every cache filled. None when no rerun came.
    Playwright delivers the messages while it waits, so the loop waits in 20 ms steps."""
    page.wait_for_timeout(1000)
    n0 = len(frames)
    t0 = time.perf_counter()
    page.locator("body").press("r")
    while time.perf_counter() - t0 < timeout:
        page.wait_for_timeout(20)
        if len(frames) == n0:
            if time.perf_counter() - t0 > 10:
                return None
            continue
        if time.perf_counter() - frames[-1] >= quiet and page.evaluate(IDLE):
            return frames[-1] - t0
    raise TimeoutError(f"rerun not done after {timeout:.0f} s")


def fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--lp", default="en-cs")
    ap.add_argument("--name", default=None, help="saved dataset name (default: the folder name)")
    ap.add_argument("--pages", nargs="*", default=None, help="page slugs (default: every page in pages/)")
    ap.add_argument("--figure-grace", type=float, default=10.0,
                    help="cold run: wait this long after the script is idle for a first figure (Plotly draws late)")
    ap.add_argument("--height", type=int, default=6000,
                    help="viewport height: tall, so every figure of the page is in view (Plotly draws when shown)")
    args = ap.parse_args(argv)
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass

    from browser import browser_page, require_browser, running_app

    from evalcore.io import workspace
    from evalcore.io import load_collection

    exe = require_browser()
    pages = [p for p in (args.pages or PAGES) if (ROOT / "pages" / f"{p}.py").exists()]
    tmp = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    home = tmp / "home"
    os.environ["EVALCORE_HOME"] = str(home)
    name = workspace.save(load_collection(args.data), args.name or Path(args.data).name)
    print(f"dataset {name} ({args.lp}) saved in {home}; load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    for slug in pages:
        cache = tmp / f"cache-{slug}"
        path = "" if slug == "data" else slug
        url_path = f"/{path}?dataset={name}&lp={args.lp}"
        load = os.getloadavg()[0]
        with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(cache)}) as url:
            with browser_page(exe, height=args.height) as page:
                frames = watch_frames(page)
                cold = measure(page, url + url_path, expect_figure=True, figure_grace=args.figure_grace)
                again = rerun(page, frames)
            with browser_page(exe, height=args.height) as page:
                warm = measure(page, url + url_path, expect_figure=cold[0] is not None)
        shutil.rmtree(cache, ignore_errors=True)
        rows.append((slug, cold, again, warm, load))
        print(f"{slug}: cold first figure {fmt(cold[0])} s, done {fmt(cold[1])} s; rerun {fmt(again)} s; new tab first figure "
              f"{fmt(warm[0])} s, done {fmt(warm[1])} s; load {load:.1f}" + (f"; ERROR {cold[2] or warm[2]}"
                                                                          if cold[2] or warm[2] else ""), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("| page | cold: first figure (s) | cold: done (s) | warm rerun, same tab (s) | new tab, warm: first figure (s) "
          "| new tab, warm: done (s) | load average at start |")
    print("|---|---|---|---|---|---|---|")
    for slug, cold, again, warm, load in rows:
        print(f"| {slug} | {fmt(cold[0])} | {fmt(cold[1])} | {fmt(again)} | {fmt(warm[0])} | {fmt(warm[1])} "
              f"| {load:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
