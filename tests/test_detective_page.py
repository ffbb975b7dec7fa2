"""The Metric detective page under AppTest: the catch table and heat map, texts side by side
(escaped), class mode in a session and on a saved dataset, and the links from the Playground and
Learn. The page enters the navigation through pages/registry.py; until its entry is there the
tests add it for themselves."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import detective as D

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"
HOSTILE = "<script>alert(1)</script> <b>bold</b>"


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    from pages import registry

    if not any(p.slug == "detective" for p in registry.PAGES):
        monkeypatch.setattr(registry, "PAGES", registry.PAGES + (registry.PageInfo(
            "detective", "Metric detective", "🕵️", "perturb real outputs in known ways and see which metric "
            "notices; a class leaderboard of rewrites that fool the metrics", True),))


def _markup(at) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


def test_catch_table_heat_map_and_side_by_side():
    from evalcore.io import load_dataset
    from evalcore.scoring.settings import DEFAULTS

    at = _open("detective", {"det_sample": 20, "det_seed": 4})
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.get("plotly_chart"), "no heat map"
    table = next(df.value for df in at.dataframe if "catch_rate" in df.value.columns)
    assert list(table.columns) == ["perturbation", "metric", "catch_rate", "n"]
    # the page's table is the lab's on the same sample (and the lab is pinned to sacreBLEU in test_detective)
    ds = load_dataset(SAMPLE)
    want = D.run_lab(ds, ["bleu", "chrf"], DEFAULTS.resolve(ds)[0], sample=20, seed=4).catch
    pd.testing.assert_frame_equal(table.reset_index(drop=True), want, check_dtype=False)
    rates = table["catch_rate"].dropna()
    assert len(rates) and rates.between(0, 1).all()
    # side by side: the first negated output, original and perturbed in two escaped boxes
    at.selectbox(key="det_family").set_value("negate").run()
    from evalcore.present.highlight import escape

    boxes = [m for m in _markup(at) if escape("Perturbed (negate)") in m]
    assert boxes and any(" not " in b for b in boxes)


def test_class_mode_in_a_session_escapes_and_counts():
    at = _open("detective", {"det_sample": 10})
    system = at.selectbox(key="det_cls_sys").value
    seg = at.selectbox(key="det_cls_seg").value
    at.text_area(key=f"det_cls_text::{system}::{seg}").set_value(HOSTILE).run()
    at.text_input(key="det_cls_student").set_value("<i>ana</i>").run()
    at.button(key="det_cls_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    board = next(df.value for df in at.dataframe if "fooled_share" in df.value.columns)
    assert set(board["metric"]) == {"bleu", "chrf"} and (board["n"] == 1).all()
    # a rewrite of nothing alike drops both metrics far beyond Δ: neither was fooled
    assert (board["fooled"] == 0).all()
    assert not any("<script>" in m or "<b>bold" in m or "<i>ana" in m for m in _markup(at))
    assert any("&lt;script&gt;" in m for m in _markup(at))  # shown, escaped
    # the unchanged output is refused with a reason, nothing added
    at.session_state[f"det_cls_text::{system}::{seg}"] = _output(seg, system)
    at.run()
    at.button(key="det_cls_go").click().run()
    assert any("change something" in e.value for e in at.error)


def _output(seg, system):
    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    return ds.sys_texts()[system][[str(s) for s in ds.seg_ids].index(seg)]


def test_class_mode_on_a_saved_dataset_shares_one_leaderboard(workspace_home):
    import sacrebleu

    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    label = _label(name)
    ds = coll[lp]
    seg, system = str(ds.seg_ids[1]), ds.systems[0]
    original = _output(seg, system)
    negated = D.perturb("negate", original, "", "en")[0] or ("Not " + original)
    for student, text, changed in (("ana", negated, True), ("bo", original.rstrip(".") + " !", False)):
        at = _open("detective", {"dataset_label": label, "dataset_select": label, "det_sample": 5,
                                 "det_cls_seg": seg, "det_cls_sys": system})
        at.text_area(key=f"det_cls_text::{system}::{seg}").set_value(text).run()
        if not changed:
            at.radio(key="det_cls_changed").set_value("keeps the meaning").run()
        at.text_input(key="det_cls_student").set_value(student).run()
        at.button(key="det_cls_go").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    subs = D.submissions_of(workspace.load_saved(name)[lp])
    assert list(subs["student"]) == ["ana", "bo"] and list(subs["meaning_changed"]) == [True, False]
    board = next(df.value for df in at.dataframe if "fooled_share" in df.value.columns).set_index("metric")
    # by hand with sacreBLEU: ana's negation fooled a metric when its drop was at most Δ = 1; bo's kept meaning
    refs = [r for r in (ds.ref_texts()[x][int(ds.seg_ids.index(ds.seg_ids[1]))] for x in ds.ref_ids) if r]
    drop = {"bleu": sacrebleu.sentence_bleu(original, refs).score - sacrebleu.sentence_bleu(negated, refs).score,
            "chrf": sacrebleu.sentence_chrf(original, refs).score - sacrebleu.sentence_chrf(negated, refs).score}
    for m in ("bleu", "chrf"):
        assert board.loc[m, "n"] == 1 and board.loc[m, "fooled"] == int(drop[m] <= 1.0)
    assert np.isclose(board["fooled_share"], board["fooled"] / board["n"]).all()


def test_playground_and_learn_link_to_the_lab():
    for page in ("playground", "learn"):
        at = _open(page, {})
        links = {p.proto.page for p in at.get("page_link")}
        assert "detective" in links, (page, links)
