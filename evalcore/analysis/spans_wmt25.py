"""Span meta-evaluation as WMT25 scored it (docs/methods.md §19; ``spans --protocol wmt25``).

The WMT25 shared task on automated MT evaluation, subtask 2 (error span detection), scored a
system's predicted error spans against the human ESA spans character by character (Lavie et
al. 2025, *Findings of the WMT25 Shared Task on Automated Translation Evaluation Systems*; the
task's released scorer, ``scripts/scoring/task2/scoring_esa.py`` of
wmt-conference/wmt25-mteval on GitHub):

* per output of length L (characters of the text, whitespace included), four count vectors
  over its positions: for the gold (human) spans and for the predicted spans, how many
  major-or-critical spans and how many minor spans cover each position. **Overlapping spans
  count each time** (a position inside two gold minor spans has count 2); spans are clipped to
  [0, L); omissions (``missing``) and ``undecided`` spans are left out (so are MQM ``neutral``
  spans, which carry no severity the task knows);
* per position: tp = min(g_maj, p_maj) + min(g_min, p_min) + c · min(u_g, u_p), where
  u_g = max(0, g_maj − p_maj) + max(0, g_min − p_min) is the gold count left unmatched and u_p
  likewise the predicted one: **full credit for a matching severity, c = 0.5 for a mismatched
  one**;
* within a language pair, micro: P = Σtp / Σ predicted counts (1 when nothing is predicted),
  R = Σtp / Σ gold counts (1 when there is no gold span), F1 = 2PR/(P + R) (0 when P + R = 0);
* over language pairs: the **mean** of P, of R and of F1 (:func:`mean_over_pairs`). The official
  scorer prints the averaged precision under the label ``avg_rec`` and the averaged recall under
  ``avg_prec`` (its per-pair lines are labelled right).

One (gold, prediction) pair per human annotation: an output annotated by two raters counts
twice, each against the same prediction. The human ceiling is every ordered pair of two
annotations of one output (one as the prediction, the other as gold), marker ``rater`` (two
raters) or ``rater-self`` (one rater twice), as in §5.13.
"""
from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from ..io.spans import SpanTable, dataset_spans

PARTIAL_CREDIT = 0.5
MAJOR = ("major", "critical")
COLUMNS = ["marker", "precision", "recall", "f1", "tp", "predicted", "gold", "pairs"]


def severity_counts(spans, length: int) -> tuple[np.ndarray, np.ndarray]:
    """(major-or-critical counts, minor counts) per character position of a text of ``length``
    characters, from ``spans`` = (start, end, severity) with integer offsets; other severities
    are left out (module docstring)."""
    major = np.zeros(length, dtype=np.int64)
    minor = np.zeros(length, dtype=np.int64)
    for start, end, sev in spans:
        if str(start) == "missing" or start != start:  # an omission: no characters
            continue
        sev = str(sev).lower()
        target = major if sev in MAJOR else minor if sev == "minor" else None
        if target is not None:
            target[max(0, int(start)):max(0, int(end))] += 1
    return major, minor


def char_counts(gold, pred, length: int, partial_credit: float = PARTIAL_CREDIT) -> tuple[float, int, int]:
    """(tp, predicted counts, gold counts) of one output (module docstring)."""
    g_maj, g_min = severity_counts(gold, length)
    p_maj, p_min = severity_counts(pred, length)
    exact = np.minimum(g_maj, p_maj) + np.minimum(g_min, p_min)
    u_g = np.maximum(0, g_maj - p_maj) + np.maximum(0, g_min - p_min)
    u_p = np.maximum(0, p_maj - g_maj) + np.maximum(0, p_min - g_min)
    tp = float(exact.sum() + partial_credit * np.minimum(u_g, u_p).sum())
    return tp, int(p_maj.sum() + p_min.sum()), int(g_maj.sum() + g_min.sum())


def prf(tp: float, predicted: float, gold: float) -> tuple[float, float, float]:
    """The task's P, R, F1 of summed counts (1 for an empty denominator, F1 0 when P + R = 0)."""
    p = tp / predicted if predicted else 1.0
    r = tp / gold if gold else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _spans_by(table: SpanTable, key: str) -> dict:
    """key value -> [(start, end, severity)] of the target-side spans with characters (status
    ok, or out of range: clipped like the official scorer's slicing)."""
    s = table.spans
    s = s[(s["side"] == "target") & s["status"].isin(["ok", "out_of_range"])]
    out: dict = {}
    cols = ["item"] if key == "item" else ["rater", "system", "seg_id"]
    for k, a, b, sev in zip(zip(*(s[c] for c in cols)), s["start"], s["end"], s["severity"]):
        out.setdefault(k[0] if key == "item" else k, []).append((a, b, sev))
    return out


