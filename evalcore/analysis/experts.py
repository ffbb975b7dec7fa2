"""Experts vs non-experts (Callison-Burch 2009, §4, Figures 1-3; methods §5.10), where the data marks a gold group.

The gold raters (experts) are named by the user; every other rater is a non-expert. Built on
the pairwise labels, agreement, weights and curve of :mod:`evalcore.human`:

* :func:`rater_vs_gold` — each non-expert's agreement with the gold raters against how many
  judgements they made (Figure 2);
* :func:`combination_curves` — agreement with the gold raters as 1..k non-experts' labels are
  combined, plain and weighted (weights from agreement with the gold raters, or from
  agreement with the other non-experts, leave-one-out), with the gold raters' own agreement as
  the top line (Figure 1);
* :func:`ranking_correlations` — Spearman's ρ between the gold raters' system ranking
  (share of comparisons judged better than or equal) and the non-experts' rankings, the
  gold-vs-gold upper bound from five-fold cross-validation (20 % of the gold judgements
  against the other 80 %) and BLEU (Figure 3).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
import pandas as pd

from ..human.agreement import agreement, agreement_curve, pairwise_labels, per_rater_agreement
from ..human.normalise import rater_weights
from ..human.ranking import relative_ranking_scores
from ..human.scores import criterion_judgements
from ..core.results import Curve, Result
from ..scoring.scores import system_stats
from ..scoring.settings import DEFAULTS, Settings

ITEM = ["judgement", "seg_id", "sys_a", "sys_b"]


def gold_labels(dataset, gold: Sequence[str], criterion: str, lower_is_better: bool = False,
                screen_col: str | None = None) -> pd.DataFrame:
    """Pairwise labels of ``criterion`` with a boolean ``gold`` column; checks the gold names."""
    gold = [g for g in dict.fromkeys(gold) if g]
    if not gold:
        raise ValueError("name at least one gold (expert) rater")
    j = criterion_judgements(dataset, criterion)
    raters = list(dict.fromkeys(j["rater"]))
    unknown = [g for g in gold if g not in raters]
    if unknown:
        raise ValueError(f"gold rater(s) {', '.join(unknown)} did not judge {criterion!r}; raters: {', '.join(raters)}")
    if not [r for r in raters if r not in gold]:
        raise ValueError("every rater is in the gold group: there are no non-experts to compare")
    labels = pairwise_labels(j, higher_is_better=not lower_is_better, screen_col=screen_col)
    if labels.empty:
        raise ValueError(f"no pairwise labels for {criterion!r}: each screen needs at least two judged outputs "
                         "of the same segment")
    return labels.assign(gold=labels["rater"].isin(gold))


def rater_vs_gold(labels: pd.DataFrame, chance: str = "uniform") -> pd.DataFrame:
    """Figure 2: each non-expert's agreement with the gold raters' labels of the same items
    (rater, n_labels, n_pairs, p_agree, kappa), most prolific first."""
    out = per_rater_agreement(labels[~labels["gold"]], chance, reference=labels[labels["gold"]])
    return out


def _weights_vs_gold(labels: pd.DataFrame) -> pd.Series:
    fig2 = rater_vs_gold(labels)
    w = fig2.set_index("rater")["p_agree"]
    return w.fillna(w.median() if w.notna().any() else 1.0)


def combination_curves(labels: pd.DataFrame, max_judges: int = 5, n_resamples: int = 20,
                       seed: int = 0) -> Curve:
    """Figure 1: agreement with the gold raters as k = 1..K non-experts are combined.

    Methods: ``plain`` (equal votes), ``weighted by gold`` (a non-expert's weight = their
    agreement with the gold raters), ``weighted by non-experts`` (leave-one-out agreement with
    the other non-experts' majority, methods §5.5). K = min(max_judges, the number of non-experts,
    the largest number of non-expert judgements of an item the gold raters judged); for every k
    the same items are used (those with at least K non-expert judgements). Returns a
    :class:`~evalcore.core.results.Curve` (method, k, agreement, sd, n_items): its ``reference_agreement``
    is the gold raters' own inter-rater agreement (the top line; NaN with one gold rater), its
    ``k_max`` = K.
    """
    gold = list(dict.fromkeys(labels.loc[labels["gold"], "rater"]))
    ng = labels[~labels["gold"]]
    judged = ng.merge(labels.loc[labels["gold"], ITEM].drop_duplicates(), on=ITEM)
    most = int(judged.groupby(ITEM).size().max()) if len(judged) else 0
    k_max = min(max_judges, most, ng["rater"].nunique())
    frames = []
    if k_max >= 1:
        for method, w in (("plain", None), ("weighted by gold", _weights_vs_gold(labels)),
                          ("weighted by non-experts", rater_weights(ng))):
            c = agreement_curve(labels.drop(columns=["gold"]), gold, max_judges=k_max, n_resamples=n_resamples,
                                seed=seed, weights=cast("Mapping[str, float] | None", w))  # a Series by rater
            frames.append(c.table.assign(method=method))
    out = (pd.concat(frames, ignore_index=True)[["method", "k", "agreement", "sd", "n_items"]] if frames
           else pd.DataFrame(columns=["method", "k", "agreement", "sd", "n_items"]))
    g = labels[labels["gold"]].drop(columns=["gold"])
    return Curve(out, reference_agreement=agreement(g, "inter")["p_agree"] if len(gold) > 1 else float("nan"),
                 k_max=k_max)


def _rank_scores(labels: pd.DataFrame) -> pd.Series:
    return relative_ranking_scores(labels).set_index("system")["score"]


def _rho(a: pd.Series, b: pd.Series) -> tuple[float, int]:
    common = [s for s in a.index if s in b.index and np.isfinite(a[s]) and np.isfinite(b[s])]
    if len(common) < 3:
        return float("nan"), len(common)
    from scipy import stats  # only Figure 3 needs it (keeps the page's first figure light)

    return float(stats.spearmanr(a[common].to_numpy(float), b[common].to_numpy(float))[0]), len(common)


def _combined(labels: pd.DataFrame, weights: pd.Series | None) -> pd.DataFrame:
    """One label per item from the non-experts' votes (weighted sign of > minus <)."""
    w = labels["rater"].map(weights).fillna(0.0).to_numpy(float) if weights is not None else np.ones(len(labels))
    sgn = np.where(labels["label"] == ">", 1.0, np.where(labels["label"] == "<", -1.0, 0.0)) * w
    tot = labels[ITEM].assign(s=sgn).groupby(ITEM, sort=False)["s"].sum().reset_index()
    tot["label"] = np.where(tot["s"] > 0, ">", np.where(tot["s"] < 0, "<", "="))
    return tot[ITEM + ["label"]]


