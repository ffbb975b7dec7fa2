"""evalcore.views (the pages' view-models), evalcore.present.highlight and the dashboard figures of evalcore.present.plots, checked
against independent references: sacreBLEU, scipy, pandas group-bys and brute-force loops
written out here."""
from __future__ import annotations

import html
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import sacrebleu
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as hs

from conftest import SAMPLE, shared
from evalcore.scoring import defaults as common_view
from evalcore.scoring import scores as scores_view
from evalcore.views import (
    divergence as divergence_view,
    human_likeness as human_likeness_view,
    judges as judges_view,
    learn as learn_view,
    likeness_vs_acceptability as likeness_vs_acceptability_view,
    queen_vs_human as queen_vs_human_view,
    systems as systems_view,
)
from evalcore.present import highlight as H
from evalcore.present import plots as P
from evalcore.core.dataset import Dataset
from evalcore.io import load_dataset


@pytest.fixture(scope="module")
def ds():
    return load_dataset(SAMPLE)


def _raw(name):
    return pd.read_csv(SAMPLE / name, sep="\t", keep_default_na=False, dtype={"seg_id": str})


# ---------------------------------------------------------------- rank normalisation, divergence
@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.one_of(hs.integers(-5, 5).map(float), hs.just(float("nan"))), min_size=0, max_size=15))
def test_rank_normalise_matches_scipy_midranks(values):
    x = np.array(values, dtype=float)
    got = divergence_view.rank_normalise(x)
    ok = np.isfinite(x)
    assert np.isnan(got[~ok]).all()
    n = ok.sum()
    if n == 1:
        assert got[ok][0] == 0.5
    elif n > 1:
        expect = (scipy.stats.rankdata(x[ok]) - 1) / (n - 1)
        assert np.allclose(got[ok], expect)
        # orientation: reversing the sign mirrors the ranks
        assert np.allclose(divergence_view.rank_normalise(x, -1.0)[ok], 1 - expect)


def _signals():
    return pd.DataFrame({
        "system": ["s1", "s1", "s2", "s2", "s3"],
        "seg_id": ["1", "2", "1", "2", "1"],
        "tags": ["ok", "omission, calque", "", "omission", "ok"],
        "src_len": [3, 10, 3, 10, 3],
        "metric:bleu": [10.0, 80.0, 50.0, 20.0, 90.0],
        "metric:ter": [90.0, 10.0, 40.0, 70.0, 5.0],  # error rate: lower is better
        "human:adequacy": [5.0, 1.0, 3.0, 4.0, np.nan],
    })


def test_divergence_table_is_sorted_by_brute_force_rank_gap():
    sig = _signals()
    div = divergence_view.divergence_table(sig, "metric:bleu", "human:adequacy")
    # brute force: rows with both signals, mid-rank percentiles, gap
    rows = sig.dropna(subset=["human:adequacy"])
    ra = (scipy.stats.rankdata(rows["metric:bleu"]) - 1) / (len(rows) - 1)
    rb = (scipy.stats.rankdata(rows["human:adequacy"]) - 1) / (len(rows) - 1)
    expect = sorted(zip(np.abs(ra - rb), rows["system"], rows["seg_id"]), key=lambda t: -t[0])
    assert len(div) == 4
    assert np.allclose(np.abs(div["divergence"]), [e[0] for e in expect])
    assert list(zip(div["system"], div["seg_id"]))[0] == expect[0][1:]
    # error-rate orientation: TER and BLEU rank these outputs identically -> no divergence
    same = divergence_view.divergence_table(sig, "metric:bleu", "metric:ter")
    assert np.allclose(same["divergence"], 0)


def test_divergence_filters():
    sig = _signals()
    d = divergence_view.divergence_table(sig, "metric:bleu", "metric:ter", systems=["s1"])
    assert set(d["system"]) == {"s1"}
    d = divergence_view.divergence_table(sig, "metric:bleu", "metric:ter", tags=["omission"])
    assert set(zip(d["system"], d["seg_id"])) == {("s1", "2"), ("s2", "2")}
    d = divergence_view.divergence_table(sig, "metric:bleu", "metric:ter", length=(5, 20))
    assert set(d["src_len"]) == {10}
    d = divergence_view.divergence_table(sig, "metric:bleu", "metric:ter", a_range=(15, 60), b_range=(0, 60))
    assert set(zip(d["system"], d["seg_id"])) == {("s2", "1")}
    d = divergence_view.divergence_table(sig, "metric:bleu", "human:adequacy", direction="a_higher")
    assert (d["divergence"] > 0).all()


