"""The layers of docs/architecture.md, checked on the source (ast, nothing imported): no import
cycle between files, and every module imports only from its own layer or the layers below,
module-level and function-level imports alike. A registry that names its plugins as strings
(``metrics/_load_all.py``, ``stats/registry.py``, ``learned/store.py``) is not an import."""
from __future__ import annotations

from pathlib import Path

from conftest import ROOT
from test_packaging import _imports

#: bottom to top, as drawn in docs/architecture.md; a module belongs to the layer of its
#: longest listed prefix
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("evalcore", "evalcore.core", "evalcore.human")),
    ("io", ("evalcore.io",)),
    ("metrics", ("evalcore.metrics",)),
    ("engines", ("evalcore.stats", "evalcore.qarla", "evalcore.syntax", "evalcore.learned", "evalcore.neural")),
    ("scoring", ("evalcore.scoring",)),
    ("analysis", ("evalcore.analysis",)),
    ("present", ("evalcore.present",)),
    ("views", ("evalcore.views",)),
    ("commands", ("evalcore.commands", "evalcore.cli", "evalcore.__main__")),
]


def layer_of(module: str) -> int | None:
    best, level = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, level = len(p), i
    return level


def file_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one file (Tarjan), each a cycle of
    imports between files."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a higher layer, and every module no layer lists."""
    bad = []
    for mod in sorted(graph):
        here = layer_of(mod)
        if here is None:
            bad.append(f"{mod} is in no layer (add its package to LAYERS and docs/architecture.md)")
            continue
        for target in sorted(graph[mod]):
            there = layer_of(target)
            if there is not None and there > here:
                bad.append(f"{mod} ({LAYERS[here][0]}) imports {target} ({LAYERS[there][0]})")
    return bad


def test_no_import_cycle_between_files():
    cycles = file_cycles(_imports(ROOT / "evalcore"))
    assert cycles == [], "import cycles between files:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_every_module_imports_only_its_own_layer_or_below():
    bad = layer_violations(_imports(ROOT / "evalcore"))
    assert bad == [], "imports against the layer order of docs/architecture.md:\n" + "\n".join(bad)


def test_the_layers_are_those_of_the_architecture_page():
    """Every package of the table is drawn in docs/architecture.md, and every package of
    evalcore/ is in the table."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = {p for _, prefixes in LAYERS for p in prefixes}
    for p in listed - {"evalcore", "evalcore.cli", "evalcore.__main__"}:
        assert p.replace(".", "/") + "/" in doc, f"{p} is not drawn in docs/architecture.md"
    packages = {f"evalcore.{d.name}" for d in (ROOT / "evalcore").iterdir() if (d / "__init__.py").exists()}
    top_modules = {f"evalcore.{f.stem}" for f in (ROOT / "evalcore").glob("*.py") if f.stem != "__init__"}
    assert packages | top_modules <= listed, sorted((packages | top_modules) - listed)
    assert top_modules == {"evalcore.cli", "evalcore.__main__"}, "a new module belongs in a layer's folder"


def _package(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "evalcore"
    for name, text in files.items():
        path = pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in [path.parent, *path.parent.parents]:
            if folder == root:
                break
            (folder / "__init__.py").touch()
        path.write_text(text)
    return pkg


def test_the_checks_find_a_planted_cycle_and_upward_import(tmp_path):
    """On a made-up package: a function-level upward import (metrics -> analysis) and a cycle
    closed inside a function body are both reported; the same files without them are clean."""
    clean = {
        "core/dataset.py": "",
        "metrics/base.py": "from ..core import dataset\n",
        "metrics/bleu.py": "from .base import x\n",
        "analysis/compare.py": "from ..metrics.bleu import y\nfrom ..core.dataset import z\n",
        "metrics/_load_all.py": "import importlib\nimportlib.import_module('evalcore.metrics.bleu')\n",
    }
    pkg = _package(tmp_path / "clean", clean)
    graph = _imports(pkg)
    assert file_cycles(graph) == [] and layer_violations(graph) == []
    assert graph["evalcore.analysis.compare"] == {"evalcore.metrics.bleu", "evalcore.core.dataset"}

    planted = dict(clean)
    planted["metrics/base.py"] = "from ..core import dataset\n\n\ndef f():\n    from . import bleu\n"
    planted["metrics/bleu.py"] = "from .base import x\n\n\ndef g():\n    from ..analysis.compare import h\n"
    graph = _imports(_package(tmp_path / "planted", planted))
    assert file_cycles(graph) == [["evalcore.analysis.compare", "evalcore.metrics.base", "evalcore.metrics.bleu"]]
    assert layer_violations(graph) == ["evalcore.metrics.bleu (metrics) imports evalcore.analysis.compare (analysis)"]


def named_upward(root: Path) -> list[str]:
    """Every module name written as a string (``"evalcore.x.y"``, what a registry imports by name)
    that lies in a higher layer than the module writing it: a registry reaching up."""
    import ast
    import re

    bad = []
    for f in sorted(root.rglob("*.py")):
        mod = ".".join(("evalcore",) + f.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        here = layer_of(mod)
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(r"evalcore(\.\w+)+", node.value):
                there = layer_of(node.value)
                if here is not None and there is not None and there > here:
                    bad.append(f"{mod} ({LAYERS[here][0]}) names {node.value} ({LAYERS[there][0]})")
    return bad


#: registries that still reach up by name: none (the metric packages above the metrics layer are
#: entry points declared in pyproject.toml; see docs/architecture.md); it must stay empty
STILL_NAMED_UPWARD: list[str] = []


def test_registries_do_not_name_upper_layers():
    """The statistic registry lists its plugins in stats/plugins/ (SPA there), the commands are a
    declared tuple of their own package, the metric plugins are entry points: no registry names a
    module of a higher layer."""
    assert sorted(named_upward(ROOT / "evalcore")) == sorted(STILL_NAMED_UPWARD)
    from evalcore.stats import registry

    assert all(layer_of(p) is not None and layer_of(p) <= layer_of("evalcore.stats.registry")
               for p in registry.PLUGINS), registry.PLUGINS


def test_named_upward_finds_a_planted_name(tmp_path):
    pkg = _package(tmp_path / "named", {"stats/registry.py": "PLUGINS = ('evalcore.analysis.metatask',)\n",
                                        "stats/ok.py": "PLUGINS = ('evalcore.stats.plugins.spa',)\n"})
    assert named_upward(pkg) == ["evalcore.stats.registry (engines) names evalcore.analysis.metatask (analysis)"]


def test_metric_plugins_are_declared_entry_points_not_names():
    """The packages above the metrics layer that register metrics are the entry points of
    pyproject.toml's group, all loaded on the first lookup (their ids registered)."""
    import tomllib
    from importlib.metadata import entry_points

    import evalcore.metrics._load_all as load_all
    from evalcore.metrics.base import metric_ids

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    declared = declared[load_all.GROUP]
    installed = {ep.name: ep.value for ep in entry_points(group=load_all.GROUP)}
    assert {k: v for k, v in installed.items() if k in declared} == declared, \
        "the installed entry points differ from pyproject.toml: reinstall (python -m pip install -e .)"
    assert load_all.plugins()[:len(declared)] == [declared[k] for k in sorted(declared)]
    assert all(layer_of(v) > layer_of("evalcore.metrics.base") for v in declared.values())
    ids = metric_ids()
    assert any(i.startswith("tree-") for i in ids)  # evalcore.syntax registered its ids
