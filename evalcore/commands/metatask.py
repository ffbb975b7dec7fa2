"""``python -m evalcore metatask``: the WMT metrics-task table of a task recipe (methods §3.13).

One row per metric: metric, average (weighted average of the sub-task values mapped to [0, 1]),
average_rank, cluster (with ``--k`` > 0), one column per sub-task (``lp:level:statistic``), signature
(the metric's), settings (the task's). The task fixes the language pairs, the human score type, the
primary reference, the human translations scored as systems and the outliers; ``--lp``, ``--human``,
``--include-human-systems`` / ``--no-human-systems`` and ``--judged-only`` override it, and a note
says what was overridden or not found. ``--format latex`` writes a LaTeX tabular.
"""
from __future__ import annotations

import sys

NAME = "metatask"
STATES_SETTINGS = True  # its settings line, resolved on the data, goes to stderr from run()
OUTPUTS = ("out",)
HELP = "The WMT metrics-task table (wmt22, wmt23, wmt24, wmt25 recipes): per-task values, average, average rank."


def add_arguments(p) -> None:
    from ..analysis.metatask_tasks import TASKS

    p.add_argument("path", help="dataset folder or zip with one or more language pairs, or an "
                                "mt-metrics-eval-v2 root (one folder per test set)")
    p.add_argument("--task", choices=sorted(TASKS),
                   help="the recipe (default: the one whose human score types the data has; a note names it)")
    p.add_argument("--test-set", help="with an mt-metrics-eval-v2 root: the test set (default: the task's, "
                                      "e.g. wmt23, when the root has it, else its only one)")
    p.add_argument("--lp", help="comma-separated language pairs, or all (default: the task's, else every pair of the data)")
    p.add_argument("--metrics", help="comma-separated built-in metric ids, and/or stored:NAME for scores the "
                                     "data stores (mt-metrics-eval metric-scores/; stored:BLEU = each pair's "
                                     "BLEU-<primary reference>; stored:all = every stored metric scored against the "
                                     "primary reference, and every reference-free one as NAME[noref])")
    from ..analysis.metatask_tasks import METRIC_SETS

    p.add_argument("--metric-set", choices=METRIC_SETS, default="all",
                   help="only the recipe's primary submissions or its baselines (matched on base names; "
                        "default all)")
    p.add_argument("--scores", action="append", default=[],
                   help="bring-your-own scores TSV (metric, system, seg_id, score[, lp]); repeatable")
    p.add_argument("--human", help="human score type (default: the task's for each pair)")
    hs = p.add_mutually_exclusive_group()
    hs.add_argument("--include-human-systems", action="store_true", default=None,
                    help="score the other human translations as systems in every pair")
    hs.add_argument("--no-human-systems", dest="include_human_systems", action="store_false",
                    help="never score human translations as systems")
    p.add_argument("--judged-only", action="store_true",
                   help="system-level (corpus) metric scores over the judged segments only (the task: all)")
    p.add_argument("--k", type=int, default=0,
                   help="permutation resamples for metric significance clusters (default 0, as the official runs)")
    p.add_argument("--permutations", type=int, default=1000, help="SPA permutations (default 1000, seed 4)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0, help="seed of the cluster resamples")
    p.add_argument("--format", choices=["tsv", "csv", "latex"], default=None,
                   help="output format (default: from the --out suffix; stdout: tsv)")
    p.add_argument("--sentinels", action="store_true",
                   help="add the model-free sentinel baselines as rows (sentinel:cand-length, src-length, "
                        "length-ratio, src-overlap, system-prior) and per metric its margin over the best sentinel "
                        "(average), a paired permutation p (--sentinel-draws) and a beats_sentinel flag "
                        "(Perrella et al. 2024; docs/methods.md §24.3)")
    p.add_argument("--sentinel-draws", type=int, default=100,
                   help="--sentinels: permutation draws of each metric-vs-best-sentinel test (default 100)")
    p.add_argument("--human-ceiling", metavar="SECOND",
                   help="add the inter-annotator row human-ceiling: a second rating of the same outputs (another "
                        "human score type, e.g. a second wave; 'raters': each item's first rater against its "
                        "second; 'repeats': each rater's first rating of an item against their re-rating) scored with every sub-task against the gold and the reverse, averaged; and a "
                        "ceiling_share column (docs/methods.md §24.2)")
    p.add_argument("--out", help="write the table here")
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def _latex(table, caption: str) -> str:
    import pandas as pd

    def esc(x):
        s = str(x)
        for a, b in [("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                     ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}")]:
            s = s.replace(a, b)
        return s

    cols = [c for c in table.columns if c not in ("signature", "settings")]
    lines = [r"\begin{tabular}{l" + "r" * (len(cols) - 1) + "}", r"\hline",
             " & ".join(esc(c) for c in cols) + r" \\", r"\hline"]
    for _, row in table.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            cells.append(esc(v) if isinstance(v, str) else ("" if pd.isna(v) else
                         (f"{v:.4f}" if isinstance(v, float) else esc(v))))
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}", f"% {esc(caption)}"]
    if "signature" in table:  # LaTeX comments: the signatures travel with the table
        lines += [f"% {row['metric']}: {row['signature']}" for _, row in table.iterrows()]
    if "settings" in table and len(table):
        lines.append(f"% settings: {table['settings'].iloc[0]}")
    return "\n".join(lines) + "\n"


