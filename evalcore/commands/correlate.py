"""``python -m evalcore correlate``: metric-vs-human correlations (methods §3, §4).

Output columns: lp, metric, level, method, value, ci_low, ci_high, n, n_groups, n_segments, signature
(the metric's: sacreBLEU's own for BLEU/chrF/TER; ``external`` for ``--scores``), settings (the
correlation's: human criterion, normalisation, aggregation, grouping, bootstrap). ``--tokenize`` as in
``score``. Notes about what was left out or chosen go to stderr.
``--lp all``: every language pair; ``--scheduler``: the metric scores computed on Dask
(:mod:`evalcore.scoring.parallel`), identical to in-process.
"""
from __future__ import annotations

import copy
import sys

from ..stats.registry import get as statistic

NAME = "correlate"
STATES_SETTINGS = True  # its settings line, resolved on the data, goes to stderr from run()
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out", "compare_out")  # checked before any work (evalcore.core.export.check_outputs)
HELP = "Correlate metric scores with human judgements (system or segment level, MTME semantics)."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip (tidy TSV, plain text, MQM TSV or mt-metrics-eval)")
    p.add_argument("--lp", help="language pair (needed when the data holds several; all: every pair in turn, tables get an lp column)")
    p.add_argument("--refs", help="comma-separated reference sets to score against (default: all); "
                                  "with --scores, selects the rows of that ref_id/refset")
    p.add_argument("--metrics", help="comma-separated metric ids (default with --scores: every metric in the file; "
                                        "without --scores: the metrics the Systems page starts from)")
    p.add_argument("--human", help="human criterion (e.g. mqm, da_z; default: the data's only kind of human "
                                      "judgement, an error listing them when there are several)")
    p.add_argument("--level", choices=["system", "segment"], default="system")
    from ..stats.registry import names as statistic_names

    p.add_argument("--method", default="pearson", choices=list(statistic_names()),
                   help="the statistic (docs/methods.md §3.3 lists each one's levels, groupings and reference)")
    p.add_argument("--group", choices=["none", "item", "sys"], default=None,
                   help="segment-level grouping (default none; item for darr)")
    p.add_argument("--tie-calibration", action="store_true", help="acc23/tau_23: optimise the metric tie threshold")
    p.add_argument("--threshold", type=float, default=25.0, help="kendall_like/darr gold difference threshold (>=)")
    p.add_argument("--include-human-systems", "--include-references", action="store_true",
                   help="score human translations as systems (Freitag et al. 2021): every candidate is scored "
                        "against the --refs reference set; a human translation in that set is left out")
    from ..scoring.settings import add_cli_arguments

    add_cli_arguments(p)  # --judged-only (the default) / --all-segments, --orientation
    p.add_argument("--exclude", default="", help="comma-separated systems to leave out (e.g. outliers)")
    p.add_argument("--normalisation", choices=["raw", "z", "percentile"], default="raw")
    p.add_argument("--aggregate", choices=["mean", "median", "weighted"], default="mean")
    p.add_argument("--scores", help="bring-your-own scores TSV (metric, system, seg_id, score[, ref_id][, lp])")
    p.add_argument("--bootstrap", type=int, default=0, help="percentile bootstrap CI with N draws (0: none)")
    p.add_argument("--bootstrap-over", choices=["items", "systems", "both"], default=None,
                   help="what to resample (default: systems at system level, both at segment level)")
    p.add_argument("--fisher", action="store_true", help="Fisher z CI when not bootstrapping")
    p.add_argument("--compare", choices=["perm", "williams", "pairs"], default=None,
                   help="metric-vs-metric significance on the same systems/cells: PERM-BOTH (perm), Williams' "
                        "test, or (acc23/tau_23 at segment level) PERM-BOTH swapping pairwise comparisons, each "
                        "metric at its own calibrated tie threshold (pairs, mt-metrics-eval's perm_test='pairs'); adds a cluster column (metrics in one cluster are not significantly different, "
                        "as mt-metrics-eval's CompareMetrics) and a table of pairwise p-values; at system level "
                        "also the Systems page's one-sided tests on stderr")
    p.add_argument("--draws", type=int, default=1000, help="--compare perm: permutation draws (default 1000)")
    p.add_argument("--compare-out", help="write the pairwise p-value table here (default: stdout, after the "
                                         "correlation table)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=None,
                   help="random seed of the bootstrap / permutation draws (default 0; spa: 4, as mt-metrics-eval)")
    p.add_argument("--perms", type=int, default=1000,
                   help="spa: sign-flip permutations of each pairwise test (default 1000, as mt-metrics-eval)")
    p.add_argument("--sentinels", action="store_true",
                   help="add the model-free sentinel baselines (sentinel:cand-length, src-length, length-ratio, "
                        "src-overlap; sentinel:system-prior at segment level) as rows, and per metric its margin "
                        "over the best sentinel with a PERM-BOTH p (--draws) and a beats_sentinel flag "
                        "(Perrella et al. 2024; docs/methods.md §24.3)")
    p.add_argument("--human-ceiling", metavar="SECOND",
                   help="add the inter-annotator row human-ceiling: a second rating of the same outputs (another "
                        "human score type, e.g. a second wave; 'raters': each item's first rater against its "
                        "second; 'repeats': each rater's first rating of an item against their re-rating) scored against --human and the reverse, averaged; and a ceiling_share column "
                        "(docs/methods.md §24.2)")
    p.add_argument("--out", help="write the table as TSV here instead of stdout (a .csv name writes CSV for spreadsheets)")
    p.add_argument("--no-cache", action="store_true",
                   help="compute every metric statistic afresh: neither read nor write the statistics store "
                        "(the stats folder of the cache, docs/formats.md); the values are the same")
    from ..scoring.parallel import add_scheduler_argument

    add_scheduler_argument(p)
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def _byo_scores(path, dataset, refs, metrics, level, note=None):
    import pandas as pd

    from ..metrics.byo import read_scores
    from ._byo import unknown_segments

    s = read_scores(path)
    for w in unknown_segments(s, dataset, path):
        (note or print)(w)
    if "lp" in s.columns:
        s = s[(s["lp"] == "") | (s["lp"] == dataset.lp)]
    if "ref_id" in s.columns:
        if refs and len(refs) == 1:
            s = s[s["ref_id"] == refs[0]]
        else:
            s = s[s["ref_id"] == ""]
    if metrics:
        want = {m.lower() for m in metrics}
        s = s[s["metric"].str.lower().isin(want)]
    if level == "segment":
        s = s[s["seg_id"] != ""]
    return s[["metric", "system", "seg_id", "score"]].reset_index(drop=True) if len(s) else pd.DataFrame(
        columns=["metric", "system", "seg_id", "score"])


