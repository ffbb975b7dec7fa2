"""Compare two systems page: its query and view-model (the maths: :mod:`evalcore.analysis.compare`)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress
from ..scoring.settings import DEFAULTS, Settings
from .fields import required
from .queries import Query


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class CompareQuery(Query):
    """``settings.tokenizer``: the page's own tokenizer box (lengths, n-grams and every word-level
    metric); ``settings.judged_only``: the page's judged-segments box."""
    a: str = ""
    b: str = ""
    metrics: tuple[str, ...] = ()
    criteria: tuple[str, ...] = ()
    normalisation: str = "raw"
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

    # judged segments only as the CLI without a flag: build falls back to every segment, saying
    # why, where nothing is judged for both systems
    return build(dataset, q.a, q.b, [], list(q.criteria), q.settings, normalisation=q.normalisation,
                 lengths=False)


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
    """Table ``q.table`` of the comparison (:func:`evalcore.analysis.compare.table`), kept on
    disk when ``comparison`` is the full comparison ``q`` names and every metric is a built-in
    one (:func:`table_cacheable`): through the one disk cache
    (:func:`evalcore.scoring.scores.disk_cached`, Parquet, keyed by the query — the dataset's
    content hash, the settings, both systems, every option — and the code's fingerprint), so a
    fresh server reads what an earlier process computed, e.g. a save
    (:func:`evalcore.views.precompute.precompute_statistics`, :func:`first_visit_tables`).
    Values unchanged; an unreadable entry is computed again."""
    from ..analysis.compare import table
    from ..scoring.scores import disk_cached

    def compute() -> pd.DataFrame:
        return table(comparison, q.table, q.n_boot, q.n_ar, q.test, 0.05, 50)

    if not table_cacheable(comparison, q):
        return compute()
    return disk_cached(TABLE_KIND, _table_key(q), compute)


#: the disk cache's kind of a Compare table (:func:`compare_table`)
TABLE_KIND = "cmptable"


def _table_key(q: CompareQuery) -> tuple:
    from .queries import query_key

    return (query_key(q),)


def table_cacheable(comparison, q: CompareQuery) -> bool:
    """Whether :func:`compare_table` keeps table ``q.table`` of ``comparison`` on disk: the
    comparison is the one ``q`` names (its dataset's content hash, A, B, metrics, criteria,
    normalisation and tokenizer; the token counts added: ``q.lengths``) and every metric is a
    built-in one (a ``learned:`` model, given scores or a neural metric's weights live outside
    the query and the code), so the key says everything the table depends on."""
    from ..analysis.compare import default_tokenizer
    from ..metrics.base import metric_ids

    return (q.lengths and "len_a" in comparison.segments and comparison.a == q.a and comparison.b == q.b
            and tuple(comparison.metrics) == q.metrics and tuple(comparison.criteria) == q.criteria
            and comparison.normalisation == q.normalisation
            and comparison.tokenize == (q.settings.tokenizer or default_tokenizer(comparison.dataset.lp)[0])
            and (q.settings.judged_only or not comparison.judged_only)
            and all(":" not in m for m in q.metrics) and set(q.metrics) <= set(metric_ids())
            and comparison.dataset.content_hash() == q.dataset)


def stored_table(q: CompareQuery) -> pd.DataFrame | None:
    """The table :func:`compare_table` returns for ``q`` when the disk cache already holds it
    (written by any earlier process, e.g. a save's :func:`evalcore.views.precompute.
    precompute_statistics`), else None. Computes nothing: the page asks it whether a first visit
    can draw the full headline straight away instead of its scores first."""
    from ..scoring.scores import stored

    got = stored(TABLE_KIND, _table_key(q))
    return got if isinstance(got, pd.DataFrame) else None


def is_stored(q: CompareQuery) -> bool:
    """Whether the disk cache holds table ``q`` (:func:`stored_table` without reading it: a file
    check). The page asks it once per query whether a first visit can draw the full headline
    straight away; a kept file that no longer reads back is simply computed again."""
    from ..scoring.scores import has

    return has(TABLE_KIND, _table_key(q))


#: The Compare page's defaults: paired bootstrap resamples, randomisation trials, the test that
#: decides the winner, and the metrics it starts with (sacreBLEU's three, Post 2018).
PAGE_N_BOOT = 1000
PAGE_N_AR = 1000
PAGE_TEST = "bootstrap"
PAGE_METRICS = ("bleu", "chrf", "ter")
#: The tables a first visit shows, in page order (the headline with the paired tests).
FIRST_TABLES = ("headline", "segments", "buckets", "word_f_by_frequency", "characteristic_ngrams", "length_ratios",
                "length_bias")


def default_compare_tokenizer(dataset: Dataset) -> str:
    """The page's tokenizer box at its default: sacreBLEU's default for the target language
    (Post 2018) when its package is installed, else the first installed one."""
    from ..analysis.compare import default_tokenizer
    from ..metrics.tokenize import installed_tokenizers

    tok0 = default_tokenizer(dataset.lp)[0]
    toks = installed_tokenizers()
    return tok0 if tok0 in toks else toks[0]


