"""The WMT metrics-task table: metrics ranked over a task's sub-tasks (methods §3.13).

The recipes are data in :mod:`evalcore.analysis.metatask_tasks`. For each language pair the judged
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

from ..scoring.parallel import score_table
from ..scoring.settings import DEFAULTS, Settings
from ..stats.registry import get
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
    humans: list[str] = field(default_factory=list)   # rows that are human translations
    n_refs: int = 1                                   # references in the data (human variants)
    domains: dict = field(default_factory=dict)       # domain -> column indices of its segments
    dom_sys: dict = field(default_factory=dict)       # domain -> {metric: corpus score per system}

    def view(self, human: bool | None = None, domain: str = "") -> "PairData":
        """The pair as a sub-task sees it: without the human-translation rows when ``human`` is
        False; only ``domain``'s columns (its system scores: the corpus scores on that domain
        when given, else the mean of the segment scores over its segments) when set."""
        if human is not False and not domain:
            return self
        rows = np.array([s not in set(self.humans) for s in self.systems]) if human is False \
            else np.ones(len(self.systems), dtype=bool)
        cols = np.asarray(self.domains[domain]) if domain else np.arange(len(self.seg_ids))
        seg = {m: M[rows][:, cols] for m, M in self.seg.items()}
        if domain:
            given = self.dom_sys.get(domain, {})
            with np.errstate(invalid="ignore"):
                sys = {m: (given[m][rows] if m in given else np.nanmean(M, axis=1)) for m, M in seg.items()}
        else:
            sys = {m: v[rows] for m, v in self.sys.items()}
        return PairData(self.lp, [s for s, k in zip(self.systems, rows) if k], [self.seg_ids[c] for c in cols],
                        self.gold[rows][:, cols], seg, sys)

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
    pairs: dict = field(default_factory=dict)
    sig: pd.DataFrame | None = None  # p-values of the clusters' tests (row above column), k > 0
    signatures: dict = field(default_factory=dict)
    # rows shown beside the metrics but never ranked or averaged with them: the human ceiling
    # (one annotation wave against the other, where two exist). Columns: metric (e.g.
    # "human:esa-human2") and any sub-task names; :meth:`table` appends them after the metrics.
    reference_rows: pd.DataFrame | None = None

    def table(self) -> pd.DataFrame:
        """One row per metric (descending average): metric, average, average_rank, cluster, then
        one value column per sub-task. The coverage rule (mt-metrics-eval ``AverageCorrs``): only a
        metric with a value in every sub-task has an average; a metric missing from some (a
        reference-based metric on a pair without a reference, beside the reference-free ones)
        follows, by name, with its values and an empty average (:meth:`incomplete`)."""
        order = sorted(self.average.index, key=lambda m: (-self.average[m], m))  # ties by name, as the ranks
        order += self.incomplete()
        out = pd.DataFrame({"metric": order, "average": self.average.reindex(order).to_numpy(),
                            "average_rank": self.average_rank.reindex(order).to_numpy()})
        out["cluster"] = (self.cluster.reindex(order).to_numpy() if self.cluster is not None
                          else pd.array([pd.NA] * len(order), dtype="Int64"))
        for st in self.subtasks:
            out[st.name] = self.values[st.name].reindex(order).to_numpy()
        if self.reference_rows is not None and len(self.reference_rows):
            extra = self.reference_rows.reindex(columns=out.columns)
            extra["cluster"] = extra["cluster"].astype("Int64")
            out = pd.concat([out, extra], ignore_index=True)
        return out

    def incomplete(self) -> list[str]:
        """The metrics without a value in some sub-task (no average), by name."""
        return sorted(m for m in self.values.index if m not in self.average.index)


def spa_columns(gold: np.ndarray) -> np.ndarray:
    """The segments judged for every system (the columns SPA uses)."""
    return ~np.isnan(gold).any(axis=0)


def subtask_value(st: SubTask, pairs: dict[str, PairData], metric: str, num_permutations: int = 1000,
                  seed: int = 4) -> float:
    """The value of ``metric`` on sub-task ``st`` (module docstring)."""
    from ..stats.correlation import correlation, group_values

    if st.lp == "*":  # pooled over every language pair: each pair's value weighted as the registry pools
        agree = total = 0.0
        for p in pairs.values():
            p = p.view(st.human)
            if metric not in p.sys:
                return float("nan")
            vals, weights = group_values(p.gold_sys[None, :], np.asarray(p.sys[metric], dtype=float)[None, :],
                                         st.statistic)
            if weights is not None and weights[0] > 0:
                agree += float(vals[0]) * float(weights[0])
                total += float(weights[0])
        return agree / total if total else float("nan")
    p = pairs[st.lp].view(st.human, st.domain)
    if get(st.statistic).segment_matrices:
        if metric not in p.seg:
            return float("nan")
        # the registry's statistic: the columns judged for every system (spa_columns), in C order
        return correlation(p.gold, p.seg[metric], "spa", num_permutations=num_permutations, seed=seed).value
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
    subtasks = task.subtasks(list(pairs), {lp: p.n_refs for lp, p in pairs.items()},
                             {lp: list(p.domains) for lp, p in pairs.items()})
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
        cluster, sig = metric_clusters(task, pairs, subtasks, complete, average, k=k, alpha=alpha, seed=perm_seed,
                                       num_permutations=num_permutations, pce_seed=seed)
        notes.append(f"clusters: paired permutation test of the weighted average, {k} resamples, "
                     f"alpha {alpha:g} (Monte-Carlo; not MTME's random stream)")
    out = MetataskResult(task, subtasks, values, ranks, average, average_rank, cluster, notes)
    missing = out.incomplete()
    if missing:
        notes.append(f"{len(missing)} metric(s) without a value in every sub-task (e.g. reference-based on a pair "
                     f"without the reference): shown without an average: {', '.join(missing)}")
    if cluster is not None:
        out.sig = sig
    return out


def metric_clusters(task, pairs, subtasks, metrics, average, *, k=1000, alpha=0.05, seed=0,
                    num_permutations=1000, pce_seed=4) -> tuple[pd.Series, pd.DataFrame]:
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
    Returns (clusters, p-value frame in descending-average order, upper triangle).
    """
    from ..stats.significance import significance_clusters

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
    zdom = {lp: {d: {m: z(v, np.ones(len(v), dtype=bool)) for m, v in ms.items()} for d, ms in p.dom_sys.items()}
            for lp, p in pairs.items()}
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
                    q = PairData(lp, p.systems, p.seg_ids, p.gold, humans=p.humans, n_refs=p.n_refs,
                                 domains=p.domains)
                    zs, zy = zseg[lp], zsys[lp]
                    if a in zs and b in zs:
                        q.seg = {"A": np.where(cell, zs[b], zs[a]), "B": np.where(cell, zs[a], zs[b])}
                    if a in zy and b in zy:
                        q.sys = {"A": np.where(sysm, zy[b], zy[a]), "B": np.where(sysm, zy[a], zy[b])}
                    for dom, zd in zdom[lp].items():
                        if a in zd and b in zd:
                            q.dom_sys[dom] = {"A": np.where(sysm, zd[b], zd[a]), "B": np.where(sysm, zd[a], zd[b])}
                    pp[lp] = q
                if avg(pp, "A") - avg(pp, "B") >= obs:
                    count += 1
            sig[i, j] = count / k
    ranks = significance_clusters(order, [average[m] for m in order], sig, alpha)
    return pd.Series(ranks, index=order), pd.DataFrame(sig, index=order, columns=order)


