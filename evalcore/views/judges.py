"""Judges page (Callison-Burch 2009): rater score distributions, pairwise agreement matrices,
the overview (kappa, Krippendorff's alpha, pseudo-rater), HTER, and the judges' Schulze
consensus ranking (also shown on the Systems page).

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.results import Normalised, Ranked
from dataclasses import dataclass
from .fields import required
from .queries import Query


def schulze_frame(res) -> pd.DataFrame:
    rows = []
    for pos, group in enumerate(res.ranking, start=1):
        for c in group:
            rows.append({"rank": pos, "system": c, "beats": int(res.beats[c])})
    return pd.DataFrame(rows, columns=["rank", "system", "beats"])


def judges_consensus(dataset: Dataset, criterion: str) -> Ranked:
    """Schulze consensus over the judges' ballots of ``criterion``: every (rater, segment) is a
    partial ballot ranking the systems it scored (methods §5.4; Callison-Burch 2009 §4; Schulze 2011).

    A :class:`~evalcore.core.results.Ranked` whose table has columns rank, system, beats, mean_score (the mean of the system's judgement rows: a segment
    weighs as often as it was judged) and human_score (the mean over segments of the per-segment
    mean over raters: the human score of every other page and of ``correlate``); its ``support``:
    the :class:`~evalcore.human.ranking.BallotSupport` — how many ballots
    compare ≥ 2 systems and how many comparisons each pair rests on (``support.few`` and
    ``support.warning()`` when the ranking rests on few comparisons)."""
    from ..human.ranking import schulze_from_judgements
    from ..human.scores import criterion_judgements

    j = criterion_judgements(dataset, criterion)
    res = schulze_from_judgements(j)
    out = schulze_frame(res)
    out["mean_score"] = out["system"].map(j.groupby("system")["score"].mean())
    # the human score of the Systems and Campaign pages and of correlate (evalcore.scoring.settings:
    # rater aggregation "segment-mean"), beside the mean of the raw rows: both labelled
    seg = j.groupby(["system", "seg_id"], sort=False)["score"].mean().groupby("system").mean()
    out["human_score"] = out["system"].map(seg)
    return Ranked(out, support=res.support)


def rater_distributions(dataset: Dataset, criterion: str, normalisation: str = "z") -> Normalised:
    """A :class:`~evalcore.core.results.Normalised`: the long frame rater, stage (raw | <normalisation>),
    score for every rating of ``criterion`` (methods §5.1-5.2), its ``summary`` the summary table
    (:func:`rater_summary`) and its ``excluded_raters`` those normalisation left out."""
    from ..human.normalise import normalise, rater_summary
    from ..human.scores import criterion_judgements

    j = criterion_judgements(dataset, criterion)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        norm = normalise(j, normalisation)
    n = norm.table
    out = pd.concat([pd.DataFrame({"rater": j["rater"].to_numpy(), "stage": "raw",
                                   "score": j["score"].to_numpy(float)}),
                     pd.DataFrame({"rater": n["rater"].to_numpy(), "stage": normalisation,
                                   "score": n["score"].to_numpy(float)})], ignore_index=True)
    return Normalised(out, summary=rater_summary(j, n), excluded_raters=norm.excluded_raters)


def rater_agreement_matrix(labels: pd.DataFrame, chance: str = "uniform") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(P(A), kappa) matrices rater × rater from pairwise labels (methods §5.3): for raters u ≠ v,
    the share of items (criterion, segment, system pair) both labelled on which their labels
    agree (every pairing of their judgements of the item); the diagonal is intra-rater
    agreement over repeated judgements (NaN without repeats). P(E) by ``chance``."""
    from ..human.agreement import chance_agreement, kappa

    raters = list(dict.fromkeys(labels["rater"]))
    item = ["judgement", "seg_id", "sys_a", "sys_b"]
    m = labels[item + ["rater", "label", "jid"]].merge(labels[item + ["rater", "label", "jid"]], on=item,
                                                       suffixes=("_1", "_2"))
    m = m[m["jid_1"] != m["jid_2"]]
    pe = chance_agreement(labels["label"], chance)
    pa = pd.DataFrame(np.nan, index=raters, columns=raters)
    if len(m):
        agree = (m["label_1"] == m["label_2"]).astype(float)
        t = agree.groupby([m["rater_1"], m["rater_2"]]).mean()
        for key, val in t.items():
            u, v = cast("tuple[str, str]", key)  # (rater_1, rater_2): the groupby's two keys
            pa.loc[u, v] = val
    kp = pa.map(lambda x: kappa(x, pe) if np.isfinite(x) else np.nan)
    return pa, kp


