"""Where evalcore keeps its files: the one place that defines the folders.

* **home** — ``$EVALCORE_HOME`` if set; else ``%APPDATA%\\evalcore`` on Windows; else
  ``$XDG_DATA_HOME/evalcore`` (default ``~/.local/share/evalcore``).
* **datasets** — ``<home>/datasets``: the saved datasets (:mod:`evalcore.io.workspace`).
* **models** — ``<home>/models``: trained learned metrics (:mod:`evalcore.learned.store`).
* **cache** — ``$EVALCORE_CACHE`` if set, else ``<home>/cache``: similarity tensors
  (:mod:`evalcore.metrics.engine`) and analysis results, keyed by content and code fingerprint.
* **parses** — ``<cache>/parses``: dependency parses (:mod:`evalcore.syntax.parsing`).

Every function returns an absolute-or-as-given :class:`~pathlib.Path` (``~`` expanded) and
creates the folder unless ``create=False``. This module imports nothing from evalcore, so
every layer may use it.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def _is_windows() -> bool:
    return sys.platform == "win32"


def _made(path: Path, create: bool) -> Path:
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def home(create: bool = True) -> Path:
    """The workspace folder: ``$EVALCORE_HOME``, else ``%APPDATA%\\evalcore`` on Windows,
    else ``$XDG_DATA_HOME/evalcore`` (default ``~/.local/share/evalcore``)."""
    env = os.environ.get("EVALCORE_HOME")
    if env:
        base = Path(env).expanduser()
    elif _is_windows() and os.environ.get("APPDATA"):
        base = Path(os.environ["APPDATA"]) / "evalcore"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share").expanduser() / "evalcore"
    return _made(base, create)


def datasets_dir(create: bool = True) -> Path:
    """``<home>/datasets``: one folder per saved dataset."""
    return _made(home(create) / "datasets", create)


def models_dir(create: bool = True) -> Path:
    """``<home>/models``: the saved learned metrics."""
    return _made(home(create) / "models", create)


def cache_dir(create: bool = True) -> Path:
    """``$EVALCORE_CACHE`` if set, else ``<home>/cache``."""
    env = os.environ.get("EVALCORE_CACHE")
    base = Path(env).expanduser() if env else home(create) / "cache"
    return _made(base, create)


def parses_dir(create: bool = True) -> Path:
    """``<cache>/parses``: the dependency-parse cache."""
    return _made(cache_dir(create) / "parses", create)
