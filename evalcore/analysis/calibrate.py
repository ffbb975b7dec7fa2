"""What a metric difference means here: P(humans agree | Δ) from the user's own data (methods §25.1).

For every pair of systems within a language pair, the metric difference Δ and whether the human
system scores order the two systems the same way (Kocmi, Zouhar, Federmann & Post 2024,
"Navigating the Metrics Maze: Reconciling Score Magnitudes and Accuracies", who ask the same
question of published WMT data and, optionally, keep only the pairs the humans separate
significantly). Two monotone curves of the agreement against |Δ|:

* ``logistic``: P(agree | |Δ|) = σ(b·|Δ|), σ(t) = 1 / (1 + e^(−t)), b ≥ 0, fitted by maximum
  likelihood over the pairs (Bernoulli outcomes). There is no intercept: a pair with Δ = 0 is a
  coin flip by construction, P(agree | 0) = 0.5. This is the same model as P(humans prefer A |
  Δ = m_A − m_B) = σ(b·Δ) on the signed difference (the likelihood of a pair is the same in both
  orientations), so the curve is the symmetric, odd-around-0.5 link of a paired comparison
  (Bradley & Terry 1952 with the metric difference as the strength difference). b is bounded
  below by 0 (a metric that disagrees with the humans more often than not gets the flat curve
  0.5 and a note), so the curve never falls as Δ grows; b = +∞ when every pair agrees (note).
* ``isotonic``: the monotone non-decreasing least-squares fit (pool-adjacent-violators; sklearn's
  ``IsotonicRegression``) of P(humans prefer A | Δ) on the signed differences, each pair entered
  in both orientations ((Δ, y) and (−Δ, 1 − y)). The problem is symmetric under that reflection
  and its solution unique, so the fit is odd around 0.5 as well and P(agree | |Δ|) is its value
  at |Δ| (0.5 at Δ = 0, non-decreasing for Δ ≥ 0).

CIs: percentile bootstrap over systems (Deutsch, Dror & Roth 2021, BOOT-SYSTEMS): the systems of
each language pair are drawn with replacement, and a pair of systems (a, b) enters a resample
with the weight c_a·c_b, the number of pairs of distinct draws that are a and b. The Δ needed for
80 / 90 / 95 % agreement is σ⁻¹(p)/b of the logistic curve. Pooled (``lp = all``): the pairs of
every language pair together (systems are never paired across language pairs). Leave one pair
out: the pooled logistic curve of the other language pairs predicts the held-out pair's
agreements; its expected calibration error (ECE; equal-count bins of the predicted probability,
Naeini, Cooper & Hauskrecht 2015) is reported beside the ECE of the pair's own curve.

The system scores are those of ``correlate`` and the Systems page under the shared
:class:`~evalcore.scoring.settings.Settings` (human: :func:`evalcore.human.scores.human_scores` and
:func:`evalcore.stats.tables.system_vectors`; metric: :func:`evalcore.analysis.system_level.cached_scores`,
oriented so that higher is better); the significance of a human difference is the pairwise test
of ``rank`` (:func:`evalcore.stats.system_ranking.rank_systems`, WMT24's Wilcoxon with Stouffer).

Nothing here imports streamlit.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.problems import DataError, Report
from ..core.progress import Progress, stage
from ..scoring.settings import DEFAULTS, Settings

#: a curve needs at least this many pairs of systems with a direction (Δ ≠ 0 on both sides)
MIN_PAIRS = 10
#: and at least this many systems in a language pair (10 pairs)
MIN_SYSTEMS = 5
LEVELS = (0.8, 0.9, 0.95)
CURVE_COLUMNS = ["lp", "metric", "fit", "delta", "agreement", "lo", "hi"]
SUMMARY_COLUMNS = ["metric", "lp", "delta_80", "delta_90", "delta_95", "n_pairs"]
LOPO_COLUMNS = ["metric", "held_out", "n_pairs", "ece", "ece_own_curve", "log_loss"]
PAIR_COLUMNS = ["lp", "metric", "system_a", "system_b", "delta", "delta_human", "agree", "significant"]
POOLED = "all"


def _sigmoid(t):
    with np.errstate(over="ignore", invalid="ignore"):
        return 1.0 / (1.0 + np.exp(-np.asarray(t, dtype=float)))


def fit_logistic_many(x: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """The maximum-likelihood slope b ≥ 0 of P(y = 1 | x) = σ(b·x) for x > 0 (no intercept), once
    per row of case weights ``W`` (shape (k, n)): the root of the score Σ w·x·(y − σ(b·x)), which
    falls as b grows (the log-likelihood is concave in b), found by bisection to machine precision.
    0 where the score at b = 0 is ≤ 0; +∞ where no weighted outcome is below 1 (every pair agrees:
    the likelihood grows without bound); NaN where a row has no weight."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    W = np.atleast_2d(np.asarray(W, dtype=float))
    W = np.where((x > 0)[None, :], W, 0.0)
    out = np.full(len(W), np.nan)
    total = W.sum(axis=1)
    if not len(x):
        return out
    wx = W * x[None, :]

    def score(b):
        return np.sum(wx * (y[None, :] - _sigmoid(b[:, None] * x[None, :])), axis=1)

    has = total > 0
    every = has & ((W * (y < 1.0)[None, :]).sum(axis=1) == 0)
    out[every] = np.inf
    todo = has & ~every
    g0 = score(np.zeros(len(W)))
    out[todo & (g0 <= 0)] = 0.0
    todo &= g0 > 0
    if not todo.any():
        return out
    rows = np.flatnonzero(todo)
    wx, sub = wx[rows], rows
    lo = np.zeros(len(rows))
    hi = np.full(len(rows), 1.0 / float(np.max(x)))
    for _ in range(200):  # the root is finite: some weighted outcome is below 1
        up = np.sum(wx * (y[None, :] - _sigmoid(hi[:, None] * x[None, :])), axis=1) > 0
        if not up.any():
            break
        lo = np.where(up, hi, lo)
        hi = np.where(up, hi * 2.0, hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if not np.any((mid > lo) & (mid < hi)):
            break
        up = np.sum(wx * (y[None, :] - _sigmoid(mid[:, None] * x[None, :])), axis=1) > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    out[sub] = 0.5 * (lo + hi)
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> float:
    """:func:`fit_logistic_many` with one set of case weights (None: every case weighs 1)."""
    x = np.asarray(x, dtype=float)
    w = np.ones_like(x) if w is None else np.asarray(w, dtype=float)
    return float(fit_logistic_many(x, y, w[None, :])[0])


def isotonic_curves(x: np.ndarray, y: np.ndarray, W: np.ndarray, d: np.ndarray) -> np.ndarray:
    """P(agree | |Δ| = d) of the isotonic fit (module docstring: each pair in both orientations,
    (x, y) and (−x, 1 − y), non-decreasing least squares; tied x merged into their weighted mean
    and the fit interpolated linearly between them, clipped beyond the ends, as sklearn's
    ``IsotonicRegression(out_of_bounds="clip")`` does) once per row of case weights ``W``,
    read at ``d`` ≥ 0; rows without weight are NaN."""
    from sklearn.isotonic import isotonic_regression

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    W = np.atleast_2d(np.asarray(W, dtype=float))
    d = np.abs(np.asarray(d, dtype=float))
    keep = x > 0
    xs, inv = np.unique(np.concatenate([-x[keep], x[keep]]), return_inverse=True)
    yy = np.concatenate([1.0 - y[keep], y[keep]])
    out = np.full((len(W), len(d)), np.nan)
    for k, w in enumerate(W):
        ww = np.concatenate([w[keep], w[keep]])
        wsum = np.bincount(inv, weights=ww, minlength=len(xs))
        if not (wsum > 0).any():
            continue
        ysum = np.bincount(inv, weights=ww * yy, minlength=len(xs))
        on = wsum > 0
        fit = isotonic_regression(ysum[on] / wsum[on], sample_weight=wsum[on], increasing=True)
        out[k] = np.interp(d, xs[on], fit)
    out[:, d == 0] = np.where(np.isnan(out[:, d == 0]), np.nan, 0.5)
    return out


@dataclass(frozen=True, eq=False)
class LogisticFit:
    """One fitted logistic curve: ``slope`` b, its bootstrap ``slopes`` (the CI of the agreement
    at any Δ ≥ 0 is the percentile interval of σ(b*·Δ) over them; b* = +∞ reads 1), ``n_pairs``, the
    largest |Δ| seen, the language pair (``all`` pooled) and metric, ``alpha`` of the CIs."""

    lp: str
    metric: str
    slope: float
    slopes: np.ndarray
    n_pairs: int
    max_delta: float
    alpha: float = 0.05
    significant_only: bool = False

    def agreement(self, delta: float) -> tuple[float, float, float]:
        """(P(agree | |Δ|), lo, hi) of this curve at ``delta`` (its absolute value)."""
        d = abs(float(delta))
        b = self.slopes[~np.isnan(self.slopes)]
        p = float(_sigmoid(self.slope * d)) if d > 0 else 0.5
        if not len(b) or d == 0:
            return p, (0.5 if d == 0 else float("nan")), (0.5 if d == 0 else float("nan"))
        vals = np.where(np.isinf(b), 1.0, _sigmoid(np.where(np.isinf(b), 0.0, b) * d))
        lo, hi = np.percentile(vals, [100 * self.alpha / 2, 100 * (1 - self.alpha / 2)])
        return p, float(lo), float(hi)

    def delta_for(self, level: float) -> float:
        """The |Δ| at which the curve reaches ``level`` (σ⁻¹(level)/b); NaN when b = 0."""
        if not self.slope > 0:
            return float("nan")
        return math.log(level / (1.0 - level)) / self.slope


@dataclass(frozen=True, eq=False)
class Calibration:
    """What :func:`calibrate` returns: ``curves`` (:data:`CURVE_COLUMNS`), ``summary``
    (:data:`SUMMARY_COLUMNS`), ``lopo`` (:data:`LOPO_COLUMNS`), ``pairs`` (:data:`PAIR_COLUMNS`),
    ``fits`` ((lp, metric) → :class:`LogisticFit`), ``notes`` and ``settings`` (the one line)."""

    curves: pd.DataFrame
    summary: pd.DataFrame
    lopo: pd.DataFrame
    pairs: pd.DataFrame
    fits: Mapping[tuple[str, str], LogisticFit] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    settings: str = ""

    def deltas(self, level: float = 0.8, lp: str | None = None) -> dict[str, float]:
        """metric -> the |Δ| at which humans agree with ``level`` probability (σ⁻¹(level)/b), from
        the pooled curve when there is one, else the only language pair's (``lp``: that pair's);
        metrics without a finite value are left out. What the metric detective's ``calibrated``
        hook takes (Δ80)."""
        out = {}
        for (l, m), fit in self.fits.items():
            want = lp or (POOLED if any(k[0] == POOLED for k in self.fits) else l)
            d = fit.delta_for(level)
            if l == want and math.isfinite(d):
                out[m] = d
        return out


def _fmt_delta(d: float) -> str:
    return f"{d:.3g}" if abs(d) < 100 else f"{d:.0f}"


def agreement_sentence(fit: LogisticFit, delta: float, metric_label: str | None = None) -> str:
    """"a chrF difference of 1.3 here means humans agree 78 % [70, 85] of the time": the logistic
    curve ``fit`` read at ``delta`` with its bootstrap CI, the pairs it rests on and where it
    extrapolates."""
    name = metric_label or fit.metric
    p, lo, hi = fit.agreement(delta)
    ci = f" [{100 * lo:.0f}, {100 * hi:.0f}]" if not (math.isnan(lo) or math.isnan(hi)) else ""
    where = "pooled over language pairs" if fit.lp == POOLED else f"on {fit.lp}"
    sig = " the humans separate significantly" if fit.significant_only else ""
    text = (f"a {name} difference of {_fmt_delta(abs(delta))} here means humans agree {100 * p:.0f} %{ci} of the "
            f"time ({100 * (1 - fit.alpha):.0f} % CI; logistic fit on {fit.n_pairs} system pairs{sig} {where})")
    if abs(delta) > fit.max_delta:
        text += f"; beyond the largest difference seen ({_fmt_delta(fit.max_delta)}): an extrapolation"
    return text


def domains_of(dataset) -> dict[str, str]:
    """seg_id -> domain from the data's ``segment_domains`` table, as ``rank`` reads it (empty
    when the data has none)."""
    dom = dataset.extras.get("segment_domains")
    if dom is None or not len(dom):
        return {}
    return dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str)))


