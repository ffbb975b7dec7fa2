"""The link to the Metric detective page, shown once the page is in the navigation (pages/registry.py)."""
from __future__ import annotations

import streamlit as st


def render(label: str = "Be a metric detective: break real translations and see which metric notices") -> None:
    from pages.registry import PAGES

    if any(p.slug == "detective" for p in PAGES):  # st.page_link refuses a page the navigation lacks
        st.page_link("pages/detective.py", label=label, icon="🕵️")
