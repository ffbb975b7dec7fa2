"""The WMT metrics-task table: metrics ranked over a task's sub-tasks (methods §3.13).

The recipes are data in :mod:`evalcore.metatask_tasks`. For each language pair the judged
systems (minus the primary reference, the human translations unless the task scores them, and
the outliers) give a gold matrix G (systems × segments, NaN = not judged) and, per metric, a
segment matrix M and a system vector (the corpus score). Per sub-task:

* ``spa``      soft pairwise accuracy = 1 − PCE (Thompson et al. 2024, §2; MTME ``pce.py``) on the
               segments judged for every system (MTME drops the unjudged cells and reshapes per system,
               which is this on a complete block design);
               :func:`~evalcore.stats.significance.one_minus_pce` (1,000 permutations, seed 4).
* ``acc23``    segment-level acc23 with the global tie threshold, averaged over items (Deutsch et al.
               2023, §4-5): :func:`~evalcore.stats.correlation.correlation` (tie_calibration).
* ``pearson``  system level: over the system vectors (gold = mean of the judged segments);
               segment level: over all judged cells, no grouping.
* ``accuracy`` pairwise accuracy of the system vectors pooled over every pair (Kocmi et al. 2021):
               Σ agreements / Σ pairs.

Ranks per sub-task: metrics in descending value (ties by name); with ``k = 0`` (the official
recipes' default) the rank is the position, as MTME's ``AssignRanks`` on an empty significance
matrix; with ``k > 0`` metrics are clustered by significance (:func:`metric_clusters`).
Aggregates: the weighted average of the values mapped to [0, 1] by the sub-task's range
(MTME ``TaskSetResults.AverageCorrs``) and the weighted average rank (``AverageRanks``); only
metrics present in every sub-task are aggregated.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .metatask_tasks import TASKS, SubTask, TaskDef


@dataclass
class PairData:
    """One language pair's inputs: ``gold`` (n_sys × n_seg, NaN = not judged) in ``systems`` ×
    ``seg_ids`` order; ``seg[metric]`` the same shape; ``sys[metric]`` one value per system."""

    lp: str
    systems: list[str]
    seg_ids: list[str]
    gold: np.ndarray
    seg: dict[str, np.ndarray] = field(default_factory=dict)
    sys: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def gold_sys(self) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.nanmean(self.gold, axis=1)


@dataclass
class MetataskResult:
    task: TaskDef
    subtasks: list[SubTask]
    values: pd.DataFrame           # metric × sub-task name
    ranks: pd.DataFrame            # metric × sub-task name
    average: pd.Series             # weighted average of the [0, 1]-mapped values
    average_rank: pd.Series
    cluster: pd.Series | None = None
    notes: list[str] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """One row per metric (descending average): metric, average, average_rank, cluster, then
        one value column per sub-task."""
        order = list(self.average.sort_values(ascending=False, kind="stable").index)
        out = pd.DataFrame({"metric": order, "average": self.average.reindex(order).to_numpy(),
                            "average_rank": self.average_rank.reindex(order).to_numpy()})
        out["cluster"] = (self.cluster.reindex(order).to_numpy() if self.cluster is not None
                          else pd.array([pd.NA] * len(order), dtype="Int64"))
        for st in self.subtasks:
            out[st.name] = self.values[st.name].reindex(order).to_numpy()
        return out


def spa_columns(gold: np.ndarray) -> np.ndarray:
    """The segments judged for every system (the columns SPA uses)."""
    return ~np.isnan(gold).any(axis=0)


def subtask_value(st: SubTask, pairs: dict[str, PairData], metric: str, num_permutations: int = 1000,
                  seed: int = 4) -> float:
    """The value of ``metric`` on sub-task ``st`` (module docstring)."""
    from .stats.correlation import correlation, pairwise_accuracy
    from .stats.significance import one_minus_pce

    if st.statistic == "accuracy":
        agree = total = 0.0
        for p in pairs.values():
            if metric not in p.sys:
                return float("nan")
            acc, n = pairwise_accuracy(p.gold_sys, p.sys[metric])
            if n:
                agree += acc * n
                total += n
        return agree / total if total else float("nan")
    p = pairs[st.lp]
    if st.statistic == "spa":
        if metric not in p.seg:
            return float("nan")
        cols = spa_columns(p.gold)
        # C order as MTME's reshape gives: the float32 matrix product sums in a layout-dependent
        # order, and the p-values count exact ties (null delta >= observed delta)
        return one_minus_pce(np.ascontiguousarray(p.gold[:, cols]), np.ascontiguousarray(p.seg[metric][:, cols]),
                             num_permutations, seed)
    if st.level == "sys":
        if metric not in p.sys:
            return float("nan")
        g, m = p.gold_sys, p.sys[metric]
        ok = ~np.isnan(g) & ~np.isnan(m)
        return correlation(g[ok], m[ok], st.statistic, "none").value
    if metric not in p.seg:
        return float("nan")
    return correlation(p.gold, p.seg[metric], st.statistic, st.grouping,
                       tie_calibration=st.tie_calibration).value


def run_task(task: TaskDef, pairs: dict[str, PairData], metrics: list[str] | None = None, *,
             num_permutations: int = 1000, seed: int = 4, k: int = 0, alpha: float = 0.05,
             perm_seed: int = 0, progress=None) -> MetataskResult:
    """Every sub-task of ``task`` on ``pairs`` for ``metrics`` (default: every metric of every pair)."""
    subtasks = task.subtasks(list(pairs))
    if metrics is None:
        metrics = list(dict.fromkeys(m for p in pairs.values() for m in list(p.seg) + list(p.sys)))
    values = pd.DataFrame(index=metrics, columns=[s.name for s in subtasks], dtype=float)
    for s in subtasks:
        for m in metrics:
            values.loc[m, s.name] = subtask_value(s, pairs, m, num_permutations, seed)
            if progress is not None:
                progress()
    ranks = pd.DataFrame(index=metrics, columns=values.columns, dtype=float)
    for s in subtasks:
        col = values[s.name].dropna()
        order = sorted(col.index, key=lambda m: (-col[m], m))
        for i, m in enumerate(order):
            ranks.loc[m, s.name] = i + 1
    complete = [m for m in metrics if values.loc[m].notna().all()]
    weights = np.array([s.weight for s in subtasks])
    lo = np.array([s.range[0] for s in subtasks])
    hi = np.array([s.range[1] for s in subtasks])
    v = values.loc[complete].to_numpy(dtype=float)
    average = pd.Series(((v - lo) / (hi - lo) * weights).sum(1), index=complete)
    average_rank = pd.Series((ranks.loc[complete].to_numpy(dtype=float) * weights).sum(1), index=complete)
    cluster = None
    notes = []
    if k > 0 and len(complete) > 1:
        cluster = metric_clusters(task, pairs, subtasks, complete, average, k=k, alpha=alpha, seed=perm_seed,
                                  num_permutations=num_permutations, pce_seed=seed)
        notes.append(f"clusters: paired permutation test of the weighted average, {k} resamples, "
                     f"alpha {alpha:g} (Monte-Carlo; not MTME's random stream)")
    return MetataskResult(task, subtasks, values, ranks, average, average_rank, cluster, notes)


def metric_clusters(task, pairs, subtasks, metrics, average, *, k=1000, alpha=0.05, seed=0,
                    num_permutations=1000, pce_seed=4) -> pd.Series:
    """Significance clusters of the weighted average (methods §3.13; MTME ``CompareMetrics`` +
    ``AverageCorrMatrix`` + ``AssignRanks``).

    For metrics i above j (descending average): as PERM-BOTH (Deutsch et al. 2021, §4; MTME
    ``PermutationSigDiff``) each metric's scores are z-scored (per pair, over the judged cells;
    the corpus scores over the systems: every statistic here is invariant to a positive affine
    map, so the observed values stay), then per resample every judged cell of every pair swaps
    the two metrics' scores with probability ½ (one swap mask for all sub-tasks of a pair, so a
    resample is one joint draw over the tasks; corpus scores are swapped per system). The null difference is the
    weighted average of the [0, 1]-mapped hybrid values; p = share of draws with a null
    difference ≥ the observed one. Clusters: MTME ``AssignRanks`` (a new cluster opens at j when
    any metric from the current cluster's first to j − 1 is significantly better).
    """
    from .stats.significance import significance_clusters

    order = sorted(metrics, key=lambda m: (-average[m], m))
    rng = np.random.default_rng(seed)
    masks = []
    for _ in range(k):
        masks.append({lp: (rng.random(p.gold.shape) < 0.5, rng.random(len(p.systems)) < 0.5)
                      for lp, p in pairs.items()})
    lo = np.array([s.range[0] for s in subtasks])
    hi = np.array([s.range[1] for s in subtasks])
    w = np.array([s.weight for s in subtasks])

    def avg(pp, name):
        vals = np.array([subtask_value(s, pp, name, num_permutations, pce_seed) for s in subtasks])
        return float(((vals - lo) / (hi - lo) * w).sum())

    def z(x, keep):
        v = x[keep]
        sd = v.std()
        out = np.where(keep, (x - v.mean()) / (sd if sd > 0 else 1.0), 0.0)
        return out

    zseg = {lp: {m: z(p.seg[m], ~np.isnan(p.gold)) for m in p.seg} for lp, p in pairs.items()}
    zsys = {lp: {m: z(p.sys[m], np.ones(len(p.sys[m]), dtype=bool)) for m in p.sys} for lp, p in pairs.items()}
    n = len(order)
    sig = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            obs = average[a] - average[b]
            count = 0
            for draw in masks:
                pp = {}
                for lp, p in pairs.items():
                    cell, sysm = draw[lp]
                    q = PairData(lp, p.systems, p.seg_ids, p.gold)
                    zs, zy = zseg[lp], zsys[lp]
                    if a in zs and b in zs:
                        q.seg = {"A": np.where(cell, zs[b], zs[a]), "B": np.where(cell, zs[a], zs[b])}
                    if a in zy and b in zy:
                        q.sys = {"A": np.where(sysm, zy[b], zy[a]), "B": np.where(sysm, zy[a], zy[b])}
                    pp[lp] = q
                if avg(pp, "A") - avg(pp, "B") >= obs:
                    count += 1
            sig[i, j] = count / k
    ranks = significance_clusters(order, [average[m] for m in order], sig, alpha)
    return pd.Series(ranks, index=order)


def pair_data(ds, task: TaskDef, seg_scores: pd.DataFrame, sys_scores: pd.DataFrame | None, *,
              human: str, include_human: bool, exclude=()) -> tuple[PairData, list[str]]:
    """PairData of one dataset: systems = judged systems with metric scores, minus the primary
    reference, the human translations (unless ``include_human``) and ``exclude``. Gold = the mean
    per (system, segment) of ``human`` ratings (a rater's repeats averaged first)."""
    from .human.scores import criterion_judgements
    from .stats.system_ranking import item_scores
    from .stats.tables import human_systems

    notes = []
    hum = item_scores(criterion_judgements(ds, human))
    judged = list(dict.fromkeys(hum["system"]))
    drop = set(exclude)
    humans = human_systems(ds, judged)
    ref = task.ref_for(ds.lp)
    if ref in judged:
        drop.add(ref)
    if not include_human:
        drop |= set(humans)
    scored = set(seg_scores["system"]) if len(seg_scores) else set()
    systems = [s for s in judged if s not in drop and s in scored]
    left = [s for s in judged if s not in drop and s not in scored]
    if left:
        notes.append(f"{ds.lp}: judged but without metric scores, left out: {', '.join(left)}")
    if sorted(drop & set(judged)):
        notes.append(f"{ds.lp}: not scored as systems: {', '.join(sorted(drop & set(judged)))}")
    seg_ids = list(ds.seg_ids)
    gold = (hum.pivot(index="system", columns="seg_id", values="score")
            .reindex(index=systems, columns=seg_ids).to_numpy(dtype=float))
    p = PairData(ds.lp, systems, seg_ids, gold)
    s = seg_scores.copy()
    s["seg_id"] = s["seg_id"].astype(str)
    for mid, sub in s.groupby("metric", sort=False):
        M = (sub.pivot_table(index="system", columns="seg_id", values="score", aggfunc="mean")
             .reindex(index=systems, columns=seg_ids).to_numpy(dtype=float))
        if np.isnan(M[~np.isnan(gold)]).any():
            notes.append(f"{ds.lp}: metric {mid} lacks scores for judged cells: left out of this pair")
            continue
        p.seg[mid] = M
    if sys_scores is not None and len(sys_scores):
        for mid, sub in sys_scores.groupby("metric", sort=False):
            v = sub.groupby("system")["score"].mean().reindex(systems).to_numpy(dtype=float)
            if not np.isnan(v).any():
                p.sys[mid] = v
    for mid, M in p.seg.items():
        if mid not in p.sys:  # no corpus score given: the mean of the segment scores
            with np.errstate(invalid="ignore"):
                p.sys[mid] = np.nanmean(M, axis=1)
    return p, notes


__all__ = ["TASKS", "PairData", "MetataskResult", "run_task", "subtask_value", "pair_data", "metric_clusters"]
