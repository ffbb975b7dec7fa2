"""A human translation judged as a system used as a second reference set
(evalcore.analysis.human_reference) and the one-click offer on the QARLA and References pages."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import human_reference as H

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


def _one_ref_with_human_system(name="Human-B.0"):
    """The sample cut to one reference set, its second reference set given as a system ``name``."""
    from evalcore.core.dataset import Dataset
    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    first, second = ds.ref_ids[:2]
    refs = ds.references
    as_sys = refs[refs["ref_id"] == second].rename(columns={"ref_id": "system"})[["system", "seg_id", "text"]]
    as_sys = as_sys.assign(system=name).iloc[:-3]  # the human translation of all but three segments
    one = Dataset("wmt-like", ds.lp, ds.segments, refs[refs["ref_id"] == first].reset_index(drop=True),
                  pd.concat([ds.outputs, as_sys], ignore_index=True), ds.judgements, ds.tags, dict(ds.extras))
    return one, first, second


def test_human_translation_names():
    names = {"refB": True, "ref-B": True, "ref_b2": True, "REFB": True, "Human-B.0": True, "human-P": True,
             "Human": True, "Human A": True, "refine-mt": False, "Humane": False, "referee": False, "GPT-4": False,
             "myref": False}
    for n, want in names.items():
        assert bool(H.HUMAN_NAME.match(n)) is want, n


def test_the_system_becomes_a_reference_set():
    from evalcore.core.capabilities import qarla_missing

    ds, first, second = _one_ref_with_human_system()
    assert H.human_translation_systems(ds) == ["Human-B.0"]
    assert qarla_missing(ds)  # one reference set: the QARLA pages would be empty
    new = H.with_system_as_reference(ds, "Human-B.0")
    assert new.ref_ids == [first, "Human-B.0"] and "Human-B.0" not in new.systems
    assert list(new.systems) == [s for s in ds.systems if s != "Human-B.0"]
    rt, src = new.ref_texts()["Human-B.0"], ds.sys_texts()["Human-B.0"]
    assert rt == src  # the same texts, segment by segment (None where the system had none)
    assert sum(t is None for t in rt) == 3
    pd.testing.assert_frame_equal(new.judgements, ds.judgements)
    assert not qarla_missing(new)
    changes = H.what_changes(ds, "Human-B.0")
    assert any(f"{ds.n_segments - 3} of {ds.n_segments} segments" in c for c in changes)
    for bad in ("nope", first):
        with pytest.raises(ValueError):
            H.with_system_as_reference(ds, bad)


def test_multi_reference_bleu_uses_the_new_reference_set():
    import sacrebleu

    from evalcore.metrics.base import get_metric

    ds, first, _ = _one_ref_with_human_system()
    new = H.with_system_as_reference(ds, "Human-B.0")
    sys0 = new.systems[0]
    cands = new.sys_texts()[sys0]
    refs = new.ref_texts()
    got = get_metric("bleu", tokenize="13a").sentence_scores(
        cands, [[refs[r][i] for r in new.ref_ids if refs[r][i]] for i in range(len(cands))])
    for i, c in enumerate(cands):
        rr = [refs[r][i] for r in new.ref_ids if refs[r][i]]
        assert got[i] == pytest.approx(sacrebleu.sentence_bleu(c, rr).score, abs=1e-9)
    assert len([r for r in (refs[x][0] for x in new.ref_ids) if r]) == 2


def test_upload_advice_names_the_file_and_columns():
    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    one = ds.subset()  # a copy
    one.references = ds.references[ds.references["ref_id"] == ds.ref_ids[0]].reset_index(drop=True)
    one._cache.clear()
    text = H.upload_advice(one)
    assert f"references/{ds.lp}.refB.txt" in text and "lp, seg_id, ref_id, text" in text
    assert H.human_translation_systems(one) == []


@pytest.mark.parametrize("page", ["human_likeness", "references"])
def test_one_click_on_the_page(workspace_home, page):
    from evalcore.io import workspace

    ds, first, _ = _one_ref_with_human_system()
    name = workspace.save({ds.lp: ds}, "wmt-like")
    label = _label(name)
    at = _open(page, {"dataset_label": label, "dataset_select": label})
    assert not at.exception, [e.message for e in at.exception]
    button = at.button(key=f"{'hl' if page == 'human_likeness' else 'rf'}_hr_use")
    assert "Human-B.0" in button.label
    assert any("no longer scored or ranked as a system" in m.value for m in at.markdown)
    button.click().run()
    assert not at.exception, [e.message for e in at.exception]
    saved = [m["name"] for m in workspace.list_saved()]
    assert len(saved) == 2
    derived = next(iter(workspace.load_saved(next(n for n in saved if n != name)).values()))
    assert derived.ref_ids == [first, "Human-B.0"]
    assert at.session_state["dataset_label"] == _label(derived_name := next(n for n in saved if n != name))
    # the page opened on the derived dataset no longer offers the switch, and no longer stops for want of references
    at2 = _open(page, {"dataset_label": _label(derived_name), "dataset_select": _label(derived_name)})
    assert not at2.exception, [e.message for e in at2.exception]
    assert not [b for b in at2.button if b.key and b.key.endswith("_hr_use")]
    assert not any("needs at least two reference sets" in i.value or "lacks" in i.value for i in at2.info)
