"""The Campaign page's view-model: which language pairs are scored with which criterion and
tokenizer, their signatures and notes. The metric scores of every pair come from
:func:`evalcore.analysis.system_level.cached_scores`: the one statistics table per (dataset,
metric, tokenizer, reference set, segments) that the Systems page also uses
(:func:`evalcore.scoring.scores.system_stats`, cached on disk), so a Campaign visit after a
Systems visit (or a second Campaign visit) scores nothing again.

The maths is :func:`evalcore.analysis.campaign.campaign` (WMT metrics-task tables, Kocmi et al. 2021;
methods §3.3, §3.11). Nothing here imports streamlit.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from ..core.dataset import Dataset
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from .queries import Query


def lp_plan(collection: dict[str, Dataset], lps: Sequence[str], criterion: str | None = None,
            settings: Settings = DEFAULTS) -> list[tuple[str, str, str]]:
    """(lp, human criterion, tokenizer) of every language pair :func:`evalcore.analysis.campaign.campaign`
    scores: the criterion given or the pair's default, ``settings.tokenizer`` or sacreBLEU's default
    for the pair's target language (Post 2018); pairs without that criterion are left out (the
    campaign's notes say so)."""
    from ..metrics.tokenize import resolve_tokenizer
    from ..scoring.defaults import default_criterion

    out = []
    for lp in lps:
        ds = collection[lp]
        crit = criterion or default_criterion(ds)
        if crit is None or crit not in ds.criteria and not (crit == "mqm" and "mqm_errors" in ds.extras):
            continue
        if ds.systems and ds.ref_ids:
            out.append((lp, crit, resolve_tokenizer(settings.tokenizer, lp)[0]))
    return out


def signature_frame(collection: dict[str, Dataset], lps: Sequence[str], metric_ids: Sequence[str],
                    criterion: str | None = None) -> pd.DataFrame:
    """lp, metric, signature: each metric's sacreBLEU-style signature of system scores with the
    language pair's references per segment and the tokenizer it is scored with there
    (:func:`lp_plan`)."""
    from ..metrics.base import metric_signature
    from ..scoring.defaults import dataset_nrefs

    return pd.DataFrame([{"lp": lp, "metric": m,
                          "signature": metric_signature(m, dataset_nrefs(collection[lp]), "system", tokenize=tok)}
                         for lp, _, tok in lp_plan(collection, lps, criterion) for m in metric_ids],
                        columns=["lp", "metric", "signature"])


def undefined_notes(result) -> list[str]:
    """Why a language pair's correlation of a :func:`evalcore.analysis.campaign.campaign` result is empty
    or degenerate (zero variance, fewer than three systems: :mod:`evalcore.core.undefined`), from the
    very scores it was computed from (error rates negated, as the campaign correlates them)."""
    from ..metrics.base import get_metric
    from ..core.undefined import correlation_notes

    notes = []
    s = result.systems
    for r in result.correlations.itertuples(index=False):
        sub = s[s["lp"] == r.lp]
        if sub.empty:
            continue
        human = sub[sub["kind"] == "human"].set_index("system")["score"]
        metric = sub[sub["measure"] == r.metric].set_index("system")["score"]
        systems = [x for x in human.index if x in metric.index]
        sign = 1.0 if get_metric(r.metric).meta.higher_is_better else -1.0
        g = human.reindex(systems).to_numpy(float)
        m = metric.reindex(systems).to_numpy(float) * sign
        for n in correlation_notes(r.metric, "correlation", g, m, float(r.pearson)):
            notes.append(f"{r.lp or '-'}: {n}")
    return list(dict.fromkeys(notes))


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class CampaignQuery(Query):
    """Each pair's tokenizer is sacreBLEU's default for its target language (``settings.tokenizer``
    None); judged segments only and human translations in or out: ``settings``."""
    metrics: tuple[str, ...] = ()
    lps: tuple[str, ...] = ()
    criterion: str | None = None
    rank_by: str = "pearson"
    statistic: str = "pearson"
    test: str = "perm"
    cluster_lp: str | None = None
    signature: str = ""  # what the exported figure carries


def campaign_result(collection: dict, q: CampaignQuery):
    """:func:`evalcore.analysis.campaign.campaign` with the metric scores from the statistics the
    Systems page caches on disk per (dataset, metric, tokenizer, reference set, segments); the
    whole result kept on disk when the query names the collection and every metric is a
    built-in one (:func:`result_cacheable`): through the one disk cache
    (:func:`evalcore.scoring.scores.disk_cached`: the tables as Parquet, the rest as JSON, formats
    that run no code when read), keyed by the query (every language pair's content hash, the
    settings, every option) and the code's fingerprint, so a fresh server reads what an earlier
    process computed, e.g. a save (:func:`evalcore.views.precompute.precompute_statistics`,
    :func:`first_visit_query`). Values unchanged; an unreadable entry is computed again."""
    from ..analysis.campaign import campaign
    from ..analysis.system_level import cached_scores
    from ..scoring.scores import disk_cached

    def compute():
        return campaign(collection, list(q.metrics), q.criterion, lps=list(q.lps), settings=q.settings,
                        rank_by=q.rank_by, scorer=cached_scores)

    if not result_cacheable(collection, q):
        return compute()
    return _from_plain(disk_cached(RESULT_KIND, _result_key(q), lambda: _to_plain(compute())))


