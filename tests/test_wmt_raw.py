"""Raw WMT/Appraise exports: WMT's filters and the rule for re-ratings (evalcore.io.wmt_rules,
``import-judgements --wmt-filters --repeats``), then the published WMT24 ranking from them.

The references are written here from the published descriptions, on the raw rows, with pandas
and scipy (no evalcore code): the README of ../shared/data/wmt24_esa/raw (what the official
ranking leaves out: tutorial items, BAD rows, filler documents #bad/#dup/#incomplete, exact
repeats; the later of two ratings is kept) and Kocmi et al. 2024, *Findings of WMT24*, §3 (item
score = mean over raters; system score = macro average over domains; per-domain two-sided
Wilcoxon signed-rank tests combined with Stouffer's method; rank range 1 + #significantly better
.. N - #significantly worse at p < 0.05).
"""
from __future__ import annotations

import json
import math
from collections import defaultdict

import pandas as pd
import pytest
import scipy.stats

from conftest import shared
from evalcore.cli import main
from evalcore.core.problems import DataError
from evalcore.io.appraise import read_appraise
from evalcore.io.pearmut import read_pearmut

RAW = "esa_generalMT2024_wave2.en-cs.csv"
COLS = ["user", "system", "line", "type", "src", "tgt", "score", "doc", "complete", "spans", "t0", "t1"]


def row(user="u1", system="sysA", item=1, kind="TGT", score=50, doc="doc1", t0=100.0, t1=110.0, spans="[]"):
    field = "[]" if spans == "[]" else '"' + json.dumps(spans).replace('"', '""') + '"'
    return f"{user},{system},{item},{kind},eng,ces,{score},{doc},False,{field},{t0},{t1}\n"


def read(text: str, **kw):
    return read_appraise(text.encode(), "raw.csv", **kw)


# ---- the filters, on hand-built rows ----------------------------------------------------------

SMALL = (row() + row(system="ende-tutorial1", item=1000001, doc="ende-tutorial1")  # 1, 2 tutorial
         + row(system="sysB", score=10, kind="BAD", doc="doc1#bad")  # 3 BAD (also a #bad document)
         + row(system="sysB", score=70, doc="doc2#dup")  # 4 filler #dup
         + row(system="sysB", item=2, score=60, doc="doc3#incomplete")  # 5 filler #incomplete
         + row(system="sysB", item=3, score=65, doc="doc3#dup#dup")  # 6 filler #dup
         + row(user="u2", score=80)  # 7
         + row(user="u2", score=80))  # 8: exact repeat of 7


def test_without_wmt_filters_an_exact_repeat_is_refused_with_its_line():
    with pytest.raises(DataError) as exc:
        read(SMALL)
    errs = [str(p) for p in exc.value.report.errors]
    assert len(errs) == 1 and "line 8" in errs[0] and "line 7" in errs[0] and "--wmt-filters" in errs[0]


def test_wmt_filters_set_aside_each_kind_with_counts_and_lines():
    imp = read(SMALL, wmt_filters=True)
    j = imp.judgements
    assert list(zip(j["rater"], j["system"], j["score"])) == [("u1", "sysA", 50.0), ("u2", "sysA", 80.0)]
    assert imp.lines == [1, 7]
    aside = dict(zip(imp.set_aside["line"], imp.set_aside["item_type"]))
    assert aside == {2: "tutorial", 3: "BAD", 4: "filler#dup", 5: "filler#incomplete", 6: "filler#dup",
                     8: "exact-repeat"}
    text = "\n".join(map(str, imp.warnings))
    assert "1 tutorial (line 2)" in text and "2 filler#dup (lines 4, 6)" in text
    assert "1 filler#incomplete (line 5)" in text and "1 exact-repeat (line 8)" in text
    assert "1 BAD" in text and "2 judgement(s) kept" in text
    # nothing is lost: every row is a judgement or set aside
    assert len(j) + len(imp.set_aside) == SMALL.count("\n")


