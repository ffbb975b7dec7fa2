"""``python -m evalcore correlate``: metric-vs-human correlations (spec §3, §4).

Output columns: metric, level, method, value, ci_low, ci_high, n.
"""
from __future__ import annotations

import sys

NAME = "correlate"
OUTPUTS = ("out",)  # checked before any work (evalcore.export.check_outputs)
HELP = "Correlate metric scores with human judgements (system or segment level, MTME semantics)."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip (tidy TSV, plain text, MQM TSV or mt-metrics-eval)")
    p.add_argument("--lp", help="language pair, when the data holds several")
    p.add_argument("--refs", help="comma-separated reference sets to score against (default: all); "
                                  "with --scores, selects the rows of that ref_id/refset")
    p.add_argument("--metrics", help="comma-separated metric ids (default with --scores: every metric in the file)")
    p.add_argument("--human", required=True, help="human criterion (e.g. mqm, da_z)")
    p.add_argument("--level", choices=["system", "segment"], default="system")
    p.add_argument("--method", default="pearson",
                   choices=["pearson", "spearman", "kendall", "tau_b", "tau_c", "tau_23", "acc23", "kendall_like", "darr"])
    p.add_argument("--group", choices=["none", "item", "sys"], default=None,
                   help="segment-level grouping (default none; item for darr)")
    p.add_argument("--tie-calibration", action="store_true", help="acc23/tau_23: optimise the metric tie threshold")
    p.add_argument("--threshold", type=float, default=25.0, help="kendall_like/darr gold difference threshold (>=)")
    p.add_argument("--include-human-systems", action="store_true",
                   help="keep human translations judged like systems (reference sets / Human-*) in the correlation")
    p.add_argument("--exclude", default="", help="comma-separated systems to leave out (e.g. outliers)")
    p.add_argument("--normalisation", choices=["raw", "z", "percentile"], default="raw")
    p.add_argument("--aggregate", choices=["mean", "median", "weighted"], default="mean")
    p.add_argument("--scores", help="bring-your-own scores TSV (metric, system, seg_id, score[, ref_id][, lp])")
    p.add_argument("--bootstrap", type=int, default=0, help="percentile bootstrap CI with N draws (0: none)")
    p.add_argument("--bootstrap-over", choices=["items", "systems", "both"], default=None,
                   help="what to resample (default: systems at system level, both at segment level)")
    p.add_argument("--fisher", action="store_true", help="Fisher z CI when not bootstrapping")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="write the table as TSV here instead of stdout (a .csv name writes CSV for spreadsheets)")


def _byo_scores(path, dataset, refs, metrics, level):
    import pandas as pd

    from ..metrics.byo import read_scores

    s = read_scores(path)
    if "lp" in s.columns:
        s = s[(s["lp"] == "") | (s["lp"] == dataset.lp)]
    if "ref_id" in s.columns:
        if refs and len(refs) == 1:
            s = s[s["ref_id"] == refs[0]]
        else:
            s = s[s["ref_id"] == ""]
    if metrics:
        want = {m.lower() for m in metrics}
        s = s[s["metric"].str.lower().isin(want)]
    if level == "segment":
        s = s[s["seg_id"] != ""]
    return s[["metric", "system", "seg_id", "score"]].reset_index(drop=True) if len(s) else pd.DataFrame(
        columns=["metric", "system", "seg_id", "score"])


def run(args) -> int:
    import pandas as pd

    from ..io import load_dataset
    from ..judges import human_scores
    from ..stats.tables import correlation_table, human_systems

    ds = load_dataset(args.path, lp=args.lp)
    refs = [r.strip() for r in args.refs.split(",") if r.strip()] if args.refs else None
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else []
    if not metrics and not args.scores:
        raise ValueError("give --metrics and/or --scores")
    human = human_scores(ds, args.human, normalisation=args.normalisation, aggregate=args.aggregate)
    humans = human_systems(ds, list(dict.fromkeys(human["system"])))
    frames = []
    if args.scores:
        frames.append(_byo_scores(args.scores, ds, refs, metrics, args.level))
    builtin = []
    if metrics:
        from ..metrics.base import metric_ids

        known = set(metric_ids())
        have = set(frames[0]["metric"].str.lower()) if frames else set()
        builtin = [m for m in metrics if m.lower() in known and m.lower() not in have]
        unknown = [m for m in metrics if m.lower() not in known and m.lower() not in have]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}")
    if builtin:
        from ..metrics.engine import score_table

        table = score_table(ds, builtin, level=args.level, ref_ids=refs,
                            include_references=args.include_human_systems)
        for w in table.attrs.get("warnings", []):
            print(f"warning: {w}", file=sys.stderr)
        frames.append(table)
    scores = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["metric", "system", "seg_id", "score"])
    if scores.empty:
        raise ValueError("no metric scores to correlate")
    exclude = [s.strip() for s in args.exclude.split(",") if s.strip()]
    if not args.include_human_systems:
        exclude += humans
    elif refs:
        exclude += [r for r in refs]  # a reference in use cannot be scored against itself (spec §3.3)
    grouping = args.group or ("item" if args.method == "darr" else "none")
    kw = {}
    if args.method in ("kendall_like", "darr"):
        kw["thresh"] = args.threshold
    if args.tie_calibration:
        kw["tie_calibration"] = True
    table = correlation_table(human, scores, level=args.level, method=args.method, grouping=grouping,
                              exclude_systems=exclude, bootstrap=args.bootstrap, resample=args.bootstrap_over,
                              alpha=args.alpha, seed=args.seed, fisher=args.fisher, **kw)
    if args.out:
        from ..export import write_table

        write_table(table, args.out)
        print(f"wrote {len(table)} row(s) to {args.out}", file=sys.stderr)
    else:
        table.to_csv(sys.stdout, sep="\t", index=False, float_format="%.6f")
    return 0
