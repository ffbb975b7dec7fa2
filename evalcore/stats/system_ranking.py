"""System rankings with significance clusters (methods §3.12; Kocmi et al. 2024, WMT24 findings §3).

One ranking signal (human scores or a metric's segment scores) → system scores, an N×N matrix of
pairwise p-values, rank ranges and clusters.

* :func:`item_scores`      one score per (system, segment): a rater's repeated ratings of an item
  averaged first, then the raters of the item averaged (WMT24 findings §3).
* :func:`rank_systems`     the whole procedure for one signal; ``test``:

  ``wilcoxon``  the WMT24 human ranking: per domain, on the segments both systems have, a two-sided
                Wilcoxon signed-rank test (scipy defaults: zero differences dropped, exact or normal
                approximation as scipy chooses) gives p_d; the D domains are combined with
                Stouffer's method, z_d = Φ⁻¹(1 − p_d), Z = Σ z_d / √D, p = 1 − Φ(Z).
                (Both computed by :mod:`evalcore.stats.signed_rank`, scipy's semantics without
                importing scipy.stats: a second of a cold page.)
                A domain where the two systems have no common segment is left out of D; one where
                every common difference is 0 has p_d = 1 (no evidence of a difference).
  ``bootstrap`` the paired bootstrap (Koehn 2004; sacreBLEU semantics,
                :func:`~evalcore.stats.significance.paired_bootstrap`) of the system score itself.
  ``ar``        paired approximate randomisation (Riezler & Maxwell 2005; sacreBLEU semantics,
                :func:`~evalcore.stats.significance.paired_approximate_randomization`).

  The system score is the macro average over domains of the system's per-domain mean (one domain
  when the data has none); the bootstrap and AR resample the common segments of the pair and
  recompute that same macro average (per-domain sums and counts as the resampled statistics).

* :func:`rank_systems_wmt25`  WMT25's human ranking (Kocmi et al. 2025, *Findings of WMT25*, §4;
  ``rank --recipe wmt25``): every rating is one observation (the two annotation waves flattened,
  no mean over raters, no domains); system score = the mean of its ratings; a is significantly
  better than b when a one-sided Wilcoxon signed-rank test (alternative "greater", scipy defaults)
  over the cross-paired differences, on each segment every rating of a minus every rating of b
  (two waves: a₁−b₁, a₂−b₂, a₁−b₂, a₂−b₁), gives p < α/2; rank ranges by stepping from each
  system up (down) the mean-sorted list until the first system significantly better (worse);
  a cluster ends after position c when every system above reaches no lower than c and every
  system below no higher than c + 1.

* Two systems differ significantly when p < α (α = 0.05). Rank range: best = 1 + #systems
  significantly better (higher score and significant), worst = N − #systems significantly worse.
* Clusters (:func:`clusters_from_significance`): walking the systems in descending score, a system
  that is not significantly different from some lower system keeps the cluster open down to that
  system; a new cluster starts after the last system the open cluster reaches.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .signed_rank import stouffer, wilcoxon_p

TESTS = ("wilcoxon", "bootstrap", "ar")
RECIPES = ("wmt24", "wmt25")


@dataclass
class SystemRanking:
    """Result of :func:`rank_systems`; ``systems`` in descending score order, ``pvalues[i, j]`` the
    p-value of the pair (symmetric, NaN on the diagonal), ``significant[i, j]`` p < α."""

    systems: list[str]
    scores: np.ndarray
    pvalues: np.ndarray
    significant: np.ndarray
    rank_best: np.ndarray
    rank_worst: np.ndarray
    clusters: np.ndarray
    n_segments: np.ndarray
    test: str
    alpha: float
    domains: list[str] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """One row per system: system, score, rank_best, rank_worst, rank_range, cluster, n_segments."""
        rng = [f"{b}" if b == w else f"{b}-{w}" for b, w in zip(self.rank_best, self.rank_worst)]
        return pd.DataFrame({"system": self.systems, "score": self.scores,
                             "rank_best": self.rank_best, "rank_worst": self.rank_worst, "rank_range": rng,
                             "cluster": self.clusters, "n_segments": self.n_segments})

    def matrix(self) -> pd.DataFrame:
        """The p-value matrix as a frame indexed by system on both axes (descending score order)."""
        return pd.DataFrame(self.pvalues, index=self.systems, columns=self.systems)


def item_scores(judgements: pd.DataFrame) -> pd.DataFrame:
    """(system, seg_id, score) from judgement rows (system, seg_id, rater, score): a rater's repeated
    ratings of one item are averaged first, then the item's raters are averaged (WMT24 findings §3)."""
    j = judgements[["system", "seg_id", "rater", "score"]].copy()
    j["seg_id"] = j["seg_id"].astype(str)
    per_rater = j.groupby(["system", "seg_id", "rater"], sort=False)["score"].mean().reset_index()
    return per_rater.groupby(["system", "seg_id"], sort=False)["score"].mean().reset_index()


