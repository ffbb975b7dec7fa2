"""The human-ceiling row (evalcore.analysis.ceiling; `correlate` / `metatask --human-ceiling`).

References: a hand-worked example (Pearson by the standard library, acc23 with tie calibration by
brute force over every threshold), and mt-metrics-eval (../shared/oracles) given the second
rating as the metric: its Correlation.Pearson, CompareMetricsWithPairwiseConfidenceError (SPA)
and CompareMetrics with KendallWithTiesOpt by item, both directions averaged.
"""
from __future__ import annotations

import itertools
import statistics
import sys
import types

import numpy as np
import pandas as pd
import pytest

from conftest import SHARED_DATA
from evalcore.cli import main

ORACLE = SHARED_DATA.parent / "oracles" / "mt-metrics-eval"


def _oracle():
    if not ORACLE.exists():
        pytest.skip(f"mt-metrics-eval oracle {ORACLE} is absent")
    sys.modules.setdefault("apache_beam", types.ModuleType("apache_beam"))
    try:
        import dacite  # noqa: F401
    except ImportError:
        sys.modules["dacite"] = types.ModuleType("dacite")
    if str(ORACLE) not in sys.path:
        sys.path.insert(0, str(ORACLE))
    from mt_metrics_eval import data, stats

    return data, stats


def _write(folder, judg, lp="aa-bb", n_seg=3, systems=("A", "B", "C", "D"), metric_rows=None, tmp=None):
    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([(lp, str(i + 1), "", f"src {i}") for i in range(n_seg)],
                 columns=["lp", "seg_id", "doc_id", "source"]).to_csv(folder / "segments.tsv", sep="\t", index=False)
    pd.DataFrame([(lp, s, str(i + 1), f"o {s} {i}") for s in systems for i in range(n_seg)],
                 columns=["lp", "system", "seg_id", "text"]).to_csv(folder / "outputs.tsv", sep="\t", index=False)
    pd.DataFrame([(lp,) + r for r in judg], columns=["lp", "system", "seg_id", "rater", "judgement", "score"]).to_csv(
        folder / "judgements.tsv", sep="\t", index=False)
    sc = folder.parent / f"{folder.name}-scores.tsv"
    pd.DataFrame(metric_rows, columns=["metric", "system", "seg_id", "score"]).to_csv(sc, sep="\t", index=False)
    return folder, sc


# a hand-worked example: 4 systems, 3 segments, two waves (esa, esa2) of the same 12 cells
ESA = {"A": [10, 20, 30], "B": [20, 20, 40], "C": [30, 50, 40], "D": [60, 40, 50]}
ESA2 = {"A": [15, 25, 20], "B": [10, 30, 40], "C": [35, 40, 50], "D": [50, 45, 60]}
M = {"A": [0.1, 0.4, 0.2], "B": [0.3, 0.2, 0.5], "C": [0.2, 0.6, 0.4], "D": [0.7, 0.5, 0.6]}


def _hand(tmp_path, second_as="esa2"):
    judg = []
    for s in ESA:
        for i in range(3):
            judg.append((s, str(i + 1), "r1", "esa", ESA[s][i]))
            if second_as == "esa2":
                judg.append((s, str(i + 1), "r2", "esa2", ESA2[s][i]))
            elif second_as == "rater":  # a second rater of the same criterion
                judg.append((s, str(i + 1), "r2", "esa", ESA2[s][i]))
            else:  # the same rater again (a re-rating)
                judg.append((s, str(i + 1), "r1", "esa", ESA2[s][i]))
    rows = [("m", s, str(i + 1), M[s][i]) for s in M for i in range(3)]
    return _write(tmp_path / f"hand-{second_as}", judg, metric_rows=rows)


