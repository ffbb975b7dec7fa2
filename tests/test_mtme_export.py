"""Export to the mt-metrics-eval layout, read back by MTME's own data.EvalSet (the oracle) and
by evalcore's loader."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import shared
from test_metatask import _oracle


def _export(name, lp, tmp_path, metrics=("chrf",)):
    from evalcore.io import load_dataset
    from evalcore.io.mtme_export import export_mtme
    from evalcore.metrics.engine import score_table

    ds = load_dataset(str(shared(name)), lp=lp)
    seg = score_table(ds, list(metrics), level="segment")
    sysf = score_table(ds, list(metrics), level="system")
    import pandas as pd

    notes = export_mtme(ds, tmp_path, "evx", pd.concat([seg, sysf], ignore_index=True))
    return ds, seg, sysf, notes


@pytest.mark.parametrize("name,lp,crit,ref", [("wmt24_esa", "en-cs", "esa", "refA"),
                                              ("wmt21_news_mqm", "en-de", "mqm", "refA")])
def test_mtme_evalset_reads_the_export(tmp_path, name, lp, crit, ref):
    data, stats, tasks = _oracle()
    from mt_metrics_eval import meta_info

    from evalcore.human.scores import human_scores

    ds, seg, sysf, notes = _export(name, lp, tmp_path)
    info = meta_info.MetaInfo(ref, {"sys": crit, "seg": crit}, set(), set())
    evs = data.EvalSet("evx", lp, read_stored_metric_scores=True, info=info, path=str(tmp_path), strict=True)
    assert list(evs.src) == list(ds.segments["source"])
    refs = {r.replace("-", "") for r in ds.ref_ids}
    assert set(evs.ref_names) == refs
    if name == "wmt21_news_mqm":
        assert any("'ref-A' written as 'refA'" in n for n in notes)
        assert any("metricsystem1" in n for n in notes)  # judged without text: left out, said so
    # human scores: the mean of the ratings per (system, segment), None where not judged
    hum = human_scores(ds, crit)
    gold = evs.Scores("seg", crit)
    seg_pos = {s: i for i, s in enumerate(ds.seg_ids)}
    n_checked = 0
    for s, sub in hum.groupby("system"):
        name_in = s.replace("-", "") if s in ds.ref_ids else s
        if name_in not in gold:
            assert s not in ds.systems and s not in ds.ref_ids
            continue
        v = gold[name_in]
        for k, sc in zip(sub["seg_id"], sub["score"]):
            assert v[seg_pos[str(k)]] == pytest.approx(sc, abs=1e-12)
            n_checked += 1
        assert sum(x is not None for x in v) == len(sub)
    assert n_checked > 100
    # metric scores, both levels, name NAME-REFS
    mname = [m for m in evs.metric_names if m.startswith("chrf-")]
    assert len(mname) == 1
    mseg, msys = evs.Scores("seg", mname[0]), evs.Scores("sys", mname[0])
    for s, sub in seg.groupby("system"):
        got = np.array([mseg[s][seg_pos[str(k)]] for k in sub["seg_id"]])
        assert np.allclose(got, sub["score"].to_numpy(), rtol=0, atol=1e-12)
    for s, sc in zip(sysf["system"], sysf["score"]):
        assert msys[s][0] == pytest.approx(sc, abs=1e-12)
    # the domains of WMT24 survive (documents file)
    if name == "wmt24_esa":
        assert set(evs.domain_names) == set(ds.extras["segment_domains"]["domain"])


def test_evalcore_reads_its_export_back(tmp_path):
    from evalcore.io import load_dataset
    from evalcore.human.scores import human_scores

    ds, seg, _, _ = _export("wmt24_esa", "en-cs", tmp_path)
    back = load_dataset(str(tmp_path / "evx"), lp="en-cs")
    assert list(back.segments["source"]) == list(ds.segments["source"])
    a = human_scores(ds, "esa").set_index(["system", "seg_id"])["score"]
    b = human_scores(back, "esa").set_index(["system", "seg_id"])["score"]
    assert len(a) == len(b)
    assert np.allclose(b.reindex(a.index).to_numpy(), a.to_numpy(), atol=1e-12)


def test_export_escapes_line_breaks_and_refuses_what_would_not_read_back(tmp_path):
    import pandas as pd

    from evalcore.core.dataset import Dataset
    from evalcore.io import FileSource
    from evalcore.io.mtme import read_mtme
    from evalcore.io.mtme_export import export_mtme

    # a paragraph segment: written with an escaped line break, read back as it was
    ds = Dataset("x", "en-de", pd.DataFrame({"seg_id": ["1", "2"], "source": ["a\nb", "c"]}))
    export_mtme(ds, tmp_path)
    src = tmp_path / "evalcore" / "sources" / "en-de.txt"
    assert src.read_text(encoding="utf-8") == "a\\nb\nc\n"
    back = read_mtme(FileSource.from_path(tmp_path / "evalcore"), "evalcore")["en-de"]
    assert list(back.segments["source"]) == ["a\nb", "c"]
    # a text already holding backslash-n, or a carriage return, would not read back: refused
    for text in ("a\\nb", "a\rb"):
        bad = Dataset("x", "en-de", pd.DataFrame({"seg_id": ["1", "2"], "source": [text, "c"]}))
        with pytest.raises(ValueError, match="segment\\(s\\) 1 contain a carriage return or the characters"):
            export_mtme(bad, tmp_path / "bad")
        assert not (tmp_path / "bad" / "evalcore").exists()


def test_export_command(tmp_path):
    from evalcore.cli import main

    root = shared("wmt21_news_mqm")
    assert main(["export-mtme", str(root), "--lp", "en-de", "--out", str(tmp_path), "--test-set", "w21"]) == 0
    assert (tmp_path / "w21" / "human-scores" / "en-de.mqm.seg.score").exists()
    assert (tmp_path / "w21" / "references" / "en-de.refA.txt").exists()
    assert main(["export-mtme", str(root), "--lp", "xx-yy", "--out", str(tmp_path)]) == 2
