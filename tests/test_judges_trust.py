"""Krippendorff's alpha with one value per (rater, output), sparse
Schulze ballots, one MQM scorer, and what one-reference data can and cannot do.

References are computed here: the `krippendorff` package (test oracle), pandas group-bys over
the raw TSV files, hand-worked examples."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLE, shared

from evalcore.cli import main
from evalcore.core.dataset import Dataset
from evalcore.human.agreement import ALPHA_NO_SHARED_ITEM, alpha_of_judgements, krippendorff_alpha

UNDEFINED = "undefined: no item was judged by two raters"


def J(rows):
    return pd.DataFrame(rows, columns=["system", "seg_id", "rater", "judgement", "score"]).astype({"score": float})


def _tiny_one_rater_per_output() -> Dataset:
    """Two raters, never on the same output; r1 repeats two outputs (the en-hi ESA situation:
    the old code read the repeats as agreement and printed alpha = 1)."""
    segs = pd.DataFrame({"seg_id": ["1", "2"], "source": ["x", "y"]})
    refs = pd.DataFrame({"seg_id": ["1", "2"], "ref_id": ["ref-A", "ref-A"], "text": ["a b", "c d"]})
    outs = pd.DataFrame({"system": ["S", "S", "T", "T"], "seg_id": ["1", "2", "1", "2"],
                         "text": ["a b", "c", "a", "c d"]})
    j = J([("S", "1", "r1", "esa", 70), ("S", "1", "r1", "esa", 70), ("T", "1", "r1", "esa", 40),
           ("T", "1", "r1", "esa", 40), ("S", "2", "r2", "esa", 90), ("T", "2", "r2", "esa", 20)])
    return Dataset("tiny", "en-hi", segs, refs, outs, j)


def _write_tidy(ds: Dataset, folder) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    ds.segments.to_csv(folder / "segments.tsv", sep="\t", index=False)
    ds.references.to_csv(folder / "references.tsv", sep="\t", index=False)
    ds.outputs.to_csv(folder / "outputs.tsv", sep="\t", index=False)
    ds.judgements.to_csv(folder / "judgements.tsv", sep="\t", index=False)


# =============================================================================================
# Krippendorff's alpha (point 3)
# =============================================================================================
def test_alpha_undefined_when_no_output_has_two_raters(tmp_path, capsys):
    ds = _tiny_one_rater_per_output()
    al = alpha_of_judgements(ds.judgements)
    assert np.isnan(al.value) and al.reason == UNDEFINED == ALPHA_NO_SHARED_ITEM
    assert al.text() == UNDEFINED and (al.n_items, al.n_raters, al.n_repeats) == (0, 2, 2)
    # the long form averages a rater's repeats first: no pairable values remain
    long = pd.DataFrame({"unit": ds.judgements["system"] + "|" + ds.judgements["seg_id"],
                         "rater": ds.judgements["rater"], "score": ds.judgements["score"]})
    assert np.isnan(krippendorff_alpha(long))
    from evalcore.views.judges import judges_overview

    ov = judges_overview(ds, "esa")
    assert np.isnan(ov["alpha"]) and ov["alpha_reason"] == UNDEFINED
    assert ov["outputs_per_segment"] == (2, 2)
    # CLI: the reason, never a number
    _write_tidy(ds, tmp_path / "d")
    assert main(["judges", str(tmp_path / "d"), "--criterion", "esa"]) == 0
    out = capsys.readouterr().out
    assert f"# Krippendorff's alpha (interval): {UNDEFINED}" in out
    row = next(line for line in out.splitlines() if "\tesa\tkrippendorff_alpha_interval" in line)
    fields = row.split("\t")
    assert fields[-1] == UNDEFINED and fields[-3] == ""  # alpha column empty


def test_alpha_defined_case_matches_the_package():
    """A hand-sized set with repeats: equal to the package on the (rater x output) matrix of means."""
    import krippendorff

    j = J([("S", "1", "r1", "da", 60), ("S", "1", "r1", "da", 80), ("S", "1", "r2", "da", 75),
           ("T", "1", "r1", "da", 20), ("T", "1", "r2", "da", 30), ("T", "1", "r3", "da", 10),
           ("S", "2", "r2", "da", 50), ("S", "2", "r3", "da", 55), ("T", "2", "r3", "da", 99)])
    matrix = np.array([[70, 20, np.nan, np.nan],     # r1: S1 = mean(60, 80)
                       [75, 30, 50, np.nan],
                       [np.nan, 10, 55, 99]])
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    al = alpha_of_judgements(j)
    assert al.reason == "" and abs(al.value - expected) < 1e-12
    assert (al.n_items, al.n_values, al.n_repeats) == (3, 7, 1)


def test_alpha_undefined_on_wmt24_esa_en_cs():
    """WMT24 ESA en-cs: checked here from the raw TSV that no output has two raters, so alpha is
    undefined; every judged segment has 16 judged outputs, so the Judges page must not say
    'single judged output'."""
    from evalcore.views.judges import judges_overview
    from evalcore.io import load_dataset

    path = shared("wmt24_esa")
    raw = pd.read_csv(path / "judgements.tsv", sep="\t", dtype=str, keep_default_na=False,
                      usecols=["lp", "system", "seg_id", "rater"])
    raw = raw[raw["lp"] == "en-cs"]
    assert raw.groupby(["system", "seg_id"])["rater"].nunique().max() == 1
    per_seg = raw.groupby("seg_id")["system"].nunique()
    ds = load_dataset(path, lp="en-cs")
    ov = judges_overview(ds, "esa")
    assert np.isnan(ov["alpha"]) and ov["alpha_reason"] == UNDEFINED
    assert ov["outputs_per_segment"] == (per_seg.min(), per_seg.max()) == (16, 16)


def _open_saved(tmp_path, monkeypatch, coll: dict, page: str, state: dict | None = None):
    """Open ``page`` with ``coll`` saved in a fresh workspace and chosen in the sidebar."""
    from test_pages import _open

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    from evalcore.io import workspace

    workspace.save(coll, "issue11")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    return _open(page, {"dataset_label": label, "dataset_select": label, **(state or {})})


def test_judges_page_says_alpha_is_undefined(tmp_path, monkeypatch):
    at = _open_saved(tmp_path, monkeypatch, {"en-hi": _tiny_one_rater_per_output()}, "judges")
    text = " ".join(m.value for m in at.markdown)
    assert f"Krippendorff's α (interval):** {UNDEFINED}" in text
    infos = " ".join(i.value for i in at.info)
    assert "single judged output" not in infos and "each judged segment has 2 judged outputs" in infos
    assert not [m for m in at.metric if "Krippendorff" in m.label]  # no number shown
    # point 4: the Schulze ranking of 3 ballots is flagged
    assert any("rests on few comparisons" in w.value for w in at.warning)
    assert any("3 of 3 ballots compare at least two systems" in c.value for c in at.caption)


def test_judges_page_alpha_on_the_sample():
    import krippendorff
    from test_pages import _open

    raw = pd.read_csv(SAMPLE / "judgements.tsv", sep="\t", dtype=str, keep_default_na=False)
    raw = raw[raw["judgement"] == "adequacy"].astype({"score": float})
    matrix = raw.groupby(["rater", "system", "seg_id"])["score"].mean().unstack(["system", "seg_id"])
    expected = krippendorff.alpha(reliability_data=matrix.to_numpy(float), level_of_measurement="interval")
    at = _open("judges", {"sys_boot": 30, "hl_boot": 0, "lva_boot": 0})
    (m,) = [m for m in at.metric if "Krippendorff" in m.label]
    assert m.value == f"{expected:.3f}"
    assert not any("single judged output" in i.value for i in at.info)
    assert not any("few comparisons" in w.value for w in at.warning)


# =============================================================================================
# One MQM scorer (point 5)
# =============================================================================================
MQM_FIXTURE = SAMPLE.parent.parent / "tests" / "fixtures" / "mqm_tiny" / "mqm_toy_esen.tsv"


def _literal_weight(category: str, severity: str, critical=None, punct=0.1) -> float:
    """Freitag et al. (2021) weighting written out case by case (spec §0.8)."""
    sev, cat = severity.lower(), category.lower()
    if sev == "major":
        return 25.0 if cat.startswith("non-translation") else 5.0
    if sev == "minor":
        return punct if cat == "fluency/punctuation" else 1.0
    if sev == "critical":
        if critical is None:
            raise AssertionError("no weight")
        return critical
    return 0.0  # Neutral, No-error


def test_one_mqm_scorer_everywhere():
    """The reader, evalcore.human.mqm and the rescoring of stored judgements are one function
    with one set of weights; both former variants' disagreements are settled: Minor
    Fluency/Punctuation weighs 0.1 and Critical has no default weight."""
    import evalcore.io.mqm as io_mqm
    from evalcore.human import mqm as human_mqm

    assert io_mqm.mqm_scores is human_mqm.mqm_scores and io_mqm.DEFAULT_WEIGHTS is human_mqm.MQM_WEIGHTS
    errs = pd.DataFrame([("s", "1", "r1", "Fluency/Punctuation", "Minor"),
                         ("s", "1", "r1", "Non-translation!", "Major"),
                         ("s", "2", "r1", "Accuracy/Omission", "Critical")],
                        columns=["system", "seg_id", "rater", "category", "severity"])
    got = human_mqm.mqm_scores(errs.iloc[:2])
    assert got["score"].tolist() == pytest.approx([-(0.1 + 25.0)])
    with pytest.raises(ValueError, match="'Critical'.*--mqm-weights critical:N"):
        human_mqm.mqm_scores(errs)
    with_crit = human_mqm.mqm_scores(errs, "critical:25").set_index("seg_id")["score"]
    assert with_crit.to_dict() == pytest.approx({"1": -25.1, "2": -25.0})
    seg = human_mqm.mqm_scores(errs, {"critical": 10}, per="segment")
    assert seg["n_raters"].tolist() == [1, 1] and seg["score"].tolist() == pytest.approx([-25.1, -10.0])


def test_mqm_weights_option_in_loader_and_cli(tmp_path, capsys):
    raw = MQM_FIXTURE.read_text(encoding="utf-8").splitlines()
    raw[4] = raw[4].replace("\tMinor", "\tCritical")  # line 5: sysA seg 2 r1 Fluency/Punctuation
    folder = tmp_path / "mqm"
    folder.mkdir()
    (folder / "mqm_toy_esen.tsv").write_text("\n".join(raw) + "\n", encoding="utf-8")
    # without a weight: exit 2, the file, the line and the fix
    assert main(["validate", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "mqm_toy_esen.tsv" in err and "line 5" in err and "--mqm-weights critical:N" in err
    # with one: every (system, segment, rater) scored as written out here
    assert main(["validate", str(folder), "--mqm-weights", "critical:10"]) == 0
    assert "critical:10" in capsys.readouterr().err  # the weights in force are said
    rows = pd.read_csv(folder / "mqm_toy_esen.tsv", sep="\t", dtype=str, keep_default_na=False)
    rows["w"] = [_literal_weight(c, s, critical=10) for c, s in zip(rows["category"], rows["severity"])]
    rows["system"] = rows["system"].replace({"ref": "ref-A", "refB": "ref-B"})
    expected = -rows.groupby(["system", "seg_id", "rater"])["w"].sum()
    from evalcore.io import load_dataset, mqm_weights_in_force

    for ds in (load_dataset(folder, mqm_weights="critical:10"), _in_force(folder, mqm_weights_in_force)):
        got = ds.judgements.set_index(["system", "seg_id", "rater"])["score"]
        assert got.sort_index().to_dict() == pytest.approx(expected.sort_index().to_dict())


def _in_force(folder, ctx):
    from evalcore.io import load_dataset

    with ctx("critical:10"):
        return load_dataset(folder)


def test_mqm_weights_rescore_a_tidy_folder():
    """WMT21 TED en-de (tidy folder + mqm_annotations.tsv): with punctuation weighted like any
    Minor error, the stored judgements are recomputed from the error rows; the defaults
    reproduce the published judgements.tsv."""
    from evalcore.io import load_dataset

    path = shared("wmt21_ted_mqm")
    ann = pd.read_csv(path / "mqm_annotations.tsv", sep="\t", dtype=str, keep_default_na=False)
    ann = ann[ann["lp"] == "en-de"]
    pub = pd.read_csv(path / "judgements.tsv", sep="\t", dtype=str, keep_default_na=False)
    pub = pub[pub["lp"] == "en-de"].set_index(["system", "seg_id", "rater"])["score"].astype(float)
    for punct, weights in ((0.1, None), (1.0, "minor/fluency/punctuation:1")):
        ann_w = ann.assign(w=[_literal_weight(c, s, punct=punct) for c, s in zip(ann["category"], ann["severity"])])
        expected = -ann_w.groupby(["system", "seg_id", "rater"])["w"].sum()
        if weights is None:
            assert np.abs(expected.reindex(pub.index) - pub).max() < 1e-9
        ds = load_dataset(path, lp="en-de", mqm_weights=weights)
        got = ds.judgements[ds.judgements["judgement"] == "mqm"].set_index(["system", "seg_id", "rater"])["score"]
        assert len(got) == len(expected)
        assert np.abs(got.reindex(expected.index) - expected).max() < 1e-9
    assert (expected.reindex(pub.index) != pub).any()  # the option changes the scores


# =============================================================================================
# Schulze from sparse ballots (point 4)
# =============================================================================================
def _brute_support(ballots: list[dict]):
    """Ballots comparing >= 2 candidates, comparisons, and per pair the ballots holding both."""
    import itertools

    cands = sorted({c for b in ballots for c in b})
    per_pair = {p: sum(1 for b in ballots if p[0] in b and p[1] in b) for p in itertools.combinations(cands, 2)}
    used = [b for b in ballots if len(b) >= 2]
    return len(used), sum(len(b) * (len(b) - 1) // 2 for b in used), per_pair


def test_schulze_support_counts_and_few_threshold():
    from evalcore.human.ranking import FEW_COMPARISONS, schulze

    spec = [{"A": 0, "B": 1, "C": 2}] * 3 + [{"B": 0, "C": 1, "A": 2}] * 2 + [{"C": 0, "A": 1, "B": 2}] * 2
    sparse = spec + [{"A": 0}, {"B": 0}, {"D": 0}, {"A": 0, "D": 1}]
    for ballots in (spec, spec * 2, sparse):
        res = schulze(ballots)
        n_used, n_cmp, per_pair = _brute_support(ballots)
        sup = res.support
        assert (sup.n_ballots, sup.n_ballots_compare, sup.n_comparisons) == (len(ballots), n_used, n_cmp)
        assert sup.n_pairs == len(per_pair) and sup.min_per_pair == min(per_pair.values())
        assert sup.median_per_pair == float(np.median(list(per_pair.values())))
        assert sup.n_pairs_never == sum(v == 0 for v in per_pair.values())
        assert sup.few == (sup.median_per_pair < FEW_COMPARISONS)
    assert schulze(spec).ranking == [["A"], ["B"], ["C"]]  # spec §8.6
    assert schulze(spec).support.few and not schulze(spec * 2).support.few  # 7 < 10 <= 14
    warn = schulze(sparse).support.warning()
    assert "few comparisons" in warn and "2 of 6 pairs were never compared" in warn
    assert schulze(spec * 2).support.warning() == ""


def test_judges_cli_warns_on_sparse_ballots(tmp_path, capsys):
    ds = _tiny_one_rater_per_output()
    _write_tidy(ds, tmp_path / "d")
    assert main(["judges", str(tmp_path / "d"), "--criterion", "esa", "--systems"]) == 0
    cap = capsys.readouterr()
    # ballots: r1 seg 1 twice (screens 0 and 1: S and T), r2 seg 2 (S and T)
    assert "# schulze_rank: 3 of 3 ballots compare at least two systems (3 pairwise comparisons)" in cap.out
    assert "warning: The consensus ranking rests on few comparisons" in cap.err
    assert main(["judges", str(SAMPLE), "--criterion", "adequacy", "--systems"]) == 0
    cap = capsys.readouterr()
    raw = pd.read_csv(SAMPLE / "judgements.tsv", sep="\t", dtype=str, keep_default_na=False)
    raw = raw[raw["judgement"] == "adequacy"]
    n_ballots = raw.groupby(["rater", "seg_id"]).size().shape[0] + raw.duplicated(["rater", "seg_id", "system"]).groupby(
        [raw["rater"], raw["seg_id"]]).any().sum()  # a repeat opens a second screen of that (rater, segment)
    assert f"{n_ballots} of {n_ballots} ballots compare at least two systems" in cap.out
    assert "few comparisons" not in cap.err


# =============================================================================================
# One-reference data flagged (point 9)
# =============================================================================================
def _with_refs(ds: Dataset, per_segment: dict[str, list[str]]) -> Dataset:
    rows = [(seg, ref, f"{ref} text {seg}") for seg, refs in per_segment.items() for ref in refs]
    refs = pd.DataFrame(rows, columns=["seg_id", "ref_id", "text"])
    return Dataset(ds.name, ds.lp, ds.segments, refs, ds.outputs, ds.judgements)


def test_capabilities_follow_the_references_per_segment():
    from evalcore.core.capabilities import (
        capabilities,
        qarla_missing,
        references_per_segment_text,
        references_with_text,
    )

    base = _tiny_one_rater_per_output()
    one = base
    two = _with_refs(base, {"1": ["A", "B"], "2": ["A"]})
    three = _with_refs(base, {"1": ["A", "B", "C"], "2": ["A", "B"]})
    blank = Dataset("b", "xx", base.segments, pd.DataFrame({"seg_id": ["1", "1"], "ref_id": ["A", "B"],
                                                            "text": ["a", "  "]}), base.outputs, base.judgements)
    expect = {  # (refs per segment, segments for ORANGE/KING, for local QUEEN)
        "one": (one, [1, 1], 0, 0), "two": (two, [2, 1], 1, 0), "three": (three, [3, 2], 2, 1), "blank": (blank, [1, 0], 0, 0)}
    for name, (ds, counts, n_qarla, n_local) in expect.items():
        assert references_with_text(ds).tolist() == counts, name
        caps = {c.analysis: c for c in capabilities(ds)}
        orange = caps["ORANGE and KING (human-likeness)"]
        local = caps["QUEEN with local triples"]
        assert orange.available == (n_qarla > 0) and orange.segments == n_qarla, name
        assert local.available == (n_local > 0) and local.segments == n_local, name
        assert caps["Metric scores (BLEU, chrF, TER, …)"].segments == sum(c >= 1 for c in counts)
        assert (qarla_missing(ds) == "") == (n_qarla > 0), name
    assert references_per_segment_text(one) == "1 on all 2 segments"
    assert references_per_segment_text(three) == "2 on 1 segment, 3 on 1 segment"
    msg = qarla_missing(one)
    assert msg == ("at least 2 reference sets with text on a segment: this dataset has 1 reference set with text "
                   "(ref-A), at most 1 reference per segment")
    no_judgements = Dataset("n", "xx", two.segments, two.references, two.outputs)
    assert qarla_missing(no_judgements) == "human judgements" and qarla_missing(no_judgements, judgements=False) == ""


def test_validate_says_what_one_reference_data_enables(capsys):
    path = shared("wmt24_esa")
    refs = pd.read_csv(path / "references.tsv", sep="\t", dtype=str, keep_default_na=False)
    refs = refs[(refs["lp"] == "en-cs") & (refs["text"].str.strip() != "")]
    per_seg = refs.groupby("seg_id")["ref_id"].nunique()
    segs = pd.read_csv(path / "segments.tsv", sep="\t", dtype=str, keep_default_na=False)
    n_seg = int((segs["lp"] == "en-cs").sum())
    assert per_seg.max() == 1 and len(per_seg) == n_seg  # one reference on every segment
    (ref_id,) = refs["ref_id"].unique()
    assert main(["validate", str(path), "--lp", "en-cs"]) == 0
    out = capsys.readouterr().out
    assert f"references per segment (reference sets with text): 1 on all {n_seg} segments" in out
    assert f"yes  Metric scores (BLEU, chrF, TER, …) (Systems, Divergence browser; score): {n_seg} of {n_seg}" in out
    for analysis in ("ORANGE and KING (human-likeness)", "QUEEN, KING of a metric set, metric-set search"):
        line = next(x for x in out.splitlines() if analysis in x)
        assert line.strip().startswith("no") and f"1 reference set with text ({ref_id})" in line


@pytest.mark.parametrize("page", ["human_likeness", "likeness_vs_acceptability", "queen_vs_human"])
def test_qarla_pages_say_what_one_reference_data_lacks(tmp_path, monkeypatch, page):
    from evalcore.present.highlight import escape

    at = _open_saved(tmp_path, monkeypatch, {"en-hi": _tiny_one_rater_per_output()}, page)
    info = " ".join(i.value for i in at.info)
    assert ("This page needs what this dataset lacks: at least 2 reference sets with text on a segment: this "
            f"dataset has 1 reference set with text ({escape('ref-A')}), at most 1 reference per segment") in info
    assert not at.get("plotly_chart")


def test_data_page_lists_capabilities(tmp_path, monkeypatch):
    at = _open_saved(tmp_path, monkeypatch, {"en-hi": _tiny_one_rater_per_output()}, "data")
    assert any("References per segment" in m.value and "1 on all 2 segments" in m.value for m in at.markdown)
    assert any("ORANGE, KING, QUEEN and the metric-set search" in w.value and "are unavailable" in w.value
               for w in at.warning)
    caps = next(df.value for df in at.dataframe if "missing" in df.value.columns)
    got = dict(zip(caps["analysis"], caps["available"]))
    assert got["Metric scores (BLEU, chrF, TER, …)"] == "yes" and got["ORANGE and KING (human-likeness)"] == "no"


def test_qarla_commands_name_what_one_reference_data_lacks(tmp_path, capsys):
    _write_tidy(_tiny_one_rater_per_output(), tmp_path / "d")
    for argv in (["qarla", "--metrics", "bleu"], ["queen", "--set", "bleu"], ["search", "--metrics", "bleu,chrf"]):
        assert main([argv[0], str(tmp_path / "d"), *argv[1:]]) == 2
        assert ("QARLA (ORANGE, KING, QUEEN) needs at least 2 reference sets with text on a segment: this dataset "
                "has 1 reference set with text (ref-A), at most 1 reference per segment") in capsys.readouterr().err


def test_systems_page_flags_the_sparse_judges_consensus(tmp_path, monkeypatch):
    at = _open_saved(tmp_path, monkeypatch, {"en-hi": _tiny_one_rater_per_output()}, "systems",
                     {"sys_boot": 0, "sys_metrics": ["bleu"]})
    assert any("rests on few comparisons" in w.value for w in at.warning)
    assert any("3 of 3 ballots compare at least two systems" in c.value for c in at.caption)


def test_mqm_weights_without_error_rows_are_reported(capsys):
    assert main(["validate", str(SAMPLE), "--mqm-weights", "critical:3"]) == 0
    cap = capsys.readouterr()
    assert "MQM weights: major:5 minor:1 neutral:0 no-error:0 minor/fluency/punctuation:0.1 " \
           "major/non-translation:25 critical:3" in cap.err
    assert "MQM weights were given, but this dataset has no MQM error rows" in cap.out
    assert main(["validate", str(SAMPLE), "--mqm-weights", "critical=3"]) == 2
    assert "MQM weight 'critical=3' is not of the form severity[/category]:number" in capsys.readouterr().err
