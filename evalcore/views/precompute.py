"""Statistics written when a dataset is saved, so that a fresh server's first page reads them.

A cold page on a dataset nobody has viewed since the server started spent 40–60 % of its CPU
computing per-segment BLEU/chrF/TER statistics (py-spy on wmt24_esa en-cs: Campaign, Metrics
task, Divergence; a fifth of Systems). The statistics store
(:mod:`evalcore.metrics._stats_store`) and the system-statistics disk cache
(:func:`evalcore.scoring.scores.system_stats`) keep them across processes once computed;
:func:`precompute_statistics` computes them once, right after a save (the Data page starts it
in the background), for the metrics a first visit of the Systems page scores
(:func:`evalcore.views.systems.first_metrics`, with the page's tokenizer: sacreBLEU's default
for the target language, Post 2018):

1. every language pair's every-segment table (every system against every reference, human
   translations not scored: the pages' default), through
   :func:`~evalcore.scoring.scores.system_stats` — the table the Systems, Campaign and
   Divergence pages and ``known_system_stats`` read, and the store entry of that item list;
2. for each criterion, the judged-segment item list (each system's segments judged under the
   criterion, as ``system_stats(judged_only=criterion)`` and the Metrics task page's scorer
   build it) is stored from the rows of 1. — rows do not depend on which other items are scored
   with them (:func:`~evalcore.metrics.engine.segment_stats_by_segment`), so the values are
   those a page would compute.

3. the Systems page's full table on a first visit with every control at its default
   (:func:`evalcore.views.systems.first_visit_query`: scores, bootstrap CIs and paired tests
   against the default baseline), through :func:`~evalcore.views.systems.systems_table`, whose
   disk cache keeps it: a fresh server's first visit reads it
   (:func:`~evalcore.views.systems.stored_systems_table`) and draws its first figure from it
   instead of scoring metric by metric and bootstrapping; and the page's *Metrics vs humans*
   section at its defaults (:func:`~evalcore.views.systems.first_visit_vs_humans_query`: the
   correlations' bootstrap CIs and the tests between metrics), kept on disk by
   :func:`~evalcore.views.systems.metrics_vs_humans` (benchmarks/history/RESULTS_syscold.md).

4. the Compare page's tables on a first visit with every control at its default
   (:func:`evalcore.views.compare.first_visit_tables`: A and B the first two systems,
   sacreBLEU's three metrics, every criterion; the headline with its paired tests, the
   per-segment table, buckets, word F-measure, characteristic n-grams, length ratios and
   length bias), kept on disk by :func:`~evalcore.views.compare.compare_table`: a fresh
   server's first visit reads them (:func:`~evalcore.views.compare.stored_table`) instead of
   drawing the scores first and computing each table (benchmarks/history/RESULTS_cold2.md);
5. for a collection, the Campaign page's tables on a first visit at its defaults
   (:func:`evalcore.views.campaign.first_visit_query`: every judged language pair, BLEU and
   chrF), kept on disk by :func:`~evalcore.views.campaign.campaign_result`: a fresh server's
   first visit reads the whole result (:func:`~evalcore.views.campaign.stored_result`) instead
   of scoring one (metric, language pair) at a time.

Nothing is computed twice: an entry already stored is left as it is. Values are unchanged
(a page reading a stored row or table reads what it would have computed).
"""
from __future__ import annotations

import threading
from dataclasses import replace
from typing import Mapping

import numpy as np

from ..core.dataset import Dataset
from ..scoring.settings import DEFAULTS, Settings

_RUNNING: set[tuple] = set()
_RUNNING_LOCK = threading.Lock()


def precompute_statistics(collection: Mapping[str, Dataset] | Dataset, settings: Settings = DEFAULTS) -> int:
    """Compute and store the statistics of the module docstring for every dataset of
    ``collection``; returns the number of (dataset, metric) tables written or found. A metric
    that fails is skipped (the page reports it when it scores)."""
    from ..metrics import _stats_store
    from ..metrics.base import get_metric
    from ..scoring.defaults import page_tokenizer
    from ..scoring.scores import system_stats
    from .systems import first_metrics

    datasets = [collection] if isinstance(collection, Dataset) else list(collection.values())
    done = 0
    for ds in datasets:
        if not ds.systems or not ds.ref_ids:
            continue
        tok = page_tokenizer(ds, settings.tokenizer)
        for m in first_metrics(ds)[0]:
            try:
                metric = get_metric(m, tok)
                if not _stats_store.storable(metric):
                    continue
                full = system_stats(ds, [m], tokenize=tok)[m]
            except Exception:  # noqa: BLE001 - the page that scores it says why
                continue
            done += 1
            if _stats_store.enabled():
                for crit in ds.criteria:
                    _store_judged(ds, metric, full, crit)
        _first_visit_table(ds, settings)
        _first_visit_compare(ds, settings)
    if not isinstance(collection, Dataset):
        _first_visit_campaign(dict(collection), settings)
    return done


