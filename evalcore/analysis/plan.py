"""How many judgements to buy: power of a ranking test at N judged segments per system, from a
pilot (methods §25.2).

* :func:`pilot_of` reads the pilot: one score per (system, segment) as ``rank`` computes it
  (:func:`evalcore.stats.system_ranking.item_scores`: a rater's repeats averaged, then the raters),
  on the segments judged for every system (the crossed core; a note counts what was left out),
  with each segment's domain.
* :func:`variance_components`: method-of-moments estimates (two-way ANOVA without replication,
  expected mean squares; Searle, Casella & McCulloch 1992, ch. 4) of the segment, system and
  system × segment variances of the crossed core, the rater variance from the rater means of the
  interaction residuals (the spread of rater means beyond what the residual variance explains),
  and the system × segment share net of raters. The segment variance cancels in the paired tests
  below (every system is judged on the same segments); the interaction and rater variances are
  what a paired test must beat.
* :func:`simulate`: the power of the chosen test at N segments per system by resampling the pilot
  (a nonparametric, design-based power analysis: Efron & Tibshirani 1993, ch. 16; the same
  resampling plan as the validation in the tests). A simulated campaign draws N segments with
  replacement, stratified by domain in the pilot's proportions (the way WMT buys documents per
  domain), and gives every system the same segments; each pair of systems is then tested as
  ``rank`` tests it: ``wilcoxon`` (WMT24: per-domain two-sided Wilcoxon signed-rank, Stouffer over
  domains; scipy's test, the same p-values as :func:`evalcore.stats.system_ranking.rank_systems`),
  ``bootstrap`` (``rank --test bootstrap``: the paired bootstrap of the macro-over-domains mean,
  Koehn 2004) or ``t-test`` (the paired t-test of the per-segment differences; Student 1908).
  Power = the share of simulated campaigns with p < α. For a difference δ set by the user, each
  pair's per-segment differences are shifted by δ − Δ (Δ: the pair's observed difference, the
  macro mean over domains): a location-shift alternative with the pilot's own noise.
* Assurance (``assurance=True``; O'Hagan, Stevens & Campbell 2005, "Assurance in clinical trial
  design", Pharmaceutical Statistics 4(3)): the power averaged over the uncertainty about the true
  difference given the pilot, instead of the power at the pilot's observed difference taken as
  true. That uncertainty is the bootstrap distribution of the pair's difference (Efron &
  Tibshirani 1993, ch. 6; a flat prior): each simulated campaign first draws Δ* on a stratified
  resample of the pilot of the pilot's own size, then is shifted by Δ* − Δ (the location shift
  above). Assurance is the probability that a campaign of N segments will separate the pair,
  counting that the pilot may have over- or understated the difference; with a small pilot it
  is the more honest number, and it stays below 1 however large N is when the pilot cannot tell
  the sign of the difference.
* The expected number of significance clusters (rank's clusters, methods §3.12) is the mean over
  simulated campaigns; the N giving 80 % power is the smallest N of the grid that reaches it.
* :func:`metric_power`: how many segments before two metrics' system-level correlations with the
  humans separate: the same simulated campaigns, each metric's system scores the mean of its
  segment scores over the drawn segments, Williams' test between the two Pearson correlations
  (Williams 1959; Graham & Baldwin 2014), power = share with p < α.

Deterministic for a seed. Nothing here imports streamlit.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.problems import DataError, Report
from ..core.progress import Progress

TESTS = ("wilcoxon", "bootstrap", "t-test")
PLAN_COLUMNS = ["system_a", "system_b", "delta", "n", "power", "which"]
SUMMARY_COLUMNS = ["system_a", "system_b", "delta", "which", "n_80", "power_at_max"]
CLUSTER_COLUMNS = ["n", "expected_clusters"]
VARIANCE_COLUMNS = ["component", "variance", "share"]
METRIC_COLUMNS = ["metric_a", "metric_b", "n", "power"]
DEFAULT_GRID = (25, 50, 100, 200, 400, 800)
MIN_SYSTEMS = 2
MIN_SEGMENTS = 10


@dataclass(frozen=True, eq=False)
class Pilot:
    """A crossed pilot: ``Y[s, i]`` the score of system s on segment i, ``domain[i]`` the index of
    segment i's domain in ``domains``; ``raters``: judgement rows (system, seg_id, rater, score)
    of the crossed core, for the rater variance."""

    systems: list[str]
    seg_ids: list[str]
    Y: np.ndarray
    domain: np.ndarray
    domains: list[str]
    raters: pd.DataFrame | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def segments(self, keep: np.ndarray) -> "Pilot":
        """The pilot on the segments where ``keep`` (a boolean mask over ``seg_ids``) is set."""
        keep = np.asarray(keep, dtype=bool)
        ids = [s for s, k in zip(self.seg_ids, keep) if k]
        raters = self.raters[self.raters["seg_id"].isin(set(ids))] if self.raters is not None else None
        return Pilot(self.systems, ids, self.Y[:, keep], self.domain[keep], self.domains, raters, self.notes)

    def scores(self) -> np.ndarray:
        """Each system's score: the macro average over domains of its per-domain mean (rank's)."""
        return np.mean([self.Y[:, self.domain == d].mean(axis=1) for d in range(len(self.domains))
                        if np.any(self.domain == d)], axis=0)


def pilot_of(dataset, criterion: str, systems: Sequence[str] | None = None) -> Pilot:
    """The crossed pilot of ``criterion`` (module docstring). Raises
    :class:`~evalcore.core.problems.DataError` (every problem at once, with the numbers needed)
    with fewer than 2 systems or 10 segments judged for every system."""
    from ..human.scores import criterion_judgements
    from ..stats.system_ranking import item_scores
    from .calibrate import domains_of

    j = criterion_judgements(dataset, criterion)
    j = j.assign(seg_id=j["seg_id"].astype(str))
    if systems is not None:
        j = j[j["system"].isin(set(systems))]
    items = item_scores(j)
    items = items[items["score"].notna()]
    names = list(dict.fromkeys(items["system"]))
    wide = items.pivot(index="system", columns="seg_id", values="score").reindex(index=names)
    full = wide.columns[wide.notna().all(axis=0)]
    notes = []
    left = wide.shape[1] - len(full)
    if left:
        notes.append(f"{left} of {wide.shape[1]} judged segments left out: not judged for every system "
                     f"(the pilot is the {len(full)} segments judged for all {len(names)})")
    rep = Report()
    if len(names) < MIN_SYSTEMS:
        rep.error("", None, f"{len(names)} system(s) with {criterion!r} judgements: plan needs at least {MIN_SYSTEMS}")
    if len(full) < MIN_SEGMENTS:
        rep.error("", None, f"{len(full)} segment(s) judged for every system: plan needs at least {MIN_SEGMENTS} "
                            "(a pilot where every system is judged on the same segments)")
    if rep.errors:
        raise DataError(rep)
    dom_map = domains_of(dataset)
    seg_dom = [dom_map.get(s, "") for s in full]
    doms = sorted(set(seg_dom))
    Y = wide[full].to_numpy(dtype=float)
    keep = j[j["seg_id"].isin(set(full)) & j["system"].isin(set(names))][["system", "seg_id", "rater", "score"]]
    return Pilot(names, [str(s) for s in full], Y, np.array([doms.index(d) for d in seg_dom]), doms, keep,
                 tuple(notes))


def variance_components(pilot: Pilot) -> pd.DataFrame:
    """Method-of-moments variance components of the crossed core (module docstring):
    component (system, segment, system×segment, rater, system×segment net of raters), variance
    (≥ 0), share (of segment + system×segment, the per-judgement variance around the system mean)."""
    Y = pilot.Y
    S, n = Y.shape
    grand = Y.mean()
    rs, cs = Y.mean(axis=1), Y.mean(axis=0)
    resid = Y - rs[:, None] - cs[None, :] + grand
    ms_sys = n * np.sum((rs - grand) ** 2) / (S - 1) if S > 1 else float("nan")
    ms_seg = S * np.sum((cs - grand) ** 2) / (n - 1)
    ms_res = np.sum(resid ** 2) / ((S - 1) * (n - 1)) if S > 1 else float("nan")
    seg = max(0.0, (ms_seg - ms_res) / S)
    sysv = max(0.0, (ms_sys - ms_res) / n)
    rater = float("nan")
    if pilot.raters is not None and len(pilot.raters):
        pos_s = {s: k for k, s in enumerate(pilot.systems)}
        pos_i = {s: k for k, s in enumerate(pilot.seg_ids)}
        r = pilot.raters
        e = resid[r["system"].map(pos_s).to_numpy(), r["seg_id"].map(pos_i).to_numpy()]
        by = pd.DataFrame({"rater": r["rater"].astype(str).to_numpy(), "e": e}).groupby("rater")["e"]
        means, counts = by.mean(), by.size()
        if len(means) > 1:
            rater = max(0.0, float(np.var(means.to_numpy(), ddof=1) - np.mean(ms_res / counts.to_numpy())))
    net = max(0.0, ms_res - rater) if not math.isnan(rater) else float("nan")
    total = seg + ms_res
    rows = [("system", sysv), ("segment", seg), ("system×segment", ms_res), ("rater", rater),
            ("system×segment net of raters", net)]
    return pd.DataFrame([(c, float(v), float(v / total) if total > 0 and c != "system" else float("nan"))
                         for c, v in rows], columns=VARIANCE_COLUMNS)


def allocation(pilot: Pilot, n: int) -> np.ndarray:
    """Segments per domain for N in total: the pilot's domain shares, largest remainders."""
    share = np.bincount(pilot.domain, minlength=len(pilot.domains)) / len(pilot.domain)
    raw = share * n
    out = np.floor(raw).astype(int)
    for k in np.argsort(-(raw - out), kind="stable")[: n - out.sum()]:
        out[k] += 1
    return out


