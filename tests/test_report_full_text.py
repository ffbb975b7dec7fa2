"""A validation report shows every message in full (the first REPORT_LINES of them), not cut to a
table cell's width: the whole text, file and line included, is on the page."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page():
    import sys

    sys.path.insert(0, ".")
    from evalcore.core.problems import Problem, Report
    from pages.common import show_report

    long = "the reference file has a segment whose text is " + "very " * 60 + "long and ends here"
    show_report(Report([Problem("error", "refs/refA.txt", 17, long),
                        Problem("warning", "outputs.tsv", 3, "an unknown system 'x'")]), key="t")


def test_every_message_is_shown_in_full():
    from conftest import ROOT

    at = AppTest.from_function(_page, default_timeout=60)
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        at.run()
    finally:
        os.chdir(cwd)
    assert not at.exception, [e.message for e in at.exception]
    text = " ".join(m.value for m in at.markdown)
    import html

    text = html.unescape(text).replace("\u2060", "")
    assert "ERROR: refs/refA.txt, line 17: the reference file has a segment" in text
    assert "long and ends here" in text
    assert "WARNING: outputs.tsv, line 3: an unknown system 'x'" in text