def judges_overview(dataset: Dataset, criterion: str, chance: str = "uniform") -> dict:
    """Agreement of the judges of ``criterion`` (Callison-Burch 2009 §4; methods §5.3): pairwise labels,
    inter/intra agreement and kappa, per-rater agreement with the others, the P(A) and kappa
    matrices, and (with ≥ 3 raters) agreement with one rater as more of the others are added.
    A pseudo-rater ``mean`` (published averages, as in ../shared/data) is left out when real
    raters exist.

    ``alpha``: Krippendorff's alpha (interval; Krippendorff 2011) over (system, segment) items
    with one value per (rater, item), the mean of the rater's repeats; NaN when undefined, with
    ``alpha_reason`` saying why ("" when defined) and ``alpha_result`` the full
    :class:`~evalcore.human.agreement.AlphaResult`. ``outputs_per_segment``: judged outputs per judged
    segment (min, max) — pairwise labels need ≥ 2 outputs of a segment judged by one rater."""
    from ..human.agreement import agreement, agreement_curve, alpha_of_judgements, pairwise_labels, per_rater_agreement
    from ..human.scores import criterion_judgements

    j = criterion_judgements(dataset, criterion)
    if (j["rater"] != "mean").any():
        j = j[j["rater"] != "mean"]
    raters = list(dict.fromkeys(j["rater"]))
    labels = pairwise_labels(j)
    res: dict[str, Any] = {"raters": raters, "n_ratings": len(j), "labels": labels}
    al = alpha_of_judgements(j)
    res["alpha"], res["alpha_reason"], res["alpha_result"] = al.value, al.reason, al
    per_seg = j.groupby("seg_id", sort=False)["system"].nunique()
    res["outputs_per_segment"] = (int(per_seg.min()), int(per_seg.max())) if len(per_seg) else (0, 0)
    res["inter"] = agreement(labels, "inter", chance)
    res["intra"] = agreement(labels, "intra", chance)
    res["per_rater"] = per_rater_agreement(labels, chance) if len(raters) > 1 else pd.DataFrame()
    res["pa"], res["kappa"] = rater_agreement_matrix(labels, chance) if len(labels) else (pd.DataFrame(), pd.DataFrame())
    curves = []
    if len(raters) >= 3 and res["inter"]["n_pairs"]:  # the curve needs items labelled by several raters
        for r in raters:
            c = agreement_curve(labels, [r], max_judges=len(raters) - 1, n_resamples=20, seed=0)
            curves.append(c.table.assign(reference=r))
    res["curve"] = pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(
        columns=["k", "agreement", "sd", "n_items", "reference"])
    return res


