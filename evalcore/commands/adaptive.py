"""``python -m evalcore adaptive PATH --lp en-cs --runs 20 --budget 0.5 --out F.tsv``: the
adaptive-selection simulation of issue point 5 (methods §27): on existing judgements, a class
that judges only a share of the items, chosen at random, in whole segments, or where a
judgement would most change the ranking (:mod:`evalcore.analysis.adaptive`); per run the
Kendall τ of its ranking to the full-data ranking and τ on the pairs the full data separates;
in the notes, per budget, the design ceiling (:func:`~evalcore.analysis.adaptive.ceiling`).
"""
from __future__ import annotations

NAME = "adaptive"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out", "summary_out")  # checked before any work (evalcore.core.export.check_outputs)
HELP = ("Adaptive-selection simulation (issue point 5, annotation that spends the budget well): judge a share "
        "of the items at random, by segment, where a system's order is most uncertain, or pair by pair until "
        "the most uncertain pairs' full-data differences are known, and compare each ranking with the "
        "full-data ranking (Kendall τ, and τ on the pairs the full data separates).")


def _floats(text: str, what: str) -> list[float]:
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{what} takes comma-separated numbers, not {text!r}") from None
    if not out:
        raise ValueError(f"{what} names no value")
    return out


def add_arguments(p) -> None:
    from ..analysis.adaptive import BATCH_SHARE, DEFAULT_POLICIES, POLICIES, SEED_SHARE, SETTLE_SHARE, TAU_TARGET

    p.add_argument("path", help="dataset folder or zip with human judgements")
    p.add_argument("--lp", help="language pair, when the data holds several ('all': each in turn)")
    p.add_argument("--criterion", help="the human judgements whose ratings are revealed (default: the dataset's "
                                       "default criterion)")
    p.add_argument("--runs", type=int, default=20, help="simulated classes per policy and budget (default 20)")
    p.add_argument("--budget", default="0.5",
                   help="share(s) of the judged items the class judges, comma-separated (default 0.5)")
    p.add_argument("--policies", default=DEFAULT_POLICIES,
                   help=f"comma-separated selection policies (default: {DEFAULT_POLICIES}): "
                        f"{', '.join(POLICIES)} (disagreement needs --disagreement-metrics)")
    p.add_argument("--disagreement-metrics",
                   help="comma-separated metric ids (e.g. bleu,chrf) whose disagreement per segment the "
                        "disagreement policy follows; adds that policy when --policies is not given")
    p.add_argument("--seed", type=int, default=0, help="seed of every run (default 0): the same seed, the same table")
    p.add_argument("--target", type=float, default=TAU_TARGET,
                   help=f"the τ a run must reach to count in the summary's shares (default {TAU_TARGET:g})")
    p.add_argument("--seed-share", type=float, default=SEED_SHARE,
                   help=f"share of the budget judged at random before a policy chooses (default {SEED_SHARE:g})")
    p.add_argument("--batch-share", type=float, default=BATCH_SHARE,
                   help=f"share of the items revealed between two refreshes of the estimate (default {BATCH_SHARE:g})")
    p.add_argument("--settle-share", type=float, default=SETTLE_SHARE,
                   help="'rankings settled': the clusters unchanged over this share of the items "
                        f"(default {SETTLE_SHARE:g})")
    p.add_argument("--include-human-systems", action="store_true",
                   help="keep human translations judged as systems (WMT's refA) in the ranking (default: left out)")
    p.add_argument("--out", help="write one row per run (policy, budget_share, run, kendall_tau, "
                                 "tau_separated_pairs, settled, ...) here (TSV; .csv too)")
    p.add_argument("--summary-out", help="write the summary per policy and budget here")


def run(args) -> int:
    from ..analysis.adaptive import DEFAULT_POLICIES, POLICIES, ceiling, disagreement_of, pool_of, simulate
    from ..scoring.settings import from_args
    from ._lp import dataset, emit

    budgets = _floats(args.budget, "--budget")
    policies = [x.strip() for x in args.policies.split(",") if x.strip()]
    dis = [m.strip() for m in (args.disagreement_metrics or "").split(",") if m.strip()]
    if dis and "disagreement" not in policies and args.policies == DEFAULT_POLICIES:
        policies.append("disagreement")
    if "disagreement" in policies and len(dis) < 2:
        raise ValueError("the disagreement policy needs two or more --disagreement-metrics (e.g. bleu,chrf)")
    if dis:
        from ..metrics.base import get_metric

        for m in dis:
            get_metric(m)  # unknown ids fail before loading
    unknown = [x for x in policies if x not in POLICIES]
    if unknown or not policies:
        raise ValueError(f"unknown policy {', '.join(unknown) or '(none given)'}; known: {', '.join(POLICIES)}")
    for name, v in (("--seed-share", args.seed_share), ("--batch-share", args.batch_share),
                    ("--settle-share", args.settle_share)):
        if not 0 < v <= 1:
            raise ValueError(f"{name} is a share in (0, 1], not {v}")
    if args.runs < 1:
        raise ValueError("--runs must be at least 1")
    ds = dataset(args)
    settings = from_args(args, human_systems="include" if args.include_human_systems else "exclude")
    pool = pool_of(ds, settings, args.criterion)
    prior = disagreement_of(ds, pool, dis, settings) if "disagreement" in policies else None
    res = simulate(pool, runs=args.runs, budgets=budgets, policies=policies, seed=args.seed, target=args.target,
                   seed_share=args.seed_share, batch_share=args.batch_share, settle_share=args.settle_share,
                   seg_prior=prior)
    notes = list(res.notes) + [f"seed {args.seed}; settings: {settings.describe(ds)}"]
    for b in budgets:
        c = ceiling(pool, b, args.target)
        notes.append(f"budget {b:g}: τ ≥ {args.target:g} allows {c.allowed} of {c.pairs} pairs reversed; knowing the "
                     f"full data, judging every system on {b:g} of its segments expects {c.uniform:.2f} reversed "
                     f"(mean τ {c.tau(c.uniform):.3f}), the best shares per system {c.best:.2f} "
                     f"(mean τ {c.tau(c.best):.3f}; methods §27, the design ceiling)")
    if prior is not None:
        notes.append(f"disagreement of {', '.join(dis)} per segment: mean {prior.mean():.3f} (0 = same order, "
                     "1 = reversed)")
    emit(res.summary, None, args, float_format="%.4f", section="summary", notes=notes)
    if args.out:
        emit(res.runs, args.out, args, float_format="%.6f")
    if args.summary_out:
        emit(res.summary, args.summary_out, args, float_format="%.6f")
    return 0
