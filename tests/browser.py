"""Real-browser helpers: start the app on 127.0.0.1, drive Debian's Chromium with Playwright.

Never downloads a browser: the executable is the system ``chromium``. Without it the browser
tests skip locally and fail under CI=true (where they must run).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts" / "screenshots"
#: a page's own drawn Plotly figure: not the out-of-view chart the app shell draws once per
#: session so the browser loads Plotly early (pages.common.prefetch_plotly)
PREFETCH_KEY = "evalcore_plotly_prefetch"  # pages.common.PLOTLY_PREFETCH_KEY (not imported: no Streamlit here)
CHART = f'[data-testid="stPlotlyChart"]:not(.st-key-{PREFETCH_KEY} [data-testid="stPlotlyChart"])'
FIGURE = CHART + " .main-svg"


def require_browser():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        exe = None
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but no chromium/playwright: browser tests must run in CI")
        pytest.skip("no system chromium or playwright installed (apt-get install chromium; pip install playwright)")
    return exe


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_app(env_extra: dict | None = None, timeout: float = 120):
    port = _free_port()
    env = dict(os.environ)
    env.update(env_extra or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read().strip() == b"ok":
                    break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError("streamlit did not become healthy")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


#: Installed in every page before Streamlit's own scripts: counts the script runs on the wire.
#: Streamlit sends one protobuf message per WebSocket frame (streamlit/proto/BackMsg.proto and
#: ForwardMsg.proto): the browser asks for a run with a BackMsg whose field 11 (rerun_script) is
#: set, the server announces every run it starts with ForwardMsg field 4 (new_session) and its
#: end with field 6 (script_finished: 0 success, 1 compile error, 2 stopped for a rerun, 3
#: fragment done). An upload first asks for its URLs (BackMsg field 16), PUTs the files, then
#: asks for the run that reads them: that request counts as a run asked for from the start.
#: ``lastReq``/``lastStart``/``lastFinish`` are the order (``tick``) of the last of each.
RUN_SPY = r"""
(() => {
  if (window.__evalcoreRuns) return;
  const s = window.__evalcoreRuns = {tick: 0, lastReq: 0, lastStart: 0, lastFinish: 0, status: -1, finished: 0};
  const varint = (b, i) => { let v = 0, k = 1, x; do { x = b[i++]; v += (x & 0x7f) * k; k *= 128; } while (x & 0x80); return [v, i]; };
  // the top-level fields of one message: [[field, wire type, varint value or null], ...]
  const fields = (b) => {
    const out = []; let i = 0;
    while (i < b.length) {
      let tag, v = null, n; [tag, i] = varint(b, i);
      const f = Math.floor(tag / 8), w = tag & 7;
      if (w === 0) { [v, i] = varint(b, i); } else if (w === 2) { [n, i] = varint(b, i); i += n; }
      else if (w === 1) { i += 8; } else if (w === 5) { i += 4; } else { break; }
      out.push([f, w, v]);
    }
    return out;
  };
  const bytes = (d) => d instanceof ArrayBuffer ? new Uint8Array(d)
    : ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : null;
  const Native = window.WebSocket;
  class Spy extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        const b = bytes(e.data); if (!b) return;
        for (const [f, w, v] of fields(b)) {
          if (f === 4 && w === 2) { s.lastStart = ++s.tick; }
          else if (f === 6 && w === 0) { s.lastFinish = ++s.tick; s.status = v; s.finished += 1; }
        }
      });
    }
    send(data) {
      const b = bytes(data);
      if (b) for (const [f, w] of fields(b)) {
        if ((f === 11 || f === 16) && w === 2) { s.lastReq = ++s.tick; }  // a run, or an upload (then a run)
      }
      return super.send(data);
    }
  }
  window.WebSocket = Spy;
})();
"""

#: The app is idle: a run finished since the page loaded, the last run asked for (or upload
#: begun) started after the request and finished (not stopped for another run), and the page
#: shows it (Streamlit's own script state, no spinner, progress bar or running indicator).
IDLE = """() => {
  const s = window.__evalcoreRuns, app = document.querySelector('[data-testid="stApp"]');
  return !!(s && app && s.finished > 0 && s.lastStart > s.lastReq && s.lastFinish > s.lastStart && s.status !== 2
    && app.getAttribute("data-test-script-state") === "notRunning"
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-testid="stProgress"]')
    && !document.querySelector('[data-testid="stSpinner"]'));
}"""

#: Every figure the page has drawn its SVG (the charts render after the script's run).
FIGURES_DRAWN = f"""() => [...document.querySelectorAll('{CHART}')]
  .every(c => c.querySelector('.main-svg'))"""

LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def chromium(exe: str):
    """One headless Chromium (a module's tests share it: each test opens its own context)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser, height: int = 2400):
    """A page in a new context of ``browser`` (its own cookies and session), with the run spy."""
    context = browser.new_context(viewport={"width": 1400, "height": height})
    context.add_init_script(RUN_SPY)
    return context.new_page()


@contextlib.contextmanager
def browser_page(exe: str, height: int = 2400, browser=None):
    """A fresh page: in a new context of ``browser`` when given, else in a Chromium of its own."""
    if browser is not None:
        page = new_page(browser, height)
        try:
            yield page
        finally:
            page.context.close()
        return
    with chromium(exe) as own:
        yield new_page(own, height)


def wait_for_app(page, timeout_ms: int = 120000) -> None:
    """Wait until Streamlit finished every script run asked for so far (``IDLE``): a condition
    on the messages and the page, no fixed delay. Checked twice, a quarter second apart, for an
    action whose request leaves the page a moment after the action returned."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    assert page.evaluate("() => !!window.__evalcoreRuns"), "open the page with browser.new_page (the run spy)"
    page.wait_for_function(IDLE, timeout=timeout_ms, polling=50)
    page.wait_for_timeout(250)
    page.wait_for_function(IDLE, timeout=timeout_ms, polling=50)


def wait_for_figures(page, timeout_ms: int = 120000) -> None:
    """Wait until every Plotly figure on the page has drawn (its ``.main-svg`` exists)."""
    page.wait_for_function(FIGURES_DRAWN, timeout=timeout_ms, polling=100)


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