def test_ref_side_spans_by_hand():
    assert divergence_view.ref_side_spans("the cat sat".split(), "a cat sat on the mat".split()) == [(1, 3), (4, 5)]
    # clipping: the candidate has "the" twice, so only two of the reference's three are matched
    assert divergence_view.ref_side_spans(["the", "the"], ["the", "the", "the"]) == [(0, 2)]
    assert divergence_view.ref_side_spans(["x"], ["y"]) == []


def test_segment_detail_counts_match_brute_force(ds):
    system, seg = "synonyms", "31"
    d = divergence_view.segment_detail(ds, system, seg)
    refs = _raw("references.tsv")
    rtexts = refs[refs["seg_id"] == seg]["text"].tolist()
    assert len(d["references"]) == len(rtexts) == 6
    out = _raw("outputs.tsv")
    cand = out[(out["system"] == system) & (out["seg_id"] == seg)]["text"].iloc[0]
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    ct = tok(cand).split()
    rts = [tok(r).split() for r in rtexts]
    for n, row in zip(range(1, 5), d["orders"].itertuples()):
        cg = Counter(tuple(ct[i:i + n]) for i in range(len(ct) - n + 1))
        best = Counter()
        for rt in rts:
            for g, k in Counter(tuple(rt[i:i + n]) for i in range(len(rt) - n + 1)).items():
                best[g] = max(best[g], k)
        matched = sum(min(k, best[g]) for g, k in cg.items())
        assert (row.matched, row.total) == (matched, sum(cg.values()))
        assert row.match == f"{matched}/{sum(cg.values())}"
    # seed 001 §5.8: P is the plain mean of the four precisions
    assert d["summary"]["average_precision"] == pytest.approx(d["orders"]["precision"].mean())
    assert d["summary"]["sentence_bleu"] == pytest.approx(sacrebleu.sentence_bleu(cand, rtexts).score)
    j = _raw("judgements.tsv")
    mine = j[(j["system"] == system) & (j["seg_id"] == seg)]
    assert len(d["judgements"]) == len(mine)


# ---------------------------------------------------------------- systems
def test_system_table_matches_sacrebleu_and_pandas(ds):
    t = systems_view.system_table(ds, ["bleu", "chrf"], ["adequacy"], baseline="literal", n_boot=50)
    out = _raw("outputs.tsv")
    refs = _raw("references.tsv")
    seg_ids = ds.seg_ids
    ref_lists = [refs[refs["ref_id"] == r].set_index("seg_id").loc[seg_ids, "text"].tolist() for r in ds.ref_ids]
    for system in ds.systems:
        hyps = out[out["system"] == system].set_index("seg_id").loc[seg_ids, "text"].tolist()
        row = t[(t["measure"] == "bleu") & (t["system"] == system)].iloc[0]
        assert row["score"] == pytest.approx(sacrebleu.corpus_bleu(hyps, ref_lists).score, abs=1e-9)
        assert row["ci_lo"] <= row["score"] + 1e-9 and row["score"] <= row["ci_hi"] + 1e-9
        row = t[(t["measure"] == "chrf") & (t["system"] == system)].iloc[0]
        assert row["score"] == pytest.approx(sacrebleu.corpus_chrf(hyps, ref_lists).score, abs=1e-9)
    j = _raw("judgements.tsv")
    j = j[j["judgement"] == "adequacy"]
    per_seg = j.groupby(["system", "seg_id"])["score"].mean().groupby("system").mean()
    hum = t[t["kind"] == "human"].set_index("system")["score"]
    assert set(hum.index) == set(ds.systems)  # human translations excluded by default
    assert np.allclose(hum.loc[ds.systems], per_seg.loc[ds.systems])
    marks = t.set_index(["measure", "system"])["mark"]
    assert marks[("bleu", "literal")] == "baseline"
    assert set(t["mark"]) <= {"baseline", "▲ better", "▼ worse", "≈ n.s."}
    assert ((t["p_value"] > 0) & (t["p_value"] <= 1) | t["p_value"].isna()).all()