def _acc23_brute(gold, metric):
    """acc23 with the best global tie threshold (Deutsch et al. 2023): pairs of cells of one item,
    a metric tie when |Δm| ≤ ε; the accuracy averaged over items; max over ε in {0} ∪ {|Δm|}."""
    def acc(eps):
        per_item = []
        for i in range(len(gold[0])):
            ok = 0
            pairs = list(itertools.combinations(range(len(gold)), 2))
            for a, b in pairs:
                dg = gold[a][i] - gold[b][i]
                dm = metric[a][i] - metric[b][i]
                sm = 0 if abs(dm) <= eps else (1 if dm > 0 else -1)
                sg = 0 if dg == 0 else (1 if dg > 0 else -1)
                ok += sm == sg
            per_item.append(ok / len(pairs))
        return sum(per_item) / len(per_item)

    cands = [0.0] + sorted({abs(metric[a][i] - metric[b][i]) for i in range(len(gold[0]))
                            for a, b in itertools.combinations(range(len(gold)), 2)})
    return max(acc(e) for e in cands)


def _table(path):
    return pd.read_csv(path, sep="\t", keep_default_na=False)


@pytest.mark.parametrize("second", ["esa2", "raters", "repeats"])
def test_correlate_ceiling_hand_worked(tmp_path, second):
    data, scores = _hand(tmp_path, {"esa2": "esa2", "raters": "rater", "repeats": "repeat"}[second])
    out = tmp_path / f"sys-{second}.tsv"
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--human-ceiling", second,
                 "--out", str(out)]) == 0
    t = _table(out).set_index("metric")
    a = [statistics.fmean(ESA[s]) for s in ESA]
    b = [statistics.fmean(ESA2[s]) for s in ESA]
    assert t.loc["human-ceiling", "value"] == pytest.approx(statistics.correlation(a, b), abs=1e-12)
    m = [statistics.fmean(M[s]) for s in M]
    # the metrics' gold is the criterion as correlate reads it: with two raters, their mean
    gold = a if second == "esa2" else [statistics.fmean(x + y for x, y in zip(ESA[s], ESA2[s])) / 2 for s in ESA]
    share = statistics.correlation(gold, m) / statistics.correlation(a, b)
    assert t.loc["m", "ceiling_share"] == pytest.approx(share, abs=1e-12)
    out = tmp_path / f"seg-{second}.tsv"
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--human-ceiling", second,
                 "--level", "segment", "--method", "acc23", "--group", "item", "--tie-calibration",
                 "--out", str(out)]) == 0
    t = _table(out).set_index("metric")
    g, h = [ESA[s] for s in ESA], [ESA2[s] for s in ESA]
    want = (_acc23_brute(g, h) + _acc23_brute(h, g)) / 2
    assert _acc23_brute(g, h) != _acc23_brute(h, g)   # the two directions differ here: the mean matters
    assert t.loc["human-ceiling", "value"] == pytest.approx(want, abs=1e-12)


def test_ceiling_needs_enough_cells_rated_twice(tmp_path, capsys):
    judg = [(s, "1", "r1", "esa", v) for s, v in zip("ABCD", (1, 2, 3, 4))]
    judg += [(s, "1", "r2", "esa", v) for s, v in zip("AB", (2, 1))]
    data, scores = _write(tmp_path / "few", judg, n_seg=1, metric_rows=[("m", s, "1", 0.5 + i) for i, s in
                                                                         enumerate("ABCD")])
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--human-ceiling", "raters"]) == 2
    err = capsys.readouterr().err
    assert "needs at least 3 systems rated twice" in err and "has 2 (2 cells rated twice)" in err
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--human-ceiling", "esa9"]) == 2
    assert "no 'esa9' judgements" in capsys.readouterr().err


