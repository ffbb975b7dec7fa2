"""mt-metrics-eval layout round trip on real WMT20 data: validate -> correlate --metrics stored:... ->
campaign reproduces Mathur et al. (2020) Tables 5-7, and every page and command uses the same
human system scores (the given .sys.score ones).

The folder is built here from ../shared/data/wmt20_mqm_scores (see its README): sources are
placeholders (the data has no texts), human-scores/<lp>.wmt-z.sys.score holds the official WMT DA
z system scores, metric-scores/<lp>/<metric>-<refset>.sys.score the official metric scores.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import shared
from evalcore.scoring.settings import DEFAULTS

OUTLIERS = {"en-de": ["Online-G.1556", "WMTBiomedBaseline.388", "zlabs-nlp.179"], "zh-en": ["WMTBiomedBaseline.183"]}

# lp, metric id, excluded systems, include human translations, n systems, published (Mathur et al. 2020)
CASES = [
    ("en-de", "stored:sentBLEU-newstest2020", [], False, 14, 0.934),  # Table 5
    ("zh-en", "stored:sentBLEU-newstest2020", [], False, 16, 0.948),  # Table 5
    ("en-de", "stored:BLEU-newstest2020", OUTLIERS["en-de"], False, 11, 0.825),  # Table 6
    ("en-de", "stored:sentBLEU-newstest2020", OUTLIERS["en-de"], False, 11, 0.823),  # Table 6
    ("zh-en", "stored:sentBLEU-newstest2020", OUTLIERS["zh-en"], False, 15, 0.950),  # Table 6
    # Table 7: reference B, Human-A as a system (Human-P is not one of the 12)
    ("en-de", "stored:BLEU-newstestB2020", OUTLIERS["en-de"] + ["Human-P.0"], True, 12, 0.672),
    ("en-de", "stored:sentBLEU-newstestB2020", OUTLIERS["en-de"] + ["Human-P.0"], True, 12, 0.639),
]


def _read(folder, name):
    return pd.read_csv(os.path.join(folder, name), sep="\t", keep_default_na=False, dtype=str)


def build_mtme(out, with_mqm=False, perturb_mqm=False):
    src = shared("wmt20_mqm_scores")
    segs, da = _read(src, "segments.tsv"), _read(src, "wmt_da_sys_scores.tsv")
    off = _read(src, "official_metric_sys_scores.tsv")
    for d in ("sources", "human-scores"):
        (out / d).mkdir(parents=True, exist_ok=True)
    for lp in ("en-de", "zh-en"):
        n = int((segs["lp"] == lp).sum())
        (out / "sources" / f"{lp}.txt").write_text("".join(f"source {i}\n" for i in range(1, n + 1)))
        d = da[da["lp"] == lp]
        (out / "human-scores" / f"{lp}.wmt-z.sys.score").write_text(
            "".join(f"{s}\t{v}\n" for s, v in zip(d["mqm_system_name"], d["da_z_mean"])))
        (out / "metric-scores" / lp).mkdir(parents=True, exist_ok=True)
        for (metric, refset), g in off[off["lp"] == lp].groupby(["metric", "refset"]):
            (out / "metric-scores" / lp / f"{metric}-{refset}.sys.score").write_text(
                "".join(f"{s}\t{v}\n" for s, v in zip(g["system"], g["score"])))
    if with_mqm:  # en-de MQM per segment, and (perturbed) given MQM system scores
        j = _read(src, "judgements.tsv")
        j = j[(j["lp"] == "en-de") & (j["judgement"] == "mqm")].copy()
        j["k"] = j["seg_id"].astype(int)
        lines = []
        for system, g in j.sort_values(["system", "k"]).groupby("system", sort=False):
            assert g["k"].tolist() == list(range(1, len(g) + 1))
            lines += [f"{system}\t{v}\n" for v in g["score"]]
        (out / "human-scores" / "en-de.mqm.seg.score").write_text("".join(lines))
        means = j.assign(score=j["score"].astype(float)).groupby("system")["score"].mean()
        given = means.iloc[::-1].to_numpy() if perturb_mqm else means.to_numpy()  # reversed: a different ranking
        (out / "human-scores" / "en-de.mqm.sys.score").write_text(
            "".join(f"{s}\t{float(v)!r}\n" for s, v in zip(means.index, given)))
        return dict(zip(means.index, given)), means.to_dict()
    return None


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("wmt20_mtme")
    build_mtme(out)
    return out


def _correlate(argv, tmp_path, capsys):
    from evalcore.cli import main

    capsys.readouterr()
    out = tmp_path / "c.tsv"
    assert main(["correlate"] + argv + ["--out", str(out)]) == 0
    err = capsys.readouterr().err
    return pd.read_csv(out, sep="\t", keep_default_na=False), err


def test_validate_correlate_campaign_reproduce_mathur2020(folder, tmp_path, capsys):
    from evalcore.analysis.campaign import campaign
    from evalcore.cli import main
    from evalcore.io import load_collection

    assert main(["validate", str(folder)]) == 0
    assert "valid" in capsys.readouterr().out
    coll = load_collection(folder)
    for lp, mid, exclude, humans, n_sys, published in CASES:
        argv = [str(folder), "--lp", lp, "--human", "wmt-z", "--metrics", mid]
        argv += ["--exclude", ",".join(exclude)] if exclude else []
        argv += ["--include-human-systems"] if humans else []
        table, err = _correlate(argv, tmp_path, capsys)
        row = table.iloc[0]
        assert row["metric"] == mid and int(row["n"]) == n_sys, (mid, lp)
        assert round(float(row["value"]), 3) == pytest.approx(published, abs=1e-9), (mid, lp, row["value"])
        assert "given system-level wmt-z" in err
        camp = campaign(coll, [mid], "wmt-z", lps=[lp], settings=DEFAULTS.with_(human_systems="include" if humans else "exclude"), exclude=exclude)
        c = camp.correlations
        crow = c[(c["lp"] == lp) & (c["metric"] == mid.lower())].iloc[0]
        assert int(crow["n_systems"]) == n_sys
        assert crow["pearson"] == pytest.approx(float(row["value"]), abs=1e-6)  # (the CLI table has 6 decimals)
        assert any("given system-level wmt-z" in n for n in camp.notes)


def test_stored_metric_rows_are_the_files_and_builtin_name_is_flagged(folder, tmp_path, capsys):
    from evalcore.io import load_dataset
    from evalcore.metrics.byo import stored_ids, stored_scores

    ds = load_dataset(folder, lp="en-de")
    assert "stored:TER-newstest2020" in stored_ids(ds)
    st = stored_scores(ds, ["stored:ter-newstest2020"]).table.set_index("system")["score"]
    off = _read(shared("wmt20_mqm_scores"), "official_metric_sys_scores.tsv")
    want = off[(off.lp == "en-de") & (off.metric == "TER") & (off.refset == "newstest2020")]
    assert st.to_dict() == {s: float(v) for s, v in zip(want["system"], want["score"])}
    with pytest.raises(ValueError, match="stores no scores of that name"):
        stored_scores(ds, ["stored:COMET-newstest2020"])
    # a built-in id named like a stored metric is computed by evalcore, and the output says so
    from evalcore.cli import main

    capsys.readouterr()
    main(["correlate", str(folder), "--lp", "en-de", "--human", "wmt-z", "--metrics", "stored:BLEU-newstest2020,BLEU",
          "--out", str(tmp_path / "x.tsv")])
    err = capsys.readouterr().err
    assert "BLEU is evalcore's BLEU computed from the texts" in err and "stored:BLEU-newstest2020" in err


def test_score_list_metrics_lists_stored_ids(folder, capsys):
    from evalcore.cli import main

    capsys.readouterr()
    assert main(["score", "--list-metrics", str(folder), "--lp", "en-de"]) == 0
    out = capsys.readouterr().out
    ids = [line.split("\t")[0] for line in out.splitlines()]
    assert "stored:sentbleu-newstestb2020" in ids and "bleu" in ids
    line = next(x for x in out.splitlines() if x.startswith("stored:bleu-newstest2020\t"))
    assert "\tstored\t" in line


def test_campaign_uses_the_given_human_system_scores(tmp_path, capsys):
    """A perturbed en-de.mqm.sys.score: correlate and the Campaign table both use it, as
    mt-metrics-eval does (it reads .sys.score), not the mean of the segment scores. Reference:
    scipy's Pearson of the given scores and the official chrF system scores."""
    from evalcore.analysis.campaign import campaign
    from evalcore.io import load_collection

    given, seg_means = build_mtme(tmp_path / "f", with_mqm=True, perturb_mqm=True)
    folder = tmp_path / "f"
    mid = "stored:chrF-newstest2020"
    off = _read(shared("wmt20_mqm_scores"), "official_metric_sys_scores.tsv")
    o = off[(off.lp == "en-de") & (off.metric == "chrF") & (off.refset == "newstest2020")]
    metric = {s: float(v) for s, v in zip(o["system"], o["score"])}
    mt = [s for s in given if s in metric and not s.startswith("Human")]
    want = scipy.stats.pearsonr([given[s] for s in mt], [metric[s] for s in mt])[0]
    mean_based = scipy.stats.pearsonr([seg_means[s] for s in mt], [metric[s] for s in mt])[0]
    assert abs(want - mean_based) > 0.1  # the perturbation matters
    table, err = _correlate([str(folder), "--lp", "en-de", "--human", "mqm", "--metrics", mid], tmp_path, capsys)
    assert float(table.iloc[0]["value"]) == pytest.approx(want, abs=1e-6)
    camp = campaign(load_collection(folder), [mid], "mqm", lps=["en-de"])
    row = camp.correlations.iloc[0]
    assert row["pearson"] == pytest.approx(want, abs=1e-12)
    h = camp.systems[camp.systems["kind"] == "human"].set_index("system")["score"]
    assert np.allclose([h[s] for s in mt], [given[s] for s in mt])


