"""The pairwise engine, score tables, the CLI and bring-your-own scores.

Oracles: a literal brute-force loop over ``sentence_score`` (single- and multi-reference) and
sacreBLEU's own ``corpus_score`` / ``sentence_score``."""
from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU as SBLEU, CHRF as SCHRF, TER as STER

from evalcore.core.dataset import Dataset
from evalcore.metrics.base import get_metric, metric_ids
from evalcore.metrics.byo import read_scores, register_scores, unregister_external
from evalcore.metrics.engine import BATCH_SEGMENTS, score_table, similarity_tensors, similarity_tensors_many
from evalcore.core.problems import DataError

WORDS = "the a dog cat walked took he she for walk park in रोटी और मकान 北京 今天 . ,".split()


def random_dataset(seed, n_seg=5, n_refs=3, n_sys=3, p_missing_ref=0.3, p_missing_out=0.2):
    rng = random.Random(seed)

    def sent():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9)))

    segs = pd.DataFrame({"seg_id": [str(i + 1) for i in range(n_seg)]})
    refs, outs = [], []
    for s in segs["seg_id"]:
        for j in range(n_refs):
            if rng.random() > p_missing_ref or j == 0 and rng.random() < 0.5:
                refs.append((s, f"ref-{j}", sent()))
        for a in range(n_sys):
            if rng.random() > p_missing_out:
                outs.append((f"sys-{a}", s, sent()))
    # make sure every reference set and system exists somewhere
    for j in range(n_refs):
        refs.append(("1", f"ref-{j}", sent())) if not any(r[1] == f"ref-{j}" for r in refs) else None
    refs = pd.DataFrame(refs, columns=["seg_id", "ref_id", "text"]).drop_duplicates(["seg_id", "ref_id"])
    outs = pd.DataFrame(outs, columns=["system", "seg_id", "text"])
    return Dataset("rand", "xx-yy", segs, refs, outs)


def brute_force(ds, metric):
    """Literal definition of SimTensors (base.py) with sentence_score, oriented."""
    o = (lambda v: v) if metric.meta.higher_is_better else (lambda v: -v)
    seg_ids, systems, ref_ids = ds.seg_ids, ds.systems, ds.ref_ids
    A, S, J = len(systems), len(seg_ids), len(ref_ids)
    sys_ref, loo_sys = np.full((A, S, J), np.nan), np.full((A, S, J), np.nan)
    ref_ref, loo_ref = np.full((S, J, J), np.nan), np.full((S, J), np.nan)
    rt, st = ds.ref_texts(), ds.sys_texts()
    for s in range(S):
        present = {j: rt[r][s] for j, r in enumerate(ref_ids) if rt[r][s] is not None}
        for j, rj in present.items():
            rest = [present[k] for k in sorted(present) if k != j]
            for a, name in enumerate(systems):
                out = st[name][s]
                if out is None:
                    continue
                sys_ref[a, s, j] = o(metric.sentence_score(out, [rj]))
                if rest:
                    loo_sys[a, s, j] = o(metric.sentence_score(out, rest))
            for i, ri in present.items():
                if i != j:
                    ref_ref[s, i, j] = o(metric.sentence_score(ri, [rj]))
            if rest:
                loo_ref[s, j] = o(metric.sentence_score(rj, rest))
    return sys_ref, ref_ref, loo_sys, loo_ref