def pair_data(ds, task: TaskDef, seg_scores: pd.DataFrame, sys_scores: pd.DataFrame | None, *,
              human: str, include_human: bool, exclude=()) -> tuple[PairData, list[str]]:
    """PairData of one dataset: systems = judged systems with metric scores, minus the primary
    reference, the human translations (unless ``include_human``) and ``exclude``. Gold = the mean
    per (system, segment) of ``human`` ratings (a rater's repeats averaged first)."""
    from ..human.scores import criterion_judgements
    from ..stats.system_ranking import item_scores
    from ..stats.tables import human_systems

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
    p = PairData(ds.lp, systems, seg_ids, gold, humans=[x for x in systems if x in set(humans)],
                 n_refs=len(ds.ref_ids), domains=segment_domains(ds))
    s = seg_scores.copy()
    s["seg_id"] = s["seg_id"].astype(str)
    for mid, sub in s.groupby("metric", sort=False):
        M = (sub.pivot_table(index="system", columns="seg_id", values="score", aggfunc="mean")
             .reindex(index=systems, columns=seg_ids).to_numpy(dtype=float))
        if np.isnan(M[~np.isnan(gold)]).any():
            notes.append(f"{ds.lp}: metric {mid} lacks scores for judged cells: left out of this pair")
            continue
        p.seg[str(mid)] = M
    if sys_scores is not None and len(sys_scores):
        for mid, sub in sys_scores.groupby("metric", sort=False):
            v = sub.groupby("system")["score"].mean().reindex(systems).to_numpy(dtype=float)
            if not np.isnan(v).any():
                p.sys[str(mid)] = v
    for mid, M in p.seg.items():
        if mid not in p.sys:  # no corpus score given: the mean of the segment scores
            with np.errstate(invalid="ignore"):
                p.sys[mid] = np.nanmean(M, axis=1)
    return p, notes


