"""The human ceiling: one human rating scored as a "metric" against another (methods §24.2).

Where the data holds two ratings of the same outputs (a second annotation wave as its own human
score type, e.g. WMT25's ``esa-human1`` / ``esa-human2``, or several raters of one item), the
inter-annotator row scores the second rating as a metric against the first *and* the first against
the second, with the very statistic, grouping and sub-tasks the metrics get, on the cells both
rate, and averages the two (the statistics with tie calibration, and any with missing cells, are not
symmetric). Each metric's agreement is then read as a share of it (Freitag et al. 2021, TACL:
raters as "metrics"; the WMT25 metrics task's human row, mt-metrics-eval ``tasks.WMT25`` with a
second human score as the metric).

Shared by ``correlate --human-ceiling``, ``metatask --human-ceiling`` and any table that needs the
row: :func:`rating_waves` (the two ratings), :func:`correlation_ceiling` (one statistic),
:func:`task_ceiling` (every sub-task of a metrics-task recipe).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

#: the row's name in every table
CEILING = "human-ceiling"
#: ``second`` value that splits one criterion's raters: each item's first rater against its second
RATERS = "raters"
#: ``second`` value for re-ratings: each rater's first rating of an item against the same rater's second
REPEATS = "repeats"
MIN_SYSTEMS = 3     # a system-level statistic over fewer is undefined (Pearson) or trivial
MIN_CELLS = 3


def rating_waves(ds, criterion: str, second: str) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The two ratings of the cells rated twice: (first, second, notes), each frame (system, seg_id,
    score), aligned row by row. ``second``: another human score type of the data (a second wave;
    each one's item scores: a rater's repeats averaged, then the raters), or :data:`RATERS`: within
    ``criterion``, each item's first rater (in the order of the data; repeats averaged) against its
    second rater; items with one rater are not used, third and later raters are left out (noted); or
    :data:`REPEATS`: each rater's first rating of an item (in the order of the data) against the same
    rater's second (an intra-annotator ceiling), averaged over the raters who re-rated the item."""
    from ..human.scores import criterion_judgements
    from ..stats.system_ranking import item_scores

    j = criterion_judgements(ds, criterion).copy()
    j["seg_id"] = j["seg_id"].astype(str)
    notes = []
    if second == RATERS:
        per = j.groupby(["system", "seg_id", "rater"], sort=False)["score"].mean().reset_index()
        per["k"] = per.groupby(["system", "seg_id"], sort=False).cumcount()
        extra = int((per["k"] >= 2).sum())
        a = per[per["k"] == 0].drop(columns=["rater", "k"])
        b = per[per["k"] == 1].drop(columns=["rater", "k"])
        what = f"{criterion}: each item's first rater against its second"
        if extra:
            notes.append(f"human ceiling: {extra} ratings by a third or later rater of an item left out")
        notes.append("human ceiling: single ratings against single ratings; the metrics' gold stays the mean over "
                     "each item's raters")
    elif second == REPEATS:
        j = j.assign(k=j.groupby(["system", "seg_id", "rater"], sort=False).cumcount())
        extra = int((j["k"] >= 2).sum())
        pair = j[j["k"] == 0].merge(j[j["k"] == 1], on=["system", "seg_id", "rater"], suffixes=("_1", "_2"))
        per = pair.groupby(["system", "seg_id"], sort=False)[["score_1", "score_2"]].mean().reset_index()
        a = per[["system", "seg_id"]].assign(score=per["score_1"])
        b = per[["system", "seg_id"]].assign(score=per["score_2"])
        what = f"{criterion}: each rater's first rating of an item against the same rater's second"
        if extra:
            notes.append(f"human ceiling: {extra} third or later ratings of an item by the same rater left out")
        notes.append("human ceiling: re-ratings by the same rater (intra-annotator); the metrics' gold averages them")
    else:
        if second not in ds.criteria:
            raise ValueError(f"human ceiling: {ds.lp} has no {second!r} judgements to compare with {criterion!r}; "
                             f"its human score types: {', '.join(ds.criteria) or 'none'} (or {RATERS!r}: two "
                             f"raters of one item; {REPEATS!r}: one rater's two ratings of one item)")
        if second == criterion:
            raise ValueError(f"human ceiling: the second rating must differ from the gold {criterion!r}")
        a = item_scores(j)
        b = item_scores(criterion_judgements(ds, second)).assign(seg_id=lambda d: d["seg_id"].astype(str))
        what = f"{criterion} against {second}"
    both = a.merge(b, on=["system", "seg_id"], suffixes=("_a", "_b"))
    both = both[both["score_a"].notna() & both["score_b"].notna()]
    first = both[["system", "seg_id"]].assign(score=both["score_a"].to_numpy(dtype=float))
    sec = both[["system", "seg_id"]].assign(score=both["score_b"].to_numpy(dtype=float))
    notes.insert(0, f"human ceiling ({ds.lp}): {what}, on the {len(both)} cells rated twice "
                    f"({both['system'].nunique()} systems, {both['seg_id'].nunique()} segments)")
    return first.reset_index(drop=True), sec.reset_index(drop=True), notes


