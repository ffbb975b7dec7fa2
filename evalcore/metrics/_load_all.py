"""Imports every built-in metric module once so that each registers itself."""
from . import bleu, chrf, ter, nist, gtm, edit, rouge, charngram, meteor  # noqa: F401
