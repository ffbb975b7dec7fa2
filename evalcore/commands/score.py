"""``python -m evalcore score PATH --metrics bleu,chrf,ter --level segment|system|both``: tidy metric scores.

Writes a TSV with the columns lp, metric, system, seg_id, score, n_segments, signature (seg_id empty at
system level; n_segments = the segments summed; signature = sacreBLEU's own string for
BLEU/chrF/TER, an evalcore one otherwise) to ``--out`` or stdout, metric by metric as they are
computed (:mod:`evalcore.commands._stream`; ``--level both``: each metric's system rows, then its
segment rows, from one pass over its per-segment statistics, :mod:`evalcore.metrics.levels`). ``--tokenize NAME`` picks the
sacreBLEU tokenizer of the word-level metrics (default: sacreBLEU's for the target language, stated
on stderr). ``--refs A,C`` chooses (and orders) the reference sets; ``--include-references`` (alias
``--include-human-systems``) also scores the reference sets not chosen as systems against the chosen
ones (Freitag et al. 2021); ``--judged-only [CRITERION]`` keeps only the segments the humans judged
for each system;
``--scores FILE.tsv`` registers external scores first (bring your own, see
:mod:`evalcore.metrics.byo`), so their metric names can be listed in ``--metrics``;
``--list-metrics`` prints every registered id with its signature (with PATH, also the metric
scores the data stores, as ``stored:NAME``); ``--metrics lexical`` selects every
lexical metric (:func:`evalcore.scoring.defaults.lexical_metric_ids`). Progress goes to stderr.
``--lp all`` scores every language pair; ``--scheduler local:N|tcp://…`` scores segment blocks
on Dask with identical results (:mod:`evalcore.scoring.parallel`).
"""
from __future__ import annotations

import sys

NAME = "score"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out",)  # checked before any work (evalcore.core.export.check_outputs)
HELP = "Score a dataset with registered metrics; write a tidy TSV (metric, system, seg_id, score, signature)."


def add_arguments(p):
    p.add_argument("path", nargs="?", help="dataset: tidy TSV folder, plain-text folder, MQM TSV, mt-metrics-eval folder or zip")
    p.add_argument("--lp", help="language pair (needed when the data holds several; all: every pair in turn, tables get an lp column)")
    p.add_argument("--metrics", default="bleu,chrf,ter",
                   help="comma-separated metric ids (default: bleu,chrf,ter); 'lexical' stands for every "
                        "lexical metric (the BLEU, NIST, chrF, character n-gram, GTM, ROUGE, METEOR and "
                        "TER/WER/PER families: 44 ids, see --list-metrics)")
    p.add_argument("--level", choices=["segment", "system", "both"], default="segment",
                   help="segment (default), system, or both: per metric its system rows (seg_id empty) then its "
                        "segment rows, both from one pass over the per-segment statistics")
    p.add_argument("--refs", help="comma-separated reference sets to use, in this order (default: all)")
    p.add_argument("--include-references", "--include-human-systems", dest="include_references", action="store_true",
                   help="also score the human translations (reference sets not in --refs) as systems against "
                        "the --refs set; without --refs each is scored against the others (not comparable)")
    p.add_argument("--judged-only", nargs="?", const="", default=None, metavar="CRITERION",
                   help="only the segments the humans judged for each system (criterion: default the only one)")
    p.add_argument("--out", help="output TSV (default: stdout; a .csv name writes CSV for spreadsheets)")
    p.add_argument("--no-cache", action="store_true",
                   help="compute every metric statistic afresh: neither read nor write the statistics store "
                        "(the stats folder of the cache, docs/formats.md); the values are the same")
    p.add_argument("--scores", action="append", default=[],
                   help="external scores TSV (metric, system, seg_id, score[, ref_id][, lp]); repeatable")
    p.add_argument("--list-metrics", action="store_true", help="list metric ids with their signatures and exit")
    g = p.add_argument_group("neural metrics (comet:, cometkiwi:, xcomet:, metricx:, bleurt:, bertscore:, cosine: ids)")
    from . import _neural; _neural.add_run_arguments(g)  # noqa: E702  (--device, --batch-size: as spans)
    g.add_argument("--precision", choices=["fp32", "fp16", "bf16"], help="inference precision (default fp32)")
    g.add_argument("--max-length", type=int, help="truncate inputs to this many tokens (default: the model's limit; "
                                                  "the number of truncated texts is stated)")
    g.add_argument("--ref-aggregation", choices=["mean", "max"],
                   help="several references: each scored alone, then their mean (default) or max (min for MetricX)")
    g.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice; on a busy machine 1 is "
                                               "often fastest)")
    g.add_argument("--bertscore-layer", type=int, metavar="N",
                   help="bertscore: the hidden layer whose token vectors are matched (1..L; default the last), "
                        "bert-score's num_layers")
    g.add_argument("--bertscore-idf", action="store_true",
                   help="bertscore: idf token weights over the dataset's references (bert-score's idf=True)")
    g.add_argument("--bertscore-baseline", metavar="FILE",
                   help="bertscore: rescale F1 with this bert-score baseline file (CSV LAYER,P,R,F; the row of the "
                        "layer): (F1 - b) / (1 - b)")
    g.add_argument("--import-scores", action="append", default=[], metavar="FORMAT:FILE",
                   help="neural scores computed elsewhere, matched to the data by their texts: comet-json:FILE "
                        "(comet-score --to_json), metricx-jsonl:FILE, pymarian-tsv:SCORES=INPUT.tsv; @NAME names "
                        "the metric (default ext-FORMAT-FILESTEM); repeatable")
    g.add_argument("--allow-download", action="store_true",
                   help="let a hub name be downloaded when it is not in the local cache (never without it; "
                        "HF_HUB_OFFLINE=1 forbids it anyway)")
    from ..scoring.parallel import add_scheduler_argument

    add_scheduler_argument(p)
    from . import _tok; _tok.add_argument(p)  # noqa: E702




