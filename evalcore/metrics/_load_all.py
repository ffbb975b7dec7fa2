"""Imports every built-in metric module once so that each registers itself."""
from . import bleu, chrf, ter, nist, gtm, edit, rouge, charngram, meteor  # noqa: F401
from .. import syntax  # noqa: F401  (TREE/GRAM/LEVEL/shallow syntax; no model load at import)
