"""``--device`` and ``--batch-size``, shared by the commands that run neural models (``score``,
``spans``; not a command itself): one set of names, defaults and messages.

The values are checked by :func:`evalcore.neural.configure` (``--batch-size must be at least
1``) and, before any data is read, by :meth:`evalcore.neural.NeuralMetric.check` (the device:
``--device 'gpu': use cpu, cuda, cuda:N or auto``, ``no CUDA GPU is visible…``).
"""
from __future__ import annotations


def add_run_arguments(group) -> None:
    """Add ``--device`` and ``--batch-size`` to ``group`` (a parser or an argument group)."""
    group.add_argument("--device", help="cpu, cuda or cuda:N (default: auto, a GPU when torch sees one)")
    group.add_argument("--batch-size", type=int, help="inputs per model batch (default 32; length-sorted batches)")


def run_settings(args) -> dict:
    """The ``configure`` keywords of :func:`add_run_arguments`'s options (None: the default)."""
    return {"device": getattr(args, "device", None), "batch_size": getattr(args, "batch_size", None)}
