"""Human translations as systems, --judged-only, given system-level human scores and the
notes that replace silent behaviour.

References are computed here, independently of evalcore: sacreBLEU corpus BLEU/chrF over the
raw TSV rows, scipy's Pearson / Kendall, hand-built tiny datasets. Freitag et al. 2021 (TACL)
found that BLEU's system-level correlation with MQM flips when human translations are scored
as systems; Mathur et al. 2020 published the WMT20 system-level Pearson correlations.
"""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from conftest import shared
from sacrebleu.metrics import BLEU, CHRF
from scipy import stats

from evalcore.cli import main
from evalcore.core.dataset import Dataset
from evalcore.metrics.engine import candidate_plan, score_result


def _read(folder, name):
    return pd.read_csv(folder / name, sep="\t", keep_default_na=False, dtype=str)  # CSV quoting, as written


@pytest.fixture(scope="module")
def wmt21():
    """Raw en-de rows of WMT21 news (Freitag et al. 2021 MQM)."""
    folder = shared("wmt21_news_mqm")
    refs = _read(folder, "references.tsv")
    outs = _read(folder, "outputs.tsv")
    jud = _read(folder, "judgements.tsv")
    seg = _read(folder, "segments.tsv")
    refs, outs = refs[refs.lp == "en-de"], outs[outs.lp == "en-de"]
    jud, seg = jud[(jud.lp == "en-de") & (jud.judgement == "mqm")], seg[seg.lp == "en-de"]
    jud = jud.assign(score=jud.score.astype(float))
    texts = {s: g.set_index("seg_id")["text"] for s, g in outs.groupby("system")}
    texts.update({r: g.set_index("seg_id")["text"] for r, g in refs.groupby("ref_id")})
    return folder, list(seg.seg_id), texts, jud, sorted(outs.system.unique())


#: sacreBLEU's corpus scores, each computed once per module: {(metric and its plain options,
#: system, ref, segments): score} (the flip test's four cases and the page test share most)
_SACRE: dict = {}


def _expected(wmt21, metric, ref, humans, judged_only):
    """Corpus metric of every candidate against ``ref`` (sacreBLEU), MQM = mean over the
    candidate's judged segments (evalcore's system-level gold, Freitag et al. 2021), Pearson."""
    _, seg_ids, texts, jud, mt = wmt21
    xs, ys = [], []
    for name in mt + humans:
        judged = jud[jud.system == name]
        judged_ids = set(judged.seg_id)
        segs = [s for s in seg_ids if s in judged_ids] if judged_only else seg_ids
        options = sorted((k, v) for k, v in vars(metric).items() if isinstance(v, (str, int, float, bool, type(None))))
        key = (type(metric).__name__, tuple(options), name, ref, tuple(segs))
        if key not in _SACRE:
            hyp = [texts[name][s] for s in segs]
            _SACRE[key] = metric.corpus_score(hyp, [[texts[ref][s] for s in segs]]).score
        xs.append(_SACRE[key])
        ys.append(judged.score.mean())
    return stats.pearsonr(xs, ys)[0], len(xs), len(segs)


def _run(args, tmp_path, capsys):
    out = tmp_path / "o.tsv"
    assert main(args + ["--out", str(out)]) == 0
    err = capsys.readouterr().err
    return pd.read_csv(out, sep="\t"), err


@pytest.mark.parametrize("include,judged,published", [
    (True, True, -0.299241), (True, False, -0.268), (False, True, 0.849917), (False, False, 0.828439)])
def test_wmt21_bleu_flip_with_human_translations(wmt21, tmp_path, capsys, include, judged, published):
    folder = wmt21[0]
    args = ["correlate", str(folder), "--lp", "en-de", "--metrics", "bleu", "--human", "mqm", "--level", "system",
            "--refs", "ref-C"] + (["--include-human-systems"] if include else []) + (["--judged-only"] if judged else ["--all-segments"])
    table, err = _run(args, tmp_path, capsys)
    want, n, n_seg = _expected(wmt21, BLEU(), "ref-C", ["ref-A", "ref-D"] if include else [], judged)
    row = table.iloc[0]
    assert row["value"] == pytest.approx(want, abs=1e-9)
    assert row["value"] == pytest.approx(published, abs=5e-4 if published == -0.268 else 5e-7)
    assert row["n"] == n == (10 if include else 8)
    assert row["n_segments"] == n_seg == (527 if judged else 1002)
    if include:
        assert "ref-C left out" in err and "chosen reference set" in err
        assert "ref-B" in err  # judged, no text: said, not dropped silently
    else:
        assert "human translations left out" in err


