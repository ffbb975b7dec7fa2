"""Train a learned metric, inspect it and compare it on held-out segments, in one call.

This is what the dashboard page "Learned metrics" and the CLI ``learn`` command both run
(the command adds its printing, ``--eval`` on another dataset and saving). Steps:

1. split the segments into training and held-out parts, no segment on both sides
   (:func:`evaluate.split_segments`; BEER: over judged segments, as the CLI; human-likeness:
   over segments with ≥ 2 references, inside :func:`humanlike.train_humanlike`);
2. train (BEER-style ranker, Stanojević & Sima'an 2015 / methods §6.1; or human-likeness classifier, Kulesza 2004 §3);
3. inspect: BEER weights; human-likeness permutation importances on the held-out examples
   (plus the weights of a logistic regression);
4. ROC curves of the learned score and of standard metrics at telling human from machine
   on held-out examples (Kulesza 2004 Fig. 2.2; needs ≥ 2 references per segment);
5. human-likeness only: accuracy vs correlation over the grid with its meta-correlation
   (Kulesza 2004 Fig. 4.2);
6. the held-out comparison with sentence BLEU and chrF (:func:`evaluate.compare_metrics`:
   segment-level daRR τ and acc23, system-level Pearson).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.problems import DataError
from ..core.progress import stage
from .beer import train_beer, weights_table
from .evaluate import baseline_scorers, compare_metrics, data_error, split_segments
from .humanlike import (HumanlikeReport, build_examples, permutation_importance, roc_curves,
                        segment_references, train_humanlike)
from .store import LearnedModel

Progress = Callable[[float, str], None]
KINDS = ("beer", "humanlike")


@dataclass
class LearnedRun:
    """Everything the dashboard shows about one training run."""

    kind: str
    model: LearnedModel
    criterion: str | None
    options: dict
    train_segments: list[str]
    test_segments: list[str]
    weights: pd.DataFrame  # beer: feature, weight; humanlike: feature, importance, importance_sd[, weight]
    roc: dict  # name -> {"fpr", "tpr", "thresholds", "auc"} (empty when not computable)
    heldout: pd.DataFrame | None  # compare_metrics summary on the held-out judged segments
    heldout_frame: pd.DataFrame | None  # the scored rows behind it
    grid: pd.DataFrame | None = None  # humanlike: C, gamma, cv_accuracy, test_accuracy, pearson, ...
    meta_correlation: dict | None = None
    accuracy: dict | None = None
    human_correlation: dict | None = None
    notes: list[str] = field(default_factory=list)
    report: HumanlikeReport | None = None  # humanlike: the full training report (grid, examples, ...)


def judged_segments(dataset: Dataset) -> list[str]:
    """Segments with at least one human judgement, in dataset order."""
    judged = set(dataset.judgements["seg_id"]) if len(dataset.judgements) else set()
    return [s for s in dataset.seg_ids if s in judged]


def train_and_compare(dataset: Dataset, kind: str, name: str = "unsaved", criterion: str | None = None, *,
                      test_fraction: float = 1 / 3, seed: int = 0, threshold: float = 0.0,
                      higher_is_better: bool = True, C: float = 100.0,
                      C_grid: Sequence[float] = (0.1, 1.0, 10.0, 100.0),
                      gamma_grid: Sequence[float] = (0.01, 0.1, 1.0), estimator: str = "svc",
                      train_refs: str = "loo", extra_metrics: Sequence[str] = (), max_train_examples: int = 6000,
                      progress: Progress | None = None) -> LearnedRun:
    """Train a ``kind`` ("beer" or "humanlike") model on ``dataset`` and evaluate it on the
    held-out segments (see the module docstring). ``C`` is BEER's regularisation;
    ``C_grid`` / ``gamma_grid`` / ``estimator`` are the human-likeness grid search and
    ``train_refs`` / ``extra_metrics`` / ``max_train_examples`` its examples
    (:func:`humanlike.train_humanlike`);
    ``threshold`` is the minimum human-score difference of a BEER training pair and of a
    daRR pair. Raises :class:`DataError` when the data cannot support the chosen kind."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    if criterion is None and dataset.criteria:
        criterion = dataset.criteria[0]
    options: dict[str, Any] = {"kind": kind, "criterion": criterion, "test_fraction": test_fraction, "seed": seed,
               "threshold": threshold, "higher_is_better": higher_is_better}
    notes: list[str] = []
    judged = judged_segments(dataset)
    grid = meta = accuracy = human_corr = rep = None

    if kind == "beer":
        options["C"] = C
        if not dataset.criteria:
            raise data_error("judgements.tsv", None, "the BEER-style ranker learns from human judgements, "
                             "and this dataset has none")
        if test_fraction > 0:
            if len(judged) < 2:
                raise data_error("judgements.tsv", None, f"{len(judged)} judged segment(s): too few to hold "
                                 "some out; set the held-out fraction to 0")
            train_segs, test_segs = split_segments(judged, test_fraction, seed)
        else:
            train_segs, test_segs = list(judged), []
        model = train_beer(dataset, name, criterion, train_segs, threshold, C, higher_is_better,
                           progress=stage(progress, 0.0, 0.55))
        weights = weights_table(model)
        rocs: dict = {}
        refs_by_seg = segment_references(dataset)
        roc_segs = [s for s in test_segs if len(refs_by_seg.get(s, [])) >= 2]
        if roc_segs:
            if progress:
                progress(0.6, "ROC: scoring held-out references and outputs")
            ex = build_examples(dataset, roc_segs, "pair", seed + 7)
            if len(set(ex.y.tolist())) == 2:
                rocs = roc_curves(ex, {"learned": model.score_many(ex.hyps, [list(r) for r in ex.ref_sets])})
        elif test_segs:
            notes.append("no ROC curves: the held-out segments have fewer than two references each "
                         "(a reference is scored against the other references)")
    else:
        options.update(C_grid=list(C_grid), gamma_grid=list(gamma_grid), estimator=estimator,
                       train_refs=train_refs, extra_metrics=list(extra_metrics),
                       max_train_examples=max_train_examples)
        model, rep = train_humanlike(dataset, name, estimator, C_grid, gamma_grid, test_fraction=test_fraction,
                                     seed=seed, train_refs=train_refs, extra_metrics=extra_metrics,
                                     criterion=criterion, higher_is_better=higher_is_better,
                                     max_train_examples=max_train_examples, progress=stage(progress, 0.0, 0.75))
        notes.extend(rep.notes)
        train_segs, test_segs = rep.train_segments, [s for s in rep.test_segments if s in set(judged)]
        if rep.test_examples is not None and len(rep.test_examples.y):
            if progress:
                progress(0.78, "permutation importances on the held-out examples")
            weights = permutation_importance(model.arrays, rep.test_examples, repeats=10, seed=seed)
        else:
            weights = pd.DataFrame({"feature": model.features})
            if "coef" in model.arrays:
                weights["weight"] = np.asarray(model.arrays["coef"], dtype=float)
            notes.append("no held-out examples: no permutation importances or ROC curves (held-out fraction 0)")
        rocs = rep.roc
        grid, meta, accuracy, human_corr = rep.grid, rep.meta_correlation, rep.accuracy, rep.human_correlation
        if not dataset.criteria:
            notes.append("this dataset has no human judgements: no correlation with humans and no held-out "
                         "comparison with BLEU / chrF")
        test_segs_all = rep.test_segments
        train_segs = list(train_segs)
        options["heldout_all_segments"] = list(test_segs_all)

    heldout = frame = None
    if test_segs and dataset.criteria:
        if progress:
            progress(0.85, "held-out comparison with sentence BLEU and chrF")
        scorers = dict(baseline_scorers())
        scorers[f"learned:{model.name}"] = model.score_many
        try:
            heldout, frame = compare_metrics(dataset, scorers, criterion, test_segs, threshold, higher_is_better)
            model.scores["heldout"] = heldout.to_dict("records")
        except DataError as exc:
            notes.append(f"no held-out comparison: {exc}")
    elif test_fraction > 0 and dataset.criteria and not test_segs:
        notes.append("no held-out comparison: no judged segment among the held-out ones")
    if progress:
        progress(1.0, "done")
    return LearnedRun(kind, model, criterion, options, list(train_segs), list(test_segs), weights, rocs,
                      heldout, frame, grid, meta, accuracy, human_corr, notes, rep)
