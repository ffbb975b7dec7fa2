"""Agreement between human judges (methods §5.3, §5.9; Callison-Burch 2009 §4, Krippendorff 2011).

Pairwise labels implied by each rater's scores (:func:`pairwise_labels`), P(A), P(E) and kappa
(:func:`agreement`, :func:`chance_agreement`, :func:`kappa`), each rater's agreement with the
others (:func:`per_rater_agreement`, Callison-Burch 2009 Fig. 2), agreement with a reference
panel as judges are added (:func:`agreement_curve`, Callison-Burch 2009 Fig. 1), and
Krippendorff's α for interval data (:func:`krippendorff_alpha`, :func:`alpha_of_judgements`,
undefined with a reason when no item has two raters). Pure functions, no UI.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.results import Curve


def screen_ids(j: pd.DataFrame, screen_col: str | None) -> pd.Series:
    """The screen of each judgement row (methods §5.3): the column ``screen_col`` when given,
    else the occurrence index of the row within its (criterion, rater, segment, system)."""
    if screen_col and screen_col in j.columns:
        return j[screen_col].astype(str)
    # occurrence index: the k-th judgement of (rater, segment, system) belongs to screen k
    return j.groupby(["judgement", "rater", "seg_id", "system"], sort=False).cumcount().astype(str)


def pairwise_labels(judgements: pd.DataFrame, higher_is_better: bool = True,
                    screen_col: str | None = None) -> pd.DataFrame:
    """Pairwise comparison labels implied by each rater's scores (methods §5.3; Callison-Burch 2009 §4).

    Within one *screen* — a (criterion, rater, segment, screen) group; by default the k-th
    judgement of a (rater, segment, system) is on screen k, or the column ``screen_col`` — every
    pair of systems (sys_a < sys_b by name) gets the label ">" (sys_a better), "<" or "=".
    ``higher_is_better=False`` for ranks (1 = best). Columns: judgement, seg_id, sys_a, sys_b,
    rater, screen, label, jid (a unique judgement id).
    """
    cols = ["judgement", "seg_id", "sys_a", "sys_b", "rater", "screen", "label", "jid"]
    if judgements.empty:
        return pd.DataFrame(columns=cols)
    j = judgements[["judgement", "rater", "seg_id", "system", "score"]].copy()
    j["screen"] = screen_ids(judgements, screen_col).to_numpy()
    keys = ["judgement", "rater", "seg_id", "screen"]
    pairs = j.merge(j, on=keys, suffixes=("_a", "_b"))
    pairs = pairs[pairs["system_a"] < pairs["system_b"]]
    diff = pairs["score_a"].to_numpy() - pairs["score_b"].to_numpy()
    if not higher_is_better:
        diff = -diff
    lab = np.where(diff > 0, ">", np.where(diff < 0, "<", "="))
    out = pd.DataFrame({"judgement": pairs["judgement"].to_numpy(), "seg_id": pairs["seg_id"].to_numpy(),
                        "sys_a": pairs["system_a"].to_numpy(), "sys_b": pairs["system_b"].to_numpy(),
                        "rater": pairs["rater"].to_numpy(), "screen": pairs["screen"].to_numpy(),
                        "label": lab})
    out["jid"] = np.arange(len(out))
    return out[cols].reset_index(drop=True)


def kappa(p_agree: float, p_chance: float) -> float:
    """κ = (P(A) − P(E)) / (1 − P(E)) (methods §5.3). Example: P(A) 0.6, P(E) 1/3 -> 0.4."""
    return (p_agree - p_chance) / (1 - p_chance) if p_chance < 1 else float("nan")


def chance_agreement(labels: pd.Series | Sequence[str], chance: str = "uniform") -> float:
    """P(E): ``uniform`` = 1/3 (WMT07-12); ``empirical`` = P(>)² + P(<)² + P(=)² with label
    proportions estimated from ``labels`` (WMT13 onwards), methods §5.3."""
    if chance == "uniform":
        return 1.0 / 3.0
    if chance != "empirical":
        raise ValueError("chance must be uniform or empirical")
    lab = pd.Series(labels)
    if lab.empty:
        return float("nan")
    p = lab.value_counts(normalize=True)
    return float((p ** 2).sum())


def judgement_pairs(labels: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Every pair of judgements of one item (criterion, segment, system pair) from
    :func:`pairwise_labels`: by two different raters (``inter``) or by the same rater (``intra``)."""
    item = ["judgement", "seg_id", "sys_a", "sys_b"]
    m = labels[item + ["rater", "label", "jid"]].merge(labels[item + ["rater", "label", "jid"]], on=item,
                                                       suffixes=("_1", "_2"))
    m = m[m["jid_1"] < m["jid_2"]]
    if kind == "inter":
        m = m[m["rater_1"] != m["rater_2"]]
    elif kind == "intra":
        m = m[m["rater_1"] == m["rater_2"]]
    else:
        raise ValueError("kind must be inter or intra")
    return m


