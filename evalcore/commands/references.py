"""``python -m evalcore references PATH --lp LP``: reference quality (Callison-Burch 2009, §5.1).

Each human translation scored against the other human translations (leave-one-out), MT
systems against the same reference sets, and the "Detect MT" check (a reference much closer
to one MT output than to the other references). See :mod:`evalcore.analysis.references`.
"""
from __future__ import annotations

import sys

NAME = "references"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out", "flags_out")  # checked before any work (evalcore.core.export.check_outputs)
HELP = ("Reference quality: each human translation against the others (leave-one-out), MT on the same "
        "scale, and references suspiciously close to an MT output (Callison-Burch 2009).")


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip (at least two reference sets)")
    p.add_argument("--lp", help="language pair, when the data holds several ('all': each in turn)")
    p.add_argument("--metrics", default="bleu", help="comma-separated metric ids (default: bleu)")
    from . import _tok; _tok.add_argument(p)  # noqa: E702
    p.add_argument("--bootstrap", type=int, default=200,
                   help="bootstrap resamples over segments for the 95%% CIs (0 = none; default 200)")
    p.add_argument("--detect-metric", default=None,
                   help="metric for the Detect MT check (default: the first of --metrics)")
    p.add_argument("--gap", type=float, default=20.0,
                   help="flag a segment when its reference is at least this many points closer to one MT output "
                        "than to the other references (default 20)")
    p.add_argument("--share", type=float, default=0.3,
                   help="flag a reference set when at least this share of its segments is flagged (default 0.3, "
                        "the 30%% of Callison-Burch 2009)")
    p.add_argument("--out", help="write the leave-one-out summary TSV here")
    p.add_argument("--flags-out", help="write every segment's Detect MT evidence (texts side by side) TSV here")


def run(args) -> int:
    from ..metrics.base import get_metric
    from ..analysis.references import detect_mt, leave_one_out, loo_signature
    from ..scoring.defaults import metric_signature
    from ..scoring.settings import from_args
    from . import _tok
    from ._lp import dataset, emit

    ids = [m.strip() for m in args.metrics.split(",") if m.strip()]
    for m in ids:
        get_metric(m)  # unknown ids fail before loading
    det = args.detect_metric or ids[0]
    get_metric(det)
    if args.bootstrap < 0:
        raise ValueError("--bootstrap must be 0 or more")
    _tok.check(args)
    ds = dataset(args)
    # the tokenizer (--tokenize or the target language's default) of every metric of this run
    tok = _tok.resolve(args, ds, [get_metric(m) for m in dict.fromkeys(ids + [det])])
    settings = from_args(args, tokenizer=tok)
    loo = leave_one_out(ds, ids, n_boot=args.bootstrap, settings=settings)
    summary = loo.table
    summary["signature"] = summary["metric"].map(lambda m: loo_signature(m, len(ds.ref_ids), settings))
    detected = detect_mt(ds, det, args.gap, args.share, settings=settings) if ds.systems else None
    det_sig = metric_signature(det, 1, "segment", tok)  # single-reference sentence scores
    emit(summary, None, args, float_format="%.4f", notes=loo.notes,
         section="leave-one-out: each human translation against the other reference sets; MT against the same "
                 "sets (mean, sd, min, max over the held-out sets)")
    if args.out:
        emit(summary, args.out, args)
    if detected is None:
        print("note: Detect MT skipped: the dataset has no MT outputs", file=sys.stderr)
        return 0
    segs, overall = detected.detail, detected.table
    assert segs is not None  # detect_mt returns every segment's evidence
    flagged = segs[segs["flagged"]]
    emit(overall.assign(signature=det_sig), None, args, section=f"Detect MT: {detected.method}",
         float_format="%.4f", first=False, note=f"{len(flagged)} flagged (segment, reference) pairs")
    if len(flagged):
        emit(flagged.sort_values("gap", ascending=False).head(10)[
             ["seg_id", "ref_id", "closest_system", "to_mt", "to_refs", "gap"]], None, args,
             section="the 10 largest gaps of the flagged pairs (every segment's evidence: --flags-out)",
             float_format="%.2f", first=False)
    if args.flags_out:
        emit(segs.assign(signature=det_sig), args.flags_out, args)
    return 0
