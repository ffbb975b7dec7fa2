"""Divergence browser: per-(system, segment) signals (metric scores, human scores, QUEEN),
the rank-normalised disagreement of two signals, and the detail of one segment (matched
n-grams on both sides).

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress, stage
from ..scoring.defaults import orientation
from ..scoring.scores import human_segment_scores, queen_index, segment_scores
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from .queries import Query


#: Above this many system outputs the browser starts with BLEU alone as its metric signal and
#: offers chrF one click away (chrF adds 1.1 CPU s to BLEU's 1.4 on WMT24 en-cs, cold, with
#: main's kernels of 23 Nov 2026; it was 3.9 vs 1.8 s before them).
FIRST_METRICS_ABOVE = 5000


def first_metrics(dataset: Dataset, defaults: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the metric signals a first visit scores, the ones it offers to add) among ``defaults``
    (BLEU and chrF): both up to :data:`FIRST_METRICS_ABOVE` outputs, else BLEU first."""
    defaults = list(defaults)
    if len(dataset.outputs) <= FIRST_METRICS_ABOVE or "bleu" not in defaults:
        return defaults, []
    return ["bleu"], [m for m in defaults if m != "bleu"]


def signal_table(dataset: Dataset, metric_ids: Sequence[str], criteria: Sequence[str] = (),
                 queen_set: Sequence[str] | None = None, normalisation: str = "raw",
                 per_rater: bool = True, mode: str = "auto", progress: Progress = None,
                 settings: Settings = DEFAULTS) -> pd.DataFrame:
    """One row per (system, seg_id) output, one column per signal:

    * ``metric:<id>`` multi-reference segment score (own scale);
    * ``human:<criterion>`` aggregated (normalised) human score;
    * ``judge:<criterion>:<rater>`` each rater's raw score (judge vs judge);
    * ``queen:<a,b,...>`` QUEEN of the set (methods §1.2);

    plus ``tags`` (phenomenon tags joined by ", "), ``src_len`` / ``out_len`` (whitespace tokens).
    ``settings.tokenizer``: the word-level metrics' tokenizer (None: the metric's default).
    """
    sys_t = dataset.sys_texts()
    seg_ids = dataset.seg_ids
    rows_sys, rows_seg, out_len = [], [], []
    for name, texts in sys_t.items():
        for s, t in zip(seg_ids, texts):
            if t is not None:
                rows_sys.append(name)
                rows_seg.append(s)
                out_len.append(len(t.split()))
    base = pd.DataFrame({"system": rows_sys, "seg_id": rows_seg, "out_len": out_len})
    src_len = dict(zip(dataset.segments["seg_id"], [len(s.split()) if isinstance(s, str) else 0
                                                          for s in dataset.segments["source"]]))
    base["src_len"] = base["seg_id"].map(src_len).fillna(0).astype(int)
    if len(dataset.tags):
        tg = dataset.tags.assign(seg_id=dataset.tags["seg_id"].astype(str)).groupby(
            ["system", "seg_id"], sort=False)["tag"].agg(lambda s: ", ".join(dict.fromkeys(s)))
        base = base.merge(tg.rename("tags").reset_index(), on=["system", "seg_id"], how="left")
        base["tags"] = base["tags"].fillna("")
    else:
        base["tags"] = ""
    key = ["system", "seg_id"]
    if metric_ids:
        sc = segment_scores(dataset, metric_ids, progress=stage(progress, 0.0, 0.6), tokenize=settings.tokenizer)
        wide = sc.pivot_table(index=key, columns="metric", values="score", sort=False)
        wide.columns = [f"metric:{c}" for c in wide.columns]
        base = base.merge(wide.reset_index(), on=key, how="left")
    for crit in criteria:
        h = human_segment_scores(dataset, crit, normalisation, include_references=False)
        base = base.merge(h[key + ["score"]].rename(columns={"score": f"human:{crit}"}), on=key, how="left")
        if per_rater:
            from ..human.scores import criterion_judgements

            j = criterion_judgements(dataset, crit)
            raters = list(dict.fromkeys(j["rater"]))
            if len(raters) > 1:
                jj = j.assign(seg_id=j["seg_id"].astype(str)).groupby(key + ["rater"], sort=False)["score"].mean()
                jw = jj.unstack("rater")
                jw.columns = [f"judge:{crit}:{r}" for r in jw.columns]
                base = base.merge(jw.reset_index(), on=key, how="left")
    if queen_set:
        idx = queen_index(dataset, list(queen_set), mode=mode, progress=stage(progress, 0.6, 0.95),
                          tokenize=settings.tokenizer)
        q = idx.values(list(queen_set)).to_frame()[["system", "seg_id", "queen"]]
        q["seg_id"] = q["seg_id"].astype(str)
        base = base.merge(q.rename(columns={"queen": "queen:" + ",".join(queen_set)}), on=key, how="left")
    if progress:
        progress(1.0, "signals ready")
    return base


