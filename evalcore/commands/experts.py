"""``python -m evalcore experts PATH --gold RATER[,RATER…]``: experts vs non-experts
(Callison-Burch 2009, §4, Figures 1-3). See :mod:`evalcore.analysis.experts`."""
from __future__ import annotations

import sys

from ..scoring.settings import DEFAULTS, Settings, from_args

NAME = "experts"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = (("out_prefix", "raters.tsv", "curves.tsv", "rankings.tsv"),)  # checked before any work
HELP = ("Experts vs non-experts: each rater's agreement with the gold raters, agreement as non-experts are "
        "combined (plain, weighted), and system-ranking correlation with the gold raters with a five-fold "
        "gold-vs-gold upper bound and a metric beside them (Callison-Burch 2009).")


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--lp", help="language pair, when the data holds several ('all': each in turn)")
    p.add_argument("--gold", required=True, help="comma-separated gold (expert) raters")
    p.add_argument("--criterion", help="judgement criterion (default: the first one)")
    p.add_argument("--lower-is-better", action="store_true", help="scores are ranks (1 = best)")
    p.add_argument("--chance", choices=["uniform", "empirical"], default="uniform", help="kappa chance term")
    p.add_argument("--max-judges", type=int, default=5, help="combine up to this many non-experts (default 5)")
    p.add_argument("--resamples", type=int, default=20, help="random draws of k non-experts per k (default 20)")
    p.add_argument("--folds", type=int, default=5, help="folds of the gold-vs-gold cross-validation (default 5)")
    p.add_argument("--metric", default="bleu", help="metric ranked beside the humans (default bleu; '' for none)")
    from . import _tok; _tok.add_argument(p)  # noqa: E702
    p.add_argument("--out-prefix", help="write <prefix>raters.tsv, <prefix>curves.tsv, <prefix>rankings.tsv")


def tables(ds, gold, criterion=None, lower_is_better=False, chance="uniform", max_judges=5, resamples=20,
           folds=5, metric="bleu", settings: Settings = DEFAULTS):
    """(raters frame, curves :class:`~evalcore.core.results.Curve`, rankings
    :class:`~evalcore.core.results.Result`); ``curves.reference_agreement`` is the top line;
    ``settings.tokenizer``: the tokenizer of ``metric`` when it splits words (None: its default)."""
    from ..analysis.experts import combination_curves, gold_labels, ranking_correlations, rater_vs_gold

    crit = criterion or (ds.criteria[0] if ds.criteria else None)
    if crit is None:
        raise ValueError("this dataset has no human judgements")
    labels = gold_labels(ds, gold, crit, lower_is_better)
    raters = rater_vs_gold(labels, chance)
    curves = combination_curves(labels, max_judges, resamples)
    scores = None
    if metric and ds.systems:
        from ..analysis.experts import metric_system_scores

        scores = metric_system_scores(ds, metric, settings)  # error rates negated: rank by the negated value
    rankings = ranking_correlations(labels, scores, metric or "", folds)
    return raters, curves, rankings


def run(args) -> int:
    from ..scoring.defaults import signature_text
    from . import _tok
    from ._lp import dataset, emit

    if args.metric:
        from ..metrics.base import get_metric

        get_metric(args.metric)
    _tok.check(args)
    ds = dataset(args)
    gold = [g.strip() for g in args.gold.split(",") if g.strip()]
    tok = None
    if args.metric and ds.systems:  # the metric's tokenizer: --tokenize or the target language's default
        tok = _tok.resolve(args, ds, [get_metric(args.metric)])
    raters, curves, rankings = tables(ds, gold, args.criterion, args.lower_is_better, args.chance,
                                      args.max_judges, args.resamples, args.folds, args.metric,
                                      from_args(args, tokenizer=tok))
    sig = signature_text([args.metric] if args.metric else [], f"gold: {', '.join(gold)}", dataset=ds,
                         level="system", tokenize=tok)
    ranked = rankings.table.assign(signature=sig)
    ga = curves.reference_agreement
    parts = [("raters", raters, f"gold raters: {', '.join(gold)}; every other rater is a non-expert; each "
                                "non-expert's agreement with the gold raters (Figure 2)"),
             ("curves", curves.table, "agreement with the gold raters as non-experts are combined (Figure 1); "
                                      "gold-vs-gold agreement: " + ("n/a (one gold rater)" if ga != ga else f"{ga:.4f}")),
             ("rankings", ranked, f"{rankings.method} (Figure 3)")]
    pre = args.out_prefix
    for i, (name, table, what) in enumerate(parts):
        if pre:
            emit(table, f"{pre}{name}.tsv", args)
        else:
            emit(table, None, args, section=what, float_format="%.4f", first=i == 0)
    if pre:
        print(f"wrote tables with prefix {pre}", file=sys.stderr)
    notes = list(rankings.notes)
    if raters["p_agree"].isna().all():
        notes.insert(0, "no non-expert compared the same two outputs of a segment as a gold rater: no agreement "
                        "with the gold raters can be measured")
    for line in notes:
        print(f"note: {line}", file=sys.stderr)
    return 0
