"""References & comprehension page (Callison-Burch 2009; methods §5.11-§5.12): its queries and view-model."""
from __future__ import annotations

from dataclasses import dataclass


from ..core.dataset import Dataset
from ..core.progress import Progress
from .queries import Query


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class ReferencesQuery(Query):
    metrics: tuple[str, ...] = ()
    n_boot: int = 0
    gap: float = 20.0
    share: float = 0.3


def reference_loo(dataset: Dataset, q: ReferencesQuery, progress: Progress = None):
    """Leave-one-out reference quality of ``q.metrics`` (:func:`evalcore.analysis.references.leave_one_out`)."""
    from ..analysis.references import leave_one_out

    return leave_one_out(dataset, list(q.metrics), n_boot=q.n_boot, progress=progress, settings=q.settings)


def detect_mt(dataset: Dataset, q: ReferencesQuery):
    """Detect MT with the one metric of ``q`` (:func:`evalcore.analysis.references.detect_mt`)."""
    from ..analysis.references import detect_mt as run

    return run(dataset, q.metrics[0], q.gap, q.share, settings=q.settings)


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
    return correlations(dataset, table, list(q.metrics), settings=q.settings)
