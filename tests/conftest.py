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
