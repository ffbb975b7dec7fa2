"""``python -m evalcore judges``: agreement and rater tables for human judgements (spec §5)."""
from __future__ import annotations

import sys

NAME = "judges"
OUTPUTS = (("out_prefix", "agreement.tsv", "raters.tsv", "systems.tsv"),)  # checked before any work
HELP = "Judge agreement (pairwise kappa, Krippendorff's alpha), per-rater tables and system rankings."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--lp", help="language pair, when the data holds several")
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
    """(agreement, raters, systems) frames for one criterion of a dataset."""
    import numpy as np
    import pandas as pd

    from ..judges import (agreement, alpha_of_judgements, criterion_judgements, normalise, pairwise_labels,
                          per_rater_agreement, rater_summary, rater_weights, relative_ranking_scores,
                          schulze_from_judgements)

    crit = criterion or (ds.criteria[0] if ds.criteria else "mqm")
    j = criterion_judgements(ds, crit)
    norm = normalise(j, normalisation)
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
    systems = None
    if len(labels):
        systems = relative_ranking_scores(labels).rename(columns={"score": "better_or_equal"})
        mean = norm.groupby("system")["score"].mean()
        systems.insert(1, "mean_score", systems["system"].map(mean))
        sch = schulze_from_judgements(norm, higher_is_better=not lower_is_better, screen_col=screen_col)
        rank = {c: i + 1 for i, grp in enumerate(sch.ranking) for c in grp}
        systems["schulze_rank"] = systems["system"].map(rank)
        systems.attrs["support"] = sch.support
    agree.attrs["alpha"] = al
    return agree, raters, systems


def _say_support(systems, out) -> None:
    """What the Schulze ranking rests on; a warning on stderr when it rests on few comparisons."""
    support = systems.attrs.get("support")
    if support is None:
        return
    out.write(f"# schulze_rank: {support.summary()}\n")
    if support.few:
        print(f"warning: {support.warning()}", file=sys.stderr)


def run(args) -> int:
    from ..io import load_dataset

    ds = load_dataset(args.path, lp=args.lp)
    agree, raters, systems = tables(ds, args.criterion, args.lower_is_better, args.normalisation, args.chance,
                                    args.screen_column)
    if args.out_prefix:
        from ..export import write_table

        write_table(agree, f"{args.out_prefix}agreement.tsv")
        write_table(raters, f"{args.out_prefix}raters.tsv")
        if args.systems and systems is not None:
            write_table(systems, f"{args.out_prefix}systems.tsv")
            _say_support(systems, sys.stderr)
        print(f"wrote tables with prefix {args.out_prefix}", file=sys.stderr)
        print(f"Krippendorff's alpha (interval): {agree.attrs['alpha'].text(4)}", file=sys.stderr)
        return 0
    out = sys.stdout
    out.write("# agreement\n")
    agree.to_csv(out, sep="\t", index=False, float_format="%.4f")
    out.write(f"# Krippendorff's alpha (interval): {agree.attrs['alpha'].text(4)}\n")
    out.write("\n# raters\n")
    raters.to_csv(out, sep="\t", index=False, float_format="%.4f")
    if args.systems and systems is not None:
        out.write("\n# systems\n")
        systems.to_csv(out, sep="\t", index=False, float_format="%.4f")
        _say_support(systems, out)
    return 0
