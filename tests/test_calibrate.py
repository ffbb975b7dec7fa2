"""`evalcore calibrate` (methods §25.1): P(humans agree | metric Δ) against independent references:
sklearn's logistic regression and isotonic regression, brute-force resampling of systems, the
pairwise accuracy of `correlate`, and data simulated with a known logistic link."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLE, shared
from evalcore.analysis import calibrate as C
from evalcore.core.problems import DataError


def _simulated(slope: float, n_lps: int, n_systems: int, seed: int) -> pd.DataFrame:
    """Pairs whose agreement is drawn from P(agree | |Δ|) = σ(slope·|Δ|)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_lps):
        m = rng.uniform(0, 12, n_systems)
        for i, j in itertools.combinations(range(n_systems), 2):
            d = m[i] - m[j]
            agree = float(rng.random() < 1 / (1 + np.exp(-slope * abs(d))))
            rows.append((f"l{k}", "m", f"s{i}", f"s{j}", d, np.sign(d) * (1 if agree else -1), agree, True))
    return pd.DataFrame(rows, columns=C.PAIR_COLUMNS)


def test_known_logistic_link_is_recovered_within_ten_percent():
    pairs = _simulated(0.4, 40, 12, seed=3)
    res = C.calibrate(pairs, n_boot=50, seed=1)
    pooled = res.fits[("all", "m")]
    assert pooled.n_pairs == 40 * 66
    assert abs(pooled.slope - 0.4) / 0.4 < 0.10
    lo, hi = np.percentile(pooled.slopes, [2.5, 97.5])
    assert lo < pooled.slope < hi


def test_half_at_zero_and_never_falling():
    pairs = _simulated(0.3, 3, 9, seed=5)
    res = C.calibrate(pairs, n_boot=40, seed=2)
    at0 = res.curves[res.curves["delta"] == 0]
    assert len(at0) == 2 * 4  # logistic and isotonic of three pairs and the pooled curve
    assert np.allclose(at0["agreement"], 0.5, atol=0.02)
    for _, g in res.curves.groupby(["lp", "metric", "fit"]):
        g = g.sort_values("delta")
        for col in ("agreement", "lo", "hi"):
            v = g[col].to_numpy()
            assert np.all(np.diff(v[~np.isnan(v)]) >= -1e-12), col
        assert (g["lo"] <= g["agreement"] + 1e-12).all() and (g["agreement"] <= g["hi"] + 1e-12).all()


def test_logistic_slope_matches_sklearn_maximum_likelihood():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    x = rng.uniform(0.01, 5, 80)
    y = (rng.random(80) < 1 / (1 + np.exp(-0.7 * x))).astype(float)
    w = rng.integers(1, 4, 80).astype(float)
    ref = LogisticRegression(fit_intercept=False, C=np.inf, solver="newton-cg", tol=1e-14, max_iter=1000)
    ref.fit(x[:, None], y, sample_weight=w)
    assert C.fit_logistic(x, y, w) == pytest.approx(float(ref.coef_[0, 0]), rel=1e-9)
    # the same slope from the many-weights form, row by row
    W = np.vstack([w, np.ones(80)])
    ref1 = LogisticRegression(fit_intercept=False, C=np.inf, solver="newton-cg", tol=1e-14, max_iter=1000)
    ref1.fit(x[:, None], y)
    got = C.fit_logistic_many(x, y, W)
    assert got[0] == pytest.approx(float(ref.coef_[0, 0]), rel=1e-9)
    assert got[1] == pytest.approx(float(ref1.coef_[0, 0]), rel=1e-9)


def test_logistic_edge_cases_by_hand():
    x = np.array([1.0, 2.0, 3.0])
    assert C.fit_logistic(x, np.ones(3)) == np.inf  # every pair agrees: unbounded likelihood
    assert C.fit_logistic(x, np.zeros(3)) == 0.0  # disagrees more often than not: the flat curve
    assert np.isnan(C.fit_logistic(x, np.ones(3), np.zeros(3)))


def test_isotonic_matches_sklearn_on_reflected_points():
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(4)
    x = np.round(rng.uniform(0.1, 4, 60), 1)  # ties in |Δ|
    y = (rng.random(60) < 0.5 + 0.1 * x).astype(float)
    w = rng.integers(0, 3, 60).astype(float)
    d = np.linspace(0, 5, 23)
    ref = IsotonicRegression(increasing=True, out_of_bounds="clip")
    keep = w > 0
    ref.fit(np.concatenate([-x[keep], x[keep]]), np.concatenate([1 - y[keep], y[keep]]),
            sample_weight=np.concatenate([w[keep], w[keep]]))
    got = C.isotonic_curves(x, y, w[None, :], d)[0]
    expect = ref.predict(d)
    expect[0] = 0.5
    assert np.allclose(got, expect, atol=1e-12, rtol=0)
    assert ref.predict([0.0])[0] == pytest.approx(0.5, abs=1e-12)  # the symmetric fit passes through 0.5 itself


