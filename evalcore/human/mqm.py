"""MQM scores from error annotations (methods §0, §5.7; Freitag et al. 2021) — the project's one MQM scorer.

:data:`MQM_WEIGHTS` (the default weights), :func:`parse_mqm_weights`, :func:`resolve_mqm_weights`,
:func:`format_mqm_weights` (the weights in force, as text), :func:`mqm_weigher` /
:func:`mqm_error_weight` (one annotation's weight), :func:`mqm_scores` (per rater or per
segment) and :func:`rescore_mqm` (a dataset whose ``mqm`` judgements are recomputed from its
error rows). Pure functions, no UI.
"""
from __future__ import annotations

from typing import Mapping

import pandas as pd

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
