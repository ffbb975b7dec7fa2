"""Marking an error span with clicks on words (Annotate page, ESA and MQM-lite): the clickable
units never cut a character in any script, two clicks mark the span from the first to the last
word, it is highlighted before it is added, and one click undoes it."""
from __future__ import annotations

import pandas as pd
import pytest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import annotate as A
from evalcore.analysis.text_units import graphemes, mark_units


@pytest.mark.parametrize("text,units", [
    ("The cat sat.", ["The", "cat", "sat."]),
    ("  two  spaces\tand\u00a0nbsp ", ["two", "spaces", "and", "nbsp"]),
    ("日本語です、CEOの2024年。", ["日", "本", "語", "で", "す", "、", "CEO", "の", "2024", "年", "。"]),
    ("他说：Better Markets很好", ["他", "说", "：", "Better", "Markets", "很", "好"]),
    ("กำลังไป", ["กำ", "ลั", "ง", "ไ", "ป"]),  # Thai: a vowel sign stays with its consonant
    ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"]),  # Devanagari has spaces: words
    ("ne\u0301e 👩\u200d💻 🇨🇿!", ["ne\u0301e", "👩\u200d💻", "🇨🇿!"]),
    ("مرحبا بالعالم", ["مرحبا", "بالعالم"]),
    ("", []),
])
def test_mark_units_by_hand(text, units):
    got = [text[a:b] for a, b in mark_units(text)]
    assert got == units
    # every boundary is a grapheme boundary: the text's graphemes, concatenated, hit each offset
    edges = {0}
    for g in graphemes(text):
        edges.add(max(edges) + len(g))
    assert all(a in edges and b in edges for a, b in mark_units(text))


def test_words_to_span_uses_the_units():
    text = "日本語です、CEOの年。"
    sp = A.words_to_span(text, 1, 2, "major")
    assert text[sp["start_i"]:sp["end_i"]] == "本語"
    sp = A.words_to_span("Thousands marched on Sunday", 1, 3, "minor")
    assert (sp["start_i"], sp["end_i"]) == (10, 27)
    with pytest.raises(ValueError, match="has 4 words"):
        A.words_to_span("Thousands marched on Sunday", 2, 4, "minor")


def _saved_ja(workspace_home):
    from evalcore.core.dataset import Dataset
    from evalcore.io import workspace

    segs = pd.DataFrame({"seg_id": ["1", "2"], "doc_id": ["d", "d"], "source": ["It is Japanese.", "Cats <b>."]})
    refs = pd.DataFrame({"seg_id": ["1", "2"], "ref_id": ["refA", "refA"], "text": ["日本語です。", "猫です。"]})
    outs = pd.DataFrame({"system": ["s1", "s1"], "seg_id": ["1", "2"], "text": ["日本語でした。", "猫<b>です。"]})
    ds = Dataset("ja", "en-ja", segs, refs, outs)
    name = workspace.save({"en-ja": ds}, "ja-class")
    A.save_plan(name, "en-ja", A.Plan(items_per_student=2, overlap=1.0, qc=False))
    return name


@pytest.mark.parametrize("protocol", ["esa", "mqm"])
def test_two_clicks_mark_highlight_undo_and_save(workspace_home, protocol):
    from evalcore.io import workspace
    from evalcore.io.spans import dataset_spans

    name = _saved_ja(workspace_home)
    label = _label(name)
    at = _open("annotate", {"dataset_label": label, "dataset_select": label, "ann_rater": "ana",
                            "ann_protocol": protocol})
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = workspace.load_saved(name)["en-ja"]
    task = A.next_task(ds, A.plan_of(ds), "ana", protocol)[0]
    pills = next(p for p in at.pills if p.key.startswith("ann_pick::"))
    units = [task.text[a:b] for a, b in mark_units(task.text)]
    assert list(pills.options) == units  # one button per unit, labelled with its text
    # two clicks: the second and the third character
    pills.set_value([1, 2]).run()
    assert any("chosen, not added yet" in m.value for m in at.markdown)  # highlighted before it is added
    next(b for b in at.button if b.key.startswith("ann_add::")).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = [m.value for m in at.markdown]
    assert any("major error" in m or "minor error" in m for m in shown)
    assert not next(p for p in at.pills if p.key.startswith("ann_pick::")).value  # cleared for the next error
    # one click undoes it
    next(b for b in at.button if b.key.startswith("ann_undo::")).click().run()
    assert not any(b.key.startswith("ann_undo::") for b in at.button if b.key)
    # mark again (a single word this time: one click) and save
    next(p for p in at.pills if p.key.startswith("ann_pick::")).set_value([2]).run()
    next(b for b in at.button if b.key.startswith("ann_add::")).click().run()
    if protocol == "esa":
        next(s for s in at.slider if s.key.startswith("ann_score::")).set_value(60).run()
    next(b for b in at.button if b.key.startswith("ann_go::")).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = workspace.load_saved(name)["en-ja"]
    if protocol == "esa":
        sp = dataset_spans(ds).spans
        assert len(sp) == 1
        assert task.text[int(sp.iloc[0]["start"]):int(sp.iloc[0]["end"])] == units[2]
    else:
        err = ds.extras[A.MQM_EXTRA]
        assert list(err["span_text"]) == [units[2]]
    assert not any("<b>" in m.value for m in at.markdown)  # the output's markup is shown escaped
