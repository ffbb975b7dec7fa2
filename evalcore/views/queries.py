"""Page queries: what a page asks its view-model, as one small frozen dataclass per page.

A query holds the dataset's content hash (``dataset``), the tokenizer of the word-level metrics
(``tokenize``: the page's explicit choice, never a hidden setting) and every option the page's
numbers depend on (metric ids, criterion, normalisation, ...). Being frozen and made of plain
values (str, int, float, bool, None, tuples of them and frozen dataclasses of them such as
:class:`evalcore.scoring.settings.Settings`), a query is hashable and has a stable
``repr``: it is the page's cache key. The dashboard calls every view-model function through one
helper, ``pages.common.cached(view_fn, query, data)``, keyed by the function's name and the query
only; ``data`` (the dataset, or a table computed for the same query) is the unhashed input.

A view-model function here takes ``(data, query)`` (and ``progress=`` when it reports progress)
and calls the views with explicit arguments. Nothing here imports streamlit.

Adding a page: its query dataclass here (with :func:`check_query` passing), its view-model
functions beside it, the page file under ``pages/`` calling them through ``cached``, and its
entry in ``pages/registry.py`` (docs/architecture.md, "Where things go").
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress

_PLAIN = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # e.g. the shared Settings
        return value.__dataclass_params__.frozen and all(  # type: ignore[attr-defined]
            _plain(getattr(value, f.name)) for f in dataclasses.fields(value))
    return isinstance(value, _PLAIN)


def check_query(query: Any) -> Any:
    """``query`` if it is a frozen dataclass of plain values (hashable, with a stable ``repr``:
    usable as a cache key), else a ``TypeError`` naming the offending field."""
    if not dataclasses.is_dataclass(query) or isinstance(query, type):
        raise TypeError(f"a page query must be a dataclass instance, not {type(query).__name__}")
    if not query.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{type(query).__name__} must be frozen (it is a cache key)")
    for f in dataclasses.fields(query):
        if not _plain(getattr(query, f.name)):
            raise TypeError(f"{type(query).__name__}.{f.name} must be a str, number, bool, None or a tuple of "
                            f"them (a cache key), not {type(getattr(query, f.name)).__name__}")
    hash(query)
    return query


def query_key(query: Any) -> str:
    """The cache key text of a query: its ``repr`` (class name and every field, in order)."""
    return repr(check_query(query))


@dataclass(frozen=True)
class Query:
    """What every page query holds: the dataset (content hash) and the tokenizer of the
    word-level metrics (None: the metrics' own default)."""

    dataset: str
    tokenize: str | None = None


def dataset_query(dataset: Dataset, tokenize: str | None = None) -> Query:
    return Query(dataset.content_hash(), tokenize)


def check_data(data: Any, query: Any) -> None:
    """A dataset handed in with a query must be the one the query names (its content hash)."""
    if isinstance(data, Dataset) and getattr(query, "dataset", None) not in (None, data.content_hash()):
        raise ValueError(f"{type(query).__name__} names dataset {query.dataset!r}, but another dataset was passed")


# ---------------------------------------------------------------- Human-likeness
@dataclass(frozen=True)
class HumanLikenessQuery(Query):
    metrics: tuple[str, ...] = ()
    ties: str = "geq"
    average: str = "micro"
    bootstrap: int = 0


def human_likeness_rows(dataset: Dataset, q: HumanLikenessQuery, progress: Progress = None) -> pd.DataFrame:
    """ORANGE and KING of ``q.metrics`` (:func:`evalcore.views.human_likeness.figure1_table`)."""
    from .human_likeness import figure1_table

    return figure1_table(dataset, list(q.metrics), q.ties, q.average, q.bootstrap, progress=progress,
                         tokenize=q.tokenize)


def human_likeness_cases(dataset: Dataset, q: HumanLikenessQuery):
    """(cases, outputs) of the one metric of ``q`` (:func:`evalcore.views.human_likeness.king_case_table`)."""
    from .human_likeness import king_case_table

    return king_case_table(dataset, q.metrics[0], q.ties, tokenize=q.tokenize)


def human_likeness_figure(table: pd.DataFrame, q: HumanLikenessQuery):
    """Figure 1 of the rows computed for ``q`` (display only: the same object on every rerun)."""
    from ..present import plots as P

    return P.figure1(table)


# ---------------------------------------------------------------- QUEEN vs human
@dataclass(frozen=True)
class QueenVsHumanQuery(Query):
    metrics: tuple[str, ...] = ()
    criterion: str | None = None
    mode: str = "auto"
    normalisation: str = "raw"
    human_threshold: float | None = None
    queen_threshold: float | None = None


def queen_points(dataset: Dataset, q: QueenVsHumanQuery, progress: Progress = None):
    """(points, (human threshold, QUEEN threshold)) of Figure 4 for the set ``q.metrics``
    (:mod:`evalcore.views.queen_vs_human`)."""
    from . import queen_vs_human as V

    pts = V.queen_human_points(dataset, list(q.metrics), q.criterion, q.mode, q.normalisation, progress=progress,
                               tokenize=q.tokenize)
    return pts, V.quadrant_thresholds(dataset, pts, q.criterion, q.normalisation)


def greedy_metric_set(dataset: Dataset, q: Query, progress: Progress = None) -> list[str]:
    """The metric set the greedy KING search selects among ``q.metrics``
    (:func:`evalcore.views.likeness_vs_acceptability.metric_set_search`)."""
    from .likeness_vs_acceptability import metric_set_search

    return metric_set_search(dataset, list(q.metrics), "greedy", progress=progress, tokenize=q.tokenize).chosen


def queen_figure(points: pd.DataFrame, q: QueenVsHumanQuery):
    """Figure 4 of ``points`` with the thresholds of ``q``."""
    from ..present import plots as P

    return P.figure4(points, q.human_threshold, q.queen_threshold, q.criterion, "QUEEN{" + ",".join(q.metrics) + "}")


# ---------------------------------------------------------------- Likeness vs acceptability
@dataclass(frozen=True)
class LikenessQuery(Query):
    metrics: tuple[str, ...] = ()
    criterion: str | None = None
    method: str = "pearson"
    level: str = "segment"
    mode: str = "auto"
    normalisation: str = "raw"
    ties: str = "geq"
    average: str = "micro"
    bootstrap: int = 0
    judged_only: bool = True
    selected: tuple[str, ...] | None = None
    groups: tuple[str, ...] | None = None
    search: str = "greedy"
    min_coverage: float = 0.95


def likeness_points(dataset: Dataset, q: LikenessQuery, progress: Progress = None) -> pd.DataFrame:
    """Figure 3's points (:func:`evalcore.views.likeness_vs_acceptability.figure3_points`)."""
    from . import likeness_vs_acceptability as V

    return V.figure3_points(dataset, list(q.metrics), q.criterion, list(q.selected) if q.selected else None, q.method,
                            q.level, q.mode, q.normalisation, q.ties, q.average, q.bootstrap, progress=progress,
                            judged_only=q.judged_only, groups=q.groups or V.GROUPS, tokenize=q.tokenize)


def likeness_search(dataset: Dataset, q: LikenessQuery, progress: Progress = None) -> dict:
    """The metric-set search of ``q.search`` over ``q.metrics`` as a dict (chosen, king, orange,
    ranking, trace, excluded; :func:`evalcore.views.likeness_vs_acceptability.metric_set_search`)."""
    from .likeness_vs_acceptability import metric_set_search

    r = metric_set_search(dataset, list(q.metrics), q.search, q.mode, q.ties, q.average, progress=progress,
                          min_coverage=q.min_coverage, tokenize=q.tokenize)
    return {"chosen": r.chosen, "king": r.king, "orange": r.orange, "ranking": r.ranking, "trace": r.trace,
            "excluded": r.excluded}


def likeness_figure(points: pd.DataFrame, q: LikenessQuery):
    """Figure 3 of ``points``."""
    from ..present import plots as P

    return P.figure3(points, f"{q.method} with {q.criterion} ({q.level} level)")


def search_trace_figure(trace: pd.DataFrame, q: LikenessQuery):
    """The greedy search's trace."""
    from ..present import plots as P

    return P.search_trace(trace)


# ---------------------------------------------------------------- Systems
@dataclass(frozen=True)
class SystemsQuery(Query):
    metrics: tuple[str, ...] = ()
    criteria: tuple[str, ...] = ()
    baseline: str | None = None
    include_refs: bool = False
    normalisation: str = "raw"
    n_boot: int = 200
    test: str = "bootstrap"
    ref_ids: tuple[str, ...] | None = None
    judged_only: str | None = None
    rank_method: str = "kendall"
    signature: str = ""  # the metric signatures the exported figures carry


def systems_table(dataset: Dataset, q: SystemsQuery, progress: Progress = None) -> pd.DataFrame:
    """Scores, CIs and paired tests (:func:`evalcore.views.systems.system_table`)."""
    from .systems import system_table

    return system_table(dataset, list(q.metrics), list(q.criteria), q.baseline, q.include_refs, q.normalisation,
                        q.n_boot, q.test, progress=progress, ref_ids=list(q.ref_ids) if q.ref_ids else None,
                        judged_only=q.judged_only, tokenize=q.tokenize)


def systems_wide(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    from .systems import system_wide

    return system_wide(table)


def systems_bars(table: pd.DataFrame, q: SystemsQuery):
    """The bar chart, carrying its signature from the start (the same figure on every rerun)."""
    from ..present import plots as P

    return P.with_signature(P.system_bars(table), q.signature)


def systems_ranks(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    from .systems import rank_table

    return rank_table(table)


def systems_agreement(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    from .systems import rank_agreement

    return rank_agreement(table, q.rank_method)


def systems_agreement_figure(agree: pd.DataFrame, q: SystemsQuery):
    from ..present import plots as P

    return P.with_signature(P.heatmap(agree, f"{q.rank_method} between the system rankings (orientation-aware)",
                                      -1, 1), q.signature)


def systems_schulze(table: pd.DataFrame, q: SystemsQuery) -> pd.DataFrame:
    from .systems import schulze_consensus

    return schulze_consensus(table, list(q.metrics))


@dataclass(frozen=True)
class MetricsVsHumansQuery(Query):
    metrics: tuple[str, ...] = ()
    criterion: str | None = None
    settings: Any = None  # the shared Settings (a frozen dataclass): judged segments, references, tokenizer
    n_boot: int = 0
    test: str = "williams"
    normalisation: str = "raw"


def metrics_vs_humans(dataset: Dataset, q: MetricsVsHumansQuery) -> dict:
    """:func:`evalcore.analysis.system_level.metrics_vs_humans` (its tokenizer: ``q.settings``)."""
    from ..analysis.system_level import metrics_vs_humans as run

    return run(dataset, list(q.metrics), q.criterion, q.settings, n_boot=q.n_boot, test=q.test,
               normalisation=q.normalisation)


@dataclass(frozen=True)
class CriterionQuery(Query):
    """A dataset and one human criterion (and an option): the judges' views."""

    criterion: str | None = None
    option: str | None = None


def judges_consensus(dataset: Dataset, q: CriterionQuery):
    """(table, support) of the judges' Schulze consensus (:func:`evalcore.views.judges.judges_consensus`)."""
    from .judges import judges_consensus as run

    ranked = run(dataset, q.criterion)
    return ranked.table, ranked.support  # what the ranking rests on



# ---------------------------------------------------------------- Judges (CriterionQuery: option = chance or normalisation)
def judges_overview(dataset: Dataset, q: CriterionQuery) -> dict:
    """:func:`evalcore.views.judges.judges_overview` with chance ``q.option`` (without its labels)."""
    from .judges import judges_overview as run

    res = run(dataset, q.criterion, q.option or "uniform")
    res.pop("labels", None)
    return res


def rater_distributions(dataset: Dataset, q: CriterionQuery):
    """:func:`evalcore.views.judges.rater_distributions` with normalisation ``q.option``."""
    from .judges import rater_distributions as run

    return run(dataset, q.criterion, q.option or "z")


def rater_distributions_figure(dist: pd.DataFrame, q: CriterionQuery):
    from ..present import plots as P

    return P.rater_distributions(dist, f"{q.criterion}: raw vs {q.option}")


def agreement_pa_figure(overview: dict, q: CriterionQuery):
    from ..present import plots as P

    return P.heatmap(overview["pa"], "P(A) between raters (diagonal: intra)", 0, 1, "Blues")


def agreement_kappa_figure(overview: dict, q: CriterionQuery):
    from ..present import plots as P

    return P.heatmap(overview["kappa"], "κ between raters", -1, 1)


def agreement_curve_figure(overview: dict, q: CriterionQuery):
    from ..present import plots as P

    return P.agreement_curve(overview["curve"])


def hter_table(dataset: Dataset, q: Query) -> pd.DataFrame:
    """:func:`evalcore.views.judges.hter_table`."""
    from .judges import hter_table as run

    return run(dataset)



# ---------------------------------------------------------------- Experts vs non-experts
@dataclass(frozen=True)
class ExpertsQuery(Query):
    criterion: str | None = None
    gold: tuple[str, ...] = ()
    metric: str = ""  # the metric ranked beside the humans ('' for none)


def expert_labels(dataset: Dataset, q: ExpertsQuery) -> pd.DataFrame:
    from ..analysis.experts import gold_labels

    return gold_labels(dataset, list(q.gold), q.criterion)


def experts_vs_gold(labels: pd.DataFrame, q: ExpertsQuery) -> pd.DataFrame:
    from ..analysis.experts import rater_vs_gold

    return rater_vs_gold(labels)


def experts_vs_gold_figure(table: pd.DataFrame, q: ExpertsQuery):
    from ..present import plots_refs as PR

    return PR.rater_vs_gold(table)


def experts_curves(labels: pd.DataFrame, q: ExpertsQuery):
    from ..analysis.experts import combination_curves

    return combination_curves(labels, 5, 20)


def experts_curves_figure(curves, q: ExpertsQuery):
    from ..present import plots_refs as PR

    return PR.combination_curves(curves.table, curves.reference_agreement)


def experts_metric_scores(dataset: Dataset, q: ExpertsQuery) -> pd.Series:
    from ..analysis.experts import metric_system_scores

    return metric_system_scores(dataset, q.metric, q.tokenize)


def experts_rankings(labels_and_scores: tuple, q: ExpertsQuery):
    """Ranking correlations of ``(labels, metric scores or None)``."""
    from ..analysis.experts import ranking_correlations

    labels, scores = labels_and_scores
    return ranking_correlations(labels, scores, q.metric, 5)


def experts_rankings_figure(ranks: pd.DataFrame, q: ExpertsQuery):
    from ..present import plots_refs as PR

    return PR.ranking_bars(ranks)



# ---------------------------------------------------------------- References
@dataclass(frozen=True)
class ReferencesQuery(Query):
    metrics: tuple[str, ...] = ()
    n_boot: int = 0
    gap: float = 20.0
    share: float = 0.3


def reference_loo(dataset: Dataset, q: ReferencesQuery, progress: Progress = None):
    """Leave-one-out reference quality of ``q.metrics`` (:func:`evalcore.analysis.references.leave_one_out`)."""
    from ..analysis.references import leave_one_out

    return leave_one_out(dataset, list(q.metrics), n_boot=q.n_boot, progress=progress, tokenize=q.tokenize)


def detect_mt(dataset: Dataset, q: ReferencesQuery):
    """Detect MT with the one metric of ``q`` (:func:`evalcore.analysis.references.detect_mt`)."""
    from ..analysis.references import detect_mt as run

    return run(dataset, q.metrics[0], q.gap, q.share, tokenize=q.tokenize)


@dataclass(frozen=True)
class ComprehensionQuery(Query):
    n_boot: int = 1000
    metrics: tuple[str, ...] = ()


def comprehension_results(dataset: Dataset, q: ComprehensionQuery):
    from ..analysis.comprehension import results

    return results(dataset, n_boot=q.n_boot)


def comprehension_correlations(dataset_and_table: tuple, q: ComprehensionQuery):
    """Correlations of the % correct table (computed for the same query) with ``q.metrics``."""
    from ..analysis.comprehension import correlations

    dataset, table = dataset_and_table
    return correlations(dataset, table, list(q.metrics), tokenize=q.tokenize)



# ---------------------------------------------------------------- Metrics task (a collection of language pairs)
def collection_key(collection: dict, lps) -> str:
    """The ``dataset`` of a query over several language pairs: their content hashes, in order."""
    return "|".join(collection[lp].content_hash() for lp in lps)


@dataclass(frozen=True)
class MetataskQuery(Query):
    task: str = "wmt24"
    lps: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    human: str | None = None
    judged_only: bool = False
    k: int = 0
    with_ci: bool = False


def metatask_result(collection: dict, q: MetataskQuery):
    """(result, notes, signature) of the task table (:func:`evalcore.views.metatask.compute`)."""
    from .metatask import compute

    return compute(collection, q.task, list(q.metrics), lps=list(q.lps), human=q.human, judged_only=q.judged_only,
                   k=q.k)


def metatask_leaderboard_figure(result: tuple, q: MetataskQuery):
    from .metatask import leaderboard_figure

    res, _, sig = result
    return leaderboard_figure(res, signature=sig)


def metatask_cis(result: tuple, q: MetataskQuery):
    from ..analysis.metatask import subtask_cis

    return subtask_cis(result[0], n_boot=100)


def metatask_values_figure(result_and_ci: tuple, q: MetataskQuery):
    """The values per sub-task of ``(result, notes, signature, CIs or None)``."""
    from .metatask import values_figure

    res, _, sig, ci = result_and_ci
    return values_figure(res, ci, signature=sig)



# ---------------------------------------------------------------- Campaign (a collection of language pairs)
@dataclass(frozen=True)
class CampaignQuery(Query):
    """Each pair's tokenizer is sacreBLEU's default for its target language (``tokenize`` None)."""

    metrics: tuple[str, ...] = ()
    lps: tuple[str, ...] = ()
    criterion: str | None = None
    judged_only: bool = True
    include_human: bool = False
    rank_by: str = "pearson"
    statistic: str = "pearson"
    test: str = "perm"
    cluster_lp: str | None = None
    signature: str = ""  # what the exported figure carries


def campaign_result(collection: dict, q: CampaignQuery):
    """:func:`evalcore.analysis.campaign.campaign` with the metric scores from the statistics the
    Systems page caches on disk per (dataset, metric, tokenizer, reference set, segments)."""
    from ..analysis.campaign import campaign
    from ..analysis.system_level import cached_scores

    return campaign(collection, list(q.metrics), q.criterion, lps=list(q.lps), include_human=q.include_human,
                    judged_only=q.judged_only, rank_by=q.rank_by, scorer=cached_scores)


def campaign_human_figure(result, q: CampaignQuery):
    from ..present import plots_campaign as PC

    return PC.human_bars(result.systems, signature=result.signature)


def campaign_correlation_figure(result, q: CampaignQuery):
    from ..present.plots import campaign_bars, with_signature

    return with_signature(campaign_bars(result.correlations, q.statistic), q.signature)


def campaign_clusters(result, q: CampaignQuery):
    from ..analysis.campaign import metric_clusters

    return metric_clusters(result, q.cluster_lp, statistic=q.statistic, test=q.test)


def campaign_signatures(collection: dict, q: CampaignQuery) -> pd.DataFrame:
    from .campaign import signature_frame

    return signature_frame(collection, list(q.lps), list(q.metrics), q.criterion)



# ---------------------------------------------------------------- Divergence browser
_KEY = ["system", "seg_id"]


@dataclass(frozen=True)
class DivergenceQuery(Query):
    metrics: tuple[str, ...] = ()
    criteria: tuple[str, ...] = ()
    queen_set: tuple[str, ...] = ()
    normalisation: str = "raw"
    a: str = ""
    b: str = ""
    direction: str = "both"
    systems: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    length: tuple[int, ...] = ()
    range_a: tuple[float, ...] = ()
    range_b: tuple[float, ...] = ()
    focus: bool = False
    system: str | None = None
    seg_id: str | None = None
    signature: str = ""


def divergence_base(dataset: Dataset, q: DivergenceQuery) -> pd.DataFrame:
    """The outputs with their lengths, tags and human/judge signals (no metric: cheap)."""
    from .divergence import signal_table

    return signal_table(dataset, [], list(q.criteria), [], q.normalisation)


def divergence_metric(dataset: Dataset, q: DivergenceQuery, progress: Progress = None) -> pd.DataFrame:
    """The one metric of ``q`` as a signal column (its segment scores: the shared cached statistics)."""
    from .divergence import signal_table

    metric = q.metrics[0]
    t = signal_table(dataset, [metric], [], [], progress=progress, tokenize=q.tokenize)
    return t[_KEY + [c for c in t.columns if c == f"metric:{metric}"]]


def divergence_queen(dataset: Dataset, q: DivergenceQuery, progress: Progress = None) -> pd.DataFrame:
    """QUEEN of ``q.queen_set`` as a signal column."""
    from .divergence import signal_table

    t = signal_table(dataset, [], [], list(q.queen_set), progress=progress, tokenize=q.tokenize)
    return t[_KEY + [c for c in t.columns if c.startswith("queen:")]]


def divergence_human_figure(base: pd.DataFrame, q: DivergenceQuery):
    """The human scores of signal ``q.b`` by system (the page's first figure)."""
    from ..present import plots as P

    return P.signal_by_system(base, q.b, f"Human scores of each system's outputs ({q.b.split(':', 1)[1]}, "
                                         f"{q.normalisation})")


def divergence_ranked(signals: pd.DataFrame, q: DivergenceQuery) -> pd.DataFrame:
    """:func:`evalcore.views.divergence.divergence_table` of ``signals`` with the filters of ``q``."""
    from .divergence import divergence_table

    return divergence_table(signals, q.a, q.b, list(q.systems), list(q.tags), tuple(q.length), tuple(q.range_a),
                            tuple(q.range_b), q.direction)


def divergence_scatter(shown: pd.DataFrame, q: DivergenceQuery):
    from ..present import plots as P

    return P.with_signature(P.divergence_scatter(shown, q.a, q.b), q.signature)


def divergence_detail(dataset_and_signals: tuple, q: DivergenceQuery) -> dict:
    """Everything about output (``q.system``, ``q.seg_id``) (:func:`evalcore.analysis.detail.segment_detail`)."""
    from ..analysis.detail import segment_detail

    dataset, signals = dataset_and_signals
    return segment_detail(dataset, q.system, q.seg_id, signals, tokenize=q.tokenize)


@dataclass(frozen=True)
class SpansQuery(Query):
    """Human error spans: one output's layers, or the profiles and penalties under filters."""

    system: str | None = None
    seg_id: str | None = None
    metrics: tuple[str, ...] = ()  # xcomet:MODEL span metrics (layers) or metrics (penalties)
    severities: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    raters: tuple[str, ...] = ()
    by: str = "severity"
    value: str = "count"
    markers: tuple[str, ...] = ("bleu", "chrf", "ter")


def output_layers(dataset: Dataset, q: SpansQuery, progress=None) -> dict:
    """:func:`evalcore.views.spans.output_layers` of one output (``progress(done, total)`` while
    an xcomet metric of ``q.metrics`` predicts spans)."""
    from .spans import output_layers as run

    return run(dataset, q.system, q.seg_id, markers=q.markers, tokenize=q.tokenize, span_metrics=q.metrics,
               progress=progress)


def span_profile(dataset: Dataset, q: SpansQuery) -> pd.DataFrame:
    from .spans import profile

    return profile(dataset, q.by, list(q.severities) or None, list(q.categories) or None, list(q.raters) or None,
                   n_boot=1000)


def span_profile_figure(profile: pd.DataFrame, q: SpansQuery):
    from ..present import plots_spans

    return plots_spans.profile_bars(profile, q.by)


def span_penalties(dataset: Dataset, q: SpansQuery) -> pd.DataFrame:
    from .spans import penalties

    return penalties(dataset, list(q.metrics), value=q.value, severities=list(q.severities) or None,
                     raters=list(q.raters) or None, tokenize=q.tokenize)



# ---------------------------------------------------------------- Compare two systems
@dataclass(frozen=True)
class CompareQuery(Query):
    """``tokenize``: the page's own tokenizer box (lengths, n-grams and every word-level metric)."""

    a: str = ""
    b: str = ""
    metrics: tuple[str, ...] = ()
    criteria: tuple[str, ...] = ()
    normalisation: str = "raw"
    judged_only: bool | None = None  # None: the shared default (Settings.judged_only)
    lengths: bool = False  # the comparison with its token counts
    table: str = "headline"
    n_boot: int = 0
    n_ar: int = 0
    test: str = "bootstrap"
    signal: str | None = None
    seg_id: str | None = None
    bucket_kind: str | None = None
    criterion: str | None = None
    signature: str = ""


def compare_start(dataset: Dataset, q: CompareQuery):
    """The comparison of A and B on the human criteria alone (the token counts wait for the
    tables that need them; :func:`evalcore.analysis.compare.build`)."""
    from ..analysis.compare import build

    return build(dataset, q.a, q.b, [], list(q.criteria), tokenize=q.tokenize, normalisation=q.normalisation,
                 judged_only=q.judged_only, lengths=False)


def compare_add_metric(dataset_and_previous: tuple, q: CompareQuery, progress: Progress = None):
    """The comparison computed for ``q.metrics[:-1]`` (``previous``) with the last of ``q.metrics``
    added; A's and B's statistics from the Systems page's disk cache when it has them (same values)."""
    from ..analysis.compare import with_metrics
    from ..scoring.scores import known_system_stats

    dataset, previous = dataset_and_previous
    return with_metrics(previous, [q.metrics[-1]], progress=progress,
                        known_stats=lambda m: known_system_stats(dataset, m, q.tokenize))


def compare_lengths(comparison, q: CompareQuery):
    """The comparison with its token counts (lengths buckets, length ratios and bias)."""
    from ..analysis.compare import with_lengths

    return with_lengths(comparison)


def compare_table(comparison, q: CompareQuery) -> pd.DataFrame:
    """Table ``q.table`` of the comparison (:func:`evalcore.analysis.compare.table`)."""
    from ..analysis.compare import table

    return table(comparison, q.table, q.n_boot, q.n_ar, q.test, 0.05, 50)


def compare_win_figure(comparison_and_headline: tuple, q: CompareQuery):
    import numpy as np

    from ..analysis.compare import bucket_table
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    cmp, head = comparison_and_headline
    every = np.ones(len(cmp.segments), dtype=bool)
    return with_signature(PC.win_rates(bucket_table(cmp, [("all", every)], "all"), head, q.a, q.b), q.signature)


def compare_scatter(segments: pd.DataFrame, q: CompareQuery):
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.scatter_ab(segments, q.signal, q.a, q.b), q.signature)


def compare_differences(segments: pd.DataFrame, q: CompareQuery):
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.difference_histogram(segments, q.signal, q.a, q.b), q.signature)


def compare_side_by_side(comparison, q: CompareQuery) -> dict:
    from ..analysis.compare import side_by_side

    return side_by_side(comparison, q.seg_id)



def compare_bucket_figure(shown: pd.DataFrame, q: CompareQuery):
    """The buckets of kind ``q.bucket_kind`` shown for signal ``q.signal``."""
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.bucket_bars(shown, q.signal, q.a, q.b), q.signature)


def compare_word_f_figure(word_f: pd.DataFrame, q: CompareQuery):
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.word_f_bars(word_f, q.a, q.b), q.signature)


