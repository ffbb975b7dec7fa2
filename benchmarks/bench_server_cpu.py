"""CPU seconds a real Streamlit server spends on a page: cold (fresh server) and a second visit.

    nice -n 5 python benchmarks/bench_server_cpu.py [PAGE ...] [--data ../shared/data/wmt24_esa]
        [--lp en-cs] [--state DIR]

Issue 39's first rows ("cold page, server CPU-s from request to idle (fresh server)" and "the same
page, second visit (new session, same server)"), measured on the server process itself rather than
inside AppTest (``benchmarks/bench_page_cpu.py``). The set-up is bench_page_cpu's ``--saved``: a
separate process saves the dataset into a workspace as the Data page does and precomputes the
statistics a save starts (its ``--save-only`` helper); then, for each page (default: Systems,
Campaign, Metrics task, Compare, Divergence):

* a fresh server (tests/browser.py's ``running_app``) on that workspace, with its own copy of the
  cache folder as the save left it (what an earlier page's server computed is not there), the numba
  kernels loaded from the folder they were compiled into before (a restarted server);
* **start-up**: the server's CPU from its launch to its health check answering (Streamlit's
  component discovery, :meth:`BidiComponentManager.discover_and_register_components`, runs here,
  at ``Runtime`` creation, once per server);
* **cold**: headless Chromium opens the deep link ``/PAGE?dataset=NAME&lp=LP``; the server's CPU
  is read right before ``page.goto`` and again when the page became idle (bench_browser_pages'
  idle test: no running indicator, progress bar or spinner, held for 1 s; the reading is the one
  taken when idleness began, a later busy spell starting it over);
* **second visit**: the same URL in a new tab (a new session) on the same server, read the same way.

``--compiled`` compiles ``app.py``, ``pages/`` and ``evalcore/`` to bytecode first (``compileall``,
as ``pip install`` does): where ``PYTHONDONTWRITEBYTECODE`` is set (this development environment),
a fresh server otherwise compiles every project module it imports from source, about 0.2 CPU-s of
a cold page (benchmarks/history/RESULTS_cold2.md). The default leaves it as before, so figures stay
comparable with earlier runs; the first line says which.

CPU = user + system of the server process and of its children, live and reaped, from
``/proc/PID/stat`` (through psutil). Prints one line per page and a Markdown table. Pass ``--state
DIR`` to keep the saved workspace and the precomputed cache between runs (the save costs about a
minute and a half of CPU on wmt24_esa); the server copies the cache, so the state stays as saved.
Never part of the test suite.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

PAGES = ["systems", "campaign", "metatask", "compare", "divergence"]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its descendants (live ones read directly,
    reaped ones through the parent's children times)."""
    import psutil

    proc = psutil.Process(pid)
    t = proc.cpu_times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in proc.children(recursive=True):
        try:
            c = child.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += c.user + c.system
    return total


def server_pid(port_url: str) -> int:
    """The pid of the ``streamlit run`` child of this process serving ``port_url``."""
    import psutil

    port = port_url.rsplit(":", 1)[1]
    for child in psutil.Process().children():
        cmd = child.cmdline()
        if "streamlit" in cmd and port in cmd:
            return child.pid
    raise RuntimeError(f"no streamlit server child for {port_url}")


def measure_cpu(page, url: str, pid: int, timeout: float = 600.0, settle: float = 1.0,
                after: float = 2.0) -> tuple[float, float, str, float]:
    """(server CPU s from just before the request to idle, wall s to idle, exception text or "",
    server CPU s in the ``settle`` + ``after`` s after idleness began: work the page left running,
    e.g. in a thread, or the server's own upkeep)."""
    from bench_browser_pages import IDLE

    c0 = cpu_seconds(pid)
    t0 = time.perf_counter()
    page.goto(url)
    idle_since = idle_cpu = None
    while True:
        now = time.perf_counter() - t0
        if now > timeout:
            raise TimeoutError(f"{url}: not idle after {timeout:.0f} s")
        cpu = cpu_seconds(pid)  # read before the test: the reading precedes the idleness it records
        if page.evaluate(IDLE):
            if idle_since is None:
                idle_since, idle_cpu = now, cpu
            elif now - idle_since >= settle:
                break
        else:
            idle_since = idle_cpu = None
        time.sleep(0.05)
    page.wait_for_timeout(after * 1000)
    err = page.query_selector('[data-testid="stException"]')
    return idle_cpu - c0, idle_since, (err.inner_text()[:200] if err else ""), cpu_seconds(pid) - idle_cpu