def first_visit_query(dataset: Dataset, settings: Settings = DEFAULTS) -> CompareQuery | None:
    """The query of the comparison (with its token counts) a first visit of the Compare page
    shows with every control at its default: A and B the first two systems, :data:`PAGE_METRICS`
    (those registered, when the data has references), every criterion, raw human scores, the
    page's tokenizer (:func:`default_compare_tokenizer`) and ``settings.judged_only`` (the shared default's
    judged segments only). None when the page would not compare (fewer than two systems, no
    signal)."""
    from ..scoring.defaults import available_metrics

    if len(dataset.systems) < 2:
        return None
    known = available_metrics(dataset) if dataset.ref_ids else []
    metrics = tuple(m for m in PAGE_METRICS if m in known)
    if not metrics and not dataset.criteria:
        return None
    s = DEFAULTS.with_(tokenizer=default_compare_tokenizer(dataset), judged_only=bool(settings.judged_only))
    return CompareQuery(dataset.content_hash(), s, dataset.systems[0], dataset.systems[1], metrics,
                        tuple(dataset.criteria), "raw", lengths=True)


def first_visit_tables(dataset: Dataset, settings: Settings = DEFAULTS) -> list[CompareQuery]:
    """The table queries (:func:`compare_table`) of a first visit (:func:`first_visit_query`), in
    page order: the headline with :data:`PAGE_N_BOOT` resamples, :data:`PAGE_N_AR` trials and
    :data:`PAGE_TEST`, then the other :data:`FIRST_TABLES`."""
    q = first_visit_query(dataset, settings)
    if q is None:
        return []
    return [replace(q, table=t, n_boot=PAGE_N_BOOT if t == "headline" else 0,
                    n_ar=PAGE_N_AR if t == "headline" else 0, test=PAGE_TEST) for t in FIRST_TABLES]


def first_visit_comparison(dataset: Dataset, q: CompareQuery):
    """The comparison of ``q`` (a :func:`first_visit_query`) built as the page builds it: the
    human comparison, one metric at a time, then the token counts (each step the page's view
    function, so the values are the page's)."""
    part = compare_start(dataset, replace(q, metrics=(), lengths=False))
    for i in range(1, len(q.metrics) + 1):
        part = compare_add_metric((dataset, part), replace(q, metrics=q.metrics[:i], lengths=False))
    return compare_lengths(part, q)


#: what the winner column and the win-rate figure say before the paired tests have run
PENDING = "test pending"


def compare_point_headline(comparison, q: CompareQuery) -> pd.DataFrame:
    """The headline's scores without its paired tests: what the page shows first, before any
    resampling (:func:`evalcore.analysis.compare.headline` with no bootstrap resamples and no
    randomisation trials: the same scores, differences and ``ahead``; the p-values empty and
    ``winner`` = :data:`PENDING`, never "no significant difference" for a test not yet run)."""
    head = compare_table(comparison, replace(q, table="headline", n_boot=0, n_ar=0))
    head["winner"] = PENDING
    return head


def compare_win_figure(comparison_and_headline: tuple, q: CompareQuery):
    """The win rates of every signal, each bar labelled with the headline's significant winner."""
    import numpy as np

    from ..analysis.compare import bucket_table
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    cmp, head = comparison_and_headline
    every = np.ones(len(cmp.segments), dtype=bool)
    return with_signature(PC.win_rates(bucket_table(cmp, [("all", every)], "all"), head, q.a, q.b), q.signature)


def compare_point_win_figure(comparison_and_headline: tuple, q: CompareQuery):
    """:func:`compare_win_figure` of a :func:`compare_point_headline` (the page's first figure,
    drawn before the paired tests): the label beside each bar says the test is pending."""
    fig = compare_win_figure(comparison_and_headline, q)
    for trace in fig.data:
        if trace.text is not None:  # the winner labels (one per signal)
            trace.text = [PENDING] * len(trace.y)
    return fig


def compare_scatter(segments: pd.DataFrame, q: CompareQuery):
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.scatter_ab(segments, required(q, "signal"), q.a, q.b), q.signature)


def compare_differences(segments: pd.DataFrame, q: CompareQuery):
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.difference_histogram(segments, required(q, "signal"), q.a, q.b), q.signature)


def compare_side_by_side(comparison, q: CompareQuery) -> dict:
    from ..analysis.compare import side_by_side

    return side_by_side(comparison, required(q, "seg_id"))


def compare_bucket_figure(shown: pd.DataFrame, q: CompareQuery):
    """The buckets of kind ``q.bucket_kind`` shown for signal ``q.signal``."""
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.bucket_bars(shown, required(q, "signal"), q.a, q.b), q.signature)


def compare_word_f_figure(word_f: pd.DataFrame, q: CompareQuery):
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.word_f_bars(word_f, q.a, q.b), q.signature)


def compare_length_bias_figure(bias: pd.DataFrame, q: CompareQuery):
    """Length bias controlling for ``q.criterion``."""
    from ..present import plots_compare as PC
    from ..present.plots import with_signature

    return with_signature(PC.length_bias_bars(bias), q.signature)
