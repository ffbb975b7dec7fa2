"""Compare two systems side by side: headline scores with paired significance, the
per-segment view, compare-mt-style buckets, characteristic n-grams and length/tuning bias.

The peers are compare-mt (Neubig, Dou, Hu, Michel, Pruthi & Wang 2019) and MT-Telescope
(Rei, Stewart, Farinha & Lavie 2021); unlike both, everything here works with several
references per segment and puts human judgements in the same tables.

* :func:`build` – a :class:`Comparison`: the segments both systems translated, every chosen
  metric's per-segment sufficient statistics and sentence scores for A and B, and every chosen
  human criterion's per-segment score of A and B.
* :func:`headline` – corpus scores, paired bootstrap (Koehn 2004) and approximate randomisation
  (Riezler & Maxwell 2005) p-values with sacreBLEU's semantics
  (:mod:`evalcore.stats.significance`), and who wins each signal.
* :func:`segment_table`, :func:`disagreements` – per-segment scores and differences; the
  segments where a metric prefers one system and the humans the other.
* :func:`bucket_table` with :func:`length_buckets`, :func:`source_frequency_buckets`,
  :func:`tag_buckets`, :func:`document_buckets` – scores and win rates per bucket;
  :func:`word_f_by_frequency` – word-level F-measure per target-word frequency bucket.
* :func:`characteristic_ngrams` – n-grams one system matches in the references much more often
  than the other (smoothed ratio, defined in the docstring).
* :func:`length_ratios`, :func:`length_bias` – output/reference length ratios and, per metric,
  the partial correlation of its per-segment score with the length ratio controlling for the
  human score (Stanojević & Sima'an 2015 on tuning towards a metric: a metric that rewards longer
  outputs at equal human quality is one a tuned system will exploit; methods §3.10, Stanojević & Sima'an 2015 §5).
* :func:`word_diff` – token-level diff of the two outputs (difflib), for the side-by-side view.

Definitions: docs/methods.md §3.10. Nothing here imports streamlit. Colours: :data:`COLOURS`
(Okabe & Ito 2008, colour-blind safe).
"""
from __future__ import annotations

import contextlib
import difflib
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.results import Subset
from ..core.progress import sub_range
from ..scoring.settings import DEFAULTS, Settings
from .detail import segment_detail

Progress = Callable[[float, str], None] | None

#: Okabe-Ito colours (colour-blind safe): system A, system B, no difference, and the length-bias directions
COLOURS = {"a": "#E69F00", "b": "#0072B2", "tie": "#999999", "disagree": "#D55E00", "agree": "#009E73",
           "longer": "#D55E00", "shorter": "#CC79A7"}

#: reference-length bucket edges (tokens), compare-mt's default sentence-length buckets
LENGTH_CUTOFFS = (10, 20, 30, 40, 50, 60)
#: median source-word frequency bucket edges (occurrences in the test set)
SOURCE_FREQ_CUTOFFS = (2, 3, 5, 10, 100, 1000)
#: target-word frequency bucket edges for the word F-measure (occurrences in the references)
WORD_FREQ_CUTOFFS = (1, 2, 3, 5, 10, 100, 1000)


# =============================================================================================
# Building the comparison
# =============================================================================================
@dataclass
class Comparison:
    """Everything the tables are computed from (aligned with ``segments`` rows).

    ``segments``: seg_id, doc_id, domain, source, text_a, text_b, has_ref (the segment has at
    least one reference), ref_len (mean token count of its references), len_a, len_b (output
    token counts) and one column per signal and system: ``a|metric:bleu``, ``b|human:mqm``…
    (NaN where a signal is undefined). ``stats``: metric id -> (stats_a, stats_b), the
    per-segment sufficient statistics of the rows with ``has_ref``. ``notes``: what was left
    out or chosen, to be shown with the output.
    """

    dataset: Dataset
    a: str
    b: str
    metrics: list[str]
    criteria: list[str]
    tokenize: str
    normalisation: str
    segments: pd.DataFrame
    stats: dict = field(default_factory=dict)
    metric_objects: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    judged_only: bool = False  #: metric and human scores over the segments both systems are judged on

    def settings(self) -> Settings:
        """The shared :class:`evalcore.scoring.settings.Settings` this comparison was computed under
        (:meth:`~evalcore.scoring.settings.Settings.describe` is the line shown beside its numbers)."""
        return DEFAULTS.with_(judged_only=self.judged_only, tokenizer=self.tokenize)

    @property
    def signals(self) -> list[str]:
        return [f"metric:{m}" for m in self.metrics] + [f"human:{c}" for c in self.criteria]

    def higher_is_better(self, signal: str) -> bool:
        if signal.startswith("metric:"):
            return bool(self.metric_objects[signal[7:]].meta.higher_is_better)
        return True

    def metric_signature(self, metric_id: str, level: str = "system") -> str:
        """The signature of this comparison's ``metric_id`` scores at ``level`` (corpus scores
        by default): :func:`evalcore.metrics.base.metric_signature` with ``nrefs`` = the
        references of the compared segments (``var`` when it differs)."""
        from ..metrics.base import metric_signature, signature_nrefs

        ds = self.dataset
        pos = {s: i for i, s in enumerate(ds.seg_ids)}
        texts = list(ds.ref_texts().values())
        segs: list[str] = (self.segments.loc[self.segments["has_ref"].astype(bool), "seg_id"].tolist()
                           if len(self.segments) else [])
        refs = [[t[pos[s]] for t in texts if t[pos[s]] is not None] for s in segs]
        return metric_signature(self.metric_objects[metric_id], signature_nrefs(refs) if refs else None, level)

    def signature(self, extra: str = "") -> str:
        from .. import __version__

        parts = [f"{m}={self.metric_signature(m)}" for m in self.metrics]
        text = ("metrics: " + "; ".join(parts)) if parts else "metrics: none"
        text += (f" | compare: A={self.a}; B={self.b}; tokenize={self.tokenize}; normalisation={self.normalisation}"
                 f"; judged_only={'yes' if self.judged_only else 'no'}")
        return f"{text} | evalcore-{__version__}" + (f" | {extra}" if extra else "")


def configured_metric(metric_id: str, settings: Settings = DEFAULTS):
    """The registered metric ``metric_id``; with ``settings.tokenizer``, the word-level metrics use
    that sacreBLEU tokenizer (:func:`evalcore.metrics.base.get_metric`, the one way every command
    gets a metric with a tokenizer; chrF is unchanged, TER splits with it before Tercom); None:
    the metric's own tokenizer option left unset."""
    tokenize = settings.tokenizer
    from ..metrics.base import get_metric

    return get_metric(metric_id, tokenize=tokenize)