def _human(ds, args, note):
    """Human scores for the correlation: given system-level scores at system level when the
    data has them for the criterion, else per-(system, segment) scores."""
    import pandas as pd

    from ..human.scores import given_system_scores, human_scores, human_system_scores

    given = given_system_scores(ds, args.human) if args.level == "system" else None
    seg = None
    if args.human in ds.criteria or args.human == "mqm":
        try:
            seg = human_scores(ds, args.human, normalisation=args.normalisation, aggregate=args.aggregate)
        except ValueError:
            if given is None or given.empty:
                raise
    if given is not None and len(given):
        hres = human_system_scores(ds, args.human, args.normalisation, args.aggregate)  # (the campaign's too)
        note(hres.method)
        given = hres.table
        return pd.DataFrame({"system": given["system"], "seg_id": "", "score": given["score"]}), seg
    if seg is None:
        raise ValueError(f"no judgements for criterion {args.human!r}; available: {', '.join(ds.criteria) or 'none'}")
    return seg, seg


def run(args) -> int:
    from ..metrics._stats_store import bypassed

    with bypassed(bool(getattr(args, "no_cache", False)), workers=True):
        return _run(args)


def _run(args) -> int:
    import pandas as pd

    from ..stats.tables import correlation_table, human_systems
    from ._lp import dataset, emit

    from . import _tok

    _tok.check(args)
    matrices = _check_method(args)
    if args.seed is None:  # (a copy: under --lp all the same arguments serve every pair)
        args = copy.copy(args)
        args.seed = 4 if matrices else 0
    # spa at system level: the human and metric scores per segment (the statistic compares
    # systems by permutation tests over their segments)
    sargs = args
    if matrices:
        sargs = copy.copy(args)
        sargs.level = "segment"
    notes: list[str] = []
    note = notes.append
    ds = dataset(args)
    refs = [r.strip() for r in args.refs.split(",") if r.strip()] if args.refs else None
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else []
    if not args.human or (not metrics and not args.scores):  # the pages' defaults (commands/_defaults.py)
        from . import _defaults

        args = copy.copy(args)
        args.human = _defaults.criterion(ds.criteria, args.human)
        if not args.human:
            raise ValueError("the data has no human judgements to correlate with")
        if not metrics and not args.scores:
            metrics = _defaults.system_metrics(ds)
            if not metrics:
                raise ValueError("no metric can run on this data: give --scores")
        sargs = copy.copy(args) if matrices else args
        if matrices:
            sargs.level = "segment"
    human, seg_human = _human(ds, sargs, note)
    humans = human_systems(ds, list(dict.fromkeys(human["system"])))
    settings, judged = _settings_and_judged(args, ds, refs, seg_human, note)
    frames, builtin, use_refs = _metric_frames(sargs, ds, refs, metrics, judged, notes)
    if args.sentinels:
        from ..analysis.sentinels import sentinel_scores

        sent, snotes = sentinel_scores(ds, seg_human, level=args.level, segments=judged)  # the prior: segment level only
        frames.append(sent)
        notes += snotes
    scores = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["metric", "system", "seg_id", "score"])
    if scores.empty:
        raise ValueError("no metric scores to correlate")
    scores = _orient(scores, builtin, settings, note)
    exclude = _exclusions(args, humans, use_refs, human, scores, note)
    stat = statistic(args.method)
    grouping = args.group or stat.default_grouping
    kw = {}
    if stat.uses_threshold:
        kw["thresh"] = args.threshold
    if args.tie_calibration:
        kw["tie_calibration"] = True
    if matrices:
        kw["num_permutations"] = args.perms
        kw["segment_order"] = list(ds.seg_ids)
    table = correlation_table(human, scores, level=args.level, method=args.method, grouping=grouping,
                              exclude_systems=exclude, bootstrap=args.bootstrap, resample=args.bootstrap_over,
                              alpha=args.alpha, seed=args.seed, fisher=args.fisher, **kw)
    notes += _table_notes(args, table, human, scores, exclude, grouping)
    pairs = _significance(args, table, human, scores, exclude, grouping, kw, notes) if args.compare else None
    if args.sentinels:
        table = _with_margins(args, table, human, scores, exclude, grouping, kw, notes)
    if args.human_ceiling:
        table = _with_ceiling(args, ds, table, exclude, grouping, kw, notes)
    sink = getattr(args, "_sink", None)
    if sink is not None and statistic(args.method).pools_language_pairs:
        sink.pool[(args.out, None)] = pooled_accuracy  # --lp all: one pooled row per metric
    print(f"settings: {settings.describe(ds, args.human)}", file=sys.stderr)
    for line in notes:
        print(f"note: {line}", file=sys.stderr)
    table = _tok.metric_signatures(table, scores)
    if args.human_ceiling:
        from ..analysis.ceiling import CEILING

        table.loc[table["metric"] == CEILING, "signature"] = f"human:{args.human}~{args.human_ceiling}"
    if args.sentinels:
        from ..analysis.sentinels import SIGNATURE, is_sentinel

        table.loc[table["metric"].map(is_sentinel), "signature"] = SIGNATURE
    spa = f"|perms:{args.perms}|seed:{args.seed}" if matrices else ""
    table["settings"] = _tok.correlation_settings(args, grouping) + spa + "|" + settings.signature()
    emit(table, args.out, args, float_format=None if args.out else "%.6f")
    from ..analysis.verdict import correlate_verdict

    verdict = correlate_verdict(table, args.method, args.level, args.human)
    if verdict is not None:
        print(verdict.line(), file=sys.stderr)
    if pairs is not None:
        emit(pairs, args.compare_out, args, section=None if args.compare_out else "metric significance",
             float_format=None if args.compare_out else "%.6g")
    return 0


