"""How firm a ranking is: the metrics-task table or the human ranking re-run under perturbations
(methods §24.1).

Two rankings are perturbed:

* ``task``  the metrics ranked by the weighted average of a metrics-task recipe, exactly as
  :func:`evalcore.analysis.metatask.run_metatask` (the ``metatask`` command) orders them (descending
  average, ties by name);
* ``human`` the systems of one language pair ranked by their human score, exactly as the ``rank``
  command's human signal (:func:`evalcore.stats.system_ranking.rank_systems`: the macro average over
  domains of the per-domain mean of the item scores, descending, ties by name).

Perturbations (each one a full re-run of the ranking; those that do not apply to the data are
skipped, with the reason): drop one language pair (task), drop one system, drop one domain, drop
one rater (the ``max_raters`` raters with the most judgement rows), each other human score type
of the data as the gold (a second wave or variant), tie calibration switched (task), item
grouping switched with no grouping (task), and ``n_boot`` bootstrap resamples of the judged
segments (Efron & Tibshirani 1993; the segment resampling of Koehn 2004 and of the WMT metrics
tasks' confidence intervals, Freitag et al. 2023 §3).

Per item (metric or system): its base rank, the share of perturbations in which it ranks first
(P(rank 1); over every perturbation, so the shares sum to 1), the lowest and highest rank it takes
(positions among the items ranked in that perturbation) and in how many perturbations it was
ranked. Per perturbation: the winner, whether it differs from the base winner, and Kendall's τ
(Kendall 1938; tau-a = tau-b, the positions have no ties) between the base and the perturbed
positions of the items both rank.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np
import pandas as pd

from ..core.results import Result
from ..scoring.settings import Settings

#: bootstrap resamples of the segments by default (the perturbation count is at least this)
N_BOOT = 50
#: raters dropped in turn at most (the ones with the most judgement rows)
MAX_RATERS = 10
MIN_ITEMS = 2        # a ranking needs two items
MIN_SYSTEMS = 3      # dropping one system must leave two


@dataclass(frozen=True, eq=False)
class StabilityResult(Result):
    """``table``: one row per item (``metric`` or ``system``): base_rank, p_rank1, rank_lo, rank_hi,
    perturbations, mean_rank; ``perturbations``: one row per perturbation: perturbation, kind, winner,
    changes_winner, kendall_tau, n_ranked, ranking; ``skipped``: the kinds not applied, with why;
    ``base``: the unperturbed ranking (item names in rank order); ``lps``: the language pairs."""

    perturbations: pd.DataFrame = field(default_factory=pd.DataFrame)
    skipped: tuple[str, ...] = ()
    base: tuple[str, ...] = ()
    lps: tuple[str, ...] = ()


def kendall_tau(base: list[str], other: list[str]) -> float:
    """Kendall's τ between two orderings over the items both contain (no ties: (C − D) / (n(n−1)/2),
    Kendall 1938); NaN with fewer than two common items."""
    common = [x for x in base if x in set(other)]
    n = len(common)
    if n < 2:
        return float("nan")
    pos = {x: i for i, x in enumerate(other)}
    r = np.array([pos[x] for x in common])
    conc = 0
    for i in range(n - 1):
        conc += int(np.sum(r[i + 1:] > r[i])) - int(np.sum(r[i + 1:] < r[i]))
    return conc / (n * (n - 1) / 2)


def summarise(base: list[str], runs: list[tuple[str, str, list[str]]], item: str, skipped, notes,
              method: str = "", lps=()) -> StabilityResult:
    """The two tables from the base ordering and the perturbed ones (name, kind, ordering)."""
    if not runs:
        raise ValueError("no perturbation applies to this data: " + "; ".join(skipped))
    items = list(base) + sorted({x for _, _, o in runs for x in o} - set(base))
    ranks: dict[str, list[int]] = {x: [] for x in items}
    first = dict.fromkeys(items, 0)
    rows = []
    for name, kind, order in runs:
        for i, x in enumerate(order):
            ranks[x].append(i + 1)
        first[order[0]] += 1
        rows.append({"perturbation": name, "kind": kind, "winner": order[0],
                     "changes_winner": order[0] != base[0], "kendall_tau": kendall_tau(base, order),
                     "n_ranked": len(order), "ranking": ", ".join(order)})
    n = len(runs)
    table = pd.DataFrame({
        item: items,
        "base_rank": pd.array([base.index(x) + 1 if x in base else pd.NA for x in items], dtype="Int64"),
        "p_rank1": [first[x] / n for x in items],
        "rank_lo": pd.array([min(ranks[x]) if ranks[x] else pd.NA for x in items], dtype="Int64"),
        "rank_hi": pd.array([max(ranks[x]) if ranks[x] else pd.NA for x in items], dtype="Int64"),
        "perturbations": [len(ranks[x]) for x in items],
        "mean_rank": [float(np.mean(ranks[x])) if ranks[x] else float("nan") for x in items],
    })
    per = pd.DataFrame(rows, columns=["perturbation", "kind", "winner", "changes_winner", "kendall_tau",
                                      "n_ranked", "ranking"])
    changed = per.loc[per["changes_winner"], "perturbation"].tolist()
    notes = list(notes) + [f"{n} perturbations; the winner {base[0]} changes in {len(changed)}"
                           + (f": {', '.join(changed[:10])}{' …' if len(changed) > 10 else ''}" if changed else "")]
    notes += [f"skipped: {s}" for s in skipped]
    return StabilityResult(table, tuple(notes), (), method, per, tuple(skipped), tuple(base), tuple(lps))


# ---- the human ranking (the ``rank`` command's human signal) ---------------------------------------

def _domain_map(ds) -> dict:
    dom = ds.extras.get("segment_domains")
    return dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str))) if dom is not None and len(dom) else {}


def human_order(items: pd.DataFrame, domains: dict) -> list[str]:
    """The systems of item scores (system, seg_id, score) in descending score, as
    :func:`~evalcore.stats.system_ranking.rank_systems` orders them (its score: the mean over domains of
    the system's per-domain mean; ties by name), without its tests."""
    s = items[items["score"].notna()]
    systems = list(dict.fromkeys(s["system"]))
    seg_ids = list(dict.fromkeys(s["seg_id"].astype(str)))
    X = _matrix(s, systems, seg_ids)
    doms = sorted({domains.get(k, "") for k in seg_ids})
    dom_idx = np.array([doms.index(domains.get(k, "")) for k in seg_ids])
    return _order(X, systems, dom_idx, len(doms))


def _matrix(items: pd.DataFrame, systems: list[str], seg_ids: list[str]) -> np.ndarray:
    return (items.assign(seg_id=items["seg_id"].astype(str)).pivot(index="system", columns="seg_id", values="score")
            .reindex(index=systems, columns=seg_ids).to_numpy(dtype=float))


def _order(X: np.ndarray, systems: list[str], dom_idx: np.ndarray, ndom: int) -> list[str]:
    """Systems (rows of X, NaN = not judged) with a score, by descending macro-over-domains mean."""
    ok = ~np.isnan(X)
    onehot = np.zeros((X.shape[1], ndom))
    onehot[np.arange(X.shape[1]), dom_idx] = 1.0
    sums, counts = np.where(ok, X, 0.0) @ onehot, ok.astype(float) @ onehot
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)
    have = (counts > 0).any(axis=1)
    sc = np.full(len(systems), np.nan)
    sc[have] = np.array([row[c > 0].mean() for row, c in zip(means[have], counts[have])])
    keep = [k for k in range(len(systems)) if have[k]]
    return [systems[k] for k in sorted(keep, key=lambda k: (-sc[k], systems[k]))]


