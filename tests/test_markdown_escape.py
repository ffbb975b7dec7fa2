"""Markdown injection: user-derived names (language pair, systems,
references, raters) with link/image syntax, autolinks and e-mail addresses are shown literally
on every page: no Markdown element, alert, caption or widget label carries them unescaped.

The escaped form is checked twice: in the Markdown source (no link, image or autolink syntax
left), and after the character references are decoded (what the GFM autolink transform of the
browser's Markdown renderer sees: no ``http://``, ``www.`` or ``name@host.tld`` run left)."""
from __future__ import annotations

import html
import os
import re
import shutil

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE

APP = os.environ.get("EVALCORE_TEST_APP", str(ROOT / "app.py"))
LP = "es-en [lnk](http://evil.example) ![i](http://127.0.0.1:9/t.png)"
SYSTEMS = {"near-human": "http://evil.example/sys", "literal": "www.evil.example"}
REFS = {"ref-A": "x@evil.example"}
RATERS = {"rater1": "[rat](http://evil.example)"}
HOSTILE = [LP, *SYSTEMS.values(), *REFS.values(), *RATERS.values()]

# what a Markdown renderer with GFM would turn into a link or an image
MD_LINK = re.compile(r"\]\(|!\[|<https?:|https?://|www\.|[\w.+-]+@[\w-]+\.[\w.-]+", re.I)
# the GFM autolink-literal transform runs on decoded text (mdast-util-gfm-autolink-literal)
AUTOLINK = re.compile(r"(?:^|[\s(*_~])(?:https?://|www\.)|[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.I)


def test_escape_blocks_links_images_and_autolinks():
    from pages.common import md

    for s in HOSTILE + ["see https://a.example/x and mailto:x@y.example", "WWW.EVIL.EXAMPLE", "<http://x.example>"]:
        out = md(s)
        assert not MD_LINK.search(out), out
        shown = html.unescape(out)
        assert not AUTOLINK.search(shown), shown
        assert shown.replace("\u2060", "") == s  # the reader sees the same text
    assert md(None) == ""


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory):
    """A saved dataset whose lp, system, reference and rater names are hostile."""
    home = tmp_path_factory.mktemp("md-home")
    data = home / "src"
    data.mkdir()
    for f in SAMPLE.glob("*.tsv"):
        d = pd.read_csv(f, sep="\t", dtype=str, keep_default_na=False, quoting=3)
        d["lp"] = LP
        # a reference set named in a system column (judged or read as a control) is renamed too
        for col, mapping in (("system", {**SYSTEMS, **REFS}), ("ref_id", REFS), ("rater", RATERS)):
            if col in d:
                d[col] = d[col].replace(mapping)
        d.to_csv(data / f.name, sep="\t", index=False, quoting=3)
    old = {k: os.environ.get(k) for k in ("EVALCORE_HOME", "EVALCORE_CACHE")}
    os.environ["EVALCORE_HOME"], os.environ["EVALCORE_CACHE"] = str(home / "ws"), str(home / "cache")
    from evalcore.io import workspace
    from evalcore.io import load_collection

    workspace.save(load_collection(data), "hostile")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    yield label, data
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    shutil.rmtree(home, ignore_errors=True)


def _texts(at) -> list[tuple[str, str]]:
    """(element type, Markdown text) of everything Streamlit renders as Markdown: markdown,
    captions, alerts, titles, and the labels / help of widgets, expanders and tabs."""
    out = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            for field in ("body", "label", "help", "placeholder"):
                v = getattr(proto, field, None)
                if isinstance(v, str) and v:
                    out.append((getattr(node, "type", type(node).__name__), v))
            if getattr(node, "type", "") == "radio":
                out.extend(("radio option", o) for o in proto.options)
        for child in getattr(node, "children", {}).values():
            walk(child)
    walk(at._tree)
    return out


PAGES = ["data", "systems", "human_likeness", "queen_vs_human", "divergence", "judges", "likeness_vs_acceptability",
         "references", "experts", "compare"]


@pytest.mark.parametrize("page", PAGES)
def test_pages_show_hostile_names_literally(page, hostile_home):
    label = hostile_home[0]
    state = {"dataset_label": label, "dataset_select": label, "sys_boot": 0, "hl_boot": 0,
             "lva_boot": 0, "sys_metrics": ["bleu"], "hl_metrics": ["bleu", "chrf"], "lva_metrics": ["bleu", "chrf"],
             "div_metrics": ["bleu", "chrf"], "qvh_set": ["bleu", "chrf"], "rf_boot": 0, "rf_metrics": ["bleu"],
             "rf_gap": 0.0, "rc_boot": 0, "ex_gold": ["rater2"], "cmp_metrics": ["bleu"], "cmp_boot": 0,
             "cmp_ar": 0}
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    texts = _texts(at)
    leaks = [(kind, t) for kind, t in texts if MD_LINK.search(t) or AUTOLINK.search(html.unescape(t))]
    assert not leaks, leaks
    # the hostile names are shown (escaped), not dropped: the lp at least is on every page
    from pages.common import md

    shown = "\n".join(t for _, t in texts)
    assert md(LP) in shown or page != "data", page


def test_save_message_shows_hostile_names_literally(hostile_home):
    """The Data page's import: the save message quotes the stored name and the language pairs."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.text_input(key="import_path").set_value(str(hostile_home[1]))
    at.text_input(key="save_name").set_value("saved [x](http://evil.example)")
    at.button(key="do_import").click().run()
    assert not at.exception, [e.message for e in at.exception]
    saved = [s.value for s in at.success if "Saved as" in s.value]
    assert len(saved) == 1, [s.value for s in at.success]
    texts = _texts(at)
    leaks = [(kind, t) for kind, t in texts if MD_LINK.search(t) or AUTOLINK.search(html.unescape(t))]
    assert not leaks, leaks
    from pages.common import md

    assert md(LP) in saved[0]