def _with_margins(args, table, human, scores, exclude, grouping, kw, notes):
    """--sentinels: each metric's margin over the best sentinel, its PERM-BOTH p and the flag (methods §24.3)."""
    from ..analysis.sentinels import margins
    from ..stats.tables import metric_significance

    why = []
    if _registry()[args.method].segment_matrices:
        why.append(f"--method {args.method} is itself a permutation test per pair of systems: no PERM-BOTH test of "
                   "two of its values")

    def pvalue(metric, best):
        if why:
            return float("nan")
        try:
            _, pairs, _ = metric_significance(human, scores[scores["metric"].isin([metric, best])], level=args.level,
                                              method=args.method, grouping=grouping, test="perm", k=args.draws,
                                              alpha=args.alpha, seed=args.seed, exclude_systems=exclude, **kw_sig(kw))
        except ValueError as exc:
            why.append(str(exc))
            return float("nan")
        row = pairs[(pairs["better"] == metric) & (pairs["worse"] == best)]
        return float(row["p_value"].iloc[0]) if len(row) else float("nan")

    m = margins(table.set_index("metric")["value"].astype(float), pvalue, args.alpha)
    notes.append(f"sentinel_margin = value - the best sentinel's ({m['best_sentinel'].iloc[0] if len(m) else 'none'}); "
                 f"sentinel_p: PERM-BOTH, {args.draws} draws, one-sided (the metric agrees better), where the margin "
                 f"is positive; beats_sentinel: margin > 0 and p < {args.alpha:g}")
    notes += [f"sentinel p-value not computed: {w}" for w in dict.fromkeys(why)]
    return table.merge(m, on="metric", how="left")