def _run_jobs(jobs, what: str, notes: list, progress=None) -> list:
    """Run each perturbation ``(name, kind, make)``: its ranking when it keeps at least
    :data:`MIN_ITEMS` items, else a note that it is not counted; progress after each."""
    runs = []
    for i, (name, kind, make) in enumerate(jobs):
        order = make()
        if len(order) >= MIN_ITEMS:
            runs.append((name, kind, order))
        else:
            notes.append(f"{name}: fewer than {MIN_ITEMS} {what}: not counted")
        if progress is not None:
            progress(i + 1, len(jobs))
    return runs


def human_stability(ds, criterion: str, settings: Settings, *, n_boot: int = N_BOOT, max_raters: int = MAX_RATERS,
                    seed: int = 0, test: str = "wilcoxon", alpha: float = 0.05, progress=None) -> StabilityResult:
    """Stability of the human ranking of ``ds`` by ``criterion`` (module docstring). The base is
    :func:`~evalcore.stats.system_ranking.rank_systems` on the item scores, as ``rank --human``
    computes it (``test``/``alpha`` only matter to its clusters, not to the order). ``settings``:
    the shared settings (human translations are ranked as judged, as ``rank`` does)."""
    from ..human.scores import criterion_judgements
    from ..stats.system_ranking import item_scores, rank_systems

    del settings  # the human ranking reads no metric setting; kept for the one signature of analyses
    j = criterion_judgements(ds, criterion)
    items = item_scores(j)
    domains = {str(k): v for k, v in _domain_map(ds).items()}
    systems = list(dict.fromkeys(items["system"]))
    if len(systems) < MIN_SYSTEMS:
        raise ValueError(f"ranking stability needs at least {MIN_SYSTEMS} judged systems (dropping one must leave "
                         f"two); {ds.lp} has {len(systems)} with {criterion!r} judgements")
    base = rank_systems(items, domains, test=test, alpha=alpha).systems
    seg_ids = list(dict.fromkeys(items["seg_id"].astype(str)))
    X = _matrix(items, systems, seg_ids)
    doms = sorted({domains.get(k, "") for k in seg_ids})
    dom_idx = np.array([doms.index(domains.get(k, "")) for k in seg_ids])
    nd = len(doms)
    runs, skipped, notes = [], [], []
    jobs = []
    for s in base:
        keep = [k for k, x in enumerate(systems) if x != s]
        jobs.append((f"drop system {s}", "system", lambda keep=keep: _order(X[keep], [systems[k] for k in keep],
                                                                            dom_idx, nd)))
    if nd > 1:
        for d in range(nd):
            cols = dom_idx != d
            jobs.append((f"drop domain {doms[d] or '(none)'}", "domain", lambda cols=cols: _order(
                X[:, cols], systems, dom_idx[cols], nd)))
    else:
        skipped.append("drop domain: the judged segments have one domain")
    raters = j["rater"].astype(str).value_counts()
    if len(raters) > 1:
        top = sorted(raters.index, key=lambda r: (-raters[r], r))[:max_raters]
        if len(raters) > max_raters:
            notes.append(f"drop rater: {len(raters)} raters; the {max_raters} with the most judgements dropped in turn")
        for r in top:
            jobs.append((f"drop rater {r}", "rater", lambda r=r: _order(
                _matrix(item_scores(j[j["rater"].astype(str) != r]), systems, seg_ids), systems, dom_idx, nd)))
    else:
        skipped.append("drop rater: one rater name in the judgements")
    others = [c for c in ds.criteria if c != criterion]
    for c in others:
        jobs.append((f"gold {c}", "gold", lambda c=c: human_order(item_scores(criterion_judgements(ds, c)), domains)))
    if not others:
        skipped.append("gold variants: the data has one human score type (no second wave)")
    skipped += ["drop language pair: the human ranking is per language pair",
                "tie calibration: applies to metric correlations, not to a human ranking",
                "item grouping: applies to metric correlations, not to a human ranking"]
    if n_boot and len(seg_ids) >= 2:
        rng = np.random.default_rng(seed)
        for b in range(n_boot):
            draw = rng.integers(0, len(seg_ids), len(seg_ids))
            jobs.append((f"bootstrap {b + 1}", "bootstrap", lambda draw=draw: _order(
                X[:, draw], systems, dom_idx[draw], nd)))
    elif n_boot:
        skipped.append(f"bootstrap: needs at least 2 judged segments, {ds.lp} has {len(seg_ids)}")
    runs += _run_jobs(jobs, "systems left", notes, progress)
    method = (f"human ranking by {criterion} ({ds.lp}): rank's order (macro average over domains of the "
              f"per-domain means), {len(runs)} perturbations, seed {seed}")
    return summarise(list(base), runs, "system", skipped, notes, method, (ds.lp,))


