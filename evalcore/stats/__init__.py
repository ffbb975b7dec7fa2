"""Correlation and significance statistics (methods §3-4). Pure numpy/pandas, no UI."""
from typing import Any

from .correlation import (CorrResult, GROUPINGS, calibrate_ties, correlation, grouped,
                          kendall_counts, kendall_like, kendall_variant, pairwise_accuracy, pivot_scores,
                          system_level)
from .significance import (bootstrap_ci, compare_metrics, fisher_ci, fisher_compare, one_minus_pce,
                           paired_approximate_randomization, paired_bootstrap, pairwise_permutation_pvalues,
                           perm_both, significance_clusters, williams_from_scores, williams_test)
from .tables import correlation_table, human_systems

__all__ = [
    "CorrResult", "METHODS", "GROUPINGS", "calibrate_ties", "correlation", "grouped", "kendall_counts",
    "kendall_like", "kendall_variant", "pairwise_accuracy", "pivot_scores", "system_level",
    "bootstrap_ci", "compare_metrics", "fisher_ci", "fisher_compare", "one_minus_pce",
    "paired_approximate_randomization", "paired_bootstrap", "pairwise_permutation_pvalues", "perm_both",
    "significance_clusters", "williams_from_scores", "williams_test", "correlation_table", "human_systems",
]


def __getattr__(name: str) -> Any:
    # METHODS: the statistics of the registry, listed when first asked for (after any plugin
    # module that registers one has been able to import this package)
    if name == "METHODS":
        from .registry import names

        return names()
    raise AttributeError(name)