def compare_length_bias_figure(bias: pd.DataFrame, q: CompareQuery):
    """Length bias controlling for ``q.criterion``."""
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.length_bias_bars(bias), q.signature)



# ---------------------------------------------------------------- Learn (the guided tour)
@dataclass(frozen=True)
class LearnQuery(Query):
    parts: tuple[str, ...] = ()
    system: str | None = None
    other: str | None = None
    criterion: str | None = None


def learn_lessons(dataset: Dataset, q: LearnQuery, progress: Progress = None) -> dict:
    from .learn import lessons

    return lessons(dataset, progress=progress, parts=q.parts, tokenize=q.tokenize)


def learn_paraphrase_example(dataset: Dataset, q: LearnQuery):
    """The output of ``q.system`` BLEU dislikes most relative to the humans, in detail."""
    from ..analysis.detail import segment_detail
    from .divergence import divergence_table, signal_table

    sig = signal_table(dataset, ["bleu"], [q.criterion], per_rater=False, tokenize=q.tokenize)
    div = divergence_table(sig, "metric:bleu", f"human:{q.criterion}", systems=[q.system], direction="b_higher")
    if div.empty:
        return None
    row = div.iloc[0]
    return segment_detail(dataset, row["system"], row["seg_id"], sig, tokenize=q.tokenize)


