"""Relative ranking on the Annotate page (Callison-Burch et al. 2009): screens of 2-5 outputs of one
segment shared by the class, rankings saved as rank judgements, and the Class page's pairwise κ
and Schulze ranking against hand-worked examples; both pages driven under AppTest."""
from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import annotate as A

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


def _sample():
    from evalcore.io import load_collection

    return next(iter(load_collection(SAMPLE, name="s").values()))


@pytest.mark.parametrize("k,n,overlap", [(2, 6, 0.5), (3, 10, 0.3), (5, 8, 1.0)])
def test_rank_screens_are_shared_and_overlap(k, n, overlap):
    ds = _sample()
    plan = A.Plan(items_per_student=n, overlap=overlap, qc=True, seed=4, rank_outputs=k)
    students = ["ana", "bo", "cy", "<i>d</i>"]
    seqs = {s: [t for t in A.rank_sequence(ds, plan, s) if t.kind == "item"] for s in students}
    texts = ds.sys_texts()
    pos = {g: i for i, g in enumerate(ds.seg_ids)}
    screens: dict[str, frozenset] = {}
    for s, seq in seqs.items():
        assert len(seq) == n and len({t.seg_id for t in seq}) == n  # n different segments (+ QC screens)
        assert A.rank_sequence(ds, plan, s) == A.rank_sequence(ds, plan, s)  # deterministic
        for t in seq:
            assert len(t.systems) == min(k, len(ds.systems)) and len(set(t.systems)) == len(t.systems)
            assert list(t.texts) == [texts[x][pos[t.seg_id]] for x in t.systems]
            # every student who gets a segment ranks the same outputs of it
            assert screens.setdefault(t.seg_id, frozenset(t.systems)) == frozenset(t.systems)
    for a, b in itertools.combinations(students, 2):  # brute force: the shared pool
        assert len({t.seg_id for t in seqs[a]} & {t.seg_id for t in seqs[b]}) >= A.n_shared(n, overlap)
    with pytest.raises(ValueError, match="2 to 5"):
        A.rank_choice(ds, 6, 0)


def test_bad_ranks_are_refused_with_every_reason():
    assert A.check_ranks([1, 1, 3], 3) == [1, 1, 3]  # ties allowed
    with pytest.raises(ValueError, match="each of the 3"):
        A.check_ranks([1, 2], 3)
    with pytest.raises(ValueError, match="output 1: 0; output 3: 4"):
        A.check_ranks([0, 2, 4], 3)
    with pytest.raises(ValueError, match="output 2: None"):
        A.check_ranks([1, None, 2], 3)


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


def test_class_kappa_and_schulze_of_rankings_by_hand(tiny):
    """Hand-worked: ana ranks seg 1 A>B>C and seg 2 B=C>A; bo ranks seg 1 A>C>B and seg 2 B>A=C.
    Pairs (A,B) (A,C) (B,C): seg 1 agree, agree, disagree; seg 2 agree (B>A), disagree (C>A vs
    A=C), disagree (B=C vs B>C): P(A) = 3/6, κ = (1/2 − 1/3)/(2/3) = 1/4 (Callison-Burch 2009 §4).
    Schulze (winning votes) over the four ballots: d(A,B) = 2 = d(B,A), d(A,C) = 2 > d(C,A) = 1,
    d(B,C) = 2 > d(C,B) = 1, so A and B tie and both beat C."""
    import krippendorff
    from evalcore.io import workspace
    from evalcore.views import classroom as V

    name, lp = tiny
    given = {("ana", "1"): {"A": 1, "B": 2, "C": 3}, ("ana", "2"): {"A": 2, "B": 1, "C": 1},
             ("bo", "1"): {"A": 1, "B": 3, "C": 2}, ("bo", "2"): {"A": 2, "B": 1, "C": 2}}
    ds = workspace.load_saved(name)[lp]
    texts = ds.sys_texts()
    for (rater, seg), ranks in given.items():
        systems = ("C", "A", "B")  # the order shown does not matter
        t = A.RankTask(seg, systems, tuple(texts[s][ds.seg_ids.index(seg)] for s in systems))
        A.save_ranking(name, lp, rater, t, [ranks[s] for s in systems])
    with pytest.raises(ValueError, match="already ranked"):
        A.save_ranking(name, lp, "bo", t, [1, 2, 3])
    ds = workspace.load_saved(name)[lp]
    rows = ds.judgements[ds.judgements["judgement"] == "class_rank"]
    assert {(r.rater, r.seg_id, r.system): r.score for r in rows.itertuples()} == {
        (rt, g, s): float(v) for (rt, g), rk in given.items() for s, v in rk.items()}
    o = V.overview(ds, "rank", None, [])
    pair = o["pairs"].iloc[0]
    assert (pair["label_pairs"], pair["p_agree"]) == (6, 0.5) and pair["kappa"] == pytest.approx(0.25, abs=1e-12)
    assert o["class_agreement"]["kappa"] == pytest.approx(0.25, abs=1e-12)
    # the same labels as the Judges page with "lower is better" on the stored ranks
    from evalcore.human.agreement import agreement, pairwise_labels

    assert agreement(pairwise_labels(rows, higher_is_better=False), "inter")["kappa"] == pytest.approx(0.25)
    sch = o["schulze"]["class"]
    assert dict(zip(sch["system"], sch["rank"])) == {"A": 1, "B": 1, "C": 2}
    units = [(g, s) for g in ("1", "2") for s in "ABC"]
    data = [[given[(r, g)][s] for g, s in units] for r in ("ana", "bo")]
    assert o["class_alpha"].value == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="interval"), abs=1e-9)
    assert list(o["progress"]["saved"]) == [2, 2]