def segment_domains(ds) -> dict:
    """domain -> column indices (in ``ds.seg_ids`` order) of its segments, from the data's
    ``segment_domains`` table (a domain column of segments.tsv, mt-metrics-eval documents/);
    empty when the data has none."""
    dom = ds.extras.get("segment_domains")
    if dom is None or not len(dom):
        return {}
    where = dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str)))
    out: dict = {}
    for i, sid in enumerate(ds.seg_ids):
        if where.get(str(sid), ""):
            out.setdefault(where[str(sid)], []).append(i)
    return {d: np.array(ix) for d, ix in sorted(out.items())}


def oriented(frame: pd.DataFrame, metrics, notes: list[str] | None = None) -> pd.DataFrame:
    """Error rates (TER, WER, PER…) negated, as in the WMT metrics tasks: every statistic then
    reads "higher is better" (methods §3.11)."""
    from ..metrics.base import get_metric

    low = [m for m in metrics if not get_metric(m).meta.higher_is_better]
    if not low or frame is None or not len(frame):
        return frame
    out = frame.copy()
    neg = out["metric"].isin(low)
    out.loc[neg, "score"] = -out.loc[neg, "score"].astype(float)
    msg = f"error rates negated (higher is better): {', '.join(low)}"
    if notes is not None and msg not in notes:
        notes.append(msg)
    return out


def _default_scorer(ds, metrics, *, level, ref_ids, include_references, tokenize, segments=None, label=""):
    from ..core.progress import StderrProgress

    return score_table(ds, metrics, level=level, ref_ids=ref_ids, include_references=include_references,
                       tokenize=tokenize, segments=segments, progress=StderrProgress(f"{label} {level} scores"))


#: The settings of a WMT metrics task's recipe: the shared defaults, but metric scores over every
#: segment, as the official runs (:func:`evalcore.scoring.settings.metatask_settings_line`; the
#: ``metatask`` command's ``--judged-only`` is opt-in).
TASK_RECIPE = DEFAULTS.with_(judged_only=False)


