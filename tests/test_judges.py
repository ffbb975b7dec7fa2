"""Human-judgement helpers: spec §8.6 vectors, hand-worked examples, brute force, published data."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import shared
from hypothesis import given, settings, strategies as st

from evalcore.core.dataset import Dataset
from evalcore.human.agreement import (agreement, agreement_curve, chance_agreement, kappa, krippendorff_alpha,
                                     pairwise_labels, per_rater_agreement)
from evalcore.human.hter import hter
from evalcore.human.mqm import mqm_scores
from evalcore.human.normalise import aggregate, combine_labels, normalise, percentile_ranks, rater_summary, rater_weights
from evalcore.human.ranking import relative_ranking_scores, schulze, schulze_from_judgements
from evalcore.human.scores import human_scores, system_scores


def need(folder):
    """A ../shared/data folder (skips when absent, fails under CI: conftest.shared)."""
    return str(shared(folder))


def J(rows):
    return pd.DataFrame(rows, columns=["system", "seg_id", "rater", "judgement", "score"]).astype({"score": float})


# ---------------------------------------------------------------------------------------------
# spec §8.6
# ---------------------------------------------------------------------------------------------
def test_percentile_vector():
    assert percentile_ranks([1, 2, 2, 3]).tolist() == [0.125, 0.5, 0.5, 0.875]


def test_kappa_vector():
    assert kappa(0.6, 1 / 3) == pytest.approx(0.4)
    assert chance_agreement([">", "<", "="], "uniform") == pytest.approx(1 / 3)
    assert chance_agreement([">", ">", ">", "<"], "empirical") == pytest.approx(0.75 ** 2 + 0.25 ** 2)


def test_schulze_cycle():
    ballots = [["A", "B", "C"]] * 3 + [["B", "C", "A"]] * 2 + [["C", "A", "B"]] * 2
    r = schulze(ballots)
    d, p = r.d, r.p
    assert (d.loc["A", "B"], d.loc["B", "C"], d.loc["C", "A"]) == (5, 5, 4)
    assert (p.loc["A", "C"], p.loc["C", "A"]) == (5, 4)
    assert (p.loc["A", "B"], p.loc["B", "A"]) == (5, 4)
    assert (p.loc["B", "C"], p.loc["C", "B"]) == (5, 4)
    assert r.ranking == [["A"], ["B"], ["C"]]


def test_schulze_ties_and_partial_ballots():
    # mapping ballots with ranks (ties allowed) and a partial ballot
    r = schulze([{"X": 1, "Y": 1, "Z": 2}, {"X": 1, "Z": 2}, ["Y", "Z"]])
    assert r.d.loc["X", "Y"] == 0 and r.d.loc["Y", "X"] == 0
    assert r.d.loc["X", "Z"] == 2 and r.d.loc["Y", "Z"] == 2
    assert r.ranking == [["X", "Y"], ["Z"]]
    m = schulze([["A", "B"]] * 3 + [["B", "A"]], variant="margins")
    assert m.p.loc["A", "B"] == 2 and m.p.loc["B", "A"] == 0


def test_schulze_from_judgements_matches_ballots():
    j = J([("A", "1", "r1", "rank", 1), ("B", "1", "r1", "rank", 2), ("C", "1", "r1", "rank", 3),
           ("A", "1", "r2", "rank", 3), ("B", "1", "r2", "rank", 1), ("C", "1", "r2", "rank", 2),
           ("A", "2", "r1", "rank", 2), ("B", "2", "r1", "rank", 3), ("C", "2", "r1", "rank", 1)])
    r = schulze_from_judgements(j, higher_is_better=False)
    ref = schulze([["A", "B", "C"], ["B", "C", "A"], ["C", "A", "B"]])
    assert (r.d.loc[ref.candidates, ref.candidates].to_numpy() == ref.d.to_numpy()).all()


# ---------------------------------------------------------------------------------------------
# normalisation
# ---------------------------------------------------------------------------------------------
def test_z_normalisation_ddof1_and_zero_sd_exclusion():
    j = J([("s1", "1", "a", "da", 10), ("s2", "1", "a", "da", 20), ("s1", "2", "a", "da", 60),
           ("s1", "1", "b", "da", 5), ("s2", "1", "b", "da", 5)])
    with pytest.warns(UserWarning, match="excluded"):
        z = normalise(j, "z")
    assert set(z["rater"]) == {"a"}
    x = np.array([10, 20, 60.0])
    assert z["score"].to_numpy() == pytest.approx((x - x.mean()) / x.std(ddof=1))
    assert z.attrs["excluded_raters"] == [{"judgement": "da", "rater": "b"}]
    assert z["raw"].tolist() == [10, 20, 60]


def test_percentile_normalisation_per_rater():
    j = J([("s1", "1", "a", "q", 1), ("s2", "1", "a", "q", 2), ("s3", "1", "a", "q", 2), ("s4", "1", "a", "q", 3),
           ("s1", "1", "b", "q", 5), ("s2", "1", "b", "q", 4)])
    p = normalise(j, "percentile")
    assert p["score"].tolist() == [0.125, 0.5, 0.5, 0.875, 0.75, 0.25]
    summ = rater_summary(j, p)
    assert summ.set_index("rater").loc["a", "n"] == 4
    assert summ.set_index("rater").loc["b", "norm_mean"] == pytest.approx(0.5)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=20))
def test_percentile_brute_force(xs):
    ours = percentile_ranks(xs)
    for v, p in zip(xs, ours):
        less = sum(1 for u in xs if u < v)
        eq = sum(1 for u in xs if u == v)
        assert p == pytest.approx((less + 0.5 * eq) / len(xs))


# ---------------------------------------------------------------------------------------------
# MQM
# ---------------------------------------------------------------------------------------------
def test_mqm_weights_hand_example():
    errs = pd.DataFrame([
        ("s", "1", "r1", "Accuracy/Mistranslation", "Major"),
        ("s", "1", "r1", "Fluency/Punctuation", "Minor"),
        ("s", "1", "r2", "Non-translation!", "Major"),
        ("s", "2", "r1", "No-error", "No-error"),
        ("s", "2", "r2", "Fluency/Grammar", "Minor"),
        ("s", "2", "r2", "Style/Awkward", "Neutral"),
    ], columns=["system", "seg_id", "rater", "category", "severity"])
    per = mqm_scores(errs).set_index(["seg_id", "rater"])["score"]
    assert per[("1", "r1")] == pytest.approx(-5.1)
    assert per[("1", "r2")] == pytest.approx(-25)
    assert per[("2", "r1")] == 0
    assert per[("2", "r2")] == pytest.approx(-1)
    seg = mqm_scores(errs, per="segment").set_index("seg_id")["score"]
    assert seg["1"] == pytest.approx(-(5.1 + 25) / 2)
    assert seg["2"] == pytest.approx(-0.5)
    w = {"major": 10, "minor/fluency/punctuation": 0.5}  # the others keep their default
    per2 = mqm_scores(errs, w).set_index(["seg_id", "rater"])["score"]
    assert per2[("1", "r1")] == pytest.approx(-10.5)
    assert per2[("1", "r2")] == pytest.approx(-25)
    with pytest.raises(ValueError, match="severity"):
        mqm_scores(errs.assign(severity="Catastrophic"))


def test_mqm_reproduces_ted_judgements():
    path = need("wmt21_ted_mqm")
    errs = pd.read_csv(f"{path}/mqm_annotations.tsv", sep="\t", keep_default_na=False)
    pub = pd.read_csv(f"{path}/judgements.tsv", sep="\t", keep_default_na=False)
    ours = mqm_scores(errs)
    m = pub.merge(ours, on=["lp", "system", "seg_id", "rater"], how="outer", indicator=True)
    assert (m["_merge"] == "both").all(), "every published (system, segment, rater) and no other"
    assert len(m) == len(pub)
    np.testing.assert_allclose(m["score_x"].to_numpy(float), m["score_y"].to_numpy(float), rtol=0, atol=1e-9)
    # system means of the README (positive penalty): en-de ref-A 0.91 first, Nemo 2.14 last
    seg = mqm_scores(errs, per="segment")
    sysm = -seg[seg["lp"] == "en-de"].groupby("system")["score"].mean()
    assert round(sysm["ref-A"], 2) == 0.91 and sysm.idxmin() == "ref-A"
    assert round(sysm["Nemo"], 2) == 2.14 and sysm.idxmax() == "Nemo"
    zh = -seg[seg["lp"] == "zh-en"].groupby("system")["score"].mean()
    assert round(zh["ref-B"], 2) == 0.42 and round(zh["ref-A"], 2) == 5.52


# ---------------------------------------------------------------------------------------------
# pairwise labels, agreement, per-rater tables
# ---------------------------------------------------------------------------------------------
def _three_raters():
    # segment 1: r1 A>B>C, r2 A>B=C... scores higher = better
    return J([
        ("A", "1", "r1", "q", 3), ("B", "1", "r1", "q", 2), ("C", "1", "r1", "q", 1),
        ("A", "1", "r2", "q", 3), ("B", "1", "r2", "q", 1), ("C", "1", "r2", "q", 1),
        ("A", "1", "r3", "q", 1), ("B", "1", "r3", "q", 2), ("C", "1", "r3", "q", 3),
    ])


def test_pairwise_labels_and_inter_agreement_hand():
    labels = pairwise_labels(_three_raters())
    lab = labels.set_index(["rater", "sys_a", "sys_b"])["label"]
    assert lab[("r1", "A", "B")] == ">" and lab[("r2", "B", "C")] == "=" and lab[("r3", "A", "C")] == "<"
    # items AB: r1 >, r2 >, r3 <  -> rater pairs agree 1 of 3
    # items AC: r1 >, r2 >, r3 <  -> 1 of 3 ; items BC: r1 >, r2 =, r3 <  -> 0 of 3
    a = agreement(labels, "inter")
    assert a["n_pairs"] == 9
    assert a["p_agree"] == pytest.approx(2 / 9)
    assert a["kappa"] == pytest.approx((2 / 9 - 1 / 3) / (2 / 3))
    e = agreement(labels, "inter", "empirical")
    # 9 labels: > x5 (r1 x3, r2 AB AC), < x3 (r3), = x1 (r2 BC)
    assert e["p_chance"] == pytest.approx((5 / 9) ** 2 + (3 / 9) ** 2 + (1 / 9) ** 2)
    pr = per_rater_agreement(labels).set_index("rater")
    assert pr.loc["r1", "p_agree"] == pytest.approx(2 / 6)  # r1 agrees with r2 on AB, AC
    assert pr.loc["r3", "p_agree"] == 0
    assert pr.loc["r1", "n_pairs"] == 6


def test_intra_agreement_with_repeats():
    j = J([("A", "1", "r1", "q", 2), ("B", "1", "r1", "q", 1),     # screen 0: A>B
           ("A", "1", "r1", "q", 1), ("B", "1", "r1", "q", 1),     # screen 1: A=B
           ("A", "2", "r1", "q", 1), ("B", "2", "r1", "q", 3),     # seg 2 screen 0: A<B
           ("A", "2", "r1", "q", 0), ("B", "2", "r1", "q", 5)])    # seg 2 screen 1: A<B
    labels = pairwise_labels(j)
    intra = agreement(labels, "intra")
    assert intra["n_pairs"] == 2 and intra["p_agree"] == pytest.approx(0.5)
    assert agreement(labels, "inter")["n_pairs"] == 0


def test_relative_ranking_scores_hand():
    labels = pairwise_labels(_three_raters())
    t = relative_ranking_scores(labels).set_index("system")
    # A: vs B (>, >, <) vs C (>, >, <): 4 of 6 better-or-equal
    assert t.loc["A", "score"] == pytest.approx(4 / 6)
    # B: vs A (<,<,>) vs C (>,=,<): wins 2 ties 1 of 6 -> 3/6
    assert t.loc["B", "score"] == pytest.approx(3 / 6)
    assert t.loc["C", "score"] == pytest.approx(3 / 6)  # vs A (<,<,>), vs B (<,=,>)


def test_rater_weights_leave_one_out_hand():
    labels = pairwise_labels(_three_raters())
    w = rater_weights(labels)
    # r3: others (r1, r2) say > on AB and AC (r3 says <), BC is a tie (>, =) -> skipped -> 0/2
    # r1: others (r2, r3) split on AB, AC and BC -> no items -> the median of the others' weights (0)
    # r2: others (r1, r3) split everywhere -> likewise
    assert w["r3"] == 0 and w["r1"] == 0 and w["r2"] == 0
    j = pd.concat([_three_raters(), J([("A", "1", "r4", "q", 3), ("B", "1", "r4", "q", 2), ("C", "1", "r4", "q", 1)])])
    w = rater_weights(pairwise_labels(j))
    # r4 (= r1): others AB: r1 >, r2 >, r3 < -> majority > ; AC majority > ; BC: >(r1), =(r2), <(r3) tie -> skip
    assert w["r4"] == pytest.approx(1.0)
    assert w["r3"] == pytest.approx(0.0)  # majority of others: AB >, AC >, BC > (r1,r4) vs r3 < on all
    assert w["r2"] == pytest.approx(2 / 3)  # AB ok, AC ok, BC: others r1 >, r3 <, r4 > -> >, r2 said =
    k = rater_weights(pairwise_labels(j), "kappa")
    assert k["r3"] == 0.0 and k["r1"] > k["r2"] > 0


def test_weighted_aggregate_hand():
    j = J([("A", "1", "r1", "q", 10), ("A", "1", "r2", "q", 20), ("A", "1", "r3", "q", 60),
           ("B", "1", "r1", "q", 1), ("B", "1", "r2", "q", 3)])
    out = aggregate(j, "weighted", weights={"r1": 1, "r2": 3, "r3": 0}).set_index("system")
    assert out.loc["A", "score"] == pytest.approx((10 + 60) / 4)
    assert out.loc["B", "score"] == pytest.approx((1 + 9) / 4)
    assert aggregate(j, "median").set_index("system").loc["A", "score"] == 20
    assert aggregate(j, "mean").set_index("system").loc["A", "n_ratings"] == 3


def test_combine_labels():
    assert combine_labels([">", "<", ">"]) == ">"
    assert combine_labels([">", "<"]) == "="
    assert combine_labels(["=", "="]) == "="
    assert combine_labels([">", "<", "<"], [5, 1, 1]) == ">"


def test_agreement_curve():
    rows = []
    rng = np.random.default_rng(0)
    for seg in range(20):
        truth = {"A": 3, "B": 2, "C": 1}
        for r in ["e1", "e2"]:
            rows += [(s, str(seg), r, "q", v) for s, v in truth.items()]
        for t in range(5):
            noisy = {s: v + rng.normal(0, 2.0) for s, v in truth.items()}
            rows += [(s, str(seg), f"t{t}", "q", v) for s, v in noisy.items()]
    labels = pairwise_labels(J(rows))
    curve = agreement_curve(labels, ["e1", "e2"], max_judges=5, n_resamples=10, seed=0)
    assert curve["k"].tolist() == [1, 2, 3, 4, 5]
    assert curve["agreement"].iloc[-1] > curve["agreement"].iloc[0]
    assert curve["sd"].iloc[-1] == 0  # with k = all 5 judges every resample is the same
    assert curve.attrs["reference_agreement"] == 1.0
    # judges that copy the reference agree perfectly at every k
    copy = labels[labels["rater"].isin(["e1", "e2"])]
    clones = pd.concat([copy.assign(rater=f"c{i}", jid=copy["jid"] + 1000 * (i + 1)) for i in range(3)])
    c2 = agreement_curve(pd.concat([copy, clones]), ["e1", "e2"], max_judges=3, n_resamples=3)
    assert (c2["agreement"] == 1.0).all()


# ---------------------------------------------------------------------------------------------
# Krippendorff's alpha
# ---------------------------------------------------------------------------------------------
def test_krippendorff_textbook_interval():
    nan = np.nan
    coders = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                       [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                       [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                       [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    assert krippendorff_alpha(coders.T) == pytest.approx(0.849, abs=5e-4)  # Krippendorff (2011)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_krippendorff_coincidence_matrix_brute_force(seed):
    rng = np.random.default_rng(seed)
    data = rng.integers(1, 5, (6, 3)).astype(float)
    data[rng.random(data.shape) < 0.25] = np.nan
    # literal coincidence-matrix computation
    vals = sorted(set(data[~np.isnan(data)].tolist()))
    o = {(c, k): 0.0 for c in vals for k in vals}
    for row in data:
        v = row[~np.isnan(row)]
        if len(v) < 2:
            continue
        for i, j in itertools.permutations(range(len(v)), 2):
            o[(v[i], v[j])] += 1 / (len(v) - 1)
    n_c = {c: sum(o[(c, k)] for k in vals) for c in vals}
    n = sum(n_c.values())
    if n < 2:
        return
    do = sum(o[(c, k)] * (c - k) ** 2 for c in vals for k in vals)
    de = sum(n_c[c] * n_c[k] * (c - k) ** 2 for c in vals for k in vals) / (n - 1)
    ours = krippendorff_alpha(data)
    if de == 0:
        assert np.isnan(ours)
    else:
        assert ours == pytest.approx(1 - do / de)


# ---------------------------------------------------------------------------------------------
# HTER
# ---------------------------------------------------------------------------------------------
def test_hter_editors_and_denominators():
    mt = ["a b c d"]
    pes = [["a b c d e f", "a c b d"]]   # editor 0: 2 insertions; editor 1: 1 shift (or 2 subs)
    out = hter(mt, pes).iloc[0]
    assert out["editor"] == 1 and out["edits"] == 1 and out["hter"] == pytest.approx(1 / 4)
    out2 = hter(mt, pes, acceptable=[[True, False]]).iloc[0]
    assert out2["editor"] == 0 and out2["edits"] == 2 and out2["hter"] == pytest.approx(2 / 6)
    out3 = hter(mt, pes, references=["x y z w v u w x"], denominator="reference").iloc[0]
    assert out3["hter"] == pytest.approx(1 / 8)
    out4 = hter(mt, pes, denominator="mean_postedit").iloc[0]
    assert out4["hter"] == pytest.approx(1 / 5)
    none_ok = hter(mt, pes, references=["a b c d"], acceptable=[[False, False]]).iloc[0]
    assert none_ok["editor"] == -1 and none_ok["hter"] == 0
    assert hter(["A b"], ["a b"]).iloc[0]["hter"] == 0
    assert hter(["A b"], ["a b"], case_sensitive=True).iloc[0]["hter"] == pytest.approx(0.5)


def test_hter_reproduces_mlqe_published():
    path = need("mlqe_pe_subset")
    pe = pd.read_csv(f"{path}/postedits_tokenized.tsv", sep="\t", keep_default_na=False, dtype={"seg_id": str})
    j = pd.read_csv(f"{path}/judgements.tsv", sep="\t", keep_default_na=False, dtype={"seg_id": str})
    pub = j[(j["lp"] == "en-de") & (j["judgement"] == "hter")][["seg_id", "score"]]
    m = pe.merge(pub, on="seg_id")
    assert len(m) == 1000
    ours = hter(m["mt_tokenized"].tolist(), m["postedit_tokenized"].tolist(), cap=1.0)["hter"].to_numpy()
    diff = np.abs(ours - m["score"].to_numpy(float))
    # published labels: tercom on the tokenised text, case-insensitive, post-edit length, capped at 1
    assert (diff < 1e-4).mean() == 1.0
    uncapped = hter(m["mt_tokenized"].tolist(), m["postedit_tokenized"].tolist())["hter"].to_numpy()
    assert (np.abs(uncapped - m["score"].to_numpy(float)) < 1e-4).mean() >= 0.998


# ---------------------------------------------------------------------------------------------
# Dataset helpers
# ---------------------------------------------------------------------------------------------
def _dataset():
    segs = pd.DataFrame({"seg_id": ["1", "2"], "source": ["x", "y"]})
    refs = pd.DataFrame({"seg_id": ["1", "2"], "ref_id": ["ref-A", "ref-A"], "text": ["a", "b"]})
    outs = pd.DataFrame({"system": ["S", "S", "T", "T"], "seg_id": ["1", "2", "1", "2"], "text": list("abcd")})
    j = J([("S", "1", "r1", "da", 50), ("S", "1", "r2", "da", 70), ("S", "2", "r1", "da", 30),
           ("T", "1", "r1", "da", 10), ("T", "2", "r2", "da", 20), ("ref-A", "1", "r1", "da", 90),
           ("ref-A", "2", "r2", "da", 80)])
    errs = pd.DataFrame([("S", "1", "r1", "Accuracy/Mistranslation", "Major"), ("T", "1", "r1", "No-error", "No-error")],
                        columns=["system", "seg_id", "rater", "category", "severity"])
    return Dataset("toy", "en-de", segs, refs, outs, j, extras={"mqm_errors": errs})


def test_human_and_system_scores():
    ds = _dataset()
    h = human_scores(ds, "da").set_index(["system", "seg_id"])["score"]
    assert h[("S", "1")] == 60 and h[("S", "2")] == 30 and h[("ref-A", "2")] == 80
    no_ref = human_scores(ds, "da", include_references=False)
    assert "ref-A" not in set(no_ref["system"])
    s = system_scores(ds, "da").set_index("system")
    assert s.loc["S", "score"] == 45 and s.loc["ref-A", "is_reference"] and not s.loc["T", "is_reference"]
    z = human_scores(ds, "da", normalisation="z").set_index(["system", "seg_id"])["score"]
    r1 = np.array([50, 30, 10, 90.0])
    r2 = np.array([70, 20, 80.0])
    zs1 = (50 - r1.mean()) / r1.std(ddof=1)
    zs2 = (70 - r2.mean()) / r2.std(ddof=1)
    assert z[("S", "1")] == pytest.approx((zs1 + zs2) / 2)
    mqm = human_scores(ds, "mqm").set_index("system")["score"]
    assert mqm["S"] == -5 and mqm["T"] == 0
    with pytest.raises(ValueError, match="criterion"):
        human_scores(ds, "nope")


def test_judges_cli(tmp_path, capsys):
    from evalcore.cli import main

    ds = _dataset()
    ds.segments.assign(doc_id="").to_csv(tmp_path / "segments.tsv", sep="\t", index=False)
    ds.references.to_csv(tmp_path / "references.tsv", sep="\t", index=False)
    ds.outputs.to_csv(tmp_path / "outputs.tsv", sep="\t", index=False)
    ds.judgements.to_csv(tmp_path / "judgements.tsv", sep="\t", index=False)
    rc = main(["judges", str(tmp_path), "--criterion", "da", "--systems", "--out-prefix", str(tmp_path / "o_")])
    assert rc == 0
    ag = pd.read_csv(tmp_path / "o_agreement.tsv", sep="\t")
    assert set(ag["kind"]) >= {"inter", "intra"}
    raters = pd.read_csv(tmp_path / "o_raters.tsv", sep="\t")
    assert set(raters["rater"]) == {"r1", "r2"}
    systems = pd.read_csv(tmp_path / "o_systems.tsv", sep="\t")
    # r1 on seg 1: ref-A 90 > S 50 > T 10 ; r2 on seg 2: ref-A 80 > T 20 ; r2 seg1 only S
    assert systems.iloc[0]["system"] == "ref-A" and systems.iloc[0]["better_or_equal"] == 1.0
