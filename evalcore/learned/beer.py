"""BEER-style trained metric (methods §6.1; Stanojević & Sima'an 2015 §2.2, §3.1).

Training (learning to rank, Stanojević & Sima'an 2015 §2.2; methods §6.1 "PRO-style"): from human scores of the
outputs of the same segment, every pair (better w, worse l) whose scores differ by more
than ``threshold`` gives, for each reference r of the segment, Δ = φ(w, r) − φ(l, r) as a
positive example and −Δ as a negative one. A logistic regression (scikit-learn) is fitted
on them. [A] The intercept is fixed at 0: on this symmetric data the optimal intercept is 0
anyway, and fixing it makes BEER(r, r) = 1 exactly. Regularisation: L2 with ``C``, default 100
(weak: the original uses Weka's ridge 1e−8, i.e. almost none; ``C`` is exposed; see
docs/findings.md ("Learned metrics") for the sensitivity).

Scoring (Stanojević & Sima'an 2015 §3.1, methods §6.1): BEER(h, r) = 2·σ(w·(φ(h, r) − φ(r, r))), the maximum
over the references; corpus score = mean of sentence scores (Stanojević & Sima'an 2015 eq. 1).
Explicit rankings (lower rank = better) use ``higher_is_better=False``.
"""
from __future__ import annotations

from typing import Callable, Sequence, cast

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from .evaluate import data_error, human_table, scoring_frame
from .features import BEER_FEATURES, beer_features
from .funcwords import function_words, target_language
from .store import LearnedModel, hash_strings


def preference_pairs(frame: pd.DataFrame, threshold: float = 0.0) -> list[tuple[int, int]]:
    """Row-index pairs (better, worse) of the same segment whose human scores differ by more
    than ``threshold`` (``frame`` as from :func:`evaluate.scoring_frame`)."""
    pairs = []
    for _, g in frame.groupby("seg_id", sort=False):
        idx = g.index.to_numpy()
        h = g["human"].to_numpy()
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                d = h[a] - h[b]
                if d > threshold:
                    pairs.append((int(idx[a]), int(idx[b])))
                elif -d > threshold:
                    pairs.append((int(idx[b]), int(idx[a])))
    return pairs


def pair_differences(frame: pd.DataFrame, pairs: Sequence[tuple[int, int]], lang: str, tokenizer: str,
                     progress: Callable[[float, str], None] | None = None) -> np.ndarray:
    """Δ = φ(better, r) − φ(worse, r) for every pair and every reference of its segment.
    Pairs of identical texts (different human scores, e.g. from different raters) give Δ = 0
    and carry no ranking information: they are skipped (the caller counts them)."""
    rows = []
    for k, (w, l) in enumerate(pairs):
        # the scoring frame's texts are str and its refs a list of str (pandas-stubs: a scalar union)
        tw, tl = cast(str, frame.at[w, "text"]), cast(str, frame.at[l, "text"])
        refs = cast(list[str], frame.at[w, "refs"])
        if tw == tl:
            continue
        for r in refs:
            rows.append(beer_features(tw, r, lang, tokenizer) - beer_features(tl, r, lang, tokenizer))
        if progress is not None and k % 200 == 0:
            progress(k / max(len(pairs), 1), f"features of pair {k}/{len(pairs)}")
    return np.array(rows, dtype=float).reshape(-1, len(BEER_FEATURES))


def fit_pairwise(deltas: np.ndarray, C: float = 100.0) -> np.ndarray:
    """Logistic regression on ±Δ without intercept; returns the weight vector."""
    from sklearn.linear_model import LogisticRegression

    if len(deltas) == 0:
        raise data_error("judgements.tsv", None,
                         "no preference pair: no two outputs of one segment have human scores "
                         "that differ by more than the threshold")
    X = np.vstack([deltas, -deltas])
    y = np.r_[np.ones(len(deltas)), np.zeros(len(deltas))]
    clf = LogisticRegression(C=C, fit_intercept=False, max_iter=5000)
    clf.fit(X, y)
    return clf.coef_[0].copy()


def train_beer(dataset: Dataset, name: str, criterion: str | None = None, seg_ids: Sequence[str] | None = None,
               threshold: float = 0.0, C: float = 100.0, higher_is_better: bool = True, lang: str | None = None,
               tokenizer: str = "13a", progress: Callable[[float, str], None] | None = None) -> LearnedModel:
    """Train a BEER-style model on the segments ``seg_ids`` (all if None)."""
    lang = lang if lang is not None else target_language(dataset.lp)
    _, known = function_words(lang)
    human = human_table(dataset, criterion, higher_is_better)
    frame = scoring_frame(dataset, human, seg_ids)
    pairs = preference_pairs(frame, threshold)
    texts = frame["text"]
    identical = sum(1 for w_, l_ in pairs if cast(str, texts.at[w_]) == cast(str, texts.at[l_]))
    deltas = pair_differences(frame, pairs, lang, tokenizer, progress)
    w = fit_pairwise(deltas, C)
    train_acc = float(np.mean(deltas @ w > 0)) if len(deltas) else float("nan")
    used_segs = sorted(frame["seg_id"].unique())
    model = LearnedModel(
        name=name, kind="beer", features=list(BEER_FEATURES),
        params={"lang": lang, "function_words": "built-in" if known else "punctuation only",
                "tokenizer": tokenizer, "criterion": criterion or dataset.criteria[0], "threshold": threshold,
                "C": C, "higher_is_better": higher_is_better, "intercept": 0.0,
                "alignment": "greedy exact monotone-preferring (not METEOR)"},
        arrays={"weights": w}, data_hash=dataset.content_hash(), train_hash=hash_strings(used_segs),
        scores={"train_pairs": len(pairs) - identical, "identical_text_pairs_skipped": identical,
                "train_examples": int(len(deltas)),
                "train_pairwise_accuracy": train_acc, "train_segments": len(used_segs)})
    if progress is not None:
        progress(1.0, "trained")
    return model


def beer_scores(model: LearnedModel, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
    """max_r 2σ(w·(φ(h, r) − φ(r, r))) for every candidate (methods §6.1)."""
    w = np.asarray(model.arrays["weights"], dtype=float)
    b = float(model.params.get("intercept", 0.0))
    lang, tok = model.params.get("lang", "en"), model.params.get("tokenizer", "13a")
    from scipy.special import expit  # imported when used: the Learned page loads without scipy

    out = np.empty(len(cands))
    for i, (c, rs) in enumerate(zip(cands, refs)):
        rs = [r for r in rs if r is not None]
        if not rs:
            raise ValueError("BEER needs at least one reference")
        best = -np.inf
        for r in rs:
            z = float(w @ (beer_features(c, r, lang, tok) - beer_features(r, r, lang, tok))) + b
            best = max(best, 2.0 * float(expit(z)))
        out[i] = best
    return out


def corpus_score(model: LearnedModel, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> float:
    """Corpus BEER = mean of the sentence scores (Stanojević & Sima'an 2015 eq. 1)."""
    s = beer_scores(model, cands, refs)
    return float(np.mean(s)) if len(s) else float("nan")


def weights_table(model: LearnedModel) -> pd.DataFrame:
    """Feature weights, largest magnitude first (for inspection)."""
    w = np.asarray(model.arrays["weights"], dtype=float)
    t = pd.DataFrame({"feature": model.features, "weight": w})
    return t.reindex(t["weight"].abs().sort_values(ascending=False).index).reset_index(drop=True)