def clusters_from_significance(significant: np.ndarray) -> np.ndarray:
    """1-based clusters for systems already in descending score order (module docstring)."""
    n = len(significant)
    out = np.zeros(n, dtype=int)
    start, cluster = 0, 0
    while start < n:
        cluster += 1
        reach, i = start, start
        while i <= reach:
            lower = [j for j in range(i + 1, n) if not significant[i, j]]
            if lower:
                reach = max(reach, max(lower))
            i += 1
        out[start:reach + 1] = cluster
        start = reach + 1
    return out


def _wilcoxon_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided ``scipy.stats.wilcoxon(x, y)`` p (:mod:`evalcore.stats.signed_rank`: scipy's
    semantics without its import); 1 when every difference is 0."""
    d = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return wilcoxon_p(d)


def rank_systems(scores: pd.DataFrame, domains: dict[Any, str] | None = None, *, test: str = "wilcoxon",
                 alpha: float = 0.05, n_samples: int | None = None, seed: int | None = 12345) -> SystemRanking:
    """Rank the systems of ``scores`` (system, seg_id, score; one row per cell) with significance
    (module docstring). ``domains``: seg_id → domain (segments without one share the domain "").
    ``n_samples``: resamples for ``bootstrap`` (default 1000) and ``ar`` (default 10000)."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, not {test!r}")
    s = scores[["system", "seg_id", "score"]].copy()
    s["seg_id"] = s["seg_id"].astype(str)
    s = s[s["score"].notna()]
    if s.duplicated(["system", "seg_id"]).any():
        raise ValueError("duplicated (system, seg_id) scores: average them first (item_scores)")
    dom_map = {str(k): str(v) for k, v in (domains or {}).items()}
    s["domain"] = s["seg_id"].map(dom_map).fillna("")
    doms = sorted(set(s["domain"]))
    systems = list(dict.fromkeys(s["system"]))
    if len(systems) < 2:
        raise ValueError("ranking needs at least two systems with scores")
    seg_ids = list(dict.fromkeys(s["seg_id"]))
    wide = s.pivot(index="system", columns="seg_id", values="score").reindex(index=systems, columns=seg_ids)
    X = wide.to_numpy(dtype=float)
    where = dict(zip(s["seg_id"], s["domain"]))  # once: built per segment it was quadratic (9 s on 4,700 rows)
    seg_dom = np.array([where[k] for k in seg_ids])
    dom_idx = np.array([doms.index(d) for d in seg_dom])
    sc = np.array([np.mean([np.nanmean(X[k, (dom_idx == d) & ~np.isnan(X[k])])
                            for d in range(len(doms)) if np.any((dom_idx == d) & ~np.isnan(X[k]))])
                   for k in range(len(systems))])
    order = sorted(range(len(systems)), key=lambda k: (-sc[k], systems[k]))
    systems = [systems[k] for k in order]
    X, sc = X[order], sc[order]
    n = len(systems)
    P = np.full((n, n), np.nan)
    for a in range(n):
        for b in range(a + 1, n):
            both = ~np.isnan(X[a]) & ~np.isnan(X[b])
            if not both.any():
                continue
            if test == "wilcoxon":
                pds = [_wilcoxon_p(X[a, both & (dom_idx == d)], X[b, both & (dom_idx == d)])
                       for d in range(len(doms)) if np.any(both & (dom_idx == d))]
                p = stouffer(pds)
            else:
                p = _resampling_p(X[a, both], X[b, both], dom_idx[both], len(doms), test, n_samples, seed)
            P[a, b] = P[b, a] = p
    sig = np.where(np.isnan(P), False, P < alpha)
    better = np.array([sum(1 for j in range(n) if sig[i, j] and sc[j] > sc[i]) for i in range(n)])
    worse = np.array([sum(1 for j in range(n) if sig[i, j] and sc[j] < sc[i]) for i in range(n)])
    return SystemRanking(systems, sc, P, sig, 1 + better, n - worse, clusters_from_significance(sig),
                         (~np.isnan(X)).sum(1), test, alpha, doms)