def signal_orientation(column: str) -> float:
    """+1 when a higher value of the signal means a better output (error-rate metrics: −1)."""
    kind, _, rest = column.partition(":")
    return orientation(rest) if kind == "metric" else 1.0


def rank_normalise(values: np.ndarray, orientation: float = 1.0) -> np.ndarray:
    """Mid-rank percentile in [0, 1] of each finite value (higher = better after orientation);
    NaN stays NaN. r = (rank − 1)/(n − 1) with average ranks for ties (0.5 when n = 1)."""
    x = np.asarray(values, dtype=float) * orientation
    out = np.full(len(x), np.nan)
    ok = np.isfinite(x)
    n = int(ok.sum())
    if n == 0:
        return out
    if n == 1:
        out[ok] = 0.5
        return out
    # pandas' average ranks (= scipy.stats.rankdata(method="average"), pinned in the tests):
    # the first view of the divergence browser then needs no scipy.stats import (~1 s cold)
    ranks = pd.Series(x[ok]).rank(method="average").to_numpy(float)
    out[ok] = (ranks - 1.0) / (n - 1.0)
    return out


def divergence_table(signals: pd.DataFrame, a: str, b: str, systems: Sequence[str] | None = None,
                     tags: Sequence[str] | None = None, length: tuple[int, ...] | None = None,
                     a_range: tuple[float, ...] | None = None, b_range: tuple[float, ...] | None = None,
                     direction: str = "both") -> pd.DataFrame:
    """(system, segment) pairs ranked by disagreement between signals ``a`` and ``b``.

    Both signals are rank-normalised over the rows where both exist (:func:`rank_normalise`,
    orientation-aware), then ``divergence`` = rank_a − rank_b (> 0: ``a`` likes the output more
    than ``b``) and rows are sorted by |divergence| (``direction`` "a_higher" / "b_higher" keeps one
    sign). Filters (applied before ranking): ``systems``, ``tags`` (any of them), source
    ``length`` range (tokens), raw-value ranges of ``a`` and ``b``.
    Columns: system, seg_id, tags, src_len, a, b, rank_a, rank_b, divergence.
    """
    if a not in signals or b not in signals:
        raise KeyError(f"unknown signal {a if a not in signals else b!r}")
    df = signals
    mask = np.isfinite(df[a].to_numpy(float)) & np.isfinite(df[b].to_numpy(float))
    if systems:
        mask &= df["system"].isin(list(systems)).to_numpy()
    if tags:
        pat = set(tags)
        mask &= df["tags"].map(lambda s: bool(pat.intersection(t.strip() for t in s.split(","))) if s else False).to_numpy()
    if length is not None:
        mask &= ((df["src_len"] >= length[0]) & (df["src_len"] <= length[1])).to_numpy()
    if a_range is not None:
        mask &= ((df[a] >= a_range[0]) & (df[a] <= a_range[1])).to_numpy()
    if b_range is not None:
        mask &= ((df[b] >= b_range[0]) & (df[b] <= b_range[1])).to_numpy()
    sub = df.loc[mask, ["system", "seg_id", "tags", "src_len", a, b]]
    ra = rank_normalise(sub[a].to_numpy(float), signal_orientation(a))
    rb = rank_normalise(sub[b].to_numpy(float), signal_orientation(b))
    out = pd.DataFrame({"system": sub["system"].to_numpy(), "seg_id": sub["seg_id"].to_numpy(),
                        "tags": sub["tags"].to_numpy(), "src_len": sub["src_len"].to_numpy(),
                        "a": sub[a].to_numpy(float), "b": sub[b].to_numpy(float),
                        "rank_a": ra, "rank_b": rb, "divergence": ra - rb})
    if direction == "a_higher":
        out = out[out["divergence"] > 0]
    elif direction == "b_higher":
        out = out[out["divergence"] < 0]
    order = np.argsort(-np.abs(out["divergence"].to_numpy()), kind="stable")
    return out.iloc[order].reset_index(drop=True)