def test_bootstrap_weights_count_pairs_of_distinct_draws():
    pairs = _simulated(0.3, 2, 6, seed=9)
    W = C._boot_weights(pairs, np.random.default_rng(11), 3)
    rng = np.random.default_rng(11)
    for lp in ["l0", "l1"]:
        sub = pairs[pairs["lp"] == lp]
        systems = sorted(set(sub["system_a"]) | set(sub["system_b"]))
        draws = rng.integers(0, len(systems), size=(3, len(systems)))
        for b in range(3):
            brute = {}
            for i, j in itertools.combinations(range(len(systems)), 2):  # pairs of draws, not of systems
                s, t = systems[draws[b, i]], systems[draws[b, j]]
                if s != t:
                    key = tuple(sorted((s, t)))
                    brute[key] = brute.get(key, 0) + 1
            for k, r in enumerate(sub.itertuples(index=False)):
                assert W[b, sub.index[k]] == brute.get(tuple(sorted((r.system_a, r.system_b))), 0)


def test_delta_for_levels_and_the_sentence():
    pairs = _simulated(0.5, 2, 10, seed=1)
    res = C.calibrate(pairs, n_boot=30, seed=0)
    fit = res.fits[("l0", "m")]
    row = res.summary[(res.summary["lp"] == "l0")].iloc[0]
    assert row["delta_80"] == pytest.approx(np.log(4) / fit.slope, rel=1e-12)
    assert row["delta_95"] == pytest.approx(np.log(19) / fit.slope, rel=1e-12)
    assert row["n_pairs"] == 45
    p = 1 / (1 + np.exp(-fit.slope * 1.3))
    text = C.agreement_sentence(fit, 1.3, "chrF")
    lo, hi = np.percentile(1 / (1 + np.exp(-fit.slopes * 1.3)), [2.5, 97.5])
    assert text.startswith(f"a chrF difference of 1.3 here means humans agree {100 * p:.0f} % "
                           f"[{100 * lo:.0f}, {100 * hi:.0f}] of the time")
    assert "45 system pairs on l0" in text
    assert "extrapolation" in C.agreement_sentence(fit, 100.0)
    pooled = res.fits[("all", "m")]
    assert res.deltas(0.8) == {"m": pytest.approx(np.log(4) / pooled.slope, rel=1e-12)}
    assert res.deltas(0.9, lp="l0") == {"m": pytest.approx(np.log(9) / fit.slope, rel=1e-12)}


def test_too_few_systems_is_a_clear_error_never_a_curve():
    pairs = _simulated(0.5, 1, 4, seed=0)  # 6 pairs
    with pytest.raises(DataError) as exc:
        C.calibrate(pairs, n_boot=10)
    msg = str(exc.value)
    assert "6 pair(s)" in msg and f"at least {C.MIN_PAIRS}" in msg and f"at least {C.MIN_SYSTEMS} systems" in msg
    # one pair short, one fine: the short one is a note, the other fitted
    both = pd.concat([pairs, _simulated(0.5, 1, 8, seed=1).assign(lp="big")], ignore_index=True)
    res = C.calibrate(both, n_boot=10)
    assert ("big", "m") in res.fits and ("l0", "m") not in res.fits
    assert any("language pair l0" in n and "no curve" in n for n in res.notes)


def test_leave_one_pair_out_by_hand():
    pairs = _simulated(0.4, 3, 8, seed=7)
    res = C.calibrate(pairs, n_boot=0)
    row = res.lopo[res.lopo["held_out"] == "l1"].iloc[0]
    rest = pairs[pairs["lp"] != "l1"]
    b = C.fit_logistic(np.abs(rest["delta"]), rest["agree"])
    held = pairs[pairs["lp"] == "l1"]
    pred = 1 / (1 + np.exp(-b * np.abs(held["delta"].to_numpy())))
    y = held["agree"].to_numpy()
    order = np.argsort(pred, kind="stable")
    ece = sum(len(k) / len(y) * abs(pred[k].mean() - y[k].mean()) for k in np.array_split(order, 5))
    assert row["ece"] == pytest.approx(ece, abs=1e-12)
    assert row["n_pairs"] == 28
    assert row["log_loss"] == pytest.approx(-np.mean(y * np.log(pred) + (1 - y) * np.log(1 - pred)), rel=1e-12)


