"""correlate: pairwise accuracy (pooled under --lp all), the tie-calibration epsilon in every
acc23/tau_23 output, and metric-vs-metric significance (--compare perm|williams) with clusters,
against mt-metrics-eval (stats.Agreement, WilliamsSigDiff, data.AssignRanks)."""
from __future__ import annotations

import sys
import types

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, SHARED_DATA, shared
from evalcore.scoring.settings import DEFAULTS

from test_mtme_roundtrip import OUTLIERS, build_mtme

METRICS = ["stored:sentBLEU-newstest2020", "stored:BLEU-newstest2020", "stored:chrF-newstest2020",
           "stored:TER-newstest2020"]


@pytest.fixture(scope="module")
def mtme():
    path = SHARED_DATA.parent / "oracles" / "mt-metrics-eval"
    if not path.exists():
        pytest.skip("../shared/oracles/mt-metrics-eval is absent (the mt-metrics-eval oracle)")
    sys.path.insert(0, str(path))
    for name in ("apache_beam", "dacite"):  # data.py / ratings.py import them; AssignRanks uses neither
        sys.modules.setdefault(name, types.ModuleType(name))
    from mt_metrics_eval import data, stats

    return stats, data


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("wmt20_sig")
    build_mtme(out)
    return out


def _run(argv, tmp_path, capsys):
    from evalcore.cli import main

    capsys.readouterr()
    out, cmp_out = tmp_path / "t.tsv", tmp_path / "p.tsv"
    assert main(["correlate"] + argv + ["--out", str(out)] + (["--compare-out", str(cmp_out)] if "--compare" in argv
                                                               else [])) == 0
    err = capsys.readouterr().err
    pairs = pd.read_csv(cmp_out, sep="\t", keep_default_na=False) if "--compare" in argv else None
    return pd.read_csv(out, sep="\t", keep_default_na=False), pairs, err


def _vectors(lp, metric, exclude=()):
    """(gold, metric) system vectors of the WMT20 data: MT systems without the human ones."""
    src = shared("wmt20_mqm_scores")
    da = pd.read_csv(src / "wmt_da_sys_scores.tsv", sep="\t", keep_default_na=False)
    off = pd.read_csv(src / "official_metric_sys_scores.tsv", sep="\t", keep_default_na=False)
    d = da[(da.lp == lp) & ~da.mqm_system_name.str.startswith("Human")]
    o = off[(off.lp == lp) & (off.metric == metric) & (off.refset == "newstest2020")]
    both = d.merge(o, left_on="mqm_system_name", right_on="system")
    both = both[~both["system"].isin(set(exclude))]
    return both["da_z_mean"].astype(float).tolist(), both["score"].astype(float).tolist()


def test_pairwise_accuracy_method_and_pooled_row(folder, tmp_path, capsys, mtme):
    stats, _ = mtme
    argv = [str(folder), "--lp", "all", "--human", "wmt-z", "--metrics", ",".join(METRICS[:2]), "--method", "accuracy"]
    table, _, _ = _run(argv, tmp_path, capsys)
    for mid in METRICS[:2]:
        metric = mid.split(":")[1].split("-")[0]
        agree = pairs = 0
        for lp in ("en-de", "zh-en"):
            a, p = stats.Agreement(*_vectors(lp, metric))
            row = table[(table.lp == lp) & (table.metric == mid)].iloc[0]
            assert float(row["value"]) == pytest.approx(a / p, abs=1e-9)
            agree, pairs = agree + a, pairs + p
        pooled = table[(table.lp == "(all)") & (table.metric == mid)]
        assert len(pooled) == 1 and float(pooled.iloc[0]["value"]) == pytest.approx(agree / pairs, abs=1e-12)
        assert int(pooled.iloc[0]["n"]) == 14 + 16


def test_epsilon_column_in_acc23_and_tau23_outputs(tmp_path, capsys):
    """Segment-level acc23/τ_23 on the mt-metrics-eval fixture: the ε used is a column (0 without tie
    calibration, the chosen one with it) and equals the statistics layer's."""
    from evalcore.human.scores import human_scores
    from evalcore.io import load_dataset
    from evalcore.metrics.engine import score_table
    from evalcore.stats import correlation, pivot_scores

    path = str(ROOT / "tests" / "fixtures" / "mtme_tiny")
    ds = load_dataset(path, lp="de-en")
    h = human_scores(ds, "mqm").astype({"seg_id": str})
    s = score_table(ds, ["chrf"], level="segment")
    systems = [x for x in dict.fromkeys(h["system"]) if x in set(s["system"])]
    G, _, segs = pivot_scores(h[h.system.isin(systems)], systems)
    M, _, _ = pivot_scores(s[["system", "seg_id", "score"]], systems, segs)
    for method in ("acc23", "tau_23"):
        for cal in (False, True):
            argv = [path, "--lp", "de-en", "--human", "mqm", "--metrics", "chrf", "--level", "segment",
                    "--method", method] + (["--tie-calibration"] if cal else [])
            table, _, err = _run(argv, tmp_path, capsys)
            ref = correlation(G, M, method, "none", tie_calibration=cal)
            assert float(table.iloc[0]["epsilon"]) == pytest.approx(ref.epsilon, abs=1e-12)
            assert float(table.iloc[0]["value"]) == pytest.approx(ref.value, abs=1e-6)
            assert "epsilon = the metric tie threshold used" in err
    table, _, _ = _run([path, "--lp", "de-en", "--human", "mqm", "--metrics", "chrf"], tmp_path, capsys)
    assert "epsilon" not in table.columns  # only the statistics that have one