def learn_two_verdicts(dataset: Dataset, q: LearnQuery):
    """(headline, tag buckets) of systems ``q.system`` and ``q.other`` under BLEU and chrF (the
    comparison's own 13a tokenizer, as the Compare page's default on this es-en sample)."""
    from ..analysis import compare as C

    cmp = C.build(dataset, q.system, q.other, ["bleu", "chrf"], [q.criterion])
    head = C.headline(cmp, n_bootstrap=1000, n_ar=1000)
    tags = C.bucket_table(cmp, C.tag_buckets(cmp), "phenomenon tag")
    return head, tags


def learn_span_lesson(dataset: Dataset, q: LearnQuery) -> dict:
    from .learn import span_lesson

    return span_lesson(dataset, tokenize=q.tokenize)



# ---------------------------------------------------------------- Data page
@dataclass(frozen=True)
class SegmentScoresQuery(Query):
    metrics: tuple[str, ...] = ()
    seg_id: str | None = None


def segment_scores_of(dataset: Dataset, q: SegmentScoresQuery) -> pd.DataFrame:
    """Every system's (and every reference's, against the others) scores on segment ``q.seg_id``."""
    from ..metrics.engine import score_table

    sub = dataset.subset(seg_ids=[q.seg_id])
    table = score_table(sub, list(q.metrics), level="segment", include_references=True, tokenize=q.tokenize)
    wide = table.pivot_table(index="system", columns="metric", values="score", sort=False).reset_index()
    wide.insert(1, "kind", ["reference (vs the others)" if sub.is_reference(s) else "system" for s in wide["system"]])
    return wide[["system", "kind"] + [m for m in q.metrics if m in wide]]


