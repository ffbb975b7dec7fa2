"""Sections a page shows beside its own (layout only): each module exposes ``render(...)`` and
computes only through ``pages.common.cached`` with a view function of ``evalcore.views``."""
