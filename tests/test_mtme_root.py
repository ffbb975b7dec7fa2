"""A whole mt-metrics-eval-v2 root (several test sets side by side) read by evalcore.io.mtme.read_root
and taken by `evalcore metatask`, on a root written by `export-mtme` (round trip).

../shared/data holds no data in the mt-metrics-eval layout (every folder there is tidy TSV), so the
root is written here from wmt24_esa en-cs (test set "wmt24", with chrF metric scores) and
wmt21_news_mqm en-de (test set "wmt21.news": three references, human-score files of MQM).
"""
from __future__ import annotations

import io
import shutil
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from conftest import shared
from evalcore.cli import main


def _quiet(argv):
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(argv)
    return rc, err.getvalue()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    out = tmp_path_factory.mktemp("mtme") / "mt-metrics-eval-v2"
    rc, err = _quiet(["export-mtme", str(shared("wmt24_esa")), "--out", str(out), "--test-set", "wmt24",
                      "--lp", "en-cs", "--metrics", "chrf"])
    assert rc == 0, err
    rc, err = _quiet(["export-mtme", str(shared("wmt21_news_mqm")), "--out", str(out), "--test-set", "wmt21.news",
                      "--lp", "en-de"])
    assert rc == 0, err
    return out


def test_root_lists_test_sets_and_reads_each_with_the_test_set_reader(root):
    from evalcore.io import FileSource, load_collection
    from evalcore.io.mtme import read_mtme, read_root, test_sets

    src = FileSource.from_path(root)
    assert test_sets(src) == {"wmt21.news": ["en-de"], "wmt24": ["en-cs"]}
    sets = read_root(src)
    assert sorted(sets) == ["wmt21.news", "wmt24"]
    # the same datasets as the one-test-set reader on each folder
    for ts in sets:
        alone = read_mtme(FileSource.from_path(root / ts), ts)
        for lp, ds in alone.items():
            got = sets[ts][lp]
            assert got.ref_ids == ds.ref_ids and got.systems == ds.systems
            pd.testing.assert_frame_equal(got.judgements, ds.judgements)
            assert set(got.extras) == set(ds.extras)
    ende = sets["wmt21.news"]["en-de"]
    assert ende.ref_ids == ["refA", "refC", "refD"]
    assert {"refA", "refC", "refD"} <= set(ende.judgements["system"])  # the references judged as systems
    assert "metric_scores" in sets["wmt24"]["en-cs"].extras
    assert "segment_domains" in sets["wmt24"]["en-cs"].extras
    # a root of several test sets is one collection keyed "<test set>/<lp>"
    coll = load_collection(root)
    assert sorted(coll) == ["wmt21.news/en-de", "wmt24/en-cs"]
    assert coll["wmt24/en-cs"].lp == "en-cs" and coll["wmt24/en-cs"].name == "wmt24"


def test_root_problems_of_every_test_set_come_together(root, tmp_path):
    from evalcore.io import FileSource
    from evalcore.io.mtme import read_root
    from evalcore.core.problems import DataError

    bad = tmp_path / "root"
    shutil.copytree(root, bad)
    f1 = bad / "wmt24" / "human-scores" / "en-cs.esa.sys.score"
    f1.write_text(f1.read_text().replace("\n", " extra\n", 1))
    f2 = bad / "wmt21.news" / "human-scores" / "en-de.mqm.sys.score"
    lines = f2.read_text().splitlines()
    f2.write_text("\n".join([lines[0].split("\t")[0] + "\tnot-a-number"] + lines[1:]) + "\n")
    with pytest.raises(DataError) as exc:
        read_root(FileSource.from_path(bad))
    text = str(exc.value)
    assert "wmt24/human-scores/en-cs.esa.sys.score" in text and "wmt21.news/human-scores/en-de.mqm.sys.score" in text
    assert "not-a-number" in text


def test_metatask_on_the_root_equals_the_original_data(root, tmp_path):
    """metatask ROOT (the task's test set chosen by name) = metatask on the tidy original:
    the same systems, gold and chrF matrices; the stored chrF scores equal the recomputed ones.
    The SPA values are compared through their inputs: SPA depends on the order of the systems
    (a pair's p-value of i > j and of j > i differ by the probability of an exact tie, which
    the integer ESA scores have), and the export writes the systems sorted by name."""
    from evalcore.io import load_collection, load_test_set
    from evalcore.analysis.metatask import run_metatask

    out = tmp_path / "t.tsv"
    rc, err = _quiet(["metatask", str(root), "--task", "wmt24", "--lp", "en-cs", "--metrics", "chrf,stored:chrf",
                      "--out", str(out)])
    assert rc == 0, err
    assert "test set wmt24 of the mt-metrics-eval root" in err
    t = pd.read_csv(out, sep="\t").set_index("metric")
    assert "test_set=wmt24" in t.loc["chrf", "settings"]
    assert t.loc["stored:chrf"].drop(["signature", "average_rank", "cluster", "settings"]).tolist() == pytest.approx(
        t.loc["chrf"].drop(["signature", "average_rank", "cluster", "settings"]).tolist(), abs=1e-12)
    ts, coll = load_test_set(root, prefer="wmt24")
    assert ts == "wmt24"
    mine, _, _ = run_metatask(coll, "wmt24", lps=["en-cs"], metrics=["chrf"])
    orig, _, _ = run_metatask(load_collection(str(shared("wmt24_esa"))), "wmt24", lps=["en-cs"], metrics=["chrf"])
    a, b = mine.pairs["en-cs"], orig.pairs["en-cs"]
    assert sorted(a.systems) == sorted(b.systems) and len(a.systems) == 15
    order = [b.systems.index(s) for s in a.systems]
    np.testing.assert_array_equal(a.gold, b.gold[order])
    np.testing.assert_allclose(a.seg["chrf"], b.seg["chrf"][order], rtol=0, atol=1e-9)
    np.testing.assert_allclose(a.sys["chrf"], b.sys["chrf"][order], rtol=0, atol=1e-9)
    assert mine.values.loc["chrf", "en-cs:seg:acc23/item+tie"] == pytest.approx(
        orig.values.loc["chrf", "en-cs:seg:acc23/item+tie"], abs=1e-12)


def test_metatask_on_a_root_needs_a_test_set_when_the_task_is_not_there(root):
    rc, err = _quiet(["metatask", str(root), "--task", "wmt23", "--metrics", "chrf"])
    assert rc == 2 and "several test sets" in err and "--test-set" in err
    rc, err = _quiet(["metatask", str(root), "--task", "wmt23", "--test-set", "wmt22", "--metrics", "chrf"])
    assert rc == 2 and "'wmt22' not in" in err and "wmt21.news, wmt24" in err
