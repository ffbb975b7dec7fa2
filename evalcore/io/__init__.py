"""Loading datasets: tidy TSV folders, plain text, Google MQM TSV, mt-metrics-eval layout, WMT
human-evaluation JSONL.

``load_collection(path_or_source)`` -> {lp: Dataset}; ``load_dataset(path, lp=None)`` -> Dataset.
Every format module defines ``NAME``, ``detect(src) -> bool`` and
``read(src, name, report) -> {lp: Dataset}``; they are tried in the order of ``FORMATS``.
All problems are collected and raised together as :class:`~evalcore.core.problems.DataError`.
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

from ..core.dataset import Dataset
from ..core.problems import DataError, Report
from .source import FileSource
from .tidy import write_tidy
from .weights import MQMWeightsArg, current_mqm_weights, mqm_weights_in_force

FORMATS = ["mtme", "mqm", "plaintext", "wmtjsonl", "tidy"]

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


def load_collection(path: str | os.PathLike | FileSource, name: str | None = None,
                    fmt: str | None = None, mqm_weights: MQMWeightsArg = None,
                    quoting: str | None = None, journals: bool = True) -> dict[str, Dataset]:
    """Every language pair of a dataset. ``mqm_weights``: MQM error rows (a Google MQM TSV, or
    a tidy folder's ``mqm_annotations.tsv``) are scored with these weights (see
    :func:`evalcore.human.mqm.resolve_mqm_weights`; default methods §0, or those of
    :func:`mqm_weights_in_force`); with weights, stored ``mqm`` judgements of a dataset with error
    rows are recomputed from the rows. ``quoting`` ("csv" or "none") says how TSV fields are
    read (see :mod:`evalcore.io.text`); default: :data:`~evalcore.io.text.QUOTING`.

    A tidy folder (or zip) that holds row journals — a saved dataset's folder given by path, with
    the Annotate page's saves since its last full save (:mod:`evalcore.io.journal`) — loads with
    their rows merged and a note on stderr saying how many (:func:`merge_journals`);
    ``journals=False`` gives the TSVs alone (:func:`evalcore.io.workspace.repair`, which merges
    them itself)."""
    if quoting is not None:
        from .text import QUOTING, QUOTING_MODES

        if quoting not in QUOTING_MODES:
            raise ValueError(f"quoting must be one of {', '.join(QUOTING_MODES)}, not {quoting!r}")
        token = QUOTING.set(quoting)
        try:
            return load_collection(path, name, fmt, mqm_weights, journals=journals)
        finally:
            QUOTING.reset(token)
    if mqm_weights is None:
        mqm_weights = current_mqm_weights()
    src = path if isinstance(path, FileSource) else FileSource.from_path(path)
    name = name or Path(src.label).name.removesuffix(".zip")
    fmt = fmt or detect_format(src)
    if fmt is None:
        from .mtme import read_root, test_sets

        sets = test_sets(src)
        if len(sets) == 1:  # an mt-metrics-eval-v2 root of one test set: that test set
            return _compacted(next(iter(read_root(src).values())))
        if sets:  # several test sets: one collection, keyed "<test set>/<lp>"
            return _compacted(root_collection(read_root(src)))
        report = Report()
        report.error(src.label, None, "no known layout found: expected a tidy TSV folder (segments.tsv, ...), "
                                      "plain text files (src.txt, ref.<name>.txt, sys.<name>.txt), a Google MQM "
                                      "TSV, an mt-metrics-eval folder (sources/, references/, system-outputs/), or a WMT "
                                      "human-evaluation JSONL file (*.jsonl). "
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
    if fmt == "tidy" and journals:
        coll = merge_journals(coll, src, name)
    return coll


def merge_journals(coll: dict[str, Dataset], src: FileSource, name: str = "") -> dict[str, Dataset]:
    """``coll`` (the tidy tables of ``src``) with the rows of the row journals among ``src``'s
    top-level files merged (:func:`evalcore.io.journal.merge`, in ``seq`` order, as
    :func:`evalcore.io.workspace.load_saved` does): without them a saved dataset's folder read by
    path would silently miss the Annotate page's saves since its last full save. Prints a note
    on stderr when there were some; :class:`DataError` naming the file and line of a bad journal
    line, or a record for a language pair the data lacks."""
    from . import journal

    files = {n: src.read(n) for n in sorted(src.names()) if "/" not in n and journal.is_journal(n)}
    if not files:
        return coll
    records = journal.parse(files)
    merged = journal.merge(coll, records, repr(name or src.label))
    print(f"note: {len(records)} saved row record(s) of {len(files)} rater journal file(s) merged (the Annotate "
          "page's saves since the dataset's last full save)", file=sys.stderr)
    return merged


def load_test_set(path: str | os.PathLike | FileSource, test_set: str | None = None, lps=None,
                  prefer: str | None = None) -> tuple[str, dict[str, Dataset]]:
    """One test set of an mt-metrics-eval-v2 root (``<test set>/sources/<lp>.txt``, several test
    sets side by side), read by the one-test-set reader: ``test_set``, else ``prefer`` when the
    root has it (a task's own test set), else the root's only one; ``lps``: only these pairs.
    Any other data (one test set, tidy, ...) is loaded as :func:`load_collection` does, under
    the name ``""``. Returns (test set, {lp: Dataset})."""
    from .mtme import read_root, test_sets

    src = path if isinstance(path, FileSource) else FileSource.from_path(path)
    sets = test_sets(src)
    if not sets or detect_format(src) is not None:
        if test_set:
            raise ValueError(f"--test-set {test_set}: {src.label} is not an mt-metrics-eval-v2 root "
                             "(no <test set>/sources/<lp>.txt)")
        return "", load_collection(src)
    if test_set is None:
        if prefer in sets:
            test_set = prefer
        elif len(sets) == 1:
            test_set = next(iter(sets))
        else:
            held = "; ".join(f"{t}: {', '.join(v)}" for t, v in sets.items())
            raise ValueError(f"{src.label} holds several test sets ({held}); choose one with --test-set")
    if test_set not in sets:
        raise ValueError(f"test set {test_set!r} not in {src.label}; it holds {', '.join(sets)}")
    if lps is not None:
        lps = [lp for lp in lps if lp in sets[test_set]] or None  # (unknown pairs: the caller's message)
    return test_set, _compacted(read_root(src, [test_set], lps)[test_set])


#: the separator of a collection key "<test set>/<lp>" (a root of several test sets)
TEST_SET_SEP = "/"


def root_collection(sets: dict[str, dict[str, Dataset]]) -> dict[str, Dataset]:
    """The test sets of an mt-metrics-eval-v2 root ({test set: {lp: Dataset}}, as
    :func:`evalcore.io.mtme.read_root` returns them) as one collection keyed
    ``"<test set>/<lp>"`` (e.g. ``wmt24/en-cs``); each Dataset keeps its ``lp`` and carries its
    test set as ``name``, so tables written per key get a ``test_set`` column
    (:func:`split_key`)."""
    return {f"{ts}{TEST_SET_SEP}{lp}": ds for ts, coll in sets.items() for lp, ds in coll.items()}


def split_key(key: str) -> tuple[str, str]:
    """(test set, lp) of a collection key: ``("wmt24", "en-cs")`` for ``"wmt24/en-cs"``,
    ``("", key)`` for a plain language pair."""
    ts, sep, lp = key.rpartition(TEST_SET_SEP)
    return (ts, lp) if sep else ("", key)


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
        # a root of several test sets: a bare language pair held by one test set only
        hits = [k for k in coll if split_key(k)[1] == lp and split_key(k)[0]]
        if len(hits) == 1:
            return coll[hits[0]]
        if hits:
            raise ValueError(f"language pair {lp!r} is in several test sets ({', '.join(hits)}); name one as "
                             "<test set>/<lp>")
        raise ValueError(f"language pair {lp!r} not found; available: {', '.join(k or '-' for k in coll)}")
    return coll[lp]


__all__ = ["FileSource", "load_collection", "load_dataset", "load_test_set", "write_tidy", "detect_format", "FORMATS",
           "merge_journals", "mqm_weights_in_force", "root_collection", "split_key"]
