"""Class page: the class's judgements (:mod:`evalcore.analysis.annotate`) beside the experts'.

Every number comes from the project's own functions, called on the class's rows:
agreement between students and with the experts (:mod:`evalcore.human.agreement`:
Krippendorff's α, pairwise labels and κ, per-rater agreement with the experts), the metrics'
correlation with the class and with the experts (:func:`evalcore.stats.tables.correlation_table`
on :func:`evalcore.human.scores.human_scores`), and the Schulze ranking of systems
(:func:`evalcore.human.ranking.schulze_from_judgements`). Nothing here imports streamlit.
"""
from __future__ import annotations

import itertools
import warnings
from typing import Any, Sequence

import pandas as pd

from ..analysis import annotate as A
from ..core.dataset import Dataset
from ..human.agreement import agreement, alpha_of_judgements, pairwise_labels, per_rater_agreement
from ..human.ranking import schulze_from_judgements
from ..human.scores import criterion_judgements, human_scores
from ..scoring.settings import DEFAULTS, Settings
from .judges import schulze_frame


def class_judgements(dataset: Dataset, protocol: str) -> pd.DataFrame:
    """The class's judgement rows of ``protocol`` (criterion ``class_da`` / ``class_esa``)."""
    crit = A.CRITERIA[protocol]
    if crit not in dataset.criteria:
        return dataset.judgements.iloc[:0]
    return criterion_judgements(dataset, crit)


def expert_criteria(dataset: Dataset) -> list[str]:
    """The criteria that are not the class's (the experts' judgements to compare with)."""
    return [c for c in dataset.criteria if c not in A.CRITERIA.values()]


def expert_judgements(dataset: Dataset, criterion: str) -> pd.DataFrame:
    """The rows of ``criterion`` by raters who are not in the class."""
    j = criterion_judgements(dataset, criterion)
    return j[~j["rater"].isin(set(A.class_raters(dataset)))]


