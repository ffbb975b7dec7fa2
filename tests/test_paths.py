"""One module (evalcore/core/paths.py) defines the home, datasets, models, cache and
parse-cache folders, and every user of a folder asks it."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evalcore.core import paths
from evalcore.io import workspace
from evalcore.learned import store
from evalcore.metrics import engine
from evalcore.syntax import parsing


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for var in ("EVALCORE_HOME", "EVALCORE_CACHE", "XDG_DATA_HOME", "APPDATA"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    return tmp_path


def _users() -> dict[str, Path]:
    """What each module that keeps files says its folder is."""
    return {"workspace.home": workspace.home(), "workspace.datasets": workspace.datasets_dir(),
            "workspace.cache": workspace.cache_dir(), "workspace.models": workspace.models_dir(),
            "engine.cache": engine.default_cache_dir(), "syntax.cache": parsing.cache_root(),
            "syntax.parses": parsing.ParseCache().directory, "learned.models": store.models_dir()}


def _expected(home: Path, cache: Path) -> dict[str, Path]:
    return {"workspace.home": home, "workspace.datasets": home / "datasets", "workspace.cache": cache,
            "workspace.models": home / "models", "engine.cache": cache, "syntax.cache": cache,
            "syntax.parses": cache / "parses", "learned.models": home / "models"}


def test_evalcore_home_and_cache_variables(clean_env, monkeypatch):
    monkeypatch.setenv("EVALCORE_HOME", str(clean_env / "h"))
    assert _users() == _expected(clean_env / "h", clean_env / "h" / "cache")
    monkeypatch.setenv("EVALCORE_CACHE", str(clean_env / "elsewhere"))
    assert _users() == _expected(clean_env / "h", clean_env / "elsewhere")
    assert (clean_env / "h" / "datasets").is_dir() and (clean_env / "elsewhere").is_dir()


def test_default_is_the_xdg_data_folder(clean_env, monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    home = clean_env / "user" / ".local" / "share" / "evalcore"
    assert _users() == _expected(home, home / "cache")
    monkeypatch.setenv("XDG_DATA_HOME", str(clean_env / "xdg"))
    assert paths.home() == clean_env / "xdg" / "evalcore"
    # APPDATA means nothing outside Windows
    monkeypatch.setenv("APPDATA", str(clean_env / "roaming"))
    assert paths.models_dir() == clean_env / "xdg" / "evalcore" / "models"


def test_windows_uses_appdata_for_every_folder(clean_env, monkeypatch):
    """The models folder used to ignore %APPDATA%: now it is <home>/models like the rest."""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(clean_env / "roaming"))
    monkeypatch.setenv("XDG_DATA_HOME", str(clean_env / "xdg"))  # ignored on Windows
    home = clean_env / "roaming" / "evalcore"
    assert _users() == _expected(home, home / "cache")
    monkeypatch.setenv("EVALCORE_HOME", str(clean_env / "mine"))  # the variable still wins
    assert store.models_dir() == clean_env / "mine" / "models"


def test_tilde_is_expanded_and_create_false_creates_nothing(clean_env, monkeypatch):
    monkeypatch.setenv("EVALCORE_HOME", "~/ev")
    monkeypatch.setenv("EVALCORE_CACHE", "~/evc")
    assert paths.parses_dir(create=False) == clean_env / "user" / "evc" / "parses"
    assert paths.models_dir(create=False) == clean_env / "user" / "ev" / "models"
    assert not (clean_env / "user").exists()
    assert paths.models_dir().is_dir()


def test_no_other_module_reads_the_folder_variables():
    """Only paths.py reads $EVALCORE_HOME / $EVALCORE_CACHE / %APPDATA% / $XDG_DATA_HOME."""
    root = Path(paths.__file__).parent
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py") if p.name != "paths.py"
                 and any(f'"{v}"' in p.read_text(encoding="utf-8")
                         for v in ("EVALCORE_HOME", "EVALCORE_CACHE", "APPDATA", "XDG_DATA_HOME"))]
    assert offenders == []
