"""System-level analysis shared by the ``correlate`` command and the Systems, Campaign and Class
pages: the metrics' system-level scores from the disk-cached statistics (:func:`cached_scores`),
their agreement with the human scores with bootstrap CIs (:func:`metrics_vs_humans`; Deutsch,
Dror & Roth 2021), the tests between two metrics' correlations (:func:`metric_tests`; Williams
1959, Graham & Baldwin 2014, PERM-BOTH of Deutsch et al. 2021; methods §3.4-3.6), one sentence per
statistic on the metric that agrees best (:func:`best_metrics`), and the command line that prints
the same numbers (:func:`correlate_command`).

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress, stage
from ..core.results import Result
from ..scoring.scores import system_stats
from ..scoring.settings import DEFAULTS
from ..stats.registry import SIGNIFICANCE


def cached_scores(dataset: Dataset, metric_ids: Sequence[str], *, tokenize: str | None,
                  include_references: bool = DEFAULTS.include_human_systems,
                  criterion: str | None = None, ref_ids: Sequence[str] | None = DEFAULTS.references,
                  progress: Progress = None) -> Result:
    """A :class:`~evalcore.core.results.Result` of system-level rows (metric, system, score, n_segments,
    signature) with the same values, rows, signatures, notes and warnings as
    :func:`evalcore.scoring.parallel.score_result` at level ``system`` with
    ``segments`` = the segments judged under ``criterion`` for each candidate (None: every
    segment), from the disk-cached statistics: the corpus score of a candidate is
    ``metric.score_from_stats`` of its summed per-segment statistics, as in the engine.
    ``tokenize`` (the language pair's tokenizer) is part of the cache key."""
    from ..metrics.base import get_metric, signature_nrefs
    from ..metrics.engine import long_segment_warnings, scorable, score_table, scoring_plan
    from ..scoring.scores import judged_segments

    metrics = [get_metric(m, tokenize) for m in metric_ids]
    text = [m.id for m in metrics if m.meta.needs_text]
    stats = system_stats(dataset, text, include_references, progress, ref_ids, criterion, tokenize=tokenize)
    segments = judged_segments(dataset, criterion) if criterion else None
    cands_all, notes = scoring_plan(dataset, ref_ids, include_references, segments)
    # the engine's nrefs: references per scored segment over every candidate ("var" when it differs)
    ref_lists = [r for _, texts, use in cands_all for r in scorable(dataset, texts, use)[2]] if text else []
    nrefs = signature_nrefs(ref_lists) if ref_lists else None
    rows, sigs = [], {}
    for metric in metrics:
        if metric.id not in stats:  # given scores (no text to score): the engine's rows as they are
            given = score_table(dataset, [metric], level="system", ref_ids=ref_ids,
                                include_references=include_references, segments=segments)
            rows += [(metric.id, system, float(score), n) for system, score, n in
                     zip(given["system"].tolist(), given["score"].tolist(), given["n_segments"].tolist())]
            sigs[metric.id] = given["signature"].iloc[0] if len(given) else metric.signature(None, "system")
            continue
        sigs[metric.id] = metric.signature(nrefs, "system")
        for name, (keep, st) in stats[metric.id].items():
            if len(keep):
                rows.append((metric.id, name, float(metric.score_from_stats(st)), len(keep)))
    table = pd.DataFrame(rows, columns=["metric", "system", "score", "n_segments"]).astype(
        {"metric": str, "system": str, "score": float})
    table["signature"] = table["metric"].map(sigs).astype(str) if len(table) else pd.Series(dtype=str)
    return Result(table, notes=tuple(notes), warnings=tuple(long_segment_warnings(dataset, metrics)))


# ---------------------------------------------------------------------------------------------
# Metrics vs humans: which metric agrees best with the humans at system level (the CLI's numbers)
# ---------------------------------------------------------------------------------------------
#: (correlate's --method, the label shown): Pearson r, Kendall τ_b and the pairwise accuracy of
#: Kocmi et al. (2021) (acc23 with no tie threshold: sign(Δhuman) = sign(Δmetric), ties agree
#: only when both sides tie; Deutsch et al. 2023 §3).
VS_HUMANS_METHODS = (("pearson", "Pearson r"), ("kendall", "Kendall τ_b"), ("acc23", "pairwise accuracy"))


def correlate_command(dataset: Dataset, metric_ids: Sequence[str], criterion: str, settings, method: str,
                      n_boot: int, seed: int = 0, alpha: float = 0.05, normalisation: str = "raw",
                      aggregate: str = "mean", compare: str | None = None, draws: int = 1000) -> str:
    """The ``python -m evalcore correlate`` command line that prints the same numbers (every
    value from the data shell-quoted); ``compare``: also the tests between metrics."""
    from shlex import quote

    parts = ["python -m evalcore correlate DATA"]
    if dataset.lp:
        parts.append(f"--lp {quote(dataset.lp)}")
    parts += [f"--metrics {quote(','.join(metric_ids))}", f"--human {quote(criterion)}", f"--method {method}"]
    if n_boot:
        parts.append(f"--bootstrap {int(n_boot)}")
    if seed:
        parts.append(f"--seed {seed}")
    if alpha != 0.05:
        parts.append(f"--alpha {alpha}")
    if normalisation != "raw":
        parts.append(f"--normalisation {normalisation}")
    if aggregate != "mean":
        parts.append(f"--aggregate {aggregate}")
    if compare:
        parts.append(f"--compare {compare}")
        if compare == "perm" and draws != 1000:
            parts.append(f"--draws {int(draws)}")
    if not settings.judged_only:
        parts.append("--all-segments")
    if settings.orientation != "higher-is-better":
        parts.append(f"--orientation {settings.orientation}")
    if settings.include_human_systems:
        parts.append("--include-human-systems")
    if settings.references:
        parts.append(f"--refs {quote(','.join(settings.references))}")
    if settings.tokenizer:
        parts.append(f"--tokenize {settings.tokenizer}")
    return " ".join(parts)


def metrics_vs_humans(dataset: Dataset, metric_ids: Sequence[str], criterion: str, settings=None, *,
                      n_boot: int = 1000, alpha: float = 0.05, seed: int = 0, normalisation: str = "raw",
                      aggregate: str = "mean", test: str = "williams", n_perm: int = 1000,
                      progress: Progress = None) -> dict:
    """System-level agreement of every metric with the humans of ``criterion``, with bootstrap
    CIs and significance tests between metrics: the numbers of ``python -m evalcore correlate
    --level system --method {pearson,kendall,acc23} --bootstrap n_boot --seed seed`` under the
    same :class:`evalcore.scoring.settings.Settings` (the same functions: human scores by
    :func:`evalcore.human.scores.human_scores`, or the given system-level scores; metric scores
    equal to ``score_table``'s system level; :func:`evalcore.stats.tables.correlation_table`).

    CI: percentile bootstrap over systems (Deutsch, Dror & Roth 2021, BOOT-SYSTEMS; methods
    §3.8). Tests between two metrics (methods §3.4-3.5): Williams' test on Pearson r (Williams
    1959; Graham & Baldwin 2014), or PERM-BOTH for every statistic (Deutsch et al. 2021); the
    metrics are ranked by clusters of significance (methods §3.6). ``p_value`` of a row is for
    "metric_a agrees better than metric_b" (one-sided).

    Returns a dict: ``table`` (metric, method, statistic, value, ci_low, ci_high, n, n_segments),
    ``tests`` (statistic, test, metric_a, metric_b, value_a, value_b, p_value), ``ranks``
    (statistic, metric, value, rank), ``notes`` (what was chosen or left out, and why a value is
    empty or says nothing: :mod:`evalcore.core.undefined`), ``settings`` (the one-line statement),
    ``systems`` (those correlated), ``commands`` (method -> the equivalent CLI line).
    """
    from ..human.scores import given_system_scores, human_scores
    from ..metrics.base import get_metric
    from ..metrics.tokenize import resolve_tokenizer
    from ..stats.tables import correlation_table, human_systems, system_vectors
    from ..core.undefined import correlation_notes

    settings = settings or DEFAULTS
    settings, notes = settings.resolve(dataset)
    given = given_system_scores(dataset, criterion)
    seg = None
    if criterion in dataset.criteria or criterion == "mqm":
        try:
            seg = human_scores(dataset, criterion, normalisation=normalisation, aggregate=aggregate)
        except ValueError:
            if given.empty:
                raise
    if len(given):
        notes.append(f"human scores: the given system-level {criterion} scores of {len(given)} system(s) "
                     "(not the mean of segment scores)")
        human = pd.DataFrame({"system": given["system"], "seg_id": "", "score": given["score"]})
    elif seg is None:
        raise ValueError(f"no judgements for criterion {criterion!r}")
    else:
        human = seg
    if settings.judged_only and (seg is None or seg.empty):
        settings = settings.with_(judged_only=False)
        notes.append(f"metric scores over every segment: {criterion!r} is given per system only")
    refs = list(settings.references) if settings.references else None
    use_refs = refs if refs or not settings.include_human_systems else dataset.ref_ids
    tok = resolve_tokenizer(settings.tokenizer, dataset.lp)[0]
    metric_ids = list(metric_ids)
    frames = []
    if metric_ids:
        sc = cached_scores(dataset, metric_ids, tokenize=tok, include_references=settings.include_human_systems,
                           criterion=criterion if settings.judged_only else None, ref_ids=use_refs,
                           progress=stage(progress, 0.0, 0.6))
        notes += list(sc.notes)
        frames.append(sc.table.assign(seg_id=""))
    scores = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["metric", "system", "score", "n_segments", "seg_id"])
    flip = [m for m in metric_ids if settings.orient(get_metric(m).meta.higher_is_better) < 0]
    if flip:
        scores.loc[scores["metric"].isin(flip), "score"] *= -1.0
        notes.append(f"{', '.join(flip)}: lower is better, negated before correlating")
    humans = human_systems(dataset, list(dict.fromkeys(human["system"])))
    exclude = []
    if not settings.include_human_systems:
        exclude += humans
        if humans:
            notes.append(f"human translations left out: {', '.join(humans)}")
    elif use_refs:
        exclude += list(use_refs)
    rows, tests, ranks = [], [], []
    commands = {}
    systems = [s for s in dict.fromkeys(human["system"]) if s not in set(exclude)]
    hum = human[human["system"].isin(systems)].assign(seg_id=lambda d: d["seg_id"].astype(str))
    for k, (method, label) in enumerate(VS_HUMANS_METHODS):
        if progress:
            progress(0.6 + 0.3 * k / len(VS_HUMANS_METHODS), f"bootstrap: {label}")
        applies = SIGNIFICANCE[test].methods  # the registry: the statistics the test compares (None: all)
        kind = test if applies is None or method in applies else "perm"
        commands[method] = correlate_command(dataset, metric_ids, criterion, settings, method, n_boot, seed, alpha,
                                             normalisation, aggregate, compare=kind if len(metric_ids) > 1 else None,
                                             draws=n_perm)
        if scores.empty:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tab = correlation_table(human, scores, level="system", method=method, exclude_systems=exclude,
                                    bootstrap=n_boot, alpha=alpha, seed=seed)
        r: Any  # a row of the correlation table (column attributes)
        for r in tab.itertuples(index=False):
            rows.append({"metric": r.metric, "method": method, "statistic": label, "value": float(r.value),
                         "ci_low": float(r.ci_low), "ci_high": float(r.ci_high), "n": int(r.n),
                         "n_segments": None if pd.isna(r.n_segments) else int(r.n_segments)})
            ms = scores[scores["metric"] == r.metric]
            use = [s for s in systems if s in set(ms["system"])]
            g, m = system_vectors(hum, ms, use)
            notes += correlation_notes(r.metric, label, g, m, float(r.value), (float(r.ci_low), float(r.ci_high)))
        t, rk, why = metric_tests(hum, scores, systems, metric_ids, method, kind, alpha, n_perm, seed)
        notes += [f"{label}: {w}" for w in why]
        tests += [dict(r, statistic=label) for r in t]
        ranks += [dict(r, statistic=label) for r in rk]
    if progress:
        progress(1.0, "metrics vs humans ready")
    return {"table": pd.DataFrame(rows, columns=["metric", "method", "statistic", "value", "ci_low", "ci_high", "n",
                                                 "n_segments"]),
            "tests": pd.DataFrame(tests, columns=["statistic", "test", "metric_a", "metric_b", "value_a", "value_b",
                                                  "p_value"]),
            "ranks": pd.DataFrame(ranks, columns=["statistic", "metric", "value", "rank"]),
            "notes": list(dict.fromkeys(notes)), "settings": settings.describe(dataset, criterion),
            "systems": systems, "commands": commands, "settings_object": settings}


