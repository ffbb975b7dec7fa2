"""Human scores of a :class:`~evalcore.core.dataset.Dataset` (methods §0, §5): the judgement rows of
one criterion (:func:`criterion_judgements`, MQM computed from error rows where needed),
per-(system, segment) scores (:func:`human_scores`: normalised per rater, then aggregated),
system-level scores (:func:`system_scores`) and the system scores a dataset gives directly
(:func:`given_system_scores`) and the one source of system-level human scores every page and
command uses (:func:`human_system_scores`: the given ones when the data has them, else the mean
of segment scores). Pure functions, no UI.
"""
from __future__ import annotations

from typing import Mapping

import pandas as pd

from .mqm import mqm_scores
from .normalise import aggregate as _aggregate
from .normalise import normalise


def criterion_judgements(dataset, criterion: str, mqm_weights: Mapping[str, float] | str | None = None) -> pd.DataFrame:
    """The judgement rows of one criterion. For ``mqm`` without stored scores but with error rows
    (``dataset.extras["mqm_errors"]``), per-rater MQM scores are computed with :func:`mqm_scores`
    (methods §0); given ``mqm_weights`` they are always recomputed from the error rows."""
    j = dataset.judgements
    sub = j[j["judgement"] == criterion]
    errs = dataset.extras.get("mqm_errors") if hasattr(dataset, "extras") else None
    if criterion == "mqm" and errs is not None and len(errs) and (sub.empty or mqm_weights is not None):
        sc = mqm_scores(errs, mqm_weights, per="rater")
        sc = sc.assign(seg_id=sc["seg_id"].astype(str))
        return sc[["system", "seg_id", "rater", "judgement", "score"]]
    if sub.empty:
        raise ValueError(f"no judgements for criterion {criterion!r}; available: {dataset.criteria}")
    return sub


def given_system_scores(dataset, criterion: str) -> pd.DataFrame:
    """Human scores given per system (not per segment) for ``criterion``: ``system, score``.

    They come from ``dataset.extras["system_scores"]`` (columns scorer, system, score), filled
    by the loaders from judgement rows with an empty seg_id (tidy TSV), from mt-metrics-eval
    ``<lp>.<scorer>.sys.score`` files and from WMT-style system score tables (see
    docs/formats.md). Published system-level correlations (e.g. Mathur et al. 2020) are
    computed against these, not against the mean of segment scores. Several rows of one
    system are averaged. Empty when the dataset has none for ``criterion``.
    """
    extra = getattr(dataset, "extras", {}).get("system_scores")
    if extra is None or not len(extra) or "scorer" not in extra:
        return pd.DataFrame({"system": pd.Series(dtype=object), "score": pd.Series(dtype=float)})
    sub = extra[extra["scorer"].astype(str) == criterion]
    scores = pd.to_numeric(sub["score"], errors="coerce")
    sub = sub.assign(score=scores)[scores.notna()]
    return sub.groupby("system", sort=False)["score"].mean().reset_index()


def human_scores(dataset, criterion: str, normalisation: str = "raw", aggregate: str = "mean",
                 include_references: bool = True, mqm_weights: Mapping[str, float] | str | None = None,
                 ddof: int = 1) -> pd.DataFrame:
    """Per-(system, segment) human scores of a :class:`~evalcore.core.dataset.Dataset` (methods §0, §5).

    Rows of ``criterion`` are normalised per rater (:func:`normalise`), aggregated per
    (system, segment) (:func:`~evalcore.human.normalise.aggregate`: mean | median | weighted); reference sets judged like
    systems are dropped unless ``include_references``. Returns system, seg_id, score, n_ratings
    (excluded raters in ``attrs["excluded_raters"]``).
    """
    j = criterion_judgements(dataset, criterion, mqm_weights)
    if not include_references:
        refs = set(dataset.references["ref_id"])
        j = j[~j["system"].isin(refs)]
    norm = normalise(j, normalisation, ddof=ddof)
    out = _aggregate(norm, aggregate)
    out.attrs["excluded_raters"] = norm.attrs.get("excluded_raters", [])
    return out.reset_index(drop=True)


def system_scores(dataset, criterion: str, normalisation: str = "raw", aggregate: str = "mean",
                  include_references: bool = True, mqm_weights: Mapping[str, float] | str | None = None,
                  ddof: int = 1) -> pd.DataFrame:
    """System-level human scores: the mean over segments of :func:`human_scores` (methods §5.2).

    Returns system, score, n_segments, is_reference, sorted by score descending.
    """
    seg = human_scores(dataset, criterion, normalisation, aggregate, include_references, mqm_weights, ddof)
    out = seg.groupby("system", sort=False).agg(score=("score", "mean"), n_segments=("score", "size")).reset_index()
    refs = set(dataset.references["ref_id"])
    out["is_reference"] = out["system"].isin(refs)
    return out.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)


def human_system_scores(dataset, criterion: str, normalisation: str = "raw", aggregate: str = "mean",
                        include_references: bool = True) -> pd.DataFrame:
    """System-level human scores of ``criterion``, the same for every page and command (methods §3.2).

    When the dataset gives system-level scores for the criterion (:func:`given_system_scores`:
    mt-metrics-eval ``<lp>.<scorer>.sys.score``, WMT ``*_sys_scores.tsv``, tidy rows without a
    seg_id) those are used, as mt-metrics-eval and the published WMT correlations do (Mathur et
    al. 2020); ``normalisation`` then does not apply to them. Otherwise the mean over segments of
    :func:`human_scores` (:func:`system_scores`). Returns system, score, n_segments (NaN for given
    scores), source ("given" | "segment mean"); ``attrs["note"]`` says which was used.
    """
    given = given_system_scores(dataset, criterion)
    if len(given):
        out = given.assign(n_segments=float("nan"), source="given")
        if not include_references:
            out = out[~out["system"].isin(set(dataset.references["ref_id"]))]
        out = out.reset_index(drop=True)
        out.attrs["note"] = (f"human scores: the given system-level {criterion} scores of {len(out)} system(s) "
                             "(not the mean of segment scores" + (f"; {normalisation} normalisation does not apply "
                                                                 "to them" if normalisation != "raw" else "") + ")")
        return out
    seg = system_scores(dataset, criterion, normalisation, aggregate, include_references)
    out = seg[["system", "score", "n_segments"]].assign(source="segment mean")
    out.attrs["note"] = f"human scores: {criterion} ({normalisation}), mean over judged segments"
    return out


def human_criteria(dataset) -> list[str]:
    """The criteria with human scores: those judged per segment, then those only given per system
    (e.g. an mt-metrics-eval folder with just ``<lp>.wmt-z.sys.score``)."""
    out = list(dataset.criteria)
    extra = getattr(dataset, "extras", {}).get("system_scores")
    if extra is not None and len(extra) and "scorer" in extra:
        out += [c for c in dict.fromkeys(extra["scorer"].astype(str)) if c not in out]
    return out
