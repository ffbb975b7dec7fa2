"""Every signature written beside BLEU, chrF and TER scores is sacreBLEU 2.6's own.

The reference is sacreBLEU itself: each metric scores the same number of references and
``get_signature().format()`` is read off it (corpus BLEU with ``effective_order=False``,
``eff:no``; sentence BLEU with ``effective_order=True``, ``eff:yes``). Walked: the outputs of
``score`` (both levels), ``correlate``, ``compare``, ``references`` (the leave-one-out
signature is sacreBLEU's for the n − 1 references scored against, plus ``leave-one-out:n``),
``score --list-metrics`` (no scores yet: no ``nrefs``), and the page side
(``views.common.signature_text`` / ``metric_signature``, the Campaign view's signature table and
the Compare page's ``Comparison.metric_signature``); with 1 and with 3 references.
"""
from __future__ import annotations

import re

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from conftest import ROOT
from evalcore.cli import main
from evalcore.io import load_dataset
from evalcore.metrics.base import Signature

SAMPLE = ROOT / "sample_data" / "teaching_es_en"
METRICS = ["bleu", "chrf", "ter"]


def sacre(metric_id: str, nrefs: int, level: str) -> str:
    """sacreBLEU's signature after scoring with ``nrefs`` references."""
    m = {"bleu": BLEU(effective_order=level != "system"), "chrf": CHRF(), "ter": TER()}[metric_id]
    m.corpus_score(["a b c d"], [["a b c d"]] * nrefs)
    return m.get_signature().format()


@pytest.fixture(scope="module", params=[1, 3], ids=["1ref", "3refs"])
def data(request, tmp_path_factory):
    from evalcore.io.tidy import write_tidy

    n = request.param
    ds = load_dataset(str(SAMPLE))
    ds = ds.with_references(list(ds.ref_ids[:n]))
    folder = tmp_path_factory.mktemp(f"sig{n}") / "d"
    write_tidy(ds, folder)
    return n, folder, load_dataset(str(folder))


def _tsv(text: str):
    import io

    import pandas as pd

    lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
    return pd.read_csv(io.StringIO("\n".join(lines)), sep="\t", dtype=str, keep_default_na=False)


def _in_line(text: str) -> dict[str, str]:
    """``metrics: bleu=SIG; chrf=SIG; ter=SIG | ...`` -> {metric: SIG}."""
    body = text.split("metrics: ", 1)[1]
    out = {}
    for m in METRICS:
        hit = re.search(rf"(?:^|; ){re.escape(m)}=(.*?)(?=; (?:{'|'.join(METRICS)})=| \| )", body)
        assert hit, (m, text)
        out[m] = hit.group(1)
    return out


def test_score_and_correlate(data, capsys):
    n, folder, _ = data
    for level in ("system", "segment"):
        assert main(["score", str(folder), "--metrics", ",".join(METRICS), "--level", level]) == 0
        t = _tsv(capsys.readouterr().out)
        for m in METRICS:
            assert set(t[t.metric == m]["signature"]) == {sacre(m, n, level)}, (m, level)
        assert main(["correlate", str(folder), "--metrics", ",".join(METRICS), "--human", "adequacy",
                     "--level", level]) == 0
        t = _tsv(capsys.readouterr().out)
        for m in METRICS:
            assert set(t[t.metric == m]["signature"]) == {sacre(m, n, level)}, (m, level, "correlate")


def test_compare(data, capsys):
    n, folder, ds = data
    assert main(["compare", str(folder), "--a", "literal", "--b", "synonyms", "--metrics", ",".join(METRICS),
                 "--bootstrap", "10", "--ar", "10"]) == 0
    t = _tsv(capsys.readouterr().out)
    (sig,) = set(t["signature"])
    assert _in_line(sig) == {m: sacre(m, n, "system") for m in METRICS}
    # the Compare page's table of signatures
    from evalcore.analysis import compare as C

    cmp = C.build(ds, "literal", "synonyms", METRICS, [])
    assert {m: cmp.metric_signature(m) for m in METRICS} == {m: sacre(m, n, "system") for m in METRICS}


def test_references(data, capsys):
    n, folder, _ = data
    if n < 2:
        pytest.skip("leave-one-out needs two reference sets")
    assert main(["references", str(folder), "--metrics", ",".join(METRICS), "--bootstrap", "0"]) == 0
    t = _tsv(capsys.readouterr().out.split("\n\n")[0])
    for m in METRICS:
        (sig,) = set(t[t.metric == m]["signature"])
        parsed = Signature.parse(sig)
        assert parsed.get("leave-one-out") == str(n)
        rest = Signature([(k, v) for k, v in parsed.fields if k != "leave-one-out"], parsed.metric)
        assert rest.format() == sacre(m, n - 1, "system"), m


def test_list_metrics(capsys):
    assert main(["score", "--list-metrics"]) == 0
    lines = dict(ln.split("\t")[0::2] for ln in capsys.readouterr().out.splitlines() if ln.count("\t") == 2)
    for m in METRICS:  # no scores yet: sacreBLEU's signature without nrefs (BLEU: sentence defaults)
        assert lines[m] == re.sub(r"^nrefs:\d+\|", "", sacre(m, 1, "segment")), m


def test_page_side(data):
    n, _, ds = data
    from evalcore.views import campaign as campaign_view
    from evalcore.scoring import defaults as common

    for level in ("system", "segment"):
        assert _in_line(common.signature_text(METRICS, dataset=ds, level=level)) == {
            m: sacre(m, n, level) for m in METRICS}
        assert {m: common.metric_signature(m, n, level) for m in METRICS} == {m: sacre(m, n, level) for m in METRICS}
    frame = campaign_view.signature_frame({ds.lp: ds}, [ds.lp], METRICS, "adequacy")
    assert dict(zip(frame["metric"], frame["signature"])) == {m: sacre(m, n, "system") for m in METRICS}


def test_campaign_signature(data):
    n, _, ds = data
    from evalcore.analysis.campaign import campaign

    res = campaign({ds.lp: ds}, METRICS, "adequacy")
    assert _in_line(res.signature) == {m: sacre(m, n, "system") for m in METRICS}