def best_metrics(table: pd.DataFrame) -> list[str]:
    """One sentence per statistic of a :func:`metrics_vs_humans` table: the metric(s) with the
    highest value (every one on a tie) and the CI (empty values left out; nothing when every
    value is empty)."""
    out = []
    for label, g in table.groupby("statistic", sort=False):
        g = g.dropna(subset=["value"])
        if g.empty:
            continue
        top = g[g["value"] >= g["value"].max() - 1e-12]
        parts = []
        for _, r in top.iterrows():
            ci = (f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]" if pd.notna(r["ci_low"]) and pd.notna(r["ci_high"])
                  else "")
            parts.append(f"{r['metric']} {r['value']:.3f}{ci}")
        tie = " (tied)" if len(top) > 1 else ""
        out.append(f"{label}: {' and '.join(parts)}{tie} (n = {int(top['n'].max())} systems)")
    return out


def metric_tests(human: pd.DataFrame, scores: pd.DataFrame, systems: Sequence[str], metric_ids: Sequence[str],
                 method: str = "pearson", test: str = "williams", alpha: float = 0.05, n_perm: int = 1000,
                 seed: int = 0, detail: bool = False, **corr_kwargs):
    """Tests between every two metrics' system-level correlations with the humans (what the
    Systems page and ``correlate --compare`` show), on the systems every metric scores:
    Williams' test (Williams 1959; Graham & Baldwin 2014; methods §3.5; Pearson only) or
    PERM-BOTH (methods §3.4), ranked into significance clusters (methods §3.6). The one
    computation is :func:`evalcore.stats.tables.metric_significance` (the tests as
    :data:`evalcore.stats.registry.SIGNIFICANCE` describes them); this adds what a page says
    instead of a test: a metric with the same score for every system is left out, and too few
    systems give no test. ``human``/``scores``: the frames
    :func:`evalcore.stats.tables.correlation_table` takes (scores already oriented).

    Returns (rows test, metric_a, metric_b, value_a, value_b, p_value — p for "metric_a agrees
    better than metric_b", one-sided; rows metric, value, rank; notes on why no test was run);
    with ``detail`` also the notes of :func:`~evalcore.stats.tables.metric_significance`."""
    from ..stats.registry import significance_test
    from ..stats.tables import metric_significance, system_vectors
    from ..core.undefined import test_notes

    kind = significance_test(test)
    kind.check(method)
    hum = human[human["system"].isin(systems)].assign(seg_id=lambda d: d["seg_id"].astype(str))
    sc = scores.assign(seg_id=scores["seg_id"].astype(str))
    have = {m: set(sc.loc[sc["metric"] == m, "system"]) for m in metric_ids}
    common = [s for s in dict.fromkeys(hum["system"]) if all(s in have[m] for m in metric_ids)]
    vecs = {m: system_vectors(hum, sc[sc["metric"] == m], common)[1] for m in metric_ids}
    usable = [m for m, v in vecs.items() if len(v) and np.nanstd(v) > 0]
    dropped = [m for m in metric_ids if m not in usable]
    notes = [f"{m}: the same score for every system, left out of the tests" for m in dropped] if len(vecs) > 1 else []
    done = ([], [], notes, []) if detail else ([], [], notes)
    if len(usable) < 2:
        return done
    why = test_notes(len(common), test)
    if why:
        return ([], [], notes + why, []) if detail else ([], [], notes + why)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clusters, pairs, sig_notes = metric_significance(
            hum, sc[sc["metric"].isin(usable)], level="system", method=method, test=test, k=n_perm, alpha=alpha,
            seed=seed, systems=common, **corr_kwargs)
    vals = dict(zip(clusters["metric"].astype(str), clusters["value"].astype(float)))
    rows = [{"test": kind.label, "metric_a": str(a), "metric_b": str(b), "value_a": vals[str(a)],
             "value_b": vals[str(b)], "p_value": float(p)}
            for a, b, p in zip(pairs["better"], pairs["worse"], pairs["p_value"].astype(float))]
    ranks = [{"metric": str(m), "value": float(v), "rank": int(k)}
             for m, v, k in zip(clusters["metric"], clusters["value"].astype(float), clusters["rank"].astype(int))]
    return (rows, ranks, notes, sig_notes) if detail else (rows, ranks, notes)
