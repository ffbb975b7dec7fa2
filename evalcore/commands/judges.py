"""``python -m evalcore judges``: agreement and rater tables for human judgements (methods §5)."""
from __future__ import annotations

NAME = "judges"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = (("out_prefix", "agreement.tsv", "raters.tsv", "systems.tsv"),)  # checked before any work
HELP = "Judge agreement (pairwise kappa, Krippendorff's alpha), per-rater tables and system rankings."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--lp", help="language pair (needed when the data holds several; all: every pair in turn, tables get an lp column)")
    p.add_argument("--criterion", help="judgement criterion (default: the first one)")
    p.add_argument("--lower-is-better", action="store_true", help="scores are ranks (1 = best)")
    p.add_argument("--normalisation", choices=["raw", "z", "percentile"], default="raw")
    p.add_argument("--chance", choices=["uniform", "empirical"], default="uniform", help="kappa chance term")
    p.add_argument("--screen-column", help="judgement column naming the screen/HIT (default: occurrence order)")
    p.add_argument("--systems", action="store_true",
                   help="also print system scores and the Schulze ranking (each (rater, segment) is a ballot; "
                        "a warning when the median pair of systems is compared on fewer than 10 ballots)")
    p.add_argument("--out-prefix", help="write <prefix>agreement.tsv, <prefix>raters.tsv (and systems.tsv)")


def tables(ds, criterion=None, lower_is_better=False, normalisation="raw", chance="uniform", screen_col=None):
    """(agreement, raters, systems) for one criterion of a dataset: ``agreement`` a
    :class:`~evalcore.core.results.Result` (its note: Krippendorff's alpha), ``raters`` a frame,
    ``systems`` None (no pairwise labels) or a :class:`~evalcore.core.results.Ranked` whose ``support``
    is what the Schulze ranking rests on (its note; a warning when it rests on few comparisons)."""
    from ..core.results import Ranked, Result

    import numpy as np
    import pandas as pd

    from ..human.agreement import agreement, alpha_of_judgements, pairwise_labels, per_rater_agreement
    from ..human.normalise import normalise, rater_summary, rater_weights
    from ..human.ranking import relative_ranking_scores, schulze_from_judgements
    from ..human.scores import criterion_judgements

    crit = criterion or (ds.criteria[0] if ds.criteria else "mqm")
    j = criterion_judgements(ds, crit)
    norm = normalise(j, normalisation).table
    labels = pairwise_labels(norm, higher_is_better=not lower_is_better, screen_col=screen_col)
    rows = []
    for kind in ("inter", "intra"):
        a = agreement(labels, kind, chance)
        rows.append({"criterion": crit, "kind": kind, **a, "alpha": np.nan, "n_items": np.nan, "note": ""})
    al = alpha_of_judgements(norm)  # one value per (rater, output): the mean of the rater's repeats
    rows.append({"criterion": crit, "kind": "krippendorff_alpha_interval", "p_agree": np.nan, "p_chance": np.nan,
                 "kappa": np.nan, "n_pairs": np.nan, "alpha": al.value, "n_items": al.n_items,
                 "note": al.reason or f"{al.n_items} outputs judged by >= 2 raters; repeats averaged per rater"})
    agree = pd.DataFrame(rows).astype({"n_pairs": "Int64", "n_items": "Int64"})
    raters = rater_summary(j, norm if normalisation != "raw" else None)
    pra = per_rater_agreement(labels, chance)
    w = rater_weights(labels) if len(labels) else pd.Series(dtype=float)
    raters = raters.merge(pra.drop(columns=["n_labels"]), on="rater", how="left")
    raters["weight"] = raters["rater"].map(w)
    systems: Ranked | None = None
    if len(labels):
        table = relative_ranking_scores(labels).rename(columns={"score": "better_or_equal"})
        mean = norm.groupby("system")["score"].mean()
        table.insert(1, "mean_score", table["system"].map(mean))
        sch = schulze_from_judgements(norm, higher_is_better=not lower_is_better, screen_col=screen_col)
        rank = {c: i + 1 for i, grp in enumerate(sch.ranking) for c in grp}
        table["schulze_rank"] = table["system"].map(rank)
        sup = sch.support
        assert sup is not None  # a ranking from ballots reports their support
        systems = Ranked(table, notes=(f"schulze_rank: {sup.summary()}",),
                         warnings=(sup.warning(),) if sup.few else (), support=sup)
    return Result(agree, notes=(f"Krippendorff's alpha (interval): {al.text(4)}",)), raters, systems


def run(args) -> int:
    from ..core.results import Result
    from ._lp import dataset, emit_result

    ds = dataset(args)
    agree, raters, systems = tables(ds, args.criterion, args.lower_is_better, args.normalisation, args.chance,
                                    args.screen_column)
    pre = args.out_prefix
    parts = [("agreement", agree), ("raters", Result(raters))]
    if args.systems and systems is not None:
        parts.append(("systems", systems))
    for i, (section, res) in enumerate(parts):
        if pre:
            emit_result(res, f"{pre}{section}.tsv", args)
        else:
            emit_result(res, None, args, section=section, float_format="%.4f", first=i == 0)
    return 0
