"""``python -m evalcore calibrate``: what a metric difference means here (methods §25.1).

For every pair of systems within a language pair, the metric difference Δ and whether the human
system scores agree in direction; P(agree | |Δ|) as a logistic curve through 0.5 at Δ = 0 and an
isotonic curve beside it, with bootstrap CIs over systems, per metric and language pair and pooled
over the language pairs (``lp`` = ``all``). Tables: ``--out`` the curves (lp, metric, fit, delta,
agreement, lo, hi), ``--summary`` the Δ needed for 80 / 90 / 95 % agreement (metric, lp, delta_80,
delta_90, delta_95, n_pairs), ``--lopo-out`` the leave-one-pair-out calibration error (metric,
held_out, n_pairs, ece, ece_own_curve, log_loss); without a path a table goes to stdout under its
``# section`` line. ``--at D`` also prints "a chrF difference of D here means humans agree …".
"""
from __future__ import annotations

import sys

NAME = "calibrate"
STATES_SETTINGS = True  # its settings line, resolved on the data, goes to stderr from run()
HANDLES_ALL_LPS = True  # pooled over the language pairs itself (lp = all)
OUTPUTS = ("out", "summary", "lopo_out")
HELP = "What a metric difference means here: P(humans agree | delta) per metric and language pair, pooled."
#: the metrics calibrated when --metrics is not given (fast, character- and word-level)
CALIBRATE_METRICS = "chrf,bleu"


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--lp", help="comma-separated language pairs, or all (default: every pair of the data)")
    p.add_argument("--human", help="human criterion (default: adequacy, mqm, da, else the first one judged)")
    p.add_argument("--metrics", default=CALIBRATE_METRICS,
                   help=f"comma-separated metric ids (default {CALIBRATE_METRICS})")
    p.add_argument("--significant-only", action="store_true",
                   help="only the pairs of systems the humans separate significantly (rank's Wilcoxon + Stouffer "
                        "over domains at --alpha), as Kocmi et al. 2024 do")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples of the systems (default 1000)")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - CI level, and the significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--at", type=float, action="append", default=[], metavar="DELTA",
                   help="also say what a difference of DELTA means (repeatable), from each metric's curve")
    p.add_argument("--out", help="write the curves here (TSV; .csv writes CSV)")
    p.add_argument("--summary", help="write the summary (delta for 80/90/95 %% agreement) here")
    p.add_argument("--lopo-out", help="write the leave-one-pair-out calibration error here")
    from ..scoring.settings import add_cli_arguments

    add_cli_arguments(p)
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def run(args) -> int:
    from ..analysis.calibrate import POOLED, agreement_sentence, calibrate_datasets
    from ..core.export import write_table
    from ..core.progress import StderrProgress
    from ..io import load_collection
    from ..metrics.base import metric_ids
    from ..scoring.defaults import default_criterion
    from ..scoring.settings import from_args
    from . import _tok

    _tok.check(args)
    if args.bootstrap < 0:
        raise ValueError("--bootstrap must be 0 or more")
    if not 0 < args.alpha < 1:
        raise ValueError("--alpha must lie between 0 and 1")
    metrics = [m.strip().lower() for m in (args.metrics or "").split(",") if m.strip()]
    unknown = [m for m in metrics if m not in set(metric_ids())]
    if not metrics or unknown:
        raise ValueError(f"unknown metric(s) {unknown}" if unknown else "give --metrics")
    coll = load_collection(args.path, fmt=getattr(args, "fmt", None))
    if args.lp and args.lp != "all":
        want = [x.strip() for x in args.lp.split(",") if x.strip()]
        missing = [x for x in want if x not in coll]
        if missing:
            raise ValueError(f"language pair(s) {', '.join(missing)} not in the data (has: {', '.join(coll)})")
        coll = {k: coll[k] for k in want}
    datasets = list(coll.values())
    from ..metrics.byo import register_stored

    for ds in datasets:
        register_stored(ds)
    criterion = args.human or default_criterion(datasets[0])
    if not criterion:
        raise ValueError("the data has no human judgements: calibrate needs them")
    settings = from_args(args)
    print(f"settings: {settings.describe(datasets[0] if len(datasets) == 1 else None, criterion)}", file=sys.stderr)
    res = calibrate_datasets(datasets, metrics, criterion, settings, significant_only=args.significant_only,
                             alpha=args.alpha, n_boot=args.bootstrap, seed=args.seed,
                             progress=_fraction_progress(StderrProgress("calibrating")))
    tables = [("curves", res.curves, args.out), ("summary", res.summary, args.summary),
              ("leave-one-pair-out", res.lopo, args.lopo_out)]
    first = True
    for section, table, dest in tables:
        if dest:
            write_table(table, dest)
            print(f"wrote {len(table)} rows to {dest}", file=sys.stderr)
        else:
            sys.stdout.write(("" if first else "\n") + f"# {section}\n")
            table.to_csv(sys.stdout, sep="\t", index=False, float_format="%.6f")
            first = False
    for note in res.notes:
        print(f"note: {note}", file=sys.stderr)
    for delta in args.at:
        for (lp, metric), fit in res.fits.items():
            if lp == POOLED or len(coll) == 1:
                print(agreement_sentence(fit, delta), file=sys.stderr)
    return 0


def _fraction_progress(bar):
    """A (fraction, text) progress for :class:`~evalcore.core.progress.StderrProgress` (done, total)."""
    return lambda f, _text: bar(int(round(1000 * f)), 1000)
