"""Per-rater normalisation, reliability weights and aggregation of human scores (methods §5.1-5.2, §5.5).

Normalisation per rater: :func:`normalise` (raw, z, percentile — Kulesza & Shieber 2004 for the
mid-rank percentile, :func:`percentile_ranks`) and :func:`rater_summary` (what happens to each
rater's distribution). Aggregation per (system, segment): :func:`aggregate` (mean, median, or
weighted by the leave-one-out reliability weights of :func:`rater_weights`, Callison-Burch 2009
§4 "weighting votes"); :func:`combine_labels` combines votes on one system pair.
Works on the long judgement frame of :class:`evalcore.core.dataset.Dataset` (columns ``system,
seg_id, rater, judgement, score``). Pure functions, no UI.
"""
from __future__ import annotations

import warnings
from typing import Iterable, Mapping, Sequence, cast

import numpy as np
import pandas as pd

from ..core.results import Normalised
from .agreement import judgement_pairs, pairwise_labels


def percentile_ranks(values) -> np.ndarray:
    """Mid-rank percentile of each rating among one judge's ratings (methods §5.1, Kulesza & Shieber 2004).

    pct(s) = (#{s' < s} + ½·#{s' = s}) / N, the rating itself counted among the equals.
    Example (methods §8): [1, 2, 2, 3] -> [0.125, 0.5, 0.5, 0.875].
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return x
    s = np.sort(x)
    less = np.searchsorted(s, x, side="left")
    leq = np.searchsorted(s, x, side="right")
    return (less + 0.5 * (leq - less)) / n


def normalise(judgements: pd.DataFrame, method: str = "raw", *, ddof: int = 1,
              by: Sequence[str] = ("judgement", "rater")) -> Normalised:
    """Per-rater normalisation of scores (methods §0, §5.1-5.2).

    ``method``: ``raw`` (unchanged), ``z`` ((x − μ_r)/σ_r over all of the rater's scores of that
    criterion, σ with ``ddof`` = 1 by default), ``percentile`` (mid-rank, :func:`percentile_ranks`).
    Raters are the groups of ``by``. A rater with σ = 0 (or a single rating) cannot be z-scored:
    their rows are **excluded** and a warning is issued. Returns a
    :class:`~evalcore.core.results.Normalised`: its ``table`` is a copy of the judgements that keeps the
    input score as ``raw``; its ``excluded_raters`` lists the excluded raters (dicts of ``by``)
    and its ``warnings`` say so.
    """
    if method not in ("raw", "z", "percentile"):
        raise ValueError("normalisation must be raw, z or percentile")
    out = judgements.copy()
    out["raw"] = out["score"].astype(float)
    excluded: list[dict] = []
    said: list[str] = []
    if method == "raw" or out.empty:
        return Normalised(out)
    keys = [c for c in by if c in out.columns]
    grp = out.groupby(keys, sort=False)["raw"]
    if method == "z":
        mu = grp.transform("mean")
        sd = grp.transform(lambda s: s.std(ddof=ddof) if len(s) > ddof else np.nan)
        bad = ~(sd > 0)
        if bad.any():
            excluded = out.loc[bad, keys].drop_duplicates().to_dict("records")
            said.append(f"z-normalisation: {len(excluded)} rater(s) with zero (or undefined) standard "
                        f"deviation excluded: {excluded}")
            warnings.warn(said[-1], stacklevel=2)
            out = out.loc[~bad].copy()
            mu, sd = mu[~bad], sd[~bad]
        out["score"] = (out["raw"] - mu) / sd
    else:
        out["score"] = grp.transform(lambda s: pd.Series(percentile_ranks(s.to_numpy()), index=s.index))
    return Normalised(out, warnings=tuple(said), excluded_raters=tuple(excluded))


def rater_summary(judgements: pd.DataFrame, normalised: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (criterion, rater) distribution before (and after) normalisation: n, mean, sd, min, median, max."""
    def summ(frame, col, prefix):
        g = frame.groupby(["judgement", "rater"], sort=False)[col]
        t = g.agg(n="size", mean="mean", sd="std", min="min", median="median", max="max")
        return t.add_prefix(prefix)

    t = summ(judgements, "score", "")
    if normalised is not None:
        t = t.join(summ(normalised, "score", "norm_").drop(columns="norm_n"), how="left")
    return t.reset_index()


def combine_labels(labels: Iterable[str], weights: Iterable[float] | None = None) -> str:
    """Combine votes on one system pair: sign(Σw·[>] − Σw·[<]) -> ">", "<" or "=".

    This is the Schulze method on two candidates (methods §5.4): a pair is decided by the
    (weighted) majority of strict preferences; equal support (or only "=" votes) is a tie.
    """
    lab = np.asarray(list(labels))
    w = np.ones(len(lab)) if weights is None else np.asarray(list(weights), dtype=float)
    s = w[lab == ">"].sum() - w[lab == "<"].sum()
    return ">" if s > 0 else "<" if s < 0 else "="