def _judged_segments(ds, criterion: str) -> dict:
    """system -> the seg_ids judged for it under ``criterion`` (any rater); says what it chose."""
    crits = ds.criteria
    if not crits:
        raise ValueError("--judged-only: the data has no segment-level judgements")
    if not criterion:
        if len(crits) > 1:
            raise ValueError(f"--judged-only: the data has several criteria ({', '.join(crits)}); name one")
        criterion = crits[0]
    if criterion not in crits:
        raise ValueError(f"--judged-only: no judgements for criterion {criterion!r}; available: {', '.join(crits)}")
    j = ds.judgements[ds.judgements["judgement"] == criterion]
    out = {s: set(g["seg_id"].astype(str)) for s, g in j.groupby("system", sort=False)}
    counts = sorted({len(v) for v in out.values()})
    print(f"note: --judged-only: segments judged for {criterion} ({counts[0]}"
          f"{'-' + str(counts[-1]) if len(counts) > 1 else ''} of {ds.n_segments} per system)", file=sys.stderr)
    return out


def run(args) -> int:
    from ..metrics._stats_store import bypassed

    with bypassed(bool(getattr(args, "no_cache", False)), workers=True):
        return _run(args)


def _run(args) -> int:
    from ..core.progress import StderrProgress
    from ..metrics.base import get_metric, metric_ids, metric_signature
    from ..metrics.byo import read_scores, register_scores

    from ..neural import configure

    from . import _neural

    configure(reset=True, **_neural.run_settings(args),
              precision=getattr(args, "precision", None), max_length=getattr(args, "max_length", None),
              aggregation=getattr(args, "ref_aggregation", None), threads=getattr(args, "threads", None),
              allow_download=True if getattr(args, "allow_download", False) else None, progress=True,
              bertscore_layer=getattr(args, "bertscore_layer", None),
              bertscore_idf=True if getattr(args, "bertscore_idf", False) else None,
              bertscore_baseline=getattr(args, "bertscore_baseline", None))
    given = []
    for f in args.scores:
        frame = read_scores(f)
        register_scores(frame, source=f)
        given.append((f, frame))
    if args.list_metrics and args.path:  # with the data: its stored metric scores too (stored:NAME)
        from ..io import load_collection
        from ..metrics.byo import register_stored

        coll = load_collection(args.path)
        register_stored({lp: d for lp, d in coll.items() if not args.lp or args.lp in (lp, "all")})
    ds = _import_neural(args) if getattr(args, "import_scores", None) and args.path and not args.list_metrics else None
    if args.list_metrics:
        from ..metrics.byo import scoped_stored_ids

        for mid in metric_ids() + (scoped_stored_ids() if args.path else []):
            try:
                m = get_metric(mid)
                print(f"{mid}\t{m.meta.family}\t{metric_signature(m)}")
            except Exception as exc:  # a broken metric module must not hide the others
                print(f"{mid}\t?\t(unavailable: {exc})")
        return 0
    if not args.path:
        raise ValueError("PATH is required (or use --list-metrics)")
    from ..metrics.levels import COLUMNS, levels_of, plan_notes
    from ..scoring.parallel import iter_score_levels
    from ._lp import dataset
    from ._stream import write_stream

    from ..scoring.defaults import expand_metric_ids

    ids = expand_metric_ids(args.metrics)
    if any(x.strip().lower() == "lexical" for x in args.metrics.split(",")):
        print(f"note: --metrics lexical: {len(ids)} metrics ({', '.join(ids)})", file=sys.stderr)
    if ds is None and any(m.strip().lower().startswith("stored:") for m in ids):
        ds = dataset(args)  # stored:NAME ids are the data's own scores: known once it is loaded
    metrics = [get_metric(m) for m in ids]  # unknown ids fail here, before loading
    from ..neural import NeuralMetric

    for m in metrics:  # a missing extra or model is said before any data is read
        if isinstance(m, NeuralMetric):
            m.check()
    from . import _tok; _tok.check(args)  # noqa: E702
    ds = ds if ds is not None else dataset(args)
    for w in ds.warnings:  # the loader's warnings: data kept, but the user must know
        print(w, file=sys.stderr)
    from ._byo import unknown_segments

    for f, frame in given:
        for w in unknown_segments(frame, ds, f):
            print(f"warning: {w}", file=sys.stderr)

    from ..metrics.byo import stored_name_notes

    for line in stored_name_notes(ds, ids):  # BLEU asked on data that stores scores named BLEU
        print(f"note: {line}", file=sys.stderr)
    tok = _tok.resolve(args, ds, metrics)
    metrics = [m.with_tokenize(tok) for m in metrics]
    refs = [r.strip() for r in args.refs.split(",") if r.strip()] if args.refs else None
    text_metrics = [m.meta.id for m in metrics if m.meta.needs_text]
    if text_metrics and not ds.ref_ids:
        raise ValueError(f"{args.path}: the data has no reference translations (no references.tsv rows / "
                         f"ref.<name>.txt files), so {', '.join(text_metrics)} cannot be computed; add references, "
                         "or give metric scores with --scores")
    judged = _judged_segments(ds, args.judged_only) if args.judged_only is not None else None
    sched = getattr(args, "_scheduler", None)
    notes, warnings = plan_notes(ds, metrics, refs, args.include_references, judged)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    for line in notes:
        print(f"note: {line}", file=sys.stderr)
    levels = levels_of(args.level)
    stream = iter_score_levels(ds, metrics, level=args.level, ref_ids=refs,
                               include_references=args.include_references, progress=StderrProgress("scoring"),
                               segments=judged, scheduler=sched)
    # metric by metric, written as computed (one metric's rows in memory at a time)
    write_stream((out[lv] for _, out in _released(stream) for lv in levels), args.out, args, COLUMNS)
    return 0


