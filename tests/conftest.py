"""Test configuration: an isolated workspace, the shared-data location and CI rules."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Every test run gets its own workspace and cache so no user data is touched.
_TMP_HOME = tempfile.mkdtemp(prefix="evalcore-test-home-")
os.environ.setdefault("EVALCORE_HOME", _TMP_HOME)
os.environ.setdefault("EVALCORE_CACHE", os.path.join(_TMP_HOME, "cache"))
# The statistics store (evalcore/metrics/_stats_store.py) is off unless a test turns it on: a
# test that compares two code paths (numba and numpy, chunked and whole) must compute both.
os.environ.setdefault("EVALCORE_STATS_CACHE", "0")
# Compiled numba kernels go to <cache>/numba by default (evalcore/metrics/_jit.py); the test
# cache above is new for every run, so the kernels are kept in one folder of the checkout that
# every run and every pytest worker shares (compiling BLEU, chrF and TER costs ~13 CPU-s).
os.environ.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba-cache"))

# Property tests are derandomised under CI (a fixed seed per test: no flake under load) and
# never time out on a loaded machine; locally `HYPOTHESIS_PROFILE=explore` searches afresh.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") == "true" else "explore"))

SHARED_DATA = Path(os.environ.get("EVALCORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


def shared(name: str) -> Path:
    """Path of a ../shared/data folder, or skip the test with the reason."""
    path = SHARED_DATA / name
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing, but CI must run the shared-data tests")
        pytest.skip(f"shared data {path} is absent (research-use data, not shipped with the project)")
    return path


@pytest.fixture
def workspace_home(tmp_path, monkeypatch):
    """A fresh, empty workspace for one test."""
    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "home" / "cache"))
    return tmp_path / "home"


# The whole suite runs on pytest-xdist workers with `--dist loadfile --no-loadscope-reorder`
# (scripts/test.sh): each test file runs on one worker, handed out in collection order. The
# files are ordered here by their recorded cost, the most expensive first (longest processing
# time first), so that no long file starts last and the workers finish together. Costs are
# CPU seconds per file measured single-process (tests/file_costs.py turns a `--durations=0` log
# into rows of tests/costs.tsv). Files without a row run after the listed ones, those with more
# tests first (xdist's own default order), and fill the gaps at the end. Within a file the order
# is unchanged, so module fixtures are still built once.
COSTS = ROOT / "tests" / "costs.tsv"


def read_costs(path: Path = COSTS) -> dict[str, float]:
    """{test file name: recorded seconds} from ``path`` (``name<TAB>seconds``, ``#`` comments)."""
    if not path.exists():
        return {}
    costs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, seconds = line.split("\t")
            costs[name] = float(seconds)
    return costs


def order_by_cost(items: list, costs: dict[str, float]) -> None:
    """Sort ``items`` (in place) file by file: the files in ``costs``, the most costly first, then
    the others, the one with more items first; ties, and the items of one file, keep their
    collection order."""
    if not costs:
        return
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(str(item.path), i)
        count[str(item.path)] = count.get(str(item.path), 0) + 1

    def key(it):
        path = str(it.path)
        if it.path.name in costs:
            return (0, -costs[it.path.name], first[path])
        return (1, -count[path], first[path])

    items.sort(key=key)


def pytest_collection_modifyitems(config, items):
    order_by_cost(items, read_costs())


# Every new AppTest scans the metadata of every installed distribution for Streamlit "v2"
# component manifests (streamlit.components.v2.manifest_scanner, ~0.2 CPU-s a scan over ~600
# packages here; hundreds of AppTests in the suite). The installed packages do not change while
# the tests run, so one scan per process serves every AppTest; each AppTest still registers the
# manifests found in its own component registry. Patched as soon as a test module has imported
# Streamlit's testing API (the page tests import it at the top; the others never load it).
_MANIFESTS: list | None = None


def _scan_once(max_workers=None):
    global _MANIFESTS
    if _MANIFESTS is None:
        _MANIFESTS = list(_REAL_SCAN(max_workers))
    return list(_MANIFESTS)


_REAL_SCAN = None


def _wait_for_shutdown(runner, timeout: float = 3) -> None:
    """Streamlit's ``require_widgets_deltas`` without its busy wait: AppTest's own version wakes
    every millisecond and rescans every event of the run so far (one per delta sent) for the
    script's SHUTDOWN, taking the GIL from the script thread it waits for. Here the same
    condition (SHUTDOWN among the runner's events) is waited for on an event set by the runner's
    own signal; on timeout the same stop, join and error as Streamlit's."""
    import threading

    from streamlit.runtime.scriptrunner import ScriptRunnerEvent

    done = threading.Event()

    def on_event(sender, event, **kwargs):
        if event == ScriptRunnerEvent.SHUTDOWN:
            done.set()

    runner.on_event.connect(on_event, weak=False)
    try:
        if runner.script_stopped() or done.wait(timeout):
            return
    finally:
        runner.on_event.disconnect(on_event)
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


@pytest.fixture(autouse=True)
def _lighter_apptests():
    global _REAL_SCAN
    if _REAL_SCAN is None and "streamlit.testing.v1" in sys.modules:
        from streamlit.components.v2 import manifest_scanner
        from streamlit.testing.v1 import local_script_runner

        _REAL_SCAN = manifest_scanner.scan_component_manifests
        manifest_scanner.scan_component_manifests = _scan_once
        local_script_runner.require_widgets_deltas = _wait_for_shutdown
    yield


@pytest.fixture(autouse=True)
def _no_background_work_left():
    """A test that saves through the Data page starts the save's precompute in a daemon thread
    (evalcore.views.precompute.precompute_in_background). Left running, it would go on into the
    next tests of the worker: counting calls that test patched, and writing into whatever cache
    folder that test set. Each test ends when the work it started has ended."""
    yield
    import threading

    for t in threading.enumerate():
        if t.name.startswith("evalcore-precompute-") and t is not threading.current_thread():
            t.join(timeout=600)
            assert not t.is_alive(), f"background precompute {t.name} still running after 600 s"


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache folder for this test (``$EVALCORE_CACHE``), and the in-memory caches
    emptied: Streamlit's (``st.cache_data``, ``st.cache_resource``) and the statistics index
    (evalcore.scoring.scores._INDEX_CACHE): what a first visit of a fresh server finds."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    import streamlit as st

    from evalcore.scoring import scores as scores_view

    st.cache_data.clear()
    st.cache_resource.clear()
    scores_view._INDEX_CACHE.clear()
    return tmp_path


def record_view_calls(monkeypatch, module, name: str, seen: list) -> None:
    """Patch the view function ``module.name`` so that each call appends its (data, query) to
    ``seen`` before computing as before (which inputs a page asked of its view)."""
    import functools

    real = getattr(module, name)

    @functools.wraps(real)
    def wrapper(data, query, **kw):
        seen.append((data, query))
        return real(data, query, **kw)
    monkeypatch.setattr(module, name, wrapper)


def open_page(page: str, state: dict | None = None):
    """A session of app.py under AppTest (``$EVALCORE_TEST_APP`` names another entry point) with
    ``state`` put in its session state first, switched to ``pages/PAGE.py``; neither run raised."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(os.environ.get("EVALCORE_TEST_APP", str(ROOT / "app.py")), default_timeout=240)
    for k, v in (state or {}).items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at