def test_the_page_saves_two_rankings_and_the_class_page_shows_agreement(workspace_home):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    plan = A.Plan(items_per_student=4, overlap=1.0, qc=False, rank_outputs=3)
    A.save_plan(name, lp, plan)
    ds = workspace.load_saved(name)[lp]
    seq = A.rank_sequence(ds, plan, "zoé")
    for t in seq[:2]:  # a classmate ranked the same two screens: in the order shown
        A.save_ranking(name, lp, "bo", t, [1, 2, 3])
    at = _open("annotate", {"dataset_label": _label(name), "dataset_select": _label(name), "ann_rater": "zoé",
                            "ann_protocol": "rank"})
    assert not at.error, [e.value for e in at.error]
    assert any("Rank the 3 translations" in m.value for m in at.markdown)
    want = [[1, 2, 3], [2, 2, 1]]
    for k, ranks in enumerate(want):
        go = next(b for b in at.button if b.key.startswith("ann_go::"))
        go.click().run()  # nothing chosen yet: refused with a reason, nothing saved
        assert any("give every translation a rank" in e.value for e in at.error)
        boxes = [s for s in at.selectbox if s.key.startswith("ann_rank::")]
        assert len(boxes) == 3
        for box, r in zip(boxes, ranks):
            box.set_value(r).run()
        next(b for b in at.button if b.key.startswith("ann_go::")).click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("2 of 4 done" in m.value for m in at.markdown)
    back = workspace.load_saved(name)[lp]  # reload: both rankings are there
    mine = back.judgements[(back.judgements["judgement"] == "class_rank") & (back.judgements["rater"] == "zoé")]
    assert list(zip(mine["seg_id"], mine["system"], mine["score"])) == [
        (t.seg_id, s, float(r)) for t, ranks in zip(seq, want) for s, r in zip(t.systems, ranks)]

    cls = _open("classroom", {"dataset_label": _label(name), "dataset_select": _label(name), "cls_protocol": "rank"})
    assert not cls.error, [e.value for e in cls.error]
    prog = next(df.value for df in cls.dataframe if "assigned" in df.value.columns)
    assert sorted(prog["rater"]) == ["bo", "zoé"] and list(prog["saved"]) == [2, 2]
    pairs = next(df.value for df in cls.dataframe if "rater_a" in df.value.columns)
    # screen 1 agrees on all 3 pairs; screen 2: bo 1,2,3 vs zoé 2,2,1 — (1,2): bo first better, zoé tie;
    # (1,3): bo first, zoé third; (2,3): bo second, zoé third -> 0 of 3. P(A) = 3/6, κ = 1/4
    assert pairs.iloc[0]["label_pairs"] == 6 and pairs.iloc[0]["kappa"] == pytest.approx(0.25, abs=1e-12)
    assert any("Ranking of the systems (Schulze)" in h.value for h in cls.subheader)
