"""Text for Plotly labels, importable without plotly.express (a page's first figure does not
wait for it): names from user data entity-escaped, since Plotly interprets a few HTML-like tags
in labels (it shows the entities as the literal characters). The same escaping as
:func:`evalcore.plots._safe`."""
from __future__ import annotations

import html


def safe(v) -> str:
    return html.escape(str(v), quote=True)