@pytest.mark.parametrize("mid", ["bleu", "bleu-2", "bleus", "chrf", "chrf++", "ter"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tensors_equal_brute_force(mid, seed):
    ds = random_dataset(seed)
    m = get_metric(mid)
    t = similarity_tensors(ds, mid, cache_dir=False)
    want = brute_force(ds, m)
    for got, exp in zip((t.sys_ref, t.ref_ref, t.loo_sys, t.loo_ref), want):
        assert got.shape == exp.shape
        np.testing.assert_array_equal(np.isnan(got), np.isnan(exp))
        np.testing.assert_allclose(got[~np.isnan(got)], exp[~np.isnan(exp)], rtol=0, atol=1e-9)
    assert t.systems == ds.systems and t.ref_ids == ds.ref_ids and t.seg_ids == ds.seg_ids


def test_tensors_disk_cache_and_progress(tmp_path):
    ds = random_dataset(5, n_seg=30)
    calls = []
    t1 = similarity_tensors(ds, "chrf", progress=lambda d, n: calls.append((d, n)), cache_dir=tmp_path)
    assert calls and calls[-1] == (30, 30) and all(n == 30 for _, n in calls)
    files = list((tmp_path / "simtensors").glob("*.npz"))
    assert len(files) == 1 and not list((tmp_path / "simtensors").glob(".*"))  # no temporary left
    t2 = similarity_tensors(ds, "chrf", cache_dir=tmp_path)
    assert t2.meta.get("cached") is True and t1.meta.get("cached") is False
    for a, b in [(t1.sys_ref, t2.sys_ref), (t1.ref_ref, t2.ref_ref), (t1.loo_sys, t2.loo_sys), (t1.loo_ref, t2.loo_ref)]:
        np.testing.assert_array_equal(a, b)
    assert t2.signature == get_metric("chrf").signature()
    # another metric -> another key
    similarity_tensors(ds, "bleu", cache_dir=tmp_path)
    assert len(list((tmp_path / "simtensors").glob("*.npz"))) == 2


MANY_IDS = ["bleu", "bleu-2", "chrf", "chrf++", "ter", "nist-2", "nist-4", "gtm-1", "gtm-2", "meteor", "wer", "per",
            "rouge-l", "rouge-w", "rouge-su*", "charngram-f3", "charngram-p1"]


@pytest.mark.parametrize("seed", [3, 4])
def test_tensors_many_equal_brute_force(seed):
    """One pass over the segments for many metrics (shared block caches, batches of segments)
    gives the literal definition's values, with missing references and outputs."""
    ds = random_dataset(seed, n_seg=BATCH_SEGMENTS + 5, n_refs=3, n_sys=2)
    got = similarity_tensors_many(ds, MANY_IDS, cache_dir=False)
    assert list(got) == MANY_IDS
    for mid in MANY_IDS:
        m = get_metric(mid)
        if hasattr(m, "prepare"):
            m.prepare(ds)  # NIST: the same corpus weights as the engine
        want = brute_force(ds, m)
        t = got[mid]
        for a, b in zip((t.sys_ref, t.ref_ref, t.loo_sys, t.loo_ref), want):
            np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
            np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=0, atol=1e-9, err_msg=mid)


def test_tensors_many_cache_and_progress(tmp_path):
    ds = random_dataset(6, n_seg=BATCH_SEGMENTS + 8)
    S = len(ds.seg_ids)
    ids = ["chrf", "wer", "gtm-2"]
    similarity_tensors(ds, "wer", cache_dir=tmp_path)  # one metric already cached
    calls = []
    out = similarity_tensors_many(ds, ids, progress=lambda d, n: calls.append((d, n)), cache_dir=tmp_path)
    assert calls[-1] == (S, S) and all(n == S for _, n in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert out["wer"].meta["cached"] is True and out["chrf"].meta["cached"] is False
    assert len(list((tmp_path / "simtensors").glob("*.npz"))) == 3  # one file per metric
    again = similarity_tensors_many(ds, ids, cache_dir=tmp_path)
    for mid in ids:
        assert again[mid].meta["cached"] is True
        single = similarity_tensors(ds, mid, cache_dir=False)
        for a, b in [(again[mid].sys_ref, single.sys_ref), (again[mid].ref_ref, single.ref_ref),
                     (again[mid].loo_sys, single.loo_sys), (again[mid].loo_ref, single.loo_ref)]:
            np.testing.assert_array_equal(a, b)


def _full_dataset(seed=11, n_seg=8, n_refs=2, n_sys=3):
    return random_dataset(seed, n_seg=n_seg, n_refs=n_refs, n_sys=n_sys, p_missing_ref=0.0, p_missing_out=0.0)


@pytest.mark.parametrize("mid,corp,sent", [
    ("bleu", SBLEU(), SBLEU(effective_order=True)), ("chrf", SCHRF(), SCHRF()),
    ("chrf++", SCHRF(word_order=2), SCHRF(word_order=2)), ("ter", STER(), STER()),
])
def test_score_table_matches_sacrebleu(mid, corp, sent):
    ds = _full_dataset()
    refs = ds.ref_texts()
    streams = [refs[r] for r in ds.ref_ids]
    sys_tab = score_table(ds, [mid], level="system")
    seg_tab = score_table(ds, [mid], level="segment")
    assert list(sys_tab.columns) == ["metric", "system", "seg_id", "score", "n_segments", "signature"]
    for name, texts in ds.sys_texts().items():
        got = sys_tab[(sys_tab.system == name)]
        assert len(got) == 1 and got.seg_id.iloc[0] == ""
        assert got.score.iloc[0] == pytest.approx(corp.corpus_score(texts, streams).score, abs=1e-9)
        rows = seg_tab[seg_tab.system == name].set_index("seg_id")["score"]
        for s, seg in enumerate(ds.seg_ids):
            assert rows[seg] == pytest.approx(sent.sentence_score(texts[s], [st[s] for st in streams]).score, abs=1e-9)
    # the signature column is sacreBLEU's own signature of the same computation (2 references)
    assert set(sys_tab.signature) == {corp.get_signature().format()}
    assert set(seg_tab.signature) == {sent.get_signature().format()}
    # one reference set only, and references scored against the other set
    one = score_table(ds, [mid], level="system", ref_ids=["ref-1"], include_references=True)
    name = ds.systems[0]
    assert one[one.system == name].score.iloc[0] == pytest.approx(
        corp.corpus_score(ds.sys_texts()[name], [refs["ref-1"]]).score, abs=1e-9)
    assert "ref-1" not in set(one.system)  # no other reference set to score it against
    assert set(one.signature) == {corp.get_signature().format()} and "nrefs:1|" in one.signature.iloc[0]
    both = score_table(ds, [mid], level="system", include_references=True)
    r0 = both[both.system == "ref-0"].score.iloc[0]
    assert r0 == pytest.approx(corp.corpus_score(refs["ref-0"], [refs["ref-1"]]).score, abs=1e-9)
    assert set(both.signature) == {corp.get_signature().format().replace("nrefs:1|", "nrefs:var|")}  # 2 for systems, 1 for refs


def test_score_table_missing_outputs_are_skipped():
    ds = random_dataset(3, n_seg=10)
    tab = score_table(ds, ["bleu", "ter"], level="segment")
    st, rt = ds.sys_texts(), ds.ref_texts()
    expected = sum(1 for name in ds.systems for s in range(ds.n_segments)
                   if st[name][s] is not None and any(rt[r][s] is not None for r in ds.ref_ids))
    assert len(tab) == 2 * expected
    assert set(tab.metric) == {"bleu", "ter"}


# ---- bring your own scores -----------------------------------------------------------------
BAD = ("metric\tsystem\tseg_id\tscore\n"
       "comet\tsys-0\t1\t0.5\n"
       "comet\tsys-0\t1\t0.6\n"      # duplicate of line 2
       "\tsys-1\t1\t0.1\n"           # empty metric
       "comet\tsys-1\t2\tabc\n"      # not a number
       "comet\t\t2\t0.3\n")          # empty system


def test_byo_reports_every_problem_with_lines():
    with pytest.raises(DataError) as exc:
        read_scores(BAD.encode(), name="my.tsv")
    probs = exc.value.report.errors
    got = {(p.file, p.line) for p in probs}
    assert got == {("my.tsv", 3), ("my.tsv", 4), ("my.tsv", 5), ("my.tsv", 6)}
    text = str(exc.value)
    assert "duplicate" in text and "first on line 2" in text and "score 'abc' is not a number" in text
    with pytest.raises(DataError) as exc:
        read_scores(b"metric\tsys\tscore\nx\ty\t1\n", name="h.tsv")
    assert "missing column(s) system" in str(exc.value)


def test_byo_registers_first_class_metrics(tmp_path):
    ds = _full_dataset(n_seg=3, n_refs=2, n_sys=2)
    rows = ["metric\tsystem\tseg_id\tscore\trefset"]
    for a in ds.systems:
        for s in ds.seg_ids:
            rows.append(f"MyCOMET\t{a}\t{s}\t{int(s) / 10 + (a == 'sys-1')}\t")
            for j, r in enumerate(ds.ref_ids):
                rows.append(f"MyCOMET\t{a}\t{s}\t{int(s) + j / 100}\t{r}")
        rows.append(f"MyCOMET\t{a}\t\t{7.0 if a == 'sys-0' else 8.0}\t")
    for s in ds.seg_ids:
        rows.append(f"MyCOMET\tref-0\t{s}\t{50 + int(s)}\tref-1")
        rows.append(f"MyCOMET\tref-1\t{s}\t{60 + int(s)}\tref-0")
    path = tmp_path / "scores.tsv"
    path.write_text("\n".join(rows) + "\n")
    frame = read_scores(path)
    assert list(frame.columns) == ["metric", "system", "seg_id", "score", "ref_id"]
    try:
        ids = register_scores(frame)
        assert ids == ["mycomet"] and "mycomet" in metric_ids()
        m = get_metric("MyCOMET")
        assert m.meta.family == "external" and m.meta.needs_text is False
        assert m.lookup("sys-1", "2", "", "xx-yy") == pytest.approx(1.2)
        assert math.isnan(m.lookup("sys-1", "99"))
        seg = score_table(ds, ["mycomet"], level="segment").set_index(["system", "seg_id"])["score"]
        assert seg[("sys-0", "3")] == pytest.approx(0.3)
        sysl = score_table(ds, ["mycomet"], level="system").set_index("system")["score"]
        assert sysl["sys-0"] == 7.0 and sysl["sys-1"] == 8.0
        t = similarity_tensors(ds, "mycomet")
        assert t.sys_ref[0, 1, 1] == pytest.approx(2.01)          # sys-0, seg 2, ref-1
        assert t.ref_ref[0, 0, 1] == 51 and t.ref_ref[0, 1, 0] == 61 and math.isnan(t.ref_ref[0, 0, 0])
        # two references: holding one out leaves the other, so x(c, R − {r_j}) is known
        assert t.loo_sys[0, 1, 1] == pytest.approx(2.00) and t.loo_ref[0, 0] == 51
        with pytest.raises(ValueError, match="clashes with the built-in"):
            register_scores(read_scores(b"metric\tsystem\tseg_id\tscore\nBLEU\ts\t1\t3\n"))
    finally:
        unregister_external()
    assert "mycomet" not in metric_ids()


# ---- CLI -----------------------------------------------------------------------------------
def test_cli_score_and_list(tmp_path, capsys):
    from evalcore.cli import main

    from evalcore.io import write_tidy

    ds = _full_dataset(n_seg=4)
    folder = tmp_path / "data"
    write_tidy(ds, folder)
    out = tmp_path / "scores.tsv"
    assert main(["score", str(folder), "--metrics", "bleu,ter", "--level", "system", "--out", str(out)]) == 0
    tab = pd.read_csv(out, sep="\t", keep_default_na=False)
    refs = ds.ref_texts()
    streams = [refs[r] for r in ds.ref_ids]
    got = tab[(tab.metric == "bleu") & (tab.system == "sys-0")].score.iloc[0]
    assert got == pytest.approx(SBLEU().corpus_score(ds.sys_texts()["sys-0"], streams).score, abs=1e-9)
    assert main(["score", "--list-metrics"]) == 0
    listed = capsys.readouterr().out.splitlines()
    ids = [line.split("\t")[0] for line in listed]
    assert ids == metric_ids() and "bleu" in ids and "chrf++" in ids
    assert main(["score", str(folder), "--metrics", "nosuchmetric"]) == 2


def test_engine_fits_nist_weights_on_every_reference_of_the_corpus():
    """spec §7.2: information weights come from all references of the corpus, so a
    segment's NIST score depends on the other segments' references too."""
    import pandas as _pd

    from evalcore.core.dataset import Dataset as _D
    from evalcore.metrics import get_metric as _g
    from evalcore.metrics.engine import score_table as _st

    seg = _pd.DataFrame({"seg_id": ["1", "2"], "doc_id": "", "source": ""})
    refs = _pd.DataFrame({"seg_id": ["1", "1", "2"], "ref_id": ["A", "B", "A"],
                          "text": ["the cat sat on the mat", "a cat was on the mat", "dogs bark at night"]})
    outs = _pd.DataFrame({"system": ["s", "s"], "seg_id": ["1", "2"], "text": ["the cat on the mat", "dogs bark"]})
    ds = _D("t", "", seg, refs, outs)
    got = _st(ds, ["nist-5"], level="segment").set_index("seg_id")["score"]
    fitted = _g("nist-5").fit([["the cat sat on the mat", "a cat was on the mat"], ["dogs bark at night"]])
    unfitted = _g("nist-5")
    assert abs(got["1"] - fitted.sentence_score("the cat on the mat", ["the cat sat on the mat", "a cat was on the mat"])) < 1e-12
    assert abs(got["1"] - unfitted.sentence_score("the cat on the mat", ["the cat sat on the mat", "a cat was on the mat"])) > 1e-6
