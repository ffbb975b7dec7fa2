"""``python -m evalcore score PATH --metrics bleu,chrf,ter --level segment|system``: tidy metric scores.

Writes a TSV with the columns metric, system, seg_id, score (seg_id empty at system level) to
``--out`` or stdout. ``--refs A,C`` restricts (and orders) the reference sets;
``--include-references`` also scores every reference set against the other sets;
``--scores FILE.tsv`` registers external scores first (bring your own, see
:mod:`evalcore.metrics.byo`), so their metric names can be listed in ``--metrics``;
``--list-metrics`` prints every registered id with its signature. Progress goes to stderr.
"""
from __future__ import annotations

import sys

NAME = "score"
OUTPUTS = ("out",)  # checked before any work (evalcore.export.check_outputs)
HELP = "Score a dataset with registered metrics; write a tidy TSV (metric, system, seg_id, score)."


def add_arguments(p):
    p.add_argument("path", nargs="?", help="dataset: tidy TSV folder, plain-text folder, MQM TSV, mt-metrics-eval folder or zip")
    p.add_argument("--lp", help="language pair (needed when the data holds several)")
    p.add_argument("--metrics", default="bleu,chrf,ter", help="comma-separated metric ids (default: bleu,chrf,ter)")
    p.add_argument("--level", choices=["segment", "system"], default="segment")
    p.add_argument("--refs", help="comma-separated reference sets to use, in this order (default: all)")
    p.add_argument("--include-references", action="store_true",
                   help="also score each reference set as a system against the other reference sets")
    p.add_argument("--out", help="output TSV (default: stdout; a .csv name writes CSV for spreadsheets)")
    p.add_argument("--scores", action="append", default=[],
                   help="external scores TSV (metric, system, seg_id, score[, ref_id][, lp]); repeatable")
    p.add_argument("--list-metrics", action="store_true", help="list metric ids with their signatures and exit")




def run(args) -> int:
    from ..progress import StderrProgress
    from ..metrics.base import get_metric, metric_ids
    from ..metrics.byo import read_scores, register_scores

    for f in args.scores:
        register_scores(read_scores(f), source=f)
    if args.list_metrics:
        for mid in metric_ids():
            try:
                m = get_metric(mid)
                print(f"{mid}\t{m.meta.family}\t{m.signature()}")
            except Exception as exc:  # a broken metric module must not hide the others
                print(f"{mid}\t?\t(unavailable: {exc})")
        return 0
    if not args.path:
        raise ValueError("PATH is required (or use --list-metrics)")
    from ..io import load_dataset
    from ..metrics.engine import score_table

    ids = [m.strip() for m in args.metrics.split(",") if m.strip()]
    metrics = [get_metric(m) for m in ids]  # unknown ids fail here, before loading
    ds = load_dataset(args.path, lp=args.lp)
    for w in ds.warnings:  # the loader's warnings: data kept, but the user must know
        print(w, file=sys.stderr)
    refs = [r.strip() for r in args.refs.split(",") if r.strip()] if args.refs else None
    text_metrics = [m.meta.id for m in metrics if m.meta.needs_text]
    if text_metrics and not ds.ref_ids:
        raise ValueError(f"{args.path}: the data has no reference translations (no references.tsv rows / "
                         f"ref.<name>.txt files), so {', '.join(text_metrics)} cannot be computed; add references, "
                         "or give metric scores with --scores")
    table = score_table(ds, metrics, level=args.level, ref_ids=refs,
                        include_references=args.include_references, progress=StderrProgress("scoring"))
    for w in table.attrs.get("warnings", []):
        print(f"warning: {w}", file=sys.stderr)
    if args.out:
        from ..export import write_table

        write_table(table, args.out)
        print(f"wrote {len(table)} rows to {args.out}", file=sys.stderr)
    else:
        table.to_csv(sys.stdout, sep="\t", index=False)
    return 0
