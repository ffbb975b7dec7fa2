"""``python -m evalcore learn PATH --kind humanlike|beer ...``: train a learned metric.

Runs :func:`evalcore.learned.pipeline.train_and_compare`, as the dashboard does: trains on a
random part of the segments (``--test-fraction`` held out, no segment on both sides), reports
the held-out comparison with sentence BLEU and chrF (segment-level daRR τ and acc23,
system-level Pearson); then optionally evaluates on another dataset (``--eval``) and saves
the model as the metric ``learned:NAME``.
"""
from __future__ import annotations

import json
import re
import sys

import numpy as np

HANDLES_ALL_LPS = True  # one model per language pair: --lp all is refused with a message
NAME = "learn"
JUDGED_SEGMENTS = True  # trained and evaluated on the judged segments (the settings line says so)
OUTPUTS = ("json",)  # checked before any work (--out is a model name, not a file)
HELP = "train a learned metric (human-likeness SVM, Kulesza 2004; BEER-style ranker, Stanojević & Sima'an 2015)"


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip (tidy TSVs)")
    p.add_argument("--kind", required=True, choices=["humanlike", "beer"])
    p.add_argument("--human", default=None, metavar="CRITERION", help="human criterion (default: the only one)")
    p.add_argument("--lp", default=None, help="language pair (when the dataset has several)")
    p.add_argument("--out", default=None, metavar="MODEL",
                   help="model name (metric id learned:MODEL) or a file path (DIR/NAME.json; use it as learned:DIR/NAME.json)")
    p.add_argument("--models-dir", default=None, help="folder for models (default $EVALCORE_HOME/models)")
    p.add_argument("--no-save", action="store_true", help="do not save the model")
    p.add_argument("--test-fraction", type=float, default=1 / 3,
                   help="fraction of segments held out for evaluation (0 = train on all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lower-is-better", action="store_true", help="the human criterion is a rank/error (lower = better)")
    p.add_argument("--threshold", type=float, default=0.0,
                   help="beer: minimum human-score difference of a training pair; also the daRR threshold")
    p.add_argument("--C", type=float, nargs="+", default=None,
                   help="beer: regularisation C (one value, default 100); humanlike: grid (default 0.1 1 10 100)")
    p.add_argument("--gamma", type=float, nargs="+", default=[0.01, 0.1, 1.0], help="humanlike: RBF gamma grid")
    p.add_argument("--estimator", choices=["svc", "logreg"], default="svc", help="humanlike model")
    p.add_argument("--train-refs", choices=["loo", "single"], default="loo",
                   help="humanlike: score examples against R−{r_j} (loo) or each other reference alone")
    p.add_argument("--metric-features", nargs="*", default=[], help="humanlike: extra registered metric ids as features")
    p.add_argument("--max-train-examples", type=int, default=6000, help="humanlike: cap on training examples")
    p.add_argument("--eval", default=None, metavar="PATH2", help="also evaluate on this dataset")
    p.add_argument("--eval-lp", default=None, help="language pair of --eval (default: --lp)")
    p.add_argument("--json", default=None, metavar="FILE", help="write every number to this JSON file")


def _fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return "nan" if not np.isfinite(x) else f"{x:.4f}"
    return str(x)


def _print_table(df, file=None) -> None:
    file = file or sys.stdout  # looked up at call time (stdout may be replaced)
    cols = list(df.columns)
    rows = [[_fmt(v) for v in r] for r in df.itertuples(index=False)]
    widths = [max(len(str(c)), *(len(r[i]) for r in rows)) if rows else len(str(c)) for i, c in enumerate(cols)]
    print("  ".join(str(c).ljust(w) for c, w in zip(cols, widths)), file=file)
    for r in rows:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)), file=file)


def _check_criterion(ds, criterion, kind):
    """The human criterion to learn from (beer) or to evaluate against, checked before any training."""
    crits = ds.criteria
    if criterion is None:
        if len(crits) == 1:
            return crits[0]
        if kind == "humanlike":  # learns from references vs outputs; judgements only evaluate
            return None
        if not crits:
            raise ValueError("the dataset has no human judgements to learn from")
        raise ValueError(f"--human: the dataset has several criteria ({', '.join(crits)}); name one")
    if criterion not in crits:
        raise ValueError(f"--human: no judgements for criterion {criterion!r}; available: {', '.join(crits) or 'none'}")
    return criterion


def _check_writable(folder) -> None:
    """The models folder can be created and written (checked before training)."""
    import os
    from pathlib import Path

    from ..learned.store import models_dir

    root = Path(folder) if folder is not None else models_dir()
    probe = root
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK):
        raise ValueError(f"cannot save the model: {root} is not a writable folder (check --out / --models-dir)")


