"""Systems page: the corpus-level table (scores, bootstrap CIs, paired significance against a
baseline; Koehn 2004), ranks and their agreement, and the Schulze consensus of the measures
(Schulze 2011). The system-level correlations with the human scores that the page shows beside
them (the ``correlate`` command's numbers) are :mod:`evalcore.analysis.system_level`.

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress, stage
from ..scoring.defaults import metric_signature
from .judges import schulze_frame
from ..scoring.scores import disk_cached, human_segment_scores, system_stats
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from . import chosen
from .queries import Query


#: Above this many system outputs (systems × segments, e.g. a WMT test set of ~1,000 segments ×
#: 15 systems) the Systems page starts with :data:`FIRST_METRICS` and offers the other default
#: metrics one click away: METEOR, NIST, GTM, ROUGE-L, WER and PER together take a little over
#: half of these three's time to score on a cold cache (2.5 vs 4.4 CPU s on WMT24 en-cs with
#: main's kernels of 23 Nov 2026; benchmarks/history/RESULTS_pages.md): a first visit scores ~37 % less.
FIRST_METRICS_ABOVE = 5000
#: sacreBLEU's three metrics (Post 2018): what a first visit of a large dataset scores.
FIRST_METRICS = ("bleu", "chrf", "ter")
#: :func:`system_table`'s test level and random seed (CIs and paired tests).
TABLE_ALPHA = 0.05
TABLE_SEED = 12345


def first_metrics(dataset: Dataset) -> tuple[list[str], list[str]]:
    """(the metrics a first visit of the Systems page scores, the other default metrics it
    offers to add). Every default metric (:func:`evalcore.scoring.defaults.default_metrics`, Amigó
    et al. 2006's set) up to :data:`FIRST_METRICS_ABOVE` system outputs; above it, the
    default metrics among :data:`FIRST_METRICS` first and the rest second."""
    from ..scoring.defaults import default_metrics

    every = default_metrics(dataset)
    if len(dataset.outputs) <= FIRST_METRICS_ABOVE:
        return every, []
    first = [m for m in every if m in FIRST_METRICS]
    return (first, [m for m in every if m not in first]) if first else (every, [])


def _mark(p: float, alpha: float, diff: float) -> str:
    if not np.isfinite(p):
        return ""
    if p < alpha:
        return "▲ better" if diff > 0 else "▼ worse"
    return "≈ n.s."


def system_table(dataset: Dataset, metric_ids: Sequence[str], criteria: Sequence[str] = (),
                 baseline: str | None = None, include_references: bool = False,
                 normalisation: str = "raw", n_boot: int = 200, test: str = "bootstrap",
                 alpha: float = TABLE_ALPHA, seed: int = TABLE_SEED, progress: Progress = None,
                 ref_ids: Sequence[str] | None = None, settings: Settings = DEFAULTS,
                 judged_for: str | None = None) -> pd.DataFrame:
    """Corpus scores of every system (and, with ``include_references``, of every human
    translation scored as a system: Freitag et al. 2021) under every metric, and system-level
    human scores of every criterion, with percentile bootstrap CIs over segments and a paired
    test against ``baseline``.

    ``ref_ids``: the reference set every candidate is scored against; the reference sets not
    in it are the human translations scored as systems (without ``ref_ids``: each against the
    other sets, see :func:`evalcore.metrics.engine.candidate_plan`); a human translation in
    ``ref_ids`` is left out, human scores included. ``judged_for``: a criterion; under
    ``settings.judged_only`` metric scores over only the segments judged for each candidate under
    it (``n_segments``; None: every segment). ``settings.tokenizer``: the word-level metrics'
    tokenizer (None: the metric's default).

    Metric score = corpus score from summed sufficient statistics (score_table's system level).
    CI: ``n_boot`` resamples of the candidate's segments, the score recomputed from the
    resampled statistics (percentile interval, 1 − ``alpha``). Human score = mean over segments
    of the per-(system, segment) score of the criterion (methods §5.2), CI by resampling segments.
    Paired test vs the baseline on the segments both have: ``bootstrap`` = paired bootstrap
    resampling (Koehn 2004; sacreBLEU semantics), ``ar`` = approximate randomisation
    (Riezler & Maxwell 2005). ``mark``: ▲ better / ▼ worse (p < alpha, orientation-aware), ≈ n.s.
    When the data gives system-level scores of a criterion (an mt-metrics-eval ``.sys.score``, a WMT
    system score table), those are its human scores, as in ``correlate`` and the Campaign; they
    have no CI or test (mark ``given``).

    Columns: kind (metric|human), measure, system, is_reference, score, ci_lo, ci_hi, n_segments,
    p_value, mark, higher_is_better. Cached on disk by content hash, signatures and parameters.
    """
    if test not in ("bootstrap", "ar"):
        raise ValueError("test must be bootstrap or ar")
    criterion = judged_for if settings.judged_only else None  # the criterion whose judged segments count
    left = dict(left_out(dataset, metric_ids, include_references, ref_ids, judged_for, settings,
                         stage(progress, 0.0, 0.7)))
    metric_ids = [m for m in metric_ids if m not in left]  # (each named by left_out, for the page's note)
    key = _table_key(dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test,
                     alpha, seed, ref_ids, criterion, settings)
    return disk_cached("systable", key, lambda: _system_table(
        dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test, alpha,
        seed, progress, ref_ids, criterion, settings))


def _table_key(dataset: Dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test,
               alpha, seed, ref_ids, criterion, settings: Settings) -> tuple:
    """The disk-cache key of :func:`system_table` (``metric_ids``: those it scores, none left out;
    ``settings.tokenizer``: their tokenizer)."""
    tokenize = settings.tokenizer
    key: tuple = (dataset.content_hash(), tuple((m, metric_signature(m, tokenize=tokenize)) for m in metric_ids),
                  tuple(criteria), baseline, include_references, normalisation, n_boot, test, alpha, seed)
    if ref_ids or criterion:
        key += (tuple(ref_ids or ()), criterion)
    key += ("human: given system scores",)  # (tables cached before given scores were used differ)
    return key


def left_out(dataset: Dataset, metric_ids: Sequence[str], include_references: bool = False,
             ref_ids: Sequence[str] | None = None, judged_for: str | None = None,
             settings: Settings = DEFAULTS, progress: Progress = None) -> list[tuple[str, str]]:
    """(metric, why) of the metrics :func:`system_table` leaves out: those that cannot run on
    ``dataset`` (:func:`evalcore.scoring.availability.runnable`, e.g. ``tree-*`` without a parser
    for the target language) and those whose statistics fail (each tried alone: one metric never
    fails the table). The statistics are cached on disk, so the table then reads them back;
    :func:`evalcore.scoring.availability.left_out_note` is the note a page shows. ``judged_for``
    and ``settings`` as in :func:`system_table`."""
    from ..scoring.availability import runnable, score_isolated

    tokenize = settings.tokenizer
    criterion = judged_for if settings.judged_only else None
    can, left = runnable(dataset, metric_ids, tokenize)
    if can:
        _, failed = score_isolated(lambda ids: system_stats(dataset, ids, include_references, progress, ref_ids,
                                                            criterion, tokenize=tokenize), can)
        left += failed
    return left


def _system_table(dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test,
                  alpha, seed, progress, ref_ids=None, criterion=None, settings: Settings = DEFAULTS) -> pd.DataFrame:
    from ..metrics.base import get_metric
    from ..stats.bootstrap import corpus_score_bootstrap, percentile_bootstrap
    from ..stats.significance import paired_approximate_randomization, paired_bootstrap

    tokenize = settings.tokenizer
    refs = set(dataset.ref_ids)
    rows = []
    stats = system_stats(dataset, metric_ids, include_references, stage(progress, 0.0, 0.7), ref_ids, criterion,
                         tokenize=tokenize)
    n_items = max(sum(len(v) for v in stats.values()) + len(criteria), 1)
    done = 0
    paired = paired_bootstrap if test == "bootstrap" else paired_approximate_randomization
    n_paired = n_boot  # resamples (bootstrap) or random swaps (approximate randomisation)
    for m in metric_ids:
        metric = get_metric(m, tokenize)
        hib = metric.meta.higher_is_better
        per = stats.get(m, {})

        score_fn = metric.scores_from_sums  # every resample's corpus score in one call (same values)

        base = per.get(baseline) if baseline else None
        for name, (segs, st) in per.items():
            score = metric.score_from_stats(st)
            lo = hi = float("nan")
            if n_boot and len(segs) > 1:
                # resample counts × statistics, the draws of the literal loop (methods §3.8)
                lo, hi, _ = corpus_score_bootstrap(metric, st, n_boot, alpha, seed)
            p, mark = float("nan"), ""
            if base is not None and name == baseline:
                mark = "baseline"
            elif base is not None and n_boot:
                at_base = {s: i for i, s in enumerate(base[0])}
                common = sorted(set(segs) & set(base[0]), key=lambda s: at_base[s])
                if len(common) > 1:
                    pa = {s: i for i, s in enumerate(base[0])}
                    pb = {s: i for i, s in enumerate(segs)}
                    a = base[1][[pa[s] for s in common]]
                    b = st[[pb[s] for s in common]]
                    res = paired(a, b, score_fn, n_samples=n_paired, seed=seed, vectorized=True)
                    p = float(res.p_value)
                    diff = (res.score_b - res.score_a) * (1 if hib else -1)
                    mark = _mark(p, alpha, diff)
            rows.append({"kind": "metric", "measure": m, "system": name, "is_reference": name in refs,
                         "score": float(score), "ci_lo": lo, "ci_hi": hi, "n_segments": len(segs),
                         "p_value": p, "mark": mark, "higher_is_better": hib})
            done += 1
            if progress:
                progress(0.7 + 0.3 * done / n_items, f"bootstrap: {m}")
    from ..stats.tables import human_systems

    human_names = human_systems(dataset)
    from ..human.scores import given_system_scores

    for crit in criteria:
        # system scores the data gives (e.g. an mt-metrics-eval .sys.score) are the human score, as
        # in correlate and the Campaign (human.scores.human_system_scores); no CI or test then
        given = dict(zip(*given_system_scores(dataset, crit)[["system", "score"]].to_numpy().T))
        hs = human_segment_scores(dataset, crit, normalisation, include_references=True)
        if not include_references:
            hs = hs[~hs["system"].isin(set(human_names))]
        elif ref_ids:  # the chosen reference set is not a candidate
            hs = hs[~hs["system"].isin(set(ref_ids))]
        by = {s: g.set_index("seg_id")["score"] for s, g in hs.groupby("system", sort=False)}
        base = by.get(baseline) if baseline else None
        for name, ser in by.items():
            vals = ser.to_numpy(float)
            lo = hi = float("nan")
            if n_boot and len(vals) > 1:
                lo, hi, _ = percentile_bootstrap(lambda idx, vals=vals: vals[idx].mean(axis=1), len(vals), n_boot,
                                                 alpha, seed, vectorized=True)
            p, mark = float("nan"), ""
            if base is not None and name == baseline:
                mark = "baseline"
            elif base is not None and n_boot:
                both = base.index.intersection(ser.index)
                if len(both) > 1:
                    res = paired(base.loc[both].to_numpy(float), ser.loc[both].to_numpy(float),
                                 None, n_samples=n_paired, seed=seed)
                    p = float(res.p_value)
                    mark = _mark(p, alpha, res.score_b - res.score_a)
            score = float(vals.mean())
            if given:
                score, lo, hi, p, mark = float(given.get(name, np.nan)), np.nan, np.nan, np.nan, \
                    ("baseline" if mark == "baseline" else "given")
            rows.append({"kind": "human", "measure": crit, "system": name,
                         "is_reference": name in refs or name in human_names,
                         "score": score, "ci_lo": lo, "ci_hi": hi, "n_segments": len(vals),
                         "p_value": p, "mark": mark, "higher_is_better": True})
        done += 1
        if progress:
            progress(min(1.0, 0.7 + 0.3 * done / n_items), f"human scores: {crit}")
    if progress:
        progress(1.0, "system table ready")
    cols = ["kind", "measure", "system", "is_reference", "score", "ci_lo", "ci_hi", "n_segments",
            "p_value", "mark", "higher_is_better"]
    return pd.DataFrame(rows, columns=cols)


def system_wide(table: pd.DataFrame) -> pd.DataFrame:
    """One row per system, one column per measure (score), plus ``<measure> CI`` and mark columns."""
    if table.empty:
        return pd.DataFrame(columns=["system"])
    out = table.pivot_table(index="system", columns="measure", values="score", sort=False)
    order = list(dict.fromkeys(table["measure"]))
    out = out.reindex(columns=order)
    marks = table.pivot_table(index="system", columns="measure", values="mark", aggfunc="first", sort=False)
    for m in order:
        if m in marks and marks[m].astype(str).str.len().gt(0).any():
            out[f"{m} vs baseline"] = marks[m].reindex(out.index)
    out = out[[c for m in order for c in (m, f"{m} vs baseline") if c in out.columns]]
    return out.reset_index()


def rank_table(table: pd.DataFrame) -> pd.DataFrame:
    """Rank of every system (1 = best, orientation-aware, average ranks on ties) under every
    measure of a :func:`system_table`; systems missing for a measure are NaN."""
    if table.empty:
        return pd.DataFrame(columns=["system"])
    parts = {}
    for m, g in table.groupby("measure", sort=False):
        sign = 1.0 if bool(g["higher_is_better"].iloc[0]) else -1.0
        s = g.set_index("system")["score"] * sign
        parts[m] = s.rank(ascending=False, method="average")
    out = pd.DataFrame(parts)
    return out.reset_index().rename(columns={"index": "system"})


def rank_agreement(table: pd.DataFrame, method: str = "kendall") -> pd.DataFrame:
    """Kendall τ_b (or Spearman/Pearson) between the system scores of every pair of measures,
    over the systems both score (orientation-aware: an error rate agreeing with humans gets a
    positive value). Square frame measure × measure (NaN with fewer than 3 common systems)."""
    from ..stats.correlation import correlation

    measures = list(dict.fromkeys(table["measure"]))
    vec = {}
    for m, g in table.groupby("measure", sort=False):
        sign = 1.0 if bool(g["higher_is_better"].iloc[0]) else -1.0
        vec[m] = g.set_index("system")["score"] * sign
    mat = np.full((len(measures), len(measures)), np.nan)
    for i, a in enumerate(measures):
        for j, b in enumerate(measures):
            common = vec[a].index.intersection(vec[b].index)
            if len(common) >= 3:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mat[i, j] = correlation(vec[a].loc[common].to_numpy(), vec[b].loc[common].to_numpy(),
                                            method).value
    return pd.DataFrame(mat, index=measures, columns=measures)


def schulze_consensus(table: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    """Schulze consensus (methods §5.4, winning votes) of the system rankings of ``measures`` (each
    measure of a :func:`system_table` is one ballot). Columns: rank, system, beats."""
    from ..human.ranking import schulze

    ballots = []
    for m in measures:
        g = table[table["measure"] == m]
        if g.empty:
            continue
        sign = 1.0 if bool(g["higher_is_better"].iloc[0]) else -1.0
        ballots.append(dict(zip(g["system"], -sign * g["score"].to_numpy(float))))
    if not ballots:
        return pd.DataFrame(columns=["rank", "system", "beats"])
    res = schulze(ballots)
    return schulze_frame(res)


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class SystemsQuery(Query):
    metrics: tuple[str, ...] = ()
    criteria: tuple[str, ...] = ()
    baseline: str | None = None
    normalisation: str = "raw"
    n_boot: int = 200
    test: str = "bootstrap"
    rank_method: str = "kendall"
    signature: str = ""  # the metric signatures the exported figures carry


def judged_criterion(dataset: Dataset, q: SystemsQuery) -> str | None:
    """The criterion whose judged segments the metric scores are computed over, under
    ``q.settings.judged_only`` (the first chosen criterion, else the dataset's default one; None:
    every segment, also where the data has no human judgements)."""
    from ..scoring.defaults import default_criterion

    if not (q.settings.judged_only and dataset.criteria):
        return None
    return q.criteria[0] if q.criteria else default_criterion(dataset)


def systems_table(dataset: Dataset, q: SystemsQuery, progress: Progress = None) -> pd.DataFrame:
    """Scores, CIs and paired tests (:func:`evalcore.views.systems.system_table`) under the
    query's settings: human translations in or out, the reference sets, judged segments only and
    the tokenizer."""
    s = q.settings
    return system_table(dataset, list(q.metrics), list(q.criteria), q.baseline, s.include_human_systems,
                        q.normalisation, q.n_boot, q.test, progress=progress,
                        ref_ids=list(s.references) if s.references else None,
                        settings=s, judged_for=judged_criterion(dataset, q))


def stored_systems_table(dataset: Dataset, q: SystemsQuery) -> pd.DataFrame | None:
    """The table :func:`systems_table` returns for ``q`` when the disk cache already holds it
    (written by any earlier process, e.g. :func:`evalcore.views.precompute.precompute_statistics`
    at a save), else None. Computes nothing: no statistics, no bootstrap. A query one of whose
    metrics :func:`left_out` would drop is never found here (its table is keyed without it):
    :func:`systems_table` then decides as always."""
    from ..scoring.scores import stored

    s = q.settings
    key = _table_key(dataset, list(q.metrics), list(q.criteria), q.baseline, s.include_human_systems,
                     q.normalisation, q.n_boot, q.test, TABLE_ALPHA, TABLE_SEED,
                     list(s.references) if s.references else None, judged_criterion(dataset, q), s)
    table = stored("systable", key)
    return table if isinstance(table, pd.DataFrame) else None


#: The Systems page's default number of bootstrap resamples (its widget starts here).
PAGE_N_BOOT = 200


def baseline_candidates(dataset: Dataset) -> list[str]:
    """The systems the Systems page offers as the baseline of its paired test, in order (the
    first is the default): every system with outputs, then every judged one that is not a
    reference set."""
    return list(dict.fromkeys(dataset.systems + [s for s in dataset.judged if s not in dataset.ref_ids]))


def first_visit_query(dataset: Dataset, settings: Settings = DEFAULTS) -> SystemsQuery:
    """The query of the Systems page's full table on a first visit with every control at its
    default, under ``settings`` (the shared defaults: judged segments only where judgements
    exist, human translations left out, every reference set) and the page's tokenizer (the
    setting's, else sacreBLEU's default for the target language): :func:`first_metrics`, every
    criterion, the first of :func:`baseline_candidates` as the baseline, raw human scores,
    :data:`PAGE_N_BOOT` bootstrap resamples, the paired bootstrap."""
    from ..scoring.defaults import page_tokenizer

    s = settings.resolve(dataset)[0]
    s = s.with_(tokenizer=page_tokenizer(dataset, s.tokenizer))
    candidates = baseline_candidates(dataset)
    return SystemsQuery(dataset.content_hash(), s, tuple(first_metrics(dataset)[0]), tuple(dataset.criteria),
                        candidates[0] if candidates else None, "raw", PAGE_N_BOOT, "bootstrap")


def systems_wide(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    return system_wide(table)


def systems_bars(table: pd.DataFrame, q: SystemsQuery):
    """The bar chart, carrying its signature from the start (the same figure on every rerun)."""
    from ..present import plots as P

    return P.with_signature(P.system_bars(table), q.signature)


def systems_ranks(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    return rank_table(table)


def systems_agreement(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    return rank_agreement(table, q.rank_method)


def systems_agreement_figure(agree: pd.DataFrame, q: SystemsQuery):
    from ..present import plots as P

    return P.with_signature(P.heatmap(agree, f"{q.rank_method} between the system rankings (orientation-aware)",
                                      -1, 1), q.signature)


def systems_schulze(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    return schulze_consensus(table, list(q.metrics))


@dataclass(frozen=True)
class MetricsVsHumansQuery(Query):
    metrics: tuple[str, ...] = ()
    criterion: str | None = None
    n_boot: int = 0
    test: str = "williams"
    normalisation: str = "raw"


def metrics_vs_humans(dataset: Dataset, q: MetricsVsHumansQuery, progress: Progress = None) -> dict:
    """:func:`evalcore.analysis.system_level.metrics_vs_humans` (its tokenizer: ``q.settings``),
    kept on disk when every metric is a built-in one (:func:`_vs_humans_cacheable`), so a fresh
    server reads what an earlier process computed, e.g. a save
    (:func:`evalcore.views.precompute.precompute_statistics`): through the one disk cache
    (:func:`evalcore.scoring.scores.disk_cached`: the tables as Parquet, the rest as JSON, formats
    that run no code when read), keyed by the query (the dataset's content hash, the settings,
    every option) and the code's fingerprint (:func:`evalcore.cache_version`). An unreadable entry
    is computed again. Values unchanged."""
    from ..analysis.system_level import metrics_vs_humans as run
    from ..scoring.scores import disk_cached

    crit = chosen(q.criterion, "a human criterion")

    def compute() -> dict:
        return run(dataset, list(q.metrics), crit, q.settings, n_boot=q.n_boot, test=q.test,
                   normalisation=q.normalisation, progress=progress)

    if not _vs_humans_cacheable(q):
        return compute()
    return _settings_back(disk_cached("vshumans", _vs_humans_key(q), lambda: _settings_plain(compute())))


def _vs_humans_cacheable(q: MetricsVsHumansQuery) -> bool:
    """Whether the result depends on nothing but the query and the code: every metric a built-in
    one (a ``learned:`` model or a neural metric's weights live outside both)."""
    from ..metrics.base import metric_ids

    return bool(q.metrics) and all(":" not in m for m in q.metrics) and set(q.metrics) <= set(metric_ids())


def _vs_humans_key(q: MetricsVsHumansQuery) -> tuple:
    from .queries import query_key

    return (query_key(q),)


def _settings_plain(out: dict) -> dict:
    """The result with its Settings object as a plain dict (what JSON holds)."""
    import dataclasses as dc

    fields = dc.asdict(out["settings_object"])
    if fields.get("references") is not None:
        fields["references"] = list(fields["references"])
    return {**out, "settings_object": fields}


def _settings_back(out: dict) -> dict:
    """:func:`_settings_plain` undone (a result computed in this call is passed through it too)."""
    fields = dict(out["settings_object"])
    if fields.get("references") is not None:
        fields["references"] = tuple(fields["references"])
    return {**out, "settings_object": Settings(**fields)}


def first_visit_vs_humans_query(dataset: Dataset, settings: Settings = DEFAULTS) -> MetricsVsHumansQuery | None:
    """The query of the Systems page's *Metrics vs humans* section on a first visit with every
    control at its default, under ``settings`` resolved on ``dataset`` (the page states the
    tokenizer only when it is not sacreBLEU's default): :func:`first_metrics`, the first
    criterion, :data:`PAGE_N_BOOT` resamples, Williams' test, raw scores. None without
    judgements or metrics."""
    from ..metrics.tokenize import default_tokenizer

    s = settings.resolve(dataset)[0]
    if s.tokenizer == default_tokenizer(dataset.lp):
        s = s.with_(tokenizer=None)
    metrics = tuple(first_metrics(dataset)[0])
    if not dataset.criteria or not metrics:
        return None
    return MetricsVsHumansQuery(dataset.content_hash(), s, metrics, dataset.criteria[0], PAGE_N_BOOT, "williams",
                                "raw")


def systems_left_out(dataset: Dataset, q: SystemsQuery) -> str:
    """The note naming the metrics of ``q`` the scores table leaves out and why ('' when none:
    :func:`left_out` under the query's settings, the statistics read back from the disk cache)."""
    from ..scoring.availability import left_out_note

    s = q.settings
    return left_out_note(left_out(dataset, list(q.metrics), s.include_human_systems,
                                  list(s.references) if s.references else None, judged_criterion(dataset, q),
                                  s))
