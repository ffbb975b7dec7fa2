"""Compare two systems page: its query and view-model (the maths: :mod:`evalcore.analysis.compare`)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress
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
    """Table ``q.table`` of the comparison (:func:`evalcore.analysis.compare.table`)."""
    from ..analysis.compare import table

    return table(comparison, q.table, q.n_boot, q.n_ar, q.test, 0.05, 50)


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
