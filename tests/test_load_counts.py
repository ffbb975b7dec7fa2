"""Per-segment reference counts (Dataset.refs_per_segment, Dataset.per_segment and the capability
counts built on them) against their pandas definition (a groupby / bincount per distinct seg_id
reindexed by the segments), brute force on small random datasets: Arrow-backed columns (one or
several chunks, string or large_string), object columns, missing ids, ids no segment has,
duplicate segment ids, references in any order."""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pyarrow as pa

from evalcore.core.capabilities import references_present, references_with_text
from evalcore.core.dataset import Dataset

STR = pd.Series(["x"], dtype=object).astype(str).dtype


def _column(rng: random.Random, values: list, kind: str) -> pd.Series:
    if kind == "object":
        return pd.Series(values, dtype=object)
    typ = pa.large_string() if kind == "large" else pa.string()
    if len(values) > 2 and rng.random() < 0.5:  # several chunks, as a large file gives
        cut = rng.randint(1, len(values) - 1)
        data = pa.chunked_array([pa.array(values[:cut], typ), pa.array(values[cut:], typ)])
    else:
        data = pa.chunked_array([pa.array(values, typ)], type=typ)
    return pd.Series(pd.array(data, dtype=STR))


def _random_dataset(rng: random.Random) -> Dataset:
    n_seg = rng.randint(0, 9)
    seg_ids = [str(rng.randint(0, 11)) for _ in range(n_seg)]  # duplicates now and then
    n = rng.randint(0, 25)
    pool = [str(i) for i in range(14)] + [None]
    refs = pd.DataFrame({"seg_id": _column(rng, [rng.choice(pool) for _ in range(n)],
                                           rng.choice(["object", "large", "string"])),
                         "ref_id": [rng.choice(["A", "B", "C", None]) for _ in range(n)],
                         "text": [rng.choice(["x", " ", "", None]) for _ in range(n)]})
    segs = pd.DataFrame({"seg_id": _column(rng, seg_ids, rng.choice(["object", "large", "string"]))})
    return Dataset("t", "xx-en", segs, refs)


def test_per_segment_counts_are_the_reindexed_groupby():
    rng = random.Random(11)
    for trial in range(400):
        ds = _random_dataset(rng)
        r, target = ds.references, pd.Index(ds.segments["seg_id"].tolist(), dtype=object)
        known = r[r["seg_id"].notna()]
        sizes = known.groupby(known["seg_id"].astype(object)).size()
        want = sizes.reindex(target, fill_value=0).to_numpy()
        got = ds.refs_per_segment()
        assert got.dtype == np.int64 and got.tolist() == want.tolist(), trial
        # any per-value array, e.g. the values' own positions (each segment's lookup, by hand)
        codes, values = ds.ref_segment_codes()
        by_hand = [list(values).index(s) if s in list(values) else 0 for s in ds.segments["seg_id"]]
        assert ds.per_segment(np.arange(len(values))).tolist() == by_hand, trial


def test_capability_counts_are_distinct_sets_per_segment():
    rng = random.Random(12)
    for trial in range(300):
        ds = _random_dataset(rng)
        r = ds.references
        given = [isinstance(t, str) for t in r["text"]]
        for mask, got in (([g and t.strip() != "" for g, t in zip(given, r["text"])], references_with_text(ds)),
                          (given, references_present(ds))):
            sets: dict[str, set] = {}
            for seg, ref, m in zip(r["seg_id"], r["ref_id"], mask):
                if m and seg is not None and seg == seg and ref is not None and ref == ref:
                    sets.setdefault(seg, set()).add(ref)
            want = [len(sets.get(s, ())) for s in ds.segments["seg_id"]]
            assert got.tolist() == want, (trial, got, want)
