"""``python -m evalcore stability``: how firm a ranking is under perturbations (methods §24.1).

``--task TASK``: the metrics ranked by the ``metatask`` table of that recipe (same options as
``metatask``); ``--human CRITERION``: the systems of one language pair ranked as ``rank --human``
ranks them. Each perturbation re-runs the ranking: drop one language pair / system / domain /
rater, each other human score type as the gold, tie calibration and item grouping switched (task),
``--bootstrap`` resamples of the judged segments; those that do not apply are listed as skipped.

``--out``: one row per metric (or system): metric|system, base_rank, p_rank1, rank_lo, rank_hi,
perturbations, mean_rank, settings. ``--perturbations-out``: one row per perturbation:
perturbation, kind, winner, changes_winner, kendall_tau, n_ranked, ranking, settings. Without a
file, both tables go to stdout, each under its ``#`` section line.
"""
from __future__ import annotations

import sys

NAME = "stability"
STATES_SETTINGS = True
HANDLES_ALL_LPS = True  # --task reads several pairs itself; --human ranks one pair
OUTPUTS = ("out", "perturbations_out")
HELP = "How firm a ranking is: the metrics-task table or the human ranking under perturbations."


def add_arguments(p) -> None:
    from ..analysis.metatask_tasks import TASKS
    from ..analysis.stability import MAX_RATERS, N_BOOT

    p.add_argument("path", help="dataset folder or zip (or an mt-metrics-eval-v2 root with --task)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--task", choices=sorted(TASKS), help="the metrics ranked by this metatask recipe's table")
    what.add_argument("--human", help="the systems ranked by this human criterion (as rank --human)")
    p.add_argument("--lp", help="--task: comma-separated language pairs or all (default: the task's); "
                                "--human: the language pair (needed when the data holds several)")
    p.add_argument("--test-set", help="--task with an mt-metrics-eval-v2 root: the test set")
    p.add_argument("--metrics", help="--task: comma-separated metric ids and/or stored:NAME")
    p.add_argument("--scores", action="append", default=[],
                   help="--task: bring-your-own scores TSV (metric, system, seg_id, score[, lp]); repeatable")
    p.add_argument("--gold", help="--task: the human score type (default: the task's for each pair)")
    p.add_argument("--judged-only", action="store_true",
                   help="--task: system-level metric scores over the judged segments only (as metatask)")
    p.add_argument("--permutations", type=int, default=1000, help="--task: SPA permutations (default 1000, seed 4)")
    p.add_argument("--bootstrap", type=int, default=N_BOOT,
                   help=f"bootstrap resamples of the judged segments (default {N_BOOT})")
    p.add_argument("--max-raters", type=int, default=MAX_RATERS,
                   help=f"drop in turn at most this many raters, those with the most judgements (default {MAX_RATERS})")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap draws (default 0)")
    p.add_argument("--out", help="write the per-metric (per-system) table here (TSV; .csv writes CSV)")
    p.add_argument("--perturbations-out", help="write the per-perturbation table here")
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def run(args) -> int:
    import pandas as pd

    from ..core.progress import StderrProgress
    from ..analysis.stability import human_stability, task_stability
    from ..scoring.settings import DEFAULTS
    from . import _tok
    from ._lp import emit

    _tok.check(args)
    if args.bootstrap < 0 or args.max_raters < 0:
        raise ValueError("--bootstrap and --max-raters must be 0 or more")
    settings = DEFAULTS.with_(judged_only=bool(args.judged_only), tokenizer=getattr(args, "tokenize", None))
    if args.task:
        from ..io import load_test_set

        lps = [x.strip() for x in args.lp.split(",") if x.strip()] if args.lp else None
        test_set, coll = load_test_set(args.path, args.test_set, None if lps in (None, ["all"]) else lps,
                                       prefer=args.task)
        if lps == ["all"]:
            lps = list(coll)
        metrics = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
        byo = None
        if args.scores:
            from ..metrics.byo import read_scores

            byo = pd.concat([read_scores(f) for f in args.scores], ignore_index=True)
        if not metrics and byo is None:
            raise ValueError("give --metrics and/or --scores")
        res = task_stability(coll, args.task, settings, lps=lps, metrics=metrics, scores=byo, human=args.gold,
                             num_permutations=args.permutations, n_boot=args.bootstrap, max_raters=args.max_raters,
                             seed=args.seed, progress=StderrProgress("perturbations"))
        args._lp_value = ",".join(res.lps)
        what = f"mode=task|task={args.task}|permutations={args.permutations}"
    else:
        if args.lp == "all":
            raise ValueError("--human ranks the systems of one language pair: give --lp LP")
        for opt in ("metrics", "gold"):
            if getattr(args, opt):
                raise ValueError(f"--{opt} applies to --task only")
        from ._lp import dataset

        ds = dataset(args)
        res = human_stability(ds, args.human, settings, n_boot=args.bootstrap, max_raters=args.max_raters,
                              seed=args.seed, progress=StderrProgress("perturbations"))
        what = f"mode=human|human={args.human}"
        settings = settings.with_(human_systems="include")  # rank ranks every judged system
    tag = f"{what}|bootstrap={args.bootstrap}|max_raters={args.max_raters}|seed={args.seed}|{settings.signature()}"
    table = res.table.assign(settings=tag)
    per = res.perturbations.assign(settings=tag)
    if args.task:
        from ..scoring.settings import metatask_settings_line

        print(f"settings: {metatask_settings_line(settings.judged_only, settings.tokenizer, None)}", file=sys.stderr)
    else:
        print(f"settings: {settings.describe(ds, args.human)}", file=sys.stderr)
    print(f"method: {res.method}", file=sys.stderr)
    for line in res.notes:
        print(f"note: {line}", file=sys.stderr)
    emit(table, args.out, args, section=None if args.out else "stability",
         float_format=None if args.out else "%.6f")
    emit(per, args.perturbations_out, args, section=None if args.perturbations_out else "perturbations",
         float_format=None if args.perturbations_out else "%.6f", first=False)
    return 0
