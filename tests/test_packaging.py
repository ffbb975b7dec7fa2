"""The package installs (``pip install .``) with an ``evalcore`` command equal to
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
    # the optional extras (neural) are listed with their marker; the base install is requirements.txt
    assert [r for r in requires if "extra ==" not in r] == _requirements()
    assert 'torch==2.13.0; extra == "neural"' in requires
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


# ---- no import cycles among evalcore's packages ----------------------------
def _imports(root: Path) -> dict[str, set[str]]:
    """Every ``evalcore`` module under ``root`` (the package folder) → the evalcore modules it
    imports, module-level and inside functions, relative imports resolved."""
    import ast

    def name_of(path: Path) -> str:
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    files = {name_of(p): p for p in root.rglob("*.py")}
    top = root.name
    graph = {}
    for mod, path in files.items():
        here = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                # "from pkg import mod" imports the module pkg.mod; "from mod import name" imports mod
                found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names}
        graph[mod] = {m for m in found if (m == top or m.startswith(top + ".")) and m in files and m != mod}
    return graph


def _package_cycles(root: Path) -> list[str]:
    """Cycles among the packages and top-level modules (``evalcore.metrics``, ``evalcore.cli``,
    …), each written with the module imports that close it. Brute force: for every edge a→b,
    is a reachable from b?"""
    graph = _imports(root)
    unit = lambda m: ".".join(m.split(".")[:2])  # noqa: E731
    edges: dict[tuple[str, str], list[str]] = {}
    for mod, targets in graph.items():
        for t in targets:
            if unit(mod) != unit(t):
                edges.setdefault((unit(mod), unit(t)), []).append(f"{mod} imports {t}")
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)

    def path(src, dst):
        seen, stack = {src: None}, [src]
        while stack:
            n = stack.pop()
            if n == dst:
                out = [n]
                while seen[out[-1]] is not None:
                    out.append(seen[out[-1]])
                return out[::-1]
            for m in succ.get(n, ()):
                if m not in seen:
                    seen[m] = n
                    stack.append(m)
        return None

    cycles = set()
    for a, b in edges:
        back = path(b, a)
        if back:
            ring = [a] + back
            steps = [edges[(x, y)][0] for x, y in zip(ring, ring[1:])]
            cycles.add(" -> ".join(ring) + "  (" + "; ".join(steps) + ")")
    return sorted(cycles)


def test_no_import_cycles_among_evalcore_packages():
    """metrics never imports learned or syntax (they register through
    ``metrics.base.register_provider`` and the plugin list of ``metrics/_load_all.py``), and
    no package imports the CLI; checked over module-level and function-level imports."""
    cycles = _package_cycles(ROOT / "evalcore")
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_human_judgements_package_stands_alone():
    """evalcore/human/ (normalise, mqm, agreement, ranking, hter, scores) imports nothing of
    evalcore but the result objects (evalcore/core/results.py: pandas and the standard library
    only), and inside it the modules import one way (docs/architecture.md):
    scores → normalise, mqm; normalise, ranking → agreement."""
    graph = _imports(ROOT / "evalcore")
    human = {m: t for m, t in graph.items() if m.startswith("evalcore.human")}
    assert set(human) == {"evalcore.human", *(f"evalcore.human.{n}" for n in
                                               ("normalise", "mqm", "agreement", "ranking", "hter", "scores"))}
    assert {t for ts in human.values() for t in ts if not t.startswith("evalcore.human")} <= {"evalcore.core.results"}
    edges = {(m.rsplit(".", 1)[1], t.rsplit(".", 1)[1]) for m, ts in human.items() for t in ts
             if t.startswith("evalcore.human")}
    assert edges == {("scores", "normalise"), ("scores", "mqm"), ("normalise", "agreement"), ("ranking", "agreement")}
    assert not (ROOT / "evalcore" / "judges.py").exists()  # replaced, no shim


def test_the_cycle_check_finds_cycles(tmp_path):
    """The checker itself, on a made-up package: a function-level relative import closing
    a → b → a is found, an import inside one package is not a cycle."""
    pkg = tmp_path / "evalcore"
    for folder in ("a", "b", "c"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("from ..b.y import f\nfrom . import z\n")
    (pkg / "a" / "z.py").write_text("from .x import f\n")
    (pkg / "b" / "y.py").write_text("def f():\n    from ..a import x\n")
    (pkg / "c" / "w.py").write_text("import evalcore.a.x\n")
    cycles = _package_cycles(pkg)
    assert len(cycles) == 2 and all("evalcore.b.y imports evalcore.a.x" in c for c in cycles), cycles
    (pkg / "b" / "y.py").write_text("def f():\n    import importlib\n    importlib.import_module('evalcore.a.x')\n")
    assert _package_cycles(pkg) == []


def test_metric_providers_register_ids_on_demand():
    """``register_provider``: the registry asks a provider for ids under its prefix (how saved
    ``learned:NAME`` metrics are found without metrics importing evalcore.learned)."""
    from evalcore.metrics import base
    from evalcore.metrics.bleu import BLEU

    asked = []

    def ensure(key):  # gets the id as written (a learned:DIR/NAME.json path keeps its case)
        asked.append(key)
        if key.lower() == "fake:yes":
            base.register(key, BLEU)
            return True
        return False

    base.register_provider("fake:", ensure, lambda: ensure("fake:yes") if "fake:yes" not in base._REGISTRY else None)
    try:
        assert isinstance(base.get_metric("FAKE:yes"), BLEU) and asked == ["FAKE:yes"]
        with pytest.raises(KeyError, match="unknown metric 'fake:no'"):
            base.get_metric("fake:no")
        base.unregister("fake:yes")
        assert "fake:yes" in base.metric_ids()  # register_all of every provider
        assert "learned:" in base._PROVIDERS  # the learned store registered itself via the plugin list
    finally:
        base._PROVIDERS.pop("fake:", None)
        base.unregister("fake:yes")


def test_python_m_evalcore_works_beside_a_folder_named_evalcore(tmp_path):
    """``python -m evalcore`` from a folder holding a checkout named ``evalcore`` (a folder without
    ``__init__.py``, which Python would take for a namespace package) runs the real package and
    says which folder it passed over."""
    import subprocess
    import sys

    import evalcore

    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"}
    probe = subprocess.run([sys.executable, "-c", "import evalcore.cli"], cwd=tmp_path, env=env, capture_output=True)
    if probe.returncode:
        pytest.skip("evalcore is not installed (the README's commands install it, editable)")
    (tmp_path / "evalcore" / "docs").mkdir(parents=True)
    r = subprocess.run([sys.executable, "-m", "evalcore", "--version"], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"evalcore {evalcore.__version__}"
    assert "shadows the evalcore package" in r.stderr and str(tmp_path / "evalcore") in r.stderr


def test_mypy_checks_the_whole_package_strict_on_the_core():
    """scripts/test.sh runs `python -m mypy`: its configuration names the whole package, and the
    strict flags cover the data model, the statistics and the metric contract."""
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert conf["files"] == ["evalcore/"]
    strict = [o for o in conf["overrides"] if o.get("disallow_untyped_defs")]
    modules = {m for o in strict for m in o["module"]}
    assert {"evalcore.core.*", "evalcore.stats.*", "evalcore.metrics.base"} <= modules
    assert not any(o.get("ignore_errors") for o in conf["overrides"] if any(str(m).startswith("evalcore") for m in o["module"]))
    assert "python -m mypy" in (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