def default_tokenizer(lp: str | None) -> tuple[str, str]:
    """(sacreBLEU tokenizer, reason) for the target language of ``lp``: sacreBLEU's
    recommendation (Post 2018), as everywhere in evalcore (zh → zh, ja → ja-mecab,
    ko → ko-mecab, else 13a; :func:`evalcore.metrics.tokenize.default_tokenizer`)."""
    from ..metrics.tokenize import default_tokenizer as default, target_language

    tok, tgt = default(lp), target_language(lp)
    return tok, (f"sacreBLEU's default for target language {tgt}" if tgt else "sacreBLEU's default")


def _tokens(text: str | None, tokenize: str) -> list[str]:
    from ..metrics.tokenize import tokenize as tok

    return list(tok(text or "", tokenize, False))


def build(dataset: Dataset, a: str, b: str, metrics: Sequence[str] = ("bleu", "chrf"),
          criteria: Sequence[str] | None = None, settings: Settings = DEFAULTS, normalisation: str = "raw",
          require_judged: bool = False, progress: Progress = None, lengths: bool = True) -> Comparison:
    """Collect the per-segment material of systems ``a`` and ``b`` on ``dataset``.

    Segments: those where both systems have an output (others are counted in ``notes``).
    Metric columns are defined where the segment has at least one reference (the segment's
    present references, all sets: multi-reference scores). Human columns: the per-(system,
    segment) score of each criterion (ratings normalised per rater on the whole dataset, then
    averaged; :func:`evalcore.human.scores.human_scores`), NaN where a system is unjudged.
    ``criteria=None`` takes every criterion of the dataset. ``settings.tokenizer`` (None:
    sacreBLEU's default for the target language) is passed to every metric with a tokenizer
    option and used for lengths, n-grams and the word F-measure. ``settings.judged_only`` keeps
    only the segments where both systems have a judgement of one of the criteria, so metric and
    human scores are over the same segments (a note says how many). As the shared default
    (:data:`evalcore.scoring.settings.DEFAULTS`: on wherever human judgements exist, as on every
    page and command) it applies when a criterion is chosen and both systems are judged on some
    segment, and otherwise falls back to every segment with a note saying why;
    ``require_judged=True`` insists instead (an error when nothing is left: the command's explicit
    ``--judged-only``).
    ``lengths=False`` leaves the token counts (``ref_len``, ``len_a``, ``len_b``: every output
    and reference tokenised) out for now, so a page can show the human comparison first; the
    tables that need them add them (:func:`with_lengths`, the same values).
    """

    tokenize = settings.tokenizer
    if tokenize is None:
        tokenize = default_tokenizer(dataset.lp)[0]
    settings = settings.with_(tokenizer=tokenize)  # the comparison's tokenizer, resolved
    systems = dataset.systems
    for name, label in ((a, "A"), (b, "B")):
        if name not in systems:
            raise ValueError(f"system {label} {name!r} has no outputs in this dataset; systems with text: "
                             f"{', '.join(systems) or 'none'}")
    if a == b:
        raise ValueError("choose two different systems to compare")
    criteria = list(dataset.criteria if criteria is None else criteria)
    unknown = [c for c in criteria if c not in dataset.criteria]
    if unknown:
        raise ValueError(f"unknown human criterion/criteria {unknown}; the data has {dataset.criteria or 'none'}")
    mobj = {m: configured_metric(m, settings) for m in metrics}
    notes: list[str] = []
    skipped = [m for m, o in mobj.items() if not o.meta.needs_text]
    if skipped:
        notes.append(f"left out {', '.join(skipped)}: given scores without text cannot be recomputed per segment")
    metrics = [m for m in metrics if m not in skipped]
    mobj = {m: mobj[m] for m in metrics}

    sys_t = dataset.sys_texts()
    ta, tb = sys_t[a], sys_t[b]
    seg = dataset.segments
    seg_col, doc_col, src_col = (seg[c].tolist() for c in ("seg_id", "doc_id", "source"))
    keep = [i for i in range(dataset.n_segments) if ta[i] is not None and tb[i] is not None]
    if len(keep) < dataset.n_segments:
        notes.append(f"{dataset.n_segments - len(keep)} of {dataset.n_segments} segments left out: "
                     "at least one of the two systems has no output there")
    by_default = not require_judged
    judged_only = settings.judged_only
    both: set[str] = set()
    if judged_only and criteria:
        j = dataset.judgements
        j = j[j["judgement"].isin(criteria)]
        both = set(j[j["system"] == a]["seg_id"].astype(str)) & set(j[j["system"] == b]["seg_id"].astype(str))
    if judged_only and by_default and not both:  # the default falls back, saying why
        judged_only = False
        notes.append("every segment: no human criterion chosen" if not criteria else
                     f"every segment: {a!r} and {b!r} are not both judged on any segment "
                     f"({', '.join(criteria)})")
    if judged_only:
        if not criteria:
            raise ValueError("judged segments only: choose at least one human criterion")
        before = len(keep)
        keep = [i for i in keep if str(seg_col[i]) in both]
        notes.append(f"judged segments only: {len(keep)} of the {before} segments both systems translated are "
                     f"judged for both ({', '.join(criteria)}); metric scores use those too")
    if not keep:
        raise ValueError(f"{a!r} and {b!r} have no segment in common")
    ref_t = dataset.ref_texts()
    rids = dataset.ref_ids
    domains = {}
    dom = dataset.extras.get("segment_domains")
    if isinstance(dom, pd.DataFrame) and {"seg_id", "domain"} <= set(dom.columns):
        domains = dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str)))
    rows = []
    for i in keep:
        n_refs = sum(ref_t[r][i] is not None for r in rids)
        sid = str(seg_col[i])
        rows.append({"seg_id": sid, "doc_id": str(doc_col[i]), "domain": domains.get(sid, ""),
                     "source": src_col[i], "text_a": ta[i], "text_b": tb[i], "has_ref": bool(n_refs),
                     "n_refs": n_refs})
    frame = pd.DataFrame(rows)
    if lengths:
        frame = _add_lengths(dataset, frame, settings)
    no_ref = int((~frame["has_ref"]).sum())
    if no_ref == len(frame):
        notes.append("no compared segment has a reference: reference-based metrics, length ratios and n-gram "
                     "tables are empty")
    elif no_ref:
        notes.append(f"{no_ref} compared segment(s) have no reference: metric scores use the other "
                     f"{int(frame['has_ref'].sum())}")
    cmp = Comparison(dataset, a, b, [], criteria, tokenize, normalisation, frame, {}, {}, notes, bool(judged_only))
    n = max(len(metrics) + len(criteria), 1)
    import warnings

    from ..human.scores import human_scores

    for k, c in enumerate(criteria):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hs = human_scores(dataset, c, normalisation, include_references=True)
        hs["seg_id"] = hs["seg_id"].astype(str)
        for side, name in (("a", a), ("b", b)):
            col = hs[hs["system"] == name].set_index("seg_id")["score"]
            frame[f"{side}|human:{c}"] = frame["seg_id"].map(col).astype(float)
        judged_both = frame[f"a|human:{c}"].notna() & frame[f"b|human:{c}"].notna()
        if int(judged_both.sum()) < len(frame):
            notes.append(f"{c}: {int(judged_both.sum())} of {len(frame)} compared segments are judged for both systems; "
                         f"human comparisons of {c} use those")
        if progress:
            progress((k + 1) / n, f"human scores: {c}")
    return with_metrics(cmp, metrics, progress=progress, _objects=mobj, _done=len(criteria), _total=n)


