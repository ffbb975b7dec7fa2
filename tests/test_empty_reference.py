"""An empty reference text: ``score`` scores the segment as sacreBLEU does, and ``validate``
(and the Data page's capability table) count that segment as scorable, so the two agree."""
from __future__ import annotations

import pandas as pd
from sacrebleu.metrics import BLEU, CHRF, TER

from evalcore.core.capabilities import capabilities
from evalcore.cli import main
from evalcore.io import load_collection


def _data(folder):
    folder.mkdir()
    (folder / "segments.tsv").write_text("lp\tseg_id\tsource\nes-en\t1\tHola.\nes-en\t2\tAdiós.\n", encoding="utf-8")
    (folder / "references.tsv").write_text("lp\tseg_id\tref_id\ttext\nes-en\t1\tref\tHello.\nes-en\t2\tref\t\n",
                                           encoding="utf-8")
    (folder / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\nes-en\tsys\t1\tHello.\nes-en\tsys\t2\tBye.\n",
                                        encoding="utf-8")
    return folder


def test_validate_and_score_agree_on_an_empty_reference(tmp_path, capsys):
    data = _data(tmp_path / "d")
    out = tmp_path / "s.tsv"
    assert main(["score", str(data), "--metrics", "bleu,chrf,ter", "--out", str(out)]) == 0
    scores = pd.read_csv(out, sep="\t", dtype={"seg_id": str})
    seg2 = scores[scores["seg_id"] == "2"].set_index("metric")["score"]
    # sacreBLEU scores the segment against the empty reference
    for mid, m in (("bleu", BLEU(effective_order=True)), ("chrf", CHRF()), ("ter", TER())):
        assert abs(seg2[mid] - m.sentence_score("Bye.", [""]).score) < 1e-9, mid
    capsys.readouterr()
    assert main(["validate", str(data)]) == 0
    err_out = capsys.readouterr()
    line = next(x for x in err_out.out.splitlines() if "Metric scores" in x)
    assert "2 of 2 segments" in line, line
    cap = {c.analysis: c for c in capabilities(load_collection(data)["es-en"])}
    assert cap["Metric scores (BLEU, chrF, TER, …)"].segments == 2