def _wilcoxon_rows(D: np.ndarray) -> np.ndarray:
    """scipy's two-sided Wilcoxon signed-rank p-value of each row of ``D`` as a 1-D call on that row
    gives it (what ``rank`` computes): scipy chooses its method from ties and zeros, and a 2-D call
    decides once for all rows, so rows with and without ties or zeros go in separate calls. A
    single difference: p = 1 (scipy's 1-D answer). One deviation, for speed: a row of at most 13
    differences with ties or zeros gets the normal approximation where scipy runs an exact
    permutation test (seconds per row; such tiny domains arise only at small simulated N)."""
    import scipy.stats

    R, n = D.shape
    if n <= 1:
        return np.ones(R)
    a = np.sort(np.abs(D), axis=1)
    zeros = np.any(D == 0, axis=1)
    ties = np.any((a[:, 1:] == a[:, :-1]) & (a[:, 1:] != 0), axis=1)
    out = np.ones(R)
    calls: list[tuple[np.ndarray, Literal["asymptotic", "auto"]]] = [
        (np.flatnonzero(zeros | ties), "asymptotic" if n <= 13 else "auto"), (np.flatnonzero(~(zeros | ties)), "auto")]
    for rows, method in calls:
        if not len(rows):
            continue
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore")
            # scipy-stubs list "asymptotic" only for keepdims=True; scipy takes it for any axis
            options: dict[str, Any] = {"method": method}
            out[rows] = scipy.stats.wilcoxon(D[rows], axis=1, **options).pvalue
    return np.where(np.any(D != 0, axis=1), out, 1.0)  # rank's: no difference at all -> p = 1