def test_scores_option_reads_a_score_file_or_says_why_not(folder, tmp_path, capsys):
    from evalcore.metrics.byo import read_scores
    from evalcore.core.problems import DataError

    f = folder / "metric-scores" / "en-de" / "sentBLEU-newstest2020.sys.score"
    rows = read_scores(str(f))
    assert set(rows["metric"]) == {"sentBLEU-newstest2020"} and (rows["seg_id"] == "").all()
    table, _ = _correlate([str(folder), "--lp", "en-de", "--human", "wmt-z", "--scores", str(f)], tmp_path, capsys)
    assert round(float(table.iloc[0]["value"]), 3) == 0.934
    seg = tmp_path / "m-refA.seg.score"
    seg.write_text("s1\t1\ns1\tNone\ns2\t3\ns2\t4\n")
    assert read_scores(str(seg)).values.tolist() == [["m-refA", "s1", "1", 1.0], ["m-refA", "s2", "1", 3.0],
                                                     ["m-refA", "s2", "2", 4.0]]
    bad = tmp_path / "en-de.wmt-z.doc.score"
    bad.write_text("s1\t1\n")
    with pytest.raises(DataError, match="must be named <metric>-<refs>.seg.score"):
        read_scores(str(bad))
    broken = tmp_path / "x-refA.sys.score"
    broken.write_text("s1\t1\t2\ns1\tabc\n")
    with pytest.raises(DataError) as exc:
        read_scores(str(broken))
    text = str(exc.value)
    assert "line 1: expected 2 fields" in text and "line 2: score 'abc' is not a number" in text


