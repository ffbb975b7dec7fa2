"""The glue between the dashboard pages and the maths: every page calls one of these functions
and renders the DataFrame (or dict of DataFrames) it returns. Nothing here imports streamlit.

Sections
--------
* Scope and defaults: :func:`default_metrics`, :func:`default_criterion`, :func:`scoped`,
  :func:`signature_text`.
* Scores (disk-cached by dataset content hash + metric signature): :func:`segment_scores`,
  :func:`system_stats`, :func:`tensors`, :func:`queen_index`, :func:`human_segment_scores`.
* Systems page: :func:`system_table` (corpus scores, bootstrap CIs, paired significance vs a
  baseline), :func:`rank_table`, :func:`rank_agreement`, :func:`schulze_consensus`.
* Human-likeness (Amigó et al. 2006 Figure 1): :func:`figure1_table`, :func:`king_case_table`.
* Likeness vs acceptability (Amigó et al. 2006 Figure 3, methods §0): :func:`figure3_points`,
  :func:`metric_set_search`.
* QUEEN vs human (Amigó et al. 2006 Figure 4): :func:`queen_human_points`, :func:`quadrant_thresholds`.
* Divergence browser: :func:`signal_table`, :func:`divergence_table`, :func:`segment_detail`.
* Judges (Callison-Burch 2009): :func:`rater_distributions`, :func:`rater_agreement_matrix`,
  :func:`judges_overview`, :func:`hter_table`.
* Learn page: :func:`lessons`.

Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import hashlib
import math
import os
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from . import __version__, cache_version
from .dataset import Dataset

Progress = Callable[[float, str], None] | None

DEFAULT_METRICS = ["bleu", "chrf", "ter", "meteor", "rouge-l", "nist-4", "gtm-1", "wer", "per"]
# Every page uses every segment by default (issue 12). Above this many segments the pages also
# offer an explicit, labelled subset of segments (:func:`scoped`); it is never applied unasked.
SAMPLING_OFFERED_ABOVE = 5000


# =============================================================================================
# Scope, defaults, signatures
# =============================================================================================
_SYNTAX_STATUS: dict[str, tuple[bool, str]] = {}


def syntax_status(dataset: Dataset) -> tuple[bool, str]:
    """(available, reason) of the syntactic metrics on this dataset (issue 8: never silently
    zero), memoised by content hash."""
    key = dataset.content_hash()
    if key not in _SYNTAX_STATUS:
        from .syntax import availability

        _SYNTAX_STATUS[key] = availability(dataset)
    return _SYNTAX_STATUS[key]


def forget_syntax_status(dataset: Dataset) -> None:
    """Drop the memoised availability (e.g. after parses were uploaded)."""
    _SYNTAX_STATUS.pop(dataset.content_hash(), None)


def available_metrics(dataset: Dataset | None = None) -> list[str]:
    """Registered metric ids; with a dataset, the syntactic ones only when they can be
    computed on it (see :func:`syntax_status` for the reason when not)."""
    from .metrics.base import metric_ids
    from .syntax import is_syntactic

    ids = metric_ids()
    if dataset is not None and not syntax_status(dataset)[0]:
        ids = [m for m in ids if not is_syntactic(m)]
    return ids


def default_metrics(dataset: Dataset | None = None) -> list[str]:
    """The metrics of Amigó et al. 2006's experiments that are registered (BLEU, chrF, TER, METEOR,
    ROUGE-L, NIST-4, GTM-1, WER, PER). Datasets without text get none."""
    known = set(available_metrics())
    if dataset is not None and (not len(dataset.outputs) or not len(dataset.references)):
        return []
    return [m for m in DEFAULT_METRICS if m in known]


def default_criterion(dataset: Dataset) -> str | None:
    """``adequacy`` when judged, else ``mqm``, else the first criterion (None without judgements)."""
    crit = dataset.criteria
    for c in ("adequacy", "mqm", "da"):
        if c in crit:
            return c
    return crit[0] if crit else None


def scoped(dataset: Dataset, max_segments: int | None) -> Dataset:
    """A copy of ``dataset`` restricted to at most ``max_segments`` segments, judged segments
    first, in the original order: the explicit subset the pages offer for data far bigger than
    a test set (:data:`SAMPLING_OFFERED_ABOVE`); never a default. ``None`` or a limit at least
    the size of the dataset returns the dataset itself."""
    if not max_segments or dataset.n_segments <= max_segments:
        return dataset
    segs = dataset.seg_ids
    judged = set(dataset.judgements["seg_id"].astype(str))
    first = [s for s in segs if s in judged]
    rest = [s for s in segs if s not in judged]
    return dataset.subset(seg_ids=(first + rest)[:max_segments])


def page_tokenizer(dataset: Dataset | None = None) -> str:
    """The tokenizer of the word-level metrics here: the page's choice for this run
    (:func:`evalcore.metrics.tokenize.set_session_tokenizer`), else sacreBLEU's default for the
    dataset's target language (Post 2018: zh → zh, ja → ja-mecab, ko → ko-mecab, else 13a)."""
    from .metrics.tokenize import default_tokenizer, session_tokenizer

    return session_tokenizer() or default_tokenizer(dataset.lp if dataset is not None else None)


def tokenizer_note(dataset: Dataset, chosen: str | None = None) -> str:
    """One sentence stating the tokenizer of the word-level metrics and why (page captions)."""
    from .metrics.tokenize import default_tokenizer, target_language

    default = default_tokenizer(dataset.lp)
    tok = chosen or default
    if tok == default:
        trg = target_language(dataset.lp)
        why = f"sacreBLEU's default for target language {trg}" if trg else "sacreBLEU's default"
    else:
        why = f"chosen; sacreBLEU's default here would be {default}"
    return f"Word-level metrics (BLEU, TER, WER, NIST, …) use the {tok} tokenizer ({why}); chrF is character-based."


def dataset_nrefs(dataset: Dataset) -> int | str:
    """sacreBLEU's ``nrefs`` of a dataset: references per segment (present texts), ``var`` when
    it differs between segments."""
    texts = list(dataset.ref_texts().values())
    counts = {sum(t[s] is not None for t in texts) for s in range(dataset.n_segments)} - {0}
    return counts.pop() if len(counts) == 1 else "var"


def metric_signature(metric_id: str, nrefs: int | str | None = None, level: str | None = None) -> str:
    """The metric's signature (sacreBLEU's own string for BLEU/chrF/TER) with the page's
    tokenizer; ``nrefs`` and ``level`` ("segment"/"system") as in the CLI's tables."""
    from .metrics.base import get_metric

    try:
        return get_metric(metric_id).output_signature(nrefs, level)
    except Exception as exc:  # unknown or broken metric: still export something readable
        return f"unavailable ({exc})"


def signature_text(metric_ids: Iterable[str], extra: str = "", dataset: Dataset | None = None,
                   level: str | None = None) -> str:
    """One line naming every metric with its signature (put into every export); with
    ``dataset`` the signatures carry its ``nrefs``."""
    nrefs = dataset_nrefs(dataset) if dataset is not None else None
    parts = [f"{m}={metric_signature(m, nrefs, level)}" for m in metric_ids]
    text = "metrics: " + "; ".join(parts) if parts else "metrics: none"
    return f"{text} | evalcore-{__version__}" + (f" | {extra}" if extra else "")


