"""Held-out evaluation of learned metrics against sentence BLEU and chrF.

Statistics (methods §3.3, MTME semantics), computed with :func:`evalcore.stats.correlation`
on the (system × segment) matrix of the systems that have text and human scores
(references judged as systems are left out, methods §3.2):

* ``seg_darr``: WMT "daRR" Kendall-like τ (methods §3.3 KendallLike, §4.1), pooled over
  segments: over every pair of systems of the same segment whose human scores differ by
  more than ``threshold`` (default 0: any difference; WMT DA used 25), concordant if the
  metric orders it like the humans, otherwise discordant — **metric ties count as
  discordant**; τ = (C − D)/(C + D). (``method="darr"``, ``thresh_inclusive=False``.)
* ``seg_acc23``: pairwise accuracy with ties, acc23 = (C + T_hm)/N per segment (all
  pairs), averaged over segments (grouping ``item``), with ε = 0.
* ``seg_acc23_cal`` / ``acc23_epsilon``: the same with tie calibration (methods §3.3: the
  single global ε maximising acc23, as in WMT23); the chosen ε is on the metric's scale.
* ``sys_pearson``: Pearson r between per-system means of the metric and of the human
  scores over the evaluated segments (NaN with fewer than 3 systems).

Human scores of several raters for one (system, segment) are averaged first.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.problems import DataError, Problem, Report

def data_error(file: str, line: int | None, message: str) -> DataError:
    """A :class:`DataError` carrying one error problem."""
    return DataError(Report([Problem("error", file, line, message)]))


Scorer = Callable[[Sequence[str], Sequence[Sequence[str]]], np.ndarray]


def human_table(dataset: Dataset, criterion: str | None = None, higher_is_better: bool = True) -> pd.DataFrame:
    """Mean human score per (system, seg_id) for ``criterion`` (the only one if None).
    Scores of ``lower is better`` criteria (e.g. ranks) are negated so higher = better."""
    crits = dataset.criteria
    if not crits:
        raise data_error("judgements.tsv", None,
                         "this dataset has no human judgements; a learned metric needs them "
                         "(beer: for training; both: for evaluation)")
    if criterion is None:
        if len(crits) > 1:
            raise data_error("judgements.tsv", None,
                             f"several human criteria {crits}; choose one with --human")
        criterion = crits[0]
    if criterion not in crits:
        raise data_error("judgements.tsv", None,
                         f"unknown human criterion {criterion!r}; available: {crits}")
    j = dataset.judgements[dataset.judgements["judgement"] == criterion]
    j = j[np.isfinite(j["score"])]
    tab = j.groupby(["system", "seg_id"], sort=False)["score"].mean().reset_index()
    if not higher_is_better:
        tab["score"] = -tab["score"]
    return tab


def scoring_frame(dataset: Dataset, human: pd.DataFrame, seg_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows (system, seg_id, text, refs, human) for judged MT outputs with text and references."""
    refs_by_seg = _refs_by_segment(dataset)
    texts = dataset.sys_texts()
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    keep = set(seg_ids) if seg_ids is not None else None
    ref_names = set(dataset.ref_ids)
    rows = []
    for sys_, seg, score in zip(human["system"], human["seg_id"], human["score"]):
        if sys_ in ref_names or sys_ not in texts or seg not in pos:
            continue
        if keep is not None and seg not in keep:
            continue
        text = texts[sys_][pos[seg]]
        refs = refs_by_seg.get(seg, [])
        if text is None or not refs:
            continue
        rows.append((sys_, seg, text, refs, float(score)))
    return pd.DataFrame(rows, columns=["system", "seg_id", "text", "refs", "human"])


def _refs_by_segment(dataset: Dataset) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for seg, text in zip(dataset.references["seg_id"], dataset.references["text"]):
        if isinstance(text, str):
            out.setdefault(seg, []).append(text)
    return out


