"""Human judgements: normalisation, aggregation, MQM, agreement, rankings, HTER (methods §0, §5).

Everything works on the long judgement frame of :class:`evalcore.dataset.Dataset`
(columns ``system, seg_id, rater, judgement, score``; ``system`` may be a reference set) and
returns pandas frames. Pure functions, no UI.

Sections
--------
* Normalisation per rater (methods §5.1-5.2): :func:`normalise`, :func:`percentile_ranks`,
  :func:`rater_summary` (what happens to each rater's distribution).
* Aggregation per (system, segment) (methods §5.5): :func:`aggregate`, :func:`rater_weights`.
* MQM from error rows (methods §0; the one scorer of the project): :data:`MQM_WEIGHTS`,
  :func:`resolve_mqm_weights`, :func:`mqm_scores`, :func:`rescore_mqm`.
* Pairwise agreement and kappa (methods §5.3, Callison-Burch 2009 §4): :func:`pairwise_labels`,
  :func:`agreement`, :func:`kappa`, :func:`per_rater_agreement`; Krippendorff's α (interval,
  Krippendorff 2011): :func:`krippendorff_alpha`, :func:`alpha_of_judgements` (one value per
  (rater, item), undefined with a reason when no item has two raters).
* Rankings: :func:`relative_ranking_scores` ("how often judged better than or equal to the
  others", Callison-Burch 2009 §4 after Callison-Burch et al. 2008), :func:`schulze` (methods §5.4),
  :func:`schulze_from_judgements`, :func:`agreement_curve` (Callison-Burch 2009 Fig. 1).
* HTER (methods §5.6, Callison-Burch 2009 §5.2): :func:`hter`.
* Dataset helpers: :func:`human_scores`, :func:`system_scores`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

LABELS = (">", "<", "=")


# =============================================================================================
# Normalisation (methods §5.1, §5.2)
# =============================================================================================
def percentile_ranks(values) -> np.ndarray:
    """Mid-rank percentile of each rating among one judge's ratings (methods §5.1, Kulesza & Shieber 2004).

    pct(s) = (#{s' < s} + ½·#{s' = s}) / N, the rating itself counted among the equals.
    Example (methods §8): [1, 2, 2, 3] -> [0.125, 0.5, 0.5, 0.875].
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return x
    s = np.sort(x)
    less = np.searchsorted(s, x, side="left")
    leq = np.searchsorted(s, x, side="right")
    return (less + 0.5 * (leq - less)) / n


def normalise(judgements: pd.DataFrame, method: str = "raw", *, ddof: int = 1,
              by: Sequence[str] = ("judgement", "rater")) -> pd.DataFrame:
    """Per-rater normalisation of scores (methods §0, §5.1-5.2).

    ``method``: ``raw`` (unchanged), ``z`` ((x − μ_r)/σ_r over all of the rater's scores of that
    criterion, σ with ``ddof`` = 1 by default), ``percentile`` (mid-rank, :func:`percentile_ranks`).
    Raters are the groups of ``by``. A rater with σ = 0 (or a single rating) cannot be z-scored:
    their rows are **excluded** and a warning is issued; the excluded raters are listed in
    ``result.attrs["excluded_raters"]``. The returned copy keeps the input score as ``raw``.
    """
    if method not in ("raw", "z", "percentile"):
        raise ValueError("normalisation must be raw, z or percentile")
    out = judgements.copy()
    out["raw"] = out["score"].astype(float)
    out.attrs["excluded_raters"] = []
    if method == "raw" or out.empty:
        return out
    keys = [c for c in by if c in out.columns]
    grp = out.groupby(keys, sort=False)["raw"]
    if method == "z":
        mu = grp.transform("mean")
        sd = grp.transform(lambda s: s.std(ddof=ddof) if len(s) > ddof else np.nan)
        bad = ~(sd > 0)
        if bad.any():
            excluded = out.loc[bad, keys].drop_duplicates().to_dict("records")
            warnings.warn(f"z-normalisation: {len(excluded)} rater(s) with zero (or undefined) standard "
                          f"deviation excluded: {excluded}", stacklevel=2)
            out = out.loc[~bad].copy()
            mu, sd = mu[~bad], sd[~bad]
            out.attrs["excluded_raters"] = excluded
        out["score"] = (out["raw"] - mu) / sd
    else:
        out["score"] = grp.transform(lambda s: pd.Series(percentile_ranks(s.to_numpy()), index=s.index))
    return out


def rater_summary(judgements: pd.DataFrame, normalised: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (criterion, rater) distribution before (and after) normalisation: n, mean, sd, min, median, max."""
    def summ(frame, col, prefix):
        g = frame.groupby(["judgement", "rater"], sort=False)[col]
        t = g.agg(n="size", mean="mean", sd="std", min="min", median="median", max="max")
        return t.add_prefix(prefix)

    t = summ(judgements, "score", "")
    if normalised is not None:
        t = t.join(summ(normalised, "score", "norm_").drop(columns="norm_n"), how="left")
    return t.reset_index()


# =============================================================================================
# MQM (methods §0)
# =============================================================================================
#: MQM weights (methods §0; Freitag et al. 2021, "Experts, Errors, and Context"). Keys are a
#: severity, or ``severity/category-prefix`` for a category rule (matched case-insensitively;
#: the longest matching prefix wins over the plain severity). ``Critical`` has no weight here:
#: neither docs/methods.md nor Freitag et al. (2021) weigh it, so data with Critical errors needs an
#: explicit weight (``weights={"critical": ...}``, CLI ``--mqm-weights critical:N``).
MQM_WEIGHTS: dict[str, float] = {
    "major": 5.0,
    "minor": 1.0,
    "neutral": 0.0,
    "no-error": 0.0,
    "minor/fluency/punctuation": 0.1,
    "major/non-translation": 25.0,
}


def parse_mqm_weights(text: str) -> dict[str, float]:
    """``"major:5 minor:1 minor/Fluency/Punctuation:0.1"`` -> weights dict (lower-case keys).

    Keys not given keep their default (:func:`resolve_mqm_weights` merges them)."""
    out: dict[str, float] = {}
    for item in text.replace(",", " ").split():
        key, sep, val = item.rpartition(":")
        if not sep or not key:
            raise ValueError(f"MQM weight {item!r} is not of the form severity[/category]:number")
        try:
            out[key.strip().lower()] = float(val)
        except ValueError:
            raise ValueError(f"MQM weight {item!r}: {val!r} is not a number") from None
    return out


def resolve_mqm_weights(weights: Mapping[str, float] | str | None = None) -> dict[str, float]:
    """The weights in force: :data:`MQM_WEIGHTS` with ``weights`` (a mapping, or a string read by
    :func:`parse_mqm_weights`) laid over them — the keys given override their default, the
    others keep it (so ``"critical:25"`` adds one weight, ``"minor/fluency/punctuation:1"``
    turns the punctuation rule off)."""
    if weights is None:
        return dict(MQM_WEIGHTS)
    given = parse_mqm_weights(weights) if isinstance(weights, str) else {
        str(k).strip().lower(): float(v) for k, v in weights.items()}
    return {**MQM_WEIGHTS, **given}


def format_mqm_weights(weights: Mapping[str, float] | str | None = None) -> str:
    """``major:5 minor:1 …``: the weights in force, in the string form :func:`parse_mqm_weights` reads."""
    return " ".join(f"{k}:{v:g}" for k, v in resolve_mqm_weights(weights).items())


def mqm_weigher(weights: Mapping[str, float] | str | None = None):
    """A function (category, severity) -> weight, or None when the severity has no weight."""
    table = resolve_mqm_weights(weights)
    plain = {k: v for k, v in table.items() if "/" not in k}
    rules = []
    for key, val in table.items():
        if "/" in key:
            sev, cat = key.split("/", 1)
            rules.append((sev.strip(), cat.strip(), val))
    rules.sort(key=lambda r: -len(r[1]))  # the most specific category prefix first
    cache: dict[tuple[str, str], float | None] = {}

    def weigh(category: str, severity: str) -> float | None:
        key = (category, severity)
        if key not in cache:
            sev = str(severity).strip().lower()
            cat = str(category).strip().lower()
            w = next((val for rsev, rcat, val in rules if rsev == sev and cat.startswith(rcat)), None)
            if w is None:
                w = plain.get(sev)
            if w is None and (sev in ("no-error", "no error") or cat in ("no-error", "no error")):
                w = plain.get("no-error", 0.0)
            cache[key] = w
        return cache[key]

    return weigh


def mqm_error_weight(category: str, severity: str, weights: Mapping[str, float] | str | None = None) -> float | None:
    """Weight of one annotation row (methods §0), or None when its severity has no weight."""
    return mqm_weigher(weights)(category, severity)


MQM_ERROR_COLUMNS = ["system", "seg_id", "rater", "category", "severity"]


def mqm_scores(errors: pd.DataFrame, weights: Mapping[str, float] | str | None = None,
               per: str = "rater") -> pd.DataFrame:
    """MQM scores from error rows (Freitag et al. 2021; methods §5.7) — the project's one MQM scorer.

    ``errors``: one row per annotation (columns system, seg_id, rater, category, severity; an
    ``lp`` column is kept as a key when present; a precomputed ``weight`` column is ignored).
    "No-error" rows mark rated segments without errors and weigh 0, so every rated (system,
    segment, rater) gets a score. ``weights``: see :func:`resolve_mqm_weights` (default
    :data:`MQM_WEIGHTS`). Per rater: score = −Σ weights of that rater's errors on that segment
    (higher is better); ``per="segment"``: the mean over raters, with n_raters. Columns:
    [lp,] system, seg_id, rater, judgement (= ``mqm``), score — or [lp,] system, seg_id,
    judgement, score, n_raters — in order of first appearance. Raises ValueError naming the
    severities without a weight.
    """
    if per not in ("rater", "segment"):
        raise ValueError("per must be rater or segment")
    missing = [c for c in MQM_ERROR_COLUMNS if c not in errors.columns]
    if missing:
        raise ValueError(f"MQM annotation table lacks column(s) {', '.join(missing)}")
    weigh = mqm_weigher(weights)
    w = [weigh(c, s) for c, s in zip(errors["category"], errors["severity"])]
    unknown = sorted({str(s) for s, x in zip(errors["severity"], w) if x is None})
    if unknown:
        known = sorted(k for k in resolve_mqm_weights(weights) if "/" not in k)
        raise ValueError(f"no MQM weight for severity {', '.join(map(repr, unknown))}; add it to the weights, "
                         f"e.g. --mqm-weights {unknown[0].lower()}:N (known: {', '.join(known)})")
    keys = (["lp"] if "lp" in errors.columns else []) + ["system", "seg_id", "rater"]
    df = errors[keys].copy()  # key columns keep their dtype (the loaders give strings)
    df["_w"] = pd.Series(w, index=errors.index, dtype="float64")
    out = df.groupby(keys, sort=False)["_w"].sum().reset_index()
    out["judgement"] = "mqm"
    out["score"] = -out.pop("_w") + 0.0  # + 0.0 turns -0.0 into 0.0
    out = out[keys + ["judgement", "score"]]
    if per == "rater":
        return out
    seg_keys = [k for k in keys if k != "rater"] + ["judgement"]
    return out.groupby(seg_keys, sort=False, as_index=False).agg(score=("score", "mean"),
                                                                 n_raters=("score", "size"))


def rescore_mqm(dataset, weights: Mapping[str, float] | str | None):
    """A copy of ``dataset`` whose ``mqm`` judgements are recomputed from its error rows
    (``extras["mqm_errors"]``) with ``weights``; the dataset itself when it has no error rows."""
    errs = dataset.extras.get("mqm_errors")
    if errs is None or not len(errs):
        return dataset
    sc = mqm_scores(errs, weights)
    j = dataset.judgements
    new = pd.DataFrame({"system": sc["system"].to_numpy(), "seg_id": sc["seg_id"].astype(str).to_numpy(),
                        "rater": sc["rater"].to_numpy(), "judgement": "mqm", "score": sc["score"].to_numpy(float)})
    extra_cols = [c for c in j.columns if c not in new.columns]
    keep = j[j["judgement"] != "mqm"]
    judgements = pd.concat([keep, new.assign(**{c: "" for c in extra_cols})], ignore_index=True)
    return type(dataset)(dataset.name, dataset.lp, dataset.segments, dataset.references, dataset.outputs,
                         judgements, dataset.tags, dict(dataset.extras), list(dataset.warnings))


# =============================================================================================
# Pairwise labels, agreement, kappa (methods §5.3)
# =============================================================================================
def _screen(j: pd.DataFrame, screen_col: str | None) -> pd.Series:
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
    j["screen"] = _screen(judgements, screen_col).to_numpy()
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


def _judgement_pairs(labels: pd.DataFrame, kind: str) -> pd.DataFrame:
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
    m = _judgement_pairs(labels, kind)
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


# =============================================================================================
# Reliability weights and aggregation (methods §5.5)
# =============================================================================================
def combine_labels(labels: Iterable[str], weights: Iterable[float] | None = None) -> str:
    """Combine votes on one system pair: sign(Σw·[>] − Σw·[<]) -> ">", "<" or "=".

    This is the Schulze method on two candidates (methods §5.4): a pair is decided by the
    (weighted) majority of strict preferences; equal support (or only "=" votes) is a tie.
    """
    lab = np.asarray(list(labels))
    w = np.ones(len(lab)) if weights is None else np.asarray(list(weights), dtype=float)
    s = w[lab == ">"].sum() - w[lab == "<"].sum()
    return ">" if s > 0 else "<" if s < 0 else "="


def rater_weights(labels: pd.DataFrame, method: str = "majority") -> pd.Series:
    """Leave-one-out rater reliability weights (methods §5.5; Callison-Burch 2009 §4 "weighting votes").

    ``majority``: w_j = mean, over the items j shares with others, of [j's label = the majority
    label of the **other** raters' judgements of that item] (j's own votes excluded; items
    where the others tie between labels are skipped). ``kappa``: j's mean pairwise κ (uniform
    chance) with each other rater, clipped at 0. Raters without shared items get the median
    weight of the others (all 1 if nobody shares). Returns Series rater -> weight.
    """
    item = ["judgement", "seg_id", "sys_a", "sys_b"]
    raters = list(pd.unique(labels["rater"]))
    w = pd.Series(np.nan, index=raters, dtype=float)
    if method == "majority":
        cnt = labels.groupby(item + ["rater", "label"], sort=False).size().rename("k").reset_index()
        tot = cnt.groupby(item + ["label"], sort=False)["k"].sum().rename("tot").reset_index()
        # votes of the others per (item, rater, label) = total − own
        full = []
        for r in raters:
            own = cnt[cnt["rater"] == r]
            if own.empty:
                continue
            its = own[item].drop_duplicates()
            others = tot.merge(its, on=item).merge(own[item + ["label", "k"]], on=item + ["label"], how="left")
            others["o"] = others["tot"] - others["k"].fillna(0)
            others = others[others["o"] > 0]
            if others.empty:
                continue
            mx = others.groupby(item, sort=False)["o"].transform("max")
            top = others[others["o"] == mx]
            nt = top.groupby(item, sort=False)["label"].transform("size")
            maj = top[nt == 1][item + ["label"]].rename(columns={"label": "maj"})
            mine = labels[labels["rater"] == r][item + ["label"]].merge(maj, on=item)
            if len(mine):
                full.append((r, float((mine["label"] == mine["maj"]).mean())))
        for r, v in full:
            w[r] = v
    elif method == "kappa":
        m = _judgement_pairs(labels, "inter")
        if len(m):
            m = m.assign(agree=(m["label_1"] == m["label_2"]).astype(float))
            both = pd.concat([m.rename(columns={"rater_1": "r", "rater_2": "o"})[["r", "o", "agree"]],
                              m.rename(columns={"rater_2": "r", "rater_1": "o"})[["r", "o", "agree"]]])
            pa = both.groupby(["r", "o"])["agree"].mean()
            k = ((pa - 1 / 3) / (1 - 1 / 3)).clip(lower=0)
            w.update(k.groupby(level=0).mean())
    else:
        raise ValueError("method must be majority or kappa")
    if w.isna().all():
        return pd.Series(1.0, index=raters)
    return w.fillna(w.median())


def aggregate(judgements: pd.DataFrame, method: str = "mean", weights: Mapping[str, float] | None = None) -> pd.DataFrame:
    """One score per (system, segment) from several ratings (methods §5.2, §5.5).

    ``mean`` (repeated ratings averaged, methods §5.2), ``median``, or ``weighted``: Σ w_r·x_r / Σ w_r
    with rater weights ``weights`` (default: :func:`rater_weights` of the pairwise labels the
    ratings imply, leave-one-out). Cells whose raters all have weight 0 fall back to the mean.
    Returns system, seg_id, score, n_ratings.
    """
    keys = ["system", "seg_id"]
    if judgements.empty:
        return pd.DataFrame(columns=keys + ["score", "n_ratings"])
    g = judgements.groupby(keys, sort=False)["score"]
    if method in ("mean", "median"):
        out = g.agg(score=method, n_ratings="size").reset_index()
        return out
    if method != "weighted":
        raise ValueError("aggregate must be mean, median or weighted")
    if weights is None:
        weights = rater_weights(pairwise_labels(judgements))
    w = judgements["rater"].map(dict(weights)).fillna(0.0).to_numpy(dtype=float)
    tmp = judgements[keys].copy()
    tmp["wx"] = w * judgements["score"].to_numpy(dtype=float)
    tmp["w"] = w
    tmp["x"] = judgements["score"].to_numpy(dtype=float)
    agg = tmp.groupby(keys, sort=False).agg(wx=("wx", "sum"), w=("w", "sum"), mean=("x", "mean"),
                                            n_ratings=("x", "size")).reset_index()
    agg["score"] = np.where(agg["w"] > 0, agg["wx"] / agg["w"].where(agg["w"] > 0, 1), agg["mean"])
    return agg[keys + ["score", "n_ratings"]]


_aggregate = aggregate  # the Dataset helpers below take a parameter named ``aggregate``


# =============================================================================================
# Rankings (Callison-Burch 2009 §4, methods §5.4)
# =============================================================================================
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
    if variant == "winning":
        p = np.where(d > d.T, d, 0.0)
    elif variant == "margins":
        p = np.where(d > d.T, d - d.T, 0.0)
    else:
        raise ValueError("variant must be winning or margins")
    np.fill_diagonal(p, 0)
    for k in range(n):
        for i in range(n):
            if i == k:
                continue
            for j in range(n):
                if j != i and j != k:
                    p[i, j] = max(p[i, j], min(p[i, k], p[k, j]))
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
    support = BallotSupport(len(ranked), n_compare, int(per_pair.sum()), len(per_pair), int((per_pair == 0).sum()),
                            float(np.median(per_pair)) if len(per_pair) else 0.0,
                            int(per_pair.min()) if len(per_pair) else 0)
    return SchulzeResult(cands, df(d), df(p), pd.Series(beats, index=cands), ranking, support)


def schulze_from_judgements(judgements: pd.DataFrame, higher_is_better: bool = True,
                            screen_col: str | None = None, variant: str = "winning") -> SchulzeResult:
    """Schulze over the ballots of a judgement frame: each (criterion, rater, segment, screen)
    is one partial ballot ranking the systems it shows by score (methods §5.4)."""
    j = judgements.copy()
    j["screen"] = _screen(judgements, screen_col).to_numpy()
    sign = -1.0 if higher_is_better else 1.0  # ballot ranks: lower = better
    ballots = [dict(zip(g["system"], sign * g["score"].to_numpy(dtype=float)))
               for _, g in j.groupby(["judgement", "rater", "seg_id", "screen"], sort=False)]
    return schulze(ballots, variant=variant)


def agreement_curve(labels: pd.DataFrame, reference_raters: Sequence[str], max_judges: int = 5,
                    n_resamples: int = 20, seed: int | None = 0, weights: Mapping[str, float] | None = None,
                    require_all: bool = True) -> pd.DataFrame:
    """Agreement with a reference panel as judges are added (Callison-Burch 2009 Fig. 1), by resampling.

    Items (criterion, segment, system pair) judged by the reference panel (``reference_raters``)
    and by other judges. For k = 1..max_judges and each resample, k of an item's non-reference
    judgements are drawn without replacement and combined with :func:`combine_labels`
    (optionally weighted by ``weights``); agreement = share of (item, reference judgement) pairs
    where the combined label equals the reference label. ``require_all``: use only items with at
    least ``max_judges`` non-reference judgements (so every k uses the same items).
    Returns k, agreement (mean over resamples), sd, n_items; ``attrs["reference_agreement"]`` is
    the panel's own inter-rater agreement (the "top line").
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
        out.attrs["reference_agreement"] = agreement(ref, "inter")["p_agree"] if len(ref) else float("nan")
        return out
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
    out.attrs["reference_agreement"] = agreement(ref, "inter")["p_agree"] if len(ref) else float("nan")
    return out


# =============================================================================================
# HTER (methods §5.6, Callison-Burch 2009 §5.2)
# =============================================================================================
def hter(mt: Sequence[str], postedits: Sequence, references: Sequence | None = None, *,
         denominator: str | None = None, case_sensitive: bool = False,
         acceptable: Sequence | None = None, cap: float | None = None) -> pd.DataFrame:
    """HTER = TER of the MT output against its targeted reference (post-edit), methods §5.6.

    ``mt``: one output per segment. ``postedits``: per segment a string or a list of post-edits
    (several editors). Edit counts (insertions, deletions, substitutions, shifts) come from
    sacreBLEU's TER (tercom algorithm) on whitespace tokens (``normalized=False``; pass
    tokenised text), case-insensitive by default like tercom and sacreBLEU. With several editors the **minimum acceptable
    edit** is used (Callison-Burch 2009 §5.2): the post-edit with the fewest edits among those marked
    acceptable (``acceptable``: per segment a list of booleans; default all acceptable); if none
    is acceptable, the TER against the first original reference is reported (editor = -1).
    ``denominator``: ``"postedit"`` (length of the chosen post-edit; WMT QE HTER labels),
    ``"reference"`` (mean length of the original untargeted references, Snover et al. 2006), or
    ``"mean_postedit"`` (mean post-edit length, sacreBLEU's multi-reference convention). Default:
    "reference" when ``references`` are given, else "postedit". ``cap``: clip HTER at this value
    (WMT QE labels are capped at 1.0).
    Returns seg (position), editor, edits, length, hter.
    """
    from sacrebleu.metrics import TER

    ter = TER(case_sensitive=case_sensitive, normalized=False, no_punct=False)
    if denominator is None:
        denominator = "reference" if references is not None else "postedit"
    if denominator not in ("postedit", "reference", "mean_postedit"):
        raise ValueError("denominator must be postedit, reference or mean_postedit")
    if denominator == "reference" and references is None:
        raise ValueError("denominator='reference' needs the original references")
    pes = [[p] if isinstance(p, str) else list(p) for p in postedits]
    refs = None if references is None else [[r] if isinstance(r, str) else list(r) for r in references]
    if len(pes) != len(mt) or (refs is not None and len(refs) != len(mt)):
        raise ValueError("mt, postedits (and references) must have one entry per segment")
    max_ed = max((len(p) for p in pes), default=0)
    edits = np.full((len(mt), max_ed), np.nan)
    lens = np.full((len(mt), max_ed), np.nan)
    for e in range(max_ed):
        idx = [i for i, p in enumerate(pes) if len(p) > e and p[e] is not None]
        if not idx:
            continue
        st = ter._extract_corpus_statistics([mt[i] for i in idx], [[pes[i][e] for i in idx]])
        for i, (ed, ln) in zip(idx, st):
            edits[i, e], lens[i, e] = ed, ln
    if acceptable is not None:
        acc = np.zeros_like(edits, dtype=bool)
        for i, a in enumerate(acceptable):
            acc[i, :len(a)] = np.asarray(a, dtype=bool)[:max_ed]
        edits_ok = np.where(acc, edits, np.nan)
    else:
        edits_ok = edits
    rows = []
    for i in range(len(mt)):
        row = edits_ok[i]
        if np.all(np.isnan(row)):
            if refs is None or not refs[i]:
                rows.append((i, -1, np.nan, np.nan, np.nan))
                continue
            st = ter._extract_corpus_statistics([mt[i]], [[refs[i][0]]])[0]
            ed, e = st[0], -1
        else:
            e = int(np.nanargmin(row))
            ed = row[e]
        if denominator == "postedit":
            ln = lens[i, e] if e >= 0 else np.nan
            if e < 0:
                ln = len(refs[i][0].split())
        elif denominator == "mean_postedit":
            ln = np.nanmean(lens[i]) if max_ed else np.nan
        else:
            ln = float(np.mean([len(r.split()) for r in refs[i]]))
        h = ed / ln if ln > 0 else (0.0 if ed == 0 else 1.0)
        if cap is not None:
            h = min(h, cap)
        rows.append((i, e, float(ed), float(ln), float(h)))
    return pd.DataFrame(rows, columns=["seg", "editor", "edits", "length", "hter"])


# =============================================================================================
# Dataset helpers
# =============================================================================================
def criterion_judgements(dataset, criterion: str, mqm_weights: Mapping[str, float] | str | None = None) -> pd.DataFrame:
    """The judgement rows of one criterion. For ``mqm`` without stored scores but with error rows
    (``dataset.extras["mqm_errors"]``), per-rater MQM scores are computed with :func:`mqm_scores`
    (methods §0); given ``mqm_weights`` they are always recomputed from the error rows."""
    j = dataset.judgements
    sub = j[j["judgement"] == criterion]
    errs = dataset.extras.get("mqm_errors") if hasattr(dataset, "extras") else None
    if criterion == "mqm" and errs is not None and len(errs) and (sub.empty or mqm_weights is not None):
        sc = mqm_scores(errs, mqm_weights, per="rater")
        sc = sc.assign(seg_id=sc["seg_id"].astype(str))
        return sc[["system", "seg_id", "rater", "judgement", "score"]]
    if sub.empty:
        raise ValueError(f"no judgements for criterion {criterion!r}; available: {dataset.criteria}")
    return sub


def given_system_scores(dataset, criterion: str) -> pd.DataFrame:
    """Human scores given per system (not per segment) for ``criterion``: ``system, score``.

    They come from ``dataset.extras["system_scores"]`` (columns scorer, system, score), filled
    by the loaders from judgement rows with an empty seg_id (tidy TSV), from mt-metrics-eval
    ``<lp>.<scorer>.sys.score`` files and from WMT-style system score tables (see
    docs/formats.md). Published system-level correlations (e.g. Mathur et al. 2020) are
    computed against these, not against the mean of segment scores. Several rows of one
    system are averaged. Empty when the dataset has none for ``criterion``.
    """
    extra = getattr(dataset, "extras", {}).get("system_scores")
    if extra is None or not len(extra) or "scorer" not in extra:
        return pd.DataFrame({"system": pd.Series(dtype=object), "score": pd.Series(dtype=float)})
    sub = extra[extra["scorer"].astype(str) == criterion]
    scores = pd.to_numeric(sub["score"], errors="coerce")
    sub = sub.assign(score=scores)[scores.notna()]
    return sub.groupby("system", sort=False)["score"].mean().reset_index()


def human_scores(dataset, criterion: str, normalisation: str = "raw", aggregate: str = "mean",
                 include_references: bool = True, mqm_weights: Mapping[str, float] | str | None = None,
                 ddof: int = 1) -> pd.DataFrame:
    """Per-(system, segment) human scores of a :class:`~evalcore.dataset.Dataset` (methods §0, §5).

    Rows of ``criterion`` are normalised per rater (:func:`normalise`), aggregated per
    (system, segment) (:func:`aggregate`: mean | median | weighted); reference sets judged like
    systems are dropped unless ``include_references``. Returns system, seg_id, score, n_ratings
    (excluded raters in ``attrs["excluded_raters"]``).
    """
    j = criterion_judgements(dataset, criterion, mqm_weights)
    if not include_references:
        refs = set(dataset.references["ref_id"])
        j = j[~j["system"].isin(refs)]
    norm = normalise(j, normalisation, ddof=ddof)
    out = _aggregate(norm, aggregate)
    out.attrs["excluded_raters"] = norm.attrs.get("excluded_raters", [])
    return out.reset_index(drop=True)


def system_scores(dataset, criterion: str, normalisation: str = "raw", aggregate: str = "mean",
                  include_references: bool = True, mqm_weights: Mapping[str, float] | str | None = None,
                  ddof: int = 1) -> pd.DataFrame:
    """System-level human scores: the mean over segments of :func:`human_scores` (methods §5.2).

    Returns system, score, n_segments, is_reference, sorted by score descending.
    """
    seg = human_scores(dataset, criterion, normalisation, aggregate, include_references, mqm_weights, ddof)
    out = seg.groupby("system", sort=False).agg(score=("score", "mean"), n_segments=("score", "size")).reset_index()
    refs = set(dataset.references["ref_id"])
    out["is_reference"] = out["system"].isin(refs)
    return out.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)