def hter_table(dataset: Dataset) -> pd.DataFrame:
    """HTER (methods §5.6) of every output that has post-edits in ``extras["postedits"]``.

    Two layouts: (a) columns system, seg_id and ``text`` or ``postedit`` (several editors
    allowed: the minimum acceptable edit, Callison-Burch 2009 §5.2); (b) the MLQE-PE layout seg_id,
    ``mt_tokenized``, ``postedit_tokenized`` for a dataset with one system, where the edits are
    counted on those tokenised texts (as the published labels were). Columns: system, seg_id,
    editor, edits, length, hter, and ``published`` when the dataset has ``hter`` judgements of
    that output. Empty without post-edits."""
    from ..human.hter import hter

    cols = ["system", "seg_id", "editor", "edits", "length", "hter"]
    pe = dataset.extras.get("postedits")
    if pe is None or not len(pe):
        return pd.DataFrame(columns=cols)
    pe = pe.assign(seg_id=pe["seg_id"].astype(str))
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    rows = []
    if {"mt_tokenized", "postedit_tokenized"} <= set(pe.columns) and len(dataset.systems) == 1:
        pe = pe[pe["seg_id"].isin(pos)]
        if len(pe):
            res = hter(pe["mt_tokenized"].tolist(), pe["postedit_tokenized"].tolist())
            res.insert(0, "seg_id", pe["seg_id"].to_numpy()[res["seg"].to_numpy()])
            res.insert(0, "system", dataset.systems[0])
            rows.append(res.drop(columns="seg"))
    else:
        col = "postedit" if "postedit" in pe else "text"
        sys_t = dataset.sys_texts()
        for key, g in pe.groupby("system", sort=False) if "system" in pe else []:
            name = cast(str, key)  # a system name (the groupby key)
            if name not in sys_t:
                continue
            groups = g.groupby("seg_id", sort=False)[col].apply(list)
            segs = [s for s in groups.index if s in pos and sys_t[name][pos[s]] is not None]
            if not segs:
                continue
            outs = [t for t in (sys_t[name][pos[s]] for s in segs) if t is not None]  # (all: segs has outputs)
            res = hter(outs, [groups[s] for s in segs])
            res.insert(0, "seg_id", [segs[i] for i in res["seg"]])
            res.insert(0, "system", name)
            rows.append(res.drop(columns="seg"))
    if not rows:
        return pd.DataFrame(columns=cols)
    out = pd.concat(rows, ignore_index=True)
    pub = dataset.judgements[dataset.judgements["judgement"] == "hter"]
    if len(pub):
        pub = pub.groupby(["system", "seg_id"], sort=False)["score"].mean().rename("published").reset_index()
        out = out.merge(pub, on=["system", "seg_id"], how="left")
    return out


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class CriterionQuery(Query):
    """A dataset and one human criterion (and an option): the judges' views."""
    criterion: str | None = None
    option: str | None = None


def consensus(dataset: Dataset, q: CriterionQuery):
    """(table, support) of the judges' Schulze consensus (:func:`evalcore.views.judges.judges_consensus`)."""
    ranked = judges_consensus(dataset, required(q, "criterion"))
    return ranked.table, ranked.support  # what the ranking rests on


def overview(dataset: Dataset, q: CriterionQuery) -> dict:
    """:func:`evalcore.views.judges.judges_overview` with chance ``q.option`` (without its labels)."""
    res = judges_overview(dataset, required(q, "criterion"), q.option or "uniform")
    res.pop("labels", None)
    return res


def distributions(dataset: Dataset, q: CriterionQuery):
    """:func:`evalcore.views.judges.rater_distributions` with normalisation ``q.option``."""
    return rater_distributions(dataset, required(q, "criterion"), q.option or "z")


def rater_distributions_figure(dist: pd.DataFrame, q: CriterionQuery):
    from ..present import plots as P

    return P.rater_distributions(dist, f"{q.criterion}: raw vs {q.option}")


def agreement_pa_figure(overview: dict, q: CriterionQuery):
    from ..present import plots as P

    return P.heatmap(overview["pa"], "P(A) between raters (diagonal: intra)", 0, 1, "Blues")


def agreement_kappa_figure(overview: dict, q: CriterionQuery):
    from ..present import plots as P

    return P.heatmap(overview["kappa"], "κ between raters", -1, 1)


def agreement_curve_figure(overview: dict, q: CriterionQuery):
    from ..present import plots as P

    return P.agreement_curve(overview["curve"])


def hter(dataset: Dataset, q: Query) -> pd.DataFrame:
    """:func:`evalcore.views.judges.hter_table`."""
    return hter_table(dataset)


def system_ranking(dataset: Dataset, q: CriterionQuery):
    """(table, bars, p-value heatmap) of the WMT24 system ranking of ``q.criterion`` with test
    ``q.option`` (:func:`evalcore.views.metatask.system_ranking_figures`)."""
    from .metatask import system_ranking_figures

    return system_ranking_figures(dataset, required(q, "criterion"), q.option or "wilcoxon")