def _matrices(frame: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(gold, metric) matrices of shape (n_sys, n_segments), NaN where a cell has no score."""
    from ..stats.correlation import pivot_scores

    g, systems, segs = pivot_scores(frame, value="human")
    m, _, _ = pivot_scores(frame, systems, segs, value=metric)
    return g, m


def darr_kendall(frame: pd.DataFrame, metric: str, threshold: float = 0.0) -> tuple[float, int]:
    """WMT daRR τ pooled over segments (methods §3.3 KendallLike, §4.1), pairs with
    |Δhuman| > ``threshold``; returns (τ, number of pairs)."""
    from ..stats.correlation import correlation, group_values, grouped

    g, m = _matrices(frame, metric)
    res = correlation(g, m, "darr", "item", thresh=threshold, thresh_inclusive=False)
    g_items, m_items = grouped(g, m, "item")
    _, pairs = group_values(g_items, m_items, "darr", thresh=threshold, thresh_inclusive=False)
    n = int(pairs.sum())
    return (float(res.value) if n else 0.0), n


def acc23(frame: pd.DataFrame, metric: str, tie_calibration: bool = False) -> float:
    """acc23 = (C + T_hm)/N per segment, averaged over segments (methods §3.3); ε = 0, or the
    tie-calibrated ε with ``tie_calibration`` (see :func:`acc23_calibrated`)."""
    if tie_calibration:
        return acc23_calibrated(frame, metric)[0]
    from ..stats.correlation import correlation

    return float(correlation(*_matrices(frame, metric), "acc23", "item").value)


def acc23_calibrated(frame: pd.DataFrame, metric: str) -> tuple[float, float]:
    """Tie-calibrated acc23 (methods §3.3): returns (acc23, chosen ε)."""
    from ..stats.correlation import correlation

    res = correlation(*_matrices(frame, metric), "acc23", "item", tie_calibration=True)
    return float(res.value), float(res.epsilon)


def system_pearson(frame: pd.DataFrame, metric: str) -> tuple[float, int]:
    """Pearson r of per-system means (methods §3.1 system level); (NaN, n) below 3 systems."""
    from ..stats.correlation import correlation, system_level

    gs, ms = system_level(*_matrices(frame, metric))
    n = int(np.sum(~np.isnan(gs)))
    if n < 3:
        return float("nan"), n
    return float(correlation(gs, ms, "pearson").value), n


def baseline_scorers() -> dict[str, Scorer]:
    """Sentence BLEU and chrF as sacreBLEU 2.x computes them (defaults; methods §0)."""
    import sacrebleu

    def bleu(cands, refs):
        return np.array([sacrebleu.sentence_bleu(c, list(r)).score for c, r in zip(cands, refs)])

    def chrf(cands, refs):
        return np.array([sacrebleu.sentence_chrf(c, list(r)).score for c, r in zip(cands, refs)])

    return {"sentBLEU": bleu, "chrF": chrf}


def compare_metrics(dataset: Dataset, scorers: Mapping[str, Scorer], criterion: str | None = None,
                    seg_ids: Sequence[str] | None = None, threshold: float = 0.0,
                    higher_is_better: bool = True, frame: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Segment-level daRR τ and acc23 and system-level Pearson of every scorer on
    ``seg_ids`` (all segments if None). Returns (summary table, scored frame)."""
    if frame is None:
        frame = scoring_frame(dataset, human_table(dataset, criterion, higher_is_better), seg_ids)
    if frame.empty:
        raise data_error("", None, "no judged system output with text and a reference "
                         "in the evaluation segments")
    frame = frame.copy()
    rows = []
    for name, fn in scorers.items():
        frame[name] = np.asarray(fn(list(frame["text"]), list(frame["refs"])), dtype=float)
        tau, npairs = darr_kendall(frame, name, threshold)
        r_sys, nsys = system_pearson(frame, name)
        cal, eps = acc23_calibrated(frame, name)
        rows.append({"metric": name, "seg_darr": tau, "seg_acc23": acc23(frame, name),
                     "seg_acc23_cal": cal, "acc23_epsilon": eps,
                     "sys_pearson": r_sys, "darr_pairs": npairs, "systems": nsys,
                     "segments": frame["seg_id"].nunique()})
    return pd.DataFrame(rows), frame


def split_segments(seg_ids: Sequence[str], test_fraction: float, seed: int = 0) -> tuple[list[str], list[str]]:
    """Random split of segment ids into (train, test); no segment is in both."""
    if not 0 < test_fraction < 1:
        raise ValueError("test_fraction must be between 0 and 1")
    ids = list(dict.fromkeys(seg_ids))
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(ids))
    n_test = max(1, int(round(len(ids) * test_fraction)))
    test = sorted((ids[i] for i in perm[:n_test]), key=ids.index)
    test_set = set(test)
    train = [s for s in ids if s not in test_set]
    return train, test