def gold_cross_validation(labels: pd.DataFrame, n_folds: int = 5, seed: int = 0) -> pd.DataFrame:
    """The gold-vs-gold upper bound: the gold judgements (whole screens: a rater's comparisons
    of one segment on one screen stay together) are split into ``n_folds`` folds at random;
    each fold (20 % with five folds) ranks the systems, compared by Spearman's ρ with the
    ranking from the other folds (80 %). Returns fold, rho, n_systems."""
    g = labels[labels["gold"]]
    screens = g[["rater", "seg_id", "screen"]].drop_duplicates().reset_index(drop=True)
    if len(screens) < n_folds:
        return pd.DataFrame({"fold": [], "rho": [], "n_systems": []})
    perm = np.random.default_rng(seed).permutation(len(screens))
    screens["fold"] = 0
    screens.loc[perm, "fold"] = np.arange(len(screens)) % n_folds
    g = g.merge(screens, on=["rater", "seg_id", "screen"])
    rows = []
    for f in range(n_folds):
        rho, n = _rho(_rank_scores(g[g["fold"] == f]), _rank_scores(g[g["fold"] != f]))
        rows.append({"fold": f + 1, "rho": rho, "n_systems": n})
    return pd.DataFrame(rows)


def ranking_correlations(labels: pd.DataFrame, metric_scores: pd.Series | None = None, metric_name: str = "bleu",
                         n_folds: int = 5, seed: int = 0) -> Result:
    """Figure 3: Spearman's ρ of system rankings with the gold raters' ranking.

    Rows: ``gold vs gold (5-fold CV)`` (mean and sd over folds: the upper bound), the
    non-experts' ranking from all their comparisons, from one combined label per item
    (plain, weighted by gold, weighted by non-experts), and ``metric_scores`` (e.g. corpus
    BLEU per system). A :class:`~evalcore.core.results.Result`: columns ranking, rho, sd, n_systems; its
    ``method`` says how the rankings are compared, its ``notes`` which rankings have no value
    (:func:`ranking_notes`)."""
    gold_rank = _rank_scores(labels[labels["gold"]])
    ng = labels[~labels["gold"]]
    rows = []
    cv = gold_cross_validation(labels, n_folds, seed)
    if len(cv):
        rows.append({"ranking": f"gold vs gold ({n_folds}-fold CV: {100 // n_folds} % vs {100 - 100 // n_folds} %)",
                     "rho": float(cv["rho"].mean()), "sd": float(cv["rho"].std(ddof=1)),
                     "n_systems": int(cv["n_systems"].max())})
    rho, n = _rho(_rank_scores(ng), gold_rank)
    rows.append({"ranking": "non-experts: all comparisons", "rho": rho, "sd": np.nan, "n_systems": n})
    for name, w in (("non-experts: combined, plain", None), ("non-experts: combined, weighted by gold", _weights_vs_gold(labels)),
                    ("non-experts: combined, weighted by non-experts", rater_weights(ng))):
        rho, n = _rho(_rank_scores(_combined(ng, w)), gold_rank)
        rows.append({"ranking": name, "rho": rho, "sd": np.nan, "n_systems": n})
    if metric_scores is not None and len(metric_scores):
        rho, n = _rho(metric_scores.astype(float), gold_rank)
        rows.append({"ranking": metric_name, "rho": rho, "sd": np.nan, "n_systems": n})
    out = pd.DataFrame(rows, columns=["ranking", "rho", "sd", "n_systems"])
    return Result(out, notes=tuple(ranking_notes(out)),
                  method=("Spearman's ρ with the gold raters' ranking (system score = share of its comparisons "
                          "judged better than or equal, Callison-Burch et al. 2008); systems ranked by both only"))


