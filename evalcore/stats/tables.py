"""Metric-vs-human correlation tables from tidy frames (what the CLI and the dashboard call).

Inputs are long frames: human scores ``(system, seg_id, score)`` (one per cell, e.g. from
:func:`evalcore.human.scores.human_scores`) and metric scores ``(metric, system, seg_id, score)``
(from ``evalcore.metrics.engine.score_table`` or ``evalcore.metrics.byo.read_scores``; rows with
an empty ``seg_id`` are system-level scores). The maths is in :mod:`.correlation` and
:mod:`.significance` (methods §3, §4).
"""
from __future__ import annotations

import re
import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .correlation import correlation, pivot_scores
from .registry import SIGNIFICANCE, get as get_statistic
from .significance import bootstrap_ci, fisher_ci, kendall_se

TABLE_COLUMNS = ["metric", "level", "method", "value", "ci_low", "ci_high", "n", "n_groups", "n_segments"]

_HUMAN_NAME = re.compile(r"^(human|ref)([-_.\s]|$)", re.IGNORECASE)


def human_systems(dataset: Any, judged: list[str] | None = None) -> list[str]:
    """Judged "systems" that are human translations: the dataset's reference sets, plus judged
    systems without text whose names start with ``Human``/``ref`` followed by a separator
    (e.g. WMT's ``Human-A.0``, Google's ``ref-B``)."""
    refs = set(dataset.ref_ids)
    names = judged if judged is not None else dataset.judged
    with_text = set(dataset.systems)
    return [s for s in names if s in refs or (s not in with_text and _HUMAN_NAME.match(str(s)))]


