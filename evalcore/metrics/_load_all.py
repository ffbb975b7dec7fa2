"""Imports every built-in metric module once so that each registers itself, then the
plugins: packages above the metrics layer that register metrics (syntactic metrics) or a
provider of run-time ids (``learned:NAME``, :func:`evalcore.metrics.base.register_provider`).

Plugins are named, not imported, here: the metrics layer never imports upward (no import
cycle; tests/test_packaging.py checks it). A new metric package adds its module to
:data:`PLUGINS`.
"""
import importlib

from . import bleu, chrf, ter, nist, gtm, edit, rouge, charngram, meteor  # noqa: F401

PLUGINS = (
    "evalcore.syntax",  # TREE/GRAM/LEVEL/shallow syntax (no model load at import)
    "evalcore.learned.store",  # saved learned metrics, ``learned:NAME`` (lists a folder on demand)
    "evalcore.metrics.byo",  # scores stored in the data, ``stored:NAME`` (registered with a dataset)
    "evalcore.neural",  # comet:/cometkiwi:/xcomet:/metricx:/bleurt:/bertscore:/cosine: ids (no torch at import)
)

for _name in PLUGINS:
    importlib.import_module(_name)