def test_system_table_with_references_scores_each_against_the_others(ds):
    t = systems_view.system_table(ds, ["bleu"], ["adequacy"], include_references=True, n_boot=0)
    refs = _raw("references.tsv")
    seg_ids = ds.seg_ids
    held = "ref-C"
    hyps = refs[refs["ref_id"] == held].set_index("seg_id").loc[seg_ids, "text"].tolist()
    others = [refs[refs["ref_id"] == r].set_index("seg_id").loc[seg_ids, "text"].tolist()
              for r in ds.ref_ids if r != held]
    row = t[(t["measure"] == "bleu") & (t["system"] == held)].iloc[0]
    assert row["is_reference"]
    assert row["score"] == pytest.approx(sacrebleu.corpus_bleu(hyps, others).score, abs=1e-9)
    judged_refs = set(t[(t["kind"] == "human") & t["is_reference"]]["system"])
    assert judged_refs == {"ref-E", "ref-F"}


def _toy_table():
    rows = []
    scores = {"m1": [3, 2, 1], "m2": [30, 20, 10], "err": [0.1, 0.2, 0.3], "hum": [1, 3, 2]}
    for m, vals in scores.items():
        for s, v in zip(["a", "b", "c"], vals):
            rows.append({"kind": "metric", "measure": m, "system": s, "is_reference": False, "score": float(v),
                         "ci_lo": np.nan, "ci_hi": np.nan, "n_segments": 1, "p_value": np.nan, "mark": "",
                         "higher_is_better": m != "err"})
    return pd.DataFrame(rows)


def test_rank_agreement_and_schulze_on_a_toy_table():
    t = _toy_table()
    ag = systems_view.rank_agreement(t, "kendall")
    assert ag.loc["m1", "m2"] == pytest.approx(1.0)
    assert ag.loc["m1", "err"] == pytest.approx(1.0)  # an error rate ranking the same way agrees
    assert ag.loc["m1", "hum"] == pytest.approx(scipy.stats.kendalltau([3, 2, 1], [1, 3, 2]).statistic)
    ranks = systems_view.rank_table(t).set_index("system")
    assert list(ranks.loc[["a", "b", "c"], "err"]) == [1, 2, 3]
    cons = systems_view.schulze_consensus(t, ["m1", "m2", "err"])
    assert list(cons["system"]) == ["a", "b", "c"]  # unanimous ballots


# ---------------------------------------------------------------- seed 000 figures
def test_figure1_table_matches_brute_force_king_and_orange(ds):
    f1 = human_likeness_view.figure1_table(ds, ["bleu"]).iloc[0]
    t = scores_view.tensors(ds, ["bleu"])["bleu"]
    kings, wins, comps = [], 0, 0
    for s in range(len(t.seg_ids)):
        for j in range(len(t.ref_ids)):
            r = t.loo_ref[s, j]
            if not np.isfinite(r):
                continue
            outs = [t.loo_sys[a, s, j] for a in range(len(t.systems)) if np.isfinite(t.loo_sys[a, s, j])]
            if not outs:
                continue
            kings.append(all(r >= o for o in outs))
            wins += sum(r >= o for o in outs)
            comps += len(outs)
    assert f1["king"] == pytest.approx(np.mean(kings))
    assert f1["orange"] == pytest.approx(wins / comps)
    assert f1["king_random"] == pytest.approx(1 / (len(t.systems) + 1))
    assert f1["signature"] == common_view.metric_signature("bleu")


def test_figure3_points_standard_bleu_correlation_is_pearson_of_sentence_bleu(ds):
    pts = likeness_vs_acceptability_view.figure3_points(ds, ["bleu", "chrf"], "adequacy")
    assert set(pts["group"]) == {"standard metric", "QUEEN of one metric", "selected set"}
    row = pts[(pts["group"] == "standard metric") & (pts["label"] == "bleu")].iloc[0]
    out = _raw("outputs.tsv")
    refs = _raw("references.tsv")
    j = _raw("judgements.tsv")
    hum = j[(j["judgement"] == "adequacy") & j["system"].isin(ds.systems)].groupby(["system", "seg_id"])["score"].mean()
    xs, ys = [], []
    for (system, seg), h in hum.items():
        cand = out[(out["system"] == system) & (out["seg_id"] == seg)]["text"].iloc[0]
        xs.append(sacrebleu.sentence_bleu(cand, refs[refs["seg_id"] == seg]["text"].tolist()).score)
        ys.append(h)
    assert row["corr"] == pytest.approx(scipy.stats.pearsonr(xs, ys).statistic, abs=1e-9)
    assert row["n"] == len(xs)
    sel = pts[pts["group"] == "selected set"].iloc[0]
    assert 0 <= sel["king"] <= 1


