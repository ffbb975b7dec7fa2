"""The capability summary's blank-text test: a reference has text when ``str.strip()`` leaves
something (Python's definition, checked on every code point), a missing text is blank, and
the per-segment counts and the reference-set list follow from it (hand-counted)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.core.capabilities import (_has_text, reference_sets_with_text, references_per_segment_text,
                                        references_with_text)
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