# ---- the metrics-task table (the ``metatask`` command) ----------------------------------------------

def _rows(p, keep: np.ndarray):
    from .metatask import PairData

    return PairData(p.lp, [s for s, k in zip(p.systems, keep) if k], p.seg_ids, p.gold[keep],
                    {m: M[keep] for m, M in p.seg.items()}, {m: v[keep] for m, v in p.sys.items()},
                    [h for h in p.humans if h in {s for s, k in zip(p.systems, keep) if k}], p.n_refs,
                    p.domains, {d: {m: v[keep] for m, v in ms.items()} for d, ms in p.dom_sys.items()})


def _nanmean_rows(M: np.ndarray) -> np.ndarray:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(M, axis=1)


def _cols(p, cols: np.ndarray):
    """The pair on the columns ``cols`` (repeats allowed); domains follow their columns. A metric's
    system score (also per domain) is its unperturbed one shifted by the change of the mean of its
    segment scores over the judged cells (corpus scores cannot be recomputed on a resample; the shift
    is zero when nothing changes, so the statistic stays the one of the unperturbed table)."""
    from .metatask import PairData

    cols = np.asarray(cols)
    seg = {m: M[:, cols] for m, M in p.seg.items()}
    sys = {}
    for m, M in seg.items():
        if m in p.sys:
            sys[m] = p.sys[m] + (_nanmean_rows(M) - _nanmean_rows(p.seg[m]))
        else:
            sys[m] = _nanmean_rows(M)
    doms = {d: np.flatnonzero(np.isin(cols, ix)) for d, ix in p.domains.items()}
    doms = {d: ix for d, ix in doms.items() if len(ix)}
    dom_sys = {}
    for d, ms in p.dom_sys.items():
        if d in doms:
            dom_sys[d] = {m: v + (_nanmean_rows(seg[m][:, doms[d]]) - _nanmean_rows(p.seg[m][:, p.domains[d]]))
                          for m, v in ms.items() if m in seg}
    return PairData(p.lp, p.systems, [p.seg_ids[c] for c in cols], p.gold[:, cols], seg, sys, p.humans, p.n_refs,
                    doms, dom_sys)