def _pvalues(D: list[np.ndarray], test: str, rng_seed: int, n_boot: int) -> np.ndarray:
    """p-values (M,) of M simulated paired comparisons from their per-domain differences D[d]
    (M × n_d); the bootstrap of row r uses the seed ``rng_seed + r``."""
    import scipy.stats

    R = D[0].shape[0]
    if test == "wilcoxon":
        from scipy.stats import norm

        zs = []
        for Dd in D:
            if not Dd.shape[1]:
                continue
            p = _wilcoxon_rows(Dd)
            with np.errstate(divide="ignore"):
                zs.append(norm.ppf(1.0 - p))
        with np.errstate(invalid="ignore"):
            Z = np.sum(zs, axis=0) / math.sqrt(len(zs))
        return np.where(np.isnan(Z), np.nan, norm.sf(Z))
    full = np.hstack(D)
    if test == "t-test":
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore")
            pt = np.asarray(scipy.stats.ttest_1samp(full, 0.0, axis=1).pvalue, dtype=float)
        return np.where(np.any(full != 0, axis=1), np.where(np.isnan(pt), 1.0, pt), 1.0)
    from ..stats.system_ranking import _resampling_p

    dom = np.concatenate([np.full(Dd.shape[1], k) for k, Dd in enumerate(D)])
    return np.array([_resampling_p(full[r], np.zeros(full.shape[1]), dom, len(D), "bootstrap", n_boot,
                                   rng_seed + r) for r in range(R)])