RERATED = (row(user="u1", score=40, t0=300.0, t1=310.0)  # 1: the later rating (by time), on the first line
           + row(user="u1", score=90, t0=100.0, t1=120.0, spans=[{"start_i": 0, "end_i": 2, "severity": "major"}])  # 2
           + row(user="u1", system="sysB", score=70)  # 3
           + row(user="u2", score=55))  # 4: another rater of the same output: not a re-rating


def test_repeats_refuse_names_every_rerated_output():
    with pytest.raises(DataError) as exc:
        read(RERATED, repeats="refuse")
    errs = [str(p) for p in exc.value.report.errors]
    assert len(errs) == 1
    assert "'u1'" in errs[0] and "'sysA'" in errs[0] and "lines 1, 2" in errs[0] and "--repeats latest" in errs[0]


def test_repeats_latest_keeps_the_later_rating_by_time_not_by_line():
    imp = read(RERATED, repeats="latest")
    j = imp.judgements
    got = sorted(zip(j["rater"], j["system"], j["score"]))
    assert got == [("u1", "sysA", 40.0), ("u1", "sysB", 70.0), ("u2", "sysA", 55.0)]
    assert imp.set_aside["item_type"].tolist() == ["re-rated"] and imp.set_aside["line"].tolist() == [2]
    assert imp.set_aside["score"].tolist() == [90.0]
    # without times the later line is the later rating
    no_times = RERATED.replace(",300.0,310.0", ",,").replace(",100.0,120.0", ",,")
    j2 = read(no_times, repeats="latest").judgements
    assert j2[(j2["rater"] == "u1") & (j2["system"] == "sysA")]["score"].tolist() == [90.0]


def test_repeats_mean_averages_and_keeps_the_latest_spans():
    imp = read(RERATED, repeats="mean")
    j = imp.judgements
    one = j[(j["rater"] == "u1") & (j["system"] == "sysA")]
    assert one["score"].tolist() == [(40 + 90) / 2]
    assert one["esa_spans_json"].tolist() == ["[]"]  # the spans of the later rating (line 1)
    assert sorted(imp.set_aside["line"]) == [1, 2] and set(imp.set_aside["item_type"]) == {"averaged"}
    assert len(j) == 3


def test_without_repeats_every_rating_is_kept_with_a_warning():
    imp = read(RERATED)
    assert len(imp.judgements) == 4
    assert any("kept and counted separately" in str(w) for w in imp.warnings)


def test_cli_refuses_rerated_outputs_by_default_and_exits_2(tmp_path, capsys):
    f = tmp_path / "raw.csv"
    f.write_text(RERATED)
    out = tmp_path / "j.tsv"
    assert main(["import-judgements", str(f), "--format", "appraise", "--out", str(out)]) == 2
    assert "rated system 'sysA', segment '1' 2 times" in capsys.readouterr().err and not out.exists()
    assert main(["import-judgements", str(f), "--format", "appraise", "--out", str(out), "--repeats", "latest"]) == 0
    t = pd.read_csv(out, sep="\t")
    assert len(t) == 3 and "re-rated 1" in capsys.readouterr().err


def _pearmut_line(user, item_i, items):
    return json.dumps({"user_id": user, "item_i": item_i,
                       "item": [{"item_id": seg, "src": "s", "tgt": {sys_: "t" for sys_ in scores}}
                                for seg, scores in items],
                       "annotation": [{sys_: {"score": sc, "error_spans": []} for sys_, sc in scores.items()}
                                      for _, scores in items]}) + "\n"


def test_pearmut_takes_the_same_options():
    data = (_pearmut_line("alice", 0, [("d1_#_0", {"sysA": 60, "sysB": 70})])
            + _pearmut_line("alice", 1, [("d1_#_0", {"sysA": 80}), ("d2#dup_#_0", {"sysA": 10})])
            + _pearmut_line("bob", 2, [("d1_#_0", {"ende-tutorial1": 0, "sysA": 50})]))
    with pytest.raises(DataError):
        read_pearmut(data.encode(), "p.jsonl", repeats="refuse")
    imp = read_pearmut(data.encode(), "p.jsonl", wmt_filters=True, repeats="latest")
    got = sorted(zip(imp.judgements["rater"], imp.judgements["system"], imp.judgements["score"]))
    assert got == [("alice", "sysA", 80.0), ("alice", "sysB", 70.0), ("bob", "sysA", 50.0)]
    assert sorted(imp.set_aside["item_type"]) == ["filler#dup", "re-rated", "tutorial"]
    mean = read_pearmut(data.encode(), "p.jsonl", repeats="mean").judgements
    one = mean[(mean["rater"] == "alice") & (mean["system"] == "sysA") & (mean["seg_id"] == "d1_#_0")]
    assert one["score"].tolist() == [70.0]