def system_vectors(human: pd.DataFrame, metric: pd.DataFrame, systems: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """System-level (gold, metric) vectors in ``systems`` order (methods §3.1-3.3).

    Gold = mean of the system's human segment scores. Metric = the system-level row
    (empty seg_id) when present, else the mean of its segment scores over the segments that
    have human scores for that system. Missing -> NaN.
    """
    gold = human.groupby("system")["score"].mean().reindex(systems).to_numpy(dtype=float)
    sysrows = metric[metric["seg_id"].astype(str) == ""].groupby("system")["score"].mean()
    segrows = metric[metric["seg_id"].astype(str) != ""]
    if len(segrows):
        seg = segrows.merge(human[["system", "seg_id"]], on=["system", "seg_id"])
        segmean = seg.groupby("system")["score"].mean()
    else:
        segmean = pd.Series(dtype=float)
    ms = sysrows.reindex(systems)
    ms = ms.fillna(segmean.reindex(systems))
    return gold, ms.to_numpy(dtype=float)


def correlation_table(human: pd.DataFrame, metric_scores: pd.DataFrame, *, level: str = "system",
                      method: str = "pearson", grouping: str = "none", systems: list[str] | None = None,
                      exclude_systems: list[str] | tuple[str, ...] = (), bootstrap: int = 0, resample: str | None = None,
                      alpha: float = 0.05, seed: int | None = 0, fisher: bool = False,
                      segment_order: list[Any] | None = None, **corr_kwargs: Any) -> pd.DataFrame:
    """One row per metric: metric, level, method, value, ci_low, ci_high, n, n_groups, n_segments
    (methods §3, §4).

    ``systems``: the systems to use (default: every system with human scores), minus
    ``exclude_systems`` (e.g. human translations, outliers). Systems without a metric score are
    dropped for that metric (MTME ``GetCorrelations``); at segment level, cells with a human score
    but no metric score are dropped with a warning. ``n`` = systems (system level) or cells
    (segment level) used; ``n_groups`` = the groups averaged (segment level grouped by item or
    system, else empty); ``n_segments`` = the segments behind the metric scores: at system level
    the largest ``n_segments`` of the used systems' score rows (empty when the scores do not
    say, e.g. given system-level scores), at segment level the distinct segments of the cells
    used. ``bootstrap`` > 0: percentile CI from that many draws (methods §3.8);
    ``resample`` defaults to "systems" at system level and "both" at segment level; at system
    level "items"/"both" need segment-level metric scores (corpus metrics are then approximated
    by the mean of their segment scores). ``fisher``: Fisher z CI (methods §4.2; Kendall SE for
    Kendall τ) when not bootstrapping. Statistics with tie calibration (acc23, tau_23) get an
    ``epsilon`` column: the metric tie threshold used (the chosen one with ``tie_calibration``,
    on the metric's scale; methods §3.3). A statistic computed from segment matrices (``spa``,
    registry ``segment_matrices``) gets the (systems × segments) gold and metric matrices at
    system level (``n`` = systems, ``n_segments`` = the segments judged for every system and
    scored for every one, which it uses; ``num_permutations`` and ``seed`` pass through); its
    columns follow ``segment_order`` (the dataset's segment order, which places the same random
    sign flips on the same segments as the Metrics task page; default: as the human rows list them).
    """
    if level not in ("system", "segment"):
        raise ValueError("level must be system or segment")
    hum = human[["system", "seg_id", "score"]].copy()
    hum["seg_id"] = hum["seg_id"].astype(str)
    if systems is None:
        systems = list(dict.fromkeys(hum["system"]))
    systems = [s for s in systems if s not in set(exclude_systems)]
    hum = hum[hum["system"].isin(systems)]
    seg_ids = list(dict.fromkeys(hum["seg_id"]))
    rows = []
    ms_all = metric_scores.copy()
    ms_all["seg_id"] = ms_all["seg_id"].astype(str)
    for name, ms in ms_all.groupby("metric", sort=False):
        have = set(ms["system"])
        use = [s for s in systems if s in have]
        lo = hi = float("nan")
        if level == "system" and get_statistic(method).segment_matrices:
            if bootstrap:
                raise ValueError(f"{method}: no bootstrap interval (the statistic is itself a permutation "
                                 "test per pair of systems); leave out --bootstrap")
            cols = seg_ids
            if segment_order is not None:
                have_seg = set(seg_ids)
                cols = [str(x) for x in segment_order if str(x) in have_seg]
                cols += [x for x in seg_ids if x not in set(cols)]
            G, _, _ = pivot_scores(hum[hum["system"].isin(use)], use, cols)
            segm = ms[ms["seg_id"] != ""]
            if segm.empty:
                raise ValueError(f"metric {name!r}: {method} needs segment-level metric scores (it compares "
                                 "systems by permutation tests over their segments); none are given")
            M, _, _ = pivot_scores(segm[segm["system"].isin(use)], use, cols)
            res = correlation(G, M, method, "none", seed=seed, **corr_kwargs)
            value, n, n_groups, n_seg = res.value, res.n, None, res.groups
        elif level == "system":
            g, m = system_vectors(hum, ms, use)
            ok = ~np.isnan(g) & ~np.isnan(m)
            g, m = g[ok], m[ok]
            use = [s for s, k in zip(use, ok) if k]
            res = correlation(g, m, method, "none", **corr_kwargs)
            value, n, n_groups = res.value, len(g), None
            n_seg = None
            if "n_segments" in ms.columns:
                counts = pd.to_numeric(ms.loc[(ms["seg_id"] == "") & ms["system"].isin(use), "n_segments"],
                                       errors="coerce").dropna()
                n_seg = int(counts.max()) if len(counts) else None
            if bootstrap:
                mode = resample or "systems"
                if mode == "systems":
                    b = bootstrap_ci(g[:, None], m[:, None], method, "none", level="segment",
                                     resample="systems", k=bootstrap, alpha=alpha, seed=seed, **corr_kwargs)
                else:
                    G, _, _ = pivot_scores(hum[hum["system"].isin(use)], use, seg_ids)
                    segm = ms[ms["seg_id"] != ""]
                    M, _, _ = pivot_scores(segm, use, seg_ids) if len(segm) else (np.full(G.shape, np.nan), 0, 0)
                    if np.isnan(M[~np.isnan(G)]).any():
                        raise ValueError(f"metric {name!r}: bootstrap over items at system level needs "
                                         "segment-level scores for every judged cell; use resample='systems'")
                    b = bootstrap_ci(G, M, method, "none", level="system", resample=mode, k=bootstrap,
                                     alpha=alpha, seed=seed, **corr_kwargs)
                lo, hi = b.ci_low, b.ci_high
        else:
            G, _, _ = pivot_scores(hum[hum["system"].isin(use)], use, seg_ids)
            segm = ms[ms["seg_id"] != ""]
            if segm.empty:
                continue
            M, _, _ = pivot_scores(segm[segm["system"].isin(use)], use, seg_ids)
            miss = ~np.isnan(G) & np.isnan(M)
            if miss.any():
                warnings.warn(f"metric {name!r}: {int(miss.sum())} judged cell(s) without a metric score dropped",
                              stacklevel=2)
                G = np.where(miss, np.nan, G)
            res = correlation(G, M, method, grouping, **corr_kwargs)
            value, n = res.value, res.n
            n_groups = res.groups if grouping != "none" else None
            n_seg = int((~np.isnan(G) & ~np.isnan(M)).any(axis=0).sum())
            if bootstrap:
                b = bootstrap_ci(G, M, method, grouping, level="segment", resample=resample or "both",
                                 k=bootstrap, alpha=alpha, seed=seed, **corr_kwargs)
                lo, hi = b.ci_low, b.ci_high
        kind = get_statistic(method).fisher
        if not bootstrap and fisher and kind and (level == "system" or grouping == "none"):
            se = kendall_se(n) if kind == "kendall" else None
            lo, hi = fisher_ci(value, n, alpha, se=se)
        rows.append((name, level, method, value, lo, hi, n, n_groups, n_seg, res.epsilon))
    out = pd.DataFrame(rows, columns=TABLE_COLUMNS + ["epsilon"]).astype({"n_groups": "Int64", "n_segments": "Int64"})
    if not get_statistic(method).tie_calibration:
        out = out.drop(columns="epsilon")
    return out


SIGNIFICANCE_TESTS = tuple(SIGNIFICANCE)  # described once, in evalcore.stats.registry


def metric_matrices(human: pd.DataFrame, metric_scores: pd.DataFrame, *, level: str = "system",
                    systems: list[str] | None = None,
                    exclude_systems: Sequence[str] = ()) -> tuple[np.ndarray, dict[str, np.ndarray], list[str]]:
    """Gold and per-metric scores on the **same** cells for every metric, as significance tests
    between metrics need (MTME ``CompareMetrics`` compares metrics on the systems/segments all of
    them score). System level: vectors over the systems every metric scores (gold as in
    :func:`system_vectors`); segment level: (systems × segments) matrices, cells without a human
    score or without a score of some metric are NaN in gold. Returns (gold, {metric: scores}, notes)."""
    hum = human[["system", "seg_id", "score"]].copy()
    hum["seg_id"] = hum["seg_id"].astype(str)
    if systems is None:
        systems = list(dict.fromkeys(hum["system"]))
    systems = [s for s in systems if s not in set(exclude_systems)]
    ms_all = metric_scores.copy()
    ms_all["seg_id"] = ms_all["seg_id"].astype(str)
    if level == "segment":
        ms_all = ms_all[ms_all["seg_id"] != ""]
    names = list(dict.fromkeys(ms_all["metric"]))
    common = [s for s in systems if all(s in set(ms_all.loc[ms_all["metric"] == n, "system"]) for n in names)]
    notes = []
    dropped = [s for s in systems if s not in common and s in set(hum["system"])]
    if dropped:
        notes.append(f"metric significance: over the {len(common)} system(s) every metric scores; left out: "
                     f"{', '.join(dropped)}")
    hum = hum[hum["system"].isin(common)]
    if level == "system":
        out = {}
        gold = None
        for n in names:
            g, m = system_vectors(hum, ms_all[ms_all["metric"] == n], common)
            gold, out[n] = g, m
        gold = np.asarray(gold if gold is not None else [], dtype=float)
        ok = ~np.isnan(gold)
        return gold[ok], {n: v[ok] for n, v in out.items()}, notes
    seg_ids = list(dict.fromkeys(hum["seg_id"]))
    G, _, _ = pivot_scores(hum, common, seg_ids)
    mats = {}
    for n in names:
        M, _, _ = pivot_scores(ms_all[(ms_all["metric"] == n) & ms_all["system"].isin(common)], common, seg_ids)
        mats[n] = M
    miss = np.zeros(G.shape, dtype=bool)
    for M in mats.values():
        miss |= np.isnan(M)
    miss &= ~np.isnan(G)
    if miss.any():
        notes.append(f"metric significance: {int(miss.sum())} judged cell(s) without a score of every metric "
                     "left out")
    G = np.where(miss, np.nan, G)
    return G, mats, notes


def metric_significance(human: pd.DataFrame, metric_scores: pd.DataFrame, *, level: str = "system",
                        method: str = "pearson", grouping: str = "none", test: str = "perm", k: int = 1000,
                        alpha: float = 0.05, seed: int | None = 0, systems: list[str] | None = None,
                        exclude_systems: Sequence[str] = (),
                        **corr_kwargs: Any) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Metric-vs-metric significance and significance clusters (methods §3.4-3.6; MTME
    ``CompareMetrics``): each pair of metrics compared on the same cells, with PERM-BOTH
    (``test="perm"``, ``k`` draws, every statistic and grouping; the same seed, so the same
    resamples, for every pair) or Williams' test (``"williams"``, one-sided); clusters of metrics
    not significantly different (p > ``alpha``) by :func:`significance_clusters`.

    Returns ``(clusters, pairs, notes)``: clusters = metric, value, rank (1 = best cluster);
    pairs = better, worse, delta, p_value (H0: ``worse`` is at least as good), test.
    Divergence from MTME, said in ``notes``: Williams at segment level uses the judged cells only
    (n = cells with a human score), where MTME uses every cell (methods §3.5)."""
    from .significance import compare_metrics

    from .registry import significance_test

    significance_test(test).check(method)  # an unknown test, or Williams on another statistic than Pearson
    gold, mats, notes = metric_matrices(human, metric_scores, level=level, systems=systems,
                                        exclude_systems=exclude_systems)
    if len(mats) < 2:
        raise ValueError("metric significance needs at least two metrics")
    grp = grouping if level == "segment" else "none"
    if test == "williams":
        if level == "segment":
            notes.append("Williams test at segment level: over the judged cells only (n = cells with a human "
                         "score), where mt-metrics-eval counts every cell; evalcore's deliberate choice, "
                         "docs/methods.md §3.5")
        if grp != "none":
            notes.append(f"Williams test ignores the {grp} grouping: one correlation over the flattened cells")
    table, sig = compare_metrics(gold, mats, method, grp, test=test, alpha=alpha, k=k, seed=seed, **corr_kwargs)
    order = list(table["metric"])
    vals = dict(zip(table["metric"], table["value"]))
    pair_rows = [(order[i], order[j], vals[order[i]] - vals[order[j]], sig[i, j], test)
                 for i in range(len(order)) for j in range(i + 1, len(order))]
    pairs = pd.DataFrame(pair_rows, columns=["better", "worse", "delta", "p_value", "test"])
    n = len(gold) if level == "system" else int((~np.isnan(gold)).sum())
    notes.append(f"metric significance: {test} ({'k=' + str(k) + ', ' if test == 'perm' else ''}"
                 f"alpha {alpha:g}) on the same {n} {'systems' if level == 'system' else 'cells'} for every metric; "
                 "rank = significance cluster (metrics in one cluster are not significantly different)")
    return table, pairs, notes
