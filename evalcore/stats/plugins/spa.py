"""Soft pairwise accuracy (SPA = 1 − PCE), the WMT24 system-level statistic (Thompson et al.
2024, §2; methods §3.13): a statistic of the registry that needs the (systems × segments)
matrices, registered here and found by :func:`evalcore.stats.registry._load_plugins`."""
from __future__ import annotations

from typing import Any

from ..registry import Statistic, register
from ..significance import one_minus_pce


def soft_pairwise_accuracy(gold: Any, metric: Any, num_permutations: int = 1000, seed: int = 4) -> float:
    """SPA = 1 − PCE of complete (systems × segments) matrices (Thompson et al. 2024, §2; MTME
    ``stats.PairwiseConfidenceError``): per pair of systems the one-sided paired permutation
    p-value that the first beats the second, from the human and from the metric segment scores
    (the same ``num_permutations`` sign flips of each segment, drawn with ``seed``), and
    1 − mean |p_human − p_metric|. The registry's ``spa`` (``correlate --method spa``) hands it
    the segments judged for every system, in C order as MTME's reshape gives: the float32 matrix
    product sums in a layout-dependent order, and the p-values count exact ties
    (null delta >= observed delta)."""
    return one_minus_pce(gold, metric, num_permutations, seed)


register(Statistic(
    "spa", "soft pairwise accuracy (SPA)", levels=("system",), groupings=("none",), segment_matrices=True,
    matrix=soft_pairwise_accuracy, options=("num_permutations", "seed"),
    citation="Thompson et al. 2024, §2; MTME stats.PairwiseConfidenceError (1,000 permutations, seed 4)",
    section="§3.13", term="SPA",
    definition="Soft pairwise accuracy: 1 minus the mean gap between the human and the metric p-values that one "
               "system beats another, over all pairs of systems (Thompson et al. 2024; methods §3.13).",
    # MTME stats.PairwiseConfidenceError on the 4 columns judged for every system of the example
    example=(("none", 0.8046666666666666, "mt-metrics-eval stats.PairwiseConfidenceError"),)))
