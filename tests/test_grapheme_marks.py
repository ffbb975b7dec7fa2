"""Character marks (error spans, chrF's unmatched characters) never split a grapheme cluster: a
Devanagari vowel sign stays with its consonant, a Thai tone mark with its consonant, an emoji ZWJ
sequence or skin tone with its emoji. The expected clusters are written out by hand (UAX #29)."""
from __future__ import annotations

import html
import re

import pytest

from evalcore.present.highlight import char_spans_html

CASES = [
    # text, hand-written cluster starts (and the end), a span that cuts a cluster
    ("किताब", [0, 2, 4, 5], (0, 1)),            # कि = क + ि ; ता = त + ा ; ब
    ("किताब", [0, 2, 4, 5], (3, 5)),            # a span starting on the vowel sign ा
    ("น้ำดี", [0, 3, 5], (0, 2)),                 # น้ำ = น + ้ + ำ ; ดี = ด + ี
    ("a👨\u200d👩\u200d👧b", [0, 1, 6, 7], (1, 3)),   # the family is one cluster of five code points
    ("ok 👍🏽!", [0, 1, 2, 3, 5, 6], (3, 4)),         # thumbs up + skin tone
]


def _pieces(out: str) -> list[tuple[bool, str]]:
    """(inside a mark, unescaped text) of each run of the rendered html."""
    runs, inside = [], False
    for tok in re.split(r"(<span[^>]*>|</span>)", out):
        if tok.startswith("<span"):
            inside = True
        elif tok == "</span>":
            inside = False
        elif tok:
            runs.append((inside, html.unescape(tok).replace("\u2060", "")))
    return runs


@pytest.mark.parametrize("text,bounds,span", CASES)
def test_a_mark_never_splits_a_grapheme_cluster(text, bounds, span):
    out = char_spans_html(text, [(span[0], span[1], "major", "tip")])
    runs = _pieces(out)
    assert "".join(t for _, t in runs) == text  # nothing lost or doubled
    offsets, at = [], 0
    for _, t in runs:
        offsets.append(at)
        at += len(t)
    assert set(offsets) <= set(bounds), (offsets, bounds)  # every tag boundary is a cluster boundary
    marked = "".join(t for inside, t in runs if inside)
    # the marked text is the whole clusters the span touches
    lo = max(b for b in bounds if b <= span[0])
    hi = min(b for b in bounds if b >= span[1])
    assert marked == text[lo:hi]


def test_ascii_marks_are_unchanged():
    out = char_spans_html("abc def", [(1, 2, "minor", "t")])
    assert [t for inside, t in _pieces(out) if inside] == ["b"]
