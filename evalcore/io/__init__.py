"""Loading datasets: tidy TSV folders, plain text, Google MQM TSV, mt-metrics-eval layout.

``load_collection(path_or_source)`` -> {lp: Dataset}; ``load_dataset(path, lp=None)`` -> Dataset.
Every format module defines ``NAME``, ``detect(src) -> bool`` and
``read(src, name, report) -> {lp: Dataset}``; they are tried in the order of ``FORMATS``.
All problems are collected and raised together as :class:`~evalcore.core.problems.DataError`.
"""
from __future__ import annotations

import contextlib
import contextvars
import importlib
import os
from collections.abc import Mapping
from pathlib import Path

from ..core.dataset import Dataset
from ..core.problems import DataError, Report
from .source import FileSource
from .tidy import write_tidy

FORMATS = ["mtme", "mqm", "plaintext", "tidy"]

MQMWeightsArg = Mapping[str, float] | str | None
_MQM_WEIGHTS: contextvars.ContextVar = contextvars.ContextVar("evalcore_mqm_weights", default=None)


@contextlib.contextmanager
def mqm_weights_in_force(weights: MQMWeightsArg):
    """Within the block, loaders score MQM error rows with ``weights`` unless given their own
    (the CLI's ``--mqm-weights`` for every command). None = the defaults of methods §0."""
    token = _MQM_WEIGHTS.set(weights)
    try:
        yield
    finally:
        _MQM_WEIGHTS.reset(token)


def _format_module(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def detect_format(src: FileSource) -> str | None:
    for fmt in FORMATS:
        try:
            mod = _format_module(fmt)
        except ImportError:
            continue
        if mod.detect(src):
            return fmt
    return None


def current_mqm_weights() -> MQMWeightsArg:
    """The weights set by :func:`mqm_weights_in_force` (None = the defaults)."""
    return _MQM_WEIGHTS.get()


def load_collection(path: str | os.PathLike | FileSource, name: str | None = None,
                    fmt: str | None = None, mqm_weights: MQMWeightsArg = None,
                    quoting: str | None = None) -> dict[str, Dataset]:
    """Every language pair of a dataset. ``mqm_weights``: MQM error rows (a Google MQM TSV, or
    a tidy folder's ``mqm_annotations.tsv``) are scored with these weights (see
    :func:`evalcore.human.mqm.resolve_mqm_weights`; default methods §0, or those of
    :func:`mqm_weights_in_force`); with weights, stored ``mqm`` judgements of a dataset with error
    rows are recomputed from the rows. ``quoting`` ("csv" or "none") says how TSV fields are
    read (see :mod:`evalcore.io.text`); default: :data:`~evalcore.io.text.QUOTING`."""
    if quoting is not None:
        from .text import QUOTING, QUOTING_MODES

        if quoting not in QUOTING_MODES:
            raise ValueError(f"quoting must be one of {', '.join(QUOTING_MODES)}, not {quoting!r}")
        token = QUOTING.set(quoting)
        try:
            return load_collection(path, name, fmt, mqm_weights)
        finally:
            QUOTING.reset(token)
    if mqm_weights is None:
        mqm_weights = _MQM_WEIGHTS.get()
    src = path if isinstance(path, FileSource) else FileSource.from_path(path)
    name = name or Path(src.label).name.removesuffix(".zip")
    fmt = fmt or detect_format(src)
    if fmt is None:
        report = Report()
        report.error(src.label, None, "no known layout found: expected a tidy TSV folder (segments.tsv, ...), "
                                      "plain text files (src.txt, ref.<name>.txt, sys.<name>.txt), a Google MQM "
                                      "TSV, or an mt-metrics-eval folder (sources/, references/, system-outputs/). "
                                      f"Files seen: {', '.join(src.names()[:10]) or 'none'}")
        raise DataError(report)
    mod = _format_module(fmt)
    if fmt == "mqm":
        return _compacted(mod.read(src, name, Report(), weights=mqm_weights))
    coll = _compacted(mod.read(src, name, Report()))
    if mqm_weights is not None:
        from ..human.mqm import rescore_mqm
        from ..core.problems import Problem

        coll = {lp: rescore_mqm(ds, mqm_weights) for lp, ds in coll.items()}
        for ds in coll.values():
            if ds.extras.get("mqm_errors") is None:  # say that the weights changed nothing
                ds.warnings.append(Problem("warning", src.label, None, "MQM weights were given, but this dataset "
                                           "has no MQM error rows: its scores are used as stored"))
    return coll


def _compacted(coll: dict[str, Dataset]) -> dict[str, Dataset]:
    """Every data set with its texts re-created together (:meth:`Dataset.compact_texts`), once
    the loader's row-by-row parse is gone."""
    for ds in coll.values():
        ds.compact_texts()
    return coll


def load_dataset(path: str | os.PathLike | FileSource, lp: str | None = None, name: str | None = None,
                 fmt: str | None = None, mqm_weights: MQMWeightsArg = None,
                 quoting: str | None = None) -> Dataset:
    """Load one language pair. With several pairs in the files, ``lp`` must name one."""
    coll = load_collection(path, name=name, fmt=fmt, mqm_weights=mqm_weights, quoting=quoting)
    if lp is None:
        if len(coll) == 1:
            return next(iter(coll.values()))
        raise ValueError(f"the data holds several language pairs ({', '.join(coll)}); choose one with --lp")
    if lp not in coll:
        raise ValueError(f"language pair {lp!r} not found; available: {', '.join(k or '-' for k in coll)}")
    return coll[lp]


__all__ = ["FileSource", "load_collection", "load_dataset", "write_tidy", "detect_format", "FORMATS",
           "mqm_weights_in_force"]