# ---- the raw en-cs rows of WMT24 -----------------------------------------------------------------

def _official_rows(path) -> pd.DataFrame:
    """The raw rows as the README says the official ranking uses them, written with pandas."""
    raw = pd.read_csv(path, header=None, names=COLS, dtype=str, keep_default_na=False)
    raw["order"] = range(len(raw))
    keep = raw[~raw["system"].str.contains("tutorial") & (raw["type"] != "BAD")
               & ~raw["doc"].str.endswith(("#bad", "#dup", "#incomplete"))]
    keep = keep.drop_duplicates(COLS)
    keep = keep.assign(t1f=keep["t1"].astype(float), t0f=keep["t0"].astype(float))
    keep = keep.sort_values(["t1f", "t0f", "order"]).drop_duplicates(["user", "system", "line"], keep="last")
    return keep.assign(score=keep["score"].astype(float))


def _wmt24_ranking(rows: pd.DataFrame, domain: dict) -> dict:
    """Kocmi et al. 2024 §3 on the rows, with dictionaries and scipy."""
    per_item = defaultdict(list)
    for r in rows.itertuples():
        per_item[(r.system, r.line)].append(r.score)
    item = {k: sum(v) / len(v) for k, v in per_item.items()}
    systems = sorted({s for s, _ in item})
    doms = sorted(set(domain.values()))
    score = {}
    for s in systems:
        means = [sum(v) / len(v) for d in doms
                 if (v := [x for (s2, g), x in item.items() if s2 == s and domain[g] == d])]
        score[s] = sum(means) / len(means)
    p = {}
    for a in systems:
        for b in systems:
            if a >= b:
                continue
            zs = []
            for d in doms:
                common = sorted(g for (s2, g) in item if s2 == a and domain[g] == d and (b, g) in item)
                if not common:
                    continue
                xa, xb = [item[(a, g)] for g in common], [item[(b, g)] for g in common]
                pd_ = 1.0 if xa == xb else scipy.stats.wilcoxon(xa, xb).pvalue
                zs.append(scipy.stats.norm.ppf(1 - pd_))
            p[(a, b)] = p[(b, a)] = 1 - scipy.stats.norm.cdf(sum(zs) / math.sqrt(len(zs)))
    n = len(systems)
    out = {}
    for s in systems:
        better = sum(1 for t in systems if t != s and p[(s, t)] < 0.05 and score[t] > score[s])
        worse = sum(1 for t in systems if t != s and p[(s, t)] < 0.05 and score[t] < score[s])
        out[s] = (score[s], 1 + better, n - worse)
    return out


