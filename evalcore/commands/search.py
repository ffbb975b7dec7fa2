"""``python -m evalcore search PATH --metrics m1,...,mk [--exhaustive]``: KING-driven metric-set search.

Spec §0.5 / §1.4 (Amigó et al. 2006 §3.3): greedy by default (rank metrics by their single-metric KING,
add each next one only if the set's KING strictly increases, one pass); ``--exhaustive``
scores every subset (at most 12 metrics). Prints the chosen set, its KING and the trace;
``--out FILE`` writes the trace TSV.

Before the search, metrics whose single-reference similarities are defined in fewer than
``--min-coverage`` (default 0.95; 0 disables) of the cells where both texts exist, and
metrics whose single-metric KING is >= 0.99 with a tie rate >= 0.9 ("degenerate: decided by
ties"; ``--keep-degenerate`` keeps them) are left out and listed with the reason
(docs/findings.md: a sparse syntactic sub-metric otherwise wins with KING 1 under >=).
"""
from __future__ import annotations

NAME = "search"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out",)  # checked before any work (evalcore.core.export.check_outputs)
TEXT_OUTPUT = True  # prints a report: under --lp all each pair gets a header line
HELP = "Greedy (or exhaustive) search for the metric set with the highest KING (QARLA, methods §1.4)."


def add_arguments(p):
    from ._qarla_support import add_data_arguments

    add_data_arguments(p)
    p.add_argument("--metrics", required=True, help="comma-separated candidate metric ids")
    p.add_argument("--exhaustive", action="store_true", help="score every subset (<= 12 metrics)")
    p.add_argument("--mode", choices=["local", "pooled", "auto"], default="auto")
    p.add_argument("--queen-ties", choices=["geq", "strict"], default="geq")
    p.add_argument("--ties", choices=["geq", "strict", "fractional"], default="geq")
    p.add_argument("--average", choices=["micro", "macro"], default="micro")
    p.add_argument("--rank-by", choices=["queen", "direct"], default="queen",
                   help="greedy order: single-metric KING via QUEEN (§1.3, default) or direct (§1.1)")
    p.add_argument("--min-coverage", type=float, default=0.95, metavar="F",
                   help="leave out metrics whose similarities are defined in fewer than this share of the "
                        "(candidate, reference) pairs whose texts exist (default 0.95; 0 disables)")
    p.add_argument("--keep-degenerate", action="store_true",
                   help="keep metrics whose single-metric KING is >= 0.99 while their tie rate is >= 0.9")
    p.add_argument("--out", help="write the trace TSV here")
    from ..scoring.parallel import add_scheduler_argument

    add_scheduler_argument(p)


def run(args) -> int:
    from ..qarla import exhaustive_search, greedy_search
    from ._qarla_support import Progress, load_with_tensors, write
    from ..qarla.search import text_presence

    if not 0.0 <= args.min_coverage <= 1.0:
        raise ValueError(f"--min-coverage must be in [0, 1], got {args.min_coverage}")
    ds, tens = load_with_tensors(args, args.metrics, "--metrics")
    kw = dict(mode=args.mode, queen_ties=args.queen_ties, ties=args.ties, average=args.average,
              progress=Progress("search"), min_coverage=args.min_coverage,
              exclude_degenerate=not args.keep_degenerate,
              presence=text_presence(ds, next(iter(tens.values()))))
    if args.exhaustive:
        res = exhaustive_search(tens, **kw)
    else:
        res = greedy_search(tens, rank_by=args.rank_by, **kw)
    print(f"# method: {res.method}  mode={args.mode} ties={args.ties} queen_ties={args.queen_ties}")
    print(f"# chosen: {','.join(res.chosen)}")
    print(f"# KING = {res.king:.4f}  ORANGE = {res.orange:.4f}")
    if len(res.excluded):
        print(f"# excluded before the search ({len(res.excluded)}; min coverage {args.min_coverage:g}"
              f"{', degenerate kept' if args.keep_degenerate else ''}):")
        for r in res.excluded.itertuples(index=False):
            print(f"#   {r.metric} (coverage {r.coverage:.4f}): {r.reason}")
    flagged = res.ranking.loc[res.ranking["degenerate"].astype(bool), "metric"].tolist()
    if flagged:
        print(f"# warning: degenerate candidates kept (KING decided by ties): {','.join(flagged)}")
    print("# single-metric KING (QUEEN-based" + (", and direct §1.1" if "king_direct" in res.ranking else "") + "):")
    print(res.ranking.to_string(index=False))
    print("# trace:")
    print(res.trace.head(50).to_string(index=False))
    if args.out:
        write(res.trace, args.out, args)
    return 0
