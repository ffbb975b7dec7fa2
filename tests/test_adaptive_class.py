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
    w = {"2": 1.0, "3": 1.5, "4": 1.0}
    # head: the first two; blocks after: seg 3 (1.5), then seg 2 and seg 4 (1.0 each): ties keep their order
    assert AD.order_blocks(items, 2, w) == [("a", "1"), ("b", "1"), ("a", "3"), ("b", "3"), ("c", "2"), ("c", "4")]


def test_pair_block_weights_by_brute_force():
    from scipy.stats import norm

    rng = np.random.default_rng(0)
    systems, segs = ["far", "x", "y", "new"], [str(g) for g in range(12)]
    true = {"far": 90.0, "x": 50.0, "y": 50.4, "new": 60.0}
    population = [(s, g) for g in segs for s in systems]
    rows = [{"system": s, "seg_id": g, "rater": "r", "score": true[s] + int(g) % 3 + rng.normal(0, 2)}
            for s in ("far", "x", "y") for g in segs[:8]]
    rows += [{"system": s, "seg_id": g, "rater": "r", "score": true[s] + int(g) % 3 + rng.normal(0, 2)}
             for s in ("x", "y") for g in segs[8:]]  # x and y on every segment: their difference is known
    j = pd.DataFrame(rows)
    blocks = {"8": ["far", "new"], "9": ["far"], "3": ["new"], "10": ["x"]}
    w = AD.pair_block_weights(j, population, blocks)
    # brute force: the fit of the judged cells, then per pair the paired differences' sd · √((1 − n/G)/n)
    pool = AD.pool_from_items(j[["system", "seg_id", "score"]])
    eff = dict(zip(pool.systems, AD.fit(pool, np.ones(len(pool), dtype=bool), iters=2000)[0]))
    f = j.pivot(index="seg_id", columns="system", values="score")

    def P(a, b):
        if "new" in (a, b):
            return 0.5  # never judged
        d = (f[a] - f[b]).dropna()
        n = len(d)
        if n == 12:
            return 0.0
        return norm.cdf(-abs(eff[a] - eff[b]) / (d.std(ddof=1) * np.sqrt((1 - n / 12) / n)))

    # seg 8: x and y judged there already; the block pairs far and new with each other and with x, y
    assert w["8"] == pytest.approx(P("far", "new") + P("far", "x") + P("far", "y") + P("new", "x")
                                   + P("new", "y"), abs=1e-6)
    assert w["9"] == pytest.approx(P("far", "x") + P("far", "y"), abs=1e-6)
    assert w["3"] == pytest.approx(P("new", "far") + P("new", "x") + P("new", "y"), abs=1e-6)
    assert w["10"] == 0.0  # x's only pair there, with y, is fully paired: P = 0
    assert P("x", "y") == 0.0 and w["3"] > w["9"]
    empty = AD.pair_block_weights(j.iloc[:0], population, {"1": ["x", "y", "far"], "2": ["x"]})
    assert empty == {"1": 1.5, "2": 0.0}  # before any judgement: 0.5 per pair the block makes


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


def test_ranking_screens_get_the_adaptive_order_too(workspace_home):
    from evalcore.io import workspace

    name, lp = _saved_sample()
    plain = A.Plan(items_per_student=10, overlap=0.2, qc=False, seed=5, rank_outputs=3)
    ds = workspace.load_saved(name)[lp]
    for t in A.rank_sequence(ds, plain, "bo")[:6]:  # a classmate's rankings: alphabetical order wins
        A.save_ranking(name, lp, "bo", t, [sorted(t.systems).index(s) + 1 for s in t.systems])
    ds = workspace.load_saved(name)[lp]
    adaptive = A.Plan(items_per_student=10, overlap=0.2, qc=False, seed=5, rank_outputs=3, adaptive=True)
    before = A.rank_sequence(ds, plain, "ana")
    after = A.rank_sequence(ds, adaptive, "ana")
    assert sorted(t.seg_id for t in after) == sorted(t.seg_id for t in before)
    assert {(t.seg_id, frozenset(t.systems)) for t in after} == {(t.seg_id, frozenset(t.systems)) for t in before}
    k = A.n_shared(10, 0.2)
    assert [t.seg_id for t in after[:k]] == [t.seg_id for t in before[:k]]  # the shared screens first
    # the own screens in descending weight of the pairs they would pair, on the class's −rank scores
    choice = A.rank_choice(ds, 3, 5)
    j = ds.judgements[ds.judgements["judgement"] == "class_rank"]
    w = AD.pair_block_weights(j.assign(score=-j["score"]), [(s, g) for g, ss in choice.items() for s in ss],
                              {t.seg_id: list(t.systems) for t in after[k:]})
    own = [w[t.seg_id] for t in after[k:]]
    assert own == sorted(own, reverse=True) and own[0] > own[-1]
    p = A.progress(ds, adaptive, "ana", "rank")
    assert p.done == 0 and p.total == A.progress(ds, plain, "ana", "rank").total