def _with_ceiling(args, ds, table, exclude, grouping, kw, notes):
    """--human-ceiling: the inter-annotator row (methods §24.2) appended, and ceiling_share."""
    import pandas as pd

    from ..analysis.ceiling import correlation_ceiling, rating_waves, with_shares

    if args.normalisation != "raw" or args.aggregate != "mean":
        raise ValueError("--human-ceiling compares the raw ratings of the same cells: use it with --normalisation raw "
                         "--aggregate mean (the defaults)")
    first, second, n = rating_waves(ds, args.human, args.human_ceiling)
    notes += n
    row, n2 = correlation_ceiling(first, second, level=args.level, method=args.method, grouping=grouping,
                                  exclude_systems=exclude, seed=args.seed, **kw)
    notes += n2
    extra = pd.DataFrame([row.reindex(table.columns)])
    out = pd.concat([table, extra.astype(table.dtypes.to_dict(), errors="ignore")], ignore_index=True)
    return with_shares(out, float(row["value"]))


def _check_method(args) -> bool:
    """The statistic exists at this level and takes tie calibration if asked (the registry);
    returns whether it is computed from segment matrices."""
    from ..stats.registry import get as get_statistic

    stat = get_statistic(args.method)
    if args.level not in stat.levels:
        raise ValueError(f"--method {args.method} ({stat.label}) is defined at {' and '.join(stat.levels)} level "
                         f"only, not at {args.level} level")
    if args.tie_calibration and not stat.tie_calibration:
        raise ValueError(f"--tie-calibration applies to {', '.join(n for n, s in _registry().items() if s.tie_calibration)}"
                         f", not to {args.method}")
    if stat.segment_matrices:
        bad = [o for o, on in (("--compare", args.compare), ("--bootstrap", args.bootstrap), ("--fisher", args.fisher))
               if on]
        if bad:
            raise ValueError(f"--method {args.method} ({stat.label}) is itself a permutation test per pair of "
                             f"systems: {', '.join(bad)} do(es) not apply to it")
        if args.perms < 1:
            raise ValueError(f"--perms must be at least 1, not {args.perms}")
    return stat.segment_matrices and args.level == "system"


def _settings_and_judged(args, ds, refs, seg_human, note):
    """The shared settings (:mod:`evalcore.scoring.settings`) and, under judged-only, the judged segments
    of each system."""
    from ..scoring.settings import from_args

    settings = from_args(args, references=tuple(refs) if refs else None,
                         human_systems="include" if args.include_human_systems else "exclude")
    if settings.judged_only and args.judged_only is None and (seg_human is None or seg_human.empty):
        settings = settings.with_(judged_only=False)  # the default, where only system-level scores are given
        note(f"metric scores over every segment: {args.human!r} is given per system only (no judged segments)")
    if not settings.judged_only:
        return settings, None
    if seg_human is None or seg_human.empty:
        raise ValueError(f"--judged-only needs segment-level judgements of {args.human!r}; the data gives "
                         "only system-level scores")
    judged = {s: set(g["seg_id"].astype(str)) for s, g in seg_human.groupby("system", sort=False)}
    counts = sorted({len(v) for v in judged.values()})
    note(f"judged segments only{' (the default; --all-segments for every segment)' if args.judged_only is None else ''}"
         f": metric scores over the segments judged for {args.human} "
         f"({counts[0]}{'-' + str(counts[-1]) if len(counts) > 1 else ''} of {ds.n_segments} per system)")
    return settings, judged


