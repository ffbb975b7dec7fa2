"""Quality control of relative-ranking screens on the Annotate page (methods §5.14): a degraded copy of
an output put on a screen beside its original must be ranked strictly worse; a repeated screen must
order the outputs' pairs the same way (intra-annotator κ with P(E) = 1/3, Callison-Burch 2009 §4).
Hand-worked examples, a brute-force check of where the QC screens go, and both pages under AppTest."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import annotate as A

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


def _sample():
    from evalcore.io import load_collection

    return next(iter(load_collection(SAMPLE, name="s").values()))


# ------------------------------------------------------------------------- placement (brute force)
@pytest.mark.parametrize("k,n,seed", [(2, 10, 4), (3, 20, 1), (4, 12, 9), (5, 20, 4)])
def test_rank_qc_screens_follow_their_original(k, n, seed):
    ds = _sample()
    plan = A.Plan(items_per_student=n, overlap=0.5, qc=True, seed=seed, rank_outputs=k)
    texts = ds.sys_texts()
    pos = {g: i for i, g in enumerate(ds.seg_ids)}
    for student in ("ana", "bo", "<b>cy</b>"):
        seq = A.rank_sequence(ds, plan, student)
        kinds = [t.kind for t in seq]
        q = A.qc_count(n)
        assert kinds.count("item") == n and kinds.count("bad_copy") == q and kinds.count("repeat") == q
        assert [t for t in seq if t.kind == "item"] == A.rank_sequence(ds, A.Plan(n, 0.5, qc=False, seed=seed,
                                                                                  rank_outputs=k), student)
        for i, t in enumerate(seq):
            if t.kind == "item":
                assert t.degraded == -1
                continue
            first = next(j for j, u in enumerate(seq) if u.kind == "item" and u.seg_id == t.seg_id)
            assert first < i  # after its original
            orig = seq[first]
            own = {s: texts[s][pos[t.seg_id]] for s in orig.systems}
            real = [(t.systems[m], t.texts[m]) for m in t.real()]
            assert all(own[s] == x for s, x in real)  # every other output is the system's own
            if t.kind == "repeat":
                assert t.degraded == -1 and sorted(real) == sorted(own.items())
                continue
            x = t.systems[t.degraded]
            bad = t.texts[t.degraded]
            assert len(own[x].split()) >= 4 and bad == A.degrade(own[x], (seed, student)) and bad != own[x]
            assert x in dict(real)  # the original is on the screen with its copy
            if len(orig.systems) < A.MAX_RANK_OUTPUTS:  # joined
                assert len(t.systems) == len(orig.systems) + 1 and sorted(dict(real)) == sorted(orig.systems)
            else:  # a full screen: the copy took the place of one other output
                assert len(t.systems) == A.MAX_RANK_OUTPUTS
                assert len(set(orig.systems) - set(dict(real))) == 1
            assert t.system == x
        assert seq == A.rank_sequence(ds, plan, student)  # deterministic


# ------------------------------------------------------------------------- the report, by hand
def _row(rater, kind, systems, seg, ranks, score=float("nan"), system=None):
    return {"rater": rater, "protocol": "rank", "kind": kind,
            "system": system if system is not None else json.dumps(sorted(systems)), "seg_id": seg,
            "score": score, "esa_spans_json": "", "shown_text": "", "saved_at": "", "ranks_json": json.dumps(ranks)}


def test_rank_qc_report_on_hand_made_screens():
    abc, ab = ["A", "B", "C"], ["A", "B"]
    rows = [
        # ana, degraded copies: of A ranked 4 vs A 1 (worse: pass); of B ranked 2 vs B 2 (tie: fail);
        # of C ranked 1 vs C 2 (better: fail)
        _row("ana", "bad_copy", None, "1", {"A": 1, "B": 2, "C": 3}, 4.0, "A"),
        _row("ana", "bad_copy", None, "2", {"A": 1, "B": 2}, 2.0, "B"),
        _row("ana", "bad_copy", None, "3", {"C": 2, "A": 1}, 1.0, "C"),
        # ana, repeats. seg 4: A1 B2 C3 then A1 B3 C2: (A,B) > >, (A,C) > >, (B,C) > < -> 2 of 3 (consistent)
        _row("ana", "item", abc, "4", {"A": 1, "B": 2, "C": 3}), _row("ana", "repeat", abc, "4", {"C": 2, "B": 3, "A": 1}),
        # seg 5: A1 B1 C2 then A2 B1 C1: (A,B) = <, (A,C) > <, (B,C) > = -> 0 of 3 (not)
        _row("ana", "item", abc, "5", {"A": 1, "B": 1, "C": 2}), _row("ana", "repeat", abc, "5", {"A": 2, "B": 1, "C": 1}),
        # seg 6: A1 B2 twice -> 1 of 1
        _row("ana", "item", ab, "6", {"A": 1, "B": 2}), _row("ana", "repeat", ab, "6", {"B": 2, "A": 1}),
        # bo: copy of A ranked 3 vs A tied first with B (worse: pass); all tied twice (ties agree with ties)
        _row("bo", "bad_copy", None, "1", {"A": 1, "B": 1}, 3.0, "A"),
        _row("bo", "item", abc, "4", {"A": 1, "B": 1, "C": 1}), _row("bo", "repeat", abc, "4", {"A": 1, "B": 1, "C": 1}),
        _row("cy", "item", abc, "4", {"A": 1, "B": 2, "C": 3}),  # nothing to check
        _row("dee", "repeat", abc, "9", {"A": 1, "B": 2, "C": 3}),  # first screen not ranked: not counted
        # a repeat of another screen of seg 4 (other systems) is not matched to ana's A, B, C screen
        _row("eve", "item", abc, "4", {"A": 1, "B": 2, "C": 3}), _row("eve", "repeat", ab, "4", {"A": 2, "B": 1}),
    ]
    rep = A.rank_qc_report(pd.DataFrame(rows)).set_index("rater")
    a = rep.loc["ana"]
    assert (a["n_bad"], a["bad_worse"]) == (3, 1)
    assert a["p_bad"] == pytest.approx(0.75, abs=1e-12)  # 1 worse, 1 better, 1 tie: P(Bin(2, ½) ≥ 1)
    assert a["p_bad"] == pytest.approx(binomtest(1, 2, 0.5, alternative="greater").pvalue, abs=1e-12)
    assert (a["n_repeat"], a["repeat_consistent"], a["repeat_pairs"]) == (3, 2, 7)
    assert a["repeat_p_agree"] == pytest.approx(3 / 7, abs=1e-12)
    assert a["intra_kappa"] == pytest.approx(1 / 7, abs=1e-12)  # (3/7 − 1/3)/(2/3)
    assert not a["passed"]
    b = rep.loc["bo"]
    assert (b["n_bad"], b["bad_worse"], b["n_repeat"], b["repeat_consistent"]) == (1, 1, 1, 1)
    assert b["repeat_p_agree"] == 1.0 and b["intra_kappa"] == pytest.approx(1.0, abs=1e-12) and b["passed"]
    assert rep.loc["cy", "passed"] is None and np.isnan(rep.loc["cy", "p_bad"]) and np.isnan(rep.loc["cy", "intra_kappa"])
    assert rep.loc["dee", "n_repeat"] == 0 and rep.loc["eve", "n_repeat"] == 0


def test_rank_repeat_threshold_is_two_thirds_of_the_pairs():
    first4 = {"A": 1, "B": 2, "C": 3, "D": 4}  # 6 pairs, all ">"
    assert A.rank_pair_labels(first4) == {("A", "B"): ">", ("A", "C"): ">", ("A", "D"): ">", ("B", "C"): ">",
                                          ("B", "D"): ">", ("C", "D"): ">"}
    assert A.rank_pair_labels({"B": 1, "A": 1, "C": 3}) == {("A", "B"): "=", ("A", "C"): ">", ("B", "C"): ">"}
    first3, first2 = {"A": 1, "B": 2, "C": 3}, {"A": 1, "B": 2}
    cases = {  # rater: (first, repeat, pairs agreeing, consistent)
        "swap_last": (first4, {"A": 1, "B": 2, "C": 4, "D": 3}, 5 / 6, True),  # (C,D) differs
        "two_ties": (first4, {"A": 1, "B": 1, "C": 3, "D": 3}, 4 / 6, True),  # (A,B), (C,D) tied now: at 2/3
        "a_to_third": (first4, {"A": 3, "B": 1, "C": 2, "D": 4}, 4 / 6, True),  # (A,B), (A,C) differ
        "a_to_last": (first4, {"A": 4, "B": 1, "C": 2, "D": 3}, 3 / 6, False),  # (A,B), (A,C), (A,D) differ
        "one_of_three": (first3, {"A": 2, "B": 1, "C": 3}, 2 / 3, True),  # (A,B) differs
        "two_of_three": (first3, {"A": 3, "B": 1, "C": 2}, 1 / 3, False),  # (A,B), (A,C) differ
        "tie_vs_strict": (first2, {"A": 1, "B": 1}, 0.0, False),  # a tie agrees only with a tie
        "same_pair": (first2, {"B": 2, "A": 1}, 1.0, True),
    }
    rows = []
    for rater, (one, two, _, _) in cases.items():
        rows += [_row(rater, "item", list(one), "1", one), _row(rater, "repeat", list(one), "1", two)]
    rep = A.rank_qc_report(pd.DataFrame(rows)).set_index("rater")
    for rater, (one, _, p_agree, ok) in cases.items():
        r = rep.loc[rater]
        assert r["repeat_p_agree"] == pytest.approx(p_agree, abs=1e-12), rater
        assert r["repeat_pairs"] == len(one) * (len(one) - 1) // 2
        assert r["intra_kappa"] == pytest.approx((p_agree - 1 / 3) / (2 / 3), abs=1e-12), rater
        assert bool(r["repeat_consistent"] == 1) is ok and bool(r["passed"]) is ok, rater


# ------------------------------------------------------------------------- saving
@pytest.fixture
def tiny(workspace_home):
    """Three systems A, B, C on two segments, saved."""
    from evalcore.core.dataset import Dataset
    from evalcore.io import workspace

    seg = pd.DataFrame({"seg_id": ["1", "2"], "source": ["uno dos", "tres cuatro"]})
    out = pd.DataFrame({"system": ["A", "B", "C"] * 2, "seg_id": ["1"] * 3 + ["2"] * 3,
                        "text": ["a one", "b one", "c one", "a two", "b two", "c two"]})
    ds = Dataset("t", "xx-yy", seg, outputs=out)
    return workspace.save(ds, "rk"), "xx-yy"


def test_rank_qc_screens_are_saved_apart_from_the_judgements(tiny):
    from evalcore.io import workspace
    from evalcore.views import classroom as V

    name, lp = tiny
    item = A.RankTask("1", ("B", "A", "C"), ("b one", "a one", "c one"))
    A.save_ranking(name, lp, "ana", item, [2, 1, 3])
    n0 = len(workspace.load_saved(name)[lp].judgements)
    bad = A.RankTask("1", ("A", "C", "A"), ("a one", "c one", "one a"), "bad_copy", 2)
    rep = A.RankTask("1", ("C", "A", "B"), ("c one", "a one", "b one"), "repeat")
    for wrong, why in ((A.RankTask("1", ("A", "C", "A"), ("a one", "c one", "one a"), "bad_copy"), "degraded"),
                       (A.RankTask("1", ("A", "C", "B"), ("a", "c", "b"), "item", 1), "degraded"),
                       (A.RankTask("1", ("A", "C", "C"), ("a", "c", "x"), "bad_copy", 0), "different outputs")):
        with pytest.raises(ValueError, match=why):
            A.save_ranking(name, lp, "ana", wrong, [1, 2, 3])
    A.save_ranking(name, lp, "ana", bad, [1, 2, 3])  # the copy (last) ranked worst: pass
    A.save_ranking(name, lp, "ana", rep, [3, 1, 2])  # C3 A1 B2: the same order as B2 A1 C3
    with pytest.raises(ValueError, match="already ranked this repeat screen"):
        A.save_ranking(name, lp, "ana", rep, [1, 2, 3])
    ds = workspace.load_saved(name)[lp]
    assert len(ds.judgements) == n0  # QC screens never become judgements
    log = A.log_of(ds)
    assert list(log["kind"]) == ["item", "bad_copy", "repeat"]
    b = log.iloc[1]
    assert (b["system"], b["score"], b["shown_text"]) == ("A", 3.0, "one a")
    assert json.loads(b["ranks_json"]) == {"A": 1, "C": 2}
    assert log.iloc[2]["system"] == log.iloc[0]["system"] == json.dumps(["A", "B", "C"])
    qc = V.overview(ds, "rank", None, [])["qc"].iloc[0]
    assert (qc["rater"], qc["n_bad"], qc["bad_worse"], qc["n_repeat"], qc["repeat_consistent"]) == ("ana", 1, 1, 1, 1)
    assert qc["repeat_p_agree"] == 1.0 and qc["passed"]


# ------------------------------------------------------------------------- both pages


def test_a_student_ranks_qc_screens_and_the_class_page_reports_them(workspace_home):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    plan = A.Plan(items_per_student=5, overlap=1.0, qc=True, rank_outputs=3)
    A.save_plan(name, lp, plan)
    ds = workspace.load_saved(name)[lp]
    seq = A.rank_sequence(ds, plan, "zoé")
    assert sorted(t.kind for t in seq) == ["bad_copy", "item", "item", "item", "item", "item", "repeat"]
    first = {}
    for t in seq:  # the student's earlier work: every item screen, ranked in the order shown
        if t.kind == "item":
            A.save_ranking(name, lp, "zoé", t, list(range(1, len(t.systems) + 1)))
            first[t.seg_id] = dict(zip(t.systems, range(1, len(t.systems) + 1)))
    at = _open("annotate", {"dataset_label": _label(name), "dataset_select": _label(name), "ann_rater": "zoé",
                            "ann_protocol": "rank"})
    qc = [t for t in seq if t.kind != "item"]
    for t in qc:  # the page shows the QC screens in the order of the sequence
        assert not at.error, [e.value for e in at.error]
        boxes = [s for s in at.selectbox if s.key.startswith("ann_rank::")]
        assert len(boxes) == len(t.texts)
        shown = [m.value for m in at.markdown if "Translation " in m.value]
        assert all(any(x.split()[0] in h for h in shown) for x in t.texts)
        if t.kind == "bad_copy":  # the copy last; the others in the order shown
            others = iter(range(1, len(t.texts)))
            ranks = [len(t.texts) if m == t.degraded else next(others) for m in range(len(t.texts))]
        else:  # the same order as the first time
            ranks = [first[t.seg_id][s] for s in t.systems]
        for box, r in zip(boxes, ranks):
            box.set_value(r).run()
        next(b for b in at.button if b.key.startswith("ann_go::")).click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("All 7 items done" in s.value for s in at.success)
    back = workspace.load_saved(name)[lp]
    mine = back.judgements[(back.judgements["judgement"] == "class_rank") & (back.judgements["rater"] == "zoé")]
    assert len(mine) == 5 * 3  # the item screens only
    cls = _open("classroom", {"dataset_label": _label(name), "dataset_select": _label(name), "cls_protocol": "rank"})
    assert not cls.error, [e.value for e in cls.error]
    rep = next(df.value for df in cls.dataframe if "bad_worse" in df.value.columns)
    row = rep.set_index("rater").loc["zoé"]
    assert (row["n_bad"], row["bad_worse"], row["n_repeat"], row["repeat_consistent"]) == (1, 1, 1, 1)
    assert row["repeat_pairs"] == 3 and row["intra_kappa"] == pytest.approx(1.0) and row["passed"]
    assert any("a tie fails" in c.value for c in cls.caption)