#: Below this many systems no Spearman ρ is significant at 0.05 (two-sided exact test: with 4
#: systems the smallest p is 2/4! = 0.083; Kendall & Gibbons 1990, ch. 2).
MIN_RANKED_SYSTEMS = 5


def ranking_notes(table: pd.DataFrame) -> list[str]:
    """Why a ρ of :func:`ranking_correlations` is empty or says little (too few systems ranked by
    both sides); the pages and the ``experts`` command state them beside the values."""
    notes = []
    for ranking, rho, n in zip(table["ranking"].tolist(), table["rho"].tolist(), table["n_systems"].tolist()):
        if n < 3:
            notes.append(f"{ranking}: ρ undefined: {n} system(s) ranked by both sides "
                         "(at least 3 are needed)")
        elif n < MIN_RANKED_SYSTEMS:
            notes.append(f"{ranking}: ρ = {rho:.2f} from only {n} systems: with fewer than "
                         f"{MIN_RANKED_SYSTEMS} systems no ρ is significant at 0.05 (the smallest two-sided exact "
                         f"p with {n} is {2 / math.factorial(n):.3f})")
    return notes


def no_implicit_gold(raters: Sequence[str]) -> tuple[list[str], str | None]:
    """(the raters the data itself marks as gold: named ``expert``/``gold``, the note when none
    is). No rater is made "the expert" by position: the user chooses the gold group."""
    marked = [r for r in raters if "expert" in str(r).lower() or "gold" in str(r).lower()]
    if marked:
        return marked, None
    return [], ("no rater is named expert or gold in this data: choose the gold (expert) group yourself; "
                "evalcore does not take any rater as the expert by default")


def metric_system_scores(dataset, metric: str, settings: Settings = DEFAULTS) -> pd.Series:
    """system -> the metric's corpus score, oriented so that higher ranks higher (error rates
    negated), for Figure 3's metric row. Text metrics read the one cached statistics table per
    (dataset, metric signature) that the Systems and Divergence pages share
    (:func:`evalcore.scoring.scores.system_stats`; = ``score_table`` at system level); other metrics
    their given scores (``score_table``). ``settings.tokenizer``: the word-level metrics'
    tokenizer (None: the metric's default)."""
    from ..metrics.base import get_metric

    tokenize = settings.tokenizer
    m = get_metric(metric, tokenize)
    if m.meta.needs_text:
        per = system_stats(dataset, [metric], tokenize=tokenize)[metric]
        scores = pd.Series({name: float(m.score_from_stats(st)) for name, (keep, st) in per.items()
                            if name in dataset.systems and len(keep)}, dtype=float)
    else:
        from ..metrics.engine import score_table

        scores = score_table(dataset, [metric], level="system", tokenize=tokenize).set_index("system")["score"]
    return scores if m.meta.higher_is_better else -scores