def test_score_include_references_and_judged_only_match_sacrebleu(wmt21, tmp_path, capsys):
    folder, seg_ids, texts, jud, mt = wmt21
    table, err = _run(["score", str(folder), "--lp", "en-de", "--metrics", "chrf", "--level", "system",
                       "--refs", "ref-D", "--include-references", "--judged-only"], tmp_path, capsys)
    assert set(table.system) == set(mt) | {"ref-A", "ref-C"}
    assert "ref-D left out" in err and "527 of 1002" in err
    for name in ["ref-A", mt[0]]:
        segs = [s for s in seg_ids if s in set(jud[jud.system == name].seg_id)]
        want = CHRF().corpus_score([texts[name][s] for s in segs], [[texts["ref-D"][s] for s in segs]]).score
        row = table[table.system == name].iloc[0]
        assert row["score"] == pytest.approx(want, abs=1e-9) and row["n_segments"] == len(segs) == 527


# ---- engine: the candidate plan on small hand-built data ------------------------------------
def _tiny(n_refs=2, seed=3):
    rng = random.Random(seed)
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "big", "red", "house"]

    def sent():
        return " ".join(rng.choice(words) for _ in range(rng.randint(3, 8)))

    segs = pd.DataFrame({"seg_id": [str(i) for i in range(1, 7)]})
    refs = pd.DataFrame([(s, f"R{j}", sent()) for s in segs.seg_id for j in range(n_refs)],
                        columns=["seg_id", "ref_id", "text"])
    outs = pd.DataFrame([(s, f"sys{a}", sent()) for s in segs.seg_id for a in range(2)],
                        columns=["seg_id", "system", "text"])[["system", "seg_id", "text"]]
    return Dataset("tiny", "xx-yy", segs, refs, outs)


def test_candidate_plan_every_candidate_against_the_chosen_set():
    ds = _tiny(n_refs=3)
    plan, notes = candidate_plan(ds, ["R1"], include_references=True)
    assert {n: r for n, _, r in plan} == {"sys0": ["R1"], "sys1": ["R1"], "R0": ["R1"], "R2": ["R1"]}
    assert notes and "R1 left out" in notes[0]
    res = score_result(ds, ["bleu"], level="system", ref_ids=["R1"], include_references=True,
                       segments={"sys0": ["1", "2", "3"], "R0": ["2", "4"]})
    tab = res.table
    r = ds.ref_texts()
    want = BLEU().corpus_score([r["R0"][1], r["R0"][3]], [[r["R1"][1], r["R1"][3]]]).score
    assert tab.set_index("system").loc["R0", "score"] == pytest.approx(want, abs=1e-9)
    assert set(tab.system) == {"sys0", "R0"} and "left out (no judged segments): sys1, R2" in res.notes[-1]


def test_only_reference_is_said_not_dropped_silently():
    ds = _tiny(n_refs=1)
    for refs in (None, ["R0"]):
        plan, notes = candidate_plan(ds, refs, include_references=True)
        assert [n for n, _, _ in plan] == ["sys0", "sys1"]
        assert len(notes) == 1 and "only reference set" in notes[0]


def test_leave_one_out_without_chosen_set_is_flagged():
    _, notes = candidate_plan(_tiny(n_refs=2), None, include_references=True)
    assert "not comparable" in notes[0]


# ---- point 7: human scores given per system --------------------------------------------------
def test_wmt20_given_system_da_reproduces_mathur2020(tmp_path, capsys):
    folder = shared("wmt20_mqm_scores")
    off = _read(folder, "official_metric_sys_scores.tsv")
    da = _read(folder, "wmt_da_sys_scores.tsv")
    table, err = _run(["correlate", str(folder), "--lp", "en-de", "--human", "da_z", "--scores",
                       str(folder / "official_metric_sys_scores.tsv"), "--metrics", "sentBLEU", "--refs",
                       "newstest2020"], tmp_path, capsys)
    o = off[(off.lp == "en-de") & (off.metric == "sentBLEU") & (off.refset == "newstest2020")]
    d = da[(da.lp == "en-de") & ~da.mqm_system_name.str.startswith("Human")]
    both = d.merge(o, left_on="mqm_system_name", right_on="system")
    want = stats.pearsonr(both.da_z_mean.astype(float), both.score.astype(float))[0]
    row = table.iloc[0]
    assert row["n"] == len(both) == 14
    assert row["value"] == pytest.approx(want, abs=1e-9)
    assert round(row["value"], 3) == 0.934  # Mathur et al. 2020, Table 5
    assert "given system-level da_z" in err


