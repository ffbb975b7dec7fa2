"""Numba kernels compiled (or loaded from numba's on-disk cache) on first use, not at import.

Importing numba costs about half a second and every dashboard page imports the metric
modules (their registry entries), while most pages never run a compiled kernel. ``lazy_njit``
marks a function as a kernel without importing numba: the first call of any kernel imports
numba once, wraps every kernel registered so far with ``numba.njit(cache=True, nogil=True)``
(exactly the decoration they had before) and rebinds the kernels' module-level names to those
dispatchers, so that kernels calling kernels compile as before. Values are unchanged.

Without numba installed, ``lazy_njit`` returns the function itself (pure Python), and
:data:`HAVE_NUMBA` is False: callers then use their numpy or sacreBLEU paths.

**Where the compiled kernels are kept**: ``<cache>/numba`` (:func:`cache_folder`, under
:func:`evalcore.core.paths.cache_dir`), unless ``$NUMBA_CACHE_DIR`` names another folder, so that
a fresh server or command process loads the machine code compiled by an earlier one instead of
compiling again (13 CPU-seconds for BLEU, chrF and TER; 0.8 with the kernels on disk,
``benchmarks/bench_fresh_process.py``), whether or not the installed
package's own folder is writable (numba's default is a ``__pycache__`` beside each source
file, else a per-user folder), and the compiled code lives and is cleared with evalcore's other
caches. numba keys each file by the kernel's source file, its modification time and the
argument types, so an edited kernel is compiled again.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import threading
from typing import Any, Callable

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
_KERNELS: list["LazyKernel"] = []
_LOCK = threading.RLock()


class LazyKernel:
    """A kernel awaiting compilation; calling it compiles every pending kernel first."""

    def __init__(self, py_func):
        self.py_func = py_func
        self.dispatcher: Callable[..., Any] | None = None
        functools.update_wrapper(self, py_func)
        with _LOCK:
            _KERNELS.append(self)

    def __call__(self, *args):
        d = self.dispatcher
        if d is None:
            materialise()
            d = self.dispatcher
            assert d is not None  # set by materialise()
        return d(*args)


def materialise() -> None:
    """Wrap every pending kernel with numba and rebind the module-level names bound to a
    :class:`LazyKernel` (in the kernels' own modules) to its dispatcher."""
    with _LOCK:
        pending = [k for k in _KERNELS if k.dispatcher is None]
        if not pending:
            return
        import numba

        folder = cache_folder()
        if folder is not None and not numba.config.CACHE_DIR:  # type: ignore[attr-defined]  # set at run time
            numba.config.CACHE_DIR = folder  # type: ignore[attr-defined]  # read when each dispatcher below sets up its cache
        for k in pending:
            k.dispatcher = numba.njit(cache=True, nogil=True)(k.py_func)
        for g in {id(k.py_func.__globals__): k.py_func.__globals__ for k in _KERNELS}.values():
            for name, value in list(g.items()):
                if isinstance(value, LazyKernel) and value.dispatcher is not None:
                    g[name] = value.dispatcher


def lazy_njit(f):
    """``numba.njit(cache=True, nogil=True)`` on first use (see the module docstring)."""
    return LazyKernel(f) if HAVE_NUMBA else f


def cache_folder() -> str | None:
    """Where numba keeps the compiled kernels: ``<cache>/numba``; None when ``$NUMBA_CACHE_DIR``
    is set (numba then uses that folder) or the cache folder cannot be created (numba's default)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    from ..core import paths

    try:
        d = paths.cache_dir() / "numba"
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return str(d)


def pin_cache_folder() -> str | None:
    """Fix ``$NUMBA_CACHE_DIR`` (unless set) to the current ``<cache>/numba``, for a process that
    is about to point ``$EVALCORE_CACHE`` at an empty folder (a benchmark of a cold server, the
    findings checker's ``--fresh-cache``) but should load the kernels compiled before, as a
    restarted server does, rather than compile them again; child processes inherit it.
    Returns the folder (None when numba's own choice stands)."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        folder = cache_folder()
        if folder is not None:
            os.environ["NUMBA_CACHE_DIR"] = folder
    return os.environ.get("NUMBA_CACHE_DIR")