def _waves(tmp_path, n_sys=5, n_seg=20, twice=12, seed=3):
    rng = np.random.default_rng(seed)
    systems = [f"S{k}" for k in range(n_sys)]
    judg, rows = [], []
    for k, s in enumerate(systems):
        for i in range(n_seg):
            q = 50 + 5 * k + rng.normal(0, 10)
            judg.append((s, str(i + 1), "r1", "esa", round(q + rng.normal(0, 6))))
            if i < twice:
                judg.append((s, str(i + 1), "w2", "esa2", round(q + rng.normal(0, 6))))
            rows.append(("m1", s, str(i + 1), q + rng.normal(0, 8)))
            rows.append(("m2", s, str(i + 1), q + rng.normal(0, 16)))
    return _write(tmp_path / "waves", judg, n_seg=n_seg, systems=systems, metric_rows=rows)


def _mtme_corr(stats, gold, metric):
    g = [None if np.isnan(x) else float(x) for x in gold.ravel()]
    return stats.Correlation(gold.shape[0], g, [0.0 if np.isnan(x) else float(x) for x in metric.ravel()])


def test_metatask_ceiling_matches_mtme(tmp_path):
    data_mod, stats = _oracle()
    data, scores = _waves(tmp_path)
    out = tmp_path / "mt.tsv"
    assert main(["metatask", str(data), "--task", "wmt24", "--scores", str(scores), "--human", "esa",
                 "--human-ceiling", "esa2", "--out", str(out)]) == 0
    t = _table(out).set_index("metric")
    j = _table(data / "judgements.tsv")
    systems = list(dict.fromkeys(j["system"]))
    A = j[j["judgement"] == "esa"].pivot(index="system", columns="seg_id", values="score").reindex(systems)
    B = j[j["judgement"] == "esa2"].pivot(index="system", columns="seg_id", values="score").reindex(systems)
    cols = list(A.columns)
    A, B = A.to_numpy(dtype=float), B.reindex(columns=cols).to_numpy(dtype=float)
    A = np.where(np.isnan(B), np.nan, A)
    spa, acc = [], []
    for g, m in ((A, B), (B, A)):
        corrs = {"h": _mtme_corr(stats, g, m)}
        spa.append(data_mod.CompareMetricsWithPairwiseConfidenceError(corrs, k=0)[0]["h"][0])
        acc.append(data_mod.CompareMetrics(corrs, stats.KendallWithTiesOpt, "item", 0, perm_test="pairs",
                                           sample_rate=1.0)[0]["h"][0])
    assert t.loc["human-ceiling", "aa-bb:sys:spa"] == pytest.approx(np.mean(spa), abs=1e-9)
    assert t.loc["human-ceiling", "aa-bb:seg:acc23/item+tie"] == pytest.approx(np.mean(acc), abs=1e-9)
    avg = (np.mean(spa) + np.mean(acc)) / 2   # both on [0, 1], equal weights
    assert t.loc["human-ceiling", "average"] == pytest.approx(avg, abs=1e-9)
    assert t.loc["m1", "ceiling_share"] == pytest.approx(t.loc["m1", "average"] / avg, abs=1e-12)
    assert t.index[-1] == "human-ceiling" and t.loc["human-ceiling", "signature"] == "human:esa~esa2"


def test_correlate_ceiling_segment_pearson_matches_mtme(tmp_path):
    _, stats = _oracle()
    data, scores = _waves(tmp_path)
    out = tmp_path / "c.tsv"
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--human-ceiling", "esa2",
                 "--level", "segment", "--out", str(out)]) == 0
    t = _table(out).set_index("metric")
    j = _table(data / "judgements.tsv")
    A = j[j["judgement"] == "esa"].pivot(index="system", columns="seg_id", values="score")
    B = j[j["judgement"] == "esa2"].pivot(index="system", columns="seg_id", values="score").reindex(
        index=A.index, columns=A.columns).to_numpy(dtype=float)
    A = np.where(np.isnan(B), np.nan, A.to_numpy(dtype=float))
    want = np.mean([_mtme_corr(stats, g, m).Pearson()[0] for g, m in ((A, B), (B, A))])
    assert t.loc["human-ceiling", "value"] == pytest.approx(want, abs=1e-9)
    assert t.loc["human-ceiling", "n"] == 60
