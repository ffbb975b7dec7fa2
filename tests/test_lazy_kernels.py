"""numba kernels compile on first use, not at import (every page imports the metric
modules; importing numba cost about half a second). After the first call the kernels are
numba's own dispatchers, with values equal to a literal edit-distance DP written here."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

CODE = r"""
import json, sys
import numpy as np
import evalcore.metrics._load_all
before = "numba" in sys.modules
from evalcore.metrics.kernels import dp
a = [np.array([1, 2, 3, 4]), np.array([5, 6])]
b = [np.array([1, 3, 4]), np.array([6, 5, 7]), np.array([], dtype=np.int64)]
lev = dp.levenshtein_matrix(a, b).tolist()
lcs = dp.lcs_matrix(a, b).tolist()
print(json.dumps({"before": before, "after": "numba" in sys.modules,
                  "dispatcher": type(dp._dp_many).__module__, "lev": lev, "lcs": lcs}))
"""


def literal_dp(x, y, lcs=False):
    m, n = len(x), len(y)
    d = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m + 1):
        for j in range(n + 1):
            if lcs:
                d[i][j] = 0 if i == 0 or j == 0 else (d[i - 1][j - 1] + 1 if x[i - 1] == y[j - 1]
                                                      else max(d[i - 1][j], d[i][j - 1]))
            else:
                d[i][j] = i + j if i == 0 or j == 0 else min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                                                             d[i - 1][j - 1] + (x[i - 1] != y[j - 1]))
    return d[m][n]


def test_numba_imported_on_first_kernel_call_only():
    pytest.importorskip("numba")
    out = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["before"] is False and got["after"] is True
    assert got["dispatcher"].startswith("numba")  # rebound to numba's dispatcher after the first call
    a = [[1, 2, 3, 4], [5, 6]]
    b = [[1, 3, 4], [6, 5, 7], []]
    assert got["lev"] == [[literal_dp(x, y) for y in b] for x in a]
    assert got["lcs"] == [[literal_dp(x, y, lcs=True) for y in b] for x in a]


ONE_KERNEL = r"""
import json
import numpy as np
from evalcore.metrics.kernels import dp
a = [np.array([1, 2, 3, 4]), np.array([5, 6])]
b = [np.array([1, 3, 4]), np.array([6, 5, 7]), np.array([], dtype=np.int64)]
print(json.dumps({"lev": dp.levenshtein_matrix(a, b).tolist()}))
"""


def test_compiled_kernels_kept_in_the_cache_folder_and_loaded_by_a_fresh_process(tmp_path, monkeypatch):
    """The first process compiles the kernels into <cache>/numba; a second fresh process finds
    them there and compiles nothing (no cache file written or rewritten); ``$NUMBA_CACHE_DIR``,
    when set, is used instead."""
    pytest.importorskip("numba")
    from evalcore.metrics import _jit

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(OPENBLAS_NUM_THREADS="1", EVALCORE_CACHE=str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "numba"
    a = [[1, 2, 3, 4], [5, 6]]
    b = [[1, 3, 4], [6, 5, 7], []]

    def run():
        out = subprocess.run([sys.executable, "-c", ONE_KERNEL], cwd=ROOT, capture_output=True, text=True,
                             check=True, env=env)
        assert json.loads(out.stdout.strip().splitlines()[-1])["lev"] == [[literal_dp(x, y) for y in b] for x in a]
        return {p.relative_to(folder): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}

    first = run()
    assert any(p.suffix == ".nbi" for p in first) and any(p.suffix == ".nbc" for p in first)
    assert run() == first  # loaded, not compiled again: the same files, untouched
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "other"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert _jit.cache_folder() == str(tmp_path / "other" / "numba")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "user"))
    assert _jit.cache_folder() is None  # the user's folder: numba reads it itself
