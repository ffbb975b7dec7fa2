"""Adaptive selection of items to judge and its simulation (evalcore.analysis.adaptive; methods §27)."""
from __future__ import annotations

import contextlib
import io
import itertools
import math

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLE, shared
from evalcore.analysis import adaptive as AD
from evalcore.scoring.settings import DEFAULTS


def _grid(means, n_seg=120, noise=3.0, seg_sd=10.0, seed=1, drop=0.0) -> AD.Pool:
    """Every system judged on every segment: score = true mean + segment difficulty + noise."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, seg_sd, n_seg)
    rows = [{"system": f"s{i}", "seg_id": str(g), "score": m + difficulty[g] + rng.normal(0, noise)}
            for i, m in enumerate(means) for g in range(n_seg) if rng.random() >= drop]
    return AD.pool_from_items(pd.DataFrame(rows))


# ------------------------------------------------------------------ the estimate
def test_fit_is_the_two_way_least_squares_fit():
    pool = _grid([0, 1, 2, 5], n_seg=30, drop=0.3, seed=3)
    mask = np.random.default_rng(0).random(len(pool)) < 0.6
    eff, se, ns = AD.fit(pool, mask, iters=2000)
    # independent reference: least squares on system and segment dummies (numpy lstsq)
    s, g, y = pool.sys_idx[mask], pool.seg_idx[mask], pool.score[mask]
    S, G = len(pool.systems), len(pool.segs)
    X = np.zeros((len(y), S + G))
    X[np.arange(len(y)), s] = 1
    X[np.arange(len(y)), S + g] = 1
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    ref = beta[:S] - beta[0]
    assert np.allclose(eff - eff[0], ref, atol=1e-9)
    assert list(ns) == [int((s == i).sum()) for i in range(S)]
    resid = y - X @ beta
    dof = len(y) - S - len(set(g)) + 1
    assert np.allclose(se, math.sqrt(resid @ resid / dof) / np.sqrt(ns), rtol=1e-6)


def test_fit_on_a_complete_grid_orders_as_the_means():
    pool = _grid([3, 1, 2, 0.5], n_seg=25)
    eff = AD.full_estimate(pool)
    means = pool.frame().groupby("system")["score"].mean().reindex(list(pool.systems)).to_numpy()
    assert np.allclose(eff - eff.mean(), means - means.mean(), atol=1e-9)


def test_swap_probability_by_hand():
    p = AD.swap_probability(np.array([0.0, 1.0, np.nan]), np.array([0.5, 0.5, 1.0]))
    z = 1.0 / math.sqrt(0.5)
    assert p[0, 1] == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), abs=1e-12)
    assert p[0, 1] == p[1, 0] and p[0, 0] == 0 and p[2, 0] == 0.5


def test_kendall_and_separated_pairs_by_brute_force():
    full = np.array([4.0, 3.0, 2.0, 1.0, 0.0])
    est = np.array([3.0, 4.0, 2.0, 0.0, 1.0])
    pairs = list(itertools.combinations(range(5), 2))
    conc = sum(np.sign(full[i] - full[j]) * np.sign(est[i] - est[j]) for i, j in pairs)
    assert AD.kendall_tau(full, est) == pytest.approx(conc / len(pairs), abs=1e-12)  # no ties: τ_b = τ_a
    sep = np.zeros((5, 5), dtype=bool)
    sep[0, 2] = sep[0, 1] = sep[3, 4] = True  # 0>2 kept, 0>1 and 3>4 reversed
    assert AD.tau_on_pairs(full, est, sep) == pytest.approx((1 - 1 - 1) / 3)
    assert math.isnan(AD.tau_on_pairs(full, est, np.zeros((5, 5), dtype=bool)))


def test_separated_pairs_are_wilcoxon_p_below_005():
    from scipy.stats import wilcoxon

    pool = _grid([0, 0.2, 3, 6], n_seg=40, seed=5)
    sep = AD.separated_pairs(pool)
    f = pool.frame().pivot(index="seg_id", columns="system", values="score")
    for a, b in itertools.combinations(range(4), 2):
        p = wilcoxon(f[pool.systems[a]], f[pool.systems[b]]).pvalue
        assert sep[a, b] == sep[b, a] == (p < 0.05)


def test_settled_rule_by_hand():
    A, B = ((0,), (1,)), ((0, 1),)
    assert not AD.settled([(10, A), (20, A)], 15)  # not yet 15 judgements of history
    assert AD.settled([(10, B), (20, A), (30, A), (40, A)], 15)  # A since 20: unchanged over the last 20
    assert not AD.settled([(10, A), (20, A), (30, B), (40, B)], 15)  # B appeared at 30: only 10 ago
    assert AD.settled([(10, A), (20, A), (30, B), (45, B)], 15)


def test_clusters_split_only_far_apart_systems():
    eff = np.array([10.0, 9.9, 0.0])
    assert AD.clusters(eff, np.array([0.1, 0.1, 0.1])) == ((0, 1), (2,))
    assert AD.clusters(eff, np.array([10.0, 10.0, 10.0])) == ((0, 1, 2),)


# ------------------------------------------------------------------ the simulation
def test_whole_budget_gives_the_full_ranking_and_is_deterministic():
    pool = _grid([0, 1, 2, 3, 4], n_seg=40)
    a = AD.simulate(pool, runs=2, budgets=(1.0,), seed=7)
    assert np.allclose(a.runs["kendall_tau"], 1.0, atol=1e-12) and (a.runs["n_judgements"] == len(pool)).all()
    b = AD.simulate(pool, runs=2, budgets=(0.3,), seed=7)
    c = AD.simulate(pool, runs=2, budgets=(0.3,), seed=7)
    pd.testing.assert_frame_equal(b.runs, c.runs)
    assert list(b.runs.columns[:6]) == ["policy", "budget_share", "run", "kendall_tau", "tau_separated_pairs",
                                        "settled"]
    assert (b.runs["n_judgements"] == round(0.3 * len(pool))).all()


def test_uncertainty_beats_random_where_one_pair_is_close():
    # known means: six systems far apart and one close pair at the top; uncertainty sampling puts the
    # budget on the close pair, random selection spreads it evenly
    pool = _grid([0, 10, 20, 30, 40, 50, 60, 60.6], n_seg=150, noise=3.0, seed=11)
    res = AD.simulate(pool, runs=12, budgets=(0.25,), policies=("random", "uncertainty"), seed=0)
    s = res.summary.set_index("policy")
    assert s.loc["uncertainty", "mean_tau"] > s.loc["random", "mean_tau"] + 0.02
    exact = res.runs.assign(ok=np.isclose(res.runs["kendall_tau"], 1.0)).groupby("policy")["ok"].mean()
    assert exact["uncertainty"] - exact["random"] >= 0.25  # the full ranking exactly, clearly more often
    # where it put the judgements: most on the two top systems
    mask, _, _ = AD.run_policy(pool, "uncertainty", 0.25, (0, 0, 0))
    top = np.isin(pool.sys_idx[mask], [6, 7]).mean()
    assert top > 0.5


def test_segment_disagreement_by_hand():
    pool = AD.pool_from_items(pd.DataFrame({"system": ["a", "b", "c"] * 3 + ["a"],
                                            "seg_id": ["1"] * 3 + ["2"] * 3 + ["3"] * 3 + ["4"], "score": 1.0}))
    rows = []
    for seg, m1, m2 in (("1", [3, 2, 1], [30, 20, 10]), ("2", [3, 2, 1], [10, 20, 30]), ("3", [3, 2, 1], [20, 30, 10])):
        for sysname, x, y in zip("abc", m1, m2):
            rows += [{"metric": "m1", "system": sysname, "seg_id": seg, "score": x},
                     {"metric": "m2", "system": sysname, "seg_id": seg, "score": y}]
    rows.append({"metric": "m1", "system": "a", "seg_id": "4", "score": 1.0})
    d = AD.segment_disagreement(pd.DataFrame(rows), pool)
    # same order: τ = 1 -> 0; reversed: τ = -1 -> 1; one swapped pair of three: τ = 1/3 -> 1/3; one system: 0
    assert d == pytest.approx([0.0, 1.0, 1 / 3, 0.0], abs=1e-12)


def test_disagreement_policy_goes_where_the_prior_is_high():
    pool = _grid([0, 1, 2, 3], n_seg=60, seed=4)
    prior = np.zeros(len(pool.segs))
    prior[:10] = 1.0
    with pytest.raises(ValueError, match="seg_prior"):
        AD.run_policy(pool, "disagreement", 0.4, (0, 0, 0))
    mask, _, _ = AD.run_policy(pool, "disagreement", 0.4, (0, 0, 0), seg_prior=prior)
    plain, _, _ = AD.run_policy(pool, "uncertainty", 0.4, (0, 0, 0))
    hot = np.isin(pool.seg_idx, np.arange(10))
    assert (mask & hot).sum() > (plain & hot).sum()
    assert (mask & hot).sum() == hot.sum()  # every cell of the high-prior segments is taken


def test_bad_options_are_refused():
    pool = _grid([0, 1], n_seg=5)
    with pytest.raises(ValueError, match="unknown policy"):
        AD.simulate(pool, policies=("greedy",))
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        AD.simulate(pool, budgets=(1.5,))


# ------------------------------------------------------------------ the command
def _cli(*args):
    from evalcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["adaptive", *args])
    return rc, out.getvalue(), err.getvalue()


def test_command_writes_runs_and_summary(tmp_path):
    out, summ = tmp_path / "runs.tsv", tmp_path / "summary.tsv"
    rc, shown, err = _cli(str(SAMPLE), "--runs", "3", "--budget", "0.5,1", "--out", str(out),
                          "--summary-out", str(summ))
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t")
    assert list(t.columns[:7]) == ["lp", "policy", "budget_share", "run", "kendall_tau", "tau_separated_pairs",
                                   "settled"]
    assert len(t) == 3 * 2 * 4  # random, blocks, uncertainty, pairs by default
    assert np.allclose(t.loc[t["budget_share"] == 1.0, "kendall_tau"], 1.0, atol=1e-9)
    s = pd.read_csv(summ, sep="\t")
    assert set(s["policy"]) == {"random", "blocks", "uncertainty", "pairs"} and (s["runs"] == 3).all()
    assert "allows" in shown and "the design ceiling" in shown
    rc, _, err = _cli(str(SAMPLE), "--runs", "2", "--disagreement-metrics", "bleu,chrf", "--out", str(out))
    assert rc == 0, err
    assert set(pd.read_csv(out, sep="\t")["policy"]) == set(AD.POLICIES)
    rc, _, err = _cli(str(SAMPLE), "--policies", "disagreement")
    assert rc == 2 and "--disagreement-metrics" in err
    rc, _, err = _cli(str(SAMPLE), "--policies", "greedy")
    assert rc == 2 and "unknown policy greedy" in err and "Traceback" not in err


# ------------------------------------------------------------------ real data
def test_wmt24_esa_en_cs_adaptive_versus_random():
    from evalcore.io import load_dataset

    ds = load_dataset(shared("wmt24_esa"), lp="en-cs")
    pool = AD.pool_of(ds, DEFAULTS)
    assert "refA" not in pool.systems and len(pool.systems) == 15
    res = AD.simulate(pool, runs=8, budgets=(0.5,), policies=("random", "uncertainty", "pairs"), seed=0)
    s = res.summary.set_index("policy")
    assert s.loc["uncertainty", "mean_tau"] >= s.loc["random", "mean_tau"]
    assert s.loc["pairs", "mean_tau"] >= s.loc["random", "mean_tau"]
    # what a teacher can claim: the pairs the full data separates come out in the right order
    assert (s["mean_tau_separated"] >= 0.9).all()


# ------------------------------------------------------------------ the finite population (Cochran 1977 §2.5)
def test_population_se_is_the_variance_over_every_sample_by_brute_force():
    # a finite population of N values; every sample of n without replacement: the variance of the
    # sample mean is S²/n · (1 − n/N), S² with N − 1 in the denominator
    y = np.array([3.0, 7.5, 1.0, 9.0, 4.0, 4.5, 12.0, 0.5])
    N = len(y)
    for n in range(1, N + 1):
        means = [y[list(c)].mean() for c in itertools.combinations(range(N), n)]
        brute = float(np.mean((np.array(means) - y.mean()) ** 2))
        se = AD.population_se(np.array([y.std(ddof=1) / math.sqrt(n)]), np.array([n]), np.array([N]))[0]
        assert se ** 2 == pytest.approx(brute, abs=1e-12)
    assert AD.population_se(np.array([2.0]), np.array([N]), np.array([N]))[0] == 0.0
    assert AD.population_se(np.array([np.inf]), np.array([0]), np.array([N]))[0] == np.inf


def test_pair_se_by_hand_and_zero_for_a_fully_paired_pair():
    pool = _grid([0, 1, 2], n_seg=12, seed=2)
    cell = AD._cells(pool)
    mask = np.zeros(len(pool), dtype=bool)
    mask[cell[0]] = mask[cell[1]] = True  # systems 0 and 1 on every segment
    mask[cell[2, :5]] = True  # system 2 on five
    se = AD.pair_se(pool, mask)
    assert se[0, 1] == se[1, 0] == 0.0  # their full-data difference is known
    d = pool.score[cell[0, :5]] - pool.score[cell[2, :5]]
    assert se[0, 2] == pytest.approx(d.std(ddof=1) * math.sqrt((1 - 5 / 12) / 5), abs=1e-9)
    mask[cell[2, 5:]] = True
    assert (AD.pair_se(pool, mask)[np.triu_indices(3, 1)] == 0).all()
    p = AD.swap_probability(np.array([1.0, 1.0 + 1e-6]), np.array([0.0, 0.0]))
    assert p[0, 1] == 0.0  # a known order, however close, is no longer uncertain


def test_pairs_policy_completes_the_close_pair_and_beats_random():
    # known means, one close pair at the top: the pairs policy judges both systems on every segment,
    # so their full-data order is known in every run; random selection often reverses it
    pool = _grid([0, 10, 20, 30, 40, 50, 60, 60.6], n_seg=150, noise=3.0, seed=11)
    full = AD.full_estimate(pool)
    res = AD.simulate(pool, runs=12, budgets=(0.25,), policies=("random", "pairs"), seed=0)
    exact = res.runs.assign(ok=np.isclose(res.runs["kendall_tau"], 1.0)).groupby("policy")["ok"].mean()
    assert exact["pairs"] == 1.0 and exact["pairs"] - exact["random"] >= 0.25
    seed = np.zeros(len(pool), dtype=bool)
    seed[AD._seed_cells(pool, int(round(0.1 * 300)), np.random.default_rng([0, 0, 250000, 0]))] = True
    mask, _, _ = AD.run_policy(pool, "pairs", 0.25, (0, 0, 250000))
    chosen = mask & ~seed
    assert chosen.sum() == 270 and np.isin(pool.sys_idx[chosen], [6, 7]).mean() > 0.5  # 2 of 8 systems
    # a larger budget completes the pair: its estimated difference is then the full-data one
    mask, _, _ = AD.run_policy(pool, "pairs", 0.4, (0, 0, 400000))
    cell = AD._cells(pool)
    assert mask[cell[6]].all() and mask[cell[7]].all()
    est = AD.fit(pool, mask, iters=2000)[0]
    assert est[7] - est[6] == pytest.approx(full[7] - full[6], abs=1e-9)


def test_expected_discordant_by_hand():
    gaps, var, N = np.array([3.0, 2.0, 0.0]), np.array([4.0, 9.0, 1.0]), np.array([10, 20, 10])
    f = np.array([0.5, 0.25, 1.0])
    v = [4 * 0.5 / 5, 9 * 0.75 / 5, 0.0]  # σ²(1 − f)/(f N)

    def phi_minus(x):
        return 0.5 * math.erfc(x / math.sqrt(2))

    hand = (phi_minus(1 / math.sqrt(v[0] + v[1])) + phi_minus(3 / math.sqrt(v[0])) + phi_minus(2 / math.sqrt(v[1])))
    assert AD.expected_discordant(gaps, var, f, N) == pytest.approx(hand, abs=1e-12)
    assert AD.expected_discordant(gaps, var, np.ones(3), N) == 0.0  # every cell judged: no pair reversed


def test_ceiling_shares_are_the_best_on_a_brute_force_grid():
    pool = _grid([0.0, 0.3, 4.0], n_seg=40, noise=3.0, seed=6)
    c = AD.ceiling(pool, 0.5)
    assert c.pairs == 3 and c.allowed == 0  # τ ≥ 0.9 with three systems: no pair reversed
    N = np.full(3, 40.0)
    full = AD.full_estimate(pool)
    r = np.full((3, 40), np.nan)
    r[pool.sys_idx, pool.seg_idx] = pool.score - full[pool.sys_idx]
    r -= np.nanmean(r, axis=0)
    var = np.nansum(r ** 2, axis=1) / 39
    assert c.uniform == pytest.approx(AD.expected_discordant(full, var, np.full(3, 0.5), N), abs=1e-12)
    from scipy.stats import norm

    f1, f2 = np.meshgrid(np.arange(0.05, 1.0 + 1e-9, 0.0025), np.arange(0.05, 1.0 + 1e-9, 0.0025))
    f3 = 1.5 - f1 - f2
    ok = (f3 >= 0.05 - 1e-9) & (f3 <= 1.0 + 1e-9)
    v = [var[i] * (1 - f) / (f * 40) for i, f in enumerate((f1[ok], f2[ok], np.clip(f3[ok], 0.05, 1.0)))]
    ed = sum(norm.cdf(-abs(full[a] - full[b]) / np.sqrt(v[a] + v[b])) for a, b in ((0, 1), (0, 2), (1, 2)))
    best = float(np.min(ed))  # brute force over a grid of shares with the budget's sum
    assert c.best <= best + 1e-4 and c.best >= best - 1e-3  # the optimiser finds the grid's minimum
    assert sum(f * 40 for f in c.shares) == pytest.approx(0.5 * 120, rel=1e-6)
    assert c.best <= c.uniform
    assert c.shares[0] + c.shares[1] > 2 * c.shares[2]  # the close pair gets the judgements
    assert c.tau(1) == pytest.approx(1 - 2 / 3)
    full_budget = AD.ceiling(pool, 1.0)
    assert full_budget.uniform == full_budget.best == 0.0
