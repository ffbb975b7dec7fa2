"""Neural metrics (COMET, CometKiwi, xCOMET, MetricX, BLEURT, BERTScore-style matching,
sentence cosine): an optional extra. This package imports no torch: ids register cheaply and
a missing extra or model is a clear message when a metric first scores (methods §7.10).

``get_metric("comet:PATH")`` reaches :func:`ensure_registered` through the registry's provider
hook (:func:`evalcore.metrics.base.register_provider`); ``bertscore:minilm`` and
``cosine:minilm`` (the bundled all-MiniLM-L6-v2) are always listed.
"""
from __future__ import annotations

from ..metrics.base import _REGISTRY, register, register_provider
from .metric import KINDS, NeuralMetric, configure, settings  # noqa: F401
from .models import MissingExtra, MissingModel  # noqa: F401

PREFIXES = tuple(f"{k}:" for k in KINDS)
BUILTIN = ("bertscore:minilm", "cosine:minilm")


def ensure_registered(metric_id: str) -> bool:
    """Register ``KIND:MODEL`` (any MODEL: a missing model is reported when it first scores,
    with where it was looked for). The metric takes the settings current when it is made."""
    raw = metric_id.strip()
    kind, _, spec = raw.partition(":")
    kind = kind.lower()
    if kind not in KINDS or not spec.strip():
        return False
    key = raw.lower()
    if key not in _REGISTRY:
        register(key, lambda: NeuralMetric(kind, spec, key, settings()))
    return True


def register_all() -> list[str]:
    for mid in BUILTIN:
        ensure_registered(mid)
    return list(BUILTIN)


def metric_spans(dataset, metric_id: str, progress=None, outputs=None):
    """The error spans ``xcomet:MODEL`` predicts on every output of ``dataset``, as a
    metric-spans table (``evalcore.io.spans.METRIC_REQUIRED`` + confidence; ``no-error`` rows
    for outputs without a span); scored by the model like ``evalcore score`` scores it, or read
    from the neural cache, where the spans are stored beside the scores. ``outputs``: only these
    (system, seg_id) pairs."""
    from ..metrics.base import get_metric

    metric = get_metric(metric_id)
    if not isinstance(metric, NeuralMetric) or metric.kind != "xcomet":
        raise ValueError(f"{metric_id}: error spans come from xcomet:MODEL metrics only")
    return metric.dataset_spans(dataset, progress, outputs)


def release_models() -> None:
    """Free every loaded neural model (after a command's neural metric is written)."""
    import sys

    backend = sys.modules.get(__name__ + ".backend")
    if backend is not None:
        backend.release()


for _prefix in PREFIXES:
    register_provider(_prefix, ensure_registered, register_all)
