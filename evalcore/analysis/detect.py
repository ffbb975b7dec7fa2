"""Detection tasks: can a metric find the translations humans call error-free, or critical?
(methods §23; the ``detect`` command).

Two tasks, each a binary gold label per judged output (system, segment) and, per metric, its
segment score as the detector:

* ``error-free`` (the WMT26 metrics task's error-free detection): gold positive when the human
  score is ≥ :data:`ERROR_FREE_MIN` (85) **and** no rater marked an error span in the output
  (ESA/MQM spans of the raters who gave that score, :func:`evalcore.io.spans.dataset_spans`, or
  mt-metrics-eval ``<lp>.<criterion>.seg.rating`` errors; neutral-severity MQM marks are not
  errors). An output without span annotation cannot
  be labelled and is left out (counted in a note). The metric predicts "error-free" when its
  score is ≥ a threshold t.
* ``critical`` (the WMT25 metrics task's criticality analysis; Freitag et al. 2025): gold
  positive when the human score is < :data:`CRITICAL_MAX` (10). The metric predicts "critical"
  when its score is ≤ t. Where a second annotation wave exists, its own rule (score < 10) is the
  human row: one wave against the other, the ceiling a metric can be compared with.

Per metric (:func:`detection_row`): AUROC (the probability that a positive outranks a negative,
ties counting ½: Hanley & McNeil 1982), AUPRC (average precision Σ (R_k − R_{k−1}) P_k over the
distinct thresholds, descending), and at the threshold that maximises F1 over the distinct
scores (ties: the stricter threshold, fewer predicted positives) precision, recall, F1 and MCC
(Matthews 1975; 0 when a margin is empty, as scikit-learn). ``threshold_from``: the thresholds
chosen on one pair applied unchanged to every other pair (how well a threshold transfers).
Scores are oriented by the settings (error rates negated), so "higher is better" holds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.results import Result
from ..scoring.settings import Settings

#: ``error-free``: the human score at which an output without error spans counts as error-free
ERROR_FREE_MIN = 85.0
#: ``critical``: human scores below this are critical errors (WMT25 criticality)
CRITICAL_MAX = 10.0
TASKS = ("error-free", "critical")
COLUMNS = ["metric", "kind", "n", "positives", "auroc", "auprc", "threshold", "precision", "recall", "f1", "mcc"]
TRANSFER_COLUMNS = ["threshold_from", "transfer_threshold", "transfer_f1", "transfer_mcc"]


# -- the statistics on one label vector ------------------------------------------------------
def auroc(labels, scores) -> float:
    """Area under the ROC curve: P(score of a positive > score of a negative) + ½ P(tie)."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    from scipy.stats import rankdata

    ranks = rankdata(s)  # mid-ranks: a tie counts ½
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _counts_by_threshold(labels, scores):
    """(thresholds descending, true positives, predicted positives) when "positive" means
    score ≥ threshold, for every distinct score."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    order = np.argsort(-s, kind="mergesort")
    s, y = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), len(s) - 1]  # last index of each distinct value
    tp = np.cumsum(y)[last]
    pp = last + 1
    return s[last], tp.astype(float), pp.astype(float)


def auprc(labels, scores) -> float:
    """Average precision: Σ_k (R_k − R_{k−1}) · P_k over the distinct thresholds, descending."""
    y = np.asarray(labels, dtype=bool)
    if not len(y) or not y.any():
        return float("nan")
    _, tp, pp = _counts_by_threshold(y, scores)
    recall = tp / y.sum()
    precision = tp / pp
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def confusion_scores(labels, predicted) -> dict:
    """precision, recall, F1 and MCC of a prediction (0 where a denominator is 0)."""
    y = np.asarray(labels, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    tp, fp = float(np.sum(y & p)), float(np.sum(~y & p))
    fn, tn = float(np.sum(y & ~p)), float(np.sum(~y & ~p))
    den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {"precision": tp / (tp + fp) if tp + fp else 0.0, "recall": tp / (tp + fn) if tp + fn else 0.0,
            "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0,
            "mcc": float((tp * tn - fp * fn) / den) if den > 0 else 0.0}


def best_threshold(labels, scores) -> float:
    """The threshold t (a distinct score; "positive" = score ≥ t) with the highest F1; among
    equal F1 the highest t. NaN without scores."""
    y = np.asarray(labels, dtype=bool)
    if not len(y):
        return float("nan")
    t, tp, pp = _counts_by_threshold(y, scores)
    f1 = np.where(pp + y.sum() > 0, 2 * tp / (pp + y.sum()), 0.0)
    return float(t[int(np.argmax(f1))])  # argmax: the first (highest t) of equal maxima


def detection_row(labels, scores) -> dict:
    """Every statistic of one detector (scores oriented so that higher predicts positive)."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    t = best_threshold(y, s)
    row = {"n": int(len(y)), "positives": int(y.sum()), "auroc": auroc(y, s), "auprc": auprc(y, s), "threshold": t}
    row.update(confusion_scores(y, s >= t) if len(y) else dict.fromkeys(("precision", "recall", "f1", "mcc"),
                                                                        float("nan")))
    return row


