"""The Annotate and Class pages under AppTest: a saved dataset's sidebar label and a page
opened with session state (shared by the class-annotation tests)."""
from __future__ import annotations

from conftest import ROOT


def saved_label(name: str) -> str:
    """The sidebar's label of saved dataset ``name``."""
    from evalcore.io import workspace

    return next(f"{m['name']} (saved {m.get('saved_at') or '?'})" for m in workspace.list_saved() if m["name"] == name)


def open_page(page: str, state: dict):
    """``pages/<page>.py`` run under AppTest after the app's first run with ``state`` in the session."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at