def signature_frame(metric_ids: Iterable[str], dataset: Dataset | None = None, level: str | None = None) -> pd.DataFrame:
    nrefs = dataset_nrefs(dataset) if dataset is not None else None
    return pd.DataFrame([{"metric": m, "signature": metric_signature(m, nrefs, level)} for m in metric_ids])


def _orientation(metric_id: str) -> float:
    """+1 when higher is better, −1 for error rates (methods §0)."""
    from .metrics.base import get_metric

    try:
        return 1.0 if get_metric(metric_id).meta.higher_is_better else -1.0
    except KeyError:
        return 1.0


# =============================================================================================
# Disk cache (keyed by content hash + metric signature + parameters)
# =============================================================================================
def _cache_dir() -> Path:
    from .metrics.engine import default_cache_dir

    d = Path(default_cache_dir()) / "analysis"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _cached(kind: str, key: Sequence, compute: Callable[[], object]):
    """``compute()``, cached on disk in formats that cannot run code when read (issue 16,
    item 14: an unpickled cache lets anyone who can write to the cache folder run code in the
    app): a DataFrame as Parquet, a statistics dict ``{name: (seg_ids, array)}`` as ``.npz``
    read with ``allow_pickle=False``. Anything else, or a file that does not read back, is
    simply recomputed; pickle files are never opened."""
    text = "\n".join(str(k) for k in (kind, cache_version(), *key))
    base = _cache_dir() / f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:32]}"
    value = _read_cache(base)
    if value is not None:
        return value
    value = compute()
    try:
        _write_cache(base, value)
    except Exception:  # a value these formats cannot hold (or a full disk): not cached
        pass
    return value


def _read_cache(base: Path):
    try:
        if base.with_suffix(".parquet").exists():
            return pd.read_parquet(base.with_suffix(".parquet"))
        if base.with_suffix(".npz").exists():
            with np.load(base.with_suffix(".npz"), allow_pickle=False) as z:
                names = z["names"].tolist()
                return {n: (z[f"keep{i}"].tolist(), z[f"stats{i}"]) for i, n in enumerate(names)}
    except Exception:  # unreadable, truncated or tampered cache file: recompute
        return None
    return None


def _stats_dict(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], np.ndarray)
        and v[1].dtype.kind == "f" and all(isinstance(s, str) for s in v[0]) for k, v in value.items())


