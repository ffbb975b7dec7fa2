"""``python -m evalcore rank``: system rankings with significance clusters (methods §3.12).

One row per (signal, system): signal (``human:<criterion>`` or a metric id), system, score,
rank_best, rank_worst, rank_range, cluster, n_segments, test, settings. Human scores: a rater's
repeated ratings of an item averaged, then the raters; a metric signal uses the metric's segment
scores (with ``--human``, over the segments judged for it: the shared default of
:mod:`evalcore.scoring.settings`; ``--all-segments``: every segment). ``--matrix-out`` writes
the pairwise p-value matrices (signal, system, then one column per system). ``--recipe wmt25``:
WMT25's procedure instead (methods §17: every rating one observation, cross-paired one-sided
Wilcoxon at α/2, rank ranges by stepping); the default is the data's year.
"""
from __future__ import annotations

import copy
import sys

NAME = "rank"
STATES_SETTINGS = True  # its settings line, resolved on the data, goes to stderr from run()
LP_ALL = True
OUTPUTS = ("out", "matrix_out")
HELP = "Rank systems with pairwise significance, rank ranges and clusters (WMT24 human ranking)."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--lp", help="language pair (needed when the data holds several; all: every pair in turn)")
    p.add_argument("--human", help="human criterion to rank by (e.g. esa, mqm; default without --metrics: the data's only kind of human judgement)")
    p.add_argument("--metrics", help="comma-separated metric ids to rank by as well (segment scores)")
    p.add_argument("--refs", help="comma-separated reference sets for the metrics (default: all)")
    p.add_argument("--recipe", choices=["wmt24", "wmt25"], default=None,
                   help="the published procedure: wmt24 (item scores, per-domain two-sided Wilcoxon combined with "
                        "Stouffer, rank ranges by counting) or wmt25 (every rating one observation, cross-paired "
                        "one-sided Wilcoxon at alpha/2, rank ranges by stepping down the mean-sorted list); default: "
                        "the data's year (wmt25 when the dataset's name says wmt25 or later, else wmt24)")
    p.add_argument("--test", choices=["wilcoxon", "bootstrap", "ar"], default="wilcoxon",
                   help="pairwise test of the wmt24 recipe (default wilcoxon: WMT24's per-domain Wilcoxon combined "
                        "over domains); wmt25 has only its own Wilcoxon")
    from ..scoring.settings import add_judged_arguments

    add_judged_arguments(p, "metric signals over only the segments judged for --human (per system): the default "
                            "when --human is given (the shared settings)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--samples", type=int, default=None,
                   help="resamples for bootstrap (default 1000) and ar (default 10000)")
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--out", help="write the ranking table here (TSV; .csv writes CSV)")
    p.add_argument("--matrix-out", help="also write the pairwise p-value matrices here")
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def recipe_of(args, ds) -> str:
    """The recipe asked for, else the data's year: wmt25 when the dataset's name holds wmtNN with
    NN >= 25, else wmt24 (stated on stderr)."""
    import re

    if args.recipe:
        return args.recipe
    years = [int(y) for y in re.findall(r"wmt(\d\d)(?!\d)", str(ds.name).lower())]
    recipe = "wmt25" if years and max(years) >= 25 else "wmt24"
    print(f"note: recipe {recipe} (the data's year; --recipe to choose)", file=sys.stderr)
    return recipe