def wmt25_span_scores(dataset, metric_table: SpanTable | None = None, table: SpanTable | None = None,
                      ceiling: bool = True, partial_credit: float = PARTIAL_CREDIT) -> pd.DataFrame:
    """One row per marker of one language pair: the metrics of ``metric_table`` (its ``rater``
    column names the metric; only outputs it has a row for count, a ``no-error`` row included)
    and, with ``ceiling``, ``rater`` / ``rater-self``; columns :data:`COLUMNS` (``pairs``: the
    (gold annotation, prediction) pairs summed)."""
    from .spans import _scorable_items, _texts

    table = table or dataset_spans(dataset)
    texts = _texts(dataset)
    items = table.items[[(s, g) in texts for s, g in zip(table.items["system"], table.items["seg_id"])]]
    gold = _spans_by(table, "item")
    rows = []
    if metric_table is not None:
        pred = _spans_by(metric_table, "metric")
        scored = _scorable_items(metric_table, texts)
        for metric in dict.fromkeys(scored["rater"]):
            outs = set(zip(scored.loc[scored["rater"] == metric, "system"], scored.loc[scored["rater"] == metric,
                                                                                       "seg_id"]))
            tot = np.zeros(3)
            n = 0
            for item, system, seg in zip(items["item"], items["system"], items["seg_id"]):
                if (system, seg) in outs:
                    tot += char_counts(gold.get(item, []), pred.get((metric, system, seg), []),
                                       len(texts[(system, seg)]), partial_credit)
                    n += 1
            rows.append([metric, *prf(*tot), *tot, n])
    if ceiling:
        tots: dict[str, list] = {}
        for key, grp in items.groupby(["system", "seg_id"], sort=False):
            system, seg = cast("tuple[str, str]", key)  # the two string key columns
            for ia, ra in zip(grp["item"], grp["rater"]):
                for ib, rb in zip(grp["item"], grp["rater"]):
                    if ia != ib:
                        t = tots.setdefault("rater" if ra != rb else "rater-self", [np.zeros(3), 0])
                        t[0] += char_counts(gold.get(ib, []), gold.get(ia, []), len(texts[(system, seg)]),
                                            partial_credit)
                        t[1] += 1
        for marker, (tot, n) in tots.items():
            rows.append([marker, *prf(*tot), *tot, n])
    return pd.DataFrame(rows, columns=COLUMNS)


def mean_over_pairs(per_pair: pd.DataFrame) -> pd.DataFrame:
    """WMT25's figure over language pairs: per marker, the mean over the pairs (rows with an
    ``lp`` column) of precision, recall and F1, and how many pairs."""
    g = per_pair.groupby("marker", sort=False)
    out = g[["precision", "recall", "f1"]].mean().reset_index()
    out["pairs"] = g.size().to_numpy()
    return out


# ---- Perrella et al. 2026: matching whole spans one to one (em, mp, mpp) -------------------
PROTOCOLS = ("em", "mp", "mpp")
SEVERITY_PENALTY = 0.5


def _kept(spans) -> list[tuple[int, int, str]]:
    """The spans of one side that carry characters and a known severity (minor, major,
    critical; kept apart, not merged), as (start, end, severity) with start < end."""
    out = []
    for a, b, sev in spans:
        if str(a) == "missing" or a != a:
            continue
        sev = str(sev).lower()
        if sev in ("minor", "major", "critical") and int(b) > int(a):
            out.append((int(a), int(b), sev))
    return out


def _objective(protocol: str, a: tuple, h: tuple) -> float:
    ov = max(0, min(a[1], h[1]) - max(a[0], h[0]))
    if protocol == "em":
        return 1.0 if (a[0], a[1]) == (h[0], h[1]) else 0.0
    if protocol == "mp":
        return 1.0 if ov > 0 else 0.0
    return 2 * ov / ((a[1] - a[0]) + (h[1] - h[0])) if ov > 0 else 0.0