def run(args) -> int:
    from ..io import load_dataset
    from ..learned.evaluate import baseline_scorers, compare_metrics
    from ..learned.pipeline import train_and_compare
    from ..learned.store import _jsonable, save_model, split_model_path

    if args.lp == "all":
        raise ValueError("learn trains one model on one language pair; run it once per pair (--lp LP)")
    out_dir = None
    if args.out:  # checked before loading and training: a bad name or folder fails at once
        name, out_dir = split_model_path(args.out)
        if out_dir is not None and args.models_dir:
            raise ValueError("give --out as a file path or --models-dir, not both")
    ds = load_dataset(args.path, lp=args.lp)
    if not args.out:
        name = re.sub(r"[^a-z0-9_.\-]+", "-", f"{args.kind}-{ds.name}-{ds.lp}".lower()).strip("-")
    models_dir = out_dir or args.models_dir
    if not args.no_save:
        _check_writable(models_dir)
    args.human = _check_criterion(ds, args.human, args.kind)
    hib = not args.lower_is_better
    result: dict = {"dataset": args.path, "lp": ds.lp, "kind": args.kind, "model": f"learned:{name}"}

    def progress(f, msg):
        print(f"\r[{f * 100:5.1f}%] {msg[:60]:<60}", end="", file=sys.stderr, flush=True)

    kind_options = (dict(C=args.C[0] if args.C else 100.0) if args.kind == "beer" else
                    dict(C_grid=args.C or [0.1, 1.0, 10.0, 100.0], gamma_grid=args.gamma, estimator=args.estimator,
                         train_refs=args.train_refs, extra_metrics=args.metric_features,
                         max_train_examples=args.max_train_examples))
    run_ = train_and_compare(ds, args.kind, name, args.human, test_fraction=args.test_fraction, seed=args.seed,
                             threshold=args.threshold, higher_is_better=hib, progress=progress, **kind_options)
    print(file=sys.stderr)
    model = run_.model
    if args.kind == "beer":
        print(f"BEER-style model {name!r}: {model.scores['train_pairs']} training pairs, "
              f"{model.scores['train_segments']} segments, train pairwise accuracy "
              f"{model.scores['train_pairwise_accuracy']:.4f}")
        print("largest weights:")
        _print_table(run_.weights.head(10))
        if run_.roc:
            print("ROC AUC (human vs machine, held-out):", {k: _fmt(v["auc"]) for k, v in run_.roc.items()})
        result["train"] = model.scores
    else:
        rep = run_.report
        assert rep is not None  # a humanlike run carries its training report
        print(f"human-likeness model {name!r} ({args.estimator}); best {rep.best}; "
              f"{rep.n_train_examples} training / {rep.n_test_examples} held-out examples")
        print("accuracy:", {k: _fmt(v) for k, v in rep.accuracy.items()})
        print("ROC AUC (human vs machine):", {k: _fmt(v["auc"]) for k, v in rep.roc.items()})
        print("learned score vs human judgements (held-out):", {k: _fmt(v) for k, v in rep.human_correlation.items()})
        print(f"meta-correlation (accuracy vs Pearson across the grid): {_fmt(rep.meta_correlation['pearson'])}")
        _print_table(rep.grid)
        result.update(grid=rep.grid.to_dict("records"), accuracy=rep.accuracy, human_correlation=rep.human_correlation,
                      meta_correlation=rep.meta_correlation, roc={k: {"auc": v["auc"]} for k, v in rep.roc.items()},
                      notes=rep.notes)
    for note in run_.notes:
        print(f"note: {note}")
    if run_.heldout is not None:
        print(f"\nheld-out segments of {args.path} ({len(run_.test_segments)} segments):")
        _print_table(run_.heldout)
        result["heldout"] = run_.heldout.to_dict("records")
    if args.eval:
        scorers = dict(baseline_scorers())
        scorers[f"learned:{name}"] = model.score_many
        ev = load_dataset(args.eval, lp=args.eval_lp or args.lp)
        tab, _ = compare_metrics(ev, scorers, args.human, None, args.threshold, hib)
        print(f"\nevaluation on {args.eval} ({ev.lp}, all judged segments):")
        _print_table(tab)
        result["eval"] = {"dataset": args.eval, "lp": ev.lp, "table": tab.to_dict("records")}
        model.scores["eval"] = result["eval"]
    if not args.no_save:
        path = save_model(model, models_dir)
        print(f"\nsaved {path} (metric id learned:{name})")
        result["saved"] = str(path)
    if args.json:
        from ..core.export import atomic_write

        atomic_write(args.json, lambda fh: json.dump(_jsonable(result), fh, indent=1))
    return 0
