"""A subset of a dataset (by segments, by systems, or the pages' bounded scope ``scoped``) saves
into the workspace and loads back whole, the reading-comprehension answers included: they are cut
with the subset (the documents left, the systems kept and the reference sets), not kept whole."""
from __future__ import annotations

import pandas as pd
import pytest

from conftest import SAMPLE
from evalcore.io import load_dataset
from evalcore.io import workspace as ws
from evalcore.scoring.defaults import scoped


def _rows(frame):
    cols = ["system", "doc_id", "question_id", "rater", "correct"]
    return sorted(map(tuple, frame[cols].astype(str).to_numpy().tolist()))


@pytest.mark.parametrize("how", ["segments", "systems", "scoped"])
def test_subset_of_the_sample_saves_and_loads_back(how, workspace_home):
    full = load_dataset(str(SAMPLE))
    comp = full.extras["comprehension"]
    segs = full.segments
    if how == "segments":
        sub = full.subset(seg_ids=full.seg_ids[:5])
        docs = set(segs.loc[segs["seg_id"].astype(str).isin(full.seg_ids[:5]), "doc_id"].astype(str))
        want = comp[comp["doc_id"].astype(str).isin(docs)]
    elif how == "systems":
        sub = full.subset(systems=full.systems[:3])
        want = comp[comp["system"].isin(set(full.systems[:3]) | set(full.ref_ids))]
    else:
        sub = scoped(full, 5)
        docs = set(segs.loc[segs["seg_id"].astype(str).isin(sub.seg_ids), "doc_id"].astype(str))
        want = comp[comp["doc_id"].astype(str).isin(docs)]
    assert 0 < len(want) < len(comp)  # the subset really cuts the comprehension table
    name = ws.save({sub.lp: sub}, f"subset-{how}")
    back = ws.load_saved(name)[sub.lp]
    assert back.seg_ids == sub.seg_ids and back.systems == sub.systems
    assert _rows(back.extras["comprehension"]) == _rows(want)
    pd.testing.assert_frame_equal(back.outputs.reset_index(drop=True)[["system", "seg_id", "text"]],
                                  sub.outputs.reset_index(drop=True)[["system", "seg_id", "text"]],
                                  check_dtype=False)
