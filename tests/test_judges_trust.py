"""Issue 11 points 3, 4, 5, 9: Krippendorff's alpha with one value per (rater, output), sparse
Schulze ballots, one MQM scorer, and what one-reference data can and cannot do.

References are computed here: the `krippendorff` package (test oracle), pandas group-bys over
the raw TSV files, hand-worked examples."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLE, shared
from evalcore.cli import main
from evalcore.dataset import Dataset
from evalcore.judges import ALPHA_NO_SHARED_ITEM, alpha_of_judgements, krippendorff_alpha

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
    from evalcore.analysis import judges_overview

    ov = judges_overview(ds, "esa")
    assert np.isnan(ov["alpha"]) and ov["alpha_reason"] == UNDEFINED
    assert ov["outputs_per_segment"] == (2, 2)
    # CLI: the reason, never a number
    _write_tidy(ds, tmp_path / "d")
    assert main(["judges", str(tmp_path / "d"), "--criterion", "esa"]) == 0
    out = capsys.readouterr().out
    assert f"# Krippendorff's alpha (interval): {UNDEFINED}" in out
    row = next(line for line in out.splitlines() if line.startswith("esa\tkrippendorff_alpha_interval"))
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
    from evalcore.analysis import judges_overview
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
    from evalcore import workspace

    workspace.save(coll, "issue11")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    return _open(page, {"dataset_label": label, "dataset_select": label, **(state or {})})


def test_judges_page_says_alpha_is_undefined(tmp_path, monkeypatch):
    at = _open_saved(tmp_path, monkeypatch, {"en-hi": _tiny_one_rater_per_output()}, "judges")
    text = " ".join(m.value for m in at.markdown)
    assert f"Krippendorff's α (interval):** {UNDEFINED}" in text
    infos = " ".join(i.value for i in at.info)
    assert "single judged output" not in infos and "2–2 judged outputs" in infos
    assert not [m for m in at.metric if "Krippendorff" in m.label]  # no number shown


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
