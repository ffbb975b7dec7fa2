"""A whole campaign: several language pairs side by side (WMT metrics-task tables).

:func:`campaign` takes a collection ``{lp: Dataset}`` (:func:`evalcore.io.load_collection`) and
returns a :class:`Campaign` with

* ``systems`` – one row per (lp, system, measure): the human score (the system-level scores the
  data gives for the criterion when it has them, else the mean over segments of the per-segment
  scores: :func:`evalcore.human.scores.human_system_scores`, as ``correlate``; methods §3.2, §5) and every metric's corpus score (summed statistics), each with
  its rank within the language pair (1 = best, orientation-aware: TER/WER/PER lower is better;
  ties share the best rank);
* ``correlations`` – per language pair and metric the system-level Pearson r, Kendall τ_b and
  pairwise accuracy (methods §3.3, §3.11; methods §3.1-3.4) between human and metric scores, and an ``(all)`` row per
  metric with the mean r and τ over the language pairs and the **global** pairwise accuracy of
  Kocmi et al. (2021, "To Ship or Not to Ship"): the share of all pairs of systems, formed
  within each language pair and pooled over all of them, that the metric orders like the humans
  (a tie on both sides agrees). Metric scores are oriented so that higher is better (error
  rates negated), as in the WMT metrics tasks, so every correlation reads "higher is better";
* ``metric_ranks`` – each metric's rank per language pair (by ``rank_by``), its mean rank,
  and its rank by the averaged statistic;
* ``notes`` – every choice made for the user (segments used, human translations left out,
  systems without human scores, language pairs skipped and why).

Human translations judged like systems (WMT24's ``refA``, WMT21's ``ref-B``/``Human-*``) are left
out of the correlations by default (methods §3.2; ``include_human=True`` keeps them; a reference in use cannot
be scored by a metric against itself, so it gets no metric score). ``judged_only`` scores only
for each system the segments judged for it (as ``score --judged-only``); ``tokenize`` (None: sacreBLEU's
default for each target language, Post 2018) is said in the notes. The defaults of ``judged_only``,
``include_human`` and ``tokenize`` are the shared settings' (:data:`evalcore.scoring.settings.DEFAULTS`:
judged segments only, human translations left out, each target language's tokenizer), as on the
Campaign page and every command. Extra keyword arguments (``**score_options``,
e.g. ``ref_ids``) go to the scorer. ``scheduler`` (:class:`evalcore.scoring.parallel.Scheduler`)
computes the scores on a Dask cluster with identical results.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..scoring import parallel
from ..scoring.defaults import default_criterion
from ..scoring.settings import DEFAULTS, Settings

ALL = "(all)"
STATISTICS = ("pearson", "kendall", "accuracy")  # names of evalcore.stats.registry
WILLIAMS_STATISTICS = ("pearson",)  # Williams' test compares dependent Pearson correlations (methods §3.5)


@dataclass
class Campaign:
    systems: pd.DataFrame
    correlations: pd.DataFrame
    metric_ranks: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    signature: str = ""
    higher_is_better: dict = field(default_factory=dict)  # metric id -> orientation

    def wide(self) -> pd.DataFrame:
        """One row per (lp, system): human score and every metric score, each with its rank."""
        s = self.systems
        if s.empty:
            return pd.DataFrame(columns=["lp", "system"])
        order = list(dict.fromkeys(s["measure"]))
        score = s.pivot_table(index=["lp", "system"], columns="measure", values="score", sort=False, dropna=False)
        rank = s.pivot_table(index=["lp", "system"], columns="measure", values="rank", sort=False, dropna=False)
        out = pd.DataFrame(index=score.index)
        for m in order:
            out[m] = score[m] if m in score else np.nan
            out[f"{m} rank"] = rank[m] if m in rank else np.nan
        return out.reset_index()


def judged_segments(ds: Dataset, criterion: str) -> Dataset:
    """The dataset restricted to the segments with at least one judgement of ``criterion``."""
    j = ds.judgements
    segs = pd.unique(j.loc[j["judgement"] == criterion, "seg_id"].astype(str))
    return ds.subset(seg_ids=segs)


def _ranks(values: pd.Series, higher_is_better: bool) -> pd.Series:
    return values.rank(ascending=not higher_is_better, method="min")


def _lp_statistics(g: np.ndarray, m: np.ndarray) -> dict:
    """Pearson, Kendall τ_b and pairwise accuracy (with its agreeing / total pair counts)."""
    from ..stats.correlation import correlation

    ok = ~np.isnan(g) & ~np.isnan(m)
    g, m = g[ok], m[ok]
    n = len(g)
    iu, ju = np.triu_indices(n, 1)
    agree = int(np.sum(np.sign(g[iu] - g[ju]) == np.sign(m[iu] - m[ju])))
    pairs = int(len(iu))
    pear = correlation(g, m, "pearson").value if n >= 3 else float("nan")
    kend = correlation(g, m, "kendall").value if n >= 2 else float("nan")
    return {"pearson": float(pear), "kendall": float(kend), "accuracy": agree / pairs if pairs else float("nan"),
            "n_systems": n, "agree": agree, "pairs": pairs}


def campaign(collection: dict[str, Dataset], metrics: Sequence[str], criterion: str | None = None, *,
             lps: Sequence[str] | None = None, settings: Settings = DEFAULTS,
             normalisation: str = "raw", rank_by: str = "pearson", scheduler=None,
             progress: Callable[[int, int], None] | None = None, scorer: Callable | None = None,
             exclude: Sequence[str] = (), **score_options) -> Campaign:
    """Systems × language pairs, per-pair and averaged system-level correlations and each
    metric's rank across pairs (see the module docstring; Kocmi et al. 2021).

    ``settings`` (the shared :class:`~evalcore.scoring.settings.Settings`): ``judged_only`` (metric
    scores over the segments judged for the criterion, per system), ``tokenizer`` (None: sacreBLEU's
    default for each pair's target language) and ``include_human_systems`` (human translations
    judged like systems scored as systems) are read.

    ``scorer``: where the metric scores come from, ``scorer(dataset, metric_ids, tokenize=,
    include_references=, criterion=, **score_options)`` returning the
    :class:`~evalcore.core.results.Result` (system-level rows metric, system, score; notes, warnings)
    that :func:`evalcore.scoring.parallel.score_result` would (``criterion`` is None unless
    ``judged_only``). None: that function, on ``scheduler``.
    The dashboard passes :func:`evalcore.analysis.system_level.cached_scores`, the statistics the
    Systems page caches on disk (the same values). Metrics ``stored:NAME`` are the scores the
    data stores (mt-metrics-eval ``metric-scores/``), used as stored, never recomputed
    (:func:`evalcore.metrics.byo.stored_scores`). ``exclude``: systems left out of every
    language pair (e.g. outliers), said in the notes."""
    from ..human.scores import given_system_scores, human_criteria, human_system_scores
    from ..metrics.base import get_metric
    from ..stats.tables import human_systems

    judged_only, tokenize, include_human = settings.judged_only, settings.tokenizer, settings.include_human_systems

    from ..metrics.byo import register_stored, stored_ids, stored_scores

    if rank_by not in STATISTICS:
        raise ValueError(f"rank_by must be one of {STATISTICS}, not {rank_by!r}")
    register_stored({lp: collection[lp] for lp in (lps or collection) if lp in collection})
    mobj = [get_metric(m) for m in metrics]  # unknown ids fail before any work
    stored_m = [m for m in mobj if m.meta.family == "stored"]
    text_m = [m for m in mobj if m.meta.family != "stored"]
    hib = {m.id: m.meta.higher_is_better for m in mobj}
    want = list(lps) if lps else list(collection)
    unknown = [lp for lp in want if lp not in collection]
    if unknown:
        raise ValueError(f"language pair(s) {unknown} not found; available: {', '.join(collection)}")
    notes: list[str] = []
    toks: dict[str, str | None] = {}  # the tokenizer of each scored language pair
    sigs: dict[str, dict[str, str]] = {}  # per language pair: metric -> the signature of its scores
    sys_rows, stat_rows = [], []
    for i, lp in enumerate(want):
        ds = collection[lp]
        crit = criterion or default_criterion(ds) or next(iter(human_criteria(ds)), None)
        label = lp or "-"
        has_given = crit is not None and len(given_system_scores(ds, crit)) > 0
        if crit is None or crit not in ds.criteria and not (crit == "mqm" and "mqm_errors" in ds.extras) \
                and not has_given:
            notes.append(f"{label}: left out — no human judgements"
                         + (f" of {crit!r}" if crit else "") + f" (criteria: {', '.join(ds.criteria) or 'none'})")
            continue
        segments = None
        if judged_only:
            j = ds.judgements[ds.judgements["judgement"] == crit]
            if mobj and scorer is None:  # (a scorer finds the judged segments itself)
                segments = {sy: set(g["seg_id"].astype(str)) for sy, g in j.groupby("system", sort=False)}
            counts = sorted(set(j["seg_id"].astype(str).groupby(j["system"], sort=False).nunique())) or [0]
            notes.append(f"{label}: metric scores over the segments judged for {crit} for each system "
                         f"({counts[0]}{'-' + str(counts[-1]) if len(counts) > 1 else ''} of {ds.n_segments})")
        elif text_m:
            notes.append(f"{label}: metric scores over all {ds.n_segments} segments")
        from ..metrics.tokenize import resolve_tokenizer

        tok, tok_note = resolve_tokenizer(tokenize, lp) if text_m else (None, "")  # (no metric: nothing tokenised)
        toks[lp] = tok
        # the same human system scores as ``correlate`` and mt-metrics-eval: the given ones if any
        human_result = human_system_scores(ds, crit, normalisation=normalisation)
        notes.append(f"{label}: {tok_note + '; ' if tok_note else ''}{human_result.method}")
        human = human_result.table
        humans = set(human_systems(ds, list(human["system"])))
        hscore = dict(zip(human["system"], human["score"]))
        scores = pd.DataFrame(columns=["metric", "system", "seg_id", "score"])
        if text_m and ds.systems and ds.ref_ids:
            if scorer is None:
                scored = parallel.score_result(ds, text_m, level="system", include_references=include_human,
                                               segments=segments, tokenize=tok, scheduler=scheduler, **score_options)
            else:
                scored = scorer(ds, [m.id for m in text_m], tokenize=tok, include_references=include_human,
                                criterion=crit if judged_only else None, **score_options)
            notes += [f"{label}: {n}" for n in scored.notes + scored.warnings]
            scores = scored.table
            if "signature" in scores:
                sigs[lp] = dict(zip(scores["metric"], scores["signature"]))
        elif text_m:
            notes.append(f"{label}: no system outputs or references with text — no metric scores")
        from ..metrics.byo import stored_name_notes

        notes += [f"{label}: {n}" for n in stored_name_notes(ds, [m.id for m in text_m])]
        if stored_m:  # the data's own scores, as stored
            have = {i.lower() for i in stored_ids(ds)}
            use = [m.id for m in stored_m if m.id in have]
            if len(use) < len(stored_m):
                notes.append(f"{label}: no stored scores of {', '.join(m.id for m in stored_m if m.id not in have)}")
            if use:
                stored = stored_scores(ds, use, "system")
                st = stored.table.assign(metric=stored.table["metric"].str.lower())
                notes += [f"{label}: {n}" for n in stored.notes]
                if judged_only:
                    notes.append(f"{label}: judged segments only does not apply to stored metric scores "
                                 "(used as stored)")
                scores = pd.concat([scores, st[["metric", "system", "seg_id", "score"]]], ignore_index=True)
        systems = list(dict.fromkeys(list(ds.systems) + list(human["system"])))
        gone = [s_ for s_ in systems if s_ in set(exclude)]
        if gone:
            notes.append(f"{label}: left out as asked: {', '.join(gone)}")
            systems = [s_ for s_ in systems if s_ not in set(exclude)]
        if not include_human:
            left = [s for s in systems if s in humans]
            if left:
                notes.append(f"{label}: human translation(s) judged like systems left out: {', '.join(left)} "
                             "(include them with the human-translations option)")
            systems = [s for s in systems if s not in humans]
        unjudged = [s for s in systems if s not in hscore]
        if unjudged:
            notes.append(f"{label}: {len(unjudged)} system(s) without human scores, shown but not correlated: "
                         f"{', '.join(unjudged)}")
        hser = pd.Series([hscore.get(s, np.nan) for s in systems], index=systems, dtype=float)
        block = [pd.DataFrame({"lp": lp, "system": systems, "measure": f"human:{crit}", "kind": "human",
                               "score": hser.to_numpy(), "rank": _ranks(hser, True).to_numpy()})]
        for m in mobj:
            ms = scores[scores["metric"] == m.id].groupby("system")["score"].mean()
            mser = ms.reindex(systems).astype(float)
            block.append(pd.DataFrame({"lp": lp, "system": systems, "measure": m.id, "kind": "metric",
                                       "score": mser.to_numpy(), "rank": _ranks(mser, hib[m.id]).to_numpy()}))
            g = hser.to_numpy()
            x = mser.to_numpy() * (1.0 if hib[m.id] else -1.0)
            stat_rows.append({"lp": lp, "metric": m.id, **_lp_statistics(g, x)})
        sys_rows.extend(block)
        if progress:
            progress(i + 1, len(want))
    systems_t = (pd.concat(sys_rows, ignore_index=True) if sys_rows else
                 pd.DataFrame(columns=["lp", "system", "measure", "kind", "score", "rank"]))
    corr = pd.DataFrame(stat_rows, columns=["lp", "metric", "pearson", "kendall", "accuracy", "n_systems",
                                            "agree", "pairs"])
    if len(corr):
        avg = []
        for mid, sub in corr.groupby("metric", sort=False):
            pairs = int(sub["pairs"].sum())
            agree = int(sub["agree"].sum())
            avg.append({"lp": ALL, "metric": mid, "pearson": sub["pearson"].mean(), "kendall": sub["kendall"].mean(),
                        "accuracy": agree / pairs if pairs else np.nan, "n_systems": int(sub["n_systems"].sum()),
                        "agree": agree, "pairs": pairs})
        corr = pd.concat([corr, pd.DataFrame(avg)], ignore_index=True)
        notes.append(f"{ALL}: Pearson and Kendall averaged over the language pairs; accuracy pooled over all "
                     "pairs of systems of every language pair (Kocmi et al. 2021); metric scores oriented "
                     "so that higher is better")
    ranks = metric_ranks(corr, rank_by)
    sig = _signature([m.id for m in mobj], toks, sigs, f"campaign: tokenize {tokenize or 'per-language default'}|lps "
                     f"{','.join(want)}|rank_by:{rank_by}|judged_only:{judged_only}|human_translations:{include_human}"
                     + (f"|exclude:{','.join(exclude)}" if exclude else ""))
    return Campaign(systems_t, corr, ranks, notes, sig, hib)


def _signature(metric_ids: Sequence[str], toks: dict, sigs: dict, extra: str) -> str:
    """sacreBLEU-style signatures of the metrics' system scores in each language pair (the
    signature column of its score table, else :func:`~evalcore.metrics.base.metric_signature`
    with the pair's tokenizer): one group per distinct set of signatures, named by its language
    pairs when they differ (e.g. en-cs with 13a, en-ja with ja-mecab), then evalcore's version
    and ``extra``."""
    from .. import __version__
    from ..metrics.base import metric_signature

    groups: dict = {}
    for lp, tok in toks.items():
        given = sigs.get(lp, {})
        text = "; ".join(f"{m}={given.get(m) or metric_signature(m, level='system', tokenize=tok)}"
                         for m in metric_ids)
        groups.setdefault(text, []).append(lp or "-")
    parts = []
    for text, lps in groups.items():
        parts.append(text if len(groups) == 1 else f"{','.join(lps)}: {text}")
    body = "metrics: " + " / ".join(parts) if metric_ids and parts else "metrics: none"
    return f"{body} | evalcore-{__version__} | {extra}"


def metric_ranks(corr: pd.DataFrame, by: str = "pearson") -> pd.DataFrame:
    """metric, rank in each language pair (1 = highest ``by``), mean rank, rank by the averaged
    (``(all)``) statistic."""
    if corr.empty:
        return pd.DataFrame(columns=["metric", "mean_rank", f"rank_{ALL}"])
    per = corr[corr["lp"] != ALL].copy()
    per["rank"] = per.groupby("lp")[by].rank(ascending=False, method="min")
    wide = per.pivot_table(index="metric", columns="lp", values="rank", sort=False)
    wide.columns = [f"rank_{c}" for c in wide.columns]
    out = wide.reset_index()
    out["mean_rank"] = wide.mean(axis=1).to_numpy()
    allrows = corr[corr["lp"] == ALL].set_index("metric")[by]
    out[f"rank_{ALL}"] = out["metric"].map(allrows.rank(ascending=False, method="min"))
    return out.sort_values(["mean_rank", "metric"], kind="stable").reset_index(drop=True)


def metric_clusters(camp: Campaign, lp: str | None, *, statistic: str = "pearson", test: str = "perm", k: int = 1000,
                    alpha: float = 0.05, seed: int | None = 0):
    """Metric significance clusters of one language pair of a campaign (methods §3.4-3.6; MTME
    ``CompareMetrics``): every pair of metrics compared on the systems all of them score (the
    campaign's systems, human translations and excluded systems already left out), metric scores
    oriented so that higher is better, PERM-BOTH (``test="perm"``, ``k`` draws, any system-level
    statistic of :mod:`evalcore.stats.registry`) or Williams' test (Pearson). Returns
    ``(clusters, pairs, notes)`` as :func:`evalcore.stats.tables.metric_significance`."""
    from ..stats.tables import metric_significance

    if test == "williams" and statistic not in WILLIAMS_STATISTICS:
        raise ValueError("Williams' test compares Pearson correlations: use statistic 'pearson' or test 'perm'")
    s = camp.systems[camp.systems["lp"] == lp]
    human = s[s["kind"] == "human"].dropna(subset=["score"])
    human = pd.DataFrame({"system": human["system"], "seg_id": "", "score": human["score"].astype(float)})
    met = s[(s["kind"] == "metric")].dropna(subset=["score"])
    sign = met["measure"].map(lambda m: 1.0 if camp.higher_is_better.get(m, True) else -1.0)
    met = pd.DataFrame({"metric": met["measure"], "system": met["system"], "seg_id": "",
                        "score": met["score"].astype(float) * sign})
    return metric_significance(human, met, level="system", method=statistic, test=test, k=k, alpha=alpha, seed=seed)