def test_compare_williams_matches_mtme_and_clusters(folder, tmp_path, capsys, mtme):
    stats, data = mtme
    argv = [str(folder), "--lp", "en-de", "--human", "wmt-z", "--metrics", ",".join(METRICS),
            "--exclude", ",".join(OUTLIERS["en-de"]), "--compare", "williams"]
    table, pairs, err = _run(argv, tmp_path, capsys)
    vec = {m: _vectors("en-de", m.split(":")[1].split("-")[0], OUTLIERS["en-de"]) for m in METRICS}
    gold = vec[METRICS[0]][0]
    corrs = {m: stats.Correlation(len(gold), gold, v[1]) for m, v in vec.items()}
    import scipy.stats

    for r in pairs.itertuples():
        p, r1, r2 = stats.WilliamsSigDiff(corrs[r.better], corrs[r.worse], scipy.stats.pearsonr)
        assert r1 >= r2
        assert r.p_value == pytest.approx(p, abs=1e-9)
    order = table.sort_values("value", ascending=False)["metric"].tolist()
    sig = np.full((len(order), len(order)), np.nan)
    for r in pairs.itertuples():
        sig[order.index(r.better), order.index(r.worse)] = r.p_value
    ranks = data.AssignRanks(sig, 0.05)
    assert table.set_index("metric").loc[order, "cluster"].astype(int).tolist() == ranks
    assert "metric significance: williams" in err


def test_compare_perm_same_resamples_and_segment_williams_note(folder, tmp_path, capsys):
    from evalcore.stats import perm_both

    argv = [str(folder), "--lp", "zh-en", "--human", "wmt-z", "--metrics", ",".join(METRICS[:3]), "--method",
            "kendall", "--compare", "perm", "--draws", "200", "--seed", "4"]
    table, pairs, _ = _run(argv, tmp_path, capsys)
    assert table["cluster"].min() == 1
    vec = {m: _vectors("zh-en", m.split(":")[1].split("-")[0]) for m in METRICS[:3]}
    gold = np.array(vec[METRICS[0]][0])
    for r in pairs.itertuples():
        ref = perm_both(gold, np.array(vec[r.worse][1]), np.array(vec[r.better][1]), "kendall", k=200, seed=4)
        assert r.p_value == pytest.approx(ref.p_value, abs=1e-12)
    # segment level with Williams: the output says where evalcore differs from mt-metrics-eval
    path = str(ROOT / "tests" / "fixtures" / "mtme_tiny")
    _, _, err = _run([path, "--lp", "de-en", "--human", "mqm", "--metrics", "chrf,bleu", "--level", "segment",
                      "--compare", "williams"], tmp_path, capsys)
    assert "judged cells only" in err and "methods.md §3.5" in err


def test_campaign_clusters_equal_correlate_compare(folder, tmp_path, capsys):
    """The Campaign's metric significance clusters (Williams, Pearson) are correlate --compare's."""
    from evalcore.analysis.campaign import campaign, metric_clusters
    from evalcore.io import load_collection

    camp = campaign(load_collection(folder), METRICS, "wmt-z", lps=["en-de"], exclude=OUTLIERS["en-de"])
    cl, pairs, _ = metric_clusters(camp, "en-de", test="williams")
    argv = [str(folder), "--lp", "en-de", "--human", "wmt-z", "--metrics", ",".join(METRICS),
            "--exclude", ",".join(OUTLIERS["en-de"]), "--compare", "williams"]
    table, cli_pairs, _ = _run(argv, tmp_path, capsys)
    assert dict(zip(cl["metric"], cl["rank"])) == {m.lower(): int(r) for m, r in zip(table["metric"], table["cluster"])}
    got = {(a, b): p for a, b, p in zip(pairs["better"], pairs["worse"], pairs["p_value"])}
    for r in cli_pairs.itertuples():
        assert got[(r.better.lower(), r.worse.lower())] == pytest.approx(r.p_value, abs=1e-9)
    with pytest.raises(ValueError, match="Williams"):
        metric_clusters(camp, "en-de", test="williams", statistic="kendall")


def test_campaign_page_shows_metric_clusters():
    from streamlit.testing.v1 import AppTest

    from evalcore.analysis.campaign import campaign, metric_clusters
    from evalcore.io import load_collection

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.run()
    at.switch_page("pages/campaign.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    shown = next(df.value for df in at.dataframe if list(df.value.columns) == ["metric", "value", "rank"])
    camp = campaign(load_collection(ROOT / "sample_data" / "teaching_es_en"), ["bleu", "chrf"], settings=DEFAULTS.with_(judged_only=True))
    want, _, _ = metric_clusters(camp, "es-en")
    assert shown["metric"].tolist() == want["metric"].tolist() and shown["rank"].tolist() == want["rank"].tolist()
    at.radio(key="camp_sig_test").set_value("williams").run()
    assert not at.exception, [e.message for e in at.exception]


def test_method_level_and_tie_calibration_checked_from_the_registry(folder, capsys):
    from evalcore.cli import main

    base = [str(folder), "--lp", "en-de", "--human", "wmt-z", "--metrics", METRICS[0]]
    assert main(["correlate"] + base + ["--method", "accuracy", "--level", "segment"]) == 2
    assert "defined at system level only" in capsys.readouterr().err
    assert main(["correlate"] + base + ["--method", "darr"]) == 2
    assert "defined at segment level only" in capsys.readouterr().err
    assert main(["correlate"] + base + ["--tie-calibration"]) == 2
    assert "applies to tau_23, acc23, not to pearson" in capsys.readouterr().err