#: the disk cache's kind of a Campaign result (:func:`campaign_result`)
RESULT_KIND = "campaign"


def _result_key(q: CampaignQuery) -> tuple:
    from .queries import query_key

    return (query_key(q),)


def result_cacheable(collection: dict, q: CampaignQuery) -> bool:
    """Whether :func:`campaign_result` keeps its result on disk: ``q.dataset`` is the content
    hashes of ``collection``'s pairs ``q.lps`` (:func:`evalcore.views.queries.collection_key`) and
    every metric is a built-in one (a ``learned:`` model, given ``stored:`` scores or a neural
    metric's weights live outside the query and the code)."""
    from ..metrics.base import metric_ids
    from .queries import collection_key

    return (bool(q.lps) and all(lp in collection for lp in q.lps) and q.dataset == collection_key(collection, q.lps)
            and all(":" not in m for m in q.metrics) and set(q.metrics) <= set(metric_ids()))


def _to_plain(result) -> dict:
    """A :class:`evalcore.analysis.campaign.Campaign` as a result dict the disk cache holds."""
    return {"systems": result.systems, "correlations": result.correlations, "metric_ranks": result.metric_ranks,
            "notes": list(result.notes), "signature": result.signature,
            "higher_is_better": {str(k): bool(v) for k, v in result.higher_is_better.items()}}


def _from_plain(out: dict):
    """:func:`_to_plain` undone."""
    from ..analysis.campaign import Campaign

    return Campaign(out["systems"], out["correlations"], out["metric_ranks"], list(out["notes"]), out["signature"],
                    dict(out["higher_is_better"]))


def stored_result(q: CampaignQuery):
    """The result :func:`campaign_result` returns for ``q`` when the disk cache already holds it
    (written by any earlier process, e.g. a save), else None. Computes nothing: the page asks it
    whether a first visit can draw the full tables straight away instead of one metric at a time."""
    from ..scoring.scores import stored

    got = stored(RESULT_KIND, _result_key(q))
    return _from_plain(got) if isinstance(got, dict) else None


def is_stored(q: CampaignQuery) -> bool:
    """Whether the disk cache holds the result of ``q`` (:func:`stored_result` without reading
    it: its JSON, written last, says the entry is whole). The page asks it once per query whether
    a first visit can draw the full tables straight away; a kept entry that no longer reads back
    is simply computed again."""
    from ..scoring.scores import has

    return has(RESULT_KIND, _result_key(q))


#: The metrics a first visit of the Campaign page scores (the fast two of sacreBLEU's, Post 2018).
PAGE_METRICS = ("bleu", "chrf")


def first_visit_query(collection: dict, settings: Settings = DEFAULTS) -> CampaignQuery | None:
    """The query of the Campaign page's tables on a first visit with every control at its
    default: every language pair with human judgements, each pair's default criterion, the
    registered :data:`PAGE_METRICS`, judged segments only and human translations as
    ``settings`` says (the shared defaults: judged only, left out), ranked by Pearson. None
    when no pair is judged or no metric is registered."""
    from ..human.scores import human_criteria
    from ..metrics.base import metric_ids
    from .queries import collection_key

    lps = tuple(lp for lp, ds in collection.items() if human_criteria(ds))
    metrics = tuple(m for m in PAGE_METRICS if m in metric_ids())
    if not lps or not metrics:
        return None
    s = DEFAULTS.with_(judged_only=settings.judged_only,
                       human_systems="include" if settings.include_human_systems else "exclude")
    return CampaignQuery(collection_key(collection, lps), s, metrics, lps, None, "pearson")


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
    return signature_frame(collection, list(q.lps), list(q.metrics), q.criterion)


def campaign_verdict(result, q: CampaignQuery):
    """"Which metric is best" over the chosen language pairs (:func:`evalcore.analysis.verdict.
    best_metric`): the highest ``q.rank_by`` of the pooled row (Pearson and Kendall averaged over
    the pairs, accuracy over the pooled pairs of systems); each pair's own best metric is an
    alternative. None when no metric has a value."""
    from ..analysis.campaign import ALL
    from ..analysis.verdict import best_metric

    corr = result.correlations
    pooled = corr[corr["lp"] == ALL][["metric", q.rank_by]].rename(columns={q.rank_by: "value"})
    if pooled.empty or pooled["value"].dropna().empty:
        return None
    alts = {}
    for lp in [x for x in dict.fromkeys(corr["lp"]) if x != ALL]:
        one = corr[corr["lp"] == lp].set_index("metric")[q.rank_by].astype(float)
        alts[f"{lp} alone"] = (one, "one language pair, not all of them")
    return best_metric(pooled, f"system-level {q.rank_by} over {len(alts) or 1} language pair(s)",
                       recipe=f"the Campaign table, rank by {q.rank_by} (row {ALL})", alternatives=alts)
