"""Each page states its primary answer first, in the sentence the commands print (methods §21):
the Systems page "which system is best", the Compare page "does B beat A", the Metrics task page
"which metric is best". The reference is evalcore.analysis.verdict called with the page's own
choices (its recipes are tested against scipy and WMT's procedure in tests/test_verdict.py)."""
from __future__ import annotations

import html

from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE

APP = str(ROOT / "app.py")


def _open(page: str, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for k, v in (state or {}).items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, (page, [e.message for e in at.exception])
    assert not at.error, [e.value for e in at.error]
    return at


def _boxes(at, title: str) -> list[str]:
    boxes = [html.unescape(s.value).replace("\u2060", "") for s in at.success]
    return [b for b in boxes if title in b]


def test_systems_page_states_the_best_system_first():
    from evalcore.analysis.verdict import best_system
    from evalcore.io import load_dataset

    at = _open("systems", {"sys_boot": 0})
    ds = load_dataset(SAMPLE)
    crit = list(at.multiselect(key="sys_criteria").value)[0]  # the page's first criterion (the default: every one)
    want = best_system(ds, crit)
    (box,) = _boxes(at, "Best system:")
    assert box == f"**Best system:** {want.sentence}"
    # the alternatives that answer differently are listed with their reasons
    differ = [a for a in want.alternatives if not a.agrees]
    text = html.unescape(" ".join(m.value for m in at.markdown)).replace("\u2060", "")
    for a in differ:
        assert a.reason in text


def test_compare_page_states_whether_b_beats_a():
    from evalcore.analysis.verdict import a_beats_b
    from evalcore.io import load_dataset

    at = _open("compare", {"cmp_boot": 100, "cmp_ar": 100})
    a, b = at.selectbox(key="cmp_a").value, at.selectbox(key="cmp_b").value
    crit = list(at.multiselect(key="cmp_criteria").value)[0]
    want = a_beats_b(load_dataset(SAMPLE), a, b, crit)
    (box,) = _boxes(at, "Does B beat A?")
    assert box == f"**Does B beat A?** {want.sentence}"


def test_metatask_page_states_the_best_metric():
    from evalcore.analysis.metatask import run_metatask
    from evalcore.analysis.verdict import metatask_verdict
    from evalcore.io import load_collection
    from evalcore.scoring.defaults import default_criterion

    at = _open("metatask", {"mt_metrics": ["bleu", "chrf"]})
    coll = load_collection(SAMPLE)
    crit = default_criterion(next(iter(coll.values())))
    res, _, _ = run_metatask(coll, "wmt24", metrics=["bleu", "chrf"], human=crit)
    want = metatask_verdict(res.table(), "wmt24")
    (box,) = _boxes(at, "Best metric:")
    assert box == f"**Best metric:** {want.sentence}"


def test_campaign_page_states_the_best_metric_over_the_pairs():
    from evalcore.analysis.campaign import ALL, campaign
    from evalcore.analysis.verdict import best_metric
    from evalcore.io import load_collection

    at = _open("campaign", {"camp_metrics": ["bleu", "chrf"]})
    rank_by = at.selectbox(key="camp_rank").value
    res = campaign(load_collection(SAMPLE), ["bleu", "chrf"], None)
    pooled = res.correlations[res.correlations["lp"] == ALL]
    top = pooled.sort_values([rank_by, "metric"], ascending=[False, True]).iloc[0]["metric"]
    (box,) = _boxes(at, "Best metric:")
    assert box.startswith(f"**Best metric:** {top} is the best metric by system-level {rank_by}")
    want = best_metric(pooled[["metric", rank_by]].rename(columns={rank_by: "value"}),
                       f"system-level {rank_by} over 1 language pair(s)")
    assert box == f"**Best metric:** {want.sentence}"