LENGTH_COLUMNS = ("ref_len", "len_a", "len_b")


def _add_lengths(dataset: Dataset, frame: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """``frame`` (one row per compared segment) with ``ref_len`` (mean token count of the
    segment's present references, NaN without one), ``len_a`` and ``len_b`` (output token
    counts, ``settings.tokenizer``: the comparison's) after ``n_refs``; a new frame."""
    tokenize = settings.tokenizer or default_tokenizer(dataset.lp)[0]
    ref_t = dataset.ref_texts()
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    ref_len: list[float] = []
    len_a: list[int] = []
    len_b: list[int] = []
    for sid, ta, tb in zip(frame["seg_id"], frame["text_a"], frame["text_b"]):
        i = pos[sid]
        rl = [len(_tokens(ref_t[r][i], tokenize)) for r in dataset.ref_ids if ref_t[r][i] is not None]
        ref_len.append(float(np.mean(rl)) if rl else float("nan"))
        len_a.append(len(_tokens(ta, tokenize)))
        len_b.append(len(_tokens(tb, tokenize)))
    at = list(frame.columns).index("n_refs") + 1
    out = frame.copy()
    columns: list[list[float] | list[int]] = [ref_len, len_a, len_b]
    for k, (name, values) in enumerate(zip(LENGTH_COLUMNS, columns)):
        out.insert(at + k, name, values)
    return out


def with_lengths(cmp: Comparison) -> Comparison:
    """``cmp`` with the token counts of :func:`build` (``ref_len``, ``len_a``, ``len_b``) when
    it was built without them (``lengths=False``); ``cmp`` itself when they are there."""
    if set(LENGTH_COLUMNS) <= set(cmp.segments.columns):
        return cmp
    return Comparison(cmp.dataset, cmp.a, cmp.b, list(cmp.metrics), list(cmp.criteria), cmp.tokenize,
                      cmp.normalisation, _add_lengths(cmp.dataset, cmp.segments, cmp.settings()), dict(cmp.stats),
                      dict(cmp.metric_objects), list(cmp.notes), cmp.judged_only)


def _rows_of(known, segs: list[str]):
    """The rows of ``known = (seg_ids, array)`` for ``segs`` in that order; None when one is missing."""
    if known is None or not segs:
        return None
    at = {s: i for i, s in enumerate(known[0])}
    if any(s not in at for s in segs):
        return None
    return np.asarray(known[1], dtype=float)[[at[s] for s in segs]]


def with_metrics(cmp: Comparison, metrics: Sequence[str], progress: Progress = None, *, _objects=None,
                 _done: int = 0, _total: int | None = None, known_stats: Callable | None = None) -> Comparison:
    """``cmp`` with the per-segment columns and statistics of ``metrics`` added (a new
    :class:`Comparison`; the segments, lengths and human columns are reused, not recomputed), so
    a page can show the human comparison first and the metrics as they are scored. The same
    values as :func:`build` with those metrics. ``known_stats(metric_id)``: per-segment
    statistics already computed for every system against every reference (``{system:
    (seg_ids, array)}``, e.g. the dashboard's disk cache, :func:`evalcore.scoring.scores.known_system_stats`)
    or None; the rows of A and B are taken from there instead of scoring again (one segment's
    statistics do not depend on what else is scored)."""
    from ..metrics.engine import scorable

    dataset, tokenize = cmp.dataset, cmp.tokenize
    mobj = dict(_objects) if _objects is not None else {m: configured_metric(m, cmp.settings()) for m in metrics}
    notes = list(cmp.notes)
    if _objects is None:
        skipped = [m for m, o in mobj.items() if not o.meta.needs_text]
        if skipped:
            notes.append(f"left out {', '.join(skipped)}: given scores without text cannot be recomputed per segment")
        mobj = {m: o for m, o in mobj.items() if m not in skipped}
    new = [m for m in mobj if m not in cmp.metrics]
    frame = cmp.segments.copy()
    sys_t = dataset.sys_texts()
    ta, tb = sys_t[cmp.a], sys_t[cmp.b]
    rids = dataset.ref_ids
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    keep_set = {pos[s] for s in frame["seg_id"]}
    stats = dict(cmp.stats)
    n = _total or max(len(new), 1)
    for k, m in enumerate(new):
        metric = mobj[m]
        metric.prepare(dataset)
        out = {}
        of = metric.serves_segments  # sentence scores from the same statistics
        known = known_stats(m) if known_stats is not None and of else None
        for half, (side, texts) in enumerate((("a", ta), ("b", tb))):
            sub = [texts[i] if i in keep_set else None for i in range(dataset.n_segments)]
            segs, cands, refs = scorable(dataset, sub, rids)
            name = cmp.a if side == "a" else cmp.b
            rows = _rows_of(known.get(name), segs) if known else None
            if rows is not None:
                st = rows
            else:
                # a model that reports its rows (a neural metric) moves the caller's bar meanwhile
                report = sub_range(progress, (_done + k + half / 2) / n, (_done + k + (half + 1) / 2) / n,
                                   f"scoring: {m} ({name})")
                with metric.reporting(report) if report is not None else contextlib.nullcontext():
                    st = np.asarray(metric.segment_stats(cands, refs), dtype=float) if cands else np.zeros((0, 1))
            if not cands:
                sent = np.zeros(0)
            elif of:
                sent = np.asarray(metric.sentence_scores_of(st, refs), dtype=float)
            else:
                sent = np.asarray(metric.sentence_scores(cands, refs), dtype=float)
            col = pd.Series(sent, index=segs)
            frame[f"{side}|metric:{m}"] = frame["seg_id"].map(col).astype(float)
            out[side] = (segs, st)
        assert out["a"][0] == out["b"][0]  # same present outputs and references on both sides
        stats[m] = (out["a"][1], out["b"][1])
        refused = int((~(np.isfinite(out["a"][1]).all(axis=1) & np.isfinite(out["b"][1]).all(axis=1))).sum()) \
            if len(out["a"][1]) else 0
        if refused:
            notes.append(f"{m}: {refused} segment(s) left out for both systems: the metric refused a text "
                         "longer than its length cap")
        if progress:
            progress((_done + k + 1) / n, f"scoring: {m}")
    metrics_all = list(cmp.metrics) + new
    objects = {**cmp.metric_objects, **{m: mobj[m] for m in new}}
    return Comparison(dataset, cmp.a, cmp.b, metrics_all, list(cmp.criteria), tokenize, cmp.normalisation, frame,
                      stats, objects, notes, cmp.judged_only)


# =============================================================================================
# Headline
# =============================================================================================
def _pair_values(cmp: Comparison, signal: str, rows: np.ndarray | None = None):
    """(stats_a, stats_b, score_fn, mask) for a signal restricted to boolean ``rows`` of
    ``cmp.segments`` (None = all). Metrics: sufficient statistics of rows with a reference, the
    corpus score from their sums; humans: the per-segment scores where both are judged, mean."""
    f = cmp.segments
    sel = np.ones(len(f), bool) if rows is None else np.asarray(rows, bool)
    if signal.startswith("metric:"):
        m = signal[7:]
        metric = cmp.metric_objects[m]
        sa, sb = cmp.stats[m]
        ok = f["has_ref"].to_numpy(bool).copy()
        # stats rows are the has_ref rows in order; a metric may refuse a segment (NaN row, e.g.
        # TER on a text over its length cap): such segments are left out for both systems
        ok[ok] = np.isfinite(sa).all(axis=1) & np.isfinite(sb).all(axis=1)
        pick = (sel & ok)[f["has_ref"].to_numpy(bool)]

        def fn(summed, metric=metric):
            return metric.score_from_stats(np.atleast_2d(summed))
        return sa[pick], sb[pick], fn, sel & ok
    va, vb = f[f"a|{signal}"].to_numpy(float), f[f"b|{signal}"].to_numpy(float)
    mask = sel & ~np.isnan(va) & ~np.isnan(vb)
    return va[mask], vb[mask], None, mask


def _score(stats: np.ndarray, fn) -> float:
    """The corpus score of per-segment statistics (``fn`` = the metric's score_from_stats, which
    sums them, or averages them for the metrics whose corpus score is the mean sentence score:
    ROUGE, character n-grams), or the mean of per-segment human scores."""
    if len(stats) == 0:
        return float("nan")
    return float(fn(stats)) if fn is not None else float(np.mean(stats))


def headline(cmp: Comparison, n_bootstrap: int = 1000, n_ar: int = 10000, seed: int = 12345,
             alpha: float = 0.05, test: str = "bootstrap") -> pd.DataFrame:
    """Both systems' corpus scores under every signal with paired significance.

    Metric score: the corpus score from the summed sufficient statistics of the compared
    segments with a reference (sacreBLEU's corpus score for BLEU/chrF/TER); human score: the mean
    per-segment score over the segments both systems are judged on. ``p_bootstrap``: paired
    bootstrap resampling (Koehn 2004; ``n_bootstrap`` full-size resamples); ``p_ar``: paired
    approximate randomisation (Riezler & Maxwell 2005; ``n_ar`` trials); both with sacreBLEU
    2.x semantics and seed (A is the baseline), so they equal ``sacrebleu --paired-bs`` /
    ``--paired-ar`` on the same statistics. ``ahead``: the system with the better score
    (orientation-aware: TER, WER, PER lower is better) or "tie"; ``winner``: ``ahead`` when the
    p-value of ``test`` is below ``alpha``, else "no significant difference".
    """
    from ..stats.significance import paired_approximate_randomization, paired_bootstrap

    if test not in ("bootstrap", "ar"):
        raise ValueError("test must be bootstrap or ar")
    rows = []
    for sig in cmp.signals:
        sa, sb, fn, mask = _pair_values(cmp, sig)
        hib = cmp.higher_is_better(sig)
        n = int(mask.sum())
        score_a, score_b = _score(sa, fn), _score(sb, fn)
        p_bs = p_ar = float("nan")
        # every resample's corpus score in one vectorised call (Metric.scores_from_sums: the same values)
        vec = cmp.metric_objects[sig[7:]].scores_from_sums if fn is not None else None
        if n > 1 and n_bootstrap:
            p_bs = paired_bootstrap(sa, sb, vec, n_samples=n_bootstrap, seed=seed, vectorized=True).p_value
        if n > 1 and n_ar:
            p_ar = paired_approximate_randomization(sa, sb, vec, n_samples=n_ar, seed=seed, vectorized=True).p_value
        d = (score_b - score_a) * (1 if hib else -1)
        ahead = "tie" if not np.isfinite(d) or d == 0 else (cmp.b if d > 0 else cmp.a)
        p = p_bs if test == "bootstrap" else p_ar
        winner = ahead if ahead != "tie" and np.isfinite(p) and p < alpha else "no significant difference"
        rows.append({"signal": sig, "kind": sig.split(":")[0], "higher_is_better": hib, "score_a": score_a,
                     "score_b": score_b, "difference_b_minus_a": score_b - score_a, "n_segments": n,
                     "p_bootstrap": p_bs, "p_ar": p_ar, "ahead": ahead, "winner": winner})
    out = pd.DataFrame(rows, columns=["signal", "kind", "higher_is_better", "score_a", "score_b",
                                      "difference_b_minus_a", "n_segments", "p_bootstrap", "p_ar", "ahead", "winner"])
    return out


#: the tables of a comparison by name (the CLI's file stems), in the order the page shows them
TABLES = ("headline", "segments", "disagreements", "buckets", "word_f_by_frequency", "characteristic_ngrams",
          "length_ratios", "length_bias")


def table(cmp: Comparison, name: str, n_bootstrap: int = 1000, n_ar: int = 10000, test: str = "bootstrap",
          alpha: float = 0.05, top: int = 50) -> pd.DataFrame:
    """One table of :data:`TABLES`, computed on its own (a page computes each where it shows it)."""
    if name == "headline":
        return headline(cmp, n_bootstrap=n_bootstrap, n_ar=n_ar, test=test, alpha=alpha)
    if name == "segments":
        return segment_table(cmp)
    if name == "disagreements":
        dis = []
        for m in cmp.metrics:
            for c in cmp.criteria:
                d = disagreements(cmp, f"metric:{m}", f"human:{c}").table
                d = d.rename(columns={f"metric:{m} A": "metric_a", f"metric:{m} B": "metric_b",
                                      f"human:{c} A": "human_a", f"human:{c} B": "human_b"})
                dis.append(d.assign(metric=m, criterion=c))
        return pd.concat(dis, ignore_index=True) if dis else pd.DataFrame(
            columns=["seg_id", "metric_a", "metric_b", "human_a", "human_b", "metric_prefers", "humans_prefer",
                     "disagreement", "metric", "criterion"])
    if name == "buckets":
        return all_buckets(cmp)
    if name == "word_f_by_frequency":
        return word_f_by_frequency(cmp)
    if name == "characteristic_ngrams":
        return characteristic_ngrams(cmp, top=top)
    if name == "length_ratios":
        return length_ratios(cmp)
    if name == "length_bias":
        lb = [length_bias(cmp, c, alpha) for c in cmp.criteria]
        return pd.concat(lb, ignore_index=True) if lb else length_bias(cmp, None)
    raise ValueError(f"unknown table {name!r}; known: {', '.join(TABLES)}")


# =============================================================================================
# Per segment
# =============================================================================================
def segment_table(cmp: Comparison) -> pd.DataFrame:
    """One row per compared segment: ids, texts, lengths, and per signal the scores of A and B
    and ``Δ <signal>`` = B − A on the signal's own scale."""
    f = with_lengths(cmp).segments
    out = f[["seg_id", "doc_id", "domain", "source", "text_a", "text_b", "n_refs", "ref_len", "len_a", "len_b"]].copy()
    for s in cmp.signals:
        out[f"{s} A"] = f[f"a|{s}"]
        out[f"{s} B"] = f[f"b|{s}"]
        out[f"Δ {s}"] = f[f"b|{s}"] - f[f"a|{s}"]
    return out


def disagreements(cmp: Comparison, metric_signal: str, human_signal: str) -> Subset:
    """Segments where the metric prefers one system and the humans the other.

    Per segment with both signals: d_m = B − A under the metric (negated for error rates, so
    positive means the metric prefers B), d_h = B − A under the human score. Each is divided by
    its standard deviation over those segments (z_m, z_h). A segment disagrees when
    z_m·z_h < 0; ``disagreement`` = |z_m| + |z_h| (how strongly both sides hold their opposite
    preferences); rows sorted by it, largest first.
    """
    f = cmp.segments
    orient = 1.0 if cmp.higher_is_better(metric_signal) else -1.0
    ma, mb = f[f"a|{metric_signal}"].to_numpy(float), f[f"b|{metric_signal}"].to_numpy(float)
    ha, hb = f[f"a|{human_signal}"].to_numpy(float), f[f"b|{human_signal}"].to_numpy(float)
    dm, dh = orient * (mb - ma), hb - ha
    ok = np.isfinite(dm) & np.isfinite(dh)
    sm = np.std(dm[ok]) if ok.any() else 0.0
    sh = np.std(dh[ok]) if ok.any() else 0.0
    zm = dm / sm if sm > 0 else np.zeros_like(dm)
    zh = dh / sh if sh > 0 else np.zeros_like(dh)
    dis = ok & (zm * zh < 0)
    out = pd.DataFrame({
        "seg_id": f["seg_id"], f"{metric_signal} A": ma, f"{metric_signal} B": mb,
        f"{human_signal} A": ha, f"{human_signal} B": hb,
        "metric_prefers": np.where(dm > 0, cmp.b, cmp.a), "humans_prefer": np.where(dh > 0, cmp.b, cmp.a),
        "disagreement": np.abs(zm) + np.abs(zh)})[dis]
    out = out.sort_values(["disagreement", "seg_id"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return Subset(out, n_compared=int(ok.sum()))


# =============================================================================================
# Buckets (compare-mt style)
# =============================================================================================
def bucket_label(x: float, cutoffs: Sequence[float]) -> str:
    """The bucket of ``x`` for increasing edges c_1 < … < c_k: "< c_1", "[c_i, c_{i+1})", "≥ c_k"."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if x < cutoffs[0]:
        return f"< {cutoffs[0]:g}"
    for lo, hi in zip(cutoffs, cutoffs[1:]):
        if lo <= x < hi:
            return f"[{lo:g}, {hi:g})"
    return f"≥ {cutoffs[-1]:g}"


def bucket_order(cutoffs: Sequence[float]) -> list[str]:
    return [f"< {cutoffs[0]:g}"] + [f"[{lo:g}, {hi:g})" for lo, hi in zip(cutoffs, cutoffs[1:])] + \
        [f"≥ {cutoffs[-1]:g}", "n/a"]


def length_buckets(cmp: Comparison, cutoffs: Sequence[float] = LENGTH_CUTOFFS) -> list[tuple[str, np.ndarray]]:
    """(label, rows) by reference length: the mean token count of the segment's references."""
    labels = [bucket_label(x, cutoffs) for x in with_lengths(cmp).segments["ref_len"]]
    return [(lab, np.array([x == lab for x in labels])) for lab in bucket_order(cutoffs) if lab in labels]


#: The tokenizer of the source words counted by :func:`source_frequency`: sacreBLEU's 13a (Post
#: 2018), whatever the target language (the comparison's tokenizer is the target side's).
SOURCE_TOKENIZER = "13a"


def source_word_frequencies(dataset: Dataset) -> Counter:
    """Occurrences of every lower-cased source token (:data:`SOURCE_TOKENIZER`) in the whole
    test set (all segments)."""
    c: Counter = Counter()
    for s in dataset.segments["source"]:
        c.update(t.lower() for t in _tokens(s, SOURCE_TOKENIZER))
    return c


def source_frequency(cmp: Comparison) -> np.ndarray:
    """Per compared segment, the median test-set frequency of its source tokens (lower-cased,
    :data:`SOURCE_TOKENIZER` tokens; NaN for an empty source). Low values: segments made of rare
    words."""
    freq = source_word_frequencies(cmp.dataset)
    out = []
    for s in cmp.segments["source"]:
        toks = [t.lower() for t in _tokens(s, SOURCE_TOKENIZER)]
        out.append(float(np.median([freq[t] for t in toks])) if toks else float("nan"))
    return np.array(out)


def source_frequency_buckets(cmp: Comparison, cutoffs: Sequence[float] = SOURCE_FREQ_CUTOFFS
                             ) -> list[tuple[str, np.ndarray]]:
    """(label, rows) by the median test-set frequency of the segment's source words."""
    labels = [bucket_label(x, cutoffs) for x in source_frequency(cmp)]
    return [(lab, np.array([x == lab for x in labels])) for lab in bucket_order(cutoffs) if lab in labels]


def tag_buckets(cmp: Comparison) -> list[tuple[str, np.ndarray]]:
    """(label, rows) by phenomenon tag: "A: tag" holds the segments where A's output carries
    the tag, "B: tag" those where B's does (an output may carry several tags)."""
    tags = cmp.dataset.tags
    out = []
    segs = cmp.segments["seg_id"].astype(str)
    for side, name in (("A", cmp.a), ("B", cmp.b)):
        t = tags[tags["system"] == name]
        for tag in sorted(set(t["tag"])):
            ids = set(t[t["tag"] == tag]["seg_id"].astype(str))
            rows = segs.isin(ids).to_numpy()
            if rows.any():
                out.append((f"{side}: {tag}", rows))
    return out


def document_buckets(cmp: Comparison, column: str = "doc_id") -> list[tuple[str, np.ndarray]]:
    """(label, rows) by document (``doc_id``) or domain (``domain``), in order of appearance;
    empty when the data has none or only one."""
    vals = cmp.segments[column].astype(str)
    names = [v for v in dict.fromkeys(vals) if v]
    if len(names) < 2:
        return []
    return [(v, (vals == v).to_numpy()) for v in names]


def bucket_table(cmp: Comparison, buckets: list[tuple[str, np.ndarray]], kind: str) -> pd.DataFrame:
    """Per bucket and signal: the two systems' scores and the win rate of A over B.

    ``n_segments``: the bucket's segments where the signal is defined for both systems. Scores:
    the corpus score from the bucket's summed statistics (metrics) or the mean (humans). Wins
    compare the per-segment scores (sentence scores for metrics, orientation-aware): ``a_wins``,
    ``b_wins``, ``ties``; ``a_win_rate`` = (a_wins + ties/2) / n_segments (0.5 = no preference).
    """
    rows = []
    f = cmp.segments
    for label, sel in buckets:
        for sig in cmp.signals:
            sa, sb, fn, mask = _pair_values(cmp, sig, sel)
            va, vb = f[f"a|{sig}"].to_numpy(float)[mask], f[f"b|{sig}"].to_numpy(float)[mask]
            orient = 1.0 if cmp.higher_is_better(sig) else -1.0
            d = orient * (va - vb)
            n = int(mask.sum())
            aw, bw = int((d > 0).sum()), int((d < 0).sum())
            ties = int((d == 0).sum())
            rows.append({"bucket_type": kind, "bucket": label, "signal": sig, "n_segments": n,
                         "score_a": _score(sa, fn), "score_b": _score(sb, fn), "a_wins": aw, "b_wins": bw,
                         "ties": ties, "a_win_rate": (aw + ties / 2) / n if n else float("nan")})
    return pd.DataFrame(rows, columns=["bucket_type", "bucket", "signal", "n_segments", "score_a", "score_b",
                                       "a_wins", "b_wins", "ties", "a_win_rate"])


def all_buckets(cmp: Comparison) -> pd.DataFrame:
    """Every bucket table stacked: reference length, source-word frequency, phenomenon tag,
    document and domain (those the data has)."""
    parts = [bucket_table(cmp, length_buckets(cmp), "reference length"),
             bucket_table(cmp, source_frequency_buckets(cmp), "source-word frequency")]
    for kind, b in (("phenomenon tag", tag_buckets(cmp)), ("document", document_buckets(cmp, "doc_id")),
                    ("domain", document_buckets(cmp, "domain"))):
        if b:
            parts.append(bucket_table(cmp, b, kind))
    return pd.concat(parts, ignore_index=True)


def _freq_label(x: int, cutoffs: Sequence[int]) -> str:
    return "0 (not in any reference)" if x == 0 else bucket_label(x, cutoffs)


def word_f_by_frequency(cmp: Comparison, cutoffs: Sequence[int] = WORD_FREQ_CUTOFFS) -> pd.DataFrame:
    """Word-level precision, recall and F-measure of each system per target-word frequency bucket.

    Frequency of a word: its occurrences in every reference of every segment of the test set
    (``tokenize`` tokens, case kept). For each compared segment with references and each of its
    references r, and each system X with output o: for every word w, matched = min(count_o(w),
    count_r(w)); matched, count_o(w) and count_r(w) are added to w's bucket (pairs are pooled:
    a segment with k references counts k times). precision = Σ matched / Σ output words,
    recall = Σ matched / Σ reference words, F = 2PR/(P+R) (0 when P + R = 0; NaN without words).
    Output words found in no reference fall in the bucket "0 (not in any reference)".
    """
    ds, tok = cmp.dataset, cmp.tokenize
    freq: Counter = Counter()
    for t in ds.references["text"]:
        freq.update(_tokens(t, tok))
    ref_t = ds.ref_texts()
    pos = {s: i for i, s in enumerate(ds.seg_ids)}
    acc: dict[str, defaultdict[str, list[int]]] = {side: defaultdict(lambda: [0, 0, 0])
                                                   for side in ("a", "b")}  # bucket -> [matched, out, ref]
    row: Any  # a compared segment (column attributes)
    for row in cmp.segments.itertuples(index=False):
        i = pos[row.seg_id]
        refs = [ref_t[r][i] for r in ds.ref_ids if ref_t[r][i] is not None]
        outs = {"a": Counter(_tokens(row.text_a, tok)), "b": Counter(_tokens(row.text_b, tok))}
        for r in refs:
            rc = Counter(_tokens(r, tok))
            for side, oc in outs.items():
                for w in set(oc) | set(rc):
                    cell = acc[side][_freq_label(freq[w], cutoffs)]
                    cell[0] += min(oc[w], rc[w])
                    cell[1] += oc[w]
                    cell[2] += rc[w]
    order = ["0 (not in any reference)"] + [lab for lab in bucket_order(cutoffs) if lab != "n/a"]
    rows = []
    for lab in order:
        for side, name in (("a", cmp.a), ("b", cmp.b)):
            if lab not in acc[side]:
                continue
            m, o, n_ref = acc[side][lab]
            p = m / o if o else float("nan")
            rec = m / n_ref if n_ref else float("nan")
            if np.isnan(p) or np.isnan(rec):
                fm = float("nan")
            else:
                fm = 2 * p * rec / (p + rec) if p + rec > 0 else 0.0
            rows.append({"frequency": lab, "system": name, "side": side.upper(), "matched": m, "output_words": o,
                         "reference_words": n_ref, "precision": p, "recall": rec, "f_measure": fm})
    return pd.DataFrame(rows, columns=["frequency", "system", "side", "matched", "output_words", "reference_words",
                                       "precision", "recall", "f_measure"])


# =============================================================================================
# Characteristic n-grams
# =============================================================================================
def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def ngram_matches(cmp: Comparison, max_order: int = 4) -> tuple[dict, dict, dict]:
    """Per n-gram (n ≤ ``max_order``) the number of times each system matches it in the
    references: in every compared segment with references, min(count in the output, largest
    count in any one reference) (BLEU's clipping), summed over segments. Returns (m_a, m_b,
    examples) where examples[g] lists the segments where the two systems' matches of g differ."""
    ds, tok = cmp.dataset, cmp.tokenize
    ref_t = ds.ref_texts()
    pos = {s: i for i, s in enumerate(ds.seg_ids)}
    ma: Counter = Counter()
    mb: Counter = Counter()
    examples: dict = defaultdict(list)
    row: Any  # a compared segment (column attributes)
    for row in cmp.segments.itertuples(index=False):
        i = pos[row.seg_id]
        refs = [_tokens(ref_t[r][i], tok) for r in ds.ref_ids if ref_t[r][i] is not None]
        if not refs:
            continue
        ta, tb = _tokens(row.text_a, tok), _tokens(row.text_b, tok)
        for n in range(1, max_order + 1):
            best: Counter = Counter()
            for r in refs:
                for g, k in _ngrams(r, n).items():
                    best[g] = max(best[g], k)
            ca, cb = _ngrams(ta, n), _ngrams(tb, n)
            for g in set(ca) | set(cb):
                if g not in best:
                    continue
                xa, xb = min(ca[g], best[g]), min(cb[g], best[g])
                ma[g] += xa
                mb[g] += xb
                if xa != xb:
                    examples[g].append(row.seg_id)
    return ma, mb, examples


def characteristic_ngrams(cmp: Comparison, max_order: int = 4, alpha: float = 1.0, top: int = 50,
                          n_examples: int = 3) -> pd.DataFrame:
    """N-grams one system matches in the references much more often than the other.

    For an n-gram g with match counts m_A(g) and m_B(g) (:func:`ngram_matches`), the smoothed
    ratio is  s(g) = (m_A(g) + α) / (m_A(g) + m_B(g) + 2α): the share of g's matches made by A,
    pulled towards ½ by α pseudo-matches on each side, so that an n-gram matched 20 times by A and
    never by B (s = 21/22) outranks one matched once by A and never by B (s = 2/3) — the
    smoothing idea of compare-mt (Neubig et al. 2019), with α = 1 by default. Only n-grams some
    system matched are considered. The ``top`` n-grams with the highest s favour A, the ``top``
    with the lowest favour B (ties: more matches first, then the n-gram text). Columns: favours,
    ngram, n, matches_a, matches_b, score (s), examples (up to ``n_examples`` segments where the
    two systems' matches differ).
    """
    ma, mb, ex = ngram_matches(cmp, max_order)
    keys = [g for g in set(ma) | set(mb) if ma[g] + mb[g] > 0]
    score = {g: (ma[g] + alpha) / (ma[g] + mb[g] + 2 * alpha) for g in keys}
    text = {g: " ".join(g) for g in keys}
    fav_a = sorted(keys, key=lambda g: (-score[g], -(ma[g] + mb[g]), text[g]))[:top]
    fav_b = sorted(keys, key=lambda g: (score[g], -(ma[g] + mb[g]), text[g]))[:top]
    rows = []
    for who, lst, keep in ((cmp.a, fav_a, lambda g: score[g] > 0.5), (cmp.b, fav_b, lambda g: score[g] < 0.5)):
        for g in lst:
            if keep(g):
                rows.append({"favours": who, "ngram": text[g], "n": len(g), "matches_a": int(ma[g]),
                             "matches_b": int(mb[g]), "score": score[g], "examples": ", ".join(ex[g][:n_examples])})
    return pd.DataFrame(rows, columns=["favours", "ngram", "n", "matches_a", "matches_b", "score", "examples"])


# =============================================================================================
# Length and tuning bias
# =============================================================================================
def length_ratios(cmp: Comparison) -> pd.DataFrame:
    """Per system: output tokens, reference tokens (the mean length of each segment's
    references, summed) and their ratio, over the compared segments with references; also the
    mean and median of the per-segment ratios."""
    f = with_lengths(cmp).segments
    f = f[f["has_ref"]]
    rows = []
    for side, name in (("a", cmp.a), ("b", cmp.b)):
        out_len = f[f"len_{side}"].to_numpy(float)
        ref_len = f["ref_len"].to_numpy(float)
        seg = np.divide(out_len, ref_len, out=np.full_like(out_len, np.nan), where=ref_len > 0)
        rows.append({"system": name, "side": side.upper(), "output_tokens": int(out_len.sum()),
                     "reference_tokens": float(ref_len.sum()),
                     "length_ratio": float(out_len.sum() / ref_len.sum()) if ref_len.sum() else float("nan"),
                     "mean_segment_ratio": float(np.nanmean(seg)) if np.isfinite(seg).any() else float("nan"),
                     "median_segment_ratio": float(np.nanmedian(seg)) if np.isfinite(seg).any() else float("nan"),
                     "n_segments": len(f)})
    return pd.DataFrame(rows)


def partial_correlation(x, y, z) -> tuple[float, float, int]:
    """Pearson partial correlation of x and y controlling for z, with its two-sided p-value.

    r_xy·z = (r_xy − r_xz·r_yz) / sqrt((1 − r_xz²)(1 − r_yz²)); t = r·sqrt((n − 3)/(1 − r²)) on
    n − 3 degrees of freedom (one covariate). Rows with a NaN are dropped. Returns (r, p, n);
    NaN when n < 4 or a variable is constant.
    """
    x, y, z = (np.asarray(v, dtype=float) for v in (x, y, z))
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
    x, y, z = x[ok], y[ok], z[ok]
    n = int(ok.sum())
    if n < 4 or min(np.std(x), np.std(y), np.std(z)) == 0:
        return float("nan"), float("nan"), n
    c = np.corrcoef(np.vstack([x, y, z]))
    rxy, rxz, ryz = c[0, 1], c[0, 2], c[1, 2]
    den = math.sqrt((1 - rxz ** 2) * (1 - ryz ** 2))
    if den == 0:
        return float("nan"), float("nan"), n
    r = float(np.clip((rxy - rxz * ryz) / den, -1.0, 1.0))
    if abs(r) >= 1:
        return r, 0.0, n
    t = r * math.sqrt((n - 3) / (1 - r ** 2))
    from scipy.special import stdtr  # = scipy.stats.t.sf(|t|, df), without importing scipy.stats

    return r, float(2 * stdtr(n - 3, -abs(t))), n


def length_bias(cmp: Comparison, criterion: str | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """Which metric would a system tuned on it exploit through length (Stanojević & Sima'an 2015).

    Points: the outputs of both systems on the compared segments with a reference and a score
    of ``criterion`` (pooled: 2 points per segment at most). Per metric: ``r_length`` = Pearson
    correlation of the metric's sentence score (negated for error rates, so higher = better)
    with the output/reference length ratio (output tokens / mean reference tokens);
    ``partial_r`` = the same correlation controlling for the human score
    (:func:`partial_correlation`), with ``p_value``. ``rewards``: "longer outputs" when
    partial_r > 0 and p < ``alpha``, "shorter outputs" when partial_r < 0 and p < ``alpha``,
    else "no length preference found". Empty without a human criterion.
    """
    criterion = criterion or (cmp.criteria[0] if cmp.criteria else None)
    if criterion is None:
        return pd.DataFrame(columns=["metric", "criterion", "n_points", "r_length", "partial_r", "p_value", "rewards"])
    f = with_lengths(cmp).segments
    f = f[f["has_ref"]]
    ratio = np.concatenate([np.divide(f[f"len_{s}"].to_numpy(float), f["ref_len"].to_numpy(float),
                                      out=np.full(len(f), np.nan), where=f["ref_len"].to_numpy(float) > 0)
                            for s in ("a", "b")])
    human = np.concatenate([f[f"{s}|human:{criterion}"].to_numpy(float) for s in ("a", "b")])
    rows = []
    for m in cmp.metrics:
        orient = 1.0 if cmp.metric_objects[m].meta.higher_is_better else -1.0
        score = orient * np.concatenate([f[f"{s}|metric:{m}"].to_numpy(float) for s in ("a", "b")])
        ok = np.isfinite(score) & np.isfinite(ratio) & np.isfinite(human)
        r_len = float(np.corrcoef(score[ok], ratio[ok])[0, 1]) if ok.sum() > 2 and np.std(score[ok]) > 0 \
            and np.std(ratio[ok]) > 0 else float("nan")
        pr, p, n = partial_correlation(score, ratio, human)
        if np.isfinite(p) and p < alpha:
            rewards = "longer outputs" if pr > 0 else "shorter outputs"
        else:
            rewards = "no length preference found"
        rows.append({"metric": m, "criterion": criterion, "n_points": n, "r_length": r_len, "partial_r": pr,
                     "p_value": p, "rewards": rewards})
    return pd.DataFrame(rows, columns=["metric", "criterion", "n_points", "r_length", "partial_r", "p_value", "rewards"])


# =============================================================================================
# Side by side
# =============================================================================================
def word_diff(text_a: str | None, text_b: str | None) -> tuple[list, list]:
    """Token-level diff of two outputs (difflib's longest matching blocks): lists of
    (token, same) for A and for B, ``same`` False for tokens only that side has; tokens are
    split on whitespace (sacreBLEU's ``none``: a display of two texts, no language pair)."""
    ta, tb = _tokens(text_a, "none"), _tokens(text_b, "none")
    sm = difflib.SequenceMatcher(a=ta, b=tb, autojunk=False)
    same_a, same_b = [False] * len(ta), [False] * len(tb)
    for blk in sm.get_matching_blocks():
        for k in range(blk.size):
            same_a[blk.a + k] = True
            same_b[blk.b + k] = True
    return list(zip(ta, same_a)), list(zip(tb, same_b))


def side_by_side(cmp: Comparison, seg_id: str) -> dict:
    """One segment in full: source, both outputs with the word diff, per system the divergence
    browser's detail (every reference with the n-grams the output matches,
    :func:`evalcore.analysis.detail.segment_detail`), every signal of both, every judgement of both."""

    f = cmp.segments
    row = f[f["seg_id"] == str(seg_id)]
    if row.empty:
        raise KeyError(f"segment {seg_id!r} is not among the compared segments")
    r = row.iloc[0]
    da, db = (segment_detail(cmp.dataset, name, str(seg_id), settings=cmp.settings()) for name in (cmp.a, cmp.b))
    diff_a, diff_b = word_diff(r["text_a"], r["text_b"])
    scores = pd.DataFrame({"signal": cmp.signals,
                           "A": [r[f"a|{s}"] for s in cmp.signals], "B": [r[f"b|{s}"] for s in cmp.signals]})
    j = cmp.dataset.judgements
    jj = j[j["system"].isin([cmp.a, cmp.b]) & (j["seg_id"].astype(str) == str(seg_id))]
    return {"seg_id": str(seg_id), "source": r["source"], "text_a": r["text_a"], "text_b": r["text_b"],
            "diff_a": diff_a, "diff_b": diff_b, "detail_a": da, "detail_b": db, "scores": scores,
            "judgements": jj[["system", "judgement", "rater", "score"]].reset_index(drop=True)}
