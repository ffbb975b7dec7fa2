"""Imports every built-in metric module once so that each registers itself, then the
plugins: packages that register metrics (syntactic metrics) or a provider of run-time ids
(``learned:NAME``, :func:`evalcore.metrics.base.register_provider`).

The built-in families import :mod:`evalcore.metrics.base`, which imports this module on the first
metric lookup. The packages above the metrics layer (syntax, learned, neural) are never named
here: each is declared as an entry point of the group :data:`GROUP` in ``pyproject.toml``
(``[project.entry-points."evalcore.metrics"]``), the standard declared list of plugins
(``importlib.metadata``), which a third-party package can join the same way. So the metrics layer
never imports upward by name (tests/test_layers.py checks it). A new metric family is one new
module in this folder: :func:`families` finds every module here that is not infrastructure
(:data:`INFRASTRUCTURE`) and does not start with ``_``.
"""
import importlib
import pkgutil
from pathlib import Path

#: the built-in families in the order their ids are registered (``metric_ids()`` keeps it);
#: a family module not listed here is found by :func:`families` and loaded after them
BUILTIN = ("bleu", "chrf", "ter", "nist", "gtm", "edit", "rouge", "charngram", "meteor")
#: modules of this folder that are not metric families
INFRASTRUCTURE = frozenset({"base", "engine", "levels", "tokenize", "byo", "kernels"})


def families() -> list[str]:
    """Every metric family module of evalcore/metrics/: :data:`BUILTIN` first, then any other
    module that is neither infrastructure nor private (sorted by name)."""
    here = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
            if not m.ispkg and not m.name.startswith("_") and m.name not in INFRASTRUCTURE]
    return list(BUILTIN) + sorted(m for m in here if m not in BUILTIN)


#: the entry-point group of metric plugins (pyproject.toml); entries load in name order
GROUP = "evalcore.metrics"
#: plugins in this layer, loaded after the built-in families and before the entry points
LOCAL_PLUGINS = (
    "evalcore.metrics.byo",  # scores stored in the data, ``stored:NAME`` (registered with a dataset)
)


def plugins() -> list[str]:
    """The modules declared in the :data:`GROUP` entry points, in the order of their names; a
    warning (not silence) when evalcore's own are missing: the package was not installed."""
    from importlib.metadata import entry_points

    found = sorted(entry_points(group=GROUP), key=lambda ep: ep.name)
    if not any(ep.value.startswith("evalcore.") for ep in found):
        import warnings

        warnings.warn("evalcore's metric plugins (syntactic, learned and neural metrics) are declared as "
                      f"entry points ({GROUP!r}) and none was found: install the package "
                      "(python -m pip install -e .) to register them", RuntimeWarning, stacklevel=2)
    return [ep.value for ep in found]


for _name in families():
    importlib.import_module(f"{__package__}.{_name}")
for _name in LOCAL_PLUGINS:
    importlib.import_module(_name)
for _name in plugins():
    importlib.import_module(_name)