# ---------------------------------------------------------------------------------------------
# pairs of systems from a dataset
# ---------------------------------------------------------------------------------------------
def system_pairs(dataset, metric_ids: Sequence[str], criterion: str, settings: Settings = DEFAULTS, *,
                 significant_only: bool = False, alpha: float = 0.05,
                 progress: Progress = None) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Every pair of systems of one language pair (:data:`PAIR_COLUMNS`): metric Δ = m_a − m_b
    (oriented: error rates negated under the shared orientation), human Δ, agree (1 when the
    signs match, 0 when they differ; NaN when either Δ is 0) and significant (the pair's p < α
    under ``rank``'s Wilcoxon + Stouffer test; True for every pair unless ``significant_only``).
    Returns (pairs, systems, notes)."""
    from ..human.scores import criterion_judgements, human_scores
    from ..metrics.base import get_metric
    from ..metrics.tokenize import resolve_tokenizer
    from ..stats.tables import human_systems, system_vectors
    from .system_level import cached_scores

    settings, notes = settings.resolve(dataset)
    human = human_scores(dataset, criterion)
    refs = list(settings.references) if settings.references else None
    use_refs = refs if refs or not settings.include_human_systems else dataset.ref_ids
    tok = resolve_tokenizer(settings.tokenizer, dataset.lp)[0]
    sc = cached_scores(dataset, list(metric_ids), tokenize=tok, include_references=settings.include_human_systems,
                       criterion=criterion if settings.judged_only else None, ref_ids=use_refs,
                       progress=stage(progress, 0.0, 0.8))
    notes += list(sc.notes)
    scores = sc.table.assign(seg_id="")
    exclude = set(human_systems(dataset, list(dict.fromkeys(human["system"]))))
    if not settings.include_human_systems and exclude:
        notes.append(f"human translations left out: {', '.join(sorted(exclude))}")
    elif use_refs:
        exclude = set(use_refs)
    else:
        exclude = set()
    systems = [s for s in dict.fromkeys(human["system"]) if s not in exclude]
    sig = None
    if significant_only:
        from ..stats.system_ranking import item_scores, rank_systems

        if progress:
            progress(0.85, "human significance (Wilcoxon + Stouffer)")
        items = item_scores(criterion_judgements(dataset, criterion))
        items = items[items["system"].isin(systems)]
        if items["system"].nunique() >= 2:
            rk = rank_systems(items, domains_of(dataset), test="wilcoxon", alpha=alpha)
            sig = {(a, b): bool(rk.significant[i, j]) for i, a in enumerate(rk.systems) for j, b in enumerate(rk.systems)}
        else:
            sig = {}
    rows = []
    for mid in metric_ids:
        ms = scores[scores["metric"] == get_metric(mid).id]
        use = [s for s in systems if s in set(ms["system"])]
        g, m = system_vectors(human.assign(seg_id=human["seg_id"].astype(str)), ms, use)
        m = m * settings.orient(get_metric(mid).meta.higher_is_better)
        for i in range(len(use)):
            for j in range(i + 1, len(use)):
                dm, dh = float(m[i] - m[j]), float(g[i] - g[j])
                agree = float("nan") if dm == 0 or dh == 0 or math.isnan(dm) or math.isnan(dh) else float(
                    np.sign(dm) == np.sign(dh))
                s = True if sig is None else sig.get((use[i], use[j]), False)
                rows.append((dataset.lp or "", mid, use[i], use[j], dm, dh, agree, s))
    if progress:
        progress(1.0, "system pairs ready")
    return pd.DataFrame(rows, columns=PAIR_COLUMNS), systems, notes


# ---------------------------------------------------------------------------------------------
# the curves from pairs
# ---------------------------------------------------------------------------------------------
def _usable(pairs: pd.DataFrame) -> pd.DataFrame:
    return pairs[pairs["agree"].notna() & pairs["significant"].astype(bool)]


def _boot_weights(p: pd.DataFrame, rng: np.random.Generator, n_boot: int) -> np.ndarray:
    """(n_boot, len(p)) weights c_a·c_b of the pairs of ``p`` under resampled systems, drawn per
    language pair (module docstring)."""
    out = np.zeros((n_boot, len(p)))
    for lp, idx in p.groupby("lp", sort=False).indices.items():
        sub = p.iloc[idx]
        systems = sorted(set(sub["system_a"]) | set(sub["system_b"]))
        pos = {s: k for k, s in enumerate(systems)}
        a = sub["system_a"].map(pos).to_numpy()
        b = sub["system_b"].map(pos).to_numpy()
        draws = rng.integers(0, len(systems), size=(n_boot, len(systems)))
        counts = np.stack([np.bincount(d, minlength=len(systems)) for d in draws])
        out[:, idx] = counts[:, a] * counts[:, b]
    return out


def _ece(pred: np.ndarray, y: np.ndarray, bins: int = 5) -> float:
    """Expected calibration error over equal-count bins of the predicted probability."""
    if not len(pred):
        return float("nan")
    order = np.argsort(pred, kind="stable")
    parts = np.array_split(order, min(bins, len(pred)))
    return float(sum(len(k) / len(pred) * abs(pred[k].mean() - y[k].mean()) for k in parts if len(k)))


def _log_loss(pred: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(pred, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _short(lp: str, metric: str, n_pairs: int, n_systems: int | None) -> str:
    who = "pooled over language pairs" if lp == POOLED else f"language pair {lp}"
    have = f"{n_pairs} pair(s) of systems with a direction"
    if n_systems is not None:
        have += f" from {n_systems} system(s)"
    return (f"{metric}, {who}: {have}; a curve needs at least {MIN_PAIRS} such pairs "
            f"(at least {MIN_SYSTEMS} systems in a language pair): no curve fitted")


def calibrate(pairs: pd.DataFrame, *, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0, grid: int = 41,
              significant_only: bool = False, progress: Progress = None) -> Calibration:
    """The curves, the summary and the leave-one-pair-out table from ``pairs``
    (:data:`PAIR_COLUMNS`; ``agree`` NaN and ``significant`` False rows are left out, a note
    counts them). Raises :class:`~evalcore.core.problems.DataError` when no curve can be fitted
    (every problem at once, each with the number of pairs needed); a curve that cannot be fitted
    while others can is reported in the notes."""
    notes: list[str] = []
    tied = int(pairs["agree"].isna().sum())
    if tied:
        notes.append(f"{tied} pair(s) of systems left out: the same metric or human score (no direction)")
    if significant_only:
        ns = int((pairs["agree"].notna() & ~pairs["significant"].astype(bool)).sum())
        notes.append(f"only pairs the humans separate significantly (rank's Wilcoxon + Stouffer): {ns} pair(s) left out")
    use = _usable(pairs)
    rng = np.random.default_rng(seed)
    curves, summary, fits, problems = [], [], {}, []
    lps = list(dict.fromkeys(pairs["lp"]))
    metrics = list(dict.fromkeys(pairs["metric"]))
    jobs = [(lp, m) for m in metrics for lp in lps] + ([(POOLED, m) for m in metrics] if len(lps) > 1 else [])
    for k, (lp, metric) in enumerate(jobs):
        if progress:
            progress(k / max(1, len(jobs)), f"fitting {metric} on {lp}")
        p = use[(use["metric"] == metric) & ((use["lp"] == lp) if lp != POOLED else True)].reset_index(drop=True)
        allp = pairs[(pairs["metric"] == metric) & ((pairs["lp"] == lp) if lp != POOLED else True)]
        n_sys = len(set(allp["system_a"]) | set(allp["system_b"])) if lp != POOLED else None
        if len(p) < MIN_PAIRS or (n_sys is not None and n_sys < MIN_SYSTEMS):
            problems.append(_short(lp, metric, len(p), n_sys))
            continue
        x = np.abs(p["delta"].to_numpy(dtype=float))
        y = p["agree"].to_numpy(dtype=float)
        slope = fit_logistic(x, y)
        W = _boot_weights(p, rng, n_boot) if n_boot else np.zeros((0, len(p)))
        slopes = fit_logistic_many(x, y, W) if len(W) else np.zeros(0)
        fit = LogisticFit(lp, metric, slope, slopes, len(p), float(x.max()), alpha, significant_only)
        fits[(lp, metric)] = fit
        if slope == 0.0:
            notes.append(f"{metric} on {lp}: the metric orders the pairs against the humans as often as not "
                         "(or more): flat curve, P(agree) = 0.5 at every difference")
        if math.isinf(slope):
            notes.append(f"{metric} on {lp}: every pair agrees: the logistic slope is unbounded (agreement 1 for "
                         "every difference > 0)")
        d = np.linspace(0.0, float(x.max()), grid)
        lo_hi = np.array([fit.agreement(v)[1:] for v in d])
        curves.append(pd.DataFrame({"lp": lp, "metric": metric, "fit": "logistic", "delta": d,
                                    "agreement": [fit.agreement(v)[0] for v in d], "lo": lo_hi[:, 0],
                                    "hi": lo_hi[:, 1]}))
        iso = isotonic_curves(x, y, np.ones((1, len(x))), d)[0]
        boot_iso = isotonic_curves(x, y, W, d) if len(W) else np.full((1, len(d)), np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lo, hi = np.nanpercentile(boot_iso, [100 * alpha / 2, 100 * (1 - alpha / 2)], axis=0)
        curves.append(pd.DataFrame({"lp": lp, "metric": metric, "fit": "isotonic", "delta": d,
                                    "agreement": iso, "lo": lo, "hi": hi}))
        summary.append({"metric": metric, "lp": lp, **{f"delta_{int(round(100 * q))}": fit.delta_for(q) for q in LEVELS},
                        "n_pairs": len(p)})
        beyond = [f"{int(round(100 * q))} %" for q in LEVELS if fit.delta_for(q) > fit.max_delta]
        if beyond:
            notes.append(f"{metric} on {lp}: the Δ for {', '.join(beyond)} agreement lies beyond the largest "
                         f"difference seen ({_fmt_delta(fit.max_delta)}): an extrapolation of the logistic curve")
    if not fits:
        rep = Report()
        for msg in problems:
            rep.error("", None, msg)
        raise DataError(rep)
    notes += problems
    lopo = _leave_one_pair_out(use, lps, metrics, fits)
    if len(lps) < 2:
        notes.append("leave-one-pair-out calibration error: needs at least two language pairs")
    if progress:
        progress(1.0, "calibration ready")
    return Calibration(pd.concat(curves, ignore_index=True)[CURVE_COLUMNS],
                       pd.DataFrame(summary, columns=SUMMARY_COLUMNS),
                       lopo, pairs.reset_index(drop=True), fits, tuple(dict.fromkeys(notes)))


def _leave_one_pair_out(use: pd.DataFrame, lps: list[str], metrics: list[str], fits) -> pd.DataFrame:
    """Per metric and held-out language pair: the logistic curve pooled over the other pairs
    predicts the held-out pairs' agreements (ECE, log loss), beside the ECE of the pair's own
    curve (in-sample)."""
    rows = []
    if len(lps) < 2:
        return pd.DataFrame(columns=LOPO_COLUMNS)
    for metric in metrics:
        um = use[use["metric"] == metric]
        for lp in lps:
            held = um[um["lp"] == lp]
            rest = um[um["lp"] != lp]
            if len(held) < MIN_PAIRS or len(rest) < MIN_PAIRS:
                continue
            b = fit_logistic(np.abs(rest["delta"].to_numpy(float)), rest["agree"].to_numpy(float))
            x = np.abs(held["delta"].to_numpy(float))
            y = held["agree"].to_numpy(float)
            pred = _sigmoid(b * x)
            own = fits.get((lp, metric))
            own_ece = _ece(_sigmoid(own.slope * x), y) if own is not None else float("nan")
            rows.append({"metric": metric, "held_out": lp, "n_pairs": len(held), "ece": _ece(pred, y),
                         "ece_own_curve": own_ece, "log_loss": _log_loss(pred, y)})
    return pd.DataFrame(rows, columns=LOPO_COLUMNS)


def calibrate_datasets(datasets: Sequence, metric_ids: Sequence[str], criterion: str,
                       settings: Settings = DEFAULTS, *, significant_only: bool = False, alpha: float = 0.05,
                       n_boot: int = 1000, seed: int = 0, progress: Progress = None) -> Calibration:
    """:func:`system_pairs` on every dataset (one per language pair), then :func:`calibrate`.
    A language pair without judgements for ``criterion`` is a problem (DataError, all at once)."""
    frames, notes, rep = [], [], Report()
    n = max(1, len(datasets))
    for k, ds in enumerate(datasets):
        if criterion not in ds.criteria:
            rep.error("", None, f"language pair {ds.lp or '-'}: no {criterion!r} judgements (has: "
                                f"{', '.join(ds.criteria) or 'none'})")
            continue
        pr, _systems, nt = system_pairs(ds, metric_ids, criterion, settings, significant_only=significant_only,
                                        alpha=alpha, progress=stage(progress, 0.7 * k / n, 0.7 * (k + 1) / n))
        frames.append(pr)
        notes += [f"{ds.lp or '-'}: {t}" for t in nt]
    if rep.errors:
        raise DataError(rep)
    pairs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PAIR_COLUMNS)
    res = calibrate(pairs, n_boot=n_boot, alpha=alpha, seed=seed, significant_only=significant_only,
                    progress=stage(progress, 0.7, 1.0))
    first = datasets[0] if len(datasets) else None
    return Calibration(res.curves, res.summary, res.lopo, res.pairs, res.fits,
                       tuple(dict.fromkeys(notes + list(res.notes))),
                       settings.describe(first, criterion if settings.judged_only else None))
