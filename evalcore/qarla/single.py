"""ORANGE and KING of one similarity (methods §0, §1.1; Amigó et al. 2006 §2.2) and Lin & Och's ORANGE (methods §2).

Everything here works on two arrays, so the same code scores a single metric (the
leave-one-out multi-reference similarities of :class:`~evalcore.metrics.base.SimTensors`)
and a metric set (the leave-one-out QUEEN values of :mod:`evalcore.qarla.queen`, methods §1.3):

* ``ref[s, j]``     score of the held-out reference r_j against R_s − {r_j}
* ``sys[a, s, j]``  score of system a's output against the same R_s − {r_j}

NaN means "not available". A *case* is one (segment s, held-out reference j) with
``ref[s, j]`` finite (so r_j exists and at least one other reference remains) and at least
one finite ``sys[a, s, j]``. Systems with a NaN are left out of that case's A_s.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

TIES = ("geq", "strict", "fractional")
AVERAGES = ("micro", "macro")


def _check(ties: str, average: str) -> None:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {AVERAGES}, got {average!r}")


@dataclass
class CaseStats:
    """Per-case counts, flattened over the valid (segment, held-out reference) cases.

    ``seg`` / ``ref`` index the case; ``n`` = |A_s| in that case; ``above`` / ``tied`` /
    ``below`` count system outputs scoring above / equal to / below the held-out reference.
    """

    seg: np.ndarray
    ref: np.ndarray
    n: np.ndarray
    above: np.ndarray
    tied: np.ndarray
    below: np.ndarray
    n_seg: int

    @property
    def below_or_tied(self) -> np.ndarray:
        return self.below + self.tied


def case_stats(ref: np.ndarray, sys: np.ndarray) -> CaseStats:
    """Count, for every case, the outputs above / tied with / below the held-out reference (methods §1.1).

    ``ref`` has shape [n_seg, n_ref], ``sys`` [n_sys, n_seg, n_ref]. Fully vectorised.
    """
    ref = np.asarray(ref, dtype=float)
    sys = np.asarray(sys, dtype=float)
    if sys.ndim != 3 or ref.shape != sys.shape[1:]:
        raise ValueError(f"shape mismatch: ref {ref.shape}, sys {sys.shape}")
    ok_sys = np.isfinite(sys)
    n = ok_sys.sum(axis=0)  # [seg, ref]
    valid = np.isfinite(ref) & (n > 0)
    seg, rj = np.nonzero(valid)
    q = ref[seg, rj]  # [case]
    v = sys[:, seg, rj]  # [sys, case]
    ok = ok_sys[:, seg, rj]
    above = ((v > q) & ok).sum(axis=0)
    tied = ((v == q) & ok).sum(axis=0)
    nn = n[seg, rj]
    return CaseStats(seg=seg, ref=rj, n=nn, above=above, tied=tied, below=nn - above - tied,
                     n_seg=ref.shape[0])


def king_credit(above: np.ndarray, tied: np.ndarray, ties: str) -> np.ndarray:
    """KING credit of one case (methods §1.1): ``geq`` 1 if no output is strictly above the
    reference; ``strict`` 1 if every output is strictly below; ``fractional`` 0 if some output
    is above, else 1/(1 + t) with t outputs tied at the top."""
    above = np.asarray(above)
    tied = np.asarray(tied)
    if ties == "geq":
        return (above == 0).astype(float)
    if ties == "strict":
        return ((above == 0) & (tied == 0)).astype(float)
    if ties == "fractional":
        return np.where(above == 0, 1.0 / (1.0 + tied), 0.0)
    raise ValueError(f"unknown ties {ties!r}")


def orange_credit(below: np.ndarray, tied: np.ndarray, ties: str) -> np.ndarray:
    """Number of (s, r, a) events of a case the reference wins (methods §1.1): ties count 1
    (``geq``), 0 (``strict``) or 1/2 (``fractional``)."""
    w = {"geq": 1.0, "strict": 0.0, "fractional": 0.5}[ties]
    return np.asarray(below, dtype=float) + w * np.asarray(tied, dtype=float)


def _average(num: np.ndarray, den: np.ndarray, seg: np.ndarray, n_seg: int, average: str,
             weights: np.ndarray | None = None):
    """micro: Σ num / Σ den over everything; macro: per segment Σ num / Σ den, then the mean
    over segments that have cases (methods §1.1 "What P averages over").

    ``weights`` (shape [B, n_seg]) gives bootstrap resamples: segment counts in each resample.
    """
    num_s = np.bincount(seg, weights=num, minlength=n_seg)
    den_s = np.bincount(seg, weights=den, minlength=n_seg)
    has = den_s > 0
    if weights is None:
        if not has.any():
            return float("nan")
        if average == "micro":
            return float(num_s.sum() / den_s.sum())
        return float(np.mean(num_s[has] / den_s[has]))
    if average == "micro":
        with np.errstate(invalid="ignore", divide="ignore"):
            return (weights @ num_s) / (weights @ den_s)
    per = np.zeros(n_seg)
    per[has] = num_s[has] / den_s[has]
    w = weights * has
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ per) / w.sum(axis=1)


def _rank_credits(vals: np.ndarray, ok: np.ndarray, ties: str):
    """For each case and each position i of its |A_s|+1 scores (reference first), the KING and
    ORANGE credit that position would earn if it were the reference. Used for the permutation
    baseline (methods §1.1 "Monte-Carlo baseline": shuffling which score is the reference).

    One sort per case: in the sorted row, a value's run of equal values [left, right] gives
    ``tied = right − left`` and ``above = n_valid − 1 − right`` (NaN sort last)."""
    n_case, width = vals.shape
    order = np.argsort(np.where(ok, vals, np.nan), axis=1)
    srt = np.take_along_axis(np.where(ok, vals, np.inf), order, axis=1)
    pos = np.broadcast_to(np.arange(width), (n_case, width))
    new_run = np.ones((n_case, width), bool)
    new_run[:, 1:] = srt[:, 1:] != srt[:, :-1]
    left = np.maximum.accumulate(np.where(new_run, pos, 0), axis=1)
    end_run = np.ones((n_case, width), bool)
    end_run[:, :-1] = new_run[:, 1:]
    right = np.minimum.accumulate(np.where(end_run, pos, width)[:, ::-1], axis=1)[:, ::-1]
    nvalid = ok.sum(axis=1, keepdims=True)
    above_s = nvalid - 1 - right
    tied_s = right - left
    above = np.empty_like(above_s)
    tied = np.empty_like(tied_s)
    np.put_along_axis(above, order, above_s, axis=1)
    np.put_along_axis(tied, order, tied_s, axis=1)
    above = np.where(ok, above, 0)
    tied = np.where(ok, tied, 0)
    n_other = nvalid - 1
    below = n_other - above - tied
    kc = king_credit(above, tied, ties)
    with np.errstate(invalid="ignore", divide="ignore"):
        oc = orange_credit(below, tied, ties) / n_other
    return np.where(ok, kc, np.nan), np.where(ok, oc, np.nan)


@dataclass
class OrangeKing:
    """Result of :func:`orange_king_arrays` / :func:`orange_king` (methods §0, §1.1)."""

    metric: str
    orange: float
    king: float
    king_random: float  # 1/(|A_s|+1) averaged like KING
    orange_random: float  # 1/2
    king_perm: float  # exact expectation of the shuffle baseline (limit of the Monte-Carlo)
    orange_perm: float
    tie_rate: float  # share of (s, r, a) comparisons that are ties
    king_tie_rate: float  # share of cases where no output is above and >= 1 ties the reference
    n_cases: int
    n_comparisons: int
    ties: str
    average: str
    orange_lin_och: float  # methods §2: mean over cases of rank(r)/N, lower is better
    ci: dict = field(default_factory=dict)  # {"orange": (lo, hi), "king": (lo, hi)} with bootstrap
    king_mc: float | None = None  # Monte-Carlo baseline with sampled shuffles, when asked for
    orange_mc: float | None = None

    def as_row(self) -> dict:
        row = {"metric": self.metric, "orange": self.orange, "king": self.king,
               "king_random": self.king_random, "orange_random": self.orange_random,
               "king_perm": self.king_perm, "tie_rate": self.tie_rate,
               "king_tie_rate": self.king_tie_rate, "n_cases": self.n_cases,
               "orange_lin_och": self.orange_lin_och}
        for k, (lo, hi) in self.ci.items():
            row[f"{k}_lo"] = lo
            row[f"{k}_hi"] = hi
        if self.king_mc is not None:
            row["king_mc"] = self.king_mc
            row["orange_mc"] = self.orange_mc
        return row


def orange_king_arrays(ref: np.ndarray, sys: np.ndarray, *, ties: str = "geq", average: str = "micro",
                       bootstrap: int = 0, seed: int = 0, ci: float = 0.95, mc: int = 0,
                       metric: str = "", baselines: bool = True) -> OrangeKing:
    """ORANGE and KING (methods §1.1) from held-out-reference scores ``ref`` [n_seg, n_ref] and
    output scores ``sys`` [n_sys, n_seg, n_ref] (both against R_s − {r_j}).

    * ORANGE = P_(s,r,a)[x(r) ≥ x(a)], KING = P_(s,r)[∀a: x(r) ≥ x(a)]; ``ties`` as in §1.1.
    * micro pools every case (KING) / every comparison (ORANGE); macro averages per segment
      first (§1.1).
    * Baselines: KING 1/(|A_s|+1) per case, ORANGE 1/2 (§0.2); ``king_perm`` is the exact
      expectation of the shuffle baseline (§1.1: the reference is a uniformly random one of
      the |A_s|+1 scores), right for discrete metrics too; ``mc`` > 0 also samples that many
      shuffles per case (``king_mc``). ``baselines=False`` skips the shuffle baselines (NaN),
      for searches that only need KING.
    * ``bootstrap`` > 0: percentile CIs from resampling segments with replacement.
    * ``orange_lin_och``: Lin & Och's average reference rank / N (methods §2), ties at mid-rank.

    KING ≤ ORANGE holds per case, hence for ``macro`` and for ``micro`` when |A_s| is constant;
    ``micro`` with varying |A_s| can break it, since ORANGE then weights cases by |A_s|.
    """
    _check(ties, average)
    cs = case_stats(ref, sys)
    n = cs.n.astype(float)
    nan = float("nan")
    if len(n) == 0:
        return OrangeKing(metric, nan, nan, nan, 0.5, nan, nan, nan, nan, 0, 0, ties, average, nan)
    kc = king_credit(cs.above, cs.tied, ties)
    oc = orange_credit(cs.below, cs.tied, ties)
    ones = np.ones_like(n)
    orange = _average(oc, n, cs.seg, cs.n_seg, average)
    king = _average(kc, ones, cs.seg, cs.n_seg, average)
    king_random = _average(1.0 / (n + 1.0), ones, cs.seg, cs.n_seg, average)
    tie_rate = float(cs.tied.sum() / n.sum())
    king_tie_rate = float(np.mean((cs.above == 0) & (cs.tied > 0)))
    rank = 1.0 + cs.above + 0.5 * cs.tied  # methods §2: mid-rank of r among {r} ∪ A_s
    lin_och = _average(rank / n, ones, cs.seg, cs.n_seg, average)

    king_perm = orange_perm = nan
    if baselines or mc:
        # permutation baseline: all |A_s|+1 scores of the case, the reference first
        sys_a = np.asarray(sys, dtype=float)[:, cs.seg, cs.ref].T  # [case, sys]
        vals = np.concatenate([np.asarray(ref, dtype=float)[cs.seg, cs.ref][:, None], sys_a], axis=1)
        ok = np.isfinite(vals)
        kpos, opos = _rank_credits(vals, ok, ties)
        npos = ok.sum(axis=1)
        king_perm = _average(np.nansum(kpos, axis=1) / npos, ones, cs.seg, cs.n_seg, average)
        # ORANGE permutation: per-position ORANGE shares, weighted by |A_s| as ORANGE is
        orange_perm = _average(np.nansum(opos, axis=1) / npos * n, n, cs.seg, cs.n_seg, average)

    res = OrangeKing(metric, orange, king, king_random, 0.5, king_perm, orange_perm, tie_rate,
                     king_tie_rate, int(len(n)), int(n.sum()), ties, average, lin_och)
    rng = np.random.default_rng(seed)
    if mc:
        # sample which position is the reference, ``mc`` times per case
        u = rng.random((len(n), mc))
        # k-th valid position: valid positions are the finite ones; map uniform to index
        order = np.argsort(~ok, axis=1, kind="stable")  # valid positions first
        pick = np.floor(u * npos[:, None]).astype(int)
        idx = np.take_along_axis(order, pick, axis=1)
        kmc = np.take_along_axis(np.nan_to_num(kpos), idx, axis=1).mean(axis=1)
        omc = np.take_along_axis(np.nan_to_num(opos), idx, axis=1).mean(axis=1)
        res.king_mc = _average(kmc, ones, cs.seg, cs.n_seg, average)
        res.orange_mc = _average(omc * n, n, cs.seg, cs.n_seg, average)
    if bootstrap:
        from ..stats.bootstrap import percentile_ci, resample_counts  # scipy-free, but stats/ loads scipy

        segs_with = np.unique(cs.seg)
        counts = resample_counts(len(segs_with), bootstrap, rng)
        w = np.zeros((bootstrap, cs.n_seg))
        w[:, segs_with] = counts
        for name, num, den in (("orange", oc, n), ("king", kc, ones)):
            vals_b = _average(num, den, cs.seg, cs.n_seg, average, weights=w)
            res.ci[name] = percentile_ci(vals_b, 1.0 - ci)
    return res


def orange_king(t, ties: str = "geq", average: str = "micro", bootstrap: int = 0, seed: int = 0,
                ci: float = 0.95, mc: int = 0) -> OrangeKing:
    """ORANGE / KING of one metric from its :class:`SimTensors` (methods §0, §1.1; Amigó et al. 2006 §2.2):
    uses ``t.loo_ref`` (held-out reference vs the rest) and ``t.loo_sys`` (outputs vs the rest)."""
    return orange_king_arrays(t.loo_ref, t.loo_sys, ties=ties, average=average, bootstrap=bootstrap,
                              seed=seed, ci=ci, mc=mc, metric=getattr(t, "metric_id", ""))


def orange_lin_och(t, average: str = "micro") -> float:
    """Lin & Och's ORANGE (methods §2; C04-1072): rank r among {r} ∪ A_s by its leave-one-out
    score (rank 1 = best, mid-rank for ties) and average rank(r)/N with N = |A_s|. Lower is
    better. With constant N it equals 1/N + 1 − ORANGE_fractional (the §2 identity)."""
    return orange_king(t, ties="fractional", average=average).orange_lin_och
