"""Systems page: the corpus-level table (scores, bootstrap CIs, paired significance against a
baseline; Koehn 2004), system-level correlations with the human scores, ranks and their
agreement, and the Schulze consensus of the measures (Schulze 2011).

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress, stage
from ..scoring.defaults import metric_signature
from .judges import schulze_frame
from ..scoring.scores import cached, human_segment_scores, system_stats


#: Above this many system outputs (systems × segments, e.g. a WMT test set of ~1,000 segments ×
#: 15 systems) the Systems page starts with :data:`FIRST_METRICS` and offers the other default
#: metrics one click away: METEOR, NIST, GTM, ROUGE-L, WER and PER together take a little over
#: half of these three's time to score on a cold cache (2.5 vs 4.4 CPU s on WMT24 en-cs with
#: main's kernels of 23 Nov 2026; benchmarks/history/RESULTS_pages.md): a first visit scores ~37 % less.
FIRST_METRICS_ABOVE = 5000
#: sacreBLEU's three metrics (Post 2018): what a first visit of a large dataset scores.
FIRST_METRICS = ("bleu", "chrf", "ter")


def first_metrics(dataset: Dataset) -> tuple[list[str], list[str]]:
    """(the metrics a first visit of the Systems page scores, the other default metrics it
    offers to add). Every default metric (:func:`evalcore.scoring.defaults.default_metrics`, Amigó
    et al. 2006's set) up to :data:`FIRST_METRICS_ABOVE` system outputs; above it, the
    default metrics among :data:`FIRST_METRICS` first and the rest second."""
    from ..scoring.defaults import default_metrics

    every = default_metrics(dataset)
    if len(dataset.outputs) <= FIRST_METRICS_ABOVE:
        return every, []
    first = [m for m in every if m in FIRST_METRICS]
    return (first, [m for m in every if m not in first]) if first else (every, [])


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
                 ref_ids: Sequence[str] | None = None, judged_only: str | None = None,
                 tokenize: str | None = None) -> pd.DataFrame:
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
    When the data gives system-level scores of a criterion (an mt-metrics-eval ``.sys.score``, a WMT
    system score table), those are its human scores, as in ``correlate`` and the Campaign; they
    have no CI or test (mark ``given``).

    Columns: kind (metric|human), measure, system, is_reference, score, ci_lo, ci_hi, n_segments,
    p_value, mark, higher_is_better. Cached on disk by content hash, signatures and parameters.
    """
    if test not in ("bootstrap", "ar"):
        raise ValueError("test must be bootstrap or ar")
    key = (dataset.content_hash(), tuple((m, metric_signature(m, tokenize=tokenize)) for m in metric_ids), tuple(criteria),
           baseline, include_references, normalisation, n_boot, test, alpha, seed)
    if ref_ids or judged_only:
        key += (tuple(ref_ids or ()), judged_only)
    key += ("human: given system scores",)  # (tables cached before given scores were used differ)
    return cached("systable", key, lambda: _system_table(
        dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test, alpha,
        seed, progress, ref_ids, judged_only, tokenize))


def _system_table(dataset, metric_ids, criteria, baseline, include_references, normalisation, n_boot, test,
                  alpha, seed, progress, ref_ids=None, judged_only=None, tokenize=None) -> pd.DataFrame:
    from ..metrics.base import get_metric
    from ..stats.bootstrap import corpus_score_bootstrap, percentile_bootstrap
    from ..stats.significance import paired_approximate_randomization, paired_bootstrap

    refs = set(dataset.ref_ids)
    rows = []
    stats = system_stats(dataset, metric_ids, include_references, stage(progress, 0.0, 0.7), ref_ids, judged_only,
                         tokenize=tokenize)
    n_items = max(sum(len(v) for v in stats.values()) + len(criteria), 1)
    done = 0
    paired = paired_bootstrap if test == "bootstrap" else paired_approximate_randomization
    n_paired = n_boot  # resamples (bootstrap) or random swaps (approximate randomisation)
    for m in metric_ids:
        metric = get_metric(m, tokenize)
        hib = metric.meta.higher_is_better
        per = stats.get(m, {})

        score_fn = metric.scores_from_sums  # every resample's corpus score in one call (same values)

        base = per.get(baseline) if baseline else None
        for name, (segs, st) in per.items():
            score = metric.score_from_stats(st)
            lo = hi = float("nan")
            if n_boot and len(segs) > 1:
                # resample counts × statistics, the draws of the literal loop (methods §3.8)
                lo, hi, _ = corpus_score_bootstrap(metric, st, n_boot, alpha, seed)
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
                    res = paired(a, b, score_fn, n_samples=n_paired, seed=seed, vectorized=True)
                    p = float(res.p_value)
                    diff = (res.score_b - res.score_a) * (1 if hib else -1)
                    mark = _mark(p, alpha, diff)
            rows.append({"kind": "metric", "measure": m, "system": name, "is_reference": name in refs,
                         "score": float(score), "ci_lo": lo, "ci_hi": hi, "n_segments": len(segs),
                         "p_value": p, "mark": mark, "higher_is_better": hib})
            done += 1
            if progress:
                progress(0.7 + 0.3 * done / n_items, f"bootstrap: {m}")
    from ..stats.tables import human_systems

    human_names = human_systems(dataset)
    from ..human.scores import given_system_scores

    for crit in criteria:
        # system scores the data gives (e.g. an mt-metrics-eval .sys.score) are the human score, as
        # in correlate and the Campaign (human.scores.human_system_scores); no CI or test then
        given = dict(zip(*given_system_scores(dataset, crit)[["system", "score"]].to_numpy().T))
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
            score = float(vals.mean())
            if given:
                score, lo, hi, p, mark = float(given.get(name, np.nan)), np.nan, np.nan, np.nan, \
                    ("baseline" if mark == "baseline" else "given")
            rows.append({"kind": "human", "measure": crit, "system": name,
                         "is_reference": name in refs or name in human_names,
                         "score": score, "ci_lo": lo, "ci_hi": hi, "n_segments": len(vals),
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
    from ..stats.correlation import correlation

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
    from ..human.ranking import schulze

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
    return schulze_frame(res)


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
    from ..scoring.settings import DEFAULTS
    from ..stats.tables import correlation_table, human_systems, system_vectors
    from ..core.undefined import correlation_notes
    from .campaign import cached_scores

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
        kind = test if method == "pearson" else "perm"
        commands[method] = correlate_command(dataset, metric_ids, criterion, settings, method, n_boot, seed, alpha,
                                             normalisation, aggregate, compare=kind if len(metric_ids) > 1 else None,
                                             draws=n_perm)
        if scores.empty:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tab = correlation_table(human, scores, level="system", method=method, exclude_systems=exclude,
                                    bootstrap=n_boot, alpha=alpha, seed=seed)
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
    vals = dict(zip(clusters["metric"], clusters["value"]))
    rows = [{"test": kind.label, "metric_a": r.better, "metric_b": r.worse, "value_a": float(vals[r.better]),
             "value_b": float(vals[r.worse]), "p_value": float(r.p_value)} for r in pairs.itertuples(index=False)]
    ranks = [{"metric": r.metric, "value": float(r.value), "rank": int(r.rank)} for r in clusters.itertuples(index=False)]
    return (rows, ranks, notes, sig_notes) if detail else (rows, ranks, notes)
