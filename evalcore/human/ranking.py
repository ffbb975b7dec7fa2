"""Rankings of systems from human judgements (methods §5.4; Callison-Burch 2009 §4, Schulze 2011).

:func:`relative_ranking_scores` ("how often judged better than or equal to the others",
Callison-Burch 2009 §4 after Callison-Burch et al. 2008), :func:`schulze` (the Schulze method on
partial ballots, with :class:`BallotSupport` saying what the ranking rests on) and
:func:`schulze_from_judgements` (one ballot per (criterion, rater, segment, screen)). Pure
functions, no UI.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .agreement import screen_ids

LABELS = (">", "<", "=")


def relative_ranking_scores(labels: pd.DataFrame) -> pd.DataFrame:
    """System score = share of its pairwise comparisons in which it was judged better than or equal
    to the other system (Callison-Burch 2009 §4, after Callison-Burch et al. 2008).

    Returns system, score, wins, ties, losses, n (comparisons), sorted by score descending.
    """
    a = labels[["sys_a", "label"]].rename(columns={"sys_a": "system"})
    b = labels[["sys_b", "label"]].rename(columns={"sys_b": "system"})
    b = b.assign(label=b["label"].map({">": "<", "<": ">", "=": "="}))
    both = pd.concat([a, b], ignore_index=True)
    t = both.groupby("system")["label"].value_counts().unstack(fill_value=0)
    for lab in LABELS:
        if lab not in t.columns:
            t[lab] = 0
    out = pd.DataFrame({"system": t.index, "wins": t[">"].to_numpy(), "ties": t["="].to_numpy(),
                        "losses": t["<"].to_numpy()})
    out["n"] = out["wins"] + out["ties"] + out["losses"]
    out["score"] = (out["wins"] + out["ties"]) / out["n"]
    out = out[["system", "score", "wins", "ties", "losses", "n"]]
    return out.sort_values(["score", "system"], ascending=[False, True], kind="stable").reset_index(drop=True)


#: A Schulze ranking "rests on few comparisons" when the median pair of candidates was compared
#: (both on one ballot, ties included) on fewer than this many ballots: each pairwise
#: preference is then decided by a handful of votes, and the ranking can contradict the mean
#: scores (sparse ESA/DA campaigns, where most (rater, segment) ballots hold one system).
FEW_COMPARISONS = 10


@dataclass(frozen=True)
class BallotSupport:
    """What a Schulze ranking rests on (Schulze 2011; methods §5.4): ``n_ballots`` ballots, of which
    ``n_ballots_compare`` rank ≥ 2 candidates (only those count); ``n_comparisons`` = Σ over
    ballots of the candidate pairs they compare; per pair of candidates (``n_pairs`` pairs) the
    number of ballots comparing it: ``median_per_pair``, ``min_per_pair`` and ``n_pairs_never``
    never compared. ``few``: ``median_per_pair`` < :data:`FEW_COMPARISONS`."""

    n_ballots: int
    n_ballots_compare: int
    n_comparisons: int
    n_pairs: int
    n_pairs_never: int
    median_per_pair: float
    min_per_pair: int

    @property
    def few(self) -> bool:
        return self.n_pairs > 0 and self.median_per_pair < FEW_COMPARISONS

    def summary(self) -> str:
        return (f"{self.n_ballots_compare} of {self.n_ballots} ballots compare at least two systems "
                f"({self.n_comparisons} pairwise comparisons); a pair of systems was compared on "
                f"{self.median_per_pair:g} ballots (median; minimum {self.min_per_pair}), "
                f"{self.n_pairs_never} of {self.n_pairs} pairs never")

    def warning(self) -> str:
        """The warning text when the ranking rests on few comparisons, else ""."""
        if not self.few:
            return ""
        never = (f"; {self.n_pairs_never} of {self.n_pairs} pairs were never compared on one ballot, so their order "
                 "comes only from paths through other systems" if self.n_pairs_never else "")
        return (f"The consensus ranking rests on few comparisons: the median pair of systems was compared on "
                f"{self.median_per_pair:g} ballots (fewer than {FEW_COMPARISONS}), so each preference is decided "
                f"by a handful of votes{never}. The ranking can contradict the mean scores; prefer the mean scores.")


@dataclass
class SchulzeResult:
    """``d[i][j]`` ballots ranking i above j; ``p[i][j]`` strongest path strength;
    ``beats[i]`` = #j with p[i][j] > p[j][i]; ``ranking`` = list of tie groups, best first;
    ``support``: what the ranking rests on (:class:`BallotSupport`)."""

    candidates: list
    d: pd.DataFrame
    p: pd.DataFrame
    beats: pd.Series
    ranking: list
    support: BallotSupport | None = None

    @property
    def order(self) -> list:
        return [c for group in self.ranking for c in group]


def _ballot_ranks(ballot) -> dict:
    """A ballot is a mapping candidate -> rank (lower = better, ties allowed) or a best-first
    sequence whose elements are candidates or collections of tied candidates."""
    if isinstance(ballot, Mapping):
        return dict(ballot)
    ranks = {}
    for pos, item in enumerate(ballot):
        if isinstance(item, (list, tuple, set, frozenset)):
            for c in item:
                ranks[c] = pos
        else:
            ranks[item] = pos
    return ranks


def schulze(ballots: Iterable, candidates: Sequence | None = None, variant: str = "winning") -> SchulzeResult:
    """Schulze method (methods §5.4; Schulze 2011), as used by Callison-Burch 2009 to combine rankings.

    d[i][j] = number of ballots ranking i strictly above j (partial ballots: only candidates on
    the ballot are compared). Links: ``winning`` votes p[i][j] = d[i][j] if d[i][j] > d[j][i]
    else 0; ``margins`` p[i][j] = d[i][j] − d[j][i] when positive. Strongest paths
    (Floyd–Warshall): p[i][j] = max(p[i][j], min(p[i][k], p[k][j])). i ≻ j iff p[i][j] > p[j][i].
    Candidates are ordered by the number they beat (descending); equal counts with
    p[i][j] = p[j][i] between them form a tie group.
    """
    ranked = [_ballot_ranks(b) for b in ballots]
    if candidates is None:
        candidates = list(dict.fromkeys(c for r in ranked for c in r))
    cands = list(candidates)
    idx = {c: i for i, c in enumerate(cands)}
    n = len(cands)
    d = np.zeros((n, n))
    seen = np.zeros((n, n))  # ballots comparing i and j (ties included)
    n_compare = 0
    for r in ranked:
        items = [(idx[c], v) for c, v in r.items() if c in idx]
        if len(items) < 2:
            continue
        n_compare += 1
        ii = np.array([i for i, _ in items])
        vv = np.array([v for _, v in items], dtype=float)
        better = vv[:, None] < vv[None, :]
        d[np.ix_(ii, ii)] += better
        seen[np.ix_(ii, ii)] += 1
    return _schulze_from_counts(cands, d, seen, len(ranked), n_compare, variant)


def _strongest_paths(d: np.ndarray, variant: str) -> np.ndarray:
    """Link strengths from the pairwise counts ``d`` and the strongest paths (Floyd–Warshall,
    methods §5.4): p[i][j] = max(p[i][j], min(p[i][k], p[k][j])) over every k, i ≠ j. Row and
    column k do not change in step k (p[k][k] = 0), so each step is one array operation."""
    if variant == "winning":
        p = np.where(d > d.T, d, 0.0)
    elif variant == "margins":
        p = np.where(d > d.T, d - d.T, 0.0)
    else:
        raise ValueError("variant must be winning or margins")
    np.fill_diagonal(p, 0)
    for k in range(len(p)):
        p = np.maximum(p, np.minimum(p[:, k:k + 1], p[k:k + 1, :]))
        np.fill_diagonal(p, 0)
    return p


def _schulze_from_counts(cands: list, d: np.ndarray, seen: np.ndarray, n_ballots: int, n_compare: int,
                         variant: str) -> SchulzeResult:
    """The Schulze ranking from ``d`` (ballots ranking i strictly above j) and ``seen`` (ballots
    comparing i and j), shared by :func:`schulze` and :func:`schulze_from_judgements`."""
    idx = {c: i for i, c in enumerate(cands)}
    n = len(cands)
    p = _strongest_paths(d, variant)
    beats = (p > p.T).sum(1)
    order = sorted(range(n), key=lambda i: (-beats[i], str(cands[i])))
    ranking: list[list] = []
    for i in order:
        if ranking:
            last = ranking[-1]
            j = idx[last[0]]
            if beats[i] == beats[j] and all(p[i, idx[x]] == p[idx[x], i] for x in last):
                last.append(cands[i])
                continue
        ranking.append([cands[i]])
    df = lambda a: pd.DataFrame(a, index=cands, columns=cands)
    per_pair = seen[np.triu_indices(n, 1)]
    support = BallotSupport(n_ballots, n_compare, int(per_pair.sum()), len(per_pair), int((per_pair == 0).sum()),
                            float(np.median(per_pair)) if len(per_pair) else 0.0,
                            int(per_pair.min()) if len(per_pair) else 0)
    return SchulzeResult(cands, df(d), df(p), pd.Series(beats, index=cands), ranking, support)


def schulze_from_judgements(judgements: pd.DataFrame, higher_is_better: bool = True,
                            screen_col: str | None = None, variant: str = "winning") -> SchulzeResult:
    """Schulze over the ballots of a judgement frame: each (criterion, rater, segment, screen)
    is one partial ballot ranking the systems it shows by score (methods §5.4).

    The same counts as :func:`schulze` on one mapping ballot per group (a system judged twice on
    one screen counts once, with its last score), built as arrays: a ballots × systems matrix of
    scores, then per pair of systems the ballots ranking one above the other and the ballots
    holding both (ballots with fewer than two systems left out)."""
    j = judgements
    if j.empty:
        return schulze([], variant=variant)
    keys = pd.DataFrame({"judgement": j["judgement"].to_numpy(), "rater": j["rater"].to_numpy(),
                         "seg_id": j["seg_id"].to_numpy(), "screen": screen_ids(j, screen_col).to_numpy()})
    g = keys.groupby(["judgement", "rater", "seg_id", "screen"], sort=False).ngroup()  # NaN: a missing key
    keep = np.flatnonzero(g.notna().to_numpy())
    ballot = g.to_numpy()[keep].astype(np.int64)
    order = keep[np.argsort(ballot, kind="stable")]  # ballots in order of first appearance, rows in order
    systems = j["system"].to_numpy()[order]
    ballot = np.sort(ballot, kind="stable")
    cands = list(pd.unique(systems))  # the order in which the ballots name the systems
    col = pd.Index(cands).get_indexer(systems)
    sign = -1.0 if higher_is_better else 1.0  # ballot ranks: lower = better
    vals = sign * j["score"].to_numpy(dtype=float)[order]
    n_ballots = int(ballot.max()) + 1 if len(ballot) else 0
    ranks = np.full((n_ballots, len(cands)), np.nan)
    present = np.zeros((n_ballots, len(cands)), dtype=bool)
    last = ~pd.DataFrame({"b": ballot, "c": col}).duplicated(keep="last").to_numpy()
    ranks[ballot[last], col[last]] = vals[last]
    present[ballot[last], col[last]] = True
    used = present.sum(1) >= 2
    ranks, present = ranks[used], present[used]
    n = len(cands)
    d = np.zeros((n, n))
    for i in range(n):
        d[i] = (ranks[:, i:i + 1] < ranks).sum(0)
    pf = present.astype(float)
    seen = pf.T @ pf
    return _schulze_from_counts(cands, d, seen, n_ballots, int(used.sum()), variant)