def _targets(shift_to: float | Mapping[tuple[str, str], float], names: list[tuple[str, str]]) -> np.ndarray:
    """The difference to set for each named pair: one value for all, or looked up (a − b; a pair
    given the other way round has its sign turned); a pair missing from the mapping is an error."""
    if not isinstance(shift_to, Mapping):
        return np.full(len(names), float(shift_to))
    out, missing = [], []
    for a, b in names:
        if (a, b) in shift_to:
            out.append(float(shift_to[(a, b)]))
        elif (b, a) in shift_to:
            out.append(-float(shift_to[(b, a)]))
        else:
            missing.append(f"{a} vs {b}")
            out.append(float("nan"))
    if missing:
        raise ValueError(f"no difference set for {len(missing)} pair(s): {', '.join(missing[:5])}"
                         + (" …" if len(missing) > 5 else ""))
    return np.array(out)


def _bootstrap_deltas(pilot: Pilot, diff_all: np.ndarray, pools: list[np.ndarray], resamples: int,
                      rng: np.random.Generator) -> np.ndarray:
    """(pairs × resamples) macro-over-domains mean differences, each on a resample of the pilot's
    segments of the pilot's own size, stratified by domain (the bootstrap distribution of each
    pair's difference)."""
    means = []
    for pool in pools:
        if not len(pool):
            continue
        idx = pool[rng.integers(0, len(pool), size=(resamples, len(pool)))]
        means.append(diff_all[:, idx].mean(axis=2))
    return np.mean(means, axis=0)