def _judged_byo(byo, judged, note):
    """Bring-your-own segment rows restricted to the judged segments (system rows as given)."""
    sysrows = byo["seg_id"] == ""
    if sysrows.any():
        note("--judged-only cannot restrict given system-level scores (--scores rows without seg_id); "
             "they are used as given")
    keep = [sr or (seg in judged.get(sy, ())) for sy, seg, sr in zip(byo["system"], byo["seg_id"], sysrows)]
    return byo[keep]


def _metric_frames(args, ds, refs, metrics, judged, notes):
    """Every metric's scores: bring-your-own (--scores), stored in the data (stored:NAME) and
    computed here; returns (frames, the computed ids, the references they used)."""
    import pandas as pd

    from . import _tok

    note = notes.append
    frames = []
    if args.scores:
        byo = _byo_scores(args.scores, ds, refs, metrics, args.level, note)
        frames.append(_judged_byo(byo, judged, note) if judged is not None else byo)
    from ..metrics.byo import STORED_PREFIX, stored_name_notes, stored_scores

    stored = [m for m in metrics if m.lower().startswith(STORED_PREFIX)]
    if stored:  # the data's own metric scores, as stored (never recomputed)
        stored_res = stored_scores(ds, stored, args.level)
        st = stored_res.table
        notes += stored_res.notes
        if judged is not None:
            note("--judged-only does not apply to stored metric scores: they are used as stored")
        frames.append(st)
        metrics = [m for m in metrics if m not in stored]
    notes += stored_name_notes(ds, metrics)
    builtin = []
    if metrics:
        from ..metrics.base import metric_ids

        known = set(metric_ids())
        have = set(pd.concat(frames)["metric"].str.lower()) if frames else set()
        builtin = [m for m in metrics if m.lower() in known and m.lower() not in have]
        unknown = [m for m in metrics if m.lower() not in known and m.lower() not in have]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}")
    use_refs = ds.ref_ids if builtin and args.include_human_systems and not refs else refs
    if builtin:
        from ..core.progress import StderrProgress
        from ..metrics.base import get_metric
        from ..scoring.parallel import score_result

        from ..scoring.availability import left_out_note, runnable, score_isolated

        builtin, left = runnable(ds, builtin, getattr(args, "tokenize", None))
        tok = _tok.resolve(args, ds, [get_metric(m) for m in builtin]) if builtin else None
        results = []

        def score(ids):
            res = score_result(ds, ids, level=args.level, ref_ids=use_refs,
                               include_references=args.include_human_systems, segments=judged, tokenize=tok,
                               progress=StderrProgress("scoring"), scheduler=getattr(args, "_scheduler", None))
            results.append(res)
            return res.table

        tab, failed = score_isolated(score, builtin) if builtin else (None, [])
        left += failed  # one metric that cannot run or fails never fails the table
        if left:
            note(left_out_note(left, ds.lp))
            builtin = [m for m in builtin if m not in dict(failed)]
        for res in results:
            for w in res.warnings:
                print(f"warning: {w}", file=sys.stderr)
            notes += [n for n in res.notes if n not in notes]
        if tab is None:
            return frames, builtin, use_refs
        if args.include_human_systems and not refs and len(ds.ref_ids) > 1:
            note("choose the reference set with --refs to score the other human translations as systems")
        frames.append(tab)
    return frames, builtin, use_refs


def _exclusions(args, humans, use_refs, human, scores, note) -> list[str]:
    """The systems left out of the correlation, each reason noted."""
    exclude = [s.strip() for s in args.exclude.split(",") if s.strip()]
    if not args.include_human_systems:
        exclude += humans
        if humans:
            note(f"human translations left out (use --include-human-systems to score them as systems): "
                 f"{', '.join(humans)}")
    elif use_refs:
        exclude += [r for r in use_refs]  # a reference in use cannot be scored against itself (methods §3.2)
    scored = set(scores["system"])
    unscored = [s for s in dict.fromkeys(human["system"]) if s not in set(exclude) and s not in scored]
    if unscored:
        note(f"judged but without metric scores (no text), left out: {', '.join(unscored)}")
    return exclude


