"""Adaptive order of the Annotate queue and the Class page's "rankings settled" line (methods §27)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from class_pages import open_page as _open, saved_label as _label
from conftest import SAMPLE
from evalcore.analysis import adaptive as AD
from evalcore.analysis import annotate as A


def test_order_blocks_keeps_the_shared_head_and_sorts_blocks_by_weight():
    items = [("a", "1"), ("b", "1"), ("c", "2"), ("a", "3"), ("b", "3"), ("c", "4")]
    w = {"a": 1.0, "b": 0.5, "c": 2.0}
    # head: the first two; blocks after: seg 2 (c: 2.0), seg 3 (a+b: 1.5), seg 4 (c: 2.0): ties keep order
    assert AD.order_blocks(items, 2, w) == [("a", "1"), ("b", "1"), ("c", "2"), ("c", "4"), ("a", "3"), ("b", "3")]


def test_system_weights_put_unjudged_and_close_systems_first():
    rows = [{"system": s, "seg_id": str(g), "rater": "r", "score": m + g % 3}
            for s, m in (("far", 90.0), ("x", 50.0), ("y", 50.4)) for g in range(12)]
    j = pd.DataFrame(rows)
    j.loc[j.index[::5], "score"] += 1.0  # some noise: finite errors
    w = AD.system_weights(j, ["far", "x", "y", "new"])
    assert w["new"] == max(w.values())  # nobody judged it: its order is unknown
    assert min(w["x"], w["y"]) > w["far"]  # the close pair before the clear winner
    # by hand for the judged three: Σ_b Φ(−|Δ|/√(σa²+σb²)) σa²/(σa²+σb²) with the fit's numbers
    pool = AD.pool_from_items(j.groupby(["system", "seg_id"], as_index=False)["score"].mean())
    eff, se, _ = AD.fit(pool, np.ones(len(pool), dtype=bool))
    from scipy.stats import norm

    i = {s: k for k, s in enumerate(pool.systems)}
    hand = sum(norm.cdf(-abs(eff[i["x"]] - eff[i[b]]) / np.hypot(se[i["x"]], se[i[b]]))
               * se[i["x"]] ** 2 / (se[i["x"]] ** 2 + se[i[b]] ** 2) for b in ("far", "y"))
    assert w["x"] - hand == pytest.approx(0.5 * se[i["x"]] ** 2 / (se[i["x"]] ** 2 + 1e12), abs=1e-9)


def test_class_settled_by_hand():
    log = pd.DataFrame({"system": ["A", "B"] * 4, "seg_id": [str(g // 2) for g in range(8)], "rater": "r",
                        "score": [90.0, 10.0] * 4, "saved_at": [f"2026-01-01T00:00:0{g}Z" for g in range(8)]})
    s = AD.class_settled(log, 5)  # clusters {A} > {B} from the second judgement on: unchanged over 6
    assert s["settled"] and s["since"] == 6 and s["clusters"] == [["A"], ["B"]] and s["n"] == 8
    assert not AD.class_settled(log.iloc[:6], 5)["settled"]  # only 4 judgements of history


def _saved_sample(name="class"):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    stored = workspace.save(coll, name)
    return stored, lp


def test_adaptive_order_reorders_only_and_progress_still_counts(workspace_home):
    from evalcore.io import workspace

    name, lp = _saved_sample()
    plan = A.Plan(items_per_student=16, overlap=0.25, qc=True, seed=3)
    ds = workspace.load_saved(name)[lp]
    for t in [t for t in A.task_sequence(ds, plan, "bo", "da") if t.kind == "item"][:6]:  # a classmate's work
        A.save_judgement(name, lp, "bo", "da", t, 80.0 if t.system.startswith("s") else 20.0)
    ds = workspace.load_saved(name)[lp]
    adaptive = A.Plan(items_per_student=16, overlap=0.25, qc=True, seed=3, adaptive=True)
    plain = A.assignment(A.items(ds), 16, 0.25, 3, "ana")
    ordered = A.adaptive_items(ds, adaptive, plain, "da")
    assert sorted(ordered) == sorted(plain) and ordered != plain
    k = A.n_shared(16, 0.25)
    assert ordered[:k] == plain[:k]  # the shared items first, as before
    before = A.progress(ds, plan, "ana", "da")
    after = A.progress(ds, adaptive, "ana", "da")
    assert after.total == before.total and after.done == before.done == 0
    first = after.todo[0]
    A.save_judgement(name, lp, "ana", "da", first, 50.0)
    ds = workspace.load_saved(name)[lp]
    p = A.progress(ds, adaptive, "ana", "da")
    assert p.done == 1 and p.total == after.total and first not in p.todo
    assert A.plan_of(ds).adaptive is False
    A.save_plan(name, lp, adaptive)
    assert A.plan_of(workspace.load_saved(name)[lp]).adaptive is True


def test_teacher_turns_on_adaptive_order_and_class_page_says_if_settled(workspace_home):
    from evalcore.io import workspace

    name, lp = _saved_sample()
    label = _label(name)
    at = _open("annotate", {"dataset_label": label, "dataset_select": label})
    at.checkbox(key="ann_adaptive").check().run()
    at.button(key="ann_save_plan").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = workspace.load_saved(name)[lp]
    assert A.plan_of(ds).adaptive is True
    plan = A.plan_of(ds)
    for r in ("ana", "bo"):
        for t in [t for t in A.sequence(ds, plan, r, "da") if t.kind == "item"][:8]:
            A.save_judgement(name, lp, r, "da", t, float(len(t.text) % 100))
    label = _label(name)
    cls = _open("classroom", {"dataset_label": label, "dataset_select": label, "cls_protocol": "da"})
    assert not cls.error, [e.value for e in cls.error]
    lines = [m.value for m in list(cls.info) + list(cls.success) if "Rankings" in m.value]
    assert len(lines) == 1 and "16 judgements so far" in lines[0]


def test_settled_line_names_the_clusters_or_how_long_ago_they_changed():
    from evalcore.views.adaptive import settled_line

    yes = settled_line({"settled": True, "since": 12, "k": 10, "n": 30, "clusters": [["A", "B"], ["C"]]})
    assert yes.startswith("Rankings settled") and "{A, B} > {C}" in yes and "30 judgements so far" in yes
    no = settled_line({"settled": False, "since": 3, "k": 10, "n": 30, "clusters": [["A"], ["B"]]})
    assert no.startswith("Rankings not settled yet") and "3 judgements ago" in no
    assert settled_line({}) == ""
