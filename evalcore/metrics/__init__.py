"""Metric engine: registered metrics, per-segment statistics and pairwise similarity tensors."""
from .base import Metric, MetricMeta, MetricOption, SimTensors, get_metric, metric_ids, register

__all__ = ["Metric", "MetricMeta", "MetricOption", "SimTensors", "get_metric", "metric_ids", "register"]