def test_queen_points_and_quadrant(ds):
    pts = queen_vs_human_view.queen_human_points(ds, ["bleu", "chrf"], "adequacy")
    j = _raw("judgements.tsv")
    hum = j[(j["judgement"] == "adequacy") & j["system"].isin(ds.systems)].groupby(["system", "seg_id"])["score"].mean()
    assert len(pts) == len(hum)
    got = pts.set_index(["system", "seg_id"])["human"]
    assert np.allclose(got.loc[hum.index], hum)
    assert ((pts["queen"] >= 0) & (pts["queen"] <= 1)).all()
    h_thr, q_thr = queen_vs_human_view.quadrant_thresholds(ds, pts, "adequacy")
    ref_hum = j[(j["judgement"] == "adequacy") & j["system"].isin(["ref-E", "ref-F"])].groupby(
        ["system", "seg_id"])["score"].mean()
    assert h_thr == pytest.approx(ref_hum.quantile(0.25))
    quad = queen_vs_human_view.quadrant_table(pts, h_thr, q_thr)
    inside = [(h >= h_thr) and (q <= q_thr) for h, q in zip(pts["human"], pts["queen"])]
    assert len(quad) == sum(inside)


def test_signal_table_columns_and_values(ds):
    sig = divergence_view.signal_table(ds, ["bleu"], ["adequacy"], ["bleu", "chrf"])
    assert len(sig) == len(ds.outputs)
    assert {"metric:bleu", "human:adequacy", "queen:bleu,chrf", "judge:adequacy:rater1"} <= set(sig.columns)
    out = _raw("outputs.tsv")
    refs = _raw("references.tsv")
    r = sig.iloc[5]
    cand = out[(out["system"] == r["system"]) & (out["seg_id"] == r["seg_id"])]["text"].iloc[0]
    assert r["metric:bleu"] == pytest.approx(
        sacrebleu.sentence_bleu(cand, refs[refs["seg_id"] == r["seg_id"]]["text"].tolist()).score)
    tags = _raw("tags.tsv")
    mine = tags[(tags["system"] == r["system"]) & (tags["seg_id"] == r["seg_id"])]["tag"]
    assert set(t.strip() for t in r["tags"].split(",")) == set(mine)


def test_scoped_keeps_judged_segments_first():
    segs = pd.DataFrame({"seg_id": [str(i) for i in range(10)], "source": ["a b"] * 10})
    refs = pd.DataFrame({"seg_id": [str(i) for i in range(10)], "ref_id": "r", "text": "x"})
    outs = pd.DataFrame({"system": "s", "seg_id": [str(i) for i in range(10)], "text": "x"})
    jud = pd.DataFrame({"system": "s", "seg_id": ["7", "9"], "rater": "r1", "judgement": "da", "score": [1.0, 2.0]})
    d = Dataset("t", "xx-yy", segs, refs, outs, jud)
    sub = common_view.scoped(d, 4)
    assert sub.seg_ids == ["0", "1", "7", "9"]
    assert len(sub.judgements) == 2 and len(sub.outputs) == 4
    assert common_view.scoped(d, None) is d and common_view.scoped(d, 50) is d


def test_judges_overview_on_sample(ds):
    ov = judges_view.judges_overview(ds, "adequacy")
    assert ov["raters"] == ["rater1", "rater2", "rater3", "expert"]
    pa = ov["pa"]
    # brute force P(A) of rater1 vs rater2 from the pairwise labels
    lab = ov["labels"]
    item = ["judgement", "seg_id", "sys_a", "sys_b"]
    m = lab[lab["rater"] == "rater1"].merge(lab[lab["rater"] == "rater2"], on=item)
    assert pa.loc["rater1", "rater2"] == pytest.approx((m["label_x"] == m["label_y"]).mean())
    assert len(ov["curve"]) == 4 * 3  # each of the 4 raters as the reference, k = 1..3 others