def _resampling_p(xa: np.ndarray, xb: np.ndarray, dom: np.ndarray, n_dom: int, test: str, n_samples: int | None,
                  seed: int | None) -> float:
    """Paired bootstrap / AR p-value of the macro-over-domains mean of two aligned vectors."""
    from .significance import paired_approximate_randomization, paired_bootstrap

    onehot = np.zeros((len(xa), n_dom))
    onehot[np.arange(len(xa)), dom] = 1.0
    sa = np.hstack([onehot * xa[:, None], onehot])
    sb = np.hstack([onehot * xb[:, None], onehot])

    def macro(summed: np.ndarray) -> np.ndarray:
        summed = np.atleast_2d(summed)
        sums, counts = summed[:, :n_dom], summed[:, n_dom:]
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            macro_means: np.ndarray = np.nanmean(means, axis=1)
            return macro_means

    if test == "bootstrap":
        return paired_bootstrap(sa, sb, macro, n_samples=n_samples or 1000, seed=seed, vectorized=True).p_value
    return paired_approximate_randomization(sa, sb, macro, n_samples=n_samples or 10000, seed=seed,
                                            vectorized=True).p_value


def _one_sided_p(da: dict[Any, list[float]], db: dict[Any, list[float]]) -> float:
    """One-sided Wilcoxon p-value of "a better than b" over the cross-paired differences: on each
    segment both have, every rating of a minus every rating of b (module docstring). NaN when
    there is no such pair."""
    diffs = [x - y for g, xs in da.items() if g in db for x in xs for y in db[g]]
    if not diffs:
        return float("nan")
    return wilcoxon_p(diffs, alternative="greater")


def rank_systems_wmt25(ratings: pd.DataFrame, *, alpha: float = 0.05) -> SystemRanking:
    """WMT25's human ranking of ``ratings`` (system, seg_id, score; one row per rating, several
    per (system, segment) allowed: the waves, or other raters), module docstring. In the result,
    ``pvalues[i, j]`` is the one-sided p-value of "system i better than system j" (not
    symmetric), ``significant[i, j]`` is p < α/2; ``rank_best``/``rank_worst`` the rank range
    found by stepping; ``clusters`` where no range crosses a cut."""
    s = ratings[["system", "seg_id", "score"]].copy()
    s["seg_id"] = s["seg_id"].astype(str)
    s = s[s["score"].notna()]
    per: dict[str, dict[str, list[float]]] = {}
    for sys_, g, v in zip(s["system"], s["seg_id"], s["score"].astype(float)):
        per.setdefault(sys_, {}).setdefault(g, []).append(float(v))
    if len(per) < 2:
        raise ValueError("ranking needs at least two systems with scores")
    mean = {k: float(np.mean([x for xs in d.values() for x in xs])) for k, d in per.items()}
    systems = sorted(per, key=lambda k: (-mean[k], k))
    n = len(systems)
    P = np.full((n, n), np.nan)
    for a in range(n):
        for b in range(n):
            if a != b:
                P[a, b] = _one_sided_p(per[systems[a]], per[systems[b]])
    sig = np.where(np.isnan(P), False, P < alpha / 2)
    best = np.zeros(n, dtype=int)
    worst = np.zeros(n, dtype=int)
    for i in range(n):
        up = i
        while up > 0 and not sig[up - 1, i]:
            up -= 1
        down = i
        while down < n - 1 and not sig[i, down + 1]:
            down += 1
        best[i], worst[i] = up + 1, down + 1
    clusters = np.ones(n, dtype=int)
    for c in range(1, n):
        if all(worst[:c] <= c) and all(best[c:] > c):
            clusters[c:] += 1
    counts = np.array([len(per[k]) for k in systems])
    return SystemRanking(systems, np.array([mean[k] for k in systems]), P, sig, best, worst, clusters,
                         counts, "wilcoxon-one-sided", alpha)
