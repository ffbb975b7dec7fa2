"""Imports every built-in metric module once so that each registers itself, then the
plugins: packages above the metrics layer that register metrics (syntactic metrics) or a
provider of run-time ids (``learned:NAME``, :func:`evalcore.metrics.base.register_provider`).

Every module is named, not imported, here: the built-in families import
:mod:`evalcore.metrics.base`, which imports this module on the first metric lookup, and the
plugins sit above the metrics layer, which never imports upward (no import cycle between
files; tests/test_layers.py checks it). A new metric family adds its module to
:data:`BUILTIN`, a new metric package its module to :data:`PLUGINS`.
"""
import importlib

BUILTIN = ("bleu", "chrf", "ter", "nist", "gtm", "edit", "rouge", "charngram", "meteor")

PLUGINS = (
    "evalcore.syntax",  # TREE/GRAM/LEVEL/shallow syntax (no model load at import)
    "evalcore.learned.store",  # saved learned metrics, ``learned:NAME`` (lists a folder on demand)
    "evalcore.metrics.byo",  # scores stored in the data, ``stored:NAME`` (registered with a dataset)
    "evalcore.neural",  # comet:/cometkiwi:/xcomet:/metricx:/bleurt:/bertscore:/cosine: ids (no torch at import)
)

for _name in BUILTIN:
    importlib.import_module(f"{__package__}.{_name}")
for _name in PLUGINS:
    importlib.import_module(_name)