# -- gold labels -------------------------------------------------------------------------------
def error_cells(ds, criterion: str) -> tuple[set, set]:
    """(outputs with span annotation, outputs with at least one error span) as (system, seg_id)
    sets, from the annotations that gave ``criterion``'s scores: ESA/MQM spans
    (:func:`evalcore.io.spans.dataset_spans`) of the raters who scored that output under
    ``criterion`` (another wave's spans are not this wave's), neutral MQM marks not counted; and
    the ``ratings`` extra (mt-metrics-eval ``<lp>.<criterion>.seg.rating``)."""
    from ..io.spans import dataset_spans

    j = ds.judgements[ds.judgements["judgement"] == criterion]
    who = set(zip(j["system"].astype(str), j["seg_id"].astype(str), j["rater"].astype(str)))
    st = dataset_spans(ds, strict=False)

    def keys(frame) -> list:
        return list(zip(frame["system"].astype(str), frame["seg_id"].astype(str), frame["rater"].astype(str)))

    rated = {k[:2] for k in keys(st.items) if k in who}
    sp = st.spans[st.spans["severity"].astype(str).str.lower() != "neutral"]
    errors = {k[:2] for k in keys(sp) if k in who}
    r = ds.extras.get("ratings")
    if r is not None and len(r):
        r = r[r["rating"] == criterion]
        rated |= set(zip(r["system"].astype(str), r["seg_id"].astype(str)))
        real = r[(r["category"] != "no-error") & (r["severity"].astype(str).str.lower() != "neutral")]
        errors |= set(zip(real["system"].astype(str), real["seg_id"].astype(str)))
    return rated, errors


def gold_labels(ds, task: str, criterion: str, settings: Settings) -> tuple[pd.DataFrame, list[str]]:
    """system, seg_id, score, label of every labelled output (human score = mean over raters,
    methods §5.2; human translations judged as systems only when the settings include them)."""
    from ..scoring.scores import human_segment_scores

    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    if criterion not in ds.criteria:
        raise ValueError(f"{ds.lp}: no {criterion!r} judgements; the data has {', '.join(ds.criteria) or 'none'}")
    notes: list[str] = []
    h = human_segment_scores(ds, criterion, include_references=settings.include_human_systems)
    h = h[["system", "seg_id", "score"]].copy()
    h["system"] = h["system"].astype(str)
    if task == "critical":
        h["label"] = h["score"] < CRITICAL_MAX
        return h.reset_index(drop=True), notes
    rated, errors = error_cells(ds, criterion)
    if not rated:
        raise ValueError(f"{ds.lp}: error-free detection needs error spans (ESA spans, MQM error rows or "
                         "mt-metrics-eval .seg.rating files) to tell an output without errors; the data has none")
    keys = list(zip(h["system"], h["seg_id"]))
    has = np.array([k in rated for k in keys], dtype=bool)
    if (~has).any():
        notes.append(f"{ds.lp}: {int((~has).sum())} judged output(s) without span annotation left out (no way to "
                     "tell whether they are error-free)")
    h = h[has].copy()
    clean = np.array([k not in errors for k in zip(h["system"], h["seg_id"])], dtype=bool)
    h["label"] = (h["score"].to_numpy(dtype=float) >= ERROR_FREE_MIN) & clean
    return h.reset_index(drop=True), notes


# -- one pair ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairDetection:
    """One pair's rows and what the transfer needs: the oriented scores per detector."""

    lp: str
    table: pd.DataFrame
    detectors: dict  # name -> (labels, oriented scores)
    notes: tuple


def _direction(task: str) -> float:
    """+1: higher predicts positive (error-free); −1: lower predicts positive (critical)."""
    return 1.0 if task == "error-free" else -1.0