def _import_neural(args):
    """Register each ``--import-scores`` file as an external metric matched to the dataset by
    texts (:mod:`evalcore.neural.imports`); returns the dataset it loaded."""
    from ..metrics.byo import register_scores
    from ..neural.imports import match_to_dataset, parse_spec, read_external
    from ._lp import dataset

    ds = dataset(args)
    for spec in args.import_scores:
        name, rows = read_external(spec)
        frame, notes = match_to_dataset(ds, name, rows)
        for line in notes:
            print(f"warning: {line}", file=sys.stderr)
        if not len(frame):
            raise ValueError(f"--import-scores {spec}: no imported row matches an output of {args.path} by its texts")
        fmt = parse_spec(spec)[0]
        register_scores(frame, higher_is_better={name: fmt != "metricx-jsonl"}, source=parse_spec(spec)[1])
        print(f"note: --import-scores: {name} ({fmt}): {frame.seg_id.nunique()} segments of "
              f"{frame.system.nunique()} systems", file=sys.stderr)
    return ds


def _released(stream):
    """Each (metric, tables) in turn; a neural metric's model is freed once its tables are
    written, and the inputs it truncated are stated."""
    from ..neural import NeuralMetric, release_models

    for metric, out in stream:
        yield metric, out
        if isinstance(metric, NeuralMetric):
            if metric.truncated:
                print(f"note: {metric.id}: {metric.truncated} input(s) longer than {metric.max_length()} tokens "
                      "were truncated (signature trunc:)", file=sys.stderr)
            release_models()