@contextlib.contextmanager
def sampled(pid: int, folder: str | None, slug: str):
    """py-spy recording ``pid`` (idle threads left out) into ``folder``/``slug``.txt while the block
    runs; nothing without ``folder``."""
    if not folder:
        yield
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    spy = subprocess.Popen(["py-spy", "record", "--pid", str(pid), "--rate", "250", "--gil", "--format", "raw",
                            "--output", str(Path(folder) / f"{slug}.txt")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # attached before the request
    try:
        yield
    finally:
        spy.send_signal(signal.SIGINT)
        spy.wait(60)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("pages", nargs="*", default=PAGES)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--lp", default="en-cs")
    ap.add_argument("--state", default=None, help="keep the saved workspace and precomputed cache here")
    ap.add_argument("--visits", type=int, default=1, help="new-tab visits after the cold one")
    ap.add_argument("--compiled", action="store_true",
                    help="compile app.py, pages/ and evalcore/ to bytecode before the servers start, as an install "
                         "does (this environment sets PYTHONDONTWRITEBYTECODE=1, so otherwise every fresh server "
                         "compiles the project's own modules from source on its first request)")
    ap.add_argument("--profile", default=None,
                    help="folder: py-spy samples the server during each cold visit (PAGE.txt, collapsed stacks; "
                         "the sampling slows the server: take the CPU figures from a run without it)")
    args = ap.parse_args(argv)
    from evalcore.metrics._jit import pin_cache_folder

    pin_cache_folder()  # the kernels as compiled before (a restarted server), in every server
    from bench_browser_pages import fmt
    from bench_page_cpu import saved_state
    from browser import browser_page, require_browser, running_app

    exe = require_browser()
    if args.compiled:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run([sys.executable, "-m", "compileall", "-q", "app.py", "pages", "evalcore"], cwd=ROOT, env=env,
                       check=True)
    tmp = Path(tempfile.mkdtemp(prefix="bench-server-cpu-"))
    state = Path(args.state) if args.state else tmp / "state"
    saved_state(state, args.data)
    name = Path(args.data).name
    print(f"dataset {name} ({args.lp}) saved in {state}; load average {os.getloadavg()[0]:.1f}; project "
          + ("bytecode compiled beforehand (--compiled)" if args.compiled else
             "compiled from source by each server" if os.environ.get("PYTHONDONTWRITEBYTECODE") else
             "bytecode as Python leaves it"), flush=True)
    rows = []
    for slug in args.pages:
        cache = tmp / f"cache-{slug}"
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(state / "cache", cache)
        load = os.getloadavg()[0]
        url_path = f"/{slug}?dataset={name}&lp={args.lp}"
        with running_app({"EVALCORE_HOME": str(state / "home"), "EVALCORE_CACHE": str(cache)}) as url:
            pid = server_pid(url)
            start = cpu_seconds(pid)
            with browser_page(exe) as page, sampled(pid, args.profile, slug):
                cold = measure_cpu(page, url + url_path, pid)
            visits = []
            for _ in range(args.visits):
                with browser_page(exe) as page:
                    visits.append(measure_cpu(page, url + url_path, pid))
        shutil.rmtree(cache, ignore_errors=True)
        err = cold[2] or next((v[2] for v in visits if v[2]), "")
        rows.append((slug, start, cold, visits, load))
        print(f"{slug}: start-up {start:.2f} CPU-s; cold {cold[0]:.2f} CPU-s (idle at {cold[1]:.1f} s, "
              f"{cold[3]:.2f} CPU-s in the 3 s after); second visit "
              + ", ".join(f"{v[0]:.2f} CPU-s (idle at {v[1]:.1f} s, {v[3]:.2f} after)" for v in visits)
              + f"; load {load:.1f}" + (f"; ERROR {err}" if err else ""), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("| page | server start-up (CPU-s) | cold: request to idle (CPU-s) | second visit, new tab (CPU-s) "
          "| cold: wall to idle (s) | load average at start |")
    print("|---|---|---|---|---|---|")
    for slug, start, cold, visits, load in rows:
        print(f"| {slug} | {start:.2f} | {cold[0]:.2f} | {' / '.join(fmt(v[0]) for v in visits)} | {cold[1]:.1f} "
              f"| {load:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