def wide_table(dataset: Dataset, q: Query) -> pd.DataFrame:
    return dataset.wide_table()


def length_table(dataset: Dataset, q: Query) -> pd.DataFrame:
    return dataset.length_table()



# ---------------------------------------------------------------- shared sections (pages/common.py)
@dataclass(frozen=True)
class MetricsQuery(Query):
    metrics: tuple[str, ...] = ()


def long_segment_notes(dataset: Dataset, q: MetricsQuery) -> list[str]:
    """Which segments the alignment metrics of ``q.metrics`` refuse (in the tokens of ``q.tokenize``)."""
    from ..metrics.base import get_metric
    from ..metrics.engine import long_segment_warnings

    return long_segment_warnings(dataset, [get_metric(m, q.tokenize) for m in q.metrics])


def system_ranking(dataset: Dataset, q: CriterionQuery):
    """(table, bars, p-value heatmap) of the WMT24 system ranking of ``q.criterion`` with test
    ``q.option`` (:func:`evalcore.views.metatask.system_ranking_figures`)."""
    from .metatask import system_ranking_figures

    return system_ranking_figures(dataset, q.criterion, q.option or "wilcoxon")


__all__ = ["Query", "check_query", "query_key", "dataset_query", "check_data", "replace",
           "HumanLikenessQuery", "human_likeness_rows", "human_likeness_cases", "human_likeness_figure",
           "QueenVsHumanQuery", "queen_points", "greedy_metric_set", "queen_figure",
           "LikenessQuery", "likeness_points", "likeness_search", "likeness_figure", "search_trace_figure",
           "SystemsQuery", "systems_table", "systems_wide", "systems_bars", "systems_ranks", "systems_agreement",
           "systems_agreement_figure", "systems_schulze", "MetricsVsHumansQuery", "metrics_vs_humans",
           "CriterionQuery", "judges_consensus", "judges_overview", "rater_distributions", "rater_distributions_figure",
           "agreement_pa_figure", "agreement_kappa_figure", "agreement_curve_figure", "hter_table",
           "ExpertsQuery", "expert_labels", "experts_vs_gold", "experts_vs_gold_figure", "experts_curves",
           "experts_curves_figure", "experts_metric_scores", "experts_rankings", "experts_rankings_figure",
           "ReferencesQuery", "reference_loo", "detect_mt", "ComprehensionQuery", "comprehension_results",
           "comprehension_correlations", "collection_key", "MetataskQuery", "metatask_result",
           "metatask_leaderboard_figure", "metatask_cis", "metatask_values_figure", "CampaignQuery",
           "campaign_result", "campaign_human_figure", "campaign_correlation_figure", "campaign_clusters",
           "campaign_signatures", "DivergenceQuery", "divergence_base", "divergence_metric", "divergence_queen",
           "divergence_human_figure", "divergence_ranked", "divergence_scatter", "divergence_detail", "SpansQuery",
           "output_layers", "span_profile", "span_profile_figure", "span_penalties", "CompareQuery", "compare_start",
           "compare_add_metric", "compare_lengths", "compare_table", "compare_win_figure", "compare_scatter",
           "compare_differences", "compare_side_by_side", "compare_bucket_figure", "compare_word_f_figure",
           "compare_length_bias_figure", "LearnQuery", "learn_lessons", "learn_paraphrase_example",
           "learn_two_verdicts", "learn_span_lesson", "SegmentScoresQuery", "segment_scores_of", "wide_table",
           "length_table", "MetricsQuery", "long_segment_notes", "system_ranking"]
