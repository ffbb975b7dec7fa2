"""``python -m evalcore references PATH --lp LP``: reference quality (Callison-Burch 2009, §5.1).

Each human translation scored against the other human translations (leave-one-out), MT
systems against the same reference sets, and the "Detect MT" check (a reference much closer
to one MT output than to the other references). See :mod:`evalcore.references`.
"""
from __future__ import annotations

import sys

NAME = "references"
OUTPUTS = ("out", "flags_out")  # checked before any work (evalcore.export.check_outputs)
HELP = ("Reference quality: each human translation against the others (leave-one-out), MT on the same "
        "scale, and references suspiciously close to an MT output (Callison-Burch 2009).")


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip (at least two reference sets)")
    p.add_argument("--lp", help="language pair, when the data holds several")
    p.add_argument("--metrics", default="bleu", help="comma-separated metric ids (default: bleu)")
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
    from ..views.common import metric_signature
    from ..export import write_table
    from ..io import load_dataset
    from ..metrics.base import get_metric
    from ..references import detect_mt, leave_one_out, loo_signature

    ids = [m.strip() for m in args.metrics.split(",") if m.strip()]
    for m in ids:
        get_metric(m)  # unknown ids fail before loading
    det = args.detect_metric or ids[0]
    get_metric(det)
    if args.bootstrap < 0:
        raise ValueError("--bootstrap must be 0 or more")
    ds = load_dataset(args.path, lp=args.lp)
    _, summary = leave_one_out(ds, ids, n_boot=args.bootstrap)
    summary["signature"] = summary["metric"].map(lambda m: loo_signature(m, len(ds.ref_ids)))
    note = summary.attrs["note"]
    segs, overall = (detect_mt(ds, det, args.gap, args.share) if ds.systems else (None, None))
    out = sys.stdout
    out.write("# leave-one-out: each human translation against the other reference sets; "
              "MT against the same sets (mean, sd, min, max over the held-out sets)\n")
    out.write(f"# {note}\n")
    summary.to_csv(out, sep="\t", index=False, float_format="%.4f")
    if overall is not None:
        out.write(f"\n# Detect MT: {overall.attrs['settings']}\n")
        overall.assign(signature=f"{metric_signature(det)}|nrefs:1").to_csv(out, sep="\t", index=False, float_format="%.4f")
        flagged = segs[segs["flagged"]]
        out.write(f"\n# {len(flagged)} flagged (segment, reference) pairs"
                  f"{'; the 10 largest gaps:' if len(flagged) else ''}\n")
        if len(flagged):
            flagged.sort_values("gap", ascending=False).head(10)[
                ["seg_id", "ref_id", "closest_system", "to_mt", "to_refs", "gap"]].to_csv(
                out, sep="\t", index=False, float_format="%.2f")
    else:
        out.write("\n# Detect MT skipped: the dataset has no MT outputs\n")
    if args.out:
        write_table(summary, args.out)
        print(f"wrote {len(summary)} rows to {args.out}", file=sys.stderr)
    if args.flags_out and segs is not None:
        write_table(segs.assign(signature=f"{metric_signature(det)}|nrefs:1"), args.flags_out)
        print(f"wrote {len(segs)} rows to {args.flags_out}", file=sys.stderr)
    return 0