def run_metatask(collection: dict, task: TaskDef | str, *, lps=None, metrics=(), scores: pd.DataFrame | None = None,
                 human: str | None = None, include_human: bool | None = None, settings: Settings = TASK_RECIPE,
                 k: int = 0, alpha: float = 0.05, seed: int = 0,
                 num_permutations: int = 1000, scorer=None, metric_set: str = "all"):
    """The task table of ``collection`` (lp → Dataset), as the ``metatask`` command and the Metrics
    task page compute it: the task's pairs (``lps`` overrides; the data's pairs when none of the
    task's is there), gold, primary reference, human systems and outliers unless overridden.
    ``metrics``: built-in metric ids (scored by ``scorer``, default the engine; error rates
    negated); ``scores``: tidy bring-your-own rows (metric, system, seg_id, score[, lp]).
    ``stored:all`` stands for every stored metric a pair may use (:func:`stored_all`).
    ``metric_set``: "all", or the recipe's "primary" submissions / "baseline" metrics only
    (:meth:`TaskDef.metric_set`; matched on base names, case-insensitively).
    ``settings``: its ``judged_only`` (corpus scores over the judged segments; default
    :data:`TASK_RECIPE`: every segment) and ``tokenizer`` (None: sacreBLEU's default per target
    language) are read; human translations as systems are ``include_human`` (None: the task's
    choice per language pair), not ``settings.human_systems``.
    Returns ``(MetataskResult, notes, signatures)`` (signatures: metric → list of strings)."""
    from ..metrics.tokenize import resolve_tokenizer

    task = TASKS[task] if isinstance(task, str) else task
    keep_set = task.metric_set(metric_set)
    scorer = scorer or _default_scorer
    notes: list[str] = []
    have = list(collection)
    lps_given = lps
    if lps:
        lps = list(lps)
        missing = [x for x in lps if x not in collection]
        if missing:
            raise ValueError(f"language pair(s) {missing} not in the data; it has {', '.join(have)}")
        notes.append(f"language pairs overridden: {', '.join(lps)} (the task's: {', '.join(task.lps)})")
    else:
        lps = [x for x in task.lps if x in collection]
        if not lps:
            lps = have
            notes.append(f"the task's language pairs ({', '.join(task.lps)}) are not in the data: "
                         f"using its pairs {', '.join(lps)}")
    from ..metrics.byo import STORED_PREFIX

    metrics = list(metrics)
    if not metrics and (scores is None or not len(scores)):
        raise ValueError("give metrics and/or scores")
    stored = [m for m in metrics if m.lower().startswith(STORED_PREFIX)]
    metrics = [m for m in metrics if m not in stored]
    if metrics:
        from ..metrics.base import metric_ids

        unknown = [m for m in metrics if m.lower() not in set(metric_ids())]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}")
        metrics = _runnable_everywhere(collection, lps, metrics, settings, notes,
                                       bool(stored) or (scores is not None and len(scores) > 0))
    need_sys = any(s.level == "sys" and not get(s.statistic).segment_matrices for s in task.subtasks(lps))
    pairs: dict[str, PairData] = {}
    signatures: dict[str, list[str]] = {}
    for lp in lps:
        ds = collection[lp]
        gold = human or task.gold_for(lp)
        if gold not in ds.criteria:
            if human or len(ds.criteria) != 1:
                raise ValueError(f"{lp}: no {gold!r} judgements; the data has {', '.join(ds.criteria) or 'none'}")
            notes.append(f"{lp}: the task's human scores {gold!r} are not in the data: using {ds.criteria[0]!r}")
            gold = ds.criteria[0]
        ref = task.ref_for(lp)
        refs = [ref] if ref in ds.ref_ids else None
        if refs is None:
            notes.append(f"{lp}: the task's primary reference {ref!r} is not in the data: using "
                         f"{', '.join(ds.ref_ids) or 'none'}")
        inc = (lp in task.human_systems_lps) if include_human is None else include_human
        if include_human is None and task.human_variants and len(ds.ref_ids) > 1:
            inc = True  # the sub-tasks with human translations need them; those without drop them
        if include_human is not None:
            notes.append(f"{lp}: human translations as systems overridden: {inc}")
        from ..human.scores import criterion_judgements

        j = criterion_judgements(ds, gold)
        cells = {s: set(g["seg_id"].astype(str)) for s, g in j.groupby("system", sort=False)}
        judged = None
        if settings.judged_only:
            judged = cells
            notes.append(f"{lp}: judged only: corpus scores over the judged segments (the task: all segments)")
        seg_frames, sys_frames, dom_frames = [], [], {}
        if metrics:
            tok, _ = resolve_tokenizer(settings.tokenizer, ds.lp)
            # segment scores of the judged cells only: every segment-level statistic (SPA included)
            # uses only those, and a segment's score does not depend on the others
            from ..scoring.availability import left_out_note, score_isolated

            t, failed = score_isolated(lambda ms: scorer(ds, ms, level="segment", ref_ids=refs,
                                                         include_references=inc, tokenize=tok, segments=cells,
                                                         label=lp), metrics)
            if failed:  # one metric failing never fails the table: again without it, with a note
                keep = _runnable_everywhere({}, [], [m for m in metrics if m not in dict(failed)], settings, [],
                                            bool(stored) or (scores is not None and len(scores) > 0), failed)
                res, more, sigs = run_metatask(collection, task, lps=lps_given, metrics=keep + stored, scores=scores,
                                               human=human, include_human=include_human, settings=settings,
                                               k=k, alpha=alpha, seed=seed,
                                               num_permutations=num_permutations, scorer=scorer,
                                               metric_set=metric_set)
                more.insert(0, left_out_note(failed, lp))
                return res, more, sigs
            for m, sig in dict(zip(t["metric"], t.get("signature", pd.Series(["?"] * len(t))))).items():
                signatures.setdefault(m, [])
                if sig not in signatures[m]:
                    signatures[m].append(sig)
            seg_frames.append(oriented(t, metrics, notes))
            if need_sys:
                st = scorer(ds, metrics, level="system", ref_ids=refs, include_references=inc, tokenize=tok,
                            segments=judged, label=lp)
                sys_frames.append(oriented(st, metrics))
            if need_sys and task.by_domain:
                dom_frames = _domain_scores(ds, metrics, scorer, refs, inc, tok, judged)
        pair_stored = _stored_items(ds, stored, ref)
        for frames, level in ((seg_frames, "segment"), (sys_frames, "system")) if pair_stored else ():
            frames.append(_stored_rows(ds, pair_stored, level, ref, notes, signatures))
        if scores is not None and len(scores):
            b = scores[(scores["lp"] == lp) | (scores["lp"] == "")] if "lp" in scores.columns else scores
            seg_frames.append(b[b["seg_id"].astype(str) != ""])
            sys_frames.append(b[b["seg_id"].astype(str) == ""])
            for m in b["metric"].unique():
                signatures.setdefault(m, ["external"])
        seg = pd.concat(seg_frames, ignore_index=True)
        sysf = pd.concat(sys_frames, ignore_index=True) if sys_frames else None
        p, n = pair_data(ds, task, seg, sysf, human=gold, include_human=inc,
                         exclude=task.outliers_by_lp.get(lp, ()))
        if task.by_domain:
            notes += _attach_domain_scores(p, dom_frames, given=scores is not None and len(scores) > 0)
        pairs[lp] = p
        notes += n
    notes += _restrict_to_set(pairs, keep_set, metric_set, task.name)
    res = run_task(task, pairs, num_permutations=num_permutations, k=k, alpha=alpha, perm_seed=seed)
    notes += res.notes
    if k == 0:
        notes.append("k = 0 (the official runs' default): ranks are positions; no clusters")
    res.notes = notes
    res.pairs = pairs
    res.signatures = signatures
    return res, notes, signatures