def rater_weights(labels: pd.DataFrame, method: str = "majority") -> pd.Series:
    """Leave-one-out rater reliability weights (methods §5.5; Callison-Burch 2009 §4 "weighting votes").

    ``majority``: w_j = mean, over the items j shares with others, of [j's label = the majority
    label of the **other** raters' judgements of that item] (j's own votes excluded; items
    where the others tie between labels are skipped). ``kappa``: j's mean pairwise κ (uniform
    chance) with each other rater, clipped at 0. Raters without shared items get the median
    weight of the others (all 1 if nobody shares). Returns Series rater -> weight.
    """
    item = ["judgement", "seg_id", "sys_a", "sys_b"]
    raters = list(pd.unique(labels["rater"]))
    w = pd.Series(np.nan, index=raters, dtype=float)
    if method == "majority":
        cnt = labels.groupby(item + ["rater", "label"], sort=False).size().rename("k").reset_index()
        tot = cnt.groupby(item + ["label"], sort=False)["k"].sum().rename("tot").reset_index()
        # votes of the others per (item, rater, label) = total − own
        full = []
        for r in raters:
            own = cnt[cnt["rater"] == r]
            if own.empty:
                continue
            its = own[item].drop_duplicates()
            others = tot.merge(its, on=item).merge(own[item + ["label", "k"]], on=item + ["label"], how="left")
            others["o"] = others["tot"] - others["k"].fillna(0)
            others = others[others["o"] > 0]
            if others.empty:
                continue
            mx = others.groupby(item, sort=False)["o"].transform("max")
            top = others[others["o"] == mx]
            nt = top.groupby(item, sort=False)["label"].transform("size")
            maj = top[nt == 1][item + ["label"]].rename(columns={"label": "maj"})
            mine = labels[labels["rater"] == r][item + ["label"]].merge(maj, on=item)
            if len(mine):
                full.append((r, float((mine["label"] == mine["maj"]).mean())))
        for r, v in full:
            w[r] = v
    elif method == "kappa":
        m = judgement_pairs(labels, "inter")
        if len(m):
            m = m.assign(agree=(m["label_1"] == m["label_2"]).astype(float))
            both = pd.concat([m.rename(columns={"rater_1": "r", "rater_2": "o"})[["r", "o", "agree"]],
                              m.rename(columns={"rater_2": "r", "rater_1": "o"})[["r", "o", "agree"]]])
            pa = both.groupby(["r", "o"])["agree"].mean()
            k = ((pa - 1 / 3) / (1 - 1 / 3)).clip(lower=0)
            w.update(k.groupby(level=0).mean())
    else:
        raise ValueError("method must be majority or kappa")
    if w.isna().all():
        return pd.Series(1.0, index=raters)
    return w.fillna(w.median())


def aggregate(judgements: pd.DataFrame, method: str = "mean", weights: Mapping[str, float] | None = None) -> pd.DataFrame:
    """One score per (system, segment) from several ratings (methods §5.2, §5.5).

    ``mean`` (repeated ratings averaged, methods §5.2), ``median``, or ``weighted``: Σ w_r·x_r / Σ w_r
    with rater weights ``weights`` (default: :func:`rater_weights` of the pairwise labels the
    ratings imply, leave-one-out). Cells whose raters all have weight 0 fall back to the mean.
    Returns system, seg_id, score, n_ratings.
    """
    keys = ["system", "seg_id"]
    if judgements.empty:
        return pd.DataFrame(columns=keys + ["score", "n_ratings"])
    g = judgements.groupby(keys, sort=False)["score"]
    if method in ("mean", "median"):
        out = g.agg(score=method, n_ratings="size").reset_index()
        return out
    if method != "weighted":
        raise ValueError("aggregate must be mean, median or weighted")
    if weights is None:
        # a Series of weights indexed by rater reads as the mapping it stands for
        weights = cast(Mapping[str, float], rater_weights(pairwise_labels(judgements)))
    w = judgements["rater"].map(dict(weights)).fillna(0.0).to_numpy(dtype=float)
    tmp = judgements[keys].copy()
    tmp["wx"] = w * judgements["score"].to_numpy(dtype=float)
    tmp["w"] = w
    tmp["x"] = judgements["score"].to_numpy(dtype=float)
    agg = tmp.groupby(keys, sort=False).agg(wx=("wx", "sum"), w=("w", "sum"), mean=("x", "mean"),
                                            n_ratings=("x", "size")).reset_index()
    agg["score"] = np.where(agg["w"] > 0, agg["wx"] / agg["w"].where(agg["w"] > 0, 1), agg["mean"])
    return agg[keys + ["score", "n_ratings"]]