def _with_gold(p, gold: np.ndarray):
    """The pair with another gold matrix, on the cells the metrics were scored for; systems whose
    gold row is then empty are left out."""
    from .metatask import PairData

    scored = np.ones(p.gold.shape, dtype=bool)
    for M in p.seg.values():
        scored &= ~np.isnan(M)
    g = np.where(scored, gold, np.nan)
    q = PairData(p.lp, p.systems, p.seg_ids, g, p.seg, p.sys, p.humans, p.n_refs, p.domains, p.dom_sys)
    keep = np.asarray(~np.isnan(g).all(axis=1), dtype=bool)
    return q if keep.all() else _rows(q, keep)


def _gold_matrix(ds, criterion: str, p, drop_rater: str | None = None) -> np.ndarray:
    from ..human.scores import criterion_judgements
    from ..stats.system_ranking import item_scores

    j = criterion_judgements(ds, criterion)
    if drop_rater is not None:
        j = j[j["rater"].astype(str) != drop_rater]
    hum = item_scores(j)
    if not len(hum):
        return np.full(p.gold.shape, np.nan)
    return (hum.pivot(index="system", columns="seg_id", values="score")
            .reindex(index=p.systems, columns=[str(s) for s in p.seg_ids]).to_numpy(dtype=float))


def gold_criterion(ds, task, human: str | None) -> str:
    """The human score type run_metatask takes as the gold of ``ds`` (its fallback included)."""
    gold = human or task.gold_for(ds.lp)
    if gold not in ds.criteria and not human and len(ds.criteria) == 1:
        gold = ds.criteria[0]
    return gold


