"""Issue 15: the package installs (``pip install .``) with an ``evalcore`` command equal to
``python -m evalcore``, one version and one dependency list, every module imports on its own,
and on-disk cache keys change when the code changes."""
from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``pip install --no-deps`` of the repository into a folder (the build backend comes
    from requirements-dev.txt, so nothing is downloaded)."""
    target = tmp_path_factory.mktemp("site")
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "--no-deps", "--no-build-isolation", "--target", str(target), str(ROOT)],
                         capture_output=True, text=True, cwd=target)
    assert res.returncode == 0, res.stderr[-3000:]
    return target


def _requirements() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [ln.split("#")[0].strip() for ln in lines if ln.split("#")[0].strip()]


def test_pip_install_gives_the_evalcore_command(installed, tmp_path):
    script = installed / "bin" / "evalcore"
    assert script.exists()
    env = dict(os.environ, PYTHONPATH=str(installed))
    # run from an empty folder so the repository's own evalcore/ is not on the path
    got = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    want = subprocess.run([sys.executable, "-m", "evalcore", "--help"], capture_output=True, text=True, env=env,
                          cwd=tmp_path)
    assert got.returncode == 0 and want.returncode == 0, got.stderr + want.stderr
    assert got.stdout == want.stdout and "score" in got.stdout and "correlate" in got.stdout
    ver = subprocess.run([sys.executable, str(script), "--version"], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    import evalcore

    assert ver.stdout.strip() == f"evalcore {evalcore.__version__}"
    imported = subprocess.run([sys.executable, "-c", "import evalcore; print(evalcore.__file__)"],
                              capture_output=True, text=True, env=env, cwd=tmp_path).stdout.strip()
    assert Path(imported).resolve().is_relative_to(installed.resolve())


def test_installed_metadata_has_one_version_and_the_pinned_requirements(installed):
    import evalcore

    (meta,) = list(installed.glob("evalcore-*.dist-info"))
    assert meta.name == f"evalcore-{evalcore.__version__}.dist-info"
    text = (meta / "METADATA").read_text(encoding="utf-8")
    requires = [ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("Requires-Dist:")]
    assert requires == _requirements()
    assert (meta / "licenses" / "LICENSE").exists() or "License" in text


_CHILD = """
import multiprocessing as mp, sys
import numpy, pandas, scipy.stats, sacrebleu, plotly.graph_objects  # third-party, preloaded for speed
sys.path.insert(0, ROOT)


def one(name, queue):
    try:
        __import__(name)
        queue.put((name, None))
    except BaseException as exc:
        queue.put((name, f"{type(exc).__name__}: {exc}"))


assert not any(m == "evalcore" or m.startswith("evalcore.") for m in sys.modules)
ctx = mp.get_context("fork")
q, bad = ctx.Queue(), []
for n in NAMES:
    p = ctx.Process(target=one, args=(n, q))
    p.start()
    p.join()
    name, err = q.get()
    if err:
        bad.append(f"{name}: {err}")
print("\\n".join(bad))
sys.exit(1 if bad else 0)
"""


def test_every_module_imports_on_its_own():
    """Each evalcore module is the first evalcore module imported in a fresh (forked) process:
    no import cycle breaks any entry point."""
    import evalcore

    names = ["evalcore"] + [m.name for m in pkgutil.walk_packages(evalcore.__path__, "evalcore.")
                            if m.name != "evalcore.__main__"]
    code = f"ROOT = {str(ROOT)!r}\nNAMES = {names!r}\n" + _CHILD
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr[-3000:]
    assert len(names) > 50


def test_evalcore_never_imports_streamlit():
    code = ("import sys, pkgutil, importlib, evalcore\n"
            "for m in pkgutil.walk_packages(evalcore.__path__, 'evalcore.'):\n"
            "    if m.name != 'evalcore.__main__': importlib.import_module(m.name)\n"
            "print('streamlit' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "False"


def test_cache_keys_change_with_the_code(tmp_path):
    """A copy of the package with one edited module has another fingerprint, so the similarity
    cache key differs: results of other code are never served as current."""
    import shutil

    import evalcore

    copy = tmp_path / "evalcore"
    shutil.copytree(ROOT / "evalcore", copy, ignore=shutil.ignore_patterns("__pycache__"))
    probe = "import evalcore; print(evalcore.code_fingerprint(), evalcore.cache_version())"
    before = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path).stdout.split()
    with open(copy / "metrics" / "bleu.py", "a", encoding="utf-8") as fh:
        fh.write("\n# an edit\n")
    after = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path).stdout.split()
    assert before[0] == evalcore.code_fingerprint() and after[0] != before[0]
    assert before[1] == f"{evalcore.__version__}+{before[0]}"

    from evalcore.metrics.engine import tensors_cache_key
    from evalcore.metrics.base import get_metric
    from evalcore.io import load_dataset

    ds = load_dataset(str(ROOT / "sample_data" / "teaching_es_en"))
    key = tensors_cache_key(ds, get_metric("bleu"))
    saved = evalcore._FINGERPRINT
    try:
        evalcore._FINGERPRINT = after[0]
        assert tensors_cache_key(ds, get_metric("bleu")) != key
    finally:
        evalcore._FINGERPRINT = saved
