"""``python -m evalcore detect PATH --task error-free|critical --human CRIT --metrics ...``: can a
metric find the outputs humans call error-free (WMT26) or critical (WMT25)? AUROC, AUPRC and the
best-threshold F1 and MCC per metric and language pair, the thresholds of one pair applied to the
others (``--threshold-from``), and the human row where a second wave exists (``--human2``).
See :mod:`evalcore.analysis.detect` (methods §23)."""
from __future__ import annotations

import sys

NAME = "detect"
OUTPUTS = ("out",)
HELP = ("Detection tasks: error-free outputs (WMT26: human score >= 85 and no error span) or critical ones "
        "(WMT25: human score < 10); AUROC, AUPRC, best-threshold F1 and MCC per metric, thresholds carried "
        "from one pair to the others, and one annotation wave against the other.")


def add_arguments(p) -> None:
    from ..analysis.detect import TASKS

    p.add_argument("path", help="dataset folder or zip, or an mt-metrics-eval root (several test sets: pairs "
                                "named <test set>/<lp>)")
    p.add_argument("--task", required=True, choices=TASKS)
    p.add_argument("--lp", help="comma-separated language pairs (default: every pair of the data)")
    p.add_argument("--human", help="human score type that gives the gold labels (default: the data's only one)")
    p.add_argument("--human2", help="a second annotation wave: its own rule against --human, the human row")
    p.add_argument("--metrics", help="comma-separated metric ids (stored:NAME for scores the data stores)")
    p.add_argument("--scores", action="append", default=[],
                   help="bring-your-own scores TSV (metric, system, seg_id, score[, lp]); repeatable")
    p.add_argument("--threshold-from", metavar="LP",
                   help="apply the thresholds chosen on this pair to every pair (transfer columns)")
    p.add_argument("--include-human-systems", action="store_true",
                   help="label and score human translations judged as systems too (default: left out)")
    from ..scoring.settings import DEFAULTS, ORIENTATIONS

    p.add_argument("--orientation", choices=ORIENTATIONS, default=DEFAULTS.orientation,
                   help="higher-is-better (default): error rates (TER, WER, PER) negated before thresholding")
    from . import _tok; _tok.add_argument(p)  # noqa: E702
    p.add_argument("--out", help="write the table here (TSV; .csv for spreadsheets)")


def _criterion(coll, given: str | None) -> str:
    if given:
        return given
    crits = sorted({c for ds in coll.values() for c in ds.criteria})
    if len(crits) != 1:
        raise ValueError(f"give --human: the data holds {', '.join(crits) or 'no'} human score type(s)")
    return crits[0]


def run(args) -> int:
    import pandas as pd

    from ..analysis.detect import detect
    from ..io import load_collection
    from ..metrics.byo import read_scores, register_stored
    from ..metrics.tokenize import resolve_tokenizer
    from ..scoring.scores import segment_scores
    from ..scoring.settings import from_args
    from . import _tok
    from ._lp import emit

    _tok.check(args)
    coll = load_collection(args.path)
    if args.lp:
        want = [x.strip() for x in args.lp.split(",") if x.strip()]
        missing = [x for x in want if x not in coll]
        if missing:
            raise ValueError(f"language pair(s) {', '.join(missing)} not in the data; it has {', '.join(coll)}")
        coll = {k: coll[k] for k in want}
    settings = from_args(args, human_systems="include" if args.include_human_systems else "exclude",
                         judged_only=False)
    metrics = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    byo = pd.concat([read_scores(f) for f in args.scores], ignore_index=True) if args.scores else None
    if not metrics and byo is None:
        raise ValueError("give --metrics and/or --scores")
    crit = _criterion(coll, args.human)
    seg = {}
    for key, ds in coll.items():
        frames = []
        if metrics:
            register_stored(ds)
            tok, _ = resolve_tokenizer(settings.tokenizer, ds.lp)
            frames.append(segment_scores(ds, metrics, include_references=settings.include_human_systems,
                                         tokenize=tok)[["metric", "system", "seg_id", "score"]])
        if byo is not None:
            b = byo[byo["lp"].astype(str).isin([key, ds.lp, ""])] if "lp" in byo.columns else byo
            frames.append(b[b["seg_id"].astype(str) != ""][["metric", "system", "seg_id", "score"]])
        seg[key] = pd.concat(frames, ignore_index=True)
    res = detect(coll, args.task, crit, seg, settings, criterion2=args.human2, threshold_from=args.threshold_from)
    args._lp_value = ""
    emit(res.table, args.out, args, float_format=None if args.out else "%.6g", notes=res.notes)
    if args.out:
        print(f"wrote {len(res.table)} rows to {args.out}", file=sys.stderr)
    return 0