def test_rater_distributions_z(ds):
    d = judges_view.rater_distributions(ds, "adequacy", "z")
    z = d[d["stage"] == "z"]
    for rater, g in z.groupby("rater"):
        assert g["score"].mean() == pytest.approx(0, abs=1e-9)
        assert g["score"].std(ddof=1) == pytest.approx(1)


def test_lessons_numbers_are_live(ds):
    L = learn_view.lessons(ds)
    t = L["paraphrase"].set_index("system")
    out = _raw("outputs.tsv")
    refs = _raw("references.tsv")
    sub = out[out["system"] == "synonyms"]
    bleu = np.mean([sacrebleu.sentence_bleu(c, refs[refs["seg_id"] == s]["text"].tolist()).score
                    for c, s in zip(sub["text"], sub["seg_id"])])
    assert t.loc["synonyms", "bleu"] == pytest.approx(bleu)
    assert len(L["orange"]) == len(common_view.default_metrics(ds))


def test_on_wmt21_news_en_de_one_rater_mqm():
    from evalcore.io import load_collection

    d = common_view.scoped(load_collection(shared("wmt21_news_mqm"))["en-de"], 25)
    assert common_view.default_criterion(d) == "mqm"
    ov = judges_view.judges_overview(d, "mqm")
    assert ov["raters"] == ["mean"] and ov["per_rater"].empty
    t = systems_view.system_table(d, ["bleu"], ["mqm"], baseline=d.systems[0], n_boot=20)
    assert set(t[t["kind"] == "metric"]["system"]) == set(d.systems)
    pts = queen_vs_human_view.queen_human_points(d, ["bleu", "chrf"], "mqm")
    assert len(pts) and pts["human"].le(0).all()  # MQM scores are minus the weighted errors
    sig = divergence_view.signal_table(d, ["bleu"], ["mqm"], ["bleu"])
    assert "judge:mqm:mean" not in sig  # one rater: no judge-vs-judge columns


# ---------------------------------------------------------------- highlight (escaping)
HOSTILE = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '**bold** [l](javascript:alert(1))',
           '$x^2$ \\frac{a}{b}', '&amp; &lt;b&gt; "q" \'s\'', '# h\n- item\n1. x `code` ~~s~~ | a |']


@pytest.mark.parametrize("text", HOSTILE)
def test_escape_is_inert_and_round_trips(text):
    out = H.escape(text)
    assert "<" not in out.replace("<br>", "") and ">" not in out.replace("<br>", "")
    bare = re.sub(r"&#?\w+;", "", out)  # what remains outside character references
    for c in "*_[]()$\\`#|~&":
        assert c not in bare
    assert html.unescape(out.replace("<br>", "\n")) == text


def test_highlight_tokens_marks_exactly_the_spans():
    toks = ["a", "<b>", "c", "d", "e"]
    out = H.highlight_tokens(toks, [(1, 3), (4, 5)])
    marked = re.findall(r"<mark[^>]*>(.*?)</mark>", out)
    assert [html.unescape(m) for m in marked] == ["<b> c", "e"]
    assert "<b>" not in out


