"""One answer everywhere: the shared settings and defaults (evalcore.scoring.settings), the Systems page's
"Metrics vs humans" numbers against ``python -m evalcore correlate``, and undefined or degenerate
results explained instead of shown bare."""
from __future__ import annotations

import html
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import ROOT, SAMPLE, shared
from evalcore.cli import main
from evalcore.scoring.settings import DEFAULTS


def _correlate(args, capsys):
    """The table correlate writes (full precision: --out) and its stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "c.tsv"
        assert main(["correlate"] + [str(a) for a in args] + ["--out", str(out)]) == 0
        return pd.read_csv(out, sep="\t"), capsys.readouterr().err


# ---- the settings object ----------------------------------------------------------------------
def test_settings_defaults_and_statement():
    from evalcore.scoring.settings import DEFAULTS, Settings

    assert DEFAULTS.judged_only and DEFAULTS.orientation == "higher-is-better"
    assert DEFAULTS.human_systems == "exclude" and DEFAULTS.rater_aggregation == "segment-mean"
    text = DEFAULTS.describe(criterion="esa")
    assert "segments judged for esa" in text and "negated" in text and "human translations left out" in text
    assert "every segment" in DEFAULTS.with_(judged_only=False).describe()
    with pytest.raises(ValueError):
        Settings(orientation="sideways")
    with pytest.raises(Exception):
        DEFAULTS.judged_only = False  # frozen: one object shared by every page


# ---- the CLI's defaults ----------------------------------------------------------------------------
def _tiny(tmp_path, systems: dict[str, list[str]], human: dict[str, list[float]]):
    """A tidy dataset: segment s has reference 'the cat sat on mat s'; ``systems`` name -> outputs,
    ``human`` name -> adequacy per segment (half of the segments judged when odd-length lists)."""
    n = len(next(iter(systems.values())))
    d = tmp_path / "d"
    d.mkdir()
    seg = pd.DataFrame({"seg_id": [str(i + 1) for i in range(n)], "source": [f"src {i}" for i in range(n)]})
    ref = pd.DataFrame({"seg_id": seg.seg_id, "ref_id": "ref", "text": [f"the cat sat on the mat {i}" for i in range(n)]})
    out = pd.DataFrame([(s, str(i + 1), t) for s, ts in systems.items() for i, t in enumerate(ts)],
                       columns=["system", "seg_id", "text"])
    jud = pd.DataFrame([(s, str(i + 1), "r1", "adequacy", v) for s, vs in human.items() for i, v in enumerate(vs)],
                       columns=["system", "seg_id", "rater", "judgement", "score"])
    for name, f in (("segments", seg), ("references", ref), ("outputs", out), ("judgements", jud)):
        f.to_csv(d / f"{name}.tsv", sep="\t", index=False)
    return d


def test_correlate_judged_only_is_the_default_and_said(tmp_path, capsys):
    """Segments 1-2 judged, 3-4 not: the default scores BLEU over the judged ones only (equal to
    --judged-only, not to --all-segments) and says so on stderr."""
    from sacrebleu.metrics import BLEU

    outs = {"a": ["the cat sat on the mat 0", "a dog 1", "x y z", "p q"],
            "b": ["the cat sat 0", "the cat sat on the mat 1", "the cat sat on the mat 2", "the cat sat on the mat 3"],
            "c": ["cat 0", "the mat 1", "the cat sat on the mat 2", "the cat sat on the mat 3"]}
    d = _tiny(tmp_path, outs, {"a": [4, 2], "b": [3, 5], "c": [1, 2]})
    base = [d, "--metrics", "bleu", "--human", "adequacy"]
    default, err = _correlate(base, capsys)
    assert "judged segments only (the default; --all-segments for every segment)" in err
    assert "settings: metric scores over the segments judged for adequacy" in err
    judged, _ = _correlate(base + ["--judged-only"], capsys)
    every, _ = _correlate(base + ["--all-segments"], capsys)
    refs = [f"the cat sat on the mat {i}" for i in range(4)]
    bleu = {s: BLEU().corpus_score(t[:2], [refs[:2]]).score for s, t in outs.items()}
    gold = {"a": 3.0, "b": 4.0, "c": 1.5}
    want = scipy.stats.pearsonr([bleu[s] for s in "abc"], [gold[s] for s in "abc"]).statistic
    assert default["value"][0] == pytest.approx(want, abs=1e-9) == judged["value"][0]
    assert abs(every["value"][0] - want) > 1e-3  # the switch matters on this data
    assert "judged:yes" in default["settings"][0] and "judged:no" in every["settings"][0]


def test_correlate_orients_error_rates(tmp_path, capsys):
    """TER is negated before correlating by default (the WMT convention the Campaign page uses)."""
    outs = {"a": ["the cat sat on the mat 0", "a dog 1"], "b": ["the cat sat 0", "the cat sat on the mat 1"],
            "c": ["cat 0", "the mat 1"]}
    d = _tiny(tmp_path, outs, {"a": [4, 2], "b": [3, 5], "c": [1, 2]})
    base = [d, "--metrics", "ter", "--human", "adequacy"]
    oriented, err = _correlate(base, capsys)
    assert "ter: lower is better, negated before correlating" in err
    raw, _ = _correlate(base + ["--orientation", "raw"], capsys)
    assert oriented["value"][0] == pytest.approx(-raw["value"][0], abs=1e-12) and raw["value"][0] != 0


# ---- undefined and degenerate results explained ------------------------------------------------------
def test_correlate_constant_metric_is_explained(tmp_path, capsys):
    same = ["the cat sat 0", "the cat 1"]
    d = _tiny(tmp_path, {"a": same, "b": same, "c": same}, {"a": [4, 2], "b": [3, 5], "c": [1, 2]})
    table, err = _correlate([d, "--metrics", "chrf", "--human", "adequacy", "--bootstrap", "20"], capsys)
    assert np.isnan(table["value"][0])
    assert "chrf pearson: undefined: the metric gives all 3 systems the same score" in err


def test_correlate_two_systems_and_one_system_are_explained(tmp_path, capsys):
    outs = {"a": ["the cat sat on the mat 0", "a dog 1"], "b": ["the cat sat 0", "the cat sat on the mat 1"]}
    d = _tiny(tmp_path, outs, {"a": [4, 2], "b": [3, 5]})
    table, err = _correlate([d, "--metrics", "chrf", "--human", "adequacy", "--bootstrap", "50"], capsys)
    assert abs(table["value"][0]) == pytest.approx(1.0)
    assert "degenerate: with 2 systems every correlation is ±1" in err
    table, err = _correlate([d, "--metrics", "chrf", "--human", "adequacy", "--exclude", "b"], capsys)
    assert np.isnan(table["value"][0]) and "undefined: 1 system(s)" in err


# ---- Systems page: metrics vs humans = correlate ------------------------------------------------------
def _vs_cli(path, lp, metrics, human, n_boot, capsys):
    from evalcore.analysis.system_level import VS_HUMANS_METHODS

    rows = []
    for method, _ in VS_HUMANS_METHODS:
        args = [path, "--metrics", ",".join(metrics), "--human", human, "--method", method, "--bootstrap", n_boot]
        t, _ = _correlate(args + (["--lp", lp] if lp else []), capsys)
        rows.append(t.assign(method=method))
    return pd.concat(rows).set_index(["metric", "method"])[["value", "ci_low", "ci_high", "n"]]


def _assert_same(view, cli):
    got = view.set_index(["metric", "method"])[["value", "ci_low", "ci_high", "n"]]
    assert sorted(got.index) == sorted(cli.index)
    for k in cli.index:
        for c in ("value", "ci_low", "ci_high", "n"):
            assert got.loc[k, c] == pytest.approx(cli.loc[k, c], abs=1e-9, nan_ok=True), (k, c)


def test_metrics_vs_humans_view_equals_correlate_on_the_sample(capsys):
    from evalcore.io import load_dataset
    from evalcore.analysis.system_level import metrics_vs_humans

    ds = load_dataset(SAMPLE)
    res = metrics_vs_humans(ds, ["bleu", "chrf", "ter"], "adequacy", n_boot=60)
    _assert_same(res["table"], _vs_cli(SAMPLE, None, ["bleu", "chrf", "ter"], "adequacy", 60, capsys))
    # Williams test between two metrics: against scipy's correlations and the published formula
    r = res["tests"][res["tests"]["test"] == "Williams"].iloc[0]
    assert 0 <= r["p_value"] <= 1 and r["value_a"] >= r["value_b"]


def test_metrics_vs_humans_view_equals_correlate_on_wmt24(capsys):
    from evalcore.io import load_dataset
    from evalcore.analysis.system_level import metrics_vs_humans

    folder = shared("wmt24_esa")
    ds = load_dataset(folder, lp="en-cs")
    res = metrics_vs_humans(ds, ["bleu", "chrf"], "esa", n_boot=100)
    _assert_same(res["table"], _vs_cli(folder, "en-cs", ["bleu", "chrf"], "esa", 100, capsys))
    # chrF and BLEU on 15 systems: a Williams p-value with n - 3 = 12 degrees of freedom
    tests = res["tests"]
    assert len(tests[tests["test"] == "Williams"]) == 1


def test_systems_page_shows_metrics_vs_humans_with_the_cli_numbers(capsys):
    from test_pages import _open

    at = _open("systems", {"sys_boot": 30, "sys_metrics": ["bleu", "chrf"]})
    assert at.checkbox(key="sys_judged_only").value is True  # the shared default
    assert any(s.value == "Metrics vs humans" for s in at.subheader)
    table = next(df.value for df in at.dataframe if {"statistic", "ci_low", "ci_high"} <= set(df.value.columns))
    cli = _vs_cli(SAMPLE, None, ["bleu", "chrf"], "adequacy", 30, capsys)
    from evalcore.analysis.system_level import VS_HUMANS_METHODS

    label = dict((b, a) for a, b in VS_HUMANS_METHODS)
    _assert_same(table.assign(method=table["statistic"].map(label)), cli)
    assert any("Agrees best" in m.value for m in at.markdown)
    assert any("correlate DATA" in c.value for c in at.code)
    assert any("Settings: metric scores over the segments judged for adequacy" in c.value for c in at.caption)


def test_campaign_and_systems_share_the_judged_only_default():
    from test_pages import _open

    at = _open("campaign", {"camp_metrics": ["chrf"]})
    assert at.checkbox(key="camp_judged").value is True
    assert any("Settings:" in c.value for c in at.caption)
    assert (ROOT / "evalcore" / "scoring" / "settings.py").exists()


# ---- Experts: no implicit expert, no figure from nothing, few systems said --------------------------
def _four_systems(tmp_path):
    """4 systems, 6 segments, three raters none of whom is named expert/gold; 'ann' and 'bob'
    agree on the order a > b > c > d, 'cy' reverses it."""
    rng = np.random.default_rng(0)
    outs = {s: [f"output {s} {i}" for i in range(6)] for s in "abcd"}
    d = _tiny(tmp_path, outs, {s: [0.0] * 6 for s in "abcd"})
    rows = []
    for rater, sign in (("ann", 1), ("bob", 1), ("cy", -1)):
        for i in range(6):
            for k, s in enumerate("abcd"):
                rows.append((s, str(i + 1), rater, "adequacy", 50 + sign * (40 - 10 * k) + rng.integers(0, 3)))
    pd.DataFrame(rows, columns=["system", "seg_id", "rater", "judgement", "score"]).to_csv(
        d / "judgements.tsv", sep="\t", index=False)
    return d


def test_experts_without_a_gold_group_takes_no_rater_and_says_so():
    from evalcore.analysis.experts import no_implicit_gold

    assert no_implicit_gold(["rater1", "expert-1", "gold_b"]) == (["expert-1", "gold_b"], None)
    chosen, note = no_implicit_gold(["ann", "bob"])
    assert chosen == [] and "choose the gold (expert) group yourself" in note


def test_experts_rho_from_four_systems_is_flagged(tmp_path, capsys):
    from evalcore.analysis.experts import gold_labels, ranking_correlations
    from evalcore.io import load_dataset

    d = _four_systems(tmp_path)
    ds = load_dataset(d)
    res = ranking_correlations(gold_labels(ds, ["ann"], "adequacy"), None, "", 5)
    row = res.table.set_index("ranking").loc["non-experts: all comparisons"]
    assert row["n_systems"] == 4
    notes = res.notes
    assert any("from only 4 systems" in n and "0.083" in n for n in notes)  # 2/4! two-sided exact p
    assert main(["experts", str(d), "--gold", "ann", "--criterion", "adequacy"]) == 0
    assert "from only 4 systems" in capsys.readouterr().err


def test_experts_page_asks_for_the_gold_group(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from evalcore.io import workspace
    from evalcore.io import load_collection

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "home" / "cache"))
    workspace.save(load_collection(_four_systems(tmp_path)), "four")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    for k, v in {"dataset_label": label, "dataset_select": label, "ex_metric": "(none)"}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page("pages/experts.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.multiselect(key="ex_gold").value == []  # no rater taken as the expert
    assert any("does not take any rater as the expert" in i.value for i in at.info), [i.value for i in at.info]
    assert not at.get("plotly_chart")  # nothing drawn before the user chooses
    at.multiselect(key="ex_gold").set_value(["ann"]).run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("from only 4 systems" in w.value for w in at.warning)


def test_judges_consensus_labels_both_aggregations():
    """The judges' consensus shows the mean of raw rows and the human score of every other page
    (mean over segments of the per-segment mean), computed here from the raw TSV."""
    from evalcore.io import load_dataset
    from evalcore.views.judges import judges_consensus
    from evalcore.views.systems import system_table

    ds = load_dataset(SAMPLE)
    cons = judges_consensus(ds, "adequacy").table.set_index("system")
    raw = pd.read_csv(SAMPLE / "judgements.tsv", sep="\t", dtype={"seg_id": str})
    raw = raw[raw.judgement == "adequacy"]
    seg_mean = raw.groupby(["system", "seg_id"]).score.mean().groupby("system").mean()
    rows_mean = raw.groupby("system").score.mean()
    for s in cons.index:
        assert cons.loc[s, "human_score"] == pytest.approx(seg_mean[s], abs=1e-12)
        assert cons.loc[s, "mean_score"] == pytest.approx(rows_mean[s], abs=1e-12)
    systems = system_table(ds, [], ["adequacy"], n_boot=0, include_references=True).set_index("system")["score"]
    for s in systems.index:
        assert systems[s] == pytest.approx(cons.loc[s, "human_score"], abs=1e-12)


# ---- pages on real names and sizes -----------------------------------------------------------------
def test_system_bars_leave_room_for_long_names_and_every_panel_title():
    """WMT24 en-hi-like names and 9 measures (3 rows): between two rows there is room for the
    longest rotated name (its extent at 7 px per character) plus the next panel's title."""
    from evalcore.present import plots as P

    names = ["Unbabel-Tower70B", "CommandR-plus", "IOL-Research", "Claude-3.5-Sonnet", "Aya23", "refA"]
    measures = ["bleu", "chrf", "ter", "meteor", "rouge-l", "nist-4", "gtm-1", "wer", "per"]
    t = pd.DataFrame([{"measure": m, "system": s, "score": 1.0 + i, "ci_lo": 0.5 + i, "ci_hi": 1.5 + i,
                       "is_reference": s == "refA", "mark": ""} for m in measures for i, s in enumerate(names)])
    fig = P.system_bars(t)
    longest = max(len(s) for s in names) * 7 * np.sin(np.radians(45))
    plot_h = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    doms = sorted({tuple(fig.layout[k].domain) for k in fig.layout if k.startswith("yaxis")}, reverse=True)
    assert len(doms) == 3
    for upper, lower in zip(doms, doms[1:]):
        gap_px = (upper[0] - lower[1]) * plot_h
        assert gap_px >= longest + 24, (gap_px, longest)
    assert fig.layout.margin.b >= longest  # the bottom row's names fit too
    titles = [a.text for a in fig.layout.annotations]
    assert sorted(titles) == sorted(measures)