def _write_cache(base: Path, value) -> None:
    if isinstance(value, pd.DataFrame):
        path, write = base.with_suffix(".parquet"), lambda tmp: value.to_parquet(tmp)
    elif _stats_dict(value):
        arrays = {"names": np.array(list(value), dtype=str)}
        for i, (keep, st) in enumerate(value.values()):
            arrays[f"keep{i}"] = np.array(keep, dtype=str)
            arrays[f"stats{i}"] = st
        path, write = base.with_suffix(".npz"), lambda tmp: np.savez(tmp, **arrays)
    else:
        return
    tmp = base.with_name(f"{base.name}.tmp{os.getpid()}{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _sub(progress: Progress, lo: float, hi: float, text: str):
    """A (done, total) callback mapped onto [lo, hi] of a (fraction, text) progress."""
    if progress is None:
        return None

    def cb(done, total):
        progress(lo + (hi - lo) * (done / total if total else 1.0), text)
    return cb


# =============================================================================================
# Scores
# =============================================================================================
def segment_scores(dataset: Dataset, metric_ids: Sequence[str], include_references: bool = False,
                   progress: Progress = None) -> pd.DataFrame:
    """Multi-reference segment scores x(c, R_s) on each metric's own scale
    (:func:`evalcore.metrics.engine.score_table`, level "segment"), cached on disk per metric."""
    from .metrics.engine import score_table

    frames = []
    h = dataset.content_hash()
    n = max(len(metric_ids), 1)
    for i, m in enumerate(metric_ids):
        cb = _sub(progress, i / n, (i + 1) / n, f"segment scores: {m}")
        if _from_stats(m):  # derived from the one statistics table the Systems page also uses
            sp = _stage(progress, i / n, (i + 1) / n)
            frames.append(_cached("segscores", (h, m, metric_signature(m), include_references),
                                  lambda m=m, sp=sp: _scores_from_stats(dataset, m, include_references, sp)))
            continue
        frames.append(_cached("segscores", (h, m, metric_signature(m), include_references),
                              lambda m=m, cb=cb: score_table(dataset, [m], "segment",
                                                             include_references=include_references,
                                                             progress=cb)))
    if progress:
        progress(1.0, "segment scores ready")
    if not frames:
        return pd.DataFrame(columns=["metric", "system", "seg_id", "score"])
    return pd.concat(frames, ignore_index=True)


def _from_stats(metric_id: str) -> bool:
    """Whether the metric's sentence scores follow from its segment statistics
    (``sentence_scores_of``: BLEU and its variants, chrF/chrF++, TER, NIST and the best-reference
    word metrics WER, PER, ROUGE, GTM, METEOR, character n-grams), so segment and corpus scores
    share one statistics table per (dataset, metric signature, candidates)."""
    from .metrics.base import get_metric

    try:
        m = get_metric(metric_id)
    except KeyError:
        return False
    return m.meta.needs_text and callable(getattr(m, "sentence_scores_of", None))


def _scores_from_stats(dataset: Dataset, metric_id: str, include_references: bool,
                       progress: Progress = None) -> pd.DataFrame:
    """Segment scores (metric, system, seg_id, score) from the cached statistics table: the same
    values as :func:`~evalcore.metrics.engine.score_table` at segment level."""
    from .metrics.base import get_metric
    from .metrics.engine import _candidates, scorable

    metric = get_metric(metric_id)
    stats = system_stats(dataset, [metric_id], include_references, progress)
    ref_lists = {}
    for name, texts, use_refs in _candidates(dataset, include_references):
        keep, _, refs = scorable(dataset, texts, use_refs)
        ref_lists[name] = refs
    rows = []
    for name, (keep, st) in stats[metric_id].items():
        vals = metric.sentence_scores_of(st, ref_lists[name])
        rows.append(pd.DataFrame({"metric": metric_id, "system": name, "seg_id": list(keep),
                                  "score": np.asarray(vals, dtype=float)}))
    if not rows:
        return pd.DataFrame(columns=["metric", "system", "seg_id", "score"]).astype(
            {"metric": str, "system": str, "seg_id": str, "score": float})
    return pd.concat(rows, ignore_index=True).astype({"metric": str, "system": str, "seg_id": str, "score": float})


def _stats_for(dataset: Dataset, metric_id: str, include_references: bool, progress=None,
               ref_ids: Sequence[str] | None = None, segments: dict | None = None) -> dict:
    """name -> (seg_ids, per-segment sufficient statistics) for every candidate, exactly the
    segments :func:`score_table` uses at system level (output present, ≥ 1 reference; who is
    scored against which references: :func:`evalcore.metrics.engine.candidate_plan`).
    ``segments``: candidate -> the seg_ids to keep (e.g. the judged ones); candidates absent
    from it are left out. Every candidate's items go to the metric in one call, segment by
    segment, so vectorised metrics score each segment's outputs as one block."""
    from .metrics.base import get_metric
    from .metrics.engine import _candidates, scorable, segment_stats_by_segment

    metric = get_metric(metric_id)
    if not metric.meta.needs_text:
        return {}
    prep = getattr(metric, "prepare", None)
    if callable(prep):
        prep(dataset.with_references(list(ref_ids)) if ref_ids else dataset)
    cands_all = list(_candidates(dataset, include_references, ref_ids))
    if segments is not None:
        seg_ids = dataset.seg_ids
        cands_all = [(n, [t if s in segments[n] else None for s, t in zip(seg_ids, texts)], r)
                     for n, texts, r in cands_all if n in segments]
    pos_of = {s: i for i, s in enumerate(dataset.seg_ids)}
    parts, all_c, all_r, seg_pos = [], [], [], []
    for name, texts, use_refs in cands_all:
        keep, cands, refs = scorable(dataset, texts, use_refs)
        if cands:
            parts.append((name, keep, len(all_c)))
            all_c += cands
            all_r += refs
            seg_pos += [pos_of[s] for s in keep]
    out = {}
    if not all_c:
        return out
    stats = segment_stats_by_segment(metric, all_c, all_r, seg_pos, progress)
    for name, keep, pos in parts:
        out[name] = (keep, stats[pos:pos + len(keep)])
    return out


def system_stats(dataset: Dataset, metric_ids: Sequence[str], include_references: bool = False,
                 progress: Progress = None, ref_ids: Sequence[str] | None = None,
                 judged_only: str | None = None) -> dict:
    """metric -> {candidate -> (seg_ids, statistics)}; the corpus score of a candidate is
    ``metric.score_from_stats(statistics)`` (= score_table's system level). ``ref_ids``: the
    reference set every candidate is scored against; ``judged_only``: a criterion, keep only
    the segments judged for each candidate under it. Cached on disk."""
    h = dataset.content_hash()
    segments = judged_segments(dataset, judged_only) if judged_only else None
    refs_key = tuple(ref_ids) if ref_ids else None
    out = {}
    n = max(len(metric_ids), 1)
    for i, m in enumerate(metric_ids):
        cb = _sub(progress, i / n, (i + 1) / n, f"corpus statistics: {m}")
        key = (h, m, metric_signature(m), include_references)
        if refs_key or judged_only:
            key += (refs_key, judged_only)
        out[m] = _cached("sysstats", key, lambda m=m, cb=cb: _stats_for(dataset, m, include_references, cb,
                                                                         ref_ids, segments))
    return out


def judged_segments(dataset: Dataset, criterion: str) -> dict[str, set[str]]:
    """system (or judged reference set) -> the seg_ids judged under ``criterion``."""
    j = dataset.judgements
    j = j[j["judgement"] == criterion]
    return {s: set(g["seg_id"].astype(str)) for s, g in j.groupby("system", sort=False)}


def tensors(dataset: Dataset, metric_ids: Sequence[str], progress: Progress = None) -> dict:
    """metric -> :class:`SimTensors` (the engine caches them on disk)."""
    from .metrics.engine import similarity_tensors_many

    def seg_progress(done: int, total: int) -> None:
        if progress:
            progress(done / max(total, 1), f"similarities: segment {done} of {total}")

    out = similarity_tensors_many(dataset, list(metric_ids), progress=seg_progress)
    if progress:
        progress(1.0, "similarities ready")
    return out


_INDEX_CACHE: "OrderedDict[tuple, object]" = OrderedDict()


def queen_index(dataset: Dataset, metric_ids: Sequence[str], mode: str = "auto", ties: str = "geq",
                progress: Progress = None):
    """A :class:`~evalcore.qarla.queen.QueenIndex` over ``metric_ids`` (kept in a small
    in-process LRU keyed by content hash, metrics and options)."""
    from .qarla import QueenIndex

    key = (dataset.content_hash(), tuple((m, metric_signature(m)) for m in metric_ids), mode, ties)
    if key in _INDEX_CACHE:
        _INDEX_CACHE.move_to_end(key)
        return _INDEX_CACHE[key]
    ts = tensors(dataset, metric_ids, _stage(progress, 0.0, 0.8))
    idx = QueenIndex({m: ts[m] for m in metric_ids}, mode=mode, ties=ties,
                     progress=_sub(progress, 0.8, 1.0, "QUEEN comparison bits"))
    _INDEX_CACHE[key] = idx
    while len(_INDEX_CACHE) > 4:
        _INDEX_CACHE.popitem(last=False)
    return idx


def _stage(progress: Progress, lo: float, hi: float) -> Progress:
    if progress is None:
        return None
    return lambda f, text: progress(lo + (hi - lo) * f, text)


def human_segment_scores(dataset: Dataset, criterion: str, normalisation: str = "raw",
                         include_references: bool = True) -> pd.DataFrame:
    """system, seg_id, score, n_ratings: ratings of ``criterion`` normalised per rater and
    averaged per (system, segment) (methods §0, §5.1-5.2; :func:`evalcore.human.scores.human_scores`)."""
    from .human.scores import human_scores

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = human_scores(dataset, criterion, normalisation, include_references=include_references)
    out["seg_id"] = out["seg_id"].astype(str)
    return out


# =============================================================================================
# Systems page
# =============================================================================================
def _mark(p: float, alpha: float, diff: float) -> str:
    if not np.isfinite(p):
        return ""
    if p < alpha:
        return "▲ better" if diff > 0 else "▼ worse"
    return "≈ n.s."


def system_table(dataset: Dataset, metric_ids: Sequence[str], criteria: Sequence[str] = (),
                 baseline: str | None = None, include_references: bool = False,
                 normalisation: str = "raw", n_boot: int = 200, test: str = "bootstrap",
                 alpha: float = 0.05, seed: int = 12345, progress: Progress = None,
                 ref_ids: Sequence[str] | None = None, judged_only: str | None = None) -> pd.DataFrame:
    """Corpus scores of every system (and, with ``include_references``, of every human
    translation scored as a system: Freitag et al. 2021) under every metric, and system-level
    human scores of every criterion, with percentile bootstrap CIs over segments and a paired
    test against ``baseline``.

    ``ref_ids``: the reference set every candidate is scored against; the reference sets not
    in it are the human translations scored as systems (without ``ref_ids``: each against the
    other sets, see :func:`evalcore.metrics.engine.candidate_plan`); a human translation in
    ``ref_ids`` is left out, human scores included. ``judged_only``: a criterion; metric
    scores over only the segments judged for each candidate under it (``n_segments``).

    Metric score = corpus score from summed sufficient statistics (score_table's system level).
    CI: ``n_boot`` resamples of the candidate's segments, the score recomputed from the
    resampled statistics (percentile interval, 1 − ``alpha``). Human score = mean over segments
    of the per-(system, segment) score of the criterion (methods §5.2), CI by resampling segments.
    Paired test vs the baseline on the segments both have: ``bootstrap`` = paired bootstrap
    resampling (Koehn 2004; sacreBLEU semantics), ``ar`` = approximate randomisation
    (Riezler & Maxwell 2005). ``mark``: ▲ better / ▼ worse (p < alpha, orientation-aware), ≈ n.s.

    Columns: kind (metric|human), measure, system, is_reference, score, ci_lo, ci_hi, n_segments,
    p_value, mark, higher_is_better. Cached on disk by content hash, signatures and parameters.
    """
    if test not in ("bootstrap", "ar"):
        raise ValueError("test must be bootstrap or ar")
    key = (dataset.content_hash(), tuple((m, metric_signature(m)) for m in metric_ids), tuple(criteria),
           baseline, include_references, normalisation, n_boot, test, alpha, seed)
    if ref_ids or judged_only:
        key += (tuple(ref_ids or ()), judged_only)
    return _cached("systable", key, lambda: _system_table(
        dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test, alpha,
        seed, progress, ref_ids, judged_only))


def _system_table(dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test,
                  alpha, seed, progress, ref_ids=None, judged_only=None) -> pd.DataFrame:
    from .metrics.base import get_metric
    from .stats.bootstrap import percentile_bootstrap
    from .stats.significance import paired_approximate_randomization, paired_bootstrap

    refs = set(dataset.ref_ids)
    rows = []
    stats = system_stats(dataset, metric_ids, include_references, _stage(progress, 0.0, 0.7), ref_ids, judged_only)
    n_items = max(sum(len(v) for v in stats.values()) + len(criteria), 1)
    done = 0
    paired = paired_bootstrap if test == "bootstrap" else paired_approximate_randomization
    n_paired = n_boot  # resamples (bootstrap) or random swaps (approximate randomisation)
    for m in metric_ids:
        metric = get_metric(m)
        hib = metric.meta.higher_is_better
        per = stats.get(m, {})

        def score_fn(summed, metric=metric):
            return metric.score_from_stats(np.atleast_2d(summed))

        base = per.get(baseline) if baseline else None
        for name, (segs, st) in per.items():
            score = metric.score_from_stats(st)
            lo = hi = float("nan")
            if n_boot and len(segs) > 1:
                lo, hi, _ = percentile_bootstrap(lambda i, st=st, metric=metric: metric.score_from_stats(st[i]),
                                                 len(segs), n_boot, alpha, seed)
            p, mark = float("nan"), ""
            if base is not None and name == baseline:
                mark = "baseline"
            elif base is not None and n_boot:
                common = sorted(set(segs) & set(base[0]), key={s: i for i, s in enumerate(base[0])}.get)
                if len(common) > 1:
                    pa = {s: i for i, s in enumerate(base[0])}
                    pb = {s: i for i, s in enumerate(segs)}
                    a = base[1][[pa[s] for s in common]]
                    b = st[[pb[s] for s in common]]
                    res = paired(a, b, score_fn, n_samples=n_paired, seed=seed)
                    p = float(res.p_value)
                    diff = (res.score_b - res.score_a) * (1 if hib else -1)
                    mark = _mark(p, alpha, diff)
            rows.append({"kind": "metric", "measure": m, "system": name, "is_reference": name in refs,
                         "score": float(score), "ci_lo": lo, "ci_hi": hi, "n_segments": len(segs),
                         "p_value": p, "mark": mark, "higher_is_better": hib})
            done += 1
            if progress:
                progress(0.7 + 0.3 * done / n_items, f"bootstrap: {m}")
    from .stats.tables import human_systems

    human_names = human_systems(dataset)
    for crit in criteria:
        hs = human_segment_scores(dataset, crit, normalisation, include_references=True)
        if not include_references:
            hs = hs[~hs["system"].isin(set(human_names))]
        elif ref_ids:  # the chosen reference set is not a candidate
            hs = hs[~hs["system"].isin(set(ref_ids))]
        by = {s: g.set_index("seg_id")["score"] for s, g in hs.groupby("system", sort=False)}
        base = by.get(baseline) if baseline else None
        for name, ser in by.items():
            vals = ser.to_numpy(float)
            lo = hi = float("nan")
            if n_boot and len(vals) > 1:
                lo, hi, _ = percentile_bootstrap(lambda idx, vals=vals: vals[idx].mean(axis=1), len(vals), n_boot,
                                                 alpha, seed, vectorized=True)
            p, mark = float("nan"), ""
            if base is not None and name == baseline:
                mark = "baseline"
            elif base is not None and n_boot:
                common = base.index.intersection(ser.index)
                if len(common) > 1:
                    res = paired(base.loc[common].to_numpy(float), ser.loc[common].to_numpy(float),
                                 None, n_samples=n_paired, seed=seed)
                    p = float(res.p_value)
                    mark = _mark(p, alpha, res.score_b - res.score_a)
            rows.append({"kind": "human", "measure": crit, "system": name,
                         "is_reference": name in refs or name in human_names,
                         "score": float(vals.mean()), "ci_lo": lo, "ci_hi": hi, "n_segments": len(vals),
                         "p_value": p, "mark": mark, "higher_is_better": True})
        done += 1
        if progress:
            progress(min(1.0, 0.7 + 0.3 * done / n_items), f"human scores: {crit}")
    if progress:
        progress(1.0, "system table ready")
    cols = ["kind", "measure", "system", "is_reference", "score", "ci_lo", "ci_hi", "n_segments",
            "p_value", "mark", "higher_is_better"]
    return pd.DataFrame(rows, columns=cols)


def system_wide(table: pd.DataFrame) -> pd.DataFrame:
    """One row per system, one column per measure (score), plus ``<measure> CI`` and mark columns."""
    if table.empty:
        return pd.DataFrame(columns=["system"])
    out = table.pivot_table(index="system", columns="measure", values="score", sort=False)
    order = list(dict.fromkeys(table["measure"]))
    out = out.reindex(columns=order)
    marks = table.pivot_table(index="system", columns="measure", values="mark", aggfunc="first", sort=False)
    for m in order:
        if m in marks and marks[m].astype(str).str.len().gt(0).any():
            out[f"{m} vs baseline"] = marks[m].reindex(out.index)
    out = out[[c for m in order for c in (m, f"{m} vs baseline") if c in out.columns]]
    return out.reset_index()


def rank_table(table: pd.DataFrame) -> pd.DataFrame:
    """Rank of every system (1 = best, orientation-aware, average ranks on ties) under every
    measure of a :func:`system_table`; systems missing for a measure are NaN."""
    if table.empty:
        return pd.DataFrame(columns=["system"])
    parts = {}
    for m, g in table.groupby("measure", sort=False):
        sign = 1.0 if bool(g["higher_is_better"].iloc[0]) else -1.0
        s = g.set_index("system")["score"] * sign
        parts[m] = s.rank(ascending=False, method="average")
    out = pd.DataFrame(parts)
    return out.reset_index().rename(columns={"index": "system"})


def rank_agreement(table: pd.DataFrame, method: str = "kendall") -> pd.DataFrame:
    """Kendall τ_b (or Spearman/Pearson) between the system scores of every pair of measures,
    over the systems both score (orientation-aware: an error rate agreeing with humans gets a
    positive value). Square frame measure × measure (NaN with fewer than 3 common systems)."""
    from .stats.correlation import correlation

    measures = list(dict.fromkeys(table["measure"]))
    vec = {}
    for m, g in table.groupby("measure", sort=False):
        sign = 1.0 if bool(g["higher_is_better"].iloc[0]) else -1.0
        vec[m] = g.set_index("system")["score"] * sign
    mat = np.full((len(measures), len(measures)), np.nan)
    for i, a in enumerate(measures):
        for j, b in enumerate(measures):
            common = vec[a].index.intersection(vec[b].index)
            if len(common) >= 3:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mat[i, j] = correlation(vec[a].loc[common].to_numpy(), vec[b].loc[common].to_numpy(),
                                            method).value
    return pd.DataFrame(mat, index=measures, columns=measures)


def schulze_consensus(table: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    """Schulze consensus (methods §5.4, winning votes) of the system rankings of ``measures`` (each
    measure of a :func:`system_table` is one ballot). Columns: rank, system, beats."""
    from .human.ranking import schulze

    ballots = []
    for m in measures:
        g = table[table["measure"] == m]
        if g.empty:
            continue
        sign = 1.0 if bool(g["higher_is_better"].iloc[0]) else -1.0
        ballots.append(dict(zip(g["system"], -sign * g["score"].to_numpy(float))))
    if not ballots:
        return pd.DataFrame(columns=["rank", "system", "beats"])
    res = schulze(ballots)
    return _schulze_frame(res)


def _schulze_frame(res) -> pd.DataFrame:
    rows = []
    for pos, group in enumerate(res.ranking, start=1):
        for c in group:
            rows.append({"rank": pos, "system": c, "beats": int(res.beats[c])})
    return pd.DataFrame(rows, columns=["rank", "system", "beats"])


def judges_consensus(dataset: Dataset, criterion: str) -> pd.DataFrame:
    """Schulze consensus over the judges' ballots of ``criterion``: every (rater, segment) is a
    partial ballot ranking the systems it scored (methods §5.4; Callison-Burch 2009 §4; Schulze 2011).

    Columns rank, system, beats, mean_score (the mean of the system's judgements, to compare
    with). ``attrs["support"]``: the :class:`~evalcore.human.ranking.BallotSupport` — how many ballots
    compare ≥ 2 systems and how many comparisons each pair rests on (``support.few`` and
    ``support.warning()`` when the ranking rests on few comparisons)."""
    from .human.ranking import schulze_from_judgements
    from .human.scores import criterion_judgements

    j = criterion_judgements(dataset, criterion)
    res = schulze_from_judgements(j)
    out = _schulze_frame(res)
    out["mean_score"] = out["system"].map(j.groupby("system")["score"].mean())
    out.attrs["support"] = res.support
    return out


# =============================================================================================
# Human-likeness: Amigó et al. 2006 Figure 1 and the KING case explorer
# =============================================================================================
def figure1_table(dataset: Dataset, metric_ids: Sequence[str], ties: str = "geq",
                  average: str = "micro", bootstrap: int = 0, progress: Progress = None) -> pd.DataFrame:
    """ORANGE and KING of every metric (methods §0, §1.1; Amigó et al. 2006 §2.2, Figure 1) with the
    random baselines (KING 1/(|A_s|+1) averaged, ORANGE 1/2), the exact shuffle baseline,
    tie rates, optional bootstrap CIs and each metric's signature."""
    from .qarla import orange_king

    ts = tensors(dataset, metric_ids, _stage(progress, 0.0, 0.9))
    rows = []
    for m in metric_ids:
        r = orange_king(ts[m], ties=ties, average=average, bootstrap=bootstrap).as_row()
        r["signature"] = ts[m].signature
        rows.append(r)
    if progress:
        progress(1.0, "ORANGE / KING ready")
    out = pd.DataFrame(rows)
    for c in ("orange_lo", "orange_hi", "king_lo", "king_hi"):
        if c not in out:
            out[c] = np.nan
    return out


def king_case_table(dataset: Dataset, metric_id: str, ties: str = "geq") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cases, outputs) for the case explorer: one row per (segment, held-out reference) case
    with its KING credit, the best output and its margin (failed cases first), and one row per
    output of every case (which outputs beat the held-out human translation)."""
    from .qarla import king_case_summary, king_cases

    t = tensors(dataset, [metric_id])[metric_id]
    summ = king_case_summary(t, ties=ties)
    summ = summ.assign(failed=summ["n_beat"] > 0)
    summ = summ.sort_values(["failed", "best_margin"], ascending=[False, False], kind="stable")
    return summ.reset_index(drop=True), king_cases(t)


# =============================================================================================
# Figure 3: KING vs correlation with humans, three groups (methods §0)
# =============================================================================================
def _corr_frame(human: pd.DataFrame, scores: pd.DataFrame, method: str, level: str,
                bootstrap: int) -> pd.DataFrame:
    from .stats.tables import correlation_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # resample segments (items): with few systems, resampling systems too makes the CI meaningless
        return correlation_table(human, scores, level=level, method=method, bootstrap=bootstrap, seed=0,
                                 resample="items" if level == "segment" else "systems")


def _queen_frame(qv, name: str) -> pd.DataFrame:
    df = qv.to_frame()
    df = df[np.isfinite(df["queen"].to_numpy(float))]
    return pd.DataFrame({"metric": name, "system": df["system"].to_numpy(), "seg_id": df["seg_id"].astype(str),
                         "score": df["queen"].to_numpy(float)})


def figure3_points(dataset: Dataset, metric_ids: Sequence[str], criterion: str,
                   selected: Sequence[str] | None = None, method: str = "pearson", level: str = "segment",
                   mode: str = "auto", normalisation: str = "raw", ties: str = "geq", average: str = "micro",
                   bootstrap: int = 0, progress: Progress = None, judged_only: bool = True) -> pd.DataFrame:
    """The points of Amigó et al. 2006 Figure 3 (methods §0): x = KING, y = correlation with the human
    criterion, in three groups:

    * ``standard metric``: KING of §1.1 (orange_king) vs corr(x(a, R_s), human);
    * ``QUEEN of one metric``: KING of {x} (§1.3) vs corr(QUEEN_{x}(a), human);
    * ``selected set``: KING(X) vs corr(QUEEN_X(a), human) for ``selected`` (default: the
      greedy search's set, methods §0).

    Correlations over the systems' (not the references') judged outputs; ``level`` segment
    (grouping none) or system. ``bootstrap`` > 0 adds percentile CIs for KING (segments
    resampled) and for the correlation (segments resampled at segment level, systems at
    system level; methods §3.8). At system level a system's metric (or QUEEN) score is the mean of
    its segment scores over the segments judged for it (``judged_only``, the default) or over
    every segment it has a score for. Columns: group, label, metrics, king, king_lo, king_hi,
    orange, corr, corr_lo, corr_hi, n, n_segments.
    """
    from .qarla import greedy_search, orange_king

    refs = set(dataset.ref_ids)
    idx = queen_index(dataset, metric_ids, mode=mode, progress=_stage(progress, 0.0, 0.5))
    human = human_segment_scores(dataset, criterion, normalisation, include_references=False)
    human = human[~human["system"].isin(refs)]
    seg = segment_scores(dataset, metric_ids, progress=_stage(progress, 0.5, 0.8))
    if selected is None:
        selected = greedy_search(None, mode=mode, ties=ties, average=average, index=idx).chosen
    selected = list(selected)
    frames = [seg]
    for m in metric_ids:
        frames.append(_queen_frame(idx.values([m]), f"queen:{m}"))
    set_name = "QUEEN{" + ",".join(selected) + "}"
    frames.append(_queen_frame(idx.values(selected), set_name))
    allscores = pd.concat(frames, ignore_index=True)
    if level == "system" and not judged_only:
        allscores = (allscores.groupby(["metric", "system"], sort=False)["score"].agg(["mean", "size"])
                     .reset_index().rename(columns={"mean": "score", "size": "n_segments"}).assign(seg_id=""))
    if progress:
        progress(0.85, "correlations")
    corr = _corr_frame(human, allscores, method, level, bootstrap).set_index("metric")
    rows = []

    def ci(res, key):
        lo, hi = res.ci.get(key, (np.nan, np.nan)) if res.ci else (np.nan, np.nan)
        return lo, hi

    def crow(name):
        if name in corr.index:
            r = corr.loc[name]
            return float(r["value"]), float(r["ci_low"]), float(r["ci_high"]), int(r["n"])
        return np.nan, np.nan, np.nan, 0

    def nseg(name):
        sub = allscores[allscores["metric"] == name]
        if "n_segments" in sub and (sub["seg_id"] == "").all():
            return int(sub["n_segments"].max()) if len(sub) else 0
        cells = sub.merge(human[["system", "seg_id"]], on=["system", "seg_id"])
        return int(cells["seg_id"].nunique())

    ts = idx.tensors
    for m in metric_ids:
        ok = orange_king(ts[m], ties=ties, average=average, bootstrap=bootstrap)
        c, clo, chi, n = crow(m)
        klo, khi = ci(ok, "king")
        rows.append({"group": "standard metric", "label": m, "metrics": m, "king": ok.king, "king_lo": klo,
                     "king_hi": khi, "orange": ok.orange, "corr": c, "corr_lo": clo, "corr_hi": chi, "n": n,
                     "n_segments": nseg(m)})
        kq = idx.king([m], ties=ties, average=average, bootstrap=bootstrap)
        c, clo, chi, n = crow(f"queen:{m}")
        klo, khi = ci(kq, "king")
        rows.append({"group": "QUEEN of one metric", "label": f"QUEEN({m})", "metrics": m, "king": kq.king,
                     "king_lo": klo, "king_hi": khi, "orange": kq.orange, "corr": c, "corr_lo": clo,
                     "corr_hi": chi, "n": n, "n_segments": nseg(f"queen:{m}")})
    ks = idx.king(selected, ties=ties, average=average, bootstrap=bootstrap)
    c, clo, chi, n = crow(set_name)
    klo, khi = ci(ks, "king")
    rows.append({"group": "selected set", "label": set_name, "metrics": ",".join(selected), "king": ks.king,
                 "king_lo": klo, "king_hi": khi, "orange": ks.orange, "corr": c, "corr_lo": clo,
                 "corr_hi": chi, "n": n, "n_segments": nseg(set_name)})
    if progress:
        progress(1.0, "Figure 3 ready")
    return pd.DataFrame(rows)


def metric_set_search(dataset: Dataset, metric_ids: Sequence[str], method: str = "greedy",
                      mode: str = "auto", ties: str = "geq", average: str = "micro",
                      progress: Progress = None, min_coverage: float = 0.95,
                      exclude_degenerate: bool = True):
    """Greedy (methods §0) or exhaustive (≤ 12 metrics) KING-driven metric-set search; returns the
    :class:`~evalcore.qarla.search.SearchResult` (chosen set, KING, ORANGE, ranking, trace, and
    ``excluded``: the metrics left out first because their :func:`~evalcore.qarla.search.coverage`
    (defined similarities among the pairs whose texts exist, from the dataset's texts) is below
    ``min_coverage`` (0 disables) or, with ``exclude_degenerate``, because their single-metric
    KING is decided by ties (KING ≥ 0.99, tie rate ≥ 0.9; docs/findings.md, issue 8)."""
    from .qarla import exhaustive_search, greedy_search
    from .qarla.search import text_presence

    idx = queen_index(dataset, metric_ids, mode=mode, progress=_stage(progress, 0.0, 0.4))
    cb = _sub(progress, 0.4, 1.0, f"{method} search")
    kw = dict(mode=mode, ties=ties, average=average, index=idx, progress=cb, min_coverage=min_coverage,
              exclude_degenerate=exclude_degenerate,
              presence=text_presence(dataset, next(iter(idx.tensors.values()))))
    if method == "greedy":
        return greedy_search(None, **kw)
    if method == "exhaustive":
        return exhaustive_search(None, **kw)
    raise ValueError("method must be greedy or exhaustive")


# =============================================================================================
# Figure 4: QUEEN vs human
# =============================================================================================
def queen_human_points(dataset: Dataset, metric_set: Sequence[str], criterion: str, mode: str = "auto",
                       normalisation: str = "raw", progress: Progress = None) -> pd.DataFrame:
    """QUEEN_X (methods §1.2) of every judged (system, segment) against its human score (Amigó et al. 2006
    Figure 4). Columns: system, seg_id, queen, human, n_ratings, mode."""
    idx = queen_index(dataset, metric_set, mode=mode, progress=progress)
    q = idx.values(list(metric_set)).to_frame()
    q["seg_id"] = q["seg_id"].astype(str)
    h = human_segment_scores(dataset, criterion, normalisation, include_references=False)
    pts = q.merge(h.rename(columns={"score": "human"}), on=["system", "seg_id"], how="inner")
    pts = pts[np.isfinite(pts["queen"].to_numpy(float)) & np.isfinite(pts["human"].to_numpy(float))]
    return pts[["system", "seg_id", "queen", "human", "n_ratings", "mode"]].reset_index(drop=True)


def quadrant_thresholds(dataset: Dataset, points: pd.DataFrame, criterion: str,
                        normalisation: str = "raw") -> tuple[float, float]:
    """Default thresholds of Figure 4's quadrant "acceptable to humans but not human-like":
    human ≥ the first quartile of the judged references' human scores when references are
    judged (as acceptable as three in four human translations), else the 75th percentile of the points;
    QUEEN ≤ the median QUEEN of the points."""
    if points.empty:
        return float("nan"), float("nan")
    refs = set(dataset.ref_ids)
    h = human_segment_scores(dataset, criterion, normalisation, include_references=True)
    hr = h[h["system"].isin(refs)]["score"]
    h_thr = float(hr.quantile(0.25)) if len(hr) else float(points["human"].quantile(0.75))
    q_thr = float(points["queen"].median())
    return h_thr, q_thr


def quadrant_table(points: pd.DataFrame, human_threshold: float, queen_threshold: float) -> pd.DataFrame:
    """Points with human ≥ threshold and QUEEN ≤ threshold, most acceptable / least human-like first."""
    sel = points[(points["human"] >= human_threshold) & (points["queen"] <= queen_threshold)]
    return sel.sort_values(["queen", "human"], ascending=[True, False], kind="stable").reset_index(drop=True)


# =============================================================================================
# Divergence browser
# =============================================================================================
def signal_table(dataset: Dataset, metric_ids: Sequence[str], criteria: Sequence[str] = (),
                 queen_set: Sequence[str] | None = None, normalisation: str = "raw",
                 per_rater: bool = True, mode: str = "auto", progress: Progress = None) -> pd.DataFrame:
    """One row per (system, seg_id) output, one column per signal:

    * ``metric:<id>`` multi-reference segment score (own scale);
    * ``human:<criterion>`` aggregated (normalised) human score;
    * ``judge:<criterion>:<rater>`` each rater's raw score (judge vs judge);
    * ``queen:<a,b,...>`` QUEEN of the set (methods §1.2);

    plus ``tags`` (phenomenon tags joined by ", "), ``src_len`` / ``out_len`` (whitespace tokens).
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
    src_len = dict(zip(dataset.segments["seg_id"], dataset.segments["source"].str.split().str.len()))
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
        sc = segment_scores(dataset, metric_ids, progress=_stage(progress, 0.0, 0.6))
        wide = sc.pivot_table(index=key, columns="metric", values="score", sort=False)
        wide.columns = [f"metric:{c}" for c in wide.columns]
        base = base.merge(wide.reset_index(), on=key, how="left")
    for crit in criteria:
        h = human_segment_scores(dataset, crit, normalisation, include_references=False)
        base = base.merge(h[key + ["score"]].rename(columns={"score": f"human:{crit}"}), on=key, how="left")
        if per_rater:
            from .human.scores import criterion_judgements

            j = criterion_judgements(dataset, crit)
            raters = list(dict.fromkeys(j["rater"]))
            if len(raters) > 1:
                jj = j.assign(seg_id=j["seg_id"].astype(str)).groupby(key + ["rater"], sort=False)["score"].mean()
                jw = jj.unstack("rater")
                jw.columns = [f"judge:{crit}:{r}" for r in jw.columns]
                base = base.merge(jw.reset_index(), on=key, how="left")
    if queen_set:
        idx = queen_index(dataset, list(queen_set), mode=mode, progress=_stage(progress, 0.6, 0.95))
        q = idx.values(list(queen_set)).to_frame()[["system", "seg_id", "queen"]]
        q["seg_id"] = q["seg_id"].astype(str)
        base = base.merge(q.rename(columns={"queen": "queen:" + ",".join(queen_set)}), on=key, how="left")
    if progress:
        progress(1.0, "signals ready")
    return base


def signal_columns(signals: pd.DataFrame) -> list[str]:
    return [c for c in signals.columns if c.split(":")[0] in ("metric", "human", "judge", "queen")]


def signal_orientation(column: str) -> float:
    """+1 when a higher value of the signal means a better output (error-rate metrics: −1)."""
    kind, _, rest = column.partition(":")
    return _orientation(rest) if kind == "metric" else 1.0


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
    from scipy.stats import rankdata

    out[ok] = (rankdata(x[ok], method="average") - 1.0) / (n - 1.0)
    return out


def divergence_table(signals: pd.DataFrame, a: str, b: str, systems: Sequence[str] | None = None,
                     tags: Sequence[str] | None = None, length: tuple[int, int] | None = None,
                     a_range: tuple[float, float] | None = None, b_range: tuple[float, float] | None = None,
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
    out = out.iloc[order].reset_index(drop=True)
    out.attrs["a"], out.attrs["b"] = a, b
    return out


def ref_side_spans(cand_tokens: Sequence[str], ref_tokens: Sequence[str], max_order: int = 4) -> list[tuple[int, int]]:
    """Half-open token spans of the reference covered by n-grams (n ≤ ``max_order``) it shares
    with the candidate, clipped by the candidate's counts (the reference side of BLEU's
    modified precision, Papineni et al. 2002 §2.1), merged into maximal runs."""
    from collections import Counter

    covered = set()
    for n in range(1, max_order + 1):
        cc = Counter(tuple(cand_tokens[i:i + n]) for i in range(len(cand_tokens) - n + 1))
        for p in range(len(ref_tokens) - n + 1):
            g = tuple(ref_tokens[p:p + n])
            if cc.get(g, 0) > 0:
                cc[g] -= 1
                covered.update(range(p, p + n))
    spans: list[list[int]] = []
    for p in sorted(covered):
        if spans and spans[-1][1] == p:
            spans[-1][1] = p + 1
        else:
            spans.append([p, p + 1])
    return [(x, y) for x, y in spans]


_ORDER_NAMES = {1: "unigrams", 2: "bigrams", 3: "trigrams", 4: "4-grams"}


def segment_detail(dataset: Dataset, system: str, seg_id: str, signals: pd.DataFrame | None = None,
                   tokenize: str | None = None, max_order: int = 4) -> dict:
    """Everything about one (system, segment) for the divergence browser:

    ``source``, ``output``; ``references``: per reference id, its text, tokens and the matched
    token spans on both sides (output tokens matched by this reference, reference tokens
    matched by the output); ``orders``: the per-order match table of Ananthakrishnan et al. 2007 (matched / total
    candidate n-grams, clipped over all references, e.g. "unigrams 3/4"), with brevity penalty
    and the average precision P of Ananthakrishnan et al. 2007 §5.8; ``scores``: every signal of the row;
    ``judgements``: every rating of the output; ``tags``. ``tokenize``: the BLEU tokenizer
    (default: the page's choice, else sacreBLEU's default for the target language).
    """
    tokenize = tokenize or page_tokenizer(dataset)
    from .metrics.engine import ngram_breakdown

    seg_id = str(seg_id)
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    if seg_id not in pos:
        raise KeyError(f"unknown segment {seg_id!r}")
    s = pos[seg_id]
    out_text = dataset.sys_texts().get(system, [None] * len(pos))[s]
    ref_t = dataset.ref_texts()
    refs = [(r, ref_t[r][s]) for r in dataset.ref_ids if ref_t[r][s] is not None]
    detail = {"system": system, "seg_id": seg_id, "source": dataset.segments["source"].iloc[s],
              "output": out_text, "references": [], "orders": pd.DataFrame(), "summary": {}}
    if out_text is not None and refs:
        bd = ngram_breakdown(out_text, [t for _, t in refs], tokenize=tokenize, max_order=max_order)
        for (rid, text), pr, rtoks in zip(refs, bd["per_reference"], bd["ref_tokens"]):
            detail["references"].append({
                "ref_id": rid, "text": text, "tokens": rtoks,
                "ref_spans": ref_side_spans(bd["cand_tokens"], rtoks, max_order),
                "cand_spans": pr["token_spans"],
                "matched": {n: len(v) for n, v in pr["matched_spans"].items()},
            })
        detail["cand_tokens"] = bd["cand_tokens"]
        detail["orders"] = pd.DataFrame([{
            "order": _ORDER_NAMES.get(o["n"], f"{o['n']}-grams"), "matched": o["matched"], "total": o["total"],
            "match": f"{o['matched']}/{o['total']}", "precision": o["precision"]} for o in bd["orders"]])
        detail["summary"] = {"hyp_len": bd["hyp_len"], "ref_len": bd["ref_len"],
                             "brevity_penalty": bd["brevity_penalty"],
                             "average_precision": bd["average_precision"], "sentence_bleu": bd["bleu"]}
    else:
        detail["references"] = [{"ref_id": r, "text": t, "tokens": None, "ref_spans": [], "cand_spans": [],
                                 "matched": {}} for r, t in refs]
    j = dataset.judgements
    jj = j[(j["system"] == system) & (j["seg_id"].astype(str) == seg_id)]
    detail["judgements"] = jj[["judgement", "rater", "score"]].reset_index(drop=True)
    tg = dataset.tags
    detail["tags"] = tg[(tg["system"] == system) & (tg["seg_id"].astype(str) == seg_id)]["tag"].tolist()
    if signals is not None:
        row = signals[(signals["system"] == system) & (signals["seg_id"].astype(str) == seg_id)]
        cols = signal_columns(signals)
        detail["scores"] = pd.DataFrame({"signal": cols, "value": row[cols].iloc[0].to_numpy(float)}) \
            if len(row) else pd.DataFrame(columns=["signal", "value"])
    else:
        detail["scores"] = pd.DataFrame(columns=["signal", "value"])
    return detail


# =============================================================================================
# Judges (Callison-Burch 2009)
# =============================================================================================
def rater_distributions(dataset: Dataset, criterion: str, normalisation: str = "z") -> pd.DataFrame:
    """Long frame rater, stage (raw | <normalisation>), score for every rating of ``criterion``
    (methods §5.1-5.2), and the summary table in ``attrs["summary"]`` (:func:`rater_summary`)."""
    from .human.normalise import normalise, rater_summary
    from .human.scores import criterion_judgements

    j = criterion_judgements(dataset, criterion)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = normalise(j, normalisation)
    out = pd.concat([pd.DataFrame({"rater": j["rater"].to_numpy(), "stage": "raw",
                                   "score": j["score"].to_numpy(float)}),
                     pd.DataFrame({"rater": n["rater"].to_numpy(), "stage": normalisation,
                                   "score": n["score"].to_numpy(float)})], ignore_index=True)
    out.attrs["summary"] = rater_summary(j, n)
    out.attrs["excluded"] = n.attrs.get("excluded_raters", [])
    return out


def rater_agreement_matrix(labels: pd.DataFrame, chance: str = "uniform") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(P(A), kappa) matrices rater × rater from pairwise labels (methods §5.3): for raters u ≠ v,
    the share of items (criterion, segment, system pair) both labelled on which their labels
    agree (every pairing of their judgements of the item); the diagonal is intra-rater
    agreement over repeated judgements (NaN without repeats). P(E) by ``chance``."""
    from .human.agreement import chance_agreement, kappa

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
        for (u, v), val in t.items():
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
    from .human.agreement import agreement, agreement_curve, alpha_of_judgements, pairwise_labels, per_rater_agreement
    from .human.scores import criterion_judgements

    j = criterion_judgements(dataset, criterion)
    if (j["rater"] != "mean").any():
        j = j[j["rater"] != "mean"]
    raters = list(dict.fromkeys(j["rater"]))
    labels = pairwise_labels(j)
    res = {"raters": raters, "n_ratings": len(j), "labels": labels}
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
            curves.append(c.assign(reference=r))
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
    from .human.hter import hter

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
        for name, g in pe.groupby("system", sort=False) if "system" in pe else []:
            if name not in sys_t:
                continue
            groups = g.groupby("seg_id", sort=False)[col].apply(list)
            segs = [s for s in groups.index if s in pos and sys_t[name][pos[s]] is not None]
            if not segs:
                continue
            res = hter([sys_t[name][pos[s]] for s in segs], [groups[s] for s in segs])
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


# =============================================================================================
# Learn: the seeds' lessons on live numbers
# =============================================================================================
def lessons(dataset: Dataset, criterion: str | None = None, progress: Progress = None) -> dict:
    """Live numbers for the guided tour (every value computed from ``dataset``):

    * ``paraphrase``: per system, mean sentence BLEU and mean human score of ``criterion``, and
      the system ranks under both (Ananthakrishnan et al. 2007: BLEU punishes acceptable paraphrases — e.g. an
      output with synonyms absent from every reference — and misses meaning errors);
    * ``orange``: ORANGE and KING of the default metrics with their baselines (Amigó et al. 2006 §2.3:
      ORANGE < 0.5, systems behave as centroids);
    * ``quadrant``: Figure 4's points under QUEEN{bleu, chrf, meteor} and the quadrant
      "acceptable but not human-like" with its count per system;
    * ``judges``: per-rater mean/sd before normalisation and inter-rater agreement (Callison-Burch 2009).
    """
    from .human.scores import criterion_judgements

    criterion = criterion or default_criterion(dataset)
    mets = default_metrics(dataset)
    out: dict = {"criterion": criterion, "metrics": mets}
    refs = set(dataset.ref_ids)
    if "bleu" in mets and criterion:
        seg = segment_scores(dataset, ["bleu"], progress=_stage(progress, 0.0, 0.2))
        h = human_segment_scores(dataset, criterion, include_references=False)
        h = h[~h["system"].isin(refs)]
        both = seg.merge(h.rename(columns={"score": "human"}), on=["system", "seg_id"])
        t = both.groupby("system", sort=False).agg(bleu=("score", "mean"), human=("human", "mean")).reset_index()
        t["bleu_rank"] = t["bleu"].rank(ascending=False, method="min").astype(int)
        t["human_rank"] = t["human"].rank(ascending=False, method="min").astype(int)
        t["rank_gap"] = t["bleu_rank"] - t["human_rank"]
        out["paraphrase"] = t.sort_values("human", ascending=False).reset_index(drop=True)
    if mets:
        out["orange"] = figure1_table(dataset, mets, progress=_stage(progress, 0.2, 0.7))
        qset = [m for m in ("bleu", "chrf", "meteor") if m in mets] or mets[:1]
        out["queen_set"] = qset
        if criterion:
            pts = queen_human_points(dataset, qset, criterion, progress=_stage(progress, 0.7, 0.9))
            hthr, qthr = quadrant_thresholds(dataset, pts, criterion)
            quad = quadrant_table(pts, hthr, qthr)
            out["quadrant"] = {"points": pts, "human_threshold": hthr, "queen_threshold": qthr,
                               "table": quad, "by_system": quad.groupby("system").size().sort_values(
                                   ascending=False).rename("n").reset_index()}
    if criterion:
        j = criterion_judgements(dataset, criterion)
        out["raters"] = j.groupby("rater", sort=False)["score"].agg(["mean", "std", "size"]).reset_index()
        if j["rater"].nunique() > 1:
            from .human.agreement import agreement, pairwise_labels

            out["agreement"] = agreement(pairwise_labels(j), "inter")
    if progress:
        progress(1.0, "lessons ready")
    return out


def format_ratio(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"