def _runnable_everywhere(collection: dict, lps, metrics: list[str], settings: Settings, notes: list[str], others: bool,
                         failed=()) -> list[str]:
    """The metrics that can run on every pair of ``lps`` (:mod:`evalcore.scoring.availability`); those
    that cannot are left out with one note naming each and why. None left (and no ``others``: stored
    or bring-your-own scores): an error with the reasons."""
    from ..scoring.availability import left_out_note, runnable

    left = {m: why for m, why in failed}
    for lp in lps:
        for m, why in runnable(collection[lp], metrics, settings.tokenizer)[1]:
            left.setdefault(m, f"{lp}: {why}")
    keep = [m for m in metrics if m not in left]
    if left and not failed:
        notes.append(left_out_note(list(left.items())))
    if left and not keep and not others:
        raise ValueError(left_out_note(list(left.items())) + "; no metric left to evaluate")
    return keep


#: ``--metrics stored:all``: every stored metric a pair may use (:func:`stored_all`)
STORED_ALL = "stored:all"
#: the suffix of a reference-free metric's id under ``stored:all`` (mt-metrics-eval's display name)
NOREF = "[noref]"


def base_name(metric_id: str) -> str:
    """The base name of a metric id as the recipes' metric sets list it: ``stored:`` and the
    reference-free mark dropped (``stored:all`` ids are base names already)."""
    from ..metrics.byo import STORED_PREFIX

    m = metric_id[len(STORED_PREFIX):] if metric_id.lower().startswith(STORED_PREFIX) else metric_id
    return m[:-len(NOREF)] if m.endswith(NOREF) else m


