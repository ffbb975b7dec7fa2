"""The project's own documents cover what the code does."""
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
    from evalcore.metrics.byo import external_ids

    # run-time ids other tests of this process may have registered are not evalcore's metrics:
    # a user's given or stored scores (external) and neural models named by a local path
    given = set(external_ids())
    ids = [m for m in metric_ids() if not m.startswith("learned:") and m not in given and "/" not in m]
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

    from evalcore.present.glossary import GLOSSARY, define, entries

    headings = set(re.findall(r"^##+ (\d+(?:\.\d+)?)[ .]", METHODS, flags=re.M))
    for term, text in GLOSSARY.items():
        assert 20 < len(text) < 400, term
        for sec in re.findall(r"methods §(\d+(?:\.\d+)?)", text):
            assert sec in headings, (term, sec)
    assert define("king") == GLOSSARY["KING"]
    assert [t for t, _ in entries(["ORANGE", "QUEEN"])] == ["ORANGE", "QUEEN"]
    with pytest.raises(KeyError, match="no glossary entry"):
        define("nonsense")


def test_no_reference_to_files_outside_the_repository_in_what_users_read():
    """Code, pages and docs cite docs/methods.md and the papers by author and year, never the
    team's external spec or 'seed 00N' (tests may cite the spec's worked examples)."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    bad = re.compile(r"metaeval-spec|shared/docs|shared/seeds|\bseeds? 00[0-4]\b|\bspec\s+§")
    hits = []
    for name in tracked:
        if name.startswith("tests/") or not name.endswith((".py", ".md", ".toml")):
            continue
        path = ROOT / name
        if not path.exists():
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if bad.search(line):
                hits.append(f"{name}:{i}: {line.strip()[:80]}")
    assert not hits, "\n".join(hits)


def test_data_page_has_the_intro_and_every_page_a_terms_box():
    from streamlit.testing.v1 import AppTest

    from evalcore.present.glossary import define

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert "What is this?" in labels and "📖 Terms on this page" in labels
    intro = next(e for e in at.expander if e.label == "What is this?")
    assert intro.proto.expanded  # open on the bundled sample, where a newcomer starts
    assert any("finds out where automatic machine-translation metrics agree" in m.value for m in at.markdown)
    assert any("reference set" in m.value and "One human translation" in m.value for m in at.markdown)
    assert define("reference set").startswith("One human translation")
    # every page shows the box (static: the call follows the page title), but a page whose
    # registry entry opts out (glossary terms are optional for a new page)
    from pages.registry import PAGES

    missing = [p.path for p in PAGES if p.glossary and "\nterms(" not in (ROOT / p.path).read_text(encoding="utf-8")]
    assert not missing, missing
    assert not [p.path for p in PAGES if not p.glossary and "\nterms(" in (ROOT / p.path).read_text(encoding="utf-8")]


def test_data_page_intro_is_closed_on_the_users_own_data(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from evalcore.io import workspace
    from evalcore.io import load_collection

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    name = workspace.save(load_collection(ROOT / "sample_data" / "teaching_es_en"), "mine")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["dataset"] = name
    at.run()
    assert not at.exception
    assert at.session_state["dataset_label"].startswith("mine (saved")
    intro = next(e for e in at.expander if e.label == "What is this?")
    assert not intro.proto.expanded