def test_qarla_on_stored_segment_scores_equals_qarla_on_the_texts(tmp_path, capsys):
    """Stored single-reference segment scores (chrF-refA/refB.seg.score, references scored as systems
    included) serve QARLA as ``stored:chrF``: ORANGE and KING equal those of evalcore's chrF on the
    texts (with two reference sets, x(c, R − {r}) is the other reference's score)."""
    import sacrebleu

    from evalcore.cli import main

    words = "the a cat dog sat on mat big red house small old".split()
    rng = np.random.default_rng(7)

    def sent():
        return " ".join(rng.choice(words, size=rng.integers(3, 9)))

    n = 8
    root = tmp_path / "tiny"
    for d in ("sources", "references", "system-outputs/xx-yy", "metric-scores/xx-yy"):
        (root / d).mkdir(parents=True)
    (root / "sources" / "xx-yy.txt").write_text("".join(f"src {i}\n" for i in range(n)))
    texts = {name: [sent() for _ in range(n)] for name in ("refA", "refB", "sys1", "sys2", "sys3")}
    for r in ("refA", "refB"):
        (root / "references" / f"xx-yy.{r}.txt").write_text("\n".join(texts[r]) + "\n")
    for s_ in ("sys1", "sys2", "sys3"):
        (root / "system-outputs" / "xx-yy" / f"{s_}.txt").write_text("\n".join(texts[s_]) + "\n")
    for r in ("refA", "refB"):
        cands = [c for c in texts if c != r]
        lines = [f"{c}\t{sacrebleu.sentence_chrf(t, [texts[r][k]]).score!r}\n"
                 for c in cands for k, t in enumerate(texts[c])]
        (root / "metric-scores" / "xx-yy" / f"chrF-{r}.seg.score").write_text("".join(lines))
    out = {}
    for mid in ("chrf", "stored:chrF"):
        capsys.readouterr()
        assert main(["qarla", str(root), "--metrics", mid, "--out", str(tmp_path / "q.tsv")]) == 0
        out[mid] = pd.read_csv(tmp_path / "q.tsv", sep="\t").iloc[0]
    for col in ("orange", "king"):
        assert col in out["chrf"].index
        assert out["stored:chrF"][col] == pytest.approx(out["chrf"][col], abs=1e-9), col
    # correlations need one reference set: the family id says which ones there are
    from evalcore.io import load_dataset
    from evalcore.metrics.byo import stored_scores

    with pytest.raises(ValueError, match="stored:chrF-refA, stored:chrF-refB"):
        stored_scores(load_dataset(root), ["stored:chrF"])