def test_sample_pairs_agree_as_correlate_pairwise_accuracy():
    """The system scores are correlate's: the share of agreeing pairs is its pairwise accuracy."""
    from evalcore.analysis.system_level import metrics_vs_humans
    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    pairs, systems, _ = C.system_pairs(ds, ["chrf", "ter"], "adequacy")
    mvh = metrics_vs_humans(ds, ["chrf", "ter"], "adequacy", n_boot=0)
    assert systems == mvh["systems"]
    acc = mvh["table"][mvh["table"]["method"] == "acc23"].set_index("metric")["value"]
    for m in ["chrf", "ter"]:
        p = pairs[pairs["metric"] == m]
        assert p["agree"].notna().all()
        assert p["agree"].mean() == pytest.approx(float(acc[m]), abs=1e-12)
    # TER is an error rate: oriented so that higher is better, as correlate does
    ter = pairs[pairs["metric"] == "ter"]
    assert (ter["delta"] != 0).all()


def test_command_writes_the_three_tables(tmp_path, capsys):
    from evalcore.cli import main

    out, summ = tmp_path / "c.tsv", tmp_path / "s.tsv"
    rc = main(["calibrate", str(SAMPLE), "--human", "adequacy", "--metrics", "chrf", "--bootstrap", "20",
               "--out", str(out), "--summary", str(summ), "--at", "2"])
    assert rc == 0
    curves = pd.read_csv(out, sep="\t")
    assert list(curves.columns) == C.CURVE_COLUMNS
    assert set(curves["fit"]) == {"logistic", "isotonic"}
    s = pd.read_csv(summ, sep="\t")
    assert list(s.columns) == C.SUMMARY_COLUMNS and s["n_pairs"].iloc[0] == 21
    err = capsys.readouterr().err
    assert "a chrf difference of 2 here means humans agree" in err
    from evalcore.io import load_dataset
    from evalcore.scoring.settings import DEFAULTS

    # the one settings line (STATES_SETTINGS: written by the command, resolved on the data)
    assert f"settings: {DEFAULTS.describe(load_dataset(SAMPLE), 'adequacy')}\n" in err


def test_command_too_few_systems_exits_2(tmp_path, capsys):
    from evalcore.cli import main

    folder = tmp_path / "few"
    folder.mkdir()
    keep = ["near-human", "literal", "synonyms"]
    for name in ["segments.tsv", "references.tsv", "outputs.tsv", "judgements.tsv"]:
        t = pd.read_csv(SAMPLE / name, sep="\t", dtype=str, keep_default_na=False)
        if "system" in t.columns:
            t = t[t["system"].isin(keep)]
        t.to_csv(folder / name, sep="\t", index=False)
    rc = main(["calibrate", str(folder), "--human", "adequacy", "--metrics", "chrf", "--bootstrap", "5"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "3 pair(s) of systems with a direction from 3 system(s)" in err and "at least 10" in err


def test_wmt24_esa_leave_one_pair_out_is_reported():
    from evalcore.io import load_collection

    coll = load_collection(shared("wmt24_esa"))
    res = C.calibrate_datasets([coll[lp] for lp in coll], ["chrf"], "esa", n_boot=20)
    assert set(res.lopo["held_out"]) == {"en-cs", "en-ja", "en-zh"}
    assert res.lopo["ece"].between(0, 1).all() and res.lopo["log_loss"].gt(0).all()
    assert ("all", "chrf") in res.fits and res.fits[("all", "chrf")].n_pairs == 105 + 66 + 66
    assert (res.summary["delta_80"] < res.summary["delta_90"]).all()


def test_significant_only_uses_ranks_pairwise_test(tmp_path):
    from evalcore.cli import main
    from evalcore.io import load_dataset

    mat = tmp_path / "m.tsv"
    assert main(["rank", str(SAMPLE), "--human", "adequacy", "--matrix-out", str(mat)]) == 0
    m = pd.read_csv(mat, sep="\t").set_index("system").drop(columns=["lp", "signal"])
    pairs, _, _ = C.system_pairs(load_dataset(SAMPLE), ["chrf"], "adequacy", significant_only=True)
    assert len(pairs) == 21
    for r in pairs.itertuples(index=False):
        assert r.significant == bool(m.loc[r.system_a, r.system_b] < 0.05)


def test_domains_are_read_per_segment():
    from evalcore.io import load_dataset

    ds = load_dataset(shared("wmt24_esa"), lp="en-cs")
    dom = C.domains_of(ds)
    assert len(dom) == ds.n_segments and set(dom.values()) == {"literary", "news", "social", "speech"}
