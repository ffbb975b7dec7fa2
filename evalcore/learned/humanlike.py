"""Human-likeness classifier as a metric (Kulesza 2004, Kulesza 2004, §2.3 and §3).

Examples for free (Kulesza 2004 §3.1): in a segment with references R (|R| ≥ 2), each reference
r_j scored against the *other* references R − {r_j} is a "human" example (label 1), and
each system output scored against the same R − {r_j} is a "machine" example (label 0); a
reference is never scored against itself. ``train_refs="single"`` instead scores against
each other reference alone (useful when the test data has a single reference).
``balance="pair"`` (default) keeps, per human example, one randomly drawn machine example
of the same segment and the same references, so the classes are balanced as in Kulesza 2004
§3.1 (half human, half machine); ``balance="none"`` keeps all and weights classes equally.

Features: Kulesza 2004 §3.2 basic set (:func:`features.humanlike_features`), plus optionally any
registered metric (its oriented multi-reference score).

Model (Kulesza 2004 §3.3, §4.1): features standardised, then an RBF-kernel SVM, grid search over
C and γ by cross-validated accuracy with ``GroupKFold`` on segments (no segment in both a
fold's training and test part), refitted on all training segments. A logistic regression
is the fast baseline (``estimator="logreg"``, grid over C). The metric score is the signed
decision value f(x) = Σ_i α_i y_i K(x_i, x) + b (positive = human side); Kulesza 2004 uses the
distance ⟨w, x⟩ − b, which differs from f only by the constant factor 1/‖w‖, so ranks and
correlations are the same. Scores are computed from the saved arrays (support vectors,
dual coefficients, scaler), not from a pickled scikit-learn object.

Scoring a hypothesis against R mirrors training (``refs_mode``): ``loo-mean`` averages the
decision over the |R| leave-one-out subsets R − {r_j} when |R| ≥ 2 (else uses R);
``single-mean`` averages over single references; ``all`` scores against R once.

Reported (on held-out segments): accuracy on human / machine / all examples; ROC curves
(Kulesza 2004 Fig. 2.2) of the learned score and of standard metrics at telling human from
machine; correlation of the learned score with human judgements of MT outputs (Pearson,
Spearman, Kendall); and, for every grid point, accuracy against that correlation with the
meta-correlation across the grid (Kulesza 2004 Fig. 4.2).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence, cast

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.problems import DataError
from .evaluate import data_error, baseline_scorers, human_table, scoring_frame, split_segments
from .features import HUMANLIKE_FEATURES, humanlike_features
from .store import LearnedModel, hash_strings

Progress = Callable[[float, str], None]


# ---- examples -------------------------------------------------------------------------------
@dataclass
class HumanlikeExamples:
    X: np.ndarray
    y: np.ndarray  # 1 = human (a reference), 0 = machine (a system output)
    groups: np.ndarray  # seg_id of every example
    who: list[str]  # ref_id or system name of the hypothesis
    held_out: list[str]  # the reference set used as the hypothesis slot's counterpart (r_j)
    hyps: list[str]
    ref_sets: list[tuple[str, ...]]
    feature_names: list[str]


def _metric_values(metric_ids: Sequence[str], hyp: str, refs: Sequence[str], tokenize: str | None = None) -> list[float]:
    if not metric_ids:
        return []
    from ..metrics.base import get_metric

    vals = []
    for mid in metric_ids:
        m = get_metric(mid, tokenize)
        vals.append(float(np.asarray(m.oriented(np.array([m.sentence_score(hyp, list(refs))])))[0]))
    return vals


def feature_vector(hyp: str, refs: Sequence[str], extra_metrics: Sequence[str] = (), tokenizer: str = "13a") -> np.ndarray:
    base = humanlike_features(hyp, refs, tokenizer)
    extra = _metric_values(extra_metrics, hyp, refs, tokenizer)  # the model's one tokenizer
    return np.r_[base, extra] if extra else base


def _ref_subsets(refs: list[str], j: int, train_refs: str) -> list[tuple[str, ...]]:
    others = [r for k, r in enumerate(refs) if k != j]
    if train_refs == "loo":
        return [tuple(others)]
    if train_refs == "single":
        return [(r,) for r in others]
    raise ValueError("train_refs must be 'loo' or 'single'")


def segment_references(dataset: Dataset) -> dict[str, list[tuple[str, str]]]:
    """seg_id -> [(ref_id, text)] of the references that have text."""
    out: dict[str, list[tuple[str, str]]] = {}
    for seg, rid, text in zip(dataset.references["seg_id"], dataset.references["ref_id"], dataset.references["text"]):
        if isinstance(text, str):
            out.setdefault(seg, []).append((rid, text))
    return out


def build_examples(dataset: Dataset, seg_ids: Sequence[str] | None = None, balance: str = "pair", seed: int = 0,
                   extra_metrics: Sequence[str] = (), tokenizer: str = "13a", train_refs: str = "loo",
                   progress: Progress | None = None) -> HumanlikeExamples:
    """Human and machine examples of Kulesza 2004 §3.1 (see the module docstring)."""
    if balance not in ("pair", "none"):
        raise ValueError("balance must be 'pair' or 'none'")
    rng = np.random.default_rng(seed)
    refs_by_seg = segment_references(dataset)
    texts = dataset.sys_texts()
    ref_names = set(dataset.ref_ids)
    systems = [s for s in dataset.systems if s not in ref_names]
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    segs = list(seg_ids) if seg_ids is not None else dataset.seg_ids
    X, y, groups, who, held, hyps, rsets = [], [], [], [], [], [], []

    def add(hyp, subset, label, seg, name, rj):
        X.append(feature_vector(hyp, subset, extra_metrics, tokenizer))
        y.append(label)
        groups.append(seg)
        who.append(name)
        held.append(rj)
        hyps.append(hyp)
        rsets.append(subset)

    for k, seg in enumerate(segs):
        refs = refs_by_seg.get(seg, [])
        if len(refs) < 2:
            continue
        outs = [(s, texts[s][pos[seg]]) for s in systems if texts[s][pos[seg]] is not None]
        ref_texts = [t for _, t in refs]
        for j, (rid, rtext) in enumerate(refs):
            for subset in _ref_subsets(ref_texts, j, train_refs):
                add(rtext, subset, 1, seg, rid, rid)
                if not outs:
                    continue
                chosen = [outs[int(rng.integers(len(outs)))]] if balance == "pair" else outs
                for sname, stext in chosen:
                    add(stext, subset, 0, seg, sname, rid)
        if progress is not None and k % 50 == 0:
            progress(k / max(len(segs), 1), f"features of segment {k}/{len(segs)}")
    names = list(HUMANLIKE_FEATURES) + [f"metric:{m}" for m in extra_metrics]
    if not X:
        return HumanlikeExamples(np.zeros((0, len(names))), np.zeros(0, int), np.array([], dtype=object),
                                 [], [], [], [], names)
    return HumanlikeExamples(np.vstack(X), np.array(y, dtype=int), np.array(groups, dtype=object),
                             who, held, hyps, rsets, names)


# ---- the estimator as arrays -----------------------------------------------------------------
def _fit(X: np.ndarray, y: np.ndarray, estimator: str, C: float, gamma: float | None, class_weight):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if estimator == "svc":
        clf = SVC(C=C, kernel="rbf", gamma=gamma, class_weight=class_weight, cache_size=500)
    elif estimator == "logreg":
        clf = LogisticRegression(C=C, class_weight=class_weight, max_iter=5000)
    else:
        raise ValueError("estimator must be 'svc' or 'logreg'")
    return make_pipeline(StandardScaler(), clf).fit(X, y)


def _to_arrays(pipe, estimator: str) -> dict[str, np.ndarray]:
    scaler, clf = pipe.steps[0][1], pipe.steps[-1][1]
    if list(clf.classes_) != [0, 1]:
        raise ValueError("training data must contain both human and machine examples")
    scale = np.where(scaler.scale_ == 0, 1.0, scaler.scale_)
    arr = {"mean": scaler.mean_.copy(), "scale": scale.copy()}
    if estimator == "svc":
        arr.update(support_vectors=clf.support_vectors_.copy(), dual_coef=clf.dual_coef_[0].copy(),
                   intercept=np.array([clf.intercept_[0]]), gamma=np.array([float(clf._gamma)]))
    else:
        arr.update(coef=clf.coef_[0].copy(), intercept=np.array([clf.intercept_[0]]))
    return arr


def decision(arrays: dict[str, np.ndarray], X: np.ndarray) -> np.ndarray:
    """Signed decision value (positive = human) from the saved arrays.

    Each row's value is computed by the same operations whatever the number of rows (numpy's
    own loops, not BLAS matrix products, whose blocking changes with the batch shape and with
    it the last bit), so one candidate scored alone equals the same candidate in a batch."""
    Z = (np.atleast_2d(X) - arrays["mean"]) / arrays["scale"]
    if "support_vectors" in arrays:
        sv = arrays["support_vectors"]
        d2 = (Z ** 2).sum(1)[:, None] + (sv ** 2).sum(1)[None, :] - 2 * np.einsum("ij,kj->ik", Z, sv)
        K = np.exp(-float(arrays["gamma"][0]) * np.maximum(d2, 0.0))
        return (K * arrays["dual_coef"]).sum(1) + float(arrays["intercept"][0])
    return (Z * arrays["coef"]).sum(1) + float(arrays["intercept"][0])


def _scoring_subsets(refs: Sequence[str], refs_mode: str) -> list[tuple[str, ...]]:
    refs = [r for r in refs if r is not None]
    if not refs:
        raise ValueError("the human-likeness metric needs at least one reference")
    if refs_mode == "loo-mean" and len(refs) >= 2:
        return [tuple(r for k, r in enumerate(refs) if k != j) for j in range(len(refs))]
    if refs_mode == "single-mean":
        return [(r,) for r in refs]
    return [tuple(refs)]


def _subset_features(cands, refs, refs_mode, extra, tok):
    feats, owner = [], []
    for i, (c, rs) in enumerate(zip(cands, refs)):
        for sub in _scoring_subsets(rs, refs_mode):
            feats.append(feature_vector(c, sub, extra, tok))
            owner.append(i)
    return np.vstack(feats) if feats else np.zeros((0, 0)), np.array(owner, dtype=int)


def _mean_by_owner(vals: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    sums = np.bincount(owner, weights=vals, minlength=n)
    counts = np.bincount(owner, minlength=n)
    return sums / np.maximum(counts, 1)


def humanlike_scores(model: LearnedModel, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
    p = model.params
    feats, owner = _subset_features(cands, refs, p.get("refs_mode", "loo-mean"), p.get("extra_metrics", []),
                                    p.get("tokenizer", "13a"))
    if len(owner) == 0:
        return np.zeros(0)
    return _mean_by_owner(decision(model.arrays, feats), owner, len(cands))


# ---- training ---------------------------------------------------------------------------------
@dataclass
class HumanlikeReport:
    estimator: str
    best: dict
    grid: pd.DataFrame  # C, gamma, cv_accuracy, test_accuracy, pearson, spearman, kendall
    meta_correlation: dict  # Pearson of accuracy vs Pearson-with-humans across the grid
    accuracy: dict  # human / machine / overall on held-out examples (or CV when none)
    roc: dict  # name -> {"fpr", "tpr", "auc"} on held-out examples
    human_correlation: dict  # learned score vs human judgements on held-out segments
    train_segments: list[str]
    test_segments: list[str]
    folds: list[tuple[list[str], list[str]]]
    n_train_examples: int
    n_test_examples: int
    notes: list[str] = field(default_factory=list)
    test_examples: "HumanlikeExamples | None" = None  # the held-out examples (for importances, ROC)


def _accuracy(y: np.ndarray, d: np.ndarray) -> dict:
    pred = (d > 0).astype(int)
    h, m = y == 1, y == 0
    return {"human": float(np.mean(pred[h] == 1)) if h.any() else float("nan"),
            "machine": float(np.mean(pred[m] == 0)) if m.any() else float("nan"),
            "overall": float(np.mean(pred == y)) if len(y) else float("nan"),
            "n_human": int(h.sum()), "n_machine": int(m.sum())}


def _corrs(x: np.ndarray, h: np.ndarray) -> dict:
    if len(x) < 3 or np.std(x) == 0 or np.std(h) == 0:
        return {"pearson": float("nan"), "spearman": float("nan"), "kendall": float("nan"), "n": int(len(x))}
    from scipy import stats  # imported when used: the Learned page loads without it

    return {"pearson": float(stats.pearsonr(x, h)[0]), "spearman": float(stats.spearmanr(x, h)[0]),
            "kendall": float(stats.kendalltau(x, h)[0]), "n": int(len(x))}


def roc(y: np.ndarray, score: np.ndarray) -> dict:
    """ROC of ``score`` at telling human (1) from machine (0), higher = more human.
    Kulesza 2004 Fig. 2.2 plots tpr (humans recognised) against 1 − fpr (machines recognised)."""
    from sklearn.metrics import roc_auc_score, roc_curve

    fpr, tpr, thr = roc_curve(y, score)
    return {"fpr": fpr, "tpr": tpr, "thresholds": thr, "auc": float(roc_auc_score(y, score))}


def train_humanlike(dataset: Dataset, name: str, estimator: str = "svc",
                    C_grid: Sequence[float] = (0.1, 1.0, 10.0, 100.0),
                    gamma_grid: Sequence[float] = (0.01, 0.1, 1.0),
                    n_folds: int = 3, test_fraction: float = 1 / 3, seed: int = 0, balance: str = "pair",
                    train_refs: str = "loo", extra_metrics: Sequence[str] = (), criterion: str | None = None,
                    higher_is_better: bool = True, max_train_examples: int = 6000, tokenizer: str = "13a",
                    progress: Progress | None = None) -> tuple[LearnedModel, HumanlikeReport]:
    """Train the human-likeness metric; see the module docstring. ``test_fraction=0`` trains
    on every eligible segment and reports cross-validated accuracy only."""
    notes: list[str] = []
    refs_by_seg = segment_references(dataset)
    eligible = [s for s in dataset.seg_ids if len(refs_by_seg.get(s, [])) >= 2]
    if len(eligible) < max(n_folds, 2):
        raise data_error("references.tsv", None,
                         f"the human-likeness classifier needs segments with at least two references "
                         f"(a reference is never scored against itself); {len(eligible)} segment(s) "
                         f"of {dataset.n_segments} have two or more, need at least {max(n_folds, 2)}")
    if test_fraction > 0:
        train_segs, test_segs = split_segments(eligible, test_fraction, seed)
    else:
        train_segs, test_segs = list(eligible), []
    # cap the training size by dropping whole segments (never splitting one)
    per_seg: float = 2 * len(refs_by_seg[eligible[0]]) * (1 if train_refs == "loo" else len(refs_by_seg[eligible[0]]) - 1)
    if balance == "none":
        per_seg *= max(1, len(dataset.systems)) / 2
    max_segs = max(n_folds, int(max_train_examples // max(per_seg, 1)))
    if len(train_segs) > max_segs:
        rng = np.random.default_rng(seed + 1)
        keep = set(rng.choice(train_segs, size=max_segs, replace=False))
        notes.append(f"training capped at {max_segs} of {len(train_segs)} segments (max_train_examples="
                     f"{max_train_examples})")
        train_segs = [s for s in train_segs if s in keep]

    sub = (lambda lo, hi: (lambda f, msg: progress(lo + (hi - lo) * f, msg))) if progress else (lambda lo, hi: None)
    tr = build_examples(dataset, train_segs, balance, seed, extra_metrics, tokenizer, train_refs, sub(0.0, 0.25))
    te = build_examples(dataset, test_segs, balance, seed + 7, extra_metrics, tokenizer, train_refs,
                        sub(0.25, 0.35)) if test_segs else None
    if len(set(tr.y.tolist())) < 2:
        raise data_error("outputs.tsv", None,
                         "no machine example: the training segments have no system output with text")
    class_weight = "balanced" if balance == "none" else None

    # human judgements of MT outputs in the held-out segments (for correlations)
    judged = None
    try:
        if len(dataset.judgements) and test_segs:
            judged = scoring_frame(dataset, human_table(dataset, criterion, higher_is_better), test_segs)
            if judged.empty:
                judged = None
    except DataError as exc:
        notes.append(f"no correlation with human judgements: {exc}")
    refs_mode = "loo-mean" if train_refs == "loo" else "single-mean"
    jfeats = jowner = None
    if judged is not None:
        jfeats, jowner = _subset_features(list(judged["text"]), list(judged["refs"]), refs_mode, extra_metrics,
                                          tokenizer)

    from sklearn.model_selection import GroupKFold

    n_groups = len(set(tr.groups.tolist()))
    gkf = GroupKFold(n_splits=min(n_folds, n_groups))
    splits = list(gkf.split(tr.X, tr.y, tr.groups))
    folds = [(sorted(set(tr.groups[a].tolist())), sorted(set(tr.groups[b].tolist()))) for a, b in splits]
    gammas = list(gamma_grid) if estimator == "svc" else [None]
    grid_rows, fitted = [], {}
    total = len(C_grid) * len(gammas)
    for gi, (C, g) in enumerate((C, g) for C in C_grid for g in gammas):
        accs = []
        for a, b in splits:
            pipe = _fit(tr.X[a], tr.y[a], estimator, C, g, class_weight)
            accs.append(float(np.mean(pipe.predict(tr.X[b]) == tr.y[b])))
        arrays = _to_arrays(_fit(tr.X, tr.y, estimator, C, g, class_weight), estimator)
        fitted[(C, g)] = arrays
        row = {"C": C, "gamma": g, "cv_accuracy": float(np.mean(accs))}
        if te is not None:
            row["test_accuracy"] = _accuracy(te.y, decision(arrays, te.X))["overall"]
        if judged is not None:
            assert jfeats is not None and jowner is not None  # computed with judged
            row.update(_corrs(_mean_by_owner(decision(arrays, jfeats), jowner, len(judged)),
                              judged["human"].to_numpy()))
        grid_rows.append(row)
        if progress:
            progress(0.35 + 0.6 * (gi + 1) / total, f"grid point {gi + 1}/{total} (C={C}, gamma={g})")
    grid = pd.DataFrame(grid_rows)
    best_i = int(np.argmax(grid["cv_accuracy"].to_numpy()))  # first maximum wins
    best = {"C": float(grid["C"].to_numpy(float)[best_i]),
            "gamma": None if estimator != "svc" else float(grid["gamma"].to_numpy(float)[best_i])}
    # the grid's C and gamma are the floats the models were fitted with (pandas-stubs: a scalar union)
    arrays = fitted[cast(tuple[float, float | None],
                         (grid.at[best_i, "C"], grid.at[best_i, "gamma"] if estimator == "svc" else None))]

    acc_col = "test_accuracy" if te is not None else "cv_accuracy"
    meta = {"accuracy": acc_col, "pearson": float("nan"), "n_grid": len(grid)}
    if "pearson" in grid and len(grid) >= 3 and grid[acc_col].std() > 0 and grid["pearson"].std() > 0:
        ok = grid[[acc_col, "pearson"]].dropna()
        if len(ok) >= 3:
            from scipy import stats

            meta["pearson"] = float(stats.pearsonr(ok[acc_col], ok["pearson"])[0])

    if te is not None:
        d_te = decision(arrays, te.X)
        accuracy = _accuracy(te.y, d_te)
        rocs = roc_curves(te, {"learned": d_te})
    else:
        accuracy = {"overall": float(grid["cv_accuracy"].to_numpy(float)[best_i]), "note": "cross-validated (no held-out split)"}
        rocs = {}
    human_corr = {k: grid.at[best_i, k] for k in ("pearson", "spearman", "kendall", "n")} if judged is not None else {}

    params = {"estimator": estimator, "C": best["C"], "gamma": best["gamma"], "refs_mode": refs_mode,
              "train_refs": train_refs, "balance": balance, "extra_metrics": list(extra_metrics),
              "tokenizer": tokenizer, "n_folds": len(splits), "test_fraction": test_fraction, "seed": seed,
              "C_grid": list(C_grid), "gamma_grid": list(gammas)}
    scores = {"accuracy": accuracy, "human_correlation": human_corr,
              "roc_auc": {k: v["auc"] for k, v in rocs.items()}, "meta_correlation": meta,
              "n_train_examples": int(len(tr.y)), "n_test_examples": int(len(te.y)) if te is not None else 0,
              "train_segments": len(train_segs), "test_segments": len(test_segs)}
    model = LearnedModel(name=name, kind="humanlike", features=tr.feature_names, params=params, arrays=arrays,
                         data_hash=dataset.content_hash(), train_hash=hash_strings(sorted(train_segs)), scores=scores)
    report = HumanlikeReport(estimator, best, grid, meta, accuracy, rocs, human_corr, list(train_segs),
                             list(test_segs), folds, int(len(tr.y)), int(len(te.y)) if te is not None else 0, notes,
                             te)
    if progress:
        progress(1.0, "trained")
    return model, report


# ---- inspection helpers (dashboard, CLI) -------------------------------------------------------
def roc_curves(examples: HumanlikeExamples, learned: dict[str, np.ndarray] | None = None,
               standard: bool = True) -> dict:
    """ROC curves at telling human (1) from machine (0) examples (Kulesza 2004 Fig. 2.2):
    ``learned`` maps a name to scores of ``examples`` (higher = more human); ``standard``
    adds sentence BLEU and chrF (scored against each example's reference set) and −WER, −PER
    (the basic features, negated so that higher = more human-like)."""
    rocs = {k: roc(examples.y, np.asarray(v, dtype=float)) for k, v in (learned or {}).items()}
    if standard:
        for bname, fn in baseline_scorers().items():
            rocs[bname] = roc(examples.y, fn(examples.hyps, [list(r) for r in examples.ref_sets]))
        for k, fname in enumerate(examples.feature_names):
            if fname in ("wer", "per"):
                rocs[f"-{fname.upper()}"] = roc(examples.y, -examples.X[:, k])
    return rocs


def permutation_importance(arrays: dict[str, np.ndarray], examples: HumanlikeExamples, repeats: int = 10,
                           seed: int = 0) -> pd.DataFrame:
    """Permutation importance (Breiman 2001) of every feature on ``examples``: the drop in
    classification accuracy when that feature's column is shuffled, mean and standard
    deviation over ``repeats`` shuffles. Works for any saved estimator (RBF SVM included,
    which has no per-feature weights). For a logistic regression the standardised weight is
    added as column ``weight``."""
    X, y = examples.X, examples.y
    rng = np.random.default_rng(seed)
    base = float(np.mean((decision(arrays, X) > 0).astype(int) == y)) if len(y) else float("nan")
    rows = []
    for k, name in enumerate(examples.feature_names):
        drops = []
        for _ in range(repeats):
            Xp = X.copy()
            Xp[:, k] = X[rng.permutation(len(X)), k]
            drops.append(base - float(np.mean((decision(arrays, Xp) > 0).astype(int) == y)))
        row = {"feature": name, "importance": float(np.mean(drops)), "importance_sd": float(np.std(drops))}
        if "coef" in arrays:
            row["weight"] = float(arrays["coef"][k])
        rows.append(row)
    t = pd.DataFrame(rows)
    return t.sort_values("importance", ascending=False, kind="stable").reset_index(drop=True)