def stored_all(ds, ref: str) -> list[tuple[str, str]]:
    """(id, stored name) of every stored metric the pair may use, as mt-metrics-eval's
    ``GetCorrelations`` admits them: reference-based variants scored against the task's primary
    reference only (``NAME-<ref>`` → id ``NAME``) and reference-free ones (``NAME-src`` → id
    ``NAME[noref]``), side by side; variants with other references are left out. A pair without
    the primary reference has only the reference-free ones (the coverage rule:
    :meth:`MetataskResult.table`)."""
    from ..metrics.byo import stored_table

    t = stored_table(ds)
    out: list[tuple[str, str]] = []
    for (metric, refset), _ in t.groupby(["metric", "refset"], sort=False):
        metric, refset = str(metric), refset if isinstance(refset, str) else ""
        if refset == "src":
            out.append((f"{metric}{NOREF}", f"stored:{metric}-src"))
        elif refset and set(refset.split(".")) <= {ref}:
            out.append((metric, f"stored:{metric}-{refset}"))
    return out


def _stored_items(ds, stored: list[str], ref: str) -> list[tuple[str, str | None]]:
    """(id, stored name or None = resolve ``id``) of the pair's stored metrics; ``stored:all``
    expanded (:func:`stored_all`)."""
    items: list[tuple[str, str | None]] = []
    for m in stored:
        items += stored_all(ds, ref) if m.lower() == STORED_ALL else [(m, None)]
    return items


def _restrict_to_set(pairs: dict, keep: frozenset | None, which: str, task: str) -> list[str]:
    """Drop, from every pair, the metrics whose base name is not in ``keep`` (None: keep all);
    the note names both."""
    if keep is None:
        return []
    wanted = {k.lower() for k in keep}
    kept, dropped = set(), set()
    for p in pairs.values():
        for table in (p.seg, p.sys):
            for m in list(table):
                if base_name(m).lower() in wanted:
                    kept.add(m)
                else:
                    dropped.add(m)
                    del table[m]
    if not kept:
        raise ValueError(f"none of the metrics ({', '.join(sorted(dropped)) or 'none'}) is among the {which} metrics "
                         f"of {task}: {', '.join(sorted(keep, key=str.lower))} (stored:all takes every stored metric)")
    note = f"metric set {which} of {task}: {len(kept)} metric(s) kept"
    if dropped:
        note += f", {len(dropped)} left out ({', '.join(sorted(dropped))})"
    return [note]


