"""The project's own documents cover what the code does (issue 15)."""
from __future__ import annotations

import re

from conftest import ROOT

METHODS = (ROOT / "docs" / "methods.md").read_text(encoding="utf-8")

# ids whose last part is a parser label or a number are documented by their pattern
PATTERNS = [(re.compile(r"^tree-.+$"), "`tree-<relation>`"), (re.compile(r"^gramf-.+$"), "`gramf-<tag>`"),
            (re.compile(r"^gram-.+$"), "`gram-<upos>`"), (re.compile(r"^level-\d$"), "`level-<n>`"),
            (re.compile(r"^charngram-([prf])\d$"), "`charngram-{}<n>`"),
            (re.compile(r"^sp-pos-([pr])\d$"), "`sp-pos-{}<n>`")]


def _documented(mid: str) -> bool:
    if f"`{mid}`" in METHODS:
        return True
    for rx, pattern in PATTERNS:
        m = rx.match(mid)
        if m:
            return pattern.format(*m.groups()) in METHODS
    return False


def test_methods_covers_every_metric_id():
    from evalcore.metrics.base import metric_ids

    ids = [m for m in metric_ids() if not m.startswith("learned:")]
    assert len(ids) > 100
    missing = [m for m in ids if not _documented(m)]
    assert not missing, f"docs/methods.md does not document: {missing}"


def test_methods_sections_cited_in_code_exist():
    """Every 'methods §N.M' the code cites is a heading of docs/methods.md."""
    headings = set(re.findall(r"^##+ (\d+(?:\.\d+)?)[ .]", METHODS, flags=re.M))
    cited = set()
    for path in list((ROOT / "evalcore").rglob("*.py")) + list((ROOT / "pages").glob("*.py")):
        cited |= set(re.findall(r"methods §(\d+(?:\.\d+)?)", path.read_text(encoding="utf-8")))
    assert not (cited - headings), f"cited but absent from docs/methods.md: {sorted(cited - headings)}"


def test_glossary_cites_existing_methods_sections_and_knows_its_terms():
    import pytest

    from evalcore.glossary import GLOSSARY, define, entries

    headings = set(re.findall(r"^##+ (\d+(?:\.\d+)?)[ .]", METHODS, flags=re.M))
    for term, text in GLOSSARY.items():
        assert 20 < len(text) < 400, term
        for sec in re.findall(r"methods §(\d+(?:\.\d+)?)", text):
            assert sec in headings, (term, sec)
    assert define("king") == GLOSSARY["KING"]
    assert [t for t, _ in entries(["ORANGE", "QUEEN"])] == ["ORANGE", "QUEEN"]
    with pytest.raises(KeyError, match="no glossary entry"):
        define("nonsense")