def test_tidy_judgements_with_empty_seg_id_are_system_scores(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    d = tmp_path / "d"
    (d / "segments.tsv").write_text("seg_id\tsource\n1\ta\n2\tb\n")
    (d / "references.tsv").write_text("seg_id\tref_id\ttext\n1\tR\ta b c\n2\tR\td e f\n")
    (d / "outputs.tsv").write_text("system\tseg_id\ttext\n" + "".join(
        f"s{k}\t{i}\t{t}\n" for k, ts in enumerate([("a b c", "d e f"), ("a b x", "d x f"), ("x y c", "z y f")])
        for i, t in zip((1, 2), ts)))
    given = {"s0": 0.9, "s1": 0.1, "s2": 0.4}
    (d / "judgements.tsv").write_text("system\tseg_id\tjudgement\tscore\n" + "".join(
        f"{s}\t\tda\t{v}\n" for s, v in given.items()))
    table, _ = _run(["correlate", str(d), "--human", "da", "--metrics", "chrf", "--method", "kendall"],
                      tmp_path, capsys)
    r = ["a b c", "d e f"]
    outs = {"s0": ["a b c", "d e f"], "s1": ["a b x", "d x f"], "s2": ["x y c", "z y f"]}
    chrf = [CHRF().corpus_score(outs[s], [r]).score for s in given]
    want = stats.kendalltau(list(given.values()), chrf, variant="b")[0]
    assert table.iloc[0]["value"] == pytest.approx(want, abs=1e-9) and table.iloc[0]["n"] == 3


# ---- point 8: darr on a 1-5 scale, item-grouped counts ---------------------------------------
def test_darr_on_small_scale_explains_empty_value_and_groups_are_counted(tmp_path, capsys):
    d = tmp_path / "d"
    d.mkdir()
    rng = random.Random(5)
    words = ["one", "two", "three", "four", "five", "six", "seven"]
    segs = [str(i) for i in range(1, 6)]
    (d / "segments.tsv").write_text("seg_id\tsource\n" + "".join(f"{s}\tx\n" for s in segs))
    (d / "references.tsv").write_text("seg_id\tref_id\ttext\n" + "".join(
        f"{s}\tR\t{' '.join(rng.sample(words, 5))}\n" for s in segs))
    outs, jud = [], []
    for k in range(3):
        for s in segs:
            outs.append(f"s{k}\t{s}\t{' '.join(rng.sample(words, 5))}\n")
            if not (s == "5" and k > 0):  # item 5: one judged output only -> no group
                jud.append(f"s{k}\t{s}\tadequacy\t{rng.randint(1, 5)}\n")
    (d / "outputs.tsv").write_text("system\tseg_id\ttext\n" + "".join(outs))
    (d / "judgements.tsv").write_text("system\tseg_id\tjudgement\tscore\n" + "".join(jud))
    table, err = _run(["correlate", str(d), "--human", "adequacy", "--metrics", "chrf", "--level", "segment",
                       "--method", "darr"], tmp_path, capsys)
    assert np.isnan(table.iloc[0]["value"])
    judged = pd.DataFrame([r.split("\t") for r in jud], columns=["system", "seg_id", "j", "score"])
    spread = judged.assign(score=judged.score.astype(float)).groupby("seg_id").score.agg(lambda x: x.max() - x.min())
    assert "no pair of outputs of one segment differs by >= 25" in err
    assert f"largest difference is {spread.max():g}" in err
    table, err = _run(["correlate", str(d), "--human", "adequacy", "--metrics", "chrf", "--level", "segment",
                       "--method", "pearson", "--group", "item"], tmp_path, capsys)
    h = pd.DataFrame([r.rstrip("\n").split("\t") for r in jud], columns=["system", "seg_id", "j", "score"])
    h["score"] = h.score.astype(float)
    text = {(o.split("\t")[0], o.split("\t")[1]): o.rstrip("\n").split("\t")[2] for o in outs}
    ref = {line.split("\t")[0]: line.rstrip("\n").split("\t")[2]
           for line in (d / "references.tsv").read_text().splitlines()[1:]}
    h["chrf"] = [CHRF().sentence_score(text[(a, s)], [ref[s]]).score for a, s in zip(h.system, h.seg_id)]
    per_item = [stats.pearsonr(g.score, g.chrf)[0] for _, g in h.groupby("seg_id")
                if len(g) > 1 and g.score.nunique() > 1 and g.chrf.nunique() > 1]
    row = table.iloc[0]
    assert row["n"] == len(h) == 13 and row["n_groups"] == len(per_item) >= 1
    assert row["value"] == pytest.approx(np.mean(per_item), abs=1e-9)
    assert "n_groups = item groups averaged" in err


# ---- point 8: learn checks --human and --out before training; a file path works both ways --------
def test_learn_checks_before_training_and_accepts_a_file_path(tmp_path, monkeypatch, capsys):
    from test_learned import toy_ranking_dataset

    import evalcore.learned.pipeline as pipeline
    from evalcore.io.tidy import write_tidy
    from evalcore.metrics.base import get_metric

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    d = tmp_path / "rank"
    write_tidy(toy_ranking_dataset(n_seg=12), d)
    trained = []  # the work done (not the seconds): every call of the training pipeline
    real_train = pipeline.train_and_compare
    monkeypatch.setattr(pipeline, "train_and_compare", lambda *a, **k: trained.append(1) or real_train(*a, **k))
    assert main(["learn", str(d), "--kind", "beer", "--human", "nosuch", "--out", "x"]) == 2
    assert "no judgements for criterion 'nosuch'" in capsys.readouterr().err
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    assert main(["learn", str(d), "--kind", "beer", "--out", str(blocker / "m.json")]) == 2
    assert "not a writable folder" in capsys.readouterr().err
    assert main(["learn", str(d), "--kind", "beer", "--out", "Bad Name!"]) == 2
    assert "invalid model name" in capsys.readouterr().err
    assert trained == []  # nothing was trained: every problem found before the pipeline ran
    target = tmp_path / "elsewhere" / "mine.json"
    assert main(["learn", str(d), "--kind", "beer", "--out", str(target), "--test-fraction", "0"]) == 0
    assert trained == [1]  # (the spy sees the command's training call)
    assert target.exists() and (tmp_path / "elsewhere" / "mine.npz").exists()
    m = get_metric(f"learned:{target}")
    assert m.sentence_score("river house", ["river house"]) == pytest.approx(1.0)


def test_systems_page_reproduces_the_flip_on_wmt21(wmt21, tmp_path, monkeypatch):
    """The same numbers through the dashboard: the Systems page with human translations as
    systems against ref-C, judged segments only. Pearson over the page's own table (BLEU and
    MQM columns) equals sacreBLEU + scipy computed here (-0.299241, n = 10)."""
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT
    from evalcore.io import workspace
    from evalcore.io import load_collection

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "home" / "cache"))
    workspace.save(load_collection(wmt21[0]), "wmt21-news")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    for k, v in {"dataset_label": label, "dataset_select": label, "lp_select": "en-de", "sys_metrics": ["bleu"],
                 "sys_criteria": ["mqm"], "sys_boot": 0, "sys_baseline": "(none)", "systems_scope": 0}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.checkbox(key="sys_refs").set_value(True).run()
    at.multiselect(key="sys_ref_ids").set_value(["ref-C"]).run()
    at.checkbox(key="sys_judged_only").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    wide = next(df.value for df in at.dataframe if {"bleu", "mqm"} <= set(df.value.columns))
    both = wide.dropna(subset=["bleu", "mqm"])
    want, n, _ = _expected(wmt21, BLEU(), "ref-C", ["ref-A", "ref-D"], True)
    assert set(both["system"]) >= {"ref-A", "ref-D"} and "ref-C" not in set(both["system"])
    assert len(both) == n == 10
    assert stats.pearsonr(both["bleu"], both["mqm"])[0] == pytest.approx(want, abs=1e-9)
    assert want == pytest.approx(-0.299241, abs=5e-7)