def _first_visit_table(ds: Dataset, settings: Settings) -> None:
    """The Systems page's first-visit table and metrics-vs-humans section (module docstring, 3),
    kept by their disk caches."""
    from .systems import (first_visit_query, first_visit_vs_humans_query, metrics_vs_humans,
                          stored_systems_table, systems_table)

    q = first_visit_query(ds, settings)
    if q.metrics and stored_systems_table(ds, q) is None:
        try:
            systems_table(ds, q)
        except Exception:  # noqa: BLE001 - the page that computes it says why
            pass
    vq = first_visit_vs_humans_query(ds, settings)
    if vq is not None:
        try:
            metrics_vs_humans(ds, vq)  # (read back when already kept: nothing computed twice)
        except Exception:  # noqa: BLE001 - the page that computes it says why
            pass


def _first_visit_compare(ds: Dataset, settings: Settings) -> None:
    """The Compare page's first-visit tables (module docstring, 4), kept by their disk cache."""
    from .compare import compare_table, first_visit_comparison, first_visit_tables, is_stored, table_cacheable

    queries = first_visit_tables(ds, settings)
    if not queries or all(is_stored(q) for q in queries):  # (a file check each: nothing read)
        return
    try:
        cmp = first_visit_comparison(ds, queries[0])
        for q in queries:
            if table_cacheable(cmp, q):
                compare_table(cmp, q)  # (read back when already kept: nothing computed twice)
    except Exception:  # noqa: BLE001 - the page that computes it says why
        pass


def _first_visit_campaign(collection: dict[str, Dataset], settings: Settings) -> None:
    """The Campaign page's first-visit result (module docstring, 5), kept by its disk cache."""
    from .campaign import campaign_result, first_visit_query, is_stored

    q = first_visit_query(collection, settings)
    if q is None:
        return
    for one in (replace(q, metrics=()), q):  # the human scores the page draws first, then every table
        if not is_stored(one):
            try:
                campaign_result(collection, one)
            except Exception:  # noqa: BLE001 - the page that computes it says why
                pass


def _store_judged(ds: Dataset, metric, full: dict, criterion: str) -> None:
    """Store the rows of the judged-segment item list of ``criterion`` (module docstring, 2),
    taken from the every-segment rows ``full`` ({candidate: (seg_ids, rows)})."""
    from ..metrics import _stats_store
    from ..metrics.engine import _candidates, scorable
    from ..scoring.scores import judged_segments

    segments = judged_segments(ds, criterion)
    seg_ids = ds.seg_ids
    all_c: list[str] = []
    all_r: list = []
    rows = []
    for name, texts, use_refs in _candidates(ds, False, None):  # as system_stats' _stats_for
        if name not in segments:
            continue
        texts = [t if s in segments[name] else None for s, t in zip(seg_ids, texts)]
        keep, cands, refs = scorable(ds, texts, use_refs)
        if not cands:
            continue
        if name not in full:
            return
        have_ids, have = full[name]
        at = {s: i for i, s in enumerate(have_ids)}
        if any(s not in at for s in keep):
            return
        all_c += cands
        all_r += refs
        rows.append(have[[at[s] for s in keep]])
    if not all_c:
        return
    digest = _stats_store.texts_digest(all_c, all_r)
    if _stats_store.get(metric, digest, len(all_c)) is None:
        _stats_store.put(metric, digest, np.concatenate(rows))


def precompute_in_background(collection: Mapping[str, Dataset] | Dataset, settings: Settings = DEFAULTS,
                             name: str = "") -> threading.Thread | None:
    """:func:`precompute_statistics` in a daemon thread (one at a time per saved dataset name);
    returns the thread, or None when one is already running for ``name``."""
    key = (name, id(collection))
    with _RUNNING_LOCK:
        if name and any(k[0] == name for k in _RUNNING):
            return None
        _RUNNING.add(key)

    def work() -> None:
        try:
            precompute_statistics(collection, settings)
        except Exception:  # noqa: BLE001 - a background warm-up never breaks a save
            pass
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(key)

    t = threading.Thread(target=work, name=f"evalcore-precompute-{name}", daemon=True)
    t.start()
    return t
