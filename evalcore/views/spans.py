"""Human error spans on the pages (Divergence browser, Learn tour): the layers of one output
(each rater's spans, each metric's marks), error profiles per system, the categories each metric
penalises, and teaching examples chosen from the data.

Nothing here imports streamlit. The spans are parsed once per dataset
(:func:`evalcore.io.spans.dataset_spans`, memoised on the dataset); a metric's marks are computed
only for the output asked for (:func:`output_layers`), so a page's first figure never waits for them.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..io.spans import METRIC_EXTRA, SpanTable, dataset_spans, metric_span_table
from ..analysis import spans as S
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from . import chosen
from .queries import Query


def has_spans(dataset: Dataset) -> bool:
    """Whether the dataset carries error spans (ESA ``esa_spans_json`` or MQM error rows)."""
    esa = dataset.extras.get("esa_spans")
    mqm = dataset.extras.get("mqm_errors")
    return (esa is not None and len(esa) > 0) or (mqm is not None and len(mqm) > 0)


def has_metric_spans(dataset: Dataset) -> bool:
    """Whether the dataset carries error spans returned by a metric (``metric_spans``, e.g. xCOMET)."""
    ms = dataset.extras.get(METRIC_EXTRA)
    return ms is not None and len(ms) > 0


def span_metric_ids(metrics: Sequence[str]) -> tuple[str, ...]:
    """The metrics among ``metrics`` that predict error spans (``xcomet:MODEL``): a page that
    offers them draws their spans on the selected output beside the human ones."""
    return tuple(m for m in metrics if str(m).lower().startswith("xcomet:"))


def shows_spans(dataset: Dataset, span_metrics: Sequence[str] = ()) -> bool:
    """Whether a page has span layers to draw: human error spans, spans the dataset stores
    for a metric, or a span-predicting metric chosen (:func:`span_metric_ids`)."""
    return has_spans(dataset) or has_metric_spans(dataset) or bool(span_metrics)


def span_table(dataset: Dataset) -> SpanTable:
    """The dataset's spans, read leniently: a broken annotation is left out and listed in
    ``problems`` (the ``spans`` command is strict)."""
    return dataset_spans(dataset, strict=False)


def _runs(chars: set[int]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for p in sorted(chars):
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p, p + 1])
    return [(a, b) for a, b in out]


def output_layers(dataset: Dataset, system: str, seg_id: str, markers: Sequence[str] = ("bleu", "chrf", "ter"),
                  settings: Settings = DEFAULTS, span_metrics: Sequence[str] = (), progress=None) -> dict:
    """The layers of one output: ``text``; ``raters``: per annotation, label (rater and scheme),
    spans (start, end, severity, tooltip: severity and category), note (omissions and spans
    without characters, counted); ``marks``: per metric, its marked character runs;
    ``metric_spans``: per metric that returned error spans on this output (the ``metric_spans``
    table, e.g. xCOMET), its spans like a rater's; ``scores``: per marker (and metric with
    spans) and rater, P/R/F1 of the marks against that rater's spans (all severities).
    ``span_metrics``: ``xcomet:MODEL`` ids whose predicted spans on this output join
    ``metric_spans`` (this output only is scored, or read from the neural cache, where the
    pages' scoring of the metric left them beside its scores; ``progress(done, total)`` follows
    the model's rows); ``span_signatures``: per such metric, its span signature (model,
    versions, whether a reference was used, ``agg:first``). The markers tokenize with
    ``settings.tokenizer`` (None: sacreBLEU's default for the target language)."""
    from ..metrics.tokenize import default_tokenizer

    seg_id = str(seg_id)
    table = span_table(dataset)
    texts = S._texts(dataset)
    text = texts.get((system, seg_id))
    out: dict[str, Any] = {"text": text, "raters": [], "marks": {}, "scores": pd.DataFrame()}
    its = table.items[(table.items["system"] == system) & (table.items["seg_id"] == seg_id)]
    sp = table.spans
    for item, rater, scheme in zip(its["item"], its["rater"], its["scheme"]):
        mine = sp[sp["item"] == item]
        spans: list[tuple[int, int, str, str]] = []
        omitted: Counter[str] = Counter()
        other = 0
        for a, b, side, sev, cat, status in zip(mine["start"], mine["end"], mine["side"], mine["severity"],
                                                mine["category"], mine["status"]):
            if status == "ok" and side == "target":
                tip = sev + (f": {cat}" if cat else "")
                spans.append((int(a), int(b), sev, tip))
            elif status == "omission":
                omitted[sev] += 1
            else:
                other += 1
        note = []
        if omitted:
            note.append("omissions (no place in the text): " + ", ".join(f"{n} {s}" for s, n in sorted(omitted.items())))
        if other:
            note.append(f"{other} span(s) on the source, empty or out of range, not drawn")
        if not len(mine):
            note.append("no error marked")
        out["raters"].append({"item": int(item), "label": f"{rater} ({scheme.upper()})", "spans": spans,
                              "note": "; ".join(note)})
    out["metric_spans"] = _metric_layers(dataset, system, seg_id, span_metrics, progress)
    out["span_signatures"] = span_signatures(dataset, span_metrics, [(system, seg_id)])
    if text is not None:
        refs = S._refs_for(dataset, system, seg_id)
        tok = settings.tokenizer or default_tokenizer(dataset.lp)
        rows = []
        for mk in markers:
            chars = S.metric_marks(mk, text, refs, tok) if refs else set()
            out["marks"][mk] = _runs(chars)
            for r in out["raters"]:
                h = S._chars(text, [(a, b) for a, b, _, _ in r["spans"]])
                c = np.array([[len(chars & h), len(chars), len(h)]], dtype=float)
                p = S.prf(c)
                rows.append({"marker": mk, "rater": r["label"], "marked_chars": len(chars), "error_chars": len(h),
                             "precision": p["micro_precision"], "recall": p["micro_recall"], "f1": p["micro_f1"]})
        for metric, layer in out["metric_spans"].items():
            if layer["unusable"]:
                continue
            chars = S._chars(text, [(a, b) for a, b, _, _ in layer["spans"]])
            for r in out["raters"]:
                h = S._chars(text, [(a, b) for a, b, _, _ in r["spans"]])
                p = S.prf(np.array([[len(chars & h), len(chars), len(h)]], dtype=float))
                rows.append({"marker": metric, "rater": r["label"], "marked_chars": len(chars), "error_chars": len(h),
                             "precision": p["micro_precision"], "recall": p["micro_recall"], "f1": p["micro_f1"]})
        out["scores"] = pd.DataFrame(rows)
    return out


def span_signatures(dataset: Dataset, span_metrics: Sequence[str], outputs=None) -> dict[str, str]:
    """metric id (as its layer is labelled) -> the signature of its spans on ``outputs`` (all
    when None): :meth:`evalcore.neural.NeuralMetric.span_signature`, computed without the model."""
    if not span_metrics:
        return {}
    from ..metrics.base import get_metric

    out = {}
    for mid in span_metrics:
        m: Any = get_metric(mid)  # a span metric (xcomet: evalcore.neural.NeuralMetric)
        out[m.id] = str(m.span_signature(dataset, outputs))
    return out


def _metric_layers(dataset: Dataset, system: str, seg_id: str, span_metrics: Sequence[str] = (),
                   progress=None) -> dict:
    """metric -> {spans: (start, end, severity, tooltip), note, unusable} for the spans each
    metric returned on this output (:func:`evalcore.io.spans.metric_span_table`, lenient), and
    the spans each ``xcomet:MODEL`` of ``span_metrics`` predicts on it."""
    if not (has_metric_spans(dataset) or span_metrics):
        return {}
    if span_metrics:
        from .. import neural

        frames = [neural.metric_spans(dataset, m, progress, outputs=[(system, seg_id)]) for m in span_metrics]
        if has_metric_spans(dataset):
            own = dataset.extras[METRIC_EXTRA]
            frames.insert(0, own[(own["system"].astype(str) == system) & (own["seg_id"].astype(str) == seg_id)])
        mt = metric_span_table(dataset, pd.concat(frames, ignore_index=True), strict=False)
    else:
        mt = metric_span_table(dataset, strict=False)
    its = mt.items[(mt.items["system"] == system) & (mt.items["seg_id"] == seg_id)]
    out = {}
    for item, metric in zip(its["item"], its["rater"]):
        mine = mt.spans[mt.spans["item"] == item]
        spans = [(int(a), int(b), sev, f"{metric}: {sev}" + (f": {cat}" if cat else ""))
                 for a, b, sev, cat, status in zip(mine["start"], mine["end"], mine["severity"], mine["category"],
                                                   mine["status"]) if status == "ok"]
        n_om = int((mine["status"] == "omission").sum())
        n_bad = int(mine["status"].isin(["out_of_range", "no_text"]).sum())
        note = []
        if n_om:
            note.append(f"{n_om} span(s) without a place in the text")
        if n_bad:
            note.append(f"{n_bad} span(s) out of range: not drawn, not scored")
        if not len(mine):
            note.append("no error marked")
        out[metric] = {"spans": spans, "note": "; ".join(note), "unusable": n_bad > 0}
    return out




def layers_for_html(layers: dict) -> list[tuple[str, list, str]]:
    """(label, spans, note) rows for :func:`evalcore.present.highlight.span_layers_html`: each rater,
    then each metric's marks."""
    rows = [(r["label"], r["spans"], r["note"]) for r in layers["raters"]]
    for mk, runs in layers["marks"].items():
        rows.append((S.MARKERS.get(mk, mk), [(a, b, "mark", S.MARKERS.get(mk, mk)) for a, b in runs],
                     "" if runs else "nothing marked"))
    for metric, layer in layers.get("metric_spans", {}).items():
        rows.append((f"{metric}: error spans the metric returned", layer["spans"], layer["note"]))
    return rows


# ---------------------------------------------------------------- profiles
def filter_options(dataset: Dataset) -> dict[str, list[str]]:
    """The severities, categories and raters present (for the page's filters)."""
    t = span_table(dataset)
    cats = t.spans["category"].fillna("").replace("", "(none)")
    return {"severity": sorted(set(t.spans["severity"])), "category": sorted(set(cats)),
            "rater": list(dict.fromkeys(t.items["rater"]))}


def profile(dataset: Dataset, by: str = "severity", severities=None, categories=None, raters=None,
            n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Errors per annotated segment of each system by ``by`` (severity or category) with 95%
    bootstrap CIs (:func:`evalcore.analysis.spans.error_profile`), after the filters."""
    t = span_table(dataset)
    if categories:
        categories = ["" if c == "(none)" else c for c in categories] + list(categories)
    return S.error_profile(t, by, n_boot=n_boot, seed=seed, severities=severities, categories=categories,
                           raters=raters)


def penalties(dataset: Dataset, metric_ids: Sequence[str], value: str = "count", severities=None,
              raters=None, settings: Settings = DEFAULTS) -> pd.DataFrame:
    """Per metric and error category: the correlation of the metric's segment scores with the
    number (or MQM weight) of that category's errors on the annotated outputs
    (:func:`evalcore.analysis.spans.category_penalties`; metric scores from the shared score tables)."""
    from ..scoring.scores import segment_scores

    t = span_table(dataset)
    if severities or raters:
        sp, it = t.spans, t.items
        if severities:
            sp = sp[sp["severity"].isin(list(severities))]
        if raters:
            it = it[it["rater"].isin(list(raters))]
            sp = sp[sp["item"].isin(set(it["item"]))]
        t = SpanTable(t.lp, it, sp, t.problems)
    sc = segment_scores(dataset, list(metric_ids), tokenize=settings.tokenizer)
    return S.category_penalties(dataset, sc[["system", "seg_id", "metric", "score"]], table=t, value=value)


# ---------------------------------------------------------------- teaching examples
def teaching_examples(dataset: Dataset, bleu: pd.DataFrame | None = None,
                      settings: Settings = DEFAULTS) -> dict:
    """Two outputs chosen from the data for the Learn tour: ``high_bleu_major`` — the output
    with the highest sentence BLEU among those a rater marked with a major (or critical) error
    span; ``low_bleu_clean`` — the output with the lowest BLEU among those annotated with no
    error at all. ``bleu``: system, seg_id, score (default: the shared BLEU segment scores).
    Each is a dict (system, seg_id, bleu, rater, text) or None when the data has none."""
    t = span_table(dataset)
    if t.items.empty:
        return {"high_bleu_major": None, "low_bleu_clean": None}
    if bleu is None:
        from ..scoring.scores import segment_scores

        bleu = segment_scores(dataset, ["bleu"], tokenize=settings.tokenizer)
    b = bleu.assign(seg_id=bleu["seg_id"].astype(str)).set_index(["system", "seg_id"])["score"]
    b = b[~b.index.duplicated()]
    texts = S._texts(dataset)
    sp = t.spans
    major_items = set(sp.loc[sp["severity"].isin(["major", "critical"]) & (sp["status"] == "ok"), "item"])
    it = t.items.assign(bleu=[b.get((s, g), np.nan) for s, g in zip(t.items["system"], t.items["seg_id"])])
    it = it[np.isfinite(it["bleu"].to_numpy(float))]
    it = it[[(s, g) in texts for s, g in zip(it["system"], it["seg_id"])]]

    def pick(rows, highest):
        if rows.empty:
            return None
        rows = rows.sort_values(["bleu", "system", "seg_id"], ascending=[not highest, True, True], kind="stable")
        r = rows.iloc[0]
        return {"system": r["system"], "seg_id": r["seg_id"], "bleu": float(r["bleu"]), "rater": r["rater"],
                "text": texts[(r["system"], r["seg_id"])], "item": int(r["item"])}
    return {"high_bleu_major": pick(it[it["item"].isin(major_items)], True),
            "low_bleu_clean": pick(it[it["n_spans"] == 0], False)}


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class SpansQuery(Query):
    """Human error spans: one output's layers, or the profiles and penalties under filters."""
    system: str | None = None
    seg_id: str | None = None
    metrics: tuple[str, ...] = ()  # xcomet:MODEL span metrics (layers) or metrics (penalties)
    severities: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    raters: tuple[str, ...] = ()
    by: str = "severity"
    value: str = "count"
    markers: tuple[str, ...] = ("bleu", "chrf", "ter")


def layers(dataset: Dataset, q: SpansQuery, progress=None) -> dict:
    """:func:`evalcore.views.spans.output_layers` of one output (``progress(done, total)`` while
    an xcomet metric of ``q.metrics`` predicts spans)."""
    return output_layers(dataset, chosen(q.system, "a system"), chosen(q.seg_id, "a segment"), markers=q.markers,
                         settings=q.settings, span_metrics=q.metrics, progress=progress)


def span_profile(dataset: Dataset, q: SpansQuery) -> pd.DataFrame:
    return profile(dataset, q.by, list(q.severities) or None, list(q.categories) or None, list(q.raters) or None,
                   n_boot=1000)


def span_profile_figure(profile: pd.DataFrame, q: SpansQuery):
    from ..present import plots_spans

    return plots_spans.profile_bars(profile, q.by)


def span_penalties(dataset: Dataset, q: SpansQuery) -> pd.DataFrame:
    return penalties(dataset, list(q.metrics), value=q.value, severities=list(q.severities) or None,
                     raters=list(q.raters) or None, settings=q.settings)
