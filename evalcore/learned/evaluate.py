"""Held-out evaluation of learned metrics against sentence BLEU and chrF (issue 7).

Statistics (spec §3.4, MTME semantics), computed on the systems that have text and human
scores (references judged as systems are left out, spec §3.3):

* ``seg_darr``: WMT "daRR" Kendall-like τ, pooled over segments: over every pair of systems
  of the same segment whose human scores differ by more than ``threshold`` (default 0:
  any difference; WMT DA used 25), concordant if the metric orders it like the humans,
  otherwise discordant — **metric ties count as discordant**; τ = (C − D)/(C + D).
* ``seg_acc23``: pairwise accuracy with ties, acc23 = (C + T_hm)/N per segment (all pairs),
  averaged over segments (``avg_by='item'``), with ε = 0 (no tie calibration here).
* ``sys_pearson``: Pearson r between per-system means of the metric and of the human
  scores over the evaluated segments.

Human scores of several raters for one (system, segment) are averaged first.
When :mod:`evalcore.stats.correlation` exists these could be taken from there; they are
written here so the learned-metric package can be tested on its own.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..dataset import Dataset
from ..problems import DataError, Problem, Report

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


def darr_kendall(frame: pd.DataFrame, metric: str, threshold: float = 0.0) -> tuple[float, int]:
    """WMT daRR τ pooled over segments (spec §3.4 KendallLike); returns (τ, number of pairs)."""
    conc = disc = 0
    for _, g in frame.groupby("seg_id", sort=False):
        h = g["human"].to_numpy()
        m = g[metric].to_numpy()
        dh = h[:, None] - h[None, :]
        dm = m[:, None] - m[None, :]
        iu = np.triu_indices(len(h), 1)
        dh, dm = dh[iu], dm[iu]
        sel = np.abs(dh) > threshold
        agree = np.sign(dh[sel]) == np.sign(dm[sel])
        agree &= dm[sel] != 0  # metric ties are discordant
        conc += int(agree.sum())
        disc += int((~agree).sum())
    n = conc + disc
    return ((conc - disc) / n if n else 0.0), n


def acc23(frame: pd.DataFrame, metric: str) -> float:
    """acc23 = (C + T_hm)/N per segment, averaged over segments (spec §3.4), ε = 0."""
    accs = []
    for _, g in frame.groupby("seg_id", sort=False):
        if len(g) < 2:
            continue
        h = g["human"].to_numpy()
        m = g[metric].to_numpy()
        iu = np.triu_indices(len(h), 1)
        sh = np.sign((h[:, None] - h[None, :])[iu])
        sm = np.sign((m[:, None] - m[None, :])[iu])
        accs.append(float(np.mean(sh == sm)))
    return float(np.mean(accs)) if accs else float("nan")


def system_pearson(frame: pd.DataFrame, metric: str) -> tuple[float, int]:
    sys_means = frame.groupby("system", sort=True)[["human", metric]].mean()
    if len(sys_means) < 3 or sys_means[metric].std() == 0 or sys_means["human"].std() == 0:
        return float("nan"), len(sys_means)
    return float(stats.pearsonr(sys_means[metric], sys_means["human"])[0]), len(sys_means)


def baseline_scorers() -> dict[str, Scorer]:
    """Sentence BLEU and chrF as sacreBLEU 2.x computes them (defaults; spec §0.9)."""
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
        rows.append({"metric": name, "seg_darr": tau, "seg_acc23": acc23(frame, name),
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
