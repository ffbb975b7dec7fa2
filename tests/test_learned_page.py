"""The "Learned metrics" page under AppTest, on the bundled sample with the default options.

The held-out comparison shown on the page is checked twice: against evalcore.learned's own
functions on the same split, and (for sentence BLEU / chrF) against sacreBLEU plus daRR,
acc23 and system-level Pearson written out literally here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE

PAGE = str(ROOT / "pages" / "learned.py")


@pytest.fixture(scope="module")
def sample():
    from evalcore.io import load_dataset

    return load_dataset(SAMPLE)


@pytest.fixture
def page(sample, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["dataset"] = sample
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _table(at, column: str) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert found, f"no table with a {column!r} column"
    return found[0]


def _brute_darr(frame: pd.DataFrame, metric: str) -> tuple[float, int]:
    conc = disc = 0
    for _, g in frame.groupby("seg_id"):
        rows = list(zip(g["human"], g[metric]))
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                dh, dm = rows[i][0] - rows[j][0], rows[i][1] - rows[j][1]
                if dh == 0:
                    continue
                if (dh > 0 and dm > 0) or (dh < 0 and dm < 0):
                    conc += 1
                else:
                    disc += 1  # includes metric ties
    return (conc - disc) / (conc + disc), conc + disc


def _brute_acc23(frame: pd.DataFrame, metric: str) -> float:
    accs = []
    for _, g in frame.groupby("seg_id"):
        rows = list(zip(g["human"], g[metric]))
        if len(rows) < 2:
            continue
        agree = total = 0
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                total += 1
                agree += np.sign(rows[i][0] - rows[j][0]) == np.sign(rows[i][1] - rows[j][1])
        accs.append(agree / total)
    return float(np.mean(accs))


def _check_baselines_independently(sample, shown: pd.DataFrame, test_segs) -> None:
    """sentBLEU / chrF rows recomputed from sacreBLEU and literal statistics."""
    import sacrebleu

    crit = sample.criteria[0]
    j = sample.judgements[(sample.judgements["judgement"] == crit) & sample.judgements["seg_id"].isin(test_segs)]
    human = j.groupby(["system", "seg_id"])["score"].mean().reset_index(name="human")
    pos = {s: i for i, s in enumerate(sample.seg_ids)}
    refs = sample.ref_texts()
    texts = sample.sys_texts()
    human = human[human["system"].isin(list(texts))]
    seg_refs = {s: [refs[r][pos[s]] for r in sample.ref_ids if refs[r][pos[s]] is not None] for s in test_segs}
    cands = [texts[a][pos[s]] for a, s in zip(human["system"], human["seg_id"])]
    rr = [seg_refs[s] for s in human["seg_id"]]
    human["sentBLEU"] = [sacrebleu.sentence_bleu(c, r).score for c, r in zip(cands, rr)]
    human["chrF"] = [sacrebleu.sentence_chrf(c, r).score for c, r in zip(cands, rr)]
    for name in ("sentBLEU", "chrF"):
        row = shown[shown["metric"] == name].iloc[0]
        tau, npairs = _brute_darr(human, name)
        assert row["seg_darr"] == pytest.approx(tau, abs=1e-12)
        assert int(row["darr_pairs"]) == npairs
        assert row["seg_acc23"] == pytest.approx(_brute_acc23(human, name), abs=1e-12)
        means = human.groupby("system")[["human", name]].mean()
        assert row["sys_pearson"] == pytest.approx(stats.pearsonr(means[name], means["human"])[0], abs=1e-12)
        assert int(row["systems"]) == len(means) and int(row["segments"]) == human["seg_id"].nunique()


def _assert_same_numbers(shown: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert list(shown["metric"]) == list(expected["metric"])
    for col in ("seg_darr", "seg_acc23", "seg_acc23_cal", "acc23_epsilon", "sys_pearson"):
        np.testing.assert_allclose(shown[col].to_numpy(float), expected[col].to_numpy(float), rtol=0, atol=1e-12)
    for col in ("darr_pairs", "systems", "segments"):
        assert list(shown[col]) == list(expected[col])


def test_opens_with_a_call_to_action_and_trains_nothing(page, monkeypatch):
    from evalcore.learned import pipeline

    calls = []
    monkeypatch.setattr(pipeline, "train_and_compare", lambda *a, **k: calls.append(1))
    page.run()
    assert not page.exception
    assert any("press **Train**" in i.value for i in page.info)
    assert not page.get("plotly_chart") and not calls
    assert page.radio(key="lm_kind").value == "beer"
    assert page.selectbox(key="lm_criterion").value == page.session_state["dataset"].criteria[0]


def test_beer_defaults_train_show_weights_roc_and_heldout_table(page, sample, monkeypatch):
    from evalcore.learned import pipeline
    from evalcore.learned.beer import train_beer
    from evalcore.learned.evaluate import baseline_scorers, compare_metrics, split_segments
    from evalcore.learned.features import BEER_FEATURES

    calls = []
    real = pipeline.train_and_compare
    monkeypatch.setattr(pipeline, "train_and_compare", lambda *a, **k: calls.append(1) or real(*a, **k))
    page.button(key="lm_train").click().run()
    assert not page.exception, [e.message for e in page.exception]
    assert not page.error
    heads = [s.value for s in page.subheader]
    assert "Feature weights" in heads and "Telling human from machine translations" in heads
    weights = _table(page, "weight")
    assert sorted(weights["feature"]) == sorted(BEER_FEATURES)
    auc = _table(page, "auc")
    assert {"learned", "sentBLEU", "chrF", "-WER", "-PER"} <= set(auc["metric"])
    assert ((auc["auc"] >= 0) & (auc["auc"] <= 1)).all()
    assert len(page.get("plotly_chart")) == 3  # weights, ROC, comparison

    # the same split and model, recomputed outside the page
    crit = sample.criteria[0]
    judged = [s for s in sample.seg_ids if s in set(sample.judgements["seg_id"])]
    train, test = split_segments(judged, 1 / 3, seed=0)
    model = train_beer(sample, "check", crit, train, 0.0, 100.0)
    np.testing.assert_allclose(weights.set_index("feature").loc[model.features, "weight"].to_numpy(),
                               model.arrays["weights"], rtol=0, atol=1e-12)
    scorers = dict(baseline_scorers())
    scorers[[m for m in _table(page, "seg_darr")["metric"] if m.startswith("learned:")][0]] = model.score_many
    expected, _ = compare_metrics(sample, scorers, crit, test, 0.0, True)
    shown = _table(page, "seg_darr")
    _assert_same_numbers(shown, expected)
    _check_baselines_independently(sample, shown, test)

    # reruns (any widget change) reuse the stored results instead of retraining
    page.text_input(key="lm_save_name").input("beer-sample").run()
    assert calls == [1] and _table(page, "seg_darr").equals(shown)


def test_humanlike_defaults_then_save_becomes_a_metric_and_delete_removes_it(page, sample, tmp_path):
    from evalcore.learned.evaluate import baseline_scorers, compare_metrics
    from evalcore.learned.humanlike import train_humanlike
    from evalcore.metrics.base import get_metric, metric_ids

    page.radio(key="lm_kind").set_value("humanlike").run()
    page.button(key="lm_train").click().run()
    assert not page.exception, [e.message for e in page.exception]
    heads = [s.value for s in page.subheader]
    assert {"Feature importances", "Telling human from machine translations",
            "Accuracy vs correlation across the grid"} <= set(heads)
    assert len(page.get("plotly_chart")) == 4
    grid = _table(page, "cv_accuracy")
    assert len(grid) == 4 * 3  # default C grid × γ grid

    crit = sample.criteria[0]
    model, rep = train_humanlike(sample, "check", "svc", (0.1, 1.0, 10.0, 100.0), (0.01, 0.1, 1.0),
                                 test_fraction=1 / 3, seed=0, criterion=crit)
    np.testing.assert_allclose(grid["cv_accuracy"].to_numpy(), rep.grid["cv_accuracy"].to_numpy(), atol=1e-12)
    judged = set(sample.judgements["seg_id"])
    test = [s for s in rep.test_segments if s in judged]
    shown = _table(page, "seg_darr")
    scorers = dict(baseline_scorers())
    scorers[[m for m in shown["metric"] if m.startswith("learned:")][0]] = model.score_many
    expected, _ = compare_metrics(sample, scorers, crit, test, 0.0, True)
    _assert_same_numbers(shown, expected)
    _check_baselines_independently(sample, shown, test)

    # save -> listed, registered as learned:NAME, scores like the trained model
    page.text_input(key="lm_save_name").input("hl-sample").run()
    page.button(key="lm_save").click().run()
    assert not page.exception
    assert "learned:hl-sample" in metric_ids()
    assert (tmp_path / "home" / "models" / "hl-sample.json").exists()
    saved = _table(page, "metric id")
    assert list(saved["metric id"]) == ["learned:hl-sample"]
    refs = [r for r in (t[0] for t in sample.ref_texts().values()) if r is not None]
    cand = sample.sys_texts()[sample.systems[0]][0]
    assert get_metric("learned:hl-sample").sentence_score(cand, refs) == pytest.approx(model.score(cand, refs),
                                                                                       abs=1e-9)
    # delete -> gone from the folder and from metric_ids()
    page.selectbox(key="lm_delete_pick").set_value("hl-sample")
    page.button(key="lm_delete").click().run()
    assert not page.exception
    assert "learned:hl-sample" not in metric_ids()
    assert not (tmp_path / "home" / "models" / "hl-sample.json").exists()


def test_dataset_without_judgements_or_references_says_why(tmp_path, monkeypatch, sample):
    from evalcore.core.dataset import Dataset

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    one_ref = sample.references[sample.references["ref_id"] == sample.ref_ids[0]]
    bare = Dataset("bare", sample.lp, sample.segments, one_ref, sample.outputs, sample.judgements.iloc[0:0])
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["dataset"] = bare
    at.run()
    assert not at.exception
    assert any("no human judgements" in w.value for w in at.warning)
    assert at.button(key="lm_train").disabled
    at.radio(key="lm_kind").set_value("humanlike").run()
    assert any("at least two references" in w.value for w in at.warning)
    assert at.button(key="lm_train").disabled
