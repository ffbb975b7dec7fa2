"""Streamlit entry point: ``streamlit run app.py``. Opens on the bundled sample dataset."""
from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="evalcore — MT metric meta-evaluation", page_icon="📏", layout="wide")

PAGES = [
    st.Page("pages/data.py", title="Data", icon="🗂️", default=True),
]
# Pages added by later work register here in this order (each file exists or is skipped).
_OPTIONAL = [
    ("pages/systems.py", "Systems", "📊"),
    ("pages/campaign.py", "Campaign", "🌍"),
    ("pages/metatask.py", "Metrics task", "🏆"),
    ("pages/compare.py", "Compare two systems", "🆚"),
    ("pages/human_likeness.py", "Human-likeness", "👑"),
    ("pages/likeness_vs_acceptability.py", "Likeness vs acceptability", "🎯"),
    ("pages/queen_vs_human.py", "QUEEN vs human", "👸"),
    ("pages/divergence.py", "Divergence browser", "🔎"),
    ("pages/judges.py", "Judges", "⚖️"),
    ("pages/references.py", "References & comprehension", "📚"),
    ("pages/experts.py", "Experts vs non-experts", "🏅"),
    ("pages/learned.py", "Learned metrics", "🧠"),
    ("pages/learn.py", "Learn (guided tour)", "🎓"),
]
from pathlib import Path  # noqa: E402

_root = Path(__file__).resolve().parent
for path, title, icon in _OPTIONAL:
    if (_root / path).exists():
        PAGES.append(st.Page(path, title=title, icon=icon))

from pages.common import prefetch_plotly, sidebar_dataset  # noqa: E402

nav = st.navigation(PAGES)
st.session_state["_shell_ran"] = True
_wanted = st.session_state.pop("_wanted_page", None)  # a deep link that arrived before the shell ran
if _wanted and (_root / _wanted).exists():
    st.switch_page(_wanted, query_params=st.session_state.pop("_wanted_query", None) or None)
prefetch_plotly()  # first run of a session: the browser loads Plotly while the page computes
st.session_state["dataset"] = sidebar_dataset()
nav.run()