def check_enough(first: pd.DataFrame, level: str, lp: str = "", systems=None) -> None:
    """Refuse a ceiling from too few cells rated twice (the number needed in the message)."""
    f = first if systems is None else first[first["system"].isin(set(systems))]
    where = f"{lp}: " if lp else ""
    if level == "system" and f["system"].nunique() < MIN_SYSTEMS:
        raise ValueError(f"{where}the human ceiling at system level needs at least {MIN_SYSTEMS} systems rated twice; "
                         f"the data has {f['system'].nunique()} ({len(f)} cells rated twice)")
    if len(f) < MIN_CELLS:
        raise ValueError(f"{where}the human ceiling needs at least {MIN_CELLS} cells rated twice; the data has {len(f)}")


def correlation_ceiling(first: pd.DataFrame, second: pd.DataFrame, *, level: str, method: str, grouping: str = "none",
                        exclude_systems=(), **kw) -> tuple[pd.Series, list[str]]:
    """The ceiling row of one correlation (a row of :func:`~evalcore.stats.tables.correlation_table`
    with ``metric`` = :data:`CEILING`): the value of ``second`` as a metric against ``first`` and of
    ``first`` against ``second``, averaged; n and the other counts from the first direction. No
    confidence interval (the two directions are not one estimate)."""
    from ..stats.tables import correlation_table

    check_enough(first[~first["system"].isin(set(exclude_systems))], level)
    rows = []
    for gold, metric in ((first, second), (second, first)):
        t = correlation_table(gold, metric.assign(metric=CEILING), level=level, method=method, grouping=grouping,
                              exclude_systems=exclude_systems, **kw)
        rows.append(t.iloc[0])
    row = rows[0].copy()
    ab, ba = float(rows[0]["value"]), float(rows[1]["value"])
    row["value"] = (ab + ba) / 2
    row["ci_low"] = row["ci_high"] = float("nan")
    if "epsilon" in row.index:
        row["epsilon"] = float("nan")
    return row, [f"human ceiling {method}: second against first {ab:.6g}, first against second {ba:.6g}, "
                 f"mean {row['value']:.6g} (no CI)"]


def with_shares(table: pd.DataFrame, ceiling_value: float, column: str = "value") -> pd.DataFrame:
    """``ceiling_share`` = each row's ``column`` / the ceiling's (NaN when the ceiling is 0 or NaN)."""
    out = table.copy()
    ok = np.isfinite(ceiling_value) and ceiling_value != 0
    out["ceiling_share"] = out[column].astype(float) / ceiling_value if ok else float("nan")
    return out


def _matrix(frame: pd.DataFrame, systems, seg_ids) -> np.ndarray:
    return (frame.pivot(index="system", columns="seg_id", values="score")
            .reindex(index=list(systems), columns=[str(s) for s in seg_ids]).to_numpy(dtype=float))


