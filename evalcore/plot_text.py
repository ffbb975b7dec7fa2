"""Text for Plotly labels, importable without plotly.express (a page's first figure does not
wait for it): names from user data entity-escaped, since Plotly interprets a few HTML-like tags
in labels (it shows the entities as the literal characters). :mod:`evalcore.present.plots` uses it too:
the project's one label escaper."""
from __future__ import annotations

import html


def safe(v) -> str:
    return html.escape(str(v), quote=True)