def _contrast(c1: str, c2: str) -> float:
    """WCAG 2.1 contrast ratio of two #rrggbb colours."""
    def lum(c):
        rgb = [int(c.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        rgb = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    hi, lo = sorted((lum(c1), lum(c2)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_compare_win_rate_labels_are_readable_when_b_wins():
    """The winner's name is drawn outside the bar in dark text on the white page (Plotly's
    automatic inside text is white, unreadable on B's white hatching)."""
    from evalcore.present.plots_compare import win_rates

    wins = pd.DataFrame({"signal": ["bleu", "chrf", "ter"], "a_win_rate": [0.2, 0.9, 0.5], "a_wins": [2, 9, 5],
                         "b_wins": [8, 1, 5], "ties": [0, 0, 0], "n_segments": [10, 10, 10]})
    head = pd.DataFrame({"signal": ["bleu", "chrf", "ter"], "winner": ["Unbabel-Tower70B", "A", ""]})
    bar = win_rates(wins, head, "A", "Unbabel-Tower70B").data[1]  # the stack's last bar carries the names
    assert list(bar.text) == ["Unbabel-Tower70B", "A", "n.s."]
    assert bar.textposition == "outside" and bar.cliponaxis is False
    assert _contrast(bar.textfont.color, "#ffffff") >= 4.5


def test_divergence_detail_lists_only_the_raters_who_judged(tmp_path):
    """r1 judged system a only, r2 system b only: a's detail lists r1 and says one rater is left out."""
    from evalcore.analysis.detail import segment_detail
    from evalcore.io import load_dataset
    from evalcore.views import divergence as dv

    outs = {"a": ["the cat sat on the mat 0", "a dog 1"], "b": ["the cat sat 0", "the cat sat on the mat 1"],
            "c": ["cat 0", "the mat 1"]}
    d = _tiny(tmp_path, outs, {"a": [4, 2], "b": [3, 5], "c": [1, 2]})
    raw = pd.read_csv(d / "judgements.tsv", sep="\t", dtype=str)
    raw["rater"] = raw["system"].map({"a": "r1", "b": "r2", "c": "r3"})
    raw.to_csv(d / "judgements.tsv", sep="\t", index=False)
    ds = load_dataset(d)
    sig = dv.signal_table(ds, ["bleu"], ds.criteria)
    detail = segment_detail(ds, "a", "1", sig)
    judges = [s for s in detail["scores"]["signal"] if s.startswith("judge:")]
    assert judges == ["judge:adequacy:r1"] and detail["not_judged"] == 2
    assert "metric:bleu" in set(detail["scores"]["signal"]) and "human:adequacy" in set(detail["scores"]["signal"])


def test_divergence_output_choice_follows_the_row_not_its_position():
    """The "Output" options are the (system, segment) rows of the table shown; after signal b
    changes, the choice is still a row of the new table (the same output when it is still there)
    and the detail shows that output. Before, the options were positions 0-19 that stayed put."""
    from test_pages import FAST, _open

    at = _open("divergence", FAST)
    system, seg = list(_pick_values(at))[3]
    at.selectbox(key="div_pick").set_value((system, seg)).run()
    assert not at.exception
    assert at.selectbox(key="div_pick").value == (system, seg)
    at.selectbox(key="div_b").set_value("metric:chrf").run()
    assert not at.exception
    now = tuple(at.selectbox(key="div_pick").value)
    rows = list(_pick_values(at))
    assert now in rows
    if (system, seg) in rows:
        assert now == (system, seg)
    assert any(f"Output of {now[0]}" in m.value for m in at.markdown)


def _pick_values(at):
    from evalcore.views import divergence as dv

    return dv.pick_options(_frame_with(at, "divergence")).keys()


def _frame_with(at, column):
    from test_pages import _frame

    return _frame(at, column)


def test_campaign_explains_degenerate_and_undefined_correlations(tmp_path):
    from evalcore.analysis.campaign import campaign
    from evalcore.io import load_collection
    from evalcore.views.campaign import undefined_notes

    two = _tiny(tmp_path, {"a": ["the cat sat on the mat 0", "a dog 1"], "b": ["the cat sat 0", "the mat 1"]},
                {"a": [4, 2], "b": [3, 5]})
    res = campaign(load_collection(two), ["chrf"], "adequacy", settings=DEFAULTS.with_(judged_only=True))
    assert np.isnan(res.correlations["pearson"].iloc[0])  # the campaign needs 3 systems
    assert any("undefined: only 2 systems (at least 3 are needed)" in n for n in undefined_notes(res))
    same = ["the cat sat 0", "the cat 1"]
    (tmp_path / "c").mkdir()
    const = _tiny(tmp_path / "c", {"a": same, "b": same, "c": same}, {"a": [4, 2], "b": [3, 5], "c": [1, 2]})
    res = campaign(load_collection(const), ["chrf"], "adequacy", settings=DEFAULTS.with_(judged_only=True))
    assert np.isnan(res.correlations["pearson"].iloc[0])
    assert any("the metric gives all 3 systems the same score" in n for n in undefined_notes(res))


def test_systems_page_explains_two_systems(tmp_path, monkeypatch):
    """Two systems: every correlation is ±1 with a CI of [1, 1]; the page says so, and draws no
    rank-agreement heatmap from nothing."""
    from streamlit.testing.v1 import AppTest

    from evalcore.io import workspace
    from evalcore.io import load_collection

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "home" / "cache"))
    two = _tiny(tmp_path, {"a": ["the cat sat on the mat 0", "a dog 1"], "b": ["the cat sat 0", "the mat 1"]},
                {"a": [4, 2], "b": [3, 5]})
    workspace.save(load_collection(two), "two")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    for k, v in {"dataset_label": label, "dataset_select": label, "sys_metrics": ["chrf"], "sys_boot": 20,
                 "sys_baseline": "(none)"}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    warnings_ = [html.unescape(w.value) for w in at.warning]  # user text is escaped on the page
    assert any("degenerate: with 2 systems every correlation is ±1" in w for w in warnings_), warnings_
    assert any("No agreement between rankings to draw" in i.value for i in at.info)
    assert not any(c.key == "sys_rank_heat" for c in at.get("plotly_chart") if hasattr(c, "key"))


def test_best_metrics_names_every_tied_metric():
    from evalcore.analysis.system_level import best_metrics

    t = pd.DataFrame({"metric": ["bleu", "chrf", "ter"], "statistic": ["Kendall τ_b"] * 3,
                      "value": [0.428571, 0.428571, 0.1], "ci_low": [-0.1, 0.0, -0.5], "ci_high": [0.7, 0.7, 0.6],
                      "n": [15, 15, 15]})
    (line,) = best_metrics(t)
    assert "bleu 0.429" in line and "chrf 0.429" in line and "(tied)" in line and "ter" not in line


def _mtme_stats():
    import sys as _sys

    root = shared("..") / "oracles" / "mt-metrics-eval"
    if not root.exists():
        pytest.skip(f"{root} is absent (the mt-metrics-eval oracle)")
    _sys.path.insert(0, str(root))
    from mt_metrics_eval import stats

    return stats


def test_williams_between_metrics_matches_mtme_and_correlate(capsys):
    """Williams' p-values of the Systems page = mt-metrics-eval's WilliamsTest on sacreBLEU corpus
    scores and the humans' means computed here from the raw TSV, and = correlate --compare."""
    import re

    from sacrebleu.metrics import BLEU, CHRF

    from evalcore.io import load_dataset
    from evalcore.analysis.system_level import metrics_vs_humans

    mtme = _mtme_stats()
    read = lambda n: pd.read_csv(SAMPLE / n, sep="\t", dtype=str, keep_default_na=False)  # noqa: E731
    outs, refs, jud = read("outputs.tsv"), read("references.tsv"), read("judgements.tsv")
    jud = jud[jud.judgement == "adequacy"].assign(score=lambda d: d.score.astype(float))
    gold = jud.groupby(["system", "seg_id"]).score.mean().groupby("system").mean()
    segs = list(dict.fromkeys(refs.seg_id))
    ref_sets = [refs[refs.ref_id == r].set_index("seg_id").text.reindex(segs).tolist() for r in dict.fromkeys(refs.ref_id)]
    systems = [s for s in dict.fromkeys(outs.system) if s in gold.index]
    vec = {}
    for name, metric in (("bleu", BLEU()), ("chrf", CHRF())):
        vec[name] = np.array([metric.corpus_score(outs[outs.system == s].set_index("seg_id").text.reindex(segs).tolist(),
                                                  ref_sets).score for s in systems])
    g = gold[systems].to_numpy()
    r1, r2 = scipy.stats.pearsonr(g, vec["bleu"])[0], scipy.stats.pearsonr(g, vec["chrf"])[0]
    r12 = scipy.stats.pearsonr(vec["bleu"], vec["chrf"])[0]
    hi, lo = ("bleu", "chrf") if r1 >= r2 else ("chrf", "bleu")
    want = mtme.WilliamsTest(max(r1, r2), min(r1, r2), r12, len(systems))
    res = metrics_vs_humans(load_dataset(SAMPLE), ["bleu", "chrf"], "adequacy", n_boot=0)
    row = res["tests"][res["tests"]["test"] == "Williams"].iloc[0]
    assert (row["metric_a"], row["metric_b"]) == (hi, lo)
    assert row["p_value"] == pytest.approx(want, abs=1e-9)
    assert main(["correlate", str(SAMPLE), "--metrics", "bleu,chrf", "--human", "adequacy", "--compare",
                 "williams"]) == 0
    err = capsys.readouterr().err
    m = re.search(rf"Williams: {hi} \(\S+\) > {lo} \(\S+\): p = (\S+)", err)
    assert m and float(m.group(1)) == pytest.approx(want, rel=1e-5)
