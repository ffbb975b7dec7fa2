"""WMT25's human ranking (`rank --recipe wmt25`, evalcore.stats.system_ranking.rank_systems_wmt25).

The reference is written here from the published procedure (Kocmi et al. 2025, *Findings of
WMT25*, §4, and its ranking script's description of it): each system's scores are the two
annotation waves laid end to end (wave 1 of every segment, then wave 2; a missing rating is NaN);
the system score is the mean of the non-missing values; systems are sorted by it; a is
significantly better than b when scipy's one-sided Wilcoxon signed-rank test ("greater") on the
differences of the four wave pairings (a1-b1, a2-b2, a1-b2, a2-b1 of each segment, NaN pairs
dropped) gives p < 0.05/2; a system's rank range runs from the highest position reached walking
up the sorted list until a system significantly better than it, to the lowest reached walking
down until a system it is significantly better than; a cluster ends at a position that no rank
range crosses.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from evalcore.cli import main
from evalcore.stats.system_ranking import rank_systems_wmt25


def _data(seed=3, n_seg=40):
    """Six systems, two waves (raters w1, w2), some ratings missing; a few systems close together."""
    rng = np.random.default_rng(seed)
    quality = {"sysA": 80, "sysB": 79, "sysC": 70, "sysD": 69.5, "sysE": 60, "sysF": 45}
    rows = []
    for s, q in quality.items():
        for g in range(n_seg):
            base = q + rng.normal(0, 8)
            for w in ("w1", "w2"):
                if rng.random() < 0.1:
                    continue  # a missing rating of this wave
                rows.append((s, str(g), w, float(np.clip(round(base + rng.normal(0, 5)), 0, 100))))
    return pd.DataFrame(rows, columns=["system", "seg_id", "rater", "score"])


def _reference(frame: pd.DataFrame):
    segs = sorted(set(frame["seg_id"]), key=int)
    val = {(r.system, r.seg_id, r.rater): r.score for r in frame.itertuples()}
    systems = sorted(set(frame["system"]))
    flat = {s: [val.get((s, g, w), math.nan) for w in ("w1", "w2") for g in segs] for s in systems}
    means = {s: float(np.nanmean(flat[s])) for s in systems}
    order = sorted(systems, key=lambda s: (-means[s], s))
    half = len(segs)

    def better(a, b):  # a significantly better than b
        xa, xb = flat[a], flat[b]
        pairs = list(zip(xa, xb)) + list(zip(xa[:half], xb[half:])) + list(zip(xa[half:], xb[:half]))
        d = [x - y for x, y in pairs if not (math.isnan(x) or math.isnan(y))]
        return scipy.stats.wilcoxon(d, alternative="greater").pvalue < 0.05 / 2

    ranges = []
    for i, s in enumerate(order):
        lo = i + 1
        for t in reversed(order[:i]):
            if better(t, s):
                break
            lo -= 1
        hi = i + 1
        for t in order[i + 1:]:
            if better(s, t):
                break
            hi += 1
        ranges.append((lo, hi))
    cluster, clusters = 1, []
    for i in range(len(order)):
        if i and all(h <= i for _, h in ranges[:i]) and all(lo > i for lo, _ in ranges[i:]):
            cluster += 1
        clusters.append(cluster)
    return order, means, ranges, clusters, better


def test_wmt25_ranking_matches_the_reference_of_the_published_procedure():
    frame = _data()
    order, means, ranges, clusters, better = _reference(frame)
    r = rank_systems_wmt25(frame)
    assert r.systems == order
    assert list(r.scores) == pytest.approx([means[s] for s in order], abs=1e-12)
    assert list(zip(r.rank_best, r.rank_worst)) == ranges
    assert list(r.clusters) == clusters
    n = len(order)
    for i in range(n):
        for j in range(n):
            if i != j:
                assert bool(r.significant[i, j]) == better(order[i], order[j])
    # the data is built to have ties and clear differences both: the test checks something
    assert any(lo != hi for lo, hi in ranges) and len(set(clusters)) > 1


def test_cross_pairing_p_value_against_scipy_by_hand():
    # two segments, two waves: sysA (10, 20 | 30, 40), sysB (5, 25 | 30, 35):
    # differences a1-b1, a2-b2, a1-b2, a2-b1 per segment
    frame = pd.DataFrame([("A", "1", "w1", 10.0), ("A", "1", "w2", 30.0), ("A", "2", "w1", 20.0), ("A", "2", "w2", 40.0),
                          ("B", "1", "w1", 5.0), ("B", "1", "w2", 30.0), ("B", "2", "w1", 25.0), ("B", "2", "w2", 35.0)],
                         columns=["system", "seg_id", "rater", "score"])
    d = [10 - 5, 30 - 30, 10 - 30, 30 - 5, 20 - 25, 40 - 35, 20 - 35, 40 - 25]
    r = rank_systems_wmt25(frame)
    assert r.systems == ["A", "B"]  # means 25 and 23.75
    assert r.pvalues[0, 1] == pytest.approx(scipy.stats.wilcoxon(d, alternative="greater").pvalue, abs=1e-12)
    assert r.pvalues[1, 0] == pytest.approx(scipy.stats.wilcoxon([-x for x in d], alternative="greater").pvalue,
                                            abs=1e-12)


def _write(folder, frame):
    folder.mkdir()
    segs = sorted(set(frame["seg_id"]), key=int)
    (folder / "segments.tsv").write_text("lp\tseg_id\tsource\n" + "".join(f"en-cs\t{g}\tsrc {g}\n" for g in segs))
    (folder / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\n" + "".join(
        f"en-cs\t{s}\t{g}\tout {s} {g}\n" for s in sorted(set(frame["system"])) for g in segs))
    frame.assign(lp="en-cs", judgement="esa")[["lp", "system", "seg_id", "rater", "judgement", "score"]].to_csv(
        folder / "judgements.tsv", sep="\t", index=False)


def test_rank_command_recipe_wmt25_and_the_default_from_the_data_year(tmp_path, capsys):
    frame = _data()
    order, means, ranges, clusters, _ = _reference(frame)
    ds = tmp_path / "wmt25_test"
    _write(ds, frame)
    out = tmp_path / "r.tsv"
    assert main(["rank", str(ds), "--human", "esa", "--out", str(out)]) == 0  # the name says wmt25
    assert "recipe wmt25 (the data's year" in capsys.readouterr().err
    t = pd.read_csv(out, sep="\t")
    assert t["system"].tolist() == order
    assert list(zip(t["rank_best"], t["rank_worst"])) == ranges and t["cluster"].tolist() == clusters
    assert t["score"].tolist() == pytest.approx([means[s] for s in order], abs=1e-9)
    assert set(t["test"]) == {"wilcoxon-one-sided"} and t["settings"][0].startswith("recipe=wmt25")
    # --recipe wmt24 on the same data: item means, two-sided test: the WMT24 table
    assert main(["rank", str(ds), "--human", "esa", "--recipe", "wmt24", "--out", str(out)]) == 0
    assert pd.read_csv(out, sep="\t")["settings"][0].startswith("recipe=wmt24|test=wilcoxon")
    # the wmt24 tests are not part of wmt25
    assert main(["rank", str(ds), "--human", "esa", "--recipe", "wmt25", "--test", "bootstrap"]) == 2
    assert "--test bootstrap belongs to the wmt24 recipe" in capsys.readouterr().err
    other = tmp_path / "wmt24_copy"
    _write(other, frame)
    assert main(["rank", str(other), "--human", "esa", "--out", str(out)]) == 0
    assert "recipe wmt24 (the data's year" in capsys.readouterr().err