def _table_notes(args, table, human, scores, exclude, grouping) -> list[str]:
    """Why a value is empty or degenerate, what n means, which ε was used."""
    import pandas as pd

    notes = []
    if statistic(args.method).uses_threshold and len(table) and table["value"].isna().any():
        h = human[~human["system"].isin(set(exclude))]
        spread = h.groupby("seg_id")["score"].agg(lambda x: x.max() - x.min()) if len(h) else pd.Series(dtype=float)
        biggest = float(spread.max()) if len(spread) else float("nan")
        notes.append(f"{args.method}: empty value: no pair of outputs of one segment differs by >= "
                     f"{args.threshold:g} in {args.human} (the largest difference is {biggest:.4g}); lower "
                     "--threshold to the scale of the scores")
    if grouping != "none" and args.level == "segment" and len(table):
        notes.append(f"grouped by {grouping}: n = cells used, n_groups = {grouping} groups averaged")
    stat = _registry()[args.method]
    if args.level == "system" and stat.segment_matrices:
        notes.append(f"{args.method}: from the segment scores of the segments judged for every system "
                     f"(n_segments), {args.perms} sign-flip permutations per pair of systems, seed {args.seed} "
                     "(Thompson et al. 2024; mt-metrics-eval's default: 1000, seed 4)")
        if len(table) and table["value"].isna().any():
            notes += [f"{m} {args.method}: undefined (fewer than 2 systems, or no segment judged for every system "
                      "and scored for every one)" for m in table.loc[table["value"].isna(), "metric"]]
    elif args.level == "system":
        notes += _undefined_notes(table, human, scores, exclude, args.method)
    elif len(table) and table["value"].isna().any():
        notes += [f"{m} {args.method}: undefined at segment level (every cell has the same metric or human score, "
                  "or fewer than 2 cells)" for m in table.loc[table["value"].isna(), "metric"]]
    if "epsilon" in table.columns:
        notes.append(f"{args.method}: epsilon = the metric tie threshold used" + (
            " (chosen by tie calibration to maximise it, methods §3.3)" if args.tie_calibration else
            " (0: exact ties only; --tie-calibration chooses one)"))
    return notes


def _significance(args, table, human, scores, exclude, grouping, kw, notes):
    """--compare: metric-vs-metric tests; a cluster column on ``table`` and the pairwise
    p-value table; at system level the same tests also as lines on stderr. One computation: at
    system level :func:`evalcore.analysis.system_level.metric_tests` (the Systems page's, itself
    :func:`evalcore.stats.tables.metric_significance`), whose rows give the table and the lines."""
    import pandas as pd

    from ..stats.tables import metric_significance

    if args.compare == "pairs" and args.level == "system":
        raise ValueError("--compare pairs compares segment-level acc23/tau_23 (pairwise comparisons within "
                         "groups); use --level segment, or perm at system level")
    if args.level != "system":
        clusters, pairs, sig_notes = metric_significance(
            human, scores, level=args.level, method=args.method, grouping=grouping, test=args.compare,
            k=args.draws, alpha=args.alpha, seed=args.seed, exclude_systems=exclude,
            **(kw if args.compare == "pairs" else kw_sig(kw)))
        notes += sig_notes
        table["cluster"] = table["metric"].map(dict(zip(clusters["metric"], clusters["rank"]))).astype("Int64")
        return pairs
    from ..analysis.system_level import metric_tests

    systems = [s for s in dict.fromkeys(human["system"]) if s not in set(exclude)]
    rows, ranks, why, sig_notes = metric_tests(human, scores, systems, list(dict.fromkeys(scores["metric"])),
                                               args.method, args.compare, args.alpha, n_perm=args.draws,
                                               seed=args.seed, detail=True, **kw_sig(kw))
    notes += sig_notes + why
    table["cluster"] = table["metric"].map({r["metric"]: r["rank"] for r in ranks}).astype("Int64")
    pairs = pd.DataFrame([(r["metric_a"], r["metric_b"], r["value_a"] - r["value_b"], r["p_value"], args.compare)
                          for r in rows], columns=["better", "worse", "delta", "p_value", "test"])
    for line in significance_lines(args.method, rows, ranks, args.alpha):
        print(line, file=sys.stderr)
    return pairs