def detect_pair(ds, task: str, criterion: str, seg_scores: pd.DataFrame, settings: Settings,
                criterion2: str | None = None) -> PairDetection:
    """The rows of one pair: every metric of ``seg_scores`` (metric, system, seg_id, score, on
    its own scale) on the outputs both labelled and scored; with ``criterion2`` the human row."""
    from ..metrics.base import get_metric

    gold, notes = gold_labels(ds, task, criterion, settings)
    sign = _direction(task)
    rows, detectors = [], {}
    for metric, sub in seg_scores.groupby("metric", sort=False):
        s = sub.assign(system=sub["system"].astype(str), seg_id=sub["seg_id"].astype(str))
        m = gold.merge(s[["system", "seg_id", "score"]].rename(columns={"score": "metric_score"}),
                       on=["system", "seg_id"], how="inner")
        m = m[np.isfinite(m["metric_score"].astype(float))]
        try:
            hib = get_metric(str(metric)).meta.higher_is_better
        except (KeyError, ValueError):
            hib = True  # bring-your-own scores: read as given
        x = m["metric_score"].to_numpy(dtype=float) * settings.orient(hib) * sign
        y = m["label"].to_numpy(dtype=bool)
        row = detection_row(y, x)
        row["threshold"] = row["threshold"] * sign * settings.orient(hib)  # back on the metric's own scale
        rows.append({"metric": str(metric), "kind": "metric", **row})
        detectors[str(metric)] = (m[["system", "seg_id"]], y, x, sign * settings.orient(hib))
    if criterion2:
        rows.append(_human_row(ds, task, criterion, criterion2, gold, settings, notes))
    table = pd.DataFrame(rows, columns=COLUMNS)
    return PairDetection(ds.lp, table, detectors, tuple(notes))


def _human_row(ds, task, criterion, criterion2, gold, settings, notes) -> dict:
    """The second wave against the first: its own rule as the prediction (no threshold chosen),
    its scores ranked for AUROC / AUPRC; on the outputs both waves scored."""
    other, _ = gold_labels(ds, task, criterion2, settings)
    m = gold.merge(other.rename(columns={"score": "score2", "label": "label2"}), on=["system", "seg_id"])
    y = m["label"].to_numpy(dtype=bool)
    x = m["score2"].to_numpy(dtype=float) * _direction(task)
    row = {"metric": f"human:{criterion2}", "kind": "human", "n": int(len(m)), "positives": int(y.sum()),
           "auroc": auroc(y, x), "auprc": auprc(y, x),
           "threshold": CRITICAL_MAX if task == "critical" else ERROR_FREE_MIN}
    row.update(confusion_scores(y, m["label2"].to_numpy(dtype=bool)))
    notes.append(f"{ds.lp}: human row: {criterion2} against {criterion} on the {len(m)} output(s) both scored; "
                 "the prediction is the second wave's own label (no threshold chosen)")
    return row


def transfer(target: PairDetection, source: PairDetection) -> pd.DataFrame:
    """``target``'s table with the thresholds chosen on ``source`` applied to its scores."""
    out = target.table.copy()
    for col in TRANSFER_COLUMNS:
        out[col] = np.nan if col != "threshold_from" else source.lp
    src = dict(zip(source.table["metric"], source.table["threshold"]))
    for i, metric in enumerate(out["metric"]):
        if metric not in target.detectors or metric not in src or not np.isfinite(src[metric]):
            continue
        _, y, x, factor = target.detectors[metric]
        t = src[metric] * factor  # onto the oriented scale of the detector
        c = confusion_scores(y, x >= t)
        out.loc[i, ["transfer_threshold", "transfer_f1", "transfer_mcc"]] = [src[metric], c["f1"], c["mcc"]]
    return out


def detect(collection: dict, task: str, criterion: str, seg_scores: dict, settings: Settings, *,
           criterion2: str | None = None, threshold_from: str | None = None) -> Result:
    """The ``detect`` table over the pairs of ``collection`` (key -> Dataset; ``seg_scores``:
    key -> metric segment scores): one row per pair and metric (and the human row), with the
    transfer columns when ``threshold_from`` names one of the keys."""
    pairs = {k: detect_pair(ds, task, criterion, seg_scores[k], settings, criterion2) for k, ds in collection.items()}
    notes = [n for p in pairs.values() for n in p.notes]
    if threshold_from is not None and threshold_from not in pairs:
        raise ValueError(f"--threshold-from {threshold_from!r} is not one of the pairs: {', '.join(pairs)}")
    from ..io import split_key

    frames = []
    several = any(split_key(k)[0] for k in pairs)
    for k, p in pairs.items():
        t = transfer(p, pairs[threshold_from]) if threshold_from is not None else p.table.copy()
        t.insert(0, "lp", split_key(k)[1])
        if several:  # a root of several test sets: keys "<test set>/<lp>"
            t.insert(0, "test_set", split_key(k)[0])
        frames.append(t)
    table = pd.concat(frames, ignore_index=True)
    rule = (f"error-free = human {criterion} score ≥ {ERROR_FREE_MIN:g} and no error span" if task == "error-free"
            else f"critical = human {criterion} score < {CRITICAL_MAX:g}")
    side = "score ≥ threshold" if task == "error-free" else "score ≤ threshold"
    notes.append(f"{task}: {rule}; a metric predicts it when its {side} (the threshold maximising F1)")
    if (table["positives"] == 0).any() or (table["positives"] == table["n"]).any():
        notes.append("AUROC is undefined (empty) where every output has the same gold label")
    return Result(table, tuple(notes), (), f"detect --task {task} ({settings.describe()})")