def task_pairs(result, collection: dict, second: str, human: str | None = None) -> tuple[dict, dict, list[str]]:
    """For each pair of a :class:`~evalcore.analysis.metatask.MetataskResult`: the pair with the first
    rating as gold and the second as the metric :data:`CEILING`, and the reverse (the systems and
    segments of the task, on the cells rated twice; systems with none left out)."""
    from .metatask import PairData
    from .stability import gold_criterion

    ab: dict[str, PairData] = {}
    ba: dict[str, PairData] = {}
    notes: list[str] = []
    for lp, p in sorted(result.pairs.items()):
        ds = collection[lp]
        first, sec, n = rating_waves(ds, gold_criterion(ds, result.task, human), second)
        notes += n
        check_enough(first, "system", lp, p.systems)
        A, B = _matrix(first, p.systems, p.seg_ids), _matrix(sec, p.systems, p.seg_ids)
        keep = ~np.isnan(A).all(axis=1)
        systems = [s for s, k in zip(p.systems, keep) if k]
        A, B = A[keep], B[keep]
        for out, g, m in ((ab, A, B), (ba, B, A)):
            with np.errstate(invalid="ignore"):
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    sysv = np.nanmean(m, axis=1)
            out[lp] = PairData(lp, systems, p.seg_ids, g, {CEILING: m}, {CEILING: sysv},
                               [h for h in p.humans if h in set(systems)], p.n_refs, p.domains)
    return ab, ba, notes


def task_ceiling(result, collection: dict, second: str, human: str | None = None,
                 num_permutations: int = 1000) -> tuple[pd.Series, float, list[str]]:
    """The ceiling of every sub-task of ``result`` (the mean of the two directions, each computed by
    :func:`~evalcore.analysis.metatask.subtask_value` as for a metric) and its weighted average of the
    [0, 1]-mapped values (methods §3.13). Returns (values by sub-task name, average, notes)."""
    from .metatask import subtask_value

    ab, ba, notes = task_pairs(result, collection, second, human)
    vals = {}
    for st in result.subtasks:
        x = subtask_value(st, ab, CEILING, num_permutations)
        y = subtask_value(st, ba, CEILING, num_permutations)
        vals[st.name] = (x + y) / 2
    v = pd.Series(vals)
    lo = np.array([s.range[0] for s in result.subtasks])
    hi = np.array([s.range[1] for s in result.subtasks])
    w = np.array([s.weight for s in result.subtasks])
    avg = float(((v.to_numpy(dtype=float) - lo) / (hi - lo) * w).sum())
    return v, avg, notes


def task_table_with_ceiling(result, table: pd.DataFrame, collection: dict, second: str, human: str | None = None,
                            num_permutations: int = 1000) -> tuple[pd.DataFrame, list[str]]:
    """The metatask table with the ceiling row last (average, one value per sub-task; no rank, no
    cluster) and a ``ceiling_share`` column (each row's average / the ceiling's)."""
    vals, avg, notes = task_ceiling(result, collection, second, human, num_permutations)
    row: dict = {c: (pd.NA if c == "cluster" else float("nan")) for c in table.columns}
    row.update({"metric": CEILING, "average": avg, **{k: float(x) for k, x in vals.items()}})
    out = pd.concat([table, pd.DataFrame([row]).astype({c: table[c].dtype for c in table.columns
                                                         if c in ("cluster",)})], ignore_index=True)
    notes.append("human ceiling row: the two ratings scored against each other with every sub-task's statistic, "
                 "both directions averaged; ceiling_share = a row's average / the ceiling's")
    return with_shares(out, avg, "average"), notes


__all__ = ["CEILING", "RATERS", "REPEATS", "rating_waves", "correlation_ceiling", "task_ceiling", "task_pairs",
           "task_table_with_ceiling", "with_shares", "check_enough"]
