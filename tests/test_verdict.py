"""Primary answers and their alternatives (evalcore.analysis.verdict), the commands' defaults
(commands/_defaults.py) and the metrics that cannot run on a pair (evalcore.scoring.availability).

References: the WMT24 ranking written with scipy and loops on the raw judgements.tsv
(tests/test_system_ranking.py ``_reference``), pandas group-bys on the raw TSVs for the
alternatives, brute-force loops for the per-segment agreement, and the view functions the
pages call for "the commands give the pages' numbers".
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from conftest import shared
from evalcore.analysis import verdict as V
from evalcore.cli import main
from evalcore.io.synth import _write, make_synthetic


def _stderr_lines(capsys, prefix):
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith(prefix)]


# ---------------------------------------------------------------------------------------------
# best system on real data: rank's first, and why the other views differ
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def en_cs():
    from evalcore.io import load_dataset

    return load_dataset(shared("wmt24_esa"), lp="en-cs")


def test_best_system_is_ranks_first_and_alternatives_say_why(en_cs, tmp_path, capsys):
    from test_system_ranking import _reference

    root = shared("wmt24_esa")
    out = tmp_path / "rank.tsv"
    assert main(["rank", str(root), "--lp", "en-cs", "--out", str(out)]) == 0  # no --human: the data's esa
    err = capsys.readouterr().err
    t = pd.read_csv(out, sep="\t")
    first_mt = [s for s in t["system"] if s != "refA"][0]  # refA: the human translation, left out by default
    v = V.best_system(en_cs, "esa")
    assert v.answer == first_mt
    assert f"verdict: {v.sentence}" in err and "note: --human esa" in err
    assert "human translations ranked with the systems (refA" in err  # the settings line is true of the table
    # the recipe's score against the scipy/loops reference of the WMT24 ranking
    score, p = _reference(root, "en-cs")
    assert v.evidence["score"] == pytest.approx(score[first_mt], abs=1e-9)
    assert max((s for s in score if s != "refA"), key=score.get) == first_mt
    assert v.evidence["p_value"] == pytest.approx(p[(first_mt, v.evidence["runner_up"])], abs=1e-9)
    assert any("refA" in n for n in v.notes)  # the human translation above it is named
    # alternatives: the mean over segments and the mean over rows, from the raw TSV
    j = pd.read_csv(root / "judgements.tsv", sep="\t", dtype={"seg_id": str})
    j = j[(j["lp"] == "en-cs") & (j["judgement"] == "esa") & (j["system"] != "refA")]
    item = j.groupby(["system", "seg_id", "rater"])["score"].mean().groupby(["system", "seg_id"]).mean()
    seg_mean = item.groupby("system").mean()
    rows = j.groupby("system")["score"].mean()
    alts = {a.view: a for a in v.alternatives}
    assert alts["mean over segments"].answer == seg_mean.idxmax()
    assert alts["mean over judgement rows"].answer == rows.idxmax()
    for a in v.alternatives:
        assert a.agrees == (a.answer == v.answer)
        if not a.agrees:
            assert a.reason and f"here it puts {a.answer} first" in v.line()
    assert "domains of unequal size weigh differently" in alts["mean over segments"].reason


def test_disagreement_note_by_hand():
    """A wins by 1 on 18 of 20 segments and loses by 30 on 2: a rank test separates them, the
    mean difference (18 - 60) / 20 = -2.1 does not favour A; the note says so with the means."""
    xa = np.array([51.0] * 18 + [20.0, 20.0])
    xb = np.array([50.0] * 18 + [50.0, 50.0])
    dom = np.array(["news"] * 10 + ["social"] * 10)
    assert V.disagreement_note(xa, xb, dom, "A", "B", -5.0, 1.0, True).endswith(
        "Mean A − B per domain (segments): news +1.00 (10), social -5.20 (10); read this order as uncertain")
    assert "CI of the mean difference includes 0" in V.disagreement_note(xa, xb, dom, "A", "B", -5.0, 1.0, True)
    assert "excludes 0 but the test" in V.disagreement_note(xa, xb, dom, "A", "B", 0.5, 1.0, False)
    assert V.disagreement_note(xa, xb, dom, "A", "B", 0.5, 1.0, True) is None  # both separate
    assert V.disagreement_note(xa, xb, dom, "A", "B", -0.5, 1.0, False) is None  # neither does
    assert V.disagreement_note(xa, xb, dom, "A", "B", float("nan"), 1.0, True) is None


def test_best_system_on_en_cs_says_when_test_and_ci_disagree(en_cs):
    """On WMT24 en-cs the runner-up pair is separated by the Wilcoxon–Stouffer test while the CI
    of the mean difference straddles 0: the verdict carries the note, with per-domain means equal
    to the raw TSV's (item = mean over raters of each rater's mean)."""
    v = V.best_system(en_cs, "esa")
    lo, hi, p = v.evidence["ci_low"], v.evidence["ci_high"], v.evidence["p_value"]
    disagree = (p < 0.05) != (lo > 0 or hi < 0)
    notes = [n for n in v.notes if n.startswith("evidence disagrees")]
    assert bool(notes) == disagree
    if disagree:
        root = shared("wmt24_esa")
        j = pd.read_csv(root / "judgements.tsv", sep="\t", dtype={"seg_id": str})
        j = j[(j["lp"] == "en-cs") & (j["judgement"] == "esa")]
        item = j.groupby(["system", "seg_id", "rater"])["score"].mean().groupby(["system", "seg_id"]).mean()
        a, b = v.answer, v.evidence["runner_up"]
        d = (item[a] - item[b]).dropna()
        dom = pd.read_csv(root / "segments.tsv", sep="\t", dtype={"seg_id": str})
        dom = dom[dom["lp"] == "en-cs"]
        by = d.groupby(d.index.map(dict(zip(dom["seg_id"], dom["domain"])))).agg(["mean", "size"])
        for g, row in by.iterrows():
            assert f"{g} {row['mean']:+.2f} ({int(row['size'])})" in notes[0]


def test_a_beats_b_is_the_recipes_pairwise_test(en_cs):
    from test_system_ranking import _reference

    score, p = _reference(shared("wmt24_esa"), "en-cs")
    v = V.a_beats_b(en_cs, "ONLINE-W", "Claude-3.5", "esa")
    assert v.evidence["difference"] == pytest.approx(score["Claude-3.5"] - score["ONLINE-W"], abs=1e-9)
    assert v.evidence["p_value"] == pytest.approx(p[("ONLINE-W", "Claude-3.5")], abs=1e-9)
    sig = p[("ONLINE-W", "Claude-3.5")] < 0.05
    want = ("Claude-3.5" if score["Claude-3.5"] > score["ONLINE-W"] else "ONLINE-W") if sig else "undecided"
    assert v.answer == want
    lo, hi = v.evidence["ci_low"], v.evidence["ci_high"]
    assert lo <= hi
    # the other order gives the mirrored answer: the same p, the negated difference and CI
    w = V.a_beats_b(en_cs, "Claude-3.5", "ONLINE-W", "esa")
    assert w.evidence["difference"] == pytest.approx(-v.evidence["difference"], abs=1e-12)
    assert (w.evidence["ci_low"], w.evidence["ci_high"]) == pytest.approx((-hi, -lo), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# best metric and the metric to trust: hand-worked tables
# ---------------------------------------------------------------------------------------------
def test_best_metric_names_cluster_and_alternative():
    t = pd.DataFrame({"metric": ["bleu", "chrf", "ter"], "value": [0.5, 0.8, np.nan],
                      "ci_low": [0.1, 0.4, np.nan], "ci_high": [0.7, 0.9, np.nan], "cluster": [1, 1, pd.NA]})
    v = V.best_metric(t, "Pearson r", rank_column="cluster",
                      alternatives={"Kendall": (pd.Series({"bleu": 0.6, "chrf": 0.4}), "ranks, not values")})
    assert v.answer == "chrf" and v.evidence["difference"] == pytest.approx(0.3)
    assert v.evidence["cluster_with"] == ["bleu"] and "not significantly better than bleu" in v.sentence
    (alt,) = v.alternatives
    assert alt.answer == "bleu" and not alt.agrees and "here it puts bleu first" in v.line()
    with pytest.raises(ValueError):
        V.best_metric(t.assign(value=np.nan), "Pearson r")


def test_metric_to_trust_counts_segments_by_brute_force():
    rng = np.random.default_rng(7)
    n = 60
    seg = pd.DataFrame({"a|human:esa": rng.integers(0, 5, n).astype(float),
                        "b|human:esa": rng.integers(0, 5, n).astype(float)})
    for m in ("bleu", "ter"):
        seg[f"a|metric:{m}"] = rng.integers(0, 4, n).astype(float)
        seg[f"b|metric:{m}"] = rng.integers(0, 4, n).astype(float)
    want = {}
    for m, sign in (("bleu", 1), ("ter", -1)):
        agree = total = 0
        for i in range(n):
            dm = sign * (seg[f"b|metric:{m}"][i] - seg[f"a|metric:{m}"][i])
            dh = seg["b|human:esa"][i] - seg["a|human:esa"][i]
            if dm != 0 and dh != 0:
                total += 1
                agree += (dm > 0) == (dh > 0)
        want[m] = agree / total
    v = V.metric_to_trust(seg, "A", "B", ["bleu", "ter"], "human:esa", {"bleu": True, "ter": False})
    best = max(want, key=want.get)
    assert v.answer == best and v.evidence["value"] == pytest.approx(want[best], abs=1e-12)


# ---------------------------------------------------------------------------------------------
# commands start from the pages' defaults (synthetic data: small, one criterion)
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def synth_dir(tmp_path_factory):
    ds = make_synthetic(30, 1, 5, seed=11)
    folder = tmp_path_factory.mktemp("synth") / "data"
    _write(ds, folder)
    return folder


def test_correlate_with_data_alone_gives_the_systems_page_numbers(synth_dir, tmp_path, capsys):
    from evalcore.analysis.system_level import metrics_vs_humans
    from evalcore.io import load_dataset
    from evalcore.scoring.settings import DEFAULTS
    from evalcore.views.systems import first_metrics

    out = tmp_path / "c.tsv"
    assert main(["correlate", str(synth_dir), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    ds = load_dataset(synth_dir)
    metrics = first_metrics(ds)[0]
    page = metrics_vs_humans(ds, metrics, "da", DEFAULTS, n_boot=0, n_perm=2)["table"]  # (values: no draws)
    page = page[page["method"] == "pearson"].set_index("metric")["value"]
    got = pd.read_csv(out, sep="\t").set_index("metric")["value"]
    assert list(got.index) == metrics
    for m in metrics:
        assert got[m] == pytest.approx(page[m], abs=1e-9)
    assert "note: --human da" in err and f"--metrics {','.join(metrics)}" in err
    assert f"verdict: {got.idxmax()} is the best metric" in err


def test_rank_and_metatask_with_data_alone(synth_dir, tmp_path, capsys):
    from evalcore.io import load_collection
    from evalcore.views.metatask import compute

    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    assert main(["rank", str(synth_dir), "--out", str(a)]) == 0
    assert main(["rank", str(synth_dir), "--human", "da", "--out", str(b)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(a, sep="\t"), pd.read_csv(b, sep="\t"))
    capsys.readouterr()
    out = tmp_path / "m.tsv"
    assert main(["metatask", str(synth_dir), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note: --task wmt24" in err and "verdict:" in err
    got = pd.read_csv(out, sep="\t").set_index("metric")
    coll = load_collection(synth_dir)
    res, _, _ = compute(coll, "wmt24", ["bleu", "chrf"], lps=list(coll))  # the Metrics task page's call
    page = res.table().set_index("metric")
    assert list(got.index) == list(page.index)
    for c in [c for c in page.columns if c != "cluster" and pd.api.types.is_numeric_dtype(page[c])]:
        np.testing.assert_allclose(got[c].to_numpy(float), page[c].to_numpy(float), atol=1e-9, rtol=0)


def test_several_judgement_kinds_are_listed_not_chosen(tmp_path, capsys):
    ds = make_synthetic(12, 1, 3, seed=2)
    j2 = ds.judgements.assign(judgement="mqm")
    ds = dataclasses.replace(ds, judgements=pd.concat([ds.judgements, j2], ignore_index=True))
    _write(ds, tmp_path / "d")
    for cmd in (["correlate"], ["rank"]):
        assert main(cmd + [str(tmp_path / "d")]) == 2
        err = capsys.readouterr().err
        assert "several kinds of human judgement (da, mqm)" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# metrics that cannot run for a pair: Hindi target, no parser
# ---------------------------------------------------------------------------------------------
def _hindi(tmp_path):
    ds = dataclasses.replace(make_synthetic(20, 1, 4, seed=5), lp="en-hi", name="synth-en-hi")
    _write(ds, tmp_path / "hi")
    return ds, tmp_path / "hi"


def test_syntactic_metrics_cannot_run_on_hindi(tmp_path):
    from evalcore.scoring.availability import left_out_note, runnable, status

    ds, _ = _hindi(tmp_path)
    ok, why = status(ds, "tree-nsubj")
    assert not ok and "'hi'" in why and "parse" in why
    keep, left = runnable(ds, ["bleu", "tree-nsubj", "no-such-metric"])
    assert keep == ["bleu"] and [m for m, _ in left] == ["tree-nsubj", "no-such-metric"]
    note = left_out_note(left)
    assert "tree-nsubj" in note and "no-such-metric: unknown metric id" in note


def test_tables_leave_out_what_cannot_run_with_a_note(tmp_path, capsys):
    _, folder = _hindi(tmp_path)
    out = tmp_path / "c.tsv"
    assert main(["correlate", str(folder), "--metrics", "bleu,tree-nsubj", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert list(pd.read_csv(out, sep="\t")["metric"]) == ["bleu"]
    assert "left out for en-hi (cannot run here): tree-nsubj" in err
    out = tmp_path / "m.tsv"
    assert main(["metatask", str(folder), "--metrics", "chrf,tree-nsubj", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert list(pd.read_csv(out, sep="\t")["metric"]) == ["chrf"] and "tree-nsubj" in err


def test_one_failing_metric_never_fails_the_table():
    from evalcore.scoring.availability import score_isolated

    calls = []

    def score(ids):
        calls.append(list(ids))
        if "bad" in ids:
            raise RuntimeError("boom")
        return pd.DataFrame({"metric": ids, "score": [1.0] * len(ids)})

    table, failed = score_isolated(score, ["bleu", "bad", "chrf"])
    assert list(table["metric"]) == ["bleu", "chrf"]
    assert failed == [("bad", "failed: RuntimeError: boom")]
    assert calls[0] == ["bleu", "bad", "chrf"]  # all at once first
    table, failed = score_isolated(score, ["bleu"])
    assert failed == [] and len(calls) == 5


def test_verdict_objects_are_frozen_and_plain():
    v = V.Verdict("best metric", "chrf", "chrf is best.", "r", {"value": np.float64(0.5), "x": math.nan},
                  (V.Alternative("k", "bleu", False, "why"),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.answer = "bleu"  # type: ignore[misc]
    d = v.to_dict()
    assert d["evidence"] == {"value": 0.5, "x": None} and d["alternatives"][0]["answer"] == "bleu"
    assert V.verdict_line(v) == "verdict: chrf is best. Alternatives: k: why; here it puts bleu first."


def test_systems_table_leaves_out_what_cannot_run_or_fails(tmp_path, monkeypatch):
    import evalcore.views.systems as S

    ds, _ = _hindi(tmp_path)
    t = S.system_table(ds, ["bleu", "tree-nsubj"], ["da"], n_boot=0)
    assert set(t["measure"]) == {"bleu", "da"}
    assert [m for m, _ in S.left_out(ds, ["bleu", "tree-nsubj"])] == ["tree-nsubj"]
    real = S.system_stats

    def broken(dataset, ids, *a, **k):  # chrf's statistics fail on this data
        if "chrf" in ids:
            raise RuntimeError("chrf broke")
        return real(dataset, ids, *a, **k)

    monkeypatch.setattr(S, "system_stats", broken)
    t = S.system_table(ds, ["bleu", "chrf"], [], n_boot=0, seed=1)
    assert set(t["measure"]) == {"bleu"} and len(t) == 4
    assert S.left_out(ds, ["bleu", "chrf"]) == [("chrf", "failed: RuntimeError: chrf broke")]


def test_pages_offer_only_metrics_that_run_on_every_pair(tmp_path):
    from evalcore.scoring.availability import offered
    from evalcore.scoring.defaults import available_metrics
    from evalcore.syntax import is_syntactic

    hi, _ = _hindi(tmp_path)
    en = make_synthetic(20, 1, 4, seed=5)  # xx-en: English target
    both = offered([en, hi])
    assert "bleu" in both and "chrf" in both
    assert not [m for m in both if is_syntactic(m)]  # none can run on the Hindi pair
    assert set(both) == set(available_metrics(en)) & set(available_metrics(hi))
