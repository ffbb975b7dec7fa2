"""Class page: the "rankings settled" line (evalcore.views.adaptive; methods §27)."""
from __future__ import annotations

import streamlit as st

from evalcore.views import adaptive as V
from pages.common import cached, md, query_settings


def render(ds, protocol: str) -> None:
    status = cached(V.settled_status, V.SettledQuery(ds.content_hash(), query_settings(), protocol), ds)
    line = V.settled_line(status)
    if line:
        (st.success if status["settled"] else st.info)(md(line))