def test_systems_and_likeness_pages_use_the_given_human_system_scores(tmp_path):
    """The mt-metrics-eval fixture with a .sys.score unlike the segment means: the Systems table's
    human score and the likeness page's system-level correlation use the given scores."""
    import shutil

    from conftest import ROOT
    from evalcore.io import load_dataset
    from evalcore.views import systems as systems_view
    from evalcore.metrics.engine import score_table
    from evalcore.views.likeness_vs_acceptability import figure3_points

    root = tmp_path / "m"
    shutil.copytree(ROOT / "tests" / "fixtures" / "mtme_tiny", root)
    given = {"sysA": 3.0, "sysB": -2.0, "sysC": 1.0}
    (root / "human-scores" / "de-en.mqm.sys.score").write_text("".join(f"{s}\t{v}\n" for s, v in given.items()))
    ds = load_dataset(root, lp="de-en")
    t = systems_view.system_table(ds, ["chrf"], ["mqm"], n_boot=0)
    h = t[t["kind"] == "human"].set_index("system")["score"]
    assert {s: h[s] for s in given} == given
    pts = figure3_points(ds, ["chrf"], "mqm", level="system", method="pearson", groups=["standard metric"])
    seg = score_table(ds, ["chrf"], level="segment")
    judged = ds.judgements[ds.judgements["judgement"] == "mqm"][["system", "seg_id"]].astype(str)
    chrf = seg.merge(judged, on=["system", "seg_id"]).groupby("system")["score"].mean()  # over judged segments
    want = scipy.stats.pearsonr([given[s] for s in given], [chrf[s] for s in given])[0]
    assert float(pts["corr"].iloc[0]) == pytest.approx(want, abs=1e-9)


def test_campaign_page_on_the_mtme_folder_with_stored_metrics(folder, tmp_path, monkeypatch):
    """The Campaign page on the score-only folder (human scores given per system only): its picker
    offers the stored metrics and its table reproduces Mathur et al. 2020 Table 5."""
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT
    from evalcore.io import workspace
    from evalcore.io import load_collection

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    workspace.save(load_collection(folder), "wmt20-mtme")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    chosen = ["stored:sentbleu-newstest2020", "stored:bleu-newstest2020"]
    for k, v in {"dataset_label": label, "dataset_select": label, "camp_metrics": chosen, "camp_crit": "wmt-z"}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page("pages/campaign.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert "stored:sentbleu-newstestb2020" in at.multiselect(key="camp_metrics").options
    corr = next(df.value for df in at.dataframe if "accuracy" in df.value.columns)
    row = corr[(corr["lp"] == "zh-en") & (corr["metric"] == chosen[0])].iloc[0]
    assert round(row["pearson"], 3) == 0.948 and row["n_systems"] == 16
    row = corr[(corr["lp"] == "en-de") & (corr["metric"] == chosen[0])].iloc[0]
    assert round(row["pearson"], 3) == 0.934 and row["n_systems"] == 14
