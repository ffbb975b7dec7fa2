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
OUTPUTS = ("out",)
HELP = "The WMT metrics-task table (wmt23, wmt24, wmt25 recipes): per-task values, average, average rank."


def add_arguments(p) -> None:
    from ..metatask_tasks import TASKS

    p.add_argument("path", help="dataset folder or zip with one or more language pairs")
    p.add_argument("--task", required=True, choices=sorted(TASKS))
    p.add_argument("--lp", help="comma-separated language pairs (default: the task's, else every pair of the data)")
    p.add_argument("--metrics", help="comma-separated built-in metric ids")
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
    return "\n".join(lines) + "\n"


def run(args) -> int:
    import pandas as pd

    from ..io import load_collection
    from ..metatask import pair_data, run_task
    from ..metatask_tasks import TASKS

    task = TASKS[args.task]
    notes: list[str] = []
    coll = load_collection(args.path)
    have = list(coll)
    if args.lp:
        lps = [x.strip() for x in args.lp.split(",") if x.strip()]
        missing = [x for x in lps if x not in coll]
        if missing:
            raise ValueError(f"language pair(s) {missing} not in {args.path}; it has {', '.join(have)}")
        notes.append(f"language pairs overridden: {', '.join(lps)} (the task's: {', '.join(task.lps)})")
    else:
        lps = [x for x in task.lps if x in coll]
        if not lps:
            lps = have
            notes.append(f"the task's language pairs ({', '.join(task.lps)}) are not in the data: "
                         f"using its pairs {', '.join(lps)}")
    metrics = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    if not metrics and not args.scores:
        raise ValueError("give --metrics and/or --scores")
    byo = None
    if args.scores:
        from ..metrics.byo import read_scores

        byo = pd.concat([read_scores(f) for f in args.scores], ignore_index=True)
    if metrics:
        from ..metrics.base import metric_ids

        unknown = [m for m in metrics if m.lower() not in set(metric_ids())]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}")
    need_sys = any(s.level == "sys" and s.statistic != "spa" for s in task.subtasks(lps))
    pairs, signatures = {}, {}
    from ..progress import StderrProgress
    from . import _tok

    for lp in lps:
        ds = coll[lp]
        human = args.human or task.gold_for(lp)
        if human not in ds.criteria:
            if args.human or len(ds.criteria) != 1:
                raise ValueError(f"{lp}: no {human!r} judgements; the data has {', '.join(ds.criteria) or 'none'}")
            notes.append(f"{lp}: the task's human scores {human!r} are not in the data: using {ds.criteria[0]!r}")
            human = ds.criteria[0]
        ref = task.ref_for(lp)
        refs = [ref] if ref in ds.ref_ids else None
        if refs is None:
            notes.append(f"{lp}: the task's primary reference {ref!r} is not in the data: using {', '.join(ds.ref_ids)}")
        include_human = (lp in task.human_systems_lps) if args.include_human_systems is None else args.include_human_systems
        if args.include_human_systems is not None:
            notes.append(f"{lp}: human translations as systems overridden: {include_human}")
        seg_frames, sys_frames = [], []
        judged = None
        if args.judged_only:
            from ..human.scores import criterion_judgements

            j = criterion_judgements(ds, human)
            judged = {s: set(g["seg_id"].astype(str)) for s, g in j.groupby("system", sort=False)}
            notes.append(f"{lp}: --judged-only: corpus scores over the judged segments (the task: all segments)")
        if metrics:
            from ..metrics.base import get_metric
            from ..parallel import score_table

            tok = _tok.resolve(args, ds, [get_metric(m) for m in metrics])
            t = score_table(ds, metrics, level="segment", ref_ids=refs, include_references=include_human,
                            tokenize=tok, progress=StderrProgress(f"{lp} segment scores"))
            seg_frames.append(t)
            for m, sig in dict(zip(t["metric"], t["signature"])).items():
                signatures.setdefault(m, [])
                if sig not in signatures[m]:
                    signatures[m].append(sig)
            if need_sys:
                st = score_table(ds, metrics, level="system", ref_ids=refs, include_references=include_human,
                                 tokenize=tok, segments=judged, progress=StderrProgress(f"{lp} system scores"))
                sys_frames.append(st)
        if byo is not None:
            b = byo[(byo["lp"] == lp) | (byo["lp"] == "")] if "lp" in byo.columns else byo
            seg_frames.append(b[b["seg_id"].astype(str) != ""])
            sys_frames.append(b[b["seg_id"].astype(str) == ""])
            for m in b["metric"].unique():
                signatures.setdefault(m, ["external"])
        seg = pd.concat(seg_frames, ignore_index=True)
        sysf = pd.concat(sys_frames, ignore_index=True) if sys_frames else None
        p, n = pair_data(ds, task, seg, sysf, human=human, include_human=include_human,
                         exclude=task.outliers_by_lp.get(lp, ()))
        pairs[lp] = p
        notes += n
    res = run_task(task, pairs, num_permutations=args.permutations, k=args.k, alpha=args.alpha,
                   perm_seed=args.seed)
    notes += res.notes
    if args.k == 0:
        notes.append("k = 0 (the official runs' default): ranks are positions; no clusters")
    table = res.table()
    table["signature"] = table["metric"].map(lambda m: " / ".join(signatures.get(m, ["external"])))
    table["settings"] = (f"task={task.name}|lps={','.join(sorted(lps))}|k={args.k}|spa_permutations={args.permutations}"
                         f"|weights=" + ",".join(f"{s.weight:.4g}" for s in res.subtasks))
    for line in notes:
        print(f"note: {line}", file=sys.stderr)
    fmt = args.format or ("csv" if (args.out or "").lower().endswith(".csv") else
                          "latex" if (args.out or "").lower().endswith(".tex") else "tsv")
    if fmt == "latex":
        text = _latex(table, f"{task.name}: {task.citation}")
        if args.out:
            from ..export import atomic_write

            atomic_write(args.out, lambda fh: fh.write(text))
            print(f"wrote {len(table)} rows to {args.out}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    if args.out:
        from ..export import write_table

        write_table(table, args.out, float_format=None)
        print(f"wrote {len(table)} rows to {args.out}", file=sys.stderr)
    else:
        table.to_csv(sys.stdout, sep="\t" if fmt == "tsv" else ",", index=False, float_format="%.6f")
    return 0
