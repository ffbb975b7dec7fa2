"""Adaptive selection of the items a class judges, and its simulation on existing judgements
(methods §27; issue point 5, "annotation that spends the budget well").

* :func:`pool_of` — the judged cells (system, segment) of one criterion with their item score
  (:func:`evalcore.stats.system_ranking.item_scores`: a rater's repeats averaged, then the raters).
* :func:`fit` — the system estimate from a subset of cells: the additive two-way model
  score = system effect + segment effect, by least squares (alternating means). With every cell
  judged (WMT24's screens judge all systems of a segment) it orders the systems as their means
  do; on a subset it removes the segment's difficulty, which a plain mean over different
  segments keeps as noise.
* :func:`swap_probability` — for two systems with estimates μ and standard errors σ, the normal
  approximation of the probability that their order is the wrong one, Φ(−|μa − μb| / √(σa² + σb²))
  (the posterior probability of a swap under flat priors, as used to pick duels in Thompson
  sampling for dueling bandits, Wu & Liu 2016, and in active ranking from pairwise comparisons,
  Heckel et al. 2019).
* :func:`pick_uncertain` — the policy: each system's share of the next judgements is its summed
  swap probability with every other system, weighted by its part of the pair's variance (a
  judgement of the system with the larger error shrinks the pair's error most); within a
  system, the segments already judged for its uncertain partners come first (a paired
  comparison: the segment's difficulty cancels).
* :func:`population_se`, :func:`pair_se` — the error of a system's, and of a pair's paired,
  *full-data* score: the finite-population correction √(1 − n/N) (Cochran 1977, Sampling
  Techniques, §2.5); 0 once every cell (every common segment) is judged.
* :func:`pick_pairs` — the ``pairs`` policy (the class's, :func:`pair_block_weights`): the pairs in
  descending swap probability with their own finite-population error; the batch goes to the most
  uncertain pair's segments, those one judgement from paired first, until the pair is fully paired.
* :func:`ceiling` — the design ceiling: the reversed pairs an allocation of the budget to systems
  should expect knowing the full data, judged uniformly and at the best shares.
* :func:`settled` — the "rankings settled" rule: the significance clusters of the current
  estimate (pairwise z-test at α = 0.05, clusters as :func:`~evalcore.stats.system_ranking.
  clusters_from_significance`) have not changed over the last ``k`` judgements.
* :func:`simulate` — the sequential simulation: from a random seed of judgements, each policy
  reveals real ratings from the data in batches until the budget; the estimate's Kendall τ to the
  full-data ranking, and τ restricted to the pairs the full data separates significantly
  (WMT24's Wilcoxon–Stouffer test, methods §3.12), per run.

Nothing here imports streamlit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..scoring.settings import Settings

#: the selection policies of the simulation: ``random`` cells, ``blocks`` (random segments,
#: every system of a segment, as a WMT screen), ``uncertainty`` (:func:`pick_uncertain`) and
#: ``disagreement`` (the same, segments where metrics disagree first: needs a segment prior,
#: :func:`segment_disagreement`)
POLICIES = ("random", "blocks", "uncertainty", "disagreement", "pairs")
#: the policies the command compares unless told (``disagreement`` needs metrics)
DEFAULT_POLICIES = "random,blocks,uncertainty,pairs"
#: share of the budget drawn at random before any policy chooses (at least two cells per system)
SEED_SHARE = 0.1
#: share of the pool revealed between two refreshes of the estimate (the "sequential" step)
BATCH_SHARE = 0.01
#: "rankings settled": the clusters unchanged over the last ``SETTLE_SHARE`` · pool judgements
SETTLE_SHARE = 0.05
#: the issue's target: Kendall τ to the full-data ranking of at least this
TAU_TARGET = 0.9
Z_95 = 1.959963984540054  # Φ⁻¹(0.975): the pairwise z-test of the clusters at α = 0.05

RUN_COLUMNS = ["policy", "budget_share", "run", "kendall_tau", "tau_separated_pairs", "settled",
               "settled_at", "n_judgements"]
SUMMARY_COLUMNS = ["policy", "budget_share", "runs", "mean_tau", "share_tau_ge_target", "mean_tau_separated",
                   "share_tau_separated_ge_target", "share_settled", "mean_tau_when_settled"]


@dataclass(frozen=True)
class Pool:
    """Judged cells: ``sys_idx[i]``, ``seg_idx[i]`` index ``systems`` and ``segs``; ``score[i]`` the
    item score (higher is better); ``domain`` per segment ("" without domains)."""
    systems: tuple[str, ...]
    segs: tuple[str, ...]
    sys_idx: np.ndarray
    seg_idx: np.ndarray
    score: np.ndarray
    domain: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.score)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({"system": [self.systems[i] for i in self.sys_idx],
                             "seg_id": [self.segs[g] for g in self.seg_idx], "score": self.score})


def pool_from_items(items: pd.DataFrame, domains: dict | None = None) -> Pool:
    """A :class:`Pool` from item scores (system, seg_id, score; one row per cell)."""
    t = items[["system", "seg_id", "score"]].copy()
    t["seg_id"] = t["seg_id"].astype(str)
    t = t[t["score"].notna()]
    systems = tuple(sorted(t["system"].astype(str).unique()))
    segs = tuple(dict.fromkeys(t["seg_id"]))
    si = {s: i for i, s in enumerate(systems)}
    gi = {g: i for i, g in enumerate(segs)}
    dom = tuple(str((domains or {}).get(g, "") or "") for g in segs)
    return Pool(systems, segs, np.array([si[s] for s in t["system"].astype(str)], dtype=int),
                np.array([gi[g] for g in t["seg_id"]], dtype=int), t["score"].to_numpy(dtype=float), dom)


def pool_of(dataset: Dataset, settings: Settings, criterion: str | None = None) -> Pool:
    """The judged cells of ``criterion`` (default: the dataset's default criterion) in ``dataset``;
    human translations judged as systems (WMT's ``refA``) only with ``settings.include_human_systems``.
    ``ValueError`` when fewer than two systems are judged."""
    from ..human.scores import criterion_judgements
    from ..scoring.defaults import default_criterion
    from ..stats.system_ranking import item_scores
    from ..stats.tables import human_systems

    crit = criterion or default_criterion(dataset)
    if crit is None:
        raise ValueError(f"{dataset.name}: no human judgements; the simulation reveals real ratings")
    j = criterion_judgements(dataset, crit)
    if not settings.include_human_systems:
        j = j[~j["system"].isin(set(human_systems(dataset)))]
    items = item_scores(j)
    domains = None
    if "domain" in dataset.segments.columns:
        domains = dict(zip(dataset.segments["seg_id"].astype(str), dataset.segments["domain"].fillna("").astype(str)))
    pool = pool_from_items(items, domains)
    if len(pool.systems) < 2:
        raise ValueError(f"{dataset.name}: {crit} judges {len(pool.systems)} system(s); a ranking needs two or more")
    return pool


# --------------------------------------------------------------------------- estimate
def fit(pool: Pool, mask: np.ndarray, iters: int = 30) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(system effects, their standard errors, cells per system) from the cells of ``mask``.

    Additive model y = a_s + b_g, least squares by alternating means (Gauss–Seidel: segment
    effects given the systems, then systems given the segments; b centred); a_s is NaN for a
    system without a cell. Standard error: the residual standard deviation (degrees of freedom
    n − #systems − #segments + 1, at least 1) over √(cells of the system)."""
    S, G = len(pool.systems), len(pool.segs)
    s, g, y = pool.sys_idx[mask], pool.seg_idx[mask], pool.score[mask]
    ns = np.bincount(s, minlength=S).astype(float)
    ng = np.bincount(g, minlength=G).astype(float)
    a = np.where(ns > 0, np.bincount(s, y, minlength=S) / np.maximum(ns, 1), np.nan)
    b = np.zeros(G)
    a0 = np.nan_to_num(a)
    for _ in range(iters):
        b = np.where(ng > 0, np.bincount(g, y - a0[s], minlength=G) / np.maximum(ng, 1), 0.0)
        b -= b[ng > 0].mean() if (ng > 0).any() else 0.0
        new = np.where(ns > 0, np.bincount(s, y - b[g], minlength=S) / np.maximum(ns, 1), 0.0)
        if np.max(np.abs(new - a0)) < 1e-10:
            a0 = new
            break
        a0 = new
    a = np.where(ns > 0, a0, np.nan)
    resid = y - a0[s] - b[g]
    dof = max(1.0, len(y) - (ns > 0).sum() - (ng > 0).sum() + 1)
    sd = math.sqrt(float(resid @ resid) / dof) if len(y) else float("nan")
    se = np.where(ns > 0, sd / np.sqrt(np.maximum(ns, 1)), np.inf)
    return a, se, ns


def swap_probability(effects: np.ndarray, se: np.ndarray) -> np.ndarray:
    """P[a, b] = Φ(−|μa − μb| / √(σa² + σb²)) (module docstring); 0 on the diagonal, 0.5 for a
    pair with an unknown (NaN or infinite-error) side, 0 for a pair whose difference is known
    exactly (σa = σb = 0: both fully judged, :func:`population_se`)."""
    from scipy.stats import norm

    mu = np.asarray(effects, dtype=float)
    unknown = np.isnan(mu)
    mu = np.nan_to_num(mu)
    v = np.asarray(se, dtype=float) ** 2
    vv = v[:, None] + v[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(mu[:, None] - mu[None, :]) / np.sqrt(vv)
    p = norm.cdf(-z)
    p[np.isnan(z)] = 0.5
    p[vv == 0] = 0.0  # the full-data order (or tie) is known
    p[unknown[:, None] | unknown[None, :]] = 0.5
    np.fill_diagonal(p, 0.0)
    return p


def population_se(se: np.ndarray, ns: np.ndarray, population: np.ndarray) -> np.ndarray:
    """The standard error of each system's *full-data* score (a finite population of
    ``population`` cells, ``ns`` of them judged): ``se`` · √(1 − n/N), the finite-population
    correction (Cochran 1977, Sampling Techniques, §2.5: Var(ȳ) = (σ²/n)(1 − n/N)). 0 for a system
    whose every cell is judged (its full-data score is known); ``se`` unchanged (infinite) where
    nothing is judged."""
    se = np.asarray(se, dtype=float)
    ns = np.asarray(ns, dtype=float)
    pop = np.asarray(population, dtype=float)
    f = np.where(pop > 0, np.clip(ns / np.maximum(pop, 1), 0.0, 1.0), 0.0)
    with np.errstate(invalid="ignore"):
        out = se * np.sqrt(1.0 - f)
    return np.where(ns > 0, out, se)


def clusters(effects: np.ndarray, se: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """The significance clusters of an estimate, as a tuple of clusters (each a sorted tuple of
    system indices), best first: systems in descending estimate, a and b differ when
    |μa − μb| > 1.96 √(σa² + σb²), clusters by :func:`~evalcore.stats.system_ranking.clusters_from_significance`."""
    from ..stats.system_ranking import clusters_from_significance

    mu = np.nan_to_num(np.asarray(effects, dtype=float), nan=-np.inf)
    order = np.argsort(-mu, kind="stable")
    m, v = np.asarray(effects, dtype=float)[order], np.asarray(se, dtype=float)[order] ** 2
    with np.errstate(invalid="ignore"):
        sig = np.abs(m[:, None] - m[None, :]) > Z_95 * np.sqrt(v[:, None] + v[None, :])
    lab = clusters_from_significance(np.nan_to_num(sig, nan=False))
    return tuple(tuple(sorted(int(order[i]) for i in np.flatnonzero(lab == c))) for c in np.unique(lab))


def settled(history: Sequence[tuple[int, tuple]], k: int) -> bool:
    """The "rankings settled" rule: ``history`` holds (judgements so far, clusters) at each refresh,
    oldest first; True when the clusters of every refresh made within the last ``k`` judgements
    — and of the last refresh before them — are the same (they have not changed over the last
    ``k`` judgements). False while fewer than ``k`` judgements separate the first refresh from the last."""
    if not history:
        return False
    n_last, last = history[-1]
    if n_last - history[0][0] < k:
        return False
    for n, part in reversed(history):
        if part != last:
            return False
        if n <= n_last - k:
            return True
    return False


# --------------------------------------------------------------------------- agreement
def kendall_tau(full: np.ndarray, est: np.ndarray) -> float:
    """Kendall τ_b of two score vectors over the systems (scipy.stats.kendalltau); NaN entries are
    left out."""
    from scipy.stats import kendalltau

    ok = ~(np.isnan(full) | np.isnan(est))
    if ok.sum() < 2:
        return float("nan")
    return float(kendalltau(full[ok], est[ok]).statistic)


def tau_on_pairs(full: np.ndarray, est: np.ndarray, pairs: np.ndarray) -> float:
    """(concordant − discordant) / #pairs over the pairs marked in ``pairs`` (a boolean system ×
    system matrix; each unordered pair counted once): the share of the separated pairs the estimate
    orders as the full data, minus the share it reverses (a tie in the estimate counts 0). NaN
    without a marked pair."""
    i, j = np.nonzero(np.triu(pairs | pairs.T, 1))
    if not len(i):
        return float("nan")
    d = np.sign(full[i] - full[j]) * np.sign(est[i] - est[j])
    d = np.nan_to_num(d)
    return float(d.sum() / len(i))


def separated_pairs(pool: Pool, alpha: float = 0.05) -> np.ndarray:
    """The pairs of systems the full data separates significantly (WMT24's human ranking: per
    domain a Wilcoxon signed-rank test on the common segments, combined with Stouffer's method,
    p < ``alpha``; :func:`evalcore.stats.system_ranking.rank_systems`, methods §3.12), as a
    symmetric boolean matrix in the pool's system order."""
    from ..stats.system_ranking import rank_systems

    domains = {g: d for g, d in zip(pool.segs, pool.domain)} if pool.domain else None
    r = rank_systems(pool.frame(), domains, test="wilcoxon", alpha=alpha)
    pos = [r.systems.index(s) for s in pool.systems]
    return np.asarray(r.significant, dtype=bool)[np.ix_(pos, pos)]


# --------------------------------------------------------------------------- policies
def _cells(pool: Pool) -> np.ndarray:
    """cell[s, g] = the pool index of (system s, segment g), −1 where not judged."""
    cell = -np.ones((len(pool.systems), len(pool.segs)), dtype=int)
    cell[pool.sys_idx, pool.seg_idx] = np.arange(len(pool))
    return cell


def _allocate(weights: np.ndarray, avail: np.ndarray, k: int) -> np.ndarray:
    """``k`` judgements over systems in proportion to ``weights`` (largest remainder), none beyond
    what a system has left (``avail``); what a full system cannot take goes to the others."""
    out = np.zeros(len(weights), dtype=int)
    w = np.where(avail > 0, np.maximum(weights, 0.0), 0.0)
    while k > 0 and (avail - out).sum() > 0:
        open_ = (avail - out) > 0
        ww = np.where(open_, w, 0.0)
        if ww.sum() <= 0:
            ww = open_.astype(float)
        share = ww / ww.sum() * k
        take = np.floor(share).astype(int)
        rest = k - take.sum()
        if rest:
            take[np.argsort(-(share - take), kind="stable")[:rest]] += 1
        take = np.minimum(take, avail - out)
        if take.sum() == 0:
            break
        out += take
        k -= int(take.sum())
    return out


def pick_uncertain(pool: Pool, mask: np.ndarray, k: int, rng: np.random.Generator,
                   cell: np.ndarray | None = None, seg_prior: np.ndarray | None = None) -> np.ndarray:
    """The next ``k`` cells by uncertainty (module docstring): system s gets a share of
    Σ_b P[s, b] · σs² / (σs² + σb²) (:func:`swap_probability` of the current :func:`fit`); its cells
    are taken in descending Σ_b P[s, b] · [b judged on the segment] (paired evidence on its
    uncertain pairs), ties broken at random. With ``seg_prior`` (one value in [0, 1] per pool
    segment, e.g. :func:`segment_disagreement`) the order is by that paired value over its maximum
    Σ_b P[s, b], plus the segment's prior."""
    cell = _cells(pool) if cell is None else cell
    eff, se, _ = fit(pool, mask)
    p = swap_probability(eff, se)
    v = np.where(np.isfinite(se), se ** 2, 1e12)
    w = (p * (v[:, None] / (v[:, None] + v[None, :]))).sum(axis=1)
    judged = np.zeros(cell.shape, dtype=bool)
    idx = np.flatnonzero(mask)
    judged[pool.sys_idx[idx], pool.seg_idx[idx]] = True
    open_cell = (cell >= 0) & ~judged
    take = _allocate(w, open_cell.sum(axis=1), k)
    out = []
    for s in np.flatnonzero(take):
        segs = np.flatnonzero(open_cell[s])
        value = p[s] @ judged[:, segs]
        if seg_prior is not None:
            value = value / max(float(p[s].sum()), 1e-12) + seg_prior[segs]
        order = np.lexsort((rng.random(len(segs)), -value))
        out.extend(cell[s, segs[order[:take[s]]]])
    return np.asarray(out, dtype=int)


def pair_se(pool: Pool, mask: np.ndarray, cell: np.ndarray | None = None) -> np.ndarray:
    """se[a, b]: the standard error of the *full-data* paired difference of systems a and b — the
    standard deviation of their paired differences on the n segments where both are judged times
    √((1 − n/G)/n), G the segments where both have a cell: the finite-population correction
    (Cochran 1977, Sampling Techniques, §2.5) on the population of their G paired differences.
    0 when every common segment is judged (the full-data difference is known); infinite with fewer
    than two paired segments. Computed for every pair at once by matrix products."""
    cell = _cells(pool) if cell is None else cell
    S, G = cell.shape
    J = np.zeros((S, G))
    Y = np.zeros((S, G))
    idx = np.flatnonzero(mask)
    J[pool.sys_idx[idx], pool.seg_idx[idx]] = 1.0
    Y[pool.sys_idx[idx], pool.seg_idx[idx]] = pool.score[idx]
    pop = (cell >= 0).astype(float)
    n = J @ J.T
    g = pop @ pop.T
    JY = J * Y
    JY2 = JY * Y
    d1 = JY @ J.T - J @ JY.T  # Σ (ya − yb) over the paired segments
    d2 = JY2 @ J.T + J @ JY2.T - 2.0 * (JY @ JY.T)  # Σ (ya − yb)²
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.maximum((d2 - d1 ** 2 / n) / (n - 1), 0.0)
        out = np.sqrt(var * np.clip(1.0 - n / g, 0.0, 1.0) / n)
    out[n < 2] = np.inf
    out[(g > 0) & (n >= g)] = 0.0
    np.fill_diagonal(out, 0.0)
    return out


def pair_swap_probability(effects: np.ndarray, se: np.ndarray) -> np.ndarray:
    """P[a, b] = Φ(−|μa − μb| / se[a, b]) with a pair's own error (:func:`pair_se`); 0 on the
    diagonal and where se = 0 (the full-data order is known), 0.5 where a side is unknown."""
    from scipy.stats import norm

    mu = np.asarray(effects, dtype=float)
    unknown = np.isnan(mu)
    mu = np.nan_to_num(mu)
    se = np.asarray(se, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(mu[:, None] - mu[None, :]) / se
    p = norm.cdf(-z)
    p[np.isnan(z)] = 0.5
    p[se == 0] = 0.0
    p[unknown[:, None] | unknown[None, :]] = 0.5
    np.fill_diagonal(p, 0.0)
    return p


def pick_pairs(pool: Pool, mask: np.ndarray, k: int, rng: np.random.Generator,
               cell: np.ndarray | None = None) -> np.ndarray:
    """The next ``k`` cells, pair by pair (methods §27): the pairs of systems in descending swap
    probability (:func:`pair_swap_probability` of the current :func:`fit` with the pair's
    finite-population error :func:`pair_se`); for each, first its segments where one system is
    judged and the other not (one judgement makes the segment a paired one), then those where
    neither is (two judgements), in random order within each kind; until ``k`` cells. A pair
    judged on all its common segments has its full-data difference exactly (P = 0) and gets no
    more; when no pair is uncertain any more, the rest at random."""
    cell = _cells(pool) if cell is None else cell
    eff, _, _ = fit(pool, mask)
    p = pair_swap_probability(eff, pair_se(pool, mask, cell))
    judged = np.zeros(cell.shape, dtype=bool)
    idx = np.flatnonzero(mask)
    judged[pool.sys_idx[idx], pool.seg_idx[idx]] = True
    open_cell = (cell >= 0) & ~judged
    ia, ib = np.triu_indices(len(pool.systems), 1)
    score = p[ia, ib]
    out: list[int] = []
    for q in np.lexsort((rng.random(len(ia)), -score)):
        if len(out) >= k or score[q] <= 0:
            break
        a, b = ia[q], ib[q]
        both = (cell[a] >= 0) & (cell[b] >= 0)
        one = np.flatnonzero(both & (open_cell[a] ^ open_cell[b]))
        two = np.flatnonzero(both & open_cell[a] & open_cell[b])
        for g in np.concatenate([rng.permutation(one), rng.permutation(two)]).astype(int):
            for s_ in (a, b):
                if open_cell[s_, g] and len(out) < k:
                    out.append(int(cell[s_, g]))
                    open_cell[s_, g] = False
            if len(out) >= k:
                break
    if len(out) < k:
        rest = cell[open_cell]
        out.extend(int(c) for c in rng.permutation(rest)[:k - len(out)])
    return np.asarray(out, dtype=int)


def segment_disagreement(scores: pd.DataFrame, pool: Pool) -> np.ndarray:
    """Per segment of ``pool``, how much the metrics of ``scores`` (metric, system, seg_id, score;
    each oriented higher = better) disagree on the order of its systems: the mean over pairs of
    metrics of (1 − Kendall τ_b of their scores over the segment's systems) / 2 (scipy), in [0, 1]:
    0 when they order the systems alike, 1 when reversed; 0 with fewer than two metrics, or where
    τ is undefined (fewer than two systems, constant scores)."""
    import itertools

    from scipy.stats import kendalltau

    t = scores.assign(seg_id=scores["seg_id"].astype(str), system=scores["system"].astype(str))
    wide = t.pivot_table(index=["seg_id", "system"], columns="metric", values="score", aggfunc="mean")
    out = np.zeros(len(pool.segs))
    pos = {g: i for i, g in enumerate(pool.segs)}
    metrics = list(wide.columns)
    for key, block in wide.groupby(level=0, sort=False):
        g = str(key)
        if g not in pos or len(block) < 2 or len(metrics) < 2:
            continue
        vals = []
        for a, b in itertools.combinations(metrics, 2):
            x, y = block[a].to_numpy(dtype=float), block[b].to_numpy(dtype=float)
            ok = ~(np.isnan(x) | np.isnan(y))
            tau = kendalltau(x[ok], y[ok]).statistic if ok.sum() >= 2 else float("nan")
            vals.append(0.0 if tau != tau else (1.0 - tau) / 2.0)
        out[pos[g]] = float(np.mean(vals))
    return out


def disagreement_of(dataset: Dataset, pool: Pool, metrics: Sequence[str], settings: Settings) -> np.ndarray:
    """:func:`segment_disagreement` of ``metrics``' sentence scores on the pool's segments
    (:func:`evalcore.scoring.scores.segment_scores` with the settings' tokenizer, error rates
    oriented by :meth:`~evalcore.scoring.settings.Settings.orient`)."""
    from ..metrics.base import get_metric
    from ..scoring.scores import segment_scores

    sub = dataset.subset(seg_ids=list(pool.segs))
    sc = segment_scores(sub, list(metrics), tokenize=settings.tokenizer)
    sign = {m: settings.orient(get_metric(m, tokenize=settings.tokenizer).meta.higher_is_better) for m in metrics}
    sc = sc.assign(score=sc["score"] * sc["metric"].map(sign).fillna(1.0))
    return segment_disagreement(sc, pool)


# --------------------------------------------------------------------------- simulation
@dataclass(frozen=True)
class SimResult:
    """Per run (:data:`RUN_COLUMNS`) and the summary per policy and budget (:data:`SUMMARY_COLUMNS`),
    with the full-data facts the numbers are compared with (``notes``)."""
    runs: pd.DataFrame
    summary: pd.DataFrame
    notes: tuple[str, ...]


def _seed_cells(pool: Pool, n: int, rng: np.random.Generator) -> np.ndarray:
    """The random start: two cells per system (where it has them), then random cells up to ``n``."""
    first: list[int] = []
    for s in range(len(pool.systems)):
        mine = np.flatnonzero(pool.sys_idx == s)
        first.extend(int(c) for c in rng.choice(mine, size=min(2, len(mine)), replace=False))
    rest = np.setdiff1d(np.arange(len(pool)), first)
    more = max(0, n - len(first))
    return np.concatenate([np.array(first, dtype=np.int64), rng.choice(rest, size=min(more, len(rest)), replace=False)])


def run_policy(pool: Pool, policy: str, budget: float, rng_seed: Sequence[int], *, seed_share: float = SEED_SHARE,
               batch_share: float = BATCH_SHARE, settle_share: float = SETTLE_SHARE,
               seg_prior: np.ndarray | None = None) -> tuple[np.ndarray, bool, float]:
    """One simulated annotation: (the cells judged, settled at the end, the budget share at which the
    rule first fired or NaN). The seed of judgements depends on ``rng_seed`` only (the same for every
    policy); then ``policy`` picks batches of ``batch_share`` of the pool until ``budget`` of it."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    if policy == "disagreement" and seg_prior is None:
        raise ValueError("the disagreement policy needs the metrics' disagreement per segment (seg_prior)")
    N = len(pool)
    n = max(len(pool.systems) * 2, int(round(budget * N)))
    n = min(n, N)
    mask = np.zeros(N, dtype=bool)
    mask[_seed_cells(pool, int(round(seed_share * n)), np.random.default_rng([*rng_seed, 0]))] = True
    rng = np.random.default_rng([*rng_seed, 1 + POLICIES.index(policy)])
    cell = _cells(pool)
    seg_order = rng.permutation(len(pool.segs))
    batch = max(1, int(round(batch_share * N)))
    k_settle = max(1, int(round(settle_share * N)))
    history: list[tuple[int, tuple]] = []
    first_settled = float("nan")
    while True:
        eff, se, _ = fit(pool, mask)
        history.append((int(mask.sum()), clusters(eff, se)))
        fired = settled(history, k_settle)
        if fired and first_settled != first_settled:
            first_settled = mask.sum() / N
        if mask.sum() >= n:
            return mask, fired, first_settled
        k = min(batch, n - int(mask.sum()))
        if policy == "random":
            pick = rng.choice(np.flatnonzero(~mask), size=k, replace=False)
        elif policy == "blocks":
            open_ = cell[:, seg_order]
            open_ = open_[:, (open_ >= 0).any(axis=0)].T.ravel()
            open_ = open_[(open_ >= 0)]
            pick = open_[~mask[open_]][:k]
        elif policy == "pairs":
            pick = pick_pairs(pool, mask, k, rng, cell)
        else:
            pick = pick_uncertain(pool, mask, k, rng, cell, seg_prior if policy == "disagreement" else None)
        mask[pick] = True


def full_estimate(pool: Pool) -> np.ndarray:
    """The full-data ranking's scores: :func:`fit` on every cell (with every system judged on every
    segment, the systems' means up to a constant)."""
    return fit(pool, np.ones(len(pool), dtype=bool), iters=200)[0]


@dataclass(frozen=True)
class Ceiling:
    """What any allocation of a budget to systems can expect, knowing the full data (:func:`ceiling`):
    ``allowed`` — the most discordant pairs a ranking with τ ≥ target may have; ``uniform`` and
    ``best`` — the expected discordant pairs with every system judged on the same share of its
    segments and with the best shares (``shares``, in the pool's system order); ``pairs`` — the
    number of pairs of systems."""
    pairs: int
    allowed: int
    uniform: float
    best: float
    shares: tuple[float, ...]

    def tau(self, discordant: float) -> float:
        """Kendall τ with ``discordant`` of the pairs reversed (no ties): 1 − 2·discordant / pairs."""
        return 1.0 - 2.0 * discordant / self.pairs if self.pairs else float("nan")


def expected_discordant(gaps: np.ndarray, variances: np.ndarray, shares: np.ndarray,
                        population: np.ndarray) -> float:
    """Σ over pairs a < b of Φ(−|Δab| / √(va + vb)) with vs = σs² (1 − fs) / (fs Ns): the expected
    number of pairs a ranking from shares ``shares`` (fs of each system's Ns cells, at random) orders
    against the full data, when each system's estimate of its full-data score errs normally with
    the finite-population variance of Cochran (1977, §2.5). ``gaps`` is the full-data score per
    system (Δab = gaps[a] − gaps[b]), ``variances`` σs² (per cell, segment effects removed)."""
    from scipy.stats import norm

    f = np.clip(np.asarray(shares, dtype=float), 1e-9, 1.0)
    n = f * np.asarray(population, dtype=float)
    v = population_se(np.sqrt(np.asarray(variances, dtype=float) / n), n, np.asarray(population, dtype=float)) ** 2
    a, b = np.triu_indices(len(f), 1)
    se = np.sqrt(v[a] + v[b])
    d = np.abs(np.asarray(gaps, dtype=float)[a] - np.asarray(gaps, dtype=float)[b])
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(se > 0, norm.cdf(-d / np.where(se > 0, se, 1.0)), 0.0)
    return float(p.sum())


def ceiling(pool: Pool, budget: float, target: float = TAU_TARGET, starts: int = 10) -> Ceiling:
    """The design ceiling of a budget (methods §27): the full-data scores (:func:`full_estimate`) and
    each system's residual variance σs² (the additive fit on every cell, Σ r² / (Ns − 1)), then the
    expected discordant pairs (:func:`expected_discordant`) with every system at the budget's share and
    at the shares that minimise it (SLSQP from ``starts`` deterministic starting points, shares in
    [2/Ns, 1], Σ fs Ns = budget · cells). Knowing the full-data gaps is more than a policy knows, so a
    policy that allocates judgements to systems should not expect fewer discordant pairs than ``best``
    (under the normal approximation)."""
    from scipy.optimize import minimize

    full, _, _ = fit(pool, np.ones(len(pool), dtype=bool), iters=200)
    S = len(pool.systems)
    cell = _cells(pool)
    N = (cell >= 0).sum(axis=1).astype(float)
    y = np.full(cell.shape, np.nan)
    y[pool.sys_idx, pool.seg_idx] = pool.score
    with np.errstate(invalid="ignore"):
        r = y - full[:, None]
        r = r - np.nanmean(r, axis=0)[None, :]  # less the fit's segment effects: its residuals
    var = np.nansum(r ** 2, axis=1) / np.maximum(N - 1, 1)
    n_pairs = S * (S - 1) // 2
    allowed = int(math.floor((1.0 - target) / 2.0 * n_pairs + 1e-9))
    total = float(budget) * N.sum()
    lo = np.minimum(1.0, 2.0 / np.maximum(N, 1))
    uniform = expected_discordant(full, var, np.full(S, float(budget)), N)

    def obj(f: np.ndarray) -> float:
        return float(expected_discordant(full, var, f, N))

    def budget_left(f: np.ndarray) -> float:  # the equality constraint: the budget spent exactly
        return float(f @ N - total)

    rng = np.random.default_rng(0)
    best_f, best = np.full(S, float(budget)), uniform
    for t in range(max(1, starts)):
        x0 = np.full(S, float(budget)) if t == 0 else rng.dirichlet(np.ones(S)) * total / N
        x0 = np.clip(x0, lo, 1.0)
        res = minimize(obj, x0, method="SLSQP", bounds=[(float(a), 1.0) for a in lo],
                       constraints=[{"type": "eq", "fun": budget_left}])
        f = np.clip(res.x, lo, 1.0)
        if abs(f @ N - total) <= 1e-6 * total and obj(f) < best:
            best_f, best = f, obj(f)
    return Ceiling(n_pairs, allowed, uniform, best, tuple(map(float, best_f)))


def simulate(pool: Pool, *, runs: int = 20, budgets: Sequence[float] = (0.5,),
             policies: Sequence[str] = ("random", "blocks", "uncertainty"),
             seed: int = 0, target: float = TAU_TARGET, seed_share: float = SEED_SHARE,
             batch_share: float = BATCH_SHARE, settle_share: float = SETTLE_SHARE,
             separated: np.ndarray | None = None, seg_prior: np.ndarray | None = None) -> SimResult:
    """Runs × budgets × policies of :func:`run_policy`; per run the Kendall τ_b of the estimate to
    the full-data ranking (:func:`full_estimate`) and τ on the pairs the full data separates
    (:func:`separated_pairs` unless given). Deterministic for a ``seed``; run r of every policy
    starts from the same random seed of judgements."""
    bad = [p for p in policies if p not in POLICIES]
    if bad:
        raise ValueError(f"unknown policy {', '.join(bad)}; known: {', '.join(POLICIES)}")
    if runs < 1:
        raise ValueError("runs must be at least 1")
    wrong = [b for b in budgets if not 0 < float(b) <= 1]
    if wrong:
        raise ValueError(f"budget shares are in (0, 1]: {', '.join(map(str, wrong))}")
    full = full_estimate(pool)
    sep = separated_pairs(pool) if separated is None else separated
    rows = []
    for b in budgets:
        for r in range(runs):
            for pol in policies:
                mask, fired, at = run_policy(pool, pol, float(b), (seed, r, int(round(float(b) * 1e6))),
                                             seed_share=seed_share, batch_share=batch_share,
                                             settle_share=settle_share, seg_prior=seg_prior)
                est = fit(pool, mask)[0]
                rows.append({"policy": pol, "budget_share": float(b), "run": r, "kendall_tau": kendall_tau(full, est),
                             "tau_separated_pairs": tau_on_pairs(full, est, sep), "settled": bool(fired),
                             "settled_at": at, "n_judgements": int(mask.sum())})
    table = pd.DataFrame(rows, columns=RUN_COLUMNS)
    n_sep = int(np.triu(sep, 1).sum())
    n_pairs = len(pool.systems) * (len(pool.systems) - 1) // 2
    notes = (f"{len(pool.systems)} systems, {len(pool)} judged cells; full-data ranking: additive fit on every cell",
             f"pairs the full data separates (Wilcoxon-Stouffer, p < 0.05): {n_sep} of {n_pairs}",
             f"seed of judgements {seed_share:g} of the budget at random; refresh every {batch_share:g} of the pool; "
             f"settled: clusters unchanged over the last {settle_share:g} of the pool")
    return SimResult(table, summarise(table, target), notes)


def summarise(runs: pd.DataFrame, target: float = TAU_TARGET) -> pd.DataFrame:
    """Per (policy, budget_share): runs, mean τ, share of runs with τ ≥ ``target``, the same for τ
    on separated pairs, share of runs settled, and mean τ of the settled runs."""
    rows = []
    for (pol, b), g in runs.groupby(["policy", "budget_share"], sort=False):
        st = g[g["settled"]]
        rows.append({"policy": pol, "budget_share": b, "runs": len(g), "mean_tau": g["kendall_tau"].mean(),
                     "share_tau_ge_target": float((g["kendall_tau"] >= target - 1e-12).mean()),
                     "mean_tau_separated": g["tau_separated_pairs"].mean(),
                     "share_tau_separated_ge_target": float((g["tau_separated_pairs"] >= target - 1e-12).mean()),
                     "share_settled": float(g["settled"].mean()),
                     "mean_tau_when_settled": st["kendall_tau"].mean() if len(st) else float("nan")})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


# --------------------------------------------------------------------------- the class
def pair_block_weights(judgements: pd.DataFrame, population: Sequence[tuple[str, str]],
                       blocks: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """Per segment block (``blocks``: seg_id → the systems a student would judge there), the summed
    swap probability of the pairs of systems that judging the block would make paired on that
    segment — two of the block's systems, or one of them and a system the class has already judged
    there — leaving out pairs already paired there: the class's version of :func:`pick_pairs`.
    P is :func:`pair_swap_probability` of the :func:`fit` of the class's item scores
    (``judgements``: system, seg_id, rater, score; higher is better) with each pair's
    finite-population error :func:`pair_se` over ``population`` (the (system, seg_id) outputs the
    class can judge). A pair judged on all its common outputs has P = 0; a pair with fewer than two
    paired segments P = 0.5 (so before any judgement, blocks with more systems come first)."""
    from ..stats.system_ranking import item_scores

    pop = pd.DataFrame([(str(a), str(b)) for a, b in population], columns=["system", "seg_id"]).drop_duplicates()
    pop["score"] = np.nan
    if len(judgements):
        j = judgements.assign(system=judgements["system"].astype(str), seg_id=judgements["seg_id"].astype(str))
        it = item_scores(j)[["system", "seg_id", "score"]]
        pop = pop.drop(columns="score").merge(it, on=["system", "seg_id"], how="left")
    systems = tuple(sorted(pop["system"].unique()))
    segs = tuple(dict.fromkeys(pop["seg_id"]))
    si = {x: i for i, x in enumerate(systems)}
    gi = {x: i for i, x in enumerate(segs)}
    pool = Pool(systems, segs, pop["system"].map(si).to_numpy(dtype=int), pop["seg_id"].map(gi).to_numpy(dtype=int),
                pop["score"].fillna(0.0).to_numpy(dtype=float))
    mask = pop["score"].notna().to_numpy()
    cell = _cells(pool)
    eff = fit(pool, mask)[0] if mask.any() else np.full(len(systems), np.nan)
    p = pair_swap_probability(eff, pair_se(pool, mask, cell))
    judged = np.zeros(cell.shape, dtype=bool)
    judged[pool.sys_idx[mask], pool.seg_idx[mask]] = True
    out: dict[str, float] = {}
    for g, names in blocks.items():
        new = sorted({si[str(x)] for x in names if str(x) in si})
        if str(g) not in gi or not new:
            out[str(g)] = 0.0
            continue
        there = set(np.flatnonzero(judged[:, gi[str(g)]]))
        side = set(new) | there
        w = 0.0
        for a in side:
            for b in side:
                if a < b and not (a in there and b in there):
                    w += float(p[a, b])
        out[str(g)] = w
    return out


def order_blocks(items: Sequence[tuple[str, str]], fixed: int, weights: dict[str, float]) -> list[tuple[str, str]]:
    """``items`` (system, seg_id) in the order shown: the first ``fixed`` kept as they are (the
    class's shared items), the segment blocks after them in descending ``weights[seg_id]`` (e.g.
    :func:`pair_block_weights`: the block where judgements would most change the ranking first;
    ties keep their order), each block's items in their own order. The same items, reordered only."""
    head, rest = list(items[:fixed]), list(items[fixed:])
    blocks: dict[str, list] = {}
    for it in rest:
        blocks.setdefault(str(it[1]), []).append(it)
    order = sorted(blocks.items(), key=lambda kv: -weights.get(kv[0], 0.0))
    return head + [it for _, b in order for it in b]


def class_settled(log: pd.DataFrame, k: int) -> dict:
    """The "rankings settled" rule (:func:`settled`) on a class's judgements in the order they were
    saved (``log``: system, seg_id, rater, score, saved_at; rows without a score left out): the
    clusters of :func:`fit` after each judgement, unchanged over the last ``k``. Returns settled,
    n (judgements), k, since (judgements since the clusters last changed) and clusters (lists of
    system names, best first)."""
    from ..stats.system_ranking import item_scores

    t = log[log["score"].notna()].reset_index(drop=True)
    if "saved_at" in t:
        t = t.sort_values("saved_at", kind="stable").reset_index(drop=True)
    history: list[tuple[int, tuple]] = []
    names: tuple[str, ...] = ()
    for n in range(2, len(t) + 1):
        items = item_scores(t.iloc[:n].assign(seg_id=t["seg_id"].iloc[:n].astype(str)))
        pool = pool_from_items(items)
        if len(pool.systems) < 2:
            continue
        eff, se, _ = fit(pool, np.ones(len(pool), dtype=bool))
        part = tuple(tuple(sorted(pool.systems[i] for i in c)) for c in clusters(eff, se))
        history.append((n, part))
        names = pool.systems
    since = 0
    if history:
        last = history[-1][1]
        first_same = next((n for n, p in reversed(history) if p != last), None)
        since = history[-1][0] - (first_same if first_same is not None else history[0][0])
    return {"settled": settled(history, k), "n": len(t), "k": int(k), "since": int(since),
            "clusters": [list(c) for c in (history[-1][1] if history else ())], "systems": list(names)}
