"""``python -m evalcore export-mtme``: write a dataset in the mt-metrics-eval layout (docs/formats.md).

Every language pair (or ``--lp``) goes under ``OUT/<test-set>/``, with the human scores and,
with ``--metrics``, the metrics' segment and system scores, so that mt-metrics-eval's
``data.EvalSet(<test-set>, <lp>, path=OUT, info=...)`` reads them (:mod:`evalcore.io.mtme_export`).
Renamings (MTME's naming rules) and systems left out are listed on stderr.
"""
from __future__ import annotations

import sys

NAME = "export-mtme"
HELP = "Write a dataset (and metric scores) in the mt-metrics-eval layout."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--out", required=True, help="root folder to write (OUT/<test-set>/...)")
    p.add_argument("--test-set", default="evalcore", help="test-set folder name (default evalcore)")
    p.add_argument("--lp", help="comma-separated language pairs (default: all)")
    p.add_argument("--metrics", help="comma-separated metric ids to score and write (both levels)")
    p.add_argument("--scores", help="bring-your-own scores TSV to write as metric scores too")
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def run(args) -> int:
    import pandas as pd

    from ..io import load_collection
    from ..io.mtme_export import export_mtme

    coll = load_collection(args.path)
    lps = [x.strip() for x in args.lp.split(",")] if args.lp else list(coll)
    missing = [x for x in lps if x not in coll]
    if missing:
        raise ValueError(f"language pair(s) {missing} not in {args.path}; it has {', '.join(coll)}")
    metrics = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    byo = None
    if args.scores:
        from ..metrics.byo import read_scores

        byo = read_scores(args.scores)
    for lp in lps:
        ds = coll[lp]
        frames = []
        if metrics:
            from ..metrics.base import get_metric
            from ..metrics.engine import score_table
            from . import _tok

            tok = _tok.resolve(args, ds, [get_metric(m) for m in metrics])
            frames += [score_table(ds, metrics, level=lv, tokenize=tok) for lv in ("segment", "system")]
        if byo is not None:
            b = byo[(byo["lp"] == lp) | (byo["lp"] == "")] if "lp" in byo.columns else byo
            frames.append(b[["metric", "system", "seg_id", "score"]])
        scores = pd.concat(frames, ignore_index=True) if frames else None
        for note in export_mtme(ds, args.out, args.test_set, scores):
            print(f"note: {lp}: {note}", file=sys.stderr)
        print(f"wrote {lp} to {args.out}/{args.test_set}", file=sys.stderr)
    return 0
