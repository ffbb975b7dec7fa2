"""Imports every built-in metric module once so that each registers itself, then the
plugins: packages above the metrics layer that register metrics (syntactic metrics) or a
provider of run-time ids (``learned:NAME``, :func:`evalcore.metrics.base.register_provider`).

Every module is named, not imported, here: the built-in families import
:mod:`evalcore.metrics.base`, which imports this module on the first metric lookup, and the
plugins sit above the metrics layer, which never imports upward (no import cycle between
files; tests/test_layers.py checks it). A new metric family is one new module in this folder:
:func:`families` finds every module here that is not infrastructure (:data:`INFRASTRUCTURE`)
and does not start with ``_``; a new metric package (above the metrics layer) adds its module
to :data:`PLUGINS`.
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


PLUGINS = (
    "evalcore.syntax",  # TREE/GRAM/LEVEL/shallow syntax (no model load at import)
    "evalcore.learned.store",  # saved learned metrics, ``learned:NAME`` (lists a folder on demand)
    "evalcore.metrics.byo",  # scores stored in the data, ``stored:NAME`` (registered with a dataset)
    "evalcore.neural",  # comet:/cometkiwi:/xcomet:/metricx:/bleurt:/bertscore:/cosine: ids (no torch at import)
)

for _name in families():
    importlib.import_module(f"{__package__}.{_name}")
for _name in PLUGINS:
    importlib.import_module(_name)
