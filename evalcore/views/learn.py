"""Learn page (the guided tour): the small analyses each stop of the tour shows.

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

from typing import Sequence

from ..core.dataset import Dataset
from ..core.progress import Progress, stage
from ..scoring.defaults import default_criterion, default_metrics
from .human_likeness import figure1_table
from .queen_vs_human import quadrant_table, quadrant_thresholds, queen_human_points
from ..scoring.scores import human_segment_scores, segment_scores
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from . import chosen
from .queries import Query


PARTS = ("paraphrase", "orange", "quadrant", "raters")


def lessons(dataset: Dataset, criterion: str | None = None, progress: Progress = None,
            parts: Sequence[str] = PARTS, settings: Settings = DEFAULTS) -> dict:
    """Live numbers for the guided tour (every value computed from ``dataset``); ``parts``: the
    lessons to compute (the page computes only the stop it shows), any of:

    * ``paraphrase``: per system, mean sentence BLEU and mean human score of ``criterion``, and
      the system ranks under both (Ananthakrishnan et al. 2007: BLEU punishes acceptable paraphrases — e.g. an
      output with synonyms absent from every reference — and misses meaning errors);
    * ``orange``: ORANGE and KING of the default metrics with their baselines (Amigó et al. 2006 §2.3:
      ORANGE < 0.5, systems behave as centroids);
    * ``quadrant``: Figure 4's points under QUEEN{bleu, chrf, meteor} and the quadrant
      "acceptable but not human-like" with its count per system;
    * ``raters``: per-rater mean/sd before normalisation and inter-rater agreement (``agreement``;
      Callison-Burch 2009).

    ``criterion``, ``metrics`` and ``queen_set`` are always given. ``settings.tokenizer``: the
    word-level metrics' tokenizer (None: the metric's default).
    """
    from ..human.scores import criterion_judgements

    criterion = criterion or default_criterion(dataset)
    mets = default_metrics(dataset)
    out: dict = {"criterion": criterion, "metrics": mets}
    refs = set(dataset.ref_ids)
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise ValueError(f"unknown lesson(s) {sorted(unknown)}; known: {', '.join(PARTS)}")
    if mets:
        out["queen_set"] = [m for m in ("bleu", "chrf", "meteor") if m in mets] or mets[:1]
    if "paraphrase" in parts and "bleu" in mets and criterion:
        seg = segment_scores(dataset, ["bleu"], progress=stage(progress, 0.0, 0.2), tokenize=settings.tokenizer)
        h = human_segment_scores(dataset, criterion, include_references=False)
        h = h[~h["system"].isin(refs)]
        both = seg.merge(h.rename(columns={"score": "human"}), on=["system", "seg_id"])
        t = both.groupby("system", sort=False).agg(bleu=("score", "mean"), human=("human", "mean")).reset_index()
        t["bleu_rank"] = t["bleu"].rank(ascending=False, method="min").astype(int)
        t["human_rank"] = t["human"].rank(ascending=False, method="min").astype(int)
        t["rank_gap"] = t["bleu_rank"] - t["human_rank"]
        out["paraphrase"] = t.sort_values("human", ascending=False).reset_index(drop=True)
    if mets and "orange" in parts:
        out["orange"] = figure1_table(dataset, mets, progress=stage(progress, 0.2, 0.7), settings=settings)
    if mets and "quadrant" in parts:
        qset = out["queen_set"]
        if criterion:
            pts = queen_human_points(dataset, qset, criterion, progress=stage(progress, 0.7, 0.9), settings=settings)
            hthr, qthr = quadrant_thresholds(dataset, pts, criterion)
            quad = quadrant_table(pts, hthr, qthr)
            out["quadrant"] = {"points": pts, "human_threshold": hthr, "queen_threshold": qthr,
                               "table": quad, "by_system": quad.groupby("system").size().sort_values(
                                   ascending=False).rename("n").reset_index()}
    if criterion and "raters" in parts:
        j = criterion_judgements(dataset, criterion)
        out["raters"] = j.groupby("rater", sort=False)["score"].agg(["mean", "std", "size"]).reset_index()
        if j["rater"].nunique() > 1:
            from ..human.agreement import agreement, pairwise_labels

            out["agreement"] = agreement(pairwise_labels(j), "inter")
    if progress:
        progress(1.0, "lessons ready")
    return out


def span_lesson(dataset: Dataset, settings: Settings = DEFAULTS) -> dict:
    """The error-span stop of the tour, on a dataset with human error spans (ESA or MQM): two
    outputs chosen from the data (:func:`evalcore.views.spans.teaching_examples`): the one with
    the highest sentence BLEU among those a rater marked with a major error, and the one with
    the lowest BLEU among those annotated with no error; each with its layers (the rater's spans
    and BLEU's unmatched tokens, :func:`evalcore.views.spans.output_layers`)."""
    from . import spans as spans_view

    ex = spans_view.teaching_examples(dataset, settings=settings)
    out: dict[str, dict | None] = {}
    for key, e in ex.items():
        if e is None:
            out[key] = None
            continue
        layers = spans_view.output_layers(dataset, e["system"], e["seg_id"], markers=("bleu",), settings=settings)
        layers["raters"] = [r for r in layers["raters"] if r["item"] == e["item"]]
        out[key] = {**e, "layers": layers}
    return out


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class LearnQuery(Query):
    parts: tuple[str, ...] = ()
    system: str | None = None
    other: str | None = None
    criterion: str | None = None


def learn_lessons(dataset: Dataset, q: LearnQuery, progress: Progress = None) -> dict:
    return lessons(dataset, progress=progress, parts=q.parts, settings=q.settings)


def learn_paraphrase_example(dataset: Dataset, q: LearnQuery):
    """The output of ``q.system`` BLEU dislikes most relative to the humans, in detail."""
    from ..analysis.detail import segment_detail
    from .divergence import divergence_table, signal_table

    criterion, system = chosen(q.criterion, "a human criterion"), chosen(q.system, "a system")
    sig = signal_table(dataset, ["bleu"], [criterion], per_rater=False, settings=q.settings)
    div = divergence_table(sig, "metric:bleu", f"human:{criterion}", systems=[system], direction="b_higher")
    if div.empty:
        return None
    row = div.iloc[0]
    return segment_detail(dataset, row["system"], row["seg_id"], sig, settings=q.settings)


def learn_two_verdicts(dataset: Dataset, q: LearnQuery):
    """(headline, tag buckets) of systems ``q.system`` and ``q.other`` under BLEU and chrF (the
    comparison's own 13a tokenizer, as the Compare page's default on this es-en sample)."""
    from ..analysis import compare as C

    cmp = C.build(dataset, chosen(q.system, "a system"), chosen(q.other, "a second system"), ["bleu", "chrf"],
                  [chosen(q.criterion, "a human criterion")])
    head = C.headline(cmp, n_bootstrap=1000, n_ar=1000)
    tags = C.bucket_table(cmp, C.tag_buckets(cmp), "phenomenon tag")
    return head, tags


def learn_span_lesson(dataset: Dataset, q: LearnQuery) -> dict:
    return span_lesson(dataset, settings=q.settings)
