"""The app under Streamlit's AppTest: opens on the sample, switches pages, reports bad data."""
from __future__ import annotations


from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE

APP = str(ROOT / "app.py")


def _app(timeout=60) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_opens_on_sample_data():
    at = _app()
    assert at.title[0].value == "Data"
    assert at.sidebar.selectbox[0].value.startswith("sample")
    metrics = {m.label: m.value for m in at.metric}
    ds_segments = sum(1 for _ in open(SAMPLE / "segments.tsv", encoding="utf-8")) - 1
    assert metrics["segments"] == str(ds_segments)


def test_bad_import_shows_every_problem_and_keeps_running(tmp_path):
    (tmp_path / "segments.tsv").write_text("seg_id\tsource\n1\tHola\n1\tdup\n", encoding="utf-8")
    (tmp_path / "outputs.tsv").write_text("system\tseg_id\ttext\ns1\t5\tHello\n", encoding="utf-8")
    at = _app()
    at.text_input(key="import_path").input(str(tmp_path))
    at.text_input(key="save_name").input("bad")
    at.button(key="do_import").click().run()
    assert not at.exception
    assert any("problem(s) found" in e.value for e in at.error)
    # the validation reports shown (the sample's own notes and earlier saves' tables may be beside it)
    msgs = " ".join(m for d in at.dataframe if "message" in d.value.columns for m in d.value["message"])
    assert "duplicate segment" in msgs and "'5'" in msgs


def test_good_import_is_saved_and_selectable(tmp_path):
    at = _app()
    at.text_input(key="import_path").input(str(SAMPLE))
    at.text_input(key="save_name").input("copy-of-sample")
    at.button(key="do_import").click().run()
    assert not at.exception
    assert any("Saved as" in s.value for s in at.success)
    # (AppTest drops sidebar widgets declared beside st.navigation on reruns, so check the
    # picker in a new session, as a user reopening the app would see it)
    labels = _app().sidebar.selectbox[0].options
    assert any(lbl.startswith("copy-of-sample") for lbl in labels)


def test_every_page_renders():
    at = _app()
    pages = sorted(p for p in (ROOT / "pages").glob("*.py") if p.name != "common.py")
    for page in pages:
        at.switch_page(str(page.relative_to(ROOT)))
        at.run()
        assert not at.exception, (page.name, [e.message for e in at.exception])


def test_segment_scores_on_request_only(monkeypatch):
    """Opening the Data page loads no metric and scores nothing (the hidden Segments
    tab paid for every metric module and METEOR's kernels); the toggle scores the segment."""
    import evalcore.metrics.engine
    import evalcore.scoring.defaults

    calls = []
    real_list, real_score = evalcore.scoring.defaults.available_metrics, evalcore.metrics.engine.score_table
    monkeypatch.setattr(evalcore.scoring.defaults, "available_metrics", lambda *a, **k: calls.append("list") or real_list(*a, **k))
    monkeypatch.setattr(evalcore.metrics.engine, "score_table", lambda *a, **k: calls.append("score") or real_score(*a, **k))
    at = _app()
    assert calls == []
    assert not [d for d in at.dataframe if "kind" in d.value.columns]
    assert any("Switch on to score one segment" in c.value for c in at.caption)
    at.toggle(key="score_on").set_value(True).run()
    assert not at.exception
    assert calls[:1] == ["list"] and "score" in calls
    assert len([d for d in at.dataframe if "kind" in d.value.columns]) == 1


def test_segment_scores_match_sacrebleu():
    import sacrebleu

    from evalcore.io import load_dataset

    at = _app()
    at.toggle(key="score_on").set_value(True).run()
    tables = [d.value for d in at.dataframe if "kind" in d.value.columns]
    assert len(tables) == 1  # one segment's scores
    table = tables[0]
    assert {"system", "kind", "bleu", "chrf"} <= set(table.columns)
    ds = load_dataset(SAMPLE)
    seg = at.selectbox(key="score_seg").value
    s = ds.seg_ids.index(seg)
    refs = [t[s] for t in ds.ref_texts().values()]
    for system, texts in ds.sys_texts().items():
        row = table[table["system"] == system].iloc[0]
        assert abs(row["bleu"] - sacrebleu.sentence_bleu(texts[s], refs).score) < 1e-9
        assert abs(row["chrf"] - sacrebleu.sentence_chrf(texts[s], refs).score) < 1e-9
    assert (table["kind"] == "reference (vs the others)").sum() == len(ds.ref_ids)