def run(args) -> int:
    import pandas as pd

    from ..stats.system_ranking import item_scores, rank_systems, rank_systems_wmt25
    from ._lp import dataset, emit

    from ..scoring.settings import DEFAULTS, judged_only_of

    ds = dataset(args)
    if not args.human and not args.metrics:  # the pages' default: the data's human judgements
        from ._defaults import criterion

        args = copy.copy(args)  # (--lp all: the same arguments serve every pair)
        args.human = criterion(ds.criteria, None)
        if not args.human:
            raise ValueError("the data has no human judgements: give --metrics to rank by")
    if args.judged_only and not args.human:
        raise ValueError("--judged-only needs --human (the judged segments)")
    explicit = args.judged_only is not None
    args.judged_only = judged_only_of(args) and bool(args.human)  # no --human: nothing judged to restrict to
    recipe = recipe_of(args, ds)
    if recipe == "wmt25" and args.test != "wilcoxon":
        raise ValueError(f"--test {args.test} belongs to the wmt24 recipe; wmt25 has its own one-sided Wilcoxon "
                         "(give --recipe wmt24 to use it)")
    dom = ds.extras.get("segment_domains")
    domains = dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str))) if dom is not None and len(dom) else {}
    signals: list[tuple[str, pd.DataFrame]] = []
    judged = None
    if args.human:
        from ..human.scores import criterion_judgements

        rows_h = criterion_judgements(ds, args.human)
        hum = item_scores(rows_h)
        signals.append((f"human:{args.human}", rows_h[["system", "seg_id", "score"]] if recipe == "wmt25" else hum))
        judged = {s: set(g["seg_id"]) for s, g in hum.groupby("system", sort=False)}
    metrics = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    if metrics:
        from ..metrics.base import get_metric, metric_ids
        from ..scoring.parallel import score_table
        from ..core.progress import StderrProgress
        from . import _tok

        unknown = [m for m in metrics if m.lower() not in set(metric_ids())]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}")
        refs = [r.strip() for r in args.refs.split(",") if r.strip()] if args.refs else None
        tok = _tok.resolve(args, ds, [get_metric(m) for m in metrics])
        tab = score_table(ds, metrics, level="segment", ref_ids=refs, tokenize=tok,
                          segments=judged if args.judged_only else None, progress=StderrProgress("scoring"))
        for mid, sub in tab.groupby("metric", sort=False):
            sub = sub[["system", "seg_id", "score"]]
            if not get_metric(str(mid)).meta.higher_is_better:  # error rates: the lowest ranks first
                sub = sub.assign(score=-sub["score"].astype(float))
                print(f"note: {mid} is an error rate: its scores are negated (higher is better)", file=sys.stderr)
            signals.append((str(mid), sub))
    if metrics and args.human and args.judged_only and not explicit:
        print("note: judged segments only (the default; --all-segments for every segment)", file=sys.stderr)
    used = DEFAULTS.with_(judged_only=args.judged_only, tokenizer=getattr(args, "tokenize", None))
    ranked_humans = []
    if args.human:  # the WMT ranking ranks the human translations it judged: the line says so (true)
        from ..stats.tables import human_systems

        ranked_humans = human_systems(ds, list(dict.fromkeys(signals[0][1]["system"])))
    line = used.with_(human_systems="include" if ranked_humans else used.human_systems).describe(
        ds, args.human if args.judged_only else None)
    if ranked_humans:
        line = line.replace("human translations scored as systems",
                            f"human translations ranked with the systems ({', '.join(ranked_humans)}; the verdict's "
                            "best system leaves them out)")
    print(f"settings: {line}", file=sys.stderr)
    rows, mats = [], []
    if recipe == "wmt25":
        settings = f"recipe=wmt25|test=wilcoxon-one-sided-cross-paired|alpha={args.alpha:g}/2"
    else:
        settings = (f"recipe=wmt24|test={args.test}|alpha={args.alpha:g}|domains={len(set(domains.values())) or 1}"
                    + (f"|samples={args.samples or (1000 if args.test == 'bootstrap' else 10000)}|seed={args.seed}"
                       if args.test != "wilcoxon" else ""))
    settings += "|judged_only" if args.judged_only else ""
    for name, frame in signals:
        if recipe == "wmt25":
            r = rank_systems_wmt25(frame, alpha=args.alpha)
        else:
            r = rank_systems(frame, domains, test=args.test, alpha=args.alpha, n_samples=args.samples,
                             seed=args.seed)
        t = r.table()
        t.insert(0, "signal", name)
        t["test"] = r.test
        t["settings"] = settings
        rows.append(t)
        m = r.matrix().reset_index().rename(columns={"index": "system"})
        m.insert(0, "signal", name)
        mats.append(m)
    emit(pd.concat(rows, ignore_index=True), args.out, args, section="ranking" if args.matrix_out is None else None,
         float_format=None if args.out else "%.6f")
    if args.matrix_out:
        emit(pd.concat(mats, ignore_index=True), args.matrix_out, args)
    how = ("rank_range = from each system up (down) the mean-sorted list to the first system significantly "
           "better (worse); p-value matrix: row better than column, one-sided" if recipe == "wmt25" else
           "rank_range = 1 + #significantly better .. N - #significantly worse")
    print(f"note: {settings}; {how}", file=sys.stderr)
    if args.human:  # the primary answer (methods §21): the recipe's ranking (Wilcoxon), whatever --test
        from ..analysis.verdict import best_system

        try:
            print(best_system(ds, args.human, used, alpha=args.alpha).line(), file=sys.stderr)
        except ValueError as exc:  # e.g. only human translations judged: the table stands
            print(f"note: no verdict on the best system: {exc}", file=sys.stderr)
    return 0