def agreement(labels: pd.DataFrame, kind: str = "inter", chance: str = "uniform") -> dict:
    """Agreement of pairwise labels (methods §5.3).

    ``inter``: every pair of judgements of the same item (criterion, segment, system pair) by two
    **different** raters; ``intra``: every pair of judgements of the same item by the **same**
    rater (repeats). P(A) = share of those pairs with the same label (A>B, A<B or A=B).
    P(E) by :func:`chance_agreement` over the labels taking part in the pairs.
    Returns dict(p_agree, p_chance, kappa, n_pairs).
    """
    m = judgement_pairs(labels, kind)
    n = len(m)
    if n == 0:
        return {"p_agree": float("nan"), "p_chance": float("nan"), "kappa": float("nan"), "n_pairs": 0}
    pa = float((m["label_1"] == m["label_2"]).mean())
    used = labels.set_index("jid").loc[pd.unique(np.r_[m["jid_1"].to_numpy(), m["jid_2"].to_numpy()]), "label"]
    pe = chance_agreement(used, chance)
    return {"p_agree": pa, "p_chance": pe, "kappa": kappa(pa, pe), "n_pairs": n}


def per_rater_agreement(labels: pd.DataFrame, chance: str = "uniform", reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each rater's agreement with the **other** raters (Callison-Burch 2009 Fig. 2: who clicks randomly).

    For rater r: over every pair (r's judgement, another rater's judgement of the same item),
    the share with the same label; also n_labels (r's judgements) and kappa with ``chance``.
    With ``reference`` (labels of a reference panel, e.g. experts), agreement is measured
    against the reference panel's labels instead of the other raters'.
    """
    item = ["judgement", "seg_id", "sys_a", "sys_b"]
    if reference is None:
        m = labels[item + ["rater", "label", "jid"]].merge(labels[item + ["rater", "label", "jid"]], on=item,
                                                           suffixes=("", "_o"))
        m = m[m["rater"] != m["rater_o"]]
    else:
        m = labels[item + ["rater", "label"]].merge(reference[item + ["label"]], on=item, suffixes=("", "_o"))
    pe = chance_agreement(labels["label"], chance)
    if m.empty:
        rows = pd.DataFrame({"rater": pd.unique(labels["rater"])})
        rows["n_labels"] = rows["rater"].map(labels.groupby("rater").size())
        rows["n_pairs"] = 0
        rows["p_agree"] = np.nan
        rows["kappa"] = np.nan
        return rows
    m = m.assign(agree=(m["label"] == m["label_o"]).astype(float))
    t = m.groupby("rater", sort=False).agg(n_pairs=("agree", "size"), p_agree=("agree", "mean")).reset_index()
    t["kappa"] = [kappa(p, pe) for p in t["p_agree"]]
    t.insert(1, "n_labels", t["rater"].map(labels.groupby("rater").size()).to_numpy())
    return t.sort_values("n_labels", ascending=False, kind="stable").reset_index(drop=True)


ALPHA_NO_SHARED_ITEM = "undefined: no item was judged by two raters"
ALPHA_NO_SPREAD = "undefined: every value of the items judged by two raters is the same (no expected disagreement)"


def krippendorff_alpha(data, level: str = "interval") -> float:
    """Krippendorff's α for interval data (Krippendorff 2011, "Computing Krippendorff's alpha").

    ``data``: a units × coders matrix (NaN = no value; one value per coder and unit) or a long
    frame with columns unit, rater, score, in which a rater's repeated values of one unit are
    first averaged (one value per (rater, unit), methods §5.2). With m_u values in unit u and
    n = Σ_u m_u over units with m_u ≥ 2 (pairable values):
    D_o = (1/n) Σ_u Σ_{i≠j in u} (v_i − v_j)² / (m_u − 1),
    D_e = 1/(n(n−1)) Σ_{i≠j over all pairable values} (v_i − v_j)²,  α = 1 − D_o/D_e.
    NaN when it is undefined; :func:`alpha_of_judgements` also says why.
    """
    return _alpha(data, level)[0]


def _alpha(data, level: str = "interval") -> tuple[float, str, int, int]:
    """(α, reason when undefined, units with ≥ 2 values, pairable values)."""
    if level != "interval":
        raise ValueError("only the interval level is implemented")
    if isinstance(data, pd.DataFrame) and {"unit", "score"} <= set(data.columns):
        if "rater" not in data.columns:
            raise ValueError("a long frame needs columns unit, rater, score (repeats of a rater are averaged)")
        per = data.groupby(["unit", "rater"], sort=False)["score"].mean().reset_index()
        units = [g.to_numpy(dtype=float) for _, g in per.groupby("unit", sort=False)["score"]]
    else:
        arr = np.asarray(data, dtype=float)
        units = [row[~np.isnan(row)] for row in arr]
    units = [u for u in units if len(u) >= 2]
    if not units:
        return float("nan"), ALPHA_NO_SHARED_ITEM, 0, 0
    allv = np.concatenate(units)
    n = len(allv)

    def sq_pairs(v):  # Σ_{i≠j} (v_i − v_j)² = 2(mΣv² − (Σv)²)
        return 2 * (len(v) * np.sum(v ** 2) - np.sum(v) ** 2)

    d_o = sum(sq_pairs(u) / (len(u) - 1) for u in units) / n
    d_e = sq_pairs(allv) / (n * (n - 1))
    if not d_e > 0:
        return float("nan"), ALPHA_NO_SPREAD, len(units), n
    return float(1 - d_o / d_e), "", len(units), n


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's α of a judgement frame with the facts behind it.

    ``value`` is NaN when α is undefined and ``reason`` then says why (e.g.
    "undefined: no item was judged by two raters"); ``n_items`` = items (system, segment)
    judged by at least two different raters, ``n_values`` = the (rater, item) values pairable
    within those items, ``n_repeats`` = (rater, item) cells with repeated judgements that
    were averaged first."""

    value: float
    reason: str
    n_items: int
    n_values: int
    n_raters: int
    n_repeats: int

    @property
    def defined(self) -> bool:
        return not self.reason

    def text(self, digits: int = 3) -> str:
        """The value, or the reason it is undefined (never a number then)."""
        return f"{self.value:.{digits}f}" if self.defined else self.reason


def rater_item_matrix(judgements: pd.DataFrame) -> pd.DataFrame:
    """Raters × items (system, seg_id): the mean of each rater's repeated judgements of an item
    (methods §5.2), NaN where the rater did not judge it. One criterion at a time."""
    if judgements.empty:
        return pd.DataFrame()
    return judgements.pivot_table(index="rater", columns=["system", "seg_id"], values="score",
                                  aggfunc="mean", sort=False)


def alpha_of_judgements(judgements: pd.DataFrame) -> AlphaResult:
    """Krippendorff's α (interval; Krippendorff 2011; methods §5.9) between the raters of one criterion.

    Items are (system, segment) outputs; each rater contributes **one** value per item, the
    mean of their repeats, so a rater's repeats never count as agreement between raters. Where
    no item has two raters, α is undefined (NaN with the reason)."""
    j = judgements
    if j.empty:
        return AlphaResult(float("nan"), ALPHA_NO_SHARED_ITEM, 0, 0, 0, 0)
    cells = j.groupby(["system", "seg_id", "rater"], sort=False).size()
    units = j["system"].astype(str) + "\x00" + j["seg_id"].astype(str)
    value, reason, n_items, n_values = _alpha(pd.DataFrame({"unit": units.to_numpy(), "rater": j["rater"].to_numpy(),
                                                            "score": j["score"].to_numpy(dtype=float)}))
    return AlphaResult(value, reason, n_items, n_values, int(j["rater"].nunique()), int((cells > 1).sum()))


def agreement_curve(labels: pd.DataFrame, reference_raters: Sequence[str], max_judges: int = 5,
                    n_resamples: int = 20, seed: int | None = 0, weights: Mapping[str, float] | None = None,
                    require_all: bool = True) -> Curve:
    """Agreement with a reference panel as judges are added (Callison-Burch 2009 Fig. 1), by resampling.

    Items (criterion, segment, system pair) judged by the reference panel (``reference_raters``)
    and by other judges. For k = 1..max_judges and each resample, k of an item's non-reference
    judgements are drawn without replacement and combined by the (weighted) majority of
    :func:`~evalcore.human.normalise.combine_labels`
    (optionally weighted by ``weights``); agreement = share of (item, reference judgement) pairs
    where the combined label equals the reference label. ``require_all``: use only items with at
    least ``max_judges`` non-reference judgements (so every k uses the same items).
    Returns a :class:`~evalcore.core.results.Curve`: k, agreement (mean over resamples), sd, n_items;
    its ``reference_agreement`` is the panel's own inter-rater agreement (the "top line").
    """
    item = ["judgement", "seg_id", "sys_a", "sys_b"]
    ref = labels[labels["rater"].isin(reference_raters)]
    cand = labels[~labels["rater"].isin(reference_raters)]
    cand = cand.merge(ref[item].drop_duplicates(), on=item)
    sizes = cand.groupby(item, sort=False).size().rename("n_cand").reset_index()
    rng = np.random.default_rng(seed)
    rows = []
    if cand.empty:  # no item shared with the panel: nothing to resample
        out = pd.DataFrame([(k, np.nan, np.nan, 0) for k in range(1, max_judges + 1)],
                           columns=["k", "agreement", "sd", "n_items"])
        return Curve(out, reference_agreement=agreement(ref, "inter")["p_agree"] if len(ref) else float("nan"))
    wmap = dict(weights) if weights is not None else None
    for k in range(1, max_judges + 1):
        need = max_judges if require_all else k
        ok_items = sizes[sizes["n_cand"] >= need][item]
        c = cand.merge(ok_items, on=item)
        r = ref.merge(ok_items, on=item)
        if c.empty:
            rows.append((k, np.nan, np.nan, 0))
            continue
        c = c.reset_index(drop=True)
        w = c["rater"].map(wmap).fillna(0.0).to_numpy() if wmap is not None else np.ones(len(c))
        sgn = np.where(c["label"] == ">", 1.0, np.where(c["label"] == "<", -1.0, 0.0)) * w
        key = c.groupby(item, sort=False).ngroup().to_numpy()
        ritem = r.merge(c[item].assign(g=key).drop_duplicates(item), on=item)
        vals = []
        for _ in range(n_resamples):
            order = np.lexsort((rng.random(len(c)), key))
            rank = np.empty(len(c), dtype=int)
            ks, starts = np.unique(key[order], return_index=True)
            pos = np.arange(len(c)) - np.repeat(starts, np.diff(np.r_[starts, len(c)]))
            rank[order] = pos
            chosen = rank < k
            tot = np.bincount(key[chosen], weights=sgn[chosen], minlength=key.max() + 1)
            comb = np.where(tot > 0, ">", np.where(tot < 0, "<", "="))
            vals.append(float((comb[ritem["g"].to_numpy()] == ritem["label"].to_numpy()).mean()))
        rows.append((k, float(np.mean(vals)), float(np.std(vals, ddof=1)) if len(vals) > 1 else 0.0,
                     int(len(ok_items))))
    out = pd.DataFrame(rows, columns=["k", "agreement", "sd", "n_items"])
    return Curve(out, reference_agreement=agreement(ref, "inter")["p_agree"] if len(ref) else float("nan"))
