"""The judges' Schulze ballots built as arrays against a literal reference written
here: one mapping ballot per (criterion, rater, segment, screen) group, a pairwise-count loop
and a Floyd–Warshall triple loop (methods §5.4; Schulze 2011)."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as hs

from evalcore.human.agreement import screen_ids
from evalcore.human.ranking import schulze, schulze_from_judgements
from conftest import shared


def _literal(judgements: pd.DataFrame, higher_is_better: bool = True, screen_col=None):
    """Candidates, d, seen, the strongest paths, number of ballots and of comparing ballots:
    every count by a plain Python loop over the groups and pairs."""
    j = judgements.copy()
    j["screen"] = screen_ids(judgements, screen_col).to_numpy()
    sign = -1.0 if higher_is_better else 1.0
    ballots = []
    for _, g in j.groupby(["judgement", "rater", "seg_id", "screen"], sort=False):
        b = {}
        for s, v in zip(g["system"], g["score"]):
            b[s] = sign * float(v)
        ballots.append(b)
    cands = list(dict.fromkeys(c for b in ballots for c in b))
    d = {(a, c): 0 for a in cands for c in cands}
    seen = dict(d)
    n_cmp = 0
    for b in ballots:
        if len(b) < 2:
            continue
        n_cmp += 1
        for a, c in itertools.permutations(b, 2):
            seen[a, c] += 1
            d[a, c] += int(b[a] < b[c])
    p = {(a, c): (d[a, c] if d[a, c] > d[c, a] else 0) for a in cands for c in cands if a != c}
    for k in cands:
        for a in cands:
            for c in cands:
                if len({a, c, k}) == 3:
                    p[a, c] = max(p[a, c], min(p[a, k], p[k, c]))
    return cands, d, seen, p, len(ballots), n_cmp


def _check(judgements, higher_is_better=True, screen_col=None):
    r = schulze_from_judgements(judgements, higher_is_better, screen_col)
    cands, d, seen, p, n_ballots, n_cmp = _literal(judgements, higher_is_better, screen_col)
    assert r.candidates == cands
    for a in cands:
        for c in cands:
            assert r.d.loc[a, c] == d[a, c]
            if a != c:
                assert r.p.loc[a, c] == p[a, c]
    pairs = [seen[a, c] for a, c in itertools.combinations(cands, 2)]
    sup = r.support
    assert (sup.n_ballots, sup.n_ballots_compare, sup.n_comparisons) == (n_ballots, n_cmp, sum(pairs))
    if pairs:
        assert (sup.median_per_pair, sup.min_per_pair) == (float(np.median(pairs)), min(pairs))
        assert sup.n_pairs_never == sum(x == 0 for x in pairs)
    # the ranking equals the one of the generic Schulze on the literal mapping ballots
    assert r.ranking == schulze(_mapping_ballots(judgements, higher_is_better, screen_col)).ranking
    return r


def _mapping_ballots(judgements, higher_is_better, screen_col):
    j = judgements.copy()
    j["screen"] = screen_ids(judgements, screen_col).to_numpy()
    sign = -1.0 if higher_is_better else 1.0
    out = []
    for _, g in j.groupby(["judgement", "rater", "seg_id", "screen"], sort=False):
        b = {}
        for s, v in zip(g["system"], g["score"]):
            b[s] = sign * float(v)
        out.append(b)
    return out


rows = hs.lists(hs.tuples(hs.sampled_from("ABCDE"), hs.sampled_from("123"), hs.sampled_from(["r1", "r2"]),
                          hs.sampled_from(["esa", "mqm"]), hs.sampled_from([0.0, 1.0, 2.0, 2.0, 5.0, np.nan]),
                          hs.sampled_from(["s1", "s2"])), min_size=1, max_size=40)


@settings(max_examples=40)
@given(rows, hs.booleans(), hs.booleans())
def test_arrays_equal_the_literal_ballots(data, higher, with_screen):
    j = pd.DataFrame(data, columns=["system", "seg_id", "rater", "judgement", "score", "page"])
    _check(j, higher, "page" if with_screen else None)  # screens given: a system may repeat on one ballot


def test_wmt24_esa_slice_equals_the_literal_ballots():
    from evalcore.io import load_dataset
    from evalcore.human.scores import criterion_judgements

    ds = load_dataset(shared("wmt24_esa"), lp="en-cs")
    j = criterion_judgements(ds, "esa")
    j = j[j["seg_id"].isin(set(j["seg_id"].unique()[:60]))]
    r = _check(j)
    assert r.support.n_ballots_compare > 0