def matched_counts(pred, gold, protocol: str, severity_penalty: float = SEVERITY_PENALTY) -> tuple[float, float, int, int]:
    """(tp for precision, tp for recall, predicted spans, gold spans) of one output under
    ``protocol`` (Perrella et al. 2026 §3; docs/methods.md §20): the one-to-one matching of
    predicted and gold spans that maximises Σ objective × severity factor (Hungarian
    algorithm; objective em: the spans are identical, mp: they overlap, mpp: the F-score of
    their overlap, 2·o/(|a| + |h|); factor 1 for equal severities, 1 − ``severity_penalty``
    else; pairs of value 0 are no match). A matched pair earns r = the severity factor (em,
    mp) or r · o/|a| towards precision and r · o/|h| towards recall (mpp)."""
    from scipy.optimize import linear_sum_assignment

    a_sp, h_sp = _kept(pred), _kept(gold)
    if not a_sp or not h_sp:
        return 0.0, 0.0, len(a_sp), len(h_sp)
    w = np.zeros((len(a_sp), len(h_sp)))
    for i, a in enumerate(a_sp):
        for j, h in enumerate(h_sp):
            o = _objective(protocol, a, h)
            if o > 0:
                w[i, j] = o * (1.0 if a[2] == h[2] else 1.0 - severity_penalty)
    rows, cols = linear_sum_assignment(w, maximize=True)
    tp_p = tp_r = 0.0
    for i, j in zip(rows.tolist(), cols.tolist()):
        if w[i, j] <= 0:
            continue
        a, h = a_sp[i], h_sp[j]
        r = 1.0 if a[2] == h[2] else 1.0 - severity_penalty
        if protocol == "mpp":
            ov = min(a[1], h[1]) - max(a[0], h[0])
            tp_p += r * ov / (a[1] - a[0])
            tp_r += r * ov / (h[1] - h[0])
        else:
            tp_p += r
            tp_r += r
    return tp_p, tp_r, len(a_sp), len(h_sp)


def protocol_scores(dataset, metric_table: SpanTable | None = None, table: SpanTable | None = None,
                    ceiling: bool = True, severity_penalty: float = SEVERITY_PENALTY) -> pd.DataFrame:
    """One row per (marker, protocol) of one language pair: em, mp, mpp (micro over the
    (annotation, prediction) pairs: P = Σ tp_P / predicted spans, R = Σ tp_R / gold spans, 1 for
    an empty denominator) and w25 (:func:`wmt25_span_scores`); columns marker, protocol,
    precision, recall, f1, pairs."""
    from .spans import _scorable_items, _texts

    table = table or dataset_spans(dataset)
    texts = _texts(dataset)
    items = table.items[[(s, g) in texts for s, g in zip(table.items["system"], table.items["seg_id"])]]
    gold = _spans_by(table, "item")
    jobs: list[tuple[str, list]] = []  # marker -> [(pred spans, gold spans)]
    if metric_table is not None:
        pred = _spans_by(metric_table, "metric")
        scored = _scorable_items(metric_table, texts)
        for metric in dict.fromkeys(scored["rater"]):
            mine = scored["rater"] == metric
            outs = set(zip(scored.loc[mine, "system"], scored.loc[mine, "seg_id"]))
            jobs.append((metric, [(pred.get((metric, s, g), []), gold.get(item, []))
                                  for item, s, g in zip(items["item"], items["system"], items["seg_id"])
                                  if (s, g) in outs]))
    if ceiling:
        pairs: dict[str, list] = {}
        for _, grp in items.groupby(["system", "seg_id"], sort=False):
            for ia, ra in zip(grp["item"], grp["rater"]):
                for ib, rb in zip(grp["item"], grp["rater"]):
                    if ia != ib:
                        pairs.setdefault("rater" if ra != rb else "rater-self", []).append(
                            (gold.get(ia, []), gold.get(ib, [])))
        jobs += list(pairs.items())
    rows = []
    for marker, work in jobs:
        for protocol in PROTOCOLS:
            tot = np.zeros(4)
            for p_sp, g_sp in work:
                tot += matched_counts(p_sp, g_sp, protocol, severity_penalty)
            p = tot[0] / tot[2] if tot[2] else 1.0
            r = tot[1] / tot[3] if tot[3] else 1.0
            rows.append([marker, protocol, p, r, 2 * p * r / (p + r) if p + r else 0.0, len(work)])
    w25 = wmt25_span_scores(dataset, metric_table, table, ceiling)
    rows += [[m, "w25", p, r, f, n] for m, p, r, f, n in zip(w25["marker"], w25["precision"], w25["recall"],
                                                              w25["f1"], w25["pairs"])]
    return pd.DataFrame(rows, columns=["marker", "protocol", "precision", "recall", "f1", "pairs"])


def ranking_agreement(scores: pd.DataFrame, leave_out=("rater", "rater-self")) -> pd.DataFrame:
    """How far the protocols rank the metrics alike: for every two protocols, Kendall's τ_b
    between the metrics' F1 under each (scipy.stats.kendalltau; the human ceiling rows left
    out), with the number of metrics; NaN with fewer than two."""
    from scipy.stats import kendalltau

    s = scores[~scores["marker"].isin(leave_out)]
    wide = s.pivot_table(index="marker", columns="protocol", values="f1", aggfunc="first")
    protos = [p for p in (*PROTOCOLS, "w25") if p in wide]
    rows = []
    for i, a in enumerate(protos):
        for b in protos[i + 1:]:
            both = wide[[a, b]].dropna()
            tau = float(kendalltau(both[a], both[b]).statistic) if len(both) > 1 else float("nan")
            rows.append([a, b, tau, len(both)])
    return pd.DataFrame(rows, columns=["protocol_a", "protocol_b", "kendall_tau", "metrics"])