def pick_options(rows: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(system, seg_id) -> the label of that output in the browser's "Output" selector, in table
    order: the options are the rows themselves, not their positions."""
    return {(str(s), str(g)): f"{s} · segment {g} · divergence {d:+.2f}"
            for s, g, d in zip(rows["system"], rows["seg_id"], rows["divergence"])}


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
_KEY = ["system", "seg_id"]


@dataclass(frozen=True)
class DivergenceQuery(Query):
    metrics: tuple[str, ...] = ()
    criteria: tuple[str, ...] = ()
    queen_set: tuple[str, ...] = ()
    normalisation: str = "raw"
    a: str = ""
    b: str = ""
    direction: str = "both"
    systems: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    length: tuple[int, ...] = ()
    range_a: tuple[float, ...] = ()
    range_b: tuple[float, ...] = ()
    focus: bool = False
    system: str | None = None
    seg_id: str | None = None
    signature: str = ""


def divergence_base(dataset: Dataset, q: DivergenceQuery) -> pd.DataFrame:
    """The outputs with their lengths, tags and human/judge signals (no metric: cheap)."""
    return signal_table(dataset, [], list(q.criteria), [], q.normalisation)


def divergence_metric(dataset: Dataset, q: DivergenceQuery, progress: Progress = None) -> pd.DataFrame:
    """The one metric of ``q`` as a signal column (its segment scores: the shared cached statistics)."""
    metric = q.metrics[0]
    t = signal_table(dataset, [metric], [], [], progress=progress, settings=q.settings)
    return t[_KEY + [c for c in t.columns if c == f"metric:{metric}"]]


def divergence_queen(dataset: Dataset, q: DivergenceQuery, progress: Progress = None) -> pd.DataFrame:
    """QUEEN of ``q.queen_set`` as a signal column."""
    t = signal_table(dataset, [], [], list(q.queen_set), progress=progress, settings=q.settings)
    return t[_KEY + [c for c in t.columns if c.startswith("queen:")]]


def divergence_human_figure(base: pd.DataFrame, q: DivergenceQuery):
    """The human scores of signal ``q.b`` by system (the page's first figure)."""
    from ..present import plots as P

    return P.signal_by_system(base, q.b, f"Human scores of each system's outputs ({q.b.split(':', 1)[1]}, "
                                         f"{q.normalisation})")


def divergence_ranked(signals: pd.DataFrame, q: DivergenceQuery) -> pd.DataFrame:
    """:func:`evalcore.views.divergence.divergence_table` of ``signals`` with the filters of ``q``."""
    return divergence_table(signals, q.a, q.b, list(q.systems), list(q.tags), tuple(q.length), tuple(q.range_a),
                            tuple(q.range_b), q.direction)


def divergence_scatter(shown: pd.DataFrame, q: DivergenceQuery):
    from ..present import plots as P

    return P.with_signature(P.divergence_scatter(shown, q.a, q.b), q.signature)


def divergence_detail(dataset_and_signals: tuple, q: DivergenceQuery) -> dict:
    """Everything about output (``q.system``, ``q.seg_id``) (:func:`evalcore.analysis.detail.segment_detail`)."""
    from ..analysis.detail import segment_detail

    dataset, signals = dataset_and_signals
    if q.system is None or q.seg_id is None:
        raise ValueError("choose an output (a system and a segment) to see it in detail")
    return segment_detail(dataset, q.system, q.seg_id, signals, settings=q.settings)