def significance_lines(method: str, rows: list[dict], ranks: list[dict], alpha: float) -> list[str]:
    """The stderr lines of ``correlate --compare`` at system level, from the rows of
    :func:`evalcore.analysis.system_level.metric_tests` (the same rows as the pairwise table)."""
    out = [f"test: {method} {r['test']}: {r['metric_a']} ({r['value_a']:.6f}) > {r['metric_b']} "
           f"({r['value_b']:.6f}): p = {r['p_value']:.6g}" for r in rows]
    if ranks:
        out.append("test: clusters (p <= {:g}): {}".format(alpha, ", ".join(f"{r['metric']} {r['rank']}"
                                                                            for r in ranks)))
    return out


def _registry():
    from ..stats.registry import REGISTRY

    return REGISTRY


def kw_sig(kw: dict) -> dict:
    """The correlation options the significance tests take (tie calibration is not resampled)."""
    return {k: v for k, v in kw.items() if k != "tie_calibration"}


POOLED = "(all)"


def pooled_accuracy(table):
    """``--lp all --method accuracy``: per metric one row ``lp = (all)`` with the global pairwise
    accuracy of Kocmi et al. (2021): Σ agreeing pairs / Σ pairs over the language pairs (pairs of
    systems are formed within each language pair; agreeing pairs = value × n(n−1)/2, exact)."""
    import pandas as pd

    if table.empty or "value" not in table.columns:
        return table
    rows = []
    for metric, sub in table[table["lp"] != POOLED].groupby("metric", sort=False):
        n = sub["n"].astype(int)
        pairs = n * (n - 1) // 2
        agree = (sub["value"].astype(float) * pairs).round().astype(int)
        row = sub.iloc[0].copy()
        row["lp"], row["n"] = POOLED, int(n.sum())
        row["value"] = agree.sum() / pairs.sum() if pairs.sum() else float("nan")
        for c in ("ci_low", "ci_high", "n_groups", "n_segments", "cluster", "sentinel_margin", "sentinel_p",
                  "beats_sentinel", "best_sentinel", "ceiling_share"):  # per-pair values: none for the pool
            if c in row.index:
                row[c] = (pd.NA if c in ("n_groups", "n_segments", "cluster", "beats_sentinel") else
                          "" if c == "best_sentinel" else float("nan"))
        rows.append(row)
    return pd.concat([table, pd.DataFrame(rows)], ignore_index=True) if rows else table


def _orient(scores, builtin, settings, note):
    """The metric scores as correlated: error rates negated under the shared orientation
    (:mod:`evalcore.scoring.settings`); bring-your-own scores are used as given (their direction is
    not known)."""
    from ..metrics.base import get_metric

    flip = [m for m in builtin if settings.orient(get_metric(m).meta.higher_is_better) < 0]
    if flip:
        scores = scores.copy()
        rows = scores["metric"].isin(flip)
        scores.loc[rows, "score"] = -scores.loc[rows, "score"].astype(float)
        note(f"{', '.join(flip)}: lower is better, negated before correlating (--orientation raw: as they are)")
    return scores


def _undefined_notes(table, human, scores, exclude, method) -> list[str]:
    """Why a system-level value is empty or degenerate (:mod:`evalcore.core.undefined`), per metric."""
    from ..stats.tables import system_vectors
    from ..core.undefined import correlation_notes

    out = []
    systems = [s for s in dict.fromkeys(human["system"]) if s not in set(exclude)]
    hum = human[human["system"].isin(systems)].assign(seg_id=lambda d: d["seg_id"].astype(str))
    for row in table.itertuples(index=False):
        ms = scores[scores["metric"] == row.metric].assign(seg_id=lambda d: d["seg_id"].astype(str))
        use = [s for s in systems if s in set(ms["system"])]
        g, m = system_vectors(hum, ms, use)
        out += correlation_notes(row.metric, method, g, m, float(row.value), (float(row.ci_low), float(row.ci_high)))
    return out
