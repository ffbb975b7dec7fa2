"""Campaign tables (several language pairs) and ``--lp all`` on every command.

Oracles computed here: sacreBLEU's corpus chrF / BLEU / TER, scipy's Pearson r and Kendall τ_b,
system human scores as a literal mean over (system, segment) cell means of the judgement rows,
and a literal double loop over all pairs of systems for the pairwise accuracy of Kocmi et al.
(2021) pooled over language pairs.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLE, shared
from sacrebleu.metrics import BLEU as SBLEU
from sacrebleu.metrics import CHRF as SCHRF
from sacrebleu.metrics import TER as STER
from scipy import stats

from evalcore.analysis.campaign import ALL, campaign
from evalcore.io import load_collection, write_tidy
from evalcore.scoring.settings import DEFAULTS

# sacreBLEU's recommended tokenizers for the target languages (Post 2018), the campaign's defaults
SACRE_TOK = {"en-cs": "13a", "en-ja": "ja-mecab", "en-zh": "zh"}
N_SLICE = 50  # segments per language pair in the shared-data slices (keeps the tests fast)


def _slice(coll, n=N_SLICE):
    return {lp: ds.subset(seg_ids=ds.seg_ids[:n]) for lp, ds in coll.items()}


@pytest.fixture(scope="module")
def wmt24():
    return _slice(load_collection(shared("wmt24_esa")))


@pytest.fixture(scope="module")
def wmt21():
    coll = load_collection(shared("wmt21_news_mqm"))  # zh-en: judged segments are not the first ones
    out = {}
    for lp, ds in coll.items():
        judged = set(ds.judgements["seg_id"])
        out[lp] = ds.subset(seg_ids=[s for s in ds.seg_ids if s in judged][:N_SLICE])
    return out


def _human_means(ds, criterion):
    j = ds.judgements[ds.judgements["judgement"] == criterion]
    cell = {}
    for r in j.itertuples(index=False):
        cell.setdefault((r.system, r.seg_id), []).append(r.score)
    per_sys = {}
    for (s, _), v in cell.items():
        per_sys.setdefault(s, []).append(sum(v) / len(v))
    return {s: sum(v) / len(v) for s, v in per_sys.items()}


def _sacre(metric, ds, system):
    texts = dict(zip(ds.outputs.loc[ds.outputs["system"] == system, "seg_id"],
                     ds.outputs.loc[ds.outputs["system"] == system, "text"]))
    refs = {r: dict(zip(g["seg_id"], g["text"])) for r, g in ds.references.groupby("ref_id", sort=False)}
    segs = [s for s in ds.seg_ids if s in texts and all(s in refs[r] for r in refs)]
    hyp = [texts[s] for s in segs]
    return metric.corpus_score(hyp, [[refs[r][s] for s in segs] for r in refs]).score


def _pairs(g, m):
    agree = n = 0
    for i in range(len(g)):
        for k in range(i + 1, len(g)):
            n += 1
            agree += np.sign(g[i] - g[k]) == np.sign(m[i] - m[k])
    return agree, n


def test_campaign_wmt24_against_sacrebleu_and_scipy(wmt24):
    res = campaign(wmt24, ["chrf", "bleu"], "esa", settings=DEFAULTS.with_(judged_only=False))  # the oracle scores every segment
    total_agree = total_pairs = 0
    for lp, ds in wmt24.items():
        human = _human_means(ds, "esa")
        systems = [s for s in ds.systems if s in human]  # refA: human translation, left out
        assert "refA" in human and "refA" not in systems
        g = np.array([human[s] for s in systems])
        chrf = np.array([_sacre(SCHRF(), ds, s) for s in systems])
        bleu = np.array([_sacre(SBLEU(tokenize=SACRE_TOK[lp]), ds, s) for s in systems])
        got = res.systems[(res.systems["lp"] == lp)].set_index(["measure", "system"])["score"]
        np.testing.assert_allclose([got[("chrf", s)] for s in systems], chrf, rtol=0, atol=1e-9)
        np.testing.assert_allclose([got[("bleu", s)] for s in systems], bleu, rtol=0, atol=1e-9)
        np.testing.assert_allclose([got[("human:esa", s)] for s in systems], g, rtol=0, atol=1e-9)
        assert "refA" not in set(res.systems.loc[res.systems["lp"] == lp, "system"])
        for mid, m in (("chrf", chrf), ("bleu", bleu)):
            row = res.correlations[(res.correlations["lp"] == lp) & (res.correlations["metric"] == mid)].iloc[0]
            assert row["pearson"] == pytest.approx(stats.pearsonr(g, m)[0], abs=1e-12)
            assert row["kendall"] == pytest.approx(stats.kendalltau(g, m)[0], abs=1e-12)
            agree, n = _pairs(g, m)
            assert row["accuracy"] == pytest.approx(agree / n) and row["pairs"] == n
            if mid == "chrf":
                total_agree, total_pairs = total_agree + agree, total_pairs + n
    allrow = res.correlations[(res.correlations["lp"] == ALL) & (res.correlations["metric"] == "chrf")].iloc[0]
    assert allrow["accuracy"] == pytest.approx(total_agree / total_pairs)  # pooled, not averaged
    per = res.correlations[(res.correlations["lp"] != ALL) & (res.correlations["metric"] == "chrf")]
    assert allrow["pearson"] == pytest.approx(per["pearson"].mean())
    assert any("refA" in n and "left out" in n for n in res.notes)
    # metric ranks: by Pearson per pair, 1 = highest
    mr = res.metric_ranks.set_index("metric")
    for lp in wmt24:
        c = res.correlations[res.correlations["lp"] == lp].set_index("metric")["pearson"]
        assert mr.loc[c.idxmax(), f"rank_{lp}"] == 1
    wide = res.wide()
    assert {"lp", "system", "human:esa", "chrf", "chrf rank", "bleu rank"} <= set(wide.columns)


def test_campaign_judged_only_and_human_option(wmt24):
    one = {"en-cs": wmt24["en-cs"]}
    res = campaign(one, ["bleu"], "esa", settings=DEFAULTS.with_(judged_only=True))
    ds = one["en-cs"]
    got = res.systems.set_index(["measure", "system"])["score"]
    j = ds.judgements
    for s in ds.systems:  # each system over the segments judged for it
        mine = set(j.loc[(j["system"] == s) & (j["judgement"] == "esa"), "seg_id"])
        sub = ds.subset(seg_ids=[x for x in ds.seg_ids if x in mine])
        assert got[("bleu", s)] == pytest.approx(_sacre(SBLEU(), sub, s), abs=1e-9)
    assert any("segments judged for esa for each system" in n for n in res.notes)
    assert any("tokenizer 13a" in n for n in res.notes)
    kept = campaign(one, ["bleu"], "esa", settings=DEFAULTS.with_(human_systems="include"))
    rows = kept.systems[kept.systems["system"] == "refA"]
    assert len(rows) == 2 and np.isnan(rows.loc[rows["measure"] == "bleu", "score"]).all()
    assert not any("judged like systems left out" in n for n in kept.notes)


def test_campaign_wmt21_mqm_and_sample(wmt21):
    res = campaign(wmt21, ["chrf"])
    for lp, ds in wmt21.items():
        human = _human_means(ds, "mqm")
        row = res.correlations[(res.correlations["lp"] == lp)].iloc[0]
        systems = [s for s in ds.systems if s in human]  # systems with text and human scores
        g = np.array([human[s] for s in systems])
        m = np.array([_sacre(SCHRF(), ds.with_references(ds.ref_ids), s) for s in systems])
        assert row["n_systems"] == len(systems)
        assert row["pearson"] == pytest.approx(stats.pearsonr(g, m)[0], abs=1e-9)
    assert any("ref-B" in n and "human translation" in n for n in res.notes)
    coll = load_collection(SAMPLE)
    sample = campaign(coll, ["ter"])
    assert list(sample.correlations["lp"]) == ["es-en", ALL]
    assert any("ref-E" in n for n in sample.notes)
    ds = coll["es-en"]
    human = _human_means(ds, "adequacy")
    systems = [s for s in ds.systems if s in human]
    g = np.array([human[s] for s in systems])
    ter = np.array([_sacre(STER(), ds, s) for s in systems])
    row = sample.correlations.iloc[0]
    assert row["pearson"] == pytest.approx(stats.pearsonr(g, -ter)[0], abs=1e-9)  # error rate negated
    rows = sample.systems[sample.systems["measure"] == "ter"]
    assert rows.loc[rows["score"].idxmin(), "rank"] == 1  # lower TER ranks first
    with pytest.raises(ValueError, match="rank_by"):
        campaign(wmt21, ["chrf"], rank_by="spearman")
    with pytest.raises(KeyError):
        campaign(wmt21, ["no-such-metric"])


def test_lp_all_cli(wmt24, tmp_path, capsys):
    from evalcore.cli import main

    folder = write_tidy([ds.subset(seg_ids=ds.seg_ids[:20]) for ds in wmt24.values()], tmp_path / "camp")
    out = tmp_path / "s.tsv"
    assert main(["score", str(folder), "--lp", "all", "--metrics", "chrf", "--level", "system", "--out", str(out)]) == 0
    df = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert list(df.columns)[:5] == ["lp", "metric", "system", "seg_id", "score"] and "signature" in df.columns
    assert list(dict.fromkeys(df["lp"])) == list(wmt24)
    coll = load_collection(folder)
    for lp, ds in coll.items():
        for s in ds.systems[:2]:
            got = df[(df["lp"] == lp) & (df["system"] == s)]["score"].item()
            assert got == pytest.approx(_sacre(SCHRF(), ds, s), abs=1e-9)
    one = tmp_path / "one.tsv"
    assert main(["score", str(folder), "--lp", "en-ja", "--metrics", "chrf", "--level", "system", "--out", str(one)]) == 0
    single = pd.read_csv(one, sep="\t", keep_default_na=False)
    pd.testing.assert_frame_equal(single, df[df["lp"] == "en-ja"].reset_index(drop=True))
    capsys.readouterr()
    assert main(["correlate", str(folder), "--lp", "all", "--human", "esa", "--metrics", "chrf"]) == 0
    corr = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out), sep="\t")
    assert list(corr["lp"]) == list(wmt24) and corr.columns[0] == "lp"
    # QARLA needs two reference sets: every pair is left out, with the reason, and exit code 2
    assert main(["qarla", str(folder), "--lp", "all", "--metrics", "chrf"]) == 2
    err = capsys.readouterr().err
    assert "en-cs: left out: QARLA (ORANGE, KING, QUEEN) needs" in err and "0 of 3" in err
    assert main(["judges", str(folder), "--lp", "all", "--out-prefix", str(tmp_path / "j_")]) == 0
    agree = pd.read_csv(tmp_path / "j_agreement.tsv", sep="\t")
    assert set(agree["lp"]) == set(wmt24)
    assert main(["validate", str(folder), "--lp", "all"]) == 0
    assert main(["learn", str(folder), "--lp", "all", "--kind", "beer", "--human", "esa"]) == 2
    assert main(["compare", str(folder), "--lp", "all", "--a", "x", "--b", "y"]) == 2
    assert "compare takes two systems of one language pair" in capsys.readouterr().err
    assert main(["experts", str(folder), "--lp", "all", "--gold", "x"]) == 2  # supported; no rater x anywhere
    assert "left out" in capsys.readouterr().err


def _page(state: dict):
    from conftest import ROOT
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.switch_page("pages/campaign.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _table(at, column):
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a column {column!r}")


def test_campaign_page_sample():
    at = _page({})
    assert at.title[0].value == "Campaign"
    corr = _table(at, "accuracy")
    assert list(corr["lp"]) == ["es-en", "es-en", ALL, ALL] and set(corr["metric"]) == {"bleu", "chrf"}
    want = campaign(load_collection(SAMPLE), ["bleu", "chrf"], settings=DEFAULTS.with_(judged_only=True)).correlations
    assert corr["pearson"].tolist() == pytest.approx(want["pearson"].tolist())
    assert "ref&#45;E" in " ".join(m.value for m in at.markdown)  # left-out human translations said (escaped)
    charts = at.get("plotly_chart")  # the human scores (drawn first), then the correlations
    assert [c.key for c in charts] == ["camp_human_bars", "camp_bars"]
    at.radio(key="camp_stat").set_value("accuracy").run()
    assert not at.exception


def test_campaign_page_wmt24(wmt24, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    from evalcore.io import workspace

    workspace.save({lp: ds.subset(seg_ids=ds.seg_ids[:30]) for lp, ds in wmt24.items()}, "wmt24-slice")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = _page({"dataset_label": label, "dataset_select": label, "camp_metrics": ["chrf"]})
    corr = _table(at, "accuracy")
    assert list(corr["lp"]) == ["en-cs", "en-ja", "en-zh", ALL]
    wide = _table(at, "human:esa")
    assert set(wide["lp"]) == {"en-cs", "en-ja", "en-zh"} and "refA" not in set(wide["system"])
    ranks = _table(at, "mean_rank")
    assert {"rank_en-cs", "rank_en-ja", "rank_en-zh"} <= set(ranks.columns)


def test_campaign_page_shows_the_human_scores_before_scoring(monkeypatch, tmp_path):
    """The systems × language pairs table with the human scores is drawn before any
    metric is scored; the full table (metric columns) replaces it."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))  # nothing kept on disk by an earlier test
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    import evalcore.analysis.campaign as camp

    events = []
    real_campaign, real_df = camp.campaign, DeltaGenerator.dataframe

    def spy(coll, metrics, *a, **k):
        events.append(("campaign", tuple(metrics)))
        return real_campaign(coll, metrics, *a, **k)

    def dataframe(self, data=None, *a, **k):
        if isinstance(data, pd.DataFrame) and {"lp", "system"} <= set(data.columns):
            events.append(("systems table", tuple(c for c in data.columns if c not in ("lp", "system"))))
        return real_df(self, data, *a, **k)

    monkeypatch.setattr(camp, "campaign", spy)
    monkeypatch.setattr(DeltaGenerator, "dataframe", dataframe)
    st.cache_data.clear()
    st.cache_resource.clear()  # the server-wide record of finished computations
    _page({})
    assert events[:2] == [("campaign", ()), ("systems table", ("human:adequacy", "human:adequacy rank"))], events
    # then the metric columns fill in one metric at a time
    assert events[2:4] == [("campaign", ("bleu",)),
                           ("systems table", ("human:adequacy", "human:adequacy rank", "bleu", "bleu rank"))], events
    assert events[4] == ("campaign", ("bleu", "chrf"))
    assert ("systems table", ("human:adequacy", "human:adequacy rank", "bleu", "bleu rank", "chrf", "chrf rank")) \
        in events[5:]
