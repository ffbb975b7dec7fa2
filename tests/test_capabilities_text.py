"""The capability summary's blank-text test: a reference has text when ``str.strip()`` leaves
something (Python's definition, checked on every code point), a missing text is blank, and
the per-segment counts and the reference-set list follow from it (hand-counted)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.core.capabilities import (_has_text, reference_sets_with_text, references_per_segment_text,
                                        references_present, references_with_text)
from evalcore.core.dataset import Dataset


def test_blank_is_what_str_strip_empties_on_every_code_point():
    chars = [chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000]
    texts = chars + [c * 3 for c in chars[:0x3100]] + ["", " a ", "\u3000x\u3000"]
    want = np.array([t.strip() != "" for t in texts])
    got = _has_text(pd.Series(texts, dtype=object))
    assert got.dtype == bool and (got == want).all()
    # Arrow-backed column: pandas' own strip, the same answer
    assert (_has_text(pd.Series(texts[:5000], dtype=object).astype(str)) == want[:5000]).all()


def test_missing_and_non_string_texts():
    texts = pd.Series([None, float("nan"), "", "\t\n", "x", 0, " y"], dtype=object)
    assert _has_text(texts).tolist() == [False, False, False, False, True, True, True]


def test_counts_and_sets_by_hand():
    segs = pd.DataFrame({"seg_id": ["1", "2", "3"], "source": ["a", "b", "c"]})
    refs = pd.DataFrame({"seg_id": ["1", "1", "2", "2", "3", "3"],
                         "ref_id": ["B", "A", "B", "A", "B", "C"],
                         "text": ["x", "y", " ", "z", None, "\u2003"]}, dtype=object)
    ds = Dataset(name="t", lp="xx-yy", segments=segs, references=refs)
    # seg 1: B, A; seg 2: A (B blank); seg 3: none (B missing, C whitespace)
    assert references_with_text(ds).tolist() == [2, 1, 0]
    assert reference_sets_with_text(ds) == ["B", "A"]
    assert references_per_segment_text(ds) == "0 on 1 segment, 1 on 1 segment, 2 on 1 segment"


def test_counts_match_groupby_nunique_on_random_tables():
    """The counts from combined codes against their definition, pandas' groupby-nunique over
    the selected rows reindexed by the segments (brute force on small random tables with
    repeated (segment, set) pairs, unknown segments and missing ids and texts)."""
    import random

    rng = random.Random(7)
    for trial in range(200):
        n_seg, n = rng.randint(0, 6), rng.randint(0, 25)
        segs = pd.DataFrame({"seg_id": [str(i) for i in range(n_seg)]})
        refs = pd.DataFrame({"seg_id": [rng.choice([str(i) for i in range(n_seg + 2)] + [None]) for _ in range(n)],
                             "ref_id": [rng.choice(["A", "B", "C", None]) for _ in range(n)],
                             "text": [rng.choice(["x", " ", "", None, "y z"]) for _ in range(n)]}, dtype=object)
        if trial % 2:
            refs = refs.astype({"seg_id": str, "ref_id": str})  # Arrow-backed ids, as a load gives
        ds = Dataset(name="t", lp="xx-yy", segments=segs, references=refs)
        r = ds.references

        def want(mask):
            if r.empty:
                return [0] * n_seg
            counts = r[mask].groupby("seg_id")["ref_id"].nunique()
            return counts.reindex(pd.Index(ds.segments["seg_id"]), fill_value=0).tolist()

        has = np.array([isinstance(t, str) and t.strip() != "" for t in r["text"]], dtype=bool)
        assert references_with_text(ds).tolist() == want(has), trial
        assert references_present(ds).tolist() == want(r["text"].notna().to_numpy(dtype=bool)), trial
        sets = list(dict.fromkeys(r["ref_id"][has])) if len(r) else []
        got = reference_sets_with_text(ds)
        assert len(got) == len(sets) and all(a == b or (pd.isna(a) and pd.isna(b)) for a, b in zip(got, sets)), trial
