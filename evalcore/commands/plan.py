"""``python -m evalcore plan``: how many judgements to buy (methods §25.2).

From pilot judgements: the variance components (segment, rater, system × segment), then the power
of the chosen ranking test at N judged segments per system, by simulated campaigns drawn from
the pilot: one row per pair of systems and N (system_a, system_b, delta, n, power, which:
``observed`` = the pair's own difference, ``set`` = ``--delta``, ``assurance`` = with
``--assurance``, the power averaged over the pilot's uncertainty about the difference), a summary (the N giving 80 %
power per pair), the expected number of significance clusters per N, and with ``--metrics`` how
many segments before two metrics' system-level correlations separate (Williams' test).
"""
from __future__ import annotations

import sys

NAME = "plan"
STATES_SETTINGS = True
LP_ALL = True
OUTPUTS = ("out", "summary", "clusters_out", "variance_out", "metrics_out")
HELP = "How many judgements to buy: power of the ranking test at N segments per system, from a pilot."


def add_arguments(p) -> None:
    from ..analysis.plan import DEFAULT_GRID, TESTS

    p.add_argument("path", help="dataset folder or zip with the pilot judgements")
    p.add_argument("--lp", help="language pair (needed when the data holds several; all: every pair in turn)")
    p.add_argument("--human", help="human criterion (default: adequacy, mqm, da, else the first one judged)")
    p.add_argument("--test", choices=TESTS, default=TESTS[0],
                   help="the ranking test simulated (default wilcoxon: rank's per-domain Wilcoxon with Stouffer; "
                        "bootstrap: rank --test bootstrap, slower; t-test: paired t-test)")
    p.add_argument("--n", default=",".join(str(n) for n in DEFAULT_GRID),
                   help="comma-separated numbers of judged segments per system to simulate (the pilot's own "
                        "number is added)")
    p.add_argument("--delta", type=float, help="also the power at this difference for every pair (human score units)")
    p.add_argument("--assurance", action="store_true",
                   help="also the assurance: the power averaged over the bootstrap distribution of each pair's "
                        "difference in the pilot (rows with which = assurance; O'Hagan et al. 2005)")
    p.add_argument("--resamples", type=int, default=200, help="simulated campaigns per N (default 200)")
    p.add_argument("--bootstrap-samples", type=int, default=200,
                   help="resamples of the paired bootstrap inside each campaign with --test bootstrap (default 200)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--metrics", help="comma-separated metric ids: also how many segments before every two of "
                                     "them separate (Williams' test on their system-level Pearson r)")
    p.add_argument("--out", help="write the power table here (TSV; .csv writes CSV)")
    p.add_argument("--summary", help="write the N for 80 %% power per pair here")
    p.add_argument("--clusters-out", help="write the expected number of clusters per N here")
    p.add_argument("--variance-out", help="write the variance components here")
    p.add_argument("--metrics-out", help="write the metric comparison power here (with --metrics)")
    from ..scoring.settings import add_cli_arguments

    add_cli_arguments(p)
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def _grid(text: str) -> list[int]:
    try:
        ns = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--n must be comma-separated whole numbers, not {text!r}") from None
    if not ns or min(ns) < 1:
        raise ValueError("--n needs numbers of segments of at least 1")
    return ns


def run(args) -> int:
    from ..analysis.plan import pilot_of, plan
    from ..core.progress import StderrProgress
    from ..scoring.defaults import default_criterion
    from ..scoring.settings import from_args
    from ._lp import dataset, emit

    if args.resamples < 1:
        raise ValueError("--resamples must be at least 1")
    if not 0 < args.alpha < 1:
        raise ValueError("--alpha must lie between 0 and 1")
    grid = _grid(args.n)
    ds = dataset(args)
    criterion = args.human or default_criterion(ds)
    if not criterion:
        raise ValueError("the data has no human judgements: plan needs a pilot")
    settings = from_args(args, human_systems="include")  # every judged system is ranked, as rank does
    print(f"settings: {settings.describe(ds, criterion)}", file=sys.stderr)
    pilot = pilot_of(ds, criterion)
    bar = StderrProgress("simulating")
    res = plan(pilot, grid, test=args.test, resamples=args.resamples, alpha=args.alpha, seed=args.seed,
               delta=args.delta, n_boot=args.bootstrap_samples, assurance=args.assurance,
               progress=lambda f, _t: bar(int(round(1000 * f)), 1000))
    sections = [("power", res.power, args.out), ("summary", res.summary, args.summary),
                ("clusters", res.clusters, args.clusters_out), ("variance components", res.variance,
                                                                args.variance_out)]
    if args.metrics:
        sections.append(("metrics", _metric_table(ds, pilot, criterion, settings, args, grid), args.metrics_out))
    first = True
    for k, (section, table, dest) in enumerate(sections):
        emit(table, dest, args, section=section, first=first, float_format=None if dest else "%.6f",
             notes=res.notes if k == 0 else ())
        first = first and bool(dest)
    return 0


def _metric_table(ds, pilot, criterion, settings, args, grid):
    """Power of every two metrics' Williams test (analysis.plan.metric_power) on the systems with
    text, metric scores over the pilot's segments, oriented by the shared settings."""
    import numpy as np

    from ..analysis.plan import metric_power, pilot_of
    from ..metrics.base import get_metric, metric_ids
    from ..scoring.parallel import score_table
    from . import _tok

    metrics = [m.strip().lower() for m in args.metrics.split(",") if m.strip()]
    unknown = [m for m in metrics if m not in set(metric_ids())]
    if unknown or len(metrics) < 2:
        raise ValueError(f"unknown metric(s) {unknown}" if unknown else "--metrics needs at least two metric ids")
    systems = [s for s in pilot.systems if s in set(ds.systems)]
    sub = pilot_of(ds, criterion, systems=systems)
    if len(systems) < 4:
        raise ValueError(f"{len(systems)} system(s) with text and judgements: Williams' test needs at least 4")
    tok = _tok.resolve(args, ds, [get_metric(m) for m in metrics])
    segs = {s: set(sub.seg_ids) for s in systems}
    tab = score_table(ds, metrics, level="segment", tokenize=tok, segments=segs)
    tab = tab.assign(seg_id=tab["seg_id"].astype(str))
    mats = {}
    for m in metrics:
        t = tab[tab["metric"] == get_metric(m).id]
        w = t.pivot_table(index="system", columns="seg_id", values="score", aggfunc="mean")
        mats[m] = w.reindex(index=systems, columns=sub.seg_ids).to_numpy(float) * settings.orient(
            get_metric(m).meta.higher_is_better)
        if np.isnan(mats[m]).any():
            raise ValueError(f"{m}: no segment score for some judged (system, segment) of the pilot")
    return metric_power(sub, mats, grid, resamples=args.resamples, alpha=args.alpha, seed=args.seed)
