"""``python -m evalcore spans PATH --lp LP --metrics bleu,chrf,ter --out F.tsv``: span-level
meta-evaluation (methods §5.13): precision, recall and F1 of the characters each metric marks
(BLEU unmatched tokens, chrF unmatched characters, TER edits) against the human error spans
(ESA or MQM) per severity, micro and macro, with bootstrap CIs; the inter-rater ceiling where
several raters annotated one output. See :mod:`evalcore.analysis.spans`.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ..neural.metric import NeuralMetric

NAME = "spans"
LP_ALL = True
OUTPUTS = ("out", "counts_out", "profile_out", "agreement_out")
HELP = ("Span-level meta-evaluation: precision/recall/F1 of the characters BLEU, chrF and TER mark (and the "
        "error spans a metric such as xCOMET returned) against human error spans (ESA, MQM), per severity, "
        "with the inter-rater ceiling.")


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip with error spans (esa_spans_json, mqm_annotations.tsv, "
                                "Google MQM TSV, WMT ESA JSONL)")
    p.add_argument("--lp", help="language pair, when the data holds several ('all': each in turn)")
    p.add_argument("--metrics", default="bleu,chrf,ter",
                   help="comma-separated markers among bleu, chrf, ter (default: all three), and xcomet:MODEL "
                        "(the error spans the model predicts, scored or read from the neural cache)")
    p.add_argument("--severity", default="minor,major,all",
                   help="comma-separated severities of the human spans (default minor,major,all)")
    from . import _tok; _tok.add_argument(p)  # noqa: E702
    p.add_argument("--bootstrap", type=int, default=1000,
                   help="bootstrap resamples over annotations for the 95%% CIs (0 = none; default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--no-ceiling", action="store_true", help="leave out the inter-rater ceiling")
    p.add_argument("--protocol", choices=["evalcore", "wmt25", "perrella"], default="evalcore",
                   help="evalcore (default: non-space characters per severity, micro and macro, CIs) or wmt25 (the "
                        "WMT25 task's scorer: every character, overlapping spans counted each time, major+critical "
                        "one class, 0.5 credit for a mismatched severity, micro P/R/F1 per language pair; the "
                        "task's figure is the mean of the pairs' rows; metric spans and the human ceiling only) or perrella "
                        "(Perrella et al. 2026: em, mp and mpp, spans matched one to one, beside wmt25's w25)")
    p.add_argument("--severity-penalty", type=float, default=0.5,
                   help="--protocol perrella: the credit lost by a matched pair of different severities (default "
                        "0.5, as WMT25's half credit; 1 = no match)")
    p.add_argument("--agreement-out",
                   help="--protocol perrella: write how far the protocols rank the metrics alike (Kendall tau_b "
                        "between their F1) here")
    p.add_argument("--metric-spans", metavar="TSV",
                   help="error spans returned by metrics (e.g. xCOMET): TSV with metric, system, seg_id, start, end, "
                        "severity [, lp, category, confidence]; each metric is scored as a marker. A dataset's own "
                        "metric_spans.tsv is used without this option")
    g = p.add_argument_group("xcomet:MODEL markers (the model's run, as for score)")
    from . import _neural; _neural.add_run_arguments(g)  # noqa: E702
    p.add_argument("--out", help="write the precision/recall/F1 table (TSV; .csv for spreadsheets) here")
    p.add_argument("--counts-out", help="write the per-annotation character counts (tp, marked, errors) here")
    p.add_argument("--profile-out", help="write the error profile (errors per segment by system and severity) here")


def run(args) -> int:
    import pandas as pd

    from ..io.spans import dataset_spans
    from ..core.progress import StderrProgress
    from ..analysis.spans import MARKERS, error_profile, item_counts, metric_span_counts, rater_pairs, span_scores
    from ..scoring.settings import from_args
    from . import _tok
    from ._lp import dataset, emit

    from ..neural import configure
    from . import _neural

    configure(reset=True, **_neural.run_settings(args), progress=True)
    markers = [m.strip() for m in args.metrics.split(",") if m.strip()]
    neural = [m for m in markers if m.lower().startswith("xcomet:")]
    markers = [m for m in markers if m not in neural]
    unknown = [m for m in markers if m not in MARKERS]
    if unknown:
        raise ValueError(f"no span marks for {', '.join(unknown)}; available: {', '.join(MARKERS)}")
    if neural:  # packages and model on this machine, checked before any data is read
        from ..metrics.base import get_metric

        for mid in neural:
            cast("NeuralMetric", get_metric(mid)).check()
    sevs = [s.strip().lower() for s in args.severity.split(",") if s.strip()]
    if args.bootstrap < 0:
        raise ValueError("--bootstrap must be 0 or more")
    _tok.check(args)
    ds = dataset(args)
    table = dataset_spans(ds)  # DataError (exit 2) lists every broken span
    for p in table.problems:
        print(str(p), file=sys.stderr)
    if table.items.empty:
        raise ValueError("the dataset has no error spans (no esa_spans_json column, no MQM error rows)")
    if args.protocol in ("wmt25", "perrella"):
        return _wmt25(args, ds, table, markers, neural)
    tok = _tok.resolve(args, ds)
    st = table.status_counts()
    note = ", ".join(f"{int(n)} {s}" for s, n in st.groupby("status")["n"].sum().items())
    bar = StderrProgress("marking outputs")
    counts = item_counts(ds, markers, sevs, settings=from_args(args, tokenizer=tok), table=table,
                         progress=lambda f, t: bar(int(round(f * 1000)), 1000))
    mtable = _metric_table(args, ds, neural)
    if mtable is not None:
        for p in mtable.problems:
            print(str(p), file=sys.stderr)
        mc = metric_span_counts(ds, sevs, table=table, metric_table=mtable)
        counts = pd.concat([counts, mc], ignore_index=True) if len(mc) else counts
    if not args.no_ceiling:
        pairs = rater_pairs(ds, sevs, table=table)
        counts = pd.concat([counts, pairs], ignore_index=True) if len(pairs) else counts
    scores = span_scores(counts, n_boot=args.bootstrap, seed=args.seed)
    base = f"spans|tok:{tok}|boot:{args.bootstrap}|seed:{args.seed}|unit:annotation"
    # an xcomet:MODEL marker's rows also carry the model's span signature (model, versions,
    # whether references were used, agg:first: the spans of one (candidate, reference) pair)
    span_sigs = _span_signatures(ds, neural)
    scores["signature"] = [f"{base}|{span_sigs[m]}" if m in span_sigs else base for m in scores["marker"]]
    emit(scores, None, args, float_format="%.4f",
         section="span precision / recall / F1 of each marker against the human error spans "
                 "(marker 'rater': the inter-rater ceiling; 'rater-self': one rater twice)",
         note=f"spans by status: {note}")
    if args.out:
        emit(scores, args.out, args, float_format="%.6f")
    if args.counts_out:
        emit(counts, args.counts_out, args)
    if args.profile_out:
        emit(error_profile(table, "severity", n_boot=args.bootstrap, seed=args.seed), args.profile_out, args,
             float_format="%.6f")
    return 0


def _wmt25(args, ds, table, markers, neural) -> int:
    """``--protocol wmt25``: :func:`evalcore.analysis.spans_wmt25.wmt25_span_scores` of the metric
    spans (``--metric-spans``, the dataset's own, ``xcomet:MODEL``) and the human ceiling."""
    from ..analysis.spans_wmt25 import protocol_scores, ranking_agreement, wmt25_span_scores
    from ._lp import emit

    if markers:
        print(f"note: --protocol {args.protocol} scores spans with a severity; {', '.join(markers)} mark characters "
              "without one and are left out", file=sys.stderr)
    if args.agreement_out and args.protocol != "perrella":
        raise ValueError("--agreement-out compares the protocols of --protocol perrella")
    if not 0 <= args.severity_penalty <= 1:
        raise ValueError("--severity-penalty must be between 0 and 1")
    mtable = _metric_table(args, ds, neural)
    if mtable is not None:
        for p in mtable.problems:
            print(str(p), file=sys.stderr)
    if args.protocol == "perrella":
        scores = protocol_scores(ds, mtable, table, ceiling=not args.no_ceiling,
                                 severity_penalty=args.severity_penalty)
    else:
        scores = wmt25_span_scores(ds, mtable, table, ceiling=not args.no_ceiling)
    if scores.empty:
        raise ValueError(f"--protocol {args.protocol}: nothing to score (no metric spans: give --metric-spans or "
                         "xcomet:MODEL, and no output annotated twice for the ceiling)")
    base = ("spans|protocol:wmt25|unit:character|partial:0.5|average:micro-per-pair" if args.protocol == "wmt25" else
            f"spans|protocol:perrella|matching:optimal-1to1|severity-penalty:{args.severity_penalty:g}|"
            "average:micro-per-pair")
    if args.agreement_out and args.protocol == "perrella":
        emit(ranking_agreement(scores), args.agreement_out, args, float_format="%.6f")
    span_sigs = _span_signatures(ds, neural)
    scores["signature"] = [f"{base}|{span_sigs[m]}" if m in span_sigs else base for m in scores["marker"]]
    note = ("WMT25's figure over language pairs is the mean of the pairs' precision, recall and F1 (--lp all "
            "lists every pair)")
    emit(scores, None, args, float_format="%.4f", section=f"{args.protocol} span scores (micro per pair)", note=note)
    if args.out:
        emit(scores, args.out, args, float_format="%.6f")
    return 0


def _metric_table(args, ds, neural=()):
    """The spans metrics returned: ``--metric-spans`` (read and checked with file and line), else
    the dataset's own ``metric_spans`` table, else None; plus the spans of each ``xcomet:MODEL``
    in ``neural`` (predicted now or read from the neural cache). Broken rows raise DataError (exit 2)."""
    from pathlib import Path

    import pandas as pd

    from ..io.spans import METRIC_EXTRA, metric_span_table, read_metric_spans
    from ..core.problems import DataError, Report

    frames = []
    if args.metric_spans:
        path = Path(args.metric_spans)
        report = Report()
        frame = read_metric_spans(path.read_bytes(), path.name, report)
        if frame is None or not report.ok:
            raise DataError(report)
        frames.append(frame)
    elif ds.extras.get(METRIC_EXTRA) is not None and len(ds.extras[METRIC_EXTRA]):
        frames.append(ds.extras[METRIC_EXTRA])
    if neural:
        from .. import neural as _neural

        from ..metrics.base import get_metric

        try:
            for mid in neural:
                frames.append(_neural.metric_spans(ds, mid))
                _, srcs, _, refs = cast("NeuralMetric", get_metric(mid)).span_rows(ds)
                n_free = sum(1 for s, r in zip(srcs, refs) if s is not None and not r)
                if n_free:
                    print(f"note: {mid}: {n_free} output(s) without a reference: their spans come from the source "
                          "alone (xCOMET's [mt, src] input; signature ref:)", file=sys.stderr)
        finally:
            _neural.release_models()
    if not frames:
        return None
    return metric_span_table(ds, frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True))


def _span_signatures(ds, neural) -> dict:
    """metric id (as the marker column writes it) -> the span signature of each xcomet:MODEL."""
    from ..metrics.base import get_metric

    out = {}
    for mid in neural:
        m = cast("NeuralMetric", get_metric(mid))
        out[m.id] = str(m.span_signature(ds))
    return out
