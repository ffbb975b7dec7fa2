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


@contextlib.contextmanager
def browser_page(exe: str, height: int = 2400):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"])
        page = browser.new_page(viewport={"width": 1400, "height": height})
        try:
            yield page
        finally:
            browser.close()


def wait_for_app(page, timeout_ms: int = 120000) -> None:
    """Wait until Streamlit finished running the script: no 'running' indicator and no
    progress bar, checked twice a second apart (a run may start just after the first check)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    idle = """() => !document.querySelector('[data-testid="stStatusWidget"]')
                    && !document.querySelector('[data-testid="stProgress"]')
                    && !document.querySelector('[data-testid="stSpinner"]')"""
    for _ in range(2):
        page.wait_for_timeout(1000)
        page.wait_for_function(idle, timeout=timeout_ms)


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