def run(args) -> int:
    import pandas as pd

    from ..io import load_test_set
    from ..analysis.metatask import TASK_RECIPE, run_metatask
    from ..analysis.metatask_tasks import TASKS

    from . import _tok

    _tok.check(args)
    from . import _defaults

    lps = [x.strip() for x in args.lp.split(",") if x.strip()] if args.lp else None
    test_set, coll = load_test_set(args.path, args.test_set, None if lps in (None, ["all"]) else lps,
                                   prefer=args.task or _defaults.METATASK_TASK)
    task = TASKS[args.task or _defaults.task_for({lp: d for lp, d in coll.items() if d.criteria} or coll)]
    if test_set:
        print(f"note: test set {test_set} of the mt-metrics-eval root {args.path}", file=sys.stderr)
    if lps == ["all"]:
        lps = list(coll)
    metrics = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    byo = None
    if args.scores:
        from ..metrics.byo import read_scores

        byo = pd.concat([read_scores(f) for f in args.scores], ignore_index=True)
    if not metrics and byo is None:  # the Metrics task page's default metrics
        metrics = list(_defaults.METATASK_METRICS)
        _defaults.note(f"--metrics {','.join(metrics)}: the Metrics task page's default metrics")
    snotes: list[str] = []
    if args.sentinels:
        from ..analysis.baselines import with_sentinel_rows

        byo, snotes = with_sentinel_rows(coll, byo)
    res, notes, signatures = run_metatask(
        coll, task, lps=lps, metrics=metrics, scores=byo, human=args.human,
        include_human=args.include_human_systems,
        settings=TASK_RECIPE.with_(judged_only=bool(args.judged_only), tokenizer=getattr(args, "tokenize", None)),
        k=args.k, alpha=args.alpha, seed=args.seed,
        num_permutations=args.permutations, metric_set=args.metric_set)
    lps_used = sorted(res.pairs)
    table = res.table()
    notes = list(notes) + snotes
    from ..analysis.baselines import augment

    table, signatures, bnotes = augment(res, table, coll, signatures, sentinels=args.sentinels,
                                        second=args.human_ceiling, human=args.human, draws=args.sentinel_draws,
                                        alpha=args.alpha, seed=args.seed, num_permutations=args.permutations)
    notes += bnotes
    table["signature"] = table["metric"].map(lambda m: " / ".join(signatures.get(m, ["external"])))
    table["settings"] = (f"task={task.name}{'|test_set=' + test_set if test_set else ''}"
                         f"{'|metric_set=' + args.metric_set if args.metric_set != 'all' else ''}|lps={','.join(lps_used)}|k={args.k}|spa_permutations={args.permutations}"
                         f"|weights=" + ",".join(f"{s.weight:.4g}" for s in res.subtasks))
    for line in notes:
        print(f"note: {line}", file=sys.stderr)
    from ..analysis.verdict import metatask_verdict

    verdict = metatask_verdict(table, task.name)
    if verdict is not None:
        print(verdict.line(), file=sys.stderr)
    from ..scoring.settings import metatask_settings_line

    print(f"settings: {metatask_settings_line(args.judged_only, getattr(args, 'tokenize', None), args.include_human_systems)}",
          file=sys.stderr)
    fmt = args.format or ("csv" if (args.out or "").lower().endswith(".csv") else
                          "latex" if (args.out or "").lower().endswith(".tex") else "tsv")
    if fmt == "latex":
        text = _latex(table, f"{task.name}: {task.citation}")
        if args.out:
            from ..core.export import atomic_write

            atomic_write(args.out, lambda fh: fh.write(text))
            print(f"wrote {len(table)} rows to {args.out}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    if args.out:
        from ..core.export import write_table

        write_table(table, args.out, float_format=None)
        print(f"wrote {len(table)} rows to {args.out}", file=sys.stderr)
    elif fmt == "csv":
        from ..core.export import to_safe_csv  # formulas neutralised, as in .csv files

        to_safe_csv(table, sys.stdout, float_format="%.6f")
    else:
        table.to_csv(sys.stdout, sep="\t", index=False, float_format="%.6f")
    return 0
