"""Span-level meta-evaluation: the characters a metric marks in an output against the characters
human raters marked as errors (ESA, MQM; :mod:`evalcore.io.spans`), and error profiles.

**What a metric marks** (:func:`metric_marks`; character offsets into the output text):

* ``bleu`` — the output tokens (sacreBLEU tokenizer of the target language) covered by no
  matched n-gram (n ≤ 4, counts clipped per reference, left to right) of any reference: the
  tokens BLEU's modified precision gets nothing for (Papineni et al. 2002 §2.1; the matches
  are :func:`evalcore.metrics.engine.ngram_breakdown`'s, those the Divergence page highlights);
* ``chrf`` — the non-space characters covered by no matched character n-gram (n ≤ 6, spaces
  removed, clipped per reference, left to right) of any reference (Popović 2015 §2);
* ``ter`` — the output words TER edits: words of a shifted block, and words substituted or
  inserted in the final alignment after the shifts (Snover et al. 2006 §2; sacreBLEU's Tercom
  port: greedy shifts, beam edit distance). Deleted reference words have no place in the output
  and are not marked (as human omissions are not spans).

**Precision, recall, F1** (docs/methods.md §5.13): per annotation i (one rater's reading of one
output), H_i = the non-whitespace character positions inside the rater's usable spans of the
chosen severity, M_i = the non-whitespace positions the marker marks; tp_i = |H_i ∩ M_i|.
Micro: P = Σtp/Σ|M|, R = Σtp/Σ|H|, F1 = 2Σtp/(Σ|M| + Σ|H|). Macro: the means over annotations of
P_i (those with |M_i| > 0), R_i (|H_i| > 0) and F1_i = 2tp_i/(|M_i| + |H_i|) (those with either
non-empty). CIs: the percentile bootstrap over annotations (:mod:`evalcore.stats.bootstrap`).
A metric that returns error spans itself (xCOMET; :func:`metric_span_counts`) is a marker
too: M_i = the characters inside its spans on the output (any severity).
The human ceiling (:func:`rater_pairs`) is the same with another annotation's spans of the
same severity as the marks, over every ordered pair of annotations of one output: different
raters (inter-rater) or one rater twice (intra-rater).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ..io.spans import SpanTable, dataset_spans
from ..scoring.settings import DEFAULTS, Settings

MARKERS = {"bleu": "BLEU: tokens without any n-gram match",
           "chrf": "chrF: characters without any character n-gram match",
           "ter": "TER: words shifted, substituted or inserted"}
SEVERITY_FILTERS = ("minor", "major", "all")


# ---------------------------------------------------------------- what a metric marks
def token_offsets(text: str, tokens: Sequence[str], lowercase: bool = False) -> list[tuple[int, int] | None]:
    """Character [start, end) of each token in ``text``, found left to right (None when a
    token is not a substring of the text, e.g. a tokenizer's rewritten quote)."""
    hay = text.lower() if lowercase and len(text.lower()) == len(text) else text
    pos = 0
    out: list[tuple[int, int] | None] = []
    for t in tokens:
        j = hay.find(t, pos)
        if j < 0:
            out.append(None)
            continue
        out.append((j, j + len(t)))
        pos = j + len(t)
    return out


def _chars(text: str, spans) -> set[int]:
    return {i for a, b in spans if a is not None for i in range(int(a), int(b)) if not text[i].isspace()}


def bleu_marks(text: str, refs: Sequence[str], tokenize: str = "13a", max_order: int = 4) -> set[int]:
    """Character positions of the tokens of ``text`` that no matched n-gram of any reference covers."""
    from ..metrics.engine import ngram_breakdown

    if not refs:
        return set()
    bd = ngram_breakdown(text, list(refs), tokenize=tokenize, max_order=max_order)
    covered: set[int] = set()
    for pr in bd["per_reference"]:
        for a, b in pr["token_spans"]:
            covered.update(range(a, b))
    offs = token_offsets(text, bd["cand_tokens"])
    return _chars(text, [o for k, o in enumerate(offs) if k not in covered and o is not None])


def _covered_chars(cand: str, ref: str, max_order: int) -> set[int]:
    """Indices (into ``cand``) covered by a clipped, left-to-right character n-gram match with ``ref``."""
    covered: set[int] = set()
    for n in range(1, max_order + 1):
        rc = Counter(ref[p:p + n] for p in range(len(ref) - n + 1))
        for p in range(len(cand) - n + 1):
            g = cand[p:p + n]
            if rc.get(g, 0) > 0:
                rc[g] -= 1
                covered.update(range(p, p + n))
    return covered


def chrf_marks(text: str, refs: Sequence[str], max_order: int = 6) -> set[int]:
    """Non-space character positions of ``text`` covered by no matched character n-gram
    (n ≤ ``max_order``, spaces removed as chrF removes them) of any reference."""
    if not refs:
        return set()
    where = [i for i, c in enumerate(text) if not c.isspace()]
    cand = "".join(text[i] for i in where)
    covered: set[int] = set()
    for r in refs:
        covered |= _covered_chars(cand, "".join(c for c in r if not c.isspace()), max_order)
    return {where[k] for k in range(len(cand)) if k not in covered}


class _Word(str):
    """A token that remembers its position in the output (survives TER's shifts)."""
    __slots__ = ("idx",)
    idx: int


def ter_marks(text: str, refs: Sequence[str]) -> set[int]:
    """Character positions of the output words TER edits against its closest reference (the
    one with the fewest edits): shifted, substituted or inserted words (module docstring)."""
    from sacrebleu.metrics import lib_ter

    from ..metrics.ter import TER

    if not refs:
        return set()
    ter = TER()
    toks = list(ter.tokens(text))
    offs = token_offsets(text, toks, lowercase=not ter.case_sensitive)
    best: tuple[int, set[int]] | None = None
    for ref in refs:
        words_r = list(ter.tokens(ref))
        hyp: list[Any] = []  # _Word tokens (str with their position), where the TER library takes str
        for k, t in enumerate(toks):
            w = _Word(t)
            w.idx = k
            hyp.append(w)
        marked: set[int] = set()
        if not words_r:
            cost, marked = len(hyp), set(range(len(hyp)))
        else:
            cached = lib_ter.BeamEditDistance(words_r)
            cur, checked, shifts = hyp, 0, 0
            while True:
                delta, new, checked = lib_ter._shift(cur, words_r, cached, checked)
                if checked >= lib_ter._MAX_SHIFT_CANDIDATES or delta <= 0:
                    break
                marked |= _shifted_block(cur, new)
                shifts += 1
                cur = new
            dist, trace = cached(cur)
            _, _, hyp_err = lib_ter.trace_to_alignment(lib_ter._flip_trace(trace))
            marked |= {cur[p].idx for p, e in enumerate(hyp_err) if e}
            cost = dist + shifts
        if best is None or cost < best[0]:
            best = (cost, marked)
    if best is None:  # (no reference: returned above)
        return set()
    return _chars(text, [o for k in best[1] if (o := offs[k]) is not None])


def _shifted_block(before: list, after: list) -> set[int]:
    """Token positions (``idx``) of the block one TER shift moved: the differing middle of the
    two orders is a rotation A+B → B+A; the shorter side is taken as the moved block (a shift
    moves at most 10 words)."""
    i = 0
    while i < len(before) and before[i] is after[i]:
        i += 1
    j = len(before)
    while j > i and before[j - 1] is after[j - 1]:
        j -= 1
    mid_b, mid_a = before[i:j], after[i:j]
    if not mid_b:
        return set()
    # after = B + A with before = A + B: A starts at mid_b[0]
    cut = next((k for k, w in enumerate(mid_a) if w is mid_b[0]), len(mid_a))
    block_b, block_a = mid_a[:cut], mid_a[cut:]
    block = block_b if len(block_b) <= len(block_a) else block_a
    return {w.idx for w in block}


def metric_marks(marker: str, text: str, refs: Sequence[str], tokenize: str = "13a") -> set[int]:
    """The characters ``marker`` (``bleu``, ``chrf`` or ``ter``) marks in ``text``."""
    if marker == "bleu":
        return bleu_marks(text, refs, tokenize)
    if marker == "chrf":
        return chrf_marks(text, refs)
    if marker == "ter":
        return ter_marks(text, refs)
    raise ValueError(f"no span marks for metric {marker!r}; available: {', '.join(MARKERS)}")


# ---------------------------------------------------------------- precision / recall / F1
def _severity_mask(spans: pd.DataFrame, severity: str) -> np.ndarray:
    if severity == "all":
        return np.ones(len(spans), dtype=bool)
    return (spans["severity"] == severity).to_numpy()


def human_chars(table: SpanTable, texts: dict, severity: str = "all") -> dict[int, set[int]]:
    """item -> the non-whitespace character positions of its usable target spans of ``severity``."""
    sp = table.usable("target")
    sp = sp[_severity_mask(sp, severity)]
    out: dict[int, set[int]] = {}
    for item, system, seg, a, b in zip(sp["item"], sp["system"], sp["seg_id"], sp["start"], sp["end"]):
        text = texts.get((system, seg))
        if text is not None:
            out.setdefault(int(item), set()).update(_chars(text, [(a, b)]))
    return out


def prf_counts(marks: Sequence[set[int]], truth: Sequence[set[int]]) -> np.ndarray:
    """(n, 3) array of tp, |M|, |H| per item."""
    return np.array([[len(m & h), len(m), len(h)] for m, h in zip(marks, truth)], dtype=float).reshape(-1, 3)


def prf(counts: np.ndarray) -> dict[str, float]:
    """Micro and macro precision, recall, F1 of per-item (tp, |M|, |H|) counts (module docstring)."""
    c = np.asarray(counts, dtype=float).reshape(-1, 3)
    tp, m, h = c[:, 0], c[:, 1], c[:, 2]
    out = {}
    out["micro_precision"] = tp.sum() / m.sum() if m.sum() else np.nan
    out["micro_recall"] = tp.sum() / h.sum() if h.sum() else np.nan
    out["micro_f1"] = 2 * tp.sum() / (m.sum() + h.sum()) if (m.sum() + h.sum()) else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        p_i = np.where(m > 0, tp / np.where(m > 0, m, 1), np.nan)
        r_i = np.where(h > 0, tp / np.where(h > 0, h, 1), np.nan)
        f_i = np.where(m + h > 0, 2 * tp / np.where(m + h > 0, m + h, 1), np.nan)
    for k, v in (("precision", p_i), ("recall", r_i), ("f1", f_i)):
        out[f"macro_{k}"] = float(np.nanmean(v)) if np.isfinite(v).any() else np.nan
    return {k: float(v) for k, v in out.items()}


def prf_bootstrap(counts: np.ndarray, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0) -> dict[str, tuple[float, float]]:
    """Percentile-bootstrap CIs (resampling items; :func:`evalcore.stats.bootstrap.resample_indices`)
    of every value of :func:`prf`: the same draws for all of them."""
    from ..stats.bootstrap import index_counts, percentile_ci, resample_indices

    c = np.asarray(counts, dtype=float).reshape(-1, 3)
    n = len(c)
    keys = [f"{a}_{b}" for a in ("micro", "macro") for b in ("precision", "recall", "f1")]
    if n == 0 or n_boot <= 0:
        return {k: (np.nan, np.nan) for k in keys}
    w = index_counts(resample_indices(n, n_boot, seed), n)  # (n_boot, n) multiplicities
    tp, m, h = c[:, 0], c[:, 1], c[:, 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        T, M, Hs = w @ tp, w @ m, w @ h
        samples = {"micro_precision": T / M, "micro_recall": T / Hs, "micro_f1": 2 * T / (M + Hs)}
        for name, val, ok in (("precision", tp / np.where(m > 0, m, 1), m > 0),
                              ("recall", tp / np.where(h > 0, h, 1), h > 0),
                              ("f1", 2 * tp / np.where(m + h > 0, m + h, 1), m + h > 0)):
            samples[f"macro_{name}"] = (w @ np.where(ok, val, 0.0)) / (w @ ok.astype(float))
    out = {}
    for k in keys:
        s = samples[k]
        s = s[np.isfinite(s)]
        lo, hi = percentile_ci(s, alpha) if len(s) else (np.nan, np.nan)
        out[k] = (float(lo), float(hi))
    return out


def _texts(dataset) -> dict[tuple[str, str], str]:
    from ..io.spans import _texts as t

    return t(dataset)


def _scorable_items(table: SpanTable, texts: dict) -> pd.DataFrame:
    """Annotations of outputs with text whose spans all lie inside the text (an annotation with
    a span out of range is left out whole: its other characters would count as "no error")."""
    it = table.items[[(s, g) in texts for s, g in zip(table.items["system"], table.items["seg_id"])]]
    bad = set(table.spans.loc[table.spans["status"].isin(["out_of_range", "no_text"]), "item"].astype(int))
    return it[~it["item"].astype(int).isin(bad)] if bad else it


def _refs_for(dataset, system: str, seg: str) -> list[str]:
    pos = dataset._cache.setdefault("spans_pos", {s: i for i, s in enumerate(dataset.seg_ids)})
    i = pos.get(seg)
    if i is None:
        return []
    return [t[i] for r, t in dataset.ref_texts().items() if r != system and t[i] is not None]


def item_counts(dataset, markers: Sequence[str], severities: Sequence[str] = SEVERITY_FILTERS,
                settings: Settings = DEFAULTS, table: SpanTable | None = None,
                progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """One row per (annotation item, marker, severity): tp, marked, errors (character counts).
    Items are the annotations of outputs with text and at least one reference other than the
    rated text itself (a judged reference is scored against the other references); the bleu
    marker tokenizes with ``settings.tokenizer`` (None: sacreBLEU's default for the target
    language)."""
    from ..metrics.tokenize import default_tokenizer

    tokenize = settings.tokenizer or default_tokenizer(dataset.lp)
    table = table or dataset_spans(dataset)
    texts = _texts(dataset)
    items = _scorable_items(table, texts)
    truths = {sev: human_chars(table, texts, sev) for sev in severities}
    outputs = list(dict.fromkeys(zip(items["system"], items["seg_id"])))
    marks: dict[tuple[str, str, str], set[int]] = {}
    for k, (system, seg) in enumerate(outputs):
        refs = _refs_for(dataset, system, seg)
        if not refs:
            continue
        for mk in markers:
            marks[(mk, system, seg)] = metric_marks(mk, texts[(system, seg)], refs, tokenize)
        if progress and k % 50 == 0:
            progress(k / max(len(outputs), 1), f"marking outputs {k:,}/{len(outputs):,}")
    pairs = ((item, system, seg, rater, mk) for item, system, seg, rater in
             zip(items["item"], items["system"], items["seg_id"], items["rater"]) for mk in markers)
    return _count_rows(pairs, marks, truths, severities)


def metric_span_counts(dataset, severities: Sequence[str] = SEVERITY_FILTERS, table: SpanTable | None = None,
                       metric_table: SpanTable | None = None) -> pd.DataFrame:
    """:func:`item_counts` rows for the spans metrics returned themselves (e.g. xCOMET's error
    spans; :func:`evalcore.io.spans.metric_span_table`, by default the dataset's
    ``metric_spans`` extra table): marker = the metric, M_i = the non-whitespace characters
    inside the metric's usable spans on the output (any severity: the metric's spans are marks,
    as BLEU's unmatched tokens are; the severity filter applies to the human spans). Only
    annotations of outputs the metric scored count (an output with a metric row, a ``no-error``
    row included); a metric's output with a span out of range or without text is left out
    whole, as a human annotation is."""
    from ..io.spans import metric_span_table

    table = table or dataset_spans(dataset)
    mt = metric_table if metric_table is not None else metric_span_table(dataset)
    texts = _texts(dataset)
    items = _scorable_items(table, texts)
    scored = _scorable_items(mt, texts)
    marks: dict[tuple[str, str, str], set[int]] = {(m, s, g): set() for m, s, g in
                                                   zip(scored["rater"], scored["system"], scored["seg_id"])}
    use = mt.usable("target")
    for m, s, g, a, b in zip(use["rater"], use["system"], use["seg_id"], use["start"], use["end"]):
        if (m, s, g) in marks:
            marks[(m, s, g)] |= _chars(texts[(s, g)], [(a, b)])
    truths = {sev: human_chars(table, texts, sev) for sev in severities}
    pairs = ((item, system, seg, rater, metric) for metric in dict.fromkeys(scored["rater"]) for item, system, seg, rater
             in zip(items["item"], items["system"], items["seg_id"], items["rater"]))
    return _count_rows(pairs, marks, truths, severities)


def _count_rows(pairs, marks: dict, truths: dict, severities: Sequence[str]) -> pd.DataFrame:
    """The :func:`item_counts` table: for each (item, system, seg_id, rater, marker) whose marker
    marked that output (``marks``), one row per severity with tp = |M ∩ H|, marked = |M|,
    errors = |H| (``truths``: severity -> item -> human error characters)."""
    rows = []
    for item, system, seg, rater, mk in pairs:
        m = marks.get((mk, system, seg))
        if m is None:
            continue
        for sev in severities:
            h = truths[sev].get(int(item), set())
            rows.append([int(item), system, seg, rater, mk, sev, len(m & h), len(m), len(h)])
    return pd.DataFrame(rows, columns=["item", "system", "seg_id", "rater", "marker", "severity", "tp", "marked",
                                       "errors"])


def rater_pairs(dataset, severities: Sequence[str] = SEVERITY_FILTERS, table: SpanTable | None = None) -> pd.DataFrame:
    """The human ceiling's counts: one row per ordered pair of annotations of one output (a's
    spans as marks, b's as truth), per severity. Marker ``rater``: two different raters (the
    inter-rater ceiling); ``rater-self``: the same rater annotating the output twice (WMT24 ESA
    has only these: an intra-rater ceiling)."""
    table = table or dataset_spans(dataset)
    texts = _texts(dataset)
    it = _scorable_items(table, texts)
    rows = []
    truths = {sev: human_chars(table, texts, sev) for sev in severities}
    for (system, seg), grp in it.groupby(["system", "seg_id"], sort=False):
        if len(grp) < 2:
            continue
        for ia, ra in zip(grp["item"], grp["rater"]):
            for ib, rb in zip(grp["item"], grp["rater"]):
                if ia == ib:
                    continue
                marker = "rater" if ra != rb else "rater-self"
                for sev in severities:
                    m = truths[sev].get(int(ia), set())
                    h = truths[sev].get(int(ib), set())
                    rows.append([int(ib), system, seg, f"{ra}→{rb}", marker, sev, len(m & h), len(m), len(h)])
    return pd.DataFrame(rows, columns=["item", "system", "seg_id", "rater", "marker", "severity", "tp", "marked",
                                       "errors"])


def span_scores(counts: pd.DataFrame, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """Precision, recall and F1 (micro and macro, with bootstrap CIs) per marker and severity
    from :func:`item_counts` / :func:`rater_pairs` rows."""
    rows = []
    for (mk, sev), g in counts.groupby(["marker", "severity"], sort=False):
        c = g[["tp", "marked", "errors"]].to_numpy(float)
        point = prf(c)
        ci = prf_bootstrap(c, n_boot, alpha, seed)
        for avg in ("micro", "macro"):
            row = {"marker": mk, "severity": sev, "average": avg, "items": len(g),
                   "marked_chars": int(c[:, 1].sum()), "error_chars": int(c[:, 2].sum())}
            for k in ("precision", "recall", "f1"):
                row[k] = point[f"{avg}_{k}"]
                row[f"{k}_lo"], row[f"{k}_hi"] = ci[f"{avg}_{k}"]
            rows.append(row)
    cols = ["marker", "severity", "average", "precision", "precision_lo", "precision_hi", "recall", "recall_lo",
            "recall_hi", "f1", "f1_lo", "f1_hi", "items", "marked_chars", "error_chars"]
    return pd.DataFrame(rows, columns=cols)


# ---------------------------------------------------------------- error profiles
def error_profile(table: SpanTable, by: str = "severity", n_boot: int = 1000, alpha: float = 0.05,
                  seed: int = 0, severities: Sequence[str] | None = None, categories: Sequence[str] | None = None,
                  raters: Sequence[str] | None = None) -> pd.DataFrame:
    """Errors per annotated segment for each system, split by ``by`` (``severity`` or
    ``category``; every span counts, omissions included), with percentile-bootstrap CIs over
    the system's annotations. Filters keep only spans of those severities / categories and
    annotations of those raters. Columns: system, <by>, errors_per_segment, lo, hi, errors, items."""
    from ..stats.bootstrap import index_counts, percentile_ci, resample_indices

    items, sp = table.items, table.spans
    if raters:
        items = items[items["rater"].isin(list(raters))]
        sp = sp[sp["rater"].isin(list(raters))]
    if severities:
        sp = sp[sp["severity"].isin(list(severities))]
    if categories:
        sp = sp[sp["category"].isin(list(categories))]
    key = sp[by].fillna("").replace("", "(none)") if len(sp) else sp[by]
    sp = sp.assign(_k=key)
    rows = []
    for system, its in items.groupby("system", sort=False):
        n = len(its)
        pos = {int(i): k for k, i in enumerate(its["item"])}
        sub = sp[sp["item"].isin(pos)]
        w = index_counts(resample_indices(n, n_boot, seed), n) if n_boot > 0 and n else None
        for level, g in sub.groupby("_k", sort=True):
            per = np.bincount([pos[int(i)] for i in g["item"]], minlength=n).astype(float)
            mean = per.mean()
            lo, hi = (percentile_ci((w @ per) / n, alpha) if w is not None else (np.nan, np.nan))
            rows.append([system, level, float(mean), float(lo), float(hi), int(per.sum()), n])
    return pd.DataFrame(rows, columns=["system", by, "errors_per_segment", "lo", "hi", "errors", "items"])


def category_penalties(dataset, metric_scores: pd.DataFrame, table: SpanTable | None = None,
                       value: str = "count") -> pd.DataFrame:
    """Which error categories each metric penalises: over the annotated (system, segment)
    outputs, the Pearson and Spearman correlation of the metric's segment score with the
    number (``value="count"``) or the summed MQM weight (``"weight"``) of the errors of each
    category (mean over the output's annotations). ``metric_scores``: system, seg_id, metric,
    score. Negative correlations = the metric gives lower scores where the category occurs."""
    from scipy import stats

    table = table or dataset_spans(dataset)
    it, sp = table.items, table.spans
    if it.empty:
        return pd.DataFrame(columns=["metric", "category", "pearson", "spearman", "outputs", "with_category"])
    raw = sp["category"].fillna("").astype(str)
    cat = pd.Series(np.where(raw == "", "(" + sp["severity"].astype(str) + ")", raw), index=sp.index)
    sp = sp.assign(_c=cat, _v=1.0 if value == "count" else sp["weight"].fillna(0.0))
    per_item = sp.pivot_table(index="item", columns="_c", values="_v", aggfunc="sum", fill_value=0.0)
    per_item = per_item.reindex(it["item"], fill_value=0.0)
    per_item.index = pd.MultiIndex.from_arrays([it["system"].to_numpy(), it["seg_id"].to_numpy()],
                                               names=["system", "seg_id"])
    per_out = per_item.groupby(level=[0, 1], sort=False).mean()
    rows = []
    for metric, ms in metric_scores.groupby("metric", sort=False):
        s = ms.assign(seg_id=ms["seg_id"].astype(str)).set_index(["system", "seg_id"])["score"]
        s = s[~s.index.duplicated()]
        joined = per_out.join(s.rename("_score"), how="inner")
        joined = joined[np.isfinite(joined["_score"].to_numpy(float))]
        for c in per_out.columns:
            x, y = joined[c].to_numpy(float), joined["_score"].to_numpy(float)
            ok = len(x) > 2 and np.std(x) > 0 and np.std(y) > 0
            rows.append([metric, c, float(stats.pearsonr(x, y)[0]) if ok else np.nan,
                         float(stats.spearmanr(x, y)[0]) if ok else np.nan, len(x), int((x > 0).sum())])
    return pd.DataFrame(rows, columns=["metric", "category", "pearson", "spearman", "outputs", "with_category"])