def oriented(j: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """The class's rows with higher = better: ranks (``rank``: 1 = best) negated, other protocols as
    they are. Every number of the page is then computed as for scores: the pairwise labels are
    those of the Judges page with *lower is better* (Callison-Burch 2009 §4), the Schulze ballots
    rank by rank, α is unchanged by the sign, and the metrics' correlations are with −(mean rank)."""
    return j.assign(score=-j["score"]) if protocol == "rank" and len(j) else j


def student_pairs(j: pd.DataFrame) -> pd.DataFrame:
    """Every pair of students: items both judged, Krippendorff's α (interval) of the two
    (:func:`~evalcore.human.agreement.alpha_of_judgements`; the reason when undefined) and the
    agreement of their pairwise labels (:func:`~evalcore.human.agreement.agreement`, ``inter``:
    P(A), κ with P(E) = 1/3, label pairs)."""
    cols = ["rater_a", "rater_b", "shared_items", "alpha", "alpha_note", "p_agree", "kappa", "label_pairs"]
    raters = list(dict.fromkeys(j["rater"]))
    rows = []
    for a, b in itertools.combinations(raters, 2):
        pair = j[j["rater"].isin([a, b])]
        ia = set(zip(pair.loc[pair["rater"] == a, "system"], pair.loc[pair["rater"] == a, "seg_id"]))
        ib = set(zip(pair.loc[pair["rater"] == b, "system"], pair.loc[pair["rater"] == b, "seg_id"]))
        al = alpha_of_judgements(pair)
        ag = agreement(pairwise_labels(pair), "inter")
        rows.append({"rater_a": a, "rater_b": b, "shared_items": len(ia & ib), "alpha": al.value,
                     "alpha_note": al.reason, "p_agree": ag["p_agree"], "kappa": ag["kappa"],
                     "label_pairs": ag["n_pairs"]})
    return pd.DataFrame(rows, columns=cols)


def vs_experts(class_j: pd.DataFrame, expert_j: pd.DataFrame) -> pd.DataFrame:
    """Each student against the experts, on the outputs both judged: agreement of pairwise
    labels with the experts' (:func:`~evalcore.human.agreement.per_rater_agreement` against them,
    as :func:`evalcore.analysis.experts.rater_vs_gold`: n_labels, n_pairs, P(A), κ)
    and Krippendorff's α of the student's and the experts' scores together (``alpha``)."""
    cols = ["rater", "n_labels", "n_pairs", "p_agree", "kappa", "alpha", "alpha_note"]
    if class_j.empty or expert_j.empty:
        return pd.DataFrame(columns=cols)
    crit = expert_j["judgement"].iloc[0]
    both = pd.concat([class_j.assign(judgement=crit), expert_j], ignore_index=True)
    labels = pairwise_labels(both)
    experts = set(expert_j["rater"])
    if labels.empty:
        t = pd.DataFrame({"rater": list(dict.fromkeys(class_j["rater"]))})
    else:
        # = evalcore.analysis.experts.rater_vs_gold (not imported: evalcore.analysis.experts imports evalcore.views)
        gold = labels["rater"].isin(experts)
        t = per_rater_agreement(labels[~gold], "uniform", reference=labels[gold])
        t = t.merge(pd.DataFrame({"rater": list(dict.fromkeys(class_j["rater"]))}), on="rater", how="right")
    al = {r: alpha_of_judgements(pd.concat([g.assign(judgement=crit), expert_j], ignore_index=True))
          for r, g in class_j.groupby("rater", sort=False)}
    t["alpha"] = t["rater"].map(lambda r: al[r].value)
    t["alpha_note"] = t["rater"].map(lambda r: al[r].reason)
    for c in cols:
        if c not in t:
            t[c] = float("nan")
    return t[cols]


def _oriented(scores: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """Metric scores oriented by the shared settings (error rates such as TER negated), as the
    Systems page does (:meth:`evalcore.scoring.settings.Settings.orient`)."""
    from ..metrics.base import get_metric

    flip = [m for m in scores["metric"].unique()
            if settings.orient(get_metric(m, tokenize=settings.tokenizer).meta.higher_is_better) < 0]
    if flip:
        scores = scores.copy()
        scores.loc[scores["metric"].isin(flip), "score"] *= -1.0
    return scores


def metric_correlations(dataset: Dataset, metrics: Sequence[str], humans: dict[str, pd.DataFrame],
                        settings: Settings = DEFAULTS, methods: Sequence[str] = ("pearson", "kendall")) -> pd.DataFrame:
    """The metrics' correlation with each set of human scores (``humans``: label -> rows of one
    criterion, e.g. the class's and the experts'), at system level (corpus scores over the
    segments that set judged, :func:`evalcore.analysis.system_level.cached_scores`) and segment level
    (sentence scores, no grouping), by :func:`evalcore.stats.tables.correlation_table`; human
    scores are the raw means per output (:func:`evalcore.human.scores.human_scores`); reference
    translations judged like systems are left out. Columns: humans, level, metric, method, value, n.
    ``settings``: the word-level metrics' tokenizer (None: the metric's default) and the orientation."""
    from ..stats.tables import correlation_table
    from ..analysis.system_level import cached_scores
    from ..scoring.scores import segment_scores

    cols = ["humans", "level", "metric", "method", "value", "n"]
    rows = []
    metrics = list(metrics)
    if not metrics:
        return pd.DataFrame(columns=cols)
    tokenize = settings.tokenizer
    seg = _oriented(segment_scores(dataset, metrics, tokenize=tokenize), settings)  # the same tokenizer at both levels
    refs = set(dataset.ref_ids)
    for label, j in humans.items():
        if j.empty:
            continue
        crit = j["judgement"].iloc[0]
        sub = _with_judgements(dataset, j)
        h = human_scores(sub, crit, include_references=False)
        h = h[~h["system"].isin(refs)]
        if h.empty:
            continue
        sysm = _oriented(cached_scores(sub, metrics, tokenize=tokenize, criterion=crit).table, settings)
        for method in methods:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for level, scores in (("system", sysm.assign(seg_id="")), ("segment", seg)):
                    tab = correlation_table(h, scores, level=level, method=method)
                    r: Any  # a row of the correlation table (column attributes)
                    for r in tab.itertuples(index=False):
                        rows.append({"humans": label, "level": level, "metric": r.metric, "method": method,
                                     "value": float(r.value), "n": int(r.n)})
    return pd.DataFrame(rows, columns=cols)


def _with_judgements(dataset: Dataset, j: pd.DataFrame) -> Dataset:
    """``dataset`` with only the judgement rows ``j``."""
    return Dataset(dataset.name, dataset.lp, dataset.segments, dataset.references, dataset.outputs,
                   j[["system", "seg_id", "rater", "judgement", "score"]].reset_index(drop=True), dataset.tags,
                   dict(dataset.extras), list(dataset.warnings))


def on_items(j: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``j`` whose (system, seg_id) is among ``other``'s."""
    keys = set(zip(other["system"].astype(str), other["seg_id"].astype(str)))
    mask = [(s, g) in keys for s, g in zip(j["system"].astype(str), j["seg_id"].astype(str))]
    return j[mask]


def schulze_table(j: pd.DataFrame) -> pd.DataFrame:
    """The Schulze ranking of systems from the ballots of ``j`` (each rater × segment ranks the
    systems they scored: methods §5.4; Schulze 2011): rank, system, beats."""
    if j.empty:
        return pd.DataFrame(columns=["rank", "system", "beats"])
    return schulze_frame(schulze_from_judgements(j))


def overview(dataset: Dataset, protocol: str, expert_criterion: str | None = None,
             metrics: Sequence[str] = ("bleu", "chrf"), settings: Settings = DEFAULTS) -> dict:
    """Everything the Class page shows for ``protocol`` (rankings oriented by :func:`oriented`;
    ``class_rows`` keeps the stored ranks): ``progress``, ``qc``
    (:func:`evalcore.analysis.annotate.qc_report`; for rankings
    :func:`~evalcore.analysis.annotate.rank_qc_report`), ``class_alpha`` and ``class_agreement`` (all students
    together), ``pairs`` (:func:`student_pairs`), ``experts`` (:func:`vs_experts`, when an expert
    criterion is given), ``correlations`` (:func:`metric_correlations`: class, experts on every
    output they judged, experts on the outputs the class judged), ``schulze`` (class and experts),
    ``class_rows``. ``settings``: the metrics' tokenizer and orientation (:func:`metric_correlations`)."""
    rows = class_judgements(dataset, protocol)
    cj = oriented(rows, protocol)
    log = A.log_of(dataset)
    log = log[log["protocol"] == protocol]
    qc = A.rank_qc_report(log) if protocol == "rank" else A.qc_report(log, A.repeat_tolerance(protocol))
    out: dict[str, Any] = {"progress": A.progress_table(dataset).query("protocol == @protocol").reset_index(drop=True),
           "qc": qc.reset_index(drop=True),
           "class_rows": rows, "class_alpha": alpha_of_judgements(cj),
           "class_agreement": agreement(pairwise_labels(cj), "inter"), "pairs": student_pairs(cj)}
    ej = expert_judgements(dataset, expert_criterion) if expert_criterion else cj.iloc[:0]
    out["experts"] = vs_experts(cj, ej) if expert_criterion else None
    if out["experts"] is not None and protocol == "rank" and len(out["experts"]):
        out["experts"]["alpha"] = float("nan")  # κ of the pairwise labels compares them; α would mix scales
        out["experts"]["alpha_note"] = "ranks and the experts' scores are not on one scale (compare κ)"
    humans = {"class": cj}
    if expert_criterion and not ej.empty:
        humans["experts (all their outputs)"] = ej
        humans["experts (the class's outputs)"] = on_items(ej, cj)
    out["correlations"] = metric_correlations(dataset, metrics, humans, settings) if not cj.empty else \
        pd.DataFrame(columns=["humans", "level", "metric", "method", "value", "n"])
    out["schulze"] = {"class": schulze_table(cj)}
    if expert_criterion and not ej.empty:  # the systems only: the class never judges a reference
        out["schulze"]["experts"] = schulze_table(ej[~ej["system"].isin(set(dataset.ref_ids))])
    return out