def simulate(pilot: Pilot, n: int, *, test: str = "wilcoxon", resamples: int = 200, alpha: float = 0.05,
             seed: int = 0, shift_to: float | Mapping[tuple[str, str], float] | None = None, n_boot: int = 200,
             assurance: bool = False) -> tuple[pd.DataFrame, float]:
    """Power of every pair of systems at ``n`` segments (module docstring): a frame (system_a,
    system_b, delta, n, power) with system_a the better of the pilot's pair, and the expected
    number of clusters. ``shift_to``: every pair's difference set to this value instead of the
    observed one, or a mapping (system_a, system_b) → the difference a − b to set for each pair
    (either order; every pair of the pilot must be there) — clusters then NaN. ``assurance``: each
    campaign's true difference is drawn from the bootstrap distribution of the pair's difference
    in the pilot (module docstring: assurance, O'Hagan, Stevens & Campbell 2005); ``delta`` stays
    the pilot's."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    rng = np.random.default_rng(seed)
    alloc = allocation(pilot, n)
    pools = [np.flatnonzero(pilot.domain == d) for d in range(len(pilot.domains))]
    draws = [pools[d][rng.integers(0, len(pools[d]), size=(resamples, alloc[d]))] for d in range(len(pools))
             if alloc[d] > 0 and len(pools[d])]
    sc = pilot.scores()
    order = sorted(range(len(pilot.systems)), key=lambda k: (-sc[k], pilot.systems[k]))
    S = len(order)
    pairs = [(x, y) for x in range(S) for y in range(x + 1, S)]
    A = np.array([order[x] for x, _ in pairs], dtype=int)
    B = np.array([order[y] for _, y in pairs], dtype=int)
    deltas = sc[A] - sc[B]
    diff_all = pilot.Y[A] - pilot.Y[B]
    if shift_to is not None:  # a location shift: each pair's difference becomes the one set
        target = _targets(shift_to, [(pilot.systems[a], pilot.systems[b]) for a, b in zip(A, B)])
        diff_all = diff_all + (target - deltas)[:, None]
        deltas = target
    # assurance: campaign r of pair k shifted by Δ*_kr − Δ_k, Δ*_kr the pair's difference on a
    # stratified resample of the pilot's own size (its bootstrap distribution)
    moved = _bootstrap_deltas(pilot, diff_all, pools, resamples, rng) - deltas[:, None] if assurance else None
    hits = np.zeros((len(pairs), resamples), dtype=bool)
    chunk = max(1, 4_000_000 // max(1, resamples * n))  # pairs per batch: bounded memory
    for lo in range(0, len(pairs), chunk):
        part = diff_all[lo:lo + chunk]
        D = [part[:, idx].reshape(len(part) * resamples, idx.shape[1]) for idx in draws]
        if moved is not None:
            D = [Dd + moved[lo:lo + chunk].reshape(-1, 1) for Dd in D]
        p = _pvalues(D, test, seed + lo * resamples, n_boot).reshape(len(part), resamples)
        hits[lo:lo + chunk] = np.nan_to_num(p, nan=1.0) < alpha
    sig = np.zeros((resamples, S, S), dtype=bool)
    for k, (x, y) in enumerate(pairs):
        sig[:, x, y] = sig[:, y, x] = hits[k]
    rows = [(pilot.systems[A[k]], pilot.systems[B[k]], float(deltas[k]), n, float(hits[k].mean()))
            for k in range(len(pairs))]
    clusters = float("nan")
    if shift_to is None and not assurance and S > 1:
        from ..stats.system_ranking import clusters_from_significance

        counts = []
        for r in range(resamples):
            # this campaign's own order: systems by their scores on the drawn segments
            cols = [np.mean([pilot.Y[:, idx[r]].mean(axis=1) for idx in draws], axis=0)]
            o = sorted(range(S), key=lambda k: -cols[0][order[k]])
            counts.append(int(clusters_from_significance(sig[r][np.ix_(o, o)]).max()))
        clusters = float(np.mean(counts))
    return pd.DataFrame(rows, columns=PLAN_COLUMNS[:5]), clusters


@dataclass(frozen=True, eq=False)
class Plan:
    """What :func:`plan` returns: ``power`` (:data:`PLAN_COLUMNS`), ``summary``
    (:data:`SUMMARY_COLUMNS`), ``clusters`` (:data:`CLUSTER_COLUMNS`), ``variance``
    (:data:`VARIANCE_COLUMNS`), ``metrics`` (:data:`METRIC_COLUMNS`, empty unless asked), notes."""

    power: pd.DataFrame
    summary: pd.DataFrame
    clusters: pd.DataFrame
    variance: pd.DataFrame
    metrics: pd.DataFrame
    notes: tuple[str, ...] = ()


def plan(pilot: Pilot, grid: Sequence[int] = DEFAULT_GRID, *, test: str = "wilcoxon", resamples: int = 200,
         alpha: float = 0.05, seed: int = 0, delta: float | None = None, n_boot: int = 200,
         assurance: bool = False, progress: Progress = None) -> Plan:
    """Power at every N of ``grid`` (and the pilot's own N), at the observed differences and, with
    ``delta``, at that difference for every pair; with ``assurance``, also the assurance (which =
    ``assurance``: the power averaged over the bootstrap distribution of each pair's difference);
    the N for 80 % power; expected clusters; variance components (module docstring)."""
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    ns = sorted({int(n) for n in grid if int(n) > 0} | {len(pilot.seg_ids)})
    frames, clusters = [], []
    kinds: list[tuple[str, float | None, bool]] = [("observed", None, False)]
    if delta is not None:
        kinds.append(("set", delta, False))
    if assurance:
        kinds.append(("assurance", None, True))
    steps = len(ns) * len(kinds)
    k = 0
    for n in ns:
        for which, shift, assure in kinds:
            if progress:
                progress(k / steps, f"simulating {n} segments ({which})")
            k += 1
            t, c = simulate(pilot, n, test=test, resamples=resamples, alpha=alpha, seed=seed, shift_to=shift,
                            n_boot=n_boot, assurance=assure)
            frames.append(t.assign(which=which))
            if which == "observed":
                clusters.append((n, c))
    power = pd.concat(frames, ignore_index=True)[PLAN_COLUMNS]
    rows = []
    for (sa, sb, kind), g in power.groupby(["system_a", "system_b", "which"], sort=False):
        g = g.sort_values("n")
        reach = g[g["power"] >= 0.8]
        rows.append((sa, sb, float(g["delta"].iloc[0]), kind, float(reach["n"].min()) if len(reach) else float("nan"),
                     float(g["power"].iloc[-1])))
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    notes = list(pilot.notes)
    short = int(summary["n_80"].isna().sum())
    if short:
        notes.append(f"{short} pair(s) do not reach 80 % power by N = {max(ns)} (n_80 empty): a larger N, or a "
                     "difference too small to detect")
    notes.append(f"test {test}, α = {alpha:g}, {resamples} simulated campaigns per N, seed {seed}; N segments "
                 f"per system drawn with replacement from the pilot's {len(pilot.seg_ids)}, stratified by domain "
                 f"({', '.join(d or '(none)' for d in pilot.domains)})")
    if progress:
        progress(1.0, "plan ready")
    return Plan(power, summary, pd.DataFrame(clusters, columns=CLUSTER_COLUMNS), variance_components(pilot),
                pd.DataFrame(columns=METRIC_COLUMNS), tuple(notes))


def metric_power(pilot: Pilot, metric_scores: dict[str, np.ndarray], grid: Sequence[int] = DEFAULT_GRID, *,
                 resamples: int = 200, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """How many segments before two metrics' system-level Pearson correlations with the humans
    separate (module docstring): ``metric_scores[m]`` is the (systems × segments) matrix of
    metric m's segment scores aligned with ``pilot.Y`` (oriented: higher is better). Rows
    metric_a, metric_b, n, power (Williams' test, one-sided in the direction of the pilot's
    correlations, at α)."""
    from ..stats.significance import williams_test

    names = list(metric_scores)
    rng = np.random.default_rng(seed)
    pools = [np.flatnonzero(pilot.domain == d) for d in range(len(pilot.domains))]
    rows = []
    for n in sorted({int(x) for x in grid if int(x) > 0}):
        alloc = allocation(pilot, n)
        draws = [pools[d][rng.integers(0, len(pools[d]), size=(resamples, alloc[d]))] for d in range(len(pools))
                 if alloc[d] > 0]
        idx = np.hstack(draws)
        h = pilot.Y[:, idx].mean(axis=2).T  # (R, S)
        ms = {m: metric_scores[m][:, idx].mean(axis=2).T for m in names}
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                hits = 0
                for r in range(resamples):
                    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
                        warnings.simplefilter("ignore")
                        r1 = np.corrcoef(h[r], ms[names[i]][r])[0, 1]
                        r2 = np.corrcoef(h[r], ms[names[j]][r])[0, 1]
                        r12 = np.corrcoef(ms[names[i]][r], ms[names[j]][r])[0, 1]
                        a, b = (r1, r2) if r1 >= r2 else (r2, r1)
                        try:
                            p = williams_test(a, b, r12, h.shape[1])[1]
                        except (ValueError, ZeroDivisionError):  # a degenerate campaign: no test
                            p = float("nan")
                    hits += bool(p < alpha) if p == p else 0
                rows.append((names[i], names[j], n, hits / resamples))
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)
