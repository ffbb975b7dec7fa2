"""Shared plumbing of the ``qarla``, ``queen`` and ``search`` commands: common options,
dataset loading (optionally only the judged segments), ``--tokenize`` (default: sacreBLEU's
for the target language, stated on stderr) and similarity tensors via the engine."""
from __future__ import annotations

import sys

import pandas as pd

from ..scoring.settings import DEFAULTS, Settings, from_args


def add_data_arguments(p) -> None:
    p.add_argument("path", help="dataset: tidy TSV folder, plain-text folder, MQM TSV, mt-metrics-eval folder or zip")
    p.add_argument("--lp", help="language pair (needed when the data holds several; all: every pair in turn, tables get an lp column)")
    p.add_argument("--refs", help="comma-separated reference sets to use, in this order (default: all)")
    p.add_argument("--judged-only", action="store_true",
                   help="keep only segments with at least one human judgement (the QUEEN pool too)")
    from . import _tok; _tok.add_argument(p)  # noqa: E702


from ..core.progress import StderrProgress as Progress  # noqa: E402  (re-exported for the commands)


def split(s: str | None) -> list[str]:
    return [x.strip() for x in (s or "").split(",") if x.strip()]


def load_with_tensors(args, metrics: str | None, option: str):
    """The dataset of ``args`` and the similarity tensors of the comma-separated ``metrics``
    (``option`` names the flag in the error when the list is empty)."""
    ids = split(metrics)
    if not ids:
        raise ValueError(f"{option} is empty")
    from . import _tok
    from ..metrics.base import get_metric

    stored = [m for m in ids if m.lower().startswith("stored:")]  # known once the data is loaded
    chosen = [get_metric(m) for m in ids if m not in stored]  # unknown ids fail before loading
    _tok.check(args)
    ds = load(args)
    chosen += [get_metric(m) for m in stored]
    return ds, tensors(ds, ids, from_args(args, tokenizer=_tok.resolve(args, ds, chosen)),
                       scheduler=getattr(args, "_scheduler", None))


def load(args):
    from ..commands._lp import dataset

    ds = dataset(args)
    if args.refs:
        ds = ds.with_references(split(args.refs))
    if getattr(args, "judged_only", False):
        judged = pd.unique(ds.judgements["seg_id"].astype(str))
        if len(judged) == 0:
            raise ValueError("--judged-only: the dataset has no judgements")
        ds = ds.subset(seg_ids=judged)
    from ..core.capabilities import qarla_missing

    missing = qarla_missing(ds, judgements=False)
    if missing:  # each reference is held out in turn and scored against the others
        raise ValueError(f"QARLA (ORANGE, KING, QUEEN) needs {missing}")
    return ds


def tensors(ds, metric_ids: list[str], settings: Settings = DEFAULTS, scheduler=None) -> dict:
    """Similarity tensors in-process, or over segment blocks on ``scheduler`` (same values); the
    word-level metrics tokenize with ``settings.tokenizer``."""
    from ..metrics.base import get_metric
    from ..scoring.parallel import similarity_tensors_many

    tokenize = settings.tokenizer

    for m in metric_ids:
        get_metric(m)  # unknown ids fail before any computation
    from ..metrics.engine import long_segment_warnings

    for w in long_segment_warnings(ds, [get_metric(m, tokenize=tokenize) for m in metric_ids]):
        print(f"warning: {w}", file=sys.stderr)
    return similarity_tensors_many(ds, metric_ids, progress=Progress("similarities (segments)"), tokenize=tokenize,
                                   scheduler=scheduler)


def write(df: pd.DataFrame, out: str | None, args=None) -> None:
    """The table (with its ``lp`` column, see :mod:`evalcore.commands._lp`) to ``out`` (atomically;
    a ``.csv`` name: for spreadsheets) or stdout."""
    from ..commands._lp import emit

    emit(df, out, args)
