"""One way to cut a dataset down, ``Dataset.subset(seg_ids=..., systems=...)``, used
by the pages' bounded scope, ``--judged-only`` and the Data page's one-segment scores.
References: the same filters written literally with pandas here."""
from __future__ import annotations

import pandas as pd
import pytest

from evalcore.core.dataset import Dataset


@pytest.fixture
def ds():
    segs = pd.DataFrame({"seg_id": ["1", "2", "3"], "doc_id": ["d", "d", "e"], "source": ["s1", "s2", "s3"]})
    refs = pd.DataFrame({"seg_id": ["1", "2", "3", "1", "3"], "ref_id": ["A", "A", "A", "B", "B"],
                         "text": ["a1", "a2", "a3", "b1", "b3"]})
    outs = pd.DataFrame({"system": ["x", "x", "x", "y", "y", "y"], "seg_id": ["1", "2", "3"] * 2,
                         "text": ["x1", "x2", "x3", "y1", "y2", "y3"]})
    judg = pd.DataFrame({"system": ["x", "y", "B", "x", "y", "A"], "seg_id": ["1", "1", "1", "3", "3", "2"],
                         "rater": ["r"] * 6, "judgement": ["adequacy"] * 6, "score": [1.0, 2, 3, 4, 5, 6]})
    tags = pd.DataFrame({"system": ["x", "y"], "seg_id": ["2", "3"], "tag": ["t", "u"]})
    extras = {"metric_scores": pd.DataFrame({"system": ["x", "y", "x"], "seg_id": ["1", "2", "3"],
                                             "metric": ["m"] * 3, "score": [0.1, 0.2, 0.3]}),
              "notes": pd.DataFrame({"k": ["v"]})}
    return Dataset("toy", "es-en", segs, refs, outs, judg, tags, extras)


def _rows(frame):
    return sorted(map(tuple, frame.astype(str).to_numpy().tolist()))


def test_subset_by_segments(ds):
    sub = ds.subset(seg_ids=["3", "1"])
    assert sub.seg_ids == ["1", "3"]  # the dataset's order, not the argument's
    keep = {"1", "3"}
    for name in ("references", "outputs", "judgements", "tags"):
        full = getattr(ds, name)
        assert _rows(getattr(sub, name)) == _rows(full[full["seg_id"].isin(keep)]), name
    ms = ds.extras["metric_scores"]
    assert _rows(sub.extras["metric_scores"]) == _rows(ms[ms["seg_id"].isin(keep)])
    assert _rows(sub.extras["notes"]) == _rows(ds.extras["notes"])
    assert sub.ref_ids == ["A", "B"] and sub.systems == ["x", "y"]
    assert ds.n_segments == 3 and len(ds.outputs) == 6  # the original is untouched


def test_subset_by_systems_keeps_judged_references(ds):
    sub = ds.subset(systems=["y"])
    assert sub.systems == ["y"] and sub.seg_ids == ds.seg_ids
    assert _rows(sub.references) == _rows(ds.references)
    j = ds.judgements
    assert _rows(sub.judgements) == _rows(j[j["system"].isin({"y", "A", "B"})])
    assert _rows(sub.tags) == [("y", "3", "u")]
    assert _rows(sub.extras["metric_scores"]) == [("y", "2", "m", "0.2")]
    both = ds.subset(seg_ids=["1"], systems=["x"])
    assert _rows(both.outputs) == [("x", "1", "x1")]
    assert _rows(both.judgements) == [("B", "1", "r", "adequacy", "3.0"), ("x", "1", "r", "adequacy", "1.0")]


def test_subset_names_unknown_ids(ds):
    with pytest.raises(ValueError, match=r"unknown segment id\(s\) \['9'\]"):
        ds.subset(seg_ids=["1", "9"])
    with pytest.raises(ValueError, match=r"unknown system\(s\) \['z'\]"):
        ds.subset(systems=["z"])
    assert ds.subset(systems=["B"]).systems == []  # a judged reference set is a known name


def test_scoped_is_a_subset(ds):
    from evalcore.scoring import defaults as common_view

    # judged segments first ("1", "2", "3" all judged here: the first two in dataset order)
    assert _rows(common_view.scoped(ds, 2).outputs) == _rows(ds.subset(seg_ids=["1", "2"]).outputs)


def test_judged_only_keeps_the_judged_segments(tmp_path):
    """``--judged-only`` (qarla, queen, search) cuts the data with ``Dataset.subset``."""
    import argparse

    from conftest import SAMPLE
    from evalcore.io import load_dataset
    from evalcore.io.tidy import write_tidy
    from evalcore.commands._qarla_support import load

    full = load_dataset(str(SAMPLE))
    judged = set(full.judgements["seg_id"].astype(str))
    drop = [s for s in full.seg_ids if s in judged][:3]  # un-judge three segments
    part = Dataset(full.name, full.lp, full.segments, full.references, full.outputs,
                   full.judgements[~full.judgements["seg_id"].astype(str).isin(drop)], full.tags)
    write_tidy(part, tmp_path / "d")
    args = argparse.Namespace(path=str(tmp_path / "d"), lp=None, refs=None, judged_only=True)
    got = load(args)
    assert got.seg_ids == [s for s in full.seg_ids if s in judged and s not in drop]
    assert len(drop) == 3 and set(got.outputs["seg_id"].astype(str)) == set(got.seg_ids)


def test_subset_cuts_tables_keyed_by_document(ds):
    """An extra keyed by document (``doc_id``, no ``seg_id``: reading-comprehension answers) keeps
    the documents that still have a segment; by systems it keeps those systems and the reference
    sets, as the judgements do. Reference: the same filters written with pandas."""
    comp = pd.DataFrame({"system": ["x", "y", "A", "x", "B"], "doc_id": ["d", "d", "d", "e", "e"],
                         "question_id": ["q1", "q1", "q1", "q2", "q2"], "rater": ["r"] * 5,
                         "correct": ["1", "0", "1", "1", "0"]})
    full = Dataset(ds.name, ds.lp, ds.segments, ds.references, ds.outputs, ds.judgements, ds.tags,
                   {**ds.extras, "comprehension": comp})
    sub = full.subset(seg_ids=["1", "2"])  # document e has no segment left
    assert _rows(sub.extras["comprehension"]) == _rows(comp[comp["doc_id"] == "d"])
    assert _rows(full.subset(seg_ids=["2", "3"]).extras["comprehension"]) == _rows(comp)  # both documents left
    by_sys = full.subset(systems=["y"])
    assert _rows(by_sys.extras["comprehension"]) == _rows(comp[comp["system"].isin({"y", "A", "B"})])