def _stored_rows(ds, stored: list[tuple[str, str | None]], level: str, ref: str, notes: list[str],
                 signatures: dict) -> pd.DataFrame:
    """The data's stored scores (mt-metrics-eval ``metric-scores/``) of each ``stored:NAME``, under
    that id in every pair: ``NAME`` itself when the pair stores it, else ``NAME-<ref>`` (the
    task's primary reference: ``stored:BLEU`` is ``BLEU-refA`` in one pair, ``BLEU-refB`` in
    another). ``stored``: (id, stored name or None to resolve the id so). Used as stored (never
    recomputed nor negated); a pair without it is noted."""
    from ..metrics.byo import stored_ids, stored_scores

    have = {i.lower(): i for i in stored_ids(ds)}
    out = []
    for m, given in stored:
        name = given or have.get(m.lower()) or have.get(f"{m}-{ref}".lower())
        if name is None:
            msg = (f"{ds.lp}: {m}: the data stores neither {m} nor {m}-{ref}; stored: "
                   f"{', '.join(have.values()) or 'none'}")
            if msg not in notes:
                notes.append(msg)
            continue
        res = stored_scores(ds, [name], level)
        rows = res.table
        for n in res.notes:
            if f"{ds.lp}: {n}" not in notes:
                notes.append(f"{ds.lp}: {n}")
        out.append(rows.assign(metric=m))
        for sig in dict.fromkeys(rows["signature"]):
            if sig not in signatures.setdefault(m, []):
                signatures[m].append(sig)
    cols = ["metric", "system", "seg_id", "score", "signature"]
    return pd.concat(out, ignore_index=True)[cols] if out else pd.DataFrame(columns=cols)


def _domain_scores(ds, metrics, scorer, refs, inc, tok, judged) -> dict:
    """domain -> the metrics' corpus scores on that domain's segments (the judged ones under
    judged-only), error rates negated (MTME's ``domain`` level scores)."""
    out = {}
    for dom, cols in segment_domains(ds).items():
        ids = {ds.seg_ids[c] for c in cols}
        segs = ids if judged is None else {sy: ids & v for sy, v in judged.items()}
        out[dom] = oriented(scorer(ds, metrics, level="system", ref_ids=refs, include_references=inc, tokenize=tok,
                                   segments=segs, label=f"{ds.lp} {dom}"), metrics)
    return out


def _attach_domain_scores(p: PairData, dom_frames: dict, given: bool) -> list[str]:
    """Per-domain corpus scores onto ``p.dom_sys``; notes on what stands in for missing ones."""
    for dom, frame in dom_frames.items():
        for mid, sub in frame.groupby("metric", sort=False):
            v = sub.groupby("system")["score"].mean().reindex(p.systems).to_numpy(dtype=float)
            if not np.isnan(v).any():
                p.dom_sys.setdefault(dom, {})[mid] = v
    if not p.domains:
        return [f"{p.lp}: no segment domains in the data: no per-domain sub-tasks"]
    if given:
        return [f"{p.lp}: given (--scores) metrics on a domain: system scores = the mean of their segment "
                "scores there"]
    return []


def subtask_cis(result: MetataskResult, n_boot: int = 100, alpha: float = 0.05, seed: int = 0,
                num_permutations: int = 1000) -> dict:
    """Percentile bootstrap CIs (methods §3.8) of each per-pair sub-task value: the segments
    (columns) of a pair are resampled with replacement, the same draws for every metric, and the
    sub-task recomputed (SPA keeps its permutation seed). System-level sub-tasks other than SPA
    rest on corpus scores that cannot be resampled by segment: no CI (absent from the dict).
    Returns {(metric, sub-task name): (lo, hi)}."""
    from ..stats.bootstrap import percentile_ci

    rng = np.random.default_rng(seed)
    out = {}
    for st in result.subtasks:
        if st.lp == "*" or (st.level == "sys" and not get(st.statistic).segment_matrices):
            continue
        p = result.pairs[st.lp]
        judged = np.flatnonzero(~np.isnan(p.gold).all(axis=0))
        draws = [rng.choice(judged, size=len(judged), replace=True) for _ in range(n_boot)]
        for m in result.values.index:
            if m not in p.seg:
                continue
            vals = []
            for cols in draws:
                q = PairData(p.lp, p.systems, [p.seg_ids[c] for c in cols], p.gold[:, cols],
                             seg={m: p.seg[m][:, cols]})
                vals.append(subtask_value(st, {st.lp: q}, m, num_permutations))
            out[(m, st.name)] = tuple(float(x) for x in percentile_ci(np.array(vals), alpha))
    return out


__all__ = ["TASKS", "PairData", "MetataskResult", "run_task", "run_metatask", "oriented", "subtask_value", "pair_data", "metric_clusters"]