# ---------------------------------------------------------------- figures
def test_figure4_uses_webgl_above_threshold_and_carries_ids():
    n = P.SCATTERGL_MIN + 10
    pts = pd.DataFrame({"system": ["s1", "s2"] * (n // 2), "seg_id": [str(i) for i in range(n // 2 * 2)],
                        "queen": np.linspace(0, 1, n // 2 * 2), "human": np.linspace(1, 5, n // 2 * 2)})
    fig = P.figure4(pts, 3.0, 0.5)
    assert {tr.type for tr in fig.data} == {"scattergl"}
    assert fig.data[0].customdata[0][0] == "s1" and fig.data[0].customdata[0][1] == "0"
    assert len(fig.layout.shapes) == 1
    small = P.figure4(pts.head(20), 3.0, 0.5)
    assert {tr.type for tr in small.data} == {"scatter"}


def test_figure1_and_bars(ds):
    f1 = human_likeness_view.figure1_table(ds, ["bleu", "ter"], bootstrap=20)
    fig = P.figure1(f1)
    names = [tr.name for tr in fig.data]
    assert names[:2] == ["ORANGE", "KING"] and "random KING" in names[2]
    assert fig.data[1].error_y.array is not None
    t = systems_view.system_table(ds, ["bleu"], [], n_boot=20)
    bars = P.system_bars(t)
    assert bars.data[0].error_y.array is not None


def test_hter_table_on_mlqe_pe_reproduces_published_hter():
    """Judges page HTER view on ../shared/data/mlqe_pe_subset en-de: our HTER (tercom edits on
    the distributed tokenised texts / post-edit length) equals the published labels, which WMT
    caps at 1.0."""
    import numpy as np

    from conftest import shared
    from evalcore.views.judges import hter_table
    from evalcore.io import load_dataset

    ds = load_dataset(shared("mlqe_pe_subset"), lp="en-de")
    table = hter_table(ds)
    assert len(table) == 1000 and table["published"].notna().all()
    ours = np.minimum(table["hter"].to_numpy(float), 1.0)
    assert np.abs(ours - table["published"].to_numpy(float)).max() < 1e-6


def test_judges_overview_alpha_and_pseudo_rater():
    """Krippendorff's alpha of the Judges page equals the `krippendorff` package's interval alpha
    on the (rater x output) matrix built here with pandas, each rater's repeats averaged;
    a published-average pseudo-rater 'mean' is left out when real raters
    exist."""
    import krippendorff

    from conftest import SAMPLE
    from evalcore.views.judges import judges_overview
    from evalcore.io import load_dataset

    raw = pd.read_csv(SAMPLE / "judgements.tsv", sep="\t", dtype=str, keep_default_na=False)
    raw = raw[raw["judgement"] == "adequacy"].astype({"score": float})
    assert raw.duplicated(["system", "seg_id", "rater"]).any(), "the sample must hold repeats for this test"
    matrix = raw.groupby(["rater", "system", "seg_id"])["score"].mean().unstack(["system", "seg_id"])
    expected = krippendorff.alpha(reliability_data=matrix.to_numpy(float), level_of_measurement="interval")
    ds = load_dataset(SAMPLE)
    ov = judges_overview(ds, "adequacy")
    assert ov["alpha_reason"] == ""
    assert abs(ov["alpha"] - expected) < 1e-6
    # the repeats are not pairable values: counting them as raters gives another number
    first = raw.drop_duplicates(["rater", "system", "seg_id"]).pivot_table(
        index="rater", columns=["system", "seg_id"], values="score")
    assert abs(krippendorff.alpha(reliability_data=first.to_numpy(float), level_of_measurement="interval")
               - expected) > 1e-6
    j = ds.judgements[ds.judgements["judgement"] == "adequacy"].drop_duplicates(["system", "seg_id", "rater"])
    mean_rows = j.groupby(["system", "seg_id"], as_index=False)["score"].mean().assign(rater="mean", judgement="adequacy")
    with_mean = ds.__class__(ds.name, ds.lp, ds.segments, ds.references, ds.outputs,
                             pd.concat([ds.judgements, mean_rows], ignore_index=True))
    assert judges_overview(with_mean, "adequacy")["raters"] == ov["raters"] == ["rater1", "rater2", "rater3", "expert"]


def test_signatures_carry_nrefs_of_the_comparison():
    """Every signature names the references each score was computed against: all of a segment's
    references for metric scores (sacreBLEU's nrefs), J - 1 for the QARLA comparisons (a held-out
    reference and every output against the other references)."""
    from conftest import ROOT

    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    j = len(ds.ref_ids)
    assert j >= 3
    assert common_view.dataset_nrefs(ds) == j
    assert common_view.qarla_nrefs(ds) == j - 1
    assert f"nrefs:{j - 1}|" in common_view.signature_text(["bleu"], nrefs=common_view.qarla_nrefs(ds))
    assert f"nrefs:{j}|" in common_view.signature_text(["bleu"], dataset=ds)
    assert "nrefs" not in common_view.signature_text(["bleu"])
    two = ds.with_references(ds.ref_ids[:2])
    assert common_view.qarla_nrefs(two) == 1 and common_view.dataset_nrefs(two) == 2
    # the QARLA pages pass the QARLA count to every signature they export
    for page in ("human_likeness", "likeness_vs_acceptability", "queen_vs_human"):
        text = (ROOT / "pages" / f"{page}.py").read_text(encoding="utf-8")
        calls = text.count("common_view.signature_text(")
        assert calls and text.count("nrefs=QARLA_NREFS)") == calls, page