def _flip_task(task, what: str):
    """The recipe with tie calibration switched, or item grouping swapped with no grouping."""
    per = []
    for lvl, stat, grp, tie, w in task.per_lp:
        if what == "tie" and stat in ("acc23", "tau_23") and lvl == "seg":
            tie = not tie
        if what == "grouping" and lvl == "seg" and grp in ("item", "none"):
            grp = "none" if grp == "item" else "item"
        per.append((lvl, stat, grp, tie, w))
    return replace(task, per_lp=tuple(per))


def task_stability(collection: dict, task, settings: Settings, *, lps=None, metrics=(), scores=None,
                   human: str | None = None, num_permutations: int = 1000, n_boot: int = N_BOOT,
                   max_raters: int = MAX_RATERS, seed: int = 0, scorer=None, progress=None) -> StabilityResult:
    """Stability of the metrics-task ranking (module docstring). The base is
    :func:`~evalcore.analysis.metatask.run_metatask` with the same arguments as the ``metatask``
    command (``settings``: judged_only, tokenizer; human translations as the task says), and its
    table's order; every perturbation re-runs :func:`~evalcore.analysis.metatask.run_task`."""
    from .metatask import run_metatask, run_task
    from .metatask_tasks import TASKS

    task = TASKS[task] if isinstance(task, str) else task
    res, notes, _ = run_metatask(collection, task, lps=lps, metrics=metrics, scores=scores, human=human,
                                 settings=settings, num_permutations=num_permutations, scorer=scorer)
    base = res.table()["metric"].tolist()
    if len(base) < MIN_ITEMS:
        raise ValueError(f"ranking stability needs at least {MIN_ITEMS} metrics in the task table; it has "
                         f"{len(base)} ({', '.join(base) or 'none'})")
    pairs = res.pairs
    few = {lp: len(p.systems) for lp, p in pairs.items() if len(p.systems) < MIN_SYSTEMS}
    if few:
        raise ValueError(f"ranking stability needs at least {MIN_SYSTEMS} systems per language pair (dropping one "
                         "must leave two); " + ", ".join(f"{lp} has {n}" for lp, n in few.items()))
    jobs: list[tuple[str, str, Callable[..., list[str]]]] = []
    skipped: list[str] = []
    notes = list(notes)

    def run(pp, t=task):
        r = run_task(t, pp, num_permutations=num_permutations)
        return r.table()["metric"].tolist()

    if len(pairs) > 1:
        for lp in sorted(pairs):
            jobs.append((f"drop lp {lp}", "lp", lambda lp=lp: run({k: v for k, v in pairs.items() if k != lp})))
    else:
        skipped.append("drop language pair: one language pair")
    systems = list(dict.fromkeys(s for p in pairs.values() for s in p.systems))
    for s in systems:
        jobs.append((f"drop system {s}", "system",
                     lambda s=s: run({lp: _rows(p, np.array([x != s for x in p.systems])) for lp, p in pairs.items()})))
    doms = sorted({d for p in pairs.values() for d in p.domains})
    if doms and any(len(p.domains) > 1 for p in pairs.values()):
        for d in doms:
            jobs.append((f"drop domain {d}", "domain", lambda d=d: run({
                lp: (_cols(p, np.setdiff1d(np.arange(len(p.seg_ids)), p.domains[d])) if d in p.domains and
                     len(p.domains) > 1 else p) for lp, p in pairs.items()})))
    else:
        skipped.append("drop domain: no language pair has segments in more than one domain")
    golds = {lp: gold_criterion(collection[lp], task, human) for lp in pairs}
    rater_rows = pd.concat([collection[lp].judgements.loc[collection[lp].judgements["judgement"] == golds[lp], "rater"]
                            for lp in pairs]).astype(str).value_counts()
    if len(rater_rows) > 1:
        top = sorted(rater_rows.index, key=lambda r: (-rater_rows[r], r))[:max_raters]
        if len(rater_rows) > max_raters:
            notes.append(f"drop rater: {len(rater_rows)} raters; the {max_raters} with the most judgements "
                         "dropped in turn")
        for r in top:
            jobs.append((f"drop rater {r}", "rater", lambda r=r: run({
                lp: _with_gold(p, _gold_matrix(collection[lp], golds[lp], p, r)) for lp, p in pairs.items()})))
    else:
        skipped.append("drop rater: one rater name in the judgements")
    variants = sorted({c for lp in pairs for c in collection[lp].criteria if c != golds[lp]})
    for c in variants:
        jobs.append((f"gold {c}", "gold", lambda c=c: run({
            lp: (_with_gold(p, _gold_matrix(collection[lp], c, p)) if c in collection[lp].criteria else p)
            for lp, p in pairs.items()})))
    if variants:
        notes.append("gold variants: on the cells the metrics were scored for (the base gold's judged cells); "
                     "a pair without the variant keeps its gold")
    else:
        skipped.append("gold variants: the data has one human score type (no second wave)")
    seg_level = [s for s in res.subtasks if s.level == "seg"]
    if any(s.statistic in ("acc23", "tau_23") for s in seg_level):
        jobs.append(("tie calibration switched", "tie", lambda: run(pairs, _flip_task(task, "tie"))))
    else:
        skipped.append("tie calibration: no segment-level acc23 sub-task in the recipe")
    grp: dict[tuple, set[str]] = {(s.lp, s.statistic, s.domain, s.human): set() for s in seg_level}
    for s in seg_level:
        grp[(s.lp, s.statistic, s.domain, s.human)].add(s.grouping)
    if seg_level and all(len(g & {"item", "none"}) == 1 for g in grp.values()):
        jobs.append(("item grouping switched", "grouping", lambda: run(pairs, _flip_task(task, "grouping"))))
    else:
        skipped.append("item grouping: " + ("no segment-level sub-task" if not seg_level else
                                            "the recipe has item and no grouping side by side already"))
    if n_boot:
        rng = np.random.default_rng(seed)
        judged = {lp: np.flatnonzero(~np.isnan(p.gold).all(axis=0)) for lp, p in pairs.items()}
        for b in range(n_boot):
            draw = {lp: rng.choice(ix, size=len(ix), replace=True) for lp, ix in sorted(judged.items())}
            jobs.append((f"bootstrap {b + 1}", "bootstrap",
                         lambda draw=draw: run({lp: _cols(p, draw[lp]) for lp, p in pairs.items()})))
    if any(k in ("domain", "bootstrap") for _, k, _ in jobs) and any(
            s.level == "sys" and s.statistic != "spa" for s in res.subtasks):
        notes.append("segment perturbations (domain, bootstrap): a metric's system score is its corpus score shifted "
                     "by the change of the mean of its segment scores over the judged cells kept (corpus scores "
                     "cannot be recomputed on a resample)")
    runs = _run_jobs(jobs, "metrics ranked", notes, progress)
    method = (f"metrics-task ranking ({task.name}, {', '.join(sorted(pairs))}): the metatask table's order "
              f"(descending weighted average), {len(runs)} perturbations, seed {seed}")
    return summarise(base, runs, "metric", skipped, notes, method, sorted(pairs))


__all__ = ["StabilityResult", "human_stability", "task_stability", "kendall_tau", "human_order", "N_BOOT"]