def test_raw_en_cs_rows_give_the_official_judgements_and_ranking(tmp_path, capsys):
    root = shared("wmt24_esa")
    raw = root / "raw" / RAW
    ds = tmp_path / "ds"
    ds.mkdir()
    for name in ("segments.tsv", "outputs.tsv", "references.tsv"):
        t = pd.read_csv(root / name, sep="\t", dtype=str, keep_default_na=False)
        t[t["lp"] == "en-cs"].to_csv(ds / name, sep="\t", index=False)
    out = ds / "judgements.tsv"
    assert main(["import-judgements", str(raw), "--format", "appraise", "--lp", "en-cs", "--out", str(out),
                 "--set-aside", str(tmp_path / "aside.tsv"), "--dataset", str(ds)]) == 2
    assert "11 problems" in capsys.readouterr().err  # the exact repeats, refused without --wmt-filters
    assert main(["import-judgements", str(raw), "--format", "appraise", "--lp", "en-cs", "--out", str(out),
                 "--wmt-filters"]) == 2
    assert "3 problems" in capsys.readouterr().err  # the re-rated outputs, refused by default
    assert main(["import-judgements", str(raw), "--format", "appraise", "--lp", "en-cs", "--out", str(out),
                 "--set-aside", str(tmp_path / "aside.tsv"), "--dataset", str(ds), "--wmt-filters",
                 "--repeats", "latest"]) == 0
    err = capsys.readouterr().err
    official = _official_rows(raw)
    j = pd.read_csv(out, sep="\t", dtype={"seg_id": str})
    # the README: 4,767 rows pass the first three filters; 11 of them repeat a row exactly and 3
    # outputs were re-rated (7 rows, 4 earlier ratings): 4,752 judgements = 297 segments x 16
    assert len(j) == len(official) == 4752 == 297 * 16
    aside = pd.read_csv(tmp_path / "aside.tsv", sep="\t")
    assert aside["item_type"].value_counts().to_dict() == {
        "BAD": 733, "tutorial": 369, "filler#incomplete": 200, "filler#dup": 51, "exact-repeat": 11, "re-rated": 4}
    assert len(j) + len(aside) == 6120
    assert "wrote 4752 judgement(s)" in err and "re-rated 4" in err
    got = sorted(zip(j["rater"], j["system"], j["seg_id"], j["score"]))
    assert got == sorted(zip(official["user"], official["system"], official["line"], official["score"]))

    rank_out = tmp_path / "rank.tsv"
    assert main(["rank", str(ds), "--human", "esa", "--out", str(rank_out)]) == 0
    t = pd.read_csv(rank_out, sep="\t")
    seg = pd.read_csv(ds / "segments.tsv", sep="\t", dtype=str)
    ref = _wmt24_ranking(official, dict(zip(seg["seg_id"], seg["domain"])))
    assert t["system"].tolist() == sorted(ref, key=lambda s: (-ref[s][0], s))
    for r in t.itertuples():
        assert r.score == pytest.approx(ref[r.system][0], abs=1e-9)
        assert (r.rank_best, r.rank_worst) == ref[r.system][1:]


def test_wmt_jsonl_release_takes_the_same_options(tmp_path, capsys):
    def line(system, seg, rater, score, doc="doc1"):
        return json.dumps({"langs": "en-cs", "line_id": seg, "src": f"src {seg}", "tgt": f"{system} {seg}",
                           "doc_id": doc, "domain": "news", "esa_spans": [], "esa_score": score, "system": system,
                           "annotator": rater}) + "\n"
    data = (line("sysA", 1, "r1", 40) + line("sysA", 1, "r1", 70)  # a re-rating: the later line counts
            + line("sysB", 1, "r1", 50) + line("ende-tutorial1", 1, "r1", 0)
            + line("sysB", 2, "r1", 10, doc="doc2#dup") + line("sysB", 1, "r2", 60))
    f = tmp_path / "humeval.jsonl"
    f.write_text(data)
    out = tmp_path / "j.tsv"
    assert main(["import-judgements", str(f), "--format", "wmtjsonl", "--out", str(out)]) == 2
    assert "rated system 'sysA', segment '1' 2 times (lines 1, 2)" in capsys.readouterr().err
    assert main(["import-judgements", str(f), "--format", "wmtjsonl", "--out", str(out), "--wmt-filters",
                 "--repeats", "latest"]) == 0
    t = pd.read_csv(out, sep="\t", dtype={"seg_id": str})
    assert sorted(zip(t["system"], t["seg_id"], t["rater"], t["score"])) == [
        ("sysA", "1", "r1", 70.0), ("sysB", "1", "r1", 50.0), ("sysB", "1", "r2", 60.0)]
    aside = pd.read_csv(tmp_path / "j.set_aside.tsv", sep="\t")
    assert sorted(aside["item_type"]) == ["filler#dup", "re-rated", "tutorial"]
    assert main(["import-judgements", str(f), "--format", "wmtjsonl", "--out", str(out), "--repeats", "mean"]) == 0
    t = pd.read_csv(out, sep="\t", dtype={"seg_id": str})
    assert t[(t["system"] == "sysA") & (t["rater"] == "r1")]["score"].tolist() == [55.0]
